/*
 * test_analysis.c - analysis and play grading (ABI 1.2) for all eleven
 * plugins, against the exhaustive per-move values of brute_analysis.c,
 * and through `cairnd --filter` for the rendering and the error lines.
 *
 * The plugins are opened with dlopen from $CAIRN_TEST_PLUGIN_DIR and driven
 * as the host drives them: check() first, a scratch buffer of
 * analysis_scratch_bytes() filled with garbage, a moves buffer of
 * max_legal_moves() entries with a canary after it.  Positions are small
 * and random (splitmix64, a fixed seed per game), with values from narrow
 * ranges so ties are common.  A line of play is drawn move by move, mostly
 * optimal (so long optimal prefixes occur), sometimes any legal move, and
 * sometimes one move is replaced by a random one that may be illegal.
 */
#include <check.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "alloc_fail.h"
#include "analysis.h"
#include "brute_analysis.h"
#include "rng.h"
#include "util.h"
#include "cairn/plugin.h"

#define CHECK_MSG(expr, ...)           \
    do {                               \
        if (!(expr))                   \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

#define CASES_PER_GAME 3000

static const struct cairn_plugin *g_desc[BG_COUNT];
static void *g_dl[BG_COUNT];

/* ---- the plugins --------------------------------------------------------- */

static const struct cairn_plugin *plugin(enum brute_game g)
{
    const char *dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    char path[4096];

    if (g_desc[g] != NULL)
        return g_desc[g];
    ck_assert_msg(dir != NULL, "CAIRN_TEST_PLUGIN_DIR is not set");
    snprintf(path, sizeof(path), "%s/%s.so", dir, brute_game_name(g));
    g_dl[g] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(g_dl[g] != NULL, "dlopen %s: %s", path, dlerror());
    void *sym = dlsym(g_dl[g], CAIRN_PLUGIN_ENTRY_SYMBOL);
    ck_assert_msg(sym != NULL, "%s: no entry symbol", path);
    cairn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof(entry));
    g_desc[g] = entry();
    ck_assert_ptr_nonnull(g_desc[g]);
    ck_assert_uint_eq(g_desc[g]->abi_minor, CAIRN_PLUGIN_ABI_MINOR);
    ck_assert_uint_eq(g_desc[g]->struct_size, sizeof(struct cairn_plugin));
    return g_desc[g];
}

/* A random small position of game g; the inputs of the plugin. */
struct gen {
    int64_t v[BRUTE_MAX_N], w[BRUTE_MAX_N], scalar;
    size_t n;
    struct cairn_array arrays[2];
    struct cairn_problem pb;
};

static void generate(enum brute_game g, struct gen *x)
{
    int64_t lo = -3, hi = 6;
    size_t max_n = 9;

    memset(x, 0, sizeof(*x));
    switch (g) {
    case BG_SG3:
        max_n = 10;
        lo = -5;
        hi = 5;
        break;
    case BG_SG5:
        max_n = 7;
        lo = 1;
        hi = th_rng_range(2, 6);
        break;
    case BG_SG6:
        max_n = 6;
        lo = -3;
        hi = 5;
        break;
    case BG_SG8:
        lo = -5;
        hi = 5;
        break;
    case BG_SG9:
        max_n = 6;
        lo = -5;
        hi = 9;
        break;
    default: break;
    }
    if (g == BG_SG4 || g == BG_SRG) {
        x->scalar = th_rng_range(0, g == BG_SG4 ? 80 : 54);
        x->n = (size_t)x->scalar;
        x->arrays[0] = (struct cairn_array){ .v = &x->scalar, .n = 1 };
        x->pb = (struct cairn_problem){ .inputs = x->arrays,
                                        .n_inputs = 1,
                                        .limits = CAIRN_LIMITS_EXTENDED };
        return;
    }
    x->n = (size_t)th_rng_range(1, (int64_t)max_n);
    for (size_t i = 0; i < x->n; i++) {
        x->v[i] = th_rng_range(lo, hi);
        x->w[i] = th_rng_range(lo, hi);
    }
    x->arrays[0] = (struct cairn_array){ .v = x->v, .n = x->n };
    x->arrays[1] = (struct cairn_array){ .v = x->w, .n = x->n };
    x->pb = (struct cairn_problem){ .inputs = x->arrays,
                                    .n_inputs = g == BG_SG6 ? 2 : 1,
                                    .limits = CAIRN_LIMITS_EXTENDED };
}

static const char *describe(enum brute_game g, const struct gen *x, const int32_t *line, size_t k)
{
    static char buf[2048];
    size_t off = (size_t)snprintf(buf, sizeof(buf), "%s ", brute_game_name(g));

    if (g == BG_SG4 || g == BG_SRG)
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, "n=%" PRId64, x->scalar);
    for (size_t i = 0; i < x->n && g != BG_SG4 && g != BG_SRG; i++)
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%" PRId64, i ? "," : "[", x->v[i]);
    if (g != BG_SG4 && g != BG_SRG)
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, "]");
    for (size_t i = 0; g == BG_SG6 && i < x->n; i++)
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, "%s%" PRId64, i ? "," : " bob [",
                                x->w[i]);
    if (g == BG_SG6)
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, "]");
    off += (size_t)snprintf(buf + off, sizeof(buf) - off, " line");
    for (size_t i = 0; i < k && off < sizeof(buf) - 32; i++)
        off += (size_t)snprintf(buf + off, sizeof(buf) - off, " %" PRId32, line[i]);
    return buf;
}

/* analyze() as the host calls it, with garbage scratch and a canary. */
static int run_analyze(const struct cairn_plugin *d, const struct cairn_problem *pb,
                       const int32_t *line, size_t k, int want_moves, struct cairn_analysis *a,
                       char *msg, size_t msg_len)
{
    size_t bytes = d->analysis_scratch_bytes(pb, k), cap = d->max_legal_moves(pb);
    unsigned char *scratch = malloc(bytes ? bytes : 1);
    struct cairn_move_value *moves = malloc((cap + 1) * sizeof(*moves));
    int rc;

    ck_assert(scratch != NULL && moves != NULL);
    memset(scratch, 0xA5, bytes ? bytes : 1);
    moves[cap] = (struct cairn_move_value){ .move = 0x5EEDF00D, .value = INT64_C(0x5EEDF00D) };
    memset(a, 0, sizeof(*a));
    a->line = line;
    a->n_line = k;
    a->moves = want_moves ? moves : NULL;
    a->moves_cap = want_moves ? cap : 0;
    msg[0] = '\0';
    rc = d->analyze(pb, a, scratch, msg, msg_len);
    ck_assert_msg(moves[cap].move == 0x5EEDF00D && moves[cap].value == INT64_C(0x5EEDF00D),
                  "%s wrote past max_legal_moves() = %zu", d->name, cap);
    free(scratch);
    /* The caller reads a->moves: keep it in a static copy. */
    static struct cairn_move_value kept[BRUTE_MAX_MOVES * 4];
    if (want_moves) {
        ck_assert_uint_le(a->n_moves, cap);
        ck_assert_uint_le(a->n_moves, sizeof(kept) / sizeof(kept[0]));
        memcpy(kept, moves, a->n_moves * sizeof(*moves));
        a->moves = kept;
    }
    free(moves);
    return rc;
}

