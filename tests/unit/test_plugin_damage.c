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
 * time (tests/plugins/bad_plugins/crash_in_*.c).
 */
#include <check.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "handmade_elf.h"
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
    { "32-bit class", "ELF class 1: this cairnd loads only", bad_class, DT_NULL },
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

/* ---- the hand-made image (handmade_elf.h): every structure the check
 * reads, each damaged in turn ---------------------------------------- */

static void put32_at(unsigned char *img, ElfW(Addr) a, uint32_t v)
{
    memcpy(he_at(img, a), &v, sizeof(v));
}

static void put64_at(unsigned char *img, ElfW(Addr) a, uint64_t v)
{
    memcpy(he_at(img, a), &v, sizeof(v));
}

/* One change to the hand-made image, and what its refusal must say (NULL:
 * the change is sound, and the image must still pass). */
struct handmade {
    const char *what, *needle;
    void (*apply)(unsigned char *img);
};

#define FAR ((ElfW(Addr))0x5000) /* past the image: nothing is mapped there */

static void hm_sound(unsigned char *img)
{
    (void)img;
}
static void hm_no_magic(unsigned char *img)
{
    img[1] = 'X';
}
static void hm_byte_order(unsigned char *img)
{
    img[EI_DATA] = img[EI_DATA] == ELFDATA2LSB ? ELFDATA2MSB : ELFDATA2LSB;
}
static void hm_ident_version(unsigned char *img)
{
    img[EI_VERSION] = EV_NONE;
}
static void hm_header_version(unsigned char *img)
{
    he_ehdr(img)->e_version = EV_CURRENT + 1;
}
static void hm_too_many_phdrs(unsigned char *img)
{
    he_ehdr(img)->e_phnum = 513;
}
static void hm_phdrs_cut(unsigned char *img)
{
    he_ehdr(img)->e_phoff = HE_SIZE - 100;
}
static void hm_align_not_power(unsigned char *img)
{
    he_phdr(img, HE_PH_TEXT)->p_align = 0x1001;
}
static void hm_align_disagrees(unsigned char *img)
{
    he_phdr(img, HE_PH_DATA)->p_vaddr += 8;
}
static void hm_align_one(unsigned char *img)
{
    he_phdr(img, HE_PH_DATA)->p_align = 1;
    he_phdr(img, HE_PH_TEXT)->p_align = 0;
}
/* A third load segment after the others, aligned to nothing: any address
 * goes with any offset. */
static void hm_unaligned_load(unsigned char *img)
{
    ElfW(Phdr) *ph = he_phdr(img, HE_PH_STACK);

    *ph = *he_phdr(img, HE_PH_DATA);
    ph->p_flags = PF_R;
    ph->p_vaddr = HE_SIZE + 0x1008;
    ph->p_filesz = ph->p_memsz = 8;
    ph->p_align = 0;
}
/* A segment kind the linker does not read may point anywhere. */
static void hm_other_kind_outside(unsigned char *img)
{
    *he_phdr(img, HE_PH_STACK) = *he_phdr(img, HE_PH_NOTE);
    he_phdr(img, HE_PH_STACK)->p_type = PT_LOPROC + 1;
    he_phdr(img, HE_PH_STACK)->p_vaddr = FAR;
}
static void hm_wraps(unsigned char *img)
{
    he_phdr(img, HE_PH_DATA)->p_align = 1;
    he_phdr(img, HE_PH_DATA)->p_vaddr = UINT64_MAX - 0x100;
}
static void hm_no_load(unsigned char *img)
{
    he_phdr(img, HE_PH_TEXT)->p_type = PT_NULL;
    he_phdr(img, HE_PH_DATA)->p_type = PT_NULL;
}
static void hm_phdr_outside(unsigned char *img)
{
    he_phdr(img, HE_PH_PHDR)->p_vaddr = FAR;
}
static void hm_tls_outside(unsigned char *img)
{
    he_phdr(img, HE_PH_TLS)->p_filesz = 8;
    he_phdr(img, HE_PH_TLS)->p_vaddr = FAR;
}
static void hm_note_outside(unsigned char *img)
{
    he_phdr(img, HE_PH_NOTE)->p_vaddr = FAR;
}
static void hm_property_outside(unsigned char *img)
{
    *he_phdr(img, HE_PH_STACK) = *he_phdr(img, HE_PH_NOTE);
    he_phdr(img, HE_PH_STACK)->p_type = PT_GNU_PROPERTY;
    he_phdr(img, HE_PH_STACK)->p_vaddr = FAR;
}
static void hm_two_dynamic(unsigned char *img)
{
    *he_phdr(img, HE_PH_STACK) = *he_phdr(img, HE_PH_DYNAMIC);
}
static void hm_no_strtab(unsigned char *img)
{
    he_drop(img, DT_STRTAB);
}
static void hm_no_strsz(unsigned char *img)
{
    he_drop(img, DT_STRSZ);
}
static void hm_strtab_unterminated(unsigned char *img)
{
    he_dyn(img, DT_STRSZ)->d_un.d_val--;
}
static void hm_soname_past(unsigned char *img)
{
    he_dyn(img, DT_SONAME)->d_un.d_val = he_dyn(img, DT_STRSZ)->d_un.d_val;
}
static void hm_hash_outside(unsigned char *img)
{
    he_dyn(img, DT_HASH)->d_un.d_ptr = FAR;
}
static void hm_hash_no_buckets(unsigned char *img)
{
    put32_at(img, HE_HASH, 0);
}
static void hm_hash_chains_past(unsigned char *img)
{
    put32_at(img, HE_HASH + 4, 0x10000000);
}
static void hm_hash_names_past(unsigned char *img)
{
    put32_at(img, HE_HASH + 12 + 4 * 3, HE_NSYMS);
}
static void hm_gnu_outside(unsigned char *img)
{
    he_dyn(img, DT_GNU_HASH)->d_un.d_ptr = FAR;
}
static void hm_gnu_no_bloom(unsigned char *img)
{
    put32_at(img, HE_GNU_HASH + 8, 0);
}
static void hm_gnu_bloom_three(unsigned char *img)
{
    put32_at(img, HE_GNU_HASH + 8, 3);
}
static void hm_gnu_buckets_past(unsigned char *img)
{
    put32_at(img, HE_GNU_HASH, 0x10000000);
}
static void hm_gnu_bucket_below(unsigned char *img)
{
    put32_at(img, HE_GNU_HASH + 4, 2);
}
static void hm_gnu_chain_out(unsigned char *img)
{
    put32_at(img, HE_GNU_BUCKETS, 0x7fffffff);
}
/* 64 buckets all starting one chain of 40: each chain inside the file,
 * but walking them all reads more words than the file has. */
