/*
 * job.c - one job's life: claim, open and lock, stream, publish, move the
 * input (see job.h for the order and the threads).
 */
#include "job.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attempts.h"
#include "filesink.h"
#include "names.h"
#include "publish.h"
#include "reuse.h"
#include "source.h"
#include "summary.h"
#include "tmpfile.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

#define RESULTS_SUFFIX ".results.jsonl"
#define SUMMARY_SUFFIX ".summary.json"
#define REASON_SUFFIX  ".reason.json"

struct cairn_job {
    struct cairn_job_env env;
    char *name;            /* NAME.jsonl, as in the spool */
    char *base;            /* NAME */
    char *out_base;        /* what outputs are named after: NAME, or for a
                            name too long for NAME.results.jsonl, a cut of
                            it, "~" and a hash of the whole name */
    char *label;           /* name, escaped for JSON and messages */
    char *submitted_as;    /* the name it was dropped as, when a used name
                            made the claim give it its own (reuse.h);
                            set by the claim, or for a re-run from
                            active/ by its record there (attempts.h) */
    char *claimed_as;      /* set by the claim (pool thread) to that name;
                            after_start makes it the job's name */
    int replaces;          /* claimed as the name it ran as before being
                            handed back, over that run's summary */
    int name_taken;        /* its name was taken in done/ or failed/: a
                            hand-back lets the claim choose a new one */
    const char *back_as;   /* handed back to the input directory as this */
    const char *back_name; /* ... as the hand-back on the pool set it */
    int back_rc;           /* that hand-back's outcome: 0 when it is back */
    int recovered;         /* already in active/ (left by a crash): no claim */
    int claimed;           /* in active/ and ours: a hand-back renames it out */
    int in_fd;
    int out_fd;                   /* the output directory, as it was when we began;
                            results and summary land there together */
    struct cairn_tmpfile res_tmp; /* the results, until published */
    uint64_t size;                /* of the input when opened, for progress */
    ino_t ino;                    /* of the input, to tie the attempts count to it */
    unsigned attempts;            /* earlier runs that never ended */
    /* What the job keeps from its environment, whatever a reload brings. */
    struct cairn_plugin_set *plugins;
    struct cairn_record_ctx ctx;
    char *default_variant;
    int keep_inputs;
    uint64_t max_attempts;
    struct cairn_stream stream;
    struct cairn_fd_source src;
    uint64_t t0_ns;
    struct timespec started;
    struct cairn_filesink results; /* into res_tmp, from the pool */
    char *fail_reason;             /* set: the job itself is bad, it goes to failed/ */
    /* Work on pool threads: the start, then the finish. */
    uv_work_t work;
    int start_rc; /* 0, or the negative errno that stopped the start */
    struct cairn_buf summary;
    struct cairn_buf reason;
    int finish_rc;
    const char *finish_step;
    double wall_seconds;
};

static const char *file_kind(mode_t m)
{
    if (S_ISLNK(m))
        return "a symbolic link";
    if (S_ISFIFO(m))
        return "a FIFO";
    if (S_ISDIR(m))
        return "a directory";
    if (S_ISSOCK(m))
        return "a socket";
    if (S_ISCHR(m) || S_ISBLK(m))
        return "a device";
    return "not a regular file";
}

/* Staged, fsync'd, renamed into place: readers see all or nothing. */
static int publish(int dir_fd, char kind, const char *name, const struct cairn_buf *content)
{
    const struct cairn_publish_opts opts = { .kind = kind, .sync = 1 };

    return cairn_publish_now(dir_fd, name, content->data, content->len, &opts);
}

/* NAME<suffix>, the name of one of the job's outputs. */
static char *output_name(const struct cairn_job *job, const char *suffix)
{
    return cairn_asprintf("%s%s", job->out_base, suffix);
}

#define STEP(what, expr)           \
    do {                           \
        job->finish_step = (what); \
        if ((rc = (expr)) != 0)    \
            goto fail;             \
    } while (0)

/* The input leaves active/: into dir_fd (done/ or failed/), or deleted
 * when dir_fd < 0.  Never over a file there: a finished job's copy is
 * never replaced.  Should one be there (another daemon gave the same
 * NAME~N between our look and our claim), the job is handed back without
 * its name, and its next claim chooses one used nowhere. */
