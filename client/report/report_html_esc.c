/*
 * report_html_esc.c - text made safe for the HTML report (report_html_esc.h).
 */
#include "report_html_esc.h"

void cairn_report_html_esc(FILE *out, const char *s)
{
    for (; s != NULL && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}
