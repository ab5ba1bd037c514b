/*
 * render.h - the result line of docs/contract.md, Results, piece by piece:
 *   head:  {"line":N[,"id":X][,"variant":"V"]
 *   then either an ok tail or an error tail, ending the line with '\n'.
 * Each returns 0 or -ENOMEM.
 */
#ifndef CAIRN_RENDER_H
#define CAIRN_RENDER_H

#include <stdint.h>

#include "cairn/plugin.h"
#include "codes.h"
#include "registry.h"
#include "scalar.h"
#include "util.h"

/* id: the record's id, rendered when present (NULL or absent: none). */
int cairn_render_head(struct cairn_buf *out, uint64_t line_no, const struct cairn_scalar *id,
                      const struct cairn_plugin_handle *plugin);
/* expected: the record's expected answer (NULL or absent: none); with
 * one, "match" follows the answer, and on a mismatch "expected" too.
 * Leaves the object open for more keys (analysis.c): cairn_render_end
 * closes it and ends the line. */
int cairn_render_ok(struct cairn_buf *out, const struct cairn_plugin *d,
                    const struct cairn_result *res, int want_moves,
                    const struct cairn_scalar *expected, int match);
int cairn_render_end(struct cairn_buf *out);
/* One move, as enum cairn_moves_kind says: the form of "moves" entries,
 * also used by analysis.c so a move reads the same everywhere. */
int cairn_render_move(struct cairn_buf *out, enum cairn_moves_kind kind, int32_t m);
int cairn_render_error_tail(struct cairn_buf *out, enum cairn_code code, const char *msg);

#endif /* CAIRN_RENDER_H */
