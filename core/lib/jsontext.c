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

/* A parser accepted the line, so ch is a hex digit: '0'-'9', or a letter
 * whose lower case (| 0x20) is 'a'-'f'. */
static int hexval(char ch)
{
    return ch <= '9' ? ch - '0' : (ch | 0x20) - 'a' + 10;
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
                for (int i = 0; i < 4 && c->p < c->end; i++)
                    ch = ch * 16 + hexval(*c->p++);
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
        if (c.p >= c.end)
            return 0;
        c.p++; /* the ':' a parser saw there */
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

int cairn_json_member_before(const char *text, size_t len, size_t pos, const char **key,
                             size_t *key_len)
{
    struct span c = { text, text + len };
    const char *name;
    size_t name_len;
    int found = 0;

    skip_ws(&c);
    if (c.p >= c.end || *c.p != '{')
        return 0;
    c.p++;
    for (;;) {
        skip_ws(&c);
        if (c.p >= c.end || *c.p != '"')
            return found;
        name = c.p + 1;
        string_is(&c, ""); /* past the closing quote */
        name_len = (size_t)(c.p - 1 - name);
        skip_ws(&c);
        if (c.p >= c.end)
            return found;
        c.p++; /* the ':' */
        skip_ws(&c);
        if ((size_t)(c.p - text) > pos)
            return found;
        *key = name;
        *key_len = name_len;
        found = 1;
        skip_value(&c);
        skip_ws(&c);
        if (c.p >= c.end || *c.p != ',')
            return found;
        c.p++;
    }
}

const char *cairn_json_type_name(const json_t *v)
{
    static const char *const names[] = {
        [JSON_OBJECT] = "an object",   [JSON_ARRAY] = "an array",     [JSON_STRING] = "a string",
        [JSON_INTEGER] = "an integer", [JSON_REAL] = "a real number", [JSON_TRUE] = "a boolean",
        [JSON_FALSE] = "a boolean",    [JSON_NULL] = "null",
    };

    return names[json_typeof(v)];
}