static int move_input(struct cairn_job *job, int dir_fd)
{
    const struct cairn_spool *sp = job->env.spool;
    int rc;

    rc = dir_fd < 0 ? unlinkat(sp->active_fd, job->name, 0)
                    : renameat2(sp->active_fd, job->name, dir_fd, job->name, RENAME_NOREPLACE);
    if (rc != 0) {
        rc = -errno;
        job->name_taken = rc == -EEXIST;
        return rc;
    }
    cairn_attempts_forget_submitted(sp->active_fd, job->name);
    return 0;
}

/*
 * Crash consistency of a finished job.  Each step starts only once the
 * one before it is durable (a group commit, commit.h, shares the fsyncs
 * with the jobs finishing alongside, never skips one):
 *   1. results and summary are written to temporaries and fsync'd;
 *   2. the results are renamed into place, then the summary;
 *   3. the output directory is fsync'd: both names are on disk;
 *   4. the input leaves active/ (to done/, or deleted).
 * A power cut before 3 leaves at most renamed outputs whose contents are
 * already on disk, never a name over a torn file; the input is still in
 * active/ (or the spool), so the job runs again and replaces them.  After
 * 3, a summary on disk always has its complete results beside it.  The
 * move in 4 is not fsync'd: if it is lost, the job runs again and writes
 * the same outputs.  A process crash (SIGKILL) keeps the page cache, so
 * there the order of the renames alone is what readers see: the summary
 * never before its results, the input never out of active/ before the
 * summary is in place.
 */
static void finish_ok(struct cairn_job *job)
{
    const struct cairn_spool *sp = job->env.spool;
    char *res = output_name(job, RESULTS_SUFFIX);
    char *sum = output_name(job, SUMMARY_SUFFIX);
    struct cairn_tmpfile sum_tmp = { .fd = -1 };
    int fds[2];
    int rc = -ENOMEM;

    job->finish_step = "name outputs";
    if (res == NULL || sum == NULL)
        goto fail;
    /* Everything that needs disk space is written before anything becomes
     * visible, so a full disk leaves nothing behind; then two renames, the
     * summary last: its presence means the job is finished. */
    STEP("write summary", cairn_tmpfile_open(&sum_tmp, job->out_fd, 's', 0644));
    STEP("write summary", cairn_write_all(sum_tmp.fd, job->summary.data, job->summary.len));
    fds[0] = job->res_tmp.fd;
    fds[1] = sum_tmp.fd;
    STEP("fsync results and summary", cairn_commit_sync(sp->commit, fds, 2));
    /* Daemons sharing this output directory publish one pair at a time, so
     * two runs' pairs never interleave.  (Should the summary's rename fail
     * after the results', the new results sit beside the earlier summary
     * until the retry: see hand_back.) */
    flock(job->out_fd, LOCK_EX);
    job->finish_step = "publish results";
    rc = cairn_tmpfile_commit(&job->res_tmp, res);
    if (rc == 0) {
        job->finish_step = "publish summary";
        rc = cairn_tmpfile_commit(&sum_tmp, sum);
    }
    flock(job->out_fd, LOCK_UN);
    if (rc != 0)
        goto fail;
    STEP("fsync output directory", cairn_commit_sync(sp->commit, &job->out_fd, 1));
    /* Before the input leaves active/: a new job of the same name may be
     * claimed the moment it does, and its count must not be ours. */
    cairn_attempts_forget(sp->active_fd, job->name);
    if (job->keep_inputs)
        STEP("move input to done", move_input(job, sp->done_fd));
    else
        STEP("delete input", move_input(job, -1));
    job->finish_rc = 0;
    goto out;
fail:
    job->finish_rc = rc;
    cairn_tmpfile_discard(&sum_tmp);
    cairn_tmpfile_discard(&job->res_tmp);
out:
    free(res);
    free(sum);
}

static void finish_failed(struct cairn_job *job)
{
    const struct cairn_spool *sp = job->env.spool;
    char *reason = output_name(job, REASON_SUFFIX);
    char *sum = output_name(job, SUMMARY_SUFFIX);
    int dirs[2] = { job->out_fd, sp->failed_fd };
    int rc = -ENOMEM;

    cairn_tmpfile_discard(&job->res_tmp);
    job->finish_step = "name outputs";
    if (reason == NULL || sum == NULL)
        goto fail;
    STEP("write reason", publish(sp->failed_fd, 'x', reason, &job->reason));
    STEP("publish summary", publish(job->out_fd, 's', sum, &job->summary));
    /* failed/ too: the reason is on disk before the input joins it. */
    STEP("fsync output directory", cairn_commit_sync(sp->commit, dirs, 2));
    cairn_attempts_forget(sp->active_fd, job->name);
    /* rename(2) moves a symlink or FIFO itself: nothing is followed. */
    STEP("move input to failed", move_input(job, sp->failed_fd));
    job->finish_rc = 0;
    goto out;
fail:
    job->finish_rc = rc;
out:
    free(reason);
    free(sum);
}

