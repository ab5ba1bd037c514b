/*
 * plugin_loader.c - find, vet and load solver plugins from one directory.
 *
 * Every refusal names the file and the reason, so an operator reading
 * `cairnd --check` knows what to fix without reading the code.
 */
#include "plugin_loader.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_copy.h"
#include "util.h"

/* Anyone who can change a plugin file, or the directory it is listed in,
 * can make the daemon run their code: like sshd's StrictModes, only root
 * and the daemon's own user may own them, and only the owner may write.
 * what is "plugin directory" or "plugin file". */
static int vet(struct cairn_registry *reg, const char *path, const char *what,
               const struct stat *st)
{
    uid_t me = geteuid();

    if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return cairn_registry_refuse(
            reg, "%s: %s is writable by group or others (mode %04o); fix with chmod go-w", path,
            what, (unsigned)(st->st_mode & 07777));
    if (st->st_uid != 0 && st->st_uid != me)
        return cairn_registry_refuse(
            reg,
            "%s: %s is owned by uid %u; only root (uid 0) or cairnd's own user "
            "(uid %u) may own it; fix with chown",
            path, what, (unsigned)st->st_uid, (unsigned)me);
    return 0;
}

struct span {
    const void *base; /* the object's dli_fbase */
    uintptr_t from, to;
    int inside;
};

static int span_in_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct span *sp = data;
    ElfW(Half) i;

    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

        /* The segment holding the start must hold the end too. */
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && sp->from >= lo && sp->from < hi) {
            Dl_info own;

            sp->inside =
                sp->to <= hi && dladdr((const void *)lo, &own) != 0 && own.dli_fbase == sp->base;
            return 1;
        }
    }
    return 0;
}

/* 1 when the len bytes at p lie in one readable segment of the object sym
 * belongs to.  The entry's descriptor is a static of the plugin, so this
 * holds for every sound one; a damaged entry may return any value (even
 * another one in the probe process than here: a register it never set),
 * and it is checked before a byte of it is read. */
static int in_object(const void *sym, const void *p, size_t len)
{
    struct span sp = { .from = (uintptr_t)p, .to = (uintptr_t)p + len };
    Dl_info a;

    if (p == NULL || sp.to < sp.from || dladdr(sym, &a) == 0)
        return 0;
    sp.base = a.dli_fbase;
    dl_iterate_phdr(span_in_object, &sp);
    return sp.inside;
}

/* The entry's descriptor, once its header and what adopt() copies of it
 * are in the object; NULL when the entry returned NULL or wild memory
 * (*wild set). */
static const struct cairn_plugin *descriptor(cairn_plugin_entry_fn entry, const void *sym,
                                             int *wild)
{
    const struct cairn_plugin *d = entry();
    size_t n;

    *wild = 0;
    if (d == NULL)
        return NULL;
    if (!in_object(sym, d, offsetof(struct cairn_plugin, name))) {
        *wild = 1;
        return NULL;
    }
    n = d->struct_size < sizeof(*d) ? d->struct_size : sizeof(*d);
    if (!in_object(sym, d, n)) {
        *wild = 1;
        return NULL;
    }
    return d;
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
    int wild;

    if (sym == NULL)
        return -EINVAL;
    memcpy(&entry, &sym, sizeof(entry));
    d = descriptor(entry, sym, &wild);
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
    struct cairn_plugin_handle h;
    char why[1024];
    int copy_fd, rc, wild;

    rc = cairn_plugin_copy_open(fd, st, path, exercise, &dl, &copy_fd, why, sizeof(why));
    if (rc != 0)
        return rc == -ENOMEM ? rc : cairn_registry_refuse(reg, "%s: %s", path, why);
    dlerror();
    sym = dlsym(dl, CAIRN_PLUGIN_ENTRY_SYMBOL);
    if (sym == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return cairn_registry_refuse(reg, "%s: no symbol %s: not a cairn plugin", path,
                                     CAIRN_PLUGIN_ENTRY_SYMBOL);
    }
    /* POSIX guarantees this object-to-function pointer conversion works. */
    cairn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof(entry));
    d = descriptor(entry, sym, &wild);
    if (d == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return wild ? cairn_registry_refuse(reg,
                                            "%s: %s returned a pointer outside the plugin's "
                                            "own memory: the file is damaged",
                                            path, CAIRN_PLUGIN_ENTRY_SYMBOL)
                    : cairn_registry_refuse(reg, "%s: %s returned NULL", path,
                                            CAIRN_PLUGIN_ENTRY_SYMBOL);
    }
    copy = malloc(sizeof(*copy));
    if (copy == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return -ENOMEM;
    }
    if (cairn_plugin_adopt(d, copy, why, sizeof(why)) != 0) {
        rc = cairn_registry_refuse(reg, "%s: %s", path, why);
        free(copy);
        cairn_plugin_copy_close(dl, copy_fd);
        return rc;
    }
    /* path is only read: the registry keeps a copy of its own. */
    h = (struct cairn_plugin_handle){ .desc = copy,
                                      .path = (char *)path,
                                      .dev = st->st_dev,
                                      .ino = st->st_ino,
                                      .dl = dl,
                                      .copy_fd = copy_fd };
    rc = cairn_registry_add(reg, &h);
    if (rc != 0) {
        free(copy);
        cairn_plugin_copy_close(dl, copy_fd);
    }
    return rc;
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
        return cairn_registry_refuse(reg, "%s: cannot stat: %s", path, strerror(errno));
    if (!S_ISREG(st->st_mode))
        return cairn_registry_refuse(
            reg, "%s: not a regular file (symbolic links are not followed)", path);
    *fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (*fd < 0) {
        int err = errno;
        if (err == ELOOP)
            return cairn_registry_refuse(
                reg, "%s: not a regular file (symbolic links are not followed)", path);
        return cairn_registry_refuse(reg, "%s: cannot open: %s", path, strerror(err));
    }
    if (fstat(*fd, st) != 0) {
        int err = errno;
        close(*fd);
        *fd = -1;
        return cairn_registry_refuse(reg, "%s: cannot stat: %s", path, strerror(err));
    }
    rc = S_ISREG(st->st_mode)
             ? vet(reg, path, "plugin file", st)
             : cairn_registry_refuse(
                   reg, "%s: not a regular file (symbolic links are not followed)", path);
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
            return cairn_registry_refuse(reg, "%s: not a directory", dir);
        return cairn_registry_refuse(reg, "%s: cannot open plugin directory: %s", dir,
                                     strerror(err));
    }
    /* O_DIRECTORY opened a directory: only its owner and mode are left to
     * check. */
    if (fstat(dfd, &st) != 0) {
        int err = errno;
        close(dfd);
        return cairn_registry_refuse(reg, "%s: cannot stat plugin directory: %s", dir,
                                     strerror(err));
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
        return rc == -ENOMEM ? rc
                             : cairn_registry_refuse(reg, "%s: cannot read plugin directory: %s",
                                                     dir, strerror(-rc));
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
