/*
 * watch.c - inotify on the input directory, read through a uv_poll_t.
 */
#include "watch.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "spool.h"

#define WATCH_MASK                                                                      \
    (IN_CREATE | IN_MODIFY | IN_CLOSE_WRITE | IN_MOVED_TO | IN_MOVED_FROM | IN_DELETE | \
     IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR)

static void on_event(struct cairn_watch *w, const struct inotify_event *ev)
{
    const char *name = ev->len > 0 ? ev->name : "";

    if (ev->mask & IN_Q_OVERFLOW) {
        /* Lost events may include closes: forget what we thought was
         * open, the rescan's min_age_ms rule takes over. */
        cairn_namemap_free(&w->writing);
        w->cb(w, CAIRN_WATCH_OVERFLOW, NULL);
        return;
    }
    if (ev->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
        w->cb(w, CAIRN_WATCH_GONE, NULL);
        return;
    }
    if (!cairn_spool_is_job_name(name)) {
        if ((ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) && !(ev->mask & IN_ISDIR) &&
            cairn_spool_is_never_taken(name))
            w->cb(w, CAIRN_WATCH_IGNORED, name);
        return;
    }
    if (ev->mask & (IN_DELETE | IN_MOVED_FROM)) {
        cairn_namemap_remove(&w->writing, name);
    } else if (ev->mask & (IN_CLOSE_WRITE | IN_MOVED_TO)) {
        cairn_namemap_remove(&w->writing, name);
        w->cb(w, CAIRN_WATCH_READY, name);
    } else if ((ev->mask & IN_CREATE) ||
               ((ev->mask & IN_MODIFY) && cairn_namemap_get(&w->writing, name) < 0)) {
        /* Only the first event of a write is looked at: one lstat per
         * file, not one per write(2) its producer makes. */
        struct stat st;

        if (fstatat(w->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0 &&
            (!S_ISREG(st.st_mode) || ((ev->mask & IN_CREATE) && st.st_nlink > 1))) {
            /* A FIFO, symlink or directory never gets IN_CLOSE_WRITE, and
             * neither does a hard link to a file written elsewhere
             * (link(2), cp -l: maildir-style delivery). */
            w->cb(w, CAIRN_WATCH_READY, name);
        } else if (cairn_namemap_set(&w->writing, name, 0) < 0) {
            /* Out of memory: a rescan with min_age_ms is the safe fallback. */
            w->cb(w, CAIRN_WATCH_OVERFLOW, NULL);
        }
    }
}

static void on_readable(uv_poll_t *p, int status, int events)
{
    struct cairn_watch *w = p->data;
    /* Aligned as inotify_event requires. */
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));

    (void)events;
    if (status < 0) {
        w->cb(w, CAIRN_WATCH_OVERFLOW, NULL);
        return;
    }
    /* A few buffers per turn, then back to the loop (the poll is level
     * triggered): acting on an event may cause another (a job handed back
     * is renamed in again), and signals and timers must not wait for a
     * queue that refills itself. */
    for (int reads = 0; reads < 4; reads++) {
        ssize_t n = read(w->fd, buf, sizeof(buf));
        char *q;

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return; /* EAGAIN: drained */
        for (q = buf; q < buf + n;) {
            const struct inotify_event *ev = (const struct inotify_event *)q;
            q += sizeof(*ev) + ev->len;
            on_event(w, ev);
            if (!w->started)
                return; /* the callback stopped us */
        }
    }
}

int cairn_watch_start(struct cairn_watch *w, uv_loop_t *loop, const char *path, int dir_fd,
                      cairn_watch_cb cb, void *data)
{
    int rc;

    memset(w, 0, sizeof(*w));
    w->cb = cb;
    w->data = data;
    w->dir_fd = dir_fd;
    w->fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (w->fd < 0)
        return -errno;
    if (inotify_add_watch(w->fd, path, WATCH_MASK) < 0) {
        rc = -errno;
        close(w->fd);
        return rc;
    }
    rc = uv_poll_init(loop, &w->poll, w->fd);
    if (rc == 0) {
        w->poll.data = w;
        rc = uv_poll_start(&w->poll, UV_READABLE, on_readable);
        if (rc != 0)
            uv_close((uv_handle_t *)&w->poll, NULL);
    }
    if (rc != 0) {
        close(w->fd);
        return rc;
    }
    w->started = 1;
    return 0;
}

int cairn_watch_is_writing(const struct cairn_watch *w, const char *name)
{
    return cairn_namemap_get(&w->writing, name) >= 0;
}

static void on_closed(uv_handle_t *h)
{
    struct cairn_watch *w = h->data;

    close(w->fd);
    w->fd = -1;
}

void cairn_watch_stop(struct cairn_watch *w)
{
    if (!w->started)
        return;
    w->started = 0;
    uv_close((uv_handle_t *)&w->poll, on_closed);
    cairn_namemap_free(&w->writing);
}
