/*
 * versioned - one source, built twice: versioned-1.so (VERSION_NUM 1,
 * version "1.0") and versioned-2.so (VERSION_NUM 2, version "2.0").  Both
 * are plugin "versioned" (alias "7001"); the answer is
 * 1000 * VERSION_NUM + the sum of values, so every result line says which
 * build's code produced it.
 */
#include <stdint.h>

#include <cairn/plugin.h>

#ifndef VERSION_NUM
#error "build with -DVERSION_NUM=1 or 2"
#endif
#define STR_(x) #x
#define STR(x)  STR_(x)

/* The plain sum of values, defined by fixture.h (included last). */
static int fixture_sum(const struct cairn_problem *problem, struct cairn_result *result,
                       void *scratch, char *msg, size_t msg_len);

static int versioned_solve(const struct cairn_problem *problem, struct cairn_result *result,
                           void *scratch, char *msg, size_t msg_len)
{
    int rc = fixture_sum(problem, result, scratch, msg, msg_len);

    result->answer += 1000 * VERSION_NUM;
    return rc;
}

#define FIXTURE_NAME    "versioned"
#define FIXTURE_ALIASES "7001", NULL
#define FIXTURE_VERSION STR(VERSION_NUM) ".0"
#define FIXTURE_SOLVE   versioned_solve
#include "fixture.h"
