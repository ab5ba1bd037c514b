/*
 * test_loader.c - core/host/plugin_loader.c, plugin_abi.c and registry.c, and
 * cairnd's --check/--list-plugins.
 *
 * Every case builds its own plugin directory: a fresh mkdtemp directory
 * holding copies (never symlinks, unless the case is about symlinks) of the
 * real plugins from CAIRN_TEST_PLUGIN_DIR and of the deliberately broken ones
 * from CAIRN_TEST_BAD_PLUGIN_DIR (tests/plugins/bad_plugins/, one defect each).  All
 * case directories live under one root made by main(), removed at the end
 * even when a forked case died half-way.
 */
#include <check.h>
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "plugin_copy.h"
#include "plugin_loader.h"
#include "plugin_set.h"
#include "reload.h"

static char root_dir[] = "/tmp/cairn-test-loader-XXXXXX";

static const char *env_or_die(const char *name)
{
    const char *v = getenv(name);

    ck_assert_msg(v != NULL && *v != '\0', "%s is not set (run through meson test)", name);
    return v;
}

/* Copies the bytes of src to dir/name and gives the copy exactly `mode`. */
static void copy_file(const char *src, const char *dir, const char *name, mode_t mode)
{
    char *dst = th_xasprintf("%s/%s", dir, name);

    th_copy_file(src, dst, mode);
    free(dst);
}

/* The real plugin `name` ("stone-game.so"), copied into dir. */
static void add_real(const char *dir, const char *name)
{
    char *src = th_xasprintf("%s/%s", env_or_die("CAIRN_TEST_PLUGIN_DIR"), name);

    copy_file(src, dir, name, 0755);
    free(src);
}

/* A plugin from tests/plugins/bad_plugins/ ("bad_abi.so"), copied into dir. */
static void add_bad(const char *dir, const char *name)
{
    char *src = th_xasprintf("%s/%s", env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR"), name);

    copy_file(src, dir, name, 0755);
    free(src);
}

/* A plugin from tests/plugins/abi_plugins/ ("front_one_or_two.so"), copied into dir. */
static void add_abi(const char *dir, const char *name)
{
    char *src = th_xasprintf("%s/%s", env_or_die("CAIRN_TEST_ABI_PLUGIN_DIR"), name);

    copy_file(src, dir, name, 0755);
    free(src);
}

static const char *const abi_files[] = { "front_one_or_two.so", "count_down.so", "pick_any.so",
                                         "split_keep.so" };
#define N_ABI_FILES (sizeof(abi_files) / sizeof(abi_files[0]))

/* Every "*.so" of CAIRN_TEST_PLUGIN_DIR (whatever plugins the build has),
 * copied into dir; returns how many. */
static size_t add_every_real(const char *dir)
{
    const char *src = env_or_die("CAIRN_TEST_PLUGIN_DIR");
    DIR *d = opendir(src);
    struct dirent *e;
    size_t n = 0;

    ck_assert_msg(d != NULL, "cannot open %s", src);
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !th_ends_with(e->d_name, ".so"))
            continue;
        add_real(dir, e->d_name);
        n++;
    }
    closedir(d);
    ck_assert_uint_ge(n, 3);
    return n;
}

static void add_all_real(const char *dir)
{
    add_real(dir, "stone-game.so");
    add_real(dir, "stone-game-ii.so");
    add_real(dir, "stone-game-iii.so");
}

/* The first error message containing every one of the NULL-terminated
 * needles, or NULL. */
static const char *find_error(const struct cairn_registry *reg, ...)
{
    size_t i;

    for (i = 0; i < reg->n_errors; i++) {
        const char *needle;
        int all = 1;
        va_list ap;

        va_start(ap, reg);
        while ((needle = va_arg(ap, const char *)) != NULL)
            if (strstr(reg->errors[i], needle) == NULL)
                all = 0;
        va_end(ap);
        if (all)
            return reg->errors[i];
    }
    return NULL;
}

/* All errors on one line each, for failure messages. */
static char *all_errors(const struct cairn_registry *reg)
{
    char *out = th_xasprintf("%zu error(s):", reg->n_errors);
    size_t i;

    for (i = 0; i < reg->n_errors; i++) {
        char *next = th_xasprintf("%s\n  %s", out, reg->errors[i]);
        free(out);
        out = next;
    }
    return out;
}

#define ASSERT_ERROR(reg, ...)                                                      \
    do {                                                                            \
        if (find_error((reg), __VA_ARGS__, (const char *)NULL) == NULL) {           \
            char *list_ = all_errors(reg);                                          \
            ck_abort_msg("no error mentions all of [%s]; %s", #__VA_ARGS__, list_); \
        }                                                                           \
    } while (0)

/* The plugin found under `key` must be the one named `name`. */
static void assert_finds(const struct cairn_registry *reg, const char *key, const char *name)
{
    const struct cairn_plugin_handle *h = cairn_registry_find(reg, key);

    ck_assert_msg(h != NULL, "\"%s\" not found", key);
    ck_assert_str_eq(h->desc->name, name);
}

/* ---- the real plugins ---------------------------------------------- */

START_TEST(real_plugins_load_and_resolve)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *path;
    int rc;

    add_all_real(dir);
    rc = cairn_registry_load(&reg, dir);
    ck_assert_msg(rc == 0, "rc %d, %s", rc, all_errors(&reg));
    ck_assert_uint_eq(reg.n_plugins, 3);
    ck_assert_uint_eq(reg.n_errors, 0);

    assert_finds(&reg, "stone-game", "stone-game");
    assert_finds(&reg, "stone-game-ii", "stone-game-ii");
    assert_finds(&reg, "stone-game-iii", "stone-game-iii");
    assert_finds(&reg, "877", "stone-game");
    assert_finds(&reg, "1140", "stone-game-ii");
    assert_finds(&reg, "1406", "stone-game-iii");

    /* Exact matches only: no prefixes, no case folding. */
    ck_assert_ptr_null(cairn_registry_find(&reg, "no-such-game"));
    ck_assert_ptr_null(cairn_registry_find(&reg, "stone"));
    ck_assert_ptr_null(cairn_registry_find(&reg, "Stone-Game"));
    ck_assert_ptr_null(cairn_registry_find(&reg, "87"));
    ck_assert_ptr_null(cairn_registry_find(&reg, ""));

    /* Each handle remembers the file it came from. */
    path = th_xasprintf("%s/stone-game-ii.so", dir);
    ck_assert_str_eq(cairn_registry_find(&reg, "1140")->path, path);
    ck_assert_uint_eq(cairn_registry_find(&reg, "1140")->desc->abi_major, CAIRN_PLUGIN_ABI_MAJOR);

    free(path);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(dir);
}
END_TEST

/* Every name and alias of every plugin the build has finds its own
 * plugin through the registry's index (which grows while they load), and
 * the same one a plain scan finds. */
START_TEST(every_name_and_alias_resolves)
{
    struct cairn_registry reg = { 0 }, scan;
    char *dir = th_make_dir_in(root_dir);
    size_t n = add_every_real(dir), names = 0;
    int rc = cairn_registry_load(&reg, dir);

    ck_assert_msg(rc == 0, "rc %d, %s", rc, all_errors(&reg));
    ck_assert_uint_eq(reg.n_plugins, n);
    ck_assert_ptr_nonnull(reg.index);
    scan = reg;
    scan.index = NULL; /* a registry put together by hand: the scan */
    for (size_t i = 0; i < reg.n_plugins; i++) {
        const struct cairn_plugin *d = reg.plugins[i].desc;

        for (size_t j = 0; j == 0 || (d->aliases != NULL && d->aliases[j - 1] != NULL); j++) {
            const char *key = j == 0 ? d->name : d->aliases[j - 1];

            ck_assert_msg(cairn_registry_find(&reg, key) == &reg.plugins[i],
                          "\"%s\" does not find %s", key, d->name);
            ck_assert_msg(cairn_registry_find(&scan, key) == &reg.plugins[i],
                          "the scan: \"%s\" does not find %s", key, d->name);
            names++;
        }
    }
    ck_assert_uint_ge(names, 2 * n);
    ck_assert_uint_eq(reg.index_used, names);
    ck_assert_ptr_null(cairn_registry_find(&reg, "stone-game-x"));
    ck_assert_ptr_null(cairn_registry_find(&reg, "stone-gam"));
    ck_assert_ptr_null(cairn_registry_find(&reg, ""));
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(empty_directory_loads_nothing)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);

    ck_assert_int_eq(cairn_registry_load(&reg, dir), 0);
    ck_assert_uint_eq(reg.n_plugins, 0);
    ck_assert_uint_eq(reg.n_errors, 0);
    ck_assert_ptr_null(cairn_registry_find(&reg, "stone-game"));
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(dir);
}
END_TEST

START_TEST(files_not_named_so_are_ignored)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *txt = th_xasprintf("%s/README.txt", dir);
    char *soish = th_xasprintf("%s/stone-game.so.bak", dir);
    char *so = th_xasprintf("%s/so", dir);
    char *real = th_xasprintf("%s/stone-game-ii.so", env_or_die("CAIRN_TEST_PLUGIN_DIR"));

    add_real(dir, "stone-game.so");
    th_write_text(txt, "not a plugin\n");
    th_write_text(soish, "not a plugin either\n");
    th_write_text(so, "shorter than .so\n");
    copy_file(real, dir, ".hidden.so", 0755); /* a plugin, but a dot-file */
    ck_assert_int_eq(cairn_registry_load(&reg, dir), 0);
    ck_assert_uint_eq(reg.n_plugins, 1);
    ck_assert_uint_eq(reg.n_errors, 0);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(txt);
    free(soish);
    free(so);
    free(real);
    free(dir);
}
END_TEST

/* ---- one refusal per broken plugin ----------------------------------- */

START_TEST(wrong_abi_version_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/bad_abi.so", dir);

    add_all_real(dir);
    add_bad(dir, "bad_abi.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, "ABI version");
    ck_assert_uint_eq(reg.n_plugins, 3);
    ck_assert_ptr_null(cairn_registry_find(&reg, "bad-abi"));
    ck_assert_ptr_null(cairn_registry_find(&reg, "bad-abi-alias"));
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(bad);
    free(dir);
}
END_TEST

START_TEST(duplicate_alias_names_both_files)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *dup = th_xasprintf("%s/dup_alias.so", dir);
    char *sg = th_xasprintf("%s/stone-game.so", dir);
    const struct cairn_plugin_handle *h;

    add_real(dir, "stone-game.so");
    add_bad(dir, "dup_alias.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, dup, sg, "\"877\"", "already taken by");
    /* One of the two won; "877" is unambiguous. */
    ck_assert_uint_eq(reg.n_plugins, 1);
    h = cairn_registry_find(&reg, "877");
    ck_assert_ptr_nonnull(h);
    ck_assert_ptr_eq(h, &reg.plugins[0]);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(dup);
    free(sg);
    free(dir);
}
END_TEST

