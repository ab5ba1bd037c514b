/*
 * plugin_probe.c - a set of plugins' first load, in a child that may die
 * of it.  Why: see plugin_probe.h.
 */
#include "plugin_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "util.h"

/* The child's account, one byte per step on a pipe, written only by
 * cairn's own code after the step returned: loaded (and exercised),
 * refused by dlopen (the real load reports why), unloaded.  An exit
 * status would not do: a plugin's constructor can exit(0) as well as we
 * can. */
#define STEP_LOADED        'L'
#define STEP_DLOPEN_FAILED 'D'
#define STEP_UNLOADED      'U'

/* Files per child: its two bytes a file then fit in the smallest pipe a
 * kernel hands out (one page, once a user is over pipe-user-pages-soft),
 * so the child never waits to write. */
#define MAX_PER_CHILD 1024

static void say(int fd, char what)
{
    ssize_t n;

    do
        n = write(fd, &what, 1);
    while (n < 0 && errno == EINTR);
}

/* The child: loads every name, then unloads them in the same order,
 * saying so after each.  Nothing it prints reaches the daemon's log (the
 * real load reports), and _exit() (cairn_exit_now) skips the parent's
 * atexit handlers and buffers. */
static void __attribute__((noreturn))
child(const char *const *names, void **dls, size_t n, cairn_plugin_exercise_fn exercise, int fd)
{
    /* A fault ends the child by its signal, even where a sanitizer's
     * handler would turn it into an exit. */
    static const int deadly[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC);
    size_t i;

    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    for (i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
        signal(deadly[i], SIG_DFL);
    /* A hang ends as SIGALRM, which the parent reads as "too slow". */
    signal(SIGALRM, SIG_DFL);
    for (i = 0; i < n; i++) {
        alarm(CAIRN_PLUGIN_PROBE_SECONDS);
        dls[i] = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
        if (dls[i] != NULL && exercise != NULL)
            exercise(dls[i]);
        say(fd, dls[i] != NULL ? STEP_LOADED : STEP_DLOPEN_FAILED);
    }
    /* The destructors run at reload and exit: they are load-time code too. */
    for (i = 0; i < n; i++)
        if (dls[i] != NULL) {
            alarm(CAIRN_PLUGIN_PROBE_SECONDS);
            dlclose(dls[i]);
            say(fd, STEP_UNLOADED);
        }
    cairn_exit_now(0);
}

/* What the child said, read once it is gone: non-blocking, because a
 * process a plugin forked may still hold the pipe's other end. */
static size_t read_steps(int fd, char *steps, size_t cap)
{
    size_t got = 0;

    while (got < cap) {
        ssize_t n = read(fd, steps + got, cap - got);

        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    return got;
}

/* Why the child that died on this step did. */
static void explain(struct cairn_probe_item *item, int unloading, int status)
{
    const char *doing = unloading ? "unloading" : "loading";
    int sig;

    item->refused = 1;
    if (WIFEXITED(status)) {
        snprintf(item->why, sizeof(item->why),
                 "%s it ended a probe process with exit status %d: a constructor, the entry "
                 "function or a destructor exits the process (or faults)",
                 doing, WEXITSTATUS(status));
        return;
    }
    sig = WTERMSIG(status);
    if (sig == SIGALRM)
        snprintf(item->why, sizeof(item->why), "still %s after %d s in a probe process (%s)", doing,
                 CAIRN_PLUGIN_PROBE_SECONDS,
                 unloading ? "a destructor does not return"
                           : "a constructor or the entry function does not return");
    else
        snprintf(item->why, sizeof(item->why),
                 "%s it killed a probe process with signal %d (%s): the file is damaged or "
                 "its code faults at %s time",
                 doing, sig, strsignal(sig), unloading ? "unload" : "load");
}

/* What steps[0, said) tell of a child over n files. */
struct tally {
    size_t loads, opened, unloads;
};

static struct tally count_steps(const char *steps, size_t said, size_t n)
{
    struct tally t = { 0 };
    size_t i;

    for (i = 0; i < said; i++) {
        if (steps[i] == STEP_UNLOADED)
            t.unloads++;
        else if (t.loads < n) {
            t.loads++;
            t.opened += steps[i] == STEP_LOADED;
        }
    }
    return t;
}

static int all_said(const struct tally *t, size_t n)
{
    return t->loads == n && t->unloads >= t->opened;
}

/* Reads the child's steps as they come, until it has said every one or
 * is gone: once all are said its exit is of no interest, and it need not
 * be waited for now (the real load runs while it tears down).  Polls a
 * pidfd beside the pipe because a process a plugin forked may hold the
 * pipe open after the child died.  Returns how many steps were read;
 * *gone is 0 when the child may still be running (every step said). */
static size_t follow(pid_t pid, int fd, char *steps, size_t n, int *gone)
{
    int pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    struct pollfd p[2] = { { .fd = fd, .events = POLLIN }, { .fd = pidfd, .events = POLLIN } };
    size_t said = 0;

    *gone = pidfd < 0; /* an old kernel: wait for the exit, as before */
    while (!*gone) {
        struct tally t;

        said += read_steps(fd, steps + said, 2 * n - said);
        t = count_steps(steps, said, n);
        if (all_said(&t, n)) {
            close(pidfd);
            return said;
        }
        if (poll(p, 2, -1) < 0 && errno != EINTR)
            break;
        if (p[1].revents != 0)
            break;
        if ((p[0].revents & POLLHUP) != 0 && (p[0].revents & POLLIN) == 0)
            p[0].fd = -1; /* nothing more can come: wait for the exit */
    }
    if (pidfd >= 0)
        close(pidfd);
    *gone = 1;
    return said;
}

/* One child over batch[0, n) (indices into items).  Returns the index in
 * batch of the file it died on (refused, with why), n when all went
 * through, or -1 when no child could be made or waited for.  *running is
 * the child when it said every step and may not have exited yet, else 0. */
static long probe_batch(struct cairn_probe_item *items, const size_t *batch, size_t n,
                        const char **names, void **dls, char *steps,
                        cairn_plugin_exercise_fn exercise, pid_t *running)
{
    struct tally t;
    size_t i, said;
    pid_t pid, got;
    int status, fds[2], gone;

    *running = 0;
    for (i = 0; i < n; i++)
        names[i] = items[batch[i]].name;
    if (pipe2(fds, O_CLOEXEC | O_NONBLOCK) != 0)
        return -1;
    fflush(NULL); /* nothing buffered is written twice */
    pid = fork();
    if (pid < 0) {
        close(fds[0]);
        close(fds[1]);
        return -1;
    }
    if (pid == 0) {
        close(fds[0]);
        child(names, dls, n, exercise, fds[1]);
    }
    close(fds[1]);
    said = follow(pid, fds[0], steps, n, &gone);
    if (!gone) {
        close(fds[0]);
        *running = pid;
        return (long)n;
    }
    do
        got = waitpid(pid, &status, 0);
    while (got < 0 && errno == EINTR);
    said += read_steps(fds[0], steps + said, 2 * n - said);
    close(fds[0]);
    if (got != pid)
        return -1;
    t = count_steps(steps, said, n);
    if (t.loads < n) {
        explain(&items[batch[t.loads]], 0, status);
        return (long)t.loads;
    }
    if (all_said(&t, n))
        return (long)n;
    /* Died unloading: the (unloads + 1)th file that loaded. */
    for (i = 0; i < n; i++)
        if (steps[i] == STEP_LOADED && t.unloads-- == 0)
            break;
    if (i == n)
        return (long)n;
    explain(&items[batch[i]], 1, status);
    return (long)i;
}

void cairn_plugin_probe_reap(pid_t pid)
{
    if (pid > 0)
        while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
            ;
}

int cairn_plugin_probe_set(struct cairn_probe_item *items, size_t n,
                           cairn_plugin_exercise_fn exercise, pid_t *running)
{
    size_t cap = n < MAX_PER_CHILD ? n : MAX_PER_CHILD;
    size_t *live, n_live = n, i;
    const char **names;
    void **dls;
    char *steps;
    int children = 0;

    *running = 0;
    if (n == 0)
        return 0;
    live = malloc(n * sizeof(*live));
    names = malloc(cap * sizeof(*names));
    dls = calloc(cap, sizeof(*dls));
    steps = malloc(2 * cap);
    if (live == NULL || names == NULL || dls == NULL || steps == NULL) {
        free(live);
        free(names);
        free(dls);
        free(steps);
        return -ENOMEM;
    }
    for (i = 0; i < n; i++) {
        items[i].refused = 0;
        items[i].unknown = 0;
        items[i].why[0] = '\0';
        live[i] = i;
    }
    /* live[0, n_live): not yet through a child that got to its end.  A
     * child that dies takes its file out; the rest of its batch goes
     * again (their destructors have not run). */
    while (n_live > 0) {
        size_t m = n_live < cap ? n_live : cap;
        long stop;

        /* (Only past MAX_PER_CHILD files is a child done before the last.) */
        cairn_plugin_probe_reap(*running);
        stop = probe_batch(items, live, m, names, dls, steps, exercise, running);

        if (stop < 0) {
            for (i = 0; i < n_live; i++)
                items[live[i]].unknown = 1;
            break;
        }
        children++;
        if ((size_t)stop == m) {
            memmove(live, live + m, (n_live - m) * sizeof(*live));
            n_live -= m;
        } else {
            memmove(live + stop, live + stop + 1, (n_live - (size_t)stop - 1) * sizeof(*live));
            n_live--;
        }
    }
    free(live);
    free(names);
    free(dls);
    free(steps);
    return children;
}
