/*
 * syscall_fault.c - LD_PRELOAD shim: the Nth call of one kind of file
 * system call fails, for test_syscall_faults.c's sweep.
 *
 * Environment (nothing happens without CAIRN_FAULT_CALL):
 *   CAIRN_FAULT_CALL   the kind: open, read, write, fsync, fdatasync,
 *                      syncfs, rename, unlink, mkdir, fsetxattr, fgetxattr,
 *                      flock, getdents (readdir), inotify (inotify_init1,
 *                      which names no path and counts as one under
 *                      CAIRN_FAULT_UNDER, and inotify_add_watch)
 *   CAIRN_FAULT_N      which call of that kind fails (1 = the first)
 *   CAIRN_FAULT_ERRNO  EIO, ENOSPC, EINTR or EMFILE; or SHORT (read only): the call
 *                      succeeds but returns half of what it read, the rest
 *                      left unread, as a FUSE or network file system may
 *   CAIRN_FAULT_UNDER  only calls on paths under this directory count, so
 *                      start-up's reads of plugins and configuration do not
 *                      move the sweep's points (a descriptor's path is read
 *                      from /proc/self/fd; a name relative to a directory
 *                      descriptor counts by its whole path, so UNDER may
 *                      also name one file)
 *   CAIRN_FAULT_LOG    when the fault fires, one line is appended here:
 *                      "fired CALL N PATH ERRNO"
 * Only calls made through the dynamic symbol table are seen: cairnd's and
 * libuv's own, not glibc's calls to itself.  Each wrapper counts once and
 * fails before the real call, as the kernel would refuse it.
 */
/* Each wrapper is defined under its own symbol name: no redirection of
 * open to open64 and the like. */
#undef _FILE_OFFSET_BITS
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/xattr.h>
#include <unistd.h>

/* CAIRN_FAULT_ERRNO=SHORT: not an errno, a read cut short. */
#define SHORT_READ (-1)

static long fault_n = -1; /* -1: not read yet; 0: off */
static int fault_errno;
static char fault_call[32];
static char under[4096];
static size_t under_len;
static long seen;

static void setup(void)
{
    const char *c = getenv("CAIRN_FAULT_CALL"), *n = getenv("CAIRN_FAULT_N");
    const char *e = getenv("CAIRN_FAULT_ERRNO"), *u = getenv("CAIRN_FAULT_UNDER");

    if (c == NULL || n == NULL || e == NULL) {
        fault_n = 0;
        return;
    }
    snprintf(fault_call, sizeof(fault_call), "%s", c);
    fault_errno = strcmp(e, "ENOSPC") == 0   ? ENOSPC
                  : strcmp(e, "EINTR") == 0  ? EINTR
                  : strcmp(e, "EMFILE") == 0 ? EMFILE
                  : strcmp(e, "SHORT") == 0  ? SHORT_READ
                                             : EIO;
    if (u != NULL) {
        snprintf(under, sizeof(under), "%s", u);
        under_len = strlen(under);
    }
    fault_n = atol(n);
}

static int counted_path(const char *path)
{
    char abs[4096];

    if (under_len == 0)
        return 1;
    if (path == NULL)
        return 0;
    if (path[0] != '/') {
        /* Relative to a directory descriptor we cannot see: count it
         * only when the working directory is under. */
        if (getcwd(abs, sizeof(abs)) == NULL)
            return 0;
        return strncmp(abs, under, under_len) == 0;
    }
    return strncmp(path, under, under_len) == 0;
}

static int counted_fd(int fd, char *path, size_t len)
{
    char link[64];
    ssize_t n;

    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    n = readlink(link, path, len - 1);
    if (n < 0)
        return under_len == 0;
    path[n] = '\0';
    return counted_path(path);
}

/* Counts a call of kind on path; 1 when this is the one that fails. */
static int fires(const char *kind, const char *path)
{
    long k;

    if (fault_n < 0)
        setup();
    if (fault_n == 0 || strcmp(kind, fault_call) != 0 || !counted_path(path))
        return 0;
    k = __atomic_add_fetch(&seen, 1, __ATOMIC_SEQ_CST);
    if (k != fault_n)
        return 0;
    {
        const char *log = getenv("CAIRN_FAULT_LOG");
        FILE *f = log != NULL ? fopen(log, "a") : NULL;

        if (f != NULL) {
            fprintf(f, "fired %s %ld %s %s\n", kind, k, path ? path : "?",
                    fault_errno == ENOSPC       ? "ENOSPC"
                    : fault_errno == EINTR      ? "EINTR"
                    : fault_errno == EMFILE     ? "EMFILE"
                    : fault_errno == SHORT_READ ? "SHORT"
                                                : "EIO");
            fclose(f);
        }
    }
    return 1;
}

