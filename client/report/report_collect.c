/*
 * report_collect.c - a run's summaries and results files read into one
 * struct cairn_report (report_types.h says what each figure is).  Summaries give
 * the counts; results files are read once, line by line, for what only
 * they hold: per-variant accuracy and the first mismatches.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"
#include "layout.h"
#include "variant.h"
#include "report_collect.h"
#include "report_lines.h"
#include "report_play.h"
#include "report_spill.h"
#include "report_where.h"

struct ctx {
    struct cairn_client *cl;
    struct cairn_report *r;
    int named; /* the jobs were named on the command line */
    int out_fd;
    int in_fd;    /* the spool, or -1 */
    char **names; /* summary file names */
    size_t n_names, cap_names;
    size_t unjoined; /* jobs whose records were not read beside their results */
};

static struct cairn_rep_count *code(struct cairn_report *r, const char *name)
{
    return cairn_report_counter(&r->codes, &r->n_codes, &r->cap_codes, name);
}

/* The summary dir_fd/name, or NULL with why it cannot be read in why
 * ("" when it is gone: a retry removed it after the listing). */
static json_t *load_at(int dir_fd, const char *name, char *why, size_t why_size)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    json_error_t e;
    json_t *v;

    why[0] = '\0';
    if (fd < 0) {
        if (errno != ENOENT)
            snprintf(why, why_size, "%s", strerror(errno));
        return NULL;
    }
    v = json_loadfd(fd, JSON_REJECT_DUPLICATES, &e);
    close(fd);
    if (v == NULL)
        snprintf(why, why_size, "line %d, column %d: %s", e.line, e.column, e.text);
    else if (!json_is_object(v))
        snprintf(why, why_size, "not a JSON object");
    if (v != NULL && !json_is_object(v)) {
        json_decref(v);
        v = NULL;
    }
    return v;
}

/* *s replaced by its printable copy (names and reasons reach the
 * terminal and the page as they are stored here). */
static int printable(char **s)
{
    char *p = cairn_text_printable(*s);

    if (p == NULL)
        return -ENOMEM;
    free(*s);
    *s = p;
    return 0;
}

/* A job's counts into the run's, whether a summary or a results file
 * gave them. */
static void add_job_totals(struct cairn_report *r, const struct cairn_rep_job *j)
{
    if (strcmp(j->status, "ok") == 0)
        r->jobs_ok++;
    else
        r->jobs_failed++;
    r->records += j->records;
    r->ok += j->ok;
    r->matches += j->matches;
    r->mismatches += j->mismatches;
    r->bytes += j->bytes;
    r->solve_seconds += j->solve_seconds;
    if (j->timed)
        r->ok_timed += j->ok;
    else if (j->ok > 0)
        r->untimed++; /* answers without per-record times; a job with none lacks nothing */
}

/* A variant's solve_histogram into it and r: 1, or 0 when the summary
 * has none (an older cairnd's, cairn-slurm's). */
static int add_histogram(struct cairn_report *r, struct cairn_rep_variant *v, const json_t *h)
{
    size_t b;

    if (!json_is_array(h) || json_array_size(h) != CAIRN_SOLVE_BUCKETS)
        return 0;
    for (b = 0; b < CAIRN_SOLVE_BUCKETS; b++) {
        json_int_t n = json_integer_value(json_array_get(h, b));

        v->hist[b] += n > 0 ? (uint64_t)n : 0;
        r->hist[b] += n > 0 ? (uint64_t)n : 0;
    }
    return 1;
}

/* A variant's by_size into it, each entry by the bucket of its min. */
static void add_sizes(struct cairn_rep_variant *v, const json_t *by)
{
    const json_t *e;
    size_t i;

    json_array_foreach(by, i, e)
    {
        struct cairn_rep_size *s = &v->size[cairn_size_bucket(cairn_report_count(e, "min"))];

        s->ok += cairn_report_count(e, "ok");
        s->checked += cairn_report_count(e, "checked");
        s->matches += cairn_report_count(e, "matches");
    }
}

