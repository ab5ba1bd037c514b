/*
 * test_probe.c - the load probe (core/host/plugin_probe.c) as the loader
 * uses it: one probe process for a whole set of plugins, one more for
 * each file that kills it, and no probe at all for a file a reload finds
 * unchanged.
 *
 * The witness plugins (tests/plugins/bad_plugins/witness.c) append the
 * pid of each process that loads them to $CAIRN_TEST_WITNESS: the probe
 * processes are the pids there other than this one.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "plugin_loader.h"

static char root_dir[] = "/tmp/cairn-test-probe-XXXXXX";

static const char *env_or_die(const char *name)
{
    const char *v = getenv(name);

    ck_assert_msg(v != NULL && *v != '\0', "%s is not set (run through meson test)", name);
    return v;
}

/* A file of tests/plugins/bad_plugins/ (or of the real plugins when real)
 * copied into dir under its own name. */
static void add(const char *dir, const char *name, int real)
{
    char *src = th_xasprintf(
        "%s/%s", env_or_die(real ? "CAIRN_TEST_PLUGIN_DIR" : "CAIRN_TEST_BAD_PLUGIN_DIR"), name);
    char *dst = th_xasprintf("%s/%s", dir, name);

    th_copy_file(src, dst, 0755);
    free(src);
    free(dst);
}

/* Every real plugin of the build, copied into dir; how many. */
static size_t add_every_real(const char *dir)
{
    DIR *d = opendir(env_or_die("CAIRN_TEST_PLUGIN_DIR"));
    struct dirent *e;
    size_t n = 0;

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && th_ends_with(e->d_name, ".so")) {
            add(dir, e->d_name, 1);
            n++;
        }
    closedir(d);
    ck_assert_uint_ge(n, 3);
    return n;
}

/* The witness file of this case, empty; set for the plugins to find. */
static char *fresh_witness(const char *dir)
{
    char *w = th_xasprintf("%s.witness", dir);

    th_write_text(w, "");
    ck_assert_int_eq(setenv("CAIRN_TEST_WITNESS", w, 1), 0);
    return w;
}

/* A case's end: its registry (NULL: none), its directory and its
 * witness file removed and freed. */
static void end_case(struct cairn_registry *reg, char *dir, char *w)
{
    if (reg != NULL)
        cairn_registry_free(reg);
    th_rm_tree(dir);
    unlink(w);
    free(w);
    free(dir);
}

/* What the witness file holds: how many lines in all, how many of them
 * this process wrote, and how many distinct other pids (probes) wrote. */
struct witnessed {
    unsigned lines, mine, probes;
};

static struct witnessed read_witness(const char *w)
{
    struct witnessed s = { 0 };
    long seen[64];
    unsigned n_seen = 0, i;
    char *text = th_read_file(w, NULL), *line, *save = NULL;

    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        long pid = strtol(line, NULL, 10);

        s.lines++;
        if (pid == (long)getpid()) {
            s.mine++;
            continue;
        }
        for (i = 0; i < n_seen && seen[i] != pid; i++)
            ;
        if (i == n_seen && n_seen < 64)
            seen[n_seen++] = pid;
    }
    s.probes = n_seen;
    free(text);
    return s;
}

static const char *error_naming(const struct cairn_registry *reg, const char *file,
                                const char *needle)
{
    size_t i;

    for (i = 0; i < reg->n_errors; i++)
        if (strstr(reg->errors[i], file) != NULL && strstr(reg->errors[i], needle) != NULL)
            return reg->errors[i];
    return NULL;
}

static void assert_error(const struct cairn_registry *reg, const char *dir, const char *name,
                         const char *needle)
{
    char *path = th_xasprintf("%s/%s", dir, name);
    size_t i;

    if (error_naming(reg, path, needle) == NULL) {
        for (i = 0; i < reg->n_errors; i++)
            fprintf(stderr, "  error: %s\n", reg->errors[i]);
        ck_abort_msg("no error names %s with \"%s\"", path, needle);
    }
    free(path);
}

/* Eleven plugins and two witnesses: one probe process loads, exercises
 * and unloads them all (before: one process per file, 13 of them, which
 * every start, --filter and reload paid one after the other). */
