/*
 * reserved_alias - broken in one way: aliased "none", the bucket
 * summaries, metrics and reports keep for records whose variant is not
 * known.
 */
#define FIXTURE_NAME    "reserved-alias"
#define FIXTURE_ALIASES "ra", "none", NULL
#include "fixture.h"
