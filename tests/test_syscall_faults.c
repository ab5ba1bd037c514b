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

#include "harness.h"

static const char *g_cairnd, *g_cairn, *g_plugins, *g_shim;

static const char *const kinds[] = { "open",      "read",   "write",   "fsync", "syncfs",
                                     "fdatasync", "rename", "unlink",  "mkdir", "fsetxattr",
                                     "fgetxattr", "flock",  "getdents" };
#define N_KINDS (sizeof(kinds) / sizeof(kinds[0]))

static const char job_text[] =
    "{\"id\":1,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":true}\n"
    "{\"id\":2,\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},\"expected\":10}\n"
    "not json\n"
    "{\"id\":4,\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n";

struct spot {
    char root[PATH_MAX];
    char in[PATH_MAX + 8], out[PATH_MAX + 8], cfg[PATH_MAX + 16], log[PATH_MAX + 16];
    char faults[PATH_MAX + 16], job[PATH_MAX + 32];
};

static char *g_reference;

static void spot_init(struct spot *s)
{
    char text[3 * PATH_MAX];

    th_new_dir(s->root);
    snprintf(s->in, sizeof(s->in), "%s/in", s->root);
    snprintf(s->out, sizeof(s->out), "%s/out", s->root);
    snprintf(s->cfg, sizeof(s->cfg), "%s/cairn.json", s->root);
    snprintf(s->log, sizeof(s->log), "%s/cairnd.log", s->root);
    snprintf(s->faults, sizeof(s->faults), "%s/faults.log", s->root);
    snprintf(s->job, sizeof(s->job), "%s/job-source.jsonl", s->root);
    ck_assert_int_eq(mkdir(s->in, 0755), 0);
    snprintf(text, sizeof(text),
             "{\"input_dir\": \"%s\", \"output_dir\": \"%s\", \"min_age_ms\": 0, "
             "\"rescan_interval_s\": 1, \"metrics_interval_s\": 0, \"shutdown_timeout_s\": 5, "
             "\"threads\": 2}\n",
             s->in, s->out);
    th_write_text(s->cfg, text);
    th_write_text(s->job, job_text);
}

/* The fault's environment for the next process started; NULL kind: none. */
static void arm(const struct spot *s, const char *kind, long n, const char *err)
{
    char num[32];

    if (kind == NULL) {
        unsetenv("LD_PRELOAD");
        unsetenv("CAIRN_FAULT_CALL");
        return;
    }
    snprintf(num, sizeof(num), "%ld", n);
    setenv("LD_PRELOAD", g_shim, 1);
    setenv("CAIRN_FAULT_CALL", kind, 1);
    setenv("CAIRN_FAULT_N", num, 1);
    setenv("CAIRN_FAULT_ERRNO", err, 1);
    setenv("CAIRN_FAULT_UNDER", s->root, 1);
    setenv("CAIRN_FAULT_LOG", s->faults, 1);
}

static pid_t start_logged(const struct spot *s, int once, const char *log)
{
    char *argv[] = { (char *)g_cairnd,       "-c", (char *)s->cfg, "--plugins", (char *)g_plugins,
                     once ? "--once" : NULL, NULL };

    return th_spawn_logged(argv, log);
}

static pid_t start(const struct spot *s, int once)
{
    return start_logged(s, once, s->log);
}

/* The clean run after a fault, logged apart; a daemon is waited for until
 * it watches the spool (a SIGTERM before its handlers kills it). */
static pid_t start_clean(const struct spot *s, int once)
{
    char log[PATH_MAX + 32];
    pid_t p;
    int ok;

    snprintf(log, sizeof(log), "%s/clean.log", s->root);
    p = start_logged(s, once, log);
    if (!once) {
        TH_POLL(ok, th_file_contains(log, "watching"), 20000);
        TH_REQUIRE(ok, "the clean daemon never watched the spool");
    }
    return p;
}

static int exists_in(const char *dir, const char *name)
{
    char *p = th_xasprintf("%s/%s", dir, name);
    int there = th_exists(p);

    free(p);
    return there;
}

static int finished(const struct spot *s)
{
    char active[PATH_MAX + 32];

    snprintf(active, sizeof(active), "%s/.cairn/active", s->in);
    return exists_in(s->out, "job.summary.json") && !exists_in(s->in, "job.jsonl") &&
           !exists_in(active, "job.jsonl");
}

/* Waits for p to exit on its own (ms); 1 with *status, or 0. */
static int exited(pid_t p, int *status, long ms)
{
    double end = th_now_s() + ms / 1000.0;

    do {
        if (waitpid(p, status, WNOHANG) == p)
            return 1;
        th_sleep_ms(10);
    } while (th_now_s() < end);
    return 0;
}

