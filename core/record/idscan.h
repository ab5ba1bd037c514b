/*
 * idscan.h - a record's top-level "id" and "variant" found without a JSON
 * tree, so that an error line can name them when the record itself could
 * not be read: a line over max_line_bytes (its bytes stream past and are
 * not kept), a record over its memory budget, malformed JSON after them.
 *
 * A byte-at-a-time state machine over the top-level object: which depth,
 * whether in a string, whether after a backslash.  Nested values are
 * stepped over, never held; only the two scalars are copied, and only
 * when small.  It is not a validator: it stops at the first thing that is
 * not an object's key, colon, value and comma or brace at the top level,
 * keeping what it found before.  A value it keeps is checked again by
 * whoever decodes it (record.c), so a kept value always means what
 * jansson would make of it.
 */
#ifndef CAIRN_IDSCAN_H
#define CAIRN_IDSCAN_H

#include <stddef.h>
#include <stdint.h>

/* The largest id and variant values (their JSON text) kept. */
#define CAIRN_IDSCAN_ID_MAX      1024
#define CAIRN_IDSCAN_VARIANT_MAX 128

/* One of the two members: where its value's text is (offsets counted from
 * the first byte fed), and a copy when it fits. */
struct cairn_idscan_member {
    int state; /* 0 not seen, 1 kept, -1 unreadable (not a scalar, a
                  duplicate key, too long to copy, cut short) */
    uint64_t off, len;
    size_t copied; /* == len when buf holds the whole value */
};

/* Zero-initialise (or cairn_idscan_init) before the first byte. */
struct cairn_idscan {
    uint64_t pos; /* bytes fed so far */
    int state;
    int which;      /* the member whose key or value is being read */
    int escape;     /* the byte before was a backslash, in a string */
    int in_string;  /* inside a string of a nested value */
    unsigned depth; /* inside a nested value */
    char key[8];    /* the key so far, while it may still be id or variant */
    size_t key_len;
    int key_odd;  /* the key is neither, or has an escape */
    int opened;   /* the top-level object's opening brace was seen */
    int complete; /* and its closing brace */
    struct cairn_idscan_member id, variant;
    char id_buf[CAIRN_IDSCAN_ID_MAX];
    char variant_buf[CAIRN_IDSCAN_VARIANT_MAX];
};

void cairn_idscan_init(struct cairn_idscan *sc);

/* Feeds the next n bytes of the line. */
void cairn_idscan_feed(struct cairn_idscan *sc, const char *p, size_t n);

/* The value's JSON text: a copy inside sc, or NULL when the member is not
 * kept (or not copied whole: then off/len locate it in the bytes fed). */
const char *cairn_idscan_text(const struct cairn_idscan *sc, int variant, size_t *n);

#endif /* CAIRN_IDSCAN_H */
