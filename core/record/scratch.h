/*
 * scratch.h - a worker's working memory, reused from record to record.
 */
#ifndef CAIRN_SCRATCH_H
#define CAIRN_SCRATCH_H

#include <stddef.h>
#include <stdint.h>

#include "arena.h"
#include "cairn/plugin.h"

/* Used by one worker at a time; grown on demand.  The engine's pool keeps
 * one per worker busy at once and lends it for a batch (pool.c). */
struct cairn_scratch {
    struct cairn_scratch *next; /* in the pool's idle list */
    void *mem;                  /* the plugin's scratch */
    size_t mem_cap;
    int64_t *values; /* the record's integers */
    size_t values_cap;
    int32_t *moves; /* a line of play */
    size_t moves_cap;
    /* Only records asking for analysis or play (analysis.c) touch these. */
    void *amem; /* analyze()'s scratch */
    size_t amem_cap;
    int32_t *line; /* options.play, encoded */
    size_t line_cap;
    struct cairn_move_value *legal; /* the moves an analysis lists */
    size_t legal_cap;
    struct cairn_arena arena; /* jansson's memory while a record is parsed */
};

void cairn_scratch_free(struct cairn_scratch *s);

#endif /* CAIRN_SCRATCH_H */
