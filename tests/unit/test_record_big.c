/*
 * test_record_big.c - records as large as the limits allow are answered
 * within the memory budget (record.h, CAIRN_RECORD_MEMORY_PER_BYTE), and
 * an error line keeps the id and variant of a record that could not be
 * read whole: too large for the budget, malformed after them, or longer
 * than max_line_bytes (streamed past, idscan.h).
 *
 * jansson allocates from the arena here, as in cairnd (main installs it),
 * so the budget is enforced as it is for a job.
 */
#include <check.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "arena.h"
#include "idscan.h"
#include "plugin_loader.h"
#include "record.h"
#include "util.h"

static struct cairn_registry g_reg;

/* The last output, for failure messages. */
static char g_out[600];

/* Runs one line through cairn_record_process and parses the result line. */
static json_t *run_line(const char *line, size_t len, const char *def_variant)
{
    struct cairn_record_ctx ctx = { .reg = &g_reg,
                                    .default_limits = CAIRN_LIMITS_OFFICIAL,
                                    .default_variant = def_variant };
    struct cairn_buf out = { 0 };
    struct cairn_scratch s = { 0 };
    struct cairn_tally t;
    json_error_t jerr;
    json_t *j;

    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    ck_assert_int_eq(cairn_record_process(&ctx, &s, 1, line, len, &out, &t), 0);
    ck_assert(out.len > 0 && out.data[out.len - 1] == '\n');
    snprintf(g_out, sizeof(g_out), "%.*s", (int)(out.len - 1), out.data);
    j = json_loadb(out.data, out.len - 1, JSON_REJECT_DUPLICATES, &jerr);
    ck_assert_msg(j != NULL, "result is not JSON: %s", g_out);
    ck_assert_uint_eq(t.records, 1);
    cairn_buf_free(&out);
    cairn_scratch_free(&s);
    cairn_tally_free(&t);
    return j;
}

static const char *str_of(const json_t *j, const char *key)
{
    const char *v = json_string_value(json_object_get(j, key));
    return v != NULL ? v : "(none)";
}

static const char *code_of(const json_t *j)
{
    return str_of(json_object_get(j, "error"), "code");
}

static void expect_status(const json_t *j, const char *status)
{
    ck_assert_msg(strcmp(str_of(j, "status"), status) == 0, "want status %s, got: %s", status,
                  g_out);
}

static void expect_id_variant(const json_t *j, const char *id_json, const char *variant)
{
    json_t *want = id_json != NULL ? json_loads(id_json, JSON_DECODE_ANY, NULL) : NULL;
    const json_t *id = json_object_get(j, "id");

    if (id_json == NULL)
        ck_assert_msg(id == NULL, "want no id, got: %s", g_out);
    else
        ck_assert_msg(id != NULL && json_equal((json_t *)id, want), "want id %s, got: %s", id_json,
                      g_out);
    json_decref(want);
    if (variant == NULL)
        ck_assert_msg(json_object_get(j, "variant") == NULL, "want no variant, got: %s", g_out);
    else
        ck_assert_msg(strcmp(str_of(j, "variant"), variant) == 0, "want variant %s, got: %s",
                      variant, g_out);
}

/* {"id":ID,"variant":V,"input":{KEY:[n values]},"options":{...OPTS}} with
 * values that make a game of many short turns. */
static void put_values(struct cairn_buf *b, size_t n, int positive)
{
    for (size_t i = 0; i < n; i++) {
        int64_t v = (int64_t)((i * 7919) % 2001) - 1000;
        ck_assert_int_eq(
            cairn_buf_printf(b, i ? ",%lld" : "%lld", (long long)(positive ? v + 1001 : v)), 0);
    }
}

/* The moves of a result line with options.moves, as a JSON array text. */
static char *moves_text(const json_t *j)
{
    const json_t *moves = json_object_get(j, "moves");
    char *text;

    ck_assert_msg(json_is_array(moves) && json_array_size(moves) > 0, "no moves: %s", g_out);
    text = json_dumps(moves, JSON_COMPACT);
    ck_assert_ptr_nonnull(text);
    return text;
}

/* A record as large as the extended limits allow, graded against its own
 * optimal line: ok, the whole line optimal.  The play array alone is
 * tens of thousands of small values, which as a jansson tree need more
 * than the record's budget. */
