/*
 * test_daemon.c - the spool daemon (cairnd with no mode, and --once) end to
 * end, through the real binary, on temporary directories.
 *
 * Every run gets its own directory from mkdtemp() holding in/, out/, the
 * -c configuration file (so /etc/cairn/cairn.json never interferes) and the
 * daemon's log (stdout and stderr).  Conditions are polled with generous
 * deadlines, never timed.  Daemons are killed and the directories removed
 * when a test ends; after a failed one, Check kills its process group
 * (the daemons get PR_SET_PDEATHSIG too) and the runner removes the
 * directories at exit.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static const char *g_cairnd;
static const char *g_plugins;
static const char *g_source_dir;

/* The settings every test starts from: fast rescans and metrics. */
#define CFG_BASE                                                                   \
    "\"min_age_ms\": 200, \"rescan_interval_s\": 1, \"metrics_interval_s\": 0.2, " \
    "\"log_level\": \"debug\""

#define DEADLINE_MS      15000 /* for anything that should happen "soon" */
#define LONG_DEADLINE_MS 60000

/* Processes, directories, files, polling and JSON: harness.h.  Each
 * test ends with th_cleanup(); atexit(th_cleanup_top) covers the rest. */

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

static size_t count_lines(const char *s, size_t len)
{
    size_t n = 0;
    const char *p = s, *end = s + len;

    while (p < end && (p = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        n++;
        p++;
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* A test's directory                                                  */
/* ------------------------------------------------------------------ */

/* Writes {CFG_BASE, extra} into the -c file. */
static void env_config(struct th_env *e, const char *extra)
{
    char text[1024];

    snprintf(text, sizeof(text), "{" CFG_BASE "%s%s}\n", extra && *extra ? ", " : "",
             extra ? extra : "");
    th_write_text(e->cfg, text);
}

static void env_init(struct th_env *e, const char *extra_cfg)
{
    th_env_init(e, NULL);
    env_config(e, extra_cfg);
}

static void drop_job(const struct th_env *e, const char *name, const char *data, size_t len)
{
    th_drop_job(e->in, name, data, len);
}

static void drop_text(const struct th_env *e, const char *name, const char *text)
{
    drop_job(e, name, text, strlen(text));
}

/* The first 8 records of examples/official.jsonl (the three first games'
 * official examples, with "expected" answers). */
static char *official(size_t *len)
{
    char path[PATH_MAX];
    char *s, *p;
    int lines = 0;

    th_pathf(path, "%s/examples/official.jsonl", g_source_dir);
    s = th_slurp(path, len);
    ck_assert_msg(s != NULL, "cannot read %s", path);
    for (p = s; *p != '\0' && lines < 8; p++)
        lines += *p == '\n';
    *p = '\0';
    *len = (size_t)(p - s);
    ck_assert_uint_eq(count_lines(s, *len), 8);
    return s;
}

/* A job of `records` records of the test plugin "slow" that sleep 20 ms
 * each, with e's plugin path set to find it: a known least run time however
 * fast the real solvers are, and with th_close_slow_gate, a job that runs
 * until the test lets it end. */
static char *slow_job(struct th_env *e, size_t records, size_t *len)
{
    th_plugins_with_slow(e->root, e->plugins);
    return th_slow_job(records, 20, len);
}

/* Gives the open file fd an mtime an hour ago: old enough for any
 * min_age_ms here, without waiting for it (and without an inotify event
 * the daemon acts on). */
static void make_old(int fd)
{
    struct timespec t[2];

    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec -= 3600;
    t[1] = t[0];
    ck_assert_int_eq(futimens(fd, t), 0);
}

/* The write to fd just made has been seen by daemon p, and then rescans
 * see its file far past min_age_ms, its writer still there.  Seen: a
 * listing that began after the one the call's first name was said by is
 * handled in a later turn of the daemon's loop than that listing, and
 * every inotify event queued before it (the write's) is read by then. */
static void seen_then_old(int p, const struct th_env *e, int fd)
{
    th_wait_listings(p, e->in, 1);
    make_old(fd);
    th_wait_listings(p, e->in, 2);
}

/* n copies of line (which ends in a newline). */
static char *repeat(const char *line, size_t n, size_t *len)
{
    size_t l = strlen(line), i;
    char *s = malloc(l * n + 1);

    ck_assert_ptr_nonnull(s);
    for (i = 0; i < n; i++)
        memcpy(s + i * l, line, l);
    s[l * n] = '\0';
    *len = l * n;
    return s;
}

#define SMALL_III "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n"

/* ------------------------------------------------------------------ */
/* Running cairnd                                                      */
/* ------------------------------------------------------------------ */

/* Starts argv[0] with stdout and stderr appended to a log in e->root. */
static int spawn(const struct th_env *e, char *const argv[])
{
    return th_spawn(e->root, argv);
}

/* cairnd -c CFG --input IN --output OUT --plugins PLUGINS [mode] */
static int start(const struct th_env *e, const char *mode)
{
    char *argv[] = { (char *)g_cairnd, "-c",          (char *)e->cfg,
                     "--input",        (char *)e->in, "--output",
                     (char *)e->out,   "--plugins",   (char *)e->plugins,
                     (char *)mode,     NULL };
    return spawn(e, argv);
}

/* Runs an executable found on PATH with stdin from a file; -1 if absent. */
static int run_with_stdin(const char *prog, const char *arg1, const char *arg2, const char *in_path,
                          const char *log_path)
{
    const char *path = getenv("PATH");
    char exe[PATH_MAX], dirs[4096], *save = NULL, *dir;
    pid_t pid;
    int st, found = 0;

    snprintf(dirs, sizeof(dirs), "%s", path ? path : "/usr/bin:/bin");
    for (dir = strtok_r(dirs, ":", &save); dir != NULL; dir = strtok_r(NULL, ":", &save)) {
        snprintf(exe, sizeof(exe), "%s/%s", dir, prog);
        if (access(exe, X_OK) == 0) {
            found = 1;
            break;
        }
    }
    if (!found)
        return -1;
    fflush(NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int in = open(in_path, O_RDONLY), out = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
        if (in < 0 || out < 0)
            _exit(126);
        dup2(in, 0);
        dup2(out, 1);
        dup2(out, 2);
        execl(exe, prog, arg1, arg2, (char *)NULL);
        _exit(127);
    }
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* ------------------------------------------------------------------ */
/* Outputs                                                             */
/* ------------------------------------------------------------------ */

/* Lines of a (big) results file, each required to carry status ok. */
static size_t count_ok_lines(const char *path)
{
    size_t len, n = 0;
    char *s = th_slurp(path, &len), *p, *end;

    TH_REQUIRE(s != NULL, "%s is missing", path);
    TH_REQUIRE(len > 0 && s[len - 1] == '\n', "%s does not end in a newline", path);
    for (p = s, end = s + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        *nl = '\0';
        TH_REQUIRE(strstr(p, "\"status\":\"ok\"") != NULL, "%s: line %zu is not ok: %s", path,
                   n + 1, p);
        n++;
        p = nl + 1;
    }
    free(s);
    return n;
}

/* Seconds since the epoch of an RFC 3339 UTC timestamp
 * (YYYY-MM-DDTHH:MM:SS[.frac]Z); fails on any other form. */
static double rfc3339_utc(const char *s)
{
    struct tm tm;
    const char *p;
    double frac = 0, scale = 0.1;

    memset(&tm, 0, sizeof(tm));
    p = strptime(s, "%Y-%m-%dT%H:%M:%S", &tm);
    TH_REQUIRE(p != NULL && strlen(s) >= 20 && s[4] == '-' && s[10] == 'T',
               "not an RFC 3339 timestamp: \"%s\"", s);
    if (*p == '.') {
        p++;
        TH_REQUIRE(*p >= '0' && *p <= '9', "bad fraction in \"%s\"", s);
        for (; *p >= '0' && *p <= '9'; p++, scale /= 10)
            frac += (*p - '0') * scale;
    }
    TH_REQUIRE(strcmp(p, "Z") == 0, "not UTC (\"Z\"): \"%s\"", s);
    return (double)timegm(&tm) + frac;
}

/* Every field contract.md, Summaries, requires, consistent with each other. */
static void check_summary(json_t *s, const char *job, const char *status, long long records)
{
    json_t *errors = json_object_get(s, "errors"), *by_variant = json_object_get(s, "by_variant");
    long long ok, err_sum = 0, rec;
    double started, finished, now = (double)time(NULL);
    json_t *wall = json_object_get(s, "wall_seconds"), *solve = json_object_get(s, "solve_seconds");
    size_t i;

    TH_REQUIRE(json_is_object(s), "summary is not an object");
    TH_REQUIRE(strcmp(th_str_field(s, "job"), job) == 0, "job is \"%s\", want \"%s\"",
               th_str_field(s, "job"), job);
    TH_REQUIRE(strcmp(th_str_field(s, "status"), status) == 0, "job %s: status \"%s\", want \"%s\"",
               job, th_str_field(s, "status"), status);
    rec = th_int_field(s, "records");
    if (records >= 0)
        TH_REQUIRE(rec == records, "job %s: records %lld, want %lld", job, rec, records);
    ok = th_int_field(s, "ok");
    TH_REQUIRE(json_is_object(errors), "job %s: errors is not an object", job);
    for (i = 0; i < TH_N_CODES; i++) {
        json_t *v = json_object_get(errors, th_codes[i]);
        TH_REQUIRE(v == NULL || json_is_integer(v), "errors.%s is not an integer", th_codes[i]);
        err_sum += v ? (long long)json_integer_value(v) : 0;
    }
    TH_REQUIRE(ok + err_sum == rec, "job %s: ok %lld + errors %lld != records %lld", job, ok,
               err_sum, rec);
    TH_REQUIRE(json_is_object(by_variant), "job %s: by_variant is not an object", job);
    TH_REQUIRE(th_int_field(s, "matches") >= 0 && th_int_field(s, "mismatches") >= 0,
               "negative matches");
    TH_REQUIRE(th_int_field(s, "bytes") >= 0, "negative bytes");
    started = rfc3339_utc(th_str_field(s, "started"));
    finished = rfc3339_utc(th_str_field(s, "finished"));
    TH_REQUIRE(started <= finished, "started %s after finished %s", th_str_field(s, "started"),
               th_str_field(s, "finished"));
    TH_REQUIRE(finished > now - 86400 && finished < now + 86400, "finished %s is not about now",
               th_str_field(s, "finished"));
    TH_REQUIRE(json_is_number(wall) && json_number_value(wall) >= 0, "wall_seconds missing");
    TH_REQUIRE(json_is_number(solve) && json_number_value(solve) >= 0, "solve_seconds missing");
    if (strcmp(status, "failed") == 0)
        TH_REQUIRE(strlen(th_str_field(s, "reason")) > 0, "job %s: empty reason", job);
}

/* Loads OUT/NAME.summary.json and checks it (records < 0: any). */
static json_t *summary_of(const struct th_env *e, const char *job, const char *status,
                          long long records)
{
    char path[PATH_MAX];
    json_t *s;

    TH_OUT(path, e, "%s.summary.json", job);
    s = th_load_json(path);
    check_summary(s, job, status, records);
    return s;
}

static void wait_summary(const struct th_env *e, const char *job, long ms)
{
    char path[PATH_MAX];

    TH_OUT(path, e, "%s.summary.json", job);
    TH_EVENTUALLY(th_exists(path), ms, "%s did not appear", path);
}

static void wait_active_empty(const struct th_env *e)
{
    char dir[PATH_MAX];

    TH_IN(dir, e, ".cairn/active");
    TH_EVENTUALLY(th_count_entries(dir, "") == 0, DEADLINE_MS, ".cairn/active/ did not empty");
}

/* No temporary left behind in the output directory (a running daemon's
 * periodic rewrite in flight is not one). */
static void require_no_temp_files(const struct th_env *e)
{
    char *names = th_list_dir(e->out, " ");

    TH_REQUIRE(th_count_left_temps(e->out, ".") == 0,
               "temporary files remain in the output dir: %s", names);
    free(names);
}

/* Checks the 8 official answers against the job's "expected" values:
 * results[i] answers input line lines[i]. */
static void check_official_results(json_t *res, const char *job_text, const int *lines)
{
    const char *p = job_text;
    size_t i = 0;
    int phys = 0;

    TH_REQUIRE(json_array_size(res) == 8, "%zu result lines, want 8", json_array_size(res));
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t l = nl ? (size_t)(nl - p) : strlen(p);
        json_t *in, *r;

        phys++;
        if (l == 0 || (l == 1 && *p == '\r')) {
            p += l + (nl != NULL);
            continue;
        }
        TH_REQUIRE(i < 8, "more records than results");
        in = json_loadb(p, l, 0, NULL);
        ck_assert_ptr_nonnull(in);
        r = json_array_get(res, i);
        TH_REQUIRE(th_int_field(r, "line") == phys, "result %zu: line %lld, want %d", i,
                   th_int_field(r, "line"), phys);
        if (lines != NULL)
            TH_REQUIRE(phys == lines[i], "test bug: line map");
        TH_REQUIRE(strcmp(th_str_field(r, "status"), "ok") == 0, "line %d: status %s", phys,
                   th_str_field(r, "status"));
        TH_REQUIRE(json_equal(json_object_get(r, "id"), json_object_get(in, "id")),
                   "line %d: id not echoed", phys);
        TH_REQUIRE(json_equal(json_object_get(r, "answer"), json_object_get(in, "expected")),
                   "line %d (%s): wrong answer", phys, th_str_field(in, "id"));
        TH_REQUIRE(json_is_true(json_object_get(r, "match")), "line %d: match is not true", phys);
        json_decref(in);
        i++;
        p += l + (nl != NULL);
    }
    TH_REQUIRE(i == 8, "test bug: %zu records", i);
}

/* ------------------------------------------------------------------ */
/* 1. rename-in                                                        */
/* ------------------------------------------------------------------ */

START_TEST(rename_in_is_processed)
{
    struct th_env e;
    size_t olen, jlen, i;
    char *off = official(&olen), *nl, path[PATH_MAX];
    struct cairn_buf job = { 0 };
    static const int lines[] = { 1, 2, 4, 5, 6, 7, 8, 9 };
    json_t *res, *s, *bv;
    char *done;
    int p;

    /* Lines 1-2, a blank line, lines 3-8, a trailing blank line. */
    nl = strchr(strchr(off, '\n') + 1, '\n') + 1;
    cairn_buf_append(&job, off, (size_t)(nl - off));
    cairn_buf_puts(&job, "\n");
    cairn_buf_puts(&job, nl);
    cairn_buf_puts(&job, "\n");
    cairn_buf_append(&job, "", 1);
    jlen = job.len - 1;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "official.jsonl", job.data, jlen);
    wait_summary(&e, "official", DEADLINE_MS);

    TH_OUT(path, &e, "official.results.jsonl");
    res = th_load_results(path);
    check_official_results(res, job.data, lines);
    json_decref(res);

    s = summary_of(&e, "official", "ok", 8);
    TH_REQUIRE(th_int_field(s, "ok") == 8, "ok != 8");
    for (i = 0; i < TH_N_CODES; i++)
        TH_REQUIRE(
            json_is_integer(json_object_get(json_object_get(s, "errors"), th_codes[i])) &&
                json_integer_value(json_object_get(json_object_get(s, "errors"), th_codes[i])) == 0,
            "errors.%s missing or not 0", th_codes[i]);
    TH_REQUIRE(th_int_field(s, "matches") == 8 && th_int_field(s, "mismatches") == 0, "matches");
    TH_REQUIRE(th_int_field(s, "pid") == (long long)th_pid[p], "pid %lld, want the daemon's, %ld",
               th_int_field(s, "pid"), (long)th_pid[p]);
    TH_REQUIRE(th_int_field(s, "bytes") == (long long)jlen, "bytes %lld, want %zu",
               th_int_field(s, "bytes"), jlen);
    bv = json_object_get(s, "by_variant");
    TH_REQUIRE(th_int_field(json_object_get(bv, "stone-game"), "records") == 2 &&
                   th_int_field(json_object_get(bv, "stone-game-ii"), "records") == 3 &&
                   th_int_field(json_object_get(bv, "stone-game-iii"), "records") == 3,
               "by_variant counts are wrong");
    json_decref(s);

    /* keep_inputs defaults to true: the input ends in done/, intact. */
    TH_IN(path, &e, ".cairn/done/official.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the input is not in .cairn/done/");
    done = th_slurp(path, NULL);
    TH_REQUIRE(done != NULL && strcmp(done, job.data) == 0, "done/ copy differs from the job");
    free(done);
    TH_IN(path, &e, "official.jsonl");
    TH_REQUIRE(!th_exists(path), "the input is still in the spool");
    TH_IN(path, &e, ".official.jsonl.tmp");
    TH_REQUIRE(!th_exists(path), "the producer's dot-file is still there");
    wait_active_empty(&e);
    th_stop(p);
    require_no_temp_files(&e);
    cairn_buf_free(&job);
    free(off);
    th_cleanup();
}
END_TEST

/* The spool's mode in the shipped tmpfiles entry (systemd/), parsed from
 * its "d @SPOOL@ MODE ..." line. */
static mode_t shipped_spool_mode(void)
{
    char path[PATH_MAX], *text, *line;
    long mode = -1;

    th_pathf(path, "%s/systemd/cairn.tmpfiles.in", g_source_dir);
    text = th_slurp(path, NULL);
    TH_REQUIRE(text != NULL, "cannot read %s", path);
    for (line = text; line != NULL; line = strchr(line, '\n'), line = line ? line + 1 : NULL)
        if (strncmp(line, "d @SPOOL@ ", 10) == 0)
            mode = strtol(line + 10, NULL, 8);
    free(text);
    TH_REQUIRE(mode > 0, "%s has no \"d @SPOOL@ MODE\" line", path);
    return (mode_t)mode;
}

/* The spool as shipped is sticky, so that one producer cannot remove or
 * replace another's waiting job (group "cairn" may write there), and
 * cairnd, the spool's owner, still claims jobs out of it and files them
 * in done/. */
START_TEST(sticky_spool_as_shipped_runs_jobs)
{
    mode_t mode = shipped_spool_mode();
    char path[PATH_MAX];
    struct stat st;
    struct th_env e;
    int p;

    TH_REQUIRE(mode & S_ISVTX,
               "the shipped spool mode %04o has no sticky bit: any producer may remove or "
               "replace another's waiting job",
               (unsigned)mode);
    env_init(&e, NULL);
    ck_assert_int_eq(chmod(e.in, mode), 0);
    ck_assert_int_eq(stat(e.in, &st), 0);
    TH_REQUIRE(st.st_mode & S_ISVTX, "the spool lost its sticky bit: mode %04o",
               (unsigned)(st.st_mode & 07777));
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_text(&e, "sticky.jsonl", SMALL_III);
    wait_summary(&e, "sticky", DEADLINE_MS);
    json_decref(summary_of(&e, "sticky", "ok", 1));
    TH_IN(path, &e, ".cairn/done/sticky.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the input is not in .cairn/done/");
    TH_IN(path, &e, "sticky.jsonl");
    TH_REQUIRE(!th_exists(path), "the input is still in the sticky spool");
    wait_active_empty(&e);
    th_stop(p);
    th_cleanup();
}
END_TEST

START_TEST(keep_inputs_false_deletes_input)
{
    struct th_env e;
    size_t olen;
    char *off = official(&olen), path[PATH_MAX], dir[PATH_MAX];
    json_t *res;
    int p;

    env_init(&e, "\"keep_inputs\": false");
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "gone.jsonl", off, olen);
    wait_summary(&e, "gone", DEADLINE_MS);
    json_decref(summary_of(&e, "gone", "ok", 8));
    TH_OUT(path, &e, "gone.results.jsonl");
    res = th_load_results(path);
    check_official_results(res, off, NULL);
    json_decref(res);
    wait_active_empty(&e);
    TH_IN(dir, &e, ".cairn/done");
    TH_REQUIRE(th_count_entries(dir, "") == 0, "keep_inputs false, yet done/ holds the input");
    TH_IN(path, &e, "gone.jsonl");
    TH_REQUIRE(!th_exists(path), "the input is still in the spool");
    th_stop(p);
    free(off);
    th_cleanup();
}
END_TEST

/* A hard link (link(2), cp -l, maildir-style delivery) gets IN_CREATE and
 * never a close-after-write: it must still be taken. */
START_TEST(hard_link_is_processed)
{
    struct th_env e;
    size_t olen;
    char *off = official(&olen), src[PATH_MAX], dst[PATH_MAX], path[PATH_MAX];
    json_t *res;
    int p;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    th_pathf(src, "%s/linked-source.jsonl", e.root);
    th_write_file(src, off, olen, 0644);
    TH_IN(dst, &e, "hl.jsonl");
    ck_assert_int_eq(link(src, dst), 0);
    wait_summary(&e, "hl", DEADLINE_MS);
    json_decref(summary_of(&e, "hl", "ok", 8));
    TH_OUT(path, &e, "hl.results.jsonl");
    res = th_load_results(path);
    check_official_results(res, off, NULL);
    json_decref(res);
    th_stop(p);
    free(off);
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 2. in-place write with a pause mid-line                             */
/* ------------------------------------------------------------------ */

/* More events than inotify's queue holds arrive while the daemon cannot
 * read them (stopped): the kernel drops the rest, the job's own rename
 * among them, and says so with IN_Q_OVERFLOW.  The daemon logs it and
 * rescans at once: the job is taken well before the hour-long periodic
 * rescan would find it. */
START_TEST(inotify_overflow_rescans_at_once)
{
    struct th_env e;
    char text[512], path[PATH_MAX];
    long max_events = 16384, i, files;
    FILE *f = fopen("/proc/sys/fs/inotify/max_queued_events", "r");
    int p;

    if (f != NULL) {
        if (fscanf(f, "%ld", &max_events) != 1)
            max_events = 16384;
        fclose(f);
    }
    /* Each file makes two events (IN_CREATE, IN_CLOSE_WRITE). */
    files = max_events / 2 + 64;
    env_init(&e, NULL);
    snprintf(text, sizeof(text),
             "{\"min_age_ms\": 100, \"rescan_interval_s\": 3600, \"metrics_interval_s\": 0.2, "
             "\"log_level\": \"debug\"}\n");
    th_write_text(e.cfg, text);
    p = start(&e, NULL);
    th_wait_ready(p);
    ck_assert_int_eq(kill(th_pid[p], SIGSTOP), 0);
    for (i = 0; i < files; i++) {
        int fd;

        th_pathf(path, "%s/.flood-%06ld", e.in, i);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        close(fd);
    }
    drop_text(&e, "after-flood.jsonl", SMALL_III);
    ck_assert_int_eq(kill(th_pid[p], SIGCONT), 0);
    TH_EVENTUALLY(th_log_has(p, "inotify queue overflowed: rescanning"), DEADLINE_MS,
                  "the overflow is not in the log");
    wait_summary(&e, "after-flood", DEADLINE_MS);
    json_decref(summary_of(&e, "after-flood", "ok", 1));
    for (i = 0; i < files; i++) {
        th_pathf(path, "%s/.flood-%06ld", e.in, i);
        TH_REQUIRE(unlink(path) == 0, "the daemon touched the dot-file %s", path);
    }
    TH_REQUIRE(th_running(p), "the daemon did not survive the overflow");
    th_stop(p);
    th_cleanup();
}
END_TEST

/* A file already open for writing when the daemon starts gets no
 * IN_CREATE: the start-up scan finds it young and waits, and the first
 * write seen after that marks it as being written, so no rescan takes it
 * however old it gets; its close hands it over whole. */
START_TEST(writer_open_before_the_start_is_waited_for)
{
    struct th_env e;
    char text[512], path[PATH_MAX], sum[PATH_MAX];
    size_t olen, i;
    char *off = official(&olen);
    json_t *res;
    int p, fd;

    env_init(&e, NULL);
    snprintf(text, sizeof(text),
             "{\"min_age_ms\": 1500, \"rescan_interval_s\": 1, \"metrics_interval_s\": 0.2, "
             "\"log_level\": \"debug\"}\n");
    th_write_text(e.cfg, text);
    TH_IN(path, &e, "early.jsonl");
    TH_OUT(sum, &e, "early.summary.json");
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(cairn_write_all(fd, off, 40), 0);
    p = start(&e, NULL);
    th_wait_ready(p);
    ck_assert_int_eq(cairn_write_all(fd, off + 40, 40), 0);
    seen_then_old(p, &e, fd);
    TH_REQUIRE(th_exists(path) && !th_exists(sum),
               "the job was claimed while its writer had it open");
    ck_assert_int_eq(cairn_write_all(fd, off + 80, olen - 80), 0);
    ck_assert_int_eq(close(fd), 0);
    wait_summary(&e, "early", DEADLINE_MS);
    TH_OUT(path, &e, "early.results.jsonl");
    res = th_load_results(path);
    TH_REQUIRE(json_array_size(res) == 8, "%zu result lines, want 8", json_array_size(res));
    for (i = 0; i < 8; i++)
        TH_REQUIRE(strcmp(th_str_field(json_array_get(res, i), "status"), "ok") == 0,
                   "line %zu is not ok (the job saw a partial file)", i + 1);
    json_decref(res);
    th_stop(p);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(in_place_write_waits_for_close)
{
    static const char first[] = "{\"id\":\"half\",\"variant\":\"stone-game-iii\","
                                "\"input\":{\"stoneValue\":[1,2,3,7]},\"expected\":\"Bob\"}\n";
    struct th_env e;
    size_t olen, half = sizeof(first) / 2, i;
    char *off = official(&olen), path[PATH_MAX], sum[PATH_MAX];
    json_t *res, *s;
    int p, fd;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_IN(path, &e, "inplace.jsonl");
    TH_OUT(sum, &e, "inplace.summary.json");
    fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(cairn_write_all(fd, first, half), 0);
    seen_then_old(p, &e, fd);
    TH_REQUIRE(th_exists(path) && !th_exists(sum),
               "the job was claimed while its writer had it open");
    ck_assert_int_eq(cairn_write_all(fd, first + half, strlen(first) - half), 0);
    ck_assert_int_eq(cairn_write_all(fd, off, olen), 0);
    ck_assert_int_eq(close(fd), 0);

    wait_summary(&e, "inplace", DEADLINE_MS);
    TH_OUT(path, &e, "inplace.results.jsonl");
    res = th_load_results(path);
    TH_REQUIRE(json_array_size(res) == 9, "%zu result lines, want 9", json_array_size(res));
    for (i = 0; i < 9; i++) {
        json_t *r = json_array_get(res, i);
        TH_REQUIRE(strcmp(th_str_field(r, "status"), "ok") == 0,
                   "line %zu: %s (the job saw a partial file)", i + 1, json_dumps(r, JSON_COMPACT));
        TH_REQUIRE(th_int_field(r, "line") == (long long)i + 1, "line numbers");
    }
    TH_REQUIRE(strcmp(th_str_field(json_array_get(res, 0), "answer"), "Bob") == 0, "line 1 answer");
    json_decref(res);
    s = summary_of(&e, "inplace", "ok", 9);
    TH_REQUIRE(th_int_field(json_object_get(s, "errors"), "bad_json") == 0, "bad_json lines");
    TH_REQUIRE(th_int_field(s, "bytes") == (long long)(strlen(first) + olen), "bytes");
    json_decref(s);
    th_stop(p);
    free(off);
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 3. names that are never jobs                                        */
/* ------------------------------------------------------------------ */

START_TEST(ignored_names_stay_untouched)
{
    static const char *const early[] = { ".hidden.jsonl", "x.txt", "y.jsonl.tmp", "z.JSONL" };
    static const char *const late[] = { ".late.jsonl", "late.txt", "late.jsonl.tmp", "late.JSONL",
                                        "late.jsonl~" };
    struct th_env e;
    size_t olen, i;
    char *off = official(&olen), path[PATH_MAX], *names;
    int p;

    env_init(&e, NULL);
    /* Present at start-up, beside a normal job the start-up scan (not
     * inotify) must find: that scan walks past every ignored name. */
    for (i = 0; i < 4; i++) {
        TH_IN(path, &e, "%s", early[i]);
        th_write_file(path, off, olen, 0644);
    }
    TH_IN(path, &e, "first.jsonl");
    th_write_file(path, off, olen, 0644);
    p = start(&e, NULL);
    wait_summary(&e, "first", DEADLINE_MS);

    /* Written in place while it runs: inotify reports each close. */
    for (i = 0; i < 5; i++) {
        TH_IN(path, &e, "%s", late[i]);
        th_write_file(path, off, olen, 0644);
    }
    drop_job(&e, "second.jsonl", off, olen);
    wait_summary(&e, "second", DEADLINE_MS);
    /* Old enough for any rescan, then one to claim wrongly. */
    for (i = 0; i < 9; i++) {
        int fd;

        TH_IN(path, &e, "%s", i < 4 ? early[i] : late[i - 4]);
        ck_assert_int_ge(fd = open(path, O_RDONLY | O_CLOEXEC), 0);
        make_old(fd);
        close(fd);
    }
    th_wait_listings(p, e.in, 1);
    TH_REQUIRE(th_running(p), "cairnd died");

    for (i = 0; i < 9; i++) {
        const char *n = i < 4 ? early[i] : late[i - 4];
        char *c;
        TH_IN(path, &e, "%s", n);
        c = th_slurp(path, NULL);
        TH_REQUIRE(c != NULL && strcmp(c, off) == 0, "%s was moved or changed", n);
        free(c);
    }
    names = th_list_dir(e.out, " ");
    /* Visible names only, in one pass: a periodic metrics write (every
     * 0.2 s) may be in flight, its temporary a dot-file that two counts
     * could see once and not the other time. */
    TH_REQUIRE(th_count_visible(e.out) == 5, "unexpected outputs: %s", names);
    free(names);
    for (i = 0; i < 2; i++) {
        TH_OUT(path, &e, "%s.results.jsonl", i ? "second" : "first");
        TH_REQUIRE(th_exists(path), "%s missing", path);
    }
    TH_OUT(path, &e, "metrics.prom");
    TH_REQUIRE(th_exists(path), "metrics.prom missing");
    wait_active_empty(&e);
    TH_IN(path, &e, ".cairn/failed");
    TH_REQUIRE(th_count_entries(path, "") == 0, "something went to failed/");
    TH_IN(path, &e, ".cairn/done");
    TH_REQUIRE(th_count_entries(path, "") == 2, "done/ should hold first and second only");
    th_stop(p);
    require_no_temp_files(&e);
    free(off);
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 4. symlinks, FIFOs and directories                                  */
/* ------------------------------------------------------------------ */

/* Does reading a file whose atime is older than its mtime update the
 * atime here (relatime or strictatime)?  Then "never read" is checkable. */
static int atime_works(const struct th_env *e)
{
    char path[PATH_MAX], *c;
    struct timespec ts[2];
    struct stat st;

    th_pathf(path, "%s/atime-probe", e->root);
    th_write_text(path, "probe\n");
    clock_gettime(CLOCK_REALTIME, &ts[1]);
    ts[0] = ts[1];
    ts[0].tv_sec -= 3600;
    ck_assert_int_eq(utimensat(AT_FDCWD, path, ts, 0), 0);
    c = th_slurp(path, NULL);
    free(c);
    ck_assert_int_eq(stat(path, &st), 0);
    unlink(path);
    return st.st_atim.tv_sec > ts[0].tv_sec + 60;
}

/* A socket bound at path (left bound: the daemon only looks at it). */
static int bind_socket(const char *path)
{
    struct sockaddr_un a = { .sun_family = AF_UNIX };
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);

    ck_assert_int_ge(fd, 0);
    ck_assert_uint_lt(strlen(path), sizeof(a.sun_path));
    memcpy(a.sun_path, path, strlen(path) + 1);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

START_TEST(non_regular_files_fail_without_being_followed)
{
    static const char *const names[] = { "l", "f", "d", "s", "c", "b" };
    /* What each reason calls it. */
    static const char *const kinds[] = { "a symbolic link", "a FIFO",   "a directory",
                                         "a socket",        "a device", "a device" };
    static const mode_t types[] = { S_IFLNK, S_IFIFO, S_IFDIR, S_IFSOCK, S_IFCHR, S_IFBLK };
    struct th_env e;
    size_t olen, i, n_kinds = 4;
    int sock;
    char *off = official(&olen), target[PATH_MAX], path[PATH_MAX], link_to[PATH_MAX], *c;
    struct timespec ts[2];
    struct stat st;
    int p, check_atime;
    ssize_t n;
    json_t *res;

    env_init(&e, NULL);
    check_atime = atime_works(&e);
    th_pathf(target, "%s/target.jsonl", e.root);
    th_write_file(target, off, olen, 0644);
    clock_gettime(CLOCK_REALTIME, &ts[1]);
    ts[0] = ts[1];
    ts[0].tv_sec -= 3600;
    ck_assert_int_eq(utimensat(AT_FDCWD, target, ts, 0), 0);

    p = start(&e, NULL);
    th_wait_ready(p);
    TH_IN(path, &e, "l.jsonl");
    ck_assert_int_eq(symlink(target, path), 0);
    TH_IN(path, &e, "f.jsonl");
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    TH_IN(path, &e, "d.jsonl");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    TH_IN(path, &e, "s.jsonl");
    sock = bind_socket(path);
    /* /dev/null's and /dev/loop0's numbers; only where devices may be
     * made (root). */
    TH_IN(path, &e, "c.jsonl");
    if (mknod(path, S_IFCHR | 0644, makedev(1, 3)) == 0) {
        n_kinds = 5;
        TH_IN(path, &e, "b.jsonl");
        if (mknod(path, S_IFBLK | 0644, makedev(7, 0)) == 0)
            n_kinds = 6;
    } else
        fprintf(stderr, "test_daemon: cannot make a device here (%s); not checking one\n",
                strerror(errno));

    for (i = 0; i < n_kinds; i++) {
        json_t *s, *r;
        wait_summary(&e, names[i], DEADLINE_MS);
        s = summary_of(&e, names[i], "failed", 0);
        json_decref(s);
        TH_IN(path, &e, ".cairn/failed/%s.reason.json", names[i]);
        TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "%s missing", path);
        r = th_load_json(path);
        TH_REQUIRE(json_is_string(json_object_get(r, "reason")) &&
                       strstr(json_string_value(json_object_get(r, "reason")), kinds[i]) != NULL,
                   "%s does not say the job is %s", path, kinds[i]);
        TH_REQUIRE(th_int_field(r, "pid") == (long long)th_pid[p], "%s: pid %lld, want %ld", path,
                   th_int_field(r, "pid"), (long)th_pid[p]);
        json_decref(r);
        TH_IN(path, &e, ".cairn/failed/%s.jsonl", names[i]);
        TH_EVENTUALLY(lstat(path, &st) == 0, DEADLINE_MS, "%s is not in failed/", names[i]);
        TH_REQUIRE((st.st_mode & S_IFMT) == types[i], "%s in failed/ is not what was dropped",
                   names[i]);
        TH_IN(path, &e, "%s.jsonl", names[i]);
        TH_REQUIRE(!th_exists(path), "%s.jsonl is still in the spool", names[i]);
        TH_OUT(path, &e, "%s.results.jsonl", names[i]);
        TH_REQUIRE(!th_exists(path), "%s has a results file", names[i]);
    }
    /* The link itself moved, pointing where it did; its target is as it
     * was and was never opened for reading. */
    TH_IN(path, &e, ".cairn/failed/l.jsonl");
    n = readlink(path, link_to, sizeof(link_to) - 1);
    TH_REQUIRE(n > 0 && (size_t)n == strlen(target) && memcmp(link_to, target, (size_t)n) == 0,
               "the symlink was changed");
    ck_assert_int_eq(lstat(target, &st), 0);
    TH_REQUIRE(S_ISREG(st.st_mode), "the target is no longer a regular file");
    if (check_atime)
        TH_REQUIRE(st.st_atim.tv_sec == ts[0].tv_sec,
                   "the symlink's target was read (atime moved)");
    else
        fprintf(stderr, "test_daemon: atime is not updated here; not checking it\n");
    c = th_slurp(target, NULL);
    TH_REQUIRE(c != NULL && strcmp(c, off) == 0, "the symlink's target changed");
    free(c);

    /* Still alive, not stuck on the FIFO: a later job is processed. */
    TH_REQUIRE(th_running(p), "cairnd died");
    drop_job(&e, "after.jsonl", off, olen);
    wait_summary(&e, "after", DEADLINE_MS);
    json_decref(summary_of(&e, "after", "ok", 8));
    TH_OUT(path, &e, "after.results.jsonl");
    res = th_load_results(path);
    check_official_results(res, off, NULL);
    json_decref(res);
    th_stop(p);
    close(sock);
    free(off);
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 5. crash recovery                                                   */
/* ------------------------------------------------------------------ */

START_TEST(job_left_in_active_runs_again)
{
    struct th_env e;
    size_t olen;
    char *off = official(&olen), path[PATH_MAX];
    json_t *res;
    int p;

    env_init(&e, NULL);
    TH_IN(path, &e, ".cairn");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    TH_IN(path, &e, ".cairn/active");
    ck_assert_int_eq(mkdir(path, 0755), 0);
    TH_IN(path, &e, ".cairn/active/rec.jsonl");
    th_write_file(path, off, olen, 0644);
    /* What the crashed run left half-written. */
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    /* A temporary nobody holds the lock of is a dead writer's, whatever
     * its age. */
    TH_OUT(path, &e, ".cairn.0123456789abcdef0123456789abcdef.r.tmp");
    th_write_text(path, "{\"line\":1,\"status\":\"ok\"}\n{\"line\":2,\"sta");

    p = start(&e, NULL);
    wait_summary(&e, "rec", DEADLINE_MS);
    json_decref(summary_of(&e, "rec", "ok", 8));
    TH_OUT(path, &e, "rec.results.jsonl");
    res = th_load_results(path);
    check_official_results(res, off, NULL);
    json_decref(res);
    wait_active_empty(&e);
    TH_IN(path, &e, ".cairn/done/rec.jsonl");
    TH_REQUIRE(th_exists(path), "the recovered input is not in done/");
    th_stop(p);
    require_no_temp_files(&e);
    free(off);
    th_cleanup();
}
END_TEST

/* Another daemon on the shared output directory (another host, or another
 * PID namespace where its PID may equal ours) is writing: its temporary is
 * locked, and a starting daemon must leave it alone.  The sweep once
 * decided by PID and deleted live daemons' files. */
START_TEST(live_writers_temporaries_survive_a_start)
{
    struct th_env e;
    size_t olen;
    char *off = official(&olen), path[2][PATH_MAX], name[2][64];
    int p, fd[2], i;
    pid_t dead = fork();

    /* One name of today's shape, and one of the old ".cairn.PID.N.r.tmp"
     * shape whose PID runs nowhere in our namespace. */
    if (dead == 0)
        _exit(0);
    waitpid(dead, NULL, 0);
    snprintf(name[0], sizeof(name[0]), ".cairn.fedcba9876543210fedcba9876543210.r.tmp");
    snprintf(name[1], sizeof(name[1]), ".cairn.%ld.1.r.tmp", (long)dead);
    env_init(&e, NULL);
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    for (i = 0; i < 2; i++) {
        TH_OUT(path[i], &e, "%s", name[i]);
        fd[i] = open(path[i], O_WRONLY | O_CREAT | O_EXCL, 0644);
        ck_assert_int_ge(fd[i], 0);
        ck_assert_int_eq(flock(fd[i], LOCK_EX), 0);
    }
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "rec.jsonl", off, olen);
    wait_summary(&e, "rec", DEADLINE_MS);
    th_stop(p);
    for (i = 0; i < 2; i++) {
        TH_REQUIRE(th_exists(path[i]), "a live writer's locked temporary %s was removed", name[i]);
        close(fd[i]);
        unlink(path[i]);
    }
    require_no_temp_files(&e);
    free(off);
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 6. outputs appear only by rename                                    */
/* ------------------------------------------------------------------ */

START_TEST(outputs_appear_complete)
{
    enum {
        N = 200000
    };
    struct th_env e;
    size_t len;
    char *big = repeat(SMALL_III, N, &len), active[PATH_MAX], path[PATH_MAX];
    int p, have_summary = 0;
    unsigned long in_progress = 0, results_seen = 0;
    double end;
    json_t *s;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_IN(active, &e, ".cairn/active/big.jsonl");
    drop_job(&e, "big.jsonl", big, len);
    end = th_now_s() + th_scaled_ms(LONG_DEADLINE_MS) / 1000.0;
    while (!have_summary) {
        DIR *d = opendir(e.out);
        struct dirent *de;
        int saw_output = 0;

        TH_REQUIRE(th_now_s() < end, "no summary within the deadline");
        TH_REQUIRE(d != NULL || errno == ENOENT, "opendir: %s", strerror(errno));
        while (d != NULL && (de = readdir(d)) != NULL) {
            TH_OUT(path, &e, "%s", de->d_name);
            if (strcmp(de->d_name, "big.results.jsonl") == 0) {
                size_t rl;
                char *r = th_slurp(path, &rl);
                TH_REQUIRE(r != NULL, "listed %s cannot be opened", path);
                TH_REQUIRE(count_lines(r, rl) == N && r[rl - 1] == '\n',
                           "a partial results file was visible: %zu lines", count_lines(r, rl));
                free(r);
                results_seen++;
                saw_output = 1;
            } else if (strcmp(de->d_name, "big.summary.json") == 0) {
                json_error_t err;
                json_t *v = json_load_file(path, 0, &err);
                TH_REQUIRE(v != NULL, "a partial summary was visible: %s", err.text);
                json_decref(v);
                have_summary = saw_output = 1;
            }
        }
        if (d != NULL)
            closedir(d);
        if (!saw_output && th_exists(active))
            in_progress++;
        th_sleep_ms(2);
    }
    TH_REQUIRE(in_progress > 0, "the job was never seen running: the test checked nothing");
    s = summary_of(&e, "big", "ok", N);
    json_decref(s);
    TH_OUT(path, &e, "big.results.jsonl");
    TH_REQUIRE(count_ok_lines(path) == N, "results line count");
    th_stop(p);
    require_no_temp_files(&e);
    free(big);
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 7. --once                                                           */
/* ------------------------------------------------------------------ */

START_TEST(once_good_jobs_exit_0)
{
    static const char *const jobs[] = { "a", "b", "c" };
    struct th_env e;
    size_t olen, i;
    char *off = official(&olen), path[PATH_MAX];
    int p, code;

    env_init(&e, NULL);
    for (i = 0; i < 3; i++) {
        TH_IN(path, &e, "%s.jsonl", jobs[i]);
        th_write_file(path, off, olen, 0644);
    }
    p = start(&e, "--once");
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "--once exited %d", code);
    for (i = 0; i < 3; i++) {
        json_decref(summary_of(&e, jobs[i], "ok", 8));
        TH_IN(path, &e, ".cairn/done/%s.jsonl", jobs[i]);
        TH_REQUIRE(th_exists(path), "%s not in done/", jobs[i]);
    }
    TH_IN(path, &e, ".cairn/active");
    TH_REQUIRE(th_count_entries(path, "") == 0, "active/ is not empty after --once");
    TH_REQUIRE(th_count_entries(e.in, "") == 1, "the spool still holds jobs");
    require_no_temp_files(&e);
    free(off);
    th_cleanup();
}
END_TEST

/* More jobs that must stream (each bigger than the first piece a start
 * reads, so none is answered where it started) than one solver thread
 * lets stream at once (32, core/job/gate.h): those past the gate wait
 * their turn, and every one of them finishes, whole. */
START_TEST(jobs_past_the_streaming_gate_wait_their_turn)
{
    enum {
        JOBS = 40,
        COPIES = 40
    };
    struct th_env e;
    size_t olen, i;
    char *off = official(&olen), path[PATH_MAX], name[32];
    struct cairn_buf big = { 0 };
    int p, code;

    for (i = 0; i < COPIES; i++)
        ck_assert_int_eq(cairn_buf_append(&big, off, olen), 0);
    ck_assert_uint_gt(big.len, 16 * 1024);
    env_init(&e, "\"threads\": 1");
    for (i = 0; i < JOBS; i++) {
        snprintf(name, sizeof(name), "big%02zu", i);
        TH_IN(path, &e, "%s.jsonl", name);
        th_write_file(path, big.data, big.len, 0644);
    }
    p = start(&e, "--once");
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "--once exited %d", code);
    for (i = 0; i < JOBS; i++) {
        snprintf(name, sizeof(name), "big%02zu", i);
        json_decref(summary_of(&e, name, "ok", 8 * COPIES));
    }
    require_no_temp_files(&e);
    cairn_buf_free(&big);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(once_failed_job_exits_1)
{
    struct th_env e;
    size_t olen;
    char *off = official(&olen), path[PATH_MAX], target[PATH_MAX];
    int p, code;

    env_init(&e, NULL);
    th_pathf(target, "%s/target.jsonl", e.root);
    th_write_file(target, off, olen, 0644);
    TH_IN(path, &e, "good.jsonl");
    th_write_file(path, off, olen, 0644);
    TH_IN(path, &e, "link.jsonl");
    ck_assert_int_eq(symlink(target, path), 0);
    p = start(&e, "--once");
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 1, "--once with a failed job exited %d, want 1", code);
    json_decref(summary_of(&e, "good", "ok", 8));
    json_decref(summary_of(&e, "link", "failed", 0));
    TH_IN(path, &e, ".cairn/failed/link.jsonl");
    TH_REQUIRE(th_exists(path), "the symlink is not in failed/");
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(once_empty_dir_exits_0)
{
    struct th_env e;
    int p, code;

    env_init(&e, NULL);
    p = start(&e, "--once");
    code = th_wait_exit(p, 10000);
    TH_REQUIRE(code == 0, "--once on an empty spool exited %d", code);
    th_cleanup();
}
END_TEST

START_TEST(once_missing_input_dir_is_named)
{
    struct th_env e;
    char missing[PATH_MAX];
    int p, code;

    env_init(&e, NULL);
    th_pathf(missing, "%s/no-such-spool", e.root);
    {
        char *argv[] = { (char *)g_cairnd, "-c",       e.cfg, "--input",
                         missing,          "--output", e.out, "--plugins",
                         e.plugins,        "--once",   NULL };
        p = spawn(&e, argv);
    }
    code = th_wait_exit(p, DEADLINE_MS);
    /* A configuration error (exit 2), found before the daemon starts. */
    TH_REQUIRE(code == 2, "--once with a missing input dir exited %d", code);
    TH_REQUIRE(th_log_has(p, "input_dir"), "the error does not name the key input_dir");
    TH_REQUIRE(th_log_has(p, missing), "the error does not name %s", missing);
    th_cleanup();
}
END_TEST

START_TEST(missing_dirs_exit_2)
{
    struct th_env e;
    int p, code;

    env_init(&e, NULL);
    {
        char *argv[] = { (char *)g_cairnd, "-c",      e.cfg,    "--output", e.out,
                         "--plugins",      e.plugins, "--once", NULL };
        p = spawn(&e, argv);
        code = th_wait_exit(p, DEADLINE_MS);
        TH_REQUIRE(code == 2, "--once without --input exited %d", code);
        TH_REQUIRE(th_log_has(p, "input"), "the error does not name the input directory");
    }
    {
        char *argv[] = { (char *)g_cairnd, "-c",      e.cfg,    "--input", e.in,
                         "--plugins",      e.plugins, "--once", NULL };
        p = spawn(&e, argv);
        code = th_wait_exit(p, DEADLINE_MS);
        TH_REQUIRE(code == 2, "--once without --output exited %d", code);
        TH_REQUIRE(th_log_has(p, "output"), "the error does not name the output directory");
    }
    {
        char *argv[] = { (char *)g_cairnd, "-c", e.cfg, "--plugins", e.plugins, NULL };
        p = spawn(&e, argv);
        code = th_wait_exit(p, DEADLINE_MS);
        TH_REQUIRE(code == 2, "the daemon without --input/--output exited %d", code);
    }
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 8. SIGTERM                                                          */
/* ------------------------------------------------------------------ */

START_TEST(sigterm_finishes_active_job)
{
    enum {
        N = 100
    };
    struct th_env e;
    size_t len;
    char *big, path[PATH_MAX], gate[PATH_MAX];
    int p, code;

    env_init(&e, NULL);
    big = slow_job(&e, N, &len);
    th_close_slow_gate(e.root, gate); /* the job runs until the stop has begun */
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "drain.jsonl", big, len);
    TH_IN(path, &e, ".cairn/active/drain.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the job was not claimed");
    kill(th_pid[p], SIGTERM);
    TH_EVENTUALLY(th_log_has(p, "SIGTERM: no new jobs; waiting for 1 active job"), DEADLINE_MS,
                  "SIGTERM was not heard while the job ran");
    th_open_gate(gate);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after SIGTERM", code);
    json_decref(summary_of(&e, "drain", "ok", N));
    TH_OUT(path, &e, "drain.results.jsonl");
    TH_REQUIRE(count_ok_lines(path) == N, "results line count");
    TH_IN(path, &e, ".cairn/done/drain.jsonl");
    TH_REQUIRE(th_exists(path), "the input is not in done/");
    require_no_temp_files(&e);
    free(big);
    th_cleanup();
}
END_TEST

/* The text of the one status file in .cairn/status/, or NULL while there
 * is none.  A write's temporary (a dot-file) may sit beside it, or stand
 * alone before the first rename: it is never what is read. */
static char *status_text(const struct th_env *e)
{
    char dir[PATH_MAX], path[PATH_MAX * 2];
    char *text = NULL;
    struct dirent *de;
    DIR *d;

    TH_IN(dir, e, ".cairn/status");
    if ((d = opendir(dir)) == NULL)
        return NULL;
    while (text == NULL && (de = readdir(d)) != NULL) {
        if (de->d_name[0] == '.')
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
        text = th_slurp_nofollow(path, NULL);
    }
    closedir(d);
    return text;
}

/* The "updated" time of the one status file in .cairn/status/, or NULL. */
static char *status_updated(const struct th_env *e)
{
    char *text = status_text(e), *out = NULL;
    json_t *j = text != NULL ? json_loads(text, 0, NULL) : NULL;

    if (json_string_value(json_object_get(j, "updated")) != NULL)
        out = strdup(json_string_value(json_object_get(j, "updated")));
    json_decref(j);
    free(text);
    return out;
}

/* 1 once the status file's "updated" is no longer `first`; *now (freed
 * here on the next call) is what it says. */
static int status_changed(const struct th_env *e, const char *first, char **now)
{
    free(*now);
    *now = status_updated(e);
    return *now != NULL && strcmp(*now, first) != 0;
}

/* A status file a killed daemon of this host left (old, its pid gone) is
 * removed at the next start, and said; a fresh one, or another host's, is
 * not touched. */
START_TEST(a_gone_daemon_s_status_file_is_removed_at_start)
{
    struct th_env e;
    char dir[PATH_MAX], path[PATH_MAX * 2], host[256] = "", text[512];
    struct timespec old[2] = { { .tv_sec = 0 }, { .tv_sec = 0 } };
    const char *const names[] = { "dead.1.aa.json", "fresh.2.bb.json", "other.3.cc.json" };
    pid_t dead;
    int p, i;

    ck_assert_int_eq(gethostname(host, sizeof(host) - 1), 0);
    dead = fork(); /* a pid that ran and is gone */
    ck_assert_int_ge(dead, 0);
    if (dead == 0)
        _exit(0);
    ck_assert_int_eq(waitpid(dead, NULL, 0), dead);
    env_init(&e, NULL);
    TH_IN(dir, &e, ".cairn");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    TH_IN(dir, &e, ".cairn/status");
    ck_assert_int_eq(mkdir(dir, 0755), 0);
    for (i = 0; i < 3; i++) {
        snprintf(text, sizeof(text), "{\"host\":\"%s\",\"pid\":%ld,\"active\":[]}\n",
                 i == 2 ? "another-host.example" : host, (long)dead);
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        th_write_text(path, text);
        old[0].tv_sec = old[1].tv_sec = time(NULL) - (i == 1 ? 0 : 120);
        ck_assert_int_eq(utimensat(AT_FDCWD, path, old, 0), 0);
    }
    p = start(&e, NULL);
    th_wait_ready(p);
    snprintf(path, sizeof(path), "%s/%s", dir, names[0]);
    TH_REQUIRE(!th_exists(path), "the gone daemon's status file is still there");
    TH_REQUIRE(th_log_has(p, "removed .cairn/status/dead.1.aa.json: the daemon that wrote it"),
               "the removal went unsaid");
    for (i = 1; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
        TH_REQUIRE(th_exists(path), "%s was removed", names[i]);
    }
    th_stop(p);
    th_cleanup();
}
END_TEST

/* Two daemons on one spool and one output directory with one metrics
 * file overwrite each other's counters: the second one to start says so,
 * naming the file.  One with its own metrics_file says nothing. */
START_TEST(a_second_daemon_on_the_same_metrics_file_is_warned)
{
    static const char *const warning = "writes the same metrics file";
    struct th_env e;
    char *text;
    int p1, p2, p3;

    env_init(&e, NULL);
    p1 = start(&e, NULL);
    th_wait_ready(p1);
    /* Not a count of the folder's entries: the first write's temporary
     * (empty for a moment) was once taken for the file. */
    TH_EVENTUALLY((text = status_text(&e)) != NULL, DEADLINE_MS, "no status file");
    TH_REQUIRE(strstr(text, "/out/metrics.prom\"") != NULL,
               "the status file does not name the metrics file: %s", text);
    free(text);
    p2 = start(&e, NULL);
    th_wait_ready(p2);
    TH_REQUIRE(th_log_has(p2, warning) && th_log_has(p2, "/out/metrics.prom"),
               "the second daemon did not warn");
    env_config(&e, "\"metrics_file\": \"other.prom\"");
    p3 = start(&e, NULL);
    th_wait_ready(p3);
    TH_REQUIRE(!th_log_has(p3, warning), "a daemon with its own metrics_file was warned");
    TH_REQUIRE(!th_log_has(p1, warning), "the first daemon was warned of nothing there");
    th_cleanup();
}
END_TEST

/* An idle daemon rewrites its status file every few seconds, so `cairn
 * status` on another host can tell it from a dead one (whose file goes
 * stale after 10 s). */
START_TEST(idle_daemon_keeps_its_status_fresh)
{
    struct th_env e;
    char *first, *now = NULL;
    int p, changed;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_EVENTUALLY((first = status_updated(&e)) != NULL, DEADLINE_MS, "no status file was written");
    TH_POLL(changed, status_changed(&e, first, &now), LONG_DEADLINE_MS);
    TH_REQUIRE(changed, "an idle daemon's status file still says updated %s", first);
    free(first);
    free(now);
    kill(th_pid[p], SIGTERM);
    TH_REQUIRE(th_wait_exit(p, DEADLINE_MS) == 0, "cairnd did not exit 0 on SIGTERM");
    th_cleanup();
}
END_TEST

/* The value of the first series line of the metrics file text starting
 * with `series` (name and labels, up to the value), or -1. */
static long long series_value(const char *text, const char *series)
{
    const char *p = text;
    size_t n = strlen(series);

    while (p != NULL && *p != '\0') {
        if (strncmp(p, series, n) == 0 && p[n] == ' ')
            return strtoll(p + n + 1, NULL, 10);
        p = strchr(p, '\n');
        p = p != NULL ? p + 1 : NULL;
    }
    return -1;
}

/* cairn_bytes_read_total grows while a job runs, not in one step at its
 * end: a long job's read rate shows in Prometheus.  (The file is read
 * ahead of the answers: a small one is read whole at once.) */
START_TEST(bytes_read_are_counted_while_a_job_runs)
{
    enum {
        N = 200
    };
    struct th_env e;
    size_t len;
    char *job, path[PATH_MAX], summary[PATH_MAX];
    long long records = -1, bytes = -1;
    int p, seen = 0;
    double t0;

    env_init(&e, NULL); /* metrics every 0.2 s */
    job = slow_job(&e, N, &len);
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "long.jsonl", job, len);
    TH_OUT(path, &e, "metrics.prom");
    TH_OUT(summary, &e, "long.summary.json");
    t0 = th_now_s();
    while (!seen && !th_exists(summary) && th_now_s() - t0 < th_scaled_ms(20000) / 1000) {
        char *text = th_slurp(path, NULL);

        if (text != NULL) {
            records = series_value(text, "cairn_records_total{variant=\"slow\",status=\"ok\"}");
            bytes = series_value(text, "cairn_bytes_read_total");
            seen = records >= 20 && records < N;
        }
        free(text);
        th_sleep_ms(50);
    }
    TH_REQUIRE(seen, "no metrics file showed the job half-way (records %lld)", records);
    TH_REQUIRE(bytes > 0 && bytes <= (long long)len,
               "with %lld of %d records answered, cairn_bytes_read_total is %lld (job: %zu bytes)",
               records, N, bytes, len);
    TH_EVENTUALLY(th_exists(summary), LONG_DEADLINE_MS, "the job did not finish");
    th_stop(p);
    {
        char *text = th_slurp(path, NULL);

        TH_REQUIRE(text != NULL && series_value(text, "cairn_bytes_read_total") == (long long)len,
                   "at the end, bytes read is not the job's size %zu: %s", len, text);
        free(text);
    }
    free(job);
    th_cleanup();
}
END_TEST

START_TEST(sigterm_timeout_leaves_job_for_restart)
{
    enum {
        N = 100
    };
    struct th_env e;
    size_t len;
    char *huge, path[PATH_MAX], gate[PATH_MAX];
    int p, code;

    env_init(&e, "\"shutdown_timeout_s\": 0.2");
    huge = slow_job(&e, N, &len);
    /* The job cannot end while the daemon runs: a stop that waited for it
     * would never exit. */
    th_close_slow_gate(e.root, gate);
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "huge.jsonl", huge, len);
    TH_IN(path, &e, ".cairn/active/huge.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the job was not claimed");
    kill(th_pid[p], SIGTERM);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after SIGTERM with a timed-out job", code);
    TH_REQUIRE(th_exists(path), "the unfinished job is not left in .cairn/active/");
    TH_OUT(path, &e, "huge.summary.json");
    TH_REQUIRE(!th_exists(path), "the job finished: it was too small to test the timeout");
    TH_OUT(path, &e, "huge.results.jsonl");
    TH_REQUIRE(!th_exists(path), "a results file without a summary");
    require_no_temp_files(&e);
    TH_OUT(path, &e, "metrics.prom");
    TH_REQUIRE(th_exists(path), "no metrics written at exit");

    /* The next start runs it again, from the start. */
    th_open_gate(gate);
    p = start(&e, "--once");
    code = th_wait_exit(p, 2 * LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "the restart exited %d", code);
    json_decref(summary_of(&e, "huge", "ok", N));
    TH_OUT(path, &e, "huge.results.jsonl");
    TH_REQUIRE(count_ok_lines(path) == N, "results line count");
    TH_IN(path, &e, ".cairn/active");
    TH_REQUIRE(th_count_entries(path, "") == 0, "active/ is not empty");
    require_no_temp_files(&e);
    free(huge);
    th_cleanup();
}
END_TEST

/* Ctrl-C in a terminal stops the daemon as SIGTERM does: an ordered stop,
 * exit 0, the log saying which signal it was. */
START_TEST(sigint_stops_like_sigterm)
{
    struct th_env e;
    int p, code;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    kill(th_pid[p], SIGINT);
    code = th_wait_exit(p, DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after SIGINT", code);
    TH_REQUIRE(th_log_has(p, "SIGINT: no new jobs"), "the stop does not name SIGINT");
    th_cleanup();
}
END_TEST

/* A second SIGTERM (an impatient operator, or systemd and a script both
 * stopping it) changes nothing: the active job still finishes whole, the
 * stop is begun once, the exit is 0; and it is heard, with what a SIGKILL
 * would cost. */
START_TEST(second_sigterm_still_finishes_the_job)
{
    enum {
        N = 100
    };
    struct th_env e;
    size_t len;
    char *job, path[PATH_MAX], gate[PATH_MAX];
    int p, code;

    env_init(&e, NULL);
    job = slow_job(&e, N, &len);
    th_close_slow_gate(e.root, gate); /* the job runs until both are heard */
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "twice.jsonl", job, len);
    TH_IN(path, &e, ".cairn/active/twice.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the job was not claimed");
    kill(th_pid[p], SIGTERM);
    TH_EVENTUALLY(th_log_has(p, "SIGTERM: no new jobs"), DEADLINE_MS, "the first SIGTERM");
    kill(th_pid[p], SIGTERM);
    TH_EVENTUALLY(th_log_has(p, "SIGTERM again"), DEADLINE_MS, "the second SIGTERM");
    th_open_gate(gate);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after two SIGTERMs", code);
    TH_REQUIRE(th_log_lines_with(p, "no new jobs") == 1, "the stop was begun %d times",
               th_log_lines_with(p, "no new jobs"));
    TH_REQUIRE(th_log_has(p, "SIGTERM again: already stopping, 1 active job(s) left"),
               "the second SIGTERM went unsaid");
    json_decref(summary_of(&e, "twice", "ok", N));
    TH_IN(path, &e, ".cairn/done/twice.jsonl");
    TH_REQUIRE(th_exists(path), "the input is not in done/");
    require_no_temp_files(&e);
    free(job);
    th_cleanup();
}
END_TEST

/* --once stopped by SIGTERM (a batch script's timeout): the job it runs
 * finishes whole and the exit is 0, as for a daemon. */
START_TEST(once_sigterm_finishes_active_job)
{
    enum {
        N = 100
    };
    struct th_env e;
    size_t len;
    char *job, path[PATH_MAX], gate[PATH_MAX];
    int p, code;

    env_init(&e, NULL);
    job = slow_job(&e, N, &len);
    th_close_slow_gate(e.root, gate); /* the job runs until the stop has begun */
    drop_job(&e, "first.jsonl", job, len);
    p = start(&e, "--once");
    TH_IN(path, &e, ".cairn/active/first.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the job was not claimed");
    kill(th_pid[p], SIGTERM);
    TH_EVENTUALLY(th_log_has(p, "SIGTERM: no new jobs; waiting for 1 active job"), DEADLINE_MS,
                  "SIGTERM was not heard while the job ran");
    th_open_gate(gate);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "--once exited %d after SIGTERM", code);
    json_decref(summary_of(&e, "first", "ok", N));
    TH_IN(path, &e, ".cairn/done/first.jsonl");
    TH_REQUIRE(th_exists(path), "the input is not in done/");
    require_no_temp_files(&e);
    free(job);
    th_cleanup();
}
END_TEST

/* The input directory moved away under a running daemon (an operator's
 * mistake): it cannot see new jobs any more, so it says so naming the
 * directory and exits 1 for its supervisor, rather than idle forever. */
START_TEST(input_dir_moved_away_exits_1)
{
    struct th_env e;
    char moved[PATH_MAX];
    int p, code;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    th_pathf(moved, "%s/in.moved", e.root);
    ck_assert_int_eq(rename(e.in, moved), 0);
    code = th_wait_exit(p, DEADLINE_MS);
    TH_REQUIRE(code == 1, "exit %d with the input directory gone", code);
    TH_REQUIRE(th_log_lines_with(p, "was removed or moved") == 1 && th_log_has(p, e.in),
               "no one line naming the input directory");
    th_cleanup();
}
END_TEST

/* The input directory removed, contents and all (rm -rf): inotify says
 * nothing while the daemon holds the directory open, so the daemon must
 * see it by itself, within seconds, and exit 1 as for a move. */
START_TEST(input_dir_removed_exits_1)
{
    struct th_env e;
    char line[PATH_MAX + 64];
    int p, code;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    th_rm_tree_live(e.in);
    code = th_wait_exit(p, DEADLINE_MS);
    TH_REQUIRE(code == 1, "exit %d with the input directory removed", code);
    snprintf(line, sizeof(line), "input directory %s was removed or moved", e.in);
    TH_REQUIRE(th_log_lines_with(p, line) == 1, "no one line naming the removed input directory");
    th_cleanup();
}
END_TEST

/* shutdown_timeout_s 0: a stop does not wait at all; the job is left in
 * active/ for the next start, nothing of it visible. */
START_TEST(sigterm_with_no_shutdown_timeout_leaves_at_once)
{
    struct th_env e;
    size_t len;
    char *job, path[PATH_MAX], gate[PATH_MAX];
    int p, code;

    env_init(&e, "\"shutdown_timeout_s\": 0");
    job = slow_job(&e, 300, &len);
    /* The job never ends while the daemon runs: a stop that waited for it
     * would never exit. */
    th_close_slow_gate(e.root, gate);
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "cut.jsonl", job, len);
    TH_IN(path, &e, ".cairn/active/cut.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the job was not claimed");
    kill(th_pid[p], SIGTERM);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after SIGTERM", code);
    TH_REQUIRE(th_exists(path), "the unfinished job is not left in .cairn/active/");
    /* An exit 0 is a clean one: the status file goes, and the log ends
     * with what was left. */
    TH_IN(path, &e, ".cairn/status");
    TH_REQUIRE(th_count_entries(path, "") == 0, "the status file is left after an exit 0");
    TH_REQUIRE(th_log_has(p, "shutdown_timeout_s (0 s) has passed with 1 job(s) still running") &&
                   th_log_has(p, "stopped: 0 job(s) ok, 0 failed, 1 left for the next start"),
               "the log does not say what the timed-out stop left");
    TH_OUT(path, &e, "cut.summary.json");
    TH_REQUIRE(!th_exists(path), "the job finished: it was too small to test the stop");
    TH_OUT(path, &e, "cut.results.jsonl");
    TH_REQUIRE(!th_exists(path), "a results file without a summary");
    require_no_temp_files(&e);
    free(job);
    th_cleanup();
}
END_TEST

/* A file dropped under the name of a job that is running (inotify tells,
 * but the name is taken) runs once that job ends, as NAME~2: with no
 * rescans at all, only the job's end can find it. */
START_TEST(same_name_dropped_while_it_runs_runs_next)
{
    static const char one[] = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n";
    char path[PATH_MAX];
    struct th_env e;
    size_t len;
    char *huge;
    int p;

    env_init(&e, NULL);
    huge = slow_job(&e, 100, &len); /* a second or more of work */
    th_write_text(e.cfg, "{\"min_age_ms\": 0, \"rescan_interval_s\": 0, "
                         "\"metrics_interval_s\": 0, \"log_level\": \"debug\"}\n");
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_job(&e, "twice.jsonl", huge, len);
    TH_IN(path, &e, ".cairn/active/twice.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the first twice.jsonl was not claimed");
    drop_job(&e, "twice.jsonl", one, strlen(one));
    wait_summary(&e, "twice", LONG_DEADLINE_MS);
    TH_OUT(path, &e, "twice.summary.json");
    TH_REQUIRE(th_exists(path), "the first run has no summary");
    wait_summary(&e, "twice~2", DEADLINE_MS);
    json_decref(summary_of(&e, "twice~2", "ok", 1));
    TH_REQUIRE(th_running(p), "cairnd died");
    th_stop(p);
    free(huge);
    th_cleanup();
}
END_TEST

/* The daemon, started with the n-th call of kind on paths under `under`
 * failing with EIO (tests/faults/shims/syscall_fault.c); processes it starts
 * later run without the shim. */
static int start_with_fault(const struct th_env *e, const char *kind, const char *n,
                            const char *under)
{
    const char *shim = getenv("CAIRN_TEST_SYSCALL_FAULT");
    const char *asan = getenv("ASAN_OPTIONS");
    char asan_opts[512];
    int p;

    ck_assert_ptr_nonnull(shim);
    /* Under ASan the shim comes before its runtime in the preload list. */
    snprintf(asan_opts, sizeof(asan_opts), "%s:verify_asan_link_order=0", asan ? asan : "");
    setenv("ASAN_OPTIONS", asan_opts, 1);
    setenv("LD_PRELOAD", shim, 1);
    setenv("CAIRN_FAULT_CALL", kind, 1);
    setenv("CAIRN_FAULT_N", n, 1);
    setenv("CAIRN_FAULT_ERRNO", "EIO", 1);
    setenv("CAIRN_FAULT_UNDER", under, 1);
    p = start(e, NULL);
    unsetenv("LD_PRELOAD");
    unsetenv("CAIRN_FAULT_CALL");
    return p;
}

/* A job of many batches whose results cannot be written as they stream
 * (an I/O error on the first batch's write), or whose file cannot be read
 * (an I/O error on its first read): the machine's trouble, not the job's.
 * It is handed back with one line naming the step and the error, nothing
 * of it visible, and its next try finishes it whole. */
static void io_error_mid_stream(const char *kind, const char *n, int in_input, const char *step)
{
    enum {
        N = 20000
    };
    struct th_env e;
    size_t len;
    char *big = repeat(SMALL_III, N, &len), path[PATH_MAX], line[128];
    int p;

    env_init(&e, NULL);
    p = start_with_fault(&e, kind, n, in_input ? e.in : e.out);
    th_wait_ready(p);
    drop_job(&e, "stream.jsonl", big, len);
    snprintf(line, sizeof(line), "job stream: cannot %s: i/o error; handed back to the spool",
             step);
    TH_EVENTUALLY(th_log_has(p, line), DEADLINE_MS, "no line says: %s", line);
    TH_OUT(path, &e, "stream.summary.json");
    TH_REQUIRE(!th_exists(path) || th_log_has(p, "job stream finished"),
               "a summary without a finished run");
    wait_summary(&e, "stream", LONG_DEADLINE_MS);
    json_decref(summary_of(&e, "stream", "ok", N));
    TH_OUT(path, &e, "stream.results.jsonl");
    TH_REQUIRE(count_ok_lines(path) == N, "results line count");
    TH_IN(path, &e, ".cairn/done/stream.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the input is not in done/");
    th_stop(p);
    require_no_temp_files(&e);
    free(big);
    th_cleanup();
}

START_TEST(results_write_error_hands_back_then_completes)
{
    io_error_mid_stream("write", "1", 0, "write results");
}
END_TEST

START_TEST(job_read_error_hands_back_then_completes)
{
    io_error_mid_stream("read", "2", 1, "read the job file");
}
END_TEST

/* A file dropped under the name of a running job, as in
 * same_name_dropped_while_it_runs_runs_next, but the first run cannot
 * publish (its first rename in the output directory fails), and its way
 * back to the spool is taken by the new file: it stays in active/, said
 * in one line, and runs again from there on the next rescan; the new file
 * waits, then runs as twice~2.  Neither is lost, neither replaces the
 * other. */
START_TEST(failed_hand_back_beside_a_new_file_of_the_name_loses_neither)
{
    static const char one[] = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n";
    char path[PATH_MAX];
    struct th_env e;
    size_t len;
    char *huge;
    int p;

    env_init(&e, NULL);
    huge = slow_job(&e, 100, &len);
    th_write_text(e.cfg, "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, "
                         "\"metrics_interval_s\": 0, \"log_level\": \"debug\"}\n");
    p = start_with_fault(&e, "rename", "1", e.out);
    th_wait_ready(p);
    drop_job(&e, "twice.jsonl", huge, len);
    TH_IN(path, &e, ".cairn/active/twice.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the first twice.jsonl was not claimed");
    drop_job(&e, "twice.jsonl", one, strlen(one));
    TH_EVENTUALLY(th_log_has(p, "job twice: cannot publish results: i/o error; left in "
                                ".cairn/active/"),
                  LONG_DEADLINE_MS, "no line says the job stays in active/");
    wait_summary(&e, "twice", LONG_DEADLINE_MS);
    json_decref(summary_of(&e, "twice", "ok", 100));
    wait_summary(&e, "twice~2", DEADLINE_MS);
    json_decref(summary_of(&e, "twice~2", "ok", 1));
    TH_IN(path, &e, ".cairn/done/twice.jsonl");
    TH_REQUIRE(th_exists(path), "the first input is not in done/");
    TH_IN(path, &e, ".cairn/done/twice~2.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the second input is not in done/");
    TH_REQUIRE(th_running(p), "cairnd died");
    th_stop(p);
    require_no_temp_files(&e);
    free(huge);
    th_cleanup();
}
END_TEST

/* Starts the daemon on a disk where making a metrics temporary durable
 * waits, on a pool thread, for the test to remove the file gate
 * (slow_fsync.c), and waits until the first periodic write
 * (metrics_interval_s 0.2) sits in that fsync. */
static int start_slow_metrics_disk(const struct th_env *e, const char *gate)
{
    const char *shim = getenv("CAIRN_TEST_SLOW_FSYNC");
    const char *asan = getenv("ASAN_OPTIONS");
    char asan_opts[512], held[PATH_MAX];
    int p;

    ck_assert_msg(shim != NULL, "CAIRN_TEST_SLOW_FSYNC is not set (run through meson test)");
    th_write_text(gate, "");
    th_pathf(held, "%s.held", gate);
    /* Check forks each test: these reach this test's processes only. */
    setenv("LD_PRELOAD", shim, 1);
    setenv("CAIRN_SLOW_FSYNC_SUFFIX", ".m.tmp", 1);
    setenv("CAIRN_SLOW_FSYNC_GATE", gate, 1);
    snprintf(asan_opts, sizeof(asan_opts), "%s:verify_asan_link_order=0", asan ? asan : "");
    setenv("ASAN_OPTIONS", asan_opts, 1);
    p = start(e, NULL);
    unsetenv("LD_PRELOAD");
    th_wait_ready(p);
    TH_EVENTUALLY(th_exists(held), DEADLINE_MS,
                  "no metrics write reached its fsync (%s): the slow disk was not simulated", held);
    return p;
}

/* The shutdown timeout while a periodic metrics write is still on the
 * pool: the daemon waits for it before leaving, so no temporary of it is
 * left in the output directory, and the metrics the run ends with are its
 * last. */
enum {
    SLOW_JOB_RECORDS = 100
};

/* Gates (PATH_MAX each) in e's directory: the metrics write's fsync, and
 * plugin "slow"'s records. */
struct gates {
    char fsync[PATH_MAX];
    char job[PATH_MAX];
};

/* A daemon with shutdown_timeout_s 0.2 whose metrics write waits at its
 * fsync for g->fsync, sent SIGTERM once it has claimed a job of
 * SLOW_JOB_RECORDS slow records that wait for g->job (*huge, freed by the
 * caller): both gates are closed, so the shutdown timeout comes with the
 * job and the write in flight. */
static void sigterm_with_a_slow_job(struct th_env *e, struct gates *g, char **huge, int *p)
{
    char path[PATH_MAX];
    size_t len;

    env_init(e, "\"shutdown_timeout_s\": 0.2");
    *huge = slow_job(e, SLOW_JOB_RECORDS, &len);
    th_close_slow_gate(e->root, g->job);
    th_pathf(g->fsync, "%s/fsync-gate", e->root);
    *p = start_slow_metrics_disk(e, g->fsync);
    drop_job(e, "huge.jsonl", *huge, len);
    TH_IN(path, e, ".cairn/active/huge.jsonl");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the job was not claimed");
    kill(th_pid[*p], SIGTERM);
}

START_TEST(sigterm_timeout_waits_for_a_file_write)
{
    char path[PATH_MAX], *names;
    struct gates g;
    struct th_env e;
    char *huge;
    int p, code;

    sigterm_with_a_slow_job(&e, &g, &huge, &p);
    TH_EVENTUALLY(th_log_has(p, "shutdown_timeout_s (0.2 s) has passed") || !th_running(p),
                  DEADLINE_MS, "the shutdown timeout was not said");
    /* Now the run ends, but for the write held at its fsync. */
    TH_REQUIRE(th_running(p), "cairnd left without waiting for the metrics write on its pool");
    th_open_gate(g.fsync);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_IN(path, &e, ".cairn/active/huge.jsonl");
    TH_REQUIRE(code == 0, "exit %d after SIGTERM with a timed-out job", code);
    TH_REQUIRE(th_exists(path), "the unfinished job is not left in .cairn/active/");
    names = th_list_dir(e.out, " ");
    TH_REQUIRE(th_count_left_temps(e.out, ".") == 0,
               "the metrics write in flight at the shutdown timeout left its temporary: %s", names);
    free(names);
    TH_OUT(path, &e, "metrics.prom");
    TH_REQUIRE(th_file_contains(path, "\ncairn_start_time_seconds "),
               "metrics.prom is not a whole exposition");
    free(huge);
    th_cleanup();
}
END_TEST

/* ... and a write that never finishes (its gate stays closed): after the
 * 5 s the run waits for it, the run leaves without it, saying so (exit 0),
 * and, as the warning says, the next start removes the temporary it left
 * and runs the job whole. */
START_TEST(sigterm_timeout_leaves_a_stuck_file_write_behind)
{
    char *names;
    struct gates g;
    struct th_env e;
    char *huge;
    int p, code;

    sigterm_with_a_slow_job(&e, &g, &huge, &p);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after SIGTERM with a stuck file write", code);
    TH_REQUIRE(th_log_has(p, "a file write on the pool has not finished after 5 s"),
               "the stuck write was not said");
    TH_REQUIRE(th_count_left_temps(e.out, ".") > 0,
               "no temporary was left (the write was not stuck)");

    th_open_gate(g.job); /* the restart runs the job to its end */
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_EVENTUALLY(th_log_has(p, "temporary file(s) left by a crash"), DEADLINE_MS,
                  "the start did not remove the stuck write's temporary");
    wait_summary(&e, "huge", LONG_DEADLINE_MS);
    json_decref(summary_of(&e, "huge", "ok", SLOW_JOB_RECORDS));
    names = th_list_dir(e.out, " ");
    TH_REQUIRE(th_count_left_temps(e.out, ".") == 0, "the temporary outlived a start: %s", names);
    free(names);
    th_stop(p);
    free(huge);
    th_cleanup();
}
END_TEST

/* A clean stop while a periodic metrics write, rendered before the last
 * job ended, is still on the pool: that older exposition lands after the
 * final one, and must not be what the stopped daemon leaves behind. */
START_TEST(sigterm_leaves_the_final_metrics)
{
    static const char one[] = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n";
    char path[PATH_MAX], gate[PATH_MAX];
    struct th_env e;
    int p, code;

    env_init(&e, NULL);
    th_pathf(gate, "%s/fsync-gate", e.root);
    p = start_slow_metrics_disk(&e, gate); /* rendered now, with no job */
    drop_job(&e, "one.jsonl", one, strlen(one));
    wait_summary(&e, "one", DEADLINE_MS);
    kill(th_pid[p], SIGTERM);
    /* The stop has rendered its final metrics (or left them to follow the
     * write in flight): only now does the older write land. */
    TH_EVENTUALLY(th_log_has(p, "SIGTERM: no new jobs"), DEADLINE_MS, "the SIGTERM");
    th_open_gate(gate);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after SIGTERM", code);
    TH_OUT(path, &e, "metrics.prom");
    TH_REQUIRE(th_file_contains(path, "\ncairn_jobs_total{status=\"ok\"} 1\n"),
               "the stopped daemon's metrics.prom does not count its job: an older write "
               "replaced the final one");
    require_no_temp_files(&e);
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 9. SIGHUP                                                           */
/* ------------------------------------------------------------------ */

#define TWO_VARIANTS                                                          \
    "{\"id\":1,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n" \
    "{\"id\":2,\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n"

/* A plugin added, then removed, each followed by SIGHUP. */
START_TEST(sighup_loads_new_plugins)
{
    struct th_env e;
    char src[PATH_MAX], dst[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX];
    json_t *res, *r;
    int p;

    env_init(&e, NULL);
    th_pathf(e.plugins, "%s/plugins", e.root);
    ck_assert_int_eq(mkdir(e.plugins, 0755), 0);
    th_pathf(src, "%s/stone-game.so", g_plugins);
    th_pathf(dst, "%s/stone-game.so", e.plugins);
    th_copy_file(src, dst, 0755);
    p = start(&e, NULL);
    th_wait_ready(p);

    drop_text(&e, "before.jsonl", TWO_VARIANTS);
    wait_summary(&e, "before", DEADLINE_MS);
    TH_OUT(path, &e, "before.results.jsonl");
    res = th_load_results(path);
    TH_REQUIRE(json_array_size(res) == 2, "2 result lines");
    TH_REQUIRE(strcmp(th_str_field(json_array_get(res, 0), "status"), "ok") == 0, "stone-game");
    r = json_object_get(json_array_get(res, 1), "error");
    TH_REQUIRE(r != NULL && strcmp(th_str_field(r, "code"), "unknown_variant") == 0,
               "stone-game-iii without its plugin is not unknown_variant");
    json_decref(res);

    th_pathf(src, "%s/stone-game-iii.so", g_plugins);
    th_pathf(tmp, "%s/.stone-game-iii.so.tmp", e.plugins);
    th_pathf(dst, "%s/stone-game-iii.so", e.plugins);
    th_copy_file(src, tmp, 0755);
    ck_assert_int_eq(rename(tmp, dst), 0);
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "reloaded"), DEADLINE_MS, "no \"reloaded\" after SIGHUP");
    TH_REQUIRE(th_running(p), "cairnd died on SIGHUP");

    drop_text(&e, "after.jsonl", TWO_VARIANTS);
    wait_summary(&e, "after", DEADLINE_MS);
    TH_OUT(path, &e, "after.results.jsonl");
    res = th_load_results(path);
    TH_REQUIRE(json_array_size(res) == 2, "2 result lines");
    r = json_array_get(res, 1);
    TH_REQUIRE(strcmp(th_str_field(r, "status"), "ok") == 0 &&
                   strcmp(th_str_field(r, "answer"), "Bob") == 0,
               "stone-game-iii after the reload: %s", json_dumps(r, JSON_COMPACT));
    json_decref(res);

    /* Taken away again: the reload says which plugin went and what its
     * records get from now on, and they get it. */
    ck_assert_int_eq(unlink(dst), 0);
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_lines_with(p, "reloaded: ") == 2, DEADLINE_MS, "no second \"reloaded\"");
    TH_REQUIRE(th_log_has(p, "reload: plugin stone-game-iii (") &&
                   th_log_has(p, "stone-game-iii.so) is gone: records naming it get "
                                 "unknown_variant from now on"),
               "the removed plugin was not said");
    TH_REQUIRE(th_log_lines_with(p, "is gone") == 1, "%d plugins said gone, want 1",
               th_log_lines_with(p, "is gone"));
    drop_text(&e, "gone.jsonl", TWO_VARIANTS);
    wait_summary(&e, "gone", DEADLINE_MS);
    TH_OUT(path, &e, "gone.results.jsonl");
    res = th_load_results(path);
    TH_REQUIRE(json_array_size(res) == 2, "2 result lines");
    TH_REQUIRE(strcmp(th_str_field(json_array_get(res, 0), "status"), "ok") == 0, "stone-game");
    r = json_object_get(json_array_get(res, 1), "error");
    TH_REQUIRE(r != NULL && strcmp(th_str_field(r, "code"), "unknown_variant") == 0,
               "stone-game-iii after its plugin was removed is not unknown_variant");
    json_decref(res);
    th_stop(p);
    th_cleanup();
}
END_TEST

