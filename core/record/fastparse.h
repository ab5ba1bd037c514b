/*
 * fastparse.h - a strict reader for the plain records that make up bulk
 * jobs, so their integer arrays never go through a general JSON tree.
 *
 * jansson builds one json_t per array element and copies every digit
 * through a string buffer before strtoll: for a max-size record that is
 * nine tenths of the work.  This reader takes a record only when it is
 * exactly the common shape -- a top-level object whose keys are among
 * variant, input, id, expected and options, with plain ASCII strings (no
 * escapes), 64-bit integers, booleans, null, and input members that are
 * integers or arrays of integers -- and declines everything else, which
 * then goes to jansson as before.  It never reports an error: anything
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
    int limits; /* -1 unset, else enum cairn_limits */
    int moves;  /* -1 unset, else 0/1 */
};

/*
 * NAME     cairn_fast_parse - read a plain record
 * RETURNS  1 with *out filled and the integers in s->values; 0 to decline
 *          (the caller parses with jansson); -ENOMEM
 */
int cairn_fast_parse(const char *line, size_t len, struct cairn_fast_rec *out,
                     struct cairn_scratch *s);

#endif /* CAIRN_FASTPARSE_H */
