/*
 * record.c - one job line in, one result line out (docs/contract.md, Results): read
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

#include "analysis.h"
#include "fastparse.h"
#include "hang.h"
#include "idscan.h"
#include "inputs.h"
#include "jsontext.h"
#include "render.h"

/* ---- one record ------------------------------------------------------- */

/* Everything learned about a record on the way to solving it. */
struct rec {
    uint64_t line_no;
    json_t *root;                      /* jansson's tree, or NULL */
    json_t *scanned_id;                /* the id an error line found by idscan */
    const struct cairn_fast_rec *fast; /* or the plain reader's record */
    struct cairn_scalar id;
    struct cairn_scalar expected;
    json_t *input;
    const struct cairn_plugin_handle *plugin;
    size_t plugin_index; /* registry index, or n_plugins when unresolved */
    enum cairn_limits limits;
    int want_moves;
    struct cairn_analysis_req analysis; /* options.analysis and options.play */
};

static void scalar_from_json(struct cairn_scalar *v, const json_t *j)
{
    memset(v, 0, sizeof(*v));
    v->json = j;
    switch (json_typeof(j)) {
    case JSON_STRING:
        v->kind = CAIRN_SCALAR_STRING;
        v->s = json_string_value(j);
        v->n = json_string_length(j);
        break;
    case JSON_INTEGER:
        v->kind = CAIRN_SCALAR_INT;
        v->i = (int64_t)json_integer_value(j);
        break;
    case JSON_TRUE: v->kind = CAIRN_SCALAR_TRUE; break;
    case JSON_FALSE: v->kind = CAIRN_SCALAR_FALSE; break;
    case JSON_NULL: v->kind = CAIRN_SCALAR_NULL; break;
    default: break; /* a real, an array, an object: kept as json */
    }
}

static const char *scalar_type(const struct cairn_scalar *v)
{
    switch (v->kind) {
    case CAIRN_SCALAR_STRING: return "a string";
    case CAIRN_SCALAR_INT: return "an integer";
    case CAIRN_SCALAR_TRUE:
    case CAIRN_SCALAR_FALSE: return "a boolean";
    case CAIRN_SCALAR_NULL: return "null";
    case CAIRN_SCALAR_ABSENT: break;
    }
    return v->json != NULL ? cairn_json_type_name(v->json) : "nothing";
}

/* A plugin's status as a result code; anything but the two input verdicts
 * (an unknown value included) is the plugin's own failure. */
static enum cairn_code code_of_status(int status)
{
    switch (status) {
    case CAIRN_E_CONSTRAINT: return CAIRN_CODE_CONSTRAINT;
    case CAIRN_E_TOO_LARGE: return CAIRN_CODE_TOO_LARGE;
    default: return CAIRN_CODE_INTERNAL;
    }
}

static int parse_options(struct rec *r, const struct cairn_record_ctx *ctx,
                         struct cairn_rec_error *e)
{
    json_t *opts = json_object_get(r->root, "options");
    void *it;
    char nb[72];

    r->limits = ctx->default_limits;
    r->want_moves = 0;
    if (opts == NULL)
        return 0;
    if (json_typeof(opts) != JSON_OBJECT)
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "options: expected an object, got %s",
                              cairn_json_type_name(opts));
    /* Not json_object_foreach(): it also tests each value for NULL. */
    for (it = json_object_iter(opts); it != NULL; it = json_object_iter_next(opts, it)) {
        const char *key = json_object_iter_key(it);
        const json_t *val = json_object_iter_value(it);

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
            if (json_typeof(val) != JSON_TRUE && json_typeof(val) != JSON_FALSE)
                return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                                      "options.moves: expected a boolean, got %s",
                                      cairn_json_type_name(val));
            r->want_moves = json_typeof(val) == JSON_TRUE;
        } else if (strcmp(key, "analysis") == 0) {
            if (json_typeof(val) != JSON_TRUE && json_typeof(val) != JSON_FALSE)
                return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                                      "options.analysis: expected a boolean, got %s",
                                      cairn_json_type_name(val));
            r->analysis.want_analysis = json_typeof(val) == JSON_TRUE;
        } else if (strcmp(key, "play") == 0) {
            /* Its moves are checked once the variant, which says what a
             * move looks like, is known (analysis.c). */
            if (json_typeof(val) != JSON_ARRAY)
                return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                                      "options.play: expected an array of moves, got %s",
                                      cairn_json_type_name(val));
            r->analysis.play = val;
        } else {
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                                  "options.%s: unknown option (known: limits, moves, analysis, "
                                  "play)",
                                  cairn_short_name(key, nb));
        }
    }
    return 0;
}