/* A plugin file cut short (a copy interrupted, a full disk) renamed in and
 * followed by SIGHUP: the reload refuses it, the daemon keeps running on the
 * set it had (before core/host/plugin_elf.c: SIGBUS, exit 135). */
START_TEST(sighup_truncated_plugin_keeps_old_set)
{
    struct th_env e;
    char src[PATH_MAX], dst[PATH_MAX], tmp[PATH_MAX], path[PATH_MAX];
    size_t len;
    char *bytes;
    json_t *res;
    int p;

    env_init(&e, NULL);
    th_pathf(e.plugins, "%s/plugins", e.root);
    ck_assert_int_eq(mkdir(e.plugins, 0755), 0);
    th_pathf(src, "%s/stone-game.so", g_plugins);
    th_pathf(dst, "%s/stone-game.so", e.plugins);
    th_copy_file(src, dst, 0755);
    p = start(&e, NULL);
    th_wait_ready(p);

    th_pathf(src, "%s/stone-game-iii.so", g_plugins);
    bytes = th_read_file(src, &len);
    th_pathf(tmp, "%s/.stone-game-iii.so.tmp", e.plugins);
    th_pathf(dst, "%s/stone-game-iii.so", e.plugins);
    th_write_file(tmp, bytes, 1138, 0755);
    free(bytes);
    ck_assert_int_eq(rename(tmp, dst), 0);
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "keeping the old configuration and plugins"), DEADLINE_MS,
                  "no refusal after SIGHUP with a truncated plugin");
    TH_REQUIRE(th_running(p), "cairnd died on SIGHUP with a truncated plugin");
    TH_REQUIRE(th_log_has(p, dst) && th_log_has(p, "truncated"),
               "the log does not name the truncated file");

    drop_text(&e, "after.jsonl", TWO_VARIANTS);
    wait_summary(&e, "after", DEADLINE_MS);
    TH_OUT(path, &e, "after.results.jsonl");
    res = th_load_results(path);
    TH_REQUIRE(json_array_size(res) == 2, "2 result lines");
    TH_REQUIRE(strcmp(th_str_field(json_array_get(res, 0), "status"), "ok") == 0,
               "stone-game stopped working after the refused reload");
    json_decref(res);
    th_stop(p);
    th_cleanup();
}
END_TEST

