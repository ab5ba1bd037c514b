/*
 * wait.c - `cairn submit --wait`: inotify on the output directory until
 * every job's summary is there.  The daemon renames a summary into place
 * last, so its name appearing means the job is finished and the file is
 * whole.  The watch starts before the first look, so a summary written
 * in between is seen by the look, and one written after by the watch.
 *
 * On a terminal a progress line is redrawn on stderr from the daemons'
 * status files (statusfile.h); off one nothing but the outcome is printed.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <uv.h>

#include "names.h"
#include "layout.h"
#include "runs.h"
#include "statusfile.h"
#include "submit.h"

#define PROGRESS_MS 500
#define POLL_MS     1000 /* without inotify: a look this often */
/* A daemon that has just said "watching" writes its status file on its
 * next loop turn: look for daemons this long after the wait begins. */
#define NO_DAEMON_GRACE_MS 2000

enum {
    PENDING,
    OK,
    FAILED,
    TIMED_OUT
};

struct waiter {
    struct cairn_client *cl;
    const struct cairn_submitted *jobs;
    size_t n;
    char **sum; /* each job's summary name in the output directory */
    char **ran; /* each finished job's file, as it ran (NAME~N.jsonl or NAME.jsonl) */
    int *state;
    size_t pending;
    double timeout_s;
    int progress;
    int drawn; /* a progress line is on the terminal */
    uv_loop_t loop;
    uv_fs_event_t watch;
    uv_timer_t timeout;
    uv_timer_t tick;
    uv_timer_t poll;    /* inotify refused: a look every POLL_MS instead */
    uv_timer_t daemons; /* once, NO_DAEMON_GRACE_MS in: is any daemon reporting? */
    struct cairn_wait_result *r;
};

static void clear_line(struct waiter *w)
{
    if (w->drawn) {
        fputs("\r\033[K", stderr);
        fflush(stderr);
        w->drawn = 0;
    }
}

static void print_outcome(struct waiter *w, size_t i, json_t *s)
{
    const char *status = json_string_value(json_object_get(s, "status"));
    const char *reason = json_string_value(json_object_get(s, "reason"));

    const char *esc = json_string_value(json_object_get(s, "job"));
    /* The summary's "job" is escaped (cairn_name_escape: a backslash, a
     * byte that is not UTF-8); the job's base is the name's raw bytes.
     * Like is compared with like: the bytes. */
    char *job = esc != NULL ? cairn_client_unescape(esc) : NULL;
    struct cairn_shown sh = { 0 };
    const char *base = cairn_shown(&sh, w->jobs[i].base);

    if (job == NULL && esc != NULL)
        job = strdup(esc); /* not cairnd's escaping: the text as it is */
    w->ran[i] = cairn_asprintf("%s.jsonl", job != NULL ? job : w->jobs[i].base);
    clear_line(w);
    /* A used name ran as NAME~N: say where its outputs are. */
    if (job != NULL && strcmp(job, w->jobs[i].base) != 0)
        printf("%s: ran as %s\n", base, cairn_shown(&sh, job));
    free(job);
    if (status != NULL && strcmp(status, "ok") == 0) {
        json_int_t records = json_integer_value(json_object_get(s, "records"));
        json_int_t ok = json_integer_value(json_object_get(s, "ok"));

        json_int_t matches = json_integer_value(json_object_get(s, "matches"));
        json_int_t mismatches = json_integer_value(json_object_get(s, "mismatches"));
        /* The evaluator's words, as the report's: the records' "expected"
         * are the given answers, cairn's the exact ones. */
        char graded[96] = "no given answers";

        if (matches + mismatches > 0)
            snprintf(graded, sizeof(graded), "given vs exact answers: %lld match, %lld differ",
                     (long long)matches, (long long)mismatches);
        printf("%s: ok, %lld record%s: %lld ok, %lld error%s; %s (%.3f s)\n", base,
               (long long)records, records == 1 ? "" : "s", (long long)ok,
               (long long)(records - ok), records - ok == 1 ? "" : "s", graded,
               json_number_value(json_object_get(s, "wall_seconds")));
        w->state[i] = OK;
        w->r->ok++;
        w->r->mismatched += mismatches > 0; /* for --fail-on-mismatch */
    } else {
        printf("%s: failed: %s\n", base,
               reason ? cairn_shown(&sh, reason)
               : s    ? "(no reason given)"
                      : "its summary cannot be read");
        w->state[i] = FAILED;
        w->r->failed++;
    }
    cairn_shown_free(&sh);
    fflush(stdout);
    w->pending--;
}

