/*
 * stone-game-iv - LeetCode 1510.
 *
 * One pile of n stones.  On each turn the player to move removes a positive
 * perfect square number of stones (1, 4, 9, ...) no larger than the pile;
 * a player who cannot move (empty pile) loses.  Alice moves first.  The
 * answer is whether she wins.
 *
 * Kernel: a forward sieve over the losing positions.  Position 0 is losing;
 * every L + k^2 with L losing is winning; the first position not marked so
 * is the next losing one.  Losing positions are rare (2 781 of 0..10^5), so
 * this costs O(n + L sqrt n) marks instead of the O(n sqrt n) of the usual
 * "try every square" DP, and O(n) bits of memory.
 *
 * The sieve runs in blocks of SG4_BLOCK positions, one byte each, so the
 * marks land in cache.  A block first takes the marks of the losing
 * positions found in earlier blocks (their first square reaching the block
 * comes from a k that only decreases as L grows, so no square root per L),
 * then finds its own losing positions in order, each marking forward inside
 * the block.  The losing positions themselves are kept as a bitmap of n + 1
 * bits: the next blocks and the line of play read it.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>
#include <string.h>

#define SG4_OFFICIAL_MAX_N 100000
/* About 0.25-0.35 s and 1.25 MB + the block at the maximum: the marks,
 * not the arithmetic, set the limit (plugins/README.md). */
#define SG4_EXTENDED_MAX_N 10000000
/* Positions per block: 128 KB of bytes, inside a 2 MB L2 (2^15 to 2^20
 * measured; smaller blocks pay more for revisiting the earlier losing
 * positions, larger ones miss more). */
#define SG4_BLOCK ((uint64_t)1 << 17)

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg4_aliases[] = { "1510", NULL };

static const struct cairn_input_decl sg4_inputs[] = {
    {
        .name = "n",
        .kind = CAIRN_INPUT_INT,
        .official = { .min_len = 1, .max_len = 1, .min_value = 1, .max_value = SG4_OFFICIAL_MAX_N },
        /* n = 0 is a position of the game too: Alice cannot move and loses. */
        .extended = { .min_len = 1, .max_len = 1, .min_value = 0, .max_value = SG4_EXTENDED_MAX_N },
    },
};

static void sg4_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int sg4_get(const struct cairn_problem *pb, uint64_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs || pb->inputs[0].n != 1 || !pb->inputs[0].v)
        return CAIRN_E_INTERNAL;
    int64_t v = pb->inputs[0].v[0];
    if (v < 0)
        return CAIRN_E_INTERNAL; /* the declaration never lets one through */
    if (v > SG4_EXTENDED_MAX_N)
        return CAIRN_E_TOO_LARGE;
    *n = (uint64_t)v;
    return CAIRN_OK;
}

static uint64_t sg4_bitmap_words(uint64_t n)
{
    return n / 64 + 1; /* bits 0..n */
}

static size_t sg4_scratch_bytes(const struct cairn_problem *pb)
{
    uint64_t n;
    if (sg4_get(pb, &n) != CAIRN_OK)
        return 0; /* solve() refuses the problem before touching scratch */
    uint64_t block = n + 1 < SG4_BLOCK ? n + 1 : SG4_BLOCK;
    return (size_t)(sg4_bitmap_words(n) * sizeof(uint64_t) + block);
}

/* floor(sqrt(x)), integers only (no libm in a plugin). */
static uint64_t sg4_isqrt(uint64_t x)
{
    uint64_t r = 0, bit = UINT64_C(1) << 62;
    while (bit > x)
        bit >>= 2;
    while (bit) {
        if (x >= r + bit) {
            x -= r + bit;
            r = (r >> 1) + bit;
        } else {
            r >>= 1;
        }
        bit >>= 2;
    }
    return r;
}

/*
 * An upper bound on the length of the line of play solve() reports.  The
 * loser always removes the largest square it can, which leaves at most
 * 2 floor(sqrt(p)) of a pile p; every other move is the loser's, so every
 * two moves take a pile m to at most 2 floor(sqrt(m)).  Below 9 each move
 * removes at least one stone.
 */
