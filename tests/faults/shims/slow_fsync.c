/*
 * slow_fsync.c - LD_PRELOAD shim for test_daemon: a disk slow to make a
 * file durable, but only where a test wants it, and for exactly as long as
 * the test wants.  fsync(2) of a file whose name ends in
 * $CAIRN_SLOW_FSYNC_SUFFIX, called on any thread but the main one (in
 * cairnd: a pool thread, not the loop), first creates the file
 * $CAIRN_SLOW_FSYNC_GATE.held, then waits while the file
 * $CAIRN_SLOW_FSYNC_GATE exists.  So a write the daemon left on its pool
 * is still in flight when the loop decides to end the run; the test knows
 * it is (.held), and lets it go on by removing the gate, or never does.
 */
#include <dlfcn.h>
#include <fcntl.h>
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

/* Says the fsync is held, then waits for the test to remove the gate. */
static void hold(const char *gate)
{
    const struct timespec tick = { 0, 10 * 1000000L };
    char held[PATH_MAX];
    int fd;

    snprintf(held, sizeof(held), "%s.held", gate);
    fd = open(held, O_WRONLY | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0)
        close(fd);
    while (access(gate, F_OK) == 0)
        nanosleep(&tick, NULL);
}

int fsync(int fd)
{
    static int (*real)(int);
    const char *gate = getenv("CAIRN_SLOW_FSYNC_GATE");

    if (real == NULL)
        real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    if (gate != NULL && wanted(fd))
        hold(gate);
    return real(fd);
}
