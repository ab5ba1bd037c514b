/*
 * record.h - one job line in, one result line out.
 *
 * This is the whole per-record contract of SPEC section 3: parse, validate
 * against the plugin's declaration, solve, render.  It runs on worker
 * threads; everything it writes is owned by the caller.
 */
#ifndef CAIRN_RECORD_H
#define CAIRN_RECORD_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "cairn/plugin.h"
#include "plugin_loader.h"
#include "util.h"

enum cairn_code {
    CAIRN_CODE_BAD_JSON = 0,
    CAIRN_CODE_BAD_RECORD,
    CAIRN_CODE_UNKNOWN_VARIANT,
    CAIRN_CODE_INVALID_INPUT,
    CAIRN_CODE_CONSTRAINT,
    CAIRN_CODE_TOO_LARGE,
    CAIRN_CODE_INTERNAL,
    CAIRN_CODE_COUNT
};

/* "bad_json", "bad_record", ... as in SPEC section 3. */
const char *cairn_code_name(enum cairn_code code);

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

/* Working memory reused from record to record by one worker at a time. */
struct cairn_scratch {
    void *mem;
    size_t mem_cap;
    int64_t *values;
    size_t values_cap;
    int32_t *moves;
    size_t moves_cap;
    struct cairn_arena arena; /* jansson's memory while a record is parsed */
};

void cairn_scratch_free(struct cairn_scratch *s);

/* Solve-time histogram buckets (seconds, upper bounds); the last bucket
 * is +Inf.  Shared by the tallies and the metrics. */
#define CAIRN_SOLVE_BUCKETS 12
extern const double cairn_solve_bucket_le[CAIRN_SOLVE_BUCKETS - 1];

/* What happened to records, for summaries and metrics.  Index by_variant
 * with the plugin's index in the registry; the extra last slot counts
 * records whose variant was never resolved. */
struct cairn_tally {
    uint64_t records;
    uint64_t ok;
    uint64_t errors[CAIRN_CODE_COUNT];
    uint64_t matches;
    uint64_t mismatches;
    uint64_t solve_ns;
    size_t n_variants;     /* registry size + 1 */
    uint64_t *variant_ok;  /* [n_variants] */
    uint64_t *variant_err; /* [n_variants] */
    uint64_t *variant_ns;  /* [n_variants] solve time */
    uint64_t *variant_hist; /* [n_variants * CAIRN_SOLVE_BUCKETS] solves per bucket */
};

/* The histogram bucket of a solve that took ns nanoseconds. */
size_t cairn_solve_bucket(uint64_t ns);

int cairn_tally_init(struct cairn_tally *t, size_t n_plugins);
void cairn_tally_reset(struct cairn_tally *t);
void cairn_tally_add(struct cairn_tally *into, const struct cairn_tally *from);
void cairn_tally_free(struct cairn_tally *t);

/*
 * NAME     cairn_record_process - answer one non-blank line
 * ARGUMENTS line/len is the line without its terminator; line_no is its
 *          1-based physical number in the input
 * RETURNS  0 with exactly one result line (ending in '\n') appended to out,
 *          or -ENOMEM when even the error line could not be written
 */
int cairn_record_process(const struct cairn_record_ctx *ctx, struct cairn_scratch *s,
                         uint64_t line_no, const char *line, size_t len,
                         struct cairn_buf *out, struct cairn_tally *tally);

/* Appends an error result line that needs no parsing (e.g. a line over
 * max_line_bytes) and counts it. */
int cairn_record_error(uint64_t line_no, enum cairn_code code, const char *message,
                       struct cairn_buf *out, struct cairn_tally *tally);

#endif /* CAIRN_RECORD_H */
