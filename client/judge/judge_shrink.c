/*
 * judge_shrink.c - delta debugging for `cairn judge`: from one failing
 * input to a 1-minimal one.  Each round is one batch of tries, graded by
 * one run of the candidate (the caller's fn):
 *
 *   1. cut the row: drop chunks of half the values, then of a quarter,
 *      ... down to single values (one batch per chunk size, the coarse
 *      ones first, so a long row shrinks in few runs);
 *   2. move values toward 0: for every value, by all of it, then by
 *      halves of it, down to one step (toward 1 too, where 0 is illegal).
 *
 * The first batch holding a failure wins: the try with the fewest values
 * (then the biggest move) becomes the input, and the rounds start over.
 * It ends when neither holds one, and the last two batches held every
 * one-value removal and every one-step move: the input is 1-minimal.
 * Illegal tries never reach the candidate: fn grades them -1.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "judge_shrink.h"

int cairn_judge_input_copy(struct cairn_judge_input *dst, const struct cairn_judge_input *src)
{
    size_t bytes = src->n * src->k * sizeof(int64_t);

    *dst = *src;
    dst->v = malloc(bytes > 0 ? bytes : 1);
    if (dst->v == NULL)
        return -ENOMEM;
    if (bytes > 0)
        memcpy(dst->v, src->v, bytes);
    return 0;
}

void cairn_judge_input_free(struct cairn_judge_input *in)
{
    free(in->v);
    in->v = NULL;
}

struct tries {
    struct cairn_judge_input *t;
    int64_t *gain; /* how much each try moved: the biggest move wins */
    size_t *pos;   /* the value a move moved; SIZE_MAX for a removal */
    int *verdict;  /* the last batch's */
    size_t n, cap;
};

static int tries_add(struct tries *ts, const struct cairn_judge_input *x, int64_t gain,
                     struct cairn_judge_input **out)
{
    if (ts->n == ts->cap) {
        size_t cap = ts->cap ? ts->cap * 2 : 64;
        struct cairn_judge_input *t = realloc(ts->t, cap * sizeof(*t));
        int64_t *g;
        size_t *p;

        if (t == NULL)
            return -ENOMEM;
        ts->t = t;
        if ((g = realloc(ts->gain, cap * sizeof(*g))) == NULL)
            return -ENOMEM;
        ts->gain = g;
        if ((p = realloc(ts->pos, cap * sizeof(*p))) == NULL)
            return -ENOMEM;
        ts->pos = p;
        ts->cap = cap;
    }
    if (cairn_judge_input_copy(&ts->t[ts->n], x) != 0)
        return -ENOMEM;
    ts->gain[ts->n] = gain;
    ts->pos[ts->n] = SIZE_MAX;
    *out = &ts->t[ts->n++];
    return 0;
}

static void tries_clear(struct tries *ts)
{
    size_t i;

    for (i = 0; i < ts->n; i++)
        cairn_judge_input_free(&ts->t[i]);
    ts->n = 0;
}

/* x without values [at, at + len) of every array. */
static int add_removal(struct tries *ts, const struct cairn_judge_input *x, size_t at, size_t len)
{
    struct cairn_judge_input *t;
    size_t a, m = x->n - len;
    int rc = tries_add(ts, x, (int64_t)len, &t);

    if (rc != 0)
        return rc;
    for (a = 0; a < x->k; a++) {
        memcpy(t->v + a * m, x->v + a * x->n, at * sizeof(int64_t));
        memcpy(t->v + a * m + at, x->v + a * x->n + at + len, (x->n - at - len) * sizeof(int64_t));
    }
    t->n = m;
    return 0;
}

/* Every value moved toward 0 by its whole size, half of it, ... one. */
static int add_moves(struct tries *ts, const struct cairn_judge_input *x)
{
    size_t i;

    for (i = 0; i < x->n * x->k; i++) {
        int64_t v = x->v[i];
        /* |v| without overflow at INT64_MIN: moves of up to INT64_MAX. */
        uint64_t mag = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v, d;

        if (mag > (uint64_t)INT64_MAX)
            mag = (uint64_t)INT64_MAX;
        for (d = mag; d >= 1; d /= 2) {
            struct cairn_judge_input *t;
            int rc = tries_add(ts, x, (int64_t)d, &t);

            if (rc != 0)
                return rc;
            t->v[i] = v < 0 ? v + (int64_t)d : v - (int64_t)d;
            ts->pos[ts->n - 1] = i;
        }
    }
    return 0;
}

/* Runs the batch: the index of the best failing try, or -1 for none (or
 * when fn failed: its error in *err). */
