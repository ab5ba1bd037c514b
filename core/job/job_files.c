/*
 * job_files.c - a job's blocking file work, run on pool threads: the claim
 * and open at its start, the publishing at its end, or its hand-back.
 * job.c runs the rest on the loop and queues these.
 */
#include "job_state.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "attempts.h"
#include "claim.h"
#include "commit.h"
#include "layout.h"
#include "publish.h"

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

#define STEP(what, expr)           \
    do {                           \
        job->finish_step = (what); \
        if ((rc = (expr)) != 0)    \
            goto fail;             \
    } while (0)

/* The input leaves active/ under its claimed name (claim.h). */
static int move_input(struct cairn_job *job, int dir_fd)
{
    return cairn_claim_move_input(&job->claim, job->env.spool, dir_fd, &job->recreated);
}

/* The job's temporary number i (0 results, 1 summary) in its output
 * directory: its owner's next when it has one (tmpfile.h), else named by
 * the bytes its start drew.  0 or -errno. */
static int open_temporary(struct cairn_job *job, struct cairn_tmpfile *t, int i, char kind)
{
    const unsigned char *r =
        job->tmp_names_drawn ? job->tmp_names + (size_t)i * CAIRN_TMPFILE_RANDOM : NULL;

    if (job->tmp_owner != NULL)
        return cairn_tmpfile_open_owned(t, job->out->fd, job->tmp_owner, kind, 0644);
    return cairn_tmpfile_open_as(t, job->out->fd, r, kind, 0644);
}

/* A temporary's key for the group commit: an owner's was never looked
 * up, so it is a fresh file on the output directory's device; another
 * was, at its creation. */
static struct cairn_commit_key temporary_key(const struct cairn_job *job,
                                             const struct cairn_tmpfile *t)
{
    if (job->tmp_owner != NULL)
        return (struct cairn_commit_key){ .dev = job->out->dev, .regular = 1, .fresh = 1 };
    return (struct cairn_commit_key){ .dev = t->dev, .ino = t->ino, .regular = 1 };
}

/* Opens and locks active/NAME.  0 when this daemon now owns it; 1 when the
 * job is bad and fail_reason is set; negative errno otherwise (-ENOENT:
 * gone, -EAGAIN: another daemon holds it). */
