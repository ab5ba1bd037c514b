/*
 * report_collect.c - a run's summaries and results files read into one
 * struct cairn_report (report.h says what each figure is).  Summaries give
 * the counts; results files are read once, line by line, for what only
 * they hold: per-variant accuracy and the first mismatches.
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "names.h"
#include "layout.h"
#include "plugin_loader.h"
#include "jsontext.h"
#include "report.h"

struct ctx {
    struct cairn_client *cl;
    struct cairn_report *r;
    int out_fd;
    int in_fd;    /* the spool, or -1 */
    char **names; /* summary file names */
    size_t n_names, cap_names;
};

static struct cairn_rep_variant *variant(struct cairn_report *r, const char *name)
{
    size_t i;

    for (i = 0; i < r->n_variants; i++)
        if (strcmp(r->variants[i].name, name) == 0)
            return &r->variants[i];
    if (cairn_grow((void **)&r->variants, &r->cap_variants, r->n_variants + 1,
                   sizeof(*r->variants)) != 0)
        return NULL;
    memset(&r->variants[i], 0, sizeof(r->variants[i]));
    if ((r->variants[i].name = strdup(name)) == NULL)
        return NULL;
    r->n_variants++;
    return &r->variants[i];
}

/* The counter called name in the list (*v, *n), added at 0 if new. */
static struct cairn_rep_count *counter(struct cairn_rep_count **v, size_t *n, size_t *cap,
                                       const char *name)
{
    size_t i;

    for (i = 0; i < *n; i++)
        if (strcmp((*v)[i].name, name) == 0)
            return &(*v)[i];
    if (cairn_grow((void **)v, cap, *n + 1, sizeof(**v)) != 0)
        return NULL;
    (*v)[i].n = 0;
    if (((*v)[i].name = strdup(name)) == NULL)
        return NULL;
    (*n)++;
    return &(*v)[i];
}

static struct cairn_rep_count *code(struct cairn_report *r, const char *name)
{
    return counter(&r->codes, &r->n_codes, &r->cap_codes, name);
}

static uint64_t count(json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));

    return v > 0 ? (uint64_t)v : 0;
}

