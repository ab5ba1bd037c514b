/*
 * daemon.c - the spool daemon's life: start, the loop's handles and
 * timers, signals (stop, reload), and the end of a run, ordered or not.
 *
 * What it does in between is in two files below this one:
 * daemon_dispatch.c decides which jobs run when, daemon_report.c says how
 * it goes (STATUS=, metrics, the status file).
 */
#include "daemon.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <time.h>
#include <unistd.h>

#include "daemon_dispatch.h"
#include "daemon_report.h"
#include "fdbudget.h"
#include "layout.h"
#include "notify.h"
#include "progress.h"
#include "reload.h"
#include "scanner.h"
#include "tmpfile.h"
#include "util.h"
#include "version.h"

/* How often systemd's STATUS= line is refreshed. */
#define STATUS_INTERVAL_MS 2000

static uint64_t ms(double seconds)
{
    return seconds <= 0 ? 0 : (uint64_t)(seconds * 1000.0 + 0.5);
}

/* A reload on the pool (SIGHUP, below). */
struct cairn_reload_work {
    uv_work_t req;
    struct cairn_daemon *d;
    /* A copy: the pool thread reads none of the daemon's own state but
     * what never changes after start (the configuration file's name, the
     * command line, the log's settings). */
    struct cairn_config old;
    struct cairn_config nc;
    struct cairn_plugin_set *ps;
    /* The set in force when the reload began, held (on the loop) until it
     * is done: the pool thread only reads its verdicts. */
    struct cairn_plugin_set *known;
    unsigned signals;
    int rc;
};

/* ---- stopping ---------------------------------------------------------- */

/* A handle never initialised (a start that failed early) has no loop.
 * close_all runs once in a run, so none is closing already. */
static void close_handle(uv_handle_t *h)
{
    if (h->loop != NULL)
        uv_close(h, NULL);
}

/* Closing every handle lets uv_run() return on its own. */
static void close_all(struct cairn_daemon *d)
{
    if (d->watching) {
        cairn_watch_stop(&d->watch);
        d->watching = 0;
    }
    if (d->dispatch != NULL)
        cairn_dispatch_close(d->dispatch);
    close_handle((uv_handle_t *)&d->rescan_timer);
    close_handle((uv_handle_t *)&d->metrics_timer);
    close_handle((uv_handle_t *)&d->stop_timer);
    close_handle((uv_handle_t *)&d->status_timer);
    close_handle((uv_handle_t *)&d->watchdog_timer);
    close_handle((uv_handle_t *)&d->progress_timer);
    close_handle((uv_handle_t *)&d->live_timer);
    close_handle((uv_handle_t *)&d->sig_term);
    close_handle((uv_handle_t *)&d->sig_int);
    close_handle((uv_handle_t *)&d->sig_hup);
    /* A reload not begun yet is dropped; one under way is waited for by
     * uv_run, and reload_done sees the daemon stopping. */
    if (d->reloading != NULL)
        (void)uv_cancel((uv_req_t *)&d->reloading->req);
    cairn_hang_close(&d->hang);
}

static void on_status_timer(uv_timer_t *t)
{
    cairn_daemon_notify_status(t->data, NULL);
}

static void on_watchdog_timer(uv_timer_t *t)
{
    (void)t;
    cairn_notify("WATCHDOG=1");
}

static void begin_stop(struct cairn_daemon *d, const char *why);

static void input_gone(struct cairn_daemon *d)
{
    cairn_log(&d->log, CAIRN_LOG_ERROR, "input directory %s was removed or moved",
              d->cfg.input_dir);
    d->runtime_error = 1;
    begin_stop(d, "input directory gone");
}

/* Once a second: the status file, and whether the input directory still
 * has a name.  inotify says IN_DELETE_SELF only once the directory's last
 * reference goes, and the daemon's own descriptor is one: an `rm -rf` of
 * the spool is seen here, by its link count. */
static void on_live_timer(uv_timer_t *t)
{
    struct cairn_daemon *d = t->data;
    struct stat st;

    if (!d->stopping && fstat(d->spool.in_fd, &st) == 0 && st.st_nlink == 0) {
        input_gone(d);
        return;
    }
    cairn_daemon_write_status(d);
}

