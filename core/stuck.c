/*
 * stuck.c - the daemon's answer to a plugin call that never returns.
 *
 * A thread inside a plugin can be neither stopped nor cancelled safely:
 * the only way out is to leave it behind.  So when a record's plugin calls
 * have run longer than solve_timeout_s (hang.h notices), the run ends:
 *   - the log names the job, the line and the plugin;
 *   - WATCHDOG=1 stops at once, so systemd does not take a daemon whose
 *     loop still turns for a healthy one, whatever happens next;
 *   - the hung job's run stays counted in its on-disk attempts file: the
 *     count is written when a run begins and forgotten only when it ends
 *     (attempts.h), so after max_attempts such runs the job goes to
 *     failed/ instead of hanging the daemon at every start;
 *   - other jobs running at that moment were not at fault: their count is
 *     forgotten and they stay in active/ for the next start;
 *   - the process exits 1 without joining the stuck worker, as the
 *     shutdown timeout does, so systemd's Restart=on-failure starts a fresh
 *     one (and --once reports the failure).
 */
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "daemon.h"
#include "job.h"
#include "notify.h"

static const struct cairn_running *running_of(const struct cairn_daemon *d, const void *owner)
{
    const struct cairn_running *r;

    for (r = d->jobs; r != NULL; r = r->next)
        if (cairn_job_owns(r->job, owner))
            return r;
    return NULL;
}

static int is_hung(const struct cairn_job *job, const struct cairn_hang_report *rep, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        if (cairn_job_owns(job, rep[i].owner))
            return 1;
    return 0;
}

static void on_hang(struct cairn_hang *h, const struct cairn_hang_report *rep, size_t n)
{
    struct cairn_daemon *d = h->data;
    const struct cairn_running *r;
    size_t i;

    if (d->finished)
        return;
    uv_timer_stop(&d->watchdog_timer);
    cairn_notify("STATUS=a plugin call never returned (solve_timeout_s): exiting for a restart");
    for (i = 0; i < n; i++) {
        r = running_of(d, rep[i].owner);
        cairn_log(&d->log, CAIRN_LOG_ERROR,
                  "job %.*s: line %llu: plugin %s has not returned for %.1f s (solve_timeout_s "
                  "%g); this run counts as an attempt (max_attempts %llu); exiting, without "
                  "waiting for it, so the daemon can be restarted",
                  r != NULL ? (int)(strlen(r->name) - strlen(".jsonl")) : 9,
                  r != NULL ? r->name : "(unknown)", (unsigned long long)rep[i].line,
                  rep[i].plugin, rep[i].seconds, d->cfg.solve_timeout_s,
                  (unsigned long long)d->cfg.max_attempts);
    }
    for (r = d->jobs; r != NULL; r = r->next)
        cairn_job_abandon(r->job, is_hung(r->job, rep, n));
    d->runtime_error = 1;
    cairn_daemon_abort(d);
}

int cairn_daemon_watch_hangs(struct cairn_daemon *d)
{
    /* Any thread of the pool may run a batch, the I/O ones included. */
    int rc = cairn_hang_init(&d->hang, &d->loop, (size_t)d->threads + CAIRN_IO_THREADS, on_hang,
                             d);

    if (rc == 0)
        cairn_hang_set_timeout(&d->hang, d->cfg.solve_timeout_s);
    return rc;
}
