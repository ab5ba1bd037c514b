/*
 * dup_alias - broken in one way: a valid plugin "dup-alias" whose alias list
 * contains "877", the alias stone-game already holds.  The loader must
 * refuse whichever comes second, naming both files.
 */
#define FIXTURE_NAME    "dup-alias"
#define FIXTURE_ALIASES "dup-alias-1", "877", NULL
#include "fixture.h"
