/*
 * analysis.c - options.analysis and options.play (see analysis.h).
 *
 * JSON stays here: options.play is encoded the way moves[] encodes moves
 * before analyze() sees it, and the plugin's plain numbers are rendered
 * here, each value in the unit its value_kind names.
 */
#include "analysis.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fastparse.h"
#include "jsontext.h"
#include "render.h"

int cairn_analysis_wanted(const struct cairn_analysis_req *req)
{
    return req->want_analysis || req->play != NULL || req->play_text != NULL;
}

int cairn_analysis_offered(const struct cairn_plugin *d, const struct cairn_analysis_req *req,
                           struct cairn_rec_error *e)
{
    if (!cairn_analysis_wanted(req) || d->analyze != NULL)
        return 0;
    return cairn_rec_fail(e, CAIRN_CODE_BAD_RECORD,
                          "options.%s: plugin %s offers no analysis (it speaks ABI %u.%u; "
                          "analysis needs 1.2 and a plugin that provides analyze())",
                          req->want_analysis ? "analysis" : "play", d->name, (unsigned)d->abi_major,
                          (unsigned)d->abi_minor);
}

/* One entry of options.play, whichever reader read it: an integer, a
 * string (s/n), a {"split":K,"keep":S} (i, s/n), or anything else, named
 * by its type. */
struct move_in {
    enum {
        MOVE_INT,
        MOVE_STRING,
        MOVE_SPLIT,
        MOVE_OTHER
    } kind;
    int64_t i;
    const char *s;
    size_t n;
    const char *type;
};

/* From jansson's tree (never NULL: an element of the array). */
static void move_of_json(const json_t *v, struct move_in *m)
{
    const json_t *at = json_object_get(v, "split"), *keep = json_object_get(v, "keep");

    memset(m, 0, sizeof(*m));
    m->kind = MOVE_OTHER;
    m->type = cairn_json_type_name(v);
    if (json_is_integer(v)) {
        m->kind = MOVE_INT;
        m->i = (int64_t)json_integer_value(v);
    } else if (json_is_string(v)) {
        m->kind = MOVE_STRING;
        m->s = json_string_value(v);
        m->n = json_string_length(v);
    } else if (json_is_object(v) && json_object_size(v) == 2 && json_is_integer(at) &&
               json_is_string(keep)) {
        m->kind = MOVE_SPLIT;
        m->i = (int64_t)json_integer_value(at);
        m->s = json_string_value(keep);
        m->n = json_string_length(keep);
    }
}

/* From the plain reader's text. */
static void move_of_fast(const struct cairn_fast_move *f, struct move_in *m)
{
    static const char *const types[] = { [CAIRN_FAST_MOVE_INT] = "an integer",
                                         [CAIRN_FAST_MOVE_STRING] = "a string",
                                         [CAIRN_FAST_MOVE_SPLIT] = "an object" };

    *m = (struct move_in){ .kind = f->kind == CAIRN_FAST_MOVE_INT      ? MOVE_INT
                                   : f->kind == CAIRN_FAST_MOVE_STRING ? MOVE_STRING
                                                                       : MOVE_SPLIT,
                           .i = f->i,
                           .s = f->s,
                           .n = f->n,
                           .type = types[f->kind] };
}

/* "L"/"R", or -1. */
static int side_of(const char *s, size_t n)
{
    if (s == NULL || n != 1 || (s[0] != 'L' && s[0] != 'R'))
        return -1;
    return s[0] == 'R';
}

/* One entry of options.play, encoded as moves[] encodes the game's moves. */
static int encode_move(const struct cairn_plugin *d, const struct move_in *v, size_t i, int32_t *m,
                       struct cairn_rec_error *e)
{
    int64_t k;
    int side;

