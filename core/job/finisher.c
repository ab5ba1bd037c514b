/*
 * finisher.c - items published together, in turns of one pool work item
 * (see finisher.h).
 */
#include "finisher.h"

static void append(struct cairn_finisher_queue *q, struct cairn_finisher_link *item)
{
    item->next = NULL;
    if (q->last != NULL)
        q->last->next = item;
    else
        q->first = item;
    q->last = item;
}

/* Takes up to CAIRN_FINISH_BATCH from the front of q into items. */
static size_t take(struct cairn_finisher_queue *q, struct cairn_finisher_link **items)
{
    size_t n = 0;

    while (q->first != NULL && n < CAIRN_FINISH_BATCH) {
        items[n++] = q->first;
        q->first = q->first->next;
    }
    if (q->first == NULL)
        q->last = NULL;
    return n;
}

/* Turns until nobody waits, the lock held on entry and on return; each
 * turn's items go to done, and the loop is woken to tell them while the
 * next turn runs. */
static void turns(struct cairn_finisher *f)
{
    struct cairn_finisher_link *items[CAIRN_FINISH_BATCH];
    size_t i, n;

    while ((n = take(&f->ready, items)) > 0) {
        uv_mutex_unlock(&f->lock);
        f->publish(items, n);
        uv_mutex_lock(&f->lock);
        for (i = 0; i < n; i++)
            append(&f->done, items[i]);
        uv_async_send(&f->told);
    }
}

static void publish_work(uv_work_t *req)
{
    struct cairn_finisher *f = req->data;

    uv_mutex_lock(&f->lock);
    turns(f);
    uv_mutex_unlock(&f->lock);
    cairn_inflight_leave(f->file_work);
}

/* Each item is told in the order it was published; a job told may end,
 * be freed, and start others that add themselves here. */
static void tell(struct cairn_finisher *f)
{
    struct cairn_finisher_link *item, *next;

    uv_mutex_lock(&f->lock);
    item = f->done.first;
    f->done.first = f->done.last = NULL;
    uv_mutex_unlock(&f->lock);
    for (; item != NULL; item = next) {
        next = item->next;
        f->published(item);
    }
}

static void after_publish(uv_work_t *req, int status);

static void on_told(uv_async_t *h)
{
    tell(h->data);
}

/* Queues work[i], marked running by the caller under the lock. */
static void start(struct cairn_finisher *f, unsigned i)
{
    cairn_inflight_enter(f->file_work);
    /* Fails only for a NULL work callback. */
    (void)uv_queue_work(f->loop, &f->work[i], publish_work, after_publish);
}

/* Under the lock: a work item not in flight, marked running, to start
 * for the jobs waiting; CAIRN_FINISH_ITEMS for none (nobody waits, or
 * every item is in flight). */
static unsigned to_start(struct cairn_finisher *f)
{
    unsigned i;

    if (f->ready.first == NULL)
        return CAIRN_FINISH_ITEMS;
    for (i = 0; i < CAIRN_FINISH_ITEMS && (f->running & (1u << i)); i++)
        ;
    if (i < CAIRN_FINISH_ITEMS)
        f->running |= 1u << i;
    return i;
}

/* The item's last turn may have been sent after the loop last looked:
 * told here at the latest.  The item stays "running" until here, where
 * its request is free for the next: items added after its last look at
 * the queue start that next one. */
static void after_publish(uv_work_t *req, int status)
{
    struct cairn_finisher *f = req->data;
    unsigned i;

    (void)status; /* nothing cancels it */
    tell(f);
    uv_mutex_lock(&f->lock);
    f->running &= ~(1u << (unsigned)(req - f->work));
    i = to_start(f);
    uv_mutex_unlock(&f->lock);
    if (i < CAIRN_FINISH_ITEMS)
        start(f, i);
}

int cairn_finisher_init(struct cairn_finisher *f, uv_loop_t *loop, struct cairn_inflight *file_work,
                        void (*publish)(struct cairn_finisher_link **items, size_t n),
                        void (*published)(struct cairn_finisher_link *item))
{
    unsigned i;
    int rc;

    *f = (struct cairn_finisher){
        .loop = loop, .file_work = file_work, .publish = publish, .published = published
    };
    if ((rc = uv_mutex_init(&f->lock)) != 0)
        return rc;
    if ((rc = uv_mutex_init(&f->one_at_a_time)) != 0) {
        uv_mutex_destroy(&f->lock);
        return rc;
    }
    if ((rc = uv_async_init(loop, &f->told, on_told)) != 0) {
        uv_mutex_destroy(&f->one_at_a_time);
        uv_mutex_destroy(&f->lock);
        return rc;
    }
    f->told.data = f;
    /* Only a work item in flight keeps the loop alive. */
    uv_unref((uv_handle_t *)&f->told);
    for (i = 0; i < CAIRN_FINISH_ITEMS; i++)
        f->work[i].data = f;
    return 0;
}

/* Under the lock: item queued, and the work item to run for it, marked
 * running (CAIRN_FINISH_ITEMS for none): a first for a job alone; a
 * second once jobs wait while one turns (it took those it found, and
 * these came after). */
static unsigned queue(struct cairn_finisher *f, struct cairn_finisher_link *item)
{
    append(&f->ready, item);
    return f->running == 0 || f->ready.first != item ? to_start(f) : CAIRN_FINISH_ITEMS;
}

void cairn_finisher_add(struct cairn_finisher *f, struct cairn_finisher_link *item)
{
    unsigned i;

    uv_mutex_lock(&f->lock);
    i = queue(f, item);
    uv_mutex_unlock(&f->lock);
    if (i < CAIRN_FINISH_ITEMS)
        start(f, i);
}

void cairn_finisher_add_here(struct cairn_finisher *f, struct cairn_finisher_link *item)
{
    unsigned i;

    uv_mutex_lock(&f->lock);
    /* The turns run on this thread, in work[i]'s place: the bit keeps the
     * loop from starting that item meanwhile, and goes in the same hold
     * of the lock as the turn that found nobody waiting, so an item added
     * after it finds the bit clear (or another item in flight, whose end
     * looks again). */
    i = queue(f, item);
    if (i < CAIRN_FINISH_ITEMS) {
        turns(f);
        f->running &= ~(1u << i);
    }
    uv_mutex_unlock(&f->lock);
}

void cairn_finisher_one_at_a_time(struct cairn_finisher *f)
{
    uv_mutex_lock(&f->one_at_a_time);
}

void cairn_finisher_one_at_a_time_end(struct cairn_finisher *f)
{
    uv_mutex_unlock(&f->one_at_a_time);
}

void cairn_finisher_close(struct cairn_finisher *f)
{
    if (!uv_is_closing((uv_handle_t *)&f->told))
        uv_close((uv_handle_t *)&f->told, NULL);
}

void cairn_finisher_free(struct cairn_finisher *f)
{
    uv_mutex_destroy(&f->one_at_a_time);
    uv_mutex_destroy(&f->lock);
}
