/*
 * daemon.h - the spool daemon's entry point (its context: daemon_ctx.h).
 */
#ifndef CAIRN_DAEMON_H
#define CAIRN_DAEMON_H

#include "daemon_ctx.h"

/*
 * NAME     cairn_daemon_run - the daemon, or --once
 * ARGUMENTS d has cfg, log, config_file, apply_overrides, overrides_data,
 *          once and threads (the solvers; the pool was sized with
 *          CAIRN_IO_THREADS more) set; plugins loaded
 * RETURNS  0 when it ran and stopped (how it went is in d: runtime_error,
 *          final.jobs_ok, final.jobs_failed, abandoned); a negative errno when it
 *          could not start.  main.c turns that into an exit status.
 */
int cairn_daemon_run(struct cairn_daemon *d);

#endif /* CAIRN_DAEMON_H */
