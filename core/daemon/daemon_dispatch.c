/*
 * daemon_dispatch.c - the queue, scans and job ends (daemon_dispatch.h).
 *
 * Sources of work, in order of speed: inotify (a rename-in or a writer's
 * close is acted on at once; daemon.c passes it on), a scan when a file
 * found too young comes of age, and the full rescan every
 * rescan_interval_s, which is the source of truth if anything was missed.
 */
#include "daemon_dispatch.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon_report.h"
#include "job.h"

/* A job whose outputs could not be written waits before its next try,
 * twice as long after each failure in a row, so a full disk is not
 * hammered but a freed one is noticed soon. */
#define RETRY_FIRST_MS 1000
#define RETRY_MAX_MS   60000

void cairn_dispatch_enqueue(struct cairn_daemon *d, const char *name, int recovered, uint64_t size)
{
    int rc;

    if (d->stopping || cairn_nameset_has(&d->retry, name))
        return;
    /* Already taken on, or out of memory: then the next scan tries again.
     * Taken, it is a new file under a running job's name (or the same one
     * seen again): the job's end looks for it (on_job_end). */
    rc = cairn_queue_push(&d->queue, name, recovered);
    if (rc == 1 && cairn_nameset_add(&d->seen_taken, name) < 0)
        d->seen_taken_lost = 1;
    if (rc != 0)
        return;
    d->jobs_seen++;
    d->bytes_seen += size;
}

static void on_retry_timer(uv_timer_t *t)
{
    struct cairn_daemon *d = t->data;

    cairn_nameset_free(&d->retry);
    cairn_dispatch_scan(d, CAIRN_SCAN_FULL);
}

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

/* ---- running jobs ------------------------------------------------------ */

/* Loop thread, after each batch a job wrote: the daemon's counters. */
static void on_job_batch(void *data, const struct cairn_registry *reg,
                         const struct cairn_tally *batch)
{
    struct cairn_running *r = data;

    cairn_metrics_add_tally(&r->d->metrics, reg, batch);
    r->d->records += batch->records;
}

/* Looks again, on the pool, for a file of this name in the spool: one may
 * have come while the job ran (inotify or a scan said so, but the name was
 * taken).  Only then: a lookup is a trip through the pool and back, and
 * most jobs' names are never seen twice.  Without inotify (--once, or a
 * watch that failed), or when a name could not be noted, always. */
static void look_again(struct cairn_daemon *d, const char *name, int seen)
{
    if (!seen && d->watching && !d->seen_taken_lost)
        return;
    if (!d->stopping && cairn_scanner_lookup(&d->scanner, name) != 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot look for a new %s now (out of memory): the next rescan will", name);
}

/* Loop thread, once per job: count its outcome, decide what comes next
 * for its name, and schedule more work. */
static void on_job_end(void *data, struct cairn_job *job, enum cairn_job_outcome outcome)
{
    struct cairn_running *r = data;
    struct cairn_daemon *d = r->d;
    struct cairn_job_info info;
    /* Forgotten whatever the outcome: the scans that follow the others
     * list the whole spool anyway. */
    int seen = cairn_nameset_remove(&d->seen_taken, r->name) > 0;

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
    cairn_queue_release(&d->queue, r->name);
    switch (outcome) {
    case CAIRN_JOB_DONE:
    case CAIRN_JOB_FAILED:
        cairn_metrics_job_done(&d->metrics, outcome == CAIRN_JOB_DONE, info.wall_seconds);
        if (outcome == CAIRN_JOB_DONE)
            d->jobs_ok++;
        else
            d->jobs_failed++;
        d->retry_ms = 0; /* outputs work again: back-off starts over */
        look_again(d, r->name, seen);
        break;
    case CAIRN_JOB_RETRY:
        cairn_dispatch_scan(d, 0); /* done/ or failed/ may be what failed */
        retry_later(d, info.back_as != NULL ? info.back_as : r->name);
        break;
    case CAIRN_JOB_GONE:
        /* Vanished, another daemon's, or active/ itself was gone: the scan
         * recreates it, and only then is the input directory listed again
         * (scanned()).  Looking the name up at once would claim it again
         * and again while active/ cannot be recreated. */
        cairn_dispatch_scan(d, 0);
        break;
    case CAIRN_JOB_BUSY:
        d->name_busy = 1; /* same name still active: look again when it ends */
        break;
    }
    free(r);
    if (d->name_busy && outcome != CAIRN_JOB_BUSY) {
        /* active/ too: the job that kept the name busy may be one a
         * crash left there, which must run before the new one. */
        d->name_busy = 0;
        cairn_dispatch_scan(d, CAIRN_SCAN_FULL | CAIRN_SCAN_ACTIVE);
    }
    cairn_dispatch_schedule(d);
}

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
    env = (struct cairn_job_env){ .loop = &d->loop,
                                  .pool = &d->pool,
                                  .file_work = &d->file_work,
                                  .spool = &d->spool,
                                  .cfg = &d->cfg,
                                  .plugins = d->plugins,
                                  .log = &d->log,
                                  .hang = &d->hang,
                                  .on_batch = on_job_batch,
                                  .on_end = on_job_end,
                                  .data = r };
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
        cairn_daemon_write_status(d);
    return 0;
}

