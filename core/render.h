/*
 * render.h - the result line of SPEC section 3, piece by piece:
 *   head:  {"line":N[,"id":X][,"variant":"V"]
 *   then either an ok tail or an error tail, ending the line with '\n'.
 * Each returns 0 or -ENOMEM.
 */
#ifndef CAIRN_RENDER_H
#define CAIRN_RENDER_H

#include <jansson.h>
#include <stdint.h>

#include "cairn/plugin.h"
#include "plugin_loader.h"
#include "record.h"
#include "util.h"

/* The record's id: kind (enum cairn_fast_kind) with s/n or i; kind 0
 * (absent) with json set for another JSON value (a real); neither: no id. */
struct cairn_id {
    int kind;
    const char *s;
    size_t n;
    int64_t i;
    const json_t *json;
};

int cairn_render_head(struct cairn_buf *out, uint64_t line_no, const struct cairn_id *id,
                      const struct cairn_plugin_handle *plugin);
int cairn_render_ok(struct cairn_buf *out, const struct cairn_plugin *d,
                    const struct cairn_result *res, int want_moves, int has_match, int match);
int cairn_render_error_tail(struct cairn_buf *out, enum cairn_code code, const char *msg);

#endif /* CAIRN_RENDER_H */
