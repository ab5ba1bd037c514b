/*
 * report_spill.c - every mismatch of a run, when the report must give
 * them all (--json, --mismatches all), kept in an unlinked temporary file
 * rather than in memory: a run of 10 million records may have millions.
 * One JSON line per mismatch, in job and line order; read back one line
 * at a time, so memory stays bounded by the longest line (a record shown
 * is cut at 4 KiB).
 */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_spill.h"

int cairn_report_spill_open(struct cairn_report *r)
{
    const char *dir = getenv("TMPDIR");
    char *path;
    int fd;

    if (dir == NULL || dir[0] == '\0')
        dir = "/tmp";
    /* Unlinked at once: nothing is left behind, whatever ends the run. */
    if ((path = cairn_asprintf("%s/cairn-report-XXXXXX", dir)) == NULL)
        return -ENOMEM;
    fd = mkstemp(path);
    if (fd >= 0)
        unlink(path);
    free(path);
    if (fd < 0 || (r->spill = fdopen(fd, "w+")) == NULL) {
        int rc = -errno;

        if (fd >= 0)
            close(fd);
        return cairn_client_fail(r->cl, rc,
                                 "cannot create a temporary file in %s for the mismatches "
                                 "(--json, --mismatches all): %s",
                                 dir, strerror(-rc));
    }
    return 0;
}

int cairn_report_spill_add(struct cairn_report *r, const struct cairn_rep_mismatch *m,
                           const json_t *id, const json_t *given, const json_t *exact)
{
    json_t *o =
        json_pack("{s:s?,s:I,s:I,s:O?,s:O?,s:O?,s:s?,s:s?,s:s?,s:s?,s:s?}", "variant",
                  m->at.variant, "job", (json_int_t)m->at.job_index, "line", (json_int_t)m->at.line,
                  "id", id, "given", given, "exact", exact, "it", m->at.id, "gt", m->given, "xt",
                  m->exact, "p", m->at.position, "r", m->at.record);
    int rc = 0;

    if (o == NULL)
        return -ENOMEM;
    errno = 0;
    if (json_dumpf(o, r->spill, JSON_COMPACT) != 0 || fputc('\n', r->spill) == EOF)
        rc = errno == ENOMEM ? -ENOMEM : -(errno ? errno : EIO);
    json_decref(o);
    if (rc != 0 && rc != -ENOMEM)
        rc = cairn_client_fail(r->cl, rc, "cannot write the mismatches' temporary file: %s",
                               strerror(-rc));
    return rc;
}

/* Each spilled mismatch, its line parsed, to fn; 0, fn's non-zero, or
 * -errno. */
static int each_line(const struct cairn_report *r, int (*fn)(const json_t *o, void *data),
                     void *data)
{
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    int rc = 0;

    if (fflush(r->spill) != 0 || fseek(r->spill, 0, SEEK_SET) != 0)
        return -errno;
    while (rc == 0 && (n = cairn_client_getline(r->spill, &line, &cap)) > 0) {
        json_error_t e;
        json_t *o = json_loadb(line, (size_t)n, 0, &e);

        rc = o != NULL ? fn(o, data) : -ENOMEM; /* written here: only memory fails */
        json_decref(o);
    }
    if (rc == 0 && n < 0)
        rc = (int)n;
    free(line);
    fseek(r->spill, 0, SEEK_END); /* more may be written after */
    return rc;
}

struct each {
    const struct cairn_report *r;
    const char *variant;
    int (*fn)(const struct cairn_rep_mismatch *m, void *data);
    void *data;
};

static char *text(const json_t *o, const char *key)
{
    return (char *)json_string_value(json_object_get(o, key));
}

