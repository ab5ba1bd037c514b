/*
 * test_record.c - cairn_record_process(): one job line in, one result line
 * out (docs/games.md; contract.md, Records and Results).
 *
 * The real plugins are loaded from $CAIRN_TEST_PLUGIN_DIR.  Every result
 * line is parsed back with jansson and its fields are compared exactly, so
 * a test fails on a missing or extra key as well as on a wrong value.
 */
#include <check.h>
#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "harness.h"
#include "alloc_fail.h"
#include "jsontext.h"
#include "plugin_loader.h"
#include "record.h"
#include "util.h"

static struct cairn_registry g_reg;
static const char *g_plugin_dir;

/* The last input and output, for failure messages. */
static char g_in[256];
static char g_out[1024];

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

static struct cairn_record_ctx ctx_make(enum cairn_limits limits, const char *def_variant)
{
    struct cairn_record_ctx c = { .reg = &g_reg,
                                  .default_limits = limits,
                                  .default_variant = def_variant };
    return c;
}

static void remember(char *dst, size_t cap, const char *p, size_t n)
{
    size_t i, k = 0;

    for (i = 0; i < n && k + 5 < cap; i++) {
        unsigned char c = (unsigned char)p[i];
        if (c >= 0x20 && c < 0x7f) {
            dst[k++] = (char)c;
        } else {
            snprintf(dst + k, cap - k, "\\x%02x", c);
            k += 4;
        }
    }
    if (i < n && k + 4 < cap) {
        memcpy(dst + k, "...", 3);
        k += 3;
    }
    dst[k] = '\0';
}

/* Runs one line and returns the parsed result line, after checking what
 * every result line must satisfy: exactly one '\n'-terminated line, a JSON
 * object, "line" echoed, "status" ok or error.  tally may be NULL. */
static json_t *run_ctx(const struct cairn_record_ctx *ctx, uint64_t line_no, const char *line,
                       size_t len, struct cairn_tally *tally)
{
    struct cairn_buf out = { 0 };
    struct cairn_scratch s = { 0 };
    struct cairn_tally own;
    json_error_t jerr;
    json_t *j;
    int rc;

    remember(g_in, sizeof(g_in), line, len);
    ck_assert_int_eq(cairn_tally_init(&own, g_reg.n_plugins), 0);
    rc = cairn_record_process(ctx, &s, line_no, line, len, &out, tally ? tally : &own);
    ck_assert_msg(rc == 0, "cairn_record_process returned %d for %s", rc, g_in);
    ck_assert_msg(out.len > 0 && out.data[out.len - 1] == '\n',
                  "result for %s does not end in a newline", g_in);
    remember(g_out, sizeof(g_out), out.data, out.len - 1);
    ck_assert_msg(memchr(out.data, '\n', out.len - 1) == NULL,
                  "result for %s is more than one line: %s", g_in, g_out);
    j = json_loadb(out.data, out.len - 1, JSON_REJECT_DUPLICATES, &jerr);
    ck_assert_msg(j != NULL, "result for %s is not JSON (%s): %s", g_in, jerr.text, g_out);
    ck_assert_msg(json_is_object(j), "result for %s is not an object: %s", g_in, g_out);
    ck_assert_msg(json_is_integer(json_object_get(j, "line")) &&
                      (uint64_t)json_integer_value(json_object_get(j, "line")) == line_no,
                  "result for %s: \"line\" is not %" PRIu64 ": %s", g_in, line_no, g_out);
    cairn_buf_free(&out);
    cairn_scratch_free(&s);
    cairn_tally_free(&own);
    return j;
}

static json_t *run(const char *line)
{
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    return run_ctx(&c, 1, line, strlen(line), NULL);
}

static json_t *runf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static json_t *runf(const char *fmt, ...)
{
    va_list ap;
    char *line;
    json_t *j;

    va_start(ap, fmt);
    line = cairn_vasprintf(fmt, ap);
    va_end(ap);
    ck_assert_ptr_nonnull(line);
    j = run(line);
    free(line);
    return j;
}

/* Only these keys may appear; a NULL-terminated list. */
static void only_keys(const json_t *j, const char *const *allowed)
{
    const char *key;
    json_t *val;

    json_object_foreach((json_t *)j, key, val)
    {
        size_t i;
        int found = 0;
        for (i = 0; allowed[i] != NULL; i++)
            if (strcmp(key, allowed[i]) == 0)
                found = 1;
        ck_assert_msg(found, "unexpected key \"%s\" in %s (input %s)", key, g_out, g_in);
    }
}

static void expect_json(const json_t *got, const char *want_text, const char *what)
{
    json_error_t e;
    json_t *want = json_loads(want_text, JSON_DECODE_ANY, &e);

    ck_assert_msg(want != NULL, "bad test literal %s", want_text);
    ck_assert_msg(got != NULL && json_equal((json_t *)got, want), "%s: want %s in %s (input %s)",
                  what, want_text, g_out, g_in);
    json_decref(want);
}

static int64_t int_field(const json_t *j, const char *key)
{
    const json_t *v = json_object_get(j, key);

    ck_assert_msg(json_is_integer(v), "\"%s\" is not an integer in %s (input %s)", key, g_out,
                  g_in);
    return (int64_t)json_integer_value(v);
}

/* status ok with the given variant, answer (JSON text), totals; margin is
 * checked against alice - bob. */
static void expect_ok(const json_t *j, const char *variant, const char *answer, int64_t alice,
                      int64_t bob)
{
    static const char *const keys[] = { "line", "id",     "variant", "status",   "answer", "alice",
                                        "bob",  "margin", "match",   "expected", "moves",  NULL };

    ck_assert_msg(json_is_string(json_object_get(j, "status")) &&
                      strcmp(json_string_value(json_object_get(j, "status")), "ok") == 0,
                  "status is not ok: %s (input %s)", g_out, g_in);
    only_keys(j, keys);
    ck_assert_msg(json_is_string(json_object_get(j, "variant")) &&
                      strcmp(json_string_value(json_object_get(j, "variant")), variant) == 0,
                  "variant is not \"%s\": %s (input %s)", variant, g_out, g_in);
    expect_json(json_object_get(j, "answer"), answer, "answer");
    ck_assert_msg(int_field(j, "alice") == alice, "alice: want %" PRId64 " in %s (input %s)", alice,
                  g_out, g_in);
    ck_assert_msg(int_field(j, "bob") == bob, "bob: want %" PRId64 " in %s (input %s)", bob, g_out,
                  g_in);
    ck_assert_msg(int_field(j, "margin") == alice - bob,
                  "margin: want %" PRId64 " in %s (input %s)", alice - bob, g_out, g_in);
}

/* status error with this code, and a message containing every string of
 * the NULL-terminated list. */
static void expect_error(const json_t *j, const char *code, ...)
{
    static const char *const keys[] = { "line", "id", "variant", "status", "error", NULL };
    static const char *const ekeys[] = { "code", "message", NULL };
    const json_t *err = json_object_get(j, "error");
    const char *msg, *want;
    va_list ap;

    ck_assert_msg(json_is_string(json_object_get(j, "status")) &&
                      strcmp(json_string_value(json_object_get(j, "status")), "error") == 0,
                  "status is not error: %s (input %s)", g_out, g_in);
    only_keys(j, keys);
    ck_assert_msg(json_is_object(err), "no error object: %s (input %s)", g_out, g_in);
    only_keys(err, ekeys);
    ck_assert_msg(json_is_string(json_object_get(err, "code")) &&
                      strcmp(json_string_value(json_object_get(err, "code")), code) == 0,
                  "error code is not %s: %s (input %s)", code, g_out, g_in);
    msg = json_string_value(json_object_get(err, "message"));
    ck_assert_msg(msg != NULL && msg[0] != '\0', "no message: %s (input %s)", g_out, g_in);
    va_start(ap, code);
    while ((want = va_arg(ap, const char *)) != NULL)
        ck_assert_msg(strstr(msg, want) != NULL, "message lacks \"%s\": %s (input %s)", want, g_out,
                      g_in);
    va_end(ap);
}

static void expect_id(const json_t *j, const char *id_json)
{
    if (id_json == NULL)
        ck_assert_msg(json_object_get(j, "id") == NULL, "unexpected id in %s (input %s)", g_out,
                      g_in);
    else
        expect_json(json_object_get(j, "id"), id_json, "id");
}

static void expect_no(const json_t *j, const char *key)
{
    ck_assert_msg(json_object_get(j, key) == NULL, "unexpected \"%s\" in %s (input %s)", key, g_out,
                  g_in);
}

static const struct cairn_plugin_handle *plugin(const char *name)
{
    const struct cairn_plugin_handle *h = cairn_registry_find(&g_reg, name);

    ck_assert_msg(h != NULL, "plugin %s not loaded from %s", name, g_plugin_dir);
    return h;
}

static size_t plugin_index(const char *name)
{
    return (size_t)(plugin(name) - g_reg.plugins);
}

/* A record whose one input array is n copies of value (with a different
 * first value when first != value). */
static char *array_record(const char *variant, const char *key, size_t n, int64_t first,
                          int64_t value, const char *options)
{
    struct cairn_buf b = { 0 };
    size_t i;
    int rc = cairn_buf_printf(&b, "{\"variant\":\"%s\",\"input\":{\"%s\":[", variant, key);

    for (i = 0; i < n; i++) {
        if (i > 0)
            rc |= cairn_buf_puts(&b, ",");
        rc |= cairn_buf_int(&b, i == 0 ? first : value);
    }
    rc |= cairn_buf_puts(&b, "]}");
    if (options != NULL)
        rc |= cairn_buf_printf(&b, ",\"options\":%s", options);
    rc |= cairn_buf_puts(&b, "}");
    rc |= cairn_buf_append(&b, "", 1);
    ck_assert_int_eq(rc, 0);
    return b.data;
}

/* Every integer a result line carries is rendered by cairn_buf_int: the
 * same text as printf's, at every number of digits and both ends of
 * int64. */