/* What the report side reads of the dispatcher, handed it here: the
 * dispatcher calls the report, and the report reads only through these. */
static void report_counts(struct cairn_daemon *d, struct cairn_dispatch_counts *out)
{
    cairn_dispatch_counts(d->dispatch, out);
}

static void report_each_job(struct cairn_daemon *d,
                            void (*fn)(const struct cairn_job *job, void *data), void *data)
{
    cairn_dispatch_each_job(d->dispatch, fn, data);
}

static const struct cairn_daemon_report_reads report_reads = { .counts = report_counts,
                                                               .each_job = report_each_job };

/* Ends the run once nothing is left to wait for. */
static void check_done(struct cairn_daemon *d)
{
    if (d->finished)
        return;
    if (d->stopping ? cairn_dispatch_active(d->dispatch) == 0
                    : d->once && cairn_dispatch_idle(d->dispatch)) {
        d->finished = 1;
        cairn_progress_stop(d);
        cairn_daemon_report_end(d);
        close_all(d);
    }
}

/* File work on the pool is short and waits for no plugin: an abort waits
 * this long for it, so that _exit leaves no temporary behind. */
#define ABORT_FILE_WAIT_MS 5000
/* And this long for the metrics, the summaries and the exit after it. */
#define STOP_MARGIN_MS 5000

/* Ends the run at once, without waiting for workers, which may never
 * return: the pool's file work waited for (bounded), the active jobs let
 * go (those in rep[0..n) with this run counted), metrics written, handles
 * closed, the loop stopped, d->abandoned set (main() then leaves with
 * _exit). */
static void abort_run(struct cairn_daemon *d, const struct cairn_hang_report *rep, size_t n)
{
    d->abandoned = 1;
    d->finished = 1;
    /* Before the jobs are let go: a job's start may be creating its
     * results temporary right now, and cairn_job_abandon removes it. */
    if (cairn_inflight_close(&d->file_work, ABORT_FILE_WAIT_MS) != 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "a file write on the pool has not finished after %d s: exiting without it (its "
                  "temporary file is removed at the next start)",
                  ABORT_FILE_WAIT_MS / 1000);
    cairn_dispatch_abandon(d->dispatch, rep, n);
    /* Their temporaries are gone (cairn_job_abandon): so is the lock that
     * kept them from a sweep. */
    cairn_outdir_drop_owner(d->spool.out);
    /* A stop that outlived shutdown_timeout_s is a clean exit (status 0):
     * its status file goes, as at any clean exit.  A hang's stays, for
     * `cairn status` to call the run dead, which it is. */
    if (rep == NULL)
        cairn_daemon_report_end(d);
    else
        cairn_daemon_write_metrics(d);
    close_all(d);
    uv_stop(&d->loop);
}

static void on_stop_timeout(uv_timer_t *t)
{
    struct cairn_daemon *d = t->data;
    struct cairn_dispatch_counts c;

    cairn_dispatch_counts(d->dispatch, &c);
    cairn_log(&d->log, CAIRN_LOG_WARNING,
              "shutdown_timeout_s (%g s) has passed with %zu job(s) still running: they stay in "
              "%s/" CAIRN_ACTIVE_PATH "/ for the next start",
              d->cfg.shutdown_timeout_s, c.active, d->cfg.input_dir);
    abort_run(d, NULL, 0);
}

