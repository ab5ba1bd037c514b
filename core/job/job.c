/*
 * job.c - one job's life on the loop: its start and end queued on the
 * pool (job_files.c does their file work), its stream through the engine,
 * its outcome reported (see job.h for the order and the threads).
 */
#include "job.h"

#include "job_state.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "attempts.h"
#include "finisher.h"
#include "layout.h"
#include "summary.h"
#include "tmpfile.h"

/* The job's blocking file work goes to a pool thread, counted while it
 * is in flight (inflight.h).  uv_queue_work fails only for a NULL work
 * callback, and nothing cancels a job's work, so after's status is 0. */
static void queue_files(struct cairn_job *job, uv_work_cb work, uv_after_work_cb after)
{
    job->work.data = job;
    cairn_inflight_enter(job->env.file_work);
    (void)uv_queue_work(job->env.loop, &job->work, work, after);
}

static void job_free(struct cairn_job *job)
{
    cairn_tmpfile_discard(&job->res_tmp);
    cairn_outdir_release(job->out);
    if (job->in_fd >= 0)
        close(job->in_fd); /* releases the lock */
    cairn_plugin_set_unref(job->plugins);
    cairn_stream_free(&job->stream);
    cairn_filesink_free(&job->results);
    cairn_readahead_free(job->first);
    cairn_buf_free(&job->here_out);
    cairn_tally_free(&job->here_tally);
    cairn_buf_free(&job->summary);
    cairn_buf_free(&job->reason);
    free(job->default_variant);
    free(job->fail_reason);
    cairn_claim_free(&job->claim);
    free(job);
}

static void hand_back_work(uv_work_t *req)
{
    struct cairn_job *job = req->data;

    cairn_job_hand_back_files(job);
    cairn_inflight_leave(job->env.file_work);
}

static void report(struct cairn_job *job, enum cairn_job_outcome outcome);

static void after_hand_back(uv_work_t *req, int status)
{
    struct cairn_job *job = req->data;
    const char *step = job->finish_step, *why = uv_strerror(job->finish_rc);

    (void)status; /* 0: see queue_files */
    if (!job->claimed)
        cairn_log(job->env.log, CAIRN_LOG_ERROR,
                  "job %s: cannot %s: %s; left in the spool for another try", job->claim.base, step,
                  why);
    else if (job->back_rc == 0)
        cairn_log(job->env.log, CAIRN_LOG_ERROR,
                  "job %s: cannot %s: %s; handed back to the spool for another try as %s",
                  job->claim.base, step, why, job->claim.back_name);
    else
        cairn_log(job->env.log, CAIRN_LOG_ERROR,
                  "job %s: cannot %s: %s; left in " CAIRN_ACTIVE_PATH "/ for another try from "
                  "there (it cannot go back to the spool: %s)",
                  job->claim.base, step, why, uv_strerror(job->back_rc));
    if (job->back_rc == 0)
        job->back_as = job->claim.back_name;
    report(job, CAIRN_JOB_RETRY);
}

/* Every end goes through here, once: the outcome is sorted by the one
 * policy (outcome.h); a retry first hands the input back. */
static void end(struct cairn_job *job, enum cairn_job_outcome outcome)
{
    if (outcome == CAIRN_JOB_RETRY)
        queue_files(job, hand_back_work, after_hand_back);
    else
        report(job, outcome);
}

