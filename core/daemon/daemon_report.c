/*
 * daemon_report.c - the daemon's STATUS=, metrics and status file
 * (daemon_report.h).
 */
#include "daemon_report.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "daemon_ctx.h"
#include "job.h"
#include "layout.h"
#include "notify.h"
#include "publish.h"
#include "status.h"
#include "version.h"

struct cairn_daemon_report {
    struct cairn_daemon_report_reads reads; /* the dispatcher's counts and jobs */
    uint64_t status_records;                /* records answered at the last STATUS= */
    uint64_t status_ns;                     /* ... and when */
    int output_gone;                        /* output_dir unusable: said once */
    int metrics_busy;                       /* a metrics write is on the pool */
    struct cairn_outdir *metrics_dir;       /* where it writes, held until it lands */
    int status_busy;                        /* a status write is on the pool */
    int status_dirty;                       /* the set of active jobs changed */
    int status_failing;                     /* the last status write failed (said once) */
    char *status_name;                      /* this daemon's file in .cairn/status/, or NULL */
    uint64_t live_ns;                       /* when it was last written */
    char *metrics_path;                     /* the metrics file's real path, for the status file */
    char *metrics_for; /* ... made for this metrics_file (a reload may change it) */
    char *metrics_old; /* a metrics_file a reload replaced, to remove once the
                              * write on its way (to that name) has landed */
};

int cairn_daemon_report_new(struct cairn_daemon *d, const struct cairn_daemon_report_reads *reads,
                            struct cairn_daemon_report **out)
{
    struct cairn_daemon_report *r = calloc(1, sizeof(*r));

    (void)d;
    if (r == NULL)
        return -ENOMEM;
    r->reads = *reads;
    /* NULL (out of memory) leaves the status file out, and only it. */
    r->status_name = cairn_status_file_name();
    *out = r;
    return 0;
}

void cairn_daemon_report_free(struct cairn_daemon_report *r)
{
    if (r == NULL)
        return;
    free(r->status_name);
    free(r->metrics_path);
    free(r->metrics_for);
    free(r->metrics_old);
    free(r);
}

/* The real path of the metrics file this daemon writes, made again when
 * metrics_file changed; NULL when it cannot be made (the status file then
 * leaves it out). */
static const char *metrics_path(struct cairn_daemon *d)
{
    struct cairn_daemon_report *r = d->report;
    char dir[PATH_MAX];

    if (r->metrics_for != NULL && strcmp(r->metrics_for, d->cfg.metrics_file) == 0)
        return r->metrics_path;
    free(r->metrics_path);
    free(r->metrics_for);
    r->metrics_path = NULL;
    r->metrics_for = strdup(d->cfg.metrics_file);
    if (r->metrics_for != NULL && realpath(d->cfg.output_dir, dir) != NULL)
        r->metrics_path = cairn_asprintf("%s/%s", dir, d->cfg.metrics_file);
    return r->metrics_path;
}

struct survey {
    struct cairn_daemon *d;
    const char *mine; /* our metrics file, or NULL */
    time_t now;
    int shared;
};

/* A status file left this long by a pid of this host that no longer runs
 * is a killed daemon's, and only clutters `cairn status` ("gone"): well
 * past CAIRN_STATUS_STALE_S, so that no live daemon's is ever taken. */
#define GONE_AFTER_S 60

/* One other daemon's status file: a live one's naming our metrics file
 * (warned), or a dead one's of this host (removed). */