static void no_crash(const char *what, int status)
{
    TH_REQUIRE(WIFEXITED(status), "%s: cairnd died of signal %d", what,
               WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

/* A SIGTERM'd daemon stops, by exit. */
static void stop(pid_t p, const char *what)
{
    int status = 0;

    kill(p, SIGTERM);
    TH_REQUIRE(exited(p, &status, 15000), "%s: cairnd did not stop after SIGTERM", what);
    no_crash(what, status);
}

/* The job, after a clean run: whole, once, where it belongs. */
static void check_done(const struct spot *s, const char *what)
{
    char path[PATH_MAX + 64];
    size_t len;
    char *res;
    json_t *sum;
    DIR *d;
    struct dirent *e;

    snprintf(path, sizeof(path), "%s/job.summary.json", s->out);
    sum = th_load_json(path);
    TH_REQUIRE(strcmp(th_str_field(sum, "status"), "ok") == 0 && th_int_field(sum, "records") == 4,
               "%s: the summary is not an ok job of 4 records", what);
    json_decref(sum);
    snprintf(path, sizeof(path), "%s/job.results.jsonl", s->out);
    res = th_slurp(path, &len);
    TH_REQUIRE(res != NULL && strcmp(res, g_reference) == 0,
               "%s: results differ from cairnd --filter's:\n%s", what, res ? res : "(none)");
    free(res);
    snprintf(path, sizeof(path), "%s/.cairn/done/job.jsonl", s->in);
    TH_REQUIRE(th_exists(path), "%s: the input is not in done/", what);
    d = opendir(s->out);
    TH_REQUIRE(d != NULL, "%s: no output directory", what);
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (n[0] == '.' || strcmp(n, "metrics.prom") == 0)
            continue;
        TH_REQUIRE(strcmp(n, "job.summary.json") == 0 || strcmp(n, "job.results.jsonl") == 0,
                   "%s: a stray visible file in the output: %s", what, n);
    }
    closedir(d);
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
    spot_init(&s);
    th_drop_job(s.in, "job.jsonl", job_text, sizeof(job_text) - 1);
    arm(&s, kind, n, err);
    p = start(&s, once);
    arm(&s, NULL, 0, NULL);
    /* Until it exits (--once, or a deliberate exit) or the job is over. */
    for (end = th_now_s() + 10; th_now_s() < end; th_sleep_ms(10)) {
        if (waitpid(p, &status, WNOHANG) == p) {
            reaped = 1;
            break;
        }
        if (!once && finished(&s))
            break;
    }
    if (reaped) {
        no_crash(what, status);
    } else {
        TH_REQUIRE(!once, "%s: --once did not end", what);
        stop(p, what);
    }
    fired = th_exists(s.faults);
    if (!fired) {
        TH_REQUIRE(finished(&s), "%s: no fault, and the job did not finish", what);
        check_done(&s, what);
        th_cleanup();
        return 0;
    }
    said(&s, err, what);
    /* A clean run recovers whatever the fault left. */
    p = start_clean(&s, once);
    if (once) {
        TH_REQUIRE(exited(p, &status, 20000), "%s: the clean --once did not end", what);
        no_crash(what, status);
    } else {
        TH_POLL(ok, finished(&s), 20000);
        TH_REQUIRE(ok, "%s: the job never finished after the fault", what);
        stop(p, what);
    }
    check_done(&s, what);
    th_cleanup();
    return 1;
}

static const char *errnos_of(void)
{
    const char *e = getenv("CAIRN_FAULT_ERRNOS");

    return e != NULL ? e : "EIO ENOSPC EINTR";
}

/* cairnd --filter's results of job_text: what every run must produce. */
static void make_reference(void)
{
    char dir[PATH_MAX], src[PATH_MAX + 16];
    struct th_run r;

    if (g_reference != NULL)
        return;
    th_new_dir(dir);
    snprintf(src, sizeof(src), "%s/job.jsonl", dir);
    th_write_text(src, job_text);
    r = th_run_cairnd_stdin(g_cairnd, dir, src,
                            (const char *const[]){ "--filter", "--plugins", g_plugins, NULL });
    TH_REQUIRE(r.status == 0, "cairnd --filter: exit %d: %s", r.status, r.err);
    g_reference = strdup(r.out);
    th_run_free(&r);
    th_cleanup();
}

/* Every kind, every errno, N up to where the fault is no longer met. */
static void sweep(int once)
{
    char list[64], *save = NULL, *err;
    size_t k;
    int total = 0;

    make_reference();
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
    spot_init(&s);
    snprintf(page, sizeof(page), "%s/report.html", s.root);
    if (report) {
        /* A finished job to report on, made without faults. */
        pid_t p;
        int status;

        th_drop_job(s.in, "job.jsonl", job_text, sizeof(job_text) - 1);
        p = start(&s, 1);
        TH_REQUIRE(exited(p, &status, 20000) && WIFEXITED(status) && WEXITSTATUS(status) == 0,
                   "%s: the --once run to report on failed", what);
    } else {
        ck_assert_int_eq(mkdir(s.out, 0755), 0);
    }
    arm(&s, kind, n, err);
    r = report ? th_run_cairnd_stdin(
                     g_cairn, s.root, "/dev/null",
                     (const char *const[]){ "-c", s.cfg, "report", s.out, "--html", page, NULL })
               : th_run_cairnd_stdin(g_cairn, s.root, "/dev/null",
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
        free(html);
    } else {
        char *path = th_xasprintf("%s/job.jsonl", s.in);
        char *job = th_slurp(path, NULL);
        int visible = th_count_entries(s.in, "job");

        free(path);
        TH_REQUIRE(r.status == 0 ? job != NULL && strcmp(job, job_text) == 0 && visible == 1
                                 : job == NULL && visible == 0 && r.err[0] != '\0',
                   "%s: exit %d, the spool holds %s (stderr: %s)", what, r.status,
                   job == NULL                  ? "no job"
                   : strcmp(job, job_text) == 0 ? "the whole job"
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

    make_reference();
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

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_cairn = getenv("CAIRN_TEST_CAIRN");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    g_shim = getenv("CAIRN_TEST_SYSCALL_FAULT");
    if (!g_cairnd || !g_cairn || !g_plugins || !g_shim) {
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
    free(g_reference);
    return failed == 0 ? 0 : 1;
}
