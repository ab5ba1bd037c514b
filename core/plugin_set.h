/*
 * plugin_set.h - a loaded set of plugins, shared by reference.
 *
 * The daemon holds the current set; every job holds a reference to the
 * set it began with, so a reload never unloads code a job in flight is
 * still using.  Loop thread only (workers use a job's set, never its
 * count).
 */
#ifndef CAIRN_PLUGIN_SET_H
#define CAIRN_PLUGIN_SET_H

#include "plugin_loader.h"

struct cairn_plugin_set {
    struct cairn_registry reg;
    unsigned refs;
};

/* A new set holding reg (moved in; reg is zeroed), one reference.  NULL
 * when out of memory (reg is then left as it was). */
struct cairn_plugin_set *cairn_plugin_set_new(struct cairn_registry *reg);

struct cairn_plugin_set *cairn_plugin_set_ref(struct cairn_plugin_set *ps);

/* Drops one reference; the last one unloads the plugins.  NULL is fine. */
void cairn_plugin_set_unref(struct cairn_plugin_set *ps);

#endif /* CAIRN_PLUGIN_SET_H */