static int resolve(struct rec *r, const struct cairn_record_ctx *ctx, const char *name,
                   struct cairn_rec_error *e)
{
    char nb[72];

    r->plugin = cairn_registry_find(ctx->reg, name);
    if (r->plugin == NULL)
        return cairn_rec_fail(
            e, CAIRN_CODE_UNKNOWN_VARIANT,
            "variant \"%s\" names no loaded plugin or alias (see cairnd --list-plugins)",
            cairn_short_name(name, nb));
    r->plugin_index = (size_t)(r->plugin - ctx->reg->plugins);
    return 0;
}

/* The name the record's variant is looked up by: its "variant" string, or
 * with none the configured default; NULL when it has none to give. */
static const char *variant_name(const struct rec *r, const struct cairn_record_ctx *ctx)
{
    const json_t *v = json_object_get(r->root, "variant");

    return v == NULL ? ctx->default_variant : json_is_string(v) ? json_string_value(v) : NULL;
}

/* jansson's syntax error, in the words of a record on one line.  A byte
 * that is not UTF-8 is reported by jansson at the character before it
 * (column 0 for the first): the column is the byte's own, counted from 1
 * as every other error's.  "near end of file" is the end of the line
 * here, and JSON_ALLOW_NUL is jansson's flag, not the user's business. */
static int bad_json(struct cairn_rec_error *e, const json_error_t *jerr)
{
    static const char eof[] = " near end of file", nul[] = " is not allowed without JSON_ALLOW_NUL";
    enum json_error_code code = json_error_code(jerr);
    int column = jerr->column + (code == json_error_invalid_utf8);
    size_t n = strlen(jerr->text);
    const char *cut = strstr(jerr->text, nul);

    if (cut != NULL)
        return cairn_rec_fail(e, CAIRN_CODE_BAD_JSON,
                              "column %d: \\u0000 (a NUL character) is not allowed in a string%s",
                              column, cut + strlen(nul));
    if (n > strlen(eof) && strcmp(jerr->text + n - strlen(eof), eof) == 0)
        return cairn_rec_fail(e, CAIRN_CODE_BAD_JSON, "column %d: %.*s at the end of the line",
                              column, (int)(n - strlen(eof)), jerr->text);
    return cairn_rec_fail(e, CAIRN_CODE_BAD_JSON, "column %d: %s", column, jerr->text);
}

