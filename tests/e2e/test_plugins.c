/*
 * test_plugins.c - what happens to plugins while cairnd runs
 * (hardening of the loader), against the real binary:
 *   - an upgrade installed by rename and followed by SIGHUP runs the new
 *     code, and the log and cairn_plugin_info say the new version;
 *   - a loaded plugin overwritten or truncated in place goes on running
 *     the code that was loaded, until the next reload;
 *   - a restart probes only the plugin files that changed;
 *   - a plugin call that never returns ends the run non-zero within
 *     solve_timeout_s, naming the job, the line and the plugin; the
 *     attempt is counted, and after max_attempts runs the job is
 *     quarantined; --filter exits non-zero naming the line;
 *   - a daemon stopped (SIGSTOP) for longer than solve_timeout_s while a
 *     record is solved is not taken for a hung plugin once continued.
 *
 * The plugins are tests/plugins/live_plugins/: "versioned", one source built as
 * 1.0 and 2.0 whose answers differ by 1000 (so a result line says which
 * code produced it), and "hang", whose solve() never returns on 666.
 * Every test has its own directory (in/, out/, plugins/, the -c file and
 * the daemon logs) under one top directory removed at the end.
 */
#include <check.h>
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
#include "util.h"

#define DEADLINE_MS 15000

static const char *g_cairnd;
static const char *g_live;

/* A fresh test directory; cfg is the whole configuration file's text. */
static void env_init(struct th_env *e, const char *cfg)
{
    th_env_init(e, cfg);
    th_pathf(e->plugins, "%s/plugins", e->root); /* its own, filled by each test */
    ck_assert_int_eq(mkdir(e->plugins, 0755), 0);
}

/* tests/plugins/live_plugins/NAME */
static void live(char *buf, const char *name)
{
    th_pathf(buf, "%s/%s", g_live, name);
}

/* The way examples/plugin's `make install` does it: a hidden temporary
 * name in the plugin directory, then rename(2) over the installed name. */
static void install_by_rename(const struct th_env *e, const char *build, const char *as)
{
    char src[PATH_MAX], tmp[PATH_MAX], dst[PATH_MAX];

    live(src, build);
    th_pathf(tmp, "%s/.%s.tmp", e->plugins, as);
    th_pathf(dst, "%s/%s", e->plugins, as);
    th_copy_file(src, tmp, 0644);
    ck_assert_int_eq(rename(tmp, dst), 0);
}

/* The way `cp new.so dir/x.so` does it: the same inode, truncated and
 * rewritten. */
