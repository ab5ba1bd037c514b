/*
 * harness.c - helpers shared by the test programs; see harness.h.
 */
#include "harness.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <sys/xattr.h>
#include <time.h>
#include <unistd.h>

#include "util.h"

struct th_settings th_settings = { 10, 0, 8192 };

int th_run_suite(Suite *s, enum print_output mode, int fork)
{
    SRunner *sr = srunner_create(s);
    int failed;

    if (!fork)
        srunner_set_fork_status(sr, CK_NOFORK);
    srunner_run_all(sr, mode);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed;
}
void (*th_on_failure)(void) = th_dump_logs;

/* ------------------------------------------------------------------ */
/* Files                                                               */
/* ------------------------------------------------------------------ */

void th_pathf(char *buf, const char *fmt, ...)
{
    va_list ap;
    int n;

    va_start(ap, fmt);
    n = vsnprintf(buf, PATH_MAX, fmt, ap);
    va_end(ap);
    ck_assert_msg(n > 0 && n < PATH_MAX, "path too long");
}

char *th_xasprintf(const char *fmt, ...)
{
    va_list ap;
    char *s;
    int n;

    va_start(ap, fmt);
    n = vasprintf(&s, fmt, ap);
    va_end(ap);
    ck_assert_msg(n >= 0, "out of memory");
    return s;
}

void th_drop_job(const char *spool, const char *name, const char *data, size_t len)
{
    static unsigned n;
    char tmp[PATH_MAX], dst[PATH_MAX];

    th_pathf(tmp, "%s/.drop-%d-%u.tmp", spool, (int)getpid(), ++n);
    th_pathf(dst, "%s/%s", spool, name);
    th_write_file(tmp, data, len, 0644);
    ck_assert_msg(rename(tmp, dst) == 0, "rename %s: %s", tmp, strerror(errno));
}

void th_write_file(const char *path, const char *data, size_t len, mode_t mode)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, mode);

    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    ck_assert_msg(cairn_write_all(fd, data, len) == 0, "write %s: %s", path, strerror(errno));
    /* fchmod, not the open mode: the umask must not decide the test. */
    ck_assert_int_eq(fchmod(fd, mode), 0);
    ck_assert_int_eq(close(fd), 0);
}

void th_write_text(const char *path, const char *text)
{
    th_write_file(path, text, strlen(text), 0644);
}

static char *slurp_flags(const char *path, size_t *len_out, int flags)
{
    struct cairn_buf b = { 0 };
    char tmp[65536];
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | flags);

    if (fd < 0)
        return NULL;
    for (;;) {
        ssize_t n = read(fd, tmp, sizeof(tmp));
        if (n < 0 && errno == EINTR)
            continue;
        ck_assert_msg(n >= 0, "read %s: %s", path, strerror(errno));
        if (n == 0)
            break;
        ck_assert_int_eq(cairn_buf_append(&b, tmp, (size_t)n), 0);
    }
    close(fd);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    if (len_out != NULL)
        *len_out = b.len - 1;
    return b.data;
}

char *th_slurp(const char *path, size_t *len_out)
{
    return slurp_flags(path, len_out, 0);
}

char *th_slurp_nofollow(const char *path, size_t *len_out)
{
    return slurp_flags(path, len_out, O_NOFOLLOW);
}

unsigned th_attempts_of(const char *active_dir, const char *name)
{
    char path[PATH_MAX], buf[256]; /* "COUNT" or "COUNT NOTE" */
    unsigned long long ino;
    unsigned count = 0;
    struct stat st;
    ssize_t n;
    char *s;

    th_pathf(path, "%s/%s", active_dir, name);
    n = lgetxattr(path, "user.cairn.attempts", buf, sizeof(buf) - 1);
    if (n > 0) {
        buf[n] = '\0';
        return sscanf(buf, "%u", &count) == 1 ? count : 0;
    }
    if (lstat(path, &st) != 0)
        st.st_ino = 0;
    th_pathf(path, "%s/.cairn-attempts.%016llx", active_dir,
             (unsigned long long)cairn_hash64(name, strlen(name)));
    s = th_slurp_nofollow(path, NULL);
    if (s == NULL || sscanf(s, "%llu %u", &ino, &count) != 2 ||
        ino != (unsigned long long)st.st_ino)
        count = 0;
    free(s);
    return count;
}

char *th_read_file(const char *path, size_t *len_out)
{
    char *s = th_slurp(path, len_out);

    ck_assert_msg(s != NULL, "open %s: %s", path, strerror(errno));
    return s;
}

