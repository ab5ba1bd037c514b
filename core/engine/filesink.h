/*
 * filesink.h - a stream's results appended to a file from the thread pool.
 *
 * Each finished batch is given the next stretch of the file, in input
 * order, on the loop thread, and written there with uv_fs_write() at that
 * offset on the pool: batches may land in any order, and the bytes are in
 * input order all the same.  A slow disk or NFS server stalls the stream
 * (its batches stay out until written, so the engine reads no further than
 * the pool's batches allow), never the loop.
 */
#ifndef CAIRN_FILESINK_H
#define CAIRN_FILESINK_H

#include <stdint.h>
#include <uv.h>

#include "engine.h"
#include "util.h"

struct cairn_filesink {
    uv_loop_t *loop;
    int fd;                /* owned by the caller, positioned writes only */
    uint64_t off;          /* where the next batch goes */
    int error;             /* the first failure, or 0: later batches are dropped */
    struct cairn_buf kept; /* the stream's last batch, not yet written */
    uint64_t kept_off;     /* ... and where it goes */
};

/* fd: an empty file opened for writing, not O_APPEND. */
void cairn_filesink_init(struct cairn_filesink *fk, uv_loop_t *loop, int fd);

/*
 * NAME     cairn_filesink_write - write b->out after what came before
 * NOTES    call in input order (a sink's write()).  Releases b once its
 *          bytes are written or have failed; fk->error holds the first
 *          failure by the time the stream's end() runs, since every
 *          batch is released before it.  A write in flight when the
 *          stream is given up is left to the process exit.
 */
void cairn_filesink_write(struct cairn_filesink *fk, struct cairn_batch *b);

/*
 * NAME     cairn_filesink_keep - the stream's last batch, kept for the end
 * NOTES    instead of cairn_filesink_write(), for the stream's last batch
 *          (cairn_stream_is_last()): when it is small (64 KiB at most),
 *          its bytes are copied and b released at once, and the work item
 *          that finishes the job writes them (cairn_filesink_write_kept)
 *          just before its fsync.  A small job then costs one trip through
 *          the pool and back less.  A bigger batch, or one without memory
 *          for the copy, is written as any batch.
 */
void cairn_filesink_keep(struct cairn_filesink *fk, struct cairn_batch *b);

/* Instead of any batch (nothing written yet): the whole results,
 * answered where the job was read (cairn_pool_solve_here), kept as the
 * last batch is; fk takes out's bytes and leaves out empty. */
void cairn_filesink_keep_all(struct cairn_filesink *fk, struct cairn_buf *out);

/* Any thread, once the stream has ended: writes what was kept, finishing
 * short writes.  0, or the first failure (fk->error's, or this write's). */
int cairn_filesink_write_kept(struct cairn_filesink *fk);

/* Frees what was kept and never written. */
void cairn_filesink_free(struct cairn_filesink *fk);

#endif /* CAIRN_FILESINK_H */
