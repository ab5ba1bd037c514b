/*
 * harness.h - helpers shared by the test programs (one copy each).
 *
 * Everything here is named th_*.  Failures are reported with Check's
 * ck_assert*() / ck_abort_msg(), so these are only for use inside tests
 * (and, where said, in main() before the suite runs).
 *
 *   Files          th_pathf, th_xasprintf, th_write_file (cairn_write_all from util.h),
 *                  th_write_text, th_slurp, th_slurp_nofollow, th_read_file,
 *                  th_exists, th_file_contains, th_count_entries,
 *                  th_count_visible, th_count_left_temps,
 *                  th_list_dir, th_copy_file, th_write_padded, th_padded_size,
 *                  th_rewrite_keeping_time, th_copy_plugins,
 *                  th_make_dir_in, th_rm_tree, th_ends_with
 *   Time           th_now_s, th_sleep_ms, th_scaled_ms, TH_POLL, TH_EVENTUALLY
 *   Failures       TH_REQUIRE: on failure runs th_on_failure (by default
 *                  th_dump_logs), then ck_abort_msg
 *   A test's dir   struct th_env, th_env_init
 *   Handshakes     th_wait_listings (th_wait_listings_in): n rescans seen;
 *                  th_close_slow_gate, th_open_gate: a job held in flight
 *                  (and slow_fsync.c's gate, a write held at its fsync)
 *   cairnd runs    a table of processes started with th_spawn (stdout and
 *                  stderr appended to a log), th_reap, th_running,
 *                  th_log_has, th_wait_exit, th_wait_ready, th_stop;
 *                  test directories under one top directory (th_make_top,
 *                  th_new_dir) removed by th_cleanup / th_cleanup_top;
 *                  th_run_cairnd (th_run_cairnd_stdin) runs cairnd once with
 *                  its output captured
 *   JSON           th_load_json, th_load_results, th_int_field,
 *                  th_str_field, th_codes, th_parse_lines, th_free_lines
 *   Random         th_splitmix64 (rng.h, included)
 *   main()         th_run_suite: the suite run, its failures counted
 */
#ifndef CAIRN_TEST_HARNESS_H
#define CAIRN_TEST_HARNESS_H

#include <check.h>
#include <jansson.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "rng.h"

#define TH_DEADLINE_MS      15000 /* wait_ready: "soon" */
#define TH_LONG_DEADLINE_MS 60000 /* stop: the exit after SIGTERM */

/* Settings a test program may change in main(), before the suite runs. */
struct th_settings {
    long poll_ms;    /* TH_POLL's interval (default 10) */
    int dump_last;   /* th_dump_logs: only the last N logs (0, the default: all) */
    long dump_bytes; /* th_dump_logs: the last bytes of each log (default 8192) */
};
extern struct th_settings th_settings;

/* Runs s (freed after) with Check's output mode (CK_ENV: CK_VERBOSITY
 * decides), each test in a process of its own unless fork is 0; returns
 * how many tests failed.  Every test program's main() ends with it. */
int th_run_suite(Suite *s, enum print_output mode, int fork);

/* ---- files ------------------------------------------------------- */