int th_exists(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0;
}

int th_file_contains(const char *path, const char *needle)
{
    char *s = th_slurp(path, NULL);
    int found = s != NULL && strstr(s, needle) != NULL;

    free(s);
    return found;
}

/* Entries of dir starting with prefix, dot-files left out when visible
 * is set; one pass, so a temporary that comes and goes is seen once or
 * not at all.  -1 when dir cannot be opened. */
static int count_entries(const char *dir, const char *prefix, int visible)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    int n = 0;

    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0 ||
            (visible && e->d_name[0] == '.'))
            continue;
        if (strncmp(e->d_name, prefix, strlen(prefix)) == 0)
            n++;
    }
    closedir(d);
    return n;
}

int th_count_entries(const char *dir, const char *prefix)
{
    return count_entries(dir, prefix, 0);
}

int th_count_visible(const char *dir)
{
    return count_entries(dir, "", 1);
}

/* 1 when some process has `path` open: one of its /proc/PID/fd links
 * reads as path.  readlink, not stat: it never reaches into the file's
 * file system, which another test may have frozen (powerfs). */
static int open_anywhere(const char *path)
{
    DIR *procs = opendir("/proc");
    struct dirent *p;
    int found = 0;

    ck_assert_msg(procs != NULL, "cannot read /proc: %s", strerror(errno));
    while (!found && (p = readdir(procs)) != NULL) {
        char fds[PATH_MAX];
        DIR *d;
        struct dirent *f;

        if (p->d_name[0] < '0' || p->d_name[0] > '9')
            continue;
        snprintf(fds, sizeof(fds), "/proc/%s/fd", p->d_name);
        if ((d = opendir(fds)) == NULL)
            continue; /* gone since */
        while (!found && (f = readdir(d)) != NULL) {
            char target[PATH_MAX];
            ssize_t n = readlinkat(dirfd(d), f->d_name, target, sizeof(target) - 1);

            if (n > 0) {
                target[n] = '\0';
                found = strcmp(target, path) == 0;
            }
        }
        closedir(d);
    }
    closedir(procs);
    return found;
}

/* 1 when dir_fd/name (dir is its canonical path) is a regular file no
 * process has open, or not a regular file at all. */
static int left_behind(int dir_fd, const char *dir, const char *name)
{
    struct stat before, after;
    char path[PATH_MAX];

    if (fstatat(dir_fd, name, &before, AT_SYMLINK_NOFOLLOW) != 0)
        return 0; /* renamed into place or removed since the listing */
    if (!S_ISREG(before.st_mode))
        return 1;
    th_pathf(path, "%s/%s", dir, name);
    if (open_anywhere(path))
        return 0;
    /* Still the same file: a writer renames its temporary away before it
     * closes it, so a file that was open at our first look and is closed
     * now no longer has this name. */
    return fstatat(dir_fd, name, &after, AT_SYMLINK_NOFOLLOW) == 0 &&
           after.st_dev == before.st_dev && after.st_ino == before.st_ino;
}

int th_count_left_temps(const char *dir, const char *prefix)
{
    char real[PATH_MAX];
    DIR *d;
    struct dirent *e;
    int n = 0;

    if (realpath(dir, real) == NULL || (d = opendir(real)) == NULL)
        return -1;
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] == '.' && strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 &&
            strncmp(e->d_name, prefix, strlen(prefix)) == 0 &&
            left_behind(dirfd(d), real, e->d_name))
            n++;
    closedir(d);
    return n;
}

char *th_list_dir(const char *dir, const char *sep)
{
    struct cairn_buf b = { 0 };
    DIR *d = opendir(dir);
    struct dirent *e;

    if (d != NULL) {
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
                continue;
            cairn_buf_puts(&b, e->d_name);
            cairn_buf_puts(&b, sep);
        }
        closedir(d);
    }
    cairn_buf_append(&b, "", 1);
    return b.data;
}

void th_copy_file(const char *src, const char *dst, mode_t mode)
{
    char buf[65536];
    ssize_t n;
    int in, out;

    in = open(src, O_RDONLY | O_CLOEXEC);
    ck_assert_msg(in >= 0, "open %s: %s (was it built?)", src, strerror(errno));
    out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    ck_assert_msg(out >= 0, "create %s: %s", dst, strerror(errno));
    while ((n = read(in, buf, sizeof(buf))) > 0)
        ck_assert_msg(cairn_write_all(out, buf, (size_t)n) == 0, "write %s: %s", dst,
                      strerror(errno));
    ck_assert_msg(n == 0, "read %s: %s", src, strerror(errno));
    /* fchmod, not the open mode: the umask must not decide the test. */
    ck_assert_int_eq(fchmod(out, mode), 0);
    ck_assert_int_eq(close(out), 0);
    close(in);
}

