/*
 * report_types.h - `cairn report`'s figures, the types every file of
 * report/ reads or fills (a header of no file of its own: each file's
 * functions are in its own header; report.h holds the command).
 *
 * What the figures are, since the files do not carry everything:
 *   - records, ok, errors by code, per variant: the summaries' counts,
 *     and for errors by code within a variant, the result lines';
 *   - accuracy per variant: result lines' "match" (a variant's records
 *     with an "expected" answer that were solved);
 *   - accuracy by input size: the summaries' by_size (records solved,
 *     graded and matched per size bucket, buckets.h);
 *   - a mismatch's given answer (the candidate's): the result line's
 *     "expected" when it has one, else the record's own; its exact answer:
 *     the result's "answer"; its input (shortened) and whole record: read
 *     beside the results, line by line, from the job's input kept in
 *     INPUT/.cairn/done/ (when the spool is known and the file is the one
 *     the summary describes) or from --inputs CORPUS for a results file,
 *     else "unavailable";
 *   - the smallest failing input of a variant, accuracy by trap (the id's
 *     ":TRAP") and the error size of integer answers: from the same lines;
 *     accuracy by size of a results file: from --inputs;
 *   - graded play: the result lines' "play" (options.play): lines graded,
 *     optimal, the first non-optimal ply, cost; the worst blunders, with
 *     their positions read as a mismatch's are;
 *   - solve times: per record, from the summaries' solve_histogram (a
 *     summary without one, cairn-slurm's or an older cairnd's, counts its
 *     job as untimed);
 *   - throughput: records over busy time, the union of the jobs' runs
 *     (started to finished), so a spool idle between jobs does not count.
 */
#ifndef CAIRN_CLIENT_REPORT_TYPES_H
#define CAIRN_CLIENT_REPORT_TYPES_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "buckets.h"
#include "client.h"

#define CAIRN_REPORT_MISMATCHES 10 /* shown per variant, unless --mismatches says */
#define CAIRN_REPORT_BLUNDERS   10 /* kept per variant: costs are in each game's units */
/* Traps kept by name per variant; the others pooled as "(other)": ids
 * that are not cairn gen's ("user:1234") may name one per record. */
#define CAIRN_REPORT_TRAPS 64
/* First non-optimal plies: 0, 1, 2, 3, 4-7, 8-15, 16-31, 32 and more. */
#define CAIRN_REPORT_PLY_BUCKETS 8
/* A position shown in a table is cut to this many bytes (and "..."). */
#define CAIRN_REPORT_POSITION_MAX 60

/* A cost, or a sum of costs, kept exact: costs are integers (a margin, a
 * total, a step) and may pass 2^53, where a double starts to round them.
 * An integer while every cost added is one and the sum fits in 64 bits;
 * else a double (a cost written as a real). */
struct cairn_rep_num {
    int64_t i;
    double d;
    int real; /* d holds the value, not i */
};

