/*
 * tally.c - counting what happened to records: per batch on a worker,
 * summed per job and into the metrics on the loop thread.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "tally.h"

const double cairn_solve_bucket_le[CAIRN_SOLVE_BUCKETS - 1] = { 1e-6, 1e-5, 1e-4, 5e-4, 1e-3, 5e-3,
                                                                0.01, 0.05, 0.1,  0.5,  1.0 };

size_t cairn_solve_bucket(uint64_t ns)
{
    double s = (double)ns / 1e9;
    size_t i = 0;

    while (i < CAIRN_SOLVE_BUCKETS - 1 && s > cairn_solve_bucket_le[i])
        i++;
    return i;
}

int cairn_tally_init(struct cairn_tally *t, size_t n_plugins)
{
    memset(t, 0, sizeof(*t));
    t->n_variants = n_plugins + 1;
    t->variant_ok = calloc(t->n_variants, sizeof(uint64_t));
    t->variant_err = calloc(t->n_variants, sizeof(uint64_t));
    t->variant_ns = calloc(t->n_variants, sizeof(uint64_t));
    t->variant_hist = calloc(t->n_variants * CAIRN_SOLVE_BUCKETS, sizeof(uint64_t));
    if (t->variant_ok == NULL || t->variant_err == NULL || t->variant_ns == NULL ||
        t->variant_hist == NULL) {
        cairn_tally_free(t);
        return -ENOMEM;
    }
    return 0;
}

void cairn_tally_reset(struct cairn_tally *t)
{
    size_t n = t->n_variants;
    uint64_t *ok = t->variant_ok, *err = t->variant_err, *ns = t->variant_ns;
    uint64_t *hist = t->variant_hist;

    memset(t, 0, sizeof(*t));
    t->n_variants = n;
    t->variant_ok = ok;
    t->variant_err = err;
    t->variant_ns = ns;
    t->variant_hist = hist;
    memset(hist, 0, n * CAIRN_SOLVE_BUCKETS * sizeof(*hist));
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
    if (into->n_variants == from->n_variants)
        for (i = 0; i < into->n_variants * CAIRN_SOLVE_BUCKETS; i++)
            into->variant_hist[i] += from->variant_hist[i];
}

void cairn_tally_free(struct cairn_tally *t)
{
    free(t->variant_ok);
    free(t->variant_err);
    free(t->variant_ns);
    free(t->variant_hist);
    memset(t, 0, sizeof(*t));
}