void cairn_dispatch_schedule(struct cairn_daemon *d)
{
    struct cairn_pending *p;

    if (!d->stopping && d->active < d->max_active && d->queue.n > 0 &&
        !cairn_daemon_output_ready(d)) {
        /* Nothing could be written: leave every job where it is. */
        if (d->once) {
            d->runtime_error = 1;
            d->young_wait_ms = 0;
        } else {
            arm_retry(d);
        }
        cairn_queue_drop(&d->queue);
    }
    while (!d->stopping && d->active < d->max_active && (p = cairn_queue_pop(&d->queue)) != NULL) {
        int rc = start_job(d, p->name, p->recovered);

        if (rc != 0) {
            /* Nothing was claimed (out of memory): it waits in the spool. */
            cairn_queue_release(&d->queue, p->name);
            cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot start job %s: %s", p->name,
                      uv_strerror(rc));
            retry_later(d, p->name);
        }
        free(p);
    }
    d->check_done(d);
}

/* ---- scanning ---------------------------------------------------------- */

static void on_found(struct cairn_daemon *d, const struct cairn_scan_entry *e,
                     const struct timespec *scan_time)
{
    uint64_t age_ms;

    if (d->watching && cairn_watch_is_writing(&d->watch, e->name))
        return; /* its writer has not closed it: IN_CLOSE_WRITE will tell */
    age_ms = cairn_settle_age_ms(&d->settle, e->name, &e->st, scan_time, uv_hrtime());
    if (age_ms >= d->cfg.min_age_ms) {
        cairn_dispatch_enqueue(d, e->name, 0, (uint64_t)e->st.st_size);
    } else {
        uint64_t wait = d->cfg.min_age_ms - age_ms;
        if (d->young_wait_ms == 0 || wait < d->young_wait_ms)
            d->young_wait_ms = wait;
    }
}

static void say_ignored(struct cairn_daemon *d, const char *name)
{
    cairn_log(&d->log, CAIRN_LOG_WARNING,
              "%s/%s is never taken: a job file is named NAME.jsonl (dot-files and *.tmp are "
              "left alone, as a producer's temporaries)",
              d->cfg.input_dir, name);
}

void cairn_dispatch_ignored(struct cairn_daemon *d, const char *name)
{
    if (cairn_nameset_has(&d->ignored, name))
        return;
    say_ignored(d, name);
    cairn_nameset_add(&d->ignored, name); /* out of memory: said again later */
    cairn_nameset_add(&d->ignored_recent, name);
}

/* Each file a producer probably meant as a job but named so that it is
 * never taken is said once while it stays there: the set is rebuilt from
 * each full listing, so a name removed and brought back is said again.
 * The names inotify reported since the last rebuild are kept too: the
 * listing may have begun before they arrived (it was said twice then),
 * and every later listing begins after this rebuild, so it sees them. */
static void log_ignored(struct cairn_daemon *d, const struct cairn_scan_list *l)
{
    struct cairn_nameset seen = { 0 };
    size_t i;

    for (i = 0; i < l->n; i++) {
        if (!cairn_nameset_has(&d->ignored, l->v[i].name))
            say_ignored(d, l->v[i].name);
        cairn_nameset_add(&seen, l->v[i].name);
    }
    cairn_nameset_merge(&seen, &d->ignored_recent); /* out of memory: said again */
    cairn_nameset_free(&d->ignored_recent);
    cairn_nameset_free(&d->ignored);
    d->ignored = seen;
}

static void on_young_timer(uv_timer_t *t)
{
    cairn_dispatch_scan(t->data, CAIRN_SCAN_FULL);
}

