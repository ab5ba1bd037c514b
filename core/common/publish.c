/*
 * publish.c - small files written whole (see publish.h).
 */
#include "publish.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "inflight.h"
#include "tmpfile.h"

struct job {
    uv_work_t req;
    int dir_fd;
    char *name;
    struct cairn_buf text;
    struct cairn_publish_opts opts;
    struct cairn_inflight *inflight;
    int rc;
    void (*done)(int rc, void *data);
    void *data;
};

int cairn_publish_now(int dir_fd, const char *name, const void *text, size_t len,
                      const struct cairn_publish_opts *opts)
{
    struct cairn_tmpfile t;
    int rc = cairn_tmpfile_open(&t, dir_fd, opts->kind, 0644);

    if (rc != 0)
        return rc;
    /* Only ever a file we just created (O_EXCL), never someone else's. */
    if (opts->mode != 0 && fchmod(t.fd, opts->mode) != 0)
        rc = -errno;
    if (rc == 0)
        rc = cairn_write_all(t.fd, text, len);
    if (rc == 0 && opts->sync && fsync(t.fd) != 0)
        rc = -errno;
    if (rc != 0) {
        cairn_tmpfile_discard(&t);
        return rc;
    }
    return cairn_tmpfile_commit(&t, name);
}

static void work(uv_work_t *req)
{
    struct job *j = req->data;

    j->rc = cairn_publish_now(j->dir_fd, j->name, j->text.data, j->text.len, &j->opts);
    cairn_inflight_leave(j->inflight);
}

/* status is 0: nothing cancels the work (no uv_cancel). */
static void after(uv_work_t *req, int status)
{
    struct job *j = req->data;

    (void)status;
    j->done(j->rc, j->data);
    close(j->dir_fd);
    cairn_buf_free(&j->text);
    free(j->name);
    free(j);
}

int cairn_publish_start(uv_loop_t *loop, struct cairn_inflight *inflight, int dir_fd,
                        const char *name, struct cairn_buf *text,
                        const struct cairn_publish_opts *opts, void (*done)(int rc, void *data),
                        void *data)
{
    struct job *j = calloc(1, sizeof(*j));
    int rc;

    if (j == NULL || (j->name = strdup(name)) == NULL) {
        free(j);
        return -ENOMEM;
    }
    j->dir_fd = fcntl(dir_fd, F_DUPFD_CLOEXEC, 3);
    if (j->dir_fd < 0) {
        rc = -errno;
        free(j->name);
        free(j);
        return rc;
    }
    j->text = *text;
    memset(text, 0, sizeof(*text));
    j->opts = *opts;
    j->done = done;
    j->data = data;
    j->inflight = inflight;
    j->req.data = j;
    cairn_inflight_enter(inflight);
    /* Fails only for a NULL work callback. */
    (void)uv_queue_work(loop, &j->req, work, after);
    return 0;
}
