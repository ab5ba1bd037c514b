/*
 * progress.c - `cairnd --once` on a terminal: one line on stderr, redrawn
 * twice a second, with jobs, records, records/s and an ETA from the bytes
 * still to read.  Off a terminal nothing is drawn: logs stay clean.
 */
#include <stdio.h>
#include <unistd.h>

#include "progress.h"
#include "job.h"

#define PROGRESS_INTERVAL_MS 500

static void draw(struct cairn_daemon *d, int final)
{
    double elapsed = (double)(uv_hrtime() - d->start_ns) / 1e9;
    uint64_t done = d->bytes_ended;
    const struct cairn_running *r;
    double rate, bytes_rate;
    char eta[32] = "--";

    for (r = d->jobs; r != NULL; r = r->next) {
        struct cairn_job_info info;

        cairn_job_info(r->job, &info);
        done += info.bytes_read;
    }
    rate = elapsed > 0 ? (double)d->records / elapsed : 0;
    bytes_rate = elapsed > 0 ? (double)done / elapsed : 0;
    if (bytes_rate > 0 && d->bytes_seen >= done) {
        double left = (double)(d->bytes_seen - done) / bytes_rate;
        snprintf(eta, sizeof(eta), "%d:%02d", (int)(left / 60), (int)left % 60);
    }
    fprintf(stderr,
            "\r\033[Kcairnd: %llu/%llu jobs, %llu records, %.0f records/s, "
            "%.1f/%.1f MiB, ETA %s%s",
            (unsigned long long)(d->jobs_ok + d->jobs_failed), (unsigned long long)d->jobs_seen,
            (unsigned long long)d->records, rate, (double)done / 1048576.0,
            (double)d->bytes_seen / 1048576.0, final ? "0:00" : eta, final ? "\n" : "");
    fflush(stderr);
}

static void on_tick(uv_timer_t *t)
{
    draw(t->data, 0);
}

void cairn_progress_start(struct cairn_daemon *d)
{
    if (!isatty(2))
        return;
    d->log.progress = 1;
    uv_timer_start(&d->progress_timer, on_tick, PROGRESS_INTERVAL_MS, PROGRESS_INTERVAL_MS);
}

void cairn_progress_stop(struct cairn_daemon *d)
{
    if (!d->log.progress)
        return;
    uv_timer_stop(&d->progress_timer);
    draw(d, 1);
    d->log.progress = 0;
}
