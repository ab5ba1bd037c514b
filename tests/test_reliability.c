/*
 * test_reliability.c - real faults against the real cairnd binary: SIGKILL
 * at random moments (the soak), a job killed mid-run max_attempts times (a
 * poison job), a full output disk (a real 64 KiB tmpfs, grown with
 * mount -o remount), and least privilege (umask, hostile job names,
 * planted symlinks).
 *
 * Every run gets its own directory from mkdtemp() holding in/, out/, the -c
 * configuration file and the daemon logs.  Conditions are polled with
 * deadlines, never timed.  Answers are checked against tiny reference
 * solvers in this file, so a torn, duplicated, reordered or wrong result
 * line is caught, not just a missing file.
 *
 * The random kill schedule is seeded: CAIRN_TEST_SEED=N replays a run (the
 * seed in use is printed when the soak starts).
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <jansson.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

static const char *g_cairnd;
static const char *g_plugins;

#define DEADLINE_MS 15000
#define LONG_DEADLINE_MS 60000

/* ------------------------------------------------------------------ */
/* Bookkeeping: processes, directories and the mount to clean up       */
/* ------------------------------------------------------------------ */

#define MAX_PROCS 64
#define MAX_DIRS 8

static pid_t g_pid[MAX_PROCS];
static int g_reaped[MAX_PROCS];
static int g_status[MAX_PROCS];
static char g_log[MAX_PROCS][PATH_MAX];
static int g_nprocs;
static char g_dirs[MAX_DIRS][PATH_MAX];
static int g_ndirs;
static char g_top[PATH_MAX];
static pid_t g_runner;
/* The full-disk test's mount point.  Fixed by the runner before any test
 * forks, so the runner can unmount it even after a test was killed by
 * its timeout (no atexit handler runs then). */
static char g_mnt[PATH_MAX];

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

static void rm_tree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

static void unmount_scratch(void)
{
    if (g_mnt[0] != '\0') {
        /* MNT_DETACH: a daemon that still holds a descriptor there must
         * not keep the mount alive. */
        while (umount2(g_mnt, MNT_DETACH) == 0)
            ;
    }
}

/* Kills what is still running, unmounts, removes the directories.  Runs at
 * the end of every test and, through atexit, when an assertion ends one. */
static void cleanup(void)
{
    int i;

    for (i = 0; i < g_nprocs; i++) {
        if (g_pid[i] > 0 && !g_reaped[i]) {
            kill(g_pid[i], SIGKILL);
            waitpid(g_pid[i], NULL, 0);
            g_reaped[i] = 1;
        }
    }
    g_nprocs = 0;
    unmount_scratch();
    for (i = 0; i < g_ndirs; i++)
        rm_tree(g_dirs[i]);
    g_ndirs = 0;
}

static void cleanup_top(void)
{
    cleanup();
    if (getpid() == g_runner && g_top[0] != '\0')
        rm_tree(g_top);
}

/* Prints the end of the last few daemon logs of this test, for a failure. */
static void dump_logs(void)
{
    int i;

    for (i = g_nprocs > 3 ? g_nprocs - 3 : 0; i < g_nprocs; i++) {
        FILE *f = fopen(g_log[i], "r");
        char buf[6144];
        long size;
        size_t n;

        if (f == NULL)
            continue;
        fseek(f, 0, SEEK_END);
        size = ftell(f);
        fseek(f, size > (long)sizeof(buf) ? size - (long)sizeof(buf) : 0, SEEK_SET);
        n = fread(buf, 1, sizeof(buf), f);
        fclose(f);
        fprintf(stderr, "---- %s (last %zu bytes) ----\n%.*s---- end ----\n", g_log[i], n,
                (int)n, buf);
    }
}

#define REQUIRE(cond, ...)             \
    do {                               \
        if (!(cond)) {                 \
            dump_logs();               \
            ck_abort_msg(__VA_ARGS__); \
        }                              \
    } while (0)

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ok = cond, polled every few ms until true or ms have passed. */
#define POLL(ok, cond, ms)                               \
    do {                                                 \
        double end_ = now_s() + (ms) / 1000.0;           \
        while (!((ok) = !!(cond)) && now_s() < end_)     \
            sleep_ms(2);                                 \
    } while (0)

#define EVENTUALLY(cond, ms, ...)  \
    do {                           \
        int ok_;                   \
        POLL(ok_, cond, ms);       \
        REQUIRE(ok_, __VA_ARGS__); \
    } while (0)

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

static void pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void pathf(char *buf, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, PATH_MAX, fmt, ap);
    va_end(ap);
    ck_assert_msg(n > 0 && n < PATH_MAX, "path too long");
}

static int write_all(int fd, const char *p, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w < 0)
            return -errno;
        p += w;
        n -= (size_t)w;
    }
    return 0;
}

static void write_file(const char *path, const char *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    ck_assert_msg(write_all(fd, data, len) == 0, "write %s: %s", path, strerror(errno));
    ck_assert_int_eq(fchmod(fd, mode), 0);
    ck_assert_int_eq(close(fd), 0);
}

static void write_text(const char *path, const char *text)
{
    write_file(path, text, strlen(text), 0644);
}

/* The whole file, NUL-terminated (len excludes the NUL); NULL if it
 * cannot be opened. */
static char *slurp(const char *path, size_t *len_out)
{
    struct cairn_buf b = {0};
    char tmp[65536];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOFOLLOW);

    if (fd < 0)
        return NULL;
    for (;;) {
        ssize_t n = read(fd, tmp, sizeof(tmp));
        if (n < 0 && errno == EINTR)
            continue;
        ck_assert_msg(n >= 0, "read %s: %s", path, strerror(errno));
        if (n == 0)
            break;
        ck_assert_int_eq(cairn_buf_append(&b, tmp, (size_t)n), 0);
    }
    close(fd);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    if (len_out != NULL)
        *len_out = b.len - 1;
    return b.data;
}

static int exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

