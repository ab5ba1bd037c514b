/*
 * daemon_dispatch.c - the queue, scans and job ends (daemon_dispatch.h).
 *
 * Sources of work, in order of speed: inotify (a rename-in or a writer's
 * close is acted on at once; daemon.c passes it on), a scan when a file
 * found too young comes of age, and the full rescan every
 * rescan_interval_s, which is the source of truth if anything was missed.
 *
 * Every name the dispatcher knows has one state in one table (names): a
 * name is queued, or running, or backing off, or never taken and said so,
 * or waiting for a same-named job in active/ to end; absent, it is free.
 */
#include "daemon_dispatch.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attempts.h"
#include "daemon_ctx.h"
#include "daemon_report.h"
#include "job.h"
#include "layout.h"
#include "namemap.h"
#include "queue.h"
#include "scanner.h"
#include "settle.h"

/* A job whose outputs could not be written waits before its next try,
 * twice as long after each failure in a row, so a full disk is not
 * hammered but a freed one is noticed soon. */
#define RETRY_FIRST_MS 1000
#define RETRY_MAX_MS   60000

enum name_state {
    NAME_QUEUED,
    /* Queued or running, and seen again since: a new file may wait under
     * the name (a recovered job runs the one in active/), so the job's end
     * looks for it. */
    NAME_QUEUED_AGAIN,
    NAME_RUNNING,
    NAME_RUNNING_AGAIN,
    /* Its outputs failed: whatever inotify says of it, the name waits for
     * retry_timer, so a handed-back job cannot come straight back. */
    NAME_BACKING_OFF,
    /* Its claim met a same-named job in active/ (one a crash left there,
     * which runs first): looked for again when another job ends. */
    NAME_BUSY,
    /* Never taken (spool.h) and said so in the log, once while it stays:
     * the set is rebuilt from each full listing (log_ignored). */
    NAME_IGNORED,
    NAME_IGNORED_NEW,   /* ... reported by inotify since the last listing */
    NAME_IGNORED_LISTED /* ... in the listing being sorted */
};

/* A running job, as the dispatcher lists it. */
struct running {
    struct cairn_dispatch *s;
    struct running *prev;
    struct running *next;
    struct cairn_job *job;
    uint64_t bytes_counted; /* of its bytes read, those in cairn_bytes_read_total */
    char name[];            /* NAME.jsonl, as queued */
};

struct cairn_dispatch {
    struct cairn_daemon *d; /* read: its loop, configuration, spool, pool */
    void (*on_idle)(struct cairn_daemon *d);
    struct cairn_namemap names; /* enum name_state */
    size_t busy;                /* names in NAME_BUSY */
    struct cairn_queue queue;   /* the NAME_QUEUED* names, oldest first */
    struct cairn_scanner scanner;
    struct cairn_finisher finisher; /* every job's publish (finisher.h) */
    struct cairn_gate streams;      /* the jobs streaming at once (gate.h) */
    struct cairn_settle settle;     /* files with a future mtime, watched */
    struct running *jobs;
    size_t active;
    size_t max_active;
    uv_timer_t young_timer; /* when a too-young file comes of age */
    uv_timer_t retry_timer; /* after an output failure, backing off */
    /* The output directory was found usable since the loop last polled
     * (output_usable): a burst's hundreds of schedules in one loop turn
     * look once, not twice a job. */
    uv_prepare_t turn;
    int output_checked;
    uint64_t young_wait_ms; /* shortest wait a scan found, or 0 */
    uint64_t retry_ms;      /* the next output-failure back-off, or 0 */
    int retry_active;       /* a job to retry was left in active/ */
    int scanned;            /* the first full listing has been sorted */
    int left_behind;        /* --once: a job stays in the spool */
    int stopping;
    struct cairn_dispatch_counts counts; /* but queued, active, bytes_done */
    uint64_t bytes_ended;
};

