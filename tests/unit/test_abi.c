/*
 * test_abi.c - plugin ABI 1.1 on the record path, and 1.0 binaries served
 * exactly as before.
 *
 * The registry is a plugin directory made by main(): copies of every real
 * plugin ($CAIRN_TEST_PLUGIN_DIR) and of the ABI test plugins
 * ($CAIRN_TEST_ABI_PLUGIN_DIR, tests/plugins/abi_plugins/): front-one-or-two, built
 * against the frozen 1.0 header, and count-down (scalar inputs, no totals),
 * pick-any (arrays of equal length, index moves, margin only), split-keep
 * (split moves, Alice's total only), built against the 1.1 header.  Every
 * line goes through both record readers (the plain-record reader and
 * jansson), which must give the same bytes.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fastparse.h"
#include "harness.h"
#include "plugin_loader.h"
#include "record.h"
#include "util.h"

static char root_dir[] = "/tmp/cairn-test-abi-XXXXXX";
static char g_plugins[PATH_MAX]; /* the plugin directory main() made */
static struct cairn_registry g_reg;

/* ---- running records --------------------------------------------------- */

/* One line through one reader; the result line without its '\n'. */
static char *process_one(const char *line, enum cairn_limits limits, int no_fast_path)
{
    struct cairn_record_ctx ctx = { .reg = &g_reg,
                                    .default_limits = limits,
                                    .no_fast_path = no_fast_path };
    struct cairn_scratch s = { 0 };
    struct cairn_buf out = { 0 };
    struct cairn_tally t;
    char *text;

    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    ck_assert_int_eq(cairn_record_process(&ctx, &s, 1, line, strlen(line), &out, &t), 0);
    ck_assert_msg(out.len > 0 && out.data[out.len - 1] == '\n', "no newline for %s", line);
    text = strndup(out.data, out.len - 1);
    ck_assert_ptr_nonnull(text);
    cairn_tally_free(&t);
    cairn_scratch_free(&s);
    cairn_buf_free(&out);
    return text;
}

/* Whether the plain-record reader takes the line (else jansson does). */
static int fast_takes(const char *line)
{
    struct cairn_scratch s = { 0 };
    struct cairn_fast_rec f;
    int rc = cairn_fast_parse(line, strlen(line), &f, &s);

    cairn_scratch_free(&s);
    ck_assert_int_ge(rc, 0);
    return rc;
}

/* Both readers must give `want` (a result line for line 1) for `line`. */
static void expect_limits(const char *line, enum cairn_limits limits, const char *want)
{
    char *fast = process_one(line, limits, 0);
    char *slow = process_one(line, limits, 1);

    ck_assert_msg(strcmp(slow, want) == 0, "for %s\n  want    %s\n  jansson %s", line, want, slow);
    ck_assert_msg(strcmp(fast, want) == 0, "for %s\n  want    %s\n  fast    %s", line, want, fast);
    free(fast);
    free(slow);
}

static void expect(const char *line, const char *want)
{
    expect_limits(line, CAIRN_LIMITS_OFFICIAL, want);
}

/* The error line cairnd writes for line 1 of variant v. */
static char *error_line(const char *variant, const char *code, const char *message)
{
    json_t *m = json_string(message);
    char *quoted = json_dumps(m, JSON_ENCODE_ANY);
    char *line = th_xasprintf("{\"line\":1,\"variant\":\"%s\",\"status\":\"error\",\"error\":"
                              "{\"code\":\"%s\",\"message\":%s}}",
                              variant, code, quoted);

    free(quoted);
    json_decref(m);
    return line;
}

static void expect_error_limits(const char *line, enum cairn_limits limits, const char *variant,
                                const char *code, const char *message)
{
    char *want = error_line(variant, code, message);

    expect_limits(line, limits, want);
    free(want);
}

static void expect_error(const char *line, const char *variant, const char *code,
                         const char *message)
{
    expect_error_limits(line, CAIRN_LIMITS_OFFICIAL, variant, code, message);
}

/* ---- a 1.0 binary, served as a 1.0 host served it ----------------------- */

