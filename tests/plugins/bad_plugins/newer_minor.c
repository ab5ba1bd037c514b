/*
 * newer_minor - broken in one way: abi_minor is CAIRN_PLUGIN_ABI_MINOR + 1,
 * a minor this cairnd does not speak yet.  Its descriptor could hold fields
 * the host cannot read, so the loader must refuse it, naming both versions.
 */
#define FIXTURE_NAME      "newer-minor"
#define FIXTURE_ALIASES   "newer-minor-alias", NULL
#define FIXTURE_ABI_MINOR (CAIRN_PLUGIN_ABI_MINOR + 1)
#include "fixture.h"
