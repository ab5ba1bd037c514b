/*
 * source.c - file descriptor sources for the engine.
 */
#include "source.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

static int read_plain(struct cairn_source *src, struct cairn_stream *s, char *buf, size_t len,
                      ssize_t *nread)
{
    struct cairn_fd_source *fs = src->data;
    ssize_t n;

    (void)s;
    do
        n = read(fs->fd, buf, len);
    while (n < 0 && errno == EINTR);
    if (n < 0)
        return -errno;
    *nread = n;
    return 0;
}

static void alloc_cb(uv_handle_t *h, size_t suggested, uv_buf_t *buf)
{
    struct cairn_fd_source *fs = h->data;

    (void)suggested;
    /* Read straight into the batch: no copy between kernel and parser. */
    *buf = uv_buf_init(fs->buf, (unsigned)(fs->len > UINT32_MAX ? UINT32_MAX : fs->len));
}

static void read_cb(uv_stream_t *st, ssize_t nread, const uv_buf_t *buf)
{
    struct cairn_fd_source *fs = st->data;

    (void)buf;
    if (nread == 0)
        return; /* EAGAIN: keep waiting */
    uv_read_stop(st);
    cairn_stream_read_done(fs->s, nread == UV_EOF ? 0 : nread);
}

static int read_stream(struct cairn_source *src, struct cairn_stream *s, char *buf, size_t len,
                       ssize_t *nread)
{
    struct cairn_fd_source *fs = src->data;
    int rc;

    (void)nread;
    fs->s = s;
    fs->buf = buf;
    fs->len = len;
    rc = uv_read_start(&fs->h.stream, alloc_cb, read_cb);
    return rc != 0 ? rc : CAIRN_SOURCE_PENDING;
}

int cairn_fd_source_init(struct cairn_fd_source *fs, uv_loop_t *loop, uv_file fd,
                         struct cairn_source *src)
{
    int rc = 0;

    memset(fs, 0, sizeof(*fs));
    fs->loop = loop;
    fs->fd = fd;
    memset(src, 0, sizeof(*src));
    src->data = fs;
    switch (uv_guess_handle(fd)) {
    case UV_NAMED_PIPE:
        rc = uv_pipe_init(loop, &fs->h.pipe, 0);
        if (rc == 0 && (rc = uv_pipe_open(&fs->h.pipe, fd)) != 0)
            uv_close((uv_handle_t *)&fs->h.pipe, NULL);
        break;
    case UV_TTY: rc = uv_tty_init(loop, &fs->h.tty, fd, 0); break;
    default: src->read = read_plain; return 0;
    }
    if (rc != 0)
        return rc;
    fs->is_stream = 1;
    fs->h.stream.data = fs;
    src->read = read_stream;
    src->prompt = 1;
    return 0;
}

void cairn_fd_source_close(struct cairn_fd_source *fs)
{
    if (fs->is_stream && !uv_is_closing((uv_handle_t *)&fs->h.stream))
        uv_close((uv_handle_t *)&fs->h.stream, NULL);
    fs->is_stream = 0;
}
