/*
 * stone-game-vi - LeetCode 1686.
 *
 * n stones; stone i is worth aliceValues[i] to Alice and bobValues[i] to
 * Bob, and both know both arrays.  Players alternately take any remaining
 * stone, Alice first.  The answer is 1 if Alice ends with more points, -1
 * if Bob does, 0 on a tie.
 *
 * Kernel: Alice - Bob = sum over Alice's stones of (a + b) - sum of all b,
 * so the game is "pick the largest a + b" for both players, and the sign of
 * that optimal difference is the answer (sign is monotone, so playing for
 * the largest margin also plays for the win).  Which of several stones
 * with the same a + b is taken does not change the difference, but it does
 * change each player's points, so the line reported takes them in index
 * order: a stable sort by a + b, descending, and Alice takes ranks 0, 2,
 * 4, ...
 *
 * The sort is a counting sort when the range of a + b is small (at most
 * n + SG6_COUNT_SLACK keys: always under the official limits, where
 * a + b is in 2..200), O(n + range).  Otherwise (extended values spread
 * wide) it is an LSD radix sort of 64-bit words (key << 21 | index) on the
 * key bits only, 11 bits per pass; the words start in index order and
 * every pass is stable, so equal keys stay in index order.  O(n) per pass,
 * at most 4 passes for the extended key range.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SG6_OFFICIAL_MAX_LEN   100000
#define SG6_OFFICIAL_MAX_VALUE 100
/* 2^21 > the maximum length, so an index fits in 21 bits, and a key range
 * of at most 4e12 < 2^42 leaves the packed word below 2^63.  Alice's and
 * Bob's points stay within n * 1e12 = 2e18.  Radix scratch: 16 n bytes
 * (32 MB at the maximum). */
#define SG6_EXTENDED_MAX_LEN   2000000
#define SG6_EXTENDED_MAX_VALUE INT64_C(1000000000000) /* 1e12 */
#define SG6_INDEX_BITS         21
#define SG6_COUNT_SLACK        1024
#define SG6_RADIX_BITS         11

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg6_aliases[] = { "1686", NULL };

static const struct cairn_input_decl sg6_inputs[] = {
    {
        .name = "aliceValues",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 1,
                      .max_len = SG6_OFFICIAL_MAX_LEN,
                      .min_value = 1,
                      .max_value = SG6_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = SG6_EXTENDED_MAX_LEN,
                      .min_value = -SG6_EXTENDED_MAX_VALUE,
                      .max_value = SG6_EXTENDED_MAX_VALUE },
    },
    {
        .name = "bobValues",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 1,
                      .max_len = SG6_OFFICIAL_MAX_LEN,
                      .min_value = 1,
                      .max_value = SG6_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = SG6_EXTENDED_MAX_LEN,
                      .min_value = -SG6_EXTENDED_MAX_VALUE,
                      .max_value = SG6_EXTENDED_MAX_VALUE },
    },
};

static void sg6_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

/* The two arrays; unequal lengths are the host's to refuse (equal_length),
 * but are refused here too rather than read past the shorter one. */