void th_write_padded(const char *src, const char *path, size_t size)
{
    size_t len;
    char *bytes = th_read_file(src, &len);
    char *padded = calloc(1, size);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0755);

    ck_assert_uint_le(len, size);
    ck_assert_ptr_nonnull(padded);
    memcpy(padded, bytes, len);
    ck_assert_msg(fd >= 0, "open %s: %s", path, strerror(errno));
    ck_assert_int_eq(write(fd, padded, size), (ssize_t)size);
    ck_assert_int_eq(close(fd), 0);
    free(bytes);
    free(padded);
}

size_t th_padded_size(const char *a, const char *b)
{
    struct stat sa, sb;

    ck_assert_msg(stat(a, &sa) == 0, "stat %s: %s", a, strerror(errno));
    ck_assert_msg(stat(b, &sb) == 0, "stat %s: %s", b, strerror(errno));
    return (size_t)(sa.st_size > sb.st_size ? sa.st_size : sb.st_size) + 4096;
}

void th_rewrite_keeping_time(const char *src, const char *path, size_t size)
{
    struct stat before, after;
    struct timespec times[2];

    ck_assert_msg(stat(path, &before) == 0, "stat %s: %s", path, strerror(errno));
    th_write_padded(src, path, size);
    times[0] = before.st_atim;
    times[1] = before.st_mtim;
    ck_assert_int_eq(utimensat(AT_FDCWD, path, times, 0), 0);
    ck_assert_int_eq(stat(path, &after), 0);
    ck_assert(after.st_dev == before.st_dev && after.st_ino == before.st_ino &&
              after.st_size == before.st_size && after.st_mtim.tv_sec == before.st_mtim.tv_sec &&
              after.st_mtim.tv_nsec == before.st_mtim.tv_nsec);
}

void th_plugins_with_slow(const char *root, char *out)
{
    const char *real = getenv("CAIRN_TEST_PLUGIN_DIR");
    const char *live = getenv("CAIRN_TEST_LIVE_PLUGIN_DIR");
    char dir[PATH_MAX], src[PATH_MAX], dst[PATH_MAX];

    ck_assert_msg(real != NULL && live != NULL, "CAIRN_TEST_PLUGIN_DIR and "
                                                "CAIRN_TEST_LIVE_PLUGIN_DIR must be set (meson "
                                                "test sets them)");
    th_pathf(dir, "%s/slow", root);
    ck_assert_msg(mkdir(dir, 0755) == 0 || errno == EEXIST, "mkdir %s: %s", dir, strerror(errno));
    th_pathf(src, "%s/slow.so", live);
    th_pathf(dst, "%s/slow.so", dir);
    if (!th_exists(dst))
        th_copy_file(src, dst, 0755);
    th_pathf(out, "%s:%s", real, dir);
}

void th_close_slow_gate(const char *root, char *gate)
{
    th_pathf(gate, "%s/slow-gate", root);
    th_write_text(gate, "");
    setenv("CAIRN_SLOW_GATE", gate, 1);
}

void th_open_gate(const char *gate)
{
    TH_REQUIRE(unlink(gate) == 0 || errno == ENOENT, "cannot remove the gate %s: %s", gate,
               strerror(errno));
}

char *th_slow_job(size_t records, int ms, size_t *len)
{
    struct cairn_buf job = { 0 };

    for (size_t i = 0; i < records; i++)
        ck_assert_int_eq(
            cairn_buf_printf(&job, "{\"variant\":\"slow\",\"input\":{\"values\":[%d]}}\n", ms), 0);
    *len = job.len;
    return job.data;
}

