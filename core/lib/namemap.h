/*
 * namemap.h - file names, each with a small state (open addressing, owned
 * copies): "is this job queued, running, backing off?", "is this file
 * being written?".  A state is an int >= 0, its meaning the owner's.
 */
#ifndef CAIRN_NAMEMAP_H
#define CAIRN_NAMEMAP_H

#include <stddef.h>

struct cairn_namemap_entry;

/* Zero-initialise. */
struct cairn_namemap {
    struct cairn_namemap_entry **slots; /* NULL = empty, or a tombstone */
    size_t cap;                         /* a power of two, or 0 */
    size_t used;                        /* live entries */
    size_t filled;                      /* live entries + tombstones */
};

/* name's state, or -1 when name is not in the map. */
int cairn_namemap_get(const struct cairn_namemap *m, const char *name);

/* Sets name's state (>= 0), adding name if needed: 0, or -ENOMEM (the
 * map is unchanged).  Setting the state of a name already there cannot
 * fail. */
int cairn_namemap_set(struct cairn_namemap *m, const char *name, int state);

/* 1 when removed, 0 when it was not there. */
int cairn_namemap_remove(struct cairn_namemap *m, const char *name);

/* Calls fn for every entry, in no order; fn returns the entry's new state,
 * or -1 to remove it.  fn must not change the map otherwise. */
void cairn_namemap_update(struct cairn_namemap *m,
                          int (*fn)(const char *name, int state, void *data), void *data);

void cairn_namemap_free(struct cairn_namemap *m);

#endif /* CAIRN_NAMEMAP_H */
