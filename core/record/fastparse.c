/*
 * fastparse.c - the strict plain-record reader; see fastparse.h for what
 * it takes and why it declines the rest.
 */
#include "fastparse.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct cursor {
    const char *p;
    const char *end;
};

static void skip_ws(struct cursor *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int eat(struct cursor *c, char ch)
{
    skip_ws(c);
    if (c->p < c->end && *c->p == ch) {
        c->p++;
        return 1;
    }
    return 0;
}

/* A string of printable ASCII without escapes.  0 declines. */
static int read_string(struct cursor *c, const char **s, size_t *n)
{
    const char *start;

    if (!eat(c, '"'))
        return 0;
    start = c->p;
    while (c->p < c->end && *c->p != '"') {
        unsigned char ch = (unsigned char)*c->p;
        if (ch < 0x20 || ch >= 0x7F || ch == '\\')
            return 0;
        c->p++;
    }
    if (c->p == c->end)
        return 0;
    *s = start;
    *n = (size_t)(c->p - start);
    c->p++;
    return 1;
}

/* The leading decimal digits of the 8 bytes at p, at most 8: their count
 * in *k, their value returned.  One load and a few multiplies instead of a
 * loop of compares: the integers of a bulk job are most of its bytes. */
static uint64_t swar_digits(const char *p, unsigned *k)
{
    uint64_t x, d, non;

    memcpy(&x, p, 8); /* little-endian: p[0] is the low byte */
    d = x - UINT64_C(0x3030303030303030);
    /* A byte's top bit: below '0' (the subtraction wrapped) or above '9'
     * (adding 0x46 reaches 0x80).  Bytes before the first non-digit are
     * digits, which neither borrow nor carry, so that byte is told right;
     * what follows it is discarded. */
    non = (d | (x + UINT64_C(0x4646464646464646))) & UINT64_C(0x8080808080808080);
    *k = non == 0 ? 8 : (unsigned)__builtin_ctzll(non) / 8;
    if (*k == 0)
        return 0;
    /* The k digits into the high bytes, zeros (leading zeros) below, then
     * pairs, quads and the eight folded by multiplication. */
    d <<= 8 * (8 - *k);
    d = d * 10 + (d >> 8);
    d = ((d & UINT64_C(0x000000FF000000FF)) * (100 + (UINT64_C(1000000) << 32)) +
         ((d >> 16) & UINT64_C(0x000000FF000000FF)) * (1 + (UINT64_C(10000) << 32))) >>
        32;
    return d;
}

/* An integer as JSON writes it, within int64; reals and overflows decline
 * (jansson has the words for those). */
static int read_int(struct cursor *c, int64_t *out)
{
    const char *p;
    uint64_t v = 0, limit;
    int neg;

    skip_ws(c);
    p = c->p;
    neg = p < c->end && *p == '-';
    p += neg;
    if (p == c->end || *p < '0' || *p > '9')
        return 0;
    if (*p == '0' && p + 1 < c->end && p[1] >= '0' && p[1] <= '9')
        return 0; /* a leading zero */
    limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    if (c->end - p >= 8) {
        unsigned k;

        v = swar_digits(p, &k);
        p += k;
    }
    /* The rest (past 8 digits, or near the end of the line): no division
     * per digit, the overflow flags of the multiply and add instead. */
    while (p < c->end && (unsigned)(*p - '0') < 10) {
        if (__builtin_mul_overflow(v, 10, &v) ||
            __builtin_add_overflow(v, (uint64_t)(*p - '0'), &v))
            return 0;
        p++;
    }
    if (v > limit)
        return 0;
    if (p < c->end && (*p == '.' || *p == 'e' || *p == 'E'))
        return 0;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    c->p = p;
    return 1;
}

static int read_word(struct cursor *c, const char *w, size_t n)
{
    skip_ws(c);
    if ((size_t)(c->end - c->p) >= n && memcmp(c->p, w, n) == 0) {
        c->p += n;
        return 1;
    }
    return 0;
}

static int read_scalar(struct cursor *c, struct cairn_scalar *v)
{
    skip_ws(c);
    if (c->p == c->end)
        return 0;
    switch (*c->p) {
    case '"': v->kind = CAIRN_SCALAR_STRING; return read_string(c, &v->s, &v->n);
    case 't': v->kind = CAIRN_SCALAR_TRUE; return read_word(c, "true", 4);
    case 'f': v->kind = CAIRN_SCALAR_FALSE; return read_word(c, "false", 5);
    case 'n': v->kind = CAIRN_SCALAR_NULL; return read_word(c, "null", 4);
    default:
        v->kind = CAIRN_SCALAR_INT;
        /* -0 is declined: the jansson path keeps its text (record.c). */
        return *c->p != '-' ? read_int(c, &v->i) : read_int(c, &v->i) && v->i != 0;
    }
}

static int push_value(struct cairn_scratch *s, size_t at, int64_t v)
{
    if (at == s->values_cap) {
        size_t cap = s->values_cap ? s->values_cap * 2 : 1024;
        int64_t *nv = realloc(s->values, cap * sizeof(*nv));
        if (nv == NULL)
            return -ENOMEM;
        s->values = nv;
        s->values_cap = cap;
    }
    s->values[at] = v;
    return 0;
}

/* An array of integers into s->values from *used on.  1, 0 or -ENOMEM.
 *
 * The integers of a bulk job are most of its bytes, so the shape bulk jobs
 * write them in takes one 8-byte load and a few tests per value: an
 * optional '-', 1 to 7 digits (no leading zero, below 10^7: no overflow)
 * and at once ',' or ']', with 16 bytes left on the line for the unguarded
 * loads.  Anything else goes through read_int() and eat(), which read it,
 * or decline it, with every check. */
static int read_int_array(struct cursor *c, struct cairn_scratch *s, size_t *used, size_t *n)
{
    const char *p, *end = c->end;
    /* The unguarded loads of the fast shape stay below end - 16. */
    const char *fast_end = end - c->p > 16 ? end - 16 : c->p;
    size_t at = *used;
    int64_t v;
    /* Locals, not s->: a store into the values could alias them, and they
     * would be reloaded at every value. */
    int64_t *vals = s->values;
    size_t cap = s->values_cap;

    *n = 0;
    if (!eat(c, '['))
        return 0;
    if (eat(c, ']'))
        return 1;
    p = c->p;
    for (;;) {
        if (at == cap) {
            if (push_value(s, at, 0) != 0)
                return -ENOMEM; /* grown; the value is stored below */
            vals = s->values;
            cap = s->values_cap;
        }
        if (p < fast_end) {
            unsigned neg = *p == '-', k;
            const char *q = p + neg;
            uint64_t d = swar_digits(q, &k);

            if (k - 1 < 7 && (q[0] != '0' || k == 1) && (q[k] == ',' || q[k] == ']')) {
                vals[at++] = (int64_t)((d ^ (0 - (uint64_t)neg)) + neg);
                p = q + k + 1;
                if (q[k] == ']')
                    break;
                continue;
            }
        }
        c->p = p;
        if (!read_int(c, &v))
            return 0;
        vals[at++] = v;
        if (!eat(c, ',')) {
            if (!eat(c, ']'))
                return 0;
            p = c->p;
            break;
        }
        p = c->p;
    }
    c->p = p;
    *n = at - *used;
    *used = at;
    return 1;
}

static int same(const char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

static int read_input(struct cursor *c, struct cairn_fast_rec *r, struct cairn_scratch *s)
{
    size_t used = 0, i;
    int rc;

    if (!eat(c, '{'))
        return 0;
    r->has_input = 1;
    if (eat(c, '}'))
        return 1;
    do {
        struct cairn_fast_input *in;

        if (r->n_inputs == CAIRN_FAST_MAX_INPUTS)
            return 0;
        in = &r->inputs[r->n_inputs];
        if (!read_string(c, &in->name, &in->name_len) || !eat(c, ':'))
            return 0;
        for (i = 0; i < r->n_inputs; i++)
            if (r->inputs[i].name_len == in->name_len &&
                memcmp(r->inputs[i].name, in->name, in->name_len) == 0)
                return 0; /* a duplicate key: jansson's to refuse */
        in->off = used;
        skip_ws(c);
        if (c->p < c->end && *c->p != '[') {
            /* A scalar input (ABI 1.1); whether the plugin wants one is
             * for inputs.c to say, with the jansson path's words. */
            int64_t v;
            if (!read_int(c, &v))
                return 0;
            if (push_value(s, used, v) != 0)
                return -ENOMEM;
            in->n = 1;
            in->scalar = 1;
            used++;
        } else if ((rc = read_int_array(c, s, &used, &in->n)) != 1) {
            return rc;
        }
        r->n_inputs++;
    } while (eat(c, ','));
    return eat(c, '}');
}

/* One move of a play line: an integer, a plain string, or exactly
 * {"split":K,"keep":S} in either order.  0 declines. */
static int read_move(struct cursor *c, struct cairn_fast_move *m)
{
    const char *key, *keep = NULL;
    size_t klen, keep_n = 0;
    int64_t at = 0;
    int has_at = 0;

    skip_ws(c);
    if (c->p == c->end)
        return 0;
    if (*c->p == '"') {
        m->kind = CAIRN_FAST_MOVE_STRING;
        return read_string(c, &m->s, &m->n);
    }
    if (*c->p != '{') {
        m->kind = CAIRN_FAST_MOVE_INT;
        return read_int(c, &m->i);
    }
    c->p++;
    do {
        if (!read_string(c, &key, &klen) || !eat(c, ':'))
            return 0;
        if (same(key, klen, "split") && !has_at) {
            if (!read_int(c, &at))
                return 0;
            has_at = 1;
        } else if (same(key, klen, "keep") && keep == NULL) {
            if (!read_string(c, &keep, &keep_n))
                return 0;
        } else {
            return 0;
        }
    } while (eat(c, ','));
    if (!eat(c, '}') || !has_at || keep == NULL)
        return 0;
    *m = (struct cairn_fast_move){ .kind = CAIRN_FAST_MOVE_SPLIT, .i = at, .s = keep, .n = keep_n };
    return 1;
}

static int read_play(struct cursor *c, struct cairn_fast_rec *r)
{
    struct cairn_fast_move m;

    skip_ws(c);
    r->play = c->p;
    if (!eat(c, '['))
        return 0;
    if (!eat(c, ']')) {
        do {
            if (!read_move(c, &m))
                return 0;
            r->n_play++;
        } while (eat(c, ','));
        if (!eat(c, ']'))
            return 0;
    }
    r->play_end = c->p;
    return 1;
}

void cairn_fast_play_next(const char **p, const char *end, struct cairn_fast_move *m)
{
    struct cursor c = { .p = *p, .end = end };

    /* The text was read once already: '[' or ',' first, then the move. */
    c.p++;
    read_move(&c, m);
    skip_ws(&c);
    *p = c.p;
}

static int read_bool(struct cursor *c, int *v)
{
    if (read_word(c, "true", 4))
        *v = 1;
    else if (read_word(c, "false", 5))
        *v = 0;
    else
        return 0;
    return 1;
}

static int read_options(struct cursor *c, struct cairn_fast_rec *r)
{
    const char *key, *val;
    size_t klen, vlen;

    if (!eat(c, '{'))
        return 0;
    if (eat(c, '}'))
        return 1;
    do {
        if (!read_string(c, &key, &klen) || !eat(c, ':'))
            return 0;
        if (same(key, klen, "limits") && r->limits < 0) {
            if (!read_string(c, &val, &vlen))
                return 0;
            if (same(val, vlen, "official"))
                r->limits = CAIRN_LIMITS_OFFICIAL;
            else if (same(val, vlen, "extended"))
                r->limits = CAIRN_LIMITS_EXTENDED;
            else
                return 0;
        } else if (same(key, klen, "moves") && r->moves < 0) {
            if (!read_bool(c, &r->moves))
                return 0;
        } else if (same(key, klen, "analysis") && r->analysis < 0) {
            if (!read_bool(c, &r->analysis))
                return 0;
        } else if (same(key, klen, "play") && r->play == NULL) {
            if (!read_play(c, r))
                return 0;
        } else {
            return 0;
        }
    } while (eat(c, ','));
    return eat(c, '}');
}

static int is_known(const char *key, size_t n)
{
    return same(key, n, "variant") || same(key, n, "input") || same(key, n, "id") ||
           same(key, n, "expected") || same(key, n, "options");
}

/* A value of a key the record does not use: scalars, and arrays of them
 * nested at most IGNORED_DEPTH deep.  Objects (whose duplicate keys
 * jansson refuses) and reals (which it may refuse) decline. */
#define IGNORED_DEPTH 32
static int skip_ignored(struct cursor *c, int depth)
{
    struct cairn_scalar v;

    skip_ws(c);
    if (c->p < c->end && *c->p == '[') {
        if (depth == IGNORED_DEPTH)
            return 0;
        c->p++;
        if (eat(c, ']'))
            return 1;
        do {
            if (!skip_ignored(c, depth + 1))
                return 0;
        } while (eat(c, ','));
        return eat(c, ']');
    }
    if (c->p < c->end && (*c->p == '-' || (*c->p >= '0' && *c->p <= '9')))
        return read_int(c, &v.i); /* -0 too: its text matters only in an id */
    return read_scalar(c, &v);
}

/* The keys a record need not have: at most this many, so that a duplicate
 * among them (jansson's to refuse) is found by comparing each pair. */
#define MAX_IGNORED 16

int cairn_fast_parse(const char *line, size_t len, struct cairn_fast_rec *r,
                     struct cairn_scratch *s)
{
    struct cursor c = { .p = line, .end = line + len };
    int seen_options = 0, rc;
    const char *ignored[MAX_IGNORED];
    size_t ignored_len[MAX_IGNORED], n_ignored = 0;

    memset(r, 0, sizeof(*r));
    r->limits = -1;
    r->moves = -1;
    r->analysis = -1;
    if (!eat(&c, '{') || eat(&c, '}'))
        return 0;
    do {
        const char *key;
        size_t klen;

        if (!read_string(&c, &key, &klen) || !eat(&c, ':'))
            return 0;
        if (same(key, klen, "variant") && r->variant.kind == CAIRN_SCALAR_ABSENT) {
            if (!read_scalar(&c, &r->variant) || r->variant.kind != CAIRN_SCALAR_STRING)
                return 0;
        } else if (same(key, klen, "input") && !r->has_input) {
            if ((rc = read_input(&c, r, s)) != 1)
                return rc;
        } else if (same(key, klen, "id") && r->id.kind == CAIRN_SCALAR_ABSENT) {
            if (!read_scalar(&c, &r->id))
                return 0;
        } else if (same(key, klen, "expected") && r->expected.kind == CAIRN_SCALAR_ABSENT) {
            if (!read_scalar(&c, &r->expected))
                return 0;
        } else if (same(key, klen, "options") && !seen_options) {
            seen_options = 1;
            if (!read_options(&c, r))
                return 0;
        } else if (!is_known(key, klen) && n_ignored < MAX_IGNORED) {
            for (size_t i = 0; i < n_ignored; i++)
                if (ignored_len[i] == klen && memcmp(ignored[i], key, klen) == 0)
                    return 0; /* a duplicate: jansson's to refuse */
            ignored[n_ignored] = key;
            ignored_len[n_ignored++] = klen;
            if (!skip_ignored(&c, 0))
                return 0;
        } else {
            return 0; /* a duplicate, or too many keys: jansson decides */
        }
    } while (eat(&c, ','));
    if (!eat(&c, '}'))
        return 0;
    skip_ws(&c);
    /* Anything after the object, or a record lacking what the jansson path
     * would complain about, is declined. */
    return c.p == c.end && r->has_input;
}