static size_t sg4_max_moves(const struct cairn_problem *pb)
{
    uint64_t m;
    if (sg4_get(pb, &m) != CAIRN_OK)
        return 0;
    size_t count = 0;
    while (m > 8) {
        count += 2;
        m = 2 * sg4_isqrt(m);
    }
    return count + (size_t)m;
}

static int sg4_losing(const uint64_t *lose, uint64_t x)
{
    return (int)((lose[x / 64] >> (x % 64)) & 1u);
}

/* Marks blk[x] for x = x0, x0 + step, x0 + step + (step + 2), ... below len:
 * the squares k^2, (k+1)^2, ... seen from one losing position. */
static void sg4_mark(uint8_t *restrict blk, uint64_t x, uint64_t step, uint64_t len)
{
    while (x < len) {
        blk[x] = 1;
        x += step;
        step += 2;
    }
}

/* Fills lose[] (bits 0..n) with the losing positions. */
static void sg4_sieve(uint64_t n, uint64_t *restrict lose, uint8_t *restrict blk)
{
    memset(lose, 0, sg4_bitmap_words(n) * sizeof *lose);
    for (uint64_t s = 0; s <= n; s += SG4_BLOCK) {
        uint64_t len = n + 1 - s < SG4_BLOCK ? n + 1 - s : SG4_BLOCK;
        memset(blk, 0, len);

        /* The earlier losing positions L < s, in increasing order.  Their
         * first square reaching the block is k^2 with k = ceil(sqrt(s - L)),
         * which never grows as L does: start from L = 0 and step down. */
        if (s > 0) {
            uint64_t k = sg4_isqrt(s);
            if (k * k < s)
                k++;
            for (uint64_t w = 0; w < s / 64; w++) {
                uint64_t bits = lose[w];
                while (bits) {
                    uint64_t l = w * 64 + (uint64_t)__builtin_ctzll(bits);
                    bits &= bits - 1;
                    while (k > 1 && (k - 1) * (k - 1) >= s - l)
                        k--;
                    sg4_mark(blk, l + k * k - s, 2 * k + 1, len);
                }
            }
        }

        /* This block's own losing positions, in order.  SG4_BLOCK is a
         * multiple of 64, so s is word-aligned. */
        for (uint64_t i = 0; i < len; i++) {
            if (blk[i])
                continue;
            uint64_t x = s + i;
            lose[x / 64] |= UINT64_C(1) << (x % 64);
            sg4_mark(blk, i + 1, 3, len);
        }
    }
}

static int sg4_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    uint64_t n;
    int rc = sg4_get(pb, &n);
    if (rc != CAIRN_OK) {
        sg4_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.n: too large" : "input.n: bad problem");
        return rc;
    }
    if (!res || !scratch) {
        sg4_msg(msg, msg_len, "stone-game-iv: no result or scratch buffer");
        return CAIRN_E_INTERNAL;
    }
    size_t cap = 0;
    if (pb->want_moves) {
        cap = sg4_max_moves(pb);
        if (!res->moves || res->moves_cap < cap) {
            sg4_msg(msg, msg_len, "stone-game-iv: moves buffer too small");
            return CAIRN_E_INTERNAL;
        }
    }

    uint64_t *lose = scratch;
    uint8_t *blk = (uint8_t *)(lose + sg4_bitmap_words(n));
    sg4_sieve(n, lose, blk);

    if (pb->want_moves) {
        /* The winner removes the largest square that leaves a losing pile
         * (there is one: that is what winning means); the loser, who loses
         * whatever it does, removes the largest square it can, which keeps
         * the line short (sg4_max_moves). */
        uint64_t m = n;
        size_t k = 0;
        while (m > 0) {
            uint64_t r = sg4_isqrt(m);
            if (!sg4_losing(lose, m))
                while (r > 1 && !sg4_losing(lose, m - r * r))
                    r--;
            if (k >= cap) {
                sg4_msg(msg, msg_len, "stone-game-iv: line of play longer than max_moves");
                return CAIRN_E_INTERNAL;
            }
            res->moves[k++] = (int32_t)(r * r);
            m -= r * r;
        }
        res->n_moves = k;
    }

    res->answer = !sg4_losing(lose, n);
    res->alice = 0; /* a win/lose game: no totals (descriptor totals = 0) */
    res->bob = 0;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2) ------------------------------------------------- */

