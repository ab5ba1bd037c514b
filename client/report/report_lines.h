/*
 * report_lines.h - what a report reads line by line (report_types.h says what
 * each figure is): a results file's lines, for accuracy, mismatches and
 * graded play, and a kept input's lines, for the records behind them.
 * report_collect.c reads the summaries and calls these.
 */
#ifndef CAIRN_CLIENT_REPORT_LINES_H
#define CAIRN_CLIENT_REPORT_LINES_H

#include <jansson.h>
#include <stdio.h>

#include "report_types.h"

/* Variant name's entry in r, added at zero if new; NULL: out of memory. */
struct cairn_rep_variant *cairn_report_variant(struct cairn_report *r, const char *name);

/* The counter called name in the list (*v, *n), added at 0 if new. */
struct cairn_rep_count *cairn_report_counter(struct cairn_rep_count **v, size_t *n, size_t *cap,
                                             const char *name);

/*
 * NAME     cairn_report_read_results - one results file's lines into r
 * ARGUMENTS shown_as: the file as warnings name it (printable); job,
 *          job_index: the job they belong to; whole: NULL when a
 *          summary gave the job's counts, else the job a results file on
 *          its own makes, counted from its lines (and r with it);
 *          inputs: the job's records, read beside the results (a result
 *          line's "line" is its record's), or NULL when not known
 * RETURNS  0 (a file that cannot be opened leaves accuracy without it; a
 *          graded line of play that lacks a key is counted, said on
 *          stderr with its file, line and key, and left out of the costs;
 *          a line that is not JSON is said on stderr with its file and
 *          line, counted in r->damaged and left out); a negative errno
 *          with a message in r->cl naming the file and line that cannot
 *          be read (-ENOMEM for one too long for memory, -EIO ...)
 */
int cairn_report_read_results(struct cairn_report *r, int dir_fd, const char *res_name,
                              const char *shown_as, const char *job, size_t job_index,
                              struct cairn_rep_job *whole, FILE *inputs);

/* The job's input kept in the spool's .cairn/done/ (input_esc: the
 * summary's "input"), if that file is the one the summary describes
 * (bytes long), not a later job's of the same name; else NULL. */
FILE *cairn_report_kept_input(int in_fd, const char *input_esc, uint64_t bytes);

void cairn_report_mismatch_free(struct cairn_rep_mismatch *m);

#endif /* CAIRN_CLIENT_REPORT_LINES_H */