struct cairn_rep_job {
    char *name;  /* the summary's "job" (escaped, printable) */
    char *exact; /* the same, byte for byte (a file's name may not be UTF-8) */
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

/* Where a record is, and what it was: the job's input line, when kept. */
struct cairn_rep_where {
    char *job;
    size_t job_index; /* into jobs */
    uint64_t line;
    char *id;      /* JSON text as written, made printable, or NULL */
    char *id_json; /* JSON text byte for byte (for --json), or NULL */
    char *variant;
    char *position; /* the record's "input", shortened, or NULL: unavailable */
    char *record;   /* the whole record line (cut past 4 KiB), or NULL */
};

/* One of the costliest first non-optimal moves of graded lines. */
struct cairn_rep_blunder {
    struct cairn_rep_where at;
    uint64_t ply;
    char *by, *move, *best; /* "Alice"/"Bob", and the moves as JSON text */
    struct cairn_rep_num cost;
    int mismatch; /* its line's given answer differs too */
};

/* A checked record whose given answer (the candidate's, its "expected")
 * differs from cairn's exact one. */
struct cairn_rep_mismatch {
    struct cairn_rep_where at; /* with position and record */
    char *given;               /* JSON text, or NULL: unavailable */
    char *exact;               /* JSON text */
    int shown;                 /* among the first --mismatches of its variant */
};

/* Accuracy on the records of one trap (`cairn gen --traps` ids end in
 * ":TRAP"; "-" for ids without one). */
struct cairn_rep_trap {
    char *name;
    uint64_t checked, matches;
};

/* A variant's smallest failing input: of its mismatches whose record was
 * read, the fewest values (every number of the input, each array counted
 * in full; a game of one number: 1), then the smallest sum of |v|, then
 * the first in the run. */
struct cairn_rep_smallest {
    struct cairn_rep_mismatch m; /* its own copy: r->mm keeps only the shown */
    uint64_t values;             /* numbers in the input */
    double magnitude;            /* sum of |v| */
    char *input;                 /* the record's "input", whole */
    char *record;                /* the record line, whole: solved again for the line */
    char *moves;                 /* an optimal line of play (JSON text), or NULL */
    char *moves_why;             /* why there is none, or NULL */
};

struct cairn_rep_variant {
    char *name;
    uint64_t records, ok, errors;
    uint64_t checked, matches;     /* from the result lines */
    struct cairn_rep_count *codes; /* error lines by code, from the result lines */
    size_t n_codes, cap_codes;
    double solve_seconds;
    uint64_t ok_timed;                  /* ok records of summaries that give a solve time */
    uint64_t hist[CAIRN_SOLVE_BUCKETS]; /* solves by solve time (buckets.h) */
    struct cairn_rep_size {
        uint64_t ok, checked, matches;
    } size[CAIRN_SIZE_BUCKETS]; /* by input size, from the summaries (or --inputs) */
    uint64_t graded, optimal;   /* lines of play graded, and all-optimal */
    uint64_t first_ply[CAIRN_REPORT_PLY_BUCKETS];
    struct cairn_rep_num cost; /* the non-optimal lines' costs, summed */
    struct cairn_rep_trap *traps;
    size_t n_traps, cap_traps;
    uint64_t mismatches, shown; /* mismatches, and how many of them are shown */
    /* |given - exact| over the mismatches where both are integers. */
    uint64_t int_errors;
    double error_sum;
    uint64_t error_max;
    struct cairn_rep_smallest small;
    struct cairn_rep_blunder bl[CAIRN_REPORT_BLUNDERS]; /* costliest first */
    size_t n_bl;
};

/* How many mismatches each variant shows: a number, or all of them. */
#define CAIRN_REPORT_MISMATCHES_ALL SIZE_MAX

struct cairn_report {
    char *out_dir;
    struct cairn_rep_job *jobs;
    size_t n_jobs, cap_jobs;
    struct cairn_rep_variant *variants;
    size_t n_variants, cap_variants;
    struct cairn_rep_count *codes; /* every error code, in the summaries' order */
    size_t n_codes, cap_codes;
    /* The mismatches shown (the first --mismatches of each variant), in job
     * and line order: memory bounded whatever the run's size.  Every
     * mismatch, when --json or --mismatches all needs them, goes to spill
     * instead (report_spill.c), never to memory. */
    struct cairn_rep_mismatch *mm;
    size_t n_mm, cap_mm;
    FILE *spill;              /* or NULL */
    struct cairn_client *cl;  /* for messages */
    uint64_t damaged;         /* results lines that are not JSON, each named on stderr */
    size_t mm_limit;          /* shown per variant (--mismatches) */
    uint64_t graded, optimal; /* lines of play, all variants */
    uint64_t records, ok, errors, matches, mismatches, checked, bytes;
    uint64_t unchecked; /* summaries' "unchecked", when they have it */
    int has_unchecked;
    uint64_t jobs_ok, jobs_failed;
    double first_start, last_finish, solve_seconds;
    double busy_seconds; /* the union of the jobs' runs */
    /* Summaries without solve_seconds count as unknown, not as 0 s: the
     * times are over the others (ok_timed records), and untimed says how
     * many jobs were left out. */
    uint64_t ok_timed, untimed;
    uint64_t hist[CAIRN_SOLVE_BUCKETS]; /* every variant's solves by solve time */
    uint64_t hist_missing;              /* jobs with answers but no per-record times (an older
                              cairnd's summaries, cairn-slurm's, results files) */
    const char *expected_note;          /* where mismatches' given answers come from */
    /* Why a section has nothing to show, in one line, or NULL. */
    const char *sizes_why;  /* accuracy by input size */
    const char *inputs_why; /* positions and the smallest failing inputs */
    char *spool;            /* the input directory read, or NULL */
};

/*
 * A solver of records, which the command hands the report (dependency
 * inversion): the report needs a line of play solved now and then, and
 * client/report/ may not link the plugin host; the command layer fills
 * this from client/solve/ (cmd/report_solver.c), the plugins of
 * plugin_dir.
 */
struct cairn_report_solver {
    /* Readies it: 0, or a negative errno (a message in cl) when no plugin
     * loads; the report then says so and goes on. */
    int (*open)(void *data, struct cairn_client *cl);
    /* The whole result line cairnd would write for the record (an error
     * line too), valid until the next call: 0, or -ENOMEM. */
    int (*solve_line)(void *data, const char *line, size_t len, const char **result,
                      size_t *result_len);
    /* After a successful open. */
    void (*close)(void *data);
    void *data;
};

/* The options of `cairn report` beyond what it reads. */
struct cairn_report_opts {
    const char *html;     /* --html FILE, or NULL */
    int json;             /* --json: one JSON object on stdout instead of the text */
    size_t mismatches;    /* --mismatches N (CAIRN_REPORT_MISMATCHES_ALL: all) */
    int fail_on_mismatch; /* --fail-on-mismatch */
    int input_given;      /* --input named the spool */
    char *const *inputs;  /* --inputs CORPUS, one per results file, in order */
    size_t n_inputs;
    const struct cairn_report_solver *solver; /* lines of play solved again; NULL: none */
};

#endif /* CAIRN_CLIENT_REPORT_TYPES_H */
