/*
 * stone-game - LeetCode 877.
 *
 * A row of piles; on each turn the player to move takes the whole pile at
 * the left or the right end.  Alice moves first; both maximise their own
 * total, i.e. play minimax on the score difference.
 *
 * Kernel: interval DP on the difference "player to move minus the other",
 * one rolling row over interval lengths:
 *
 *     d_1[i]   = p[i]
 *     d_len[i] = max(p[i] - d_{len-1}[i+1], p[i+len-1] - d_{len-1}[i])
 *
 * computed in place for i increasing (d[i+1] is still the old row when d[i]
 * is overwritten).  O(n^2) time, O(n) memory.  With moves, one decision bit
 * per (length, start) is kept (about n^2/128 words) and the line of play is
 * read back from (0, n).
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#include "../common/interval_analysis.h"

#define SG_OFFICIAL_MAX_LEN   500
#define SG_OFFICIAL_MAX_VALUE 500
/* n * |v| <= 2e18 < 2^63: every sum and every difference fits in int64. */
#define SG_EXTENDED_MAX_LEN   20000
#define SG_EXTENDED_MAX_VALUE INT64_C(100000000000000) /* 1e14 */

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg_aliases[] = { "877", NULL };

static const struct cairn_input_decl sg_inputs[] = {
    {
        .name = "piles",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 2,
                      .max_len = SG_OFFICIAL_MAX_LEN,
                      .min_value = 1,
                      .max_value = SG_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = SG_EXTENDED_MAX_LEN,
                      .min_value = -SG_EXTENDED_MAX_VALUE,
                      .max_value = SG_EXTENDED_MAX_VALUE },
    },
};

/* Words of decision bits for the rows of length 2..n: row `len` holds
 * n - len + 1 bits, padded to whole 64-bit words.  That is
 * sum_{k=1}^{n-1} ceil(k / 64). */
static size_t sg_bit_words(size_t n)
{
    if (n < 2)
        return 0;
    size_t k = n - 1;
    size_t q = k / 64, r = k % 64;
    return 64 * (q * (q + 1) / 2) + r * (q + 1);
}

static size_t sg_row_words(size_t n, size_t len)
{
    return (n - len + 64) / 64;
}

