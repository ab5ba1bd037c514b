/*
 * test_failed_faults.c - a failing system call at every point of the two
 * ends test_syscall_faults's good job never takes: a bad job's way to
 * .cairn/failed/ (a FIFO dropped as a job), and an input deleted at the
 * end (keep_inputs false).  Same shim (tests/faults/shims/syscall_fault.c) and
 * rig (tests/faults/rig.h): for each kind of call and N = 1, 2, ... until
 * a --once run completes without reaching the Nth, that call fails; the run
 * must end by exit, say what failed, and a clean run after it must leave
 * the job where it belongs, once, whole: the FIFO in failed/ with its
 * reason and a failed summary, or the results published and the input
 * gone.  CAIRN_FAULT_ERRNOS picks the errnos (default EIO ENOSPC).
 */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faults/rig.h"
#include "harness.h"

static const char *g_shim;

static const char *const kinds[] = { "open",      "read",   "write",   "fsync", "syncfs",
                                     "fdatasync", "rename", "unlink",  "mkdir", "fsetxattr",
                                     "fgetxattr", "flock",  "getdents" };
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

enum end {
    TO_FAILED,
    DELETED
};

static void arm(const struct spot *s, const char *kind, long n, const char *err)
{
    char num[32];

    if (kind == NULL) {
        unsetenv("LD_PRELOAD");
        unsetenv("CAIRN_FAULT_CALL");
        return;
    }
    snprintf(num, sizeof(num), "%ld", n);
    /* Under ASan the shim comes before its runtime in the preload list. */
    if (strstr(getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "", "verify_asan_link_order") ==
        NULL) {
        char opts[512];

        snprintf(opts, sizeof(opts), "%s:verify_asan_link_order=0",
                 getenv("ASAN_OPTIONS") ? getenv("ASAN_OPTIONS") : "");
        setenv("ASAN_OPTIONS", opts, 1);
    }
    setenv("LD_PRELOAD", g_shim, 1);
    setenv("CAIRN_FAULT_CALL", kind, 1);
    setenv("CAIRN_FAULT_N", num, 1);
    setenv("CAIRN_FAULT_ERRNO", err, 1);
    setenv("CAIRN_FAULT_UNDER", s->root, 1);
    setenv("CAIRN_FAULT_LOG", s->faults, 1);
}

/* The spot with its job: a FIFO named bad.jsonl, or the rig's good job
 * with keep_inputs false. */
static void prepare(struct spot *s, enum end how)
{
    char path[PATH_MAX + 32], text[3 * PATH_MAX];

    rig_spot_init(s);
    if (how == TO_FAILED) {
        snprintf(path, sizeof(path), "%s/bad.jsonl", s->in);
        ck_assert_int_eq(mkfifo(path, 0644), 0);
        return;
    }
    snprintf(text, sizeof(text),
             "{\"input_dir\": \"%s\", \"output_dir\": \"%s\", \"min_age_ms\": 0, "
             "\"metrics_interval_s\": 0, \"keep_inputs\": false}\n",
             s->in, s->out);
    th_write_text(s->cfg, text);
    th_drop_job(s->in, "job.jsonl", rig_job_text, strlen(rig_job_text));
}

/* Bookkeeping that is best effort by design and says nothing when a call
 * on it fails (test_syscall_faults.c says why). */
static int best_effort(const char *fired)
{
    return strstr(fired, "fired fsetxattr ") == fired ||
           strstr(fired, "fired fgetxattr ") == fired ||
           strstr(fired, "/.cairn/active/.cairn-") != NULL;
}

/* The fault that fired is said in the log, with its text. */
static void said(const struct spot *s, const char *err, const char *what)
{
    char *log, *fired, *p;
    int found;

    fired = th_read_file(s->faults, NULL);
    if (best_effort(fired)) {
        free(fired);
        return;
    }
    log = th_read_file(s->log, NULL);
    for (p = log; *p != '\0'; p++)
        if (*p >= 'A' && *p <= 'Z')
            *p = (char)(*p - 'A' + 'a');
    found = strcmp(err, "ENOSPC") == 0
                ? strstr(log, "no space left on device") != NULL
                : strstr(log, "i/o error") != NULL || strstr(log, "input/output error") != NULL;
    free(log);
    TH_REQUIRE(found, "%s: the log never says what failed (%s): %s", what, err, fired);
    free(fired);
}

static int exists_in(const char *dir, const char *name)
{
    char *p = th_xasprintf("%s/%s", dir, name);
    int there = th_exists(p);

    free(p);
    return there;
}

/* No visible file in dir but those of keep (NULL-terminated); dot-files
 * are temporaries, hidden by the contract. */
static void only_these(const char *dir, const char *const *keep, const char *what)
{
    DIR *d = opendir(dir);
    struct dirent *e;

    TH_REQUIRE(d != NULL, "%s: cannot open %s", what, dir);
    while ((e = readdir(d)) != NULL) {
        const char *const *k;
        int known = e->d_name[0] == '.' || strcmp(e->d_name, "metrics.prom") == 0;

        for (k = keep; !known && *k != NULL; k++)
            known = strcmp(e->d_name, *k) == 0;
        TH_REQUIRE(known, "%s: a stray visible file in %s: %s", what, dir, e->d_name);
    }
    closedir(d);
}

