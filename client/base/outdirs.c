/*
 * outdirs.c - the output directory followed by its path (outdirs.h).
 */
#include "outdirs.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define POLL_MS 1000

struct cairn_outdir {
    uv_fs_event_t watch;
    int fd;
    dev_t dev;
    ino_t ino;
    struct cairn_outdirs *od;
};

static void follow(struct cairn_outdirs *od);

static void on_dir_event(uv_fs_event_t *h, const char *name, int events, int status)
{
    struct cairn_outdir *d = h->data;

    (void)events;
    (void)status;
    d->od->ops.look(d->od->ops.data, d->fd, name);
    /* Renamed away or removed itself: the path may name another already. */
    follow(d->od);
}

static void on_parent_event(uv_fs_event_t *h, const char *name, int events, int status)
{
    struct cairn_outdirs *od = h->data;

    (void)events;
    (void)status;
    if (name == NULL || strcmp(name, od->leaf) == 0)
        follow(od);
}

static void on_poll(uv_timer_t *t)
{
    struct cairn_outdirs *od = t->data;
    size_t i;

    follow(od);
    if (od->look_by_poll)
        for (i = 0; i < od->n; i++)
            od->ops.look(od->ops.data, od->dirs[i]->fd, NULL);
}

static void start_poll(struct cairn_outdirs *od)
{
    if (!uv_is_active((uv_handle_t *)&od->poll))
        uv_timer_start(&od->poll, on_poll, POLL_MS, POLL_MS);
}

/* Watches directory d by its descriptor (so the watch is on the very
 * directory read, whatever the path names by then), else by the path. */
static int watch_dir(struct cairn_outdirs *od, struct cairn_outdir *d)
{
    char self[64];
    int rc;

    uv_fs_event_init(od->loop, &d->watch);
    d->watch.data = d;
    snprintf(self, sizeof(self), "/proc/self/fd/%d", d->fd);
    rc = uv_fs_event_start(&d->watch, on_dir_event, self, 0);
    if (rc == UV_ENOENT)
        rc = uv_fs_event_start(&d->watch, on_dir_event, od->path, 0);
    return rc;
}

/* Adds the directory open as fd (owned from now on). */
static int add_dir(struct cairn_outdirs *od, int fd, const struct stat *st)
{
    struct cairn_outdir *d = calloc(1, sizeof(*d));
    struct cairn_outdir **grown = realloc(od->dirs, (od->n + 1) * sizeof(*od->dirs));
    int rc;

    if (grown != NULL)
        od->dirs = grown;
    if (d == NULL || grown == NULL) {
        free(d);
        close(fd);
        return -ENOMEM;
    }
    *d = (struct cairn_outdir){ .fd = fd, .dev = st->st_dev, .ino = st->st_ino, .od = od };
    od->dirs[od->n++] = d;
    rc = watch_dir(od, d);
    if (rc == 0)
        return 0;
    if (!cairn_is_out_of_resources(rc) && od->n == 1)
        return rc;
    if (!od->look_by_poll) {
        char text[PATH_MAX + 256];

        snprintf(text, sizeof(text),
                 "cannot watch %s with inotify: %s (sysctl fs.inotify.max_user_instances and "
                 "max_user_watches are the limits); looking for the summaries every %d ms instead",
                 od->path, uv_strerror(rc), POLL_MS);
        od->ops.warn(od->ops.data, text);
    }
    od->look_by_poll = 1;
    start_poll(od);
    return 0;
}

/* The path names a directory not followed yet: follow it too, and look
 * at all it holds (a summary may be there already). */
static void follow(struct cairn_outdirs *od)
{
    struct stat st;
    size_t i;
    int fd;

    if (!od->started)
        return; /* the wait is over */
    if (stat(od->path, &st) != 0 || !S_ISDIR(st.st_mode))
        return; /* gone for now: its parent's watch, or the poll, says when it is back */
    for (i = 0; i < od->n; i++)
        if (od->dirs[i]->dev == st.st_dev && od->dirs[i]->ino == st.st_ino)
            return;
    fd = open(od->path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd < 0 || fstat(fd, &st) != 0) {
        if (fd >= 0)
            close(fd);
        return;
    }
    if (add_dir(od, fd, &st) == 0)
        od->ops.look(od->ops.data, fd, NULL);
}