/* The listing must be exactly the brute force's legal moves, each once,
 * with the brute force's value. */
static void compare_listing(enum brute_game g, const struct brute_pos *pos,
                            const struct cairn_analysis *a, const char *what)
{
    int32_t moves[BRUTE_MAX_MOVES];
    size_t k = brute_moves(pos, moves);

    CHECK_MSG(a->n_moves == k, "%s: %zu legal moves listed, the rules give %zu", what, a->n_moves,
              k);
    for (size_t i = 0; i < k; i++) {
        struct brute_pos q = *pos;
        size_t j, seen = 0;
        brute_play(&q, moves[i]);
        int64_t want = brute_value(&q);
        for (j = 0; j < a->n_moves; j++)
            if (a->moves[j].move == moves[i]) {
                seen++;
                CHECK_MSG(a->moves[j].value == want,
                          "%s: move %" PRId32 " valued %" PRId64 ", brute force %" PRId64, what,
                          moves[i], a->moves[j].value, want);
            }
        CHECK_MSG(seen == 1, "%s: move %" PRId32 " listed %zu times", what, moves[i], seen);
    }
    (void)g;
}

/* A line for pos: mostly optimal moves, some random legal ones, and now
 * and then one random (possibly illegal) move. */
static size_t draw_line(const struct brute_pos *start, int32_t *line, size_t max)
{
    struct brute_pos p = *start;
    size_t k = 0, len = (size_t)th_rng_range(0, (int64_t)max);

    while (k < len) {
        int32_t moves[BRUTE_MAX_MOVES];
        size_t m = brute_moves(&p, moves);
        if (m == 0)
            break;
        int32_t pick = moves[th_rng_next() % m];
        if (th_rng_next() % 10 < 7) {
            int64_t best = brute_value(&p);
            for (size_t i = 0; i < m; i++) {
                struct brute_pos q = p;
                brute_play(&q, moves[i]);
                if (brute_value(&q) == best && th_rng_next() % 2 == 0) {
                    pick = moves[i];
                    break;
                }
            }
        }
        line[k++] = pick;
        brute_play(&p, pick);
    }
    if (k > 0 && th_rng_next() % 5 == 0)
        line[th_rng_next() % k] = (int32_t)th_rng_range(-1, 40);
    if (th_rng_next() % 10 == 0) /* a move after the game may be over */
        line[k++] = (int32_t)th_rng_range(0, 12);
    return k;
}

static void check_game(enum brute_game g, uint64_t seed)
{
    const struct cairn_plugin *d = plugin(g);
    char msg[256];

    ck_assert_msg(d->analyze != NULL, "%s offers no analyze()", d->name);
    ck_assert_int_eq(d->value_kind, (int)brute_value_kind(g));
    th_rng_seed(seed);
    for (int c = 0; c < CASES_PER_GAME; c++) {
        struct gen x;
        struct brute_pos start, p;
        struct cairn_analysis a;
        int32_t line[BRUTE_MAX_MOVES];
        size_t k;
        int rc;

        generate(g, &x);
        if (d->check != NULL && d->check(&x.pb, msg, sizeof(msg)) != CAIRN_OK)
            continue;
        brute_start(&start, g, x.v, x.w, x.n);

        /* analysis: the start position */
        rc = run_analyze(d, &x.pb, NULL, 0, 1, &a, msg, sizeof(msg));
        CHECK_MSG(rc == CAIRN_OK, "%s: analyze failed %d: %s", describe(g, &x, NULL, 0), rc, msg);
        CHECK_MSG(a.ply == 0 && a.best_value == brute_value(&start) &&
                      a.mover == brute_mover(&start),
                  "%s: ply %zu, value %" PRId64 " (brute %" PRId64 ")", describe(g, &x, NULL, 0),
                  a.ply, a.best_value, brute_value(&start));
        compare_listing(g, &start, &a, describe(g, &x, NULL, 0));

        /* play: a line, graded and checked */
        k = draw_line(&start, line, x.n + 2);
        const char *what = describe(g, &x, line, k);
        rc = run_analyze(d, &x.pb, line, k, th_rng_next() % 2, &a, msg, sizeof(msg));
        int want_moves = a.moves != NULL;
        p = start;
        size_t t, bad = k, first = k;
        int64_t first_value = 0, first_best = 0;
        for (t = 0; t < k; t++) {
            struct brute_pos q = p;
            if (brute_play(&q, line[t]) != 0) {
                bad = t;
                break;
            }
            if (first == k && brute_value(&q) != brute_value(&p)) {
                first = t;
                first_value = brute_value(&q);
                first_best = brute_value(&p);
                CHECK_MSG(rc != CAIRN_OK || a.ply != t || a.mover == brute_mover(&p),
                          "%s: mover at ply %zu", what, t);
                /* The best move named must be legal and worth the best. */
                if (rc == CAIRN_OK && a.ply == t) {
                    struct brute_pos b = p;
                    CHECK_MSG(brute_play(&b, a.best) == 0 && brute_value(&b) == first_best,
                              "%s: best move %" PRId32 " is not optimal", what, a.best);
                }
            }
            p = q;
        }
        if (bad < k) {
            CHECK_MSG(rc == CAIRN_E_ILLEGAL && a.bad == bad && msg[0] != '\0',
                      "%s: move %zu is illegal; analyze gave %d, bad %zu, '%s'", what, bad, rc,
                      a.bad, msg);
            continue;
        }
        CHECK_MSG(rc == CAIRN_OK, "%s: analyze failed %d: %s", what, rc, msg);
        CHECK_MSG(a.ply == first, "%s: first non-optimal ply %zu, brute force %zu", what, a.ply,
                  first);
        if (first < k)
            CHECK_MSG(a.value == first_value && a.best_value == first_best,
                      "%s: ply %zu valued %" PRId64 " (best %" PRId64 "), brute %" PRId64
                      " (best %" PRId64 ")",
                      what, first, a.value, a.best_value, first_value, first_best);
        else
            CHECK_MSG(a.best_value == brute_value(&p) && a.mover == brute_mover(&p),
                      "%s: value after the line %" PRId64 ", brute %" PRId64, what, a.best_value,
                      brute_value(&p));
        if (want_moves)
            compare_listing(g, &p, &a, what);
    }
}