START_TEST(sighup_bad_config_keeps_old)
{
    struct th_env e;
    char path[PATH_MAX];
    int p;

    /* keep_inputs false: only the old configuration deletes inputs. */
    env_init(&e, "\"keep_inputs\": false");
    p = start(&e, NULL);
    th_wait_ready(p);
    th_write_text(e.cfg, "{ \"min_age_ms\": 200, this is not JSON\n");
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "keeping"), DEADLINE_MS, "no \"keeping\" after a bad reload");
    TH_REQUIRE(th_running(p), "cairnd died on a bad reload");
    TH_REQUIRE(!th_log_has(p, "reloaded"), "a broken configuration was applied");

    drop_text(&e, "still.jsonl", TWO_VARIANTS);
    wait_summary(&e, "still", DEADLINE_MS);
    json_decref(summary_of(&e, "still", "ok", 2));
    wait_active_empty(&e);
    TH_IN(path, &e, ".cairn/done/still.jsonl");
    TH_REQUIRE(!th_exists(path), "keep_inputs reverted: the old configuration was not kept");
    TH_IN(path, &e, "still.jsonl");
    TH_REQUIRE(!th_exists(path), "the input is still in the spool");
    th_stop(p);
    th_cleanup();
}
END_TEST

/* The cairnd of a build tree, with no plugin directory named anywhere,
 * loads the plugins built beside it, and a SIGHUP reloads those same
 * plugins, not the installed default (which does not exist before
 * `meson install`), and jobs still run. */