/* A full listing of the input directory, sorted. */
static void sort_listing(struct cairn_daemon *d, const struct cairn_scan *c)
{
    size_t i;

    d->young_wait_ms = 0;
    if (c->input.rc != 0)
        cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot scan %s: %s", d->cfg.input_dir,
                  uv_strerror(c->input.rc));
    cairn_settle_begin_scan(&d->settle);
    for (i = 0; i < c->input.n; i++)
        on_found(d, &c->input.v[i], &c->began);
    if (c->input.rc == 0) {
        cairn_settle_end_scan(&d->settle);
        log_ignored(d, &c->ignored);
    }
    if (d->young_wait_ms > 0)
        uv_timer_start(&d->young_timer, on_young_timer, d->young_wait_ms + 5, 0);
}

/* 1 when one of our running jobs has this file in active/ now (under the
 * name it was claimed as, which may differ from the one queued). */
static int running_as(const struct cairn_daemon *d, const char *name)
{
    const struct cairn_running *r;

    for (r = d->jobs; r != NULL; r = r->next) {
        struct cairn_job_info info;

        cairn_job_info(r->job, &info);
        if (strcmp(info.name, name) == 0)
            return 1;
    }
    return 0;
}

/* Jobs found in active/ that nobody runs: a crash left them there, or a
 * daemon sharing the spool died.  Another live daemon's jobs are skipped
 * at start by their lock. */
static void recover(struct cairn_daemon *d, const struct cairn_scan_list *l)
{
    size_t i;

    if (l->rc != 0)
        cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot scan %s/.cairn/active: %s", d->cfg.input_dir,
                  uv_strerror(l->rc));
    for (i = 0; i < l->n; i++)
        if (!running_as(d, l->v[i].name))
            cairn_dispatch_enqueue(d, l->v[i].name, 1, (uint64_t)l->v[i].st.st_size);
}

void cairn_dispatch_recover(struct cairn_daemon *d)
{
    struct cairn_scan_list l = { 0 };

    l.rc = cairn_scan_list_jobs(d->spool.active_fd, &l);
    recover(d, &l);
    cairn_scan_list_free(&l);
}

static void scanned(struct cairn_scanner *s, const struct cairn_scan *c)
{
    struct cairn_daemon *d = s->data;
    size_t i;

    if (d->stopping) {
        d->check_done(d);
        return;
    }
    /* A state folder was recreated: a job whose claim failed on it is
     * still in the input directory, so list it again. */
    if (cairn_daemon_log_repair(d, c->repaired) > 0)
        cairn_dispatch_scan(d, CAIRN_SCAN_FULL | CAIRN_SCAN_ACTIVE);
    if (c->what & CAIRN_SCAN_ACTIVE)
        recover(d, &c->active);
    for (i = 0; i < c->found.n; i++)
        if (!(d->watching && cairn_watch_is_writing(&d->watch, c->found.v[i].name)))
            cairn_dispatch_enqueue(d, c->found.v[i].name, 0, (uint64_t)c->found.v[i].st.st_size);
    if (c->what & CAIRN_SCAN_FULL) {
        sort_listing(d, c);
        d->scanned = 1;
    }
    cairn_dispatch_schedule(d);
}

void cairn_dispatch_scan(struct cairn_daemon *d, int what)
{
    int rc;

    if (d->stopping)
        return;
    if ((rc = cairn_scanner_request(&d->scanner, what)) != 0)
        cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot scan %s: %s; the next rescan tries again",
                  d->cfg.input_dir, uv_strerror(rc));
}

void cairn_dispatch_init(struct cairn_daemon *d)
{
    cairn_scanner_init(&d->scanner, &d->loop, &d->spool, scanned, d);
}

int cairn_dispatch_idle(const struct cairn_daemon *d)
{
    return d->active == 0 && d->queue.n == 0 && d->young_wait_ms == 0 && d->scanned &&
           !cairn_scanner_busy(&d->scanner);
}

void cairn_dispatch_stop(struct cairn_daemon *d)
{
    uv_timer_stop(&d->young_timer);
    uv_timer_stop(&d->retry_timer);
    cairn_scanner_stop(&d->scanner);
    cairn_queue_drop(&d->queue);
}

void cairn_dispatch_free(struct cairn_daemon *d)
{
    cairn_queue_free(&d->queue);
    cairn_nameset_free(&d->retry);
    cairn_nameset_free(&d->seen_taken);
    cairn_nameset_free(&d->ignored);
    cairn_nameset_free(&d->ignored_recent);
    cairn_scanner_free(&d->scanner);
    cairn_settle_free(&d->settle);
}