#define GAME_TEST(fn, game, seed) \
    START_TEST(fn)                \
    {                             \
        check_game(game, seed);   \
    }                             \
    END_TEST

GAME_TEST(stone_game_matches_brute_force, BG_SG1, 877)
GAME_TEST(stone_game_ii_matches_brute_force, BG_SG2, 1140)
GAME_TEST(stone_game_iii_matches_brute_force, BG_SG3, 1406)
GAME_TEST(stone_game_iv_matches_brute_force, BG_SG4, 1510)
GAME_TEST(stone_game_v_matches_brute_force, BG_SG5, 1563)
GAME_TEST(stone_game_vi_matches_brute_force, BG_SG6, 1686)
GAME_TEST(stone_game_vii_matches_brute_force, BG_SG7, 1690)
GAME_TEST(stone_game_viii_matches_brute_force, BG_SG8, 1872)
GAME_TEST(stone_game_ix_matches_brute_force, BG_SG9, 2029)
GAME_TEST(predict_the_winner_matches_brute_force, BG_PTW, 486)
GAME_TEST(stone_removal_game_matches_brute_force, BG_SRG, 3360)

/* ---- through cairnd --filter ------------------------------------------- */

/* The result lines cairnd --filter writes for the given input. */
static char *filter(const char *input)
{
    const char *cairnd = getenv("CAIRN_TEST_CAIRND"), *dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    char path[] = "/tmp/cairn-test-analysis-XXXXXX", cmd[8192];
    int fd = mkstemp(path);
    size_t len = strlen(input), cap = 1 << 16, n = 0;
    char *out = malloc(cap);
    FILE *f;

    ck_assert(cairnd != NULL && dir != NULL && fd >= 0 && out != NULL);
    ck_assert_int_eq(write(fd, input, len), (ssize_t)len);
    close(fd);
    snprintf(cmd, sizeof(cmd), "'%s' --filter --plugins '%s' < '%s'", cairnd, dir, path);
    f = popen(cmd, "r");
    ck_assert_ptr_nonnull(f);
    for (size_t got; (got = fread(out + n, 1, cap - n - 1, f)) > 0;) {
        n += got;
        if (n + 1 == cap) {
            cap *= 2;
            out = realloc(out, cap);
            ck_assert_ptr_nonnull(out);
        }
    }
    out[n] = '\0';
    ck_assert_int_eq(pclose(f), 0);
    unlink(path);
    return out;
}

static void expect_line(const char *record, const char *want)
{
    char *in = malloc(strlen(record) + 2), *got;

    ck_assert_ptr_nonnull(in);
    sprintf(in, "%s\n", record);
    got = filter(in);
    ck_assert_msg(strlen(got) > 0 && got[strlen(got) - 1] == '\n', "no line for %s", record);
    got[strlen(got) - 1] = '\0';
    ck_assert_msg(strcmp(got, want) == 0, "for %s\n got: %s\nwant: %s", record, got, want);
    free(got);
    free(in);
}

START_TEST(analysis_renders_each_move_kind_and_value_unit)
{
    /* L/R and the final margin. */
    expect_line("{\"variant\":\"stone-game-vii\",\"input\":{\"stones\":[5,3,1,4,2]},"
                "\"options\":{\"analysis\":true}}",
                "{\"line\":1,\"variant\":\"stone-game-vii\",\"status\":\"ok\",\"answer\":6,"
                "\"alice\":18,\"bob\":12,\"margin\":6,\"analysis\":[{\"move\":\"L\",\"value\":3},"
                "{\"move\":\"R\",\"value\":6}]}");
    /* Counts. */
    expect_line("{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},"
                "\"options\":{\"analysis\":true}}",
                "{\"line\":1,\"variant\":\"stone-game-iii\",\"status\":\"ok\",\"answer\":\"Bob\","
                "\"alice\":6,\"bob\":7,\"margin\":-1,\"analysis\":[{\"move\":1,\"value\":-11},"
                "{\"move\":2,\"value\":-7},{\"move\":3,\"value\":-1}]}");
    /* Splits and Alice's total. */
    expect_line("{\"variant\":\"stone-game-v\",\"input\":{\"stoneValue\":[1,1,2]},"
                "\"options\":{\"analysis\":true}}",
                "{\"line\":1,\"variant\":\"stone-game-v\",\"status\":\"ok\",\"answer\":3,"
                "\"alice\":3,\"analysis\":[{\"move\":{\"split\":1,\"keep\":\"L\"},\"value\":1},"
                "{\"move\":{\"split\":2,\"keep\":\"L\"},\"value\":3},"
                "{\"move\":{\"split\":2,\"keep\":\"R\"},\"value\":2}]}");
    /* Stone indices and the winner. */
    expect_line("{\"variant\":\"stone-game-ix\",\"input\":{\"stones\":[2,1,3]},"
                "\"options\":{\"analysis\":true}}",
                "{\"line\":1,\"variant\":\"stone-game-ix\",\"status\":\"ok\",\"answer\":false,"
                "\"analysis\":[{\"move\":0,\"value\":\"Bob\"},{\"move\":1,\"value\":\"Bob\"},"
                "{\"move\":2,\"value\":\"Bob\"}]}");
    /* A finished game has no moves. */
    expect_line("{\"variant\":\"stone-removal-game\",\"input\":{\"n\":3},"
                "\"options\":{\"analysis\":true,\"limits\":\"official\"}}",
                "{\"line\":1,\"variant\":\"stone-removal-game\",\"status\":\"ok\",\"answer\":false,"
                "\"analysis\":[]}");
}
END_TEST

