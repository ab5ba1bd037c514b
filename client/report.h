/*
 * report.h - `cairn report OUTPUT_DIR [JOB...] [--html FILE]`: one view of
 * a run, gathered from its summaries and results files (report_collect.c)
 * and printed as text (report_text.c) or as one self-contained HTML page
 * (report_html.c).
 *
 * What the figures are, since the files do not carry everything:
 *   - records, ok, errors by code, per variant: the summaries' counts,
 *     and for errors by code within a variant, the result lines';
 *   - accuracy per variant: result lines' "match" (a variant's records
 *     with an "expected" answer that were solved);
 *   - a mismatch's expected answer: the result line's "expected" when it
 *     has one, else the record's own, read from the job's input kept in
 *     INPUT/.cairn/done/ (when the spool is known and the file is the one
 *     the summary describes), else "unavailable";
 *   - solve times: result lines carry no per-record time, so the
 *     distribution is over jobs: each job's solve_seconds divided by its
 *     solved (ok) records, the mean solve time per record in that job;
 *   - throughput: records over the time from the first job's start to the
 *     last job's finish.
 */
#ifndef CAIRN_CLIENT_REPORT_H
#define CAIRN_CLIENT_REPORT_H

#include <stdint.h>
#include <stdio.h>

#include "client.h"

#define CAIRN_REPORT_MISMATCHES 10

struct cairn_rep_job {
    char *name; /* the summary's "job" (escaped, printable) */
    char *status;
    char *reason; /* failed jobs */
    uint64_t records, ok, matches, mismatches, bytes;
    double wall_seconds, solve_seconds, started, finished;
    int timed; /* the summary has solve_seconds (cairn-slurm's has none) */
};

struct cairn_rep_count {
    char *name;
    uint64_t n;
};

struct cairn_rep_variant {
    char *name;
    uint64_t records, ok, errors;
    uint64_t checked, matches;     /* from the result lines */
    struct cairn_rep_count *codes; /* error lines by code, from the result lines */
    size_t n_codes, cap_codes;
    double solve_seconds;
    uint64_t ok_timed; /* ok records of summaries that give a solve time */
};

struct cairn_rep_mismatch {
    char *job;
    uint64_t line;
    char *id; /* JSON text as written, or NULL */
    char *variant;
    char *expected; /* JSON text, or NULL: unavailable */
    char *answer;   /* JSON text */
};

struct cairn_report {
    char *out_dir;
    struct cairn_rep_job *jobs;
    size_t n_jobs, cap_jobs;
    struct cairn_rep_variant *variants;
    size_t n_variants, cap_variants;
    struct cairn_rep_count *codes; /* every error code, in the summaries' order */
    size_t n_codes, cap_codes;
    struct cairn_rep_mismatch mm[CAIRN_REPORT_MISMATCHES];
    size_t n_mm;
    uint64_t records, ok, errors, matches, mismatches, checked, bytes;
    uint64_t unchecked; /* summaries' "unchecked", when they have it */
    int has_unchecked;
    uint64_t jobs_ok, jobs_failed;
    double first_start, last_finish, solve_seconds;
    /* Summaries without solve_seconds count as unknown, not as 0 s: the
     * times are over the others (ok_timed records), and untimed says how
     * many jobs were left out. */
    uint64_t ok_timed, untimed;
    double *per_record; /* each timed job's mean solve time per record, sorted */
    size_t n_per_record, cap_per_record;
    const char *expected_note; /* where mismatches' expected answers come from */
    char *spool;               /* the input directory read, or NULL */
};

/*
 * NAME     cairn_report_collect - read a run into r
 * ARGUMENTS jobs: names to report on (n 0: every summary in out_dir);
 *          spool: the input directory whose .cairn/done/ holds the inputs,
 *          or NULL when unknown
 * RETURNS  0; -ENOENT (with a message) for a job with no summary or an
 *          output directory that is not there; -ENOMEM
 */
int cairn_report_collect(struct cairn_client *cl, struct cairn_report *r, const char *out_dir,
                         char *const *jobs, size_t n, const char *spool);
void cairn_report_free(struct cairn_report *r);

/* The p-th percentile (0..100, nearest rank) of the sorted v[n]. */
double cairn_report_percentile(const double *v, size_t n, double p);

/* A duration for people: "850 ns", "4.2 µs", "1.30 ms", "2.41 s". */
void cairn_report_seconds(double s, char out[32]);

/* A rate for people: "0.4", "1.5", "37", "12345": one decimal below 10, so
 * a slow run does not read "1 records/s" (or "0"). */
void cairn_report_rate(double per_second, char out[32]);

int cairn_report_text(const struct cairn_report *r, FILE *out);
int cairn_report_html(const struct cairn_report *r, FILE *out);

/* The command: collect, print the text, and write the page (atomically,
 * when html is set).  input_given: --input named the spool. */
int cairn_cmd_report(struct cairn_client *cl, const char *out_dir, char *const *jobs, size_t n,
                     const char *html, int input_given);

#endif /* CAIRN_CLIENT_REPORT_H */
