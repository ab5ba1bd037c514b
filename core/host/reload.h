/*
 * reload.h - SIGHUP: read the configuration and the plugin directory
 * again, keeping what only a restart may change.
 */
#ifndef CAIRN_RELOAD_H
#define CAIRN_RELOAD_H

#include "config.h"
#include "log.h"
#include "plugin_set.h"

struct cairn_reload_in {
    const struct cairn_config *old; /* the settings in force */
    const char *config_file;        /* NULL: none */
    /* The settings before the file's, as at start (an uninstalled
     * cairnd's plugin_dir among them); NULL: cairn_config_defaults. */
    int (*defaults)(struct cairn_config *cfg);
    int (*apply_overrides)(struct cairn_config *cfg, char **err, void *data);
    void *overrides_data; /* the command line, applied again */
    const struct cairn_log *log;
    /* The SIGHUPs this reload answers, for its first log line: more than
     * one when those that came during the last reload were coalesced. */
    unsigned signals;
    /* The plugin set in force: its files found unchanged are not probed
     * again (plugin_loader.h).  Only read; NULL: probe every file. */
    const struct cairn_plugin_set *known;
};

/*
 * NAME     cairn_reload_prepare - a new configuration and plugin set
 * RETURNS  0 with *nc and *ps (one reference) ready to be swapped in;
 *          a negative errno, and nothing to free, when either is bad (the
 *          log says why; the caller keeps the old ones)
 * NOTES    Touches nothing but *in (read) and the log, so it may run off
 *          the daemon's loop, on a pool thread: loading the plugins, with
 *          their probe process, takes long enough to stall jobs.
 */
int cairn_reload_prepare(const struct cairn_reload_in *in, struct cairn_config *nc,
                         struct cairn_plugin_set **ps);

#endif /* CAIRN_RELOAD_H */
