/*
 * stone-game-vii - LeetCode 1690.
 *
 * A row of stones.  On each turn the player to move removes the leftmost or
 * the rightmost stone and scores the sum of the stones still in the row.
 * Alice moves first, maximises (Alice's score - Bob's score), Bob minimises
 * it.  The answer is that difference.
 *
 * Kernel: interval DP over lengths, O(n^2) time.  With S(i, j) the sum of
 * v[i..j] and d(i, j) the best "mover minus the other" on that row,
 *
 *     d(i, j) = max(S(i+1, j) - d(i+1, j), S(i, j-1) - d(i, j-1)).
 *
 * It runs on e = S - d instead, which needs no sums for the candidates:
 *
 *     e(i, i) = v[i],   e(i, j) = S(i, j) - max(e(i+1, j), e(i, j-1)),
 *     d(0, n-1) = S(0, n-1) - e(0, n-1),
 *
 * one row of e per length, for i increasing; the row is branch-free and
 * vectorises (in 32-bit lanes when n * sum|v| fits in 31 bits: every
 * official input, 1000 stones of at most 1000 giving 1e9).
 *
 * Unlike the other games, the two scores do not add up to a constant: they
 * depend on the order the stones go in, so they belong to a line of play,
 * not to the position.  The line reported removes the left stone unless the
 * right one is strictly better (e(i, j-1) > e(i+1, j)).  Three ways to get
 * it, by size:
 *
 *   - keep: 32-bit lanes and n <= SG7_KEEP_MAX_LEN.  Every row of e is kept
 *     (n(n+1)/2 int32, 8 MB at most) and the line is read back from them:
 *     scores and, when asked, moves.  The fastest.
 *   - sum: larger rows without moves.  In-place rows (O(n) memory) carry a
 *     second row u = S + t, t being the sum of both scores along the line,
 *
 *         u(i, j) = S(i, j) + (left ? u(i+1, j) : u(i, j-1)),  u(i, i) = v[i],
 *
 *     so alice = (t + d) / 2 and bob = (t - d) / 2 without the line.
 *   - bits: larger rows with moves.  One decision bit per (length, start)
 *     (n^2/16 bytes, 16 MB at the maximum), the line read back from them.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#include "../common/interval_analysis.h"

#define SG7_OFFICIAL_MAX_LEN   1000
#define SG7_OFFICIAL_MAX_VALUE 1000
/* Each score is at most sum|v| <= n V, so e, u, t, d and every candidate
 * stay within n^2 V = 1.6e18 and a difference of two within 3.2e18 < 2^63.
 * About 0.25 s at the maximum. */
#define SG7_EXTENDED_MAX_LEN   16000
#define SG7_EXTENDED_MAX_VALUE INT64_C(6250000000) /* 6.25e9 */
/* The "keep" path up to here: n(n+1)/2 int32 is at most 8.4 MB. */
#define SG7_KEEP_MAX_LEN 2048

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg7_aliases[] = { "1690", NULL };

static const struct cairn_input_decl sg7_inputs[] = {
    {
        .name = "stones",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 2,
                      .max_len = SG7_OFFICIAL_MAX_LEN,
                      .min_value = 1,
                      .max_value = SG7_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = SG7_EXTENDED_MAX_LEN,
                      .min_value = -SG7_EXTENDED_MAX_VALUE,
                      .max_value = SG7_EXTENDED_MAX_VALUE },
    },
};

enum sg7_path {
    SG7_KEEP,
    SG7_SUM,
    SG7_BITS
};

/* Words of decision bits for the rows of length 2..n, each row padded to
 * whole 64-bit words: sum_{k=1}^{n-1} ceil(k / 64). */
static size_t sg7_bit_words(size_t n)
{
    if (n < 2)
        return 0;
    size_t k = n - 1;
    size_t q = k / 64, r = k % 64;
    return 64 * (q * (q + 1) / 2) + r * (q + 1);
}

static size_t sg7_row_words(size_t n, size_t len)
{
    return (n - len + 64) / 64;
}

/* Where the kept row of length len starts: after the rows of length
 * 1 .. len-1, which hold n, n-1, ..., n-len+2 entries. */
static size_t sg7_keep_off(size_t n, size_t len)
{
    return (len - 1) * (n + 1) - (len - 1) * len / 2;
}

