/*
 * judge.h - `cairn judge VARIANT ... -- CMD [ARGS...]`: runs a candidate
 * program on positions `cairn gen` draws, grades each answer against
 * cairn's own (client/solve/gen_solve.h), shrinks each distinct failure
 * to a 1-minimal counterexample and reports it.  The command (judge.c),
 * the grading (judge_answer.c, sharing judge_state.h), the candidate's
 * command and sandbox (judge_sandbox.c) and runs (judge_run.c), the
 * shrinking (judge_shrink.c), the output as text, JSON and HTML
 * (judge_out.c).
 */
#ifndef CAIRN_CLIENT_JUDGE_H
#define CAIRN_CLIENT_JUDGE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "client.h"

/* What the command line gave; judge.c checks the strings. */
struct cairn_judge_opts {
    const char *variant;
    const char *count;   /* --count N, or NULL: 100 */
    const char *seed;    /* --seed S, or NULL: 1 */
    const char *size;    /* --size A..B, or NULL: the game's default */
    const char *limits;  /* --limits official|extended */
    const char *plugins; /* --plugins DIR */
    const char *html;    /* --html FILE */
    double timeout;      /* --timeout S per run of the candidate; < 0: 10 s */
    int traps;           /* --traps */
    int json;            /* --json: one object on stdout instead of text */
    int no_sandbox;      /* --no-sandbox */
    char *const *cmd;    /* CMD [ARGS...] */
    size_t n_cmd;
};

/*
 * NAME     cairn_cmd_judge - the command
 * RETURNS  0 with *failed set when any answer was wrong or the candidate
 *          failed (crashed, hung, printed garbage or too few lines);
 *          -EINVAL (usage, with a message), -ENOENT (CMD not found);
 *          other negative errnos for cairn's own errors
 */
int cairn_cmd_judge(struct cairn_client *cl, const struct cairn_judge_opts *o, int *failed);

/* ---- one input (judge.c) ------------------------------------------------ */

/* k arrays of n values each, array a at v[a * n]; a game of one integer
 * (stone-game-iv) is k = 1, n = 1 with scalar set: it can only move. */
struct cairn_judge_input {
    int64_t *v;
    size_t n, k;
    int scalar;
};

int cairn_judge_input_copy(struct cairn_judge_input *dst, const struct cairn_judge_input *src);
void cairn_judge_input_free(struct cairn_judge_input *in);

/* ---- the candidate's runs (judge_run.c) --------------------------------- */

enum cairn_judge_fault {
    CAIRN_JUDGE_RAN = 0,  /* every answer line came */
    CAIRN_JUDGE_TIMEOUT,  /* the wall-clock limit passed first */
    CAIRN_JUDGE_CRASHED,  /* ended by a signal */
    CAIRN_JUDGE_EXITED,   /* exited with a non-zero status, answers missing */
    CAIRN_JUDGE_TOO_FEW,  /* exited 0 (or closed its output) with answers missing */
    CAIRN_JUDGE_GARBAGE,  /* a line that is not a JSON answer (judge.c decides) */
    CAIRN_JUDGE_TOO_MUCH, /* more output than any answer needs */
};

struct cairn_judge_runner {
    char **argv;        /* the command as run: bwrap and its arguments first */
    double timeout;     /* seconds per run */
    uint64_t mem_bytes; /* RLIMIT_AS */
    int sandboxed;      /* argv[0] is bwrap: it exits 128 + N for signal N */
};

struct cairn_judge_run {
    enum cairn_judge_fault fault;
    int status;     /* waitpid's, when the child ended on its own */
    int signal;     /* CRASHED: the signal that ended it */
    char *out;      /* stdout, NUL-terminated */
    size_t n_lines; /* complete lines in out */
    char *err_tail; /* the last lines of stderr (at most 2 KiB), NUL-terminated */
};

/*
 * NAME     cairn_judge_run - one run of the candidate
 * ARGUMENTS input: n_lines lines, each ending in '\n'
 * RETURNS  0 with *run filled (its fault says how the candidate did);
 *          a negative errno with a message in cl when cairn could not
 *          run it (no such command, out of descriptors)
 * NOTES    the child has its own session (process group), RLIMIT_AS, only
 *          descriptors 0-2; its whole group is killed before this returns,
 *          and any descendant that left the group (cairn is their
 *          subreaper: cairn_cmd_judge) is killed and reaped too.
 */
int cairn_judge_run(struct cairn_client *cl, const struct cairn_judge_runner *r, const char *input,
                    size_t len, size_t n_lines, struct cairn_judge_run *run);
void cairn_judge_run_free(struct cairn_judge_run *run);

/* ---- shrinking (judge_shrink.c) ----------------------------------------- */

/* Grades tries[0..n): verdict[i] 1 when the candidate answers it wrong,
 * 0 right, -1 illegal (the record path refuses it).  0, or a negative
 * errno that stops the shrinking (the candidate failed as a program:
 * -ECANCELED, its run kept by the caller). */
typedef int (*cairn_judge_try_fn)(void *ctx, const struct cairn_judge_input *tries, size_t n,
                                  int *verdict);

/*
 * NAME     cairn_judge_shrink - delta debugging to a 1-minimal failure
 * ARGUMENTS x: a failing input, replaced by the smaller one found
 * RETURNS  0 when x is 1-minimal: removing any one value, or moving any
 *          one value one step toward 0, gives an input the candidate
 *          answers right, or an illegal one; fn's error otherwise (x then
 *          the smallest failure found so far); *runs counts fn's calls
 */
int cairn_judge_shrink(struct cairn_judge_input *x, cairn_judge_try_fn fn, void *ctx, size_t *runs);

/* ---- output (judge_out.c) ------------------------------------------------ */

/* The report object (judge.c builds it) as text on stdout, as JSON on
 * stdout, and as an HTML page in a file.  0 or a negative errno. */
int cairn_judge_print_text(struct cairn_client *cl, const json_t *report);
int cairn_judge_print_json(struct cairn_client *cl, const json_t *report);
int cairn_judge_write_html(struct cairn_client *cl, const json_t *report, const char *file);

#endif /* CAIRN_CLIENT_JUDGE_H */
