/*
 * test_systemd.c - cairn as a systemd service: the unit verifies and is
 * hardened, plugins load under MemoryDenyWriteExecute, the daemon speaks
 * sd_notify on a real socket, and logs carry <N> prefixes for journald.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

#ifndef PR_SET_MDWE
#define PR_SET_MDWE              65
#define PR_MDWE_REFUSE_EXEC_GAIN 1
#endif

static const char *env_or_die(const char *name)
{
    const char *v = getenv(name);
    if (v == NULL) {
        fprintf(stderr, "%s is not set: run through meson test\n", name);
        exit(2);
    }
    return v;
}

static char tmpdir[256];

static void make_tmpdir(void)
{
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/cairn-test-systemd-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmpdir));
}

static void remove_tmpdir(void)
{
    char cmd[300];
    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
}

/* Runs a shell command, returns its exit status and (up to cap) output. */
static int run(const char *cmd, char *out, size_t cap)
{
    FILE *p = popen(cmd, "r");
    size_t n = 0;
    int st;

    ck_assert_ptr_nonnull(p);
    while (n + 1 < cap && fgets(out + n, (int)(cap - n), p) != NULL)
        n += strlen(out + n);
    out[n] = '\0';
    st = pclose(p);
    return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static int have(const char *prog)
{
    char cmd[200], out[256];
    snprintf(cmd, sizeof(cmd), "command -v %s", prog);
    return run(cmd, out, sizeof(out)) == 0;
}

/* The installed unit names the installed binary; point it at the build. */
static void local_unit(char *path, size_t cap)
{
    char cmd[1024], out[256];

    snprintf(path, cap, "%s/cairn.service", tmpdir);
    snprintf(cmd, sizeof(cmd), "sed 's#^ExecStart=[^ ]*#ExecStart=%s#' '%s' > '%s'",
             env_or_die("CAIRN_TEST_CAIRND"), env_or_die("CAIRN_TEST_UNIT"), path);
    ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
}

START_TEST(unit_verifies)
{
    char unit[300], cmd[600], out[4096];

    if (!have("systemd-analyze"))
        return;
    make_tmpdir();
    local_unit(unit, sizeof(unit));
    /* --man=no: the man page is checked by its own test, not installed here. */
    snprintf(cmd, sizeof(cmd), "systemd-analyze verify --man=no '%s' 2>&1", unit);
    ck_assert_msg(run(cmd, out, sizeof(out)) == 0 && out[0] == '\0', "systemd-analyze verify: %s",
                  out);
    remove_tmpdir();
}
END_TEST

START_TEST(unit_is_hardened)
{
    char unit[300], cmd[600], out[16384];
    const char *p;
    double score;

    if (!have("systemd-analyze"))
        return;
    make_tmpdir();
    local_unit(unit, sizeof(unit));
    snprintf(cmd, sizeof(cmd), "systemd-analyze security --offline=yes --no-pager '%s' 2>&1", unit);
    run(cmd, out, sizeof(out));
    p = strstr(out, "Overall exposure level for cairn.service: ");
    ck_assert_msg(p != NULL, "no exposure level in: %s", out);
    score = strtod(p + strlen("Overall exposure level for cairn.service: "), NULL);
    ck_assert_msg(score <= 2.0, "exposure %.1f > 2.0", score);
    remove_tmpdir();
}
END_TEST

/* MemoryDenyWriteExecute= is PR_SET_MDWE's policy: plugins are plain
 * file-backed r-x mappings, so they must still load under it. */
START_TEST(plugins_load_without_write_execute_check)
{
    char conf[300], cmd[1200], out[4096];
    FILE *f;
    int rc;

    make_tmpdir();
    snprintf(conf, sizeof(conf), "%s/c.json", tmpdir);
    f = fopen(conf, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{}", f);
    fclose(f);
    /* This program re-executes itself to set MDWE, then runs cairnd. */
    snprintf(cmd, sizeof(cmd), "%s --mdwe-exec %s --check -c %s --plugins %s 2>&1",
             env_or_die("CAIRN_TEST_SELF"), env_or_die("CAIRN_TEST_CAIRND"), conf,
             env_or_die("CAIRN_TEST_PLUGIN_DIR"));
    rc = run(cmd, out, sizeof(out));
    if (rc == 77) {
        remove_tmpdir();
        return;
    }
    ck_assert_msg(rc == 0, "cairnd --check under MDWE exited %d: %s", rc, out);
    ck_assert_msg(strstr(out, "stone-game-iii") != NULL, "plugins not listed: %s", out);
    remove_tmpdir();
}
END_TEST

/* ---- sd_notify ----------------------------------------------------------- */

static int bind_notify_socket(char *path, size_t cap)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct timeval tv = { .tv_sec = 10 };
    int fd = socket(AF_UNIX, SOCK_DGRAM, 0);

    ck_assert_int_ge(fd, 0);
    snprintf(path, cap, "%s/notify.sock", tmpdir);
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    ck_assert_int_eq(bind(fd, (struct sockaddr *)&sa, sizeof(sa)), 0);
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    return fd;
}

/* Reads datagrams until one contains want; returns it (static buffer). */
static const char *expect(int fd, const char *want)
{
    static char buf[1024];

    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
        ck_assert_msg(n >= 0, "no datagram with \"%s\" within 10 s", want);
        buf[n] = '\0';
        if (strstr(buf, want) != NULL)
            return buf;
    }
}

