/*
 * report_json.h - the report as one JSON object (report_json.c).
 */
#ifndef CAIRN_CLIENT_REPORT_JSON_H
#define CAIRN_CLIENT_REPORT_JSON_H

#include <stdio.h>

#include "report_types.h"

/* The report as one JSON object (report_json.c; docs/cairn.1, JSON). */
int cairn_report_json(const struct cairn_report *r, FILE *out);

#endif /* CAIRN_CLIENT_REPORT_JSON_H */