/* The summary is published before the input leaves active/ (for done/ or
 * failed/): wait for that too, briefly, so that what the user runs next
 * (`cairn status`, a look at failed/) sees the job where it ends up. */
static void settle(struct waiter *w)
{
    const struct timespec step = { 0, 2 * 1000 * 1000 };
    size_t i;
    int tries;

    for (i = 0; i < w->n; i++) {
        struct cairn_where at;

        if (w->ran[i] == NULL)
            continue;
        for (tries = 0; tries < 1000; tries++) { /* 2 s at most */
            if (cairn_client_locate(w->cl, w->ran[i], &at) != 0 || !at.active)
                break;
            nanosleep(&step, NULL);
        }
    }
}

static void stop(struct waiter *w)
{
    uv_fs_event_stop(&w->watch);
    uv_timer_stop(&w->timeout);
    uv_timer_stop(&w->tick);
    uv_timer_stop(&w->poll);
    uv_timer_stop(&w->daemons);
}

/* 1 when summary s (the file exact: NAME.summary.json, or another run of
 * the name) is job j's own run: its input_inode is j's file's, and it
 * started after j's file was handed over (an inode is reused once its
 * file is deleted, and a deleted file's job had finished before).
 * Without an identity (ino 0) or an input_inode (an older daemon), the
 * name alone decides. */
static int own_run(const struct cairn_submitted *j, json_t *s, int exact)
{
    json_t *ino = json_object_get(s, "input_inode");
    struct timespec t;

    if (j->ino == 0 || !json_is_integer(ino))
        return exact;
    return (unsigned long long)json_integer_value(ino) == (unsigned long long)j->ino &&
           cairn_client_started(s, &t) == 0 &&
           (long long)t.tv_sec * 1000 + t.tv_nsec / 1000000 >=
               (long long)j->since.tv_sec * 1000 + j->since.tv_nsec / 1000000;
}

/* name, a file in the output directory, is the summary of a run of job
 * i's name (runs.h). */
static int run_of(const struct waiter *w, size_t i, const char *name)
{
    return strcmp(name, w->sum[i]) == 0 ||
           cairn_client_is_run(w->jobs[i].base, name, CAIRN_SUMMARY_SUFFIX);
}