/* plugins: NULL for the real ones. */
static pid_t start_daemon_with(const char *sock, const char *watchdog_usec, const char *plugins)
{
    char in[300], out[300], conf[300];
    pid_t pid;
    FILE *f;

    snprintf(in, sizeof(in), "%s/in", tmpdir);
    snprintf(out, sizeof(out), "%s/out", tmpdir);
    snprintf(conf, sizeof(conf), "%s/c.json", tmpdir);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    f = fopen(conf, "w");
    ck_assert_ptr_nonnull(f);
    fputs("{\"log_level\":\"error\"}", f);
    fclose(f);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        setenv("NOTIFY_SOCKET", sock, 1);
        if (watchdog_usec != NULL)
            setenv("WATCHDOG_USEC", watchdog_usec, 1);
        execl(env_or_die("CAIRN_TEST_CAIRND"), "cairnd", "-c", conf, "--input", in, "--output", out,
              "--plugins", plugins != NULL ? plugins : env_or_die("CAIRN_TEST_PLUGIN_DIR"),
              (char *)NULL);
        _exit(127);
    }
    return pid;
}

static pid_t start_daemon(const char *sock, const char *watchdog_usec)
{
    return start_daemon_with(sock, watchdog_usec, NULL);
}

/* Hands a job of `copies` times `line` to the daemon's spool whole: written
 * under a dot name, then renamed in. */
static void drop_job(const char *name, const char *line, int copies)
{
    char tmp[300], job[300];
    FILE *f;
    int i;

    snprintf(tmp, sizeof(tmp), "%s/in/.%s", tmpdir, name);
    snprintf(job, sizeof(job), "%s/in/%s", tmpdir, name);
    f = fopen(tmp, "w");
    ck_assert_ptr_nonnull(f);
    for (i = 0; i < copies; i++)
        fputs(line, f);
    ck_assert_int_eq(fclose(f), 0);
    ck_assert_int_eq(rename(tmp, job), 0);
}

START_TEST(notify_lifecycle)
{
    char sock[300];
    const char *m;
    pid_t pid;
    int fd, st;

    make_tmpdir();
    fd = bind_notify_socket(sock, sizeof(sock));
    pid = start_daemon(sock, "400000");

    m = expect(fd, "READY=1");
    ck_assert_msg(strstr(m, "STATUS=") != NULL && strstr(m, "queued") != NULL,
                  "READY without live STATUS: %s", m);
    /* Half of 400 ms: several pings within a second. */
    expect(fd, "WATCHDOG=1");
    expect(fd, "WATCHDOG=1");

    kill(pid, SIGHUP);
    m = expect(fd, "RELOADING=1");
    ck_assert_msg(strstr(m, "MONOTONIC_USEC=") != NULL, "RELOADING without MONOTONIC_USEC: %s", m);
    expect(fd, "READY=1");

    kill(pid, SIGTERM);
    expect(fd, "STOPPING=1");
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(fd);
    remove_tmpdir();
}
END_TEST

