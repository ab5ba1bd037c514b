/*
 * peers_b.c - ported published solutions (see peers.h): stone-game-viii,
 * stone-game-ix, predict-the-winner, stone-removal-game.
 *
 * Each port keeps the published algorithm and its data layout; Python
 * lists become int64_t arrays.  Where the original builds a new list per
 * call, the port uses a static buffer instead of malloc(), so the peer is
 * not charged for the allocator (bench-kernels is single-threaded).
 */
#include <math.h>
#include <stdlib.h>

#include "peers.h"

/* ---- stone-game-viii (1872) ------------------------------------------ */

#define SG8_N 100000 /* the official maximum: 2 <= n <= 1e5, |v| <= 1e4 */

static size_t sg8_make(bench_rng_fn rng, struct cairn_array *in, int64_t *buf, size_t cap)
{
    if (cap < SG8_N)
        return 0;
    for (size_t i = 0; i < SG8_N; i++)
        buf[i] = (int64_t)(rng() % 20001) - 10000;
    in[0] = (struct cairn_array){.v = buf, .n = SG8_N};
    return 1;
}

/* doocs/leetcode solution/1800-1899/1872.Stone Game VIII/Solution.py
 * @6580758c: pre_sum = list(accumulate(stones)), then
 * f = max(f, pre_sum[i] - f) for i = n-2 .. 1.  (kamyu104's is the same
 * recurrence over its input mutated in place.) */
static int64_t sg8_peer(const struct cairn_array *in, size_t n_in)
{
    static int64_t pre_sum[SG8_N];
    const int64_t *stones = in[0].v;
    size_t n = in[0].n;
    (void)n_in;
    if (n > SG8_N)
        abort();
    int64_t acc = 0;
    for (size_t i = 0; i < n; i++)
        pre_sum[i] = acc += stones[i];
    int64_t f = pre_sum[n - 1];
    for (size_t i = n - 2; i >= 1; i--)
        f = f > pre_sum[i] - f ? f : pre_sum[i] - f;
    return f;
}

/* ---- stone-game-ix (2029) -------------------------------------------- */

#define IX_N 100000 /* 1 <= n <= 1e5, 1 <= v <= 1e4 */

static size_t ix_make(bench_rng_fn rng, struct cairn_array *in, int64_t *buf, size_t cap)
{
    if (cap < IX_N)
        return 0;
    for (size_t i = 0; i < IX_N; i++)
        buf[i] = 1 + (int64_t)(rng() % 10000);
    in[0] = (struct cairn_array){.v = buf, .n = IX_N};
    return 1;
}

/* kamyu104/LeetCode-Solutions Python/stone-game-ix.py @154379b1:
 * count = Counter(x % 3 for x in stones); if count[0] is even, return
 * count[1] and count[2]; else abs(count[1] - count[2]) >= 3. */
static int64_t ix_peer(const struct cairn_array *in, size_t n_in)
{
    const int64_t *stones = in[0].v;
    size_t count[3] = {0, 0, 0};
    (void)n_in;
    for (size_t i = 0; i < in[0].n; i++)
        count[stones[i] % 3]++; /* official stones are positive */
    if (count[0] % 2 == 0)
        return count[1] != 0 && count[2] != 0;
    return (count[1] > count[2] ? count[1] - count[2] : count[2] - count[1]) >= 3;
}

/* ---- predict-the-winner (486) ---------------------------------------- */

/* 1 <= n <= 20, 0 <= v <= 1e7.  The peer answers every even length true
 * at once (player 1 can take all even- or all odd-indexed numbers), with
 * no totals, while the plugin always runs the DP because it reports the
 * totals; so the position is the longest odd official row, n = 19, the
 * longest one on which both do the same work. */
#define PTW_N 19

static size_t ptw_make(bench_rng_fn rng, struct cairn_array *in, int64_t *buf, size_t cap)
{
    if (cap < PTW_N)
        return 0;
    for (size_t i = 0; i < PTW_N; i++)
        buf[i] = (int64_t)(rng() % 10000001);
    in[0] = (struct cairn_array){.v = buf, .n = PTW_N};
    return 1;
}

/* kamyu104/LeetCode-Solutions Python/predict-the-winner.py @016652b8:
 * even length or one number: true; else dp over i descending,
 * dp[j] = max(nums[i] - dp[j], nums[j] - dp[j-1]), answer dp[-1] >= 0. */
static int64_t ptw_peer(const struct cairn_array *in, size_t n_in)
{
    const int64_t *nums = in[0].v;
    size_t n = in[0].n;
    int64_t dp[64];
    (void)n_in;
    if (n % 2 == 0 || n == 1)
        return 1;
    if (n > 64)
        abort();
    for (size_t k = 0; k < n; k++)
        dp[k] = 0;
    for (size_t i = n; i-- > 0;) {
        dp[i] = nums[i];
        for (size_t j = i + 1; j < n; j++) {
            int64_t a = nums[i] - dp[j], b = nums[j] - dp[j - 1];
            dp[j] = a > b ? a : b;
        }
    }
    return dp[n - 1] >= 0;
}

/* ---- stone-removal-game (3360) --------------------------------------- */

static size_t srg_make(bench_rng_fn rng, struct cairn_array *in, int64_t *buf, size_t cap)
{
    (void)rng;
    if (cap < 1)
        return 0;
    buf[0] = 50; /* 1 <= n <= 50 */
    in[0] = (struct cairn_array){.v = buf, .n = 1};
    return 1;
}

/* kamyu104/LeetCode-Solutions Python/stone-removal-game.py @7c948b7b:
 * l = int(((2c+1) - sqrt((2c+1)^2 - 8n)) / 2) with c = 10, Alice wins iff
 * l is odd.  (Only for n <= 55: past that the root is of a negative.) */
static int64_t srg_peer(const struct cairn_array *in, size_t n_in)
{
    const double c = 10;
    double n = (double)in[0].v[0];
    (void)n_in;
    int l = (int)(((2 * c + 1) - sqrt((2 * c + 1) * (2 * c + 1) - 8 * n)) / 2);
    return l % 2 == 1;
}

const struct bench_peer bench_peers_b[] = {
    {"stone-game-viii", "doocs/leetcode 1872 Solution.py @6580758c", sg8_make, sg8_peer},
    {"stone-game-ix", "kamyu104/LeetCode-Solutions stone-game-ix.py @154379b1", ix_make, ix_peer},
    {"predict-the-winner", "kamyu104/LeetCode-Solutions predict-the-winner.py @016652b8 (n=19)",
     ptw_make, ptw_peer},
    {"stone-removal-game", "kamyu104/LeetCode-Solutions stone-removal-game.py @7c948b7b",
     srg_make, srg_peer},
    {0},
};
