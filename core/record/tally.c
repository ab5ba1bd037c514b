/*
 * tally.c - counting what happened to records: per batch on a worker,
 * summed per job and into the metrics on the loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

/* Size counters per variant. */
#define SIZE_SLOTS (CAIRN_SIZE_BUCKETS * CAIRN_SIZE_COUNTS)

int cairn_tally_init(struct cairn_tally *t, size_t n_plugins)
{
    memset(t, 0, sizeof(*t));
    t->n_variants = n_plugins + 1;
    t->variant_ok = calloc(t->n_variants, sizeof(uint64_t));
    t->variant_err = calloc(t->n_variants, sizeof(uint64_t));
    t->variant_ns = calloc(t->n_variants, sizeof(uint64_t));
    t->variant_hist = calloc(t->n_variants * CAIRN_SOLVE_BUCKETS, sizeof(uint64_t));
    t->variant_size = calloc(t->n_variants * SIZE_SLOTS, sizeof(uint64_t));
    if (t->variant_ok == NULL || t->variant_err == NULL || t->variant_ns == NULL ||
        t->variant_hist == NULL || t->variant_size == NULL) {
        cairn_tally_free(t);
        return -ENOMEM;
    }
    return 0;
}

void cairn_tally_reset(struct cairn_tally *t)
{
    size_t n = t->n_variants;
    uint64_t *ok = t->variant_ok, *err = t->variant_err, *ns = t->variant_ns;
    uint64_t *hist = t->variant_hist, *size = t->variant_size;

    memset(t, 0, sizeof(*t));
    t->n_variants = n;
    t->variant_ok = ok;
    t->variant_err = err;
    t->variant_ns = ns;
    t->variant_hist = hist;
    t->variant_size = size;
    memset(hist, 0, n * CAIRN_SOLVE_BUCKETS * sizeof(*hist));
    memset(size, 0, n * SIZE_SLOTS * sizeof(*size));
    memset(ok, 0, n * sizeof(*ok));
    memset(err, 0, n * sizeof(*err));
    memset(ns, 0, n * sizeof(*ns));
}

void cairn_tally_add(struct cairn_tally *into, const struct cairn_tally *from)
{
    size_t i;

    into->records += from->records;
    into->ok += from->ok;
    for (i = 0; i < CAIRN_CODE_COUNT; i++)
        into->errors[i] += from->errors[i];
    into->matches += from->matches;
    into->mismatches += from->mismatches;
    into->unchecked += from->unchecked;
    into->out_of_memory += from->out_of_memory;
    into->solve_ns += from->solve_ns;
    for (i = 0; i < into->n_variants && i < from->n_variants; i++) {
        into->variant_ok[i] += from->variant_ok[i];
        into->variant_err[i] += from->variant_err[i];
        into->variant_ns[i] += from->variant_ns[i];
    }
    if (into->n_variants == from->n_variants) {
        for (i = 0; i < into->n_variants * CAIRN_SOLVE_BUCKETS; i++)
            into->variant_hist[i] += from->variant_hist[i];
        for (i = 0; i < into->n_variants * SIZE_SLOTS; i++)
            into->variant_size[i] += from->variant_size[i];
    }
}

void cairn_tally_free(struct cairn_tally *t)
{
    free(t->variant_ok);
    free(t->variant_err);
    free(t->variant_ns);
    free(t->variant_hist);
    free(t->variant_size);
    memset(t, 0, sizeof(*t));
}
