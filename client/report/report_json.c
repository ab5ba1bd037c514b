/*
 * report_json.c - the report as one JSON object, for scripts: totals, per
 * variant, per size, per trap, the smallest failing inputs and every
 * mismatch.  docs/cairn.1 (JSON REPORT) names every field; a field is
 * added, never renamed.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_format.h"
#include "report_json.h"
#include "report_spill.h"

/* JSON text as written in a file (an id, an answer, an input) as a value;
 * a text that does not parse (cut, or made printable) as a string; null
 * for none. */
static json_t *value(const char *text)
{
    json_error_t e;
    json_t *v;

    if (text == NULL)
        return json_null();
    v = json_loads(text, JSON_DECODE_ANY, &e);
    return v != NULL ? v : json_string(text);
}

static json_t *share(uint64_t part, uint64_t whole)
{
    return whole > 0 ? json_real((double)part / (double)whole) : json_null();
}

static json_t *why(const char *s)
{
    return s != NULL ? json_string(s) : json_null();
}

static json_t *num(const struct cairn_rep_num *n)
{
    return n->real ? json_real(n->d) : json_integer(n->i);
}

/* Where a record is: its id as the results line has it, byte for byte. */
static json_t *where(const struct cairn_report *r, const struct cairn_rep_where *w)
{
    json_t *o = json_pack("{s:s?,s:n,s:I,s:o}", "variant", w->variant, "job", "line",
                          (json_int_t)w->line, "id", value(w->id_json ? w->id_json : w->id));

    if (o != NULL && cairn_report_json_job(o, r, w->job_index) != 0) {
        json_decref(o);
        o = NULL;
    }
    return o;
}

static json_t *error_size(const struct cairn_rep_variant *v)
{
    if (v->int_errors == 0)
        return json_null();
    return json_pack("{s:I,s:f,s:I}", "count", (json_int_t)v->int_errors, "mean",
                     v->error_sum / (double)v->int_errors, "max", (json_int_t)v->error_max);
}

static json_t *smallest(const struct cairn_report *r, const struct cairn_rep_variant *v)
{
    const struct cairn_rep_mismatch *m = &v->small.m;
    json_t *o;

    if (v->small.input == NULL)
        return json_null();
    o = where(r, &m->at);
    json_object_set_new(o, "input", value(v->small.input));
    json_object_set_new(o, "values", json_integer((json_int_t)v->small.values));
    json_object_set_new(o, "magnitude", json_real(v->small.magnitude));
    json_object_set_new(o, "given", value(m->given));
    json_object_set_new(o, "exact", value(m->exact));
    json_object_set_new(o, "moves", value(v->small.moves));
    json_object_set_new(o, "moves_why", why(v->small.moves_why));
    return o;
}

static json_t *variant(const struct cairn_rep_variant *v)
{
    return json_pack("{s:s,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o,s:I,s:I}", "variant", v->name, "records",
                     (json_int_t)v->records, "ok", (json_int_t)v->ok, "errors",
                     (json_int_t)v->errors, "checked", (json_int_t)v->checked, "matches",
                     (json_int_t)v->matches, "mismatches", (json_int_t)v->mismatches, "accuracy",
                     share(v->matches, v->checked), "error_size", error_size(v), "graded",
                     (json_int_t)v->graded, "optimal", (json_int_t)v->optimal);
}

