/*
 * test_verdicts.c - the probe's passes kept between runs
 * (core/host/plugin_verdicts.c), as every start loads plugins
 * (cairn_plugin_set_load_registry): an unchanged file passes unprobed,
 * anything else about it or about the store means a probe, as with no
 * store at all.
 *
 * Each case has its own run-time folder ($XDG_RUNTIME_DIR); a "run" is
 * one load, its probes counted by the loader (reg.probes).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "plugin_set.h"
#include "plugin_verdicts.h"

/* One case: a plugin directory, a run-time folder, the store's file. */
struct scene {
    char *plugins;
    char *runtime;
    char *store; /* runtime/cairn/plugin-verdicts */
};

static const char *env_or_die(const char *name)
{
    const char *v = getenv(name);

    ck_assert_msg(v != NULL && *v != '\0', "%s is not set (run through meson test)", name);
    return v;
}

/* tests/plugins/bad_plugins/NAME copied into dir. */
static void add(const char *dir, const char *name)
{
    char *src = th_xasprintf("%s/%s", env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR"), name);
    char *dst = th_xasprintf("%s/%s", dir, name);

    th_copy_file(src, dst, 0755);
    free(src);
    free(dst);
}

static void scene_init(struct scene *s)
{
    s->plugins = th_make_dir_in(th_top);
    s->runtime = th_make_dir_in(th_top);
    ck_assert_int_eq(chmod(s->runtime, 0700), 0);
    s->store = th_xasprintf("%s/cairn/%s", s->runtime, CAIRN_VERDICTS_FILE);
    ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", s->runtime, 1), 0);
    ck_assert_int_eq(unsetenv("RUNTIME_DIRECTORY"), 0);
    add(s->plugins, "witness_a.so");
    add(s->plugins, "witness_b.so");
    /* The witnesses note each load here; nothing reads it in this test. */
    ck_assert_int_eq(setenv("CAIRN_TEST_WITNESS", "/dev/null", 1), 0);
}

static void scene_free(struct scene *s)
{
    th_rm_tree(s->plugins);
    th_rm_tree(s->runtime);
    free(s->plugins);
    free(s->runtime);
    free(s->store);
}

/* One run's load of s's plugins: its return code, reg filled (free it). */
static int run(const struct scene *s, struct cairn_registry *reg, enum cairn_verdict_use kept)
{
    struct cairn_log log;

    cairn_log_init(&log, CAIRN_LOG_ERROR);
    memset(reg, 0, sizeof(*reg));
    return cairn_plugin_set_load_registry(reg, s->plugins, NULL, NULL, kept, &log, "");
}

/* How many probe processes a run took; its plugins must all load. */
static unsigned probes_of_run(const struct scene *s, enum cairn_verdict_use kept)
{
    struct cairn_registry reg;
    unsigned probes;

    ck_assert_int_eq(run(s, &reg, kept), 0);
    ck_assert_uint_eq(reg.n_plugins, 2);
    probes = reg.probes;
    cairn_registry_free(&reg);
    return probes;
}

static size_t count_lines(const char *text)
{
    size_t n = 0;

    for (; *text != '\0'; text++)
        n += *text == '\n';
    return n;
}

/* A start after a start forks no probe: the second run takes both
 * files' passes from the store the first wrote, in the user's run-time
 * folder, private to the user.  --check (RENEW) probes them anyway. */
START_TEST(an_unchanged_set_is_not_probed_at_the_next_start)
{
    struct scene s;
    struct stat st;
    char folder[PATH_MAX], *text;

    scene_init(&s);
    th_pathf(folder, "%s/cairn", s.runtime);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    text = th_read_file(s.store, NULL);
    ck_assert_msg(strncmp(text, "cairn plugin verdicts 1\n", 24) == 0, "store: %s", text);
    ck_assert_uint_eq(count_lines(text), 3 + 2);
    free(text);
    ck_assert_int_eq(stat(s.store, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0077, 0);
    ck_assert_int_eq(stat(folder, &st), 0);
    ck_assert_uint_eq(st.st_mode & 0777, 0700);

    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 0);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_RENEW), 1);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 0);
    /* A load that keeps nothing reads nothing either. */
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_IGNORE), 1);
    scene_free(&s);
}
END_TEST

