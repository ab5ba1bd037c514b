/*
 * test_family_b.c - stone-game-viii (1872), stone-game-ix (2029),
 * predict-the-winner (486) and stone-removal-game (3360) against the
 * reference solvers of brute_family_b.c.
 *
 * The plugins are dlopen()ed straight from $CAIRN_TEST_PLUGIN_DIR, not
 * through the registry, and driven the way the host drives
 * them: one struct cairn_problem, check() when present, a scratch buffer of
 * scratch_bytes() filled with garbage, a moves buffer of max_moves()
 * entries plus a canary, then solve().  Every answer is compared with an
 * exhaustive minimax (small inputs) or a textbook DP (larger ones), and
 * every line of play is replayed under the rules, move by move: legal,
 * optimal, and adding up to the answer and totals.
 *
 * All randomness comes from splitmix64 with a fixed seed per test, so a
 * failure is reproducible; failure messages print the row.
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
#include "brute_family_b.h"
#include "cairn/plugin.h"

/* ck_assert_msg() without its per-call bookkeeping (Check records every
 * passing assertion, which costs a write in fork mode): the replays and
 * bound checks below run it millions of times. */
#define CHECK_MSG(cond, ...)           \
    do {                               \
        if (!(cond))                   \
            ck_abort_msg(__VA_ARGS__); \
    } while (0)

enum fam {
    SG8 = 0,
    IX = 1,
    PTW = 2,
    SRG = 3,
    N_FAM = 4
};

static const char *const fam_name[N_FAM] = { "stone-game-viii", "stone-game-ix",
                                             "predict-the-winner", "stone-removal-game" };
static const char *const fam_alias[N_FAM] = { "1872", "2029", "486", "3360" };
static const char *const fam_input[N_FAM] = { "stones", "stones", "nums", "n" };

/* Inputs this short are judged by the exhaustive searches. */
#define SG8_MINIMAX_MAX_N 11
#define IX_MINIMAX_MAX_N  7
#define PTW_MINIMAX_MAX_N 12

struct loaded {
    void *dl;
    const struct cairn_plugin *desc;
    char path[1024];
    char why[1024]; /* why it is not loaded */
};

static struct loaded g_pl[N_FAM];
static const char *g_plugin_dir;

/* ------------------------------------------------------------------ */
/* Small helpers                                                       */
/* ------------------------------------------------------------------ */

static int64_t sum64(const int64_t *a, size_t n)
{
    int64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += a[i];
    return s;
}

static const struct cairn_plugin *plugin(enum fam g)
{
    CHECK_MSG(g_pl[g].desc != NULL, "plugin %s is not loaded from %s: %s", fam_name[g],
              g_plugin_dir ? g_plugin_dir : "(CAIRN_TEST_PLUGIN_DIR unset)", g_pl[g].why);
    return g_pl[g].desc;
}

/* dlopen DIR/NAME.so and call the entry. */
static void load_one(enum fam g)
{
    static const char *const sub[] = { "" };
    struct loaded *l = &g_pl[g];
    l->why[0] = '\0';
    for (size_t s = 0; s < 1 && l->dl == NULL; s++) {
        snprintf(l->path, sizeof l->path, "%s%s/%s.so", g_plugin_dir, sub[s], fam_name[g]);
        l->dl = dlopen(l->path, RTLD_NOW | RTLD_LOCAL);
        if (l->dl == NULL) {
            const char *e = dlerror();
            size_t used = strlen(l->why);
            snprintf(l->why + used, sizeof l->why - used, "%s%s", used ? "; " : "",
                     e ? e : "dlopen failed");
        }
    }
    if (l->dl == NULL)
        return;
    void *sym = dlsym(l->dl, CAIRN_PLUGIN_ENTRY_SYMBOL);
    if (sym == NULL) {
        snprintf(l->why, sizeof l->why, "%s: no %s", l->path, CAIRN_PLUGIN_ENTRY_SYMBOL);
        return;
    }
    cairn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof entry);
    l->desc = entry();
    if (l->desc == NULL)
        snprintf(l->why, sizeof l->why, "%s: the entry returned NULL", l->path);
}

/* ------------------------------------------------------------------ */
/* Driving a plugin the way the host does                              */
/* ------------------------------------------------------------------ */

#define MOVES_CANARY INT32_C(0x5A5A5A5A)

struct outcome {
    struct cairn_result res;
    int32_t *moves; /* owned; NULL unless want_moves */
};

static void assert_in_bounds(const struct cairn_plugin *p, enum cairn_limits lim, const int64_t *a,
                             size_t n)
{
    const struct cairn_bounds *b =
        lim == CAIRN_LIMITS_OFFICIAL ? &p->inputs[0].official : &p->inputs[0].extended;
    const char *which = lim == CAIRN_LIMITS_OFFICIAL ? "official" : "extended";
    if (p->inputs[0].kind == CAIRN_INPUT_INT)
        ck_assert_uint_eq(n, 1);
    else
        CHECK_MSG(n >= b->min_len && n <= b->max_len,
                  "%s: length %zu is outside the declared %s bounds %zu..%zu (a test bug)", p->name,
                  n, which, b->min_len, b->max_len);
    for (size_t i = 0; i < n; i++)
        CHECK_MSG(a[i] >= b->min_value && a[i] <= b->max_value,
                  "%s: value %" PRId64 " is outside the declared %s bounds (a test bug)", p->name,
                  a[i], which);
}

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
        CHECK_MSG(rc == CAIRN_OK, "%s: check() refused %s: rc %d: %s", p->name, th_row_str(a, n),
                  rc, msg);
    }
    size_t sb = p->scratch_bytes(&pb);
    void *scratch = malloc(sb ? sb : 1);
    ck_assert_ptr_nonnull(scratch);
    memset(scratch, 0xA5, sb ? sb : 1);

    size_t cap = 0;
    if (want_moves) {
        cap = p->max_moves(&pb);
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
    CHECK_MSG(rc == CAIRN_OK, "%s: solve() failed on %s: rc %d: %s", p->name, th_row_str(a, n), rc,
              msg);
    if (want_moves) {
        CHECK_MSG(o->res.n_moves <= cap, "%s: n_moves %zu > moves_cap %zu", p->name, o->res.n_moves,
                  cap);
        CHECK_MSG(o->moves[cap] == MOVES_CANARY, "%s: solve() wrote past moves_cap on %s", p->name,
                  th_row_str(a, n));
        CHECK_MSG(o->res.moves == o->moves && o->res.moves_cap == cap,
                  "%s: solve() changed result.moves or moves_cap", p->name);
    } else {
        CHECK_MSG(o->res.n_moves == 0, "%s: n_moves %zu set although moves were not wanted",
                  p->name, o->res.n_moves);
    }
}

/* solve() itself (no check()) must refuse with this status and a message. */
static void expect_solve_refuses(const struct cairn_plugin *p, const int64_t *a, size_t n,
                                 enum cairn_limits lim, int status)
{
    struct cairn_array arr = { .v = a, .n = n };
    struct cairn_problem pb = { .inputs = &arr, .n_inputs = 1, .limits = lim };
    struct cairn_result res;
    char msg[256] = "";
    memset(&res, 0, sizeof res);
    size_t sb = p->scratch_bytes(&pb);
    void *scratch = malloc(sb ? sb : 1);
    ck_assert_ptr_nonnull(scratch);
    int rc = p->solve(&pb, &res, scratch, msg, sizeof msg);
    free(scratch);
    CHECK_MSG(rc == status, "%s: solve() of %s returned %d, expected %d", p->name, th_row_str(a, n),
              rc, status);
    CHECK_MSG(msg[0] != '\0', "%s: solve() refused %s without a message", p->name,
              th_row_str(a, n));
}