START_TEST(test_buf_int_matches_printf)
{
    struct cairn_buf b = { 0 };
    char want[32];
    int64_t cases[200];
    size_t n = 0;
    uint64_t x = 0x9E3779B97F4A7C15u;

    cases[n++] = 0;
    cases[n++] = INT64_MAX;
    cases[n++] = INT64_MIN;
    cases[n++] = INT64_MIN + 1;
    for (int64_t p = 1; p <= INT64_MAX / 10; p *= 10) {
        for (int64_t d = -1; d <= 1; d++) {
            cases[n++] = p * 10 + d;
            cases[n++] = -(p * 10 + d);
        }
    }
    for (int i = 0; i < 60; i++) { /* xorshift: values of every length */
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        cases[n++] = (int64_t)(x >> (i % 63));
    }
    ck_assert_uint_le(n, sizeof(cases) / sizeof(cases[0]));
    for (size_t i = 0; i < n; i++) {
        b.len = 0;
        ck_assert_int_eq(cairn_buf_int(&b, cases[i]), 0);
        snprintf(want, sizeof(want), "%lld", (long long)cases[i]);
        ck_assert_msg(b.len == strlen(want) && memcmp(b.data, want, b.len) == 0,
                      "cairn_buf_int(%s) wrote \"%.*s\"", want, (int)b.len, b.data);
    }
    cairn_buf_free(&b);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Official examples                                                   */
/* ------------------------------------------------------------------ */

START_TEST(test_examples_stone_game)
{
    json_t *j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}");
    expect_ok(j, "stone-game", "true", 9, 8);
    expect_no(j, "match");
    expect_no(j, "moves");
    expect_no(j, "id");
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[3,7,2,3]}}");
    expect_ok(j, "stone-game", "true", 10, 5);
    json_decref(j);
}
END_TEST

START_TEST(test_examples_stone_game_ii)
{
    json_t *j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]}}");
    expect_ok(j, "stone-game-ii", "10", 10, 16);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5,100]}}");
    expect_ok(j, "stone-game-ii", "104", 104, 11);
    json_decref(j);
    /* Under the rules it is 8, not the 9 some write-ups claim. */
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]}}");
    expect_ok(j, "stone-game-ii", "8", 8, 7);
    json_decref(j);
}
END_TEST

START_TEST(test_examples_stone_game_iii)
{
    json_t *j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}");
    expect_ok(j, "stone-game-iii", "\"Bob\"", 6, 7);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,-9]}}");
    expect_ok(j, "stone-game-iii", "\"Alice\"", 6, -9);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,6]}}");
    expect_ok(j, "stone-game-iii", "\"Tie\"", 6, 6);
    json_decref(j);
}
END_TEST

START_TEST(test_spec_result_line_example)
{
    /* cairnd(8)'s own example line (RESULTS), field for field. */
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    const char *in =
        "{\"id\":\"r3\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}";
    json_t *j = run_ctx(&c, 3, in, strlen(in), NULL);
    json_t *want = json_loads("{\"line\":3,\"id\":\"r3\",\"variant\":\"stone-game-iii\","
                              "\"status\":\"ok\",\"answer\":\"Bob\",\"alice\":6,\"bob\":7,"
                              "\"margin\":-1}",
                              0, NULL);

    ck_assert_msg(json_equal(j, want), "got %s", g_out);
    json_decref(want);
    json_decref(j);
}
END_TEST

START_TEST(test_aliases_resolve_to_canonical_name)
{
    json_t *j = run("{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]}}");
    expect_ok(j, "stone-game-iii", "\"Bob\"", 6, 7);
    json_decref(j);
    j = run("{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]}}");
    expect_ok(j, "stone-game", "true", 9, 8);
    json_decref(j);
    j = run("{\"variant\":\"1140\",\"input\":{\"piles\":[2,7,9,4,4]}}");
    expect_ok(j, "stone-game-ii", "10", 10, 16);
    json_decref(j);
}
END_TEST

START_TEST(test_line_number_echoed)
{
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    const char *in = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
    const char *bad = "nope";
    uint64_t nos[] = { 1, 2, 77, 4294967297ull, 9007199254740993ull };
    size_t i;

    for (i = 0; i < sizeof(nos) / sizeof(nos[0]); i++) {
        json_decref(run_ctx(&c, nos[i], in, strlen(in), NULL));
        json_decref(run_ctx(&c, nos[i], bad, strlen(bad), NULL));
    }
}
END_TEST

START_TEST(test_output_is_appended)
{
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    struct cairn_buf out = { 0 };
    struct cairn_scratch s = { 0 };
    struct cairn_tally t;
    const char *in = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
    const char *want = "PREFIX\n{\"line\":1,\"variant\":\"stone-game\",\"status\":\"ok\","
                       "\"answer\":true,\"alice\":9,\"bob\":8,\"margin\":1}\n";

    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    ck_assert_int_eq(cairn_buf_puts(&out, "PREFIX\n"), 0);
    ck_assert_int_eq(cairn_record_process(&c, &s, 1, in, strlen(in), &out, &t), 0);
    ck_assert_uint_eq(out.len, strlen(want));
    ck_assert(memcmp(out.data, want, out.len) == 0);
    /* An error line after a good one leaves the good one alone. */
    ck_assert_int_eq(cairn_record_process(&c, &s, 2, "{", 1, &out, &t), 0);
    ck_assert(memcmp(out.data, want, strlen(want)) == 0);
    ck_assert(out.data[out.len - 1] == '\n');
    cairn_buf_free(&out);
    cairn_scratch_free(&s);
    cairn_tally_free(&t);
}
END_TEST

/* ------------------------------------------------------------------ */
/* id, variant, expected                                               */
/* ------------------------------------------------------------------ */

START_TEST(test_id_echo)
{
    static const char *const ids[] = { "\"r3\"", "42",  "-9223372036854775808", "null", "true",
                                       "false",  "2.5", "\"a\\\"b\\u00e9\\n\"", "\"\"", NULL };
    size_t i;

    for (i = 0; ids[i] != NULL; i++) {
        json_t *j =
            runf("{\"id\":%s,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}", ids[i]);
        expect_ok(j, "stone-game", "true", 9, 8);
        expect_id(j, ids[i]);
        json_decref(j);
        /* Echoed on error lines too. */
        j = runf("{\"id\":%s,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]}}", ids[i]);
        expect_error(j, "constraint", NULL);
        expect_id(j, ids[i]);
        json_decref(j);
    }
}
END_TEST

/* A number id comes back exactly as written, not as the double or the
 * integer a parser makes of it (0.1 once came back as 0.10000000000000001,
 * -0 as 0): users join results to inputs on it. */
START_TEST(test_id_number_echoed_as_written)
{
    static const char *const ids[] = { "0.1",
                                       "1.50",
                                       "-0.0",
                                       "1E+2",
                                       "1.5e-7",
                                       "0.30000000000000004",
                                       "123456789.987654321",
                                       "-0",
                                       "0",
                                       "-1",
                                       "-9223372036854775808",
                                       NULL };
    static const char *const shapes[] = {
        "{\"id\":%s,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}",
        "{ \"id\" :\t%s , \"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}",
        "{\"\\u0069d\":%s,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}",
        "{\"options\":{\"id\":9.9},\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
        "\"note\":\"\\\"id\\\":1.0}\",\"id\":%s}",
        NULL
    };
    char want[64];
    size_t i, k;

    for (i = 0; ids[i] != NULL; i++)
        for (k = 0; shapes[k] != NULL; k++) {
            json_t *j = runf(shapes[k], ids[i]);

            snprintf(want, sizeof(want), "\"id\":%s,", ids[i]);
            ck_assert_msg(strstr(g_out, want) != NULL, "%s gave %s", g_in, g_out);
            json_decref(j);
        }
}
END_TEST

START_TEST(test_id_absent_not_echoed)
{
    json_t *j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}");
    expect_id(j, NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{}}");
    expect_error(j, "invalid_input", NULL);
    expect_id(j, NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_variant_is_canonical_name)
{
    json_t *j = run("{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]}}");
    ck_assert_str_eq(json_string_value(json_object_get(j, "variant")), "stone-game");
    json_decref(j);
    /* Errors found after the variant is known name it the same way. */
    j = run("{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,\"x\"]}}");
    expect_error(j, "invalid_input", NULL);
    if (json_object_get(j, "variant") != NULL)
        ck_assert_str_eq(json_string_value(json_object_get(j, "variant")), "stone-game-iii");
    json_decref(j);
}
END_TEST

START_TEST(test_expected_match_bool)
{
    json_t *j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
                    "\"expected\":true}");
    expect_ok(j, "stone-game", "true", 9, 8);
    expect_json(json_object_get(j, "match"), "true", "match");
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":false}");
    expect_ok(j, "stone-game", "true", 9, 8);
    expect_json(json_object_get(j, "match"), "false", "match");
    /* A mismatch shows what was expected beside the answer. */
    expect_json(json_object_get(j, "expected"), "false", "expected");
    json_decref(j);
}
END_TEST

START_TEST(test_expected_match_int)
{
    json_t *j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},"
                    "\"expected\":8}");
    expect_ok(j, "stone-game-ii", "8", 8, 7);
    expect_json(json_object_get(j, "match"), "true", "match");
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},\"expected\":9}");
    expect_ok(j, "stone-game-ii", "8", 8, 7);
    expect_json(json_object_get(j, "match"), "false", "match");
    expect_json(json_object_get(j, "expected"), "9", "expected");
    json_decref(j);
}
END_TEST

START_TEST(test_expected_match_winner)
{
    static const char *const w[] = { "Alice", "Bob", "Tie" };
    size_t i;

    for (i = 0; i < 3; i++) {
        json_t *j = runf("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},"
                         "\"expected\":\"%s\"}",
                         w[i]);
        expect_ok(j, "stone-game-iii", "\"Bob\"", 6, 7);
        expect_json(json_object_get(j, "match"), i == 1 ? "true" : "false", "match");
        /* "expected" is there on a mismatch only. */
        ck_assert_msg((json_object_get(j, "expected") != NULL) == (i != 1), "%s", g_out);
        json_decref(j);
    }
}
END_TEST

/* A record that expected an answer but ended in an error is counted as
 * unchecked: once it was counted nowhere, silently. */
START_TEST(test_expected_but_error_is_unchecked)
{
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    struct cairn_tally t;
    json_t *j;

    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    j = run_ctx(
        &c, 1, "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]},\"expected\":true}",
        strlen("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]},\"expected\":true}"), &t);
    json_decref(j);
    j = run_ctx(&c, 2, "{\"variant\":\"nope\",\"input\":{},\"expected\":1}",
                strlen("{\"variant\":\"nope\",\"input\":{},\"expected\":1}"), &t);
    json_decref(j);
    j = run_ctx(
        &c, 3, "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":true}",
        strlen("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":true}"),
        &t);
    json_decref(j);
    ck_assert_uint_eq(t.unchecked, 2);
    ck_assert_uint_eq(t.matches, 1);
    ck_assert_uint_eq(t.mismatches, 0);
    cairn_tally_free(&t);
}
END_TEST

