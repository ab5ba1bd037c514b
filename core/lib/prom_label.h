/*
 * prom_label.h - label names and values for the Prometheus text exposition
 * format: the check a configured label passes (config.c) and the escaped
 * name="value" text every series is written with (metrics.c).
 */
#ifndef CAIRN_PROM_LABEL_H
#define CAIRN_PROM_LABEL_H

#include "util.h"

/*
 * NAME     cairn_prom_label_check - may a configured label be called name?
 * RETURNS  0; -EINVAL with *why (static text) when name is not a Prometheus
 *          label name ([a-zA-Z_][a-zA-Z0-9_]*), starts with "__" (reserved
 *          for Prometheus), or is a label cairn sets itself (status,
 *          variant, code, name, version, le).
 */
int cairn_prom_label_check(const char *name, const char **why);

/* Appends name="value", the value escaped as the exposition format
 * requires (backslash, double quote, newline).  Returns 0 or -ENOMEM. */
int cairn_prom_label_put(struct cairn_buf *b, const char *name, const char *value);

#endif /* CAIRN_PROM_LABEL_H */
