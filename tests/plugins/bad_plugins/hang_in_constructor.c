/*
 * hang_in_constructor - sound ELF, sound descriptor, but a constructor
 * that never returns (a dead lock at load time, say): loading it would
 * hang the daemon.  The loader's probe process must be given up on after
 * CAIRN_PLUGIN_PROBE_SECONDS instead.  It sleeps rather than spins.
 */
#include <unistd.h>

#define FIXTURE_NAME    "hang-in-constructor"
#define FIXTURE_ALIASES NULL
#include "fixture.h"

__attribute__((constructor)) static void hang_at_load(void)
{
    for (;;)
        pause();
}
