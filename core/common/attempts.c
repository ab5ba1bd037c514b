/*
 * attempts.c - the on-disk run counter of a claimed job, and the records
 * of its names.
 *
 * No fsync: a crashed process loses nothing from the page cache, and a
 * power loss costs at most one extra attempt; an fsync per job would cost
 * more than the rest of a small job's hand-off.
 */
#include "attempts.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/xattr.h>
#include <unistd.h>

#include "layout.h"
#include "names.h"
#include "util.h"

/* Named by a hash of the job's name, not the name itself (names.h): a
 * name near NAME_MAX leaves no room for a prefix and a suffix, and a job
 * that keeps crashing must be counted whatever its name.  The file holds
 * the job's inode, so a hash collision or a new file of the same name
 * starts at 0. */

/* The count in the file form, 0 when absent or for another inode. */
static unsigned file_count(int fd, ino_t ino)
{
    unsigned long long old_ino = 0;
    unsigned before = 0;
    char buf[64];
    ssize_t n = pread(fd, buf, sizeof(buf) - 1, 0);

    buf[n > 0 ? n : 0] = '\0';
    if (sscanf(buf, "%llu %u", &old_ino, &before) != 2 || old_ino != (unsigned long long)ino)
        before = 0;
    return before;
}

/* The attribute form: 0 with *before set, or -errno (-ENOTSUP, -EPERM:
 * this file system or file keeps none; use the file form).  ran_before:
 * look for a count in the file form too (only a job found in active/ can
 * have one: a fresh claim never ran). */
