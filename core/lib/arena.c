/*
 * arena.c - bump allocation for jansson on worker threads.
 */
#include "arena.h"

#include <jansson.h>
#include <stdint.h>
#include <stdlib.h>

/* Big enough that a max-size official record fits in one or two blocks. */
#define BLOCK_BYTES (1u << 20)
/* After a huge record, keep at most this much for the next one. */
#define KEEP_BYTES (4u << 20)

struct cairn_arena_block {
    struct cairn_arena_block *next;
    char *end;
    char *at;
    max_align_t data[];
};

/* jansson's allocator hooks take no context, so the arena in use is per
 * thread.  This is the one piece of thread-local state in cairn, and it is
 * only non-NULL between cairn_arena_begin() and cairn_arena_end(). */
static _Thread_local struct cairn_arena *current;

/* Set once by main before any thread starts; read-only afterwards. */
static int installed;

static struct cairn_arena_block *new_block(size_t min)
{
    size_t size = min > BLOCK_BYTES ? min : BLOCK_BYTES;
    struct cairn_arena_block *b = malloc(sizeof(*b) + size);

    if (b == NULL)
        return NULL;
    b->next = NULL;
    b->at = (char *)b->data;
    b->end = b->at + size;
    return b;
}

static void *arena_malloc(size_t n)
{
    struct cairn_arena *a = current;
    struct cairn_arena_block *b;
    void *p;

    if (a == NULL)
        return malloc(n);
    n = (n + 15) & ~(size_t)15;
    if (a->budget != 0 && (n > a->budget || a->used > a->budget - n)) {
        a->exceeded = 1;
        return NULL;
    }
    a->used += n;
    b = a->cur;
    /* Move on to the next kept block that fits, or add one after cur. */
    while (b != NULL && (size_t)(b->end - b->at) < n && b->next != NULL)
        b = b->next;
    if (b == NULL || (size_t)(b->end - b->at) < n) {
        struct cairn_arena_block *nb = new_block(n);
        if (nb == NULL)
            return NULL;
        if (b == NULL)
            a->first = nb;
        else
            b->next = nb;
        b = nb;
    }
    a->cur = b;
    p = b->at;
    b->at += n;
    return p;
}

/* Whether p came from a's blocks: the few blocks make this a short walk. */
static int owns(const struct cairn_arena *a, const void *p)
{
    const struct cairn_arena_block *b;

    for (b = a->first; b != NULL; b = b->next)
        if ((const char *)p >= (const char *)b->data && (const char *)p < b->end)
            return 1;
    return 0;
}

static void arena_free(void *p)
{
    struct cairn_arena *a = current;

    if (p == NULL)
        return;
    if (a != NULL && owns(a, p))
        return; /* reclaimed all at once by cairn_arena_end() */
    free(p);
}

void cairn_arena_install(void)
{
    json_set_alloc_funcs(arena_malloc, arena_free);
    installed = 1;
}

int cairn_arena_installed(void)
{
    return installed;
}

void cairn_arena_begin(struct cairn_arena *a, size_t budget)
{
    current = a;
    a->cur = a->first;
    a->budget = budget;
    a->used = 0;
    a->exceeded = 0;
}

void cairn_arena_end(struct cairn_arena *a)
{
    struct cairn_arena_block *b, **link = &a->first;
    size_t kept = 0;

    current = NULL;
    /* Reset the blocks for the next record; past KEEP_BYTES, give memory
     * back, so it stays flat after a huge record. */
    while ((b = *link) != NULL) {
        size_t size = (size_t)(b->end - (char *)b->data);
        if (kept + size > KEEP_BYTES) {
            *link = b->next;
            free(b);
            continue;
        }
        kept += size;
        b->at = (char *)b->data;
        link = &b->next;
    }
    a->cur = a->first;
}

void cairn_arena_free(struct cairn_arena *a)
{
    struct cairn_arena_block *b = a->first;

    if (current == a)
        current = NULL;
    while (b != NULL) {
        struct cairn_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->first = a->cur = NULL;
}
