/*
 * record.c - one job line in, one result line out (SPEC section 3): read
 * the record (the plain reader, or jansson), resolve the variant, check
 * the inputs (inputs.c), solve, render.
 */
#include "record.h"

#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "fastparse.h"
#include "hang.h"
#include "record_internal.h"
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

int cairn_rec_fail(struct rec_error *e, enum cairn_code code, const char *fmt, ...)
{
    va_list ap;

    e->code = code;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof(e->msg), fmt, ap);
    va_end(ap);
    return -1;
}

const char *cairn_json_type_name(const json_t *v)
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
const char *cairn_short_name(const char *s, char out[72])
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

int cairn_grow(void **p, size_t *cap, size_t need, size_t elem)
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

static void scalar_from_json(struct scalar *v, const json_t *j)
{
    memset(v, 0, sizeof(*v));
    v->json = j;
    switch (json_typeof(j)) {
    case JSON_STRING:
        v->kind = CAIRN_FAST_STRING;
        v->s = json_string_value(j);
        v->n = json_string_length(j);
        break;
    case JSON_INTEGER:
        v->kind = CAIRN_FAST_INT;
        v->i = (int64_t)json_integer_value(j);
        break;
    case JSON_TRUE: v->kind = CAIRN_FAST_TRUE; break;
    case JSON_FALSE: v->kind = CAIRN_FAST_FALSE; break;
    case JSON_NULL: v->kind = CAIRN_FAST_NULL; break;
    default: break; /* a real, an array, an object: kept as json */
    }
}

static int present(const struct scalar *v)
{
    return v->kind != CAIRN_FAST_ABSENT || v->json != NULL;
}

static const char *scalar_type(const struct scalar *v)
{
    switch (v->kind) {
    case CAIRN_FAST_STRING: return "a string";
    case CAIRN_FAST_INT: return "an integer";
    case CAIRN_FAST_TRUE:
    case CAIRN_FAST_FALSE: return "a boolean";
    case CAIRN_FAST_NULL: return "null";
    case CAIRN_FAST_ABSENT: break;
    }
    return v->json != NULL ? cairn_json_type_name(v->json) : "nothing";
}

static void render_id_of(const struct scalar *v, struct cairn_id *id)
{
    id->kind = v->kind;
    id->s = v->s;
    id->n = v->n;
    id->i = v->i;
    id->json = v->kind == CAIRN_FAST_ABSENT ? v->json : NULL;
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
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "options: expected an object, got %s",
                    cairn_json_type_name(opts));
    json_object_foreach(opts, key, val) {
        if (strcmp(key, "limits") == 0) {
            const char *s = json_string_value(val);
            if (s != NULL && strcmp(s, "official") == 0)
                r->limits = CAIRN_LIMITS_OFFICIAL;
            else if (s != NULL && strcmp(s, "extended") == 0)
                r->limits = CAIRN_LIMITS_EXTENDED;
            else
                return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                            "options.limits: expected \"official\" or \"extended\"");
        } else if (strcmp(key, "moves") == 0) {
            if (!json_is_boolean(val))
                return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "options.moves: expected a boolean, got %s",
                            cairn_json_type_name(val));
            r->want_moves = json_is_true(val);
        } else {
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                        "options.%s: unknown option (known: limits, moves)",
                        cairn_short_name(key, nb));
        }
    }
    return 0;
}

static int resolve(struct rec *r, const struct cairn_record_ctx *ctx, const char *name,
                   struct rec_error *e)
{
    char nb[72];

    r->plugin = cairn_registry_find(ctx->reg, name);
    if (r->plugin == NULL)
        return cairn_rec_fail(e, CAIRN_CODE_UNKNOWN_VARIANT,
                    "variant \"%s\" names no loaded plugin or alias (see cairnd --list-plugins)",
                    cairn_short_name(name, nb));
    r->plugin_index = (size_t)(r->plugin - ctx->reg->plugins);
    return 0;
}