/* Lines and the results a 1.0 cairnd (commit 11b74ce, before the 1.1
 * header) wrote for them with front_one_or_two.so, byte for byte. */
static const char *const v10_in[] = {
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[1,2,3,7]},\"id\":\"a\"}",
    "{\"variant\":\"take12\",\"input\":{\"stones\":[3,-1,-1,5]},\"options\":{\"moves\":true}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[1,1]},\"expected\":\"Tie\","
    "\"options\":{\"moves\":true}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[-5,4,-3,2,-1]},\"id\":4,\"options\":{"
    "\"moves\":true}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[1001]}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[1001]},\"options\":{\"limits\":"
    "\"extended\"}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[]}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":7}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[1,\"x\"]}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[1],\"n\":2}}",
    "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"moves\":"
    "true}}",
    "{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[2,7,9,4,4]},\"expected\":\"Tie\"}",
};
/* What a 1.0 cairnd wrote, but for one thing the host added since:
 * "expected" beside a mismatch (line 3).  The plugin's part is unchanged. */
static const char *const v10_out[] = {
    "{\"line\":1,\"id\":\"a\",\"variant\":\"front-one-or-two\",\"status\":\"ok\",\"answer\":"
    "\"Alice\",\"alice\":8,\"bob\":5,\"margin\":3}",
    "{\"line\":2,\"variant\":\"front-one-or-two\",\"status\":\"ok\",\"answer\":\"Alice\",\"alice\":"
    "7,\"bob\":-1,\"margin\":8,\"moves\":[1,1,2]}",
    "{\"line\":3,\"variant\":\"front-one-or-two\",\"status\":\"ok\",\"answer\":\"Alice\",\"alice\":"
    "2,\"bob\":0,\"margin\":2,\"match\":false,\"expected\":\"Tie\",\"moves\":[2]}",
    "{\"line\":4,\"id\":4,\"variant\":\"front-one-or-two\",\"status\":\"ok\",\"answer\":\"Bob\","
    "\"alice\":-2,\"bob\":-1,\"margin\":-1,\"moves\":[2,2,1]}",
    "{\"line\":5,\"variant\":\"front-one-or-two\",\"status\":\"error\",\"error\":{\"code\":"
    "\"constraint\",\"message\":\"input.stones[0]: 1001 is over the official maximum 1000 "
    "(options.limits \\\"extended\\\" lifts the official limits)\"}}",
    "{\"line\":6,\"variant\":\"front-one-or-two\",\"status\":\"ok\",\"answer\":\"Alice\",\"alice\":"
    "1001,\"bob\":0,\"margin\":1001}",
    "{\"line\":7,\"variant\":\"front-one-or-two\",\"status\":\"error\",\"error\":{\"code\":"
    "\"constraint\",\"message\":\"input.stones: length 0 is under the minimum 1\"}}",
    "{\"line\":8,\"variant\":\"front-one-or-two\",\"status\":\"error\",\"error\":{\"code\":"
    "\"invalid_input\",\"message\":\"input.stones: expected an array of integers, got an "
    "integer\"}}",
    "{\"line\":9,\"variant\":\"front-one-or-two\",\"status\":\"error\",\"error\":{\"code\":"
    "\"invalid_input\",\"message\":\"input.stones[1]: expected an integer, got a string\"}}",
    "{\"line\":10,\"variant\":\"front-one-or-two\",\"status\":\"error\",\"error\":{\"code\":"
    "\"invalid_input\",\"message\":\"input.stones: missing (front-one-or-two needs it)\"}}",
    "{\"line\":11,\"variant\":\"front-one-or-two\",\"status\":\"error\",\"error\":{\"code\":"
    "\"invalid_input\",\"message\":\"input.n: front-one-or-two takes no such field\"}}",
    "{\"line\":12,\"variant\":\"stone-game-iii\",\"status\":\"ok\",\"answer\":\"Bob\",\"alice\":6,"
    "\"bob\":7,\"margin\":-1,\"moves\":[3,1]}",
    "{\"line\":13,\"variant\":\"front-one-or-two\",\"status\":\"ok\",\"answer\":\"Tie\",\"alice\":"
    "13,\"bob\":13,\"margin\":0,\"match\":true}",
};
#define N_V10 (sizeof(v10_in) / sizeof(v10_in[0]))