static void sg_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int sg_get(const struct cairn_problem *pb, const int64_t **p, size_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *p = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || !*p)
        return CAIRN_E_INTERNAL;
    if (*n > SG_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static int sg_check(const struct cairn_problem *pb, char *msg, size_t msg_len)
{
    const int64_t *p;
    size_t n;
    int rc = sg_get(pb, &p, &n);
    if (rc != CAIRN_OK) {
        sg_msg(msg, msg_len,
               rc == CAIRN_E_TOO_LARGE ? "input.piles: too long" : "input.piles: bad problem");
        return rc;
    }
    if (pb->limits != CAIRN_LIMITS_OFFICIAL)
        return CAIRN_OK;
    if (n % 2 != 0) {
        if (msg && msg_len)
            snprintf(msg, msg_len, "input.piles: length %zu is odd (official rule: even length)",
                     n);
        return CAIRN_E_CONSTRAINT;
    }
    /* Official bounds are already enforced by the host, but do not rely on
     * them for the arithmetic: sum in unsigned (wraps, never UB); with the
     * official bounds it is exact. */
    uint64_t s = 0;
    for (size_t i = 0; i < n; i++)
        s += (uint64_t)p[i];
    if (s % 2 == 0) {
        if (msg && msg_len)
            snprintf(msg, msg_len,
                     "input.piles: sum %lld is even (official rule: odd sum, so no tie)",
                     (long long)(int64_t)s);
        return CAIRN_E_CONSTRAINT;
    }
    return CAIRN_OK;
}

static size_t sg_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *p;
    size_t n;
    if (sg_get(pb, &p, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    /* n <= SG_EXTENDED_MAX_LEN, so none of this can overflow: at most
     * 20000 * 8 + ~3.1e6 * 8 bytes (about 25 MB). */
    size_t bytes = n * sizeof(int64_t);
    if (pb->want_moves)
        bytes += sg_bit_words(n) * sizeof(uint64_t);
    return bytes;
}

static size_t sg_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return 0;
    return pb->inputs[0].n;
}

/*
 * max(a, b) without a compare: SSE2 has no 64-bit signed compare, so a
 * ternary max keeps gcc's baseline x86-64 vectoriser out.  The extended
 * bounds keep |a|, |b| <= 2e18, so a - b never wraps and its top bit is the
 * sign of a - b.
 */
static inline int64_t sg_max(int64_t a, int64_t b)
{
    uint64_t m = (uint64_t)a - (uint64_t)b;
    uint64_t neg = 0 - (m >> 63); /* all ones when a < b */
    return (int64_t)((uint64_t)a - (m & neg));
}

#define SG_BLOCK 8

/*
 * One row, no bookkeeping: the hot loop, branch-free.  In place: d[i] is
 * overwritten after d[i] and d[i + 1] (both still the old row) were read.
 * The fixed-size inner block lets gcc -O2 (cheap cost model, which refuses
 * loops needing a scalar epilogue) and clang vectorise it.
 */
static void sg_row(int64_t *restrict d, const int64_t *restrict p, size_t len, size_t cnt)
{
    const int64_t *restrict q = p + (len - 1);
    size_t i = 0;
    for (; i + SG_BLOCK <= cnt; i += SG_BLOCK)
        for (size_t j = i; j < i + SG_BLOCK; j++)
            d[j] = sg_max(p[j] - d[j + 1], q[j] - d[j]);
    for (; i < cnt; i++)
        d[i] = sg_max(p[i] - d[i + 1], q[i] - d[i]);
}

/*
 * The row in 32-bit lanes, for rows whose totals stay below 2^30 (every
 * official input: 500 piles of at most 500): twice the lanes per vector,
 * and SSE2 compares 32-bit integers natively, so a plain max vectorises.
 */
static void sg_row32(int32_t *restrict d, const int32_t *restrict p, size_t len, size_t cnt)
{
    const int32_t *restrict q = p + (len - 1);
    size_t i = 0;
    for (; i + 2 * SG_BLOCK <= cnt; i += 2 * SG_BLOCK)
        for (size_t j = i; j < i + 2 * SG_BLOCK; j++) {
            int32_t a = p[j] - d[j + 1], b = q[j] - d[j];
            d[j] = a > b ? a : b;
        }
    for (; i < cnt; i++) {
        int32_t a = p[i] - d[i + 1], b = q[i] - d[i];
        d[i] = a > b ? a : b;
    }
}

/* The same row, also recording bit i = 1 when taking the right end is
 * strictly better (ties take the left end). */
static void sg_row_bits(int64_t *restrict d, const int64_t *restrict p, size_t len, size_t cnt,
                        uint64_t *restrict bits)
{
    const int64_t *restrict q = p + (len - 1);
    for (size_t base = 0; base < cnt; base += 64) {
        size_t lim = cnt - base < 64 ? cnt - base : 64;
        uint64_t w = 0;
        for (size_t j = 0; j < lim; j++) {
            size_t i = base + j;
            int64_t a = p[i] - d[i + 1];
            int64_t b = q[i] - d[i];
            uint64_t right = b > a;
            d[i] = right ? b : a;
            w |= right << j;
        }
        bits[base / 64] = w;
    }
}

static int sg_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                    char *msg, size_t msg_len)
{
    const int64_t *p;
    size_t n;
    int rc = sg_get(pb, &p, &n);
    if (rc != CAIRN_OK) {
        sg_msg(msg, msg_len,
               rc == CAIRN_E_TOO_LARGE ? "input.piles: too long" : "input.piles: bad problem");
        return rc;
    }
    if (!res || !scratch) {
        sg_msg(msg, msg_len, "stone-game: no result or scratch buffer");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!res->moves || res->moves_cap < n)) {
        sg_msg(msg, msg_len, "stone-game: moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int64_t *d = scratch;
    int64_t sum = 0;
    uint64_t magnitude = 0;
    for (size_t i = 0; i < n; i++) {
        d[i] = p[i];
        sum += p[i];
        magnitude += (uint64_t)(p[i] < 0 ? -p[i] : p[i]);
    }

    int64_t diff;
    if (!pb->want_moves && magnitude < (UINT64_C(1) << 30)) {
        /* Every |d| <= magnitude and every |p - d| <= 2 * magnitude < 2^31.
         * The scratch (8n bytes) holds the 32-bit row and piles. */
        int32_t *d32 = scratch, *p32 = d32 + n;
        for (size_t i = 0; i < n; i++)
            d32[i] = p32[i] = (int32_t)p[i];
        for (size_t len = 2; len <= n; len++)
            sg_row32(d32, p32, len, n - len + 1);
        diff = d32[0];
    } else if (!pb->want_moves) {
        for (size_t len = 2; len <= n; len++)
            sg_row(d, p, len, n - len + 1);
        diff = d[0];
    } else {
        uint64_t *bits = (uint64_t *)(d + n);
        uint64_t *row = bits;
        for (size_t len = 2; len <= n; len++) {
            sg_row_bits(d, p, len, n - len + 1, row);
            row += sg_row_words(n, len);
        }
        /* Walk from the whole row (0, n) down; off = first word of row len. */
        size_t i = 0, k = 0;
        size_t off = sg_bit_words(n);
        for (size_t len = n; len >= 2; len--) {
            off -= sg_row_words(n, len);
            int right = (int)((bits[off + i / 64] >> (i % 64)) & 1u);
            res->moves[k++] = right; /* 0 = L, 1 = R */
            if (!right)
                i++;
        }
        res->moves[k++] = 0; /* the last pile: take it from the left */
        res->n_moves = k;
        diff = d[0];
    }

    res->answer = diff > 0;
    res->alice = (sum + diff) / 2; /* |sum|, |diff| <= 2e18: no overflow */
    res->bob = (sum - diff) / 2;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2): common/interval_analysis.h ---------------------- */

static size_t sg_max_legal_moves(const struct cairn_problem *pb)
{
    (void)pb;
    return 2; /* L and R */
}

static size_t sg_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    const int64_t *v;
    size_t n;
    if (sg_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* analyze() refuses the problem before touching scratch */
    return interval_analysis_bytes(n, n_line);
}

static int sg_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                      char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg_get(pb, &v, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < 2)) {
        snprintf(msg, msg_len, "%s",
                 rc == CAIRN_E_TOO_LARGE ? "input too long" : "stone-game: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    return interval_analyze(v, n, INTERVAL_GAIN_END, a, scratch, msg, msg_len);
}

static const struct cairn_plugin sg_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game",
    .aliases = sg_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 877: take the left or right end pile; true if Alice ends strictly ahead",
    .inputs = sg_inputs,
    .n_inputs = sizeof sg_inputs / sizeof sg_inputs[0],
    .answer_kind = CAIRN_ANSWER_BOOL,
    .moves_kind = CAIRN_MOVES_SIDE,
    .check = sg_check,
    .scratch_bytes = sg_scratch_bytes,
    .max_moves = sg_max_moves,
    .solve = sg_solve,
    .totals = CAIRN_TOTALS_ALL,       /* alice, bob and margin, as in ABI 1.0 */
    .value_kind = CAIRN_VALUE_MARGIN, /* final Alice - Bob */
    .max_legal_moves = sg_max_legal_moves,
    .analysis_scratch_bytes = sg_analysis_bytes,
    .analyze = sg_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg_plugin;
}
