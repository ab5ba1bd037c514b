/*
 * stone-game-ii - LeetCode 1140.
 *
 * A row of piles and a number M, starting at 1.  On each turn the player to
 * move takes the first X remaining piles, 1 <= X <= 2M, then M = max(M, X).
 * Alice moves first; both maximise their own total (minimax on the
 * difference).  The answer is Alice's total.
 *
 * Kernel: with suf[i] = piles[i] + ... + piles[n-1] and r = n - i,
 *
 *     f(i, m) = max_{x = 1 .. min(2m, r)} (suf[i] - suf[i+x]) - f(i+x, max(m, x))
 *     f(n, m) = 0
 *
 * Every m >= ceil(r/2) allows all remaining x, and so does every state
 * reachable from there, so f(i, m) = f(i, min(m, ceil(r/2))): the table is
 * (n+1) x ceil(n/2) int64, filled bottom-up.
 *
 * The max splits at x = m.  For x <= m, M stays m: a scan of column m,
 * about n^3/24 steps in all, contiguous.  For x > m, M becomes x, so the
 * term g_i(x) = suf[i+x] + f(i+x, x) does not depend on m, and the range
 * m+1 .. 2m only moves right as m grows: a monotone queue keeps its
 * minimum, O(n) per row instead of a strided scan per entry.  O(n^2)
 * memory.  When no value is negative (always so under the official limits),
 * f(i, ceil(r/2)) = suf[i] (take everything); with negative values that
 * shortcut is wrong ([5, -10], M = 1: take 5 only), so it is not used.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#define SG2_OFFICIAL_MAX_LEN   100
#define SG2_OFFICIAL_MAX_VALUE 10000
/* n * |v| <= 1e18 < 2^63; the table is at most 1000 x 500 int64 (4 MB). */
#define SG2_EXTENDED_MAX_LEN   1000
#define SG2_EXTENDED_MAX_VALUE INT64_C(1000000000000000) /* 1e15 */

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg2_aliases[] = { "1140", NULL };

static const struct cairn_input_decl sg2_inputs[] = {
    {
        .name = "piles",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 1,
                      .max_len = SG2_OFFICIAL_MAX_LEN,
                      .min_value = 1,
                      .max_value = SG2_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = SG2_EXTENDED_MAX_LEN,
                      .min_value = -SG2_EXTENDED_MAX_VALUE,
                      .max_value = SG2_EXTENDED_MAX_VALUE },
    },
};

