/*
 * job.c - one job's life: open and lock, stream, publish, move the input.
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
#include "tmpfile.h"

#define RESULTS_SUFFIX ".results.jsonl"
#define SUMMARY_SUFFIX ".summary.json"
#define REASON_SUFFIX ".reason.json"

static uint64_t now_ns(void)
{
    return uv_hrtime();
}

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
    struct cairn_tmpfile t;
    int rc = cairn_tmpfile_open(&t, dir_fd, kind, 0644);

    if (rc != 0)
        return rc;
    rc = cairn_tmpfile_write_sync(&t, content->data, content->len);
    if (rc != 0) {
        cairn_tmpfile_discard(&t);
        return rc;
    }
    return cairn_tmpfile_commit(&t, name);
}

/* NAME<suffix>, the name of one of the job's outputs. */
static char *output_name(const struct cairn_job *job, const char *suffix)
{
    return cairn_asprintf("%s%s", job->out_base, suffix);
}

/* Bytes of a long name kept in its outputs' names: with "~", 16 hex
 * digits and ".results.jsonl", still well under NAME_MAX. */
#define OUTPUT_CUT 200

/* NAME when NAME.results.jsonl fits in NAME_MAX; otherwise the first
 * OUTPUT_CUT bytes of NAME (not splitting a UTF-8 character), "~" and a
 * hash of the whole file name: short, and distinct for distinct names. */
static char *output_base(const char *name, const char *base)
{
    size_t cut = OUTPUT_CUT;

    if (strlen(base) + strlen(RESULTS_SUFFIX) <= NAME_MAX)
        return strdup(base);
    while (cut > 0 && ((unsigned char)base[cut] & 0xC0) == 0x80)
        cut--;
    return cairn_asprintf("%.*s~%016llx", (int)cut, base,
                          (unsigned long long)cairn_hash64(name, strlen(name)));
}

/* ---- finishing, on a worker ------------------------------------------- */

#define STEP(what, expr)                 \
    do {                                 \
        job->finish_step = (what);       \
        if ((rc = (expr)) != 0)          \
            goto fail;                   \
    } while (0)

static int errno_of(int ok)
{
    return ok == 0 ? 0 : -errno;
}

static void finish_ok(struct cairn_job *job)
{
    const struct cairn_spool *sp = &job->d->spool;
    char *res = output_name(job, RESULTS_SUFFIX);
    char *sum = output_name(job, SUMMARY_SUFFIX);
    struct cairn_tmpfile sum_tmp = {.fd = -1};
    int rc = -ENOMEM;

    job->finish_step = "name outputs";
    if (res == NULL || sum == NULL)
        goto fail;
    /* Everything that needs disk space is written before anything becomes
     * visible, so a full disk leaves nothing behind; then two renames, the
     * summary last: its presence means the job is finished.  Both files
     * are written before either is fsync'd: the first fsync's journal
     * commit then carries both, and the second costs little. */
    STEP("write summary", cairn_tmpfile_open(&sum_tmp, job->out_fd, 's', 0644));
    STEP("write summary", cairn_write_all(sum_tmp.fd, job->summary.data, job->summary.len));
    STEP("fsync results", errno_of(fsync(job->res_tmp.fd)));
    STEP("fsync summary", errno_of(fsync(sum_tmp.fd)));
    /* Daemons sharing this output directory publish one pair at a time, so
     * NAME.results.jsonl and NAME.summary.json always describe one run. */
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
    STEP("fsync output directory", errno_of(fsync(job->out_fd)));
    /* Before the input leaves active/: a new job of the same name may be
     * claimed the moment it does, and its count must not be ours. */
    cairn_attempts_forget(sp->active_fd, job->name);
    if (job->keep_inputs)
        STEP("move input to done", errno_of(renameat(sp->active_fd, job->name, sp->done_fd,
                                                      job->name)));
    else
        STEP("delete input", errno_of(unlinkat(sp->active_fd, job->name, 0)));
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
    const struct cairn_spool *sp = &job->d->spool;
    char *reason = output_name(job, REASON_SUFFIX);
    char *sum = output_name(job, SUMMARY_SUFFIX);
    int rc = -ENOMEM;

    cairn_tmpfile_discard(&job->res_tmp);
    job->finish_step = "name outputs";
    if (reason == NULL || sum == NULL)
        goto fail;
    STEP("write reason", publish(sp->failed_fd, 'x', reason, &job->reason));
    STEP("publish summary", publish(job->out_fd, 's', sum, &job->summary));
    STEP("fsync output directory", errno_of(fsync(job->out_fd)));
    cairn_attempts_forget(sp->active_fd, job->name);
    /* rename(2) moves a symlink or FIFO itself: nothing is followed. */
    STEP("move input to failed", errno_of(renameat(sp->active_fd, job->name, sp->failed_fd,
                                                    job->name)));
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
    if (job->plugins != NULL)
        cairn_plugin_set_unref(job->plugins);
    cairn_stream_free(&job->stream);
    cairn_buf_free(&job->summary);
    cairn_buf_free(&job->reason);
    free(job->default_variant);
    free(job->fail_reason);
    free(job->name);
    free(job->base);
    free(job->out_base);
    free(job->label);
    free(job);
}