START_TEST(test_expected_wrong_type)
{
    json_t *j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
                    "\"expected\":\"true\"}");
    expect_error(j, "bad_record", "expected", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":1}");
    expect_error(j, "bad_record", "expected", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},"
            "\"expected\":8.0}");
    expect_error(j, "bad_record", "expected", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},"
            "\"expected\":\"8\"}");
    expect_error(j, "bad_record", "expected", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},"
            "\"expected\":\"bob\"}");
    expect_error(j, "bad_record", "expected", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},"
            "\"expected\":1}");
    expect_error(j, "bad_record", "expected", NULL);
    json_decref(j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* options                                                             */
/* ------------------------------------------------------------------ */

/* Replays a line of play and returns Alice's and Bob's totals. */
static void replay(const char *variant, const int64_t *p, size_t n, const json_t *moves,
                   int64_t *alice, int64_t *bob)
{
    size_t lo = 0, hi = n, k, m = 1;
    int64_t tot[2] = { 0, 0 };

    ck_assert_msg(json_is_array(moves), "moves is not an array: %s", g_out);
    for (k = 0; k < json_array_size(moves); k++) {
        const json_t *mv = json_array_get(moves, k);
        int who = (int)(k % 2);

        ck_assert_msg(lo < hi, "moves go on after the row is empty: %s", g_out);
        if (strcmp(variant, "stone-game") == 0) {
            const char *side = json_string_value(mv);
            ck_assert_msg(side != NULL && (strcmp(side, "L") == 0 || strcmp(side, "R") == 0),
                          "move %zu is not \"L\" or \"R\": %s", k, g_out);
            tot[who] += side[0] == 'L' ? p[lo++] : p[--hi];
        } else {
            int64_t x;
            size_t limit = strcmp(variant, "stone-game-ii") == 0 ? 2 * m : 3, t;
            ck_assert_msg(json_is_integer(mv), "move %zu is not an integer: %s", k, g_out);
            x = (int64_t)json_integer_value(mv);
            ck_assert_msg(x >= 1 && (size_t)x <= limit && (size_t)x <= hi - lo,
                          "move %zu takes %" PRId64 ", not allowed: %s", k, x, g_out);
            for (t = 0; t < (size_t)x; t++)
                tot[who] += p[lo++];
            if ((size_t)x > m)
                m = (size_t)x;
        }
    }
    ck_assert_msg(lo == hi, "moves leave stones on the table: %s", g_out);
    *alice = tot[0];
    *bob = tot[1];
}

static void check_moves(const char *variant, const char *key, const int64_t *p, size_t n,
                        const char *answer, int64_t alice, int64_t bob)
{
    struct cairn_buf b = { 0 };
    json_t *j;
    int64_t a, o;
    size_t i;

    ck_assert_int_eq(cairn_buf_printf(&b, "{\"variant\":\"%s\",\"input\":{\"%s\":[", variant, key),
                     0);
    for (i = 0; i < n; i++)
        ck_assert_int_eq(cairn_buf_printf(&b, "%s%" PRId64, i ? "," : "", p[i]), 0);
    ck_assert_int_eq(cairn_buf_puts(&b, "]},\"options\":{\"moves\":true}}"), 0);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    j = run(b.data);
    expect_ok(j, variant, answer, alice, bob);
    replay(variant, p, n, json_object_get(j, "moves"), &a, &o);
    ck_assert_msg(a == alice && o == bob,
                  "the line of play gives %" PRId64 "/%" PRId64 ", not the optimal %" PRId64
                  "/%" PRId64 ": %s",
                  a, o, alice, bob, g_out);
    json_decref(j);
    cairn_buf_free(&b);
}

/* An error in the options keeps the variant, which was readable, on the
 * error line, as every other error after the variant does. */
START_TEST(test_options_errors_keep_the_variant)
{
    static const char *const opts[] = { "{\"play\":1}", "{\"analysis\":1}", "{\"moves\":1}",
                                        "{\"limits\":\"huge\"}", "{\"colour\":1}" };
    size_t i;

    for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++) {
        json_t *j = runf("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
                         "\"options\":%s}",
                         opts[i]);

        expect_error(j, "bad_record", "options", NULL);
        ck_assert_msg(json_is_string(json_object_get(j, "variant")) &&
                          strcmp(json_string_value(json_object_get(j, "variant")), "stone-game") ==
                              0,
                      "options %s: no variant on the error line: %s", opts[i], g_out);
        json_decref(j);
    }
}
END_TEST

/* Errors in the record's shape (input missing or not an object, an id
 * that is not a scalar) keep a readable variant on the error line too,
 * and are counted under it (docs/contract.md: "whenever they were
 * readable"); an unknown variant is not named. */
START_TEST(test_shape_errors_keep_the_variant)
{
    static const char *const lines[] = {
        "{\"id\":\"x\",\"variant\":\"stone-game\"}",
        "{\"id\":\"y\",\"variant\":\"877\",\"input\":[1]}",
        "{\"id\":[1],\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}",
    };
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    const struct cairn_plugin_handle *h = cairn_registry_find(&g_reg, "stone-game");
    struct cairn_tally t;
    size_t i;
    json_t *j;

    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
        j = run_ctx(&c, 1, lines[i], strlen(lines[i]), &t);
        expect_error(j, "bad_record", NULL, NULL);
        ck_assert_msg(json_is_string(json_object_get(j, "variant")) &&
                          strcmp(json_string_value(json_object_get(j, "variant")), "stone-game") ==
                              0,
                      "%s: no variant on the error line: %s", lines[i], g_out);
        json_decref(j);
    }
    ck_assert_uint_eq(t.variant_err[h - g_reg.plugins], 3);
    j = run("{\"variant\":\"nope\",\"input\":{}}");
    expect_error(j, "unknown_variant", NULL, NULL);
    ck_assert_msg(json_object_get(j, "variant") == NULL, "an unknown variant named: %s", g_out);
    json_decref(j);
    cairn_tally_free(&t);
}
END_TEST

/* An expected answer of the wrong type fails the record before it is
 * solved: no solve is counted for it in the per-record histogram. */
START_TEST(test_expected_wrong_type_spends_no_solve)
{
    static const char line[] = "{\"variant\":\"stone-game-vii\",\"input\":{\"stones\":[5,3,1,4,"
                               "2]},\"expected\":\"six\"}";
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    const struct cairn_plugin_handle *h = cairn_registry_find(&g_reg, "stone-game-vii");
    struct cairn_tally t;
    uint64_t solves = 0;
    size_t k;
    json_t *j;

    ck_assert_ptr_nonnull(h);
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    j = run_ctx(&c, 1, line, strlen(line), &t);
    expect_error(j, "bad_record", "expected", NULL);
    json_decref(j);
    for (k = 0; k < CAIRN_SOLVE_BUCKETS; k++)
        solves += t.variant_hist[(size_t)(h - g_reg.plugins) * CAIRN_SOLVE_BUCKETS + k];
    ck_assert_uint_eq(solves, 0);
    cairn_tally_free(&t);
}
END_TEST

/* A value no limits allow (below every minimum) is a constraint under
 * both, without a hint that extended limits would help; over the official
 * maximum only, the hint is there. */
START_TEST(test_below_every_minimum_is_a_constraint_without_a_false_hint)
{
    static const struct {
        const char *line, *code;
        int hint;
    } cases[] = {
        { "{\"variant\":\"stone-game-iv\",\"input\":{\"n\":-1}}", "constraint", 0 },
        { "{\"variant\":\"stone-game-iv\",\"input\":{\"n\":-1},\"options\":{\"limits\":"
          "\"extended\"}}",
          "constraint", 0 },
        { "{\"variant\":\"stone-game-v\",\"input\":{\"stoneValue\":[0,1]}}", "constraint", 0 },
        { "{\"variant\":\"stone-game-v\",\"input\":{\"stoneValue\":[0,1]},\"options\":{"
          "\"limits\":\"extended\"}}",
          "constraint", 0 },
        { "{\"variant\":\"stone-game-iv\",\"input\":{\"n\":0}}", "constraint", 1 },
        { "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,1001]}}", "constraint",
          1 },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *j = run(cases[i].line);
        const char *msg =
            json_string_value(json_object_get(json_object_get(j, "error"), "message"));

        expect_error(j, cases[i].code, NULL);
        ck_assert_msg(msg != NULL &&
                          (strstr(msg, "lifts the official limits") != NULL) == cases[i].hint,
                      "%s: %s", cases[i].line, g_out);
        json_decref(j);
    }
}
END_TEST

START_TEST(test_options_moves)
{
    static const int64_t sg[] = { 5, 3, 4, 5 }, sg2[] = { 2, 7, 9, 4, 4 }, sg3[] = { 1, 2, 3, 7 },
                         sg3b[] = { 1, 2, 3, -9 };
    json_t *j;

    check_moves("stone-game", "piles", sg, 4, "true", 9, 8);
    check_moves("stone-game-ii", "piles", sg2, 5, "10", 10, 16);
    check_moves("stone-game-iii", "stoneValue", sg3, 4, "\"Bob\"", 6, 7);
    check_moves("stone-game-iii", "stoneValue", sg3b, 4, "\"Alice\"", 6, -9);

    /* stone-game moves are strings, the others numbers. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
            "\"options\":{\"moves\":true}}");
    ck_assert_uint_eq(json_array_size(json_object_get(j, "moves")), 4);
    ck_assert(json_is_string(json_array_get(json_object_get(j, "moves"), 0)));
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},"
            "\"options\":{\"moves\":true}}");
    ck_assert(json_is_integer(json_array_get(json_object_get(j, "moves"), 0)));
    json_decref(j);

    /* moves false (or absent): no "moves" key. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
            "\"options\":{\"moves\":false}}");
    expect_ok(j, "stone-game", "true", 9, 8);
    expect_no(j, "moves");
    json_decref(j);

    /* moves together with expected and id. */
    j = run("{\"id\":7,\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,6]},"
            "\"expected\":\"Tie\",\"options\":{\"moves\":true,\"limits\":\"official\"}}");
    expect_ok(j, "stone-game-iii", "\"Tie\"", 6, 6);
    expect_id(j, "7");
    expect_json(json_object_get(j, "match"), "true", "match");
    ck_assert(json_is_array(json_object_get(j, "moves")));
    json_decref(j);
}
END_TEST

