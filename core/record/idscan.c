/*
 * idscan.c - a record's top-level id and variant, found without a tree
 * (idscan.h).
 */
#include "idscan.h"

#include <string.h>

enum {
    ST_START,   /* before the opening brace */
    ST_FIRST,   /* after it: a key or the closing brace */
    ST_KEY_AT,  /* after a comma: a key */
    ST_KEY,     /* inside a key */
    ST_COLON,   /* after a key */
    ST_VALUE,   /* after the colon */
    ST_STRING,  /* inside a string value */
    ST_BARE,    /* inside a number or literal */
    ST_NESTED,  /* inside an object or array value */
    ST_AFTER,   /* after a value: a comma or the closing brace */
    ST_STOPPED, /* the object ended, or something else came */
};

enum {
    NONE,
    ID,
    VARIANT
};

void cairn_idscan_init(struct cairn_idscan *sc)
{
    memset(sc, 0, sizeof(*sc));
}

static int is_ws(char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_bare(char c)
{
    return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '-' ||
           c == '+' || c == '.';
}

static struct cairn_idscan_member *member(struct cairn_idscan *sc)
{
    return sc->which == ID ? &sc->id : sc->which == VARIANT ? &sc->variant : NULL;
}

/* The key just ended: is it one of the two?  A second one makes the
 * member unreadable (jansson refuses the duplicate; nothing is echoed
 * that the record says twice). */
static void key_done(struct cairn_idscan *sc)
{
    struct cairn_idscan_member *m;

    sc->which = NONE;
    if (!sc->key_odd && sc->key_len == 2 && memcmp(sc->key, "id", 2) == 0)
        sc->which = ID;
    else if (!sc->key_odd && sc->key_len == 7 && memcmp(sc->key, "variant", 7) == 0)
        sc->which = VARIANT;
    m = member(sc);
    if (m != NULL && m->state != 0) {
        m->state = -1;
        sc->which = NONE;
    }
}

/* A value of the current member begins (scalar) at the byte at pos. */
static void value_begin(struct cairn_idscan *sc)
{
    struct cairn_idscan_member *m = member(sc);

    if (m != NULL) {
        m->off = sc->pos;
        m->copied = 0;
    }
}

static void value_byte(struct cairn_idscan *sc, char c)
{
    struct cairn_idscan_member *m = member(sc);
    char *buf = sc->which == ID ? sc->id_buf : sc->variant_buf;
    size_t cap = sc->which == ID ? sizeof(sc->id_buf) : sizeof(sc->variant_buf);

    if (m != NULL && m->copied < cap && m->copied == sc->pos - m->off)
        buf[m->copied++] = c;
}

/* The value ended before the byte at offset end. */
static void value_end(struct cairn_idscan *sc, uint64_t end)
{
    struct cairn_idscan_member *m = member(sc);

    if (m != NULL) {
        m->len = end - m->off;
        m->state = 1;
    }
    sc->which = NONE;
}

static void step(struct cairn_idscan *sc, char c)
{
    switch (sc->state) {
    case ST_START:
        if (c == '{')
            sc->state = ST_FIRST, sc->opened = 1;
        else if (!is_ws(c))
            sc->state = ST_STOPPED;
        return;
    case ST_FIRST:
    case ST_KEY_AT:
        if (c == '"') {
            sc->state = ST_KEY;
            sc->key_len = 0;
            sc->key_odd = 0;
        } else if (c == '}' && sc->state == ST_FIRST) {
            sc->complete = 1;
            sc->state = ST_STOPPED;
        } else if (!is_ws(c)) {
            sc->state = ST_STOPPED;
        }
        return;
    case ST_KEY:
        if (c == '"') {
            key_done(sc);
            sc->state = ST_COLON;
        } else if (c == '\\' || sc->key_len == sizeof(sc->key)) {
            /* An escaped key may spell "id": give up rather than guess. */
            if (c == '\\')
                sc->state = ST_STOPPED;
            sc->key_odd = 1;
        } else {
            sc->key[sc->key_len++] = c;
        }
        return;
    case ST_COLON:
        if (c == ':')
            sc->state = ST_VALUE;
        else if (!is_ws(c))
            sc->state = ST_STOPPED;
        return;
    case ST_VALUE:
        if (is_ws(c))
            return;
        if (c == '{' || c == '[') {
            if (member(sc) != NULL)
                member(sc)->state = -1;
            sc->which = NONE;
            sc->depth = 1;
            sc->escape = 0;
            sc->in_string = 0;
            sc->state = ST_NESTED;
            return;
        }
        value_begin(sc);
        value_byte(sc, c);
        if (c == '"') {
            sc->escape = 0;
            sc->state = ST_STRING;
        } else if (is_bare(c)) {
            sc->state = ST_BARE;
        } else {
            sc->state = ST_STOPPED;
        }
        return;
    case ST_STRING:
        value_byte(sc, c);
        if (sc->escape) {
            sc->escape = 0;
        } else if (c == '\\') {
            sc->escape = 1;
        } else if (c == '"') {
            value_end(sc, sc->pos + 1); /* the quote is the value's */
            sc->state = ST_AFTER;
        }
        return;
    case ST_BARE:
        if (is_bare(c)) {
            value_byte(sc, c);
            return;
        }
        value_end(sc, sc->pos);
        sc->state = ST_AFTER;
        break; /* c is the byte after the value */
    case ST_NESTED:
        if (sc->escape) {
            sc->escape = 0;
        } else if (sc->in_string) {
            if (c == '\\')
                sc->escape = 1;
            else if (c == '"')
                sc->in_string = 0;
        } else if (c == '"') {
            sc->in_string = 1;
        } else if (c == '{' || c == '[') {
            sc->depth++;
        } else if ((c == '}' || c == ']') && --sc->depth == 0) {
            sc->state = ST_AFTER;
        }
        return;
    case ST_AFTER: break;
    default: return;
    }
    /* ST_AFTER, reached directly or from the end of a bare value. */
    if (c == ',')
        sc->state = ST_KEY_AT;
    else if (c == '}')
        sc->complete = 1, sc->state = ST_STOPPED;
    else if (!is_ws(c))
        sc->state = ST_STOPPED;
}

void cairn_idscan_feed(struct cairn_idscan *sc, const char *p, size_t n)
{
    for (size_t i = 0; i < n && sc->state != ST_STOPPED; i++, sc->pos++)
        step(sc, p[i]);
}

const char *cairn_idscan_text(const struct cairn_idscan *sc, int variant, size_t *n)
{
    const struct cairn_idscan_member *m = variant ? &sc->variant : &sc->id;

    if (m->state != 1 || m->copied != m->len)
        return NULL;
    *n = (size_t)m->len;
    return variant ? sc->variant_buf : sc->id_buf;
}