START_TEST(abi_1_0_plugin_answers_as_1_0_did)
{
    size_t i;

    ck_assert_uint_eq(N_V10, sizeof(v10_out) / sizeof(v10_out[0]));
    for (i = 0; i < N_V10; i++) {
        /* The golden lines carry their own line numbers: renumber ours. */
        const char *tail = strchr(v10_out[i], ',');
        char *want = th_xasprintf("{\"line\":1%s", tail);

        expect(v10_in[i], want);
        free(want);
    }
}
END_TEST

/* Alice's lead from stone i on, by plain recursion over both choices. */
static int64_t brute_lead(const int64_t *v, size_t n, size_t i)
{
    int64_t best, two;

    if (i == n)
        return 0;
    best = v[i] - brute_lead(v, n, i + 1);
    if (i + 2 <= n && (two = v[i] + v[i + 1] - brute_lead(v, n, i + 2)) > best)
        best = two;
    return best;
}

START_TEST(abi_1_0_plugin_plays_its_game_correctly)
{
    const struct cairn_plugin_handle *h = cairn_registry_find(&g_reg, "front-one-or-two");
    uint64_t seed = 1010;
    int64_t v[12], scratch[16];
    int32_t moves[12];
    size_t round;

    ck_assert_ptr_nonnull(h);
    for (round = 0; round < 3000; round++) {
        size_t n = 1 + th_splitmix64(&seed) % 12, i, at = 0;
        struct cairn_array in = { .v = v, .n = n };
        struct cairn_problem pb = { .inputs = &in, .n_inputs = 1, .want_moves = 1 };
        struct cairn_result res = { .moves = moves, .moves_cap = 12 };
        int64_t total = 0, lead, side[2] = { 0, 0 };
        char msg[128] = "";

        for (i = 0; i < n; i++) {
            v[i] = (int64_t)(th_splitmix64(&seed) % 11) - 5;
            total += v[i];
        }
        lead = brute_lead(v, n, 0);
        ck_assert_uint_le(h->desc->scratch_bytes(&pb), sizeof(scratch));
        ck_assert_uint_le(h->desc->max_moves(&pb), 12);
        ck_assert_int_eq(h->desc->solve(&pb, &res, scratch, msg, sizeof(msg)), CAIRN_OK);
        ck_assert_int_eq(res.alice - res.bob, lead);
        ck_assert_int_eq(res.alice + res.bob, total);
        ck_assert_int_eq(res.answer, lead > 0   ? CAIRN_WINNER_ALICE
                                     : lead < 0 ? CAIRN_WINNER_BOB
                                                : CAIRN_WINNER_TIE);
        /* The line of play takes every stone and scores the totals. */
        for (i = 0; i < res.n_moves; i++) {
            ck_assert(moves[i] == 1 || moves[i] == 2);
            ck_assert_uint_le(at + (size_t)moves[i], n);
            side[i % 2] += v[at] + (moves[i] == 2 ? v[at + 1] : 0);
            at += (size_t)moves[i];
        }
        ck_assert_uint_eq(at, n);
        ck_assert_int_eq(side[0], res.alice);
        ck_assert_int_eq(side[1], res.bob);
    }
}
END_TEST

/* The same lines through `cairnd --filter`, with a plugin directory
 * holding the 1.0 binary beside the 1.1 plugins. */