START_TEST(a_sound_set_takes_one_probe_process)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *w = fresh_witness(dir);
    size_t n = add_every_real(dir);
    struct witnessed s;

    add(dir, "witness_a.so", 0);
    add(dir, "witness_b.so", 0);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), 0);
    ck_assert_uint_eq(reg.n_plugins, n + 2);
    ck_assert_uint_eq(reg.probes, 1);
    s = read_witness(w);
    ck_assert_msg(s.probes == 1 && s.lines == 4 && s.mine == 2,
                  "the witnesses were loaded by %u probe process(es) (%u lines, %u here)", s.probes,
                  s.lines, s.mine);
    end_case(&reg, dir, w);
}
END_TEST

/* pidfd_open(2) refused with ENOSYS from here on, as in an old kernel or
 * a container whose seccomp profile predates it (this test process and
 * its children only: Check forks each case). */
static void refuse_pidfd_open(void)
{
    struct sock_filter code[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_pidfd_open, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (ENOSYS & SECCOMP_RET_DATA)),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { .len = sizeof(code) / sizeof(code[0]), .filter = code };

    ck_assert_int_eq(prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0), 0);
    ck_assert_int_eq(prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog), 0);
    ck_assert_int_eq((int)syscall(SYS_pidfd_open, getpid(), 0), -1);
    ck_assert_int_eq(errno, ENOSYS);
}

/* Each file that kills, ends or outlives a probe is named with why (its
 * constructor, or its destructor), and costs one more probe process for
 * the files after it: the good ones still load.  Run twice: with pidfds,
 * and without (_i 1), where the probe waits for each child's exit
 * instead. */
START_TEST(each_bad_file_is_named_and_costs_one_more_probe)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *w = fresh_witness(dir);

    if (_i == 1)
        refuse_pidfd_open();
    add(dir, "crash_in_constructor.so", 0);
    add(dir, "crash_in_destructor.so", 0);
    add(dir, "exit_in_constructor.so", 0);
    add(dir, "stone-game.so", 1);
    add(dir, "witness_a.so", 0);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 3);
    assert_error(&reg, dir, "crash_in_constructor.so",
                 "loading it killed a probe process with signal 11");
    assert_error(&reg, dir, "exit_in_constructor.so",
                 "loading it ended a probe process with exit status 7");
    assert_error(&reg, dir, "crash_in_destructor.so",
                 "unloading it killed a probe process with signal 11");
    ck_assert_uint_eq(reg.n_plugins, 2);
    ck_assert_ptr_nonnull(cairn_registry_find(&reg, "stone-game"));
    ck_assert_ptr_nonnull(cairn_registry_find(&reg, "witness-a"));
    ck_assert_uint_eq(reg.probes, 4);
    end_case(&reg, dir, w);
}
END_TEST

/* A reload of the same files asks no probe: a file that loaded cleanly
 * loads again, one that was refused is refused again for the same
 * reason.  A file installed anew (a new inode) is probed, alone. */