static int xattr_count(int active_fd, const char *file, int fd, ino_t ino, int ran_before,
                       unsigned *before)
{
    char buf[32];
    ssize_t n = fgetxattr(fd, CAIRN_ATTEMPTS_XATTR, buf, sizeof(buf) - 1);
    int old;

    if (n < 0 && errno != ENODATA)
        return -errno;
    *before = 0;
    if (n > 0) {
        buf[n] = '\0';
        if (sscanf(buf, "%u", before) != 1)
            *before = 0;
    } else if (ran_before &&
               (old = openat(active_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
        /* Counted in the file form before (an earlier version, or a
         * failed attribute write): carried over, then the file goes. */
        *before = file_count(old, ino);
        close(old);
        unlinkat(active_fd, file, 0);
    }
    n = snprintf(buf, sizeof(buf), "%u", *before + 1);
    return fsetxattr(fd, CAIRN_ATTEMPTS_XATTR, buf, (size_t)n, 0) == 0 ? 0 : -errno;
}

unsigned cairn_attempts_count(int active_fd, const char *name, int fd, ino_t ino, int ran_before)
{
    char *file = cairn_attempts_file(name);
    unsigned before = 0;
    char buf[64];
    ssize_t n;
    int cfd;

    if (file == NULL)
        return 0;
    if (fd >= 0 && xattr_count(active_fd, file, fd, ino, ran_before, &before) == 0) {
        free(file);
        return before;
    }
    cfd = openat(active_fd, file, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    free(file);
    if (cfd < 0)
        return before;
    {
        unsigned counted = file_count(cfd, ino);
        if (counted > before)
            before = counted; /* a failed attribute write: the larger count */
    }
    n = snprintf(buf, sizeof(buf), "%llu %u\n", (unsigned long long)ino, before + 1);
    /* Best effort: if this write fails, the worst case is one more run. */
    if (ftruncate(cfd, 0) == 0 && pwrite(cfd, buf, (size_t)n, 0) != n)
        (void)ftruncate(cfd, 0);
    close(cfd);
    return before;
}

void cairn_attempts_forget(int active_fd, const char *name, int fd)
{
    char *file;

    /* Counted in the attribute: there is no file to look for. */
    if (fd >= 0 && fremovexattr(fd, CAIRN_ATTEMPTS_XATTR) == 0)
        return;
    file = cairn_attempts_file(name);
    if (file != NULL)
        unlinkat(active_fd, file, 0);
    free(file);
}

/* ---- records of a claimed file's names ---------------------------------
 * "INODE LEN1 LEN2\n" then the two names' bytes: a name may hold any byte
 * but '/' and NUL, a newline included.  Written under a temporary name and
 * renamed, so a crash leaves the old record or the new, never a torn one
 * (a torn one would only read as absent). */

#define RECORD_MAX (64 + 2 * 256)

static int record_write(int active_fd, const char *kind, const char *key, ino_t ino, const char *a,
                        const char *b)
{
    char *file = cairn_active_record_file(kind, key);
    char *tmp = file != NULL ? cairn_asprintf("%s.new", file) : NULL;
    char *text = NULL;
    size_t la = strlen(a), lb = b != NULL ? strlen(b) : 0;
    int fd, rc = -ENOMEM;

    if (tmp == NULL)
        goto out;
    text = cairn_asprintf("%llu %zu %zu\n%s%s", (unsigned long long)ino, la, lb, a,
                          b != NULL ? b : "");
    if (text == NULL)
        goto out;
    fd = openat(active_fd, tmp, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0) {
        rc = -errno;
        goto out;
    }
    rc = cairn_write_all(fd, text, strlen(text));
    close(fd);
    if (rc == 0 && renameat(active_fd, tmp, active_fd, file) != 0)
        rc = -errno;
    if (rc != 0)
        unlinkat(active_fd, tmp, 0);
out:
    free(text);
    free(tmp);
    free(file);
    return rc;
}

/* 1 with *a (and *b, when b is not NULL and the record has one) malloc'd;
 * 0 when there is no record for this inode; -ENOMEM. */
static int record_read(int active_fd, const char *kind, const char *key, ino_t ino, char **a,
                       char **b)
{
    char *file = cairn_active_record_file(kind, key);
    char buf[RECORD_MAX + 1], *body;
    unsigned long long old_ino;
    size_t la, lb;
    ssize_t n;
    int fd;

    *a = NULL;
    if (b != NULL)
        *b = NULL;
    if (file == NULL)
        return -ENOMEM;
    fd = openat(active_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
    free(file);
    if (fd < 0)
        return 0;
    n = pread(fd, buf, RECORD_MAX, 0);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    body = memchr(buf, '\n', (size_t)n);
    if (body == NULL || sscanf(buf, "%llu %zu %zu", &old_ino, &la, &lb) != 3 ||
        old_ino != (unsigned long long)ino || la == 0 || la > 255 || lb > 255 ||
        (size_t)(buf + n - (body + 1)) != la + lb)
        return 0;
    body++;
    *a = strndup(body, la);
    if (*a != NULL && b != NULL && lb > 0 && (*b = strndup(body + la, lb)) == NULL) {
        free(*a);
        *a = NULL;
    }
    return *a != NULL ? 1 : -ENOMEM;
}

static void record_forget(int active_fd, const char *kind, const char *key)
{
    char *file = cairn_active_record_file(kind, key);

    if (file != NULL)
        unlinkat(active_fd, file, 0);
    free(file);
}

int cairn_attempts_note_submitted(int active_fd, const char *name, ino_t ino, const char *as)
{
    return record_write(active_fd, "submitted", name, ino, as, NULL);
}

int cairn_attempts_submitted(int active_fd, const char *name, ino_t ino, char **as)
{
    return record_read(active_fd, "submitted", name, ino, as, NULL);
}

void cairn_attempts_forget_submitted(int active_fd, const char *name)
{
    record_forget(active_fd, "submitted", name);
}

int cairn_attempts_note_handback(int active_fd, const char *back_as, ino_t ino, const char *ran_as,
                                 const char *submitted)
{
    return record_write(active_fd, "handback", back_as, ino, ran_as, submitted);
}

int cairn_attempts_handback(int active_fd, const char *back_as, ino_t ino, char **ran_as,
                            char **submitted)
{
    return record_read(active_fd, "handback", back_as, ino, ran_as, submitted);
}

void cairn_attempts_forget_handback(int active_fd, const char *back_as)
{
    record_forget(active_fd, "handback", back_as);
}
