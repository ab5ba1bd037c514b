/*
 * predict-the-winner - LeetCode 486.
 *
 * A row of numbers; player 1 (Alice) and player 2 (Bob) alternately take
 * the number at the left or the right end and add it to their own score,
 * player 1 first.  The answer is true iff player 1 can end with a score
 * >= player 2's: a tie counts as a player-1 win.
 *
 * Every number is taken, so maximising one's own score is minimax on the
 * difference "player to move minus the other".  Kernel: the interval DP on
 * one rolling row over interval lengths,
 *
 *     d_1[i]   = v[i]
 *     d_len[i] = max(v[i] - d_{len-1}[i+1], v[i+len-1] - d_{len-1}[i]),
 *
 * in place for i increasing (d[i] and d[i+1] are still the previous row
 * when d[i] is overwritten).  O(n^2) time, O(n) memory; the rows have no
 * loop-carried dependence, so they vectorise, in 32-bit lanes when every
 * value the DP can reach stays below 2^31, and for rows of at most 20
 * numbers (every official one) in SSE2 registers (ptw_small_sse2).  With moves, one decision bit
 * per (length, start) is kept and the line of play is read back from the
 * whole row.
 *
 * An even-length row is always a player-1 win (take all even- or all
 * odd-indexed numbers), but the DP still runs: the totals need it.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#include "../common/interval_analysis.h"
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define PTW_OFFICIAL_MAX_LEN   20
#define PTW_OFFICIAL_MAX_VALUE INT64_C(10000000) /* 1e7 */
/* n * |v| <= 2e18 < 2^63: every sum and every DP value fits, and so does
 * v - d (|v - d| <= 2e18 + 1e14).  n^2 / 2 = 2e8 cells take about 0.1 s;
 * the moves bit table is about 25 MB. */
#define PTW_EXTENDED_MAX_LEN   20000
#define PTW_EXTENDED_MAX_VALUE INT64_C(100000000000000) /* 1e14 */

#define PTW_BLOCK              8
/* Cells per step of the 32-bit row, and the padding it needs past the
 * n numbers and the n cells. */
#define PTW_CHUNK 8
/* Rows up to this long (every official one) take ptw_small_sse2. */
#define PTW_SMALL_MAX   20
#define PTW_SMALL_LANES 48 /* its padded copy of the numbers, in int32 */

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const ptw_aliases[] = { "486", NULL };

static const struct cairn_input_decl ptw_inputs[] = {
    {
        .name = "nums",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 1,
                      .max_len = PTW_OFFICIAL_MAX_LEN,
                      .min_value = 0,
                      .max_value = PTW_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = PTW_EXTENDED_MAX_LEN,
                      .min_value = -PTW_EXTENDED_MAX_VALUE,
                      .max_value = PTW_EXTENDED_MAX_VALUE },
    },
};

static void ptw_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int ptw_get(const struct cairn_problem *pb, const int64_t **v, size_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *v = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || !*v)
        return CAIRN_E_INTERNAL;
    if (*n > PTW_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static const char *ptw_get_error(int rc)
{
    return rc == CAIRN_E_TOO_LARGE ? "input.nums: longer than the extended maximum"
                                   : "input.nums: bad problem";
}

/* Words of decision bits for the rows of length 2..n: row `len` holds
 * n - len + 1 bits, padded to whole 64-bit words, i.e.
 * sum_{k=1}^{n-1} ceil(k / 64). */
static size_t ptw_bit_words(size_t n)
{
    if (n < 2)
        return 0;
    size_t k = n - 1;
    size_t q = k / 64, r = k % 64;
    return 64 * (q * (q + 1) / 2) + r * (q + 1);
}

static size_t ptw_row_words(size_t n, size_t len)
{
    return (n - len + 64) / 64;
}

static size_t ptw_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *v;
    size_t n;
    if (ptw_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    /* n <= 20000: at most 160 kB of row plus about 25 MB of bits.  The
     * 32-bit paths use (n + PTW_CHUNK + 1) + (n + PTW_CHUNK) int32s, or
     * PTW_SMALL_LANES of them. */
    size_t bytes = n * sizeof(int64_t) + (2 * PTW_CHUNK + 1) * sizeof(int32_t);
    if (bytes < PTW_SMALL_LANES * sizeof(int32_t))
        bytes = PTW_SMALL_LANES * sizeof(int32_t);
    if (pb->want_moves)
        bytes += ptw_bit_words(n) * sizeof(uint64_t);
    return bytes;
}

/* One number per move. */
static size_t ptw_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return 0;
    return pb->inputs[0].n;
}

