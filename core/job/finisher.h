/*
 * finisher.h - the end of many jobs published together.
 *
 * When jobs arrive in a burst they also finish in one: each finishing
 * alone on its own pool thread made one group-commit round for every few
 * jobs (as many as there were threads to wait in it), two flock(2)s of
 * the output directory each, and a thread hand-off each.  The finisher
 * keeps at most one pool work item in flight, and that item publishes
 * in turns: each turn takes every job waiting (up to CAIRN_FINISH_BATCH),
 * so the fsyncs of the whole lot share one round (cairn_commit_sync_each)
 * and the output directory is locked once for all their renames.  Jobs
 * that became ready during a turn go in the next one, on the same thread:
 * they do not queue behind other work on the pool, nor wait while the
 * loop tells the jobs of the turn before (one turn's jobs are told on the
 * loop while the next turn is published).  The item ends when a turn
 * finds nobody waiting.  A job that finishes alone is published at once:
 * no timer, no waiting for company.
 *
 * Loop thread only, but for the work item itself.
 */
#ifndef CAIRN_FINISHER_H
#define CAIRN_FINISHER_H

#include <stddef.h>
#include <uv.h>

#include "inflight.h"

/* What the finisher knows of an item: its place in the queue.  The job
 * embeds it (job.c makes the finisher's callbacks). */
struct cairn_finisher_link {
    struct cairn_finisher_link *next;
};

/* The most items one turn publishes.  The output directory stays locked
 * (flock) while their renames run, and other daemons sharing it wait a
 * second at most (job_files.c): 64 jobs' renames take a few milliseconds
 * on a local disk. */
#define CAIRN_FINISH_BATCH 64

/* A queue of links, oldest first. */
struct cairn_finisher_queue {
    struct cairn_finisher_link *first, *last;
};

struct cairn_finisher {
    uv_loop_t *loop;
    struct cairn_inflight *file_work; /* counts the work item; may be NULL */
    /* Pool thread: publishes items[0..n).  Loop thread: an item done. */
    void (*publish)(struct cairn_finisher_link **items, size_t n);
    void (*published)(struct cairn_finisher_link *item);
    uv_mutex_t lock;                   /* guards the three below */
    struct cairn_finisher_queue ready; /* waiting for a turn */
    struct cairn_finisher_queue done;  /* published, to be told */
    int running;                       /* the work item is in flight */
    uv_async_t told;                   /* the loop: some are done */
    uv_work_t work;
};

/* 0, or a negative errno (no mutex, or the async handle). */
int cairn_finisher_init(struct cairn_finisher *f, uv_loop_t *loop,
                        struct cairn_inflight *file_work,
                        void (*publish)(struct cairn_finisher_link **items, size_t n),
                        void (*published)(struct cairn_finisher_link *item));

/* Publishes item with whatever else is waiting (at once when nothing is
 * in flight); published(item) follows on the loop. */
void cairn_finisher_add(struct cairn_finisher *f, struct cairn_finisher_link *item);

/* Closes the loop handle (with the loop's others, at shutdown): nothing
 * may be added after.  The lock goes with cairn_finisher_free, once the
 * loop has run the close. */
void cairn_finisher_close(struct cairn_finisher *f);
void cairn_finisher_free(struct cairn_finisher *f);

#endif /* CAIRN_FINISHER_H */
