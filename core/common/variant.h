/*
 * variant.h - the variant name the summary format reserves: the bucket of
 * records whose variant was never resolved, in a summary's by_variant
 * (docs/contract.md, "Summaries"), the metrics' variant label and the
 * client's report.  The plugin host refuses a plugin named or aliased so
 * (plugin_abi.c), so none is merged with it.
 */
#ifndef CAIRN_VARIANT_H
#define CAIRN_VARIANT_H

#define CAIRN_VARIANT_UNRESOLVED "none"

#endif /* CAIRN_VARIANT_H */
