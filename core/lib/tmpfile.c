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

/* The name of the random bytes r. */
static void name_of(char out[CAIRN_TMPFILE_NAME_MAX], const unsigned char r[CAIRN_TMPFILE_RANDOM],
                    char kind)
{
    static const char hex[] = "0123456789abcdef";
    char *p = out;

    memcpy(p, PREFIX, PREFIX_LEN);
    p += PREFIX_LEN;
    for (size_t i = 0; i < CAIRN_TMPFILE_RANDOM; i++) {
        *p++ = hex[r[i] >> 4];
        *p++ = hex[r[i] & 15];
    }
    snprintf(p, CAIRN_TMPFILE_NAME_MAX - (size_t)(p - out), ".%c.tmp", kind);
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

/* ".cairn." + 32 hex digits + "." + one letter + ".tmp": ours, and nothing
 * else (a producer's own ".x.tmp" is not). */
static int is_ours(const char *name)
{
    size_t n = strlen(name), i;

    if (n != PREFIX_LEN + HEX_LEN + 6 || strncmp(name, PREFIX, PREFIX_LEN) != 0 ||
        strcmp(name + n - 4, ".tmp") != 0 || name[PREFIX_LEN + HEX_LEN] != '.')
        return 0;
    for (i = PREFIX_LEN; i < PREFIX_LEN + HEX_LEN; i++)
        if (!((name[i] >= '0' && name[i] <= '9') || (name[i] >= 'a' && name[i] <= 'f')))
            return 0;
    return 1;
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

struct sweep {
    int dir_fd;
    int removed;
};

static int sweep_one(void *data, const char *name)
{
    struct sweep *sw = data;

    if (is_ours(name))
        sw->removed += remove_if_stale(sw->dir_fd, name);
    return 0;
}

int cairn_tmpfile_sweep(int dir_fd)
{
    struct sweep sw = { .dir_fd = dir_fd };
    int rc = cairn_dir_each(dir_fd, sweep_one, &sw);

    return rc < 0 ? rc : sw.removed;
}