static int call_check(const struct cairn_plugin *p, const int64_t *a, size_t n,
                      enum cairn_limits lim, char *msg, size_t msg_len)
{
    struct cairn_array arr = { .v = a, .n = n };
    struct cairn_problem pb = { .inputs = &arr, .n_inputs = 1, .limits = lim };
    return p->check == NULL ? CAIRN_OK : p->check(&pb, msg, msg_len);
}

/* ------------------------------------------------------------------ */
/* stone-game-viii                                                     */
/* ------------------------------------------------------------------ */

/* The reference f(k) for every state k (see brute_sg8_dp): the O(n^2)
 * table for moderate rows, the textbook linear recurrence beyond.  The
 * caller frees it. */
static int64_t *sg8_ref_f(const int64_t *a, size_t n)
{
    int64_t *f = malloc(n * sizeof *f);
    ck_assert_ptr_nonnull(f);
    if (n <= 3000) {
        ck_assert(brute_sg8_dp(a, n, f) != INT64_MIN);
        return f;
    }
    /* g(j) = max_{i >= j} (P[i] - f(i)), f(k) = g(k + 1): one pass right
     * to left over a prefix-sum array, the doocs/walkccc textbook form. */
    int64_t *p = malloc(n * sizeof *p);
    ck_assert_ptr_nonnull(p);
    p[0] = a[0];
    for (size_t i = 1; i < n; i++)
        p[i] = p[i - 1] + a[i];
    int64_t g = p[n - 1];
    f[n - 1] = 0;
    for (size_t k = n - 1; k-- > 0;) {
        f[k] = g;
        if (k > 0 && p[k] - g > g)
            g = p[k] - g;
    }
    free(p);
    return f;
}

/* Solves a[0..n) with and without moves; compares the margin with the
 * references, the totals between both runs, and replays the moves: every
 * x legal (2 <= x <= stones left), every move optimal and the smallest
 * optimal x, the scores adding up to alice and bob. */
static void verify_sg8(const int64_t *a, size_t n, enum cairn_limits lim, int want_moves)
{
    const struct cairn_plugin *p = plugin(SG8);
    struct outcome o, om;
    int64_t *f = sg8_ref_f(a, n);
    int64_t d = f[0];
    if (n <= SG8_MINIMAX_MAX_N)
        CHECK_MSG(brute_sg8_minimax(a, n) == d, "sg8 references disagree on %s", th_row_str(a, n));

    run_plugin(p, a, n, lim, 0, &o);
    CHECK_MSG(o.res.answer == d && o.res.alice - o.res.bob == d,
              "stone-game-viii %s: answer %" PRId64 " (alice %" PRId64 " bob %" PRId64
              "), reference %" PRId64,
              th_row_str(a, n), o.res.answer, o.res.alice, o.res.bob, d);
    if (!want_moves) {
        free(f);
        return;
    }
    run_plugin(p, a, n, lim, 1, &om);
    CHECK_MSG(om.res.answer == o.res.answer && om.res.alice == o.res.alice &&
                  om.res.bob == o.res.bob,
              "stone-game-viii %s: with moves %" PRId64 "/%" PRId64 "/%" PRId64 ", without %" PRId64
              "/%" PRId64 "/%" PRId64,
              th_row_str(a, n), om.res.answer, om.res.alice, om.res.bob, o.res.answer, o.res.alice,
              o.res.bob);

    /* State k: the leftmost stone is P[k], stones k+1.. follow. */
    int64_t took[2] = { 0, 0 };
    int64_t pk = a[0]; /* P[k] */
    size_t k = 0;
    for (size_t t = 0; t < om.res.n_moves; t++) {
        int64_t x = om.moves[t];
        CHECK_MSG(x >= 2 && (uint64_t)x <= n - k,
                  "stone-game-viii %s: move %zu merges %" PRId64 " with %zu stones left",
                  th_row_str(a, n), t, x, n - k);
        size_t j = k + (size_t)x - 1;
        int64_t pj = pk, best = INT64_MIN;
        size_t first_best = 0;
        for (size_t i = k + 1; i <= j; i++) {
            pj += a[i];
            if (pj - f[i] > best) {
                best = pj - f[i];
                first_best = i;
            }
        }
        CHECK_MSG(pj - f[j] == f[k],
                  "stone-game-viii %s: move %zu (x=%" PRId64 " from state %zu) is worth %" PRId64
                  ", best is %" PRId64,
                  th_row_str(a, n), t, x, k, pj - f[j], f[k]);
        CHECK_MSG(first_best == j,
                  "stone-game-viii %s: move %zu (x=%" PRId64 ") is optimal but x=%zu is "
                  "too and smaller",
                  th_row_str(a, n), t, x, first_best - k + 1);
        took[t % 2] += pj;
        pk = pj;
        k = j;
    }
    CHECK_MSG(k == n - 1, "stone-game-viii %s: the line stops with %zu stones left",
              th_row_str(a, n), n - k);
    CHECK_MSG(took[0] == om.res.alice && took[1] == om.res.bob,
              "stone-game-viii %s: replay gives %" PRId64 "/%" PRId64 ", solve() %" PRId64
              "/%" PRId64,
              th_row_str(a, n), took[0], took[1], om.res.alice, om.res.bob);
    free(om.moves);
    free(f);
}

/* Values in [-m, m] with a chosen bias. */
static void gen_sg8(int64_t *a, size_t n, int64_t m)
{
    int style = (int)th_rng_range(0, 4);
    for (size_t i = 0; i < n; i++) {
        switch (style) {
        case 0: a[i] = th_rng_range(-m, m); break;
        case 1:
            a[i] = th_rng_range(-m, 0); /* all negative: the answer can be < 0 */
            break;
        case 2:
            a[i] = th_rng_range(-3, 3); /* many ties among moves */
            break;
        case 3: a[i] = th_rng_range(0, 1) ? m : -m; break;
        default: a[i] = th_rng_range(-m, m / 4); break;
        }
    }
}

START_TEST(test_sg8_examples)
{
    static const struct {
        int64_t v[8];
        size_t n;
        int64_t answer;
    } ex[] = {
        { { -1, 2, -3, 4, -5 }, 5, 5 },
        { { 7, -6, 5, 10, 5, -2, -6 }, 7, 13 },
        { { -10, -12 }, 2, -22 },
    };
    for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++) {
        ck_assert_int_eq(brute_sg8_minimax(ex[e].v, ex[e].n), ex[e].answer);
        ck_assert_int_eq(brute_sg8_dp(ex[e].v, ex[e].n, NULL), ex[e].answer);
        verify_sg8(ex[e].v, ex[e].n, CAIRN_LIMITS_OFFICIAL, 1);
    }
    /* Example 3 by hand: Alice must merge both, scoring -22; Bob nothing. */
    struct outcome o;
    run_plugin(plugin(SG8), ex[2].v, 2, CAIRN_LIMITS_OFFICIAL, 1, &o);
    ck_assert_int_eq(o.res.alice, -22);
    ck_assert_int_eq(o.res.bob, 0);
    ck_assert_uint_eq(o.res.n_moves, 1);
    ck_assert_int_eq(o.moves[0], 2);
    free(o.moves);
}
END_TEST

