/*
 * test_syscall_faults.c - a failing system call at every point
 * (tests/faults/shims/syscall_fault.c, LD_PRELOAD).
 *
 * For each kind of file system call cairnd uses and each of EIO, ENOSPC
 * and EINTR, the Nth call of that kind on the spool or the output
 * directory fails, for N = 1, 2, ... until a run completes without
 * reaching it; over a daemon job, a --once run and the client's submit.
 * At every point:
 *   - no crash: the process ends by exit (a deliberate one) or keeps
 *     running, never by a signal;
 *   - an EIO or ENOSPC that fired is said in the log, with its text;
 *   - a clean run afterwards (no fault) finishes the job: nothing lost,
 *     its results byte for byte cairnd --filter's, its input in done/,
 *     one run of the name, nothing visible but whole outputs;
 *   - a submit that failed left no job file behind, and one that
 *     succeeded left a whole one.
 * Each sweep prints the points it tried.  CAIRN_FAULT_ERRNOS picks the
 * errnos (default all three).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faults/rig.h"
#include "harness.h"

static const char *g_shim, *g_asan;

static const char *const kinds[] = { "open",      "read",   "write",   "fsync", "syncfs",
                                     "fdatasync", "rename", "unlink",  "mkdir", "fsetxattr",
                                     "fgetxattr", "flock",  "getdents" };
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

/* The fault's environment for the next process started; NULL kind: none. */
static void arm(const struct spot *s, const char *kind, long n, const char *err)
{
    char num[32];

    if (kind == NULL) {
        unsetenv("LD_PRELOAD");
        unsetenv("CAIRN_FAULT_CALL");
        if (g_asan != NULL)
            setenv("ASAN_OPTIONS", g_asan, 1);
        else
            unsetenv("ASAN_OPTIONS");
        return;
    }
    /* Under AddressSanitizer the shim comes before its runtime. */
    {
        char opts[512];

        snprintf(opts, sizeof(opts), "%s:verify_asan_link_order=0", g_asan ? g_asan : "");
        setenv("ASAN_OPTIONS", opts, 1);
    }
    snprintf(num, sizeof(num), "%ld", n);
    setenv("LD_PRELOAD", g_shim, 1);
    setenv("CAIRN_FAULT_CALL", kind, 1);
    setenv("CAIRN_FAULT_N", num, 1);
    setenv("CAIRN_FAULT_ERRNO", err, 1);
    setenv("CAIRN_FAULT_UNDER", s->root, 1);
    setenv("CAIRN_FAULT_LOG", s->faults, 1);
}

/* Bookkeeping that is best effort by design, and says nothing when a call
 * on it fails: the crash count on the job file (an extended attribute that
 * falls back to its file form, attempts.h) and the claim's records in
 * active/ (a lost one costs one extra run or a new NAME~N, never a job). */
static int best_effort(const char *fired)
{
    return strstr(fired, "fired fsetxattr ") == fired ||
           strstr(fired, "fired fgetxattr ") == fired ||
           strstr(fired, "/.cairn/active/.cairn-") != NULL;
}

static int g_best_effort; /* such points met, for the totals */

/* The fault fired: the log says so with the error's text, as strerror or
 * uv_strerror words it, in any case (EINTR is to be retried, not said). */
