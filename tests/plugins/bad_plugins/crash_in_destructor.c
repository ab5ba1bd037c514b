/*
 * crash_in_destructor - sound ELF, sound descriptor, a constructor that
 * does nothing wrong, and a destructor that faults: the daemon would die
 * of it at the next reload or at exit.  The probe process runs the
 * destructors too, and must die of it instead.
 */
#include <signal.h>

#define FIXTURE_NAME    "crash-in-destructor"
#define FIXTURE_ALIASES NULL
#include "fixture.h"

__attribute__((destructor)) static void fault_at_unload(void)
{
    raise(SIGSEGV);
}
