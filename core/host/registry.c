/*
 * registry.c - the loaded plugins and the hashed index of their names.
 */
#include "registry.h"

#include <errno.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "plugin_copy.h"
#include "util.h"

int cairn_registry_refuse(struct cairn_registry *reg, const char *fmt, ...)
{
    va_list ap;
    char *msg;
    char **grown;

    va_start(ap, fmt);
    msg = cairn_vasprintf(fmt, ap);
    va_end(ap);
    if (msg == NULL)
        return -ENOMEM;
    grown = realloc(reg->errors, (reg->n_errors + 1) * sizeof(*grown));
    if (grown == NULL) {
        free(msg);
        return -ENOMEM;
    }
    reg->errors = grown;
    reg->errors[reg->n_errors++] = msg;
    return -EINVAL;
}

static const struct cairn_plugin_handle *find_clash(const struct cairn_registry *reg,
                                                    const struct cairn_plugin *d,
                                                    const char **clash)
{
    size_t i;

    if (cairn_registry_find(reg, d->name) != NULL) {
        *clash = d->name;
        return cairn_registry_find(reg, d->name);
    }
    for (i = 0; d->aliases != NULL && d->aliases[i] != NULL; i++) {
        const struct cairn_plugin_handle *h = cairn_registry_find(reg, d->aliases[i]);
        if (h != NULL) {
            *clash = d->aliases[i];
            return h;
        }
    }
    return NULL;
}

/* FNV-1a: a few names of a dozen bytes, no adversary to fear (the names
 * come from the vetted plugins; a record's name is only looked up). */
static uint32_t name_hash(const char *s)
{
    uint32_t h = 2166136261u;

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h;
}

static void index_put(struct cairn_name_slot *slots, size_t cap, const char *name, uint32_t plugin)
{
    uint32_t h = name_hash(name);
    size_t i = h & (cap - 1);

    while (slots[i].name != NULL)
        i = (i + 1) & (cap - 1);
    slots[i] = (struct cairn_name_slot){ .name = name, .hash = h, .plugin = plugin };
}

/* Adds plugin k's name and aliases to the index, growing it to keep it at
 * most half full.  0 or -ENOMEM (the index is then as it was). */
static int index_add(struct cairn_registry *reg, size_t k)
{
    const struct cairn_plugin *d = reg->plugins[k].desc;
    size_t n = 1, cap = reg->index_cap ? reg->index_cap : 32;

    while (d->aliases != NULL && d->aliases[n - 1] != NULL)
        n++;
    while (2 * (reg->index_used + n) > cap)
        cap *= 2;
    if (cap != reg->index_cap) {
        struct cairn_name_slot *slots = calloc(cap, sizeof(*slots));
        if (slots == NULL)
            return -ENOMEM;
        for (size_t i = 0; i < reg->index_cap; i++)
            if (reg->index[i].name != NULL)
                index_put(slots, cap, reg->index[i].name, reg->index[i].plugin);
        free(reg->index);
        reg->index = slots;
        reg->index_cap = cap;
    }
    index_put(reg->index, cap, d->name, (uint32_t)k);
    for (size_t j = 0; j + 1 < n; j++)
        index_put(reg->index, cap, d->aliases[j], (uint32_t)k);
    reg->index_used += n;
    return 0;
}

int cairn_registry_add(struct cairn_registry *reg, const struct cairn_plugin_handle *h)
{
    const struct cairn_plugin_handle *other;
    const char *clash = NULL;
    struct cairn_plugin_handle *grown;
    char *path_copy;

    other = find_clash(reg, h->desc, &clash);
    if (other != NULL)
        return cairn_registry_refuse(reg, "%s: name or alias \"%s\" is already taken by %s (%s)",
                                     h->path, clash, other->path, other->desc->name);

    path_copy = strdup(h->path);
    grown = realloc(reg->plugins, (reg->n_plugins + 1) * sizeof(*grown));
    if (grown != NULL)
        reg->plugins = grown;
    if (path_copy != NULL && grown != NULL) {
        reg->plugins[reg->n_plugins] = *h;
        reg->plugins[reg->n_plugins].path = path_copy;
        if (index_add(reg, reg->n_plugins) == 0) {
            reg->n_plugins++;
            return 0;
        }
    }
    free(path_copy);
    return -ENOMEM;
}

const struct cairn_plugin_handle *cairn_registry_find(const struct cairn_registry *reg,
                                                      const char *name)
{
    size_t i, j;

    if (reg->index != NULL) {
        uint32_t h = name_hash(name);

        for (i = h & (reg->index_cap - 1); reg->index[i].name != NULL;
             i = (i + 1) & (reg->index_cap - 1))
            if (reg->index[i].hash == h && strcmp(reg->index[i].name, name) == 0)
                return &reg->plugins[reg->index[i].plugin];
        return NULL;
    }
    for (i = 0; i < reg->n_plugins; i++) {
        const struct cairn_plugin *d = reg->plugins[i].desc;
        if (strcmp(d->name, name) == 0)
            return &reg->plugins[i];
        for (j = 0; d->aliases != NULL && d->aliases[j] != NULL; j++)
            if (strcmp(d->aliases[j], name) == 0)
                return &reg->plugins[i];
    }
    return NULL;
}

static void release(struct cairn_registry *reg, int unload)
{
    size_t i;

    for (i = 0; i < reg->n_plugins; i++) {
        free((void *)reg->plugins[i].desc);
        if (unload)
            cairn_plugin_copy_close(reg->plugins[i].dl, reg->plugins[i].copy_fd);
        free(reg->plugins[i].path);
    }
    for (i = 0; i < reg->n_errors; i++)
        free(reg->errors[i]);
    for (i = 0; i < reg->n_verdicts; i++)
        free(reg->verdicts[i].why);
    free(reg->verdicts);
    free(reg->plugins);
    free(reg->errors);
    free(reg->index);
    memset(reg, 0, sizeof(*reg));
}

int cairn_plugin_verdict_same(const struct cairn_plugin_verdict *a,
                              const struct cairn_plugin_verdict *b)
{
    return a->dev == b->dev && a->ino == b->ino && a->size == b->size &&
           a->mtime.tv_sec == b->mtime.tv_sec && a->mtime.tv_nsec == b->mtime.tv_nsec &&
           a->hash == b->hash;
}

void cairn_registry_free(struct cairn_registry *reg)
{
    release(reg, 1);
}

void cairn_registry_leave(struct cairn_registry *reg)
{
    release(reg, 0);
}
