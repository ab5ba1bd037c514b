/*
 * record_internal.h - what record.c (parsing, solving, rendering) and
 * inputs.c (checking inputs against a plugin's declaration) share.  Not
 * for the rest of the core: its interface is record.h.
 */
#ifndef CAIRN_RECORD_INTERNAL_H
#define CAIRN_RECORD_INTERNAL_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "fastparse.h"
#include "record.h"

struct rec_error {
    enum cairn_code code;
    char msg[512];
};

/* A scalar from either reader: jansson's tree or the plain-record reader.
 * kind ABSENT with json set is a value of another JSON type (its type
 * name goes into messages; a real id is rendered from it). */
struct scalar {
    enum cairn_fast_kind kind;
    const char *s;
    size_t n;
    int64_t i;
    const json_t *json;
};

/* Everything learned about a record on the way to solving it. */
struct rec {
    uint64_t line_no;
    json_t *root;                     /* jansson's tree, or NULL */
    const struct cairn_fast_rec *fast; /* or the plain reader's record */
    struct scalar id;
    struct scalar expected;
    json_t *input;
    const struct cairn_plugin_handle *plugin;
    size_t plugin_index; /* registry index, or n_plugins when unresolved */
    enum cairn_limits limits;
    int want_moves;
};

/* Sets e (code and formatted message); returns -1 for "return fail(...)". */
int cairn_rec_fail(struct rec_error *e, enum cairn_code code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "an object", "a string", ...: for messages. */
const char *cairn_json_type_name(const json_t *v);
/* A user-supplied name cut to 64 bytes at a UTF-8 boundary. */
const char *cairn_short_name(const char *s, char out[72]);
/* Grows *p to hold need elements of elem bytes.  0 or -ENOMEM. */
int cairn_grow(void **p, size_t *cap, size_t need, size_t elem);

/* inputs.c: the record's input object (jansson) or the plain reader's
 * arrays, checked against the plugin's declaration, into arrays[]. */
int cairn_rec_load_inputs(const struct rec *r, struct cairn_scratch *s,
                          struct cairn_array *arrays, struct rec_error *e);
int cairn_rec_load_fast_inputs(const struct rec *r, struct cairn_scratch *s,
                               struct cairn_array *arrays, struct rec_error *e);

#endif /* CAIRN_RECORD_INTERNAL_H */