static int open_input(struct cairn_job *job, const char *file)
{
    const struct cairn_spool *sp = job->env.spool;
    struct stat st, now;

    /* A fresh claim looked at the file just before its rename: that look
     * decides, a system call a job less.  Should a producer swap the name
     * for another kind of file in between, O_NOFOLLOW and O_NONBLOCK keep
     * a link from being followed and a FIFO from hanging, and the fstat
     * after the open still refuses all but a regular file. */
    if (job->took && job->claim.mode != 0)
        st.st_mode = job->claim.mode;
    else if (fstatat(sp->active_fd, file, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    if (!S_ISREG(st.st_mode)) {
        job->fail_reason = cairn_asprintf("%s is %s; job files must be regular files "
                                          "(it was not opened or followed)",
                                          job->claim.label, file_kind(st.st_mode));
        return job->fail_reason ? 1 : -ENOMEM;
    }
    /* O_NOFOLLOW and O_NONBLOCK: if it was swapped for a link or a FIFO
     * since the lstat, we neither follow nor hang. */
    job->in_fd =
        openat(sp->active_fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (job->in_fd < 0) {
        int err = errno;
        /* Gone, or the machine's trouble (handed back for another try):
         * only what the file is fails the job. */
        if (err == ENOENT || cairn_error_is_the_machines(-err))
            return -err;
        job->fail_reason = cairn_asprintf("cannot open %s: %s", job->claim.label, strerror(err));
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
        job->fail_reason = cairn_asprintf("%s is %s; job files must be regular files",
                                          job->claim.label, file_kind(st.st_mode));
        return job->fail_reason ? 1 : -ENOMEM;
    }
    job->size = (uint64_t)st.st_size;
    job->ino = st.st_ino;
    return 0;
}

/* The blocking half of a start.  start_rc: 0 (ready to stream, or
 * fail_reason set), -ENOENT/-EAGAIN (not ours), -EEXIST (a job of that
 * name is active), or another error (hand it back). */
void cairn_job_start_files(struct cairn_job *job)
{
    const struct cairn_spool *sp = job->env.spool;
    const char *file;
    int rc = 0;

    /* One renameat2(RENAME_NOREPLACE): atomic, and never over a job in
     * progress; under a name of its own when the name was used before,
     * so no earlier output is overwritten (claim.h). */
    job->finish_step = "claim the job";
    if (!job->recovered && (rc = cairn_claim_take(&job->claim, sp, job->out->fd)) != 0) {
        job->start_rc = rc;
        return;
    }
    /* From here the file is in active/ by our doing: whatever stops the
     * start (descriptors used up, EMFILE, before it is even opened) hands
     * it back, never leaves it there unlocked while the log says it
     * stayed in the spool. */
    job->took = !job->recovered;
    /* A crash re-run may carry its earlier run's mark, even when it
     * fails before recall reads it. */
    job->claim.marked = job->recovered;
    file = cairn_claim_file(&job->claim);
    job->finish_step = "open the job file";
    rc = open_input(job, file);
    if (rc < 0) {
        job->start_rc = rc;
        return;
    }
    if (rc == 1)
        return; /* bad: fail_reason says why */
    /* What it was dropped as, where a re-run from active/ finds it. */
    if ((rc = cairn_claim_recall(&job->claim, sp, job->ino, job->recovered)) != 0) {
        job->start_rc = rc;
        return;
    }
    job->attempts =
        cairn_attempts_count_noted(sp->active_fd, file, job->in_fd, job->ino, job->recovered,
                                   job->last_run, sizeof(job->last_run));
    if (job->attempts >= job->max_attempts)
        return; /* quarantined on the loop, where the reason is worded */
    job->finish_step = "create the results file";
    job->tmp_names_drawn =
        job->tmp_owner == NULL && cairn_tmpfile_random(job->tmp_names, sizeof(job->tmp_names)) == 0;
    job->start_rc = open_temporary(job, &job->res_tmp, 0, 'r');
    /* Here, on this thread already, rather than one hop later. */
    if (job->start_rc == 0)
        (void)cairn_readahead_first(&job->first, job->in_fd, job->size);
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
/* How long a publish waits for the output directory's lock: a cairnd
 * holds it for the renames of one finisher work item (at most
 * CAIRN_FINISH_BATCH pairs, milliseconds), so a lock held longer is
 * something else's. */
#define OUTPUT_LOCK_WAIT_MS 1000

/* The output directory's lock, taken without ever blocking on it: anyone
 * who can open the directory can flock(2) it, and a blocking wait would
 * let them hold every job's publish, and with it a shutdown, for as long
 * as they like.  Tries for OUTPUT_LOCK_WAIT_MS, then goes on without it,
 * naming the holder.  1 when locked, 0 when not (said in the log). */
static int lock_output(struct cairn_job *job)
{
    long waited = 0, step = 1, pid = 0;
    struct timespec ts;

    for (;;) {
        if (flock(job->out->fd, LOCK_EX | LOCK_NB) == 0)
            return 1;
        if (errno == EINTR)
            continue;
        if (errno != EWOULDBLOCK) {
            cairn_log(job->env.log, CAIRN_LOG_WARNING,
                      "job %s: cannot lock the output directory to publish: %s; publishing "
                      "unlocked (a daemon sharing it could put its pair beside this one's)",
                      job->claim.base, strerror(errno));
            return 0;
        }
        if (waited >= OUTPUT_LOCK_WAIT_MS)
            break;
        /* 1, 2, 4 ... 64, then 100 ms: a cairnd's publish is over in the
         * first few. */
        ts = (struct timespec){ 0, step * 1000000L };
        while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
            ;
        waited += step;
        step = step * 2 > 100 ? 100 : step * 2;
    }
    (void)cairn_flock_holder(job->out->fd, &pid);
    if (pid > 0)
        cairn_log(job->env.log, CAIRN_LOG_WARNING,
                  "job %s: the output directory has been locked (flock) by process %ld for over "
                  "%d ms, longer than a cairnd publish takes; publishing without the lock (a "
                  "daemon sharing the directory could put its pair beside this one's)",
                  job->claim.base, pid, OUTPUT_LOCK_WAIT_MS);
    else
        cairn_log(job->env.log, CAIRN_LOG_WARNING,
                  "job %s: the output directory has been locked (flock) by another process, "
                  "not listed in /proc/locks, for over %d ms, longer than a cairnd publish "
                  "takes; publishing without the lock (a daemon sharing the directory could "
                  "put its pair beside this one's)",
                  job->claim.base, OUTPUT_LOCK_WAIT_MS);
    return 0;
}

/* One job's publish between the steps it shares with the others of its
 * work item. */
struct finishing {
    struct cairn_job *job;
    char *res, *sum; /* its outputs' names */
    struct cairn_tmpfile sum_tmp;
    int fds[2];                      /* results and summary temporaries */
    struct cairn_commit_key keys[2]; /* theirs, known since their creation */
    struct cairn_commit_key out_key; /* the output directory's */
    int live;                        /* every step so far went well */
};

/* The step named in finish_step failed with rc: the job ends there, its
 * temporaries removed. */
static void drop(struct finishing *f, int rc)
{
    f->live = 0;
    f->job->finish_rc = rc;
    cairn_tmpfile_discard(&f->sum_tmp);
    cairn_tmpfile_discard(&f->job->res_tmp);
}

/* Everything that needs disk space is written before anything becomes
 * visible, so a full disk leaves nothing behind. */
static void stage(struct finishing *f)
{
    struct cairn_job *job = f->job;
    int rc = -ENOMEM;

    f->sum_tmp.fd = -1;
    job->finish_step = "name outputs";
    f->res = cairn_claim_output(&job->claim, CAIRN_RESULTS_SUFFIX);
    f->sum = cairn_claim_output(&job->claim, CAIRN_SUMMARY_SUFFIX);
    if (f->res == NULL || f->sum == NULL)
        goto fail;
    STEP("write results", cairn_filesink_write_kept(&job->results));
    STEP("write summary", open_temporary(job, &f->sum_tmp, 1, 's'));
    STEP("write summary", cairn_write_all(f->sum_tmp.fd, job->summary.data, job->summary.len));
    f->fds[0] = job->res_tmp.fd;
    f->fds[1] = f->sum_tmp.fd;
    f->keys[0] = temporary_key(job, &job->res_tmp);
    f->keys[1] = temporary_key(job, &f->sum_tmp);
    f->out_key = (struct cairn_commit_key){ .dev = job->out->dev, .ino = job->out->ino };
    f->live = 1;
    return;
fail:
    drop(f, rc);
}

/* Each live job's sync of fds (n of them), all in one group-commit
 * round; a job whose sync failed is dropped, named by step. */
static void sync_all(struct finishing *f, size_t n, struct cairn_commit_set *sets, int dir,
                     const char *step)
{
    size_t i;

    for (i = 0; i < n; i++) {
        sets[i] = (struct cairn_commit_set){ .n = 0 };
        if (!f[i].live)
            continue;
        if (dir)
            sets[i] = (struct cairn_commit_set){ .fds = &f[i].job->out->fd,
                                                 .n = 1,
                                                 .keys = &f[i].out_key };
        else
            sets[i] = (struct cairn_commit_set){ .fds = f[i].fds, .n = 2, .keys = f[i].keys };
    }
    cairn_commit_sync_each(f[0].job->env.spool->commit, sets, n);
    for (i = 0; i < n; i++)
        if (f[i].live && sets[i].rc != 0) {
            f[i].job->finish_step = step;
            drop(&f[i], sets[i].rc);
        }
}

/* The output directory a run of renames holds locked (lock_output). */
struct held_lock {
    struct cairn_job *by;           /* whose descriptor took it, or NULL */
    const struct cairn_outdir *dir; /* lock_output ran for it; NULL: not yet */
};

static void release(struct held_lock *h)
{
    if (h->by != NULL && flock(h->by->out->fd, LOCK_UN) != 0)
        cairn_log(h->by->env.log, CAIRN_LOG_WARNING,
                  "job %s: cannot unlock the output directory: %s (other daemons publish once "
                  "this job ends)",
                  h->by->claim.base, strerror(errno));
    *h = (struct held_lock){ 0 };
}

/* Daemons sharing an output directory publish one pair at a time, so two
 * runs' pairs never interleave: the lock is taken once for the jobs of
 * one directory in a row, and asked for again (a second's wait at most,
 * lock_output) only when a job publishes elsewhere, its output directory
 * followed to a new one.  (Two handles on one directory, the path moved
 * away and back, are two open file descriptions whose locks conflict:
 * one is let go before the other is taken.) */
static void lock_for(struct held_lock *h, struct finishing *f)
{
    struct cairn_job *job = f->job;

    if (h->dir == job->out)
        return;
    release(h);
    h->by = lock_output(job) ? job : NULL;
    h->dir = job->out;
}

/* Two renames, the summary last: its presence means the job is finished.
 * (Should the summary's rename fail after the results', the new results
 * sit beside the earlier summary until the retry: see hand_back.) */
static void rename_pair(struct finishing *f)
{
    struct cairn_job *job = f->job;
    int rc;

    job->finish_step = "publish results";
    rc = cairn_tmpfile_commit(&job->res_tmp, f->res);
    if (rc == 0) {
        job->finish_step = "publish summary";
        rc = cairn_tmpfile_commit(&f->sum_tmp, f->sum);
    }
    if (rc != 0)
        drop(f, rc);
}

static void move_out(struct finishing *f)
{
    struct cairn_job *job = f->job;
    const struct cairn_spool *sp = job->env.spool;
    int rc;

    /* Before the input leaves active/: a new job of the same name may be
     * claimed the moment it does, and its count must not be ours. */
    cairn_attempts_forget(sp->active_fd, job->claim.name, job->in_fd);
    if (job->keep_inputs)
        STEP("move input to done", move_input(job, sp->done_fd));
    else
        STEP("delete input", move_input(job, -1));
    job->finish_rc = 0;
    return;
fail:
    drop(f, rc);
}

/* The jobs of f[0..n) published together, each step for all of them
 * before the next (see the crash consistency note above: every job's
 * steps keep their order, and each waits for its own sync). */
static void finish_ok(struct finishing *f, size_t n, struct cairn_commit_set *sets)
{
    struct held_lock held = { 0 };
    size_t i;

    for (i = 0; i < n; i++)
        stage(&f[i]);
    sync_all(f, n, sets, 0, "fsync results and summary");
    /* Another turn's renames may run on another thread (finisher.h): the
     * lock is the process's, one open file description, so they take
     * their turns here too. */
    cairn_finisher_one_at_a_time(f[0].job->env.finisher);
    for (i = 0; i < n; i++)
        if (f[i].live) {
            lock_for(&held, &f[i]);
            rename_pair(&f[i]);
        }
    release(&held);
    cairn_finisher_one_at_a_time_end(f[0].job->env.finisher);
    sync_all(f, n, sets, 1, "fsync output directory");
    for (i = 0; i < n; i++)
        if (f[i].live)
            move_out(&f[i]);
    for (i = 0; i < n; i++) {
        free(f[i].res);
        free(f[i].sum);
    }
}

static void finish_failed(struct cairn_job *job)
{
    const struct cairn_spool *sp = job->env.spool;
    char *reason = cairn_claim_output(&job->claim, CAIRN_REASON_SUFFIX);
    char *sum = cairn_claim_output(&job->claim, CAIRN_SUMMARY_SUFFIX);
    int dirs[2] = { job->out->fd, sp->failed_fd };
    int rc = -ENOMEM;

    cairn_tmpfile_discard(&job->res_tmp);
    job->finish_step = "name outputs";
    if (reason == NULL || sum == NULL)
        goto fail;
    STEP("write reason", publish(sp->failed_fd, 'x', reason, &job->reason));
    STEP("publish summary", publish(job->out->fd, 's', sum, &job->summary));
    /* failed/ too: the reason is on disk before the input joins it. */
    STEP("fsync output directory", cairn_commit_sync(sp->commit, dirs, 2));
    cairn_attempts_forget(sp->active_fd, job->claim.name, job->in_fd);
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

void cairn_job_finish_files_each(struct cairn_finisher_link **items, size_t n)
{
    /* The finisher hands at most CAIRN_FINISH_BATCH jobs at once: their
     * state fits on the pool thread's stack.  More would go in turns. */
    struct finishing f[CAIRN_FINISH_BATCH];
    struct cairn_commit_set sets[CAIRN_FINISH_BATCH];
    size_t base, i, k;

    for (base = 0; base < n; base += CAIRN_FINISH_BATCH) {
        for (i = base, k = 0; i < n && i < base + CAIRN_FINISH_BATCH; i++) {
            struct cairn_job *job = cairn_job_of_finishing(items[i]);

            if (job->fail_reason != NULL)
                finish_failed(job);
            else
                f[k++] = (struct finishing){ .job = job };
        }
        if (k > 0)
            finish_ok(f, k, sets);
    }
}

/* Outputs could not be written: the job's temporaries are removed (if
 * the results were published but the summary failed, those results stay
 * beside the earlier run's summary until the retry replaces both), and
 * the input goes back to the spool to be tried again, under the name the
 * claim decides (claim.h), its crash count forgotten: this run ended.  On
 * a pool thread, like the finish it replaces: the loop logs it after. */
void cairn_job_hand_back_files(struct cairn_job *job)
{
    const struct cairn_spool *sp = job->env.spool;

    cairn_tmpfile_discard(&job->res_tmp);
    job->back_rc = -ENOENT;
    if (!job->claimed)
        return;
    cairn_attempts_forget(sp->active_fd, job->claim.name, job->in_fd);
    job->back_rc = cairn_claim_hand_back(&job->claim, sp, job->ino);
}
