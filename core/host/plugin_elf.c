/*
 * plugin_elf.c - the ELF structures the dynamic linker follows, read
 * through bounds checks before it maps them.  Why: see plugin_elf.h.
 *
 * Every read goes through get(), which refuses anything outside the image;
 * every address the linker would follow is translated through the load
 * segments (file_at, in_memory), so a value that points nowhere is found
 * here rather than by a fault in the linker.
 */
#include "plugin_elf.h"

#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#if defined(__x86_64__)
#define NATIVE_MACHINE EM_X86_64
#elif defined(__aarch64__)
#define NATIVE_MACHINE EM_AARCH64
#elif defined(__i386__)
#define NATIVE_MACHINE EM_386
#elif defined(__arm__)
#define NATIVE_MACHINE EM_ARM
#elif defined(__riscv)
#define NATIVE_MACHINE EM_RISCV
#elif defined(__powerpc64__)
#define NATIVE_MACHINE EM_PPC64
#elif defined(__s390x__)
#define NATIVE_MACHINE EM_S390
#endif

#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define NATIVE_DATA ELFDATA2LSB
#else
#define NATIVE_DATA ELFDATA2MSB
#endif

#if __ELF_NATIVE_CLASS == 64
#define NATIVE_CLASS ELFCLASS64
#define SYM_TYPE     ELF64_ST_TYPE
#define REL_SYM      ELF64_R_SYM
#define REL_TYPE     ELF64_R_TYPE
#else
#define NATIVE_CLASS ELFCLASS32
#define SYM_TYPE     ELF32_ST_TYPE
#define REL_SYM      ELF32_R_SYM
#define REL_TYPE     ELF32_R_TYPE
#endif

#ifndef DT_RELRSZ
#define DT_RELRSZ  35
#define DT_RELR    36
#define DT_RELRENT 37
#endif
#ifndef PT_GNU_PROPERTY
#define PT_GNU_PROPERTY 0x6474e553
#endif

/* More would be a corrupted count: real objects have about ten. */
#define MAX_PHNUM 512
/* Bounds the version-record walks: each record's successor is further on
 * (the offsets are unsigned), so no chain can loop, but a file of records 4 bytes
 * apart would have the check read (and look up the names of) millions. */
#define MAX_VERSION_RECORDS 65536

struct image {
    const unsigned char *p;
    size_t size;
    size_t phoff, phnum;
    size_t dynamic; /* the index of the one dynamic segment (check_segments) */
    char *why;
    size_t why_len;
};

/* What the dynamic section says, by tag; 0 where absent. */
struct dyn {
    ElfW(Addr) strtab, symtab, hash, gnu_hash, versym, verneed, verdef, pltgot;
    ElfW(Addr) rela, rel, jmprel, relr, init, fini, init_array, fini_array, preinit_array;
    uint64_t strsz, syment, relasz, relaent, relsz, relent, pltrelsz, pltrel, relrsz, relrent;
    uint64_t init_arraysz, fini_arraysz, preinit_arraysz, verneednum, verdefnum;
    uint64_t stroff; /* the string table's file offset */
    int textrel;
    size_t nsyms;
    unsigned max_version;
};

