/*
 * scalar.h - one JSON scalar of a record (its id, variant or expected
 * answer), whichever reader read it.
 */
#ifndef CAIRN_SCALAR_H
#define CAIRN_SCALAR_H

#include <stddef.h>
#include <stdint.h>

struct json_t; /* jansson's */

enum cairn_scalar_kind {
    CAIRN_SCALAR_ABSENT = 0, /* no such member, or a value of another kind
                                (see json) */
    CAIRN_SCALAR_STRING,
    CAIRN_SCALAR_INT,
    CAIRN_SCALAR_TRUE,
    CAIRN_SCALAR_FALSE,
    CAIRN_SCALAR_NULL
};

/* kind STRING: s/n (not NUL-terminated); INT: i.  kind ABSENT with json
 * set is a value of another JSON type (a real, an object...), named in
 * messages; for a real, s/n may hold its text as written in the record. */
struct cairn_scalar {
    enum cairn_scalar_kind kind;
    const char *s;
    size_t n;
    int64_t i;
    const struct json_t *json;
};

/* 1 when the member was there at all. */
static inline int cairn_scalar_present(const struct cairn_scalar *v)
{
    return v->kind != CAIRN_SCALAR_ABSENT || v->json != NULL;
}

#endif /* CAIRN_SCALAR_H */
