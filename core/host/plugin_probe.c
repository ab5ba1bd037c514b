/*
 * plugin_probe.c - each plugin's first load, in a child that may die of
 * it.  Why: see plugin_probe.h.
 */
#include "plugin_probe.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "plugin_copy.h"
#include "util.h"

/* The child's account, one byte per step on the socket, written only by
 * cairn's own code after the step returned: loaded (and exercised),
 * refused by dlopen (the real load reports why), unloaded.  An exit
 * status would not do: a plugin's constructor can exit(0) as well as we
 * can. */
#define STEP_LOADED        'L'
#define STEP_DLOPEN_FAILED 'D'
#define STEP_UNLOADED      'U'

struct verdict {
    unsigned char state;  /* enum cairn_probe_state */
    unsigned char loaded; /* the child said it loaded it: it died unloading */
    char why[320];
};

struct cairn_probe {
    cairn_plugin_exercise_fn exercise;
    int *fds; /* every file handed over, by index */
    struct verdict *v;
    size_t n, cap;
    size_t next;       /* the first file without a verdict: they come in order */
    size_t sent;       /* files [next, sent) are with the child */
    pid_t pid;         /* the child, 0: none */
    int sock;          /* our end of its socket, -1: none */
    int pidfd;         /* the child's, -1: none (an old kernel: waitpid) */
    int sealed;        /* no more files: the child ends after the last */
    int broken;        /* no child can be made: every file left is unknown */
    int given;         /* the child has been handed a file */
    unsigned children; /* those that were */
};

static void say(int fd, char what)
{
    ssize_t n;

    do
        n = write(fd, &what, 1);
    while (n < 0 && errno == EINTR);
}

/* The next file from the loader, or -1 at the end. */
static int receive(int sock)
{
    char byte, space[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = space, .msg_controllen = sizeof(space)
    };
    struct cmsghdr *c;
    ssize_t n;
    int fd;

    do
        n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
    while (n < 0 && errno == EINTR);
    c = n == 1 ? CMSG_FIRSTHDR(&msg) : NULL;
    if (c == NULL || c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_RIGHTS)
        return -1;
    memcpy(&fd, CMSG_DATA(c), sizeof(fd));
    return fd;
}

/* The child: loads, exercises and unloads each file it is given, saying
 * so after each step.  Nothing it prints reaches the daemon's log (the
 * real load reports), and _exit() (cairn_exit_now) skips the parent's
 * atexit handlers and buffers. */
static void __attribute__((noreturn)) child(int sock, cairn_plugin_exercise_fn exercise)
{
    /* A fault ends the child by its signal, even where a sanitizer's
     * handler would turn it into an exit. */
    static const int deadly[] = { SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT, SIGTRAP, SIGSYS };
    int null = open("/dev/null", O_WRONLY | O_CLOEXEC), fd;
    size_t i;

    if (null >= 0) {
        dup2(null, STDOUT_FILENO);
        dup2(null, STDERR_FILENO);
    }
    for (i = 0; i < sizeof(deadly) / sizeof(deadly[0]); i++)
        signal(deadly[i], SIG_DFL);
    /* A hang ends as SIGALRM, which the parent reads as "too slow". */
    signal(SIGALRM, SIG_DFL);
    while ((fd = receive(sock)) >= 0) {
        char name[64];
        void *dl;

        if (cairn_plugin_copy_fresh_name(&fd, name, sizeof(name)) != 0)
            break;
        alarm(CAIRN_PLUGIN_PROBE_SECONDS);
        dl = dlopen(name, RTLD_NOW | RTLD_LOCAL);
        if (dl != NULL && exercise != NULL)
            exercise(dl);
        say(sock, dl != NULL ? STEP_LOADED : STEP_DLOPEN_FAILED);
        /* The destructors run at reload and exit: they are load-time code
         * too. */
        if (dl != NULL) {
            alarm(CAIRN_PLUGIN_PROBE_SECONDS);
            dlclose(dl);
            say(sock, STEP_UNLOADED);
        }
        alarm(0);
    }
    cairn_exit_now(0);
}

static int read_steps(struct cairn_probe *p);

/* Hands fd to the child: one byte carrying it.  While the socket is full
 * the child's steps are taken in (it may be waiting to write them); a
 * child that died is noticed when its steps are read. */