static void overwrite_in_place(const struct th_env *e, const char *build, const char *as)
{
    char src[PATH_MAX], dst[PATH_MAX];
    size_t len;
    char *data;
    int fd;

    live(src, build);
    th_pathf(dst, "%s/%s", e->plugins, as);
    data = th_read_file(src, &len);
    fd = open(dst, O_WRONLY | O_TRUNC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    ck_assert_int_eq(close(fd), 0);
    free(data);
}

static int start(const struct th_env *e, const char *mode)
{
    char *argv[] = { (char *)g_cairnd, "-c",          (char *)e->cfg,
                     "--input",        (char *)e->in, "--output",
                     (char *)e->out,   "--plugins",   (char *)e->plugins,
                     (char *)mode,     NULL };
    return th_spawn(e->root, argv);
}

/* Drops NAME.jsonl holding text and waits for its summary. */
static void run_job(const struct th_env *e, int p, const char *name, const char *text)
{
    char path[PATH_MAX], file[PATH_MAX];

    th_pathf(file, "%s.jsonl", name);
    th_drop_job(e->in, file, text, strlen(text));
    TH_OUT(path, e, "%s.summary.json", name);
    TH_EVENTUALLY(th_exists(path) || !th_running(p), DEADLINE_MS, "%s did not appear", path);
    TH_REQUIRE(th_running(p), "cairnd died running job %s", name);
}

/* The answer of the only result line of job NAME (a "versioned" record). */
static long long answer_of(const struct th_env *e, const char *name)
{
    char path[PATH_MAX];
    json_t *res, *r;
    long long a;

    TH_OUT(path, e, "%s.results.jsonl", name);
    res = th_load_results(path);
    TH_REQUIRE(json_array_size(res) == 1, "%s: %zu result lines", name, json_array_size(res));
    r = json_array_get(res, 0);
    TH_REQUIRE(strcmp(th_str_field(r, "status"), "ok") == 0, "%s: %s", name,
               json_dumps(r, JSON_COMPACT));
    a = th_int_field(r, "answer");
    json_decref(res);
    return a;
}

#define VERSIONED_RECORD "{\"variant\":\"versioned\",\"input\":{\"values\":[1,2]}}\n"
#define V1_ANSWER        1003 /* 1000 * 1 + 1 + 2 */
#define V2_ANSWER        2003

/* How many times text occurs in process p's log. */
static int log_count(int p, const char *text)
{
    char *log = th_slurp(th_log[p], NULL);
    const char *s = log;
    int n = 0;

    while (s != NULL && (s = strstr(s, text)) != NULL) {
        n++;
        s += strlen(text);
    }
    free(log);
    return n;
}

/* SIGHUP, and wait until the nth reload is over, taken or refused. */
static void reload(int p, int nth)
{
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(log_count(p, "reloaded: ") + log_count(p, "keeping the old") >= nth ||
                      !th_running(p),
                  DEADLINE_MS, "reload %d did not end", nth);
    TH_REQUIRE(th_running(p), "cairnd died on reload %d", nth);
}

static char *metrics(const struct th_env *e)
{
    char path[PATH_MAX];

    TH_OUT(path, e, "metrics.prom");
    return th_slurp(path, NULL);
}

static int metrics_have(const struct th_env *e, const char *text)
{
    char *m = metrics(e);
    int has = m != NULL && strstr(m, text) != NULL;

    free(m);
    return has;
}

#define CFG_FAST "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, \"metrics_interval_s\": 0.2}\n"

/* ---- 8. an upgrade takes ------------------------------------------------ */

START_TEST(upgrade_by_rename_runs_the_new_code_after_sighup)
{
    struct th_env e;
    int p;

    env_init(&e, CFG_FAST);
    install_by_rename(&e, "versioned-1.so", "versioned.so");
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_REQUIRE(th_log_has(p, "plugin versioned 1.0 loaded"), "no log line for versioned 1.0");
    run_job(&e, p, "before", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "before") == V1_ANSWER, "1.0 answered %lld", answer_of(&e, "before"));

    install_by_rename(&e, "versioned-2.so", "versioned.so");
    reload(p, 1);
    TH_REQUIRE(log_count(p, "reloaded: ") == 1, "the reload was refused");
    /* Only the file installed anew went through a probe process. */
    TH_REQUIRE(th_log_has(p, "(1 file(s) probed, "), "the reload probed other than the new file");
    TH_REQUIRE(th_log_has(p, "plugin versioned 2.0 loaded"),
               "the log does not say versioned 2.0 was loaded");
    run_job(&e, p, "after", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "after") == V2_ANSWER,
               "after the upgrade to 2.0 and SIGHUP, the answer is %lld (%s code)",
               answer_of(&e, "after"), answer_of(&e, "after") == V1_ANSWER ? "the old" : "no");
    TH_EVENTUALLY(metrics_have(&e, "cairn_plugin_info{name=\"versioned\",version=\"2.0\"} 1") &&
                      !metrics_have(&e, "version=\"1.0\""),
                  DEADLINE_MS, "cairn_plugin_info does not show 2.0 alone: %s", metrics(&e));

    /* And back: the name 1.0 had is free again, its code is not reused
     * (nor its verdict: a new file, a new inode). */
    install_by_rename(&e, "versioned-1.so", "versioned.so");
    reload(p, 2);
    TH_REQUIRE(log_count(p, "(1 file(s) probed, ") == 2, "the second reload probed other than "
                                                         "the new file");
    run_job(&e, p, "back", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "back") == V1_ANSWER, "after going back to 1.0: %lld",
               answer_of(&e, "back"));
    TH_REQUIRE(!th_log_has(p, "is gone"), "an upgraded plugin was called gone");

    /* Removed: said at the reload, not found out from unknown_variant. */
    install_by_rename(&e, "slow.so", "slow.so");
    {
        char path[PATH_MAX];

        th_pathf(path, "%s/versioned.so", e.plugins);
        ck_assert_int_eq(unlink(path), 0);
        reload(p, 3);
        th_pathf(path, "reload: plugin versioned (%s/versioned.so) is gone", e.plugins);
        TH_REQUIRE(th_log_has(p, path), "the removal of versioned.so went unsaid");
    }
    th_stop(p);
    th_cleanup();
}
END_TEST

