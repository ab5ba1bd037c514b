/*
 * retry.c - `cairn retry NAME...|--failed`: a failed job's input goes back
 * to the spool, as if just submitted.
 *
 * Order matters, because the daemon may claim the job the instant it is
 * back:
 *   1. its crash count (the file's user.cairn.attempts attribute, or
 *      .cairn/active/.cairn-attempts.HASH where there are none) is
 *      removed, or a job quarantined for crashing would be quarantined
 *      again at once (the count is tied to the file's inode, which a
 *      rename keeps);
 *   2. its "failed" summary is set aside (renamed to a dot-name), or a
 *      `submit --wait`-style reader would take the old outcome for the new
 *      run's;
 *   3. one renameat2(RENAME_NOREPLACE) from .cairn/failed/ into INPUT: a
 *      job of that name submitted meanwhile is never overwritten.  A job
 *      that ran as NAME~N goes back as the name it was submitted as, when
 *      that is free, so its re-run's summary says submitted_as again.  If
 *      the rename is refused, the summary goes back where it was;
 *   4. the set-aside summary and the reason file are removed.
 *
 * Before any of that, every name is checked (check_all): a job that is not
 * failed, or whose name a job waiting in the spool holds, refuses the
 * whole command, and nothing changes.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "names.h"
#include "commands.h"
#include "layout.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

struct names {
    char **v;
    size_t n;
    size_t cap;
};

static int add_name(void *data, const char *name)
{
    struct names *l = data;

    if (cairn_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) != 0)
        return -ENOMEM;
    if ((l->v[l->n] = strdup(name)) == NULL)
        return -ENOMEM;
    l->n++;
    return 0;
}

/* A failed summary set aside while its job moves (requeue). */
struct aside {
    char name[48]; /* ".cairn-retry.<16 hex>.json", or "" when nothing was set aside */
};

/* Sets OUTPUT/<summary> aside if it says "failed".  Returns the name it
 * says the job was submitted as (a used name ran as NAME~N, claim.h),
 * malloc'd, or NULL.  A summary that cannot be read or is not "failed"
 * stays where it is. */
