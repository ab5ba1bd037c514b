/*
 * exit_code_in_constructor - sound ELF, sound descriptor, but a constructor
 * that calls exit(FIXTURE_EXIT_CODE), built twice: with 0 (the status of a
 * clean load) and with 3.  exit(), not _exit(): the loading process's
 * atexit handlers run too, as they would for a damaged plugin whose call
 * was redirected to exit.  No exit status may pass for "loaded".
 */
#include <stdlib.h>

#define FIXTURE_NAME    "exit-code-in-constructor"
#define FIXTURE_ALIASES NULL
#include "fixture.h"

__attribute__((constructor)) static void exit_at_load(void)
{
    exit(FIXTURE_EXIT_CODE);
}
