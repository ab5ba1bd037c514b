/*
 * claim.c - a job's names, decided in one place (see claim.h).
 */
#include "claim.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "attempts.h"
#include "layout.h"
#include "marks.h"
#include "names.h"
#include "util.h"

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

/* Runs of one name tried before giving up; far beyond any real reuse. */
#define MAX_RUNS 100000u

/* The names derived from file, into fresh strings: 0 or -ENOMEM (then
 * none is set). */
static int derive(const char *file, char **base, char **out_base, char **label)
{
    *base = strndup(file, strlen(file) - CAIRN_JOB_SUFFIX_LEN);
    *out_base = cairn_output_base(file);
    *label = cairn_name_escape(file);
    if (*base != NULL && *out_base != NULL && *label != NULL)
        return 0;
    free(*base);
    free(*out_base);
    free(*label);
    *base = *out_base = *label = NULL;
    return -ENOMEM;
}

int cairn_claim_init(struct cairn_claim *c, const char *name)
{
    *c = (struct cairn_claim){ .name = strdup(name) };
    if (c->name == NULL)
        return -ENOMEM;
    return derive(name, &c->base, &c->out_base, &c->label);
}

void cairn_claim_free(struct cairn_claim *c)
{
    free(c->name);
    free(c->base);
    free(c->out_base);
    free(c->label);
    free(c->submitted_as);
    free(c->claimed_as);
    *c = (struct cairn_claim){ 0 };
}

const char *cairn_claim_file(const struct cairn_claim *c)
{
    return c->claimed_as != NULL ? c->claimed_as : c->name;
}

char *cairn_claim_output(const struct cairn_claim *c, const char *suffix)
{
    return cairn_output_name(c->out_base, suffix);
}

/* ---- taking a name -------------------------------------------------- */

static int present(int dfd, const char *name)
{
    struct stat st;

    return fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW) == 0;
}

/* A summary is a regular file: cairnd never publishes anything else, and
 * a symlink planted where one goes is no run of ours (it is replaced,
 * never followed).  1, 0, or -ENOMEM. */
static int summary_present(int out_fd, const char *name)
{
    char *base = cairn_output_base(name);
    char *summary = base != NULL ? cairn_output_name(base, CAIRN_SUMMARY_SUFFIX) : NULL;
    struct stat st;
    int rc = summary == NULL
                 ? -ENOMEM
                 : fstatat(out_fd, summary, &st, AT_SYMLINK_NOFOLLOW) == 0 && S_ISREG(st.st_mode);

    free(summary);
    free(base);
    return rc;
}

/* The later half of used(): a summary, done/ or failed/.  1, 0 or
 * -ENOMEM. */
static int finished_before(const struct cairn_spool *sp, int out_fd, const char *name)
{
    int rc = summary_present(out_fd, name);

    return rc != 0 ? rc : present(sp->done_fd, name) || present(sp->failed_fd, name);
}

/* 1 when a job of this file name is waiting (only when waiting is set),
 * active, or finished here before: any trace counts, a summary without a
 * done/ copy included (done/ may have been pruned; a job's own handed-back
 * try is known by its hand-back mark instead, marks.h).  Looked for in
 * the order a job goes through them: waiting, active/, summary, then
 * done/ and failed/.  A job that moves on between two looks is found at
 * a later one (its summary is published before it leaves active/, and
 * done/ and failed/ are where it stays), so it cannot slip through.
 * -ENOMEM. */
static int used(const struct cairn_spool *sp, int out_fd, const char *name, int waiting)
{
    if ((waiting && present(sp->in_fd, name)) || present(sp->active_fd, name))
        return 1;
    return finished_before(sp, out_fd, name);
}

/* A file handed back is claimed as the name it ran as, so its re-run
 * replaces that run's own outputs.  0 claimed; 1 no mark, or the name is
 * taken meanwhile (claim as usual); -EEXIST (its name is its own and a
 * job of it is active: wait) or another negative errno. */
