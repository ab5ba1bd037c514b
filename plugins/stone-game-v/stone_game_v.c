/*
 * stone-game-v - LeetCode 1563.
 *
 * A row of stones with positive values.  Each round Alice cuts the row into
 * two non-empty parts; Bob throws away the part with the larger sum and
 * Alice scores the sum of the part kept; on equal sums Alice chooses which
 * part is kept.  Play goes on with the kept part until one stone is left.
 * The answer is Alice's maximum total score.  Bob has no choice to make.
 *
 * Kernel: O(n^2) time.  With S(i, j) the sum of v[i..j] and dp(i, j) the
 * best score on that row, let
 *
 *     Lmax(i, j) = max_{i <= j' <= j} S(i, j') + dp(i, j')   (kept left parts)
 *     Rmax(i, j) = max_{i <= i' <= j} S(i', j) + dp(i', j)   (kept right parts)
 *
 * Cutting before p (left part i..p-1, right part p..j): the left sum grows
 * with p, so with p* the first cut whose left sum is >= the right sum,
 * every cut before p* keeps its left part and every cut after p* keeps its
 * right part, and p* itself keeps the right part, or either on a tie:
 *
 *     tie at p*:  dp(i, j) = max(Lmax(i, p*-1), Rmax(p*, j))
 *     otherwise:  dp(i, j) = max(Lmax(i, p*-2), Rmax(p*, j))
 *
 * (an empty range counts as 0; every candidate is >= 1).  The tie case has
 * to use both sides: taking only one, or reading a left-anchored maximum
 * where a right-anchored one is meant, is the bug of an old published
 * revision (docs/games.md, stone-game-v).  p* only moves right as j grows,
 * which makes the whole table O(n^2); that needs every value >= 1, which
 * both the official and the extended bounds keep.
 *
 * Rows are filled for i from n-1 down to 0 and j upwards, so Lmax is one
 * row (only the current i is read) and Rmax a triangle of rows
 * Rmax(p, .), (n+1)(n+2)/2 int64 with its sentinels.  With moves, dp itself
 * is kept too (n(n+1)/2 int64) and the line of play is read back by trying
 * every cut of the current row: O(n) a round.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#define SG5_OFFICIAL_MAX_LEN   500
#define SG5_OFFICIAL_MAX_VALUE 1000000
/* n * v <= 2e18: every prefix sum, S + dp < 2 S and 2 P[p] fit in int64.
 * The Rmax triangle is 16 MB at the maximum (32 MB with moves); the time,
 * about 25 ms there, is not what limits n. */
#define SG5_EXTENDED_MAX_LEN   2000
#define SG5_EXTENDED_MAX_VALUE INT64_C(1000000000000000) /* 1e15 */

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg5_aliases[] = { "1563", NULL };

static const struct cairn_input_decl sg5_inputs[] = {
    {
        .name = "stoneValue",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 1,
                      .max_len = SG5_OFFICIAL_MAX_LEN,
                      .min_value = 1,
                      .max_value = SG5_OFFICIAL_MAX_VALUE },
        /* Values stay >= 1 even here: the moving cut point needs them. */
        .extended = { .min_len = 1,
                      .max_len = SG5_EXTENDED_MAX_LEN,
                      .min_value = 1,
                      .max_value = SG5_EXTENDED_MAX_VALUE },
    },
};

static void sg5_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int sg5_get(const struct cairn_problem *pb, const int64_t **v, size_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *v = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || !*v)
        return CAIRN_E_INTERNAL;
    if (*n > SG5_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static size_t sg5_tri(size_t n)
{
    return n * (n + 1) / 2;
}

/* Words of the Rmax triangle: row r (0 <= r <= n) holds the columns
 * r-1 .. n-1, column r-1 being a 0 that stands for "no cut keeps a right
 * part" (see sg5_kernel). */
static size_t sg5_rtri(size_t n)
{
    return (n + 1) * (n + 2) / 2;
}

/* prefix (n + 1), Lmax row (n + 1, with a sentinel in front), Rmax
 * triangle; with moves a dp triangle. */
static size_t sg5_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *v;
    size_t n;
    if (sg5_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    size_t words = (n + 1) + (n + 1) + sg5_rtri(n);
    if (pb->want_moves)
        words += sg5_tri(n);
    return words * sizeof(int64_t);
}

/* One cut per round, and each round drops at least one stone. */
static size_t sg5_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs || pb->inputs[0].n == 0)
        return 0;
    return pb->inputs[0].n - 1;
}

