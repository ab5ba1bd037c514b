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

#define SG6_OFFICIAL_MAX_LEN 100000
#define SG6_OFFICIAL_MAX_VALUE 100
/* 2^21 > the maximum length, so an index fits in 21 bits, and a key range
 * of at most 4e12 < 2^42 leaves the packed word below 2^63.  Alice's and
 * Bob's points stay within n * 1e12 = 2e18.  Radix scratch: 16 n bytes
 * (32 MB at the maximum). */
#define SG6_EXTENDED_MAX_LEN 2000000
#define SG6_EXTENDED_MAX_VALUE INT64_C(1000000000000) /* 1e12 */
#define SG6_INDEX_BITS 21
#define SG6_COUNT_SLACK 1024
#define SG6_RADIX_BITS 11

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg6_aliases[] = {"1686", NULL};

static const struct cairn_input_decl sg6_inputs[] = {
    {
        .name = "aliceValues",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = {.min_len = 1,
                     .max_len = SG6_OFFICIAL_MAX_LEN,
                     .min_value = 1,
                     .max_value = SG6_OFFICIAL_MAX_VALUE},
        .extended = {.min_len = 1,
                     .max_len = SG6_EXTENDED_MAX_LEN,
                     .min_value = -SG6_EXTENDED_MAX_VALUE,
                     .max_value = SG6_EXTENDED_MAX_VALUE},
    },
    {
        .name = "bobValues",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = {.min_len = 1,
                     .max_len = SG6_OFFICIAL_MAX_LEN,
                     .min_value = 1,
                     .max_value = SG6_OFFICIAL_MAX_VALUE},
        .extended = {.min_len = 1,
                     .max_len = SG6_EXTENDED_MAX_LEN,
                     .min_value = -SG6_EXTENDED_MAX_VALUE,
                     .max_value = SG6_EXTENDED_MAX_VALUE},
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
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg6_plugin;
}