START_TEST(an_unchanged_file_is_not_probed_again)
{
    struct cairn_registry first = { 0 }, second = { 0 }, third = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *w = fresh_witness(dir);
    char *b = th_xasprintf("%s/witness_b.so", dir), *b_new = th_xasprintf("%s.new", b);
    char *src_b = th_xasprintf("%s/witness_b.so", env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR"));
    struct witnessed s;

    add(dir, "crash_in_constructor.so", 0);
    add(dir, "witness_a.so", 0);
    add(dir, "witness_b.so", 0);
    ck_assert_int_eq(cairn_registry_load(&first, dir), -EINVAL);
    ck_assert_uint_eq(first.probes, 2);
    ck_assert_uint_eq(first.n_plugins, 2);

    ck_assert_int_eq(cairn_registry_load_dirs(&second, (const char *[]){ dir }, 1, first.verdicts,
                                              first.n_verdicts),
                     -EINVAL);
    ck_assert_uint_eq(second.probes, 0);
    ck_assert_uint_eq(second.n_plugins, 2);
    ck_assert_uint_eq(second.n_errors, 1);
    assert_error(&second, dir, "crash_in_constructor.so",
                 "loading it killed a probe process with signal 11");
    s = read_witness(w);
    ck_assert_msg(s.probes == 1 && s.mine == 4,
                  "after an unchanged reload: %u probe process(es), %u loads here", s.probes,
                  s.mine);

    /* Installed as a package manager does: a new file renamed over it. */
    th_copy_file(src_b, b_new, 0755);
    ck_assert_int_eq(rename(b_new, b), 0);
    ck_assert_int_eq(cairn_registry_load_dirs(&third, (const char *[]){ dir }, 1, second.verdicts,
                                              second.n_verdicts),
                     -EINVAL);
    ck_assert_uint_eq(third.probes, 1);
    ck_assert_uint_eq(third.n_plugins, 2);
    s = read_witness(w);
    ck_assert_msg(s.probes == 2 && s.lines == 2 + 4 + 1 + 2,
                  "after witness_b was replaced: %u probe process(es), %u lines", s.probes,
                  s.lines);
    cairn_registry_free(&first);
    cairn_registry_free(&second);
    cairn_registry_free(&third);
    end_case(NULL, dir, w);
    free(b);
    free(b_new);
    free(src_b);
}
END_TEST

/* Same device, inode, size and modification time, other bytes (written
 * in place, the time set back): the content hash tells, and the file is
 * probed again (without it, this test process would run the faulting
 * constructor and die). */
START_TEST(new_bytes_under_the_same_inode_size_and_time_are_probed)
{
    struct cairn_registry first = { 0 }, second = { 0 };
    char *dir = th_make_dir_in(root_dir);
    const char *bad_dir = env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR");
    char *good = th_xasprintf("%s/good_extra.so", bad_dir);
    char *bad = th_xasprintf("%s/crash_in_constructor.so", bad_dir);
    char *path = th_xasprintf("%s/x.so", dir);
    size_t size = th_padded_size(good, bad);

    th_write_padded(good, path, size);
    ck_assert_int_eq(cairn_registry_load(&first, dir), 0);
    ck_assert_uint_eq(first.n_plugins, 1);

    th_rewrite_keeping_time(bad, path, size);
    ck_assert_int_eq(cairn_registry_load_dirs(&second, (const char *[]){ dir }, 1, first.verdicts,
                                              first.n_verdicts),
                     -EINVAL);
    ck_assert_uint_eq(second.probes, 1);
    assert_error(&second, dir, "x.so", "loading it killed a probe process with signal 11");
    ck_assert_uint_eq(second.n_plugins, 0);
    cairn_registry_free(&first);
    cairn_registry_free(&second);
    th_rm_tree(dir);
    free(good);
    free(bad);
    free(path);
    free(dir);
}
END_TEST

/* The pids the witness file holds, other than this process's: each is
 * ended (a process a probed plugin forked, left behind on purpose). */
static void end_witnessed(const char *w)
{
    char *text = th_read_file(w, NULL), *line, *save = NULL;

    for (line = strtok_r(text, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
        long pid = strtol(line, NULL, 10);

        if (pid > 1 && pid != (long)getpid())
            kill((pid_t)pid, SIGKILL);
    }
    free(text);
}

/* A constructor that forks a process holding the probe's socket, then
 * faults: the loader notices the probe process's death (its pidfd), not
 * the socket's end, which the forked process keeps open for a minute. */
START_TEST(a_probe_whose_plugin_forked_is_not_waited_for)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *w = fresh_witness(dir);

    add(dir, "fork_then_crash.so", 0);
    add(dir, "stone-game.so", 1);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    /* Its pid is written right after the fork, before the fault. */
    TH_EVENTUALLY(read_witness(w).lines == 1, TH_DEADLINE_MS,
                  "the process the plugin forked never wrote its pid");
    end_witnessed(w);
    ck_assert_uint_eq(reg.n_errors, 1);
    assert_error(&reg, dir, "fork_then_crash.so",
                 "loading it killed a probe process with signal 11");
    ck_assert_uint_eq(reg.n_plugins, 1);
    ck_assert_uint_eq(reg.probes, 2);
    end_case(&reg, dir, w);
}
END_TEST

/* argv run with SIGCHLD ignored, as a supervisor may leave it (an
 * ignored signal survives exec): the kernel would then reap the probe
 * processes itself, their verdicts could not be read, and every file
 * would pass unprobed, the faulting one too.  Returns the wait status;
 * stderr goes to err_path. */
static int run_with_sigchld_ignored(char *const argv[], const char *err_path)
{
    int status;
    pid_t pid = fork();

    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        int fd = open(err_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
        int out = open("/dev/null", O_WRONLY | O_CLOEXEC);

        if (fd < 0 || out < 0 || dup2(fd, STDERR_FILENO) < 0 || dup2(out, STDOUT_FILENO) < 0)
            _exit(126);
        signal(SIGCHLD, SIG_IGN);
        execv(argv[0], argv);
        _exit(127);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    return status;
}

/* cairnd --check (_i 0) and cairn gen (_i 1), each with a faulting
 * plugin beside a sound one: cairnd exits 2 naming it, cairn gen says
 * so and goes on with the other; neither dies of it. */
START_TEST(an_inherited_ignored_sigchld_does_not_skip_the_probe)
{
    char *dir = th_make_dir_in(root_dir);
    char *plugins = th_xasprintf("%s/plugins", dir), *cfg = th_xasprintf("%s/cairn.json", dir);
    char *err_path = th_xasprintf("%s/stderr", dir), *err;
    char *check[] = {
        (char *)env_or_die("CAIRN_TEST_CAIRND"), "-c", cfg, "--plugins", plugins, "--check", NULL
    };
    char *gen[] = { (char *)env_or_die("CAIRN_TEST_CAIRN"),
                    "gen",
                    "stone-game",
                    "--count",
                    "1",
                    "--seed",
                    "1",
                    "--plugins",
                    plugins,
                    NULL };
    int status, want = _i == 0 ? 2 : 0;

    ck_assert_int_eq(mkdir(plugins, 0755), 0);
    add(plugins, "crash_in_constructor.so", 0);
    add(plugins, "stone-game.so", 1);
    th_write_text(cfg, "{}\n");
    status = run_with_sigchld_ignored(_i == 0 ? check : gen, err_path);
    err = th_read_file(err_path, NULL);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == want, "%s: %s %d; stderr: %s",
                  _i == 0 ? "cairnd --check" : "cairn gen", WIFEXITED(status) ? "exit" : "signal",
                  WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status), err);
    ck_assert_msg(strstr(err, "crash_in_constructor.so") != NULL &&
                      strstr(err, "loading it killed a probe process with signal 11") != NULL,
                  "stderr does not name the faulting file: %s", err);
    free(err);
    th_rm_tree(dir);
    free(dir);
    free(plugins);
    free(cfg);
    free(err_path);
}
END_TEST

