/*
 * rig.c - what the fault sweeps share (rig.h).
 */
#include "faults/rig.h"

#include <dirent.h>
#include <errno.h>
#include <jansson.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

const char *rig_cairnd, *rig_cairn, *rig_plugins;
char *rig_reference;

const char rig_job_text[] =
    "{\"id\":1,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":true}\n"
    "{\"id\":2,\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},\"expected\":10}\n"
    "not json\n"
    "{\"id\":4,\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n";

void rig_spot_init(struct spot *s)
{
    char text[3 * PATH_MAX];

    th_new_dir(s->root);
    snprintf(s->in, sizeof(s->in), "%s/in", s->root);
    snprintf(s->out, sizeof(s->out), "%s/out", s->root);
    snprintf(s->cfg, sizeof(s->cfg), "%s/cairn.json", s->root);
    snprintf(s->log, sizeof(s->log), "%s/cairnd.log", s->root);
    snprintf(s->faults, sizeof(s->faults), "%s/faults.log", s->root);
    snprintf(s->job, sizeof(s->job), "%s/job-source.jsonl", s->root);
    ck_assert_int_eq(mkdir(s->in, 0755), 0);
    snprintf(text, sizeof(text),
             "{\"input_dir\": \"%s\", \"output_dir\": \"%s\", \"min_age_ms\": 0, "
             "\"rescan_interval_s\": 1, \"metrics_interval_s\": 0, \"shutdown_timeout_s\": 5, "
             "\"threads\": 2}\n",
             s->in, s->out);
    th_write_text(s->cfg, text);
    th_write_text(s->job, rig_job_text);
}

static pid_t start_logged(const struct spot *s, int once, const char *log)
{
    char *argv[] = { (char *)rig_cairnd,     "-c", (char *)s->cfg, "--plugins", (char *)rig_plugins,
                     once ? "--once" : NULL, NULL };

    return th_spawn_logged(argv, log);
}

pid_t rig_start(const struct spot *s, int once)
{
    return start_logged(s, once, s->log);
}

/* Where a daemon that does not start waits: each thread's name, kernel
 * wait channel and system call, and its children; for a failure that
 * cannot be reproduced at will.  (Not gdb: attached here, it can hang on
 * a machine without network, looking for debug symbols.) */
static char *where_it_waits(pid_t p)
{
    char *cmd = th_xasprintf(
        "for t in /proc/%d/task/*; do echo \"thread $(cat $t/comm): wchan $(cat $t/wchan), "
        "syscall $(cat $t/syscall)\"; done; echo \"children: $(cat /proc/%d/task/*/children)\"",
        (int)p, (int)p);
    char buf[4096], *out = th_xasprintf("%s", "");
    FILE *f = popen(cmd, "r");
    size_t n;

    while (f != NULL && (n = fread(buf, 1, sizeof(buf) - 1, f)) > 0) {
        char *more;

        buf[n] = '\0';
        more = th_xasprintf("%s%s", out, buf);
        free(out);
        out = more;
    }
    if (f != NULL)
        pclose(f);
    free(cmd);
    return out;
}

/* The clean run after a fault, logged apart; a daemon is waited for until
 * it watches the spool (a SIGTERM before its handlers kills it).  The wait
 * is long: a start on a loaded CI machine is slow, and not what is tested;
 * a daemon that exits instead fails at once, with its log. */
pid_t rig_start_clean(const struct spot *s, int once, const char *what)
{
    char log[PATH_MAX + 32];
    int ok, status = 0, gone = 0;
    char *text;
    pid_t p;

    snprintf(log, sizeof(log), "%s/clean.log", s->root);
    p = start_logged(s, once, log);
    if (once)
        return p;
    TH_POLL(ok, th_file_contains(log, "watching") || (gone = waitpid(p, &status, WNOHANG) == p),
            60000);
    if (ok && !gone)
        return p;
    text = th_slurp(log, NULL);
    TH_REQUIRE(0, "%s: the clean daemon never watched the spool in %s (%s); its log:\n%s%s", what,
               s->root, gone ? "it exited" : "still running after 60 s",
               text != NULL ? text : "(none)\n", gone ? "" : where_it_waits(p));
    return p;
}

static int exists_in(const char *dir, const char *name)
{
    char *p = th_xasprintf("%s/%s", dir, name);
    int there = th_exists(p);

    free(p);
    return there;
}

