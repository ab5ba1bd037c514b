/*
 * engine.c - cut streams into batches of lines, answer them on the thread
 * pool, hand the results back in order.  See engine.h for the shape.
 */
#include "engine.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A batch that once held a huge line gives the memory back on reuse. */
#define SHRINK_FACTOR 4

/* ---- the pool ---------------------------------------------------------- */

int cairn_pool_init(struct cairn_pool *p, uv_loop_t *loop, size_t max_batches, size_t batch_bytes)
{
    memset(p, 0, sizeof(*p));
    if (max_batches == 0 || batch_bytes < 64)
        return -EINVAL;
    if (uv_mutex_init(&p->scratch_lock) != 0)
        return -ENOMEM;
    p->loop = loop;
    p->max_batches = max_batches;
    p->batch_bytes = batch_bytes;
    return 0;
}

static void batch_free(struct cairn_batch *b)
{
    free(b->in);
    free(b->lines);
    cairn_buf_free(&b->out);
    cairn_tally_free(&b->tally);
    free(b);
}

void cairn_pool_close(struct cairn_pool *p)
{
    while (p->free != NULL) {
        struct cairn_batch *b = p->free;
        p->free = b->next;
        batch_free(b);
        p->n_batches--;
    }
    while (p->scratch_idle != NULL) {
        struct cairn_scratch *sc = p->scratch_idle;
        p->scratch_idle = sc->next;
        cairn_scratch_free(sc);
        free(sc);
    }
    uv_mutex_destroy(&p->scratch_lock);
}

/* Makes b ready for a stream: empty, tally sized for its registry. */
static int batch_ready(struct cairn_batch *b, struct cairn_stream *s)
{
    size_t want = s->pool->batch_bytes;
    size_t n_plugins = s->ctx->reg->n_plugins;

    if (b->in_cap > want * SHRINK_FACTOR || b->in == NULL) {
        char *in = realloc(b->in, want);
        if (in == NULL)
            return -ENOMEM;
        b->in = in;
        b->in_cap = want;
    }
    if (b->out.cap > want * SHRINK_FACTOR * 4)
        cairn_buf_free(&b->out);
    if (b->tally.n_variants != n_plugins + 1) {
        cairn_tally_free(&b->tally);
        if (cairn_tally_init(&b->tally, n_plugins) != 0)
            return -ENOMEM;
    } else {
        cairn_tally_reset(&b->tally);
    }
    b->stream = s;
    b->in_len = 0;
    b->n_lines = 0;
    b->out.len = 0;
    b->failed = 0;
    b->next = NULL;
    return 0;
}

/* A batch for s, or NULL when the pool is spent (or memory is). */
static struct cairn_batch *pool_take(struct cairn_pool *p, struct cairn_stream *s, int *err)
{
    struct cairn_batch *b = p->free;

    *err = 0;
    if (b != NULL) {
        p->free = b->next;
    } else if (p->n_batches < p->max_batches) {
        b = calloc(1, sizeof(*b));
        if (b == NULL) {
            *err = -ENOMEM;
            return NULL;
        }
        b->pool = p;
        p->n_batches++;
    } else {
        return NULL;
    }
    if (batch_ready(b, s) != 0) {
        b->next = p->free;
        p->free = b;
        *err = -ENOMEM;
        return NULL;
    }
    return b;
}

static void begin_fill(struct cairn_stream *s, struct cairn_batch *b);
static void enter(struct cairn_stream *s);
static void leave(struct cairn_stream *s);

static void pool_put(struct cairn_pool *p, struct cairn_batch *b)
{
    struct cairn_stream *w = p->waiters_head;

    if (w != NULL) {
        p->waiters_head = w->wait_next;
        if (p->waiters_head == NULL)
            p->waiters_tail = NULL;
        w->waiting = 0;
        enter(w);
        if (batch_ready(b, w) == 0) {
            begin_fill(w, b);
            leave(w);
            return;
        }
        w->status = w->status ? w->status : -ENOMEM;
        w->eof = 1;
        leave(w);
    }
    b->stream = NULL;
    b->next = p->free;
    p->free = b;
}

static void pool_wait(struct cairn_pool *p, struct cairn_stream *s)
{
    s->waiting = 1;
    s->wait_next = NULL;
    if (p->waiters_tail != NULL)
        p->waiters_tail->wait_next = s;
    else
        p->waiters_head = s;
    p->waiters_tail = s;
}

