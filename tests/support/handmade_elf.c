/*
 * handmade_elf.c - a small shared object built byte by byte (see
 * handmade_elf.h for what it holds and why).
 */
#include "handmade_elf.h"

#include <check.h>
#include <stdint.h>
#include <string.h>

static const char strings[] =
    "\0libc.so.6\0libm.so.6\0libhand.so\0f\0g\0t\0a\0i\0o\0V1\0V2\0V3\0V4";

void *he_at(unsigned char *img, ElfW(Addr) address)
{
    ck_assert_msg(address < HE_SIZE, "address %#lx is outside the image", (unsigned long)address);
    return img + address;
}

ElfW(Ehdr) * he_ehdr(unsigned char *img)
{
    return (ElfW(Ehdr) *)img;
}

ElfW(Phdr) * he_phdr(unsigned char *img, enum he_ph i)
{
    return (ElfW(Phdr) *)(img + HE_PHDRS) + i;
}

ElfW(Sym) * he_sym(unsigned char *img, enum he_sym i)
{
    return (ElfW(Sym) *)(img + HE_SYMTAB) + i;
}

ElfW(Dyn) * he_dyn(unsigned char *img, ElfW(Sxword) t)
{
    ElfW(Dyn) * e;

    for (e = (ElfW(Dyn) *)(img + HE_DYNAMIC); e->d_tag != DT_NULL; e++)
        if (e->d_tag == t)
            return e;
    ck_abort_msg("the hand-made image has no dynamic tag %lld", (long long)t);
    return NULL;
}

void he_drop(unsigned char *img, ElfW(Sxword) t)
{
    he_dyn(img, t)->d_tag = DT_DEBUG;
}

ElfW(Word) he_str(unsigned char *img, const char *s)
{
    size_t i;

    (void)img;
    for (i = 1; i < sizeof(strings); i += strlen(strings + i) + 1)
        if (strcmp(strings + i, s) == 0)
            return (ElfW(Word))i;
    ck_abort_msg("no string \"%s\" in the hand-made image", s);
    return 0;
}

static void put16(unsigned char *img, ElfW(Addr) a, uint16_t v)
{
    memcpy(he_at(img, a), &v, sizeof(v));
}

static void put32(unsigned char *img, ElfW(Addr) a, uint32_t v)
{
    memcpy(he_at(img, a), &v, sizeof(v));
}

static void put64(unsigned char *img, ElfW(Addr) a, uint64_t v)
{
    memcpy(he_at(img, a), &v, sizeof(v));
}

static void sym(unsigned char *img, enum he_sym i, const char *name, unsigned bind, unsigned type,
                uint16_t shndx, ElfW(Addr) value)
{
    ElfW(Sym) *s = he_sym(img, i);

    s->st_name = name != NULL ? he_str(img, name) : 0;
    s->st_info = (unsigned char)ELF64_ST_INFO(bind, type);
    s->st_shndx = shndx;
    s->st_value = value;
    s->st_size = value != 0 ? 1 : 0;
}

static void verdef(unsigned char *img, ElfW(Addr) at, uint16_t flags, uint16_t ndx,
                   const char *name, uint32_t next)
{
    ElfW(Verdef) d = { .vd_version = VER_DEF_CURRENT,
                       .vd_flags = flags,
                       .vd_ndx = ndx,
                       .vd_cnt = 1,
                       .vd_aux = sizeof(ElfW(Verdef)),
                       .vd_next = next };
    ElfW(Verdaux) a = { .vda_name = he_str(img, name), .vda_next = 0 };

    memcpy(he_at(img, at), &d, sizeof(d));
    memcpy(he_at(img, at + sizeof(d)), &a, sizeof(a));
}

static void verneed(unsigned char *img, ElfW(Addr) at, const char *file, uint16_t cnt,
                    uint32_t next)
{
    ElfW(Verneed) n = { .vn_version = VER_NEED_CURRENT,
                        .vn_cnt = cnt,
                        .vn_file = he_str(img, file),
                        .vn_aux = sizeof(ElfW(Verneed)),
                        .vn_next = next };

    memcpy(he_at(img, at), &n, sizeof(n));
}

static void vernaux(unsigned char *img, ElfW(Addr) at, uint16_t other, const char *name,
                    uint32_t next)
{
    ElfW(Vernaux) a = { .vna_other = other, .vna_name = he_str(img, name), .vna_next = next };

    memcpy(he_at(img, at), &a, sizeof(a));
}

