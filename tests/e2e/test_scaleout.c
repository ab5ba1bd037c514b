/*
 * test_scaleout.c - the scale-out recipes of docs/scale-out.md, run for
 * real against the cairnd binary ($CAIRN_TEST_CAIRND) and the plugins of
 * the build ($CAIRN_TEST_PLUGIN_DIR), always with -c pointing at a config
 * file written here, so no system configuration interferes.
 *
 *   gnu_parallel   `parallel --pipe --keep-order -N 500 cairnd --filter`
 *                  gives the same answers, in the same order, as one
 *                  `cairnd --filter`; only "line" differs (it restarts at 1
 *                  in every chunk), which is why users key on "id".
 *                  Skipped, with a note, when `parallel` is not on PATH.
 *   shared_spool   three daemons on one input and output directory: every
 *                  job is run exactly once, the metrics add up, and more
 *                  than one daemon did work.
 *   array_jobs     `cairnd --once` as the tasks of an array job: one input
 *                  directory per task, or one shared spool, into one output
 *                  directory.
 *
 * Every test works in its own directory under /tmp, removed when it
 * passes (left for inspection, and named, when it fails).  Processes
 * started here get PR_SET_PDEATHSIG, so a failing test leaves none behind.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static const char *g_cairnd;
static const char *g_unshare = "/usr/bin/unshare"; /* util-linux, on every Debian */
static const char *g_plugins;

/* ------------------------------------------------------------------ */
/* Files and directories                                               */
/* ------------------------------------------------------------------ */

static char *make_workdir(const char *what)
{
    char *dir = th_xasprintf("/tmp/cairn-test-scaleout-%s-XXXXXX", what);

    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp: %s", strerror(errno));
    return dir;
}

static void make_dir(const char *path)
{
    ck_assert_msg(mkdir(path, 0755) == 0, "mkdir %s: %s", path, strerror(errno));
}

/* Called at the end of a passing test only. */
static void remove_workdir(char *dir)
{
    char *cmd = th_xasprintf("rm -rf '%s'", dir);

    if (system(cmd) != 0)
        fprintf(stderr, "note: could not remove %s\n", dir);
    free(cmd);
    free(dir);
}

/* Entries of dir whose names end in suffix ("" for all), "." and ".."
 * excluded; dot-files counted separately. */
static size_t count_entries(const char *dir, const char *suffix, size_t *dot_files)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t n = 0, dots = 0;

    ck_assert_msg(d != NULL, "opendir %s: %s", dir, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (e->d_name[0] == '.') {
            dots++;
            continue;
        }
        if (th_ends_with(e->d_name, suffix))
            n++;
    }
    closedir(d);
    if (dot_files != NULL)
        *dot_files = dots;
    return n;
}

/* Names of the dot-files in dir other than .cairn, for messages. */
static char *dot_files_in(const char *dir)
{
    struct cairn_buf b = { 0 };
    DIR *d = opendir(dir);
    struct dirent *e;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strcmp(e->d_name, ".cairn") != 0)
            ck_assert_int_eq(cairn_buf_printf(&b, " %s", e->d_name), 0);
    closedir(d);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    return b.data;
}

/* ------------------------------------------------------------------ */
/* Processes                                                           */
/* ------------------------------------------------------------------ */

/* Starts argv with stdin/stdout/stderr from/to the given files (NULL:
 * /dev/null).  The child dies with this test process. */
