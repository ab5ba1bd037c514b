/*
 * judge_answer.c - `cairn judge`'s grading: each input as a record that
 * cairn solves through cairnd's record path (client/solve/gen_solve.h),
 * one run of the candidate over a batch of inputs (judge_run.c), its
 * answer lines read and graded against cairn's, and its failures as a
 * program (a crash, a timeout, garbage) named with its last stderr lines.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "judge_state.h"

#define JUDGE_STDERR_LINES 10

/* ---- inputs and records -------------------------------------------------- */

int cairn_judge_render_input(struct cairn_buf *b, const struct cairn_plugin *p,
                             const struct cairn_judge_input *in)
{
    size_t a, i;
    int rc = cairn_buf_puts(b, "{");

    for (a = 0; rc == 0 && a < in->k; a++) {
        rc = cairn_buf_printf(b, "%s\"%s\":", a > 0 ? "," : "", p->inputs[a].name);
        if (in->scalar) {
            if (rc == 0)
                rc = cairn_buf_int(b, in->v[0]);
            continue;
        }
        if (rc == 0)
            rc = cairn_buf_puts(b, "[");
        for (i = 0; rc == 0 && i < in->n; i++)
            if ((i == 0 || (rc = cairn_buf_puts(b, ",")) == 0))
                rc = cairn_buf_int(b, in->v[a * in->n + i]);
        if (rc == 0)
            rc = cairn_buf_puts(b, "]");
    }
    return rc != 0 ? rc : cairn_buf_puts(b, "}");
}

/* cairn's result line for the input (and a line of play to grade). */
int cairn_judge_solve(struct judge *j, const struct cairn_judge_input *in, const json_t *play,
                      json_t **res)
{
    struct cairn_buf *b = &j->rec;
    int rc;

    b->len = 0;
    rc = cairn_buf_printf(b, "{\"variant\":\"%s\",\"input\":", j->p->name);
    if (rc == 0)
        rc = cairn_judge_render_input(b, j->p, in);
    if (rc == 0)
        rc = cairn_buf_printf(b, ",\"options\":{\"moves\":true%s",
                              j->extended ? ",\"limits\":\"extended\"" : "");
    if (rc == 0 && play != NULL) {
        char *text = json_dumps(play, JSON_COMPACT | JSON_ENCODE_ANY);

        rc = text == NULL ? -ENOMEM : cairn_buf_printf(b, ",\"play\":%s", text);
        free(text);
    }
    if (rc == 0)
        rc = cairn_buf_puts(b, "}}");
    return rc != 0 ? rc : cairn_gen_solve_result(j->s, b->data, b->len, res);
}

int cairn_judge_is_ok(const json_t *res)
{
    const char *st = json_string_value(json_object_get(res, "status"));

    return st != NULL && strcmp(st, "ok") == 0;
}

/* ---- the candidate's answers --------------------------------------------- */

static const char *fault_word(enum cairn_judge_fault f)
{
    switch (f) {
    case CAIRN_JUDGE_TIMEOUT: return "timeout";
    case CAIRN_JUDGE_CRASHED: return "crashed";
    case CAIRN_JUDGE_EXITED: return "exited";
    case CAIRN_JUDGE_TOO_FEW: return "too_few_lines";
    case CAIRN_JUDGE_GARBAGE: return "garbage";
    case CAIRN_JUDGE_TOO_MUCH: return "too_much_output";
    default: return "ran";
    }
}

/* The last JUDGE_STDERR_LINES lines of its stderr, printable. */
static json_t *stderr_lines(const char *tail)
{
    json_t *a = json_array();
    const char *p = tail + strlen(tail), *end;
    int n = 0;

    while (p > tail && p[-1] == '\n')
        p--;
    end = p;
    while (a != NULL && p > tail && n < JUDGE_STDERR_LINES) {
        const char *s = p;
        char *line, *shown;

        while (s > tail && s[-1] != '\n')
            s--;
        if ((line = strndup(s, (size_t)(end - s))) == NULL ||
            (shown = cairn_text_printable(line)) == NULL) {
            free(line);
            json_decref(a);
            return NULL;
        }
        json_array_insert_new(a, 0, json_string(shown));
        free(line);
        free(shown);
        n++;
        p = end = s > tail ? s - 1 : s;
    }
    return a;
}

/* Keeps the candidate's failure as a program for the report. */
static int fault(struct judge *j, const struct cairn_judge_run *run, enum cairn_judge_fault f,
                 size_t n_inputs, const char *during, const char *what)
{
    char msg[512];
    int st = run->status;

    switch (f) {
    case CAIRN_JUDGE_TIMEOUT:
        snprintf(msg, sizeof(msg),
                 "timed out: %zu of %zu answers within the %g s limit (--timeout)", run->n_lines,
                 n_inputs, j->runner.timeout);
        break;
    case CAIRN_JUDGE_CRASHED:
        snprintf(msg, sizeof(msg), "crashed: killed by signal %d (%s) after %zu of %zu answers",
                 run->signal, strsignal(run->signal), run->n_lines, n_inputs);
        break;
    case CAIRN_JUDGE_EXITED:
        snprintf(msg, sizeof(msg), "exited with status %d after %zu of %zu answers",
                 WEXITSTATUS(st), run->n_lines, n_inputs);
        break;
    case CAIRN_JUDGE_TOO_FEW:
        snprintf(msg, sizeof(msg), "too few lines: %zu answers for %zu inputs (it exited 0)",
                 run->n_lines, n_inputs);
        break;
    case CAIRN_JUDGE_TOO_MUCH:
        snprintf(msg, sizeof(msg), "printed more than 256 MiB without finishing its answers");
        break;
    default: snprintf(msg, sizeof(msg), "printed garbage: %s", what); break;
    }
    json_decref(j->fault);
    j->fault = json_pack("{s:s, s:s, s:s, s:o*}", "kind", fault_word(f), "message", msg, "during",
                         during, "stderr", stderr_lines(run->err_tail));
    return j->fault != NULL ? -ECANCELED : -ENOMEM;
}

