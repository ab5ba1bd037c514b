/*
 * tmpfile.c - uniquely named, locked temporary outputs, and the sweep that
 * removes those a dead writer left behind.
 */
#include "tmpfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <unistd.h>

#include "util.h"

#define PREFIX     ".cairn."
#define PREFIX_LEN 7
#define HEX_LEN    32

int cairn_tmpfile_random(unsigned char *r, size_t len)
{
    size_t got = 0;

    while (got < len) {
        ssize_t n = getrandom(r + got, len - got, 0);
        if (n < 0) {
            if (errno == EINTR)
                continue;
            return -errno;
        }
        got += (size_t)n;
    }
    return 0;
}

static void hex_of(char *out, const unsigned char *r, size_t len)
{
    static const char hex[] = "0123456789abcdef";

    for (size_t i = 0; i < len; i++) {
        *out++ = hex[r[i] >> 4];
        *out++ = hex[r[i] & 15];
    }
    *out = '\0';
}

/* The name of the random bytes r. */
static void name_of(char out[CAIRN_TMPFILE_NAME_MAX], const unsigned char r[CAIRN_TMPFILE_RANDOM],
                    char kind)
{
    char hex[2 * CAIRN_TMPFILE_RANDOM + 1];

    hex_of(hex, r, CAIRN_TMPFILE_RANDOM);
    snprintf(out, CAIRN_TMPFILE_NAME_MAX, PREFIX "%s.%c.tmp", hex, kind);
}

/* 1 when dir_fd/name is still the file whose fstat(2) is held. */
static int names_held(int dir_fd, const char *name, const struct stat *held)
{
    struct stat now;

    return fstatat(dir_fd, name, &now, AT_SYMLINK_NOFOLLOW) == 0 && now.st_dev == held->st_dev &&
           now.st_ino == held->st_ino;
}

/* Creates and locks dir_fd/name.  unguessable: the name is one of
 * name_of()'s, of bytes no other writer has, so once the file is
 * locked whatever the name holds is the file created here. */