START_TEST(test_sg8_random_small)
{
    int64_t a[SG8_MINIMAX_MAX_N];
    size_t x1_differs = 0, negative = 0;
    th_rng_seed(0x1872);
    for (int it = 0; it < 3000; it++) {
        size_t n = (size_t)th_rng_range(2, SG8_MINIMAX_MAX_N);
        gen_sg8(a, n, th_rng_range(0, 1) ? 10000 : 5);
        int64_t d = brute_sg8_minimax(a, n);
        /* The x >= 1 misreading lets the first move score P[0] = a[0]
         * alone and hand the same row over: max(d, a[0] - d). */
        x1_differs += a[0] - d > d;
        negative += d < 0;
        verify_sg8(a, n, CAIRN_LIMITS_OFFICIAL, it % 2);
    }
    /* The inputs do separate x > 1 from x >= 1, and reach negative answers. */
    ck_assert_uint_gt(x1_differs, 200);
    ck_assert_uint_gt(negative, 200);
}
END_TEST

START_TEST(test_sg8_random_larger)
{
    static int64_t a[3000];
    th_rng_seed(0x18720);
    for (int it = 0; it < 200; it++) {
        size_t n = (size_t)th_rng_range(2, it < 150 ? 300 : 3000);
        gen_sg8(a, n, th_rng_range(0, 1) ? 10000 : 3);
        verify_sg8(a, n, CAIRN_LIMITS_OFFICIAL, 1);
        /* extended: wider values, and a single stone */
        gen_sg8(a, n, INT64_C(1000000000));
        verify_sg8(a, n, CAIRN_LIMITS_EXTENDED, it % 2);
    }
    int64_t one[1] = { -7 };
    struct outcome o;
    run_plugin(plugin(SG8), one, 1, CAIRN_LIMITS_EXTENDED, 1, &o);
    ck_assert_int_eq(o.res.answer, 0); /* no move is possible */
    ck_assert_uint_eq(o.res.n_moves, 0);
    free(o.moves);
}
END_TEST

START_TEST(test_sg8_bounds)
{
    static int64_t a[100000];
    const struct cairn_plugin *p = plugin(SG8);
    th_rng_seed(0x100000);
    /* The official maximum: all +1e4 (answer 1e9, one move), all -1e4,
     * alternating, random. */
    for (int it = 0; it < 4; it++) {
        for (size_t i = 0; i < 100000; i++)
            a[i] = it == 0   ? 10000
                   : it == 1 ? -10000
                   : it == 2 ? (i % 2 ? 10000 : -10000)
                             : th_rng_range(-10000, 10000);
        verify_sg8(a, 100000, CAIRN_LIMITS_OFFICIAL, 1);
    }
    for (size_t i = 0; i < 100000; i++)
        a[i] = 10000;
    struct outcome o;
    run_plugin(p, a, 100000, CAIRN_LIMITS_OFFICIAL, 0, &o);
    ck_assert_int_eq(o.res.answer, 1000000000);

    /* Extended: check() allows (n + 1) * sum|v| up to 9e18 exactly.  With
     * n + 1 = 1e5, that is sum|v| = 9e13. */
    size_t n = 99999;
    for (size_t i = 0; i < n; i++)
        a[i] = (i % 3 ? 1 : -1) * INT64_C(900000000);
    a[n / 2] = INT64_C(1800000000); /* sum|v| = 99998 * 9e8 + 1.8e9 = 9e13 */
    char msg[256] = "";
    ck_assert_int_eq(call_check(p, a, n, CAIRN_LIMITS_EXTENDED, msg, sizeof msg), CAIRN_OK);
    verify_sg8(a, n, CAIRN_LIMITS_EXTENDED, 1);
    a[n / 2]++;
    ck_assert_int_eq(call_check(p, a, n, CAIRN_LIMITS_EXTENDED, msg, sizeof msg),
                     CAIRN_E_TOO_LARGE);
    CHECK_MSG(strstr(msg, "input.stones") != NULL, "message: %s", msg);
    /* Official limits never need it (and the host bounds already hold). */
    for (size_t i = 0; i < 100000; i++)
        a[i] = -10000;
    ck_assert_int_eq(call_check(p, a, 100000, CAIRN_LIMITS_OFFICIAL, msg, sizeof msg), CAIRN_OK);

    /* The extended value bound: 1e11 stones on a short row. */
    const int64_t vmax = p->inputs[0].extended.max_value;
    ck_assert_int_ge(vmax, INT64_C(100000000000));
    for (size_t i = 0; i < 2000; i++)
        a[i] = th_rng_range(0, 2) ? vmax : -vmax;
    verify_sg8(a, 2000, CAIRN_LIMITS_EXTENDED, 1);
    /* A short message buffer is respected. */
    for (size_t i = 0; i < 90000; i++)
        a[i] = vmax;
    char small[16];
    memset(small, 'X', sizeof small);
    ck_assert_int_eq(call_check(p, a, 90000, CAIRN_LIMITS_EXTENDED, small, 8), CAIRN_E_TOO_LARGE);
    ck_assert_uint_lt(strnlen(small, 8), 8);
    for (size_t i = 8; i < sizeof small; i++)
        ck_assert_int_eq(small[i], 'X');
}
END_TEST

/* ------------------------------------------------------------------ */
/* stone-game-ix                                                       */
/* ------------------------------------------------------------------ */

/* Alice wins a[0..n) from the start (reference). */
static int ix_ref(const int64_t *a, size_t n)
{
    if (n <= IX_MINIMAX_MAX_N)
        return brute_ix_minimax(a, n, 0, 1, 0);
    size_t c[3] = { 0, 0, 0 };
    for (size_t i = 0; i < n; i++)
        c[brute_ix_residue(a[i])]++;
    int r = brute_ix_dp(c[0], c[1], c[2], 0, 1);
    ck_assert_int_ge(r, 0);
    return r;
}

/* The length of the line the plugin documents once Alice's first stone
 * has residue r1: then everyone takes the safe non-zero residue, else a
 * multiple of 3, else the losing stone. */
static size_t ix_policy_length(const size_t counts[3], int r1)
{
    size_t c[3] = { counts[0], counts[1], counts[2] };
    int s = 0, r = r1;
    for (size_t k = 1;; k++) {
        c[r]--;
        s = (s + r) % 3;
        if (s == 0 || c[0] + c[1] + c[2] == 0)
            return k;
        r = c[s] > 0 ? s : c[0] > 0 ? 0 : 3 - s;
    }
}

/* Solves a[0..n) and replays the moves: distinct valid indices; within a
 * residue, the first stone left in input order; the winner never gives
 * the win away (judged by the counts DP on the position left); the loser
 * never loses on the spot while a safe stone is left; and the line ends at
 * the losing removal or when the stones run out, with the answer's winner.
 * The documented choices too: after the first move the safe non-zero
 * residue before a multiple of 3, and a losing Alice starts the longest
 * line (residue 1 on a tie). */