static void enqueue(struct cairn_dispatch *s, const char *name, int recovered, uint64_t size)
{
    int state = cairn_namemap_get(&s->names, name);

    if (s->stopping)
        return;
    switch (state) {
    case NAME_QUEUED:
    case NAME_RUNNING:
        /* The entry is there: setting its state cannot fail. */
        cairn_namemap_set(&s->names, name,
                          state == NAME_QUEUED ? NAME_QUEUED_AGAIN : NAME_RUNNING_AGAIN);
        return;
    case NAME_QUEUED_AGAIN:
    case NAME_RUNNING_AGAIN:
    case NAME_BACKING_OFF: return;
    case NAME_BUSY: s->busy--; break;
    default: break;
    }
    /* Out of memory: then the next scan tries again. */
    if (cairn_namemap_set(&s->names, name, NAME_QUEUED) < 0)
        return;
    if (cairn_queue_push(&s->queue, name, recovered) != 0) {
        cairn_namemap_remove(&s->names, name);
        return;
    }
    s->counts.jobs_seen++;
    s->counts.bytes_seen += size;
}

/* Forgets the queued names; running ones stay. */
static void drop_queue(struct cairn_dispatch *s)
{
    struct cairn_pending *p;

    while ((p = cairn_queue_pop(&s->queue)) != NULL) {
        cairn_namemap_remove(&s->names, p->name);
        free(p);
    }
}

static int end_back_off(const char *name, int state, void *data)
{
    (void)name, (void)data;
    return state == NAME_BACKING_OFF ? -1 : state;
}

static void on_retry_timer(uv_timer_t *t)
{
    struct cairn_dispatch *s = t->data;

    cairn_namemap_update(&s->names, end_back_off, NULL);
    /* active/ too when a job's hand-back could not rename it out: it is
     * run from there, even without a periodic rescan. */
    cairn_dispatch_scan(s, CAIRN_SCAN_FULL | (s->retry_active ? CAIRN_SCAN_ACTIVE : 0));
    s->retry_active = 0;
}

/* The next try after a failure, backing off; never sooner than the timer
 * already set, and never in the loop turn that failed. */
static void arm_retry(struct cairn_dispatch *s)
{
    if (uv_is_active((uv_handle_t *)&s->retry_timer))
        return;
    if (s->retry_ms == 0)
        s->retry_ms = RETRY_FIRST_MS;
    cairn_log(&s->d->log, CAIRN_LOG_WARNING, "next try in %.0f s", s->retry_ms / 1000.0);
    uv_timer_start(&s->retry_timer, on_retry_timer, s->retry_ms, 0);
    s->retry_ms = s->retry_ms * 2 > RETRY_MAX_MS ? RETRY_MAX_MS : s->retry_ms * 2;
}

static void retry_later(struct cairn_dispatch *s, const char *name)
{
    if (s->d->once) {
        /* --once does not wait for a disk to free up: the job stays in the
         * spool for the next run, and the exit status says so. */
        s->left_behind = 1;
        return;
    }
    /* A name queued or running already (a hand-back under another job's
     * name) is left to that job. */
    if (cairn_namemap_get(&s->names, name) < 0 &&
        cairn_namemap_set(&s->names, name, NAME_BACKING_OFF) >= 0)
        arm_retry(s);
}

/* ---- running jobs ------------------------------------------------------ */

/* Loop thread, after each batch a job wrote: the daemon's counters. */
static void on_job_batch(void *data, const struct cairn_registry *reg,
                         const struct cairn_tally *batch)
{
    struct running *r = data;

    struct cairn_job_info info;

    cairn_metrics_add_tally(&r->s->d->metrics, reg, batch);
    r->s->counts.records += batch->records;
    /* Bytes as they are read, like the records: a long job's rate shows
     * while it runs, not in one step at its end. */
    cairn_job_info(r->job, &info);
    if (info.bytes_read > r->bytes_counted) {
        cairn_metrics_add_bytes(&r->s->d->metrics, info.bytes_read - r->bytes_counted);
        r->bytes_counted = info.bytes_read;
    }
}