static void said(const struct spot *s, const char *err, const char *what)
{
    char *log, *fired, *p;
    int found;

    if (strcmp(err, "EINTR") == 0)
        return;
    fired = th_read_file(s->faults, NULL);
    if (best_effort(fired)) {
        g_best_effort++;
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
    if (!found && getenv("CAIRN_FAULT_LIST_SILENT") != NULL) {
        fprintf(stderr, "silent: %s: %s", what, fired);
        free(fired);
        return;
    }
    TH_REQUIRE(found, "%s: the log never says what failed (%s): %s", what, err, fired);
    free(fired);
}

/* One point of a daemon or --once sweep: 1 when the fault fired, 0 when the
 * run completed without reaching it. */
static int run_point(const char *kind, long n, const char *err, int once)
{
    struct spot s;
    char what[128];
    int status = 0, fired, ok, reaped = 0;
    double end;
    pid_t p;

    snprintf(what, sizeof(what), "%s%s #%ld %s", once ? "--once: " : "", kind, n, err);
    if (getenv("CAIRN_FAULT_VERBOSE") != NULL)
        fprintf(stderr, "point %s\n", what);
    rig_spot_init(&s);
    th_drop_job(s.in, "job.jsonl", rig_job_text, strlen(rig_job_text));
    arm(&s, kind, n, err);
    p = rig_start(&s, once);
    arm(&s, NULL, 0, NULL);
    /* Until it exits (--once, or a deliberate exit) or the job is over. */
    for (end = th_now_s() + th_scaled_ms(10000) / 1000; th_now_s() < end; th_sleep_ms(10)) {
        if (waitpid(p, &status, WNOHANG) == p) {
            reaped = 1;
            break;
        }
        if (!once && rig_finished(&s))
            break;
    }
    if (reaped) {
        rig_no_crash(what, status);
    } else {
        TH_REQUIRE(!once, "%s: --once did not end", what);
        rig_stop(p, what);
    }
    fired = th_exists(s.faults);
    if (!fired) {
        TH_REQUIRE(rig_finished(&s), "%s: no fault, and the job did not finish", what);
        rig_check_done(&s, what);
        th_cleanup();
        return 0;
    }
    said(&s, err, what);
    /* A clean run recovers whatever the fault left. */
    p = rig_start_clean(&s, once, what);
    if (once) {
        TH_REQUIRE(rig_exited(p, &status, 20000), "%s: the clean --once did not end", what);
        rig_no_crash(what, status);
    } else {
        TH_POLL(ok, rig_finished(&s), 20000);
        TH_REQUIRE(ok, "%s: the job never finished after the fault", what);
        rig_stop(p, what);
    }
    rig_check_done(&s, what);
    th_cleanup();
    return 1;
}

static const char *errnos_of(void)
{
    const char *e = getenv("CAIRN_FAULT_ERRNOS");

    return e != NULL ? e : "EIO ENOSPC EINTR";
}

static int errno_count(void)
{
    return rig_word_count(errnos_of());
}

/* Every kind, every errno, N up to where the fault is no longer met. */
static void sweep(int once)
{
    char list[64], *save = NULL, *err;
    size_t k;
    int total = 0, e = 0;

    rig_make_reference();
    snprintf(list, sizeof(list), "%s", errnos_of());
    for (err = strtok_r(list, " ", &save); err != NULL; err = strtok_r(NULL, " ", &save), e++) {
        char unmet[256] = "";
        int kinds_met = 0;

        for (k = 0; k < N_KINDS; k++) {
            const char *only = getenv("CAIRN_FAULT_KINDS");
            int met = 0;
            long n;

            if (only != NULL && strstr(only, kinds[k]) == NULL)
                continue;
            for (n = 1; n < 500 && run_point(kinds[k], n, err, once); n = rig_next_point(n)) {
                total++;
                met = 1;
                if (!rig_deeper_points(k, e, errno_count()))
                    break;
            }
            kinds_met += met;
            if (!met)
                snprintf(unmet + strlen(unmet), sizeof(unmet) - strlen(unmet), " %s", kinds[k]);
        }
        printf("syscall faults: %s%s: %d kinds met (never called:%s)\n",
               once ? "--once, " : "daemon, ", err, kinds_met, unmet[0] ? unmet : " none");
    }
    printf("syscall faults: %s: %d fault points (%s), each recovered (%d in best-effort "
           "bookkeeping, not logged by design)\n",
           once ? "a --once run" : "a daemon job", total, rig_sweep_form(), g_best_effort);
    g_best_effort = 0;
}

/* The client: `cairn submit` hands the job over whole or not at all, and
 * says why; `cairn report --html` writes a whole page or none, and says
 * why.  1 when the fault fired. */
static int client_point(const char *kind, long n, const char *err, int report)
{
    struct spot s;
    char what[128], page[PATH_MAX + 32];
    struct th_run r;
    int fired;

    snprintf(what, sizeof(what), "%s: %s #%ld %s", report ? "report" : "submit", kind, n, err);
    rig_spot_init(&s);
    snprintf(page, sizeof(page), "%s/report.html", s.root);
    if (report) {
        /* A finished job to report on, made without faults. */
        pid_t p;
        int status;

        th_drop_job(s.in, "job.jsonl", rig_job_text, strlen(rig_job_text));
        p = rig_start(&s, 1);
        TH_REQUIRE(rig_exited(p, &status, 20000) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                   "%s: the --once run to report on failed", what);
    } else {
        ck_assert_int_eq(mkdir(s.out, 0755), 0);
    }
    arm(&s, kind, n, err);
    r = report ? th_run_cairnd_stdin(
                     rig_cairn, s.root, "/dev/null",
                     (const char *const[]){ "-c", s.cfg, "report", s.out, "--html", page, NULL })
               : th_run_cairnd_stdin(rig_cairn, s.root, "/dev/null",
                                     (const char *const[]){ "-c", s.cfg, "submit", "--no-check",
                                                            "--name", "job", s.job, NULL });
    arm(&s, NULL, 0, NULL);
    TH_REQUIRE(r.status >= 0, "%s: the client died of a signal", what);
    fired = th_exists(s.faults);
    if (report) {
        char *html = th_slurp(page, NULL);

        TH_REQUIRE(r.status == 0 ? html != NULL && strstr(html, "</html>") != NULL
                                 : html == NULL && r.err[0] != '\0',
                   "%s: exit %d with %s page (stderr: %s)", what, r.status,
                   html == NULL ? "no" : "a partial or whole", r.err);
        /* A full disk is said as one, not as an I/O error. */
        TH_REQUIRE(r.status == 0 || strcmp(kind, "write") != 0 || strcmp(err, "ENOSPC") != 0 ||
                       strstr(r.err, "No space left on device") != NULL,
                   "%s: the page could not be written, but stderr says: %s", what, r.err);
        free(html);
    } else {
        char *path = th_xasprintf("%s/job.jsonl", s.in);
        char *job = th_slurp(path, NULL);
        int visible = th_count_entries(s.in, "job");

        free(path);
        TH_REQUIRE(r.status == 0 ? job != NULL && strcmp(job, rig_job_text) == 0 && visible == 1
                                 : job == NULL && visible == 0 && r.err[0] != '\0',
                   "%s: exit %d, the spool holds %s (stderr: %s)", what, r.status,
                   job == NULL                      ? "no job"
                   : strcmp(job, rig_job_text) == 0 ? "the whole job"
                                                    : "a torn job",
                   r.err);
        free(job);
    }
    th_run_free(&r);
    th_cleanup();
    return fired;
}

static void client_sweep(int report)
{
    char list[64], *save = NULL, *err;
    size_t k;
    int total = 0, e = 0;

    rig_make_reference();
    snprintf(list, sizeof(list), "%s", errnos_of());
    for (err = strtok_r(list, " ", &save); err != NULL; err = strtok_r(NULL, " ", &save), e++)
        for (k = 0; k < N_KINDS; k++) {
            long n;

            for (n = 1; n < 500 && client_point(kinds[k], n, err, report); n = rig_next_point(n)) {
                total++;
                if (!rig_deeper_points(k, e, errno_count()))
                    break;
            }
        }
    printf("syscall faults: cairn %s: %d fault points (%s), each whole or refused with a "
           "message\n",
           report ? "report --html" : "submit", total, rig_sweep_form());
}

START_TEST(submit_hands_over_whole_or_nothing_at_every_point)
{
    client_sweep(0);
}
END_TEST

START_TEST(report_writes_a_whole_page_or_none_at_every_point)
{
    client_sweep(1);
}
END_TEST

START_TEST(daemon_job_survives_a_failing_call_at_every_point)
{
    sweep(0);
}
END_TEST

START_TEST(once_run_survives_a_failing_call_at_every_point)
{
    sweep(1);
}
END_TEST

/* One --once run of job text with the n-th read cut short: 1 when the cut
 * happened, 0 when the run read everything before reaching it.  Either
 * way every record is answered: the results are want, byte for byte. */
static int short_point(const char *text, size_t len, const char *want, long records, long n)
{
    struct spot s;
    char what[64], path[PATH_MAX + 64];
    int status, fired;
    char *res;
    json_t *sum;
    pid_t p;

    snprintf(what, sizeof(what), "a short read #%ld of %zu bytes", n, len);
    rig_spot_init(&s);
    th_drop_job(s.in, "job.jsonl", text, len);
    arm(&s, "read", n, "SHORT");
    p = rig_start(&s, 1);
    arm(&s, NULL, 0, NULL);
    TH_REQUIRE(rig_exited(p, &status, 60000), "%s: --once did not end", what);
    rig_no_crash(what, status);
    TH_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "%s: --once exited %d", what,
               WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    snprintf(path, sizeof(path), "%s/job.summary.json", s.out);
    sum = th_load_json(path);
    TH_REQUIRE(json_integer_value(json_object_get(sum, "records")) == records,
               "%s: the summary counts %lld records, not %ld", what,
               (long long)json_integer_value(json_object_get(sum, "records")), records);
    json_decref(sum);
    snprintf(path, sizeof(path), "%s/job.results.jsonl", s.out);
    res = th_slurp(path, NULL);
    TH_REQUIRE(res != NULL && strcmp(res, want) == 0, "%s: results differ from --filter's", what);
    free(res);
    fired = th_exists(s.faults);
    th_cleanup();
    return fired;
}

/* A read that comes back short, as a FUSE or network file system may
 * give one mid-file, at every read of a --once run in turn, over a job
 * of one read and one of several pieces: every record is still read and
 * answered.  A short read of a job file was once taken for its end, and
 * the job published truncated. */
START_TEST(a_short_read_is_not_the_end_of_the_job)
{
    size_t one = strlen(rig_job_text), copies = 3000, i;
    char *big = malloc(one * copies + 1), dir[PATH_MAX], src[PATH_MAX + 16];
    long n, small_points = 0, big_points = 0;
    struct th_run r;

    ck_assert_ptr_nonnull(big);
    for (i = 0; i < copies; i++)
        memcpy(big + i * one, rig_job_text, one);
    big[one * copies] = '\0';
    rig_make_reference();
    th_new_dir(dir);
    snprintf(src, sizeof(src), "%s/big.jsonl", dir);
    th_write_text(src, big);
    r = th_run_cairnd_stdin(rig_cairnd, dir, src,
                            (const char *const[]){ "--filter", "--plugins", rig_plugins, NULL });
    TH_REQUIRE(r.status == 0, "cairnd --filter: exit %d: %s", r.status, r.err);
    for (n = 1; short_point(rig_job_text, one, rig_reference, 4, n); n++)
        small_points++;
    for (n = 1; short_point(big, one * copies, r.out, 4 * (long)copies, n); n++)
        big_points++;
    th_run_free(&r);
    free(big);
    ck_assert_int_gt(small_points, 0);
    ck_assert_int_gt(big_points, 2); /* a piece is 256 KiB: three reads at least */
    printf("syscall faults: short reads: %ld point%s over a small job, %ld over one of %zu "
           "bytes, each job read whole\n",
           small_points, small_points == 1 ? "" : "s", big_points, one * copies);
}
END_TEST

/* inotify refused for want of a resource: the daemon runs on, finds jobs
 * by its rescans, says which limit to raise, and watches again at the
 * next rescan.  n 1 is inotify_init1 (EMFILE: the user's instances used
 * up), n 2 inotify_add_watch (ENOSPC: the user's watches).  With
 * rescan_interval_s 0 nothing would find a job: the start fails, saying so. */
static void without_inotify(long n, const char *err, const char *limit)
{
    struct spot s;
    char what[64];
    char *cfg, *at;
    int ok, status = 0;
    pid_t p;

    snprintf(what, sizeof(what), "inotify call #%ld refused with %s", n, err);
    rig_spot_init(&s);
    arm(&s, "inotify", n, err);
    p = rig_start(&s, 0);
    arm(&s, NULL, 0, NULL);
    TH_POLL(ok, th_file_contains(s.log, "rescanning"), 20000);
    TH_REQUIRE(ok, "%s: the daemon did not start rescanning", what);
    TH_REQUIRE(th_file_contains(s.log, limit) && th_file_contains(s.log, "rescanning every 1 s"),
               "%s: no warning naming %s and the rescans", what, limit);
    /* Dropped now, it can be found only by a rescan (or by the watch the
     * rescan makes first). */
    th_drop_job(s.in, "job.jsonl", rig_job_text, strlen(rig_job_text));
    TH_POLL(ok, rig_finished(&s), 20000);
    TH_REQUIRE(ok, "%s: the job was not found by the rescans", what);
    TH_POLL(ok, th_file_contains(s.log, "with inotify again"), 10000);
    TH_REQUIRE(ok, "%s: the watch was not made again at a rescan", what);
    rig_stop(p, what);
    rig_check_done(&s, what);

    /* The same refusal, and no rescans to fall back on. */
    cfg = th_read_file(s.cfg, NULL);
    at = strstr(cfg, "\"rescan_interval_s\": 1");
    ck_assert_ptr_nonnull(at);
    at[strlen("\"rescan_interval_s\": ")] = '0';
    th_write_text(s.cfg, cfg);
    free(cfg);
    arm(&s, "inotify", n, err);
    p = rig_start(&s, 0);
    arm(&s, NULL, 0, NULL);
    TH_REQUIRE(rig_exited(p, &status, 20000), "%s, rescan_interval_s 0: cairnd did not exit", what);
    TH_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) != 0 &&
                   th_file_contains(s.log, "with rescan_interval_s 0 no job would be found"),
               "%s, rescan_interval_s 0: want a failed start saying why", what);
    th_cleanup();
}

