/*
 * queue.h - the names waiting to be claimed, oldest first, and the set of
 * every name the daemon has taken on (queued or running), so that no job
 * is queued or started twice whatever mix of inotify events and scans
 * reports it.
 *
 * Loop thread only.
 */
#ifndef CAIRN_QUEUE_H
#define CAIRN_QUEUE_H

#include <stddef.h>

#include "nameset.h"

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
    size_t n;                   /* pending entries */
    struct cairn_nameset taken; /* queued or running */
};

/*
 * NAME     cairn_queue_push - queue name unless it is already taken on
 * RETURNS  0 when queued, 1 when it was already queued or running,
 *          -ENOMEM (nothing queued: a later scan finds it again)
 */
int cairn_queue_push(struct cairn_queue *q, const char *name, int recovered);

/* The oldest entry, unlinked (free() it), or NULL.  Its name stays taken
 * until cairn_queue_release(): the job it starts is running. */
struct cairn_pending *cairn_queue_pop(struct cairn_queue *q);

/* name is neither queued nor running any more. */
void cairn_queue_release(struct cairn_queue *q, const char *name);

/* 1 when name is queued or running. */
int cairn_queue_has(const struct cairn_queue *q, const char *name);

/* Forgets every pending entry (their names are released); running names
 * stay taken. */
void cairn_queue_drop(struct cairn_queue *q);

/* cairn_queue_drop, and frees the set. */
void cairn_queue_free(struct cairn_queue *q);

#endif /* CAIRN_QUEUE_H */
