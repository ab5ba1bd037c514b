/*
 * jsonl.c - the check `cairn submit` makes before a file enters the spool:
 * every line the daemon would not skip is one JSON object.  It is the
 * daemon's own first test of a record (jansson, duplicate keys refused),
 * so a file that passes gets no bad_json or "not an object" error lines;
 * what a record holds inside is still the daemon's to judge.
 */
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "jsontext.h"

int cairn_client_check_line(const char *line, size_t len, char *why, size_t why_size)
{
    const char *nul;
    json_error_t e;
    json_t *v;
    size_t i;

    /* The terminator is not part of the record: "\n", or "\r\n". */
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
        ;
    if (i == len)
        return 1; /* blank: the daemon skips it (linecut.c is_blank) */
    /* jansson reads a number or literal up to a NUL and stops: the rest of
     * the line would go unseen. */
    if ((nul = memchr(line, '\0', len)) != NULL) {
        snprintf(why, why_size, "column %zu: a NUL byte", (size_t)(nul - line) + 1);
        return -EINVAL;
    }
    v = json_loadb(line, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    if (v == NULL) {
        snprintf(why, why_size, "column %d: %s", e.column, e.text);
        return -EINVAL;
    }
    if (!json_is_object(v)) {
        snprintf(why, why_size, "not a JSON object but %s", cairn_json_type_name(v));
        json_decref(v);
        return -EINVAL;
    }
    json_decref(v);
    return 0;
}