/* No ck_assert here: main() calls it before the suite runs. */
int th_copy_plugins(const char *src, const char *dir)
{
    DIR *d = opendir(src);
    struct dirent *e;
    char from[PATH_MAX], to[PATH_MAX], buf[65536];
    int rc = 0;

    if (d == NULL)
        return -1;
    while (rc == 0 && (e = readdir(d)) != NULL) {
        size_t len = strlen(e->d_name);
        ssize_t n;
        int in, out;

        if (e->d_name[0] == '.' || len < 3 || strcmp(e->d_name + len - 3, ".so") != 0)
            continue;
        if ((size_t)snprintf(from, sizeof(from), "%s/%s", src, e->d_name) >= sizeof(from) ||
            (size_t)snprintf(to, sizeof(to), "%s/%s", dir, e->d_name) >= sizeof(to)) {
            rc = -1;
            break;
        }
        in = open(from, O_RDONLY | O_CLOEXEC);
        out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
        while (in >= 0 && out >= 0 && (n = read(in, buf, sizeof(buf))) > 0)
            if (cairn_write_all(out, buf, (size_t)n) != 0)
                rc = -1;
        if (in < 0 || out < 0 || fchmod(out, 0755) != 0)
            rc = -1;
        if (out >= 0 && close(out) != 0)
            rc = -1;
        if (in >= 0)
            close(in);
    }
    closedir(d);
    return rc;
}

char *th_make_dir_in(const char *root)
{
    char *dir = th_xasprintf("%s/case-XXXXXX", root);

    ck_assert_msg(mkdtemp(dir) != NULL, "mkdtemp %s: %s", dir, strerror(errno));
    ck_assert_int_eq(chmod(dir, 0755), 0);
    return dir;
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    if (flag == FTW_DP)
        rmdir(path);
    else
        unlink(path);
    return 0;
}

void th_rm_tree(const char *dir)
{
    nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS | FTW_MOUNT);
}

void th_rm_tree_live(const char *dir)
{
    struct stat st;
    int pass;

    /* Each pass removes all that was there when it listed; the daemon
     * refills only what a pass removed, so a few passes end it. */
    for (pass = 0; pass < 100 && lstat(dir, &st) == 0; pass++)
        th_rm_tree(dir);
    ck_assert_msg(lstat(dir, &st) != 0 && errno == ENOENT,
                  "%s is still there after %d passes of rm -rf", dir, pass);
}

int th_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);
    return n >= k && strcmp(s + n - k, suffix) == 0;
}

/* ------------------------------------------------------------------ */
/* Time                                                                */
/* ------------------------------------------------------------------ */

double th_now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

double th_scaled_ms(double ms)
{
    double k = th_timeout_multiplier();

    /* A deadline is a last resort against a hang: never shortened. */
    return k > 1 ? ms * k : ms;
}

void th_sleep_ms(long ms)
{
    struct timespec ts = { ms / 1000, (ms % 1000) * 1000000L };

    while (nanosleep(&ts, &ts) != 0 && errno == EINTR)
        ;
}

/* ------------------------------------------------------------------ */
/* Test directories and cairnd processes                               */
/* ------------------------------------------------------------------ */

pid_t th_pid[TH_MAX_PROCS];
int th_status[TH_MAX_PROCS];
char th_log[TH_MAX_PROCS][PATH_MAX];
char th_top[PATH_MAX];
pid_t th_runner;

static int g_reaped[TH_MAX_PROCS];
static int g_nprocs;
static char g_dirs[TH_MAX_DIRS][PATH_MAX];
static int g_ndirs;

int th_make_top(const char *name)
{
    const char *tmp = getenv("TMPDIR");

    snprintf(th_top, sizeof(th_top), "%s/cairn-test-%s-XXXXXX", tmp && *tmp ? tmp : "/tmp", name);
    if (mkdtemp(th_top) == NULL) {
        char what[128];

        snprintf(what, sizeof(what), "test_%s: mkdtemp", name);
        perror(what);
        th_top[0] = '\0';
        return -1;
    }
    th_runner = getpid();
    return 0;
}

void th_new_dir(char *root)
{
    ck_assert_int_lt(g_ndirs, TH_MAX_DIRS);
    th_pathf(root, "%s/t-XXXXXX", th_top);
    ck_assert_msg(mkdtemp(root) != NULL, "mkdtemp: %s", strerror(errno));
    memcpy(g_dirs[g_ndirs++], root, PATH_MAX);
}

void th_kill_all(void)
{
    int i;

    for (i = 0; i < g_nprocs; i++) {
        if (th_pid[i] > 0 && !g_reaped[i]) {
            kill(th_pid[i], SIGKILL);
            waitpid(th_pid[i], NULL, 0);
            g_reaped[i] = 1;
        }
    }
    g_nprocs = 0;
}

void th_remove_dirs(void)
{
    int i;

    for (i = 0; i < g_ndirs; i++)
        th_rm_tree(g_dirs[i]);
    g_ndirs = 0;
}

