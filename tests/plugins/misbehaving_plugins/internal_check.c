/*
 * internal_check.c - a plugin that loads fine but whose check() reports
 * CAIRN_E_INTERNAL (its own failure, not a rule of the game) whenever the
 * first value is 13: the record must get "internal", not "constraint".
 */
#include <stdio.h>

#include <cairn/plugin.h>

static int internal_check(const struct cairn_problem *problem, char *msg, size_t msg_len)
{
    if (problem->inputs[0].n > 0 && problem->inputs[0].v[0] == 13) {
        snprintf(msg, msg_len, "lookup table not initialised");
        return CAIRN_E_INTERNAL;
    }
    return CAIRN_OK;
}

#define FIXTURE_NAME    "internal-check"
#define FIXTURE_ALIASES "internal", NULL
#define FIXTURE_CHECK   internal_check
#include "../bad_plugins/fixture.h"