static int build(const struct cairn_report *r, json_t *root)
{
    json_t *vars = json_array(), *sizes = json_array(), *traps = json_array(),
           *small = json_array(), *bl = json_array(), *codes = json_object();
    size_t i, k;
    int rc = 0;

    json_object_set_new(root, "source", json_string(r->out_dir));
    json_object_set_new(
        root, "totals",
        json_pack("{s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:I,s:o,s:o}", "jobs", (json_int_t)r->n_jobs,
                  "jobs_ok", (json_int_t)r->jobs_ok, "jobs_failed", (json_int_t)r->jobs_failed,
                  "records", (json_int_t)r->records, "ok", (json_int_t)r->ok, "errors",
                  (json_int_t)r->errors, "checked", (json_int_t)(r->matches + r->mismatches),
                  "matches", (json_int_t)r->matches, "mismatches", (json_int_t)r->mismatches,
                  "accuracy", share(r->matches, r->matches + r->mismatches), "unchecked",
                  r->has_unchecked ? json_integer((json_int_t)r->unchecked) : json_null()));
    for (i = 0; i < r->n_codes; i++)
        json_object_set_new(codes, r->codes[i].name, json_integer((json_int_t)r->codes[i].n));
    json_object_set_new(root, "errors", codes);
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];

        json_array_append_new(vars, variant(v));
        for (k = 0; k < CAIRN_SIZE_BUCKETS; k++) {
            uint64_t lo, hi;
            char label[48];

            if (v->size[k].checked == 0)
                continue;
            cairn_size_bucket_range(k, &lo, &hi);
            cairn_report_size_label(k, label);
            json_array_append_new(
                sizes,
                json_pack("{s:s,s:s,s:I,s:o,s:I,s:I,s:o}", "variant", v->name, "size", label, "min",
                          (json_int_t)lo, "max",
                          hi == UINT64_MAX ? json_null() : json_integer((json_int_t)hi), "checked",
                          (json_int_t)v->size[k].checked, "matches", (json_int_t)v->size[k].matches,
                          "accuracy", share(v->size[k].matches, v->size[k].checked)));
        }
        for (k = 0; k < v->n_traps; k++)
            json_array_append_new(
                traps, json_pack("{s:s,s:s,s:I,s:I,s:o}", "variant", v->name, "trap",
                                 v->traps[k].name, "checked", (json_int_t)v->traps[k].checked,
                                 "matches", (json_int_t)v->traps[k].matches, "accuracy",
                                 share(v->traps[k].matches, v->traps[k].checked)));
        if (v->small.input != NULL)
            json_array_append_new(small, smallest(r, v));
        for (k = 0; k < v->n_bl; k++) {
            json_t *b = where(r, &v->bl[k].at);

            json_object_set_new(b, "ply", json_integer((json_int_t)v->bl[k].ply));
            json_object_set_new(b, "by", json_string(v->bl[k].by));
            json_object_set_new(b, "move", value(v->bl[k].move));
            json_object_set_new(b, "best", value(v->bl[k].best));
            json_object_set_new(b, "cost", num(&v->bl[k].cost));
            json_array_append_new(bl, b);
        }
    }
    json_object_set_new(root, "variants", vars);
    json_object_set_new(root, "by_size", sizes);
    json_object_set_new(root, "by_trap", traps);
    json_object_set_new(root, "smallest", small);
    json_object_set_new(root, "blunders", bl);
    json_object_set_new(
        root, "not_shown",
        json_pack("{s:o,s:o}", "by_size", why(r->sizes_why), "inputs", why(r->inputs_why)));
    json_object_set_new(root, "damaged", json_integer((json_int_t)r->damaged));
    return rc;
}

/* The object is written whole but for "mismatches", last, whose elements
 * stream from the spill one at a time: every mismatch, never all in
 * memory. */
int cairn_report_json(const struct cairn_report *r, FILE *out)
{
    json_t *root = json_object();
    int rc = root != NULL ? build(r, root) : -ENOMEM;
    char *head = rc == 0 ? json_dumps(root, JSON_COMPACT) : NULL;
    size_t n = head != NULL ? strlen(head) : 0;

    if (rc == 0 && (head == NULL || n < 2))
        rc = -ENOMEM;
    /* head is "{...}": its last byte is the closing brace. */
    if (rc == 0 && (fwrite(head, 1, n - 1, out) != n - 1 || fputs(",\"mismatches\":[", out) < 0))
        rc = -EIO;
    if (rc == 0)
        rc = cairn_report_spill_json(r, out);
    if (rc == 0 && fputs("]}\n", out) < 0)
        rc = -EIO;
    free(head);
    json_decref(root);
    return rc;
}
