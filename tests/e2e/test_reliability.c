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

#include "harness.h"
#include "util.h"

static const char *g_cairnd;
static const char *g_plugins;

#define DEADLINE_MS      15000
#define LONG_DEADLINE_MS 60000

/* ------------------------------------------------------------------ */
/* Bookkeeping: processes, directories and the mount to clean up       */
/* ------------------------------------------------------------------ */

/* The full-disk test's mount point.  Fixed by the runner before any test
 * forks, so the runner can unmount it even after a test was killed by
 * its timeout (no atexit handler runs then). */
static char g_mnt[PATH_MAX];

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
    th_kill_all();
    unmount_scratch();
    th_remove_dirs();
}

static void cleanup_top(void)
{
    cleanup();
    if (getpid() == th_runner && th_top[0] != '\0')
        th_rm_tree(th_top);
}

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

/* Number of entries in dir whose name ends with suffix. */
static int count_suffix(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (th_ends_with(e->d_name, suffix))
            n++;
    closedir(d);
    return n;
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

static void env_config(const struct th_env *e, const char *json)
{
    th_write_text(e->cfg, json);
}

/* The configuration is written in full by each test: cfg is a JSON text. */
static void env_init(struct th_env *e, const char *cfg)
{
    th_env_init(e, cfg);
}

static void drop_job(const struct th_env *e, const char *name, const char *data, size_t len)
{
    th_drop_job(e->in, name, data, len);
}

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

/* SIGKILL, and it must have been the SIGKILL that ended it: a daemon that
 * died on its own before would be a finding. */
static void crash(int p)
{
    TH_REQUIRE(th_running(p), "cairnd (%s) exited on its own before the SIGKILL", th_log[p]);
    kill(th_pid[p], SIGKILL);
    th_reap(p, 0);
    TH_REQUIRE(WIFSIGNALED(th_status[p]) && WTERMSIG(th_status[p]) == SIGKILL,
               "cairnd (%s) ended with status 0x%x, not by the SIGKILL", th_log[p],
               (unsigned)th_status[p]);
}

/* ------------------------------------------------------------------ */
/* Jobs with known answers                                             */
/* ------------------------------------------------------------------ */

/* Uniform in lo..hi (inclusive). */
static long long rng_range(uint64_t *s, long long lo, long long hi)
{
    return th_splitmix64_range(s, lo, hi);
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
    char variant;     /* '2' or '3' */
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
    struct cairn_buf b = { 0 };
    uint64_t s = seed;
    size_t i;

    th_pathf(j->base, "%s", base);
    th_pathf(j->name, "%s.jsonl", base);
    j->n = n;
    j->exp = calloc(n, sizeof(*j->exp));
    ck_assert_ptr_nonnull(j->exp);
    for (i = 0; i < n; i++) {
        long long v[40];
        int len, k;

        if (th_splitmix64(&s) & 1) {
            long long total = 0, alice;
            len = (int)rng_range(&s, 1, 12);
            for (k = 0; k < len; k++) {
                v[k] = rng_range(&s, 1, 10000);
                total += v[k];
            }
            alice = ref_ii(v, len);
            j->exp[i] = (struct expect){ '2', alice, 2 * alice - total };
            put_id(&b, base, i + 1);
            ck_assert_int_eq(cairn_buf_puts(&b, ",\"variant\":\"stone-game-ii\","
                                                "\"input\":{\"piles\":["),
                             0);
        } else {
            len = (int)rng_range(&s, 1, 30);
            for (k = 0; k < len; k++)
                v[k] = rng_range(&s, -1000, 1000);
            j->exp[i] = (struct expect){ '3', ref_iii(v, len), ref_iii(v, len) };
            put_id(&b, base, i + 1);
            ck_assert_int_eq(cairn_buf_puts(&b, ",\"variant\":\"1406\","
                                                "\"input\":{\"stoneValue\":["),
                             0);
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
static void check_job_ok(const struct th_env *e, const struct job *j)
{
    char path[PATH_MAX], id[PATH_MAX + 32];
    json_t *sum;
    char *res, *p, *nl;
    size_t len, i = 0;

    TH_OUT(path, e, "%s.summary.json", j->base);
    TH_REQUIRE(th_exists(path), "job %s has no summary", j->base);
    sum = th_load_json(path);
    TH_REQUIRE(strcmp(jstr(sum, "status"), "ok") == 0, "job %s: status %s (reason %s)", j->base,
               jstr(sum, "status"), jstr(sum, "reason"));
    TH_REQUIRE(jint(sum, "records") == (long long)j->n && jint(sum, "ok") == (long long)j->n,
               "job %s: summary says %lld records, %lld ok; the job has %zu", j->base,
               jint(sum, "records"), jint(sum, "ok"), j->n);
    {
        char *escaped = cairn_name_escape(j->base);
        TH_REQUIRE(strcmp(jstr(sum, "job"), escaped) == 0, "job %s: summary names job \"%s\"",
                   j->base, jstr(sum, "job"));
        free(escaped);
    }
    json_decref(sum);

    TH_OUT(path, e, "%s.results.jsonl", j->base);
    res = th_slurp_nofollow(path, &len);
    TH_REQUIRE(res != NULL, "job %s has no results file", j->base);
    TH_REQUIRE(len > 0 && res[len - 1] == '\n', "job %s: results do not end with a newline",
               j->base);
    for (p = res; p < res + len; p = nl + 1, i++) {
        json_error_t err;
        const struct expect *x;
        json_t *r;

        nl = memchr(p, '\n', (size_t)(res + len - p));
        TH_REQUIRE(i < j->n, "job %s: more than %zu result lines", j->base, j->n);
        x = &j->exp[i];
        r = json_loadb(p, (size_t)(nl - p), 0, &err);
        TH_REQUIRE(r != NULL, "job %s: result line %zu is not JSON: %s", j->base, i + 1, err.text);
        snprintf(id, sizeof(id), "%s#%zu", j->base, i + 1);
        TH_REQUIRE(jint(r, "line") == (long long)(i + 1), "job %s: result %zu has line %lld",
                   j->base, i + 1, jint(r, "line"));
        TH_REQUIRE(strcmp(jstr(r, "id"), id) == 0, "job %s: result %zu has id %s", j->base, i + 1,
                   jstr(r, "id"));
        TH_REQUIRE(strcmp(jstr(r, "status"), "ok") == 0, "job %s: result %zu: status %s", j->base,
                   i + 1, jstr(r, "status"));
        TH_REQUIRE(jint(r, "margin") == x->margin, "job %s line %zu: margin %lld, expected %lld",
                   j->base, i + 1, jint(r, "margin"), x->margin);
        if (x->variant == '2') {
            TH_REQUIRE(strcmp(jstr(r, "variant"), "stone-game-ii") == 0 &&
                           jint(r, "answer") == x->answer,
                       "job %s line %zu: answer %lld, expected %lld", j->base, i + 1,
                       jint(r, "answer"), x->answer);
        } else {
            const char *want = x->answer > 0 ? "Alice" : x->answer < 0 ? "Bob" : "Tie";
            TH_REQUIRE(strcmp(jstr(r, "variant"), "stone-game-iii") == 0 &&
                           strcmp(jstr(r, "answer"), want) == 0,
                       "job %s line %zu: answer %s, expected %s", j->base, i + 1, jstr(r, "answer"),
                       want);
        }
        json_decref(r);
    }
    TH_REQUIRE(i == j->n, "job %s: %zu result lines, expected %zu", j->base, i, j->n);
    free(res);
}

/* No temporary left behind in dir. */
static void check_no_dot_files(const char *dir)
{
    int n = th_count_left_temps(dir, ".");
    char *names = th_list_dir(dir, " ");

    TH_REQUIRE(n == 0, "%d temporary file(s) left in %s: %s", n, dir, names);
    free(names);
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

#define SOAK_JOBS        40
#define SOAK_KILLS       25
#define SOAK_UPFRONT     16
#define SOAK_MAX_RECORDS 20000

START_TEST(soak_random_sigkills_lose_nothing)
{
    struct th_env e;
    static struct job jobs[SOAK_JOBS];
    uint64_t seed = test_seed(), s;
    size_t total = 0;
    int next = 0, k, i, p, code;
    double t0 = th_now_s();
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
            n = (size_t)llround(exp((double)(th_splitmix64(&s) >> 11) / 9007199254740992.0 *
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
            th_sleep_ms(drop_at);
            drop_job(&e, jobs[next].name, jobs[next].data, jobs[next].len);
            next++;
            th_sleep_ms(delay - drop_at);
        } else {
            th_sleep_ms(delay);
        }
        crash(p);
    }
    for (; next < SOAK_JOBS; next++)
        drop_job(&e, jobs[next].name, jobs[next].data, jobs[next].len);
    fprintf(stderr, "soak: %d kills in %.1f s; %d summaries so far\n", SOAK_KILLS, th_now_s() - t0,
            count_suffix(e.out, ".summary.json"));

    /* The last run: everything left, recovered jobs included, then exit. */
    p = start(&e, "--once");
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "the final cairnd --once exited %d", code);

    for (i = 0; i < SOAK_JOBS; i++)
        check_job_ok(&e, &jobs[i]);
    {
        char *a = th_list_dir(e.active, " | "), *f = th_list_dir(e.failed, " | "),
             *in = th_list_dir(e.in, " | ");
        TH_REQUIRE(th_count_entries(e.active, "") == 0,
                   ".cairn/active/ is not empty (jobs or .attempts files): %s", a);
        TH_REQUIRE(th_count_entries(e.failed, "") == 0, ".cairn/failed/ is not empty: %s", f);
        TH_REQUIRE(count_suffix(e.in, ".jsonl") == 0, "jobs left in the input directory: %s", in);
        free(a);
        free(f);
        free(in);
    }
    TH_REQUIRE(count_suffix(e.done, ".jsonl") == SOAK_JOBS, "%d inputs in done/, expected %d",
               count_suffix(e.done, ".jsonl"), SOAK_JOBS);
    TH_REQUIRE(count_suffix(e.out, ".summary.json") == SOAK_JOBS, "%d summaries, expected %d",
               count_suffix(e.out, ".summary.json"), SOAK_JOBS);
    TH_REQUIRE(count_suffix(e.out, ".results.jsonl") == SOAK_JOBS, "%d results files, expected %d",
               count_suffix(e.out, ".results.jsonl"), SOAK_JOBS);
    check_no_dot_files(e.out);
    TH_OUT(path, &e, "metrics.prom");
    TH_REQUIRE(th_exists(path), "no metrics.prom after the final run");
    fprintf(stderr, "soak: done in %.1f s\n", th_now_s() - t0);
    for (i = 0; i < SOAK_JOBS; i++)
        job_free(&jobs[i]);
    cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 1b. SIGKILL among many one-record jobs: the order of the renames   */
/* ------------------------------------------------------------------ */

#define ORDER_JOBS  240
#define ORDER_KILLS 12

/* What a reader may see at any moment, checked after each SIGKILL: a
 * summary only beside its complete results, an input in done/ only with
 * its summary, and every input in exactly one place.  A SIGKILL keeps the
 * page cache, so this observes the order in which a finishing job's
 * renames happen (results, summary, output directory synced, input
 * moved), not what a power cut would keep. */
static void check_order(const struct th_env *e, const struct job *jobs, int n)
{
    char path[PATH_MAX];
    int i;

    for (i = 0; i < n; i++) {
        const struct job *j = &jobs[i];
        int places = 0, in_done;

        TH_OUT(path, e, "%s.summary.json", j->base);
        if (th_exists(path))
            check_job_ok(e, j); /* its results are there, whole */
        th_pathf(path, "%s/%s", e->done, j->name);
        in_done = th_exists(path);
        places += in_done;
        th_pathf(path, "%s/%s", e->active, j->name);
        places += th_exists(path);
        th_pathf(path, "%s/%s", e->in, j->name);
        places += th_exists(path);
        TH_REQUIRE(places == 1, "job %s is in %d of in/, active/ and done/", j->base, places);
        if (in_done) {
            TH_OUT(path, e, "%s.summary.json", j->base);
            TH_REQUIRE(th_exists(path), "job %s is in done/ without its summary", j->base);
        }
    }
}

START_TEST(sigkill_among_small_jobs_keeps_rename_order)
{
    struct th_env e;
    static struct job jobs[ORDER_JOBS];
    uint64_t seed = test_seed(), s = seed;
    int i, k, p, code, before = 0;

    fprintf(stderr, "order: CAIRN_TEST_SEED=%llu\n", (unsigned long long)seed);
    env_init(&e, "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, \"metrics_interval_s\": 0, "
                 "\"max_attempts\": 1000, \"log_level\": \"info\"}\n");
    for (i = 0; i < ORDER_JOBS; i++) {
        char base[32];

        snprintf(base, sizeof(base), "one-%03d", i);
        job_make(&jobs[i], base, 1, seed ^ (uint64_t)(i + 1) * 0x9e3779b9ULL);
    }
    /* A wave of jobs before each start, and the kill at a random moment
     * once the daemon has claimed one of them, so that most kills land
     * while jobs are finishing, however long the start takes. */
    for (k = 0; k < ORDER_KILLS; k++) {
        int now;

        for (i = k * ORDER_JOBS / ORDER_KILLS; i < (k + 1) * ORDER_JOBS / ORDER_KILLS; i++)
            drop_job(&e, jobs[i].name, jobs[i].data, jobs[i].len);
        p = start(&e, NULL);
        TH_EVENTUALLY(th_log_has(p, " claimed") || !th_running(p), DEADLINE_MS,
                      "no job of wave %d was claimed", k + 1);
        th_sleep_ms((long)rng_range(&s, 0, 60));
        crash(p);
        check_order(&e, jobs, (k + 1) * ORDER_JOBS / ORDER_KILLS);
        now = count_suffix(e.out, ".summary.json");
        fprintf(stderr, "order: kill %d: %d summaries (%d new)\n", k + 1, now, now - before);
        before = now;
    }
    p = start(&e, "--once");
    code = th_wait_exit(p, LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "the final cairnd --once exited %d", code);
    check_order(&e, jobs, ORDER_JOBS);
    /* Exactly once: every job done, one summary and one results file each. */
    for (i = 0; i < ORDER_JOBS; i++)
        check_job_ok(&e, &jobs[i]);
    TH_REQUIRE(count_suffix(e.done, ".jsonl") == ORDER_JOBS, "%d inputs in done/, expected %d",
               count_suffix(e.done, ".jsonl"), ORDER_JOBS);
    TH_REQUIRE(count_suffix(e.out, ".summary.json") == ORDER_JOBS, "%d summaries, expected %d",
               count_suffix(e.out, ".summary.json"), ORDER_JOBS);
    TH_REQUIRE(th_count_entries(e.active, "") == 0, ".cairn/active/ is not empty");
    check_no_dot_files(e.out);
    for (i = 0; i < ORDER_JOBS; i++)
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
    struct th_env e;
    uint64_t s = test_seed();
    int p, k, hit = 0;
    char *names;

    env_init(&e, "{\"min_age_ms\": 0, \"metrics_interval_s\": 0.001, \"log_level\": \"debug\"}\n");
    for (k = 0; k < 20 && hit == 0; k++) {
        p = start(&e, NULL);
        th_wait_ready(p);
        th_sleep_ms((long)rng_range(&s, 5, 60));
        crash(p);
        hit = th_count_left_temps(e.out, ".") > 0;
    }
    if (!hit) {
        fprintf(stderr, "metrics: no kill landed inside a metrics write; nothing to check\n");
        cleanup();
        return;
    }
    names = th_list_dir(e.out, " | ");
    fprintf(stderr, "metrics: after %d kill(s) OUTPUT holds: %s\n", k, names);
    free(names);
    /* The next daemon, in its normal rhythm, then a clean stop once it has
     * said it removed what the kill left. */
    env_config(&e, "{\"min_age_ms\": 0, \"metrics_interval_s\": 0.2, \"log_level\": \"debug\"}\n");
    p = start(&e, NULL);
    th_wait_ready(p);
    TH_EVENTUALLY(th_log_has(p, "temporary file(s) left by a crash"), DEADLINE_MS,
                  "the start did not remove the killed run's temporary");
    th_stop(p);
    check_no_dot_files(e.out);
    cleanup();
}
END_TEST

/* ------------------------------------------------------------------ */
/* 2. Poison job: killed mid-run max_attempts times, then quarantined  */
/* ------------------------------------------------------------------ */

/* The run count the daemon keeps for a job in active/ (attempts.h). */
static unsigned attempts_of(const struct th_env *e, const char *name)
{
    return th_attempts_of(e->active, name);
}

START_TEST(poison_job_is_quarantined_after_max_attempts)
{
    struct th_env e;
    struct job small[3], later;
    char path[PATH_MAX], big_sum[PATH_MAX], gate[PATH_MAX];
    size_t len;
    char *big;
    json_t *sum;
    int p, i, kills;

    /* Two threads: the big job, one record of plugin "slow" held at its
     * gate, takes one; the small jobs run on the other.  The gate stays
     * closed, so the big job is in flight at every kill however fast or
     * slow the machine. */
    env_init(&e, "{\"min_age_ms\": 0, \"rescan_interval_s\": 1, \"metrics_interval_s\": 0.5, "
                 "\"max_attempts\": 3, \"threads\": 2, \"log_level\": \"debug\"}\n");
    th_plugins_with_slow(e.root, e.plugins);
    big = th_slow_job(1, 1, &len);
    th_close_slow_gate(e.root, gate);
    for (i = 0; i < 3; i++) {
        char base[32];
        snprintf(base, sizeof(base), "small-%d", i);
        job_make(&small[i], base, (size_t)(10 + 40 * i), (uint64_t)(100 + i));
        drop_job(&e, small[i].name, small[i].data, small[i].len);
    }
    drop_job(&e, "big.jsonl", big, len);
    free(big);
    TH_OUT(big_sum, &e, "big.summary.json");

    for (kills = 0; kills < 3; kills++) {
        p = start(&e, NULL);
        /* Running: its run is counted and its results are being written. */
        TH_EVENTUALLY(attempts_of(&e, "big.jsonl") == (unsigned)kills + 1 &&
                          th_count_entries(e.out, ".cairn.") > 0,
                      DEADLINE_MS, "run %d of the big job did not begin (attempts %u)", kills + 1,
                      attempts_of(&e, "big.jsonl"));
        if (kills == 0) {
            /* The small jobs finish on the first run while the big one
             * waits at the gate: the kills below land on the big job
             * alone. */
            for (i = 0; i < 3; i++) {
                char s_path[PATH_MAX];
                /* Finished means its input is in done/: the summary is
                 * published a moment before, and a kill in between would
                 * leave it to run again. */
                th_pathf(s_path, "%s/%s", e.done, small[i].name);
                TH_EVENTUALLY(th_exists(s_path), DEADLINE_MS, "small job %s did not finish",
                              small[i].base);
            }
        }
        TH_REQUIRE(!th_exists(big_sum), "the big job finished before kill %d, past its gate",
                   kills + 1);
        crash(p);
        th_pathf(path, "%s/big.jsonl", e.active);
        TH_REQUIRE(th_exists(path), "the killed big job is not in .cairn/active/");
    }
    TH_REQUIRE(attempts_of(&e, "big.jsonl") == 3, "the run counter says %u after 3 kills",
               attempts_of(&e, "big.jsonl"));

    /* The next start quarantines it and carries on. */
    p = start(&e, NULL);
    TH_EVENTUALLY(th_exists(big_sum), DEADLINE_MS, "no summary for the poison job");
    sum = th_load_json(big_sum);
    TH_REQUIRE(strcmp(jstr(sum, "status"), "failed") == 0, "poison job: status %s",
               jstr(sum, "status"));
    TH_REQUIRE(strstr(jstr(sum, "reason"), "max_attempts") != NULL,
               "poison job: the reason does not mention max_attempts: %s", jstr(sum, "reason"));
    TH_REQUIRE(strcmp(jstr(sum, "job"), "big") == 0, "poison job: summary names %s",
               jstr(sum, "job"));
    json_decref(sum);
    th_pathf(path, "%s/big.jsonl", e.failed);
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "the poison job is not in .cairn/failed/");
    th_pathf(path, "%s/big.reason.json", e.failed);
    TH_REQUIRE(th_exists(path), "no .cairn/failed/big.reason.json");
    sum = th_load_json(path);
    TH_REQUIRE(strstr(jstr(sum, "reason"), "max_attempts") != NULL,
               "big.reason.json does not mention max_attempts: %s", jstr(sum, "reason"));
    json_decref(sum);
    TH_OUT(path, &e, "big.results.jsonl");
    TH_REQUIRE(!th_exists(path), "a quarantined job has a results file");
    TH_REQUIRE(th_count_left_temps(e.out, ".") == 0,
               "the poison job's temporary results file lingers");
    TH_EVENTUALLY(th_count_entries(e.active, "") == 0, DEADLINE_MS,
                  ".cairn/active/ keeps %d entries (a run counter?)",
                  th_count_entries(e.active, ""));
    for (i = 0; i < 3; i++)
        check_job_ok(&e, &small[i]);

    /* The daemon carries on. */
    job_make(&later, "later", 25, 7);
    drop_job(&e, later.name, later.data, later.len);
    TH_OUT(path, &e, "later.summary.json");
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS,
                  "a job dropped after the quarantine was not processed");
    check_job_ok(&e, &later);
    TH_REQUIRE(th_log_has(p, "max_attempts"), "the log does not say why the job failed");
    th_stop(p);
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
    struct th_env e;
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
    th_pathf(e.out, "%s", g_mnt);
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
    th_wait_ready(p);
    drop_job(&e, big.name, big.data, big.len);
    TH_EVENTUALLY(th_log_has(p, "handed back to the spool") || !th_running(p), DEADLINE_MS,
                  "the job was not handed back when the disk filled up");
    TH_REQUIRE(th_running(p), "cairnd died when the disk filled up");
    /* Nothing partial visible, no temporary left, and the job not lost. */
    TH_OUT(path, &e, "big.results.jsonl");
    TH_REQUIRE(!th_exists(path), "big.results.jsonl is visible though it could not be written");
    TH_OUT(path, &e, "big.summary.json");
    TH_REQUIRE(!th_exists(path), "big.summary.json is visible though results could not be written");
    TH_IN(in_path, &e, "big.jsonl");
    th_pathf(act_path, "%s/big.jsonl", e.active);
    TH_REQUIRE(th_exists(in_path) || th_exists(act_path),
               "the job file is lost after the failed write");
    {
        /* The retry may already have begun a new temporary: only one
         * whose job is back in the input directory must be gone. */
        char *names = th_list_dir(e.out, " | ");
        TH_REQUIRE(!(th_count_entries(e.out, ".big.") > 0 && th_exists(in_path)),
                   "a temporary file lingers after the hand-back: %s", names);
        free(names);
    }
    TH_REQUIRE(kill(th_pid[p], 0) == 0, "cairnd is gone");

    /* Still serving: a small job fits in the space the hand-back freed
     * (the next try of the big one is at least a second away). */
    drop_job(&e, small.name, small.data, small.len);
    TH_OUT(path, &e, "small.summary.json");
    TH_EVENTUALLY(th_exists(path) || !th_running(p), DEADLINE_MS,
                  "a small job was not served while the disk was full");
    check_job_ok(&e, &small);
    /* And answers SIGHUP. */
    kill(th_pid[p], SIGHUP);
    TH_EVENTUALLY(th_log_has(p, "reloaded: ") || !th_running(p), DEADLINE_MS,
                  "cairnd did not answer SIGHUP while the disk was full");
    TH_REQUIRE(th_running(p), "cairnd died on SIGHUP while the disk was full");
    /* A second failure with back-off, still nothing visible. */
    TH_OUT(path, &e, "big.summary.json");
    TH_REQUIRE(!th_exists(path), "big.summary.json appeared on a full disk");

    /* Space returns: the job completes within its back-off. */
    TH_REQUIRE(mount("tmpfs", g_mnt, "tmpfs", MS_REMOUNT | MS_NOSUID | MS_NODEV,
                     "size=16m,mode=0755") == 0,
               "mount -o remount,size=16m: %s", strerror(errno));
    TH_EVENTUALLY(th_exists(path), 20000, "the job did not complete after the disk was grown");
    check_job_ok(&e, &big);
    TH_EVENTUALLY(!th_exists(act_path) && !th_exists(in_path), DEADLINE_MS,
                  "the finished job's input is still in the spool");
    check_no_dot_files(e.out);
    th_stop(p);
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

    TH_REQUIRE(lstat(path, &st) == 0, "%s: %s", path, strerror(errno));
    TH_REQUIRE(S_ISREG(st.st_mode), "%s is not a regular file", path);
    TH_REQUIRE((st.st_mode & 07777) == want, "%s has mode %04o, expected %04o", path,
               (unsigned)(st.st_mode & 07777), (unsigned)want);
}

START_TEST(umask_restricts_output_modes)
{
    struct th_env e;
    struct job j;
    char path[PATH_MAX];
    int p, code;

    env_init(&e, "{\"min_age_ms\": 0, \"umask\": \"0077\", \"log_level\": \"debug\"}\n");
    job_make(&j, "private", 20, 5);
    drop_job(&e, j.name, j.data, j.len);
    p = start(&e, "--once");
    code = th_wait_exit(p, DEADLINE_MS);
    TH_REQUIRE(code == 0, "cairnd --once exited %d", code);
    check_job_ok(&e, &j);
    TH_OUT(path, &e, "private.results.jsonl");
    check_mode(path, 0600);
    TH_OUT(path, &e, "private.summary.json");
    check_mode(path, 0600);
    job_free(&j);
    cleanup();
}
END_TEST

START_TEST(hostile_names_stay_in_output_dir)
{
    struct th_env e;
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
    enum {
        N = sizeof(bases) / sizeof(bases[0])
    };
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
    th_wait_ready(p);
    for (i = 0; i < N; i++) {
        job_make(&jobs[i], bases[i], (size_t)(3 + i), (uint64_t)(500 + i));
        drop_job(&e, jobs[i].name, jobs[i].data, jobs[i].len);
    }
    for (i = 0; i < N; i++) {
        TH_OUT(path, &e, "%s.summary.json", jobs[i].base);
        TH_EVENTUALLY(th_exists(path) || !th_running(p), DEADLINE_MS, "no summary for job \"%s\"",
                      jobs[i].base);
        check_job_ok(&e, &jobs[i]);
        check_mode(path, 0600);
        TH_OUT(path, &e, "%s.results.jsonl", jobs[i].base);
        check_mode(path, 0600);
        th_pathf(path, "%s/%s", e.done, jobs[i].name);
        TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "job \"%s\" did not reach done/", jobs[i].base);
    }
    th_stop(p);
    /* Outputs only in OUTPUT: 2 per job and the metrics file. */
    expected_out = 2 * N + 1;
    names = th_list_dir(e.out, " | ");
    TH_REQUIRE(th_count_entries(e.out, "") == expected_out,
               "output directory holds %d entries, "
               "expected %d: %s",
               th_count_entries(e.out, ""), expected_out, names);
    free(names);
    /* Nothing appeared beside in/ and out/ (the config and the log). */
    names = th_list_dir(e.root, " | ");
    TH_REQUIRE(th_count_entries(e.root, "") == 4, "unexpected files beside in/ and out/: %s",
               names);
    free(names);
    names = th_list_dir(e.in, " | ");
    TH_REQUIRE(th_count_entries(e.in, "") == 1, "unexpected files in the input directory: %s",
               names);
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
    struct th_env e;
    struct job j;
    char path[PATH_MAX], victim[PATH_MAX], *s;
    struct stat st;
    int p, code;

    env_init(&e, "{\"min_age_ms\": 0, \"log_level\": \"debug\"}\n");
    th_pathf(victim, "%s/victim", e.root);
    th_write_text(victim, "precious\n");
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    TH_OUT(path, &e, "trap.results.jsonl");
    ck_assert_int_eq(symlink(victim, path), 0);
    TH_OUT(path, &e, "trap.summary.json");
    ck_assert_int_eq(symlink(victim, path), 0);
    job_make(&j, "trap", 4, 11);
    drop_job(&e, j.name, j.data, j.len);
    p = start(&e, "--once");
    code = th_wait_exit(p, DEADLINE_MS);
    TH_REQUIRE(code == 0, "cairnd --once exited %d", code);
    s = th_slurp_nofollow(victim, NULL);
    TH_REQUIRE(s != NULL && strcmp(s, "precious\n") == 0, "the symlink's target was written");
    free(s);
    TH_OUT(path, &e, "trap.results.jsonl");
    TH_REQUIRE(lstat(path, &st) == 0 && S_ISREG(st.st_mode), "results are not a regular file");
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
    tcase_add_test(tc, sigkill_among_small_jobs_keeps_rename_order);
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
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_cairnd == NULL || g_plugins == NULL || access(g_cairnd, X_OK) != 0) {
        fprintf(stderr, "test_reliability: CAIRN_TEST_CAIRND and CAIRN_TEST_PLUGIN_DIR "
                        "must be set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    /* Polled every 2 ms; on a failure, the end of the last 3 logs. */
    th_settings.poll_ms = 2;
    th_settings.dump_last = 3;
    th_settings.dump_bytes = 6144;
    if (th_make_top("reliability") != 0)
        return EXIT_FAILURE;
    if (snprintf(g_mnt, sizeof(g_mnt), "%s/fulldisk-out", th_top) >= (int)sizeof(g_mnt)) {
        fprintf(stderr, "test_reliability: %s: path too long\n", th_top);
        return EXIT_FAILURE;
    }
    atexit(cleanup_top);
    failed =
        th_run_suite(reliability_suite(), CK_ENV, 1); /* CK_VERBOSITY=verbose lists each test */
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