/* Outputs could not be written: the job's temporaries are removed (a
 * results file published before a failing summary stays, describing an
 * earlier run until the retry replaces it), and the input goes back to the
 * spool to be tried again. */
static void hand_back(struct cairn_job *job, const char *step, int err)
{
    struct cairn_daemon *d = job->d;
    int rc;

    cairn_tmpfile_discard(&job->res_tmp);
    cairn_attempts_forget(d->spool.active_fd, job->name);
    rc = cairn_spool_unclaim(&d->spool, job->name);
    cairn_log(&d->log, CAIRN_LOG_ERROR, "job %s: cannot %s: %s; %s", job->base, step,
              uv_strerror(err),
              rc == 0 ? "handed back to the spool for another try"
                      : "left in .cairn/active/ for the next start");
}

static void after_finish(uv_work_t *req, int status)
{
    struct cairn_job *job = req->data;
    struct cairn_daemon *d = job->d;
    const struct cairn_tally *t = &job->stream.tally;
    int ok = 0;

    if (status != 0 && job->finish_rc == 0)
        job->finish_rc = status;
    if (job->finish_rc != 0) {
        hand_back(job, job->finish_step, job->finish_rc);
    } else if (job->fail_reason != NULL) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "job %s failed: %s (moved to .cairn/failed/)",
                  job->base, job->fail_reason);
        cairn_metrics_job_done(&d->metrics, 0, job->wall_seconds);
        d->jobs_failed++;
    } else {
        cairn_log(&d->log, CAIRN_LOG_INFO,
                  "job %s finished: %llu records, %llu ok, %llu errors, %llu bytes in %.3f s",
                  job->base, (unsigned long long)t->records, (unsigned long long)t->ok,
                  (unsigned long long)(t->records - t->ok),
                  (unsigned long long)job->stream.bytes, job->wall_seconds);
        cairn_metrics_job_done(&d->metrics, 1, job->wall_seconds);
        d->jobs_ok++;
        ok = 1;
    }
    cairn_daemon_job_ended(d, job, job->finish_rc == 0 ? ok : -1);
    job_free(job);
}

static void finish(struct cairn_job *job)
{
    int rc;

    rc = job->fail_reason != NULL ? cairn_job_render_reason(job) : 0;
    if (rc == 0)
        rc = cairn_job_render_summary(job, job->fail_reason != NULL ? "failed" : "ok");
    job->finish.data = job;
    if (rc == 0)
        rc = uv_queue_work(&job->d->loop, &job->finish, finish_work, after_finish);
    if (rc != 0) {
        job->finish_rc = rc;
        job->finish_step = "prepare the summary";
        after_finish(&job->finish, 0);
    }
}

/* ---- streaming --------------------------------------------------------- */

