/*
 * summary.h - what a finished job says about itself (docs/contract.md, Summaries):
 * NAME.summary.json and, for a job that could not be processed,
 * NAME.reason.json.
 */
#ifndef CAIRN_SUMMARY_H
#define CAIRN_SUMMARY_H

#include <stdint.h>
#include <time.h>

#include "registry.h"
#include "tally.h"
#include "util.h"

/* The facts a summary is made of. */
struct cairn_job_facts {
    const char *name;         /* NAME.jsonl, as in the spool */
    const char *base;         /* NAME */
    const char *out_base;     /* what the outputs are named after */
    const char *reason;       /* why it failed, or NULL: status "ok" */
    const char *submitted_as; /* the name it was dropped as, when that name
                                 was used before (claim.h); else NULL */
    uint64_t input_inode;     /* of the job file, kept across its renames:
                                 how a client knows its own run; 0 unknown */
    struct timespec started;  /* wall clock */
    double wall_seconds;
    uint64_t bytes;                   /* read */
    const struct cairn_tally *tally;  /* n_variants 0 for a job never read */
    const struct cairn_registry *reg; /* what the tally's variants index */
    long pid;                         /* of the daemon that ran it */
};

/* Renders the summary (one JSON line) into out, replacing its contents.
 * 0 or -ENOMEM. */
int cairn_summary_render(const struct cairn_job_facts *facts, struct cairn_buf *out);

/* Renders the counts of a --filter run as one JSON line: records, ok,
 * errors (every code), by_variant, matches, mismatches, unchecked,
 * wall_seconds, solve_seconds; the same names as in a job's summary (reg:
 * what the tally's variants index).  0 or -ENOMEM. */
int cairn_filter_summary_render(const struct cairn_tally *t, const struct cairn_registry *reg,
                                double wall_seconds, struct cairn_buf *out);

/* Renders NAME.reason.json for a failed job.  0 or -ENOMEM. */
int cairn_reason_render(const struct cairn_job_facts *facts, struct cairn_buf *out);

#endif /* CAIRN_SUMMARY_H */
