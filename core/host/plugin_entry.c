/*
 * plugin_entry.c - a loaded plugin's entry function and descriptor, read
 * without trusting either (see plugin_entry.h).
 */
#include "plugin_entry.h"

#include <dlfcn.h>
#include <elf.h>
#include <errno.h>
#include <link.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct span {
    const void *base; /* the object's dli_fbase */
    uintptr_t from, to;
    int inside;
};

static int span_in_object(struct dl_phdr_info *info, size_t size, void *data)
{
    struct span *sp = data;
    ElfW(Half) i;

    (void)size;
    for (i = 0; i < info->dlpi_phnum; i++) {
        const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
        uintptr_t lo = (uintptr_t)info->dlpi_addr + ph->p_vaddr, hi = lo + ph->p_memsz;

        /* The segment holding the start must hold the end too. */
        if (ph->p_type == PT_LOAD && (ph->p_flags & PF_R) && sp->from >= lo && sp->from < hi) {
            Dl_info own;

            sp->inside =
                sp->to <= hi && dladdr((const void *)lo, &own) != 0 && own.dli_fbase == sp->base;
            return 1;
        }
    }
    return 0;
}

/* 1 when the len bytes at p lie in one readable segment of the object sym
 * belongs to.  The entry's descriptor is a static of the plugin, so this
 * holds for every sound one; a damaged entry may return any value (even
 * another one in the probe process than here: a register it never set),
 * and it is checked before a byte of it is read. */
static int in_object(const void *sym, const void *p, size_t len)
{
    struct span sp = { .from = (uintptr_t)p, .to = (uintptr_t)p + len };
    Dl_info a;

    if (p == NULL || sp.to < sp.from || dladdr(sym, &a) == 0)
        return 0;
    sp.base = a.dli_fbase;
    dl_iterate_phdr(span_in_object, &sp);
    return sp.inside;
}

/* The entry's descriptor, once its header and what adopt() copies of it
 * are in the object; NULL when the entry returned NULL or wild memory
 * (*wild set). */
const struct cairn_plugin *cairn_plugin_descriptor(cairn_plugin_entry_fn entry, const void *sym,
                                                   int *wild)
{
    const struct cairn_plugin *d = entry();
    size_t n;

    *wild = 0;
    if (d == NULL)
        return NULL;
    if (!in_object(sym, d, offsetof(struct cairn_plugin, name))) {
        *wild = 1;
        return NULL;
    }
    n = d->struct_size < sizeof(*d) ? d->struct_size : sizeof(*d);
    if (!in_object(sym, d, n)) {
        *wild = 1;
        return NULL;
    }
    return d;
}

/* What the probe process does with a plugin before it is loaded for
 * real: the reads load_one() makes of it, any of which may fault. */
int cairn_plugin_exercise(void *dl)
{
    struct cairn_plugin copy;
    cairn_plugin_entry_fn entry;
    const struct cairn_plugin *d;
    char why[256];
    void *sym = dlsym(dl, CAIRN_PLUGIN_ENTRY_SYMBOL);
    int wild;

    if (sym == NULL)
        return -EINVAL;
    memcpy(&entry, &sym, sizeof(entry));
    d = cairn_plugin_descriptor(entry, sym, &wild);
    return d != NULL ? cairn_plugin_adopt(d, &copy, why, sizeof(why)) : -EINVAL;
}
