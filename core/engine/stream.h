/*
 * stream.h - one stream of records through the engine: bytes in, ordered
 * result lines out.
 *
 * A stream (one job file, or stdin) reads its bytes into batch buffers
 * (pool.h; a job file's read-ahead pieces are copied in, source.h), cuts
 * them at line ends on the loop thread
 * (linecut.h), and hands each batch to the workers, where
 * cairn_record_process() answers every line.  Finished batches go back to
 * the stream's sink strictly in input order.
 *
 * All functions run on the loop thread.
 */
#ifndef CAIRN_STREAM_H
#define CAIRN_STREAM_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "batchsize.h"
#include "linecut.h"
#include "pool.h"
#include "record.h"
#include "util.h"

struct cairn_stream;

/* A byte source a stream pulls from. */
#define CAIRN_SOURCE_PENDING 1
struct cairn_source {
    /* Read at most len bytes into buf.  Either return 0 with *nread set
     * (0 = end of input), a negative errno, or CAIRN_SOURCE_PENDING and
     * call cairn_stream_read_done() later on the loop thread. */
    int (*read)(struct cairn_source *src, struct cairn_stream *s, char *buf, size_t len,
                ssize_t *nread);
    /* Optional: 1 when the next read is known to return the end (0)
     * without waiting, so a batch filled to its last byte is the last
     * batch, not one followed by an empty one.  NULL: not known. */
    int (*at_end)(struct cairn_source *src);
    int prompt;      /* hand lines to workers after every read (pipes, ttys) */
    size_t max_read; /* largest read to ask for; 0: the engine's default */
    void *data;
};

/* Where a stream's results go. */
struct cairn_sink {
    /* Called in input order with each finished batch's results in
     * b->out; call cairn_batch_release(b) once they are written (from
     * here, or later). */
    void (*write)(struct cairn_stream *s, struct cairn_batch *b);
    /* Called once, after the last batch was released, on a loop turn of
     * its own (never from inside another engine call): status 0, or the
     * negative errno that stopped the stream (read error, out of memory).
     * The stream is finished and may be freed from here. */
    void (*end)(struct cairn_stream *s, int status);
    void *data;
};

struct cairn_stream {
    struct cairn_pool *pool;
    const struct cairn_record_ctx *ctx;
    size_t max_line_bytes;
    struct cairn_source source;
    struct cairn_sink sink;

    struct cairn_batch *filling; /* being read into */
    struct cairn_buf carry;      /* partial last line between batches */
    struct cairn_linecut cut;    /* where lines begin and end */
    int src_end;                 /* the source has no more bytes (or failed) */
    int cut_pending;             /* the carry may hold whole lines: cut them first */
    int eof;                     /* every line is in a dispatched batch */
    int status;                  /* first error, or 0 */
    int reading;

    uint64_t next_seq;           /* next batch number to hand out */
    uint64_t emit_seq;           /* next batch number the sink gets */
    size_t in_flight;            /* dispatched, not yet released */
    struct cairn_batch *done;    /* finished batches waiting for their turn */
    uint64_t bytes;              /* bytes read */
    struct cairn_batchsize size; /* when a batch is full */
    struct cairn_tally tally;    /* sum over released batches */
    struct cairn_pool_user user; /* what the pool knows of it (pool.h) */
    int ended;
};

/* Starts pulling from s->source; s must be zeroed apart from pool, ctx,
 * max_line_bytes, source and sink.  0 or -ENOMEM. */
int cairn_stream_start(struct cairn_stream *s);
void cairn_stream_read_done(struct cairn_stream *s, ssize_t nread);
void cairn_batch_release(struct cairn_batch *b);
/* Frees what the stream holds after its sink's end() ran. */
void cairn_stream_free(struct cairn_stream *s);

/* In a sink's write(): whether b is the stream's last batch (every line
 * is read and dispatched, and b was the last dispatched).  Earlier ones
 * may still be out: end() waits for them all the same. */
int cairn_stream_is_last(const struct cairn_stream *s, const struct cairn_batch *b);

#endif /* CAIRN_STREAM_H */