void th_cleanup(void)
{
    th_kill_all();
    th_remove_dirs();
}

void th_cleanup_top(void)
{
    th_cleanup();
    if (getpid() == th_runner && th_top[0] != '\0')
        th_rm_tree(th_top);
}

void th_dump_tail(const char *path, long bytes)
{
    FILE *f = fopen(path, "r");
    char buf[8192];
    long size, want = bytes > 0 && bytes < (long)sizeof(buf) ? bytes : (long)sizeof(buf);
    size_t n;

    if (f == NULL)
        return;
    fseek(f, 0, SEEK_END);
    size = ftell(f);
    fseek(f, size > want ? size - want : 0, SEEK_SET);
    n = fread(buf, 1, (size_t)want, f);
    fclose(f);
    fprintf(stderr, "---- %s (last %zu bytes) ----\n%.*s---- end ----\n", path, n, (int)n, buf);
}

void th_dump_logs(void)
{
    int i = th_settings.dump_last > 0 && g_nprocs > th_settings.dump_last
                ? g_nprocs - th_settings.dump_last
                : 0;

    for (; i < g_nprocs; i++)
        th_dump_tail(th_log[i], th_settings.dump_bytes);
}

pid_t th_spawn_logged(char *const argv[], const char *log)
{
    pid_t pid;

    fflush(NULL);
    pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_APPEND, 0644);
        int null = open("/dev/null", O_RDONLY);

        prctl(PR_SET_PDEATHSIG, SIGKILL);
        if (fd < 0 || null < 0)
            _exit(127);
        dup2(null, 0);
        dup2(fd, 1);
        dup2(fd, 2);
        unsetenv("JOURNAL_STREAM");
        unsetenv("NOTIFY_SOCKET");
        execv(argv[0], argv);
        dprintf(2, "execv %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    return pid;
}

int th_spawn(const char *logdir, char *const argv[])
{
    int p;

    ck_assert_int_lt(g_nprocs, TH_MAX_PROCS);
    p = g_nprocs;
    th_pathf(th_log[p], "%s/cairnd-%d.log", logdir, p);
    th_pid[p] = th_spawn_logged(argv, th_log[p]);
    g_reaped[p] = 0;
    g_nprocs++;
    return p;
}

int th_reap(int p, int flags)
{
    int st;

    if (g_reaped[p])
        return 1;
    if (waitpid(th_pid[p], &st, flags) == th_pid[p]) {
        g_reaped[p] = 1;
        th_status[p] = st;
        return 1;
    }
    return 0;
}

int th_running(int p)
{
    return !th_reap(p, WNOHANG);
}

int th_log_has(int p, const char *text)
{
    return th_file_contains(th_log[p], text);
}

int th_log_lines_with(int p, const char *text)
{
    char *all = th_read_file(th_log[p], NULL), *line = all;
    int n = 0;

    while (line != NULL && *line != '\0') {
        char *nl = strchr(line, '\n');
        if (nl != NULL)
            *nl = '\0';
        n += strstr(line, text) != NULL;
        line = nl != NULL ? nl + 1 : NULL;
    }
    free(all);
    return n;
}

int th_wait_exit(int p, long ms)
{
    int ok;

    TH_POLL(ok, th_reap(p, WNOHANG), ms);
    if (!ok) {
        kill(th_pid[p], SIGKILL);
        th_reap(p, 0);
        TH_REQUIRE(0, "cairnd (%s) did not exit within %ld ms", th_log[p], ms);
    }
    return WIFEXITED(th_status[p]) ? WEXITSTATUS(th_status[p]) : 128 + WTERMSIG(th_status[p]);
}

void th_wait_ready(int p)
{
    TH_EVENTUALLY(th_log_has(p, "watching ") || !th_running(p), TH_DEADLINE_MS,
                  "cairnd did not start watching");
    TH_REQUIRE(th_running(p), "cairnd exited at start-up");
}

void th_stop(int p)
{
    int code;

    TH_REQUIRE(th_running(p), "cairnd is no longer running");
    kill(th_pid[p], SIGTERM);
    code = th_wait_exit(p, TH_LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "cairnd exited %d after SIGTERM", code);
}

