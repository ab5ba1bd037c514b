/*
 * jsonl.c - the check `cairn submit` makes before a file enters the spool:
 * every line the daemon would not skip is one JSON object.  It accepts
 * what the daemon's own first test of a record accepts (jansson,
 * duplicate keys refused), so a file that passes gets no bad_json or "not
 * an object" error lines; what a record holds inside is still the
 * daemon's to judge.
 *
 * The line is scanned, not parsed into a tree (jsonscan.h): a tree takes
 * tens of bytes per value, so a valid record of 12 MB took most of a
 * gigabyte and, short of it, was refused as if it were not JSON.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "client.h"
#include "jsonscan.h"

int cairn_client_check_line(const char *line, size_t len, char *why, size_t why_size)
{
    struct cairn_json_fault f;
    enum cairn_json_kind kind;
    const char *nul;
    size_t i;
    int rc;

    /* The terminator is not part of the record: "\n", or "\r\n". */
    if (len > 0 && line[len - 1] == '\n')
        len--;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    for (i = 0; i < len && (line[i] == ' ' || line[i] == '\t'); i++)
        ;
    if (i == len)
        return 1; /* blank: the daemon skips it (linecut.c is_blank) */
    if ((nul = memchr(line, '\0', len)) != NULL) {
        snprintf(why, why_size, "column %zu: a NUL byte", (size_t)(nul - line) + 1);
        return -EINVAL;
    }
    rc = cairn_json_scan(line, len, &kind, &f);
    if (rc == -ENOMEM) {
        snprintf(why, why_size, "out of memory checking the line (%zu bytes)", len);
        return rc;
    }
    if (rc != 0) {
        snprintf(why, why_size, "column %zu: %s", f.column, f.what);
        return -EINVAL;
    }
    if (kind != CAIRN_JSON_KIND_OBJECT) {
        snprintf(why, why_size, "not a JSON object but %s", cairn_json_kind_name(kind));
        return -EINVAL;
    }
    return 0;
}
