/*
 * handmade_elf.h - a small shared object built byte by byte, for the ELF
 * check's tests (test_plugin_damage.c).
 *
 * A real plugin has only the structures its linker chose to emit: no SysV
 * hash table, no REL or packed (RELR) relocations, no version definitions,
 * no TLS.  This image has one of every structure core/host/plugin_elf.c
 * reads, all of them sound, so that each test can damage exactly one.
 * Every address equals its file offset (both load segments are mapped at
 * the offset they are read from), so he_at(img, address) is the byte.
 */
#ifndef CAIRN_TEST_HANDMADE_ELF_H
#define CAIRN_TEST_HANDMADE_ELF_H

#include <elf.h>
#include <link.h>
#include <stddef.h>

#define HE_SIZE 0x2000

/* Where each structure is (addresses and file offsets). */
enum {
    HE_PHDRS = 0x40, /* HE_PHNUM program headers, in enum he_ph order */
    HE_STRTAB = 0x200,
    HE_SYMTAB = 0x300,   /* HE_NSYMS symbols, in enum he_sym order */
    HE_HASH = 0x400,     /* SysV: 1 bucket, HE_NSYMS chains */
    HE_GNU_HASH = 0x480, /* 1 bucket, symbols from 1, 1 bloom word */
    HE_GNU_BUCKETS = HE_GNU_HASH + 16 + 8,
    HE_VERSYM = 0x500,
    HE_VERDEF = 0x540,   /* two definitions: the file (1) and V1 (2) */
    HE_VERNEED = 0x580,  /* libc.so.6 needing V2 (3) and V3 (4); libm.so.6 V4 (2) */
    HE_RELA = 0x600,     /* a relative entry, then a NONE at offset 0 */
    HE_REL = 0x640,      /* one entry, naming symbol f */
    HE_JMPREL = 0x660,   /* one RELA entry, naming symbol g */
    HE_RELR = 0x6a0,     /* an address, then a bitmap of two more words */
    HE_CODE = 0x800,     /* the first load segment is read + execute */
    HE_DYNAMIC = 0x1000, /* the second load segment, read + write */
    HE_DATA = 0x1800,    /* what the relocations write */
    HE_INIT_ARRAY = 0x1900,
    HE_FINI_ARRAY = 0x1908,
    HE_PREINIT_ARRAY = 0x1910,
    HE_PLTGOT = 0x1918,
    HE_SPARE = 0x1a00, /* unused, file-backed and writable: room for a test's own table */
    HE_TLS = 0x1c00,
};

enum he_ph {
    HE_PH_TEXT,
    HE_PH_DATA,
    HE_PH_DYNAMIC,
    HE_PH_PHDR,
    HE_PH_TLS,
    HE_PH_NOTE,
    HE_PH_STACK,
    HE_PHNUM
};
enum he_sym {
    HE_SYM_NULL,
    HE_SYM_F,
    HE_SYM_G,
    HE_SYM_T,
    HE_SYM_A,
    HE_SYM_I,
    HE_SYM_O,
    HE_NSYMS
};

/* Fills img (HE_SIZE bytes) with the sound image; like is any real
 * shared object of this machine (its class, byte order and machine). */
void he_build(unsigned char *img, const unsigned char *like);

/* img + address (every address is its file offset). */
void *he_at(unsigned char *img, ElfW(Addr) address);
ElfW(Ehdr) * he_ehdr(unsigned char *img);
ElfW(Phdr) * he_phdr(unsigned char *img, enum he_ph i);
ElfW(Sym) * he_sym(unsigned char *img, enum he_sym i);
/* The dynamic entry of tag t (the test fails if there is none). */
ElfW(Dyn) * he_dyn(unsigned char *img, ElfW(Sxword) t);
/* Turns the entry of tag t into a DT_DEBUG, which the check ignores. */
void he_drop(unsigned char *img, ElfW(Sxword) t);
/* The string table offset of s (the test fails if it is not there). */
ElfW(Word) he_str(unsigned char *img, const char *s);

#endif /* CAIRN_TEST_HANDMADE_ELF_H */