START_TEST(test_options_moves_longer_rows)
{
    int64_t p[40];
    size_t i;
    json_t *j;

    /* Moves must be one optimal line: replaying them reproduces alice/bob. */
    for (i = 0; i < 40; i++)
        p[i] = (int64_t)((i * 37 + 11) % 23) + 1;
    p[39] += (p[0] % 2 == 0); /* keep stone-game's sum odd below */
    {
        int64_t s = 0;
        for (i = 0; i < 40; i++)
            s += p[i];
        if (s % 2 == 0)
            p[0]++;
    }
    for (i = 0; i < 3; i++) {
        static const char *const v[] = { "stone-game", "stone-game-ii", "stone-game-iii" };
        static const char *const k[] = { "piles", "piles", "stoneValue" };
        struct cairn_buf b = { 0 };
        int64_t a, o;
        size_t x;

        ck_assert_int_eq(
            cairn_buf_printf(&b, "{\"variant\":\"%s\",\"input\":{\"%s\":[", v[i], k[i]), 0);
        for (x = 0; x < 40; x++)
            ck_assert_int_eq(cairn_buf_printf(&b, "%s%" PRId64, x ? "," : "", p[x]), 0);
        ck_assert_int_eq(cairn_buf_puts(&b, "]},\"options\":{\"moves\":true}}"), 0);
        ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
        j = run(b.data);
        ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "ok");
        replay(v[i], p, 40, json_object_get(j, "moves"), &a, &o);
        ck_assert_msg(a == int_field(j, "alice") && o == int_field(j, "bob"),
                      "replayed %" PRId64 "/%" PRId64 " differs from %s", a, o, g_out);
        json_decref(j);
        cairn_buf_free(&b);
    }
}
END_TEST

START_TEST(test_options_limits_extended)
{
    json_t *j;

    /* stone-game: odd length, zeros and negatives, a single pile, a tie. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[1,2,3]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game", "true", 4, 2);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[0,-5,3,0]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game", "true", 3, -5);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[7]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game", "true", 7, 0);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[2,2]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game", "false", 2, 2); /* a tie is not "strictly ahead" */
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[-1,-2,-3]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game", "false", -4, -2);
    json_decref(j);

    /* stone-game-ii: zero and negatives, n = 1. */
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[-3,0,5]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game-ii", "-3", -3, 5);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[0]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game-ii", "0", 0, 0);
    json_decref(j);

    /* stone-game-iii: values past the official 1000, n = 1. */
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[5000,-2000,0]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game-iii", "\"Alice\"", 5000, -2000);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[-7]},"
            "\"options\":{\"limits\":\"extended\"}}");
    expect_ok(j, "stone-game-iii", "\"Bob\"", -7, 0);
    json_decref(j);

    /* The same records under the official limits are refused. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[1,2,3]}}");
    expect_error(j, "constraint", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[7]},"
            "\"options\":{\"limits\":\"official\"}}");
    expect_error(j, "constraint", "piles", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[-3,0,5]}}");
    expect_error(j, "constraint", "piles[0]", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[5000,-2000,0]}}");
    expect_error(j, "constraint", "stoneValue[0]", "1000", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_default_limits_from_ctx)
{
    struct cairn_record_ctx ext = ctx_make(CAIRN_LIMITS_EXTENDED, NULL);
    const char *odd = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[1,2,3]}}";
    const char *odd_off = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[1,2,3]},"
                          "\"options\":{\"limits\":\"official\"}}";
    json_t *j = run_ctx(&ext, 1, odd, strlen(odd), NULL);

    expect_ok(j, "stone-game", "true", 4, 2);
    json_decref(j);
    j = run_ctx(&ext, 2, odd_off, strlen(odd_off), NULL);
    expect_error(j, "constraint", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_default_variant)
{
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, "stone-game-iii");
    struct cairn_record_ctx a = ctx_make(CAIRN_LIMITS_OFFICIAL, "1406");
    const char *in = "{\"input\":{\"stoneValue\":[1,2,3,7]}}";
    const char *named = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
    json_t *j = run_ctx(&c, 1, in, strlen(in), NULL);

    expect_ok(j, "stone-game-iii", "\"Bob\"", 6, 7);
    json_decref(j);
    j = run_ctx(&a, 1, in, strlen(in), NULL);
    expect_ok(j, "stone-game-iii", "\"Bob\"", 6, 7);
    json_decref(j);
    /* A record's own variant wins over the default. */
    j = run_ctx(&c, 1, named, strlen(named), NULL);
    expect_ok(j, "stone-game", "true", 9, 8);
    json_decref(j);
    /* No default: the variant is required. */
    j = run(in);
    expect_error(j, "bad_record", "variant", NULL);
    json_decref(j);
}
END_TEST

/* ------------------------------------------------------------------ */
/* Error codes                                                         */
/* ------------------------------------------------------------------ */

START_TEST(test_bad_json_not_json)
{
    json_t *j = run("this is not json");
    expect_error(j, "bad_json", "column", NULL);
    expect_no(j, "variant");
    expect_no(j, "id");
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}");
    expect_error(j, "bad_json", "column", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}} trailing");
    expect_error(j, "bad_json", "column", NULL);
    json_decref(j);
    j = run("{'variant':'stone-game'}");
    expect_error(j, "bad_json", "column", NULL);
    json_decref(j);
}
END_TEST

/* jansson's syntax errors in a record's words: a byte that is not UTF-8
 * is named at its own column, counted from 1 (jansson names the character
 * before it); the end of input is the end of the line; jansson's flag
 * names stay out of the message. */
START_TEST(test_bad_json_messages_name_the_right_column)
{
    json_t *j = run("\xff");
    expect_error(j, "bad_json", "column 1: ", "0xff", NULL);
    json_decref(j);
    j = run("{\"id\":\"abc\xff\"}");
    expect_error(j, "bad_json", "column 11: ", NULL);
    json_decref(j);
    j = run("{\"id\":1");
    expect_error(j, "bad_json", "at the end of the line", NULL);
    ck_assert_msg(strstr(g_out, "end of file") == NULL, "a line is not a file: %s", g_out);
    json_decref(j);
    j = run("{\"id\":\"a\\u0000\"}");
    expect_error(j, "bad_json", "(a NUL character) is not allowed", NULL);
    ck_assert_msg(strstr(g_out, "JSON_ALLOW_NUL") == NULL, "jansson's flag in the message: %s",
                  g_out);
    json_decref(j);
}
END_TEST

START_TEST(test_bad_json_invalid_utf8)
{
    json_t *j =
        run("{\"id\":\"\xff\xfe\",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}");
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    /* An overlong encoding and a lone continuation byte. */
    j = run("{\"variant\":\"stone-game\xc0\xaf\",\"input\":{}}");
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"pil\x80\":[1]}}");
    expect_error(j, "bad_json", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_bad_json_nul_byte)
{
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    static const char in1[] = "{\"variant\":\"stone-game\",\0\"input\":{\"piles\":[5,3,4,5]}}";
    static const char in2[] =
        "{\"id\":\"a\0b\",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
    static const char in3[] = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\0";
    static const char in4[] =
        "{\"id\":\"a\\u0000b\",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
    json_t *j;

    j = run_ctx(&c, 1, in1, sizeof(in1) - 1, NULL);
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    j = run_ctx(&c, 1, in2, sizeof(in2) - 1, NULL);
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    j = run_ctx(&c, 1, in3, sizeof(in3) - 1, NULL);
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    /* A raw NUL right after a number or a literal, where a parser that
     * stops at it would see a valid record. */
    {
        static const char in5[] =
            "{\"id\":123\0,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
        static const char in6[] =
            "{\"id\":true\0,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
        static const char in7[] = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5\0]}}";

        j = run_ctx(&c, 1, in5, sizeof(in5) - 1, NULL);
        expect_error(j, "bad_json", "NUL", NULL);
        json_decref(j);
        j = run_ctx(&c, 1, in6, sizeof(in6) - 1, NULL);
        expect_error(j, "bad_json", "NUL", NULL);
        json_decref(j);
        j = run_ctx(&c, 1, in7, sizeof(in7) - 1, NULL);
        expect_error(j, "bad_json", "NUL", NULL);
        json_decref(j);
    }
    /* An escaped NUL is valid JSON, but not a string the core can hold. */
    j = run_ctx(&c, 1, in4, sizeof(in4) - 1, NULL);
    expect_error(j, "bad_json", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_bad_json_nan_and_big_numbers)
{
    json_t *j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,NaN,5]}}");
    expect_error(j, "bad_json", "column", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,Infinity,5]}}");
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,99999999999999999999]}}");
    expect_error(j, "bad_json", "column", NULL);
    json_decref(j);
    /* 2^63 is one past the largest int64. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[9223372036854775808,1]}}");
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    j = run("{\"id\":9223372036854775808,\"variant\":\"stone-game\",\"input\":{\"piles\":[1,2]}}");
    expect_error(j, "bad_json", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_bad_json_deep_nesting)
{
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    size_t n = 100000;
    char *line = malloc(n + 64);
    json_t *j;

    ck_assert_ptr_nonnull(line);
    memset(line, '[', n);
    j = run_ctx(&c, 5, line, n, NULL);
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    /* The same inside a record. */
    memcpy(line, "{\"id\":", 6);
    j = run_ctx(&c, 6, line, n, NULL);
    expect_error(j, "bad_json", NULL);
    json_decref(j);
    free(line);
}
END_TEST

