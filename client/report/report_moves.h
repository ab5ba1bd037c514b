/*
 * report_moves.h - the lines of play of each variant's smallest failing input, solved
 * again through the solver the command hands the report (report_moves.c).
 */
#ifndef CAIRN_CLIENT_REPORT_MOVES_H
#define CAIRN_CLIENT_REPORT_MOVES_H

#include "report_types.h"

/*
 * NAME     cairn_report_lines_of_play - each variant's smallest failing
 *          input's line of play, when its result line had none
 * ARGUMENTS solver: solves the record again (opened on first need), or
 *          NULL: every such line is "not computed"
 */
void cairn_report_lines_of_play(struct cairn_client *cl, struct cairn_report *r,
                                const struct cairn_report_solver *solver);

#endif /* CAIRN_CLIENT_REPORT_MOVES_H */
