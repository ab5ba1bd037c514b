/*
 * stone-game-ix - LeetCode 2029.
 *
 * Alice and Bob alternately remove any stone, Alice first.  The player whose
 * removal makes the sum of all removed stones divisible by 3 loses; if the
 * stones run out without that happening, Bob wins (whoever would move next).
 * The answer is whether Alice wins.
 *
 * Only residues mod 3 matter: c0, c1, c2 stones of each.  Let s be the sum
 * of the removed stones mod 3.  From s = 1 the safe moves are a 1 (s becomes
 * 2) or a 0; from s = 2 a 2 (s becomes 1) or a 0; the other non-zero
 * residue loses at once.  Alice's first stone must be non-zero (a 0 makes
 * the sum 0 mod 3).  So once she has chosen its residue r, the non-zero
 * stones can only come in the order r, r, -r, r, -r, ... and the zeros are
 * turn passes that either player may spend at any time.  Nobody gains by
 * losing early, so every zero is spent before someone is stuck with only
 * the wrong residue, and the game has a fixed length once r is chosen.
 * With a = c_r - 1 stones of residue r left after the first move, b of the
 * other and z = c0 zeros, the forced run of non-zero stones is
 *
 *     m = 2a       when a <= b  (then b - a wrong stones are left over),
 *     m = 2b + 1   when a >  b  (then a - b - 1 are left over),
 *
 * and if something is left over, the removal after 1 + m + z safe ones
 * loses: move m + z + 2, Bob's when m + z is even.  With nothing left over
 * the stones run out and Bob wins.  Working that out for r = 1 and r = 2:
 *
 *     c0 even: Alice wins iff c1 >= 1 and c2 >= 1 (r = the rarer residue);
 *     c0 odd:  Alice wins iff |c1 - c2| >= 3 (r = the commoner residue).
 *
 * Kernel: one pass counting residues, O(n) time, O(1) memory; two stones
 * per SSE2 operation when the values fit in 32 bits (see ix_sum_sse2).
 *
 * Moves (CAIRN_MOVES_INDEX).  Alice's first stone has the residue above
 * when she can win.  When she cannot, she picks the residue (1 or 2) whose
 * line lasts longer, 1 on a tie, and a multiple of 3 only when that is all
 * there is.  After that every player, winner or loser, removes a stone of
 * the safe non-zero residue when there is one, else a multiple of 3, else
 * the losing stone; the line ends at the losing removal or when the stones
 * run out.  Within a residue the stones go in input order (first index
 * first).  Each stone's place in that line follows from the counts, so
 * one more pass writes it (see ix_line): O(n), no scratch.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define IX_OFFICIAL_MAX_LEN   100000
#define IX_OFFICIAL_MAX_VALUE 10000
/* Only v mod 3 is ever computed, so any 64-bit value is fine.  The length
 * is the host's limit more than the kernel's (10^7 stones take 20-40 ms,
 * 60-90 ms with moves, and are an 80 MB array the host parsed from JSON). */
#define IX_EXTENDED_MAX_LEN 10000000

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const ix_aliases[] = { "2029", NULL };

static const struct cairn_input_decl ix_inputs[] = {
    {
        .name = "stones",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 1,
                      .max_len = IX_OFFICIAL_MAX_LEN,
                      .min_value = 1,
                      .max_value = IX_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = IX_EXTENDED_MAX_LEN,
                      .min_value = INT64_MIN,
                      .max_value = INT64_MAX },
    },
};

static void ix_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int ix_get(const struct cairn_problem *pb, const int64_t **v, size_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *v = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || !*v)
        return CAIRN_E_INTERNAL;
    if (*n > IX_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static size_t ix_scratch_bytes(const struct cairn_problem *pb)
{
    (void)pb;
    return 0;
}

/* One stone per move. */
static size_t ix_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return 0;
    return pb->inputs[0].n;
}

/* v mod 3 in 0..2, for any int64 (C's % truncates towards zero). */
static inline int ix_res(int64_t v)
{
    int r = (int)(v % 3);
    return r + (r < 0 ? 3 : 0);
}

/*
 * The residue count.  Residue r in 0..2 has bit 1 set iff r == 2, so
 * c2 = sum (r >> 1) and c1 = sum r - 2 c2: two sums, no compare.
 */
struct ix_sums {
    uint64_t r;    /* sum of the residues */
    uint64_t twos; /* sum of residue >> 1: the 2s */
};

/* Exact for any int64 (negative values included). */
static void ix_sum_scalar(const int64_t *v, size_t n, struct ix_sums *s)
{
    uint64_t r0 = 0, r1 = 0, t0 = 0, t1 = 0;
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        unsigned a = (unsigned)ix_res(v[i]), b = (unsigned)ix_res(v[i + 1]);
        r0 += a;
        t0 += a >> 1;
        r1 += b;
        t1 += b >> 1;
    }
    if (i < n) {
        unsigned a = (unsigned)ix_res(v[i]);
        r0 += a;
        t0 += a >> 1;
    }
    s->r += r0 + r1;
    s->twos += t0 + t1;
}