START_TEST(no_watchdog_without_watchdog_usec)
{
    char sock[300], buf[512];
    pid_t pid;
    int fd, st;
    struct timeval tv = { .tv_usec = 600000 };

    make_tmpdir();
    fd = bind_notify_socket(sock, sizeof(sock));
    pid = start_daemon(sock, NULL);
    expect(fd, "READY=1");
    setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
    for (;;) {
        ssize_t n = recv(fd, buf, sizeof(buf) - 1, 0);
        if (n < 0)
            break;
        buf[n] = '\0';
        ck_assert_msg(strstr(buf, "WATCHDOG=1") == NULL, "WATCHDOG=1 sent without WATCHDOG_USEC");
    }
    kill(pid, SIGTERM);
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    close(fd);
    remove_tmpdir();
}
END_TEST

/* Between READY=1 and STOPPING=1, STATUS= is refreshed every few seconds
 * with live counts: a job dropped into the spool shows up as done. */
START_TEST(status_follows_the_jobs)
{
    static const char rec[] = "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n";
    char sock[300];
    pid_t pid;
    int fd, st;

    make_tmpdir();
    fd = bind_notify_socket(sock, sizeof(sock));
    pid = start_daemon(sock, NULL);
    expect(fd, "READY=1");
    drop_job("j.jsonl", rec, 1);
    expect(fd, "STATUS=0 queued, 0 active, 1 done, 0 failed; ");
    kill(pid, SIGTERM);
    expect(fd, "STOPPING=1");
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    ck_assert(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    close(fd);
    remove_tmpdir();
}
END_TEST

/* A stop with jobs still running asks systemd for the drain's time
 * (shutdown_timeout_s, 30 s here, and 10 s for the abort's file wait and
 * the exit): the unit's TimeoutStopSec= (45 s) must not SIGKILL a longer
 * drain, which would count a run of every active job that never ended. */
START_TEST(a_stop_with_jobs_running_asks_for_the_drain_s_time)
{
    char sock[300], plugins[300], cmd[900], out[256];
    const char *m;
    pid_t pid;
    int fd, st;

    make_tmpdir();
    snprintf(plugins, sizeof(plugins), "%s/plugins", tmpdir);
    ck_assert_int_eq(mkdir(plugins, 0755), 0);
    snprintf(cmd, sizeof(cmd), "cp '%s/slow.so' '%s/'", env_or_die("CAIRN_TEST_LIVE_PLUGIN_DIR"),
             plugins);
    ck_assert_int_eq(run(cmd, out, sizeof(out)), 0);
    fd = bind_notify_socket(sock, sizeof(sock));
    pid = start_daemon_with(sock, NULL, plugins);
    expect(fd, "READY=1");
    /* 20 records, 10 s on two workers: running at the first STATUS= */
    drop_job("slow.jsonl", "{\"variant\":\"slow\",\"input\":{\"values\":[1000]}}\n", 20);
    expect(fd, ", 1 active,");
    kill(pid, SIGTERM);
    m = expect(fd, "STOPPING=1");
    ck_assert_msg(strstr(m, "EXTEND_TIMEOUT_USEC=40000000\n") != NULL, "no extension: %s", m);
    kill(pid, SIGKILL); /* the drain itself is test_daemon's */
    ck_assert_int_eq(waitpid(pid, &st, 0), pid);
    close(fd);
    remove_tmpdir();
}
END_TEST

/* ---- journald prefixes ----------------------------------------------------- */

static void run_once_with_log(const char *log, int journal, char *text, size_t cap)
{
    char in[300], out[300], cmd[1500];
    struct stat st;
    FILE *f;
    size_t n;
    int fd;

    snprintf(in, sizeof(in), "%s/in%d", tmpdir, journal);
    snprintf(out, sizeof(out), "%s/out%d", tmpdir, journal);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    /* One bad job so an error line is logged too. */
    snprintf(cmd, sizeof(cmd), "ln -s /etc/hostname %s/bad.jsonl", in);
    ck_assert_int_eq(system(cmd), 0);
    fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(fstat(fd, &st), 0);
    close(fd);
    snprintf(cmd, sizeof(cmd), "echo '{\"min_age_ms\":0}' > %s/c.json", tmpdir);
    ck_assert_int_eq(system(cmd), 0);
    snprintf(
        cmd, sizeof(cmd),
        "%s%llu:%llu %s --once -c %s/c.json --input %s --output %s --plugins %s 2>>%s",
        journal ? "JOURNAL_STREAM=" : "env -u JOURNAL_STREAM X=", (unsigned long long)st.st_dev,
        (unsigned long long)st.st_ino, env_or_die("CAIRN_TEST_CAIRND"), tmpdir, in, out,
        env_or_die("CAIRN_TEST_PLUGIN_DIR"), log);
    ck_assert_int_eq(WEXITSTATUS(system(cmd)), 1); /* the bad job failed */
    f = fopen(log, "r");
    ck_assert_ptr_nonnull(f);
    n = fread(text, 1, cap - 1, f);
    text[n] = '\0';
    fclose(f);
}

START_TEST(journal_stream_gets_priorities)
{
    char log[300], text[8192], *line, *save = NULL;
    int lines = 0, errors = 0;

    make_tmpdir();
    snprintf(log, sizeof(log), "%s/journal.log", tmpdir);
    run_once_with_log(log, 1, text, sizeof(text));
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        ck_assert_msg(line[0] == '<' && line[1] >= '0' && line[1] <= '7' && line[2] == '>',
                      "line without a <N> prefix: %s", line);
        errors += line[1] == '3';
        lines++;
    }
    ck_assert_int_gt(lines, 2);
    ck_assert_msg(errors >= 1, "the failed job was not logged at <3>");
    remove_tmpdir();
}
END_TEST

