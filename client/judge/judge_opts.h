/*
 * judge_opts.h - what the command line gave `cairn judge`: the options
 * main() fills and judge.c checks, read by the files of judge/ that need
 * them (a header of no file of its own, so none depends on another by it).
 */
#ifndef CAIRN_CLIENT_JUDGE_OPTS_H
#define CAIRN_CLIENT_JUDGE_OPTS_H

#include <stddef.h>

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

#endif /* CAIRN_CLIENT_JUDGE_OPTS_H */