/* ---- workers ----------------------------------------------------------- */

/* On a worker: an idle scratch, or a new one (NULL: out of memory). */
static struct cairn_scratch *scratch_take(struct cairn_pool *p)
{
    struct cairn_scratch *sc;

    uv_mutex_lock(&p->scratch_lock);
    sc = p->scratch_idle;
    if (sc != NULL)
        p->scratch_idle = sc->next;
    uv_mutex_unlock(&p->scratch_lock);
    return sc != NULL ? sc : calloc(1, sizeof(*sc));
}

/* On a worker: gives sc back, first freeing a plugin scratch that a huge
 * record grew far past what batches of ordinary ones need. */
static void scratch_give(struct cairn_pool *p, struct cairn_scratch *sc)
{
    if (sc->mem_cap > p->batch_bytes * SHRINK_FACTOR * 16)
        cairn_scratch_free(sc);
    uv_mutex_lock(&p->scratch_lock);
    sc->next = p->scratch_idle;
    p->scratch_idle = sc;
    uv_mutex_unlock(&p->scratch_lock);
}

static void work_cb(uv_work_t *req)
{
    struct cairn_batch *b = req->data;
    const struct cairn_stream *s = b->stream;
    struct cairn_scratch *sc = scratch_take(b->pool);
    uint64_t t0 = uv_hrtime();
    size_t i;

    if (sc == NULL) {
        b->failed = -ENOMEM;
        return;
    }
    for (i = 0; i < b->n_lines; i++) {
        const struct cairn_line *l = &b->lines[i];
        int rc;

        if (l->len == CAIRN_LINE_TOO_LONG) {
            char msg[128];
            snprintf(msg, sizeof(msg), "line is %zu bytes, over max_line_bytes (%zu)", l->off,
                     s->max_line_bytes);
            rc = cairn_record_error(l->no, CAIRN_CODE_TOO_LARGE, msg, &b->out, &b->tally);
        } else {
            rc =
                cairn_record_process(s->ctx, sc, l->no, b->in + l->off, l->len, &b->out, &b->tally);
        }
        if (rc != 0) {
            b->failed = rc;
            break;
        }
    }
    /* Two clock reads a batch, not a record: the estimate batchsize.c
     * cuts batches by. */
    b->ns = uv_hrtime() - t0;
    scratch_give(b->pool, sc);
}

/* Public entry points nest (a sink's write() may release a batch, which
 * may start another stream's read...).  The end callback, which may free
 * the stream, only fires when the outermost one leaves. */
static void maybe_end(struct cairn_stream *s)
{
    if (s->depth == 0 && s->eof && s->filling == NULL && !s->reading && s->in_flight == 0 &&
        !s->waiting && !s->ended) {
        s->ended = 1;
        s->sink.end(s, s->status);
    }
}

static void enter(struct cairn_stream *s)
{
    s->depth++;
}