static int survey_one(void *data, const char *name)
{
    struct survey *sv = data;
    struct cairn_daemon *d = sv->d;
    const char *theirs, *host;
    long long pid;
    char text[4096];
    struct stat st;
    json_t *root;
    ssize_t n;
    int fd;

    if (name[0] == '.' ||
        (d->report->status_name != NULL && strcmp(name, d->report->status_name) == 0))
        return 0;
    fd = openat(d->spool.status_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT) /* gone meanwhile: an exit, nothing to say */
            cairn_log(&d->log, CAIRN_LOG_WARNING, "cannot read " CAIRN_STATUS_PATH "/%s: %s", name,
                      strerror(errno));
        return 0;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return 0;
    }
    if ((n = read(fd, text, sizeof(text) - 1)) < 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING, "cannot read " CAIRN_STATUS_PATH "/%s: %s", name,
                  strerror(errno));
    close(fd);
    if (n <= 0)
        return 0;
    text[n] = '\0';
    root = json_loads(text, 0, NULL);
    theirs = json_string_value(json_object_get(root, "metrics"));
    host = json_string_value(json_object_get(root, "host"));
    pid = json_integer_value(json_object_get(root, "pid"));
    /* pid > 0: only a file a daemon surely wrote is removed. */
    if (sv->now - st.st_mtime > GONE_AFTER_S && pid > 0 && cairn_status_is_gone(root, d->host)) {
        if (unlinkat(d->spool.status_fd, name, 0) == 0)
            cairn_log(&d->log, CAIRN_LOG_INFO,
                      "removed " CAIRN_STATUS_PATH "/%s: the daemon that wrote it (pid %lld "
                      "on this host) is gone",
                      name, pid);
    } else if (sv->mine != NULL && sv->now - st.st_mtime <= (time_t)CAIRN_STATUS_STALE_S &&
               theirs != NULL && strcmp(theirs, sv->mine) == 0) {
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "another daemon (%s pid %lld, " CAIRN_STATUS_PATH "/%s) writes the same "
                  "metrics file %s: their counters overwrite each other, and Prometheus reads "
                  "resets; give each daemon its own metrics_file",
                  host != NULL ? host : "?", pid, name, sv->mine);
        sv->shared = 1;
    }
    json_decref(root);
    return 0;
}

int cairn_daemon_survey_status_files(struct cairn_daemon *d)
{
    struct survey sv = { .d = d, .mine = metrics_path(d), .now = time(NULL) };
    int rc = cairn_dir_each(d->spool.status_fd, survey_one, &sv);

    if (rc < 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot read " CAIRN_STATUS_PATH "/ to look at the other daemons: %s (a "
                  "metrics file shared with one goes unwarned, and a killed daemon's status "
                  "file stays)",
                  uv_strerror(rc));
    return sv.shared;
}

void cairn_daemon_notify_status(struct cairn_daemon *d, const char *extra)
{
    struct cairn_daemon_report *r = d->report;
    struct cairn_dispatch_counts c;
    uint64_t now = uv_hrtime();
    double dt = (double)(now - r->status_ns) / 1e9;
    double rate;
    char msg[256];

    d->report->reads.counts(d, &c);
    rate = r->status_ns && dt > 0 ? (double)(c.records - r->status_records) / dt : 0;
    r->status_ns = now;
    r->status_records = c.records;
    snprintf(msg, sizeof(msg),
             "%sSTATUS=%s%s%zu queued, %zu active, %llu done, %llu failed; %.0f records/s",
             extra ? extra : "", d->stopping ? "stopping: " : "",
             d->watch_refused ? "no inotify, rescanning: " : "", c.queued, c.active,
             (unsigned long long)c.jobs_ok, (unsigned long long)c.jobs_failed, rate);
    cairn_notify(msg);
}

int cairn_daemon_output_ready(struct cairn_daemon *d)
{
    int rc = cairn_spool_follow_output(&d->spool, d->cfg.output_dir);

    if (rc != 0 && !d->report->output_gone)
        cairn_log(&d->log, CAIRN_LOG_ERROR,
                  "output directory %s is unusable: %s; no job is claimed until it is back",
                  d->cfg.output_dir, uv_strerror(rc));
    else if (rc == 0 && d->report->output_gone)
        cairn_log(&d->log, CAIRN_LOG_INFO, "output directory %s is back", d->cfg.output_dir);
    d->report->output_gone = rc != 0;
    return rc == 0;
}

int cairn_daemon_log_repair(struct cairn_daemon *d, int repaired)
{
    const char *const *sub = cairn_spool_state_folders;
    int n = 0, i;

    if (repaired < 0) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "cannot recreate %s/.cairn: %s", d->cfg.input_dir,
                  uv_strerror(repaired));
        return 0;
    }
    for (i = 0; i < CAIRN_SPOOL_N_STATE; i++)
        if (repaired & (1 << i)) {
            cairn_log(&d->log, CAIRN_LOG_WARNING,
                      "%s/" CAIRN_STATE_DIR "/%s was removed or moved away: recreated",
                      d->cfg.input_dir, sub[i]);
            n++;
        }
    return n;
}

