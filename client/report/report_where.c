/*
 * report_where.c - where a result line's record is, and what of it a
 * report shows: its members as written, made printable and cut, the
 * record's line and position (report_where.h).
 */
#include "report_where.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "jsontext.h"
#include "util.h"

/* A whole record shown on the page is cut here: a record may be megabytes. */
#define RECORD_SHOWN_MAX 4096

uint64_t cairn_report_count(const json_t *o, const char *key)
{
    json_int_t v = json_integer_value(json_object_get(o, key));

    return v > 0 ? (uint64_t)v : 0;
}

char *cairn_report_dup(const char *s)
{
    return s != NULL ? strdup(s) : NULL;
}

/* Text of n bytes, printable (raw UTF-8 in a string may hold C1
 * controls), for showing only; NULL when out of memory. */
static char *shown(const char *text, size_t n)
{
    char *raw = strndup(text, n), *p;

    if (raw == NULL)
        return NULL;
    p = cairn_text_printable(raw);
    free(raw);
    return p;
}

/* A member's JSON text as written, printable; NULL if absent. */
char *cairn_report_member(const char *line, size_t len, const char *key)
{
    const char *v;
    size_t n;

    return cairn_json_member_text(line, len, key, &v, &n) ? shown(v, n) : NULL;
}

/* s cut to max bytes (not inside a UTF-8 character), "..." after. */
static void shorten(char *s, size_t max)
{
    size_t n = strlen(s);

    if (n <= max + 3) /* no shorter for the dots */
        return;
    max = cairn_utf8_cut(s, max);
    memcpy(s + max, "...", 4); /* max + 4 <= n: room for it */
}

/* A record's position and line into w, when the record is known. */
void cairn_report_fill_where(struct cairn_rep_where *w, const struct cairn_rep_rec *rec)
{
    if (rec->line == NULL || w->record != NULL)
        return;
    w->record = shown(rec->line, rec->len < RECORD_SHOWN_MAX ? rec->len : RECORD_SHOWN_MAX);
    if (w->record != NULL && rec->len > RECORD_SHOWN_MAX)
        shorten(w->record, strlen(w->record) - 4); /* say it was cut */
    w->position = cairn_report_member(rec->line, rec->len, "input");
    if (w->position != NULL)
        shorten(w->position, CAIRN_REPORT_POSITION_MAX);
}

int cairn_report_where_of(struct cairn_rep_where *w, const char *job, size_t job_index,
                          const json_t *o, const char *line, size_t len, const char *vname)
{
    *w = (struct cairn_rep_where){ .job = strdup(job),
                                   .job_index = job_index,
                                   .line = cairn_report_count(o, "line"),
                                   .id = cairn_report_member(line, len, "id"),
                                   .variant = cairn_report_dup(vname) };
    const char *v;
    size_t n;

    /* The results line parsed: its JSON text is valid UTF-8, exact. */
    if (cairn_json_member_text(line, len, "id", &v, &n) && (w->id_json = strndup(v, n)) == NULL)
        return -ENOMEM;
    return w->job != NULL && (vname == NULL || w->variant != NULL) ? 0 : -ENOMEM;
}

void cairn_report_where_free(struct cairn_rep_where *w)
{
    free(w->job);
    free(w->id);
    free(w->id_json);
    free(w->variant);
    free(w->position);
    free(w->record);
}