START_TEST(test_bad_json_duplicate_key)
{
    json_t *j = run("{\"variant\":\"stone-game\",\"variant\":\"stone-game-iii\","
                    "\"input\":{\"piles\":[5,3,4,5]}}");
    expect_error(j, "bad_json", "variant", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5],\"piles\":[1,2]}}");
    expect_error(j, "bad_json", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_bad_record)
{
    json_t *j;

    j = run("[1,2,3]");
    expect_error(j, "bad_record", "object", NULL);
    json_decref(j);
    j = run("\"a string\"");
    expect_error(j, "bad_record", "object", NULL);
    json_decref(j);
    j = run("42");
    expect_error(j, "bad_record", "object", NULL);
    json_decref(j);
    j = run("null");
    expect_error(j, "bad_record", "object", NULL);
    json_decref(j);
    j = run("{\"variant\":877,\"input\":{\"piles\":[5,3,4,5]}}");
    expect_error(j, "bad_record", "variant", NULL);
    json_decref(j);
    j = run("{\"variant\":null,\"input\":{\"piles\":[5,3,4,5]}}");
    expect_error(j, "bad_record", "variant", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\"}");
    expect_error(j, "bad_record", "input", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":[5,3,4,5]}");
    expect_error(j, "bad_record", "input", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":\"piles\"}");
    expect_error(j, "bad_record", "input", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":5}");
    expect_error(j, "bad_record", "options", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":[]}");
    expect_error(j, "bad_record", "options", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
            "\"options\":{\"limits\":\"huge\"}}");
    expect_error(j, "bad_record", "options.limits", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
            "\"options\":{\"limits\":1}}");
    expect_error(j, "bad_record", "options.limits", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
            "\"options\":{\"moves\":\"yes\"}}");
    expect_error(j, "bad_record", "options.moves", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
            "\"options\":{\"moves\":1}}");
    expect_error(j, "bad_record", "options.moves", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},"
            "\"options\":{\"fast\":true}}");
    expect_error(j, "bad_record", "fast", NULL);
    json_decref(j);
    j = run("{\"id\":{\"a\":1},\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}");
    expect_error(j, "bad_record", "id", NULL);
    expect_no(j, "id");
    json_decref(j);
    j = run("{\"id\":[1],\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}");
    expect_error(j, "bad_record", "id", NULL);
    expect_no(j, "id");
    json_decref(j);
}
END_TEST

START_TEST(test_unknown_variant)
{
    json_t *j = run("{\"id\":\"u\",\"variant\":\"no-such-game\",\"input\":{\"piles\":[1]}}");
    expect_error(j, "unknown_variant", "no-such-game", NULL);
    expect_id(j, "\"u\"");
    expect_no(j, "variant");
    json_decref(j);
    j = run("{\"variant\":\"9999\",\"input\":{\"piles\":[1]}}");
    expect_error(j, "unknown_variant", "9999", NULL);
    json_decref(j);
    j = run("{\"variant\":\"\",\"input\":{\"piles\":[1]}}");
    expect_error(j, "unknown_variant", NULL);
    json_decref(j);
    /* Names are exact: no case folding. */
    j = run("{\"variant\":\"Stone-Game\",\"input\":{\"piles\":[5,3,4,5]}}");
    expect_error(j, "unknown_variant", "Stone-Game", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_unknown_variant_long_name)
{
    char name[400];
    json_t *j;
    const char *msg;

    memset(name, 'x', sizeof(name) - 1);
    name[sizeof(name) - 1] = '\0';
    j = runf("{\"variant\":\"%s\",\"input\":{}}", name);
    expect_error(j, "unknown_variant", "xxxxxxxxxxxxxxxx", NULL);
    msg = json_string_value(json_object_get(json_object_get(j, "error"), "message"));
    /* The message names it, but need not repeat all of it. */
    ck_assert_uint_lt(strlen(msg), 1024);
    json_decref(j);
}
END_TEST

START_TEST(test_invalid_input)
{
    json_t *j;

    j = run("{\"variant\":\"stone-game\",\"input\":{}}");
    expect_error(j, "invalid_input", "input.piles", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{}}");
    expect_error(j, "invalid_input", "input.stoneValue", NULL);
    json_decref(j);
    /* The other game's field name. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"stoneValue\":[5,3,4,5]}}");
    expect_error(j, "invalid_input", "stoneValue", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"piles\":[1,2,3,7]}}");
    expect_error(j, "invalid_input", "piles", NULL);
    json_decref(j);
    /* An extra field beside the right one. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5],\"extra\":1}}");
    expect_error(j, "invalid_input", "extra", NULL);
    json_decref(j);
    /* Elements that are not integers. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,\"4\",5]}}");
    expect_error(j, "invalid_input", "input.piles[2]", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,2.5,5]}}");
    expect_error(j, "invalid_input", "input.piles[2]", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4.0,5]}}");
    expect_error(j, "invalid_input", "input.piles[2]", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,null]}}");
    expect_error(j, "invalid_input", "input.stoneValue[2]", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[[1],2]}}");
    expect_error(j, "invalid_input", "input.piles[0]", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,true]}}");
    expect_error(j, "invalid_input", "input.piles[1]", NULL);
    json_decref(j);
    /* The array is not an array. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":\"5,3,4,5\"}}");
    expect_error(j, "invalid_input", "input.piles", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":{\"0\":5}}}");
    expect_error(j, "invalid_input", "input.piles", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":7}}");
    expect_error(j, "invalid_input", "input.stoneValue", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_constraint)
{
    char *line;
    json_t *j;

    /* Official length over the maximum, which the message names. */
    line = array_record("stone-game", "piles", 502, 2, 1, NULL);
    j = run(line);
    expect_error(j, "constraint", "input.piles", "500", NULL);
    json_decref(j);
    free(line);
    line = array_record("stone-game-ii", "piles", 101, 1, 1, NULL);
    j = run(line);
    expect_error(j, "constraint", "input.piles", "100", NULL);
    json_decref(j);
    free(line);
    line = array_record("stone-game-iii", "stoneValue", 50001, 1, 1, NULL);
    j = run(line);
    expect_error(j, "constraint", "input.stoneValue", "50000", NULL);
    json_decref(j);
    free(line);

    /* Values out of the official range name the index. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,0]}}");
    expect_error(j, "constraint", "input.piles[3]", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,501,6]}}");
    expect_error(j, "constraint", "input.piles[2]", "500", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,10001]}}");
    expect_error(j, "constraint", "input.piles[1]", "10000", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,-1001]}}");
    expect_error(j, "constraint", "input.stoneValue[2]", "1000", NULL);
    json_decref(j);

    /* Empty arrays are under every minimum length. */
    j = run("{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[]}}");
    expect_error(j, "constraint", "input.piles", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[]},"
            "\"options\":{\"limits\":\"extended\"}}");
    ck_assert_str_eq(json_string_value(json_object_get(j, "status")), "error");
    json_decref(j);

    /* stone-game's cross-field rules. */
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]}}");
    expect_error(j, "constraint", "piles", "odd", NULL);
    json_decref(j);
    j = run("{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,4]}}");
    expect_error(j, "constraint", "piles", "sum", NULL);
    json_decref(j);
}
END_TEST

START_TEST(test_too_large)
{
    static const char *const v[] = { "stone-game", "stone-game-ii", "stone-game-iii" };
    static const char *const k[] = { "piles", "piles", "stoneValue" };
    size_t i;

    for (i = 0; i < 3; i++) {
        const struct cairn_input_decl *d = &plugin(v[i])->desc->inputs[0];
        char want_max[32], want_idx[64];
        char *line;
        json_t *j;

        ck_assert_str_eq(d->name, k[i]);
        /* Over the extended maximum length (a line of max_len + 1 values;
         * skipped when that line would be too big for a unit test). */
        if (d->extended.max_len < 200000) {
            snprintf(want_max, sizeof(want_max), "%zu", d->extended.max_len);
            line = array_record(v[i], k[i], d->extended.max_len + 1, 1, 1,
                                "{\"limits\":\"extended\"}");
            j = run(line);
            expect_error(j, "too_large", k[i], want_max, NULL);
            json_decref(j);
            free(line);
        }
        /* Over the extended maximum value, at index 1. */
        if (d->extended.max_value < INT64_MAX) {
            snprintf(want_idx, sizeof(want_idx), "input.%s[1]", k[i]);
            line = array_record(v[i], k[i], 2, 1, d->extended.max_value + 1,
                                "{\"limits\":\"extended\"}");
            j = run(line);
            expect_error(j, "too_large", want_idx, NULL);
            json_decref(j);
            free(line);
            /* ... and the maximum itself is fine. */
            line =
                array_record(v[i], k[i], 2, 1, d->extended.max_value, "{\"limits\":\"extended\"}");
            j = run(line);
            ck_assert_msg(strcmp(json_string_value(json_object_get(j, "status")), "ok") == 0,
                          "extended max value refused: %s", g_out);
            json_decref(j);
            free(line);
        }
        if (d->extended.min_value > INT64_MIN) {
            snprintf(want_idx, sizeof(want_idx), "input.%s[1]", k[i]);
            line = array_record(v[i], k[i], 2, 1, d->extended.min_value - 1,
                                "{\"limits\":\"extended\"}");
            j = run(line);
            expect_error(j, "too_large", want_idx, NULL);
            json_decref(j);
            free(line);
        }
    }
}
END_TEST

START_TEST(test_record_error_too_large_line)
{
    struct cairn_buf out = { 0 };
    struct cairn_tally t;
    json_t *j;

    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    ck_assert_int_eq(cairn_record_error(12, CAIRN_CODE_TOO_LARGE,
                                        "line is 999 bytes, over max_line_bytes (100)", &out, &t),
                     0);
    ck_assert(out.len > 0 && out.data[out.len - 1] == '\n');
    remember(g_out, sizeof(g_out), out.data, out.len - 1);
    g_in[0] = '\0';
    j = json_loadb(out.data, out.len - 1, JSON_REJECT_DUPLICATES, NULL);
    ck_assert_msg(j != NULL, "not JSON: %s", g_out);
    expect_json(json_object_get(j, "line"), "12", "line");
    expect_error(j, "too_large", "max_line_bytes", "999", NULL);
    expect_no(j, "variant");
    expect_no(j, "id");
    json_decref(j);
    ck_assert_uint_eq(t.records, 1);
    ck_assert_uint_eq(t.ok, 0);
    ck_assert_uint_eq(t.errors[CAIRN_CODE_TOO_LARGE], 1);
    ck_assert_uint_eq(t.variant_err[t.n_variants - 1], 1);
    cairn_buf_free(&out);
    cairn_tally_free(&t);
}
END_TEST

START_TEST(test_code_names)
{
    ck_assert_str_eq(cairn_code_name(CAIRN_CODE_BAD_JSON), "bad_json");
    ck_assert_str_eq(cairn_code_name(CAIRN_CODE_BAD_RECORD), "bad_record");
    ck_assert_str_eq(cairn_code_name(CAIRN_CODE_UNKNOWN_VARIANT), "unknown_variant");
    ck_assert_str_eq(cairn_code_name(CAIRN_CODE_INVALID_INPUT), "invalid_input");
    ck_assert_str_eq(cairn_code_name(CAIRN_CODE_CONSTRAINT), "constraint");
    ck_assert_str_eq(cairn_code_name(CAIRN_CODE_TOO_LARGE), "too_large");
    ck_assert_str_eq(cairn_code_name(CAIRN_CODE_INTERNAL), "internal");
    /* A code out of range names no code of its own. */
    ck_assert_str_eq(cairn_code_name(CAIRN_CODE_COUNT), "internal");
    ck_assert_str_eq(cairn_code_name((enum cairn_code) - 1), "internal");
}
END_TEST

