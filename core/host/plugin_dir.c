/*
 * plugin_dir.c - the files of a plugin directory, opened and vetted
 * (see plugin_dir.h).
 */
#include "plugin_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "util.h"

/* Anyone who can change a plugin file, or the directory it is listed in,
 * can make the daemon run their code: like sshd's StrictModes, only root
 * and the daemon's own user may own them, and only the owner may write.
 * what is "plugin directory" or "plugin file". */
int cairn_plugin_vet(const char *what, const struct stat *st, char *why, size_t why_len)
{
    uid_t me = geteuid();

    if ((st->st_mode & (S_IWGRP | S_IWOTH)) != 0)
        return cairn_refuse(why, why_len,
                            "%s is writable by group or others (mode %04o); fix with chmod go-w",
                            what, (unsigned)(st->st_mode & 07777));
    if (st->st_uid != 0 && st->st_uid != me)
        return cairn_refuse(why, why_len,
                            "%s is owned by uid %u; only root (uid 0) or cairnd's own user "
                            "(uid %u) may own it; fix with chown",
                            what, (unsigned)st->st_uid, (unsigned)me);
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

struct names {
    char **names;
    size_t n;
};

static int add_name(void *data, const char *name)
{
    struct names *c = data;
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
int cairn_plugin_dir_list(int dfd, char ***names_out, size_t *n_out)
{
    struct names c = { 0 };
    int rc = cairn_dir_each(dfd, add_name, &c);

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
 * file loaded is the file vetted.  0, or -EINVAL with why filled. */
int cairn_plugin_dir_open(int dfd, const char *name, int *fd, struct stat *st, char *why,
                          size_t why_len)
{
    static const char not_regular[] = "not a regular file (symbolic links are not followed)";
    int rc;

    *fd = -1;
    /* lstat first: a device or socket is refused unopened. */
    if (fstatat(dfd, name, st, AT_SYMLINK_NOFOLLOW) != 0)
        return cairn_refuse(why, why_len, "cannot stat: %s", strerror(errno));
    if (!S_ISREG(st->st_mode))
        return cairn_refuse(why, why_len, "%s", not_regular);
    *fd = openat(dfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (*fd < 0) {
        int err = errno;
        if (err == ELOOP)
            return cairn_refuse(why, why_len, "%s", not_regular);
        return cairn_refuse(why, why_len, "cannot open: %s", strerror(err));
    }
    if (fstat(*fd, st) != 0) {
        int err = errno;
        close(*fd);
        *fd = -1;
        return cairn_refuse(why, why_len, "cannot stat: %s", strerror(err));
    }
    rc = S_ISREG(st->st_mode) ? cairn_plugin_vet("plugin file", st, why, why_len)
                              : cairn_refuse(why, why_len, "%s", not_regular);
    if (rc != 0) {
        close(*fd);
        *fd = -1;
    }
    return rc;
}
