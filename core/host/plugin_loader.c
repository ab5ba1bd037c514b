/*
 * plugin_loader.c - find, vet and load solver plugins from one directory.
 *
 * Every refusal names the file and the reason, so an operator reading
 * `cairnd --check` knows what to fix without reading the code.
 */
#include "plugin_loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_copy.h"
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

/* Anyone who can change a plugin file, or the directory it is listed in,
 * can make the daemon run their code: like sshd's StrictModes, only root
 * and the daemon's own user may own them, and only the owner may write.
 * what is "plugin directory" or "plugin file". */
static int vet(struct cairn_registry *reg, const char *path, const char *what,
               const struct stat *st)
{
    uid_t me = geteuid();

    if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return refuse(reg, "%s: %s is writable by group or others (mode %04o); fix with chmod go-w",
                      path, what, (unsigned)(st->st_mode & 07777));
    if (st->st_uid != 0 && st->st_uid != me)
        return refuse(reg,
                      "%s: %s is owned by uid %u; only root (uid 0) or cairnd's own user "
                      "(uid %u) may own it; fix with chown",
                      path, what, (unsigned)st->st_uid, (unsigned)me);
    return 0;
}

static int name_is_valid(const char *s)
{
    if (s == NULL || *s == '\0' || strlen(s) > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
              *s == '.'))
            return 0;
    return 1;
}

static int bounds_valid(const struct cairn_bounds *b)
{
    return b->min_len <= b->max_len && b->min_value <= b->max_value;
}

/* Bytes of a descriptor of each minor of this major: a descriptor must be
 * at least as long as the minor it declares.  1.0 ended with solve. */
#define END_OF(field) \
    (offsetof(struct cairn_plugin, field) + sizeof(((struct cairn_plugin *)0)->field))
static const size_t size_of_minor[CAIRN_PLUGIN_ABI_MINOR + 1] = {
    [0] = END_OF(solve),
    [1] = END_OF(totals),
    [2] = sizeof(struct cairn_plugin),
};
_Static_assert(CAIRN_PLUGIN_ABI_MINOR == 2,
               "a new minor: add its size to size_of_minor and its fields to "
               "cairn_plugin_adopt's defaults");

