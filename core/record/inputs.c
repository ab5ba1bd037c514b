/*
 * inputs.c - a record's inputs checked against the plugin's declaration:
 * every invalid_input / constraint / too_large message about an input is
 * written here, naming the field, the index and the limit, the same way
 * for both readers and every plugin.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "inputs.h"

#include <jansson.h>

#include "jsontext.h"
#include "util.h"

/* What the checks need to know of the record: whose inputs, which limits. */
struct want {
    const struct cairn_plugin *d;
    enum cairn_limits limits;
};

/* Over a maximum: too_large under extended limits, else constraint, with
 * the hint only when the extended limits would allow it (lifted). */
static int bound_error(struct cairn_rec_error *e, const struct want *r, const char *field,
                       const char *what, const char *detail, int lifted)
{
    int extended = r->limits == CAIRN_LIMITS_EXTENDED;

    return cairn_rec_fail(
        e, extended ? CAIRN_CODE_TOO_LARGE : CAIRN_CODE_CONSTRAINT, "input.%s%s: %s%s", field, what,
        detail,
        !extended && lifted ? " (options.limits \"extended\" lifts the official limits)" : "");
}

static const struct cairn_bounds *bounds_of(const struct want *r,
                                            const struct cairn_input_decl *decl)
{
    return r->limits == CAIRN_LIMITS_EXTENDED ? &decl->extended : &decl->official;
}

static const char *limits_name(const struct want *r)
{
    return r->limits == CAIRN_LIMITS_EXTENDED ? "extended" : "official";
}

/* Length first: it is cheap, and it protects memory before the elements
 * are looked at. */
static int check_length(const struct want *r, const struct cairn_input_decl *decl, size_t n,
                        struct cairn_rec_error *e)
{
    const struct cairn_bounds *b = bounds_of(r, decl);
    char detail[160];

    if (n > b->max_len) {
        snprintf(detail, sizeof(detail), "length %zu is over the %s maximum %zu", n, limits_name(r),
                 b->max_len);
        return bound_error(e, r, decl->name, "", detail, n <= decl->extended.max_len);
    }
    if (n < b->min_len)
        return cairn_rec_fail(e, CAIRN_CODE_CONSTRAINT,
                              "input.%s: length %zu is under the minimum %zu", decl->name, n,
                              b->min_len);
    return 0;
}

static int is_scalar(const struct cairn_input_decl *decl)
{
    return decl->kind == CAIRN_INPUT_INT;
}

/* A value out of bounds: constraint or too_large, the same words for an
 * array element ("input.piles[3]: ...") and a scalar ("input.n: ..."). */
static int check_values(const struct want *r, const struct cairn_input_decl *decl, const int64_t *v,
                        size_t n, struct cairn_rec_error *e)
{
    const struct cairn_bounds *b = bounds_of(r, decl);
    char where[32] = "", detail[160];
    size_t i;

    for (i = 0; i < n; i++)
        if (v[i] < b->min_value || v[i] > b->max_value)
            break;
    if (i == n)
        return 0;
    if (!is_scalar(decl))
        snprintf(where, sizeof(where), "[%zu]", i);
    snprintf(detail, sizeof(detail), "%lld is %s the %s %s %lld", (long long)v[i],
             v[i] < b->min_value ? "below" : "over", limits_name(r),
             v[i] < b->min_value ? "minimum" : "maximum",
             (long long)(v[i] < b->min_value ? b->min_value : b->max_value));
    /* Below a minimum of zero or more (a count, a stone's weight) is a rule
     * broken under any limits, never "too large" (the hint only where the
     * extended minimum is lower); below a negative extended minimum is a
     * magnitude past 64-bit arithmetic, as over the maximum. */
    if (v[i] < b->min_value &&
        !(r->limits == CAIRN_LIMITS_EXTENDED && decl->extended.min_value < 0))
        return cairn_rec_fail(e, CAIRN_CODE_CONSTRAINT, "input.%s%s: %s%s", decl->name, where,
                              detail,
                              r->limits == CAIRN_LIMITS_OFFICIAL && v[i] >= decl->extended.min_value
                                  ? " (options.limits \"extended\" lifts the official limits)"
                                  : "");
    return bound_error(e, r, decl->name, where, detail, v[i] <= decl->extended.max_value);
}

/* An input of the wrong JSON shape (an array where a scalar is declared,
 * or the other way round); got is "an array", "an integer", ... */
static int shape_error(struct cairn_rec_error *e, const struct cairn_input_decl *decl,
                       const char *got)
{
    return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT, "input.%s: expected %s, got %s", decl->name,
                          is_scalar(decl) ? "an integer" : "an array of integers", got);
}

/* The arrays the plugin flagged in equal_length, compared with the first
 * of them.  Checked before any bound: such a record is malformed under
 * any limits. */
static int check_equal_lengths(const struct cairn_plugin *d, const struct cairn_array *arrays,
                               struct cairn_rec_error *e)
{
    size_t first = d->n_inputs, i;

    for (i = 0; i < d->n_inputs && i < 32; i++) {
        if (!(d->equal_length & (UINT32_C(1) << i)))
            continue;
        if (first == d->n_inputs)
            first = i;
        else if (arrays[i].n != arrays[first].n)
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT,
                                  "input.%s: length %zu differs from input.%s's length %zu",
                                  d->inputs[i].name, arrays[i].n, d->inputs[first].name,
                                  arrays[first].n);
    }
    return 0;
}

/* Converts one declared integer array into dst, checking it against the
 * bounds for the record's limits. */