/* buf (PATH_MAX bytes) = the formatted path; fails if it is too long. */
void th_pathf(char *buf, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* A malloc'd formatted string (caller frees). */
char *th_xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* The safe hand-off a producer uses: data written to a dot-file in the
 * spool directory, then renamed to `name` (its temporary name is short, so
 * any job name works). */
void th_drop_job(const char *spool, const char *name, const char *data, size_t len);

/* buf = (e)->in or (e)->out joined with a relative path, for any test
 * environment struct that has `in` and `out` directories. */
#define TH_IN(buf, e, ...)                     \
    do {                                       \
        char rel_[PATH_MAX];                   \
        th_pathf(rel_, __VA_ARGS__);           \
        th_pathf(buf, "%s/%s", (e)->in, rel_); \
    } while (0)
#define TH_OUT(buf, e, ...)                     \
    do {                                        \
        char rel_[PATH_MAX];                    \
        th_pathf(rel_, __VA_ARGS__);            \
        th_pathf(buf, "%s/%s", (e)->out, rel_); \
    } while (0)

/* Creates or truncates path with data and gives it exactly `mode`. */
void th_write_file(const char *path, const char *data, size_t len, mode_t mode);
/* th_write_file of a string, mode 0644. */
void th_write_text(const char *path, const char *text);
/* The whole file, NUL-terminated (*len_out, if given, excludes the NUL);
 * NULL if it cannot be opened.  th_slurp_nofollow does not follow a
 * symlink in the last component (NULL then). */
char *th_slurp(const char *path, size_t *len_out);
char *th_slurp_nofollow(const char *path, size_t *len_out);
/* The crash count of active_dir/name as the daemon keeps it (attempts.h):
 * the file's user.cairn.attempts attribute, or where there is none, the
 * "INODE COUNT" in active_dir/.cairn-attempts.HASH for that file's inode;
 * 0 when neither has one. */
unsigned th_attempts_of(const char *active_dir, const char *name);
/* th_slurp that fails when path cannot be opened. */
char *th_read_file(const char *path, size_t *len_out);
/* lstat succeeds. */
int th_exists(const char *path);
/* The file exists and holds needle. */
int th_file_contains(const char *path, const char *needle);
/* Entries of dir (without . and ..) whose name starts with prefix ("" for
 * all); -1 when the directory cannot be opened. */
int th_count_entries(const char *dir, const char *prefix);
/* Entries of dir that are not dot-files (a writer's temporaries). */
int th_count_visible(const char *dir);
/* Dot-files of dir whose name starts with prefix (".", ".cairn.", ...)
 * that no live process has open: temporaries a dead or departed writer
 * left behind, never one a running daemon is writing now (a periodic
 * metrics or status rewrite comes and goes at any moment).  The same
 * question cairn_tmpfile_sweep asks with the temporary's lock, which its
 * writer holds from just after the create until the rename; asked here by
 * the open descriptor (there is no lock without one, and a descriptor
 * covers the instant between the create and the lock too), since taking
 * the lock to see would make such a writer give its name up.  Also counts
 * any dot-entry that is not a regular file; -1 when dir cannot be read. */
int th_count_left_temps(const char *dir, const char *prefix);
/* The names in dir, each followed by sep, for messages (caller frees). */
char *th_list_dir(const char *dir, const char *sep);
/* Copies src to the new file dst (which must not exist) and gives it
 * exactly `mode`. */
void th_copy_file(const char *src, const char *dst, mode_t mode);
/* Writes src's bytes to path (created, or overwritten in place: the same
 * inode), padded with zeros to size bytes: two plugins of one size, for
 * a test that swaps one for the other under the same inode and time. */
void th_write_padded(const char *src, const char *path, size_t size);
/* The size th_write_padded needs for either of files a and b. */
size_t th_padded_size(const char *a, const char *b);
/* th_write_padded(src, path, size) over the file path already is, its
 * access and modification times then set back: the same device, inode,
 * size and time, other bytes (asserted), which only a hash of the bytes
 * tells apart. */
void th_rewrite_keeping_time(const char *src, const char *path, size_t size);
/* Copies every "*.so" in src into dir, mode 0755: a plugin directory
 * made of several build folders.  0 or -1; usable in main(),
 * before the suite runs. */
int th_copy_plugins(const char *src, const char *dir);
/* Writes to out (PATH_MAX) a plugin path of the real plugins and the test
 * plugin "slow" (tests/plugins/live_plugins/slow.c, copied alone into root/slow:
 * the other live plugins clash with each other). */
void th_plugins_with_slow(const char *root, char *out);
/* A job of `records` records of plugin "slow", each sleeping ms (<= 1000)
 * milliseconds: a job that runs for a known time however fast the real
 * solvers are (caller frees; its length in *len). */
char *th_slow_job(size_t records, int ms, size_t *len);
/* Closes the gate of plugin "slow" for the daemons this test starts from
 * now on: each of their slow records waits while root/slow-gate exists
 * (path in gate, PATH_MAX), so a slow job stays in flight until the test
 * calls th_open_gate (within solve_timeout_s, 60 s unless the test sets
 * it: a record held longer is a hung one).  Holds for the rest of this
 * test only (Check runs each test in its own process). */
void th_close_slow_gate(const char *root, char *gate);
/* Removes a gate (th_close_slow_gate's, or slow_fsync.c's): what waits
 * for it goes on. */
void th_open_gate(const char *gate);
/* A fresh 0755 directory root/case-XXXXXX (caller frees). */
char *th_make_dir_in(const char *root);
/* rm -rf, not following symlinks nor crossing mount points. */
void th_rm_tree(const char *dir);
/* rm -rf of a directory a running daemon may write into (its metrics, its
 * state folders it recreates): a pass can find the directory refilled
 * behind it (ENOTEMPTY), as an operator's rm -rf would, so passes repeat
 * until the directory is gone; the test fails if it never goes. */
void th_rm_tree_live(const char *dir);
int th_ends_with(const char *s, const char *suffix);

/* ---- time and polling -------------------------------------------- */

double th_now_s(void); /* CLOCK_MONOTONIC */
void th_sleep_ms(long ms);
/* ms times $CK_TIMEOUT_MULTIPLIER (when it is more than 1): a deadline is
 * a last resort against a real hang, and a slow machine (a sanitizer
 * build, a loaded host) says so through Check's own multiplier. */
double th_scaled_ms(double ms);

/* ok = cond, polled every th_settings.poll_ms until true or ms (scaled)
 * have passed. */
#define TH_POLL(ok, cond, ms)                                 \
    do {                                                      \
        double end_ = th_now_s() + th_scaled_ms(ms) / 1000.0; \
        while (!((ok) = !!(cond)) && th_now_s() < end_)       \
            th_sleep_ms(th_settings.poll_ms);                 \
    } while (0)

/* Runs before a TH_REQUIRE fails the test (default: th_dump_logs). */
extern void (*th_on_failure)(void);

#define TH_REQUIRE(cond, ...)          \
    do {                               \
        if (!(cond)) {                 \
            th_on_failure();           \
            ck_abort_msg(__VA_ARGS__); \
        }                              \
    } while (0)

#define TH_EVENTUALLY(cond, ms, ...)  \
    do {                              \
        int ok_;                      \
        TH_POLL(ok_, cond, ms);       \
        TH_REQUIRE(ok_, __VA_ARGS__); \
    } while (0)

/* ---- a test's directory ------------------------------------------ */

/* What a test that runs cairnd works in: root (a th_new_dir) holding the
 * spool in/ (made here), the output directory out/ (left for the daemon
 * to make), the -c file (cfg); the spool's state folders, made by the
 * daemon; and plugins, the --plugins path ($CAIRN_TEST_PLUGIN_DIR until a
 * test changes it). */
struct th_env {
    char root[PATH_MAX];
    char in[PATH_MAX];
    char out[PATH_MAX];
    char cfg[PATH_MAX];
    char plugins[PATH_MAX];
    char active[PATH_MAX];
    char done[PATH_MAX];
    char failed[PATH_MAX];
};
/* Fills e for a fresh directory, makes its spool, and writes cfg_json to
 * its -c file (when not NULL: the caller then writes it). */
void th_env_init(struct th_env *e, const char *cfg_json);

/* ---- test directories and cairnd processes ----------------------- */

#define TH_MAX_PROCS 64
#define TH_MAX_DIRS  8

extern pid_t th_pid[TH_MAX_PROCS];
extern int th_status[TH_MAX_PROCS]; /* waitpid status, once reaped */
extern char th_log[TH_MAX_PROCS][PATH_MAX];
/* Every test's directory lives below th_top, made by the runner process:
 * Check ends a failed test's process without atexit handlers, so the
 * runner removes what such a test left. */
extern char th_top[PATH_MAX];
extern pid_t th_runner;

/* main(): th_top = $TMPDIR/cairn-test-NAME-XXXXXX, th_runner = this
 * process; -1 (after perror) when it cannot be made. */
int th_make_top(const char *name);
/* root (PATH_MAX bytes) = a new th_top/t-XXXXXX, removed by th_cleanup. */
void th_new_dir(char *root);
/* Kills (SIGKILL) and reaps what th_spawn started and is still running. */
void th_kill_all(void);
/* Removes the directories of th_new_dir. */
void th_remove_dirs(void);
/* th_kill_all and th_remove_dirs: at the end of every test and, through
 * atexit, when an assertion ends it. */
void th_cleanup(void);
/* th_cleanup, and in the runner process th_top removed (for atexit). */
void th_cleanup_top(void);
/* Prints the end of path (its last `bytes`, at most 8192), for a failure. */
void th_dump_tail(const char *path, long bytes);
/* th_dump_tail of the logs of this test's processes (th_settings). */
void th_dump_logs(void);

/* Starts argv[0] with stdin from /dev/null and stdout and stderr appended
 * to log; it dies with this process, without JOURNAL_STREAM and
 * NOTIFY_SOCKET. */
pid_t th_spawn_logged(char *const argv[], const char *log);
/* th_spawn_logged into the table, logging to logdir/cairnd-P.log; returns P. */
int th_spawn(const char *logdir, char *const argv[]);
/* 1 once process P has ended (waitpid with flags). */
int th_reap(int p, int flags);
int th_running(int p);
int th_log_has(int p, const char *text);
/* How many lines of process P's log hold text. */
int th_log_lines_with(int p, const char *text);
/* The exit code (128 + signal when killed); fails if it takes longer
 * than ms. */
int th_wait_exit(int p, long ms);
/* Waits until the daemon watches its input directory (its handlers are
 * installed by then). */
void th_wait_ready(int p);
/* SIGTERM; the daemon must exit 0. */
void th_stop(int p);
/* Returns once daemon P, watching spool, has made n full listings of it
 * that all began after this call: what a rescan would do wrong (take a
 * file too young, or still open, or backed off) it has had n chances to
 * do.  The handshake: a name the daemon never takes, made with link(2),
 * which inotify does not report for such a name, so only a listing sees
 * it, and says so ("... is never taken").  n + 1 such names, one after the
 * other, each made once the one before was said (the listing that says
 * the first may have begun before the call); each is removed once said. */
void th_wait_listings(int p, const char *spool, int n);
/* The same for a daemon started otherwise, logging to log. */
void th_wait_listings_in(const char *log, const char *spool, int n);

/* One run of cairnd with args (NULL-terminated, argv[1..]): stdin from
 * /dev/null, stdout and stderr captured in files in scratch_dir (removed
 * afterwards), no journald prefixes. */
struct th_run {
    int status; /* exit code, or -1 when killed */
    char *out;
    char *err;
};
struct th_run th_run_cairnd(const char *cairnd, const char *scratch_dir, const char *const *args);
/* th_run_cairnd with stdin from the file stdin_path. */
struct th_run th_run_cairnd_stdin(const char *cairnd, const char *scratch_dir,
                                  const char *stdin_path, const char *const *args);
void th_run_free(struct th_run *r);

/* ---- JSON -------------------------------------------------------- */

/* A JSON file (duplicate keys rejected); TH_REQUIREs that it parses. */
json_t *th_load_json(const char *path);
/* A results file as a JSON array of its lines; every line must be a JSON
 * object and the file must end in a newline (TH_REQUIRE). */
json_t *th_load_results(const char *path);
/* o[key], TH_REQUIREd to be an integer / a string. */
long long th_int_field(json_t *o, const char *key);
const char *th_str_field(json_t *o, const char *key);
/* The error codes of contract.md, Errors. */
extern const char *const th_codes[];
#define TH_N_CODES 7
/* data as JSON lines, each required (ck_assert) to be an object; what
 * names the data in messages.  th_free_lines frees the result. */
json_t **th_parse_lines(const char *data, size_t len, size_t *n_out, const char *what);
void th_free_lines(json_t **v, size_t n);

/* ---- deadlines and locks ----------------------------------------- */

/* CK_TIMEOUT_MULTIPLIER as a number (Check's own scale of a test case's
 * time limit, set by scripts/sanitize): a deadline of the test's own is
 * multiplied by it too.  1 when unset, not a number, or not above 0. */
double th_timeout_multiplier(void);
/* Prints on stderr every lock /proc/locks lists on dirs[0]'s file system:
 * its kind, the file (named by its entry in one of dirs, else by inode),
 * the pid that took it with its command name, and each process whose open
 * file holds it now (from /proc/PID/fdinfo; a lock taken by a process that
 * has died lives on in a child that inherited the descriptor).  For a
 * failure's message: what keeps a file from being claimed. */
void th_show_locks(const char *const *dirs, size_t n_dirs);

#endif
