/*
 * test_tmpfile.c - temporary outputs: unique whoever writes, never through
 * a planted name, and swept by their lock, not by any PID.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <uv.h>

#include "harness.h"
#include "tmpfile.h"

static char g_dir[64];
static int g_fd = -1;

static void setup(void)
{
    snprintf(g_dir, sizeof(g_dir), "/tmp/cairn-test-tmpfile-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
    g_fd = open(g_dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(g_fd, 0);
}

static void teardown(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;

    while (d != NULL && (e = readdir(d)) != NULL)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0)
            unlinkat(g_fd, e->d_name, 0);
    if (d != NULL)
        closedir(d);
    close(g_fd);
    rmdir(g_dir);
}

static int entries(void)
{
    DIR *d = opendir(g_dir);
    struct dirent *e;
    int n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

static void slurp(const char *name, char *buf, size_t cap)
{
    int fd = openat(g_fd, name, O_RDONLY);
    ssize_t n;

    ck_assert_int_ge(fd, 0);
    n = read(fd, buf, cap - 1);
    ck_assert_int_ge(n, 0);
    buf[n] = '\0';
    close(fd);
}

static void put(const char *name, const char *text)
{
    int fd = openat(g_fd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, strlen(text)), (ssize_t)strlen(text));
    close(fd);
}

/* One process, two jobs at once (as two daemons with equal PIDs in two
 * containers): two names, and each output holds only its own bytes. */
START_TEST(two_writers_never_share_a_name)
{
    struct cairn_tmpfile a, b;
    char text[64];

    ck_assert_int_eq(cairn_tmpfile_open(&a, g_fd, 'r', 0644), 0);
    ck_assert_int_eq(cairn_tmpfile_open(&b, g_fd, 'r', 0644), 0);
    ck_assert_str_ne(a.name, b.name);
    ck_assert_int_eq(strncmp(a.name, ".cairn.", 7), 0);
    ck_assert_uint_eq(strlen(a.name), 45);
    ck_assert_int_eq(cairn_tmpfile_write_sync(&a, "job a\n", 6), 0);
    ck_assert_int_eq(cairn_tmpfile_write_sync(&b, "job b\n", 6), 0);
    ck_assert_int_eq(cairn_tmpfile_commit(&a, "a.results.jsonl"), 0);
    ck_assert_int_eq(cairn_tmpfile_commit(&b, "b.results.jsonl"), 0);
    ck_assert_int_eq(a.fd, -1);
    slurp("a.results.jsonl", text, sizeof(text));
    ck_assert_str_eq(text, "job a\n");
    slurp("b.results.jsonl", text, sizeof(text));
    ck_assert_str_eq(text, "job b\n");
    ck_assert_int_eq(entries(), 2);
}
END_TEST

/* Bytes drawn ahead (a job draws both its names at its start) name the
 * temporary; a link planted under that name is not followed, and a name
 * of fresh bytes is taken instead.  Its device and inode are the file's. */
START_TEST(bytes_drawn_ahead_name_the_temporary)
{
    static const unsigned char r[CAIRN_TMPFILE_RANDOM] = { 0x01, 0x23, 0x45, 0x67, 0x89, 0xab,
                                                           0xcd, 0xef, 0,    1,    2,    3,
                                                           4,    5,    6,    0xff };
    static const char name[] = ".cairn.0123456789abcdef00010203040506ff.s.tmp";
    struct cairn_tmpfile t;
    struct stat st;

    ck_assert_int_eq(cairn_tmpfile_open_as(&t, g_fd, r, 's', 0644), 0);
    ck_assert_str_eq(t.name, name);
    ck_assert_int_eq(fstat(t.fd, &st), 0);
    ck_assert(st.st_dev == t.dev && st.st_ino == t.ino);
    cairn_tmpfile_discard(&t);
    ck_assert_int_eq(entries(), 0);

    put("victim", "precious\n");
    ck_assert_int_eq(symlinkat("victim", g_fd, name), 0);
    ck_assert_int_eq(cairn_tmpfile_open_as(&t, g_fd, r, 's', 0644), 0);
    ck_assert_str_ne(t.name, name);
    ck_assert_uint_eq(strlen(t.name), strlen(name));
    ck_assert_int_eq(fstat(t.fd, &st), 0);
    ck_assert(st.st_dev == t.dev && st.st_ino == t.ino);
    cairn_tmpfile_discard(&t);
    ck_assert_int_eq(entries(), 2); /* the victim and the link */
}
END_TEST

/* Whatever was planted at the name (a link to a victim, a FIFO) is not
 * opened: the victim keeps its bytes and its mode, and nothing blocks. */
