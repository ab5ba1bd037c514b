/*
 * oom_fault.c - LD_PRELOAD shim: the Nth allocation fails, for
 * test_oom_faults.c's sweep.
 *
 * Environment (nothing happens without CAIRN_OOM_N):
 *   CAIRN_OOM_N    which call of malloc, calloc, realloc (and so strdup,
 *                  strndup, asprintf, jansson's and libuv's allocations,
 *                  which all come here) returns NULL with ENOMEM; 1 = the
 *                  first in the process
 *   CAIRN_OOM_LOG  when it fires, "fired N" is appended here
 * glibc's __libc_* entry points do the real work, so no lookup through
 * dlsym (which allocates) is needed.  A child process (the plugin probe)
 * inherits the count; its own failures do not touch the parent's.
 *
 * libuv aborts where it cannot go on without memory (its signal pipe in
 * uv_loop_init, its thread pool's start): a SIGABRT appends its backtrace
 * to the log, so the test can tell libuv's abort from one of ours.
 *
 * In a coverage build (scripts/coverage) gcov's exit handler writes the
 * counts and allocates while doing so, unchecked: its failures are not
 * cairnd's.  It reads GCOV_PREFIX_STRIP first, so getenv is wrapped here
 * and that read turns the shim off for the rest of the process.
 */
#include <errno.h>
#include <execinfo.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static long fail_at = -1; /* -1: not read yet; 0: off */
static long seen;

extern char **environ;

/* glibc's getenv, by hand: the shim must see gcov's first read. */
char *getenv(const char *name)
{
    size_t len = strlen(name);

    if (strcmp(name, "GCOV_PREFIX_STRIP") == 0)
        __atomic_store_n(&fail_at, 0, __ATOMIC_SEQ_CST);
    for (char **e = environ; e != NULL && *e != NULL; e++)
        if (strncmp(*e, name, len) == 0 && (*e)[len] == '=')
            return *e + len + 1;
    return NULL;
}

static int fires(void)
{
    long k;

    if (fail_at < 0) {
        const char *n = getenv("CAIRN_OOM_N");
        fail_at = n != NULL ? atol(n) : 0;
    }
    if (fail_at == 0)
        return 0;
    k = __atomic_add_fetch(&seen, 1, __ATOMIC_SEQ_CST);
    if (k != fail_at)
        return 0;
    {
        const char *log = getenv("CAIRN_OOM_LOG");
        char line[64];
        int fd, len;

        /* No stdio here: it allocates. */
        if (log != NULL && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) >= 0) {
            len = snprintf(line, sizeof(line), "fired %ld\n", k);
            if (write(fd, line, (size_t)len) < 0)
                len = 0;
            close(fd);
        }
    }
    errno = ENOMEM;
    return 1;
}

static void on_abort(int sig)
{
    const char *log = getenv("CAIRN_OOM_LOG");
    void *frames[64];
    int n = backtrace(frames, 64), fd;

    if (log != NULL && (fd = open(log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644)) >= 0) {
        backtrace_symbols_fd(frames, n, fd);
        close(fd);
    }
    signal(sig, SIG_DFL);
    raise(sig);
}

__attribute__((constructor)) static void setup(void)
{
    void *frame[1];

    if (getenv("CAIRN_OOM_N") == NULL)
        return;
    backtrace(frame, 1); /* loads libgcc_s now, not in the handler */
    signal(SIGABRT, on_abort);
}

void *malloc(size_t n)
{
    return fires() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return fires() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return fires() ? NULL : __libc_realloc(p, n);
}