/* ------------------------------------------------------------------ */
/* A plugin that fails as the test says: the host's side of the ABI     */
/* ------------------------------------------------------------------ */

static struct {
    int check_rc, solve_rc;
    const char *check_msg, *solve_msg; /* NULL: leave msg empty */
    int64_t answer;
    size_t n_moves, max_moves, scratch;
} g_script;

static int scripted_check(const struct cairn_problem *p, char *msg, size_t len)
{
    (void)p;
    if (g_script.check_msg != NULL)
        snprintf(msg, len, "%s", g_script.check_msg);
    return g_script.check_rc;
}

static size_t scripted_scratch(const struct cairn_problem *p)
{
    (void)p;
    return g_script.scratch;
}

static size_t scripted_max_moves(const struct cairn_problem *p)
{
    (void)p;
    return g_script.max_moves;
}

static int scripted_solve(const struct cairn_problem *p, struct cairn_result *r, void *scratch,
                          char *msg, size_t len)
{
    (void)p;
    (void)scratch;
    r->answer = g_script.answer;
    r->alice = 2;
    r->bob = 1;
    r->n_moves = g_script.n_moves;
    for (size_t i = 0; i < r->n_moves && i < r->moves_cap; i++)
        r->moves[i] = 1;
    if (g_script.solve_msg != NULL)
        snprintf(msg, len, "%s", g_script.solve_msg);
    return g_script.solve_rc;
}

#define SCRIPTED_V                                  \
    {                                               \
        "v", CAIRN_INPUT_INT_ARRAY, { 1, 4, 0, 9 }, \
        {                                           \
            1, 8, 0, 99                             \
        }                                           \
    }
/* One input; nine for a plugin that declares more than the host holds. */
static const struct cairn_input_decl scripted_inputs[9] = {
    SCRIPTED_V, SCRIPTED_V, SCRIPTED_V, SCRIPTED_V, SCRIPTED_V,
    SCRIPTED_V, SCRIPTED_V, SCRIPTED_V, SCRIPTED_V,
};
#undef SCRIPTED_V

static const char *error_message(const json_t *j)
{
    const char *m = json_string_value(json_object_get(json_object_get(j, "error"), "message"));

    ck_assert_msg(m != NULL, "no error message: %s", g_out);
    return m;
}

/* Records for the scripted plugin, answered through a registry put
 * together by hand. */
static json_t *run_scripted(const struct cairn_plugin *d, const char *line)
{
    struct cairn_plugin_handle h = { .desc = d, .path = (char *)"scripted.so" };
    struct cairn_registry reg = { .plugins = &h, .n_plugins = 1 };
    struct cairn_record_ctx c = { .reg = &reg, .default_limits = CAIRN_LIMITS_OFFICIAL };

    return run_ctx(&c, 1, line, strlen(line), NULL);
}

static struct cairn_plugin scripted(enum cairn_answer_kind answer)
{
    struct cairn_plugin d = {
        .abi_major = 1,
        .abi_minor = 2,
        .struct_size = sizeof(struct cairn_plugin),
        .name = "scripted",
        .version = "0",
        .inputs = scripted_inputs,
        .n_inputs = 1,
        .answer_kind = answer,
        .moves_kind = CAIRN_MOVES_COUNT,
        .check = scripted_check,
        .scratch_bytes = scripted_scratch,
        .max_moves = scripted_max_moves,
        .solve = scripted_solve,
        .totals = CAIRN_TOTALS_ALL,
    };

    memset(&g_script, 0, sizeof(g_script));
    return d;
}

/* check() and solve() statuses become the contract's error codes; the plugin's message
 * is kept, and said for it when it left none; a failure that is the
 * plugin's own names it. */
START_TEST(test_plugin_statuses_become_codes)
{
    static const char rec[] = "{\"variant\":\"scripted\",\"input\":{\"v\":[1,2]}}";
    struct cairn_plugin d = scripted(CAIRN_ANSWER_INT);
    json_t *j;

    g_script.check_rc = CAIRN_E_CONSTRAINT;
    j = run_scripted(&d, rec);
    expect_error(j, "constraint", "input breaks a rule of the game", NULL);
    json_decref(j);
    g_script.check_msg = "v must sum to an odd number";
    g_script.check_rc = CAIRN_E_TOO_LARGE;
    j = run_scripted(&d, rec);
    expect_error(j, "too_large", "v must sum to an odd number", NULL);
    ck_assert_str_eq(error_message(j), "v must sum to an odd number");
    json_decref(j);
    g_script.check_rc = CAIRN_E_INTERNAL;
    j = run_scripted(&d, rec);
    ck_assert_str_eq(error_message(j), "scripted: v must sum to an odd number");
    expect_error(j, "internal", NULL);
    json_decref(j);
    g_script.check_msg = NULL;
    g_script.check_rc = 77; /* no status of the ABI */
    j = run_scripted(&d, rec);
    expect_error(j, "internal", NULL);
    ck_assert_str_eq(error_message(j), "scripted: check failed");
    json_decref(j);

    g_script.check_rc = CAIRN_OK;
    g_script.solve_rc = CAIRN_E_CONSTRAINT;
    g_script.solve_msg = "no two equal values";
    j = run_scripted(&d, rec);
    expect_error(j, "constraint", NULL);
    ck_assert_str_eq(error_message(j), "scripted: no two equal values");
    json_decref(j);
    g_script.solve_rc = CAIRN_E_INTERNAL;
    g_script.solve_msg = NULL;
    j = run_scripted(&d, rec);
    expect_error(j, "internal", NULL);
    ck_assert_str_eq(error_message(j), "scripted: solver failed");
    json_decref(j);

    /* No check() at all, no scratch asked for: solved. */
    d.check = NULL;
    g_script.solve_rc = CAIRN_OK;
    g_script.answer = 12;
    j = run_scripted(&d, rec);
    expect_json(j,
                "{\"line\":1,\"variant\":\"scripted\",\"status\":\"ok\",\"answer\":12,"
                "\"alice\":2,\"bob\":1,\"margin\":1}",
                "the result");
    json_decref(j);
}
END_TEST

/* What solve() returns is checked before it is rendered. */
START_TEST(test_impossible_results_are_internal)
{
    struct cairn_plugin d = scripted(CAIRN_ANSWER_WINNER);
    json_t *j;

    g_script.answer = 3;
    j = run_scripted(&d, "{\"variant\":\"scripted\",\"input\":{\"v\":[1]}}");
    expect_error(j, "internal", NULL);
    ck_assert_str_eq(error_message(j), "scripted returned an unknown winner");
    json_decref(j);
    g_script.answer = -1;
    j = run_scripted(&d, "{\"variant\":\"scripted\",\"input\":{\"v\":[1]}}");
    ck_assert_str_eq(error_message(j), "scripted returned an unknown winner");
    json_decref(j);

    g_script.answer = CAIRN_WINNER_TIE;
    g_script.max_moves = 2;
    g_script.n_moves = 3;
    j = run_scripted(
        &d, "{\"variant\":\"scripted\",\"input\":{\"v\":[1]},\"options\":{\"moves\":true}}");
    expect_error(j, "internal", NULL);
    ck_assert_str_eq(error_message(j), "scripted overran its moves buffer");
    json_decref(j);
    /* A game over before it starts: no moves, and none room for. */
    g_script.max_moves = 0;
    g_script.n_moves = 0;
    j = run_scripted(
        &d, "{\"variant\":\"scripted\",\"input\":{\"v\":[1]},\"options\":{\"moves\":true}}");
    expect_json(j,
                "{\"line\":1,\"variant\":\"scripted\",\"status\":\"ok\",\"answer\":\"Tie\","
                "\"alice\":2,\"bob\":1,\"margin\":1,\"moves\":[]}",
                "the result");
    json_decref(j);

    /* More inputs than the host has room for is the plugin's fault. */
    d = scripted(CAIRN_ANSWER_INT);
    d.n_inputs = 9;
    j = run_scripted(&d, "{\"variant\":\"scripted\",\"input\":{\"v\":[1]}}");
    expect_error(j, "internal", NULL);
    ck_assert_str_eq(error_message(j), "plugin scripted declares too many inputs");
    json_decref(j);
}
END_TEST

/* Out of memory anywhere in a record gives the line it would have had,
 * or an internal error line counted as memory (a daemon runs such a job
 * again), or -ENOMEM with nothing half-written when even that line
 * cannot be; never an error blamed on the record.  Tokens stay short:
 * jansson's lexer is not safe past 15 bytes (alloc_fail.h). */
