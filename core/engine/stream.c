/*
 * stream.c - a source's bytes into batches, their results to the sink in
 * input order (stream.h).
 */
#include "stream.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

/* Per-line memory is bounded, not only per-byte: a batch of 256 KiB of
 * two-byte lines once held 87 000 lines and 11 MB of error lines.  A batch
 * is handed on once it holds CAIRN_BATCH_MAX_LINES lines (batchsize.h),
 * and no read adds more than MAX_READ bytes to it (or the source's own
 * max_read: a read on the pool is worth more bytes per thread hop). */
#define MAX_READ (16u * 1024u)

static void begin_fill(struct cairn_stream *s, struct cairn_batch *b);

/* The stream that embeds u. */
static struct cairn_stream *of_user(struct cairn_pool_user *u)
{
    return (struct cairn_stream *)(void *)((char *)u - offsetof(struct cairn_stream, user));
}

/* Every entry point ends here: once nothing is left to read, answer or
 * release, the end is posted, so that the sink's end(), which may free
 * the stream, runs when no engine call is on the stack. */
static void check_end(struct cairn_stream *s)
{
    if (s->eof && s->filling == NULL && !s->reading && s->in_flight == 0 && !s->user.waiting &&
        s->user.given == NULL && !s->ended)
        cairn_pool_post(s->pool, &s->user);
}

/* The pool's idle handle: s was posted.  Nothing may touch s after this:
 * its end() may have freed it. */
static void on_posted(struct cairn_pool_user *u)
{
    struct cairn_stream *s = of_user(u);
    struct cairn_batch *b = s->user.given;

    if (b != NULL) {
        s->user.given = NULL;
        begin_fill(s, b);
        check_end(s);
        return;
    }
    if (s->eof && s->filling == NULL && !s->reading && s->in_flight == 0 && !s->user.waiting &&
        !s->ended) {
        s->ended = 1;
        s->sink.end(s, s->status);
    }
}

/* Hands finished batches to the sink in input order. */
static void emit_ready(struct cairn_stream *s)
{
    while (s->done != NULL && s->done->seq == s->emit_seq) {
        struct cairn_batch *b = s->done;

        s->done = b->next;
        s->emit_seq++;
        if (b->failed != 0 && s->status == 0)
            s->status = b->failed;
        s->sink.write(s, b);
    }
}

int cairn_stream_is_last(const struct cairn_stream *s, const struct cairn_batch *b)
{
    return s->eof && s->filling == NULL && b->seq + 1 == s->next_seq;
}

static void batch_finished(struct cairn_stream *s, struct cairn_batch *b)
{
    struct cairn_batch **pp = &s->done;

    while (*pp != NULL && (*pp)->seq < b->seq)
        pp = &(*pp)->next;
    b->next = *pp;
    *pp = b;
    emit_ready(s);
}

/* A worker is done with b (b->failed says how it went). */
static void on_batch_done(struct cairn_pool_user *u, struct cairn_batch *b)
{
    struct cairn_stream *s = of_user(u);

    if (b->failed == 0)
        cairn_batchsize_observe(&s->size, b->work_bytes, b->ns);
    batch_finished(s, b);
    check_end(s);
}

void cairn_batch_release(struct cairn_batch *b)
{
    struct cairn_stream *s = of_user(b->user);

    cairn_tally_add(&s->tally, &b->tally);
    s->in_flight--;
    cairn_pool_put(b->pool, b);
    check_end(s);
}

/* The filling batch is complete: to a worker, and the next one begun (or
 * waited for). */
static void dispatch(struct cairn_stream *s)
{
    struct cairn_batch *b = s->filling;
    size_t tail = b->in_len - s->cut.line_start;
    int err;

    s->filling = NULL;
    if (!s->eof && tail > 0 && cairn_buf_append(&s->carry, b->in + s->cut.line_start, tail) != 0) {
        s->status = -ENOMEM;
        s->eof = 1;
    }
    b->work_bytes = s->cut.line_start;
    b->seq = s->next_seq++;
    s->in_flight++;
    if (b->lines.n == 0) {
        batch_finished(s, b);
    } else {
        err = cairn_pool_run(s->pool, b);
        if (err != 0) {
            b->failed = err;
            batch_finished(s, b);
        }
    }
    if (s->eof)
        return;
    b = cairn_pool_take(s->pool, &s->user, &err);
    if (b != NULL)
        begin_fill(s, b);
    else if (err != 0)
        s->status = err, s->eof = 1;
    else
        cairn_pool_wait(s->pool, &s->user);
}

/* Cuts the filling batch's bytes from `from` on into lines, and hands the
 * batch on when it is full or the input has ended. */