void th_env_init(struct th_env *e, const char *cfg_json)
{
    const char *plugins = getenv("CAIRN_TEST_PLUGIN_DIR");

    th_new_dir(e->root);
    th_pathf(e->in, "%s/in", e->root);
    th_pathf(e->out, "%s/out", e->root);
    th_pathf(e->cfg, "%s/cairn.json", e->root);
    th_pathf(e->plugins, "%s", plugins != NULL ? plugins : "");
    th_pathf(e->active, "%s/.cairn/active", e->in);
    th_pathf(e->done, "%s/.cairn/done", e->in);
    th_pathf(e->failed, "%s/.cairn/failed", e->in);
    ck_assert_msg(mkdir(e->in, 0755) == 0, "mkdir %s: %s", e->in, strerror(errno));
    if (cfg_json != NULL)
        th_write_text(e->cfg, cfg_json);
}

/* One name of th_wait_listings, made in spool and waited for in log (the
 * log of process p of the table, or of a daemon started otherwise: p -1). */
static void mark_listing(const char *log, int p, const char *spool)
{
    static unsigned n;
    char dot[PATH_MAX], mark[PATH_MAX], said[PATH_MAX];
    const char *name;

    th_pathf(dot, "%s/.th-listing-%d-%u.tmp", spool, (int)getpid(), ++n);
    th_pathf(mark, "%s/th-listing-%d-%u.mark", spool, (int)getpid(), n);
    name = strrchr(mark, '/') + 1;
    th_pathf(said, "%s is never taken", name);
    /* Written under a dot-name (never said, nor taken), then linked: the
     * link's only event is IN_CREATE, which the daemon does not act on for
     * a name that is never a job. */
    th_write_text(dot, "");
    TH_REQUIRE(link(dot, mark) == 0, "link %s: %s", mark, strerror(errno));
    TH_REQUIRE(unlink(dot) == 0, "unlink %s: %s", dot, strerror(errno));
    TH_EVENTUALLY(th_file_contains(log, said) || (p >= 0 && !th_running(p)), TH_LONG_DEADLINE_MS,
                  "waiting for a listing of %s to say %s; %s has no such line", spool, name, log);
    TH_REQUIRE(p < 0 || th_running(p), "cairnd ended while waiting for a listing of %s", spool);
    unlink(mark);
}

void th_wait_listings(int p, const char *spool, int n)
{
    for (int i = 0; i <= n; i++)
        mark_listing(th_log[p], p, spool);
}

void th_wait_listings_in(const char *log, const char *spool, int n)
{
    for (int i = 0; i <= n; i++)
        mark_listing(log, -1, spool);
}

struct th_run th_run_cairnd(const char *cairnd, const char *scratch_dir, const char *const *args)
{
    return th_run_cairnd_stdin(cairnd, scratch_dir, "/dev/null", args);
}

