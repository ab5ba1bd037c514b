/*
 * plugin_loader.c - load the solver plugins of a list of directories:
 * each file vetted and copied (plugin_dir.h, plugin_copy.h), probed
 * (plugin_probe.h), then loaded and its descriptor adopted.
 *
 * Every refusal names the file and the reason, so an operator reading
 * `cairnd --check` knows what to fix without reading the code.
 */
#include "plugin_loader.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "plugin_copy.h"
#include "plugin_dir.h"
#include "plugin_entry.h"
#include "plugin_probe.h"
#include "util.h"

/* One "*.so" of a plugin directory on its way into the registry: vetted
 * and copied, then probed with the rest of the set, then loaded. */
struct candidate {
    char *path;  /* dir/name, for messages and the registry */
    int refused; /* why says why; nothing below is set */
    char why[1024];
    struct stat st; /* of the file that was vetted and copied */
    int copy_fd;    /* its sealed copy, or -1 */
    uint64_t hash;  /* of the copy's bytes */
    char name[64];  /* the copy's /proc/self/fd name */
    int probe;      /* its index in the probe, or -1: no probe (known, refused) */
};

struct candidates {
    struct candidate *c;
    size_t n, cap;
};

/* Loads c's copy into reg.  0, or -EINVAL with the reason added to
 * reg->errors, or -ENOMEM.  The copy is the registry's, or closed. */
static int load_one(struct cairn_registry *reg, struct candidate *c)
{
    void *dl;
    void *sym;
    const struct cairn_plugin *d;
    struct cairn_plugin *copy;
    struct cairn_plugin_handle h;
    char why[1024];
    int copy_fd = c->copy_fd, rc, wild;

    c->copy_fd = -1;
    if (cairn_plugin_copy_load(c->name, c->path, &dl, why, sizeof(why)) != 0) {
        close(copy_fd);
        return cairn_registry_refuse(reg, "%s: %s", c->path, why);
    }
    dlerror();
    sym = dlsym(dl, CAIRN_PLUGIN_ENTRY_SYMBOL);
    if (sym == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return cairn_registry_refuse(reg, "%s: no symbol %s: not a cairn plugin", c->path,
                                     CAIRN_PLUGIN_ENTRY_SYMBOL);
    }
    /* POSIX guarantees this object-to-function pointer conversion works. */
    cairn_plugin_entry_fn entry;
    memcpy(&entry, &sym, sizeof(entry));
    d = cairn_plugin_descriptor(entry, sym, &wild);
    if (d == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return wild ? cairn_registry_refuse(reg,
                                            "%s: %s returned a pointer outside the plugin's "
                                            "own memory: the file is damaged",
                                            c->path, CAIRN_PLUGIN_ENTRY_SYMBOL)
                    : cairn_registry_refuse(reg, "%s: %s returned NULL", c->path,
                                            CAIRN_PLUGIN_ENTRY_SYMBOL);
    }
    copy = malloc(sizeof(*copy));
    if (copy == NULL) {
        cairn_plugin_copy_close(dl, copy_fd);
        return -ENOMEM;
    }
    if (cairn_plugin_adopt(d, copy, why, sizeof(why)) != 0) {
        rc = cairn_registry_refuse(reg, "%s: %s", c->path, why);
        free(copy);
        cairn_plugin_copy_close(dl, copy_fd);
        return rc;
    }
    /* path is only read: the registry keeps a copy of its own. */
    h = (struct cairn_plugin_handle){ .desc = copy,
                                      .path = c->path,
                                      .dev = c->st.st_dev,
                                      .ino = c->st.st_ino,
                                      .dl = dl,
                                      .copy_fd = copy_fd };
    rc = cairn_registry_add(reg, &h);
    if (rc != 0) {
        free(copy);
        cairn_plugin_copy_close(dl, copy_fd);
    }
    return rc;
}

/* One load in progress: the files are gathered (vetted, copied) in the
 * order they are listed, handed to the probe as they come, and loaded
 * (or refused) in that same order as soon as the probe is through with
 * each, so the first of two with one name is the one that loads and the
 * refusals read in that order. */
struct load {
    struct cairn_registry *reg;
    const struct cairn_plugin_verdict *known;
    size_t n_known;
    struct candidates cs;
    struct cairn_probe *probe;
    size_t done; /* cs.c[0, done) are loaded or refused */
    int rc;      /* 0, or the first refusal's -EINVAL, or -ENOMEM */
};

