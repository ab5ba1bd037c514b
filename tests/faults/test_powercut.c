/*
 * test_powercut.c - cairnd on a disk that loses power (tests/faults/powerfs/).
 *
 * The spool and the output directory live on powerfs.  A job is handed
 * over durably (by rename, with the fsyncs a careful producer makes, or by
 * `cairn submit`), then powerfs is armed to cut the power right after the
 * Kth mutating call from cairnd's start, for K = 1, 2, ... until the job
 * finishes before the cut comes: every call of a job's life is a crash
 * point in turn.  After each cut the daemon is killed (its processes die
 * with the power), power comes back with only what was durable, and a
 * fresh cairnd recovers.  Then, for the job:
 *   - it finishes (its hand-off was durable);
 *   - its summary says ok, and its results are byte for byte those of a
 *     `cairnd --filter` run of the same file;
 *   - it ran under its own name only (no NAME~N: a consumer sees one
 *     result), and its input ends in done/, nowhere else;
 *   - no visible file in the output directory is anything but a whole
 *     results file or summary of a job, or the metrics (temporaries are
 *     dot-files).
 * A second mode cuts the power at random moments while jobs stream in
 * (random_round).  The number of crash points tried is printed.  The status files are
 * rewritten on a timer; their calls are not counted (powerfs "ignore").
 *
 * The waits have deadlines only as a last resort, scaled by
 * CK_TIMEOUT_MULTIPLIER, and a wait on a cairnd counts from its
 * "watching" line, not from its start (a loaded machine takes seconds to
 * start one).  One that runs out says which of three things it saw
 * (give_up): the daemon ended (its wait status), never said it was
 * watching (a slow start), or watched while the job did not move on (a
 * stall: where the job's input is, and every lock on powerfs with the
 * process holding it); then every failure prints the last two daemons'
 * log, powerfs's state with its last calls, and what the spool and the
 * output hold (show_rig).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "powerfs/mount.h"
#include "rng.h"

static const char *g_cairnd, *g_cairn, *g_plugins, *g_powerfs;

/* Last resorts, generous, each scaled by CK_TIMEOUT_MULTIPLIER: a
 * cairnd's start up to its "watching" line (sanitizers, one probe fork per
 * plugin: seconds on a loaded machine), then each wait on a cairnd that
 * watches. */
#define START_DEADLINE_MS 60000
#define DEADLINE_MS       20000

/* Eight official examples and one line of each kind of error. */
static const char job_text[] =
    "{\"id\":1,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":true}\n"
    "{\"id\":2,\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},\"expected\":10}\n"
    "{\"id\":3,\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n"
    "not json\n"
    "{\"id\":5,\"variant\":\"no-such-game\",\"input\":{}}\n"
    "{\"id\":6,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]}}\n";

struct rig {
    char root[PATH_MAX]; /* off powerfs: config, logs, the reference */
    char mnt[PATH_MAX];
    char in[PATH_MAX + 8], out[PATH_MAX + 8], cfg[PATH_MAX + 16], job[PATH_MAX + 16];
    char *reference; /* cairnd --filter's results of job_text */
    size_t reference_len;
    pid_t fs;
    int keep_inputs;
    size_t log_mark;  /* ROOT/cairnd.log's size when the last cairnd started */
    size_t prev_mark; /* and when the one before it did */
};

/* A cairnd on the rig, and what the test has seen of it. */
struct daemon {
    pid_t pid;
    const char *role;      /* "the cairnd recovering after the cut", for messages */
    double started;        /* th_now_s() at its start */
    double watching_since; /* when its log was first seen to say "watching"; 0 before */
    int ended;             /* reaped, its wait status in status */
    int status;
};

static void ctl(struct rig *r, const char *cmd)
{
    char path[PATH_MAX + 16];
    int fd;

    snprintf(path, sizeof(path), "%s/.powerfs", r->mnt);
    fd = open(path, O_WRONLY);
    TH_REQUIRE(fd >= 0, "open %s: %s", path, strerror(errno));
    TH_REQUIRE(write(fd, cmd, strlen(cmd)) == (ssize_t)strlen(cmd), "powerfs %s: %s", cmd,
               strerror(errno));
    close(fd);
}

static int dead(struct rig *r)
{
    char path[PATH_MAX + 16], *s;
    int d;

    snprintf(path, sizeof(path), "%s/.powerfs", r->mnt);
    s = th_read_file(path, NULL);
    d = strstr(s, "state=dead") != NULL;
    free(s);
    return d;
}

