/*
 * judge_run.h - one run of the candidate program `cairn judge` judges
 * (judge_run.c): its limits, and how it ended.
 */
#ifndef CAIRN_CLIENT_JUDGE_RUN_H
#define CAIRN_CLIENT_JUDGE_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "client.h"

enum cairn_judge_fault {
    CAIRN_JUDGE_RAN = 0,  /* every answer line came */
    CAIRN_JUDGE_TIMEOUT,  /* the wall-clock limit passed first */
    CAIRN_JUDGE_CRASHED,  /* ended by a signal */
    CAIRN_JUDGE_EXITED,   /* exited with a non-zero status, answers missing */
    CAIRN_JUDGE_TOO_FEW,  /* exited 0 (or closed its output) with answers missing */
    CAIRN_JUDGE_GARBAGE,  /* a line that is not a JSON answer (judge_answer.c decides) */
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

#endif /* CAIRN_CLIENT_JUDGE_RUN_H */
