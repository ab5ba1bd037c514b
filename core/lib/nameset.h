/*
 * nameset.h - a set of file names (open addressing, owned copies), for
 * "is this job already queued, active, or being written?".
 */
#ifndef CAIRN_NAMESET_H
#define CAIRN_NAMESET_H

#include <stddef.h>

struct cairn_nameset {
    char **slots;  /* NULL = empty, TOMBSTONE = deleted */
    size_t cap;    /* a power of two, or 0 */
    size_t used;   /* live entries */
    size_t filled; /* live entries + tombstones */
};

/* 1 when name is in the set. */
int cairn_nameset_has(const struct cairn_nameset *s, const char *name);
/* 0 when added, 1 when already there, -ENOMEM. */
int cairn_nameset_add(struct cairn_nameset *s, const char *name);
/* 1 when removed, 0 when it was not there. */
int cairn_nameset_remove(struct cairn_nameset *s, const char *name);
/* Adds every name of from to s: 0, or -ENOMEM (some may be missing). */
int cairn_nameset_merge(struct cairn_nameset *s, const struct cairn_nameset *from);
void cairn_nameset_free(struct cairn_nameset *s);

#endif /* CAIRN_NAMESET_H */
