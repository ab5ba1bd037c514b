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
    struct cairn_pending *p = malloc(sizeof(*p) + n + 1);

    if (p == NULL)
        return -ENOMEM;
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