static void take_lines(struct cairn_stream *s, size_t from)
{
    struct cairn_batch *b = s->filling;
    int rc = cairn_linecut_cut(&s->cut, b->in, &b->in_len, from, &s->size, &b->lines);

    if (rc < 0) {
        s->status = -ENOMEM;
        s->src_end = 1;
    } else if (rc == CAIRN_LINECUT_FULL && s->status == 0 && s->cut.line_start == b->in_len &&
               s->source.at_end != NULL && s->source.at_end(&s->source)) {
        /* Full, and nothing after it: the input's last batch.  Handing it
         * on as the end spares an empty batch behind it, and with it the
         * sink's knowing this one is the last (cairn_stream_is_last). */
        s->src_end = 1;
    } else if (rc == CAIRN_LINECUT_FULL && s->status == 0) {
        /* The rest, whole lines included, is carried to the next batch,
         * which cuts it before it reads (begin_fill). */
        s->cut_pending = 1;
        dispatch(s);
        return;
    } else if (rc == CAIRN_LINECUT_FULL) {
        /* An earlier batch failed: the stream ends with these lines.  The
         * bytes after them were not cut, and the next read's cut would
         * begin past them: their lines would run together under wrong
         * line numbers. */
        s->src_end = 1;
    }
    if (s->src_end) {
        /* The last line may lack its newline; it still counts. */
        if (s->status == 0 && cairn_linecut_end(&s->cut, b->in, b->in_len, &b->lines) != 0)
            s->status = -ENOMEM;
        s->cut.line_start = b->in_len;
        s->eof = 1;
        dispatch(s);
        return;
    }
    if (b->lines.n == 0 && s->cut.line_start > 0) {
        /* Only blank lines so far: drop their bytes rather than grow the
         * buffer (100 MB of newlines once sat in memory whole). */
        memmove(b->in, b->in + s->cut.line_start, b->in_len - s->cut.line_start);
        b->in_len -= s->cut.line_start;
        s->cut.line_start = 0;
    }
    if (b->lines.n >= CAIRN_BATCH_MAX_LINES ||
        (b->lines.n > 0 && (s->source.prompt || b->in_cap - b->in_len < s->pool->batch_bytes / 8)))
        dispatch(s);
}

/* Deals with nread new bytes in the filling batch. */
static void handle_read(struct cairn_stream *s, ssize_t nread)
{
    struct cairn_batch *b = s->filling;
    size_t from = b->in_len;

    if (nread < 0) {
        s->status = (int)nread;
        s->src_end = 1;
    } else if (nread == 0) {
        s->src_end = 1;
    } else {
        s->bytes += (uint64_t)nread;
        b->in_len += (size_t)nread;
    }
    take_lines(s, from);
}

/* Makes room for at least a useful read in the filling batch. */
static int ensure_room(struct cairn_batch *b)
{
    size_t room = b->in_cap - b->in_len;
    size_t cap;
    char *in;

    if (room >= 4096 || room >= b->in_cap / 8)
        return 0;
    cap = b->in_cap * 2;
    in = realloc(b->in, cap);
    if (in == NULL)
        return -ENOMEM;
    b->in = in;
    b->in_cap = cap;
    return 0;
}

/* Reads while the source answers at once; returns when a read is pending,
 * the pool is spent, or the input has ended. */
static void pump(struct cairn_stream *s)
{
    while (s->filling != NULL && !s->reading && !s->eof) {
        struct cairn_batch *b = s->filling;
        size_t max = s->source.max_read ? s->source.max_read : MAX_READ;
        ssize_t nread = 0;
        int rc;

        if (ensure_room(b) != 0) {
            handle_read(s, -ENOMEM);
            continue;
        }
        rc = s->source.read(&s->source, s, b->in + b->in_len,
                            b->in_cap - b->in_len < max ? b->in_cap - b->in_len : max, &nread);
        if (rc == CAIRN_SOURCE_PENDING) {
            s->reading = 1;
            return;
        }
        handle_read(s, rc < 0 ? rc : nread);
    }
}

static void begin_fill(struct cairn_stream *s, struct cairn_batch *b)
{
    s->filling = b;
    s->cut.line_start = 0;
    if (s->carry.len > 0) {
        if (s->carry.len > b->in_cap) {
            char *in = realloc(b->in, s->carry.len + s->pool->batch_bytes);
            if (in == NULL) {
                s->status = -ENOMEM;
                s->eof = 1;
                dispatch(s);
                return;
            }
            b->in = in;
            b->in_cap = s->carry.len + s->pool->batch_bytes;
        }
        memcpy(b->in, s->carry.data, s->carry.len);
        b->in_len = s->carry.len;
        s->carry.len = 0;
    }
    if (s->cut_pending) {
        /* Otherwise the carry is one unfinished line, not worth a rescan. */
        s->cut_pending = 0;
        take_lines(s, 0);
    }
    pump(s);
}

void cairn_stream_read_done(struct cairn_stream *s, ssize_t nread)
{
    s->reading = 0;
    handle_read(s, nread);
    pump(s);
    check_end(s);
}

/* A batch given back for s could not be made ready: s reads no more. */
static void on_refused(struct cairn_pool_user *u, int err)
{
    struct cairn_stream *s = of_user(u);

    s->status = s->status ? s->status : err;
    s->eof = 1;
}

int cairn_stream_start(struct cairn_stream *s)
{
    struct cairn_batch *b;
    int err;

    s->user = (struct cairn_pool_user){ .ctx = s->ctx,
                                        .max_line_bytes = s->max_line_bytes,
                                        .on_batch_done = on_batch_done,
                                        .on_posted = on_posted,
                                        .on_refused = on_refused };
    if (cairn_tally_init(&s->tally, s->ctx->reg->n_plugins) != 0)
        return -ENOMEM;
    cairn_batchsize_init(&s->size);
    s->cut.max_line_bytes = s->max_line_bytes;
    b = cairn_pool_take(s->pool, &s->user, &err);
    if (err != 0)
        return err;
    if (b == NULL)
        cairn_pool_wait(s->pool, &s->user);
    else
        begin_fill(s, b);
    check_end(s);
    return 0;
}

void cairn_stream_free(struct cairn_stream *s)
{
    cairn_buf_free(&s->carry);
    cairn_tally_free(&s->tally);
}
