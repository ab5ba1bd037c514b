/*
 * plugin_probe.c - a plugin's first load, in a child that may die of it.
 * Why: see plugin_probe.h.
 */
#include "plugin_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* The child's verdict, one byte on a pipe, written only by cairn's own
 * code after dlopen returned: loaded (and exercised, and unloaded), or
 * refused by dlopen (the real load reports why).  An exit status would
 * not do: a plugin's constructor can exit(0) as well as we can. */
#define PROBE_LOADED        'L'
#define PROBE_DLOPEN_FAILED 'D'

static void __attribute__((noreturn)) verdict(int fd, char what)
{
    ssize_t n;

    do
        n = write(fd, &what, 1);
    while (n < 0 && errno == EINTR);
    cairn_exit_now(0);
}

/* The child: nothing it prints reaches the daemon's log (the real load
 * reports), and _exit() (cairn_exit_now) skips the parent's atexit handlers and buffers. */
static void __attribute__((noreturn))
child(const char *name, cairn_plugin_exercise_fn exercise, int fd)
{
    /* A fault ends the child by its signal, even where a sanitizer's
     * handler would turn it into an exit. */
    static const int deadly[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    size_t i;
    void *dl;

    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    for (i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
        signal(deadly[i], SIG_DFL);
    /* A hang ends as SIGALRM, which the parent reads as "too slow". */
    signal(SIGALRM, SIG_DFL);
    alarm(CAIRN_PLUGIN_PROBE_SECONDS);
    dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (dl == NULL)
        verdict(fd, PROBE_DLOPEN_FAILED);
    if (exercise != NULL)
        exercise(dl);
    /* The destructors run at reload and exit: they are load-time code too. */
    dlclose(dl);
    verdict(fd, PROBE_LOADED);
}

/* The verdict, read once the child is gone: non-blocking, because a
 * process the plugin forked may still hold the pipe's other end. */
static int read_verdict(int fd)
{
    char what;
    ssize_t n;

    do
        n = read(fd, &what, 1);
    while (n < 0 && errno == EINTR);
    return n == 1 && (what == PROBE_LOADED || what == PROBE_DLOPEN_FAILED);
}

int cairn_plugin_probe(const char *name, cairn_plugin_exercise_fn exercise, char *why,
                       size_t why_len)
{
    pid_t pid, got;
    int status, sig, fds[2], said;

    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return 0;
    fflush(NULL); /* nothing buffered is written twice */
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return 0;
    }
    if (pid == 0) {
        close(fds[0]);
        child(name, exercise, fds[1]);
    }
    close(fds[1]);
    do
        got = waitpid(pid, &status, 0);
    while (got < 0 && errno == EINTR);
    said = read_verdict(fds[0]);
    close(fds[0]);
    if (got != pid)
        return 0;
    if (said)
        return 0;
    if (WIFEXITED(status)) {
        snprintf(why, why_len,
                 "loading it ended a probe process with exit status %d: a constructor, the "
                 "entry function or a destructor exits the process (or faults)",
                 WEXITSTATUS(status));
        return -EINVAL;
    }
    sig = WTERMSIG(status);
    if (sig == SIGALRM)
        snprintf(why, why_len,
                 "still loading after %d s in a probe process (a constructor or "
                 "the entry function does not return)",
                 CAIRN_PLUGIN_PROBE_SECONDS);
    else
        snprintf(why, why_len,
                 "loading it killed a probe process with signal %d (%s): the file "
                 "is damaged or its code faults at load time",
                 sig, strsignal(sig));
    return -EINVAL;
}