static void verify_ix(const int64_t *a, size_t n, enum cairn_limits lim, int want_moves)
{
    const struct cairn_plugin *p = plugin(IX);
    struct outcome o;
    int want = ix_ref(a, n);

    run_plugin(p, a, n, lim, want_moves, &o);
    CHECK_MSG(o.res.answer == want, "stone-game-ix %s: answer %" PRId64 ", reference %d",
              th_row_str(a, n), o.res.answer, want);
    CHECK_MSG(o.res.alice == 0 && o.res.bob == 0, "stone-game-ix: totals set");
    if (!want_moves)
        return;

    char *gone = calloc(n ? n : 1, 1);
    ck_assert_ptr_nonnull(gone);
    size_t c[3] = { 0, 0, 0 };
    for (size_t i = 0; i < n; i++)
        c[brute_ix_residue(a[i])]++;
    struct brute_ix_table *table = brute_ix_table_new(c[0], c[1], c[2]);
    ck_assert_ptr_nonnull(table);
    if (!want && o.res.n_moves > 0) {
        int r1 = brute_ix_residue(a[o.moves[0]]);
        for (int q = 1; q <= 2; q++)
            if (c[q] > 0 && q != r1)
                CHECK_MSG(r1 != 0 && (o.res.n_moves > ix_policy_length(c, q) ||
                                      (o.res.n_moves == ix_policy_length(c, q) && r1 < q)),
                          "stone-game-ix %s: Alice loses in %zu moves starting with residue "
                          "%d; residue %d lasts %zu",
                          th_row_str(a, n), o.res.n_moves, r1, q, ix_policy_length(c, q));
    }
    int s = 0, alice = 1, ended_by_loss = 0;
    size_t t;
    for (t = 0; t < o.res.n_moves; t++) {
        int32_t i = o.moves[t];
        CHECK_MSG(i >= 0 && (size_t)i < n && !gone[i],
                  "stone-game-ix %s: move %zu takes index %" PRId32 " (invalid or gone)",
                  th_row_str(a, n), t, i);
        int r = brute_ix_residue(a[i]);
        for (int32_t e = 0; e < i; e++)
            CHECK_MSG(gone[e] || brute_ix_residue(a[e]) != r,
                      "stone-game-ix %s: move %zu takes index %" PRId32 " but %" PRId32
                      " has the same residue and comes first",
                      th_row_str(a, n), t, i, e);
        int mover_wins = alice == want;
        int ns = (s + r) % 3;
        if (t > 0)
            CHECK_MSG(r == (c[s] > 0   ? s
                            : c[0] > 0 ? 0
                                       : 3 - s),
                      "stone-game-ix %s: move %zu takes residue %d with %zu/%zu/%zu left "
                      "at sum %d mod 3",
                      th_row_str(a, n), t, r, c[0], c[1], c[2], s);
        if (ns == 0) {
            CHECK_MSG(!mover_wins, "stone-game-ix %s: the winner loses on move %zu",
                      th_row_str(a, n), t);
            /* the loser had no safe stone: every stone left makes 0 */
            for (int q = 0; q < 3; q++)
                CHECK_MSG(c[q] == 0 || (s + q) % 3 == 0,
                          "stone-game-ix %s: move %zu loses at once though a stone of "
                          "residue %d was left",
                          th_row_str(a, n), t, q);
            ended_by_loss = 1;
        }
        gone[i] = 1;
        c[r]--;
        s = ns;
        alice = !alice;
        if (ended_by_loss)
            break;
        if (mover_wins && c[0] + c[1] + c[2] > 0) {
            int still = brute_ix_table_get(table, c[0], c[1], c[2], s, alice);
            ck_assert_int_ge(still, 0);
            CHECK_MSG(still == want,
                      "stone-game-ix %s: move %zu (index %" PRId32 ") gives the win away",
                      th_row_str(a, n), t, i);
        }
    }
    CHECK_MSG(t + ended_by_loss == o.res.n_moves,
              "stone-game-ix %s: %zu moves after the losing one", th_row_str(a, n),
              o.res.n_moves - t - 1);
    if (ended_by_loss)
        CHECK_MSG(alice == want, "stone-game-ix %s: the line's loser is the winner",
                  th_row_str(a, n)); /* alice was flipped past the loser */
    else
        CHECK_MSG(c[0] + c[1] + c[2] == 0 && want == 0,
                  "stone-game-ix %s: the line stops after %zu moves, %zu stones left",
                  th_row_str(a, n), o.res.n_moves, c[0] + c[1] + c[2]);
    brute_ix_table_free(table);
    free(gone);
    free(o.moves);
}

/* Counts near the traps: c1 and c2 close, one of them missing, c0 of
 * either parity; values are random members of their residue class. */
static size_t gen_ix(int64_t *a, size_t maxn, int64_t maxv, int extended)
{
    size_t c[3];
    c[0] = (size_t)th_rng_range(0, (int64_t)maxn / 3);
    int style = (int)th_rng_range(0, 3);
    size_t left = maxn - c[0];
    c[1] = (size_t)th_rng_range(0, (int64_t)left);
    if (style == 0)
        c[2] = 0; /* one residue missing */
    else if (style == 1)
        c[2] = (size_t)th_rng_range((int64_t)(c[1] > 3 ? c[1] - 3 : 0), (int64_t)c[1] + 3);
    else
        c[2] = (size_t)th_rng_range(0, (int64_t)left);
    if (th_rng_range(0, 1))
        c[0] ^= 1; /* vary the parity */
    size_t n = 0;
    for (int r = 0; r < 3; r++)
        for (size_t k = 0; k < c[r] && n < maxn; k++) {
            int64_t q =
                extended ? th_rng_range(-maxv / 3, maxv / 3) : th_rng_range(0, (maxv - r) / 3);
            int64_t v = 3 * q + r;
            if (!extended && v == 0)
                v = 3;
            a[n++] = v;
        }
    if (n == 0)
        a[n++] = extended ? th_rng_range(-maxv, maxv) : th_rng_range(1, maxv);
    for (size_t i = n; i-- > 1;) { /* shuffle */
        size_t j = (size_t)th_rng_range(0, (int64_t)i);
        int64_t tmp = a[i];
        a[i] = a[j];
        a[j] = tmp;
    }
    return n;
}

START_TEST(test_ix_examples)
{
    static const struct {
        int64_t v[8];
        size_t n;
        int answer;
    } ex[] = {
        { { 2, 1 }, 2, 1 },
        { { 2 }, 1, 0 },
        { { 5, 1, 2, 4, 3 }, 5, 0 },
    };
    for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++) {
        ck_assert_int_eq(brute_ix_minimax(ex[e].v, ex[e].n, 0, 1, 0), ex[e].answer);
        verify_ix(ex[e].v, ex[e].n, CAIRN_LIMITS_OFFICIAL, 0);
        verify_ix(ex[e].v, ex[e].n, CAIRN_LIMITS_OFFICIAL, 1);
    }
    /* Example 1 play by play: either first stone wins; the plugin's rule
     * (the rarer residue, 1 on a tie) takes the 1 (index 1), and Bob's 2
     * (index 0) makes 3 and loses. */
    struct outcome o;
    run_plugin(plugin(IX), ex[0].v, 2, CAIRN_LIMITS_OFFICIAL, 1, &o);
    ck_assert_uint_eq(o.res.n_moves, 2);
    ck_assert_int_eq(o.moves[0], 1);
    ck_assert_int_eq(o.moves[1], 0);
    free(o.moves);
}
END_TEST

START_TEST(test_ix_random_small)
{
    int64_t a[IX_MINIMAX_MAX_N];
    size_t empty_first_differs = 0, wins = 0;
    th_rng_seed(0x2029);
    for (int it = 0; it < 3000; it++) {
        int ext = it % 3 == 2;
        size_t n = gen_ix(a, (size_t)th_rng_range(1, IX_MINIMAX_MAX_N),
                          ext                  ? INT64_C(1000000000000)
                          : th_rng_range(0, 1) ? 10000
                                               : 6,
                          ext);
        int w = brute_ix_minimax(a, n, 0, 1, 0);
        empty_first_differs += brute_ix_minimax(a, n, 0, 1, 1) != w;
        wins += (size_t)w;
        ck_assert_int_eq(ix_ref(a, n), w);
        verify_ix(a, n, ext ? CAIRN_LIMITS_EXTENDED : CAIRN_LIMITS_OFFICIAL, it % 2);
    }
    /* The generator reaches both answers and the emptiness-first trap. */
    ck_assert_uint_gt(wins, 600);
    ck_assert_uint_lt(wins, 2400);
    ck_assert_uint_gt(empty_first_differs, 150);
}
END_TEST