int rig_finished(const struct spot *s)
{
    char active[PATH_MAX + 32];

    snprintf(active, sizeof(active), "%s/.cairn/active", s->in);
    return exists_in(s->out, "job.summary.json") && !exists_in(s->in, "job.jsonl") &&
           !exists_in(active, "job.jsonl");
}

/* Waits for p to exit on its own (ms); 1 with *status, or 0. */
int rig_exited(pid_t p, int *status, long ms)
{
    double end = th_now_s() + th_scaled_ms(ms) / 1000.0;

    do {
        if (waitpid(p, status, WNOHANG) == p)
            return 1;
        th_sleep_ms(10);
    } while (th_now_s() < end);
    return 0;
}

void rig_no_crash(const char *what, int status)
{
    TH_REQUIRE(WIFEXITED(status), "%s: cairnd died of signal %d", what,
               WIFSIGNALED(status) ? WTERMSIG(status) : -1);
}

/* A SIGTERM'd daemon stops, by exit. */
void rig_stop(pid_t p, const char *what)
{
    int status = 0;

    kill(p, SIGTERM);
    TH_REQUIRE(rig_exited(p, &status, 15000), "%s: cairnd did not stop after SIGTERM", what);
    rig_no_crash(what, status);
}

/* The job, after a clean run: whole, once, where it belongs. */
void rig_check_done(const struct spot *s, const char *what)
{
    char path[PATH_MAX + 64];
    size_t len;
    char *res;
    json_t *sum;
    DIR *d;
    struct dirent *e;

    snprintf(path, sizeof(path), "%s/job.summary.json", s->out);
    sum = th_load_json(path);
    TH_REQUIRE(json_is_string(json_object_get(sum, "status")) &&
                   strcmp(json_string_value(json_object_get(sum, "status")), "ok") == 0 &&
                   json_integer_value(json_object_get(sum, "records")) == 4,
               "%s: the summary is not an ok job of 4 records: %s", what,
               json_dumps(sum, JSON_COMPACT));
    json_decref(sum);
    snprintf(path, sizeof(path), "%s/job.results.jsonl", s->out);
    res = th_slurp(path, &len);
    TH_REQUIRE(res != NULL && strcmp(res, rig_reference) == 0,
               "%s: results differ from cairnd --filter's:\n%s", what, res ? res : "(none)");
    free(res);
    snprintf(path, sizeof(path), "%s/.cairn/done/job.jsonl", s->in);
    TH_REQUIRE(th_exists(path), "%s: the input is not in done/", what);
    d = opendir(s->out);
    TH_REQUIRE(d != NULL, "%s: no output directory", what);
    while ((e = readdir(d)) != NULL) {
        const char *n = e->d_name;
        if (n[0] == '.' || strcmp(n, "metrics.prom") == 0)
            continue;
        TH_REQUIRE(strcmp(n, "job.summary.json") == 0 || strcmp(n, "job.results.jsonl") == 0,
                   "%s: a stray visible file in the output: %s", what, n);
    }
    closedir(d);
}

/* cairnd --filter's results of rig_job_text: what every run must produce. */
void rig_make_reference(void)
{
    char dir[PATH_MAX], src[PATH_MAX + 16];
    struct th_run r;

    if (rig_reference != NULL)
        return;
    th_new_dir(dir);
    snprintf(src, sizeof(src), "%s/job.jsonl", dir);
    th_write_text(src, rig_job_text);
    r = th_run_cairnd_stdin(rig_cairnd, dir, src,
                            (const char *const[]){ "--filter", "--plugins", rig_plugins, NULL });
    TH_REQUIRE(r.status == 0, "cairnd --filter: exit %d: %s", r.status, r.err);
    rig_reference = strdup(r.out);
    th_run_free(&r);
    th_cleanup();
}

int rig_quick_sweep(void)
{
    const char *form = getenv("CAIRN_TEST_SWEEP");

    return form != NULL && strcmp(form, "quick") == 0;
}

long rig_next_point(long n)
{
    return rig_quick_sweep() ? 2 * n : n + 1;
}

const char *rig_sweep_form(void)
{
    return rig_quick_sweep() ? "short form: points 1, 2, 4, ..." : "every point";
}

int rig_deeper_points(size_t kind, int err, int n_errs)
{
    return !rig_quick_sweep() || n_errs <= 1 || (int)(kind % (size_t)n_errs) == err;
}

int rig_word_count(const char *list)
{
    int n = 0, in_word = 0;

    for (; *list != '\0'; list++) {
        n += *list != ' ' && !in_word;
        in_word = *list != ' ';
    }
    return n;
}
