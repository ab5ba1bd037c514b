/*
 * plugin_set.c - plugin sets shared by reference (see plugin_set.h).
 */
#include "plugin_set.h"

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