/* A new candidate named path (taken), zeroed: NULL when out of memory
 * (path is freed). */
static struct candidate *new_candidate(struct load *l, char *path)
{
    struct candidates *cs = &l->cs;
    struct candidate *c;

    if (path == NULL)
        return NULL;
    if (cs->n == cs->cap) {
        size_t cap = cs->cap != 0 ? 2 * cs->cap : 16;
        struct candidate *grown = realloc(cs->c, cap * sizeof(*grown));

        if (grown == NULL) {
            free(path);
            return NULL;
        }
        cs->c = grown;
        cs->cap = cap;
    }
    c = &cs->c[cs->n++];
    memset(c, 0, sizeof(*c));
    c->path = path;
    c->copy_fd = -1;
    c->probe = -1;
    return c;
}

/* What a verdict on c's file is known by (why NULL). */
static struct cairn_plugin_verdict verdict_key(const struct candidate *c)
{
    return (struct cairn_plugin_verdict){ .dev = c->st.st_dev,
                                          .ino = c->st.st_ino,
                                          .size = c->st.st_size,
                                          .mtime = c->st.st_mtim,
                                          .hash = c->hash };
}

/* The verdict known of c's file: same device, inode, size, modification
 * time and bytes.  NULL when there is none. */
static const struct cairn_plugin_verdict *known_verdict(const struct load *l,
                                                        const struct candidate *c)
{
    struct cairn_plugin_verdict key = verdict_key(c);
    size_t i;

    for (i = 0; i < l->n_known; i++)
        if (cairn_plugin_verdict_same(&l->known[i], &key))
            return &l->known[i];
    return NULL;
}

/* Keeps the verdict on c (why: NULL, or the refusal) in reg.  0 or -ENOMEM. */
static int keep_verdict(struct cairn_registry *reg, const struct candidate *c, const char *why)
{
    struct cairn_plugin_verdict *v = realloc(reg->verdicts, (reg->n_verdicts + 1) * sizeof(*v));

    if (v == NULL)
        return -ENOMEM;
    reg->verdicts = v;
    v += reg->n_verdicts;
    *v = verdict_key(c);
    if (why != NULL && (v->why = strdup(why)) == NULL)
        return -ENOMEM;
    reg->n_verdicts++;
    return 0;
}

/* Loads or refuses, in order, every candidate the probe is through with
 * (wait: waits for them all).  0 or -ENOMEM; l->rc keeps the first
 * refusal. */
static int settle(struct load *l, int wait)
{
    for (; l->done < l->cs.n; l->done++) {
        struct candidate *c = &l->cs.c[l->done];
        int one;

        if (c->probe >= 0) {
            char why[sizeof(c->why)];
            enum cairn_probe_state st =
                cairn_probe_state(l->probe, (size_t)c->probe, wait, why, sizeof(why));

            if (st == CAIRN_PROBE_PENDING)
                return 0;
            if (st == CAIRN_PROBE_REFUSED) {
                c->refused = 1;
                snprintf(c->why, sizeof(c->why), "%s", why);
            }
            /* Unknown (no probe could run): nothing to keep. */
            if (st != CAIRN_PROBE_UNKNOWN &&
                keep_verdict(l->reg, c, c->refused ? c->why : NULL) != 0)
                return -ENOMEM;
            c->probe = -1;
        }
        if (c->refused) {
            if (c->copy_fd >= 0)
                close(c->copy_fd);
            c->copy_fd = -1;
            one = cairn_registry_refuse(l->reg, "%s: %s", c->path, c->why);
        } else {
            one = load_one(l->reg, c);
        }
        free(c->path);
        c->path = NULL;
        if (one == -ENOMEM) {
            l->done++;
            return one;
        }
        if (one != 0 && l->rc == 0)
            l->rc = one;
    }
    return 0;
}

/* dir/name as a new candidate, vetted and copied, or refused with why;
 * then known's verdict on it, or the probe's to come.  0 or -ENOMEM. */
