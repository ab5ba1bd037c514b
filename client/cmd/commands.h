/*
 * commands.h - the `cairn` subcommands other than submit (submit.h).
 * Each returns 0 or a negative errno (with cairn_client_fail's message);
 * main() turns that into the exit status.
 */
#ifndef CAIRN_CLIENT_COMMANDS_H
#define CAIRN_CLIENT_COMMANDS_H

#include <stddef.h>

#include "client.h"

/* status.c: the queue, as text or (as_json) one JSON object. */
int cairn_cmd_status(struct cairn_client *cl, int as_json);

/* retry.c: requeue the named failed jobs, or (all) every one.  Returns
 * -ENOENT when a named job is not in .cairn/failed/ (nothing is moved
 * then), -EEXIST when a job of that name is already waiting or active. */
int cairn_cmd_retry(struct cairn_client *cl, char *const *names, size_t n, int all);

/* results.c: the job's results file on stdout, or (join) each input line
 * beside its result.  -ENOENT for an unknown job, -EBUSY for one not
 * finished, -ENODATA for a failed one (no results), -ENOENT too when
 * join needs an input cairnd did not keep. */
int cairn_cmd_results(struct cairn_client *cl, const char *name, int join);

/* report_solver.c: rs, the report's solver (report_types.h), filled from
 * client/solve/: the plugins of plugin_dir, loaded into *slot at the
 * report's first need and closed after its last. */
struct cairn_report_solver;
struct cairn_gen_solver;
void cairn_report_solver_plugins(struct cairn_report_solver *rs, struct cairn_gen_solver **slot);

#endif /* CAIRN_CLIENT_COMMANDS_H */