static int file_contains(const char *path, const char *needle)
{
    char *s = slurp(path, NULL);
    int found = s != NULL && strstr(s, needle) != NULL;

    free(s);
    return found;
}

/* Number of entries in dir (without . and ..) whose name starts with
 * prefix ("" for all); -1 when the directory cannot be opened. */
static int count_entries(const char *dir, const char *prefix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* Number of entries in dir whose name ends with suffix. */
static int count_suffix(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    size_t sl = strlen(suffix);
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        size_t l = strlen(e->d_name);
        if (l >= sl && strcmp(e->d_name + l - sl, suffix) == 0)
            n++;
    }
    closedir(d);
    return n;
}

/* The names in dir, separated by " | ", for messages (caller frees). */
static char *list_dir(const char *dir)
{
    struct cairn_buf b = {0};
    DIR *d = opendir(dir);
    struct dirent *e;

    if (d != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            cairn_buf_puts(&b, e->d_name);
            cairn_buf_puts(&b, " | ");
        }
        closedir(d);
    }
    cairn_buf_append(&b, "", 1);
    return b.data;
}

static json_t *load_json(const char *path)
{
    json_error_t err;
    json_t *j = json_load_file(path, 0, &err);

    REQUIRE(j != NULL, "%s: not JSON: %s (line %d)", path, err.text, err.line);
    return j;
}

static const char *jstr(const json_t *o, const char *key)
{
    const char *s = json_string_value(json_object_get(o, key));
    return s != NULL ? s : "";
}

static long long jint(const json_t *o, const char *key)
{
    const json_t *v = json_object_get(o, key);
    return json_is_integer(v) ? (long long)json_integer_value(v) : -999999999LL;
}

/* ------------------------------------------------------------------ */
/* A test's directory and cairnd                                       */
/* ------------------------------------------------------------------ */

struct env {
    char root[PATH_MAX];
    char in[PATH_MAX];
    char out[PATH_MAX];
    char cfg[PATH_MAX];
    char active[PATH_MAX];
    char failed[PATH_MAX];
    char done[PATH_MAX];
};

static void env_config(const struct env *e, const char *json)
{
    write_text(e->cfg, json);
}

/* The configuration is written in full by each test: cfg is a JSON text. */
static void env_init(struct env *e, const char *cfg)
{
    ck_assert_int_lt(g_ndirs, MAX_DIRS);
    pathf(e->root, "%s/t-XXXXXX", g_top);
    ck_assert_msg(mkdtemp(e->root) != NULL, "mkdtemp: %s", strerror(errno));
    memcpy(g_dirs[g_ndirs++], e->root, sizeof(e->root));
    pathf(e->in, "%s/in", e->root);
    pathf(e->out, "%s/out", e->root);
    pathf(e->cfg, "%s/cairn.json", e->root);
    pathf(e->active, "%s/.cairn/active", e->in);
    pathf(e->failed, "%s/.cairn/failed", e->in);
    pathf(e->done, "%s/.cairn/done", e->in);
    ck_assert_int_eq(mkdir(e->in, 0755), 0);
    env_config(e, cfg);
}

#define IN(buf, e, ...)                          \
    do {                                         \
        char rel_[PATH_MAX];                     \
        pathf(rel_, __VA_ARGS__);                \
        pathf(buf, "%s/%s", (e)->in, rel_);      \
    } while (0)
#define OUT(buf, e, ...)                         \
    do {                                         \
        char rel_[PATH_MAX];                     \
        pathf(rel_, __VA_ARGS__);                \
        pathf(buf, "%s/%s", (e)->out, rel_);     \
    } while (0)

/* The safe hand-off: written under a dot-name, renamed to the job name. */
static void drop_job(const struct env *e, const char *name, const char *data, size_t len)
{
    char tmp[PATH_MAX], dst[PATH_MAX];

    pathf(tmp, "%s/.drop-%d.tmp", e->in, (int)getpid());
    IN(dst, e, "%s", name);
    write_file(tmp, data, len, 0644);
    ck_assert_msg(rename(tmp, dst) == 0, "rename %s: %s", tmp, strerror(errno));
}

static int spawn(const struct env *e, char *const argv[])
{
    int p;
    pid_t pid;

    ck_assert_int_lt(g_nprocs, MAX_PROCS);
    p = g_nprocs;
    pathf(g_log[p], "%s/cairnd-%d.log", e->root, p);
    fflush(NULL);
    pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(g_log[p], O_WRONLY | O_CREAT | O_APPEND, 0644);
        int null = open("/dev/null", O_RDONLY);

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (fd < 0 || null < 0)
            _exit(127);
        dup2(null, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        unsetenv("JOURNAL_STREAM");
        unsetenv("NOTIFY_SOCKET");
        execv(argv[0], argv);
        dprintf(2, "execv %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    g_pid[p] = pid;
    g_reaped[p] = 0;
    g_nprocs++;
    return p;
}

/* cairnd -c CFG --input IN --output OUT --plugins PLUGINS [mode] */
static int start(const struct env *e, const char *mode)
{
    char *argv[] = {(char *)g_cairnd, "-c", (char *)e->cfg, "--input", (char *)e->in,
                    "--output", (char *)e->out, "--plugins", (char *)g_plugins,
                    (char *)mode, NULL};
    return spawn(e, argv);
}

static int reap(int p, int flags)
{
    int st;

    if (g_reaped[p])
        return 1;
    if (waitpid(g_pid[p], &st, flags) == g_pid[p]) {
        g_reaped[p] = 1;
        g_status[p] = st;
        return 1;
    }
    return 0;
}

static int running(int p)
{
    return !reap(p, WNOHANG);
}

static int log_has(int p, const char *text)
{
    return file_contains(g_log[p], text);
}

/* The exit code (128 + signal when killed); fails after ms. */
static int wait_exit(int p, long ms)
{
    int ok;

    POLL(ok, reap(p, WNOHANG), ms);
    if (!ok) {
        kill(g_pid[p], SIGKILL);
        reap(p, 0);
        REQUIRE(0, "cairnd (%s) did not exit within %ld ms", g_log[p], ms);
    }
    return WIFEXITED(g_status[p]) ? WEXITSTATUS(g_status[p]) : 128 + WTERMSIG(g_status[p]);
}

static void wait_ready(int p)
{
    EVENTUALLY(log_has(p, "watching ") || !running(p), DEADLINE_MS,
               "cairnd did not start watching");
    REQUIRE(running(p), "cairnd exited at start-up");
}

/* SIGKILL, and it must have been the SIGKILL that ended it: a daemon that
 * died on its own before would be a finding. */
static void crash(int p)
{
    REQUIRE(running(p), "cairnd (%s) exited on its own before the SIGKILL", g_log[p]);
    kill(g_pid[p], SIGKILL);
    reap(p, 0);
    REQUIRE(WIFSIGNALED(g_status[p]) && WTERMSIG(g_status[p]) == SIGKILL,
            "cairnd (%s) ended with status 0x%x, not by the SIGKILL", g_log[p],
            (unsigned)g_status[p]);
}

static void stop(int p)
{
    int code;

    REQUIRE(running(p), "cairnd is no longer running");
    kill(g_pid[p], SIGTERM);
    code = wait_exit(p, LONG_DEADLINE_MS);
    REQUIRE(code == 0, "cairnd exited %d after SIGTERM", code);
}

/* ------------------------------------------------------------------ */
/* Jobs with known answers                                             */
/* ------------------------------------------------------------------ */

/* splitmix64: a seeded, portable PRNG. */
static uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);

    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
}

