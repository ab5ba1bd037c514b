/*
 * daemon_counts.h - what the dispatcher has done so far, counted by
 * daemon_dispatch.c and written out by daemon_report.c.  Its own header,
 * so that the report side reads the counts the daemon hands it without
 * including the dispatcher: the dispatcher calls the report, never the
 * other way (daemon_report.h).
 */
#ifndef CAIRN_DAEMON_COUNTS_H
#define CAIRN_DAEMON_COUNTS_H

#include <stddef.h>
#include <stdint.h>

/* What the dispatcher has done so far, for the daemon's reports. */
struct cairn_dispatch_counts {
    size_t queued;        /* waiting to be claimed */
    size_t active;        /* running */
    uint64_t jobs_seen;   /* queued since start */
    uint64_t bytes_seen;  /* their sizes when found */
    uint64_t bytes_done;  /* the sizes of jobs that ended, and what the
                             running ones have read */
    uint64_t jobs_ok;     /* ended done */
    uint64_t jobs_failed; /* ended failed */
    uint64_t records;     /* answered */
};

#endif /* CAIRN_DAEMON_COUNTS_H */
