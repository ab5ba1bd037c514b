/*
 * record.h - one job line in, one result line out.
 *
 * This is the whole per-record contract of docs/contract.md, Results: parse, validate
 * against the plugin's declaration, solve, render.  It runs on worker
 * threads; everything it writes is owned by the caller.
 */
#ifndef CAIRN_RECORD_H
#define CAIRN_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "cairn/plugin.h"
#include "codes.h"
#include "registry.h"
#include "scratch.h"
#include "tally.h"
#include "util.h"

struct cairn_hang;

/* Settings shared read-only by every worker for the life of a job. */
struct cairn_record_ctx {
    const struct cairn_registry *reg;
    enum cairn_limits default_limits;
    const char *default_variant; /* NULL: records must name theirs */
    int no_fast_path;            /* 1: every record through jansson (tests, fuzzing) */
    struct cairn_hang *hang;     /* watches plugin calls that never return (hang.h),
                                    reporting this ctx as the owner; NULL: none */
};

/* What jansson may allocate for one record (its tree, and whatever else
 * it allocates while the record is solved): this many bytes per byte of
 * the line -- with the line itself and the batch around it, a process
 * stays within 8 times its longest line -- and never less than the floor, which an official-limit record
 * of small values needs (stone-game-vi, 2 x 10^5 values of "1,": 24 bytes
 * of tree per byte of line).  Past it the record is too_large; the plain
 * records of bulk jobs take the fast path (fastparse.h), 4 bytes per byte. */
#define CAIRN_RECORD_MEMORY_PER_BYTE 6
#define CAIRN_RECORD_MEMORY_FLOOR    ((size_t)16 << 20)

/*
 * NAME     cairn_record_process - answer one non-blank line
 * ARGUMENTS line/len is the line without its terminator; line_no is its
 *          1-based physical number in the input
 * RETURNS  0 with exactly one result line (ending in '\n') appended to out,
 *          or -ENOMEM, out as it was, when even the error line could not
 *          be written
 */
int cairn_record_process(const struct cairn_record_ctx *ctx, struct cairn_scratch *s,
                         uint64_t line_no, const char *line, size_t len, struct cairn_buf *out,
                         struct cairn_tally *tally);

/* Appends an error result line that needs no parsing (e.g. a line over
 * max_line_bytes) and counts it. */
int cairn_record_error(uint64_t line_no, enum cairn_code code, const char *message,
                       struct cairn_buf *out, struct cairn_tally *tally);

/* The same for a line not kept, with what was seen of its id and variant:
 * note/n is the text a line cutter's idscan left (linecut.h), whose id
 * and variant the error line carries, as a record's own. */
int cairn_record_error_noted(const struct cairn_record_ctx *ctx, uint64_t line_no,
                             enum cairn_code code, const char *message, const char *note, size_t n,
                             struct cairn_buf *out, struct cairn_tally *tally);

#endif /* CAIRN_RECORD_H */