/* Looks again, on the pool, for a file of this name in the spool: one may
 * have come while the job ran (inotify or a scan said so, but the name was
 * taken).  Only then: a lookup is a trip through the pool and back, and
 * most jobs' names are never seen twice.  Without inotify (--once, or a
 * watch that failed), always. */
static void look_again(struct cairn_dispatch *s, const char *name, int seen)
{
    if (!seen && s->d->watching)
        return;
    if (!s->stopping && cairn_scanner_lookup(&s->scanner, name) != 0)
        cairn_log(&s->d->log, CAIRN_LOG_WARNING,
                  "cannot look for a new %s now (out of memory): the next rescan will", name);
}

static int end_busy(const char *name, int state, void *data)
{
    (void)name, (void)data;
    return state == NAME_BUSY ? -1 : state;
}

static void schedule(struct cairn_dispatch *s);

/* Loop thread, once per job: count its outcome, decide what comes next
 * for its name, and schedule more work. */
static void on_job_end(void *data, struct cairn_job *job, enum cairn_job_outcome outcome)
{
    struct running *r = data;
    struct cairn_dispatch *s = r->s;
    struct cairn_daemon *d = s->d;
    struct cairn_job_info info;
    int seen = cairn_namemap_get(&s->names, r->name) == NAME_RUNNING_AGAIN;

    cairn_job_info(job, &info);
    if (r->prev != NULL)
        r->prev->next = r->next;
    else
        s->jobs = r->next;
    if (r->next != NULL)
        r->next->prev = r->prev;
    s->active--;
    s->bytes_ended += info.size;
    cairn_daemon_status_changed(d);
    if (info.bytes_read > r->bytes_counted)
        cairn_metrics_add_bytes(&d->metrics, info.bytes_read - r->bytes_counted);
    cairn_namemap_remove(&s->names, r->name);
    switch (outcome) {
    case CAIRN_JOB_DONE:
    case CAIRN_JOB_FAILED:
        cairn_metrics_job_done(&d->metrics, outcome == CAIRN_JOB_DONE, info.wall_seconds);
        if (outcome == CAIRN_JOB_DONE)
            s->counts.jobs_ok++;
        else
            s->counts.jobs_failed++;
        s->retry_ms = 0; /* outputs work again: back-off starts over */
        look_again(s, r->name, seen);
        break;
    case CAIRN_JOB_RETRY:
        cairn_dispatch_scan(s, 0); /* done/ or failed/ may be what failed */
        s->retry_active |= info.in_active;
        retry_later(s, info.back_as != NULL ? info.back_as : r->name);
        break;
    case CAIRN_JOB_GONE:
        /* Vanished, another daemon's, or active/ itself was gone: the scan
         * recreates it, and only then is the input directory listed again
         * (scanned()).  Looking the name up at once would claim it again
         * and again while active/ cannot be recreated. */
        cairn_dispatch_scan(s, 0);
        break;
    case CAIRN_JOB_BUSY:
        /* Out of memory: the periodic rescan finds it instead. */
        if (cairn_namemap_set(&s->names, r->name, NAME_BUSY) == 0)
            s->busy++;
        break;
    }
    if (s->busy > 0 && outcome != CAIRN_JOB_BUSY) {
        /* active/ too: the job that kept the name busy may be one a
         * crash left there, which must run before the new one. */
        cairn_namemap_update(&s->names, end_busy, NULL);
        s->busy = 0;
        cairn_dispatch_scan(s, CAIRN_SCAN_FULL | CAIRN_SCAN_ACTIVE);
    }
    free(r);
    schedule(s);
}

/* Starts one job and lists it as active.  0, or a negative errno when
 * nothing was started. */
