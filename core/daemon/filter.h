/*
 * filter.h - `cairnd --filter`: records on one descriptor, result lines on
 * another, in input order.
 */
#ifndef CAIRN_FILTER_H
#define CAIRN_FILTER_H

#include <uv.h>

#include "engine.h"
#include "record.h"

/* Which end a failed run failed at, for its message. */
enum cairn_filter_side {
    CAIRN_FILTER_READING,
    CAIRN_FILTER_WRITING
};

/*
 * NAME     cairn_filter_run - answer every line of in_fd onto out_fd
 * RETURNS  0 when all input was read and every result line written (bad
 *          records are not failures: they get error lines); a negative
 *          errno for a read or write failure, and *side says which
 *          (CAIRN_FILTER_READING covers memory running out as well, since
 *          the stream reports both the same way).  *tally gets the counts.
 * NOTES    runs the loop until done; tally must be initialised for
 *          ctx->reg.
 */
int cairn_filter_run(uv_loop_t *loop, struct cairn_pool *pool, const struct cairn_record_ctx *ctx,
                     size_t max_line_bytes, uv_file in_fd, uv_file out_fd,
                     struct cairn_tally *tally, enum cairn_filter_side *side);

#endif /* CAIRN_FILTER_H */