START_TEST(filter_serves_abi_1_0_plugin_as_before)
{
    char *scratch = th_make_dir_in(root_dir);
    char *cfg = th_xasprintf("%s/cairn.json", scratch);
    char *in_path = th_xasprintf("%s/in.jsonl", scratch);
    struct cairn_buf in = { 0 }, want = { 0 };
    struct th_run r;
    size_t i;

    for (i = 0; i < N_V10; i++) {
        ck_assert_int_eq(cairn_buf_puts(&in, v10_in[i]), 0);
        ck_assert_int_eq(cairn_buf_puts(&in, "\n"), 0);
        ck_assert_int_eq(cairn_buf_puts(&want, v10_out[i]), 0);
        ck_assert_int_eq(cairn_buf_puts(&want, "\n"), 0);
    }
    /* and a 1.1 plugin of each new kind in the same stream */
    ck_assert_int_eq(cairn_buf_puts(&in,
                                    "{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3}}\n"
                                    "{\"variant\":\"split-keep\",\"input\":{\"row\":[7,7,7,7,7,7,7]"
                                    "},\"options\":{\"moves\":true}}\n"),
                     0);
    ck_assert_int_eq(
        cairn_buf_puts(
            &want,
            "{\"line\":14,\"variant\":\"count-down\",\"status\":\"ok\",\"answer\":true}\n"
            "{\"line\":15,\"variant\":\"split-keep\",\"status\":\"ok\",\"answer\":28,\"alice\":28,"
            "\"moves\":[{\"split\":3,\"keep\":\"L\"},{\"split\":1,\"keep\":\"L\"}]}\n"),
        0);
    ck_assert_int_eq(cairn_buf_append(&want, "", 1), 0);
    th_write_file(in_path, in.data, in.len, 0644);
    th_write_text(cfg, "{}\n");

    r = th_run_cairnd_stdin(
        getenv("CAIRN_TEST_CAIRND"), scratch, in_path,
        (const char *const[]){ "--filter", "-c", cfg, "--plugins", g_plugins, NULL });
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strcmp(r.out, want.data) == 0, "stdout:\n%s\nwant:\n%s", r.out, want.data);
    th_run_free(&r);
    cairn_buf_free(&in);
    cairn_buf_free(&want);
    th_rm_tree(scratch);
    free(in_path);
    free(cfg);
    free(scratch);
}
END_TEST

/* ---- scalar inputs ----------------------------------------------------- */

START_TEST(scalar_inputs_are_read)
{
    static const char *const plain[] = {
        "{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"k\":3,\"n\":8},\"options\":{\"moves\":true}}",
    };

    expect(plain[0], "{\"line\":1,\"variant\":\"count-down\",\"status\":\"ok\",\"answer\":true}");
    expect(plain[1], "{\"line\":1,\"variant\":\"count-down\",\"status\":\"ok\",\"answer\":false,"
                     "\"moves\":[1,3,1,3]}");
    expect("{\"variant\":\"bachet\",\"input\":{\"n\":17,\"k\":3},\"expected\":true,"
           "\"options\":{\"moves\":true}}",
           "{\"line\":1,\"variant\":\"count-down\",\"status\":\"ok\",\"answer\":true,"
           "\"match\":true,\"moves\":[1,1,3,1,3,1,3,1,3]}");
    expect_error(" { \"input\" : { \"n\" : -0 , \"k\" : 1 } , \"variant\" : \"count-down\" } ",
                 "count-down", "constraint", "input.n: 0 is below the official minimum 1");
    /* Plain scalar records are the plain reader's, not declined to jansson. */
    ck_assert_int_eq(fast_takes(plain[0]), 1);
    ck_assert_int_eq(fast_takes(plain[1]), 1);
}
END_TEST

START_TEST(scalar_shape_errors_name_the_field)
{
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":[17],\"k\":3}}", "count-down",
                 "invalid_input", "input.n: expected an integer, got an array");
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":[]}}", "count-down",
                 "invalid_input", "input.k: expected an integer, got an array");
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":17.5,\"k\":3}}", "count-down",
                 "invalid_input", "input.n: expected an integer, got a real number");
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":\"17\",\"k\":3}}", "count-down",
                 "invalid_input", "input.n: expected an integer, got a string");
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":null,\"k\":3}}", "count-down",
                 "invalid_input", "input.n: expected an integer, got null");
    expect_error("{\"variant\":\"count-down\",\"input\":{\"k\":3}}", "count-down", "invalid_input",
                 "input.n: missing (count-down needs it)");
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3,\"m\":1}}", "count-down",
                 "invalid_input", "input.m: count-down takes no such field");
    /* and a scalar where an array is declared */
    expect_error("{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":5,\"bobValues\":[1]}}",
                 "pick-any", "invalid_input",
                 "input.aliceValues: expected an array of integers, got an integer");
    expect_error("{\"variant\":\"split-keep\",\"input\":{\"row\":-3}}", "split-keep",
                 "invalid_input", "input.row: expected an array of integers, got an integer");
}
END_TEST