START_TEST(test_ix_random_larger)
{
    static int64_t a[120];
    size_t wins = 0;
    th_rng_seed(0x20290);
    for (int it = 0; it < 1500; it++) {
        int ext = it % 2;
        size_t n = gen_ix(a, (size_t)th_rng_range(8, 120), ext ? INT64_C(1) << 40 : 10000, ext);
        /* The exhaustive search agrees with the counts DP where it can. */
        if (n <= 9 && it % 10 == 0)
            ck_assert_int_eq(brute_ix_minimax(a, n, 0, 1, 0), ix_ref(a, n));
        wins += (size_t)ix_ref(a, n);
        verify_ix(a, n, ext ? CAIRN_LIMITS_EXTENDED : CAIRN_LIMITS_OFFICIAL, 1);
    }
    ck_assert_uint_gt(wins, 300);
    ck_assert_uint_lt(wins, 1200);
}
END_TEST

START_TEST(test_ix_bounds)
{
    static int64_t a[100000];
    const struct cairn_plugin *p = plugin(IX);
    th_rng_seed(0x21000);
    /* Official maximum: counts around the boundaries of the rule. */
    static const size_t counts[][3] = {
        { 0, 50000, 50000 }, /* c0 even, both: Alice wins */
        { 1, 50000, 49999 }, /* c0 odd, |c1 - c2| = 1: Bob */
        { 1, 50002, 49997 }, /* c0 odd, |c1 - c2| = 5: Alice */
        { 2, 99998, 0 },     /* c0 even, no 2s: Bob */
        { 99999, 1, 0 },     /* c0 odd: Bob */
        { 100000, 0, 0 },    /* only multiples of 3: Alice loses at once */
        { 3, 49999, 49998 },
    };
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++) {
        size_t n = 0;
        for (int r = 0; r < 3; r++)
            for (size_t i = 0; i < counts[k][r]; i++)
                a[n++] = 3 * th_rng_range(r == 0 ? 1 : 0, (10000 - r) / 3) + r;
        for (size_t i = n; i-- > 1;) {
            size_t j = (size_t)th_rng_range(0, (int64_t)i);
            int64_t tmp = a[i];
            a[i] = a[j];
            a[j] = tmp;
        }
        ck_assert_uint_eq(n, 100000);
        /* The counts DP is too big here; the replay still judges every
         * move, by the rule for the position left (checked against the DP
         * in the other tests). */
        size_t c0 = counts[k][0], c1 = counts[k][1], c2 = counts[k][2];
        int want = c0 % 2 == 0 ? c1 >= 1 && c2 >= 1 : (c1 > c2 ? c1 - c2 : c2 - c1) >= 3;
        struct outcome o;
        run_plugin(p, a, n, CAIRN_LIMITS_OFFICIAL, 1, &o);
        CHECK_MSG(o.res.answer == want, "counts %zu/%zu/%zu: answer %" PRId64, c0, c1, c2,
                  o.res.answer);
        /* Replay: legal, the loser is the right player, never early. */
        size_t c[3] = { c0, c1, c2 };
        int s = 0, alice = 1;
        char *gone = calloc(n, 1);
        ck_assert_ptr_nonnull(gone);
        for (size_t t = 0; t < o.res.n_moves; t++) {
            int32_t i = o.moves[t];
            CHECK_MSG(i >= 0 && (size_t)i < n && !gone[i], "move %zu: index %" PRId32, t, i);
            gone[i] = 1;
            int r = brute_ix_residue(a[i]);
            if ((s + r) % 3 == 0) {
                /* the last move, by the loser, with no safe stone left */
                CHECK_MSG(t + 1 == o.res.n_moves && alice == !want, "move %zu of %zu loses, by %s",
                          t, o.res.n_moves, alice ? "Alice" : "Bob");
                CHECK_MSG(s == 0 ? c[1] == 0 && c[2] == 0 : c[0] == 0 && c[s] == 0,
                          "move %zu loses with a safe stone left", t);
            }
            c[r]--;
            s = (s + r) % 3;
            alice = !alice;
        }
        if (s != 0)
            ck_assert(c[0] + c[1] + c[2] == 0 && !want);
        free(gone);
        free(o.moves);
    }
    /* Extended: the whole int64 range, negatives and zeros (v mod 3 of a
     * negative value is taken mathematically: -1 is 2 mod 3). */
    const struct cairn_bounds *e = &p->inputs[0].extended;
    ck_assert_int_eq(e->min_value, INT64_MIN);
    ck_assert_int_eq(e->max_value, INT64_MAX);
    ck_assert_uint_ge(e->max_len, 1000000);
    static const int64_t edge[][4] = {
        { INT64_MIN, INT64_MAX, -1, 0 }, /* residues 1, 1, 2, 0 */
        { -1, -2, 0, 0 },                /* 2, 1, 0, 0 */
        { INT64_MAX, INT64_MAX, INT64_MAX, INT64_MIN },
        { -3, 3, -6, 0 },
    };
    ck_assert_int_eq(brute_ix_residue(INT64_MIN), 1); /* -2^63 = -(3 * 3074457345618258602 + 2) */
    ck_assert_int_eq(brute_ix_residue(INT64_MAX), 1);
    ck_assert_int_eq(brute_ix_residue(-1), 2);
    for (size_t k = 0; k < sizeof edge / sizeof edge[0]; k++)
        for (size_t n = 1; n <= 4; n++)
            for (int want = 0; want <= 1; want++) {
                /* ix_ref on counts: no int64 sum of these values is needed */
                size_t c[3] = { 0, 0, 0 };
                for (size_t i = 0; i < n; i++)
                    c[brute_ix_residue(edge[k][i])]++;
                struct outcome o;
                run_plugin(p, edge[k], n, CAIRN_LIMITS_EXTENDED, want, &o);
                ck_assert_int_eq(o.res.answer, brute_ix_dp(c[0], c[1], c[2], 0, 1));
                free(o.moves);
            }
    /* Rows mixing values the 32-bit fast path takes with ones it must hand
     * to the exact path (negative, >= 2^32), in some blocks only.  c0 is
     * odd and |c1 - c2| is 2 or 3, so one stone miscounted flips the
     * answer. */
    for (int it = 0; it < 8; it++) {
        size_t cm[3] = { 2 * (size_t)th_rng_range(500, 3000) + 1, (size_t)th_rng_range(3000, 8000),
                         0 };
        cm[2] = cm[1] + (it % 2 ? 3 : 2);
        size_t len = 0;
        for (int r = 0; r < 3; r++)
            for (size_t k = 0; k < cm[r]; k++)
                a[len++] = 3 * th_rng_range(r == 0 ? 1 : 0, 3000) + r;
        for (size_t i = len; i-- > 1;) {
            size_t j = (size_t)th_rng_range(0, (int64_t)i);
            int64_t tmp = a[i];
            a[i] = a[j];
            a[j] = tmp;
        }
        /* Same residues, other paths: -1 is 2, -2 is 1, -3 is 0 mod 3, and
         * 2^32 is 1 mod 3. */
        for (int k = 0; k <= it; k++) {
            size_t i = (size_t)th_rng_range(0, (int64_t)len - 1);
            int r = brute_ix_residue(a[i]);
            a[i] = k % 2 ? -3 + r - 3 * th_rng_range(0, 9)
                         : (INT64_C(1) << 32) + (r + 2) % 3 + 3 * th_rng_range(0, 9);
            ck_assert_int_eq(brute_ix_residue(a[i]), r);
        }
        struct outcome om;
        run_plugin(p, a, len, CAIRN_LIMITS_EXTENDED, 0, &om);
        CHECK_MSG(om.res.answer == (it % 2), "counts %zu/%zu/%zu (mixed values): answer %" PRId64,
                  cm[0], cm[1], cm[2], om.res.answer);
    }
    /* A long extended row, shifted by large multiples of 3. */
    size_t n = 100000;
    for (size_t i = 0; i < n; i++)
        a[i] = th_rng_range(0, 2) + 3 * th_rng_range(-(INT64_C(1) << 60), INT64_C(1) << 60);
    size_t c[3] = { 0, 0, 0 };
    for (size_t i = 0; i < n; i++)
        c[brute_ix_residue(a[i])]++;
    struct outcome o;
    run_plugin(p, a, n, CAIRN_LIMITS_EXTENDED, 1, &o);
    int want =
        c[0] % 2 == 0 ? c[1] >= 1 && c[2] >= 1 : (c[1] > c[2] ? c[1] - c[2] : c[2] - c[1]) >= 3;
    ck_assert_int_eq(o.res.answer, want);
    ck_assert_uint_le(o.res.n_moves, n);
    free(o.moves);
}
END_TEST