/* A spilled line as a mismatch whose texts are the line's (not copied). */
static int each_one(const json_t *o, void *data)
{
    struct each *e = data;
    json_int_t job = json_integer_value(json_object_get(o, "job"));
    struct cairn_rep_mismatch m = { .given = text(o, "gt"), .exact = text(o, "xt"), .shown = 1 };

    m.at.variant = text(o, "variant");
    if (e->variant != NULL && (m.at.variant == NULL || strcmp(m.at.variant, e->variant) != 0))
        return 0;
    if (job < 0 || (size_t)job >= e->r->n_jobs)
        return 0;
    m.at.job = e->r->jobs[job].name;
    m.at.job_index = (size_t)job;
    m.at.line = (uint64_t)json_integer_value(json_object_get(o, "line"));
    m.at.id = text(o, "it");
    m.at.position = text(o, "p");
    m.at.record = text(o, "r");
    return e->fn(&m, e->data);
}

int cairn_report_each_mismatch(const struct cairn_report *r, const char *variant,
                               int (*fn)(const struct cairn_rep_mismatch *m, void *data),
                               void *data)
{
    struct each e = { .r = r, .variant = variant, .fn = fn, .data = data };
    size_t i;
    int rc;

    if (r->mm_limit == CAIRN_REPORT_MISMATCHES_ALL && r->spill != NULL)
        return each_line(r, each_one, &e);
    for (i = 0; i < r->n_mm; i++) {
        const struct cairn_rep_mismatch *m = &r->mm[i];

        if (variant != NULL && (m->at.variant == NULL || strcmp(m->at.variant, variant) != 0))
            continue;
        if ((rc = fn(m, data)) != 0)
            return rc;
    }
    return 0;
}

struct dump {
    const struct cairn_report *r;
    FILE *out;
    size_t n;
};

/* One mismatch of the JSON report's "mismatches", written out. */
static int dump_one(const json_t *o, void *data)
{
    struct dump *d = data;
    json_int_t job = json_integer_value(json_object_get(o, "job"));
    const json_t *id = json_object_get(o, "id"), *given = json_object_get(o, "given"),
                 *exact = json_object_get(o, "exact");
    json_t *m;
    int rc = 0;

    if (job < 0 || (size_t)job >= d->r->n_jobs)
        return 0;
    m = json_pack("{s:o,s:O}", "variant",
                  json_is_string(json_object_get(o, "variant"))
                      ? json_incref(json_object_get(o, "variant"))
                      : json_null(),
                  "job", json_null());
    if (m == NULL || cairn_report_json_job(m, d->r, (size_t)job) != 0)
        rc = -ENOMEM;
    if (rc == 0 &&
        (json_object_set_new(m, "line",
                             json_integer(json_integer_value(json_object_get(o, "line")))) != 0 ||
         json_object_set(m, "id", id != NULL ? (json_t *)id : json_null()) != 0 ||
         json_object_set(m, "given", given != NULL ? (json_t *)given : json_null()) != 0 ||
         json_object_set(m, "exact", exact != NULL ? (json_t *)exact : json_null()) != 0))
        rc = -ENOMEM;
    if (rc == 0 &&
        ((d->n++ > 0 && fputc(',', d->out) == EOF) || json_dumpf(m, d->out, JSON_COMPACT) != 0))
        rc = -EIO;
    json_decref(m);
    return rc;
}

int cairn_report_spill_json(const struct cairn_report *r, FILE *out)
{
    struct dump d = { .r = r, .out = out };

    return r->spill != NULL ? each_line(r, dump_one, &d) : 0;
}

int cairn_report_shown(const struct cairn_report *r, const struct cairn_rep_where *at, int mismatch)
{
    size_t i;

    if (r->mm_limit == CAIRN_REPORT_MISMATCHES_ALL)
        return mismatch;
    for (i = 0; i < r->n_mm; i++)
        if (r->mm[i].at.job_index == at->job_index && r->mm[i].at.line == at->line)
            return 1;
    return 0;
}

int cairn_report_json_job(json_t *o, const struct cairn_report *r, size_t job_index)
{
    const struct cairn_rep_job *j = &r->jobs[job_index];
    json_t *exact = json_string(j->exact); /* NULL when not UTF-8 */

    if (exact != NULL)
        return json_object_set_new(o, "job", exact) != 0 ? -ENOMEM : 0;
    if (json_object_set_new(o, "job", json_string(j->name)) != 0 ||
        json_object_set_new(o, "job_escaped", json_true()) != 0)
        return -ENOMEM;
    return 0;
}
