/*
 * test_solvers.c - the three stone-game plugins against reference solvers.
 *
 * The plugins are loaded from $CAIRN_TEST_PLUGIN_DIR through the real
 * loader and driven the way the host drives them: one struct cairn_problem,
 * check() when present, a scratch buffer of scratch_bytes(), a moves buffer
 * of max_moves() entries, then solve().  Every answer is compared with the
 * exhaustive minimax of brute.c (small rows) or the textbook DPs (larger
 * rows), and every line of play is replayed under the rules of its game.
 *
 * All randomness comes from splitmix64 with a fixed seed per test, so a
 * failure is reproducible; each failure message prints the row.
 */
#include <check.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "brute.h"
#include "cairn/plugin.h"
#include "plugin_loader.h"
#include "rng.h"

/* Rows up to this length are judged by the exhaustive minimax. */
#define MINIMAX_MAX_N 12

enum game {
    SG1 = 0,
    SG2 = 1,
    SG3 = 2,
    N_GAMES = 3
};

static const char *const game_name[N_GAMES] = { "stone-game", "stone-game-ii", "stone-game-iii" };
static const char *const game_alias[N_GAMES] = { "877", "1140", "1406" };
static const char *const game_input[N_GAMES] = { "piles", "piles", "stoneValue" };

static struct cairn_registry g_reg;
static int g_load_rc;
static const char *g_plugin_dir;

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

/* splitmix64: a fixed, portable sequence (rand() differs between libcs). */
static uint64_t g_rng;

static void rng_seed(uint64_t seed)
{
    g_rng = seed;
}

/* Uniform (up to a negligible bias) in [lo, hi]. */
static int64_t rng_range(int64_t lo, int64_t hi)
{
    return th_splitmix64_range(&g_rng, lo, hi);
}

/* The row as text for failure messages (a static buffer: the tests are
 * single-threaded). */
static const char *row_str(const int64_t *a, size_t n)
{
    static char buf[1024];
    size_t off = 0;
    off += (size_t)snprintf(buf + off, sizeof buf - off, "[");
    for (size_t i = 0; i < n; i++) {
        if (off > sizeof buf - 64) {
            snprintf(buf + off, sizeof buf - off, "... (n=%zu)", n);
            return buf;
        }
        off += (size_t)snprintf(buf + off, sizeof buf - off, "%s%" PRId64, i ? "," : "", a[i]);
    }
    snprintf(buf + off, sizeof buf - off, "]");
    return buf;
}

static const struct cairn_plugin *plugin(enum game g)
{
    const struct cairn_plugin_handle *h = cairn_registry_find(&g_reg, game_name[g]);
    ck_assert_msg(h != NULL && h->desc != NULL,
                  "plugin \"%s\" is not loaded from %s (load returned %d, %zu error(s), "
                  "printed at start-up)",
                  game_name[g], g_plugin_dir ? g_plugin_dir : "(unset)", g_load_rc, g_reg.n_errors);
    return h->desc;
}

static int64_t max64(int64_t a, int64_t b)
{
    return a > b ? a : b;
}

/* The reference value (player to move minus the other) of a position:
 * the remaining row a[0..n) and, for stone-game-ii, the current M. */
static int64_t ref_value(enum game g, const int64_t *a, size_t n, int64_t m, int minimax)
{
    int64_t v = 0;
    switch (g) {
    case SG1: v = minimax ? brute_sg1_minimax(a, n) : brute_sg1_dp(a, n); break;
    case SG2: v = minimax ? brute_sg2_minimax(a, n, m) : brute_sg2_dp(a, n, m); break;
    default: v = minimax ? brute_sg3_minimax(a, n) : brute_sg3_dp(a, n, NULL); break;
    }
    ck_assert_msg(v != INT64_MIN, "reference solver out of memory (n=%zu)", n);
    return v;
}

/* The reference D = alice - bob of a whole game, by minimax for small rows. */
static int64_t ref_game(enum game g, const int64_t *a, size_t n)
{
    return ref_value(g, a, n, 1, n <= MINIMAX_MAX_N);
}

/* The row must be one the host would pass for these limits (a test bug or a
 * plugin that declares less than docs/games.md's official limits otherwise). */
static void assert_in_bounds(const struct cairn_plugin *p, enum cairn_limits lim, const int64_t *a,
                             size_t n)
{
    const struct cairn_bounds *b =
        lim == CAIRN_LIMITS_OFFICIAL ? &p->inputs[0].official : &p->inputs[0].extended;
    ck_assert_msg(n >= b->min_len && n <= b->max_len,
                  "%s: length %zu is outside the declared %s bounds %zu..%zu", p->name, n,
                  lim == CAIRN_LIMITS_OFFICIAL ? "official" : "extended", b->min_len, b->max_len);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(a[i] >= b->min_value && a[i] <= b->max_value,
                      "%s: value %" PRId64 " is outside the declared %s bounds", p->name, a[i],
                      lim == CAIRN_LIMITS_OFFICIAL ? "official" : "extended");
}

/* ------------------------------------------------------------------ */
/* Driving a plugin the way the host does                              */
/* ------------------------------------------------------------------ */

#define MOVES_CANARY INT32_C(0x5A5A5A5A)

struct outcome {
    struct cairn_result res;
    int32_t *moves; /* owned; NULL unless want_moves */
};

/* check() (must accept), scratch_bytes(), max_moves(), solve() (must
 * succeed).  The scratch is filled with garbage first, so a kernel that
 * relies on zeroed memory fails; one entry past moves_cap is a canary. */
static void run_plugin(const struct cairn_plugin *p, const int64_t *a, size_t n,
                       enum cairn_limits lim, int want_moves, struct outcome *o)
{
    struct cairn_array arr = { .v = a, .n = n };
    struct cairn_problem pb = {
        .inputs = &arr, .n_inputs = 1, .limits = lim, .want_moves = want_moves
    };
    char msg[256];

