/*
 * crash_in_entry - loads cleanly, but its entry function returns a wild
 * pointer: reading the descriptor faults.  The loader's probe process
 * must die of it instead of the daemon.
 */
#include <stdint.h>

#include <cairn/plugin.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return (const struct cairn_plugin *)(uintptr_t)16;
}