static void begin_stop(struct cairn_daemon *d, const char *why)
{
    struct cairn_dispatch_counts c;

    if (d->stopping)
        return;
    d->stopping = 1;
    cairn_dispatch_counts(d->dispatch, &c);
    if (c.active > 0 && d->cfg.shutdown_timeout_s > 0) {
        /* The drain may take shutdown_timeout_s and the abort's file wait
         * after it: told so, systemd does not SIGKILL us at the unit's
         * TimeoutStopSec= first (a kill would count as a run of each
         * active job that never ended).  It never shortens that timeout. */
        char extra[96];

        snprintf(extra, sizeof(extra), "STOPPING=1\nEXTEND_TIMEOUT_USEC=%llu\n",
                 (unsigned long long)(d->cfg.shutdown_timeout_s * 1e6) +
                     (unsigned long long)(ABORT_FILE_WAIT_MS + STOP_MARGIN_MS) * 1000ULL);
        cairn_daemon_notify_status(d, extra);
    } else {
        cairn_daemon_notify_status(d, "STOPPING=1\n");
    }
    cairn_log(&d->log, CAIRN_LOG_INFO,
              "%s: no new jobs; waiting for %zu active job(s), "
              "at most %g s",
              why, c.active, d->cfg.shutdown_timeout_s);
    if (d->watching) {
        cairn_watch_stop(&d->watch);
        d->watching = 0;
    }
    uv_timer_stop(&d->rescan_timer);
    cairn_dispatch_stop(d->dispatch);
    if (c.active > 0)
        uv_timer_start(&d->stop_timer, on_stop_timeout, ms(d->cfg.shutdown_timeout_s), 0);
    check_done(d);
}

/* ---- events ------------------------------------------------------------ */

static void on_watch(struct cairn_watch *w, enum cairn_watch_event ev, const char *name)
{
    struct cairn_daemon *d = w->data;

    switch (ev) {
    case CAIRN_WATCH_READY: cairn_dispatch_ready(d->dispatch, name); break;
    case CAIRN_WATCH_OVERFLOW:
        cairn_log(&d->log, CAIRN_LOG_WARNING, "inotify queue overflowed: rescanning");
        cairn_dispatch_scan(d->dispatch, CAIRN_SCAN_FULL);
        break;
    case CAIRN_WATCH_IGNORED: cairn_dispatch_ignored(d->dispatch, name); break;
    case CAIRN_WATCH_GONE: input_gone(d); break;
    }
}

/* Why inotify may refuse, for the operator who must raise a limit. */
static const char *watch_hint(int rc)
{
    switch (rc) {
    case UV_EMFILE:
        return " (the user's inotify instances, sysctl fs.inotify.max_user_instances, or this "
               "process's open files, LimitNOFILE=, are used up)";
    case UV_ENOSPC:
        return " (the user's inotify watches, sysctl fs.inotify.max_user_watches, are used up)";
    default: return "";
    }
}

/* Starts the inotify watch.  Where inotify refuses for want of a resource
 * (its per-user limits are shared by every program of the user, and a
 * busy host runs out), jobs are still found by the rescans, only later,
 * and each rescan tries again: the daemon keeps working rather than exit.
 * These errors come from inotify_init1 and inotify_add_watch only, before
 * watch.c has a libuv handle to close, so a retry starts from nothing.
 * 0, or the error when the start must fail. */
static int start_watch(struct cairn_daemon *d)
{
    int rc = cairn_watch_start(&d->watch, &d->loop, d->cfg.input_dir, d->spool.in_fd, on_watch, d);

    d->watching = rc == 0;
    if (rc == 0) {
        if (d->watch_refused)
            cairn_log(&d->log, CAIRN_LOG_INFO,
                      "watching %s with inotify again: job files are taken as soon as they are "
                      "ready",
                      d->cfg.input_dir);
        d->watch_refused = 0;
        return 0;
    }
    if (d->watch_refused)
        return 0; /* said already */
    /* Only a limit is waited out; any other refusal (the directory's
     * permissions, say) is the operator's to fix, and the start fails. */
    if (!cairn_is_out_of_resources(rc)) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot watch %s: %s", d->cfg.input_dir,
                  uv_strerror(rc));
        return rc;
    }
    if (d->cfg.rescan_interval_s <= 0) {
        cairn_log(&d->log, CAIRN_LOG_ERROR,
                  "cannot watch %s: %s%s; with rescan_interval_s 0 no job would be found "
                  "(give it a period to run without inotify)",
                  d->cfg.input_dir, uv_strerror(rc), watch_hint(rc));
        return rc;
    }
    d->watch_refused = 1;
    cairn_log(&d->log, CAIRN_LOG_WARNING,
              "cannot watch %s with inotify: %s%s; finding job files by rescanning every %g s "
              "instead, and trying again at each",
              d->cfg.input_dir, uv_strerror(rc), watch_hint(rc), d->cfg.rescan_interval_s);
    return 0;
}

