/*
 * brute_family_b.c - see brute_family_b.h.
 */
#include "brute_family_b.h"

#include <stdlib.h>
#include <string.h>

/* Rows handed to the exhaustive searches stay short; this bounds their
 * stack copies. */
#define BRUTE_MAX_ROW 64

/* ---- stone-game-viii ----------------------------------------------- */

int64_t brute_sg8_minimax(const int64_t *a, size_t n)
{
    if (n <= 1 || n > BRUTE_MAX_ROW)
        return 0;
    int64_t best = INT64_MIN;
    int64_t merged = 0;
    for (size_t x = 1; x <= n; x++) {
        merged += a[x - 1];
        if (x < 2)
            continue; /* x > 1 */
        /* The row after the move: the merged stone, then a[x..n). */
        int64_t row[BRUTE_MAX_ROW];
        row[0] = merged;
        memcpy(row + 1, a + x, (n - x) * sizeof *row);
        int64_t v = merged - brute_sg8_minimax(row, n - x + 1);
        if (v > best)
            best = v;
    }
    return best;
}

int64_t brute_sg8_dp(const int64_t *a, size_t n, int64_t *f_out)
{
    if (n == 0)
        return 0;
    int64_t *p = malloc(n * sizeof *p);
    int64_t *f = malloc(n * sizeof *f);
    if (p == NULL || f == NULL) {
        free(p);
        free(f);
        return INT64_MIN;
    }
    p[0] = a[0];
    for (size_t i = 1; i < n; i++)
        p[i] = p[i - 1] + a[i];
    f[n - 1] = 0;
    for (size_t k = n - 1; k-- > 0;) {
        int64_t best = INT64_MIN;
        for (size_t j = k + 1; j < n; j++)
            if (p[j] - f[j] > best)
                best = p[j] - f[j];
        f[k] = best;
    }
    int64_t r = f[0];
    if (f_out != NULL)
        memcpy(f_out, f, n * sizeof *f);
    free(p);
    free(f);
    return r;
}

/* ---- stone-game-ix ------------------------------------------------- */

int brute_ix_residue(int64_t v)
{
    int64_t r = v % 3;
    return (int)(r < 0 ? r + 3 : r);
}

int brute_ix_minimax(const int64_t *a, size_t n, int64_t removed, int alice_to_move,
                     int empty_first)
{
    if (n == 0 || n > BRUTE_MAX_ROW)
        return 0; /* nothing to move: the stones ran out, Bob wins */
    /* The mover wins if any removal wins for them. */
    for (size_t i = 0; i < n; i++) {
        int64_t sum = removed + a[i];
        int alice_wins;
        if (empty_first && n == 1)
            alice_wins = 0; /* the misreading: out of stones first */
        else if (sum % 3 == 0)
            alice_wins = !alice_to_move; /* the remover loses */
        else if (n == 1)
            alice_wins = 0; /* stones ran out: Bob wins */
        else {
            int64_t rest[BRUTE_MAX_ROW];
            memcpy(rest, a, i * sizeof *rest);
            memcpy(rest + i, a + i + 1, (n - i - 1) * sizeof *rest);
            alice_wins = brute_ix_minimax(rest, n - 1, sum, !alice_to_move, empty_first);
        }
        if (alice_wins == alice_to_move)
            return alice_wins;
    }
    return !alice_to_move;
}

struct brute_ix_table {
    size_t d0, d1, d2;
    signed char *t; /* -1 unknown, else 0/1 = Alice wins */
};

static signed char *ix_slot(struct brute_ix_table *m, size_t c0, size_t c1, size_t c2, int s,
                            int alice)
{
    size_t i = (((c0 * m->d1 + c1) * m->d2 + c2) * 3 + (size_t)s) * 2 + (size_t)alice;
    return &m->t[i];
}

