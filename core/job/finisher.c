/*
 * finisher.c - items published together, one pool work item at a time
 * (see finisher.h).
 */
#include "finisher.h"

static void kick(struct cairn_finisher *f);

static void publish_work(uv_work_t *req)
{
    struct cairn_finisher *f = req->data;

    f->publish(f->batch, f->n_batch);
    cairn_inflight_leave(f->file_work);
}

/* Each item is told in the order it became ready; a job told may end, be
 * freed, and start others that add themselves here: they wait for the
 * next work item, kicked once every item of this one was told. */
static void after_publish(uv_work_t *req, int status)
{
    struct cairn_finisher *f = req->data;
    size_t i, n = f->n_batch;

    (void)status; /* nothing cancels it */
    f->n_batch = 0;
    for (i = 0; i < n; i++)
        f->published(f->batch[i]);
    f->busy = 0;
    kick(f);
}

static void kick(struct cairn_finisher *f)
{
    if (f->busy || f->first == NULL)
        return;
    while (f->first != NULL && f->n_batch < CAIRN_FINISH_BATCH) {
        f->batch[f->n_batch++] = f->first;
        f->first = f->first->next;
    }
    if (f->first == NULL)
        f->last = NULL;
    f->busy = 1;
    f->work.data = f;
    cairn_inflight_enter(f->file_work);
    /* Fails only for a NULL work callback. */
    (void)uv_queue_work(f->loop, &f->work, publish_work, after_publish);
}

void cairn_finisher_init(struct cairn_finisher *f, uv_loop_t *loop,
                         struct cairn_inflight *file_work,
                         void (*publish)(struct cairn_finisher_link **items, size_t n),
                         void (*published)(struct cairn_finisher_link *item))
{
    *f = (struct cairn_finisher){
        .loop = loop, .file_work = file_work, .publish = publish, .published = published
    };
}

void cairn_finisher_add(struct cairn_finisher *f, struct cairn_finisher_link *item)
{
    item->next = NULL;
    if (f->last != NULL)
        f->last->next = item;
    else
        f->first = item;
    f->last = item;
    kick(f);
}