static void sg7_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int sg7_get(const struct cairn_problem *pb, const int64_t **v, size_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *v = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || !*v)
        return CAIRN_E_INTERNAL;
    if (*n > SG7_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

/* Which way solve() goes; scratch_bytes() asks the same question. */
static enum sg7_path sg7_choose(const int64_t *v, size_t n, int want_moves)
{
    uint64_t magnitude = 0; /* <= 16000 * 6.25e9: no overflow */
    for (size_t i = 0; i < n; i++)
        magnitude += (uint64_t)(v[i] < 0 ? -v[i] : v[i]);
    /* Every prefix sum, S, d, e, t and u is at most n * sum|v| in
     * magnitude. */
    if (n <= SG7_KEEP_MAX_LEN && magnitude <= INT32_MAX / n)
        return SG7_KEEP;
    return want_moves ? SG7_BITS : SG7_SUM;
}

/* Prefix sums (n + 1 int64), then per path: keep, the 32-bit prefix sums
 * and every row; sum, the e and u rows; bits, the e row and the bits. */
static size_t sg7_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *v;
    size_t n;
    if (sg7_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    size_t bytes = (n + 1) * sizeof(int64_t);
    switch (sg7_choose(v, n, pb->want_moves)) {
    case SG7_KEEP: bytes += ((n + 1) + n * (n + 1) / 2) * sizeof(int32_t); break;
    case SG7_SUM: bytes += 2 * n * sizeof(int64_t); break;
    default: bytes += n * sizeof(int64_t) + sg7_bit_words(n) * sizeof(uint64_t); break;
    }
    return bytes;
}

static size_t sg7_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return 0;
    return pb->inputs[0].n;
}

#define SG7_BLOCK 16

/* keep: the row of length len (e1) from the one before (e0), 32-bit lanes.
 * The fixed-size inner block lets gcc -O2 (cheap cost model, which refuses
 * loops needing a scalar epilogue) vectorise it. */
static void sg7_row_keep(const int32_t *restrict e0, int32_t *restrict e1,
                         const int32_t *restrict P, size_t len, size_t cnt)
{
    const int32_t *restrict hi = P + len; /* P[j + 1] */
    size_t i = 0;
    for (; i + SG7_BLOCK <= cnt; i += SG7_BLOCK)
        for (size_t k = i; k < i + SG7_BLOCK; k++) {
            int32_t el = e0[k + 1], er = e0[k];
            e1[k] = (hi[k] - P[k]) - (el >= er ? el : er);
        }
    for (; i < cnt; i++) {
        int32_t el = e0[i + 1], er = e0[i];
        e1[i] = (hi[i] - P[i]) - (el >= er ? el : er);
    }
}

/*
 * x >= y ? a : b without a compare: SSE2 has no 64-bit signed compare, and a
 * plain ternary keeps gcc's baseline x86-64 vectoriser out.  |x - y| < 2^63
 * under the extended bounds, so the top bit of x - y is its sign.
 */
static inline int64_t sg7_sel(int64_t x, int64_t y, int64_t a, int64_t b)
{
    uint64_t lt = 0 - (((uint64_t)x - (uint64_t)y) >> 63); /* all ones when x < y */
    return (int64_t)(((uint64_t)a & ~lt) | ((uint64_t)b & lt));
}

/* sum: one row of e and u in place, 64-bit lanes; e[i], u[i] are
 * overwritten after e[i], e[i+1], u[i], u[i+1] (the old row) are read. */
static void sg7_row_sum(int64_t *restrict e, int64_t *restrict u, const int64_t *restrict P,
                        size_t len, size_t cnt)
{
    const int64_t *restrict hi = P + len;
    size_t i = 0;
    for (; i + SG7_BLOCK / 2 <= cnt; i += SG7_BLOCK / 2)
        for (size_t k = i; k < i + SG7_BLOCK / 2; k++) {
            int64_t s = hi[k] - P[k];
            int64_t el = e[k + 1], er = e[k];
            e[k] = s - sg7_sel(el, er, el, er);
            u[k] = s + sg7_sel(el, er, u[k + 1], u[k]);
        }
    for (; i < cnt; i++) {
        int64_t s = hi[i] - P[i];
        int64_t el = e[i + 1], er = e[i];
        e[i] = s - sg7_sel(el, er, el, er);
        u[i] = s + sg7_sel(el, er, u[i + 1], u[i]);
    }
}

/* bits: one row of e in place, recording bit i = 1 when removing the right
 * stone is strictly better. */
static void sg7_row_bits(int64_t *restrict e, const int64_t *restrict P, size_t len, size_t cnt,
                         uint64_t *restrict bits)
{
    for (size_t base = 0; base < cnt; base += 64) {
        size_t lim = cnt - base < 64 ? cnt - base : 64;
        uint64_t w = 0;
        for (size_t j = 0; j < lim; j++) {
            size_t i = base + j;
            int64_t el = e[i + 1], er = e[i];
            uint64_t right = er > el;
            e[i] = (P[i + len] - P[i]) - (right ? er : el);
            w |= right << j;
        }
        bits[base / 64] = w;
    }
}

/* The line of play as (lo, len) goes from (0, n) down: right is the
 * decision there.  Each move scores what is left after it. */
static void sg7_move(const int64_t *P, size_t *lo, size_t len, int right, int64_t *score)
{
    *score += right ? P[*lo + len - 1] - P[*lo] : P[*lo + len] - P[*lo + 1];
    if (!right)
        (*lo)++;
}

