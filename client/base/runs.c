/*
 * runs.c - the run of a name a command means: the file it saw, by inode.
 * Why and in what order: see runs.h.
 */
#include "runs.h"

#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "layout.h"
#include "marks.h"
#include "names.h"

int cairn_client_is_run(const char *base, const char *name, const char *suffix)
{
    size_t n = strlen(name), keep = strlen(base), sl = strlen(suffix);

    if (n == keep + sl && strncmp(name, base, keep) == 0 && strcmp(name + keep, suffix) == 0)
        return 1;
    if (keep > CAIRN_RUN_PREFIX)
        keep = CAIRN_RUN_PREFIX;
    return n > keep + sl && strncmp(name, base, keep) == 0 && strcmp(name + n - sl, suffix) == 0 &&
           memchr(name + keep, '~', n - sl - keep) != NULL;
}

static int later(const struct timespec *a, const struct timespec *b)
{
    return a->tv_sec > b->tv_sec || (a->tv_sec == b->tv_sec && a->tv_nsec > b->tv_nsec);
}

struct active_scan {
    struct cairn_submitted *job;
    int dir;
    int best; /* 0 none, 1 a NAME~N not yet confirmed, 2 confirmed */
    struct timespec best_ctime;
    int rc;
};

/* One entry of active/: a run of the name, confirmed (NAME.jsonl itself,
 * or NAME~N whose submitted record names the file) or not yet (NAME~N
 * without a record: the daemon writes it just after the claim).  The
 * newest claim of the best kind wins. */
static int active_one(void *data, const char *name)
{
    struct active_scan *a = data;
    struct stat st;
    char *as = NULL;
    int kind, r;

    if (name[0] == '.' || !cairn_client_is_run(a->job->base, name, CAIRN_JOB_SUFFIX))
        return 0;
    if (fstatat(a->dir, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode))
        return 0;
    if (strcmp(name, a->job->file) == 0) {
        kind = 2;
    } else {
        r = cairn_marks_submitted(a->dir, name, st.st_ino, &as);
        if (r < 0) {
            a->rc = r;
            return 1;
        }
        kind = r == 0 ? 1 : strcmp(as, a->job->file) == 0 ? 2 : 0;
        free(as);
    }
    if (kind == 0 || kind < a->best || (kind == a->best && !later(&st.st_ctim, &a->best_ctime)))
        return 0;
    /* Its summary will have the name it runs as (names.h). */
    {
        char *ob = cairn_output_base(name), *ran_as;

        ran_as = ob != NULL ? cairn_output_name(ob, CAIRN_SUMMARY_SUFFIX) : NULL;
        free(ob);
        if (ran_as == NULL) {
            a->rc = -ENOMEM;
            return 1;
        }
        free(a->job->ran_as);
        a->job->ran_as = ran_as;
    }
    a->best = kind;
    a->best_ctime = st.st_ctim;
    a->job->ino = st.st_ino;
    return 0;
}

struct done_scan {
    struct cairn_client *cl;
    struct cairn_submitted *job;
    char *as; /* job->file as a summary writes it (escaped) */
    char best_finished[64];
    int rc;
};

struct before_scan {
    struct cairn_client *cl;
    struct cairn_submitted *job;
    size_t cap;
    int rc;
};

static int before_one(void *data, const char *name)
{
    struct before_scan *b = data;
    struct cairn_submitted *job = b->job;
    struct stat st;

    if (name[0] == '.' || !cairn_client_is_run(job->base, name, CAIRN_SUMMARY_SUFFIX) ||
        fstatat(b->cl->out_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0;
    if (job->n_before == b->cap) {
        size_t cap = b->cap ? 2 * b->cap : 4;
        struct cairn_known_summary *grown = realloc(job->before, cap * sizeof(*grown));

        if (grown == NULL) {
            b->rc = -ENOMEM;
            return 1;
        }
        job->before = grown;
        b->cap = cap;
    }
    job->before[job->n_before++] = (struct cairn_known_summary){ st.st_dev, st.st_ino };
    return 0;
}

int cairn_client_runs_before(struct cairn_client *cl, struct cairn_submitted *job)
{
    struct before_scan b = { .cl = cl, .job = job };

    free(job->before);
    job->before = NULL;
    job->n_before = 0;
    /* No output directory yet: no summary yet.  The scan is best effort,
     * like a look. */
    if (cl->out_fd >= 0)
        (void)cairn_dir_each(cl->out_fd, before_one, &b);
    return b.rc;
}

/* One summary in the output directory: a finished run of the name (its
 * own NAME.summary.json, or a NAME~N whose submitted_as is the file); the
 * one that finished last wins.  RFC 3339 UTC times of one format compare
 * as strings. */
static int done_one(void *data, const char *name)
{
    struct done_scan *d = data;
    const char *finished, *as;
    json_t *ino, *s;
    json_error_t e;
    char *ran_as;
    int fd;

    if (name[0] == '.' || !cairn_client_is_run(d->job->base, name, CAIRN_SUMMARY_SUFFIX))
        return 0;
    fd = openat(d->cl->out_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return 0;
    s = json_loadfd(fd, 0, &e);
    close(fd);
    finished = json_string_value(json_object_get(s, "finished"));
    as = json_string_value(json_object_get(s, "submitted_as"));
    ino = json_object_get(s, "input_inode");
    if (finished != NULL && json_is_integer(ino) && strlen(finished) < sizeof(d->best_finished) &&
        (as != NULL ? strcmp(as, d->as) == 0
                    : strncmp(name, d->job->base, strlen(d->job->base)) == 0 &&
                          strcmp(name + strlen(d->job->base), CAIRN_SUMMARY_SUFFIX) == 0) &&
        strcmp(finished, d->best_finished) > 0) {
        if ((ran_as = strdup(name)) == NULL) {
            d->rc = -ENOMEM;
            json_decref(s);
            return 1;
        }
        snprintf(d->best_finished, sizeof(d->best_finished), "%s", finished);
        d->job->ino = (ino_t)json_integer_value(ino);
        free(d->job->ran_as);
        d->job->ran_as = ran_as;
    }
    json_decref(s);
    return 0;
}

int cairn_client_find_run(struct cairn_client *cl, struct cairn_submitted *job)
{
    struct stat st;
    int dir, rc;

    job->ino = 0;
    /* What is there before the look in the spool cannot be the run of a
     * file found waiting there. */
    if ((rc = cairn_client_runs_before(cl, job)) != 0)
        return rc;
    if (fstatat(cl->in_fd, job->file, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        /* Waiting: that file's run, whatever name it will run as. */
        job->ino = st.st_ino;
        return 1;
    }
    free(job->before);
    job->before = NULL;
    job->n_before = 0;
    if ((dir = cairn_client_state_dir(cl, CAIRN_ACTIVE_DIR)) >= 0) {
        struct active_scan a = { .job = job, .dir = dir };

        (void)cairn_dir_each(dir, active_one, &a); /* best effort, like a look */
        close(dir);
        if (a.rc < 0)
            return a.rc;
        if (a.best > 0)
            return 1;
    }
    if (cl->out_fd >= 0) {
        struct done_scan d = { .cl = cl, .job = job, .as = cairn_name_escape(job->file) };

        if (d.as == NULL)
            return -ENOMEM;
        (void)cairn_dir_each(cl->out_fd, done_one, &d);
        free(d.as);
        if (d.rc < 0)
            return d.rc;
        if (job->ino != 0)
            return 1;
    }
    return 0;
}