    assert_in_bounds(p, lim, a, n);
    memset(o, 0, sizeof *o);
    if (p->check != NULL) {
        msg[0] = '\0';
        int rc = p->check(&pb, msg, sizeof msg);
        ck_assert_msg(rc == CAIRN_OK, "%s: check() refused %s (%s limits): rc %d: %s", p->name,
                      row_str(a, n), lim == CAIRN_LIMITS_OFFICIAL ? "official" : "extended", rc,
                      msg);
    }
    size_t sb = p->scratch_bytes(&pb);
    void *scratch = malloc(sb ? sb : 1);
    ck_assert_ptr_nonnull(scratch);
    memset(scratch, 0xA5, sb ? sb : 1);

    size_t cap = 0;
    if (want_moves) {
        cap = p->max_moves(&pb);
        ck_assert_msg(cap >= n || p->moves_kind == CAIRN_MOVES_COUNT,
                      "%s: max_moves %zu < n %zu for a one-pile-per-turn game", p->name, cap, n);
        o->moves = malloc((cap + 1) * sizeof *o->moves);
        ck_assert_ptr_nonnull(o->moves);
        for (size_t i = 0; i <= cap; i++)
            o->moves[i] = MOVES_CANARY;
        o->res.moves = o->moves;
        o->res.moves_cap = cap;
    }
    msg[0] = '\0';
    int rc = p->solve(&pb, &o->res, scratch, msg, sizeof msg);
    free(scratch);
    ck_assert_msg(rc == CAIRN_OK, "%s: solve() failed on %s: rc %d: %s", p->name, row_str(a, n), rc,
                  msg);
    if (want_moves) {
        ck_assert_msg(o->res.n_moves <= cap, "%s: n_moves %zu > moves_cap %zu", p->name,
                      o->res.n_moves, cap);
        ck_assert_msg(o->moves[cap] == MOVES_CANARY, "%s: solve() wrote past moves_cap on %s",
                      p->name, row_str(a, n));
        ck_assert_msg(o->res.moves == o->moves && o->res.moves_cap == cap,
                      "%s: solve() changed result.moves or moves_cap", p->name);
    } else {
        ck_assert_msg(o->res.n_moves == 0, "%s: n_moves %zu set although moves were not wanted",
                      p->name, o->res.n_moves);
    }
}

/* The answer field must agree with alice/bob the way the game defines it. */
static void assert_answer_consistent(enum game g, const struct cairn_result *r, const int64_t *a,
                                     size_t n)
{
    int64_t sum = brute_sum(a, n);
    ck_assert_msg(r->alice + r->bob == sum,
                  "%s %s: alice %" PRId64 " + bob %" PRId64 " != sum %" PRId64, game_name[g],
                  row_str(a, n), r->alice, r->bob, sum);
    int64_t margin = r->alice - r->bob;
    switch (g) {
    case SG1:
        ck_assert_msg(r->answer == (margin > 0 ? 1 : 0),
                      "stone-game %s: answer %" PRId64 " but margin %" PRId64
                      " (true iff Alice strictly ahead)",
                      row_str(a, n), r->answer, margin);
        break;
    case SG2:
        ck_assert_msg(r->answer == r->alice,
                      "stone-game-ii %s: answer %" PRId64 " != alice %" PRId64, row_str(a, n),
                      r->answer, r->alice);
        break;
    default: {
        int64_t w = margin > 0   ? CAIRN_WINNER_ALICE
                    : margin < 0 ? CAIRN_WINNER_BOB
                                 : CAIRN_WINNER_TIE;
        ck_assert_msg(r->answer == w,
                      "stone-game-iii %s: answer %" PRId64 " but margin %" PRId64
                      " (0 Alice, 1 Bob, 2 Tie)",
                      row_str(a, n), r->answer, margin);
        break;
    }
    }
}

/* Replays the line of play under the rules; requires that it consumes the
 * row exactly, that the takes add up to the reported alice and bob and,
 * when check_optimal, that every move keeps the reference value. */
