/*
 * job_state.h - what one job holds, shared by job.c (its life on the loop)
 * and job_files.c (its file work on pool threads).  Private to the two:
 * everyone else sees struct cairn_job through job.h only.  A job's fields
 * are written by one thread at a time: the loop, or the one pool thread
 * its work item runs on, the loop waiting for that item's end (cairn_job_
 * info reads name and counters, which the pool does not write).  While it
 * streams, workers read its record context and line limit (set before the
 * stream starts, constant after) and the read-ahead fills its own buffer
 * on the pool.
 */
#ifndef CAIRN_JOB_STATE_H
#define CAIRN_JOB_STATE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <uv.h>

#include "attempts.h"
#include "claim.h"
#include "engine.h"
#include "filesink.h"
#include "finisher.h"
#include "gate.h"
#include "job_env.h"
#include "plugin_set.h"
#include "source.h"
#include "tmpfile.h"
#include "util.h"

struct cairn_job {
    struct cairn_job_env env;
    struct cairn_claim claim; /* its names, decided by claim.c alone */
    int recreated;            /* state folders the finish recreated to move
                            its input (cairn_spool_repair's bits) */
    const char *back_as;      /* the claim's back_name, on the loop once handed back */
    int back_rc;              /* that hand-back's outcome: 0 when it is back */
    int recovered;            /* already in active/ (left by a crash): no claim */
    int took;                 /* this start's claim renamed it into active/ */
    int claimed;              /* in active/ and ours: a hand-back renames it out */
    int in_fd;
    struct cairn_outdir *out; /* the output directory, as it was when we began;
                            results and summary land there together */
    /* The owner of its temporaries there (tmpfile.h), or NULL: each
     * locks itself.  Lives as long as out. */
    struct cairn_tmpowner *tmp_owner;
    struct cairn_tmpfile res_tmp; /* the results, until published */
    /* Without an owner: the random bytes of its two temporaries' names,
     * results then summary, drawn in one getrandom(2) at the start (when
     * tmp_names_drawn), so the finish draws none.  An owner numbers
     * them instead. */
    unsigned char tmp_names[2 * CAIRN_TMPFILE_RANDOM];
    int tmp_names_drawn;
    uint64_t size;                          /* of the input when opened, for progress */
    ino_t ino;                              /* of the input, to tie the attempts count to it */
    unsigned attempts;                      /* earlier runs that never ended */
    char last_run[CAIRN_ATTEMPTS_NOTE_MAX]; /* what one of them said of itself, or "" */
    /* What the job keeps from its environment, whatever a reload brings. */
    struct cairn_plugin_set *plugins;
    struct cairn_record_ctx ctx;
    char *default_variant;
    int keep_inputs;
    uint64_t max_attempts;
    struct cairn_stream stream;
    struct cairn_fd_source src;
    struct cairn_readahead *first; /* its first piece, read by the start */
    /* A one-record job answered by its start, on the same pool thread
     * (cairn_pool_solve_here): 1, or the negative errno that stopped it;
     * 0 when it streams.  Its results and counts wait here for the loop. */
    int solved_here;
    struct cairn_buf here_out;
    struct cairn_tally here_tally;
    /* Its start went on to publish it (job.c's finish_here): its bytes
     * and wall time wait here for the loop, which may be told it is
     * published (told_early) before it sees its start end (start_seen;
     * both the loop's). */
    int finishing_here;
    size_t here_bytes;
    double here_wall;
    int start_seen;
    int told_early;
    uint64_t t0_ns;
    struct timespec started;
    struct cairn_filesink results; /* into res_tmp, from the pool */
    char *fail_reason;             /* set: the job itself is bad, it goes to failed/ */
    /* Work on pool threads: the start, or a hand-back (the finish goes
     * with others', finisher.h). */
    uv_work_t work;
    struct cairn_finisher_link finishing; /* in the finisher (finisher.h) */
    struct cairn_gate_link gated;         /* waiting to stream (gate.h) */
    int streaming;                        /* through the gate, not left */
    int start_rc;                         /* 0, or the negative errno that stopped the start */
    struct cairn_buf summary;
    struct cairn_buf reason;
    int finish_rc;
    const char *finish_step;
    double wall_seconds;
};

/* The blocking halves, each on a pool thread.  Start: claim, open and
 * lock, count, create the results temporary; start_rc says how it went
 * (0: ready to stream, or fail_reason set; -ENOENT/-EAGAIN: not ours;
 * -EEXIST: a job of that name is active; else hand it back). */
void cairn_job_start_files(struct cairn_job *job);
/* Finish, for the n jobs of a finisher item (finisher.h; n is at most
 * CAIRN_FINISH_BATCH): publish each one's outputs
 * and move its input, or with fail_reason set, its reason and a failed
 * summary; each one's finish_rc and finish_step say how it went. */
void cairn_job_finish_files_each(struct cairn_finisher_link **items, size_t n);

/* The job a gate's waiter is (its gated link). */
static inline struct cairn_job *cairn_job_of_gated(struct cairn_gate_link *l)
{
    return (struct cairn_job *)((char *)l - offsetof(struct cairn_job, gated));
}

/* The job a finisher item is (its finishing link). */
static inline struct cairn_job *cairn_job_of_finishing(struct cairn_finisher_link *item)
{
    return (struct cairn_job *)((char *)item - offsetof(struct cairn_job, finishing));
}
/* Hand-back: temporaries removed, the input back in the spool (back_rc
 * 0, back_name) or left in active/. */
void cairn_job_hand_back_files(struct cairn_job *job);

#endif /* CAIRN_JOB_STATE_H */