START_TEST(play_grades_the_first_mistake)
{
    expect_line("{\"variant\":\"stone-game\",\"input\":{\"piles\":[3,7,2,3]},"
                "\"options\":{\"play\":[\"L\",\"R\"]}}",
                "{\"line\":1,\"variant\":\"stone-game\",\"status\":\"ok\",\"answer\":true,"
                "\"alice\":10,\"bob\":5,\"margin\":5,\"play\":{\"optimal\":false,\"ply\":0,"
                "\"by\":\"Alice\",\"move\":\"L\",\"value\":-3,\"best\":\"R\",\"best_value\":5,"
                "\"cost\":8}}");
    expect_line("{\"variant\":\"stone-game\",\"input\":{\"piles\":[3,7,2,3]},"
                "\"options\":{\"play\":[\"R\",\"L\",\"L\"],\"moves\":true}}",
                "{\"line\":1,\"variant\":\"stone-game\",\"status\":\"ok\",\"answer\":true,"
                "\"alice\":10,\"bob\":5,\"margin\":5,\"moves\":[\"R\",\"L\",\"L\",\"L\"],"
                "\"play\":{\"optimal\":true,\"plies\":3,\"value\":5}}");
    /* Bob's mistake: the cost is his, so positive though the margin rises. */
    expect_line("{\"variant\":\"stone-game\",\"input\":{\"piles\":[3,7,2,3,4]},"
                "\"options\":{\"limits\":\"extended\",\"play\":[\"R\",\"L\"]}}",
                "{\"line\":1,\"variant\":\"stone-game\",\"status\":\"ok\",\"answer\":false,"
                "\"alice\":9,\"bob\":10,\"margin\":-1,\"play\":{\"optimal\":false,\"ply\":1,"
                "\"by\":\"Bob\",\"move\":\"L\",\"value\":7,\"best\":\"R\",\"best_value\":-1,"
                "\"cost\":8}}");
    /* A won game thrown away costs 1. */
    expect_line("{\"variant\":\"stone-game-iv\",\"input\":{\"n\":1},"
                "\"options\":{\"play\":[]}}",
                "{\"line\":1,\"variant\":\"stone-game-iv\",\"status\":\"ok\",\"answer\":true,"
                "\"play\":{\"optimal\":true,\"plies\":0,\"value\":\"Alice\"}}");
    expect_line("{\"variant\":\"stone-game-iv\",\"input\":{\"n\":4},"
                "\"options\":{\"play\":[1]}}",
                "{\"line\":1,\"variant\":\"stone-game-iv\",\"status\":\"ok\",\"answer\":true,"
                "\"play\":{\"optimal\":false,\"ply\":0,\"by\":\"Alice\",\"move\":1,"
                "\"value\":\"Bob\",\"best\":4,\"best_value\":\"Alice\",\"cost\":1}}");
    expect_line("{\"variant\":\"stone-game-v\",\"input\":{\"stoneValue\":[1,1,2]},"
                "\"options\":{\"play\":[{\"split\":2,\"keep\":\"R\"}]}}",
                "{\"line\":1,\"variant\":\"stone-game-v\",\"status\":\"ok\",\"answer\":3,"
                "\"alice\":3,\"play\":{\"optimal\":false,\"ply\":0,\"by\":\"Alice\","
                "\"move\":{\"split\":2,\"keep\":\"R\"},\"value\":2,"
                "\"best\":{\"split\":2,\"keep\":\"L\"},\"best_value\":3,\"cost\":1}}");
}
END_TEST

static void expect_error(const char *record, const char *code, const char *message)
{
    char *in = malloc(strlen(record) + 2), *got, want[1024];

    ck_assert_ptr_nonnull(in);
    sprintf(in, "%s\n", record);
    got = filter(in);
    snprintf(want, sizeof(want),
             "\"status\":\"error\",\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", code, message);
    ck_assert_msg(strstr(got, want) != NULL, "for %s\n got: %s\nwant: ...%s", record, got, want);
    free(got);
    free(in);
}

START_TEST(option_errors_name_the_key_and_why)
{
    expect_error(
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"analysis\":1}}",
        "bad_record", "options.analysis: expected a boolean, got an integer");
    expect_error(
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":\"L\"}}",
        "bad_record", "options.play: expected an array of moves, got a string");
    expect_error(
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"tablebase\":true}}",
        "bad_record", "options.tablebase: unknown option (known: limits, moves, analysis, play)");
    expect_error(
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[\"L\",1]}}",
        "invalid_input",
        "options.play[1]: expected \\\"L\\\" or \\\"R\\\" (stone-game moves), got an integer");
    expect_error(
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},"
        "\"options\":{\"play\":[\"L\",\"R\",\"L\",\"R\",\"L\"]}}",
        "invalid_input",
        "options.play[4]: \\\"L\\\" is not a legal move: the game is over: all 4 are taken");
    expect_error(
        "{\"variant\":\"1140\",\"input\":{\"piles\":[2,7,9,4,4]},\"options\":{\"play\":[1,3]}}",
        "invalid_input",
        "options.play[1]: 3 is not a legal move: with M = 1 and 4 piles left, X must be 1 to 2");
    expect_error("{\"variant\":\"1686\",\"input\":{\"aliceValues\":[1,2],\"bobValues\":[3,1]},"
                 "\"options\":{\"play\":[1,1]}}",
                 "invalid_input",
                 "options.play[1]: 1 is not a legal move: stone 1 is already taken");
    expect_error("{\"variant\":\"1563\",\"input\":{\"stoneValue\":[1,2]},"
                 "\"options\":{\"play\":[{\"split\":1}]}}",
                 "invalid_input",
                 "options.play[0]: expected {\\\"split\\\":K,\\\"keep\\\":\\\"L\\\"|\\\"R\\\"} "
                 "(stone-game-v moves)");
    expect_error(
        "{\"variant\":\"1510\",\"input\":{\"n\":10},\"options\":{\"play\":[2]}}", "invalid_input",
        "options.play[0]: 2 is not a legal move: a move removes a positive square (1, 4, 9, "
        "...) of at most the 10 stones left");
}
END_TEST

/* stone-game-viii at official limits (n up to 10^5): a first move takes
 * any x >= 2 stones, so 10002 stones have 10001 legal moves: too_large,
 * as docs/contract.md says; 10001 stones are listed. */
START_TEST(analysis_of_stone_game_viii_is_bounded_too)
{
    struct cairn_buf rec = { 0 };
    char *got;

    for (size_t n = 10001; n <= 10002; n++) {
        rec.len = 0;
        ck_assert_int_eq(
            cairn_buf_puts(&rec, "{\"variant\":\"stone-game-viii\",\"input\":{\"stones\":["), 0);
        for (size_t i = 0; i < n; i++)
            ck_assert_int_eq(cairn_buf_puts(&rec, i ? ",1" : "1"), 0);
        ck_assert_int_eq(cairn_buf_puts(&rec, "]},\"options\":{\"analysis\":true}}"), 0);
        ck_assert_int_eq(cairn_buf_append(&rec, "", 1), 0);
        if (n == 10002) {
            expect_error(rec.data, "too_large",
                         "options.analysis: the position has 10001 legal moves; an analysis lists "
                         "at most 10000");
        } else {
            got = filter(rec.data);
            ck_assert_msg(strstr(got, "\"status\":\"ok\"") && strstr(got, "{\"move\":10001,"),
                          "got: %.300s", got);
            free(got);
        }
    }
    cairn_buf_free(&rec);
}
END_TEST

