/*
 * slow - plugin "slow" (alias "7003"): the sum of values, after sleeping
 * values[0] milliseconds (0 .. 1000).  A job that must still be running
 * some seconds after it is claimed is built from these records, so the
 * tests that watch a job in flight do not depend on how fast a real
 * solver has become.  It sleeps rather than spins: the wait costs no CPU.
 */
#include <stdint.h>
#include <time.h>

#include <cairn/plugin.h>

static int slow_solve(const struct cairn_problem *problem, struct cairn_result *result,
                      void *scratch, char *msg, size_t msg_len)
{
    int64_t sum = 0, ms = problem->inputs[0].v[0];
    size_t i;

    (void)scratch;
    (void)msg;
    (void)msg_len;
    if (ms > 0) {
        struct timespec ts = { (time_t)(ms > 1000 ? 1 : ms / 1000),
                               (long)(ms > 1000 ? 0 : ms % 1000) * 1000000L };
        while (nanosleep(&ts, &ts) != 0)
            ; /* interrupted: sleep the rest */
    }
    for (i = 0; i < problem->inputs[0].n; i++)
        sum += problem->inputs[0].v[i];
    result->answer = sum;
    result->n_moves = 0;
    return CAIRN_OK;
}

#define FIXTURE_NAME    "slow"
#define FIXTURE_ALIASES "7003", NULL
#define FIXTURE_VERSION "1.0"
#define FIXTURE_SOLVE   slow_solve
#include "fixture.h"