static int add_summary(struct ctx *c, const char *sum_name)
{
    struct cairn_report *r = c->r;
    char why[256];
    json_t *s = load_at(c->out_fd, sum_name, why, sizeof(why)), *o, *v;
    struct cairn_rep_job *j;
    const char *k, *status;
    int rc;
    size_t base_len = strlen(sum_name) - strlen(CAIRN_SUMMARY_SUFFIX), job_index = r->n_jobs;
    int histograms = 1;
    char *res, *shown;

    if (s == NULL) {
        /* Not a summary cairnd wrote (damaged, cut, replaced): said, never
         * passed over in silence.  A job asked for by name is not
         * reported on without it. */
        if (c->named)
            return cairn_client_fail(c->cl, -EINVAL, "%s/%s cannot be read: %s", r->out_dir,
                                     sum_name, why[0] ? why : strerror(ENOENT));
        if (why[0] != '\0') {
            shown = cairn_text_printable(sum_name);
            fprintf(stderr, "cairn: warning: %s/%s cannot be read: %s; its job is left out\n",
                    r->out_dir, shown ? shown : "?", why);
            free(shown);
        }
        return 0;
    }
    if (cairn_grow((void **)&r->jobs, &r->cap_jobs, r->n_jobs + 1, sizeof(*r->jobs)) != 0)
        goto oom;
    j = &r->jobs[r->n_jobs++];
    memset(j, 0, sizeof(*j));
    status = json_string_value(json_object_get(s, "status"));
    j->name = cairn_report_dup(json_string_value(json_object_get(s, "job")));
    j->status = strdup(status ? status : "?");
    j->reason = cairn_report_dup(json_string_value(json_object_get(s, "reason")));
    j->records = cairn_report_count(s, "records");
    j->ok = cairn_report_count(s, "ok");
    j->matches = cairn_report_count(s, "matches");
    j->mismatches = cairn_report_count(s, "mismatches");
    j->bytes = cairn_report_count(s, "bytes");
    j->wall_seconds = json_number_value(json_object_get(s, "wall_seconds"));
    j->timed = json_is_number(json_object_get(s, "solve_seconds"));
    j->solve_seconds = json_number_value(json_object_get(s, "solve_seconds"));
    j->started = cairn_client_parse_time(json_string_value(json_object_get(s, "started")));
    j->finished = cairn_client_parse_time(json_string_value(json_object_get(s, "finished")));
    if (j->name == NULL) /* no "job": name it after its file */
        j->name = strndup(sum_name, base_len);
    if (j->name == NULL || (j->exact = strdup(j->name)) == NULL || j->status == NULL ||
        printable(&j->name) != 0 || printable(&j->status) != 0 ||
        (j->reason != NULL && printable(&j->reason) != 0))
        goto oom;
    add_job_totals(r, j);
    if (json_is_integer(json_object_get(s, "unchecked"))) {
        r->has_unchecked = 1;
        r->unchecked += cairn_report_count(s, "unchecked");
    }
    if (j->started >= 0 && (r->first_start == 0 || j->started < r->first_start))
        r->first_start = j->started;
    if (j->finished > r->last_finish)
        r->last_finish = j->finished;
    json_object_foreach(json_object_get(s, "errors"), k, v)
    {
        struct cairn_rep_count *cc = code(r, k);
        if (cc == NULL)
            goto oom;
        cc->n += json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
        r->errors += json_integer_value(v) > 0 ? (uint64_t)json_integer_value(v) : 0;
    }
    json_object_foreach(json_object_get(s, "by_variant"), k, o)
    {
        struct cairn_rep_variant *var = cairn_report_variant(r, k);
        if (var == NULL)
            goto oom;
        var->records += cairn_report_count(o, "records");
        var->ok += cairn_report_count(o, "ok");
        var->errors += cairn_report_count(o, "errors");
        if (json_is_number(json_object_get(o, "solve_seconds"))) {
            var->solve_seconds += json_number_value(json_object_get(o, "solve_seconds"));
            var->ok_timed += cairn_report_count(o, "ok");
        }
        histograms &= add_histogram(r, var, json_object_get(o, "solve_histogram"));
        add_sizes(var, json_object_get(o, "by_size"));
    }
    /* An empty or failed job lacks nothing. */
    if (j->ok > 0 && !(histograms && json_object_size(json_object_get(s, "by_variant")) > 0))
        r->hist_missing++;
    if (strcmp(j->status, "ok") == 0) {
        if ((res = cairn_asprintf("%.*s%s", (int)base_len, sum_name, CAIRN_RESULTS_SUFFIX)) == NULL)
            goto oom;
        FILE *inputs = cairn_report_kept_input(
            c->in_fd, json_string_value(json_object_get(s, "input")), j->bytes);

        shown = cairn_asprintf("%s/%s", r->out_dir, res);
        rc = shown != NULL && printable(&shown) == 0
                 ? cairn_report_read_results(r, c->out_fd, res, shown, j->name, job_index, NULL,
                                             inputs)
                 : -ENOMEM;
        free(shown);
        free(res);
        if (inputs != NULL)
            fclose(inputs);
        else
            c->unjoined++;
        if (rc != 0) {
            json_decref(s);
            return rc;
        }
    }
    json_decref(s);
    return 0;
oom:
    json_decref(s);
    return -ENOMEM;
}