struct th_run th_run_cairnd_stdin(const char *cairnd, const char *scratch_dir,
                                  const char *stdin_path, const char *const *args)
{
    char *out_path = th_xasprintf("%s/stdout.txt", scratch_dir);
    char *err_path = th_xasprintf("%s/stderr.txt", scratch_dir);
    char *argv[32];
    struct th_run r = { 0 };
    size_t n = 0;
    int st;
    pid_t pid;

    argv[n++] = (char *)cairnd;
    while (*args != NULL && n < 31)
        argv[n++] = (char *)*args++;
    argv[n] = NULL;

    fflush(NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int in = open(stdin_path, O_RDONLY);
        int out = open(out_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        int err = open(err_path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
        if (in < 0 || out < 0 || err < 0 || dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(err, 2) < 0)
            _exit(126);
        unsetenv("JOURNAL_STREAM");
        execv(cairnd, argv);
        _exit(127);
    }
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    r.status = WIFEXITED(st) ? WEXITSTATUS(st) : -1;
    ck_assert_msg(r.status != 127 && r.status != 126, "could not run %s", cairnd);
    r.out = th_read_file(out_path, NULL);
    r.err = th_read_file(err_path, NULL);
    unlink(out_path);
    unlink(err_path);
    free(out_path);
    free(err_path);
    return r;
}

void th_run_free(struct th_run *r)
{
    free(r->out);
    free(r->err);
}

/* ------------------------------------------------------------------ */
/* JSON                                                                */
/* ------------------------------------------------------------------ */

json_t *th_load_json(const char *path)
{
    json_error_t err;
    json_t *v = json_load_file(path, JSON_REJECT_DUPLICATES, &err);

    TH_REQUIRE(v != NULL, "%s is not JSON: %s (line %d)", path, err.text, err.line);
    return v;
}

json_t *th_load_results(const char *path)
{
    size_t len;
    char *s = th_slurp(path, &len), *p, *end;
    json_t *arr = json_array();

    TH_REQUIRE(s != NULL, "%s is missing", path);
    TH_REQUIRE(len == 0 || s[len - 1] == '\n', "%s does not end in a newline", path);
    for (p = s, end = s + len; p < end;) {
        char *nl = memchr(p, '\n', (size_t)(end - p));
        json_error_t err;
        json_t *v = json_loadb(p, (size_t)(nl - p), JSON_REJECT_DUPLICATES, &err);

        TH_REQUIRE(v != NULL && json_is_object(v), "%s: line is not a JSON object (%s): %.*s", path,
                   err.text, (int)(nl - p), p);
        json_array_append_new(arr, v);
        p = nl + 1;
    }
    free(s);
    return arr;
}

long long th_int_field(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    TH_REQUIRE(json_is_integer(v), "\"%s\" is missing or not an integer", key);
    return (long long)json_integer_value(v);
}

const char *th_str_field(json_t *o, const char *key)
{
    json_t *v = json_object_get(o, key);

    TH_REQUIRE(json_is_string(v), "\"%s\" is missing or not a string", key);
    return json_string_value(v);
}

const char *const th_codes[TH_N_CODES] = { "bad_json",      "bad_record", "unknown_variant",
                                           "invalid_input", "constraint", "too_large",
                                           "internal" };

json_t **th_parse_lines(const char *data, size_t len, size_t *n_out, const char *what)
{
    const char *p = data, *end = data + len;
    size_t cap = 16, n = 0;
    json_t **v = malloc(cap * sizeof(*v));

    ck_assert_ptr_nonnull(v);
    ck_assert_msg(len == 0 || end[-1] == '\n', "%s: output does not end in a newline", what);
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        json_error_t e;

        if (n == cap) {
            cap *= 2;
            v = realloc(v, cap * sizeof(*v));
            ck_assert_ptr_nonnull(v);
        }
        v[n] = json_loadb(p, (size_t)(nl - p), JSON_REJECT_DUPLICATES, &e);
        ck_assert_msg(v[n] != NULL && json_is_object(v[n]),
                      "%s: output line %zu is not a JSON object (%s): %.*s", what, n + 1, e.text,
                      (int)((nl - p) > 300 ? 300 : (nl - p)), p);
        n++;
        p = nl + 1;
    }
    *n_out = n;
    return v;
}

void th_free_lines(json_t **v, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++)
        json_decref(v[i]);
    free(v);
}

/* ------------------------------------------------------------------ */
/* Random                                                              */
/* ------------------------------------------------------------------ */

/* th_splitmix64 is inline in rng.h. */

/* ------------------------------------------------------------------ */
/* Deadlines and locks                                                 */
/* ------------------------------------------------------------------ */

#include <sys/sysmacros.h>

double th_timeout_multiplier(void)
{
    const char *env = getenv("CK_TIMEOUT_MULTIPLIER");
    char *end = NULL;
    double m;

    if (env == NULL)
        return 1;
    m = strtod(env, &end);
    return end != env && *end == '\0' && m > 0 ? m : 1;
}

/* A lock as /proc/locks and fdinfo's "lock:" lines give it:
 * "ID: [->] KIND ADVISORY ACCESS PID MAJ:MIN:INO START END". */
struct th_lock {
    char kind[16], access[16];
    int waiting; /* "->": a process blocked behind the lock, not holding it */
    long pid;
    unsigned maj, min;
    unsigned long long ino;
};

static int parse_lock(const char *line, struct th_lock *l)
{
    const char *p = strchr(line, ':');

    if (p == NULL)
        return -EINVAL;
    p += strspn(p + 1, " \t") + 1;
    l->waiting = strncmp(p, "->", 2) == 0;
    if (l->waiting)
        p += 2;
    if (sscanf(p, "%15s %*s %15s %ld %x:%x:%llu", l->kind, l->access, &l->pid, &l->maj, &l->min,
               &l->ino) != 6)
        return -EINVAL;
    return 0;
}

/* The first `size`-1 bytes of a /proc file, NUL-terminated; 0 or -errno.
 * No ck_assert: this runs inside a failure's report. */
static int read_proc(const char *path, char *buf, size_t size)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -errno;
    n = read(fd, buf, size - 1);
    close(fd);
    if (n < 0)
        return -errno;
    buf[n] = '\0';
    return 0;
}