START_TEST(a_planted_name_is_never_opened)
{
    static const char name[] = ".cairn.00000000000000000000000000000000.m.tmp";
    struct cairn_tmpfile t;
    struct stat st;
    char text[64];

    put("victim", "precious\n");
    ck_assert_int_eq(fchmodat(g_fd, "victim", 0600, 0), 0);
    ck_assert_int_eq(symlinkat("victim", g_fd, name), 0);
    ck_assert_int_eq(cairn_tmpfile_create(&t, g_fd, name, 0644), -EEXIST);
    ck_assert_int_eq(t.fd, -1);
    slurp("victim", text, sizeof(text));
    ck_assert_str_eq(text, "precious\n");
    ck_assert_int_eq(fstatat(g_fd, "victim", &st, 0), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    ck_assert_int_eq(unlinkat(g_fd, name, 0), 0);

    ck_assert_int_eq(mkfifoat(g_fd, name, 0644), 0);
    ck_assert_int_eq(cairn_tmpfile_create(&t, g_fd, name, 0644), -EEXIST);
    ck_assert_int_eq(unlinkat(g_fd, name, 0), 0);

    /* A dangling link, too. */
    ck_assert_int_eq(symlinkat("nowhere", g_fd, name), 0);
    ck_assert_int_eq(cairn_tmpfile_create(&t, g_fd, name, 0644), -EEXIST);
    ck_assert_int_eq(faccessat(g_fd, "nowhere", F_OK, 0), -1);
}
END_TEST

/* The sweep removes what nobody holds, keeps what a live writer holds, and
 * touches nothing that is not one of our regular files. */
START_TEST(sweep_decides_by_lock)
{
    static const char dead[] = ".cairn.11111111111111111111111111111111.r.tmp";
    static const char link[] = ".cairn.22222222222222222222222222222222.r.tmp";
    static const char fifo[] = ".cairn.33333333333333333333333333333333.r.tmp";
    struct cairn_tmpfile live;
    char text[64];
    int other;

    put(dead, "left by a crash");
    put("victim", "precious\n");
    ck_assert_int_eq(symlinkat("victim", g_fd, link), 0);
    ck_assert_int_eq(mkfifoat(g_fd, fifo, 0644), 0);
    put(".cairn.1234.1.r.tmp", "not our shape");
    put(".producer.jsonl.tmp", "a producer's");
    ck_assert_int_eq(cairn_tmpfile_open(&live, g_fd, 's', 0644), 0);
    /* A second description of the live file, as another process would
     * hold: the writer's lock is what protects it. */
    other = openat(g_fd, live.name, O_RDONLY);
    ck_assert_int_ge(other, 0);
    ck_assert_int_eq(flock(other, LOCK_EX | LOCK_NB), -1);
    close(other);

    ck_assert_int_eq(cairn_tmpfile_sweep(g_fd), 1);
    ck_assert_int_eq(faccessat(g_fd, dead, F_OK, 0), -1);
    ck_assert_int_eq(faccessat(g_fd, live.name, F_OK, 0), 0);
    ck_assert_int_eq(faccessat(g_fd, link, F_OK, AT_SYMLINK_NOFOLLOW), 0);
    ck_assert_int_eq(faccessat(g_fd, fifo, F_OK, 0), 0);
    ck_assert_int_eq(faccessat(g_fd, ".cairn.1234.1.r.tmp", F_OK, 0), 0);
    ck_assert_int_eq(faccessat(g_fd, ".producer.jsonl.tmp", F_OK, 0), 0);
    slurp("victim", text, sizeof(text));
    ck_assert_str_eq(text, "precious\n");

    /* Once its writer is gone (here: it discards), nothing is left. */
    cairn_tmpfile_discard(&live);
    ck_assert_int_eq(live.fd, -1);
    ck_assert_int_eq(faccessat(g_fd, live.name, F_OK, 0), -1);
}
END_TEST

/* An owner's temporaries are named after it and hold no lock of their
 * own.  A sweep keeps them, and the owner's lock file, while the owner
 * lives; removes a temporary whose owner's lock file is gone; keeps those
 * of a "lock file" that is no regular file; and once the owner dies (its
 * lock released, its file left, as at a crash) removes its temporaries
 * and its lock file, never what was committed. */
START_TEST(owners_temporaries_live_and_die_with_its_lock)
{
    static const char orphan[] = ".cairn.0123456789abcdef-0123456789abcdef.r.tmp";
    static const char odd_lock[] = ".cairn.fedcba9876543210.lock";
    static const char odd_own[] = ".cairn.fedcba9876543210-00000000000000ff.s.tmp";
    static const char near[] = ".cairn.0123456789abcdef_0123456789abcdef.r.tmp";
    struct cairn_tmpowner o;
    struct cairn_tmpfile a, b;
    char lock[64], text[16];
    int other;

    ck_assert_int_eq(cairn_tmpowner_open(&o, g_fd), 0);
    snprintf(lock, sizeof(lock), ".cairn.%s.lock", o.id);
    ck_assert_int_eq(faccessat(g_fd, lock, F_OK, 0), 0);
    ck_assert_int_eq(cairn_tmpfile_open_owned(&a, g_fd, &o, 'r', 0644), 0);
    ck_assert_int_eq(cairn_tmpfile_open_owned(&b, g_fd, &o, 's', 0644), 0);
    ck_assert_int_eq(strncmp(a.name, ".cairn.", 7), 0);
    ck_assert_int_eq(strncmp(a.name + 7, o.id, CAIRN_TMPOWNER_HEX), 0);
    ck_assert_int_eq(a.name[7 + CAIRN_TMPOWNER_HEX], '-');
    ck_assert_str_ne(a.name, b.name);
    ck_assert_uint_eq(a.ino, 0);
    /* Not locked itself: another description can take its lock. */
    other = openat(g_fd, a.name, O_RDONLY);
    ck_assert_int_ge(other, 0);
    ck_assert_int_eq(flock(other, LOCK_EX | LOCK_NB), 0);
    close(other);
    put(orphan, "left by a crash");
    put(near, "not our shape");
    ck_assert_int_eq(mkdirat(g_fd, odd_lock, 0755), 0);
    put(odd_own, "kept");

    ck_assert_int_eq(cairn_tmpfile_sweep(g_fd), 1);
    ck_assert_int_eq(faccessat(g_fd, orphan, F_OK, 0), -1);
    ck_assert_int_eq(faccessat(g_fd, a.name, F_OK, 0), 0);
    ck_assert_int_eq(faccessat(g_fd, b.name, F_OK, 0), 0);
    ck_assert_int_eq(faccessat(g_fd, lock, F_OK, 0), 0);
    ck_assert_int_eq(faccessat(g_fd, odd_own, F_OK, 0), 0);
    ck_assert_int_eq(faccessat(g_fd, near, F_OK, 0), 0);

    ck_assert_int_eq(cairn_tmpfile_write_sync(&a, "r\n", 2), 0);
    ck_assert_int_eq(cairn_tmpfile_commit(&a, "job.results.jsonl"), 0);
    close(o.fd); /* the owner dies */
    ck_assert_int_eq(cairn_tmpfile_sweep(g_fd), 1);
    ck_assert_int_eq(faccessat(g_fd, b.name, F_OK, 0), -1);
    ck_assert_int_eq(faccessat(g_fd, lock, F_OK, 0), -1);
    slurp("job.results.jsonl", text, sizeof(text));
    ck_assert_str_eq(text, "r\n");
    cairn_tmpfile_discard(&b); /* its name is gone already */
    ck_assert_int_eq(unlinkat(g_fd, odd_own, 0), 0);
    ck_assert_int_eq(unlinkat(g_fd, near, 0), 0);
    ck_assert_int_eq(unlinkat(g_fd, odd_lock, AT_REMOVEDIR), 0);
}
END_TEST

/* A live owner's close removes its lock file; a planted owned name is
 * skipped for fresh bytes, never opened. */
START_TEST(owner_close_leaves_nothing_and_planted_names_are_skipped)
{
    struct cairn_tmpowner o;
    struct cairn_tmpfile t;
    char planted[64];

    ck_assert_int_eq(cairn_tmpowner_open(&o, g_fd), 0);
    /* The name its next number gives. */
    snprintf(planted, sizeof(planted), ".cairn.%s-0000000000000000.r.tmp", o.id);
    ck_assert_int_eq(symlinkat("victim", g_fd, planted), 0);
    ck_assert_int_eq(cairn_tmpfile_open_owned(&t, g_fd, &o, 'r', 0644), 0);
    ck_assert_str_ne(t.name, planted);
    ck_assert_int_eq(faccessat(g_fd, "victim", F_OK, 0), -1);
    cairn_tmpfile_discard(&t);
    ck_assert_int_eq(unlinkat(g_fd, planted, 0), 0);
    cairn_tmpowner_close(&o, g_fd);
    ck_assert_int_eq(o.fd, -1);
    cairn_tmpowner_close(&o, g_fd); /* again: nothing */
    ck_assert_int_eq(entries(), 0);
}
END_TEST

/* The number in an owned temporary's name (the 16 hex after the owner's
 * id and its '-'). */
static unsigned long long owned_number(const struct cairn_tmpowner *o, const char *name)
{
    char id[CAIRN_TMPOWNER_HEX + 1];
    unsigned long long n;
    int used = 0;

    ck_assert_int_eq(sscanf(name, ".cairn.%16[0-9a-f]-%16llx.%*c.tmp%n", id, &n, &used), 2);
    ck_assert_int_eq(used, (int)strlen(name));
    ck_assert_str_eq(id, o->id);
    return n;
}

/* An owner numbers its temporaries: no random bytes to draw (a system
 * call a job less), and the owner's lock keeps the numbers its own. */
START_TEST(owned_temporaries_are_numbered)
{
    struct cairn_tmpowner o;
    struct cairn_tmpfile a, b;

    ck_assert_int_eq(cairn_tmpowner_open(&o, g_fd), 0);
    ck_assert_int_eq(cairn_tmpfile_open_owned(&a, g_fd, &o, 'r', 0644), 0);
    ck_assert_int_eq(cairn_tmpfile_open_owned(&b, g_fd, &o, 's', 0644), 0);
    ck_assert_uint_eq(owned_number(&o, a.name), 0);
    ck_assert_uint_eq(owned_number(&o, b.name), 1);
    cairn_tmpfile_discard(&a);
    cairn_tmpfile_discard(&b);
    cairn_tmpowner_close(&o, g_fd);
    ck_assert_int_eq(entries(), 0);
}
END_TEST

enum {
    OPENERS = 4,
    OPENS_EACH = 64
};

struct opener {
    uv_thread_t t;
    struct cairn_tmpowner *o;
    struct cairn_tmpfile files[OPENS_EACH];
    int failed;
};

static void open_many(void *arg)
{
    struct opener *op = arg;
    int i;

    for (i = 0; i < OPENS_EACH; i++)
        op->failed += cairn_tmpfile_open_owned(&op->files[i], g_fd, op->o, 'r', 0644) != 0;
}

/* Pool threads open an owner's temporaries at once: each takes a number
 * of its own, so none has to fall back on drawn bytes. */
START_TEST(owned_numbers_are_taken_once_across_threads)
{
    static struct opener op[OPENERS];
    static unsigned char seen[OPENERS * OPENS_EACH];
    struct cairn_tmpowner o;
    int i, j;

    ck_assert_int_eq(cairn_tmpowner_open(&o, g_fd), 0);
    for (i = 0; i < OPENERS; i++) {
        op[i] = (struct opener){ .o = &o };
        ck_assert_int_eq(uv_thread_create(&op[i].t, open_many, &op[i]), 0);
    }
    for (i = 0; i < OPENERS; i++)
        ck_assert_int_eq(uv_thread_join(&op[i].t), 0);
    for (i = 0; i < OPENERS; i++) {
        ck_assert_int_eq(op[i].failed, 0);
        for (j = 0; j < OPENS_EACH; j++) {
            unsigned long long n = owned_number(&o, op[i].files[j].name);

            ck_assert_uint_lt(n, OPENERS * OPENS_EACH);
            ck_assert_uint_eq(seen[n], 0);
            seen[n] = 1;
            cairn_tmpfile_discard(&op[i].files[j]);
        }
    }
    cairn_tmpowner_close(&o, g_fd);
    ck_assert_int_eq(entries(), 0);
}
END_TEST

/* A commit that cannot rename (a directory in the way) leaves nothing. */
START_TEST(failed_commit_leaves_nothing)
{
    struct cairn_tmpfile t;

    ck_assert_int_eq(mkdirat(g_fd, "in-the-way", 0755), 0);
    ck_assert_int_eq(cairn_tmpfile_open(&t, g_fd, 'r', 0644), 0);
    ck_assert_int_eq(cairn_tmpfile_write_sync(&t, "x\n", 2), 0);
    ck_assert_int_lt(cairn_tmpfile_commit(&t, "in-the-way"), 0);
    ck_assert_int_eq(t.fd, -1);
    ck_assert_int_eq(entries(), 1);
    ck_assert_int_eq(unlinkat(g_fd, "in-the-way", AT_REMOVEDIR), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("tmpfile");
    TCase *tc = tcase_create("tmpfile");
    int failed;

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, two_writers_never_share_a_name);
    tcase_add_test(tc, bytes_drawn_ahead_name_the_temporary);
    tcase_add_test(tc, a_planted_name_is_never_opened);
    tcase_add_test(tc, sweep_decides_by_lock);
    tcase_add_test(tc, failed_commit_leaves_nothing);
    tcase_add_test(tc, owners_temporaries_live_and_die_with_its_lock);
    tcase_add_test(tc, owner_close_leaves_nothing_and_planted_names_are_skipped);
    tcase_add_test(tc, owned_temporaries_are_numbered);
    tcase_add_test(tc, owned_numbers_are_taken_once_across_threads);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
