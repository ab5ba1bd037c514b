/*
 * config.h - the daemon's settings (docs/contract.md, Configuration): built-in defaults,
 * then a JSON file, then the command line.
 */
#ifndef CAIRN_CONFIG_H
#define CAIRN_CONFIG_H

#include <stdint.h>

#include "cairn/plugin.h"
#include "log.h"

struct cairn_config {
    char *input_dir;
    char *output_dir;
    char *plugin_dir;
    uint64_t threads; /* 0 = one per CPU */
    uint64_t min_age_ms;
    double rescan_interval_s;
    int keep_inputs;
    uint64_t max_line_bytes;
    uint64_t max_attempts;
    char *metrics_file;
    double metrics_interval_s;
    double shutdown_timeout_s;
    double solve_timeout_s; /* a record's plugin calls past this: hung (0 = never) */
    enum cairn_limits limits;
    char *default_variant; /* NULL: none */
    enum cairn_log_level log_level;
    int umask;            /* -1: keep the inherited umask */
    char *metrics_labels; /* NULL: none; else the rendered text,
                                    instance="node7",zone="b" */
};

/* Fills cfg with the built-in defaults.  Returns 0 or -ENOMEM. */
int cairn_config_defaults(struct cairn_config *cfg);

/* An uninstalled program's default plugin_dir: when this process runs the
 * very file the build wrote (build_exe, compared by device and inode, so
 * any path that names it counts), plugin_dir becomes build_plugins, since
 * the installed directory does not exist yet and the plugins beside it
 * are the ones built with it; an installed copy keeps the built-in
 * default.  cairnd and the client each pass their own build path.
 * 0 or -ENOMEM. */
int cairn_config_default_when_uninstalled(struct cairn_config *cfg, const char *build_exe,
                                          const char *build_plugins);

/*
 * NAME     cairn_config_load_file - apply a JSON configuration file
 * RETURNS  0; or -EINVAL/-ENOENT/... with *err set to a message naming the
 *          file, and the line or key at fault (free it).  cfg keeps its
 *          previous values for keys the file does not set; on error it may
 *          be partly updated, so load into a copy when the old one matters.
 */
int cairn_config_load_file(struct cairn_config *cfg, const char *path, char **err);

/* Sets one key from its textual form (command line); same errors. */
int cairn_config_set(struct cairn_config *cfg, const char *key, const char *value, char **err);
/* The same, given by option (e.g. "--threads"): a refusal names the option
 * and the value as typed ("--threads 2000: key \"threads\": out of range
 * (allowed: 0..1024)"). */
int cairn_config_set_option(struct cairn_config *cfg, const char *key, const char *option,
                            const char *value, char **err);

/*
 * NAME     cairn_config_check_dirs - input_dir and output_dir kept apart
 * RETURNS  0; -EINVAL with *err (free it) when they are the same directory
 *          or one lies inside the other, after resolving symbolic links;
 *          -ENOMEM
 */
int cairn_config_check_dirs(const struct cairn_config *cfg, char **err);

int cairn_config_copy(struct cairn_config *dst, const struct cairn_config *src);
void cairn_config_free(struct cairn_config *cfg);

#endif /* CAIRN_CONFIG_H */
