/*
 * plugin_loader.h - find, vet and load solver plugins from one directory.
 */
#ifndef CAIRN_PLUGIN_LOADER_H
#define CAIRN_PLUGIN_LOADER_H

/* Loading is vetting each descriptor (plugin_abi.h) into a registry
 * (registry.h): whoever loads plugins uses both, so they come with it. */
#include "plugin_abi.h"
#include "registry.h"

#include <stddef.h>

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

/*
 * NAME     cairn_registry_load_dirs - load every "*.so" of every directory
 * ARGUMENTS dirs[0, n_dirs), in order, into one registry; known[0,
 *          n_known): verdicts already had, the last load's (a reload) or
 *          an earlier run's (plugin_verdicts.h), or none
 * RETURNS  as cairn_registry_load()
 * NOTES    every file is vetted and copied first, then the copies go
 *          through one probe process (plugin_probe.h), then they are
 *          loaded here.  A file a known verdict is about (same device,
 *          inode, size, modification time and bytes) is not probed again:
 *          it is loaded, or refused for the reason it was.  reg->verdicts
 *          keeps this load's verdicts for the next, reg->reused how many
 *          of them were known; reg->probes says how many probe processes
 *          it took.
 */
int cairn_registry_load_dirs(struct cairn_registry *reg, const char *const *dirs, size_t n_dirs,
                             const struct cairn_plugin_verdict *known, size_t n_known);

#endif /* CAIRN_PLUGIN_LOADER_H */
