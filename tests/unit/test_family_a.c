/*
 * test_family_a.c - stone-game-iv, -v, -vi and -vii (LeetCode 1510, 1563,
 * 1686, 1690) against the reference solvers of brute_family_a.c.
 *
 * The plugins are opened with dlopen straight from $CAIRN_TEST_PLUGIN_DIR,
 * not through the core's loader.  They are driven the way the host drives them: every input inside its declared
 * bounds and the equal_length arrays equal, check() when present, a scratch
 * buffer of scratch_bytes() filled with garbage, a moves buffer of
 * max_moves() entries with a canary after it, then solve().
 *
 * Answers are compared with the exhaustive minimax (small inputs) or the
 * textbook DPs (larger ones).  Lines of play are replayed move by move:
 * each move must be legal, keep the optimal value, follow the tie rule
 * plugins/README.md documents, and the whole line must reproduce the answer
 * and the totals.  Randomness is splitmix64 with a fixed seed per test, and
 * every failure message prints the input.
 */
#include <check.h>
#include <dlfcn.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "rng.h"
#include "brute_family_a.h"
#include "cairn/plugin.h"

/* ck_assert_msg without its cost on success: Check records a "last
 * passed point" for every passing ck_assert (a write to its log), which
 * dominates loops over millions of stones. */
