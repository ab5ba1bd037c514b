/*
 * source.h - byte sources for the engine: a file descriptor read in place
 * on the loop thread (regular files), or a libuv stream (pipes, ttys,
 * sockets) read without blocking.
 */
#ifndef CAIRN_SOURCE_H
#define CAIRN_SOURCE_H

#include <uv.h>

#include "engine.h"

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
};

/*
 * NAME     cairn_fd_source_init - make src read fd
 * NOTES    regular files (and anything libuv cannot poll) are read with
 *          plain reads: a page-cache read is faster than a thread hop.
 *          Pipes and ttys are polled by the loop, and lines are handed on
 *          as soon as they arrive.  fd stays owned by the caller.
 */
int cairn_fd_source_init(struct cairn_fd_source *fs, uv_loop_t *loop, uv_file fd,
                         struct cairn_source *src);

/* Closes the libuv handle, if any; the loop must run once more after. */
void cairn_fd_source_close(struct cairn_fd_source *fs);

#endif /* CAIRN_SOURCE_H */
