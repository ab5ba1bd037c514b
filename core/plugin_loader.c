/*
 * plugin_loader.c - find, vet and load solver plugins from one directory.
 *
 * Every refusal names the file and the reason, so an operator reading
 * `cairnd --check` knows what to fix without reading the code.
 */
#include "plugin_loader.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

/* Records why something was refused.  Returns -EINVAL (refused, reason
 * kept) or -ENOMEM (refused, and the reason could not be kept either). */
static int refuse(struct cairn_registry *reg, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

static int refuse(struct cairn_registry *reg, const char *fmt, ...)
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

static int writable_by_others(mode_t mode)
{
    return (mode & (S_IWGRP | S_IWOTH)) != 0;
}

static int name_is_valid(const char *s)
{
    if (s == NULL || *s == '\0' || strlen(s) > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' ||
              *s == '_' || *s == '.'))
            return 0;
    return 1;
}

static int bounds_valid(const struct cairn_bounds *b)
{
    return b->min_len <= b->max_len && b->min_value <= b->max_value;
}

/* Returns NULL when the descriptor is usable, or why not.  Only called once
 * the ABI version and size are known to match. */
static const char *descriptor_problem(const struct cairn_plugin *d)
{
    size_t i;

    if (!name_is_valid(d->name))
        return "name is missing or not [a-z0-9._-]+";
    if (d->version == NULL || d->summary == NULL)
        return "version or summary is missing";
    if (d->aliases != NULL)
        for (i = 0; d->aliases[i] != NULL; i++)
            if (!name_is_valid(d->aliases[i]))
                return "an alias is empty or not [a-z0-9._-]+";
    if (d->inputs == NULL || d->n_inputs == 0)
        return "declares no inputs";
    for (i = 0; i < d->n_inputs; i++) {
        const struct cairn_input_decl *in = &d->inputs[i];
        if (in->name == NULL || *in->name == '\0')
            return "an input has no name";
        if (in->kind != CAIRN_INPUT_INT_ARRAY)
            return "an input has an unknown kind";
        if (!bounds_valid(&in->official) || !bounds_valid(&in->extended))
            return "an input has inverted bounds";
    }
    if (d->answer_kind < CAIRN_ANSWER_BOOL || d->answer_kind > CAIRN_ANSWER_WINNER)
        return "answer_kind is unknown";
    if (d->moves_kind != CAIRN_MOVES_SIDE && d->moves_kind != CAIRN_MOVES_COUNT)
        return "moves_kind is unknown";
    if (d->solve == NULL || d->scratch_bytes == NULL || d->max_moves == NULL)
        return "solve, scratch_bytes or max_moves is missing";
    return NULL;
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

/* Loads one file, already known to be a regular "*.so".  Returns 0, or
 * -EINVAL with the reason added to reg->errors, or -ENOMEM. */
static int load_one(struct cairn_registry *reg, const char *path)
{
    void *dl;
    void *sym;
    const struct cairn_plugin *d;
    const struct cairn_plugin_handle *other;
    const char *why;
    const char *clash = NULL;
    struct cairn_plugin_handle *grown;
    char *path_copy;

    /* RTLD_NOW: a missing symbol fails here, not mid-job.  RTLD_LOCAL:
     * plugins cannot see (or clash with) each other's symbols. */
    dlerror();
    dl = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL) {
        const char *e = dlerror();
        return refuse(reg, "%s: cannot load: %s (try `ldd %s`)", path,
                         e ? e : "unknown dlopen error", path);
    }
    dlerror();
    sym = dlsym(dl, CAIRN_PLUGIN_ENTRY_SYMBOL);
    if (sym == NULL) {
        dlclose(dl);
        return refuse(reg, "%s: no symbol %s: not a cairn plugin", path,
                         CAIRN_PLUGIN_ENTRY_SYMBOL);
    }
    /* POSIX guarantees this object-to-function pointer conversion works. */
    cairn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof(entry));
    d = entry();
    if (d == NULL) {
        dlclose(dl);
        return refuse(reg, "%s: %s returned NULL", path, CAIRN_PLUGIN_ENTRY_SYMBOL);
    }
    /* Only the version fields are read before the version is known good. */
    if (d->abi_major != CAIRN_PLUGIN_ABI_MAJOR || d->abi_minor > CAIRN_PLUGIN_ABI_MINOR) {
        int rc = refuse(reg,
                           "%s: plugin ABI version %u.%u, this cairnd speaks %u.%u "
                           "(rebuild the plugin against this cairn's header)",
                           path, (unsigned)d->abi_major, (unsigned)d->abi_minor,
                           CAIRN_PLUGIN_ABI_MAJOR, CAIRN_PLUGIN_ABI_MINOR);
        dlclose(dl);
        return rc;
    }
    if (d->struct_size < sizeof(struct cairn_plugin)) {
        int rc = refuse(reg, "%s: descriptor is %u bytes, ABI %u.%u needs %zu", path,
                           (unsigned)d->struct_size, CAIRN_PLUGIN_ABI_MAJOR,
                           CAIRN_PLUGIN_ABI_MINOR, sizeof(struct cairn_plugin));
        dlclose(dl);
        return rc;
    }
    why = descriptor_problem(d);
    if (why != NULL) {
        int rc = refuse(reg, "%s: bad descriptor: %s", path, why);
        dlclose(dl);
        return rc;
    }
    other = find_clash(reg, d, &clash);
    if (other != NULL) {
        int rc = refuse(reg, "%s: name or alias \"%s\" is already taken by %s (%s)", path,
                           clash, other->path, other->desc->name);
        dlclose(dl);
        return rc;
    }

    path_copy = strdup(path);
    grown = realloc(reg->plugins, (reg->n_plugins + 1) * sizeof(*grown));
    if (path_copy == NULL || grown == NULL) {
        free(path_copy);
        if (grown != NULL)
            reg->plugins = grown;
        dlclose(dl);
        return -ENOMEM;
    }
    reg->plugins = grown;
    reg->plugins[reg->n_plugins++] = (struct cairn_plugin_handle){
        .desc = d, .path = path_copy, .dl = dl};
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The "*.so" names in dir, sorted so duplicate reports are deterministic. */
static int list_candidates(DIR *d, char ***names_out, size_t *n_out)
{
    struct dirent *e;
    char **names = NULL;
    size_t n = 0;

    while ((e = readdir(d)) != NULL) {
        char **grown;
        if (e->d_name[0] == '.' || !ends_with(e->d_name, ".so"))
            continue;
        grown = realloc(names, (n + 1) * sizeof(*names));
        if (grown == NULL)
            goto oom;
        names = grown;
        if ((names[n] = strdup(e->d_name)) == NULL)
            goto oom;
        n++;
    }
    if (n > 1)
        qsort(names, n, sizeof(*names), cmp_names);
    *names_out = names;
    *n_out = n;
    return 0;
oom:
    while (n > 0)
        free(names[--n]);
    free(names);
    return -ENOMEM;
}

