/*
 * report_html_esc.h - text made safe for the HTML report's pages, in a
 * file of its own so that both halves of the page (report_html.c and
 * report_html_eval.c) use it and neither calls the other back.
 */
#ifndef CAIRN_CLIENT_REPORT_HTML_ESC_H
#define CAIRN_CLIENT_REPORT_HTML_ESC_H

#include <stdio.h>

/* s with &, <, >, " and ' escaped, for text and attribute values. */
void cairn_report_html_esc(FILE *out, const char *s);

#endif /* CAIRN_CLIENT_REPORT_HTML_ESC_H */