/* active/ too: a job stranded there (its daemon died, or a claim whose
 * open failed) runs without waiting for a restart.  The watch first, if
 * inotify refused it: what it misses until then, this scan finds. */
static void on_rescan_timer(uv_timer_t *t)
{
    struct cairn_daemon *d = t->data;

    if (d->watch_refused && !d->stopping)
        (void)start_watch(d);
    cairn_dispatch_scan(d->dispatch, CAIRN_SCAN_FULL | CAIRN_SCAN_ACTIVE);
}

static void on_metrics_timer(uv_timer_t *t)
{
    cairn_daemon_write_metrics_async(t->data);
}

static void log_plugins(const struct cairn_daemon *d);
static void start_timers(struct cairn_daemon *d);

/* Plugins of the old set that the new one lacks: said, since records
 * naming them get unknown_variant from now on. */
static void log_gone_plugins(struct cairn_daemon *d, const struct cairn_registry *old,
                             const struct cairn_registry *now)
{
    size_t i;

    for (i = 0; i < old->n_plugins; i++)
        if (cairn_registry_find(now, old->plugins[i].desc->name) == NULL)
            cairn_log(&d->log, CAIRN_LOG_WARNING,
                      "reload: plugin %s (%s) is gone: records naming it get unknown_variant "
                      "from now on",
                      old->plugins[i].desc->name, old->plugins[i].path);
}

/*
 * SIGHUP: a new configuration and plugin set, prepared on the pool and
 * swapped in on the loop, or the old ones kept.
 *
 * Preparing loads every plugin afresh, through a probe process for the
 * files that changed: a plugin whose constructor hangs holds it for the
 * probe's whole allowance.  On the loop that time stalled
 * every job, and a storm of SIGHUPs (a configuration tool sending one per
 * file it touched) stalled them for good.  So one reload runs at a time,
 * off the loop, and the signals that come during it are counted into one
 * more reload after it: whatever they were sent for, it reads the files
 * as they are by then.
 */
static void reload_prepare_work(uv_work_t *req)
{
    struct cairn_reload_work *w = req->data;
    const struct cairn_daemon *d = w->d;
    const struct cairn_reload_in in = { .old = &w->old,
                                        .config_file = d->config_file,
                                        .defaults = d->defaults,
                                        .apply_overrides = d->apply_overrides,
                                        .overrides_data = d->overrides_data,
                                        .log = &d->log,
                                        .signals = w->signals,
                                        .known = w->known };

    w->rc = cairn_reload_prepare(&in, &w->nc, &w->ps);
}

/* Swaps in what a reload prepared (nc and ps, which it owns now). */
static void reload_apply(struct cairn_daemon *d, struct cairn_config *nc,
                         struct cairn_plugin_set *ps)
{
    char *old_metrics;

    if (cairn_metrics_set_plugins(&d->metrics, &ps->reg) != 0) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "reload: out of memory; keeping the old set");
        cairn_plugin_set_unref(ps);
        cairn_config_free(nc);
        return;
    }
    log_gone_plugins(d, &d->plugins->reg, &ps->reg);
    cairn_plugin_set_unref(d->plugins);
    d->plugins = ps;
    /* Taken before the old configuration goes, for the file it names. */
    old_metrics = d->cfg.metrics_file;
    d->cfg.metrics_file = NULL;
    cairn_config_free(&d->cfg);
    d->cfg = *nc;
    /* Borrowed from the configuration just freed: point it at the new one. */
    cairn_metrics_set_labels(&d->metrics, d->cfg.metrics_labels);
    cairn_log_set_level(&d->log, d->cfg.log_level);
    if (d->cfg.umask >= 0)
        umask((mode_t)d->cfg.umask);
    start_timers(d);
    cairn_hang_set_timeout(&d->hang, d->cfg.solve_timeout_s);
    log_plugins(d);
    cairn_log(&d->log, CAIRN_LOG_INFO,
              "reloaded: %zu plugin(s) from %s (%zu file(s) probed, %zu unchanged since the "
              "last load)",
              ps->reg.n_plugins, d->cfg.plugin_dir, ps->reg.n_verdicts - ps->reg.reused,
              ps->reg.reused);
    if (old_metrics != NULL && strcmp(old_metrics, d->cfg.metrics_file) != 0)
        cairn_daemon_metrics_moved(d, old_metrics);
    free(old_metrics);
}

