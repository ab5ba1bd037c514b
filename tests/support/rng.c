/*
 * rng.c - see rng.h.
 */
#include "rng.h"

#include <inttypes.h>
#include <stdio.h>

static uint64_t state;

void th_rng_seed(uint64_t seed)
{
    state = seed;
}

uint64_t th_rng_next(void)
{
    uint64_t z = (state += UINT64_C(0x9E3779B97F4A7C15));

    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

int64_t th_rng_range(int64_t lo, int64_t hi)
{
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1u;

    if (span == 0)
        return (int64_t)th_rng_next(); /* the whole int64 range */
    return (int64_t)((uint64_t)lo + th_rng_next() % span);
}

const char *th_row_str(const int64_t *a, size_t n)
{
    static char bufs[2][1024];
    static int which;
    char *buf = bufs[which ^= 1];
    size_t off = 0, cap = sizeof bufs[0], i;

    off += (size_t)snprintf(buf + off, cap - off, "[");
    for (i = 0; i < n; i++) {
        if (off > cap - 64) {
            snprintf(buf + off, cap - off, "... (n=%zu)", n);
            return buf;
        }
        off += (size_t)snprintf(buf + off, cap - off, "%s%" PRId64, i ? "," : "", a[i]);
    }
    snprintf(buf + off, cap - off, "]");
    return buf;
}
