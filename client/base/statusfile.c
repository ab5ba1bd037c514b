/*
 * statusfile.c - the daemons' live status files (statusfile.h).  They are
 * replaced by rename, so a read sees one whole version; a file that does
 * not parse is reported as stale rather than trusted.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "statusfile.h"
#include "layout.h"

struct collect {
    int dir_fd;
    struct cairn_daemon_status *v;
    size_t n;
    size_t cap;
    double now;
    char me[256]; /* this_host() */
};

/* This machine's name as cairnd writes it, or "" when unknown (then no
 * file names this machine). */
static void this_host(char me[256])
{
    if (gethostname(me, 255) != 0) {
        me[0] = '\0';
        return;
    }
    me[255] = '\0';
    if (me[0] == '\0')
        strcpy(me, "localhost");
}

/* 1 when the file names this machine: its daemon's pid means something
 * here (PID namespaces aside, which share no spool without sharing a
 * hostname only by accident). */
static int on_this_host(json_t *root, const char *me)
{
    const char *host = json_string_value(json_object_get(root, "host"));

    return host != NULL && me[0] != '\0' && strcmp(host, me) == 0;
}

static int add_one(void *data, const char *name)
{
    struct collect *c = data;
    struct cairn_daemon_status *d;
    json_error_t e;
    double updated;
    int fd;

    if (cairn_grow((void **)&c->v, &c->cap, c->n + 1, sizeof(*c->v)) != 0)
        return -ENOMEM;
    d = &c->v[c->n];
    memset(d, 0, sizeof(*d));
    if ((d->file = strdup(name)) == NULL)
        return -ENOMEM;
    c->n++;
    fd = openat(c->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        d->root = json_loadfd(fd, 0, &e);
        close(fd);
    }
    if (d->root != NULL && !json_is_object(d->root)) {
        json_decref(d->root);
        d->root = NULL;
    }
    updated = d->root
                  ? cairn_client_parse_time(json_string_value(json_object_get(d->root, "updated")))
                  : -1;
    if (updated < 0) {
        d->stale = 1;
        return 0;
    }
    d->age_s = c->now > updated ? c->now - updated : 0;
    d->stale = d->age_s > CAIRN_STATUS_STALE_S;
    /* Idle daemons rewrite their file too (every 5 s): an old one without
     * jobs is taken for an idle daemon only where its pid says it runs
     * (an older cairnd, which did not). */
    d->gone = c->me[0] != '\0' && cairn_status_is_gone(d->root, c->me);
    d->idle = d->stale && json_array_size(json_object_get(d->root, "active")) == 0 &&
              on_this_host(d->root, c->me) && !d->gone;
    return 0;
}

int cairn_status_files_read(struct cairn_client *cl, struct cairn_daemon_status **out, size_t *n)
{
    struct collect c = { 0 };
    struct timespec ts;
    int rc;

    *out = NULL;
    *n = 0;
    c.dir_fd = cairn_client_state_dir(cl, CAIRN_STATUS_DIR);
    if (c.dir_fd == -ENOENT)
        return 0; /* no daemon has reported here yet */
    if (c.dir_fd < 0)
        return c.dir_fd;
    clock_gettime(CLOCK_REALTIME, &ts);
    c.now = (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
    this_host(c.me);
    rc = cairn_client_each_file(c.dir_fd, ".json", add_one, &c);
    close(c.dir_fd);
    if (rc != 0) {
        cairn_status_files_free(c.v, c.n);
        return rc;
    }
    *out = c.v;
    *n = c.n;
    return 0;
}

void cairn_status_files_free(struct cairn_daemon_status *d, size_t n)
{
    size_t i;

    for (i = 0; d != NULL && i < n; i++) {
        free(d[i].file);
        json_decref(d[i].root);
    }
    free(d);
}

static uint64_t count(json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));

    return v > 0 ? (uint64_t)v : 0;
}

int cairn_status_find(const struct cairn_daemon_status *d, size_t n, const char *file,
                      struct cairn_progress *p)
{
    char *want = cairn_name_escape(file);
    size_t i, j;
    int found = 0;

    if (want == NULL)
        return 0;
    for (i = 0; i < n && !found; i++) {
        json_t *active = json_object_get(d[i].root, "active"), *a;

        if (d[i].stale || d[i].gone)
            continue;
        json_array_foreach(active, j, a)
        {
            const char *input = json_string_value(json_object_get(a, "input"));
            if (input == NULL || strcmp(input, want) != 0)
                continue;
            p->daemon = &d[i];
            p->size = count(a, "size");
            p->bytes = count(a, "bytes");
            p->records = count(a, "records");
            found = 1;
            break;
        }
    }
    free(want);
    return found;
}

void cairn_status_label(const struct cairn_daemon_status *d, char *out, size_t size)
{
    const char *host = json_string_value(json_object_get(d->root, "host"));
    json_int_t pid = json_integer_value(json_object_get(d->root, "pid"));

    if (d->root == NULL)
        snprintf(out, size, "%s (unreadable)", d->file);
    else
        snprintf(out, size, "%s pid %lld", host ? host : "?", (long long)pid);
}

void cairn_status_progress_text(const struct cairn_progress *p, char *out, size_t len)
{
    char bytes[32], size[32];

    if (p->size == 0 && p->bytes == 0 && p->records == 0) {
        snprintf(out, len, "starting");
        return;
    }
    cairn_client_bytes(p->bytes, bytes);
    cairn_client_bytes(p->size, size);
    snprintf(out, len, "%s of %s (%.0f%%), %llu record%s", bytes, size,
             p->size ? 100.0 * (double)p->bytes / (double)p->size : 0.0,
             (unsigned long long)p->records, p->records == 1 ? "" : "s");
}
