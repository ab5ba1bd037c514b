/*
 * registry.h - the loaded plugins, each found by its name or an alias,
 * and the reasons the refused ones were refused.
 */
#ifndef CAIRN_REGISTRY_H
#define CAIRN_REGISTRY_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "cairn/plugin.h"

struct cairn_plugin_handle {
    /* The host's own copy of the descriptor, normalized by
     * cairn_plugin_adopt(): every field of this cairnd's ABI is present,
     * whatever minor the plugin was built for.  The rest of the host reads
     * this, never the plugin's raw descriptor.  Freed with the registry. */
    const struct cairn_plugin *desc;
    char *path;  /* the file it came from */
    dev_t dev;   /* ... identified by the device and inode of the file */
    ino_t ino;   /* that was vetted and copied (a new install: a new inode) */
    void *dl;    /* dlopen handle of a private copy (plugin_copy.h), */
    int copy_fd; /* and the copy; both closed by cairn_registry_free() */
};

/* What the load probe (plugin_probe.h) made of one file, kept with the
 * registry so that a reload finding the very same bytes needs no probe:
 * the file is known by its device, inode, size and modification time and
 * by a hash of the sealed copy that was probed. */
struct cairn_plugin_verdict {
    dev_t dev;
    ino_t ino;
    off_t size;
    struct timespec mtime;
    uint64_t hash;
    char *why; /* NULL: it went through the probe; else why it was refused */
};

/* Whether a and b are about the very same file: device, inode, size,
 * modification time and hash (not why).  A reload's and a start's
 * (plugin_verdicts.h) one test. */
int cairn_plugin_verdict_same(const struct cairn_plugin_verdict *a,
                              const struct cairn_plugin_verdict *b);

/* One name or alias in the registry's index. */
struct cairn_name_slot {
    const char *name; /* NULL: an empty slot */
    uint32_t hash;
    uint32_t plugin; /* index into plugins */
};

/* The loaded plugins.  Read-only (and so shareable between threads) once
 * cairn_registry_load() has returned. */
struct cairn_registry {
    struct cairn_plugin_handle *plugins;
    size_t n_plugins;
    char **errors; /* one message per refused file, naming it and why */
    size_t n_errors;
    /* Every name and alias, hashed: every record looks its variant up, and
     * a scan compares it with a dozen names.  Open addressing, a power of
     * two of slots, at most half full.  NULL in a registry put together by
     * hand: cairn_registry_find() scans then. */
    struct cairn_name_slot *index;
    size_t index_cap;
    size_t index_used;
    /* The probe's verdict on every file it ran or that was found
     * unchanged (see cairn_registry_load_dirs()), and how many probe
     * processes this load took. */
    struct cairn_plugin_verdict *verdicts;
    size_t n_verdicts;
    size_t reused; /* of them, taken from the last load's */
    unsigned probes;
};

/*
 * NAME     cairn_registry_add - add a vetted plugin under its name and aliases
 * ARGUMENTS h: the plugin, its desc from cairn_plugin_adopt(); h->path is
 *          copied
 * RETURNS  0, and h's desc, dl and copy_fd are the registry's; -EINVAL
 *          when its name or an alias is already taken (the refusal, naming
 *          both files, is in reg->errors); -ENOMEM.  On failure they are
 *          still the caller's.
 */
int cairn_registry_add(struct cairn_registry *reg, const struct cairn_plugin_handle *h);

/* Records why something was refused in reg->errors.  Returns -EINVAL
 * (refused, reason kept) or -ENOMEM (refused, and the reason could not be
 * kept either), for "return cairn_registry_refuse(...)". */
int cairn_registry_refuse(struct cairn_registry *reg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* The plugin whose name or alias is `name`, or NULL. */
const struct cairn_plugin_handle *cairn_registry_find(const struct cairn_registry *reg,
                                                      const char *name);

/* Unloads everything; reg is zeroed and may be loaded again. */
void cairn_registry_free(struct cairn_registry *reg);

/* For a process about to exit: frees what reg holds but leaves the
 * plugins loaded.  Unloading eleven of them took half a millisecond of a
 * 9 ms --filter run (each munmap a TLB shootdown across the threads); the
 * exit unmaps them anyway, and runs their destructors as dlclose would. */
void cairn_registry_leave(struct cairn_registry *reg);

#endif /* CAIRN_REGISTRY_H */