/* Uniform in lo..hi (inclusive). */
static long long rng_range(uint64_t *s, long long lo, long long hi)
{
    return lo + (long long)(rng_next(s) % (uint64_t)(hi - lo + 1));
}

/* Reference solver, stone-game-iii: margin (alice - bob) under optimal
 * play, taking 1..3 stones from the front. */
static long long ref_iii(const long long *v, int n)
{
    long long dp[64];
    int i, k;

    ck_assert_int_lt(n, 60);
    dp[n] = 0;
    for (i = n - 1; i >= 0; i--) {
        long long take = 0, best = LLONG_MIN;
        for (k = 0; k < 3 && i + k < n; k++) {
            take += v[i + k];
            if (take - dp[i + k + 1] > best)
                best = take - dp[i + k + 1];
        }
        dp[i] = best;
    }
    return dp[0];
}

/* Reference solver, stone-game-ii: Alice's best total (memoised
 * recursion over (i, M)). */
static long long ii_memo[32][64];
static long long ii_suffix[33];

static long long ii_f(int i, int m, int n)
{
    long long best = LLONG_MIN;
    int x;

    if (i + 2 * m >= n)
        return ii_suffix[i];
    if (ii_memo[i][m] >= 0)
        return ii_memo[i][m];
    for (x = 1; x <= 2 * m; x++) {
        int m2 = x > m ? x : m;
        long long got = ii_suffix[i] - ii_f(i + x, m2, n);
        if (got > best)
            best = got;
    }
    ii_memo[i][m] = best;
    return best;
}

static long long ref_ii(const long long *p, int n)
{
    int i, j;

    ck_assert_int_lt(n, 30);
    ii_suffix[n] = 0;
    for (i = n - 1; i >= 0; i--)
        ii_suffix[i] = ii_suffix[i + 1] + p[i];
    for (i = 0; i < 32; i++)
        for (j = 0; j < 64; j++)
            ii_memo[i][j] = -1;
    return ii_f(0, 1, n);
}

/* What line L of a job must answer. */
struct expect {
    char variant; /* '2' or '3' */
    long long answer; /* -ii: Alice's total; -iii: the margin */
    long long margin;
};

struct job {
    char name[PATH_MAX]; /* NAME.jsonl */
    char base[PATH_MAX]; /* NAME */
    size_t n;
    struct expect *exp;
    char *data;
    size_t len;
};

/* Starts a record: {"id":"BASE#LINE" (BASE escaped for JSON). */
static void put_id(struct cairn_buf *b, const char *base, size_t line)
{
    char id[PATH_MAX + 32];

    snprintf(id, sizeof(id), "%s#%zu", base, line);
    ck_assert_int_eq(cairn_buf_puts(b, "{\"id\":"), 0);
    ck_assert_int_eq(cairn_buf_json_string(b, id, strlen(id)), 0);
}

/* n records, stone-game-ii and -iii mixed, with ids "BASE#LINE" and the
 * answers of the reference solvers. */
static void job_make(struct job *j, const char *base, size_t n, uint64_t seed)
{
    struct cairn_buf b = {0};
    uint64_t s = seed;
    size_t i;

    pathf(j->base, "%s", base);
    pathf(j->name, "%s.jsonl", base);
    j->n = n;
    j->exp = calloc(n, sizeof(*j->exp));
    ck_assert_ptr_nonnull(j->exp);
    for (i = 0; i < n; i++) {
        long long v[40];
        int len, k;

        if (rng_next(&s) & 1) {
            long long total = 0, alice;
            len = (int)rng_range(&s, 1, 12);
            for (k = 0; k < len; k++) {
                v[k] = rng_range(&s, 1, 10000);
                total += v[k];
            }
            alice = ref_ii(v, len);
            j->exp[i] = (struct expect){'2', alice, 2 * alice - total};
            put_id(&b, base, i + 1);
            ck_assert_int_eq(cairn_buf_puts(&b, ",\"variant\":\"stone-game-ii\","
                                                "\"input\":{\"piles\":["), 0);
        } else {
            len = (int)rng_range(&s, 1, 30);
            for (k = 0; k < len; k++)
                v[k] = rng_range(&s, -1000, 1000);
            j->exp[i] = (struct expect){'3', ref_iii(v, len), ref_iii(v, len)};
            put_id(&b, base, i + 1);
            ck_assert_int_eq(cairn_buf_puts(&b, ",\"variant\":\"1406\","
                                                "\"input\":{\"stoneValue\":["), 0);
        }
        for (k = 0; k < len; k++)
            ck_assert_int_eq(cairn_buf_printf(&b, "%s%lld", k ? "," : "", v[k]), 0);
        ck_assert_int_eq(cairn_buf_puts(&b, "]}}\n"), 0);
    }
    j->data = b.data;
    j->len = b.len;
}

