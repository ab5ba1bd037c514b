/*
 * plugin_set.c - plugin sets shared by reference (see plugin_set.h).
 */
#include "plugin_set.h"

#include "plugin_loader.h"

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
static int load_dirs(struct cairn_registry *reg, const char *dirs)
{
    const char *p = dirs;
    int rc = 0;

    for (;;) {
        size_t n = strcspn(p, ":");
        char *dir = strndup(p, n);
        int one;

        if (dir == NULL)
            return -ENOMEM;
        one = cairn_registry_load(reg, dir);
        free(dir);
        if (one == -ENOMEM)
            return one;
        if (one != 0)
            rc = one;
        if (p[n] == '\0')
            return rc;
        p += n + 1;
    }
}

int cairn_plugin_set_load_registry(struct cairn_registry *reg, const char *dir,
                                   const char *default_variant, const struct cairn_log *log,
                                   const char *prefix)
{
    int rc = load_dirs(reg, dir);
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
                                               const struct cairn_log *log, const char *prefix,
                                               int *rc)
{
    struct cairn_registry reg = { 0 };
    struct cairn_plugin_set *ps;

    *rc = cairn_plugin_set_load_registry(&reg, dir, default_variant, log, prefix);
    if (*rc == 0 && (ps = cairn_plugin_set_new(&reg)) != NULL)
        return ps;
    if (*rc == 0)
        *rc = -ENOMEM;
    cairn_registry_free(&reg);
    return NULL;
}
