/*
 * nodelete - not broken: a valid plugin linked with -z nodelete, so the
 * dynamic linker keeps it loaded after dlclose() and goes on answering to
 * the name it was loaded under.  Built twice (nodelete_1.so,
 * nodelete_2.so) with FIXTURE_VERSION "1" and "2": a reload must run the
 * second, not the one still loaded.
 */
#define FIXTURE_NAME    "nodelete"
#define FIXTURE_ALIASES NULL
#include "fixture.h"