static void hm_gnu_walk_too_long(unsigned char *img)
{
    const ElfW(Addr) t = HE_SPARE, buckets = t + 16 + 8, chain = buckets + 64 * 4;
    uint32_t i;

    put32_at(img, t, 64);
    put32_at(img, t + 4, 1);
    put32_at(img, t + 8, 1);
    put32_at(img, t + 12, 6);
    for (i = 0; i < 64; i++)
        put32_at(img, buckets + 4 * i, 1);
    for (i = 0; i < 40; i++)
        put32_at(img, chain + 4 * i, 2 * i + (i == 39));
    he_dyn(img, DT_GNU_HASH)->d_un.d_ptr = t;
}
/* With only the GNU table, the symbols it reaches are checked: here the
 * last one, whatever order the buckets' chains end in. */
static void hm_gnu_only_reaches_the_last(unsigned char *img)
{
    const ElfW(Addr) t = HE_SPARE, buckets = t + 16 + 8, chain = buckets + 2 * 4;
    static const uint32_t words[] = { 2, 5, 6, 8, 10, 13 }; /* ends (odd) at 2 and 6 */
    uint32_t i;

    put32_at(img, t, 2);
    put32_at(img, t + 4, 1);
    put32_at(img, t + 8, 1);
    put32_at(img, t + 12, 6);
    put32_at(img, buckets, 3);
    put32_at(img, buckets + 4, 1);
    for (i = 0; i < 6; i++)
        put32_at(img, chain + 4 * i, words[i]);
    he_dyn(img, DT_GNU_HASH)->d_un.d_ptr = t;
    he_drop(img, DT_HASH);
    he_sym(img, HE_SYM_O)->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
}
/* With both tables, the one reaching further counts. */
static void hm_gnu_reaches_less_than_sysv(unsigned char *img)
{
    put32_at(img, HE_GNU_BUCKETS + 4 * 2, 5); /* the chain ends at symbol 2 */
    he_sym(img, HE_SYM_O)->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
}
/* No code at all: nothing need be executable. */
static void hm_no_code(unsigned char *img)
{
    he_phdr(img, HE_PH_TEXT)->p_flags = PF_R;
    he_sym(img, HE_SYM_F)->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
    he_sym(img, HE_SYM_I)->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_OBJECT);
    he_drop(img, DT_INIT);
    he_drop(img, DT_FINI);
}
/* A function at address 0 is no function (a weak one left undefined):
 * even in an object with no code it is not looked for. */
