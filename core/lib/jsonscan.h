/*
 * jsonscan.h - whether a line is one JSON value, checked without building
 * it.
 *
 * A jansson tree costs tens of bytes per value: a 12 MB record of small
 * integers takes most of a gigabyte, and "[{},{},...]" more.  `cairn`
 * only needs to know whether a line is JSON, and of what type, before it
 * passes the bytes on; this scanner answers that in one pass, keeping one
 * offset per object key (for duplicates) and nothing per value.
 *
 * It accepts exactly what jansson's json_loadb() accepts with
 * JSON_REJECT_DUPLICATES | JSON_DECODE_ANY -- the flags cairnd reads a
 * record with -- so a line it takes is never the daemon's bad_json, and a
 * line it refuses always is (test_jsonscan compares the two).
 */
#ifndef CAIRN_JSONSCAN_H
#define CAIRN_JSONSCAN_H

#include <stddef.h>

/* The value a line holds. */
enum cairn_json_kind {
    CAIRN_JSON_KIND_OBJECT,
    CAIRN_JSON_KIND_ARRAY,
    CAIRN_JSON_KIND_STRING,
    CAIRN_JSON_KIND_INTEGER,
    CAIRN_JSON_KIND_REAL,
    CAIRN_JSON_KIND_BOOLEAN,
    CAIRN_JSON_KIND_NULL,
};

/* Where and why a line is not JSON. */
struct cairn_json_fault {
    size_t offset; /* the byte it was found at (len: the line ended) */
    size_t column; /* 1-based, in characters, as cairnd's bad_json counts */
    char what[80];
};

/*
 * NAME     cairn_json_scan - check that text is exactly one JSON value
 * ARGUMENTS text, len: the line, without its terminator (it need not end
 *          in a NUL)
 * RETURNS  0 with *kind set; -EINVAL with *fault set; -ENOMEM when the
 *          keys of the objects open at once could not be held
 * NOTES    memory: one size_t per key of the objects open at a time (a
 *          key and its value take at least 5 bytes of the line, so under
 *          2 bytes per byte, and as much again for the sort that finds a
 *          duplicate), and a copy of one number when it is longer than 64
 *          bytes; nothing per value.
 */
int cairn_json_scan(const char *text, size_t len, enum cairn_json_kind *kind,
                    struct cairn_json_fault *fault);

/* "an object", "an array", ...: as cairn_json_type_name() says them. */
const char *cairn_json_kind_name(enum cairn_json_kind kind);

#endif /* CAIRN_JSONSCAN_H */
