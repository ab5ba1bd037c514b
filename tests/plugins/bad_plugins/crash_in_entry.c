/*
 * crash_in_entry - loads cleanly, but its entry function returns a wild
 * pointer: reading the descriptor would fault.  The loader must refuse it
 * before reading a byte there (it checks that the descriptor lies in the
 * plugin's own readable segments), in the probe and in the daemon alike.
 */
#include <stdint.h>

#include <cairn/plugin.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return (const struct cairn_plugin *)(uintptr_t)16;
}
