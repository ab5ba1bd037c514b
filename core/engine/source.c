/*
 * source.c - file descriptor sources for the engine.
 */
#include "source.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
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

/* Read ahead on the pool, one piece at a time: each piece is a thread hop,
 * so they are large, and the next is read while the loop cuts this one
 * (waiting for each read cost 13% of a 100 MB job's time). */
#define POOL_READ (256u * 1024u)

struct cairn_readahead {
    uv_fs_t req;
    struct cairn_fd_source *fs; /* NULL once the source closed mid-read */
    int busy;                   /* req is on the pool */
    int end;                    /* 0 read: nothing more to come */
    int sized;                  /* left is known: the file's size at open */
    uint64_t left;              /* ... of which this much is still unread */
    int err;                    /* a read failed: told once the data before it is taken */
    size_t pos, len;            /* the unread bytes are buf[pos, len) */
    size_t cap;                 /* buf's size: POOL_READ, or less for a
                                   small file's first piece */
    char buf[];
};

static void ahead_cb(uv_fs_t *req);

/* A piece read: n bytes, 0 at the end, or -errno. */
static void ahead_got(struct cairn_readahead *ra, ssize_t n)
{
    if (n < 0)
        ra->err = (int)n;
    else if (n == 0)
        ra->end = 1;
    else
        ra->len = (size_t)n;
    if (n > 0 && ra->sized)
        ra->left = (uint64_t)n < ra->left ? ra->left - (uint64_t)n : 0;
    /* A short read once the whole size known at open is read is the end:
     * one thread hop less for every job smaller than a piece (most of
     * them).  Short before that (a FUSE or network file system may be) is
     * no end: read on until a read returns 0. */
    if (n > 0 && (size_t)n < ra->cap && ra->sized && ra->left == 0)
        ra->end = 1;
}

/* An empty read-ahead of cap bytes, its buffer left unwritten; NULL
 * without memory. */
static struct cairn_readahead *ahead_new(size_t cap)
{
    struct cairn_readahead *ra = malloc(offsetof(struct cairn_readahead, buf) + cap);

    if (ra != NULL) {
        memset(ra, 0, offsetof(struct cairn_readahead, buf));
        ra->cap = cap;
    }
    return ra;
}

/* A first piece, read where a job starts, holds at most this much: the
 * daemon has many jobs started and waiting at once (daemon_dispatch.c),
 * each holding its first piece until it streams. */
#define FIRST_READ (16u * 1024u)

int cairn_readahead_first(struct cairn_readahead **out, int fd, uint64_t size)
{
    /* A file smaller than that gets a buffer its size (and a byte, to see
     * it end): most jobs are, and a piece's 256 KiB each, malloc'd and
     * freed, cost them an mmap and munmap apiece.  A bigger one reads on
     * in full pieces after it (grow). */
    struct cairn_readahead *ra = ahead_new(size < FIRST_READ ? (size_t)size + 1 : FIRST_READ);
    ssize_t n;

    *out = ra;
    if (ra == NULL)
        return -ENOMEM;
    ra->sized = 1;
    ra->left = size;
    do
        n = read(fd, ra->buf, ra->cap);
    while (n < 0 && errno == EINTR);
    ahead_got(ra, n < 0 ? -errno : n);
    return 0;
}

void cairn_readahead_free(struct cairn_readahead *ra)
{
    free(ra);
}

int cairn_readahead_whole(const struct cairn_readahead *ra, const char **data, size_t *len)
{
    if (ra == NULL || !ra->end || ra->err != 0 || ra->pos != 0)
        return 0;
    *data = ra->buf;
    *len = ra->len;
    return 1;
}

static int ahead_start(struct cairn_readahead *ra, uv_loop_t *loop, uv_file fd)
{
    uv_buf_t b = uv_buf_init(ra->buf, (unsigned)ra->cap);
    int rc;

    ra->req.data = ra;
    /* Offset -1: the descriptor's own position, as read_plain() uses. */
    rc = uv_fs_read(loop, &ra->req, fd, &b, 1, -1, ahead_cb);
    ra->busy = rc == 0;
    return rc;
}

/* A small first piece taken, and more to read (a file over FIRST_READ,
 * or one that grew since it was opened): full pieces from here on.  Out
 * of memory, the small one stays with the error, told after the bytes
 * already taken. */
static struct cairn_readahead *grow(struct cairn_fd_source *fs)
{
    struct cairn_readahead *ra = fs->ahead, *big = ahead_new(POOL_READ);

    if (big == NULL) {
        ra->err = -ENOMEM;
        return ra;
    }
    memcpy(big, ra, offsetof(struct cairn_readahead, buf));
    big->cap = POOL_READ;
    free(ra);
    fs->ahead = big;
    return big;
}