#define CHECK_MSG(expr, ...)           \
    do {                               \
        if (!(expr))                   \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

enum game {
    SG4 = 0,
    SG5 = 1,
    SG6 = 2,
    SG7 = 3,
    N_GAMES = 4
};

static const char *const game_name[N_GAMES] = { "stone-game-iv", "stone-game-v", "stone-game-vi",
                                                "stone-game-vii" };
static const char *const game_alias[N_GAMES] = { "1510", "1563", "1686", "1690" };

static void *g_dl[N_GAMES];
static const struct cairn_plugin *g_desc[N_GAMES];
static char g_load_error[N_GAMES][512];
static const char *g_plugin_dir;

/* Piles up to this size are judged by the exhaustive stone-game-iv search;
 * the DP table below covers every pile up to SG4_TABLE_N. */
#define SG4_MINIMAX_MAX 50
#define SG4_TABLE_N     1000000
static uint8_t *g_sg4_win; /* g_sg4_win[m]: the player to move on m wins */

#define SG5_MINIMAX_MAX_N 13
#define SG6_MINIMAX_MAX_N 7
#define SG7_MINIMAX_MAX_N 16

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static const char *lim_str(enum cairn_limits lim)
{
    return lim == CAIRN_LIMITS_OFFICIAL ? "official" : "extended";
}

static const struct cairn_plugin *plugin(enum game g)
{
    CHECK_MSG(g_desc[g] != NULL, "plugin %s did not load from %s: %s", game_name[g],
              g_plugin_dir ? g_plugin_dir : "(unset)", g_load_error[g]);
    return g_desc[g];
}

static int64_t sum_of(const int64_t *a, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

static int64_t isqrt64(int64_t x)
{
    int64_t r = 0;
    while ((r + 1) * (r + 1) <= x)
        r++;
    return r;
}

/* ------------------------------------------------------------------ */
/* Driving a plugin the way the host does                              */
/* ------------------------------------------------------------------ */

#define MOVES_CANARY INT32_C(0x5A5A5A5A)

struct outcome {
    struct cairn_result res;
    int32_t *moves; /* owned; NULL unless want_moves */
    size_t cap;
};

/* What the host checks before it calls the plugin: each input inside the
 * declared bounds for these limits, and the equal_length arrays equal.  A
 * failure here is a test bug, or a plugin declaring less than it should. */
static void assert_host_accepts(const struct cairn_plugin *p, const struct cairn_array *in,
                                size_t n_in, enum cairn_limits lim)
{
    ck_assert_uint_eq(n_in, p->n_inputs);
    for (size_t k = 0; k < n_in; k++) {
        const struct cairn_input_decl *d = &p->inputs[k];
        const struct cairn_bounds *b = lim == CAIRN_LIMITS_OFFICIAL ? &d->official : &d->extended;
        if (d->kind == CAIRN_INPUT_INT)
            ck_assert_uint_eq(in[k].n, 1);
        else
            CHECK_MSG(in[k].n >= b->min_len && in[k].n <= b->max_len,
                      "%s: %s has length %zu, outside the %s bounds %zu..%zu", p->name, d->name,
                      in[k].n, lim_str(lim), b->min_len, b->max_len);
        for (size_t i = 0; i < in[k].n; i++)
            CHECK_MSG(in[k].v[i] >= b->min_value && in[k].v[i] <= b->max_value,
                      "%s: %s[%zu] = %" PRId64 " is outside the %s bounds", p->name, d->name, i,
                      in[k].v[i], lim_str(lim));
        if (p->equal_length & (UINT32_C(1) << k))
            ck_assert_uint_eq(in[k].n, in[0].n);
    }
}

/* check() (must accept), scratch_bytes(), max_moves(), solve() (must
 * succeed).  The scratch is filled with garbage first, so a kernel relying
 * on zeroed memory fails; one entry past moves_cap is a canary. */
static void run_plugin(enum game g, const struct cairn_array *in, size_t n_in,
                       enum cairn_limits lim, int want_moves, struct outcome *o)
{
    const struct cairn_plugin *p = plugin(g);
    struct cairn_problem pb = {
        .inputs = in, .n_inputs = n_in, .limits = lim, .want_moves = want_moves
    };
    char msg[256];

    assert_host_accepts(p, in, n_in, lim);
    memset(o, 0, sizeof *o);
    if (p->check != NULL) {
        msg[0] = '\0';
        int rc = p->check(&pb, msg, sizeof msg);
        CHECK_MSG(rc == CAIRN_OK, "%s: check() refused %s (%s): rc %d: %s", p->name,
                  th_row_str(in[0].v, in[0].n), lim_str(lim), rc, msg);
    }
    size_t sb = p->scratch_bytes(&pb);
    void *scratch = malloc(sb ? sb : 1);
    ck_assert_ptr_nonnull(scratch);
    memset(scratch, 0xA5, sb ? sb : 1);

    if (want_moves) {
        o->cap = p->max_moves(&pb);
        o->moves = malloc((o->cap + 1) * sizeof *o->moves);
        ck_assert_ptr_nonnull(o->moves);
        for (size_t i = 0; i <= o->cap; i++)
            o->moves[i] = MOVES_CANARY;
        o->res.moves = o->moves;
        o->res.moves_cap = o->cap;
    }
    msg[0] = '\0';
    int rc = p->solve(&pb, &o->res, scratch, msg, sizeof msg);
    free(scratch);
    CHECK_MSG(rc == CAIRN_OK, "%s: solve() failed on %s (%s): rc %d: %s", p->name,
              th_row_str(in[0].v, in[0].n), lim_str(lim), rc, msg);
    if (want_moves) {
        CHECK_MSG(o->res.n_moves <= o->cap, "%s: n_moves %zu > moves_cap %zu", p->name,
                  o->res.n_moves, o->cap);
        CHECK_MSG(o->moves[o->cap] == MOVES_CANARY, "%s: solve() wrote past moves_cap on %s",
                  p->name, th_row_str(in[0].v, in[0].n));
        CHECK_MSG(o->res.moves == o->moves && o->res.moves_cap == o->cap,
                  "%s: solve() changed result.moves or moves_cap", p->name);
    } else {
        CHECK_MSG(o->res.n_moves == 0, "%s: n_moves %zu set although moves were not wanted",
                  p->name, o->res.n_moves);
    }
}

static void run1(enum game g, const int64_t *a, size_t n, enum cairn_limits lim, int want_moves,
                 struct outcome *o)
{
    struct cairn_array in = { .v = a, .n = n };
    run_plugin(g, &in, 1, lim, want_moves, o);
}

/* ------------------------------------------------------------------ */
/* stone-game-iv: verification and replay                              */
/* ------------------------------------------------------------------ */

/* The player to move on a pile of m wins (the DP table, checked against the
 * minimax by test_references_agree). */
static int sg4_wins(int64_t m)
{
    CHECK_MSG(m >= 0 && m <= SG4_TABLE_N, "pile %" PRId64 " outside the reference table", m);
    return g_sg4_win[m];
}

/* The line of play: squares no larger than the pile, ending on an empty
 * pile.  The winner must leave a losing pile, and (the documented rule)
 * the largest square that does; the loser takes the largest square. */
static void sg4_replay(int64_t n, const struct outcome *o)
{
    int64_t m = n;
    for (size_t t = 0; t < o->res.n_moves; t++) {
        int64_t x = o->moves[t];
        int64_t r = isqrt64(x);
        CHECK_MSG(x >= 1 && r * r == x && x <= m,
                  "stone-game-iv n=%" PRId64 ": move %zu removes %" PRId64 " from %" PRId64
                  " (not a square up to the pile)",
                  n, t, x, m);
        int64_t largest = isqrt64(m);
        if (sg4_wins(m)) {
            CHECK_MSG(!sg4_wins(m - x),
                      "stone-game-iv n=%" PRId64 ": move %zu removes %" PRId64 " from the "
                      "winning pile %" PRId64 " and leaves a winning pile",
                      n, t, x, m);
            for (int64_t k = r + 1; k <= largest; k++)
                CHECK_MSG(sg4_wins(m - k * k),
                          "stone-game-iv n=%" PRId64 ": move %zu removes %" PRId64 ", but %" PRId64
                          " also wins and is larger",
                          n, t, x, k * k);
        } else {
            CHECK_MSG(r == largest,
                      "stone-game-iv n=%" PRId64 ": the losing mover on %" PRId64
                      " removes %" PRId64 ", not the largest square",
                      n, m, x);
        }
        m -= x;
    }
    CHECK_MSG(m == 0, "stone-game-iv n=%" PRId64 ": the line stops with %" PRId64 " left", n, m);
    /* Whoever makes the last move wins. */
    CHECK_MSG((int64_t)(o->res.n_moves % 2) == o->res.answer,
              "stone-game-iv n=%" PRId64 ": %zu moves but answer %" PRId64, n, o->res.n_moves,
              o->res.answer);
}

static void verify_sg4(int64_t n, enum cairn_limits lim, int expect, int want_moves)
{
    struct outcome o;
    run1(SG4, &n, 1, lim, want_moves, &o);
    CHECK_MSG(o.res.answer == expect,
              "stone-game-iv n=%" PRId64 " (%s): answer %" PRId64 ", expected %d", n, lim_str(lim),
              o.res.answer, expect);
    CHECK_MSG(o.res.alice == 0 && o.res.bob == 0, "stone-game-iv: totals set in a game "
                                                  "without totals");
    if (want_moves)
        sg4_replay(n, &o);
    free(o.moves);
}

/* ------------------------------------------------------------------ */
/* stone-game-v: verification and replay                               */
/* ------------------------------------------------------------------ */

/* The value of the row a[lo..hi] (inclusive): the minimax for short rows,
 * else the DP table of the whole row (n x n). */
static int64_t sg5_value(const int64_t *a, size_t n, const int64_t *table, size_t lo, size_t hi)
{
    if (table)
        return table[lo * n + hi];
    return brute_sg5_minimax(a + lo, hi - lo + 1);
}

static void sg5_replay(const int64_t *a, size_t n, const struct outcome *o, const int64_t *table)
{
    size_t lo = 0, hi = n - 1;
    int64_t score = 0;
    /* a round drops at least one stone: at most n - 1 rounds */
    CHECK_MSG(o->res.n_moves <= n - 1, "stone-game-v %s: %zu rounds for %zu stones",
              th_row_str(a, n), o->res.n_moves, n);
    for (size_t t = 0; t < o->res.n_moves; t++) {
        int32_t m = o->moves[t];
        CHECK_MSG(m >= 0, "stone-game-v %s: move %zu is %" PRId32, th_row_str(a, n), t, m);
        size_t k = (size_t)CAIRN_MOVE_SPLIT_AT(m);
        int right = CAIRN_MOVE_SPLIT_KEEPS_RIGHT(m);
        CHECK_MSG(k > lo && k <= hi,
                  "stone-game-v %s: move %zu cuts before %zu, outside the row [%zu, %zu]",
                  th_row_str(a, n), t, k, lo, hi);
        int64_t sl = sum_of(a + lo, k - lo), sr = sum_of(a + k, hi + 1 - k);
        CHECK_MSG(right ? sl >= sr : sl <= sr,
                  "stone-game-v %s: move %zu keeps the %s part (%" PRId64 " vs %" PRId64
                  "): Bob throws away the larger one",
                  th_row_str(a, n), t, right ? "right" : "left", sl, sr);
        int64_t here = sg5_value(a, n, table, lo, hi);
        int64_t kept = right ? sr : sl;
        size_t nlo = right ? k : lo, nhi = right ? hi : k - 1;
        int64_t after = sg5_value(a, n, table, nlo, nhi);
        CHECK_MSG(kept + after == here,
                  "stone-game-v %s: move %zu (cut %zu keep %c on [%zu, %zu]) is worth %" PRId64
                  ", best is %" PRId64,
                  th_row_str(a, n), t, k, right ? 'R' : 'L', lo, hi, kept + after, here);
        score += kept;
        lo = nlo;
        hi = nhi;
    }
    CHECK_MSG(lo == hi, "stone-game-v %s: the line ends on [%zu, %zu]", th_row_str(a, n), lo, hi);
    CHECK_MSG(score == o->res.answer, "stone-game-v %s: replay scores %" PRId64 ", answer %" PRId64,
              th_row_str(a, n), score, o->res.answer);
}

static void verify_sg5(const int64_t *a, size_t n, enum cairn_limits lim, int64_t expect,
                       int want_moves)
{
    struct outcome o;
    run1(SG5, a, n, lim, want_moves, &o);
    CHECK_MSG(o.res.answer == expect, "stone-game-v %s (%s): answer %" PRId64 ", expected %" PRId64,
              th_row_str(a, n), lim_str(lim), o.res.answer, expect);
    CHECK_MSG(o.res.alice == expect && o.res.bob == 0,
              "stone-game-v %s: alice %" PRId64 " bob %" PRId64 " (totals: Alice's score)",
              th_row_str(a, n), o.res.alice, o.res.bob);
    if (want_moves) {
        int64_t *table = NULL;
        if (n > SG5_MINIMAX_MAX_N) {
            table = malloc(n * n * sizeof *table);
            ck_assert_ptr_nonnull(table);
            ck_assert_int_eq(brute_sg5_dp(a, n, table), expect);
        }
        sg5_replay(a, n, &o, table);
        free(table);
    }
    free(o.moves);
}

/* ------------------------------------------------------------------ */
/* stone-game-vi: verification and replay                              */
/* ------------------------------------------------------------------ */

static void run_sg6(const int64_t *a, const int64_t *b, size_t n, enum cairn_limits lim,
                    int want_moves, struct outcome *o)
{
    struct cairn_array in[2] = { { .v = a, .n = n }, { .v = b, .n = n } };
    run_plugin(SG6, in, 2, lim, want_moves, o);
}

/* The line must be the documented one (a + b descending, equal sums in
 * index order: what the greedy reference produces), and for short rows
 * every move must keep both the win/draw/lose value and the margin value
 * of the exhaustive search. */
static void sg6_replay(const int64_t *a, const int64_t *b, size_t n, const struct outcome *o,
                       const size_t *order)
{
    uint8_t *seen = calloc(n, 1);
    ck_assert_ptr_nonnull(seen);
    ck_assert_uint_eq(o->res.n_moves, n);
    int64_t pts[2] = { 0, 0 };
    uint32_t taken = 0;
    for (size_t t = 0; t < n; t++) {
        int32_t i = o->moves[t];
        CHECK_MSG(i >= 0 && (size_t)i < n && !seen[i],
                  "stone-game-vi a=%s b=%s: move %zu takes stone %" PRId32
                  " (out of range or gone)",
                  th_row_str(a, n), th_row_str(b, n), t, i);
        CHECK_MSG((size_t)i == order[t],
                  "stone-game-vi a=%s b=%s: move %zu takes stone %" PRId32 ", the documented "
                  "line takes %zu (largest a+b, lowest index first)",
                  th_row_str(a, n), th_row_str(b, n), t, i, order[t]);
        int alice = t % 2 == 0;
        if (n <= SG6_MINIMAX_MAX_N) {
            int64_t diff = pts[0] - pts[1];
            int before = brute_sg6_outcome(a, b, n, taken, alice, diff);
            int64_t gain = alice ? a[i] : -b[i];
            int after = brute_sg6_outcome(a, b, n, taken | (UINT32_C(1) << i), !alice, diff + gain);
            CHECK_MSG(before == after,
                      "stone-game-vi a=%s b=%s: move %zu (stone %" PRId32 ") changes the "
                      "outcome from %d to %d",
                      th_row_str(a, n), th_row_str(b, n), t, i, before, after);
            int64_t m_before = brute_sg6_margin(a, b, n, taken, alice);
            int64_t m_after = brute_sg6_margin(a, b, n, taken | (UINT32_C(1) << i), !alice);
            CHECK_MSG(gain + m_after == m_before,
                      "stone-game-vi a=%s b=%s: move %zu (stone %" PRId32 ") is worth %" PRId64
                      " on the margin, best is %" PRId64,
                      th_row_str(a, n), th_row_str(b, n), t, i, gain + m_after, m_before);
        }
        seen[i] = 1;
        taken |= n <= 32 ? UINT32_C(1) << i : 0;
        pts[t % 2] += alice ? a[i] : b[i];
    }
    free(seen);
    CHECK_MSG(pts[0] == o->res.alice && pts[1] == o->res.bob,
              "stone-game-vi a=%s b=%s: replay gives %" PRId64 " / %" PRId64
              ", solve() reported %" PRId64 " / %" PRId64,
              th_row_str(a, n), th_row_str(b, n), pts[0], pts[1], o->res.alice, o->res.bob);
}

/* expect: the answer from the exhaustive search (small rows) or the greedy
 * (larger); the totals must be those of the documented line. */
static void verify_sg6(const int64_t *a, const int64_t *b, size_t n, enum cairn_limits lim,
                       int expect, int want_moves)
{
    struct outcome o;
    size_t *order = malloc(n * sizeof *order);
    int64_t ga, gb;
    ck_assert_ptr_nonnull(order);
    ck_assert_int_ne(brute_sg6_greedy(a, b, n, order, &ga, &gb), -2);

    run_sg6(a, b, n, lim, want_moves, &o);
    CHECK_MSG(o.res.answer == expect,
              "stone-game-vi a=%s b=%s (%s): answer %" PRId64 ", expected %d", th_row_str(a, n),
              th_row_str(b, n), lim_str(lim), o.res.answer, expect);
    CHECK_MSG(o.res.alice == ga && o.res.bob == gb,
              "stone-game-vi a=%s b=%s: totals %" PRId64 " / %" PRId64
              ", the documented line gives %" PRId64 " / %" PRId64,
              th_row_str(a, n), th_row_str(b, n), o.res.alice, o.res.bob, ga, gb);
    int64_t margin = o.res.alice - o.res.bob;
    CHECK_MSG(o.res.answer == (margin > 0   ? 1
                               : margin < 0 ? -1
                                            : 0),
              "stone-game-vi: answer %" PRId64 " but margin %" PRId64, o.res.answer, margin);
    if (n <= SG6_MINIMAX_MAX_N)
        CHECK_MSG(margin == brute_sg6_margin(a, b, n, 0, 1),
                  "stone-game-vi a=%s b=%s: margin %" PRId64 " is not the minimax margin %" PRId64,
                  th_row_str(a, n), th_row_str(b, n), margin, brute_sg6_margin(a, b, n, 0, 1));
    if (want_moves)
        sg6_replay(a, b, n, &o, order);
    free(order);
    free(o.moves);
}

/* ------------------------------------------------------------------ */
/* stone-game-vii: verification and replay                             */
/* ------------------------------------------------------------------ */

/* The value of a[lo..hi] (inclusive) for the player to move. */
static int64_t sg7_value(const int64_t *a, size_t n, const int64_t *table, size_t lo, size_t hi)
{
    if (table)
        return table[lo * n + hi];
    return brute_sg7_minimax(a + lo, hi - lo + 1);
}

/* Follows the documented line (remove the left stone unless the right one
 * is strictly better) with the reference values; fills the two scores and,
 * when side is not NULL, the side of each move. */
static void sg7_reference_line(const int64_t *a, size_t n, const int64_t *table, int64_t *alice,
                               int64_t *bob, int *side)
{
    size_t lo = 0, hi = n - 1;
    int64_t score[2] = { 0, 0 };
    for (size_t t = 0; t < n; t++) {
        int right = 0;
        int64_t gain = 0;
        if (lo < hi) {
            int64_t sl = sum_of(a + lo + 1, hi - lo), sr = sum_of(a + lo, hi - lo);
            int64_t vl = sl - sg7_value(a, n, table, lo + 1, hi);
            int64_t vr = sr - sg7_value(a, n, table, lo, hi - 1);
            right = vr > vl;
            gain = right ? sr : sl;
        }
        if (side)
            side[t] = right;
        score[t % 2] += gain;
        if (right)
            hi--;
        else
            lo++;
    }
    *alice = score[0];
    *bob = score[1];
}

static void sg7_replay(const int64_t *a, size_t n, const struct outcome *o, const int64_t *table)
{
    int *side = malloc(n * sizeof *side);
    int64_t ea, eb;
    ck_assert_ptr_nonnull(side);
    sg7_reference_line(a, n, table, &ea, &eb, side);
    CHECK_MSG(o->res.n_moves == n, "stone-game-vii %s: %zu moves for %zu stones", th_row_str(a, n),
              o->res.n_moves, n);
    size_t lo = 0, hi = n - 1;
    int64_t score[2] = { 0, 0 };
    for (size_t t = 0; t < n; t++) {
        int32_t m = o->moves[t];
        CHECK_MSG(m == 0 || m == 1, "stone-game-vii %s: move %zu is %" PRId32, th_row_str(a, n), t,
                  m);
        int64_t gain = m ? sum_of(a + lo, hi - lo) : sum_of(a + lo + 1, hi - lo);
        if (lo < hi) {
            int64_t here = sg7_value(a, n, table, lo, hi);
            int64_t after =
                m ? sg7_value(a, n, table, lo, hi - 1) : sg7_value(a, n, table, lo + 1, hi);
            CHECK_MSG(gain - after == here,
                      "stone-game-vii %s: move %zu (%c on [%zu, %zu]) is worth %" PRId64
                      ", best is %" PRId64,
                      th_row_str(a, n), t, m ? 'R' : 'L', lo, hi, gain - after, here);
        }
        CHECK_MSG(m == side[t],
                  "stone-game-vii %s: move %zu is %c, the documented line (L unless R is "
                  "strictly better) plays %c",
                  th_row_str(a, n), t, m ? 'R' : 'L', side[t] ? 'R' : 'L');
        score[t % 2] += gain;
        if (m)
            hi--;
        else
            lo++;
    }
    free(side);
    CHECK_MSG(score[0] == o->res.alice && score[1] == o->res.bob,
              "stone-game-vii %s: replay gives %" PRId64 " / %" PRId64 ", solve() reported %" PRId64
              " / %" PRId64,
              th_row_str(a, n), score[0], score[1], o->res.alice, o->res.bob);
}

/* expect: the reference difference.  The totals are checked against the
 * documented line (with the minimax for short rows, the DP table else). */
static void verify_sg7(const int64_t *a, size_t n, enum cairn_limits lim, int64_t expect,
                       int want_moves)
{
    struct outcome o;
    int64_t *table = NULL;
    int64_t ea, eb;

    if (n > SG7_MINIMAX_MAX_N) {
        table = malloc(n * n * sizeof *table);
        ck_assert_ptr_nonnull(table);
        ck_assert_int_eq(brute_sg7_dp(a, n, table), expect);
    }
    run1(SG7, a, n, lim, want_moves, &o);
    CHECK_MSG(o.res.answer == expect,
              "stone-game-vii %s (%s): answer %" PRId64 ", expected %" PRId64, th_row_str(a, n),
              lim_str(lim), o.res.answer, expect);
    CHECK_MSG(o.res.alice - o.res.bob == expect,
              "stone-game-vii %s: alice %" PRId64 " - bob %" PRId64 " != answer %" PRId64,
              th_row_str(a, n), o.res.alice, o.res.bob, expect);
    sg7_reference_line(a, n, table, &ea, &eb, NULL);
    CHECK_MSG(o.res.alice == ea && o.res.bob == eb,
              "stone-game-vii %s (%s, moves %d): totals %" PRId64 " / %" PRId64
              ", the documented line gives %" PRId64 " / %" PRId64,
              th_row_str(a, n), lim_str(lim), want_moves, o.res.alice, o.res.bob, ea, eb);
    if (want_moves)
        sg7_replay(a, n, &o, table);
    free(table);
    free(o.moves);
}

/* ------------------------------------------------------------------ */
/* Generators                                                          */
/* ------------------------------------------------------------------ */

/* stone-game-v rows, most of them tie-heavy: small values, repeats, powers
 * of two, mirrored blocks.  maxv caps the values (official: 1e6). */
static void gen_sg5(int64_t *a, size_t n, int64_t maxv)
{
    int style = (int)th_rng_range(0, 6);
    int64_t c = th_rng_range(1, 5);
    for (size_t i = 0; i < n; i++) {
        switch (style) {
        case 0: a[i] = th_rng_range(1, maxv); break;
        case 1: a[i] = th_rng_range(1, 3); break;
        case 2:
            a[i] = INT64_C(1) << th_rng_range(0, 4); /* 1, 2, 4, 8, 16 */
            break;
        case 3: a[i] = c; break;
        case 4: a[i] = th_rng_range(1, 8); break;
        case 5: /* a block and its mirror image: equal halves everywhere */
            a[i] = i < (n + 1) / 2 ? th_rng_range(1, 4) : a[n - 1 - i];
            break;
        default: a[i] = th_rng_range(0, 3) ? th_rng_range(1, 2) : th_rng_range(1, maxv); break;
        }
        if (a[i] > maxv)
            a[i] = maxv;
    }
}

/* stone-game-vi rows within [lo, hi] (official: 1..100).  Style 2 is the
 * draw profile of docs/games.md: every a + b = s and sum b = s * ceil(n/2),
 * so the optimal margin is exactly 0. */
static void gen_sg6(int64_t *a, int64_t *b, size_t n, int64_t lo, int64_t hi)
{
    int style = (int)th_rng_range(0, 4);
    if (style == 2 && n >= 2 && lo <= 1 && hi >= 100) {
        int64_t s = th_rng_range(4, 100);
        int64_t want = s * (int64_t)((n + 1) / 2);
        int64_t room = (int64_t)n * (s - 2); /* b in [1, s - 1] */
        if (want - (int64_t)n <= room) {
            int64_t rest = want - (int64_t)n;
            for (size_t i = 0; i < n; i++)
                b[i] = 1;
            while (rest > 0) {
                size_t i = (size_t)th_rng_range(0, (int64_t)n - 1);
                if (b[i] < s - 1) {
                    b[i]++;
                    rest--;
                }
            }
            for (size_t i = 0; i < n; i++)
                a[i] = s - b[i];
            return;
        }
    }
    for (size_t i = 0; i < n; i++) {
        switch (style) {
        case 0:
            a[i] = th_rng_range(lo, hi);
            b[i] = th_rng_range(lo, hi);
            break;
        case 1: /* few distinct sums: ties in a + b everywhere */
            a[i] = th_rng_range(lo, lo + 2 < hi ? lo + 2 : hi);
            b[i] = th_rng_range(lo, lo + 2 < hi ? lo + 2 : hi);
            break;
        case 3: /* b falls as a rises: own-value and a + b orders differ */
            a[i] = th_rng_range(lo, hi);
            b[i] = hi - (a[i] - lo) / 2;
            break;
        default:
            a[i] = th_rng_range(lo, hi);
            b[i] = a[i];
            break;
        }
    }
}

/* stone-game-vii rows within [lo, hi]. */
static void gen_sg7(int64_t *a, size_t n, int64_t lo, int64_t hi)
{
    int style = (int)th_rng_range(0, 3);
    int64_t c = th_rng_range(lo, hi);
    for (size_t i = 0; i < n; i++) {
        switch (style) {
        case 0: a[i] = th_rng_range(lo, hi); break;
        case 1: a[i] = th_rng_range(lo, lo + 2 < hi ? lo + 2 : hi); break;
        case 2: a[i] = c; break;
        default: a[i] = th_rng_range(0, 1) ? lo : hi; break;
        }
    }
}

/* ------------------------------------------------------------------ */
/* TCase "descriptors"                                                 */
/* ------------------------------------------------------------------ */

START_TEST(test_descriptors_declare_the_games)
{
    static const struct {
        const char *inputs[2];
        size_t n_inputs;
        enum cairn_input_kind kind;
        struct cairn_bounds official;
        enum cairn_answer_kind answer;
        enum cairn_moves_kind moves;
        uint32_t equal_length, totals;
    } want[N_GAMES] = {
        { { "n" },
          1,
          CAIRN_INPUT_INT,
          { 1, 1, 1, 100000 },
          CAIRN_ANSWER_BOOL,
          CAIRN_MOVES_COUNT,
          0,
          0 },
        { { "stoneValue" },
          1,
          CAIRN_INPUT_INT_ARRAY,
          { 1, 500, 1, 1000000 },
          CAIRN_ANSWER_INT,
          CAIRN_MOVES_SPLIT,
          0,
          CAIRN_TOTAL_ALICE },
        { { "aliceValues", "bobValues" },
          2,
          CAIRN_INPUT_INT_ARRAY,
          { 1, 100000, 1, 100 },
          CAIRN_ANSWER_INT,
          CAIRN_MOVES_INDEX,
          0x3,
          CAIRN_TOTAL_ALICE | CAIRN_TOTAL_BOB | CAIRN_TOTAL_MARGIN },
        { { "stones" },
          1,
          CAIRN_INPUT_INT_ARRAY,
          { 2, 1000, 1, 1000 },
          CAIRN_ANSWER_INT,
          CAIRN_MOVES_SIDE,
          0,
          CAIRN_TOTALS_ALL },
    };
    for (int g = 0; g < N_GAMES; g++) {
        const struct cairn_plugin *p = plugin((enum game)g);
        ck_assert_uint_eq(p->abi_major, CAIRN_PLUGIN_ABI_MAJOR);
        ck_assert_uint_eq(p->abi_minor, CAIRN_PLUGIN_ABI_MINOR);
        ck_assert_uint_eq(p->struct_size, sizeof(struct cairn_plugin));
        ck_assert_str_eq(p->name, game_name[g]);
        ck_assert_ptr_nonnull(p->version);
        ck_assert_ptr_nonnull(p->summary);
        ck_assert_ptr_nonnull(p->solve);
        ck_assert_ptr_nonnull(p->scratch_bytes);
        ck_assert_ptr_nonnull(p->max_moves);
        int has_alias = 0;
        for (size_t i = 0; p->aliases && p->aliases[i]; i++)
            has_alias |= strcmp(p->aliases[i], game_alias[g]) == 0;
        CHECK_MSG(has_alias, "%s does not list the alias %s", p->name, game_alias[g]);
        ck_assert_int_eq(p->answer_kind, want[g].answer);
        ck_assert_int_eq(p->moves_kind, want[g].moves);
        ck_assert_uint_eq(p->equal_length, want[g].equal_length);
        ck_assert_uint_eq(p->totals, want[g].totals);
        ck_assert_uint_eq(p->n_inputs, want[g].n_inputs);
        for (size_t k = 0; k < p->n_inputs; k++) {
            const struct cairn_input_decl *d = &p->inputs[k];
            const struct cairn_bounds *o = &d->official, *e = &d->extended, *w = &want[g].official;
            ck_assert_str_eq(d->name, want[g].inputs[k]);
            ck_assert_int_eq(d->kind, want[g].kind);
            /* the LeetCode constraints exactly (the length of a scalar is
             * ignored by the host) */
            CHECK_MSG(o->min_value == w->min_value && o->max_value == w->max_value &&
                          (d->kind == CAIRN_INPUT_INT ||
                           (o->min_len == w->min_len && o->max_len == w->max_len)),
                      "%s.%s: official bounds len %zu..%zu values %" PRId64 "..%" PRId64, p->name,
                      d->name, o->min_len, o->max_len, o->min_value, o->max_value);
            /* extended covers official */
            ck_assert_int_le(e->min_value, o->min_value);
            ck_assert_int_ge(e->max_value, o->max_value);
            if (d->kind == CAIRN_INPUT_INT_ARRAY) {
                ck_assert_uint_eq(e->min_len, 1);
                ck_assert_uint_ge(e->max_len, o->max_len);
            }
        }
        /* One exported symbol: the kernel's own functions stay hidden. */
        static const char *const hidden[] = { "sg4_solve", "sg5_solve",  "sg6_solve",
                                              "sg7_solve", "sg5_kernel", "sg4_sieve" };
        for (size_t i = 0; i < sizeof hidden / sizeof hidden[0]; i++)
            CHECK_MSG(dlsym(g_dl[g], hidden[i]) == NULL, "%s exports %s", p->name, hidden[i]);
    }
    /* 1563's extended values stay positive: the monotone cut needs it. */
    ck_assert_int_ge(plugin(SG5)->inputs[0].extended.min_value, 1);
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "official_examples"                                           */
/* ------------------------------------------------------------------ */

START_TEST(test_examples_stone_game_iv)
{
    /* current statement: 1, 2, 4; original statement also had 7 and 17 */
    static const struct {
        int64_t n;
        int win;
    } ex[] = { { 1, 1 }, { 2, 0 }, { 4, 1 }, { 7, 0 }, { 17, 0 } };
    for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++) {
        ck_assert_int_eq(brute_sg4_minimax(ex[e].n), ex[e].win);
        for (int want = 0; want <= 1; want++)
            verify_sg4(ex[e].n, CAIRN_LIMITS_OFFICIAL, ex[e].win, want);
    }
}
END_TEST

START_TEST(test_examples_stone_game_v)
{
    static const struct {
        int64_t v[8];
        size_t n;
        int64_t answer;
    } ex[] = {
        { { 6, 2, 3, 4, 5, 5 }, 6, 18 },
        { { 7, 7, 7, 7, 7, 7, 7 }, 7, 28 },
        { { 4 }, 1, 0 },
        /* the exact-tie trap (docs/games.md, stone-game-v): 13 is wrong */
        { { 1, 8, 1, 2, 2, 4 }, 6, 14 },
        { { 1, 4, 4, 1, 2, 2, 4 }, 7, 14 },
    };
    for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++) {
        ck_assert_int_eq(brute_sg5_minimax(ex[e].v, ex[e].n), ex[e].answer);
        ck_assert_int_eq(brute_sg5_dp(ex[e].v, ex[e].n, NULL), ex[e].answer);
        for (int want = 0; want <= 1; want++)
            verify_sg5(ex[e].v, ex[e].n, CAIRN_LIMITS_OFFICIAL, ex[e].answer, want);
    }
}
END_TEST

START_TEST(test_examples_stone_game_vi)
{
    static const struct {
        int64_t a[4], b[4];
        size_t n;
        int answer;
    } ex[] = {
        { { 1, 3 }, { 2, 1 }, 2, 1 },
        { { 1, 2 }, { 3, 1 }, 2, 0 },
        { { 2, 4, 3 }, { 1, 6, 7 }, 3, -1 },
    };
    for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++) {
        ck_assert_int_eq(brute_sg6_outcome(ex[e].a, ex[e].b, ex[e].n, 0, 1, 0), ex[e].answer);
        for (int want = 0; want <= 1; want++)
            verify_sg6(ex[e].a, ex[e].b, ex[e].n, CAIRN_LIMITS_OFFICIAL, ex[e].answer, want);
    }
}
END_TEST