static int create(struct cairn_tmpfile *t, int dir_fd, const char *name, mode_t mode,
                  int unguessable)
{
    struct stat st;
    int rc;

    t->dir_fd = dir_fd;
    snprintf(t->name, sizeof(t->name), "%s", name);
    /* O_EXCL: a file, link or FIFO already there is someone else's. */
    t->fd = openat(dir_fd, t->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
    if (t->fd < 0)
        return -errno;
    /* Between the create and the lock, a sweep may take the file for a
     * dead writer's: it then holds the lock (we fail here) or has removed
     * the name (the check below).  Either way, give up this name. */
    if (flock(t->fd, LOCK_EX | LOCK_NB) != 0) {
        rc = errno == EWOULDBLOCK ? -EEXIST : -errno;
        close(t->fd);
        t->fd = -1;
        return rc;
    }
    /* A name of the caller's choosing may have been made again by someone
     * else once a sweep removed ours: the name must still hold our file.
     * An unguessable one is ours if it is there at all, and its lookup
     * alone gives the file's device and inode (a system call a
     * temporary less, two a job). */
    if (unguessable ? fstatat(dir_fd, t->name, &st, AT_SYMLINK_NOFOLLOW) != 0
                    : fstat(t->fd, &st) != 0 || !names_held(dir_fd, t->name, &st)) {
        close(t->fd);
        t->fd = -1;
        return -EEXIST;
    }
    t->dev = st.st_dev;
    t->ino = st.st_ino;
    return 0;
}

int cairn_tmpfile_create(struct cairn_tmpfile *t, int dir_fd, const char *name, mode_t mode)
{
    return create(t, dir_fd, name, mode, 0);
}

int cairn_tmpfile_open_as(struct cairn_tmpfile *t, int dir_fd,
                          const unsigned char r[CAIRN_TMPFILE_RANDOM], char kind, mode_t mode)
{
    unsigned char fresh[CAIRN_TMPFILE_RANDOM];
    char name[CAIRN_TMPFILE_NAME_MAX];
    int tries, rc = -EEXIST;

    t->fd = -1;
    /* EEXIST: someone planted the name, or a starting daemon's sweep took
     * our file in the instant before we locked it.  Another name. */
    for (tries = 0; tries < 4 && rc == -EEXIST; tries++) {
        if (tries > 0 || r == NULL) {
            if ((rc = cairn_tmpfile_random(fresh, sizeof(fresh))) != 0)
                return rc;
            r = fresh;
        }
        name_of(name, r, kind);
        rc = create(t, dir_fd, name, mode, 1);
    }
    return rc;
}

/* ---- owners ------------------------------------------------------------ */

#define LOCK_SUFFIX     ".lock"
#define LOCK_SUFFIX_LEN 5
#define OWNED_RANDOM    (CAIRN_TMPOWNER_HEX / 2) /* bytes of an owned name */

/* ".cairn.<id>.lock" */
static void lock_name(char out[CAIRN_TMPFILE_NAME_MAX], const char *id)
{
    snprintf(out, CAIRN_TMPFILE_NAME_MAX, PREFIX "%s" LOCK_SUFFIX, id);
}

int cairn_tmpowner_open(struct cairn_tmpowner *o, int dir_fd)
{
    unsigned char r[CAIRN_TMPOWNER_HEX / 2];
    struct cairn_tmpfile lock;
    char name[CAIRN_TMPFILE_NAME_MAX];
    int tries, rc = -EEXIST;

    o->fd = -1;
    /* The lock file is made like a temporary: created, locked, then
     * looked up by name, so a sweep that took it before our lock is
     * noticed (-EEXIST) and another name drawn. */
    for (tries = 0; tries < 4 && rc == -EEXIST; tries++) {
        if ((rc = cairn_tmpfile_random(r, sizeof(r))) != 0)
            return rc;
        hex_of(o->id, r, sizeof(r));
        lock_name(name, o->id);
        rc = create(&lock, dir_fd, name, 0600, 1);
    }
    if (rc != 0)
        return rc;
    o->fd = lock.fd;
    atomic_init(&o->next, 0);
    return 0;
}

int cairn_tmpowner_close(struct cairn_tmpowner *o, int dir_fd)
{
    char name[CAIRN_TMPFILE_NAME_MAX];
    int rc = 0;

    if (o->fd < 0)
        return 0;
    lock_name(name, o->id);
    /* Removed while still locked: a sweep never sees it unlocked. */
    if (unlinkat(dir_fd, name, 0) != 0 && errno != ENOENT)
        rc = -errno;
    close(o->fd);
    o->fd = -1;
    return rc;
}

/* The 8 bytes of n, most significant first: its name reads as hex. */
static void number_bytes(unsigned char r[OWNED_RANDOM], uint64_t n)
{
    int i;

    for (i = OWNED_RANDOM - 1; i >= 0; i--, n >>= 8)
        r[i] = (unsigned char)(n & 0xff);
}

int cairn_tmpfile_open_owned(struct cairn_tmpfile *t, int dir_fd, struct cairn_tmpowner *o,
                             char kind, mode_t mode)
{
    unsigned char r[OWNED_RANDOM];
    char hex[CAIRN_TMPOWNER_HEX + 1];
    int tries;

    t->fd = -1;
    t->dir_fd = dir_fd;
    /* EEXIST: someone planted the name.  No sweep can take ours: the
     * owner's lock is held. */
    for (tries = 0; tries < 4; tries++) {
        if (tries == 0) {
            number_bytes(r, atomic_fetch_add_explicit(&o->next, 1, memory_order_relaxed));
        } else {
            int rc = cairn_tmpfile_random(r, sizeof(r));

            if (rc != 0)
                return rc;
        }
        hex_of(hex, r, OWNED_RANDOM);
        snprintf(t->name, sizeof(t->name), PREFIX "%s-%s.%c.tmp", o->id, hex, kind);
        t->fd = openat(dir_fd, t->name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);
        if (t->fd >= 0) {
            t->dev = 0;
            t->ino = 0;
            return 0;
        }
        if (errno != EEXIST)
            return -errno;
    }
    return -EEXIST;
}

int cairn_tmpfile_open(struct cairn_tmpfile *t, int dir_fd, char kind, mode_t mode)
{
    return cairn_tmpfile_open_as(t, dir_fd, NULL, kind, mode);
}

int cairn_tmpfile_write_sync(struct cairn_tmpfile *t, const void *data, size_t len)
{
    int rc = cairn_write_all(t->fd, data, len);

    if (rc == 0 && fsync(t->fd) != 0)
        rc = -errno;
    return rc;
}

int cairn_tmpfile_commit(struct cairn_tmpfile *t, const char *name)
{
    int rc;

    if (t->fd < 0)
        return -EBADF;
    /* Renamed while still locked, so no sweep can take it in between. */
    if (renameat(t->dir_fd, t->name, t->dir_fd, name) != 0) {
        rc = -errno;
        cairn_tmpfile_discard(t);
        return rc;
    }
    /* The data is in place: a failing close(2) cannot take it back. */
    close(t->fd);
    t->fd = -1;
    return 0;
}

void cairn_tmpfile_discard(struct cairn_tmpfile *t)
{
    if (t->fd < 0)
        return;
    unlinkat(t->dir_fd, t->name, 0);
    close(t->fd);
    t->fd = -1;
}

static int all_hex(const char *s, size_t len)
{
    for (size_t i = 0; i < len; i++)
        if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
            return 0;
    return 1;
}

enum shape {
    NOT_OURS,
    TEMPORARY,
    OWNED,
    OWNER_LOCK
};

/* Ours, and nothing else (a producer's own ".x.tmp" is not):
 *   ".cairn." + 32 hex + "." + one letter + ".tmp"            TEMPORARY
 *   ".cairn." + 16 hex + "-" + 16 hex + "." + letter + ".tmp"  OWNED
 *   ".cairn." + 16 hex + ".lock"                              OWNER_LOCK */
static enum shape shape_of(const char *name)
{
    size_t n = strlen(name);
    const char *h = name + PREFIX_LEN;

    if (n < PREFIX_LEN || strncmp(name, PREFIX, PREFIX_LEN) != 0)
        return NOT_OURS;
    if (n == PREFIX_LEN + CAIRN_TMPOWNER_HEX + LOCK_SUFFIX_LEN &&
        strcmp(name + n - LOCK_SUFFIX_LEN, LOCK_SUFFIX) == 0 && all_hex(h, CAIRN_TMPOWNER_HEX))
        return OWNER_LOCK;
    if (n == PREFIX_LEN + HEX_LEN + 6 && strcmp(name + n - 4, ".tmp") == 0 &&
        name[PREFIX_LEN + HEX_LEN] == '.' && all_hex(h, HEX_LEN))
        return TEMPORARY;
    if (n == PREFIX_LEN + 2 * CAIRN_TMPOWNER_HEX + 7 && strcmp(name + n - 4, ".tmp") == 0 &&
        h[2 * CAIRN_TMPOWNER_HEX + 1] == '.' && h[CAIRN_TMPOWNER_HEX] == '-' &&
        all_hex(h, CAIRN_TMPOWNER_HEX) && all_hex(h + CAIRN_TMPOWNER_HEX + 1, CAIRN_TMPOWNER_HEX))
        return OWNED;
    return NOT_OURS;
}

/* Removes dir_fd/name when it is a dead writer's temporary: a regular file
 * nobody holds the lock of.  It is unlinked while we hold that lock, and
 * only if the name still is that file, so a writer that raced us notices
 * (cairn_tmpfile_create) and a renamed-away output is never touched.
 * 1 when removed. */
static int remove_if_stale(int dir_fd, const char *name)
{
    struct stat st;
    int fd, removed = 0;

    /* O_NONBLOCK: a FIFO planted under our name must not hang the sweep. */
    fd = openat(dir_fd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    if (fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0 &&
        names_held(dir_fd, name, &st))
        removed = unlinkat(dir_fd, name, 0) == 0;
    close(fd);
    return removed;
}

/* 1 when nobody holds the lock of the owner whose temporary name is (or
 * its lock file is gone); 0 when it lives, or cannot be told (a lock
 * file that is not a regular file: its temporaries are kept). */
static int owner_dead(int dir_fd, const char *name)
{
    char id[CAIRN_TMPOWNER_HEX + 1], lock[CAIRN_TMPFILE_NAME_MAX];
    struct stat st;
    int fd, dead;

    memcpy(id, name + PREFIX_LEN, CAIRN_TMPOWNER_HEX);
    id[CAIRN_TMPOWNER_HEX] = '\0';
    lock_name(lock, id);
    fd = openat(dir_fd, lock, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOENT;
    dead = fstat(fd, &st) == 0 && S_ISREG(st.st_mode) && flock(fd, LOCK_EX | LOCK_NB) == 0;
    close(fd);
    return dead;
}

/* An owner's temporary, removed when its owner is dead: a regular file,
 * never followed.  1 when removed. */
static int remove_if_orphan(int dir_fd, const char *name)
{
    struct stat st;

    if (fstatat(dir_fd, name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
        !owner_dead(dir_fd, name))
        return 0;
    return unlinkat(dir_fd, name, 0) == 0;
}

struct sweep {
    int dir_fd;
    int removed;
};

static int sweep_one(void *data, const char *name)
{
    struct sweep *sw = data;

    switch (shape_of(name)) {
    case TEMPORARY: sw->removed += remove_if_stale(sw->dir_fd, name); break;
    case OWNED: sw->removed += remove_if_orphan(sw->dir_fd, name); break;
    /* Not counted: no writer's output was lost with it. */
    case OWNER_LOCK: (void)remove_if_stale(sw->dir_fd, name); break;
    case NOT_OURS: break;
    }
    return 0;
}

int cairn_tmpfile_sweep(int dir_fd)
{
    struct sweep sw = { .dir_fd = dir_fd };
    int rc = cairn_dir_each(dir_fd, sweep_one, &sw);

    return rc < 0 ? rc : sw.removed;
}