#if defined(__SSE2__)
/*
 * Two stones per SSE2 op, for values in [0, 2^32) (every official stone):
 * q = (x * 0xAAAAAAAB) >> 33 is x / 3 for any 32-bit x, and pmuludq
 * multiplies exactly the low 32 bits of each 64-bit lane.  Returns 0, or 1
 * (s untouched) when some value is negative or >= 2^32: the caller then
 * counts those stones with the exact scalar code.
 */
static int ix_sum_sse2(const int64_t *v, size_t n, struct ix_sums *s)
{
    const __m128i magic = _mm_set1_epi64x(INT64_C(0xAAAAAAAB));
    __m128i acc_r = _mm_setzero_si128(), acc_2 = _mm_setzero_si128();
    __m128i any = _mm_setzero_si128(); /* OR of every value: its high half must be 0 */
    size_t i = 0;
    for (; i + 2 <= n; i += 2) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(v + i));
        __m128i q = _mm_srli_epi64(_mm_mul_epu32(x, magic), 33);
        __m128i r = _mm_sub_epi64(x, _mm_add_epi64(q, _mm_add_epi64(q, q)));
        any = _mm_or_si128(any, x);
        acc_r = _mm_add_epi64(acc_r, r);
        acc_2 = _mm_add_epi64(acc_2, _mm_srli_epi64(r, 1));
    }
    uint64_t lanes_r[2], lanes_2[2], lanes_any[2];
    _mm_storeu_si128((__m128i *)(void *)lanes_r, acc_r);
    _mm_storeu_si128((__m128i *)(void *)lanes_2, acc_2);
    _mm_storeu_si128((__m128i *)(void *)lanes_any, any);
    uint64_t hi = (lanes_any[0] | lanes_any[1]) >> 32;
    if (i < n)
        hi |= (uint64_t)v[i] >> 32;
    if (hi != 0)
        return 1;
    s->r += lanes_r[0] + lanes_r[1];
    s->twos += lanes_2[0] + lanes_2[1];
    if (i < n) {
        unsigned a = (unsigned)((uint64_t)v[i] % 3);
        s->r += a;
        s->twos += a >> 1;
    }
    return 0;
}
#endif

/* Blocks of this many stones take the SSE2 path or, if one of their
 * values does not fit it, the scalar one. */
#define IX_BLOCK 4096

/* c[0..2]: stones per residue. */
static void ix_count(const int64_t *v, size_t n, size_t c[3])
{
    struct ix_sums s = { 0, 0 };
    for (size_t i = 0; i < n; i += IX_BLOCK) {
        size_t len = n - i < IX_BLOCK ? n - i : IX_BLOCK;
#if defined(__SSE2__)
        if (ix_sum_sse2(v + i, len, &s) == 0)
            continue;
#endif
        ix_sum_scalar(v + i, len, &s);
    }
    c[2] = (size_t)s.twos;
    c[1] = (size_t)(s.r - 2 * s.twos);
    c[0] = n - c[1] - c[2];
}

static int ix_alice_wins(const size_t c[3])
{
    if (c[0] % 2 == 0)
        return c[1] >= 1 && c[2] >= 1;
    return c[1] >= c[2] + 3 || c[2] >= c[1] + 3;
}

/* The number of removals in the line that starts with a stone of residue
 * r (1 or 2, c[r] >= 1), the losing removal included. */
static size_t ix_line_length(const size_t c[3], int r)
{
    size_t a = c[r] - 1, b = c[3 - r], z = c[0];
    size_t m = a <= b ? 2 * a : 2 * b + 1;
    size_t left = a <= b ? b - a : a - b - 1;
    return left > 0 ? m + z + 2 : 1 + m + z;
}

/* The residue of Alice's first stone (see the top of the file). */
static int ix_first_residue(const size_t c[3], int alice_wins)
{
    if (alice_wins) {
        if (c[0] % 2 == 0)
            return c[1] <= c[2] ? 1 : 2;
        return c[1] > c[2] ? 1 : 2;
    }
    if (c[1] == 0 && c[2] == 0)
        return 0;
    if (c[1] == 0)
        return 2;
    if (c[2] == 0)
        return 1;
    return ix_line_length(c, 1) >= ix_line_length(c, 2) ? 1 : 2;
}