static void reload_start(struct cairn_daemon *d, unsigned signals);

static void reload_done(uv_work_t *req, int status)
{
    struct cairn_reload_work *w = req->data;
    struct cairn_daemon *d = w->d;
    int ending = d->stopping || d->finished;
    unsigned waiting;

    d->reloading = NULL;
    cairn_plugin_set_unref(w->known);
    if (status == 0 && w->rc == 0 && !ending) {
        reload_apply(d, &w->nc, w->ps);
    } else if (status == 0 && w->rc == 0) {
        cairn_log(&d->log, CAIRN_LOG_INFO,
                  "reload: not applied, the daemon is stopping (no new job would use it)");
        cairn_plugin_set_unref(w->ps);
        cairn_config_free(&w->nc);
    }
    cairn_config_free(&w->old);
    free(w);
    waiting = d->hups_waiting;
    d->hups_waiting = 0;
    if (ending)
        return;
    if (waiting > 0)
        reload_start(d, waiting);
    if (d->reloading == NULL)
        cairn_daemon_notify_status(d, "READY=1\n");
}

/* Puts a reload answering `signals` SIGHUPs on the pool; said when it
 * cannot be (the old configuration then stays). */
static void reload_start(struct cairn_daemon *d, unsigned signals)
{
    struct cairn_reload_work *w = calloc(1, sizeof(*w));
    int rc = w != NULL ? cairn_config_copy(&w->old, &d->cfg) : -ENOMEM;

    if (rc == 0) {
        w->d = d;
        w->signals = signals;
        w->known = d->plugins != NULL ? cairn_plugin_set_ref(d->plugins) : NULL;
        w->req.data = w;
        rc = uv_queue_work(&d->loop, &w->req, reload_prepare_work, reload_done);
        if (rc != 0) {
            cairn_plugin_set_unref(w->known);
            cairn_config_free(&w->old);
        }
    }
    if (rc != 0) {
        cairn_log(&d->log, CAIRN_LOG_ERROR,
                  "SIGHUP: cannot start a reload: %s; keeping the old configuration",
                  uv_strerror(rc));
        free(w);
        return;
    }
    d->reloading = w;
}

static void on_sighup(struct cairn_daemon *d)
{
    if (d->stopping) {
        cairn_log(&d->log, CAIRN_LOG_INFO,
                  "SIGHUP while stopping: not reloading (no new job would use it)");
        return;
    }
    if (d->reloading != NULL) {
        d->hups_waiting++;
        cairn_log(&d->log, CAIRN_LOG_DEBUG,
                  "SIGHUP during a reload: %u signal(s) now wait for one more reload once it "
                  "ends",
                  d->hups_waiting);
        return;
    }
    cairn_notify_reloading();
    reload_start(d, 1);
    if (d->reloading == NULL)
        cairn_daemon_notify_status(d, "READY=1\n");
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct cairn_daemon *d = s->data;

    if (signum == SIGHUP) {
        on_sighup(d);
    } else if (d->stopping) {
        /* Said, so that an operator who sends it again sees it was heard
         * and what a harder stop would cost. */
        struct cairn_dispatch_counts c;

        cairn_dispatch_counts(d->dispatch, &c);
        cairn_log(&d->log, CAIRN_LOG_INFO,
                  "%s again: already stopping, %zu active job(s) left to finish within "
                  "shutdown_timeout_s (%g s from the first); a SIGKILL now counts as a run of each "
                  "that never ended",
                  signum == SIGTERM ? "SIGTERM" : "SIGINT", c.active, d->cfg.shutdown_timeout_s);
    } else {
        begin_stop(d, signum == SIGTERM ? "SIGTERM" : "SIGINT");
    }
}

/* ---- a plugin call that never returns -----------------------------------
 *
 * The daemon's answer to what hang.h notices; the policy is cairnd(8),
 * HUNG PLUGIN CALLS.  A thread inside a plugin can be neither stopped nor
 * cancelled safely, so the run is left behind: WATCHDOG=1 stops, the hung
 * job's attempt stays counted (attempts.h) and the others' is forgotten,
 * and the process exits 1 without joining the stuck worker.
 */
