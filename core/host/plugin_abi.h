/*
 * plugin_abi.h - vet a plugin's descriptor: its ABI version, its size and
 * every field, and make the host's normalized copy of it.  A name or alias
 * the registry reserves (CAIRN_VARIANT_UNRESOLVED, variant.h) is refused.
 */
#ifndef CAIRN_PLUGIN_ABI_H
#define CAIRN_PLUGIN_ABI_H

#include <stddef.h>

#include "cairn/plugin.h"

/*
 * NAME     cairn_plugin_adopt - vet a descriptor and make the host's copy
 * ARGUMENTS raw is what the plugin's entry function returned; out receives
 *          the copy; why (why_len bytes) the reason when it is refused
 * RETURNS  0, or -EINVAL with why filled: another major, a newer minor
 *          (both name the plugin's version and this host's), a struct_size
 *          too small for the declared minor, or a malformed descriptor
 *          (naming the field)
 * NOTES    Reads abi_major, abi_minor and struct_size first and nothing
 *          else until they are known good; then copies min(struct_size,
 *          sizeof *out) bytes into a zero-filled *out and gives the fields
 *          an older minor lacks their old meaning (1.0: equal_length 0,
 *          totals CAIRN_TOTALS_ALL; before 1.2: no analysis), whatever
 *          struct_size covers.  abi_minor and struct_size keep the
 *          plugin's values.  A feature newer than the declared minor (a
 *          scalar input in a 1.0 descriptor) is refused.
 */
int cairn_plugin_adopt(const struct cairn_plugin *raw, struct cairn_plugin *out, char *why,
                       size_t why_len);

#endif /* CAIRN_PLUGIN_ABI_H */
