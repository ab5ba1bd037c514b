/*
 * plugin_loader.h - find, vet and load solver plugins from one directory.
 */
#ifndef CAIRN_PLUGIN_LOADER_H
#define CAIRN_PLUGIN_LOADER_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "cairn/plugin.h"

/* The bucket of records whose variant was never resolved (summaries'
 * by_variant, metrics' variant label, reports): reserved, so no plugin
 * can be named or aliased so and merged with it. */
#define CAIRN_VARIANT_UNRESOLVED "none"

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
};

/*
 * NAME     cairn_plugin_adopt - vet a descriptor and make the host's copy
 * ARGUMENTS raw is what the plugin's entry function returned; out receives
 *          the copy; why (why_len bytes) the reason when it is refused
 * RETURNS  0, or -EINVAL with why filled: another major, a newer minor
 *          (both name the plugin's version and this host's), a struct_size
 *          too small for the declared minor, or a malformed descriptor
 *          (naming the field)
 * NOTES    Reads abi_major, abi_minor and struct_size first and nothing
 *          else until they are known good; then copies min(struct_size,
 *          sizeof *out) bytes into a zero-filled *out and gives the fields
 *          an older minor lacks their old meaning (1.0: equal_length 0,
 *          totals CAIRN_TOTALS_ALL; before 1.2: no analysis, whatever
 *          struct_size covers).  abi_minor and struct_size keep the
 *          plugin's values.  A feature newer than the declared minor (a
 *          scalar input in a 1.0 descriptor) is refused.
 */
int cairn_plugin_adopt(const struct cairn_plugin *raw, struct cairn_plugin *out, char *why,
                       size_t why_len);

/*
 * NAME     cairn_registry_load - load every "*.so" in dir
 * RETURNS  0 when every file loaded; -EINVAL when the directory or some
 *          files were refused (each reason is in reg->errors; the good ones
 *          are still loaded); -ENOMEM.
 * NOTES    refuses a directory or file writable by group or others, or
 *          owned by anyone but root and this process's effective user (as
 *          sshd's StrictModes), a non-regular file, one over
 *          CAIRN_PLUGIN_MAX_BYTES, a dlopen failure, a missing entry
 *          symbol, a descriptor cairn_plugin_adopt() refuses, and a
 *          duplicate name or alias (naming both files).  Each file is
 *          vetted through the descriptor it is then copied from, and runs
 *          from that private copy: replacing or overwriting the file later
 *          changes nothing until the next load.  reg must be zeroed or
 *          freed before.
 */
int cairn_registry_load(struct cairn_registry *reg, const char *dir);

/* The plugin whose name or alias is `name`, or NULL. */
const struct cairn_plugin_handle *cairn_registry_find(const struct cairn_registry *reg,
                                                      const char *name);

/* Unloads everything; reg is zeroed and may be loaded again. */
void cairn_registry_free(struct cairn_registry *reg);

#endif /* CAIRN_PLUGIN_LOADER_H */