/* The summary name: every pending job it is the finished run of. */
static void look_at(struct waiter *w, const char *name)
{
    json_t *s = NULL;
    int loaded = 0;
    size_t i;

    for (i = 0; i < w->n; i++) {
        int exact;

        if (w->state[i] != PENDING || !run_of(w, i, name))
            continue;
        exact = strcmp(name, w->sum[i]) == 0;
        if (!loaded) {
            json_error_t e;
            int fd = openat(w->cl->out_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

            if (fd < 0)
                return;
            s = json_loadfd(fd, 0, &e);
            close(fd);
            loaded = 1;
        }
        if (s == NULL ? exact && w->jobs[i].ino == 0 : own_run(&w->jobs[i], s, exact))
            print_outcome(w, i, s);
    }
    json_decref(s);
}

/* cairn_dir_each's callback: stops once no job is pending. */
static int look_at_each(void *data, const char *name)
{
    struct waiter *w = data;

    look_at(w, name);
    return w->pending == 0;
}

/* Every pending job whose summary is there now is finished.  name: the
 * one file an event named, or NULL to look at all. */
static void look(struct waiter *w, const char *name)
{
    size_t i;
    int known = 0;

    if (name != NULL) {
        look_at(w, name);
    } else {
        for (i = 0; i < w->n; i++) {
            if (w->state[i] == PENDING)
                look_at(w, w->sum[i]);
            known |= w->state[i] == PENDING && w->jobs[i].ino != 0;
        }
        /* A job of a used name runs as NAME~N: its summary is one of
         * those, found by its input_inode. */
        if (known)
            (void)cairn_dir_each(w->cl->out_fd, look_at_each, w); /* best effort, like a look */
    }
    if (w->pending == 0)
        stop(w);
}

static void on_event(uv_fs_event_t *h, const char *name, int events, int status)
{
    (void)events;
    (void)status;
    /* An overflowed queue reports no name: then look at all. */
    look(h->data, name);
}

static const char *where_now(struct waiter *w, size_t i)
{
    struct cairn_where at;

    if (cairn_client_locate(w->cl, w->jobs[i].file, &at) != 0)
        return "somewhere";
    return at.active    ? "active (being processed)"
           : at.waiting ? "waiting in the spool"
                        : "between states";
}

static void on_timeout(uv_timer_t *t)
{
    struct waiter *w = t->data;
    struct cairn_shown sh = { 0 };
    size_t i;

    look(w, NULL); /* a summary may have come with this very tick */
    clear_line(w);
    for (i = 0; i < w->n; i++) {
        if (w->state[i] != PENDING)
            continue;
        printf("%s: timed out after %g s; it is %s\n", cairn_shown(&sh, w->jobs[i].base),
               w->timeout_s, where_now(w, i));
        w->state[i] = TIMED_OUT;
        w->r->timed_out++;
        w->pending--;
    }
    cairn_shown_free(&sh);
    fflush(stdout);
    stop(w);
}

static void draw(struct waiter *w)
{
    struct cairn_daemon_status *ds = NULL;
    struct cairn_progress p;
    size_t nd = 0, i, done = w->n - w->pending;
    char text[96];

    for (i = 0; i < w->n && w->state[i] != PENDING; i++)
        ;
    if (i == w->n)
        return;
    cairn_status_files_read(w->cl, &ds, &nd);
    {
        struct cairn_shown sh = { 0 };

        fprintf(stderr, "\r\033[Kcairn: %s: ", cairn_shown(&sh, w->jobs[i].base));
        cairn_shown_free(&sh);
    }
    if (cairn_status_find(ds, nd, w->jobs[i].file, &p)) {
        cairn_status_progress_text(&p, text, sizeof(text));
        fputs(text, stderr);
    } else {
        fputs(where_now(w, i), stderr);
    }
    if (w->n > 1)
        fprintf(stderr, " [%zu/%zu jobs done]", done, w->n);
    fflush(stderr);
    w->drawn = 1;
    cairn_status_files_free(ds, nd);
}

static void on_tick(uv_timer_t *t)
{
    draw(t->data);
}

static void on_poll(uv_timer_t *t)
{
    look(t->data, NULL);
}

/* Watches the output directory.  Where inotify refuses for want of a
 * resource (the user's limits, shared by all their programs, used up),
 * the summaries are looked for every POLL_MS instead: later by that much,
 * never missed.  0, or the error when no watch at all can be had. */
static int start_watch(struct waiter *w)
{
    int rc = uv_fs_event_start(&w->watch, on_event, w->cl->cfg.output_dir, 0);

    if (!cairn_is_out_of_resources(rc))
        return rc;
    clear_line(w);
    fprintf(stderr,
            "cairn: warning: cannot watch %s with inotify: %s (sysctl "
            "fs.inotify.max_user_instances and max_user_watches are the limits); looking for "
            "the summaries every %d ms instead\n",
            w->cl->cfg.output_dir, uv_strerror(rc), POLL_MS);
    uv_timer_start(&w->poll, on_poll, POLL_MS, POLL_MS);
    return 0;
}

static void on_close(uv_handle_t *h)
{
    (void)h;
}

/* Waiting on a spool no daemon serves would wait for ever in silence: say
 * so once (the wait goes on: a daemon may be about to start). */
static void warn_if_no_daemon(uv_timer_t *t)
{
    struct waiter *w = t->data;
    struct cairn_client *cl = w->cl;
    struct cairn_daemon_status *ds;
    size_t nd, i, live = 0;

    if (cairn_status_files_read(cl, &ds, &nd) != 0)
        return;
    for (i = 0; i < nd; i++)
        live += !ds[i].stale || ds[i].idle;
    cairn_status_files_free(ds, nd);
    if (live == 0) {
        clear_line(w);
        fprintf(stderr,
                "cairn: warning: no daemon is reporting on %s (see cairn status): waiting "
                "anyway; start cairnd there, or run cairnd --once\n",
                cl->cfg.input_dir);
    }
}

int cairn_client_wait(struct cairn_client *cl, const struct cairn_submitted *jobs, size_t n,
                      double timeout_s, int progress, struct cairn_wait_result *r)
{
    struct waiter w = { .cl = cl,
                        .jobs = jobs,
                        .n = n,
                        .pending = n,
                        .timeout_s = timeout_s,
                        .progress = progress,
                        .r = r };
    size_t i;
    int rc;

    memset(r, 0, sizeof(*r));
    w.sum = calloc(n ? n : 1, sizeof(*w.sum));
    w.ran = calloc(n ? n : 1, sizeof(*w.ran));
    w.state = calloc(n ? n : 1, sizeof(*w.state));
    if (w.sum == NULL || w.ran == NULL || w.state == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    for (i = 0; i < n; i++) {
        char *ob = cairn_output_base(jobs[i].file);
        w.sum[i] = ob != NULL ? cairn_asprintf("%s.summary.json", ob) : NULL;
        free(ob);
        if (w.sum[i] == NULL) {
            rc = -ENOMEM;
            goto out;
        }
    }
    if ((rc = uv_loop_init(&w.loop)) != 0)
        goto out;
    uv_fs_event_init(&w.loop, &w.watch);
    uv_timer_init(&w.loop, &w.timeout);
    uv_timer_init(&w.loop, &w.tick);
    uv_timer_init(&w.loop, &w.poll);
    uv_timer_init(&w.loop, &w.daemons);
    w.watch.data = w.timeout.data = w.tick.data = w.poll.data = w.daemons.data = &w;
    rc = start_watch(&w);
    if (rc != 0) {
        rc = cairn_client_fail(cl, rc, "cannot watch %s: %s", cl->cfg.output_dir, uv_strerror(rc));
    } else {
        look(&w, NULL);
        if (w.pending > 0)
            uv_timer_start(&w.daemons, warn_if_no_daemon, NO_DAEMON_GRACE_MS, 0);
        if (w.pending > 0 && timeout_s >= 0)
            uv_timer_start(&w.timeout, on_timeout, (uint64_t)(timeout_s * 1000.0), 0);
        if (w.pending > 0 && progress) {
            draw(&w);
            uv_timer_start(&w.tick, on_tick, PROGRESS_MS, PROGRESS_MS);
        }
        uv_run(&w.loop, UV_RUN_DEFAULT);
        clear_line(&w);
        settle(&w);
    }
    uv_close((uv_handle_t *)&w.watch, on_close);
    uv_close((uv_handle_t *)&w.timeout, on_close);
    uv_close((uv_handle_t *)&w.tick, on_close);
    uv_close((uv_handle_t *)&w.poll, on_close);
    uv_close((uv_handle_t *)&w.daemons, on_close);
    uv_run(&w.loop, UV_RUN_DEFAULT);
    uv_loop_close(&w.loop);
out:
    for (i = 0; w.sum != NULL && i < n; i++)
        free(w.sum[i]);
    for (i = 0; w.ran != NULL && i < n; i++)
        free(w.ran[i]);
    free(w.sum);
    free(w.ran);
    free(w.state);
    return rc;
}

int cairn_cmd_wait(struct cairn_client *cl, char *const *names, size_t n, double timeout_s,
                   int progress, struct cairn_wait_result *r)
{
    struct cairn_submitted *jobs = calloc(n ? n : 1, sizeof(*jobs));
    size_t i;
    int rc = 0;

    memset(r, 0, sizeof(*r));
    if (jobs == NULL)
        return -ENOMEM;
    if ((rc = cairn_client_open_input(cl, 0)) != 0 || (rc = cairn_client_open_output(cl)) != 0)
        goto out;
    /* Every name must be a job somewhere: waiting for a typo would never
     * end.  Which run of it is awaited: runs.h (the file waiting in the
     * spool, else the run in active/, else the latest finished run). */
    for (i = 0; i < n && rc == 0; i++) {
        struct cairn_where w;
        int found;

        rc = cairn_client_job_names(cl, names[i], &jobs[i].file, &jobs[i].base);
        if (rc == 0)
            rc = cairn_client_locate(cl, jobs[i].file, &w);
        if (rc != 0)
            break;
        found = cairn_client_find_run(cl, &jobs[i]);
        if (found < 0)
            rc = found;
        else if (found == 0 && !w.waiting && !w.active && !w.summary && !w.failed)
            rc = cairn_client_fail(cl, -ENOENT,
                                   "no job %s: not in the spool %s, and no "
                                   "summary in %s",
                                   jobs[i].base, cl->cfg.input_dir, cl->cfg.output_dir);
    }
    if (rc == 0)
        rc = cairn_client_wait(cl, jobs, n, timeout_s, progress, r);
out:
    cairn_submitted_free(jobs, n);
    return rc;
}
