/*
 * record.c - one job line in, one result line out (SPEC section 3).
 *
 * Every invalid_input / constraint / too_large message is produced here,
 * from the plugin's input declaration, so all plugins speak the same way
 * and name the field, the index and the limit.
 */
#include "record.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "render.h"

static const char *const code_names[CAIRN_CODE_COUNT] = {
    [CAIRN_CODE_BAD_JSON] = "bad_json",
    [CAIRN_CODE_BAD_RECORD] = "bad_record",
    [CAIRN_CODE_UNKNOWN_VARIANT] = "unknown_variant",
    [CAIRN_CODE_INVALID_INPUT] = "invalid_input",
    [CAIRN_CODE_CONSTRAINT] = "constraint",
    [CAIRN_CODE_TOO_LARGE] = "too_large",
    [CAIRN_CODE_INTERNAL] = "internal",
};

const char *cairn_code_name(enum cairn_code code)
{
    return (unsigned)code < CAIRN_CODE_COUNT ? code_names[code] : "internal";
}

/* ---- one record ------------------------------------------------------- */

struct rec_error {
    enum cairn_code code;
    char msg[512];
};

/* Everything learned about a record on the way to solving it. */
struct rec {
    uint64_t line_no;
    json_t *root;
    json_t *id;
    json_t *input;
    json_t *expected;
    const struct cairn_plugin_handle *plugin;
    size_t plugin_index; /* registry index, or n_plugins when unresolved */
    enum cairn_limits limits;
    int want_moves;
};

