/*
 * null_entry - loads cleanly, but its entry function returns NULL: there
 * is no descriptor to read.
 */
#include <stddef.h>

#include <cairn/plugin.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return NULL;
}