static int fires_fd(const char *kind, int fd)
{
    char path[4096];

    if (fault_n < 0)
        setup();
    if (fault_n == 0 || strcmp(kind, fault_call) != 0)
        return 0;
    return counted_fd(fd, path, sizeof(path)) && fires(kind, under_len ? path : NULL);
}

/* The next definition of name (glibc's), looked up once. */
#define REAL(name)                        \
    static __typeof__(&name) real_##name; \
    if (real_##name == NULL)              \
    real_##name = (__typeof__(&name))dlsym(RTLD_NEXT, #name)

#define FAIL_AS(value)       \
    do {                     \
        errno = fault_errno; \
        return value;        \
    } while (0)

static mode_t mode_arg(int flags, va_list ap)
{
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...)
{
    va_list ap;
    mode_t mode;
    REAL(open);

    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    if (fires("open", path))
        FAIL_AS(-1);
    return real_open(path, flags, mode);
}

int open64(const char *path, int flags, ...)
{
    va_list ap;
    mode_t mode;
    REAL(open64);

    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    if (fires("open", path))
        FAIL_AS(-1);
    return real_open64(path, flags, mode);
}

/* A path relative to dirfd, made absolute for the UNDER test (which it
 * then meets as a whole: UNDER may name one file in that directory). */
static const char *at_path(int dirfd, const char *path, char *buf, size_t len)
{
    char dir[4096], link[64];
    ssize_t n;

    if (path == NULL || path[0] == '/' || dirfd == AT_FDCWD || under_len == 0)
        return path;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
    if ((n = readlink(link, dir, sizeof(dir) - 1)) < 0)
        return NULL;
    dir[n] = '\0';
    snprintf(buf, len, "%s/%s", dir, path);
    return buf;
}

int openat(int dirfd, const char *path, int flags, ...)
{
    char buf[8192];
    va_list ap;
    mode_t mode;
    REAL(openat);

    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    if (fault_n != 0 && fires("open", at_path(dirfd, path, buf, sizeof(buf))))
        FAIL_AS(-1);
    return real_openat(dirfd, path, flags, mode);
}

int openat64(int dirfd, const char *path, int flags, ...)
{
    char buf[8192];
    va_list ap;
    mode_t mode;
    REAL(openat64);

    va_start(ap, flags);
    mode = mode_arg(flags, ap);
    va_end(ap);
    if (fault_n != 0 && fires("open", at_path(dirfd, path, buf, sizeof(buf))))
        FAIL_AS(-1);
    return real_openat64(dirfd, path, flags, mode);
}

/* A read that fired in SHORT mode: half of what was read, the rest given
 * back to the descriptor's position (whence: it moved) or simply dropped
 * (a pread, at its own offset). */
static ssize_t shortened(int fd, ssize_t got, int moved)
{
    ssize_t keep = got > 1 ? got / 2 : got;

    if (moved && keep < got)
        lseek(fd, (off_t)(keep - got), SEEK_CUR);
    return keep;
}

ssize_t read(int fd, void *buf, size_t n)
{
    REAL(read);
    if (fires_fd("read", fd)) {
        if (fault_errno == SHORT_READ)
            return shortened(fd, real_read(fd, buf, n), 1);
        FAIL_AS(-1);
    }
    return real_read(fd, buf, n);
}

ssize_t pread(int fd, void *buf, size_t n, off_t off)
{
    REAL(pread);
    if (fires_fd("read", fd)) {
        if (fault_errno == SHORT_READ)
            return shortened(fd, real_pread(fd, buf, n, off), 0);
        FAIL_AS(-1);
    }
    return real_pread(fd, buf, n, off);
}

ssize_t pread64(int fd, void *buf, size_t n, off_t off)
{
    REAL(pread64);
    if (fires_fd("read", fd)) {
        if (fault_errno == SHORT_READ)
            return shortened(fd, real_pread64(fd, buf, n, off), 0);
        FAIL_AS(-1);
    }
    return real_pread64(fd, buf, n, off);
}

ssize_t preadv(int fd, const struct iovec *iov, int n, off_t off)
{
    REAL(preadv);
    if (fires_fd("read", fd)) {
        if (fault_errno == SHORT_READ && n > 0) /* the first buffer only, at most */
            return shortened(fd, real_preadv(fd, iov, 1, off), 0);
        FAIL_AS(-1);
    }
    return real_preadv(fd, iov, n, off);
}

ssize_t write(int fd, const void *buf, size_t n)
{
    REAL(write);
    /* stdout and stderr are the daemon's log, not the spool. */
    if (fd > 2 && fires_fd("write", fd))
        FAIL_AS(-1);
    return real_write(fd, buf, n);
}

ssize_t pwrite(int fd, const void *buf, size_t n, off_t off)
{
    REAL(pwrite);
    if (fires_fd("write", fd))
        FAIL_AS(-1);
    return real_pwrite(fd, buf, n, off);
}

ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    REAL(pwrite64);
    if (fires_fd("write", fd))
        FAIL_AS(-1);
    return real_pwrite64(fd, buf, n, off);
}

