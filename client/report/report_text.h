/*
 * report_text.h - the report as text (report_text.c).
 */
#ifndef CAIRN_CLIENT_REPORT_TEXT_H
#define CAIRN_CLIENT_REPORT_TEXT_H

#include <stdio.h>

#include "report_types.h"

int cairn_report_text(const struct cairn_report *r, FILE *out);

#endif /* CAIRN_CLIENT_REPORT_TEXT_H */
