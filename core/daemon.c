/*
 * daemon.c - the spool daemon: notice jobs, claim them, run a bounded
 * number at once, keep metrics, react to signals.
 *
 * Sources of work, in order of speed: inotify (a rename-in or a writer's
 * close is acted on at once), a scan when a file found too young comes of
 * age, and the full rescan every rescan_interval_s, which is the source of
 * truth if anything was missed.
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

#include "job.h"
#include "notify.h"
#include "publish.h"
#include "status.h"
#include "tmpfile.h"

#ifndef CAIRN_VERSION
#define CAIRN_VERSION "0.0.0"
#endif

/* How often systemd's STATUS= line is refreshed. */
#define STATUS_INTERVAL_MS 2000

/* A job whose outputs could not be written waits before its next try,
 * twice as long after each failure in a row, so a full disk is not
 * hammered but a freed one is noticed soon. */
#define RETRY_FIRST_MS 1000
#define RETRY_MAX_MS 60000

static uint64_t ms(double seconds)
{
    return seconds <= 0 ? 0 : (uint64_t)(seconds * 1000.0 + 0.5);
}

/* ---- stopping ---------------------------------------------------------- */

static void close_handle(uv_handle_t *h)
{
    if (h->loop != NULL && !uv_is_closing(h))
        uv_close(h, NULL);
}

/* Closing every handle lets uv_run() return on its own. */
static void close_all(struct cairn_daemon *d)
{
    if (d->watching) {
        cairn_watch_stop(&d->watch);
        d->watching = 0;
    }
    close_handle((uv_handle_t *)&d->rescan_timer);
    close_handle((uv_handle_t *)&d->young_timer);
    close_handle((uv_handle_t *)&d->retry_timer);
    close_handle((uv_handle_t *)&d->metrics_timer);
    close_handle((uv_handle_t *)&d->stop_timer);
    close_handle((uv_handle_t *)&d->status_timer);
    close_handle((uv_handle_t *)&d->watchdog_timer);
    close_handle((uv_handle_t *)&d->progress_timer);
    close_handle((uv_handle_t *)&d->live_timer);
    close_handle((uv_handle_t *)&d->sig_term);
    close_handle((uv_handle_t *)&d->sig_int);
    close_handle((uv_handle_t *)&d->sig_hup);
    cairn_hang_close(&d->hang);
}

/* STATUS= for systemctl status: the live counts an operator asks first. */
static void notify_status(struct cairn_daemon *d, const char *extra)
{
    uint64_t now = uv_hrtime();
    double dt = (double)(now - d->status_ns) / 1e9;
    double rate = d->status_ns && dt > 0 ? (double)(d->records - d->status_records) / dt : 0;
    char msg[256];

    d->status_ns = now;
    d->status_records = d->records;
    snprintf(msg, sizeof(msg),
             "%sSTATUS=%s%zu queued, %zu active, %llu done, %llu failed; %.0f records/s",
             extra ? extra : "", d->stopping ? "stopping: " : "", d->queued, d->active,
             (unsigned long long)d->jobs_ok, (unsigned long long)d->jobs_failed, rate);
    cairn_notify(msg);
}

static void on_status_timer(uv_timer_t *t)
{
    notify_status(t->data, NULL);
}

static void on_watchdog_timer(uv_timer_t *t)
{
    (void)t;
    cairn_notify("WATCHDOG=1");
}

/* 1 when the output directory can take outputs.  The path is followed
 * (spool.h), and a change of state is logged once, not at every try. */
static int output_ready(struct cairn_daemon *d)
{
    int rc = cairn_spool_follow_output(&d->spool, d->cfg.output_dir);

    if (rc != 0 && !d->output_gone)
        cairn_log(&d->log, CAIRN_LOG_ERROR,
                  "output directory %s is unusable: %s; no job is claimed until it is back",
                  d->cfg.output_dir, uv_strerror(rc));
    else if (rc == 0 && d->output_gone)
        cairn_log(&d->log, CAIRN_LOG_INFO, "output directory %s is back", d->cfg.output_dir);
    d->output_gone = rc != 0;
    return rc == 0;
}

/* Recreates state folders someone removed (claims and finishing would
 * fail on them for ever otherwise); returns how many were recreated. */