static void replay_moves(enum game g, const struct outcome *o, const int64_t *a, size_t n,
                         int check_optimal)
{
    const int32_t *mv = o->moves;
    size_t k = o->res.n_moves;
    int64_t took[2] = { 0, 0 };
    int minimax = n <= MINIMAX_MAX_N;
    int64_t *sg3_dp = NULL;

    if (g == SG3 && check_optimal && !minimax) {
        sg3_dp = malloc((n + 1) * sizeof *sg3_dp);
        ck_assert_ptr_nonnull(sg3_dp);
        ck_assert(brute_sg3_dp(a, n, sg3_dp) != INT64_MIN);
    }

    if (g == SG1) {
        ck_assert_msg(k == n, "stone-game %s: %zu moves for %zu piles", row_str(a, n), k, n);
        size_t i = 0, j = n; /* the remaining row is a[i..j) */
        for (size_t t = 0; t < k; t++) {
            ck_assert_msg(mv[t] == 0 || mv[t] == 1, "stone-game %s: move %zu is %" PRId32,
                          row_str(a, n), t, mv[t]);
            int64_t take = mv[t] == 0 ? a[i] : a[j - 1];
            if (check_optimal) {
                int64_t here = ref_value(SG1, a + i, j - i, 1, minimax);
                int64_t rest = mv[t] == 0 ? ref_value(SG1, a + i + 1, j - i - 1, 1, minimax)
                                          : ref_value(SG1, a + i, j - i - 1, 1, minimax);
                ck_assert_msg(take - rest == here,
                              "stone-game %s: move %zu (%c) on a[%zu..%zu) is worth %" PRId64
                              ", best is %" PRId64,
                              row_str(a, n), t, mv[t] ? 'R' : 'L', i, j, take - rest, here);
            }
            took[t % 2] += take;
            if (mv[t] == 0)
                i++;
            else
                j--;
        }
    } else if (g == SG2) {
        size_t i = 0;
        int64_t m = 1;
        for (size_t t = 0; t < k; t++) {
            int64_t x = mv[t];
            ck_assert_msg(x >= 1 && x <= 2 * m && (size_t)x <= n - i,
                          "stone-game-ii %s: move %zu takes %" PRId64 " piles with M=%" PRId64
                          " and %zu left",
                          row_str(a, n), t, x, m, n - i);
            int64_t take = brute_sum(a + i, (size_t)x);
            if (check_optimal) {
                int64_t here = ref_value(SG2, a + i, n - i, m, minimax);
                int64_t rest = ref_value(SG2, a + i + x, n - i - (size_t)x, max64(m, x), minimax);
                ck_assert_msg(take - rest == here,
                              "stone-game-ii %s: move %zu (X=%" PRId64 ", M=%" PRId64
                              ", at %zu) is worth %" PRId64 ", best is %" PRId64,
                              row_str(a, n), t, x, m, i, take - rest, here);
            }
            took[t % 2] += take;
            i += (size_t)x;
            m = max64(m, x);
        }
        ck_assert_msg(i == n, "stone-game-ii %s: the moves take %zu of %zu piles", row_str(a, n), i,
                      n);
    } else {
        size_t i = 0;
        for (size_t t = 0; t < k; t++) {
            int64_t x = mv[t];
            ck_assert_msg(x >= 1 && x <= 3 && (size_t)x <= n - i,
                          "stone-game-iii %s: move %zu takes %" PRId64 " stones with %zu left",
                          row_str(a, n), t, x, n - i);
            int64_t take = brute_sum(a + i, (size_t)x);
            if (check_optimal) {
                int64_t here, rest;
                if (sg3_dp) {
                    here = sg3_dp[i];
                    rest = sg3_dp[i + (size_t)x];
                } else {
                    here = ref_value(SG3, a + i, n - i, 1, minimax);
                    rest = ref_value(SG3, a + i + x, n - i - (size_t)x, 1, minimax);
                }
                ck_assert_msg(take - rest == here,
                              "stone-game-iii %s: move %zu (take %" PRId64
                              " at %zu) is worth %" PRId64 ", best is %" PRId64,
                              row_str(a, n), t, x, i, take - rest, here);
            }
            took[t % 2] += take;
            i += (size_t)x;
        }
        ck_assert_msg(i == n, "stone-game-iii %s: the moves take %zu of %zu stones", row_str(a, n),
                      i, n);
    }
    free(sg3_dp);
    ck_assert_msg(took[0] == o->res.alice && took[1] == o->res.bob,
                  "%s %s: replaying the moves gives alice %" PRId64 " bob %" PRId64
                  ", solve() reported %" PRId64 " / %" PRId64,
                  game_name[g], row_str(a, n), took[0], took[1], o->res.alice, o->res.bob);
}

/* The whole check of one row: solve, compare with the reference D, check
 * the answer field, and replay the moves when asked for. */
static void verify_with(const struct cairn_plugin *p, enum game g, const int64_t *a, size_t n,
                        enum cairn_limits lim, int64_t d_ref, int want_moves, int check_optimal)
{
    struct outcome o;
    int64_t sum = brute_sum(a, n);

    run_plugin(p, a, n, lim, want_moves, &o);
    assert_answer_consistent(g, &o.res, a, n);
    ck_assert_msg(o.res.alice == (sum + d_ref) / 2 && o.res.bob == (sum - d_ref) / 2,
                  "%s %s (%s): plugin alice %" PRId64 " bob %" PRId64 ", reference alice %" PRId64
                  " bob %" PRId64,
                  game_name[g], row_str(a, n),
                  lim == CAIRN_LIMITS_OFFICIAL ? "official" : "extended", o.res.alice, o.res.bob,
                  (sum + d_ref) / 2, (sum - d_ref) / 2);
    if (want_moves)
        replay_moves(g, &o, a, n, check_optimal);
    free(o.moves);
}

static void verify(enum game g, const int64_t *a, size_t n, enum cairn_limits lim, int64_t d_ref,
                   int want_moves)
{
    verify_with(plugin(g), g, a, n, lim, d_ref, want_moves, want_moves);
}

/* ------------------------------------------------------------------ */
/* Random rows                                                         */
/* ------------------------------------------------------------------ */

/* An official stone-game row: even length, 1..maxv, odd sum. */
static void gen_sg1_official(int64_t *a, size_t n, int64_t maxv)
{
    int64_t sum = 0;
    for (size_t i = 0; i < n; i++) {
        a[i] = rng_range(1, maxv);
        sum += a[i];
    }
    if (sum % 2 == 0) {
        size_t i = (size_t)rng_range(0, (int64_t)n - 1);
        a[i] += a[i] < maxv ? 1 : -1;
    }
}

/* Extended-style values: mostly small (ties, zeros, equal piles), some wide,
 * some constant rows.  |values| stay far below every plugin's maxima. */
static void gen_extended(int64_t *a, size_t n)
{
    int style = (int)rng_range(0, 5);
    int64_t c = rng_range(-5, 5);
    for (size_t i = 0; i < n; i++) {
        switch (style) {
        case 0: a[i] = rng_range(-3, 3); break;
        case 1: a[i] = rng_range(0, 1); break;
        case 2: a[i] = rng_range(-1000, 1000); break;
        case 3: a[i] = rng_range(-1000000000, 1000000000); break;
        case 4: a[i] = c; break;
        default: a[i] = rng_range(-10, 2); break;
        }
    }
}

/* ------------------------------------------------------------------ */
/* TCase "loading": the registry and the descriptors                   */
/* ------------------------------------------------------------------ */

