/*
 * plugin_elf.h - vet a plugin's ELF image before the dynamic linker maps
 * it.
 *
 * The dynamic linker trusts the file: it maps each load segment as the
 * program headers describe it and reads the dynamic section, the symbol
 * and string tables and the relocations through that mapping.  A file cut
 * short (a copy interrupted, a full disk, `head -c`) leaves segments that
 * reach past the end of the file, and the first touch of such a page is a
 * SIGBUS that kills the whole daemon.  Corrupted headers send the linker
 * to addresses nothing is mapped at (SIGSEGV).  This check reads the same
 * structures the linker reads, through bounds checks, and refuses the file
 * with what is wrong and where, before anything is mapped.
 *
 * It cannot tell damaged code from code: a file whose headers are sound
 * but whose instructions are not is caught by plugin_probe.h instead.
 */
#ifndef CAIRN_PLUGIN_ELF_H
#define CAIRN_PLUGIN_ELF_H

#include <stddef.h>

/*
 * NAME     cairn_plugin_elf_check - is this a shared object the dynamic
 *          linker of this process can map without faulting?
 * ARGUMENTS image and size are the whole file; why (why_len bytes)
 *          receives the reason on failure
 * RETURNS  0, or -EINVAL with why filled, e.g. "truncated: load segment 2
 *          needs bytes 4096..8497, the file has 1138 bytes"
 * NOTES    Checks: the ELF header (class, byte order, type, machine of
 *          this process); the program header table and every segment
 *          inside the file; load segments ordered, aligned and not
 *          overlapping; the segments the linker reads from memory
 *          (dynamic, notes, TLS image, program headers) inside a load
 *          segment's file-backed bytes; the dynamic entries the linker
 *          follows (string, symbol, hash, version and relocation tables,
 *          init and fini arrays) inside the image, with every string,
 *          symbol, version record and relocation target in bounds.
 *          Reads nothing outside [image, image + size).
 */
int cairn_plugin_elf_check(const void *image, size_t size, char *why, size_t why_len);

#endif /* CAIRN_PLUGIN_ELF_H */