/* "none" is the bucket of records whose variant is not known (summary
 * by_variant, metrics, report): a plugin of that name or alias would be
 * merged with it, so it is refused. */
START_TEST(reserved_name_none_is_refused)
{
    static const char *const files[] = { "reserved_name.so", "reserved_alias.so" };
    size_t i;

    for (i = 0; i < 2; i++) {
        struct cairn_registry reg = { 0 };
        char *dir = th_make_dir_in(root_dir);
        char *bad = th_xasprintf("%s/%s", dir, files[i]);

        add_all_real(dir);
        add_bad(dir, files[i]);
        ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
        ck_assert_uint_eq(reg.n_errors, 1);
        ASSERT_ERROR(&reg, bad, "\"none\" is reserved");
        ck_assert_uint_eq(reg.n_plugins, 3);
        ck_assert_ptr_null(cairn_registry_find(&reg, "none"));
        cairn_registry_free(&reg);
        th_rm_tree(dir);
        free(bad);
        free(dir);
    }
}
END_TEST

START_TEST(duplicate_name_names_both_files)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *a = th_xasprintf("%s/stone-game.so", dir);
    char *b = th_xasprintf("%s/stone-game-copy.so", dir);

    add_real(dir, "stone-game.so");
    copy_file(a, dir, "stone-game-copy.so", 0755);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, a, b, "\"stone-game\"", "already taken by");
    ck_assert_uint_eq(reg.n_plugins, 1);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(a);
    free(b);
    free(dir);
}
END_TEST

START_TEST(writable_directory_is_refused)
{
    static const mode_t modes[] = { 0775, 0757, 0777 };
    size_t i;

    for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        struct cairn_registry reg = { 0 };
        char *dir = th_make_dir_in(root_dir);

        add_all_real(dir);
        ck_assert_int_eq(chmod(dir, modes[i]), 0);
        ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
        ASSERT_ERROR(&reg, dir, "writable by group or others");
        /* Nothing in it is trusted. */
        ck_assert_uint_eq(reg.n_plugins, 0);
        cairn_registry_free(&reg);
        th_rm_tree(dir);
        free(dir);
    }
}
END_TEST

START_TEST(writable_file_is_refused)
{
    static const mode_t modes[] = { 0666, 0775, 0757 };
    size_t i;

    for (i = 0; i < sizeof(modes) / sizeof(modes[0]); i++) {
        struct cairn_registry reg = { 0 };
        char *dir = th_make_dir_in(root_dir);
        char *path = th_xasprintf("%s/stone-game.so", dir);

        add_all_real(dir);
        ck_assert_int_eq(chmod(path, modes[i]), 0);
        ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
        ck_assert_uint_eq(reg.n_errors, 1);
        ASSERT_ERROR(&reg, path, "writable by group or others");
        ck_assert_uint_eq(reg.n_plugins, 2);
        ck_assert_ptr_null(cairn_registry_find(&reg, "877"));
        cairn_registry_free(&reg);
        th_rm_tree(dir);
        free(path);
        free(dir);
    }
}
END_TEST

/* ---- ownership (sshd's StrictModes) ----------------------------------- */

/* Another user's uid: nobody on Debian.  Giving a file away takes root. */
#define OTHER_UID 65534

static int can_chown(const char *test)
{
    if (geteuid() == 0)
        return 1;
    fprintf(stderr,
            "test_loader: SKIP %s: not running as root, so no file can be given to "
            "another user\n",
            test);
    return 0;
}

START_TEST(file_owned_by_another_user_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir, *path, *allowed;

    if (!can_chown("file_owned_by_another_user_is_refused"))
        return;
    dir = th_make_dir_in(root_dir);
    path = th_xasprintf("%s/stone-game.so", dir);
    allowed = th_xasprintf("only root (uid 0) or cairnd's own user (uid %u)", (unsigned)geteuid());
    add_all_real(dir);
    /* Not writable by anyone else: the owner alone could change it. */
    ck_assert_int_eq(chown(path, OTHER_UID, OTHER_UID), 0);
    ck_assert_int_eq(chmod(path, 0644), 0);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, path, "plugin file is owned by uid 65534", allowed);
    ck_assert_uint_eq(reg.n_plugins, 2);
    ck_assert_ptr_null(cairn_registry_find(&reg, "877"));
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(allowed);
    free(path);
    free(dir);
}
END_TEST

START_TEST(directory_owned_by_another_user_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir;

    if (!can_chown("directory_owned_by_another_user_is_refused"))
        return;
    dir = th_make_dir_in(root_dir);
    add_all_real(dir);
    ck_assert_int_eq(chown(dir, OTHER_UID, OTHER_UID), 0);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ASSERT_ERROR(&reg, dir, "plugin directory is owned by uid 65534", "root (uid 0)");
    /* Its owner could have renamed anything into it: nothing is trusted. */
    ck_assert_uint_eq(reg.n_plugins, 0);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(dir);
}
END_TEST

/* A daemon running as its own user (cairn) loads what that user owns, and
 * what root owns. */
START_TEST(own_user_and_root_are_accepted)
{
    struct cairn_registry reg = { 0 };
    char *dir, *path;
    int rc;

    if (!can_chown("own_user_and_root_are_accepted"))
        return;
    dir = th_make_dir_in(root_dir);
    path = th_xasprintf("%s/stone-game.so", dir);
    add_all_real(dir);
    ck_assert_int_eq(chmod(root_dir, 0711), 0); /* mkdtemp made it 0700 */
    ck_assert_int_eq(chown(dir, OTHER_UID, OTHER_UID), 0);
    ck_assert_int_eq(chmod(dir, 0755), 0);
    ck_assert_int_eq(chown(path, OTHER_UID, OTHER_UID), 0); /* the others stay root's */
    ck_assert_int_eq(chmod(path, 0644), 0);
    /* In this test's own process (Check forks each test), not a child
     * that leaves by _exit(), so what the load runs is counted by gcov;
     * the real uid stays root's, so the effective one can be put back. */
    ck_assert_int_eq(setegid(OTHER_UID), 0);
    ck_assert_int_eq(seteuid(OTHER_UID), 0);
    rc = cairn_registry_load(&reg, dir);
    ck_assert_int_eq(seteuid(0), 0);
    ck_assert_int_eq(setegid(0), 0);
    ck_assert_int_eq(chmod(root_dir, 0700), 0);
    ck_assert_msg(rc == 0 && reg.n_plugins == 3,
                  "a plugin directory owned by the daemon's own user (uid %d) was refused: rc %d, "
                  "%zu plugins, %s",
                  OTHER_UID, rc, reg.n_plugins, all_errors(&reg));
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(path);
    free(dir);
}
END_TEST

START_TEST(read_only_file_is_accepted)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *path = th_xasprintf("%s/stone-game.so", dir);

    add_real(dir, "stone-game.so");
    ck_assert_int_eq(chmod(path, 0444), 0);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), 0);
    ck_assert_uint_eq(reg.n_plugins, 1);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(path);
    free(dir);
}
END_TEST

START_TEST(missing_entry_symbol_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/no_entry.so", dir);

    add_bad(dir, "no_entry.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, "no symbol cairn_plugin_entry");
    ck_assert_uint_eq(reg.n_plugins, 0);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(bad);
    free(dir);
}
END_TEST

START_TEST(entry_returning_null_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/null_entry.so", dir);

    add_bad(dir, "null_entry.so");
    add_real(dir, "stone-game.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, "cairn_plugin_entry returned NULL");
    ck_assert_uint_eq(reg.n_plugins, 1);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(bad);
    free(dir);
}
END_TEST

/* A plugin the dynamic linker never unloads (-z nodelete) still answers
 * to the /proc/self/fd name of its old copy after the registry is freed:
 * the new copy, given the same descriptor number, must be renamed, or the
 * reload would run the old code.  Each reload leaves one more such name
 * behind; once a copy would have to move past 64 of them, the file is
 * refused rather than loaded as stale code. */
START_TEST(plugin_never_unloaded_is_replaced_on_reload)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *v1 = th_xasprintf("%s/nodelete_1.so", env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR"));
    char *v2 = th_xasprintf("%s/nodelete_2.so", env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR"));
    char *tmp = th_xasprintf("%s/nodelete.so.new", dir);
    char *dst = th_xasprintf("%s/nodelete.so", dir);
    char *want =
        th_xasprintf("%s: cannot find a free name for the private copy: %s", dst, strerror(EBUSY));
    int round;

    for (round = 0; round <= 65; round++) {
        const struct cairn_plugin_handle *h;

        /* Installed by renaming into place, as a package manager does. */
        copy_file(round % 2 == 0 ? v1 : v2, dir, "nodelete.so.new", 0755);
        ck_assert_int_eq(rename(tmp, dst), 0);
        if (round == 65) {
            ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
            ck_assert_uint_eq(reg.n_errors, 1);
            ck_assert_str_eq(reg.errors[0], want);
        } else {
            ck_assert_msg(cairn_registry_load(&reg, dir) == 0, "round %d: %s", round,
                          reg.n_errors > 0 ? reg.errors[0] : "");
            h = cairn_registry_find(&reg, "nodelete");
            ck_assert_ptr_nonnull(h);
            ck_assert_str_eq(h->desc->version, round % 2 == 0 ? "1" : "2");
        }
        cairn_registry_free(&reg);
    }
    th_rm_tree(dir);
    free(want);
    free(tmp);
    free(dst);
    free(v1);
    free(v2);
    free(dir);
}
END_TEST

START_TEST(unresolved_symbol_is_refused_at_load)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/undefined_symbol.so", dir);
    char *expected;
    void *dl;

    add_bad(dir, "undefined_symbol.so");
    /* What dlopen itself says about this file is what the operator must see. */
    dl = dlopen(bad, RTLD_NOW | RTLD_LOCAL);
    ck_assert_msg(dl == NULL, "undefined_symbol.so loaded: the fixture is not broken");
    expected = strdup(dlerror());
    ck_assert_ptr_nonnull(expected);
    ck_assert_ptr_nonnull(strstr(expected, "cairn_test_symbol_that_exists_nowhere"));

    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, "cannot load", expected);
    ck_assert_uint_eq(reg.n_plugins, 0);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(expected);
    free(bad);
    free(dir);
}
END_TEST

/* dlopen's message names the private copy; the refusal names the file in
 * its place, however long its path: here longer than the message buffer,
 * so the message is cut, never overrun, and still starts with the file. */
START_TEST(unresolved_symbol_in_a_deep_directory_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *top = th_make_dir_in(root_dir), *dir = th_xasprintf("%s", top), *bad;
    char part[201];
    int depth;

    memset(part, 'd', sizeof(part) - 1);
    part[sizeof(part) - 1] = '\0';
    for (depth = 0; depth < 5; depth++) {
        char *deeper = th_xasprintf("%s/%s", dir, part);

        ck_assert_int_eq(mkdir(deeper, 0755), 0);
        free(dir);
        dir = deeper;
    }
    bad = th_xasprintf("%s/undefined_symbol.so", dir);
    add_bad(dir, "undefined_symbol.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ck_assert_msg(strncmp(reg.errors[0], bad, strlen(bad)) == 0 &&
                      strncmp(reg.errors[0] + strlen(bad), ": cannot load: ", 15) == 0,
                  "%s", reg.errors[0]);
    ck_assert_ptr_null(strstr(reg.errors[0], "/proc/self/fd/"));
    ck_assert_uint_lt(strlen(reg.errors[0]),
                      strlen(bad) + 2 + 1024); /* "PATH: ", a reason cut to 1 KiB */
    cairn_registry_free(&reg);
    th_rm_tree(top);
    free(bad);
    free(dir);
    free(top);
}
END_TEST

START_TEST(malformed_descriptor_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/bad_descriptor.so", dir);

    add_bad(dir, "bad_descriptor.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, "descriptor", "solve");
    ck_assert_uint_eq(reg.n_plugins, 0);
    ck_assert_ptr_null(cairn_registry_find(&reg, "bad-descriptor"));
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(bad);
    free(dir);
}
END_TEST

START_TEST(symlink_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *target = th_xasprintf("%s/stone-game.so", dir);
    char *link = th_xasprintf("%s/x.so", dir);

    add_real(dir, "stone-game.so");
    ck_assert_int_eq(symlink(target, link), 0);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, link, "not a regular file");
    /* The real file it points at still loads, once. */
    ck_assert_uint_eq(reg.n_plugins, 1);
    ck_assert_str_eq(reg.plugins[0].path, target);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(target);
    free(link);
    free(dir);
}
END_TEST

START_TEST(directory_named_so_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *sub = th_xasprintf("%s/sub.so", dir);

    ck_assert_int_eq(mkdir(sub, 0755), 0);
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ASSERT_ERROR(&reg, sub, "not a regular file");
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(sub);
    free(dir);
}
END_TEST

START_TEST(non_elf_file_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/notelf.so", dir);

    th_write_text(bad, "this is plain text, not an ELF shared object\n");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, "not an ELF file");
    ck_assert_uint_eq(reg.n_plugins, 0);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(bad);
    free(dir);
}
END_TEST

