/*
 * pool.c - batches, workers and the posted streams (pool.h).
 */
#include "pool.h"

#include <errno.h>
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

static void work_cb(uv_work_t *req)
{
    struct cairn_batch *b = req->data;
    const struct cairn_pool_user *u = b->user;
    struct cairn_scratch *sc = scratch_take(b->pool);
    uint64_t t0 = uv_hrtime();
    size_t i, note_at = 0;

    if (sc == NULL) {
        b->failed = -ENOMEM;
        return;
    }
    for (i = 0; i < b->lines.n; i++) {
        const struct cairn_line *l = &b->lines.v[i];
        int rc;

        if (l->len == CAIRN_LINE_TOO_LONG) {
            char msg[128];
            size_t nn;
            const char *note = cairn_lines_note(&b->lines, &note_at, &nn);

            snprintf(msg, sizeof(msg), "line is %zu bytes, over max_line_bytes (%zu)", l->off,
                     u->max_line_bytes);
            rc = cairn_record_error_noted(u->ctx, l->no, CAIRN_CODE_TOO_LARGE, msg, note, nn,
                                          &b->out, &b->tally);
        } else {
            rc =
                cairn_record_process(u->ctx, sc, l->no, b->in + l->off, l->len, &b->out, &b->tally);
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

static void after_work_cb(uv_work_t *req, int status);

int cairn_pool_run(struct cairn_pool *p, struct cairn_batch *b)
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
    struct cairn_pool *p = b->pool;

    p->running--;
    while (p->ready_head != NULL) {
        struct cairn_batch *next = p->ready_head;
        int err;

        p->ready_head = next->next;
        if (p->ready_head == NULL)
            p->ready_tail = NULL;
        if ((err = cairn_pool_run(p, next)) == 0)
            break;
        next->failed = err;
        next->user->on_batch_done(next->user, next);
    }
    if (status != 0 && b->failed == 0)
        b->failed = status;
    b->user->on_batch_done(b->user, b);
}
