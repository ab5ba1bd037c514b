/*
 * test_hostile.c - the hostile input corpus, end to end
 * through the real cairnd.
 *
 * One daemon per TCase, started by an unchecked fixture over its own
 * temporary spool; each test drops one hostile job (by rename, or created
 * in place where the case needs it) and asserts exactly what cairn does
 * with it: the error code of every line, the line numbers, the summary.
 * After every case the daemon must still be alive and a normal job dropped
 * afterwards must get its summary, .cairn/active/ must empty and no
 * temporary file may be left in the output directory.
 *
 * Conditions are polled with deadlines, never slept for.
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
static const char *g_plugins;

#define DEADLINE_MS 15000 /* for anything that should happen "soon" */
#define PROMPT_MS   5000  /* "within a few seconds" */

/* The daemon of the current TCase and its spool. */
struct spool {
    char root[PATH_MAX];
    char in[PATH_MAX];
    char out[PATH_MAX];
    char cfg[PATH_MAX];
    char log[PATH_MAX];
    char active[PATH_MAX];
    char done[PATH_MAX];
    char failed[PATH_MAX];
    pid_t pid;
};

static struct spool g_sp;
static unsigned g_probes;

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

/* Prints the end of the daemon's log, for a failure. */
static void dump_log(void)
{
    th_dump_tail(g_sp.log, 6144);
}

/* Growable byte string for building job files. */
struct bytes {
    char *p;
    size_t len, cap;
};

static void b_add(struct bytes *b, const void *data, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        while (cap < b->len + n + 1)
            cap *= 2;
        b->p = realloc(b->p, cap);
        ck_assert_ptr_nonnull(b->p);
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
    b->p[b->len] = '\0';
}

static void b_puts(struct bytes *b, const char *s)
{
    b_add(b, s, strlen(s));
}

static void b_rep(struct bytes *b, const char *s, size_t times)
{
    size_t i;

    for (i = 0; i < times; i++)
        b_puts(b, s);
}

static void b_fill(struct bytes *b, char c, size_t n)
{
    char chunk[4096];

    memset(chunk, c, sizeof(chunk));
    while (n > 0) {
        size_t k = n < sizeof(chunk) ? n : sizeof(chunk);
        b_add(b, chunk, k);
        n -= k;
    }
}

/* ------------------------------------------------------------------ */
/* The daemon                                                          */
/* ------------------------------------------------------------------ */

/* Alive and not a zombie: kill(pid, 0) alone succeeds on a zombie, and a
 * crashed daemon stays one until the runner reaps it. */