/* Row r of the dp triangle (row r holding columns r..n-1, rows stored one
 * after the other), as a pointer indexed by the column itself. */
static int64_t *sg5_row(int64_t *tri, size_t n, size_t r)
{
    return tri + (r * n - r * (r - 1) / 2) - r;
}

/* Where row r of the Rmax triangle starts (its sentinel, column r-1):
 * after rows 0..r-1 of n+1, n, ... entries. */
static size_t sg5_roff(size_t n, size_t r)
{
    return r * (n + 1) - r * (r - 1) / 2;
}

/* Row r of the Rmax triangle as a pointer indexed by the column (>= r-1;
 * only row 0 has its sentinel at column -1, and it is never read through
 * this pointer). */
static int64_t *sg5_rrow(int64_t *tri, size_t n, size_t r)
{
    return tri + (sg5_roff(n, r) + 1) - r;
}

/*
 * The table.  P is the prefix sums (P[0] = 0), lm the Lmax row shifted by
 * one (lm[j + 1] = Lmax(i, j), n + 1 entries), rmax the Rmax triangle; dpt
 * (or NULL) receives dp(i, j).  Returns dp(0, n-1).
 *
 * The cut p only moves right (about half a step per column on random
 * rows), and the two sentinels make every case one formula,
 *
 *     dp(i, j) = max(Lmax(i, p - 2 + tie), Rmax(p, j))
 *
 * with Lmax(i, i-1) = lm[i] = 0 (no cut before p = i+1 keeps a left part) and
 * Rmax(j+1, j) = 0 (p = j+1: every cut keeps its left part; no tie is
 * possible there since the values are positive).
 */
static int64_t sg5_kernel(const int64_t *restrict v, size_t n, const int64_t *restrict P,
                          int64_t *restrict lm, int64_t *restrict rmax, int64_t *restrict dpt)
{
    int64_t answer = 0;
    for (size_t r = 0; r <= n; r++)
        rmax[sg5_roff(n, r)] = 0;
    for (size_t i = n; i-- > 0;) {
        int64_t *ri = sg5_rrow(rmax, n, i);
        const int64_t *ri1 = sg5_rrow(rmax, n, i + 1);
        int64_t *di = dpt ? sg5_row(dpt, n, i) : NULL;
        const int64_t pi = P[i];
        lm[i] = 0;        /* the sentinel Lmax(i, i-1) */
        lm[i + 1] = v[i]; /* S(i, i) + dp(i, i) = v[i] + 0 */
        ri[i] = v[i];
        if (di)
            di[i] = 0;

        /* p: the first cut whose left sum is >= the right sum; it never
         * passes j + 1 (that would need P[j+1] < P[i]). */
        size_t p = i + 1;
        const int64_t *rp = ri1;
        int64_t lprev = v[i]; /* Lmax(i, j-1), kept out of memory */
        for (size_t j = i + 1; j < n; j++) {
            const int64_t twice = pi + P[j + 1]; /* left < right <=> 2 P[p] < twice */
            /* One step without a branch (on random rows p moves in about
             * half the columns, which a branch would mispredict), then a
             * loop for the rarer longer moves. */
            size_t adv = 2 * P[p] < twice;
            rp += adv * (n - p); /* sg5_rrow(p + 1) - sg5_rrow(p) */
            p += adv;
            while (2 * P[p] < twice) {
                rp += n - p;
                p++;
            }
            size_t tie = 2 * P[p] == twice;
            int64_t a = lm[p - 1 + tie], b = rp[j]; /* Lmax(i, p-2+tie), Rmax(p, j) */
            int64_t best = a > b ? a : b;
            int64_t val = P[j + 1] - pi + best;
            int64_t r = ri1[j];
            lprev = lprev > val ? lprev : val;
            lm[j + 1] = lprev;
            ri[j] = r > val ? r : val;
            if (di)
                di[j] = best;
            answer = best; /* the last one written is dp(0, n-1) */
        }
    }
    return answer;
}

/* The line of play: at each row, the first cut (and on a tie of sums, the
 * left part first) worth dp of the row.  Returns 0, or -1 if none is (a
 * bug). */
