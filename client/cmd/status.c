/*
 * status.c - `cairn status [--json]`: the queue as the directories tell it
 * (waiting in INPUT, active in .cairn/active/, failed in .cairn/failed/,
 * done from the summaries) and, from the daemons' status files, how far
 * each active job has got.  The directories are the truth; the status
 * files only add progress, so a daemon that never wrote one still shows
 * its jobs as active.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "commands.h"
#include "layout.h"
#include "statusfile.h"

#define SHOW_MAX     20 /* waiting or active jobs listed in the text form */
#define FAILURES_MAX 10 /* latest failures shown */

struct entry {
    char *file;
    uint64_t size;
    double mtime;
    json_t *reason; /* failures: the reason file */
};

struct list {
    int dir_fd;
    struct entry *v;
    size_t n;
    size_t cap;
};

static int add_entry(void *data, const char *name)
{
    struct list *l = data;
    struct entry *e;
    struct stat st;

    if (cairn_grow((void **)&l->v, &l->cap, l->n + 1, sizeof(*l->v)) != 0)
        return -ENOMEM;
    e = &l->v[l->n];
    memset(e, 0, sizeof(*e));
    if (fstatat(l->dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
        e->size = (uint64_t)st.st_size;
        e->mtime = (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
    }
    if ((e->file = strdup(name)) == NULL)
        return -ENOMEM;
    l->n++;
    return 0;
}

static int add_reason(void *data, const char *name)
{
    struct list *l = data;
    json_error_t err;
    int fd, rc;

    if ((rc = add_entry(data, name)) != 0)
        return rc;
    fd = openat(l->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd >= 0) {
        l->v[l->n - 1].reason = json_loadfd(fd, 0, &err);
        close(fd);
    }
    return 0;
}

static int by_mtime(const void *a, const void *b)
{
    const struct entry *x = a, *y = b;

    return x->mtime < y->mtime ? -1 : x->mtime > y->mtime ? 1 : strcmp(x->file, y->file);
}

/* Newest failure first: by the reason's time, else the file's. */
static double failure_time(const struct entry *e)
{
    double t = cairn_client_parse_time(json_string_value(json_object_get(e->reason, "time")));

    return t >= 0 ? t : e->mtime;
}

static int newest_first(const void *a, const void *b)
{
    double x = failure_time(a), y = failure_time(b);

    return x > y ? -1 : x < y ? 1 : 0;
}

static void list_free(struct list *l)
{
    size_t i;

    for (i = 0; i < l->n; i++) {
        free(l->v[i].file);
        json_decref(l->v[i].reason);
    }
    free(l->v);
    if (l->dir_fd >= 0)
        close(l->dir_fd);
}

/* Lists INPUT (sub NULL) or .cairn/<sub>; a state folder not made yet is
 * an empty list. */
static int read_list(struct cairn_client *cl, const char *sub, const char *suffix,
                     int (*fn)(void *, const char *), struct list *l)
{
    memset(l, 0, sizeof(*l));
    l->dir_fd = sub == NULL ? dup(cl->in_fd) : cairn_client_state_dir(cl, sub);
    if (l->dir_fd == -ENOENT) {
        l->dir_fd = -1;
        return 0;
    }
    if (l->dir_fd < 0)
        return cairn_client_fail(cl, sub == NULL ? -errno : l->dir_fd, "cannot read %s/%s%s",
                                 cl->cfg.input_dir, sub ? CAIRN_STATE_DIR "/" : "", sub ? sub : "");
    return cairn_client_each_file(l->dir_fd, suffix, fn, l);
}

struct done_count {
    int dir_fd;
    uint64_t ok;
    uint64_t failed;
};

static int count_summary(void *data, const char *name)
{
    struct done_count *c = data;
    json_error_t e;
    const char *status;
    json_t *s = NULL;
    int fd = openat(c->dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

    if (fd >= 0) {
        s = json_loadfd(fd, 0, &e);
        close(fd);
    }
    status = json_string_value(json_object_get(s, "status"));
    if (status != NULL && strcmp(status, "ok") == 0)
        c->ok++;
    else if (status != NULL)
        c->failed++;
    json_decref(s);
    return 0;
}

static char *job_of(const char *file)
{
    return strndup(file, strlen(file) - CAIRN_JOB_SUFFIX_LEN);
}

static json_t *progress_json(const struct cairn_daemon_status *ds, size_t nd, const char *file)
{
    struct cairn_progress p;
    char who[128];

    if (!cairn_status_find(ds, nd, file, &p))
        return json_null();
    cairn_status_label(p.daemon, who, sizeof(who));
    return json_pack("{s:I,s:I,s:I,s:s}", "size", (json_int_t)p.size, "bytes", (json_int_t)p.bytes,
                     "records", (json_int_t)p.records, "daemon", who);
}

static void print_json(struct cairn_client *cl, struct list *waiting, struct list *active,
                       struct list *failed, struct list *reasons, const struct done_count *done,
                       int have_out, const struct cairn_daemon_status *ds, size_t nd)
{
    json_t *root = json_object(), *w = json_array(), *a = json_array(), *f = json_array(),
           *d = json_array();
    size_t i;
    char *text;

    for (i = 0; i < waiting->n; i++) {
        char *job = job_of(waiting->v[i].file), *esc = job ? cairn_name_escape(job) : NULL;
        json_array_append_new(
            w, json_pack("{s:s?,s:I}", "job", esc, "size", (json_int_t)waiting->v[i].size));
        free(job);
        free(esc);
    }
    for (i = 0; i < active->n; i++) {
        char *job = job_of(active->v[i].file), *esc = job ? cairn_name_escape(job) : NULL;
        json_array_append_new(a, json_pack("{s:s?,s:I,s:o}", "job", esc, "size",
                                           (json_int_t)active->v[i].size, "progress",
                                           progress_json(ds, nd, active->v[i].file)));
        free(job);
        free(esc);
    }
    for (i = 0; i < reasons->n && i < FAILURES_MAX; i++)
        json_array_append(f, reasons->v[i].reason ? reasons->v[i].reason : json_null());
    for (i = 0; i < nd; i++) {
        json_t *o = ds[i].root ? json_deep_copy(ds[i].root) : json_object();
        json_object_set_new(o, "file", json_string(ds[i].file));
        json_object_set_new(o, "stale", json_boolean(ds[i].stale));
        json_object_set_new(o, "idle", json_boolean(ds[i].idle && !ds[i].gone));
        json_object_set_new(o, "gone", json_boolean(ds[i].gone));
        json_object_set_new(o, "age_seconds", json_real(ds[i].age_s));
        json_array_append_new(d, o);
    }
    json_object_set_new(root, "input_dir", json_string(cl->cfg.input_dir));
    json_object_set_new(root, "output_dir", json_string(cl->cfg.output_dir));
    json_object_set_new(root, "waiting", w);
    json_object_set_new(root, "active", a);
    json_object_set_new(root, "done", have_out ? json_integer((json_int_t)done->ok) : json_null());
    json_object_set_new(root, "failed", json_integer((json_int_t)failed->n));
    json_object_set_new(root, "latest_failures", f);
    json_object_set_new(root, "daemons", d);
    text = json_dumps(root, JSON_INDENT(2) | JSON_REAL_PRECISION(6));
    if (text != NULL)
        puts(text);
    free(text);
    json_decref(root);
}

static void print_text(struct cairn_client *cl, struct list *waiting, struct list *active,
                       struct list *failed, struct list *reasons, const struct done_count *done,
                       int have_out, const struct cairn_daemon_status *ds, size_t nd)
{
    char a[32], who[128];
    struct cairn_shown sh = { 0 };
    size_t i;

    printf("spool:   %s\noutput:  %s\n", cairn_shown(&sh, cl->cfg.input_dir),
           cl->cfg.output_dir ? cairn_shown(&sh, cl->cfg.output_dir) : "(not set)");
    if (nd == 0)
        printf("daemons: none reporting (no status file in " CAIRN_STATUS_PATH "/)\n");
    for (i = 0; i < nd; i++) {
        const char *v = json_string_value(json_object_get(ds[i].root, "version"));
        cairn_status_label(&ds[i], who, sizeof(who));
        if (ds[i].gone)
            printf("daemon:  %s: gone (no such process here; it left its status file %s)\n",
                   cairn_shown(&sh, who), cairn_shown(&sh, ds[i].file));
        else if (ds[i].idle)
            printf("daemon:  %s, cairnd %s: idle, no update for %.0f s\n", cairn_shown(&sh, who),
                   v ? cairn_shown(&sh, v) : "?", ds[i].age_s);
        else if (ds[i].stale)
            printf("daemon:  %s: stale, no update for %.0f s (not running?)\n",
                   cairn_shown(&sh, who), ds[i].age_s);
        else
            printf("daemon:  %s, cairnd %s, updated %.1f s ago\n", cairn_shown(&sh, who),
                   v ? cairn_shown(&sh, v) : "?", ds[i].age_s);
    }
    printf("waiting: %zu\n", waiting->n);
    for (i = 0; i < waiting->n && i < SHOW_MAX; i++) {
        /* ".jsonl" is the same once printable: cut it from the copy. */
        const char *f = cairn_shown(&sh, waiting->v[i].file);

        cairn_client_bytes(waiting->v[i].size, a);
        printf("  %.*s  %s\n", (int)(strlen(f) - 6), f, a);
    }
    if (waiting->n > SHOW_MAX)
        printf("  ... and %zu more\n", waiting->n - SHOW_MAX);
    printf("active:  %zu\n", active->n);
    for (i = 0; i < active->n && i < SHOW_MAX; i++) {
        struct cairn_progress p;
        const char *f = cairn_shown(&sh, active->v[i].file);

        printf("  %.*s  ", (int)(strlen(f) - 6), f);
        if (cairn_status_find(ds, nd, active->v[i].file, &p)) {
            char text[96];

            cairn_status_progress_text(&p, text, sizeof(text));
            cairn_status_label(p.daemon, who, sizeof(who));
            printf("%s, on %s\n", text, cairn_shown(&sh, who));
        } else {
            cairn_client_bytes(active->v[i].size, a);
            printf("%s, progress unknown (no live daemon reports it)\n", a);
        }
    }
    if (active->n > SHOW_MAX)
        printf("  ... and %zu more\n", active->n - SHOW_MAX);
    if (have_out)
        printf("done:    %llu\n", (unsigned long long)done->ok);
    else
        printf("done:    unknown (%s)\n", cl->msg ? cl->msg : "no output directory");
    printf("failed:  %zu\n", failed->n);
    if (reasons->n > 0)
        printf("latest failures:\n");
    for (i = 0; i < reasons->n && i < FAILURES_MAX; i++) {
        json_t *r = reasons->v[i].reason;
        const char *job = json_string_value(json_object_get(r, "job"));
        const char *why = json_string_value(json_object_get(r, "reason"));
        const char *when = json_string_value(json_object_get(r, "time"));
        printf("  %s  %s: %s\n", when ? cairn_shown(&sh, when) : "?",
               cairn_shown(&sh, job ? job : reasons->v[i].file),
               why ? cairn_shown(&sh, why) : "(reason unreadable)");
    }
    cairn_shown_free(&sh);
}

int cairn_cmd_status(struct cairn_client *cl, int as_json)
{
    struct list waiting, active, failed, reasons;
    struct done_count done = { .dir_fd = -1 };
    struct cairn_daemon_status *ds = NULL;
    size_t nd = 0;
    int rc, have_out;

    memset(&waiting, 0, sizeof(waiting));
    active = failed = reasons = waiting;
    waiting.dir_fd = active.dir_fd = failed.dir_fd = reasons.dir_fd = -1;
    if ((rc = cairn_client_open_input(cl, 0)) != 0)
        return rc;
    /* Without an output directory the queue is still worth showing. */
    have_out = cl->cfg.output_dir != NULL && cairn_client_open_output(cl) == 0;
    if ((rc = read_list(cl, NULL, CAIRN_JOB_SUFFIX, add_entry, &waiting)) != 0 ||
        (rc = read_list(cl, CAIRN_ACTIVE_DIR, CAIRN_JOB_SUFFIX, add_entry, &active)) != 0 ||
        (rc = read_list(cl, CAIRN_FAILED_DIR, CAIRN_JOB_SUFFIX, add_entry, &failed)) != 0 ||
        (rc = read_list(cl, CAIRN_FAILED_DIR, CAIRN_REASON_SUFFIX, add_reason, &reasons)) != 0)
        goto out;
    if (have_out) {
        done.dir_fd = cl->out_fd;
        if ((rc = cairn_client_each_file(cl->out_fd, CAIRN_SUMMARY_SUFFIX, count_summary, &done)))
            goto out;
    }
    if ((rc = cairn_status_files_read(cl, &ds, &nd)) != 0) {
        rc = cairn_client_fail(cl, rc, "cannot read %s/" CAIRN_STATUS_PATH ": %s",
                               cl->cfg.input_dir, strerror(-rc));
        goto out;
    }
    if (waiting.n > 0) /* qsort(NULL, 0) is undefined */
        qsort(waiting.v, waiting.n, sizeof(*waiting.v), by_mtime);
    if (active.n > 0) /* qsort(NULL, 0) is undefined */
        qsort(active.v, active.n, sizeof(*active.v), by_mtime);
    if (reasons.n > 0) /* qsort(NULL, 0) is undefined */
        qsort(reasons.v, reasons.n, sizeof(*reasons.v), newest_first);
    if (as_json)
        print_json(cl, &waiting, &active, &failed, &reasons, &done, have_out, ds, nd);
    else
        print_text(cl, &waiting, &active, &failed, &reasons, &done, have_out, ds, nd);
out:
    cairn_status_files_free(ds, nd);
    list_free(&waiting);
    list_free(&active);
    list_free(&failed);
    list_free(&reasons);
    return rc;
}
