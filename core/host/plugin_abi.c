/*
 * plugin_abi.c - vet a plugin's descriptor before the host reads it.
 *
 * Every refusal names the field at fault, so an operator reading
 * `cairnd --check` knows what to fix without reading the code.
 */
#include "plugin_abi.h"

#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "registry.h"
#include "util.h"
#include "variant.h"

static int name_is_valid(const char *s)
{
    if (s == NULL || *s == '\0' || strlen(s) > 64)
        return 0;
    for (; *s; s++)
        if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '-' || *s == '_' ||
              *s == '.'))
            return 0;
    return 1;
}

static int bounds_valid(const struct cairn_bounds *b)
{
    return b->min_len <= b->max_len && b->min_value <= b->max_value;
}

/* Bytes of a descriptor of each minor of this major: a descriptor must be
 * at least as long as the minor it declares.  1.0 ended with solve. */
#define END_OF(field) \
    (offsetof(struct cairn_plugin, field) + sizeof(((struct cairn_plugin *)0)->field))
static const size_t size_of_minor[CAIRN_PLUGIN_ABI_MINOR + 1] = {
    [0] = END_OF(solve),
    [1] = END_OF(totals),
    [2] = sizeof(struct cairn_plugin),
};
_Static_assert(CAIRN_PLUGIN_ABI_MINOR == 2,
               "a new minor: add its size to size_of_minor and its fields to "
               "cairn_plugin_adopt's defaults");

/* The input kinds and move kinds each minor introduced, so a descriptor
 * using something newer than the minor it declares is refused rather than
 * read with a meaning its author never saw. */
static unsigned minor_of_input_kind(enum cairn_input_kind k)
{
    switch (k) {
    case CAIRN_INPUT_INT_ARRAY: return 0;
    case CAIRN_INPUT_INT: return 1;
    }
    return UINT_MAX;
}

static unsigned minor_of_moves_kind(enum cairn_moves_kind k)
{
    switch (k) {
    case CAIRN_MOVES_SIDE:
    case CAIRN_MOVES_COUNT: return 0;
    case CAIRN_MOVES_INDEX:
    case CAIRN_MOVES_SPLIT: return 1;
    }
    return UINT_MAX;
}

static int inputs_problem(const struct cairn_plugin *d, char *why, size_t why_len)
{
    size_t i;

    if (d->inputs == NULL || d->n_inputs == 0)
        return cairn_refuse(why, why_len, "bad descriptor: declares no inputs");
    for (i = 0; i < d->n_inputs; i++) {
        const struct cairn_input_decl *in = &d->inputs[i];
        unsigned since;

        if (in->name == NULL || *in->name == '\0')
            return cairn_refuse(why, why_len, "bad descriptor: inputs[%zu] has no name", i);
        since = minor_of_input_kind(in->kind);
        if (since == UINT_MAX)
            return cairn_refuse(why, why_len, "bad descriptor: inputs[%zu] \"%s\": unknown kind %d",
                                i, in->name, (int)in->kind);
        if (since > d->abi_minor)
            return cairn_refuse(why, why_len,
                                "bad descriptor: inputs[%zu] \"%s\": kind %d needs ABI %u.%u, the "
                                "descriptor says %u.%u",
                                i, in->name, (int)in->kind, CAIRN_PLUGIN_ABI_MAJOR, since,
                                (unsigned)d->abi_major, (unsigned)d->abi_minor);
        /* A scalar's min_len/max_len are documented as ignored. */
        if (in->kind == CAIRN_INPUT_INT
                ? in->official.min_value > in->official.max_value ||
                      in->extended.min_value > in->extended.max_value
                : !bounds_valid(&in->official) || !bounds_valid(&in->extended))
            return cairn_refuse(why, why_len,
                                "bad descriptor: inputs[%zu] \"%s\" has inverted bounds", i,
                                in->name);
    }
    return 0;
}