static void hm_func_at_zero(unsigned char *img)
{
    hm_no_code(img);
    he_sym(img, HE_SYM_F)->st_info = ELF64_ST_INFO(STB_GLOBAL, STT_FUNC);
    he_sym(img, HE_SYM_F)->st_value = 0;
}
static void hm_gnu_empty_bucket(unsigned char *img)
{
    put32_at(img, HE_GNU_BUCKETS, 0);
}
static void hm_sysv_only(unsigned char *img)
{
    he_drop(img, DT_GNU_HASH);
}
static void hm_gnu_only(unsigned char *img)
{
    he_drop(img, DT_HASH);
}
static void hm_no_symtab(unsigned char *img)
{
    he_drop(img, DT_SYMTAB);
}
static void hm_syment(unsigned char *img)
{
    he_dyn(img, DT_SYMENT)->d_un.d_val = 16;
}
static void hm_no_hash(unsigned char *img)
{
    he_drop(img, DT_HASH);
    he_drop(img, DT_GNU_HASH);
}
static void hm_sym_name_past(unsigned char *img)
{
    he_sym(img, HE_SYM_F)->st_name = 0x1000;
}
static void hm_versym_past(unsigned char *img)
{
    he_dyn(img, DT_VERSYM)->d_un.d_ptr = HE_SIZE - 2;
}
static void hm_version_too_high(unsigned char *img)
{
    put32_at(img, HE_VERSYM + 2, 9);
}
static void hm_func_in_data(unsigned char *img)
{
    he_sym(img, HE_SYM_F)->st_value = HE_DATA;
}
static void hm_ifunc_in_data(unsigned char *img)
{
    he_sym(img, HE_SYM_I)->st_value = HE_DATA;
}

static void hm_verneed_file(unsigned char *img)
{
    put32_at(img, HE_VERNEED + offsetof(ElfW(Verneed), vn_file), 0x1000);
}
static void hm_verneed_next_out(unsigned char *img)
{
    put32_at(img, HE_VERNEED + offsetof(ElfW(Verneed), vn_next), 0x10000);
}
static void hm_vernaux_out(unsigned char *img)
{
    put32_at(img, HE_VERNEED + offsetof(ElfW(Verneed), vn_aux), 0x10000);
}
static void hm_vernaux_name(unsigned char *img)
{
    put32_at(img, HE_VERNEED + 16 + offsetof(ElfW(Vernaux), vna_name), 0x1000);
}
static void hm_verdef_outside(unsigned char *img)
{
    he_dyn(img, DT_VERDEF)->d_un.d_ptr = FAR;
}
static void hm_verdaux_out(unsigned char *img)
{
    put32_at(img, HE_VERDEF + offsetof(ElfW(Verdef), vd_aux), 0x10000);
}
static void hm_verdaux_name(unsigned char *img)
{
    put32_at(img, HE_VERDEF + sizeof(ElfW(Verdef)) + offsetof(ElfW(Verdaux), vda_name), 0x1000);
}
static void hm_versym_without_records(unsigned char *img)
{
    he_drop(img, DT_VERNEED);
    he_drop(img, DT_VERDEF);
}
static void hm_no_verdef(unsigned char *img)
{
    he_drop(img, DT_VERDEF);
}
/* Without the needs, the highest version is the definitions' 2. */
static void hm_no_verneed(unsigned char *img)
{
    he_drop(img, DT_VERNEED);
    put32_at(img, HE_VERSYM + 2 * HE_SYM_G, 1);
    memset(he_at(img, HE_VERSYM + 2 * HE_SYM_O), 0, 2);
}
static void hm_no_versions(unsigned char *img)
{
    he_drop(img, DT_VERSYM);
    he_drop(img, DT_VERNEED);
    he_drop(img, DT_VERDEF);
}
/* Versions 0 and 1 (local, global) need no record defining them. */
static void hm_only_global_versions(unsigned char *img)
{
    size_t i;

    he_drop(img, DT_VERDEF);
    memset(he_at(img, HE_VERNEED + 16 + offsetof(ElfW(Vernaux), vna_other)), 0, 2);
    memset(he_at(img, HE_VERNEED + 32 + offsetof(ElfW(Vernaux), vna_other)), 0, 2);
    memset(he_at(img, HE_VERNEED + 64 + offsetof(ElfW(Vernaux), vna_other)), 0, 2);
    for (i = 1; i < HE_NSYMS; i++)
        memcpy(he_at(img, HE_VERSYM + 2 * i), &(uint16_t){ 1 }, 2);
}
static void hm_relaent(unsigned char *img)
{
    he_dyn(img, DT_RELAENT)->d_un.d_val = 16;
}
static void hm_relasz_odd(unsigned char *img)
{
    he_dyn(img, DT_RELASZ)->d_un.d_val = 47;
}
static void hm_relent(unsigned char *img)
{
    he_dyn(img, DT_RELENT)->d_un.d_val = 8;
}
static void hm_rel_into_code(unsigned char *img)
{
    put64_at(img, HE_REL, HE_CODE);
}
static void hm_textrel_outside(unsigned char *img)
{
    he_dyn(img, DT_FLAGS)->d_un.d_val = DF_TEXTREL;
    put64_at(img, HE_RELA, FAR);
}
static void hm_textrel_into_code(unsigned char *img)
{
    he_dyn(img, DT_FLAGS)->d_tag = DT_TEXTREL;
    put64_at(img, HE_RELA, HE_CODE);
    put64_at(img, HE_RELR, HE_CODE);
}
static void hm_relasz_zero(unsigned char *img)
{
    he_dyn(img, DT_RELASZ)->d_un.d_val = 0;
}
static void hm_no_rela(unsigned char *img)
{
    he_drop(img, DT_RELA);
    he_drop(img, DT_RELASZ);
    he_drop(img, DT_RELAENT);
}
static void hm_no_plt(unsigned char *img)
{
    he_drop(img, DT_JMPREL);
    he_drop(img, DT_PLTRELSZ);
    he_drop(img, DT_PLTREL);
}
static void hm_init_arraysz_alone(unsigned char *img)
{
    he_drop(img, DT_INIT_ARRAY);
}
static void hm_plt_kind(unsigned char *img)
{
    he_dyn(img, DT_PLTREL)->d_un.d_val = 99;
}
static void hm_plt_as_rel_size(unsigned char *img)
{
    he_dyn(img, DT_PLTREL)->d_un.d_val = DT_REL;
}
static void hm_plt_as_rel(unsigned char *img)
{
    he_dyn(img, DT_PLTREL)->d_un.d_val = DT_REL;
    he_dyn(img, DT_PLTRELSZ)->d_un.d_val = sizeof(ElfW(Rel));
    he_dyn(img, DT_JMPREL)->d_un.d_ptr = HE_REL;
}
static void hm_relrent(unsigned char *img)
{
    he_dyn(img, 37 /* DT_RELRENT */)->d_un.d_val = 4;
}
static void hm_relrsz_odd(unsigned char *img)
{
    he_dyn(img, 35 /* DT_RELRSZ */)->d_un.d_val = 12;
}
static void hm_relr_outside(unsigned char *img)
{
    he_dyn(img, 36 /* DT_RELR */)->d_un.d_ptr = FAR;
}
static void hm_relr_into_code(unsigned char *img)
{
    put64_at(img, HE_RELR, HE_CODE);
}
static void hm_relr_bitmap_past(unsigned char *img)
{
    put64_at(img, HE_RELR, HE_SIZE - 8);
}
static void hm_no_relr(unsigned char *img)
{
    he_drop(img, 36 /* DT_RELR */);
    he_drop(img, 35 /* DT_RELRSZ */);
}
static void hm_init_in_data(unsigned char *img)
{
    he_dyn(img, DT_INIT)->d_un.d_ptr = HE_DATA;
}
static void hm_fini_outside(unsigned char *img)
{
    he_dyn(img, DT_FINI)->d_un.d_ptr = FAR;
}
static void hm_init_array_past(unsigned char *img)
{
    he_dyn(img, DT_INIT_ARRAYSZ)->d_un.d_val = 0x10000;
}
static void hm_pltgot_outside(unsigned char *img)
{
    he_dyn(img, DT_PLTGOT)->d_un.d_ptr = FAR;
}