/*
 * max(a, b) without a compare: SSE2 has no 64-bit signed compare, so a
 * ternary would keep gcc's baseline x86-64 vectoriser out.  |a|, |b| <=
 * 2.0001e18, so a - b never wraps and its top bit is the sign of a - b.
 */
static inline int64_t ptw_max(int64_t a, int64_t b)
{
    uint64_t m = (uint64_t)a - (uint64_t)b;
    uint64_t neg = 0 - (m >> 63); /* all ones when a < b */
    return (int64_t)((uint64_t)a - (m & neg));
}

/* One row in 64-bit lanes.  The fixed-size inner block lets gcc -O2 (its
 * cheap cost model refuses loops that need a scalar epilogue) vectorise. */
static void ptw_row(int64_t *restrict d, const int64_t *restrict v, size_t len, size_t cnt)
{
    const int64_t *restrict w = v + (len - 1);
    size_t i = 0;
    for (; i + PTW_BLOCK <= cnt; i += PTW_BLOCK)
        for (size_t j = i; j < i + PTW_BLOCK; j++)
            d[j] = ptw_max(v[j] - d[j + 1], w[j] - d[j]);
    for (; i < cnt; i++)
        d[i] = ptw_max(v[i] - d[i + 1], w[i] - d[i]);
}

/*
 * One row in 32-bit lanes (every official row: 20 numbers of at most 1e7
 * give sums below 2^28): twice the lanes of the 64-bit row, and SSE2
 * compares 32-bit integers natively.  The row runs in whole chunks of
 * PTW_CHUNK cells, past cnt into the padding of d and v (see ptw_solve),
 * so a short row (every official one) vectorises with no scalar tail.
 * The cells past cnt are never read by a cell before cnt, and their
 * arithmetic is done modulo 2^32, so whatever they hold is harmless.
 */
static void ptw_row32(int32_t *restrict d, const int32_t *restrict v, size_t len, size_t cnt)
{
    const int32_t *restrict w = v + (len - 1);
    size_t chunks = (cnt + PTW_CHUNK - 1) / PTW_CHUNK;
    for (size_t c = 0; c < chunks; c++) {
        int32_t *restrict dc = d + c * PTW_CHUNK;
        const int32_t *restrict vc = v + c * PTW_CHUNK, *restrict wc = w + c * PTW_CHUNK;
        for (size_t j = 0; j < PTW_CHUNK; j++) {
            int32_t a = (int32_t)((uint32_t)vc[j] - (uint32_t)dc[j + 1]);
            int32_t b = (int32_t)((uint32_t)wc[j] - (uint32_t)dc[j]);
            dc[j] = a > b ? a : b;
        }
    }
}

#if defined(__SSE2__)
/*
 * Rows of at most 20 numbers, whose sums stay below 2^30 (every official
 * row): the whole DP row lives in five SSE2 registers of four int32 cells,
 * x0..x4.  Through memory, each short row would reload, one lane off,
 * cells the previous row stored a few cycles earlier, a load the CPU
 * cannot forward from the store buffer; in registers the shifted row is
 * built with two byte shifts.  A row of cnt cells updates only the
 * ceil(cnt / 4) vectors that hold them.  Lanes past the row hold garbage
 * that no real cell reads (SSE2 arithmetic wraps, so it is harmless).
 * v32 (scratch, PTW_SMALL_LANES int32) receives the numbers and zeros.
 */
