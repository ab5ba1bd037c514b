/*
 * render.c - result lines, written by hand into a buffer: the key order of
 * docs/contract.md, Results, no intermediate JSON tree, one pass.
 */
#include "render.h"

#include <errno.h>
#include <string.h>

#include <jansson.h>

static int put_id(struct cairn_buf *out, const struct cairn_scalar *id)
{
    char tmp[64];
    size_t n;

    switch (id->kind) {
    case CAIRN_SCALAR_STRING: return cairn_buf_json_string(out, id->s, id->n);
    case CAIRN_SCALAR_INT:
        /* Its text when the record's was kept (-0). */
        return id->s != NULL ? cairn_buf_append(out, id->s, id->n) : cairn_buf_int(out, id->i);
    case CAIRN_SCALAR_TRUE: return cairn_buf_puts(out, "true");
    case CAIRN_SCALAR_FALSE: return cairn_buf_puts(out, "false");
    case CAIRN_SCALAR_NULL: return cairn_buf_puts(out, "null");
    default:
        /* A real: its text as written in the record, when known. */
        if (id->s != NULL)
            return cairn_buf_append(out, id->s, id->n);
        n = json_dumpb(id->json, tmp, sizeof(tmp), JSON_ENCODE_ANY | JSON_COMPACT);
        if (n == 0 || n > sizeof(tmp))
            return cairn_buf_puts(out, "null");
        return cairn_buf_append(out, tmp, n);
    }
}

int cairn_render_head(struct cairn_buf *out, uint64_t line_no, const struct cairn_scalar *id,
                      const struct cairn_plugin_handle *plugin)
{
    int rc = cairn_buf_puts(out, "{\"line\":");
    rc |= cairn_buf_int(out, (int64_t)line_no);
    if (id != NULL && cairn_scalar_present(id)) {
        rc |= cairn_buf_puts(out, ",\"id\":");
        rc |= put_id(out, id);
    }
    if (plugin != NULL) {
        rc |= cairn_buf_puts(out, ",\"variant\":");
        rc |= cairn_buf_json_string(out, plugin->desc->name, strlen(plugin->desc->name));
    }
    return rc ? -ENOMEM : 0;
}

int cairn_render_error_tail(struct cairn_buf *out, enum cairn_code code, const char *msg)
{
    int rc = cairn_buf_puts(out, ",\"status\":\"error\",\"error\":{\"code\":\"");
    rc |= cairn_buf_puts(out, cairn_code_name(code));
    rc |= cairn_buf_puts(out, "\",\"message\":");
    rc |= cairn_buf_json_string(out, msg, strlen(msg));
    rc |= cairn_buf_puts(out, "}}\n");
    return rc ? -ENOMEM : 0;
}

int cairn_render_move(struct cairn_buf *out, enum cairn_moves_kind kind, int32_t m)
{
    int rc;

    switch (kind) {
    case CAIRN_MOVES_SIDE: return cairn_buf_puts(out, m ? "\"R\"" : "\"L\"");
    case CAIRN_MOVES_SPLIT:
        rc = cairn_buf_puts(out, "{\"split\":");
        rc |= cairn_buf_int(out, CAIRN_MOVE_SPLIT_AT(m));
        rc |= cairn_buf_puts(out, CAIRN_MOVE_SPLIT_KEEPS_RIGHT(m) ? ",\"keep\":\"R\"}"
                                                                  : ",\"keep\":\"L\"}");
        return rc;
    case CAIRN_MOVES_COUNT:
    case CAIRN_MOVES_INDEX: break;
    }
    return cairn_buf_int(out, m);
}

int cairn_render_ok(struct cairn_buf *out, const struct cairn_plugin *d,
                    const struct cairn_result *res, int want_moves,
                    const struct cairn_scalar *expected, int match)
{
    static const char *const winners[] = { "\"Alice\"", "\"Bob\"", "\"Tie\"" };
    int rc = cairn_buf_puts(out, ",\"status\":\"ok\",\"answer\":");
    size_t i;

    switch (d->answer_kind) {
    case CAIRN_ANSWER_BOOL: rc |= cairn_buf_puts(out, res->answer ? "true" : "false"); break;
    case CAIRN_ANSWER_INT: rc |= cairn_buf_int(out, res->answer); break;
    case CAIRN_ANSWER_WINNER: rc |= cairn_buf_puts(out, winners[res->answer]); break;
    }
    /* Only the totals the game defines: a win/lose game has no "alice"
     * worth printing, and a made-up 0 would read as a real score. */
    if (d->totals & CAIRN_TOTAL_ALICE) {
        rc |= cairn_buf_puts(out, ",\"alice\":");
        rc |= cairn_buf_int(out, res->alice);
    }
    if (d->totals & CAIRN_TOTAL_BOB) {
        rc |= cairn_buf_puts(out, ",\"bob\":");
        rc |= cairn_buf_int(out, res->bob);
    }
    if (d->totals & CAIRN_TOTAL_MARGIN) {
        rc |= cairn_buf_puts(out, ",\"margin\":");
        rc |= cairn_buf_int(out, res->alice - res->bob);
    }
    if (expected != NULL && cairn_scalar_present(expected)) {
        rc |= cairn_buf_puts(out, match ? ",\"match\":true" : ",\"match\":false");
        /* A wrong answer is graded where it stands: what was expected,
         * beside what the game gives. */
        if (!match) {
            rc |= cairn_buf_puts(out, ",\"expected\":");
            rc |= put_id(out, expected);
        }
    }
    if (want_moves) {
        rc |= cairn_buf_puts(out, ",\"moves\":[");
        for (i = 0; i < res->n_moves; i++) {
            if (i > 0)
                rc |= cairn_buf_puts(out, ",");
            rc |= cairn_render_move(out, d->moves_kind, res->moves[i]);
        }
        rc |= cairn_buf_puts(out, "]");
    }
    return rc ? -ENOMEM : 0;
}

int cairn_render_end(struct cairn_buf *out)
{
    return cairn_buf_puts(out, "}\n") ? -ENOMEM : 0;
}
