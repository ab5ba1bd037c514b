/*
 * test_oom_faults.c - out of memory at every allocation
 * (tests/faults/shims/oom_fault.c, LD_PRELOAD).
 *
 * The Nth malloc, calloc or realloc of the process (strdup, asprintf,
 * jansson's and libuv's allocations among them) returns NULL, for N = 1,
 * 2, ... until a run no longer reaches it:
 *   - over `cairnd --filter`: it ends by exit, never by a signal; exit 0
 *     with one line per input line, each the right result or an `internal`
 *     error, or a failure with a message on stderr, after which whatever
 *     it wrote is in order and each line its own result or an error;
 *   - over a daemon job (every CAIRN_OOM_STRIDE-th N, default 5; 1 by
 *     hand): no death by signal, and a clean run afterwards finishes the
 *     job whole (rig.h's checks).
 * Each sweep prints the points it tried.  libuv aborts on a few
 * allocations it cannot do without (its signal pipe in uv_loop_init, its
 * thread pool's start): a SIGABRT whose backtrace (the shim logs it) runs
 * through libuv is counted apart, not as a crash of ours.
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "faults/rig.h"
#include "harness.h"

static const char *g_shim;

static void arm(const struct spot *s, long n)
{
    char num[32];

    if (n == 0) {
        unsetenv("LD_PRELOAD");
        unsetenv("CAIRN_OOM_N");
        return;
    }
    snprintf(num, sizeof(num), "%ld", n);
    setenv("LD_PRELOAD", g_shim, 1);
    setenv("CAIRN_OOM_N", num, 1);
    setenv("CAIRN_OOM_LOG", s->faults, 1);
}

static int mentions_memory(const char *text)
{
    return strstr(text, "memory") != NULL;
}

/* Every line of out is line i's right result or an internal error. */
static void check_filter_output(const char *out, const char *what)
{
    json_t *want = json_array(), *got = json_array();
    const char *p;
    size_t i;

    for (p = rig_reference; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        json_array_append_new(want, json_stringn(p, (size_t)(nl - p)));
        p = nl + 1;
    }
    for (p = out; *p != '\0';) {
        const char *nl = strchr(p, '\n');
        TH_REQUIRE(nl != NULL, "%s: a result line without its newline", what);
        json_array_append_new(got, json_stringn(p, (size_t)(nl - p)));
        p = nl + 1;
    }
    TH_REQUIRE(json_array_size(got) == json_array_size(want), "%s: %zu result lines, want %zu",
               what, json_array_size(got), json_array_size(want));
    for (i = 0; i < json_array_size(got); i++) {
        const char *g = json_string_value(json_array_get(got, i));
        json_error_t e;
        json_t *line;

        if (strcmp(g, json_string_value(json_array_get(want, i))) == 0)
            continue;
        line = json_loads(g, 0, &e);
        TH_REQUIRE(line != NULL, "%s: line %zu is not JSON: %s", what, i + 1, g);
        TH_REQUIRE(
            json_integer_value(json_object_get(line, "line")) == (json_int_t)(i + 1) &&
                strcmp(json_string_value(json_object_get(json_object_get(line, "error"), "code"))
                           ?: "",
                       "internal") == 0,
            "%s: line %zu is neither its result nor an internal error: %s", what, i + 1, g);
        json_decref(line);
    }
    json_decref(want);
    json_decref(got);
}

/* What a failed run wrote: in order, perhaps with gaps (a batch denied
 * memory as a whole), each line the right result for the line it names
 * or an internal error for it; never another line's result. */
static void check_filter_partial(const char *out, const char *what)
{
    long long last = 0;
    const char *p;

    for (p = out; *p != '\0';) {
        const char *nl = strchr(p, '\n'), *q;
        json_t *line;
        long long no;
        int found = 0;

        TH_REQUIRE(nl != NULL, "%s: a result line without its newline", what);
        line = json_loadb(p, (size_t)(nl - p), 0, NULL);
        TH_REQUIRE(line != NULL, "%s: not JSON: %.*s", what, (int)(nl - p), p);
        no = json_integer_value(json_object_get(line, "line"));
        TH_REQUIRE(no > last, "%s: line %lld after line %lld", what, no, last);
        last = no;
        for (q = rig_reference; *q != '\0' && !found;) {
            const char *qn = strchr(q, '\n');
            json_t *ref = json_loadb(q, (size_t)(qn - q), 0, NULL);

            if (json_integer_value(json_object_get(ref, "line")) == no) {
                found = 1;
                TH_REQUIRE((qn - q == nl - p && memcmp(q, p, (size_t)(nl - p)) == 0) ||
                               strcmp(json_string_value(
                                          json_object_get(json_object_get(line, "error"), "code"))
                                          ?: "",
                                      "internal") == 0,
                           "%s: the result for line %lld is neither its own nor an internal "
                           "error: %.*s",
                           what, no, (int)(nl - p), p);
            }
            json_decref(ref);
            q = qn + 1;
        }
        TH_REQUIRE(found, "%s: a result for line %lld, which the job does not have", what, no);
        json_decref(line);
        p = nl + 1;
    }
}