START_TEST(test_examples_stone_game_vii)
{
    static const struct {
        int64_t v[8];
        size_t n;
        int64_t answer;
    } ex[] = {
        { { 5, 3, 1, 4, 2 }, 5, 6 },
        { { 7, 90, 5, 1, 100, 10, 10, 2 }, 8, 122 },
    };
    for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++) {
        ck_assert_int_eq(brute_sg7_minimax(ex[e].v, ex[e].n), ex[e].answer);
        ck_assert_int_eq(brute_sg7_dp(ex[e].v, ex[e].n, NULL), ex[e].answer);
        for (int want = 0; want <= 1; want++)
            verify_sg7(ex[e].v, ex[e].n, CAIRN_LIMITS_OFFICIAL, ex[e].answer, want);
    }
    /* Example 1 as the statement plays it: Alice removes 2 (scores 13),
     * Bob 5 (8), Alice 3 (5), Bob 1 (4), Alice 4 (0): 18 vs 12.  The
     * documented line (L unless R is strictly better) plays the same. */
    struct outcome o;
    static const int64_t row[] = { 5, 3, 1, 4, 2 };
    run1(SG7, row, 5, CAIRN_LIMITS_OFFICIAL, 1, &o);
    ck_assert_int_eq(o.res.alice, 18);
    ck_assert_int_eq(o.res.bob, 12);
    static const int32_t line[] = { 1, 0, 0, 0, 0 }; /* R, L, L, L, L */
    ck_assert_uint_eq(o.res.n_moves, 5);
    for (size_t t = 0; t < 5; t++)
        ck_assert_int_eq(o.moves[t], line[t]);
    free(o.moves);
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "reference_self_check": minimax and DP agree                  */
/* ------------------------------------------------------------------ */

