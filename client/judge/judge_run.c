/*
 * judge_run.c - one run of `cairn judge`'s candidate: a child in its own
 * session (so its whole process group can be killed), with an address
 * space limit and only descriptors 0-2, fed its input lines on stdin
 * while its stdout and stderr are read, under a wall-clock limit.  Plain
 * poll(): one child at a time, nothing else to wait for.  Whatever the
 * candidate does, its group is killed and reaped before this returns.
 */
#include <errno.h>
#include <fcntl.h>
#include <dirent.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "judge_run.h"

/* More stdout than this is not answers (the longest answer line of any
 * game is far shorter, even in the form with a line of play). */
#define RUN_MAX_OUT  (256u << 20)
#define RUN_ERR_TAIL 2048

static double now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* In the child, between fork and exec: only async-signal-safe calls. */
static void child(const struct cairn_judge_runner *r, int in, int out, int err, int status_fd)
{
    struct rlimit rl = { (rlim_t)r->mem_bytes, (rlim_t)r->mem_bytes };
    sigset_t none;
    int e, fd;

    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
    signal(SIGPIPE, SIG_DFL);
    if (setsid() < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
        goto fail;
    if (r->mem_bytes > 0 && setrlimit(RLIMIT_AS, &rl) != 0)
        goto fail;
        /* Every other descriptor closes at exec; the status pipe stays open
     * until then, to carry exec's errno back. */
#ifdef SYS_close_range
    if (syscall(SYS_close_range, 3u, ~0u, 4u /* CLOSE_RANGE_CLOEXEC */) != 0)
#endif
        for (fd = 3; fd < 65536; fd++)
            fcntl(fd, F_SETFD, FD_CLOEXEC);
    execv(r->argv[0], r->argv);
fail:
    e = errno;
    if (write(status_fd, &e, sizeof(e)) < 0)
        _exit(127);
    _exit(127);
}

/* Keeps the last RUN_ERR_TAIL bytes of stderr. */
static void keep_tail(char *tail, size_t *len, const char *p, size_t n)
{
    if (n >= RUN_ERR_TAIL) {
        memcpy(tail, p + n - RUN_ERR_TAIL, RUN_ERR_TAIL);
        *len = RUN_ERR_TAIL;
        return;
    }
    if (*len + n > RUN_ERR_TAIL) {
        size_t drop = *len + n - RUN_ERR_TAIL;

        memmove(tail, tail + drop, *len - drop);
        *len -= drop;
    }
    memcpy(tail + *len, p, n);
    *len += n;
}

struct pump {
    int in, out, err; /* the parent's ends; -1 once closed */
    const char *input;
    size_t len, sent;
    struct cairn_buf got;
    char tail[RUN_ERR_TAIL];
    size_t tail_len;
    size_t lines, want;
};

/* Reads what fd has: 0 read some, 1 at its end, 2 nothing there now, or
 * a negative errno. */
static int drain(struct pump *p, int fd)
{
    char chunk[65536];
    ssize_t n = read(fd, chunk, sizeof(chunk));
    size_t i;

    if (n < 0)
        return errno == EAGAIN ? 2 : errno == EINTR ? 0 : -errno;
    if (n == 0)
        return 1;
    if (fd == p->err) {
        keep_tail(p->tail, &p->tail_len, chunk, (size_t)n);
        return 0;
    }
    if (p->got.len + (size_t)n > RUN_MAX_OUT)
        return -EFBIG;
    for (i = 0; i < (size_t)n; i++)
        p->lines += chunk[i] == '\n';
    return cairn_buf_append(&p->got, chunk, (size_t)n);
}

static void close_fd(int *fd)
{
    if (*fd >= 0)
        close(*fd);
    *fd = -1;
}

/* Feeds and reads until every answer came, or stdout and stderr both end
 * (it is ending: its exit status tells how), or the time is up. */
static enum cairn_judge_fault pump(struct pump *p, double deadline)
{
    for (;;) {
        struct pollfd fds[3];
        nfds_t nf = 0;
        double left = deadline - now_s();
        int i, rc;

        if (p->lines >= p->want)
            return CAIRN_JUDGE_RAN;
        if (left <= 0)
            return CAIRN_JUDGE_TIMEOUT;
        if (p->out < 0 && p->err < 0)
            return CAIRN_JUDGE_TOO_FEW; /* refined by the exit status */
        if (p->out >= 0)
            fds[nf++] = (struct pollfd){ .fd = p->out, .events = POLLIN };
        if (p->err >= 0)
            fds[nf++] = (struct pollfd){ .fd = p->err, .events = POLLIN };
        if (p->in >= 0)
            fds[nf++] = (struct pollfd){ .fd = p->in, .events = POLLOUT };
        rc = poll(fds, nf, (int)(left * 1000) + 1);
        if (rc < 0 && errno != EINTR)
            return CAIRN_JUDGE_TIMEOUT; /* cannot wait: never wait forever */
        for (i = 0; rc > 0 && i < (int)nf; i++) {
            if (fds[i].revents == 0)
                continue;
            if (fds[i].fd == p->in) {
                ssize_t w = write(p->in, p->input + p->sent, p->len - p->sent);

                if (w > 0)
                    p->sent += (size_t)w;
                /* EPIPE: it stopped reading; what it answered still counts. */
                if ((w < 0 && errno != EAGAIN && errno != EINTR) || p->sent == p->len)
                    close_fd(&p->in);
                continue;
            }
            int d = drain(p, fds[i].fd);

            if (d == -EFBIG)
                return CAIRN_JUDGE_TOO_MUCH;
            if (d != 0 && d != 2)
                close_fd(fds[i].fd == p->out ? &p->out : &p->err);
        }
    }
}

/* The candidate's descendants that left its process group (setsid,
 * setpgid) outlive the group's kill; judge.c made cairn their subreaper,
 * so once their parents are dead they are cairn's children: killed and
 * reaped here, until none is left.  Returns how many there were. */
static size_t reap_orphans(void)
{
    pid_t me = getpid();
    size_t total = 0;

    for (;;) {
        struct dirent *e;
        size_t found = 0;
        DIR *d = opendir("/proc");

        if (d == NULL)
            return total;
        while ((e = readdir(d)) != NULL) {
            char path[300], stat[512], *close_paren;
            long ppid;
            ssize_t n;
            int fd;

            if (e->d_name[0] < '1' || e->d_name[0] > '9')
                continue;
            snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
            if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
                continue;
            n = read(fd, stat, sizeof(stat) - 1);
            close(fd);
            if (n <= 0)
                continue;
            stat[n] = '\0';
            /* "pid (comm) state ppid ...": comm may hold anything, even ")". */
            if ((close_paren = strrchr(stat, ')')) == NULL ||
                sscanf(close_paren + 1, " %*c %ld", &ppid) != 1 || ppid != (long)me)
                continue;
            kill((pid_t)atol(e->d_name), SIGKILL);
            found++;
        }
        closedir(d);
        if (found == 0)
            return total;
        total += found;
        while (found-- > 0 && waitpid(-1, NULL, 0) > 0)
            ;
    }
}

/* Waits (up to the deadline) for a child that closed its stdout and
 * stderr to end, so its exit status can be told: a pidfd where the kernel
 * has them, else (old kernels, valgrind) a look every 10 ms. */
static int wait_end(pid_t pid, double deadline, int *status)
{
    int pfd = -1;

#ifdef SYS_pidfd_open
    pfd = (int)syscall(SYS_pidfd_open, pid, 0);
#endif
    if (pfd >= 0) {
        struct pollfd f = { .fd = pfd, .events = POLLIN };
        double left = deadline - now_s();

        if (left > 0)
            poll(&f, 1, (int)(left * 1000) + 1);
        close(pfd);
        return waitpid(pid, status, WNOHANG) == pid;
    }
    for (;;) {
        struct timespec ten_ms = { 0, 10000000 };

        if (waitpid(pid, status, WNOHANG) == pid)
            return 1;
        if (now_s() >= deadline)
            return 0;
        nanosleep(&ten_ms, NULL);
    }
}

int cairn_judge_run(struct cairn_client *cl, const struct cairn_judge_runner *r, const char *input,
                    size_t len, size_t n_lines, struct cairn_judge_run *run)
{
    int in[2] = { -1, -1 }, out[2] = { -1, -1 }, err[2] = { -1, -1 }, st[2] = { -1, -1 };
    struct pump p = { .in = -1, .out = -1, .err = -1, .input = input, .len = len, .want = n_lines };
    double deadline = now_s() + r->timeout;
    int e = 0, ended = 0, status = 0;
    ssize_t n;
    pid_t pid;

    memset(run, 0, sizeof(*run));
    if (pipe2(in, O_CLOEXEC) != 0 || pipe2(out, O_CLOEXEC) != 0 || pipe2(err, O_CLOEXEC) != 0 ||
        pipe2(st, O_CLOEXEC) != 0) {
        e = -errno;
        goto fail;
    }
    if ((pid = fork()) < 0) {
        e = -errno;
        goto fail;
    }
    if (pid == 0)
        child(r, in[0], out[1], err[1], st[1]);
    close_fd(&in[0]);
    close_fd(&out[1]);
    close_fd(&err[1]);
    close_fd(&st[1]);
    /* exec's errno, or nothing: the pipe closed at a successful exec. */
    while ((n = read(st[0], &e, sizeof(e))) < 0 && errno == EINTR)
        ;
    close_fd(&st[0]);
    if (n == (ssize_t)sizeof(e)) {
        waitpid(pid, NULL, 0);
        e = cairn_client_fail(cl, -e, "judge: cannot run %s: %s", r->argv[0], strerror(e));
        goto fail;
    }
    p.in = in[1];
    p.out = out[0];
    p.err = err[0];
    in[1] = out[0] = err[0] = -1;
    fcntl(p.in, F_SETFL, O_NONBLOCK);
    fcntl(p.out, F_SETFL, O_NONBLOCK);
    fcntl(p.err, F_SETFL, O_NONBLOCK);
    if (len == 0)
        close_fd(&p.in);
    run->fault = pump(&p, deadline);
    if (run->fault == CAIRN_JUDGE_TOO_FEW) {
        ended = wait_end(pid, deadline, &status);
        if (!ended)
            run->fault = CAIRN_JUDGE_TIMEOUT;
        else if (WIFSIGNALED(status))
            run->signal = WTERMSIG(status);
        else if (r->sandboxed && WEXITSTATUS(status) > 128)
            run->signal = WEXITSTATUS(status) - 128; /* bwrap's word for it */
        else if (WEXITSTATUS(status) != 0)
            run->fault = CAIRN_JUDGE_EXITED;
        if (run->signal != 0)
            run->fault = CAIRN_JUDGE_CRASHED;
    }
    /* The whole group, whatever happened: nothing of it outlives the run. */
    kill(-pid, SIGKILL);
    if (!ended)
        waitpid(pid, &status, 0);
    reap_orphans();
    run->status = status;
    while (p.err >= 0 && drain(&p, p.err) == 0)
        ;
    close_fd(&p.in);
    close_fd(&p.out);
    close_fd(&p.err);
    run->n_lines = p.lines;
    if (cairn_buf_append(&p.got, "", 1) != 0 || (run->err_tail = malloc(p.tail_len + 1)) == NULL) {
        cairn_buf_free(&p.got);
        return -ENOMEM;
    }
    memcpy(run->err_tail, p.tail, p.tail_len);
    run->err_tail[p.tail_len] = '\0';
    run->out = p.got.data;
    return 0;
fail:
    for (int i = 0; i < 2; i++) {
        close_fd(&in[i]);
        close_fd(&out[i]);
        close_fd(&err[i]);
        close_fd(&st[i]);
    }
    if (cl->msg == NULL)
        cairn_client_fail(cl, e, "judge: cannot start the candidate: %s", strerror(-e));
    return e;
}

void cairn_judge_run_free(struct cairn_judge_run *run)
{
    free(run->out);
    free(run->err_tail);
    memset(run, 0, sizeof(*run));
}