START_TEST(sighup_in_a_build_tree_reloads_its_plugins)
{
    struct th_env e;
    int p;

    env_init(&e, NULL);
    {
        char *argv[] = { (char *)g_cairnd, "-c", e.cfg, "--input", e.in, "--output", e.out, NULL };

        p = spawn(&e, argv);
    }
    th_wait_ready(p);
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "reloaded: ") || th_log_has(p, "keeping the old"), DEADLINE_MS,
                  "the reload never ended");
    TH_REQUIRE(th_log_has(p, "reloaded: ") && !th_log_has(p, "keeping the old"),
               "a build tree's cairnd refused its own plugins on SIGHUP");
    drop_text(&e, "after.jsonl", SMALL_III);
    wait_summary(&e, "after", DEADLINE_MS);
    kill(th_pid[p], SIGTERM);
    ck_assert_int_eq(th_wait_exit(p, LONG_DEADLINE_MS), 0);
    th_cleanup();
}
END_TEST

/* A umask added by a reload applies to the outputs of jobs begun after
 * it (an operator tightening a running daemon's permissions). */
START_TEST(sighup_new_umask_applies_to_new_outputs)
{
    struct th_env e;
    char path[PATH_MAX];
    struct stat st;
    int p;

    env_init(&e, "\"umask\": \"0022\"");
    p = start(&e, NULL);
    th_wait_ready(p);
    drop_text(&e, "before.jsonl", SMALL_III);
    wait_summary(&e, "before", DEADLINE_MS);
    TH_OUT(path, &e, "before.results.jsonl");
    TH_REQUIRE(stat(path, &st) == 0 && (st.st_mode & 0777) == 0644,
               "before the reload: mode %04o, expected 0644", (unsigned)(st.st_mode & 0777));
    env_config(&e, "\"umask\": \"0077\"");
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "reloaded: "), DEADLINE_MS, "the reload was not applied");
    drop_text(&e, "after.jsonl", SMALL_III);
    wait_summary(&e, "after", DEADLINE_MS);
    TH_OUT(path, &e, "after.results.jsonl");
    TH_REQUIRE(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
               "after the reload: results mode %04o, expected 0600", (unsigned)(st.st_mode & 0777));
    TH_OUT(path, &e, "after.summary.json");
    TH_REQUIRE(stat(path, &st) == 0 && (st.st_mode & 0777) == 0600,
               "after the reload: summary mode %04o, expected 0600", (unsigned)(st.st_mode & 0777));
    th_stop(p);
    th_cleanup();
}
END_TEST

