/*
 * good_extra - a valid tiny plugin ("good-extra", alias "9999") that sums
 * one integer array.  The loader tests use it to show that good plugins are
 * still loaded when a bad one beside them is refused.
 */
#define FIXTURE_NAME    "good-extra"
#define FIXTURE_ALIASES "9999", NULL
#include "fixture.h"