START_TEST(scalar_bounds_are_limits)
{
    const char *over = "{\"variant\":\"count-down\",\"input\":{\"n\":1001,\"k\":3}}";
    const char *far = "{\"variant\":\"count-down\",\"input\":{\"n\":1000001,\"k\":3}}";

    expect_error(over, "count-down", "constraint",
                 "input.n: 1001 is over the official maximum 1000 (options.limits \"extended\" "
                 "lifts the official limits)");
    expect_limits(over, CAIRN_LIMITS_EXTENDED,
                  "{\"line\":1,\"variant\":\"count-down\",\"status\":\"ok\",\"answer\":true}");
    expect_error_limits(far, CAIRN_LIMITS_EXTENDED, "count-down", "too_large",
                        "input.n: 1000001 is over the extended maximum 1000000");
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":0}}", "count-down",
                 "constraint", "input.k: 0 is below the official minimum 1");
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":9223372036854775807,\"k\":1}}",
                 "count-down", "constraint",
                 "input.n: 9223372036854775807 is over the official maximum 1000");
    /* The plugin's own cross-field rule still comes after the bounds. */
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":2,\"k\":3}}", "count-down",
                 "constraint", "input.k: 3 is more than input.n (2)");
}
END_TEST

/* ---- arrays of equal length -------------------------------------------- */

START_TEST(unequal_lengths_name_both_fields)
{
    const char *line = "{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[1,3],"
                       "\"bobValues\":[2,1,5]}}";
    const char *msg = "input.bobValues: length 3 differs from input.aliceValues's length 2";

    expect_error(line, "pick-any", "invalid_input", msg);
    /* Malformed under any limits: not a too_large under extended ones. */
    expect_error_limits(line, CAIRN_LIMITS_EXTENDED, "pick-any", "invalid_input", msg);
    ck_assert_int_eq(fast_takes(line), 1);
    /* Before any bound: the record is malformed whatever its values. */
    expect_error("{\"variant\":\"pick-any\",\"input\":{\"bobValues\":[2],"
                 "\"aliceValues\":[1,300]}}",
                 "pick-any", "invalid_input",
                 "input.bobValues: length 1 differs from input.aliceValues's length 2");
    expect_error("{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[],\"bobValues\":[1]}}",
                 "pick-any", "invalid_input",
                 "input.bobValues: length 1 differs from input.aliceValues's length 0");
    /* A missing second array is missing, not of another length. */
    expect_error("{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[1,3]}}", "pick-any",
                 "invalid_input", "input.bobValues: missing (pick-any needs it)");
    /* Equal lengths pass on to the usual bounds. */
    expect_error("{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[1,300],"
                 "\"bobValues\":[2,1]}}",
                 "pick-any", "constraint",
                 "input.aliceValues[1]: 300 is over the official maximum 100");
}
END_TEST

/* ---- rendering ---------------------------------------------------------- */

START_TEST(only_declared_totals_are_rendered)
{
    /* none: a win/lose game */
    expect("{\"variant\":\"count-down\",\"input\":{\"n\":4,\"k\":3},\"id\":\"x\"}",
           "{\"line\":1,\"id\":\"x\",\"variant\":\"count-down\",\"status\":\"ok\","
           "\"answer\":false}");
    /* the margin only (LeetCode 1686's examples 1 and 3) */
    expect("{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[1,3],\"bobValues\":[2,1]}}",
           "{\"line\":1,\"variant\":\"pick-any\",\"status\":\"ok\",\"answer\":1,\"margin\":1}");
    expect("{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[2,4,3],"
           "\"bobValues\":[1,6,7]},\"expected\":-1}",
           "{\"line\":1,\"variant\":\"pick-any\",\"status\":\"ok\",\"answer\":-1,\"margin\":-1,"
           "\"match\":true}");
    /* Alice's only */
    expect("{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]}}",
           "{\"line\":1,\"variant\":\"split-keep\",\"status\":\"ok\",\"answer\":18,"
           "\"alice\":18}");
    /* all three, in their order, for the plugins that declare them */
    expect("{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]}}",
           "{\"line\":1,\"variant\":\"stone-game-iii\",\"status\":\"ok\",\"answer\":\"Bob\","
           "\"alice\":6,\"bob\":7,\"margin\":-1}");
}
END_TEST

