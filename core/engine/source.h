/*
 * source.h - byte sources for the engine: a file descriptor read in place
 * on the loop thread or on the thread pool (regular files), or a libuv
 * stream (pipes, ttys, sockets) read without blocking.
 */
#ifndef CAIRN_SOURCE_H
#define CAIRN_SOURCE_H

#include <uv.h>

#include "engine.h"

struct cairn_readahead;

struct cairn_fd_source {
    uv_loop_t *loop;
    uv_file fd;
    union {
        uv_pipe_t pipe;
        uv_tty_t tty;
        uv_stream_t stream;
    } h;
    int is_stream; /* h is in use and must be closed */
    struct cairn_stream *s;
    char *buf;
    size_t len;
    struct cairn_readahead *ahead; /* CAIRN_SOURCE_POOL: reads on the pool */
    struct cairn_readahead *first; /* the first piece, read beforehand */
};

/* Regular files are read on a pool thread, not on the loop's. */
#define CAIRN_SOURCE_POOL 1
/* fd is known to be a regular file (with CAIRN_SOURCE_POOL). */
#define CAIRN_SOURCE_REGULAR 2

/*
 * NAME     cairn_fd_source_init - make src read fd
 * NOTES    regular files (and anything libuv cannot poll) are read with
 *          plain reads on the loop thread, where the loop has nothing else
 *          to serve (--filter): a page-cache read is faster than a thread
 *          hop.  With CAIRN_SOURCE_POOL in flags they are read with
 *          uv_fs_read() on the pool instead, in larger pieces, so a slow
 *          disk or NFS server stalls this stream and not the daemon.
 *          Pipes and ttys are polled by the loop, and lines are handed on
 *          as soon as they arrive.  fd stays owned by the caller.  A read
 *          in flight when the stream is given up is left to the process
 *          exit, like the stream's batches (daemon.c's abort_run).
 */
int cairn_fd_source_init(struct cairn_fd_source *fs, uv_loop_t *loop, uv_file fd, int flags,
                         struct cairn_source *src);

/*
 * NAME     cairn_readahead_first - read a regular file's first piece now
 * ARGUMENTS size: the file's size when it was opened (fstat); the piece
 *          is that and a byte, or 16 KiB for a bigger file
 * NOTES    on any thread (a job reads it in the pool work that opened the
 *          file, one thread hop less for a small job); hand it to the
 *          source with cairn_fd_source_adopt(), or free it.  A read error
 *          is kept and told to the stream in its turn.  0 or -ENOMEM (*out
 *          NULL: the source reads it itself).
 */
int cairn_readahead_first(struct cairn_readahead **out, int fd, uint64_t size);
void cairn_readahead_free(struct cairn_readahead *ra);
/* 1 when ra holds the whole file, none of it taken yet (*data, *len: its
 * bytes); 0 when more is to read, or the read failed. */
int cairn_readahead_whole(const struct cairn_readahead *ra, const char **data, size_t *len);

/* The source starts from ra (cairn_readahead_first on its fd), and owns it. */
static inline void cairn_fd_source_adopt(struct cairn_fd_source *fs, struct cairn_readahead *ra)
{
    fs->first = ra;
}

/* Closes the libuv handle, if any; the loop must run once more after. */
void cairn_fd_source_close(struct cairn_fd_source *fs);

#endif /* CAIRN_SOURCE_H */