static int sg7_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg7_get(pb, &v, &n);
    if (rc != CAIRN_OK) {
        sg7_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.stones: too long" : "input.stones: bad problem");
        return rc;
    }
    if (!res || !scratch) {
        sg7_msg(msg, msg_len, "stone-game-vii: no result or scratch buffer");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!res->moves || res->moves_cap < n)) {
        sg7_msg(msg, msg_len, "stone-game-vii: moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int64_t *P = scratch;
    P[0] = 0;
    for (size_t i = 0; i < n; i++)
        P[i + 1] = P[i] + v[i];
    const int64_t sum = P[n];
    int32_t *moves = pb->want_moves ? res->moves : NULL;
    int64_t score[2] = { 0, 0 }; /* along the line: Alice, Bob */
    int64_t diff, total;
    size_t lo = 0;
    enum sg7_path path = sg7_choose(v, n, pb->want_moves);
    int walked = path != SG7_SUM; /* the line was read back */

    switch (path) {
    case SG7_KEEP: {
        int32_t *P32 = (int32_t *)(P + n + 1);
        int32_t *rows = P32 + (n + 1);
        for (size_t i = 0; i <= n; i++)
            P32[i] = (int32_t)P[i];
        for (size_t i = 0; i < n; i++)
            rows[i] = (int32_t)v[i]; /* length 1: e = v */
        for (size_t len = 2; len <= n; len++)
            sg7_row_keep(rows + sg7_keep_off(n, len - 1), rows + sg7_keep_off(n, len), P32, len,
                         n - len + 1);
        diff = sum - rows[sg7_keep_off(n, n)];
        for (size_t len = n, k = 0; len >= 2; len--, k++) {
            const int32_t *r = rows + sg7_keep_off(n, len - 1); /* e of the two rests */
            int right = r[lo] > r[lo + 1];
            if (moves)
                moves[k] = right;
            sg7_move(P, &lo, len, right, &score[k % 2]);
        }
        total = score[0] + score[1];
        break;
    }
    case SG7_SUM: {
        int64_t *e = P + n + 1, *u = e + n;
        for (size_t i = 0; i < n; i++)
            e[i] = u[i] = v[i]; /* one stone: d = t = 0 */
        for (size_t len = 2; len <= n; len++)
            sg7_row_sum(e, u, P, len, n - len + 1);
        diff = sum - e[0];
        total = u[0] - sum;
        break;
    }
    default: {
        int64_t *e = P + n + 1;
        uint64_t *bits = (uint64_t *)(e + n), *row = bits;
        for (size_t i = 0; i < n; i++)
            e[i] = v[i];
        for (size_t len = 2; len <= n; len++) {
            sg7_row_bits(e, P, len, n - len + 1, row);
            row += sg7_row_words(n, len);
        }
        diff = sum - e[0];
        size_t off = sg7_bit_words(n);
        for (size_t len = n, k = 0; len >= 2; len--, k++) {
            off -= sg7_row_words(n, len);
            int right = (int)((bits[off + lo / 64] >> (lo % 64)) & 1u);
            if (moves)
                moves[k] = right;
            sg7_move(P, &lo, len, right, &score[k % 2]);
        }
        total = score[0] + score[1];
        break;
    }
    }

    if (moves) {
        moves[n - 1] = 0; /* the last stone, worth nothing to remove */
        res->n_moves = n;
    }
    if (walked && score[0] - score[1] != diff) {
        sg7_msg(msg, msg_len, "stone-game-vii: the line of play misses the table value");
        return CAIRN_E_INTERNAL;
    }
    res->answer = diff;
    res->alice = (total + diff) / 2; /* exact: total + diff = 2 alice */
    res->bob = (total - diff) / 2;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2): common/interval_analysis.h ---------------------- */

static size_t sg7_max_legal_moves(const struct cairn_problem *pb)
{
    (void)pb;
    return 2; /* L and R */
}

static size_t sg7_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    const int64_t *v;
    size_t n;
    if (sg7_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* analyze() refuses the problem before touching scratch */
    return interval_analysis_bytes(n, n_line);
}

static int sg7_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg7_get(pb, &v, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < 2)) {
        snprintf(msg, msg_len, "%s",
                 rc == CAIRN_E_TOO_LARGE ? "input too long"
                                         : "stone-game-vii: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    return interval_analyze(v, n, INTERVAL_GAIN_REST, a, scratch, msg, msg_len);
}

static const struct cairn_plugin sg7_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game-vii",
    .aliases = sg7_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 1690: remove an end stone, score the rest; Alice's score minus Bob's",
    .inputs = sg7_inputs,
    .n_inputs = sizeof sg7_inputs / sizeof sg7_inputs[0],
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_SIDE,
    .check = NULL,
    .scratch_bytes = sg7_scratch_bytes,
    .max_moves = sg7_max_moves,
    .solve = sg7_solve,
    .equal_length = 0,
    .totals = CAIRN_TOTALS_ALL,
    .value_kind = CAIRN_VALUE_MARGIN, /* final Alice - Bob */
    .max_legal_moves = sg7_max_legal_moves,
    .analysis_scratch_bytes = sg7_analysis_bytes,
    .analyze = sg7_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg7_plugin;
}