/* `cairn submit --wait` refused inotify the same way: it looks for the
 * summary every second instead, and ends as a wait with inotify does. */
static void wait_without_inotify(void)
{
    struct spot s;
    struct th_run plain, refused;
    pid_t p;

    rig_spot_init(&s);
    p = rig_start_clean(&s, 0, "cairn submit --wait without inotify");
    plain = th_run_cairnd_stdin(rig_cairn, s.root, "/dev/null",
                                (const char *const[]){ "-c", s.cfg, "submit", "--no-check",
                                                       "--wait", "--timeout", "60", "--name", "one",
                                                       s.job, NULL });
    arm(&s, "inotify", 1, "EMFILE");
    refused = th_run_cairnd_stdin(rig_cairn, s.root, "/dev/null",
                                  (const char *const[]){ "-c", s.cfg, "submit", "--no-check",
                                                         "--wait", "--timeout", "60", "--name",
                                                         "two", s.job, NULL });
    arm(&s, NULL, 0, NULL);
    rig_stop(p, "cairn submit --wait without inotify");
    TH_REQUIRE(th_exists(s.faults), "the client's inotify was never refused");
    TH_REQUIRE(strstr(refused.err, "cannot watch") != NULL &&
                   strstr(refused.err, "looking for the summaries every 1000 ms") != NULL,
               "submit --wait refused inotify: no warning on stderr: %s", refused.err);
    TH_REQUIRE(
        refused.status == plain.status && strstr(refused.out, "two") != NULL &&
            strstr(refused.out, "timed out") == NULL,
        "submit --wait refused inotify: exit %d and '%s', where a wait with inotify exits %d "
        "and says '%s'",
        refused.status, refused.out, plain.status, plain.out);
    th_run_free(&plain);
    th_run_free(&refused);
    th_cleanup();
}

