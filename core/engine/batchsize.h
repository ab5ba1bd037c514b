/*
 * batchsize.h - when a batch is full: by its lines, and by the work they
 * are estimated to take, so that a job of a few expensive records spreads
 * over every worker instead of fitting in one batch.
 *
 * The estimate is the stream's own: solve nanoseconds per input byte,
 * measured on the workers batch by batch.  Until a first batch has been
 * measured, nothing is known, so each batch holds one line; the pool
 * holds only a few batches, so at most that many one-line batches go out
 * before the first measurement comes back.
 *
 * All functions run on the loop thread.
 */
#ifndef CAIRN_BATCHSIZE_H
#define CAIRN_BATCHSIZE_H

#include <stddef.h>
#include <stdint.h>

/* A batch is cut once it holds this much estimated work.  Small enough
 * that the last batches of a job finish close together on every worker;
 * large enough that a batch's hand-offs (a queue, a wake-up, a write) are
 * a rounding error next to it. */
#define CAIRN_BATCH_WORK_NS (4u * 1000u * 1000u)

/* Per-line memory is bounded: a batch is cut at this many lines whatever
 * their cost. */
#define CAIRN_BATCH_MAX_LINES 4096

struct cairn_batchsize {
    double ns;        /* decayed sum of measured solve time ... */
    double bytes;     /* ... and of the input bytes it took */
    size_t max_lines; /* a batch is full at this many lines */
    size_t max_bytes; /* or once its lines span this many bytes */
};

/* A stream's estimate before anything was measured: one line a batch. */
void cairn_batchsize_init(struct cairn_batchsize *z);

/* A batch whose lines spanned bytes took ns on a worker. */
void cairn_batchsize_observe(struct cairn_batchsize *z, size_t bytes, uint64_t ns);

/* Whether a batch of lines lines spanning bytes bytes should go now.  A
 * call, not inline: once per line, it is a rounding error next to the
 * line's parse and solve (bench/run throughput), and inlined its two
 * comparisons were counted again in every caller. */
int cairn_batchsize_full(const struct cairn_batchsize *z, size_t lines, size_t bytes);

#endif /* CAIRN_BATCHSIZE_H */