static int sg5_line(size_t n, const int64_t *P, int64_t *dpt, int32_t *moves, size_t *n_moves)
{
    size_t lo = 0, hi = n - 1, k = 0;
    while (lo < hi) {
        int64_t want = sg5_row(dpt, n, lo)[hi];
        int found = 0;
        for (size_t p = lo + 1; p <= hi && !found; p++) {
            int64_t sl = P[p] - P[lo], sr = P[hi + 1] - P[p];
            if (sl <= sr && sl + sg5_row(dpt, n, lo)[p - 1] == want) {
                moves[k++] = CAIRN_MOVE_SPLIT(p, 0);
                hi = p - 1;
                found = 1;
            } else if (sl >= sr && sr + sg5_row(dpt, n, p)[hi] == want) {
                moves[k++] = CAIRN_MOVE_SPLIT(p, 1);
                lo = p;
                found = 1;
            }
        }
        if (!found)
            return -1;
    }
    *n_moves = k;
    return 0;
}

static int sg5_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg5_get(pb, &v, &n);
    if (rc != CAIRN_OK) {
        sg5_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.stoneValue: too long"
                                        : "input.stoneValue: bad problem");
        return rc;
    }
    if (!res || !scratch) {
        sg5_msg(msg, msg_len, "stone-game-v: no result or scratch buffer");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!res->moves || res->moves_cap < n - 1)) {
        sg5_msg(msg, msg_len, "stone-game-v: moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int64_t *P = scratch;
    int64_t *lm = P + (n + 1);
    int64_t *rmax = lm + (n + 1);
    int64_t *dpt = pb->want_moves ? rmax + sg5_rtri(n) : NULL;
    P[0] = 0;
    for (size_t i = 0; i < n; i++) {
        if (v[i] < 1) { /* the host's bounds forbid it; the pointer needs it */
            sg5_msg(msg, msg_len, "stone-game-v: a value below 1");
            return CAIRN_E_INTERNAL;
        }
        P[i + 1] = P[i] + v[i];
    }

    int64_t answer = sg5_kernel(v, n, P, lm, rmax, dpt);
    if (dpt && sg5_line(n, P, dpt, res->moves, &res->n_moves) != 0) {
        sg5_msg(msg, msg_len, "stone-game-v: no cut reaches the table value");
        return CAIRN_E_INTERNAL;
    }
    res->answer = answer;
    res->alice = answer; /* totals: Alice's score only (Bob scores nothing) */
    res->bob = 0;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2) ------------------------------------------------- */

/*
 * A position is the row [lo, hi] still in play; the kernel's dp triangle
 * (what solve() keeps for moves) holds the value of every such row, so a
 * line is graded for the price of one table.  Only Alice moves (Bob's
 * discard is forced), and values are Alice's final total: what she scored
 * so far plus the part kept plus dp of that part.  Legal moves are the
 * cuts keeping the smaller part, and both parts on a tie of sums.
 */
static size_t sg5_max_legal_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs || pb->inputs[0].n == 0)
        return 0;
    return 2 * (pb->inputs[0].n - 1);
}

static size_t sg5_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    const int64_t *v;
    size_t n;
    (void)n_line;
    if (sg5_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* analyze() refuses the problem before touching scratch */
    return ((n + 1) + (n + 1) + sg5_rtri(n) + sg5_tri(n)) * sizeof(int64_t);
}

struct sg5_pos {
    const int64_t *P; /* prefix sums */
    int64_t *dpt;     /* dp(i, j) = sg5_row(dpt, n, i)[j] */
    size_t n, lo, hi; /* the row [lo, hi] */
};

/* Alice's gain from the move (the cut before stone k, keeping one part):
 * the part's sum plus its dp; -1 (never a gain: values are >= 1) when the
 * move is not legal here. */
static int64_t sg5_gain(const struct sg5_pos *q, size_t k, int keep_right)
{
    if (k <= q->lo || k > q->hi)
        return -1;
    int64_t sl = q->P[k] - q->P[q->lo], sr = q->P[q->hi + 1] - q->P[k];
    if (keep_right)
        return sl >= sr ? sr + sg5_row(q->dpt, q->n, k)[q->hi] : -1;
    return sl <= sr ? sl + sg5_row(q->dpt, q->n, q->lo)[k - 1] : -1;
}