START_TEST(newer_minor_is_refused_naming_both_versions)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/newer_minor.so", dir);
    char *theirs = th_xasprintf("plugin ABI version %d.%d,", CAIRN_PLUGIN_ABI_MAJOR,
                                CAIRN_PLUGIN_ABI_MINOR + 1);
    char *ours = th_xasprintf("this cairnd speaks %d.%d (minors up to %d)", CAIRN_PLUGIN_ABI_MAJOR,
                              CAIRN_PLUGIN_ABI_MINOR, CAIRN_PLUGIN_ABI_MINOR);

    add_all_real(dir);
    add_bad(dir, "newer_minor.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, theirs, ours);
    ck_assert_uint_eq(reg.n_plugins, 3);
    ck_assert_ptr_null(cairn_registry_find(&reg, "newer-minor"));
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(ours);
    free(theirs);
    free(bad);
    free(dir);
}
END_TEST

START_TEST(other_major_is_refused_naming_both_versions)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/bad_abi.so", dir);
    char *theirs = th_xasprintf("plugin ABI version %d.%d,", CAIRN_PLUGIN_ABI_MAJOR + 1,
                                CAIRN_PLUGIN_ABI_MINOR);
    char *ours = th_xasprintf("this cairnd speaks %d.%d (major %d only)", CAIRN_PLUGIN_ABI_MAJOR,
                              CAIRN_PLUGIN_ABI_MINOR, CAIRN_PLUGIN_ABI_MAJOR);

    add_bad(dir, "bad_abi.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, theirs, ours);
    ck_assert_uint_eq(reg.n_plugins, 0);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(ours);
    free(theirs);
    free(bad);
    free(dir);
}
END_TEST

START_TEST(unknown_totals_bit_is_refused)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *bad = th_xasprintf("%s/bad_totals.so", dir);

    add_bad(dir, "bad_totals.so");
    add_bad(dir, "good_extra.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ASSERT_ERROR(&reg, bad, "bad descriptor", "totals 0xf", "unknown bits");
    ck_assert_uint_eq(reg.n_plugins, 1);
    ck_assert_ptr_null(cairn_registry_find(&reg, "bad-totals"));
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(bad);
    free(dir);
}
END_TEST

/* ---- ABI 1.0 binaries beside 1.1 ones ---------------------------------- */

START_TEST(abi_1_0_plugin_loads_beside_1_1_plugins)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *path = th_xasprintf("%s/front_one_or_two.so", dir);
    const struct cairn_plugin_handle *h;
    const struct cairn_plugin *raw;
    cairn_plugin_entry_fn entry;
    const int64_t stones[] = { 1, 2, 3, 7 };
    struct cairn_array in = { .v = stones, .n = 4 };
    struct cairn_problem pb = { .inputs = &in, .n_inputs = 1 };
    struct cairn_result res = { 0 };
    int64_t scratch[8];
    char msg[128] = "";
    size_t n_real, i;
    void *dl, *sym;
    int rc;

    n_real = add_every_real(dir);
    for (i = 0; i < N_ABI_FILES; i++)
        add_abi(dir, abi_files[i]);
    rc = cairn_registry_load(&reg, dir);
    ck_assert_msg(rc == 0, "rc %d, %s", rc, all_errors(&reg));
    ck_assert_uint_eq(reg.n_plugins, n_real + N_ABI_FILES);

    h = cairn_registry_find(&reg, "take12");
    ck_assert_ptr_nonnull(h);
    ck_assert_str_eq(h->desc->name, "front-one-or-two");
    ck_assert_str_eq(h->path, path);
    /* What it declared, kept; what 1.0 lacks, in its 1.0 meaning. */
    ck_assert_uint_eq(h->desc->abi_major, 1);
    ck_assert_uint_eq(h->desc->abi_minor, 0);
    ck_assert_uint_lt(h->desc->struct_size, sizeof(struct cairn_plugin));
    ck_assert_uint_ge(h->desc->struct_size,
                      offsetof(struct cairn_plugin, solve) + sizeof(h->desc->solve));
    ck_assert_uint_eq(h->desc->equal_length, 0);
    ck_assert_uint_eq(h->desc->totals, CAIRN_TOTALS_ALL);
    ck_assert_int_eq(h->desc->moves_kind, CAIRN_MOVES_COUNT);

    /* The host reads its own copy, never the plugin's descriptor (whose
     * 1.1 fields would lie past its end). */
    dl = h->dl;
    ck_assert_ptr_nonnull(dl);
    sym = dlsym(dl, CAIRN_PLUGIN_ENTRY_SYMBOL);
    ck_assert_ptr_nonnull(sym);
    memcpy(&entry, &sym, sizeof(entry));
    raw = entry();
    ck_assert_ptr_ne(h->desc, raw);
    ck_assert_ptr_eq(h->desc->solve, raw->solve);
    ck_assert_ptr_eq(h->desc->name, raw->name);

    /* And it plays: [1,2,3,7] -> Alice 8, Bob 5. */
    ck_assert_uint_le(h->desc->scratch_bytes(&pb), sizeof(scratch));
    ck_assert_int_eq(h->desc->solve(&pb, &res, scratch, msg, sizeof(msg)), CAIRN_OK);
    ck_assert_int_eq(res.answer, CAIRN_WINNER_ALICE);
    ck_assert_int_eq(res.alice, 8);
    ck_assert_int_eq(res.bob, 5);

    /* The 1.1 plugins (real 1.1 binaries) keep what they declared, and
     * offer no analysis. */
    h = cairn_registry_find(&reg, "count-down");
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(h->desc->abi_minor, 1);
    ck_assert_uint_eq(h->desc->struct_size, offsetof(struct cairn_plugin, value_kind));
    ck_assert_ptr_null(h->desc->analyze);
    ck_assert_int_eq(h->desc->value_kind, CAIRN_VALUE_NONE);
    ck_assert_uint_eq(h->desc->totals, 0);
    ck_assert_int_eq(h->desc->inputs[0].kind, CAIRN_INPUT_INT);
    h = cairn_registry_find(&reg, "pick-any");
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(h->desc->equal_length, 3);
    ck_assert_uint_eq(h->desc->totals, CAIRN_TOTAL_MARGIN);
    h = cairn_registry_find(&reg, "split-keep");
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(h->desc->totals, CAIRN_TOTAL_ALICE);
    ck_assert_int_eq(h->desc->moves_kind, CAIRN_MOVES_SPLIT);
    h = cairn_registry_find(&reg, "stone-game");
    ck_assert_ptr_nonnull(h);
    ck_assert_uint_eq(h->desc->totals, CAIRN_TOTALS_ALL);

    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(path);
    free(dir);
}
END_TEST

/* ---- cairn_plugin_adopt on descriptors in memory ------------------------ */

typedef int (*mem_solve_ptr_t)(const struct cairn_problem *, struct cairn_result *, void *, char *,
                               size_t);

static size_t mem_zero(const struct cairn_problem *p)
{
    (void)p;
    return 0;
}

static int mem_solve(const struct cairn_problem *p, struct cairn_result *r, void *scratch,
                     char *msg, size_t msg_len)
{
    (void)p;
    (void)r;
    (void)scratch;
    (void)msg;
    (void)msg_len;
    return CAIRN_OK;
}

/* Two arrays then a scalar. */
static const struct cairn_input_decl mem_inputs[] = {
    { .name = "xs",
      .kind = CAIRN_INPUT_INT_ARRAY,
      .official = { .min_len = 1, .max_len = 9, .min_value = 0, .max_value = 9 },
      .extended = { .min_len = 1, .max_len = 99, .min_value = 0, .max_value = 99 } },
    { .name = "ys",
      .kind = CAIRN_INPUT_INT_ARRAY,
      .official = { .min_len = 1, .max_len = 9, .min_value = 0, .max_value = 9 },
      .extended = { .min_len = 1, .max_len = 99, .min_value = 0, .max_value = 99 } },
    { .name = "n",
      .kind = CAIRN_INPUT_INT,
      .official = { .min_value = 1, .max_value = 9 },
      .extended = { .min_value = 1, .max_value = 99 } },
};

/* A valid 1.1 descriptor using every 1.1 feature. */
static struct cairn_plugin mem_good(void)
{
    return (struct cairn_plugin){ .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
                                  .abi_minor = 1,
                                  .struct_size = sizeof(struct cairn_plugin),
                                  .name = "mem",
                                  .aliases = NULL,
                                  .version = "1",
                                  .summary = "in memory",
                                  .inputs = mem_inputs,
                                  .n_inputs = 3,
                                  .answer_kind = CAIRN_ANSWER_INT,
                                  .moves_kind = CAIRN_MOVES_SPLIT,
                                  .scratch_bytes = mem_zero,
                                  .max_moves = mem_zero,
                                  .solve = mem_solve,
                                  .equal_length = 3,
                                  .totals = CAIRN_TOTAL_ALICE | CAIRN_TOTAL_MARGIN };
}