/*
 * The line of play, written in one pass over the stones.  With Alice's
 * first residue A = r (1 or 2), B = 3 - r and Z = 0, and each residue's
 * stones taken in input order (the k-th stone of a residue is "its k"):
 *
 *   slot 0             A's 0         (Alice's first stone)
 *   slots 1 .. m       A's k (k >= 1) at 2k - 1, B's k at 2k + 2: the
 *                      forced run A, B, A, B, ... (the sum needs r, then
 *                      -r, then r ...)
 *   slots m+1 .. m+z   Z's k at m + 1 + k: the multiples of 3, once the
 *                      run is stuck
 *   slot m+z+1         the first unused stone of the residue left over,
 *                      if any: the losing removal
 *
 * m, z and what is left over come from the counts (see the top of the
 * file).  Every stone lands in its slot, or in a spare slot past the line
 * when it is not played, so the pass has no data-dependent branch: with
 * random residues a branch per stone would be mispredicted every other
 * stone.  Returns the number of moves.
 */
struct ix_stream {
    int64_t off, mul; /* its k-th stone (k < used) goes to max(off + mul k, 0) */
    size_t used;      /* how many of its stones the line plays in order */
    size_t extra;     /* where its stone number `used` goes (the losing one, or spare) */
};

static size_t ix_line(const int64_t *v, size_t n, const size_t c[3], int r, int32_t *moves)
{
    if (r == 0) { /* only multiples of 3: Alice's first removal loses */
        moves[0] = 0;
        return 1;
    }
    size_t a = c[r] - 1, b = c[3 - r], z = c[0];
    size_t m = a <= b ? 2 * a : 2 * b + 1;
    size_t left = a <= b ? b - a : a - b - 1;
    size_t len = 1 + m + z + (left > 0);
    size_t spare = len < n ? len : 0; /* unplayed stones exist only if len < n */
    struct ix_stream st[3];

    st[0] = (struct ix_stream){ .off = (int64_t)(m + 1), .mul = 1, .used = z, .extra = spare };
    st[r] = (struct ix_stream){ .off = -1,
                                .mul = 2,
                                .used = a <= b ? a + 1 : b + 2,
                                .extra = a > b && left > 0 ? m + z + 1 : spare };
    st[3 - r] = (struct ix_stream){
        .off = 2, .mul = 2, .used = a <= b ? a : b, .extra = a <= b && left > 0 ? m + z + 1 : spare
    };

    size_t k[3] = { 0, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        int q = ix_res(v[i]);
        const struct ix_stream *sq = &st[q];
        size_t kq = k[q]++;
        int64_t at = sq->off + sq->mul * (int64_t)kq;
        size_t slot = at < 0 ? 0 : (size_t)at;
        slot = kq < sq->used ? slot : kq == sq->used ? sq->extra : spare;
        /* INDEX moves are int32_t: n <= 1e7 keeps every index in range. */
        moves[slot] = (int32_t)i;
    }
    return len;
}

static int ix_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                    char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = ix_get(pb, &v, &n);
    (void)scratch;
    if (rc != CAIRN_OK) {
        ix_msg(msg, msg_len,
               rc == CAIRN_E_TOO_LARGE ? "input.stones: longer than the extended maximum"
                                       : "input.stones: bad problem");
        return rc;
    }
    if (!res) {
        ix_msg(msg, msg_len, "stone-game-ix: no result");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!res->moves || res->moves_cap < n)) {
        ix_msg(msg, msg_len, "stone-game-ix: moves buffer too small");
        return CAIRN_E_INTERNAL;
    }

    size_t c[3];
    ix_count(v, n, c);
    int wins = ix_alice_wins(c);
    if (pb->want_moves)
        res->n_moves = ix_line(v, n, c, ix_first_residue(c, wins), res->moves);
    res->answer = wins;
    res->alice = res->bob = 0; /* a win/lose game: no totals */
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2) ------------------------------------------------- */

/*
 * Values are the winner.  After the first removal the sum s (mod 3) of the
 * removed stones is never 0 while the game goes on, and the argument above
 * holds from any such position: the safe removals left are the forced run
 * of non-zero stones (s = 1 needs a 1, then a 2, ...; s = 2 the other way)
 * plus every 0, in any order, so who gets stuck is fixed by their count.
 * A move's value is then O(1) from the counts and its residue, one
 * removed-stone byte per stone is all the scratch, and every stone of one
 * residue is worth the same.
 */
static size_t ix_max_legal_moves(const struct cairn_problem *pb)
{
    return ix_max_moves(pb); /* any stone left */
}

static size_t ix_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    (void)n_line;
    return ix_max_moves(pb); /* one byte a stone: removed or not */
}

/* The winner from a position with s != 0, stones left (c[0..2]) and
 * mover to move. */
static int64_t ix_winner(int s, const size_t c[3], int32_t mover)
{
    size_t need = (size_t)s, other = 3 - need; /* the safe residue first */
    size_t x = c[need], y = c[other];
    size_t run = x <= y ? 2 * x : 2 * y + 1;
    size_t safe = run + c[0];
    size_t rest = c[1] + c[2] - run;
    int32_t stuck = safe % 2 == 0 ? mover : 1 - mover;
    if (rest == 0)
        return CAIRN_WINNER_BOB; /* the stones run out */
    return 1 - stuck;
}

