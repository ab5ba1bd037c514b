/*
 * test_plugin_damage.c - a damaged plugin file is refused with a reason,
 * never allowed to take the process down (core/host/plugin_elf.c,
 * core/host/plugin_probe.c).
 *
 * The damage is made from the real stone-game-ii.so: cut short at every
 * boundary the dynamic linker cares about, or with one field of its ELF
 * header, program headers or dynamic section changed.  Before plugin_elf.c
 * the loader died of SIGBUS or SIGSEGV on these; Check forks each case, so
 * a crash shows as that case's failure, not the runner's.  The probe is
 * tested with plugins whose ELF is sound but whose code faults at load
 * time (tests/bad_plugins/crash_in_*.c).
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "plugin_elf.h"
#include "plugin_loader.h"

static char root_dir[] = "/tmp/cairn-test-damage-XXXXXX";

static const char *env_or_die(const char *name)
{
    const char *v = getenv(name);

    ck_assert_msg(v != NULL && *v != '\0', "%s is not set (run through meson test)", name);
    return v;
}

/* The real stone-game-ii.so's bytes (caller frees). */
static unsigned char *real_image(size_t *len)
{
    char *src = th_xasprintf("%s/stone-game-ii.so", env_or_die("CAIRN_TEST_PLUGIN_DIR"));
    unsigned char *p = (unsigned char *)th_read_file(src, len);

    free(src);
    return p;
}

static ElfW(Ehdr) * ehdr(unsigned char *img)
{
    return (ElfW(Ehdr) *)img;
}

static ElfW(Phdr) * phdr(unsigned char *img, size_t i)
{
    return (ElfW(Phdr) *)(img + ehdr(img)->e_phoff) + i;
}

/* The i-th program header of type t, or NULL. */
static ElfW(Phdr) * phdr_of(unsigned char *img, ElfW(Word) t, int nth)
{
    size_t i;

    for (i = 0; i < ehdr(img)->e_phnum; i++)
        if (phdr(img, i)->p_type == t && nth-- == 0)
            return phdr(img, i);
    return NULL;
}

/* The dynamic entry with tag t, or NULL (the shipped plugins' dynamic
 * segment's file offset and address agree with its load segment's). */
static ElfW(Dyn) * dyn_of(unsigned char *img, ElfW(Sxword) t)
{
    ElfW(Phdr) *d = phdr_of(img, PT_DYNAMIC, 0);
    ElfW(Dyn) * e;

    for (e = (ElfW(Dyn) *)(img + d->p_offset); e->d_tag != DT_NULL; e++)
        if (e->d_tag == t)
            return e;
    return NULL;
}

/* The file offset of address v, through the load segments. */
static size_t offset_of(unsigned char *img, ElfW(Addr) v)
{
    ElfW(Phdr) * l;
    int i;

    for (i = 0; (l = phdr_of(img, PT_LOAD, i)) != NULL; i++)
        if (v >= l->p_vaddr && v < l->p_vaddr + l->p_filesz)
            return l->p_offset + (v - l->p_vaddr);
    ck_abort_msg("address %#lx is in no load segment", (unsigned long)v);
    return 0;
}

/* A fresh plugin directory holding stone-game.so and, as
 * stone-game-ii.so, the len bytes of img. */
static char *dir_with(const unsigned char *img, size_t len, char **damaged)
{
    char *dir = th_make_dir_in(root_dir);
    char *src = th_xasprintf("%s/stone-game.so", env_or_die("CAIRN_TEST_PLUGIN_DIR"));
    char *dst = th_xasprintf("%s/stone-game.so", dir);

    th_copy_file(src, dst, 0755);
    *damaged = th_xasprintf("%s/stone-game-ii.so", dir);
    th_write_file(*damaged, (const char *)img, len, 0644);
    free(src);
    free(dst);
    return dir;
}

/* Loads the directory holding img (len bytes) beside stone-game.so: the
 * damaged file must be refused with a message naming it and containing
 * `needle`, and stone-game must load all the same. */
