/*
 * bad_abi - broken in one way: abi_major is CAIRN_PLUGIN_ABI_MAJOR + 1.
 * Everything else is a valid plugin ("bad-abi"), so the loader must refuse
 * it on the version check alone, naming the file and "ABI version".
 */
#define FIXTURE_NAME      "bad-abi"
#define FIXTURE_ALIASES   "bad-abi-alias", NULL
#define FIXTURE_ABI_MAJOR (CAIRN_PLUGIN_ABI_MAJOR + 1)
#include "fixture.h"
