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

/* 1 when a job of this file name finished here before.  The mark is its
 * input kept in done/ or failed/ (a failed job's always is); without
 * keep_inputs, its summary.  With keep_inputs a summary alone is not
 * taken as a mark: that is what a job leaves when its outputs were
 * published but its move to done/ failed and it was handed back, and its
 * re-run must replace its own outputs, not add NAME~2.  *summary_only
 * says so (for the log).  strict: any trace at all counts, the summary
 * included (for choosing a new name).  -ENOMEM. */
static int used(const struct cairn_spool *sp, int out_fd, const char *name, int keep_inputs,
                int strict, int *summary_only)
{
    char *base = cairn_output_base(name);
    char *summary = base != NULL ? cairn_asprintf("%s.summary.json", base) : NULL;
    int rc = -ENOMEM, sum;

    *summary_only = 0;
    if (summary != NULL) {
        sum = present(out_fd, summary);
        rc = present(sp->done_fd, name) || present(sp->failed_fd, name) ||
             (sum && (strict || !keep_inputs));
        *summary_only = rc == 0 && sum;
    }
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

int cairn_reuse_claim(const struct cairn_spool *sp, int out_fd, const char *name, int keep_inputs,
                      char **as, int *replaces)
{
    unsigned n;
    int rc, ignored;

    *as = NULL;
    rc = used(sp, out_fd, name, keep_inputs, 0, replaces);
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
        rc = used(sp, out_fd, alt, keep_inputs, 1, &ignored);
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
