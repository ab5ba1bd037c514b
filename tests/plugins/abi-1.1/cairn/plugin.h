/*
 * FROZEN copy of include/cairn/plugin.h as ABI 1.1 shipped it: the abi_plugins
 * built against it are real 1.1 binaries, so the tests prove a 1.2 host
 * still serves them (and refuses analysis to them).  Never edit.
 *
 * cairn/plugin.h - the solver plugin ABI of cairn.
 *
 * A plugin is one shared object that exports exactly one symbol,
 * CAIRN_PLUGIN_ENTRY_SYMBOL, a function returning a pointer to a constant
 * descriptor.  The host reads abi_major, abi_minor and struct_size first and
 * refuses the plugin before touching anything else if they do not match.
 *
 * JSON never crosses this boundary: the descriptor declares its inputs
 * (integer arrays and integer scalars with official and extended bounds),
 * the host parses and
 * validates each record against that declaration, and hands the plugin plain
 * C arrays.  The plugin returns plain C numbers; the host renders them.  So a
 * plugin links nothing but libc and never depends on the host's JSON library.
 *
 * Thread rules, in short: the descriptor is read-only after the entry
 * function returns; check() and solve() are called concurrently from many
 * worker threads, each call with its own problem, result and scratch memory,
 * so they must not touch mutable static state.
 *
 * Versions.  1.0: integer arrays in; a bool, integer or winner answer plus
 * Alice's and Bob's totals out; moves as L/R or counts.  1.1 appends to the
 * descriptor (so a 1.0 binary, with its smaller struct_size, still loads and
 * behaves exactly as before): scalar integer inputs, arrays of equal length,
 * a choice of which totals the game defines, and moves that name a stone or
 * a split.  A host accepts any minor up to its own and refuses a newer one.
 * It copies min(struct_size, its own sizeof) bytes of the descriptor into
 * a copy of its own and reads the fields an older minor lacks as that
 * minor meant them; a descriptor that uses a kind newer than the minor it
 * declares is refused.  Rebuilding a 1.0 plugin against this header: set
 * .totals = CAIRN_TOTALS_ALL to keep its output (left out, it is 0: none).
 */
#ifndef CAIRN_PLUGIN_H
#define CAIRN_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* A major change breaks the layout; a minor one only appends fields. */
#define CAIRN_PLUGIN_ABI_MAJOR 1
#define CAIRN_PLUGIN_ABI_MINOR 1

/* The one exported symbol, and its type. */
#define CAIRN_PLUGIN_ENTRY_SYMBOL "cairn_plugin_entry"
struct cairn_plugin;
typedef const struct cairn_plugin *(*cairn_plugin_entry_fn)(void);

/* Put this on the entry function; build the plugin with
 * -fvisibility=hidden so nothing else leaks out. */
#define CAIRN_PLUGIN_EXPORT __attribute__((visibility("default")))

/* Status codes returned by check() and solve(). */
enum cairn_status {
    CAIRN_OK = 0,
    CAIRN_E_CONSTRAINT = 1, /* an official rule is broken (message says which) */
    CAIRN_E_TOO_LARGE = 2,  /* over the plugin's extended maxima */
    CAIRN_E_INTERNAL = 3    /* a bug or an impossible state */
};

/* Which limits a record asked for. */
enum cairn_limits {
    CAIRN_LIMITS_OFFICIAL = 0,
    CAIRN_LIMITS_EXTENDED = 1
};

/* The kinds of input a plugin can declare. */
enum cairn_input_kind {
    CAIRN_INPUT_INT_ARRAY = 1,
    /* 1.1: one JSON integer, e.g. {"n": 17}.  It reaches solve() as a
     * struct cairn_array with n == 1; min_len/max_len are ignored and only
     * min_value/max_value bound it. */
    CAIRN_INPUT_INT = 2
};

/* Inclusive bounds on an array's length and on each of its values (a
 * scalar: on its value). */
struct cairn_bounds {
    size_t min_len;
    size_t max_len;
    int64_t min_value;
    int64_t max_value;
};

/* One declared input: the key inside the record's "input" object. */
struct cairn_input_decl {
    const char *name; /* e.g. "piles" */
    enum cairn_input_kind kind;
    struct cairn_bounds official; /* the LeetCode constraints */
    struct cairn_bounds extended; /* what the kernel can handle in 64 bits */
};

/* How the host renders the answer. */
enum cairn_answer_kind {
    CAIRN_ANSWER_BOOL = 1,  /* answer is 0 or 1: JSON false/true */
    CAIRN_ANSWER_INT = 2,   /* answer is the integer itself */
    CAIRN_ANSWER_WINNER = 3 /* answer is enum cairn_winner: "Alice"/"Bob"/"Tie" */
};

enum cairn_winner {
    CAIRN_WINNER_ALICE = 0,
    CAIRN_WINNER_BOB = 1,
    CAIRN_WINNER_TIE = 2
};

/* How the host renders each entry of moves[]. */
enum cairn_moves_kind {
    CAIRN_MOVES_SIDE = 1,  /* 0 = "L" (left end), 1 = "R" (right end) */
    CAIRN_MOVES_COUNT = 2, /* a count: stones/piles taken, or the game's x */
    /* 1.1 */
    CAIRN_MOVES_INDEX = 3, /* the 0-based index, in the input arrays as
                              given, of the stone taken */
    CAIRN_MOVES_SPLIT = 4  /* a cut and the part kept, packed by
                              CAIRN_MOVE_SPLIT(); rendered as
                              {"split":K,"keep":"L"|"R"} */
};

