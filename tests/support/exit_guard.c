/*
 * exit_guard.c - see exit_guard.h.
 */
#include "exit_guard.h"

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* The process running a test, 0 between tests.  Set in that process only
 * (a checked fixture runs in the test's fork), so nothing is shared. */
static pid_t armed_in;
static int registered;

static void guard(void)
{
    if (armed_in != 0 && getpid() == armed_in) {
        fputs("exit_guard: the test process exited before its test returned\n", stderr);
        _exit(TH_EXIT_GUARD_STATUS);
    }
}

static void arm(void)
{
    if (!registered && atexit(guard) == 0)
        registered = 1;
    armed_in = getpid();
}

static void disarm(void)
{
    armed_in = 0;
}

TCase *th_guarded_tcase_create(const char *name)
{
    TCase *tc = (tcase_create)(name); /* Check's own, not the macro */

    tcase_add_checked_fixture(tc, arm, disarm);
    return tc;
}
