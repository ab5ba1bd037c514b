/*
 * pool.c - batches, workers and the posted streams (pool.h).
 */
#include "pool.h"

#include <errno.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A batch that once held a huge line gives the memory back on reuse. */
#define SHRINK_FACTOR 4

static void on_post(uv_idle_t *h);

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
    /* libuv's uv_idle_init() cannot fail: it only links the handle. */
    uv_idle_init(loop, &p->post);
    p->post.data = p;
    return 0;
}

static void batch_free(struct cairn_batch *b)
{
    free(b->in);
    cairn_lines_free(&b->lines);
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
    uv_close((uv_handle_t *)&p->post, NULL);
    uv_run(p->loop, UV_RUN_NOWAIT);
}

void cairn_pool_set_max_running(struct cairn_pool *p, size_t n)
{
    p->max_running = n;
}

/* ---- batches ------------------------------------------------------------ */

/* Makes b ready for a stream: empty, tally sized for its registry. */
static int batch_ready(struct cairn_batch *b, struct cairn_pool_user *u)
{
    size_t want = b->pool->batch_bytes;
    size_t n_plugins = u->ctx->reg->n_plugins;

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
    b->user = u;
    b->in_len = 0;
    b->lines.n = 0;
    b->lines.notes_len = 0;
    b->out.len = 0;
    b->failed = 0;
    b->next = NULL;
    return 0;
}

struct cairn_batch *cairn_pool_take(struct cairn_pool *p, struct cairn_pool_user *u, int *err)
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
    if (batch_ready(b, u) != 0) {
        b->next = p->free;
        p->free = b;
        *err = -ENOMEM;
        return NULL;
    }
    return b;
}

void cairn_pool_post(struct cairn_pool *p, struct cairn_pool_user *u)
{
    if (u->posted)
        return;
    u->posted = 1;
    u->post_next = NULL;
    if (p->posted_tail != NULL)
        p->posted_tail->post_next = u;
    else
        p->posted_head = u;
    p->posted_tail = u;
    uv_idle_start(&p->post, on_post);
}

/* The next loop turn: every stream posted before it began.  Those posted
 * meanwhile wait for the turn after, so a stream cannot keep the loop
 * here. */
static void on_post(uv_idle_t *h)
{
    struct cairn_pool *p = h->data;
    struct cairn_pool_user *u = p->posted_head;

    p->posted_head = p->posted_tail = NULL;
    uv_idle_stop(&p->post);
    while (u != NULL) {
        struct cairn_pool_user *next = u->post_next;

        u->posted = 0;
        u->on_posted(u);
        u = next;
    }
}

void cairn_pool_put(struct cairn_pool *p, struct cairn_batch *b)
{
    struct cairn_pool_user *w = p->waiters_head;

    if (w != NULL) {
        p->waiters_head = w->wait_next;
        if (p->waiters_head == NULL)
            p->waiters_tail = NULL;
        w->waiting = 0;
        if (batch_ready(b, w) == 0) {
            w->given = b;
            cairn_pool_post(p, w);
            return;
        }
        w->on_refused(w, -ENOMEM);
        cairn_pool_post(p, w); /* its end may be due now */
    }
    b->user = NULL;
    b->next = p->free;
    p->free = b;
}

void cairn_pool_wait(struct cairn_pool *p, struct cairn_pool_user *u)
{
    u->waiting = 1;
    u->wait_next = NULL;
    if (p->waiters_tail != NULL)
        p->waiters_tail->wait_next = u;
    else
        p->waiters_head = u;
    p->waiters_tail = u;
}

/* ---- workers ------------------------------------------------------------ */

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

/* On a worker: answers each line of in into out, as batch or as
 * cairn_pool_solve_here.  0, or the negative errno that stopped it. */
static int answer(const struct cairn_pool_user *u, struct cairn_scratch *sc, const char *in,
                  const struct cairn_lines *lines, struct cairn_buf *out, struct cairn_tally *tally)
{
    size_t i, note_at = 0;

    for (i = 0; i < lines->n; i++) {
        const struct cairn_line *l = &lines->v[i];
        int rc;

        if (l->len == CAIRN_LINE_TOO_LONG) {
            char msg[128];
            size_t nn;
            const char *note = cairn_lines_note(lines, &note_at, &nn);

            snprintf(msg, sizeof(msg), "line is %zu bytes, over max_line_bytes (%zu)", l->off,
                     u->max_line_bytes);
            rc = cairn_record_error_noted(u->ctx, l->no, CAIRN_CODE_TOO_LARGE, msg, note, nn, out,
                                          tally);
        } else {
            rc = cairn_record_process(u->ctx, sc, l->no, in + l->off, l->len, out, tally);
        }
        if (rc != 0)
            return rc;
    }
    return 0;
}