static int sg6_get(const struct cairn_problem *pb, const int64_t **a, const int64_t **b, size_t *n)
{
    if (!pb || pb->n_inputs != 2 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *a = pb->inputs[0].v;
    *b = pb->inputs[1].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || pb->inputs[1].n != *n || !*a || !*b)
        return CAIRN_E_INTERNAL;
    if (*n > SG6_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

/* The smallest and largest a + b.  The extended bounds keep |a + b| <=
 * 2e12, so nothing here can overflow. */
static void sg6_key_range(const int64_t *a, const int64_t *b, size_t n, int64_t *lo, int64_t *hi)
{
    int64_t mn = a[0] + b[0], mx = mn;
    for (size_t i = 1; i < n; i++) {
        int64_t s = a[i] + b[i];
        mn = s < mn ? s : mn;
        mx = s > mx ? s : mx;
    }
    *lo = mn;
    *hi = mx;
}

/* Counting sort when the keys span at most n + slack values. */
static int sg6_counting(size_t n, int64_t lo, int64_t hi)
{
    return (uint64_t)(hi - lo) < (uint64_t)n + SG6_COUNT_SLACK;
}

static size_t sg6_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *a, *b;
    size_t n;
    int64_t lo, hi;
    if (sg6_get(pb, &a, &b, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    sg6_key_range(a, b, n, &lo, &hi);
    if (sg6_counting(n, lo, hi))
        return (size_t)(hi - lo + 1) * sizeof(uint32_t);
    return 2 * n * sizeof(uint64_t);
}

static size_t sg6_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 2 || !pb->inputs)
        return 0;
    return pb->inputs[0].n;
}

/*
 * Counting sort.  next[k] becomes the rank of the first stone with key
 * hi - k (keys descending); the stones are then visited in index order,
 * each taking the next rank of its key.  Even ranks are Alice's.  With
 * moves, the rank order is written to moves[] as well.
 */
static void sg6_count(const int64_t *restrict a, const int64_t *restrict b, size_t n, int64_t hi,
                      size_t range, uint32_t *restrict next, int32_t *restrict moves,
                      int64_t *alice, int64_t *bob)
{
    memset(next, 0, range * sizeof *next);
    for (size_t i = 0; i < n; i++)
        next[hi - (a[i] + b[i])]++;
    uint32_t rank = 0;
    for (size_t k = 0; k < range; k++) {
        uint32_t c = next[k];
        next[k] = rank;
        rank += c;
    }
    int64_t al = 0, bo = 0;
    if (moves) {
        for (size_t i = 0; i < n; i++)
            moves[next[hi - (a[i] + b[i])]++] = (int32_t)i;
        for (size_t r = 0; r < n; r++) {
            if (r % 2 == 0)
                al += a[moves[r]];
            else
                bo += b[moves[r]];
        }
    } else {
        /* Branch-free: the rank's parity picks the player. */
        for (size_t i = 0; i < n; i++) {
            uint32_t r = next[hi - (a[i] + b[i])]++;
            int64_t odd = -(int64_t)(r & 1u); /* 0 or all ones */
            al += a[i] & ~odd;
            bo += b[i] & odd;
        }
    }
    *alice = al;
    *bob = bo;
}

/* Radix sort of (hi - key) << SG6_INDEX_BITS | index, ascending, on the
 * key bits only; returns the sorted buffer (buf or tmp). */
static uint64_t *sg6_radix(const int64_t *restrict a, const int64_t *restrict b, size_t n,
                           int64_t lo, int64_t hi, uint64_t *buf, uint64_t *tmp)
{
    uint32_t count[1u << SG6_RADIX_BITS];
    unsigned key_bits = 64u - (unsigned)__builtin_clzll((uint64_t)(hi - lo)); /* hi > lo here */
    for (size_t i = 0; i < n; i++)
        buf[i] = ((uint64_t)(hi - (a[i] + b[i])) << SG6_INDEX_BITS) | i;
    for (unsigned shift = SG6_INDEX_BITS; shift < SG6_INDEX_BITS + key_bits;
         shift += SG6_RADIX_BITS) {
        const uint64_t mask = (1u << SG6_RADIX_BITS) - 1;
        memset(count, 0, sizeof count);
        for (size_t i = 0; i < n; i++)
            count[(buf[i] >> shift) & mask]++;
        uint32_t pos = 0;
        for (size_t d = 0; d <= mask; d++) {
            uint32_t c = count[d];
            count[d] = pos;
            pos += c;
        }
        for (size_t i = 0; i < n; i++)
            tmp[count[(buf[i] >> shift) & mask]++] = buf[i];
        uint64_t *t = buf;
        buf = tmp;
        tmp = t;
    }
    return buf;
}

static int sg6_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *a, *b;
    size_t n;
    int rc = sg6_get(pb, &a, &b, &n);
    if (rc != CAIRN_OK) {
        sg6_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.aliceValues: too long"
                                        : "stone-game-vi: bad problem (the two arrays must be "
                                          "non-empty and of equal length)");
        return rc;
    }
    if (!res || !scratch) {
        sg6_msg(msg, msg_len, "stone-game-vi: no result or scratch buffer");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!res->moves || res->moves_cap < n)) {
        sg6_msg(msg, msg_len, "stone-game-vi: moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int64_t lo, hi, alice = 0, bob = 0;
    sg6_key_range(a, b, n, &lo, &hi);
    if (sg6_counting(n, lo, hi)) {
        sg6_count(a, b, n, hi, (size_t)(hi - lo + 1), scratch, pb->want_moves ? res->moves : NULL,
                  &alice, &bob);
    } else {
        uint64_t *buf = scratch;
        const uint64_t *order = sg6_radix(a, b, n, lo, hi, buf, buf + n);
        const uint64_t imask = (UINT64_C(1) << SG6_INDEX_BITS) - 1;
        for (size_t r = 0; r < n; r++) {
            size_t i = (size_t)(order[r] & imask);
            if (pb->want_moves)
                res->moves[r] = (int32_t)i;
            if (r % 2 == 0)
                alice += a[i];
            else
                bob += b[i];
        }
    }
    if (pb->want_moves)
        res->n_moves = n;

    res->alice = alice;
    res->bob = bob;
    res->answer = alice > bob ? 1 : alice < bob ? -1 : 0;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2) ------------------------------------------------- */

/*
 * Values are the final margin Alice - Bob.  With c = a + b, the margin is
 * sum over Alice's stones of c minus sum of all b, and both play the
 * largest c left.  Let r_0, r_1, ... be the stones left by c descending.
 * Taking r_j instead of r_0 changes nothing for the stones after r_j, swaps
 * the owners of r_0..r_{j-1}, and gives r_j to the mover, so it costs the
 * mover D = (c_0 - c_1) + (c_2 - c_3) + ... over i < j, minus c_j when j is
 * odd: an alternating sum of the prefix before r_j, >= 0 and often 0 (ties
 * of pairs), so an optimal move need not be the top one.  A segment tree
 * over the sorted stones keeps (count, alternating sum) per node, the
 * right half's sign flipped when the left count is odd, so D is one
 * O(log n) query and taking a stone one update: a line of k moves is graded
 * in O(n log n + k log n).
 */
static size_t sg6_max_legal_moves(const struct cairn_problem *pb)
{
    const int64_t *a, *b;
    size_t n;
    if (sg6_get(pb, &a, &b, &n) != CAIRN_OK)
        return 0;
    return n;
}

static size_t sg6_pow2(size_t n)
{
    size_t size = 1;
    while (size < n)
        size *= 2;
    return size;
}

/* Sorted keys (n), the value of each stone for the listing (n), the tree's
 * alternating sums (2 size) and counts (2 size, 32-bit), each stone's rank
 * (n, 32-bit): at most about 68 bytes a stone. */
static size_t sg6_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    const int64_t *a, *b;
    size_t n;
    (void)n_line;
    if (sg6_get(pb, &a, &b, &n) != CAIRN_OK)
        return 0; /* analyze() refuses the problem before touching scratch */
    size_t size = sg6_pow2(n);
    return (2 * n + 2 * size) * sizeof(int64_t) + (2 * size + n) * sizeof(uint32_t);
}

