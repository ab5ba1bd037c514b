/*
 * tally.h - what happened to records, counted per job and per batch, for
 * summaries and metrics.
 */
#ifndef CAIRN_TALLY_H
#define CAIRN_TALLY_H

#include <stddef.h>
#include <stdint.h>

#include "buckets.h"
#include "codes.h"

/* What happened to records, for summaries and metrics.  Index by_variant
 * with the plugin's index in the registry; the extra last slot counts
 * records whose variant was never resolved. */
struct cairn_tally {
    uint64_t records;
    uint64_t ok;
    uint64_t errors[CAIRN_CODE_COUNT];
    uint64_t matches;
    uint64_t mismatches;
    uint64_t unchecked;     /* with "expected", but answered with an error */
    uint64_t out_of_memory; /* internal errors because memory ran out */
    uint64_t solve_ns;
    size_t n_variants;      /* registry size + 1 */
    uint64_t *variant_ok;   /* [n_variants] */
    uint64_t *variant_err;  /* [n_variants] */
    uint64_t *variant_ns;   /* [n_variants] solve time */
    uint64_t *variant_hist; /* [n_variants * CAIRN_SOLVE_BUCKETS] solves per bucket */
    /* [n_variants * CAIRN_SIZE_BUCKETS * CAIRN_SIZE_COUNTS]: per input
     * size bucket (buckets.h), the solved records, those with "expected",
     * and those that matched it */
    uint64_t *variant_size;
};

enum {
    CAIRN_SIZE_OK,
    CAIRN_SIZE_CHECKED,
    CAIRN_SIZE_MATCHES,
    CAIRN_SIZE_COUNTS
};

/* The counter of what (CAIRN_SIZE_*) for variant v's size bucket b. */
#define CAIRN_TALLY_SIZE(t, v, b, what) \
    ((t)->variant_size[((v)*CAIRN_SIZE_BUCKETS + (b)) * CAIRN_SIZE_COUNTS + (what)])

int cairn_tally_init(struct cairn_tally *t, size_t n_plugins);
void cairn_tally_reset(struct cairn_tally *t);
void cairn_tally_add(struct cairn_tally *into, const struct cairn_tally *from);
void cairn_tally_free(struct cairn_tally *t);

#endif /* CAIRN_TALLY_H */
