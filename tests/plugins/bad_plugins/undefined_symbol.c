/*
 * undefined_symbol - broken in one way: solve() calls
 * cairn_test_symbol_that_exists_nowhere(), defined in no library, so
 * dlopen(RTLD_NOW) fails before the entry function can be looked up.  It is
 * linked with undefined symbols allowed (see meson.build).
 */
#include <cairn/plugin.h>

extern int64_t cairn_test_symbol_that_exists_nowhere(int64_t x);

static int us_solve(const struct cairn_problem *problem, struct cairn_result *result, void *scratch,
                    char *msg, size_t msg_len)
{
    (void)scratch;
    (void)msg;
    (void)msg_len;
    result->answer = cairn_test_symbol_that_exists_nowhere((int64_t)problem->n_inputs);
    return CAIRN_OK;
}

#define FIXTURE_NAME    "undefined-symbol"
#define FIXTURE_ALIASES "undefined-symbol-alias", NULL
#define FIXTURE_SOLVE   us_solve
#include "fixture.h"