START_TEST(test_references_agree)
{
    for (int64_t m = 0; m <= SG4_MINIMAX_MAX; m++)
        CHECK_MSG(brute_sg4_minimax(m) == g_sg4_win[m], "stone-game-iv refs differ at %" PRId64, m);
    /* The sieve counts of docs/games.md: 2 781 losing positions in 0..10^5 and
     * 11 356 the only one below 10^5 that ends in 6. */
    size_t losing = 0, ends6 = 0;
    for (int64_t m = 0; m <= 100000; m++) {
        losing += !g_sg4_win[m];
        ends6 += !g_sg4_win[m] && m % 10 == 6;
    }
    ck_assert_uint_eq(losing, 2781);
    ck_assert_uint_eq(ends6, 1);
    ck_assert(!g_sg4_win[11356]);

    int64_t a[SG5_MINIMAX_MAX_N], b[SG5_MINIMAX_MAX_N];
    th_rng_seed(0xB007A);
    for (int it = 0; it < 1500; it++) {
        size_t n = (size_t)th_rng_range(1, SG5_MINIMAX_MAX_N);
        gen_sg5(a, n, 1000000);
        ck_assert_int_eq(brute_sg5_minimax(a, n), brute_sg5_dp(a, n, NULL));
        n = (size_t)th_rng_range(1, SG7_MINIMAX_MAX_N < SG5_MINIMAX_MAX_N ? SG7_MINIMAX_MAX_N
                                                                          : SG5_MINIMAX_MAX_N);
        gen_sg7(a, n, -1000, 1000);
        ck_assert_int_eq(brute_sg7_minimax(a, n), brute_sg7_dp(a, n, NULL));
        n = (size_t)th_rng_range(1, 6);
        gen_sg6(a, b, n, 1, 100);
        int64_t ga, gb;
        int greedy = brute_sg6_greedy(a, b, n, NULL, &ga, &gb);
        ck_assert_int_eq(brute_sg6_outcome(a, b, n, 0, 1, 0), greedy);
        ck_assert_int_eq(brute_sg6_margin(a, b, n, 0, 1), ga - gb);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "random_small_vs_minimax"                                     */
/* ------------------------------------------------------------------ */

#define RANDOM_SMALL_ITERS 3000

START_TEST(test_small_stone_game_iv)
{
    /* Every pile the exhaustive search can judge, both limits, with and
     * without moves; n = 0 exists only in extended mode. */
    for (int64_t m = 0; m <= SG4_MINIMAX_MAX; m++) {
        int win = brute_sg4_minimax(m);
        for (int want = 0; want <= 1; want++) {
            if (m >= 1)
                verify_sg4(m, CAIRN_LIMITS_OFFICIAL, win, want);
            verify_sg4(m, CAIRN_LIMITS_EXTENDED, win, want);
        }
    }
}
END_TEST

START_TEST(test_small_stone_game_v)
{
    int64_t a[SG5_MINIMAX_MAX_N];
    size_t top_ties = 0;
    th_rng_seed(0x1563);
    for (int it = 0; it < RANDOM_SMALL_ITERS; it++) {
        size_t n = (size_t)th_rng_range(1, SG5_MINIMAX_MAX_N);
        gen_sg5(a, n, 1000000);
        int64_t s = 0, total = sum_of(a, n);
        for (size_t p = 1; p < n; p++) {
            s += a[p - 1];
            top_ties += 2 * s == total;
        }
        int lim = (int)th_rng_range(0, 1);
        verify_sg5(a, n, (enum cairn_limits)lim, brute_sg5_minimax(a, n), (int)th_rng_range(0, 1));
    }
    /* the generator really produced the trap: many rows with a tie cut */
    ck_assert_uint_gt(top_ties, 500);
}
END_TEST

START_TEST(test_small_stone_game_vi)
{
    int64_t a[SG6_MINIMAX_MAX_N + 1], b[SG6_MINIMAX_MAX_N + 1];
    size_t outcome[3] = { 0, 0, 0 };
    th_rng_seed(0x1686);
    for (int it = 0; it < RANDOM_SMALL_ITERS; it++) {
        size_t n = (size_t)th_rng_range(1, SG6_MINIMAX_MAX_N);
        enum cairn_limits lim = (enum cairn_limits)th_rng_range(0, 1);
        if (lim == CAIRN_LIMITS_OFFICIAL || th_rng_range(0, 1))
            gen_sg6(a, b, n, 1, 100);
        else
            gen_sg6(a, b, n, -1000000000, 1000000000); /* wide keys: the radix path */
        int o = brute_sg6_outcome(a, b, n, 0, 1, 0);
        outcome[o + 1]++;
        verify_sg6(a, b, n, lim, o, (int)th_rng_range(0, 1));
    }
    ck_assert_uint_gt(outcome[0], 100);
    ck_assert_uint_gt(outcome[1], 100); /* draws: the draw profile works */
    ck_assert_uint_gt(outcome[2], 100);
}
END_TEST

START_TEST(test_small_stone_game_vii)
{
    int64_t a[SG7_MINIMAX_MAX_N];
    th_rng_seed(0x1690);
    for (int it = 0; it < RANDOM_SMALL_ITERS; it++) {
        size_t n = (size_t)th_rng_range(2, SG7_MINIMAX_MAX_N);
        gen_sg7(a, n, 1, th_rng_range(0, 1) ? 1000 : 3);
        verify_sg7(a, n, CAIRN_LIMITS_OFFICIAL, brute_sg7_minimax(a, n), (int)th_rng_range(0, 1));

        n = (size_t)th_rng_range(1, SG7_MINIMAX_MAX_N);
        gen_sg7(a, n, th_rng_range(0, 1) ? -3 : -1000000000, th_rng_range(0, 1) ? 3 : 1000000000);
        verify_sg7(a, n, CAIRN_LIMITS_EXTENDED, brute_sg7_minimax(a, n), (int)th_rng_range(0, 1));
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "random_larger_vs_dp"                                         */
/* ------------------------------------------------------------------ */

START_TEST(test_larger_stone_game_iv)
{
    /* Every pile up to 3000, then random official piles, half of them
     * drawn from the losing positions (uniform draws say "true" 97 % of
     * the time). */
    for (int64_t m = SG4_MINIMAX_MAX + 1; m <= 3000; m++)
        verify_sg4(m, CAIRN_LIMITS_OFFICIAL, sg4_wins(m), m % 7 == 0);

    int64_t *losing = malloc(4000 * sizeof *losing);
    size_t n_losing = 0;
    ck_assert_ptr_nonnull(losing);
    for (int64_t m = 1; m <= 100000; m++)
        if (!g_sg4_win[m])
            losing[n_losing++] = m;
    th_rng_seed(0x15100);
    size_t lost = 0;
    for (int it = 0; it < 1000; it++) {
        int64_t m =
            it % 2 ? losing[th_rng_range(0, (int64_t)n_losing - 1)] : th_rng_range(1, 100000);
        lost += !sg4_wins(m);
        verify_sg4(m, it % 3 ? CAIRN_LIMITS_OFFICIAL : CAIRN_LIMITS_EXTENDED, sg4_wins(m),
                   it % 4 == 0);
    }
    ck_assert_uint_ge(lost, 500);

    /* Piles past the first sieve block (2^17 positions), where the marks
     * of earlier losing positions cross block boundaries: half of them
     * losing. */
    n_losing = 0;
    for (int64_t m = 150000; m <= SG4_TABLE_N && n_losing < 4000; m += 97)
        for (int64_t k = m; k < m + 97 && k <= SG4_TABLE_N; k++)
            if (!g_sg4_win[k]) {
                losing[n_losing++] = k;
                break;
            }
    for (int it = 0; it < 40; it++) {
        int64_t m = it % 2 ? losing[th_rng_range(0, (int64_t)n_losing - 1)]
                           : th_rng_range(150000, SG4_TABLE_N);
        verify_sg4(m, CAIRN_LIMITS_EXTENDED, sg4_wins(m), it % 8 == 1);
    }
    free(losing);
}
END_TEST

START_TEST(test_larger_stone_game_v)
{
    static int64_t a[160];
    th_rng_seed(0x15630);
    for (int it = 0; it < 300; it++) {
        size_t n = (size_t)th_rng_range(SG5_MINIMAX_MAX_N + 1, 160);
        gen_sg5(a, n, 1000000);
        verify_sg5(a, n, CAIRN_LIMITS_OFFICIAL, brute_sg5_dp(a, n, NULL), it % 5 == 0);
    }
    /* extended values, still positive */
    for (int it = 0; it < 100; it++) {
        size_t n = (size_t)th_rng_range(1, 160);
        for (size_t i = 0; i < n; i++)
            a[i] = th_rng_range(0, 3) ? th_rng_range(1, INT64_C(1000000000000000))
                                      : INT64_C(1) << th_rng_range(0, 40);
        verify_sg5(a, n, CAIRN_LIMITS_EXTENDED, brute_sg5_dp(a, n, NULL), it % 5 == 0);
    }
}
END_TEST

START_TEST(test_larger_stone_game_vi)
{
    static int64_t a[3000], b[3000];
    th_rng_seed(0x16860);
    for (int it = 0; it < 400; it++) {
        size_t n = (size_t)th_rng_range(SG6_MINIMAX_MAX_N + 1, 3000);
        enum cairn_limits lim = (enum cairn_limits)(it % 2);
        if (lim == CAIRN_LIMITS_OFFICIAL)
            gen_sg6(a, b, n, 1, 100);
        else if (it % 4 == 1)
            gen_sg6(a, b, n, -INT64_C(1000000000000), INT64_C(1000000000000));
        else
            gen_sg6(a, b, n, -50, 50);
        verify_sg6(a, b, n, lim, brute_sg6_greedy(a, b, n, NULL, NULL, NULL), it % 3 == 0);
    }
}
END_TEST

START_TEST(test_larger_stone_game_vii)
{
    static int64_t a[400];
    th_rng_seed(0x16900);
    for (int it = 0; it < 200; it++) {
        size_t n = (size_t)th_rng_range(SG7_MINIMAX_MAX_N + 1, 400);
        gen_sg7(a, n, 1, th_rng_range(0, 1) ? 1000 : 2);
        verify_sg7(a, n, CAIRN_LIMITS_OFFICIAL, brute_sg7_dp(a, n, NULL), it % 4 == 0);
        n = (size_t)th_rng_range(1, 400);
        gen_sg7(a, n, -INT64_C(6250000000), INT64_C(6250000000));
        verify_sg7(a, n, CAIRN_LIMITS_EXTENDED, brute_sg7_dp(a, n, NULL), it % 4 == 1);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "totals": the same totals with and without moves              */
/* ------------------------------------------------------------------ */

/* stone-game-vii computes its totals two ways (a second DP row without
 * moves, a replay of the line with them; 32-bit and 64-bit rows): all must
 * agree, and so must stone-game-vi's counting and radix sorts. */
START_TEST(test_totals_agree_with_and_without_moves)
{
    static int64_t a[2500], b[2500];
    th_rng_seed(0x7074);
    for (int it = 0; it < 60; it++) {
        size_t n = (size_t)th_rng_range(1, 2500);
        struct outcome o0, o1;
        gen_sg7(a, n, it % 2 ? 1 : -INT64_C(6250000000), it % 2 ? 1000 : INT64_C(6250000000));
        run1(SG7, a, n, CAIRN_LIMITS_EXTENDED, 0, &o0);
        run1(SG7, a, n, CAIRN_LIMITS_EXTENDED, 1, &o1);
        CHECK_MSG(o0.res.answer == o1.res.answer && o0.res.alice == o1.res.alice &&
                      o0.res.bob == o1.res.bob,
                  "stone-game-vii n=%zu: %" PRId64 " %" PRId64 "/%" PRId64
                  " without moves, %" PRId64 " %" PRId64 "/%" PRId64 " with",
                  n, o0.res.answer, o0.res.alice, o0.res.bob, o1.res.answer, o1.res.alice,
                  o1.res.bob);
        free(o1.moves);

        gen_sg6(a, b, n, it % 2 ? 1 : -INT64_C(1000000000000),
                it % 2 ? 100 : INT64_C(1000000000000));
        run_sg6(a, b, n, CAIRN_LIMITS_EXTENDED, 0, &o0);
        run_sg6(a, b, n, CAIRN_LIMITS_EXTENDED, 1, &o1);
        ck_assert(o0.res.answer == o1.res.answer && o0.res.alice == o1.res.alice &&
                  o0.res.bob == o1.res.bob);
        free(o1.moves);
    }
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "bounds": official and extended maxima                         */
/* ------------------------------------------------------------------ */

START_TEST(test_max_stone_game_iv)
{
    /* the official maximum, ten times it (against the DP), and the extended
     * maximum (no reference that fast: it must finish, agree with itself
     * with and without moves, and play a legal line) */
    verify_sg4(100000, CAIRN_LIMITS_OFFICIAL, sg4_wins(100000), 1);
    verify_sg4(SG4_TABLE_N, CAIRN_LIMITS_EXTENDED, sg4_wins(SG4_TABLE_N), 1);
    for (int64_t m = SG4_TABLE_N; m > SG4_TABLE_N - 200; m--)
        if (!sg4_wins(m)) {
            verify_sg4(m, CAIRN_LIMITS_EXTENDED, 0, 1); /* a losing pile near 10^6 */
            break;
        }

    int64_t top = plugin(SG4)->inputs[0].extended.max_value;
    ck_assert_int_ge(top, INT64_C(10000000));
    struct outcome o0, o1;
    run1(SG4, &top, 1, CAIRN_LIMITS_EXTENDED, 0, &o0);
    run1(SG4, &top, 1, CAIRN_LIMITS_EXTENDED, 1, &o1);
    ck_assert_int_eq(o0.res.answer, o1.res.answer);
    int64_t m = top;
    for (size_t t = 0; t < o1.res.n_moves; t++) {
        int64_t x = o1.moves[t], r = isqrt64(x);
        ck_assert(x >= 1 && r * r == x && x <= m);
        m -= x;
    }
    ck_assert_int_eq(m, 0);
    ck_assert_int_eq((int64_t)(o1.res.n_moves % 2), o1.res.answer);
    free(o1.moves);
}
END_TEST

START_TEST(test_max_stone_game_v)
{
    static int64_t a[2000];
    /* all 500 stones at 10^6: 494 000 000 (docs/games.md) */
    for (size_t i = 0; i < 500; i++)
        a[i] = 1000000;
    ck_assert_int_eq(brute_sg5_dp(a, 500, NULL), 494000000);
    verify_sg5(a, 500, CAIRN_LIMITS_OFFICIAL, 494000000, 1);
    th_rng_seed(0x500500);
    for (int it = 0; it < 3; it++) {
        gen_sg5(a, 500, 1000000);
        verify_sg5(a, 500, CAIRN_LIMITS_OFFICIAL, brute_sg5_dp(a, 500, NULL), it == 0);
    }

    /* The extended maximum: length and values.  No O(n^3) reference at
     * n = 2000 within the test's time; the line of play must still replay
     * to the answer with every cut legal. */
    const struct cairn_bounds *e = &plugin(SG5)->inputs[0].extended;
    size_t n = e->max_len;
    ck_assert_uint_le(n, 2000);
    for (size_t i = 0; i < n; i++)
        a[i] = i % 3 ? e->max_value : th_rng_range(1, e->max_value);
    struct outcome o0, o1;
    run1(SG5, a, n, CAIRN_LIMITS_EXTENDED, 0, &o0);
    run1(SG5, a, n, CAIRN_LIMITS_EXTENDED, 1, &o1);
    ck_assert_int_eq(o0.res.answer, o1.res.answer);
    ck_assert_int_lt(o0.res.answer, sum_of(a, n));
    size_t lo = 0, hi = n - 1;
    int64_t score = 0;
    for (size_t t = 0; t < o1.res.n_moves; t++) {
        size_t k = (size_t)CAIRN_MOVE_SPLIT_AT(o1.moves[t]);
        int right = CAIRN_MOVE_SPLIT_KEEPS_RIGHT(o1.moves[t]);
        ck_assert(k > lo && k <= hi);
        int64_t sl = sum_of(a + lo, k - lo), sr = sum_of(a + k, hi + 1 - k);
        ck_assert(right ? sl >= sr : sl <= sr);
        score += right ? sr : sl;
        if (right)
            lo = k;
        else
            hi = k - 1;
    }
    ck_assert_uint_eq(lo, hi);
    ck_assert_int_eq(score, o1.res.answer);
    free(o1.moves);
    /* and at a length the O(n^3) reference can do, the extended values */
    for (size_t i = 0; i < 300; i++)
        a[i] = th_rng_range(0, 1) ? e->max_value : th_rng_range(1, e->max_value);
    verify_sg5(a, 300, CAIRN_LIMITS_EXTENDED, brute_sg5_dp(a, 300, NULL), 1);
}
END_TEST

START_TEST(test_max_stone_game_vi)
{
    const struct cairn_bounds *e = &plugin(SG6)->inputs[0].extended;
    size_t n = e->max_len;
    int64_t *a = malloc(n * sizeof *a), *b = malloc(n * sizeof *b);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    th_rng_seed(0x100000);
    /* official maximum: random, all 100, and the draw profile */
    for (int it = 0; it < 3; it++) {
        size_t m = 100000;
        if (it == 2) {
            gen_sg6(a, b, m, 1, 100);
        } else {
            for (size_t i = 0; i < m; i++) {
                a[i] = it ? 100 : th_rng_range(1, 100);
                b[i] = it ? 100 : th_rng_range(1, 100);
            }
        }
        verify_sg6(a, b, m, CAIRN_LIMITS_OFFICIAL, brute_sg6_greedy(a, b, m, NULL, NULL, NULL),
                   it != 1);
    }
    /* extended maximum: wide values (radix sort) and narrow ones (counting) */
    for (int it = 0; it < 2; it++) {
        for (size_t i = 0; i < n; i++) {
            a[i] = it ? th_rng_range(-1000, 1000) : th_rng_range(e->min_value, e->max_value);
            b[i] = it ? th_rng_range(-1000, 1000)
                      : (i % 5 ? th_rng_range(e->min_value, e->max_value) : e->max_value);
        }
        verify_sg6(a, b, n, CAIRN_LIMITS_EXTENDED, brute_sg6_greedy(a, b, n, NULL, NULL, NULL), it);
    }
    free(a);
    free(b);
}
END_TEST

/* The difference by the textbook two-row DP (O(n) memory), for rows too
 * long for the n x n table. */
static int64_t sg7_rows(const int64_t *a, size_t n)
{
    int64_t *pre = malloc((n + 1) * sizeof *pre), *cur = malloc(n * sizeof *cur);
    ck_assert_ptr_nonnull(pre);
    ck_assert_ptr_nonnull(cur);
    pre[0] = 0;
    for (size_t i = 0; i < n; i++)
        pre[i + 1] = pre[i] + a[i];
    /* cur[j] holds the value of a[i..j] for the current i (i descending) */
    for (size_t i = n; i-- > 0;) {
        cur[i] = 0;
        for (size_t j = i + 1; j < n; j++) {
            int64_t left = (pre[j + 1] - pre[i + 1]) - cur[j]; /* cur[j]: a[i+1..j] */
            int64_t right = (pre[j] - pre[i]) - cur[j - 1];    /* cur[j-1]: a[i..j-1] */
            cur[j] = left > right ? left : right;
        }
    }
    int64_t d = cur[n - 1];
    free(pre);
    free(cur);
    return d;
}

START_TEST(test_max_stone_game_vii)
{
    const struct cairn_bounds *e = &plugin(SG7)->inputs[0].extended;
    size_t n = e->max_len;
    int64_t *a = malloc(n * sizeof *a);
    ck_assert_ptr_nonnull(a);
    /* all 1000 stones at 1000: 500 000 (docs/games.md) */
    for (size_t i = 0; i < 1000; i++)
        a[i] = 1000;
    verify_sg7(a, 1000, CAIRN_LIMITS_OFFICIAL, 500000, 1);
    th_rng_seed(0x1000);
    gen_sg7(a, 1000, 1, 1000);
    verify_sg7(a, 1000, CAIRN_LIMITS_OFFICIAL, brute_sg7_dp(a, 1000, NULL), 0);

    /* the extended maximum, values at the extremes: 64-bit rows; with moves
     * the totals come from the replay, without from the t row */
    for (size_t i = 0; i < n; i++) {
        int r = (int)th_rng_range(0, 2);
        a[i] = r == 0   ? e->max_value
               : r == 1 ? e->min_value
                        : th_rng_range(e->min_value, e->max_value);
    }
    int64_t d = sg7_rows(a, n);
    struct outcome o0, o1;
    run1(SG7, a, n, CAIRN_LIMITS_EXTENDED, 0, &o0);
    run1(SG7, a, n, CAIRN_LIMITS_EXTENDED, 1, &o1);
    ck_assert_int_eq(o0.res.answer, d);
    ck_assert_int_eq(o1.res.answer, d);
    ck_assert_int_eq(o0.res.alice, o1.res.alice);
    ck_assert_int_eq(o0.res.bob, o1.res.bob);
    ck_assert_int_eq(o0.res.alice - o0.res.bob, d);
    free(o1.moves);
    free(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* TCase "defensive": what the host should never send                   */
/* ------------------------------------------------------------------ */

static int call_solve(enum game g, const struct cairn_array *in, size_t n_in)
{
    const struct cairn_plugin *p = plugin(g);
    struct cairn_problem pb = { .inputs = in, .n_inputs = n_in, .limits = CAIRN_LIMITS_EXTENDED };
    struct cairn_result res;
    char msg[128] = "";
    size_t sb = p->scratch_bytes(&pb);
    void *scratch = malloc(sb ? sb : 1);
    ck_assert_ptr_nonnull(scratch);
    memset(&res, 0, sizeof res);
    int rc = p->solve(&pb, &res, scratch, msg, sizeof msg);
    if (rc != CAIRN_OK)
        CHECK_MSG(msg[0] != '\0', "%s: status %d without a message", p->name, rc);
    free(scratch);
    return rc;
}

START_TEST(test_unequal_lengths_refused)
{
    /* exactly sized arrays: reading past the shorter one would be caught by
     * valgrind and the sanitizers */
    int64_t *a = malloc(5 * sizeof *a), *b = malloc(3 * sizeof *b);
    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    for (int i = 0; i < 5; i++)
        a[i] = i + 1;
    for (int i = 0; i < 3; i++)
        b[i] = i + 1;
    struct cairn_array in[2] = { { .v = a, .n = 5 }, { .v = b, .n = 3 } };
    ck_assert_int_eq(call_solve(SG6, in, 2), CAIRN_E_INTERNAL);
    in[0].n = 3;
    in[1].n = 5;
    in[1].v = a;
    in[0].v = b;
    ck_assert_int_eq(call_solve(SG6, in, 2), CAIRN_E_INTERNAL);
    ck_assert_int_eq(call_solve(SG6, in, 1), CAIRN_E_INTERNAL); /* one array only */
    free(a);
    free(b);
}
END_TEST

START_TEST(test_over_extended_refused)
{
    for (int g = 0; g < N_GAMES; g++) {
        const struct cairn_plugin *p = plugin((enum game)g);
        const struct cairn_bounds *e = &p->inputs[0].extended;
        if (p->inputs[0].kind == CAIRN_INPUT_INT) {
            int64_t v = e->max_value + 1;
            struct cairn_array in = { .v = &v, .n = 1 };
            ck_assert_int_eq(call_solve((enum game)g, &in, 1), CAIRN_E_TOO_LARGE);
            continue;
        }
        size_t n = e->max_len + 1;
        int64_t *a = malloc(n * sizeof *a);
        ck_assert_ptr_nonnull(a);
        for (size_t i = 0; i < n; i++)
            a[i] = 1;
        struct cairn_array in[2] = { { .v = a, .n = n }, { .v = a, .n = n } };
        CHECK_MSG(call_solve((enum game)g, in, p->n_inputs) == CAIRN_E_TOO_LARGE,
                  "%s accepts %zu stones, over its extended maximum", p->name, n);
        free(a);
    }
}
END_TEST

/* ------------------------------------------------------------------ */

/* dlopen DIR/NAME.so and call the entry function. */
static void load_plugin(enum game g)
{
    static const char *const sub[] = { "" };
    char path[4096];
    for (size_t k = 0; k < sizeof sub / sizeof sub[0] && g_dl[g] == NULL; k++) {
        snprintf(path, sizeof path, "%s%s/%s.so", g_plugin_dir, sub[k], game_name[g]);
        g_dl[g] = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    }
    if (g_dl[g] == NULL) {
        const char *e = dlerror();
        snprintf(g_load_error[g], sizeof g_load_error[g], "%s", e ? e : "dlopen failed");
        return;
    }
    void *sym = dlsym(g_dl[g], CAIRN_PLUGIN_ENTRY_SYMBOL);
    cairn_plugin_entry_fn entry;
    if (sym == NULL) {
        snprintf(g_load_error[g], sizeof g_load_error[g], "%s.so: no %s", game_name[g],
                 CAIRN_PLUGIN_ENTRY_SYMBOL);
        return;
    }
    memcpy(&entry, &sym, sizeof entry); /* POSIX: object to function pointer */
    g_desc[g] = entry();
    if (g_desc[g] == NULL)
        snprintf(g_load_error[g], sizeof g_load_error[g], "%s.so: entry returned NULL",
                 game_name[g]);
}

static Suite *family_a_suite(void)
{
    Suite *s = suite_create("family_a");
    TCase *tc;

    tc = tcase_create("descriptors");
    tcase_add_test(tc, test_descriptors_declare_the_games);
    suite_add_tcase(s, tc);

    tc = tcase_create("official_examples");
    tcase_add_test(tc, test_examples_stone_game_iv);
    tcase_add_test(tc, test_examples_stone_game_v);
    tcase_add_test(tc, test_examples_stone_game_vi);
    tcase_add_test(tc, test_examples_stone_game_vii);
    suite_add_tcase(s, tc);

    tc = tcase_create("reference_self_check");
    tcase_add_test(tc, test_references_agree);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("random_small_vs_minimax");
    tcase_add_test(tc, test_small_stone_game_iv);
    tcase_add_test(tc, test_small_stone_game_v);
    tcase_add_test(tc, test_small_stone_game_vi);
    tcase_add_test(tc, test_small_stone_game_vii);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("random_larger_vs_dp");
    tcase_add_test(tc, test_larger_stone_game_iv);
    tcase_add_test(tc, test_larger_stone_game_v);
    tcase_add_test(tc, test_larger_stone_game_vi);
    tcase_add_test(tc, test_larger_stone_game_vii);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("totals");
    tcase_add_test(tc, test_totals_agree_with_and_without_moves);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("bounds");
    tcase_add_test(tc, test_max_stone_game_iv);
    tcase_add_test(tc, test_max_stone_game_v);
    tcase_add_test(tc, test_max_stone_game_vi);
    tcase_add_test(tc, test_max_stone_game_vii);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("defensive");
    tcase_add_test(tc, test_unequal_lengths_refused);
    tcase_add_test(tc, test_over_extended_refused);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    g_plugin_dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_plugin_dir == NULL || g_plugin_dir[0] == '\0') {
        fprintf(stderr, "test_family_a: CAIRN_TEST_PLUGIN_DIR is not set: it must name the folder "
                        "holding stone-game-iv.so .. stone-game-vii.so (meson test sets it)\n");
        return EXIT_FAILURE;
    }
    for (int g = 0; g < N_GAMES; g++)
        load_plugin((enum game)g);
    g_sg4_win = malloc(SG4_TABLE_N + 1);
    if (g_sg4_win == NULL || brute_sg4_dp(SG4_TABLE_N, g_sg4_win) != 0) {
        fprintf(stderr, "test_family_a: out of memory\n");
        return EXIT_FAILURE;
    }

    int failed = th_run_suite(family_a_suite(), CK_NORMAL, 1);
    free(g_sg4_win);
    for (int g = 0; g < N_GAMES; g++)
        if (g_dl[g] != NULL)
            dlclose(g_dl[g]);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