/* Hands the engine what is read, and reads on once it is all taken.
 * Returns what a cairn_source read returns. */
static int ahead_take(struct cairn_fd_source *fs, char *buf, size_t len, ssize_t *nread)
{
    struct cairn_readahead *ra = fs->ahead;
    size_t n = ra->len - ra->pos;
    int rc;

    if (n == 0) {
        if (ra->err != 0)
            return ra->err;
        *nread = 0;
        return 0;
    }
    if (n > len)
        n = len;
    memcpy(buf, ra->buf + ra->pos, n);
    ra->pos += n;
    if (ra->pos == ra->len && !ra->end && ra->err == 0) {
        ra->pos = ra->len = 0;
        if (ra->cap < POOL_READ)
            ra = grow(fs);
        if (ra->err == 0 && (rc = ahead_start(ra, fs->loop, fs->fd)) != 0)
            ra->err = rc; /* told after these bytes */
    }
    *nread = (ssize_t)n;
    return 0;
}

static void ahead_cb(uv_fs_t *req)
{
    struct cairn_readahead *ra = req->data;
    struct cairn_fd_source *fs = ra->fs;
    ssize_t n = req->result;
    ssize_t got = 0;
    int rc;

    uv_fs_req_cleanup(req);
    ra->busy = 0;
    if (fs == NULL) {
        free(ra); /* the source closed while we read */
        return;
    }
    ahead_got(ra, n);
    if (fs->buf == NULL)
        return; /* read ahead of the engine's asking */
    rc = ahead_take(fs, fs->buf, fs->len, &got);
    fs->buf = NULL;
    cairn_stream_read_done(fs->s, rc < 0 ? rc : got);
}

static int read_pool(struct cairn_source *src, struct cairn_stream *s, char *buf, size_t len,
                     ssize_t *nread)
{
    struct cairn_fd_source *fs = src->data;
    struct cairn_readahead *ra = fs->ahead;
    int rc;

    if (ra == NULL && fs->first != NULL) {
        ra = fs->ahead = fs->first; /* read already, where the job began */
        fs->first = NULL;
        ra->fs = fs;
    } else if (ra == NULL) {
        ra = fs->ahead = ahead_new(POOL_READ);
        if (ra == NULL)
            return -ENOMEM;
        ra->fs = fs;
        if ((rc = ahead_start(ra, fs->loop, fs->fd)) != 0)
            return rc;
    }
    if (ra->busy) {
        fs->s = s;
        fs->buf = buf;
        fs->len = len;
        return CAIRN_SOURCE_PENDING;
    }
    return ahead_take(fs, buf, len, nread);
}

/* The read-ahead holds nothing more and knows the file ended. */
static int at_end_pool(struct cairn_source *src)
{
    const struct cairn_readahead *ra = ((struct cairn_fd_source *)src->data)->ahead;

    return ra != NULL && !ra->busy && ra->end && ra->err == 0 && ra->pos == ra->len;
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

int cairn_fd_source_init(struct cairn_fd_source *fs, uv_loop_t *loop, uv_file fd, int flags,
                         struct cairn_source *src)
{
    int rc = 0;

    memset(fs, 0, sizeof(*fs));
    fs->loop = loop;
    fs->fd = fd;
    memset(src, 0, sizeof(*src));
    src->data = fs;
    /* Known to be a regular file: no need to ask (an ioctl a job). */
    switch ((flags & CAIRN_SOURCE_REGULAR) ? UV_FILE : uv_guess_handle(fd)) {
    case UV_NAMED_PIPE:
        rc = uv_pipe_init(loop, &fs->h.pipe, 0);
        if (rc == 0 && (rc = uv_pipe_open(&fs->h.pipe, fd)) != 0)
            uv_close((uv_handle_t *)&fs->h.pipe, NULL);
        break;
    case UV_TTY: rc = uv_tty_init(loop, &fs->h.tty, fd, 0); break;
    default:
        if (flags & CAIRN_SOURCE_POOL) {
            src->read = read_pool;
            src->at_end = at_end_pool;
            src->max_read = POOL_READ;
        } else {
            src->read = read_plain;
        }
        return 0;
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
    free(fs->first);
    fs->first = NULL;
    if (fs->ahead != NULL) {
        /* A read still on the pool writes into the buffer: its callback
         * frees it. */
        if (fs->ahead->busy)
            fs->ahead->fs = NULL;
        else
            free(fs->ahead);
        fs->ahead = NULL;
    }
    if (fs->is_stream && !uv_is_closing((uv_handle_t *)&fs->h.stream))
        uv_close((uv_handle_t *)&fs->h.stream, NULL);
    fs->is_stream = 0;
}
