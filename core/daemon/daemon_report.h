/*
 * daemon_report.h - what the daemon tells the outside about itself:
 * systemd's STATUS= line, metrics.prom, the live status file that
 * `cairn status` reads, and the log lines for directories that went away.
 *
 * Loop thread only.  Nothing here decides anything: it reads the daemon's
 * counters and writes them out, the periodic files on the pool.
 */
#ifndef CAIRN_DAEMON_REPORT_H
#define CAIRN_DAEMON_REPORT_H

#include "daemon_ctx.h"

/* STATUS= with the live counts, after extra (e.g. "READY=1\n") if any. */
void cairn_daemon_notify_status(struct cairn_daemon *d, const char *extra);

/* 1 when the output directory can take outputs.  The path is followed
 * (spool.h), and a change of state is logged once, not at every try. */
int cairn_daemon_output_ready(struct cairn_daemon *d);

/* Logs the state folders a scan recreated (repaired: cairn_spool_repair's
 * bits or a negative errno).  Returns how many were recreated. */
int cairn_daemon_log_repair(struct cairn_daemon *d, int repaired);

/* The final metrics, at exit: written now, since the loop is closing. */
void cairn_daemon_write_metrics(struct cairn_daemon *d);

/* The periodic metrics: rendered here, written and fsync'd on the pool,
 * one write at a time. */
void cairn_daemon_write_metrics_async(struct cairn_daemon *d);

/* INPUT/.cairn/status/NAME (status.h): rewritten at most once a second
 * while jobs run, and once more when the set of jobs changed. */
void cairn_daemon_write_status(struct cairn_daemon *d);
/* Removes this daemon's status file at a clean exit (a failure is said). */
void cairn_daemon_remove_status(struct cairn_daemon *d);

#endif /* CAIRN_DAEMON_REPORT_H */