static pid_t spawn(char *const *argv, const char *in, const char *out, const char *err)
{
    pid_t pid;

    fflush(NULL);
    pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fds[3];

        prctl(PR_SET_PDEATHSIG, SIGTERM);
        fds[0] = open(in ? in : "/dev/null", O_RDONLY);
        fds[1] = open(out ? out : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        fds[2] = open(err ? err : "/dev/null", O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0)
            _exit(126);
        dup2(fds[0], 0);
        dup2(fds[1], 1);
        dup2(fds[2], 2);
        signal(SIGPIPE, SIG_DFL);
        execv(argv[0], argv);
        fprintf(stderr, "execv %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

/* Waits for pid at most timeout_s (th_scaled_ms); on timeout kills it and fails.
 * Returns the exit code (-1 for a signal). */
static int wait_exit(pid_t pid, double timeout_s, const char *what)
{
    double deadline = th_now_s() + th_scaled_ms(timeout_s * 1000) / 1000;
    int status;

    for (;;) {
        pid_t r = waitpid(pid, &status, WNOHANG);
        ck_assert_msg(r >= 0, "waitpid: %s", strerror(errno));
        if (r == pid)
            break;
        if (th_now_s() > deadline) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            ck_abort_msg("%s did not exit within %.0f s", what,
                         th_scaled_ms(timeout_s * 1000) / 1000);
        }
        th_sleep_ms(20);
    }
    if (WIFSIGNALED(status))
        fprintf(stderr, "%s: killed by signal %d\n", what, WTERMSIG(status));
    return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

/* 1 when prog is an executable on PATH. */
static int on_path(const char *prog)
{
    const char *path = getenv("PATH");
    char *copy, *dir, *save = NULL;
    int found = 0;

    if (path == NULL)
        path = "/usr/local/bin:/usr/bin:/bin";
    copy = strdup(path);
    ck_assert_ptr_nonnull(copy);
    for (dir = strtok_r(copy, ":", &save); dir != NULL && !found;
         dir = strtok_r(NULL, ":", &save)) {
        char *p = th_xasprintf("%s/%s", *dir ? dir : ".", prog);
        found = access(p, X_OK) == 0;
        free(p);
    }
    free(copy);
    return found;
}

/* 1 when `parallel` on PATH is GNU parallel.  moreutils ships another
 * program of that name (Debian's package "parallel" diverts it to
 * /usr/bin/parallel.moreutils), which knows neither --pipe nor -N. */
static int have_gnu_parallel(const char *workdir)
{
    char *out = th_xasprintf("%s/parallel-version.txt", workdir), *text;
    char *argv[] = { "/bin/sh", "-c", "exec parallel --version", NULL };
    int gnu;

    if (!on_path("parallel")) {
        free(out);
        return 0;
    }
    wait_exit(spawn(argv, NULL, out, NULL), 30, "parallel --version");
    text = th_read_file(out, NULL);
    gnu = strstr(text, "GNU parallel") != NULL;
    free(text);
    free(out);
    return gnu;
}

/* Paths go into /bin/sh -c and a GNU parallel command line unquoted. */
static void assert_shell_safe(const char *s)
{
    ck_assert_msg(strpbrk(s, " \t\n'\"\\$`;&|<>()*?[]{}!#~") == NULL,
                  "path %s has characters this test does not quote", s);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

/* A copy of a result line without "line", for comparing runs. */
static json_t *without_line(json_t *j)
{
    json_t *c = json_deep_copy(j);

    ck_assert_ptr_nonnull(c);
    json_object_del(c, "line");
    return c;
}

static char *dump(const json_t *j)
{
    char *s = json_dumps(j, JSON_COMPACT | JSON_SORT_KEYS);

    ck_assert_ptr_nonnull(s);
    return s;
}

/* The value of the sample `cairn_jobs_total{status="ok"}` in a metrics
 * file; fails when it is missing. */
static long long jobs_ok_in(const char *path)
{
    static const char key[] = "cairn_jobs_total{status=\"ok\"} ";
    char *text = th_read_file(path, NULL), *line, *save = NULL;
    long long v = -1;

    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save))
        if (strncmp(line, key, sizeof(key) - 1) == 0)
            v = strtoll(line + sizeof(key) - 1, NULL, 10);
    free(text);
    ck_assert_msg(v >= 0, "%s: no cairn_jobs_total{status=\"ok\"} sample", path);
    return v;
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */
/* ------------------------------------------------------------------ */

static uint64_t g_rng;

/* n records, each with the unique id "rN": all three games (names and
 * aliases, some with moves and expected answers), and every 10th-ish one
 * broken in a way that still echoes its id (unknown variant, a broken
 * official constraint, a non-integer), plus a few lines that are not JSON
 * at all (those cannot echo an id). */
static char *mixed_records(size_t n, uint64_t seed, size_t *len)
{
    static const char *const names[] = { "stone-game", "stone-game-ii", "stone-game-iii",
                                         "877",        "1140",          "1406" };
    struct cairn_buf b = { 0 };
    size_t i, k;

    g_rng = seed;
    for (i = 0; i < n; i++) {
        uint64_t r = th_splitmix64(&g_rng);
        int rc = 0;

        switch (r % 40) {
        case 0:
            rc |= cairn_buf_printf(&b,
                                   "{\"id\":\"r%zu\",\"variant\":\"no-such-game\","
                                   "\"input\":{\"piles\":[1]}}\n",
                                   i);
            break;
        case 1:
            rc |= cairn_buf_printf(&b,
                                   "{\"id\":\"r%zu\",\"variant\":\"stone-game\","
                                   "\"input\":{\"piles\":[1,2,3]}}\n",
                                   i);
            break;
        case 2:
            rc |= cairn_buf_printf(&b,
                                   "{\"id\":\"r%zu\",\"variant\":\"1406\","
                                   "\"input\":{\"stoneValue\":[1,\"x\"]}}\n",
                                   i);
            break;
        case 3:
            if (r % 3 == 0) { /* a torn line: bad_json, its id kept in the result */
                rc |= cairn_buf_printf(&b, "{\"id\":\"r%zu\",\"variant\":\n", i);
                break;
            }
            /* fall through */
        default: {
            int g = (int)((r >> 8) % 6), sg1 = g % 3 == 0;
            size_t m = 1 + (size_t)((r >> 16) % 24);
            int64_t sum = 0;

            if (sg1)
                m = 2 * (m / 2 + 1);
            rc |= cairn_buf_printf(&b, "{\"id\":\"r%zu\",\"variant\":\"%s\",\"input\":{\"%s\":[", i,
                                   names[g], g % 3 == 2 ? "stoneValue" : "piles");
            for (k = 0; k < m; k++) {
                int64_t x = g % 3 == 2 ? (int64_t)(th_splitmix64(&g_rng) % 2001) - 1000
                                       : (int64_t)(th_splitmix64(&g_rng) % 500) + 1;
                if (sg1 && k == m - 1 && (sum + x) % 2 == 0)
                    x = x == 500 ? 499 : x + 1;
                sum += x;
                rc |= cairn_buf_printf(&b, "%s%lld", k ? "," : "", (long long)x);
            }
            rc |= cairn_buf_puts(&b, "]}");
            if ((r >> 24) % 5 == 0)
                rc |= cairn_buf_puts(&b, ",\"options\":{\"moves\":true}");
            if (sg1 && (r >> 28) % 4 == 0)
                rc |= cairn_buf_puts(&b, ",\"expected\":true");
            rc |= cairn_buf_puts(&b, "}\n");
        }
        }
        ck_assert_int_eq(rc, 0);
    }
    *len = b.len;
    return b.data;
}

/* Job number i of a spool test holds 1 + i % 4 records. */
static size_t job_records(size_t i)
{
    return 1 + i % 4;
}

static void job_text(size_t i, struct cairn_buf *b)
{
    size_t k;

    b->len = 0;
    for (k = 0; k < job_records(i); k++)
        ck_assert_int_eq(cairn_buf_printf(b,
                                          "{\"id\":\"j%zu-%zu\",\"variant\":\"stone-game-iii\","
                                          "\"input\":{\"stoneValue\":[1,2,3,%zu]}}\n",
                                          i, k, k),
                         0);
}

/* The producer's safe hand-off: write a dot-name in dir, rename(2) in. */
static void drop_job(const char *dir, const char *name, size_t i)
{
    struct cairn_buf b = { 0 };
    char *tmp = th_xasprintf("%s/.%s.tmp", dir, name);
    char *dst = th_xasprintf("%s/%s.jsonl", dir, name);

    job_text(i, &b);
    th_write_file(tmp, b.data, b.len, 0644);
    ck_assert_msg(rename(tmp, dst) == 0, "rename %s: %s", tmp, strerror(errno));
    cairn_buf_free(&b);
    free(tmp);
    free(dst);
}

/* Checks NAME.summary.json (status ok, the right record count) and
 * NAME.results.jsonl (one ok line per record) of job i; returns the
 * summary's pid. */
static long long check_job_outputs(const char *out, const char *name, size_t i)
{
    char *path = th_xasprintf("%s/%s.summary.json", out, name);
    json_error_t e;
    json_t *sum = json_load_file(path, 0, &e);
    json_t **lines;
    size_t len, n, k;
    char *text;
    long long pid;

    ck_assert_msg(sum != NULL, "%s: %s", path, e.text);
    ck_assert_msg(json_is_string(json_object_get(sum, "status")) &&
                      strcmp(json_string_value(json_object_get(sum, "status")), "ok") == 0,
                  "%s: status is not \"ok\"", path);
    ck_assert_msg(json_integer_value(json_object_get(sum, "records")) == (json_int_t)job_records(i),
                  "%s: records %lld, expected %zu", path,
                  (long long)json_integer_value(json_object_get(sum, "records")), job_records(i));
    ck_assert_int_eq(json_integer_value(json_object_get(sum, "ok")), (json_int_t)job_records(i));
    pid = (long long)json_integer_value(json_object_get(sum, "pid"));
    ck_assert_msg(pid > 0, "%s: no pid", path);
    json_decref(sum);
    free(path);

    path = th_xasprintf("%s/%s.results.jsonl", out, name);
    text = th_read_file(path, &len);
    lines = th_parse_lines(text, len, &n, path);
    ck_assert_uint_eq(n, job_records(i));
    for (k = 0; k < n; k++) {
        char id[64];
        snprintf(id, sizeof(id), "j%zu-%zu", i, k);
        ck_assert_str_eq(json_string_value(json_object_get(lines[k], "status")), "ok");
        ck_assert_str_eq(json_string_value(json_object_get(lines[k], "id")), id);
    }
    th_free_lines(lines, n);
    free(text);
    free(path);
    return pid;
}

/* ------------------------------------------------------------------ */
/* a. GNU parallel --pipe                                              */
/* ------------------------------------------------------------------ */

#define A_RECORDS 5000
#define A_CHUNK   500

/* Runs `parallel --pipe [--keep-order] -N A_CHUNK cairnd --filter` over in
 * into out through /bin/sh -c; returns its exit code. */
static int run_parallel(const char *cfg, const char *in, const char *out, const char *err,
                        int keep_order)
{
    char *cmd =
        th_xasprintf("exec parallel --will-cite --pipe %s-N %d %s -c %s --filter "
                     "--plugins %s --threads 1 < %s > %s",
                     keep_order ? "--keep-order " : "", A_CHUNK, g_cairnd, cfg, g_plugins, in, out);
    char *argv[] = { "/bin/sh", "-c", cmd, NULL };
    int rc;

    rc = wait_exit(spawn(argv, NULL, NULL, err), 60, "parallel");
    free(cmd);
    return rc;
}

START_TEST(test_parallel_pipe_matches_single_filter)
{
    char *dir, *cfg, *in, *single, *keep, *unordered, *err, *data, *text;
    char *argv[8];
    json_t **one, **par, **unord, *by_id;
    size_t len, n1, np, nu, i, bad_json = 0;
    int rc;

    dir = make_workdir("parallel");
    if (!have_gnu_parallel(dir)) {
        printf("test_parallel_pipe_matches_single_filter: SKIPPED: GNU parallel is not on PATH "
               "(the `parallel` of moreutils does not count; apt-get install -y parallel to "
               "run it)\n");
        remove_workdir(dir);
        return;
    }
    cfg = th_xasprintf("%s/cairn.json", dir);
    in = th_xasprintf("%s/big.jsonl", dir);
    single = th_xasprintf("%s/single.jsonl", dir);
    keep = th_xasprintf("%s/keep-order.jsonl", dir);
    unordered = th_xasprintf("%s/unordered.jsonl", dir);
    err = th_xasprintf("%s/stderr.txt", dir);
    assert_shell_safe(dir);
    assert_shell_safe(g_cairnd);
    assert_shell_safe(g_plugins);
    th_write_file(cfg, "{\"log_level\":\"warning\"}\n", strlen("{\"log_level\":\"warning\"}\n"),
                  0644);
    data = mixed_records(A_RECORDS, 0x5ca1e0u, &len);
    th_write_file(in, data, len, 0644);
    free(data);

    /* The reference: one cairnd --filter over the whole input. */
    argv[0] = (char *)g_cairnd;
    argv[1] = "-c";
    argv[2] = cfg;
    argv[3] = "--filter";
    argv[4] = "--plugins";
    argv[5] = (char *)g_plugins;
    argv[6] = NULL;
    rc = wait_exit(spawn(argv, in, single, err), 60, "cairnd --filter");
    ck_assert_msg(rc == 0, "cairnd --filter exited %d", rc);
    text = th_read_file(single, &len);
    one = th_parse_lines(text, len, &n1, "single");
    free(text);
    ck_assert_uint_eq(n1, A_RECORDS);

    rc = run_parallel(cfg, in, keep, err, 1);
    text = th_read_file(err, NULL);
    ck_assert_msg(rc == 0, "parallel --keep-order exited %d: %s", rc, text);
    free(text);
    text = th_read_file(keep, &len);
    par = th_parse_lines(text, len, &np, "parallel --keep-order");
    free(text);
    ck_assert_msg(np == n1, "parallel --keep-order gave %zu lines, one cairnd %zu", np, n1);

    /* --keep-order: line for line the same answers, same ids, same order.
     * Only "line" differs: every chunk of A_CHUNK records is a fresh
     * cairnd whose stdin starts at line 1. */
    for (i = 0; i < n1; i++) {
        json_t *a = without_line(one[i]), *b = without_line(par[i]);
        ck_assert_int_eq(json_integer_value(json_object_get(one[i], "line")), (json_int_t)i + 1);
        ck_assert_msg(
            json_integer_value(json_object_get(par[i], "line")) == (json_int_t)(i % A_CHUNK) + 1,
            "parallel line %zu has \"line\" %lld, expected %zu", i + 1,
            (long long)json_integer_value(json_object_get(par[i], "line")), i % A_CHUNK + 1);
        if (!json_equal(a, b)) {
            char *sa = dump(a), *sb = dump(b);
            ck_abort_msg("result %zu differs:\n  one cairnd: %s\n  parallel:   %s", i + 1, sa, sb);
        }
        json_decref(a);
        json_decref(b);
    }

    /* Keyed on id, as users should: map every id of the reference run. */
    by_id = json_object();
    for (i = 0; i < n1; i++) {
        const char *id = json_string_value(json_object_get(one[i], "id"));
        const char *code =
            json_string_value(json_object_get(json_object_get(one[i], "error"), "code"));

        bad_json += code != NULL && strcmp(code, "bad_json") == 0;
        ck_assert_msg(id != NULL, "result %zu has no id", i + 1);
        ck_assert_msg(json_object_get(by_id, id) == NULL, "id %s twice", id);
        json_object_set_new(by_id, id, without_line(one[i]));
    }
    ck_assert_msg(bad_json > 0 && bad_json < 100, "%zu bad_json lines", bad_json);

    /* Without --keep-order chunks come back as they finish: the same set of
     * results, matched by id. */
    rc = run_parallel(cfg, in, unordered, err, 0);
    ck_assert_msg(rc == 0, "parallel exited %d", rc);
    text = th_read_file(unordered, &len);
    unord = th_parse_lines(text, len, &nu, "parallel");
    free(text);
    ck_assert_uint_eq(nu, n1);
    for (i = 0; i < nu; i++) {
        const char *id = json_string_value(json_object_get(unord[i], "id"));
        json_t *b, *a;

        ck_assert_msg(id != NULL, "parallel result %zu has no id", i + 1);
        a = json_object_get(by_id, id);
        ck_assert_msg(a != NULL, "parallel answered id %s, which one cairnd did not (or twice)",
                      id);
        b = without_line(unord[i]);
        ck_assert_msg(json_equal(a, b), "id %s: the results differ", id);
        json_decref(b);
        json_object_del(by_id, id); /* a second answer for the same id fails above */
    }
    ck_assert_msg(json_object_size(by_id) == 0, "%zu ids got no answer from parallel",
                  json_object_size(by_id));

    json_decref(by_id);
    th_free_lines(one, n1);
    th_free_lines(par, np);
    th_free_lines(unord, nu);
    free(cfg);
    free(in);
    free(single);
    free(keep);
    free(unordered);
    free(err);
    remove_workdir(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* b. Several daemons on one shared spool                              */
/* ------------------------------------------------------------------ */

#define B_DAEMONS 3
#define B_JOBS    300

/* A config file for daemon or task `which`, sharing in and out. */
static char *spool_config(const char *dir, const char *in, const char *out, const char *metrics,
                          const char *extra)
{
    char *path = th_xasprintf("%s/%s.json", dir, metrics);
    char *text = th_xasprintf("{\"input_dir\":\"%s\",\"output_dir\":\"%s\",\"plugin_dir\":\"%s\","
                              "\"metrics_file\":\"%s\",\"threads\":1,\"log_level\":\"info\"%s}\n",
                              in, out, g_plugins, metrics, extra);

    th_write_file(path, text, strlen(text), 0644);
    free(text);
    return path;
}

/* Occurrences of needle in haystack. */
static size_t count_str(const char *haystack, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    const char *p = haystack;

    while ((p = strstr(p, needle)) != NULL) {
        n++;
        p += k;
    }
    return n;
}

START_TEST(test_three_daemons_share_one_spool)
{
    char *dir = make_workdir("spool"), *in, *out, *active, *done;
    char *cfg[B_DAEMONS], *logs[B_DAEMONS], *log_text[B_DAEMONS], *metrics[B_DAEMONS];
    long long pids[B_JOBS], sum = 0;
    pid_t daemon[B_DAEMONS];
    size_t i, k, distinct = 0, dots, n;
    double deadline;

    in = th_xasprintf("%s/in", dir);
    out = th_xasprintf("%s/out", dir);
    active = th_xasprintf("%s/.cairn/active", in);
    done = th_xasprintf("%s/.cairn/done", in);
    make_dir(in);
    make_dir(out);
    for (k = 0; k < B_DAEMONS; k++) {
        char name[16], *argv[4];

        snprintf(name, sizeof(name), "m%zu.prom", k + 1);
        cfg[k] = spool_config(dir, in, out, name,
                              ",\"rescan_interval_s\":1,\"min_age_ms\":100,"
                              "\"metrics_interval_s\":1,\"shutdown_timeout_s\":20");
        metrics[k] = th_xasprintf("%s/%s", out, name);
        logs[k] = th_xasprintf("%s/daemon%zu.log", dir, k + 1);
        th_write_file(logs[k], "", 0, 0644); /* read below, maybe before the child opens it */
        argv[0] = (char *)g_cairnd;
        argv[1] = "-c";
        argv[2] = cfg[k];
        argv[3] = NULL;
        daemon[k] = spawn(argv, NULL, NULL, logs[k]);
    }
    /* All three are watching before the first job arrives. */
    deadline = th_now_s() + th_scaled_ms(15000) / 1000;
    for (k = 0; k < B_DAEMONS; k++) {
        for (;;) {
            char *t = th_read_file(logs[k], NULL);
            int up = strstr(t, "watching ") != NULL;
            ck_assert_msg(up || waitpid(daemon[k], NULL, WNOHANG) == 0,
                          "daemon %zu exited early:\n%s", k + 1, t);
            free(t);
            if (up)
                break;
            ck_assert_msg(th_now_s() < deadline, "daemon %zu never started watching", k + 1);
            th_sleep_ms(20);
        }
    }

    /* 300 jobs, as fast as a producer can rename them in. */
    for (i = 0; i < B_JOBS; i++) {
        char name[32];
        snprintf(name, sizeof(name), "job%04zu", i);
        drop_job(in, name, i);
    }
    deadline = th_now_s() + th_scaled_ms(40000) / 1000;
    while ((n = count_entries(out, ".summary.json", NULL)) < B_JOBS) {
        for (k = 0; k < B_DAEMONS; k++)
            ck_assert_msg(waitpid(daemon[k], NULL, WNOHANG) == 0, "daemon %zu died", k + 1);
        ck_assert_msg(th_now_s() < deadline, "only %zu of %d summaries at the deadline", n, B_JOBS);
        th_sleep_ms(50);
    }
    for (k = 0; k < B_DAEMONS; k++)
        ck_assert_int_eq(kill(daemon[k], SIGTERM), 0);
    for (k = 0; k < B_DAEMONS; k++) {
        int rc = wait_exit(daemon[k], 30, "daemon");
        ck_assert_msg(rc == 0, "daemon %zu exited %d on SIGTERM", k + 1, rc);
        log_text[k] = th_read_file(logs[k], NULL);
    }

    /* Exactly once: one summary and one results file per job, each
     * finished in exactly one daemon's log. */
    ck_assert_uint_eq(count_entries(out, ".summary.json", NULL), B_JOBS);
    ck_assert_uint_eq(count_entries(out, ".results.jsonl", NULL), B_JOBS);
    for (i = 0; i < B_JOBS; i++) {
        char name[32], needle[64];
        size_t times = 0;

        snprintf(name, sizeof(name), "job%04zu", i);
        snprintf(needle, sizeof(needle), "job %s finished:", name);
        pids[i] = check_job_outputs(out, name, i);
        for (k = 0; k < B_DAEMONS; k++)
            times += count_str(log_text[k], needle);
        ck_assert_msg(times == 1, "%s finished %zu times across the daemons' logs", name, times);
    }

    /* The spool's state: nothing active, every input in done/, nothing
     * left waiting, no temporary files anywhere. */
    ck_assert_uint_eq(count_entries(active, "", &dots), 0);
    ck_assert_uint_eq(dots, 0);
    ck_assert_uint_eq(count_entries(done, ".jsonl", NULL), B_JOBS);
    ck_assert_uint_eq(count_entries(done, "", NULL), B_JOBS);
    ck_assert_uint_eq(count_entries(in, ".jsonl", NULL), 0);
    count_entries(out, "", &dots);
    {
        char *names = dot_files_in(out);
        ck_assert_msg(dots == 0, "temporary files left in the output directory:%s", names);
        free(names);
        names = dot_files_in(in);
        ck_assert_msg(names[0] == '\0', "files left in the input directory:%s", names);
        free(names);
    }

    /* Each daemon's own metrics file; together they count every job once. */
    for (k = 0; k < B_DAEMONS; k++) {
        long long v = jobs_ok_in(metrics[k]);
        printf("shared spool: daemon %zu (%s) ran %lld job(s)\n", k + 1, metrics[k], v);
        sum += v;
    }
    ck_assert_int_eq(sum, B_JOBS);

    /* More than one daemon did work: the summaries name >= 2 pids. */
    for (i = 0; i < B_JOBS; i++) {
        size_t j;
        for (j = 0; j < i && pids[j] != pids[i]; j++)
            ;
        distinct += j == i;
    }
    ck_assert_msg(distinct >= 2, "all %d jobs ran in one daemon (pid %lld)", B_JOBS, pids[0]);
    ck_assert_uint_le(distinct, B_DAEMONS);

    for (k = 0; k < B_DAEMONS; k++) {
        free(cfg[k]);
        free(logs[k]);
        free(log_text[k]);
        free(metrics[k]);
    }
    free(in);
    free(out);
    free(active);
    free(done);
    remove_workdir(dir);
}
END_TEST

/* ------------------------------------------------------------------ */
/* c. --once as an array job                                           */
/* ------------------------------------------------------------------ */

#define C_TASKS 3
#define C_JOBS  60

/* Runs C_TASKS `cairnd --once` at the same time, task t over in[t] (all
 * the same directory for a shared spool) into out with t<N>.prom; all must
 * exit 0.  Returns the sum of their cairn_jobs_total{status="ok"}. */
static long long run_once_tasks_ns(const char *dir, char *const *in, const char *out,
                                   int pid_namespaces);

static long long run_once_tasks(const char *dir, char *const *in, const char *out)
{
    return run_once_tasks_ns(dir, in, out, 0);
}

/* The same, each task in a PID namespace of its own (as in a container),
 * where every one of them is PID 1. */
static long long run_once_tasks_ns(const char *dir, char *const *in, const char *out,
                                   int pid_namespaces)
{
    pid_t pid[C_TASKS];
    char *cfg[C_TASKS], *log[C_TASKS], *metrics[C_TASKS];
    long long sum = 0;
    size_t t;

    for (t = 0; t < C_TASKS; t++) {
        char name[16], *argv[9], **a = argv;

        snprintf(name, sizeof(name), "t%zu.prom", t + 1);
        cfg[t] = spool_config(dir, in[t], out, name, ",\"min_age_ms\":0");
        metrics[t] = th_xasprintf("%s/%s", out, name);
        log[t] = th_xasprintf("%s/task%zu.log", dir, t + 1);
        if (pid_namespaces) {
            *a++ = (char *)g_unshare;
            *a++ = "--pid";
            *a++ = "--fork";
            *a++ = "--kill-child";
        }
        *a++ = (char *)g_cairnd;
        *a++ = "-c";
        *a++ = cfg[t];
        *a++ = "--once";
        *a = NULL;
        pid[t] = spawn(argv, NULL, NULL, log[t]);
    }
    for (t = 0; t < C_TASKS; t++) {
        int rc = wait_exit(pid[t], 30, "cairnd --once");

        /* The log on stderr, not in the message: a whole log is longer
         * than Check carries, and the failure then said only "Early
         * exit". */
        if (rc != 0)
            th_dump_tail(log[t], 6144);
        ck_assert_msg(rc == 0, "task %zu: cairnd --once exited %d (its log is above)", t + 1, rc);
        sum += jobs_ok_in(metrics[t]);
        free(cfg[t]);
        free(log[t]);
        free(metrics[t]);
    }
    return sum;
}

static void check_once_outputs(const char *out)
{
    size_t i, dots;

    ck_assert_uint_eq(count_entries(out, ".summary.json", &dots), C_JOBS);
    ck_assert_uint_eq(dots, 0);
    for (i = 0; i < C_JOBS; i++) {
        char name[32];
        snprintf(name, sizeof(name), "job%03zu", i);
        check_job_outputs(out, name, i);
    }
}

START_TEST(test_once_one_input_dir_per_task)
{
    char *dir = make_workdir("array"), *out, *in[C_TASKS];
    size_t i, t;

    out = th_xasprintf("%s/out", dir);
    for (t = 0; t < C_TASKS; t++) {
        in[t] = th_xasprintf("%s/in%zu", dir, t + 1);
        make_dir(in[t]);
    }
    /* Job i goes to task i % C_TASKS, as a job script would split them. */
    for (i = 0; i < C_JOBS; i++) {
        char name[32];
        snprintf(name, sizeof(name), "job%03zu", i);
        drop_job(in[i % C_TASKS], name, i);
    }
    ck_assert_int_eq(run_once_tasks(dir, in, out), C_JOBS);
    check_once_outputs(out);
    for (t = 0; t < C_TASKS; t++) {
        char *done = th_xasprintf("%s/.cairn/done", in[t]);
        ck_assert_uint_eq(count_entries(done, ".jsonl", NULL), C_JOBS / C_TASKS);
        ck_assert_uint_eq(count_entries(in[t], ".jsonl", NULL), 0);
        free(done);
        free(in[t]);
    }
    free(out);
    remove_workdir(dir);
}
END_TEST

START_TEST(test_once_tasks_share_one_spool)
{
    char *dir = make_workdir("array-shared"), *out, *spool, *in[C_TASKS], *done, *active;
    size_t i, t;

    out = th_xasprintf("%s/out", dir);
    spool = th_xasprintf("%s/in", dir);
    make_dir(spool);
    for (t = 0; t < C_TASKS; t++)
        in[t] = spool;
    for (i = 0; i < C_JOBS; i++) {
        char name[32];
        snprintf(name, sizeof(name), "job%03zu", i);
        drop_job(spool, name, i);
    }
    /* Every task drains the same spool; each job is run by one of them. */
    ck_assert_int_eq(run_once_tasks(dir, in, out), C_JOBS);
    check_once_outputs(out);
    done = th_xasprintf("%s/.cairn/done", spool);
    active = th_xasprintf("%s/.cairn/active", spool);
    ck_assert_uint_eq(count_entries(done, ".jsonl", NULL), C_JOBS);
    ck_assert_uint_eq(count_entries(active, "", NULL), 0);
    ck_assert_uint_eq(count_entries(spool, ".jsonl", NULL), 0);
    free(done);
    free(active);
    free(spool);
    free(out);
    remove_workdir(dir);
}
END_TEST

/* Containers on one shared volume: each task's cairnd is PID 1 in its own
 * namespace.  Equal PIDs once meant equal temporary names, and tasks
 * published each other's records under their own job names. */
START_TEST(test_equal_pids_share_one_spool)
{
    char *dir, *out, *spool, *in[C_TASKS];
    size_t i, t;

    if (access(g_unshare, X_OK) != 0 ||
        system("/usr/bin/unshare --pid --fork --kill-child true >/dev/null 2>&1") != 0) {
        fprintf(stderr, "test_scaleout: SKIP equal_pids: cannot create PID namespaces here "
                        "(unshare --pid needs root or user namespaces)\n");
        return;
    }
    dir = make_workdir("pidns");
    out = th_xasprintf("%s/out", dir);
    spool = th_xasprintf("%s/in", dir);
    make_dir(spool);
    for (t = 0; t < C_TASKS; t++)
        in[t] = spool;
    for (i = 0; i < C_JOBS; i++) {
        char name[32];
        snprintf(name, sizeof(name), "job%03zu", i);
        drop_job(spool, name, i);
    }
    ck_assert_int_eq(run_once_tasks_ns(dir, in, out, 1), C_JOBS);
    /* Every job's results are its own records, and its summary says so. */
    check_once_outputs(out);
    free(spool);
    free(out);
    remove_workdir(dir);
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *scaleout_suite(void)
{
    Suite *s = suite_create("scaleout");
    TCase *tc;

    tc = tcase_create("gnu_parallel");
    tcase_add_test(tc, test_parallel_pipe_matches_single_filter);
    tcase_set_timeout(tc, 90);
    suite_add_tcase(s, tc);

    tc = tcase_create("shared_spool");
    tcase_add_test(tc, test_three_daemons_share_one_spool);
    tcase_set_timeout(tc, 90);
    suite_add_tcase(s, tc);

    tc = tcase_create("array_jobs");
    tcase_add_test(tc, test_once_one_input_dir_per_task);
    tcase_add_test(tc, test_once_tasks_share_one_spool);
    tcase_add_test(tc, test_equal_pids_share_one_spool);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_cairnd == NULL || g_plugins == NULL || access(g_cairnd, X_OK) != 0) {
        fprintf(stderr, "test_scaleout: CAIRN_TEST_CAIRND (the cairnd binary) and "
                        "CAIRN_TEST_PLUGIN_DIR must be set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    failed = th_run_suite(scaleout_suite(), CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