int cairn_outdirs_start(struct cairn_outdirs *od, uv_loop_t *loop, const char *path, int fd,
                        const struct cairn_outdirs_ops *ops)
{
    const char *slash = strrchr(path, '/');
    struct stat st;
    int own, rc;

    memset(od, 0, sizeof(*od));
    od->loop = loop;
    od->path = path;
    od->ops = *ops;
    uv_timer_init(loop, &od->poll);
    uv_fs_event_init(loop, &od->parent_watch);
    od->poll.data = od->parent_watch.data = od;
    od->started = 1;
    /* "out/" names out too. */
    while (slash != NULL && slash[1] == '\0' && slash > path) {
        const char *p = slash - 1;

        while (p > path && *p != '/')
            p--;
        slash = *p == '/' ? p : NULL;
    }
    od->parent = slash == NULL   ? strdup(".")
                 : slash == path ? strdup("/")
                                 : strndup(path, (size_t)(slash - path));
    od->leaf = slash == NULL ? path : slash + 1;
    if (od->parent == NULL)
        return -ENOMEM;
    own = fcntl(fd, F_DUPFD_CLOEXEC, 3);
    if (own < 0 || fstat(own, &st) != 0) {
        rc = -errno;
        if (own >= 0)
            close(own);
        return rc;
    }
    if ((rc = add_dir(od, own, &st)) != 0)
        return rc;
    /* Where the parent cannot be watched, the path is asked every second. */
    if (uv_fs_event_start(&od->parent_watch, on_parent_event, od->parent, 0) != 0) {
        od->follow_by_poll = 1;
        start_poll(od);
    }
    /* Renamed between the caller's open and these watches? */
    follow(od);
    return 0;
}

void cairn_outdirs_look_all(struct cairn_outdirs *od)
{
    size_t i;

    follow(od);
    for (i = 0; i < od->n; i++)
        od->ops.look(od->ops.data, od->dirs[i]->fd, NULL);
}

int cairn_outdirs_current(struct cairn_outdirs *od, int dir_fd)
{
    struct stat now, held;

    return stat(od->path, &now) == 0 && fstat(dir_fd, &held) == 0 && now.st_dev == held.st_dev &&
           now.st_ino == held.st_ino;
}

char *cairn_outdirs_where(int dir_fd)
{
    char self[64], where[PATH_MAX];
    ssize_t n;

    snprintf(self, sizeof(self), "/proc/self/fd/%d", dir_fd);
    n = readlink(self, where, sizeof(where) - 1);
    if (n <= 0)
        return NULL;
    where[n] = '\0';
    return strdup(where);
}

static void on_close_dir(uv_handle_t *h)
{
    struct cairn_outdir *d = h->data;

    close(d->fd);
    free(d);
}

static void on_close(uv_handle_t *h)
{
    (void)h;
}

void cairn_outdirs_close(struct cairn_outdirs *od)
{
    size_t i;

    if (!od->started)
        return;
    for (i = 0; i < od->n; i++) {
        uv_fs_event_stop(&od->dirs[i]->watch);
        uv_close((uv_handle_t *)&od->dirs[i]->watch, on_close_dir);
    }
    od->n = 0;
    uv_timer_stop(&od->poll);
    uv_fs_event_stop(&od->parent_watch);
    uv_close((uv_handle_t *)&od->poll, on_close);
    uv_close((uv_handle_t *)&od->parent_watch, on_close);
    od->started = 0;
}

void cairn_outdirs_free(struct cairn_outdirs *od)
{
    free(od->dirs);
    free(od->parent);
    od->dirs = NULL;
    od->parent = NULL;
}