/* One answer line: the cairn_judge_answer, and the line of play when given one. */
static int parse_answer(const char *line, size_t len, json_t **given, json_t **play, char *why,
                        size_t why_len)
{
    json_error_t e;
    json_t *v;

    *given = *play = NULL;
    if (len > 0 && line[len - 1] == '\r')
        len--;
    if ((v = json_loadb(line, len, JSON_DECODE_ANY, &e)) == NULL) {
        snprintf(why, why_len, "not JSON (%.80s): %.*s", e.text, (int)(len < 60 ? len : 60), line);
        return -EINVAL;
    }
    if (!json_is_object(v)) {
        *given = v;
        return 0;
    }
    *given = json_incref(json_object_get(v, "answer"));
    *play = json_incref(json_object_get(v, "play"));
    json_decref(v);
    if (*given == NULL || (*play != NULL && !json_is_array(*play))) {
        snprintf(why, why_len, "an object needs \"answer\" and, if any, a \"play\" array: %.*s",
                 (int)(len < 60 ? len : 60), line);
        json_decref(*given);
        json_decref(*play);
        *given = *play = NULL;
        return -EINVAL;
    }
    return 0;
}

/* Runs the candidate on cases[0..n) (their exact results known) and
 * grades each: 0, -ECANCELED when it failed as a program (j->fault). */
int cairn_judge_answer(struct judge *j, struct judge_case *cases, size_t n, const char *during)
{
    struct cairn_judge_run run;
    const char *line;
    size_t i;
    int rc;

    j->lines.len = 0;
    for (i = 0, rc = 0; rc == 0 && i < n; i++)
        if ((rc = cairn_judge_render_input(&j->lines, j->p, &cases[i].in)) == 0)
            rc = cairn_buf_puts(&j->lines, "\n");
    if (rc != 0)
        return rc;
    if ((rc = cairn_judge_run(j->cl, &j->runner, j->lines.data, j->lines.len, n, &run)) != 0)
        return rc;
    if (run.fault != CAIRN_JUDGE_RAN) {
        rc = fault(j, &run, run.fault, n, during, NULL);
        cairn_judge_run_free(&run);
        return rc;
    }
    for (i = 0, line = run.out; rc == 0 && i < n; i++) {
        const char *nl = strchr(line, '\n');
        struct judge_case *c = &cases[i];
        json_t *play_res = NULL;
        char why[200], what[240];

        json_decref(c->given);
        json_decref(c->play);
        c->play = NULL;
        if (parse_answer(line, (size_t)(nl - line), &c->given, &play_res, why, sizeof(why)) != 0) {
            snprintf(what, sizeof(what), "answer %zu: %.200s", i + 1, why);
            rc = fault(j, &run, CAIRN_JUDGE_GARBAGE, n, during, what);
            break;
        }
        if (play_res != NULL) {
            json_t *played = NULL;

            rc = cairn_judge_solve(j, &c->in, play_res, &played);
            json_decref(play_res);
            /* Legal: the grading; illegal: the error naming the move. */
            c->play = played == NULL              ? NULL
                      : cairn_judge_is_ok(played) ? json_incref(json_object_get(played, "play"))
                                                  : json_incref(json_object_get(played, "error"));
            json_decref(played);
        }
        c->wrong = !json_equal(c->given, json_object_get(c->exact, "answer")) ||
                   (c->play != NULL && !json_is_true(json_object_get(c->play, "optimal")));
        line = nl + 1;
    }
    cairn_judge_run_free(&run);
    return rc;
}

void cairn_judge_case_free(struct judge_case *c)
{
    cairn_judge_input_free(&c->in);
    free(c->id);
    json_decref(c->exact);
    json_decref(c->given);
    json_decref(c->play);
    memset(c, 0, sizeof(*c));
}

/* The shrinker's tries: cairn says which are legal and their answers,
 * the candidate answers the legal ones in one run. */
int cairn_judge_try_batch(void *ctx, const struct cairn_judge_input *tries, size_t n, int *verdict)
{
    struct judge *j = ctx;
    struct judge_case *cases = calloc(n > 0 ? n : 1, sizeof(*cases));
    size_t i, m = 0, *at = calloc(n > 0 ? n : 1, sizeof(*at));
    int rc = cases == NULL || at == NULL ? -ENOMEM : 0;

    for (i = 0; rc == 0 && i < n; i++) {
        json_t *res = NULL;

        if ((rc = cairn_judge_solve(j, &tries[i], NULL, &res)) != 0)
            break;
        verdict[i] = -1;
        if (!cairn_judge_is_ok(res)) {
            json_decref(res);
            continue;
        }
        cases[m].in = tries[i]; /* borrowed: not freed below */
        cases[m].exact = res;
        at[m++] = i;
    }
    if (rc == 0 && m > 0)
        rc = cairn_judge_answer(j, cases, m, "shrinking");
    for (i = 0; i < m; i++) {
        if (rc == 0)
            verdict[at[i]] = cases[i].wrong;
        cases[i].in = (struct cairn_judge_input){ 0 };
        cairn_judge_case_free(&cases[i]);
    }
    free(cases);
    free(at);
    return rc;
}
