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
 * (n+1) x ceil(n/2), filled bottom-up.  It holds h(j, m) = suf[j] + f(j, m),
 * so that f(i, m) = suf[i] - min over x of h(i+x, max(m, x)).
 *
 * The min splits at x = m.  For x <= m, M stays m: the minimum of column m
 * over rows i+1 .. i+m, a window of fixed width m that slides one row down
 * per row.  Each column keeps it in O(1) per row without a branch on the
 * data (van Herk / Gil-Werman): rows arrive in blocks of m; the column
 * keeps the running minimum of its unfinished block and, for the last
 * finished one, the minimum of each of its suffixes, so the window is one
 * of each.  For x > m, M becomes x, so h(i+x, x) does not depend on m, and
 * the range m+1 .. 2m only moves right as m grows: a monotone queue keeps
 * its minimum.  O(n^2) time and memory.  When no value is negative (always
 * so under the official limits), f(i, ceil(r/2)) = suf[i] (take
 * everything); with negative values that shortcut is wrong ([5, -10],
 * M = 1: take 5 only), so a plain scan finds that column then.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#define SG2_OFFICIAL_MAX_LEN   100
#define SG2_OFFICIAL_MAX_VALUE 10000
/* n * |v| <= 1e18 < 2^63; the table is at most 1000 x 500 int64 (4 MB). */
#define SG2_EXTENDED_MAX_LEN   1000
#define SG2_EXTENDED_MAX_VALUE INT64_C(1000000000000000) /* 1e15 */
/* Up to this length a plain scan per entry beats the sliding windows'
 * upkeep.  Solves back to back: 0.65-0.70x their time at n = 30, 50 and
 * 70, 0.86x at 100, even at 120..130.  But a lone solve with cold caches
 * (bench-kernels) at n = 100: 1.7x; the scan's column walks miss more. */
#define SG2_SCAN_MAX_LEN 64

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

/* Each column m keeps the suffix minima of its last finished block, m
 * entries, at m(m-1)/2 in one array: w(w+1)/2 entries in all. */
static size_t sg2_tail_base(size_t m)
{
    return m * (m - 1) / 2;
}

static size_t sg2_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *p;
    size_t n;
    if (sg2_get(pb, &p, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    size_t w = sg2_width(n);
    /* n <= 1000: about 5 MB at most, no overflow.  The suffix sums, the
     * table, the queue's values and x's; each column's running minimum and
     * count; the columns' suffix minima. */
    return ((n + 1) * (3 + w) + 2 * w + sg2_tail_base(w + 1)) * sizeof(int64_t);
}

static size_t sg2_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return 0;
    return pb->inputs[0].n;
}

/*
 * The table, row-major: row j (0 .. n) is w entries, entry m - 1 is
 * h(j, m) = suf[j] + f(j, m), with f(n, m) = 0; m > ceil((n-j)/2) holds
 * the clamped value, so a lookup only clamps m to w.
 *
 * Only the entries play can reach are filled: m <= (j + 2) / 2 (the top of
 * row j).  Raising M to m takes m piles from a state whose M was at least
 * m/2, so the first pile left is at least R(m) = R(ceil(m/2)) + m >= 2m - 2
 * (R(1) = 0, R(2) = 2).  Those entries only need each other: a window of
 * column m over rows j > i, and h(i+x, x) with x <= 2m <= i + 2; a column
 * leaves the windows once no row above can reach it.  That is about half
 * the (j, m) pairs, the solve's walk and every legal line of an analysis
 * included.  Row-major keeps a row's fill, and the push of that row into every
 * column's window, contiguous.
 */
struct sg2_ctx {
    const int64_t *suf; /* n + 1 suffix sums */
    int64_t *h;         /* n + 1 rows of w */
    int64_t *qv;        /* the row's monotone queue: n + 1 values of h */
    size_t *qx;         /* ... and their x (int64-sized: n + 1 entries) */
    int64_t *run;       /* per column: min of its unfinished block */
    size_t *fill;       /* per column: rows in that block (< m) */
    int64_t *tail;      /* per column: suffix minima of its last full block */
    size_t n, w;
};