/* ---- 9. an overwrite in place changes nothing until a reload ------------ */

START_TEST(overwrite_in_place_keeps_the_loaded_code)
{
    struct th_env e;
    char path[PATH_MAX];
    int p;

    env_init(&e, CFG_FAST);
    install_by_rename(&e, "versioned-1.so", "versioned.so");
    th_pathf(path, "%s/versioned.so", e.plugins);
    p = start(&e, NULL);
    th_wait_ready(p);
    run_job(&e, p, "first", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "first") == V1_ANSWER, "1.0 answered %lld", answer_of(&e, "first"));

    /* Other bytes in the same inode: code mapped from the file would change
     * under the daemon. */
    overwrite_in_place(&e, "versioned-2.so", "versioned.so");
    run_job(&e, p, "overwritten", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "overwritten") == V1_ANSWER,
               "after an overwrite in place (no reload), the answer is %lld",
               answer_of(&e, "overwritten"));

    /* Truncated: pages mapped from the file would raise SIGBUS. */
    ck_assert_int_eq(truncate(path, 0), 0);
    run_job(&e, p, "truncated", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "truncated") == V1_ANSWER,
               "after a truncation (no reload), the answer is %lld", answer_of(&e, "truncated"));

    /* A reload refuses the empty file and keeps the loaded code. */
    reload(p, 1);
    TH_REQUIRE(th_log_has(p, "keeping the old"), "an empty plugin file was not refused");
    run_job(&e, p, "refused", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "refused") == V1_ANSWER, "after a refused reload: %lld",
               answer_of(&e, "refused"));

    /* The next good reload loads what the file now holds. */
    overwrite_in_place(&e, "versioned-2.so", "versioned.so");
    reload(p, 2);
    TH_REQUIRE(th_log_has(p, "plugin versioned 2.0 loaded"), "2.0 not loaded by the reload");
    run_job(&e, p, "reloaded", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "reloaded") == V2_ANSWER, "after the reload: %lld",
               answer_of(&e, "reloaded"));
    th_stop(p);
    th_cleanup();
}
END_TEST

/* A restart forks no probe for plugin files an earlier run's probe
 * passed, and probes those that changed while the daemon was down (an
 * overwrite in place: the same inode, other bytes), which then run their
 * new code.  The passes are kept in this test's own run-time folder. */
START_TEST(a_restart_probes_only_the_files_that_changed)
{
    struct th_env e;
    char run[PATH_MAX];
    int p;

    env_init(&e, CFG_FAST);
    th_pathf(run, "%s/run", e.root);
    ck_assert_int_eq(mkdir(run, 0700), 0);
    ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", run, 1), 0);
    install_by_rename(&e, "versioned-1.so", "versioned.so");

    p = start(&e, NULL);
    th_wait_ready(p);
    TH_REQUIRE(th_log_has(p, "plugin files: 1 probed, 0 unchanged since an earlier run's probe"),
               "the first start did not probe the plugin");
    th_stop(p);

    p = start(&e, NULL);
    th_wait_ready(p);
    TH_REQUIRE(th_log_has(p, "plugin files: 0 probed, 1 unchanged since an earlier run's probe"),
               "a restart with nothing changed probed again");
    run_job(&e, p, "again", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "again") == V1_ANSWER, "1.0 answered %lld", answer_of(&e, "again"));
    th_stop(p);

    overwrite_in_place(&e, "versioned-2.so", "versioned.so");
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_REQUIRE(th_log_has(p, "plugin files: 1 probed, 0 unchanged since an earlier run's probe"),
               "a file overwritten while the daemon was down was not probed");
    run_job(&e, p, "upgraded", VERSIONED_RECORD);
    TH_REQUIRE(answer_of(&e, "upgraded") == V2_ANSWER, "after the overwrite and a restart: %lld",
               answer_of(&e, "upgraded"));
    th_stop(p);
    th_cleanup();
}
END_TEST

/* ---- 11. a plugin call that never returns ------------------------------ */

#define HANG_TIMEOUT_S 1.0

