/*
 * crash_in_constructor - sound ELF, sound descriptor, but a constructor
 * that faults: loading it kills whoever loads it.  The loader's probe
 * process must die of it instead of the daemon.
 */
#include <signal.h>

#define FIXTURE_NAME    "crash-in-constructor"
#define FIXTURE_ALIASES NULL
#include "fixture.h"

__attribute__((constructor)) static void fault_at_load(void)
{
    raise(SIGSEGV);
}
