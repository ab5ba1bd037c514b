/*
 * jsonscan.c - one JSON value checked in one pass, without a tree (see
 * jsonscan.h).  The grammar and every limit follow jansson 2.14's reader
 * (load.c): the same numbers, escapes, UTF-8, depth and duplicate keys,
 * so that the verdicts agree; the messages say the same things in words
 * a user can act on.
 */
#include "jsonscan.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* jansson counts every value, scalars too: the top-level value is at
 * depth 1, and a value past this depth is refused. */
#ifdef JSON_PARSER_MAX_DEPTH
#define MAX_DEPTH JSON_PARSER_MAX_DEPTH
#else
#define MAX_DEPTH 2048
#endif

/* A number longer than this is copied to the heap for strtod. */
#define NUMBER_STACK 64

struct scan {
    const unsigned char *s; /* the line */
    const unsigned char *p; /* the next byte */
    const unsigned char *end;
    size_t *keys; /* offsets of the keys of the objects open, outermost first */
    size_t n_keys;
    size_t keys_cap;
    struct cairn_json_fault *f;
};

static int fail_at(struct scan *sc, const unsigned char *at, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

static int fail_at(struct scan *sc, const unsigned char *at, const char *fmt, ...)
{
    va_list ap;

    sc->f->offset = (size_t)(at - sc->s);
    va_start(ap, fmt);
    vsnprintf(sc->f->what, sizeof(sc->f->what), fmt, ap);
    va_end(ap);
    return -EINVAL;
}

static int is_ws(unsigned char c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static void skip_ws(struct scan *sc)
{
    while (sc->p < sc->end && is_ws(*sc->p))
        sc->p++;
}

static int is_digit(unsigned char c)
{
    return c >= '0' && c <= '9';
}

static int hex_value(unsigned char c)
{
    if (is_digit(c))
        return c - '0';
    if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
        return (c | 0x20) - 'a' + 10;
    return -1;
}

/* The \uXXXX at p (p at the backslash, 6 bytes there): its code unit, or
 * -1 when a digit is not hex. */
static long unit_at(const unsigned char *p)
{
    long v = 0;
    int i, h;

    for (i = 2; i < 6; i++) {
        if ((h = hex_value(p[i])) < 0)
            return -1;
        v = v * 16 + h;
    }
    return v;
}

/* The length of the well-formed UTF-8 character at p (a byte >= 0x80),
 * or 0: no overlong forms, no surrogates, nothing past U+10FFFF. */
static size_t utf8_char(const unsigned char *p, const unsigned char *end)
{
    size_t n, i;
    uint32_t v;

    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
        v = p[0] & 0x1fu;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        v = p[0] & 0x0fu;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        v = p[0] & 0x07u;
    } else {
        return 0;
    }
    if ((size_t)(end - p) < n)
        return 0;
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80)
            return 0;
        v = (v << 6) | (p[i] & 0x3fu);
    }
    if ((n == 3 && v < 0x800) || (n == 4 && v < 0x10000) || v > 0x10ffff ||
        (v >= 0xd800 && v <= 0xdfff))
        return 0;
    return n;
}

/* A raw byte that cannot stand where it is, named. */
static int bad_byte(struct scan *sc, const unsigned char *at, const char *where)
{
    if (*at == '\0')
        return fail_at(sc, at, "a raw NUL byte, which JSON text cannot hold");
    if (*at < 0x20)
        return fail_at(sc, at, "control character 0x%02x %s", *at, where);
    return fail_at(sc, at, "byte 0x%02x is not UTF-8", *at);
}

/* The string at sc->p (its opening quote), through its closing quote. */
static int scan_string(struct scan *sc)
{
    const unsigned char *open = sc->p;
    size_t n;

    sc->p++;
    for (;;) {
        const unsigned char *at = sc->p;
        long u, low;

        if (at >= sc->end)
            return fail_at(sc, sc->end, "the string opened at byte %zu does not end",
                           (size_t)(open - sc->s) + 1);
        if (*at == '"') {
            sc->p++;
            return 0;
        }
        if (*at < 0x20)
            return bad_byte(sc, at, "in a string (write it as an escape)");
        if (*at >= 0x80) {
            if ((n = utf8_char(at, sc->end)) == 0)
                return bad_byte(sc, at, "");
            sc->p += n;
            continue;
        }
        if (*at != '\\') {
            sc->p++;
            continue;
        }
        if (at + 1 < sc->end && strchr("\"\\/bfnrt", at[1]) != NULL && at[1] != '\0') {
            sc->p += 2;
            continue;
        }
        if (at + 1 >= sc->end || at[1] != 'u' || sc->end - at < 6 || (u = unit_at(at)) < 0)
            return fail_at(sc, at, "invalid escape");
        if (u == 0)
            return fail_at(sc, at, "\\u0000 is not allowed in a string");
        if (u >= 0xdc00 && u <= 0xdfff)
            return fail_at(sc, at, "invalid Unicode '\\u%04lX' (a lone low surrogate)", u);
        if (u >= 0xd800 && u <= 0xdbff) {
            if (sc->end - at < 12 || at[6] != '\\' || at[7] != 'u' || (low = unit_at(at + 6)) < 0 ||
                low < 0xdc00 || low > 0xdfff)
                return fail_at(sc, at,
                               "invalid Unicode '\\u%04lX' (a high surrogate without its "
                               "low half)",
                               u);
            sc->p += 12;
            continue;
        }
        sc->p += 6;
    }
}

