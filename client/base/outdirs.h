/*
 * outdirs.h - the output directory followed by its path while a command
 * waits on it, as cairnd follows it.
 *
 * `mv OUT OUT.old && mkdir OUT` while jobs run: cairnd writes new jobs'
 * outputs to the new OUT, and a job already running finishes in the
 * directory it began in (docs/contract.md).  So a waiter keeps watching
 * every directory the path has named since it began, and notices the
 * path naming another one (a watch on its parent, else a look every
 * second): the summaries it waits for may land in either.
 */
#ifndef CAIRN_CLIENT_OUTDIRS_H
#define CAIRN_CLIENT_OUTDIRS_H

#include <sys/types.h>
#include <uv.h>

struct cairn_outdir;

struct cairn_outdirs_ops {
    /* name appeared or changed in directory dir_fd; NULL: look at all
     * of it (a directory newly followed, an overflowed event queue, a
     * look on a timer). */
    void (*look)(void *data, int dir_fd, const char *name);
    /* A warning for the user (one line, without "cairn: warning: "). */
    void (*warn)(void *data, const char *text);
    void *data;
};

struct cairn_outdirs {
    uv_loop_t *loop;
    const char *path;
    char *parent;
    const char *leaf; /* in path */
    struct cairn_outdir **dirs;
    size_t n;
    uv_fs_event_t parent_watch;
    uv_timer_t poll;
    int look_by_poll;   /* a directory without inotify: look at all on the timer */
    int follow_by_poll; /* the parent without inotify: stat the path on the timer */
    int started;
    struct cairn_outdirs_ops ops;
};

/*
 * NAME     cairn_outdirs_start - follow path, opened as fd, on loop
 * RETURNS  0, or a negative errno when fd's directory cannot be watched
 *          and no look on a timer replaces the watch (out of memory)
 * NOTES    fd is the caller's (duplicated here).  Where inotify refuses
 *          for want of a resource, the directories are looked at every
 *          second instead, with one warning.
 */
int cairn_outdirs_start(struct cairn_outdirs *od, uv_loop_t *loop, const char *path, int fd,
                        const struct cairn_outdirs_ops *ops);
/* ops->look(dir, NULL) for every directory followed; the path is asked
 * first whether it names another now. */
void cairn_outdirs_look_all(struct cairn_outdirs *od);
/* 1 when dir_fd is the directory the path names now. */
int cairn_outdirs_current(struct cairn_outdirs *od, int dir_fd);
/* Where directory dir_fd is now (malloc'd), or NULL when not known. */
char *cairn_outdirs_where(int dir_fd);
/* Stops every watch and timer; closes the handles (run the loop once
 * more, then cairn_outdirs_free). */
void cairn_outdirs_close(struct cairn_outdirs *od);
void cairn_outdirs_free(struct cairn_outdirs *od);

#endif /* CAIRN_CLIENT_OUTDIRS_H */
