/*
 * daemon_report.h - what the daemon tells the outside about itself:
 * systemd's STATUS= line, metrics.prom, the live status file that
 * `cairn status` reads, and the log lines for directories that went away.
 *
 * Loop thread only.  Nothing here decides anything: it reads the
 * dispatcher's counts (daemon_counts.h), through the functions daemon.c
 * hands it, and writes them out, the
 * periodic files on the pool.  Its own state (what was last written and
 * when, writes on their way, the output directory's last known state) is
 * private to daemon_report.c.
 */
#ifndef CAIRN_DAEMON_REPORT_H
#define CAIRN_DAEMON_REPORT_H

struct cairn_daemon;
struct cairn_daemon_report;
struct cairn_dispatch_counts;
struct cairn_job;

/* How the report reads the dispatcher: functions the daemon (daemon.c)
 * hands it, so that the dispatcher calls the report and the report never
 * calls it back. */
struct cairn_daemon_report_reads {
    /* The counts as they are now. */
    void (*counts)(struct cairn_daemon *d, struct cairn_dispatch_counts *out);
    /* fn for each running job, newest first. */
    void (*each_job)(struct cairn_daemon *d, void (*fn)(const struct cairn_job *job, void *data),
                     void *data);
};

/* The report side of a daemon about to run, reading the dispatcher
 * through reads (copied): 0 or -ENOMEM. */
int cairn_daemon_report_new(struct cairn_daemon *d, const struct cairn_daemon_report_reads *reads,
                            struct cairn_daemon_report **out);
/* Frees it (NULL is fine); the loop has ended. */
void cairn_daemon_report_free(struct cairn_daemon_report *r);

/* STATUS= with the live counts, after extra (e.g. "READY=1\n") if any. */
void cairn_daemon_notify_status(struct cairn_daemon *d, const char *extra);

/* 1 when the output directory can take outputs.  The path is followed
 * (spool.h), and a change of state is logged once, not at every try. */
int cairn_daemon_output_ready(struct cairn_daemon *d);

/* Logs the state folders a scan recreated (repaired: cairn_spool_repair's
 * bits or a negative errno).  Returns how many were recreated. */
int cairn_daemon_log_repair(struct cairn_daemon *d, int repaired);

/* The final metrics, written now: the loop is closing. */
void cairn_daemon_write_metrics(struct cairn_daemon *d);

/* The run ended cleanly: the final metrics (now, or when a periodic write
 * on its way lands, which this one would otherwise be overwritten by),
 * and this daemon's status file removed. */
void cairn_daemon_report_end(struct cairn_daemon *d);

/* The periodic metrics: rendered here, written and fsync'd on the pool,
 * one write at a time. */
void cairn_daemon_write_metrics_async(struct cairn_daemon *d);

/* A reload changed metrics_file from old: the old file is removed (once
 * a write on its way to it has landed) and the new one written. */
void cairn_daemon_metrics_moved(struct cairn_daemon *d, const char *old);

/* INPUT/.cairn/status/NAME (status.h): rewritten at most once a second
 * while jobs run, and once more when the set of jobs changed. */
void cairn_daemon_write_status(struct cairn_daemon *d);

/* At start, the other daemons' status files: warns for each live daemon
 * (a file updated within CAIRN_STATUS_STALE_S) that writes the same
 * metrics file as this one, and removes the files of daemons of this host
 * that are gone (killed: a clean exit removes its own).  Returns 1 when a
 * shared metrics file was found, else 0. */
int cairn_daemon_survey_status_files(struct cairn_daemon *d);

/* The set of running jobs changed: written into the status file at the
 * next tick, or at once after a quiet spell, so that a job that began then
 * is shown without waiting. */
void cairn_daemon_status_changed(struct cairn_daemon *d);

#endif /* CAIRN_DAEMON_REPORT_H */
