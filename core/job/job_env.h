/*
 * job_env.h - what a job is given by whoever runs it (the daemon): the
 * loop, the pool, the spool, the configuration, the plugin set, the log,
 * and the two callbacks it reports through.  Its own header so that the
 * job's two halves (job.c, job_files.c) share it without one including
 * the other's interface.
 */
#ifndef CAIRN_JOB_ENV_H
#define CAIRN_JOB_ENV_H

#include <uv.h>

#include "config.h"
#include "engine.h"
#include "inflight.h"
#include "log.h"
#include "outcome.h"
#include "plugin_set.h"
#include "spool.h"

struct cairn_job;
struct cairn_hang;
struct cairn_finisher;
struct cairn_gate;

struct cairn_job_env {
    uv_loop_t *loop;
    struct cairn_pool *pool;
    /* Counts the job's file work on the pool (inflight.h); may be NULL. */
    struct cairn_inflight *file_work;
    /* Publishes the job at its end, with the others ending alongside
     * (finisher.h); shared by every job of the daemon. */
    struct cairn_finisher *finisher;
    /* Lets so many jobs stream at once (gate.h); NULL: any number. */
    struct cairn_gate *streams;
    /* Borrowed for the job's life.  Its state-folder descriptors are only
     * ever swapped in place (dup2), never closed, while jobs run; its
     * output directory may be replaced (the output path followed), so a
     * job holds a reference to the one it began with (spool.h). */
    const struct cairn_spool *spool;
    /* Read when the job starts: the job keeps what it needs, so a reload
     * never changes a job in flight. */
    const struct cairn_config *cfg;
    /* The job takes its own reference. */
    struct cairn_plugin_set *plugins;
    const struct cairn_log *log;
    /* Watches the job's plugin calls (hang.h); NULL: none. */
    struct cairn_hang *hang;
    /* The process's, for its summaries (a system call a job less). */
    long pid;
    /* Loop thread, after each batch of results is written: its counts,
     * indexed by reg (the job's plugin set).  Required, like on_end. */
    void (*on_batch)(void *data, const struct cairn_registry *reg, const struct cairn_tally *batch);
    /* Loop thread, exactly once: how the job ended.  job is valid during
     * the call only (cairn_job_info), and freed right after. */
    void (*on_end)(void *data, struct cairn_job *job, enum cairn_job_outcome outcome);
    void *data;
};

#endif /* CAIRN_JOB_ENV_H */