/* Whether the integer digits (no sign, no leading zero) overflow int64:
 * jansson's json_int_t is long long, read by strtoll. */
static int int_overflows(const unsigned char *digits, size_t n, int negative)
{
    static const char max[] = "9223372036854775807", min[] = "9223372036854775808";

    if (n != sizeof(max) - 1)
        return n > sizeof(max) - 1;
    return memcmp(digits, negative ? min : max, n) > 0;
}

/* Whether a real's text overflows a double, as jansson's strtod sees it.
 * -ENOMEM when a long one cannot be copied. */
static int real_overflows(const unsigned char *text, size_t n)
{
    char small[NUMBER_STACK], *copy = n < sizeof(small) ? small : malloc(n + 1);
    double v;
    int over;

    if (copy == NULL)
        return -ENOMEM;
    memcpy(copy, text, n);
    copy[n] = '\0';
    errno = 0;
    v = strtod(copy, NULL);
    over = (v == HUGE_VAL || v == -HUGE_VAL) && errno == ERANGE;
    if (copy != small)
        free(copy);
    return over;
}

static int scan_number(struct scan *sc, enum cairn_json_kind *kind)
{
    const unsigned char *start = sc->p, *digits;
    int real = 0, rc;

    if (sc->p < sc->end && *sc->p == '-')
        sc->p++;
    digits = sc->p;
    if (sc->p < sc->end && *sc->p == '0') {
        sc->p++;
        if (sc->p < sc->end && is_digit(*sc->p))
            return fail_at(sc, start, "invalid number (a leading zero)");
    } else if (sc->p < sc->end && is_digit(*sc->p)) {
        while (sc->p < sc->end && is_digit(*sc->p))
            sc->p++;
    } else {
        return fail_at(sc, start, "invalid token '-'");
    }
    if (sc->p < sc->end && *sc->p == '.') {
        real = 1;
        sc->p++;
        if (sc->p >= sc->end || !is_digit(*sc->p))
            return fail_at(sc, start, "invalid number (no digit after the decimal point)");
        while (sc->p < sc->end && is_digit(*sc->p))
            sc->p++;
    }
    if (sc->p < sc->end && (*sc->p == 'e' || *sc->p == 'E')) {
        real = 1;
        sc->p++;
        if (sc->p < sc->end && (*sc->p == '+' || *sc->p == '-'))
            sc->p++;
        if (sc->p >= sc->end || !is_digit(*sc->p))
            return fail_at(sc, start, "invalid number (no digit in the exponent)");
        while (sc->p < sc->end && is_digit(*sc->p))
            sc->p++;
    }
    *kind = real ? CAIRN_JSON_KIND_REAL : CAIRN_JSON_KIND_INTEGER;
    if (!real) {
        if (int_overflows(digits, (size_t)(sc->p - digits), start != digits))
            return fail_at(sc, start, "too big %sinteger (past 64 bits)",
                           start != digits ? "negative " : "");
        return 0;
    }
    if ((rc = real_overflows(start, (size_t)(sc->p - start))) < 0)
        return rc;
    return rc ? fail_at(sc, start, "real number overflow") : 0;
}

static int scan_literal(struct scan *sc, enum cairn_json_kind *kind)
{
    const unsigned char *start = sc->p;
    size_t n;

    while (sc->p < sc->end && ((*sc->p | 0x20) >= 'a' && (*sc->p | 0x20) <= 'z'))
        sc->p++;
    n = (size_t)(sc->p - start);
    if (n == 4 && memcmp(start, "true", 4) == 0)
        *kind = CAIRN_JSON_KIND_BOOLEAN;
    else if (n == 5 && memcmp(start, "false", 5) == 0)
        *kind = CAIRN_JSON_KIND_BOOLEAN;
    else if (n == 4 && memcmp(start, "null", 4) == 0)
        *kind = CAIRN_JSON_KIND_NULL;
    else
        return fail_at(sc, start, "invalid token '%.*s'", n > 16 ? 16 : (int)n,
                       (const char *)start);
    return 0;
}