static void assert_refused(const unsigned char *img, size_t len, const char *needle,
                           const char *what)
{
    struct cairn_registry reg = { 0 };
    char *damaged;
    char *dir = dir_with(img, len, &damaged);
    int rc = cairn_registry_load(&reg, dir);

    ck_assert_msg(rc == -EINVAL, "%s: load returned %d, not -EINVAL", what, rc);
    ck_assert_msg(reg.n_errors == 1, "%s: %zu errors", what, reg.n_errors);
    ck_assert_msg(strstr(reg.errors[0], damaged) != NULL && strstr(reg.errors[0], needle) != NULL,
                  "%s: the error does not name %s and \"%s\": %s", what, damaged, needle,
                  reg.errors[0]);
    ck_assert_msg(reg.n_plugins == 1 && strcmp(reg.plugins[0].desc->name, "stone-game") == 0,
                  "%s: stone-game did not load beside the damaged file", what);
    cairn_registry_free(&reg);
    th_rm_tree(dir);
    free(dir);
    free(damaged);
}

START_TEST(cut_short_anywhere_it_matters_is_refused)
{
    size_t len, i, n = 0;
    unsigned char *img = real_image(&len);
    size_t cuts[64];
    ElfW(Phdr) * l;
    size_t end = 0;

    cuts[n++] = 0;
    cuts[n++] = 1;
    cuts[n++] = sizeof(ElfW(Ehdr)) - 1;
    cuts[n++] = sizeof(ElfW(Ehdr));
    cuts[n++] = ehdr(img)->e_phoff + ehdr(img)->e_phnum * sizeof(ElfW(Phdr)) - 1;
    /* In each load segment: its first byte, its middle, its last byte
     * (each of these crashed the loader with SIGBUS before the check). */
    for (i = 0; (l = phdr_of(img, PT_LOAD, (int)i)) != NULL && n + 3 < 64; i++) {
        cuts[n++] = l->p_offset + 1;
        cuts[n++] = l->p_offset + l->p_filesz / 2;
        cuts[n++] = l->p_offset + l->p_filesz - 1;
        if (l->p_offset + l->p_filesz > end)
            end = l->p_offset + l->p_filesz;
    }
    ck_assert_msg(i >= 2, "stone-game-ii.so has %zu load segments", i);
    for (i = 0; i < n; i++) {
        char what[64];

        snprintf(what, sizeof(what), "cut at %zu of %zu bytes", cuts[i], len);
        assert_refused(img, cuts[i],
                       cuts[i] == 0  ? "empty"
                       : cuts[i] < 4 ? "not an ELF"
                                     : "truncated",
                       what);
    }
    /* What lies past the last load segment (section headers, symbols for
     * debuggers) is never mapped: a file cut there still loads. */
    {
        struct cairn_registry reg = { 0 };
        char *damaged;
        char *dir = dir_with(img, end, &damaged);

        ck_assert_int_eq(cairn_registry_load(&reg, dir), 0);
        ck_assert_uint_eq(reg.n_plugins, 2);
        cairn_registry_free(&reg);
        th_rm_tree(dir);
        free(dir);
        free(damaged);
    }
    free(img);
}
END_TEST

/* One field changed, and what the refusal must say. */
struct damage {
    const char *what, *needle;
    void (*apply)(unsigned char *img, size_t len);
    ElfW(Sxword) needs; /* a dynamic tag the damage changes (DT_NULL: none) */
};

