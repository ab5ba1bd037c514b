/*
 * predict_the_winner.c - an example cairn plugin: LeetCode 486,
 * "Predict the Winner".  Copy this file to start a plugin of your own.
 *
 * THE GAME
 *
 *   `nums` is a row of integers.  Two players take turns; on each turn the
 *   player to move takes the number at the left end or the right end of the
 *   row and adds it to their total.  Player 1 (cairn calls them Alice) moves
 *   first, and both play optimally.  The answer is true when player 1 can
 *   end with a total >= player 2's.  Note the ">=": LeetCode 486 counts a
 *   TIE AS A WIN FOR PLAYER 1.  That is the one rule that differs from
 *   stone-game (LeetCode 877), where a tie answers false.
 *
 * THE FOUR PARTS OF A PLUGIN
 *
 *   A plugin is one shared object that exports exactly one function,
 *   cairn_plugin_entry(), returning a pointer to a constant descriptor
 *   (struct cairn_plugin, in <cairn/plugin.h>).  Everything else in the
 *   file is static.  The parts, in the order they appear below:
 *
 *   1. The input declaration (ptw_inputs).  One entry per key of the
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
 *          must be odd").  It may be NULL; 486 has no such rule, so ours
 *          only re-checks the shape solve() relies on.
 *        - scratch_bytes() says how much working memory solve() needs for
 *          this problem.  The host allocates it (aligned for int64_t, NOT
 *          zeroed) and reuses it between records.
 *        - max_moves() bounds the length of a line of play, so the host can
 *          size result->moves when the record asks for moves.
 *
 *   3. solve(), the kernel.  It reads problem->inputs[], writes answer,
 *      alice, bob and (when want_moves) moves[] into *result, and uses only
 *      the scratch buffer for memory.
 *
 *   4. The descriptor (ptw_plugin) and the entry function.  The descriptor
 *      starts with the ABI version and its own size, which the host checks
 *      before reading anything else, then the name, aliases, version,
 *      summary, the inputs, how to render the answer and the moves, and
 *      the callbacks.
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
 *      -o predict-the-winner.so predict_the_winner.c
 *
 *   (that is what the Makefile next to this file does).  The pkg-config
 *   flags include -fvisibility=hidden, so only the CAIRN_PLUGIN_EXPORT
 *   function is exported; check with `nm -D --defined-only`.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/*
 * Part 1: the input declaration.
 *
 * Official bounds (LeetCode 486): 1 <= len <= 20, 0 <= nums[i] <= 10^7.
 *
 * Extended bounds: 1 <= len <= 5000, |nums[i]| <= 10^14.  Why these:
 *   - every total and every DP value is bounded by sum |nums[i]|
 *     <= 5000 * 10^14 = 5 * 10^17, far below INT64_MAX (about 9.22 * 10^18),
 *     and the kernel's intermediate nums[i] - d[...] is bounded by
 *     10^14 + 5 * 10^17, so no int64 arithmetic can overflow;
 *   - n^2 / 2 = 1.25 * 10^7 DP cells take a few milliseconds;
 *   - the moves bit table is n(n-1)/2 bits, about 1.5 MB.
 */
#define PTW_OFFICIAL_MAX_LEN 20
#define PTW_OFFICIAL_MAX_VALUE INT64_C(10000000)       /* 10^7 */
#define PTW_EXTENDED_MAX_LEN 5000
#define PTW_EXTENDED_MAX_VALUE INT64_C(100000000000000) /* 10^14 */

static const struct cairn_input_decl ptw_inputs[] = {
    {
        .name = "nums", /* the key inside the record's "input" object */
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = {.min_len = 1,
                     .max_len = PTW_OFFICIAL_MAX_LEN,
                     .min_value = 0,
                     .max_value = PTW_OFFICIAL_MAX_VALUE},
        .extended = {.min_len = 1,
                     .max_len = PTW_EXTENDED_MAX_LEN,
                     .min_value = -PTW_EXTENDED_MAX_VALUE,
                     .max_value = PTW_EXTENDED_MAX_VALUE},
    },
};

