/*
 * gen_solve.c - cairn gen's expected answers, from the shipped plugins
 * through cairnd's own code: the plugin host loads them (vetting, sealed
 * copies, ABI versions, as at cairnd's start-up) and each record goes
 * through cairn_record_process(), the function cairnd's workers run.  The
 * answer is then cairnd's by construction, not a second solver's.
 */
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "gen_solve.h"
#include "log.h"
#include "plugin_set.h"
#include "record.h"

struct cairn_gen_solver {
    struct cairn_registry reg;
    struct cairn_record_ctx ctx;
    struct cairn_scratch scratch;
    struct cairn_tally tally;
    struct cairn_buf out; /* the result line */
    char *answer;         /* its "answer", as JSON text */
};

int cairn_gen_solver_open(struct cairn_client *cl, const char *dir, struct cairn_gen_solver **out)
{
    return cairn_gen_solver_open_as(cl, dir, "gen", out);
}

int cairn_gen_solver_open_as(struct cairn_client *cl, const char *dir, const char *who,
                             struct cairn_gen_solver **out)
{
    struct cairn_gen_solver *s = calloc(1, sizeof(*s));
    struct cairn_log log;
    char *prefix = cairn_asprintf("%s: ", who);
    int rc;

    *out = NULL;
    if (s == NULL || prefix == NULL) {
        free(s);
        free(prefix);
        return cairn_client_fail(cl, -ENOMEM, "%s: out of memory", who);
    }
    /* Refusals are logged as cairnd logs them; a refused plugin other
     * than the game asked for does not stop the corpus (gen.c checks
     * that one loaded). */
    cairn_log_init(&log, CAIRN_LOG_WARNING);
    cairn_log_set_program(&log, "cairn");
    rc = cairn_plugin_set_load_registry(&s->reg, dir, NULL, NULL, CAIRN_VERDICTS_USE, &log, prefix);
    free(prefix);
    if (rc != -ENOMEM && s->reg.n_plugins == 0)
        rc = cairn_client_fail(cl, -EINVAL,
                               "%s: no solver plugins loaded from %s (plugin_dir; --plugins "
                               "DIR names another)",
                               who, dir);
    else if (rc == -ENOMEM || cairn_tally_init(&s->tally, s->reg.n_plugins) != 0)
        rc =
            cairn_client_fail(cl, -ENOMEM, "%s: out of memory loading the plugins of %s", who, dir);
    else
        rc = 0;
    if (rc != 0) {
        cairn_registry_free(&s->reg);
        free(s);
        return rc;
    }
    s->ctx.reg = &s->reg;
    s->ctx.default_limits = CAIRN_LIMITS_OFFICIAL; /* each record says its own */
    *out = s;
    return 0;
}

const struct cairn_plugin *cairn_gen_solver_find(const struct cairn_gen_solver *s, const char *name)
{
    const struct cairn_plugin_handle *h = cairn_registry_find(&s->reg, name);

    return h != NULL ? h->desc : NULL;
}

int cairn_gen_solve(struct cairn_gen_solver *s, struct cairn_client *cl, const char *line,
                    size_t len, const char **answer)
{
    json_t *res, *status;
    int rc = cairn_gen_solve_result(s, line, len, &res);

    if (rc != 0)
        return rc;
    status = json_object_get(res, "status");
    free(s->answer);
    s->answer = NULL;
    if (!json_is_string(status) || strcmp(json_string_value(status), "ok") != 0) {
        /* The generator made a record cairn refuses: a bug to report, not
         * a corpus to write with a wrong "expected". */
        json_decref(res);
        return cairn_client_fail(cl, -EPROTO,
                                 "gen: cairn refuses a record the generator made (a bug in "
                                 "cairn gen): %.*s -> %.*s",
                                 (int)(len < 300 ? len : 300), line,
                                 (int)(s->out.len > 0 ? s->out.len - 1 : 0), s->out.data);
    }
    s->answer = json_dumps(json_object_get(res, "answer"), JSON_ENCODE_ANY | JSON_COMPACT);
    json_decref(res);
    if (s->answer == NULL)
        return -ENOMEM;
    *answer = s->answer;
    return 0;
}

int cairn_gen_solve_result(struct cairn_gen_solver *s, const char *line, size_t len, json_t **res)
{
    json_error_t jerr;
    const char *text;
    size_t text_len;
    int rc = cairn_gen_solve_line(s, line, len, &text, &text_len);

    *res = NULL;
    if (rc != 0)
        return rc;
    *res = json_loadb(text, text_len, 0, &jerr);
    return *res != NULL ? 0 : -ENOMEM; /* cairn's own result lines are JSON */
}

void cairn_gen_solver_close(struct cairn_gen_solver *s)
{
    if (s == NULL)
        return;
    free(s->answer);
    cairn_buf_free(&s->out);
    cairn_tally_free(&s->tally);
    cairn_scratch_free(&s->scratch);
    cairn_registry_free(&s->reg);
    free(s);
}

int cairn_gen_solve_line(struct cairn_gen_solver *s, const char *line, size_t len,
                         const char **result, size_t *result_len)
{
    int rc;

    s->out.len = 0;
    rc = cairn_record_process(&s->ctx, &s->scratch, 1, line, len, &s->out, &s->tally);
    if (rc != 0)
        return rc;
    *result = s->out.data;
    *result_len = s->out.len;
    return 0;
}