static inline int64_t sg2_h(const struct sg2_ctx *c, size_t j, size_t m)
{
    return c->h[j * c->w + (m < c->w ? m : c->w) - 1];
}

static inline int64_t sg2_f(const struct sg2_ctx *c, size_t j, size_t m)
{
    return sg2_h(c, j, m) - c->suf[j];
}

/* The mover's score of taking x piles at (i, m): their sum - f(i + x,
 * max(m, x)). */
static int64_t sg2_take(const struct sg2_ctx *c, size_t i, size_t m, size_t x)
{
    return (c->suf[i] - c->suf[i + x]) - sg2_f(c, i + x, x > m ? x : m);
}

/* h(i, m) for m >= cap, where every x = 1 .. r is allowed, for a row with
 * negative values: once per row, so a plain scan. */
static int64_t sg2_eval_all(const struct sg2_ctx *c, size_t i, size_t cap)
{
    int64_t lo = INT64_MAX;

    for (size_t x = 1; x <= c->n - i; x++) {
        int64_t v = sg2_h(c, i + x, x > cap ? x : cap);
        lo = v < lo ? v : lo;
    }
    return 2 * c->suf[i] - lo;
}

/* One column's window: the running minimum of its unfinished block of m
 * rows, how many rows that block has, and the suffix minima of its last
 * full block, in the order the rows came (entry k is the min of the
 * block's rows from its k-th on). */
struct sg2_window {
    int64_t *run;
    size_t *fill;
    int64_t *tail;
};

/* Row j = i + 1, finished, joins column m's window (col: the table's
 * column m - 1 seen from row j, stride w); returns the minimum of the
 * column's last m rows, j .. j+m-1, once m rows are in: the unfinished
 * block's running min, and the last full block's suffix from the entry
 * the window reaches. */
static inline int64_t sg2_slide(const struct sg2_window *win, const int64_t *col, size_t w,
                                size_t m, size_t base)
{
    int64_t *restrict t = win->tail + base;
    int64_t v = col[0];
    int64_t run = win->run[m - 1];
    size_t fill = win->fill[m - 1] + 1;

    run = v < run ? v : run;
    if (fill == m) {
        int64_t lo = v;
        t[m - 1] = lo;
        for (size_t k = m - 1; k-- > 0;) {
            int64_t u = col[(m - 1 - k) * w];
            lo = u < lo ? u : lo;
            t[k] = lo;
        }
        run = INT64_MAX;
        fill = 0;
    }
    win->run[m - 1] = run;
    win->fill[m - 1] = fill;
    int64_t tl = t[fill];
    return run < tl ? run : tl;
}

/* Row i, columns 1 .. top (sg2_top): every one's window takes row i + 1
 * in.  For m = 1 .. cap - 1, where x ranges over 1 .. 2m: h(i, m) =
 * 2 suf[i] - min(that window, min over x = m+1 .. 2m of h(i+x, x)).  The
 * queue holds the x of that range whose h is below every later one's, in
 * increasing x and h: its head is the minimum.  From cap on, every x is
 * allowed: h(i, m) is all. */