/* One point of the --filter sweep: 1 when the allocation failure fired. */
static int filter_point(long n, int *said_memory, int *aborted)
{
    struct spot s;
    char what[64];
    struct th_run r;
    int fired;

    snprintf(what, sizeof(what), "--filter, allocation #%ld", n);
    rig_spot_init(&s);
    arm(&s, n);
    r = th_run_cairnd_stdin(rig_cairnd, s.root, s.job,
                            (const char *const[]){ "--filter", "--plugins", rig_plugins, NULL });
    arm(&s, 0);
    fired = th_exists(s.faults);
    if (r.status < 0 && fired && th_file_contains(s.faults, "libuv.so")) {
        ++*aborted;
        th_run_free(&r);
        th_cleanup();
        return 1;
    }
    TH_REQUIRE(r.status >= 0, "%s: cairnd died of a signal; stderr: %s", what, r.err);
    if (!fired) {
        TH_REQUIRE(r.status == 0 && strcmp(r.out, rig_reference) == 0,
                   "%s: no failure, and not the right output", what);
    } else if (r.status == 0) {
        check_filter_output(r.out, what);
    } else {
        /* A message, always; the dynamic linker's own words for a failed
         * dlopen ("cannot create shared object descriptor") may not say
         * memory. */
        TH_REQUIRE(r.err[0] != '\0', "%s: exit %d without a message", what, r.status);
        *said_memory += mentions_memory(r.err);
        check_filter_partial(r.out, what);
    }
    th_run_free(&r);
    th_cleanup();
    return fired;
}

START_TEST(filter_survives_out_of_memory_at_every_allocation)
{
    long n;
    int said = 0, aborted = 0;

    rig_make_reference();
    long tried = 0;

    for (n = 1; n < 100000 && filter_point(n, &said, &aborted); n = rig_next_point(n))
        tried++;
    printf("oom faults: --filter: %ld allocation points (%s), none crashed but %d aborts inside "
           "libuv (%d ended with a message about memory, the rest answered)\n",
           tried, rig_sweep_form(), aborted, said);
}
END_TEST

/* One point of the daemon sweep: 1 when it fired, and *aborted set when
 * the daemon died of SIGABRT inside libuv's own allocation. */
static int daemon_point(long n, int *aborted)
{
    struct spot s;
    char what[64];
    int status = 0, fired, reaped = 0, ok;
    double end;
    pid_t p;

    snprintf(what, sizeof(what), "daemon, allocation #%ld", n);
    rig_spot_init(&s);
    th_drop_job(s.in, "job.jsonl", rig_job_text, strlen(rig_job_text));
    arm(&s, n);
    p = rig_start(&s, 0);
    arm(&s, 0);
    for (end = th_now_s() + th_scaled_ms(10000) / 1000; th_now_s() < end; th_sleep_ms(10)) {
        if (waitpid(p, &status, WNOHANG) == p) {
            reaped = 1;
            break;
        }
        if (rig_finished(&s))
            break;
    }
    if (!reaped) {
        kill(p, SIGTERM);
        TH_REQUIRE(rig_exited(p, &status, 15000), "%s: cairnd did not stop", what);
    }
    fired = th_exists(s.faults);
    if (WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT &&
        th_file_contains(s.faults, "libuv.so"))
        ++*aborted; /* libuv's own abort (the file's head comment); recovery still checked */
    else
        rig_no_crash(what, status);
    if (!fired) {
        TH_REQUIRE(rig_finished(&s), "%s: no failure, and the job did not finish", what);
        rig_check_done(&s, what);
        th_cleanup();
        return 0;
    }
    p = rig_start_clean(&s, 0, what);
    TH_POLL(ok, rig_finished(&s), 20000);
    TH_REQUIRE(ok, "%s: the job never finished after the failure", what);
    rig_stop(p, what);
    rig_check_done(&s, what);
    th_cleanup();
    return 1;
}

START_TEST(daemon_job_survives_out_of_memory_at_every_allocation)
{
    const char *st = getenv("CAIRN_OOM_STRIDE");
    long stride = st != NULL && atol(st) > 0 ? atol(st) : 5, n, tried = 0;
    int aborted = 0;

    rig_make_reference();
    /* Every allocation, one daemon each, would take hours: the full
     * sweep takes every stride-th; the short form its own points. */
    for (n = 1; n < 200000 && daemon_point(n, &aborted);
         n = rig_quick_sweep() ? rig_next_point(n) : n + stride)
        tried++;
    if (rig_quick_sweep())
        printf("oom faults: a daemon job: %ld allocation points (%s), each recovered (%d aborts "
               "inside libuv)\n",
               tried, rig_sweep_form(), aborted);
    else
        printf("oom faults: a daemon job: %ld allocation points (every %ld of %ld), each "
               "recovered (%d aborts inside libuv)\n",
               tried, stride, n - 1, aborted);
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
    g_shim = getenv("CAIRN_TEST_OOM_FAULT");
    if (!rig_cairnd || !rig_cairn || !rig_plugins || !g_shim) {
        fprintf(stderr, "test_oom_faults: run through meson test (CAIRN_TEST_* unset)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("oom-faults") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    s = suite_create("oom faults");
    tc = tcase_create("sweep");
    tcase_set_timeout(tc, 1100);
    tcase_add_test(tc, filter_survives_out_of_memory_at_every_allocation);
    tcase_add_test(tc, daemon_job_survives_out_of_memory_at_every_allocation);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? 0 : 1;
}