static int daemon_alive(void)
{
    char path[64], buf[512], *rp;
    ssize_t n;
    int fd;

    if (g_sp.pid <= 0 || kill(g_sp.pid, 0) != 0)
        return 0;
    snprintf(path, sizeof(path), "/proc/%d/stat", (int)g_sp.pid);
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    n = read(fd, buf, sizeof(buf) - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    rp = strrchr(buf, ')');
    return rp != NULL && rp[1] == ' ' && rp[2] != 'Z' && rp[2] != 'X';
}

/* A field of /proc/PID/status in kB, or -1. */
static long proc_status_kb(const char *field)
{
    char path[64], line[256];
    size_t flen = strlen(field);
    long kb = -1;
    FILE *f;

    snprintf(path, sizeof(path), "/proc/%d/status", (int)g_sp.pid);
    f = fopen(path, "r");
    if (f == NULL)
        return -1;
    while (fgets(line, sizeof(line), f) != NULL)
        if (strncmp(line, field, flen) == 0 && line[flen] == ':')
            kb = strtol(line + flen + 1, NULL, 10);
    fclose(f);
    return kb;
}

static int log_has(const char *text)
{
    return th_file_contains(g_sp.log, text);
}

static void start_daemon(const char *config)
{
    char *argv[] = { (char *)g_cairnd, "-c",     g_sp.cfg,    "--input",         g_sp.in,
                     "--output",       g_sp.out, "--plugins", (char *)g_plugins, NULL };
    int ok;

    memset(&g_sp, 0, sizeof(g_sp));
    th_pathf(g_sp.root, "%s/spool-XXXXXX", th_top);
    ck_assert_msg(mkdtemp(g_sp.root) != NULL, "mkdtemp: %s", strerror(errno));
    th_pathf(g_sp.in, "%s/in", g_sp.root);
    th_pathf(g_sp.out, "%s/out", g_sp.root);
    th_pathf(g_sp.cfg, "%s/cairn.json", g_sp.root);
    th_pathf(g_sp.log, "%s/cairnd.log", g_sp.root);
    th_pathf(g_sp.active, "%s/.cairn/active", g_sp.in);
    th_pathf(g_sp.done, "%s/.cairn/done", g_sp.in);
    th_pathf(g_sp.failed, "%s/.cairn/failed", g_sp.in);
    ck_assert_int_eq(mkdir(g_sp.in, 0755), 0);
    th_write_file(g_sp.cfg, config, strlen(config), 0644);

    g_sp.pid = th_spawn_logged(argv, g_sp.log);
    TH_POLL(ok, log_has("watching ") || !daemon_alive(), DEADLINE_MS);
    TH_REQUIRE(ok && daemon_alive(), "cairnd did not start watching %s", g_sp.in);
}

/* SIGTERM (SIGKILL if it lingers), reap, remove the spool. */
static void stop_daemon(void)
{
    if (g_sp.pid > 0) {
        int st, ok;

        kill(g_sp.pid, SIGTERM);
        TH_POLL(ok, waitpid(g_sp.pid, &st, WNOHANG) == g_sp.pid, DEADLINE_MS);
        if (!ok) {
            kill(g_sp.pid, SIGKILL);
            waitpid(g_sp.pid, &st, 0);
        }
        g_sp.pid = 0;
    }
    if (g_sp.root[0] != '\0')
        th_rm_tree(g_sp.root);
    g_sp.root[0] = '\0';
}

/* Records and lines reach the parser up to 1 MiB here, so that 100 000
 * nested brackets are the parser's problem, not the line limit's. */
static void setup_records(void)
{
    start_daemon("{\"min_age_ms\":0,\"rescan_interval_s\":1,\"max_line_bytes\":1048576,"
                 "\"metrics_interval_s\":0,\"threads\":2}\n");
}

/* max_line_bytes 65536, for the long-line case. */
static void setup_small_lines(void)
{
    start_daemon("{\"min_age_ms\":0,\"rescan_interval_s\":1,\"max_line_bytes\":65536,"
                 "\"metrics_interval_s\":0,\"threads\":2}\n");
}

/* ------------------------------------------------------------------ */
/* Jobs and their outputs                                              */
/* ------------------------------------------------------------------ */

/* The safe hand-off: a dot-file in the spool (short, whatever the job's
 * name), renamed to its job name. */
static void drop(const char *name, const char *data, size_t len)
{
    th_drop_job(g_sp.in, name, data, len);
}

static void out_path(char *buf, const char *base, const char *suffix)
{
    th_pathf(buf, "%s/%s%s", g_sp.out, base, suffix);
}

/* Waits for OUT/BASE.summary.json, failing fast if the daemon died. */
static json_t *wait_summary(const char *base, long ms)
{
    char path[PATH_MAX];
    json_error_t err;
    json_t *s;
    int ok;

    out_path(path, base, ".summary.json");
    TH_POLL(ok, th_exists(path) || !daemon_alive(), ms);
    TH_REQUIRE(daemon_alive(), "cairnd died (waiting for the summary of %s)", base);
    TH_REQUIRE(ok, "%s did not appear within %ld ms", path, ms);
    s = json_load_file(path, JSON_REJECT_DUPLICATES, &err);
    TH_REQUIRE(s != NULL && json_is_object(s), "%s is not a JSON object: %s", path, err.text);
    return s;
}

/* OUT/BASE.results.jsonl as an array of its lines; each must be a JSON
 * object (strict UTF-8: hostile bytes must not leak into the output). */
static json_t *load_results(const char *base)
{
    char path[PATH_MAX];

    out_path(path, base, ".results.jsonl");
    return th_load_results(path);
}

/* What one result line must say: its input line and its error code (NULL:
 * status ok). */
struct want {
    unsigned line;
    const char *code;
};

/* Drops NAME (data, len), waits for its summary and checks it and the
 * results against want[0..n): status ok, records n, the ok and per-code
 * counts, bytes; one result line per want, in order, with its line number
 * and code.  Returns the results (caller json_decref()s). */
static json_t *run_job(const char *name, const char *data, size_t len, const struct want *want,
                       size_t n)
{
    char base[NAME_MAX + 1];
    json_t *sum, *res, *errors;
    long long want_ok = 0;
    size_t i, c;

    snprintf(base, sizeof(base), "%.*s", (int)(strlen(name) - 6), name);
    drop(name, data, len);
    sum = wait_summary(base, DEADLINE_MS);
    {
        /* Names are carried into JSON escaped (backslashes doubled, bytes
         * that are not UTF-8 as \xNN): distinct names stay distinct. */
        char *escaped = cairn_name_escape(base);
        TH_REQUIRE(strcmp(th_str_field(sum, "job"), escaped) == 0,
                   "summary job \"%s\", want \"%s\"", th_str_field(sum, "job"), escaped);
        free(escaped);
    }
    TH_REQUIRE(strcmp(th_str_field(sum, "status"), "ok") == 0, "job %s: status %s (reason %s)",
               base, th_str_field(sum, "status"),
               json_string_value(json_object_get(sum, "reason")) != NULL
                   ? json_string_value(json_object_get(sum, "reason"))
                   : "-");
    TH_REQUIRE(th_int_field(sum, "records") == (long long)n, "job %s: records %lld, want %zu", base,
               th_int_field(sum, "records"), n);
    TH_REQUIRE(th_int_field(sum, "bytes") == (long long)len, "job %s: bytes %lld, want %zu", base,
               th_int_field(sum, "bytes"), len);
    errors = json_object_get(sum, "errors");
    TH_REQUIRE(json_is_object(errors), "job %s: errors is not an object", base);
    for (c = 0; c < TH_N_CODES; c++) {
        long long want_c = 0;
        json_t *v = json_object_get(errors, th_codes[c]);

        for (i = 0; i < n; i++)
            want_c += want[i].code != NULL && strcmp(want[i].code, th_codes[c]) == 0;
        TH_REQUIRE((v == NULL && want_c == 0) ||
                       (json_is_integer(v) && json_integer_value(v) == want_c),
                   "job %s: errors.%s is %lld, want %lld", base, th_codes[c],
                   v ? (long long)json_integer_value(v) : -1LL, want_c);
    }
    for (i = 0; i < n; i++)
        want_ok += want[i].code == NULL;
    TH_REQUIRE(th_int_field(sum, "ok") == want_ok, "job %s: ok %lld, want %lld", base,
               th_int_field(sum, "ok"), want_ok);
    json_decref(sum);

    res = load_results(base);
    TH_REQUIRE(json_array_size(res) == n, "job %s: %zu result lines, want %zu", base,
               json_array_size(res), n);
    for (i = 0; i < n; i++) {
        json_t *r = json_array_get(res, i);
        const char *status = th_str_field(r, "status");
        char *text = json_dumps(r, JSON_COMPACT);

        TH_REQUIRE(th_int_field(r, "line") == (long long)want[i].line,
                   "job %s: result %zu answers line %lld, want %u: %s", base, i,
                   th_int_field(r, "line"), want[i].line, text);
        if (want[i].code == NULL) {
            TH_REQUIRE(strcmp(status, "ok") == 0, "job %s line %u: want ok, got %s", base,
                       want[i].line, text);
        } else {
            json_t *e = json_object_get(r, "error");
            const char *code = json_string_value(json_object_get(e, "code"));
            const char *msg = json_string_value(json_object_get(e, "message"));

            TH_REQUIRE(strcmp(status, "error") == 0 && code != NULL && msg != NULL && *msg,
                       "job %s line %u: want an error with a message, got %s", base, want[i].line,
                       text);
            TH_REQUIRE(strcmp(code, want[i].code) == 0, "job %s line %u: code %s, want %s: %s",
                       base, want[i].line, code, want[i].code, text);
        }
        free(text);
    }
    return res;
}

/* The message of result i, or "". */
static const char *message(json_t *res, size_t i)
{
    const char *m = json_string_value(
        json_object_get(json_object_get(json_array_get(res, i), "error"), "message"));
    return m ? m : "";
}

static void require_message(json_t *res, size_t i, const char *needle)
{
    TH_REQUIRE(strstr(message(res, i), needle) != NULL, "result %zu: message \"%s\" lacks \"%s\"",
               i, message(res, i), needle);
}

#define GOOD_III "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}"
#define GOOD_877 "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}"

/* After every case: the daemon lives, answers a normal job promptly,
 * .cairn/active/ empties and no temporary file is left in out/. */
static void still_serving(void)
{
    const char *job =
        "{\"id\":\"probe\",\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n";
    char name[96], base[64];
    json_t *sum, *res, *r;
    int ok;

    TH_REQUIRE(daemon_alive(), "cairnd died");
    snprintf(base, sizeof(base), "probe-%u-%d", ++g_probes, (int)getpid());
    snprintf(name, sizeof(name), "%s.jsonl", base);
    drop(name, job, strlen(job));
    sum = wait_summary(base, PROMPT_MS);
    TH_REQUIRE(strcmp(th_str_field(sum, "status"), "ok") == 0 &&
                   th_int_field(sum, "records") == 1 && th_int_field(sum, "ok") == 1,
               "probe job %s was not answered normally", base);
    json_decref(sum);
    res = load_results(base);
    r = json_array_get(res, 0);
    TH_REQUIRE(json_array_size(res) == 1 && strcmp(th_str_field(r, "answer"), "Bob") == 0 &&
                   strcmp(th_str_field(r, "id"), "probe") == 0,
               "probe job %s: wrong answer", base);
    json_decref(res);
    TH_REQUIRE(daemon_alive(), "cairnd died");
    TH_POLL(ok, th_count_entries(g_sp.active, "") == 0, DEADLINE_MS);
    TH_REQUIRE(ok, ".cairn/active/ did not empty");
    TH_REQUIRE(th_count_left_temps(g_sp.out, ".") == 0, "temporary files remain in %s", g_sp.out);
}

/* ------------------------------------------------------------------ */
/* Records                                                             */
/* ------------------------------------------------------------------ */

static uint64_t g_rng;

/* The 1-based numbers of the lines cairn must answer, by cairnd(8), RECORDS:
 * split at '\n' (a last line without one counts), a BOM dropped from the
 * first line, one '\r' dropped from each end, blank = only ' ' and '\t'. */
static size_t answered_lines(const char *p, size_t len, unsigned *nos, size_t cap)
{
    size_t n = 0, start = 0, i;
    unsigned no = 0;

    for (i = 0; i <= len; i++) {
        size_t s, e, k;
        int blank = 1;

        if (i < len && p[i] != '\n')
            continue;
        if (i == len && start == len)
            break;
        no++;
        s = start;
        e = i;
        start = i + 1;
        if (no == 1 && e - s >= 3 && memcmp(p + s, "\xEF\xBB\xBF", 3) == 0)
            s += 3;
        if (e > s && p[e - 1] == '\r')
            e--;
        for (k = s; k < e; k++)
            if (p[k] != ' ' && p[k] != '\t')
                blank = 0;
        if (!blank) {
            ck_assert_uint_lt(n, cap);
            nos[n++] = no;
        }
    }
    return n;
}

START_TEST(random_binary)
{
    enum {
        SIZE = 64 * 1024
    };
    static unsigned nos[SIZE];
    static struct want want[SIZE];
    char *data = malloc(SIZE);
    size_t n, i, nuls = 0, newlines = 0;
    json_t *res;

    ck_assert_ptr_nonnull(data);
    g_rng = 0xC0FFEE5EEDull;
    for (i = 0; i < SIZE; i += 8) {
        uint64_t x = th_splitmix64(&g_rng);
        memcpy(data + i, &x, 8);
    }
    for (i = 0; i < SIZE; i++) {
        nuls += data[i] == '\0';
        newlines += data[i] == '\n';
    }
    ck_assert_msg(nuls > 0 && newlines > 10, "the seed gives too plain a corpus");
    n = answered_lines(data, SIZE, nos, SIZE);
    ck_assert_uint_gt(n, 10);
    for (i = 0; i < n; i++)
        want[i] = (struct want){ nos[i], "bad_json" };
    res = run_job("random.jsonl", data, SIZE, want, n);
    for (i = 0; i < n; i++)
        require_message(res, i, "column ");
    json_decref(res);
    free(data);
    still_serving();
}
END_TEST

START_TEST(invalid_utf8)
{
    static const char job[] =
        /* 1: a lone 0xFF in a string of the input */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":\"a\xFF\"}\n"
        /* 2: an overlong '/' in the variant name */
        "{\"variant\":\"stone-game\xC0\xAF\",\"input\":{\"piles\":[5,3,4,5]}}\n"
        /* 3: a truncated 3-byte sequence before the closing quote */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":\"\xE2\x82\"}\n"
        /* 4: a UTF-16 surrogate encoded in UTF-8 */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":\"\xED\xA0\x80\"}\n"
        /* 5: a code point past U+10FFFF, in a key */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"\xF4\x90\x80\x80\":1}\n"
        /* 6: a stray continuation byte */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":\"\x80\"}\n"
        /* 7: valid non-ASCII UTF-8 is fine, and echoed */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":"
        "\"\xC3\xA9\xE2\x82\xAC\"}\n";
    static const struct want want[] = { { 1, "bad_json" }, { 2, "bad_json" }, { 3, "bad_json" },
                                        { 4, "bad_json" }, { 5, "bad_json" }, { 6, "bad_json" },
                                        { 7, NULL } };
    json_t *res = run_job("utf8.jsonl", job, sizeof(job) - 1, want, 7);
    size_t i;

    for (i = 0; i < 6; i++)
        require_message(res, i, "column ");
    TH_REQUIRE(strcmp(th_str_field(json_array_get(res, 6), "id"), "\xC3\xA9\xE2\x82\xAC") == 0,
               "a valid UTF-8 id was not echoed as is");
    json_decref(res);
    still_serving();
}
END_TEST

START_TEST(nested_brackets)
{
    static const struct want want[] = { { 1, "bad_json" }, { 2, "bad_json" }, { 3, NULL } };
    struct bytes b = { 0 };
    json_t *res;

    b_fill(&b, '[', 100000); /* 1: 100 000 unclosed '[' */
    b_puts(&b, "\n");
    b_fill(&b, '[', 100000); /* 2: 100 000 balanced, 2 KiB deep... */
    b_fill(&b, ']', 100000);
    b_puts(&b, "\n" GOOD_III "\n");
    res = run_job("brackets.jsonl", b.p, b.len, want, 3);
    require_message(res, 0, "depth");
    require_message(res, 1, "depth");
    json_decref(res);
    free(b.p);
    still_serving();
}
END_TEST

START_TEST(huge_integers)
{
    static const char job[] =
        /* 1: 2^64 in piles */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[18446744073709551616,3]}}\n"
        /* 2: 10^20 in stoneValue */
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,100000000000000000000]}}\n"
        /* 3: -2^63-1 in piles */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[-9223372036854775809,3]}}\n"
        /* 4: 2^63 as id */
        "{\"id\":9223372036854775808,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n"
        /* 5: a 400-digit id */
        "{\"id\":1"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "0000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "0000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "0000000000"
        "000000000000000000000000000000000000000000000000000000000000000000000000000000000000000000"
        "0000000000"
        ",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n"
        /* 6: 2^64 as expected */
        "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},\"expected\":"
        "18446744073709551616}\n"
        /* 7: INT64_MAX fits: echoed exactly */
        "{\"id\":9223372036854775807,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n"
        /* 8: INT64_MIN fits: echoed exactly */
        "{\"id\":-9223372036854775808,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n"
        /* 9: INT64_MAX in piles is JSON, but breaks the official limit */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[9223372036854775807,3]}}\n"
        /* 10: a real too big for a double */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":1e400}\n";
    static const struct want want[] = { { 1, "bad_json" }, { 2, "bad_json" }, { 3, "bad_json" },
                                        { 4, "bad_json" }, { 5, "bad_json" }, { 6, "bad_json" },
                                        { 7, NULL },       { 8, NULL },       { 9, "constraint" },
                                        { 10, "bad_json" } };
    json_t *res = run_job("bigint.jsonl", job, sizeof(job) - 1, want, 10);
    size_t i;

    for (i = 0; i < 6; i++)
        require_message(res, i, "integer");
    TH_REQUIRE(json_integer_value(json_object_get(json_array_get(res, 6), "id")) == INT64_MAX,
               "INT64_MAX id not echoed exactly");
    TH_REQUIRE(json_integer_value(json_object_get(json_array_get(res, 7), "id")) == INT64_MIN,
               "INT64_MIN id not echoed exactly");
    json_decref(res);
    still_serving();
}
END_TEST