START_TEST(test_plugins_load_by_name_and_alias)
{
    ck_assert_msg(g_plugin_dir != NULL, "CAIRN_TEST_PLUGIN_DIR is not set");
    ck_assert_msg(g_load_rc == 0 && g_reg.n_errors == 0,
                  "cairn_registry_load(%s) returned %d with %zu error(s), first: %s", g_plugin_dir,
                  g_load_rc, g_reg.n_errors, g_reg.n_errors ? g_reg.errors[0] : "(none)");
    for (int g = 0; g < N_GAMES; g++) {
        const struct cairn_plugin_handle *by_name = cairn_registry_find(&g_reg, game_name[g]);
        const struct cairn_plugin_handle *by_alias = cairn_registry_find(&g_reg, game_alias[g]);
        ck_assert_msg(by_name != NULL, "no plugin named %s", game_name[g]);
        ck_assert_msg(by_alias != NULL, "no plugin with alias %s", game_alias[g]);
        ck_assert_msg(by_name == by_alias, "alias %s finds another plugin than %s", game_alias[g],
                      game_name[g]);
        ck_assert_str_eq(by_name->desc->name, game_name[g]);
        ck_assert_ptr_nonnull(by_name->path);
    }
    ck_assert_ptr_null(cairn_registry_find(&g_reg, "no-such-game"));
    ck_assert_ptr_null(cairn_registry_find(&g_reg, "1141"));
    ck_assert_ptr_null(cairn_registry_find(&g_reg, ""));
}
END_TEST

