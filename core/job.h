/*
 * job.h - one claimed job file, from the spool to its results and summary.
 *
 * A job is given an environment (cairn_job_env) and reports back through
 * two callbacks; it knows nothing of the daemon that runs it.  Its life:
 *
 *   on a pool thread: claim INPUT/NAME.jsonl into active/ (one rename;
 *     as NAME~N when the name was used before, or as the name it ran as
 *     before a hand-back: reuse.h), open it (never following a link,
 *     never blocking on a FIFO), lock it, note what it was submitted as
 *     when renamed, count the attempt, create the results temporary
 *   through the engine: the loop cuts lines and hands batches out; the
 *     file is read, the records answered and the results written to the
 *     temporary on pool threads (filesink.h); on_batch on the loop as
 *     each batch's results are handed to be written, in input order
 *   on a pool thread: stage the summary, make both durable, rename the
 *     results to NAME.results.jsonl and then the summary to
 *     NAME.summary.json, make the directory durable, move the input to
 *     done/ (or delete it); the syncs go through the spool's group commit
 *     (commit.h), shared with the jobs finishing alongside
 *   on the loop: on_end, once, with the outcome (outcome.h)
 *
 * A job that cannot be read at all, is not a regular file, or reached
 * max_attempts goes to failed/ with NAME.reason.json and a "failed"
 * summary (outcome.h).  A job whose outputs cannot be written is handed
 * back to the input directory untouched, to be tried again (on a pool
 * thread too; on_end follows on the loop).  The loop itself touches no
 * job file.
 */
#ifndef CAIRN_JOB_H
#define CAIRN_JOB_H

#include <stdint.h>
#include <time.h>
#include <uv.h>

#include "config.h"
#include "engine.h"
#include "log.h"
#include "outcome.h"
#include "plugin_set.h"
#include "spool.h"

struct cairn_job;

struct cairn_job_env {
    uv_loop_t *loop;
    struct cairn_pool *pool;
    /* Borrowed for the job's life.  Its state-folder descriptors are only
     * ever swapped in place (dup2), never closed, while jobs run; out_fd
     * may be replaced (the output path followed), so a job dups it at
     * start and keeps its own. */
    const struct cairn_spool *spool;
    /* Read when the job starts: the job keeps what it needs, so a reload
     * never changes a job in flight. */
    const struct cairn_config *cfg;
    /* The job takes its own reference. */
    struct cairn_plugin_set *plugins;
    const struct cairn_log *log;
    /* Watches the job's plugin calls (hang.h); NULL: none. */
    struct cairn_hang *hang;
    /* Loop thread, after each batch of results is written: its counts,
     * indexed by reg (the job's plugin set). */
    void (*on_batch)(void *data, const struct cairn_registry *reg, const struct cairn_tally *batch);
    /* Loop thread, exactly once: how the job ended.  job is valid during
     * the call only (cairn_job_info), and freed right after. */
    void (*on_end)(void *data, struct cairn_job *job, enum cairn_job_outcome outcome);
    void *data;
};

/*
 * NAME     cairn_job_start - run INPUT/name (or, recovered, active/name)
 * ARGUMENTS *job_out: the job, for cairn_job_info and cairn_job_abandon
 *          until on_end
 * RETURNS  0: the job ends through env->on_end, later, on the loop; or a
 *          negative errno (-ENOMEM): nothing was done, nothing claimed,
 *          and on_end is never called
 */
int cairn_job_start(const struct cairn_job_env *env, const char *name, int recovered,
                    struct cairn_job **job_out);

/* What a running or ending job can tell about itself. */
struct cairn_job_info {
    const char *name; /* NAME.jsonl */
    uint64_t size;    /* of the input, when opened (0 before) */
    uint64_t bytes_read;
    uint64_t records;        /* answered so far */
    double wall_seconds;     /* when ended */
    const char *reason;      /* why it failed or was handed back, or NULL */
    struct timespec started; /* wall clock */
    const char *back_as;     /* handed back to the input directory as this
                                (the name it was dropped as, or else the
                                one it ran as), or NULL */
};
void cairn_job_info(const struct cairn_job *job, struct cairn_job_info *info);

/* The run ends before the job does (a shutdown past its deadline, or a
 * hung plugin call): remove this job's temporary files and leave its input
 * in active/ for the next start, its run counted as an attempt (counted:
 * the job is why) or not.  The job is not freed: workers may still hold
 * its batches. */
void cairn_job_abandon(struct cairn_job *job, int counted);

/* 1 when owner (a hang report's, hang.h) is this job's record context. */
int cairn_job_owns(const struct cairn_job *job, const void *owner);

#endif /* CAIRN_JOB_H */