/* ------------------------------------------------------------------ */
/* predict-the-winner                                                  */
/* ------------------------------------------------------------------ */

static int64_t ptw_ref(const int64_t *a, size_t n)
{
    int64_t d = n <= PTW_MINIMAX_MAX_N ? brute_ptw_minimax(a, n) : brute_ptw_dp(a, n);
    ck_assert(d != INT64_MIN);
    return d;
}

static void verify_ptw(const int64_t *a, size_t n, enum cairn_limits lim, int want_moves)
{
    const struct cairn_plugin *p = plugin(PTW);
    struct outcome o;
    int64_t d = ptw_ref(a, n), sum = sum64(a, n);

    run_plugin(p, a, n, lim, want_moves, &o);
    CHECK_MSG(o.res.answer == (d >= 0) && o.res.alice == (sum + d) / 2 &&
                  o.res.bob == (sum - d) / 2,
              "predict-the-winner %s: answer %" PRId64 " alice %" PRId64 " bob %" PRId64
              ", reference D %" PRId64 " (true iff D >= 0)",
              th_row_str(a, n), o.res.answer, o.res.alice, o.res.bob, d);
    if (!want_moves)
        return;
    ck_assert_uint_eq(o.res.n_moves, n);
    int64_t took[2] = { 0, 0 };
    size_t i = 0, j = n; /* a[i..j) is left */
    for (size_t t = 0; t < n; t++) {
        int32_t m = o.moves[t];
        CHECK_MSG(m == 0 || m == 1, "predict-the-winner %s: move %zu is %" PRId32, th_row_str(a, n),
                  t, m);
        int64_t here = ptw_ref(a + i, j - i);
        int64_t left = a[i] - ptw_ref(a + i + 1, j - i - 1);
        int64_t right = a[j - 1] - ptw_ref(a + i, j - i - 1);
        CHECK_MSG((m ? right : left) == here,
                  "predict-the-winner %s: move %zu (%c) on a[%zu..%zu) is worth %" PRId64
                  ", best is %" PRId64,
                  th_row_str(a, n), t, m ? 'R' : 'L', i, j, m ? right : left, here);
        CHECK_MSG(!m || right > left, "predict-the-winner %s: move %zu takes R on a tie",
                  th_row_str(a, n), t);
        took[t % 2] += m ? a[j - 1] : a[i];
        if (m)
            j--;
        else
            i++;
    }
    CHECK_MSG(took[0] == o.res.alice && took[1] == o.res.bob,
              "predict-the-winner %s: replay gives %" PRId64 "/%" PRId64, th_row_str(a, n), took[0],
              took[1]);
    free(o.moves);
}

START_TEST(test_ptw_examples)
{
    static const struct {
        int64_t v[8];
        size_t n;
        int answer;
        int64_t alice, bob;
    } ex[] = {
        { { 1, 5, 2 }, 3, 0, 3, 5 },
        { { 1, 5, 233, 7 }, 4, 1, 234, 12 },
    };
    for (size_t e = 0; e < sizeof ex / sizeof ex[0]; e++)
        for (int want = 0; want <= 1; want++) {
            struct outcome o;
            run_plugin(plugin(PTW), ex[e].v, ex[e].n, CAIRN_LIMITS_OFFICIAL, want, &o);
            ck_assert_int_eq(o.res.answer, ex[e].answer);
            ck_assert_int_eq(o.res.alice, ex[e].alice);
            ck_assert_int_eq(o.res.bob, ex[e].bob);
            free(o.moves);
            verify_ptw(ex[e].v, ex[e].n, CAIRN_LIMITS_OFFICIAL, want);
        }
    /* Ties answer true: [1, 1], [0], and [2, 4, 2] (Alice 2 + 2, Bob 4). */
    static const int64_t tie1[] = { 1, 1 }, tie2[] = { 0 }, tie3[] = { 2, 4, 2 };
    struct outcome o;
    run_plugin(plugin(PTW), tie1, 2, CAIRN_LIMITS_OFFICIAL, 0, &o);
    ck_assert_int_eq(o.res.answer, 1);
    run_plugin(plugin(PTW), tie2, 1, CAIRN_LIMITS_OFFICIAL, 0, &o);
    ck_assert_int_eq(o.res.answer, 1);
    ck_assert_int_eq(brute_ptw_minimax(tie3, 3), 0);
    run_plugin(plugin(PTW), tie3, 3, CAIRN_LIMITS_OFFICIAL, 0, &o);
    ck_assert_int_eq(o.res.answer, 1);
}
END_TEST

START_TEST(test_ptw_random_small)
{
    int64_t a[PTW_MINIMAX_MAX_N];
    size_t ties = 0, lose = 0;
    th_rng_seed(0x486);
    for (int it = 0; it < 4000; it++) {
        size_t n = (size_t)th_rng_range(1, PTW_MINIMAX_MAX_N);
        int ext = it % 4 == 3;
        int64_t m = th_rng_range(0, 2) ? 3 : ext ? INT64_C(1000000000000) : 10000000;
        for (size_t i = 0; i < n; i++)
            a[i] = ext ? th_rng_range(-m, m) : th_rng_range(0, m);
        int64_t d = brute_ptw_minimax(a, n);
        ck_assert_int_eq(brute_ptw_dp(a, n), d);
        ties += d == 0;
        lose += d < 0;
        verify_ptw(a, n, ext ? CAIRN_LIMITS_EXTENDED : CAIRN_LIMITS_OFFICIAL, it % 2);
    }
    /* Enough ties to catch '>' for '>=', and enough losses. */
    ck_assert_uint_gt(ties, 300);
    ck_assert_uint_gt(lose, 300);
}
END_TEST

START_TEST(test_ptw_random_larger)
{
    static int64_t a[400];
    th_rng_seed(0x4860);
    for (int it = 0; it < 200; it++) {
        size_t n = (size_t)th_rng_range(13, it < 150 ? 40 : 400);
        int64_t m = th_rng_range(0, 1) ? 2 : INT64_C(100000000000000);
        for (size_t i = 0; i < n; i++)
            a[i] = th_rng_range(-m, m);
        verify_ptw(a, n, CAIRN_LIMITS_EXTENDED, n <= 40);
    }
}
END_TEST