static int repair_state(struct cairn_daemon *d)
{
    static const char *const sub[] = {"active", "done", "failed", "status"};
    int rc = cairn_spool_repair(&d->spool), n = 0, i;

    if (rc < 0) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot recreate %s/.cairn: %s", d->cfg.input_dir,
                  uv_strerror(rc));
        return 0;
    }
    for (i = 0; i < 4; i++)
        if (rc & (1 << i)) {
            cairn_log(&d->log, CAIRN_LOG_WARNING,
                      "%s/.cairn/%s was removed or moved away: recreated", d->cfg.input_dir,
                      sub[i]);
            n++;
        }
    return n;
}

/* The final metrics, at exit: written now, the loop is closing. */
static void write_metrics(struct cairn_daemon *d)
{
    int rc;

    cairn_metrics_set_gauges(&d->metrics, d->active, d->queued);
    if (!output_ready(d))
        return;
    rc = cairn_metrics_write(&d->metrics, d->spool.out_fd, d->cfg.metrics_file);
    if (rc != 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING, "cannot write %s/%s: %s", d->cfg.output_dir,
                  d->cfg.metrics_file, uv_strerror(rc));
}

static void metrics_written(int rc, void *data)
{
    struct cairn_daemon *d = data;

    d->metrics_busy = 0;
    if (rc != 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING, "cannot write %s/%s: %s", d->cfg.output_dir,
                  d->cfg.metrics_file, uv_strerror(rc));
}

/* The periodic metrics: rendered here, written (and fsync'd) on the pool,
 * so the loop never waits for a disk.  One write at a time. */
static void write_metrics_async(struct cairn_daemon *d)
{
    static const struct cairn_publish_opts opts = {.kind = 'm', .sync = 1, .mode = 0644};
    struct cairn_buf text = {0};
    int rc;

    if (d->metrics_busy || !output_ready(d))
        return;
    cairn_metrics_set_gauges(&d->metrics, d->active, d->queued);
    rc = cairn_metrics_render(&d->metrics, &text);
    if (rc == 0)
        rc = cairn_publish_start(&d->loop, d->spool.out_fd, d->cfg.metrics_file, &text, &opts,
                                 metrics_written, d);
    cairn_buf_free(&text);
    if (rc == 0)
        d->metrics_busy = 1;
    else
        metrics_written(rc, d);
}

static void status_written(int rc, void *data)
{
    struct cairn_daemon *d = data;

    d->status_busy = 0;
    (void)rc; /* best effort: the next tick tries again */
}

/* INPUT/.cairn/status/NAME (status.h), for `cairn status`: rewritten at
 * most once a second while jobs run, and once more when the last ends. */
static void write_status(struct cairn_daemon *d)
{
    static const struct cairn_publish_opts opts = {.kind = 's'};
    struct cairn_status_job *jobs = NULL;
    struct cairn_status_report st;
    struct cairn_buf text = {0};
    const struct cairn_running *r;
    size_t n = 0;
    int rc;

    if (d->status_busy || d->status_name == NULL || (d->active == 0 && !d->status_dirty))
        return;
    if (d->active > 0 && (jobs = calloc(d->active, sizeof(*jobs))) == NULL)
        return;
    for (r = d->jobs; r != NULL && n < d->active; r = r->next) {
        struct cairn_job_info info;

        cairn_job_info(r->job, &info);
        jobs[n++] = (struct cairn_status_job){.name = info.name,
                                              .size = info.size,
                                              .bytes = info.bytes_read,
                                              .records = info.records,
                                              .started = info.started};
    }
    st = (struct cairn_status_report){.host = d->host,
                               .pid = (long)getpid(),
                               .version = CAIRN_VERSION,
                               .started = d->started_real,
                               .jobs = jobs,
                               .n_jobs = n};
    rc = cairn_status_render(&st, &text);
    free(jobs);
    if (rc == 0)
        rc = cairn_publish_start(&d->loop, d->spool.status_fd, d->status_name, &text, &opts,
                                 status_written, d);
    cairn_buf_free(&text);
    if (rc == 0) {
        d->status_busy = 1;
        d->status_dirty = 0;
        d->live_ns = uv_hrtime();
    }
}

static void on_live_timer(uv_timer_t *t)
{
    write_status(t->data);
}

static void drop_queue(struct cairn_daemon *d)
{
    while (d->queue_head != NULL) {
        struct cairn_pending *p = d->queue_head;
        d->queue_head = p->next;
        cairn_nameset_remove(&d->known, p->name);
        free(p);
    }
    d->queue_tail = NULL;
    d->queued = 0;
}

