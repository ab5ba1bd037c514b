/*
 * attempts.c - the on-disk run counter of a claimed job (see attempts.h).
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
/* The attribute's value: "COUNT" or "COUNT NOTE" (a note of the last run
 * that never ended, cairn_attempts_note). */
static void parse_value(const char *buf, unsigned *count, char *note, size_t note_len)
{
    const char *sp = strchr(buf, ' ');

    if (sscanf(buf, "%u", count) != 1)
        *count = 0;
    if (note != NULL && note_len > 0)
        snprintf(note, note_len, "%s", sp != NULL ? sp + 1 : "");
}

static int xattr_count(int active_fd, const char *file, int fd, ino_t ino, int ran_before,
                       unsigned *before, char *note, size_t note_len)
{
    char buf[32 + CAIRN_ATTEMPTS_NOTE_MAX], kept[CAIRN_ATTEMPTS_NOTE_MAX] = "";
    ssize_t n;
    int old;

    /* A fresh claim's file almost never has a count: one call writes the
     * first, and only a count already there (EEXIST) is read. */
    if (!ran_before) {
        if (fsetxattr(fd, CAIRN_ATTEMPTS_XATTR, "1", 1, XATTR_CREATE) == 0) {
            *before = 0;
            if (note != NULL && note_len > 0)
                note[0] = '\0';
            return 0;
        }
        if (errno != EEXIST)
            return -errno;
    }
    n = fgetxattr(fd, CAIRN_ATTEMPTS_XATTR, buf, sizeof(buf) - 1);
    if (n < 0 && errno != ENODATA)
        return -errno;
    *before = 0;
    if (n > 0) {
        buf[n] = '\0';
        parse_value(buf, before, kept, sizeof(kept));
    } else if (ran_before &&
               (old = openat(active_fd, file, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)) >= 0) {
        /* Counted in the file form before (an earlier version, or a
         * failed attribute write): carried over, then the file goes. */
        *before = file_count(old, ino);
        close(old);
        unlinkat(active_fd, file, 0);
    }
    if (note != NULL && note_len > 0)
        snprintf(note, note_len, "%s", kept);
    /* The note stays with the count: it tells of one of the runs counted,
     * even when a later one (a kill) could say nothing. */
    n = snprintf(buf, sizeof(buf), kept[0] != '\0' ? "%u %s" : "%u", *before + 1, kept);
    return fsetxattr(fd, CAIRN_ATTEMPTS_XATTR, buf, (size_t)n, 0) == 0 ? 0 : -errno;
}

unsigned cairn_attempts_count(int active_fd, const char *name, int fd, ino_t ino, int ran_before)
{
    return cairn_attempts_count_noted(active_fd, name, fd, ino, ran_before, NULL, 0);
}

unsigned cairn_attempts_count_noted(int active_fd, const char *name, int fd, ino_t ino,
                                    int ran_before, char *note, size_t note_len)
{
    char *file = cairn_attempts_file(name);
    unsigned before = 0;
    char buf[64];
    ssize_t n;
    int cfd;

    if (file == NULL)
        return 0;
    if (note != NULL && note_len > 0)
        note[0] = '\0';
    if (fd >= 0 &&
        xattr_count(active_fd, file, fd, ino, ran_before, &before, note, note_len) == 0) {
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

void cairn_attempts_note(int fd, const char *why)
{
    char buf[32 + CAIRN_ATTEMPTS_NOTE_MAX];
    unsigned count = 0;
    ssize_t n = fgetxattr(fd, CAIRN_ATTEMPTS_XATTR, buf, sizeof(buf) - 1);
    size_t i;
    int len;

    if (n <= 0)
        return; /* counted in the file form, or not at all */
    buf[n] = '\0';
    parse_value(buf, &count, NULL, 0);
    len = snprintf(buf, sizeof(buf), "%u %.*s", count, CAIRN_ATTEMPTS_NOTE_MAX - 1, why);
    if (len < 0)
        return;
    if ((size_t)len >= sizeof(buf))
        len = (int)sizeof(buf) - 1;
    for (i = 0; i < (size_t)len; i++)
        if ((unsigned char)buf[i] < 0x20)
            buf[i] = ' '; /* one line, whatever the plugin's name holds */
    (void)fsetxattr(fd, CAIRN_ATTEMPTS_XATTR, buf, (size_t)len, 0);
}