START_TEST(nan_infinity)
{
    static const char job[] =
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[NaN,3]}}\n"
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[Infinity,3]}}\n"
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[-Infinity,3]}}\n"
        "{\"id\":NaN,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n"
        "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},\"expected\":Infinity}\n"
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[nan,3]}}\n"
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[inf,3]}}\n" GOOD_877 "\n";
    static const struct want want[] = { { 1, "bad_json" }, { 2, "bad_json" }, { 3, "bad_json" },
                                        { 4, "bad_json" }, { 5, "bad_json" }, { 6, "bad_json" },
                                        { 7, "bad_json" }, { 8, NULL } };
    json_t *res = run_job("nan.jsonl", job, sizeof(job) - 1, want, 8);

    require_message(res, 0, "NaN");
    require_message(res, 1, "Infinity");
    json_decref(res);
    still_serving();
}
END_TEST

START_TEST(nul_byte)
{
    static const char job[] =
        /* 1: a NUL between tokens */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,\0 3,4,5]}}\n"
        /* 2: the next line is answered */
        GOOD_877 "\n"
        /* 3: a NUL inside a string */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":\"a\0b\"}\n"
        /* 4: a line that is just a NUL */
        "\0\n"
        /* 5: a NUL after a complete record */
        GOOD_877 "\0\n"
        /* 6: answered */
        GOOD_III "\n";
    static const struct want want[] = { { 1, "bad_json" }, { 2, NULL },       { 3, "bad_json" },
                                        { 4, "bad_json" }, { 5, "bad_json" }, { 6, NULL } };
    json_t *res = run_job("nul.jsonl", job, sizeof(job) - 1, want, 6);

    json_decref(res);
    still_serving();
}
END_TEST

