/*
 * jsontext.c - finding a member's text in an already validated JSON object,
 * and naming a value's type (see jsontext.h).  Only called on lines jansson accepted, so it skips
 * rather than checks.
 */
#include "jsontext.h"

#include <string.h>

struct span {
    const char *p;
    const char *end;
};

static void skip_ws(struct span *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\n' || *c->p == '\r'))
        c->p++;
}

static int hexval(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'f')
        return ch - 'a' + 10;
    if (ch >= 'A' && ch <= 'F')
        return ch - 'A' + 10;
    return -1;
}

/* Reads the string at c->p (at its opening quote) and says whether it
 * decodes to key.  Keys that need a \u escape beyond ASCII never equal
 * ours, which are ASCII. */
static int string_is(struct span *c, const char *key)
{
    size_t k = 0;
    int same = 1;

    c->p++; /* the opening quote */
    while (c->p < c->end && *c->p != '"') {
        int ch = (unsigned char)*c->p++;

        if (ch == '\\' && c->p < c->end) {
            char esc = *c->p++;
            switch (esc) {
            case 'b': ch = '\b'; break;
            case 'f': ch = '\f'; break;
            case 'n': ch = '\n'; break;
            case 'r': ch = '\r'; break;
            case 't': ch = '\t'; break;
            case 'u':
                ch = 0;
                for (int i = 0; i < 4 && c->p < c->end; i++) {
                    int h = hexval(*c->p++);
                    ch = ch * 16 + (h < 0 ? 0 : h);
                }
                if (ch > 0x7f)
                    ch = -1;
                break;
            default: ch = (unsigned char)esc; break;
            }
        }
        if (ch < 0 || key[k] == '\0' || key[k] != (char)ch)
            same = 0;
        else
            k++;
    }
    if (c->p < c->end)
        c->p++; /* the closing quote, unless the line was cut short */
    return same && key[k] == '\0';
}

/* Skips one value: a string, a nested object or array, or a bare token. */
static void skip_value(struct span *c)
{
    int depth = 0;

    do {
        if (c->p >= c->end)
            return;
        switch (*c->p) {
        case '"': string_is(c, ""); continue;
        case '{':
        case '[':
            depth++;
            c->p++;
            continue;
        case '}':
        case ']':
            depth--;
            c->p++;
            continue;
        default:
            if (depth == 0) {
                while (c->p < c->end && strchr(",}] \t\r\n", *c->p) == NULL)
                    c->p++;
                return;
            }
            c->p++;
        }
    } while (depth > 0);
}

int cairn_json_member_text(const char *line, size_t len, const char *key, const char **val,
                           size_t *val_len)
{
    struct span c = { line, line + len };

    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{')
        return 0;
    c.p++;
    for (;;) {
        int found;

        skip_ws(&c);
        if (c.p >= c.end || *c.p != '"')
            return 0; /* '}' of an empty object, or not what a parser took */
        found = string_is(&c, key);
        skip_ws(&c);
        if (c.p >= c.end || *c.p != ':')
            return 0;
        c.p++;
        skip_ws(&c);
        *val = c.p;
        skip_value(&c);
        if (found) {
            *val_len = (size_t)(c.p - *val);
            return 1;
        }
        skip_ws(&c);
        if (c.p >= c.end || *c.p != ',')
            return 0;
        c.p++;
    }
}

const char *cairn_json_type_name(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "an unknown value";
}