/* The damaged-plugin protection holds across runs: the bytes of a file
 * that passed are replaced by a faulting constructor's, under the same
 * inode, size and modification time.  The next start probes it (its
 * hash differs) and refuses it; without that, this test process would
 * run the constructor and die. */
START_TEST(new_bytes_under_a_kept_pass_are_probed)
{
    struct cairn_registry reg;
    struct scene s;
    const char *bad_dir = env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR");
    char *good = th_xasprintf("%s/good_extra.so", bad_dir);
    char *bad = th_xasprintf("%s/crash_in_constructor.so", bad_dir);
    char *path;
    size_t size = th_padded_size(good, bad);

    scene_init(&s);
    path = th_xasprintf("%s/x.so", s.plugins);
    th_write_padded(good, path, size);
    ck_assert_int_eq(run(&s, &reg, CAIRN_VERDICTS_USE), 0);
    ck_assert_uint_eq(reg.n_plugins, 3);
    cairn_registry_free(&reg);

    th_rewrite_keeping_time(bad, path, size);
    ck_assert_int_eq(run(&s, &reg, CAIRN_VERDICTS_USE), -EINVAL);
    ck_assert_uint_eq(reg.probes, 1);
    ck_assert_uint_eq(reg.n_plugins, 2);
    ck_assert_uint_eq(reg.n_errors, 1);
    ck_assert_msg(strstr(reg.errors[0], "x.so: loading it killed a probe process with signal 11") !=
                      NULL,
                  "%s", reg.errors[0]);
    cairn_registry_free(&reg);
    scene_free(&s);
    free(good);
    free(bad);
    free(path);
}
END_TEST

/* A refusal is not kept: a file refused at one start is probed at the
 * next (a loaded machine may have let a sound file's probe run out of
 * time), and refused again for the same reason. */
START_TEST(a_refused_file_is_probed_again_at_the_next_start)
{
    struct cairn_registry reg;
    struct scene s;
    int i;

    scene_init(&s);
    add(s.plugins, "crash_in_constructor.so");
    for (i = 0; i < 2; i++) {
        ck_assert_int_eq(run(&s, &reg, CAIRN_VERDICTS_USE), -EINVAL);
        /* The first run: the set's probe, then one for the files after
         * the crash; the second: only the refused file's. */
        ck_assert_uint_eq(reg.probes, (i == 0 ? 2u : 1u));
        ck_assert_uint_eq(reg.n_plugins, 2);
        ck_assert_msg(strstr(reg.errors[0], "loading it killed a probe process with signal 11") !=
                          NULL,
                      "run %d: %s", i, reg.errors[0]);
        cairn_registry_free(&reg);
    }
    scene_free(&s);
}
END_TEST

/* A store anyone else may write is not read: the folder or the file
 * writable by the group means a probe, as does a store of another boot
 * or cairnd, or one cut short.  Each is then written anew, whole. */
START_TEST(a_store_not_to_be_trusted_or_not_ours_is_not_read)
{
    struct scene s;
    char folder[PATH_MAX], *text, *cut;
    size_t len;

    scene_init(&s);
    th_pathf(folder, "%s/cairn", s.runtime);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);

    ck_assert_int_eq(chmod(s.store, 0620), 0);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 0); /* written anew */

    ck_assert_int_eq(chmod(folder, 0770), 0);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1); /* nor written */
    ck_assert_int_eq(chmod(folder, 0700), 0);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 0);

    /* Another boot's. */
    text = th_read_file(s.store, &len);
    cut = strstr(text, "\nboot ");
    ck_assert_ptr_nonnull(cut);
    cut[6] = cut[6] == '0' ? '1' : '0';
    th_write_text(s.store, text);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 0);
    free(text);

    /* Cut short in its last line, as a crash can leave a file. */
    text = th_read_file(s.store, &len);
    text[len - 3] = '\0';
    th_write_text(s.store, text);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    free(text);
    text = th_read_file(s.store, &len);
    ck_assert_uint_eq(count_lines(text), 3 + 2);
    ck_assert_int_eq(text[len - 1], '\n');
    free(text);

    /* A link in the file's place is not followed, and is replaced. */
    ck_assert_int_eq(unlink(s.store), 0);
    ck_assert_int_eq(symlink("/dev/null", s.store), 0);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 0);
    scene_free(&s);
}
END_TEST