/* ---- duplicate keys ---------------------------------------------------- */

/* The bytes a key (already checked) decodes to, one at a time. */
struct key_reader {
    const unsigned char *p;
    unsigned char pend[4];
    int n_pend, i_pend;
};

static int key_next(struct key_reader *k)
{
    long u;

    if (k->i_pend < k->n_pend)
        return k->pend[k->i_pend++];
    if (*k->p == '"')
        return -1;
    if (*k->p != '\\')
        return *k->p++;
    switch (k->p[1]) {
    case 'b': k->p += 2; return '\b';
    case 'f': k->p += 2; return '\f';
    case 'n': k->p += 2; return '\n';
    case 'r': k->p += 2; return '\r';
    case 't': k->p += 2; return '\t';
    case 'u': break;
    default: k->p += 2; return k->p[-1];
    }
    u = unit_at(k->p);
    k->p += 6;
    if (u >= 0xd800 && u <= 0xdbff) {
        u = 0x10000 + ((u - 0xd800) << 10) + (unit_at(k->p) - 0xdc00);
        k->p += 6;
    }
    k->i_pend = 0;
    if (u < 0x80) {
        k->n_pend = 0;
        return (int)u;
    }
    if (u < 0x800) {
        k->pend[0] = (unsigned char)(0x80 | (u & 0x3f));
        k->n_pend = 1;
        return (int)(0xc0 | (u >> 6));
    }
    if (u < 0x10000) {
        k->pend[0] = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
        k->pend[1] = (unsigned char)(0x80 | (u & 0x3f));
        k->n_pend = 2;
        return (int)(0xe0 | (u >> 12));
    }
    k->pend[0] = (unsigned char)(0x80 | ((u >> 12) & 0x3f));
    k->pend[1] = (unsigned char)(0x80 | ((u >> 6) & 0x3f));
    k->pend[2] = (unsigned char)(0x80 | (u & 0x3f));
    k->n_pend = 3;
    return (int)(0xf0 | (u >> 18));
}

/* Keys in decoded byte order; equal keys by their place in the line. */
static int key_cmp(const void *a, const void *b, void *line)
{
    size_t oa = *(const size_t *)a, ob = *(const size_t *)b;
    struct key_reader ka = { .p = (const unsigned char *)line + oa + 1 },
                      kb = { .p = (const unsigned char *)line + ob + 1 };
    int ca, cb;

    do {
        ca = key_next(&ka);
        cb = key_next(&kb);
    } while (ca == cb && ca >= 0);
    if (ca != cb)
        return ca < cb ? -1 : 1;
    return oa < ob ? -1 : oa > ob;
}

/* The keys of the object closing now are keys[from..n_keys): a key seen
 * twice is refused where it comes the second time, as jansson refuses it. */
static int check_keys(struct scan *sc, size_t from)
{
    size_t *k = sc->keys + from, n = sc->n_keys - from, i, dup = SIZE_MAX;

    sc->n_keys = from;
    if (n < 2)
        return 0;
    qsort_r(k, n, sizeof(*k), key_cmp, (void *)sc->s);
    for (i = 1; i < n; i++)
        if (k[i] < dup) {
            size_t a = k[i - 1], b = k[i];
            struct key_reader ka = { .p = sc->s + a + 1 }, kb = { .p = sc->s + b + 1 };
            int ca, cb;

            do {
                ca = key_next(&ka);
                cb = key_next(&kb);
            } while (ca == cb && ca >= 0);
            if (ca == cb)
                dup = b;
        }
    if (dup == SIZE_MAX)
        return 0;
    return fail_at(sc, sc->s + dup, "duplicate object key (a key given twice in one object)");
}

static int add_key(struct scan *sc)
{
    if (sc->n_keys == sc->keys_cap) {
        size_t cap = sc->keys_cap ? sc->keys_cap * 2 : 64;
        size_t *k = reallocarray(sc->keys, cap, sizeof(*k));

        if (k == NULL)
            return -ENOMEM;
        sc->keys = k;
        sc->keys_cap = cap;
    }
    sc->keys[sc->n_keys++] = (size_t)(sc->p - sc->s);
    return 0;
}

/* ---- the value ----------------------------------------------------------- */

/* What a value's first byte can be, named for a message. */
static int unexpected(struct scan *sc, const char *wanted)
{
    if (sc->p >= sc->end)
        return fail_at(sc, sc->end, "%s expected, and the line ended", wanted);
    if (*sc->p < 0x20 || *sc->p >= 0x80)
        return bad_byte(sc, sc->p, "");
    return fail_at(sc, sc->p, "%s expected, not '%c'", wanted, *sc->p);
}

