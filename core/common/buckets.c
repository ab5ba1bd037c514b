/*
 * buckets.c - the summaries' histogram buckets (see buckets.h).
 */
#include "buckets.h"

const double cairn_solve_bucket_le[CAIRN_SOLVE_BUCKETS - 1] = { 1e-6, 1e-5, 1e-4, 5e-4, 1e-3, 5e-3,
                                                                0.01, 0.05, 0.1,  0.5,  1.0 };

size_t cairn_solve_bucket(uint64_t ns)
{
    double s = (double)ns / 1e9;
    size_t i = 0;

    while (i < CAIRN_SOLVE_BUCKETS - 1 && s > cairn_solve_bucket_le[i])
        i++;
    return i;
}

size_t cairn_size_bucket(uint64_t size)
{
    size_t b = 0;

    /* Bucket b > 0 holds 2^(b-1)+1 .. 2^b. */
    while (b < CAIRN_SIZE_BUCKETS - 1 && size > ((uint64_t)1 << b))
        b++;
    return b;
}

void cairn_size_bucket_range(size_t b, uint64_t *min, uint64_t *max)
{
    *min = b == 0 ? 1 : ((uint64_t)1 << (b - 1)) + 1;
    *max = b >= CAIRN_SIZE_BUCKETS - 1 ? UINT64_MAX : (uint64_t)1 << b;
}