static void bad_class(unsigned char *img, size_t len)
{
    (void)len;
    img[EI_CLASS] = ELFCLASS32;
}
static void bad_type(unsigned char *img, size_t len)
{
    (void)len;
    ehdr(img)->e_type = ET_EXEC;
}
static void bad_machine(unsigned char *img, size_t len)
{
    (void)len;
    ehdr(img)->e_machine = ehdr(img)->e_machine == EM_S390 ? EM_SPARC : EM_S390;
}
static void phoff_past_end(unsigned char *img, size_t len)
{
    ehdr(img)->e_phoff = len - 8;
}
static void no_phdrs(unsigned char *img, size_t len)
{
    (void)len;
    ehdr(img)->e_phnum = 0;
}
static void phentsize(unsigned char *img, size_t len)
{
    (void)len;
    ehdr(img)->e_phentsize = 32;
}
static void load_offset_past_end(unsigned char *img, size_t len)
{
    phdr_of(img, PT_LOAD, 1)->p_offset = len + 4096;
}
static void load_filesz_huge(unsigned char *img, size_t len)
{
    (void)len;
    phdr_of(img, PT_LOAD, 1)->p_filesz = (ElfW(Xword))1 << 40;
}
static void load_filesz_over_memsz(unsigned char *img, size_t len)
{
    ElfW(Phdr) *l = phdr_of(img, PT_LOAD, 0);

    (void)len;
    l->p_memsz = l->p_filesz - 1;
}
static void loads_out_of_order(unsigned char *img, size_t len)
{
    (void)len;
    phdr_of(img, PT_LOAD, 1)->p_vaddr = 0;
    phdr_of(img, PT_LOAD, 1)->p_offset = 0;
}
static void dynamic_elsewhere(unsigned char *img, size_t len)
{
    (void)len;
    phdr_of(img, PT_DYNAMIC, 0)->p_vaddr += (ElfW(Addr))1 << 30;
}
static void no_dynamic(unsigned char *img, size_t len)
{
    (void)len;
    phdr_of(img, PT_DYNAMIC, 0)->p_type = PT_NULL;
}
static void strsz_huge(unsigned char *img, size_t len)
{
    (void)len;
    dyn_of(img, DT_STRSZ)->d_un.d_val = (ElfW(Xword))1 << 30;
}
static void symtab_elsewhere(unsigned char *img, size_t len)
{
    (void)len;
    dyn_of(img, DT_SYMTAB)->d_un.d_ptr += (ElfW(Addr))1 << 30;
}
static void gnu_hash_no_buckets(unsigned char *img, size_t len)
{
    (void)len;
    /* The linker divides by the bucket count. */
    memset(img + offset_of(img, dyn_of(img, DT_GNU_HASH)->d_un.d_ptr), 0, 4);
}
static void rela_elsewhere(unsigned char *img, size_t len)
{
    (void)len;
    dyn_of(img, DT_RELA)->d_un.d_ptr += (ElfW(Addr))1 << 30;
}
static void rela_target_in_code(unsigned char *img, size_t len)
{
    ElfW(Rela) *r = (ElfW(Rela) *)(img + offset_of(img, dyn_of(img, DT_RELA)->d_un.d_ptr));

    (void)len;
    r->r_offset = phdr_of(img, PT_LOAD, 1)->p_vaddr; /* the code, mapped read-only */
}
static void rela_symbol_past_table(unsigned char *img, size_t len)
{
    ElfW(Dyn) *jmprel = dyn_of(img, DT_JMPREL);
    ElfW(Rela) * r;

    (void)len;
    r = (ElfW(Rela) *)(img + offset_of(img, jmprel != NULL ? jmprel->d_un.d_ptr
                                                           : dyn_of(img, DT_RELA)->d_un.d_ptr));
    r->r_info = ELF64_R_INFO(0x7fffffffu, ELF64_R_TYPE(r->r_info));
}
static void init_array_elsewhere(unsigned char *img, size_t len)
{
    (void)len;
    dyn_of(img, DT_INIT_ARRAY)->d_un.d_ptr += (ElfW(Addr))1 << 30;
}
static void needed_name_past_strings(unsigned char *img, size_t len)
{
    (void)len;
    dyn_of(img, DT_NEEDED)->d_un.d_val = dyn_of(img, DT_STRSZ)->d_un.d_val + 100;
}
static void verneed_elsewhere(unsigned char *img, size_t len)
{
    (void)len;
    dyn_of(img, DT_VERNEED)->d_un.d_ptr += (ElfW(Addr))1 << 30;
}
static void dynamic_not_terminated(unsigned char *img, size_t len)
{
    ElfW(Phdr) *d = phdr_of(img, PT_DYNAMIC, 0);
    ElfW(Dyn) * e;

    (void)len;
    for (e = (ElfW(Dyn) *)(img + d->p_offset);
         (unsigned char *)(e + 1) <= img + d->p_offset + d->p_filesz; e++)
        if (e->d_tag == DT_NULL)
            e->d_tag = DT_DEBUG;
}

