/*
 * report_collect.h - a run read into a report (report_collect.c): its summaries, then
 * their results files line by line (report_lines.h).
 */
#ifndef CAIRN_CLIENT_REPORT_COLLECT_H
#define CAIRN_CLIENT_REPORT_COLLECT_H

#include "report_types.h"

/*
 * NAME     cairn_report_collect - read a run into r
 * ARGUMENTS jobs: names to report on (n 0: every summary in out_dir);
 *          spool: the input directory whose .cairn/done/ holds the inputs,
 *          or NULL when unknown
 * RETURNS  0; -ENOENT (with a message) for a job with no summary or an
 *          output directory that is not there; -ENOMEM
 */
int cairn_report_collect(struct cairn_client *cl, struct cairn_report *r, const char *out_dir,
                         char *const *jobs, size_t n, const char *spool,
                         const struct cairn_report_opts *o);

void cairn_report_free(struct cairn_report *r);

#endif /* CAIRN_CLIENT_REPORT_COLLECT_H */