static int fail(struct rec_error *e, enum cairn_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail(struct rec_error *e, enum cairn_code code, const char *fmt, ...)
{
    va_list ap;

    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

static const char *type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}

/* Copies a user-supplied name into out, cut at a UTF-8 boundary, so error
 * messages stay short and valid UTF-8 whatever the key was. */
static const char *short_name(const char *s, char out[72])
{
    size_t n = strlen(s), cut = 64;

    if (n <= cut)
        return s;
    while (cut > 0 && ((unsigned char)s[cut] & 0xC0) == 0x80)
        cut--;
    memcpy(out, s, cut);
    memcpy(out + cut, "...", 4);
    return out;
}

static int parse_options(struct rec *r, const struct cairn_record_ctx *ctx,
                         struct rec_error *e)
{
    json_t *opts = json_object_get(r->root, "options");
    const char *key;
    json_t *val;
    char nb[72];

    r->limits = ctx->default_limits;
    r->want_moves = 0;
    if (opts == NULL)
        return 0;
    if (!json_is_object(opts))
        return fail(e, CAIRN_CODE_BAD_RECORD, "options: expected an object, got %s",
                    type_name(opts));
    json_object_foreach(opts, key, val) {
        if (strcmp(key, "limits") == 0) {
            const char *s = json_string_value(val);
            if (s != NULL && strcmp(s, "official") == 0)
                r->limits = CAIRN_LIMITS_OFFICIAL;
            else if (s != NULL && strcmp(s, "extended") == 0)
                r->limits = CAIRN_LIMITS_EXTENDED;
            else
                return fail(e, CAIRN_CODE_BAD_RECORD,
                            "options.limits: expected \"official\" or \"extended\"");
        } else if (strcmp(key, "moves") == 0) {
            if (!json_is_boolean(val))
                return fail(e, CAIRN_CODE_BAD_RECORD, "options.moves: expected a boolean, got %s",
                            type_name(val));
            r->want_moves = json_is_true(val);
        } else {
            return fail(e, CAIRN_CODE_BAD_RECORD,
                        "options.%s: unknown option (known: limits, moves)",
                        short_name(key, nb));
        }
    }
    return 0;
}

/* Checks the record's shape and resolves its variant. */
static int parse_record(struct rec *r, const struct cairn_record_ctx *ctx, const char *line,
                        size_t len, struct rec_error *e)
{
    json_error_t jerr;
    json_t *variant;
    const char *name;
    char nb[72];

    /* Duplicate keys make a record mean two things; refuse to guess.
     * DECODE_ANY: a bare scalar is valid JSON, so it is a bad_record. */
    r->root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (r->root == NULL)
        return fail(e, CAIRN_CODE_BAD_JSON, "column %d: %s", jerr.column, jerr.text);
    if (!json_is_object(r->root))
        return fail(e, CAIRN_CODE_BAD_RECORD, "a record must be a JSON object, got %s",
                    type_name(r->root));

    r->id = json_object_get(r->root, "id");
    if (r->id != NULL && (json_is_object(r->id) || json_is_array(r->id))) {
        r->id = NULL;
        return fail(e, CAIRN_CODE_BAD_RECORD, "id: expected a scalar, got %s",
                    type_name(json_object_get(r->root, "id")));
    }

    variant = json_object_get(r->root, "variant");
    if (variant == NULL) {
        if (ctx->default_variant == NULL)
            return fail(e, CAIRN_CODE_BAD_RECORD,
                        "variant: missing (and no default_variant is configured)");
        name = ctx->default_variant;
    } else if (!json_is_string(variant)) {
        return fail(e, CAIRN_CODE_BAD_RECORD, "variant: expected a string, got %s",
                    type_name(variant));
    } else {
        name = json_string_value(variant);
    }

    r->input = json_object_get(r->root, "input");
    if (r->input == NULL)
        return fail(e, CAIRN_CODE_BAD_RECORD, "input: missing");
    if (!json_is_object(r->input))
        return fail(e, CAIRN_CODE_BAD_RECORD, "input: expected an object, got %s",
                    type_name(r->input));

    r->expected = json_object_get(r->root, "expected");
    if (parse_options(r, ctx, e) != 0)
        return -1;

    r->plugin = cairn_registry_find(ctx->reg, name);
    if (r->plugin == NULL)
        return fail(e, CAIRN_CODE_UNKNOWN_VARIANT,
                    "variant \"%s\" names no loaded plugin or alias (see cairnd --list-plugins)",
                    short_name(name, nb));
    r->plugin_index = (size_t)(r->plugin - ctx->reg->plugins);
    return 0;
}

static int bound_error(struct rec_error *e, const struct rec *r, const char *field,
                       const char *what, const char *detail)
{
    int extended = r->limits == CAIRN_LIMITS_EXTENDED;

    return fail(e, extended ? CAIRN_CODE_TOO_LARGE : CAIRN_CODE_CONSTRAINT,
                "input.%s%s: %s%s", field, what, detail,
                extended ? "" : " (options.limits \"extended\" lifts the official limits)");
}

/* Converts one declared integer array into dst, checking it against the
 * bounds for the record's limits. */
static int load_array(const struct rec *r, const struct cairn_input_decl *decl,
                      const json_t *arr, int64_t *dst, struct rec_error *e)
{
    const struct cairn_bounds *b =
        r->limits == CAIRN_LIMITS_EXTENDED ? &decl->extended : &decl->official;
    const char *limit_name = r->limits == CAIRN_LIMITS_EXTENDED ? "extended" : "official";
    size_t n = json_array_size(arr), i, bad = (size_t)-1;
    char detail[160];

    if (n > b->max_len) {
        snprintf(detail, sizeof(detail), "length %zu is over the %s maximum %zu", n,
                 limit_name, b->max_len);
        return bound_error(e, r, decl->name, "", detail);
    }
    if (n < b->min_len)
        return fail(e, CAIRN_CODE_CONSTRAINT, "input.%s: length %zu is under the minimum %zu",
                    decl->name, n, b->min_len);
    for (i = 0; i < n; i++) {
        const json_t *v = json_array_get(arr, i);
        int64_t x;

        if (!json_is_integer(v))
            return fail(e, CAIRN_CODE_INVALID_INPUT, "input.%s[%zu]: expected an integer, got %s",
                        decl->name, i, type_name(v));
        x = (int64_t)json_integer_value(v);
        dst[i] = x;
        if (bad == (size_t)-1 && (x < b->min_value || x > b->max_value))
            bad = i;
    }
    if (bad != (size_t)-1) {
        char where[32];
        int64_t x = dst[bad];

        snprintf(where, sizeof(where), "[%zu]", bad);
        snprintf(detail, sizeof(detail), "%lld is %s the %s %s %lld", (long long)x,
                 x < b->min_value ? "below" : "over", limit_name,
                 x < b->min_value ? "minimum" : "maximum",
                 (long long)(x < b->min_value ? b->min_value : b->max_value));
        return bound_error(e, r, decl->name, where, detail);
    }
    return 0;
}

static int grow(void **p, size_t *cap, size_t need, size_t elem)
{
    void *q;

    if (need <= *cap)
        return 0;
    if (need > SIZE_MAX / elem)
        return -ENOMEM;
    q = realloc(*p, need * elem);
    if (q == NULL)
        return -ENOMEM;
    *p = q;
    *cap = need;
    return 0;
}

/* Builds the plain C problem from the record's input object. */
static int load_inputs(const struct rec *r, struct cairn_scratch *s,
                       struct cairn_array *arrays, struct rec_error *e)
{
    const struct cairn_plugin *d = r->plugin->desc;
    const char *key;
    json_t *val;
    size_t i, total = 0, at = 0;
    char nb[72];

    json_object_foreach(r->input, key, val) {
        for (i = 0; i < d->n_inputs; i++)
            if (strcmp(key, d->inputs[i].name) == 0)
                break;
        if (i == d->n_inputs)
            return fail(e, CAIRN_CODE_INVALID_INPUT, "input.%s: %s takes no such field",
                        short_name(key, nb), d->name);
    }
    for (i = 0; i < d->n_inputs; i++) {
        json_t *arr = json_object_get(r->input, d->inputs[i].name);
        if (arr == NULL)
            return fail(e, CAIRN_CODE_INVALID_INPUT, "input.%s: missing (%s needs it)",
                        d->inputs[i].name, d->name);
        if (!json_is_array(arr))
            return fail(e, CAIRN_CODE_INVALID_INPUT,
                        "input.%s: expected an array of integers, got %s", d->inputs[i].name,
                        type_name(arr));
        total += json_array_size(arr);
    }
    if (grow((void **)&s->values, &s->values_cap, total ? total : 1, sizeof(int64_t)) != 0)
        return fail(e, CAIRN_CODE_INTERNAL, "out of memory for %zu values", total);
    for (i = 0; i < d->n_inputs; i++) {
        json_t *arr = json_object_get(r->input, d->inputs[i].name);
        if (load_array(r, &d->inputs[i], arr, s->values + at, e) != 0)
            return -1;
        arrays[i] = (struct cairn_array){.v = s->values + at, .n = json_array_size(arr)};
        at += arrays[i].n;
    }
    return 0;
}

static int expected_matches(const struct cairn_plugin *d, const json_t *x, int64_t answer,
                            int *match, struct rec_error *e)
{
    static const char *const winners[] = {"Alice", "Bob", "Tie"};

    switch (d->answer_kind) {
    case CAIRN_ANSWER_BOOL:
        if (!json_is_boolean(x))
            return fail(e, CAIRN_CODE_BAD_RECORD, "expected: %s answers a boolean, got %s",
                        d->name, type_name(x));
        *match = json_is_true(x) == (answer != 0);
        return 0;
    case CAIRN_ANSWER_INT:
        if (!json_is_integer(x))
            return fail(e, CAIRN_CODE_BAD_RECORD, "expected: %s answers an integer, got %s",
                        d->name, type_name(x));
        *match = (int64_t)json_integer_value(x) == answer;
        return 0;
    case CAIRN_ANSWER_WINNER: {
        const char *s = json_string_value(x);
        if (s == NULL || (strcmp(s, "Alice") != 0 && strcmp(s, "Bob") != 0 &&
                          strcmp(s, "Tie") != 0))
            return fail(e, CAIRN_CODE_BAD_RECORD,
                        "expected: %s answers \"Alice\", \"Bob\" or \"Tie\"", d->name);
        *match = answer >= 0 && answer <= 2 && strcmp(s, winners[answer]) == 0;
        return 0;
    }
    }
    return fail(e, CAIRN_CODE_INTERNAL, "plugin %s has an unknown answer kind", d->name);
}

static uint64_t now_ns(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Validates, solves and renders a parsed record. */
static int solve_record(const struct rec *r, struct cairn_scratch *s, struct cairn_buf *out,
                        struct cairn_tally *tally, struct rec_error *e)
{
    const struct cairn_plugin *d = r->plugin->desc;
    struct cairn_array arrays[8];
    struct cairn_problem prob;
    struct cairn_result res;
    char msg[256] = "";
    size_t need;
    int rc, match = 0;
    uint64_t t0, dt;

    if (d->n_inputs > sizeof(arrays) / sizeof(arrays[0]))
        return fail(e, CAIRN_CODE_INTERNAL, "plugin %s declares too many inputs", d->name);
    if (load_inputs(r, s, arrays, e) != 0)
        return -1;
    prob = (struct cairn_problem){.inputs = arrays, .n_inputs = d->n_inputs,
                                  .limits = r->limits, .want_moves = r->want_moves};
    memset(&res, 0, sizeof(res));

    if (d->check != NULL && (rc = d->check(&prob, msg, sizeof(msg))) != CAIRN_OK)
        return fail(e, rc == CAIRN_E_TOO_LARGE ? CAIRN_CODE_TOO_LARGE : CAIRN_CODE_CONSTRAINT,
                    "%s", msg[0] ? msg : "input breaks a rule of the game");
    need = d->scratch_bytes(&prob);
    if (grow(&s->mem, &s->mem_cap, need ? need : 1, 1) != 0)
        return fail(e, CAIRN_CODE_INTERNAL, "out of memory (needs %zu bytes of scratch)", need);
    if (r->want_moves) {
        size_t m = d->max_moves(&prob);
        if (grow((void **)&s->moves, &s->moves_cap, m ? m : 1, sizeof(int32_t)) != 0)
            return fail(e, CAIRN_CODE_INTERNAL, "out of memory for %zu moves", m);
        res.moves = s->moves;
        res.moves_cap = m;
    }

    t0 = now_ns();
    rc = d->solve(&prob, &res, s->mem, msg, sizeof(msg));
    dt = now_ns() - t0;
    tally->solve_ns += dt;
    tally->variant_ns[r->plugin_index] += dt;
    tally->variant_hist[r->plugin_index * CAIRN_SOLVE_BUCKETS + cairn_solve_bucket(dt)]++;
    if (rc != CAIRN_OK)
        return fail(e, rc == CAIRN_E_TOO_LARGE ? CAIRN_CODE_TOO_LARGE
                     : rc == CAIRN_E_CONSTRAINT ? CAIRN_CODE_CONSTRAINT
                                                : CAIRN_CODE_INTERNAL,
                    "%s: %s", d->name, msg[0] ? msg : "solver failed");
    if (d->answer_kind == CAIRN_ANSWER_WINNER && (res.answer < 0 || res.answer > 2))
        return fail(e, CAIRN_CODE_INTERNAL, "%s returned an unknown winner", d->name);
    if (r->want_moves && res.n_moves > res.moves_cap)
        return fail(e, CAIRN_CODE_INTERNAL, "%s overran its moves buffer", d->name);

    if (r->expected != NULL && expected_matches(d, r->expected, res.answer, &match, e) != 0)
        return -1;
    if (cairn_render_head(out, r->line_no, r->id, r->plugin) != 0 ||
        cairn_render_ok(out, d, &res, r->want_moves, r->expected != NULL, match) != 0)
        return fail(e, CAIRN_CODE_INTERNAL, "out of memory rendering the result");

    tally->ok++;
    tally->variant_ok[r->plugin_index]++;
    if (r->expected != NULL) {
        if (match)
            tally->matches++;
        else
            tally->mismatches++;
    }
    return 0;
}

int cairn_record_process(const struct cairn_record_ctx *ctx, struct cairn_scratch *s,
                         uint64_t line_no, const char *line, size_t len,
                         struct cairn_buf *out, struct cairn_tally *tally)
{
    struct rec r = {.line_no = line_no, .plugin_index = ctx->reg->n_plugins};
    struct rec_error e;
    size_t mark = out->len;
    int rc = 0;

    tally->records++;
    cairn_arena_begin(&s->arena);
    if (parse_record(&r, ctx, line, len, &e) == 0 && solve_record(&r, s, out, tally, &e) == 0)
        goto done;

    /* Drop anything half-rendered before writing the error line. */
    out->len = mark;
    tally->errors[e.code]++;
    tally->variant_err[r.plugin_index]++;
    if (cairn_render_head(out, line_no, r.id, r.plugin) != 0 || cairn_render_error_tail(out, e.code, e.msg) != 0)
        rc = -ENOMEM;
done:
    /* With the arena, dropping the whole tree is one reset, not a walk
     * over 50 000 nodes. */
    if (!cairn_arena_installed())
        json_decref(r.root);
    cairn_arena_end(&s->arena);
    return rc;
}

int cairn_record_error(uint64_t line_no, enum cairn_code code, const char *message,
                       struct cairn_buf *out, struct cairn_tally *tally)
{
    tally->records++;
    tally->errors[code]++;
    tally->variant_err[tally->n_variants - 1]++;
    if (cairn_render_head(out, line_no, NULL, NULL) != 0 || cairn_render_error_tail(out, code, message) != 0)
        return -ENOMEM;
    return 0;
}
