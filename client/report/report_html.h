/*
 * report_html.h - what the two halves of the HTML report share:
 * report_html.c (the page, its cards and charts) and report_html_eval.c
 * (the evaluators' sections).
 */
#ifndef CAIRN_CLIENT_REPORT_HTML_H
#define CAIRN_CLIENT_REPORT_HTML_H

#include <stdio.h>

#include "report.h"

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

#endif /* CAIRN_CLIENT_REPORT_HTML_H */