/*
 * A position is the pile m; the kernel's sieve (sg4_sieve) marks every
 * losing pile 0..n, which covers every position of every line, at solve()'s
 * cost and memory.  Values are the winner.  A winning player's best move is
 * the largest square leaving a losing pile, a losing player's the largest
 * square (as moves[] plays them).
 */
static size_t sg4_max_legal_moves(const struct cairn_problem *pb)
{
    uint64_t n;
    if (sg4_get(pb, &n) != CAIRN_OK)
        return 0;
    return (size_t)sg4_isqrt(n); /* the squares 1..isqrt(n)^2 */
}

static size_t sg4_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    (void)n_line;
    return sg4_scratch_bytes(pb); /* the sieve, as solve() */
}

/* The winner after the mover takes x from m, x a square <= m. */
static int64_t sg4_after(const uint64_t *lose, uint64_t m, uint64_t x, int32_t mover)
{
    return sg4_losing(lose, m - x) ? mover : 1 - mover;
}

static uint64_t sg4_best(const uint64_t *lose, uint64_t m)
{
    uint64_t k = sg4_isqrt(m);
    if (!sg4_losing(lose, m))
        while (!sg4_losing(lose, m - k * k))
            k--; /* a losing pile is reachable: m is winning */
    return k * k;
}

static int sg4_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    uint64_t n;
    int rc = sg4_get(pb, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < sg4_isqrt(n))) {
        sg4_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.n: over the extended maximum"
                                        : "stone-game-iv: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    uint64_t *lose = scratch;
    sg4_sieve(n, lose, (uint8_t *)(lose + sg4_bitmap_words(n)));

    uint64_t m = n;
    size_t found = 0;
    for (size_t t = 0; t < a->n_line; t++) {
        int32_t mover = (int32_t)(t % 2);
        uint64_t x = a->line[t] > 0 ? (uint64_t)a->line[t] : 0, r = sg4_isqrt(x);
        if (m == 0 || x == 0 || r * r != x || x > m) {
            a->bad = t;
            if (m == 0)
                snprintf(msg, msg_len, "the game is over: the pile is empty");
            else
                snprintf(msg, msg_len,
                         "a move removes a positive square (1, 4, 9, ...) of at "
                         "most the %llu stones left",
                         (unsigned long long)m);
            return CAIRN_E_ILLEGAL;
        }
        int64_t here = sg4_losing(lose, m) ? 1 - mover : mover;
        if (!found && sg4_after(lose, m, x, mover) != here) {
            found = 1;
            a->ply = t;
            a->mover = mover;
            a->best = (int32_t)sg4_best(lose, m);
            a->best_value = here;
            a->value = sg4_after(lose, m, x, mover);
        }
        m -= x;
    }
    int32_t mover = (int32_t)(a->n_line % 2);
    if (!found) {
        a->ply = a->n_line;
        a->mover = mover;
        a->best_value = sg4_losing(lose, m) ? 1 - mover : mover; /* m == 0: lost */
    }
    if (a->moves)
        for (uint64_t k = 1; k * k <= m; k++)
            a->moves[a->n_moves++] =
                (struct cairn_move_value){ .move = (int32_t)(k * k),
                                           .value = sg4_after(lose, m, k * k, mover) };
    return CAIRN_OK;
}

static const struct cairn_plugin sg4_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game-iv",
    .aliases = sg4_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 1510: remove a square number of stones; true if Alice wins",
    .inputs = sg4_inputs,
    .n_inputs = sizeof sg4_inputs / sizeof sg4_inputs[0],
    .answer_kind = CAIRN_ANSWER_BOOL,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = NULL,
    .scratch_bytes = sg4_scratch_bytes,
    .max_moves = sg4_max_moves,
    .solve = sg4_solve,
    .equal_length = 0,
    .totals = 0,
    .value_kind = CAIRN_VALUE_WINNER,
    .max_legal_moves = sg4_max_legal_moves,
    .analysis_scratch_bytes = sg4_analysis_bytes,
    .analyze = sg4_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg4_plugin;
}