static void finish_work(uv_work_t *req)
{
    struct cairn_job *job = req->data;

    if (job->fail_reason != NULL)
        finish_failed(job);
    else
        finish_ok(job);
}

static void job_free(struct cairn_job *job)
{
    cairn_tmpfile_discard(&job->res_tmp);
    if (job->out_fd >= 0)
        close(job->out_fd);
    if (job->in_fd >= 0)
        close(job->in_fd); /* releases the lock */
    cairn_plugin_set_unref(job->plugins);
    cairn_stream_free(&job->stream);
    cairn_buf_free(&job->summary);
    cairn_buf_free(&job->reason);
    free(job->default_variant);
    free(job->fail_reason);
    free(job->name);
    free(job->submitted_as);
    free(job->claimed_as);
    free(job->base);
    free(job->out_base);
    free(job->label);
    free(job);
}

/* Outputs could not be written: the job's temporaries are removed (if
 * the results were published but the summary failed, those results stay
 * beside the earlier run's summary until the retry replaces both), and
 * the input goes back to the spool to be tried again: as the name its
 * producer dropped it as, so the daemon's back-off knows it and its
 * summary keeps submitted_as; or, when a new file of that name waits
 * there, as the name it ran as.  A hand-back mark (attempts.h) makes its
 * next claim take the name it ran as again, replacing its own outputs,
 * unless that name was taken in done/ or failed/ (move_input).  On a pool
 * thread, like the finish it replaces: the loop logs it after. */
