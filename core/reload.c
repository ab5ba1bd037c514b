/*
 * reload.c - SIGHUP: a new configuration and plugin set, or the old ones.
 *
 * Jobs in flight hold a reference to the plugin set and a copy of the
 * settings they began with, so they finish on those; new jobs get the
 * new ones.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "daemon.h"

static int differs(const char *a, const char *b)
{
    return (a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0);
}

/* Settings fixed for the life of the process. */
static void keep_fixed(struct cairn_daemon *d, struct cairn_config *nc)
{
    char **fixed[] = {&nc->input_dir, &nc->output_dir};
    char *const old[] = {d->cfg.input_dir, d->cfg.output_dir};
    const char *names[] = {"input_dir", "output_dir"};
    size_t i;

    for (i = 0; i < 2; i++) {
        if (!differs(*fixed[i], old[i]))
            continue;
        cairn_log(&d->log, CAIRN_LOG_WARNING, "reload: %s changes only with a restart; "
                  "keeping %s", names[i], old[i]);
        free(*fixed[i]);
        *fixed[i] = strdup(old[i]);
    }
    if (nc->threads != d->cfg.threads) {
        cairn_log(&d->log, CAIRN_LOG_WARNING, "reload: threads changes only with a restart");
        nc->threads = d->cfg.threads;
    }
}

static int load_config(struct cairn_daemon *d, struct cairn_config *nc)
{
    char *err = NULL;

    if (cairn_config_defaults(nc) != 0)
        return -ENOMEM;
    if ((d->config_file != NULL && cairn_config_load_file(nc, d->config_file, &err) != 0) ||
        (d->apply_overrides != NULL && d->apply_overrides(nc, &err, d->overrides_data) != 0)) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "reload: %s; keeping the old configuration",
                  err ? err : "out of memory");
        free(err);
        cairn_config_free(nc);
        return -EINVAL;
    }
    return 0;
}

static struct cairn_plugin_set *load_plugins(struct cairn_daemon *d, const char *dir,
                                             const char *default_variant)
{
    struct cairn_plugin_set *ps = calloc(1, sizeof(*ps));
    size_t i;
    int rc;

    if (ps == NULL)
        return NULL;
    rc = cairn_registry_load(&ps->reg, dir);
    for (i = 0; i < ps->reg.n_errors; i++)
        cairn_log(&d->log, CAIRN_LOG_ERROR, "reload: plugin refused: %s", ps->reg.errors[i]);
    if (rc == 0 && ps->reg.n_plugins == 0) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "reload: no plugins in %s", dir);
        rc = -ENOENT;
    }
    if (rc == 0 && default_variant != NULL &&
        cairn_registry_find(&ps->reg, default_variant) == NULL) {
        cairn_log(&d->log, CAIRN_LOG_ERROR,
                  "reload: default_variant \"%s\" names no loaded plugin", default_variant);
        rc = -EINVAL;
    }
    if (rc != 0) {
        cairn_registry_free(&ps->reg);
        free(ps);
        return NULL;
    }
    ps->refs = 1;
    return ps;
}

void cairn_daemon_reload(struct cairn_daemon *d)
{
    struct cairn_config nc;
    struct cairn_plugin_set *ps;

    cairn_log(&d->log, CAIRN_LOG_INFO, "SIGHUP: reloading %s and %s",
              d->config_file ? d->config_file : "(no configuration file)", d->cfg.plugin_dir);
    if (load_config(d, &nc) != 0)
        return;
    keep_fixed(d, &nc);
    ps = load_plugins(d, nc.plugin_dir, nc.default_variant);
    if (ps == NULL) {
        cairn_log(&d->log, CAIRN_LOG_ERROR,
                  "reload: keeping the old configuration and plugins");
        cairn_config_free(&nc);
        return;
    }
    if (cairn_metrics_set_plugins(&d->metrics, &ps->reg) != 0) {
        cairn_log(&d->log, CAIRN_LOG_ERROR, "reload: out of memory; keeping the old set");
        cairn_plugin_set_unref(ps);
        cairn_config_free(&nc);
        return;
    }
    cairn_plugin_set_unref(d->plugins);
    d->plugins = ps;
    cairn_config_free(&d->cfg);
    d->cfg = nc;
    /* Borrowed from the configuration just freed: point it at the new one. */
    cairn_metrics_set_labels(&d->metrics, d->cfg.metrics_labels);
    d->log.level = d->cfg.log_level;
    if (d->cfg.umask >= 0)
        umask((mode_t)d->cfg.umask);
    cairn_daemon_start_timers(d);
    cairn_hang_set_timeout(&d->hang, d->cfg.solve_timeout_s);
    cairn_daemon_log_plugins(d);
    cairn_log(&d->log, CAIRN_LOG_INFO, "reloaded: %zu plugin(s) from %s", ps->reg.n_plugins,
              d->cfg.plugin_dir);
}
