/*
 * job.h - one claimed job file, from the spool to its results and summary.
 *
 * A job is given an environment (cairn_job_env) and reports back through
 * two callbacks; it knows nothing of the daemon that runs it.  Its life:
 *
 *   on a pool thread: claim INPUT/NAME.jsonl into active/ (one rename;
 *     as NAME~N when the name was used before, or as the name it ran as
 *     before a hand-back: claim.h), open it (never following a link,
 *     never blocking on a FIFO), lock it, note what it was submitted as
 *     when renamed, count the attempt, create the results temporary;
 *     a job of one record, read whole there, is answered there too when
 *     a solving slot is free (pool.h's cairn_pool_solve_here), and goes
 *     straight to its finish
 *   through the engine: the loop cuts lines and hands batches out; the
 *     file is read, the records answered and the results written to the
 *     temporary on pool threads (filesink.h); on_batch on the loop as
 *     each batch's results are handed to be written, in input order
 *   on a pool thread, with the jobs finishing alongside (finisher.h):
 *     write a small last batch kept for this moment (filesink.h), stage
 *     the summary, make both durable, rename the results to
 *     NAME.results.jsonl and then the summary to NAME.summary.json, make
 *     the directory durable, move the input to done/ (or delete it); each
 *     step is done for all those jobs before the next, and their syncs
 *     share one round of the spool's group commit (commit.h)
 *   on the loop: on_end, once, with the outcome (outcome.h)
 *
 * A job that cannot be read at all, is not a regular file, or reached
 * max_attempts goes to failed/ with NAME.reason.json and a "failed"
 * summary (outcome.h).  A job that must be tried again (its outputs
 * cannot be written, memory ran out, the disk failed) is handed back to
 * the input directory untouched (on a pool thread too; on_end follows on
 * the loop).  The loop touches a job file only in two rare cases: memory
 * running out as it adopts a NAME~N claim (the file goes back at once,
 * claim.h), and cairn_job_abandon forgetting a crash count.
 */
#ifndef CAIRN_JOB_H
#define CAIRN_JOB_H

#include <stdint.h>
#include <time.h>
#include <uv.h>

#include "finisher.h"
#include "gate.h"
#include "inflight.h"
#include "job_env.h"
#include "outcome.h"

struct cairn_job;

/* The most descriptors one job holds at once, counted from job_files.c:
 * the job file (its lock rides on it), the results temporary and, at the
 * finish, the summary temporary (the output directory's is shared by the
 * jobs that began with it, spool.h).  What it opens for a moment (a crash
 * count or claim mark in active/, a failed job's reason) comes while one
 * of the temporaries is not yet or no longer open.  The daemon caps the
 * jobs it runs at once by this and the process's descriptor limit. */
#define CAIRN_JOB_DESCRIPTORS 3

/* The finisher every job of a daemon shares (job_env.h's finisher): the
 * jobs that end together are published together.  0 or a negative
 * errno; cairn_finisher_close and cairn_finisher_free end it. */
int cairn_job_finisher_init(struct cairn_finisher *f, uv_loop_t *loop,
                            struct cairn_inflight *file_work);

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
    int in_active;           /* ended to be tried again, but still in
                                active/: its hand-back could not rename it
                                out */
};
void cairn_job_info(const struct cairn_job *job, struct cairn_job_info *info);

/* The run ends before the job does (a shutdown past its deadline, or a
 * hung plugin call): remove this job's temporary files and leave its input
 * in active/ for the next start, its run counted as an attempt (why != NULL:
 * the job is why, and why says how, for the quarantine's reason) or not.
 * The job is not freed: workers may still hold its batches. */
void cairn_job_abandon(struct cairn_job *job, const char *why);

/* 1 when owner (a hang report's, hang.h) is this job's record context. */
int cairn_job_owns(const struct cairn_job *job, const void *owner);

#endif /* CAIRN_JOB_H */