/* Over CAIRN_ANALYSIS_MAX_LISTED (10000) legal moves: too_large, while
 * play on the same row is graded. */
START_TEST(analysis_of_a_huge_root_is_bounded)
{
    size_t n = 10001, row;
    struct cairn_buf rec = { 0 };
    char *got;

    ck_assert_int_eq(cairn_buf_puts(&rec, "{\"variant\":\"stone-game-ix\",\"input\":{\"stones\":["),
                     0);
    for (size_t i = 0; i < n; i++)
        ck_assert_int_eq(cairn_buf_puts(&rec, i ? ",1" : "1"), 0);
    row = rec.len;
    ck_assert_int_eq(cairn_buf_puts(&rec, "]},\"options\":{\"analysis\":true}}"), 0);
    ck_assert_int_eq(cairn_buf_append(&rec, "", 1), 0); /* the NUL */
    expect_error(rec.data, "too_large",
                 "options.analysis: the position has 10001 legal moves; an analysis lists at most "
                 "10000");
    rec.len = row;
    ck_assert_int_eq(cairn_buf_puts(&rec, "]},\"options\":{\"play\":[5]}}\n"), 0);
    ck_assert_int_eq(cairn_buf_append(&rec, "", 1), 0);
    got = filter(rec.data);
    ck_assert_msg(strstr(got, "\"play\":{\"optimal\":true,\"plies\":1,\"value\":\"Bob\"}") != NULL,
                  "got: %.300s", got);
    free(got);
    cairn_buf_free(&rec);
}
END_TEST

/* Several records through one cairnd --filter: each gets the error line
 * of its row. */
struct error_case {
    const char *record, *code, *message;
};

static void expect_errors(const struct error_case *c, size_t n)
{
    struct cairn_buf in = { 0 };
    char *got, *line, want[1024];
    size_t i;

    for (i = 0; i < n; i++)
        ck_assert_int_eq(cairn_buf_printf(&in, "%s\n", c[i].record), 0);
    ck_assert_int_eq(cairn_buf_append(&in, "", 1), 0);
    got = filter(in.data);
    for (i = 0, line = got; i < n; i++) {
        char *nl = strchr(line, '\n');

        ck_assert_msg(nl != NULL, "no line for %s", c[i].record);
        *nl = '\0';
        snprintf(want, sizeof(want),
                 "\"status\":\"error\",\"error\":{\"code\":\"%s\",\"message\":\"%s\"}}", c[i].code,
                 c[i].message);
        ck_assert_msg(strstr(line, want) != NULL, "for %s\n got: %s\nwant: ...%s", c[i].record,
                      line, want);
        line = nl + 1;
    }
    free(got);
    cairn_buf_free(&in);
}

/* Every shape options.play can get wrong, per kind of move. */
START_TEST(play_of_the_wrong_shape_names_the_move_and_why)
{
#define SG(play) \
    "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":" play "}}"
#define SG3(play) \
    "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3]},\"options\":{\"play\":" play "}}"
#define SG6(play)                                                                              \
    "{\"variant\":\"1686\",\"input\":{\"aliceValues\":[1,2],\"bobValues\":[3,1]},\"options\":" \
    "{\"play\":" play "}}"
#define SG5(play) \
    "{\"variant\":\"1563\",\"input\":{\"stoneValue\":[1,2]},\"options\":{\"play\":" play "}}"
#define SPLIT_SHAPE                                                                               \
    "options.play[0]: expected {\\\"split\\\":K,\\\"keep\\\":\\\"L\\\"|\\\"R\\\"} (stone-game-v " \
    "moves)"
    static const struct error_case cases[] = {
        { SG("[\"X\"]"), "invalid_input",
          "options.play[0]: expected \\\"L\\\" or \\\"R\\\" (stone-game moves), got the "
          "string \\\"X\\\"" },
        { SG("[\"L\",\"LR\"]"), "invalid_input",
          "options.play[1]: expected \\\"L\\\" or \\\"R\\\" (stone-game moves), got the "
          "string \\\"LR\\\"" },
        { SG("[\"\\u00e9\\u001babcdefghijklmnopqrstuvwxyzabcdefghijklmnopqrstuvwxyz\"]"),
          "invalid_input",
          "options.play[0]: expected \\\"L\\\" or \\\"R\\\" (stone-game moves), got the "
          "string \\\"\u00e9\\\\x1babcdefghijklmnopqrstuvwxyzabcdefgh...\\\"" },
        { SG("[null]"), "invalid_input",
          "options.play[0]: expected \\\"L\\\" or \\\"R\\\" (stone-game moves), got null" },
        { SG3("[1.5]"), "invalid_input",
          "options.play[0]: expected an integer (stone-game-iii moves), got a real number" },
        { SG3("[-1]"), "invalid_input",
          "options.play[0]: -1 is not a legal move: a count is never negative nor over "
          "2147483647" },
        { SG6("[3000000000]"), "invalid_input",
          "options.play[0]: 3000000000 is not a legal move: a stone index is never negative nor "
          "over 2147483647" },
        { SG5("[\"L\"]"), "invalid_input", SPLIT_SHAPE },
        { SG5("[{\"split\":1,\"keep\":\"L\",\"and\":1}]"), "invalid_input", SPLIT_SHAPE },
        { SG5("[{\"split\":\"1\",\"keep\":\"L\"}]"), "invalid_input", SPLIT_SHAPE },
        { SG5("[{\"keep\":\"L\",\"at\":1}]"), "invalid_input", SPLIT_SHAPE },
        { SG5("[{\"split\":1,\"keep\":\"M\"}]"), "invalid_input", SPLIT_SHAPE },
        { SG5("[{\"split\":1,\"keep\":1}]"), "invalid_input", SPLIT_SHAPE },
        { SG5("[{\"split\":-1,\"keep\":\"L\"}]"), "invalid_input",
          "options.play[0]: split -1 is not a legal move: no row has a stone there" },
        { SG5("[{\"split\":1073741824,\"keep\":\"R\"}]"), "invalid_input",
          "options.play[0]: split 1073741824 is not a legal move: no row has a stone there" },
    };