    switch (d->moves_kind) {
    case CAIRN_MOVES_SIDE:
        if ((side = v->kind == MOVE_STRING ? side_of(v->s, v->n) : -1) < 0) {
            /* The string itself, control bytes and bytes that are not
             * UTF-8 shown as \xNN (util.h), at most 40 bytes of it. */
            char *raw = v->kind == MOVE_STRING ? strndup(v->s, v->n) : NULL;
            char *text = raw != NULL ? cairn_text_printable(raw) : NULL;
            size_t n = text != NULL ? strlen(text) : 0, shown = n;
            int rc;

            free(raw);
            if (v->kind == MOVE_STRING && text == NULL)
                return cairn_rec_oom(e, "out of memory quoting options.play[%zu]", i);
            if (shown > 40) /* cut between characters, not inside one */
                shown = cairn_utf8_cut(text, 40);
            rc = cairn_rec_fail(
                e, CAIRN_CODE_INVALID_INPUT,
                "options.play[%zu]: expected \"L\" or \"R\" (%s moves), got %s%.*s%s", i, d->name,
                text != NULL ? "the string \"" : "", text != NULL ? (int)shown : 64,
                text != NULL ? text : v->type,
                text == NULL ? ""
                : shown < n  ? "...\""
                             : "\"");
            free(text);
            return rc;
        }
        *m = side;
        return 0;
    case CAIRN_MOVES_COUNT:
    case CAIRN_MOVES_INDEX:
        if (v->kind != MOVE_INT)
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT,
                                  "options.play[%zu]: expected an integer (%s moves), got %s", i,
                                  d->name, v->type);
        k = v->i;
        if (k < 0 || k > INT32_MAX)
            return cairn_rec_fail(
                e, CAIRN_CODE_INVALID_INPUT,
                "options.play[%zu]: %" PRId64 " is not a legal move: a %s is "
                "never negative nor over %" PRId32,
                i, k, d->moves_kind == CAIRN_MOVES_COUNT ? "count" : "stone index", INT32_MAX);
        *m = (int32_t)k;
        return 0;
    case CAIRN_MOVES_SPLIT:
        if (v->kind != MOVE_SPLIT || (side = side_of(v->s, v->n)) < 0)
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT,
                                  "options.play[%zu]: expected {\"split\":K,\"keep\":\"L\"|\"R\"} "
                                  "(%s moves)",
                                  i, d->name);
        k = v->i;
        if (k < 0 || k > INT32_MAX / 2)
            return cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT,
                                  "options.play[%zu]: split %" PRId64 " is not a legal move: no "
                                  "row has a stone there",
                                  i, k);
        *m = CAIRN_MOVE_SPLIT(k, side);
        return 0;
    }
    return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "plugin %s has an unknown moves kind", d->name);
}

static int value_ok(const struct cairn_plugin *d, int64_t v)
{
    return d->value_kind != CAIRN_VALUE_WINNER || (v >= 0 && v <= CAIRN_WINNER_TIE);
}

static int put_value(struct cairn_buf *out, const struct cairn_plugin *d, int64_t v)
{
    static const char *const winners[] = { "\"Alice\"", "\"Bob\"", "\"Tie\"" };

    if (d->value_kind == CAIRN_VALUE_WINNER)
        return cairn_buf_puts(out, winners[v]);
    return cairn_buf_int(out, v);
}

/* In half-points for the mover: a win 2, a tie 1, a loss 0. */
static int64_t half_points(int64_t winner, int32_t mover)
{
    return winner == mover ? 2 : winner == CAIRN_WINNER_TIE ? 1 : 0;
}

/* What the move at a->ply lost against the best move, in the mover's
 * favour: > 0 for a move the plugin calls not optimal.  In half-points for
 * a win/lose game.  0 or -1 (the numbers make no sense). */
static int cost_of(const struct cairn_plugin *d, const struct cairn_analysis *a, int64_t *cost)
{
    if (d->value_kind == CAIRN_VALUE_WINNER) {
        *cost = half_points(a->best_value, a->mover) - half_points(a->value, a->mover);
        return *cost > 0 ? 0 : -1;
    }
    if (a->mover == CAIRN_WINNER_ALICE ? __builtin_sub_overflow(a->best_value, a->value, cost)
                                       : __builtin_sub_overflow(a->value, a->best_value, cost))
        return -1;
    return *cost > 0 ? 0 : -1;
}