static void job_free(struct job *j)
{
    free(j->exp);
    free(j->data);
    j->exp = NULL;
    j->data = NULL;
}

/* The job's summary says ok with all n records ok, and its results file
 * has exactly n lines, lines 1..n in order, each with the right answer. */
static void check_job_ok(const struct env *e, const struct job *j)
{
    char path[PATH_MAX], id[PATH_MAX + 32];
    json_t *sum;
    char *res, *p, *nl;
    size_t len, i = 0;

    OUT(path, e, "%s.summary.json", j->base);
    REQUIRE(exists(path), "job %s has no summary", j->base);
    sum = load_json(path);
    REQUIRE(strcmp(jstr(sum, "status"), "ok") == 0, "job %s: status %s (reason %s)", j->base,
            jstr(sum, "status"), jstr(sum, "reason"));
    REQUIRE(jint(sum, "records") == (long long)j->n && jint(sum, "ok") == (long long)j->n,
            "job %s: summary says %lld records, %lld ok; the job has %zu", j->base,
            jint(sum, "records"), jint(sum, "ok"), j->n);
    REQUIRE(strcmp(jstr(sum, "job"), j->base) == 0, "job %s: summary names job \"%s\"",
            j->base, jstr(sum, "job"));
    json_decref(sum);

    OUT(path, e, "%s.results.jsonl", j->base);
    res = slurp(path, &len);
    REQUIRE(res != NULL, "job %s has no results file", j->base);
    REQUIRE(len > 0 && res[len - 1] == '\n', "job %s: results do not end with a newline",
            j->base);
    for (p = res; p < res + len; p = nl + 1, i++) {
        json_error_t err;
        const struct expect *x;
        json_t *r;

        nl = memchr(p, '\n', (size_t)(res + len - p));
        REQUIRE(i < j->n, "job %s: more than %zu result lines", j->base, j->n);
        x = &j->exp[i];
        r = json_loadb(p, (size_t)(nl - p), 0, &err);
        REQUIRE(r != NULL, "job %s: result line %zu is not JSON: %s", j->base, i + 1,
                err.text);
        snprintf(id, sizeof(id), "%s#%zu", j->base, i + 1);
        REQUIRE(jint(r, "line") == (long long)(i + 1), "job %s: result %zu has line %lld",
                j->base, i + 1, jint(r, "line"));
        REQUIRE(strcmp(jstr(r, "id"), id) == 0, "job %s: result %zu has id %s", j->base, i + 1,
                jstr(r, "id"));
        REQUIRE(strcmp(jstr(r, "status"), "ok") == 0, "job %s: result %zu: status %s",
                j->base, i + 1, jstr(r, "status"));
        REQUIRE(jint(r, "margin") == x->margin, "job %s line %zu: margin %lld, expected %lld",
                j->base, i + 1, jint(r, "margin"), x->margin);
        if (x->variant == '2') {
            REQUIRE(strcmp(jstr(r, "variant"), "stone-game-ii") == 0 &&
                        jint(r, "answer") == x->answer,
                    "job %s line %zu: answer %lld, expected %lld", j->base, i + 1,
                    jint(r, "answer"), x->answer);
        } else {
            const char *want = x->answer > 0 ? "Alice" : x->answer < 0 ? "Bob" : "Tie";
            REQUIRE(strcmp(jstr(r, "variant"), "stone-game-iii") == 0 &&
                        strcmp(jstr(r, "answer"), want) == 0,
                    "job %s line %zu: answer %s, expected %s", j->base, i + 1,
                    jstr(r, "answer"), want);
        }
        json_decref(r);
    }
    REQUIRE(i == j->n, "job %s: %zu result lines, expected %zu", j->base, i, j->n);
    free(res);
}

/* No dot-file (a temporary) in dir. */
static void check_no_dot_files(const char *dir)
{
    struct cairn_buf b = {0};
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    REQUIRE(d != NULL, "cannot open %s: %s", dir, strerror(errno));
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] != '.' || strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        n++;
        cairn_buf_puts(&b, e->d_name);
        cairn_buf_puts(&b, " ");
    }
    closedir(d);
    cairn_buf_append(&b, "", 1);
    REQUIRE(n == 0, "%d temporary file(s) left in %s: %s", n, dir, b.data);
    free(b.data);
}

static uint64_t test_seed(void)
{
    const char *s = getenv("CAIRN_TEST_SEED");

    if (s != NULL && *s != '\0')
        return strtoull(s, NULL, 0);
    return (uint64_t)time(NULL) ^ ((uint64_t)getpid() << 20);
}

/* ------------------------------------------------------------------ */
/* 1. Soak: SIGKILL at random moments, then everything exactly once    */
/* ------------------------------------------------------------------ */

#define SOAK_JOBS 40
#define SOAK_KILLS 25
#define SOAK_UPFRONT 16
#define SOAK_MAX_RECORDS 20000