#undef SG
#undef SG3
#undef SG5
#undef SG6
#undef SPLIT_SHAPE

    expect_errors(cases, sizeof(cases) / sizeof(cases[0]));
}
END_TEST

/* ---- what the host makes of a plugin's analysis ---------------------------- */

/* A plugin whose analyze() says what the test sets: the host's checks
 * and rendering, apart from any real game. */
static struct {
    int rc;
    const char *msg;
    struct cairn_analysis a; /* n_moves, ply, mover, best, best_value, value, bad */
    int64_t listed[4];       /* the values of moves 0.. (n_moves of them) */
    size_t scratch, legal;   /* analysis_scratch_bytes, max_legal_moves */
} g_fake;

static int fake_analyze(const struct cairn_problem *prob, struct cairn_analysis *a, void *scratch,
                        char *msg, size_t msg_len)
{
    (void)prob;
    (void)scratch;
    a->n_moves = g_fake.a.n_moves;
    a->ply = a->moves != NULL ? a->n_line : g_fake.a.ply; /* an analysis is of the start */
    a->mover = g_fake.a.mover;
    a->best = g_fake.a.best;
    a->best_value = g_fake.a.best_value;
    a->value = g_fake.a.value;
    a->bad = g_fake.a.bad;
    for (size_t i = 0; a->moves != NULL && i < a->n_moves && i < a->moves_cap; i++) {
        a->moves[i].move = (int32_t)i + 1;
        a->moves[i].value = g_fake.listed[i];
    }
    if (g_fake.msg != NULL)
        snprintf(msg, msg_len, "%s", g_fake.msg);
    return g_fake.rc;
}

static size_t fake_scratch(const struct cairn_problem *prob, size_t n_line)
{
    (void)prob;
    (void)n_line;
    return g_fake.scratch;
}

static size_t fake_legal(const struct cairn_problem *prob)
{
    (void)prob;
    return g_fake.legal;
}

static struct cairn_plugin fake_plugin(enum cairn_moves_kind moves, enum cairn_value_kind value)
{
    struct cairn_plugin d = {
        .abi_major = 1,
        .abi_minor = 2,
        .name = "fake",
        .moves_kind = moves,
        .value_kind = value,
        .max_legal_moves = fake_legal,
        .analysis_scratch_bytes = fake_scratch,
        .analyze = fake_analyze,
    };

    memset(&g_fake, 0, sizeof(g_fake));
    g_fake.scratch = 64;
    g_fake.legal = 4;
    return d;
}

/* Renders options.analysis (when analysis) and options.play (moves; NULL
 * for none) with d: 0 and *text the appended text, or -1 and *e.  No
 * ck_assert: it runs with allocations failing. */
static int render_json(const struct cairn_plugin *d, int analysis, const json_t *moves, char **text,
                       struct cairn_rec_error *e)
{
    struct cairn_analysis_req req = { .want_analysis = analysis, .play = moves };
    struct cairn_problem prob = { 0 };
    struct cairn_scratch s = { 0 };
    struct cairn_buf out = { 0 };
    int rc;

    memset(e, 0, sizeof(*e));
    rc = cairn_analysis_render(d, &prob, &req, &s, &out, e);
    *text = NULL;
    if (rc == 0 && cairn_buf_append(&out, "", 1) != 0)
        rc = cairn_rec_oom(e, "out of memory ending the text");
    if (rc == 0)
        *text = out.data;
    else
        cairn_buf_free(&out);
    cairn_scratch_free(&s);
    return rc;
}

/* render_json() of play as JSON text. */
static int render(const struct cairn_plugin *d, int analysis, const char *play, char **text,
                  struct cairn_rec_error *e)
{
    json_t *moves = play != NULL ? json_loads(play, 0, NULL) : NULL;
    int rc;

    ck_assert(play == NULL || moves != NULL);
    rc = render_json(d, analysis, moves, text, e);
    json_decref(moves);
    return rc;
}

static void expect_fake_error(const struct cairn_plugin *d, int analysis, const char *play,
                              enum cairn_code code, const char *message)
{
    struct cairn_rec_error e;
    char *text;

    ck_assert_msg(render(d, analysis, play, &text, &e) == -1, "rendered %s", text);
    ck_assert_msg(e.code == code && strcmp(e.msg, message) == 0, "%s: got %s: %s, want %s: %s",
                  play ? play : "analysis", cairn_code_name(e.code), e.msg, cairn_code_name(code),
                  message);
    ck_assert_int_eq(e.out_of_memory, 0);
}

static void expect_fake_text(const struct cairn_plugin *d, int analysis, const char *play,
                             const char *want)
{
    struct cairn_rec_error e;
    char *text;

    ck_assert_msg(render(d, analysis, play, &text, &e) == 0, "%s: %s", play ? play : "", e.msg);
    ck_assert_msg(strcmp(text, want) == 0, "\n got: %s\nwant: %s", text, want);
    free(text);
}

/* What analyze() reports becomes the result code contract.md, Errors, gives
 * it, its message kept, or said for it when it left none. */
START_TEST(plugin_statuses_become_result_codes)
{
    struct cairn_plugin d = fake_plugin(CAIRN_MOVES_COUNT, CAIRN_VALUE_MARGIN);

    g_fake.rc = CAIRN_E_CONSTRAINT;
    g_fake.msg = "n must be even";
    expect_fake_error(&d, 1, NULL, CAIRN_CODE_CONSTRAINT, "fake: n must be even");
    g_fake.rc = CAIRN_E_TOO_LARGE;
    g_fake.msg = NULL;
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_TOO_LARGE, "fake: analysis failed");
    g_fake.rc = CAIRN_E_INTERNAL;
    g_fake.msg = "a bug";
    expect_fake_error(&d, 1, "[1]", CAIRN_CODE_INTERNAL, "fake: a bug");
    g_fake.rc = 99; /* no status of the ABI */
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL, "fake: a bug");
    /* An illegal move names it, with the plugin's reason or a plain one. */
    g_fake.rc = CAIRN_E_ILLEGAL;
    g_fake.a.bad = 1;
    g_fake.msg = NULL;
    expect_fake_error(&d, 0, "[2,7]", CAIRN_CODE_INVALID_INPUT,
                      "options.play[1]: 7 is not a legal move: the rules forbid it here");
    g_fake.msg = "only 3 are left";
    expect_fake_error(&d, 0, "[2,7]", CAIRN_CODE_INVALID_INPUT,
                      "options.play[1]: 7 is not a legal move: only 3 are left");
    /* ... but a move the line does not have is the plugin's bug. */
    g_fake.a.bad = 2;
    expect_fake_error(&d, 0, "[2,7]", CAIRN_CODE_INTERNAL, "fake: only 3 are left");
    /* A moves kind the ABI does not have is refused, not guessed at. */
    d.moves_kind = (enum cairn_moves_kind)99;
    expect_fake_error(&d, 0, "[2]", CAIRN_CODE_INTERNAL, "plugin fake has an unknown moves kind");
}
END_TEST