START_TEST(index_and_split_moves_are_rendered)
{
    expect("{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[2,4,3],"
           "\"bobValues\":[1,6,7]},\"options\":{\"moves\":true}}",
           "{\"line\":1,\"variant\":\"pick-any\",\"status\":\"ok\",\"answer\":-1,\"margin\":-1,"
           "\"moves\":[1,2,0]}");
    expect("{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},"
           "\"options\":{\"moves\":true}}",
           "{\"line\":1,\"variant\":\"split-keep\",\"status\":\"ok\",\"answer\":18,\"alice\":18,"
           "\"moves\":[{\"split\":3,\"keep\":\"L\"},{\"split\":1,\"keep\":\"R\"},"
           "{\"split\":2,\"keep\":\"L\"}]}");
    expect("{\"variant\":\"cut-and-keep\",\"input\":{\"row\":[1,8,1,2,2,4]},"
           "\"options\":{\"moves\":true}}",
           "{\"line\":1,\"variant\":\"split-keep\",\"status\":\"ok\",\"answer\":14,\"alice\":14,"
           "\"moves\":[{\"split\":3,\"keep\":\"R\"},{\"split\":5,\"keep\":\"L\"},"
           "{\"split\":4,\"keep\":\"L\"}]}");
    expect("{\"variant\":\"split-keep\",\"input\":{\"row\":[4]},\"options\":{\"moves\":true}}",
           "{\"line\":1,\"variant\":\"split-keep\",\"status\":\"ok\",\"answer\":0,\"alice\":0,"
           "\"moves\":[]}");
}
END_TEST

/* The packing macros of the header, both ways, at the edges. */
START_TEST(split_move_macros_round_trip)
{
    static const int32_t ks[] = { 0, 1, 2, 499, 65535, (1 << 30) - 1 };
    size_t i;
    int right;

    for (i = 0; i < sizeof(ks) / sizeof(ks[0]); i++)
        for (right = 0; right <= 1; right++) {
            int32_t m = CAIRN_MOVE_SPLIT(ks[i], right);
            ck_assert_int_ge(m, 0);
            ck_assert_int_eq(CAIRN_MOVE_SPLIT_AT(m), ks[i]);
            ck_assert_int_eq(CAIRN_MOVE_SPLIT_KEEPS_RIGHT(m), right);
        }
}
END_TEST

/* ---- 1.2: analysis, refused to plugins without it ----------------------- */