START_TEST(test_out_of_memory_is_the_machines)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    static const char *const lines[] = {
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"id\":0.5,\"expected\":true,"
        "\"options\":{\"moves\":true,\"limits\":\"official\"}}",
        "{\"variant\":\"1406\",\"input\":{\"piles\":[1,2,3,7]},\"id\":\"r1\"}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[\"L\"],"
        "\"analysis\":true}}",
        "[1,2]",
        /* Results past a buffer's first 256 bytes: an answer's moves, and
         * an error line's id.  The plain reader's only: jansson would meet
         * a token past 15 bytes. */
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5,5,3,4,5,5,3,4,5,5,3,4,5,5,3,4,5,5,3,"
        "4,5,5,3,4,5,5,3,4,5,5,3,4,5,5,3,4,5,5,3,4,5,5,3,4,6]},\"options\":{\"moves\":true}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4]},\"id\":\"a-long-id-for-a-long-"
        "line-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-"
        "0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-"
        "0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-0123456789-"
        "0123456789-0123456789-0123456789-0123456789-0123456789-0123456789\"}",
    };
    const size_t for_jansson = 4; /* the lines jansson may read while allocations fail */
    size_t i;
    int fast;

    for (fast = 0; fast < 2; fast++)
        for (i = 0; i < (fast ? sizeof(lines) / sizeof(lines[0]) : for_jansson); i++) {
            struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
            struct cairn_scratch s0 = { 0 };
            struct cairn_buf want = { 0 };
            struct cairn_tally t;
            long n;

            c.no_fast_path = !fast;
            ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
            ck_assert_int_eq(
                cairn_record_process(&c, &s0, 1, lines[i], strlen(lines[i]), &want, &t), 0);
            cairn_scratch_free(&s0);
            /* A new scratch and buffer each time: a grown one would not
             * allocate again. */
            for (n = 1;; n++) {
                struct cairn_scratch s = { 0 };
                struct cairn_buf out = { 0 };
                uint64_t oom = t.out_of_memory;
                int rc, fired;

                th_alloc_fail_at(n);
                rc = cairn_record_process(&c, &s, 1, lines[i], strlen(lines[i]), &out, &t);
                fired = th_alloc_disarm();
                if (rc == -ENOMEM) {
                    ck_assert_msg(fired && out.len == 0, "%s, allocation %ld: -ENOMEM, and %.*s",
                                  lines[i], n, (int)out.len, out.data);
                } else if (out.len != want.len || memcmp(out.data, want.data, want.len) != 0) {
                    ck_assert_int_eq(cairn_buf_append(&out, "", 1), 0);
                    ck_assert_msg(fired && t.out_of_memory == oom + 1 &&
                                      strstr(out.data, "{\"code\":\"internal\",\"message\":\"") &&
                                      strstr(out.data, "memory"),
                                  "%s, allocation %ld failing: %s", lines[i], n, out.data);
                } else {
                    ck_assert_msg(rc == 0 && t.out_of_memory == oom, "%s, allocation %ld", lines[i],
                                  n);
                }
                cairn_buf_free(&out);
                cairn_scratch_free(&s);
                if (!fired)
                    break;
            }
            cairn_buf_free(&want);
            cairn_tally_free(&t);
        }
}
END_TEST

/* ------------------------------------------------------------------ */
/* A member's text (jsontext.c): how an id is echoed as written         */
/* ------------------------------------------------------------------ */

/* The text of key's value in line, or NULL when there is none (freed by
 * the next call). */
static const char *member(const char *line, const char *key)
{
    static char text[256];
    const char *val = NULL;
    size_t n = 0;

    if (!cairn_json_member_text(line, strlen(line), key, &val, &n))
        return NULL;
    ck_assert_msg(val >= line && val + n <= line + strlen(line), "%s: outside the line", line);
    ck_assert_uint_lt(n, sizeof(text));
    memcpy(text, val, n);
    text[n] = '\0';
    return text;
}

START_TEST(test_member_text_finds_the_top_level_member)
{
    static const struct {
        const char *line, *key, *want;
    } cases[] = {
        { "{\"id\":0.10}", "id", "0.10" },
        { " \t\r\n{ \"a\" : 1 ,\r\n\t\"id\"\t:\n 1.50 }", "id", "1.50" },
        { "{\"i\":1,\"idx\":2,\"id\":-0}", "id", "-0" },
        /* Keys are compared decoded, as the parser saw them. */
        { "{\"\\u0069\\u0064\":2e3}", "id", "2e3" },
        { "{\"\\u006a\\u006A\":1}", "jj", "1" },
        { "{\"\\b\\f\\n\\r\\t\\\"\\\\\\/\":1}", "\b\f\n\r\t\"\\/", "1" },
        /* Beyond ASCII never equals an ASCII key. */
        { "{\"id\\u00e9\":1,\"\\u00e9\":2,\"id\":3}", "id", "3" },
        { "{\"\\u0169\\u0164\":1,\"id\":2}", "id", "2" }, /* not 'i' 'd' mod 256 */
        { "{\"id\\u00e9\":1}", "id\xc3\xa9", NULL },
        /* Values of every shape are skipped whole, nested ones unsearched. */
        { "{\"o\":{\"id\":1,\"a\":[1,{\"id\":2}]},\"s\":\"id\\\"}\",\"t\":true,\"n\":null,"
          "\"id\":[1, [2]]}",
          "id", "[1, [2]]" },
        { "{\"id\":{\"k\":\"}\"}, \"x\":1}", "id", "{\"k\":\"}\"}" },
        { "{\"id\":\"a\\\"b\"}", "id", "\"a\\\"b\"" },
        { "{\"a\":false,\"id\":true}", "id", "true" },
        { "{\"o\":{\"id\":1}}", "id", NULL },
        { "{\"ide\":1}", "id", NULL },
        { "{\"i\":1}", "id", NULL },
        { "{}", "id", NULL },
        { " {\t}", "id", NULL },
        { "[{\"id\":1}]", "id", NULL },
        { "", "id", NULL },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *got = member(cases[i].line, cases[i].key);

        if (cases[i].want == NULL)
            ck_assert_msg(got == NULL, "%s: found %s", cases[i].line, got);
        else
            ck_assert_msg(got != NULL && strcmp(got, cases[i].want) == 0, "%s: %s, not %s",
                          cases[i].line, got ? got : "nothing", cases[i].want);
    }
}
END_TEST

/* A line cut anywhere (not what a parser accepts, but what a bug could
 * pass) is never read past its end: each prefix ends at a page that may
 * not be read. */
START_TEST(test_member_text_never_reads_past_the_line)
{
    static const char *const lines[] = {
        "{ \"o\" : {\"a\":[1,\"]\"]}, \"s\\u00e9\\n\" : \"x\\\"\" , \"n\": 12 , \"id\" : 0.5 }",
        "{\"\\u0069d\":[[\"\\\\\"]],\"id\":1}",
    };
    long page = sysconf(_SC_PAGESIZE);
    char *map =
        mmap(NULL, 2 * (size_t)page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    size_t i, n;

    ck_assert_ptr_ne(map, MAP_FAILED);
    ck_assert_int_eq(mprotect(map + page, (size_t)page, PROT_NONE), 0);
    for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        for (n = 0; n <= strlen(lines[i]); n++) {
            char *line = map + page - n;
            const char *val = NULL;
            size_t len = 0;

            memcpy(line, lines[i], n);
            if (cairn_json_member_text(line, n, "id", &val, &len))
                ck_assert_msg(val >= line && val + len <= line + n, "%.*s: outside", (int)n, line);
        }
    /* Whole, the member is found. */
    {
        char *line = map + page - strlen(lines[0]);
        const char *val;
        size_t len;

        memcpy(line, lines[0], strlen(lines[0]));
        ck_assert_int_eq(cairn_json_member_text(line, strlen(lines[0]), "id", &val, &len), 1);
        ck_assert_int_eq((int)len, 3);
        ck_assert_int_eq(memcmp(val, "0.5", 3), 0);
    }
    munmap(map, 2 * (size_t)page);
}
END_TEST

/* Messages name a value's type in words. */
START_TEST(test_json_type_names)
{
    static const struct {
        const char *json, *name;
    } cases[] = {
        { "{}", "an object" },    { "[]", "an array" },       { "\"s\"", "a string" },
        { "1", "an integer" },    { "1.5", "a real number" }, { "true", "a boolean" },
        { "false", "a boolean" }, { "null", "null" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        json_t *v = json_loads(cases[i].json, JSON_DECODE_ANY, NULL);

        ck_assert_ptr_nonnull(v);
        ck_assert_str_eq(cairn_json_type_name(v), cases[i].name);
        json_decref(v);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* Tallies                                                             */
/* ------------------------------------------------------------------ */

/* Solve times land in the histogram's buckets by their upper bounds
 * (le, inclusive), and past the last bound in the last. */
START_TEST(test_solve_buckets_are_inclusive)
{
    ck_assert_uint_eq(cairn_solve_bucket(0), 0);
    ck_assert_uint_eq(cairn_solve_bucket(1000), 0); /* 1 us: le 1e-6 */
    ck_assert_uint_eq(cairn_solve_bucket(1001), 1);
    ck_assert_uint_eq(cairn_solve_bucket(500000), 3);                           /* le 5e-4 */
    ck_assert_uint_eq(cairn_solve_bucket(1000000000), CAIRN_SOLVE_BUCKETS - 2); /* le 1 */
    ck_assert_uint_eq(cairn_solve_bucket(1000000001), CAIRN_SOLVE_BUCKETS - 1);
    ck_assert_uint_eq(cairn_solve_bucket(UINT64_MAX), CAIRN_SOLVE_BUCKETS - 1);
}
END_TEST

/* Tallies of jobs that began under different plugin sets (a SIGHUP in
 * between) add what they share: the per-variant counts up to the shorter,
 * the histograms only when their shapes agree; the totals always. */
START_TEST(test_tallies_of_other_sizes_add_what_they_share)
{
    struct cairn_tally a, b;
    size_t i;

    ck_assert_int_eq(cairn_tally_init(&a, 1), 0); /* 2 variants: one, and "none" */
    ck_assert_int_eq(cairn_tally_init(&b, 2), 0); /* 3 */
    b.records = 7;
    b.errors[CAIRN_CODE_INTERNAL] = 2;
    for (i = 0; i < 3; i++) {
        b.variant_ok[i] = 10 + i;
        b.variant_hist[i * CAIRN_SOLVE_BUCKETS] = 1;
    }
    cairn_tally_add(&a, &b);
    ck_assert_uint_eq(a.records, 7);
    ck_assert_uint_eq(a.errors[CAIRN_CODE_INTERNAL], 2);
    ck_assert_uint_eq(a.variant_ok[0], 10);
    ck_assert_uint_eq(a.variant_ok[1], 11);
    for (i = 0; i < 2 * CAIRN_SOLVE_BUCKETS; i++)
        ck_assert_uint_eq(a.variant_hist[i], 0);
    cairn_tally_add(&b, &a);
    ck_assert_uint_eq(b.records, 14);
    ck_assert_uint_eq(b.variant_ok[1], 22);
    ck_assert_uint_eq(b.variant_ok[2], 12);
    cairn_tally_add(&a, &a); /* the same shape: histograms too */
    ck_assert_uint_eq(a.records, 14);
    cairn_tally_reset(&b);
    ck_assert_uint_eq(b.records, 0);
    ck_assert_uint_eq(b.variant_ok[2], 0);
    ck_assert_uint_eq(b.variant_hist[0], 0);
    ck_assert_uint_eq(b.n_variants, 3);
    cairn_tally_free(&a);
    cairn_tally_free(&b);
}
END_TEST

/* A tally that cannot have its arrays has none, and says -ENOMEM. */
START_TEST(test_tally_out_of_memory)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    long n;

    for (n = 1; n <= 4; n++) {
        struct cairn_tally t;
        int rc;

        th_alloc_fail_at(n);
        rc = cairn_tally_init(&t, 11);
        ck_assert_int_eq(th_alloc_disarm(), 1);
        ck_assert_int_eq(rc, -ENOMEM);
        ck_assert_ptr_null(t.variant_ok);
        ck_assert_ptr_null(t.variant_hist);
        cairn_tally_free(&t); /* still safe */
    }
}
END_TEST

START_TEST(test_tally_counts_a_mix)
{
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    static const char *const lines[] = {
        /* ok, match */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":true}",
        /* ok, mismatch */
        "{\"variant\":\"877\",\"input\":{\"piles\":[3,7,2,3]},\"expected\":false}",
        /* ok */
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}",
        /* ok, match */
        "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},\"expected\":10}",
        "not json",                                                   /* bad_json */
        "{\"a\":",                                                    /* bad_json */
        "[]",                                                         /* bad_record */
        "{\"variant\":\"nope\",\"input\":{}}",                        /* unknown */
        "{\"variant\":\"stone-game\",\"input\":{}}",                  /* invalid */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[1,2,3]}}", /* constraint */
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},"
        "\"expected\":7}", /* bad_record after solving */
        NULL
    };
    struct cairn_tally t, sum;
    struct cairn_buf out = { 0 };
    struct cairn_scratch s = { 0 };
    size_t sg = plugin_index("stone-game"), sg2 = plugin_index("stone-game-ii"),
           sg3 = plugin_index("stone-game-iii"), none = g_reg.n_plugins;
    size_t i;

    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    ck_assert_uint_eq(t.n_variants, g_reg.n_plugins + 1);
    for (i = 0; lines[i] != NULL; i++)
        ck_assert_int_eq(cairn_record_process(&c, &s, i + 1, lines[i], strlen(lines[i]), &out, &t),
                         0);
    ck_assert_int_eq(cairn_record_error(99, CAIRN_CODE_TOO_LARGE, "too long", &out, &t), 0);

    ck_assert_uint_eq(t.records, 12);
    ck_assert_uint_eq(t.ok, 4);
    ck_assert_uint_eq(t.errors[CAIRN_CODE_BAD_JSON], 2);
    ck_assert_uint_eq(t.errors[CAIRN_CODE_BAD_RECORD], 2);
    ck_assert_uint_eq(t.errors[CAIRN_CODE_UNKNOWN_VARIANT], 1);
    ck_assert_uint_eq(t.errors[CAIRN_CODE_INVALID_INPUT], 1);
    ck_assert_uint_eq(t.errors[CAIRN_CODE_CONSTRAINT], 1);
    ck_assert_uint_eq(t.errors[CAIRN_CODE_TOO_LARGE], 1);
    ck_assert_uint_eq(t.errors[CAIRN_CODE_INTERNAL], 0);
    ck_assert_uint_eq(t.matches, 2);
    ck_assert_uint_eq(t.mismatches, 1);
    ck_assert_uint_eq(t.variant_ok[sg], 2);
    ck_assert_uint_eq(t.variant_ok[sg2], 1);
    ck_assert_uint_eq(t.variant_ok[sg3], 1);
    ck_assert_uint_eq(t.variant_ok[none], 0);
    ck_assert_uint_eq(t.variant_err[sg], 2);
    ck_assert_uint_eq(t.variant_err[sg2], 0);
    ck_assert_uint_eq(t.variant_err[sg3], 1);
    ck_assert_uint_eq(t.variant_err[none], 5); /* 2 bad_json, bad_record, unknown, too_large */
    {
        uint64_t errs = 0;
        for (i = 0; i < CAIRN_CODE_COUNT; i++)
            errs += t.errors[i];
        ck_assert_uint_eq(t.ok + errs, t.records);
    }

    /* Adding and resetting. */
    ck_assert_int_eq(cairn_tally_init(&sum, g_reg.n_plugins), 0);
    cairn_tally_add(&sum, &t);
    cairn_tally_add(&sum, &t);
    ck_assert_uint_eq(sum.records, 24);
    ck_assert_uint_eq(sum.errors[CAIRN_CODE_BAD_JSON], 4);
    ck_assert_uint_eq(sum.variant_ok[sg], 4);
    ck_assert_uint_eq(sum.variant_err[none], 10);
    ck_assert_uint_eq(sum.matches, 4);
    cairn_tally_reset(&t);
    ck_assert_uint_eq(t.records, 0);
    ck_assert_uint_eq(t.variant_ok[sg], 0);
    ck_assert_uint_eq(t.n_variants, g_reg.n_plugins + 1);

    cairn_tally_free(&sum);
    cairn_tally_free(&t);
    cairn_buf_free(&out);
    cairn_scratch_free(&s);
}
END_TEST