#define PTW_STEP(k, xk, xk1)                                                                    \
    do {                                                                                        \
        __m128i sh_ = _mm_or_si128(_mm_srli_si128(xk, 4), _mm_slli_si128(xk1, 12));             \
        __m128i a_ = _mm_sub_epi32(v##k, sh_); /* take the left end */                          \
        __m128i b_ = _mm_sub_epi32(_mm_loadu_si128((const __m128i *)(const void *)(w + 4 * k)), \
                                   xk); /* take the right end */                                \
        __m128i gt_ = _mm_cmpgt_epi32(a_, b_);                                                  \
        xk = _mm_or_si128(_mm_and_si128(gt_, a_), _mm_andnot_si128(gt_, b_));                   \
    } while (0)

static int64_t ptw_small_sse2(const int64_t *v, size_t n, int32_t *v32)
{
    for (size_t i = 0; i < n; i++)
        v32[i] = (int32_t)v[i];
    for (size_t i = n; i < PTW_SMALL_LANES; i++)
        v32[i] = 0;
    const __m128i *vv = (const __m128i *)(const void *)v32;
    __m128i v0 = _mm_loadu_si128(vv), v1 = _mm_loadu_si128(vv + 1), v2 = _mm_loadu_si128(vv + 2);
    __m128i v3 = _mm_loadu_si128(vv + 3), v4 = _mm_loadu_si128(vv + 4);
    __m128i x0 = v0, x1 = v1, x2 = v2, x3 = v3, x4 = v4, x5 = _mm_setzero_si128();

    for (size_t len = 2; len <= n; len++) {
        const int32_t *w = v32 + (len - 1); /* w[j] = v[j + len - 1] */
        switch ((n - len + 4) / 4) {        /* ceil(cnt / 4), cnt = n - len + 1 */
        case 5:
            PTW_STEP(0, x0, x1);
            PTW_STEP(1, x1, x2);
            PTW_STEP(2, x2, x3);
            PTW_STEP(3, x3, x4);
            PTW_STEP(4, x4, x5);
            break;
        case 4:
            PTW_STEP(0, x0, x1);
            PTW_STEP(1, x1, x2);
            PTW_STEP(2, x2, x3);
            PTW_STEP(3, x3, x4);
            break;
        case 3:
            PTW_STEP(0, x0, x1);
            PTW_STEP(1, x1, x2);
            PTW_STEP(2, x2, x3);
            break;
        case 2:
            PTW_STEP(0, x0, x1);
            PTW_STEP(1, x1, x2);
            break;
        default: PTW_STEP(0, x0, x1); break;
        }
    }
    return _mm_cvtsi128_si32(x0);
}
#undef PTW_STEP
#endif

/* The same row, also setting bit i when taking the right end is strictly
 * better (ties take the left end). */
static void ptw_row_bits(int64_t *restrict d, const int64_t *restrict v, size_t len, size_t cnt,
                         uint64_t *restrict bits)
{
    const int64_t *restrict w = v + (len - 1);
    for (size_t base = 0; base < cnt; base += 64) {
        size_t lim = cnt - base < 64 ? cnt - base : 64;
        uint64_t word = 0;
        for (size_t j = 0; j < lim; j++) {
            size_t i = base + j;
            int64_t a = v[i] - d[i + 1];
            int64_t b = w[i] - d[i];
            uint64_t right = b > a;
            d[i] = right ? b : a;
            word |= right << j;
        }
        bits[base / 64] = word;
    }
}

static int ptw_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = ptw_get(pb, &v, &n);
    if (rc != CAIRN_OK) {
        ptw_msg(msg, msg_len, ptw_get_error(rc));
        return rc;
    }
    if (!res || !scratch) {
        ptw_msg(msg, msg_len, "predict-the-winner: no result or scratch buffer");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!res->moves || res->moves_cap < n)) {
        ptw_msg(msg, msg_len, "predict-the-winner: moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int64_t sum = 0;
    uint64_t magnitude = 0;
    for (size_t i = 0; i < n; i++) {
        sum += v[i];
        magnitude += v[i] < 0 ? (uint64_t)0 - (uint64_t)v[i] : (uint64_t)v[i];
    }

    int64_t diff;
#if defined(__SSE2__)
    if (!pb->want_moves && magnitude < (UINT64_C(1) << 30) && n <= PTW_SMALL_MAX) {
        diff = ptw_small_sse2(v, n, scratch);
    } else
#endif
        if (!pb->want_moves && magnitude < (UINT64_C(1) << 30)) {
        /* Every |d| <= magnitude and |v - d| <= 2 * magnitude < 2^31 in
         * the cells that matter.  d32: n cells and PTW_CHUNK + 1 of
         * padding; v32: n numbers and PTW_CHUNK zeros. */
        int32_t *d32 = scratch, *v32 = d32 + n + PTW_CHUNK + 1;
        for (size_t i = 0; i < n; i++)
            d32[i] = v32[i] = (int32_t)v[i];
        for (size_t i = n; i < n + PTW_CHUNK; i++)
            d32[i] = v32[i] = 0;
        d32[n + PTW_CHUNK] = 0;
        for (size_t len = 2; len <= n; len++)
            ptw_row32(d32, v32, len, n - len + 1);
        diff = d32[0];
    } else if (!pb->want_moves) {
        int64_t *d = scratch;
        memcpy(d, v, n * sizeof *d);
        for (size_t len = 2; len <= n; len++)
            ptw_row(d, v, len, n - len + 1);
        diff = d[0];
    } else {
        int64_t *d = scratch;
        uint64_t *bits = (uint64_t *)(d + n), *row = bits;
        memcpy(d, v, n * sizeof *d);
        for (size_t len = 2; len <= n; len++) {
            ptw_row_bits(d, v, len, n - len + 1, row);
            row += ptw_row_words(n, len);
        }
        /* Walk from the whole row (0, n) down; off = first word of row len. */
        size_t i = 0, k = 0, off = ptw_bit_words(n);
        for (size_t len = n; len >= 2; len--) {
            off -= ptw_row_words(n, len);
            int right = (int)((bits[off + i / 64] >> (i % 64)) & 1u);
            res->moves[k++] = right; /* 0 = L, 1 = R */
            if (!right)
                i++;
        }
        res->moves[k++] = 0; /* the last number: take it from the left */
        res->n_moves = k;
        diff = d[0];
    }

    res->answer = diff >= 0;       /* a tie is a player-1 win */
    res->alice = (sum + diff) / 2; /* exact: sum + diff = 2 * alice */
    res->bob = (sum - diff) / 2;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2): common/interval_analysis.h ---------------------- */

static size_t ptw_max_legal_moves(const struct cairn_problem *pb)
{
    (void)pb;
    return 2; /* L and R */
}

static size_t ptw_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    const int64_t *v;
    size_t n;
    if (ptw_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* analyze() refuses the problem before touching scratch */
    return interval_analysis_bytes(n, n_line);
}

static int ptw_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = ptw_get(pb, &v, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < 2)) {
        snprintf(msg, msg_len, "%s",
                 rc == CAIRN_E_TOO_LARGE ? "input too long"
                                         : "predict-the-winner: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    return interval_analyze(v, n, INTERVAL_GAIN_END, a, scratch, msg, msg_len);
}

static const struct cairn_plugin ptw_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "predict-the-winner",
    .aliases = ptw_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 486: take the left or right end number; true if player 1 ends with "
               "at least player 2's total",
    .inputs = ptw_inputs,
    .n_inputs = sizeof ptw_inputs / sizeof ptw_inputs[0],
    .answer_kind = CAIRN_ANSWER_BOOL,
    .moves_kind = CAIRN_MOVES_SIDE,
    .check = NULL,
    .scratch_bytes = ptw_scratch_bytes,
    .max_moves = ptw_max_moves,
    .solve = ptw_solve,
    .equal_length = 0,
    .totals = CAIRN_TOTALS_ALL,
    .value_kind = CAIRN_VALUE_MARGIN, /* final Alice - Bob */
    .max_legal_moves = ptw_max_legal_moves,
    .analysis_scratch_bytes = ptw_analysis_bytes,
    .analyze = ptw_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &ptw_plugin;
}
