/*
 * plugin_loader.h - find, vet and load solver plugins from one directory.
 */
#ifndef CAIRN_PLUGIN_LOADER_H
#define CAIRN_PLUGIN_LOADER_H

#include <stddef.h>

#include "cairn/plugin.h"

struct cairn_plugin_handle {
    const struct cairn_plugin *desc;
    char *path;  /* the file it came from */
    void *dl;    /* dlopen handle, closed by cairn_registry_free() */
};

/* The loaded plugins.  Read-only (and so shareable between threads) once
 * cairn_registry_load() has returned. */
struct cairn_registry {
    struct cairn_plugin_handle *plugins;
    size_t n_plugins;
    char **errors;  /* one message per refused file, naming it and why */
    size_t n_errors;
};

/*
 * NAME     cairn_registry_load - load every "*.so" in dir
 * RETURNS  0 when every file loaded; -EINVAL when the directory or some
 *          files were refused (each reason is in reg->errors; the good ones
 *          are still loaded); -ENOMEM.
 * NOTES    refuses a directory or file writable by group or others, a
 *          non-regular file, a dlopen failure, a missing entry symbol, a
 *          wrong ABI version, a malformed descriptor, and a duplicate name or
 *          alias (naming both files).  reg must be zeroed or freed before.
 */
int cairn_registry_load(struct cairn_registry *reg, const char *dir);

/* The plugin whose name or alias is `name`, or NULL. */
const struct cairn_plugin_handle *cairn_registry_find(const struct cairn_registry *reg,
                                                      const char *name);

/* Unloads everything; reg is zeroed and may be loaded again. */
void cairn_registry_free(struct cairn_registry *reg);

#endif /* CAIRN_PLUGIN_LOADER_H */