/* Checks the record's shape and resolves its variant. */
static int parse_record(struct rec *r, const struct cairn_record_ctx *ctx, const char *line,
                        size_t len, struct cairn_rec_error *e)
{
    struct cairn_rec_error unknown;
    json_error_t jerr;
    json_t *variant;
    const char *name;
    int unresolved;

    /* Duplicate keys make a record mean two things; refuse to guess.
     * DECODE_ANY: a bare scalar is valid JSON, so it is a bad_record. */
    errno = 0;
    r->root = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &jerr);
    /* Out of memory is not the line's fault: internal, not bad_json.
     * jansson leaves no text for some of its allocation failures, and
     * calls one while it reads a string a syntax error ("string or '}'
     * expected"): only errno tells. */
    if (r->root == NULL && (json_error_code(&jerr) == json_error_out_of_memory ||
                            jerr.text[0] == '\0' || errno == ENOMEM))
        return cairn_rec_oom(e, "out of memory parsing the record");
    if (r->root == NULL)
        return bad_json(e, &jerr);
    if (!json_is_object(r->root))
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "a record must be a JSON object, got %s",
                              cairn_json_type_name(r->root));
    /* The variant is looked up before anything can fail, so that every
     * error line of a record whose variant is readable names it and is
     * counted under it (docs/contract.md); its own errors are said in
     * their turn below. */
    name = variant_name(r, ctx);
    unresolved = name != NULL ? resolve(r, ctx, name, &unknown) : 0;

    {
        const json_t *id = json_object_get(r->root, "id");
        if (id != NULL && (json_is_object(id) || json_is_array(id)))
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "id: expected a scalar, got %s",
                                  cairn_json_type_name(id));
        if (id != NULL)
            scalar_from_json(&r->id, id);
        /* A real is echoed as written, not as the double jansson made of
         * it: 0.1 stays 0.1, 1.50 stays 1.50 (render.c); so is an integer
         * zero, which may be -0. */
        if (id != NULL &&
            (json_typeof(id) == JSON_REAL ||
             (json_typeof(id) == JSON_INTEGER && json_integer_value(id) == 0)) &&
            !cairn_json_member_text(line, len, "id", &r->id.s, &r->id.n))
            r->id.s = NULL;
    }

    /* Read before anything can fail, so a record that ends in an error
     * still counts as "unchecked" when it expected an answer. */
    if (json_object_get(r->root, "expected") != NULL)
        scalar_from_json(&r->expected, json_object_get(r->root, "expected"));

    variant = json_object_get(r->root, "variant");
    if (name == NULL && variant == NULL)
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                              "variant: missing (and no default_variant is configured)");
    if (name == NULL)
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "variant: expected a string, got %s",
                              cairn_json_type_name(variant));

    r->input = json_object_get(r->root, "input");
    if (r->input == NULL)
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "input: missing");
    if (!json_is_object(r->input))
        return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD, "input: expected an object, got %s",
                              cairn_json_type_name(r->input));

    /* An unknown variant is reported only after the options, as before. */
    if (parse_options(r, ctx, e) != 0)
        return -1;
    if (unresolved != 0)
        *e = unknown;
    return unresolved;
}

/* The same record from the plain-record reader: only clean records get
 * here, so only the errors past parsing can occur. */
