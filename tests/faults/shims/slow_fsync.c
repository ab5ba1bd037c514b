/*
 * slow_fsync.c - LD_PRELOAD shim for test_daemon: a disk slow to make a
 * file durable, but only where a test wants it.  fsync(2) of a file whose
 * name ends in $CAIRN_SLOW_FSYNC_SUFFIX, called on any thread but the
 * main one (in cairnd: a pool thread, not the loop), first sleeps
 * $CAIRN_SLOW_FSYNC_MS.  So a write the daemon left on its pool is still
 * in flight when the loop decides to end the run.
 */
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int wanted(int fd)
{
    const char *suffix = getenv("CAIRN_SLOW_FSYNC_SUFFIX");
    char link[64], name[PATH_MAX];
    size_t ls;
    ssize_t n;

    if (suffix == NULL || syscall(SYS_gettid) == getpid())
        return 0;
    snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
    n = readlink(link, name, sizeof(name) - 1);
    if (n < 0)
        return 0;
    name[n] = '\0';
    ls = strlen(suffix);
    return (size_t)n >= ls && strcmp(name + n - ls, suffix) == 0;
}

int fsync(int fd)
{
    static int (*real)(int);
    const char *ms = getenv("CAIRN_SLOW_FSYNC_MS");

    if (real == NULL)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (ms != NULL && wanted(fd)) {
        long v = atol(ms);
        struct timespec ts = { v / 1000, (v % 1000) * 1000000L };

        nanosleep(&ts, NULL);
    }
    return real(fd);
}
