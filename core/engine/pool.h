/*
 * pool.h - the engine's batches and the workers that answer them.
 *
 * A pool owns at most max_batches batches, shared by every stream, so
 * memory stays flat whatever the input size: a stream that finds the pool
 * spent waits until a batch comes back.  A batch's lines are answered on
 * the libuv thread pool, at most max_running at once, each worker lent
 * scratch memory for the batch.
 *
 * A batch given back while a stream waits is not handed over there and
 * then: the stream is posted, and the pool's idle handle gives it the
 * batch on the next turn of the loop, as a stream's end is posted too.  So
 * no call into the engine runs another stream's work, or a sink's end(),
 * before it returns.
 *
 * The pool knows a stream (stream.h) only by the cairn_pool_user it
 * embeds: what the pool reads of it, its places in the pool's queues and
 * the functions the pool calls back.  The stream calls the pool; the pool
 * never calls the stream's code by name.
 *
 * All functions run on the loop thread, but work_cb, on a worker, and
 * cairn_pool_solve_here, on any thread.
 */
#ifndef CAIRN_POOL_H
#define CAIRN_POOL_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

#include "linecut.h"
#include "record.h"
#include "util.h"

struct cairn_batch;

/* A user of the pool: a stream embeds one and fills it in before its
 * first call (cairn_stream_start). */
struct cairn_pool_user {
    const struct cairn_record_ctx *ctx; /* its records' context */
    size_t max_line_bytes;              /* named in a too-long line's error */
    /* A worker is done with b (b->failed says how it went). */
    void (*on_batch_done)(struct cairn_pool_user *u, struct cairn_batch *b);
    /* The pool's idle handle: u was posted (cairn_pool_post).  Nothing may
     * touch u after this: its stream's end may have freed it. */
    void (*on_posted)(struct cairn_pool_user *u);
    /* A batch given back for u, which waited, could not be made ready
     * (err): u gets none, and is posted. */
    void (*on_refused)(struct cairn_pool_user *u, int err);
    struct cairn_pool_user *wait_next;
    int waiting;
    struct cairn_batch *given; /* the pool gave it a batch: fill it next turn */
    struct cairn_pool_user *post_next;
    int posted;
};

struct cairn_batch {
    struct cairn_pool_user *user;
    struct cairn_pool *pool;
    uint64_t seq;
    char *in; /* raw bytes; lines point into it */
    size_t in_len;
    size_t in_cap;
    struct cairn_lines lines;
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
    size_t n_batches;               /* allocated so far */
    size_t batch_bytes;             /* target input bytes per batch */
    size_t max_running;             /* batches solving at once; 0 = no limit */
    atomic_size_t running;          /* slots taken: batches on workers, and
                              solves under way in cairn_pool_solve_here */
    struct cairn_batch *ready_head; /* dispatched, waiting for a worker */
    struct cairn_batch *ready_tail;
    struct cairn_batch *free;
    struct cairn_pool_user *waiters_head; /* streams waiting for a batch */
    struct cairn_pool_user *waiters_tail;
    /* Streams with work for the next loop turn: a batch given, an end. */
    uv_idle_t post;
    struct cairn_pool_user *posted_head;
    struct cairn_pool_user *posted_tail;
    /* Workers' memory, lent to a batch while it runs: as many as run at
     * once, not one per batch, so a big plugin scratch is first touched
     * (page faults) once per worker, and held once per worker. */
    uv_mutex_t scratch_lock;
    struct cairn_scratch *scratch_idle;
};

/* 0, -EINVAL (no batches, or batches too small to hold a read), -ENOMEM. */
int cairn_pool_init(struct cairn_pool *p, uv_loop_t *loop, size_t max_batches, size_t batch_bytes);

/* At most n batches solve at once (the libuv pool may be larger, to give
 * file I/O threads of its own).  0: no limit. */
void cairn_pool_set_max_running(struct cairn_pool *p, size_t n);

/* Frees the idle batches and scratches; every stream must have ended, and
 * the loop is run once (UV_RUN_NOWAIT) for the idle handle's close. */
void cairn_pool_close(struct cairn_pool *p);

/* On any thread (a pool thread that has just read a small job, say): the
 * lines of in[0, len) answered here, into out and tally, as a worker
 * would answer them, when they are what a stream's first batch would hold
 * (one line, none over u->max_line_bytes) and one of the max_running
 * solving slots is free, taken for the solve.  u needs ctx and
 * max_line_bytes only.  1 when answered; 0 when not (nothing was done or
 * taken: stream it); a negative errno when answering failed.  Follow a
 * 1 or a negative answer with cairn_pool_solved_here on the loop. */
int cairn_pool_solve_here(struct cairn_pool *p, const struct cairn_pool_user *u, const char *in,
                          size_t len, struct cairn_buf *out, struct cairn_tally *tally);

/* Loop thread, after a solve cairn_pool_solve_here made: the batches that
 * waited for a slot meanwhile start on the slots free now. */
void cairn_pool_solved_here(struct cairn_pool *p);

/* ---- for stream.c --------------------------------------------------- */

/* A batch made ready for u (its tally sized for u's registry), or NULL: the pool
 * is spent (*err 0) or memory is (*err -ENOMEM). */
struct cairn_batch *cairn_pool_take(struct cairn_pool *p, struct cairn_pool_user *u, int *err);

/* Gives b back: to the first waiting stream (posted), or to the pool. */
void cairn_pool_put(struct cairn_pool *p, struct cairn_batch *b);

/* u waits for a batch: it is given one (posted) when one comes back. */
void cairn_pool_wait(struct cairn_pool *p, struct cairn_pool_user *u);

/* u has work for the next loop turn (its on_posted); posting a posted
 * user again changes nothing. */
void cairn_pool_post(struct cairn_pool *p, struct cairn_pool_user *u);

/* Hands b to a worker, or queues it until one of ours is free: 0, or a
 * libuv error (b was not queued). */
int cairn_pool_run(struct cairn_pool *p, struct cairn_batch *b);

#endif /* CAIRN_POOL_H */
