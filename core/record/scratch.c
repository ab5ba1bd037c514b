/*
 * scratch.c - a worker's working memory (see scratch.h).
 */
#include "scratch.h"

#include <stdlib.h>
#include <string.h>

void cairn_scratch_free(struct cairn_scratch *s)
{
    free(s->mem);
    free(s->values);
    free(s->moves);
    free(s->amem);
    free(s->line);
    free(s->legal);
    cairn_arena_free(&s->arena);
    memset(s, 0, sizeof(*s));
}
