/*
 * summary.c - what a finished job says about itself: NAME.summary.json
 * (docs/contract.md, Summaries) and, for a job that could not be processed,
 * NAME.reason.json.  Rendered on the loop thread from plain facts, written
 * by the finisher (job.c).
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "summary.h"
#include "variant.h"

#include <errno.h>

#include "layout.h"
#include "names.h"

/* json_object_set_new() that remembers a failure (a value that could not
 * be made, or no memory to add the key; the value is released either
 * way): a summary missing a key must never be published. */
static void put(json_t *o, const char *key, json_t *v, int *bad)
{
    if (json_object_set_new(o, key, v) != 0)
        *bad = 1;
}

/* One count per error code, every code present: readers need not guess
 * whether an absent code means zero.  NULL when out of memory. */
static json_t *errors_object(const struct cairn_tally *t)
{
    json_t *errors = json_object();
    size_t i;
    int bad = errors == NULL;

    for (i = 0; !bad && i < CAIRN_CODE_COUNT; i++)
        put(errors, cairn_code_name(i), json_integer((json_int_t)t->errors[i]), &bad);
    if (bad) {
        json_decref(errors);
        return NULL;
    }
    return errors;
}

/* Appends root as one compact line to out, replacing its contents. */
static int dump_line(const json_t *root, struct cairn_buf *out)
{
    size_t need = json_dumpb(root, NULL, 0, JSON_COMPACT | JSON_REAL_PRECISION(9));

    out->len = 0;
    if (need == 0 || cairn_buf_reserve(out, need + 1) != 0)
        return -ENOMEM;
    /* The dump allocates too: one that comes out short is no line. */
    if (json_dumpb(root, out->data, need, JSON_COMPACT | JSON_REAL_PRECISION(9)) != need)
        return -ENOMEM;
    out->len = need;
    out->data[out->len++] = '\n';
    return 0;
}

/* [c0, ..., c11]: variant v's solves per solve-time bucket (buckets.h),
 * not cumulative. */
static json_t *solve_histogram(const struct cairn_tally *t, size_t v, int *bad)
{
    json_t *a = json_array();
    size_t b;

    if (a == NULL)
        *bad = 1;
    for (b = 0; a != NULL && b < CAIRN_SOLVE_BUCKETS; b++)
        if (json_array_append_new(
                a, json_integer((json_int_t)t->variant_hist[v * CAIRN_SOLVE_BUCKETS + b])))
            *bad = 1;
    return a;
}

/* [{"min":A,"max":B,"ok":N,"checked":N,"matches":N},...]: variant v's
 * solved records by input size, the non-empty buckets only (max null for
 * the last, open one). */
static json_t *by_size(const struct cairn_tally *t, size_t v, int *bad)
{
    json_t *a = json_array();
    size_t b;

    if (a == NULL)
        *bad = 1;
    for (b = 0; a != NULL && b < CAIRN_SIZE_BUCKETS; b++) {
        uint64_t min, max;

        if (CAIRN_TALLY_SIZE(t, v, b, CAIRN_SIZE_OK) == 0)
            continue;
        cairn_size_bucket_range(b, &min, &max);
        if (json_array_append_new(
                a, json_pack("{s:I,s:o,s:I,s:I,s:I}", "min", (json_int_t)min, "max",
                             max == UINT64_MAX ? json_null() : json_integer((json_int_t)max), "ok",
                             (json_int_t)CAIRN_TALLY_SIZE(t, v, b, CAIRN_SIZE_OK), "checked",
                             (json_int_t)CAIRN_TALLY_SIZE(t, v, b, CAIRN_SIZE_CHECKED), "matches",
                             (json_int_t)CAIRN_TALLY_SIZE(t, v, b, CAIRN_SIZE_MATCHES))) != 0)
            *bad = 1;
    }
    return a;
}

/* {"VARIANT":{"records":N,"ok":N,"errors":N,"solve_seconds":S,
 * "solve_histogram":[...],"by_size":[...]},...}: the variants with
 * records, the unresolved ones under "none".  NULL when out of memory. */
static json_t *by_variant_object(const struct cairn_tally *t, const struct cairn_registry *reg)
{
    json_t *by = json_object();
    size_t i;
    int bad = 0;

    if (by == NULL)
        return NULL;
    for (i = 0; i < t->n_variants; i++) {
        const char *name =
            i < reg->n_plugins ? reg->plugins[i].desc->name : CAIRN_VARIANT_UNRESOLVED;
        if (t->variant_ok[i] + t->variant_err[i] == 0)
            continue;
        /* "o" steals both arrays, even when json_pack fails. */
        put(by, name,
            json_pack("{s:I,s:I,s:I,s:f,s:o,s:o}", "records",
                      (json_int_t)(t->variant_ok[i] + t->variant_err[i]), "ok",
                      (json_int_t)t->variant_ok[i], "errors", (json_int_t)t->variant_err[i],
                      "solve_seconds", (double)t->variant_ns[i] / 1e9, "solve_histogram",
                      solve_histogram(t, i, &bad), "by_size", by_size(t, i, &bad)),
            &bad);
    }
    if (bad) {
        json_decref(by);
        return NULL;
    }
    return by;
}