/* The gauges of jobs running and queued, as they are now. */
static void set_gauges(struct cairn_daemon *d)
{
    struct cairn_dispatch_counts c;

    d->report->reads.counts(d, &c);
    cairn_metrics_set_gauges(&d->metrics, c.active, c.queued);
}

void cairn_daemon_write_metrics(struct cairn_daemon *d)
{
    int rc;

    set_gauges(d);
    if (!cairn_daemon_output_ready(d))
        return;
    rc = cairn_metrics_write(&d->metrics, d->spool.out->fd, d->cfg.metrics_file);
    if (rc != 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING, "cannot write %s/%s: %s", d->cfg.output_dir,
                  d->cfg.metrics_file, uv_strerror(rc));
}

/* The metrics file a reload moved away from: removed, since node_exporter
 * refuses the same series from two files, and this one would never
 * change again.  Only the name this daemon was configured with, so only
 * its own file. */
static void remove_old_metrics(struct cairn_daemon *d, const char *name)
{
    if (unlinkat(d->spool.out->fd, name, 0) == 0)
        cairn_log(&d->log, CAIRN_LOG_INFO, "reload: metrics_file is now %s: removed the old %s/%s",
                  d->cfg.metrics_file, d->cfg.output_dir, name);
    else if (errno != ENOENT)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "reload: metrics_file is now %s, but the old %s/%s cannot be removed: %s "
                  "(node_exporter would read its frozen series beside the new file's: remove it "
                  "by hand)",
                  d->cfg.metrics_file, d->cfg.output_dir, name, strerror(errno));
}

void cairn_daemon_metrics_moved(struct cairn_daemon *d, const char *old)
{
    struct cairn_daemon_report *r = d->report;
    char *keep;

    /* A write on its way renames its temporary to the old name when it
     * lands: removed now, the file would come back. */
    if (r->metrics_busy && r->metrics_old == NULL && (keep = strdup(old)) != NULL) {
        r->metrics_old = keep;
        return;
    }
    /* Not busy; or busy writing an older name kept already, so this one
     * is not being written; or out of memory (removed now, at worst to
     * come back once). */
    remove_old_metrics(d, old);
    /* The new file at once, not a metrics interval later. */
    cairn_daemon_write_metrics_async(d);
}

static void metrics_written(int rc, void *data)
{
    struct cairn_daemon *d = data;
    struct cairn_daemon_report *r = d->report;

    r->metrics_busy = 0;
    cairn_outdir_release(r->metrics_dir);
    r->metrics_dir = NULL;
    if (rc != 0)
        cairn_log(&d->log, CAIRN_LOG_WARNING, "cannot write %s/%s: %s", d->cfg.output_dir,
                  r->metrics_old != NULL ? r->metrics_old : d->cfg.metrics_file, uv_strerror(rc));
    if (r->metrics_old != NULL) {
        remove_old_metrics(d, r->metrics_old);
        free(r->metrics_old);
        r->metrics_old = NULL;
        if (!d->finished)
            cairn_daemon_write_metrics_async(d);
    }
    /* The run ended while this older exposition was on its way (check_done
     * left the final one to this moment): write the final one now. */
    if (d->finished)
        cairn_daemon_write_metrics(d);
}

/* The periodic metrics: rendered here, written (and fsync'd) on the pool,
 * so the loop never waits for a disk.  One write at a time. */
void cairn_daemon_write_metrics_async(struct cairn_daemon *d)
{
    static const struct cairn_publish_opts opts = { .kind = 'm', .sync = 1, .mode = 0644 };
    struct cairn_buf text = { 0 };
    int rc;

    if (d->report->metrics_busy || !cairn_daemon_output_ready(d))
        return;
    set_gauges(d);
    rc = cairn_metrics_render(&d->metrics, &text);
    /* Held until it lands: the path may be followed to a new directory
     * meanwhile, and this write's descriptor must stay open. */
    d->report->metrics_dir = cairn_spool_hold_output(&d->spool);
    if (rc == 0)
        rc = cairn_publish_start(&d->loop, &d->file_work, d->report->metrics_dir->fd,
                                 d->cfg.metrics_file, &text, &opts, metrics_written, d);
    cairn_buf_free(&text);
    if (rc == 0)
        d->report->metrics_busy = 1;
    else
        metrics_written(rc, d);
}