/* Nothing may touch s after this: it may be gone. */
static void leave(struct cairn_stream *s)
{
    if (--s->depth == 0)
        maybe_end(s);
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

void cairn_pool_set_max_running(struct cairn_pool *p, size_t n)
{
    p->max_running = n;
}

static void after_work_cb(uv_work_t *req, int status);

/* Hands b to a worker, or queues it until one of ours is free. */
static int run_batch(struct cairn_pool *p, struct cairn_batch *b)
{
    int err;

    if (p->max_running != 0 && p->running >= p->max_running) {
        b->next = NULL;
        if (p->ready_tail != NULL)
            p->ready_tail->next = b;
        else
            p->ready_head = b;
        p->ready_tail = b;
        return 0;
    }
    b->work.data = b;
    err = uv_queue_work(p->loop, &b->work, work_cb, after_work_cb);
    if (err == 0)
        p->running++;
    return err;
}

static void after_work_cb(uv_work_t *req, int status)
{
    struct cairn_batch *b = req->data;
    struct cairn_stream *s = b->stream;
    struct cairn_pool *p = b->pool;

    p->running--;
    while (p->ready_head != NULL) {
        struct cairn_batch *next = p->ready_head;
        int err;

        p->ready_head = next->next;
        if (p->ready_head == NULL)
            p->ready_tail = NULL;
        if ((err = run_batch(p, next)) == 0)
            break;
        next->failed = err;
        enter(next->stream);
        batch_finished(next->stream, next);
        leave(next->stream);
    }

    if (status != 0 && b->failed == 0)
        b->failed = status;
    if (b->failed == 0)
        cairn_batchsize_observe(&s->size, b->work_bytes, b->ns);
    enter(s);
    batch_finished(s, b);
    leave(s);
}

void cairn_batch_release(struct cairn_batch *b)
{
    struct cairn_stream *s = b->stream;

    enter(s);
    cairn_tally_add(&s->tally, &b->tally);
    s->in_flight--;
    pool_put(b->pool, b);
    leave(s);
}

/* ---- cutting lines ----------------------------------------------------- */

/* Per-line memory is bounded, not only per-byte: a batch of 256 KiB of
 * two-byte lines once held 87 000 lines and 11 MB of error lines.  A batch
 * is handed on once it holds CAIRN_BATCH_MAX_LINES lines (batchsize.h),
 * and no read adds more than MAX_READ bytes to it (or the source's own
 * max_read: a read on the pool is worth more bytes per thread hop). */
#define MAX_READ (16u * 1024u)

/* cut_lines() stopped after a line: the batch is full (batchsize.h) and
 * the bytes after that line belong to the next one. */
#define CUT 1

static int is_blank(const char *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (p[i] != ' ' && p[i] != '\t')
            return 0;
    return 1;
}

static int push_line(struct cairn_batch *b, uint64_t no, size_t off, size_t len)
{
    if (b->n_lines == b->lines_cap) {
        size_t cap = b->lines_cap ? b->lines_cap * 2 : 256;
        struct cairn_line *l = realloc(b->lines, cap * sizeof(*l));
        if (l == NULL)
            return -ENOMEM;
        b->lines = l;
        b->lines_cap = cap;
    }
    b->lines[b->n_lines++] = (struct cairn_line){ .no = no, .off = off, .len = len };
    return 0;
}

/* Records the complete line [off, off+len) (terminator excluded). */
static int take_line(struct cairn_stream *s, struct cairn_batch *b, size_t off, size_t len)
{
    const char *p = b->in + off;

    s->line_no++;
    if (!s->seen_first) {
        s->seen_first = 1;
        /* A UTF-8 byte order mark is an editor's artefact, not data. */
        if (len >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0) {
            off += 3;
            len -= 3;
            p += 3;
        }
    }
    if (len > 0 && p[len - 1] == '\r')
        len--;
    /* Length first: a line too long to hold is an error whatever it holds,
     * so the answer cannot depend on whether it arrived in one read. */
    if (len > s->max_line_bytes)
        return push_line(b, s->line_no, len, CAIRN_LINE_TOO_LONG);
    if (is_blank(p, len))
        return 0;
    return push_line(b, s->line_no, off, len);
}

/* Counts n bytes of a line too long to keep, remembering whether the last
 * one was a '\r' so the reported size does not depend on read sizes. */
static void skip_bytes(struct cairn_stream *s, const char *p, size_t n)
{
    if (n == 0)
        return;
    s->skipped += n;
    s->skip_cr = p[n - 1] == '\r';
}

/* Cuts b->in[from, in_len) at newlines; the unfinished line starts at
 * s->line_start afterwards. */
static int cut_lines(struct cairn_stream *s, struct cairn_batch *b, size_t from)
{
    const char *end = b->in + b->in_len;
    const char *p = b->in + from;
    const char *nl;

    while ((nl = memchr(p, '\n', (size_t)(end - p))) != NULL) {
        int rc;

        if (s->skipping) {
            skip_bytes(s, p, (size_t)(nl - p));
            s->skipped -= s->skip_cr; /* like take_line, a final '\r' is no data */
            s->line_no++;
            s->seen_first = 1;
            s->skipping = 0;
            rc = push_line(b, s->line_no, s->skipped, CAIRN_LINE_TOO_LONG);
        } else {
            rc = take_line(s, b, s->line_start, (size_t)(nl - (b->in + s->line_start)));
        }
        if (rc != 0)
            return rc;
        p = nl + 1;
        s->line_start = (size_t)(p - b->in);
        /* Cut by work, not only by bytes: 40 expensive records fit in
         * 256 KiB, and one worker would solve them all. */
        if (b->n_lines > 0 && cairn_batchsize_full(&s->size, b->n_lines, s->line_start))
            return CUT;
    }
    if (s->skipping) {
        skip_bytes(s, p, (size_t)(end - p));
        b->in_len = s->line_start;
    } else if (b->in_len - s->line_start > s->max_line_bytes + 1 + (s->seen_first ? 0 : 3)) {
        /* Past max_line_bytes, a '\r' and a BOM (the first line only), the
         * line can only be an error: stop holding its bytes, and count them
         * the way take_line() would have. */
        const char *start = b->in + s->line_start;
        size_t n = b->in_len - s->line_start;

        if (!s->seen_first && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
            start += 3;
            n -= 3;
        }
        s->seen_first = 1;
        s->skipping = 1;
        s->skipped = 0;
        skip_bytes(s, start, n);
        b->in_len = s->line_start;
    }
    return 0;
}

/* ---- the stream -------------------------------------------------------- */

static void dispatch(struct cairn_stream *s)
{
    struct cairn_batch *b = s->filling;
    size_t tail = b->in_len - s->line_start;
    int err;

    s->filling = NULL;
    if (!s->eof && tail > 0 && cairn_buf_append(&s->carry, b->in + s->line_start, tail) != 0) {
        s->status = -ENOMEM;
        s->eof = 1;
    }
    b->work_bytes = s->line_start;
    b->seq = s->next_seq++;
    s->in_flight++;
    if (b->n_lines == 0) {
        batch_finished(s, b);
    } else {
        err = run_batch(s->pool, b);
        if (err != 0) {
            b->failed = err;
            batch_finished(s, b);
        }
    }
    if (s->eof)
        return;
    b = pool_take(s->pool, s, &err);
    if (b != NULL)
        begin_fill(s, b);
    else if (err != 0)
        s->status = err, s->eof = 1;
    else
        pool_wait(s->pool, s);
}

/* Cuts the filling batch's bytes from `from` on into lines, and hands the
 * batch on when it is full or the input has ended. */
static void take_lines(struct cairn_stream *s, size_t from)
{
    struct cairn_batch *b = s->filling;
    int rc = cut_lines(s, b, from);

    if (rc < 0) {
        s->status = -ENOMEM;
        s->src_end = 1;
    } else if (rc == CUT && s->status == 0) {
        /* The rest, whole lines included, is carried to the next batch,
         * which cuts it before it reads (begin_fill). */
        s->cut_pending = 1;
        dispatch(s);
        return;
    }
    if (s->src_end) {
        /* The last line may lack its newline; it still counts. */
        if (s->status == 0 && s->skipping) {
            s->skipped -= s->skip_cr;
            s->line_no++;
            s->skipping = 0;
            if (push_line(b, s->line_no, s->skipped, CAIRN_LINE_TOO_LONG) != 0)
                s->status = -ENOMEM;
        } else if (s->status == 0 && b->in_len > s->line_start &&
                   take_line(s, b, s->line_start, b->in_len - s->line_start) != 0) {
            s->status = -ENOMEM;
        }
        s->line_start = b->in_len;
        s->eof = 1;
        dispatch(s);
        return;
    }
    if (b->n_lines == 0 && s->line_start > 0) {
        /* Only blank lines so far: drop their bytes rather than grow the
         * buffer (100 MB of newlines once sat in memory whole). */
        memmove(b->in, b->in + s->line_start, b->in_len - s->line_start);
        b->in_len -= s->line_start;
        s->line_start = 0;
    }
    if (b->n_lines >= CAIRN_BATCH_MAX_LINES ||
        (b->n_lines > 0 && (s->source.prompt || b->in_cap - b->in_len < s->pool->batch_bytes / 8)))
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
    s->line_start = 0;
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
    enter(s);
    s->reading = 0;
    handle_read(s, nread);
    pump(s);
    leave(s);
}

int cairn_stream_start(struct cairn_stream *s)
{
    struct cairn_batch *b;
    int err;

    if (cairn_tally_init(&s->tally, s->ctx->reg->n_plugins) != 0)
        return -ENOMEM;
    cairn_batchsize_init(&s->size);
    b = pool_take(s->pool, s, &err);
    if (err != 0)
        return err;
    enter(s);
    if (b == NULL)
        pool_wait(s->pool, s);
    else
        begin_fill(s, b);
    leave(s);
    return 0;
}

void cairn_stream_free(struct cairn_stream *s)
{
    cairn_buf_free(&s->carry);
    cairn_tally_free(&s->tally);
}