START_TEST(utf8_bom)
{
    static const char job[] = "\xEF\xBB\xBF{\"id\":\"first\",\"variant\":\"stone-game\","
                              "\"input\":{\"piles\":[5,3,4,5]},\"expected\":true}\n"
                              /* a BOM anywhere else is not an editor's artefact */
                              "\xEF\xBB\xBF" GOOD_877 "\n" GOOD_III "\n";
    static const struct want want[] = { { 1, NULL }, { 2, "bad_json" }, { 3, NULL } };
    json_t *res = run_job("bom.jsonl", job, sizeof(job) - 1, want, 3);
    json_t *r = json_array_get(res, 0);

    TH_REQUIRE(strcmp(th_str_field(r, "id"), "first") == 0 &&
                   json_is_true(json_object_get(r, "match")),
               "the first record after the BOM was not answered normally");

    json_decref(res);
    /* A file that is only a BOM and a newline is one blank line. */
    res = run_job("bom-only.jsonl", "\xEF\xBB\xBF\n", 4, NULL, 0);
    json_decref(res);
    still_serving();
}
END_TEST

START_TEST(crlf)
{
    static const char job[] = GOOD_877 "\r\n"
                                       "\r\n" /* blank */
        GOOD_III "\r\n"
                                       " \t\r\n" /* blank */
                                       "{\"id\":\"crlf\",\"variant\":\"stone-game-ii\",\"input\":"
                                       "{\"piles\":[2,7,9,4,4]},\"expected\":10}\r\n";
    static const struct want want[] = { { 1, NULL }, { 3, NULL }, { 5, NULL } };
    json_t *res = run_job("crlf.jsonl", job, sizeof(job) - 1, want, 3);
    json_t *r = json_array_get(res, 2);

    TH_REQUIRE(strcmp(th_str_field(r, "id"), "crlf") == 0 &&
                   json_is_true(json_object_get(r, "match")),
               "the CRLF record was not answered correctly");
    json_decref(res);
    still_serving();
}
END_TEST

START_TEST(no_final_newline)
{
    static const char job[] = GOOD_877 "\n" GOOD_III "\n"
                                       "{\"id\":\"last\",\"variant\":\"stone-game-ii\",\"input\":"
                                       "{\"piles\":[2,7,9,4,4]},\"expected\":10}";
    static const char job_cr[] = GOOD_877 "\r\n{\"id\":\"last\",\"variant\":\"stone-game\","
                                          "\"input\":{\"piles\":[5,3,4,5]}}\r";
    static const struct want want[] = { { 1, NULL }, { 2, NULL }, { 3, NULL } };
    json_t *res = run_job("nofinal.jsonl", job, sizeof(job) - 1, want, 3);

    TH_REQUIRE(strcmp(th_str_field(json_array_get(res, 2), "id"), "last") == 0,
               "the last line was not answered");
    json_decref(res);
    /* Ending in a lone '\r': still a CRLF line without its '\n'. */
    res = run_job("nofinal-cr.jsonl", job_cr, sizeof(job_cr) - 1, want, 2);
    TH_REQUIRE(strcmp(th_str_field(json_array_get(res, 1), "id"), "last") == 0,
               "the last line was not answered");
    json_decref(res);
    still_serving();
}
END_TEST

START_TEST(empty_file)
{
    char path[PATH_MAX];
    struct stat st;
    json_t *res = run_job("empty.jsonl", "", 0, NULL, 0);

    json_decref(res);
    out_path(path, "empty", ".results.jsonl");
    TH_REQUIRE(stat(path, &st) == 0 && S_ISREG(st.st_mode) && st.st_size == 0,
               "%s is not an empty file", path);
    still_serving();
}
END_TEST

START_TEST(blank_lines)
{
    static const char job[] = "\n\n   \n\t\t\n\r\n \t \r\n\n\n";
    char path[PATH_MAX];
    struct stat st;
    json_t *res = run_job("blank.jsonl", job, sizeof(job) - 1, NULL, 0);

    json_decref(res);
    out_path(path, "blank", ".results.jsonl");
    TH_REQUIRE(stat(path, &st) == 0 && st.st_size == 0, "%s is not empty", path);
    /* Blank lines still count in the numbering of the lines after them. */
    {
        static const char job2[] = "\n \n\r\n" GOOD_877 "\n\n";
        static const struct want want[] = { { 4, NULL } };
        json_decref(run_job("blank-then-one.jsonl", job2, sizeof(job2) - 1, want, 1));
    }
    still_serving();
}
END_TEST

/* {"a":{"a":...1...}} depth levels deep. */
static void b_nest(struct bytes *b, size_t depth)
{
    b_rep(b, "{\"a\":", depth);
    b_puts(b, "1");
    b_fill(b, '}', depth);
}

