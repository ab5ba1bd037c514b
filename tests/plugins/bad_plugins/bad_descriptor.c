/*
 * bad_descriptor - broken in one way: the ABI version and size are right,
 * but solve is NULL, so the descriptor is malformed.
 */
#define FIXTURE_NAME    "bad-descriptor"
#define FIXTURE_ALIASES "bad-descriptor-alias", NULL
#define FIXTURE_SOLVE   NULL
#include "fixture.h"
