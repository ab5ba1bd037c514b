/*
 * inputs.h - a record's input checked against its plugin's declaration and
 * turned into the plain arrays the plugin takes.  Every invalid_input,
 * constraint and too_large message about an input is written here, the
 * same way for both readers and every plugin.
 */
#ifndef CAIRN_INPUTS_H
#define CAIRN_INPUTS_H

#include <jansson.h>

#include "cairn/plugin.h"
#include "codes.h"
#include "fastparse.h"
#include "scratch.h"

/*
 * NAME     cairn_inputs_from_json - the record's "input" object, checked
 * ARGUMENTS d declares at most CAIRN_FAST_MAX_INPUTS inputs (record.c
 *          refuses a plugin of more); arrays has room for d->n_inputs
 *          entries; their values live in s->values
 * RETURNS  0, or -1 with e set (invalid_input, constraint, too_large, or
 *          internal when out of memory)
 * NOTES    checks in this order, so both readers word the same error: an
 *          unknown field (in the record's order), then per declared input
 *          missing or of the wrong shape, then equal lengths, then per
 *          input its bounds for limits.
 */
int cairn_inputs_from_json(const struct cairn_plugin *d, enum cairn_limits limits, json_t *input,
                           struct cairn_scratch *s, struct cairn_array *arrays,
                           struct cairn_rec_error *e);

/* The same for the plain reader's record, whose integers already sit in
 * s->values. */
int cairn_inputs_from_fast(const struct cairn_plugin *d, enum cairn_limits limits,
                           const struct cairn_fast_rec *f, struct cairn_scratch *s,
                           struct cairn_array *arrays, struct cairn_rec_error *e);

#endif /* CAIRN_INPUTS_H */