static void sg6_sift(uint64_t *k, size_t root, size_t end)
{
    for (size_t child; (child = 2 * root + 1) < end; root = child) {
        if (child + 1 < end && k[child + 1] > k[child])
            child++;
        if (k[root] >= k[child])
            return;
        uint64_t t = k[root];
        k[root] = k[child];
        k[child] = t;
    }
}

/* Heapsort: no allocation, unlike qsort, and O(n log n) always. */
static void sg6_heapsort(uint64_t *k, size_t n)
{
    for (size_t i = n / 2; i-- > 0;)
        sg6_sift(k, i, n);
    for (size_t end = n; end-- > 1;) {
        uint64_t t = k[0];
        k[0] = k[end];
        k[end] = t;
        sg6_sift(k, 0, end);
    }
}

struct sg6_tree {
    int64_t *alt;
    uint32_t *cnt;
    size_t size;
};

static void sg6_pull(struct sg6_tree *tr, size_t i)
{
    size_t l = 2 * i, r = l + 1;
    tr->cnt[i] = tr->cnt[l] + tr->cnt[r];
    tr->alt[i] = tr->alt[l] + (tr->cnt[l] % 2 ? -tr->alt[r] : tr->alt[r]);
}

/* (count, alternating sum) of the stones left among sorted ranks [0, q). */
static int64_t sg6_prefix(const struct sg6_tree *tr, size_t q, uint32_t *count)
{
    size_t node = 1, lo = 0, hi = tr->size;
    int64_t alt = 0;
    uint32_t cnt = 0;
    while (q > lo) {
        size_t take = 0, mid = lo + (hi - lo) / 2;
        if (q >= hi)
            take = node;
        else if (q > mid)
            take = 2 * node;
        if (take) {
            alt += cnt % 2 ? -tr->alt[take] : tr->alt[take];
            cnt += tr->cnt[take];
        }
        if (q >= hi)
            break;
        if (q > mid) {
            node = 2 * node + 1;
            lo = mid;
        } else {
            node = 2 * node;
            hi = mid;
        }
    }
    *count = cnt;
    return alt;
}

