/*
 * test_client_memory.c - `cairn submit`'s check and `cairn results --join`
 * take memory bounded by the line, as cairnd does: a valid record of
 * 12 MB goes through both with the address space limited (RLIMIT_AS) to
 * the client's own baseline plus 8 times the line, and a hostile line
 * gets a clear error naming file, line and what is wrong.
 *
 * The baseline is measured, not assumed: the smallest power of two
 * (from 4 MiB) under which `cairn status` runs.  Under a sanitizer,
 * which reserves terabytes of address space, no limit lets the client
 * start: the cases then say so and run without one.
 */
#include <check.h>
#include <jansson.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static const char *g_cairn;
static const char *g_cairnd;

/* A line of this size: as in the report of a client that took 960 MB. */
#define LINE_BYTES  (12u << 20)
#define DEADLINE_MS 120000

static void env_init(struct th_env *e)
{
    char text[PATH_MAX * 3];

    th_env_init(e, NULL);
    snprintf(text, sizeof(text),
             "{\"input_dir\": \"%s\", \"output_dir\": \"%s\", \"min_age_ms\": 100, "
             "\"rescan_interval_s\": 1, \"metrics_interval_s\": 0}\n",
             e->in, e->out);
    th_write_text(e->cfg, text);
}

static void start_daemon(const struct th_env *e)
{
    char *argv[] = {
        (char *)g_cairnd, "-c", (char *)e->cfg, "--plugins", (char *)e->plugins, NULL
    };

    th_wait_ready(th_spawn(e->root, argv));
}

/* `cairn -c CFG ARGS` (ARGS a shell word list) with the address space
 * limited to limit_kib (0: no limit). */