static struct rig *g_rig; /* the rig up, for show_rig */

/* Lists dir's entries, one line, on stderr (a failure's evidence). */
static void show_dir(const char *dir)
{
    char *names = access(dir, F_OK) == 0 ? th_list_dir(dir, " ") : NULL;

    fprintf(stderr, "  %s: %s\n", dir, names != NULL ? names : "(missing)");
    free(names);
}

/* powerfs's state line, then the last calls it counted (its ring): which
 * steps the cut run and the recovery took, without POWERFS_TRACE. */
static void show_powerfs(const struct rig *r)
{
    char path[PATH_MAX + 16], *text, *calls;

    snprintf(path, sizeof(path), "%s/.powerfs", r->mnt);
    text = th_slurp(path, NULL);
    if (text == NULL) {
        fprintf(stderr, "powerfs: (unreadable: %s)\n", strerror(errno));
        return;
    }
    calls = strchr(text, '\n');
    if (calls != NULL)
        *calls++ = '\0';
    fprintf(stderr, "powerfs: %s\n---- powerfs's last calls, oldest first ----\n%s---- end ----\n",
            text, calls != NULL ? calls : "");
    free(text);
}

/* On a failure: what the last two cairnds logged and what the disk holds, so
 * a run that failed once in CI says why. */
static void show_rig(void)
{
    static const char *const sub[] = { "", "/.cairn", "/.cairn/active", "/.cairn/done",
                                       "/.cairn/failed" };
    char path[2 * PATH_MAX], *log;
    size_t len = 0;

    if (g_rig == NULL)
        return;
    snprintf(path, sizeof(path), "%s/cairnd.log", g_rig->root);
    log = th_read_file(path, &len);
    if (log != NULL && len > g_rig->prev_mark)
        fprintf(stderr, "---- the last two cairnds' log ----\n%s---- end ----\n",
                log + g_rig->prev_mark);
    free(log);
    show_powerfs(g_rig);
    for (size_t i = 0; i < sizeof(sub) / sizeof(sub[0]); i++) {
        snprintf(path, sizeof(path), "%s%s", g_rig->in, sub[i]);
        show_dir(path);
    }
    show_dir(g_rig->out);
}

/* powerfs mounted, the spool made durable, the reference computed: 1, or
 * 0 with a message when this machine cannot mount FUSE. */
static int rig_up(struct rig *r, int keep_inputs)
{
    char text[3 * PATH_MAX];
    struct th_run ref;

    memset(r, 0, sizeof(*r));
    r->keep_inputs = keep_inputs;
    th_new_dir(r->root);
    th_pathf(r->mnt, "%s/mnt", r->root);
    ck_assert_int_eq(mkdir(r->mnt, 0755), 0);
    if (!powerfs_mount(r->mnt, &r->fs))
        return 0;
    snprintf(r->in, sizeof(r->in), "%s/in", r->mnt);
    snprintf(r->out, sizeof(r->out), "%s/out", r->mnt);
    ck_assert_int_eq(mkdir(r->in, 0755), 0);
    ck_assert_int_eq(mkdir(r->out, 0755), 0);
    ctl(r, "sync");
    ctl(r, "ignore /in/.cairn/status");
    snprintf(r->cfg, sizeof(r->cfg), "%s/cairn.json", r->root);
    snprintf(text, sizeof(text),
             "{\"input_dir\": \"%s\", \"output_dir\": \"%s\", \"min_age_ms\": 0, "
             "\"rescan_interval_s\": 1, \"metrics_interval_s\": 0, \"shutdown_timeout_s\": 5, "
             "\"threads\": 2, \"keep_inputs\": %s}\n",
             r->in, r->out, keep_inputs ? "true" : "false");
    th_write_text(r->cfg, text);
    snprintf(r->job, sizeof(r->job), "%s/job.jsonl", r->root);
    th_write_text(r->job, job_text);
    ref = th_run_cairnd_stdin(
        g_cairnd, r->root, r->job,
        (const char *const[]){ "--filter", "-c", r->cfg, "--plugins", g_plugins, NULL });
    TH_REQUIRE(ref.status == 0, "cairnd --filter: exit %d: %s", ref.status, ref.err);
    r->reference = strdup(ref.out);
    r->reference_len = strlen(ref.out);
    th_run_free(&ref);
    g_rig = r;
    return 1;
}