START_TEST(deep_objects)
{
    /* Inside input, as id, expected and options: refused by what they are,
     * without a crash; past the parser's 2048 levels: bad_json. */
    static const struct want want[] = { { 1, "invalid_input" }, { 2, "bad_record" },
                                        { 3, "bad_record" },    { 4, "bad_record" },
                                        { 5, "invalid_input" }, { 6, NULL },
                                        { 7, "bad_json" },      { 8, NULL } };
    struct bytes b = { 0 };
    json_t *res;

    b_puts(&b, "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7],\"deep\":");
    b_nest(&b, 1000);
    b_puts(&b, "}}\n{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},\"id\":");
    b_nest(&b, 1000);
    b_puts(&b,
           "}\n{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},\"expected\":");
    b_nest(&b, 1000);
    b_puts(&b,
           "}\n{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":");
    b_nest(&b, 1000);
    /* piles holding 1000-deep arrays */
    b_puts(&b, "}\n{\"variant\":\"stone-game\",\"input\":{\"piles\":[");
    b_fill(&b, '[', 1000);
    b_fill(&b, ']', 1000);
    b_puts(&b, ",3]}}\n");
    /* an unknown top-level field is ignored, however deep */
    b_puts(&b, "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},\"extra\":");
    b_nest(&b, 1000);
    b_puts(&b, "}\n{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7],\"deep\":");
    b_nest(&b, 5000);
    b_puts(&b, "}}\n" GOOD_III "\n");
    res = run_job("deep.jsonl", b.p, b.len, want, 8);
    require_message(res, 0, "input.deep");
    require_message(res, 1, "id");
    require_message(res, 2, "expected");
    require_message(res, 3, "options");
    require_message(res, 4, "input.piles[0]");
    require_message(res, 6, "depth");
    json_decref(res);
    free(b.p);
    still_serving();
}
END_TEST

START_TEST(wrong_types)
{
    static const struct {
        const char *line, *code, *in_message;
    } cases[] = {
        /* the record itself */
        { "[1,2,3]", "bad_record", "JSON object" },
        { "\"stone-game\"", "bad_record", "JSON object" },
        { "42", "bad_record", "JSON object" },
        { "null", "bad_record", "JSON object" },
        { "true", "bad_record", "JSON object" },
        /* variant */
        { "{\"variant\":1406,\"input\":{\"stoneValue\":[1,2,3,7]}}", "bad_record", "variant" },
        { "{\"variant\":null,\"input\":{\"stoneValue\":[1,2,3,7]}}", "bad_record", "variant" },
        { "{\"variant\":[\"stone-game-iii\"],\"input\":{\"stoneValue\":[1,2,3,7]}}", "bad_record",
          "variant" },
        { "{\"input\":{\"stoneValue\":[1,2,3,7]}}", "bad_record", "variant" },
        { "{\"variant\":\"no-such-game\",\"input\":{\"stoneValue\":[1,2,3,7]}}", "unknown_variant",
          "no-such-game" },
        /* input */
        { "{\"variant\":\"stone-game-iii\",\"input\":[1,2,3,7]}", "bad_record", "input" },
        { "{\"variant\":\"stone-game-iii\",\"input\":\"[1,2,3,7]\"}", "bad_record", "input" },
        { "{\"variant\":\"stone-game-iii\",\"input\":null}", "bad_record", "input" },
        { "{\"variant\":\"stone-game-iii\"}", "bad_record", "input" },
        /* the variant's fields */
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":\"5,3,4,5\"}}", "invalid_input",
          "input.piles" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":{\"0\":5}}}", "invalid_input",
          "input.piles" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":null}}", "invalid_input",
          "input.piles" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,\"3\",4,5]}}", "invalid_input",
          "input.piles[1]" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4.5,5]}}", "invalid_input",
          "input.piles[2]" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,true]}}", "invalid_input",
          "input.piles[3]" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[null,3,4,5]}}", "invalid_input",
          "input.piles[0]" },
        { "{\"variant\":\"stone-game\",\"input\":{}}", "invalid_input", "input.piles" },
        { "{\"variant\":\"stone-game\",\"input\":{\"stoneValue\":[5,3,4,5]}}", "invalid_input",
          "input.stoneValue" },
        /* options */
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":1}",
          "bad_record", "options" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":[]}",
          "bad_record", "options" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"moves\":"
          "\"yes\"}}",
          "bad_record", "options.moves" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"limits\":1}}",
          "bad_record", "options.limits" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"speed\":true}"
          "}",
          "bad_record", "options.speed" },
        /* id */
        { "{\"id\":{\"a\":1},\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}",
          "bad_record", "id" },
        { "{\"id\":[1],\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}", "bad_record",
          "id" },
        /* expected, of the wrong type for the variant's answer */
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":\"Alice\"}",
          "bad_record", "expected" },
        { "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":1}",
          "bad_record", "expected" },
        { "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},\"expected\":\"10\"}",
          "bad_record", "expected" },
        { "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},\"expected\":10.0}",
          "bad_record", "expected" },
        { "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},\"expected\":true}",
          "bad_record", "expected" },
        { "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},\"expected\":"
          "\"bob\"}",
          "bad_record", "expected" },
        { "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},\"expected\":null}",
          "bad_record", "expected" },
        /* scalar ids of every kind are fine */
        { "{\"id\":null,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}", NULL, NULL },
        { "{\"id\":false,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}", NULL, NULL },
        { "{\"id\":1.5,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}", NULL, NULL },
        /* duplicate keys: refused rather than guessed */
        { "{\"variant\":\"stone-game\",\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[5,3,4,5]"
          "}}",
          "bad_json", "duplicate" },
    };
    enum {
        N = sizeof(cases) / sizeof(cases[0])
    };
    struct want want[N];
    struct bytes b = { 0 };
    json_t *res;
    size_t i;

    for (i = 0; i < N; i++) {
        b_puts(&b, cases[i].line);
        b_puts(&b, "\n");
        want[i] = (struct want){ (unsigned)i + 1, cases[i].code };
    }
    res = run_job("types.jsonl", b.p, b.len, want, N);
    for (i = 0; i < N; i++) {
        json_t *r = json_array_get(res, i);

        if (cases[i].in_message != NULL)
            require_message(res, i, cases[i].in_message);
        /* An object or array id is never echoed. */
        if (strncmp(cases[i].line, "{\"id\":{", 7) == 0 ||
            strncmp(cases[i].line, "{\"id\":[", 7) == 0)
            TH_REQUIRE(json_object_get(r, "id") == NULL, "line %zu: a non-scalar id was echoed",
                       i + 1);
    }
    json_decref(res);
    free(b.p);
    still_serving();
}
END_TEST

/* ------------------------------------------------------------------ */
/* A line over max_line_bytes (65536 here)                             */
/* ------------------------------------------------------------------ */

/* A stone-game record padded with spaces to exactly len bytes. */
static void b_padded(struct bytes *b, size_t len)
{
    size_t n = strlen(GOOD_877);

    ck_assert_uint_ge(len, n);
    b_puts(b, GOOD_877);
    b_fill(b, ' ', len - n);
}

