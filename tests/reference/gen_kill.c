/*
 * gen_kill.c - gen-kill: grade the greedy solutions of gen_greedy.h
 * against a corpus of `cairn gen` records on stdin.  Prints one line per
 * variant met, in the order met: "VARIANT RECORDS KILLED", KILLED being
 * the records whose greedy answer differs from "expected" (the greedy
 * solution is "killed" by them).  With --by-profile, one line per
 * VARIANT:PROFILE instead, the trap named at the end of a --traps
 * record's id.  Exit 0, or 1 for a line it cannot read.
 * Used by tests/e2e/test_gen.sh and bench/gen-kill-rates.
 */
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen_greedy.h"

#define MAX_VARIANTS 256

struct count {
    char *variant;
    unsigned long records, killed;
};

/* input.key as an array of integers (malloc'd, *n its length), or NULL. */
static int64_t *ints(json_t *input, const char *key, size_t *n)
{
    json_t *a = json_object_get(input, key), *x;
    int64_t *v;
    size_t i;

    if (!json_is_array(a))
        return NULL;
    *n = json_array_size(a);
    if ((v = malloc((*n ? *n : 1) * sizeof(*v))) == NULL)
        return NULL;
    json_array_foreach(a, i, x) v[i] = json_integer_value(x);
    return v;
}

/* The greedy answer for one record, as JSON, or NULL for an unknown game. */
static json_t *greedy(const char *variant, json_t *input)
{
    json_t *out = NULL;
    int64_t *v = NULL, *w = NULL, n1 = json_integer_value(json_object_get(input, "n"));
    size_t n = 0, m = 0;

    if (strcmp(variant, "stone-game") == 0 && (v = ints(input, "piles", &n)))
        out = json_boolean(greedy_larger_end(v, n) > 0);
    else if (strcmp(variant, "predict-the-winner") == 0 && (v = ints(input, "nums", &n)))
        out = json_boolean(greedy_larger_end(v, n) >= 0);
    else if (strcmp(variant, "stone-game-ii") == 0 && (v = ints(input, "piles", &n)))
        out = json_integer(greedy_sg2(v, n));
    else if (strcmp(variant, "stone-game-iii") == 0 && (v = ints(input, "stoneValue", &n))) {
        int64_t d = greedy_sg3(v, n);
        out = json_string(d > 0 ? "Alice" : d < 0 ? "Bob" : "Tie");
    } else if (strcmp(variant, "stone-game-iv") == 0)
        out = json_boolean(greedy_sg4(n1));
    else if (strcmp(variant, "stone-game-v") == 0 && (v = ints(input, "stoneValue", &n)))
        out = json_integer(greedy_sg5(v, n));
    else if (strcmp(variant, "stone-game-vi") == 0 && (v = ints(input, "aliceValues", &n)) &&
             (w = ints(input, "bobValues", &m)) && m == n)
        out = json_integer(greedy_sg6(v, w, n));
    else if (strcmp(variant, "stone-game-vii") == 0 && (v = ints(input, "stones", &n)))
        out = json_integer(greedy_sg7(v, n));
    else if (strcmp(variant, "stone-game-viii") == 0 && (v = ints(input, "stones", &n)))
        out = json_integer(greedy_sg8(v, n));
    else if (strcmp(variant, "stone-game-ix") == 0 && (v = ints(input, "stones", &n)))
        out = json_boolean(greedy_sg9(v, n));
    else if (strcmp(variant, "stone-removal-game") == 0)
        out = json_boolean(greedy_srg(n1));
    free(v);
    free(w);
    return out;
}

static struct count *count_of(struct count *c, size_t *n, const char *variant)
{
    size_t i;

    for (i = 0; i < *n; i++)
        if (strcmp(c[i].variant, variant) == 0)
            return &c[i];
    if (*n == MAX_VARIANTS || (c[*n].variant = strdup(variant)) == NULL)
        return NULL;
    return &c[(*n)++];
}

/* "VARIANT" or, by profile, "VARIANT:PROFILE" (id "VARIANT-SEED-I:PROFILE"). */
static char *key_of(const char *variant, json_t *rec, int by_profile)
{
    const char *id = json_string_value(json_object_get(rec, "id"));
    const char *colon = id != NULL ? strrchr(id, ':') : NULL;
    size_t n = strlen(variant), m = by_profile && colon != NULL ? strlen(colon) : 0;
    char *key = malloc(n + m + 1);

    if (key != NULL) {
        memcpy(key, variant, n);
        if (m > 0) /* colon is NULL otherwise */
            memcpy(key + n, colon, m);
        key[n + m] = '\0';
    }
    return key;
}

int main(int argc, char **argv)
{
    int by_profile = argc > 1 && strcmp(argv[1], "--by-profile") == 0;
    struct count counts[MAX_VARIANTS] = { { 0 } };
    size_t n_counts = 0, i, cap = 0;
    unsigned long line_no = 0;
    char *line = NULL;
    ssize_t len;
    int status = 0;

    while ((len = getline(&line, &cap, stdin)) > 0) {
        json_t *rec = json_loadb(line, (size_t)len, 0, NULL), *g = NULL;
        const char *variant = json_string_value(json_object_get(rec, "variant"));
        char *key = variant != NULL ? key_of(variant, rec, by_profile) : NULL;
        struct count *c;

        line_no++;
        if (key == NULL || (c = count_of(counts, &n_counts, key)) == NULL ||
            (g = greedy(variant, json_object_get(rec, "input"))) == NULL ||
            json_object_get(rec, "expected") == NULL) {
            fprintf(stderr, "gen-kill: line %lu: not a cairn gen record of a known game\n",
                    line_no);
            status = 1;
        } else {
            c->records++;
            c->killed += !json_equal(g, json_object_get(rec, "expected"));
        }
        free(key);
        json_decref(g);
        json_decref(rec);
    }
    for (i = 0; i < n_counts; i++) {
        printf("%s %lu %lu\n", counts[i].variant, counts[i].records, counts[i].killed);
        free(counts[i].variant);
    }
    free(line);
    return status;
}
