/*
 * outcome.c - done, failed or retry (see outcome.h).
 */
#include "outcome.h"

#include <errno.h>

enum cairn_job_outcome cairn_job_outcome(int err, int job_at_fault)
{
    /* Any error of ours (ENOMEM included) outranks a verdict on the job:
     * a bad job whose summary could not be written is handed back, and
     * failed on the next try once the machine recovers. */
    if (err != 0)
        return CAIRN_JOB_RETRY;
    return job_at_fault ? CAIRN_JOB_FAILED : CAIRN_JOB_DONE;
}

int cairn_error_is_the_machines(int err)
{
    switch (-err) {
    case EIO:
    case ENOSPC:
    case EDQUOT:
    case EINTR:
    case EAGAIN:
    case ENOMEM:
    case EMFILE:
    case ENFILE:
    case ENOBUFS:
    case ESTALE:
    case ETIMEDOUT:
    case EBUSY:
    case ENOLCK: return 1;
    default: return 0;
    }
}