static int ix_dp(struct brute_ix_table *m, size_t c0, size_t c1, size_t c2, int s, int alice)
{
    size_t c[3] = { c0, c1, c2 };
    if (c0 + c1 + c2 == 0)
        return 0; /* nothing left to move: Bob wins */
    signed char *slot = ix_slot(m, c0, c1, c2, s, alice);
    if (*slot >= 0)
        return *slot;
    int result = !alice; /* the mover loses unless some removal wins */
    for (int r = 0; r < 3 && result != alice; r++) {
        if (c[r] == 0)
            continue;
        int ns = (s + r) % 3;
        int w;
        if (ns == 0)
            w = !alice; /* divisible by 3: the remover loses */
        else if (c0 + c1 + c2 == 1)
            w = 0; /* the last stone: Bob wins */
        else {
            c[r]--;
            w = ix_dp(m, c[0], c[1], c[2], ns, !alice);
            c[r]++;
        }
        if (w == alice)
            result = alice;
    }
    *slot = (signed char)result;
    return result;
}

struct brute_ix_table *brute_ix_table_new(size_t c0, size_t c1, size_t c2)
{
    struct brute_ix_table *m = malloc(sizeof *m);
    if (m == NULL)
        return NULL;
    m->d0 = c0 + 1;
    m->d1 = c1 + 1;
    m->d2 = c2 + 1;
    size_t cells = m->d0 * m->d1 * m->d2 * 3 * 2;
    m->t = malloc(cells);
    if (m->t == NULL) {
        free(m);
        return NULL;
    }
    memset(m->t, -1, cells);
    return m;
}

int brute_ix_table_get(struct brute_ix_table *t, size_t c0, size_t c1, size_t c2, int s,
                       int alice_to_move)
{
    if (c0 >= t->d0 || c1 >= t->d1 || c2 >= t->d2 || s < 0 || s > 2)
        return -1;
    return ix_dp(t, c0, c1, c2, s, alice_to_move != 0);
}

void brute_ix_table_free(struct brute_ix_table *t)
{
    if (t != NULL)
        free(t->t);
    free(t);
}

int brute_ix_dp(size_t c0, size_t c1, size_t c2, int s, int alice_to_move)
{
    struct brute_ix_table *t = brute_ix_table_new(c0, c1, c2);
    if (t == NULL)
        return -1;
    int r = brute_ix_table_get(t, c0, c1, c2, s, alice_to_move);
    brute_ix_table_free(t);
    return r;
}

/* ---- predict-the-winner -------------------------------------------- */

int64_t brute_ptw_minimax(const int64_t *a, size_t n)
{
    if (n == 0)
        return 0;
    int64_t left = a[0] - brute_ptw_minimax(a + 1, n - 1);
    int64_t right = a[n - 1] - brute_ptw_minimax(a, n - 1);
    return left > right ? left : right;
}

int64_t brute_ptw_dp(const int64_t *a, size_t n)
{
    if (n == 0)
        return 0;
    int64_t *t = malloc(n * n * sizeof *t); /* t[i * n + j]: a[i..j] */
    if (t == NULL)
        return INT64_MIN;
    for (size_t i = n; i-- > 0;) {
        t[i * n + i] = a[i];
        for (size_t j = i + 1; j < n; j++) {
            int64_t left = a[i] - t[(i + 1) * n + j];
            int64_t right = a[j] - t[i * n + j - 1];
            t[i * n + j] = left > right ? left : right;
        }
    }
    int64_t r = t[n - 1];
    free(t);
    return r;
}

/* ---- stone-removal-game -------------------------------------------- */

int brute_srg_play(int64_t n, int own_previous, int32_t *moves, size_t *n_moves)
{
    int64_t need[2] = { 10, 10 }; /* own_previous: each player's next removal */
    int64_t next = 10;            /* the real rule: one fewer than the last */
    int alice = 1;
    size_t k = 0;

    for (;;) {
        int64_t want = own_previous ? need[!alice] : next;
        if (want <= 0)
            return -1; /* a removal of 0 stones: the rules say nothing */
        if (n < want)
            break; /* the mover cannot remove it and loses */
        n -= want;
        if (k < 11)
            moves[k] = (int32_t)want;
        k++;
        need[!alice] = want - 1;
        next = want - 1;
        alice = !alice;
    }
    *n_moves = k;
    return !alice;
}