/* A split move: the row [lo, hi) is cut before the stone at index k of the
 * input as given (lo < k < hi), and the left ([lo, k)) or right ([k, hi))
 * part is kept.  keep_right is 0 or 1. */
#define CAIRN_MOVE_SPLIT(k, keep_right) ((int32_t)(((uint32_t)(k) << 1) | (uint32_t)(keep_right)))
#define CAIRN_MOVE_SPLIT_AT(m)          ((int32_t)((uint32_t)(m) >> 1))
#define CAIRN_MOVE_SPLIT_KEEPS_RIGHT(m) ((int)((uint32_t)(m) % 2u))

/* 1.1: which totals the game defines, rendered after the answer.  A 1.0
 * plugin defines all three. */
enum cairn_totals {
    CAIRN_TOTAL_ALICE = 1u << 0,  /* "alice": result->alice */
    CAIRN_TOTAL_BOB = 1u << 1,    /* "bob": result->bob */
    CAIRN_TOTAL_MARGIN = 1u << 2, /* "margin": result->alice - result->bob */
    CAIRN_TOTALS_ALL = 7u
};

/* An integer array, validated against its declaration. */
struct cairn_array {
    const int64_t *v;
    size_t n; /* a CAIRN_INPUT_INT scalar: always 1 */
};

/* One position to solve.  Owned by the host; valid during the call only. */
struct cairn_problem {
    const struct cairn_array *inputs; /* one per declared input, in order */
    size_t n_inputs;
    enum cairn_limits limits;
    int want_moves; /* nonzero: fill result->moves */
};

/* The answer.  The host zeroes it and sets moves/moves_cap before solve(). */
struct cairn_result {
    int64_t answer;   /* see enum cairn_answer_kind */
    int64_t alice;    /* Alice's total under optimal play */
    int64_t bob;      /* Bob's total under optimal play */
    int32_t *moves;   /* host-owned buffer for one optimal line of play */
    size_t moves_cap; /* its capacity: max_moves(problem) entries */
    size_t n_moves;   /* set by solve() when want_moves */
};

/*
 * The descriptor.  Every field is constant for the life of the process.
 */
struct cairn_plugin {
    /* Read first, before anything else. */
    uint16_t abi_major;   /* CAIRN_PLUGIN_ABI_MAJOR */
    uint16_t abi_minor;   /* CAIRN_PLUGIN_ABI_MINOR */
    uint32_t struct_size; /* sizeof(struct cairn_plugin) */

    const char *name;           /* variant name, [a-z0-9-]+, e.g. "stone-game" */
    const char *const *aliases; /* NULL-terminated, e.g. {"877", NULL} */
    const char *version;        /* the plugin's own version, e.g. "1.0.0" */
    const char *summary;        /* one line for --list-plugins */

    const struct cairn_input_decl *inputs;
    size_t n_inputs;

    enum cairn_answer_kind answer_kind;
    enum cairn_moves_kind moves_kind;

    /*
     * NAME     check - cross-field rules the declaration cannot express
     * CALLED   on a worker thread, concurrently, after the host has checked
     *          every input against its bounds for problem->limits
     * RETURNS  CAIRN_OK, or CAIRN_E_CONSTRAINT / CAIRN_E_TOO_LARGE with a
     *          NUL-terminated message written to msg (at most msg_len bytes)
     * NOTES    may be NULL when there are no such rules
     */
    int (*check)(const struct cairn_problem *problem, char *msg, size_t msg_len);

    /*
     * NAME     scratch_bytes - working memory solve() needs for this problem
     * CALLED   on a worker thread, concurrently, after check()
     * RETURNS  a byte count; the host passes a buffer at least that large,
     *          aligned for int64_t, to solve()
     */
    size_t (*scratch_bytes)(const struct cairn_problem *problem);

    /*
     * NAME     max_moves - an upper bound on the length of a line of play
     * CALLED   on a worker thread, concurrently, only when want_moves is set
     */
    size_t (*max_moves)(const struct cairn_problem *problem);

    /*
     * NAME     solve - the kernel
     * CALLED   on a worker thread, concurrently with other calls; it must be
     *          reentrant and must not allocate with anything but scratch
     * RETURNS  CAIRN_OK with *result filled, or a status and a message
     */
    int (*solve)(const struct cairn_problem *problem, struct cairn_result *result, void *scratch,
                 char *msg, size_t msg_len);

    /* ---- 1.1: absent (read as below) when struct_size ends before them ---- */

    /* Inputs whose lengths must be equal: bit i stands for inputs[i], and
     * only CAIRN_INPUT_INT_ARRAY inputs, at least two, may be named.  The
     * host checks it before any bound and before check(), and names both
     * fields when they differ (invalid_input).  0 (1.0): no such rule. */
    uint32_t equal_length;

    /* The totals the game defines, a set of enum cairn_totals; the host
     * renders only these, so 0 means a game without totals (win/lose).
     * Mind a designated initializer that leaves it out: that is 0 too.
     * Absent (1.0) is read as CAIRN_TOTALS_ALL: a 1.0 plugin keeps its
     * output. */
    uint32_t totals;
};

#ifdef __cplusplus
}
#endif

#endif /* CAIRN_PLUGIN_H */