/* After the clean run: the job over, once, where it belongs. */
static void check_over(const struct spot *s, enum end how, const char *what)
{
    char active[PATH_MAX + 32], failed[PATH_MAX + 32], path[PATH_MAX + 64];
    const char *name = how == TO_FAILED ? "bad" : "job";
    struct stat st;
    json_t *j;

    snprintf(active, sizeof(active), "%s/.cairn/active", s->in);
    snprintf(failed, sizeof(failed), "%s/.cairn/failed", s->in);
    snprintf(path, sizeof(path), "%s/%s.summary.json", s->out, name);
    j = th_load_json(path);
    TH_REQUIRE(strcmp(th_str_field(j, "status"), how == TO_FAILED ? "failed" : "ok") == 0,
               "%s: the summary says %s", what, th_str_field(j, "status"));
    json_decref(j);
    TH_REQUIRE(!exists_in(s->in, "bad.jsonl") && !exists_in(s->in, "job.jsonl") &&
                   !exists_in(active, "bad.jsonl") && !exists_in(active, "job.jsonl"),
               "%s: the job is still in the spool or active/", what);
    if (how == TO_FAILED) {
        snprintf(path, sizeof(path), "%s/bad.jsonl", failed);
        TH_REQUIRE(lstat(path, &st) == 0 && S_ISFIFO(st.st_mode), "%s: the FIFO is not in failed/",
                   what);
        snprintf(path, sizeof(path), "%s/bad.reason.json", failed);
        j = th_load_json(path);
        TH_REQUIRE(strstr(th_str_field(j, "reason"), "a FIFO") != NULL,
                   "%s: the reason does not say it is a FIFO", what);
        json_decref(j);
        only_these(s->out, (const char *const[]){ "bad.summary.json", NULL }, what);
    } else {
        char *res;

        snprintf(path, sizeof(path), "%s/job.results.jsonl", s->out);
        res = th_slurp(path, NULL);
        TH_REQUIRE(res != NULL && strcmp(res, rig_reference) == 0,
                   "%s: results differ from cairnd --filter's", what);
        free(res);
        TH_REQUIRE(!exists_in(s->in, ".cairn/done/job.jsonl"),
                   "%s: keep_inputs false, but the input is in done/", what);
        only_these(s->out, (const char *const[]){ "job.summary.json", "job.results.jsonl", NULL },
                   what);
    }
}

/* One point: 1 when the fault fired, 0 when the run never reached it. */
static int run_point(enum end how, const char *kind, long n, const char *err)
{
    struct spot s;
    char what[128];
    int status, fired;
    pid_t p;

    snprintf(what, sizeof(what), "%s: %s #%ld %s", how == TO_FAILED ? "to failed/" : "deleted",
             kind, n, err);
    prepare(&s, how);
    arm(&s, kind, n, err);
    p = rig_start(&s, 1);
    arm(&s, NULL, 0, NULL);
    TH_REQUIRE(rig_exited(p, &status, 20000), "%s: --once did not end", what);
    rig_no_crash(what, status);
    fired = th_exists(s.faults);
    if (fired) {
        said(&s, err, what);
        p = rig_start_clean(&s, 1, what);
        TH_REQUIRE(rig_exited(p, &status, 20000), "%s: the clean --once did not end", what);
        rig_no_crash(what, status);
    }
    check_over(&s, how, what);
    th_cleanup();
    return fired;
}

static void sweep(enum end how)
{
    const char *e = getenv("CAIRN_FAULT_ERRNOS");
    char list[64], *save = NULL, *err;
    size_t k;
    int total = 0, i = 0, count;

    rig_make_reference();
    snprintf(list, sizeof(list), "%s", e != NULL ? e : "EIO ENOSPC");
    count = rig_word_count(list);
    for (err = strtok_r(list, " ", &save); err != NULL; err = strtok_r(NULL, " ", &save), i++)
        for (k = 0; k < N_KINDS; k++) {
            long n;

            for (n = 1; n < 500 && run_point(how, kinds[k], n, err); n = rig_next_point(n)) {
                total++;
                if (!rig_deeper_points(k, i, count))
                    break;
            }
        }
    TH_REQUIRE(total > 0, "no fault fired: the sweep checked nothing");
    printf("failed faults: %s: %d fault points (%s), each recovered\n",
           how == TO_FAILED ? "a bad job to failed/" : "a job whose input is deleted", total,
           rig_sweep_form());
}

START_TEST(bad_job_reaches_failed_at_every_point)
{
    sweep(TO_FAILED);
}
END_TEST

START_TEST(deleted_input_job_finishes_at_every_point)
{
    sweep(DELETED);
}
END_TEST

int main(void)
{
    Suite *s;
    TCase *tc;
    int failed;

    rig_cairnd = getenv("CAIRN_TEST_CAIRND");
    rig_cairn = getenv("CAIRN_TEST_CAIRN");
    rig_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    g_shim = getenv("CAIRN_TEST_SYSCALL_FAULT");
    if (!rig_cairnd || !rig_cairn || !rig_plugins || !g_shim) {
        fprintf(stderr, "test_failed_faults: run through meson test (CAIRN_TEST_* unset)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("failed-faults") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    s = suite_create("failed faults");
    tc = tcase_create("sweep");
    tcase_set_timeout(tc, 1100);
    tcase_add_test(tc, bad_job_reaches_failed_at_every_point);
    tcase_add_test(tc, deleted_input_job_finishes_at_every_point);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    free(rig_reference);
    return failed == 0 ? 0 : 1;
}