/* The outcome said in the log and reported; the job is gone after. */
static void report(struct cairn_job *job, enum cairn_job_outcome outcome)
{
    const struct cairn_tally *t = &job->stream.tally;
    int i;

    for (i = 0; i < CAIRN_SPOOL_N_STATE; i++)
        if (job->recreated & (1 << i))
            cairn_log(job->env.log, CAIRN_LOG_WARNING,
                      "job %s: " CAIRN_STATE_DIR "/%s was removed or moved away as it was "
                      "finishing: recreated",
                      job->claim.base, cairn_spool_state_folders[i]);

    switch (outcome) {
    case CAIRN_JOB_FAILED:
        cairn_log(job->env.log, CAIRN_LOG_ERROR,
                  "job %s failed: %s (moved to " CAIRN_FAILED_PATH "/)", job->claim.base,
                  job->fail_reason);
        break;
    case CAIRN_JOB_DONE:
        cairn_log(job->env.log, CAIRN_LOG_INFO,
                  "job %s finished: %llu records, %llu ok, %llu errors, %llu bytes in %.3f s",
                  job->claim.base, (unsigned long long)t->records, (unsigned long long)t->ok,
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

/* ---- the finish, many jobs' at once (finisher.h) ------------------------ */

static void published(struct cairn_finisher_link *item)
{
    struct cairn_job *job = cairn_job_of_finishing(item);

    /* Published by its start's thread (finish_here) before the loop saw
     * that start end: the end waits for after_start. */
    if (!job->start_seen) {
        job->told_early = 1;
        return;
    }
    end(job, cairn_job_outcome(job->finish_rc, job->fail_reason != NULL));
}

int cairn_job_finisher_init(struct cairn_finisher *f, uv_loop_t *loop,
                            struct cairn_inflight *file_work)
{
    return cairn_finisher_init(f, loop, file_work, cairn_job_finish_files_each, published);
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

/* What its summary says of the job, with its counts so far. */
static struct cairn_job_facts facts_of(const struct cairn_job *job, uint64_t bytes,
                                       const struct cairn_tally *tally, double wall_seconds)
{
    return (struct cairn_job_facts){ .name = job->claim.name,
                                     .base = job->claim.base,
                                     .out_base = job->claim.out_base,
                                     .reason = job->fail_reason,
                                     .submitted_as = job->claim.submitted_as,
                                     .input_inode = (uint64_t)job->ino,
                                     .started = job->started,
                                     .wall_seconds = wall_seconds,
                                     .bytes = bytes,
                                     .tally = tally,
                                     .reg = &job->plugins->reg,
                                     .pid = job->env.pid };
}

/* Renders the summary (and the reason) on the loop, then publishes on a
 * pool thread, with the jobs ending alongside (finisher.h). */
static void finish(struct cairn_job *job)
{
    struct cairn_job_facts facts;
    int rc = 0;

    job->wall_seconds = (double)(uv_hrtime() - job->t0_ns) / 1e9;
    facts = facts_of(job, job->stream.bytes, &job->stream.tally, job->wall_seconds);
    if (job->fail_reason != NULL)
        rc = cairn_reason_render(&facts, &job->reason);
    if (rc == 0)
        rc = cairn_summary_render(&facts, &job->summary);
    if (rc == 0)
        cairn_finisher_add(job->env.finisher, &job->finishing);
    else
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

    job->env.on_batch(job->env.data, &job->plugins->reg, &b->tally);
    /* A small last batch is written by the finish's work item. */
    if (cairn_stream_is_last(s, b))
        cairn_filesink_keep(&job->results, b);
    else
        cairn_filesink_write(&job->results, b);
}

/* Every record answered (or status, the negative errno that stopped
 * it): on to the finish, or to another try. */
static void answered(struct cairn_job *job, int status)
{
    if (job->results.error != 0) {
        end_early(job, "write results", job->results.error);
        return;
    }
    if (status == -ENOMEM) {
        end_early(job, "process the job (out of memory)", status);
        return;
    }
    /* An I/O error of the disk is not the job's: another try, later. */
    if (status != 0 && cairn_error_is_the_machines(status)) {
        end_early(job, "read the job file", status);
        return;
    }
    if (status != 0)
        job->fail_reason = cairn_asprintf("read error: %s", uv_strerror(status));
    /* Records the machine, not their input, could not answer (memory ran
     * out): run the whole job again later rather than publish those
     * internal errors as its answers. */
    if (status == 0 && job->stream.tally.out_of_memory > 0) {
        end_early(job, "answer every record (memory ran out for some)", -ENOMEM);
        return;
    }
    finish(job);
}

/* Its stream is over (or never began): another job may stream. */
static void stream_over(struct cairn_job *job)
{
    if (job->streaming) {
        job->streaming = 0;
        cairn_gate_leave(job->env.streams);
    }
}

static void sink_end(struct cairn_stream *s, int status)
{
    struct cairn_job *job = s->sink.data;

    cairn_fd_source_close(&job->src);
    stream_over(job);
    answered(job, status);
}

/* Loop thread: the counts a stream of one batch would have left, for a
 * job its start answered (solve_here), bytes long. */
static void count_solved_here(struct cairn_job *job, size_t bytes)
{
    job->stream.bytes = bytes;
    job->stream.tally = job->here_tally;
    job->here_tally = (struct cairn_tally){ 0 };
    job->env.on_batch(job->env.data, &job->plugins->reg, &job->stream.tally);
}

/* Its results, kept as a stream's small last batch is, for the finish to
 * write. */
static void keep_solved_here(struct cairn_job *job)
{
    cairn_filesink_init(&job->results, job->env.loop, job->res_tmp.fd);
    cairn_filesink_keep_all(&job->results, &job->here_out);
}

/* Its record answered by the start (solve_here): the same counts and
 * results a stream of one batch would have left, its last batch kept. */
static void end_solved_here(struct cairn_job *job)
{
    const char *data;
    size_t len = 0;

    (void)cairn_readahead_whole(job->first, &data, &len);
    count_solved_here(job, len);
    keep_solved_here(job);
    answered(job, job->solved_here < 0 ? job->solved_here : 0);
}

static void start_streaming(struct cairn_job *job)
{
    int rc;

    job->stream.pool = job->env.pool;
    job->stream.ctx = &job->ctx;
    job->stream.sink = (struct cairn_sink){ .write = sink_write, .end = sink_end, .data = job };
    cairn_filesink_init(&job->results, job->env.loop, job->res_tmp.fd);
    rc = cairn_fd_source_init(&job->src, job->env.loop, job->in_fd,
                              CAIRN_SOURCE_POOL | CAIRN_SOURCE_REGULAR, &job->stream.source);
    if (rc == 0 && job->first != NULL) {
        cairn_fd_source_adopt(&job->src, job->first);
        job->first = NULL;
    }
    if (rc == 0)
        rc = cairn_stream_start(&job->stream);
    if (rc != 0)
        stream_over(job);
    if (rc == -ENOMEM)
        end_early(job, "start streaming", rc);
    else if (rc != 0)
        fail_job(job, "cannot stream the job: %s", uv_strerror(rc));
}

static void go_stream(struct cairn_gate_link *l)
{
    struct cairn_job *job = cairn_job_of_gated(l);

    job->streaming = 1;
    start_streaming(job);
}

/* Streams now, or once the gate lets it (gate.h). */
static void stream_when_let(struct cairn_job *job)
{
    job->gated.go = go_stream;
    if (job->env.streams == NULL)
        start_streaming(job);
    else if (cairn_gate_enter(job->env.streams, &job->gated))
        go_stream(&job->gated);
}

/* ---- starting: claim, open, count, create, on a pool thread -------------- */

/* A job of one record, read whole by its start, is answered here and now
 * when a solving slot is free: the trip through the pool and back that
 * its one batch would take costs more than the record does (most spool
 * jobs).  After the start's count of file work (inflight.h): a plugin
 * call may never return. */
static void solve_here(struct cairn_job *job)
{
    const struct cairn_pool_user u = { .ctx = &job->ctx,
                                       .max_line_bytes = job->stream.max_line_bytes };
    const char *data;
    size_t len;

    if (job->start_rc != 0 || job->fail_reason != NULL || job->res_tmp.fd < 0 ||
        !cairn_readahead_whole(job->first, &data, &len) ||
        cairn_tally_init(&job->here_tally, job->plugins->reg.n_plugins) != 0)
        return;
    job->solved_here =
        cairn_pool_solve_here(job->env.pool, &u, data, len, &job->here_out, &job->here_tally);
    if (job->solved_here == 0)
        cairn_tally_free(&job->here_tally); /* it streams: its stream keeps its own */
}

/* A job alone (no other file work in flight) that its start answered
 * whole, with nothing the loop must settle first (no failure, no new
 * name, no quarantine, no record that memory failed), is published from
 * here: through the loop it waited for two thread wake-ups between its
 * answer and its publishing.  In a burst the loop's path stays: start
 * threads that turned the finisher made more context switches and fewer
 * jobs a second (bench/run --baseline).  The loop learns of it at
 * after_start (finished_here). */
static void finish_here(struct cairn_job *job)
{
    struct cairn_job_facts facts;
    const char *data;
    size_t len;

    if (job->solved_here != 1 || job->fail_reason != NULL || job->claim.claimed_as != NULL ||
        job->attempts >= job->max_attempts || job->here_tally.out_of_memory > 0 ||
        !cairn_readahead_whole(job->first, &data, &len))
        return;
    /* Refused too once an abort has begun: the loop never sees it again. */
    if (!cairn_inflight_try_enter_alone(job->env.file_work))
        return;
    job->here_bytes = len;
    job->here_wall = (double)(uv_hrtime() - job->t0_ns) / 1e9;
    facts = facts_of(job, len, &job->here_tally, job->here_wall);
    /* Out of memory: the loop's finish renders it again, or says so. */
    if (cairn_summary_render(&facts, &job->summary) == 0) {
        keep_solved_here(job);
        job->finishing_here = 1;
        cairn_finisher_add_here(job->env.finisher, &job->finishing);
    }
    cairn_inflight_leave(job->env.file_work);
}

static void start_work(uv_work_t *req)
{
    struct cairn_job *job = req->data;

    cairn_job_start_files(job);
    cairn_inflight_leave(job->env.file_work);
    solve_here(job);
    finish_here(job);
}

/* The loop's half of finish_here: the counts a stream would have left,
 * and the end, if the finisher told it already. */
static void finished_here(struct cairn_job *job)
{
    count_solved_here(job, job->here_bytes);
    job->wall_seconds = job->here_wall;
    if (job->told_early)
        end(job, cairn_job_outcome(job->finish_rc, 0));
}

static void after_start(uv_work_t *req, int status)
{
    struct cairn_job *job = req->data;
    int rc = job->start_rc, unnamed = 0;

    (void)status; /* 0: see queue_files */
    job->start_seen = 1;
    if (job->solved_here != 0)
        cairn_pool_solved_here(job->env.pool); /* batches that waited meanwhile */

    /* The claim gave the job a name of its own: from here on it is that
     * job, its outputs and done/ copy named after it. */
    if (cairn_claim_adopt(&job->claim, job->env.spool, &job->in_fd, job->env.log) != 0) {
        unnamed = 1;
        rc = -ENOMEM;
    }

    /* Ours unless the claim itself failed, or another daemon holds it:
     * taken by this start's rename, or recovered from active/, even when
     * it could not be opened after. */
    job->claimed = !unnamed && (rc == 0 || ((job->took || job->recovered || job->in_fd >= 0) &&
                                            rc != -EAGAIN && rc != -ENOENT));
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
    cairn_log(job->env.log, CAIRN_LOG_INFO, "job %s claimed", job->claim.base);
    if (job->claim.replaces)
        cairn_log(job->env.log, CAIRN_LOG_WARNING,
                  "job %s: handed back after its summary was published; this re-run replaces "
                  "its own outputs",
                  job->claim.base);
    if (job->fail_reason != NULL) {
        finish(job);
    } else if (job->attempts >= job->max_attempts) {
        job->fail_reason = cairn_asprintf(
            "%u earlier run(s) never finished: the job crashed, hung (solve_timeout_s) or "
            "killed the daemon (max_attempts %llu)%s%s",
            job->attempts, (unsigned long long)job->max_attempts,
            job->last_run[0] != '\0' ? "; one of them: " : "", job->last_run);
        if (job->fail_reason == NULL)
            end_early(job, "describe the quarantine", -ENOMEM);
        else
            finish(job);
    } else if (job->finishing_here) {
        finished_here(job);
    } else if (job->solved_here != 0) {
        end_solved_here(job);
    } else {
        stream_when_let(job);
    }
}

int cairn_job_start(const struct cairn_job_env *env, const char *name, int recovered,
                    struct cairn_job **job_out)
{
    struct cairn_job *job = calloc(1, sizeof(*job));

    if (job == NULL)
        return -ENOMEM;
    job->env = *env;
    job->recovered = recovered;
    job->in_fd = job->res_tmp.fd = -1;
    job->plugins = cairn_plugin_set_ref(env->plugins);
    job->keep_inputs = env->cfg->keep_inputs;
    job->max_attempts = env->cfg->max_attempts;
    job->stream.max_line_bytes = env->cfg->max_line_bytes;
    if (env->cfg->default_variant != NULL)
        job->default_variant = strdup(env->cfg->default_variant);
    /* A job keeps the settings it began with, whatever a reload brings. */
    job->ctx = (struct cairn_record_ctx){ .reg = &job->plugins->reg,
                                          .default_limits = env->cfg->limits,
                                          .default_variant = job->default_variant,
                                          .hang = env->hang };
    job->t0_ns = uv_hrtime();
    clock_gettime(CLOCK_REALTIME, &job->started);
    /* The output directory as it is now, where the job will finish. */
    job->out = cairn_spool_hold_output(env->spool);
    job->tmp_owner = cairn_outdir_owner(job->out);
    if (cairn_claim_init(&job->claim, name) != 0 ||
        (env->cfg->default_variant != NULL && job->default_variant == NULL)) {
        job_free(job);
        return -ENOMEM;
    }
    queue_files(job, start_work, after_start);
    *job_out = job;
    return 0;
}

void cairn_job_info(const struct cairn_job *job, struct cairn_job_info *info)
{
    *info = (struct cairn_job_info){ .name = job->claim.name,
                                     .size = job->size,
                                     .bytes_read = job->stream.bytes,
                                     .records = job->stream.tally.records,
                                     .wall_seconds = job->wall_seconds,
                                     .reason = job->fail_reason,
                                     .back_as = job->back_as,
                                     .in_active = job->claimed && job->back_rc != 0,
                                     .started = job->started };
}

void cairn_job_abandon(struct cairn_job *job, const char *why)
{
    /* By name only: a worker may still be writing through the descriptor,
     * and the process exit closes it. */
    if (job->res_tmp.fd >= 0)
        unlinkat(job->res_tmp.dir_fd, job->res_tmp.name, 0);
    if (why != NULL) {
        /* Its count keeps this run; the note says what happened in it. */
        if (job->in_fd >= 0)
            cairn_attempts_note(job->in_fd, why);
        return;
    }
    cairn_attempts_forget(job->env.spool->active_fd, job->claim.name,
                          job->in_fd); /* not the job's fault */
    cairn_log(job->env.log, CAIRN_LOG_WARNING,
              "job %s not finished: left in " CAIRN_ACTIVE_PATH "/ for the next start (this "
              "run is not counted against it)",
              job->claim.base);
}

int cairn_job_owns(const struct cairn_job *job, const void *owner)
{
    return owner == (const void *)&job->ctx;
}
