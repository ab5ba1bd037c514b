/*
 * daemon_ctx.h - the spool daemon's one owned context.
 *
 * What the whole daemon shares lives in struct cairn_daemon, reached from
 * every callback, and touched on the loop thread only, but for the parts
 * pool threads reach through pointers: the hang monitor's slots (each
 * worker writes its own, lock-free, hang.h), the pool's idle scratch
 * (under its mutex, pool.h), the count of file work in flight (atomic,
 * inflight.h), the log's settings (a job's file work logs), and the
 * spool's folder descriptors, which a job's start and finish use and a
 * scan or a finish may re-point in place (dup2, spool.h) without changing
 * their numbers.  Workers otherwise see batches, starting and finishing
 * jobs and the scanner's work item, never the daemon, but for a SIGHUP's
 * reload, which reads what is set before the run and never changes (the
 * configuration file's name, the defaults and the command line) and works
 * on its own copy of the configuration.
 *
 * daemon.c owns it (main.c fills in what the command line says before the
 * run): the loop, the configuration, the plugins, signals and timers, and
 * the run's life.  The two parts with state of their own keep it private
 * behind a pointer: which jobs run when (daemon_dispatch.c) and what the
 * daemon says about itself (daemon_report.c).  The others assign none of
 * its fields; the parts with an owner of their own (metrics, spool, log)
 * they change only through that owner's functions.
 */
#ifndef CAIRN_DAEMON_CTX_H
#define CAIRN_DAEMON_CTX_H

#include <stdint.h>
#include <uv.h>

#include "config.h"
#include "daemon_counts.h"
#include "engine.h"
#include "hang.h"
#include "inflight.h"
#include "log.h"
#include "metrics.h"
#include "registry.h"
#include "plugin_set.h"
#include "spool.h"
#include "watch.h"

struct cairn_daemon_report;
struct cairn_dispatch;
struct cairn_reload_work;

/* Input bytes per batch: big enough to amortise a thread hop, small
 * enough to stay in cache while a worker parses it. */
#define CAIRN_BATCH_BYTES (256u * 1024u)

/* Pool threads beyond the solvers, for the blocking file work (a job's
 * claim and finish, scans, metrics and status writes): durable outputs
 * cost waits, not CPU. */
#define CAIRN_IO_THREADS 4

struct cairn_daemon {
    uv_loop_t loop;
    struct cairn_config cfg;
    struct cairn_log log;
    const char *config_file;                   /* re-read on SIGHUP; NULL = none */
    int (*defaults)(struct cairn_config *cfg); /* as at start, again on SIGHUP */
    int (*apply_overrides)(struct cairn_config *cfg, char **err, void *data);
    void *overrides_data; /* the command line, re-applied on SIGHUP */

    unsigned threads; /* the libuv pool size, fixed at start */
    struct cairn_plugin_set *plugins;
    struct cairn_pool pool;
    /* Pool items that create or rename files, for an abort to wait for. */
    struct cairn_inflight file_work;
    struct cairn_spool spool;
    struct cairn_watch watch;
    struct cairn_metrics metrics;
    struct cairn_hang hang; /* plugin calls past solve_timeout_s (hang.c) */

    struct cairn_dispatch *dispatch;    /* daemon_dispatch.c's */
    struct cairn_daemon_report *report; /* daemon_report.c's */

    uv_timer_t rescan_timer; /* every rescan_interval_s */
    uv_timer_t metrics_timer;
    uv_timer_t stop_timer;     /* shutdown_timeout_s */
    uv_timer_t status_timer;   /* systemd STATUS= refresh */
    uv_timer_t watchdog_timer; /* WATCHDOG=1 at half of WATCHDOG_USEC */
    uv_timer_t progress_timer; /* --once on a terminal: the progress line */
    uv_timer_t live_timer;     /* the status file, once a second */
    uv_signal_t sig_term;
    uv_signal_t sig_int;
    uv_signal_t sig_hup;

    /* SIGHUP (daemon.c): a reload is prepared on the pool, one at a time,
     * and the signals that come meanwhile make one more after it. */
    struct cairn_reload_work *reloading; /* NULL: none under way */
    unsigned hups_waiting;

    int once; /* --once: exit when the spool is empty */
    int stopping;
    int finished;  /* handles are closing; the loop ends */
    int abandoned; /* shutdown timed out with jobs running */
    int watching;
    int watch_refused; /* inotify refused: jobs found by rescans, and it is tried again */
    uint64_t start_ns;
    /* The dispatcher's counts when the run ended, for main()'s exit status
     * and the last log line. */
    struct cairn_dispatch_counts final;
    int runtime_error; /* e.g. the input directory vanished */
    char host[65];
    long pid; /* ours, asked once: every summary and status file says it */
    struct timespec started_real;
};

#endif /* CAIRN_DAEMON_CTX_H */