static void send_fd(struct cairn_probe *p, int fd)
{
    char byte = 'F', space[CMSG_SPACE(sizeof(int))];
    struct iovec iov = { .iov_base = &byte, .iov_len = 1 };
    struct msghdr msg = {
        .msg_iov = &iov, .msg_iovlen = 1, .msg_control = space, .msg_controllen = sizeof(space)
    };
    struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

    memset(space, 0, sizeof(space));
    c->cmsg_level = SOL_SOCKET;
    c->cmsg_type = SCM_RIGHTS;
    c->cmsg_len = CMSG_LEN(sizeof(int));
    memcpy(CMSG_DATA(c), &fd, sizeof(fd));
    for (;;) {
        ssize_t n = sendmsg(p->sock, &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
        struct pollfd pf[2] = { { .fd = p->sock, .events = POLLOUT | POLLIN },
                                { .fd = p->pidfd, .events = POLLIN } };

        if (n == 1)
            return;
        if (n < 0 && errno == EINTR)
            continue;
        if (n >= 0 || (errno != EAGAIN && errno != EWOULDBLOCK))
            return;
        if (poll(pf, 2, -1) < 0 && errno != EINTR)
            return;
        if ((pf[0].revents & POLLIN) != 0 && read_steps(p) == 0)
            return;
        if (pf[1].revents != 0)
            return;
    }
}

/* The child is handed file i. */
static void hand_over(struct cairn_probe *p, size_t i)
{
    if (!p->given) {
        p->given = 1;
        p->children++;
    }
    send_fd(p, p->fds[i]);
}

/* A new child, given every file still without a verdict. */
static void spawn(struct cairn_probe *p)
{
    int sv[2];
    pid_t pid;

    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        p->broken = 1;
        return;
    }
    fflush(NULL); /* nothing buffered is written twice */
    pid = fork();
    if (pid < 0) {
        close(sv[0]);
        close(sv[1]);
        p->broken = 1;
        return;
    }
    if (pid == 0) {
        close(sv[0]);
        child(sv[1], p->exercise);
    }
    close(sv[1]);
    fcntl(sv[0], F_SETFL, O_NONBLOCK);
    p->pid = pid;
    p->sock = sv[0];
    p->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
    p->given = 0;
    for (p->sent = p->next; p->sent < p->n; p->sent++)
        hand_over(p, p->sent);
    if (p->sealed)
        shutdown(p->sock, SHUT_WR);
}

/* Why the child that died on file v did. */
static void explain(struct verdict *v, int status)
{
    const char *doing = v->loaded ? "unloading" : "loading";
    int sig;

    v->state = CAIRN_PROBE_REFUSED;
    if (WIFEXITED(status)) {
        snprintf(v->why, sizeof(v->why),
                 "%s it ended a probe process with exit status %d: a constructor, the entry "
                 "function or a destructor exits the process (or faults)",
                 doing, WEXITSTATUS(status));
        return;
    }
    sig = WTERMSIG(status);
    if (sig == SIGALRM)
        snprintf(v->why, sizeof(v->why), "still %s after %d s in a probe process (%s)", doing,
                 CAIRN_PLUGIN_PROBE_SECONDS,
                 v->loaded ? "a destructor does not return"
                           : "a constructor or the entry function does not return");
    else
        snprintf(v->why, sizeof(v->why),
                 "%s it killed a probe process with signal %d (%s): the file is damaged or "
                 "its code faults at %s time",
                 doing, sig, strsignal(sig), v->loaded ? "unload" : "load");
}

/* Takes in what the child said.  Returns 0 at its end (EOF), 1 while it
 * may say more. */
static int read_steps(struct cairn_probe *p)
{
    char steps[256];
    ssize_t n, i;

    for (;;) {
        n = read(p->sock, steps, sizeof(steps));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return n == 0 ? 0 : 1;
        for (i = 0; i < n && p->next < p->sent; i++) {
            if (steps[i] == STEP_LOADED) {
                p->v[p->next].loaded = 1;
                continue;
            }
            p->v[p->next].state = CAIRN_PROBE_PASSED;
            p->next++;
        }
    }
}

/* The child is gone (or, with no pidfd, about to be: our side is shut
 * down): reaps it, reads what it said last, and refuses the file it died
 * on.  The files handed to it after that one go to the next child. */
