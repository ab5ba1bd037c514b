/*
 * wait.c - `cairn submit --wait`: inotify on the output directory until
 * every job's summary is there.  The daemon renames a summary into place
 * last, so its name appearing means the job is finished and the file is
 * whole.  The watch starts before the first look, so a summary written
 * in between is seen by the look, and one written after by the watch.
 * The output directory is followed by its path (outdirs.h), and a job's
 * run is known by its input's identity, never by a time (runs.h).
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

#include "layout.h"
#include "names.h"
#include "outdirs.h"
#include "runs.h"
#include "statusfile.h"
#include "submit.h"

#define PROGRESS_MS 500
/* A daemon that has just said "watching" writes its status file on its
 * next loop turn: look for daemons this long after the wait begins. */
#define NO_DAEMON_GRACE_MS 2000

enum {
    PENDING,
    OK,
    FAILED,
    TIMED_OUT
};

/* A summary that is a job's run, found by one look: the first (its
 * summary kept), and the name of another if one is found too. */
struct candidate {
    json_t *s;
    int dir;
    char *name;
    char *other;
};

struct waiter {
    struct cairn_client *cl;
    const struct cairn_submitted *jobs;
    size_t n;
    char **sum;             /* each job's summary name in the output directory */
    char **ran;             /* each finished job's file, as it ran (NAME~N.jsonl or NAME.jsonl) */
    char **as;              /* each job's file as a summary's submitted_as writes it (escaped) */
    struct candidate *cand; /* what one look found to be each job's run */
    int *state;
    size_t pending;
    double timeout_s;
    int progress;
    int drawn; /* a progress line is on the terminal */
    uv_loop_t loop;
    struct cairn_outdirs od;
    uv_timer_t timeout;
    uv_timer_t tick;
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

static void print_outcome(struct waiter *w, size_t i, json_t *s, int dir)
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
    w->ran[i] = cairn_job_file_name(job != NULL ? job : w->jobs[i].base);
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
    /* A job that ran while the output directory was replaced finished in
     * the one it began in: say where that is now. */
    if (!cairn_outdirs_current(&w->od, dir)) {
        char *where = cairn_outdirs_where(dir);
        struct cairn_shown sw = { 0 };

        printf("%s: its outputs are in %s (the output directory it began in; %s is another "
               "directory now)\n",
               cairn_shown(&sh, w->jobs[i].base), where != NULL ? cairn_shown(&sw, where) : "?",
               w->cl->cfg.output_dir);
        cairn_shown_free(&sw);
        free(where);
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
    cairn_outdirs_close(&w->od);
    uv_timer_stop(&w->timeout);
    uv_timer_stop(&w->tick);
    uv_timer_stop(&w->daemons);
}

/* 1 when summary s (the file name in the output directory, st its own
 * identity: NAME.summary.json, or another run of the name) is job i's
 * run (runs.h): its input_inode is the file's, it was handed over under
 * the file's name, and it is the run's known summary, or else none that
 * was there before the file was handed over.  Without an identity (ino
 * 0) or an input_inode (an older daemon), the name alone decides. */
static int own_run(const struct waiter *w, size_t i, json_t *s, const char *name,
                   const struct stat *st)
{
    const struct cairn_submitted *j = &w->jobs[i];
    json_t *ino = json_object_get(s, "input_inode");
    const char *as = json_string_value(json_object_get(s, "submitted_as"));
    int exact = strcmp(name, w->sum[i]) == 0;
    size_t k;

    if (j->ino == 0 || !json_is_integer(ino))
        return exact;
    if ((unsigned long long)json_integer_value(ino) != (unsigned long long)j->ino ||
        (as != NULL && strcmp(as, w->as[i]) != 0))
        return 0;
    if (j->ran_as != NULL)
        return strcmp(name, j->ran_as) == 0;
    for (k = 0; k < j->n_before; k++)
        if (j->before[k].dev == st->st_dev && j->before[k].ino == st->st_ino)
            return 0;
    return 1;
}

/* name, a file in the output directory, is the summary of a run of job
 * i's name (runs.h). */
static int run_of(const struct waiter *w, size_t i, const char *name)
{
    return strcmp(name, w->sum[i]) == 0 ||
           cairn_client_is_run(w->jobs[i].base, name, CAIRN_SUMMARY_SUFFIX);
}

/* Notes summary name of directory dir as job i's run. */
static void candidate(struct waiter *w, size_t i, int dir, const char *name, json_t *s)
{
    struct candidate *c = &w->cand[i];
    char *copy;

    if (c->name != NULL && c->dir == dir && strcmp(c->name, name) == 0)
        return; /* the same file again (its exact name, then the scan) */
    if (c->name != NULL && c->other != NULL && strcmp(name, c->other) >= 0)
        return; /* another run, but the message names the lowest */
    /* Out of memory, it is not noted: the next look sees it again. */
    if ((copy = strdup(name)) == NULL)
        return;
    if (c->name == NULL) {
        c->name = copy;
        c->dir = dir;
        c->s = json_incref(s);
    } else {
        free(c->other);
        c->other = copy;
    }
}

/* The summary name in directory dir: a candidate of every pending job it
 * is the finished run of. */
static void look_at(struct waiter *w, int dir, const char *name)
{
    json_t *s = NULL;
    struct stat st;
    int loaded = 0;
    size_t i;

    for (i = 0; i < w->n; i++) {
        if (w->state[i] != PENDING || !run_of(w, i, name))
            continue;
        if (!loaded) {
            json_error_t e;
            int fd = openat(dir, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);

            if (fd < 0)
                return;
            if (fstat(fd, &st) != 0) {
                close(fd);
                return;
            }
            s = json_loadfd(fd, 0, &e);
            close(fd);
            loaded = 1;
        }
        if (s == NULL ? strcmp(name, w->sum[i]) == 0 && w->jobs[i].ino == 0
                      : own_run(w, i, s, name, &st))
            candidate(w, i, dir, name, s);
    }
    json_decref(s);
}

/* name without ".summary.json", for a message (malloc'd). */
static char *job_of(const char *name)
{
    size_t n = strlen(name), sl = strlen(CAIRN_SUMMARY_SUFFIX);

    return strndup(name, n > sl ? n - sl : n);
}

/* Each job with a candidate is finished, unless the look found two runs
 * of its file: which is its own cannot be told, and is said. */
static void decide(struct waiter *w)
{
    size_t i;

    for (i = 0; i < w->n; i++) {
        struct candidate *c = &w->cand[i];

        if (c->name == NULL)
            continue;
        if (w->state[i] == PENDING && c->other == NULL) {
            print_outcome(w, i, c->s, c->dir);
        } else if (w->state[i] == PENDING) {
            char *a = job_of(strcmp(c->name, c->other) < 0 ? c->name : c->other);
            char *b = job_of(strcmp(c->name, c->other) < 0 ? c->other : c->name);
            struct cairn_shown sh = { 0 }, sa = { 0 }, sb = { 0 }, sf = { 0 };

            clear_line(w);
            printf("%s: cannot tell which run is this job's: %s and %s both ran the file it was "
                   "handed over as (%s, inode %llu); see their summaries in %s\n",
                   cairn_shown(&sh, w->jobs[i].base), a ? cairn_shown(&sa, a) : "?",
                   b ? cairn_shown(&sb, b) : "?", cairn_shown(&sf, w->jobs[i].file),
                   (unsigned long long)w->jobs[i].ino, w->cl->cfg.output_dir);
            fflush(stdout);
            cairn_shown_free(&sh);
            cairn_shown_free(&sa);
            cairn_shown_free(&sb);
            cairn_shown_free(&sf);
            free(a);
            free(b);
            w->state[i] = FAILED;
            w->r->failed++;
            w->pending--;
        }
        json_decref(c->s);
        free(c->name);
        free(c->other);
        memset(c, 0, sizeof(*c));
    }
}

struct scan {
    struct waiter *w;
    int dir;
};

/* cairn_dir_each's callback. */
static int look_at_each(void *data, const char *name)
{
    struct scan *sc = data;

    look_at(sc->w, sc->dir, name);
    return 0;
}

/* Every pending job whose summary is in directory dir now is finished.
 * name: the one file an event named, or NULL to look at all. */
static void look_dir(struct waiter *w, int dir, const char *name)
{
    size_t i;
    int known = 0;

    if (w->pending == 0)
        return;
    if (name != NULL) {
        look_at(w, dir, name);
    } else {
        for (i = 0; i < w->n; i++)
            known |= w->state[i] == PENDING && w->jobs[i].ino != 0;
        if (known) {
            /* A job of a used name runs as NAME~N: its summary is one of
             * those, found by its input_inode. */
            struct scan sc = { w, dir };

            (void)cairn_dir_each(dir, look_at_each, &sc); /* best effort, like a look */
        } else {
            for (i = 0; i < w->n; i++)
                if (w->state[i] == PENDING)
                    look_at(w, dir, w->sum[i]);
        }
    }
    decide(w);
    if (w->pending == 0)
        stop(w);
}

/* outdirs.h's look: an overflowed queue reports no name, then all. */
static void on_look(void *data, int dir, const char *name)
{
    look_dir(data, dir, name);
}

static void look(struct waiter *w)
{
    cairn_outdirs_look_all(&w->od);
    if (w->pending == 0)
        stop(w);
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

    look(w); /* a summary may have come with this very tick */
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

static void warn(void *data, const char *text)
{
    clear_line(data);
    fprintf(stderr, "cairn: warning: %s\n", text);
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
    const struct cairn_outdirs_ops ops = { .look = on_look, .warn = warn, .data = &w };
    size_t i;
    int rc;

    memset(r, 0, sizeof(*r));
    w.sum = calloc(n ? n : 1, sizeof(*w.sum));
    w.ran = calloc(n ? n : 1, sizeof(*w.ran));
    w.as = calloc(n ? n : 1, sizeof(*w.as));
    w.cand = calloc(n ? n : 1, sizeof(*w.cand));
    w.state = calloc(n ? n : 1, sizeof(*w.state));
    if (w.sum == NULL || w.ran == NULL || w.as == NULL || w.cand == NULL || w.state == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    for (i = 0; i < n; i++) {
        char *ob = cairn_output_base(jobs[i].file);
        w.sum[i] = ob != NULL ? cairn_output_name(ob, CAIRN_SUMMARY_SUFFIX) : NULL;
        w.as[i] = cairn_name_escape(jobs[i].file);
        free(ob);
        if (w.sum[i] == NULL || w.as[i] == NULL) {
            rc = -ENOMEM;
            goto out;
        }
    }
    if ((rc = uv_loop_init(&w.loop)) != 0)
        goto out;
    uv_timer_init(&w.loop, &w.timeout);
    uv_timer_init(&w.loop, &w.tick);
    uv_timer_init(&w.loop, &w.daemons);
    w.timeout.data = w.tick.data = w.daemons.data = &w;
    rc = cairn_outdirs_start(&w.od, &w.loop, cl->cfg.output_dir, cl->out_fd, &ops);
    if (rc != 0) {
        rc = cairn_client_fail(cl, rc, "cannot watch %s: %s", cl->cfg.output_dir, uv_strerror(rc));
    } else {
        look(&w);
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
    cairn_outdirs_close(&w.od);
    uv_close((uv_handle_t *)&w.timeout, on_close);
    uv_close((uv_handle_t *)&w.tick, on_close);
    uv_close((uv_handle_t *)&w.daemons, on_close);
    uv_run(&w.loop, UV_RUN_DEFAULT);
    uv_loop_close(&w.loop);
    cairn_outdirs_free(&w.od);
out:
    for (i = 0; w.sum != NULL && i < n; i++)
        free(w.sum[i]);
    for (i = 0; w.ran != NULL && i < n; i++)
        free(w.ran[i]);
    for (i = 0; w.as != NULL && i < n; i++)
        free(w.as[i]);
    free(w.sum);
    free(w.ran);
    free(w.as);
    free(w.cand);
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
