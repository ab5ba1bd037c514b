/*
 * test_syscall_faults.c - a failing system call at every point
 * (tests/faults/syscall_fault.c, LD_PRELOAD).
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
    for (end = th_now_s() + 10; th_now_s() < end; th_sleep_ms(10)) {
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
    p = rig_start_clean(&s, once);
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

/* Every kind, every errno, N up to where the fault is no longer met. */
static void sweep(int once)
{
    char list[64], *save = NULL, *err;
    size_t k;
    int total = 0;

    rig_make_reference();
    snprintf(list, sizeof(list), "%s", errnos_of());
    for (err = strtok_r(list, " ", &save); err != NULL; err = strtok_r(NULL, " ", &save)) {
        char unmet[256] = "";
        int kinds_met = 0;

        for (k = 0; k < N_KINDS; k++) {
            const char *only = getenv("CAIRN_FAULT_KINDS");
            long n;

            if (only != NULL && strstr(only, kinds[k]) == NULL)
                continue;
            for (n = 1; n < 500 && run_point(kinds[k], n, err, once); n++)
                total++;
            kinds_met += n > 1;
            if (n == 1)
                snprintf(unmet + strlen(unmet), sizeof(unmet) - strlen(unmet), " %s", kinds[k]);
        }
        printf("syscall faults: %s%s: %d kinds met (never called:%s)\n",
               once ? "--once, " : "daemon, ", err, kinds_met, unmet[0] ? unmet : " none");
    }
    printf("syscall faults: %s: %d fault points, each recovered (%d in best-effort bookkeeping, "
           "not logged by design)\n",
           once ? "a --once run" : "a daemon job", total, g_best_effort);
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
    int total = 0;

    rig_make_reference();
    snprintf(list, sizeof(list), "%s", errnos_of());
    for (err = strtok_r(list, " ", &save); err != NULL; err = strtok_r(NULL, " ", &save))
        for (k = 0; k < N_KINDS; k++) {
            long n;

            for (n = 1; n < 500 && client_point(kinds[k], n, err, report); n++)
                total++;
        }
    printf("syscall faults: cairn %s: %d fault points, each whole or refused with a message\n",
           report ? "report --html" : "submit", total);
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

int main(void)
{
    SRunner *sr;
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
    tcase_add_test(tc, submit_hands_over_whole_or_nothing_at_every_point);
    tcase_add_test(tc, report_writes_a_whole_page_or_none_at_every_point);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    free(rig_reference);
    return failed == 0 ? 0 : 1;
}
