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
    return th_splitmix64(&state);
}

int64_t th_rng_range(int64_t lo, int64_t hi)
{
    return th_splitmix64_range(&state, lo, hi);
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
