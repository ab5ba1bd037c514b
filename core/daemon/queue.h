/*
 * queue.h - the names waiting to be claimed, oldest first.  Whether a
 * name may be queued at all (not queued or running already, not backing
 * off) is the dispatcher's name table's to say (daemon_dispatch.c).
 *
 * Loop thread only.
 */
#ifndef CAIRN_QUEUE_H
#define CAIRN_QUEUE_H

#include <stddef.h>

/* A name waiting to be claimed. */
struct cairn_pending {
    struct cairn_pending *next;
    int recovered; /* already in active/ (left by a crash): no claim */
    char name[];
};

/* Zero-initialise. */
struct cairn_queue {
    struct cairn_pending *head;
    struct cairn_pending *tail;
    size_t n; /* pending entries */
};

/* Queues name last: 0, or -ENOMEM (nothing queued). */
int cairn_queue_push(struct cairn_queue *q, const char *name, int recovered);

/* The oldest entry, unlinked (free() it), or NULL. */
struct cairn_pending *cairn_queue_pop(struct cairn_queue *q);

#endif /* CAIRN_QUEUE_H */