/* adopt must refuse d with a reason holding every needle. */
static void assert_refused(const struct cairn_plugin *d, const char *const *needles,
                           const char *what)
{
    struct cairn_plugin out;
    char why[320] = "";
    size_t i;

    ck_assert_msg(cairn_plugin_adopt(d, &out, why, sizeof(why)) == -EINVAL, "%s: accepted", what);
    for (i = 0; needles[i] != NULL; i++)
        ck_assert_msg(strstr(why, needles[i]) != NULL, "%s: \"%s\" not in: %s", what, needles[i],
                      why);
}
#define REFUSED(d, what, ...) assert_refused((d), (const char *const[]){ __VA_ARGS__, NULL }, what)

START_TEST(adopt_keeps_a_1_1_descriptor)
{
    struct cairn_plugin raw = mem_good(), out;
    char why[320] = "";

    memset(&out, 0xA5, sizeof(out));
    ck_assert_msg(cairn_plugin_adopt(&raw, &out, why, sizeof(why)) == 0, "%s", why);
    ck_assert_int_eq(memcmp(&raw, &out, sizeof(raw)), 0);
}
END_TEST

/* A 1.0 descriptor: nothing past struct_size is read, and the 1.1 fields
 * take their 1.0 meaning.  The bytes past it are poisoned to prove it. */
START_TEST(adopt_reads_a_1_0_descriptor_only_up_to_its_size)
{
    const size_t size_1_0 = offsetof(struct cairn_plugin, solve) + sizeof(mem_solve_ptr_t);
    struct cairn_plugin raw = mem_good(), out;
    char why[320] = "";

    raw.abi_minor = 0;
    raw.struct_size = (uint32_t)size_1_0;
    raw.moves_kind = CAIRN_MOVES_COUNT;
    raw.n_inputs = 2; /* no scalar in 1.0 */
    memset((char *)&raw + size_1_0, 0xA5, sizeof(raw) - size_1_0);
    memset(&out, 0x5A, sizeof(out));
    ck_assert_msg(cairn_plugin_adopt(&raw, &out, why, sizeof(why)) == 0, "%s", why);
    ck_assert_int_eq(memcmp(&raw, &out, size_1_0), 0);
    ck_assert_uint_eq(out.equal_length, 0);
    ck_assert_uint_eq(out.totals, CAIRN_TOTALS_ALL);
    ck_assert_uint_eq(out.abi_minor, 0);
    ck_assert_uint_eq(out.struct_size, size_1_0);
}
END_TEST

START_TEST(adopt_copies_no_more_than_it_knows)
{
    /* A descriptor longer than this host's, of a minor it speaks. */
    struct {
        struct cairn_plugin d;
        unsigned char more[32];
    } raw;
    struct cairn_plugin out;
    char why[320] = "";

    memset(&raw, 0xA5, sizeof(raw));
    raw.d = mem_good();
    raw.d.struct_size = (uint32_t)sizeof(raw);
    ck_assert_msg(cairn_plugin_adopt(&raw.d, &out, why, sizeof(why)) == 0, "%s", why);
    ck_assert_uint_eq(out.totals, CAIRN_TOTAL_ALICE | CAIRN_TOTAL_MARGIN);
}
END_TEST

START_TEST(adopt_refuses_versions_and_sizes)
{
    const size_t size_1_0 = offsetof(struct cairn_plugin, solve) + sizeof(mem_solve_ptr_t);
    struct cairn_plugin d;
    char *want;

    d = mem_good();
    d.abi_major = 2;
    d.abi_minor = 0;
    want = th_xasprintf("this cairnd speaks %d.%d", CAIRN_PLUGIN_ABI_MAJOR, CAIRN_PLUGIN_ABI_MINOR);
    REFUSED(&d, "major 2", "plugin ABI version 2.0,", want);
    d.abi_major = 0;
    REFUSED(&d, "major 0", "plugin ABI version 0.0,", want);

    d = mem_good();
    d.abi_minor = CAIRN_PLUGIN_ABI_MINOR + 1;
    d.struct_size = (uint32_t)sizeof(d) + 8; /* never read: refused first */
    REFUSED(&d, "newer minor", "plugin ABI version 1.3,", want, "(minors up to 2)");
    free(want);

    d = mem_good();
    d.abi_minor = 0;
    d.struct_size = (uint32_t)size_1_0 - 8;
    want =
        th_xasprintf("descriptor is %zu bytes, ABI 1.0 needs at least %zu", size_1_0 - 8, size_1_0);
    REFUSED(&d, "smaller than 1.0", want);
    free(want);

    /* A 1.1 descriptor must carry the 1.1 fields it promises. */
    d = mem_good();
    d.struct_size = (uint32_t)size_1_0;
    want = th_xasprintf("descriptor is %zu bytes, ABI 1.1 needs at least %zu", size_1_0,
                        offsetof(struct cairn_plugin, value_kind));
    REFUSED(&d, "1.1 of 1.0 size", want);
    free(want);
}
END_TEST

START_TEST(adopt_refuses_malformed_1_1_fields)
{
    static const struct cairn_input_decl bad_kind[] = {
        { .name = "xs",
          .kind = (enum cairn_input_kind)3,
          .official = { .min_len = 1, .max_len = 9, .max_value = 9 },
          .extended = { .min_len = 1, .max_len = 9, .max_value = 9 } }
    };
    static const struct cairn_input_decl scalar_inverted[] = {
        { .name = "n",
          .kind = CAIRN_INPUT_INT,
          .official = { .min_value = 5, .max_value = 1 },
          .extended = { .min_value = 1, .max_value = 9 } }
    };
    static const struct cairn_input_decl scalar_lengths_ignored[] = {
        { .name = "n",
          .kind = CAIRN_INPUT_INT,
          .official = { .min_len = 7, .max_len = 2, .min_value = 1, .max_value = 9 },
          .extended = { .min_len = 7, .max_len = 2, .min_value = 1, .max_value = 9 } }
    };
    struct cairn_plugin d, out;
    char why[320];

    d = mem_good();
    d.inputs = bad_kind;
    d.n_inputs = 1;
    d.equal_length = 0;
    REFUSED(&d, "input kind 3", "inputs[0] \"xs\": unknown kind 3");

    d = mem_good();
    d.inputs = scalar_inverted;
    d.n_inputs = 1;
    d.equal_length = 0;
    REFUSED(&d, "scalar bounds", "inputs[0] \"n\" has inverted bounds");
    d.inputs = scalar_lengths_ignored;
    ck_assert_msg(cairn_plugin_adopt(&d, &out, why, sizeof(why)) == 0, "%s", why);

    d = mem_good();
    d.moves_kind = (enum cairn_moves_kind)5;
    REFUSED(&d, "moves kind 5", "moves_kind 5 is unknown");

    d = mem_good();
    d.equal_length = 1u << 5;
    REFUSED(&d, "bit past the inputs", "equal_length 0x20 has bit 5", "only 3 inputs");
    d.equal_length = 1u << 0 | 1u << 2;
    REFUSED(&d, "a scalar flagged", "equal_length names inputs[2] \"n\", which is not an array");
    d.equal_length = 1u << 1;
    REFUSED(&d, "one array flagged", "equal_length names one input", "at least two");

    d = mem_good();
    d.totals = 1u << 3;
    REFUSED(&d, "totals bit 3", "totals 0x8 has unknown bits");
    d.totals = 0; /* a game without totals is fine */
    ck_assert_msg(cairn_plugin_adopt(&d, &out, why, sizeof(why)) == 0, "%s", why);
    ck_assert_uint_eq(out.totals, 0);
}
END_TEST

/* ---- 1.2: analysis ---- */

static size_t mem_legal(const struct cairn_problem *p)
{
    (void)p;
    return 2;
}

static size_t mem_abytes(const struct cairn_problem *p, size_t n_line)
{
    (void)p;
    (void)n_line;
    return 0;
}

static int mem_analyze(const struct cairn_problem *p, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    (void)p;
    (void)a;
    (void)scratch;
    (void)msg;
    (void)msg_len;
    return CAIRN_E_INTERNAL;
}

static struct cairn_plugin mem_analysing(void)
{
    struct cairn_plugin d = mem_good();

    d.abi_minor = 2;
    d.value_kind = CAIRN_VALUE_ALICE;
    d.max_legal_moves = mem_legal;
    d.analysis_scratch_bytes = mem_abytes;
    d.analyze = mem_analyze;
    return d;
}

START_TEST(adopt_keeps_1_2_analysis)
{
    struct cairn_plugin raw = mem_analysing(), out;
    char why[320] = "";

    ck_assert_msg(cairn_plugin_adopt(&raw, &out, why, sizeof(why)) == 0, "%s", why);
    ck_assert_int_eq(memcmp(&raw, &out, sizeof(raw)), 0);
}
END_TEST

/* Bytes past 1.1 in a descriptor that says 1.1 meant nothing to its
 * author: no analysis, whatever they hold. */
START_TEST(adopt_reads_no_analysis_before_1_2)
{
    struct cairn_plugin raw = mem_analysing(), out;
    char why[320] = "";

    raw.abi_minor = 1;
    ck_assert_msg(cairn_plugin_adopt(&raw, &out, why, sizeof(why)) == 0, "%s", why);
    ck_assert_int_eq(out.value_kind, CAIRN_VALUE_NONE);
    ck_assert_ptr_null(out.analyze);
    ck_assert_ptr_null(out.max_legal_moves);
    ck_assert_ptr_null(out.analysis_scratch_bytes);
    /* A 1.1 descriptor of 1.1's size is read the same way. */
    raw.struct_size = (uint32_t)offsetof(struct cairn_plugin, value_kind);
    ck_assert_msg(cairn_plugin_adopt(&raw, &out, why, sizeof(why)) == 0, "%s", why);
    ck_assert_ptr_null(out.analyze);
    /* A 1.2 descriptor must be 1.2's size. */
    raw.abi_minor = 2;
    REFUSED(&raw, "short 1.2", "ABI 1.2 needs at least");
}
END_TEST