static int sg6_analyze(const struct cairn_problem *pb, struct cairn_analysis *an, void *scratch,
                       char *msg, size_t msg_len)
{
    const int64_t *a, *b;
    size_t n;
    int rc = sg6_get(pb, &a, &b, &n);
    if (rc != CAIRN_OK || !an || !scratch || (an->n_line && !an->line) ||
        (an->moves && an->moves_cap < n)) {
        sg6_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input: longer than the extended maximum"
                                        : "stone-game-vi: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    size_t size = sg6_pow2(n);
    uint64_t *key = scratch;
    int64_t *val = (int64_t *)(key + n);
    struct sg6_tree tr = { .alt = val + n, .cnt = (uint32_t *)(val + n + 2 * size), .size = size };
    uint32_t *rank = tr.cnt + 2 * size;
    const uint64_t mask = (UINT64_C(1) << 21) - 1;
    int64_t lo, hi;

    /* c descending, then index: (hi - c) << 21 | index ascending.  The
     * extended bounds keep hi - c < 2^42 and n <= 2^21. */
    sg6_key_range(a, b, n, &lo, &hi);
    for (size_t i = 0; i < n; i++)
        key[i] = ((uint64_t)(hi - (a[i] + b[i])) << 21) | i;
    sg6_heapsort(key, n);
    int64_t v0 = 0;
    for (size_t q = 0; q < 2 * size; q++) {
        tr.alt[q] = 0;
        tr.cnt[q] = 0;
    }
    for (size_t q = 0; q < n; q++) {
        size_t x = (size_t)(key[q] & mask);
        rank[x] = (uint32_t)q;
        tr.alt[size + q] = a[x] + b[x];
        tr.cnt[size + q] = 1;
        v0 += q % 2 == 0 ? a[x] : -b[x];
    }
    for (size_t i = size; i-- > 1;)
        sg6_pull(&tr, i);

    size_t top = 0, left = n, found = 0;
    int64_t acc = 0;
    for (size_t t = 0; t < an->n_line; t++) {
        int32_t x = an->line[t];
        int64_t s = t % 2 == 0 ? 1 : -1;
        if (left == 0 || x < 0 || (size_t)x >= n || !tr.cnt[size + rank[x]]) {
            an->bad = t;
            if (left == 0)
                snprintf(msg, msg_len, "the game is over: all %zu stones are taken", n);
            else if (x < 0 || (size_t)x >= n)
                snprintf(msg, msg_len, "there is no stone %d: the stones are 0..%zu", (int)x,
                         n - 1);
            else
                snprintf(msg, msg_len, "stone %d is already taken", (int)x);
            return CAIRN_E_ILLEGAL;
        }
        size_t q = rank[x];
        while (!tr.cnt[size + top])
            top++;
        if (!found) {
            uint32_t j;
            int64_t d = sg6_prefix(&tr, q, &j) - (j % 2 ? a[x] + b[x] : 0);
            if (d > 0) {
                found = 1;
                an->ply = t;
                an->mover = (int32_t)(t % 2);
                an->best = (int32_t)(key[top] & mask);
                an->best_value = v0; /* every move before was optimal */
                an->value = v0 - s * d;
            }
        }
        acc += s > 0 ? a[x] : -b[x];
        tr.alt[size + q] = 0;
        tr.cnt[size + q] = 0;
        for (size_t i = (size + q) / 2; i >= 1; i /= 2)
            sg6_pull(&tr, i);
        left--;
    }
    int64_t s = an->n_line % 2 == 0 ? 1 : -1;
    if (!found) {
        an->ply = an->n_line;
        an->mover = (int32_t)(an->n_line % 2);
        an->best_value = v0;
    }
    if (an->moves && left > 0) {
        /* The position's value, then each stone's cost D in one pass. */
        int64_t v = acc, alt = 0;
        size_t j = 0;
        for (size_t q = 0; q < n; q++) {
            size_t x = (size_t)(key[q] & mask);
            if (!tr.cnt[size + q])
                continue;
            int mover_gets = j % 2 == 0;
            v += (mover_gets == (s > 0)) ? a[x] : -b[x];
            j++;
        }
        j = 0;
        for (size_t q = 0; q < n; q++) {
            size_t x = (size_t)(key[q] & mask);
            int64_t c = a[x] + b[x];
            if (!tr.cnt[size + q])
                continue;
            val[x] = v - s * (alt - (j % 2 ? c : 0));
            alt += j % 2 ? -c : c;
            j++;
        }
        for (size_t x = 0; x < n; x++)
            if (tr.cnt[size + rank[x]])
                an->moves[an->n_moves++] =
                    (struct cairn_move_value){ .move = (int32_t)x, .value = val[x] };
    }
    return CAIRN_OK;
}

static const struct cairn_plugin sg6_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game-vi",
    .aliases = sg6_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 1686: take any stone, values differ per player; 1, 0 or -1",
    .inputs = sg6_inputs,
    .n_inputs = sizeof sg6_inputs / sizeof sg6_inputs[0],
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_INDEX,
    .check = NULL,
    .scratch_bytes = sg6_scratch_bytes,
    .max_moves = sg6_max_moves,
    .solve = sg6_solve,
    .equal_length = 0x3,
    .totals = CAIRN_TOTAL_ALICE | CAIRN_TOTAL_BOB | CAIRN_TOTAL_MARGIN,
    .value_kind = CAIRN_VALUE_MARGIN,
    .max_legal_moves = sg6_max_legal_moves,
    .analysis_scratch_bytes = sg6_analysis_bytes,
    .analyze = sg6_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg6_plugin;
}
