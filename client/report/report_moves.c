/*
 * report_moves.c - the optimal line of play from each variant's smallest
 * failing input.  A result line carries "moves" only when its record
 * asked (options.moves); otherwise the record is solved again here,
 * asking for them, through the solver the command hands the report
 * (struct cairn_report_solver, report_types.h: cairnd's own record path, filled
 * from client/solve/ by the command layer), so the line is the one cairnd
 * would have written.  The report itself never links the plugin host.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "report_moves.h"

/* The record asking for its moves and nothing else: without "expected",
 * "play" and "analysis" (limits and the rest kept).  NULL: not an object
 * (or out of memory). */
static char *asking_moves(const char *record)
{
    json_error_t e;
    json_t *o = json_loads(record, 0, &e), *opt;
    char *text = NULL;

    if (!json_is_object(o))
        goto out;
    json_object_del(o, "expected");
    opt = json_object_get(o, "options");
    if (!json_is_object(opt)) {
        opt = json_object();
        json_object_set_new(o, "options", opt);
    }
    json_object_del(opt, "play");
    json_object_del(opt, "analysis");
    json_object_set_new(opt, "moves", json_true());
    text = json_dumps(o, JSON_COMPACT);
out:
    json_decref(o);
    return text;
}

static void solve_one(const struct cairn_report_solver *s, struct cairn_rep_smallest *sm)
{
    char *req = asking_moves(sm->record);
    const char *res;
    size_t n;
    json_error_t e;
    json_t *o = NULL, *moves;

    if (req == NULL || s->solve_line(s->data, req, strlen(req), &res, &n) != 0 ||
        (o = json_loadb(res, n, 0, &e)) == NULL) {
        sm->moves_why =
            strdup("not computed: the record could not be solved again (out of memory)");
        goto out;
    }
    moves = json_object_get(o, "moves");
    if (json_is_array(moves))
        sm->moves = json_dumps(moves, JSON_COMPACT);
    else {
        const char *msg =
            json_string_value(json_object_get(json_object_get(o, "error"), "message"));
        sm->moves_why = cairn_asprintf("not computed: solved again, the record gave an error: %s",
                                       msg != NULL ? msg : "(no message)");
    }
out:
    json_decref(o);
    free(req);
}

void cairn_report_lines_of_play(struct cairn_client *cl, struct cairn_report *r,
                                const struct cairn_report_solver *solver)
{
    int open = 0;
    char *why = NULL;
    size_t i;

    for (i = 0; i < r->n_variants; i++) {
        struct cairn_rep_smallest *sm = &r->variants[i].small;

        if (sm->input == NULL || sm->moves != NULL)
            continue;
        if (!open && why == NULL) {
            if (solver != NULL && solver->open(solver->data, cl) == 0)
                open = 1;
            else {
                /* Said in the report, not a failure of the report. */
                why = cairn_asprintf("not computed: no solver plugin loads from %s (plugin_dir)",
                                     cl->cfg.plugin_dir ? cl->cfg.plugin_dir : "(none)");
                free(cl->msg);
                cl->msg = NULL;
            }
        }
        if (open)
            solve_one(solver, sm);
        else
            sm->moves_why = why != NULL ? strdup(why) : NULL;
    }
    free(why);
    if (open)
        solver->close(solver->data);
}