static void sg2_fill_row(const struct sg2_ctx *c, size_t i, size_t cap, size_t top, int nonneg)
{
    const size_t w = c->w;
    const struct sg2_window win = { c->run, c->fill, c->tail };
    int64_t *restrict qv = c->qv;
    size_t *restrict qx = c->qx;
    int64_t *restrict row = c->h + i * w;
    const int64_t *below = row + w;      /* row i + 1 */
    const int64_t twice = 2 * c->suf[i]; /* |suf| <= 1e18 */
    size_t head = 0, end = 0, next = 2, base = 0, m = 1;
    const size_t stop = cap <= top ? cap : top + 1;

    for (; m < stop; base += m, m++) {
        for (; next <= 2 * m; next++) {
            int64_t g = row[next * w + (next < w ? next : w) - 1]; /* h(i+next, next) */
            while (end > head && qv[end - 1] >= g)
                end--;
            qv[end] = g;
            qx[end++] = next;
        }
        while (qx[head] <= m)
            head++;
        int64_t lo = sg2_slide(&win, below + m - 1, w, m, base);
        lo = qv[head] < lo ? qv[head] : lo;
        row[m - 1] = twice - lo;
    }
    if (m > top)
        return;
    int64_t all = nonneg ? twice : sg2_eval_all(c, i, cap);
    for (; m <= top; base += m, m++) {
        (void)sg2_slide(&win, below + m - 1, w, m, base);
        row[m - 1] = all;
    }
}

/* Row i as sg2_fill_row computes it, by a plain scan over x for each
 * entry: no windows to keep.  For a short row that is fewer steps than
 * the windows' upkeep (SG2_SCAN_MAX_LEN). */
static void sg2_scan_row(const struct sg2_ctx *c, size_t i, size_t cap, size_t top, int nonneg)
{
    const size_t w = c->w;
    int64_t *restrict row = c->h + i * w;
    const int64_t twice = 2 * c->suf[i];
    const size_t stop = cap <= top ? cap : top + 1;
    size_t m = 1;

    for (; m < stop; m++) {
        int64_t lo = INT64_MAX;
        for (size_t x = 1; x <= m; x++) { /* M stays m */
            int64_t v = row[x * w + m - 1];
            lo = v < lo ? v : lo;
        }
        for (size_t x = m + 1; x <= 2 * m; x++) { /* M becomes x */
            int64_t v = row[x * w + (x < w ? x : w) - 1];
            lo = v < lo ? v : lo;
        }
        row[m - 1] = twice - lo;
    }
    if (m > top)
        return;
    int64_t all = nonneg ? twice : sg2_eval_all(c, i, cap);
    for (; m <= top; m++)
        row[m - 1] = all;
}

/* Suffix sums and the whole table in scratch (sg2_scratch_bytes), for
 * solve() and analyze() alike. */
static void sg2_fill(const int64_t *p, size_t n, int64_t *scratch, struct sg2_ctx *c)
{
    int64_t *suf = scratch;
    const size_t w = sg2_width(n);
    int64_t *h = suf + (n + 1);
    int64_t *qv = h + (n + 1) * w;
    size_t *qx = (size_t *)(qv + (n + 1));
    int64_t *run = (int64_t *)(qx + (n + 1));
    size_t *fill = (size_t *)(run + w);

    *c = (struct sg2_ctx){ .suf = suf,
                           .h = h,
                           .qv = qv,
                           .qx = qx,
                           .run = run,
                           .fill = fill,
                           .tail = (int64_t *)(fill + w),
                           .n = n,
                           .w = w };
    int nonneg = 1;
    suf[n] = 0;
    for (size_t i = n; i-- > 0;) {
        suf[i] = suf[i + 1] + p[i];
        nonneg &= p[i] >= 0;
    }
    for (size_t m = 1; m <= w; m++) {
        h[n * w + m - 1] = 0; /* suf[n] + f(n, m) */
        run[m - 1] = INT64_MAX;
        fill[m - 1] = 0;
    }
    /* Row n joins the windows too: it is never inside one a row asks
     * for (those end at row n - m), and starting there needs no case. */
    void (*fill_row)(const struct sg2_ctx *, size_t, size_t, size_t, int) =
        n <= SG2_SCAN_MAX_LEN ? sg2_scan_row : sg2_fill_row;
    for (size_t i = n; i-- > 0;) {
        size_t top = (i + 2) / 2 < w ? (i + 2) / 2 : w;
        fill_row(c, i, (n - i + 1) / 2 /* from here on all x are allowed */, top, nonneg);
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