/* Ends the run once nothing is left to wait for. */
static void check_done(struct cairn_daemon *d)
{
    if (d->finished)
        return;
    if (d->stopping ? d->active == 0
                    : d->once && d->active == 0 && d->queued == 0 && d->young_wait_ms == 0) {
        d->finished = 1;
        cairn_progress_stop(d);
        write_metrics(d);
        if (d->status_name != NULL)
            unlinkat(d->spool.status_fd, d->status_name, 0); /* a clean exit */
        close_all(d);
    }
}

void cairn_daemon_abort(struct cairn_daemon *d)
{
    d->abandoned = 1;
    d->finished = 1;
    write_metrics(d);
    close_all(d);
    uv_stop(&d->loop);
}

static void on_stop_timeout(uv_timer_t *t)
{
    struct cairn_daemon *d = t->data;
    struct cairn_running *r;

    /* Workers may still hold these jobs' batches: leave the memory to the
     * process exit, but remove temporary files so nothing stray remains. */
    for (r = d->jobs; r != NULL; r = r->next)
        cairn_job_abandon(r->job, 0);
    cairn_daemon_abort(d);
}

static void begin_stop(struct cairn_daemon *d, const char *why)
{
    if (d->stopping)
        return;
    d->stopping = 1;
    notify_status(d, "STOPPING=1\n");
    cairn_log(&d->log, CAIRN_LOG_INFO, "%s: no new jobs; waiting for %zu active job(s), "
              "at most %.0f s", why, d->active, d->cfg.shutdown_timeout_s);
    if (d->watching) {
        cairn_watch_stop(&d->watch);
        d->watching = 0;
    }
    uv_timer_stop(&d->rescan_timer);
    uv_timer_stop(&d->young_timer);
    uv_timer_stop(&d->retry_timer);
    drop_queue(d);
    if (d->active > 0)
        uv_timer_start(&d->stop_timer, on_stop_timeout, ms(d->cfg.shutdown_timeout_s), 0);
    check_done(d);
}

/* ---- the queue --------------------------------------------------------- */

static void schedule(struct cairn_daemon *d);

static void enqueue(struct cairn_daemon *d, const char *name, int recovered, uint64_t size)
{
    struct cairn_pending *p;
    size_t n = strlen(name);

    if (d->stopping || cairn_nameset_has(&d->known, name) ||
        cairn_nameset_has(&d->retry, name))
        return;
    p = malloc(sizeof(*p) + n + 1);
    if (p == NULL || cairn_nameset_add(&d->known, name) < 0) {
        free(p);
        return; /* out of memory: the next rescan tries again */
    }
    memcpy(p->name, name, n + 1);
    p->recovered = recovered;
    d->jobs_seen++;
    d->bytes_seen += size;
    p->next = NULL;
    if (d->queue_tail != NULL)
        d->queue_tail->next = p;
    else
        d->queue_head = p;
    d->queue_tail = p;
    d->queued++;
}

static void on_retry_timer(uv_timer_t *t);

/* The next try after a failure, backing off; never sooner than the timer
 * already set, and never in the loop turn that failed. */
static void arm_retry(struct cairn_daemon *d)
{
    if (uv_is_active((uv_handle_t *)&d->retry_timer))
        return;
    if (d->retry_ms == 0)
        d->retry_ms = RETRY_FIRST_MS;
    cairn_log(&d->log, CAIRN_LOG_WARNING, "next try in %.0f s", d->retry_ms / 1000.0);
    uv_timer_start(&d->retry_timer, on_retry_timer, d->retry_ms, 0);
    d->retry_ms = d->retry_ms * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : d->retry_ms * 2;
}

static void retry_later(struct cairn_daemon *d, const char *name)
{
    if (d->once) {
        /* --once does not wait for a disk to free up: the job stays in the
         * spool for the next run, and the exit status says so. */
        d->runtime_error = 1;
        return;
    }
    /* Until the timer fires, the name is ignored whatever inotify says of
     * it: a handed-back job cannot come straight back. */
    if (cairn_nameset_add(&d->retry, name) >= 0)
        arm_retry(d);
}

static void write_status(struct cairn_daemon *d);
static void on_job_batch(void *data, const struct cairn_registry *reg,
                         const struct cairn_tally *batch);
static void on_job_end(void *data, struct cairn_job *job, enum cairn_job_outcome outcome);

/* Starts one job and lists it as active.  0, or a negative errno when
 * nothing was started. */