/* No store is no failure: a run-time folder that cannot be made (its
 * parent is missing) means every file is probed, and the load succeeds.
 * systemd's $RUNTIME_DIRECTORY comes first and is used as it is, the
 * first of a list. */
START_TEST(without_a_folder_every_start_probes)
{
    struct scene s;
    char *missing, *list, *in_unit;

    scene_init(&s);
    missing = th_xasprintf("%s/no-such-dir", s.runtime);
    ck_assert_int_eq(setenv("XDG_RUNTIME_DIR", missing, 1), 0);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    ck_assert(!th_exists(missing));

    list = th_xasprintf("%s:%s", s.runtime, missing);
    ck_assert_int_eq(setenv("RUNTIME_DIRECTORY", list, 1), 0);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 0);
    in_unit = th_xasprintf("%s/%s", s.runtime, CAIRN_VERDICTS_FILE);
    ck_assert(th_exists(in_unit));
    free(in_unit);
    free(list);
    free(missing);
    scene_free(&s);
}
END_TEST

/* The store keeps at most CAIRN_VERDICTS_MAX passes: this run's first,
 * then the earlier ones (other plugin directories) while there is room. */
START_TEST(the_store_keeps_this_runs_passes_first_and_is_bounded)
{
    struct scene s;
    char *text, *head_end, *line;
    FILE *f;
    size_t len, i;

    scene_init(&s);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    text = th_read_file(s.store, &len);
    head_end = strstr(text, "\nboot ");
    ck_assert_ptr_nonnull(head_end);
    head_end = strchr(head_end + 1, '\n') + 1;
    /* The header, then CAIRN_VERDICTS_MAX passes of files that are not
     * these two. */
    f = fopen(s.store, "w");
    ck_assert_ptr_nonnull(f);
    fwrite(text, 1, (size_t)(head_end - text), f);
    for (i = 0; i < CAIRN_VERDICTS_MAX; i++)
        fprintf(f, "1 %zu 4096 1.000000000 %016zx\n", i + 1, i);
    ck_assert_int_eq(fclose(f), 0);
    free(text);

    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 1);
    text = th_read_file(s.store, &len);
    ck_assert_uint_eq(count_lines(text), 3 + CAIRN_VERDICTS_MAX);
    line = strstr(text, "\nboot ");
    line = strchr(line + 1, '\n') + 1;
    ck_assert_msg(strncmp(line, "1 1 4096 ", 9) != 0, "this run's passes are not first");
    line = strchr(strchr(line, '\n') + 1, '\n') + 1;
    ck_assert_msg(strncmp(line, "1 1 4096 1.000000000 0000000000000000\n", 37) == 0,
                  "the earlier passes do not follow: %.60s", line);
    ck_assert_ptr_null(strstr(text, "\n1 255 4096 "));
    free(text);
    ck_assert_uint_eq(probes_of_run(&s, CAIRN_VERDICTS_USE), 0);
    scene_free(&s);
}
END_TEST

static Suite *verdicts_suite(void)
{
    Suite *s = suite_create("verdicts");
    TCase *tc = tcase_create("kept between runs");

    tcase_add_test(tc, an_unchanged_set_is_not_probed_at_the_next_start);
    tcase_add_test(tc, new_bytes_under_a_kept_pass_are_probed);
    tcase_add_test(tc, a_refused_file_is_probed_again_at_the_next_start);
    tcase_add_test(tc, a_store_not_to_be_trusted_or_not_ours_is_not_read);
    tcase_add_test(tc, without_a_folder_every_start_probes);
    tcase_add_test(tc, the_store_keeps_this_runs_passes_first_and_is_bounded);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    if (th_make_top("verdicts") != 0)
        return 1;
    atexit(th_cleanup_top);
    return th_run_suite(verdicts_suite(), CK_NORMAL, 1) == 0 ? 0 : 1;
}