static Suite *probe_suite(void)
{
    Suite *s = suite_create("probe");
    TCase *tc;

#define CASE(name, fn)       \
    tc = tcase_create(name); \
    tcase_add_test(tc, fn);  \
    suite_add_tcase(s, tc)

    CASE("a sound set takes one probe process", a_sound_set_takes_one_probe_process);
    tc = tcase_create("each bad file is named and costs one more probe (with, without pidfds)");
    tcase_add_loop_test(tc, each_bad_file_is_named_and_costs_one_more_probe, 0, 2);
    suite_add_tcase(s, tc);
    CASE("an unchanged file is not probed again", an_unchanged_file_is_not_probed_again);
    CASE("new bytes under the same inode, size and time are probed",
         new_bytes_under_the_same_inode_size_and_time_are_probed);
    CASE("a probe whose plugin forked is not waited for",
         a_probe_whose_plugin_forked_is_not_waited_for);
    tc = tcase_create("an inherited ignored SIGCHLD does not skip the probe (cairnd, cairn)");
    tcase_add_loop_test(tc, an_inherited_ignored_sigchld_does_not_skip_the_probe, 0, 2);
    suite_add_tcase(s, tc);
#undef CASE
    return s;
}

int main(void)
{
    int failed;

    if (mkdtemp(root_dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    failed = th_run_suite(probe_suite(), CK_NORMAL, 1);
    th_rm_tree(root_dir);
    return failed == 0 ? 0 : 1;
}
