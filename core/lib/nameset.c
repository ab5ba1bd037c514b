/*
 * nameset.c - open-addressing string set with linear probing.
 */
#include "nameset.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static char tombstone_mark;
#define TOMBSTONE (&tombstone_mark)

static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return (size_t)h;
}

/* The slot holding name, or (for insertion) the first free one on its
 * probe path.  cap must be nonzero. */
static size_t probe(const struct cairn_nameset *s, const char *name, int *found)
{
    size_t mask = s->cap - 1, i = hash(name) & mask, first_free = SIZE_MAX;

    for (;;) {
        char *e = s->slots[i];
        if (e == NULL) {
            *found = 0;
            return first_free != SIZE_MAX ? first_free : i;
        }
        if (e == TOMBSTONE) {
            if (first_free == SIZE_MAX)
                first_free = i;
        } else if (strcmp(e, name) == 0) {
            *found = 1;
            return i;
        }
        i = (i + 1) & mask;
    }
}

static int rehash(struct cairn_nameset *s, size_t cap)
{
    struct cairn_nameset n = { .slots = calloc(cap, sizeof(char *)), .cap = cap };
    size_t i;

    if (n.slots == NULL)
        return -ENOMEM;
    for (i = 0; i < s->cap; i++) {
        int found;
        if (s->slots[i] == NULL || s->slots[i] == TOMBSTONE)
            continue;
        n.slots[probe(&n, s->slots[i], &found)] = s->slots[i];
        n.used++;
    }
    n.filled = n.used;
    free(s->slots);
    *s = n;
    return 0;
}

int cairn_nameset_has(const struct cairn_nameset *s, const char *name)
{
    int found = 0;

    if (s->cap > 0)
        probe(s, name, &found);
    return found;
}

int cairn_nameset_add(struct cairn_nameset *s, const char *name)
{
    size_t i;
    int found;
    char *copy;

    /* Keep at most half the slots used, tombstones included, so probes
     * stay short and always end at an empty slot: grow when live entries
     * fill a quarter, else rebuild at the same size to drop tombstones. */
    if ((s->filled + 1) * 2 > s->cap && rehash(s, s->cap == 0            ? 16
                                                  : s->used * 4 > s->cap ? s->cap * 2
                                                                         : s->cap) != 0)
        return -ENOMEM;
    i = probe(s, name, &found);
    if (found)
        return 1;
    if ((copy = strdup(name)) == NULL)
        return -ENOMEM;
    if (s->slots[i] == NULL)
        s->filled++;
    s->slots[i] = copy;
    s->used++;
    return 0;
}

int cairn_nameset_remove(struct cairn_nameset *s, const char *name)
{
    size_t i;
    int found = 0;

    if (s->cap == 0)
        return 0;
    i = probe(s, name, &found);
    if (!found)
        return 0;
    free(s->slots[i]);
    s->slots[i] = TOMBSTONE;
    s->used--;
    return 1;
}

int cairn_nameset_merge(struct cairn_nameset *s, const struct cairn_nameset *from)
{
    size_t i;
    int rc = 0;

    for (i = 0; i < from->cap; i++)
        if (from->slots[i] != NULL && from->slots[i] != TOMBSTONE &&
            cairn_nameset_add(s, from->slots[i]) < 0)
            rc = -ENOMEM;
    return rc;
}

void cairn_nameset_free(struct cairn_nameset *s)
{
    size_t i;

    for (i = 0; i < s->cap; i++)
        if (s->slots[i] != NULL && s->slots[i] != TOMBSTONE)
            free(s->slots[i]);
    free(s->slots);
    memset(s, 0, sizeof(*s));
}