/* buf = /proc/PID/comm without its newline, or "gone". */
static void comm_of(long pid, char *buf, size_t size)
{
    char path[64];

    snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
    if (pid <= 0 || read_proc(path, buf, size) != 0)
        snprintf(buf, size, "gone");
    buf[strcspn(buf, "\n")] = '\0';
}

/* buf = the path of the entry of one of dirs that is inode ino on dev, or
 * "inode INO" when none is. */
static void name_of_inode(const char *const *dirs, size_t n_dirs, dev_t dev, unsigned long long ino,
                          char *buf, size_t size)
{
    snprintf(buf, size, "inode %llu", ino);
    for (size_t i = 0; i < n_dirs; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;
        struct stat st;

        while (d != NULL && (e = readdir(d)) != NULL)
            if (fstatat(dirfd(d), e->d_name, &st, AT_SYMLINK_NOFOLLOW) == 0 && st.st_dev == dev &&
                (unsigned long long)st.st_ino == ino) {
                snprintf(buf, size, "%s/%s (inode %llu)", dirs[i], e->d_name, ino);
                closedir(d);
                return;
            }
        if (d != NULL)
            closedir(d);
    }
}

/* Whether fdinfo text lists a held lock (not a waiter) on maj:min:ino. */
static int fdinfo_holds(char *text, const struct th_lock *want)
{
    for (char *line = strstr(text, "lock:"); line != NULL; line = strstr(line + 1, "lock:")) {
        struct th_lock l;

        if (parse_lock(line + 5, &l) == 0 && !l.waiting && l.maj == want->maj &&
            l.min == want->min && l.ino == want->ino)
            return 1;
    }
    return 0;
}

/* Appends " pid P (COMM) fd N" to b for each open file of each process
 * that holds lock l. */
static void lock_holders(const struct th_lock *l, struct cairn_buf *b)
{
    DIR *proc = opendir("/proc");
    struct dirent *pe;

    while (proc != NULL && (pe = readdir(proc)) != NULL) {
        char dir[64], path[96], text[4096], comm[64];
        long pid = atol(pe->d_name);
        struct dirent *fe;
        DIR *fds;

        if (pid <= 0)
            continue;
        snprintf(dir, sizeof(dir), "/proc/%ld/fdinfo", pid);
        if ((fds = opendir(dir)) == NULL)
            continue;
        while ((fe = readdir(fds)) != NULL) {
            long fd = atol(fe->d_name);

            snprintf(path, sizeof(path), "%s/%ld", dir, fd);
            if (fe->d_name[0] == '.' || read_proc(path, text, sizeof(text)) != 0 ||
                !fdinfo_holds(text, l))
                continue;
            comm_of(pid, comm, sizeof(comm));
            cairn_buf_printf(b, " pid %ld (%s) fd %ld", pid, comm, fd);
        }
        closedir(fds);
    }
    if (proc != NULL)
        closedir(proc);
}

void th_show_locks(const char *const *dirs, size_t n_dirs)
{
    char line[512];
    struct stat st;
    int n = 0;
    FILE *f;

    if (n_dirs == 0 || stat(dirs[0], &st) != 0 || (f = fopen("/proc/locks", "re")) == NULL) {
        fprintf(stderr, "locks: cannot read /proc/locks or stat %s: %s\n",
                n_dirs > 0 ? dirs[0] : "(nothing)", strerror(errno));
        return;
    }
    fprintf(stderr, "---- locks on the file system of %s (/proc/locks) ----\n", dirs[0]);
    while (fgets(line, sizeof(line), f) != NULL) {
        struct cairn_buf holders = { 0 };
        char name[PATH_MAX + 64], comm[64];
        struct th_lock l;

        if (parse_lock(line, &l) != 0 || l.maj != major(st.st_dev) || l.min != minor(st.st_dev))
            continue;
        n++;
        name_of_inode(dirs, n_dirs, st.st_dev, l.ino, name, sizeof(name));
        comm_of(l.pid, comm, sizeof(comm));
        if (!l.waiting)
            lock_holders(&l, &holders);
        fprintf(stderr, "  %s %s %s on %s: taken by pid %ld (%s)%s%s\n", l.kind, l.access,
                l.waiting ? "waited for" : "lock", name, l.pid, comm,
                l.waiting ? "" : "; held now through",
                l.waiting         ? ""
                : holders.len > 0 ? holders.data
                                  : " no open file found");
        free(holders.data);
    }
    fclose(f);
    if (n == 0)
        fprintf(stderr, "  none\n");
    fprintf(stderr, "---- end ----\n");
}