static int start_job(struct cairn_daemon *d, const char *name, int recovered)
{
    size_t n = strlen(name);
    struct cairn_running *r = malloc(sizeof(*r) + n + 1);
    struct cairn_job_env env;
    int rc;

    if (r == NULL)
        return -ENOMEM;
    memcpy(r->name, name, n + 1);
    r->d = d;
    env = (struct cairn_job_env){.loop = &d->loop,
                                 .pool = &d->pool,
                                 .spool = &d->spool,
                                 .cfg = &d->cfg,
                                 .plugins = d->plugins,
                                 .log = &d->log,
                                 .hang = &d->hang,
                                 .on_batch = on_job_batch,
                                 .on_end = on_job_end,
                                 .data = r};
    rc = cairn_job_start(&env, name, recovered, &r->job);
    if (rc != 0) {
        free(r);
        return rc;
    }
    r->prev = NULL;
    r->next = d->jobs;
    if (d->jobs != NULL)
        d->jobs->prev = r;
    d->jobs = r;
    d->active++;
    d->status_dirty = 1;
    /* A job that began after a quiet spell is shown at once. */
    if (uv_hrtime() - d->live_ns >= 1000000000ull)
        write_status(d);
    return 0;
}

/* Claims and starts queued jobs while there is room. */
static void schedule(struct cairn_daemon *d)
{
    if (!d->stopping && d->active < d->max_active && d->queue_head != NULL && !output_ready(d)) {
        /* Nothing could be written: leave every job where it is. */
        if (d->once) {
            d->runtime_error = 1;
            drop_queue(d);
            d->young_wait_ms = 0;
        } else {
            drop_queue(d);
            arm_retry(d);
        }
    }
    while (!d->stopping && d->active < d->max_active && d->queue_head != NULL) {
        struct cairn_pending *p = d->queue_head;
        int rc;

        d->queue_head = p->next;
        if (d->queue_head == NULL)
            d->queue_tail = NULL;
        d->queued--;
        rc = start_job(d, p->name, p->recovered);
        if (rc != 0) {
            /* Nothing was claimed (out of memory): it waits in the spool. */
            cairn_nameset_remove(&d->known, p->name);
            cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot start job %s: %s", p->name,
                      uv_strerror(rc));
            retry_later(d, p->name);
        }
        free(p);
    }
    check_done(d);
}

/* ---- scanning ---------------------------------------------------------- */

static void on_found(void *data, const char *name, const struct stat *st)
{
    struct cairn_daemon *d = data;
    uint64_t age_ms;

    if (d->watching && cairn_watch_is_writing(&d->watch, name))
        return; /* its writer has not closed it: IN_CLOSE_WRITE will tell */
    age_ms = cairn_settle_age_ms(&d->settle, name, st, &d->scan_time, uv_hrtime());
    if (age_ms >= d->cfg.min_age_ms) {
        enqueue(d, name, 0, (uint64_t)st->st_size);
    } else {
        uint64_t wait = d->cfg.min_age_ms - age_ms;
        if (d->young_wait_ms == 0 || wait < d->young_wait_ms)
            d->young_wait_ms = wait;
    }
}

static void on_young_timer(uv_timer_t *t);

static void scan(struct cairn_daemon *d)
{
    int rc;

    if (d->stopping)
        return;
    d->young_wait_ms = 0;
    repair_state(d);
    clock_gettime(CLOCK_REALTIME, &d->scan_time);
    cairn_settle_begin_scan(&d->settle);
    rc = cairn_spool_scan(&d->spool, 0, on_found, d);
    if (rc == 0)
        cairn_settle_end_scan(&d->settle);
    if (rc != 0)
        cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot scan %s: %s", d->cfg.input_dir,
                  uv_strerror(rc));
    if (d->young_wait_ms > 0)
        uv_timer_start(&d->young_timer, on_young_timer, d->young_wait_ms + 5, 0);
    schedule(d);
}

static void on_young_timer(uv_timer_t *t)
{
    scan(t->data);
}

static void on_rescan_timer(uv_timer_t *t)
{
    scan(t->data);
}

static void on_retry_timer(uv_timer_t *t)
{
    struct cairn_daemon *d = t->data;

    cairn_nameset_free(&d->retry);
    scan(d);
}

static void on_recovered(void *data, const char *name, const struct stat *st)
{
    enqueue(data, name, 1, (uint64_t)st->st_size);
}

/* ---- events ------------------------------------------------------------ */