/* Other names a record's "variant" may use for this plugin.  NULL-ended. */
static const char *const ptw_aliases[] = {"486", NULL};

/* Writes a message for the host, which adds it to the error line. */
static void ptw_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg != NULL && msg_len > 0)
        snprintf(msg, msg_len, "%s", text);
}

/*
 * Fetches the one declared input.  The host has already checked it against
 * the bounds, but a plugin must never trust its arithmetic to someone
 * else's check, so the extended maximum is re-checked here: every size
 * computed below relies on it.
 */
static int ptw_get(const struct cairn_problem *pb, const int64_t **nums, size_t *n)
{
    if (pb == NULL || pb->inputs == NULL || pb->n_inputs != 1)
        return CAIRN_E_INTERNAL;
    *nums = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || *nums == NULL)
        return CAIRN_E_INTERNAL;
    if (*n > PTW_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static const char *ptw_get_error(int rc)
{
    return rc == CAIRN_E_TOO_LARGE ? "input.nums: longer than the extended maximum"
                                   : "input.nums: malformed problem";
}

/*
 * The decision-bit table used for moves.  For every interval length
 * len = 2..n and start i = 0..n-len there is one bit: 1 when taking the
 * right end is strictly better, 0 when the left end is at least as good.
 * Rows are stored one after another, row `len` holding n - len + 1 bits, so
 * the whole table is (n-1) + (n-2) + ... + 1 = n(n-1)/2 bits.
 */
static size_t ptw_bit_count(size_t n)
{
    return n * (n - 1) / 2;
}

static size_t ptw_bit_words(size_t n)
{
    return (ptw_bit_count(n) + 63) / 64;
}

/*
 * Part 2: check, scratch_bytes, max_moves.
 */

/* NAME     ptw_check - rules the bounds cannot express
 * NOTES    486 has none (any length, any values within the bounds), so this
 *          could be .check = NULL.  It is kept to show the shape: return
 *          CAIRN_E_CONSTRAINT with a message naming the field when an
 *          official rule is broken, CAIRN_E_TOO_LARGE when the problem is
 *          beyond what the kernel handles. */
static int ptw_check(const struct cairn_problem *pb, char *msg, size_t msg_len)
{
    const int64_t *nums;
    size_t n;
    int rc = ptw_get(pb, &nums, &n);

    if (rc != CAIRN_OK)
        ptw_msg(msg, msg_len, ptw_get_error(rc));
    return rc;
}

/* NAME     ptw_scratch_bytes - memory solve() needs
 * RETURNS  8n bytes for the DP row, plus the decision bits with moves.
 *          n <= 5000, so at most 40 000 + 1 562 504 bytes: no overflow. */
static size_t ptw_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *nums;
    size_t n;
    size_t bytes;

    if (ptw_get(pb, &nums, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    bytes = n * sizeof(int64_t);
    if (pb->want_moves)
        bytes += ptw_bit_words(n) * sizeof(uint64_t);
    return bytes;
}

/* NAME     ptw_max_moves - every move takes one number, so exactly n moves */
static size_t ptw_max_moves(const struct cairn_problem *pb)
{
    if (pb == NULL || pb->inputs == NULL || pb->n_inputs != 1)
        return 0;
    return pb->inputs[0].n;
}

/*
 * Part 3: the kernel.
 *
 * Every number is taken eventually, so maximising your own total is the
 * same as maximising the difference "my total minus the other's".  Let
 * d(i, len) be that difference for the player to move when the row left is
 * nums[i .. i+len-1]:
 *
 *     d(i, 1)   = nums[i]
 *     d(i, len) = max(nums[i]       - d(i+1, len-1),    take the left end
 *                     nums[i+len-1] - d(i,   len-1))    take the right end
 *
 * Row `len` needs only row `len-1`, so one array d[] of n values is
 * enough: for increasing i, d[i] is overwritten after d[i] and d[i+1]
 * (both still row len-1) were read.  O(n^2) time, O(n) memory.
 *
 * With D = d(0, n) and S = sum of nums: Alice = (S + D) / 2,
 * Bob = (S - D) / 2 (S + D = 2 * Alice, so the division is exact), and the
 * answer is D >= 0, since a tie is a win for player 1.
 */
static int ptw_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *nums;
    size_t n;
    int rc = ptw_get(pb, &nums, &n);

    if (rc != CAIRN_OK) {
        ptw_msg(msg, msg_len, ptw_get_error(rc));
        return rc;
    }
    if (res == NULL || scratch == NULL) {
        ptw_msg(msg, msg_len, "no result or scratch buffer");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (res->moves == NULL || res->moves_cap < n)) {
        ptw_msg(msg, msg_len, "moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    /* Scratch layout: d[0..n-1], then (with moves) the decision bits. */
    int64_t *d = scratch;
    uint64_t *bits = pb->want_moves ? (uint64_t *)(d + n) : NULL;
    int64_t sum = 0;

    /* Scratch is not zeroed by the host: clear the bits we OR into. */
    if (bits != NULL)
        memset(bits, 0, ptw_bit_words(n) * sizeof(uint64_t));

    for (size_t i = 0; i < n; i++) {
        d[i] = nums[i]; /* d(i, 1): one number left, take it */
        sum += nums[i];
    }

    size_t bit = 0; /* index of bit (len, i = 0) in the table */
    for (size_t len = 2; len <= n; len++) {
        for (size_t i = 0; i + len <= n; i++) {
            int64_t left = nums[i] - d[i + 1];
            int64_t right = nums[i + len - 1] - d[i];
            if (right > left) {
                d[i] = right;
                if (bits != NULL)
                    bits[(bit + i) / 64] |= UINT64_C(1) << ((bit + i) % 64);
            } else {
                d[i] = left; /* ties take the left end */
            }
        }
        bit += n - len + 1;
    }

    if (bits != NULL) {
        /* Replay one optimal line from the whole row (0, n): at each length
         * read the decision bit of the current interval.  `bit` is now the
         * end of the table; step back one row per move. */
        size_t i = 0, k = 0;
        for (size_t len = n; len >= 2; len--) {
            bit -= n - len + 1; /* first bit of row len */
            int right = (int)((bits[(bit + i) / 64] >> ((bit + i) % 64)) & 1u);
            res->moves[k++] = right; /* CAIRN_MOVES_SIDE: 0 = "L", 1 = "R" */
            if (!right)
                i++; /* the left end was taken: the row now starts one later */
        }
        res->moves[k++] = 0; /* one number left: take it (from the left) */
        res->n_moves = k;
    }

    int64_t diff = d[0];
    res->answer = diff >= 0; /* 486: a tie counts as a win for player 1 */
    res->alice = (sum + diff) / 2;
    res->bob = (sum - diff) / 2;
    return CAIRN_OK;
}

/*
 * Part 4: the descriptor and the one exported function.
 */
static const struct cairn_plugin ptw_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "predict-the-winner",
    .aliases = ptw_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 486: take the left or right end number; true if player 1 ends "
               "with at least player 2's total",
    .inputs = ptw_inputs,
    .n_inputs = sizeof ptw_inputs / sizeof ptw_inputs[0],
    .answer_kind = CAIRN_ANSWER_BOOL, /* rendered as JSON true/false */
    .moves_kind = CAIRN_MOVES_SIDE,   /* rendered as "L"/"R" */
    .check = ptw_check,
    .scratch_bytes = ptw_scratch_bytes,
    .max_moves = ptw_max_moves,
    .solve = ptw_solve,
    .totals = CAIRN_TOTALS_ALL, /* rendered: "alice", "bob", "margin" */
};

/* Declared first so -Wmissing-prototypes stays quiet; CAIRN_PLUGIN_EXPORT
 * gives it default visibility despite -fvisibility=hidden. */
CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &ptw_plugin;
}
