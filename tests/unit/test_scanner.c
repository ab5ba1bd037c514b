/*
 * test_scanner.c - the daemon's queue of names (queue.h), its name table
 * (namemap.h) and its directory scans on the pool (scanner.h), on their
 * own.
 */
#include <check.h>
#include <dirent.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "harness.h"
#include "namemap.h"
#include "queue.h"
#include "scanner.h"
#include "settle.h"
#include "spool.h"

/* ---- the queue ----------------------------------------------------- */

START_TEST(queue_keeps_order)
{
    struct cairn_queue q = { 0 };
    struct cairn_pending *p;

    ck_assert_int_eq(cairn_queue_push(&q, "a.jsonl", 0), 0);
    ck_assert_int_eq(cairn_queue_push(&q, "b.jsonl", 1), 0);
    ck_assert_uint_eq(q.n, 2);
    p = cairn_queue_pop(&q);
    ck_assert_str_eq(p->name, "a.jsonl");
    ck_assert_int_eq(p->recovered, 0);
    free(p);
    ck_assert_int_eq(cairn_queue_push(&q, "c.jsonl", 0), 0);
    p = cairn_queue_pop(&q);
    ck_assert_str_eq(p->name, "b.jsonl");
    ck_assert_int_eq(p->recovered, 1);
    free(p);
    p = cairn_queue_pop(&q);
    ck_assert_str_eq(p->name, "c.jsonl");
    free(p);
    ck_assert_uint_eq(q.n, 0);
    ck_assert_ptr_null(cairn_queue_pop(&q));
}
END_TEST

/* ---- the dispatcher's name table (namemap.h) ------------------------- */

/* Keeps the even-numbered names, as state + 1; removes the others. */
static int keep_even(const char *name, int state, void *data)
{
    (*(int *)data)++;
    return atoi(name + 1) % 2 == 0 ? state + 1 : -1;
}

START_TEST(namemap_keeps_one_state_per_name)
{
    struct cairn_namemap m = { 0 };
    char name[32];
    int i, calls = 0;

    ck_assert_int_eq(cairn_namemap_get(&m, "a.jsonl"), -1);
    ck_assert_int_eq(cairn_namemap_remove(&m, "a.jsonl"), 0);
    ck_assert_int_eq(cairn_namemap_set(&m, "a.jsonl", 3), 0);
    ck_assert_int_eq(cairn_namemap_set(&m, "a.jsonl", 5), 0); /* one entry, new state */
    ck_assert_int_eq(cairn_namemap_get(&m, "a.jsonl"), 5);
    ck_assert_uint_eq(m.used, 1);
    ck_assert_int_eq(cairn_namemap_remove(&m, "a.jsonl"), 1);
    ck_assert_int_eq(cairn_namemap_get(&m, "a.jsonl"), -1);
    /* Past several growths, with tombstones on the probe paths. */
    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "j%d", i);
        ck_assert_int_eq(cairn_namemap_set(&m, name, i), 0);
        if (i % 7 == 0)
            ck_assert_int_eq(cairn_namemap_remove(&m, name), 1);
    }
    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "j%d", i);
        ck_assert_int_eq(cairn_namemap_get(&m, name), i % 7 == 0 ? -1 : i);
    }
    cairn_namemap_update(&m, keep_even, &calls);
    ck_assert_int_eq(calls, 1000 - 143);
    for (i = 0; i < 1000; i++) {
        snprintf(name, sizeof(name), "j%d", i);
        ck_assert_int_eq(cairn_namemap_get(&m, name), i % 7 == 0 || i % 2 ? -1 : i + 1);
    }
    cairn_namemap_free(&m);
    ck_assert_int_eq(cairn_namemap_get(&m, "j2"), -1);
}
END_TEST

/* ---- scans ----------------------------------------------------------- */

struct seen {
    int calls;
    uv_thread_t loop_thread;
    int on_loop_thread;
    struct cairn_scan last; /* names only: copies of the lists' names */
    char input[512], active[512], ignored[512], found[512];
    int repaired;
    int what;
};

static void names_of(const struct cairn_scan_list *l, char *out, size_t cap)
{
    size_t i, k;
    char *sorted[64];
    size_t n = l->n < 64 ? l->n : 64;

    for (i = 0; i < n; i++)
        sorted[i] = l->v[i].name;
    /* readdir order is the file system's: sort for the comparison. */
    for (i = 1; i < n; i++)
        for (k = i; k > 0 && strcmp(sorted[k - 1], sorted[k]) > 0; k--) {
            char *t = sorted[k];
            sorted[k] = sorted[k - 1];
            sorted[k - 1] = t;
        }
    out[0] = '\0';
    for (i = 0; i < n; i++) {
        strncat(out, sorted[i], cap - strlen(out) - 2);
        strcat(out, " ");
    }
}