#define HANG_CFG                                                                  \
    "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, \"metrics_interval_s\": 0.2, " \
    "\"solve_timeout_s\": 1, \"max_attempts\": 2, \"threads\": 1}\n"

/* Line 3 hangs; line 2 is blank, so the line named must be the physical one. */
#define STUCK_JOB                                           \
    "{\"variant\":\"hang\",\"input\":{\"values\":[1]}}\n"   \
    "\n"                                                    \
    "{\"variant\":\"hang\",\"input\":{\"values\":[666]}}\n" \
    "{\"variant\":\"hang\",\"input\":{\"values\":[2]}}\n"

#define FINE_JOB "{\"variant\":\"hang\",\"input\":{\"values\":[4,5]}}\n"

/* The run count the daemon keeps for a job in active/ (attempts.h). */
static unsigned attempts_of(const struct th_env *e, const char *name)
{
    char path[PATH_MAX];

    th_pathf(path, "%s/.cairn/active", e->in);
    return th_attempts_of(path, name);
}

/* Waits for run p to end on its own; returns its exit code and checks it
 * ended no sooner than the timeout after t0.  No upper bound: a run that
 * never ends meets the deadline, one that ends late is still right. */
static int wait_hang_exit(int p, double t0)
{
    int code = th_wait_exit(p, TH_LONG_DEADLINE_MS);
    double took = th_now_s() - t0;

    TH_REQUIRE(took >= HANG_TIMEOUT_S, "cairnd exited after %.2f s, before solve_timeout_s", took);
    return code;
}

START_TEST(hang_ends_the_run_counted_then_quarantined)
{
    struct th_env e;
    char path[PATH_MAX];
    json_t *sum;
    double t0;
    int p, code;

    env_init(&e, HANG_CFG);
    install_by_rename(&e, "hang.so", "hang.so");
    th_drop_job(e.in, "stuck.jsonl", STUCK_JOB, strlen(STUCK_JOB));

    /* Run 1, the daemon: one worker, stuck on line 3.  A job claimed after
     * it waits behind it, and is not blamed. */
    t0 = th_now_s();
    p = start(&e, NULL);
    TH_EVENTUALLY(th_log_has(p, "job stuck claimed") || !th_running(p), DEADLINE_MS,
                  "the stuck job was not claimed");
    th_drop_job(e.in, "innocent.jsonl", FINE_JOB, strlen(FINE_JOB));
    code = wait_hang_exit(p, t0);
    TH_REQUIRE(code == 1, "a hung plugin call: the daemon exited %d, not 1", code);
    TH_REQUIRE(th_log_has(p, "job stuck: line 3: plugin hang has not returned"),
               "the log does not name the job, the line and the plugin");
    TH_REQUIRE(attempts_of(&e, "stuck.jsonl") == 1, "run 1 of the hung job counted %u times",
               attempts_of(&e, "stuck.jsonl"));
    th_pathf(path, "%s/.cairn/active/stuck.jsonl", e.in);
    TH_REQUIRE(th_exists(path), "the hung job is not in .cairn/active/ for the next start");
    th_pathf(path, "%s/.cairn/active/innocent.jsonl", e.in);
    if (th_exists(path))
        TH_REQUIRE(attempts_of(&e, "innocent.jsonl") == 0,
                   "the job waiting behind the hung one was counted as an attempt");
    TH_REQUIRE(th_count_left_temps(e.out, ".") == 0, "temporary files left in %s", e.out);

    /* Run 2, --once: the same, counted again. */
    t0 = th_now_s();
    p = start(&e, "--once");
    code = wait_hang_exit(p, t0);
    TH_REQUIRE(code == 1, "--once on a hung plugin call exited %d, not 1", code);
    TH_REQUIRE(th_log_has(p, "job stuck: line 3: plugin hang"), "run 2 did not say why");
    TH_REQUIRE(attempts_of(&e, "stuck.jsonl") == 2, "after run 2, the count is %u",
               attempts_of(&e, "stuck.jsonl"));

    /* Run 3: max_attempts (2) runs never ended: quarantined, and the daemon
     * goes on with the rest. */
    p = start(&e, NULL);
    TH_OUT(path, &e, "stuck.summary.json");
    TH_EVENTUALLY(th_exists(path) || !th_running(p), DEADLINE_MS, "no summary for the hung job");
    TH_REQUIRE(th_running(p), "run 3 exited: the hung job was run again");
    sum = th_load_json(path);
    TH_REQUIRE(strcmp(th_str_field(sum, "status"), "failed") == 0, "status %s",
               th_str_field(sum, "status"));
    TH_REQUIRE(strstr(th_str_field(sum, "reason"), "max_attempts") != NULL,
               "the reason does not say why: %s", th_str_field(sum, "reason"));
    /* ... and which line and plugin hung, without the old runs' logs. */
    TH_REQUIRE(strstr(th_str_field(sum, "reason"),
                      "; one of them: line 3, plugin hang, a call still running after") != NULL,
               "the reason does not name the line and the plugin: %s", th_str_field(sum, "reason"));
    json_decref(sum);
    th_pathf(path, "%s/.cairn/failed/stuck.jsonl", e.in);
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the hung job is not in .cairn/failed/");
    th_pathf(path, "%s/.cairn/failed/stuck.reason.json", e.in);
    TH_REQUIRE(th_exists(path), "no .cairn/failed/stuck.reason.json");
    TH_OUT(path, &e, "innocent.summary.json");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the innocent job never finished");
    run_job(&e, p, "later", FINE_JOB);
    TH_REQUIRE(answer_of(&e, "later") == 9, "later: %lld", answer_of(&e, "later"));
    TH_REQUIRE(answer_of(&e, "innocent") == 9, "innocent: %lld", answer_of(&e, "innocent"));
    th_stop(p);
    th_cleanup();
}
END_TEST

