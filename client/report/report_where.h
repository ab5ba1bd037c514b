/*
 * report_where.h - where a result line's record is, and its members as a report shows
 * them (report_where.c), for the lines read (report_lines.c) and the
 * graded play (report_play.c).
 */
#ifndef CAIRN_CLIENT_REPORT_WHERE_H
#define CAIRN_CLIENT_REPORT_WHERE_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "report_types.h"

/* A copy of s, or NULL for NULL (and when out of memory). */
char *cairn_report_dup(const char *s);

/* A non-negative integer member of o, else 0. */
uint64_t cairn_report_count(const json_t *o, const char *key);

/* The record a result line is about, when its input is read beside it. */
struct cairn_rep_rec {
    const char *line; /* NULL: not known */
    size_t len;
};

/* Where a results line is, for what a report says about it. */
struct cairn_rep_line_at {
    const char *file; /* as shown */
    unsigned long long no;
    const struct cairn_rep_rec *rec;
};

/* A member's JSON text as written in line, printable; NULL if absent
 * (or out of memory). */
char *cairn_report_member(const char *line, size_t len, const char *key);

/* w for the result line o (line/len as written) of job: 0 or -ENOMEM. */
int cairn_report_where_of(struct cairn_rep_where *w, const char *job, size_t job_index,
                          const json_t *o, const char *line, size_t len, const char *vname);
/* The record's position and line into w, when the record is known. */
void cairn_report_fill_where(struct cairn_rep_where *w, const struct cairn_rep_rec *rec);

void cairn_report_where_free(struct cairn_rep_where *w);

#endif /* CAIRN_CLIENT_REPORT_WHERE_H */