static void rig_down(struct rig *r)
{
    g_rig = NULL;
    powerfs_unmount(r->mnt, r->fs);
    free(r->reference);
    th_cleanup();
}

/* cairnd on the rig, outside the harness's table (a sweep starts hundreds),
 * logging to ROOT/cairnd.log. */
static void start(struct rig *r, struct daemon *d, const char *role)
{
    char *argv[] = { (char *)g_cairnd, "-c", r->cfg, "--plugins", (char *)g_plugins, NULL };
    char log[PATH_MAX + 16];

    struct stat st;

    snprintf(log, sizeof(log), "%s/cairnd.log", r->root);
    r->prev_mark = r->log_mark;
    r->log_mark = stat(log, &st) == 0 ? (size_t)st.st_size : 0;
    memset(d, 0, sizeof(*d));
    d->role = role;
    d->started = th_now_s();
    d->pid = th_spawn_logged(argv, log);
}

/* Whether the last cairnd started has said it is watching.  Reads its log
 * from where it began, not the sweep's whole log at every poll. */
static int watching(const struct rig *r)
{
    char log[PATH_MAX + 16], buf[4096];
    int fd, yes = 0;
    size_t have = 0;
    off_t at = (off_t)r->log_mark;
    ssize_t n;

    snprintf(log, sizeof(log), "%s/cairnd.log", r->root);
    if ((fd = open(log, O_RDONLY | O_CLOEXEC)) < 0)
        return 0;
    /* Carries the last bytes of a read over, so a line across two reads is
     * seen whole. */
    while (!yes && (n = pread(fd, buf + have, sizeof(buf) - 1 - have, at)) > 0) {
        size_t len = have + (size_t)n;

        at += n;
        buf[len] = '\0';
        yes = strstr(buf, " watching ") != NULL;
        have = len > 16 ? 16 : len;
        memmove(buf, buf + len - have, have);
    }
    close(fd);
    return yes;
}

/* Whether d has ended; reaps it (its wait status kept) once it has. */
static int reaped(struct daemon *d)
{
    if (!d->ended && d->pid > 0 && waitpid(d->pid, &d->status, WNOHANG) == d->pid)
        d->ended = 1;
    return d->ended;
}

/* The power cut takes the processes with it. */
static void kill_now(struct daemon *d)
{
    if (reaped(d))
        return;
    kill(d->pid, SIGKILL);
    if (waitpid(d->pid, &d->status, 0) == d->pid)
        d->ended = 1;
}

/* "signal N" or "exit status N", for messages. */
static const char *describe_status(int status, char *buf, size_t size)
{
    if (WIFSIGNALED(status))
        snprintf(buf, size, "signal %d", WTERMSIG(status));
    else
        snprintf(buf, size, "exit status %d", WEXITSTATUS(status));
    return buf;
}

static double scaled_s(long ms)
{
    return (double)th_scaled_ms(ms) / 1000.0;
}

/* 1 while a wait on d that began at `since` may go on: d still runs, and
 * its deadline has not passed.  Before d's log says it is watching, that is
 * START_DEADLINE_MS from its start; from then on DEADLINE_MS from the later
 * of the wait's start and the watching, so a slow start never eats into
 * the time a recovery gets. */
static int may_wait(const struct rig *r, struct daemon *d, double since)
{
    double now = th_now_s();

    if (reaped(d))
        return 0;
    if (d->watching_since == 0 && watching(r))
        d->watching_since = now;
    if (d->watching_since == 0)
        return now < d->started + scaled_s(START_DEADLINE_MS);
    return now < (since > d->watching_since ? since : d->watching_since) + scaled_s(DEADLINE_MS);
}

/* The slowest start to "watching" and the longest wait on a watching
 * cairnd this test saw: how far from its deadlines a run stayed. */
static double g_slowest_start, g_longest_wait;

static void note_wait(const struct daemon *d, double since)
{
    double from = since > d->watching_since ? since : d->watching_since;

    if (d->watching_since == 0)
        return;
    if (d->watching_since - d->started > g_slowest_start)
        g_slowest_start = d->watching_since - d->started;
    if (th_now_s() - from > g_longest_wait)
        g_longest_wait = th_now_s() - from;
}

static void print_margins(void)
{
    printf("powercut: slowest start %.1f s, longest wait after 'watching' %.1f s (deadlines "
           "%.0f s and %.0f s)\n",
           g_slowest_start, g_longest_wait, scaled_s(START_DEADLINE_MS), scaled_s(DEADLINE_MS));
}