static void work_cb(uv_work_t *req)
{
    struct cairn_batch *b = req->data;
    struct cairn_scratch *sc = scratch_take(b->pool);
    uint64_t t0 = uv_hrtime();

    if (sc == NULL) {
        b->failed = -ENOMEM;
        return;
    }
    b->failed = answer(b->user, sc, b->in, &b->lines, &b->out, &b->tally);
    /* Two clock reads a batch, not a record: the estimate batchsize.c
     * cuts batches by. */
    b->ns = uv_hrtime() - t0;
    scratch_give(b->pool, sc);
}

/* A solving slot, if one is free (max_running counts every batch on a
 * worker and every cairn_pool_solve_here). */
static int slot_take(struct cairn_pool *p)
{
    size_t n = atomic_load(&p->running);

    do
        if (p->max_running != 0 && n >= p->max_running)
            return 0;
    while (!atomic_compare_exchange_weak(&p->running, &n, n + 1));
    return 1;
}

static void start_ready(struct cairn_pool *p);

int cairn_pool_solve_here(struct cairn_pool *p, const struct cairn_pool_user *u, const char *in,
                          size_t len, struct cairn_buf *out, struct cairn_tally *tally)
{
    struct cairn_linecut cut = { .max_line_bytes = u->max_line_bytes };
    struct cairn_batchsize young;
    struct cairn_lines lines = { 0 };
    struct cairn_scratch *sc;
    size_t cut_len = len;
    int rc;

    /* What a young stream's first batch would hold (batchsize.h): one
     * line, and no line too long to be held whole. */
    if (len > u->max_line_bytes)
        return 0;
    cairn_batchsize_init(&young);
    rc = cairn_linecut_cut(&cut, in, &cut_len, 0, &young, &lines);
    if (rc == CAIRN_LINECUT_FULL && cut.line_start < cut_len)
        rc = 1; /* more than one batch: the stream's */
    else if (rc >= 0)
        rc = cairn_linecut_end(&cut, in, cut_len, &lines);
    if (rc == 0 && cut_len != len)
        rc = 1;
    if (rc == 0 && !slot_take(p))
        rc = 1;
    if (rc != 0) {
        /* Out of memory cutting: the stream meets it too, and says so. */
        cairn_lines_free(&lines);
        return 0;
    }
    sc = scratch_take(p);
    rc = sc == NULL ? -ENOMEM : answer(u, sc, in, &lines, out, tally);
    if (sc != NULL)
        scratch_give(p, sc);
    cairn_lines_free(&lines);
    /* Free for another solve at once, here or on a worker; the batches
     * queued meanwhile are started by cairn_pool_solved_here. */
    atomic_fetch_sub(&p->running, 1);
    return rc == 0 ? 1 : rc;
}

void cairn_pool_solved_here(struct cairn_pool *p)
{
    start_ready(p);
}

static void after_work_cb(uv_work_t *req, int status);

/* b to a worker, on a slot already taken: 0, or the libuv error (the
 * slot given back, b not queued). */
static int start(struct cairn_pool *p, struct cairn_batch *b)
{
    int err;

    b->work.data = b;
    err = uv_queue_work(p->loop, &b->work, work_cb, after_work_cb);
    if (err != 0)
        atomic_fetch_sub(&p->running, 1);
    return err;
}

int cairn_pool_run(struct cairn_pool *p, struct cairn_batch *b)
{
    if (!slot_take(p)) {
        b->next = NULL;
        if (p->ready_tail != NULL)
            p->ready_tail->next = b;
        else
            p->ready_head = b;
        p->ready_tail = b;
        return 0;
    }
    return start(p, b);
}

/* On the loop: the batches waiting, on every slot free now (solves at
 * jobs' starts give theirs back on their own threads, so more than one
 * may be). */
static void start_ready(struct cairn_pool *p)
{
    while (p->ready_head != NULL && slot_take(p)) {
        struct cairn_batch *next = p->ready_head;

        p->ready_head = next->next;
        if (p->ready_head == NULL)
            p->ready_tail = NULL;
        if ((next->failed = start(p, next)) != 0)
            next->user->on_batch_done(next->user, next);
    }
}

/* On the loop: a batch's slot is free again, for the first waiting. */
static void slot_give(struct cairn_pool *p)
{
    atomic_fetch_sub(&p->running, 1);
    start_ready(p);
}

static void after_work_cb(uv_work_t *req, int status)
{
    struct cairn_batch *b = req->data;

    slot_give(b->pool);
    if (status != 0 && b->failed == 0)
        b->failed = status;
    b->user->on_batch_done(b->user, b);
}