/* Checks what analyze() gave before any of it is rendered. */
static int sane(const struct cairn_plugin *d, const struct cairn_analysis *a)
{
    if (a->ply > a->n_line || (a->mover != CAIRN_WINNER_ALICE && a->mover != CAIRN_WINNER_BOB) ||
        !value_ok(d, a->best_value) || (a->ply < a->n_line && !value_ok(d, a->value)) ||
        (a->moves != NULL && a->n_moves > a->moves_cap))
        return -1;
    for (size_t i = 0; a->moves != NULL && i < a->n_moves; i++)
        if (!value_ok(d, a->moves[i].value))
            return -1;
    return 0;
}

/* One analyze() call on the given line; moves wanted or not. */
static int run(const struct cairn_plugin *d, const struct cairn_problem *prob, size_t n_line,
               int want_moves, struct cairn_scratch *s, struct cairn_analysis *a,
               struct cairn_rec_error *e)
{
    char msg[256] = "";
    size_t need = d->analysis_scratch_bytes(prob, n_line);
    int rc;

    if (cairn_grow(&s->amem, &s->amem_cap, need ? need : 1, 1) != 0)
        return cairn_rec_oom(e, "out of memory (analysis needs %zu bytes of scratch)", need);
    memset(a, 0, sizeof(*a));
    a->line = s->line;
    a->n_line = n_line;
    if (want_moves) {
        size_t m = d->max_legal_moves(prob);
        if (cairn_grow((void **)&s->legal, &s->legal_cap, m ? m : 1, sizeof(*s->legal)) != 0)
            return cairn_rec_oom(e, "out of memory for %zu moves", m);
        a->moves = s->legal;
        a->moves_cap = m;
    }
    rc = d->analyze(prob, a, s->amem, msg, sizeof(msg));
    if (rc == CAIRN_E_ILLEGAL && a->bad < n_line) {
        struct cairn_buf mv = { 0 };
        int put = (cairn_render_move(&mv, d->moves_kind, s->line[a->bad]) |
                   cairn_buf_append(&mv, "", 1)) == 0;

        rc = cairn_rec_fail(e, CAIRN_CODE_INVALID_INPUT,
                            "options.play[%zu]: %s is not a legal move: %s", a->bad,
                            put ? mv.data : "the move", msg[0] ? msg : "the rules forbid it here");
        free(mv.data);
        return rc;
    }
    if (rc != CAIRN_OK) {
        enum cairn_code code = rc == CAIRN_E_CONSTRAINT  ? CAIRN_CODE_CONSTRAINT
                               : rc == CAIRN_E_TOO_LARGE ? CAIRN_CODE_TOO_LARGE
                                                         : CAIRN_CODE_INTERNAL;
        return cairn_rec_fail(e, code, "%s: %s", d->name, msg[0] ? msg : "analysis failed");
    }
    if (sane(d, a) != 0)
        return cairn_rec_fail(e, CAIRN_CODE_INTERNAL, "%s returned an impossible analysis",
                              d->name);
    return 0;
}

static int render_list(const struct cairn_plugin *d, const struct cairn_analysis *a,
                       struct cairn_buf *out)
{
    int rc = cairn_buf_puts(out, ",\"analysis\":[");

    for (size_t i = 0; i < a->n_moves; i++) {
        rc |= cairn_buf_puts(out, i ? ",{\"move\":" : "{\"move\":");
        rc |= cairn_render_move(out, d->moves_kind, a->moves[i].move);
        rc |= cairn_buf_puts(out, ",\"value\":");
        rc |= put_value(out, d, a->moves[i].value);
        rc |= cairn_buf_puts(out, "}");
    }
    return rc | cairn_buf_puts(out, "]");
}

static int render_grade(const struct cairn_plugin *d, const struct cairn_analysis *a, int64_t cost,
                        struct cairn_buf *out)
{
    int rc;