static const struct damage damages[] = {
    { "32-bit class", "class", bad_class, DT_NULL },
    { "an executable, not a shared object", "not a shared object", bad_type, DT_NULL },
    { "another machine", "machine", bad_machine, DT_NULL },
    { "program headers past the end", "program header table", phoff_past_end, DT_NULL },
    { "no program headers", "program headers", no_phdrs, DT_NULL },
    { "program header entries of the wrong size", "program header entries", phentsize, DT_NULL },
    { "a load segment past the end", "truncated: load segment 1", load_offset_past_end, DT_NULL },
    { "a load segment of 1 TiB", "truncated: load segment 1", load_filesz_huge, DT_NULL },
    { "a load segment larger in the file than in memory", "more bytes in the file",
      load_filesz_over_memsz, DT_NULL },
    { "load segments out of order", "overlaps or precedes", loads_out_of_order, DT_NULL },
    { "the dynamic segment outside the load segments", "dynamic segment", dynamic_elsewhere,
      DT_NULL },
    { "no dynamic segment", "0 dynamic segments", no_dynamic, DT_NULL },
    { "a string table of 1 GiB", "string table", strsz_huge, DT_STRSZ },
    { "the symbol table outside the image", "symbol", symtab_elsewhere, DT_SYMTAB },
    { "a GNU hash table without buckets", "GNU hash", gnu_hash_no_buckets, DT_GNU_HASH },
    { "the relocations outside the image", "RELA table", rela_elsewhere, DT_RELA },
    { "a relocation writing into the code", "outside its writable memory", rela_target_in_code,
      DT_RELA },
    { "a relocation naming a symbol past the table", "symbol 2147483647", rela_symbol_past_table,
      DT_RELA },
    { "the constructor array outside the image", "DT_INIT_ARRAY", init_array_elsewhere,
      DT_INIT_ARRAY },
    { "a needed library's name past the string table", "names no string", needed_name_past_strings,
      DT_NEEDED },
    { "the version records outside the image", "version dependency", verneed_elsewhere,
      DT_VERNEED },
    { "a dynamic section without its terminating entry", "no terminating entry",
      dynamic_not_terminated, DT_NULL },
};

START_TEST(one_field_damaged_is_refused)
{
    size_t len;
    unsigned char *img = real_image(&len);
    unsigned char *copy = malloc(len);
    char why[512];
    const struct damage *d = &damages[_i];

    ck_assert_msg(cairn_plugin_elf_check(img, len, why, sizeof(why)) == 0,
                  "the undamaged file is refused: %s", why);
    /* A build without the table (a sanitizer build links no versioned
     * symbol, say) cannot have it damaged: said, not failed. */
    if (d->needs != DT_NULL && dyn_of(img, d->needs) == NULL) {
        printf("skipped \"%s\": this build's stone-game-ii.so has no dynamic tag %lld\n", d->what,
               (long long)d->needs);
        free(copy);
        free(img);
        return;
    }
    memcpy(copy, img, len);
    d->apply(copy, len);
    assert_refused(copy, len, d->needle, d->what);
    free(copy);
    free(img);
}
END_TEST

/* Every shipped and test plugin passes: the check refuses no sound object. */
START_TEST(every_built_plugin_passes)
{
    static const char *const dirs[] = { "CAIRN_TEST_PLUGIN_DIR", "CAIRN_TEST_BAD_PLUGIN_DIR",
                                        "CAIRN_TEST_ABI_PLUGIN_DIR", "CAIRN_TEST_LIVE_PLUGIN_DIR",
                                        "CAIRN_TEST_MISBEHAVING_PLUGIN_DIR" };
    size_t i, checked = 0;

    for (i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
        const char *dir = env_or_die(dirs[i]);
        char *list = th_list_dir(dir, "\n");
        char *save = NULL, *name;

        for (name = strtok_r(list, "\n", &save); name != NULL; name = strtok_r(NULL, "\n", &save)) {
            size_t n = strlen(name), len;
            char *path, why[512];
            unsigned char *img;

            if (n < 4 || strcmp(name + n - 3, ".so") != 0)
                continue;
            path = th_xasprintf("%s/%s", dir, name);
            img = (unsigned char *)th_read_file(path, &len);
            ck_assert_msg(cairn_plugin_elf_check(img, len, why, sizeof(why)) == 0, "%s: %s", path,
                          why);
            checked++;
            free(img);
            free(path);
        }
        free(list);
    }
    ck_assert_msg(checked >= 20, "only %zu plugins checked", checked);
}
END_TEST

/* Sound ELF, code that faults at load time: the probe process dies of it,
 * the loader refuses the file and loads the rest. */
