/*
 * report_spill.h - every mismatch of a run, spilled to a temporary file when the report
 * must give them all (report_spill.c), and a job's name as JSON, which
 * both the spilled lines and --json write.
 */
#ifndef CAIRN_CLIENT_REPORT_SPILL_H
#define CAIRN_CLIENT_REPORT_SPILL_H

#include <jansson.h>
#include <stdio.h>

#include "report_types.h"

/* o's "job": job_index's exact name, a JSON string when it is UTF-8; else
 * its printable form and "job_escaped": true (docs/cairn.1, JSON REPORT).
 * 0 or -ENOMEM. */
int cairn_report_json_job(json_t *o, const struct cairn_report *r, size_t job_index);

/* The spill of every mismatch (report_spill.c): opened (0, or -errno with
 * a message), one added (ids and answers as the results line has them),
 * each shown one given to fn (the spill's with --mismatches all, else
 * r->mm's; variant NULL: all) and every one written as the elements of
 * the JSON report's "mismatches". */
int cairn_report_spill_open(struct cairn_report *r);
int cairn_report_spill_add(struct cairn_report *r, const struct cairn_rep_mismatch *m,
                           const json_t *id, const json_t *given, const json_t *exact);
int cairn_report_each_mismatch(const struct cairn_report *r, const char *variant,
                               int (*fn)(const struct cairn_rep_mismatch *m, void *data),
                               void *data);
int cairn_report_spill_json(const struct cairn_report *r, FILE *out);
/* Whether at's line is among the mismatches shown; mismatch: it is one. */
int cairn_report_shown(const struct cairn_report *r, const struct cairn_rep_where *at,
                       int mismatch);

#endif /* CAIRN_CLIENT_REPORT_SPILL_H */