    if (a->ply == a->n_line) {
        rc = cairn_buf_puts(out, ",\"play\":{\"optimal\":true,\"plies\":");
        rc |= cairn_buf_int(out, (int64_t)a->n_line);
        rc |= cairn_buf_puts(out, ",\"value\":");
        rc |= put_value(out, d, a->best_value);
        return rc | cairn_buf_puts(out, "}");
    }
    rc = cairn_buf_puts(out, ",\"play\":{\"optimal\":false,\"ply\":");
    rc |= cairn_buf_int(out, (int64_t)a->ply);
    rc |= cairn_buf_puts(out, a->mover == CAIRN_WINNER_ALICE ? ",\"by\":\"Alice\",\"move\":"
                                                             : ",\"by\":\"Bob\",\"move\":");
    rc |= cairn_render_move(out, d->moves_kind, a->line[a->ply]);
    rc |= cairn_buf_puts(out, ",\"value\":");
    rc |= put_value(out, d, a->value);
    rc |= cairn_buf_puts(out, ",\"best\":");
    rc |= cairn_render_move(out, d->moves_kind, a->best);
    rc |= cairn_buf_puts(out, ",\"best_value\":");
    rc |= put_value(out, d, a->best_value);
    rc |= cairn_buf_puts(out, ",\"cost\":");
    /* A win/lose game counts a win 1, a tie 1/2, a loss 0. */
    if (d->value_kind == CAIRN_VALUE_WINNER)
        rc |= cairn_buf_puts(out, cost == 2 ? "1" : "0.5");
    else
        rc |= cairn_buf_int(out, cost);
    return rc | cairn_buf_puts(out, "}");
}

int cairn_analysis_render(const struct cairn_plugin *d, const struct cairn_problem *prob,
                          const struct cairn_analysis_req *req, struct cairn_scratch *s,
                          struct cairn_buf *out, struct cairn_rec_error *e)
{
    struct cairn_problem p = *prob;
    struct cairn_analysis a;
    int graded = req->play != NULL || req->play_text != NULL;
    size_t n_play = req->play != NULL ? json_array_size(req->play) : req->n_play;
    const char *at = req->play_text;
    int64_t cost = 0;

    p.want_moves = 0;
    if (graded) {
        if (cairn_grow((void **)&s->line, &s->line_cap, n_play ? n_play : 1, sizeof(int32_t)) != 0)
            return cairn_rec_oom(e, "out of memory for %zu moves", n_play);
        for (size_t i = 0; i < n_play; i++) {
            struct cairn_fast_move f;
            struct move_in m;

            if (req->play != NULL) {
                move_of_json(json_array_get(req->play, i), &m);
            } else {
                cairn_fast_play_next(&at, req->play_end, &f);
                move_of_fast(&f, &m);
            }
            if (encode_move(d, &m, i, &s->line[i], e) != 0)
                return -1;
        }
    }
    if (req->want_analysis) {
        if (run(d, &p, 0, 1, s, &a, e) != 0)
            return -1;
        if (a.n_moves > CAIRN_ANALYSIS_MAX_LISTED)
            return cairn_rec_fail(e, CAIRN_CODE_TOO_LARGE,
                                  "options.analysis: the position has %zu legal moves; an "
                                  "analysis lists at most %d",
                                  a.n_moves, CAIRN_ANALYSIS_MAX_LISTED);
        if (render_list(d, &a, out) != 0)
            return cairn_rec_oom(e, "out of memory rendering the result");
    }
    if (graded) {
        if (run(d, &p, n_play, 0, s, &a, e) != 0)
            return -1;
        if (a.ply < a.n_line && cost_of(d, &a, &cost) != 0)
            return cairn_rec_fail(e, CAIRN_CODE_INTERNAL,
                                  "%s graded options.play[%zu] not optimal with values that "
                                  "say otherwise",
                                  d->name, a.ply);
        if (render_grade(d, &a, cost, out) != 0)
            return cairn_rec_oom(e, "out of memory rendering the result");
    }
    return 0;
}