static void on_watch(struct cairn_watch *w, enum cairn_watch_event ev, const char *name)
{
    struct cairn_daemon *d = w->data;

    switch (ev) {
    case CAIRN_WATCH_READY:
        enqueue(d, name, 0, 0);
        schedule(d);
        break;
    case CAIRN_WATCH_OVERFLOW:
        cairn_log(&d->log, CAIRN_LOG_WARNING, "inotify queue overflowed: rescanning");
        scan(d);
        break;
    case CAIRN_WATCH_GONE:
        cairn_log(&d->log, CAIRN_LOG_ERROR, "input directory %s was removed or moved",
                  d->cfg.input_dir);
        d->runtime_error = 1;
        begin_stop(d, "input directory gone");
        break;
    }
}

/* Loop thread, after each batch a job wrote: the daemon's counters. */
static void on_job_batch(void *data, const struct cairn_registry *reg,
                         const struct cairn_tally *batch)
{
    struct cairn_running *r = data;

    cairn_metrics_add_tally(&r->d->metrics, reg, batch);
    r->d->records += batch->records;
}

/* Loop thread, once per job: count its outcome, decide what comes next
 * for its name, and schedule more work. */
static void on_job_end(void *data, struct cairn_job *job, enum cairn_job_outcome outcome)
{
    struct cairn_running *r = data;
    struct cairn_daemon *d = r->d;
    struct cairn_job_info info;
    struct stat st;

    cairn_job_info(job, &info);
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        d->jobs = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    d->active--;
    d->status_dirty = 1;
    d->bytes_ended += info.size;
    cairn_metrics_add_bytes(&d->metrics, info.bytes_read);
    cairn_nameset_remove(&d->known, r->name);
    switch (outcome) {
    case CAIRN_JOB_DONE:
    case CAIRN_JOB_FAILED:
        cairn_metrics_job_done(&d->metrics, outcome == CAIRN_JOB_DONE, info.wall_seconds);
        if (outcome == CAIRN_JOB_DONE)
            d->jobs_ok++;
        else
            d->jobs_failed++;
        d->retry_ms = 0; /* outputs work again: back-off starts over */
        if (!d->stopping && fstatat(d->spool.in_fd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            !(d->watching && cairn_watch_is_writing(&d->watch, r->name)))
            enqueue(d, r->name, 0, (uint64_t)st.st_size); /* a new file of that name came */
        break;
    case CAIRN_JOB_RETRY:
        repair_state(d); /* done/ or failed/ may be what failed */
        retry_later(d, r->name);
        break;
    case CAIRN_JOB_GONE:
        /* Vanished, another daemon's, or active/ itself was gone. */
        if (repair_state(d) > 0 && !d->stopping &&
            fstatat(d->spool.in_fd, r->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
            enqueue(d, r->name, 0, (uint64_t)st.st_size);
        break;
    case CAIRN_JOB_BUSY:
        d->name_busy = 1; /* same name still active: look again when it ends */
        break;
    }
    free(r);
    if (d->name_busy && outcome != CAIRN_JOB_BUSY) {
        d->name_busy = 0;
        scan(d);
    }
    schedule(d);
}

static void on_metrics_timer(uv_timer_t *t)
{
    write_metrics_async(t->data);
}

static void on_signal(uv_signal_t *s, int signum)
{
    struct cairn_daemon *d = s->data;

    if (signum == SIGHUP) {
        cairn_notify_reloading();
        cairn_daemon_reload(d);
        notify_status(d, "READY=1\n");
    }
    else
        begin_stop(d, signum == SIGTERM ? "SIGTERM" : "SIGINT");
}

/* ---- start ------------------------------------------------------------- */

void cairn_daemon_log_plugins(const struct cairn_daemon *d)
{
    size_t i;

    /* The inode says which install of the file runs: a new one after an
     * upgrade by rename, the same one after a reload of an unchanged file. */
    for (i = 0; i < d->plugins->reg.n_plugins; i++) {
        const struct cairn_plugin_handle *h = &d->plugins->reg.plugins[i];
        cairn_log(&d->log, CAIRN_LOG_INFO,
                  "plugin %s %s loaded from %s (device %u:%u, inode %llu)", h->desc->name,
                  h->desc->version, h->path, major(h->dev), minor(h->dev),
                  (unsigned long long)h->ino);
    }
}

static int init_handles(struct cairn_daemon *d)
{
    uv_timer_t *timers[] = {&d->rescan_timer,  &d->young_timer,  &d->retry_timer,
                            &d->metrics_timer, &d->stop_timer,   &d->status_timer,
                            &d->watchdog_timer, &d->progress_timer, &d->live_timer};
    uv_signal_t *signals[] = {&d->sig_term, &d->sig_int, &d->sig_hup};
    int nums[] = {SIGTERM, SIGINT, SIGHUP};
    size_t i;
    int rc;

    for (i = 0; i < sizeof(timers) / sizeof(timers[0]); i++) {
        if ((rc = uv_timer_init(&d->loop, timers[i])) != 0)
            return rc;
        timers[i]->data = d;
    }
    for (i = 0; i < sizeof(signals) / sizeof(signals[0]); i++) {
        if ((rc = uv_signal_init(&d->loop, signals[i])) != 0)
            return rc;
        signals[i]->data = d;
        if ((rc = uv_signal_start(signals[i], on_signal, nums[i])) != 0)
            return rc;
    }
    return 0;
}

void cairn_daemon_start_timers(struct cairn_daemon *d)
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
    notify_status(d, "READY=1\n");
    uv_timer_start(&d->status_timer, on_status_timer, STATUS_INTERVAL_MS, STATUS_INTERVAL_MS);
    if (wd > 0) {
        uint64_t half = wd / 2000 ? wd / 2000 : 1; /* half the period, in ms */
        cairn_notify("WATCHDOG=1");
        uv_timer_start(&d->watchdog_timer, on_watchdog_timer, half, half);
    }
}

int cairn_daemon_run(struct cairn_daemon *d)
{
    const char *what;
    unsigned threads;
    int rc;

    threads = d->threads;
    d->start_ns = uv_hrtime();
    clock_gettime(CLOCK_REALTIME, &d->started_real);
    if (gethostname(d->host, sizeof(d->host) - 1) != 0 || d->host[0] == '\0')
        snprintf(d->host, sizeof(d->host), "localhost");
    d->status_name = cairn_status_file_name();
    d->max_active = 4 * (size_t)threads;
    if ((rc = uv_loop_init(&d->loop)) != 0)
        return rc;
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
        rc = cairn_daemon_watch_hangs(d);
    if (rc == 0 && !d->once) {
        rc = cairn_watch_start(&d->watch, &d->loop, d->cfg.input_dir, d->spool.in_fd, on_watch,
                               d);
        d->watching = rc == 0;
        if (rc != 0)
            cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot watch %s: %s", d->cfg.input_dir,
                      uv_strerror(rc));
    }
    if (rc != 0) {
        close_all(d);
        uv_run(&d->loop, UV_RUN_DEFAULT);
        goto out;
    }
    cairn_daemon_log_plugins(d);
    cairn_log(&d->log, CAIRN_LOG_INFO, "%s %s: %u worker thread(s), output %s",
              d->once ? "processing" : "watching", d->cfg.input_dir, threads,
              d->cfg.output_dir);

    /* Jobs a crash left in active/ first: they were claimed before anything
     * new.  Another live daemon's jobs are skipped by their lock. */
    if ((rc = cairn_tmpfile_sweep(d->spool.out_fd)) > 0)
        cairn_log(&d->log, CAIRN_LOG_INFO, "removed %d temporary file(s) left by a crash", rc);
    cairn_tmpfile_sweep(d->spool.failed_fd);
    cairn_spool_scan(&d->spool, 1, on_recovered, d);
    scan(d);
    cairn_daemon_start_timers(d);
    uv_timer_start(&d->live_timer, on_live_timer, 1000, 1000);
    start_notify(d);
    if (d->once)
        cairn_progress_start(d);
    check_done(d);
    uv_run(&d->loop, UV_RUN_DEFAULT);
    rc = 0;
    if (d->abandoned)
        return d->runtime_error ? 1 : 0; /* workers still run: no cleanup */
    cairn_log(&d->log, CAIRN_LOG_INFO, "stopped: %llu job(s) ok, %llu failed",
              (unsigned long long)d->jobs_ok, (unsigned long long)d->jobs_failed);
out:
    drop_queue(d);
    cairn_nameset_free(&d->known);
    cairn_nameset_free(&d->retry);
    cairn_settle_free(&d->settle);
    free(d->status_name);
    cairn_pool_close(&d->pool);
    cairn_hang_free(&d->hang);
    cairn_metrics_free(&d->metrics);
    cairn_spool_close(&d->spool);
    uv_loop_close(&d->loop);
    if (rc != 0)
        return rc;
    return d->runtime_error || (d->once && d->jobs_failed > 0) ? 1 : 0;
}