START_TEST(line_over_max_line_bytes)
{
    enum {
        BIG = 10 * 1024 * 1024
    };
    static const struct want want[] = { { 1, NULL },        { 2, "too_large" }, { 3, NULL },
                                        { 4, "too_large" }, { 5, NULL },        { 6, "too_large" },
                                        { 7, NULL },        { 8, "too_large" } };
    struct bytes b = { 0 };
    json_t *res;
    long hwm, hwm0 = proc_status_kb("VmHWM");

    b_puts(&b, GOOD_III "\n");
    /* 2: a 10 MB line, a record that never ends */
    b_puts(&b, "{\"variant\":\"stone-game\",\"input\":{\"piles\":[");
    while (b.len < strlen(GOOD_III "\n") + BIG - 8)
        b_puts(&b, "1,1,1,1,");
    b_fill(&b, '1', strlen(GOOD_III "\n") + BIG - b.len);
    b_puts(&b, "\n" GOOD_III "\n");
    /* 4: 100 000 nested '[': over the limit before it is JSON at all */
    b_fill(&b, '[', 100000);
    b_puts(&b, "\n");
    /* 5: exactly max_line_bytes, plus a '\r': answered */
    b_padded(&b, 65536);
    b_puts(&b, "\r\n");
    /* 6: one byte over */
    b_padded(&b, 65537);
    b_puts(&b, "\n");
    /* 7: the next line is answered */
    b_puts(&b, GOOD_877 "\n");
    /* 8: the last line, 70 000 bytes, no final newline */
    b_padded(&b, 70000);

    res = run_job("long.jsonl", b.p, b.len, want, 8);
    require_message(res, 1, "line is 10485760 bytes, over max_line_bytes (65536)");
    require_message(res, 3, "line is 100000 bytes");
    require_message(res, 5, "line is 65537 bytes");
    require_message(res, 7, "line is 70000 bytes");
    json_decref(res);
    free(b.p);

    /* It never held the long line: the peak resident memory grew by less
     * than the line (the daemon is fresh: this TCase's only job), and the
     * whole process stays under a generous 30 MB. */
    hwm = proc_status_kb("VmHWM");
    TH_REQUIRE(hwm0 > 0 && hwm > 0, "cannot read VmHWM of cairnd");
    TH_REQUIRE(hwm - hwm0 < 8 * 1024, "cairnd's VmHWM grew from %ld to %ld kB with a 10 MB line",
               hwm0, hwm);
    TH_REQUIRE(hwm < 30 * 1024, "cairnd's VmHWM is %ld kB after a 10 MB line", hwm);
    still_serving();
}
END_TEST

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

/* Drops NAME with one good record and checks its outputs carry its name. */
static void named_job_is_processed(const char *name)
{
    static const struct want want[] = { { 1, NULL } };
    char base[NAME_MAX + 1], path[PATH_MAX];
    json_t *sum;
    int ok;

    snprintf(base, sizeof(base), "%.*s", (int)(strlen(name) - 6), name);
    json_decref(run_job(name, GOOD_III "\n", strlen(GOOD_III "\n"), want, 1));
    sum = wait_summary(base, 0);
    {
        char *escaped = cairn_name_escape(name);
        TH_REQUIRE(strcmp(th_str_field(sum, "input"), escaped) == 0,
                   "summary input \"%s\", want \"%s\"", th_str_field(sum, "input"), escaped);
        free(escaped);
    }
    json_decref(sum);
    th_pathf(path, "%s/%s", g_sp.done, name);
    TH_POLL(ok, th_exists(path), DEADLINE_MS); /* moved there just after the summary */
    TH_REQUIRE(ok, "%s is not in .cairn/done/", name);
    out_path(path, base, ".results.jsonl");
    TH_REQUIRE(th_exists(path), "%s is missing", path);
}

START_TEST(long_and_unusual_names)
{
    char name[NAME_MAX + 1];

    /* 200 characters in all, ".jsonl" included */
    memset(name, 'n', 194);
    memcpy(name, "long-", 5);
    strcpy(name + 194, ".jsonl");
    ck_assert_uint_eq(strlen(name), 200);
    named_job_is_processed(name);

    named_job_is_processed("\xC3\xA9preuve \xC3\xBC 1.jsonl"); /* "épreuve ü 1.jsonl" */
    named_job_is_processed("  leading and trailing spaces  .jsonl");
    named_job_is_processed("quote\" backslash\\ tab\t newline\n.jsonl");
    named_job_is_processed("\xE6\x97\xA5\xE6\x9C\xAC\xE8\xAA\x9E-\xF0\x9F\x98\x80.jsonl");
    still_serving();
}
END_TEST

/* Names up to NAME_MAX (255) bytes, around the point where the outputs'
 * names stop fitting in NAME_MAX.  Whatever the length: the daemon lives
 * and serves, every job is processed (ok summary, input in done/), and
 * every job gets exactly one summary.  A job whose NAME.results.jsonl fits
 * has outputs named NAME; a longer one's are named by the documented short
 * form: the first 200 bytes, "~", and 16 hex digits of a hash of the whole
 * file name; its summary still names the whole job. */
#define LONG_MIN_BASE    225
#define LONG_MAX_BASE    (NAME_MAX - 6)
#define RESULTS_MAX_BASE (NAME_MAX - 14)

static void long_name(char *name, size_t base_len)
{
    memset(name, 'a' + (int)(base_len % 26), base_len);
    name[0] = 'L';
    strcpy(name + base_len, ".jsonl");
}

/* What the outputs of name (its base: base) are named after. */
static void output_base_of(const char *name, const char *base, char out[NAME_MAX + 1])
{
    if (strlen(base) <= RESULTS_MAX_BASE)
        snprintf(out, NAME_MAX + 1, "%s", base);
    else
        snprintf(out, NAME_MAX + 1, "%.200s~%016llx", base,
                 (unsigned long long)cairn_hash64(name, strlen(name)));
}