/* The configuration file replaced by a FIFO (or a file nobody will
 * finish writing): the reload refuses it, naming it, instead of waiting in
 * open(2) for a writer with the loop held (no job claimed, SIGTERM
 * unheard); the old configuration stays. */
START_TEST(sighup_fifo_config_keeps_old)
{
    struct th_env e;
    int p, code;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    ck_assert_int_eq(unlink(e.cfg), 0);
    ck_assert_int_eq(mkfifo(e.cfg, 0600), 0);
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "keeping the old configuration"), DEADLINE_MS,
                  "no refusal after SIGHUP with a FIFO as the configuration");
    TH_REQUIRE(th_log_has(p, e.cfg) && th_log_has(p, "is a FIFO, not a regular file"),
               "the refusal does not name the FIFO");
    TH_REQUIRE(th_running(p), "cairnd died on SIGHUP with a FIFO as the configuration");
    drop_text(&e, "after.jsonl", SMALL_III);
    wait_summary(&e, "after", DEADLINE_MS);
    kill(th_pid[p], SIGTERM);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after SIGTERM", code);
    th_cleanup();
}
END_TEST

/* The sum of N over the log's "N SIGHUPs coalesced into one reload"
 * lines. */
static int coalesced_signals(int p)
{
    static const char mark[] = " SIGHUPs coalesced into one reload";
    char *text = th_slurp(th_log[p], NULL), *hit, *digits;
    int sum = 0;

    for (hit = text; hit != NULL && (hit = strstr(hit, mark)) != NULL; hit += sizeof(mark) - 1) {
        for (digits = hit; digits > text && digits[-1] >= '0' && digits[-1] <= '9'; digits--)
            ;
        sum += atoi(digits);
    }
    free(text);
    return sum;
}

