/*
 * engine.h - the record engine: bytes in, ordered result lines out.
 *
 * A stream (one job file, or stdin) reads its bytes straight into batch
 * buffers, cuts them at line ends on the loop thread, and hands each batch
 * to the libuv thread pool, where cairn_record_process() answers every line.
 * Finished batches go back to the stream's sink strictly in input order.
 *
 * Memory stays flat whatever the input size: a pool owns at most
 * max_batches batches, shared by every stream, and a stream that finds the
 * pool empty waits for a batch to come back before it reads further.
 *
 * All functions run on the loop thread.
 */
#ifndef CAIRN_ENGINE_H
#define CAIRN_ENGINE_H

#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "batchsize.h"
#include "record.h"
#include "util.h"

struct cairn_stream;

/* One line of a batch; len == CAIRN_LINE_TOO_LONG marks a line that was
 * skipped for being over max_line_bytes (its byte count is in off). */
#define CAIRN_LINE_TOO_LONG SIZE_MAX
struct cairn_line {
    uint64_t no;
    size_t off;
    size_t len;
};

struct cairn_batch {
    struct cairn_stream *stream;
    struct cairn_pool *pool;
    uint64_t seq;
    char *in; /* raw bytes; lines point into it */
    size_t in_len;
    size_t in_cap;
    struct cairn_line *lines;
    size_t n_lines;
    size_t lines_cap;
    struct cairn_buf out; /* rendered result lines, filled on a worker */
    struct cairn_tally tally;
    int failed;        /* -ENOMEM from a worker */
    size_t work_bytes; /* input bytes its lines span */
    uint64_t ns;       /* time the worker took to answer them */
    uv_work_t work;
    struct cairn_batch *next;
};

struct cairn_pool {
    uv_loop_t *loop;
    size_t max_batches;
    size_t n_batches;   /* allocated so far */
    size_t batch_bytes; /* target input bytes per batch */
    size_t max_running; /* batches on workers at once; 0 = no limit */
    size_t running;
    struct cairn_batch *ready_head; /* dispatched, waiting for a worker */
    struct cairn_batch *ready_tail;
    struct cairn_batch *free;
    struct cairn_stream *waiters_head; /* streams waiting for a batch */
    struct cairn_stream *waiters_tail;
    /* Workers' memory, lent to a batch while it runs: as many as run at
     * once, not one per batch, so a big plugin scratch is first touched
     * (page faults) once per worker, and held once per worker. */
    uv_mutex_t scratch_lock;
    struct cairn_scratch *scratch_idle;
};

/* A byte source a stream pulls from. */
#define CAIRN_SOURCE_PENDING 1
struct cairn_source {
    /* Read at most len bytes into buf.  Either return 0 with *nread set
     * (0 = end of input), a negative errno, or CAIRN_SOURCE_PENDING and
     * call cairn_stream_read_done() later on the loop thread. */
    int (*read)(struct cairn_source *src, struct cairn_stream *s, char *buf, size_t len,
                ssize_t *nread);
    int prompt;      /* hand lines to workers after every read (pipes, ttys) */
    size_t max_read; /* largest read to ask for; 0: the engine's default */
    void *data;
};

/* Where a stream's results go. */
struct cairn_sink {
    /* Called in input order with each finished batch's results in
     * b->out; call cairn_batch_release(b) once they are written. */
    void (*write)(struct cairn_stream *s, struct cairn_batch *b);
    /* Called once, after the last batch was released: status 0, or the
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
    size_t line_start;           /* where the unfinished line begins */
    int depth;                   /* nesting of entry points, see engine.c */
    uint64_t line_no;            /* lines fully seen so far */
    int skipping;                /* inside a line over max_line_bytes */
    size_t skipped;              /* its bytes so far */
    int skip_cr;                 /* the last of them was '\r' */
    int seen_first;              /* BOM check done */
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
    struct cairn_stream *wait_next;
    int waiting;
    int ended;
};

/* In a sink's write(): whether b is the stream's last batch (every line
 * is read and dispatched, and b was the last dispatched).  Earlier ones
 * may still be out: end() waits for them all the same. */
int cairn_stream_is_last(const struct cairn_stream *s, const struct cairn_batch *b);

int cairn_pool_init(struct cairn_pool *p, uv_loop_t *loop, size_t max_batches, size_t batch_bytes);
/* At most n batches solve at once (the libuv pool may be larger, to give
 * file I/O threads of its own).  0: no limit. */
void cairn_pool_set_max_running(struct cairn_pool *p, size_t n);

/* Frees the idle batches and scratches; every stream must have ended. */
void cairn_pool_close(struct cairn_pool *p);

/* Starts pulling from s->source; s must be zeroed apart from pool, ctx,
 * max_line_bytes, source and sink. */
int cairn_stream_start(struct cairn_stream *s);
void cairn_stream_read_done(struct cairn_stream *s, ssize_t nread);
void cairn_batch_release(struct cairn_batch *b);
/* Frees what the stream holds after its sink's end() ran. */
void cairn_stream_free(struct cairn_stream *s);

#endif /* CAIRN_ENGINE_H */
