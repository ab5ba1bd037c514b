/*
 * exit_in_constructor - sound ELF, sound descriptor, but a constructor
 * that ends the process with exit status 7: loading it would end the
 * daemon quietly.  The loader's probe process must end instead.
 */
#include <unistd.h>

#define FIXTURE_NAME    "exit-in-constructor"
#define FIXTURE_ALIASES NULL
#include "fixture.h"

__attribute__((constructor)) static void exit_at_load(void)
{
    _exit(7);
}