static void grade_own_line(const char *variant, const char *key, size_t n, int positive)
{
    struct cairn_buf b = { 0 };
    char *moves;
    json_t *j, *play;
    size_t head;

    ck_assert_int_eq(cairn_buf_printf(&b, "{\"id\":\"big\",\"variant\":\"%s\",\"input\":{\"%s\":[",
                                      variant, key),
                     0);
    put_values(&b, n, positive);
    ck_assert_int_eq(cairn_buf_puts(&b, "]},\"options\":{\"limits\":\"extended\","), 0);
    head = b.len;
    ck_assert_int_eq(cairn_buf_puts(&b, "\"moves\":true}}"), 0);
    j = run_line(b.data, b.len, NULL);
    expect_status(j, "ok");
    moves = moves_text(j);
    json_decref(j);

    b.len = head;
    ck_assert_int_eq(cairn_buf_printf(&b, "\"analysis\":false,\"play\":%s}}", moves), 0);
    j = run_line(b.data, b.len, NULL);
    expect_status(j, "ok");
    expect_id_variant(j, "\"big\"", variant);
    play = json_object_get(j, "play");
    ck_assert_msg(json_is_true(json_object_get(play, "optimal")), "play not optimal: %s", g_out);
    ck_assert_msg(json_integer_value(json_object_get(play, "plies")) > 1000,
                  "play of too few plies: %s", g_out);
    json_decref(j);
    free(moves);
    cairn_buf_free(&b);
}

START_TEST(sg3_record_graded_against_its_own_line_within_the_budget)
{
    grade_own_line("stone-game-iii", "stoneValue", 200000, 0);
}
END_TEST

START_TEST(sg7_record_graded_against_its_own_side_moves)
{
    const struct cairn_plugin_handle *h = cairn_registry_find(&g_reg, "stone-game-vii");

    ck_assert_ptr_nonnull(h);
    grade_own_line("stone-game-vii", "stones", h->desc->inputs[0].extended.max_len, 1);
}
END_TEST

/* An ignored key holding a long integer array (a results line's moves
 * kept beside the record, say) costs no tree either. */
START_TEST(ignored_integer_array_read_within_the_budget)
{
    struct cairn_buf b = { 0 };
    json_t *j;

    ck_assert_int_eq(cairn_buf_puts(&b, "{\"variant\":\"stone-game-iii\",\"moves\":["), 0);
    put_values(&b, 3000000, 0);
    ck_assert_int_eq(cairn_buf_puts(&b, "],\"note\":[[1,2],\"x\",true,null,[]],"
                                        "\"input\":{\"stoneValue\":[1,2,3,7]},\"id\":3}"),
                     0);
    j = run_line(b.data, b.len, NULL);
    expect_status(j, "ok");
    expect_id_variant(j, "3", "stone-game-iii");
    json_decref(j);
    cairn_buf_free(&b);
}
END_TEST

/* A line of millions of empty objects in an ignored key: too_large, its
 * id and variant kept whether they come before or after the big value. */
START_TEST(too_large_keeps_id_and_variant)
{
    static const char *const heads[] = {
        "{\"id\":\"r1\",\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2]},\"pad\":[",
        "{\"pad\":[",
        "{\"id\":1.50,\"variant\":\"stone-game-iii\",\"pad\":[",
    };
    static const char *const tails[] = {
        "]}",
        "],\"variant\":\"st\\u006fne-game-iii\",\"id\":\"caf\\u00e9\",\"input\":{}}",
        "]}",
    };
    static const char *const ids[] = { "\"r1\"", "\"caf\\u00e9\"", "1.5" };

    for (size_t k = 0; k < 3; k++) {
        struct cairn_buf b = { 0 };
        json_t *j;

        ck_assert_int_eq(cairn_buf_puts(&b, heads[k]), 0);
        for (size_t i = 0; i < 2000000; i++)
            ck_assert_int_eq(cairn_buf_puts(&b, i ? ",{}" : "{}"), 0);
        ck_assert_int_eq(cairn_buf_puts(&b, tails[k]), 0);
        j = run_line(b.data, b.len, NULL);
        ck_assert_msg(strcmp(code_of(j), "too_large") == 0, "want too_large: %s", g_out);
        expect_id_variant(j, ids[k], "stone-game-iii");
        if (k == 2)
            ck_assert_msg(strstr(g_out, "\"id\":1.50,") != NULL, "id not as written: %s", g_out);
        json_decref(j);
        cairn_buf_free(&b);
    }
}
END_TEST

/* Every other error on a line whose id and variant are readable keeps
 * them: malformed JSON after them, a raw NUL; a duplicate or escaped key
 * is not readable. */