static void on_hang(struct cairn_hang *h, const struct cairn_hang_report *rep, size_t n)
{
    struct cairn_daemon *d = h->data;
    size_t i;

    if (d->finished)
        return;
    uv_timer_stop(&d->watchdog_timer);
    cairn_notify("STATUS=a plugin call never returned (solve_timeout_s): exiting for a restart");
    for (i = 0; i < n; i++) {
        const char *name = cairn_dispatch_owner_name(d->dispatch, rep[i].owner);

        cairn_log(&d->log, CAIRN_LOG_ERROR,
                  "job %.*s: line %llu: plugin %s has not returned for %.1f s (solve_timeout_s "
                  "%g); this run counts as an attempt (max_attempts %llu); exiting, without "
                  "waiting for it, so the daemon can be restarted",
                  name != NULL ? (int)(strlen(name) - strlen(CAIRN_JOB_SUFFIX)) : 9,
                  name != NULL ? name : "(unknown)", (unsigned long long)rep[i].line, rep[i].plugin,
                  rep[i].seconds, d->cfg.solve_timeout_s, (unsigned long long)d->cfg.max_attempts);
    }
    d->runtime_error = 1;
    abort_run(d, rep, n);
}

static int watch_hangs(struct cairn_daemon *d)
{
    /* Any thread of the pool may run a batch, the I/O ones included. */
    int rc = cairn_hang_init(&d->hang, &d->loop, (size_t)d->threads + CAIRN_IO_THREADS, on_hang, d);

    if (rc == 0)
        cairn_hang_set_timeout(&d->hang, d->cfg.solve_timeout_s);
    return rc;
}

/* ---- start ------------------------------------------------------------- */

/* One log line per loaded plugin. */
static void log_plugins(const struct cairn_daemon *d)
{
    size_t i;

    /* The inode says which install of the file runs: a new one after an
     * upgrade by rename, the same one after a reload of an unchanged file. */
    for (i = 0; i < d->plugins->reg.n_plugins; i++) {
        const struct cairn_plugin_handle *h = &d->plugins->reg.plugins[i];
        cairn_log(&d->log, CAIRN_LOG_INFO, "plugin %s %s loaded from %s (device %u:%u, inode %llu)",
                  h->desc->name, h->desc->version, h->path, major(h->dev), minor(h->dev),
                  (unsigned long long)h->ino);
    }
}

static int init_handles(struct cairn_daemon *d)
{
    uv_timer_t *timers[] = { &d->rescan_timer, &d->metrics_timer,  &d->stop_timer,
                             &d->status_timer, &d->watchdog_timer, &d->progress_timer,
                             &d->live_timer };
    uv_signal_t *signals[] = { &d->sig_term, &d->sig_int, &d->sig_hup };
    int nums[] = { SIGTERM, SIGINT, SIGHUP };
    size_t i;
    int rc;

    /* uv_timer_init cannot fail, nor uv_signal_start for a valid signal
     * number; uv_signal_init can (the loop's signal pipe). */
    for (i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
        (void)uv_timer_init(&d->loop, timers[i]);
        timers[i]->data = d;
    }
    for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
        if ((rc = uv_signal_init(&d->loop, signals[i])) != 0)
            return rc;
        signals[i]->data = d;
        (void)uv_signal_start(signals[i], on_signal, nums[i]);
    }
    return 0;
}

/* (Re)starts the rescan and metrics timers from d->cfg. */
static void start_timers(struct cairn_daemon *d)
{
    uint64_t rescan = ms(d->cfg.rescan_interval_s), metrics = ms(d->cfg.metrics_interval_s);

    uv_timer_stop(&d->rescan_timer);
    uv_timer_stop(&d->metrics_timer);
    if (!d->once && rescan > 0)
        uv_timer_start(&d->rescan_timer, on_rescan_timer, rescan, rescan);
    if (metrics > 0)
        uv_timer_start(&d->metrics_timer, on_metrics_timer, metrics, metrics);
}

