/*
 * report_lines.c - a results file's lines and a kept input's, read into a
 * report (see report_lines.h); the graded lines of play in report_play.c.
 */
#include "report_lines.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsonscan.h"
#include "jsontext.h"
#include "report_play.h"
#include "report_spill.h"
#include "report_where.h"
#include "variant.h"

struct cairn_rep_variant *cairn_report_variant(struct cairn_report *r, const char *name)
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

struct cairn_rep_count *cairn_report_counter(struct cairn_rep_count **v, size_t *n, size_t *cap,
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

/* The numbers of a JSON value, counted and their |v| summed. */
static void measure(const json_t *v, uint64_t *values, double *magnitude)
{
    const json_t *e;
    const char *k;
    size_t i;

    if (json_is_number(v)) {
        (*values)++;
        *magnitude += fabs(json_number_value(v));
    } else if (json_is_array(v)) {
        json_array_foreach(v, i, e) measure(e, values, magnitude);
    } else if (json_is_object(v)) {
        json_object_foreach((json_t *)v, k, e) measure(e, values, magnitude);
    }
}

/* An input's size as the summaries' by_size has it: its longest array,
 * or for a game of one number, that number (buckets.h); -1: none. */
static int64_t size_of(const json_t *input)
{
    const json_t *e;
    const char *k;
    int64_t size = -1, num = -1;

    json_object_foreach((json_t *)input, k, e)
    {
        if (json_is_array(e) && (int64_t)json_array_size(e) > size)
            size = (int64_t)json_array_size(e);
        else if (json_is_integer(e) && json_integer_value(e) > num)
            num = json_integer_value(e);
    }
    return size >= 0 ? size : num;
}

void cairn_report_mismatch_free(struct cairn_rep_mismatch *m)
{
    cairn_report_where_free(&m->at);
    free(m->given);
    free(m->exact);
}

static int dup_text(char **to, const char *from)
{
    return from == NULL || (*to = strdup(from)) != NULL ? 0 : -ENOMEM;
}

/* A copy of m, to keep apart from the mismatches shown. */
static int copy_mismatch(struct cairn_rep_mismatch *to, const struct cairn_rep_mismatch *m)
{
    *to = (struct cairn_rep_mismatch){ .at = { .job_index = m->at.job_index, .line = m->at.line },
                                       .shown = m->shown };
    if (dup_text(&to->at.job, m->at.job) != 0 || dup_text(&to->at.id, m->at.id) != 0 ||
        dup_text(&to->at.id_json, m->at.id_json) != 0 ||
        dup_text(&to->at.variant, m->at.variant) != 0 ||
        dup_text(&to->at.position, m->at.position) != 0 ||
        dup_text(&to->at.record, m->at.record) != 0 || dup_text(&to->given, m->given) != 0 ||
        dup_text(&to->exact, m->exact) != 0) {
        cairn_report_mismatch_free(to);
        return -ENOMEM;
    }
    return 0;
}

/* The mismatch m as its variant's smallest failing input, if its record
 * is smaller than the one kept (struct cairn_rep_smallest says what
 * smaller is; of equal ones, the first stays). */
static int consider_smallest(struct cairn_rep_variant *v, const struct cairn_rep_mismatch *m,
                             const json_t *record, const struct cairn_rep_rec *rec,
                             const char *line, size_t len)
{
    struct cairn_rep_mismatch copy;

    struct cairn_rep_smallest *s = &v->small;
    const json_t *input = json_object_get(record, "input");
    uint64_t values = 0;
    double magnitude = 0;
    char *in, *whole;

    if (!json_is_object(input))
        return 0;
    measure(input, &values, &magnitude);
    if (s->input != NULL &&
        (values > s->values || (values == s->values && magnitude >= s->magnitude)))
        return 0;
    in = cairn_report_member(rec->line, rec->len, "input");
    whole = strndup(rec->line, rec->len);
    if (in == NULL || whole == NULL || copy_mismatch(&copy, m) != 0) {
        free(in);
        free(whole);
        return -ENOMEM;
    }
    free(s->input);
    free(s->record);
    free(s->moves);
    cairn_report_mismatch_free(&s->m);
    *s = (struct cairn_rep_smallest){ .m = copy,
                                      .values = values,
                                      .magnitude = magnitude,
                                      .input = in,
                                      .record = whole,
                                      .moves = cairn_report_member(line, len, "moves") };
    return 0;
}

/* |given - exact| into the variant's error size, when both are integers. */
static void error_size(struct cairn_rep_variant *v, const json_t *given, const json_t *exact)
{
    json_int_t g, x;
    uint64_t d;

    if (!json_is_integer(given) || !json_is_integer(exact))
        return;
    g = json_integer_value(given);
    x = json_integer_value(exact);
    d = g > x ? (uint64_t)g - (uint64_t)x : (uint64_t)x - (uint64_t)g;
    v->int_errors++;
    v->error_sum += (double)d;
    if (d > v->error_max)
        v->error_max = d;
}

/* A mismatch: counted; kept when among the first --mismatches of its
 * variant (with its position and record), or as its variant's smallest
 * failing input; written to the spill when there is one.  Nothing else
 * stays: memory does not grow with the number of mismatches. */
static int add_mismatch(struct cairn_report *r, struct cairn_rep_variant *v, const json_t *o,
                        const char *line, size_t len, const char *job, size_t job_index,
                        const char *vname, const struct cairn_rep_rec *rec, const json_t *record)
{
    struct cairn_rep_mismatch m = { 0 };
    const json_t *given = json_object_get(o, "expected");
    int all = r->mm_limit == CAIRN_REPORT_MISMATCHES_ALL, show = !all && v->shown < r->mm_limit;
    int rc;

    v->mismatches++;
    m.given = cairn_report_member(line, len, "expected");
    if (m.given == NULL && rec->line != NULL) {
        m.given = cairn_report_member(rec->line, rec->len, "expected");
        given = json_object_get(record, "expected");
    }
    m.exact = cairn_report_member(line, len, "answer");
    error_size(v, given, json_object_get(o, "answer"));
    if ((rc = cairn_report_where_of(&m.at, job, job_index, o, line, len, vname)) != 0)
        goto out;
    if (all || show) {
        v->shown++;
        m.shown = 1;
        cairn_report_fill_where(&m.at, rec);
    }
    if (r->spill != NULL && (rc = cairn_report_spill_add(r, &m, json_object_get(o, "id"), given,
                                                         json_object_get(o, "answer"))) != 0)
        goto out;
    if (record != NULL && (rc = consider_smallest(v, &m, record, rec, line, len)) != 0)
        goto out;
    if (show) {
        if (cairn_grow((void **)&r->mm, &r->cap_mm, r->n_mm + 1, sizeof(*r->mm)) != 0) {
            rc = -ENOMEM;
            goto out;
        }
        r->mm[r->n_mm++] = m;
        return 0;
    }
out:
    cairn_report_mismatch_free(&m);
    return rc;
}

/* The trap of a record, from its id ("stone-game-iii-7-3:tie"; "-" for
 * none), counted. */
static int add_trap(struct cairn_rep_variant *v, const json_t *o, int match)
{
    const char *id = json_string_value(json_object_get(o, "id")), *c;
    char name[64];
    size_t i;

    c = id != NULL ? strrchr(id, ':') : NULL;
    snprintf(name, sizeof(name), "%s", c != NULL && c[1] != '\0' ? c + 1 : "-");
    for (i = 0; i < v->n_traps; i++)
        if (strcmp(v->traps[i].name, name) == 0)
            break;
    if (i == v->n_traps && i >= CAIRN_REPORT_TRAPS) {
        snprintf(name, sizeof(name), "(other)");
        for (i = CAIRN_REPORT_TRAPS; i < v->n_traps; i++)
            if (strcmp(v->traps[i].name, name) == 0)
                break;
    }
    if (i == v->n_traps) {
        if (cairn_grow((void **)&v->traps, &v->cap_traps, v->n_traps + 1, sizeof(*v->traps)) != 0)
            return -ENOMEM;
        v->traps[i] = (struct cairn_rep_trap){ .name = strdup(name) };
        if (v->traps[i].name == NULL)
            return -ENOMEM;
        v->n_traps++;
    }
    v->traps[i].checked++;
    v->traps[i].matches += match != 0;
    return 0;
}

/* The counts a summary would have given, from one line of a results file
 * that has none. */
static void add_whole(struct cairn_report *r, struct cairn_rep_job *whole,
                      struct cairn_rep_variant *v, const char *ecode, const json_t *match,
                      const json_t *record)
{
    int64_t size = ecode == NULL ? size_of(json_object_get(record, "input")) : -1;

    if (size > 0) {
        struct cairn_rep_size *s = &v->size[cairn_size_bucket((uint64_t)size)];

        s->ok++;
        s->checked += json_is_boolean(match);
        s->matches += json_is_true(match);
    }
    whole->records++;
    v->records++;
    if (ecode == NULL) {
        whole->ok++;
        v->ok++;
    } else {
        struct cairn_rep_count *cc =
            cairn_report_counter(&r->codes, &r->n_codes, &r->cap_codes, ecode);
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

static int add_line(struct cairn_report *r, const char *line, size_t len, const char *job,
                    size_t job_index, struct cairn_rep_job *whole,
                    const struct cairn_rep_line_at *at)
{
    json_error_t e;
    json_t *o = json_loadb(line, len, 0, &e), *match = json_object_get(o, "match");
    json_error_t re;
    const json_t *play = json_object_get(o, "play");
    /* The record is parsed only when something is taken from it: a big
     * run's matched records are read past, not parsed. */
    int need = whole != NULL || json_is_false(match) ||
               (json_is_object(play) && !json_is_true(json_object_get(play, "optimal")));
    json_t *record =
        need && at->rec->line != NULL ? json_loadb(at->rec->line, at->rec->len, 0, &re) : NULL;
    const char *vname = json_string_value(json_object_get(o, "variant"));
    const char *ecode = json_string_value(json_object_get(json_object_get(o, "error"), "code"));
    struct cairn_rep_variant *v;
    int rc = 0;

    if (o == NULL) {
        enum cairn_json_kind kind;
        struct cairn_json_fault fault;

        json_decref(record);
        /* jansson says "invalid token" when a string's copy fails, too:
         * the scanner, which builds nothing, tells memory from damage. */
        if (json_error_code(&e) == json_error_out_of_memory ||
            cairn_json_scan(line, len, &kind, &fault) != -EINVAL)
            return cairn_client_fail(r->cl, -ENOMEM,
                                     "%s:%llu: the line (%zu bytes) does not fit in memory",
                                     at->file, at->no, len);
        /* Not what cairnd writes (cut, edited, another file): named, left
         * out, and the report goes on with the other lines. */
        r->damaged++;
        fprintf(stderr,
                "cairn: warning: %s:%llu: not a JSON result line (column %zu: %s); left out of "
                "the report\n",
                at->file, at->no, fault.column, fault.what);
        return 0;
    }
    v = cairn_report_variant(r, vname ? vname : CAIRN_VARIANT_UNRESOLVED);
    if (v == NULL) {
        rc = -ENOMEM;
        goto out;
    }
    if (whole != NULL)
        add_whole(r, whole, v, ecode, match, record);
    if (ecode != NULL) {
        struct cairn_rep_count *cc =
            cairn_report_counter(&v->codes, &v->n_codes, &v->cap_codes, ecode);
        if (cc != NULL)
            cc->n++;
    }
    if (json_is_boolean(match)) {
        v->checked++;
        r->checked++;
        rc = add_trap(v, o, json_is_true(match));
        if (rc == 0 && json_is_true(match))
            v->matches++;
        else if (rc == 0)
            rc = add_mismatch(r, v, o, line, len, job, job_index, vname, at->rec,
                              json_is_object(record) ? record : NULL);
    }
    if (rc == 0)
        rc = cairn_report_add_play(r, v, o, line, len, job, job_index, vname, at);
out:
    json_decref(o);
    json_decref(record);
    return rc;
}

/* The record of line no from inputs (read up to it), into rec; none when
 * the inputs end first or the lines do not run forward. */
static int record_at(FILE *inputs, uint64_t no, uint64_t *read, char **buf, size_t *cap,
                     struct cairn_rep_rec *rec)
{
    ssize_t n = 0;

    rec->line = NULL;
    if (no <= *read)
        return 0;
    while (*read < no && (n = cairn_client_getline(inputs, buf, cap)) > 0)
        (*read)++;
    if (*read == no && n > 0) {
        rec->line = *buf;
        rec->len = (size_t)n - ((*buf)[n - 1] == '\n');
    }
    return n < 0 ? (int)n : 0;
}

int cairn_report_read_results(struct cairn_report *r, int dir_fd, const char *res_name,
                              const char *shown_as, const char *job, size_t job_index,
                              struct cairn_rep_job *whole, FILE *inputs)
{
    int fd = openat(dir_fd, res_name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC), rc = 0;
    struct cairn_rep_rec rec = { 0 };
    struct cairn_rep_line_at at = { .file = shown_as, .rec = &rec };
    char *line = NULL, *in_line = NULL;
    size_t cap = 0, in_cap = 0;
    uint64_t in_read = 0;
    unsigned backwards = 0;
    ssize_t n = 0;
    FILE *f;

    if (fd < 0 || (f = fdopen(fd, "r")) == NULL) {
        if (fd >= 0)
            close(fd);
        return 0; /* the summary still counts; accuracy lacks this job */
    }
    while (rc == 0 && (n = cairn_client_getline(f, &line, &cap)) > 0) {
        size_t len = (size_t)n - (line[n - 1] == '\n');
        const char *no;
        size_t no_len;

        at.no++;
        /* The record's line number, read before the line is parsed. */
        rec.line = NULL;
        if (inputs != NULL && cairn_json_member_text(line, len, "line", &no, &no_len)) {
            unsigned long long want = strtoull(no, NULL, 10);

            if (want <= in_read && !backwards++)
                /* A chunked run (GNU parallel) numbers each chunk from 1:
                 * its records cannot be found by line. */
                fprintf(stderr,
                        "cairn: warning: %s:%llu: record line %llu comes after line %llu: "
                        "the results are not in the order of their inputs; their records "
                        "are not joined from here on\n",
                        shown_as, at.no, want, (unsigned long long)in_read);
            if ((rc = record_at(inputs, want, &in_read, &in_line, &in_cap, &rec)) != 0) {
                rc = cairn_client_fail(r->cl, rc,
                                       "%s:%llu: its record, line %llu of the job's records, "
                                       "cannot be read: %s",
                                       shown_as, at.no, (unsigned long long)in_read + 1,
                                       rc == -ENOMEM ? "the line does not fit in memory"
                                                     : strerror(-rc));
                break;
            }
        }
        rc = add_line(r, line, len, job, job_index, whole, &at);
    }
    /* Neither a line too long for memory nor a read error is the end of
     * the file: the report would be short of lines, and say nothing. */
    if (rc == 0 && n < 0)
        rc = cairn_client_fail(r->cl, (int)n, "%s:%llu: cannot read the line: %s", shown_as,
                               at.no + 1,
                               n == -ENOMEM ? "it does not fit in memory" : strerror((int)-n));
    free(line);
    free(in_line);
    fclose(f);
    return rc;
}

FILE *cairn_report_kept_input(int in_fd, const char *input_esc, uint64_t bytes)
{
    char *file = input_esc ? cairn_client_unescape(input_esc) : NULL;
    struct stat st;
    FILE *f = NULL;
    int fd = -1;

    if (in_fd >= 0 && file != NULL)
        fd = cairn_client_open_kept_input(in_fd, file);
    if (fd >= 0 && fstat(fd, &st) == 0 && (uint64_t)st.st_size == bytes)
        f = fdopen(fd, "r");
    if (f == NULL && fd >= 0)
        close(fd);
    free(file);
    return f;
}
