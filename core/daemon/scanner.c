/*
 * scanner.c - directory scans as pool work items (scanner.h).
 */
#include "scanner.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* In want: a work item is owed, even one that only repairs. */
#define CAIRN_SCAN_PENDING 0x100

static void scan_done(uv_work_t *req, int status);

static int list_add(struct cairn_scan_list *l, const char *name, const struct stat *st)
{
    struct cairn_scan_entry *e;
    int rc = cairn_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v));

    if (rc != 0)
        return rc;
    e = &l->v[l->n];
    if ((e->name = strdup(name)) == NULL)
        return -ENOMEM;
    e->st = *st;
    l->n++;
    return 0;
}

void cairn_scan_list_free(struct cairn_scan_list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++)
        free(l->v[i].name);
    free(l->v);
    *l = (struct cairn_scan_list){ 0 };
}

struct listing {
    int dfd;
    struct cairn_scan_list *jobs;
    struct cairn_scan_list *ignored; /* NULL: job files only */
};

static int list_one(void *data, const char *name)
{
    struct listing *l = data;
    int job = cairn_spool_is_job_name(name);
    struct stat st;

    if (!job && (l->ignored == NULL || !cairn_spool_is_never_taken(name)))
        return 0;
    if (fstatat(l->dfd, name, &st, AT_SYMLINK_NOFOLLOW) != 0)
        return 0; /* gone since readdir: nothing to do */
    if (job)
        return list_add(l->jobs, name, &st);
    return S_ISREG(st.st_mode) ? list_add(l->ignored, name, &st) : 0;
}

/* Lists dfd's job files into jobs and, when ignored is given, the other
 * regular files a producer left there that no scan will ever take. */
static int list_dir(int dfd, struct cairn_scan_list *jobs, struct cairn_scan_list *ignored)
{
    struct listing l = { .dfd = dfd, .jobs = jobs, .ignored = ignored };

    return cairn_dir_each(dfd, list_one, &l);
}

static void scan_work(uv_work_t *req)
{
    struct cairn_scanner *s = req->data;
    struct cairn_scan *c = &s->cur;
    size_t i;

    /* Before the listing: a job claimed into a recreated active/ must not
     * be missed by the listing that follows. */
    c->repaired = cairn_spool_repair((struct cairn_spool *)s->spool);
    clock_gettime(CLOCK_REALTIME, &c->began);
    if (c->what & CAIRN_SCAN_ACTIVE)
        c->active.rc = list_dir(s->spool->active_fd, &c->active, NULL);
    if (c->what & CAIRN_SCAN_FULL)
        c->input.rc = list_dir(s->spool->in_fd, &c->input, &c->ignored);
    for (i = 0; i < c->n_names && c->found.rc == 0; i++) {
        struct stat st;

        if (fstatat(s->spool->in_fd, c->names[i], &st, AT_SYMLINK_NOFOLLOW) == 0)
            c->found.rc = list_add(&c->found, c->names[i], &st);
    }
}

static void free_names(char **names, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
}

static void scan_free(struct cairn_scan *c)
{
    cairn_scan_list_free(&c->input);
    cairn_scan_list_free(&c->active);
    cairn_scan_list_free(&c->ignored);
    cairn_scan_list_free(&c->found);
    free_names(c->names, c->n_names);
    c->names = NULL;
    c->n_names = 0;
}

/* Starts a work item for everything gathered so far.  uv_queue_work
 * fails only for a NULL work callback, and nothing cancels the item, so
 * scan_done's status is 0. */
static void start(struct cairn_scanner *s)
{
    s->cur = (struct cairn_scan){ .what = s->want & ~CAIRN_SCAN_PENDING,
                                  .names = s->want_names,
                                  .n_names = s->n_want };
    s->work.data = s;
    (void)uv_queue_work(s->loop, &s->work, scan_work, scan_done);
    s->running = 1;
    s->want = 0;
    s->want_names = NULL;
    s->n_want = s->cap_want = 0;
}

static void scan_done(uv_work_t *req, int status)
{
    struct cairn_scanner *s = req->data;
    /* The listing moves out of s first: the done callback may ask for
     * another scan, which starts at once and fills s->cur anew. */
    struct cairn_scan c = s->cur;

    (void)status; /* 0: see start */
    s->cur = (struct cairn_scan){ 0 };
    s->running = 0;
    if (!s->stopped)
        s->done(s, &c);
    scan_free(&c);
    if (s->want != 0 && !s->running && !s->stopped)
        start(s);
}

int cairn_scan_list_jobs(int dfd, struct cairn_scan_list *jobs)
{
    return list_dir(dfd, jobs, NULL);
}

void cairn_scanner_init(struct cairn_scanner *s, uv_loop_t *loop, const struct cairn_spool *spool,
                        cairn_scanner_done_fn done, void *data)
{
    *s = (struct cairn_scanner){ .loop = loop, .spool = spool, .done = done, .data = data };
}

int cairn_scanner_request(struct cairn_scanner *s, int what)
{
    if (s->stopped)
        return 0;
    s->want |= what | CAIRN_SCAN_PENDING;
    if (!s->running)
        start(s);
    return 0;
}

int cairn_scanner_lookup(struct cairn_scanner *s, const char *name)
{
    char *copy;
    int rc;

    if (s->stopped)
        return 0;
    if ((copy = strdup(name)) == NULL)
        return -ENOMEM;
    rc = cairn_grow((void **)&s->want_names, &s->cap_want, s->n_want + 1, sizeof(char *));
    if (rc != 0) {
        free(copy);
        return rc;
    }
    s->want_names[s->n_want++] = copy;
    return cairn_scanner_request(s, 0);
}

int cairn_scanner_busy(const struct cairn_scanner *s)
{
    return s->running || s->want != 0;
}

void cairn_scanner_stop(struct cairn_scanner *s)
{
    s->stopped = 1;
}

void cairn_scanner_free(struct cairn_scanner *s)
{
    free_names(s->want_names, s->n_want);
    s->want_names = NULL;
    s->n_want = s->cap_want = 0;
    s->want = 0;
}