/* ok = cond, polled until it holds, or d ends, or its deadline passes
 * (may_wait); cond is asked once more at the end, so a cut or a finish that
 * came with the daemon's end still counts. */
#define AWAIT(ok, r, d, since, cond)                              \
    do {                                                          \
        (since) = th_now_s();                                     \
        while (!((ok) = !!(cond)) && may_wait((r), (d), (since))) \
            th_sleep_ms(th_settings.poll_ms);                     \
        if (!(ok))                                                \
            (ok) = !!(cond);                                      \
        if (ok)                                                   \
            note_wait((d), (since));                              \
    } while (0)

static int exists_in(const char *dir, const char *name)
{
    char *path = th_xasprintf("%s/%s", dir, name);
    int there = th_exists(path);

    free(path);
    return there;
}

/* What became of job `name`'s input, for a stall's message. */
static void locate_job(const struct rig *r, const char *name, char *buf, size_t size)
{
    char file[96], sum[96], active[PATH_MAX + 32], done[PATH_MAX + 32], failed[PATH_MAX + 32];
    int in_spool, in_active;
    const char *state;

    snprintf(file, sizeof(file), "%s.jsonl", name);
    snprintf(sum, sizeof(sum), "%s.summary.json", name);
    snprintf(active, sizeof(active), "%s/.cairn/active", r->in);
    snprintf(done, sizeof(done), "%s/.cairn/done", r->in);
    snprintf(failed, sizeof(failed), "%s/.cairn/failed", r->in);
    in_spool = exists_in(r->in, file);
    in_active = exists_in(active, file);
    state = in_spool && !in_active    ? "was never claimed: it is still listed in the spool"
            : in_active               ? "was claimed and has not left active/"
            : exists_in(done, file)   ? "is in done/"
            : exists_in(failed, file) ? "is in failed/"
                                      : "is nowhere: not in the spool, active/, done/ nor failed/";
    snprintf(buf, size, "%s %s; its summary is %sin the output", file, state,
             exists_in(r->out, sum) ? "" : "not ");
}

/* Every lock on powerfs, named by the spool's, active/'s and the output's
 * entries: who keeps a file from being claimed. */
static void show_locks(const struct rig *r)
{
    char active[PATH_MAX + 32], done[PATH_MAX + 32], failed[PATH_MAX + 32];
    const char *dirs[] = { r->in, active, done, failed, r->out };

    snprintf(active, sizeof(active), "%s/.cairn/active", r->in);
    snprintf(done, sizeof(done), "%s/.cairn/done", r->in);
    snprintf(failed, sizeof(failed), "%s/.cairn/failed", r->in);
    th_show_locks(dirs, sizeof(dirs) / sizeof(dirs[0]));
}

/* Fails the test after an AWAIT that did not see its condition: the
 * format says what was awaited, d was the cairnd, the wait began at since,
 * and job (or NULL) names the job it was for.  Says which of three things
 * happened:
 *   - d ended (its wait status; show_rig prints its log);
 *   - d never said it was watching: a slow start, and how long it took;
 *   - d watched and the job did not move on: a stall, with where its input
 *     is and who holds a lock on powerfs.
 * show_rig adds the logs, powerfs's state and last calls, and the listings. */
static void give_up(const struct rig *r, struct daemon *d, double since, const char *job,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void give_up(const struct rig *r, struct daemon *d, double since, const char *job,
                    const char *fmt, ...)
{
    double now = th_now_s();
    char what[256], where[512] = "", status[32];
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof(what), fmt, ap);
    va_end(ap);

    if (d->ended)
        TH_REQUIRE(0, "%s: %s ended %.1f s after its start (%s; its log is above)", what, d->role,
                   now - d->started, describe_status(d->status, status, sizeof(status)));
    if (d->watching_since == 0)
        TH_REQUIRE(0,
                   "%s: a slow start: %s has not said it is watching %.1f s after its start "
                   "(start-up deadline %.1f s)",
                   what, d->role, now - d->started, scaled_s(START_DEADLINE_MS));
    if (job != NULL)
        locate_job(r, job, where, sizeof(where));
    show_locks(r);
    TH_REQUIRE(0,
               "%s: a stall: %s has been watching for %.1f s (it started in %.1f s), this wait "
               "began %.1f s ago (deadline %.1f s)%s%s",
               what, d->role, now - d->watching_since, d->watching_since - d->started, now - since,
               scaled_s(DEADLINE_MS), job != NULL ? "; " : "", where);
}

