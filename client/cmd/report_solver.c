/*
 * report_solver.c - the solver `cairn report` gets (struct
 * cairn_report_solver, report_types.h), filled from client/solve/: the plugins
 * of plugin_dir, loaded the way cairnd loads them on the report's first
 * need.  The report sees only the function pointers, so client/report/
 * never links the plugin host.
 */
#include "commands.h"
#include "gen_solve.h"
#include "report.h"

static int open_plugins(void *data, struct cairn_client *cl)
{
    struct cairn_gen_solver **s = data;

    return cairn_gen_solver_open_as(cl, cl->cfg.plugin_dir, "report", s);
}

static int solve_line(void *data, const char *line, size_t len, const char **result,
                      size_t *result_len)
{
    struct cairn_gen_solver **s = data;

    return cairn_gen_solve_line(*s, line, len, result, result_len);
}

static void close_plugins(void *data)
{
    struct cairn_gen_solver **s = data;

    cairn_gen_solver_close(*s);
    *s = NULL;
}

void cairn_report_solver_plugins(struct cairn_report_solver *rs, struct cairn_gen_solver **slot)
{
    *slot = NULL;
    *rs = (struct cairn_report_solver){
        .open = open_plugins, .solve_line = solve_line, .close = close_plugins, .data = slot
    };
}
