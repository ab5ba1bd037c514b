/*
 * fdbudget.h - how many jobs at once the process's descriptor limit
 * (RLIMIT_NOFILE) leaves room for, after what is open already and what
 * the rest of the daemon may open beside its jobs.
 *
 * A job that runs out of descriptors all the same (a reload brought more
 * plugins, something else holds more) is handed back and tried again
 * (job.h): the cap keeps that the exception, not what a burst of jobs
 * meets every time.
 */
#ifndef CAIRN_FDBUDGET_H
#define CAIRN_FDBUDGET_H

#include <stddef.h>

struct cairn_fd_budget {
    unsigned long long limit; /* the soft RLIMIT_NOFILE */
    size_t open;              /* descriptors open when counted */
    size_t reserve;           /* kept for the rest of the daemon */
    size_t per_job;           /* CAIRN_JOB_DESCRIPTORS */
    size_t jobs;              /* at most this many jobs at once: 0 when
                                 not even one fits */
};

/*
 * NAME     cairn_fd_budget - the jobs at once the descriptor limit allows
 * ARGUMENTS wanted: the jobs the daemon would run at once (the cap never
 *          exceeds it); reserve: descriptors the rest of the daemon may
 *          open beside the jobs (a reload's plugins, a scan, a report)
 * RETURNS  0 with *b filled (b->jobs == wanted when the limit does not
 *          bind, an unlimited one included), or a negative errno when the
 *          limit or the open descriptors cannot be read (*b->jobs is then
 *          wanted: nothing is capped on a guess)
 */
int cairn_fd_budget(size_t wanted, size_t reserve, struct cairn_fd_budget *b);

#endif /* CAIRN_FDBUDGET_H */