static int reloads_begun(int p)
{
    return th_log_lines_with(p, "SIGHUP: reloading") +
           th_log_lines_with(p, " SIGHUPs coalesced into one reload");
}

static int reloads_ended(int p)
{
    return th_log_lines_with(p, "reloaded: ") + th_log_lines_with(p, "keeping the old");
}

/* A storm of SIGHUPs stalls no job: the signals that come while a reload
 * runs make one more reload, not one each, and the reload runs off the
 * loop.  A plugin that hangs in its constructor holds each reload for the
 * probe's allowance (10 s), which on the loop stalled every job for that
 * long per signal.  Each signal is sent once the daemon has said it got
 * the one before (the kernel merges a pending SIGHUP with the next), so
 * every one can be counted in the log. */
START_TEST(sighup_storm_coalesces_and_jobs_run)
{
    enum {
        SIGNALS = 200
    };
    const char *bad = getenv("CAIRN_TEST_BAD_PLUGIN_DIR");
    char src[PATH_MAX], hang[PATH_MAX];
    struct th_env e;
    int p, i, code, begun;

    ck_assert_msg(bad != NULL, "CAIRN_TEST_BAD_PLUGIN_DIR is not set");
    env_init(&e, NULL);
    th_pathf(e.plugins, "%s/plugins", e.root);
    ck_assert_int_eq(mkdir(e.plugins, 0755), 0);
    ck_assert_int_eq(th_copy_plugins(g_plugins, e.plugins), 0);
    p = start(&e, NULL);
    th_wait_ready(p);
    /* Only now: at start it would stop the daemon starting. */
    th_pathf(src, "%s/hang_in_constructor.so", bad);
    th_pathf(hang, "%s/hang_in_constructor.so", e.plugins);
    th_copy_file(src, hang, 0755);

    for (i = 1; i <= SIGNALS; i++) {
        kill(th_pid[p], SIGHUP);
        TH_EVENTUALLY(th_log_lines_with(p, "SIGHUP: reloading") +
                              th_log_lines_with(p, "SIGHUP during a reload: ") ==
                          i,
                      LONG_DEADLINE_MS, "SIGHUP %d of %d was never said received", i, SIGNALS);
    }
    drop_text(&e, "storm.jsonl", SMALL_III);
    wait_summary(&e, "storm", LONG_DEADLINE_MS);
    json_decref(summary_of(&e, "storm", "ok", 1));

    /* The reload that comes next reads the directory without it. */
    ck_assert_int_eq(unlink(hang), 0);
    /* Every signal that waited is in a coalesced reload's count, and
     * every reload begun has ended: no reload is left to come. */
    TH_EVENTUALLY(coalesced_signals(p) == th_log_lines_with(p, "SIGHUP during a reload: ") &&
                      reloads_begun(p) == reloads_ended(p),
                  LONG_DEADLINE_MS,
                  "the reloads never settled: %d signal(s) coalesced of %d "
                  "that waited, %d reload(s) begun, %d ended",
                  coalesced_signals(p), th_log_lines_with(p, "SIGHUP during a reload: "),
                  reloads_begun(p), reloads_ended(p));
    begun = reloads_begun(p);
    TH_REQUIRE(th_log_lines_with(p, "SIGHUP: reloading") + coalesced_signals(p) == SIGNALS,
               "%d signal(s) began a reload and %d were coalesced: %d sent",
               th_log_lines_with(p, "SIGHUP: reloading"), coalesced_signals(p), SIGNALS);
    TH_REQUIRE(begun >= 2 && begun < SIGNALS / 4, "%d reloads for %d SIGHUPs", begun, SIGNALS);
    TH_REQUIRE(th_running(p), "cairnd died in the storm");
    kill(th_pid[p], SIGTERM);
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "exit %d after SIGTERM", code);
    th_cleanup();
}
END_TEST