START_TEST(adopt_refuses_half_built_analysis)
{
    struct cairn_plugin d = mem_analysing();

    d.analyze = NULL;
    REFUSED(&d, "value kind without analyze", "analysis needs value_kind, analyze");
    d = mem_analysing();
    d.analysis_scratch_bytes = NULL;
    REFUSED(&d, "no analysis scratch", "analysis needs value_kind, analyze");
    d = mem_analysing();
    d.max_legal_moves = NULL;
    REFUSED(&d, "no max_legal_moves", "analysis needs value_kind, analyze");
    d = mem_analysing();
    d.value_kind = CAIRN_VALUE_NONE;
    REFUSED(&d, "analyze without a value kind", "(or none of them)");
    d = mem_good();
    d.abi_minor = 2;
    d.max_legal_moves = mem_legal;
    REFUSED(&d, "only max_legal_moves", "(or none of them)");
    d = mem_good();
    d.abi_minor = 2;
    d.analysis_scratch_bytes = mem_abytes;
    REFUSED(&d, "only analysis_scratch_bytes", "(or none of them)");
    d = mem_analysing();
    d.value_kind = (enum cairn_value_kind)9;
    REFUSED(&d, "value kind 9", "value_kind 9 is unknown");
}
END_TEST

/* 1.1 features in a descriptor that says 1.0: its author never saw them. */
START_TEST(adopt_refuses_1_1_features_in_a_1_0_descriptor)
{
    const size_t size_1_0 = offsetof(struct cairn_plugin, solve) + sizeof(mem_solve_ptr_t);
    struct cairn_plugin d = mem_good();

    d.abi_minor = 0;
    d.struct_size = (uint32_t)size_1_0;
    REFUSED(&d, "scalar in 1.0", "inputs[2] \"n\": kind 2 needs ABI 1.1, the descriptor says 1.0");
    d.n_inputs = 2;
    REFUSED(&d, "split moves in 1.0", "moves_kind 4 needs ABI 1.1, the descriptor says 1.0");
    d.moves_kind = CAIRN_MOVES_INDEX;
    REFUSED(&d, "index moves in 1.0", "moves_kind 3 needs ABI 1.1");
}
END_TEST

/* Each field a descriptor can get wrong, refused with a message naming it. */
START_TEST(adopt_names_each_bad_field)
{
    static const char *const bad_names[] = {
        "",
        "Mem",
        "a{",
        "a/",
        "a:",
        "a b",
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
    };
    static const char *const alias_bad[] = { "mem-2", "Bad", NULL };
    static const char *const alias_empty[] = { "", NULL };
    static const char *const alias_none[] = { "mem-2", "none", NULL };
    static const char *const alias_good[] = { "a-_.9", "z0", NULL };
    struct cairn_input_decl in[3];
    struct cairn_plugin d, out;
    char why[320] = "";
    size_t i;

    for (i = 0; i < sizeof(bad_names) / sizeof(bad_names[0]); i++) {
        d = mem_good();
        d.name = bad_names[i];
        REFUSED(&d, bad_names[i], "bad descriptor: name is missing or not [a-z0-9._-]+");
    }
    d.name = NULL;
    REFUSED(&d, "no name", "bad descriptor: name is missing");
    d.name =
        "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"; /* 64 bytes: the longest */
    ck_assert_msg(cairn_plugin_adopt(&d, &out, why, sizeof(why)) == 0, "64 bytes: %s", why);
    d = mem_good();
    d.aliases = alias_good;
    ck_assert_msg(cairn_plugin_adopt(&d, &out, why, sizeof(why)) == 0, "aliases: %s", why);
    d.aliases = alias_bad;
    REFUSED(&d, "alias Bad", "bad descriptor: an alias is empty or not [a-z0-9._-]+");
    d.aliases = alias_empty;
    REFUSED(&d, "empty alias", "bad descriptor: an alias is empty");
    d.aliases = alias_none;
    REFUSED(&d, "alias none", "bad descriptor: the alias \"none\" is reserved");

    d = mem_good();
    d.version = NULL;
    REFUSED(&d, "no version", "bad descriptor: version or summary is missing");
    d = mem_good();
    d.summary = NULL;
    REFUSED(&d, "no summary", "bad descriptor: version or summary is missing");

    d = mem_good();
    d.inputs = NULL;
    REFUSED(&d, "no inputs", "bad descriptor: declares no inputs");
    d = mem_good();
    d.n_inputs = 0;
    REFUSED(&d, "0 inputs", "bad descriptor: declares no inputs");

    /* Each bound of each array input, and a scalar's extended range. */
    for (i = 0; i < 6; i++) {
        memcpy(in, mem_inputs, sizeof(in));
        d = mem_good();
        d.inputs = in;
        switch (i) {
        case 0: in[1].name = NULL; break;
        case 1: in[1].name = ""; break;
        case 2: in[1].official.min_len = 10; break;
        case 3: in[1].official.min_value = 10; break;
        case 4: in[1].extended.min_len = 100; break;
        case 5: in[1].extended.min_value = 100; break;
        }
        if (i < 2)
            REFUSED(&d, "no input name", "bad descriptor: inputs[1] has no name");
        else
            REFUSED(&d, "array bounds", "bad descriptor: inputs[1] \"ys\" has inverted bounds");
    }
    memcpy(in, mem_inputs, sizeof(in));
    in[2].extended.min_value = 100;
    d = mem_good();
    d.inputs = in;
    REFUSED(&d, "scalar extended bounds", "bad descriptor: inputs[2] \"n\" has inverted bounds");

    d = mem_good();
    d.answer_kind = (enum cairn_answer_kind)0;
    REFUSED(&d, "answer kind 0", "bad descriptor: answer_kind 0 is unknown");
    d.answer_kind = (enum cairn_answer_kind)4;
    REFUSED(&d, "answer kind 4", "bad descriptor: answer_kind 4 is unknown");

    for (i = 0; i < 3; i++) {
        d = mem_good();
        if (i == 0)
            d.solve = NULL;
        else if (i == 1)
            d.scratch_bytes = NULL;
        else
            d.max_moves = NULL;
        REFUSED(&d, "a callback missing",
                "bad descriptor: solve, scratch_bytes or max_moves is missing");
    }
}
END_TEST

/* A 1.0 descriptor says nothing of equal_length and totals, whatever its
 * struct_size covers: they take their 1.0 meaning. */
START_TEST(adopt_reads_no_1_1_fields_from_a_long_1_0_descriptor)
{
    struct cairn_plugin raw = mem_good(), out;
    char why[320] = "";

    raw.abi_minor = 0;
    raw.moves_kind = CAIRN_MOVES_COUNT;
    raw.n_inputs = 2;
    raw.equal_length = 1u << 7; /* would be refused, read as 1.1 */
    raw.totals = CAIRN_TOTAL_BOB;
    ck_assert_msg(cairn_plugin_adopt(&raw, &out, why, sizeof(why)) == 0, "%s", why);
    ck_assert_uint_eq(out.equal_length, 0);
    ck_assert_uint_eq(out.totals, CAIRN_TOTALS_ALL);
}
END_TEST

/* ---- the registry's name index, filled by hand ---------------------- */

/* Adds a plugin of that name and aliases (from mem_good) to reg, as the
 * loader does; cairn_registry_add() must return want. */
static void add_by_hand(struct cairn_registry *reg, const char *name, const char *const *aliases,
                        const char *path, int want)
{
    struct cairn_plugin raw = mem_good();
    struct cairn_plugin *copy = malloc(sizeof(*copy));
    struct cairn_plugin_handle h;
    char why[320] = "";
    int rc;

    ck_assert_ptr_nonnull(copy);
    raw.name = name;
    raw.aliases = aliases;
    ck_assert_msg(cairn_plugin_adopt(&raw, copy, why, sizeof(why)) == 0, "%s", why);
    h = (struct cairn_plugin_handle){
        .desc = copy, .path = (char *)path, .dl = NULL, .copy_fd = -1
    };
    rc = cairn_registry_add(reg, &h);
    ck_assert_msg(rc == want, "adding %s returned %d, not %d", name, rc, want);
    if (rc != 0)
        free(copy);
}

/* Every name and alias of 41 plugins (the index grown twice on the way)
 * finds its plugin, through the index and without one; a name of the
 * same hash as a loaded one finds nothing; a name or alias taken twice is
 * refused naming both files. */
START_TEST(registry_finds_every_name_and_alias)
{
    enum {
        N = 40
    };
    static char names[N][8], alias_names[N][8];
    static const char *aliases[N][2];
    static const char *const clash_alias[] = { "fresh", "q7", NULL };
    struct cairn_registry reg = { 0 }, scanned;
    size_t i;

    for (i = 0; i < N; i++) {
        snprintf(names[i], sizeof(names[i]), "p%zu", i);
        snprintf(alias_names[i], sizeof(alias_names[i]), "q%zu", i);
        aliases[i][0] = alias_names[i];
        aliases[i][1] = NULL;
        add_by_hand(&reg, names[i], aliases[i], names[i], 0);
    }
    /* "glbvs" and "yacxa" have the same FNV-1a hash, 0xa1bc9a4f. */
    add_by_hand(&reg, "glbvs", NULL, "/x/glbvs.so", 0);
    ck_assert_uint_eq(reg.n_plugins, N + 1);
    ck_assert_uint_ge(reg.index_cap, 2 * (2 * N + 1));
    scanned = reg;
    scanned.index = NULL; /* a registry put together by hand: found by a scan */
    for (i = 0; i < N; i++) {
        ck_assert_ptr_eq(cairn_registry_find(&reg, names[i]), &reg.plugins[i]);
        ck_assert_ptr_eq(cairn_registry_find(&reg, alias_names[i]), &reg.plugins[i]);
        ck_assert_ptr_eq(cairn_registry_find(&scanned, names[i]), &reg.plugins[i]);
        ck_assert_ptr_eq(cairn_registry_find(&scanned, alias_names[i]), &reg.plugins[i]);
    }
    ck_assert_ptr_eq(cairn_registry_find(&reg, "glbvs"), &reg.plugins[N]);
    ck_assert_ptr_eq(cairn_registry_find(&scanned, "glbvs"), &reg.plugins[N]);
    ck_assert_ptr_null(cairn_registry_find(&reg, "yacxa"));
    ck_assert_ptr_null(cairn_registry_find(&scanned, "yacxa"));
    ck_assert_ptr_null(cairn_registry_find(&reg, "p40"));

    add_by_hand(&reg, "p3", NULL, "/y/p3.so", -EINVAL);
    add_by_hand(&reg, "new", clash_alias, "/y/new.so", -EINVAL);
    ck_assert_uint_eq(reg.n_plugins, N + 1);
    ck_assert_uint_eq(reg.n_errors, 2);
    ck_assert_str_eq(reg.errors[0], "/y/p3.so: name or alias \"p3\" is already taken by p3 (p3)");
    ck_assert_str_eq(reg.errors[1], "/y/new.so: name or alias \"q7\" is already taken by p7 (p7)");
    cairn_registry_free(&reg);
    ck_assert_ptr_null(reg.plugins);
    ck_assert_uint_eq(reg.n_plugins, 0);
}
END_TEST

/* ---- good plugins survive bad neighbours ----------------------------- */

