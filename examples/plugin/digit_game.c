/*
 * digit_game.c - an example cairn plugin: LeetCode 3232, "Find if Digit
 * Game Can Be Won".  Copy this file to start a plugin of your own.
 *
 * THE GAME
 *
 *   `nums` is a list of numbers from 1 to 99.  Alice takes either all the
 *   one-digit numbers or all the two-digit numbers; Bob gets the rest.  The
 *   answer is true when Alice can end with a strictly larger sum than Bob.
 *   She simply takes the larger group, so she wins unless both groups have
 *   the same sum.  A game of one decision keeps the example short: the
 *   parts below are the same for any game, however hard its kernel.
 *
 * THE FOUR PARTS OF A PLUGIN
 *
 *   A plugin is one shared object that exports exactly one function,
 *   cairn_plugin_entry(), returning a pointer to a constant descriptor
 *   (struct cairn_plugin, in <cairn/plugin.h>).  Everything else in the
 *   file is static.  The parts, in the order they appear below:
 *
 *   1. The input declaration (dg_inputs).  One entry per key of the
 *      record's "input" object, here just "nums", an integer array, with
 *      two sets of bounds: the official LeetCode constraints and the larger
 *      "extended" ones the kernel can still handle exactly in 64 bits.
 *      The host (cairnd) parses the JSON, checks every length and value
 *      against the bounds the record asked for, and only then calls the
 *      plugin with a plain C array.  JSON never reaches the plugin.
 *
 *   2. check(), scratch_bytes() and max_moves(), the small callbacks the
 *      host calls before solve():
 *        - check() enforces rules the bounds cannot express (e.g. "the sum
 *          must be odd").  It may be NULL; 3232 has no such rule, so ours
 *          only re-checks the shape solve() relies on.
 *        - scratch_bytes() says how much working memory solve() needs for
 *          this problem.  The host allocates it (aligned for int64_t, NOT
 *          zeroed) and reuses it between records.  This kernel needs none;
 *          a DP would ask for its table here.
 *        - max_moves() bounds the length of a line of play, so the host can
 *          size result->moves when the record asks for moves.
 *
 *   3. solve(), the kernel.  It reads problem->inputs[], writes answer,
 *      alice, bob and (when want_moves) moves[] into *result, and uses only
 *      the scratch buffer for memory.
 *
 *   4. The descriptor (dg_plugin) and the entry function.  The descriptor
 *      starts with the ABI version and its own size, which the host checks
 *      before reading anything else, then the name, aliases, version,
 *      summary, the inputs, how to render the answer and the moves, the
 *      callbacks, and which totals the game defines.
 *
 * THREAD RULES
 *
 *   cairnd calls check(), scratch_bytes(), max_moves() and solve() from many
 *   worker threads at once, each call with its own problem, result and
 *   scratch.  So:
 *     - keep no mutable static or global state (no caches, no counters, no
 *       strtok(), no rand()); everything static here is const;
 *     - allocate nothing: no malloc(), no VLAs sized by the input; use the
 *       scratch buffer the host hands you;
 *     - do not keep pointers to problem, result or scratch after the call
 *       returns: they belong to the host;
 *     - never print: in `cairnd --filter` mode stdout IS the result stream.
 *       Report failures through the return code and the msg buffer;
 *     - never exit() or abort(): one bad record must not kill the daemon.
 *   The entry function is called once, at load time, and must only return
 *   the address of the constant descriptor.
 *
 * BUILD
 *
 *   cc -O2 -Wall -Wextra -shared $(pkg-config --cflags --libs cairn-plugin) \
 *      -o digit-game.so digit_game.c
 *
 *   (that is what the Makefile next to this file does).  The pkg-config
 *   flags include -fvisibility=hidden, so only the CAIRN_PLUGIN_EXPORT
 *   function is exported; check with `nm -D --defined-only`.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

/*
 * Part 1: the input declaration.
 *
 * Official bounds (LeetCode 3232): 1 <= len <= 100, 1 <= nums[i] <= 99.
 *
 * Extended bounds: 1 <= len <= 10^6, values still 1..99.  Why these:
 *   - the rules only know one- and two-digit numbers, so the values cannot
 *     grow: a 100 or a 0 belongs to neither group;
 *   - every sum is at most 99 * 10^6, far inside int64;
 *   - one pass over 10^6 numbers takes about a millisecond; longer lists
 *     would mostly measure the host's JSON parsing.
 */
#define DG_OFFICIAL_MAX_LEN 100
#define DG_EXTENDED_MAX_LEN 1000000
#define DG_MIN_VALUE 1
#define DG_MAX_VALUE 99
#define DG_ONE_DIGIT_MAX 9

static const struct cairn_input_decl dg_inputs[] = {
    {
        .name = "nums", /* the key inside the record's "input" object */
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = {.min_len = 1,
                     .max_len = DG_OFFICIAL_MAX_LEN,
                     .min_value = DG_MIN_VALUE,
                     .max_value = DG_MAX_VALUE},
        .extended = {.min_len = 1,
                     .max_len = DG_EXTENDED_MAX_LEN,
                     .min_value = DG_MIN_VALUE,
                     .max_value = DG_MAX_VALUE},
    },
};