static char *set_failed_summary_aside(struct cairn_client *cl, const char *summary, struct aside *a)
{
    json_error_t e;
    json_t *s = NULL;
    const char *status, *as;
    char *submitted = NULL;
    int fd;

    a->name[0] = '\0';
    if (cl->out_fd < 0)
        return NULL;
    fd = openat(cl->out_fd, summary, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    s = json_loadfd(fd, 0, &e);
    close(fd);
    status = json_string_value(json_object_get(s, "status"));
    if (status != NULL && strcmp(status, "failed") == 0) {
        as = json_string_value(json_object_get(s, "submitted_as"));
        submitted = as != NULL ? cairn_client_unescape(as) : NULL;
        /* A dot-name: no reader takes it for a summary.  Named by a hash,
         * so any summary name fits. */
        snprintf(a->name, sizeof(a->name), ".cairn-retry.%016llx.json",
                 (unsigned long long)cairn_hash64(summary, strlen(summary)));
        if (renameat(cl->out_fd, summary, cl->out_fd, a->name) != 0)
            a->name[0] = '\0'; /* gone already: nothing to put back */
    }
    json_decref(s);
    return submitted;
}

/* The requeue was refused: the summary goes back, never over a newer one. */
static void put_summary_back(struct cairn_client *cl, const char *summary, const struct aside *a)
{
    if (a->name[0] != '\0' &&
        renameat2(cl->out_fd, a->name, cl->out_fd, summary, RENAME_NOREPLACE) != 0)
        fprintf(stderr, "cairn: warning: cannot put %s/%s back (it is %s now): %s\n",
                cl->cfg.output_dir, summary, a->name, strerror(errno));
}

/* A name the job may go back under: NAME.jsonl, no path, no dot-file. */
static int job_file_name(const char *name)
{
    size_t n = strlen(name);

    return n > 6 && name[0] != '.' && strchr(name, '/') == NULL &&
           strcmp(name + n - CAIRN_JOB_SUFFIX_LEN, CAIRN_JOB_SUFFIX) == 0;
}

/* The daemon forgets a count before it fails a job, but a count left by a
 * run killed on the way (or an older version) must not come back with it. */
static void forget_count(int failed_fd, const char *file)
{
    int fd = openat(failed_fd, file, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

    if (fd < 0)
        return; /* a link or gone: nothing of ours on it */
    (void)fremovexattr(fd, "user.cairn.attempts");
    close(fd);
}

static int requeue(struct cairn_client *cl, int failed_fd, int active_fd, const char *file,
                   const char *base)
{
    char *ob = cairn_output_base(file);
    char *summary = ob ? cairn_output_name(ob, CAIRN_SUMMARY_SUFFIX) : NULL;
    char *reason = ob ? cairn_output_name(ob, CAIRN_REASON_SUFFIX) : NULL;
    char *attempts = cairn_attempts_file(file);
    char *submitted = NULL;
    struct aside aside = { .name = "" };
    const char *to;
    int rc = -ENOMEM;

    if (summary == NULL || reason == NULL || attempts == NULL)
        goto out;
    if (active_fd >= 0)
        unlinkat(active_fd, attempts, 0);
    forget_count(failed_fd, file);
    submitted = set_failed_summary_aside(cl, summary, &aside);
    /* A job that ran as NAME~N goes back as the name it was submitted as,
     * so its next summary says submitted_as again (its claim gives it a
     * NAME~N of its own); as the name it ran as when that one is taken. */
    to = submitted != NULL && job_file_name(submitted) ? submitted : file;
    rc = renameat2(failed_fd, file, cl->in_fd, to, RENAME_NOREPLACE);
    if (rc != 0 && errno == EEXIST && to != file) {
        to = file;
        rc = renameat2(failed_fd, file, cl->in_fd, to, RENAME_NOREPLACE);
    }
    if (rc != 0) {
        rc = -errno;
        put_summary_back(cl, summary, &aside);
        rc =
            cairn_client_fail(cl, rc, "cannot requeue %s: %s%s", base, strerror(-rc),
                              rc == -EEXIST ? " (a job of that name is waiting in the spool)" : "");
        goto out;
    }
    if (aside.name[0] != '\0')
        unlinkat(cl->out_fd, aside.name, 0);
    unlinkat(failed_fd, reason, 0);
    {
        struct cairn_shown sh = { 0 };

        if (to != file)
            printf("%s: requeued as %s, the name it was submitted as\n", cairn_shown(&sh, base),
                   cairn_shown(&sh, to));
        else
            printf("%s: requeued\n", cairn_shown(&sh, base));
        cairn_shown_free(&sh);
    }
    rc = 0;
out:
    free(ob);
    free(summary);
    free(reason);
    free(attempts);
    free(submitted);
    return rc;
}

/* Every name is checked before anything moves or is removed: a typo in
 * the third name leaves the first two where they were, and so does a job
 * whose name is taken in the spool (its rename would be refused, after its
 * summary was gone).  With --failed, names is the failed jobs' files. */
static int check_all(struct cairn_client *cl, struct names *jobs, char *const *names, size_t n)
{
    size_t i;
    int rc;

    for (i = 0; i < n; i++) {
        struct cairn_where w;
        char *file, *base;

        if ((rc = cairn_client_job_names(cl, names[i], &file, &base)) != 0)
            return rc;
        rc = cairn_client_locate(cl, file, &w);
        if (rc == 0 && !w.failed)
            rc = cairn_client_fail(cl, w.waiting || w.active ? -EEXIST : -ENOENT,
                                   "%s is not a failed job: %s", base,
                                   w.waiting   ? "it is waiting in the spool"
                                   : w.active  ? "it is being processed"
                                   : w.summary ? "it finished (cairn results shows it)"
                                               : "no such job in " CAIRN_FAILED_PATH "/");
        else if (rc == 0 && w.waiting)
            rc = cairn_client_fail(cl, -EEXIST,
                                   "cannot requeue %s: a job of that name is waiting in the "
                                   "spool (%s/%s); nothing was requeued",
                                   base, cl->cfg.input_dir, file);
        if (rc == 0)
            rc = add_name(jobs, file);
        free(file);
        free(base);
        if (rc != 0)
            return rc;
    }
    return 0;
}

int cairn_cmd_retry(struct cairn_client *cl, char *const *names, size_t n, int all)
{
    struct names jobs = { 0 };
    int failed_fd, active_fd, rc, last = 0;
    size_t i, bad = 0;

    if ((rc = cairn_client_open_input(cl, 1)) != 0)
        return rc;
    if (cl->cfg.output_dir != NULL && cairn_client_open_output(cl) != 0) {
        free(cl->msg); /* the old summaries simply stay */
        cl->msg = NULL;
    }
    failed_fd = cairn_client_state_dir(cl, CAIRN_FAILED_DIR);
    if (failed_fd < 0) {
        if (!all || failed_fd != -ENOENT)
            return cairn_client_fail(cl, n > 0 && failed_fd == -ENOENT ? -ENOENT : failed_fd,
                                     "%s is not a failed job: %s/" CAIRN_FAILED_PATH "/ %s",
                                     n > 0 ? names[0] : "?", cl->cfg.input_dir,
                                     failed_fd == -ENOENT ? "does not exist" : "cannot be read");
        printf("no failed jobs\n");
        return 0;
    }
    active_fd = cairn_client_state_dir(cl, CAIRN_ACTIVE_DIR);
    if (all) {
        struct names found = { 0 };

        rc = cairn_client_each_file(failed_fd, CAIRN_JOB_SUFFIX, add_name, &found);
        if (rc == 0)
            rc = check_all(cl, &jobs, found.v, found.n);
        for (i = 0; i < found.n; i++)
            free(found.v[i]);
        free(found.v);
    } else {
        rc = check_all(cl, &jobs, names, n);
    }
    if (rc == 0 && all && jobs.n == 0)
        printf("no failed jobs\n");
    /* One job that cannot move does not keep the others from it. */
    for (i = 0; rc == 0 && i < jobs.n; i++) {
        char *base = strndup(jobs.v[i], strlen(jobs.v[i]) - 6);
        int one = base ? requeue(cl, failed_fd, active_fd, jobs.v[i], base) : -ENOMEM;

        free(base);
        if (one == -ENOMEM) {
            rc = one;
        } else if (one != 0) {
            bad++;
            last = one;
            fprintf(stderr, "cairn: %s\n", cl->msg ? cl->msg : strerror(-one));
        }
    }
    if (rc == 0 && bad > 0)
        rc = cairn_client_fail(cl, last, "%zu of %zu job(s) not requeued", bad, jobs.n);
    for (i = 0; i < jobs.n; i++)
        free(jobs.v[i]);
    free(jobs.v);
    close(failed_fd);
    if (active_fd >= 0)
        close(active_fd);
    return rc;
}