START_TEST(good_plugins_load_beside_bad_ones)
{
    static const char *const bad_files[] = { "bad_abi.so", "no_entry.so", "undefined_symbol.so",
                                             "bad_descriptor.so" };
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    const struct cairn_plugin_handle *h;
    const int64_t values[] = { 1, 2, 3, 40 };
    struct cairn_array in = { .v = values, .n = 4 };
    struct cairn_problem pb = { .inputs = &in, .n_inputs = 1 };
    struct cairn_result res = { 0 };
    char msg[128] = "";
    size_t i;

    add_all_real(dir);
    add_bad(dir, "good_extra.so");
    for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++)
        add_bad(dir, bad_files[i]);

    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 4);
    for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
        char *path = th_xasprintf("%s/%s", dir, bad_files[i]);
        ASSERT_ERROR(&reg, path);
        free(path);
    }
    ck_assert_uint_eq(reg.n_plugins, 4);
    assert_finds(&reg, "877", "stone-game");
    assert_finds(&reg, "1140", "stone-game-ii");
    assert_finds(&reg, "1406", "stone-game-iii");
    assert_finds(&reg, "good-extra", "good-extra");
    h = cairn_registry_find(&reg, "9999");
    ck_assert_ptr_nonnull(h);
    ck_assert_str_eq(h->desc->name, "good-extra");
    ck_assert_uint_eq(h->desc->n_inputs, 1);
    ck_assert_str_eq(h->desc->inputs[0].name, "values");

    /* And it is callable. */
    ck_assert_int_eq(h->desc->solve(&pb, &res, NULL, msg, sizeof(msg)), CAIRN_OK);
    ck_assert_int_eq(res.answer, 46);

    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(dir);
}
END_TEST

/* ---- life cycle ------------------------------------------------------- */

START_TEST(free_then_reload_works)
{
    struct cairn_registry reg = { 0 };
    char *good = th_make_dir_in(root_dir);
    char *bad = th_make_dir_in(root_dir);
    int round;

    add_all_real(good);
    add_bad(bad, "bad_abi.so");
    add_bad(bad, "good_extra.so");

    for (round = 0; round < 3; round++) {
        ck_assert_int_eq(cairn_registry_load(&reg, good), 0);
        ck_assert_uint_eq(reg.n_plugins, 3);
        ck_assert_uint_eq(reg.n_errors, 0);
        assert_finds(&reg, "1406", "stone-game-iii");
        cairn_registry_free(&reg);
        ck_assert_uint_eq(reg.n_plugins, 0);
        ck_assert_uint_eq(reg.n_errors, 0);
        ck_assert_ptr_null(reg.plugins);
        ck_assert_ptr_null(reg.errors);
        ck_assert_ptr_null(cairn_registry_find(&reg, "1406"));

        /* Errors from one load do not leak into the next. */
        ck_assert_int_eq(cairn_registry_load(&reg, bad), -EINVAL);
        ck_assert_uint_eq(reg.n_errors, 1);
        ck_assert_uint_eq(reg.n_plugins, 1);
        assert_finds(&reg, "9999", "good-extra");
        ck_assert_ptr_null(cairn_registry_find(&reg, "877"));
        cairn_registry_free(&reg);
    }
    th_rm_tree(good);
    th_rm_tree(bad);
    free(good);
    free(bad);
}
END_TEST

START_TEST(missing_directory_is_named)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *missing = th_xasprintf("%s/no-such-dir", dir);
    int rc;

    rc = cairn_registry_load(&reg, missing);
    ck_assert_int_lt(rc, 0);
    ck_assert_uint_ge(reg.n_errors, 1);
    ASSERT_ERROR(&reg, missing);
    ck_assert_uint_eq(reg.n_plugins, 0);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(missing);
    free(dir);
}
END_TEST

/* A file over CAIRN_PLUGIN_MAX_BYTES is refused before a byte of it is
 * copied into memory (a sparse file: its size costs no disk). */
START_TEST(file_over_the_size_limit_is_refused_unread)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *big = th_xasprintf("%s/big.so", dir);
    char *want =
        th_xasprintf("%s: file is %lld bytes, over the %lld-byte limit for a plugin", big,
                     (long long)CAIRN_PLUGIN_MAX_BYTES + 1, (long long)CAIRN_PLUGIN_MAX_BYTES);
    int fd = open(big, O_WRONLY | O_CREAT | O_EXCL, 0644);

    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(ftruncate(fd, CAIRN_PLUGIN_MAX_BYTES + 1), 0);
    close(fd);
    add_real(dir, "stone-game.so");
    ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ck_assert_str_eq(reg.errors[0], want);
    ck_assert_uint_eq(reg.n_plugins, 1);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(want);
    free(big);
    free(dir);
}
END_TEST

START_TEST(file_given_as_directory_is_named)
{
    struct cairn_registry reg = { 0 };
    char *dir = th_make_dir_in(root_dir);
    char *file = th_xasprintf("%s/plugins", dir);
    char *want = th_xasprintf("%s/plugins: not a directory", dir);

    th_write_text(file, "not a directory\n");
    ck_assert_int_eq(cairn_registry_load(&reg, file), -EINVAL);
    ck_assert_uint_eq(reg.n_errors, 1);
    ck_assert_str_eq(reg.errors[0], want);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(want);
    free(file);
    free(dir);
}
END_TEST

/* ---- plugin sets and reloads: what the daemon loads through ---------- */

/* Sends stderr, where cairn_log writes, to path; returns the old one. */
static int stderr_to(const char *path)
{
    int saved = dup(STDERR_FILENO), fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);

    ck_assert_int_ge(saved, 0);
    ck_assert_int_ge(fd, 0);
    fflush(stderr);
    ck_assert_int_ge(dup2(fd, STDERR_FILENO), 0);
    close(fd);
    return saved;
}

/* Puts stderr back; returns what was written to path (caller frees). */
static char *stderr_back(int saved, const char *path)
{
    fflush(stderr);
    ck_assert_int_ge(dup2(saved, STDERR_FILENO), 0);
    close(saved);
    return th_read_file(path, NULL);
}

/* The one place every mode loads plugins: a colon-separated list of
 * directories into one registry, default_variant checked against it, an
 * empty list of plugins refused; every reason logged with the prefix. */
START_TEST(plugin_set_loads_a_list_and_checks_the_default)
{
    struct cairn_log log;
    struct cairn_registry reg = { 0 };
    struct cairn_plugin_set *ps;
    char *a = th_make_dir_in(root_dir), *b = th_make_dir_in(root_dir),
         *empty = th_make_dir_in(root_dir);
    char *both = th_xasprintf("%s:%s", a, b), *twice = th_xasprintf("%s:%s", a, a);
    char *missing_then_a = th_xasprintf("%s/no-such-dir:%s", empty, a);
    char *logf = th_xasprintf("%s/log", empty), *out, *want;
    int saved, rc;

    cairn_log_init(&log, CAIRN_LOG_INFO);
    add_real(a, "stone-game.so");
    add_real(b, "stone-game-ii.so");

    ck_assert_int_eq(
        cairn_plugin_set_load_registry(&reg, both, "877", NULL, CAIRN_VERDICTS_IGNORE, &log, ""),
        0);
    ck_assert_uint_eq(reg.n_plugins, 2);
    cairn_registry_free(&reg);

    saved = stderr_to(logf);
    ck_assert_int_eq(cairn_plugin_set_load_registry(&reg, both, "no-such-game", NULL,
                                                    CAIRN_VERDICTS_IGNORE, &log, "reload: "),
                     -EINVAL);
    cairn_registry_free(&reg);
    ck_assert_int_eq(
        cairn_plugin_set_load_registry(&reg, empty, NULL, NULL, CAIRN_VERDICTS_IGNORE, &log, ""),
        -ENOENT);
    cairn_registry_free(&reg);
    /* A refusal in an early directory stands, however the later ones load. */
    ck_assert_int_eq(cairn_plugin_set_load_registry(&reg, missing_then_a, NULL, NULL,
                                                    CAIRN_VERDICTS_IGNORE, &log, ""),
                     -EINVAL);
    ck_assert_uint_eq(reg.n_plugins, 1);
    cairn_registry_free(&reg);
    /* The same directory twice: every name met again, naming both files. */
    ck_assert_int_eq(
        cairn_plugin_set_load_registry(&reg, twice, NULL, NULL, CAIRN_VERDICTS_IGNORE, &log, ""),
        -EINVAL);
    ck_assert_uint_eq(reg.n_plugins, 1);
    cairn_registry_free(&reg);
    out = stderr_back(saved, logf);
    ck_assert_msg(strstr(out, "reload: default_variant \"no-such-game\" names no loaded plugin or "
                              "alias") != NULL,
                  "%s", out);
    want = th_xasprintf("no plugins found in %s", empty);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    free(want);
    want = th_xasprintf("plugin refused: %s/stone-game.so: name or alias \"stone-game\" is "
                        "already taken by %s/stone-game.so",
                        a, a);
    ck_assert_msg(strstr(out, want) != NULL, "%s", out);
    free(want);
    free(out);

    /* A set is freed with its last reference. */
    ps = cairn_plugin_set_load(a, NULL, NULL, CAIRN_VERDICTS_IGNORE, &log, "", &rc);
    ck_assert_int_eq(rc, 0);
    ck_assert_ptr_nonnull(ps);
    ck_assert_ptr_eq(cairn_plugin_set_ref(ps), ps);
    ck_assert_uint_eq(ps->refs, 2);
    cairn_plugin_set_unref(ps);
    ck_assert_uint_eq(ps->refs, 1);
    ck_assert_ptr_nonnull(cairn_registry_find(&ps->reg, "stone-game"));
    cairn_plugin_set_unref(ps);
    cairn_plugin_set_unref(NULL);
    ck_assert_ptr_null(
        cairn_plugin_set_load(empty, NULL, NULL, CAIRN_VERDICTS_IGNORE, &log, "", &rc));
    ck_assert_int_eq(rc, -ENOENT);

    th_rm_tree(a);
    th_rm_tree(b);
    th_rm_tree(empty);
    free(a);
    free(b);
    free(empty);
    free(both);
    free(twice);
    free(missing_then_a);
    free(logf);
}
END_TEST

/* The overrides a reload applies again: here, the plugin directory. */
static int override_plugins(struct cairn_config *cfg, char **err, void *data)
{
    (void)err;
    free(cfg->plugin_dir);
    cfg->plugin_dir = strdup(data);
    return cfg->plugin_dir != NULL ? 0 : -ENOMEM;
}

static int override_fails(struct cairn_config *cfg, char **err, void *data)
{
    (void)cfg;
    (void)data;
    *err = strdup("--threads: not a number");
    return -EINVAL;
}

/* SIGHUP: the new configuration, but input_dir, output_dir and threads
 * as the run began (each kept with a warning); a bad configuration file,
 * a failing override or a plugin directory that loads nothing keeps the
 * old configuration and plugins, saying so. */