static void sg2_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int sg2_get(const struct cairn_problem *pb, const int64_t **p, size_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *p = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || !*p)
        return CAIRN_E_INTERNAL;
    if (*n > SG2_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

/* Columns of the table: m = 1 .. ceil(n/2). */
static size_t sg2_width(size_t n)
{
    return (n + 1) / 2;
}

static size_t sg2_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *p;
    size_t n;
    if (sg2_get(pb, &p, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    /* n <= 1000: at most 1001 * 504 * 8 bytes (4 MB), no overflow.  The
     * suffix sums, the table, and the queue's values and x's. */
    return (n + 1) * (3 + sg2_width(n)) * sizeof(int64_t);
}

static size_t sg2_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return 0;
    return pb->inputs[0].n;
}

/*
 * The table, column-major: column m (1 .. w) is n + 1 entries, entry j is
 * f(j, m), with f(n, m) = 0.  Every column is filled, m > ceil((n-j)/2)
 * holding the clamped value, so a lookup only clamps m to w.  Column-major
 * makes the x <= m half of the search a contiguous scan of one column.
 */
struct sg2_ctx {
    const int64_t *suf; /* n + 1 suffix sums */
    int64_t *t;         /* w columns of n + 1 */
    int64_t *qv;        /* the row's monotone queue: n + 1 values of g */
    size_t *qx;         /* ... and their x (int64-sized: n + 1 entries) */
    size_t n, w;
};

static inline const int64_t *sg2_col(const struct sg2_ctx *c, size_t m)
{
    return c->t + ((m < c->w ? m : c->w) - 1) * (c->n + 1);
}

static inline int64_t sg2_f(const struct sg2_ctx *c, size_t j, size_t m)
{
    return sg2_col(c, m)[j];
}

/* The mover's score of taking x piles at (i, m): their sum - f(i + x,
 * max(m, x)). */
static int64_t sg2_take(const struct sg2_ctx *c, size_t i, size_t m, size_t x)
{
    return (c->suf[i] - c->suf[i + x]) - sg2_f(c, i + x, x > m ? x : m);
}

/* min over x = 1 .. xa of suf[i+x] + f(i+x, m): column m, contiguous. */
static int64_t sg2_min_stay(const struct sg2_ctx *c, size_t i, size_t m, size_t xa)
{
    const int64_t *restrict suf = c->suf;
    const int64_t *restrict col = sg2_col(c, m);
    int64_t lo = INT64_MAX;

    for (size_t j = i + 1; j <= i + xa; j++) {
        int64_t v = suf[j] + col[j];
        lo = v < lo ? v : lo;
    }
    return lo;
}

/* Row i of the table for m = 1 .. cap - 1, where x ranges over 1 .. 2m:
 * f(i, m) = suf[i] - min(min_stay(m), min over x = m+1 .. 2m of g(x)),
 * g(x) = suf[i+x] + f(i+x, x).  The queue holds the x of that range whose
 * g is below every later one's, in increasing x and g: its head is the
 * minimum. */
static void sg2_fill_row(struct sg2_ctx *c, size_t i, size_t cap)
{
    const size_t stride = c->n + 1;
    int64_t *restrict qv = c->qv;
    size_t *restrict qx = c->qx;
    size_t head = 0, tail = 0, next = 2;

    for (size_t m = 1; m < cap; m++) {
        for (; next <= 2 * m; next++) {
            int64_t g = c->suf[i + next] + sg2_f(c, i + next, next);
            while (tail > head && qv[tail - 1] >= g)
                tail--;
            qv[tail] = g;
            qx[tail++] = next;
        }
        while (qx[head] <= m)
            head++;
        int64_t lo = sg2_min_stay(c, i, m, m);
        lo = qv[head] < lo ? qv[head] : lo;
        c->t[(m - 1) * stride + i] = c->suf[i] - lo;
    }
}

/* Best difference over every x = 1 .. r (m >= cap), for a row with
 * negative values: once per row, so a plain scan. */
static int64_t sg2_eval_all(const struct sg2_ctx *c, size_t i, size_t cap)
{
    size_t r = c->n - i;
    int64_t best = c->suf[i] - sg2_min_stay(c, i, cap, cap < r ? cap : r);

    for (size_t x = cap + 1; x <= r; x++) {
        int64_t v = sg2_take(c, i, cap, x);
        best = v > best ? v : best;
    }
    return best;
}

/* Suffix sums and the whole table in scratch (sg2_scratch_bytes), for
 * solve() and analyze() alike. */
static void sg2_fill(const int64_t *p, size_t n, int64_t *scratch, struct sg2_ctx *c)
{
    int64_t *suf = scratch;
    const size_t stride = n + 1;
    const size_t w = sg2_width(n);

    *c = (struct sg2_ctx){ .suf = suf,
                           .t = suf + stride,
                           .qv = suf + stride * (1 + w),
                           .qx = (size_t *)(suf + stride * (2 + w)),
                           .n = n,
                           .w = w };
    int nonneg = 1;
    suf[n] = 0;
    for (size_t i = n; i-- > 0;) {
        suf[i] = suf[i + 1] + p[i];
        nonneg &= p[i] >= 0;
    }

    for (size_t m = 1; m <= c->w; m++)
        c->t[(m - 1) * stride + n] = 0;
    for (size_t i = n; i-- > 0;) {
        size_t cap = (n - i + 1) / 2; /* from here on all x are allowed */
        sg2_fill_row(c, i, cap);
        int64_t all = nonneg ? suf[i] : sg2_eval_all(c, i, cap);
        for (size_t m = cap; m <= c->w; m++)
            c->t[(m - 1) * stride + i] = all;
    }
}

static int sg2_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *p;
    size_t n;
    int rc = sg2_get(pb, &p, &n);
    if (rc != CAIRN_OK) {
        sg2_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.piles: too long" : "input.piles: bad problem");
        return rc;
    }
    if (!res || !scratch) {
        sg2_msg(msg, msg_len, "stone-game-ii: no result or scratch buffer");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!res->moves || res->moves_cap < n)) {
        sg2_msg(msg, msg_len, "stone-game-ii: moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int64_t *suf = scratch;
    struct sg2_ctx c;
    sg2_fill(p, n, scratch, &c);

    int64_t diff = sg2_f(&c, 0, 1);
    int64_t sum = suf[0];

    if (pb->want_moves) {
        size_t i = 0, m = 1, k = 0;
        while (i < n) {
            int64_t want = sg2_f(&c, i, m);
            size_t r = n - i;
            size_t xmax = 2 * m < r ? 2 * m : r;
            size_t x = 1;
            for (; x <= xmax; x++)
                if (sg2_take(&c, i, m, x) == want)
                    break;
            if (x > xmax || k >= n) {
                sg2_msg(msg, msg_len, "stone-game-ii: no optimal move found");
                return CAIRN_E_INTERNAL;
            }
            res->moves[k++] = (int32_t)x;
            i += x;
            if (x > m)
                m = x;
        }
        res->n_moves = k;
    }

    res->alice = (sum + diff) / 2; /* |sum|, |diff| <= 1e18: no overflow */
    res->bob = (sum - diff) / 2;
    res->answer = res->alice;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2) ------------------------------------------------- */

/*
 * A position is (i, M): the first pile left and M.  The kernel's table
 * (sg2_fill) holds f(i, m) for every m, clamped where every X is allowed,
 * so each position of a line is a lookup and a line is graded for the price
 * of one solve.  Values are the final margin Alice - Bob.
 */
static size_t sg2_max_legal_moves(const struct cairn_problem *pb)
{
    const int64_t *p;
    size_t n;
    if (sg2_get(pb, &p, &n) != CAIRN_OK)
        return 0;
    return n; /* X <= the piles left */
}

static size_t sg2_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    (void)n_line;
    return sg2_scratch_bytes(pb); /* the table, as solve() */
}

