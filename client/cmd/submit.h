/*
 * submit.h - `cairn submit` and `cairn submit --wait`.
 */
#ifndef CAIRN_CLIENT_SUBMIT_H
#define CAIRN_CLIENT_SUBMIT_H

#include <sys/types.h>

#include "client.h"
#include "runs.h" /* struct cairn_submitted */

struct cairn_submit_opts {
    const char *name;   /* --name: the one job's name, or NULL */
    int no_check;       /* --no-check: skip the JSON-lines check */
    char *const *files; /* paths, "-" for standard input */
    size_t n_files;
};

/*
 * NAME     cairn_client_submit - hand files over to the spool
 * RETURNS  0 with *jobs (n_files entries, free with cairn_submitted_free);
 *          -EINVAL when a file is not JSON lines (message: file:line),
 *          -EEXIST when --name is taken, another -errno otherwise
 * NOTES    every file is staged (checked, copied, fsync'd) under a locked
 *          dot-temp in the spool before any is renamed in, so a bad file
 *          among several submits none.  Each name is printed on stdout as
 *          its job enters the spool.
 */
int cairn_client_submit(struct cairn_client *cl, const struct cairn_submit_opts *o,
                        struct cairn_submitted **jobs);
void cairn_submitted_free(struct cairn_submitted *jobs, size_t n);

/* How the jobs waited for ended. */
struct cairn_wait_result {
    size_t ok;
    size_t failed;
    size_t timed_out;
    size_t mismatched; /* jobs ok but with a given answer that differs */
};

/*
 * NAME     cairn_client_wait - wait for the jobs' summaries
 * ARGUMENTS timeout_s: < 0 for none; progress: draw a live line on stderr
 * RETURNS  0 with *r filled (one outcome line per job on stdout), or a
 *          negative errno when the output directory cannot be watched
 * NOTES    inotify on the output directory (uv_fs_event): a summary is
 *          renamed into place, so its name appearing is the whole signal.
 */
int cairn_client_wait(struct cairn_client *cl, const struct cairn_submitted *jobs, size_t n,
                      double timeout_s, int progress, struct cairn_wait_result *r);

/* `cairn wait NAME...`: cairn_client_wait for jobs already handed over
 * (by another command, a script, or a producer's own rename).  -ENOENT
 * with a message for a name that is no job at all. */
int cairn_cmd_wait(struct cairn_client *cl, char *const *names, size_t n, double timeout_s,
                   int progress, struct cairn_wait_result *r);

#endif /* CAIRN_CLIENT_SUBMIT_H */