/* A clean stop: SIGTERM, exit 0.  Not before cairnd says it is watching:
 * its signal handlers are in place from then on, and a SIGTERM sent sooner
 * (a recovery with no job to wait for) killed it outright. */
static void stop(struct rig *r, struct daemon *d, const char *when)
{
    char status[32];
    double since;
    int ok;

    AWAIT(ok, r, d, since, d->watching_since != 0);
    if (!ok || reaped(d))
        give_up(r, d, since, NULL, "%s: stopping cairnd", when);
    kill(d->pid, SIGTERM);
    TH_REQUIRE(waitpid(d->pid, &d->status, 0) == d->pid, "waitpid %d: %s", (int)d->pid,
               strerror(errno));
    d->ended = 1;
    TH_REQUIRE(WIFEXITED(d->status) && WEXITSTATUS(d->status) == 0,
               "%s: %s did not stop cleanly after SIGTERM (%s)", when, d->role,
               describe_status(d->status, status, sizeof(status)));
}

/* The careful producer's hand-off: written under a dot-name, fsync'd,
 * renamed in, the spool fsync'd.  0, or -1 when the power was cut on the
 * way (then nothing was promised). */
static int try_hand_off(struct rig *r, const char *name)
{
    char tmp[PATH_MAX + 32], dst[PATH_MAX + 32];
    int fd, ok;

    snprintf(tmp, sizeof(tmp), "%s/.%s.tmp", r->in, name);
    snprintf(dst, sizeof(dst), "%s/%s.jsonl", r->in, name);
    fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0)
        return -1;
    ok = write(fd, job_text, sizeof(job_text) - 1) == (ssize_t)(sizeof(job_text) - 1) &&
         fsync(fd) == 0;
    close(fd);
    if (!ok || rename(tmp, dst) != 0 || (fd = open(r->in, O_RDONLY | O_DIRECTORY)) < 0)
        return -1;
    ok = fsync(fd) == 0;
    close(fd);
    return ok ? 0 : -1;
}

static void hand_off_by_rename(struct rig *r, const char *name)
{
    TH_REQUIRE(try_hand_off(r, name) == 0, "hand-off of %s: %s", name, strerror(errno));
}

static void hand_off_by_submit(struct rig *r, const char *name)
{
    struct th_run s =
        th_run_cairnd_stdin(g_cairn, r->root, "/dev/null",
                            (const char *const[]){ "-c", r->cfg, "submit", "--no-check", "--name",
                                                   name, r->job, NULL });

    TH_REQUIRE(s.status == 0, "cairn submit: exit %d: %s", s.status, s.err);
    th_run_free(&s);
}

/* The job is over: its summary is out and its input has left active/. */
static int finished(struct rig *r, const char *name)
{
    char sum[PATH_MAX], file[PATH_MAX], active[2 * PATH_MAX + 16];

    snprintf(sum, sizeof(sum), "%s.summary.json", name);
    snprintf(file, sizeof(file), "%s.jsonl", name);
    snprintf(active, sizeof(active), "%s/.cairn/active", r->in);
    return exists_in(r->out, sum) && !exists_in(active, file) && !exists_in(r->in, file);
}

