/*
 * reuse.c - a job name used before gets a name of its own (see reuse.h).
 */
#include "reuse.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "attempts.h"
#include "layout.h"
#include "names.h"
#include "util.h"

/* Runs of one name tried before giving up; far beyond any real reuse. */
#define MAX_RUNS 100000u

static int present(int dfd, const char *name)
{
    struct stat st;

    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A summary is a regular file: cairnd never publishes anything else, and
 * a symlink planted where one goes is no run of ours (it is replaced,
 * never followed). */
static int summary_present(int dfd, const char *name)
{
    struct stat st;

    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);
}

/* 1 when a job of this file name is waiting (only when waiting is set),
 * active, or finished here before: any trace counts, a summary without a
 * done/ copy included (done/ may have been pruned; a job's own handed-back
 * try is known by its hand-back mark instead, attempts.h).  Looked for in
 * the order a job goes through them: waiting, active/, summary, then
 * done/ and failed/.  A job that moves on between two looks is found at
 * a later one (its summary is published before it leaves active/, and
 * done/ and failed/ are where it stays), so it cannot slip through.
 * -ENOMEM. */
static int used(const struct cairn_spool *sp, int out_fd, const char *name, int waiting)
{
    char *base, *summary;
    int rc;

    if ((waiting && present(sp->in_fd, name)) || present(sp->active_fd, name))
        return 1;
    base = cairn_output_base(name);
    summary = base != NULL ? cairn_asprintf("%s.summary.json", base) : NULL;
    rc = summary == NULL ? -ENOMEM
                         : summary_present(out_fd, summary) || present(sp->done_fd, name) ||
                               present(sp->failed_fd, name);
    free(summary);
    free(base);
    return rc;
}

char *cairn_reuse_name(const char *name, unsigned n)
{
    size_t len = strlen(name), base_len, keep;
    char tail[32];

    base_len = len >= strlen(CAIRN_JOB_SUFFIX) ? len - strlen(CAIRN_JOB_SUFFIX) : len;
    snprintf(tail, sizeof(tail), CAIRN_RUN_MARK "%u" CAIRN_JOB_SUFFIX, n);
    keep = base_len;
    if (keep + strlen(tail) > NAME_MAX) {
        keep = NAME_MAX - strlen(tail);
        while (keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80)
            keep--;
    }
    return cairn_asprintf("%.*s%s", (int)keep, name, tail);
}

/* A file handed back (attempts.h) is claimed as the name it ran as, so
 * its re-run replaces that run's own outputs.  0 claimed; 1 no mark, or
 * the name is taken meanwhile (claim as usual); -EEXIST (its name is
 * its own and a job of it is active: wait) or another negative errno. */
static int claim_handed_back(const struct cairn_spool *sp, int out_fd, const char *name, ino_t ino,
                             char **as, char **submitted, int *replaces)
{
    char *ran_as = NULL, *sub = NULL, *base, *summary;
    int rc = cairn_attempts_handback(sp->active_fd, name, ino, &ran_as, &sub);

    if (rc <= 0)
        return rc == 0 ? 1 : rc;
    rc = cairn_spool_claim_as(sp, name, ran_as);
    if (rc == 0) {
        cairn_attempts_forget_handback(sp->active_fd, name);
        base = cairn_output_base(ran_as);
        summary = base != NULL ? cairn_asprintf("%s.summary.json", base) : NULL;
        *replaces = summary != NULL && summary_present(out_fd, summary);
        free(summary);
        free(base);
        if (strcmp(ran_as, name) != 0) {
            *as = ran_as;
            ran_as = NULL;
        }
        *submitted = sub;
        sub = NULL;
    } else if (rc == -EEXIST && strcmp(ran_as, name) != 0) {
        rc = 1;
    }
    free(ran_as);
    free(sub);
    return rc;
}

/*
 * Cost: a name already run N times is claimed after about 5N fstatat(2)
 * (one pass over NAME~2 .. NAME~N, five places each).  They are lookups in
 * the dentry cache, about a microsecond each, on a pool thread: a name
 * reused a thousand times costs some milliseconds per claim, against the
 * milliseconds a job's fsyncs cost anyway.  Remembering the last N taken
 * would save them but could not be trusted across daemons sharing the
 * spool or a pruned output directory, so each claim looks afresh.
 */
int cairn_reuse_claim(const struct cairn_spool *sp, int out_fd, const char *name, char **as,
                      char **submitted, int *replaces)
{
    struct stat st;
    char *sub;
    unsigned n;
    int rc;

    *as = *submitted = NULL;
    *replaces = 0;
    if (fstatat(sp->in_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    rc = claim_handed_back(sp, out_fd, name, st.st_ino, as, submitted, replaces);
    if (rc != 1)
        return rc;
    /* Active: wait for it (the claim's RENAME_NOREPLACE says -EEXIST). */
    rc = present(sp->active_fd, name) ? 0 : used(sp, out_fd, name, 0);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return cairn_spool_claim(sp, name);
    sub = strdup(name); /* before the rename: nothing to undo after */
    if (sub == NULL)
        return -ENOMEM;
    for (n = 2; n < MAX_RUNS; n++) {
        char *alt = cairn_reuse_name(name, n);

        if (alt == NULL) {
            rc = -ENOMEM;
            break;
        }
        /* Skip names in use anywhere, a job waiting under it included:
         * that one would otherwise find its own name taken. */
        rc = used(sp, out_fd, alt, 1);
        if (rc == 0) {
            rc = cairn_spool_claim_as(sp, name, alt);
            if (rc == 0) {
                *as = alt;
                *submitted = sub;
                return 0;
            }
            if (rc == -EEXIST)
                rc = 1; /* taken since we looked: try the next */
        }
        free(alt);
        if (rc < 0)
            break;
    }
    free(sub);
    return rc < 0 ? rc : -EEXIST;
}