/* READY=1 once plugins are loaded and the first scan has begun. */
static void start_notify(struct cairn_daemon *d)
{
    uint64_t wd = cairn_notify_watchdog_usec();

    if (getenv("NOTIFY_SOCKET") == NULL)
        return;
    cairn_daemon_notify_status(d, "READY=1\n");
    uv_timer_start(&d->status_timer, on_status_timer, STATUS_INTERVAL_MS, STATUS_INTERVAL_MS);
    if (wd > 0) {
        uint64_t half = wd / 2000 ? wd / 2000 : 1; /* half the period, in ms */
        cairn_notify("WATCHDOG=1");
        uv_timer_start(&d->watchdog_timer, on_watchdog_timer, half, half);
    }
}

/* Descriptors the daemon may open beside its jobs, on top of a second
 * plugin set while a reload's jobs finish with the first (one per plugin):
 * a scan's listing (1), a metrics and a status write at once (a temporary
 * and a directory handle each, 4), the output directory reopened (1), a
 * reload's listing of the plugin directory and a plugin being copied (2). */
#define FD_RESERVE 8

/* Caps the jobs run at once by the descriptor limit, counted once all
 * that the run keeps open is open, and says so when it binds: a burst
 * then waits in the spool instead of meeting EMFILE job after job. */
static void limit_jobs(struct cairn_daemon *d)
{
    size_t wanted = cairn_dispatch_max_active(d->dispatch);
    struct cairn_fd_budget b;
    int rc = cairn_fd_budget(wanted, d->plugins->reg.n_plugins + FD_RESERVE, &b);

    if (rc != 0) {
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot count the open descriptors against the limit (RLIMIT_NOFILE): %s; "
                  "running up to %zu jobs at once regardless",
                  uv_strerror(rc), wanted);
        return;
    }
    if (b.jobs >= wanted)
        return;
    cairn_dispatch_limit_active(d->dispatch, b.jobs);
    /* Room for as many as stream at once: only small jobs' extra room in
     * a burst is lost, which no operator need act on (the default soft
     * limit, 1024, leaves two threads about 250 jobs). */
    if (b.jobs >= cairn_dispatch_max_streaming(d->dispatch))
        return;
    if (b.jobs > 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "the descriptor limit (RLIMIT_NOFILE %llu: %zu open, %zu kept for scans, "
                  "reports and a reload, %zu per job) leaves room for %zu job(s) at once, not "
                  "the %zu the %u worker thread(s) would take: running at most %zu; raise the "
                  "limit (LimitNOFILE=, ulimit -n) to run more",
                  b.limit, b.open, b.reserve, b.per_job, b.jobs, wanted, d->threads, b.jobs);
    else
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "the descriptor limit (RLIMIT_NOFILE %llu: %zu open, %zu kept for scans, "
                  "reports and a reload, %zu per job) leaves room for no job at all: running one "
                  "at a time, each handed back and tried again when it runs out of descriptors; "
                  "raise the limit (LimitNOFILE=, ulimit -n)",
                  b.limit, b.open, b.reserve, b.per_job);
}