START_TEST(names_up_to_name_max)
{
    char name[NAME_MAX + 1], base[NAME_MAX + 1], obase[NAME_MAX + 1], path[PATH_MAX];
    char in_path[PATH_MAX];
    size_t len;
    int ok;

    for (len = LONG_MIN_BASE; len <= LONG_MAX_BASE; len++) {
        long_name(name, len);
        drop(name, GOOD_III "\n", strlen(GOOD_III "\n"));
    }
    still_serving();
    for (len = LONG_MIN_BASE; len <= LONG_MAX_BASE; len++) {
        static const struct want want[] = { { 1, NULL } };
        json_t *sum, *res;

        long_name(name, len);
        snprintf(base, sizeof(base), "%.*s", (int)len, name);
        output_base_of(name, base, obase);
        th_pathf(path, "%s/%s", g_sp.done, name);
        th_pathf(in_path, "%s/%s", g_sp.in, name);
        TH_POLL(ok, th_exists(path), DEADLINE_MS);
        TH_REQUIRE(ok, "the job with a %zu-byte name is not in .cairn/done/", strlen(name));
        TH_REQUIRE(!th_exists(in_path), "the job with a %zu-byte name is back in the spool",
                   strlen(name));
        sum = wait_summary(obase, DEADLINE_MS);
        TH_REQUIRE(strcmp(th_str_field(sum, "status"), "ok") == 0, "%zu-byte name: status %s",
                   strlen(name), th_str_field(sum, "status"));
        TH_REQUIRE(strcmp(th_str_field(sum, "job"), base) == 0,
                   "%zu-byte name: the summary names job %s", strlen(name),
                   th_str_field(sum, "job"));
        json_decref(sum);
        res = load_results(obase);
        TH_REQUIRE(json_array_size(res) == 1 &&
                       strcmp(th_str_field(json_array_get(res, 0), "status"), "ok") == 0 &&
                       th_int_field(json_array_get(res, 0), "line") == want[0].line,
                   "%zu-byte name: wrong results", strlen(name));
        json_decref(res);
    }
    /* One summary and one results file per job, nothing else. */
    TH_REQUIRE(th_count_entries(g_sp.out, "L") == 2 * (LONG_MAX_BASE - LONG_MIN_BASE + 1),
               "unexpected outputs for the long names");
    still_serving();
}
END_TEST

/* The failed outcome of a non-regular NAME: moved (not followed) to
 * .cairn/failed/ with a reason naming its kind, a failed summary. */
static void require_failed(const char *name, const char *kind, mode_t type)
{
    char base[NAME_MAX + 1], path[PATH_MAX], in_path[PATH_MAX];
    struct stat st;
    json_t *sum;
    char *reason;
    int ok;

    snprintf(base, sizeof(base), "%.*s", (int)(strlen(name) - 6), name);
    sum = wait_summary(base, PROMPT_MS);
    TH_REQUIRE(strcmp(th_str_field(sum, "status"), "failed") == 0, "%s: status %s", name,
               th_str_field(sum, "status"));
    TH_REQUIRE(strstr(th_str_field(sum, "reason"), kind) != NULL, "%s: reason \"%s\" lacks \"%s\"",
               name, th_str_field(sum, "reason"), kind);
    TH_REQUIRE(th_int_field(sum, "records") == 0, "%s: records %lld", name,
               th_int_field(sum, "records"));
    TH_REQUIRE(json_object_get(sum, "results") == NULL, "%s: a failed job names results", name);
    json_decref(sum);
    out_path(path, base, ".results.jsonl");
    TH_REQUIRE(!th_exists(path), "%s: a results file was written", name);
    th_pathf(path, "%s/%s", g_sp.failed, name);
    th_pathf(in_path, "%s/%s", g_sp.in, name);
    /* moved there just after the summary is published */
    TH_POLL(ok, lstat(path, &st) == 0, DEADLINE_MS);
    TH_REQUIRE(ok && (st.st_mode & S_IFMT) == type, "%s is not in .cairn/failed/ as what it was",
               name);
    TH_REQUIRE(!th_exists(in_path), "%s is still in the input directory", name);
    th_pathf(path, "%s/%s.reason.json", g_sp.failed, base);
    reason = th_slurp(path, NULL);
    TH_REQUIRE(reason != NULL && strstr(reason, kind) != NULL, "%s: no reason file with \"%s\"",
               name, kind);
    free(reason);
}

START_TEST(fifo_symlink_directory)
{
    char path[PATH_MAX], target[PATH_MAX], elsewhere[PATH_MAX], tmp[PATH_MAX];
    const char *job = GOOD_III "\n";
    struct stat before, after;
    char *content;
    int fd;

    /* A FIFO made in place, one with a writer holding it open, one
     * renamed in: none may block the daemon. */
    th_pathf(path, "%s/fifo.jsonl", g_sp.in);
    ck_assert_int_eq(mkfifo(path, 0644), 0);
    require_failed("fifo.jsonl", "a FIFO", S_IFIFO);
    still_serving();

    /* held open (a writer that never writes) before it is renamed in */
    th_pathf(tmp, "%s/.fifo-open.tmp", g_sp.in);
    th_pathf(path, "%s/fifo-open.jsonl", g_sp.in);
    ck_assert_int_eq(mkfifo(tmp, 0644), 0);
    fd = open(tmp, O_RDWR | O_CLOEXEC);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(rename(tmp, path), 0);
    require_failed("fifo-open.jsonl", "a FIFO", S_IFIFO);
    close(fd);
    still_serving();

    th_pathf(tmp, "%s/.fifo-renamed.tmp", g_sp.in);
    th_pathf(path, "%s/fifo-renamed.jsonl", g_sp.in);
    ck_assert_int_eq(mkfifo(tmp, 0644), 0);
    ck_assert_int_eq(rename(tmp, path), 0);
    require_failed("fifo-renamed.jsonl", "a FIFO", S_IFIFO);
    still_serving();

    /* A symlink to a valid job file elsewhere: never followed. */
    th_pathf(elsewhere, "%s/elsewhere", g_sp.root);
    ck_assert_int_eq(mkdir(elsewhere, 0755), 0);
    th_pathf(target, "%s/target.jsonl", elsewhere);
    th_write_file(target, job, strlen(job), 0644);
    ck_assert_int_eq(stat(target, &before), 0);
    th_pathf(path, "%s/link.jsonl", g_sp.in);
    ck_assert_int_eq(symlink(target, path), 0);
    require_failed("link.jsonl", "a symbolic link", S_IFLNK);
    /* ...and one renamed in, pointing into the spool itself */
    th_pathf(tmp, "%s/.link2.tmp", g_sp.in);
    th_pathf(path, "%s/link2.jsonl", g_sp.in);
    ck_assert_int_eq(symlink(target, tmp), 0);
    ck_assert_int_eq(rename(tmp, path), 0);
    require_failed("link2.jsonl", "a symbolic link", S_IFLNK);
    still_serving();
    content = th_slurp(target, NULL);
    ck_assert_int_eq(stat(target, &after), 0);
    TH_REQUIRE(content != NULL && strcmp(content, job) == 0 && before.st_ino == after.st_ino &&
                   before.st_size == after.st_size &&
                   before.st_mtim.tv_sec == after.st_mtim.tv_sec &&
                   before.st_mtim.tv_nsec == after.st_mtim.tv_nsec,
               "the symlink's target was touched");
    free(content);
    TH_REQUIRE(th_count_entries(g_sp.out, "target") == 0, "the symlink's target produced outputs");
    TH_REQUIRE(th_count_entries(elsewhere, "") == 1, "something was written next to the target");

    /* A directory named *.jsonl: made in place (empty), and one holding a
     * job file, renamed in. */
    th_pathf(path, "%s/dir.jsonl", g_sp.in);
    ck_assert_int_eq(mkdir(path, 0755), 0);
    require_failed("dir.jsonl", "a directory", S_IFDIR);
    th_pathf(tmp, "%s/.dir2.tmp", g_sp.in);
    ck_assert_int_eq(mkdir(tmp, 0755), 0);
    th_pathf(path, "%s/.dir2.tmp/inner.jsonl", g_sp.in);
    th_write_file(path, job, strlen(job), 0644);
    th_pathf(path, "%s/dir2.jsonl", g_sp.in);
    ck_assert_int_eq(rename(tmp, path), 0);
    require_failed("dir2.jsonl", "a directory", S_IFDIR);
    th_pathf(path, "%s/dir2.jsonl/inner.jsonl", g_sp.failed);
    TH_REQUIRE(th_exists(path), "the directory's contents were touched");
    TH_REQUIRE(th_count_entries(g_sp.out, "inner") == 0,
               "a file inside the directory was processed");
    still_serving();
}
END_TEST