static void on_done(struct cairn_scanner *s, const struct cairn_scan *c)
{
    struct seen *seen = s->data;
    uv_thread_t self = uv_thread_self();

    seen->calls++;
    seen->on_loop_thread = uv_thread_equal(&self, &seen->loop_thread);
    seen->what = c->what;
    seen->repaired = c->repaired;
    names_of(&c->input, seen->input, sizeof(seen->input));
    names_of(&c->active, seen->active, sizeof(seen->active));
    names_of(&c->ignored, seen->ignored, sizeof(seen->ignored));
    names_of(&c->found, seen->found, sizeof(seen->found));
}

struct fixture {
    char root[64];
    char in[128];
    char out[128];
    struct cairn_spool spool;
    uv_loop_t loop;
    struct cairn_scanner s;
    struct seen seen;
};

static void touch_in(struct fixture *f, const char *rel)
{
    char path[PATH_MAX];
    int fd;

    snprintf(path, sizeof(path), "%s/%s", f->in, rel);
    fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "{}\n", 3), 3);
    close(fd);
}

static void setup(struct fixture *f)
{
    const char *what;

    memset(f, 0, sizeof(*f));
    snprintf(f->root, sizeof(f->root), "/tmp/cairn-test-scanner.XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(f->root));
    snprintf(f->in, sizeof(f->in), "%s/in", f->root);
    snprintf(f->out, sizeof(f->out), "%s/out", f->root);
    ck_assert_int_eq(mkdir(f->in, 0755), 0);
    ck_assert_int_eq(mkdir(f->out, 0755), 0);
    f->spool.log = NULL;
    ck_assert_int_eq(cairn_spool_open(&f->spool, f->in, f->out, &what), 0);
    ck_assert_int_eq(uv_loop_init(&f->loop), 0);
    f->seen.loop_thread = uv_thread_self();
    cairn_scanner_init(&f->s, &f->loop, &f->spool, on_done, &f->seen);
}

static void teardown(struct fixture *f)
{
    char cmd[128];

    cairn_scanner_free(&f->s);
    ck_assert_int_eq(uv_loop_close(&f->loop), 0);
    cairn_spool_close(&f->spool);
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
    ck_assert_int_eq(system(cmd), 0);
}

START_TEST(scan_lists_jobs_active_and_never_taken_files)
{
    struct fixture f;
    char path[PATH_MAX];

    setup(&f);
    touch_in(&f, "a.jsonl");
    touch_in(&f, "b.jsonl");
    touch_in(&f, ".hidden.jsonl"); /* a producer's temporary */
    touch_in(&f, "c.jsonl.tmp");   /* likewise */
    touch_in(&f, "meant.json");    /* never taken: said in the log */
    touch_in(&f, "notes.txt");
    touch_in(&f, ".cairn/active/r.jsonl");
    snprintf(path, sizeof(path), "%s/sub.txt", f.in);
    ck_assert_int_eq(mkdir(path, 0755), 0); /* a folder is no file */
    ck_assert_int_eq(cairn_scanner_request(&f.s, CAIRN_SCAN_FULL | CAIRN_SCAN_ACTIVE), 0);
    ck_assert(cairn_scanner_busy(&f.s));
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(f.seen.calls, 1);
    ck_assert(f.seen.on_loop_thread);
    ck_assert(!cairn_scanner_busy(&f.s));
    ck_assert_str_eq(f.seen.input, "a.jsonl b.jsonl ");
    ck_assert_str_eq(f.seen.active, "r.jsonl ");
    ck_assert_str_eq(f.seen.ignored, "meant.json notes.txt ");
    ck_assert_int_eq(f.seen.repaired, 0);
    teardown(&f);
}
END_TEST

/* Requests made while a scan runs are gathered into one more. */
START_TEST(requests_while_running_are_gathered)
{
    struct fixture f;

    setup(&f);
    touch_in(&f, "a.jsonl");
    ck_assert_int_eq(cairn_scanner_request(&f.s, CAIRN_SCAN_FULL), 0);
    ck_assert_int_eq(cairn_scanner_request(&f.s, CAIRN_SCAN_FULL), 0);
    ck_assert_int_eq(cairn_scanner_lookup(&f.s, "a.jsonl"), 0);
    ck_assert_int_eq(cairn_scanner_lookup(&f.s, "absent.jsonl"), 0);
    ck_assert_int_eq(cairn_scanner_request(&f.s, CAIRN_SCAN_FULL), 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(f.seen.calls, 2);
    ck_assert_int_eq(f.seen.what, CAIRN_SCAN_FULL);
    ck_assert_str_eq(f.seen.found, "a.jsonl ");
    ck_assert_str_eq(f.seen.input, "a.jsonl ");
    teardown(&f);
}
END_TEST

/* A lookup alone lists nothing but what it names. */
START_TEST(lookup_alone_lists_nothing_else)
{
    struct fixture f;

    setup(&f);
    touch_in(&f, "a.jsonl");
    touch_in(&f, "b.jsonl");
    ck_assert_int_eq(cairn_scanner_lookup(&f.s, "b.jsonl"), 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(f.seen.calls, 1);
    ck_assert_int_eq(f.seen.what, 0);
    ck_assert_str_eq(f.seen.found, "b.jsonl ");
    ck_assert_str_eq(f.seen.input, "");
    teardown(&f);
}
END_TEST

/* Every work item recreates a state folder someone removed. */
START_TEST(scan_recreates_removed_state_folders)
{
    struct fixture f;
    char path[PATH_MAX];
    struct stat st;

    setup(&f);
    snprintf(path, sizeof(path), "%s/.cairn/done", f.in);
    ck_assert_int_eq(rmdir(path), 0);
    ck_assert_int_eq(cairn_scanner_request(&f.s, 0), 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(f.seen.calls, 1);
    ck_assert_int_eq(f.seen.repaired, 1 << 1);
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert(S_ISDIR(st.st_mode));
    teardown(&f);
}
END_TEST

/* After stop, a scan in flight ends without a word, and no more start. */
START_TEST(stopped_scanner_calls_nothing)
{
    struct fixture f;

    setup(&f);
    ck_assert_int_eq(cairn_scanner_request(&f.s, CAIRN_SCAN_FULL), 0);
    ck_assert_int_eq(cairn_scanner_request(&f.s, CAIRN_SCAN_FULL), 0);
    cairn_scanner_stop(&f.s);
    ck_assert_int_eq(cairn_scanner_request(&f.s, CAIRN_SCAN_FULL), 0);
    uv_run(&f.loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(f.seen.calls, 0);
    teardown(&f);
}
END_TEST

/* ---- the age of a file with a future mtime (settle.h) --------------- */

#define MS 1000000ull /* nanoseconds */

static struct stat stat_of(off_t size, time_t mtime)
{
    struct stat st;

    memset(&st, 0, sizeof(st));
    st.st_size = size;
    st.st_mtim.tv_sec = mtime;
    return st;
}

/* A past mtime is its own age; a future one counts from when the file was
 * first seen as it is, per name, and starts over when the file changes
 * (still being written) or once a full scan did not see it. */
/* A job holds the output directory it began with: following the path to
 * a new directory leaves that one open for it, and its last reference
 * closes it.  The same directory is not opened again. */
START_TEST(held_output_directory_outlives_a_follow)
{
    struct fixture f;
    struct cairn_outdir *held, *now;
    char old[PATH_MAX];
    struct stat st, dir;
    int fd;

    setup(&f);
    held = cairn_spool_hold_output(&f.spool);
    ck_assert_ptr_eq(held, f.spool.out);
    ck_assert_int_eq(cairn_spool_follow_output(&f.spool, f.out), 0);
    ck_assert_ptr_eq(f.spool.out, held); /* the same directory: kept */
    snprintf(old, sizeof(old), "%s/out-old", f.root);
    ck_assert_int_eq(rename(f.out, old), 0);
    ck_assert_int_eq(mkdir(f.out, 0755), 0);
    ck_assert_int_eq(cairn_spool_follow_output(&f.spool, f.out), 0);
    now = f.spool.out;
    ck_assert_ptr_ne(now, held);
    ck_assert_int_eq(stat(old, &dir), 0);
    ck_assert_int_eq(fstat(held->fd, &st), 0);
    ck_assert(st.st_ino == dir.st_ino && st.st_dev == dir.st_dev && held->ino == dir.st_ino);
    ck_assert_int_eq(stat(f.out, &dir), 0);
    ck_assert_int_eq(fstat(now->fd, &st), 0);
    ck_assert(st.st_ino == dir.st_ino && now->ino == dir.st_ino);
    fd = held->fd;
    cairn_outdir_release(held);
    ck_assert_int_eq(fcntl(fd, F_GETFD), -1);
    ck_assert_int_eq(errno, EBADF);
    teardown(&f);
}
END_TEST

static int lock_files_in(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        n += len > 12 && strncmp(e->d_name, ".cairn.", 7) == 0 &&
             strcmp(e->d_name + len - 5, ".lock") == 0;
    }
    closedir(d);
    return n;
}

/* An output directory's owner (its jobs' temporaries' lock) is made once,
 * at the first ask, and its lock file goes with the last reference, or at
 * once when an abort drops it. */
START_TEST(output_owner_is_made_once_and_goes_with_the_directory)
{
    struct fixture f;
    struct cairn_outdir *held;
    const struct cairn_tmpowner *o;
    char old[PATH_MAX];

    setup(&f);
    held = cairn_spool_hold_output(&f.spool);
    ck_assert_int_eq(lock_files_in(f.out), 0);
    o = cairn_outdir_owner(held);
    ck_assert_ptr_nonnull(o);
    ck_assert_ptr_eq(cairn_outdir_owner(held), o);
    ck_assert_int_eq(lock_files_in(f.out), 1);
    /* The path moves on: the job that holds the old one keeps its lock
     * until its end. */
    snprintf(old, sizeof(old), "%s/out-old", f.root);
    ck_assert_int_eq(rename(f.out, old), 0);
    ck_assert_int_eq(mkdir(f.out, 0755), 0);
    ck_assert_int_eq(cairn_spool_follow_output(&f.spool, f.out), 0);
    ck_assert_int_eq(lock_files_in(old), 1);
    cairn_outdir_release(held);
    ck_assert_int_eq(lock_files_in(old), 0);
    ck_assert_int_eq(rmdir(old), 0);
    /* An abort drops it while jobs still hold it. */
    held = cairn_spool_hold_output(&f.spool);
    ck_assert_ptr_nonnull(cairn_outdir_owner(held));
    ck_assert_int_eq(lock_files_in(f.out), 1);
    cairn_outdir_drop_owner(f.spool.out);
    ck_assert_int_eq(lock_files_in(f.out), 0);
    ck_assert_ptr_null(cairn_outdir_owner(held)); /* not made again */
    cairn_outdir_release(held);
    teardown(&f);
}
END_TEST

START_TEST(future_mtimes_age_by_our_clock)
{
    struct timespec now = { .tv_sec = 1000000 };
    struct stat past = stat_of(10, now.tv_sec - 3), a = stat_of(10, now.tv_sec + 86400);
    struct stat b = stat_of(20, now.tv_sec + 86400), a_grown = stat_of(30, now.tv_sec + 86400);
    struct cairn_settle s = { 0 };

    ck_assert_uint_eq(cairn_settle_age_ms(&s, "old.jsonl", &past, &now, 5 * MS), 3000);
    ck_assert_ptr_null(s.head); /* nothing to remember */

    cairn_settle_begin_scan(&s);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "a.jsonl", &a, &now, 1000 * MS), 0);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "b.jsonl", &b, &now, 1100 * MS), 0);
    cairn_settle_end_scan(&s);

    /* Unchanged: quiet since first seen, each by its own first sighting. */
    cairn_settle_begin_scan(&s);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "a.jsonl", &a, &now, 1400 * MS), 400);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "b.jsonl", &b, &now, 1400 * MS), 300);
    cairn_settle_end_scan(&s);

    /* a grew: it starts over; b changed its mtime only: so does b. */
    b.st_mtim.tv_nsec = 5;
    cairn_settle_begin_scan(&s);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "a.jsonl", &a_grown, &now, 2000 * MS), 0);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "b.jsonl", &b, &now, 2000 * MS), 0);
    cairn_settle_end_scan(&s);
    cairn_settle_begin_scan(&s);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "a.jsonl", &a_grown, &now, 2250 * MS), 250);
    cairn_settle_end_scan(&s); /* b was not seen: forgotten */

    /* b back as it was: a new file to us, its age from now. */
    cairn_settle_begin_scan(&s);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "b.jsonl", &b, &now, 3000 * MS), 0);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "a.jsonl", &a_grown, &now, 3000 * MS), 1000);
    cairn_settle_end_scan(&s);
    cairn_settle_begin_scan(&s);
    ck_assert_uint_eq(cairn_settle_age_ms(&s, "b.jsonl", &b, &now, 3500 * MS), 500);
    cairn_settle_end_scan(&s);
    cairn_settle_free(&s);
    ck_assert_ptr_null(s.head);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("scanner");
    TCase *tc = tcase_create("core");
    int failed;

    tcase_add_test(tc, queue_keeps_order);
    tcase_add_test(tc, namemap_keeps_one_state_per_name);
    tcase_add_test(tc, scan_lists_jobs_active_and_never_taken_files);
    tcase_add_test(tc, requests_while_running_are_gathered);
    tcase_add_test(tc, lookup_alone_lists_nothing_else);
    tcase_add_test(tc, scan_recreates_removed_state_folders);
    tcase_add_test(tc, stopped_scanner_calls_nothing);
    tcase_add_test(tc, future_mtimes_age_by_our_clock);
    tcase_add_test(tc, held_output_directory_outlives_a_follow);
    tcase_add_test(tc, output_owner_is_made_once_and_goes_with_the_directory);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
