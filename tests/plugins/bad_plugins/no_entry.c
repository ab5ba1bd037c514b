/*
 * no_entry - broken in one way: a well-formed descriptor, but the exported
 * function is named cairn_plugin_entry_v2, not cairn_plugin_entry, so the
 * loader finds no entry symbol.
 */
#define FIXTURE_NAME    "no-entry"
#define FIXTURE_ALIASES "no-entry-alias", NULL
#define FIXTURE_ENTRY   cairn_plugin_entry_v2
#include "fixture.h"
