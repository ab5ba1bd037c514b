/*
 * report_html_eval.h - the evaluators' sections of the HTML report (report_html_eval.c):
 * smallest failing inputs, traps, sizes, mismatches, graded play.
 */
#ifndef CAIRN_CLIENT_REPORT_HTML_EVAL_H
#define CAIRN_CLIENT_REPORT_HTML_EVAL_H

#include <stdio.h>

#include "report_types.h"

/* A table cell holding a name or an id: one line, an ellipsis where it
 * is cut, the whole text in its title (a tooltip). */
void cairn_report_html_name_cell(FILE *out, const char *text);

void cairn_report_html_smallest(const struct cairn_report *r, FILE *out);
void cairn_report_html_traps(const struct cairn_report *r, FILE *out);
void cairn_report_html_sizes(const struct cairn_report *r, FILE *out);
/* These two read the spill with --mismatches all: 0, or its -errno. */
int cairn_report_html_mismatches(const struct cairn_report *r, FILE *out);
void cairn_report_html_play(const struct cairn_report *r, FILE *out);
int cairn_report_html_records(const struct cairn_report *r, FILE *out);

#endif /* CAIRN_CLIENT_REPORT_HTML_EVAL_H */
