/*
 * report.h - `cairn report OUTPUT_DIR [JOB...] [--html FILE]`: one view
 * of a run, gathered from its summaries and results files
 * (report_collect.h) and printed as text (report_text.h), JSON
 * (report_json.h) or one self-contained HTML page (report_html.h).  What
 * each figure is: report_types.h.
 */
#ifndef CAIRN_CLIENT_REPORT_H
#define CAIRN_CLIENT_REPORT_H

#include "report_types.h"

/* The command: collect, print the text, and write the page (atomically,
 * when html is set).  input_given: --input named the spool. */
/* RETURNS 0; 1 when o->fail_on_mismatch and a checked record differs;
 *         else a negative errno (with a message in cl). */
int cairn_cmd_report(struct cairn_client *cl, const char *out_dir, char *const *jobs, size_t n,
                     const struct cairn_report_opts *o);

#endif /* CAIRN_CLIENT_REPORT_H */
