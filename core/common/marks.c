/*
 * marks.c - the records of a claimed file's names in .cairn/active/ (see
 * marks.h).
 *
 * No fsync, like the crash count (attempts.c): a crashed process loses
 * nothing from the page cache, and a power loss loses at most a mark,
 * whose absence only means a new name at the next claim.
 */
#include "marks.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "layout.h"
#include "names.h"
#include "util.h"

/* "INODE LEN1 LEN2\n" then the two names' bytes: a name may hold any byte
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

int cairn_marks_note_submitted(int active_fd, const char *name, ino_t ino, const char *as)
{
    return record_write(active_fd, CAIRN_RECORD_SUBMITTED, name, ino, as, NULL);
}

int cairn_marks_submitted(int active_fd, const char *name, ino_t ino, char **as)
{
    return record_read(active_fd, CAIRN_RECORD_SUBMITTED, name, ino, as, NULL);
}

void cairn_marks_forget_submitted(int active_fd, const char *name)
{
    record_forget(active_fd, CAIRN_RECORD_SUBMITTED, name);
}

int cairn_marks_note_handback(int active_fd, const char *back_as, ino_t ino, const char *ran_as,
                              const char *submitted)
{
    return record_write(active_fd, CAIRN_RECORD_HANDBACK, back_as, ino, ran_as, submitted);
}

int cairn_marks_handback(int active_fd, const char *back_as, ino_t ino, char **ran_as,
                         char **submitted)
{
    return record_read(active_fd, CAIRN_RECORD_HANDBACK, back_as, ino, ran_as, submitted);
}

void cairn_marks_forget_handback(int active_fd, const char *back_as)
{
    record_forget(active_fd, CAIRN_RECORD_HANDBACK, back_as);
}