static const struct handmade handmades[] = {
    { "the hand-made image as built", NULL, hm_sound },
    { "no ELF magic number", "no ELF magic number", hm_no_magic },
    { "the other byte order", "byte order", hm_byte_order },
    { "an unknown ELF version in e_ident", "unknown ELF version", hm_ident_version },
    { "an unknown ELF version in e_version", "unknown ELF version", hm_header_version },
    { "513 program headers", "513 program headers (expected 1 to 512)", hm_too_many_phdrs },
    { "a program header table cut short", "truncated: the program header table needs bytes",
      hm_phdrs_cut },
    { "an alignment not a power of two", "load segment 0: alignment 4097 is not a power of two",
      hm_align_not_power },
    { "an address not aligned as its offset",
      "load segment 1: address and file offset disagree modulo 4096", hm_align_disagrees },
    { "alignments of 0 and 1 (none)", NULL, hm_align_one },
    { "an unaligned load segment at any address", NULL, hm_unaligned_load },
    { "a segment of a kind the linker does not read, outside", NULL, hm_other_kind_outside },
    { "a load segment wrapping around", "load segment 1 wraps around the address space", hm_wraps },
    { "no load segment", "no load segment", hm_no_load },
    { "the program headers outside the load segments",
      "program header segment 3 (address 0x5000, 392 bytes) is not inside", hm_phdr_outside },
    { "the TLS image outside the load segments", "TLS segment 4 (address 0x5000", hm_tls_outside },
    { "a note outside the load segments", "note segment 5 (address 0x5000", hm_note_outside },
    { "a property note outside the load segments", "property segment 6 (address 0x5000",
      hm_property_outside },
    { "two dynamic segments", "2 dynamic segments", hm_two_dynamic },
    { "no DT_STRTAB", "the string table (0, ", hm_no_strtab },
    { "no DT_STRSZ", "the string table (0x200, 0 bytes)", hm_no_strsz },
    { "a string table without its last NUL", "the string table does not end with a NUL",
      hm_strtab_unterminated },
    { "DT_SONAME past the string table", "dynamic entry 2 (tag 14) names no string",
      hm_soname_past },
    { "the SysV hash table outside the image", "the hash table is not inside the file",
      hm_hash_outside },
    { "a SysV hash table without buckets", "the hash table (0 buckets, 7 chains)",
      hm_hash_no_buckets },
    { "a SysV hash table longer than the file",
      "the hash table (1 buckets, 268435456 chains) is not inside the file", hm_hash_chains_past },
    { "a SysV hash chain past the symbols", "the hash table names symbol 7 of 7",
      hm_hash_names_past },
    { "the GNU hash table outside the image", "the GNU hash table is not inside the file",
      hm_gnu_outside },
    { "a GNU hash table without bloom words", "1 buckets and 0 bloom words", hm_gnu_no_bloom },
    { "3 GNU bloom words", "1 buckets and 3 bloom words", hm_gnu_bloom_three },
    { "GNU hash buckets past the file", "the GNU hash table's buckets are not inside the file",
      hm_gnu_buckets_past },
    { "a GNU hash bucket below the hashed symbols",
      "GNU hash bucket 0 names symbol 1, below the first hashed (2)", hm_gnu_bucket_below },
    { "a GNU hash chain out of the file", "GNU hash chain of bucket 0 runs out of the file",
      hm_gnu_chain_out },
    { "GNU hash chains longer, walked, than the file",
      "GNU hash chain of bucket 51 runs out of the file", hm_gnu_walk_too_long },
    { "an empty GNU hash bucket", NULL, hm_gnu_empty_bucket },
    { "a GNU hash table only, the last symbol damaged",
      "function symbol 6 (\"o\") is not in an executable segment", hm_gnu_only_reaches_the_last },
    { "a GNU hash table reaching less than the SysV one, the last symbol damaged",
      "function symbol 6 (\"o\") is not in an executable segment", hm_gnu_reaches_less_than_sysv },
    { "no code at all", NULL, hm_no_code },
    { "a SysV hash table only", NULL, hm_sysv_only },
    { "a GNU hash table only", NULL, hm_gnu_only },
    { "no DT_SYMTAB", "no symbol table", hm_no_symtab },
    { "symbol entries of 16 bytes", "symbol entries of 16 bytes (expected 24)", hm_syment },
    { "no hash table", "no symbol hash table", hm_no_hash },
    { "a symbol name past the string table", "symbol 1's name is not in the string table",
      hm_sym_name_past },
    { "symbol versions past the file", "symbol 1's version is not inside the file",
      hm_versym_past },
    { "a symbol version never defined", "symbol 1 has version 9, above the highest defined (5)",
      hm_version_too_high },
    { "a function symbol in data", "function symbol 1 (\"f\") is not in an executable segment",
      hm_func_in_data },
    { "an indirect function symbol in data",
      "function symbol 5 (\"i\") is not in an executable segment", hm_ifunc_in_data },
    { "a function symbol at address 0 (none)", NULL, hm_func_at_zero },
    { "a version dependency's file past the strings",
      "a version dependency names no string in the string table", hm_verneed_file },
    { "a version dependency's next past the file",
      "a version dependency record (at 0x10580) is not inside the file", hm_verneed_next_out },
    { "a needed version past the file", "a needed-version record (at 0x10580) is not inside",
      hm_vernaux_out },
    { "a needed version's name past the strings",
      "a needed version names no string in the string table", hm_vernaux_name },
    { "the version definitions outside the image",
      "a version definition record (at 0x5000) is not inside the file", hm_verdef_outside },
    { "a version definition's name record past the file",
      "a version definition's name is not inside the file", hm_verdaux_out },
    { "a version definition's name past the strings",
      "a version definition's name is not inside the file", hm_verdaux_name },
    { "symbol versions without version records", "symbol versions without any version records",
      hm_versym_without_records },
    { "no version definitions", NULL, hm_no_verdef },
    { "no version dependencies", NULL, hm_no_verneed },
    { "no symbol versions", NULL, hm_no_versions },
    { "only the local and global versions", NULL, hm_only_global_versions },
    { "RELA entries of 16 bytes", "RELA entries of 16 bytes (expected 24)", hm_relaent },
    { "a RELA table of 47 bytes", "the RELA table (0x600, 47 bytes) is not inside the file",
      hm_relasz_odd },
    { "REL entries of 8 bytes", "REL entries of 8 bytes (expected 16)", hm_relent },
    { "a REL relocation into the code",
      "REL relocation 0 writes to 0x800, outside its writable memory", hm_rel_into_code },
    { "a text relocation outside the object",
      "RELA relocation 0 writes to 0x5000, outside the object's memory", hm_textrel_outside },
    { "text relocations into the code (DT_TEXTREL)", NULL, hm_textrel_into_code },
    { "a RELA table of no bytes", NULL, hm_relasz_zero },
    { "no RELA relocations", NULL, hm_no_rela },
    { "no PLT relocations", NULL, hm_no_plt },
    { "DT_INIT_ARRAYSZ without DT_INIT_ARRAY", NULL, hm_init_arraysz_alone },
    { "PLT relocations of kind 99", "PLT relocations of unknown kind 99", hm_plt_kind },
    { "a REL PLT table of 24 bytes", "the PLT table (0x660, 24 bytes) is not inside the file",
      hm_plt_as_rel_size },
    { "REL PLT relocations", NULL, hm_plt_as_rel },
    { "packed relocation entries of 4 bytes", "packed relocation entries of 4 bytes (expected 8)",
      hm_relrent },
    { "a packed relocation table of 12 bytes", "the packed relocation table is not inside the file",
      hm_relrsz_odd },
    { "the packed relocations outside the image",
      "the packed relocation table is not inside the file", hm_relr_outside },
    { "a packed relocation into the code", "packed relocation 0 writes outside writable memory",
      hm_relr_into_code },
    { "a packed relocation bitmap past the end",
      "packed relocation 1 writes outside writable memory", hm_relr_bitmap_past },
    { "no packed relocations", NULL, hm_no_relr },
    { "DT_INIT in data", "DT_INIT (0x1800, 1 bytes) is outside the object's executable memory",
      hm_init_in_data },
    { "DT_FINI outside the image", "DT_FINI (0x5000, 1 bytes) is outside", hm_fini_outside },
    { "a constructor array past the image",
      "DT_INIT_ARRAY (0x1900, 65536 bytes) is outside the object's memory", hm_init_array_past },
    { "DT_PLTGOT outside the image", "DT_PLTGOT (0x5000, 1 bytes) is outside", hm_pltgot_outside },
};

