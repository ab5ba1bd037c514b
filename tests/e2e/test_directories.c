/*
 * test_directories.c - the daemon stays responsive, and loses nothing,
 * whatever happens to its directories while it runs (hardening):
 *   - the output directory removed: no busy loop, signals still served,
 *     and output resumes when the directory is back;
 *   - the output directory renamed away and recreated: outputs and metrics
 *     both follow the path;
 *   - a state folder (.cairn/active, done, failed) removed: recreated once,
 *     and jobs go on;
 *   - a job file with an mtime in the future is taken all the same.
 */
#include <check.h>
#include <dirent.h>
#include <jansson.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <poll.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static const char *g_cairnd;
static const char *g_plugins;

static const char JOB[] =
    "{\"id\":1,\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},"
    "\"expected\":\"Bob\"}\n";

static void env_init(struct th_env *e)
{
    th_env_init(e, "{\"min_age_ms\":0,\"rescan_interval_s\":1,"
                   "\"metrics_interval_s\":1,\"shutdown_timeout_s\":5}\n");
}

/* cairnd on e's spool with the plugin path plugins (NULL: the real ones). */
static int start_with(const struct th_env *e, const char *plugins)
{
    char *argv[] = { (char *)g_cairnd,
                     "-c",
                     (char *)e->cfg,
                     "--input",
                     (char *)e->in,
                     "--output",
                     (char *)e->out,
                     "--plugins",
                     (char *)(plugins != NULL ? plugins : g_plugins),
                     NULL };
    int p = th_spawn(e->root, argv);

    th_wait_ready(p);
    return p;
}

static int start(const struct th_env *e)
{
    return start_with(e, NULL);
}

static int summary_in(const char *dir, const char *job)
{
    char path[PATH_MAX];

    th_pathf(path, "%s/%s.summary.json", dir, job);
    return th_exists(path);
}

/* The inode path has now, or 0 while there is none. */
static ino_t inode_of(const char *path)
{
    struct stat st;

    return lstat(path, &st) == 0 ? st.st_ino : 0;
}

/* Returns once path, written by rename into place, has been replaced. */
static void wait_for_a_rewrite(const char *path)
{
    ino_t before = inode_of(path);

    TH_EVENTUALLY(inode_of(path) != before && inode_of(path) != 0, 15000,
                  "%s was not written again", path);
}

/* Returns once something new is created in dir: the daemon's next try
 * at a file there makes its temporary first (inotify, IN_CREATE). */
static void wait_for_a_try(const char *dir)
{
    struct pollfd pfd = { .events = POLLIN };
    char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    int ok;

    pfd.fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    ck_assert_int_ge(pfd.fd, 0);
    ck_assert_int_ge(inotify_add_watch(pfd.fd, dir, IN_CREATE), 0);
    TH_POLL(ok, poll(&pfd, 1, 0) == 1 && read(pfd.fd, buf, sizeof(buf)) > 0, 30000);
    close(pfd.fd);
    TH_REQUIRE(ok, "nothing was created in %s: no new try", dir);
}

/* SIGTERM is served: exit 0 (a daemon caught in a loop never gets to
 * it, and the deadline says so). */
static void stop_promptly(int p)
{
    int code;

    kill(th_pid[p], SIGTERM);
    code = th_wait_exit(p, TH_LONG_DEADLINE_MS);
    TH_REQUIRE(code == 0, "cairnd exited %d after SIGTERM", code);
}

/* The output directory disappears under a running daemon, and a job
 * arrives.  Once, every handed-back job came straight back: a thousand log
 * lines a second, and SIGTERM never served. */
START_TEST(output_removed_no_busy_loop_and_sigterm_served)
{
    struct th_env e;
    char path[PATH_MAX];
    int p, tries;

    env_init(&e);
    p = start(&e);
    th_rm_tree_live(e.out);
    th_drop_job(e.in, "a.jsonl", JOB, strlen(JOB));
    /* Two rescans' time to come straight back; a busy loop tries hundreds
     * of times in it, the back-off (1 s, 2 s, 4 s, ...) a few. */
    th_wait_listings(p, e.in, 2);
    tries = th_log_lines_with(p, "handed back") + th_log_lines_with(p, "cannot start job");
    TH_REQUIRE(tries <= 8, "%d tries over two rescans with the output directory gone", tries);
    TH_REQUIRE(th_log_has(p, "output directory"), "nothing logged about the output directory");
    /* Nothing is lost: the job waits in the spool. */
    th_pathf(path, "%s/a.jsonl", e.in);
    TH_REQUIRE(th_exists(path), "the job left the input directory while it could not run");
    stop_promptly(p);
    th_cleanup();
}
END_TEST

