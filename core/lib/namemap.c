/*
 * namemap.c - open addressing with linear probing (namemap.h).
 */
#include "namemap.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct cairn_namemap_entry {
    int state;
    char name[];
};

/* A deleted slot: probes go on past it, insertions may reuse it. */
static struct cairn_namemap_entry tombstone_mark;
#define TOMBSTONE (&tombstone_mark)

static int live(const struct cairn_namemap_entry *e)
{
    return e != NULL && e != TOMBSTONE;
}

static size_t hash(const char *s)
{
    uint64_t h = 1469598103934665603ull; /* FNV-1a */

    while (*s)
        h = (h ^ (unsigned char)*s++) * 1099511628211ull;
    return (size_t)h;
}

/* The slot holding name, or (for insertion) the first free one on its
 * probe path.  cap must be nonzero. */
static size_t probe(const struct cairn_namemap *m, const char *name, int *found)
{
    size_t mask = m->cap - 1, i = hash(name) & mask, first_free = SIZE_MAX;

    for (;;) {
        const struct cairn_namemap_entry *e = m->slots[i];
        if (e == NULL) {
            *found = 0;
            return first_free != SIZE_MAX ? first_free : i;
        }
        if (e == TOMBSTONE) {
            if (first_free == SIZE_MAX)
                first_free = i;
        } else if (strcmp(e->name, name) == 0) {
            *found = 1;
            return i;
        }
        i = (i + 1) & mask;
    }
}

static int rehash(struct cairn_namemap *m, size_t cap)
{
    struct cairn_namemap n = { .slots = calloc(cap, sizeof(*n.slots)), .cap = cap };
    size_t i;

    if (n.slots == NULL)
        return -ENOMEM;
    for (i = 0; i < m->cap; i++) {
        int found;
        if (!live(m->slots[i]))
            continue;
        n.slots[probe(&n, m->slots[i]->name, &found)] = m->slots[i];
        n.used++;
    }
    n.filled = n.used;
    free(m->slots);
    *m = n;
    return 0;
}

int cairn_namemap_get(const struct cairn_namemap *m, const char *name)
{
    int found = 0;
    size_t i;

    if (m->cap == 0)
        return -1;
    i = probe(m, name, &found);
    return found ? m->slots[i]->state : -1;
}

int cairn_namemap_set(struct cairn_namemap *m, const char *name, int state)
{
    struct cairn_namemap_entry *e;
    size_t i, n;
    int found;

    if (m->cap > 0) {
        i = probe(m, name, &found);
        if (found) {
            m->slots[i]->state = state;
            return 0;
        }
    }
    /* Keep at most half the slots used, tombstones included, so probes
     * stay short and always end at an empty slot: grow when live entries
     * fill a quarter, else rebuild at the same size to drop tombstones. */
    if ((m->filled + 1) * 2 > m->cap && rehash(m, m->cap == 0            ? 16
                                                  : m->used * 4 > m->cap ? m->cap * 2
                                                                         : m->cap) != 0)
        return -ENOMEM;
    n = strlen(name);
    if ((e = malloc(sizeof(*e) + n + 1)) == NULL)
        return -ENOMEM;
    e->state = state;
    memcpy(e->name, name, n + 1);
    i = probe(m, name, &found);
    if (m->slots[i] == NULL)
        m->filled++;
    m->slots[i] = e;
    m->used++;
    return 0;
}

static void drop(struct cairn_namemap *m, size_t i)
{
    free(m->slots[i]);
    m->slots[i] = TOMBSTONE;
    m->used--;
}

int cairn_namemap_remove(struct cairn_namemap *m, const char *name)
{
    size_t i;
    int found = 0;

    if (m->cap == 0)
        return 0;
    i = probe(m, name, &found);
    if (!found)
        return 0;
    drop(m, i);
    return 1;
}

void cairn_namemap_update(struct cairn_namemap *m,
                          int (*fn)(const char *name, int state, void *data), void *data)
{
    size_t i;

    for (i = 0; i < m->cap; i++) {
        int state;

        if (!live(m->slots[i]))
            continue;
        state = fn(m->slots[i]->name, m->slots[i]->state, data);
        if (state < 0)
            drop(m, i);
        else
            m->slots[i]->state = state;
    }
}

void cairn_namemap_free(struct cairn_namemap *m)
{
    size_t i;

    for (i = 0; i < m->cap; i++)
        if (live(m->slots[i]))
            free(m->slots[i]);
    free(m->slots);
    memset(m, 0, sizeof(*m));
}
