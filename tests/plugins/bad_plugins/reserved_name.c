/*
 * reserved_name - broken in one way: named "none", the bucket summaries,
 * metrics and reports keep for records whose variant is not known.
 */
#define FIXTURE_NAME    "none"
#define FIXTURE_ALIASES NULL
#include "fixture.h"
