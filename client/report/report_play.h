/*
 * report_play.h - a results file's graded lines of play read into a report
 * (report_play.c).
 */
#ifndef CAIRN_CLIENT_REPORT_PLAY_H
#define CAIRN_CLIENT_REPORT_PLAY_H

#include <jansson.h>
#include <stddef.h>

#include "report_types.h"
#include "report_where.h"

/* A graded line of play (options.play) of result line o into its variant
 * v and r (report_play.c): 0 or -ENOMEM. */
int cairn_report_add_play(struct cairn_report *r, struct cairn_rep_variant *v, const json_t *o,
                          const char *line, size_t len, const char *job, size_t job_index,
                          const char *vname, const struct cairn_rep_line_at *at);

void cairn_report_blunder_free(struct cairn_rep_blunder *b);

#endif /* CAIRN_CLIENT_REPORT_PLAY_H */