START_TEST(a_refused_inotify_is_waited_out_by_rescans)
{
    rig_make_reference();
    without_inotify(1, "EMFILE", "fs.inotify.max_user_instances");
    without_inotify(2, "ENOSPC", "fs.inotify.max_user_watches");
    wait_without_inotify();
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
    g_asan = getenv("ASAN_OPTIONS");
    if (!rig_cairnd || !rig_cairn || !rig_plugins || !g_shim) {
        fprintf(stderr, "test_syscall_faults: run through meson test (CAIRN_TEST_* unset)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("syscall-faults") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    s = suite_create("syscall faults");
    tc = tcase_create("sweep");
    tcase_set_timeout(tc, 1100);
    tcase_add_test(tc, daemon_job_survives_a_failing_call_at_every_point);
    tcase_add_test(tc, once_run_survives_a_failing_call_at_every_point);
    tcase_add_test(tc, a_short_read_is_not_the_end_of_the_job);
    tcase_add_test(tc, a_refused_inotify_is_waited_out_by_rescans);
    tcase_add_test(tc, submit_hands_over_whole_or_nothing_at_every_point);
    tcase_add_test(tc, report_writes_a_whole_page_or_none_at_every_point);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    free(rig_reference);
    return failed == 0 ? 0 : 1;
}