START_TEST(code_faulting_at_load_is_refused)
{
    static const char *const files[] = { "crash_in_constructor.so", "crash_in_entry.so" };
    size_t i;

    for (i = 0; i < 2; i++) {
        struct cairn_registry reg = { 0 };
        char *dir = th_make_dir_in(root_dir);
        char *src = th_xasprintf("%s/%s", env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR"), files[i]);
        char *dst = th_xasprintf("%s/%s", dir, files[i]);
        char *good = th_xasprintf("%s/stone-game.so", env_or_die("CAIRN_TEST_PLUGIN_DIR"));
        char *good_dst = th_xasprintf("%s/stone-game.so", dir);

        th_copy_file(src, dst, 0755);
        th_copy_file(good, good_dst, 0755);
        ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
        ck_assert_uint_eq(reg.n_errors, 1);
        ck_assert_msg(strstr(reg.errors[0], dst) != NULL &&
                          strstr(reg.errors[0], "killed a probe process with signal 11") != NULL,
                      "%s: %s", files[i], reg.errors[0]);
        ck_assert_uint_eq(reg.n_plugins, 1);
        cairn_registry_free(&reg);
        th_rm_tree(dir);
        free(dir);
        free(src);
        free(dst);
        free(good);
        free(good_dst);
    }
}
END_TEST

/* cairnd itself: --check, --list-plugins and a plain start each exit 2
 * naming the cut file and why (before: SIGBUS, exit 135, no message). */
START_TEST(cairnd_exits_2_naming_a_cut_file)
{
    static const char *const modes[] = { "--check", "--list-plugins", NULL };
    size_t len, m;
    unsigned char *img = real_image(&len);
    char *damaged;
    char *plugins = dir_with(img, 1138, &damaged);
    char *scratch = th_make_dir_in(root_dir);
    char *cfg = th_xasprintf("%s/cairn.json", scratch);
    char *in = th_xasprintf("%s/in", scratch), *out = th_xasprintf("%s/out", scratch);

    ck_assert_int_eq(mkdir(in, 0755), 0);
    ck_assert_int_eq(mkdir(out, 0755), 0);
    th_write_text(cfg, "{}\n");
    for (m = 0; m < 3; m++) {
        const char *args[] = { "-c",       cfg, "--plugins", plugins, "--input", in,
                               "--output", out, "--once",    NULL,    NULL };
        struct th_run r;

        /* The third run is a plain daemon start: it never gets going. */
        args[8] = modes[m] != NULL ? modes[m] : "--threads";
        args[9] = modes[m] != NULL ? NULL : "1";
        r = th_run_cairnd(env_or_die("CAIRN_TEST_CAIRND"), scratch, args);
        ck_assert_msg(r.status == 2, "%s: exit %d, stderr: %s", args[8], r.status, r.err);
        ck_assert_msg(strstr(r.err, damaged) != NULL && strstr(r.err, "truncated") != NULL,
                      "%s: stderr does not name %s as truncated: %s", args[8], damaged, r.err);
        th_run_free(&r);
    }
    th_rm_tree(plugins);
    th_rm_tree(scratch);
    free(plugins);
    free(scratch);
    free(damaged);
    free(cfg);
    free(in);
    free(out);
    free(img);
}
END_TEST

static Suite *damage_suite(void)
{
    Suite *s = suite_create("plugin damage");
    TCase *tc;

#define CASE(name, fn)       \
    tc = tcase_create(name); \
    tcase_add_test(tc, fn);  \
    suite_add_tcase(s, tc)

    CASE("a file cut short anywhere it matters is refused",
         cut_short_anywhere_it_matters_is_refused);
    tc = tcase_create("one damaged ELF field is refused with what is wrong");
    tcase_add_loop_test(tc, one_field_damaged_is_refused, 0,
                        (int)(sizeof(damages) / sizeof(damages[0])));
    suite_add_tcase(s, tc);
    CASE("every built plugin passes the check", every_built_plugin_passes);
    CASE("code faulting at load time is refused (probe process)", code_faulting_at_load_is_refused);
    CASE("cairnd exits 2 naming a cut file", cairnd_exits_2_naming_a_cut_file);
#undef CASE
    return s;
}

int main(void)
{
    SRunner *sr;
    int failed;

    if (mkdtemp(root_dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    sr = srunner_create(damage_suite());
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    th_rm_tree(root_dir);
    return failed == 0 ? 0 : 1;
}