static void remove_status(struct cairn_daemon *d);

static void status_written(int rc, void *data)
{
    struct cairn_daemon *d = data;
    struct cairn_daemon_report *r = d->report;

    r->status_busy = 0;
    /* Best effort, the next tick tries again; said once a streak. */
    if (rc != 0 && !r->status_failing)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot write the status file %s/" CAIRN_STATUS_PATH "/%s: %s (cairn status and "
                  "progress see this daemon stale until it can; jobs go on)",
                  d->cfg.input_dir, r->status_name, uv_strerror(rc));
    else if (rc == 0 && r->status_failing)
        cairn_log(&d->log, CAIRN_LOG_INFO, "status file %s written again", r->status_name);
    r->status_failing = rc != 0;
    /* The run ended cleanly while this write was on its way: the file it
     * just put back is a stopped daemon's. */
    if (d->finished)
        remove_status(d);
}

/* At a clean exit (a failure is said). */
static void remove_status(struct cairn_daemon *d)
{
    const char *name = d->report->status_name;

    if (name == NULL)
        return;
    if (unlinkat(d->spool.status_fd, name, 0) != 0 && errno != ENOENT)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot remove the status file %s/" CAIRN_STATUS_PATH "/%s: %s (cairn status "
                  "will call this stopped daemon dead; remove the file by hand)",
                  d->cfg.input_dir, name, strerror(errno));
}

void cairn_daemon_report_end(struct cairn_daemon *d)
{
    /* A periodic write on its way is followed by the final one when it
     * lands (metrics_written): writing it now too would be overwritten. */
    if (!d->report->metrics_busy)
        cairn_daemon_write_metrics(d);
    remove_status(d);
}

/* One running job's line in the status file. */
struct status_jobs {
    struct cairn_status_job *v;
    size_t n, cap;
};

static void list_job(const struct cairn_job *job, void *data)
{
    struct status_jobs *l = data;
    struct cairn_job_info info;

    if (l->n == l->cap)
        return;
    cairn_job_info(job, &info);
    l->v[l->n++] = (struct cairn_status_job){ .name = info.name,
                                              .size = info.size,
                                              .bytes = info.bytes_read,
                                              .records = info.records,
                                              .started = info.started };
}

void cairn_daemon_write_status(struct cairn_daemon *d)
{
    static const struct cairn_publish_opts opts = { .kind = 's' };
    struct cairn_daemon_report *r = d->report;
    struct cairn_dispatch_counts c;
    struct status_jobs jobs = { 0 };
    struct cairn_status_report st;
    struct cairn_buf text = { 0 };
    int rc;

    d->report->reads.counts(d, &c);
    /* Idle, it is still rewritten every few seconds: a file not updated
     * for CAIRN_STATUS_STALE_S is then a dead (or stuck) daemon's, on
     * whichever host it runs, not perhaps an idle one's. */
    if (r->status_busy || r->status_name == NULL ||
        (c.active == 0 && !r->status_dirty &&
         uv_hrtime() - r->live_ns < CAIRN_STATUS_HEARTBEAT_S * 1000000000ull))
        return;
    if (c.active > 0 && (jobs.v = calloc(c.active, sizeof(*jobs.v))) == NULL)
        return;
    jobs.cap = c.active;
    r->reads.each_job(d, list_job, &jobs);
    st = (struct cairn_status_report){ .host = d->host,
                                       .pid = d->pid,
                                       .version = CAIRN_VERSION,
                                       .started = d->started_real,
                                       .metrics = metrics_path(d),
                                       .jobs = jobs.v,
                                       .n_jobs = jobs.n };
    rc = cairn_status_render(&st, &text);
    free(jobs.v);
    if (rc == 0)
        rc = cairn_publish_start(&d->loop, &d->file_work, d->spool.status_fd, r->status_name, &text,
                                 &opts, status_written, d);
    cairn_buf_free(&text);
    if (rc == 0) {
        r->status_busy = 1;
        r->status_dirty = 0;
        r->live_ns = uv_hrtime();
    }
}

void cairn_daemon_status_changed(struct cairn_daemon *d)
{
    d->report->status_dirty = 1;
    if (uv_hrtime() - d->report->live_ns >= 1000000000ull)
        cairn_daemon_write_status(d);
}