/* Every invariant of the file's head comment, for job `name`. */
static void check_job(struct rig *r, const char *name, const char *when)
{
    char path[2 * PATH_MAX], done[2 * PATH_MAX];
    size_t len;
    char *results;
    json_t *s;
    DIR *d;
    struct dirent *e;
    size_t nl = strlen(name);

    snprintf(path, sizeof(path), "%s/%s.summary.json", r->out, name);
    s = th_load_json(path);
    TH_REQUIRE(strcmp(th_str_field(s, "status"), "ok") == 0 && th_int_field(s, "records") == 6,
               "%s: %s is not an ok summary of 6 records", when, path);
    json_decref(s);
    snprintf(path, sizeof(path), "%s/%s.results.jsonl", r->out, name);
    results = th_slurp(path, &len);
    TH_REQUIRE(results != NULL && len == r->reference_len &&
                   memcmp(results, r->reference, len) == 0,
               "%s: %s differs from cairnd --filter's results:\n%s\nwant:\n%s", when, path,
               results ? results : "(none)", r->reference);
    free(results);
    snprintf(done, sizeof(done), "%s/.cairn/done/%s.jsonl", r->in, name);
    TH_REQUIRE(th_exists(done) == r->keep_inputs, "%s: %s is %sin done/", when, name,
               r->keep_inputs ? "not " : "");
    snprintf(path, sizeof(path), "%s/%s.jsonl", r->in, name);
    TH_REQUIRE(!th_exists(path), "%s: %s is still in the spool", when, name);
    /* Nothing visible but whole outputs, and no second run of the name. */
    d = opendir(r->out);
    TH_REQUIRE(d != NULL, "opendir %s", r->out);
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (n[0] == '.')
            continue;
        TH_REQUIRE(!(strncmp(n, name, nl) == 0 && n[nl] == '~'), "%s: %s ran twice (%s)", when,
                   name, n);
        TH_REQUIRE(th_ends_with(n, ".summary.json") || th_ends_with(n, ".results.jsonl") ||
                       strcmp(n, "metrics.prom") == 0,
                   "%s: a stray visible file in the output: %s", when, n);
    }
    closedir(d);
}

/* After a cut: the daemon dies with the power, power comes back with what
 * was durable, a fresh daemon recovers, and each job handed off (names[0..n))
 * finishes and passes check_job. */
static void recover(struct rig *r, struct daemon *cut, char names[][64], int n, const char *when)
{
    struct daemon d;
    double since;
    int i, ok;

    if (cut != NULL)
        kill_now(cut);
    ctl(r, "on");
    start(r, &d, "the cairnd recovering after the cut");
    for (i = 0; i < n; i++) {
        AWAIT(ok, r, &d, since, finished(r, names[i]));
        if (!ok)
            give_up(r, &d, since, names[i], "%s: %s never finished after the power came back", when,
                    names[i]);
    }
    stop(r, &d, when);
    for (i = 0; i < n; i++)
        check_job(r, names[i], when);
}

/* The sweep over one job's life and what follows it (a second job, handed
 * off once the first is over, whose own syncs make the first one's last
 * steps durable), the first job handed off by `how`; returns the crash
 * points tried.  A point past the end of both is the last: then the power
 * is cut once more, after a clean stop. */
static int sweep(struct rig *r, const char *prefix,
                 void (*hand_off)(struct rig *r, const char *name))
{
    int k, tried = 0;

    for (k = 1; k < 400; k++) {
        char names[2][64], cmd[64], when[64];
        struct daemon d;
        double since;
        int ok, n = 1;

        snprintf(names[0], sizeof(names[0]), "%s%d", prefix, k);
        snprintf(names[1], sizeof(names[1]), "%s%d-next", prefix, k);
        hand_off(r, names[0]);
        ctl(r, "zero");
        snprintf(cmd, sizeof(cmd), "cut-after %d", k);
        snprintf(when, sizeof(when), "cut after call %d", k);
        ctl(r, cmd);
        start(r, &d, "the cairnd the power is cut under");
        AWAIT(ok, r, &d, since, dead(r) || finished(r, names[0]));
        if (!ok)
            give_up(r, &d, since, names[0], "%s: neither a cut nor the end of %s", when, names[0]);
        if (!dead(r) && try_hand_off(r, names[1]) == 0) {
            n = 2; /* durable: it must finish too */
            AWAIT(ok, r, &d, since, dead(r) || finished(r, names[1]));
            if (!ok)
                give_up(r, &d, since, names[1], "%s: neither a cut nor the end of %s", when,
                        names[1]);
        }
        if (n == 2 && !dead(r)) {
            /* Both lives had fewer calls than k: every point done. */
            ctl(r, "disarm");
            stop(r, &d, when);
            ctl(r, "cut");
            recover(r, NULL, names, n, when);
            return tried + 1;
        }
        tried++;
        recover(r, &d, names, n, when);
    }
    return tried;
}

/* ---- random moments under a stream of jobs ------------------------------ */

#define STREAM_MAX 64

/* A child that cuts the power MS milliseconds from now: the cut lands
 * wherever cairnd and the producer are, in the middle of a call included. */
