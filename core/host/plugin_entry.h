/*
 * plugin_entry.h - a loaded plugin's entry function and descriptor.
 *
 * A damaged entry may return any value (even another one in the probe
 * process than in the daemon: a register it never set), so the pointer
 * it returns is checked to lie in the plugin's own readable memory before
 * a byte of the descriptor is read.
 */
#ifndef CAIRN_PLUGIN_ENTRY_H
#define CAIRN_PLUGIN_ENTRY_H

#include "plugin_abi.h"

/*
 * NAME     cairn_plugin_descriptor - call the entry, check what it returned
 * ARGUMENTS sym: the entry symbol's address (dlsym), entry the same as a
 *          function
 * RETURNS  the descriptor, its header and what cairn_plugin_adopt() copies
 *          of it inside the object; NULL when the entry returned NULL, or
 *          wild memory (*wild set)
 */
const struct cairn_plugin *cairn_plugin_descriptor(cairn_plugin_entry_fn entry, const void *sym,
                                                   int *wild);

/* What the probe process does with a plugin before it is loaded for real
 * (plugin_probe.h): the reads the loader makes of it, any of which may
 * fault.  Its return value is of no use. */
int cairn_plugin_exercise(void *dl);

#endif /* CAIRN_PLUGIN_ENTRY_H */
