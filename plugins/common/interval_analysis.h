/*
 * interval_analysis.h - analyze() (ABI 1.2) for the games played on a row
 * from both ends: stone-game, predict-the-winner, stone-game-vii.
 *
 * A header of static functions, compiled into each of those plugins (each
 * .so stays one self-contained object that exports only its entry).
 *
 * A position is the interval [lo, hi) still on the row; a move takes the
 * left ("L", 0) or the right ("R", 1) end and scores a gain for the mover:
 * the stone taken (INTERVAL_GAIN_END) or the sum of the stones left
 * (INTERVAL_GAIN_REST, stone-game-vii).  d(lo, hi), the best "mover minus
 * other" from a position, is d = max(gL - d(lo+1, hi), gR - d(lo, hi-1)),
 * d(empty) = 0.  The value of a move is the final margin Alice - Bob:
 * the margin of the gains already taken plus, from the mover's side,
 * gain - d(child).
 *
 * Every position along a line of t moves has length n - t, and both its
 * children have length n - t - 1.  So one pass of the rolling row over the
 * lengths 0, 1, ..., n - 1 (what solve() does, O(n^2) time, O(n) memory)
 * can pick up, as the row of length L is complete, the two child values
 * of the one position of the line of length L + 1: the whole line is
 * graded for the price of one solve, not one per move.
 */
#ifndef CAIRN_INTERVAL_ANALYSIS_H
#define CAIRN_INTERVAL_ANALYSIS_H

#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

enum interval_gain {
    INTERVAL_GAIN_END = 0, /* the stone taken */
    INTERVAL_GAIN_REST = 1 /* the sum of the stones left after the move */
};

/* Scratch: the row (n + 1), prefix sums (n + 1), and per position of the
 * line (at most n + 1 of them) lo, the margin so far and two child values. */
static size_t interval_analysis_bytes(size_t n, size_t n_line)
{
    size_t k = (n_line < n ? n_line : n) + 1;
    return (2 * (n + 1) + 4 * k) * sizeof(int64_t);
}

/* Gain of taking side (0 = L, 1 = R) from [lo, hi), hi > lo; P the prefix
 * sums. */
static int64_t interval_gain(enum interval_gain kind, const int64_t *p, const int64_t *P, size_t lo,
                             size_t hi, int side)
{
    if (kind == INTERVAL_GAIN_END)
        return side ? p[hi - 1] : p[lo];
    return side ? P[hi - 1] - P[lo] : P[hi] - P[lo + 1];
}

static int interval_analyze(const int64_t *p, size_t n, enum interval_gain kind,
                            struct cairn_analysis *a, void *scratch, char *msg, size_t msg_len)
{
    int64_t *d = scratch, *P = d + (n + 1);
    size_t k = a->n_line, kk = (k < n ? k : n) + 1; /* positions kept: 0..min(k, n) */
    int64_t *lo = P + (n + 1), *acc = lo + kk, *cl = acc + kk, *cr = cl + kk;

    P[0] = 0;
    for (size_t i = 0; i < n; i++)
        P[i + 1] = P[i] + p[i];

    /* Replay: every move must be L or R, on a row not yet empty. */
    lo[0] = 0;
    acc[0] = 0;
    for (size_t t = 0; t < k; t++) {
        int32_t m = a->line[t];
        if (t >= n || (m != 0 && m != 1)) {
            a->bad = t;
            if (t >= n)
                snprintf(msg, msg_len, "the game is over: all %zu are taken", n);
            else
                snprintf(msg, msg_len, "a move is \"L\" or \"R\"");
            return CAIRN_E_ILLEGAL;
        }
        size_t l = (size_t)lo[t], h = l + (n - t);
        int64_t g = interval_gain(kind, p, P, l, h, m);
        if (t + 1 < kk) {
            lo[t + 1] = (int64_t)(l + (m == 0));
            acc[t + 1] = acc[t] + (t % 2 == 0 ? g : -g);
        }
    }

    /* The rolling row, lengths 0..n-1; row L gives the children of the
     * position at t = n - 1 - L. */
    for (size_t i = 0; i <= n; i++)
        d[i] = 0;
    for (size_t len = 0; len < n; len++) {
        /* The gain written out per kind: this loop is the whole cost. */
        if (len > 0 && kind == INTERVAL_GAIN_END)
            for (size_t i = 0; i + len <= n; i++) {
                int64_t x = p[i] - d[i + 1], y = p[i + len - 1] - d[i];
                d[i] = x >= y ? x : y;
            }
        else if (len > 0)
            for (size_t i = 0; i + len <= n; i++) {
                int64_t x = (P[i + len] - P[i + 1]) - d[i + 1];
                int64_t y = (P[i + len - 1] - P[i]) - d[i];
                d[i] = x >= y ? x : y;
            }
        size_t t = n - 1 - len;
        if (t < kk) {
            cl[t] = d[lo[t] + 1];
            cr[t] = d[lo[t]];
        }
    }

    /* The first move of the line whose value falls short, then the
     * position after the whole line. */
    for (size_t t = 0; t < kk; t++) {
        size_t l = (size_t)lo[t], h = l + (n - t);
        int64_t s = t % 2 == 0 ? 1 : -1;
        a->ply = t;
        a->mover = t % 2 == 0 ? CAIRN_WINNER_ALICE : CAIRN_WINNER_BOB;
        if (h == l) { /* game over: the margin is final */
            a->best_value = acc[t];
            break;
        }
        int64_t x = interval_gain(kind, p, P, l, h, 0) - cl[t];
        int64_t y = interval_gain(kind, p, P, l, h, 1) - cr[t];
        a->best = x >= y ? 0 : 1; /* ties take L, as moves[] does */
        a->best_value = acc[t] + s * (x >= y ? x : y);
        if (t == k) {
            if (a->moves) {
                a->moves[0] = (struct cairn_move_value){ .move = 0, .value = acc[t] + s * x };
                a->moves[1] = (struct cairn_move_value){ .move = 1, .value = acc[t] + s * y };
                a->n_moves = 2;
            }
            break;
        }
        int64_t played = a->line[t] ? y : x;
        if (played < (x >= y ? x : y)) {
            a->value = acc[t] + s * played;
            break;
        }
    }
    /* The listing is of the position after the whole line, also when the
     * grade stopped earlier. */
    if (a->moves && a->ply < k && k < n) {
        size_t l = (size_t)lo[k], h = l + (n - k);
        int64_t s = k % 2 == 0 ? 1 : -1;
        a->moves[0] = (struct cairn_move_value){
            .move = 0, .value = acc[k] + s * (interval_gain(kind, p, P, l, h, 0) - cl[k])
        };
        a->moves[1] = (struct cairn_move_value){
            .move = 1, .value = acc[k] + s * (interval_gain(kind, p, P, l, h, 1) - cr[k])
        };
        a->n_moves = 2;
    }
    return CAIRN_OK;
}

#endif /* CAIRN_INTERVAL_ANALYSIS_H */