static int start_job(struct cairn_dispatch *s, const char *name, int recovered)
{
    struct cairn_daemon *d = s->d;
    size_t n = strlen(name);
    struct running *r = malloc(sizeof(*r) + n + 1);
    struct cairn_job_env env;
    int rc;

    if (r == NULL)
        return -ENOMEM;
    memcpy(r->name, name, n + 1);
    r->s = s;
    r->bytes_counted = 0;
    env = (struct cairn_job_env){ .loop = &d->loop,
                                  .pool = &d->pool,
                                  .file_work = &d->file_work,
                                  .finisher = &s->finisher,
                                  .streams = &s->streams,
                                  .spool = &d->spool,
                                  .cfg = &d->cfg,
                                  .plugins = d->plugins,
                                  .log = &d->log,
                                  .hang = &d->hang,
                                  .pid = d->pid,
                                  .on_batch = on_job_batch,
                                  .on_end = on_job_end,
                                  .data = r };
    rc = cairn_job_start(&env, name, recovered, &r->job);
    if (rc != 0) {
        free(r);
        return rc;
    }
    r->prev = NULL;
    r->next = s->jobs;
    if (s->jobs != NULL)
        s->jobs->prev = r;
    s->jobs = r;
    s->active++;
    cairn_daemon_status_changed(d);
    return 0;
}

/* A new loop turn: what was seen of the output directory is old. */
static void on_turn(uv_prepare_t *h)
{
    struct cairn_dispatch *s = h->data;

    s->output_checked = 0;
}

/* Whether jobs can be published now.  Looked at once per loop turn: every
 * event handled in one turn came in before the look (they were all
 * polled first), so none is judged on what the directory was before it. */
static int output_usable(struct cairn_dispatch *s)
{
    if (s->output_checked)
        return 1;
    s->output_checked = cairn_daemon_output_ready(s->d);
    return s->output_checked;
}

/* Claims and starts queued jobs while there is room. */
static void schedule(struct cairn_dispatch *s)
{
    struct cairn_pending *p;

    if (!s->stopping && s->active < s->max_active && s->queue.n > 0 && !output_usable(s)) {
        /* Nothing could be written: leave every job where it is. */
        if (s->d->once) {
            s->left_behind = 1;
            s->young_wait_ms = 0;
        } else {
            arm_retry(s);
        }
        drop_queue(s);
    }
    while (!s->stopping && s->active < s->max_active && (p = cairn_queue_pop(&s->queue)) != NULL) {
        int again = cairn_namemap_get(&s->names, p->name) == NAME_QUEUED_AGAIN;
        int rc;

        cairn_namemap_set(&s->names, p->name, again ? NAME_RUNNING_AGAIN : NAME_RUNNING);
        if ((rc = start_job(s, p->name, p->recovered)) != 0) {
            /* Nothing was claimed (out of memory): it waits where it was,
             * in the spool or, recovered, in active/. */
            cairn_namemap_remove(&s->names, p->name);
            cairn_log(&s->d->log, CAIRN_LOG_ERROR, "cannot start job %s: %s; it stays in %s",
                      p->name, uv_strerror(rc),
                      p->recovered ? CAIRN_ACTIVE_PATH "/ for another try from there"
                                   : "the spool for another try");
            s->retry_active |= p->recovered;
            retry_later(s, p->name);
        }
        free(p);
    }
    s->on_idle(s->d);
}

void cairn_dispatch_ready(struct cairn_dispatch *s, const char *name)
{
    enqueue(s, name, 0, 0);
    schedule(s);
}

/* ---- scanning ---------------------------------------------------------- */

static void on_found(struct cairn_dispatch *s, const struct cairn_scan_entry *e,
                     const struct timespec *scan_time)
{
    struct cairn_daemon *d = s->d;
    uint64_t age_ms;

    if (d->watching && cairn_watch_is_writing(&d->watch, e->name))
        return; /* its writer has not closed it: IN_CLOSE_WRITE will tell */
    age_ms = cairn_settle_age_ms(&s->settle, e->name, &e->st, scan_time, uv_hrtime());
    if (age_ms >= d->cfg.min_age_ms) {
        enqueue(s, e->name, 0, (uint64_t)e->st.st_size);
    } else {
        uint64_t wait = d->cfg.min_age_ms - age_ms;
        if (s->young_wait_ms == 0 || wait < s->young_wait_ms)
            s->young_wait_ms = wait;
    }
}

