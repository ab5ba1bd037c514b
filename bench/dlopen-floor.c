/*
 * dlopen-floor.c - the start-up floor: what loading a plugin set costs with
 * nothing around it.  Each file given is dlopen'd (RTLD_NOW | RTLD_LOCAL,
 * as a host that resolves everything up front would), its entry symbol
 * looked up and called once.  cairnd's start-up with the same files, which
 * also vets, probes and copies them, is measured against this.
 *
 * usage: bench-dlopen-floor PLUGIN.so...
 * Exits 0, or 1 naming the first file that could not be loaded.
 */
#include <dlfcn.h>
#include <stdio.h>

#include "cairn/plugin.h"

int main(int argc, char **argv)
{
    int i;

    if (argc < 2) {
        fprintf(stderr, "usage: bench-dlopen-floor PLUGIN.so...\n");
        return 2;
    }
    for (i = 1; i < argc; i++) {
        void *h = dlopen(argv[i], RTLD_NOW | RTLD_LOCAL);
        cairn_plugin_entry_fn entry;

        if (h == NULL) {
            fprintf(stderr, "bench-dlopen-floor: %s\n", dlerror());
            return 1;
        }
        /* POSIX's way from an object pointer to a function pointer. */
        *(void **)&entry = dlsym(h, CAIRN_PLUGIN_ENTRY_SYMBOL);
        if (entry == NULL) {
            fprintf(stderr, "bench-dlopen-floor: %s: no %s\n", argv[i], CAIRN_PLUGIN_ENTRY_SYMBOL);
            return 1;
        }
        if (entry() == NULL) {
            fprintf(stderr, "bench-dlopen-floor: %s: %s returned NULL\n", argv[i],
                    CAIRN_PLUGIN_ENTRY_SYMBOL);
            return 1;
        }
    }
    return 0;
}