START_TEST(test_ptw_bounds)
{
    const struct cairn_plugin *p = plugin(PTW);
    int64_t a[20];
    th_rng_seed(0x4861);
    /* Official maximum: 20 numbers up to 1e7, and 19 (odd: not always
     * true), zeros. */
    for (int it = 0; it < 40; it++) {
        size_t n = it % 2 ? 20 : 19;
        for (size_t i = 0; i < n; i++)
            a[i] = it < 4 ? 10000000 * (it % 3 != 0) : th_rng_range(0, 10000000);
        verify_ptw(a, n, CAIRN_LIMITS_OFFICIAL, it < 20);
    }
    /* Extended maximum: 20000 numbers at +-1e14 (the 64-bit path, about
     * 2e8 cells), against a rolling textbook DP, and the moves replayed
     * for their totals. */
    const struct cairn_bounds *e = &p->inputs[0].extended;
    size_t n = e->max_len;
    ck_assert_uint_ge(n, 20000);
    int64_t *big = malloc(n * sizeof *big), *d = malloc(n * sizeof *d);
    ck_assert(big != NULL && d != NULL);
    for (size_t i = 0; i < n; i++)
        big[i] = th_rng_range(0, 3) ? e->max_value : th_rng_range(e->min_value, e->max_value);
    memcpy(d, big, n * sizeof *d);
    for (size_t len = 2; len <= n; len++)
        for (size_t i = 0; i + len <= n; i++) {
            int64_t l = big[i] - d[i + 1], r = big[i + len - 1] - d[i];
            d[i] = l > r ? l : r;
        }
    struct outcome o;
    run_plugin(p, big, n, CAIRN_LIMITS_EXTENDED, 1, &o);
    int64_t sum = sum64(big, n);
    ck_assert_int_eq(o.res.alice - o.res.bob, d[0]);
    ck_assert_int_eq(o.res.alice + o.res.bob, sum);
    ck_assert_int_eq(o.res.answer, d[0] >= 0);
    int64_t took[2] = { 0, 0 };
    size_t i = 0, j = n;
    for (size_t t = 0; t < o.res.n_moves; t++) {
        took[t % 2] += o.moves[t] ? big[--j] : big[i++];
    }
    ck_assert_uint_eq(i, j);
    ck_assert_int_eq(took[0], o.res.alice);
    ck_assert_int_eq(took[1], o.res.bob);
    free(o.moves);
    free(big);
    free(d);
    /* Past the extended length, solve() refuses on its own. */
    int64_t *over = calloc(n + 1, sizeof *over);
    ck_assert_ptr_nonnull(over);
    expect_solve_refuses(p, over, n + 1, CAIRN_LIMITS_EXTENDED, CAIRN_E_TOO_LARGE);
    free(over);
}
END_TEST

/* ------------------------------------------------------------------ */
/* stone-removal-game                                                  */
/* ------------------------------------------------------------------ */

static void verify_srg(int64_t n, enum cairn_limits lim)
{
    int32_t want_moves[11];
    size_t want_n;
    int want = brute_srg_play(n, 0, want_moves, &want_n);
    CHECK_MSG(want >= 0, "n=%" PRId64 " is not decided by the rules (a test bug)", n);
    for (int wm = 0; wm <= 1; wm++) {
        struct outcome o;
        run_plugin(plugin(SRG), &n, 1, lim, wm, &o);
        CHECK_MSG(o.res.answer == want,
                  "stone-removal-game n=%" PRId64 ": answer %" PRId64 ", simulation %d", n,
                  o.res.answer, want);
        ck_assert(o.res.alice == 0 && o.res.bob == 0);
        if (wm) {
            CHECK_MSG(o.res.n_moves == want_n, "n=%" PRId64 ": %zu moves, simulation %zu", n,
                      o.res.n_moves, want_n);
            int64_t left = n;
            for (size_t k = 0; k < want_n; k++) {
                ck_assert_int_eq(o.moves[k], want_moves[k]);
                ck_assert_int_eq(o.moves[k], 10 - (int32_t)k);
                left -= o.moves[k];
                ck_assert_int_ge(left, 0);
            }
            /* The next player cannot remove the next count, and that
             * player is the loser. */
            ck_assert_int_lt(left, 10 - (int64_t)want_n);
            ck_assert_int_eq((int)(want_n % 2), want);
        }
        free(o.moves);
    }
}

START_TEST(test_srg_examples)
{
    int32_t mv[11];
    size_t k;
    ck_assert_int_eq(brute_srg_play(12, 0, mv, &k), 1);
    ck_assert_int_eq(brute_srg_play(1, 0, mv, &k), 0);
    verify_srg(12, CAIRN_LIMITS_OFFICIAL);
    verify_srg(1, CAIRN_LIMITS_OFFICIAL);
}
END_TEST

