/*
 * inflight.c - pool file work in flight (see inflight.h).
 */
#include "inflight.h"

#include <errno.h>
#include <time.h>

void cairn_inflight_enter(struct cairn_inflight *f)
{
    if (f != NULL)
        atomic_fetch_add(&f->n, 1);
}

void cairn_inflight_leave(struct cairn_inflight *f)
{
    if (f != NULL)
        atomic_fetch_sub(&f->n, 1);
}

int cairn_inflight_try_enter_alone(struct cairn_inflight *f)
{
    unsigned none = 0;

    /* Closed, the count has CAIRN_INFLIGHT_CLOSED set: never 0. */
    return f == NULL || atomic_compare_exchange_strong(&f->n, &none, 1);
}

int cairn_inflight_wait(struct cairn_inflight *f, unsigned ms)
{
    /* Polled: the wait happens once, at an abort, and a condition variable
     * would cost every item a lock for that one moment. */
    const struct timespec tick = { 0, 1000000 }; /* 1 ms */
    unsigned waited;

    if (f == NULL)
        return 0;
    for (waited = 0; (atomic_load(&f->n) & ~CAIRN_INFLIGHT_CLOSED) != 0; waited++) {
        if (waited >= ms)
            return -ETIMEDOUT;
        nanosleep(&tick, NULL);
    }
    return 0;
}

int cairn_inflight_close(struct cairn_inflight *f, unsigned ms)
{
    if (f != NULL)
        atomic_fetch_or(&f->n, CAIRN_INFLIGHT_CLOSED);
    return cairn_inflight_wait(f, ms);
}
