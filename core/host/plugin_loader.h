/*
 * plugin_loader.h - find, vet and load solver plugins from one directory.
 */
#ifndef CAIRN_PLUGIN_LOADER_H
#define CAIRN_PLUGIN_LOADER_H

/* Loading is vetting each descriptor (plugin_abi.h) into a registry
 * (registry.h): whoever loads plugins uses both, so they come with it. */
#include "plugin_abi.h"
#include "registry.h"

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

#endif /* CAIRN_PLUGIN_LOADER_H */
