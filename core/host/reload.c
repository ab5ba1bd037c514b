/*
 * reload.c - what SIGHUP reads: a new configuration and plugin set, ready
 * to replace the old ones, or nothing (and the log says why).
 *
 * It knows nothing of the daemon: the daemon swaps in what this returns.
 * Jobs in flight hold a reference to the plugin set and a copy of the
 * settings they began with, so they finish on those; new jobs get the
 * new ones.
 */
#include "reload.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

static int differs(const char *a, const char *b)
{
    return (a == NULL) != (b == NULL) || (a != NULL && strcmp(a, b) != 0);
}

/* Settings fixed for the life of the process. */
static void keep_fixed(const struct cairn_reload_in *in, struct cairn_config *nc)
{
    char **fixed[] = { &nc->input_dir, &nc->output_dir };
    char *const old[] = { in->old->input_dir, in->old->output_dir };
    const char *names[] = { "input_dir", "output_dir" };
    size_t i;

    for (i = 0; i < 2; i++) {
        if (!differs(*fixed[i], old[i]))
            continue;
        /* Unset in the run (differs() allows it): kept unset. */
        cairn_log(in->log, CAIRN_LOG_WARNING,
                  "reload: %s changes only with a restart; "
                  "keeping %s",
                  names[i], old[i] != NULL ? old[i] : "it unset");
        free(*fixed[i]);
        *fixed[i] = old[i] != NULL ? strdup(old[i]) : NULL;
    }
    if (nc->threads != in->old->threads) {
        cairn_log(in->log, CAIRN_LOG_WARNING, "reload: threads changes only with a restart");
        nc->threads = in->old->threads;
    }
}

static int load_config(const struct cairn_reload_in *in, struct cairn_config *nc)
{
    char *err = NULL;

    if ((in->defaults != NULL ? in->defaults(nc) : cairn_config_defaults(nc)) != 0)
        return -ENOMEM;
    if ((in->config_file != NULL && cairn_config_load_file(nc, in->config_file, &err) != 0) ||
        (in->apply_overrides != NULL && in->apply_overrides(nc, &err, in->overrides_data) != 0)) {
        cairn_log(in->log, CAIRN_LOG_ERROR, "reload: %s; keeping the old configuration",
                  err ? err : "out of memory");
        free(err);
        cairn_config_free(nc);
        return -EINVAL;
    }
    return 0;
}

int cairn_reload_prepare(const struct cairn_reload_in *in, struct cairn_config *nc,
                         struct cairn_plugin_set **ps)
{
    int rc;

    if (in->signals > 1)
        cairn_log(in->log, CAIRN_LOG_INFO,
                  "%u SIGHUPs coalesced into one reload: reloading %s and %s", in->signals,
                  in->config_file ? in->config_file : "(no configuration file)",
                  in->old->plugin_dir);
    else
        cairn_log(in->log, CAIRN_LOG_INFO, "SIGHUP: reloading %s and %s",
                  in->config_file ? in->config_file : "(no configuration file)",
                  in->old->plugin_dir);
    if ((rc = load_config(in, nc)) != 0)
        return rc;
    keep_fixed(in, nc);
    *ps = cairn_plugin_set_load(nc->plugin_dir, nc->default_variant, in->known, CAIRN_VERDICTS_USE,
                                in->log, "reload: ", &rc);
    if (*ps == NULL) {
        cairn_log(in->log, CAIRN_LOG_ERROR, "reload: keeping the old configuration and plugins");
        cairn_config_free(nc);
        return rc;
    }
    return 0;
}
