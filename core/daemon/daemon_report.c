/*
 * daemon_report.c - the daemon's STATUS=, metrics and status file
 * (daemon_report.h).
 */
#include "daemon_report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "job.h"
#include "notify.h"
#include "publish.h"
#include "status.h"
#include "version.h"

void cairn_daemon_notify_status(struct cairn_daemon *d, const char *extra)
{
    uint64_t now = uv_hrtime();
    double dt = (double)(now - d->status_ns) / 1e9;
    double rate = d->status_ns && dt > 0 ? (double)(d->records - d->status_records) / dt : 0;
    char msg[256];

    d->status_ns = now;
    d->status_records = d->records;
    snprintf(msg, sizeof(msg),
             "%sSTATUS=%s%zu queued, %zu active, %llu done, %llu failed; %.0f records/s",
             extra ? extra : "", d->stopping ? "stopping: " : "", d->queue.n, d->active,
             (unsigned long long)d->jobs_ok, (unsigned long long)d->jobs_failed, rate);
    cairn_notify(msg);
}

int cairn_daemon_output_ready(struct cairn_daemon *d)
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
                      "%s/.cairn/%s was removed or moved away: recreated", d->cfg.input_dir,
                      sub[i]);
            n++;
        }
    return n;
}

void cairn_daemon_write_metrics(struct cairn_daemon *d)
{
    int rc;

    cairn_metrics_set_gauges(&d->metrics, d->active, d->queue.n);
    if (!cairn_daemon_output_ready(d))
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

    if (d->metrics_busy || !cairn_daemon_output_ready(d))
        return;
    cairn_metrics_set_gauges(&d->metrics, d->active, d->queue.n);
    rc = cairn_metrics_render(&d->metrics, &text);
    if (rc == 0)
        rc = cairn_publish_start(&d->loop, &d->file_work, d->spool.out_fd, d->cfg.metrics_file,
                                 &text, &opts, metrics_written, d);
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
    /* Best effort, the next tick tries again; said once a streak. */
    if (rc != 0 && !d->status_failing)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot write the status file %s/.cairn/status/%s: %s (cairn status and "
                  "progress see this daemon stale until it can; jobs go on)",
                  d->cfg.input_dir, d->status_name, uv_strerror(rc));
    else if (rc == 0 && d->status_failing)
        cairn_log(&d->log, CAIRN_LOG_INFO, "status file %s written again", d->status_name);
    d->status_failing = rc != 0;
    /* The run ended cleanly while this write was on its way: the file it
     * just put back is a stopped daemon's. */
    if (d->finished && d->status_name != NULL)
        cairn_daemon_remove_status(d);
}

void cairn_daemon_remove_status(struct cairn_daemon *d)
{
    if (unlinkat(d->spool.status_fd, d->status_name, 0) != 0 && errno != ENOENT)
        cairn_log(&d->log, CAIRN_LOG_WARNING,
                  "cannot remove the status file %s/.cairn/status/%s: %s (cairn status will "
                  "call this stopped daemon dead; remove the file by hand)",
                  d->cfg.input_dir, d->status_name, strerror(errno));
}

void cairn_daemon_write_status(struct cairn_daemon *d)
{
    static const struct cairn_publish_opts opts = { .kind = 's' };
    struct cairn_status_job *jobs = NULL;
    struct cairn_status_report st;
    struct cairn_buf text = { 0 };
    const struct cairn_running *r;
    size_t n = 0;
    int rc;

    /* Idle, it is still rewritten every few seconds: a file not updated
     * for CAIRN_STATUS_STALE_S is then a dead (or stuck) daemon's, on
     * whichever host it runs, not perhaps an idle one's. */
    if (d->status_busy || d->status_name == NULL ||
        (d->active == 0 && !d->status_dirty &&
         uv_hrtime() - d->live_ns < CAIRN_STATUS_HEARTBEAT_S * 1000000000ull))
        return;
    if (d->active > 0 && (jobs = calloc(d->active, sizeof(*jobs))) == NULL)
        return;
    for (r = d->jobs; r != NULL && n < d->active; r = r->next) {
        struct cairn_job_info info;

        cairn_job_info(r->job, &info);
        jobs[n++] = (struct cairn_status_job){ .name = info.name,
                                               .size = info.size,
                                               .bytes = info.bytes_read,
                                               .records = info.records,
                                               .started = info.started };
    }
    st = (struct cairn_status_report){ .host = d->host,
                                       .pid = (long)getpid(),
                                       .version = CAIRN_VERSION,
                                       .started = d->started_real,
                                       .jobs = jobs,
                                       .n_jobs = n };
    rc = cairn_status_render(&st, &text);
    free(jobs);
    if (rc == 0)
        rc = cairn_publish_start(&d->loop, &d->file_work, d->spool.status_fd, d->status_name, &text,
                                 &opts, status_written, d);
    cairn_buf_free(&text);
    if (rc == 0) {
        d->status_busy = 1;
        d->status_dirty = 0;
        d->live_ns = uv_hrtime();
    }
}