START_TEST(errors_before_a_tree_keep_id_and_variant)
{
    static const struct {
        const char *line;
        size_t len; /* 0: strlen */
        const char *code, *id, *variant;
    } cases[] = {
        { "{\"id\":7,\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,}}", 0, "bad_json", "7",
          "stone-game-iii" },
        { "{\"variant\":\"stone-game\",\"id\":-0,\"input\":{\"piles\":[1,2]},\"x\":01}", 0,
          "bad_json", "0", "stone-game" },
        { "{\"id\":\"n\",\"variant\":\"stone-game\",\"input\":{\"piles\":[1,\0 2]}}", 59,
          "bad_json", "\"n\"", "stone-game" },
        { "{\"id\":1,\"id\":2,\"variant\":\"stone-game\",\"input\":{}}", 0, "bad_json", NULL,
          "stone-game" },
        { "{\"\\u0069d\":1,\"variant\":\"stone-game\",\"input\":{},}", 0, "bad_json", NULL, NULL },
        { "{\"id\":[1],\"variant\":\"stone-game\",\"input\":{},}", 0, "bad_json", NULL,
          "stone-game" },
        { "{\"id\":\"\\u00\",\"variant\":\"nope\",\"input\":{},}", 0, "bad_json", NULL, NULL },
    };

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        size_t len = cases[k].len ? cases[k].len : strlen(cases[k].line);
        json_t *j = run_line(cases[k].line, len, NULL);

        ck_assert_msg(strcmp(code_of(j), cases[k].code) == 0, "case %zu: want %s: %s", k,
                      cases[k].code, g_out);
        expect_id_variant(j, cases[k].id, cases[k].variant);
        if (k == 1)
            ck_assert_msg(strstr(g_out, "\"id\":-0,") != NULL, "id not as written: %s", g_out);
        json_decref(j);
    }
}
END_TEST

/* A line the cutter did not keep: its error line carries what the note
 * says of its id and variant (linecut.h), and is counted under that
 * variant; the default one only for a note of a whole object. */
START_TEST(a_line_not_kept_keeps_the_noted_id_and_variant)
{
    static const struct {
        const char *note, *def, *id, *variant;
    } cases[] = {
        { "{\"id\":\"x\",\"variant\":\"877\"}", NULL, "\"x\"", "stone-game" },
        { "{\"id\":2}", "1406", "2", "stone-game-iii" },
        { "{\"id\":2", "1406", "2", NULL },
        { "{\"variant\":\"nope\"}", "1406", NULL, NULL },
        { "", "1406", NULL, NULL },
    };

    for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
        struct cairn_record_ctx ctx = { .reg = &g_reg, .default_variant = cases[k].def };
        const struct cairn_plugin_handle *h =
            cases[k].variant ? cairn_registry_find(&g_reg, cases[k].variant) : NULL;
        struct cairn_buf out = { 0 };
        struct cairn_tally t;
        json_t *j;

        ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
        ck_assert_int_eq(cairn_record_error_noted(&ctx, 3, CAIRN_CODE_TOO_LARGE, "too long",
                                                  cases[k].note, strlen(cases[k].note), &out, &t),
                         0);
        snprintf(g_out, sizeof(g_out), "%.*s", (int)out.len, out.data);
        j = json_loadb(out.data, out.len, JSON_REJECT_DUPLICATES, NULL);
        ck_assert_msg(j != NULL, "not JSON: %s", g_out);
        ck_assert_msg(strcmp(code_of(j), "too_large") == 0, "%s", g_out);
        expect_id_variant(j, cases[k].id, cases[k].variant);
        ck_assert_uint_eq(t.records, 1);
        ck_assert_uint_eq(t.errors[CAIRN_CODE_TOO_LARGE], 1);
        ck_assert_uint_eq(t.variant_err[h ? (size_t)(h - g_reg.plugins) : g_reg.n_plugins], 1);
        json_decref(j);
        cairn_tally_free(&t);
        cairn_buf_free(&out);
    }
}
END_TEST

static Suite *big_suite(void)
{
    Suite *s = suite_create("record_big");
    TCase *tc = tcase_create("within_the_budget");

    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, sg3_record_graded_against_its_own_line_within_the_budget);
    tcase_add_test(tc, sg7_record_graded_against_its_own_side_moves);
    tcase_add_test(tc, ignored_integer_array_read_within_the_budget);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors_keep_id_and_variant");
    tcase_set_timeout(tc, 300);
    tcase_add_test(tc, too_large_keeps_id_and_variant);
    tcase_add_test(tc, errors_before_a_tree_keep_id_and_variant);
    tcase_add_test(tc, a_line_not_kept_keeps_the_noted_id_and_variant);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    const char *dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    int failed;

    if (dir == NULL || dir[0] == '\0') {
        fprintf(stderr, "test_record_big: CAIRN_TEST_PLUGIN_DIR is not set (meson test sets it)\n");
        return EXIT_FAILURE;
    }
    cairn_arena_install(); /* as cairnd's main: the budget is the arena's */
    if (cairn_registry_load(&g_reg, dir) != 0 || g_reg.n_plugins < 11) {
        fprintf(stderr, "test_record_big: cannot load the plugins of %s\n", dir);
        return EXIT_FAILURE;
    }
    failed = th_run_suite(big_suite(), CK_NORMAL, 1);
    cairn_registry_free(&g_reg);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