static long best_failure(struct tries *ts, cairn_judge_try_fn fn, void *ctx, size_t *runs, int *err)
{
    int *verdict;
    long best = -1;
    size_t i;

    *err = 0;
    free(ts->verdict);
    ts->verdict = NULL;
    if (ts->n == 0)
        return -1;
    if ((verdict = calloc(ts->n, sizeof(*verdict))) == NULL) {
        *err = -ENOMEM;
        return -1;
    }
    (*runs)++;
    *err = fn(ctx, ts->t, ts->n, verdict);
    for (i = 0; *err == 0 && i < ts->n; i++)
        if (verdict[i] == 1 && (best < 0 || ts->t[i].n < ts->t[best].n ||
                                (ts->t[i].n == ts->t[best].n && ts->gain[i] > ts->gain[best])))
            best = (long)i;
    ts->verdict = verdict;
    return best;
}

/*
 * x with, for every value some failing try of the last batch moved, its
 * biggest failing move: 1 when that is two moves or more (worth a run of
 * its own: a row of big values then shrinks in a few rounds, not one
 * value a round), 0 when not, or -ENOMEM.
 */
static int combine_moves(const struct tries *ts, const struct cairn_judge_input *x,
                         struct cairn_judge_input *out)
{
    size_t i, moved = 0;
    int64_t *gain;

    if (ts->verdict == NULL || (gain = calloc(x->n * x->k + 1, sizeof(*gain))) == NULL)
        return ts->verdict == NULL ? 0 : -ENOMEM;
    if (cairn_judge_input_copy(out, x) != 0) {
        free(gain);
        return -ENOMEM;
    }
    for (i = 0; i < ts->n; i++) {
        size_t at = ts->pos[i];

        if (at == SIZE_MAX || ts->verdict[i] != 1 || ts->gain[i] <= gain[at])
            continue;
        moved += gain[at] == 0;
        gain[at] = ts->gain[i];
        out->v[at] = ts->t[i].v[at];
    }
    free(gain);
    if (moved < 2)
        cairn_judge_input_free(out);
    return moved >= 2;
}

/* Every removal of a chunk of every size from half the values down to one. */
static int add_all_removals(struct tries *ts, const struct cairn_judge_input *x)
{
    size_t chunk, at;
    int rc = 0;

    if (x->scalar || x->n == 0)
        return 0;
    for (chunk = x->n > 1 ? (x->n + 1) / 2 : 1;; chunk = (chunk + 1) / 2) {
        for (at = 0; rc == 0 && at < x->n; at += chunk)
            rc = add_removal(ts, x, at, at + chunk <= x->n ? chunk : x->n - at);
        if (rc != 0 || chunk == 1)
            return rc;
    }
}

static void take(struct cairn_judge_input *x, struct tries *ts, long best)
{
    cairn_judge_input_free(x);
    *x = ts->t[best];
    ts->t[best] = (struct cairn_judge_input){ 0 };
}

int cairn_judge_shrink(struct cairn_judge_input *x, cairn_judge_try_fn fn, void *ctx, size_t *runs)
{
    struct cairn_judge_input all;
    struct tries ts = { 0 };
    long best = -1;
    int rc = 0;

    /* The row first, a chunk size per batch: a long row is cut to a short
     * one in few runs, before any try holds many values. */
    while (rc == 0 && !x->scalar && x->n > 0) {
        size_t chunk = x->n > 1 ? (x->n + 1) / 2 : 1, at;

        for (;;) {
            tries_clear(&ts);
            for (at = 0; rc == 0 && at < x->n; at += chunk)
                rc = add_removal(&ts, x, at, at + chunk <= x->n ? chunk : x->n - at);
            if (rc != 0 || (best = best_failure(&ts, fn, ctx, runs, &rc)) >= 0 || rc != 0 ||
                chunk == 1)
                break;
            chunk = (chunk + 1) / 2;
        }
        if (rc != 0 || best < 0)
            break;
        take(x, &ts, best);
    }
    /* Then every removal and every move in one batch a round: a move can
     * make a removal fail again, and one run tries them all. */
    while (rc == 0) {
        tries_clear(&ts);
        if ((rc = add_all_removals(&ts, x)) != 0 || (rc = add_moves(&ts, x)) != 0)
            break;
        if ((best = best_failure(&ts, fn, ctx, runs, &rc)) < 0 || rc != 0)
            break;
        if (ts.t[best].n == x->n && (rc = combine_moves(&ts, x, &all)) == 1) {
            struct tries one = { 0 };
            struct cairn_judge_input *t;

            rc = tries_add(&one, &all, 0, &t);
            cairn_judge_input_free(&all);
            if (rc == 0 && best_failure(&one, fn, ctx, runs, &rc) == 0 && rc == 0) {
                take(x, &one, 0);
                best = -1;
            }
            tries_clear(&one);
            free(one.t);
            free(one.gain);
            free(one.pos);
            free(one.verdict);
        }
        if (rc < 0)
            break;
        rc = 0;
        if (best >= 0)
            take(x, &ts, best);
    }
    tries_clear(&ts);
    free(ts.t);
    free(ts.gain);
    free(ts.pos);
    free(ts.verdict);
    return rc;
}