static int is_ignored(int state)
{
    return state == NAME_IGNORED || state == NAME_IGNORED_NEW || state == NAME_IGNORED_LISTED;
}

static void say_ignored(struct cairn_dispatch *s, const char *name)
{
    cairn_log(&s->d->log, CAIRN_LOG_WARNING,
              "%s/%s is never taken: a job file is named NAME.jsonl (dot-files and *.tmp are "
              "left alone, as a producer's temporaries)",
              s->d->cfg.input_dir, name);
}

void cairn_dispatch_ignored(struct cairn_dispatch *s, const char *name)
{
    if (is_ignored(cairn_namemap_get(&s->names, name)))
        return;
    say_ignored(s, name);
    cairn_namemap_set(&s->names, name, NAME_IGNORED_NEW); /* out of memory: said again later */
}

/* After a listing: what it holds, and what inotify reported while it ran,
 * stay said; a name said before and missing from both is forgotten. */
static int end_listing(const char *name, int state, void *data)
{
    (void)name, (void)data;
    switch (state) {
    case NAME_IGNORED: return -1;
    case NAME_IGNORED_NEW:
    case NAME_IGNORED_LISTED: return NAME_IGNORED;
    default: return state;
    }
}

/* Each file a producer probably meant as a job but named so that it is
 * never taken is said once while it stays there: the names are renewed
 * from each full listing, so a name removed and brought back is said
 * again.  The names inotify reported since the last listing are kept too:
 * the listing may have begun before they arrived (it was said twice then),
 * and every later listing begins after this one, so it sees them. */
static void log_ignored(struct cairn_dispatch *s, const struct cairn_scan_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++) {
        if (!is_ignored(cairn_namemap_get(&s->names, l->v[i].name)))
            say_ignored(s, l->v[i].name);
        /* Out of memory: said again at the next listing. */
        cairn_namemap_set(&s->names, l->v[i].name, NAME_IGNORED_LISTED);
    }
    cairn_namemap_update(&s->names, end_listing, NULL);
}

static void on_young_timer(uv_timer_t *t)
{
    cairn_dispatch_scan(t->data, CAIRN_SCAN_FULL);
}

/* A full listing of the input directory, sorted. */
static void sort_listing(struct cairn_dispatch *s, const struct cairn_scan *c)
{
    size_t i;

    s->young_wait_ms = 0;
    if (c->input.rc != 0)
        cairn_log(&s->d->log, CAIRN_LOG_ERROR, "cannot scan %s: %s", s->d->cfg.input_dir,
                  uv_strerror(c->input.rc));
    cairn_settle_begin_scan(&s->settle);
    for (i = 0; i < c->input.n; i++)
        on_found(s, &c->input.v[i], &c->began);
    if (c->input.rc == 0) {
        cairn_settle_end_scan(&s->settle);
        log_ignored(s, &c->ignored);
    }
    if (s->young_wait_ms > 0)
        uv_timer_start(&s->young_timer, on_young_timer, s->young_wait_ms + 5, 0);
}

/* 1 when one of our running jobs has this file in active/ now (under the
 * name it was claimed as, which may differ from the one queued). */
