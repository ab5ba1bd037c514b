/*
 * brute_analysis.c - the eleven games as rules, and exhaustive minimax over
 * them (see brute_analysis.h).  Nothing clever on purpose: only
 * stone-game-iv memoises (a pile of 60 has too many lines to walk), and
 * that memo is the same recursion.
 */
#include "brute_analysis.h"

#include <string.h>

static const char *const names[BG_COUNT] = {
    "stone-game",    "stone-game-ii",      "stone-game-iii",     "stone-game-iv",
    "stone-game-v",  "stone-game-vi",      "stone-game-vii",     "stone-game-viii",
    "stone-game-ix", "predict-the-winner", "stone-removal-game",
};

const char *brute_game_name(enum brute_game g)
{
    return names[g];
}

enum brute_value brute_value_kind(enum brute_game g)
{
    switch (g) {
    case BG_SG4:
    case BG_SG9:
    case BG_SRG: return BV_WINNER;
    case BG_SG5: return BV_ALICE;
    default: return BV_MARGIN;
    }
}

void brute_start(struct brute_pos *p, enum brute_game g, const int64_t *v, const int64_t *w,
                 size_t n)
{
    memset(p, 0, sizeof(*p));
    p->g = g;
    p->v = v;
    p->w = w;
    p->n = n;
    p->hi = n;
    p->m = g == BG_SG2 ? 1 : (g == BG_SG4 || g == BG_SRG) ? (int64_t)n : 0;
    p->need = 10;
}

int brute_mover(const struct brute_pos *p)
{
    return p->g == BG_SG5 ? 0 : (int)(p->ply % 2);
}

static int64_t sum(const int64_t *v, size_t lo, size_t hi)
{
    int64_t s = 0;
    for (size_t i = lo; i < hi; i++)
        s += v[i];
    return s;
}

static int res3(int64_t v)
{
    int r = (int)(v % 3);
    return r < 0 ? r + 3 : r;
}

size_t brute_moves(const struct brute_pos *p, int32_t *out)
{
    size_t k = 0;

    switch (p->g) {
    case BG_SG1:
    case BG_SG7:
    case BG_PTW:
        if (p->hi > p->lo) {
            out[k++] = 0;
            out[k++] = 1;
        }
        break;
    case BG_SG2:
        for (int64_t x = 1; x <= 2 * p->m && p->lo + (size_t)x <= p->n; x++)
            out[k++] = (int32_t)x;
        break;
    case BG_SG3:
        for (size_t x = 1; x <= 3 && p->lo + x <= p->n; x++)
            out[k++] = (int32_t)x;
        break;
    case BG_SG4:
        for (int64_t x = 1; x * x <= p->m; x++)
            out[k++] = (int32_t)(x * x);
        break;
    case BG_SG5:
        for (size_t c = p->lo + 1; c < p->hi; c++) {
            int64_t l = sum(p->v, p->lo, c), r = sum(p->v, c, p->hi);
            if (l <= r)
                out[k++] = (int32_t)(c << 1); /* keep left */
            if (l >= r)
                out[k++] = (int32_t)((c << 1) | 1);
        }
        break;
    case BG_SG6:
        for (size_t i = 0; i < p->n; i++)
            if (!(p->taken >> i & 1))
                out[k++] = (int32_t)i;
        break;
    case BG_SG8:
        for (size_t x = 2; (size_t)p->m + x <= p->n; x++)
            out[k++] = (int32_t)x;
        break;
    case BG_SG9:
        if (!p->over)
            for (size_t i = 0; i < p->n; i++)
                if (!(p->taken >> i & 1))
                    out[k++] = (int32_t)i;
        break;
    case BG_SRG:
        if (p->need >= 1 && p->m >= p->need)
            out[k++] = (int32_t)p->need;
        break;
    case BG_COUNT: break;
    }
    return k;
}

static void score(struct brute_pos *p, int64_t pts)
{
    if (brute_mover(p) == 0)
        p->alice += pts;
    else
        p->bob += pts;
}

