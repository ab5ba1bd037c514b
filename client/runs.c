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

#include "marks.h"
#include "layout.h"

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

/* A time no later than the run of the file at dir/name began: its birth
 * where the file system keeps one, else its last write (a job runs once
 * its file is whole). */
static int born(int dir, const char *name, struct timespec *t)
{
    struct statx sx;

    if (statx(dir, name, AT_SYMLINK_NOFOLLOW, STATX_BTIME | STATX_MTIME, &sx) != 0)
        return -errno;
    if (sx.stx_mask & STATX_BTIME)
        *t = (struct timespec){ sx.stx_btime.tv_sec, sx.stx_btime.tv_nsec };
    else
        *t = (struct timespec){ sx.stx_mtime.tv_sec, sx.stx_mtime.tv_nsec };
    return 0;
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
    if (born(a->dir, name, &a->job->since) != 0)
        return 0;
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

int cairn_client_started(json_t *s, struct timespec *t)
{
    const char *v = json_string_value(json_object_get(s, "started"));
    struct tm tm = { 0 };
    int ms;

    if (v == NULL || sscanf(v, "%d-%d-%dT%d:%d:%d.%3dZ", &tm.tm_year, &tm.tm_mon, &tm.tm_mday,
                            &tm.tm_hour, &tm.tm_min, &tm.tm_sec, &ms) != 7)
        return -1;
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    *t = (struct timespec){ timegm(&tm), (long)ms * 1000000 };
    return 0;
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
    struct timespec t;
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
        strcmp(finished, d->best_finished) > 0 && cairn_client_started(s, &t) == 0) {
        snprintf(d->best_finished, sizeof(d->best_finished), "%s", finished);
        d->job->ino = (ino_t)json_integer_value(ino);
        d->job->since = t;
    }
    json_decref(s);
    return 0;
}

int cairn_client_find_run(struct cairn_client *cl, struct cairn_submitted *job)
{
    struct stat st;
    int dir;

    job->ino = 0;
    if (fstatat(cl->in_fd, job->file, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        /* Waiting: that file's run, whatever name it will run as. */
        job->ino = st.st_ino;
        job->since = st.st_ctim;
        return 1;
    }
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
        if (job->ino != 0)
            return 1;
    }
    return 0;
}
