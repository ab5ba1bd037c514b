/*
 * judge_state.h - what the files of `cairn judge` share inside judge/: one
 * judging's state and cases, the records cairn solves for them
 * (judge_answer.c), the candidate's answers graded (judge_answer.c) and
 * the command it runs, in its sandbox (judge_sandbox.c).  Not for outside
 * judge/: judge.h is the command's interface.
 */
#ifndef CAIRN_CLIENT_JUDGE_STATE_H
#define CAIRN_CLIENT_JUDGE_STATE_H

#include <jansson.h>

#include "gen.h"
#include "judge_opts.h"
#include "judge_run.h"
#include "judge_shrink.h"

struct judge_case {
    struct cairn_judge_input in;
    char *id;
    json_t *exact; /* cairn's result line for it */
    json_t *given; /* the candidate's answer */
    json_t *play;  /* cairn's grading of the candidate's line of play, or NULL */
    int wrong;
};

struct judge {
    struct cairn_client *cl;
    const struct cairn_judge_opts *o;
    const struct cairn_plugin *p;
    struct cairn_gen_solver *s;
    int extended;
    struct cairn_judge_runner runner;
    const char *sandbox; /* what the report says about it */
    struct cairn_buf rec, lines;
    json_t *fault; /* the candidate's failure as a program, or NULL */
};

/* ---- inputs and records (judge_answer.c) --------------------------------- */

/* The input as the record's "input" object, appended to b. */
int cairn_judge_render_input(struct cairn_buf *b, const struct cairn_plugin *p,
                             const struct cairn_judge_input *in);
/* cairn's result line for the input (and a line of play to grade). */
int cairn_judge_solve(struct judge *j, const struct cairn_judge_input *in, const json_t *play,
                      json_t **res);
/* The result line says "ok". */
int cairn_judge_is_ok(const json_t *res);

/* ---- the candidate's answers (judge_answer.c) ---------------------------- */

/* One run of the candidate over cases[0..n), which it answers in order;
 * grades each: 0, -ECANCELED when it failed as a program (j->fault). */
int cairn_judge_answer(struct judge *j, struct judge_case *cases, size_t n, const char *during);
void cairn_judge_case_free(struct judge_case *c);
/* The shrinker's tries (cairn_judge_try_fn; ctx: the judge). */
int cairn_judge_try_batch(void *ctx, const struct cairn_judge_input *tries, size_t n, int *verdict);

/* ---- the command run (judge_sandbox.c) ----------------------------------- */

/* j->runner for o->cmd, and j->sandbox: the command found, and bwrap
 * unless --no-sandbox or not installed; an installed bwrap that cannot
 * run here is an error that names --no-sandbox, never a silent run
 * without it.  0 or a negative errno with a message. */
int cairn_judge_settle_runner(struct judge *j);
/* A NULL-ended argv built by it (NULL: nothing). */
void cairn_judge_argv_free(char **v);

#endif /* CAIRN_CLIENT_JUDGE_STATE_H */