int cairn_filter_summary_render(const struct cairn_tally *t, const struct cairn_registry *reg,
                                double wall_seconds, struct cairn_buf *out)
{
    json_t *errors = errors_object(t), *by = by_variant_object(t, reg), *root;
    int rc;

    if (errors == NULL || by == NULL) {
        json_decref(errors);
        json_decref(by);
        return -ENOMEM;
    }
    /* "o" steals errors and by, even when json_pack fails. */
    root = json_pack("{s:I,s:I,s:o,s:o,s:I,s:I,s:I,s:f,s:f}", "records", (json_int_t)t->records,
                     "ok", (json_int_t)t->ok, "errors", errors, "by_variant", by, "matches",
                     (json_int_t)t->matches, "mismatches", (json_int_t)t->mismatches, "unchecked",
                     (json_int_t)t->unchecked, "wall_seconds", wall_seconds, "solve_seconds",
                     (double)t->solve_ns / 1e9);
    rc = root != NULL ? dump_line(root, out) : -ENOMEM;
    json_decref(root);
    return rc;
}

int cairn_summary_render(const struct cairn_job_facts *job, struct cairn_buf *out)
{
    const struct cairn_tally *t = job->tally;
    const struct cairn_registry *reg = job->reg;
    json_t *root = json_object(), *errors = json_object(), *by_variant = by_variant_object(t, reg);
    struct timespec finished;
    char started_s[32], finished_s[32];
    char *results_file = cairn_output_name(job->out_base, CAIRN_RESULTS_SUFFIX);
    /* Names go into JSON escaped (util.h): one that is not valid UTF-8
     * would otherwise be refused by jansson and silently left out. */
    char *job_s = cairn_name_escape(job->base), *input = cairn_name_escape(job->name);
    char *results = results_file != NULL ? cairn_name_escape(results_file) : NULL;
    size_t i;
    int rc = -ENOMEM, bad = 0;

    clock_gettime(CLOCK_REALTIME, &finished);
    cairn_rfc3339(&job->started, started_s);
    cairn_rfc3339(&finished, finished_s);
    if (root == NULL || errors == NULL || by_variant == NULL || results == NULL || job_s == NULL ||
        input == NULL)
        goto out;
    for (i = 0; i < CAIRN_CODE_COUNT; i++)
        put(errors, cairn_code_name(i), json_integer((json_int_t)t->errors[i]), &bad);
    put(root, "job", json_string(job_s), &bad);
    put(root, "status", json_string(job->reason != NULL ? "failed" : "ok"), &bad);
    if (job->reason != NULL)
        put(root, "reason", json_string(job->reason), &bad);
    put(root, "input", json_string(input), &bad);
    if (job->submitted_as != NULL) {
        /* How a script that dropped NAME.jsonl finds this run. */
        char *as = cairn_name_escape(job->submitted_as);
        if (as == NULL)
            goto out;
        put(root, "submitted_as", json_string(as), &bad);
        free(as);
    }
    if (job->input_inode != 0)
        put(root, "input_inode", json_integer((json_int_t)job->input_inode), &bad);
    if (job->reason == NULL)
        put(root, "results", json_string(results), &bad);
    put(root, "records", json_integer((json_int_t)t->records), &bad);
    put(root, "ok", json_integer((json_int_t)t->ok), &bad);
    put(root, "errors", errors, &bad);
    put(root, "by_variant", by_variant, &bad);
    errors = by_variant = NULL;
    put(root, "matches", json_integer((json_int_t)t->matches), &bad);
    put(root, "mismatches", json_integer((json_int_t)t->mismatches), &bad);
    put(root, "unchecked", json_integer((json_int_t)t->unchecked), &bad);
    put(root, "bytes", json_integer((json_int_t)job->bytes), &bad);
    put(root, "started", json_string(started_s), &bad);
    put(root, "finished", json_string(finished_s), &bad);
    put(root, "wall_seconds", json_real(job->wall_seconds), &bad);
    put(root, "solve_seconds", json_real((double)t->solve_ns / 1e9), &bad);
    put(root, "pid", json_integer((json_int_t)job->pid), &bad);

    if (!bad)
        rc = dump_line(root, out);
out:
    json_decref(errors);
    json_decref(by_variant);
    json_decref(root);
    free(results);
    free(results_file);
    free(job_s);
    free(input);
    return rc;
}

int cairn_reason_render(const struct cairn_job_facts *job, struct cairn_buf *out)
{
    struct timespec now;
    char when[32];
    json_t *root;
    int rc;

    clock_gettime(CLOCK_REALTIME, &now);
    cairn_rfc3339(&now, when);
    char *job_s = cairn_name_escape(job->base);

    root = job_s == NULL ? NULL
                         : json_pack("{s:s,s:s,s:s,s:I}", "job", job_s, "reason", job->reason,
                                     "time", when, "pid", (json_int_t)job->pid);
    free(job_s);
    rc = root != NULL ? dump_line(root, out) : -ENOMEM;
    json_decref(root);
    return rc;
}