static pid_t cut_later(struct rig *r, long ms)
{
    pid_t p = fork();

    TH_REQUIRE(p >= 0, "fork: %s", strerror(errno));
    if (p == 0) {
        struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };
        char path[PATH_MAX + 16];
        int fd;

        nanosleep(&ts, NULL);
        snprintf(path, sizeof(path), "%s/.powerfs", r->mnt);
        fd = open(path, O_WRONLY);
        _exit(fd >= 0 && write(fd, "cut", 3) == 3 ? 0 : 1);
    }
    return p;
}

/* `cairn submit`: 0 when it promised a durable hand-off (exit 0 without
 * the warning that the spool's fsync failed), else -1. */
static int try_submit(struct rig *r, const char *name)
{
    struct th_run s =
        th_run_cairnd_stdin(g_cairn, r->root, "/dev/null",
                            (const char *const[]){ "-c", r->cfg, "submit", "--no-check", "--name",
                                                   name, r->job, NULL });
    int durable = s.status == 0 && strstr(s.err, "warning") == NULL;

    th_run_free(&s);
    return durable ? 0 : -1;
}

/* Job files waiting in the spool or in active/. */
static int jobs_left(struct rig *r)
{
    char active[PATH_MAX + 32];
    const char *dirs[] = { r->in, active };
    int n = 0;

    snprintf(active, sizeof(active), "%s/.cairn/active", r->in);
    for (size_t i = 0; i < 2; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;

        if (d == NULL)
            continue;
        while ((e = readdir(d)) != NULL)
            n += e->d_name[0] != '.' && th_ends_with(e->d_name, ".jsonl");
        closedir(d);
    }
    return n;
}

/* The crash count a finished input still carries is at most the runs one
 * cut can cause (the run cut short and the one after it). */
static void check_crash_count(struct rig *r, const char *name, const char *when)
{
    char path[2 * PATH_MAX], buf[32];
    ssize_t n;

    snprintf(path, sizeof(path), "%s/.cairn/done/%s.jsonl", r->in, name);
    n = getxattr(path, "user.cairn.attempts", buf, sizeof(buf) - 1);
    if (n < 0) {
        TH_REQUIRE(errno == ENODATA, "%s: getxattr %s: %s", when, path, strerror(errno));
        return;
    }
    buf[n] = '\0';
    TH_REQUIRE(atoi(buf) >= 1 && atoi(buf) <= 2, "%s: %s has a crash count of %s", when, name, buf);
}

/* One round: cairnd starts, a producer hands off jobs one after another
 * (by rename or by `cairn submit`, at random) until the power goes, at a
 * random moment.  After recovery every job whose hand-off was
 * durable has finished and passes check_job; any other job either finished
 * the same way or left nothing visible.  Returns the jobs handed off;
 * *durable gets those promised. */
static int random_round(struct rig *r, int round, int *durable_count)
{
    char names[STREAM_MAX][64], when[96];
    int durable[STREAM_MAX], n = 0, ok, status = 0;
    long at = (long)th_rng_range(0, 600);
    struct daemon d;
    double since;
    pid_t cutter;

    snprintf(when, sizeof(when), "random cut %d (%ld ms after the start)", round, at);
    start(r, &d, "the cairnd the power is cut under");
    cutter = cut_later(r, at);
    while (n < STREAM_MAX && !dead(r)) {
        snprintf(names[n], sizeof(names[n]), "m%d-%d", round, n);
        durable[n] =
            (th_rng_range(0, 1) ? try_hand_off(r, names[n]) : try_submit(r, names[n])) == 0;
        *durable_count += durable[n];
        n++;
        th_sleep_ms((long)th_rng_range(0, 40));
    }
    TH_REQUIRE(waitpid(cutter, &status, 0) == cutter && WIFEXITED(status) &&
                   WEXITSTATUS(status) == 0,
               "%s: the cut did not happen", when);
    kill_now(&d);
    ctl(r, "on");
    start(r, &d, "the cairnd recovering after the cut");
    AWAIT(ok, r, &d, since, jobs_left(r) == 0);
    if (!ok)
        give_up(r, &d, since, NULL, "%s: %d job(s) still waiting after the power came back", when,
                jobs_left(r));
    for (int i = 0; i < n; i++) {
        AWAIT(ok, r, &d, since, !durable[i] || finished(r, names[i]));
        if (!ok)
            give_up(r, &d, since, names[i], "%s: %s (handed off durably) never finished", when,
                    names[i]);
    }
    stop(r, &d, when);
    for (int i = 0; i < n; i++) {
        char sum[96], res[96], done[2 * PATH_MAX];

        snprintf(sum, sizeof(sum), "%s.summary.json", names[i]);
        snprintf(res, sizeof(res), "%s.results.jsonl", names[i]);
        if (durable[i] || exists_in(r->out, sum)) {
            check_job(r, names[i], when);
            check_crash_count(r, names[i], when);
            continue;
        }
        /* Lost with the power before it was promised: no trace a consumer
         * could read as a result. */
        snprintf(done, sizeof(done), "%s/.cairn/done/%s.jsonl", r->in, names[i]);
        TH_REQUIRE(!exists_in(r->out, res) && !th_exists(done), "%s: %s has no summary but left %s",
                   when, names[i], th_exists(done) ? "its input in done/" : "a results file");
    }
    return n;
}