START_TEST(plain_stderr_gets_timestamps)
{
    char log[300], text[8192], *line, *save = NULL;

    make_tmpdir();
    snprintf(log, sizeof(log), "%s/plain.log", tmpdir);
    run_once_with_log(log, 0, text, sizeof(text));
    for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        ck_assert_msg(line[0] != '<', "prefix without JOURNAL_STREAM: %s", line);
        /* 2026-11-29T15:47:16.420Z cairnd info: ... */
        ck_assert_msg(strlen(line) > 25 && line[4] == '-' && line[10] == 'T' && line[23] == 'Z',
                      "no timestamp: %s", line);
    }
    remove_tmpdir();
}
END_TEST

/* `test_systemd --mdwe-exec PROGRAM ARGS...`: set MDWE and exec, so the
 * test can run cairnd under MemoryDenyWriteExecute's policy. */
static int mdwe_exec(char **argv)
{
    if (prctl(PR_SET_MDWE, PR_MDWE_REFUSE_EXEC_GAIN, 0, 0, 0) != 0)
        return 77;
    execv(argv[0], argv);
    return 127;
}

int main(int argc, char **argv)
{
    Suite *s = suite_create("systemd");
    TCase *unit = tcase_create("unit");
    TCase *notify = tcase_create("sd_notify");
    TCase *logs = tcase_create("journald");
    int failed;

    if (argc > 2 && strcmp(argv[1], "--mdwe-exec") == 0)
        return mdwe_exec(argv + 2);
    setenv("CAIRN_TEST_SELF", argv[0], 1);
    tcase_add_test(unit, unit_verifies);
    tcase_add_test(unit, unit_is_hardened);
    tcase_add_test(unit, plugins_load_without_write_execute_check);
    tcase_set_timeout(unit, 60);
    tcase_add_test(notify, notify_lifecycle);
    tcase_add_test(notify, no_watchdog_without_watchdog_usec);
    tcase_add_test(notify, status_follows_the_jobs);
    tcase_add_test(notify, a_stop_with_jobs_running_asks_for_the_drain_s_time);
    tcase_set_timeout(notify, 60);
    tcase_add_test(logs, journal_stream_gets_priorities);
    tcase_add_test(logs, plain_stderr_gets_timestamps);
    suite_add_tcase(s, unit);
    suite_add_tcase(s, notify);
    suite_add_tcase(s, logs);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? 0 : 1;
}
