/*
 * outcome.h - the one policy that sorts a job's end into done, failed or
 * "try again later".
 *
 * A job is failed (moved to .cairn/failed/ with a reason) only for what it
 * is: not a regular file, unreadable, crashing the daemon max_attempts
 * times.  Everything that is the daemon's or the machine's condition (out
 * of memory, a full disk, an output directory gone) hands the job back to
 * the spool to be tried again after a back-off: nothing is lost, and no
 * job is quarantined for the machine's trouble.
 */
#ifndef CAIRN_OUTCOME_H
#define CAIRN_OUTCOME_H

enum cairn_job_outcome {
    CAIRN_JOB_DONE,   /* outputs published, input to done/ (or deleted) */
    CAIRN_JOB_FAILED, /* the job itself is bad: failed/ with a reason */
    CAIRN_JOB_RETRY,  /* handed back to the spool, tried again later */
    /* Ends that are no outcome of ours: */
    CAIRN_JOB_GONE, /* vanished before the claim, or another daemon's */
    CAIRN_JOB_BUSY  /* a job of the same name is still active here */
};

/*
 * NAME     cairn_job_outcome - sort a job's end
 * ARGUMENTS err: 0, or the negative errno of the step that failed;
 *          job_at_fault: nonzero when the job itself was found bad
 */
enum cairn_job_outcome cairn_job_outcome(int err, int job_at_fault);

/*
 * NAME     cairn_error_is_the_machines - is this error the machine's
 *          condition, not the job file's?
 * ARGUMENTS err: a negative errno from opening or reading a job's file
 * RETURNS  1 for what another try may not meet (an I/O error, a full
 *          disk, an interrupted call, no memory, no descriptor, a stale
 *          handle, a lock or a device busy): the job is handed back; 0 for
 *          what the file is (no permission, a loop, not a regular file):
 *          the job is failed with the reason
 */
int cairn_error_is_the_machines(int err);

#endif /* CAIRN_OUTCOME_H */