/* Fills why; returns -EINVAL, for "return problem(...)". */
static int problem(char *why, size_t why_len, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int problem(char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(why, why_len, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* The input kinds and move kinds each minor introduced, so a descriptor
 * using something newer than the minor it declares is refused rather than
 * read with a meaning its author never saw. */
static unsigned minor_of_input_kind(enum cairn_input_kind k)
{
    switch (k) {
    case CAIRN_INPUT_INT_ARRAY: return 0;
    case CAIRN_INPUT_INT: return 1;
    }
    return UINT_MAX;
}

static unsigned minor_of_moves_kind(enum cairn_moves_kind k)
{
    switch (k) {
    case CAIRN_MOVES_SIDE:
    case CAIRN_MOVES_COUNT: return 0;
    case CAIRN_MOVES_INDEX:
    case CAIRN_MOVES_SPLIT: return 1;
    }
    return UINT_MAX;
}

static int inputs_problem(const struct cairn_plugin *d, char *why, size_t why_len)
{
    size_t i;

    if (d->inputs == NULL || d->n_inputs == 0)
        return problem(why, why_len, "bad descriptor: declares no inputs");
    for (i = 0; i < d->n_inputs; i++) {
        const struct cairn_input_decl *in = &d->inputs[i];
        unsigned since;

        if (in->name == NULL || *in->name == '\0')
            return problem(why, why_len, "bad descriptor: inputs[%zu] has no name", i);
        since = minor_of_input_kind(in->kind);
        if (since == UINT_MAX)
            return problem(why, why_len, "bad descriptor: inputs[%zu] \"%s\": unknown kind %d", i,
                           in->name, (int)in->kind);
        if (since > d->abi_minor)
            return problem(why, why_len,
                           "bad descriptor: inputs[%zu] \"%s\": kind %d needs ABI %u.%u, the "
                           "descriptor says %u.%u",
                           i, in->name, (int)in->kind, CAIRN_PLUGIN_ABI_MAJOR, since,
                           (unsigned)d->abi_major, (unsigned)d->abi_minor);
        /* A scalar's min_len/max_len are documented as ignored. */
        if (in->kind == CAIRN_INPUT_INT
                ? in->official.min_value > in->official.max_value ||
                      in->extended.min_value > in->extended.max_value
                : !bounds_valid(&in->official) || !bounds_valid(&in->extended))
            return problem(why, why_len, "bad descriptor: inputs[%zu] \"%s\" has inverted bounds",
                           i, in->name);
    }
    return 0;
}

/* equal_length: bits for declared arrays only, and at least two of them
 * (one array is always "equal" to itself: a plugin meaning something else
 * has a bug worth hearing about at load time). */
static int equal_length_problem(const struct cairn_plugin *d, char *why, size_t why_len)
{
    unsigned bit, count = 0;

    if (d->equal_length == 0)
        return 0;
    for (bit = 0; bit < 32; bit++) {
        if (!(d->equal_length & (UINT32_C(1) << bit)))
            continue;
        if (bit >= d->n_inputs)
            return problem(why, why_len,
                           "bad descriptor: equal_length 0x%" PRIx32 " has bit %u, but only %zu "
                           "inputs are declared",
                           d->equal_length, bit, d->n_inputs);
        if (d->inputs[bit].kind != CAIRN_INPUT_INT_ARRAY)
            return problem(why, why_len,
                           "bad descriptor: equal_length names inputs[%u] \"%s\", which is not an "
                           "array",
                           bit, d->inputs[bit].name);
        count++;
    }
    if (count < 2)
        return problem(why, why_len,
                       "bad descriptor: equal_length names one input; it needs at least two");
    return 0;
}

/* Returns 0 when the (normalized) descriptor is usable, or -EINVAL with
 * why naming the field at fault. */
static int descriptor_problem(const struct cairn_plugin *d, char *why, size_t why_len)
{
    size_t i;
    unsigned since;

    if (!name_is_valid(d->name))
        return problem(why, why_len, "bad descriptor: name is missing or not [a-z0-9._-]+");
    if (strcmp(d->name, CAIRN_VARIANT_UNRESOLVED) == 0)
        return problem(why, why_len,
                       "bad descriptor: the name \"%s\" is reserved (summaries, metrics and "
                       "reports count records whose variant is not known under it)",
                       CAIRN_VARIANT_UNRESOLVED);
    if (d->version == NULL || d->summary == NULL)
        return problem(why, why_len, "bad descriptor: version or summary is missing");
    if (d->aliases != NULL)
        for (i = 0; d->aliases[i] != NULL; i++) {
            if (!name_is_valid(d->aliases[i]))
                return problem(why, why_len,
                               "bad descriptor: an alias is empty or not [a-z0-9._-]+");
            if (strcmp(d->aliases[i], CAIRN_VARIANT_UNRESOLVED) == 0)
                return problem(why, why_len,
                               "bad descriptor: the alias \"%s\" is reserved (summaries, "
                               "metrics and reports count records whose variant is not known "
                               "under it)",
                               CAIRN_VARIANT_UNRESOLVED);
        }
    if (inputs_problem(d, why, why_len) != 0)
        return -EINVAL;
    if (d->answer_kind < CAIRN_ANSWER_BOOL || d->answer_kind > CAIRN_ANSWER_WINNER)
        return problem(why, why_len, "bad descriptor: answer_kind %d is unknown",
                       (int)d->answer_kind);
    since = minor_of_moves_kind(d->moves_kind);
    if (since == UINT_MAX)
        return problem(why, why_len, "bad descriptor: moves_kind %d is unknown",
                       (int)d->moves_kind);
    if (since > d->abi_minor)
        return problem(why, why_len,
                       "bad descriptor: moves_kind %d needs ABI %u.%u, the descriptor says %u.%u",
                       (int)d->moves_kind, CAIRN_PLUGIN_ABI_MAJOR, since, (unsigned)d->abi_major,
                       (unsigned)d->abi_minor);
    if (d->solve == NULL || d->scratch_bytes == NULL || d->max_moves == NULL)
        return problem(why, why_len,
                       "bad descriptor: solve, scratch_bytes or max_moves is missing");
    if (equal_length_problem(d, why, why_len) != 0)
        return -EINVAL;
    /* Analysis is all or nothing: a value kind without its callbacks (or
     * callbacks without a meaning for their values) is a half-built
     * plugin, better refused at load time than at the first record. */
    if ((unsigned)d->value_kind > CAIRN_VALUE_WINNER)
        return problem(why, why_len, "bad descriptor: value_kind %d is unknown",
                       (int)d->value_kind);
    if ((d->value_kind != CAIRN_VALUE_NONE) != (d->analyze != NULL && d->max_legal_moves != NULL &&
                                                d->analysis_scratch_bytes != NULL) ||
        (d->value_kind == CAIRN_VALUE_NONE &&
         (d->analyze != NULL || d->max_legal_moves != NULL || d->analysis_scratch_bytes != NULL)))
        return problem(why, why_len,
                       "bad descriptor: analysis needs value_kind, analyze, max_legal_moves and "
                       "analysis_scratch_bytes together (or none of them)");
    if ((d->totals & ~(uint32_t)CAIRN_TOTALS_ALL) != 0)
        return problem(why, why_len,
                       "bad descriptor: totals 0x%" PRIx32 " has unknown bits (known: "
                       "CAIRN_TOTAL_ALICE, CAIRN_TOTAL_BOB, CAIRN_TOTAL_MARGIN)",
                       d->totals);
    return 0;
}

int cairn_plugin_adopt(const struct cairn_plugin *raw, struct cairn_plugin *out, char *why,
                       size_t why_len)
{
    size_t n;

    /* Only these three fields mean the same in every version. */
    if (raw->abi_major != CAIRN_PLUGIN_ABI_MAJOR)
        return problem(why, why_len,
                       "plugin ABI version %u.%u, this cairnd speaks %u.%u (major %u only): "
                       "rebuild the plugin against this cairn's header",
                       (unsigned)raw->abi_major, (unsigned)raw->abi_minor, CAIRN_PLUGIN_ABI_MAJOR,
                       CAIRN_PLUGIN_ABI_MINOR, CAIRN_PLUGIN_ABI_MAJOR);
    if (raw->abi_minor > CAIRN_PLUGIN_ABI_MINOR)
        return problem(why, why_len,
                       "plugin ABI version %u.%u, this cairnd speaks %u.%u (minors up to %u): "
                       "upgrade cairnd, or rebuild the plugin against this cairn's header",
                       (unsigned)raw->abi_major, (unsigned)raw->abi_minor, CAIRN_PLUGIN_ABI_MAJOR,
                       CAIRN_PLUGIN_ABI_MINOR, CAIRN_PLUGIN_ABI_MINOR);
    if (raw->struct_size < size_of_minor[raw->abi_minor])
        return problem(why, why_len, "descriptor is %u bytes, ABI %u.%u needs at least %zu",
                       (unsigned)raw->struct_size, (unsigned)raw->abi_major,
                       (unsigned)raw->abi_minor, size_of_minor[raw->abi_minor]);

    /* Past struct_size is someone else's memory: copy no further, and give
     * what an older minor lacks the meaning it had there. */
    n = raw->struct_size < sizeof(*out) ? raw->struct_size : sizeof(*out);
    memset(out, 0, sizeof(*out));
    memcpy(out, raw, n);
    if (n < END_OF(equal_length))
        out->equal_length = 0;
    if (n < END_OF(totals))
        out->totals = CAIRN_TOTALS_ALL;
    /* Whatever lies past 1.1 in an older minor's descriptor meant nothing
     * to its author: no analysis, even if struct_size covers the bytes. */
    if (raw->abi_minor < 2) {
        out->value_kind = CAIRN_VALUE_NONE;
        out->max_legal_moves = NULL;
        out->analysis_scratch_bytes = NULL;
        out->analyze = NULL;
    }
    return descriptor_problem(out, why, why_len);
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

/* What the probe process does with a plugin before it is loaded for
 * real: the reads load_one() makes of it, any of which may fault. */
static int exercise(void *dl)
{
    struct cairn_plugin copy;
    cairn_plugin_entry_fn entry;
    const struct cairn_plugin *d;
    char why[256];
    void *sym = dlsym(dl, CAIRN_PLUGIN_ENTRY_SYMBOL);

    if (sym == NULL)
        return -EINVAL;
    memcpy(&entry, &sym, sizeof(entry));
    d = entry();
    return d != NULL ? cairn_plugin_adopt(d, &copy, why, sizeof(why)) : -EINVAL;
}

/* Loads one file from fd, already vetted through st (a regular "*.so").
 * Returns 0, or -EINVAL with the reason added to reg->errors, or -ENOMEM. */
static int load_one(struct cairn_registry *reg, const char *path, int fd, const struct stat *st)
{
    void *dl;
    void *sym;
    const struct cairn_plugin *d;
    struct cairn_plugin *copy;
    const struct cairn_plugin_handle *other;
    char why[1024];
    const char *clash = NULL;
    struct cairn_plugin_handle *grown;
    char *path_copy;
    int copy_fd, rc;

    rc = cairn_plugin_copy_open(fd, st, path, exercise, &dl, &copy_fd, why, sizeof(why));
    if (rc != 0)
        return rc == -ENOMEM ? rc : refuse(reg, "%s: %s", path, why);
    dlerror();
    sym = dlsym(dl, CAIRN_PLUGIN_ENTRY_SYMBOL);
    if (sym == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return refuse(reg, "%s: no symbol %s: not a cairn plugin", path, CAIRN_PLUGIN_ENTRY_SYMBOL);
    }
    /* POSIX guarantees this object-to-function pointer conversion works. */
    cairn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof(entry));
    d = entry();
    if (d == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return refuse(reg, "%s: %s returned NULL", path, CAIRN_PLUGIN_ENTRY_SYMBOL);
    }
    copy = malloc(sizeof(*copy));
    if (copy == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return -ENOMEM;
    }
    if (cairn_plugin_adopt(d, copy, why, sizeof(why)) != 0) {
        rc = refuse(reg, "%s: %s", path, why);
        free(copy);
        cairn_plugin_copy_close(dl, copy_fd);
        return rc;
    }
    other = find_clash(reg, copy, &clash);
    if (other != NULL) {
        rc = refuse(reg, "%s: name or alias \"%s\" is already taken by %s (%s)", path, clash,
                    other->path, other->desc->name);
        free(copy);
        cairn_plugin_copy_close(dl, copy_fd);
        return rc;
    }

    path_copy = strdup(path);
    grown = realloc(reg->plugins, (reg->n_plugins + 1) * sizeof(*grown));
    if (grown != NULL)
        reg->plugins = grown;
    if (path_copy != NULL && grown != NULL) {
        reg->plugins[reg->n_plugins] = (struct cairn_plugin_handle){ .desc = copy,
                                                                     .path = path_copy,
                                                                     .dev = st->st_dev,
                                                                     .ino = st->st_ino,
                                                                     .dl = dl,
                                                                     .copy_fd = copy_fd };
        if (index_add(reg, reg->n_plugins) == 0) {
            reg->n_plugins++;
            return 0;
        }
    }
    free(path_copy);
    free(copy);
    cairn_plugin_copy_close(dl, copy_fd);
    return -ENOMEM;
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

struct candidates {
    char **names;
    size_t n;
};

static int add_candidate(void *data, const char *name)
{
    struct candidates *c = data;
    char **grown;

    if (name[0] == '.' || !ends_with(name, ".so"))
        return 0;
    grown = realloc(c->names, (c->n + 1) * sizeof(*c->names));
    if (grown == NULL)
        return -ENOMEM;
    c->names = grown;
    if ((c->names[c->n] = strdup(name)) == NULL)
        return -ENOMEM;
    c->n++;
    return 0;
}

/* The "*.so" names in dfd, sorted so duplicate reports are deterministic.
 * 0, or a negative errno with nothing to free. */
static int list_candidates(int dfd, char ***names_out, size_t *n_out)
{
    struct candidates c = { 0 };
    int rc = cairn_dir_each(dfd, add_candidate, &c);

    if (rc != 0) {
        while (c.n > 0)
            free(c.names[--c.n]);
        free(c.names);
        return rc;
    }
    if (c.n > 1)
        qsort(c.names, c.n, sizeof(*c.names), cmp_names);
    *names_out = c.names;
    *n_out = c.n;
    return 0;
}

/* Opens dir/name without following a link or blocking on a FIFO, and
 * vets what was opened: everything after this reads through *fd, so the
 * file loaded is the file vetted.  0, -EINVAL (refused), or -ENOMEM. */
static int open_vetted(struct cairn_registry *reg, int dfd, const char *name, const char *path,
                       int *fd, struct stat *st)
{
    int rc;

    *fd = -1;
    /* lstat first: a device or socket is refused unopened. */
    if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
        return refuse(reg, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(st->st_mode))
        return refuse(reg, "%s: not a regular file (symbolic links are not followed)", path);
    *fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (*fd < 0) {
        int err = errno;
        if (err == ELOOP)
            return refuse(reg, "%s: not a regular file (symbolic links are not followed)", path);
        return refuse(reg, "%s: cannot open: %s", path, strerror(err));
    }
    if (fstat(*fd, st) != 0) {
        int err = errno;
        close(*fd);
        *fd = -1;
        return refuse(reg, "%s: cannot stat: %s", path, strerror(err));
    }
    rc = S_ISREG(st->st_mode)
             ? vet(reg, path, "plugin file", st)
             : refuse(reg, "%s: not a regular file (symbolic links are not followed)", path);
    if (rc != 0) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}

int cairn_registry_load(struct cairn_registry *reg, const char *dir)
{
    struct stat st;
    char **names = NULL;
    size_t n = 0, i;
    int dfd;
    int rc = 0;

    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        int err = errno;
        if (err == ENOTDIR)
            return refuse(reg, "%s: not a directory", dir);
        return refuse(reg, "%s: cannot open plugin directory: %s", dir, strerror(err));
    }
    if (fstat(dfd, &st) != 0 || !S_ISDIR(st.st_mode)) {
        close(dfd);
        return refuse(reg, "%s: not a directory", dir);
    }
    /* Whoever can add or rename files here chooses the code we run: the
     * directory is vetted before anything in it is trusted. */
    if ((rc = vet(reg, dir, "plugin directory", &st)) != 0) {
        close(dfd);
        return rc;
    }
    rc = list_candidates(dfd, &names, &n);
    if (rc != 0) {
        close(dfd);
        return rc == -ENOMEM
                   ? rc
                   : refuse(reg, "%s: cannot read plugin directory: %s", dir, strerror(-rc));
    }
    for (i = 0; i < n; i++) {
        char *path = cairn_asprintf("%s/%s", dir, names[i]);
        int one, fd;

        if (path == NULL) {
            rc = -ENOMEM;
            break;
        }
        one = open_vetted(reg, dfd, names[i], path, &fd, &st);
        if (one == 0) {
            one = load_one(reg, path, fd, &st);
            close(fd);
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
    close(dfd);
    return rc;
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

void cairn_registry_free(struct cairn_registry *reg)
{
    size_t i;

    for (i = 0; i < reg->n_plugins; i++) {
        free((void *)reg->plugins[i].desc);
        cairn_plugin_copy_close(reg->plugins[i].dl, reg->plugins[i].copy_fd);
        free(reg->plugins[i].path);
    }
    for (i = 0; i < reg->n_errors; i++)
        free(reg->errors[i]);
    free(reg->plugins);
    free(reg->errors);
    free(reg->index);
    memset(reg, 0, sizeof(*reg));
}