/* The winner once the mover, at sum s with c[] left, removes a stone of
 * residue r (c[r] >= 1). */
static int64_t ix_after(int s, const size_t c[3], int r, int32_t mover)
{
    size_t d[3] = { c[0], c[1], c[2] };
    int s2 = (s + r) % 3;
    d[r]--;
    if (s2 == 0)
        return 1 - mover; /* the mover made the sum divisible by 3 */
    if (d[0] + d[1] + d[2] == 0)
        return CAIRN_WINNER_BOB;
    return ix_winner(s2, d, 1 - mover);
}

/* The position's value: the mover wins if some residue left wins. */
static int64_t ix_value(int s, const size_t c[3], int32_t mover, int *best_r)
{
    *best_r = -1;
    for (int r = 0; r < 3; r++) {
        if (!c[r])
            continue;
        if (*best_r < 0)
            *best_r = r; /* some move, when none wins */
        if (ix_after(s, c, r, mover) == mover) {
            *best_r = r;
            return mover;
        }
    }
    return 1 - mover;
}

static int ix_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                      char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = ix_get(pb, &v, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < n)) {
        ix_msg(msg, msg_len,
               rc == CAIRN_E_TOO_LARGE ? "input.stones: too long"
                                       : "stone-game-ix: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    uint8_t *gone = scratch;
    size_t c[3] = { 0, 0, 0 };
    for (size_t i = 0; i < n; i++) {
        gone[i] = 0;
        c[ix_res(v[i])]++;
    }

    int s = 0, over = 0, best_r;
    int64_t winner = 0; /* once over */
    size_t found = 0;
    for (size_t t = 0; t < a->n_line; t++) {
        int32_t x = a->line[t], mover = (int32_t)(t % 2);
        if (over || x < 0 || (size_t)x >= n || gone[x]) {
            a->bad = t;
            if (over)
                snprintf(msg, msg_len, "the game is over: %s has won",
                         winner == CAIRN_WINNER_ALICE ? "Alice" : "Bob");
            else if (x < 0 || (size_t)x >= n)
                snprintf(msg, msg_len, "there is no stone %d: the stones are 0..%zu", (int)x,
                         n - 1);
            else
                snprintf(msg, msg_len, "stone %d is already removed", (int)x);
            return CAIRN_E_ILLEGAL;
        }
        int r = ix_res(v[x]);
        int64_t here = ix_value(s, c, mover, &best_r), after = ix_after(s, c, r, mover);
        if (!found && after != here) {
            size_t b = 0;
            while (gone[b] || ix_res(v[b]) != best_r)
                b++; /* c[best_r] >= 1 */
            found = 1;
            a->ply = t;
            a->mover = mover;
            a->best = (int32_t)b;
            a->best_value = here;
            a->value = after;
        }
        gone[x] = 1;
        c[r]--;
        s = (s + r) % 3;
        if (s == 0 || c[0] + c[1] + c[2] == 0) {
            over = 1;
            winner = after;
        }
    }
    int32_t mover = (int32_t)(a->n_line % 2);
    if (!found) {
        a->ply = a->n_line;
        a->mover = mover;
        a->best_value = over ? winner : ix_value(s, c, mover, &best_r);
    }
    if (a->moves && !over) {
        int64_t by[3];
        for (int r = 0; r < 3; r++)
            by[r] = c[r] ? ix_after(s, c, r, mover) : 0;
        for (size_t i = 0; i < n; i++)
            if (!gone[i])
                a->moves[a->n_moves++] =
                    (struct cairn_move_value){ .move = (int32_t)i, .value = by[ix_res(v[i])] };
    }
    return CAIRN_OK;
}

static const struct cairn_plugin ix_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game-ix",
    .aliases = ix_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 2029: remove any stone; whoever makes the removed sum divisible by 3 "
               "loses, Bob wins if the stones run out; true if Alice wins",
    .inputs = ix_inputs,
    .n_inputs = sizeof ix_inputs / sizeof ix_inputs[0],
    .answer_kind = CAIRN_ANSWER_BOOL,
    .moves_kind = CAIRN_MOVES_INDEX,
    .check = NULL,
    .scratch_bytes = ix_scratch_bytes,
    .max_moves = ix_max_moves,
    .solve = ix_solve,
    .equal_length = 0,
    .totals = 0,
    .value_kind = CAIRN_VALUE_WINNER,
    .max_legal_moves = ix_max_legal_moves,
    .analysis_scratch_bytes = ix_analysis_bytes,
    .analyze = ix_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &ix_plugin;
}