ssize_t pwritev(int fd, const struct iovec *iov, int n, off_t off)
{
    REAL(pwritev);
    if (fires_fd("write", fd))
        FAIL_AS(-1);
    return real_pwritev(fd, iov, n, off);
}

ssize_t writev(int fd, const struct iovec *iov, int n)
{
    REAL(writev);
    if (fd > 2 && fires_fd("write", fd))
        FAIL_AS(-1);
    return real_writev(fd, iov, n);
}

int fsync(int fd)
{
    REAL(fsync);
    if (fires_fd("fsync", fd))
        FAIL_AS(-1);
    return real_fsync(fd);
}

int fdatasync(int fd)
{
    REAL(fdatasync);
    if (fires_fd("fdatasync", fd))
        FAIL_AS(-1);
    return real_fdatasync(fd);
}

int syncfs(int fd)
{
    REAL(syncfs);
    if (fires_fd("syncfs", fd))
        FAIL_AS(-1);
    return real_syncfs(fd);
}

int rename(const char *from, const char *to)
{
    REAL(rename);
    if (fires("rename", to))
        FAIL_AS(-1);
    return real_rename(from, to);
}

int renameat(int fd1, const char *from, int fd2, const char *to)
{
    char buf[8192];
    REAL(renameat);
    if (fault_n != 0 && fires("rename", at_path(fd2, to, buf, sizeof(buf))))
        FAIL_AS(-1);
    return real_renameat(fd1, from, fd2, to);
}

int renameat2(int fd1, const char *from, int fd2, const char *to, unsigned flags)
{
    char buf[8192];
    REAL(renameat2);
    if (fault_n != 0 && fires("rename", at_path(fd2, to, buf, sizeof(buf))))
        FAIL_AS(-1);
    return real_renameat2(fd1, from, fd2, to, flags);
}

int unlink(const char *path)
{
    REAL(unlink);
    if (fires("unlink", path))
        FAIL_AS(-1);
    return real_unlink(path);
}

int unlinkat(int dirfd, const char *path, int flags)
{
    char buf[8192];
    REAL(unlinkat);
    if (fault_n != 0 && fires("unlink", at_path(dirfd, path, buf, sizeof(buf))))
        FAIL_AS(-1);
    return real_unlinkat(dirfd, path, flags);
}

int mkdir(const char *path, mode_t mode)
{
    REAL(mkdir);
    if (fires("mkdir", path))
        FAIL_AS(-1);
    return real_mkdir(path, mode);
}

int mkdirat(int dirfd, const char *path, mode_t mode)
{
    char buf[8192];
    REAL(mkdirat);
    if (fault_n != 0 && fires("mkdir", at_path(dirfd, path, buf, sizeof(buf))))
        FAIL_AS(-1);
    return real_mkdirat(dirfd, path, mode);
}

int fsetxattr(int fd, const char *name, const void *value, size_t size, int flags)
{
    REAL(fsetxattr);
    if (fires_fd("fsetxattr", fd))
        FAIL_AS(-1);
    return real_fsetxattr(fd, name, value, size, flags);
}

ssize_t fgetxattr(int fd, const char *name, void *value, size_t size)
{
    REAL(fgetxattr);
    if (fires_fd("fgetxattr", fd))
        FAIL_AS(-1);
    return real_fgetxattr(fd, name, value, size);
}

int flock(int fd, int op)
{
    REAL(flock);
    if (fires_fd("flock", fd))
        FAIL_AS(-1);
    return real_flock(fd, op);
}

struct dirent *readdir(DIR *d)
{
    REAL(readdir);
    if (fires_fd("getdents", dirfd(d)))
        FAIL_AS(NULL);
    return real_readdir(d);
}

struct dirent64 *readdir64(DIR *d)
{
    REAL(readdir64);
    if (fires_fd("getdents", dirfd(d)))
        FAIL_AS(NULL);
    return real_readdir64(d);
}

int inotify_init1(int flags)
{
    REAL(inotify_init1);
    if (fault_n < 0)
        setup();
    if (fires("inotify", under_len ? under : NULL))
        FAIL_AS(-1);
    return real_inotify_init1(flags);
}

int inotify_add_watch(int fd, const char *path, uint32_t mask)
{
    REAL(inotify_add_watch);
    if (fires("inotify", path))
        FAIL_AS(-1);
    return real_inotify_add_watch(fd, path, mask);
}