/* Numbers that contradict themselves are an internal error, never
 * rendered. */
START_TEST(impossible_analyses_are_internal_errors)
{
    static const char impossible[] = "fake returned an impossible analysis";
    struct cairn_plugin d = fake_plugin(CAIRN_MOVES_COUNT, CAIRN_VALUE_MARGIN);

    g_fake.a.ply = 2; /* past the line */
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL, impossible);
    g_fake.a.ply = 0;
    g_fake.a.mover = CAIRN_WINNER_TIE; /* nobody's move */
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL, impossible);
    g_fake.a.mover = CAIRN_WINNER_ALICE;
    g_fake.a.n_moves = 5; /* more than max_legal_moves */
    expect_fake_error(&d, 1, NULL, CAIRN_CODE_INTERNAL, impossible);

    /* A win/lose game: values are winners. */
    d = fake_plugin(CAIRN_MOVES_COUNT, CAIRN_VALUE_WINNER);
    g_fake.a.best_value = 3;
    expect_fake_error(&d, 0, "[]", CAIRN_CODE_INTERNAL, impossible);
    g_fake.a.best_value = -1;
    expect_fake_error(&d, 0, "[]", CAIRN_CODE_INTERNAL, impossible);
    g_fake.a.best_value = CAIRN_WINNER_ALICE;
    g_fake.a.value = 3; /* the move played there */
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL, impossible);
    g_fake.a.value = CAIRN_WINNER_BOB;
    g_fake.a.n_moves = 2;
    g_fake.listed[1] = -2; /* a listed move */
    expect_fake_error(&d, 1, NULL, CAIRN_CODE_INTERNAL, impossible);

    /* Graded not optimal, with values that say it was. */
    d = fake_plugin(CAIRN_MOVES_COUNT, CAIRN_VALUE_WINNER);
    g_fake.a.best_value = g_fake.a.value = CAIRN_WINNER_BOB;
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL,
                      "fake graded options.play[0] not optimal with values that say otherwise");
    g_fake.a.mover = CAIRN_WINNER_BOB; /* who won with that move */
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL,
                      "fake graded options.play[0] not optimal with values that say otherwise");
    d = fake_plugin(CAIRN_MOVES_COUNT, CAIRN_VALUE_MARGIN);
    g_fake.a.best_value = 4;
    g_fake.a.value = 6; /* better for Alice than her best */
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL,
                      "fake graded options.play[0] not optimal with values that say otherwise");
    /* A cost past 64 bits. */
    g_fake.a.best_value = INT64_MAX;
    g_fake.a.value = INT64_MIN;
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL,
                      "fake graded options.play[0] not optimal with values that say otherwise");
    g_fake.a.mover = CAIRN_WINNER_BOB;
    g_fake.a.best_value = INT64_MIN;
    g_fake.a.value = INT64_MAX;
    expect_fake_error(&d, 0, "[1]", CAIRN_CODE_INTERNAL,
                      "fake graded options.play[0] not optimal with values that say otherwise");
}
END_TEST

/* The cost is the mover's: a tie thrown away by Bob costs him half a
 * point, a margin he lets rise costs what it rose. */
START_TEST(grades_count_for_the_mover)
{
    struct cairn_plugin d = fake_plugin(CAIRN_MOVES_SIDE, CAIRN_VALUE_WINNER);

    g_fake.a.ply = 1;
    g_fake.a.mover = CAIRN_WINNER_BOB;
    g_fake.a.best = 0;
    g_fake.a.best_value = CAIRN_WINNER_BOB;
    g_fake.a.value = CAIRN_WINNER_TIE;
    expect_fake_text(&d, 0, "[\"L\",\"R\"]",
                     ",\"play\":{\"optimal\":false,\"ply\":1,\"by\":\"Bob\",\"move\":\"R\","
                     "\"value\":\"Tie\",\"best\":\"L\",\"best_value\":\"Bob\",\"cost\":0.5}");
    g_fake.a.best_value = CAIRN_WINNER_TIE;
    g_fake.a.value = CAIRN_WINNER_ALICE;
    expect_fake_text(&d, 0, "[\"L\",\"R\"]",
                     ",\"play\":{\"optimal\":false,\"ply\":1,\"by\":\"Bob\",\"move\":\"R\","
                     "\"value\":\"Alice\",\"best\":\"L\",\"best_value\":\"Tie\",\"cost\":0.5}");
    d = fake_plugin(CAIRN_MOVES_COUNT, CAIRN_VALUE_MARGIN);
    g_fake.a.mover = CAIRN_WINNER_BOB;
    g_fake.a.best = 2;
    g_fake.a.best_value = -5;
    g_fake.a.value = 3;
    expect_fake_text(&d, 0, "[1]",
                     ",\"play\":{\"optimal\":false,\"ply\":0,\"by\":\"Bob\",\"move\":1,"
                     "\"value\":3,\"best\":2,\"best_value\":-5,\"cost\":8}");
    /* Nothing to list, no scratch asked for, an empty line: all fine. */
    g_fake.scratch = 0;
    g_fake.legal = 0;
    g_fake.a.best_value = 7;
    expect_fake_text(&d, 1, "[]",
                     ",\"analysis\":[],\"play\":{\"optimal\":true,\"plies\":0,\"value\":7}");
}
END_TEST

/* A plugin without analyze() (ABI 1.0, 1.1, or left out) is named, with
 * the option that needs it. */
