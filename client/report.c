/*
 * report.c - the `cairn report` command: which spool to read records
 * from, the text on stdout, and the HTML page written under a temporary
 * name and renamed, so a browser reloading it never sees half a page.
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

static int write_html(struct cairn_client *cl, const struct cairn_report *r, const char *path)
{
    char *d = strdup(path), *b = strdup(path);
    struct cairn_tmpfile t = { .fd = -1 };
    const char *dir, *base;
    FILE *f = NULL;
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
    rc = cairn_report_html(r, f);
    /* ferror() keeps no errno: a flush says why writing failed (a full
     * disk is ENOSPC, not the EIO the page's writer reports). */
    if (fflush(f) != 0)
        rc = -errno;
    if (fclose(f) != 0 && rc == 0)
        rc = -errno;
    f = NULL;
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

int cairn_cmd_report(struct cairn_client *cl, const char *out_dir, char *const *jobs, size_t n,
                     const char *html, int input_given)
{
    struct cairn_report r;
    int rc;

    rc = cairn_report_collect(cl, &r, out_dir, jobs, n, spool_of(cl, out_dir, input_given));
    if (rc == 0 && r.n_jobs == 0)
        rc = cairn_client_fail(cl, -ENOENT, "no job summaries in %s: nothing to report", out_dir);
    if (rc == 0)
        rc = cairn_report_text(&r, stdout);
    if (rc == 0 && html != NULL && (rc = write_html(cl, &r, html)) == 0)
        fprintf(stderr, "cairn: HTML report written to %s\n", html);
    cairn_report_free(&r);
    return rc;
}
