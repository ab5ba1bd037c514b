/*
 * progress.c - `cairnd --once` on a terminal: one line on stderr, redrawn
 * twice a second, with jobs, records, records/s and an ETA from the bytes
 * still to read.  Off a terminal nothing is drawn: logs stay clean.
 */
#include <stdio.h>
#include <unistd.h>

#include "progress.h"
#include "daemon_dispatch.h"

#define PROGRESS_INTERVAL_MS 500

static void draw(struct cairn_daemon *d, int final)
{
    double elapsed = (double)(uv_hrtime() - d->start_ns) / 1e9;
    struct cairn_dispatch_counts c;
    double rate, bytes_rate;
    char eta[32] = "--";

    cairn_dispatch_counts(d->dispatch, &c);
    rate = elapsed > 0 ? (double)c.records / elapsed : 0;
    bytes_rate = elapsed > 0 ? (double)c.bytes_done / elapsed : 0;
    if (bytes_rate > 0 && c.bytes_seen >= c.bytes_done) {
        double left = (double)(c.bytes_seen - c.bytes_done) / bytes_rate;
        snprintf(eta, sizeof(eta), "%d:%02d", (int)(left / 60), (int)left % 60);
    }
    fprintf(stderr,
            "\r\033[Kcairnd: %llu/%llu jobs, %llu records, %.0f records/s, "
            "%.1f/%.1f MiB, ETA %s%s",
            (unsigned long long)(c.jobs_ok + c.jobs_failed), (unsigned long long)c.jobs_seen,
            (unsigned long long)c.records, rate, (double)c.bytes_done / 1048576.0,
            (double)c.bytes_seen / 1048576.0, final ? "0:00" : eta, final ? "\n" : "");
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
    cairn_log_set_progress(&d->log, 1);
    uv_timer_start(&d->progress_timer, on_tick, PROGRESS_INTERVAL_MS, PROGRESS_INTERVAL_MS);
}

void cairn_progress_stop(struct cairn_daemon *d)
{
    if (!uv_is_active((uv_handle_t *)&d->progress_timer))
        return;
    uv_timer_stop(&d->progress_timer);
    draw(d, 1);
    cairn_log_set_progress(&d->log, 0);
}
