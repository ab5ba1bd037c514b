/*
 * judge_out.h - `cairn judge`'s verdict as text, JSON and HTML
 * (judge_out.c).
 */
#ifndef CAIRN_CLIENT_JUDGE_OUT_H
#define CAIRN_CLIENT_JUDGE_OUT_H

#include <jansson.h>

#include "client.h"

/* The report object (judge.c builds it) as text on stdout, as JSON on
 * stdout, and as an HTML page in a file.  0 or a negative errno. */
int cairn_judge_print_text(struct cairn_client *cl, const json_t *report);
int cairn_judge_print_json(struct cairn_client *cl, const json_t *report);
int cairn_judge_write_html(struct cairn_client *cl, const json_t *report, const char *file);

#endif /* CAIRN_CLIENT_JUDGE_OUT_H */
