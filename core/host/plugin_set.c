/*
 * plugin_set.c - plugin sets shared by reference (see plugin_set.h).
 */
#include "plugin_set.h"

#include "plugin_loader.h"
#include "plugin_verdicts.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cairn_plugin_set *cairn_plugin_set_new(struct cairn_registry *reg)
{
    struct cairn_plugin_set *ps = calloc(1, sizeof(*ps));

    if (ps == NULL)
        return NULL;
    ps->reg = *reg;
    memset(reg, 0, sizeof(*reg));
    ps->refs = 1;
    return ps;
}

struct cairn_plugin_set *cairn_plugin_set_ref(struct cairn_plugin_set *ps)
{
    ps->refs++;
    return ps;
}

void cairn_plugin_set_unref(struct cairn_plugin_set *ps)
{
    if (ps != NULL && --ps->refs == 0) {
        cairn_registry_free(&ps->reg);
        free(ps);
    }
}

/* Every directory of the colon-separated list, in order, into one
 * registry: a name or alias met twice is refused naming both files,
 * whichever directories they are in, so no directory silently shadows
 * another.  0, -EINVAL (something refused), -ENOMEM. */
static int load_dirs(struct cairn_registry *reg, const char *list,
                     const struct cairn_plugin_verdict *known, size_t n_known)
{
    char *copy = strdup(list), *p, **dirs;
    size_t n = 1, i;
    int rc;

    if (copy == NULL)
        return -ENOMEM;
    for (p = copy; *p != '\0'; p++)
        n += *p == ':';
    if ((dirs = malloc(n * sizeof(*dirs))) == NULL) {
        free(copy);
        return -ENOMEM;
    }
    dirs[0] = copy;
    for (i = 1, p = copy; *p != '\0'; p++)
        if (*p == ':') {
            *p = '\0';
            dirs[i++] = p + 1;
        }
    rc = cairn_registry_load_dirs(reg, (const char *const *)dirs, n, known, n_known);
    free(dirs);
    free(copy);
    return rc;
}

/* Loads list into reg with the verdicts known: the set's a reload
 * replaces, else (kept: CAIRN_VERDICTS_USE) the passes an earlier run
 * kept; then keeps this load's passes for the next run.  As load_dirs. */
static int load_with_verdicts(struct cairn_registry *reg, const char *list,
                              const struct cairn_plugin_set *known, enum cairn_verdict_use kept,
                              const struct cairn_log *log, const char *prefix)
{
    struct cairn_verdict_store store = { .dir_fd = -1 };
    const struct cairn_plugin_verdict *v = NULL;
    size_t n = 0;
    char why[512] = "";
    int rc;

    if (kept != CAIRN_VERDICTS_IGNORE &&
        (rc = cairn_verdict_store_open(&store, why, sizeof(why))) != 0) {
        if (rc == -ENOMEM) {
            cairn_verdict_store_close(&store);
            return rc;
        }
        cairn_log(log, CAIRN_LOG_DEBUG, "%sno probe verdicts kept between runs: %s", prefix, why);
    }
    if (known != NULL) {
        v = known->reg.verdicts;
        n = known->reg.n_verdicts;
    } else if (kept == CAIRN_VERDICTS_USE) {
        v = store.v;
        n = store.n;
    }
    rc = load_dirs(reg, list, v, n);
    if (known == NULL && store.dir_fd >= 0)
        cairn_log(log, CAIRN_LOG_DEBUG,
                  "%splugin files: %zu probed, %zu passed by an earlier run's probe (%s/%s)",
                  prefix, reg->n_verdicts - reg->reused, reg->reused, store.dir,
                  CAIRN_VERDICTS_FILE);
    if (rc != -ENOMEM && store.dir_fd >= 0 &&
        cairn_verdict_store_keep(&store, reg->verdicts, reg->n_verdicts, why, sizeof(why)) < 0)
        cairn_log(log, CAIRN_LOG_DEBUG, "%sprobe verdicts not kept: %s", prefix, why);
    cairn_verdict_store_close(&store);
    return rc;
}

int cairn_plugin_set_load_registry(struct cairn_registry *reg, const char *dir,
                                   const char *default_variant,
                                   const struct cairn_plugin_set *known,
                                   enum cairn_verdict_use kept, const struct cairn_log *log,
                                   const char *prefix)
{
    int rc = load_with_verdicts(reg, dir, known, kept, log, prefix);
    size_t i;

    for (i = 0; i < reg->n_errors; i++)
        cairn_log(log, CAIRN_LOG_ERROR, "%splugin refused: %s", prefix, reg->errors[i]);
    if (rc == -ENOMEM)
        cairn_log(log, CAIRN_LOG_ERROR, "%sout of memory loading the plugins of %s", prefix, dir);
    if (rc == 0 && reg->n_plugins == 0) {
        cairn_log(log, CAIRN_LOG_ERROR, "%sno plugins found in %s", prefix, dir);
        return -ENOENT;
    }
    if (rc == 0 && default_variant != NULL && cairn_registry_find(reg, default_variant) == NULL) {
        cairn_log(log, CAIRN_LOG_ERROR, "%sdefault_variant \"%s\" names no loaded plugin or alias",
                  prefix, default_variant);
        return -EINVAL;
    }
    return rc;
}

struct cairn_plugin_set *cairn_plugin_set_load(const char *dir, const char *default_variant,
                                               const struct cairn_plugin_set *known,
                                               enum cairn_verdict_use kept,
                                               const struct cairn_log *log, const char *prefix,
                                               int *rc)
{
    struct cairn_registry reg = { 0 };
    struct cairn_plugin_set *ps;

    *rc = cairn_plugin_set_load_registry(&reg, dir, default_variant, known, kept, log, prefix);
    if (*rc == 0 && (ps = cairn_plugin_set_new(&reg)) != NULL)
        return ps;
    if (*rc == 0)
        *rc = -ENOMEM;
    cairn_registry_free(&reg);
    return NULL;
}
