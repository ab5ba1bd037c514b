/*
 * daemon_dispatch.h - which jobs the daemon takes on, and when: the queue
 * of names to claim, directory scans and what they find, starting jobs
 * while there is room, and what a job's end means for its name (done,
 * failed, back off and try again, look again).
 *
 * Its state (the name table, the queue, the scanner, the running jobs,
 * the back-off and its counts) is private to daemon_dispatch.c: the rest
 * of the daemon reads it through the functions below.
 *
 * Loop thread only.  The blocking work is elsewhere: scans on the pool
 * (scanner.h), a job's claim and finish on the pool, its records solved
 * there too (job.h, engine.h).
 */
#ifndef CAIRN_DAEMON_DISPATCH_H
#define CAIRN_DAEMON_DISPATCH_H

#include <stddef.h>
#include <stdint.h>

#include "daemon_counts.h"
#include "hang.h"

struct cairn_daemon;
struct cairn_dispatch;
struct cairn_job;

/*
 * NAME     cairn_dispatch_new - the dispatcher of a daemon whose loop and
 *          spool are open
 * NOTES    on_idle runs whenever work may have run out, for the daemon to
 *          end the run when nothing is left to wait for.
 * RETURNS  0, or -ENOMEM
 */
int cairn_dispatch_new(struct cairn_daemon *d, void (*on_idle)(struct cairn_daemon *d),
                       struct cairn_dispatch **out);

/* The most jobs run at once: 128 per worker thread, unless lowered. */
size_t cairn_dispatch_max_active(const struct cairn_dispatch *s);
/* The most of them streaming at once: 32 per worker thread (gate.h). */
size_t cairn_dispatch_max_streaming(const struct cairn_dispatch *s);
/* Lowers it (to at least one), for the descriptor limit (fdbudget.h). */
void cairn_dispatch_limit_active(struct cairn_dispatch *s, size_t n);

/* Queues the jobs a crash left in active/, listed now: at start, before
 * inotify can report a new file of the same name, so they run first. */
void cairn_dispatch_recover(struct cairn_dispatch *s);

/* Asks for a scan of the input directory (what: CAIRN_SCAN_* bits); its
 * findings are queued, and jobs started, when it is done. */
void cairn_dispatch_scan(struct cairn_dispatch *s, int what);

/* inotify says name is ready: queued unless it is queued or running
 * already, or backing off, and started if there is room. */
void cairn_dispatch_ready(struct cairn_dispatch *s, const char *name);

/* name arrived but will never be taken (spool.h): said once in the log. */
void cairn_dispatch_ignored(struct cairn_dispatch *s, const char *name);

/* 1 when nothing is running, queued, waiting to come of age or being
 * scanned for: the end of a --once run. */
int cairn_dispatch_idle(const struct cairn_dispatch *s);

/* Jobs running now: what cairn_dispatch_counts says of them, without its
 * walk over every job (the loop asks after each job's end). */
size_t cairn_dispatch_active(const struct cairn_dispatch *s);

/* 1 when a --once run left a job in the spool, its outputs unwritable. */
int cairn_dispatch_left_behind(const struct cairn_dispatch *s);

void cairn_dispatch_counts(const struct cairn_dispatch *s, struct cairn_dispatch_counts *out);

/* Calls fn for each running job, newest first. */
void cairn_dispatch_each_job(const struct cairn_dispatch *s,
                             void (*fn)(const struct cairn_job *job, void *data), void *data);

/* The queued name (NAME.jsonl) of the running job that owns a hung
 * plugin call (hang.h), or NULL. */
const char *cairn_dispatch_owner_name(const struct cairn_dispatch *s, const void *owner);

/* Ends the run without waiting for workers: every running job is let go,
 * those in rep[0..n) with this run counted (cairn_job_abandon). */
void cairn_dispatch_abandon(struct cairn_dispatch *s, const struct cairn_hang_report *rep,
                            size_t n);

/* Stopping: nothing more is queued or scanned for; running jobs go on. */
void cairn_dispatch_stop(struct cairn_dispatch *s);

/* Closes the dispatcher's handles: the loop must turn once more. */
void cairn_dispatch_close(struct cairn_dispatch *s);

/* Frees it all; the loop has ended.  NULL is fine. */
void cairn_dispatch_free(struct cairn_dispatch *s);

#endif /* CAIRN_DAEMON_DISPATCH_H */