START_TEST(analysis_is_refused_to_plugins_without_it)
{
    /* A 1.1 binary (built against the frozen 1.1 header). */
    expect_error("{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3},"
                 "\"options\":{\"analysis\":true}}",
                 "count-down", "bad_record",
                 "options.analysis: plugin count-down offers no analysis (it speaks ABI 1.1; "
                 "analysis needs 1.2 and a plugin that provides analyze())");
    expect_error("{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[1,2],\"bobValues\":[2,1]},"
                 "\"options\":{\"play\":[0]}}",
                 "pick-any", "bad_record",
                 "options.play: plugin pick-any offers no analysis (it speaks ABI 1.1; "
                 "analysis needs 1.2 and a plugin that provides analyze())");
    /* A 1.0 binary. */
    expect_error("{\"variant\":\"front-one-or-two\",\"input\":{\"stones\":[1,2]},"
                 "\"options\":{\"analysis\":false,\"play\":[]}}",
                 "front-one-or-two", "bad_record",
                 "options.play: plugin front-one-or-two offers no analysis (it speaks ABI 1.0; "
                 "analysis needs 1.2 and a plugin that provides analyze())");
    /* A 1.2 plugin that leaves analysis out. */
    expect_error("{\"variant\":\"split-keep\",\"input\":{\"row\":[1,2,3]},"
                 "\"options\":{\"analysis\":true}}",
                 "split-keep", "bad_record",
                 "options.analysis: plugin split-keep offers no analysis (it speaks ABI 1.2; "
                 "analysis needs 1.2 and a plugin that provides analyze())");
    /* analysis false and no play: nothing asked, the record is answered. */
    expect("{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3},"
           "\"options\":{\"analysis\":false}}",
           "{\"line\":1,\"variant\":\"count-down\",\"status\":\"ok\",\"answer\":true}");
    /* The real plugins offer it. */
    expect("{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},"
           "\"options\":{\"analysis\":true}}",
           "{\"line\":1,\"variant\":\"stone-game-iii\",\"status\":\"ok\",\"answer\":\"Bob\","
           "\"alice\":6,\"bob\":7,\"margin\":-1,\"analysis\":[{\"move\":1,\"value\":-11},"
           "{\"move\":2,\"value\":-7},{\"move\":3,\"value\":-1}]}");
    /* The plain reader takes records asking for analysis too, so the
     * refusals above were given by both readers (expect_limits). */
    ck_assert_int_eq(fast_takes("{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3},"
                                "\"options\":{\"analysis\":true}}"),
                     1);
}
END_TEST

/* ---- set-up ------------------------------------------------------------ */

int main(void)
{
    const char *real = getenv("CAIRN_TEST_PLUGIN_DIR");
    const char *abi = getenv("CAIRN_TEST_ABI_PLUGIN_DIR");
    Suite *s = suite_create("abi");
    TCase *tc;
    size_t i;
    int failed;

    if (real == NULL || abi == NULL || getenv("CAIRN_TEST_CAIRND") == NULL) {
        fprintf(stderr, "run through meson test (CAIRN_TEST_* are not set)\n");
        return 2;
    }
    if (mkdtemp(root_dir) == NULL) {
        perror("mkdtemp");
        return 2;
    }
    snprintf(g_plugins, sizeof(g_plugins), "%s/plugins", root_dir);
    if (mkdir(g_plugins, 0755) != 0 || chmod(g_plugins, 0755) != 0 ||
        th_copy_plugins(real, g_plugins) != 0 || th_copy_plugins(abi, g_plugins) != 0) {
        fprintf(stderr, "cannot make the plugin directory %s: %s\n", g_plugins, strerror(errno));
        th_rm_tree(root_dir);
        return 2;
    }
    if (cairn_registry_load(&g_reg, g_plugins) != 0) {
        for (i = 0; i < g_reg.n_errors; i++)
            fprintf(stderr, "%s\n", g_reg.errors[i]);
        th_rm_tree(root_dir);
        return 2;
    }

#define CASE(name, fn)       \
    tc = tcase_create(name); \
    tcase_add_test(tc, fn);  \
    suite_add_tcase(s, tc)

    CASE("an ABI 1.0 plugin answers as 1.0 did", abi_1_0_plugin_answers_as_1_0_did);
    CASE("an ABI 1.0 plugin plays its game correctly", abi_1_0_plugin_plays_its_game_correctly);
    CASE("cairnd --filter serves an ABI 1.0 plugin as before",
         filter_serves_abi_1_0_plugin_as_before);
    CASE("scalar inputs are read", scalar_inputs_are_read);
    CASE("scalar shape errors name the field", scalar_shape_errors_name_the_field);
    CASE("scalar bounds are limits", scalar_bounds_are_limits);
    CASE("unequal lengths name both fields", unequal_lengths_name_both_fields);
    CASE("only declared totals are rendered", only_declared_totals_are_rendered);
    CASE("index and split moves are rendered", index_and_split_moves_are_rendered);
    CASE("split move macros round-trip", split_move_macros_round_trip);
    CASE("analysis is refused to plugins without it", analysis_is_refused_to_plugins_without_it);
#undef CASE

    failed = th_run_suite(s, CK_NORMAL, 1);
    cairn_registry_free(&g_reg);
    th_rm_tree(root_dir);
    return failed == 0 ? 0 : 1;
}
