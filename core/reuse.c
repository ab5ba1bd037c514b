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

#include "names.h"
#include "util.h"

#define JOB_SUFFIX ".jsonl"
/* Runs of one name tried before giving up; far beyond any real reuse. */
#define MAX_RUNS 100000u

static int present(int dfd, const char *name)
{
    struct stat st;

    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* 1 when a job of this file name finished here before: its summary (the
 * mark of a finished job; a results file alone may be our own earlier
 * try, handed back), or its input kept in done/ or failed/.  -ENOMEM. */
static int used(const struct cairn_spool *sp, int out_fd, const char *name)
{
    char *base = cairn_output_base(name);
    char *summary = base != NULL ? cairn_asprintf("%s.summary.json", base) : NULL;
    int rc = -ENOMEM;

    if (summary != NULL)
        rc = present(out_fd, summary) || present(sp->done_fd, name) || present(sp->failed_fd, name);
    free(summary);
    free(base);
    return rc;
}

char *cairn_reuse_name(const char *name, unsigned n)
{
    size_t len = strlen(name), base_len, keep;
    char tail[32];

    base_len = len >= strlen(JOB_SUFFIX) ? len - strlen(JOB_SUFFIX) : len;
    snprintf(tail, sizeof(tail), "~%u" JOB_SUFFIX, n);
    keep = base_len;
    if (keep + strlen(tail) > NAME_MAX) {
        keep = NAME_MAX - strlen(tail);
        while (keep > 0 && ((unsigned char)name[keep] & 0xC0) == 0x80)
            keep--;
    }
    return cairn_asprintf("%.*s%s", (int)keep, name, tail);
}

int cairn_reuse_claim(const struct cairn_spool *sp, int out_fd, const char *name, char **as)
{
    unsigned n;
    int rc;

    *as = NULL;
    rc = used(sp, out_fd, name);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return cairn_spool_claim(sp, name);
    for (n = 2; n < MAX_RUNS; n++) {
        char *alt = cairn_reuse_name(name, n);

        if (alt == NULL)
            return -ENOMEM;
        /* Skip names in use anywhere, a job waiting under it included:
         * that one would otherwise find its own name taken. */
        rc = used(sp, out_fd, alt);
        if (rc == 0 && !present(sp->in_fd, alt) && !present(sp->active_fd, alt)) {
            rc = cairn_spool_claim_as(sp, name, alt);
            if (rc == 0) {
                *as = alt;
                return 0;
            }
            if (rc == -EEXIST)
                rc = 1; /* taken since we looked: try the next */
        }
        free(alt);
        if (rc < 0)
            return rc;
    }
    return -EEXIST;
}
