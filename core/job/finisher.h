/*
 * finisher.h - the end of many jobs published together.
 *
 * When jobs arrive in a burst they also finish in one: each finishing
 * alone on its own pool thread made one group-commit round for every few
 * jobs (as many as there were threads to wait in it), two flock(2)s of
 * the output directory each, and a thread hand-off each.  A finisher work
 * item publishes in turns: each turn takes every job waiting (up to
 * CAIRN_FINISH_BATCH), so the fsyncs of the whole lot share one round
 * (cairn_commit_sync_each) and the output directory is locked once for
 * all their renames.  Jobs that became ready during a turn go in the
 * next one, on the same thread: they do not queue behind other work on
 * the pool, nor wait while the loop tells the jobs of the turn before
 * (one turn's jobs are told on the loop while the next turn runs).  The
 * item ends when a turn finds nobody waiting.  A job that finishes alone
 * is published at once: no timer, no waiting for company.
 *
 * A turn spends most of its time waiting for the disk (its sync rounds),
 * so a second work item runs beside the first once jobs wait while one
 * turns: its staging and renames go on while the other's sync is under
 * way, and the two share sync rounds (commit.h).  What the two must not
 * do at once (their renames under the output directory's lock) the
 * publisher does under cairn_finisher_one_at_a_time.
 *
 * Loop thread only, but for the work items themselves and
 * cairn_finisher_add_here.
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

/* Work items in flight at once (see the top). */
#define CAIRN_FINISH_ITEMS 2

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
    unsigned running;                  /* bits: work[i] is in flight */
    uv_async_t told;                   /* the loop: some are done */
    uv_mutex_t one_at_a_time;          /* cairn_finisher_one_at_a_time */
    uv_work_t work[CAIRN_FINISH_ITEMS];
};

/* 0, or a negative errno (no mutex, or the async handle). */
int cairn_finisher_init(struct cairn_finisher *f, uv_loop_t *loop, struct cairn_inflight *file_work,
                        void (*publish)(struct cairn_finisher_link **items, size_t n),
                        void (*published)(struct cairn_finisher_link *item));

/* Publishes item with whatever else is waiting (at once when nothing is
 * in flight); published(item) follows on the loop. */
void cairn_finisher_add(struct cairn_finisher *f, struct cairn_finisher_link *item);

/* The same from a pool thread (a job's start that answered it whole,
 * job.c): when no turn is under way that will take item, the turns run
 * here, on the caller's thread, before this returns.  The caller counts
 * its file work (inflight.h) around the call.  published(item) follows
 * on the loop, as for cairn_finisher_add. */
void cairn_finisher_add_here(struct cairn_finisher *f, struct cairn_finisher_link *item);

/* Pool thread, in publish: the steps of two turns that must not run at
 * the same time go between these. */
void cairn_finisher_one_at_a_time(struct cairn_finisher *f);
void cairn_finisher_one_at_a_time_end(struct cairn_finisher *f);

/* Closes the loop handle (with the loop's others, at shutdown): nothing
 * may be added after.  The lock goes with cairn_finisher_free, once the
 * loop has run the close. */
void cairn_finisher_close(struct cairn_finisher *f);
void cairn_finisher_free(struct cairn_finisher *f);

#endif /* CAIRN_FINISHER_H */