static int refuse(struct image *im, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int refuse(struct image *im, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(im->why, im->why_len, fmt, ap);
    va_end(ap);
    return -EINVAL;
}

/* [off, off + len) inside [0, limit), without overflow. */
static int span_ok(uint64_t off, uint64_t len, uint64_t limit)
{
    return off <= limit && len <= limit - off;
}

/* Copies n bytes at file offset off into out (the image need not be
 * aligned for ElfW types).  0, or -1 when they are not all in the file. */
static int get(const struct image *im, uint64_t off, void *out, size_t n)
{
    if (!span_ok(off, n, im->size))
        return -1;
    memcpy(out, im->p + off, n);
    return 0;
}

static void phdr(const struct image *im, size_t i, ElfW(Phdr) * ph)
{
    /* In bounds: check_phdr_table() ran first. */
    memcpy(ph, im->p + im->phoff + i * sizeof(*ph), sizeof(*ph));
}

static const char *ptype(ElfW(Word) t)
{
    switch (t) {
    case PT_LOAD: return "load";
    case PT_DYNAMIC: return "dynamic";
    case PT_INTERP: return "interpreter";
    case PT_NOTE: return "note";
    case PT_PHDR: return "program header";
    case PT_TLS: return "TLS";
    case PT_GNU_EH_FRAME: return "unwind table";
    case PT_GNU_STACK: return "stack";
    case PT_GNU_RELRO: return "RELRO";
    case PT_GNU_PROPERTY: return "property";
    default: return "other";
    }
}

/* The file offset of [v, v + n) in the file-backed part of a load
 * segment: 0 with *off set, or -1 when those bytes are not in the file. */
static int file_at(const struct image *im, uint64_t v, uint64_t n, uint64_t *off)
{
    size_t i;

    for (i = 0; i < im->phnum; i++) {
        ElfW(Phdr) ph;

        phdr(im, i, &ph);
        if (ph.p_type != PT_LOAD || v < ph.p_vaddr)
            continue;
        if (span_ok(v - ph.p_vaddr, n, ph.p_filesz)) {
            *off = ph.p_offset + (v - ph.p_vaddr);
            return 0;
        }
    }
    return -1;
}

/* Copies n bytes at address v (file-backed) into out: 0 or -1. */
static int get_at(const struct image *im, uint64_t v, void *out, size_t n)
{
    uint64_t off;

    return file_at(im, v, n, &off) == 0 ? get(im, off, out, n) : -1;
}

/* [v, v + n) inside one load segment's memory whose flags include all of
 * `flags` (PF_W, PF_X or 0). */
static int in_memory(const struct image *im, uint64_t v, uint64_t n, ElfW(Word) flags)
{
    size_t i;

    for (i = 0; i < im->phnum; i++) {
        ElfW(Phdr) ph;

        phdr(im, i, &ph);
        if (ph.p_type == PT_LOAD && v >= ph.p_vaddr && span_ok(v - ph.p_vaddr, n, ph.p_memsz) &&
            (ph.p_flags & flags) == flags)
            return 1;
    }
    return 0;
}

static int check_header(struct image *im)
{
    ElfW(Ehdr) eh;

    if (get(im, 0, &eh, sizeof(eh)) != 0) {
        if (im->size >= SELFMAG && memcmp(im->p, ELFMAG, SELFMAG) == 0)
            return refuse(im, "truncated: %zu bytes, shorter than an ELF header", im->size);
        return refuse(im, "not an ELF file (%zu bytes)", im->size);
    }
    if (memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0)
        return refuse(im, "not an ELF file: no ELF magic number at the start");
    if (eh.e_ident[EI_CLASS] != NATIVE_CLASS)
        return refuse(im, "ELF class %u: this cairnd loads only %d-bit objects",
                      eh.e_ident[EI_CLASS], __ELF_NATIVE_CLASS);
    if (eh.e_ident[EI_DATA] != NATIVE_DATA)
        return refuse(im, "ELF byte order %u differs from this machine's", eh.e_ident[EI_DATA]);
    if (eh.e_ident[EI_VERSION] != EV_CURRENT || eh.e_version != EV_CURRENT)
        return refuse(im, "unknown ELF version");
    if (eh.e_type != ET_DYN)
        return refuse(im, "not a shared object (ELF type %u)", eh.e_type);
#ifdef NATIVE_MACHINE
    if (eh.e_machine != NATIVE_MACHINE)
        return refuse(im, "built for ELF machine %u, this cairnd runs on machine %u", eh.e_machine,
                      NATIVE_MACHINE);
#endif
    if (eh.e_phentsize != sizeof(ElfW(Phdr)))
        return refuse(im, "program header entries of %u bytes (expected %zu)", eh.e_phentsize,
                      sizeof(ElfW(Phdr)));
    if (eh.e_phnum == 0 || eh.e_phnum > MAX_PHNUM)
        return refuse(im, "%u program headers (expected 1 to %d)", eh.e_phnum, MAX_PHNUM);
    if (!span_ok(eh.e_phoff, (uint64_t)eh.e_phnum * sizeof(ElfW(Phdr)), im->size))
        return refuse(im,
                      "truncated: the program header table needs bytes %llu..%llu, the file has "
                      "%zu bytes",
                      (unsigned long long)eh.e_phoff,
                      (unsigned long long)eh.e_phoff +
                          (unsigned long long)eh.e_phnum * sizeof(ElfW(Phdr)),
                      im->size);
    im->phoff = eh.e_phoff;
    im->phnum = eh.e_phnum;
    return 0;
}

static int check_load(struct image *im, size_t i, const ElfW(Phdr) * ph, uint64_t *prev_end)
{
    if (ph->p_filesz > ph->p_memsz)
        return refuse(im,
                      "load segment %zu has more bytes in the file (%llu) than in memory (%llu)", i,
                      (unsigned long long)ph->p_filesz, (unsigned long long)ph->p_memsz);
    if (ph->p_align > 1) {
        if ((ph->p_align & (ph->p_align - 1)) != 0)
            return refuse(im, "load segment %zu: alignment %llu is not a power of two", i,
                          (unsigned long long)ph->p_align);
        if ((ph->p_vaddr - ph->p_offset) & (ph->p_align - 1))
            return refuse(im, "load segment %zu: address and file offset disagree modulo %llu", i,
                          (unsigned long long)ph->p_align);
    }
    if (ph->p_vaddr + ph->p_memsz < ph->p_vaddr)
        return refuse(im, "load segment %zu wraps around the address space", i);
    /* The linker maps the span from the first to the last and relies on
     * the order the ELF specification requires. */
    if (ph->p_vaddr < *prev_end)
        return refuse(im, "load segment %zu overlaps or precedes the one before it", i);
    *prev_end = ph->p_vaddr + ph->p_memsz;
    return 0;
}

/* Every segment's bytes in the file; load segments sound; the segments
 * the linker reads through the mapping inside a load segment's bytes. */
static int check_segments(struct image *im)
{
    uint64_t prev_end = 0;
    size_t i, loads = 0, n_dynamic = 0;
    int rc;

    for (i = 0; i < im->phnum; i++) {
        ElfW(Phdr) ph;

        phdr(im, i, &ph);
        if (!span_ok(ph.p_offset, ph.p_filesz, im->size))
            return refuse(im,
                          "truncated: %s segment %zu needs bytes %llu..%llu, the file has %zu "
                          "bytes",
                          ptype(ph.p_type), i, (unsigned long long)ph.p_offset,
                          (unsigned long long)ph.p_offset + (unsigned long long)ph.p_filesz,
                          im->size);
        if (ph.p_type == PT_LOAD) {
            if ((rc = check_load(im, i, &ph, &prev_end)) != 0)
                return rc;
            loads++;
        }
    }
    if (loads == 0)
        return refuse(im, "no load segment");
    for (i = 0; i < im->phnum; i++) {
        ElfW(Phdr) ph;
        uint64_t off;

        phdr(im, i, &ph);
        if (ph.p_type == PT_DYNAMIC) {
            im->dynamic = i;
            n_dynamic++;
        }
        if (ph.p_type != PT_DYNAMIC && ph.p_type != PT_NOTE && ph.p_type != PT_GNU_PROPERTY &&
            ph.p_type != PT_TLS && ph.p_type != PT_PHDR)
            continue;
        if (ph.p_filesz > 0 && file_at(im, ph.p_vaddr, ph.p_filesz, &off) != 0)
            return refuse(im,
                          "%s segment %zu (address %#llx, %llu bytes) is not inside the file's "
                          "part of a load segment",
                          ptype(ph.p_type), i, (unsigned long long)ph.p_vaddr,
                          (unsigned long long)ph.p_filesz);
    }
    if (n_dynamic != 1)
        return refuse(im, "%zu dynamic segments (a shared object has one)", n_dynamic);
    return 0;
}

static void note_tag(struct dyn *d, const ElfW(Dyn) * e)
{
    ElfW(Addr) p = e->d_un.d_ptr;
    uint64_t v = e->d_un.d_val;

    switch (e->d_tag) {
    case DT_STRTAB: d->strtab = p; break;
    case DT_SYMTAB: d->symtab = p; break;
    case DT_HASH: d->hash = p; break;
    case DT_GNU_HASH: d->gnu_hash = p; break;
    case DT_VERSYM: d->versym = p; break;
    case DT_VERNEED: d->verneed = p; break;
    case DT_VERDEF: d->verdef = p; break;
    case DT_PLTGOT: d->pltgot = p; break;
    case DT_RELA: d->rela = p; break;
    case DT_REL: d->rel = p; break;
    case DT_JMPREL: d->jmprel = p; break;
    case DT_RELR: d->relr = p; break;
    case DT_INIT: d->init = p; break;
    case DT_FINI: d->fini = p; break;
    case DT_INIT_ARRAY: d->init_array = p; break;
    case DT_FINI_ARRAY: d->fini_array = p; break;
    case DT_PREINIT_ARRAY: d->preinit_array = p; break;
    case DT_STRSZ: d->strsz = v; break;
    case DT_SYMENT: d->syment = v; break;
    case DT_RELASZ: d->relasz = v; break;
    case DT_RELAENT: d->relaent = v; break;
    case DT_RELSZ: d->relsz = v; break;
    case DT_RELENT: d->relent = v; break;
    case DT_PLTRELSZ: d->pltrelsz = v; break;
    case DT_PLTREL: d->pltrel = v; break;
    case DT_RELRSZ: d->relrsz = v; break;
    case DT_RELRENT: d->relrent = v; break;
    case DT_INIT_ARRAYSZ: d->init_arraysz = v; break;
    case DT_FINI_ARRAYSZ: d->fini_arraysz = v; break;
    case DT_PREINIT_ARRAYSZ: d->preinit_arraysz = v; break;
    case DT_VERNEEDNUM: d->verneednum = v; break;
    case DT_VERDEFNUM: d->verdefnum = v; break;
    case DT_TEXTREL: d->textrel = 1; break;
    case DT_FLAGS: d->textrel |= (v & DF_TEXTREL) != 0; break;
    default: break;
    }
}

/* A string-table offset names a NUL-terminated string inside the table:
 * any offset inside it does, since read_dynamic() found the table inside
 * the file and ending with a NUL before anything names a string. */
static int string_ok(const struct dyn *d, uint64_t name)
{
    return name < d->strsz;
}

/* The dynamic entries, collected; the strings they name checked. */
static int read_dynamic(struct image *im, struct dyn *d)
{
    static const ElfW(Sxword) string_tags[] = { DT_NEEDED, DT_SONAME, DT_RPATH, DT_RUNPATH };
    const unsigned char *entries;
    ElfW(Phdr) ph;
    uint64_t off, n, k;
    size_t t;

    phdr(im, im->dynamic, &ph);
    (void)file_at(im, ph.p_vaddr, ph.p_filesz, &off); /* checked by check_segments */
    entries = im->p + off;
    n = ph.p_filesz / sizeof(ElfW(Dyn));
    for (k = 0; k < n; k++) {
        ElfW(Dyn) e;

        memcpy(&e, entries + k * sizeof(e), sizeof(e));
        if (e.d_tag == DT_NULL)
            break;
        note_tag(d, &e);
    }
    if (k == n)
        return refuse(im, "the dynamic section has no terminating entry");
    n = k;
    if (d->strtab == 0 || d->strsz == 0 || file_at(im, d->strtab, d->strsz, &off) != 0)
        return refuse(im, "the string table (%#llx, %llu bytes) is not inside the file",
                      (unsigned long long)d->strtab, (unsigned long long)d->strsz);
    if (im->p[off + d->strsz - 1] != '\0')
        return refuse(im, "the string table does not end with a NUL");
    d->stroff = off;
    /* Only now, DT_STRTAB known, can the strings the entries name be. */
    for (k = 0; k < n; k++) {
        ElfW(Dyn) e;

        memcpy(&e, entries + k * sizeof(e), sizeof(e));
        for (t = 0; t < sizeof(string_tags) / sizeof(string_tags[0]); t++)
            if (e.d_tag == string_tags[t] && !string_ok(d, e.d_un.d_val))
                return refuse(im,
                              "dynamic entry %llu (tag %lld) names no string in the string table",
                              (unsigned long long)k, (long long)e.d_tag);
    }
    return 0;
}

static int check_sysv_hash(struct image *im, struct dyn *d)
{
    uint32_t head[2], v;
    uint64_t i, n;

    if (get_at(im, d->hash, head, sizeof(head)) != 0)
        return refuse(im, "the hash table is not inside the file");
    n = 2 + (uint64_t)head[0] + head[1];
    if (head[0] == 0 || file_at(im, d->hash, n * 4, &i) != 0)
        return refuse(im, "the hash table (%u buckets, %u chains) is not inside the file", head[0],
                      head[1]);
    for (i = 2; i < n; i++) {
        (void)get_at(im, d->hash + i * 4, &v, 4);
        if (v >= head[1])
            return refuse(im, "the hash table names symbol %u of %u", v, head[1]);
    }
    /* The first table read (check_symbols): nothing has set nsyms yet. */
    d->nsyms = head[1];
    return 0;
}

/* The GNU hash table, walked as a lookup walks it: every bucket's chain
 * inside the file; d->nsyms becomes one past the highest symbol reached. */
static int check_gnu_hash(struct image *im, struct dyn *d)
{
    uint32_t head[4]; /* nbuckets, symoffset, bloom words, bloom shift */
    uint64_t buckets, b, walked = 0, nsyms;

    if (get_at(im, d->gnu_hash, head, sizeof(head)) != 0)
        return refuse(im, "the GNU hash table is not inside the file");
    if (head[0] == 0 || head[2] == 0 || (head[2] & (head[2] - 1)) != 0)
        return refuse(im,
                      "the GNU hash table has %u buckets and %u bloom words (need at least "
                      "one of each, bloom words a power of two)",
                      head[0], head[2]);
    buckets = d->gnu_hash + 16 + (uint64_t)head[2] * sizeof(ElfW(Addr));
    if (file_at(im, d->gnu_hash, buckets - d->gnu_hash + (uint64_t)head[0] * 4, &b) != 0)
        return refuse(im, "the GNU hash table's buckets are not inside the file");
    nsyms = head[1];
    for (b = 0; b < head[0]; b++) {
        uint32_t sym, chain;

        (void)get_at(im, buckets + b * 4, &sym, 4);
        if (sym == 0)
            continue;
        if (sym < head[1])
            return refuse(im, "GNU hash bucket %llu names symbol %u, below the first hashed (%u)",
                          (unsigned long long)b, sym, head[1]);
        do {
            uint64_t at = buckets + (uint64_t)head[0] * 4 + ((uint64_t)sym - head[1]) * 4;

            if (get_at(im, at, &chain, 4) != 0 || ++walked > im->size / 4)
                return refuse(im, "GNU hash chain of bucket %llu runs out of the file",
                              (unsigned long long)b);
            sym++;
        } while ((chain & 1) == 0);
        if (sym > nsyms)
            nsyms = sym;
    }
    if (nsyms > d->nsyms)
        d->nsyms = nsyms;
    return 0;
}

/* Symbol idx inside the file, its name in the string table, a function
 * in code, and (with symbol versions) its version defined: the linker
 * reads all of that for every symbol it looks up or a relocation names. */
static int check_symbol(struct image *im, const struct dyn *d, uint64_t idx)
{
    ElfW(Sym) s;
    unsigned type;
    uint16_t ver;

    if (get_at(im, d->symtab + idx * sizeof(s), &s, sizeof(s)) != 0)
        return refuse(im, "symbol %llu is not inside the file", (unsigned long long)idx);
    if (s.st_name != 0 && !string_ok(d, s.st_name))
        return refuse(im, "symbol %llu's name is not in the string table", (unsigned long long)idx);
    if (d->versym != 0) {
        if (get_at(im, d->versym + idx * 2, &ver, 2) != 0)
            return refuse(im, "symbol %llu's version is not inside the file",
                          (unsigned long long)idx);
        /* The linker indexes its table of versions, made from the version
         * records, by this without a bound of its own. */
        if ((ver & 0x7fffu) > d->max_version && (ver & 0x7fffu) > 1)
            return refuse(im, "symbol %llu has version %u, above the highest defined (%u)",
                          (unsigned long long)idx, ver & 0x7fffu, d->max_version);
    }
    /* A call through a function symbol defined here must land in code
     * (a TLS symbol is never a function: its value is no address). */
    type = SYM_TYPE(s.st_info);
    if (s.st_shndx == SHN_UNDEF || s.st_shndx == SHN_ABS || s.st_value == 0)
        return 0;
    if ((type == STT_FUNC || type == STT_GNU_IFUNC) && !in_memory(im, s.st_value, 1, PF_X))
        return refuse(im, "function symbol %llu (\"%s\") is not in an executable segment",
                      (unsigned long long)idx, (const char *)im->p + d->stroff + s.st_name);
    return 0;
}

/* The hash tables, and every symbol a lookup through them can reach. */
static int check_symbols(struct image *im, struct dyn *d)
{
    uint64_t i;
    int rc;

    if (d->symtab == 0)
        return refuse(im, "no symbol table");
    if (d->syment != 0 && d->syment != sizeof(ElfW(Sym)))
        return refuse(im, "symbol entries of %llu bytes (expected %zu)",
                      (unsigned long long)d->syment, sizeof(ElfW(Sym)));
    if (d->hash == 0 && d->gnu_hash == 0)
        return refuse(im, "no symbol hash table");
    if (d->hash != 0 && check_sysv_hash(im, d) != 0)
        return -EINVAL;
    if (d->gnu_hash != 0 && check_gnu_hash(im, d) != 0)
        return -EINVAL;
    for (i = 0; i < d->nsyms; i++)
        if ((rc = check_symbol(im, d, i)) != 0)
            return rc;
    return 0;
}

/* Counts one more version record read: -EINVAL past MAX_VERSION_RECORDS. */
static int one_more_record(struct image *im, uint64_t *walked)
{
    if (++*walked <= MAX_VERSION_RECORDS)
        return 0;
    return refuse(im, "more than %d version records (a shared object has a few)",
                  MAX_VERSION_RECORDS);
}

/* The version records the linker walks (it follows vn_next / vna_next
 * and vd_next / vda_next until a zero, ignoring the counts): each inside
 * the file, each name in the string table; d->max_version becomes the
 * highest version index they define, which bounds the symbol versions. */
static int check_verneed(struct image *im, struct dyn *d)
{
    uint64_t at = d->verneed, walked = 0;

    for (;;) {
        ElfW(Verneed) vn;
        uint64_t aux;

        if (one_more_record(im, &walked) != 0)
            return -EINVAL;
        if (get_at(im, at, &vn, sizeof(vn)) != 0)
            return refuse(im, "a version dependency record (at %#llx) is not inside the file",
                          (unsigned long long)at);
        if (!string_ok(d, vn.vn_file))
            return refuse(im, "a version dependency names no string in the string table");
        for (aux = at + vn.vn_aux;;) {
            ElfW(Vernaux) va;

            if (one_more_record(im, &walked) != 0)
                return -EINVAL;
            if (get_at(im, aux, &va, sizeof(va)) != 0)
                return refuse(im, "a needed-version record (at %#llx) is not inside the file",
                              (unsigned long long)aux);
            if (!string_ok(d, va.vna_name))
                return refuse(im, "a needed version names no string in the string table");
            if ((va.vna_other & 0x7fffu) > d->max_version)
                d->max_version = va.vna_other & 0x7fffu;
            if (va.vna_next == 0)
                break;
            aux += va.vna_next;
        }
        if (vn.vn_next == 0)
            return 0;
        at += vn.vn_next;
    }
}

static int check_verdef(struct image *im, struct dyn *d)
{
    uint64_t at = d->verdef, walked = 0;

    for (;;) {
        ElfW(Verdef) vd;
        ElfW(Verdaux) va;

        if (one_more_record(im, &walked) != 0)
            return -EINVAL;
        if (get_at(im, at, &vd, sizeof(vd)) != 0)
            return refuse(im, "a version definition record (at %#llx) is not inside the file",
                          (unsigned long long)at);
        if (get_at(im, at + vd.vd_aux, &va, sizeof(va)) != 0 || !string_ok(d, va.vda_name))
            return refuse(im, "a version definition's name is not inside the file");
        if ((vd.vd_ndx & 0x7fffu) > d->max_version)
            d->max_version = vd.vd_ndx & 0x7fffu;
        if (vd.vd_next == 0)
            return 0;
        at += vd.vd_next;
    }
}

static int check_versions(struct image *im, struct dyn *d)
{

    if (d->verneed != 0 && check_verneed(im, d) != 0)
        return -EINVAL;
    if (d->verdef != 0 && check_verdef(im, d) != 0)
        return -EINVAL;
    /* Without version records the linker has no table of versions to
     * index by a symbol's version. */
    if (d->versym != 0 && d->verneed == 0 && d->verdef == 0)
        return refuse(im, "symbol versions without any version records");
    return 0;
}

/* A table of n-byte relocation entries at addr, size bytes: inside the
 * file, each target a word of writable memory (any memory with text
 * relocations), each symbol one the symbol table holds.  No size, no
 * table: the linker reads none, whatever the address says. */
static int check_reloc_table(struct image *im, const struct dyn *d, const char *what,
                             ElfW(Addr) addr, uint64_t size, uint64_t ent, uint64_t want)
{
    uint64_t off, i;

    if (size == 0)
        return 0;
    if (ent != want)
        return refuse(im, "%s entries of %llu bytes (expected %llu)", what, (unsigned long long)ent,
                      (unsigned long long)want);
    if (size % want != 0 || file_at(im, addr, size, &off) != 0)
        return refuse(im, "the %s table (%#llx, %llu bytes) is not inside the file", what,
                      (unsigned long long)addr, (unsigned long long)size);
    for (i = 0; i < size / want; i++) {
        ElfW(Addr) target;
        ElfW(Xword) info;

        /* r_offset and r_info lead both ElfW(Rel) and ElfW(Rela). */
        memcpy(&target, im->p + off + i * want, sizeof(target));
        memcpy(&info, im->p + off + i * want + sizeof(target), sizeof(info));
        if (REL_TYPE(info) == 0)
            continue;
        if (!in_memory(im, target, sizeof(ElfW(Addr)), d->textrel ? 0 : PF_W))
            return refuse(im, "%s relocation %llu writes to %#llx, outside %s memory", what,
                          (unsigned long long)i, (unsigned long long)target,
                          d->textrel ? "the object's" : "its writable");
        if (REL_SYM(info) != 0 && check_symbol(im, d, REL_SYM(info)) != 0)
            return -EINVAL;
    }
    return 0;
}

/* Relative relocations packed as addresses and bitmaps (DT_RELR). */
static int check_relr(struct image *im, const struct dyn *d)
{
    const uint64_t w = sizeof(ElfW(Addr));
    uint64_t off, i, base = 0;

    if (d->relrsz == 0)
        return 0;
    if (d->relrent != w)
        return refuse(im, "packed relocation entries of %llu bytes (expected %llu)",
                      (unsigned long long)d->relrent, (unsigned long long)w);
    if (d->relrsz % w != 0 || file_at(im, d->relr, d->relrsz, &off) != 0)
        return refuse(im, "the packed relocation table is not inside the file");
    for (i = 0; i < d->relrsz / w; i++) {
        ElfW(Addr) e;
        unsigned bit;

        memcpy(&e, im->p + off + i * w, w);
        if ((e & 1) == 0) {
            if (!in_memory(im, e, w, d->textrel ? 0 : PF_W))
                return refuse(im, "packed relocation %llu writes outside writable memory",
                              (unsigned long long)i);
            base = e + w;
            continue;
        }
        for (bit = 1; bit < 8 * w; bit++)
            if (((e >> bit) & 1) && !in_memory(im, base + (bit - 1) * w, w, d->textrel ? 0 : PF_W))
                return refuse(im, "packed relocation %llu writes outside writable memory",
                              (unsigned long long)i);
        base += (8 * w - 1) * w;
    }
    return 0;
}

static int check_relocations(struct image *im, const struct dyn *d)
{
    const uint64_t rela = sizeof(ElfW(Rela)), rel = sizeof(ElfW(Rel));
    int rc;

    if ((rc = check_reloc_table(im, d, "RELA", d->rela, d->relasz, d->relaent, rela)) != 0 ||
        (rc = check_reloc_table(im, d, "REL", d->rel, d->relsz, d->relent, rel)) != 0)
        return rc;
    if (d->pltrelsz != 0) {
        if (d->pltrel != DT_RELA && d->pltrel != DT_REL)
            return refuse(im, "PLT relocations of unknown kind %llu",
                          (unsigned long long)d->pltrel);
        rc =
            check_reloc_table(im, d, "PLT", d->jmprel, d->pltrelsz,
                              d->pltrel == DT_RELA ? rela : rel, d->pltrel == DT_RELA ? rela : rel);
        if (rc != 0)
            return rc;
    }
    return check_relr(im, d);
}

/* What the linker calls or reads when it runs constructors. */
static int check_init(struct image *im, const struct dyn *d)
{
    const struct {
        const char *what;
        ElfW(Addr) addr;
        uint64_t size;
        ElfW(Word) flags;
    } spans[] = {
        { "DT_INIT", d->init, 1, PF_X },
        { "DT_FINI", d->fini, 1, PF_X },
        { "DT_INIT_ARRAY", d->init_array, d->init_arraysz, 0 },
        { "DT_FINI_ARRAY", d->fini_array, d->fini_arraysz, 0 },
        { "DT_PREINIT_ARRAY", d->preinit_array, d->preinit_arraysz, 0 },
        { "DT_PLTGOT", d->pltgot, 1, 0 },
    };
    size_t i;

    for (i = 0; i < sizeof(spans) / sizeof(spans[0]); i++) {
        if (spans[i].addr == 0 && spans[i].size <= 1)
            continue;
        if (!in_memory(im, spans[i].addr, spans[i].size, spans[i].flags))
            return refuse(im, "%s (%#llx, %llu bytes) is outside the object's %smemory",
                          spans[i].what, (unsigned long long)spans[i].addr,
                          (unsigned long long)spans[i].size, spans[i].flags ? "executable " : "");
    }
    return 0;
}

int cairn_plugin_elf_check(const void *image, size_t size, char *why, size_t why_len)
{
    struct image im = { .p = image, .size = size, .why = why, .why_len = why_len };
    struct dyn d = { 0 };
    int rc;

    if ((rc = check_header(&im)) != 0 || (rc = check_segments(&im)) != 0 ||
        (rc = read_dynamic(&im, &d)) != 0 || (rc = check_versions(&im, &d)) != 0 ||
        (rc = check_symbols(&im, &d)) != 0 || (rc = check_relocations(&im, &d)) != 0 ||
        (rc = check_init(&im, &d)) != 0)
        return rc;
    return 0;
}
