/*
 * job.h - one claimed job file, from active/ to its results and summary.
 *
 *   open active/NAME.jsonl (never following a link, never blocking on a
 *   FIFO) and lock it -> stream it through the engine into a temporary
 *   (tmpfile.h) in OUTPUT -> on a worker: stage the summary, fsync both,
 *   rename the results to NAME.results.jsonl and then the summary to
 *   NAME.summary.json, fsync the directory, then move the input to done/
 *   (or delete it).
 *
 * A job that cannot be read at all goes to failed/ with NAME.reason.json
 * and a "failed" summary.  A job whose outputs cannot be written is handed
 * back to the input directory untouched, to be tried again.
 */
#ifndef CAIRN_JOB_H
#define CAIRN_JOB_H

#include <stdint.h>
#include <sys/types.h>
#include <time.h>
#include <uv.h>

#include "daemon.h"
#include "engine.h"
#include "source.h"
#include "tmpfile.h"
#include "util.h"

struct cairn_job {
    struct cairn_daemon *d;
    uint64_t id;         /* this daemon's job number, for temporary names */
    struct cairn_job *prev;
    struct cairn_job *next;
    char *name;          /* NAME.jsonl, as in active/ */
    char *base;          /* NAME */
    char *label;         /* name, escaped for JSON (cairn_name_escape) */
    char *out_base;      /* what outputs are named after: NAME, or for a
                            name too long for NAME.results.jsonl, a cut of
                            it, "~" and a hash of the whole name */
    int in_fd;
    int out_fd;          /* the output directory, as it was when we began */
    struct cairn_tmpfile res_tmp; /* the results, until published */
    uint64_t size;       /* of the input when opened, for progress */
    ino_t ino;           /* of the input, to tie the attempts count to it */
    struct cairn_plugin_set *plugins;
    struct cairn_record_ctx ctx;
    char *default_variant;
    int keep_inputs;
    struct cairn_stream stream;
    struct cairn_fd_source src;
    int streaming;
    uint64_t t0_ns;
    struct timespec started;
    int write_error;     /* first failure writing results */
    char *fail_reason;   /* set: the job itself is bad, it goes to failed/ */
    /* Finishing, on a worker thread. */
    uv_work_t finish;
    struct cairn_buf summary;
    struct cairn_buf reason;
    int finish_rc;
    const char *finish_step;
    double wall_seconds;
};

/*
 * NAME     cairn_job_start - run active/name
 * RETURNS  0 when the job is ours: it ends through cairn_daemon_job_ended
 *          (perhaps before this returns, handed back when its outputs
 *          cannot be created); -EAGAIN when another daemon holds it;
 *          -ENOENT when it vanished; -ENOMEM before anything was done
 */
int cairn_job_start(struct cairn_daemon *d, const char *name);

/* summary.c: render job->summary (status "ok" or "failed") and, for a
 * failed job, job->reason.  0 or -ENOMEM. */
int cairn_job_render_summary(struct cairn_job *job, const char *status);
int cairn_job_render_reason(struct cairn_job *job);

/* Shutdown past its deadline: remove this job's temporary files and
 * leave its input in active/ for the next start. */
void cairn_job_abandon(struct cairn_job *job);

#endif /* CAIRN_JOB_H */