int brute_play(struct brute_pos *p, int32_t m)
{
    int32_t legal[BRUTE_MAX_MOVES];
    size_t k = brute_moves(p, legal), i;

    for (i = 0; i < k && legal[i] != m; i++)
        ;
    if (i == k)
        return -1;
    switch (p->g) {
    case BG_SG1:
    case BG_PTW: score(p, m ? p->v[--p->hi] : p->v[p->lo++]); break;
    case BG_SG7:
        if (m)
            p->hi--;
        else
            p->lo++;
        score(p, sum(p->v, p->lo, p->hi));
        break;
    case BG_SG2:
        score(p, sum(p->v, p->lo, p->lo + (size_t)m));
        p->lo += (size_t)m;
        if (m > p->m)
            p->m = m;
        break;
    case BG_SG3:
        score(p, sum(p->v, p->lo, p->lo + (size_t)m));
        p->lo += (size_t)m;
        break;
    case BG_SG4: p->m -= m; break;
    case BG_SG5: {
        size_t c = (size_t)m >> 1;
        if (m & 1)
            p->lo = c;
        else
            p->hi = c;
        p->alice += sum(p->v, p->lo, p->hi); /* the part kept */
        break;
    }
    case BG_SG6:
        score(p, brute_mover(p) == 0 ? p->v[m] : -p->w[m]);
        p->taken |= UINT64_C(1) << m;
        break;
    case BG_SG8: {
        size_t to = (size_t)p->m + (size_t)m - 1;
        score(p, sum(p->v, 0, to + 1)); /* the merged stone: a prefix sum */
        p->m = (int64_t)to;
        break;
    }
    case BG_SG9:
        p->taken |= UINT64_C(1) << m;
        p->sum3 = (p->sum3 + res3(p->v[m])) % 3;
        if (p->sum3 == 0) {
            p->over = 1;
            p->winner = 1 - brute_mover(p);
        } else if (p->taken == (p->n == 64 ? ~UINT64_C(0) : (UINT64_C(1) << p->n) - 1)) {
            p->over = 1;
            p->winner = 1; /* the stones ran out: Bob */
        }
        break;
    case BG_SRG:
        p->m -= m;
        p->need--;
        break;
    case BG_COUNT: break;
    }
    p->ply++;
    return 0;
}

/* stone-game-vi keeps Bob's points as negative scores: the margin is
 * alice + bob there. */
static int64_t final_value(const struct brute_pos *p)
{
    switch (brute_value_kind(p->g)) {
    case BV_ALICE: return p->alice;
    case BV_WINNER:
        if (p->g == BG_SG9)
            return p->over ? p->winner : 1;
        return 1 - brute_mover(p); /* -iv, removal: who cannot move loses */
    case BV_MARGIN: break;
    }
    return p->g == BG_SG6 ? p->alice + p->bob : p->alice - p->bob;
}

int brute_better(enum brute_value k, int player, int64_t a, int64_t b)
{
    if (k == BV_WINNER)
        return a == player && b != player;
    if (k == BV_ALICE || player == 0)
        return a > b;
    return a < b;
}

static int8_t sg4_memo[4096];

int64_t brute_value(const struct brute_pos *p)
{
    int32_t moves[BRUTE_MAX_MOVES];
    size_t k;
    int64_t best = 0;
    int mover = brute_mover(p);

    if (p->g == BG_SG4 && p->m < 4096) {
        /* sg4_memo[m]: 0 unknown, 1 the mover wins, 2 loses. */
        if (!sg4_memo[p->m]) {
            int wins = 0;
            for (int64_t x = 1; x * x <= p->m && !wins; x++) {
                struct brute_pos q = *p;
                q.m -= x * x;
                q.ply = 0;
                wins = brute_value(&q) == 1; /* Bob (to move next) loses */
            }
            sg4_memo[p->m] = wins ? 1 : 2;
        }
        return sg4_memo[p->m] == 1 ? mover : 1 - mover;
    }
    k = brute_moves(p, moves);
    if (k == 0)
        return final_value(p);
    for (size_t i = 0; i < k; i++) {
        struct brute_pos q = *p;
        int64_t v;
        brute_play(&q, moves[i]);
        v = brute_value(&q);
        if (i == 0 || brute_better(brute_value_kind(p->g), mover, v, best))
            best = v;
    }
    return best;
}