static int gather_one(struct load *l, int dfd, const char *dir, const char *name)
{
    struct candidate *c = new_candidate(l, cairn_asprintf("%s/%s", dir, name));
    const struct cairn_plugin_verdict *v;
    int fd, rc;

    if (c == NULL)
        return -ENOMEM;
    rc = cairn_plugin_dir_open(dfd, name, &fd, &c->st, c->why, sizeof(c->why));
    if (rc == 0) {
        rc = cairn_plugin_copy_make(fd, &c->st, c->path, &c->copy_fd, &c->hash, c->name,
                                    sizeof(c->name), c->why, sizeof(c->why));
        close(fd);
    }
    if (rc != 0) {
        c->refused = 1;
        return rc == -ENOMEM ? rc : 0;
    }
    if ((v = known_verdict(l, c)) != NULL) {
        if (v->why != NULL) {
            c->refused = 1;
            snprintf(c->why, sizeof(c->why), "%s", v->why);
        }
        l->reg->reused++;
        return keep_verdict(l->reg, c, v->why);
    }
    c->probe = cairn_probe_add(l->probe, c->copy_fd);
    return c->probe < 0 ? c->probe : 0;
}

/* A refusal of the directory itself, in its place among the files. */
static int refuse_dir(struct load *l, const char *dir, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int refuse_dir(struct load *l, const char *dir, const char *fmt, ...)
{
    struct candidate *c = new_candidate(l, strdup(dir));
    va_list ap;

    if (c == NULL)
        return -ENOMEM;
    c->refused = 1;
    va_start(ap, fmt);
    vsnprintf(c->why, sizeof(c->why), fmt, ap);
    va_end(ap);
    return 0;
}

/* Every "*.so" of dir, gathered.  0 or -ENOMEM. */
static int gather_dir(struct load *l, const char *dir)
{
    struct stat st;
    char **names = NULL, why[512];
    size_t n = 0, i;
    int dfd, rc;

    dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd < 0) {
        int err = errno;
        if (err == ENOTDIR)
            return refuse_dir(l, dir, "not a directory");
        return refuse_dir(l, dir, "cannot open plugin directory: %s", strerror(err));
    }
    /* O_DIRECTORY opened a directory: only its owner and mode are left to
     * check. */
    if (fstat(dfd, &st) != 0) {
        int err = errno;
        close(dfd);
        return refuse_dir(l, dir, "cannot stat plugin directory: %s", strerror(err));
    }
    /* Whoever can add or rename files here chooses the code we run: the
     * directory is vetted before anything in it is trusted. */
    if (cairn_plugin_vet("plugin directory", &st, why, sizeof(why)) != 0) {
        close(dfd);
        return refuse_dir(l, dir, "%s", why);
    }
    rc = cairn_plugin_dir_list(dfd, &names, &n);
    if (rc != 0) {
        close(dfd);
        return rc == -ENOMEM
                   ? rc
                   : refuse_dir(l, dir, "cannot read plugin directory: %s", strerror(-rc));
    }
    for (i = 0; i < n && rc == 0; i++) {
        rc = gather_one(l, dfd, dir, names[i]);
        if (rc == 0)
            rc = settle(l, 0);
    }
    for (i = 0; i < n; i++)
        free(names[i]);
    free(names);
    close(dfd);
    return rc;
}

int cairn_registry_load_dirs(struct cairn_registry *reg, const char *const *dirs, size_t n_dirs,
                             const struct cairn_plugin_verdict *known, size_t n_known)
{
    struct load l = { .reg = reg, .known = known, .n_known = n_known };
    size_t i;
    int rc = 0;

    /* With nothing known, every file goes to the probe: start it now. */
    if ((l.probe = cairn_probe_new(cairn_plugin_exercise, n_known == 0)) == NULL)
        return -ENOMEM;
    for (i = 0; i < n_dirs && rc == 0; i++)
        rc = gather_dir(&l, dirs[i]);
    if (rc == 0)
        rc = settle(&l, 1);
    reg->probes = cairn_probe_children(l.probe);
    for (i = l.done; i < l.cs.n; i++) { /* out of memory half-way */
        if (l.cs.c[i].copy_fd >= 0)
            close(l.cs.c[i].copy_fd);
        free(l.cs.c[i].path);
    }
    /* After the loads: the probe process's exit ran beside them. */
    cairn_probe_free(l.probe);
    free(l.cs.c);
    return rc != 0 ? rc : l.rc;
}

int cairn_registry_load(struct cairn_registry *reg, const char *dir)
{
    return cairn_registry_load_dirs(reg, &dir, 1, NULL, 0);
}