int cairn_daemon_run(struct cairn_daemon *d)
{
    const char *what;
    unsigned threads;
    int rc;

    threads = d->threads;
    d->start_ns = uv_hrtime();
    clock_gettime(CLOCK_REALTIME, &d->started_real);
    d->pid = (long)getpid();
    if (gethostname(d->host, sizeof(d->host) - 1) != 0 || d->host[0] == '\0')
        snprintf(d->host, sizeof(d->host), "localhost");
    if ((rc = uv_loop_init(&d->loop)) != 0)
        return rc;
    d->spool.log = &d->log;
    rc = cairn_spool_open(&d->spool, d->cfg.input_dir, d->cfg.output_dir, &what);
    if (rc != 0) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot use %s: %s", what, uv_strerror(rc));
        uv_loop_close(&d->loop);
        return rc;
    }
    rc = cairn_metrics_init(&d->metrics, CAIRN_VERSION);
    if (rc == 0)
        cairn_metrics_set_labels(&d->metrics, d->cfg.metrics_labels);
    if (rc == 0)
        rc = cairn_metrics_set_plugins(&d->metrics, &d->plugins->reg);
    /* Two batches per worker: one being solved, one waiting. */
    if (rc == 0)
        rc = cairn_pool_init(&d->pool, &d->loop, 2 * (size_t)threads + 2, CAIRN_BATCH_BYTES);
    /* The pool has CAIRN_IO_THREADS more threads: keep solving to threads. */
    if (rc == 0)
        cairn_pool_set_max_running(&d->pool, threads);
    if (rc == 0)
        rc = init_handles(d);
    if (rc == 0)
        rc = watch_hangs(d);
    if (rc == 0)
        rc = cairn_daemon_report_new(d, &report_reads, &d->report);
    if (rc == 0)
        rc = cairn_dispatch_new(d, check_done, &d->dispatch);
    if (rc == 0)
        cairn_dispatch_recover(d->dispatch);
    if (rc == 0 && !d->once)
        rc = start_watch(d);
    if (rc != 0) {
        close_all(d);
        uv_run(&d->loop, UV_RUN_DEFAULT);
        goto out;
    }
    log_plugins(d);
    cairn_log(&d->log, CAIRN_LOG_INFO,
              "plugin files: %zu probed, %zu unchanged since an earlier run's probe",
              d->plugins->reg.n_verdicts - d->plugins->reg.reused, d->plugins->reg.reused);
    limit_jobs(d);
    /* Before "watching", which tests and operators wait for. */
    (void)cairn_daemon_survey_status_files(d);
    cairn_log(&d->log, CAIRN_LOG_INFO, "%s %s: %u worker thread(s), output %s",
              d->once       ? "processing"
              : d->watching ? "watching"
                            : "rescanning",
              d->cfg.input_dir, threads, d->cfg.output_dir);

    /* Before the loop serves anything, so it is on nobody's path; another
     * daemon's temporaries are locked, and left alone (tmpfile.h). */
    if ((rc = cairn_tmpfile_sweep(d->spool.out->fd)) > 0)
        cairn_log(&d->log, CAIRN_LOG_INFO, "removed %d temporary file(s) left by a crash", rc);
    else if (rc < 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot look for temporary files left by a crash in %s: %s (they stay, "
                  "hidden; the next start looks again)",
                  d->cfg.output_dir, uv_strerror(rc));
    if ((rc = cairn_tmpfile_sweep(d->spool.failed_fd)) < 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot look for temporary files left by a crash in %s/" CAIRN_FAILED_PATH ": %s "
                  "(they stay, hidden; the next start looks again)",
                  d->cfg.input_dir, uv_strerror(rc));
    cairn_dispatch_scan(d->dispatch, CAIRN_SCAN_FULL);
    start_timers(d);
    /* The status file at once: `cairn status` right after a start finds it. */
    uv_timer_start(&d->live_timer, on_live_timer, 0, 1000);
    start_notify(d);
    if (d->once)
        cairn_progress_start(d);
    check_done(d);
    uv_run(&d->loop, UV_RUN_DEFAULT);
    rc = 0;
    cairn_dispatch_counts(d->dispatch, &d->final);
    if (cairn_dispatch_left_behind(d->dispatch))
        d->runtime_error = 1;
    if (d->abandoned) {
        if (!d->runtime_error)
            cairn_log(&d->log, CAIRN_LOG_INFO,
                      "stopped: %llu job(s) ok, %llu failed, %zu left for the next start",
                      (unsigned long long)d->final.jobs_ok,
                      (unsigned long long)d->final.jobs_failed, d->final.active);
        return 0; /* workers still run: no cleanup */
    }
    cairn_log(&d->log, CAIRN_LOG_INFO, "stopped: %llu job(s) ok, %llu failed",
              (unsigned long long)d->final.jobs_ok, (unsigned long long)d->final.jobs_failed);
out:
    cairn_dispatch_free(d->dispatch);
    cairn_daemon_report_free(d->report);
    cairn_pool_close(&d->pool);
    cairn_hang_free(&d->hang);
    cairn_metrics_free(&d->metrics);
    cairn_spool_close(&d->spool);
    uv_loop_close(&d->loop);
    return rc;
}