/* equal_length: bits for declared arrays only, and at least two of them
 * (one array is always "equal" to itself: a plugin meaning something else
 * has a bug worth hearing about at load time). */
static int equal_length_problem(const struct cairn_plugin *d, char *why, size_t why_len)
{
    unsigned bit, count = 0;

    if (d->equal_length == 0)
        return 0;
    for (bit = 0; bit < 32; bit++) {
        if (!(d->equal_length & (UINT32_C(1) << bit)))
            continue;
        if (bit >= d->n_inputs)
            return cairn_refuse(why, why_len,
                                "bad descriptor: equal_length 0x%" PRIx32
                                " has bit %u, but only %zu "
                                "inputs are declared",
                                d->equal_length, bit, d->n_inputs);
        if (d->inputs[bit].kind != CAIRN_INPUT_INT_ARRAY)
            return cairn_refuse(
                why, why_len,
                "bad descriptor: equal_length names inputs[%u] \"%s\", which is not an "
                "array",
                bit, d->inputs[bit].name);
        count++;
    }
    if (count < 2)
        return cairn_refuse(why, why_len,
                            "bad descriptor: equal_length names one input; it needs at least two");
    return 0;
}

/* Returns 0 when the (normalized) descriptor is usable, or -EINVAL with
 * why naming the field at fault. */
static int descriptor_problem(const struct cairn_plugin *d, char *why, size_t why_len)
{
    size_t i;
    unsigned since;

    if (!name_is_valid(d->name))
        return cairn_refuse(why, why_len, "bad descriptor: name is missing or not [a-z0-9._-]+");
    if (strcmp(d->name, CAIRN_VARIANT_UNRESOLVED) == 0)
        return cairn_refuse(why, why_len,
                            "bad descriptor: the name \"%s\" is reserved (summaries, metrics and "
                            "reports count records whose variant is not known under it)",
                            CAIRN_VARIANT_UNRESOLVED);
    if (d->version == NULL || d->summary == NULL)
        return cairn_refuse(why, why_len, "bad descriptor: version or summary is missing");
    if (d->aliases != NULL)
        for (i = 0; d->aliases[i] != NULL; i++) {
            if (!name_is_valid(d->aliases[i]))
                return cairn_refuse(why, why_len,
                                    "bad descriptor: an alias is empty or not [a-z0-9._-]+");
            if (strcmp(d->aliases[i], CAIRN_VARIANT_UNRESOLVED) == 0)
                return cairn_refuse(why, why_len,
                                    "bad descriptor: the alias \"%s\" is reserved (summaries, "
                                    "metrics and reports count records whose variant is not known "
                                    "under it)",
                                    CAIRN_VARIANT_UNRESOLVED);
        }
    if (inputs_problem(d, why, why_len) != 0)
        return -EINVAL;
    if (d->answer_kind < CAIRN_ANSWER_BOOL || d->answer_kind > CAIRN_ANSWER_WINNER)
        return cairn_refuse(why, why_len, "bad descriptor: answer_kind %d is unknown",
                            (int)d->answer_kind);
    since = minor_of_moves_kind(d->moves_kind);
    if (since == UINT_MAX)
        return cairn_refuse(why, why_len, "bad descriptor: moves_kind %d is unknown",
                            (int)d->moves_kind);
    if (since > d->abi_minor)
        return cairn_refuse(
            why, why_len,
            "bad descriptor: moves_kind %d needs ABI %u.%u, the descriptor says %u.%u",
            (int)d->moves_kind, CAIRN_PLUGIN_ABI_MAJOR, since, (unsigned)d->abi_major,
            (unsigned)d->abi_minor);
    if (d->solve == NULL || d->scratch_bytes == NULL || d->max_moves == NULL)
        return cairn_refuse(why, why_len,
                            "bad descriptor: solve, scratch_bytes or max_moves is missing");
    if (equal_length_problem(d, why, why_len) != 0)
        return -EINVAL;
    /* Analysis is all or nothing: a value kind without its callbacks (or
     * callbacks without a meaning for their values) is a half-built
     * plugin, better refused at load time than at the first record. */
    if ((unsigned)d->value_kind > CAIRN_VALUE_WINNER)
        return cairn_refuse(why, why_len, "bad descriptor: value_kind %d is unknown",
                            (int)d->value_kind);
    if ((d->value_kind != CAIRN_VALUE_NONE) != (d->analyze != NULL && d->max_legal_moves != NULL &&
                                                d->analysis_scratch_bytes != NULL) ||
        (d->value_kind == CAIRN_VALUE_NONE &&
         (d->analyze != NULL || d->max_legal_moves != NULL || d->analysis_scratch_bytes != NULL)))
        return cairn_refuse(
            why, why_len,
            "bad descriptor: analysis needs value_kind, analyze, max_legal_moves and "
            "analysis_scratch_bytes together (or none of them)");
    if ((d->totals & ~(uint32_t)CAIRN_TOTALS_ALL) != 0)
        return cairn_refuse(why, why_len,
                            "bad descriptor: totals 0x%" PRIx32 " has unknown bits (known: "
                            "CAIRN_TOTAL_ALICE, CAIRN_TOTAL_BOB, CAIRN_TOTAL_MARGIN)",
                            d->totals);
    return 0;
}

