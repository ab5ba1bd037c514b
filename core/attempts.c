/*
 * attempts.c - the on-disk run counter of a claimed job.
 *
 * No fsync: a crashed process loses nothing from the page cache, and a
 * power loss costs at most one extra attempt; an fsync per job would cost
 * more than the rest of a small job's hand-off.
 */
#include "attempts.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "names.h"
#include "util.h"

/* Named by a hash of the job's name, not the name itself (names.h): a
 * name near NAME_MAX leaves no room for a prefix and a suffix, and a job
 * that keeps crashing must be counted whatever its name.  The file holds
 * the job's inode, so a hash collision or a new file of the same name
 * starts at 0. */

unsigned cairn_attempts_count(int active_fd, const char *name, ino_t ino)
{
    char *file = cairn_attempts_file(name);
    unsigned long long old_ino = 0;
    unsigned before = 0;
    char buf[64];
    ssize_t n;
    int fd;

    if (file == NULL)
        return 0;
    fd = openat(active_fd, file, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
    free(file);
    if (fd < 0)
        return 0;
    n = pread(fd, buf, sizeof(buf) - 1, 0);
    buf[n > 0 ? n : 0] = '\0';
    if (sscanf(buf, "%llu %u", &old_ino, &before) != 2 || old_ino != (unsigned long long)ino)
        before = 0;
    n = snprintf(buf, sizeof(buf), "%llu %u\n", (unsigned long long)ino, before + 1);
    /* Best effort: if this write fails, the worst case is one more run. */
    if (ftruncate(fd, 0) == 0 && pwrite(fd, buf, (size_t)n, 0) != n)
        (void)ftruncate(fd, 0);
    close(fd);
    return before;
}

void cairn_attempts_forget(int active_fd, const char *name)
{
    char *file = cairn_attempts_file(name);

    if (file != NULL)
        unlinkat(active_fd, file, 0);
    free(file);
}