static int running_as(const struct cairn_dispatch *s, const char *name)
{
    const struct running *r;

    for (r = s->jobs; r != NULL; r = r->next) {
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
static void recover(struct cairn_dispatch *s, const struct cairn_scan_list *l)
{
    size_t i;

    if (l->rc != 0)
        cairn_log(&s->d->log, CAIRN_LOG_ERROR, "cannot scan %s/" CAIRN_ACTIVE_PATH ": %s",
                  s->d->cfg.input_dir, uv_strerror(l->rc));
    for (i = 0; i < l->n; i++)
        if (!running_as(s, l->v[i].name))
            enqueue(s, l->v[i].name, 1, (uint64_t)l->v[i].st.st_size);
}

void cairn_dispatch_recover(struct cairn_dispatch *s)
{
    struct cairn_scan_list l = { 0 };

    l.rc = cairn_scan_list_jobs(s->d->spool.active_fd, &l);
    recover(s, &l);
    cairn_scan_list_free(&l);
}

static void scanned(struct cairn_scanner *scanner, const struct cairn_scan *c)
{
    struct cairn_dispatch *s = scanner->data;
    struct cairn_daemon *d = s->d;
    size_t i;

    if (s->stopping) {
        s->on_idle(d);
        return;
    }
    /* A state folder was recreated: a job whose claim failed on it is
     * still in the input directory, so list it again. */
    if (cairn_daemon_log_repair(d, c->repaired) > 0)
        cairn_dispatch_scan(s, CAIRN_SCAN_FULL | CAIRN_SCAN_ACTIVE);
    if (c->what & CAIRN_SCAN_ACTIVE)
        recover(s, &c->active);
    for (i = 0; i < c->found.n; i++)
        if (!(d->watching && cairn_watch_is_writing(&d->watch, c->found.v[i].name)))
            enqueue(s, c->found.v[i].name, 0, (uint64_t)c->found.v[i].st.st_size);
    if (c->what & CAIRN_SCAN_FULL) {
        sort_listing(s, c);
        s->scanned = 1;
    }
    schedule(s);
}

void cairn_dispatch_scan(struct cairn_dispatch *s, int what)
{
    int rc;

    if (s->stopping)
        return;
    if ((rc = cairn_scanner_request(&s->scanner, what)) != 0)
        cairn_log(&s->d->log, CAIRN_LOG_ERROR, "cannot scan %s: %s; the next rescan tries again",
                  s->d->cfg.input_dir, uv_strerror(rc));
}

/* ---- the rest of the daemon's view ------------------------------------- */

int cairn_dispatch_new(struct cairn_daemon *d, void (*on_idle)(struct cairn_daemon *d),
                       struct cairn_dispatch **out)
{
    struct cairn_dispatch *s = calloc(1, sizeof(*s));

    if (s == NULL)
        return -ENOMEM;
    s->d = d;
    s->on_idle = on_idle;
    /* 128 jobs per solver thread: a job's claim and finish wait for the
     * disk, not for a solver, and the jobs finishing together share
     * their syncs (finisher.h), so a burst of small jobs goes as fast as
     * the jobs in flight let those rounds grow: the sync rounds run one
     * after another, and a round holds the jobs that became ready during
     * the one before (at four per thread a round held a few jobs, and
     * 32 or 64 a thread made a burst of one-record jobs slower than
     * 128).  What a job holds while it waits is small: its descriptors
     * (fdbudget.h caps the count by them) and a first piece of the file,
     * 16 KiB at most (source.c); the few that stream hold more, and the
     * gate below bounds those. */
    s->max_active = 128 * (size_t)d->threads;
    if (cairn_job_finisher_init(&s->finisher, &d->loop, &d->file_work) != 0) {
        free(s);
        return -ENOMEM;
    }
    /* Of those, 32 per solver thread stream at once (gate.h): a job
     * answered where it started never streams, so a burst of small jobs
     * is not held to it, and a burst of big ones holds what 32 a thread
     * hold (about half a megabyte each), as when that was the cap. */
    cairn_gate_init(&s->streams, &d->loop, 32 * (size_t)d->threads);
    /* libuv's uv_timer_init() cannot fail: it only links the handle. */
    uv_timer_init(&d->loop, &s->young_timer);
    uv_timer_init(&d->loop, &s->retry_timer);
    s->young_timer.data = s;
    s->retry_timer.data = s;
    /* A prepare handle runs before every poll; unreferenced, it never
     * keeps the loop alive by itself. */
    uv_prepare_init(&d->loop, &s->turn);
    s->turn.data = s;
    uv_prepare_start(&s->turn, on_turn);
    uv_unref((uv_handle_t *)&s->turn);
    cairn_scanner_init(&s->scanner, &d->loop, &d->spool, scanned, s);
    *out = s;
    return 0;
}

size_t cairn_dispatch_max_active(const struct cairn_dispatch *s)
{
    return s->max_active;
}

size_t cairn_dispatch_max_streaming(const struct cairn_dispatch *s)
{
    return s->streams.width;
}

void cairn_dispatch_limit_active(struct cairn_dispatch *s, size_t n)
{
    if (n < 1)
        n = 1;
    if (n < s->max_active)
        s->max_active = n;
}

int cairn_dispatch_idle(const struct cairn_dispatch *s)
{
    return s->active == 0 && s->queue.n == 0 && s->young_wait_ms == 0 && s->scanned &&
           !cairn_scanner_busy(&s->scanner);
}

size_t cairn_dispatch_active(const struct cairn_dispatch *s)
{
    return s->active;
}

int cairn_dispatch_left_behind(const struct cairn_dispatch *s)
{
    return s->left_behind;
}

void cairn_dispatch_counts(const struct cairn_dispatch *s, struct cairn_dispatch_counts *out)
{
    const struct running *r;

    *out = s->counts;
    out->queued = s->queue.n;
    out->active = s->active;
    out->bytes_done = s->bytes_ended;
    for (r = s->jobs; r != NULL; r = r->next) {
        struct cairn_job_info info;

        cairn_job_info(r->job, &info);
        out->bytes_done += info.bytes_read;
    }
}

void cairn_dispatch_each_job(const struct cairn_dispatch *s,
                             void (*fn)(const struct cairn_job *job, void *data), void *data)
{
    const struct running *r;

    for (r = s->jobs; r != NULL; r = r->next)
        fn(r->job, data);
}

const char *cairn_dispatch_owner_name(const struct cairn_dispatch *s, const void *owner)
{
    const struct running *r;

    for (r = s->jobs; r != NULL; r = r->next)
        if (cairn_job_owns(r->job, owner))
            return r->name;
    return NULL;
}

/* The job's hang report among rep[0..n) (its plugin call never
 * returned), or NULL. */
static const struct cairn_hang_report *hang_of(const struct cairn_job *job,
                                               const struct cairn_hang_report *rep, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (cairn_job_owns(job, rep[i].owner))
            return &rep[i];
    return NULL;
}

void cairn_dispatch_abandon(struct cairn_dispatch *s, const struct cairn_hang_report *rep, size_t n)
{
    struct running *r;

    /* Workers may still hold these jobs' batches: leave the memory to the
     * process exit, but remove temporary files so nothing stray remains. */
    for (r = s->jobs; r != NULL; r = r->next) {
        const struct cairn_hang_report *h = hang_of(r->job, rep, n);
        char why[CAIRN_ATTEMPTS_NOTE_MAX];

        if (h != NULL)
            snprintf(why, sizeof(why),
                     "line %llu, plugin %s, a call still running after %.0f s (solve_timeout_s "
                     "%g)",
                     (unsigned long long)h->line, h->plugin, h->seconds, s->d->cfg.solve_timeout_s);
        cairn_job_abandon(r->job, h != NULL ? why : NULL);
    }
}

void cairn_dispatch_stop(struct cairn_dispatch *s)
{
    s->stopping = 1;
    uv_timer_stop(&s->young_timer);
    uv_timer_stop(&s->retry_timer);
    cairn_scanner_stop(&s->scanner);
    drop_queue(s);
}

static void close_handle(uv_handle_t *h)
{
    if (!uv_is_closing(h))
        uv_close(h, NULL);
}

void cairn_dispatch_close(struct cairn_dispatch *s)
{
    close_handle((uv_handle_t *)&s->young_timer);
    close_handle((uv_handle_t *)&s->retry_timer);
    close_handle((uv_handle_t *)&s->turn);
    cairn_finisher_close(&s->finisher);
    cairn_gate_close(&s->streams);
}

void cairn_dispatch_free(struct cairn_dispatch *s)
{
    if (s == NULL)
        return;
    drop_queue(s);
    cairn_namemap_free(&s->names);
    cairn_scanner_free(&s->scanner);
    cairn_settle_free(&s->settle);
    cairn_finisher_free(&s->finisher);
    free(s);
}
