/*
 * daemon_ctx.h - the spool daemon's one owned context.
 *
 * Everything the daemon knows lives in struct cairn_daemon, reached from
 * every callback, and touched on the loop thread only, but for two parts
 * pool threads reach through pointers: the hang monitor's slots (each
 * worker writes its own, lock-free, hang.h) and the spool's folder
 * descriptors, which a job's start and finish use and a scan may re-point
 * in place (dup2, spool.h) without changing their numbers.  Workers
 * otherwise see batches, starting and finishing jobs and the scanner's
 * work item, never the daemon.  Its own files read and write it:
 * daemon.c (the run's life), daemon_dispatch.c (which jobs run when),
 * daemon_report.c (what it says about itself), progress.c.
 */
#ifndef CAIRN_DAEMON_CTX_H
#define CAIRN_DAEMON_CTX_H

#include <stdint.h>
#include <uv.h>

#include "config.h"
#include "engine.h"
#include "hang.h"
#include "inflight.h"
#include "log.h"
#include "metrics.h"
#include "nameset.h"
#include "plugin_loader.h"
#include "plugin_set.h"
#include "queue.h"
#include "scanner.h"
#include "settle.h"
#include "spool.h"
#include "watch.h"

struct cairn_job;
struct cairn_daemon;

/* A running job, as the daemon lists it. */
struct cairn_running {
    struct cairn_daemon *d;
    struct cairn_running *prev;
    struct cairn_running *next;
    struct cairn_job *job;
    char name[]; /* NAME.jsonl */
};

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
    const char *config_file; /* re-read on SIGHUP; NULL = none */
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

    struct cairn_queue queue;            /* ready to claim; names queued or active */
    struct cairn_nameset retry;          /* outputs failed: wait for retry_timer */
    struct cairn_nameset seen_taken;     /* found while queued or running: a
                                            new file may wait under the name */
    struct cairn_scanner scanner;        /* directory scans, on the pool */
    struct cairn_settle settle;          /* files with a future mtime, watched */
    struct cairn_nameset ignored;        /* never-taken files already logged */
    struct cairn_nameset ignored_recent; /* ... of them, those inotify
                                            reported since the last full
                                            listing was sorted */
    struct cairn_running *jobs;          /* active jobs */
    size_t active;
    size_t max_active;

    uv_timer_t rescan_timer; /* every rescan_interval_s */
    uv_timer_t young_timer;  /* when a too-young file comes of age */
    uv_timer_t retry_timer;  /* after an output failure, backing off */
    uv_timer_t metrics_timer;
    uv_timer_t stop_timer;     /* shutdown_timeout_s */
    uv_timer_t status_timer;   /* systemd STATUS= refresh */
    uv_timer_t watchdog_timer; /* WATCHDOG=1 at half of WATCHDOG_USEC */
    uv_timer_t progress_timer; /* --once on a terminal: the progress line */
    uv_timer_t live_timer;     /* the status file, once a second */
    uv_signal_t sig_term;
    uv_signal_t sig_int;
    uv_signal_t sig_hup;

    int once; /* --once: exit when the spool is empty */
    int stopping;
    int finished;  /* handles are closing; the loop ends */
    int abandoned; /* shutdown timed out with jobs running */
    int watching;
    int name_busy;           /* a claim met a same-named active job */
    int seen_taken_lost;     /* a name could not be noted in seen_taken */
    int scanned;             /* the first scan has been sorted */
    uint64_t young_wait_ms;  /* shortest wait a scan found, or 0 */
    uint64_t retry_ms;       /* the next output-failure back-off, or 0 */
    uint64_t records;        /* answered since start, for records/s */
    uint64_t status_records; /* ... at the last STATUS= */
    uint64_t status_ns;
    uint64_t jobs_seen;   /* enqueued since start */
    uint64_t bytes_seen;  /* their sizes when found */
    uint64_t bytes_ended; /* the sizes of jobs that ended */
    uint64_t start_ns;
    uint64_t jobs_ok;
    uint64_t jobs_failed;
    int runtime_error;  /* e.g. the input directory vanished */
    int output_gone;    /* output_dir unusable: claim nothing */
    int metrics_busy;   /* a metrics write is on the pool */
    int status_busy;    /* a status write is on the pool */
    int status_dirty;   /* the set of active jobs changed */
    int status_failing; /* the last status write failed (said once) */
    char *status_name;  /* this daemon's file in .cairn/status/ */
    uint64_t live_ns;   /* when it was last written */
    char host[65];
    struct timespec started_real;

    /* daemon.c's: called by the dispatcher whenever work may have run
     * out, to end the run when nothing is left to wait for. */
    void (*check_done)(struct cairn_daemon *d);
};

#endif /* CAIRN_DAEMON_CTX_H */
