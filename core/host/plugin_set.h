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

#include "log.h"
#include "registry.h"

struct cairn_plugin_set {
    struct cairn_registry reg;
    unsigned refs;
};

/* What a load does with the probe's passes kept between runs
 * (plugin_verdicts.h). */
enum cairn_verdict_use {
    CAIRN_VERDICTS_IGNORE, /* neither read nor kept */
    CAIRN_VERDICTS_USE,    /* a file an earlier run's probe passed loads
                            * unprobed (unless known is given); new passes
                            * are kept */
    CAIRN_VERDICTS_RENEW,  /* every file is probed, its pass kept (--check) */
};

/*
 * NAME     cairn_plugin_set_load_registry - load and vet dir into reg
 * ARGUMENTS dir: one directory or a colon-separated list (plugin_dir),
 *          loaded in order into one registry; default_variant: must name a
 *          loaded plugin or alias (NULL: none); known: the set a reload
 *          replaces (its files found unchanged are not probed again), or
 *          NULL; kept: what to do with an earlier run's verdicts; prefix
 *          starts every log line ("" or "reload: ")
 * RETURNS  0; -EINVAL (a refused plugin or an unknown default_variant),
 *          -ENOENT (no plugins), -ENOMEM; every reason is logged.  reg
 *          holds whatever loaded either way (free it).
 * NOTES    the one place start-up, --check, --list-plugins, --filter and a
 *          reload load plugins; the loader (plugin_loader.h) does the
 *          vetting, the private copies and the ABI versions.
 */
int cairn_plugin_set_load_registry(struct cairn_registry *reg, const char *dir,
                                   const char *default_variant,
                                   const struct cairn_plugin_set *known,
                                   enum cairn_verdict_use kept, const struct cairn_log *log,
                                   const char *prefix);

/* The same as a new set (one reference), or NULL (*rc says why). */
struct cairn_plugin_set *cairn_plugin_set_load(const char *dir, const char *default_variant,
                                               const struct cairn_plugin_set *known,
                                               enum cairn_verdict_use kept,
                                               const struct cairn_log *log, const char *prefix,
                                               int *rc);

/* A new set holding reg (moved in; reg is zeroed), one reference.  NULL
 * when out of memory (reg is then left as it was). */
struct cairn_plugin_set *cairn_plugin_set_new(struct cairn_registry *reg);

struct cairn_plugin_set *cairn_plugin_set_ref(struct cairn_plugin_set *ps);

/* Drops one reference; the last one unloads the plugins.  NULL is fine. */
void cairn_plugin_set_unref(struct cairn_plugin_set *ps);

#endif /* CAIRN_PLUGIN_SET_H */