/* metrics_file changed by a reload: the old file goes (node_exporter
 * refuses the same series from two files, and it would never change
 * again), the new one comes. */
START_TEST(sighup_new_metrics_file_removes_the_old)
{
    struct th_env e;
    char old[PATH_MAX], now[PATH_MAX];
    int p;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_OUT(old, &e, "metrics.prom");
    TH_OUT(now, &e, "node-a.prom");
    TH_EVENTUALLY(th_exists(old), DEADLINE_MS, "%s never written", old);
    env_config(&e, "\"metrics_file\": \"node-a.prom\"");
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "reloaded: "), DEADLINE_MS, "the reload was not applied");
    TH_EVENTUALLY(th_exists(now), DEADLINE_MS, "%s never written", now);
    TH_EVENTUALLY(!th_exists(old), DEADLINE_MS, "the old %s stays beside %s", old, now);
    TH_REQUIRE(th_log_has(p, "metrics_file is now node-a.prom: removed the old "),
               "the removal was not said");
    drop_text(&e, "after.jsonl", SMALL_III);
    wait_summary(&e, "after", DEADLINE_MS);
    th_stop(p);
    TH_REQUIRE(!th_exists(old), "the old %s came back", old);
    TH_REQUIRE(th_file_contains(now, "\ncairn_jobs_total{status=\"ok\"} 1\n"),
               "the new metrics file does not count the job");
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 10. metrics                                                         */
/* ------------------------------------------------------------------ */

