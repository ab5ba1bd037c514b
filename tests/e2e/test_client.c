/*
 * test_client.c - the `cairn` command end to end: the real cairn binary
 * against the real cairnd, on temporary spools.
 *
 * Every test gets its own directory (in/, out/, the -c configuration that
 * both programs read, the logs).  Daemons and background `cairn` runs are
 * started with th_spawn, so they are killed and the directories removed
 * when a test ends, whatever happens.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/xattr.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static const char *g_cairn;
static const char *g_cairnd;
static const char *g_plugins;

#define DEADLINE_MS 20000

/* A spool whose configuration names both directories: `cairn -c` and
 * `cairnd -c` find the same ones, as on an installed system. */
static void env_init(struct th_env *e, const char *extra)
{
    char text[PATH_MAX * 3];

    th_env_init(e, NULL);
    snprintf(text, sizeof(text),
             "{\"input_dir\": \"%s\", \"output_dir\": \"%s\", \"min_age_ms\": 100, "
             "\"rescan_interval_s\": 1, \"metrics_interval_s\": 0, \"log_level\": \"debug\"%s%s}\n",
             e->in, e->out, extra ? ", " : "", extra ? extra : "");
    th_write_text(e->cfg, text);
}

static int start_daemon(const struct th_env *e)
{
    char *argv[] = {
        (char *)g_cairnd, "-c", (char *)e->cfg, "--plugins", (char *)e->plugins, NULL
    };
    int p = th_spawn(e->root, argv);

    th_wait_ready(p);
    return p;
}

/* cairn -c CFG args... (NULL-terminated), stdin from stdin_path. */
static struct th_run cairn_in(const struct th_env *e, const char *stdin_path, ...)
{
    const char *args[32];
    size_t n = 0;
    va_list ap;

    args[n++] = "-c";
    args[n++] = e->cfg;
    va_start(ap, stdin_path);
    while (n < 31 && (args[n] = va_arg(ap, const char *)) != NULL)
        n++;
    va_end(ap);
    args[n] = NULL;
    return th_run_cairnd_stdin(g_cairn, e->root, stdin_path, args);
}
#define cairn(e, ...) cairn_in(e, "/dev/null", __VA_ARGS__, (const char *)NULL)

/* The job files the tests submit, fixed here rather than read from
 * examples/ (which grows with the project): official.jsonl is eight
 * official examples with their expected answers (708 bytes), errors.jsonl
 * one record per kind of mistake between two good ones. */
static const char official_jsonl[] =
    "{\"id\":\"877-1\",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":"
    "true}\n"
    "{\"id\":\"877-2\",\"variant\":\"stone-game\",\"input\":{\"piles\":[3,7,2,3]},\"expected\":"
    "true}\n"
    "{\"id\":\"1140-1\",\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},"
    "\"expected\":10}\n"
    "{\"id\":\"1140-2\",\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5,100]},"
    "\"expected\":104}\n"
    "{\"id\":\"1140-3\",\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},"
    "\"expected\":8}\n"
    "{\"id\":\"1406-1\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},"
    "\"expected\":\"Bob\"}\n"
    "{\"id\":\"1406-2\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,-9]},"
    "\"expected\":\"Alice\"}\n"
    "{\"id\":\"1406-3\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,6]},"
    "\"expected\":\"Tie\"}\n";
static const char errors_jsonl[] =
    "{\"id\":\"ok-first\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n"
    "{\"id\":\"bad-json\",\"variant\":\"stone-game\"\n"
    "[\"a record must be an object\"]\n"
    "{\"id\":\"no-variant\",\"input\":{\"piles\":[5,3,4,5]}}\n"
    "{\"id\":\"unknown\",\"variant\":\"no-such-game\",\"input\":{\"piles\":[1]}}\n"
    "{\"id\":\"wrong-type\",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,\"4\",5]}}\n"
    "{\"id\":\"odd-length\",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]}}\n"
    "{\"id\":\"over-official\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,1001]}"
    "}\n"
    "{\"id\":\"over-extended\",\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,"
    "10000000000000000]},\"options\":{\"limits\":\"extended\"}}\n"
    "{\"id\":\"ok-last\",\"variant\":\"stone-game\",\"input\":{\"piles\":[3,7,2,3]},"
    "\"expected\":true}\n";

/* th_top/name, written by main() before the suite runs. */
static char *example(const char *name)
{
    return th_xasprintf("%s/%s", th_top, name);
}

/* The first line of s, malloc'd. */
static char *line1(const char *s)
{
    const char *nl = strchr(s, '\n');

    return nl ? strndup(s, (size_t)(nl - s)) : strdup(s);
}

/* The name of the one job file waiting in dir (polled for), malloc'd. */
static char *waiting_job(const char *dir)
{
    char *names = NULL, *found = NULL;
    double end = th_now_s() + th_scaled_ms(DEADLINE_MS) / 1000.0;

    while (found == NULL && th_now_s() < end) {
        char *p, *save = NULL;
        free(names);
        names = th_list_dir(dir, "\n");
        for (p = strtok_r(names, "\n", &save); p != NULL; p = strtok_r(NULL, "\n", &save))
            if (p[0] != '.' && th_ends_with(p, ".jsonl"))
                found = strdup(p);
        if (found == NULL)
            th_sleep_ms(20);
    }
    free(names);
    TH_REQUIRE(found != NULL, "no job file appeared in %s", dir);
    return found;
}

static json_t *summary_of(const struct th_env *e, const char *job)
{
    char path[PATH_MAX];

    TH_OUT(path, e, "%s.summary.json", job);
    return th_load_json(path);
}

/* A job name as submit makes it: BASE-YYYYMMDDTHHMMSSZ-8 hex digits. */
static int generated_name(const char *name, const char *base)
{
    size_t b = strlen(base), i;

    if (strncmp(name, base, b) != 0 || strlen(name) != b + 1 + 16 + 1 + 8 || name[b] != '-' ||
        name[b + 9] != 'T' || name[b + 16] != 'Z' || name[b + 17] != '-')
        return 0;
    for (i = b + 18; i < b + 26; i++)
        if (!strchr("0123456789abcdef", name[i]))
            return 0;
    return 1;
}

/* Replaces INPUT/job.jsonl by a symbolic link, atomically: cairnd then
 * fails the job ("not a regular file"), the one failure a test running as
 * root can cause on purpose. */
static void make_link(const struct th_env *e, const char *file)
{
    char tmp[PATH_MAX], dst[PATH_MAX];

    TH_IN(tmp, e, ".link.tmp");
    TH_IN(dst, e, "%s", file);
    ck_assert_int_eq(symlink("/dev/null", tmp), 0);
    ck_assert_int_eq(rename(tmp, dst), 0);
}

/* ------------------------------------------------------------------ */