START_TEST(reload_keeps_what_only_a_restart_changes)
{
    struct cairn_log log;
    struct cairn_config old, nc;
    struct cairn_plugin_set *ps = NULL;
    char *plugins = th_make_dir_in(root_dir), *scratch = th_make_dir_in(root_dir);
    char *cfg = th_xasprintf("%s/cairn.json", scratch), *bad = th_xasprintf("%s/bad.json", scratch);
    char *logf = th_xasprintf("%s/log", scratch), *json, *json_same, *out;
    char *same = th_xasprintf("%s/same.json", scratch);
    struct cairn_reload_in in = { .old = &old, .config_file = cfg, .log = &log };
    int saved;

    cairn_log_init(&log, CAIRN_LOG_INFO);
    add_real(plugins, "stone-game.so");
    ck_assert_int_eq(cairn_config_defaults(&old), 0);
    old.input_dir = strdup("/srv/in");
    old.output_dir = NULL;
    old.threads = 2;
    json = th_xasprintf("{\"input_dir\": \"/srv/elsewhere\", \"output_dir\": \"/srv/out\", "
                        "\"threads\": 3, \"plugin_dir\": \"%s\"}\n",
                        plugins);
    th_write_text(cfg, json);
    json_same = th_xasprintf(
        "{\"input_dir\": \"/srv/in\", \"threads\": 2, \"plugin_dir\": \"%s\"}\n", plugins);
    th_write_text(bad, "{\"threads\": \n");

    /* The fixed settings as they are: nothing to warn of. */
    th_write_text(same, json_same);
    in.config_file = same;
    saved = stderr_to(logf);
    ck_assert_int_eq(cairn_reload_prepare(&in, &nc, &ps), 0);
    out = stderr_back(saved, logf);
    ck_assert_msg(strstr(out, "changes only with a restart") == NULL, "%s", out);
    ck_assert_str_eq(nc.input_dir, "/srv/in");
    free(out);
    cairn_plugin_set_unref(ps);
    cairn_config_free(&nc);

    in.config_file = cfg;
    saved = stderr_to(logf);
    ck_assert_int_eq(cairn_reload_prepare(&in, &nc, &ps), 0);
    ck_assert_str_eq(nc.input_dir, "/srv/in");
    ck_assert_ptr_null(nc.output_dir);
    ck_assert_uint_eq(nc.threads, 2);
    ck_assert_ptr_nonnull(cairn_registry_find(&ps->reg, "stone-game"));
    cairn_plugin_set_unref(ps);
    cairn_config_free(&nc);

    /* No file, the plugin directory from the command line. */
    in.config_file = NULL;
    in.apply_overrides = override_plugins;
    in.overrides_data = plugins;
    ck_assert_int_eq(cairn_reload_prepare(&in, &nc, &ps), 0);
    ck_assert_str_eq(nc.plugin_dir, plugins);
    cairn_plugin_set_unref(ps);
    cairn_config_free(&nc);

    in.overrides_data = scratch; /* no plugins there */
    ps = NULL;
    ck_assert_int_eq(cairn_reload_prepare(&in, &nc, &ps), -ENOENT);
    ck_assert_ptr_null(ps);
    in.apply_overrides = override_fails;
    ck_assert_int_eq(cairn_reload_prepare(&in, &nc, &ps), -EINVAL);
    in.apply_overrides = NULL;
    in.config_file = bad;
    ck_assert_int_eq(cairn_reload_prepare(&in, &nc, &ps), -EINVAL);
    out = stderr_back(saved, logf);

    ck_assert_msg(strstr(out, "reload: input_dir changes only with a restart; keeping /srv/in") !=
                      NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "reload: output_dir changes only with a restart; keeping it unset") !=
                      NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "reload: threads changes only with a restart") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "SIGHUP: reloading (no configuration file) and") != NULL, "%s", out);
    ck_assert_msg(strstr(out, "reload: --threads: not a number; keeping the old configuration") !=
                      NULL,
                  "%s", out);
    ck_assert_msg(strstr(out, "reload: keeping the old configuration and plugins") != NULL, "%s",
                  out);
    free(out);
    cairn_config_free(&old);
    th_rm_tree(plugins);
    th_rm_tree(scratch);
    free(plugins);
    free(scratch);
    free(cfg);
    free(bad);
    free(logf);
    free(json);
    free(json_same);
    free(same);
}
END_TEST

/* ---- the cairnd binary ------------------------------------------------ */

/* Runs cairnd with argv[1..] (NULL-terminated), stdout/stderr captured in
 * files inside scratch_dir, stdin from /dev/null, no journald prefixes. */
static struct th_run run_cairnd(const char *scratch_dir, const char *const *args)
{
    return th_run_cairnd(env_or_die("CAIRN_TEST_CAIRND"), scratch_dir, args);
}

/* A config file in its own directory, so /etc/cairn/cairn.json never
 * takes part. */
static char *write_config(const char *scratch, const char *json)
{
    char *path = th_xasprintf("%s/cairn.json", scratch);

    th_write_text(path, json);
    return path;
}

/* The output line containing `needle`, copied, or NULL. */
static char *line_with(const char *text, const char *needle)
{
    const char *hit = strstr(text, needle);
    const char *start, *end;

    if (hit == NULL)
        return NULL;
    for (start = hit; start > text && start[-1] != '\n'; start--)
        ;
    end = strchr(hit, '\n');
    if (end == NULL)
        end = hit + strlen(hit);
    return strndup(start, (size_t)(end - start));
}

START_TEST(cairnd_check_good_directory)
{
    char *scratch = th_make_dir_in(root_dir);
    char *plugins = th_make_dir_in(root_dir);
    char *cfg = write_config(scratch, "{}\n");
    struct th_run r;

    add_all_real(plugins);
    r = run_cairnd(scratch,
                   (const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "stone-game") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.out, "stone-game-ii") != NULL, "stdout: %s", r.out);
    ck_assert_msg(strstr(r.out, "stone-game-iii") != NULL, "stdout: %s", r.out);
    th_run_free(&r);

    /* The same directory given through the file's plugin_dir. */
    free(cfg);
    {
        char *json = th_xasprintf("{\"plugin_dir\": \"%s\"}\n", plugins);
        cfg = write_config(scratch, json);
        free(json);
    }
    r = run_cairnd(scratch, (const char *const[]){ "--check", "-c", cfg, NULL });
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "stone-game-iii") != NULL, "stdout: %s", r.out);
    th_run_free(&r);

    th_rm_tree(scratch);
    th_rm_tree(plugins);
    free(cfg);
    free(scratch);
    free(plugins);
}
END_TEST

START_TEST(cairnd_check_bad_plugin_exits_2)
{
    static const char *const bad_files[] = { "bad_abi.so",       "newer_minor.so",
                                             "bad_totals.so",    "dup_alias.so",
                                             "no_entry.so",      "undefined_symbol.so",
                                             "bad_descriptor.so" };
    size_t i;

    for (i = 0; i < sizeof(bad_files) / sizeof(bad_files[0]); i++) {
        char *scratch = th_make_dir_in(root_dir);
        char *plugins = th_make_dir_in(root_dir);
        char *cfg = write_config(scratch, "{}\n");
        char *bad = th_xasprintf("%s/%s", plugins, bad_files[i]);
        struct th_run r;

        add_all_real(plugins);
        add_bad(plugins, bad_files[i]);
        r = run_cairnd(scratch,
                       (const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, NULL });
        ck_assert_msg(r.status == 2, "%s: exit %d, stderr: %s", bad_files[i], r.status, r.err);
        ck_assert_msg(strstr(r.err, bad) != NULL, "stderr does not name %s: %s", bad, r.err);
        th_run_free(&r);
        th_rm_tree(scratch);
        th_rm_tree(plugins);
        free(bad);
        free(cfg);
        free(scratch);
        free(plugins);
    }
}
END_TEST

START_TEST(cairnd_check_writable_directory_exits_2)
{
    char *scratch = th_make_dir_in(root_dir);
    char *plugins = th_make_dir_in(root_dir);
    char *cfg = write_config(scratch, "{}\n");
    struct th_run r;

    add_all_real(plugins);
    ck_assert_int_eq(chmod(plugins, 0777), 0);
    r = run_cairnd(scratch,
                   (const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 2, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.err, plugins) != NULL, "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "writable by group or others") != NULL, "stderr: %s", r.err);
    th_run_free(&r);
    th_rm_tree(scratch);
    th_rm_tree(plugins);
    free(cfg);
    free(scratch);
    free(plugins);
}
END_TEST

START_TEST(cairnd_check_foreign_owner_exits_2)
{
    char *scratch, *plugins, *cfg, *path;
    struct th_run r;

    if (!can_chown("cairnd_check_foreign_owner_exits_2"))
        return;
    scratch = th_make_dir_in(root_dir);
    plugins = th_make_dir_in(root_dir);
    cfg = write_config(scratch, "{}\n");
    path = th_xasprintf("%s/stone-game-ii.so", plugins);
    add_all_real(plugins);
    ck_assert_int_eq(chown(path, OTHER_UID, OTHER_UID), 0);
    ck_assert_int_eq(chmod(path, 0644), 0);
    r = run_cairnd(scratch,
                   (const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 2, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.err, path) != NULL, "stderr does not name the file: %s", r.err);
    ck_assert_msg(strstr(r.err, "owned by uid 65534") != NULL, "stderr: %s", r.err);
    ck_assert_msg(strstr(r.err, "root (uid 0)") != NULL, "stderr: %s", r.err);
    th_run_free(&r);
    th_rm_tree(scratch);
    th_rm_tree(plugins);
    free(path);
    free(cfg);
    free(scratch);
    free(plugins);
}
END_TEST

START_TEST(cairnd_check_missing_directory_exits_2)
{
    char *scratch = th_make_dir_in(root_dir);
    char *cfg = write_config(scratch, "{}\n");
    char *missing = th_xasprintf("%s/no-plugins-here", scratch);
    struct th_run r;

    r = run_cairnd(scratch,
                   (const char *const[]){ "--check", "-c", cfg, "--plugins", missing, NULL });
    ck_assert_msg(r.status == 2, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.err, missing) != NULL, "stderr: %s", r.err);
    th_run_free(&r);
    th_rm_tree(scratch);
    free(missing);
    free(cfg);
    free(scratch);
}
END_TEST