static int add_name(void *data, const char *name)
{
    struct ctx *c = data;

    if (cairn_grow((void **)&c->names, &c->cap_names, c->n_names + 1, sizeof(*c->names)) != 0 ||
        (c->names[c->n_names] = strdup(name)) == NULL)
        return -ENOMEM;
    c->n_names++;
    return 0;
}

static int by_name(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Variants by name, "none" (records whose variant was never resolved)
 * last. */
static int by_variant(const void *a, const void *b)
{
    const struct cairn_rep_variant *x = a, *y = b;
    int xn = strcmp(x->name, CAIRN_VARIANT_UNRESOLVED) == 0,
        yn = strcmp(y->name, CAIRN_VARIANT_UNRESOLVED) == 0;

    return xn != yn ? xn - yn : strcmp(x->name, y->name);
}

static int by_start(const void *a, const void *b)
{
    const double *x = a, *y = b;

    return x[0] < y[0] ? -1 : x[0] > y[0];
}

/* busy_seconds: the union of the jobs' runs, started to finished, so time
 * when no job ran is not counted.  0 or -ENOMEM. */
static int busy_time(struct cairn_report *r)
{
    double(*run)[2] = r->n_jobs > 0 ? malloc(r->n_jobs * sizeof(*run)) : NULL, end = 0;
    size_t i, n = 0;

    if (r->n_jobs > 0 && run == NULL)
        return -ENOMEM;
    /* A run's length from wall_seconds (to the nanosecond), not from
     * finished minus started: those are written to the millisecond, and a
     * job of 1.6 ms would count as 1 or 2. */
    for (i = 0; i < r->n_jobs; i++)
        if (r->jobs[i].started > 0 && r->jobs[i].finished >= r->jobs[i].started) {
            run[n][0] = r->jobs[i].started;
            run[n++][1] = r->jobs[i].wall_seconds > 0 ? r->jobs[i].started + r->jobs[i].wall_seconds
                                                      : r->jobs[i].finished;
        }
    if (n > 0)
        qsort(run, n, sizeof(*run), by_start);
    r->busy_seconds = 0;
    for (i = 0; i < n; i++) {
        double from = run[i][0] > end ? run[i][0] : end;

        if (run[i][1] > from)
            r->busy_seconds += run[i][1] - from;
        if (run[i][1] > end)
            end = run[i][1];
    }
    free(run);
    return 0;
}

/* The summary names for the jobs asked for; each must exist. */
static int named_summaries(struct ctx *c, char *const *jobs, size_t n)
{
    size_t i;
    int rc;

    for (i = 0; i < n; i++) {
        char *file, *base, *ob, *sum;
        struct stat st;

        if ((rc = cairn_client_job_names(c->cl, jobs[i], &file, &base)) != 0)
            return rc;
        ob = cairn_output_base(file);
        sum = ob ? cairn_output_name(ob, CAIRN_SUMMARY_SUFFIX) : NULL;
        free(ob);
        free(file);
        if (sum == NULL) {
            free(base);
            return -ENOMEM;
        }
        rc = fstatat(c->out_fd, sum, &st, 0) == 0
                 ? add_name(c, sum)
                 : cairn_client_fail(c->cl, -ENOENT, "no job %s in %s: no %s there", base,
                                     c->r->out_dir, sum);
        free(sum);
        free(base);
        if (rc != 0)
            return rc;
    }
    return 0;
}

/* One results file on its own (--filter's, --once's or cairn-slurm's
 * NAME.results.jsonl), counted from its lines: a job named after the file,
 * whose times are unknown. */
static int add_results_file(struct ctx *c, const char *path, const char *inputs_path)
{
    struct cairn_report *r = c->r;
    const char *slash = strrchr(path, '/'), *base = slash != NULL ? slash + 1 : path;
    char *dir = slash != NULL ? strndup(path, (size_t)(slash - path) + 1) : strdup(".");
    size_t n = strlen(base);
    struct cairn_rep_job *j;
    int fd, rc;

    if (dir == NULL)
        return -ENOMEM;
    fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    free(dir);
    if (fd < 0 || access(path, R_OK) != 0) {
        rc = -errno;
        if (fd >= 0)
            close(fd);
        return cairn_client_fail(c->cl, rc, "cannot read %s: %s", path, strerror(-rc));
    }
    if (cairn_grow((void **)&r->jobs, &r->cap_jobs, r->n_jobs + 1, sizeof(*r->jobs)) != 0) {
        close(fd);
        return -ENOMEM;
    }
    j = &r->jobs[r->n_jobs++];
    memset(j, 0, sizeof(*j));
    if (n > strlen(CAIRN_RESULTS_SUFFIX) &&
        strcmp(base + n - strlen(CAIRN_RESULTS_SUFFIX), CAIRN_RESULTS_SUFFIX) == 0)
        n -= strlen(CAIRN_RESULTS_SUFFIX);
    else if (n > CAIRN_JOB_SUFFIX_LEN &&
             strcmp(base + n - CAIRN_JOB_SUFFIX_LEN, CAIRN_JOB_SUFFIX) == 0)
        n -= CAIRN_JOB_SUFFIX_LEN;
    j->name = strndup(base, n);
    j->exact = strndup(base, n);
    j->status = strdup("ok");
    j->wall_seconds = -1;
    j->started = -1;
    if (j->name == NULL || j->exact == NULL || j->status == NULL || printable(&j->name) != 0) {
        close(fd);
        return -ENOMEM;
    }
    {
        char *shown = cairn_text_printable(path);
        FILE *inputs = inputs_path != NULL ? fopen(inputs_path, "re") : NULL;

        if (inputs_path != NULL && inputs == NULL) {
            rc = -errno;
            free(shown);
            close(fd);
            return cairn_client_fail(c->cl, rc, "--inputs %s: cannot read it: %s", inputs_path,
                                     strerror(-rc));
        }
        rc = shown != NULL
                 ? cairn_report_read_results(r, fd, base, shown, j->name, r->n_jobs - 1, j, inputs)
                 : -ENOMEM;
        free(shown);
        if (inputs != NULL)
            fclose(inputs);
        else
            c->unjoined++;
    }
    close(fd);
    if (rc != 0)
        return rc;
    if (j->ok > 0)
        r->hist_missing++;
    add_job_totals(r, j);
    return 0;
}

/* Reports on results files named on the command line instead of an
 * output directory's summaries. */
static int collect_files(struct ctx *c, const char *first, char *const *more, size_t n,
                         const struct cairn_report_opts *o)
{
    size_t i;
    int rc;

    if (o->n_inputs > 0 && o->n_inputs != n + 1)
        return cairn_client_fail(c->cl, -EINVAL,
                                 "--inputs given %zu time%s for %zu results file%s: give one "
                                 "CORPUS per results file, in the same order",
                                 o->n_inputs, o->n_inputs == 1 ? "" : "s", n + 1, n ? "s" : "");
    rc = add_results_file(c, first, o->n_inputs > 0 ? o->inputs[0] : NULL);
    for (i = 0; rc == 0 && i < n; i++)
        rc = add_results_file(c, more[i], o->n_inputs > 0 ? o->inputs[i + 1] : NULL);
    return rc;
}

static int by_variant(const void *a, const void *b);

/* The variants in their order. */
static void finish(struct cairn_report *r)
{
    if (r->n_variants > 0)
        qsort(r->variants, r->n_variants, sizeof(*r->variants), by_variant);
}

/* The report's title for results files: every file, up to three, then
 * how many more ("a.jsonl, b.jsonl, c.jsonl and 997 more files"). */
static int name_files(struct cairn_report *r, char *const *more, size_t n)
{
    struct cairn_buf b = { 0 };
    size_t i, shown = n < 2 ? n : 2;
    int rc = cairn_buf_puts(&b, r->out_dir);

    for (i = 0; rc == 0 && i < shown; i++) {
        char *p = cairn_text_printable(more[i]);

        rc = p == NULL ? -ENOMEM : cairn_buf_printf(&b, ", %s", p);
        free(p);
    }
    if (rc == 0 && n > shown)
        rc = cairn_buf_printf(&b, " and %zu more file%s", n - shown, n - shown == 1 ? "" : "s");
    if (rc == 0)
        rc = cairn_buf_append(&b, "", 1);
    if (rc != 0) {
        cairn_buf_free(&b);
        return -ENOMEM;
    }
    free(r->out_dir);
    r->out_dir = b.data;
    return 0;
}

int cairn_report_collect(struct cairn_client *cl, struct cairn_report *r, const char *out_dir,
                         char *const *jobs, size_t n, const char *spool,
                         const struct cairn_report_opts *o)
{
    struct ctx c = { .cl = cl, .r = r, .in_fd = -1 };
    struct stat st;
    size_t i;
    int rc;

    memset(r, 0, sizeof(*r));
    r->mm_limit = o->mismatches;
    r->cl = cl;
    if ((r->out_dir = cairn_text_printable(out_dir)) == NULL)
        return -ENOMEM;
    if ((o->json || o->mismatches == CAIRN_REPORT_MISMATCHES_ALL) &&
        (rc = cairn_report_spill_open(r)) != 0)
        return rc;
    if (stat(out_dir, &st) == 0 && S_ISREG(st.st_mode)) {
        c.out_fd = -1;
        if ((rc = name_files(r, jobs, n)) != 0)
            return rc;
        rc = collect_files(&c, out_dir, jobs, n, o);
        finish(r);
        r->expected_note = "from the result line, else from the record in --inputs";
        if (c.unjoined > 0) {
            r->sizes_why = "results files carry no inputs: give --inputs CORPUS (each results "
                           "file's job file) to join them by line";
            r->inputs_why = r->sizes_why;
        }
        return rc;
    }
    if (o->n_inputs > 0)
        return cairn_client_fail(cl, -EINVAL,
                                 "--inputs is for results files; an output directory's inputs "
                                 "are read from its spool (--input DIR or -c FILE)");
    c.out_fd = open(out_dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (c.out_fd < 0) {
        rc = -errno;
        return cairn_client_fail(cl, rc, "cannot read the output directory %s: %s", out_dir,
                                 strerror(-rc));
    }
    if (spool != NULL) {
        c.in_fd = open(spool, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        r->spool = c.in_fd >= 0 ? strdup(spool) : NULL;
    }
    c.named = n > 0;
    rc = n > 0 ? named_summaries(&c, jobs, n)
               : cairn_client_each_file(c.out_fd, CAIRN_SUMMARY_SUFFIX, add_name, &c);
    if (rc == 0 && c.n_names > 0)
        qsort(c.names, c.n_names, sizeof(*c.names), by_name);
    for (i = 0; rc == 0 && i < c.n_names; i++)
        rc = add_summary(&c, c.names[i]);
    finish(r);
    rc = rc == 0 ? busy_time(r) : rc;
    if (c.unjoined > 0)
        r->inputs_why = r->spool != NULL
                            ? "a job's input is no longer kept in the spool's " CAIRN_DONE_PATH "/ "
                              "(keep_inputs, or a later job of the same name)"
                            : "the spool of this output directory is unknown: give --input DIR "
                              "or -c FILE to read the records";
    r->expected_note =
        r->spool != NULL
            ? "from the result line, else from the record in the spool's " CAIRN_DONE_PATH "/"
            : "from the result line only (the spool of this output directory is "
              "unknown: give --input DIR or -c FILE to read the records)";
    for (i = 0; i < c.n_names; i++)
        free(c.names[i]);
    free(c.names);
    close(c.out_fd);
    if (c.in_fd >= 0)
        close(c.in_fd);
    return rc;
}

void cairn_report_free(struct cairn_report *r)
{
    size_t i;

    for (i = 0; i < r->n_jobs; i++) {
        free(r->jobs[i].name);
        free(r->jobs[i].exact);
        free(r->jobs[i].status);
        free(r->jobs[i].reason);
    }
    for (i = 0; i < r->n_variants; i++) {
        struct cairn_rep_variant *v = &r->variants[i];
        size_t k;

        for (k = 0; k < v->n_codes; k++)
            free(v->codes[k].name);
        for (k = 0; k < v->n_traps; k++)
            free(v->traps[k].name);
        for (k = 0; k < v->n_bl; k++)
            cairn_report_blunder_free(&v->bl[k]);
        free(v->codes);
        free(v->traps);
        cairn_report_mismatch_free(&v->small.m);
        free(v->small.input);
        free(v->small.record);
        free(v->small.moves);
        free(v->small.moves_why);
        free(v->name);
    }
    for (i = 0; i < r->n_codes; i++)
        free(r->codes[i].name);
    for (i = 0; i < r->n_mm; i++)
        cairn_report_mismatch_free(&r->mm[i]);
    free(r->mm);
    if (r->spill != NULL)
        fclose(r->spill);
    free(r->jobs);
    free(r->variants);
    free(r->codes);
    free(r->out_dir);
    free(r->spool);
}