/* Checks the record's shape and resolves its variant. */
static int parse_record(struct rec *r, const struct cairn_record_ctx *ctx, const char *line,
                        size_t len, struct rec_error *e)
{
    json_error_t jerr;
    json_t *variant;
    const char *name;

    /* Duplicate keys make a record mean two things; refuse to guess.
     * DECODE_ANY: a bare scalar is valid JSON, so it is a bad_record. */
    r->root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    if (r->root == NULL)
        return cairn_rec_fail(e, CAIRN_CODE_BAD_JSON, "column %d: %s", jerr.column, jerr.text);
    if (!json_is_object(r->root))
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "a record must be a JSON object, got %s",
                    cairn_json_type_name(r->root));

    {
        const json_t *id = json_object_get(r->root, "id");
        if (id != NULL && (json_is_object(id) || json_is_array(id)))
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "id: expected a scalar, got %s",
                        cairn_json_type_name(id));
        if (id != NULL)
            scalar_from_json(&r->id, id);
    }

    variant = json_object_get(r->root, "variant");
    if (variant == NULL) {
        if (ctx->default_variant == NULL)
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                        "variant: missing (and no default_variant is configured)");
        name = ctx->default_variant;
    } else if (!json_is_string(variant)) {
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "variant: expected a string, got %s",
                    cairn_json_type_name(variant));
    } else {
        name = json_string_value(variant);
    }

    r->input = json_object_get(r->root, "input");
    if (r->input == NULL)
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "input: missing");
    if (!json_is_object(r->input))
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "input: expected an object, got %s",
                    cairn_json_type_name(r->input));

    if (json_object_get(r->root, "expected") != NULL)
        scalar_from_json(&r->expected, json_object_get(r->root, "expected"));
    if (parse_options(r, ctx, e) != 0)
        return -1;

    return resolve(r, ctx, name, e);
}

/* The same record from the plain-record reader: only clean records get
 * here, so only the errors past parsing can occur. */
static int take_fast(struct rec *r, const struct cairn_record_ctx *ctx,
                     const struct cairn_fast_rec *f, struct rec_error *e)
{
    char name[80];
    const char *variant = ctx->default_variant;

    r->fast = f;
    r->id = (struct scalar){.kind = f->id.kind, .s = f->id.s, .n = f->id.n, .i = f->id.i};
    r->expected = (struct scalar){
        .kind = f->expected.kind, .s = f->expected.s, .n = f->expected.n, .i = f->expected.i};
    r->limits = f->limits >= 0 ? (enum cairn_limits)f->limits : ctx->default_limits;
    r->want_moves = f->moves > 0;
    if (f->variant.kind == CAIRN_FAST_STRING) {
        /* Longer than any plugin name: still an unknown variant, named
         * (shortened) the way the jansson path names it. */
        size_t n = f->variant.n < sizeof(name) - 1 ? f->variant.n : sizeof(name) - 1;
        memcpy(name, f->variant.s, n);
        name[n] = '\0';
        variant = name;
    } else if (variant == NULL) {
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                    "variant: missing (and no default_variant is configured)");
    }
    return resolve(r, ctx, variant, e);
}