START_TEST(a_plugin_without_analysis_says_so)
{
    struct cairn_plugin d = fake_plugin(CAIRN_MOVES_COUNT, CAIRN_VALUE_NONE);
    json_t *play = json_array();
    struct cairn_analysis_req none = { 0 }, analysis = { .want_analysis = 1 },
                              both = { .want_analysis = 1, .play = play },
                              only_play = { .play = play };
    struct cairn_rec_error e;

    d.analyze = NULL;
    d.abi_minor = 1;
    ck_assert_int_eq(cairn_analysis_offered(&d, &none, &e), 0);
    ck_assert_int_eq(cairn_analysis_offered(&d, &analysis, &e), -1);
    ck_assert_int_eq(e.code, CAIRN_CODE_BAD_RECORD);
    ck_assert_str_eq(e.msg, "options.analysis: plugin fake offers no analysis (it speaks ABI 1.1; "
                            "analysis needs 1.2 and a plugin that provides analyze())");
    ck_assert_int_eq(cairn_analysis_offered(&d, &both, &e), -1);
    ck_assert_msg(strncmp(e.msg, "options.analysis: ", 18) == 0, "%s", e.msg);
    ck_assert_int_eq(cairn_analysis_offered(&d, &only_play, &e), -1);
    ck_assert_msg(strncmp(e.msg, "options.play: plugin fake offers no analysis", 44) == 0, "%s",
                  e.msg);
    d = fake_plugin(CAIRN_MOVES_COUNT, CAIRN_VALUE_MARGIN);
    ck_assert_int_eq(cairn_analysis_offered(&d, &both, &e), 0);
    json_decref(play);
}
END_TEST

/* Out of memory anywhere in an analysis is internal and counted apart
 * (out_of_memory, so a daemon can run the job again), or not felt; an
 * illegal move is still named, if need be as "the move". */
START_TEST(out_of_memory_in_an_analysis_is_the_machines)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    struct cairn_plugin d = fake_plugin(CAIRN_MOVES_SPLIT, CAIRN_VALUE_ALICE);
    const char *play = "[{\"split\":1,\"keep\":\"L\"},{\"split\":2,\"keep\":\"R\"}]";
    json_t *moves = json_loads(play, 0, NULL);
    char *want, *text;
    struct cairn_rec_error e;
    long n;

    /* Long enough that the result outgrows its first 256 bytes. */
    g_fake.a.n_moves = 4;
    g_fake.listed[0] = 3;
    g_fake.listed[1] = 4;
    g_fake.listed[2] = 2;
    g_fake.listed[3] = 1;
    g_fake.a.ply = 1;
    g_fake.a.best = CAIRN_MOVE_SPLIT(2, 0);
    g_fake.a.best_value = 4;
    g_fake.a.value = 1;
    ck_assert_int_eq(render(&d, 1, play, &want, &e), 0);
    ck_assert_str_eq(want, ",\"analysis\":[{\"move\":{\"split\":0,\"keep\":\"R\"},\"value\":3},"
                           "{\"move\":{\"split\":1,\"keep\":\"L\"},\"value\":4},"
                           "{\"move\":{\"split\":1,\"keep\":\"R\"},\"value\":2},"
                           "{\"move\":{\"split\":2,\"keep\":\"L\"},\"value\":1}],"
                           "\"play\":{\"optimal\":false,\"ply\":1,\"by\":\"Alice\","
                           "\"move\":{\"split\":2,\"keep\":\"R\"},\"value\":1,"
                           "\"best\":{\"split\":2,\"keep\":\"L\"},\"best_value\":4,\"cost\":3}");
    for (n = 1;; n++) {
        int rc, fired;

        th_alloc_fail_at(n);
        rc = render_json(&d, 1, moves, &text, &e);
        fired = th_alloc_disarm();
        if (rc == 0)
            ck_assert_msg(strcmp(text, want) == 0, "allocation %ld failing: %s", n, text);
        else
            ck_assert_msg(fired && e.code == CAIRN_CODE_INTERNAL && e.out_of_memory,
                          "allocation %ld failing: %s: %s", n, cairn_code_name(e.code), e.msg);
        free(text);
        if (!fired)
            break;
    }
    ck_assert_int_gt(n, 3);
    free(want);

    g_fake.rc = CAIRN_E_ILLEGAL;
    g_fake.a.bad = 1;
    for (n = 1;; n++) {
        int rc, fired;

        th_alloc_fail_at(n);
        rc = render_json(&d, 0, moves, &text, &e);
        fired = th_alloc_disarm();
        ck_assert_int_eq(rc, -1);
        if (e.code == CAIRN_CODE_INVALID_INPUT)
            ck_assert_msg(strcmp(e.msg, "options.play[1]: {\"split\":2,\"keep\":\"R\"} is not a "
                                        "legal move: the rules forbid it here") == 0 ||
                              (fired && strcmp(e.msg, "options.play[1]: the move is not a legal "
                                                      "move: the rules forbid it here") == 0),
                          "allocation %ld failing: %s", n, e.msg);
        else
            ck_assert_msg(fired && e.code == CAIRN_CODE_INTERNAL && e.out_of_memory,
                          "allocation %ld failing: %s: %s", n, cairn_code_name(e.code), e.msg);
        if (!fired)
            break;
    }
    json_decref(moves);
}
END_TEST

static Suite *analysis_suite(void)
{
    Suite *s = suite_create("analysis");
    TCase *tc = tcase_create("brute_force");

    tcase_set_timeout(tc, 600);
    tcase_add_test(tc, stone_game_matches_brute_force);
    tcase_add_test(tc, stone_game_ii_matches_brute_force);
    tcase_add_test(tc, stone_game_iii_matches_brute_force);
    tcase_add_test(tc, stone_game_iv_matches_brute_force);
    tcase_add_test(tc, stone_game_v_matches_brute_force);
    tcase_add_test(tc, stone_game_vi_matches_brute_force);
    tcase_add_test(tc, stone_game_vii_matches_brute_force);
    tcase_add_test(tc, stone_game_viii_matches_brute_force);
    tcase_add_test(tc, stone_game_ix_matches_brute_force);
    tcase_add_test(tc, predict_the_winner_matches_brute_force);
    tcase_add_test(tc, stone_removal_game_matches_brute_force);
    suite_add_tcase(s, tc);

    tc = tcase_create("filter");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, analysis_renders_each_move_kind_and_value_unit);
    tcase_add_test(tc, play_grades_the_first_mistake);
    tcase_add_test(tc, option_errors_name_the_key_and_why);
    tcase_add_test(tc, analysis_of_a_huge_root_is_bounded);
    tcase_add_test(tc, analysis_of_stone_game_viii_is_bounded_too);
    tcase_add_test(tc, play_of_the_wrong_shape_names_the_move_and_why);
    suite_add_tcase(s, tc);

    tc = tcase_create("host");
    tcase_add_test(tc, plugin_statuses_become_result_codes);
    tcase_add_test(tc, impossible_analyses_are_internal_errors);
    tcase_add_test(tc, grades_count_for_the_mover);
    tcase_add_test(tc, a_plugin_without_analysis_says_so);
    tcase_add_test(tc, out_of_memory_in_an_analysis_is_the_machines);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed;

    failed = th_run_suite(analysis_suite(), CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