static void hand_back_work(uv_work_t *req)
{
    struct cairn_job *job = req->data;
    const struct cairn_spool *sp = job->env.spool;
    const char *back = job->submitted_as != NULL ? job->submitted_as : job->name;
    struct stat st;
    ino_t ino = job->ino;
    int rc;

    cairn_tmpfile_discard(&job->res_tmp);
    job->back_rc = -ENOENT;
    if (!job->claimed)
        return;
    cairn_attempts_forget(sp->active_fd, job->name);
    if (ino == 0 && fstatat(sp->active_fd, job->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        ino = st.st_ino;
    /* The mark goes first: the file may be claimed the moment it is back.
     * Without it (out of memory) the next claim chooses a new name. */
    if (!job->name_taken)
        cairn_attempts_note_handback(sp->active_fd, back, ino, job->name, job->submitted_as);
    rc = cairn_spool_unclaim_as(sp, job->name, back);
    if (rc == -EEXIST && back != job->name) {
        cairn_attempts_forget_handback(sp->active_fd, back);
        back = job->name;
        if (!job->name_taken)
            cairn_attempts_note_handback(sp->active_fd, back, ino, job->name, job->submitted_as);
        rc = cairn_spool_unclaim(sp, job->name);
    }
    if (rc == 0) {
        /* The mark carries submitted_as now. */
        cairn_attempts_forget_submitted(sp->active_fd, job->name);
        job->back_name = back;
    } else {
        /* Still in active/ as it ran: the next start re-runs it there,
         * its submitted_as record with it. */
        cairn_attempts_forget_handback(sp->active_fd, back);
    }
    job->back_rc = rc;
}

static void report(struct cairn_job *job, enum cairn_job_outcome outcome);

static void after_hand_back(uv_work_t *req, int status)
{
    struct cairn_job *job = req->data;
    const char *step = job->finish_step, *why = uv_strerror(job->finish_rc);

    (void)status; /* never cancelled: nothing cancels a job's work */
    if (!job->claimed)
        cairn_log(job->env.log, CAIRN_LOG_ERROR,
                  "job %s: cannot %s: %s; left in the spool for another try", job->base, step, why);
    else if (job->back_rc == 0)
        cairn_log(job->env.log, CAIRN_LOG_ERROR,
                  "job %s: cannot %s: %s; handed back to the spool for another try as %s",
                  job->base, step, why, job->back_name);
    else
        cairn_log(job->env.log, CAIRN_LOG_ERROR,
                  "job %s: cannot %s: %s; left in .cairn/active/ for the next start", job->base,
                  step, why);
    if (job->back_rc == 0)
        job->back_as = job->back_name;
    report(job, CAIRN_JOB_RETRY);
}

/* Every end goes through here, once: the outcome is sorted by the one
 * policy (outcome.h); a retry first hands the input back. */
static void end(struct cairn_job *job, enum cairn_job_outcome outcome)
{
    if (outcome == CAIRN_JOB_RETRY) {
        job->work.data = job;
        if (uv_queue_work(job->env.loop, &job->work, hand_back_work, after_hand_back) != 0) {
            /* The pool refused (it never does once running): here, then. */
            hand_back_work(&job->work);
            after_hand_back(&job->work, 0);
        }
        return;
    }
    report(job, outcome);
}

/* The outcome said in the log and reported; the job is gone after. */
static void report(struct cairn_job *job, enum cairn_job_outcome outcome)
{
    const struct cairn_tally *t = &job->stream.tally;

    switch (outcome) {
    case CAIRN_JOB_FAILED:
        cairn_log(job->env.log, CAIRN_LOG_ERROR, "job %s failed: %s (moved to .cairn/failed/)",
                  job->base, job->fail_reason);
        break;
    case CAIRN_JOB_DONE:
        cairn_log(job->env.log, CAIRN_LOG_INFO,
                  "job %s finished: %llu records, %llu ok, %llu errors, %llu bytes in %.3f s",
                  job->base, (unsigned long long)t->records, (unsigned long long)t->ok,
                  (unsigned long long)(t->records - t->ok), (unsigned long long)job->stream.bytes,
                  job->wall_seconds);
        break;
    case CAIRN_JOB_RETRY: /* logged by after_hand_back */
    case CAIRN_JOB_GONE:
    case CAIRN_JOB_BUSY: break;
    }
    job->env.on_end(job->env.data, job, outcome);
    job_free(job);
}

static void after_finish(uv_work_t *req, int status)
{
    struct cairn_job *job = req->data;

    if (status != 0 && job->finish_rc == 0)
        job->finish_rc = status;
    end(job, cairn_job_outcome(job->finish_rc, job->fail_reason != NULL));
}

/* Ends the job now as "try again later" (its outputs cannot be made, or
 * memory ran out): the same path as any other end, and the daemon's
 * back-off keeps it from coming straight back. */
static void end_early(struct cairn_job *job, const char *step, int rc)
{
    job->finish_rc = rc;
    job->finish_step = step;
    end(job, cairn_job_outcome(rc, job->fail_reason != NULL));
}

/* Renders the summary (and the reason) on the loop, then publishes on a
 * pool thread. */
static void finish(struct cairn_job *job)
{
    struct cairn_job_facts facts;
    int rc = 0;

    job->wall_seconds = (double)(uv_hrtime() - job->t0_ns) / 1e9;
    facts = (struct cairn_job_facts){ .name = job->name,
                                      .base = job->base,
                                      .out_base = job->out_base,
                                      .reason = job->fail_reason,
                                      .submitted_as = job->submitted_as,
                                      .input_inode = (uint64_t)job->ino,
                                      .started = job->started,
                                      .wall_seconds = job->wall_seconds,
                                      .bytes = job->stream.bytes,
                                      .tally = &job->stream.tally,
                                      .reg = &job->plugins->reg };
    if (job->fail_reason != NULL)
        rc = cairn_reason_render(&facts, &job->reason);
    if (rc == 0)
        rc = cairn_summary_render(&facts, &job->summary);
    job->work.data = job;
    if (rc == 0)
        rc = uv_queue_work(job->env.loop, &job->work, finish_work, after_finish);
    if (rc != 0)
        end_early(job, "prepare the summary", rc);
}

static void fail_job(struct cairn_job *job, const char *fmt, const char *detail)
{
    job->fail_reason = cairn_asprintf(fmt, detail);
    if (job->fail_reason == NULL)
        end_early(job, "describe the failure", -ENOMEM);
    else
        finish(job);
}

/* ---- streaming: cut on the loop, read and written on the pool ---------- */

static void sink_write(struct cairn_stream *s, struct cairn_batch *b)
{
    struct cairn_job *job = s->sink.data;

    if (job->env.on_batch != NULL)
        job->env.on_batch(job->env.data, &job->plugins->reg, &b->tally);
    cairn_filesink_write(&job->results, b);
}

static void sink_end(struct cairn_stream *s, int status)
{
    struct cairn_job *job = s->sink.data;

    cairn_fd_source_close(&job->src);
    if (job->results.error != 0) {
        end_early(job, "write results", job->results.error);
        return;
    }
    if (status == -ENOMEM) {
        end_early(job, "process the job (out of memory)", status);
        return;
    }
    if (status != 0)
        job->fail_reason = cairn_asprintf("read error: %s", uv_strerror(status));
    finish(job);
}

static void start_streaming(struct cairn_job *job)
{
    int rc;

    /* A job keeps the settings it began with, whatever a reload brings. */
    job->ctx = (struct cairn_record_ctx){ .reg = &job->plugins->reg,
                                          .default_limits = job->ctx.default_limits,
                                          .default_variant = job->default_variant,
                                          .hang = job->env.hang };
    job->stream.pool = job->env.pool;
    job->stream.ctx = &job->ctx;
    job->stream.sink = (struct cairn_sink){ .write = sink_write, .end = sink_end, .data = job };
    cairn_filesink_init(&job->results, job->env.loop, job->res_tmp.fd);
    rc = cairn_fd_source_init(&job->src, job->env.loop, job->in_fd, CAIRN_SOURCE_POOL,
                              &job->stream.source);
    if (rc == 0)
        rc = cairn_stream_start(&job->stream);
    if (rc == -ENOMEM)
        end_early(job, "start streaming", rc);
    else if (rc != 0)
        fail_job(job, "cannot stream the job: %s", uv_strerror(rc));
}

/* ---- starting: claim, open, count, create, on a pool thread -------------- */

/* Opens and locks active/NAME.  0 when this daemon now owns it; 1 when the
 * job is bad and fail_reason is set; negative errno otherwise (-ENOENT:
 * gone, -EAGAIN: another daemon holds it). */
static int open_input(struct cairn_job *job, const char *file)
{
    const struct cairn_spool *sp = job->env.spool;
    struct stat st, now;

    if (fstatat(sp->active_fd, file, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode)) {
        job->fail_reason = cairn_asprintf("%s is %s; job files must be regular files "
                                          "(it was not opened or followed)",
                                          job->label, file_kind(st.st_mode));
        return job->fail_reason ? 1 : -ENOMEM;
    }
    /* O_NOFOLLOW and O_NONBLOCK: if it was swapped for a link or a FIFO
     * since the lstat, we neither follow nor hang. */
    job->in_fd =
        openat(sp->active_fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (job->in_fd < 0) {
        int err = errno;
        if (err == ENOENT)
            return -ENOENT;
        job->fail_reason = cairn_asprintf("cannot open %s: %s", job->label, strerror(err));
        return job->fail_reason ? 1 : -ENOMEM;
    }
    /* The lock says "a live daemon works on this"; it dies with us, so a
     * crash leaves the job free for whoever starts next. */
    if (flock(job->in_fd, LOCK_EX | LOCK_NB) != 0)
        return errno == EWOULDBLOCK ? -EAGAIN : -errno;
    /* Still ours at that name?  Another daemon may have finished and moved
     * it between our rename and our lock. */
    if (fstat(job->in_fd, &st) != 0 ||
        fstatat(sp->active_fd, file, &now, AT_SYMLINK_NOFOLLOW) != 0 || st.st_ino != now.st_ino ||
        st.st_dev != now.st_dev)
        return -ENOENT;
    if (!S_ISREG(st.st_mode)) {
        job->fail_reason = cairn_asprintf("%s is %s; job files must be regular files", job->label,
                                          file_kind(st.st_mode));
        return job->fail_reason ? 1 : -ENOMEM;
    }
    job->size = (uint64_t)st.st_size;
    job->ino = st.st_ino;
    return 0;
}

/* The blocking half of a start.  start_rc: 0 (ready to stream, or
 * fail_reason set), -ENOENT/-EAGAIN (not ours), -EEXIST (a job of that
 * name is active), or another error (hand it back). */
static void start_work(uv_work_t *req)
{
    struct cairn_job *job = req->data;
    const struct cairn_spool *sp = job->env.spool;
    const char *file;
    int rc = 0;

    /* One renameat2(RENAME_NOREPLACE): atomic, and never over a job in
     * progress; under a name of its own when the name was used before,
     * so no earlier output is overwritten (reuse.h).  job->name stays
     * as it is until after_start: the loop thread reads it meanwhile. */
    job->finish_step = "claim the job";
    if (!job->recovered && (rc = cairn_reuse_claim(sp, job->out_fd, job->name, &job->claimed_as,
                                                   &job->submitted_as, &job->replaces)) != 0) {
        job->start_rc = rc;
        return;
    }
    file = job->claimed_as != NULL ? job->claimed_as : job->name;
    job->finish_step = "open the job file";
    rc = open_input(job, file);
    if (rc < 0) {
        job->start_rc = rc;
        return;
    }
    if (rc == 1)
        return; /* bad: fail_reason says why */
    /* What it was dropped as, where a re-run from active/ finds it. */
    if (job->recovered) {
        rc = cairn_attempts_submitted(sp->active_fd, file, job->ino, &job->submitted_as);
        if (rc < 0) {
            job->start_rc = rc;
            return;
        }
    } else if (job->submitted_as != NULL) {
        /* Best effort, like the count: without it only a crash re-run's
         * summary lacks submitted_as.  Written after the claim, so a crash
         * between the rename and here loses it too: written before, under
         * the name being claimed, it could clobber another daemon's record
         * for a job that won that name meanwhile. */
        (void)cairn_attempts_note_submitted(sp->active_fd, file, job->ino, job->submitted_as);
    }
    job->attempts = cairn_attempts_count(sp->active_fd, file, job->ino);
    if (job->attempts >= job->max_attempts)
        return; /* quarantined on the loop, where the reason is worded */
    job->finish_step = "create the results file";
    job->start_rc = cairn_tmpfile_open(&job->res_tmp, job->out_fd, 'r', 0644);
}

/* The claim gave the job a name of its own: from here on it is that job,
 * its outputs and done/ copy named after it.  0 or -ENOMEM. */
static int take_claimed_name(struct cairn_job *job)
{
    const char *name = job->claimed_as;
    char *base = strndup(name, strlen(name) - strlen(".jsonl"));
    char *out_base = cairn_output_base(name), *label = cairn_name_escape(name);

    if (base == NULL || out_base == NULL || label == NULL) {
        free(base);
        free(out_base);
        free(label);
        return -ENOMEM;
    }
    cairn_log(job->env.log, CAIRN_LOG_WARNING,
              "job %s: a job of this name finished before; its outputs are kept, and this one "
              "runs as %s",
              job->base, base);
    free(job->name);
    job->name = job->claimed_as;
    job->claimed_as = NULL;
    free(job->base);
    free(job->out_base);
    free(job->label);
    job->base = base;
    job->out_base = out_base;
    job->label = label;
    return 0;
}

static void after_start(uv_work_t *req, int status)
{
    struct cairn_job *job = req->data;
    int rc = status != 0 ? status : job->start_rc;

    int unnamed = 0;

    if (job->claimed_as != NULL && take_claimed_name(job) != 0) {
        const struct cairn_spool *sp = job->env.spool;

        /* The job is still job->name to us but active/claimed_as on disk:
         * put the file back as it came (unlocked first, or another daemon
         * would take it for ours), so nothing is handed back under a name
         * it does not have; if that fails, the next start runs it from
         * active/ as claimed_as, its submitted_as record with it. */
        unnamed = 1;
        if (job->in_fd >= 0) {
            close(job->in_fd);
            job->in_fd = -1;
        }
        if (renameat2(sp->active_fd, job->claimed_as, sp->in_fd, job->name, RENAME_NOREPLACE) ==
            0) {
            cairn_attempts_forget(sp->active_fd, job->claimed_as);
            cairn_attempts_forget_submitted(sp->active_fd, job->claimed_as);
            cairn_log(job->env.log, CAIRN_LOG_ERROR,
                      "job %s: out of memory naming it %s; put back in the spool", job->base,
                      job->claimed_as);
        } else {
            cairn_log(job->env.log, CAIRN_LOG_ERROR,
                      "job %s: out of memory naming it %s; left in .cairn/active/ as that for "
                      "the next start",
                      job->base, job->claimed_as);
        }
        rc = -ENOMEM;
    }

    /* Ours unless the claim itself failed, or another daemon holds it. */
    job->claimed = !unnamed && (rc == 0 || (job->in_fd >= 0 && rc != -EAGAIN && rc != -ENOENT) ||
                                (job->recovered && rc != -EAGAIN && rc != -ENOENT));
    if (rc == -ENOENT || rc == -EAGAIN) {
        end(job, CAIRN_JOB_GONE);
        return;
    }
    if (rc == -EEXIST) {
        end(job, CAIRN_JOB_BUSY);
        return;
    }
    if (rc != 0) {
        /* Not startable now: give it back (if it was ours) for another
         * try after the back-off. */
        end_early(job, job->finish_step, rc);
        return;
    }
    cairn_log(job->env.log, CAIRN_LOG_INFO, "job %s claimed", job->base);
    if (job->replaces)
        cairn_log(job->env.log, CAIRN_LOG_WARNING,
                  "job %s: handed back after its summary was published; this re-run replaces "
                  "its own outputs",
                  job->base);
    if (job->fail_reason != NULL) {
        finish(job);
    } else if (job->attempts >= job->max_attempts) {
        job->fail_reason = cairn_asprintf(
            "%u earlier run(s) never finished: the job crashed, hung (solve_timeout_s) or "
            "killed the daemon (max_attempts %llu)",
            job->attempts, (unsigned long long)job->max_attempts);
        if (job->fail_reason == NULL)
            end_early(job, "describe the quarantine", -ENOMEM);
        else
            finish(job);
    } else {
        start_streaming(job);
    }
}

int cairn_job_start(const struct cairn_job_env *env, const char *name, int recovered,
                    struct cairn_job **job_out)
{
    struct cairn_job *job = calloc(1, sizeof(*job));
    size_t base_len = strlen(name) - strlen(".jsonl");
    int rc;

    if (job == NULL)
        return -ENOMEM;
    job->env = *env;
    job->recovered = recovered;
    job->in_fd = job->res_tmp.fd = -1;
    job->plugins = cairn_plugin_set_ref(env->plugins);
    job->name = strdup(name);
    job->base = strndup(name, base_len);
    job->out_base = cairn_output_base(name);
    job->label = cairn_name_escape(name);
    job->keep_inputs = env->cfg->keep_inputs;
    job->max_attempts = env->cfg->max_attempts;
    job->ctx.default_limits = env->cfg->limits;
    job->stream.max_line_bytes = env->cfg->max_line_bytes;
    if (env->cfg->default_variant != NULL)
        job->default_variant = strdup(env->cfg->default_variant);
    job->t0_ns = uv_hrtime();
    clock_gettime(CLOCK_REALTIME, &job->started);
    /* The job's own handle on the output directory (see out_fd). */
    job->out_fd = fcntl(env->spool->out_fd, F_DUPFD_CLOEXEC, 3);
    if (job->name == NULL || job->base == NULL || job->out_base == NULL || job->label == NULL ||
        (env->cfg->default_variant != NULL && job->default_variant == NULL)) {
        job_free(job);
        return -ENOMEM;
    }
    job->work.data = job;
    rc = job->out_fd < 0 ? -errno : uv_queue_work(env->loop, &job->work, start_work, after_start);
    if (rc != 0) {
        /* Nothing was claimed: the job is still where it was. */
        job_free(job);
        return rc;
    }
    *job_out = job;
    return 0;
}

void cairn_job_info(const struct cairn_job *job, struct cairn_job_info *info)
{
    *info = (struct cairn_job_info){ .name = job->name,
                                     .size = job->size,
                                     .bytes_read = job->stream.bytes,
                                     .records = job->stream.tally.records,
                                     .wall_seconds = job->wall_seconds,
                                     .reason = job->fail_reason,
                                     .back_as = job->back_as,
                                     .started = job->started };
}

void cairn_job_abandon(struct cairn_job *job, int counted)
{
    /* By name only: a worker may still be writing through the descriptor,
     * and the process exit closes it. */
    if (job->res_tmp.fd >= 0)
        unlinkat(job->res_tmp.dir_fd, job->res_tmp.name, 0);
    if (counted)
        return; /* its attempts file keeps this run */
    cairn_attempts_forget(job->env.spool->active_fd, job->name); /* not the job's fault */
    cairn_log(job->env.log, CAIRN_LOG_WARNING,
              "job %s not finished: left in .cairn/active/ for the next start (this run is not "
              "counted against it)",
              job->base);
}

int cairn_job_owns(const struct cairn_job *job, const void *owner)
{
    return owner == (const void *)&job->ctx;
}