static int expected_matches(const struct cairn_plugin *d, const struct scalar *x,
                            int64_t answer, int *match, struct rec_error *e)
{
    static const char *const winners[] = {"Alice", "Bob", "Tie"};

    switch (d->answer_kind) {
    case CAIRN_ANSWER_BOOL:
        if (x->kind != CAIRN_FAST_TRUE && x->kind != CAIRN_FAST_FALSE)
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "expected: %s answers a boolean, got %s",
                        d->name, scalar_type(x));
        *match = (x->kind == CAIRN_FAST_TRUE) == (answer != 0);
        return 0;
    case CAIRN_ANSWER_INT:
        if (x->kind != CAIRN_FAST_INT)
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "expected: %s answers an integer, got %s",
                        d->name, scalar_type(x));
        *match = x->i == answer;
        return 0;
    case CAIRN_ANSWER_WINNER: {
        size_t w;
        for (w = 0; w < 3; w++)
            if (x->kind == CAIRN_FAST_STRING && x->n == strlen(winners[w]) &&
                memcmp(x->s, winners[w], x->n) == 0)
                break;
        if (w == 3)
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                        "expected: %s answers \"Alice\", \"Bob\" or \"Tie\"", d->name);
        *match = answer >= 0 && answer <= 2 && (size_t)answer == w;
        return 0;
    }
    }
    return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "plugin %s has an unknown answer kind", d->name);
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
    struct cairn_id id;
    size_t need;
    int rc, match = 0;
    uint64_t t0, dt;

    if (d->n_inputs > sizeof(arrays) / sizeof(arrays[0]))
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "plugin %s declares too many inputs", d->name);
    if ((r->fast != NULL ? cairn_rec_load_fast_inputs(r, s, arrays, e) : cairn_rec_load_inputs(r, s, arrays, e)) != 0)
        return -1;
    prob = (struct cairn_problem){.inputs = arrays, .n_inputs = d->n_inputs,
                                  .limits = r->limits, .want_moves = r->want_moves};
    memset(&res, 0, sizeof(res));

    if (d->check != NULL && (rc = d->check(&prob, msg, sizeof(msg))) != CAIRN_OK)
        return cairn_rec_fail(e, rc == CAIRN_E_TOO_LARGE ? CAIRN_CODE_TOO_LARGE : CAIRN_CODE_CONSTRAINT,
                    "%s", msg[0] ? msg : "input breaks a rule of the game");
    need = d->scratch_bytes(&prob);
    if (cairn_grow(&s->mem, &s->mem_cap, need ? need : 1, 1) != 0)
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "out of memory (needs %zu bytes of scratch)", need);
    if (r->want_moves) {
        size_t m = d->max_moves(&prob);
        if (cairn_grow((void **)&s->moves, &s->moves_cap, m ? m : 1, sizeof(int32_t)) != 0)
            return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "out of memory for %zu moves", m);
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
        return cairn_rec_fail(e, rc == CAIRN_E_TOO_LARGE ? CAIRN_CODE_TOO_LARGE
                     : rc == CAIRN_E_CONSTRAINT ? CAIRN_CODE_CONSTRAINT
                                                : CAIRN_CODE_INTERNAL,
                    "%s: %s", d->name, msg[0] ? msg : "solver failed");
    if (d->answer_kind == CAIRN_ANSWER_WINNER && (res.answer < 0 || res.answer > 2))
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "%s returned an unknown winner", d->name);
    if (r->want_moves && res.n_moves > res.moves_cap)
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "%s overran its moves buffer", d->name);

    if (present(&r->expected) && expected_matches(d, &r->expected, res.answer, &match, e) != 0)
        return -1;
    render_id_of(&r->id, &id);
    if (cairn_render_head(out, r->line_no, &id, r->plugin) != 0 ||
        cairn_render_ok(out, d, &res, r->want_moves, present(&r->expected), match) != 0)
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "out of memory rendering the result");

    tally->ok++;
    tally->variant_ok[r->plugin_index]++;
    if (present(&r->expected)) {
        if (match)
            tally->matches++;
        else
            tally->mismatches++;
    }
    return 0;
}

/* solve_record, with the worker saying which record's plugin calls it is
 * in: one that never returns must be noticed (hang.h). */
static int watched_solve(const struct cairn_record_ctx *ctx, const struct rec *r,
                         struct cairn_scratch *s, struct cairn_buf *out,
                         struct cairn_tally *tally, struct rec_error *e)
{
    int rc;

    cairn_hang_begin(ctx->hang, ctx, r->line_no, r->plugin->desc->name);
    rc = solve_record(r, s, out, tally, e);
    cairn_hang_end(ctx->hang);
    return rc;
}

int cairn_record_process(const struct cairn_record_ctx *ctx, struct cairn_scratch *s,
                         uint64_t line_no, const char *line, size_t len,
                         struct cairn_buf *out, struct cairn_tally *tally)
{
    struct rec r = {.line_no = line_no, .plugin_index = ctx->reg->n_plugins};
    struct cairn_fast_rec fast;
    struct rec_error e;
    struct cairn_id id;
    size_t mark = out->len;
    int rc = 0, took;

    tally->records++;
    cairn_arena_begin(&s->arena);
    /* Plain records skip the general JSON tree; anything else, and every
     * error message about the JSON itself, comes from jansson. */
    took = ctx->no_fast_path ? 0 : cairn_fast_parse(line, len, &fast, s);
    if (took < 0) {
        rc = cairn_rec_fail(&e, CAIRN_CODE_INTERNAL, "out of memory reading the record");
    } else if (took == 1) {
        rc = take_fast(&r, ctx, &fast, &e);
    } else {
        rc = parse_record(&r, ctx, line, len, &e);
    }
    if (rc == 0 && watched_solve(ctx, &r, s, out, tally, &e) == 0)
        goto done;

    /* Drop anything half-rendered before writing the error line. */
    rc = 0;
    out->len = mark;
    tally->errors[e.code]++;
    tally->variant_err[r.plugin_index]++;
    render_id_of(&r.id, &id);
    if (cairn_render_head(out, line_no, &id, r.plugin) != 0 ||
        cairn_render_error_tail(out, e.code, e.msg) != 0)
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
    struct cairn_id none = {.kind = CAIRN_FAST_ABSENT};

    if (cairn_render_head(out, line_no, &none, NULL) != 0 ||
        cairn_render_error_tail(out, code, message) != 0)
        return -ENOMEM;
    return 0;
}