START_TEST(test_descriptors_declare_the_spec)
{
    static const struct cairn_bounds official[N_GAMES] = {
        { 2, 500, 1, 500 },
        { 1, 100, 1, 10000 },
        { 1, 50000, -1000, 1000 },
    };
    static const enum cairn_answer_kind answer[N_GAMES] = { CAIRN_ANSWER_BOOL, CAIRN_ANSWER_INT,
                                                            CAIRN_ANSWER_WINNER };
    static const enum cairn_moves_kind moves[N_GAMES] = { CAIRN_MOVES_SIDE, CAIRN_MOVES_COUNT,
                                                          CAIRN_MOVES_COUNT };

    for (int g = 0; g < N_GAMES; g++) {
        const struct cairn_plugin *p = plugin((enum game)g);
        ck_assert_uint_eq(p->abi_major, CAIRN_PLUGIN_ABI_MAJOR);
        ck_assert_uint_ge(p->struct_size, sizeof(struct cairn_plugin));
        ck_assert_ptr_nonnull(p->version);
        ck_assert_ptr_nonnull(p->summary);
        ck_assert_ptr_nonnull(p->solve);
        ck_assert_ptr_nonnull(p->scratch_bytes);
        ck_assert_ptr_nonnull(p->max_moves);
        ck_assert_uint_eq(p->n_inputs, 1);
        ck_assert_str_eq(p->inputs[0].name, game_input[g]);
        ck_assert_int_eq(p->inputs[0].kind, CAIRN_INPUT_INT_ARRAY);
        ck_assert_int_eq(p->answer_kind, answer[g]);
        ck_assert_int_eq(p->moves_kind, moves[g]);

        int has_alias = 0;
        for (size_t i = 0; p->aliases && p->aliases[i]; i++)
            has_alias |= strcmp(p->aliases[i], game_alias[g]) == 0;
        ck_assert_msg(has_alias, "%s does not list the alias %s", p->name, game_alias[g]);

        const struct cairn_bounds *o = &p->inputs[0].official;
        const struct cairn_bounds *e = &p->inputs[0].extended;
        ck_assert_msg(
            o->min_len == official[g].min_len && o->max_len == official[g].max_len &&
                o->min_value == official[g].min_value && o->max_value == official[g].max_value,
            "%s: official bounds len %zu..%zu values %" PRId64 "..%" PRId64 " differ from games.md",
            p->name, o->min_len, o->max_len, o->min_value, o->max_value);
        /* Extended: any length >= 1, negatives allowed, at least official. */
        ck_assert_uint_eq(e->min_len, 1);
        ck_assert_uint_ge(e->max_len, o->max_len);
        ck_assert_int_lt(e->min_value, 0);
        ck_assert_int_le(e->min_value, o->min_value);
        ck_assert_int_ge(e->max_value, o->max_value);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "official_examples"                                           */
/* ------------------------------------------------------------------ */

struct example {
    int64_t v[8];
    size_t n;
    int64_t answer, alice, bob;
};

static void run_examples(enum game g, const struct example *ex, size_t n_ex)
{
    /* Through the name and through the alias: the same descriptor. */
    const struct cairn_plugin_handle *h[2] = { cairn_registry_find(&g_reg, game_name[g]),
                                               cairn_registry_find(&g_reg, game_alias[g]) };
    for (int k = 0; k < 2; k++) {
        ck_assert_msg(h[k] != NULL, "plugin %s not found", k ? game_alias[g] : game_name[g]);
        for (size_t e = 0; e < n_ex; e++) {
            const int64_t *a = ex[e].v;
            size_t n = ex[e].n;
            /* The references agree with the hand-computed values too. */
            int64_t d = ex[e].alice - ex[e].bob;
            ck_assert_int_eq(ref_value(g, a, n, 1, 1), d);
            ck_assert_int_eq(ref_value(g, a, n, 1, 0), d);
            for (int want = 0; want <= 1; want++) {
                struct outcome o;
                run_plugin(h[k]->desc, a, n, CAIRN_LIMITS_OFFICIAL, want, &o);
                ck_assert_msg(o.res.answer == ex[e].answer && o.res.alice == ex[e].alice &&
                                  o.res.bob == ex[e].bob,
                              "%s %s: got answer %" PRId64 " alice %" PRId64 " bob %" PRId64
                              ", expected %" PRId64 " / %" PRId64 " / %" PRId64,
                              game_name[g], row_str(a, n), o.res.answer, o.res.alice, o.res.bob,
                              ex[e].answer, ex[e].alice, ex[e].bob);
                assert_answer_consistent(g, &o.res, a, n);
                if (want)
                    replay_moves(g, &o, a, n, 1);
                free(o.moves);
            }
        }
    }
}

START_TEST(test_examples_stone_game)
{
    /* [5,3,4,5]: D = 1 (9 vs 8); [3,7,2,3]: D = 5 (10 vs 5). */
    static const struct example ex[] = {
        { { 5, 3, 4, 5 }, 4, 1, 9, 8 },
        { { 3, 7, 2, 3 }, 4, 1, 10, 5 },
    };
    run_examples(SG1, ex, sizeof ex / sizeof ex[0]);
}
END_TEST

START_TEST(test_examples_stone_game_ii)
{
    static const struct example ex[] = {
        { { 2, 7, 9, 4, 4 }, 5, 10, 10, 16 },
        { { 1, 2, 3, 4, 5, 100 }, 6, 104, 104, 11 },
        /* 8, not 9: Alice 1, Bob 2, Alice 3+4, Bob 5. */
        { { 1, 2, 3, 4, 5 }, 5, 8, 8, 7 },
    };
    run_examples(SG2, ex, sizeof ex / sizeof ex[0]);
}
END_TEST

START_TEST(test_examples_stone_game_iii)
{
    static const struct example ex[] = {
        { { 1, 2, 3, 7 }, 4, CAIRN_WINNER_BOB, 6, 7 },
        { { 1, 2, 3, -9 }, 4, CAIRN_WINNER_ALICE, 6, -9 },
        { { 1, 2, 3, 6 }, 4, CAIRN_WINNER_TIE, 6, 6 },
    };
    run_examples(SG3, ex, sizeof ex / sizeof ex[0]);
}
END_TEST

/* Hand-checked rows aimed at typical kernel mistakes. */
START_TEST(test_targeted_rows)
{
    static const struct {
        enum game g;
        int64_t v[8];
        size_t n;
        int64_t alice, bob;
    } rows[] = {
        /* stone-game ties in extended mode: answer false, not true. */
        { SG1, { 2, 2 }, 2, 2, 2 },
        { SG1, { 1, 2, 2, 1 }, 4, 3, 3 },
        /* odd length: Alice gets the extra pile */
        { SG1, { 1, 5, 1 }, 3, 2, 5 },
        { SG1, { -1, -2, -3 }, 3, -4, -2 },
        /* stone-game-ii with negatives: taking everything (allowed, 2M=2)
         * gives -2; taking 3 and leaving Bob the -5 gives 3. */
        { SG2, { 3, -5 }, 2, 3, -5 },
        /* forced to take at least one pile */
        { SG2, { -4, -1 }, 2, -4, -1 },
        /* Alice 1, Bob 1, Alice 1, Bob 1+1 (taking one would leave Alice
         * [1,100] with M = 1), Alice 100 */
        { SG2, { 1, 1, 1, 1, 1, 100 }, 6, 102, 3 },
        /* stone-game-iii: a tie with negatives (Alice -1-2, Bob -3) */
        { SG3, { -1, -2, -3 }, 3, -3, -3 },
        { SG3, { -5 }, 1, -5, 0 },
        { SG3, { 0, 0, 0, 0 }, 4, 0, 0 },
        /* take 3, not everything a greedy 1-at-a-time would */
        { SG3, { 1, 1, 1, 1 }, 4, 3, 1 },
        /* Alice 5, then Bob's best is to swallow -7+2+3 */
        { SG3, { 5, -7, 2, 3 }, 4, 5, -2 },
    };
    for (size_t r = 0; r < sizeof rows / sizeof rows[0]; r++) {
        int64_t d = rows[r].alice - rows[r].bob;
        /* First make sure the hand values are right. */
        ck_assert_msg(ref_value(rows[r].g, rows[r].v, rows[r].n, 1, 1) == d &&
                          ref_value(rows[r].g, rows[r].v, rows[r].n, 1, 0) == d,
                      "hand value of row %zu is wrong", r);
        for (int want = 0; want <= 1; want++)
            verify(rows[r].g, rows[r].v, rows[r].n, CAIRN_LIMITS_EXTENDED, d, want);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "reference_self_check": the two references agree              */
/* ------------------------------------------------------------------ */

START_TEST(test_references_agree)
{
    int64_t a[MINIMAX_MAX_N];
    rng_seed(0xB007);
    for (int it = 0; it < 3000; it++) {
        size_t n = (size_t)rng_range(0, MINIMAX_MAX_N);
        gen_extended(a, n);
        ck_assert_int_eq(brute_sg1_minimax(a, n), brute_sg1_dp(a, n));
        ck_assert_int_eq(brute_sg3_minimax(a, n), brute_sg3_dp(a, n, NULL));
        int64_t m = rng_range(1, 8);
        ck_assert_int_eq(brute_sg2_minimax(a, n, m), brute_sg2_dp(a, n, m));
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "random_small_vs_minimax"                                     */
/* ------------------------------------------------------------------ */

#define RANDOM_SMALL_ITERS 3000

START_TEST(test_random_small_stone_game)
{
    int64_t a[MINIMAX_MAX_N];
    size_t ties = 0, bob_ahead = 0, alice_ahead = 0;
    rng_seed(0x877);
    for (int it = 0; it < RANDOM_SMALL_ITERS; it++) {
        /* official: even length, 1..500 (or 1..3 for near-ties), odd sum */
        size_t n = 2 * (size_t)rng_range(1, MINIMAX_MAX_N / 2);
        gen_sg1_official(a, n, rng_range(0, 1) ? 500 : 3);
        int64_t d = ref_game(SG1, a, n);
        ck_assert_int_gt(d, 0); /* the official rules make Alice win */
        verify(SG1, a, n, CAIRN_LIMITS_OFFICIAL, d, (int)rng_range(0, 1));

        /* extended: any length, negatives, zeros, ties */
        n = (size_t)rng_range(1, MINIMAX_MAX_N);
        gen_extended(a, n);
        d = ref_game(SG1, a, n);
        ties += d == 0;
        bob_ahead += d < 0;
        alice_ahead += d > 0;
        verify(SG1, a, n, CAIRN_LIMITS_EXTENDED, d, (int)rng_range(0, 1));
    }
    /* The extended rows really exercised every outcome. */
    ck_assert_uint_gt(ties, 100);
    ck_assert_uint_gt(bob_ahead, 100);
    ck_assert_uint_gt(alice_ahead, 100);
}
END_TEST

START_TEST(test_random_small_stone_game_ii)
{
    int64_t a[MINIMAX_MAX_N];
    size_t take_all_wrong = 0;
    rng_seed(0x1140);
    for (int it = 0; it < RANDOM_SMALL_ITERS; it++) {
        size_t n = (size_t)rng_range(1, MINIMAX_MAX_N);
        int64_t maxv = rng_range(0, 1) ? 10000 : 4;
        for (size_t i = 0; i < n; i++)
            a[i] = rng_range(1, maxv);
        verify(SG2, a, n, CAIRN_LIMITS_OFFICIAL, ref_game(SG2, a, n), (int)rng_range(0, 1));

        n = (size_t)rng_range(1, MINIMAX_MAX_N);
        gen_extended(a, n);
        int64_t d = ref_game(SG2, a, n);
        /* rows where Alice could take everything but should not */
        take_all_wrong += n <= 2 && d != brute_sum(a, n);
        verify(SG2, a, n, CAIRN_LIMITS_EXTENDED, d, (int)rng_range(0, 1));
    }
    ck_assert_uint_gt(take_all_wrong, 20);
}
END_TEST

START_TEST(test_random_small_stone_game_iii)
{
    int64_t a[MINIMAX_MAX_N + 2];
    size_t outcome[3] = { 0, 0, 0 };
    rng_seed(0x1406);
    for (int it = 0; it < RANDOM_SMALL_ITERS; it++) {
        size_t n = (size_t)rng_range(1, MINIMAX_MAX_N + 2);
        int64_t maxv = rng_range(0, 1) ? 1000 : 2;
        for (size_t i = 0; i < n; i++)
            a[i] = rng_range(-maxv, maxv);
        int64_t d = brute_sg3_minimax(a, n);
        outcome[d > 0 ? 0 : d < 0 ? 1 : 2]++;
        verify(SG3, a, n, CAIRN_LIMITS_OFFICIAL, d, (int)rng_range(0, 1));

        n = (size_t)rng_range(1, MINIMAX_MAX_N + 2);
        gen_extended(a, n);
        d = brute_sg3_minimax(a, n);
        outcome[d > 0 ? 0 : d < 0 ? 1 : 2]++;
        verify(SG3, a, n, CAIRN_LIMITS_EXTENDED, d, (int)rng_range(0, 1));
    }
    ck_assert_uint_gt(outcome[0], 100);
    ck_assert_uint_gt(outcome[1], 100);
    ck_assert_uint_gt(outcome[2], 100);
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "random_larger_vs_dp"                                         */
/* ------------------------------------------------------------------ */

START_TEST(test_random_larger_stone_game)
{
    int64_t a[60];
    rng_seed(0x8770);
    for (int it = 0; it < 400; it++) {
        size_t n = 2 * (size_t)rng_range(1, 30);
        gen_sg1_official(a, n, rng_range(0, 1) ? 500 : 5);
        verify(SG1, a, n, CAIRN_LIMITS_OFFICIAL, brute_sg1_dp(a, n), it % 4 == 0);

        n = (size_t)rng_range(1, 60);
        gen_extended(a, n);
        verify(SG1, a, n, CAIRN_LIMITS_EXTENDED, brute_sg1_dp(a, n), it % 4 == 1);
    }
}
END_TEST

START_TEST(test_random_larger_stone_game_ii)
{
    int64_t a[40];
    rng_seed(0x11400);
    for (int it = 0; it < 300; it++) {
        size_t n = (size_t)rng_range(1, 40);
        int64_t maxv = rng_range(0, 1) ? 10000 : 3;
        for (size_t i = 0; i < n; i++)
            a[i] = rng_range(1, maxv);
        verify(SG2, a, n, CAIRN_LIMITS_OFFICIAL, brute_sg2_dp(a, n, 1), it % 8 == 0);

        n = (size_t)rng_range(1, 40);
        gen_extended(a, n);
        verify(SG2, a, n, CAIRN_LIMITS_EXTENDED, brute_sg2_dp(a, n, 1), it % 8 == 1);
    }
}
END_TEST

START_TEST(test_random_larger_stone_game_iii)
{
    static int64_t a[2000];
    rng_seed(0x14060);
    for (int it = 0; it < 300; it++) {
        size_t n = (size_t)rng_range(1, 2000);
        int64_t maxv = rng_range(0, 1) ? 1000 : 1;
        for (size_t i = 0; i < n; i++)
            a[i] = rng_range(-maxv, maxv);
        verify(SG3, a, n, CAIRN_LIMITS_OFFICIAL, brute_sg3_dp(a, n, NULL), it % 2);

        n = (size_t)rng_range(1, 2000);
        gen_extended(a, n);
        verify(SG3, a, n, CAIRN_LIMITS_EXTENDED, brute_sg3_dp(a, n, NULL), !(it % 2));
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "moves_replay": every line of play is legal, exact and optimal */
/* ------------------------------------------------------------------ */

START_TEST(test_moves_replay)
{
    static int64_t a[400];
    rng_seed(0x5EED);
    for (int g = 0; g < N_GAMES; g++) {
        for (int it = 0; it < 600; it++) {
            /* mostly small rows (judged move by move by the minimax),
             * some medium ones (judged by the DPs) */
            size_t maxn = it % 5 ? MINIMAX_MAX_N : g == SG1 ? 60 : g == SG2 ? 30 : 400;
            size_t n = (size_t)rng_range(1, (int64_t)maxn);
            gen_extended(a, n);
            verify((enum game)g, a, n, CAIRN_LIMITS_EXTENDED, ref_game((enum game)g, a, n), 1);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "check_rules": stone-game's official cross-field rules         */
/* ------------------------------------------------------------------ */

static int call_check(const struct cairn_plugin *p, const int64_t *a, size_t n,
                      enum cairn_limits lim, char *msg, size_t msg_len)
{
    struct cairn_array arr = { .v = a, .n = n };
    struct cairn_problem pb = { .inputs = &arr, .n_inputs = 1, .limits = lim, .want_moves = 0 };
    if (p->check == NULL)
        return CAIRN_OK;
    return p->check(&pb, msg, msg_len);
}

START_TEST(test_check_official_rules)
{
    const struct cairn_plugin *p = plugin(SG1);
    ck_assert_msg(p->check != NULL, "stone-game needs check() for even length and odd sum");
    static const int64_t odd_len[] = { 5, 3, 5 };     /* odd length, odd sum 13 */
    static const int64_t even_sum[] = { 5, 3, 4, 6 }; /* even length, even sum 18 */
    static const int64_t both[] = { 1, 2, 3 };        /* odd length, even sum */
    static const int64_t good[] = { 5, 3, 4, 5 };
    const struct {
        const int64_t *v;
        size_t n;
    } bad[] = { { odd_len, 3 }, { even_sum, 4 }, { both, 3 } };
    char msg[256];

    for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
        memset(msg, 0, sizeof msg);
        int rc = call_check(p, bad[b].v, bad[b].n, CAIRN_LIMITS_OFFICIAL, msg, sizeof msg);
        ck_assert_msg(rc == CAIRN_E_CONSTRAINT, "official check() of %s returned %d",
                      row_str(bad[b].v, bad[b].n), rc);
        ck_assert_msg(msg[0] != '\0', "official check() of %s gave no message",
                      row_str(bad[b].v, bad[b].n));
        ck_assert_uint_lt(strnlen(msg, sizeof msg), sizeof msg);

        /* A short message buffer is respected and still terminated. */
        char small[32];
        memset(small, 'X', sizeof small);
        rc = call_check(p, bad[b].v, bad[b].n, CAIRN_LIMITS_OFFICIAL, small, 8);
        ck_assert_int_eq(rc, CAIRN_E_CONSTRAINT);
        ck_assert_uint_lt(strnlen(small, 8), 8);
        for (size_t i = 8; i < sizeof small; i++)
            ck_assert_msg(small[i] == 'X', "check() wrote past msg_len");

        /* Extended mode accepts the same rows and solves them. */
        msg[0] = '\0';
        rc = call_check(p, bad[b].v, bad[b].n, CAIRN_LIMITS_EXTENDED, msg, sizeof msg);
        ck_assert_msg(rc == CAIRN_OK, "extended check() refused %s: %s",
                      row_str(bad[b].v, bad[b].n), msg);
        verify(SG1, bad[b].v, bad[b].n, CAIRN_LIMITS_EXTENDED,
               brute_sg1_minimax(bad[b].v, bad[b].n), 1);
    }
    ck_assert_int_eq(call_check(p, good, 4, CAIRN_LIMITS_OFFICIAL, msg, sizeof msg), CAIRN_OK);
    ck_assert_int_eq(call_check(p, good, 4, CAIRN_LIMITS_EXTENDED, msg, sizeof msg), CAIRN_OK);
}
END_TEST

START_TEST(test_check_accepts_valid_rows)
{
    /* The other games have no cross-field rules: any row inside the
     * declared bounds passes check() in both modes (when they have one). */
    static const int64_t sg2_rows[][3] = { { 1, 1, 1 }, { 10000, 2, 7 } };
    static const int64_t sg3_rows[][3] = { { -1000, 0, 1000 }, { 0, 0, 0 } };
    char msg[256];
    for (int lim = 0; lim <= 1; lim++) {
        for (size_t r = 0; r < 2; r++) {
            ck_assert_int_eq(
                call_check(plugin(SG2), sg2_rows[r], 3, (enum cairn_limits)lim, msg, sizeof msg),
                CAIRN_OK);
            ck_assert_int_eq(
                call_check(plugin(SG3), sg3_rows[r], 3, (enum cairn_limits)lim, msg, sizeof msg),
                CAIRN_OK);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "edge_sizes"                                                  */
/* ------------------------------------------------------------------ */

START_TEST(test_single_pile_every_game)
{
    static const int64_t values[] = { -7, -1, 0, 1, 7, 1000000 };
    for (int g = 0; g < N_GAMES; g++)
        for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
            /* Alice must take the one pile, whatever its sign. */
            int64_t a[1] = { values[i] };
            ck_assert_int_eq(ref_value((enum game)g, a, 1, 1, 1), values[i]);
            verify((enum game)g, a, 1, CAIRN_LIMITS_EXTENDED, values[i], 0);
            verify((enum game)g, a, 1, CAIRN_LIMITS_EXTENDED, values[i], 1);
        }
}
END_TEST

START_TEST(test_max_official_stone_game)
{
    static int64_t a[500];
    rng_seed(0x500);
    for (int it = 0; it < 3; it++) {
        gen_sg1_official(a, 500, it == 2 ? 2 : 500);
        int64_t d = brute_sg1_dp(a, 500);
        verify(SG1, a, 500, CAIRN_LIMITS_OFFICIAL, d, 0);
        verify(SG1, a, 500, CAIRN_LIMITS_OFFICIAL, d, 1);
    }
    /* all 500 but one pile at the maximum value */
    for (size_t i = 0; i < 500; i++)
        a[i] = 500;
    a[250] = 499;
    verify(SG1, a, 500, CAIRN_LIMITS_OFFICIAL, brute_sg1_dp(a, 500), 1);
}
END_TEST

START_TEST(test_max_official_stone_game_ii)
{
    static int64_t a[100];
    rng_seed(0x100);
    for (int it = 0; it < 3; it++) {
        for (size_t i = 0; i < 100; i++)
            a[i] = it == 2 ? 10000 : rng_range(1, 10000);
        int64_t d = brute_sg2_dp(a, 100, 1);
        verify(SG2, a, 100, CAIRN_LIMITS_OFFICIAL, d, 0);
        verify(SG2, a, 100, CAIRN_LIMITS_OFFICIAL, d, 1);
    }
}
END_TEST

/* Longer rows than the random tests': the kernel fills its table by a
 * scan per entry up to 64 piles and by sliding windows past that, and
 * both ways must agree with the reference, negative values included. */
START_TEST(test_long_extended_stone_game_ii)
{
    static int64_t a[300];
    rng_seed(0x1141);
    for (int it = 0; it < 8; it++) {
        size_t n = (size_t)(it < 4 ? rng_range(41, 64) : rng_range(65, 300));
        gen_extended(a, n);
        verify(SG2, a, n, CAIRN_LIMITS_EXTENDED, brute_sg2_dp(a, n, 1), it % 2);
    }
}
END_TEST

START_TEST(test_max_official_stone_game_iii)
{
    static int64_t a[50000];
    rng_seed(0x50000);
    for (int it = 0; it < 4; it++) {
        for (size_t i = 0; i < 50000; i++)
            a[i] = it == 2 ? -1000 : it == 3 ? rng_range(-1, 1) : rng_range(-1000, 1000);
        int64_t d = brute_sg3_dp(a, 50000, NULL);
        verify(SG3, a, 50000, CAIRN_LIMITS_OFFICIAL, d, 0);
        verify(SG3, a, 50000, CAIRN_LIMITS_OFFICIAL, d, 1);
    }
}
END_TEST

/* Values at the plugin's extended extremes: the kernels must stay 64-bit. */
START_TEST(test_extended_large_values)
{
    static int64_t a[300];
    rng_seed(0xB16);
    for (int g = 0; g < N_GAMES; g++) {
        const struct cairn_plugin *p = plugin((enum game)g);
        const struct cairn_bounds *e = &p->inputs[0].extended;
        size_t n = g == SG2 ? 60 : 300;
        if (n > e->max_len)
            n = e->max_len;
        /* keep 4 * n * |v| inside int64 for the references */
        int64_t lim = INT64_MAX / 4 / (int64_t)n;
        int64_t hi = e->max_value < lim ? e->max_value : lim;
        int64_t lo = e->min_value > -lim ? e->min_value : -lim;
        ck_assert_int_gt(hi, INT64_C(1) << 32); /* "what 64-bit arithmetic allows" */
        ck_assert_int_lt(lo, -(INT64_C(1) << 32));
        for (int it = 0; it < 20; it++) {
            size_t len = it < 2 ? n : (size_t)rng_range(1, (int64_t)n);
            for (size_t i = 0; i < len; i++) {
                int r = (int)rng_range(0, 3);
                a[i] = r == 0 ? hi : r == 1 ? lo : rng_range(lo, hi);
            }
            int64_t d = ref_value((enum game)g, a, len, 1, len <= MINIMAX_MAX_N);
            verify((enum game)g, a, len, CAIRN_LIMITS_EXTENDED, d, it % 2);
        }
    }
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *solvers_suite(void)
{
    Suite *s = suite_create("solvers");
    TCase *tc;

    tc = tcase_create("loading");
    tcase_add_test(tc, test_plugins_load_by_name_and_alias);
    tcase_add_test(tc, test_descriptors_declare_the_spec);
    suite_add_tcase(s, tc);

    tc = tcase_create("official_examples");
    tcase_add_test(tc, test_examples_stone_game);
    tcase_add_test(tc, test_examples_stone_game_ii);
    tcase_add_test(tc, test_examples_stone_game_iii);
    tcase_add_test(tc, test_targeted_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("reference_self_check");
    tcase_add_test(tc, test_references_agree);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("random_small_vs_minimax");
    tcase_add_test(tc, test_random_small_stone_game);
    tcase_add_test(tc, test_random_small_stone_game_ii);
    tcase_add_test(tc, test_random_small_stone_game_iii);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("random_larger_vs_dp");
    tcase_add_test(tc, test_random_larger_stone_game);
    tcase_add_test(tc, test_random_larger_stone_game_ii);
    tcase_add_test(tc, test_random_larger_stone_game_iii);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("moves_replay");
    tcase_add_test(tc, test_moves_replay);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("check_rules");
    tcase_add_test(tc, test_check_official_rules);
    tcase_add_test(tc, test_check_accepts_valid_rows);
    suite_add_tcase(s, tc);

    tc = tcase_create("edge_sizes");
    tcase_add_test(tc, test_single_pile_every_game);
    tcase_add_test(tc, test_max_official_stone_game);
    tcase_add_test(tc, test_max_official_stone_game_ii);
    tcase_add_test(tc, test_long_extended_stone_game_ii);
    tcase_add_test(tc, test_max_official_stone_game_iii);
    tcase_add_test(tc, test_extended_large_values);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    g_plugin_dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_plugin_dir == NULL || g_plugin_dir[0] == '\0') {
        fprintf(stderr, "test_solvers: CAIRN_TEST_PLUGIN_DIR is not set: it must name the "
                        "folder holding stone-game.so, stone-game-ii.so and stone-game-iii.so "
                        "(meson test sets it)\n");
        return EXIT_FAILURE;
    }
    g_load_rc = cairn_registry_load(&g_reg, g_plugin_dir);
    if (g_load_rc != 0 || g_reg.n_errors != 0) {
        fprintf(stderr, "test_solvers: cairn_registry_load(%s) returned %d:\n", g_plugin_dir,
                g_load_rc);
        for (size_t i = 0; i < g_reg.n_errors; i++)
            fprintf(stderr, "  %s\n", g_reg.errors[i]);
    }

    int failed = th_run_suite(solvers_suite(), CK_NORMAL, 1);
    cairn_registry_free(&g_reg);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
