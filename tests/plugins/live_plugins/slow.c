/*
 * slow - plugin "slow" (alias "7003"): the sum of values, after sleeping
 * values[0] milliseconds (0 .. 1000).  A job that must still be running
 * some seconds after it is claimed is built from these records, so the
 * tests that watch a job in flight do not depend on how fast a real
 * solver has become.  It sleeps rather than spins: the wait costs no CPU.
 * It sleeps in slices of 100 ms, so a record in flight when the daemon is
 * stopped (SIGSTOP) is still in flight once it is continued, as a solver
 * that computes would be: a stop swallows one slice, not the whole sleep.
 * While the file $CAIRN_SLOW_GATE exists, each record then waits for it
 * to go: a test that must act while the job is still running holds it
 * there for as long as it needs, however fast or slow the machine.
 */
#include <stdint.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <cairn/plugin.h>

/* The plain sum of values, defined by fixture.h (included last). */
static int fixture_sum(const struct cairn_problem *problem, struct cairn_result *result,
                       void *scratch, char *msg, size_t msg_len);

static void wait_for_the_gate(void)
{
    const struct timespec tick = { 0, 10 * 1000000L };
    const char *gate = getenv("CAIRN_SLOW_GATE");

    while (gate != NULL && access(gate, F_OK) == 0)
        nanosleep(&tick, NULL);
}

static int slow_solve(const struct cairn_problem *problem, struct cairn_result *result,
                      void *scratch, char *msg, size_t msg_len)
{
    int64_t ms = problem->inputs[0].v[0];

    ms = ms > 1000 ? 1000 : ms;
    while (ms > 0) {
        int64_t slice = ms > 100 ? 100 : ms;
        struct timespec ts = { 0, (long)slice * 1000000L };

        while (nanosleep(&ts, &ts) != 0)
            ; /* interrupted: sleep the rest */
        ms -= slice;
    }
    wait_for_the_gate();
    return fixture_sum(problem, result, scratch, msg, msg_len);
}

#define FIXTURE_NAME    "slow"
#define FIXTURE_ALIASES "7003", NULL
#define FIXTURE_VERSION "1.0"
#define FIXTURE_SOLVE   slow_solve
#include "fixture.h"