START_TEST(cairnd_list_plugins_shows_name_aliases_version_file)
{
    static const struct {
        const char *file, *name, *alias;
    } want[] = { { "stone-game.so", "stone-game", "877" },
                 { "stone-game-ii.so", "stone-game-ii", "1140" },
                 { "stone-game-iii.so", "stone-game-iii", "1406" },
                 { "good_extra.so", "good-extra", "9999" } };
    struct cairn_registry reg = { 0 };
    char *scratch = th_make_dir_in(root_dir);
    char *plugins = th_make_dir_in(root_dir);
    char *cfg = write_config(scratch, "{}\n");
    struct th_run r;
    size_t i;

    add_all_real(plugins);
    add_bad(plugins, "good_extra.so");
    /* The versions to expect come from the descriptors themselves. */
    ck_assert_int_eq(cairn_registry_load(&reg, plugins), 0);

    r = run_cairnd(
        scratch, (const char *const[]){ "--list-plugins", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        char *file = th_xasprintf("%s/%s", plugins, want[i].file);
        const struct cairn_plugin_handle *h = cairn_registry_find(&reg, want[i].name);
        char *line = line_with(r.out, file);
        char *name = th_xasprintf("%s ", want[i].name);

        ck_assert_ptr_nonnull(h);
        ck_assert_msg(line != NULL, "no line names %s:\n%s", file, r.out);
        ck_assert_msg(strstr(line, name) != NULL, "line for %s lacks the name %s: %s", file,
                      want[i].name, line);
        ck_assert_msg(strstr(line, want[i].alias) != NULL, "line lacks alias %s: %s", want[i].alias,
                      line);
        ck_assert_msg(strstr(line, h->desc->version) != NULL, "line lacks version %s: %s",
                      h->desc->version, line);
        free(name);
        free(line);
        free(file);
    }
    {
        /* In the games' order, not the files' (stone-game-ii.so sorts
         * before stone-game.so), each column where the one above it is. */
        static const char *const order[] = { "stone-game ",     "stone-game-ii ",
                                             "stone-game-iii ", "stone-game-iv ",
                                             "stone-game-v ",   "stone-game-vi ",
                                             "stone-game-vii ", "stone-game-viii ",
                                             "stone-game-ix " };
        const char *at = r.out;
        long col = -1;
        char *line;

        for (i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
            const char *hit = strstr(r.out, order[i]);
            if (hit == NULL)
                continue; /* not among the plugins of this case */
            ck_assert_msg(hit >= at, "%s is out of order:\n%s", order[i], r.out);
            at = hit;
        }
        for (line = r.out; line != NULL && *line != '\0'; line = strchr(line, '\n')) {
            const char *v;
            line += *line == '\n';
            if (strncmp(line, "stone-game", 10) != 0 && strncmp(line, "good-extra", 10) != 0)
                continue;
            v = strstr(line, "version:");
            ck_assert_ptr_nonnull(v);
            if (col < 0)
                col = (long)(v - line);
            ck_assert_msg((long)(v - line) == col, "columns shift:\n%s", r.out);
        }
    }
    th_run_free(&r);
    cairn_registry_free(&reg);
    th_rm_tree(scratch);
    th_rm_tree(plugins);
    free(cfg);
    free(scratch);
    free(plugins);
}
END_TEST

/* A name without a "-NUMERAL" ending ("slow") sorts by its letters among
 * the games: after predict-the-winner, before stone-game. */
START_TEST(cairnd_list_plugins_sorts_plain_names_by_letters)
{
    char *scratch = th_make_dir_in(root_dir);
    char *cfg = write_config(scratch, "{}\n");
    char plugins[PATH_MAX];
    const char *ptw, *slow, *sg;
    struct th_run r;
    char *out;

    th_plugins_with_slow(scratch, plugins);
    r = run_cairnd(
        scratch, (const char *const[]){ "--list-plugins", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    out = th_xasprintf("\n%s", r.out); /* each name then follows a newline */
    ptw = strstr(out, "\npredict-the-winner ");
    slow = strstr(out, "\nslow ");
    sg = strstr(out, "\nstone-game ");
    ck_assert_msg(ptw != NULL && slow != NULL && sg != NULL && ptw < slow && slow < sg,
                  "out of order:\n%s", r.out);
    ck_assert_msg(strstr(slow, "aliases: 7003") != NULL, "slow's aliases:\n%s", r.out);
    free(out);
    th_run_free(&r);
    th_rm_tree(scratch);
    free(cfg);
    free(scratch);
}
END_TEST

START_TEST(cairnd_list_plugins_shows_each_abi)
{
    char *scratch = th_make_dir_in(root_dir);
    char *plugins = th_make_dir_in(root_dir);
    char *cfg = write_config(scratch, "{}\n");
    char *old_file, *new_file, *old_line, *new_line, *this_abi;
    struct th_run r;

    add_all_real(plugins);
    add_abi(plugins, "front_one_or_two.so");
    r = run_cairnd(
        scratch, (const char *const[]){ "--list-plugins", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    old_file = th_xasprintf("%s/front_one_or_two.so", plugins);
    new_file = th_xasprintf("%s/stone-game.so", plugins);
    old_line = line_with(r.out, old_file);
    new_line = line_with(r.out, new_file);
    this_abi = th_xasprintf("abi: %d.%d ", CAIRN_PLUGIN_ABI_MAJOR, CAIRN_PLUGIN_ABI_MINOR);
    ck_assert_msg(old_line != NULL && strstr(old_line, "abi: 1.0 ") != NULL, "%s", r.out);
    ck_assert_msg(new_line != NULL && strstr(new_line, this_abi) != NULL, "%s", r.out);
    th_run_free(&r);
    th_rm_tree(scratch);
    th_rm_tree(plugins);
    free(this_abi);
    free(old_line);
    free(new_line);
    free(old_file);
    free(new_file);
    free(cfg);
    free(scratch);
    free(plugins);
}
END_TEST

static Suite *loader_suite(void)
{
    Suite *s = suite_create("loader");
    TCase *tc;

#define CASE(name, fn)       \
    tc = tcase_create(name); \
    tcase_add_test(tc, fn);  \
    suite_add_tcase(s, tc)

    CASE("real plugins load and resolve by name and alias", real_plugins_load_and_resolve);
    CASE("every name and alias resolves, by the index and by a scan",
         every_name_and_alias_resolves);
    CASE("an empty directory loads nothing", empty_directory_loads_nothing);
    CASE("files not named .so are ignored", files_not_named_so_are_ignored);
    CASE("a wrong ABI version is refused", wrong_abi_version_is_refused);
    CASE("a newer minor is refused, naming both versions",
         newer_minor_is_refused_naming_both_versions);
    CASE("another major is refused, naming both versions",
         other_major_is_refused_naming_both_versions);
    CASE("an unknown totals bit is refused", unknown_totals_bit_is_refused);
    CASE("an ABI 1.0 plugin loads beside 1.1 plugins", abi_1_0_plugin_loads_beside_1_1_plugins);
    CASE("adopt keeps a 1.1 descriptor", adopt_keeps_a_1_1_descriptor);
    CASE("adopt reads a 1.0 descriptor only up to its size",
         adopt_reads_a_1_0_descriptor_only_up_to_its_size);
    CASE("adopt copies no more than it knows", adopt_copies_no_more_than_it_knows);
    CASE("adopt refuses other versions and short sizes", adopt_refuses_versions_and_sizes);
    CASE("adopt refuses malformed 1.1 fields", adopt_refuses_malformed_1_1_fields);
    CASE("adopt keeps 1.2 analysis", adopt_keeps_1_2_analysis);
    CASE("adopt reads no analysis before 1.2", adopt_reads_no_analysis_before_1_2);
    CASE("adopt names each bad field of a descriptor", adopt_names_each_bad_field);
    CASE("the registry finds every name and alias", registry_finds_every_name_and_alias);
    CASE("adopt reads no 1.1 fields from a long 1.0 descriptor",
         adopt_reads_no_1_1_fields_from_a_long_1_0_descriptor);
    CASE("adopt refuses half-built analysis", adopt_refuses_half_built_analysis);
    CASE("adopt refuses 1.1 features in a 1.0 descriptor",
         adopt_refuses_1_1_features_in_a_1_0_descriptor);
    CASE("a duplicate alias names both files", duplicate_alias_names_both_files);
    CASE("a duplicate name names both files", duplicate_name_names_both_files);
    CASE("the name \"none\" is reserved", reserved_name_none_is_refused);
    CASE("a writable directory is refused", writable_directory_is_refused);
    CASE("a writable file is refused", writable_file_is_refused);
    CASE("a read-only file is accepted", read_only_file_is_accepted);
    CASE("a file owned by another user is refused", file_owned_by_another_user_is_refused);
    CASE("a directory owned by another user is refused",
         directory_owned_by_another_user_is_refused);
    CASE("the daemon's own user and root are accepted", own_user_and_root_are_accepted);
    CASE("a missing entry symbol is refused", missing_entry_symbol_is_refused);
    CASE("an entry function returning NULL is refused", entry_returning_null_is_refused);
    CASE("an unresolved symbol in a deep directory is refused naming the file",
         unresolved_symbol_in_a_deep_directory_is_refused);
    CASE("a plugin never unloaded is replaced on reload",
         plugin_never_unloaded_is_replaced_on_reload);
    CASE("an unresolved symbol is refused at load", unresolved_symbol_is_refused_at_load);
    CASE("a malformed descriptor is refused", malformed_descriptor_is_refused);
    CASE("a symlink is refused", symlink_is_refused);
    CASE("a directory named .so is refused", directory_named_so_is_refused);
    CASE("a non-ELF file is refused", non_elf_file_is_refused);
    CASE("good plugins load beside bad ones", good_plugins_load_beside_bad_ones);
    CASE("free then reload works", free_then_reload_works);
    CASE("a missing directory is named", missing_directory_is_named);
    CASE("a file given as the directory is named", file_given_as_directory_is_named);
    CASE("a plugin set loads a list and checks the default",
         plugin_set_loads_a_list_and_checks_the_default);
    CASE("a reload keeps what only a restart changes", reload_keeps_what_only_a_restart_changes);
    CASE("a file over the size limit is refused unread",
         file_over_the_size_limit_is_refused_unread);
    CASE("cairnd --check on a good directory", cairnd_check_good_directory);
    CASE("cairnd --check with a bad plugin exits 2", cairnd_check_bad_plugin_exits_2);
    CASE("cairnd --check on a writable directory exits 2", cairnd_check_writable_directory_exits_2);
    CASE("cairnd --check on a missing directory exits 2", cairnd_check_missing_directory_exits_2);
    CASE("cairnd --check with a plugin owned by another user exits 2",
         cairnd_check_foreign_owner_exits_2);
    CASE("cairnd --list-plugins shows name, aliases, version, file",
         cairnd_list_plugins_shows_name_aliases_version_file);
    CASE("cairnd --list-plugins shows each plugin's ABI", cairnd_list_plugins_shows_each_abi);
    CASE("cairnd --list-plugins sorts a plain name by its letters",
         cairnd_list_plugins_sorts_plain_names_by_letters);
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
    failed = th_run_suite(loader_suite(), CK_NORMAL, 1);
    th_rm_tree(root_dir);
    return failed == 0 ? 0 : 1;
}