START_TEST(filter_hang_exits_non_zero_naming_the_line)
{
    struct th_env e;
    char input[PATH_MAX];
    struct th_run r;
    double t0, took;

    env_init(&e, "{\"solve_timeout_s\": 1}\n");
    install_by_rename(&e, "hang.so", "hang.so");
    th_pathf(input, "%s/records.jsonl", e.root);
    th_write_text(input, STUCK_JOB);
    t0 = th_now_s();
    r = th_run_cairnd_stdin(g_cairnd, e.root, input,
                            (const char *const[]){ "--filter", "-c", e.cfg, "--plugins", e.plugins,
                                                   "--threads", "1", NULL });
    took = th_now_s() - t0;
    TH_REQUIRE(r.status == 1, "--filter on a hung plugin call exited %d, not 1: %s", r.status,
               r.err);
    TH_REQUIRE(took >= HANG_TIMEOUT_S, "--filter exited after %.2f s, before solve_timeout_s",
               took);
    TH_REQUIRE(strstr(r.err, "line 3: plugin hang has not returned") != NULL,
               "stderr does not name the line and the plugin: %s", r.err);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* cairn_records_total{variant="slow",status="ok"} in metrics.prom, and
 * its inode in *ino (a rewrite is a new file renamed over it); -1 when
 * there is none yet. */
static long long slow_records_done(const struct th_env *e, ino_t *ino)
{
    static const char series[] = "cairn_records_total{variant=\"slow\",status=\"ok\"} ";
    char path[PATH_MAX];
    long long n = -1;
    struct stat st;
    char *m, *at;

    TH_OUT(path, e, "metrics.prom");
    *ino = stat(path, &st) == 0 ? st.st_ino : 0;
    if ((m = th_slurp(path, NULL)) != NULL && (at = strstr(m, series)) != NULL)
        n = strtoll(at + sizeof(series) - 1, NULL, 10);
    free(m);
    return n;
}

/* 1 once metrics.prom has been rewritten since it was file *ino (which
 * then becomes the new one). */
static int metrics_rewritten(const struct th_env *e, ino_t *ino)
{
    ino_t now;

    (void)slow_records_done(e, &now);
    if (now == 0 || now == *ino)
        return 0;
    *ino = now;
    return 1;
}

/* docker pause, the cgroup freezer, a debugger, a paused VM: the whole
 * daemon stopped for three times solve_timeout_s while "slow" is in a
 * record (it sleeps in slices, so the record goes on once continued, as a
 * computing solver's would).  The hang watch counts only the time the
 * daemon ran, so once continued the job finishes ok and the daemon goes
 * on.
 *
 * The stop must come once the watch has seen that record, and a slice or
 * more before it ends, or even a watch that counted the stop would start
 * timing it only when continued (or not at all).  The watch checks every
 * 0.5 s and each record takes 1 s; metrics.prom is rewritten every 0.2 s.
 * The stop comes once it has counted a first record done and has been
 * rewritten three times since: 0.6 to 0.8 s into the next record, which
 * a check has seen.  On a loaded machine the stop may land elsewhere in a
 * record; the test then passes however the stop is counted, but still
 * proves the daemon survives it. */
#define STOP_TIMEOUT_S 2
#define STOP_RECORDS   6

START_TEST(a_stopped_daemon_is_not_a_hung_plugin)
{
    char path[PATH_MAX];
    struct th_env e;
    json_t *sum;
    ino_t ino;
    size_t len;
    char *job;
    int p, i;

    env_init(&e, "{\"min_age_ms\": 0, \"solve_timeout_s\": 2, \"max_attempts\": 2, "
                 "\"threads\": 1, \"metrics_interval_s\": 0.2}\n");
    install_by_rename(&e, "slow.so", "slow.so");
    job = th_slow_job(STOP_RECORDS, 1000, &len);
    p = start(&e, NULL);
    th_wait_ready(p);
    th_drop_job(e.in, "paused.jsonl", job, len);
    TH_EVENTUALLY(slow_records_done(&e, &ino) >= 1 || !th_running(p), DEADLINE_MS,
                  "metrics.prom never counted a record of the job done");
    for (i = 0; i < 3; i++)
        TH_EVENTUALLY(metrics_rewritten(&e, &ino) || !th_running(p), DEADLINE_MS,
                      "metrics.prom was not rewritten");
    TH_REQUIRE(kill(th_pid[p], SIGSTOP) == 0, "SIGSTOP: %s", strerror(errno));
    TH_OUT(path, &e, "paused.summary.json");
    TH_REQUIRE(!th_exists(path), "the job ended before the daemon was stopped");
    /* The length of the stop is what is under test, not a wait for a state. */
    th_sleep_ms(3 * STOP_TIMEOUT_S * 1000);
    TH_REQUIRE(kill(th_pid[p], SIGCONT) == 0, "SIGCONT: %s", strerror(errno));

    TH_EVENTUALLY(th_exists(path) || !th_running(p), DEADLINE_MS, "%s did not appear", path);
    TH_REQUIRE(th_running(p),
               "the stopped daemon exited once continued: its stop was taken for a hung plugin");
    TH_REQUIRE(!th_log_has(p, "has not returned"), "a hang was reported");
    sum = th_load_json(path);
    TH_REQUIRE(strcmp(th_str_field(sum, "status"), "ok") == 0, "status %s",
               th_str_field(sum, "status"));
    TH_REQUIRE(th_int_field(sum, "records") == STOP_RECORDS, "records %lld",
               th_int_field(sum, "records"));
    json_decref(sum);
    th_pathf(path, "%s/.cairn/failed/paused.jsonl", e.in);
    TH_REQUIRE(!th_exists(path), "the job was quarantined");
    th_stop(p);
    free(job);
    th_cleanup();
}
END_TEST

static Suite *plugins_suite(void)
{
    Suite *s = suite_create("plugins");
    TCase *tc;

    tc = tcase_create("upgrades");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, upgrade_by_rename_runs_the_new_code_after_sighup);
    tcase_add_test(tc, overwrite_in_place_keeps_the_loaded_code);
    tcase_add_test(tc, a_restart_probes_only_the_files_that_changed);
    suite_add_tcase(s, tc);

    tc = tcase_create("hangs");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, hang_ends_the_run_counted_then_quarantined);
    tcase_add_test(tc, filter_hang_exits_non_zero_naming_the_line);
    tcase_add_test(tc, a_stopped_daemon_is_not_a_hung_plugin);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_live = getenv("CAIRN_TEST_LIVE_PLUGIN_DIR");
    if (g_cairnd == NULL || g_live == NULL) {
        fprintf(stderr, "test_plugins: CAIRN_TEST_CAIRND and CAIRN_TEST_LIVE_PLUGIN_DIR must "
                        "be set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    th_settings.poll_ms = 5;
    th_settings.dump_last = 2;
    if (th_make_top("plugins") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    failed = th_run_suite(plugins_suite(), CK_NORMAL, 1);
    th_cleanup_top();
    return failed == 0 ? 0 : 1;
}
