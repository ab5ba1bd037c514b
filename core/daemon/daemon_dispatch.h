/*
 * daemon_dispatch.h - which jobs the daemon takes on, and when: the queue
 * of names to claim, directory scans and what they find, starting jobs
 * while there is room, and what a job's end means for its name (done,
 * failed, back off and try again, look again).
 *
 * Loop thread only.  The blocking work is elsewhere: scans on the pool
 * (scanner.h), a job's claim and finish on the pool, its records solved
 * there too (job.h, engine.h).
 */
#ifndef CAIRN_DAEMON_DISPATCH_H
#define CAIRN_DAEMON_DISPATCH_H

#include <stdint.h>

#include "daemon_ctx.h"

/* Before the first scan: the loop and the spool are open. */
void cairn_dispatch_init(struct cairn_daemon *d);

/* Queues the jobs a crash left in active/, listed now: at start, before
 * inotify can report a new file of the same name, so they run first. */
void cairn_dispatch_recover(struct cairn_daemon *d);

/* Asks for a scan of the input directory (what: CAIRN_SCAN_* bits); its
 * findings are queued, and jobs started, when it is done. */
void cairn_dispatch_scan(struct cairn_daemon *d, int what);

/* Queues name unless it is queued or running already, or backing off
 * (size: what is known of it, for the progress line; 0 if nothing). */
void cairn_dispatch_enqueue(struct cairn_daemon *d, const char *name, int recovered, uint64_t size);

/* name arrived but will never be taken (spool.h): said once in the log. */
void cairn_dispatch_ignored(struct cairn_daemon *d, const char *name);

/* Claims and starts queued jobs while there is room. */
void cairn_dispatch_schedule(struct cairn_daemon *d);

/* 1 when nothing is running, queued, waiting to come of age or being
 * scanned for: the end of a --once run. */
int cairn_dispatch_idle(const struct cairn_daemon *d);

/* Stopping: nothing more is queued or scanned for; running jobs go on. */
void cairn_dispatch_stop(struct cairn_daemon *d);

/* Frees the queue and the sets; the loop has ended. */
void cairn_dispatch_free(struct cairn_daemon *d);

#endif /* CAIRN_DAEMON_DISPATCH_H */