static void rela(unsigned char *img, ElfW(Addr) at, ElfW(Addr) target, uint32_t symbol,
                 uint32_t type)
{
    ElfW(Rela) r = { .r_offset = target, .r_info = ELF64_R_INFO(symbol, type), .r_addend = 0 };

    memcpy(he_at(img, at), &r, sizeof(r));
}

static void phdr(unsigned char *img, enum he_ph i, ElfW(Word) type, ElfW(Word) flags, ElfW(Off) at,
                 ElfW(Xword) filesz, ElfW(Xword) memsz, ElfW(Xword) align)
{
    *he_phdr(img, i) = (ElfW(Phdr)){ .p_type = type,
                                     .p_flags = flags,
                                     .p_offset = at,
                                     .p_vaddr = at,
                                     .p_paddr = at,
                                     .p_filesz = filesz,
                                     .p_memsz = memsz,
                                     .p_align = align };
}

void he_build(unsigned char *img, const unsigned char *like)
{
    const ElfW(Ehdr) *model = (const ElfW(Ehdr) *)like;
    const ElfW(Dyn) dyn[] = {
        { DT_NEEDED, { 0 } },
        { DT_NEEDED, { 0 } },
        { DT_SONAME, { 0 } },
        { DT_RUNPATH, { 0 } },
        { DT_STRTAB, { HE_STRTAB } },
        { DT_STRSZ, { sizeof(strings) } },
        { DT_SYMTAB, { HE_SYMTAB } },
        { DT_SYMENT, { sizeof(ElfW(Sym)) } },
        { DT_HASH, { HE_HASH } },
        { DT_GNU_HASH, { HE_GNU_HASH } },
        { DT_VERSYM, { HE_VERSYM } },
        { DT_VERDEF, { HE_VERDEF } },
        { DT_VERDEFNUM, { 2 } },
        { DT_VERNEED, { HE_VERNEED } },
        { DT_VERNEEDNUM, { 2 } },
        { DT_RELA, { HE_RELA } },
        { DT_RELASZ, { 2 * sizeof(ElfW(Rela)) } },
        { DT_RELAENT, { sizeof(ElfW(Rela)) } },
        { DT_REL, { HE_REL } },
        { DT_RELSZ, { sizeof(ElfW(Rel)) } },
        { DT_RELENT, { sizeof(ElfW(Rel)) } },
        { DT_JMPREL, { HE_JMPREL } },
        { DT_PLTRELSZ, { sizeof(ElfW(Rela)) } },
        { DT_PLTREL, { DT_RELA } },
        { 36 /* DT_RELR */, { HE_RELR } },
        { 35 /* DT_RELRSZ */, { 16 } },
        { 37 /* DT_RELRENT */, { 8 } },
        { DT_INIT, { HE_CODE } },
        { DT_FINI, { HE_CODE + 1 } },
        { DT_INIT_ARRAY, { HE_INIT_ARRAY } },
        { DT_INIT_ARRAYSZ, { 8 } },
        { DT_FINI_ARRAY, { HE_FINI_ARRAY } },
        { DT_FINI_ARRAYSZ, { 8 } },
        { DT_PREINIT_ARRAY, { HE_PREINIT_ARRAY } },
        { DT_PREINIT_ARRAYSZ, { 8 } },
        { DT_PLTGOT, { HE_PLTGOT } },
        { DT_FLAGS, { 0 } },
        { DT_NULL, { 0 } },
    };
    static const uint16_t versions[HE_NSYMS] = { 0, 2, 3, 1, 1, 0x8002, 4 };
    ElfW(Ehdr) *eh = he_ehdr(img);
    size_t i;

    memset(img, 0, HE_SIZE);
    memcpy(eh->e_ident, model->e_ident, EI_NIDENT);
    eh->e_type = ET_DYN;
    eh->e_machine = model->e_machine;
    eh->e_version = EV_CURRENT;
    eh->e_phoff = HE_PHDRS;
    eh->e_ehsize = sizeof(*eh);
    eh->e_phentsize = sizeof(ElfW(Phdr));
    eh->e_phnum = HE_PHNUM;

    phdr(img, HE_PH_TEXT, PT_LOAD, PF_R | PF_X, 0, HE_DYNAMIC, HE_DYNAMIC, 0x1000);
    phdr(img, HE_PH_DATA, PT_LOAD, PF_R | PF_W, HE_DYNAMIC, HE_SIZE - HE_DYNAMIC,
         HE_SIZE - HE_DYNAMIC, 0x1000);
    phdr(img, HE_PH_DYNAMIC, PT_DYNAMIC, PF_R | PF_W, HE_DYNAMIC, sizeof(dyn), sizeof(dyn), 8);
    phdr(img, HE_PH_PHDR, PT_PHDR, PF_R, HE_PHDRS, HE_PHNUM * sizeof(ElfW(Phdr)),
         HE_PHNUM * sizeof(ElfW(Phdr)), 8);
    phdr(img, HE_PH_TLS, PT_TLS, PF_R, HE_TLS, 0, 16, 8); /* .tbss only: nothing in the file */
    phdr(img, HE_PH_NOTE, PT_NOTE, PF_R, HE_TLS, 16, 16, 4);
    phdr(img, HE_PH_STACK, PT_GNU_STACK, PF_R | PF_W, 0, 0, 0, 16);

    memcpy(img + HE_STRTAB, strings, sizeof(strings));

    sym(img, HE_SYM_NULL, NULL, STB_LOCAL, STT_NOTYPE, SHN_UNDEF, 0);
    sym(img, HE_SYM_F, "f", STB_GLOBAL, STT_FUNC, 7, HE_CODE);
    /* An undefined function's value and an absolute one's are no address
     * in this object: the check must not look for them in its code. */
    sym(img, HE_SYM_G, "g", STB_GLOBAL, STT_FUNC, SHN_UNDEF, 0x12345678);
    sym(img, HE_SYM_T, "t", STB_GLOBAL, STT_TLS, 8, 0);
    sym(img, HE_SYM_A, "a", STB_GLOBAL, STT_FUNC, SHN_ABS, 0x12345678);
    sym(img, HE_SYM_I, "i", STB_GLOBAL, STT_GNU_IFUNC, 7, HE_CODE + 1);
    sym(img, HE_SYM_O, "o", STB_GLOBAL, STT_OBJECT, 9, HE_DATA);

    /* SysV: one bucket holding every symbol in one chain. */
    put32(img, HE_HASH, 1);
    put32(img, HE_HASH + 4, HE_NSYMS);
    put32(img, HE_HASH + 8, 1);
    for (i = 1; i < HE_NSYMS; i++)
        put32(img, HE_HASH + 12 + 4 * i, i + 1 < HE_NSYMS ? (uint32_t)(i + 1) : 0);
    /* GNU: one bucket from symbol 1, its chain ending (odd) at the last. */
    put32(img, HE_GNU_HASH, 1);
    put32(img, HE_GNU_HASH + 4, 1);
    put32(img, HE_GNU_HASH + 8, 1);
    put32(img, HE_GNU_HASH + 12, 6);
    put64(img, HE_GNU_HASH + 16, UINT64_MAX);
    put32(img, HE_GNU_BUCKETS, 1);
    for (i = 1; i < HE_NSYMS; i++)
        put32(img, HE_GNU_BUCKETS + 4 * i, (uint32_t)(2 * i) | (i + 1 == HE_NSYMS));

    for (i = 0; i < HE_NSYMS; i++)
        put16(img, HE_VERSYM + 2 * i, versions[i]);
    verdef(img, HE_VERDEF, VER_FLG_BASE, 1, "libhand.so", 28);
    verdef(img, HE_VERDEF + 28, 0, 2, "V1", 0);
    verneed(img, HE_VERNEED, "libc.so.6", 2, 48);
    vernaux(img, HE_VERNEED + 16, 3, "V2", 16);
    vernaux(img, HE_VERNEED + 32, 5, "V3", 0);
    verneed(img, HE_VERNEED + 48, "libm.so.6", 1, 0);
    vernaux(img, HE_VERNEED + 64, 4, "V4", 0);

    rela(img, HE_RELA, HE_DATA, 0, 8);
    /* R_*_NONE: nothing is written, so its offset (0, as linkers leave it) is no target. */
    rela(img, HE_RELA + sizeof(ElfW(Rela)), 0, 0, 0);
    put64(img, HE_REL, HE_DATA + 16);
    put64(img, HE_REL + 8, ELF64_R_INFO(HE_SYM_F, 1));
    rela(img, HE_JMPREL, HE_DATA + 24, HE_SYM_G, 7);
    put64(img, HE_RELR, HE_DATA + 32);  /* an address: one word relocated */
    put64(img, HE_RELR + 8, 1 | 2 | 4); /* a bitmap: the two words after it */
    img[HE_CODE] = 0xc3;

    memcpy(img + HE_DYNAMIC, dyn, sizeof(dyn));
    he_dyn(img, DT_NEEDED)->d_un.d_val = he_str(img, "libc.so.6");
    ((ElfW(Dyn) *)(img + HE_DYNAMIC))[1].d_un.d_val = he_str(img, "libm.so.6");
    he_dyn(img, DT_SONAME)->d_un.d_val = he_str(img, "libhand.so");
}
