/*
 * tmpfile.h - staging an output under a name no other writer can hold.
 *
 * Every file the daemon publishes (results, summaries, reasons, metrics,
 * status files) is written under ".cairn.<32 hex digits>.<kind>.tmp" and
 * renamed into place.  The 128 random bits make the name unique across
 * hosts and PID namespaces sharing one directory (a PID is not: two
 * containers' daemons can both be PID 7); O_CREAT | O_EXCL | O_NOFOLLOW
 * means a name planted in advance, a symbolic link included, is never
 * opened, only skipped.
 *
 * The writer holds an flock(2) on the file for as long as the name exists
 * (or on its owner's lock file, below: a job's results and summary), so a
 * sweep tells a dead writer's leftover (nobody holds its lock) from a
 * live one's without looking at any PID.
 */
#ifndef CAIRN_TMPFILE_H
#define CAIRN_TMPFILE_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

/* ".cairn." + 32 hex + ".k.tmp" + NUL (an owner's: 16 hex, "-", 16 hex) */
#define CAIRN_TMPFILE_NAME_MAX 48

struct cairn_tmpfile {
    int dir_fd; /* borrowed: the directory it lives in */
    int fd;     /* open for writing and locked; -1 when closed */
    char name[CAIRN_TMPFILE_NAME_MAX];
    dev_t dev; /* the file's, once created (for cairn_commit_key); 0 for */
    ino_t ino; /* an owner's temporary, which is never looked up */
};

/*
 * NAME     cairn_tmpfile_open - create and lock a fresh temporary in dir_fd
 * ARGUMENTS kind: one letter naming what it will become, for people
 *          reading the directory ('r' results, 's' summary, ...)
 * RETURNS  0, or a negative errno (t->fd is then -1)
 * NOTES    mode is passed to open(2), so the umask applies.
 */
int cairn_tmpfile_open(struct cairn_tmpfile *t, int dir_fd, char kind, mode_t mode);

/* The random bytes of one name. */
#define CAIRN_TMPFILE_RANDOM 16

/* len bytes from getrandom(2), for cairn_tmpfile_open_as.  0 or -errno. */
int cairn_tmpfile_random(unsigned char *r, size_t len);

/* cairn_tmpfile_open under the name of r, CAIRN_TMPFILE_RANDOM bytes of
 * cairn_tmpfile_random's never used for another name (NULL: drawn here):
 * a caller that makes several temporaries draws their bytes in one call.
 * Fresh bytes are drawn if that name is taken. */
int cairn_tmpfile_open_as(struct cairn_tmpfile *t, int dir_fd,
                          const unsigned char r[CAIRN_TMPFILE_RANDOM], char kind, mode_t mode);

/* The same with a name of the caller's choosing (at most
 * CAIRN_TMPFILE_NAME_MAX - 1 bytes): created only if nothing, not even a
 * dangling link, has that name.  0, -EEXIST, or another -errno. */
int cairn_tmpfile_create(struct cairn_tmpfile *t, int dir_fd, const char *name, mode_t mode);

/* Renames the temporary to name in the same directory (replacing it),
 * then closes it.  On failure the temporary is removed.  0 or -errno. */
int cairn_tmpfile_commit(struct cairn_tmpfile *t, const char *name);

/* Removes the temporary and closes it; a no-op when nothing is open. */
void cairn_tmpfile_discard(struct cairn_tmpfile *t);

/* Writes all of data, fsyncs and keeps the file open (and locked) for a
 * later commit.  0 or -errno. */
int cairn_tmpfile_write_sync(struct cairn_tmpfile *t, const void *data, size_t len);

/*
 * An owner: one lock for all of a writer's temporaries in one directory,
 * instead of an flock(2) and a look by name for each (two system calls a
 * temporary, four a daemon's job).  The owner creates and locks
 * ".cairn.<16 hex digits>.lock" once; its temporaries are named
 * ".cairn.<the owner's 16 hex>-<16 hex: a number>.<kind>.tmp" and are not
 * locked themselves.  A sweep removes such a temporary only when nobody
 * holds its owner's lock (or the lock file is gone), and removes the lock
 * file of an owner that is dead.  Since the owner's lock is held, and its
 * name checked, before any temporary of its exists, a sweep can never
 * take a live writer's temporary, not even between its create and
 * anything else.
 */
#define CAIRN_TMPOWNER_HEX 16

struct cairn_tmpowner {
    int fd; /* the lock file, locked; -1: none */
    char id[CAIRN_TMPOWNER_HEX + 1];
    /* The number the next temporary is named by: taken atomically, by
     * whichever thread opens one. */
    _Atomic uint64_t next;
};

/* Creates and locks an owner in dir_fd, after any sweep of dir_fd by this
 * process (see cairn_tmpfile_sweep).  0, or a negative errno (o->fd is
 * then -1: the caller's temporaries lock themselves). */
int cairn_tmpowner_open(struct cairn_tmpowner *o, int dir_fd);

/* Removes the owner's lock file and closes it, once none of its
 * temporaries is left; a no-op when o->fd is -1.  0, or the negative
 * errno of the removal (it is closed all the same: a sweep takes the
 * file). */
int cairn_tmpowner_close(struct cairn_tmpowner *o, int dir_fd);

/* An owner's temporary in dir_fd (o open, in that directory), named by
 * the owner's next number: one openat(2), no lock, no lookup, no bytes to
 * draw (dev and ino stay 0: for a group commit it is a fresh file on the
 * directory's device, commit.h).  Any thread.  Should the name be taken
 * (planted: no writer but the owner makes its names), fresh bytes are
 * drawn instead. */
int cairn_tmpfile_open_owned(struct cairn_tmpfile *t, int dir_fd, struct cairn_tmpowner *o,
                             char kind, mode_t mode);

/*
 * NAME     cairn_tmpfile_sweep - remove dead writers' temporaries in dir_fd
 * RETURNS  how many were removed, or a negative errno
 * NOTES    a temporary is a dead writer's when it is a regular file with
 *          the shape of our names and nobody holds its lock (its owner's,
 *          for an owner's temporary); an owner's lock file nobody holds
 *          goes too; nothing is followed.  Call it before this process stages anything in
 *          dir_fd: where flock(2) is emulated with POSIX locks (NFS), a
 *          process does not conflict with its own locks.
 */
int cairn_tmpfile_sweep(int dir_fd);

#endif /* CAIRN_TMPFILE_H */