START_TEST(test_scratch_reused_across_sizes)
{
    /* One scratch for a big record then small ones, as a worker does. */
    struct cairn_record_ctx c = ctx_make(CAIRN_LIMITS_OFFICIAL, NULL);
    struct cairn_scratch s = { 0 };
    struct cairn_buf out = { 0 };
    struct cairn_tally t;
    char *big = array_record("stone-game-iii", "stoneValue", 50000, 1000, -3, "{\"moves\":true}");
    const char *small = "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";
    size_t k;

    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    for (k = 0; k < 3; k++) {
        ck_assert_int_eq(cairn_record_process(&c, &s, 1, big, strlen(big), &out, &t), 0);
        ck_assert_int_eq(cairn_record_process(&c, &s, 2, small, strlen(small), &out, &t), 0);
    }
    ck_assert_uint_eq(t.ok, 6);
    free(big);
    cairn_tally_free(&t);
    cairn_buf_free(&out);
    cairn_scratch_free(&s);
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *record_suite(void)
{
    Suite *s = suite_create("record");
    TCase *tc;

    tc = tcase_create("official_examples");
    tcase_add_test(tc, test_examples_stone_game);
    tcase_add_test(tc, test_examples_stone_game_ii);
    tcase_add_test(tc, test_examples_stone_game_iii);
    tcase_add_test(tc, test_spec_result_line_example);
    tcase_add_test(tc, test_aliases_resolve_to_canonical_name);
    tcase_add_test(tc, test_line_number_echoed);
    tcase_add_test(tc, test_output_is_appended);
    suite_add_tcase(s, tc);

    tc = tcase_create("id_variant_expected");
    tcase_add_test(tc, test_id_echo);
    tcase_add_test(tc, test_id_absent_not_echoed);
    tcase_add_test(tc, test_id_number_echoed_as_written);
    tcase_add_test(tc, test_variant_is_canonical_name);
    tcase_add_test(tc, test_expected_match_bool);
    tcase_add_test(tc, test_expected_match_int);
    tcase_add_test(tc, test_expected_match_winner);
    tcase_add_test(tc, test_expected_wrong_type);
    tcase_add_test(tc, test_expected_but_error_is_unchecked);
    suite_add_tcase(s, tc);

    tc = tcase_create("options");
    tcase_add_test(tc, test_options_moves);
    tcase_add_test(tc, test_options_errors_keep_the_variant);
    tcase_add_test(tc, test_shape_errors_keep_the_variant);
    tcase_add_test(tc, test_expected_wrong_type_spends_no_solve);
    tcase_add_test(tc, test_below_every_minimum_is_a_constraint_without_a_false_hint);
    tcase_add_test(tc, test_options_moves_longer_rows);
    tcase_add_test(tc, test_options_limits_extended);
    tcase_add_test(tc, test_default_limits_from_ctx);
    tcase_add_test(tc, test_default_variant);
    suite_add_tcase(s, tc);

    tc = tcase_create("error_codes");
    tcase_add_test(tc, test_bad_json_not_json);
    tcase_add_test(tc, test_bad_json_messages_name_the_right_column);
    tcase_add_test(tc, test_bad_json_invalid_utf8);
    tcase_add_test(tc, test_bad_json_nul_byte);
    tcase_add_test(tc, test_bad_json_nan_and_big_numbers);
    tcase_add_test(tc, test_bad_json_deep_nesting);
    tcase_add_test(tc, test_bad_json_duplicate_key);
    tcase_add_test(tc, test_bad_record);
    tcase_add_test(tc, test_unknown_variant);
    tcase_add_test(tc, test_unknown_variant_long_name);
    tcase_add_test(tc, test_invalid_input);
    tcase_add_test(tc, test_constraint);
    tcase_add_test(tc, test_too_large);
    tcase_add_test(tc, test_record_error_too_large_line);
    tcase_add_test(tc, test_code_names);
    tcase_add_test(tc, test_buf_int_matches_printf);
    suite_add_tcase(s, tc);

    tc = tcase_create("plugin_failures");
    tcase_add_test(tc, test_plugin_statuses_become_codes);
    tcase_add_test(tc, test_impossible_results_are_internal);
    tcase_add_test(tc, test_out_of_memory_is_the_machines);
    suite_add_tcase(s, tc);

    tc = tcase_create("json_text");
    tcase_add_test(tc, test_member_text_finds_the_top_level_member);
    tcase_add_test(tc, test_member_text_never_reads_past_the_line);
    tcase_add_test(tc, test_json_type_names);
    suite_add_tcase(s, tc);

    tc = tcase_create("tally");
    tcase_add_test(tc, test_tally_counts_a_mix);
    tcase_add_test(tc, test_solve_buckets_are_inclusive);
    tcase_add_test(tc, test_tallies_of_other_sizes_add_what_they_share);
    tcase_add_test(tc, test_tally_out_of_memory);
    tcase_add_test(tc, test_scratch_reused_across_sizes);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    int failed, rc;

    g_plugin_dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_plugin_dir == NULL || g_plugin_dir[0] == '\0') {
        fprintf(stderr, "test_record: CAIRN_TEST_PLUGIN_DIR is not set: it must name the "
                        "folder holding the plugins (meson test sets it)\n");
        return EXIT_FAILURE;
    }
    rc = cairn_registry_load(&g_reg, g_plugin_dir);
    if (rc != 0 || g_reg.n_plugins < 3) {
        size_t i;
        fprintf(stderr, "test_record: cairn_registry_load(%s) returned %d, %zu plugin(s):\n",
                g_plugin_dir, rc, g_reg.n_plugins);
        for (i = 0; i < g_reg.n_errors; i++)
            fprintf(stderr, "  %s\n", g_reg.errors[i]);
        return EXIT_FAILURE;
    }

    failed = th_run_suite(record_suite(), CK_NORMAL, 1);
    cairn_registry_free(&g_reg);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