/* The best move (the first cut, the left part first, as moves[] does). */
static int32_t sg5_best(const struct sg5_pos *q, int64_t *gain)
{
    int32_t best = 0;
    *gain = -1;
    for (size_t k = q->lo + 1; k <= q->hi; k++)
        for (int r = 0; r < 2; r++) {
            int64_t g = sg5_gain(q, k, r);
            if (g > *gain) {
                *gain = g;
                best = CAIRN_MOVE_SPLIT(k, r);
            }
        }
    return best;
}

static int sg5_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg5_get(pb, &v, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < 2 * (n - 1))) {
        sg5_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.stoneValue: too long"
                                        : "stone-game-v: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    int64_t *P = scratch, *lm = P + (n + 1), *rmax = lm + (n + 1), *dpt = rmax + sg5_rtri(n);
    P[0] = 0;
    for (size_t i = 0; i < n; i++)
        P[i + 1] = P[i] + v[i];
    sg5_kernel(v, n, P, lm, rmax, dpt);

    struct sg5_pos q = { .P = P, .dpt = dpt, .n = n, .lo = 0, .hi = n - 1 };
    int64_t acc = 0;
    size_t found = 0;
    for (size_t t = 0; t < a->n_line; t++) {
        int32_t m = a->line[t];
        size_t k = (size_t)CAIRN_MOVE_SPLIT_AT(m);
        int right = CAIRN_MOVE_SPLIT_KEEPS_RIGHT(m);
        int64_t g = sg5_gain(&q, k, right);
        if (g < 0) {
            a->bad = t;
            if (q.lo == q.hi)
                snprintf(msg, msg_len, "the game is over: one stone is left");
            else if (k <= q.lo || k > q.hi)
                snprintf(msg, msg_len,
                         "the row is stones %zu..%zu: a cut is before one of "
                         "stones %zu..%zu",
                         q.lo, q.hi, q.lo + 1, q.hi);
            else
                snprintf(msg, msg_len,
                         "the left part sums to %lld and the right to %lld: Bob "
                         "throws away the larger one, so the %s part cannot be kept",
                         (long long)(P[k] - P[q.lo]), (long long)(P[q.hi + 1] - P[k]),
                         right ? "right" : "left");
            return CAIRN_E_ILLEGAL;
        }
        if (!found) {
            int64_t best_gain;
            int32_t best = sg5_best(&q, &best_gain);
            if (g < best_gain) {
                found = 1;
                a->ply = t;
                a->mover = CAIRN_WINNER_ALICE;
                a->best = best;
                a->best_value = acc + best_gain;
                a->value = acc + g;
            }
        }
        if (right) {
            acc += P[q.hi + 1] - P[k];
            q.lo = k;
        } else {
            acc += P[k] - P[q.lo];
            q.hi = k - 1;
        }
    }
    if (!found) {
        a->ply = a->n_line;
        a->mover = CAIRN_WINNER_ALICE;
        a->best_value = acc + sg5_row(dpt, n, q.lo)[q.hi];
    }
    if (a->moves)
        for (size_t k = q.lo + 1; k <= q.hi; k++)
            for (int r = 0; r < 2; r++) {
                int64_t g = sg5_gain(&q, k, r);
                if (g >= 0)
                    a->moves[a->n_moves++] =
                        (struct cairn_move_value){ .move = CAIRN_MOVE_SPLIT(k, r),
                                                   .value = acc + g };
            }
    return CAIRN_OK;
}

static const struct cairn_plugin sg5_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game-v",
    .aliases = sg5_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 1563: Alice cuts the row, Bob drops the larger part; Alice's best score",
    .inputs = sg5_inputs,
    .n_inputs = sizeof sg5_inputs / sizeof sg5_inputs[0],
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_SPLIT,
    .check = NULL,
    .scratch_bytes = sg5_scratch_bytes,
    .max_moves = sg5_max_moves,
    .solve = sg5_solve,
    .equal_length = 0,
    .totals = CAIRN_TOTAL_ALICE,
    .value_kind = CAIRN_VALUE_ALICE,
    .max_legal_moves = sg5_max_legal_moves,
    .analysis_scratch_bytes = sg5_analysis_bytes,
    .analyze = sg5_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg5_plugin;
}