/* A job without any expected answer: no "0 match, 0 differ". */
START_TEST(submit_wait_without_expected_answers)
{
    struct th_env e;
    char path[PATH_MAX];
    struct th_run r;

    env_init(&e, NULL);
    start_daemon(&e);
    th_pathf(path, "%s/plain.jsonl", e.root);
    th_write_text(path, "{\"variant\":\"stone-game-iv\",\"input\":{\"n\":7}}\n");
    r = cairn(&e, "submit", "--wait", "--name", "plain", path);
    TH_REQUIRE(r.status == 0, "submit --wait exited %d: %s%s", r.status, r.out, r.err);
    TH_REQUIRE(strstr(r.out, "plain: ok, 1 record: 1 ok, 0 errors; no given answers (") != NULL,
               "outcome line: %s", r.out);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

START_TEST(submit_wait_ok)
{
    struct th_env e;
    char *off = example("official.jsonl"), *name, *second;
    struct th_run r;
    json_t *s;

    env_init(&e, NULL);
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", off);
    TH_REQUIRE(r.status == 0, "submit --wait exited %d: %s%s", r.status, r.out, r.err);
    name = line1(r.out);
    TH_REQUIRE(generated_name(name, "official"), "job name \"%s\" is not official-TIME-HEX", name);
    second = strchr(r.out, '\n') + 1;
    TH_REQUIRE(strncmp(second, name, strlen(name)) == 0 &&
                   strstr(second, ": ok, 8 records: 8 ok, 0 errors; given vs exact answers: 8 "
                                  "match, 0 differ") != NULL,
               "outcome line: %s", second);
    /* Off a terminal: no progress line, nothing on stderr. */
    TH_REQUIRE(r.err[0] == '\0' && strchr(r.out, '\r') == NULL, "not quiet: %s", r.err);
    s = summary_of(&e, name);
    ck_assert_str_eq(th_str_field(s, "status"), "ok");
    ck_assert_int_eq(th_int_field(s, "matches"), 8);
    json_decref(s);
    th_run_free(&r);
    /* The same file again: another name, never the same outputs. */
    r = cairn(&e, "submit", "--wait", off);
    TH_REQUIRE(r.status == 0, "second submit exited %d", r.status);
    TH_REQUIRE(strncmp(r.out, name, strlen(name)) != 0, "the same name twice: %s", name);
    th_run_free(&r);
    free(name);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(submit_wait_failed)
{
    struct th_env e;
    char *off = example("official.jsonl"), *file, log_text[64];
    char *argv[] = { (char *)g_cairn, "-c", NULL, "submit", "--wait", off, NULL };
    int p;

    env_init(&e, NULL);
    argv[2] = e.cfg;
    mkdir(e.out, 0755); /* as a daemon that is not running made it */
    /* No daemon yet: the job waits, and is turned into a link. */
    p = th_spawn(e.root, argv);
    file = waiting_job(e.in);
    make_link(&e, file);
    start_daemon(&e);
    ck_assert_int_eq(th_wait_exit(p, DEADLINE_MS), 1);
    snprintf(log_text, sizeof(log_text), "%.*s: failed: ", (int)(strlen(file) - 6), file);
    TH_REQUIRE(th_log_has(p, log_text), "no \"%s\" line", log_text);
    TH_REQUIRE(th_log_has(p, "regular file"), "the reason is not shown");
    /* `cairn wait` on a job that already ended: its outcome at once. */
    {
        char base[256];
        struct th_run r;

        snprintf(base, sizeof(base), "%.*s", (int)(strlen(file) - 6), file);
        r = cairn(&e, "wait", "--timeout", "30", base);
        TH_REQUIRE(r.status == 1 && strstr(r.out, log_text) == r.out, "wait: exit %d: %s%s",
                   r.status, r.out, r.err);
        th_run_free(&r);
        r = cairn(&e, "wait", "nosuch");
        TH_REQUIRE(r.status == 2 && strstr(r.err, "no job nosuch") != NULL, "exit %d: %s", r.status,
                   r.err);
        th_run_free(&r);
    }
    free(file);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(submit_wait_timeout)
{
    struct th_env e;
    char *off = example("official.jsonl");
    struct th_run r;
    double t0;

    env_init(&e, NULL);
    mkdir(e.out, 0755); /* as a daemon that is not running made it */
    t0 = th_now_s();
    r = cairn(&e, "submit", "--timeout", "2.5", off);
    TH_REQUIRE(r.status == 3, "exit %d, want 3 (timeout): %s%s", r.status, r.out, r.err);
    TH_REQUIRE(th_now_s() - t0 >= 2.5, "timed out after %.1f s, before its 2.5 s", th_now_s() - t0);
    TH_REQUIRE(strstr(r.out, ": timed out after 2.5 s; it is waiting in the spool") != NULL,
               "stdout: %s", r.out);
    /* No daemon serves the spool: said once, 2 s into the wait. */
    TH_REQUIRE(strstr(r.err, "cairn: warning: no daemon is reporting on ") != NULL &&
                   strstr(strstr(r.err, "no daemon is reporting") + 1, "no daemon is reporting") ==
                       NULL,
               "stderr: %s", r.err);
    th_run_free(&r);
    /* --wait needs the output directory: refused before anything moves. */
    th_rm_tree(e.out);
    r = cairn(&e, "submit", "--wait", off);
    TH_REQUIRE(r.status == 2 && strstr(r.err, "is it running?") != NULL, "exit %d: %s", r.status,
               r.err);
    ck_assert_int_eq(th_count_entries(e.in, ""), 1); /* only the first job */
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

/* `mv job.jsonl in/; cairn wait job` for a name used before: the daemon
 * may have claimed the file (as job~2) before `wait` looks.  wait must
 * follow that run, not report the earlier job.summary.json at once; and
 * once a reused name's run has finished, wait reports the latest run. */
START_TEST(wait_follows_the_run_of_a_reused_name)
{
    struct th_env e;
    char path[PATH_MAX];
    struct th_run r;
    size_t len;
    char *slow;
    int p;

    env_init(&e, NULL);
    th_plugins_with_slow(e.root, e.plugins);
    p = start_daemon(&e);
    th_drop_job(e.in, "job.jsonl", official_jsonl, strlen(official_jsonl));
    TH_OUT(path, &e, "job.summary.json");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the first run of job never finished");

    /* Second run: 40 records of 60 ms, claimed as job~2 before wait. */
    slow = th_slow_job(40, 60, &len);
    th_drop_job(e.in, "job.jsonl", slow, len);
    free(slow);
    TH_IN(path, &e, ".cairn/active/job~2.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the second job.jsonl was not claimed as job~2");
    r = cairn(&e, "wait", "job");
    TH_OUT(path, &e, "job~2.summary.json");
    TH_REQUIRE(r.status == 0 && th_exists(path),
               "wait returned (exit %d) before job~2 finished: %s%s", r.status, r.out, r.err);
    TH_REQUIRE(strstr(r.out, "job: ran as job~2") != NULL && strstr(r.out, "ok, 40 records"),
               "wait did not report the run it was asked about: %s", r.out);
    th_run_free(&r);

    /* Third run, finished before wait looks: the latest run is reported. */
    th_drop_job(e.in, "job.jsonl", official_jsonl, strlen(official_jsonl));
    TH_OUT(path, &e, "job~3.summary.json");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the third run of job never finished");
    TH_IN(path, &e, ".cairn/active/job~3.jsonl");
    TH_EVENTUALLY(!th_exists(path), DEADLINE_MS, "job~3 stays in active/");
    r = cairn(&e, "wait", "job");
    TH_REQUIRE(r.status == 0 && strstr(r.out, "job: ran as job~3") != NULL &&
                   strstr(r.out, "ok, 8 records"),
               "wait did not report the latest run (exit %d): %s%s", r.status, r.out, r.err);
    th_run_free(&r);
    th_stop(p);
    th_cleanup();
}
END_TEST

/* A timeout of centuries overflowed the timer's milliseconds and timed
 * out at once (exit 3): refused, naming the option and the limit. */
START_TEST(wait_refuses_a_timeout_past_the_limit)
{
    static const char *const huge[] = { "1e19", "1e300", "1000000001" };
    struct th_env e;
    size_t i;

    env_init(&e, NULL);
    mkdir(e.out, 0755);
    for (i = 0; i < 3; i++) {
        struct th_run r = cairn(&e, "wait", "--timeout", huge[i], "job");
        char *want = th_xasprintf("--timeout %s: at most 1000000000 seconds", huge[i]);

        TH_REQUIRE(r.status == 2 && strstr(r.err, want) != NULL, "--timeout %s: exit %d: %s",
                   huge[i], r.status, r.err);
        free(want);
        th_run_free(&r);
    }
    th_cleanup();
}
END_TEST

/* A bad option is named as typed, with the hint every usage error has
 * (getopt's own message named the whole argv[0] and gave no hint). */
START_TEST(a_bad_option_is_named_with_the_hint)
{
    static const struct {
        const char *a, *b, *said;
    } cases[] = {
        { "status", "--bogus", "cairn: unknown option --bogus\n" },
        { "status", "-x", "cairn: unknown option -x\n" },
        { "status", "--json=1", "cairn: --json=1: the option takes no value\n" },
        { "wait", "--timeout", "cairn: --timeout needs a value\n" },
    };
    struct th_env e;
    size_t i;

    env_init(&e, NULL);
    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct th_run r = cairn(&e, cases[i].a, cases[i].b);

        TH_REQUIRE(r.status == 2 && strncmp(r.err, cases[i].said, strlen(cases[i].said)) == 0 &&
                       strstr(r.err, "(cairn --help lists the commands and options)") != NULL,
                   "%s %s: exit %d: %s", cases[i].a, cases[i].b, r.status, r.err);
        th_run_free(&r);
    }
    th_cleanup();
}
END_TEST

START_TEST(submit_from_pipe)
{
    struct th_env e;
    char *off = example("official.jsonl"), *cmd, path[PATH_MAX], *name;
    const char *args[3] = { "-c", NULL, NULL };
    struct th_run r;
    json_t *res;

    env_init(&e, NULL);
    start_daemon(&e);
    cmd = th_xasprintf("cat '%s' | '%s' -c '%s' submit --wait - && "
                       "cat '%s' | '%s' -c '%s' submit --wait --name piped -",
                       off, g_cairn, e.cfg, off, g_cairn, e.cfg);
    args[1] = cmd;
    r = th_run_cairnd("/bin/sh", e.root, args);
    TH_REQUIRE(r.status == 0, "exit %d: %s%s", r.status, r.out, r.err);
    name = line1(r.out);
    TH_REQUIRE(generated_name(name, "stdin"), "job name from a pipe: %s", name);
    TH_REQUIRE(strstr(r.out, "\npiped\npiped: ok, 8 records") != NULL, "stdout: %s", r.out);
    TH_OUT(path, &e, "piped.results.jsonl");
    res = th_load_results(path);
    ck_assert_uint_eq(json_array_size(res), 8);
    json_decref(res);
    th_run_free(&r);
    free(name);
    free(cmd);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(submit_refuses_bad_files)
{
    struct th_env e;
    char good[PATH_MAX], bad[PATH_MAX], *errors = example("errors.jsonl");
    struct th_run r;

    env_init(&e, NULL);
    th_pathf(good, "%s/good.jsonl", e.root);
    th_pathf(bad, "%s/bad.jsonl", e.root);
    th_write_text(good, "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]}}\n");
    th_write_text(bad, "{\"a\":1}\n\n[1,2]\n");
    /* One bad file among several: nothing is submitted. */
    r = cairn(&e, "submit", good, bad);
    TH_REQUIRE(r.status == 2, "exit %d", r.status);
    TH_REQUIRE(strstr(r.err, "bad.jsonl:3: not a JSON lines job file: not a JSON object but an "
                             "array") != NULL,
               "stderr: %s", r.err);
    TH_REQUIRE(th_count_entries(e.in, "") == 0, "left in the spool: %s", th_list_dir(e.in, " "));
    th_run_free(&r);
    r = cairn(&e, "submit", errors);
    TH_REQUIRE(r.status == 2 && strstr(r.err, "errors.jsonl:2: not a JSON lines job file: "
                                              "column ") != NULL,
               "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    /* --no-check hands it over as it is. */
    r = cairn(&e, "submit", "--no-check", errors);
    TH_REQUIRE(r.status == 0 && th_count_entries(e.in, "errors-") == 1, "exit %d: %s", r.status,
               r.err);
    th_run_free(&r);
    r = cairn(&e, "submit", "/nonexistent/x.jsonl");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "/nonexistent/x.jsonl") != NULL, "exit %d: %s",
               r.status, r.err);
    th_run_free(&r);
    free(errors);
    th_cleanup();
}
END_TEST

START_TEST(submit_name_taken)
{
    struct th_env e;
    char *off = example("official.jsonl");
    struct th_run r;

    env_init(&e, NULL);
    r = cairn(&e, "submit", "--name", "mine", off);
    TH_REQUIRE(r.status == 0 && strcmp(r.out, "mine\n") == 0, "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "submit", "--name", "mine.jsonl", off);
    TH_REQUIRE(r.status == 2 && strstr(r.err, "it is waiting in the spool") != NULL, "exit %d: %s",
               r.status, r.err);
    th_run_free(&r);
    /* Once finished, the name is still taken: its summary would be replaced. */
    start_daemon(&e);
    {
        char done[PATH_MAX];
        TH_IN(done, &e, ".cairn/done/mine.jsonl");
        TH_EVENTUALLY(th_exists(done), DEADLINE_MS, "mine never finished");
    }
    r = cairn(&e, "submit", "--name", "mine", off);
    TH_REQUIRE(r.status == 2 && strstr(r.err, "has a summary") != NULL, "exit %d: %s", r.status,
               r.err);
    th_run_free(&r);
    r = cairn(&e, "submit", "--name", ".hidden", off);
    TH_REQUIRE(r.status == 2 && strstr(r.err, "not a job name") != NULL, "exit %d: %s", r.status,
               r.err);
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(bad_spool)
{
    struct th_env e;
    char *off = example("official.jsonl"), missing[PATH_MAX];
    struct th_run r;

    env_init(&e, NULL);
    th_pathf(missing, "%s/nope", e.root);
    r = cairn(&e, "--input", missing, "submit", off);
    TH_REQUIRE(r.status == 2 && strstr(r.err, missing) != NULL &&
                   strstr(r.err, "No such file or directory") != NULL,
               "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "--input", missing, "status");
    TH_REQUIRE(r.status == 2, "status on a missing spool exited %d", r.status);
    th_run_free(&r);
    if (geteuid() == 0) {
        /* root writes anywhere: ask as nobody, who may enter but not write. */
        const char *args[] = { "--reuid=65534",
                               "--regid=65534",
                               "--clear-groups",
                               g_cairn,
                               "-c",
                               e.cfg,
                               "submit",
                               off,
                               NULL };
        chmod(th_top, 0755);
        chmod(e.root, 0755);
        r = th_run_cairnd("/usr/bin/setpriv", e.root, args);
    } else {
        chmod(e.in, 0555);
        r = cairn(&e, "submit", off);
    }
    TH_REQUIRE(r.status == 2 && strstr(r.err, "cannot write to input_dir") != NULL &&
                   strstr(r.err, "Permission denied") != NULL,
               "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "frobnicate");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "unknown command") != NULL, "exit %d: %s", r.status,
               r.err);
    th_run_free(&r);
    r = cairn(&e, "status", "--join");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "--join is not an option of \"status\"") != NULL,
               "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

/* A job that runs for seconds however fast the solvers are (and, with
 * th_close_slow_gate, until the test lets it end): `records` records of
 * the test plugin "slow" that sleep 60 ms each; e's daemon, started after
 * this or after th_plugins_with_slow, is given that plugin. */
static void drop_slow_job(struct th_env *e, const char *name, int records)
{
    size_t len;
    char *job = th_slow_job((size_t)records, 60, &len);

    th_plugins_with_slow(e->root, e->plugins);
    th_drop_job(e->in, name, job, len);
    free(job);
}

/* A daemon's status file (client/base/statusfile.h), as host and pid, last
 * updated age_s ago. */
static void write_status_file_as(const struct th_env *e, const char *name, const char *host,
                                 long pid, double age_s, const char *active_json)
{
    char dir[PATH_MAX], path[PATH_MAX], now[32], text[2048];
    time_t t = time(NULL) - (time_t)age_s;
    struct tm tm;

    TH_IN(dir, e, ".cairn");
    mkdir(dir, 0755);
    TH_IN(dir, e, ".cairn/status");
    mkdir(dir, 0755);
    gmtime_r(&t, &tm);
    strftime(now, sizeof(now), "%Y-%m-%dT%H:%M:%S.000Z", &tm);
    snprintf(text, sizeof(text),
             "{\"host\":\"%s\",\"pid\":%ld,\"version\":\"0.1.0\",\"started\":\"%s\","
             "\"updated\":\"%s\",\"active\":[%s]}\n",
             host, pid, now, now, active_json);
    th_pathf(path, "%s/%s", dir, name);
    th_write_text(path, text);
}

static void write_status_file(const struct th_env *e, const char *name, double age_s,
                              const char *active_json)
{
    write_status_file_as(e, name, "testhost", 4242, age_s, active_json);
}

/* "12.3 KiB", as cairn prints the size of path. */
static const char *size_text(const char *path)
{
    static char out[32];
    struct stat st;
    double v;

    TH_REQUIRE(stat(path, &st) == 0, "stat %s", path);
    v = (double)st.st_size / 1024;
    if (v >= 1024)
        snprintf(out, sizeof(out), "%.1f MiB", v / 1024);
    else
        snprintf(out, sizeof(out), "%.1f KiB", v);
    return out;
}

/* 1 when `cairn status` prints a line holding all of a, b and c, in order. */
static int status_line_has(const struct th_env *e, const char *a, const char *b, const char *c)
{
    struct th_run r = cairn(e, "status");
    const char *p = strstr(r.out, a), *q = p ? strstr(p, b) : NULL, *t = q ? strstr(q, c) : NULL;
    int ok = t != NULL && memchr(p + 1, '\n', (size_t)(t - p - 1)) == NULL;

    th_run_free(&r);
    return ok;
}

START_TEST(status_shows_the_queue)
{
    struct th_env e;
    char *off = example("official.jsonl"), active_path[PATH_MAX], path[PATH_MAX], gate[PATH_MAX];
    char host[256] = "", who[300], want[64];
    const char *prog;
    struct th_run r;
    int daemon;
    json_t *j;

    env_init(&e, "\"threads\": 1");
    /* Waiting: two jobs and no daemon. */
    r = cairn(&e, "submit", "--name", "w1", off);
    th_run_free(&r);
    r = cairn(&e, "submit", "--name", "w2", off);
    th_run_free(&r);
    r = cairn(&e, "status");
    TH_REQUIRE(r.status == 0 && strstr(r.out, "waiting: 2\n  w1  708 B\n  w2  708 B\n") != NULL &&
                   strstr(r.out, "active:  0\n") != NULL,
               "exit %d: %s%s", r.status, r.out, r.err);
    th_run_free(&r);
    /* One that will fail (a link); then one that keeps the daemon busy,
     * held at its gate until the test is done looking (it would hold up
     * the small jobs too on the one thread: it comes after them). */
    r = cairn(&e, "submit", "--name", "broken", off);
    th_run_free(&r);
    make_link(&e, "broken.jsonl");
    th_close_slow_gate(e.root, gate);
    th_plugins_with_slow(e.root, e.plugins);
    daemon = start_daemon(&e);
    TH_OUT(path, &e, "w2.summary.json");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "w2 never finished");
    TH_OUT(path, &e, "w1.summary.json");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "w1 never finished");
    TH_IN(path, &e, ".cairn/failed/broken.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "broken never failed");
    drop_slow_job(&e, "slow.jsonl", 150);
    TH_IN(active_path, &e, ".cairn/active/slow.jsonl");
    TH_EVENTUALLY(th_exists(active_path), DEADLINE_MS, "slow never became active");
    /* The daemon's own status file gives slow's progress. */
    gethostname(host, sizeof(host) - 1);
    snprintf(who, sizeof(who), "%s pid %ld", host, (long)th_pid[daemon]);
    snprintf(want, sizeof(want), " of %s (", size_text(active_path));
    TH_EVENTUALLY(status_line_has(&e, "\n  slow  ", want, who), DEADLINE_MS,
                  "no progress for slow from %s: want \"slow  N of%s...%%), N records, on %s\"",
                  who, want, who);
    /* A dead daemon's file (old, with jobs) is stale.  On this host a pid
     * says more than a time: an old file without jobs whose daemon runs
     * is an idle daemon's; one whose pid is gone is a dead daemon's,
     * however fresh, and its progress is not used. */
    {
        char idle_who[300], gone_who[300];
        pid_t dead = fork();

        ck_assert_int_ge(dead, 0);
        if (dead == 0)
            _exit(0);
        waitpid(dead, NULL, 0);
        write_status_file(&e, "dead.json", 60,
                          "{\"job\":\"w1\",\"input\":\"w1.jsonl\",\"size\":708,\"bytes\":1,"
                          "\"records\":1,\"started\":\"2026-11-30T21:00:01.000Z\"}");
        write_status_file_as(&e, "idle.json", host, (long)getpid(), 60, "");
        write_status_file_as(
            &e, "gone.json", host, (long)dead, 0,
            "{\"job\":\"slow\",\"input\":\"slow.jsonl\",\"size\":1000000,"
            "\"bytes\":999999,\"records\":1,\"started\":\"2026-11-30T21:00:01.000Z\"}");
        snprintf(idle_who, sizeof(idle_who), "%s pid %ld, cairnd 0.1.0: idle, no update for 6",
                 host, (long)getpid());
        snprintf(gone_who, sizeof(gone_who), "%s pid %ld: gone (no such process here", host,
                 (long)dead);
        r = cairn(&e, "status");
        TH_REQUIRE(r.status == 0, "status exited %d: %s", r.status, r.err);
        TH_REQUIRE(strstr(r.out, "testhost pid 4242: stale, no update for 6") &&
                       strstr(r.out, idle_who) && strstr(r.out, gone_who),
                   "stale, idle and gone daemons:\n%s", r.out);
        TH_REQUIRE(strstr(r.out, "active:  1\n  slow  ") && strstr(r.out, who) &&
                       !strstr(r.out, "999999") && !strstr(r.out, "976.6 KiB (100%)"),
                   "slow's progress is not the live daemon's:\n%s", r.out);
        th_run_free(&r);
    }
    r = cairn(&e, "status", "--json");
    j = json_loads(r.out, 0, NULL);
    TH_REQUIRE(j != NULL, "status --json is not JSON: %s", r.out);
    ck_assert_uint_eq(json_array_size(json_object_get(j, "active")), 1);
    prog = json_string_value(json_object_get(
        json_object_get(json_array_get(json_object_get(j, "active"), 0), "progress"), "daemon"));
    TH_REQUIRE(prog != NULL && strcmp(prog, who) == 0, "status --json: %s", r.out);
    json_decref(j);
    th_run_free(&r);
    /* Everything finished: done and failed, with the failure's reason. */
    th_open_gate(gate);
    TH_OUT(path, &e, "slow.summary.json");
    TH_EVENTUALLY(th_exists(path), 60000, "slow never finished");
    r = cairn(&e, "status");
    TH_REQUIRE(strstr(r.out, "waiting: 0\n") && strstr(r.out, "done:    3\n") &&
                   strstr(r.out, "failed:  1\nlatest failures:\n") && strstr(r.out, "broken: ") &&
                   strstr(r.out, "regular file"),
               "after the run:\n%s", r.out);
    th_run_free(&r);
    r = cairn(&e, "status", "--json");
    j = json_loads(r.out, 0, NULL);
    TH_REQUIRE(j != NULL && th_int_field(j, "done") == 3 && th_int_field(j, "failed") == 1 &&
                   json_array_size(json_object_get(j, "latest_failures")) == 1,
               "status --json after the run: %s", r.out);
    json_decref(j);
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(retry_requeues_and_resets_attempts)
{
    struct th_env e;
    char *off = example("official.jsonl"), failed[PATH_MAX], tmp[PATH_MAX], att[PATH_MAX];
    char sum[PATH_MAX], text[64];
    struct th_run r;
    struct stat st;
    json_t *s;

    env_init(&e, "\"max_attempts\": 2");
    r = cairn(&e, "submit", "--name", "broken", off);
    th_run_free(&r);
    make_link(&e, "broken.jsonl");
    r = cairn(&e, "submit", "--name", "other", off);
    th_run_free(&r);
    make_link(&e, "other.jsonl");
    start_daemon(&e);
    TH_IN(failed, &e, ".cairn/failed/broken.jsonl");
    TH_OUT(sum, &e, "broken.summary.json");
    TH_EVENTUALLY(th_exists(failed) && th_exists(sum), DEADLINE_MS, "broken never failed");
    s = summary_of(&e, "broken");
    ck_assert_str_eq(th_str_field(s, "status"), "failed");
    json_decref(s);
    /* Not failed jobs: refused, and nothing moves. */
    r = cairn(&e, "retry", "broken", "nosuch");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "nosuch is not a failed job") != NULL, "exit %d: %s",
               r.status, r.err);
    TH_REQUIRE(th_exists(failed), "broken moved although the command was refused");
    th_run_free(&r);
    /* The user repairs it (a regular file in place of the link), and the
     * crash count of two runs that never ended is still on disk. */
    TH_IN(tmp, &e, ".cairn/failed/.fix.tmp");
    th_copy_file(off, tmp, 0644);
    ck_assert_int_eq(rename(tmp, failed), 0);
    ck_assert_int_eq(stat(failed, &st), 0);
    TH_IN(att, &e, ".cairn/active/.cairn-attempts.%016llx",
          (unsigned long long)cairn_hash64("broken.jsonl", strlen("broken.jsonl")));
    snprintf(text, sizeof(text), "%llu 2\n", (unsigned long long)st.st_ino);
    th_write_text(att, text); /* the file form (file systems without xattrs) */
    ck_assert_int_eq(setxattr(failed, "user.cairn.attempts", "2", 1, 0), 0); /* the usual form */
    r = cairn(&e, "retry", "broken");
    TH_REQUIRE(r.status == 0 && strcmp(r.out, "broken: requeued\n") == 0, "exit %d: %s%s", r.status,
               r.out, r.err);
    th_run_free(&r);
    TH_EVENTUALLY(th_exists(sum) && th_file_contains(sum, "\"status\":\"ok\""), DEADLINE_MS,
                  "the retried job did not succeed (quarantined again by its old count?)");
    TH_IN(tmp, &e, ".cairn/done/broken.jsonl");
    TH_EVENTUALLY(th_exists(tmp), DEADLINE_MS, "broken never reached done/");
    TH_REQUIRE(!th_exists(att), "the attempts file is still there");
    TH_REQUIRE(getxattr(tmp, "user.cairn.attempts", text, sizeof(text)) < 0 && errno == ENODATA,
               "the crash count is still on the retried job file");
    TH_IN(tmp, &e, ".cairn/failed/broken.reason.json");
    TH_REQUIRE(!th_exists(tmp), "the reason file is still there");
    /* --failed takes the rest (once the daemon has failed it too); the
     * link fails again, as it should. */
    TH_IN(tmp, &e, ".cairn/failed/other.jsonl");
    TH_EVENTUALLY(th_exists(tmp), DEADLINE_MS, "other never failed");
    r = cairn(&e, "retry", "--failed");
    TH_REQUIRE(r.status == 0 && strcmp(r.out, "other: requeued\n") == 0, "exit %d: %s%s", r.status,
               r.out, r.err);
    th_run_free(&r);
    TH_IN(failed, &e, ".cairn/failed/other.jsonl");
    TH_EVENTUALLY(th_exists(failed), DEADLINE_MS, "other did not fail again");
    r = cairn(&e, "retry", "broken");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "it finished") != NULL, "exit %d: %s", r.status,
               r.err);
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(results_and_join)
{
    struct th_env e;
    char job[PATH_MAX];
    struct th_run r;
    json_t **lines;
    size_t n;

    env_init(&e, NULL);
    th_pathf(job, "%s/mixed.jsonl", e.root);
    /* A blank line, an id written 1.50, a bad line, CRLF, JSON that is
     * not an object. */
    th_write_text(job, "{\"id\":1.50,\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n"
                       "\n"
                       "{\"id\":\"x\",\"variant\"\r\n"
                       "[1, 2,3]\n"
                       "{\"id\":\"last\",\"variant\":\"877\",\"input\":{\"piles\":[3,7,2,3]}}");
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", "--no-check", "--name", "mixed", job);
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "results", "mixed");
    {
        char path[PATH_MAX];
        char *want;
        TH_OUT(path, &e, "mixed.results.jsonl");
        want = th_read_file(path, NULL);
        TH_REQUIRE(r.status == 0 && strcmp(r.out, want) == 0, "results differ from the file");
        free(want);
    }
    th_run_free(&r);
    r = cairn(&e, "results", "mixed.jsonl", "--join");
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    lines = th_parse_lines(r.out, strlen(r.out), &n, "results --join");
    ck_assert_uint_eq(n, 4);
    TH_REQUIRE(strstr(r.out, "{\"line\":1,\"input\":{\"id\":1.50,\"variant\":\"1406\",") == r.out,
               "line 1 is not the input as written: %s", r.out);
    ck_assert_int_eq(th_int_field(lines[1], "line"), 3);
    ck_assert_str_eq(th_str_field(lines[1], "input"), "{\"id\":\"x\",\"variant\"");
    ck_assert_str_eq(
        th_str_field(json_object_get(json_object_get(lines[1], "result"), "error"), "code"),
        "bad_json");
    /* Valid JSON, if not a record: shown as it is, not as a string. */
    TH_REQUIRE(strstr(r.out, "{\"line\":4,\"input\":[1, 2,3],\"result\":") != NULL,
               "line 4 is not the input as written: %s", r.out);
    ck_assert_str_eq(
        th_str_field(json_object_get(json_object_get(lines[2], "result"), "error"), "code"),
        "bad_record");
    ck_assert_int_eq(th_int_field(json_object_get(lines[3], "result"), "line"), 5);
    ck_assert_str_eq(th_str_field(json_object_get(lines[3], "input"), "id"), "last");
    th_free_lines(lines, n);
    th_run_free(&r);
    r = cairn(&e, "results", "nosuch");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "no job nosuch") != NULL, "exit %d: %s", r.status,
               r.err);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* A job file opening with a UTF-8 byte order mark: cairnd skips it, so
 * submit's check takes the file and --join shows line 1 as the record. */
START_TEST(submit_and_join_a_file_with_a_byte_order_mark)
{
    struct th_env e;
    char job[PATH_MAX];
    struct th_run r;
    json_t **lines;
    size_t n;

    env_init(&e, NULL);
    th_pathf(job, "%s/bom.jsonl", e.root);
    th_write_text(job,
                  "\xEF\xBB\xBF{\"id\":1,\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]}}\n"
                  "{\"id\":2,\"variant\":\"877\",\"input\":{\"piles\":[3,7,2,3]}}\n");
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", "--name", "bom", job);
    TH_REQUIRE(r.status == 0, "submit of a file with a BOM: exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "results", "bom", "--join");
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    lines = th_parse_lines(r.out, strlen(r.out), &n, "results --join");
    ck_assert_uint_eq(n, 2);
    TH_REQUIRE(json_is_object(json_object_get(lines[0], "input")) &&
                   th_int_field(json_object_get(lines[0], "input"), "id") == 1,
               "line 1's input is not the record: %s", r.out);
    ck_assert_str_eq(th_str_field(json_object_get(lines[0], "result"), "status"), "ok");
    th_free_lines(lines, n);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

START_TEST(join_without_kept_inputs)
{
    struct th_env e;
    char *off = example("official.jsonl");
    struct th_run r;

    env_init(&e, "\"keep_inputs\": false");
    r = cairn(&e, "submit", "--name", "early", off);
    th_run_free(&r);
    r = cairn(&e, "results", "early");
    TH_REQUIRE(r.status == 1 && strstr(r.err, "not finished: it is waiting") != NULL, "exit %d: %s",
               r.status, r.err);
    th_run_free(&r);
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", "--name", "gone", off);
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "results", "gone", "--join");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "keep_inputs is false in ") != NULL &&
                   strstr(r.err, e.cfg) != NULL,
               "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

/* A name of 245 bytes: cairnd names its outputs CUT~HASH, and every
 * command must find them under that name (client/base/spooldir.c mirrors
 * core/job/job.c). */
START_TEST(long_job_names)
{
    struct th_env e;
    char *off = example("official.jsonl"), name[250];
    struct th_run r;

    env_init(&e, NULL);
    memset(name, 'n', 245);
    name[245] = '\0';
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", "--name", name, off);
    TH_REQUIRE(r.status == 0 && strstr(r.out, ": ok, 8 records") != NULL, "exit %d: %s%s", r.status,
               r.out, r.err);
    th_run_free(&r);
    TH_REQUIRE(th_count_entries(e.out, "nnnn") == 2 && th_count_entries(e.out, name) == 0,
               "outputs are not cut: %s", th_list_dir(e.out, " "));
    r = cairn(&e, "results", name);
    TH_REQUIRE(r.status == 0 && strstr(r.out, "\"id\":\"877-1\"") != NULL, "exit %d: %s", r.status,
               r.err);
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

/* report --html onto a full disk (a real tmpfs, filled) says
 * "No space left on device", not the "Input/output error" stdio's lost
 * errno once gave, and leaves no page behind. */
START_TEST(report_html_on_a_full_disk_says_so)
{
    struct th_env e;
    char mnt[PATH_MAX], filler[PATH_MAX], page[PATH_MAX];
    char *off = example("official.jsonl"), *block;
    struct th_run r;
    int fd;

    if (geteuid() != 0) {
        printf("skipped: not root, cannot mount a tmpfs\n");
        free(off);
        return;
    }
    env_init(&e, NULL);
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", "--name", "off", off);
    TH_REQUIRE(r.status == 0, "submit: exit %d: %s", r.status, r.err);
    th_run_free(&r);
    th_pathf(mnt, "%s/small", e.root);
    ck_assert_int_eq(mkdir(mnt, 0755), 0);
    TH_REQUIRE(mount("tmpfs", mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") == 0,
               "mount tmpfs: %s", strerror(errno));
    /* Full: the page's first flush, mid-page, already fails. */
    th_pathf(filler, "%s/filler", mnt);
    block = calloc(1, 64 * 1024);
    fd = open(filler, O_WRONLY | O_CREAT, 0644);
    ck_assert_int_eq(write(fd, block, 64 * 1024), 64 * 1024);
    close(fd);
    free(block);
    th_pathf(page, "%s/report.html", mnt);
    r = cairn(&e, "report", e.out, "--html", page);
    umount2(mnt, MNT_DETACH);
    TH_REQUIRE(r.status != 0 && strstr(r.err, "No space left on device") != NULL,
               "exit %d, stderr: %s", r.status, r.err);
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

/* Graded lines of play (options.play), through the real daemon: the share
 * of optimal lines, where the first non-optimal move came, the cost per
 * variant, and the worst blunders costliest first with their positions
 * (read from the input kept in .cairn/done/), in text and on the page. */
START_TEST(report_grades_lines_of_play)
{
    struct th_env e;
    char play[PATH_MAX], html[PATH_MAX + 16], *page;
    struct th_run r;

    env_init(&e, NULL);
    th_pathf(play, "%s/play.jsonl", e.root);
    th_write_text(play,
                  "{\"id\":\"a\",\"variant\":\"stone-game-vii\",\"input\":{\"stones\":[5,3,1,4,2]},"
                  "\"options\":{\"play\":[\"L\"]}}\n"
                  "{\"id\":\"b\",\"variant\":\"stone-game-vii\",\"input\":{\"stones\":[5,3,1,4,2]},"
                  "\"options\":{\"play\":[\"R\",\"L\",\"L\"]}}\n"
                  "{\"id\":\"c\",\"variant\":\"stone-game-vii\",\"input\":{\"stones\":[5,3,1,4,2]},"
                  "\"options\":{\"play\":[\"R\",\"R\"]}}\n"
                  "{\"id\":\"d\",\"variant\":\"stone-game-iv\",\"input\":{\"n\":7},"
                  "\"options\":{\"play\":[4]}}\n"
                  "{\"id\":\"e\",\"variant\":\"stone-game-iv\",\"input\":{\"n\":7},"
                  "\"options\":{\"play\":[1]}}\n"
                  "{\"id\":\"f\",\"variant\":\"stone-game\",\"input\":{\"piles\":[3,9,1,2]},"
                  "\"options\":{\"play\":[\"L\",\"L\"]}}\n");
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", "--name", "play", play);
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    th_pathf(html, "%s/play.html", e.root);
    r = cairn(&e, "report", e.out, "--html", html);
    TH_REQUIRE(r.status == 0, "report exited %d: %s", r.status, r.err);
    TH_REQUIRE(strstr(r.out, "graded play (options.play): 6 lines, 3 optimal (50.0%)\n"),
               "the share of optimal lines:\n%s", r.out);
    TH_REQUIRE(
        strstr(r.out,
               "\n  stone-game-vii         3         1     33.3%           4        1.33\n") &&
            strstr(r.out,
                   "\n  stone-game-iv          2         2    100.0%           0           0\n"),
        "the cost per variant:\n%s", r.out);
    TH_REQUIRE(strstr(r.out, "first non-optimal ply of stone-game-vii (0: Alice's first move): "
                             "0: 1 1: 1\n"),
               "the first non-optimal plies:\n%s", r.out);
    {
        const char *f = strstr(r.out, "\n  play      6     0 Alice  \"L\"   \"R\"        12"
                                      "  {\"piles\":[3,9,1,2]}\n");
        const char *a = strstr(r.out, "\n  play      1     0 Alice  \"L\"   \"R\"         3"
                                      "  {\"stones\":[5,3,1,4,2]}\n");
        const char *c = strstr(r.out, "\n  play      3     1 Bob    \"R\"   \"L\"         1"
                                      "  {\"stones\":[5,3,1,4,2]}\n");
        /* Per game, in its own units; costliest first within a game. */
        const char *hf = strstr(r.out, "worst blunders of stone-game (the costliest first "
                                       "non-optimal moves; cost in points of the final margin");
        const char *hv = strstr(r.out, "worst blunders of stone-game-vii (");
        const char *hi = strstr(r.out, "worst blunders of stone-game-iv (");

        TH_REQUIRE(f && a && c && hf && hv && hi == NULL && hf < f && f < hv && hv < a && a < c,
                   "the worst blunders, per game, costliest first:\n%s", r.out);
    }
    th_run_free(&r);
    page = th_read_file(html, NULL);
    TH_REQUIRE(strstr(page, "<tr data-variant=\"stone-game-vii\" data-graded=\"3\" "
                            "data-optimal=\"1\" data-cost=\"4\">"),
               "the page's play table:\n%s", page);
    TH_REQUIRE(strstr(page, "<tr data-cost=\"12\"><td class=\"nw\" title=\"play\">play</td>"
                            "<td class=\"n\"><a href=\"#rec-0-6\">6</a></td>") &&
                   strstr(page, "<div class=\"rec\" id=\"rec-0-6\">"),
               "the blunder's link to its record:\n%s", page);
    free(page);
    th_cleanup();
}
END_TEST

START_TEST(report_text)
{
    struct th_env e;
    char wrong[PATH_MAX], *off = example("official.jsonl"), *errors = example("errors.jsonl");
    struct th_run r;

    env_init(&e, NULL);
    th_pathf(wrong, "%s/wrong.jsonl", e.root);
    th_write_text(wrong, "{\"id\":\"m1\",\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},"
                         "\"expected\":\"Alice\"}\n"
                         "{\"id\":\"m2\",\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},"
                         "\"expected\":true}\n");
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", "--name", "off", off);
    th_run_free(&r);
    r = cairn(&e, "submit", "--wait", "--no-check", "--name", "errs", errors);
    th_run_free(&r);
    r = cairn(&e, "submit", "--wait", "--name", "wrong", wrong);
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "report", e.out);
    TH_REQUIRE(r.status == 0, "report exited %d: %s", r.status, r.err);
    TH_REQUIRE(strstr(r.out, "jobs: 3 (3 ok, 0 failed); records: 20, ok 12, errors 8\n"),
               "totals:\n%s", r.out);
    TH_REQUIRE(strstr(r.out, "errors by code: bad_json 1, bad_record 2, unknown_variant 1, "
                             "invalid_input 1, constraint 2, too_large 1, internal 0\n"),
               "codes:\n%s", r.out);
    /* The line that is not JSON names its variant before the mistake: it
     * counts under it. */
    TH_REQUIRE(
        strstr(r.out, "\nerrors of stone-game: bad_json 1, invalid_input 1, constraint 1\n") &&
            strstr(r.out, "\nerrors of none: bad_record 2, unknown_variant 1\n"),
        "errors by code per variant:\n%s", r.out);
    TH_REQUIRE(strstr(r.out, "accuracy of the given answers: 11 checked: 10 match, 1 differ "
                             "(90.9%)\n"),
               "accuracy:\n%s", r.out);
    /* The record's position, from the input kept in .cairn/done/. */
    /* Given: the candidate's answer, the record's "expected"; exact: cairn's. */
    TH_REQUIRE(strstr(r.out, "mismatches of stone-game-iii: 1, 1 shown\n"
                             "  job     line  id    given    exact  position\n"
                             "  wrong      1  \"m1\"  \"Alice\"  \"Bob\"  "
                             "{\"stoneValue\":[1,2,3,7]}\n"),
               "the mismatch:\n%s", r.out);
    /* Accuracy by input size: m1's miss is among stone-game-iii's 3-4. */
    TH_REQUIRE(
        strstr(r.out, "\n  stone-game-iii           3-4         4         3     75.0%\n") &&
            strstr(r.out, "\n  stone-game-ii            5-8         3         3    100.0%\n"),
        "accuracy by size:\n%s", r.out);
    /* Solve times per record: the 12 solved records, not 3 job means. */
    TH_REQUIRE(strstr(r.out, "solve time per record, over 12 solves: p50 <= ") &&
                   strstr(r.out, "throughput: 20 records") &&
                   strstr(r.out, "busy (while a job ran)"),
               "times:\n%s", r.out);
    th_run_free(&r);
    /* Results written without "expected" on mismatches (cairnd before
     * it had them): the record's own, from the spool's .cairn/done/ ... */
    {
        char path[PATH_MAX], *text, *p;
        size_t len;

        TH_OUT(path, &e, "wrong.results.jsonl");
        text = th_read_file(path, &len);
        if ((p = strstr(text, ",\"expected\":\"Alice\"")) != NULL)
            memmove(p, p + 19, strlen(p + 19) + 1);
        TH_REQUIRE(strstr(text, "\"expected\"") == NULL, "cannot strip expected from: %s", text);
        th_write_text(path, text);
        free(text);
    }
    r = cairn(&e, "report", e.out, "wrong");
    TH_REQUIRE(r.status == 0 && strstr(r.out, "\"m1\"  \"Alice\""), "exit %d:\n%s%s", r.status,
               r.out, r.err);
    th_run_free(&r);
    /* ... and without the spool (no -c, no --input), "unavailable". */
    {
        const char *args[] = { "report", e.out, "wrong", NULL };
        r = th_run_cairnd(g_cairn, e.root, args);
    }
    TH_REQUIRE(r.status == 0 && strstr(r.out, "jobs: 1 (1 ok, 0 failed); records: 2") &&
                   strstr(r.out, "\"m1\"  unavailable"),
               "exit %d:\n%s%s", r.status, r.out, r.err);
    th_run_free(&r);
    r = cairn(&e, "report", e.out, "nosuch");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "no job nosuch"), "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "report", e.in);
    TH_REQUIRE(r.status == 2 && strstr(r.err, "no job summaries"), "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    free(off);
    free(errors);
    th_cleanup();
}
END_TEST

/* --fail-on-mismatch: exit 1 when a given answer differs, from submit
 * --wait, wait and report alike; 0 when every one is exact, and without
 * the option whatever the answers. */
START_TEST(fail_on_mismatch_exits_1)
{
    struct th_env e;
    char wrong[PATH_MAX], right[PATH_MAX];
    struct th_run r;

    env_init(&e, NULL);
    th_pathf(wrong, "%s/wrong.jsonl", e.root);
    th_write_text(wrong, "{\"id\":\"m1\",\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},"
                         "\"expected\":\"Alice\"}\n");
    th_pathf(right, "%s/right.jsonl", e.root);
    th_write_text(right, "{\"id\":\"m1\",\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},"
                         "\"expected\":\"Bob\"}\n");
    start_daemon(&e);
    r = cairn(&e, "submit", "--wait", "--fail-on-mismatch", "--name", "wrong", wrong);
    TH_REQUIRE(r.status == 1 && strstr(r.out, "1 differ"),
               "submit --wait --fail-on-mismatch "
               "of a wrong answer: exit %d: %s%s",
               r.status, r.out, r.err);
    th_run_free(&r);
    r = cairn(&e, "wait", "--fail-on-mismatch", "wrong");
    TH_REQUIRE(r.status == 1, "wait --fail-on-mismatch: exit %d: %s%s", r.status, r.out, r.err);
    th_run_free(&r);
    r = cairn(&e, "wait", "wrong");
    TH_REQUIRE(r.status == 0, "wait without the option: exit %d: %s%s", r.status, r.out, r.err);
    th_run_free(&r);
    r = cairn(&e, "report", e.out, "wrong", "--fail-on-mismatch");
    TH_REQUIRE(r.status == 1 && strstr(r.out, "mismatches of stone-game-iii: 1") &&
                   strstr(r.err, "1 checked record differs from the given answers"),
               "report --fail-on-mismatch: exit %d: %s%s", r.status, r.out, r.err);
    th_run_free(&r);
    r = cairn(&e, "submit", "--wait", "--fail-on-mismatch", "--name", "right", right);
    TH_REQUIRE(r.status == 0, "submit --wait --fail-on-mismatch of a right answer: exit %d: %s%s",
               r.status, r.out, r.err);
    th_run_free(&r);
    r = cairn(&e, "report", e.out, "right", "--fail-on-mismatch");
    TH_REQUIRE(r.status == 0, "report --fail-on-mismatch, right: exit %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "status", "--fail-on-mismatch");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "--fail-on-mismatch is not an option of \"status\""),
               "status --fail-on-mismatch: exit %d: %s", r.status, r.err);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* An output directory of one finished job, as cairn-slurm writes it (no
 * solve_seconds), made by hand: no daemon needed to report on it. */
static void slurm_output(char dir[PATH_MAX])
{
    char path[PATH_MAX + 32];

    th_new_dir(dir);
    snprintf(path, sizeof(path), "%s/slurm.summary.json", dir);
    th_write_text(path,
                  "{\"job\":\"slurm\",\"status\":\"ok\",\"records\":2,\"ok\":2,\"errors\":{},"
                  "\"by_variant\":{\"stone-game-ii\":{\"records\":2,\"ok\":2,\"errors\":0}},"
                  "\"matches\":0,\"mismatches\":0,\"bytes\":90,"
                  "\"started\":\"2026-12-02T10:00:00Z\",\"finished\":\"2026-12-02T10:00:01Z\","
                  "\"wall_seconds\":1.0}\n");
    snprintf(path, sizeof(path), "%s/slurm.results.jsonl", dir);
    th_write_text(path,
                  "{\"line\":1,\"variant\":\"stone-game-ii\",\"status\":\"ok\",\"answer\":10}\n"
                  "{\"line\":2,\"variant\":\"stone-game-ii\",\"status\":\"ok\",\"answer\":8}\n");
}

/* cairn report on results files (--filter's here), not an output
 * directory: the counts come from the lines themselves. */
START_TEST(report_on_results_files)
{
    static const char in[] =
        "{\"id\":1,\"variant\":\"877\",\"input\":{\"piles\":[3,7,2,3]},\"expected\":true}\n"
        "{\"id\":2,\"variant\":\"877\",\"input\":{\"piles\":[3,7,2,3]},\"expected\":false}\n"
        "{\"id\":3,\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n"
        "not json\n";
    char dir[PATH_MAX], input[PATH_MAX + 16], results[PATH_MAX + 32], other[PATH_MAX + 32];
    struct th_run r;

    th_new_dir(dir);
    snprintf(input, sizeof(input), "%s/in.jsonl", dir);
    th_write_text(input, in);
    r = th_run_cairnd_stdin(g_cairnd, dir, input,
                            (const char *const[]){ "--filter", "--plugins", g_plugins, NULL });
    TH_REQUIRE(r.status == 0, "--filter exited %d: %s", r.status, r.err);
    snprintf(results, sizeof(results), "%s/bulk.results.jsonl", dir);
    th_write_text(results, r.out);
    th_run_free(&r);
    {
        const char *args[] = { "report", results, NULL };
        r = th_run_cairnd(g_cairn, dir, args);
    }
    TH_REQUIRE(r.status == 0, "report exited %d: %s", r.status, r.err);
    TH_REQUIRE(strstr(r.out, "jobs: 1 (1 ok, 0 failed); records: 4, ok 3, errors 1\n") &&
                   strstr(r.out, "errors by code: bad_json 1") &&
                   strstr(r.out, "accuracy of the given answers: 2 checked: 1 match, 1 differ") &&
                   strstr(r.out, "\n  bulk ") && strstr(r.out, "\nstone-game-iii "),
               "report of a results file:\n%s", r.out);
    th_run_free(&r);
    snprintf(other, sizeof(other), "%s/missing.results.jsonl", dir);
    {
        const char *args[] = { "report", results, other, NULL };
        r = th_run_cairnd(g_cairn, dir, args);
    }
    TH_REQUIRE(r.status != 0 && strstr(r.err, "missing.results.jsonl"),
               "a missing results file: exit %d: %s", r.status, r.err);
    th_run_free(&r);
    /* Several files: the title names them all (up to three), not the first. */
    snprintf(other, sizeof(other), "%s/more.results.jsonl", dir);
    th_copy_file(results, other, 0644);
    {
        const char *args[] = { "report", results, other, NULL };
        r = th_run_cairnd(g_cairn, dir, args);
    }
    TH_REQUIRE(r.status == 0 && strstr(r.out, "cairn report: ") == r.out &&
                   strstr(r.out, "bulk.results.jsonl, ") != NULL &&
                   strstr(r.out, "more.results.jsonl\n") != NULL &&
                   strstr(r.out, "jobs: 2 (2 ok, 0 failed)") != NULL,
               "report of two results files: exit %d:\n%s", r.status, r.out);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* The mismatch table's columns stay put whatever the names and ids. */
START_TEST(report_mismatch_columns_line_up)
{
    static const char rec[] = "{\"id\":\"%s\",\"variant\":\"877\",\"input\":{\"piles\":[3,7,2,3]},"
                              "\"expected\":false}\n";
    struct th_env e;
    char path[PATH_MAX], text[256], *at;
    struct th_run r;
    long col = -1;
    int rows = 0;

    env_init(&e, NULL);
    start_daemon(&e);
    th_pathf(path, "%s/a.jsonl", e.root);
    snprintf(text, sizeof(text), rec, "x");
    th_write_text(path, text);
    r = cairn(&e, "submit", "--wait", "--name", "a", path);
    TH_REQUIRE(r.status == 0, "submit exited %d: %s", r.status, r.err);
    th_run_free(&r);
    th_pathf(path, "%s/b.jsonl", e.root);
    snprintf(text, sizeof(text), rec, "an-id-far-longer-than-sixteen-bytes");
    th_write_text(path, text);
    r = cairn(&e, "submit", "--wait", "--name", "a-job-name-longer-than-twenty-four-bytes", path);
    TH_REQUIRE(r.status == 0, "submit exited %d: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "report", e.out);
    TH_REQUIRE(r.status == 0, "report exited %d: %s", r.status, r.err);
    at = strstr(r.out, "mismatches of stone-game: 2");
    TH_REQUIRE(at != NULL, "no mismatch table:\n%s", r.out);
    /* Every row (and the heading) has its answer column at one offset. */
    for (at = strchr(at, '\n') + 1; at != NULL && at[0] == ' ' && at[1] == ' ';) {
        char *nl = strchr(at, '\n'), *ans;

        *nl = '\0';
        ans = strstr(at, "exact");
        if (ans == NULL)
            ans = strstr(at, "true");
        TH_REQUIRE(ans != NULL, "no answer column in: %s", at);
        if (col < 0)
            col = (long)(ans - at);
        TH_REQUIRE((long)(ans - at) == col, "the answer column moves: row %d: %s", rows, at);
        rows++;
        at = nl + 1;
    }
    TH_REQUIRE(rows == 3, "%d rows in the mismatch table", rows);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* Busy time is measured by wall_seconds, not by started and finished,
 * which are written to the millisecond: a job of 1.6 ms between
 * "...00.000Z" and "...00.002Z" is 1.60 ms busy, 10 records in it
 * 6250 records/s (2 ms would say 5000). */
START_TEST(report_busy_time_is_measured_by_wall_seconds)
{
    char dir[PATH_MAX], path[PATH_MAX + 32];
    struct th_run r;

    th_new_dir(dir);
    snprintf(path, sizeof(path), "%s/quick.summary.json", dir);
    th_write_text(path, "{\"job\":\"quick\",\"status\":\"ok\",\"records\":10,\"ok\":10,"
                        "\"errors\":{},\"by_variant\":{\"stone-game-ii\":{\"records\":10,"
                        "\"ok\":10,\"errors\":0}},\"matches\":0,\"mismatches\":0,\"bytes\":600,"
                        "\"started\":\"2026-12-02T10:00:00.000Z\","
                        "\"finished\":\"2026-12-02T10:00:00.002Z\",\"wall_seconds\":0.0016}\n");
    {
        const char *args[] = { "report", dir, NULL };
        r = th_run_cairnd(g_cairn, dir, args);
    }
    TH_REQUIRE(r.status == 0 && strstr(r.out, "in 1.60 ms busy") != NULL &&
                   strstr(r.out, ": 6250 records/s") != NULL,
               "busy time of a 1.6 ms job:\n%s", r.out);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* An empty job and a failed one answered nothing, so they lack no solve
 * time: the report leaves no "jobs without per-record solve times" note
 * for them (it named 7 such jobs in a fresh-eyes trial). */
START_TEST(report_notes_no_missing_times_for_jobs_without_answers)
{
    struct th_env e;
    char path[PATH_MAX];
    struct th_run r;
    int p;

    env_init(&e, NULL);
    p = start_daemon(&e);
    th_pathf(path, "%s/fine.jsonl", e.root);
    th_write_text(path, "{\"variant\":\"stone-game-iv\",\"input\":{\"n\":7}}\n");
    r = cairn(&e, "submit", "--wait", "--name", "fine", path);
    TH_REQUIRE(r.status == 0, "fine: exit %d: %s%s", r.status, r.out, r.err);
    th_run_free(&r);
    th_pathf(path, "%s/empty.jsonl", e.root);
    th_write_text(path, "");
    r = cairn(&e, "submit", "--wait", "--no-check", "--name", "empty", path);
    th_run_free(&r);
    th_pathf(path, "%s/bad.jsonl", e.root);
    th_write_text(path, "not json\n");
    r = cairn(&e, "submit", "--wait", "--no-check", "--name", "bad", path);
    th_run_free(&r);
    r = cairn(&e, "report", e.out);
    TH_REQUIRE(r.status == 0 && strstr(r.out, "jobs: 3 ") != NULL, "report: exit %d: %s%s",
               r.status, r.out, r.err);
    TH_REQUIRE(strstr(r.out, "without per-record solve times") == NULL &&
                   strstr(r.out, "without solve_seconds") == NULL,
               "a note about jobs that answered nothing:\n%s", r.out);
    th_run_free(&r);
    th_stop(p);
    th_cleanup();
}
END_TEST

/* A summary without solve_seconds (cairn-slurm's) has an unknown solve
 * time: "-", never 0 s, and the timed jobs' figures leave it out. */
START_TEST(report_counts_a_missing_solve_time_as_unknown)
{
    char dir[PATH_MAX], html[PATH_MAX + 32], *page;
    struct th_run r;

    slurm_output(dir);
    snprintf(html, sizeof(html), "%s/report.html", dir);
    {
        const char *args[] = { "report", dir, "--html", html, NULL };
        r = th_run_cairnd(g_cairn, dir, args);
    }
    TH_REQUIRE(r.status == 0, "report exited %d: %s", r.status, r.err);
    TH_REQUIRE(strstr(r.out, "solve time, all records: - (1 job without solve_seconds left out)\n"),
               "the total solve time of an untimed job:\n%s", r.out);
    /* Two records in one second: a slow rate keeps a decimal. */
    TH_REQUIRE(strstr(r.out, "busy (while a job ran): 2.0 records/s"), "the throughput:\n%s",
               r.out);
    TH_REQUIRE(strstr(r.out, "\nstone-game-ii ") && strstr(r.out, "             -\n"),
               "the variant's solve/record of an untimed job:\n%s", r.out);
    th_run_free(&r);
    page = th_read_file(html, NULL);
    TH_REQUIRE(strstr(page, "id=\"throughput\">2.0<"), "the page's throughput card:\n%s", page);
    TH_REQUIRE(strstr(page, "No per-record solve times: the summaries carry no solve_histogram") &&
                   !strstr(page, "no record was solved"),
               "the page's solve-time chart of an untimed job:\n%s", page);
    free(page);
    th_cleanup();
}
END_TEST

static struct th_run report_html_to(const char *dir, const char *html)
{
    const char *args[] = { "report", dir, "--html", html, NULL };

    return th_run_cairnd(g_cairn, dir, args);
}

/* --html PATH replaces PATH by rename only when it is absent or a regular
 * file: a FIFO, a device, a link to /dev/stdout are written in place and
 * stay what they were; a link to a regular file updates that file and
 * stays a link; a directory is refused. */
START_TEST(report_html_keeps_what_path_is)
{
    char dir[PATH_MAX], p[PATH_MAX + 32], file[PATH_MAX + 32], *text;
    struct th_run r;
    struct stat st;
    int fd;

    slurm_output(dir);
    /* A link to stdout: the page is the command's output. */
    snprintf(p, sizeof(p), "%s/to-stdout.html", dir);
    ck_assert_int_eq(symlink("/dev/stdout", p), 0);
    r = report_html_to(dir, p);
    TH_REQUIRE(r.status == 0 && strstr(r.out, "</html>") != NULL, "link to stdout: exit %d: %s",
               r.status, r.err);
    th_run_free(&r);
    TH_REQUIRE(lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "the link to /dev/stdout was replaced");
    /* A FIFO with a reader. */
    snprintf(p, sizeof(p), "%s/fifo.html", dir);
    ck_assert_int_eq(mkfifo(p, 0644), 0);
    fd = open(p, O_RDONLY | O_NONBLOCK);
    ck_assert_int_ge(fd, 0);
    r = report_html_to(dir, p);
    TH_REQUIRE(r.status == 0, "fifo: exit %d: %s", r.status, r.err);
    th_run_free(&r);
    {
        char buf[256];
        ssize_t n = read(fd, buf, sizeof(buf) - 1);

        buf[n > 0 ? n : 0] = '\0';
        TH_REQUIRE(n > 0 && strstr(buf, "<!DOCTYPE html>") != NULL,
                   "nothing came through the FIFO");
    }
    close(fd);
    TH_REQUIRE(lstat(p, &st) == 0 && S_ISFIFO(st.st_mode), "the FIFO was replaced");
    /* A character device (the null device, made here when we may). */
    snprintf(p, sizeof(p), "%s/null.html", dir);
    if (mknod(p, S_IFCHR | 0666, makedev(1, 3)) == 0) {
        r = report_html_to(dir, p);
        TH_REQUIRE(r.status == 0, "device: exit %d: %s", r.status, r.err);
        th_run_free(&r);
        TH_REQUIRE(lstat(p, &st) == 0 && S_ISCHR(st.st_mode), "the device node was replaced");
    }
    /* A link to a regular file: the file gets the page, the link stays. */
    snprintf(file, sizeof(file), "%s/real.html", dir);
    th_write_text(file, "old\n");
    snprintf(p, sizeof(p), "%s/link.html", dir);
    ck_assert_int_eq(symlink("real.html", p), 0);
    r = report_html_to(dir, p);
    TH_REQUIRE(r.status == 0, "link to a file: exit %d: %s", r.status, r.err);
    th_run_free(&r);
    TH_REQUIRE(lstat(p, &st) == 0 && S_ISLNK(st.st_mode), "the link to a file was replaced");
    text = th_read_file(file, NULL);
    TH_REQUIRE(strstr(text, "</html>") != NULL, "the linked file did not get the page");
    free(text);
    /* A directory: refused, named, a usage error (exit 2) as any path
     * that cannot be the page. */
    snprintf(p, sizeof(p), "%s/adir", dir);
    ck_assert_int_eq(mkdir(p, 0755), 0);
    r = report_html_to(dir, p);
    TH_REQUIRE(r.status == 2 && strstr(r.err, "is a directory") != NULL, "directory: exit %d: %s",
               r.status, r.err);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* No byte a terminal acts on (C0 but the line ends, DEL) in s, and no
 * line of it starting with "forged". */
static void require_inert(const char *what, const char *s)
{
    for (const char *p = s; *p != '\0'; p++)
        TH_REQUIRE(((unsigned char)*p >= 0x20 && *p != 0x7f) || *p == '\n',
                   "%s: a raw control byte %#x at offset %td:\n%s", what, (unsigned char)*p, p - s,
                   s);
    TH_REQUIRE(strncmp(s, "forged", 6) != 0 && strstr(s, "\nforged") == NULL,
               "%s: a name forged a line:\n%s", what, s);
}

/* Job names holding ESC, BEL and a newline reach the terminal escaped,
 * in every command's text: status (waiting, failed, its reason), wait,
 * report, retry and the error messages. */
START_TEST(client_output_escapes_control_bytes)
{
    static const char evil[] = "t\x1b]0;pwned\x07\x1b[2J\nforged: ok";
    struct th_env e;
    char path[PATH_MAX + 64], *name;
    struct th_run r;

    env_init(&e, NULL);
    snprintf(path, sizeof(path), "%s/%s.jsonl", e.in, evil);
    th_write_text(path, official_jsonl);
    snprintf(path, sizeof(path), "%s/%s-link.jsonl", e.in, evil);
    ck_assert_int_eq(symlink("/etc/hostname", path), 0);
    r = cairn(&e, "status");
    require_inert("status, jobs waiting", r.out);
    TH_REQUIRE(strstr(r.out, "t\\x1b]0;pwned\\x07\\x1b[2J\\x0aforged: ok") != NULL,
               "status does not show the name escaped:\n%s", r.out);
    th_run_free(&r);
    start_daemon(&e);
    r = cairn(&e, "wait", "--timeout", "20", evil);
    TH_REQUIRE(r.status == 0, "wait: exit %d: %s", r.status, r.err);
    require_inert("wait", r.out);
    require_inert("wait's stderr", r.err);
    th_run_free(&r);
    name = th_xasprintf("%s-link", evil);
    r = cairn(&e, "wait", "--timeout", "20", name);
    require_inert("wait for a failed job", r.out);
    th_run_free(&r);
    r = cairn(&e, "status");
    require_inert("status, a failed job", r.out);
    th_run_free(&r);
    r = cairn(&e, "report", e.out);
    TH_REQUIRE(r.status == 0, "report: exit %d: %s", r.status, r.err);
    require_inert("report", r.out);
    th_run_free(&r);
    r = cairn(&e, "retry", name);
    require_inert("retry", r.out);
    require_inert("retry's stderr", r.err);
    th_run_free(&r);
    r = cairn(&e, "results", "no\x1b[2Jsuch\nforged");
    TH_REQUIRE(r.status != 0, "results of no job: exit %d", r.status);
    require_inert("an error message", r.err);
    th_run_free(&r);
    free(name);
    th_cleanup();
}
END_TEST

/* On a terminal (script(1)), submit --wait redraws a progress line from
 * the daemon's status file; the outcome comes once the daemon is up. */
START_TEST(progress_on_a_terminal)
{
    struct th_env e;
    char *off = example("official.jsonl"), *cmd, *file, active[512], logp[PATH_MAX];
    char *argv[] = { "/usr/bin/script", "-qec", NULL, "/dev/null", NULL };
    int p;

    if (access("/usr/bin/script", X_OK) != 0) {
        fprintf(stderr, "progress_on_a_terminal: script(1) is not installed: skipped\n");
        return;
    }
    env_init(&e, NULL);
    mkdir(e.out, 0755);
    cmd = th_xasprintf("'%s' -c '%s' submit --wait --timeout 60 '%s'", g_cairn, e.cfg, off);
    argv[2] = cmd;
    p = th_spawn(e.root, argv);
    file = waiting_job(e.in);
    TH_EVENTUALLY(th_log_has(p, "waiting in the spool"), DEADLINE_MS,
                  "no progress line while waiting");
    /* Claimed, nothing read yet: not "0 B of 0 B (0%), 0 records". */
    snprintf(active, sizeof(active),
             "{\"job\":\"%.*s\",\"input\":\"%s\",\"size\":0,\"bytes\":0,\"records\":0,"
             "\"started\":\"2026-11-30T21:00:01.000Z\"}",
             (int)(strlen(file) - 6), file, file);
    write_status_file(&e, "d.json", 0, active);
    TH_EVENTUALLY(th_log_has(p, ": starting"), DEADLINE_MS, "a job just claimed is not 'starting'");
    TH_REQUIRE(!th_log_has(p, "0 B of 0 B"), "a job just claimed shows 0 B of 0 B");
    snprintf(active, sizeof(active),
             "{\"job\":\"%.*s\",\"input\":\"%s\",\"size\":708,\"bytes\":354,\"records\":4,"
             "\"started\":\"2026-11-30T21:00:01.000Z\"}",
             (int)(strlen(file) - 6), file, file);
    write_status_file(&e, "d.json", 0, active);
    TH_EVENTUALLY(th_log_has(p, "354 B of 708 B (50%), 4 records"), DEADLINE_MS,
                  "the progress line does not show the status file's figures");
    start_daemon(&e);
    ck_assert_int_eq(th_wait_exit(p, DEADLINE_MS), 0);
    TH_REQUIRE(th_log_has(p, ": ok, 8 records: 8 ok"), "no outcome line");
    th_pathf(logp, "%s", th_log[p]);
    TH_REQUIRE(th_file_contains(logp, "\r\033[K"), "the line is not redrawn in place");
    free(file);
    free(cmd);
    free(off);
    th_cleanup();
}
END_TEST

/* ---- hardening: what a refused, damaged or cut-short command leaves -- */

/* A retry refused because a job of the name waits in the spool changes
 * nothing: the failed job, its summary and its reason stay. */
START_TEST(retry_refused_changes_nothing)
{
    struct th_env e;
    char *off = example("official.jsonl"), failed[PATH_MAX], sum[PATH_MAX], reason[PATH_MAX];
    struct th_run r;
    int p;

    env_init(&e, NULL);
    r = cairn(&e, "submit", "--name", "broken", off);
    th_run_free(&r);
    make_link(&e, "broken.jsonl");
    p = start_daemon(&e);
    TH_IN(failed, &e, ".cairn/failed/broken.jsonl");
    TH_IN(reason, &e, ".cairn/failed/broken.reason.json");
    TH_OUT(sum, &e, "broken.summary.json");
    TH_EVENTUALLY(th_exists(failed) && th_exists(sum) && th_exists(reason), DEADLINE_MS,
                  "broken never failed");
    th_stop(p);
    /* A new job of the same name, waiting (no daemon takes it now). */
    th_drop_job(e.in, "broken.jsonl", official_jsonl, strlen(official_jsonl));
    r = cairn(&e, "retry", "broken");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "waiting in the spool") != NULL, "exit %d: %s%s",
               r.status, r.out, r.err);
    th_run_free(&r);
    r = cairn(&e, "retry", "--failed");
    TH_REQUIRE(r.status == 2 && strstr(r.err, "waiting in the spool") != NULL,
               "--failed: exit %d: %s%s", r.status, r.out, r.err);
    th_run_free(&r);
    TH_REQUIRE(th_exists(failed) && th_exists(reason), "the failed job or its reason moved");
    TH_REQUIRE(th_file_contains(sum, "\"status\":\"failed\""),
               "the failed summary is gone after a refused retry: out/ has %s",
               th_list_dir(e.out, " "));
    free(off);
    th_cleanup();
}
END_TEST

/* A results file written by hand, for `cairn report FILE`. */
static void write_results(const struct th_env *e, const char *name, const char *text, char *path)
{
    th_pathf(path, "%s/%s", e->root, name);
    th_write_text(path, text);
}

/* Costs are integers, printed in full in text and on the page. */
START_TEST(report_prints_costs_exactly)
{
    struct th_env e;
    char res[PATH_MAX], html[PATH_MAX], *page;
    struct th_run r;

    env_init(&e, NULL);
    write_results(
        &e, "big.results.jsonl",
        "{\"line\":1,\"variant\":\"stone-game-ii\",\"status\":\"ok\",\"answer\":1,\"play\":"
        "{\"optimal\":false,\"ply\":0,\"by\":\"Alice\",\"move\":1,\"value\":-9999999998,"
        "\"best\":2,\"best_value\":9999999998,\"cost\":19999999996}}\n"
        "{\"line\":2,\"variant\":\"stone-game-v\",\"status\":\"ok\",\"answer\":1,\"play\":"
        "{\"optimal\":false,\"ply\":0,\"by\":\"Alice\",\"move\":3,\"value\":1,\"best\":1,"
        "\"best_value\":15402166,\"cost\":15402165}}\n"
        "{\"line\":3,\"variant\":\"stone-game-v\",\"status\":\"ok\",\"answer\":1,\"play\":"
        "{\"optimal\":true,\"plies\":1,\"value\":1}}\n",
        res);
    th_pathf(html, "%s/big.html", e.root);
    r = cairn(&e, "report", res, "--html", html);
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    TH_REQUIRE(strstr(r.out, "e+") == NULL, "a cost in exponent form:\n%s", r.out);
    TH_REQUIRE(strstr(r.out, " 19999999996  {") || strstr(r.out, " 19999999996  unavailable"),
               "the blunder's cost:\n%s", r.out);
    TH_REQUIRE(strstr(r.out, "\n  stone-game-ii         1         0      0.0% 19999999996 "
                             "19999999996\n") &&
                   strstr(r.out, "\n  stone-game-v          2         1     50.0%    15402165 "
                                 " 7701082.50\n"),
               "the cost per variant:\n%s", r.out);
    th_run_free(&r);
    page = th_read_file(html, NULL);
    TH_REQUIRE(strstr(page, "e+") == NULL && strstr(page, "data-cost=\"19999999996\"") &&
                   strstr(page, "data-cost=\"15402165\"") &&
                   strstr(page, "<td class=\"n\">7701082.50</td>"),
               "the page's costs:\n%s", page);
    free(page);
    th_cleanup();
}
END_TEST

/* A summary that cannot be read is named, never dropped in silence. */
START_TEST(report_names_a_damaged_summary)
{
    struct th_env e;
    char path[PATH_MAX];
    struct th_run r;

    env_init(&e, NULL);
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    TH_OUT(path, &e, "a.summary.json");
    th_write_text(path, "{\"job\":\"a\",\"status\":\"ok\",\"records\":0,\"ok\":0}\n");
    TH_OUT(path, &e, "b.summary.json");
    th_write_text(path, "{\"job\":\"b\",\"status\":\"ok\",\"reco");
    r = cairn(&e, "report", e.out);
    TH_REQUIRE(r.status == 0 && strstr(r.err, "b.summary.json cannot be read: line 1") != NULL,
               "exit %d, stderr: %s", r.status, r.err);
    th_run_free(&r);
    r = cairn(&e, "report", e.out, "b");
    TH_REQUIRE(r.status != 0 && strstr(r.err, "b.summary.json cannot be read: line 1") != NULL &&
                   strstr(r.err, "nothing to report") == NULL,
               "exit %d, stderr: %s", r.status, r.err);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* A graded line of play without "best" is a damaged line, not a lack of
 * memory: its file, line and key are named. */
START_TEST(report_names_a_play_line_without_a_key)
{
    struct th_env e;
    char res[PATH_MAX];
    struct th_run r;

    env_init(&e, NULL);
    write_results(
        &e, "cut.results.jsonl",
        "{\"line\":1,\"variant\":\"stone-game-vii\",\"status\":\"ok\",\"answer\":6,\"play\":"
        "{\"optimal\":false,\"ply\":0,\"by\":\"Alice\",\"move\":\"L\",\"value\":3,\"best\":\"R\","
        "\"best_value\":6,\"cost\":3}}\n"
        "{\"line\":2,\"variant\":\"stone-game-vii\",\"status\":\"ok\",\"answer\":6,\"play\":"
        "{\"optimal\":false,\"ply\":0,\"by\":\"Alice\",\"move\":\"L\",\"value\":3,\"cost\":3}}\n",
        res);
    r = cairn(&e, "report", res);
    TH_REQUIRE(r.status == 0 && strstr(r.err, "cut.results.jsonl:2: \"play\" has no \"best\"") &&
                   strstr(r.err, "Cannot allocate memory") == NULL,
               "exit %d, stderr: %s", r.status, r.err);
    TH_REQUIRE(strstr(r.out, "graded play (options.play): 2 lines, 0 optimal"),
               "the damaged line is still a graded one:\n%s", r.out);
    th_run_free(&r);
    th_cleanup();
}
END_TEST

/* cairn -c CFG args... with standard output onto /dev/full. */
static struct th_run cairn_to_full(const struct th_env *e, const char *const *args)
{
    char *err_path = th_xasprintf("%s/stderr-full.txt", e->root);
    char *argv[16];
    struct th_run r = { 0 };
    size_t n = 0;
    int st;
    pid_t pid;

    argv[n++] = (char *)g_cairn;
    argv[n++] = "-c";
    argv[n++] = (char *)e->cfg;
    while (*args != NULL && n < 15)
        argv[n++] = (char *)*args++;
    argv[n] = NULL;
    fflush(NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int out = open("/dev/full", O_WRONLY);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (out < 0 || err < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        execv(g_cairn, argv);
        _exit(127);
    }
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    r.err = th_read_file(err_path, NULL);
    r.out = strdup("");
    free(err_path);
    return r;
}

/* The job's name is all a producer gets back: a name that cannot be
 * written is an error, and said. */
START_TEST(submit_onto_a_full_stdout_says_so)
{
    struct th_env e;
    char *off = example("official.jsonl");
    const char *args[] = { "submit", off, NULL };
    struct th_run r;

    if (!th_exists("/dev/full")) {
        printf("skipped: no /dev/full\n");
        free(off);
        return;
    }
    env_init(&e, NULL);
    r = cairn_to_full(&e, args);
    TH_REQUIRE(r.status == 1 && strstr(r.err, "No space left on device") != NULL &&
                   strstr(r.err, "official-") != NULL,
               "exit %d, stderr: %s", r.status, r.err);
    th_run_free(&r);
    free(off);
    th_cleanup();
}
END_TEST

/* A submit killed between its two renames leaves its job under
 * .cairn-submit.HEX.j.tmp: the next submit removes it when its companion
 * lock (.cairn.HEX.l.tmp) is not held, and keeps it while it is. */
START_TEST(submit_removes_a_killed_submits_held_job)
{
    static const char dead[] = "0123456789abcdef0123456789abcdef",
                      live[] = "fedcba9876543210fedcba9876543210";
    struct th_env e;
    char *off = example("official.jsonl"), held_dead[PATH_MAX], held_live[PATH_MAX],
         lock_live[PATH_MAX];
    struct th_run r;
    int fd;

    env_init(&e, NULL);
    TH_IN(held_dead, &e, ".cairn-submit.%s.j.tmp", dead);
    TH_IN(held_live, &e, ".cairn-submit.%s.j.tmp", live);
    TH_IN(lock_live, &e, ".cairn.%s.l.tmp", live);
    th_write_text(held_dead, official_jsonl);
    th_write_text(held_live, official_jsonl);
    th_write_text(lock_live, "");
    fd = open(lock_live, O_RDONLY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX | LOCK_NB), 0); /* a live submit, mid-way */
    r = cairn(&e, "submit", off);
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    TH_REQUIRE(!th_exists(held_dead), "a killed submit's job is still there: %s",
               th_list_dir(e.in, " "));
    TH_REQUIRE(th_exists(held_live) && th_exists(lock_live),
               "a live submit's job or its lock was removed: %s", th_list_dir(e.in, " "));
    close(fd);
    free(off);
    th_cleanup();
}
END_TEST

/* Names the summary escapes (a backslash, a byte that is not UTF-8) are
 * the job's own run, not "ran as" another. */
START_TEST(wait_compares_escaped_names_as_bytes)
{
    static const char *const names[] = { "back\\slash", "latin\xe9" };
    struct th_env e;
    char *off = example("official.jsonl");
    struct th_run r;
    size_t i;

    env_init(&e, NULL);
    start_daemon(&e);
    for (i = 0; i < 2; i++) {
        r = cairn(&e, "submit", "--wait", "--name", names[i], off);
        TH_REQUIRE(r.status == 0 && strstr(r.out, "ran as") == NULL && strstr(r.out, ": ok, 8"),
                   "submit --wait --name %s: exit %d: %s%s", names[i], r.status, r.out, r.err);
        th_run_free(&r);
        r = cairn(&e, "wait", names[i]);
        TH_REQUIRE(r.status == 0 && strstr(r.out, "ran as") == NULL && strstr(r.out, ": ok, 8"),
                   "wait %s: exit %d: %s%s", names[i], r.status, r.out, r.err);
        th_run_free(&r);
    }
    free(off);
    th_cleanup();
}
END_TEST

/* A producer's umask 077 must not make the job unreadable to a daemon that
 * reads the spool through its group. */
START_TEST(submit_under_umask_077_is_group_readable)
{
    struct th_env e;
    char *off = example("official.jsonl"), job[PATH_MAX];
    struct th_run r;
    struct stat st;
    mode_t old;

    env_init(&e, NULL);
    old = umask(077);
    r = cairn(&e, "submit", "--name", "private", off);
    umask(old);
    TH_REQUIRE(r.status == 0, "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    TH_IN(job, &e, "private.jsonl");
    ck_assert_int_eq(stat(job, &st), 0);
    TH_REQUIRE((st.st_mode & 0777) == 0640, "the job's mode is %04o, not 0640",
               (unsigned)(st.st_mode & 0777));
    free(off);
    th_cleanup();
}
END_TEST

/* ---- the wait across a rotated output directory and skewed clocks ---- */

/* 1 when process pid has an inotify watch on directory dir (its
 * /proc/PID/fdinfo lines "inotify wd:N ino:HEX sdev:HEX ..."): the signal
 * that a `cairn wait` has begun watching, before the test changes what it
 * watches. */
static int watches(pid_t pid, const char *dir)
{
    char path[64], *names, *p, *save = NULL;
    struct stat st;
    int found = 0;

    if (stat(dir, &st) != 0)
        return 0;
    snprintf(path, sizeof(path), "/proc/%ld/fdinfo", (long)pid);
    names = th_list_dir(path, "\n");
    for (p = strtok_r(names, "\n", &save); p != NULL && !found; p = strtok_r(NULL, "\n", &save)) {
        char file[PATH_MAX], *text, *at;

        snprintf(file, sizeof(file), "/proc/%ld/fdinfo/%s", (long)pid, p);
        /* The wait opens and closes files as it looks: a descriptor
         * listed a moment ago may be gone. */
        if ((text = th_slurp(file, NULL)) == NULL)
            continue;
        for (at = text; at != NULL && (at = strstr(at, "inotify wd:")) != NULL && !found; at++) {
            unsigned long long ino;
            const char *i = strstr(at, " ino:");

            found = i != NULL && sscanf(i, " ino:%llx", &ino) == 1 &&
                    ino == (unsigned long long)st.st_ino;
        }
        free(text);
    }
    free(names);
    return found;
}

/* `cairn wait NAME` in the background (a th_spawn process). */
static int spawn_wait(const struct th_env *e, const char *name)
{
    char *argv[] = { (char *)g_cairn, "-c", (char *)e->cfg, "wait", (char *)name, NULL };

    return th_spawn(e->root, argv);
}

/* The output directory rotated (mv OUT OUT.old && mkdir OUT, which the
 * daemon follows by its path) while `cairn wait` waits: a job that has
 * not begun finishes in the new directory, one running finishes in the
 * old one (docs/contract.md), and the wait reports both. */
START_TEST(wait_follows_a_rotated_output_directory)
{
    struct th_env e;
    char gate[PATH_MAX], old1[PATH_MAX], old2[PATH_MAX], path[PATH_MAX], *slow, *said;
    size_t len;
    int p;

    env_init(&e, NULL);
    th_plugins_with_slow(e.root, e.plugins);
    th_close_slow_gate(e.root, gate);
    th_pathf(old1, "%s/out.old1", e.root);
    th_pathf(old2, "%s/out.old2", e.root);
    mkdir(e.out, 0755); /* as a daemon that is not running made it */

    /* Waiting in the spool, no daemon yet: the wait watches out/, which
     * is then rotated; the daemon started after writes to the new out/. */
    th_drop_job(e.in, "b.jsonl", official_jsonl, strlen(official_jsonl));
    p = spawn_wait(&e, "b");
    TH_EVENTUALLY(watches(th_pid[p], e.out), DEADLINE_MS, "cairn wait b never watched %s", e.out);
    ck_assert_int_eq(rename(e.out, old1), 0);
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    start_daemon(&e);
    TH_OUT(path, &e, "b.summary.json");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "b never finished in the new %s", e.out);
    ck_assert_int_eq(th_wait_exit(p, DEADLINE_MS), 0);
    TH_REQUIRE(th_log_has(p, "b: ok, 8 records"), "wait b did not report b");

    /* Running (held at the gate) when out/ is rotated: it finishes in the
     * directory it began in, now out.old2, and the wait says where. */
    slow = th_slow_job(1, 1, &len);
    th_drop_job(e.in, "s.jsonl", slow, len);
    free(slow);
    TH_IN(path, &e, ".cairn/active/s.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "s was never claimed");
    p = spawn_wait(&e, "s");
    TH_EVENTUALLY(watches(th_pid[p], e.out), DEADLINE_MS, "cairn wait s never watched %s", e.out);
    ck_assert_int_eq(rename(e.out, old2), 0);
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    th_open_gate(gate);
    ck_assert_int_eq(th_wait_exit(p, DEADLINE_MS), 0);
    th_pathf(path, "%s/s.summary.json", old2);
    TH_REQUIRE(th_exists(path), "s did not finish in the directory it began in");
    TH_REQUIRE(th_log_has(p, "s: ok, 1 record"), "wait s did not report s");
    {
        char real[PATH_MAX];

        TH_REQUIRE(realpath(old2, real) != NULL, "%s: %s", old2, strerror(errno));
        said = th_xasprintf("s: its outputs are in %s", real);
    }
    TH_REQUIRE(th_log_has(p, said), "wait s did not say where its outputs are: no \"%s\"", said);
    free(said);
    th_cleanup();
}
END_TEST

/* Starts the daemon with its wall clock shift_s seconds off the file
 * times of the spool (clock_shift.c), as on a second host over NFS. */
static int start_daemon_shifted(const struct th_env *e, const char *shift_s)
{
    const char *shim = getenv("CAIRN_TEST_CLOCK_SHIFT"), *asan = getenv("ASAN_OPTIONS");
    char asan_opts[512];
    int p;

    ck_assert_msg(shim != NULL, "CAIRN_TEST_CLOCK_SHIFT is not set (run through meson test)");
    snprintf(asan_opts, sizeof(asan_opts), "%s:verify_asan_link_order=0", asan ? asan : "");
    /* Check forks each test: these reach this test's processes only. */
    setenv("ASAN_OPTIONS", asan_opts, 1);
    setenv("LD_PRELOAD", shim, 1);
    setenv("CAIRN_CLOCK_SHIFT_S", shift_s, 1);
    p = start_daemon(e);
    unsetenv("LD_PRELOAD");
    unsetenv("CAIRN_CLOCK_SHIFT_S");
    return p;
}

/* A daemon 3 s behind the spool's file times: its summary's "started" is
 * before the job file's ctime.  submit --wait and wait still take the
 * run, known by its input's inode and submitted name, not by a time. */
START_TEST(wait_takes_its_run_from_a_daemon_whose_clock_is_behind)
{
    struct th_env e;
    char *off = example("official.jsonl"), gate[PATH_MAX], path[PATH_MAX], timeout[32], *slow;
    struct th_run r;
    size_t len;
    json_t *s;
    int p;

    env_init(&e, NULL);
    th_plugins_with_slow(e.root, e.plugins);
    th_close_slow_gate(e.root, gate);
    start_daemon_shifted(&e, "-3");
    /* A deadline against the old hang, as a timeout of the wait's own. */
    snprintf(timeout, sizeof(timeout), "%.0f", th_scaled_ms(DEADLINE_MS) / 1000.0);
    r = cairn(&e, "submit", "--wait", "--timeout", timeout, "--name", "skewed", off);
    TH_REQUIRE(r.status == 0 && strstr(r.out, "skewed: ok, 8 records") != NULL,
               "submit --wait with the daemon 3 s behind: exit %d: %s%s", r.status, r.out, r.err);
    th_run_free(&r);
    /* The summary is what the daemon's clock said: before the file's times. */
    s = summary_of(&e, "skewed");
    TH_IN(path, &e, ".cairn/done/skewed.jsonl");
    {
        struct stat st;
        struct timespec t;
        struct tm tm = { 0 };
        int ms;

        ck_assert_int_eq(stat(path, &st), 0);
        ck_assert_int_eq(sscanf(th_str_field(s, "started"), "%d-%d-%dT%d:%d:%d.%dZ", &tm.tm_year,
                                &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms),
                         7);
        tm.tm_year -= 1900;
        tm.tm_mon -= 1;
        t.tv_sec = timegm(&tm);
        TH_REQUIRE(t.tv_sec < st.st_ctim.tv_sec, "the shim did not put the daemon behind: %s",
                   th_str_field(s, "started"));
    }
    json_decref(s);

    /* `cairn wait` on a job the daemon is running. */
    slow = th_slow_job(1, 1, &len);
    th_drop_job(e.in, "held.jsonl", slow, len);
    free(slow);
    TH_IN(path, &e, ".cairn/active/held.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "held was never claimed");
    p = spawn_wait(&e, "held");
    TH_EVENTUALLY(watches(th_pid[p], e.out), DEADLINE_MS, "cairn wait held never watched %s",
                  e.out);
    th_open_gate(gate);
    ck_assert_int_eq(th_wait_exit(p, DEADLINE_MS), 0);
    TH_REQUIRE(th_log_has(p, "held: ok, 1 record"), "wait held did not report held");
    free(off);
    th_cleanup();
}
END_TEST

/* The same file handed over again under its name (its input kept in
 * done/, moved back): the new run (NAME~2) has the inode and submitted
 * name of the first.  `cairn wait` while it runs reports the new run,
 * never the finished one. */
START_TEST(wait_for_a_resubmitted_file_takes_its_new_run)
{
    struct th_env e;
    char gate[PATH_MAX], path[PATH_MAX], done[PATH_MAX], in[PATH_MAX], *slow;
    size_t len;
    int p;

    env_init(&e, NULL);
    th_plugins_with_slow(e.root, e.plugins);
    th_close_slow_gate(e.root, gate);
    th_open_gate(gate); /* the daemon knows the gate; the first run passes */
    start_daemon(&e);
    slow = th_slow_job(1, 1, &len);
    th_drop_job(e.in, "a.jsonl", slow, len);
    free(slow);
    TH_IN(done, &e, ".cairn/done/a.jsonl");
    TH_EVENTUALLY(th_exists(done), DEADLINE_MS, "the first run of a never finished");
    th_write_text(gate, ""); /* closed for the second */
    TH_IN(in, &e, "a.jsonl");
    ck_assert_int_eq(rename(done, in), 0);
    TH_IN(path, &e, ".cairn/active/a~2.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "a was not claimed again as a~2");
    p = spawn_wait(&e, "a");
    /* (or it has ended already, having taken the first run) */
    TH_EVENTUALLY(watches(th_pid[p], e.out) || !th_running(p), DEADLINE_MS,
                  "cairn wait a never watched %s", e.out);
    th_open_gate(gate);
    ck_assert_int_eq(th_wait_exit(p, DEADLINE_MS), 0);
    TH_REQUIRE(th_log_has(p, "a: ran as a~2"), "wait a reported the first run, not the new one");
    th_cleanup();
}
END_TEST

/* Two runs that both claim the file the wait follows (its inode and
 * submitted name) appear at once: which is its run cannot be told, and
 * the wait says so and ends (exit 1) instead of choosing or hanging.  The
 * two appear in an output directory swapped in whole, as a restore from
 * a copy would bring them. */
START_TEST(wait_says_when_its_run_is_ambiguous)
{
    struct th_env e;
    char staged[PATH_MAX], old[PATH_MAX], path[PATH_MAX];
    struct stat st;
    int p, k;

    env_init(&e, NULL);
    mkdir(e.out, 0755);
    th_drop_job(e.in, "a.jsonl", official_jsonl, strlen(official_jsonl));
    TH_IN(path, &e, "a.jsonl");
    ck_assert_int_eq(stat(path, &st), 0);
    p = spawn_wait(&e, "a");
    TH_EVENTUALLY(watches(th_pid[p], e.out), DEADLINE_MS, "cairn wait a never watched %s", e.out);
    th_pathf(staged, "%s/out.staged", e.root);
    th_pathf(old, "%s/out.old", e.root);
    ck_assert_int_eq(mkdir(staged, 0755), 0);
    for (k = 2; k <= 3; k++) {
        char *text = th_xasprintf(
            "{\"job\":\"a~%d\",\"status\":\"ok\",\"input\":\"a~%d.jsonl\",\"submitted_as\":"
            "\"a.jsonl\",\"input_inode\":%llu,\"records\":8,\"ok\":8,\"matches\":0,"
            "\"mismatches\":0,\"started\":\"2026-12-02T10:00:0%d.000Z\",\"finished\":"
            "\"2026-12-02T10:00:0%d.000Z\",\"wall_seconds\":0.5}\n",
            k, k, (unsigned long long)st.st_ino, k, k);

        th_pathf(path, "%s/a~%d.summary.json", staged, k);
        th_write_text(path, text);
        free(text);
    }
    ck_assert_int_eq(rename(e.out, old), 0);
    ck_assert_int_eq(rename(staged, e.out), 0);
    ck_assert_int_eq(th_wait_exit(p, DEADLINE_MS), 1);
    TH_REQUIRE(th_log_has(p, "a: cannot tell which run is this job's: a~2 and a~3"),
               "no clear message for two runs of one file");
    th_cleanup();
}
END_TEST

static Suite *client_suite(void)
{
    Suite *s = suite_create("client");
    TCase *submit = tcase_create("submit"), *queue = tcase_create("queue"),
          *results = tcase_create("results"), *hardening = tcase_create("hardening"),
          *waitpath = tcase_create("waitpath");

    tcase_add_test(submit, submit_wait_ok);
    tcase_add_test(submit, submit_wait_without_expected_answers);
    tcase_add_test(submit, submit_wait_failed);
    tcase_add_test(submit, submit_wait_timeout);
    tcase_add_test(submit, wait_refuses_a_timeout_past_the_limit);
    tcase_add_test(submit, a_bad_option_is_named_with_the_hint);
    tcase_add_test(submit, submit_from_pipe);
    tcase_add_test(submit, submit_refuses_bad_files);
    tcase_add_test(submit, submit_name_taken);
    tcase_add_test(submit, bad_spool);
    tcase_add_test(submit, progress_on_a_terminal);
    /* A job of seconds, a minute under sanitizers. */
    tcase_set_timeout(queue, 280);
    tcase_add_test(queue, status_shows_the_queue);
    tcase_add_test(queue, wait_follows_the_run_of_a_reused_name);
    tcase_add_test(queue, retry_requeues_and_resets_attempts);
    tcase_add_test(results, results_and_join);
    tcase_add_test(results, submit_and_join_a_file_with_a_byte_order_mark);
    tcase_add_test(results, report_counts_a_missing_solve_time_as_unknown);
    tcase_add_test(results, report_busy_time_is_measured_by_wall_seconds);
    tcase_add_test(results, report_notes_no_missing_times_for_jobs_without_answers);
    tcase_add_test(results, report_mismatch_columns_line_up);
    tcase_add_test(results, report_on_results_files);
    tcase_add_test(results, report_html_keeps_what_path_is);
    tcase_add_test(results, client_output_escapes_control_bytes);
    tcase_add_test(results, join_without_kept_inputs);
    tcase_add_test(results, long_job_names);
    tcase_add_test(results, report_text);
    tcase_add_test(results, fail_on_mismatch_exits_1);
    tcase_add_test(results, report_grades_lines_of_play);
    tcase_add_test(results, report_html_on_a_full_disk_says_so);
    tcase_set_timeout(hardening, 280);
    tcase_add_test(hardening, retry_refused_changes_nothing);
    tcase_add_test(hardening, report_prints_costs_exactly);
    tcase_add_test(hardening, report_names_a_damaged_summary);
    tcase_add_test(hardening, report_names_a_play_line_without_a_key);
    tcase_add_test(hardening, submit_onto_a_full_stdout_says_so);
    tcase_add_test(hardening, submit_removes_a_killed_submits_held_job);
    tcase_add_test(hardening, wait_compares_escaped_names_as_bytes);
    tcase_add_test(hardening, submit_under_umask_077_is_group_readable);
    suite_add_tcase(s, submit);
    suite_add_tcase(s, queue);
    suite_add_tcase(s, results);
    suite_add_tcase(s, hardening);
    tcase_set_timeout(waitpath, 280);
    tcase_add_test(waitpath, wait_follows_a_rotated_output_directory);
    tcase_add_test(waitpath, wait_takes_its_run_from_a_daemon_whose_clock_is_behind);
    tcase_add_test(waitpath, wait_for_a_resubmitted_file_takes_its_new_run);
    tcase_add_test(waitpath, wait_says_when_its_run_is_ambiguous);
    suite_add_tcase(s, waitpath);
    return s;
}

int main(void)
{
    int failed;

    g_cairn = getenv("CAIRN_TEST_CAIRN");
    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_cairn == NULL || g_cairnd == NULL || g_plugins == NULL || access(g_cairn, X_OK) != 0) {
        fprintf(stderr, "test_client: CAIRN_TEST_CAIRN, CAIRN_TEST_CAIRND and "
                        "CAIRN_TEST_PLUGIN_DIR must be set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("client") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    {
        static const struct {
            const char *name, *text;
        } fx[] = { { "official.jsonl", official_jsonl }, { "errors.jsonl", errors_jsonl } };
        size_t i;

        for (i = 0; i < 2; i++) {
            char path[PATH_MAX + 32];
            FILE *f;

            snprintf(path, sizeof(path), "%s/%s", th_top, fx[i].name);
            if ((f = fopen(path, "w")) == NULL || fputs(fx[i].text, f) == EOF || fclose(f) != 0) {
                perror(path);
                return EXIT_FAILURE;
            }
        }
    }
    failed = th_run_suite(client_suite(), CK_ENV, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
