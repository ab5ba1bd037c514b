/*
 * watch.h - notice job files in the input directory the moment they are
 * ready.  libuv's uv_fs_event reports neither close-after-write nor queue
 * overflow on Linux, so inotify is read directly through a uv_poll_t.
 *
 * A name is READY when it was renamed in (IN_MOVED_TO) or its writer
 * closed it (IN_CLOSE_WRITE), or when something that is not a regular
 * file, or a new hard link to a file written elsewhere, appears (it will
 * never be written and closed here).  A regular file that was created or
 * modified but not yet closed is WRITING: scans must leave it alone
 * however old it looks.  OVERFLOW means events were lost: rescan.
 */
#ifndef CAIRN_WATCH_H
#define CAIRN_WATCH_H

#include <uv.h>

#include "namemap.h"

enum cairn_watch_event {
    CAIRN_WATCH_READY,
    CAIRN_WATCH_OVERFLOW,
    CAIRN_WATCH_GONE,   /* the input directory itself was removed or moved */
    CAIRN_WATCH_IGNORED /* a file arrived under a name never taken (spool.h) */
};

struct cairn_watch;
typedef void (*cairn_watch_cb)(struct cairn_watch *w, enum cairn_watch_event ev, const char *name);

struct cairn_watch {
    uv_poll_t poll;
    int fd;
    int dir_fd;                   /* the watched directory, for lstat */
    struct cairn_namemap writing; /* open for writing, per inotify */
    cairn_watch_cb cb;
    void *data;
    int started;
};

/* Starts watching path (whose descriptor is dir_fd).  0 or negative errno. */
int cairn_watch_start(struct cairn_watch *w, uv_loop_t *loop, const char *path, int dir_fd,
                      cairn_watch_cb cb, void *data);
/* 1 when name is known to be open for writing. */
int cairn_watch_is_writing(const struct cairn_watch *w, const char *name);
/* Stops and frees; uv_close runs, so the loop must turn once more. */
void cairn_watch_stop(struct cairn_watch *w);

#endif /* CAIRN_WATCH_H */