static void sink_write(struct cairn_stream *s, struct cairn_batch *b)
{
    struct cairn_job *job = s->sink.data;

    if (job->write_error == 0 && b->out.len > 0)
        job->write_error = cairn_write_all(job->res_tmp.fd, b->out.data, b->out.len);
    cairn_metrics_add_tally(&job->d->metrics, &job->plugins->reg, &b->tally);
    job->d->records += b->tally.records;
    cairn_batch_release(b);
}

static void sink_end(struct cairn_stream *s, int status)
{
    struct cairn_job *job = s->sink.data;

    job->streaming = 0;
    cairn_fd_source_close(&job->src);
    cairn_metrics_add_bytes(&job->d->metrics, s->bytes);
    if (job->write_error != 0) {
        job->finish_rc = job->write_error;
        job->finish_step = "write results";
        after_finish(&job->finish, 0);
        return;
    }
    if (status == -ENOMEM) {
        job->finish_rc = status;
        job->finish_step = "process the job (out of memory)";
        after_finish(&job->finish, 0);
        return;
    }
    if (status != 0)
        job->fail_reason = cairn_asprintf("read error: %s", uv_strerror(status));
    finish(job);
}

/* ---- start ------------------------------------------------------------- */

static int fail_job(struct cairn_job *job, const char *fmt, const char *detail)
{
    job->fail_reason = cairn_asprintf(fmt, detail);
    if (job->fail_reason == NULL)
        return -ENOMEM;
    finish(job);
    return 0;
}

/* Opens and locks active/NAME.  0 when this daemon now owns it; 1 when the
 * job is bad and fail_reason is set; negative errno otherwise. */
static int open_input(struct cairn_job *job)
{
    const struct cairn_spool *sp = &job->d->spool;
    struct stat st, now;

    if (fstatat(sp->active_fd, job->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode)) {
        job->fail_reason = cairn_asprintf("%s is %s; job files must be regular files "
                                          "(it was not opened or followed)",
                                          job->label, file_kind(st.st_mode));
        return job->fail_reason ? 1 : -ENOMEM;
    }
    /* O_NOFOLLOW and O_NONBLOCK: if it was swapped for a link or a FIFO
     * since the lstat, we neither follow nor hang. */
    job->in_fd = openat(sp->active_fd, job->name,
                        O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
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
        fstatat(sp->active_fd, job->name, &now, AT_SYMLINK_NOFOLLOW) != 0 ||
        st.st_ino != now.st_ino || st.st_dev != now.st_dev)
        return -ENOENT;
    if (!S_ISREG(st.st_mode)) {
        job->fail_reason = cairn_asprintf("%s is %s; job files must be regular files",
                                          job->label, file_kind(st.st_mode));
        return job->fail_reason ? 1 : -ENOMEM;
    }
    job->size = (uint64_t)st.st_size;
    job->ino = st.st_ino;
    return 0;
}

static int open_results(struct cairn_job *job)
{
    return cairn_tmpfile_open(&job->res_tmp, job->out_fd, 'r', 0644);
}

/* A job that cannot begin for want of its outputs (or a transient error):
 * it ends now, through the same path as any other, as "try again later";
 * the daemon's back-off keeps it from coming straight back. */
static int end_early(struct cairn_job *job, const char *step, int rc)
{
    job->finish_rc = rc;
    job->finish_step = step;
    after_finish(&job->finish, 0);
    return 0;
}

static void link_job(struct cairn_daemon *d, struct cairn_job *job)
{
    job->next = d->jobs;
    if (d->jobs != NULL)
        d->jobs->prev = job;
    d->jobs = job;
    d->active++;
}