static void promtool_check(const struct th_env *e, const char *prom)
{
    char log[PATH_MAX];
    int rc;

    th_pathf(log, "%s/promtool.log", e->root);
    rc = run_with_stdin("promtool", "check", "metrics", prom, log);
    if (rc < 0) {
        fprintf(stderr, "test_daemon: promtool not on PATH; not checking the format\n");
        return;
    }
    if (rc != 0) {
        char *out = th_slurp(log, NULL);
        fprintf(stderr, "promtool:\n%s\n", out ? out : "");
        free(out);
    }
    TH_REQUIRE(rc == 0, "promtool check metrics failed on %s", prom);
}

START_TEST(metrics_file_is_kept)
{
    struct th_env e;
    size_t olen;
    char *off = official(&olen), prom[PATH_MAX];
    int p;

    env_init(&e, NULL);
    TH_OUT(prom, &e, "metrics.prom");
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_EVENTUALLY(th_exists(prom), DEADLINE_MS, "no metrics.prom while running");
    drop_job(&e, "m1.jsonl", off, olen);
    drop_job(&e, "m2.jsonl", off, olen);
    wait_summary(&e, "m1", DEADLINE_MS);
    wait_summary(&e, "m2", DEADLINE_MS);
    TH_EVENTUALLY(th_file_contains(prom, "\ncairn_jobs_total{status=\"ok\"} 2\n"), DEADLINE_MS,
                  "metrics.prom never counted 2 ok jobs");
    TH_REQUIRE(th_file_contains(prom, "\ncairn_build_info{"), "no cairn_build_info");
    promtool_check(&e, prom);
    th_stop(p);
    TH_REQUIRE(th_file_contains(prom, "\ncairn_jobs_total{status=\"ok\"} 2\n"),
               "metrics.prom after exit does not count 2 ok jobs");
    TH_REQUIRE(th_file_contains(prom, "\ncairn_build_info{"), "no cairn_build_info after exit");
    promtool_check(&e, prom);
    require_no_temp_files(&e);
    free(off);
    th_cleanup();
}
END_TEST

START_TEST(metrics_file_setting)
{
    struct th_env e;
    size_t olen;
    char *off = official(&olen), path[PATH_MAX];
    int p, code;

    env_init(&e, NULL);
    /* No periodic refresh within this run: only the write at exit. */
    th_write_text(e.cfg, "{\"min_age_ms\": 200, \"metrics_interval_s\": 3600, "
                         "\"metrics_file\": \"other.prom\"}");
    TH_IN(path, &e, "one.jsonl");
    th_write_file(path, off, olen, 0644);
    p = start(&e, "--once");
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "--once exited %d", code);
    TH_OUT(path, &e, "other.prom");
    TH_REQUIRE(th_file_contains(path, "\ncairn_jobs_total{status=\"ok\"} 1\n"),
               "other.prom missing or wrong");
    promtool_check(&e, path);
    TH_OUT(path, &e, "metrics.prom");
    TH_REQUIRE(!th_exists(path), "metrics.prom written despite metrics_file");
    free(off);
    th_cleanup();
}
END_TEST

/* metrics_labels are on every series, and a SIGHUP that changes them is
 * followed (the metrics keep no pointer into the configuration it freed). */
START_TEST(metrics_labels_follow_a_reload)
{
    struct th_env e;
    char prom[PATH_MAX];
    int p;

    env_init(&e, "\"metrics_labels\": {\"instance\": \"a\"}");
    TH_OUT(prom, &e, "metrics.prom");
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_EVENTUALLY(th_file_contains(prom, "\ncairn_jobs_total{instance=\"a\",status=\"ok\"} 0\n"),
                  DEADLINE_MS, "metrics.prom never carried instance=\"a\"");
    TH_REQUIRE(th_file_contains(prom, "\ncairn_jobs_active{instance=\"a\"} 0\n"),
               "a series without labels of its own lacks instance=\"a\"");
    promtool_check(&e, prom);
    env_config(&e, "\"metrics_labels\": {\"instance\": \"b\", \"zone\": \"z\\\"1\"}");
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "reloaded"), DEADLINE_MS, "no \"reloaded\" after SIGHUP");
    drop_text(&e, "l.jsonl", TWO_VARIANTS);
    wait_summary(&e, "l", DEADLINE_MS);
    TH_EVENTUALLY(th_file_contains(prom, "\ncairn_jobs_total{instance=\"b\",zone=\"z\\\"1\","
                                         "status=\"ok\"} 1\n"),
                  DEADLINE_MS, "metrics.prom never carried the reloaded labels");
    TH_REQUIRE(!th_file_contains(prom, "instance=\"a\""), "the old label is still there");
    promtool_check(&e, prom);
    th_stop(p);
    TH_REQUIRE(th_file_contains(prom, "\ncairn_jobs_total{instance=\"b\",zone=\"z\\\"1\","
                                      "status=\"ok\"} 1\n"),
               "the metrics written at exit lost the labels");
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 11. bad configuration                                               */
/* ------------------------------------------------------------------ */

START_TEST(bad_config_exits_2_naming_the_key)
{
    static const char *const bad[][2] = {
        { "{\"min_age_ms\": 200, \"no_such_key\": 1}", "no_such_key" },
        { "{\"min_age_ms\": \"soon\"}", "min_age_ms" },
        { "{\"keep_inputs\": \"yes\"}", "keep_inputs" },
        { "{\"rescan_interval_s\": -1}", "rescan_interval_s" },
    };
    struct th_env e;
    size_t i;

    env_init(&e, NULL);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        int p, code;
        th_write_text(e.cfg, bad[i][0]);
        p = start(&e, NULL);
        code = th_wait_exit(p, DEADLINE_MS);
        TH_REQUIRE(code == 2, "config %s: exit %d, want 2", bad[i][0], code);
        TH_REQUIRE(th_log_has(p, bad[i][1]), "config %s: the error does not name %s", bad[i][0],
                   bad[i][1]);
    }
    th_cleanup();
}
END_TEST

/* Anyone who can open the output directory can flock(2) it (on the
 * packaged install, every member of group cairn).  Held by this test for
 * as long as it likes, it must stall nothing: the job is published all
 * the same, the log names the holder's pid, and SIGTERM stops the daemon
 * while the lock is still held. */
START_TEST(a_foreign_lock_on_the_output_stalls_nothing)
{
    char want[128];
    struct th_env e;
    int p, fd;

    env_init(&e, NULL);
    p = start(&e, NULL);
    th_wait_ready(p);
    fd = open(e.out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(flock(fd, LOCK_EX), 0);
    drop_text(&e, "locked.jsonl", SMALL_III);
    wait_summary(&e, "locked", LONG_DEADLINE_MS);
    json_decref(summary_of(&e, "locked", "ok", 1));
    snprintf(want, sizeof(want), "locked (flock) by process %ld", (long)getpid());
    TH_REQUIRE(th_log_has(p, want), "the log does not name the lock's holder (\"%s\")", want);
    TH_REQUIRE(th_running(p), "cairnd exited");
    th_stop(p); /* the lock still held */
    close(fd);
    th_cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */

static TCase *tcase(Suite *s, const char *name)
{
    TCase *tc = tcase_create(name);

    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    return tc;
}

static Suite *daemon_suite(void)
{
    Suite *s = suite_create("daemon");
    TCase *tc;

    tc = tcase(s, "rename_in");
    tcase_add_test(tc, rename_in_is_processed);
    tcase_add_test(tc, keep_inputs_false_deletes_input);
    tcase_add_test(tc, hard_link_is_processed);
    tcase_add_test(tc, sticky_spool_as_shipped_runs_jobs);
    tcase_add_test(tc, same_name_dropped_while_it_runs_runs_next);
    tcase_add_test(tc, failed_hand_back_beside_a_new_file_of_the_name_loses_neither);
    tcase_add_test(tc, results_write_error_hands_back_then_completes);
    tcase_add_test(tc, job_read_error_hands_back_then_completes);
    tc = tcase(s, "in_place_write");
    tcase_add_test(tc, in_place_write_waits_for_close);
    tcase_add_test(tc, writer_open_before_the_start_is_waited_for);
    tc = tcase(s, "inotify_overflow");
    tcase_add_test(tc, inotify_overflow_rescans_at_once);
    tc = tcase(s, "ignored_names");
    tcase_add_test(tc, ignored_names_stay_untouched);
    tc = tcase(s, "non_regular_files");
    tcase_add_test(tc, non_regular_files_fail_without_being_followed);
    tc = tcase(s, "crash_recovery");
    tcase_add_test(tc, job_left_in_active_runs_again);
    tcase_add_test(tc, live_writers_temporaries_survive_a_start);
    tc = tcase(s, "atomic_outputs");
    tcase_add_test(tc, outputs_appear_complete);
    tcase_add_test(tc, a_foreign_lock_on_the_output_stalls_nothing);
    tc = tcase(s, "once");
    tcase_add_test(tc, once_good_jobs_exit_0);
    tcase_add_test(tc, jobs_past_the_streaming_gate_wait_their_turn);
    tcase_add_test(tc, once_failed_job_exits_1);
    tcase_add_test(tc, once_empty_dir_exits_0);
    tcase_add_test(tc, once_missing_input_dir_is_named);
    tcase_add_test(tc, missing_dirs_exit_2);
    tc = tcase(s, "sigterm");
    tcase_add_test(tc, sigterm_finishes_active_job);
    tcase_add_test(tc, idle_daemon_keeps_its_status_fresh);
    tcase_add_test(tc, a_second_daemon_on_the_same_metrics_file_is_warned);
    tcase_add_test(tc, a_gone_daemon_s_status_file_is_removed_at_start);
    tcase_add_test(tc, sigterm_timeout_leaves_job_for_restart);
    tcase_add_test(tc, bytes_read_are_counted_while_a_job_runs);
    tcase_add_test(tc, sigterm_timeout_waits_for_a_file_write);
    tcase_add_test(tc, sigterm_timeout_leaves_a_stuck_file_write_behind);
    tcase_add_test(tc, sigterm_leaves_the_final_metrics);
    tcase_add_test(tc, sigint_stops_like_sigterm);
    tcase_add_test(tc, second_sigterm_still_finishes_the_job);
    tcase_add_test(tc, once_sigterm_finishes_active_job);
    tcase_add_test(tc, input_dir_moved_away_exits_1);
    tcase_add_test(tc, input_dir_removed_exits_1);
    tcase_add_test(tc, sigterm_with_no_shutdown_timeout_leaves_at_once);
    tc = tcase(s, "sighup");
    tcase_add_test(tc, sighup_loads_new_plugins);
    tcase_add_test(tc, sighup_bad_config_keeps_old);
    tcase_add_test(tc, sighup_new_umask_applies_to_new_outputs);
    tcase_add_test(tc, sighup_in_a_build_tree_reloads_its_plugins);
    tcase_add_test(tc, sighup_truncated_plugin_keeps_old_set);
    tcase_add_test(tc, sighup_fifo_config_keeps_old);
    tcase_add_test(tc, sighup_storm_coalesces_and_jobs_run);
    tcase_add_test(tc, sighup_new_metrics_file_removes_the_old);
    tc = tcase(s, "metrics");
    tcase_add_test(tc, metrics_file_is_kept);
    tcase_add_test(tc, metrics_file_setting);
    tcase_add_test(tc, metrics_labels_follow_a_reload);
    tc = tcase(s, "bad_config");
    tcase_add_test(tc, bad_config_exits_2_naming_the_key);
    return s;
}

int main(void)
{
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    g_source_dir = getenv("CAIRN_TEST_SOURCE_DIR");
    if (g_cairnd == NULL || g_plugins == NULL || g_source_dir == NULL ||
        access(g_cairnd, X_OK) != 0) {
        fprintf(stderr, "test_daemon: CAIRN_TEST_CAIRND, CAIRN_TEST_PLUGIN_DIR and "
                        "CAIRN_TEST_SOURCE_DIR must be set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("daemon") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    failed = th_run_suite(daemon_suite(), CK_ENV, 1); /* CK_VERBOSITY=verbose lists each test */
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
