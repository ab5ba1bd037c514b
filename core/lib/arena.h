/*
 * arena.h - a bump allocator for jansson, one per worker batch.
 *
 * Parsing a max-size record makes jansson allocate one json_t per array
 * element (50 000 for stone-game-iii) and free them all a moment later;
 * malloc and free were a fifth of the time.  Inside cairn_arena_begin() /
 * cairn_arena_end() on a thread, jansson's allocations come from that
 * thread's arena and its frees are no-ops; the arena is reset for the next
 * record.  Outside, on any thread, jansson uses malloc/free as usual.
 *
 * An arena also has a budget: the bytes it may hand out between begin and
 * end.  Past it an allocation fails and the arena says so (exceeded), so a
 * line of many small JSON values ("[{},{},...]": a few hundred bytes of
 * tree per three bytes of text) is refused as too large instead of taking
 * gigabytes.
 */
#ifndef CAIRN_ARENA_H
#define CAIRN_ARENA_H

#include <stddef.h>

struct cairn_arena_block;

struct cairn_arena {
    struct cairn_arena_block *first; /* blocks, oldest first, reused in order */
    struct cairn_arena_block *cur;   /* the block being filled */
    size_t budget;                   /* bytes it may hand out since begin; 0: no limit */
    size_t used;                     /* handed out since begin */
    int exceeded;                    /* an allocation since begin went past the budget */
};

/* Routes jansson's allocator through the arenas.  Call once, before any
 * thread uses jansson (main does). */
void cairn_arena_install(void);

/* Whether cairn_arena_install() ran: then everything jansson allocates
 * between begin and end is reclaimed by end, without json_decref(). */
int cairn_arena_installed(void);

/* From here until cairn_arena_end(), jansson allocations on this thread
 * come from a, at most budget bytes of them (0: no limit). */
void cairn_arena_begin(struct cairn_arena *a, size_t budget);
/* Forgets everything allocated since begin (keeping a block for reuse)
 * and returns this thread to malloc. */
void cairn_arena_end(struct cairn_arena *a);

void cairn_arena_free(struct cairn_arena *a);

#endif /* CAIRN_ARENA_H */
