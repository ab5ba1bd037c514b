/*
 * filesink.c - results written on the pool at their place in the file.
 */
#include "filesink.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

/* The largest last batch cairn_filesink_keep() copies: the copy must
 * cost less than the trip through the pool it saves. */
#define KEEP_MAX (64 * 1024)

struct write_req {
    uv_fs_t req;
    struct cairn_filesink *fk;
    struct cairn_batch *b;
    uint64_t off;
    size_t done;
};

static void written(uv_fs_t *req);

static int write_rest(struct write_req *w)
{
    const struct cairn_buf *out = &w->b->out;
    size_t left = out->len - w->done;
    uv_buf_t buf = uv_buf_init(out->data + w->done, (unsigned)(left > INT_MAX ? INT_MAX : left));

    w->req.data = w;
    return uv_fs_write(w->fk->loop, &w->req, w->fk->fd, &buf, 1, (int64_t)(w->off + w->done),
                       written);
}

static void written(uv_fs_t *req)
{
    struct write_req *w = req->data;
    struct cairn_filesink *fk = w->fk;
    struct cairn_batch *b = w->b;
    ssize_t n = req->result;
    int rc = 0;

    uv_fs_req_cleanup(req);
    if (n < 0)
        rc = (int)n;
    else if (n == 0)
        rc = -EIO; /* a regular file that takes nothing would loop forever */
    else if ((w->done += (size_t)n) < b->out.len && (rc = write_rest(w)) == 0)
        return; /* short write (a disk filling up): the rest is on its way */
    if (rc != 0 && fk->error == 0)
        fk->error = rc;
    free(w);
    cairn_batch_release(b); /* may end the stream: last */
}

void cairn_filesink_init(struct cairn_filesink *fk, uv_loop_t *loop, int fd)
{
    *fk = (struct cairn_filesink){ .loop = loop, .fd = fd };
}

void cairn_filesink_write(struct cairn_filesink *fk, struct cairn_batch *b)
{
    struct write_req *w;
    int rc;

    if (fk->error != 0 || b->out.len == 0) {
        cairn_batch_release(b);
        return;
    }
    w = malloc(sizeof(*w));
    if (w == NULL) {
        rc = -ENOMEM;
    } else {
        *w = (struct write_req){ .fk = fk, .b = b, .off = fk->off };
        rc = write_rest(w);
    }
    if (rc != 0) {
        free(w);
        fk->error = rc;
        cairn_batch_release(b);
        return;
    }
    fk->off += b->out.len;
}

void cairn_filesink_keep(struct cairn_filesink *fk, struct cairn_batch *b)
{
    if (fk->error != 0 || b->out.len == 0) {
        cairn_batch_release(b);
        return;
    }
    if (b->out.len > KEEP_MAX || fk->kept.len != 0 ||
        cairn_buf_append(&fk->kept, b->out.data, b->out.len) != 0) {
        cairn_filesink_write(fk, b);
        return;
    }
    fk->kept_off = fk->off;
    fk->off += b->out.len;
    cairn_batch_release(b); /* may end the stream: last */
}

void cairn_filesink_keep_all(struct cairn_filesink *fk, struct cairn_buf *out)
{
    cairn_buf_free(&fk->kept);
    fk->kept = *out;
    fk->kept_off = 0;
    fk->off = out->len;
    *out = (struct cairn_buf){ 0 };
}

int cairn_filesink_write_kept(struct cairn_filesink *fk)
{
    size_t done = 0;

    if (fk->error != 0)
        return fk->error;
    while (done < fk->kept.len) {
        ssize_t n =
            pwrite(fk->fd, fk->kept.data + done, fk->kept.len - done, (off_t)(fk->kept_off + done));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return fk->error = n < 0 ? -errno : -EIO; /* as written() */
        done += (size_t)n;
    }
    return 0;
}

void cairn_filesink_free(struct cairn_filesink *fk)
{
    cairn_buf_free(&fk->kept);
}