static char *dup_or_null(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

static json_t *load_at(int dir_fd, const char *name)
{
    int fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    json_error_t e;
    json_t *v;

    if (fd < 0)
        return NULL;
    v = json_loadfd(fd, JSON_REJECT_DUPLICATES, &e);
    close(fd);
    return v;
}

/* The text of member key in line as written, malloc'd; NULL if absent. */
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

/* A member's JSON text, printable (raw UTF-8 in a string may hold C1
 * controls), for showing only. */
static char *member(const char *line, size_t len, const char *key)
{
    const char *v;
    size_t n;
    char *text, *shown;

    if (!cairn_json_member_text(line, len, key, &v, &n) || (text = strndup(v, n)) == NULL)
        return NULL;
    shown = cairn_text_printable(text);
    free(text);
    return shown;
}

/* Reads a results file for per-variant accuracy and the first mismatches;
 * with whole (a results file without its summary: --filter's, say), for
 * every count a summary would have given too, into whole and r. */
static int read_results_at(struct ctx *c, int dir_fd, const char *res_name, const char *job,
                           struct cairn_rep_job *whole)
{
    struct cairn_report *r = c->r;
    int fd = openat(dir_fd, res_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    FILE *f;

    if (fd < 0 || (f = fdopen(fd, "r")) == NULL) {
        if (fd >= 0)
            close(fd);
        return 0; /* the summary still counts; accuracy lacks this job */
    }
    while ((n = cairn_client_getline(f, &line, &cap)) > 0) {
        size_t len = (size_t)n - (line[n - 1] == '\n');
        json_error_t e;
        json_t *o = json_loadb(line, len, 0, &e), *match = json_object_get(o, "match");
        const char *vname = json_string_value(json_object_get(o, "variant"));
        const char *ecode = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
        struct cairn_rep_variant *v;

        if (whole != NULL && o != NULL &&
            (v = variant(r, vname ? vname : CAIRN_VARIANT_UNRESOLVED)) != NULL) {
            int ok = ecode == NULL;
            struct cairn_rep_count *cc = ok ? NULL : code(r, ecode);

            whole->records++;
            v->records++;
            if (ok) {
                whole->ok++;
                v->ok++;
            } else {
                v->errors++;
                r->errors++;
                if (cc != NULL)
                    cc->n++;
            }
            if (json_is_true(match))
                whole->matches++;
            else if (json_is_false(match))
                whole->mismatches++;
        }

        if (ecode != NULL && (v = variant(r, vname ? vname : CAIRN_VARIANT_UNRESOLVED)) != NULL) {
            struct cairn_rep_count *cc = counter(&v->codes, &v->n_codes, &v->cap_codes, ecode);
            if (cc != NULL)
                cc->n++;
        }
        if (json_is_boolean(match) &&
            (v = variant(r, vname ? vname : CAIRN_VARIANT_UNRESOLVED)) != NULL) {
            v->checked++;
            r->checked++;
            if (json_is_true(match)) {
                v->matches++;
            } else if (r->n_mm < CAIRN_REPORT_MISMATCHES) {
                struct cairn_rep_mismatch *m = &r->mm[r->n_mm++];
                m->job = strdup(job);
                m->line = count(o, "line");
                m->id = member(line, len, "id");
                m->variant = dup_or_null(vname);
                m->expected = member(line, len, "expected");
                m->answer = member(line, len, "answer");
            }
        }
        json_decref(o);
    }
    free(line);
    fclose(f);
    return 0;
}

static int read_results(struct ctx *c, const char *res_name, const char *job)
{
    return read_results_at(c, c->out_fd, res_name, job, NULL);
}

/* Mismatches of this job still lacking "expected": the record's own, from
 * the input kept in .cairn/done/ -- if that file is the one this summary
 * describes (same size), not a later job's of the same name. */
static void expected_from_input(struct ctx *c, size_t first_mm, const char *input_esc,
                                uint64_t bytes)
{
    struct cairn_report *r = c->r;
    char *file = input_esc ? cairn_client_unescape(input_esc) : NULL, *line = NULL;
    uint64_t last = 0, no = 0;
    size_t i, cap = 0;
    struct stat st;
    ssize_t n;
    FILE *f = NULL;
    int fd = -1;

    for (i = first_mm; i < r->n_mm; i++)
        if (r->mm[i].expected == NULL && r->mm[i].line > last)
            last = r->mm[i].line;
    if (last == 0 || c->in_fd < 0 || file == NULL)
        goto out;
    fd = cairn_client_open_kept_input(c->in_fd, file);
    if (fd < 0 || fstat(fd, &st) != 0 || (uint64_t)st.st_size != bytes ||
        (f = fdopen(fd, "r")) == NULL)
        goto out;
    fd = -1;
    while (no < last && (n = cairn_client_getline(f, &line, &cap)) > 0) {
        no++;
        for (i = first_mm; i < r->n_mm; i++)
            if (r->mm[i].line == no && r->mm[i].expected == NULL)
                r->mm[i].expected = member(line, (size_t)n, "expected");
    }
out:
    if (f != NULL)
        fclose(f);
    if (fd >= 0)
        close(fd);
    free(line);
    free(file);
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
    else
        r->untimed++;
}

static int add_summary(struct ctx *c, const char *sum_name)
{
    struct cairn_report *r = c->r;
    json_t *s = load_at(c->out_fd, sum_name), *o, *v;
    struct cairn_rep_job *j;
    const char *k, *status;
    size_t first_mm = r->n_mm, base_len = strlen(sum_name) - strlen(CAIRN_SUMMARY_SUFFIX);
    char *res;

    if (s == NULL || !json_is_object(s)) {
        json_decref(s);
        return 0; /* not a summary cairnd wrote: nothing to count */
    }
    if (cairn_grow((void **)&r->jobs, &r->cap_jobs, r->n_jobs + 1, sizeof(*r->jobs)) != 0)
        goto oom;
    j = &r->jobs[r->n_jobs++];
    memset(j, 0, sizeof(*j));
    status = json_string_value(json_object_get(s, "status"));
    j->name = dup_or_null(json_string_value(json_object_get(s, "job")));
    j->status = strdup(status ? status : "?");
    j->reason = dup_or_null(json_string_value(json_object_get(s, "reason")));
    j->records = count(s, "records");
    j->ok = count(s, "ok");
    j->matches = count(s, "matches");
    j->mismatches = count(s, "mismatches");
    j->bytes = count(s, "bytes");
    j->wall_seconds = json_number_value(json_object_get(s, "wall_seconds"));
    j->timed = json_is_number(json_object_get(s, "solve_seconds"));
    j->solve_seconds = json_number_value(json_object_get(s, "solve_seconds"));
    j->started = cairn_client_parse_time(json_string_value(json_object_get(s, "started")));
    j->finished = cairn_client_parse_time(json_string_value(json_object_get(s, "finished")));
    if (j->name == NULL) /* no "job": name it after its file */
        j->name = strndup(sum_name, base_len);
    if (j->name == NULL || j->status == NULL || printable(&j->name) != 0 ||
        printable(&j->status) != 0 || (j->reason != NULL && printable(&j->reason) != 0))
        goto oom;
    add_job_totals(r, j);
    if (json_is_integer(json_object_get(s, "unchecked"))) {
        r->has_unchecked = 1;
        r->unchecked += count(s, "unchecked");
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
        struct cairn_rep_variant *var = variant(r, k);
        if (var == NULL)
            goto oom;
        var->records += count(o, "records");
        var->ok += count(o, "ok");
        var->errors += count(o, "errors");
        if (json_is_number(json_object_get(o, "solve_seconds"))) {
            var->solve_seconds += json_number_value(json_object_get(o, "solve_seconds"));
            var->ok_timed += count(o, "ok");
        }
    }
    if (j->timed && j->ok > 0) {
        if (cairn_grow((void **)&r->per_record, &r->cap_per_record, r->n_per_record + 1,
                       sizeof(double)) != 0)
            goto oom;
        r->per_record[r->n_per_record++] = j->solve_seconds / (double)j->ok;
    }
    if (strcmp(j->status, "ok") == 0) {
        if ((res = cairn_asprintf("%.*s.results.jsonl", (int)base_len, sum_name)) == NULL)
            goto oom;
        read_results(c, res, j->name);
        free(res);
        expected_from_input(c, first_mm, json_string_value(json_object_get(s, "input")), j->bytes);
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

static int by_value(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return x < y ? -1 : x > y;
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
        sum = ob ? cairn_asprintf("%s.summary.json", ob) : NULL;
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
static int add_results_file(struct ctx *c, const char *path)
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
    j->status = strdup("ok");
    j->wall_seconds = -1;
    j->started = -1;
    if (j->name == NULL || j->status == NULL || printable(&j->name) != 0) {
        close(fd);
        return -ENOMEM;
    }
    rc = read_results_at(c, fd, base, j->name, j);
    close(fd);
    if (rc != 0)
        return rc;
    add_job_totals(r, j);
    return 0;
}

/* Reports on results files named on the command line instead of an
 * output directory's summaries. */
static int collect_files(struct ctx *c, const char *first, char *const *more, size_t n)
{
    size_t i;
    int rc = add_results_file(c, first);

    for (i = 0; rc == 0 && i < n; i++)
        rc = add_results_file(c, more[i]);
    return rc;
}

static int by_variant(const void *a, const void *b);
static int by_value(const void *a, const void *b);

int cairn_report_collect(struct cairn_client *cl, struct cairn_report *r, const char *out_dir,
                         char *const *jobs, size_t n, const char *spool)
{
    struct ctx c = { .cl = cl, .r = r, .in_fd = -1 };
    struct stat st;
    size_t i;
    int rc;

    memset(r, 0, sizeof(*r));
    if ((r->out_dir = cairn_text_printable(out_dir)) == NULL)
        return -ENOMEM;
    if (stat(out_dir, &st) == 0 && S_ISREG(st.st_mode)) {
        c.out_fd = -1;
        rc = collect_files(&c, out_dir, jobs, n);
        if (r->n_variants > 0)
            qsort(r->variants, r->n_variants, sizeof(*r->variants), by_variant);
        r->expected_note = "from the result line only (results files given, not an output "
                           "directory)";
        return rc;
    }
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
    rc = n > 0 ? named_summaries(&c, jobs, n)
               : cairn_client_each_file(c.out_fd, CAIRN_SUMMARY_SUFFIX, add_name, &c);
    if (rc == 0 && c.n_names > 0)
        qsort(c.names, c.n_names, sizeof(*c.names), by_name);
    for (i = 0; rc == 0 && i < c.n_names; i++)
        rc = add_summary(&c, c.names[i]);
    if (r->n_variants > 0)
        qsort(r->variants, r->n_variants, sizeof(*r->variants), by_variant);
    if (r->n_per_record > 0) /* qsort(NULL, 0) is undefined */
        qsort(r->per_record, r->n_per_record, sizeof(double), by_value);
    r->expected_note = r->spool != NULL
                           ? "from the result line, else from the record in the spool's "
                             ".cairn/done/"
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
        free(r->jobs[i].status);
        free(r->jobs[i].reason);
    }
    for (i = 0; i < r->n_variants; i++) {
        size_t k;
        for (k = 0; k < r->variants[i].n_codes; k++)
            free(r->variants[i].codes[k].name);
        free(r->variants[i].codes);
        free(r->variants[i].name);
    }
    for (i = 0; i < r->n_codes; i++)
        free(r->codes[i].name);
    for (i = 0; i < r->n_mm; i++) {
        free(r->mm[i].job);
        free(r->mm[i].id);
        free(r->mm[i].variant);
        free(r->mm[i].expected);
        free(r->mm[i].answer);
    }
    free(r->jobs);
    free(r->variants);
    free(r->codes);
    free(r->per_record);
    free(r->out_dir);
    free(r->spool);
}

double cairn_report_percentile(const double *v, size_t n, double p)
{
    size_t rank;

    if (n == 0)
        return NAN;
    rank = (size_t)ceil(p / 100.0 * (double)n);
    return v[rank == 0 ? 0 : rank - 1];
}

void cairn_report_rate(double per_second, char out[32])
{
    snprintf(out, 32, per_second < 9.95 ? "%.1f" : "%.0f", per_second);
}

void cairn_report_seconds(double s, char out[32])
{
    if (!(s >= 0))
        snprintf(out, 32, "-");
    else if (s < 1e-6)
        snprintf(out, 32, "%.0f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(out, 32, "%.1f \xc2\xb5s", s * 1e6);
    else if (s < 1)
        snprintf(out, 32, "%.2f ms", s * 1e3);
    else
        snprintf(out, 32, "%.2f s", s);
}
