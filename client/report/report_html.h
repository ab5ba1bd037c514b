/*
 * report_html.h - the report as one self-contained HTML page
 * (report_html.c: the page, its cards and charts; the evaluators'
 * sections in report_html_eval.h).
 */
#ifndef CAIRN_CLIENT_REPORT_HTML_H
#define CAIRN_CLIENT_REPORT_HTML_H

#include <stdio.h>

#include "report_types.h"

int cairn_report_html(const struct cairn_report *r, FILE *out);

#endif /* CAIRN_CLIENT_REPORT_HTML_H */