static size_t sg2_limit(size_t n, size_t i, size_t m)
{
    return 2 * m < n - i ? 2 * m : n - i;
}

static int sg2_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    const int64_t *p;
    size_t n;
    int rc = sg2_get(pb, &p, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < n)) {
        sg2_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.piles: too long"
                                        : "stone-game-ii: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    struct sg2_ctx c;
    sg2_fill(p, n, scratch, &c);

    size_t i = 0, m = 1, found = 0;
    int64_t acc = 0;
    for (size_t t = 0; t < a->n_line; t++) {
        int32_t x = a->line[t];
        int64_t s = t % 2 == 0 ? 1 : -1;
        if (i == n || x < 1 || (size_t)x > sg2_limit(n, i, m)) {
            a->bad = t;
            if (i == n)
                snprintf(msg, msg_len, "the game is over: all %zu piles are taken", n);
            else
                snprintf(msg, msg_len, "with M = %zu and %zu piles left, X must be 1 to %zu", m,
                         n - i, sg2_limit(n, i, m));
            return CAIRN_E_ILLEGAL;
        }
        if (!found) {
            int64_t score = sg2_take(&c, i, m, (size_t)x), best_score = sg2_f(&c, i, m);
            if (score < best_score) {
                size_t best = 1;
                while (sg2_take(&c, i, m, best) != best_score)
                    best++; /* the smallest X worth f: the table says one is */
                found = 1;
                a->ply = t;
                a->mover = (int32_t)(t % 2);
                a->best = (int32_t)best;
                a->best_value = acc + s * best_score;
                a->value = acc + s * score;
            }
        }
        acc += s * (c.suf[i] - c.suf[i + (size_t)x]);
        i += (size_t)x;
        m = (size_t)x > m ? (size_t)x : m;
    }
    int64_t s = a->n_line % 2 == 0 ? 1 : -1;
    if (!found) {
        a->ply = a->n_line;
        a->mover = (int32_t)(a->n_line % 2);
        a->best_value = acc + s * sg2_f(&c, i, m); /* f(n, m) = 0 */
    }
    if (a->moves && i < n)
        for (size_t x = 1; x <= sg2_limit(n, i, m); x++)
            a->moves[a->n_moves++] =
                (struct cairn_move_value){ .move = (int32_t)x,
                                           .value = acc + s * sg2_take(&c, i, m, x) };
    return CAIRN_OK;
}

static const struct cairn_plugin sg2_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game-ii",
    .aliases = sg2_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 1140: take the first X piles, 1 <= X <= 2M; Alice's maximum total",
    .inputs = sg2_inputs,
    .n_inputs = sizeof sg2_inputs / sizeof sg2_inputs[0],
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = NULL,
    .scratch_bytes = sg2_scratch_bytes,
    .max_moves = sg2_max_moves,
    .solve = sg2_solve,
    .totals = CAIRN_TOTALS_ALL, /* alice, bob and margin, as in ABI 1.0 */
    .value_kind = CAIRN_VALUE_MARGIN,
    .max_legal_moves = sg2_max_legal_moves,
    .analysis_scratch_bytes = sg2_analysis_bytes,
    .analyze = sg2_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg2_plugin;
}
