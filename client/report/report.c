/*
 * report.c - the `cairn report` command: which spool to read records
 * from, the text on stdout, and the HTML page written under a temporary
 * name and renamed, so a browser reloading it never sees half a page (a
 * FIFO or a device is written in place instead, never replaced).
 */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "report.h"
#include "report_collect.h"
#include "report_html.h"
#include "report_json.h"
#include "report_moves.h"
#include "report_text.h"
#include "tmpfile.h"

/* The spool whose .cairn/done/ holds this output directory's inputs:
 * --input when given; else the configured input_dir, but only when the
 * configuration's output_dir is this very directory -- another spool's
 * file of the same name would give wrong expected answers. */
static const char *spool_of(struct cairn_client *cl, const char *out_dir, int input_given)
{
    struct stat a, b;

    if (input_given)
        return cl->cfg.input_dir;
    if (cl->cfg.input_dir == NULL || cl->cfg.output_dir == NULL)
        return NULL;
    if (stat(out_dir, &a) != 0 || stat(cl->cfg.output_dir, &b) != 0 || a.st_dev != b.st_dev ||
        a.st_ino != b.st_ino)
        return NULL;
    return cl->cfg.input_dir;
}

/* The page through f, which it closes: 0 or -errno.  ferror() keeps no
 * errno: a flush says why writing failed (a full disk is ENOSPC, not the
 * EIO the page's writer reports). */
static int put_page(const struct cairn_report *r, FILE *f)
{
    int rc = cairn_report_html(r, f);

    if (fflush(f) != 0)
        rc = -errno;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    return rc;
}

/* A regular file (or none yet): a temporary beside it, renamed over it. */
static int write_by_rename(struct cairn_client *cl, const struct cairn_report *r, const char *path,
                           const char *target)
{
    char *d = strdup(target), *b = strdup(target);
    struct cairn_tmpfile t = { .fd = -1 };
    const char *dir, *base;
    FILE *f;
    int dir_fd = -1, rc;

    if (d == NULL || b == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    dir = dirname(d);
    base = basename(b);
    if ((dir_fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC)) < 0) {
        rc = -errno;
        rc = cairn_client_fail(cl, rc, "--html %s: cannot open %s: %s", path, dir, strerror(-rc));
        goto out;
    }
    if ((rc = cairn_tmpfile_open(&t, dir_fd, 'h', 0644)) != 0) {
        rc = cairn_client_fail(cl, rc, "--html %s: cannot create a file in %s: %s", path, dir,
                               strerror(-rc));
        goto out;
    }
    /* The stream writes through its own descriptor; t keeps the lock. */
    if ((f = fdopen(dup(t.fd), "w")) == NULL) {
        rc = -errno;
        goto out;
    }
    rc = put_page(r, f);
    if (rc == 0)
        rc = cairn_tmpfile_commit(&t, base);
    if (rc != 0)
        rc = cairn_client_fail(cl, rc, "--html %s: cannot write it: %s", path, strerror(-rc));
out:
    cairn_tmpfile_discard(&t);
    if (dir_fd >= 0)
        close(dir_fd);
    free(d);
    free(b);
    return rc;
}

/* Anything else that takes writes (a FIFO, a terminal, /dev/stdout):
 * written in place, as `>` would; a rename would replace the node. */
static int write_in_place(struct cairn_client *cl, const struct cairn_report *r, const char *path)
{
    int fd = open(path, O_WRONLY | O_NOCTTY | O_CLOEXEC), rc;
    FILE *f;

    if (fd < 0 || (f = fdopen(fd, "w")) == NULL) {
        rc = -errno;
        if (fd >= 0)
            close(fd);
        return cairn_client_fail(cl, rc, "--html %s: cannot open it: %s", path, strerror(-rc));
    }
    if ((rc = put_page(r, f)) != 0)
        rc = cairn_client_fail(cl, rc, "--html %s: cannot write it: %s", path, strerror(-rc));
    return rc;
}

/* PATH absent or a regular file: replaced atomically.  A symbolic link to
 * a regular file: that file, the link kept.  A directory: refused. */
static int write_html(struct cairn_client *cl, const struct cairn_report *r, const char *path)
{
    struct stat st, lst;
    char *real = NULL;
    int rc, linked = lstat(path, &lst) == 0 && S_ISLNK(lst.st_mode);

    if (stat(path, &st) != 0) {
        if (linked) {
            rc = -errno;
            return cairn_client_fail(cl, rc, "--html %s: a symbolic link to nothing: %s", path,
                                     strerror(-rc));
        }
        return write_by_rename(cl, r, path, path);
    }
    if (S_ISDIR(st.st_mode))
        return cairn_client_fail(cl, -EISDIR, "--html %s: is a directory; name a file", path);
    if (!S_ISREG(st.st_mode))
        return write_in_place(cl, r, path);
    if (linked && (real = realpath(path, NULL)) == NULL) {
        rc = -errno;
        return cairn_client_fail(cl, rc, "--html %s: cannot resolve the link: %s", path,
                                 strerror(-rc));
    }
    rc = write_by_rename(cl, r, path, real != NULL ? real : path);
    free(real);
    return rc;
}

int cairn_cmd_report(struct cairn_client *cl, const char *out_dir, char *const *jobs, size_t n,
                     const struct cairn_report_opts *o)
{
    struct cairn_report r;
    int rc;

    rc = cairn_report_collect(cl, &r, out_dir, jobs, n, spool_of(cl, out_dir, o->input_given), o);
    if (rc == 0 && r.n_jobs == 0)
        rc = cairn_client_fail(cl, -ENOENT, "no job summaries in %s: nothing to report", out_dir);
    if (rc == 0)
        cairn_report_lines_of_play(cl, &r, o->solver);
    if (rc == 0)
        rc = o->json ? cairn_report_json(&r, stdout) : cairn_report_text(&r, stdout);
    if (rc == 0 && o->html != NULL && (rc = write_html(cl, &r, o->html)) == 0)
        fprintf(stderr, "cairn: HTML report written to %s\n", o->html);
    /* Every checked record, shown or not: the summaries' count, and the
     * lines' for results files. */
    if (rc == 0 && o->fail_on_mismatch && r.mismatches > 0) {
        fprintf(stderr,
                "cairn: %llu checked record%s differ%s from the given answers "
                "(--fail-on-mismatch)\n",
                (unsigned long long)r.mismatches, r.mismatches == 1 ? "" : "s",
                r.mismatches == 1 ? "s" : "");
        rc = 1;
    }
    cairn_report_free(&r);
    return rc;
}