static void child_ended(struct cairn_probe *p)
{
    int status = 0;
    pid_t got;

    do
        got = waitpid(p->pid, &status, 0);
    while (got < 0 && errno == EINTR);
    read_steps(p);
    if (got != p->pid)
        p->broken = 1; /* nothing can be told of it */
    else if (p->next < p->sent) {
        explain(&p->v[p->next], status);
        p->next++;
    }
    close(p->sock);
    if (p->pidfd >= 0)
        close(p->pidfd);
    p->pid = 0;
    p->sock = p->pidfd = -1;
    p->sent = p->next;
}

struct cairn_probe *cairn_probe_new(cairn_plugin_exercise_fn exercise, int early)
{
    struct cairn_probe *p = calloc(1, sizeof(*p));

    if (p != NULL) {
        p->exercise = exercise;
        p->sock = p->pidfd = -1;
        if (early)
            spawn(p);
    }
    return p;
}

int cairn_probe_add(struct cairn_probe *p, int fd)
{
    if (p->n == p->cap) {
        size_t cap = p->cap != 0 ? 2 * p->cap : 16;
        int *fds = realloc(p->fds, cap * sizeof(*fds));
        struct verdict *v;

        if (fds == NULL)
            return -ENOMEM;
        p->fds = fds;
        if ((v = realloc(p->v, cap * sizeof(*v))) == NULL)
            return -ENOMEM;
        p->v = v;
        p->cap = cap;
    }
    p->fds[p->n] = fd;
    memset(&p->v[p->n], 0, sizeof(p->v[p->n]));
    p->n++;
    if (p->pid == 0 && !p->broken)
        spawn(p);
    else if (p->pid != 0)
        hand_over(p, p->sent++);
    return (int)(p->n - 1);
}

/* Takes in what has come, without waiting; notices a child that died. */
static void look(struct cairn_probe *p)
{
    struct pollfd pf = { .fd = p->pidfd, .events = POLLIN };

    if (p->pid == 0)
        return;
    if (read_steps(p) == 0 || (p->pidfd >= 0 && poll(&pf, 1, 0) == 1))
        child_ended(p);
}

/* Waits for the child to say something or end. */
static void wait_for_child(struct cairn_probe *p)
{
    struct pollfd pf[2] = { { .fd = p->sock, .events = POLLIN },
                            { .fd = p->pidfd, .events = POLLIN } };

    if (p->pidfd < 0) {
        /* No pidfd: our side is shut down, so the child ends after its
         * last file; waitpid rather than the socket's end, which a
         * process a plugin forked may hold open. */
        child_ended(p);
        return;
    }
    if (poll(pf, 2, -1) < 0 && errno != EINTR) {
        child_ended(p);
        return;
    }
    if (read_steps(p) == 0 || pf[1].revents != 0)
        child_ended(p);
}

enum cairn_probe_state cairn_probe_state(struct cairn_probe *p, size_t i, int wait, char *why,
                                         size_t why_len)
{
    if (wait && !p->sealed) {
        /* No more files: the child ends once through them, beside the
         * caller's own loads. */
        p->sealed = 1;
        if (p->pid != 0)
            shutdown(p->sock, SHUT_WR);
    }
    if (i >= p->next)
        look(p);
    while (wait && i >= p->next && !p->broken) {
        if (p->pid == 0)
            spawn(p);
        else
            wait_for_child(p);
    }
    if (i >= p->next)
        return p->broken ? CAIRN_PROBE_UNKNOWN : CAIRN_PROBE_PENDING;
    if (p->v[i].state == CAIRN_PROBE_REFUSED)
        snprintf(why, why_len, "%s", p->v[i].why);
    return p->v[i].state;
}

unsigned cairn_probe_children(const struct cairn_probe *p)
{
    return p->children;
}

void cairn_probe_free(struct cairn_probe *p)
{
    if (p == NULL)
        return;
    if (p->pid != 0) {
        shutdown(p->sock, SHUT_WR);
        while (waitpid(p->pid, NULL, 0) < 0 && errno == EINTR)
            ;
        close(p->sock);
        if (p->pidfd >= 0)
            close(p->pidfd);
    }
    free(p->fds);
    free(p->v);
    free(p);
}