/* Files that vanish between notice and claim: no crash, nothing left in
 * active/, no summary for them (unless the daemon won the race and
 * claimed the file first: then it must be finished normally). */
START_TEST(vanishing_files)
{
    const char *job = GOOD_III "\n";
    char path[PATH_MAX], away[PATH_MAX], base[64], sum[PATH_MAX];
    int i, fd, claimed = 0, gone[40] = { 0 };

    /* Written in place (so "being written"), unlinked before the close. */
    for (i = 0; i < 10; i++) {
        th_pathf(path, "%s/vanish-unlinked-%d.jsonl", g_sp.in, i);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(cairn_write_all(fd, job, strlen(job)), 0);
        ck_assert_int_eq(unlink(path), 0);
        ck_assert_int_eq(close(fd), 0);
        gone[i] = 1;
    }
    /* Renamed in, renamed away at once. */
    for (i = 10; i < 25; i++) {
        th_pathf(away, "%s/.vanish-%d.tmp", g_sp.in, i);
        th_pathf(path, "%s/vanish-renamed-%d.jsonl", g_sp.in, i);
        th_write_file(away, job, strlen(job), 0644);
        ck_assert_int_eq(rename(away, path), 0);
        gone[i] = rename(path, away) == 0;
        if (!gone[i])
            ck_assert_int_eq(errno, ENOENT); /* the daemon claimed it first */
        unlink(away);
    }
    /* Renamed in, unlinked at once. */
    for (i = 25; i < 40; i++) {
        th_pathf(away, "%s/.vanish-%d.tmp", g_sp.in, i);
        th_pathf(path, "%s/vanish-deleted-%d.jsonl", g_sp.in, i);
        th_write_file(away, job, strlen(job), 0644);
        ck_assert_int_eq(rename(away, path), 0);
        gone[i] = unlink(path) == 0;
        if (!gone[i])
            ck_assert_int_eq(errno, ENOENT);
    }
    /* The probe's events come after all of these: once it is answered,
     * every vanished file has been noticed and dealt with. */
    still_serving();
    for (i = 0; i < 40; i++) {
        snprintf(base, sizeof(base), "vanish-%s-%d",
                 i < 10   ? "unlinked"
                 : i < 25 ? "renamed"
                          : "deleted",
                 i);
        out_path(sum, base, ".summary.json");
        if (gone[i]) {
            TH_REQUIRE(!th_exists(sum), "a summary appeared for %s, which vanished", base);
            TH_REQUIRE(th_count_entries(g_sp.out, base) == 0, "outputs appeared for %s", base);
        } else {
            json_decref(wait_summary(base, DEADLINE_MS)); /* claimed before it went */
        }
    }
    TH_REQUIRE(th_count_entries(g_sp.active, "") == 0, ".cairn/active/ is not empty");
    TH_REQUIRE(th_count_entries(g_sp.failed, "vanish") == 0, "a vanished file was failed");
    /* And after two rescans, still nothing new. */
    for (i = 0; i < 40; i++)
        claimed += !gone[i];
    th_wait_listings_in(g_sp.log, g_sp.in, 2);
    TH_REQUIRE(daemon_alive(), "cairnd died");
    TH_REQUIRE(th_count_entries(g_sp.out, "vanish") == 2 * claimed,
               "outputs appeared for the vanished files");
    TH_REQUIRE(th_count_entries(g_sp.active, "") == 0, ".cairn/active/ is not empty");
    still_serving();
}
END_TEST

/* ------------------------------------------------------------------ */

static void cleanup_top(void)
{
    if (getpid() != th_runner)
        return;
    if (g_sp.pid > 0) {
        kill(g_sp.pid, SIGKILL);
        waitpid(g_sp.pid, NULL, 0);
    }
    if (th_top[0] != '\0')
        th_rm_tree(th_top);
}

static TCase *tcase(Suite *s, const char *name, void (*setup)(void))
{
    TCase *tc = tcase_create(name);

    tcase_set_timeout(tc, 60);
    tcase_add_unchecked_fixture(tc, setup, stop_daemon);
    suite_add_tcase(s, tc);
    return tc;
}

static Suite *hostile_suite(void)
{
    Suite *s = suite_create("hostile");
    TCase *tc;

    tc = tcase(s, "records", setup_records);
    tcase_add_test(tc, random_binary);
    tcase_add_test(tc, invalid_utf8);
    tcase_add_test(tc, nested_brackets);
    tcase_add_test(tc, huge_integers);
    tcase_add_test(tc, nan_infinity);
    tcase_add_test(tc, nul_byte);
    tcase_add_test(tc, utf8_bom);
    tcase_add_test(tc, crlf);
    tcase_add_test(tc, no_final_newline);
    tcase_add_test(tc, empty_file);
    tcase_add_test(tc, blank_lines);
    tcase_add_test(tc, deep_objects);
    tcase_add_test(tc, wrong_types);

    tc = tcase(s, "long_line", setup_small_lines);
    tcase_add_test(tc, line_over_max_line_bytes);

    tc = tcase(s, "files", setup_small_lines);
    tcase_add_test(tc, long_and_unusual_names);
    tcase_add_test(tc, fifo_symlink_directory);
    tcase_add_test(tc, vanishing_files);

    tc = tcase(s, "long_names", setup_small_lines);
    tcase_add_test(tc, names_up_to_name_max);
    return s;
}

int main(void)
{
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_cairnd == NULL || g_plugins == NULL || access(g_cairnd, X_OK) != 0) {
        fprintf(stderr, "test_hostile: CAIRN_TEST_CAIRND and CAIRN_TEST_PLUGIN_DIR must be "
                        "set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    /* Polled every 5 ms; a failure shows the end of the daemon's log. */
    th_settings.poll_ms = 5;
    th_on_failure = dump_log;
    if (th_make_top("hostile") != 0)
        return EXIT_FAILURE;
    atexit(cleanup_top);
    failed = th_run_suite(hostile_suite(), CK_ENV, 1); /* CK_VERBOSITY=verbose lists each test */
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