static int scan_value(struct scan *sc, enum cairn_json_kind *top)
{
    /* The containers open: '{' or '[', and where an object's keys start. */
    unsigned char open[MAX_DEPTH];
    size_t key_from[MAX_DEPTH];
    int depth = 0, rc;
    enum cairn_json_kind kind = CAIRN_JSON_KIND_NULL;

value:
    skip_ws(sc);
    if (depth + 1 > MAX_DEPTH)
        return fail_at(sc, sc->p, "nested more than %d deep", MAX_DEPTH);
    if (sc->p >= sc->end)
        return unexpected(sc, "a value");
    switch (*sc->p) {
    case '{':
    case '[':
        kind = *sc->p == '{' ? CAIRN_JSON_KIND_OBJECT : CAIRN_JSON_KIND_ARRAY;
        if (depth == 0)
            *top = kind;
        open[depth] = *sc->p;
        key_from[depth] = sc->n_keys;
        depth++;
        sc->p++;
        skip_ws(sc);
        if (sc->p < sc->end && *sc->p == (open[depth - 1] == '{' ? '}' : ']')) {
            sc->p++;
            depth--;
            goto after;
        }
        if (open[depth - 1] == '[')
            goto value;
        goto key;
    case '"':
        kind = CAIRN_JSON_KIND_STRING;
        rc = scan_string(sc);
        break;
    default:
        if (*sc->p == '-' || is_digit(*sc->p))
            rc = scan_number(sc, &kind);
        else if ((*sc->p | 0x20) >= 'a' && (*sc->p | 0x20) <= 'z')
            rc = scan_literal(sc, &kind);
        else
            return unexpected(sc, "a value");
    }
    if (rc != 0)
        return rc;
    if (depth == 0)
        *top = kind;
    goto after;

key:
    skip_ws(sc);
    if (sc->p >= sc->end || *sc->p != '"')
        return unexpected(sc, "a key (a string)");
    if ((rc = add_key(sc)) != 0 || (rc = scan_string(sc)) != 0)
        return rc;
    skip_ws(sc);
    if (sc->p >= sc->end || *sc->p != ':')
        return unexpected(sc, "':'");
    sc->p++;
    goto value;

after:
    skip_ws(sc);
    if (depth == 0) {
        if (sc->p < sc->end)
            return fail_at(sc, sc->p, "the line goes on after its JSON value ended");
        return 0;
    }
    if (sc->p < sc->end && *sc->p == ',') {
        sc->p++;
        if (open[depth - 1] == '[')
            goto value;
        goto key;
    }
    if (sc->p < sc->end && *sc->p == (open[depth - 1] == '{' ? '}' : ']')) {
        depth--;
        if (open[depth] == '{' && (rc = check_keys(sc, key_from[depth])) != 0)
            return rc;
        sc->p++;
        goto after;
    }
    return unexpected(sc, open[depth - 1] == '{' ? "',' or '}'" : "',' or ']'");
}

/* Characters up to and including the byte at offset (the last one when
 * the line ended), counted as cairnd counts them. */
static size_t column_of(const unsigned char *s, size_t len, size_t offset)
{
    size_t i, col = 0, upto = offset < len ? offset + 1 : len;

    for (i = 0; i < upto; i++)
        if ((s[i] & 0xc0) != 0x80)
            col++;
    return col > 0 ? col : 1;
}

int cairn_json_scan(const char *text, size_t len, enum cairn_json_kind *kind,
                    struct cairn_json_fault *fault)
{
    struct scan sc = {
        .s = (const unsigned char *)text,
        .p = (const unsigned char *)text,
        .end = (const unsigned char *)text + len,
        .f = fault,
    };
    int rc = scan_value(&sc, kind);

    free(sc.keys);
    if (rc == -EINVAL)
        fault->column = column_of(sc.s, len, fault->offset);
    return rc;
}

const char *cairn_json_kind_name(enum cairn_json_kind kind)
{
    static const char *const names[] = {
        [CAIRN_JSON_KIND_OBJECT] = "an object",   [CAIRN_JSON_KIND_ARRAY] = "an array",
        [CAIRN_JSON_KIND_STRING] = "a string",    [CAIRN_JSON_KIND_INTEGER] = "an integer",
        [CAIRN_JSON_KIND_REAL] = "a real number", [CAIRN_JSON_KIND_BOOLEAN] = "a boolean",
        [CAIRN_JSON_KIND_NULL] = "null",
    };

    return names[kind];
}