START_TEST(soak_random_sigkills_lose_nothing)
{
    struct env e;
    static struct job jobs[SOAK_JOBS];
    uint64_t seed = test_seed(), s;
    size_t total = 0;
    int next = 0, k, i, p, code;
    double t0 = now_s();
    char path[PATH_MAX];

    fprintf(stderr, "soak: CAIRN_TEST_SEED=%llu\n", (unsigned long long)seed);
    s = seed;
    env_init(&e, "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, \"metrics_interval_s\": 0.1, "
                 "\"max_attempts\": 1000, \"log_level\": \"debug\"}\n");
    /* Sizes spread evenly on a log scale from 1 to 20000 records; the
     * extremes are always there. */
    for (i = 0; i < SOAK_JOBS; i++) {
        size_t n;
        char base[64];

        if (i == 0)
            n = SOAK_MAX_RECORDS;
        else if (i == 1)
            n = 1;
        else
            n = (size_t)llround(exp((double)(rng_next(&s) >> 11) / 9007199254740992.0 *
                                    log((double)SOAK_MAX_RECORDS)));
        if (n < 1)
            n = 1;
        snprintf(base, sizeof(base), "soak-%02d-%zu", i, n);
        job_make(&jobs[i], base, n, seed ^ (uint64_t)(i + 1) * 0x1000193ULL);
        total += n;
    }
    fprintf(stderr, "soak: %d jobs, %zu records\n", SOAK_JOBS, total);
    for (; next < SOAK_UPFRONT; next++)
        drop_job(&e, jobs[next].name, jobs[next].data, jobs[next].len);

    for (k = 0; k < SOAK_KILLS; k++) {
        long delay = (long)rng_range(&s, 20, 300);
        /* Each later round brings one more job: dropped while the daemon
         * is down or at a random moment while it runs. */
        int drop = next < SOAK_JOBS && k > 0;
        long drop_at = drop ? (long)rng_range(&s, -1, delay - 1) : -1;

        if (drop && drop_at < 0) {
            drop_job(&e, jobs[next].name, jobs[next].data, jobs[next].len);
            next++;
            drop = 0;
        }
        p = start(&e, NULL);
        if (drop) {
            sleep_ms(drop_at);
            drop_job(&e, jobs[next].name, jobs[next].data, jobs[next].len);
            next++;
            sleep_ms(delay - drop_at);
        } else {
            sleep_ms(delay);
        }
        crash(p);
    }
    for (; next < SOAK_JOBS; next++)
        drop_job(&e, jobs[next].name, jobs[next].data, jobs[next].len);
    fprintf(stderr, "soak: %d kills in %.1f s; %d summaries so far\n", SOAK_KILLS,
            now_s() - t0, count_suffix(e.out, ".summary.json"));

    /* The last run: everything left, recovered jobs included, then exit. */
    p = start(&e, "--once");
    code = wait_exit(p, LONG_DEADLINE_MS);
    REQUIRE(code == 0, "the final cairnd --once exited %d", code);

    for (i = 0; i < SOAK_JOBS; i++)
        check_job_ok(&e, &jobs[i]);
    {
        char *a = list_dir(e.active), *f = list_dir(e.failed), *in = list_dir(e.in);
        REQUIRE(count_entries(e.active, "") == 0,
                ".cairn/active/ is not empty (jobs or .attempts files): %s", a);
        REQUIRE(count_entries(e.failed, "") == 0, ".cairn/failed/ is not empty: %s", f);
        REQUIRE(count_suffix(e.in, ".jsonl") == 0, "jobs left in the input directory: %s", in);
        free(a);
        free(f);
        free(in);
    }
    REQUIRE(count_suffix(e.done, ".jsonl") == SOAK_JOBS, "%d inputs in done/, expected %d",
            count_suffix(e.done, ".jsonl"), SOAK_JOBS);
    REQUIRE(count_suffix(e.out, ".summary.json") == SOAK_JOBS, "%d summaries, expected %d",
            count_suffix(e.out, ".summary.json"), SOAK_JOBS);
    REQUIRE(count_suffix(e.out, ".results.jsonl") == SOAK_JOBS, "%d results files, expected %d",
            count_suffix(e.out, ".results.jsonl"), SOAK_JOBS);
    check_no_dot_files(e.out);
    OUT(path, &e, "metrics.prom");
    REQUIRE(exists(path), "no metrics.prom after the final run");
    fprintf(stderr, "soak: done in %.1f s\n", now_s() - t0);
    for (i = 0; i < SOAK_JOBS; i++)
        job_free(&jobs[i]);
    cleanup();
}
END_TEST

/* A SIGKILL while the metrics file is being rewritten (every millisecond
 * here, so most kills land inside a write) must not leave its temporary
 * behind for good: after the next start and stop, OUTPUT holds no
 * dot-file.  When no kill happened to land in a write, there is nothing to
 * check and the test says so. */
