/*
 * fastparse.h - a strict reader for the plain records that make up bulk
 * jobs, so their integer arrays never go through a general JSON tree.
 *
 * jansson builds one json_t per array element and copies every digit
 * through a string buffer before strtoll: for a max-size record that is
 * nine tenths of the work.  This reader takes a record only when it is
 * exactly the common shape -- a top-level object of variant, input, id,
 * expected and options (limits, moves, analysis and play), with plain
 * ASCII strings (no escapes), 64-bit integers, booleans, null, input
 * members that are integers or arrays of integers, play moves that are
 * integers, strings or {"split":K,"keep":S}, and any other top-level key
 * holding scalars or arrays of them (no object, no real) -- and declines
 * everything else, which then goes to jansson as before.  So the records
 * whose many small values would make a jansson tree larger than the
 * record's memory budget (record.h) -- long input arrays, long lines of
 * play, long integer arrays kept beside the record -- are read without
 * one.  It never reports an error: anything
 * odd, malformed or merely unusual is declined, so every error message
 * about the JSON still comes from the one jansson path (inputs.c words
 * the input errors for both), and an accepted record means exactly what
 * jansson would have made of it (the fuzz target checks both agree).
 */
#ifndef CAIRN_FASTPARSE_H
#define CAIRN_FASTPARSE_H

#include <stddef.h>
#include <stdint.h>

#include "cairn/plugin.h"
#include "scalar.h"
#include "scratch.h"

#define CAIRN_FAST_MAX_INPUTS 8

struct cairn_fast_input {
    const char *name; /* into the line, printable ASCII */
    size_t name_len;
    size_t off; /* the values: scratch->values[off .. off + n) */
    size_t n;
    int scalar; /* 1: a bare integer (n == 1), 0: an array */
};

/* Scalars' strings point into the line (printable ASCII, no escapes, so
 * the bytes are the value); their json is always NULL. */
struct cairn_fast_rec {
    struct cairn_scalar variant; /* ABSENT or STRING */
    struct cairn_scalar id;      /* any kind but a real */
    struct cairn_scalar expected;
    int has_input;
    struct cairn_fast_input inputs[CAIRN_FAST_MAX_INPUTS];
    size_t n_inputs;
    int limits;   /* -1 unset, else enum cairn_limits */
    int moves;    /* -1 unset, else 0/1 */
    int analysis; /* -1 unset, else 0/1 */
    /* options.play: its text in the line, from '[' to past ']', of n_play
     * moves of the shapes cairn_fast_play_next() reads; NULL unset. */
    const char *play;
    const char *play_end;
    size_t n_play;
};

/* One move of options.play as the plain reader checked it: an integer
 * (i), a string (s/n, printable ASCII), or a split (i at, s/n keep). */
enum cairn_fast_move_kind {
    CAIRN_FAST_MOVE_INT,
    CAIRN_FAST_MOVE_STRING,
    CAIRN_FAST_MOVE_SPLIT
};
struct cairn_fast_move {
    enum cairn_fast_move_kind kind;
    int64_t i;
    const char *s;
    size_t n;
};

/*
 * NAME     cairn_fast_parse - read a plain record
 * RETURNS  1 with *out filled and the integers in s->values; 0 to decline
 *          (the caller parses with jansson); -ENOMEM
 */
int cairn_fast_parse(const char *line, size_t len, struct cairn_fast_rec *out,
                     struct cairn_scratch *s);

/*
 * NAME     cairn_fast_play_next - the next move of an accepted record's play
 * ARGUMENTS *p starts at out->play, then where the last call left it;
 *          called out->n_play times
 */
void cairn_fast_play_next(const char **p, const char *end, struct cairn_fast_move *m);

#endif /* CAIRN_FASTPARSE_H */