static int load_array(const struct want *r, const struct cairn_input_decl *decl, const json_t *arr,
                      int64_t *dst, struct cairn_rec_error *e)
{
    size_t n = json_array_size(arr), i;

    if (check_length(r, decl, n, e) != 0)
        return -1;
    for (i = 0; i < n; i++) {
        const json_t *v = json_array_get(arr, i);

        if (json_typeof(v) != JSON_INTEGER)
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT,
                                  "input.%s[%zu]: expected an integer, got %s", decl->name, i,
                                  cairn_json_type_name(v));
        dst[i] = (int64_t)json_integer_value(v);
    }
    return check_values(r, decl, dst, n, e);
}

/* Builds the plain C problem from the record's input object.  The checks
 * run in this order in both readers, so their messages agree: unknown
 * fields (in the record's order), then per declared input missing or of
 * the wrong shape, then equal lengths, then per input its bounds. */
int cairn_inputs_from_json(const struct cairn_plugin *d, enum cairn_limits limits, json_t *input,
                           struct cairn_scratch *s, struct cairn_array *arrays,
                           struct cairn_rec_error *e)
{
    const struct want want = { .d = d, .limits = limits }, *r = &want;
    size_t i, total = 0, at = 0;
    char nb[72];
    void *it;

    /* Not json_object_foreach(): it also tests each value for NULL. */
    for (it = json_object_iter(input); it != NULL; it = json_object_iter_next(input, it)) {
        const char *key = json_object_iter_key(it);

        for (i = 0; i < d->n_inputs; i++)
            if (strcmp(key, d->inputs[i].name) == 0)
                break;
        if (i == d->n_inputs)
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT, "input.%s: %s takes no such field",
                                  cairn_short_name(key, nb), d->name);
    }
    for (i = 0; i < d->n_inputs; i++) {
        json_t *v = json_object_get(input, d->inputs[i].name);
        if (v == NULL)
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT, "input.%s: missing (%s needs it)",
                                  d->inputs[i].name, d->name);
        if (json_typeof(v) != (is_scalar(&d->inputs[i]) ? JSON_INTEGER : JSON_ARRAY))
            return shape_error(e, &d->inputs[i], cairn_json_type_name(v));
        arrays[i].n = is_scalar(&d->inputs[i]) ? 1 : json_array_size(v);
        total += arrays[i].n;
    }
    if (check_equal_lengths(d, arrays, e) != 0)
        return -1;
    if (cairn_grow((void **)&s->values, &s->values_cap, total ? total : 1, sizeof(int64_t)) != 0)
        return cairn_rec_oom(e, "out of memory for %zu values", total);
    for (i = 0; i < d->n_inputs; i++) {
        json_t *v = json_object_get(input, d->inputs[i].name);
        int64_t *dst = s->values + at;

        if (is_scalar(&d->inputs[i])) {
            *dst = (int64_t)json_integer_value(v);
            if (check_values(r, &d->inputs[i], dst, 1, e) != 0)
                return -1;
        } else if (load_array(r, &d->inputs[i], v, dst, e) != 0) {
            return -1;
        }
        arrays[i].v = dst;
        at += arrays[i].n;
    }
    return 0;
}

/* The plain reader's input: its integers are already in s->values.  The
 * checks run in the jansson path's order, so messages agree. */
int cairn_inputs_from_fast(const struct cairn_plugin *d, enum cairn_limits limits,
                           const struct cairn_fast_rec *f, struct cairn_scratch *s,
                           struct cairn_array *arrays, struct cairn_rec_error *e)
{
    const struct want want = { .d = d, .limits = limits }, *r = &want;
    const struct cairn_fast_input *given[CAIRN_FAST_MAX_INPUTS] = { 0 };
    size_t i, j;
    char key[256], nb[72];

    /* Every array points into s->values, even an empty one. */
    if (cairn_grow((void **)&s->values, &s->values_cap, 1, sizeof(int64_t)) != 0)
        return cairn_rec_oom(e, "out of memory");
    for (j = 0; j < f->n_inputs; j++) {
        for (i = 0; i < d->n_inputs; i++)
            if (strlen(d->inputs[i].name) == f->inputs[j].name_len &&
                memcmp(d->inputs[i].name, f->inputs[j].name, f->inputs[j].name_len) == 0)
                break;
        if (i == d->n_inputs) {
            size_t n =
                f->inputs[j].name_len < sizeof(key) - 1 ? f->inputs[j].name_len : sizeof(key) - 1;
            memcpy(key, f->inputs[j].name, n);
            key[n] = '\0';
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT, "input.%s: %s takes no such field",
                                  cairn_short_name(key, nb), d->name);
        }
        given[i] = &f->inputs[j];
        arrays[i] = (struct cairn_array){ .v = s->values + f->inputs[j].off, .n = f->inputs[j].n };
    }
    for (i = 0; i < d->n_inputs; i++) {
        if (given[i] == NULL)
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT, "input.%s: missing (%s needs it)",
                                  d->inputs[i].name, d->name);
        /* The plain reader takes only integers and integer arrays. */
        if (is_scalar(&d->inputs[i]) != given[i]->scalar)
            return shape_error(e, &d->inputs[i], given[i]->scalar ? "an integer" : "an array");
    }
    if (check_equal_lengths(d, arrays, e) != 0)
        return -1;
    for (i = 0; i < d->n_inputs; i++)
        if ((!is_scalar(&d->inputs[i]) && check_length(r, &d->inputs[i], arrays[i].n, e) != 0) ||
            check_values(r, &d->inputs[i], arrays[i].v, arrays[i].n, e) != 0)
            return -1;
    return 0;
}