START_TEST(sigkill_mid_metrics_write_leaves_no_temp)
{
    struct env e;
    uint64_t s = test_seed();
    int p, k, hit = 0;
    char *names;

    env_init(&e, "{\"min_age_ms\": 0, \"metrics_interval_s\": 0.001, \"log_level\": \"debug\"}\n");
    for (k = 0; k < 20 && hit == 0; k++) {
        p = start(&e, NULL);
        wait_ready(p);
        sleep_ms((long)rng_range(&s, 5, 60));
        crash(p);
        hit = count_entries(e.out, ".") > 0;
    }
    if (!hit) {
        fprintf(stderr, "metrics: no kill landed inside a metrics write; nothing to check\n");
        cleanup();
        return;
    }
    names = list_dir(e.out);
    fprintf(stderr, "metrics: after %d kill(s) OUTPUT holds: %s\n", k, names);
    free(names);
    /* The next daemon, in its normal rhythm, then a clean stop. */
    env_config(&e, "{\"min_age_ms\": 0, \"metrics_interval_s\": 0.2, \"log_level\": \"debug\"}\n");
    p = start(&e, NULL);
    wait_ready(p);
    sleep_ms(500);
    stop(p);
    check_no_dot_files(e.out);
    cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 2. Poison job: killed mid-run max_attempts times, then quarantined  */
/* ------------------------------------------------------------------ */

#define POISON_RECORDS 6000
#define POISON_LEN 500

/* POISON_RECORDS stone-game records of POISON_LEN piles: seconds of work
 * on one thread. */
static char *poison_data(size_t *len)
{
    struct cairn_buf b = {0};
    uint64_t s = 877;
    size_t i;
    int k;

    for (i = 0; i < POISON_RECORDS; i++) {
        long long v[POISON_LEN], sum = 0;
        for (k = 0; k < POISON_LEN; k++) {
            v[k] = rng_range(&s, 1, 500);
            sum += v[k];
        }
        if (sum % 2 == 0)
            v[0] += v[0] < 500 ? 1 : -1; /* official: the sum is odd */
        ck_assert_int_eq(cairn_buf_printf(&b, "{\"id\":%zu,\"variant\":\"stone-game\","
                                              "\"input\":{\"piles\":[", i + 1), 0);
        for (k = 0; k < POISON_LEN; k++)
            ck_assert_int_eq(cairn_buf_printf(&b, "%s%lld", k ? "," : "", v[k]), 0);
        ck_assert_int_eq(cairn_buf_puts(&b, "]}}\n"), 0);
    }
    *len = b.len;
    return b.data;
}

/* The run count in active/.NAME.attempts ("INODE COUNT"), 0 if none. */
static unsigned attempts_of(const struct env *e, const char *name)
{
    char path[PATH_MAX];
    unsigned long long ino;
    unsigned count = 0;
    char *s;

    pathf(path, "%s/.%s.attempts", e->active, name);
    s = slurp(path, NULL);
    if (s == NULL || sscanf(s, "%llu %u", &ino, &count) != 2)
        count = 0;
    free(s);
    return count;
}

START_TEST(poison_job_is_quarantined_after_max_attempts)
{
    struct env e;
    struct job small[3], later;
    char path[PATH_MAX], big_sum[PATH_MAX];
    size_t len;
    char *big = poison_data(&len);
    json_t *sum;
    int p, i, kills;

    env_init(&e, "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, \"metrics_interval_s\": 0.5, "
                 "\"max_attempts\": 3, \"threads\": 1, \"log_level\": \"debug\"}\n");
    for (i = 0; i < 3; i++) {
        char base[32];
        snprintf(base, sizeof(base), "small-%d", i);
        job_make(&small[i], base, (size_t)(10 + 40 * i), (uint64_t)(100 + i));
        drop_job(&e, small[i].name, small[i].data, small[i].len);
    }
    drop_job(&e, "big.jsonl", big, len);
    free(big);
    OUT(big_sum, &e, "big.summary.json");

    for (kills = 0; kills < 3; kills++) {
        p = start(&e, NULL);
        /* Running: its run is counted and its results are being written. */
        EVENTUALLY(attempts_of(&e, "big.jsonl") == (unsigned)kills + 1 &&
                       count_entries(e.out, ".cairn.") > 0,
                   DEADLINE_MS, "run %d of the big job did not begin (attempts %u)", kills + 1,
                   attempts_of(&e, "big.jsonl"));
        if (kills == 0) {
            /* The small jobs finish on the first run, long before the big
             * one: the kills below land on the big job alone. */
            for (i = 0; i < 3; i++) {
                char s_path[PATH_MAX];
                OUT(s_path, &e, "%s.summary.json", small[i].base);
                EVENTUALLY(exists(s_path), DEADLINE_MS, "small job %s did not finish",
                           small[i].base);
            }
        }
        REQUIRE(!exists(big_sum), "the big job finished before kill %d: make it bigger",
                kills + 1);
        crash(p);
        pathf(path, "%s/big.jsonl", e.active);
        REQUIRE(exists(path), "the killed big job is not in .cairn/active/");
    }
    REQUIRE(attempts_of(&e, "big.jsonl") == 3, "the run counter says %u after 3 kills",
            attempts_of(&e, "big.jsonl"));

    /* The next start quarantines it and carries on. */
    p = start(&e, NULL);
    EVENTUALLY(exists(big_sum), DEADLINE_MS, "no summary for the poison job");
    sum = load_json(big_sum);
    REQUIRE(strcmp(jstr(sum, "status"), "failed") == 0, "poison job: status %s",
            jstr(sum, "status"));
    REQUIRE(strstr(jstr(sum, "reason"), "max_attempts") != NULL,
            "poison job: the reason does not mention max_attempts: %s", jstr(sum, "reason"));
    REQUIRE(strcmp(jstr(sum, "job"), "big") == 0, "poison job: summary names %s",
            jstr(sum, "job"));
    json_decref(sum);
    pathf(path, "%s/big.jsonl", e.failed);
    EVENTUALLY(exists(path), DEADLINE_MS, "the poison job is not in .cairn/failed/");
    pathf(path, "%s/big.reason.json", e.failed);
    REQUIRE(exists(path), "no .cairn/failed/big.reason.json");
    sum = load_json(path);
    REQUIRE(strstr(jstr(sum, "reason"), "max_attempts") != NULL,
            "big.reason.json does not mention max_attempts: %s", jstr(sum, "reason"));
    json_decref(sum);
    OUT(path, &e, "big.results.jsonl");
    REQUIRE(!exists(path), "a quarantined job has a results file");
    REQUIRE(count_entries(e.out, ".big.") == 0,
            "the poison job's temporary results file lingers");
    EVENTUALLY(count_entries(e.active, "") == 0, DEADLINE_MS,
               ".cairn/active/ keeps %d entries (a run counter?)", count_entries(e.active, ""));
    for (i = 0; i < 3; i++)
        check_job_ok(&e, &small[i]);

    /* The daemon carries on. */
    job_make(&later, "later", 25, 7);
    drop_job(&e, later.name, later.data, later.len);
    OUT(path, &e, "later.summary.json");
    EVENTUALLY(exists(path), DEADLINE_MS, "a job dropped after the quarantine was not processed");
    check_job_ok(&e, &later);
    REQUIRE(log_has(p, "max_attempts"), "the log does not say why the job failed");
    stop(p);
    check_no_dot_files(e.out);
    for (i = 0; i < 3; i++)
        job_free(&small[i]);
    job_free(&later);
    cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 3. Full disk: a real 64 KiB tmpfs as the output directory           */
/* ------------------------------------------------------------------ */

static void unchecked_setup_mnt(void)
{
    /* Runs in the runner: the mount point exists before a test forks. */
    if (mkdir(g_mnt, 0755) != 0 && errno != EEXIST)
        fprintf(stderr, "mkdir %s: %s\n", g_mnt, strerror(errno));
}

static void unchecked_teardown_mnt(void)
{
    /* Runs in the runner, also after a test was killed by its timeout. */
    unmount_scratch();
    rmdir(g_mnt);
}

START_TEST(full_disk_hands_back_then_completes)
{
    struct env e;
    struct job big, small;
    char path[PATH_MAX], in_path[PATH_MAX], act_path[PATH_MAX];
    int p;

    if (geteuid() != 0) {
        fprintf(stderr, "full_disk: SKIPPED: not root, cannot mount a tmpfs\n");
        return;
    }
    env_init(&e, "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, \"metrics_interval_s\": 3600, "
                 "\"log_level\": \"debug\"}\n");
    /* The output directory is the tmpfs the runner can unmount. */
    pathf(e.out, "%s", g_mnt);
    if (mount("tmpfs", g_mnt, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") != 0) {
        fprintf(stderr, "full_disk: SKIPPED: mount -t tmpfs -o size=64k on %s: %s\n", g_mnt,
                strerror(errno));
        cleanup();
        return;
    }
    /* ~100 bytes a result line: about 300 KiB of results. */
    job_make(&big, "big", 3000, 1234);
    job_make(&small, "small", 1, 99);

    p = start(&e, NULL);
    wait_ready(p);
    drop_job(&e, big.name, big.data, big.len);
    EVENTUALLY(log_has(p, "handed back to the spool") || !running(p), DEADLINE_MS,
               "the job was not handed back when the disk filled up");
    REQUIRE(running(p), "cairnd died when the disk filled up");
    /* Nothing partial visible, no temporary left, and the job not lost. */
    OUT(path, &e, "big.results.jsonl");
    REQUIRE(!exists(path), "big.results.jsonl is visible though it could not be written");
    OUT(path, &e, "big.summary.json");
    REQUIRE(!exists(path), "big.summary.json is visible though results could not be written");
    IN(in_path, &e, "big.jsonl");
    pathf(act_path, "%s/big.jsonl", e.active);
    REQUIRE(exists(in_path) || exists(act_path), "the job file is lost after the failed write");
    {
        /* The retry may already have begun a new temporary: only one
         * whose job is back in the input directory must be gone. */
        char *names = list_dir(e.out);
        REQUIRE(!(count_entries(e.out, ".big.") > 0 && exists(in_path)),
                "a temporary file lingers after the hand-back: %s", names);
        free(names);
    }
    REQUIRE(kill(g_pid[p], 0) == 0, "cairnd is gone");

    /* Still serving: a small job fits in the space the hand-back freed
     * (the next try of the big one is at least a second away). */
    drop_job(&e, small.name, small.data, small.len);
    OUT(path, &e, "small.summary.json");
    EVENTUALLY(exists(path) || !running(p), DEADLINE_MS,
               "a small job was not served while the disk was full");
    check_job_ok(&e, &small);
    /* And answers SIGHUP. */
    kill(g_pid[p], SIGHUP);
    EVENTUALLY(log_has(p, "reloaded: ") || !running(p), DEADLINE_MS,
               "cairnd did not answer SIGHUP while the disk was full");
    REQUIRE(running(p), "cairnd died on SIGHUP while the disk was full");
    /* A second failure with back-off, still nothing visible. */
    OUT(path, &e, "big.summary.json");
    REQUIRE(!exists(path), "big.summary.json appeared on a full disk");

    /* Space returns: the job completes within its back-off. */
    REQUIRE(mount("tmpfs", g_mnt, "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV,
                  "size=16m,mode=0755") == 0,
            "mount -o remount,size=16m: %s", strerror(errno));
    EVENTUALLY(exists(path), 20000, "the job did not complete after the disk was grown");
    check_job_ok(&e, &big);
    EVENTUALLY(!exists(act_path) && !exists(in_path), DEADLINE_MS,
               "the finished job's input is still in the spool");
    check_no_dot_files(e.out);
    stop(p);
    check_no_dot_files(e.out);
    job_free(&big);
    job_free(&small);
    cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 4. Least privilege                                                  */
/* ------------------------------------------------------------------ */

static void check_mode(const char *path, mode_t want)
{
    struct stat st;

    REQUIRE(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
    REQUIRE(S_ISREG(st.st_mode), "%s is not a regular file", path);
    REQUIRE((st.st_mode & 07777) == want, "%s has mode %04o, expected %04o", path,
            (unsigned)(st.st_mode & 07777), (unsigned)want);
}

START_TEST(umask_restricts_output_modes)
{
    struct env e;
    struct job j;
    char path[PATH_MAX];
    int p, code;

    env_init(&e, "{\"min_age_ms\": 0, \"umask\": \"0077\", \"log_level\": \"debug\"}\n");
    job_make(&j, "private", 20, 5);
    drop_job(&e, j.name, j.data, j.len);
    p = start(&e, "--once");
    code = wait_exit(p, DEADLINE_MS);
    REQUIRE(code == 0, "cairnd --once exited %d", code);
    check_job_ok(&e, &j);
    OUT(path, &e, "private.results.jsonl");
    check_mode(path, 0600);
    OUT(path, &e, "private.summary.json");
    check_mode(path, 0600);
    job_free(&j);
    cleanup();
}
END_TEST

START_TEST(hostile_names_stay_in_output_dir)
{
    struct env e;
    /* Spaces and non-ASCII letters; printf and shell metacharacters,
     * quotes and a backslash; a 200-character name; names that look like
     * paths or options. */
    const char *bases[] = {
        "job with spaces ÄÖü ñ 日本語",
        "100%s%n%x \\ \"quoted\" 'single' $(rm -rf) `x` ;|&",
        NULL, /* the 200-character name */
        "x..y.jsonl.results",
        "-rf --output=x",
    };
    enum { N = sizeof(bases) / sizeof(bases[0]) };
    char longname[256];
    struct job jobs[N];
    char path[PATH_MAX];
    int p, i, expected_out;
    char *names;

    /* 200 characters with ".jsonl": 194 bytes of base, some of them
     * two-byte letters. */
    memset(longname, 'a', sizeof(longname));
    memcpy(longname, "é", 2);
    longname[194] = '\0';
    ck_assert_uint_eq(strlen(longname) + strlen(".jsonl"), 200);
    bases[2] = longname;

    env_init(&e, "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, \"umask\": \"0077\", "
                 "\"metrics_interval_s\": 0.2, \"log_level\": \"debug\"}\n");
    p = start(&e, NULL);
    wait_ready(p);
    for (i = 0; i < N; i++) {
        job_make(&jobs[i], bases[i], (size_t)(3 + i), (uint64_t)(500 + i));
        drop_job(&e, jobs[i].name, jobs[i].data, jobs[i].len);
    }
    for (i = 0; i < N; i++) {
        OUT(path, &e, "%s.summary.json", jobs[i].base);
        EVENTUALLY(exists(path) || !running(p), DEADLINE_MS, "no summary for job \"%s\"",
                   jobs[i].base);
        check_job_ok(&e, &jobs[i]);
        check_mode(path, 0600);
        OUT(path, &e, "%s.results.jsonl", jobs[i].base);
        check_mode(path, 0600);
        pathf(path, "%s/%s", e.done, jobs[i].name);
        EVENTUALLY(exists(path), DEADLINE_MS, "job \"%s\" did not reach done/", jobs[i].base);
    }
    stop(p);
    /* Outputs only in OUTPUT: 2 per job and the metrics file. */
    expected_out = 2 * N + 1;
    names = list_dir(e.out);
    REQUIRE(count_entries(e.out, "") == expected_out, "output directory holds %d entries, "
            "expected %d: %s", count_entries(e.out, ""), expected_out, names);
    free(names);
    /* Nothing appeared beside in/ and out/ (the config and the log). */
    names = list_dir(e.root);
    REQUIRE(count_entries(e.root, "") == 4, "unexpected files beside in/ and out/: %s", names);
    free(names);
    names = list_dir(e.in);
    REQUIRE(count_entries(e.in, "") == 1, "unexpected files in the input directory: %s", names);
    free(names);
    for (i = 0; i < N; i++)
        job_free(&jobs[i]);
    cleanup();
}
END_TEST

/* Someone with write access to OUTPUT plants a symlink where an output
 * goes: it is replaced, never written through. */
START_TEST(planted_symlink_in_output_is_not_followed)
{
    struct env e;
    struct job j;
    char path[PATH_MAX], victim[PATH_MAX], *s;
    struct stat st;
    int p, code;

    env_init(&e, "{\"min_age_ms\": 0, \"log_level\": \"debug\"}\n");
    pathf(victim, "%s/victim", e.root);
    write_text(victim, "precious\n");
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    OUT(path, &e, "trap.results.jsonl");
    ck_assert_int_eq(symlink(victim, path), 0);
    OUT(path, &e, "trap.summary.json");
    ck_assert_int_eq(symlink(victim, path), 0);
    job_make(&j, "trap", 4, 11);
    drop_job(&e, j.name, j.data, j.len);
    p = start(&e, "--once");
    code = wait_exit(p, DEADLINE_MS);
    REQUIRE(code == 0, "cairnd --once exited %d", code);
    s = slurp(victim, NULL);
    REQUIRE(s != NULL && strcmp(s, "precious\n") == 0, "the symlink's target was written");
    free(s);
    OUT(path, &e, "trap.results.jsonl");
    REQUIRE(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "results are not a regular file");
    check_job_ok(&e, &j);
    job_free(&j);
    cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */

static TCase *tcase(const char *name, int timeout)
{
    TCase *tc = tcase_create(name);

    tcase_set_timeout(tc, timeout);
    return tc;
}

static Suite *reliability_suite(void)
{
    Suite *s = suite_create("reliability");
    TCase *tc;

    tc = tcase("crash_safety", 180);
    tcase_add_test(tc, soak_random_sigkills_lose_nothing);
    tcase_add_test(tc, sigkill_mid_metrics_write_leaves_no_temp);
    suite_add_tcase(s, tc);

    tc = tcase("poison_jobs", 120);
    tcase_add_test(tc, poison_job_is_quarantined_after_max_attempts);
    suite_add_tcase(s, tc);

    tc = tcase("full_disk", 120);
    tcase_add_unchecked_fixture(tc, unchecked_setup_mnt, unchecked_teardown_mnt);
    tcase_add_test(tc, full_disk_hands_back_then_completes);
    suite_add_tcase(s, tc);

    tc = tcase("least_privilege", 120);
    tcase_add_test(tc, umask_restricts_output_modes);
    tcase_add_test(tc, hostile_names_stay_in_output_dir);
    tcase_add_test(tc, planted_symlink_in_output_is_not_followed);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    SRunner *sr;
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_cairnd == NULL || g_plugins == NULL || access(g_cairnd, X_OK) != 0) {
        fprintf(stderr, "test_reliability: CAIRN_TEST_CAIRND and CAIRN_TEST_PLUGIN_DIR "
                        "must be set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    snprintf(g_top, sizeof(g_top), "%s/cairn-test-reliability-XXXXXX",
             getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
    if (mkdtemp(g_top) == NULL) {
        perror("test_reliability: mkdtemp");
        return EXIT_FAILURE;
    }
    if (snprintf(g_mnt, sizeof(g_mnt), "%s/fulldisk-out", g_top) >= (int)sizeof(g_mnt)) {
        fprintf(stderr, "test_reliability: %s: path too long\n", g_top);
        return EXIT_FAILURE;
    }
    g_runner = getpid();
    atexit(cleanup_top);
    sr = srunner_create(reliability_suite());
    srunner_run_all(sr, CK_ENV); /* CK_VERBOSITY=verbose lists each test */
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
