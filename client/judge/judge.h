/*
 * judge.h - `cairn judge VARIANT ... -- CMD [ARGS...]`: runs a candidate
 * program on positions `cairn gen` draws, grades each answer against
 * cairn's own (client/solve/gen_solve.h), shrinks each distinct failure
 * to a 1-minimal counterexample and reports it.  The command (judge.c,
 * declared here; its options in judge_opts.h), the grading
 * (judge_answer.c) and the candidate's command and sandbox
 * (judge_sandbox.c), sharing judge_state.h, its runs (judge_run.h), the
 * shrinking (judge_shrink.h), the output as text, JSON and HTML
 * (judge_out.h).
 */
#ifndef CAIRN_CLIENT_JUDGE_H
#define CAIRN_CLIENT_JUDGE_H

#include "client.h"
#include "judge_opts.h"

/*
 * NAME     cairn_cmd_judge - the command
 * RETURNS  0 with *failed set when any answer was wrong or the candidate
 *          failed (crashed, hung, printed garbage or too few lines);
 *          -EINVAL (usage, with a message), -ENOENT (CMD not found);
 *          other negative errnos for cairn's own errors
 */
int cairn_cmd_judge(struct cairn_client *cl, const struct cairn_judge_opts *o, int *failed);

#endif /* CAIRN_CLIENT_JUDGE_H */
