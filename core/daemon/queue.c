/*
 * queue.c - pending names, oldest first (queue.h).
 */
#include "queue.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

int cairn_queue_push(struct cairn_queue *q, const char *name, int recovered)
{
    size_t n = strlen(name);
    struct cairn_pending *p;
    int rc;

    if (cairn_nameset_has(&q->taken, name))
        return 1;
    p = malloc(sizeof(*p) + n + 1);
    if (p == NULL)
        return -ENOMEM;
    if ((rc = cairn_nameset_add(&q->taken, name)) < 0) {
        free(p);
        return rc;
    }
    memcpy(p->name, name, n + 1);
    p->recovered = recovered;
    p->next = NULL;
    if (q->tail != NULL)
        q->tail->next = p;
    else
        q->head = p;
    q->tail = p;
    q->n++;
    return 0;
}

struct cairn_pending *cairn_queue_pop(struct cairn_queue *q)
{
    struct cairn_pending *p = q->head;

    if (p == NULL)
        return NULL;
    q->head = p->next;
    if (q->head == NULL)
        q->tail = NULL;
    q->n--;
    p->next = NULL;
    return p;
}

void cairn_queue_release(struct cairn_queue *q, const char *name)
{
    cairn_nameset_remove(&q->taken, name);
}

int cairn_queue_has(const struct cairn_queue *q, const char *name)
{
    return cairn_nameset_has(&q->taken, name);
}

void cairn_queue_drop(struct cairn_queue *q)
{
    struct cairn_pending *p;

    while ((p = cairn_queue_pop(q)) != NULL) {
        cairn_nameset_remove(&q->taken, p->name);
        free(p);
    }
}

void cairn_queue_free(struct cairn_queue *q)
{
    cairn_queue_drop(q);
    cairn_nameset_free(&q->taken);
}