/* The hand-made image with one change: refused, by the loader, naming the
 * file and what is wrong; or, for a sound change, passing the check. */
START_TEST(handmade_damage_is_refused)
{
    const struct handmade *h = &handmades[_i];
    size_t len;
    unsigned char *real = real_image(&len);
    unsigned char *img = malloc(HE_SIZE);
    char why[512] = "";

    ck_assert_ptr_nonnull(img);
    he_build(img, real);
    ck_assert_msg(cairn_plugin_elf_check(img, HE_SIZE, why, sizeof(why)) == 0,
                  "the hand-made image is refused: %s", why);
    h->apply(img);
    if (h->needle == NULL)
        ck_assert_msg(cairn_plugin_elf_check(img, HE_SIZE, why, sizeof(why)) == 0,
                      "%s: refused: %s", h->what, why);
    else
        assert_refused(img, HE_SIZE, h->needle, h->what);
    free(img);
    free(real);
}
END_TEST

/* The check reads nothing past the image: each cut of the hand-made image
 * is placed right before a page nothing may read, and is refused saying
 * how it is cut (the first bytes are the ELF header). */
START_TEST(a_cut_image_is_read_only_inside_it)
{
    const size_t page = (size_t)sysconf(_SC_PAGESIZE);
    const size_t span = (HE_SIZE + page - 1) / page * page;
    size_t len, cut;
    unsigned char *real = real_image(&len);
    unsigned char *img = malloc(HE_SIZE);
    unsigned char *map =
        mmap(NULL, span + page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    ck_assert_ptr_nonnull(img);
    ck_assert_ptr_ne(map, MAP_FAILED);
    ck_assert_int_eq(mprotect(map + span, page, PROT_NONE), 0);
    he_build(img, real);
    for (cut = 0; cut < HE_SIZE; cut++) {
        unsigned char *at = map + span - cut;
        char why[512] = "", want[96];

        memcpy(at, img, cut);
        ck_assert_msg(cairn_plugin_elf_check(at, cut, why, sizeof(why)) == -EINVAL,
                      "cut at %zu: accepted", cut);
        if (cut < SELFMAG)
            snprintf(want, sizeof(want), "not an ELF file (%zu bytes)", cut);
        else if (cut < sizeof(ElfW(Ehdr)))
            snprintf(want, sizeof(want), "truncated: %zu bytes, shorter than an ELF header", cut);
        else
            snprintf(want, sizeof(want), "truncated: ");
        ck_assert_msg(strncmp(why, want, strlen(want)) == 0, "cut at %zu: %s", cut, why);
    }
    munmap(map, span + page);
    free(img);
    free(real);
}
END_TEST

/* The hand-made image grown to `size` bytes, its writable load segment
 * covering them, with the region from HE_SIZE all 32-bit words of 4: a
 * version record there, read with its successor 4 bytes on, is sound. */
static unsigned char *grown_image(size_t size)
{
    size_t len, i;
    unsigned char *real = real_image(&len);
    unsigned char *img = calloc(1, size);
    ElfW(Phdr) * data;

    ck_assert_ptr_nonnull(img);
    he_build(img, real);
    data = he_phdr(img, HE_PH_DATA);
    data->p_filesz = data->p_memsz = size - data->p_offset;
    for (i = HE_SIZE; i + 4 <= size; i += 4)
        memcpy(img + i, &(uint32_t){ 4 }, 4);
    free(real);
    return img;
}

/* A chain of version records longer than any object has (65,536) is
 * refused as that, however sound each record is: each kind of chain. */
START_TEST(a_version_chain_too_long_is_refused)
{
    const size_t records = 65536 + 16, deps = 65536 / 2 + 16;
    size_t size = HE_SIZE + 16 * records + 64, k;
    unsigned char *img = grown_image(size);
    const char *needle = "more than 65536 version records";

    /* Definitions 4 bytes apart, each its own name record 4 bytes on. */
    he_dyn(img, DT_VERDEF)->d_un.d_ptr = HE_SIZE;
    assert_refused(img, size, needle, "a long chain of version definitions");
    he_dyn(img, DT_VERDEF)->d_un.d_ptr = HE_VERDEF;

    /* One dependency whose needed versions are 4 bytes apart. */
    put32_at(img, HE_VERNEED + 48 + offsetof(ElfW(Verneed), vn_aux), HE_SIZE - (HE_VERNEED + 48));
    assert_refused(img, size, needle, "a long chain of needed versions");
    put32_at(img, HE_VERNEED + 48 + offsetof(ElfW(Verneed), vn_aux), 16);

    /* Dependencies 16 bytes apart, each needing the one version after
     * them all (an offset to a record is unsigned: it can only be ahead):
     * half as many as the limit, two records each. */
    memcpy(img + HE_SIZE + 16 * deps,
           &(ElfW(Vernaux)){ .vna_other = 2, .vna_name = he_str(img, "V4"), .vna_next = 0 },
           sizeof(ElfW(Vernaux)));
    for (k = 0; k < deps; k++) {
        ElfW(Addr) at = HE_SIZE + 16 * k;
        ElfW(Verneed) vn = { .vn_version = VER_NEED_CURRENT,
                             .vn_cnt = 1,
                             .vn_file = he_str(img, "libc.so.6"),
                             .vn_aux = (uint32_t)(16 * (deps - k)),
                             .vn_next = 16 };

        memcpy(img + at, &vn, sizeof(vn));
    }
    he_dyn(img, DT_VERNEED)->d_un.d_ptr = HE_SIZE;
    assert_refused(img, size, needle, "a long chain of version dependencies");
    free(img);
}
END_TEST

/* A segment cut short is named by its kind, so the operator knows which
 * part of the file is missing. */
START_TEST(a_cut_segment_is_named_by_its_kind)
{
    static const struct {
        ElfW(Word) type;
        const char *name;
    } kinds[] = {
        { PT_DYNAMIC, "dynamic" },
        { PT_INTERP, "interpreter" },
        { PT_NOTE, "note" },
        { PT_PHDR, "program header" },
        { PT_TLS, "TLS" },
        { PT_GNU_EH_FRAME, "unwind table" },
        { PT_GNU_STACK, "stack" },
        { PT_GNU_RELRO, "RELRO" },
        { 0x6474e553 /* PT_GNU_PROPERTY */, "property" },
        { PT_NULL, "other" },
    };
    size_t len, k;
    unsigned char *real = real_image(&len);
    unsigned char *img = malloc(HE_SIZE);

    ck_assert_ptr_nonnull(img);
    for (k = 0; k < sizeof(kinds) / sizeof(kinds[0]); k++) {
        ElfW(Phdr) *ph = he_phdr(img, HE_PH_STACK);
        char needle[96];

        he_build(img, real);
        ph->p_type = kinds[k].type;
        ph->p_offset = HE_SIZE - 8;
        ph->p_filesz = 16;
        snprintf(needle, sizeof(needle), "truncated: %s segment 6 needs bytes %d..%d",
                 kinds[k].name, HE_SIZE - 8, HE_SIZE + 8);
        assert_refused(img, HE_SIZE, needle, kinds[k].name);
    }
    free(img);
    free(real);
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
 * the loader refuses the file and loads the rest.  An entry returning a
 * wild pointer is refused before its descriptor is read (in the probe
 * that read faulted, but a damaged entry may return another value there
 * than in the daemon: CI's fuzzing found one, a register it never set). */
START_TEST(code_faulting_at_load_is_refused)
{
    static const char *const files[] = { "crash_in_constructor.so", "crash_in_entry.so" };
    static const char *const said[] = {
        "killed a probe process with signal 11",
        "cairn_plugin_entry returned a pointer outside the plugin's own memory: the file is "
        "damaged",
    };
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
        ck_assert_msg(strstr(reg.errors[0], dst) != NULL && strstr(reg.errors[0], said[i]) != NULL,
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

/* Sound ELF, code that ends the process or never returns at load time:
 * the probe process ends (or is given up on), not the daemon. */
START_TEST(code_exiting_or_hanging_at_load_is_refused)
{
    static const struct {
        const char *file, *needle;
    } cases[] = {
        { "exit_in_constructor.so", "loading it ended a probe process with exit status 7" },
        { "hang_in_constructor.so", "still loading after 10 s in a probe process" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cairn_registry reg = { 0 };
        char *dir = th_make_dir_in(root_dir);
        char *src = th_xasprintf("%s/%s", env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR"), cases[i].file);
        char *dst = th_xasprintf("%s/%s", dir, cases[i].file);

        th_copy_file(src, dst, 0755);
        ck_assert_int_eq(cairn_registry_load(&reg, dir), -EINVAL);
        ck_assert_uint_eq(reg.n_errors, 1);
        ck_assert_msg(strstr(reg.errors[0], dst) != NULL &&
                          strstr(reg.errors[0], cases[i].needle) != NULL,
                      "%s: %s", cases[i].file, reg.errors[0]);
        ck_assert_uint_eq(reg.n_plugins, 0);
        cairn_registry_free(&reg);
        th_rm_tree(dir);
        free(dir);
        free(src);
        free(dst);
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

/* A constructor that calls exit() with the status a clean probe ends with
 * (0) or the one it used for "dlopen refused it" (3): once such a status
 * passed for the probe's verdict, the real load then ran the constructor
 * in cairnd, and --check ended with 0 or 3 and said nothing.  Run through
 * cairnd, not cairn_registry_load() here: Check counts a test process that
 * exits 0 half-way as passed. */
START_TEST(a_plugin_exiting_with_a_probe_status_is_refused)
{
    static const char *const files[] = { "exit_0_in_constructor.so", "exit_3_in_constructor.so" };
    static const char *const codes[] = { "0", "3" };
    size_t i;

    for (i = 0; i < 2; i++) {
        char *scratch = th_make_dir_in(root_dir);
        char *plugins = th_xasprintf("%s/plugins", scratch);
        char *src = th_xasprintf("%s/%s", env_or_die("CAIRN_TEST_BAD_PLUGIN_DIR"), files[i]);
        char *dst = th_xasprintf("%s/%s", plugins, files[i]);
        char *cfg = th_xasprintf("%s/cairn.json", scratch);
        char *needle =
            th_xasprintf("loading it ended a probe process with exit status %s", codes[i]);
        const char *args[] = { "-c", cfg, "--plugins", plugins, "--check", NULL };
        struct th_run r;

        ck_assert_int_eq(mkdir(plugins, 0755), 0);
        th_copy_file(src, dst, 0755);
        th_write_text(cfg, "{}\n");
        r = th_run_cairnd(env_or_die("CAIRN_TEST_CAIRND"), scratch, args);
        ck_assert_msg(r.status == 2, "%s: exit %d, stderr: %s", files[i], r.status, r.err);
        ck_assert_msg(strstr(r.err, dst) != NULL && strstr(r.err, needle) != NULL,
                      "%s: stderr does not say '%s': %s", files[i], needle, r.err);
        th_run_free(&r);
        th_rm_tree(scratch);
        free(scratch);
        free(plugins);
        free(src);
        free(dst);
        free(cfg);
        free(needle);
    }
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
    tc = tcase_create("a hand-made image with one structure damaged is refused with what is wrong");
    tcase_add_loop_test(tc, handmade_damage_is_refused, 0,
                        (int)(sizeof(handmades) / sizeof(handmades[0])));
    suite_add_tcase(s, tc);
    CASE("a segment cut short is named by its kind", a_cut_segment_is_named_by_its_kind);
    CASE("a version chain too long is refused", a_version_chain_too_long_is_refused);
    CASE("a cut image is read only inside it", a_cut_image_is_read_only_inside_it);
    CASE("every built plugin passes the check", every_built_plugin_passes);
    CASE("code faulting at load time is refused (probe process)", code_faulting_at_load_is_refused);
    CASE("code exiting or hanging at load time is refused (probe process)",
         code_exiting_or_hanging_at_load_is_refused);
    CASE("a plugin exiting with a probe's own status is refused",
         a_plugin_exiting_with_a_probe_status_is_refused);
    CASE("cairnd exits 2 naming a cut file", cairnd_exits_2_naming_a_cut_file);
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
    failed = th_run_suite(damage_suite(), CK_NORMAL, 1);
    th_rm_tree(root_dir);
    return failed == 0 ? 0 : 1;
}