static int take_fast(struct rec *r, const struct cairn_record_ctx *ctx,
                     const struct cairn_fast_rec *f, struct cairn_rec_error *e)
{
    char name[80];
    const char *variant = ctx->default_variant;

    r->fast = f;
    r->id = f->id;
    r->expected = f->expected;
    r->limits = f->limits >= 0 ? (enum cairn_limits)f->limits : ctx->default_limits;
    r->want_moves = f->moves > 0;
    r->analysis.want_analysis = f->analysis > 0;
    r->analysis.play_text = f->play;
    r->analysis.play_end = f->play_end;
    r->analysis.n_play = f->n_play;
    if (f->variant.kind == CAIRN_SCALAR_STRING) {
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

static int expected_matches(const struct cairn_plugin *d, const struct cairn_scalar *x,
                            int64_t answer, int *match, struct cairn_rec_error *e)
{
    static const char *const winners[] = { "Alice", "Bob", "Tie" };

    switch (d->answer_kind) {
    case CAIRN_ANSWER_BOOL:
        if (x->kind != CAIRN_SCALAR_TRUE && x->kind != CAIRN_SCALAR_FALSE)
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                                  "expected: %s answers a boolean, got %s", d->name,
                                  scalar_type(x));
        *match = (x->kind == CAIRN_SCALAR_TRUE) == (answer != 0);
        return 0;
    case CAIRN_ANSWER_INT:
        if (x->kind != CAIRN_SCALAR_INT)
            return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                                  "expected: %s answers an integer, got %s", d->name,
                                  scalar_type(x));
        *match = x->i == answer;
        return 0;
    case CAIRN_ANSWER_WINNER: {
        size_t w;
        for (w = 0; w < 3; w++)
            if (x->kind == CAIRN_SCALAR_STRING && x->n == strlen(winners[w]) &&
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

/* A record's size for the summary's accuracy by size (buckets.h): its
 * longest array, or with no array, its largest number (a game of n
 * stones). */
static uint64_t record_size(const struct cairn_plugin *d, const struct cairn_array *in)
{
    uint64_t longest = 0, largest = 0;
    size_t i;

    for (i = 0; i < d->n_inputs; i++) {
        if (d->inputs[i].kind == CAIRN_INPUT_INT_ARRAY) {
            if (in[i].n > longest)
                longest = in[i].n;
        } else if (in[i].n == 1 && in[i].v[0] > 0 && (uint64_t)in[i].v[0] > largest) {
            largest = (uint64_t)in[i].v[0];
        }
    }
    return longest > 0 ? longest : largest;
}

/* Validates, solves and renders a parsed record. */
static int solve_record(const struct rec *r, struct cairn_scratch *s, struct cairn_buf *out,
                        struct cairn_tally *tally, struct cairn_rec_error *e)
{
    const struct cairn_plugin *d = r->plugin->desc;
    struct cairn_array arrays[CAIRN_FAST_MAX_INPUTS]; /* inputs.h counts on the bound */
    struct cairn_problem prob;
    struct cairn_result res;
    char msg[256] = "";
    size_t need, size_bucket;
    int rc, match = 0;
    uint64_t t0, dt;

    /* Before any work: the record asks what this plugin cannot give. */
    if (cairn_analysis_offered(d, &r->analysis, e) != 0)
        return -1;
    if (d->n_inputs > sizeof(arrays) / sizeof(arrays[0]))
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "plugin %s declares too many inputs",
                              d->name);
    if ((r->fast != NULL ? cairn_inputs_from_fast(d, r->limits, r->fast, s, arrays, e)
                         : cairn_inputs_from_json(d, r->limits, r->input, s, arrays, e)) != 0)
        return -1;
    prob = (struct cairn_problem){
        .inputs = arrays, .n_inputs = d->n_inputs, .limits = r->limits, .want_moves = r->want_moves
    };
    memset(&res, 0, sizeof(res));

    if (d->check != NULL && (rc = d->check(&prob, msg, sizeof(msg))) != CAIRN_OK) {
        int internal = code_of_status(rc) == CAIRN_CODE_INTERNAL;

        return cairn_rec_fail(e, code_of_status(rc), "%s%s%s", internal ? d->name : "",
                              internal ? ": " : "",
                              msg[0]     ? msg
                              : internal ? "check failed"
                                         : "input breaks a rule of the game");
    }
    /* An expected answer of the wrong type makes the record bad before it
     * is solved: no solve is spent, or counted, on a record that fails. */
    if (cairn_scalar_present(&r->expected) && expected_matches(d, &r->expected, 0, &match, e) != 0)
        return -1;
    need = d->scratch_bytes(&prob);
    if (cairn_grow(&s->mem, &s->mem_cap, need ? need : 1, 1) != 0)
        return cairn_rec_oom(e, "out of memory (needs %zu bytes of scratch)", need);
    if (r->want_moves) {
        size_t m = d->max_moves(&prob);
        if (cairn_grow((void **)&s->moves, &s->moves_cap, m ? m : 1, sizeof(int32_t)) != 0)
            return cairn_rec_oom(e, "out of memory for %zu moves", m);
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
        return cairn_rec_fail(e, code_of_status(rc), "%s: %s", d->name,
                              msg[0] ? msg : "solver failed");
    if (d->answer_kind == CAIRN_ANSWER_WINNER && (res.answer < 0 || res.answer > 2))
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "%s returned an unknown winner", d->name);
    if (r->want_moves && res.n_moves > res.moves_cap)
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "%s overran its moves buffer", d->name);

    if (cairn_scalar_present(&r->expected) &&
        expected_matches(d, &r->expected, res.answer, &match, e) != 0)
        return -1;
    if (cairn_render_head(out, r->line_no, &r->id, r->plugin) != 0 ||
        cairn_render_ok(out, d, &res, r->want_moves, &r->expected, match) != 0)
        return cairn_rec_oom(e, "out of memory rendering the result");
    /* Only records that ask pay for analysis: the answer first, then the
     * moves valued. */
    if (cairn_analysis_wanted(&r->analysis) &&
        cairn_analysis_render(d, &prob, &r->analysis, s, out, e) != 0)
        return -1;
    if (cairn_render_end(out) != 0)
        return cairn_rec_oom(e, "out of memory rendering the result");

    tally->ok++;
    tally->variant_ok[r->plugin_index]++;
    size_bucket = cairn_size_bucket(record_size(d, arrays));
    CAIRN_TALLY_SIZE(tally, r->plugin_index, size_bucket, CAIRN_SIZE_OK)++;
    if (cairn_scalar_present(&r->expected)) {
        CAIRN_TALLY_SIZE(tally, r->plugin_index, size_bucket, CAIRN_SIZE_CHECKED)++;
        if (match) {
            tally->matches++;
            CAIRN_TALLY_SIZE(tally, r->plugin_index, size_bucket, CAIRN_SIZE_MATCHES)++;
        } else {
            tally->mismatches++;
        }
    }
    return 0;
}

/* The 1-based column, in characters as a JSON parser counts them, of the
 * byte at offset at. */
static size_t utf8_column(const char *line, size_t at)
{
    size_t col = 1;

    for (size_t i = 0; i < at; i++)
        col += ((unsigned char)line[i] & 0xC0) != 0x80;
    return col;
}

/* solve_record, with the worker saying which record's plugin calls it is
 * in: one that never returns must be noticed (hang.h). */
static int watched_solve(const struct cairn_record_ctx *ctx, const struct rec *r,
                         struct cairn_scratch *s, struct cairn_buf *out, struct cairn_tally *tally,
                         struct cairn_rec_error *e)
{
    int rc;

    cairn_hang_begin(ctx->hang, ctx, r->line_no, r->plugin->desc->name);
    rc = solve_record(r, s, out, tally, e);
    cairn_hang_end(ctx->hang);
    return rc;
}

/* The record could not be read, but its id and variant may be: an
 * idscan's small scalars, each decoded alone by jansson (so each means
 * what it would have in the whole record), for the error line.  The
 * configured default variant stands in only for a record seen whole
 * without one (use_default: its JSON may well be sound, as a record too
 * large to read is). */
static void take_scanned(struct rec *r, const struct cairn_record_ctx *ctx,
                         const struct cairn_idscan *sc, int use_default)
{
    json_error_t jerr;
    const char *text;
    size_t n;

    if ((text = cairn_idscan_text(sc, 0, &n)) != NULL &&
        (r->scanned_id = json_loadb(text, n, JSON_DECODE_ANY, &jerr)) != NULL) {
        scalar_from_json(&r->id, r->scanned_id);
        /* A real and a zero are echoed as written (parse_record). */
        if (json_typeof(r->scanned_id) == JSON_REAL ||
            (json_typeof(r->scanned_id) == JSON_INTEGER &&
             json_integer_value(r->scanned_id) == 0)) {
            r->id.s = text;
            r->id.n = n;
        }
    }
    if ((text = cairn_idscan_text(sc, 1, &n)) != NULL) {
        json_t *v = json_loadb(text, n, JSON_DECODE_ANY, &jerr);

        if (json_is_string(v))
            r->plugin = cairn_registry_find(ctx->reg, json_string_value(v));
        json_decref(v); /* malloc's, outside a record's arena */
    } else if (use_default && sc->complete && sc->variant.state == 0 &&
               ctx->default_variant != NULL) {
        r->plugin = cairn_registry_find(ctx->reg, ctx->default_variant);
    }
    if (r->plugin != NULL)
        r->plugin_index = (size_t)(r->plugin - ctx->reg->plugins);
}

static size_t memory_budget(size_t len)
{
    return len > CAIRN_RECORD_MEMORY_FLOOR / CAIRN_RECORD_MEMORY_PER_BYTE
               ? len * CAIRN_RECORD_MEMORY_PER_BYTE
               : CAIRN_RECORD_MEMORY_FLOOR;
}

int cairn_record_process(const struct cairn_record_ctx *ctx, struct cairn_scratch *s,
                         uint64_t line_no, const char *line, size_t len, struct cairn_buf *out,
                         struct cairn_tally *tally)
{
    struct rec r = { .line_no = line_no, .plugin_index = ctx->reg->n_plugins };
    struct cairn_fast_rec fast;
    struct cairn_idscan sc; /* holds the id an error line echoes */
    struct cairn_rec_error e;
    size_t mark = out->len;
    const char *nul;
    int rc = 0, took;

    tally->records++;
    cairn_arena_begin(&s->arena, memory_budget(len));
    /* Plain records skip the general JSON tree; anything else, and every
     * error message about the JSON itself, comes from jansson. */
    /* JSON text cannot hold a raw NUL, but jansson stops reading a number
     * or literal at one and carries on: refuse it before jansson.  The
     * fast reader accepts a line only when every byte of it is one it
     * understood, never a NUL, so the scan is needed only when it did not
     * take the line (a pass over every line was 1 % of small records). */
    took = ctx->no_fast_path ? 0 : cairn_fast_parse(line, len, &fast, s);
    nul = took == 1 ? NULL : memchr(line, '\0', len);
    if (nul != NULL) {
        rc = cairn_rec_fail(&e, CAIRN_CODE_BAD_JSON,
                            "column %zu: a raw NUL byte, which JSON text cannot hold",
                            utf8_column(line, (size_t)(nul - line)));
    } else if (took < 0) {
        rc = cairn_rec_oom(&e, "out of memory reading the record");
    } else if (took == 1) {
        rc = take_fast(&r, ctx, &fast, &e);
    } else {
        rc = parse_record(&r, ctx, line, len, &e);
    }
    if (rc == 0 && watched_solve(ctx, &r, s, out, tally, &e) == 0)
        goto done;
    /* Out of budget, not out of memory: the line's fault, not the
     * machine's (a job is not handed back for it). */
    if (s->arena.exceeded)
        cairn_rec_fail(&e, CAIRN_CODE_TOO_LARGE,
                       "reading the record needs more than %zu bytes of memory (%d per byte of "
                       "its line, at least %zu MiB): too many small JSON values",
                       memory_budget(len), CAIRN_RECORD_MEMORY_PER_BYTE,
                       CAIRN_RECORD_MEMORY_FLOOR >> 20);
    if (r.root == NULL && r.fast == NULL) {
        /* Never read: its id and variant are looked for without a tree,
         * in a fresh arena (the record's may be spent). */
        cairn_arena_end(&s->arena);
        cairn_arena_begin(&s->arena, CAIRN_RECORD_MEMORY_FLOOR);
        cairn_idscan_init(&sc);
        cairn_idscan_feed(&sc, line, len);
        take_scanned(&r, ctx, &sc, e.code == CAIRN_CODE_TOO_LARGE);
    }

    /* Drop anything half-rendered before writing the error line. */
    rc = 0;
    out->len = mark;
    tally->errors[e.code]++;
    tally->out_of_memory += (uint64_t)e.out_of_memory;
    /* An expected answer that could not be graded is counted, not lost. */
    if (cairn_scalar_present(&r.expected))
        tally->unchecked++;
    tally->variant_err[r.plugin_index]++;
    if (cairn_render_head(out, line_no, &r.id, r.plugin) != 0 ||
        cairn_render_error_tail(out, e.code, e.msg) != 0) {
        out->len = mark;
        rc = -ENOMEM;
    }
done:
    /* With the arena, dropping the whole tree is one reset, not a walk
     * over 50 000 nodes. */
    if (!cairn_arena_installed())
        json_decref(r.root);
    json_decref(r.scanned_id); /* at most a small scalar */
    cairn_arena_end(&s->arena);
    return rc;
}

int cairn_record_error(uint64_t line_no, enum cairn_code code, const char *message,
                       struct cairn_buf *out, struct cairn_tally *tally)
{
    tally->records++;
    tally->errors[code]++;
    tally->variant_err[tally->n_variants - 1]++;
    if (cairn_render_head(out, line_no, NULL, NULL) != 0 ||
        cairn_render_error_tail(out, code, message) != 0)
        return -ENOMEM;
    return 0;
}

int cairn_record_error_noted(const struct cairn_record_ctx *ctx, uint64_t line_no,
                             enum cairn_code code, const char *message, const char *note, size_t n,
                             struct cairn_buf *out, struct cairn_tally *tally)
{
    struct rec r = { .line_no = line_no, .plugin_index = ctx->reg->n_plugins };
    struct cairn_idscan sc;
    size_t mark = out->len;
    int rc = 0;

    cairn_idscan_init(&sc);
    cairn_idscan_feed(&sc, note, n);
    /* A note cut short may end in a number, which a blank ends.  Its
     * object is complete only when the line's was. */
    cairn_idscan_feed(&sc, " ", 1);
    take_scanned(&r, ctx, &sc, 1);
    tally->records++;
    tally->errors[code]++;
    tally->variant_err[r.plugin_index]++;
    if (cairn_render_head(out, line_no, &r.id, r.plugin) != 0 ||
        cairn_render_error_tail(out, code, message) != 0) {
        out->len = mark;
        rc = -ENOMEM;
    }
    json_decref(r.scanned_id);
    return rc;
}