static struct th_run cairn_limited(const struct th_env *e, size_t limit_kib, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static struct th_run cairn_limited(const struct th_env *e, size_t limit_kib, const char *fmt, ...)
{
    const char *args[3] = { "-c", NULL, NULL };
    char words[PATH_MAX * 2], *cmd;
    struct th_run r;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(words, sizeof(words), fmt, ap);
    va_end(ap);
    if (limit_kib > 0)
        cmd = th_xasprintf("ulimit -v %zu && exec '%s' -c '%s' %s", limit_kib, g_cairn, e->cfg,
                           words);
    else
        cmd = th_xasprintf("exec '%s' -c '%s' %s", g_cairn, e->cfg, words);
    args[1] = cmd;
    r = th_run_cairnd("/bin/sh", e->root, args);
    free(cmd);
    return r;
}

/* The client's own address space in KiB (see the top), or 0 when no
 * limit lets it run. */
static size_t baseline_kib(const struct th_env *e)
{
    size_t kib;

#if defined(__SANITIZE_ADDRESS__)
    /* ASan reserves terabytes of shadow at start: under any limit the
     * loader cannot even map its runtime (exit 127). */
    (void)e;
    fprintf(stderr, "test_client_memory: note: an AddressSanitizer build runs under no "
                    "address-space limit: the cases run without one\n");
    return 0;
#endif
    for (kib = 4096; kib <= (1u << 20); kib *= 2) {
        struct th_run r = cairn_limited(e, kib, "status");
        int ran = r.status == 0;

        th_run_free(&r);
        if (ran)
            return kib;
    }
    fprintf(stderr, "test_client_memory: note: cairn runs under no address-space limit up to "
                    "1 GiB (a sanitizer build?): the cases run without one\n");
    return 0;
}

/* baseline + 8 x the line, in KiB; 0 when there is no baseline. */
static size_t limit_for(size_t base_kib, size_t line_bytes)
{
    return base_kib == 0 ? 0 : base_kib + 8 * line_bytes / 1024;
}

/* text + "[v,v,...]" + tail, about LINE_BYTES long: stone values in
 * [-999, 999], legal under extended limits (n <= 10^7). */
static char *big_record(const char *head, const char *tail, size_t *len)
{
    size_t cap = LINE_BYTES + 4096, n = 0;
    char *s = malloc(cap);
    uint64_t seed = 34;

    ck_assert_ptr_nonnull(s);
    n += (size_t)snprintf(s, cap, "%s[", head);
    while (n < LINE_BYTES)
        n += (size_t)snprintf(s + n, cap - n, "%lld,",
                              (long long)th_splitmix64_range(&seed, -999, 999));
    n--; /* the last comma */
    n += (size_t)snprintf(s + n, cap - n, "]%s", tail);
    *len = n;
    return s;
}

/* "[{},{},...]" or a record padded with it: millions of tiny values, a few
 * hundred bytes of jansson tree per three bytes of line. */
static char *tiny_values(const char *head, const char *tail, size_t *len)
{
    size_t cap = LINE_BYTES + 4096, n = 0;
    char *s = malloc(cap);

    ck_assert_ptr_nonnull(s);
    n += (size_t)snprintf(s, cap, "%s[", head);
    while (n < LINE_BYTES) {
        memcpy(s + n, "{},", 3);
        n += 3;
    }
    n--;
    n += (size_t)snprintf(s + n, cap - n, "]%s", tail);
    *len = n;
    return s;
}

static void write_lines(const char *path, const char *first, const char *line, size_t len)
{
    FILE *f = fopen(path, "w");

    ck_assert_ptr_nonnull(f);
    if (first != NULL)
        fputs(first, f);
    ck_assert_uint_eq(fwrite(line, 1, len, f), len);
    fputc('\n', f);
    ck_assert_int_eq(fclose(f), 0);
}

static void wait_summary(const struct th_env *e, const char *name)
{
    char path[PATH_MAX];

    TH_OUT(path, e, "%s.summary.json", name);
    TH_EVENTUALLY(th_exists(path), DEADLINE_MS, "no summary %s", path);
}

/* The joined line is {"line":1,"input":RECORD,"result":RESULT}: the
 * record byte for byte, as an object; the result returned (parsed). */
static json_t *joined_result(const struct th_run *r, const char *record, size_t len)
{
    static const char head[] = "{\"line\":1,\"input\":", mid[] = ",\"result\":";
    const char *res;
    json_error_t err;
    json_t *v;
    size_t out_len = strlen(r->out);

    TH_REQUIRE(strncmp(r->out, head, strlen(head)) == 0, "the joined line starts %.80s", r->out);
    TH_REQUIRE(out_len > strlen(head) + len && memcmp(r->out + strlen(head), record, len) == 0,
               "the joined line does not hold the record as written: %.120s", r->out);
    res = r->out + strlen(head) + len;
    TH_REQUIRE(strncmp(res, mid, strlen(mid)) == 0, "after the record: %.80s", res);
    res += strlen(mid);
    TH_REQUIRE(out_len >= 2 && strcmp(r->out + out_len - 2, "}\n") == 0, "the joined line ends %s",
               r->out + (out_len > 40 ? out_len - 40 : 0));
    v = json_loadb(res, strlen(res) - 2, 0, &err);
    TH_REQUIRE(json_is_object(v), "the result is not an object: %s: %.200s", err.text, res);
    return v;
}

/* ------------------------------------------------------------------ */

START_TEST(a_big_record_is_submitted_and_joined_within_8x_its_line)
{
    struct th_env e;
    char job[PATH_MAX], *rec;
    size_t len, base, limit;
    struct th_run r;
    json_t *res;

    env_init(&e);
    base = baseline_kib(&e);
    rec = big_record("{\"id\":\"big\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":",
                     "},\"options\":{\"limits\":\"extended\"}}", &len);
    limit = limit_for(base, len);
    th_pathf(job, "%s/big.jsonl", e.root);
    write_lines(job, NULL, rec, len);
    r = cairn_limited(&e, limit, "submit --name big '%s'", job);
    TH_REQUIRE(r.status == 0, "submit of a valid %zu-byte record under %zu KiB: exit %d: %s", len,
               limit, r.status, r.err);
    th_run_free(&r);
    start_daemon(&e);
    wait_summary(&e, "big");
    r = cairn_limited(&e, limit, "results big --join");
    TH_REQUIRE(r.status == 0, "results --join under %zu KiB: exit %d: %s", limit, r.status, r.err);
    res = joined_result(&r, rec, len);
    TH_REQUIRE(strcmp(th_str_field(res, "status"), "ok") == 0, "the record's result: %s",
               th_str_field(res, "status"));
    json_decref(res);
    th_run_free(&r);
    free(rec);
    th_cleanup();
}
END_TEST

START_TEST(hostile_lines_get_clear_errors_within_8x_their_line)
{
    struct th_env e;
    char job[PATH_MAX], want[256], *rec;
    size_t len, base, limit;
    struct th_run r;
    json_t *res;

    env_init(&e);
    base = baseline_kib(&e);

    /* Valid JSON, but an array: named as such, on its line. */
    rec = tiny_values("", "", &len);
    limit = limit_for(base, len);
    th_pathf(job, "%s/hostile.jsonl", e.root);
    write_lines(job, "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]}}\n", rec, len);
    r = cairn_limited(&e, limit, "submit '%s'", job);
    TH_REQUIRE(r.status == 2 && strstr(r.err, "hostile.jsonl:2: not a JSON lines job file: not "
                                              "a JSON object but an array") != NULL,
               "exit %d: %s", r.status, r.err);
    th_run_free(&r);
    free(rec);

    /* Cut short: where it ends, never "column -1". */
    rec = tiny_values("{\"id\":\"cut\",\"pad\":", "", &len);
    len--; /* without its closing bracket */
    th_pathf(job, "%s/cut.jsonl", e.root);
    write_lines(job, NULL, rec, len);
    r = cairn_limited(&e, limit, "submit '%s'", job);
    snprintf(want, sizeof(want), "cut.jsonl:1: not a JSON lines job file: column %zu: ", len);
    TH_REQUIRE(r.status == 2 && strstr(r.err, want) != NULL && strstr(r.err, "column -1") == NULL,
               "exit %d, not \"%s\": %s", r.status, want, r.err);
    th_run_free(&r);
    free(rec);
    TH_REQUIRE(th_count_visible(e.in) == 0, "left in the spool: %s", th_list_dir(e.in, " "));

    /* A record with the tiny values in a key of its own: JSON, so the
     * check takes it and cairnd judges it (too_large); --join shows it as
     * the object it is. */
    rec =
        tiny_values("{\"id\":\"padded\",\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},"
                    "\"pad\":",
                    "}", &len);
    th_pathf(job, "%s/padded.jsonl", e.root);
    write_lines(job, NULL, rec, len);
    r = cairn_limited(&e, limit, "submit --name padded '%s'", job);
    TH_REQUIRE(r.status == 0, "submit under %zu KiB: exit %d: %s", limit, r.status, r.err);
    th_run_free(&r);
    start_daemon(&e);
    wait_summary(&e, "padded");
    r = cairn_limited(&e, limit, "results padded --join");
    TH_REQUIRE(r.status == 0, "results --join under %zu KiB: exit %d: %s", limit, r.status, r.err);
    res = joined_result(&r, rec, len);
    ck_assert_str_eq(th_str_field(json_object_get(res, "error"), "code"), "too_large");
    json_decref(res);
    th_run_free(&r);
    free(rec);
    th_cleanup();
}
END_TEST

/* With too little memory even for the line itself: said as that, naming
 * the file and the line. */
START_TEST(out_of_memory_is_named_with_file_and_line)
{
    struct th_env e;
    char job[PATH_MAX], *rec;
    size_t len, base, limit;
    struct th_run r;

    env_init(&e);
    base = baseline_kib(&e);
    if (base == 0)
        goto out; /* no limit, no shortage */
    rec = big_record("{\"id\":\"big\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":",
                     "},\"options\":{\"limits\":\"extended\"}}", &len);
    limit = base + len / 2 / 1024;
    th_pathf(job, "%s/big.jsonl", e.root);
    write_lines(job, "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]}}\n", rec, len);
    r = cairn_limited(&e, limit, "submit --name big '%s'", job);
    TH_REQUIRE(r.status != 0 && strstr(r.err, "big.jsonl:2: ") != NULL &&
                   strstr(r.err, "out of memory") != NULL,
               "submit under %zu KiB: exit %d: %s", limit, r.status, r.err);
    th_run_free(&r);
    TH_REQUIRE(th_count_visible(e.in) == 0, "left in the spool: %s", th_list_dir(e.in, " "));
    r = cairn_limited(&e, 0, "submit --name big '%s'", job);
    TH_REQUIRE(r.status == 0, "submit: exit %d: %s", r.status, r.err);
    th_run_free(&r);
    start_daemon(&e);
    wait_summary(&e, "big");
    r = cairn_limited(&e, limit, "results big --join");
    TH_REQUIRE(r.status != 0 && strstr(r.err, "big.jsonl:2: ") != NULL &&
                   strstr(r.err, "out of memory") != NULL,
               "results --join under %zu KiB: exit %d: %s", limit, r.status, r.err);
    th_run_free(&r);
    free(rec);
out:
    th_cleanup();
}
END_TEST

static Suite *client_memory_suite(void)
{
    Suite *s = suite_create("client_memory");
    TCase *tc = tcase_create("bounded");

    tcase_set_timeout(tc, 280);
    tcase_add_test(tc, a_big_record_is_submitted_and_joined_within_8x_its_line);
    tcase_add_test(tc, hostile_lines_get_clear_errors_within_8x_their_line);
    tcase_add_test(tc, out_of_memory_is_named_with_file_and_line);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed;

    g_cairn = getenv("CAIRN_TEST_CAIRN");
    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    if (g_cairn == NULL || g_cairnd == NULL || access(g_cairn, X_OK) != 0) {
        fprintf(stderr, "test_client_memory: CAIRN_TEST_CAIRN and CAIRN_TEST_CAIRND must be set "
                        "(meson test sets them)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("client-memory") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    failed = th_run_suite(client_memory_suite(), CK_ENV, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
