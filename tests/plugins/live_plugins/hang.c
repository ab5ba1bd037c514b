/*
 * hang - plugin "hang" (alias "7002"): the sum of values, except that a
 * record whose first value is 666 never returns from solve(), the way a
 * plugin stuck in an endless loop or a dead lock does.  It sleeps rather
 * than spins, so the tests do not burn the machine's CPUs while they wait.
 */
#include <stdint.h>
#include <unistd.h>

#include <cairn/plugin.h>

#define HANG_VALUE 666

/* The plain sum of values, defined by fixture.h (included last). */
static int fixture_sum(const struct cairn_problem *problem, struct cairn_result *result,
                       void *scratch, char *msg, size_t msg_len);

static int hang_solve(const struct cairn_problem *problem, struct cairn_result *result,
                      void *scratch, char *msg, size_t msg_len)
{
    if (problem->inputs[0].n > 0 && problem->inputs[0].v[0] == HANG_VALUE)
        for (;;)
            sleep(3600);
    return fixture_sum(problem, result, scratch, msg, msg_len);
}

#define FIXTURE_NAME    "hang"
#define FIXTURE_ALIASES "7002", NULL
#define FIXTURE_VERSION "1.0"
#define FIXTURE_SOLVE   hang_solve
#include "fixture.h"
