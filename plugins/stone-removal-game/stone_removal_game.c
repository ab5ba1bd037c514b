/*
 * stone-removal-game - LeetCode 3360.
 *
 * A pile of n stones.  Alice must remove exactly 10 stones on her first
 * turn; after that each player must remove exactly one stone fewer than
 * the opponent just did (10, 9, 8, ...).  The player who cannot remove the
 * required number loses.  The answer is whether Alice wins.
 *
 * There is no choice to make: move k (k = 1, 2, ...) removes 11 - k stones,
 * so after k moves T(k) = k (21 - k) / 2 stones are gone (10, 19, 27, 34,
 * 40, 45, 49, 52, 54, 55).  The game lasts m = #{k >= 1 : T(k) <= n} moves
 * and the player to make move m + 1 loses; Alice makes the odd moves, so
 * she wins iff m is odd.  Kernel: m is counted over k = 1..9 (T(10) = 55
 * is past the extended maximum), nine compares with constants, O(1).
 *
 * Undefined past 54: with n >= 55 the first ten moves (10 + 9 + ... + 1 =
 * 55) all succeed and move 11 would have to remove 0 stones, which the
 * rules do not cover (is removing nothing possible?  does the game go on
 * with -1?).  So the extended maximum is 54, the largest n the rules
 * decide; n = 0 (no stone: Alice cannot remove 10) is decided and allowed
 * in extended mode.
 *
 * Moves (CAIRN_MOVES_COUNT): the m removals made, 10, 9, ..., 11 - m; the
 * line ends where the next player cannot move.  Win/lose game: no totals.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#define SRG_OFFICIAL_MIN 1
#define SRG_OFFICIAL_MAX 50
#define SRG_EXTENDED_MAX 54 /* T(9) = 54 < 55 = T(10): see above */
#define SRG_FIRST        10 /* stones Alice must remove on her first turn */

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const srg_aliases[] = { "3360", NULL };

static const struct cairn_input_decl srg_inputs[] = {
    {
        .name = "n",
        .kind = CAIRN_INPUT_INT,
        .official = { .min_len = 1,
                      .max_len = 1,
                      .min_value = SRG_OFFICIAL_MIN,
                      .max_value = SRG_OFFICIAL_MAX },
        .extended = { .min_len = 1, .max_len = 1, .min_value = 0, .max_value = SRG_EXTENDED_MAX },
    },
};

static void srg_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int srg_get(const struct cairn_problem *pb, int64_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs || pb->inputs[0].n != 1 || !pb->inputs[0].v)
        return CAIRN_E_INTERNAL;
    *n = pb->inputs[0].v[0];
    if (*n < 0)
        return CAIRN_E_INTERNAL; /* the host enforces min_value 0 */
    if (*n > SRG_EXTENDED_MAX)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static size_t srg_scratch_bytes(const struct cairn_problem *pb)
{
    (void)pb;
    return 0;
}

/* At most nine moves succeed for n <= 54; ten is a safe bound. */
static size_t srg_max_moves(const struct cairn_problem *pb)
{
    (void)pb;
    return SRG_FIRST;
}

/* After k moves, T(k) = 10 + 9 + ... + (11 - k) = k (21 - k) / 2 stones
 * are gone. */
#define SRG_T(k) ((k) * (2 * SRG_FIRST + 1 - (k)) / 2)

/* m = the number of moves k in 1..9 with T(k) <= n: nine independent
 * compares against constants, written out so no loop is left. */
static int srg_moves_made(int64_t n)
{
    return (n >= SRG_T(1)) + (n >= SRG_T(2)) + (n >= SRG_T(3)) + (n >= SRG_T(4)) + (n >= SRG_T(5)) +
           (n >= SRG_T(6)) + (n >= SRG_T(7)) + (n >= SRG_T(8)) + (n >= SRG_T(9));
}

static int srg_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    int64_t n;
    int rc = srg_get(pb, &n);
    (void)scratch;
    if (rc != CAIRN_OK) {
        srg_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE
                    ? "input.n: over 54, where the 11th move would remove 0 stones and the "
                      "rules are undefined"
                    : "input.n: bad problem");
        return rc;
    }
    if (!res) {
        srg_msg(msg, msg_len, "stone-removal-game: no result");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!res->moves || res->moves_cap < SRG_FIRST)) {
        srg_msg(msg, msg_len, "stone-removal-game: moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int m = srg_moves_made(n);
    if (pb->want_moves) {
        for (int k = 0; k < m; k++)
            res->moves[k] = SRG_FIRST - k;
        res->n_moves = (size_t)m;
    }
    res->answer = m % 2;       /* Alice made the last successful move */
    res->alice = res->bob = 0; /* a win/lose game: no totals */
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2) ------------------------------------------------- */

/* The game has no choices: at most one legal move anywhere, and every
 * line that is legal is optimal.  Values are the winner, which the whole
 * forced line decides from the start. */
static size_t srg_max_legal_moves(const struct cairn_problem *pb)
{
    (void)pb;
    return 1;
}

static size_t srg_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    (void)pb;
    (void)n_line;
    return 0;
}

static int srg_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    int64_t n;
    int rc = srg_get(pb, &n);
    (void)scratch;
    if (rc != CAIRN_OK || !a || (a->n_line && !a->line) || (a->moves && a->moves_cap < 1)) {
        srg_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.n: over the extended maximum"
                                        : "stone-removal-game: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    int64_t winner = srg_moves_made(n) % 2 ? CAIRN_WINNER_ALICE : CAIRN_WINNER_BOB;
    int64_t left = n, need = SRG_FIRST;
    for (size_t t = 0; t < a->n_line; t++) {
        const char *who = t % 2 == 0 ? "Alice" : "Bob";
        if (left < need || need == 0) {
            a->bad = t;
            snprintf(msg, msg_len, "the game is over: %s cannot remove %lld stones from %lld", who,
                     (long long)need, (long long)left);
            return CAIRN_E_ILLEGAL;
        }
        if (a->line[t] != need) {
            a->bad = t;
            snprintf(msg, msg_len, "%s must remove exactly %lld stones here", who, (long long)need);
            return CAIRN_E_ILLEGAL;
        }
        left -= need;
        need--;
    }
    a->ply = a->n_line;
    a->mover = a->n_line % 2 == 0 ? CAIRN_WINNER_ALICE : CAIRN_WINNER_BOB;
    a->best_value = winner;
    if (a->moves && left >= need && need > 0) {
        a->moves[0] = (struct cairn_move_value){ .move = (int32_t)need, .value = winner };
        a->n_moves = 1;
    }
    return CAIRN_OK;
}

static const struct cairn_plugin srg_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-removal-game",
    .aliases = srg_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 3360: remove 10, then one fewer than the opponent each turn; true if "
               "Alice wins",
    .inputs = srg_inputs,
    .n_inputs = sizeof srg_inputs / sizeof srg_inputs[0],
    .answer_kind = CAIRN_ANSWER_BOOL,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = NULL,
    .scratch_bytes = srg_scratch_bytes,
    .max_moves = srg_max_moves,
    .solve = srg_solve,
    .equal_length = 0,
    .totals = 0,
    .value_kind = CAIRN_VALUE_WINNER,
    .max_legal_moves = srg_max_legal_moves,
    .analysis_scratch_bytes = srg_analysis_bytes,
    .analyze = srg_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &srg_plugin;
}
