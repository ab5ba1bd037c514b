/*
 * batchsize.c - when a batch is full.  See batchsize.h.
 */
#include "batchsize.h"

/* Each measurement weighs this much less than the next: the estimate
 * follows a job whose records change (a sorted corpus, a second half of
 * another variant) within a few batches, and one batch slowed by a
 * preempted worker does not rule for long. */
#define DECAY 0.75

void cairn_batchsize_init(struct cairn_batchsize *z)
{
    z->ns = 0;
    z->bytes = 0;
    z->max_lines = 1;
    z->max_bytes = SIZE_MAX;
}

void cairn_batchsize_observe(struct cairn_batchsize *z, size_t bytes, uint64_t ns)
{
    double limit;

    if (bytes == 0)
        return;
    z->ns = z->ns * DECAY + (double)ns;
    z->bytes = z->bytes * DECAY + (double)bytes;
    z->max_lines = CAIRN_BATCH_MAX_LINES;
    if (z->ns <= 0) {
        z->max_bytes = SIZE_MAX; /* too fast for the clock: only the other limits hold */
        return;
    }
    limit = (double)CAIRN_BATCH_WORK_NS * z->bytes / z->ns;
    z->max_bytes = limit >= (double)SIZE_MAX ? SIZE_MAX : limit < 1 ? 1 : (size_t)limit;
}

int cairn_batchsize_full(const struct cairn_batchsize *z, size_t lines, size_t bytes)
{
    return lines >= z->max_lines || bytes >= z->max_bytes;
}