/* Other names a record's "variant" may use for this plugin.  NULL-ended. */
static const char *const dg_aliases[] = {"3232", NULL};

/* Writes a message for the host, which adds it to the error line. */
static void dg_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg != NULL && msg_len > 0)
        snprintf(msg, msg_len, "%s", text);
}

/*
 * Fetches the one declared input.  The host has already checked it against
 * the bounds, but a plugin must never trust its arithmetic to someone
 * else's check, so the extended maximum is re-checked here: the sums below
 * rely on it.
 */
static int dg_get(const struct cairn_problem *pb, const int64_t **nums, size_t *n)
{
    if (pb == NULL || pb->inputs == NULL || pb->n_inputs != 1)
        return CAIRN_E_INTERNAL;
    *nums = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || *nums == NULL)
        return CAIRN_E_INTERNAL;
    if (*n > DG_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static const char *dg_get_error(int rc)
{
    return rc == CAIRN_E_TOO_LARGE ? "input.nums: longer than the extended maximum"
                                   : "input.nums: malformed problem";
}

/*
 * Part 2: check, scratch_bytes, max_moves.
 */

/* NAME     dg_check - rules the bounds cannot express
 * NOTES    3232 has none (any list within the bounds), so this could be
 *          .check = NULL.  It is kept to show the shape: return
 *          CAIRN_E_CONSTRAINT with a message naming the field when an
 *          official rule is broken, CAIRN_E_TOO_LARGE when the problem is
 *          beyond what the kernel handles. */
static int dg_check(const struct cairn_problem *pb, char *msg, size_t msg_len)
{
    const int64_t *nums;
    size_t n;
    int rc = dg_get(pb, &nums, &n);

    if (rc != CAIRN_OK)
        dg_msg(msg, msg_len, dg_get_error(rc));
    return rc;
}

/* NAME     dg_scratch_bytes - memory solve() needs
 * RETURNS  0: two running sums live in registers. */
static size_t dg_scratch_bytes(const struct cairn_problem *pb)
{
    (void)pb;
    return 0;
}

/* NAME     dg_max_moves - Alice's one choice is the whole game */
static size_t dg_max_moves(const struct cairn_problem *pb)
{
    (void)pb;
    return 1;
}

/*
 * Part 3: the kernel.
 *
 * One pass sums the one-digit and the two-digit numbers.  Alice takes the
 * group with the larger sum (the one-digit group when they are equal, where
 * she loses either way), so
 *
 *     answer = (one != two),  alice = max(one, two),  bob = min(one, two),
 *
 * and the line of play is her single move: the digit count of the numbers
 * she takes, 1 or 2 (CAIRN_MOVES_COUNT: "the game's x").
 */
static int dg_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                    char *msg, size_t msg_len)
{
    const int64_t *nums;
    size_t n;
    int rc = dg_get(pb, &nums, &n);

    (void)scratch; /* scratch_bytes() asked for none */
    if (rc != CAIRN_OK) {
        dg_msg(msg, msg_len, dg_get_error(rc));
        return rc;
    }
    if (res == NULL) {
        dg_msg(msg, msg_len, "no result");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (res->moves == NULL || res->moves_cap < 1)) {
        dg_msg(msg, msg_len, "moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int64_t one = 0, two = 0; /* at most 99 * 10^6 each */
    for (size_t i = 0; i < n; i++) {
        if (nums[i] <= DG_ONE_DIGIT_MAX)
            one += nums[i];
        else
            two += nums[i];
    }

    int takes_two = two > one;
    res->answer = one != two; /* strictly larger: a tie is a loss */
    res->alice = takes_two ? two : one;
    res->bob = takes_two ? one : two;
    if (pb->want_moves) {
        res->moves[0] = takes_two ? 2 : 1;
        res->n_moves = 1;
    }
    return CAIRN_OK;
}

/*
 * Part 4: the descriptor and the one exported function.
 */
static const struct cairn_plugin dg_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "digit-game",
    .aliases = dg_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 3232: Alice takes all one-digit or all two-digit numbers; true if "
               "her sum is strictly larger",
    .inputs = dg_inputs,
    .n_inputs = sizeof dg_inputs / sizeof dg_inputs[0],
    .answer_kind = CAIRN_ANSWER_BOOL, /* rendered as JSON true/false */
    .moves_kind = CAIRN_MOVES_COUNT,  /* rendered as numbers: [2] */
    .check = dg_check,
    .scratch_bytes = dg_scratch_bytes,
    .max_moves = dg_max_moves,
    .solve = dg_solve,
    /* ABI 1.1 fields.  equal_length: bit i set for each input whose length
     * must equal the others' (one input: none).  totals: the game defines
     * both players' sums, so "alice", "bob" and "margin" are all shown. */
    .equal_length = 0,
    .totals = CAIRN_TOTALS_ALL,
};

/* Declared first so -Wmissing-prototypes stays quiet; CAIRN_PLUGIN_EXPORT
 * gives it default visibility despite -fvisibility=hidden. */
CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &dg_plugin;
}