int cairn_job_start(struct cairn_daemon *d, const char *name)
{
    struct cairn_job *job = calloc(1, sizeof(*job));
    size_t base_len = strlen(name) - strlen(".jsonl");
    unsigned attempts;
    int rc;

    if (job == NULL)
        return -ENOMEM;
    job->d = d;
    job->id = ++d->job_counter;
    job->finish.data = job; /* after_finish() is also called directly */
    job->in_fd = job->res_tmp.fd = -1;
    /* The job keeps its own handle on the output directory: if the path is
     * moved and recreated while it runs, its results and summary still land
     * together, in the directory its results file was created in. */
    job->out_fd = fcntl(d->spool.out_fd, F_DUPFD_CLOEXEC, 3);
    job->name = strdup(name);
    job->base = strndup(name, base_len);
    job->out_base = job->base != NULL ? output_base(name, job->base) : NULL;
    job->label = cairn_name_escape(name);
    job->plugins = cairn_plugin_set_ref(d->plugins);
    job->keep_inputs = d->cfg.keep_inputs;
    job->t0_ns = now_ns();
    clock_gettime(CLOCK_REALTIME, &job->started);
    if (job->out_fd < 0) {
        rc = -errno;
        job_free(job);
        return rc;
    }
    if (job->name == NULL || job->base == NULL || job->out_base == NULL || job->label == NULL ||
        cairn_tally_init(&job->stream.tally, job->plugins->reg.n_plugins) != 0) {
        job_free(job);
        return -ENOMEM;
    }
    rc = open_input(job);
    if (rc == -EAGAIN || rc == -ENOENT) {
        job_free(job); /* not ours (any more): nothing to undo */
        return rc;
    }
    if (rc < 0) {
        link_job(d, job);
        return end_early(job, "open the job file", rc);
    }
    if (rc == 1) {
        link_job(d, job);
        cairn_log(&d->log, CAIRN_LOG_INFO, "job %s claimed", job->base);
        finish(job);
        return 0;
    }
    attempts = cairn_attempts_count(d->spool.active_fd, job->name, job->ino);
    if (attempts >= d->cfg.max_attempts) {
        link_job(d, job);
        job->fail_reason = cairn_asprintf(
            "%u earlier run(s) never finished: the job crashed, hung (solve_timeout_s) or "
            "killed the daemon (max_attempts %llu)", attempts,
            (unsigned long long)d->cfg.max_attempts);
        if (job->fail_reason == NULL)
            return fail_job(job, "%s", "out of memory");
        finish(job);
        return 0;
    }
    link_job(d, job);
    rc = open_results(job);
    if (rc != 0)
        return end_early(job, "create the results file", rc);
    if (d->cfg.default_variant != NULL &&
        (job->default_variant = strdup(d->cfg.default_variant)) == NULL)
        return fail_job(job, "%s", "out of memory");
    /* A job keeps the settings it began with, whatever a reload brings. */
    job->ctx = (struct cairn_record_ctx){.reg = &job->plugins->reg,
                                         .default_limits = d->cfg.limits,
                                         .default_variant = job->default_variant,
                                         .hang = &d->hang};
    cairn_tally_free(&job->stream.tally); /* the stream sizes its own */
    job->stream.pool = &d->pool;
    job->stream.ctx = &job->ctx;
    job->stream.max_line_bytes = d->cfg.max_line_bytes;
    job->stream.sink = (struct cairn_sink){.write = sink_write, .end = sink_end, .data = job};
    rc = cairn_fd_source_init(&job->src, &d->loop, job->in_fd, &job->stream.source);
    if (rc == 0)
        rc = cairn_stream_start(&job->stream);
    if (rc != 0)
        return fail_job(job, "cannot stream the job: %s", uv_strerror(rc));
    job->streaming = 1;
    cairn_log(&d->log, CAIRN_LOG_INFO, "job %s claimed", job->base);
    return 0;
}

void cairn_job_abandon(struct cairn_job *job)
{
    /* By name only: a worker may still be writing through the descriptor,
     * and the process exit closes it. */
    if (job->res_tmp.fd >= 0)
        unlinkat(job->res_tmp.dir_fd, job->res_tmp.name, 0);
    cairn_attempts_forget(job->d->spool.active_fd, job->name); /* a shutdown is not a crash */
    cairn_log(&job->d->log, CAIRN_LOG_WARNING,
              "job %s not finished within shutdown_timeout_s: left in .cairn/active/ for the "
              "next start",
              job->base);
}