enum {
    BACK_OFF_RESCANS = 8
};

/* A full output disk: the job's results cannot be written, and it is
 * handed back to the spool.  Its name then backs off (1 s, 2 s, 4 s, ...),
 * whatever inotify and the rescans say, instead of being claimed again at
 * every rescan; once the disk has room, it runs. */
START_TEST(full_output_disk_backs_off_then_runs)
{
    struct th_env e;
    struct cairn_buf job = { 0 };
    char path[PATH_MAX];
    int p, i, tries;

    if (geteuid() != 0) {
        printf("skipped: not root, cannot mount a tmpfs\n");
        return;
    }
    env_init(&e);
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    TH_REQUIRE(mount("tmpfs", e.out, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") == 0,
               "mount tmpfs: %s", strerror(errno));
    /* About 200 KB of results: more than the disk holds. */
    for (i = 0; i < 3000; i++)
        ck_assert_int_eq(cairn_buf_append(&job, JOB, strlen(JOB)), 0);
    p = start(&e);
    th_drop_job(e.in, "big.jsonl", job.data, job.len);
    TH_EVENTUALLY(th_log_lines_with(p, "handed back") >= 1, 10000, "the job was never handed back");
    /* Tries at +1 s, +3 s, +7 s, ..., not at every rescan: a try at each
     * of eight rescans would be nine in all, the back-off needs more than
     * a minute for eight. */
    th_wait_listings(p, e.in, BACK_OFF_RESCANS);
    tries = th_log_lines_with(p, "handed back");
    TH_REQUIRE(tries < BACK_OFF_RESCANS, "%d tries over %d rescans: no back-off", tries,
               BACK_OFF_RESCANS);
    TH_REQUIRE(th_log_has(p, "next try in"), "the back-off was not said");
    th_pathf(path, "%s/big.jsonl", e.in);
    TH_REQUIRE(th_exists(path), "the handed-back job is not in the spool");
    TH_REQUIRE(mount(NULL, e.out, NULL, MS_REMOUNT | MS_NOSUID | MS_NODEV, "size=8m") == 0,
               "remount tmpfs: %s", strerror(errno));
    TH_EVENTUALLY(summary_in(e.out, "big"), 20000, "no summary once the disk had room");
    stop_promptly(p);
    umount2(e.out, MNT_DETACH);
    cairn_buf_free(&job);
    th_cleanup();
}
END_TEST

/* The input directory's disk fills up (a real tmpfs): the live status
 * file cannot be rewritten.  That is said once, not at every try, the
 * daemon goes on, and once there is room the file is written again and
 * that is said too. */
START_TEST(status_file_on_a_full_disk_said_once_then_again)
{
    struct th_env e;
    char status_dir[PATH_MAX], filler[PATH_MAX];
    static char block[4096];
    int p, fd;

    if (geteuid() != 0) {
        printf("skipped: not root, cannot mount a tmpfs\n");
        return;
    }
    env_init(&e);
    TH_REQUIRE(mount("tmpfs", e.in, "tmpfs", MS_NOSUID | MS_NODEV, "size=64k,mode=0755") == 0,
               "mount tmpfs: %s", strerror(errno));
    p = start(&e);
    th_pathf(status_dir, "%s/.cairn/status", e.in);
    TH_EVENTUALLY(th_count_entries(status_dir, "") == 1, 10000, "no status file was written");
    th_pathf(filler, "%s/.filler", e.in);
    fd = open(filler, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ck_assert_int_ge(fd, 0);
    memset(block, 'x', sizeof(block));
    while (write(fd, block, sizeof(block)) > 0)
        ;
    close(fd);
    /* Idle, the file is rewritten every CAIRN_STATUS_HEARTBEAT_S (5 s). */
    TH_EVENTUALLY(th_log_has(p, "cannot write the status file"), 15000,
                  "the failed status write was not said");
    TH_REQUIRE(th_log_has(p, "No space left on device") || th_log_has(p, "no space left on device"),
               "the status warning does not say why");
    wait_for_a_try(status_dir); /* at least one more failed try */
    TH_REQUIRE(th_log_lines_with(p, "cannot write the status file") == 1,
               "the failed status write was said %d times, not once",
               th_log_lines_with(p, "cannot write the status file"));
    TH_REQUIRE(th_running(p), "cairnd died on a full input disk");
    ck_assert_int_eq(unlink(filler), 0);
    TH_EVENTUALLY(th_log_has(p, "written again"), 15000, "the status file's return was not said");
    /* Visible names: the daemon may be rewriting it right now, its
     * temporary beside it. */
    TH_REQUIRE(th_count_visible(status_dir) == 1, "%d status files", th_count_visible(status_dir));
    stop_promptly(p);
    TH_REQUIRE(th_count_entries(status_dir, "") == 0, "the status file outlived its daemon");
    umount2(e.in, MNT_DETACH);
    th_cleanup();
}
END_TEST

/* ... and when it is back, the waiting job is run and published there. */
START_TEST(output_removed_then_back_resumes)
{
    struct th_env e;
    int p;

    env_init(&e);
    p = start(&e);
    th_rm_tree_live(e.out);
    th_drop_job(e.in, "a.jsonl", JOB, strlen(JOB));
    TH_EVENTUALLY(th_log_has(p, "is unusable"), 10000, "the missing output directory was not said");
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    TH_EVENTUALLY(summary_in(e.out, "a"), 10000,
                  "no summary within 10 s of the output directory coming back");
    TH_REQUIRE(th_log_has(p, "is back"), "the directory's return was not logged");
    stop_promptly(p);
    th_cleanup();
}
END_TEST

/* Renamed away and recreated: the next job's outputs and the metrics both
 * go to the directory the path names now, not to the old one. */
START_TEST(output_renamed_and_recreated_followed)
{
    struct th_env e;
    char old[PATH_MAX], metrics[PATH_MAX], old_metrics[PATH_MAX];
    int p;

    env_init(&e);
    p = start(&e);
    th_drop_job(e.in, "before.jsonl", JOB, strlen(JOB));
    TH_EVENTUALLY(summary_in(e.out, "before"), 10000, "first job not finished");
    th_pathf(old, "%s/out.old", e.root);
    ck_assert_int_eq(rename(e.out, old), 0);
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    th_drop_job(e.in, "after.jsonl", JOB, strlen(JOB));
    TH_EVENTUALLY(summary_in(e.out, "after") || summary_in(old, "after"), 10000,
                  "second job not finished");
    TH_REQUIRE(summary_in(e.out, "after"), "the job's outputs went to the renamed directory");
    th_pathf(metrics, "%s/metrics.prom", e.out);
    TH_EVENTUALLY(th_exists(metrics), 5000, "no metrics in the recreated directory");
    /* The old directory gets nothing new from now on: two more metrics
     * writes land in the new one, and none in the old. */
    th_pathf(old_metrics, "%s/metrics.prom", old);
    unlink(old_metrics);
    wait_for_a_rewrite(metrics);
    wait_for_a_rewrite(metrics);
    TH_REQUIRE(!th_exists(old_metrics), "metrics still written to the renamed directory");
    stop_promptly(p);
    th_cleanup();
}
END_TEST

/* The output directory's path is what counts, whatever comes to stand
 * there: a disk mounted over it gets the next job's outputs, and a
 * regular file in its place stops the claims, said with the reason,
 * until a directory is back. */
START_TEST(output_path_followed_across_a_mount_and_a_file)
{
    struct th_env e;
    char under[PATH_MAX], job[PATH_MAX];
    int p;

    if (geteuid() != 0) {
        printf("skipped: not root, cannot mount a tmpfs\n");
        return;
    }
    env_init(&e);
    p = start(&e);
    th_drop_job(e.in, "before.jsonl", JOB, strlen(JOB));
    TH_EVENTUALLY(summary_in(e.out, "before"), 10000, "first job not finished");
    TH_REQUIRE(mount("tmpfs", e.out, "tmpfs", MS_NOSUID | MS_NODEV, "size=1m,mode=0755") == 0,
               "mount tmpfs: %s", strerror(errno));
    th_drop_job(e.in, "mounted.jsonl", JOB, strlen(JOB));
    TH_EVENTUALLY(summary_in(e.out, "mounted"), 10000, "no summary on the mounted disk");
    ck_assert_int_eq(umount2(e.out, MNT_DETACH), 0);
    th_pathf(under, "%s", e.out);
    TH_REQUIRE(!summary_in(under, "mounted"), "the job's outputs went under the mount");

    th_rm_tree_live(e.out);
    th_write_text(e.out, "not a directory\n");
    th_drop_job(e.in, "waits.jsonl", JOB, strlen(JOB));
    TH_EVENTUALLY(th_log_has(p, "is unusable: not a directory"), 10000,
                  "a file in the output directory's place was not said");
    th_wait_listings(p, e.in, 2);
    th_pathf(job, "%s/waits.jsonl", e.in);
    TH_REQUIRE(th_exists(job), "a job was claimed with nowhere to write its outputs");
    ck_assert_int_eq(unlink(e.out), 0);
    ck_assert_int_eq(mkdir(e.out, 0755), 0);
    TH_EVENTUALLY(summary_in(e.out, "waits"), 10000, "the waiting job did not run");
    TH_REQUIRE(th_log_has(p, "is back"), "the directory's return was not said");
    stop_promptly(p);
    th_cleanup();
}
END_TEST

/* A state folder removed under a running daemon is recreated, once, and
 * jobs go on: claims into a removed active/ once failed silently, and jobs
 * finishing into a removed done/ re-ran for ever. */
static void state_folder_removed(const char *which)
{
    struct th_env e;
    char dir[PATH_MAX], path[PATH_MAX];
    int p, runs;

    env_init(&e);
    p = start(&e);
    th_pathf(dir, "%s/.cairn/%s", e.in, which);
    th_rm_tree(dir);
    TH_REQUIRE(!th_exists(dir), "%s still there", dir);
    if (strcmp(which, "failed") == 0) {
        th_pathf(path, "%s/link.jsonl", e.in);
        ck_assert_int_eq(symlink("/etc/passwd", path), 0);
        TH_EVENTUALLY(summary_in(e.out, "link"), 10000, "no summary for the symlink job");
        th_pathf(path, "%s/link.jsonl", dir);
        TH_EVENTUALLY(th_exists(path), 5000, "the symlink job is not in the recreated %s", dir);
    } else {
        th_drop_job(e.in, "a.jsonl", JOB, strlen(JOB));
        TH_EVENTUALLY(summary_in(e.out, "a"), 10000, "no summary with %s removed", which);
        th_pathf(path, "%s/.cairn/done/a.jsonl", e.in);
        TH_EVENTUALLY(th_exists(path), 5000, "the finished job is not in done/");
    }
    th_wait_listings(p, e.in, 2);
    /* Once: a published job is never run again. */
    runs = th_log_lines_with(p, "finished:") + th_log_lines_with(p, "failed:");
    TH_REQUIRE(runs == 1, "the job ran %d times", runs);
    TH_REQUIRE(th_log_lines_with(p, "recreated") == 1, "%d 'recreated' lines, want 1",
               th_log_lines_with(p, "recreated"));
    stop_promptly(p);
    th_cleanup();
}

/* done/ removed while a job runs, no scan in between to recreate it: the
 * finish itself recreates the folder and moves the input there.  Once the
 * move failed ("no such file or directory; handed back") and the job,
 * whose outputs were already published, ran a second time. */
START_TEST(done_removed_while_a_job_finishes_runs_it_once)
{
    struct th_env e;
    char plugins[PATH_MAX], dir[PATH_MAX], path[PATH_MAX];
    size_t len;
    char *job;
    int p;

    env_init(&e);
    /* No rescan while the job runs: only the finish can recreate done/. */
    th_write_text(e.cfg, "{\"min_age_ms\":0,\"rescan_interval_s\":600,"
                         "\"metrics_interval_s\":0,\"shutdown_timeout_s\":5}\n");
    th_plugins_with_slow(e.root, plugins);
    p = start_with(&e, plugins);
    job = th_slow_job(25, 60, &len);
    th_drop_job(e.in, "slow.jsonl", job, len);
    free(job);
    th_pathf(path, "%s/.cairn/active/slow.jsonl", e.in);
    TH_EVENTUALLY(th_exists(path), 10000, "slow.jsonl was not claimed");
    th_pathf(dir, "%s/.cairn/done", e.in);
    th_rm_tree(dir);
    TH_REQUIRE(!th_exists(dir), "%s still there", dir);
    TH_EVENTUALLY(summary_in(e.out, "slow"), 20000, "no summary for slow");
    th_pathf(path, "%s/.cairn/done/slow.jsonl", e.in);
    TH_EVENTUALLY(th_exists(path), 5000, "the finished job is not in the recreated done/");
    /* A job handed back would be claimed again at its hand-back's inotify
     * event, before one dropped after it (no rescans here). */
    th_drop_job(e.in, "after.jsonl", JOB, strlen(JOB));
    TH_EVENTUALLY(summary_in(e.out, "after"), 20000, "no summary for after");
    TH_REQUIRE(th_log_lines_with(p, "job slow claimed") == 1, "the job was claimed %d times",
               th_log_lines_with(p, "job slow claimed"));
    TH_REQUIRE(th_log_lines_with(p, "slow finished:") == 1, "the job ran %d times; the log:\n%s",
               th_log_lines_with(p, "slow finished:"), th_read_file(th_log[p], NULL));
    TH_REQUIRE(th_log_lines_with(p, "handed back") == 0, "the finished job was handed back");
    TH_REQUIRE(th_log_lines_with(p, ".cairn/done was removed or moved away") == 1,
               "the recreation is not in the log once");
    stop_promptly(p);
    th_cleanup();
}
END_TEST

START_TEST(active_removed_is_recreated)
{
    state_folder_removed("active");
}
END_TEST

START_TEST(done_removed_is_recreated)
{
    state_folder_removed("done");
}
END_TEST

START_TEST(failed_removed_is_recreated)
{
    state_folder_removed("failed");
}
END_TEST

/* A job file whose mtime lies a year ahead (tar, rsync -t, cp -p, NFS
 * clock skew), there before the daemon starts, so no inotify event names
 * it: it is taken once it has been quiet for min_age_ms by our clock.
 * Once it waited for the wall clock, and --once never exited. */
static void future_mtime(int once)
{
    struct th_env e;
    char path[PATH_MAX];
    struct timespec t[2];
    int p, code;

    env_init(&e);
    th_write_text(e.cfg, "{\"min_age_ms\":300,\"rescan_interval_s\":1,"
                         "\"shutdown_timeout_s\":5}\n");
    th_pathf(path, "%s/future.jsonl", e.in);
    th_write_file(path, JOB, strlen(JOB), 0644);
    clock_gettime(CLOCK_REALTIME, &t[0]);
    t[0].tv_sec += 365L * 24 * 3600;
    t[1] = t[0];
    ck_assert_int_eq(utimensat(AT_FDCWD, path, t, 0), 0);
    if (once) {
        char *argv[] = {
            (char *)g_cairnd,  "-c",     e.cfg, "--input", e.in, "--output", e.out, "--plugins",
            (char *)g_plugins, "--once", NULL
        };
        p = th_spawn(e.root, argv);
        code = th_wait_exit(p, 10000);
        TH_REQUIRE(code == 0, "cairnd --once exited %d", code);
    } else {
        p = start(&e);
        TH_EVENTUALLY(summary_in(e.out, "future"), 10000,
                      "a job with a future mtime was not taken within 10 s");
        stop_promptly(p);
    }
    TH_REQUIRE(summary_in(e.out, "future"), "no summary for the job with a future mtime");
    th_cleanup();
}

START_TEST(future_mtime_once)
{
    future_mtime(1);
}
END_TEST

START_TEST(future_mtime_daemon)
{
    future_mtime(0);
}
END_TEST

/* A status file in dir that lists one job, opened (its size known), or
 * NULL. */
static json_t *status_listing_a_job(const char *dir)
{
    DIR *d = opendir(dir);
    struct dirent *de;
    json_t *st = NULL;

    while (d != NULL && st == NULL && (de = readdir(d)) != NULL) {
        char path[PATH_MAX];
        json_t *j, *active;

        if (!th_ends_with(de->d_name, ".json"))
            continue;
        th_pathf(path, "%s/%s", dir, de->d_name);
        j = json_load_file(path, 0, NULL);
        active = json_object_get(j, "active");
        if (json_array_size(active) == 1 &&
            json_integer_value(json_object_get(json_array_get(active, 0), "size")) > 0)
            st = j;
        else
            json_decref(j);
    }
    if (d != NULL)
        closedir(d);
    return st;
}

/* The live status file (core/common/status.h): while a job runs, the daemon's
 * file in .cairn/status/ lists it with its size and progress; at a clean
 * exit the file is gone. */
START_TEST(status_file_shows_active_jobs)
{
    struct th_env e;
    char dir[PATH_MAX], path[PATH_MAX], gate[PATH_MAX];
    char *big;
    size_t len;
    int p, ok;
    json_t *st, *job;

    env_init(&e);
    /* Running, on one thread, until the test has seen it listed: 40
     * records of the test plugin "slow", held at its gate. */
    th_write_text(e.cfg, "{\"min_age_ms\":0,\"threads\":1,\"shutdown_timeout_s\":5}\n");
    big = th_slow_job(40, 100, &len);
    th_plugins_with_slow(e.root, path);
    th_close_slow_gate(e.root, gate);
    p = start_with(&e, path);
    th_drop_job(e.in, "big.jsonl", big, len);
    th_pathf(dir, "%s/.cairn/status", e.in);
    /* Until a status file lists the job (rewritten once a second). */
    TH_POLL(ok, (st = status_listing_a_job(dir)) != NULL, 30000);
    TH_REQUIRE(ok, "no status file listed the running job");
    th_open_gate(gate);
    job = json_array_get(json_object_get(st, "active"), 0);
    TH_REQUIRE(strcmp(th_str_field(job, "job"), "big") == 0 &&
                   strcmp(th_str_field(job, "input"), "big.jsonl") == 0 &&
                   th_int_field(job, "size") == (long long)len &&
                   th_int_field(job, "bytes") <= (long long)len &&
                   th_int_field(st, "pid") == (long long)th_pid[p],
               "status: %s", json_dumps(st, JSON_COMPACT));
    json_decref(st);
    TH_EVENTUALLY(summary_in(e.out, "big"), 60000, "the big job did not finish");
    stop_promptly(p);
    TH_POLL(ok, th_count_entries(dir, "") == 0, 2000);
    TH_REQUIRE(ok, "a status file is left after a clean exit: %s", th_list_dir(dir, " "));
    free(big);
    th_cleanup();
}
END_TEST

/* cairnd in a UTS namespace of its own, with host name host. */
static pid_t start_with_host(const struct th_env *e, const char *host, const char *log)
{
    pid_t pid;

    fflush(NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);

        if (fd < 0 || dup2(fd, 1) < 0 || dup2(fd, 2) < 0 || unshare(CLONE_NEWUTS) != 0 ||
            sethostname(host, strlen(host)) != 0)
            _exit(126);
        prctl(PR_SET_PDEATHSIG, SIGKILL);
        execl(g_cairnd, g_cairnd, "-c", e->cfg, "--input", e->in, "--output", e->out, "--plugins",
              g_plugins, (char *)NULL);
        _exit(127);
    }
    return pid;
}

/* A host name that cannot name a file (a slash in it) or that is empty:
 * the status file is named for "localhost" (with the pid and a random
 * part), inside .cairn/status/ and nowhere else; an empty name is
 * "localhost" in it too. */
START_TEST(status_file_name_survives_odd_host_names)
{
    static const char *const hosts[] = { "rack/node-7", "" };
    static const char *const said[] = { "rack/node-7", "localhost" };
    size_t i;

    if (geteuid() != 0) {
        printf("skipped: not root, cannot set a host name\n");
        return;
    }
    for (i = 0; i < 2; i++) {
        struct th_env e;
        char dir[PATH_MAX], log[PATH_MAX], path[PATH_MAX], prefix[64];
        json_t *st = NULL;
        pid_t pid;
        int status, ok;

        env_init(&e);
        th_pathf(log, "%s/cairnd.log", e.root);
        th_pathf(dir, "%s/.cairn/status", e.in);
        pid = start_with_host(&e, hosts[i], log);
        snprintf(prefix, sizeof(prefix), "localhost.%ld.", (long)pid);
        TH_POLL(ok, th_count_entries(dir, prefix) == 1, 10000);
        if (!ok)
            th_dump_tail(log, 4096);
        TH_REQUIRE(ok, "host \"%s\": no status file %s* in %s: %s", hosts[i], prefix, dir,
                   th_list_dir(dir, " "));
        /* Its one file there (a rewrite's dot-temporary may sit beside it). */
        TH_REQUIRE(th_count_visible(dir) == 1, "host \"%s\": %s", hosts[i], th_list_dir(dir, " "));
        {
            DIR *d = opendir(dir);
            struct dirent *de;

            ck_assert_ptr_nonnull(d);
            while ((de = readdir(d)) != NULL)
                if (strncmp(de->d_name, prefix, strlen(prefix)) == 0)
                    th_pathf(path, "%s/%s", dir, de->d_name);
            closedir(d);
        }
        TH_POLL(ok, (st = json_load_file(path, 0, NULL)) != NULL, 2000);
        TH_REQUIRE(st != NULL, "host \"%s\": %s does not parse", hosts[i], path);
        TH_REQUIRE(strcmp(th_str_field(st, "host"), said[i]) == 0, "host \"%s\": status says %s",
                   hosts[i], th_str_field(st, "host"));
        json_decref(st);
        ck_assert_int_eq(kill(pid, SIGTERM), 0);
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        TH_REQUIRE(WIFEXITED(status) && WEXITSTATUS(status) == 0, "host \"%s\": exit status %d",
                   hosts[i], status);
        TH_REQUIRE(th_count_entries(dir, "") == 0, "host \"%s\": status file left: %s", hosts[i],
                   th_list_dir(dir, " "));
        th_cleanup();
    }
}
END_TEST

/* A file the spool will never take (named *.json, *.txt, ...) is said in
 * the log once while it stays, whether a scan or inotify found it, and
 * said again if it comes back; a producer's temporaries (dot-files,
 * *.tmp) are not mentioned.  It used to be ignored without a word. */
START_TEST(never_taken_files_said_once)
{
    struct th_env e;
    char path[PATH_MAX];
    int p;

    env_init(&e);
    TH_IN(path, &e, "early.json");
    th_write_text(path, JOB);
    TH_IN(path, &e, ".hidden.jsonl");
    th_write_text(path, JOB);
    TH_IN(path, &e, "x.jsonl.tmp");
    th_write_text(path, JOB);
    p = start(&e);
    th_drop_job(e.in, "late.txt", JOB, strlen(JOB)); /* by rename: inotify */
    TH_IN(path, &e, "inplace.json");
    th_write_text(path, JOB); /* written in place: inotify's close */
    th_drop_job(e.in, "real.jsonl", JOB, strlen(JOB));
    TH_EVENTUALLY(summary_in(e.out, "real"), 10000, "the real job was not done within 10 s");
    /* Three rescans see the same files again. */
    th_wait_listings(p, e.in, 3);
    TH_REQUIRE(th_log_lines_with(p, "early.json is never taken") == 1, "early.json said %d times",
               th_log_lines_with(p, "early.json is never taken"));
    TH_REQUIRE(th_log_lines_with(p, "late.txt is never taken") == 1, "late.txt said %d times",
               th_log_lines_with(p, "late.txt is never taken"));
    TH_REQUIRE(th_log_lines_with(p, "inplace.json is never taken") == 1,
               "inplace.json said %d times", th_log_lines_with(p, "inplace.json is never taken"));
    TH_REQUIRE(th_log_lines_with(p, "hidden") == 0 && th_log_lines_with(p, "x.jsonl.tmp") == 0,
               "a producer's temporary was mentioned");
    TH_REQUIRE(th_log_lines_with(p, "real.jsonl is never taken") == 0,
               "a job file was called never taken");
    /* Gone, then back: said again. */
    TH_IN(path, &e, "early.json");
    ck_assert_int_eq(unlink(path), 0);
    th_wait_listings(p, e.in, 1); /* one that forgets it */
    th_drop_job(e.in, "early.json", JOB, strlen(JOB));
    TH_EVENTUALLY(th_log_lines_with(p, "early.json is never taken") == 2, 5000,
                  "early.json, back again, was not said again");
    stop_promptly(p);
    th_cleanup();
}
END_TEST

/* active/ replaced by a file: it cannot be recreated, and every claim
 * fails.  A job that ends that way once had its name looked up and
 * claimed again at once: thousands of tries a second.  Now it waits for
 * a scan that finds the folder back. */
START_TEST(active_replaced_by_a_file_no_busy_loop)
{
    struct th_env e;
    char dir[PATH_MAX], old[PATH_MAX], path[PATH_MAX];
    int p, errors;

    env_init(&e);
    p = start(&e);
    th_pathf(dir, "%s/.cairn/active", e.in);
    /* Swapped in one step (RENAME_EXCHANGE): removed first, the folder
     * could be recreated by the running daemon before the file took its
     * place (it was, once, under the sanitizers and CPU burners). */
    th_pathf(old, "%s/.cairn/active-old", e.in);
    th_write_text(old, "not a folder\n");
    ck_assert_msg(renameat2(AT_FDCWD, old, AT_FDCWD, dir, RENAME_EXCHANGE) == 0,
                  "exchange %s and %s: %s", old, dir, strerror(errno));
    th_rm_tree(old);
    th_drop_job(e.in, "a.jsonl", JOB, strlen(JOB));
    th_wait_listings(p, e.in, 1);
    errors = th_log_lines_with(p, "cannot recreate");
    TH_REQUIRE(errors <= 8, "%d failed repairs over a rescan or two", errors);
    th_pathf(path, "%s/a.jsonl", e.in);
    TH_REQUIRE(th_exists(path), "the job left the input directory while it could not run");
    /* Back to a folder: the job runs. */
    ck_assert_int_eq(unlink(dir), 0);
    TH_EVENTUALLY(summary_in(e.out, "a"), 10000, "no summary once active/ could be recreated");
    stop_promptly(p);
    th_cleanup();
}
END_TEST

/* A job stranded in active/ while the daemon runs (a daemon sharing the
 * spool died with it) is run by the next rescan, not only at a restart. */
START_TEST(job_stranded_in_active_is_run_by_a_rescan)
{
    struct th_env e;
    char path[PATH_MAX];
    int p;

    env_init(&e);
    p = start(&e);
    th_pathf(path, "%s/.cairn/active/orphan.jsonl", e.in);
    th_write_text(path, JOB);
    TH_EVENTUALLY(summary_in(e.out, "orphan"), 10000,
                  "a job left in active/ was not run by a rescan (rescan_interval_s 1)");
    th_pathf(path, "%s/.cairn/done/orphan.jsonl", e.in);
    TH_EVENTUALLY(th_exists(path), 5000, "the stranded job is not in done/");
    stop_promptly(p);
    th_cleanup();
}
END_TEST

int main(void)
{
    Suite *s = suite_create("directories");
    TCase *tc = tcase_create("output_dir");
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_cairnd == NULL || g_plugins == NULL) {
        fprintf(stderr, "test_directories: CAIRN_TEST_CAIRND and CAIRN_TEST_PLUGIN_DIR must "
                        "be set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("directories") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    tcase_add_test(tc, output_removed_no_busy_loop_and_sigterm_served);
    tcase_add_test(tc, output_removed_then_back_resumes);
    tcase_add_test(tc, full_output_disk_backs_off_then_runs);
    tcase_add_test(tc, status_file_on_a_full_disk_said_once_then_again);
    tcase_add_test(tc, output_renamed_and_recreated_followed);
    tcase_add_test(tc, output_path_followed_across_a_mount_and_a_file);
    tcase_add_test(tc, active_removed_is_recreated);
    tcase_add_test(tc, done_removed_is_recreated);
    tcase_add_test(tc, done_removed_while_a_job_finishes_runs_it_once);
    tcase_add_test(tc, failed_removed_is_recreated);
    tcase_add_test(tc, future_mtime_once);
    tcase_add_test(tc, future_mtime_daemon);
    tcase_add_test(tc, status_file_shows_active_jobs);
    tcase_add_test(tc, status_file_name_survives_odd_host_names);
    tcase_add_test(tc, never_taken_files_said_once);
    tcase_add_test(tc, active_replaced_by_a_file_no_busy_loop);
    tcase_add_test(tc, job_stranded_in_active_is_run_by_a_rescan);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_ENV, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