START_TEST(test_srg_every_n)
{
    const struct cairn_plugin *p = plugin(SRG);
    int32_t mv[11];
    size_t k;
    int wins = 0, misread = 0;
    for (int64_t n = 1; n <= 50; n++) {
        verify_srg(n, CAIRN_LIMITS_OFFICIAL);
        int w = brute_srg_play(n, 0, mv, &k);
        wins += w;
        misread += brute_srg_play(n, 1, mv, &k) != w;
        /* Alice wins for 10..18, 27..33, 40..44, 49..50 (docs/games.md). */
        int listed =
            (n >= 10 && n <= 18) || (n >= 27 && n <= 33) || (n >= 40 && n <= 44) || n >= 49;
        ck_assert_int_eq(w, listed);
    }
    ck_assert_int_eq(wins, 9 + 7 + 5 + 2);
    ck_assert_int_gt(misread, 0); /* the simulation tells the misreading apart */
    for (int64_t n = 0; n <= 54; n++)
        verify_srg(n, CAIRN_LIMITS_EXTENDED);
    /* 55 and up: the 11th move would remove 0 stones. */
    const struct cairn_bounds *e = &p->inputs[0].extended;
    ck_assert_int_eq(e->max_value, 54);
    ck_assert_int_eq(e->min_value, 0);
    for (int64_t n = 55; n <= 60; n++) {
        ck_assert_int_eq(brute_srg_play(n, 0, mv, &k), -1);
        expect_solve_refuses(p, &n, 1, CAIRN_LIMITS_EXTENDED, CAIRN_E_TOO_LARGE);
    }
    int64_t huge = INT64_MAX;
    expect_solve_refuses(p, &huge, 1, CAIRN_LIMITS_EXTENDED, CAIRN_E_TOO_LARGE);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The longest extended rows                                           */
/* ------------------------------------------------------------------ */

/* stone-game-viii and stone-game-ix at their extended maximum length,
 * without moves, against streaming references (the textbook recurrence;
 * the residue counts and the rule, itself checked against the DP above). */
START_TEST(test_extended_max_length)
{
    const struct cairn_plugin *sg8 = plugin(SG8), *ix = plugin(IX);
    size_t n = sg8->inputs[0].extended.max_len;
    ck_assert_uint_ge(n, 10000000);
    ck_assert_uint_eq(ix->inputs[0].extended.max_len, n);
    int64_t *a = malloc(n * sizeof *a);
    ck_assert_ptr_nonnull(a);
    th_rng_seed(0xE7);

    /* |v| <= 8e4: (n + 1) * sum|v| stays under the 9e18 of check() */
    int64_t total = 0;
    for (size_t i = 0; i < n; i++)
        total += a[i] = th_rng_range(-80000, 80000);
    int64_t g = total, p = total;
    for (size_t j = n - 1; j-- > 1;) {
        p -= a[j + 1];
        g = p - g > g ? p - g : g;
    }
    struct outcome o;
    run_plugin(sg8, a, n, CAIRN_LIMITS_EXTENDED, 0, &o);
    ck_assert_int_eq(o.res.answer, g);
    ck_assert_int_eq(o.res.alice - o.res.bob, g);

    /* c0 odd and c1 = c2 + 3: Alice wins, and one stone moved from
     * residue 1 to 2 makes her lose, so every stone must be counted.
     * Residues are drawn without replacement; every seventh value is a
     * wide one (negative or past 2^32) for the exact path. */
    size_t c[3];
    c[0] = n / 3 | 1;
    c[2] = (n - c[0] - 3) / 2;
    c[1] = c[2] + 3;
    ck_assert_uint_eq(c[0] + c[1] + c[2], n);
    size_t left[3] = { c[0], c[1], c[2] }, first_one = n;
    for (size_t i = 0; i < n; i++) {
        uint64_t pick = th_rng_next() % (left[0] + left[1] + left[2]);
        int r = pick < left[0] ? 0 : pick < left[0] + left[1] ? 1 : 2;
        left[r]--;
        a[i] = i % 7 ? 3 * th_rng_range(r == 0, 3333) + r
                     : 3 * th_rng_range(-(INT64_C(1) << 60), INT64_C(1) << 60) + r;
        if (r == 1 && first_one == n)
            first_one = i;
    }
    run_plugin(ix, a, n, CAIRN_LIMITS_EXTENDED, 0, &o);
    ck_assert_int_eq(o.res.answer, 1);
    a[first_one] += 1; /* residue 1 -> 2: c1 - c2 = 1 */
    run_plugin(ix, a, n, CAIRN_LIMITS_EXTENDED, 0, &o);
    ck_assert_int_eq(o.res.answer, 0);
    free(a);
}
END_TEST

/* ------------------------------------------------------------------ */
/* The descriptors                                                     */
/* ------------------------------------------------------------------ */

START_TEST(test_descriptors)
{
    static const struct cairn_bounds official[N_FAM] = {
        { 2, 100000, -10000, 10000 },
        { 1, 100000, 1, 10000 },
        { 1, 20, 0, 10000000 },
        { 1, 1, 1, 50 },
    };
    static const enum cairn_input_kind kind[N_FAM] = { CAIRN_INPUT_INT_ARRAY, CAIRN_INPUT_INT_ARRAY,
                                                       CAIRN_INPUT_INT_ARRAY, CAIRN_INPUT_INT };
    static const enum cairn_answer_kind answer[N_FAM] = { CAIRN_ANSWER_INT, CAIRN_ANSWER_BOOL,
                                                          CAIRN_ANSWER_BOOL, CAIRN_ANSWER_BOOL };
    static const enum cairn_moves_kind moves[N_FAM] = { CAIRN_MOVES_COUNT, CAIRN_MOVES_INDEX,
                                                        CAIRN_MOVES_SIDE, CAIRN_MOVES_COUNT };
    static const uint32_t totals[N_FAM] = { CAIRN_TOTALS_ALL, 0, CAIRN_TOTALS_ALL, 0 };

    for (int g = 0; g < N_FAM; g++) {
        const struct cairn_plugin *p = plugin((enum fam)g);
        ck_assert_uint_eq(p->abi_major, CAIRN_PLUGIN_ABI_MAJOR);
        ck_assert_uint_eq(p->abi_minor, CAIRN_PLUGIN_ABI_MINOR);
        ck_assert_uint_eq(p->struct_size, sizeof(struct cairn_plugin));
        ck_assert_str_eq(p->name, fam_name[g]);
        ck_assert_ptr_nonnull(p->version);
        ck_assert_ptr_nonnull(p->summary);
        ck_assert_ptr_nonnull(p->solve);
        ck_assert_ptr_nonnull(p->scratch_bytes);
        ck_assert_ptr_nonnull(p->max_moves);
        ck_assert_ptr_nonnull(p->aliases);
        ck_assert_ptr_nonnull(p->aliases[0]);
        ck_assert_str_eq(p->aliases[0], fam_alias[g]);
        ck_assert_ptr_null(p->aliases[1]);
        ck_assert_uint_eq(p->n_inputs, 1);
        ck_assert_str_eq(p->inputs[0].name, fam_input[g]);
        ck_assert_int_eq(p->inputs[0].kind, kind[g]);
        ck_assert_int_eq(p->answer_kind, answer[g]);
        ck_assert_int_eq(p->moves_kind, moves[g]);
        ck_assert_uint_eq(p->totals, totals[g]);
        ck_assert_uint_eq(p->equal_length, 0);
        const struct cairn_bounds *o = &p->inputs[0].official, *e = &p->inputs[0].extended;
        CHECK_MSG(o->min_value == official[g].min_value && o->max_value == official[g].max_value &&
                      (kind[g] == CAIRN_INPUT_INT ||
                       (o->min_len == official[g].min_len && o->max_len == official[g].max_len)),
                  "%s: official bounds len %zu..%zu values %" PRId64 "..%" PRId64
                  " are not LeetCode's",
                  p->name, o->min_len, o->max_len, o->min_value, o->max_value);
        ck_assert_int_le(e->min_value, o->min_value);
        ck_assert_int_ge(e->max_value, o->max_value);
        if (kind[g] == CAIRN_INPUT_INT_ARRAY) {
            ck_assert_uint_eq(e->min_len, 1);
            ck_assert_uint_ge(e->max_len, o->max_len);
            ck_assert_int_lt(e->min_value, 0);
        }
    }
    /* Only stone-game-viii has a cross-field rule (the totals' range). */
    ck_assert_ptr_nonnull(plugin(SG8)->check);
    ck_assert_ptr_null(plugin(IX)->check);
    ck_assert_ptr_null(plugin(PTW)->check);
    ck_assert_ptr_null(plugin(SRG)->check);
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *family_b_suite(void)
{
    Suite *s = suite_create("family_b");
    TCase *tc;

    tc = tcase_create("descriptors");
    tcase_add_test(tc, test_descriptors);
    suite_add_tcase(s, tc);

    tc = tcase_create("official_examples");
    tcase_add_test(tc, test_sg8_examples);
    tcase_add_test(tc, test_ix_examples);
    tcase_add_test(tc, test_ptw_examples);
    tcase_add_test(tc, test_srg_examples);
    suite_add_tcase(s, tc);

    tc = tcase_create("random_small_vs_minimax");
    tcase_add_test(tc, test_sg8_random_small);
    tcase_add_test(tc, test_ix_random_small);
    tcase_add_test(tc, test_ptw_random_small);
    tcase_add_test(tc, test_srg_every_n);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("random_larger_vs_dp");
    tcase_add_test(tc, test_sg8_random_larger);
    tcase_add_test(tc, test_ix_random_larger);
    tcase_add_test(tc, test_ptw_random_larger);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("bounds");
    tcase_add_test(tc, test_sg8_bounds);
    tcase_add_test(tc, test_ix_bounds);
    tcase_add_test(tc, test_ptw_bounds);
    tcase_add_test(tc, test_extended_max_length);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    g_plugin_dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_plugin_dir == NULL || g_plugin_dir[0] == '\0') {
        fprintf(stderr, "test_family_b: CAIRN_TEST_PLUGIN_DIR is not set (meson test sets it)\n");
        return EXIT_FAILURE;
    }
    for (int g = 0; g < N_FAM; g++) {
        load_one((enum fam)g);
        if (g_pl[g].desc == NULL)
            fprintf(stderr, "test_family_b: %s not loaded: %s\n", fam_name[g], g_pl[g].why);
    }

    int failed = th_run_suite(family_b_suite(), CK_NORMAL, 1);
    for (int g = 0; g < N_FAM; g++)
        if (g_pl[g].dl != NULL)
            dlclose(g_pl[g].dl);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