int cairn_plugin_adopt(const struct cairn_plugin *raw, struct cairn_plugin *out, char *why,
                       size_t why_len)
{
    size_t n;

    /* Only these three fields mean the same in every version. */
    if (raw->abi_major != CAIRN_PLUGIN_ABI_MAJOR)
        return cairn_refuse(why, why_len,
                            "plugin ABI version %u.%u, this cairnd speaks %u.%u (major %u only): "
                            "rebuild the plugin against this cairn's header",
                            (unsigned)raw->abi_major, (unsigned)raw->abi_minor,
                            CAIRN_PLUGIN_ABI_MAJOR, CAIRN_PLUGIN_ABI_MINOR, CAIRN_PLUGIN_ABI_MAJOR);
    if (raw->abi_minor > CAIRN_PLUGIN_ABI_MINOR)
        return cairn_refuse(why, why_len,
                            "plugin ABI version %u.%u, this cairnd speaks %u.%u (minors up to %u): "
                            "upgrade cairnd, or rebuild the plugin against this cairn's header",
                            (unsigned)raw->abi_major, (unsigned)raw->abi_minor,
                            CAIRN_PLUGIN_ABI_MAJOR, CAIRN_PLUGIN_ABI_MINOR, CAIRN_PLUGIN_ABI_MINOR);
    if (raw->struct_size < size_of_minor[raw->abi_minor])
        return cairn_refuse(why, why_len, "descriptor is %u bytes, ABI %u.%u needs at least %zu",
                            (unsigned)raw->struct_size, (unsigned)raw->abi_major,
                            (unsigned)raw->abi_minor, size_of_minor[raw->abi_minor]);

    /* Past struct_size is someone else's memory: copy no further, and give
     * what an older minor lacks the meaning it had there.  Whatever lies
     * past its minor's fields meant nothing to its author either, even if
     * struct_size covers the bytes: 1.0 has no equal_length or totals (a
     * 1.1 descriptor, at least 1.1's size, always has them), and before
     * 1.2 there is no analysis. */
    n = raw->struct_size < sizeof(*out) ? raw->struct_size : sizeof(*out);
    memset(out, 0, sizeof(*out));
    memcpy(out, raw, n);
    if (raw->abi_minor < 1) {
        out->equal_length = 0;
        out->totals = CAIRN_TOTALS_ALL;
    }
    if (raw->abi_minor < 2) {
        out->value_kind = CAIRN_VALUE_NONE;
        out->max_legal_moves = NULL;
        out->analysis_scratch_bytes = NULL;
        out->analyze = NULL;
    }
    return descriptor_problem(out, why, why_len);
}