static int take_handed_back(struct cairn_claim *c, const struct cairn_spool *sp, int out_fd,
                            ino_t ino)
{
    char *ran_as = NULL, *sub = NULL;
    int rc = cairn_marks_handback(sp->active_fd, c->name, ino, &ran_as, &sub);

    if (rc <= 0)
        return rc == 0 ? 1 : rc;
    rc = cairn_spool_claim_as(sp, c->name, ran_as);
    if (rc == 0) {
        cairn_marks_forget_handback(sp->active_fd, c->name);
        c->replaces = summary_present(out_fd, ran_as) == 1;
        if (strcmp(ran_as, c->name) != 0) {
            c->claimed_as = ran_as;
            ran_as = NULL;
        }
        c->submitted_as = sub;
        sub = NULL;
    } else if (rc == -EEXIST && strcmp(ran_as, c->name) != 0) {
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
int cairn_claim_take(struct cairn_claim *c, const struct cairn_spool *sp, int out_fd)
{
    struct stat st;
    char *sub;
    unsigned n;
    int rc;

    if (fstatat(sp->in_fd, c->name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return -errno;
    c->mode = st.st_mode;
    rc = take_handed_back(c, sp, out_fd, st.st_ino);
    if (rc != 1)
        return rc;
    /* Active: wait for it (the claim's RENAME_NOREPLACE says -EEXIST). */
    rc = present(sp->active_fd, c->name) ? 0 : finished_before(sp, out_fd, c->name);
    if (rc < 0)
        return rc;
    if (rc == 0)
        return cairn_spool_claim(sp, c->name);
    sub = strdup(c->name); /* before the rename: nothing to undo after */
    if (sub == NULL)
        return -ENOMEM;
    for (n = 2; n < MAX_RUNS; n++) {
        char *alt = cairn_run_name(c->name, n);

        if (alt == NULL) {
            rc = -ENOMEM;
            break;
        }
        /* Skip names in use anywhere, a job waiting under it included:
         * that one would otherwise find its own name taken. */
        rc = used(sp, out_fd, alt, 1);
        if (rc == 0) {
            rc = cairn_spool_claim_as(sp, c->name, alt);
            if (rc == 0) {
                c->claimed_as = alt;
                c->submitted_as = sub;
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

int cairn_claim_recall(struct cairn_claim *c, const struct cairn_spool *sp, ino_t ino,
                       int recovered)
{
    int rc;

    /* A crash re-run's mark, or the one written below.  A fresh claim
     * under its own name has none to remove (an unlink(2) a job less). */
    c->marked |= recovered || c->submitted_as != NULL;
    if (recovered) {
        rc = cairn_marks_submitted(sp->active_fd, cairn_claim_file(c), ino, &c->submitted_as);
        return rc < 0 ? rc : 0;
    }
    /* Written after the claim, so a crash between the rename and here
     * loses it too: written before, under the name being claimed, it
     * could clobber another daemon's mark for a job that won that name
     * meanwhile. */
    if (c->submitted_as != NULL)
        (void)cairn_marks_note_submitted(sp->active_fd, cairn_claim_file(c), ino, c->submitted_as);
    return 0;
}

/* adopt could not take the new name: the file goes back as it came, so
 * nothing is handed back under a name the job does not have. */
static void put_back(struct cairn_claim *c, const struct cairn_spool *sp, int *in_fd,
                     const struct cairn_log *log)
{
    /* Running out of memory is not the job's fault: not counted. */
    cairn_attempts_forget(sp->active_fd, c->claimed_as, *in_fd);
    if (*in_fd >= 0) {
        close(*in_fd);
        *in_fd = -1;
    }
    if (renameat2(sp->active_fd, c->claimed_as, sp->in_fd, c->name, RENAME_NOREPLACE) == 0) {
        cairn_marks_forget_submitted(sp->active_fd, c->claimed_as);
        cairn_log(log, CAIRN_LOG_ERROR, "job %s: out of memory naming it %s; put back in the spool",
                  c->base, c->claimed_as);
    } else {
        cairn_log(log, CAIRN_LOG_ERROR,
                  "job %s: out of memory naming it %s; left in " CAIRN_ACTIVE_PATH
                  "/ as that for the "
                  "next start",
                  c->base, c->claimed_as);
    }
}

int cairn_claim_adopt(struct cairn_claim *c, const struct cairn_spool *sp, int *in_fd,
                      const struct cairn_log *log)
{
    char *base, *out_base, *label;

    if (c->claimed_as == NULL)
        return 0;
    if (derive(c->claimed_as, &base, &out_base, &label) != 0) {
        put_back(c, sp, in_fd, log);
        return -ENOMEM;
    }
    cairn_log(log, CAIRN_LOG_WARNING,
              "job %s: a job of this name finished before; its outputs are kept, and this one "
              "runs as %s",
              c->base, base);
    free(c->name);
    free(c->base);
    free(c->out_base);
    free(c->label);
    c->name = c->claimed_as;
    c->claimed_as = NULL;
    c->base = base;
    c->out_base = out_base;
    c->label = label;
    return 0;
}

/* ---- leaving active/ ------------------------------------------------ */

int cairn_claim_move_input(struct cairn_claim *c, const struct cairn_spool *sp, int dir_fd,
                           int *recreated)
{
    int rc;

    rc = dir_fd < 0 ? unlinkat(sp->active_fd, c->name, 0)
                    : renameat2(sp->active_fd, c->name, dir_fd, c->name, RENAME_NOREPLACE);
    if (rc != 0 && errno == ENOENT && dir_fd >= 0 &&
        faccessat(sp->active_fd, c->name, F_OK, AT_SYMLINK_NOFOLLOW) == 0) {
        /* The input is there, so the folder it goes to was removed or
         * moved away (an operator's cleanup) after its outputs were
         * published: recreate it and move again, rather than hand back a
         * finished job to run twice.  The descriptor keeps its number. */
        int fixed = cairn_spool_repair((struct cairn_spool *)sp);

        if (fixed > 0) {
            *recreated |= fixed;
            rc = renameat2(sp->active_fd, c->name, dir_fd, c->name, RENAME_NOREPLACE);
        } else {
            errno = fixed < 0 ? -fixed : ENOENT;
        }
    }
    if (rc != 0) {
        rc = -errno;
        /* Another daemon gave the same NAME~N between our look and our
         * claim: handed back, the job's next claim chooses a name used
         * nowhere. */
        c->name_taken = rc == -EEXIST;
        return rc;
    }
    if (c->marked)
        cairn_marks_forget_submitted(sp->active_fd, c->name);
    return 0;
}

int cairn_claim_hand_back(struct cairn_claim *c, const struct cairn_spool *sp, ino_t ino)
{
    const char *back = c->submitted_as != NULL ? c->submitted_as : c->name;
    struct stat st;
    int rc;

    if (ino == 0 && fstatat(sp->active_fd, c->name, &st, AT_SYMLINK_NOFOLLOW) == 0)
        ino = st.st_ino;
    /* The mark goes first: the file may be claimed the moment it is back.
     * Without it (out of memory) the next claim chooses a new name. */
    if (!c->name_taken)
        cairn_marks_note_handback(sp->active_fd, back, ino, c->name, c->submitted_as);
    rc = cairn_spool_unclaim_as(sp, c->name, back);
    if (rc == -EEXIST && back != c->name) {
        cairn_marks_forget_handback(sp->active_fd, back);
        back = c->name;
        if (!c->name_taken)
            cairn_marks_note_handback(sp->active_fd, back, ino, c->name, c->submitted_as);
        rc = cairn_spool_unclaim(sp, c->name);
    }
    if (rc == 0) {
        /* The mark carries submitted_as now. */
        cairn_marks_forget_submitted(sp->active_fd, c->name);
        c->back_name = back;
    } else {
        /* Still in active/ as it ran: the next start re-runs it there,
         * its submitted mark with it. */
        cairn_marks_forget_handback(sp->active_fd, back);
    }
    return rc;
}