int cairn_registry_load(struct cairn_registry *reg, const char *dir)
{
    struct stat st;
    DIR *d;
    char **names = NULL;
    size_t n = 0, i;
    int dfd;
    int rc = 0;

    d = opendir(dir);
    if (d == NULL) {
        int err = errno;
        return refuse(reg, "%s: cannot open plugin directory: %s", dir, strerror(err));
    }
    dfd = dirfd(d);
    if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        closedir(d);
        return refuse(reg, "%s: not a directory", dir);
    }
    /* Anyone who can write here can make the daemon run their code. */
    if (writable_by_others(st.st_mode)) {
        closedir(d);
        return refuse(reg,
                         "%s: plugin directory is writable by group or others (mode %04o); "
                         "fix with chmod go-w",
                         dir, (unsigned)(st.st_mode & 07777));
    }
    rc = list_candidates(d, &names, &n);
    if (rc != 0) {
        closedir(d);
        return rc;
    }
    for (i = 0; i < n; i++) {
        char *path = cairn_asprintf("%s/%s", dir, names[i]);
        int one;

        if (path == NULL) {
            rc = -ENOMEM;
            break;
        }
        if (fstatat(dfd, names[i], &st, AT_SYMLINK_NOFOLLOW) != 0) {
            one = refuse(reg, "%s: cannot stat: %s", path, strerror(errno));
        } else if (!S_ISREG(st.st_mode)) {
            one = refuse(reg, "%s: not a regular file (symbolic links are not followed)",
                            path);
        } else if (writable_by_others(st.st_mode)) {
            one = refuse(reg,
                            "%s: plugin file is writable by group or others (mode %04o); "
                            "fix with chmod go-w",
                            path, (unsigned)(st.st_mode & 07777));
        } else {
            one = load_one(reg, path);
        }
        free(path);
        if (one == -ENOMEM) {
            rc = one;
            break;
        }
        if (one != 0)
            rc = one;
    }
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
    closedir(d);
    return rc;
}

const struct cairn_plugin_handle *cairn_registry_find(const struct cairn_registry *reg,
                                                      const char *name)
{
    size_t i, j;

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

void cairn_registry_free(struct cairn_registry *reg)
{
    size_t i;

    for (i = 0; i < reg->n_plugins; i++) {
        dlclose(reg->plugins[i].dl);
        free(reg->plugins[i].path);
    }
    for (i = 0; i < reg->n_errors; i++)
        free(reg->errors[i]);
    free(reg->plugins);
    free(reg->errors);
    memset(reg, 0, sizeof(*reg));
}