START_TEST(every_call_of_a_renamed_job_is_a_crash_point)
{
    struct rig r;
    int n;

    if (!rig_up(&r, 1))
        return;
    n = sweep(&r, "r", hand_off_by_rename);
    printf("powercut: a job handed off by rename: %d crash points, each recovered\n", n);
    TH_REQUIRE(n >= 10, "only %d crash points in a job's life", n);
    print_margins();
    rig_down(&r);
}
END_TEST

START_TEST(every_call_of_a_submitted_job_is_a_crash_point)
{
    struct rig r;
    int n;

    if (!rig_up(&r, 1))
        return;
    n = sweep(&r, "s", hand_off_by_submit);
    printf("powercut: a job handed off by cairn submit: %d crash points, each recovered\n", n);
    TH_REQUIRE(n >= 10, "only %d crash points in a job's life", n);
    print_margins();
    rig_down(&r);
}
END_TEST

/* keep_inputs false: the finished input is deleted, not moved. */
START_TEST(every_call_of_a_job_whose_input_is_deleted_is_a_crash_point)
{
    struct rig r;
    int n;

    if (!rig_up(&r, 0))
        return;
    n = sweep(&r, "d", hand_off_by_rename);
    printf("powercut: a job whose input is deleted (keep_inputs false): %d crash points, each "
           "recovered\n",
           n);
    TH_REQUIRE(n >= 10, "only %d crash points in a job's life", n);
    print_margins();
    rig_down(&r);
}
END_TEST

/* CAIRN_POWERCUT_ROUNDS (default 30) cuts at random moments, from the
 * fixed seed CAIRN_POWERCUT_SEED (default 1; the seed is printed). */
START_TEST(power_lost_at_random_moments_under_a_stream_of_jobs)
{
    const char *env_rounds = getenv("CAIRN_POWERCUT_ROUNDS"),
               *env_seed = getenv("CAIRN_POWERCUT_SEED");
    int rounds = env_rounds != NULL ? atoi(env_rounds) : 30, jobs = 0, durable = 0;
    unsigned long long seed = env_seed != NULL ? strtoull(env_seed, NULL, 10) : 1;
    struct rig r;

    if (!rig_up(&r, 1))
        return;
    th_rng_seed(seed);
    for (int i = 1; i <= rounds; i++)
        jobs += random_round(&r, i, &durable);
    printf("powercut: random moments under a stream of jobs (seed %llu): %d cuts, %d jobs handed "
           "off, %d of them durably, each recovered\n",
           seed, rounds, jobs, durable);
    TH_REQUIRE(durable > 0 && durable < jobs,
               "%d of %d hand-offs durable: the cuts never fell inside a stream", durable, jobs);
    print_margins();
    rig_down(&r);
}
END_TEST

int main(void)
{
    Suite *s;
    TCase *tc;
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_cairn = getenv("CAIRN_TEST_CAIRN");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    g_powerfs = getenv("CAIRN_TEST_POWERFS");
    if (!g_cairnd || !g_cairn || !g_plugins || !g_powerfs) {
        fprintf(stderr, "test_powercut: run through meson test (CAIRN_TEST_* unset)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("powercut") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    th_on_failure = show_rig;
    s = suite_create("powercut");
    tc = tcase_create("sweep");
    tcase_set_timeout(tc, 280);
    tcase_add_test(tc, every_call_of_a_renamed_job_is_a_crash_point);
    tcase_add_test(tc, every_call_of_a_submitted_job_is_a_crash_point);
    tcase_add_test(tc, every_call_of_a_job_whose_input_is_deleted_is_a_crash_point);
    tcase_add_test(tc, power_lost_at_random_moments_under_a_stream_of_jobs);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? 0 : 1;
}
