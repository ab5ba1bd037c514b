/*
 * judge.c - `cairn judge`: the positions `cairn gen` would write (the
 * same seed, the same inputs), cairn's answer to each through cairnd's
 * record path (client/solve/gen_solve.h), one run of the candidate over
 * them all (judge_sandbox.c, judge_run.c), the grading (judge_answer.c),
 * and for each kind of failure the smallest failing input, shrunk
 * (judge_shrink.c) with every try graded by cairn and answered by the
 * candidate.  Legal means what the record path says: "ok" under the
 * same limits.
 *
 * Kinds of failure: for answers that are a winner or true/false, the pair
 * (given, exact); for integer answers, too high or too low (every pair
 * would be its own kind); a line of play that is not optimal, or not
 * legal.  Each kind is shrunk from its smallest member; shrinking keeps
 * any failure, so two kinds may meet at one input, reported once.
 */
#include <errno.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>

#include "judge.h"
#include "judge_out.h"
#include "judge_state.h"

#define JUDGE_DEFAULT_COUNT   100
#define JUDGE_MAX_COUNT       1000000
#define JUDGE_DEFAULT_TIMEOUT 10.0
#define JUDGE_MEM_BYTES       (UINT64_C(1) << 30)

/* (values, sum of |value|): the order "smallest" means. */
static int smaller(const struct cairn_judge_input *a, const struct cairn_judge_input *b)
{
    uint64_t sa = 0, sb = 0;
    size_t i;

    if (a->n != b->n)
        return a->n < b->n;
    for (i = 0; i < a->n * a->k; i++) {
        sa += a->v[i] < 0 ? (uint64_t)0 - (uint64_t)a->v[i] : (uint64_t)a->v[i];
        sb += b->v[i] < 0 ? (uint64_t)0 - (uint64_t)b->v[i] : (uint64_t)b->v[i];
    }
    return sa < sb;
}

/* ---- the command --------------------------------------------------------- */

static int check_args(struct judge *j, uint64_t *count, uint64_t *seed)
{
    const struct cairn_judge_opts *o = j->o;

    *count = JUDGE_DEFAULT_COUNT;
    *seed = 1;
    if (o->count != NULL &&
        (cairn_gen_parse_u64(o->count, count) != 0 || *count < 1 || *count > JUDGE_MAX_COUNT))
        return cairn_client_fail(j->cl, -EINVAL,
                                 "judge: --count %s: expected a number of positions from 1 to "
                                 "1000000",
                                 o->count);
    if (o->seed != NULL && cairn_gen_parse_u64(o->seed, seed) != 0)
        return cairn_client_fail(j->cl, -EINVAL,
                                 "judge: --seed %s: expected a whole number from 0 to "
                                 "18446744073709551615",
                                 o->seed);
    j->extended = o->limits != NULL && strcmp(o->limits, "extended") == 0;
    if (o->limits != NULL && !j->extended && strcmp(o->limits, "official") != 0)
        return cairn_client_fail(j->cl, -EINVAL,
                                 "judge: --limits %s: expected official or extended", o->limits);
    if (o->timeout == 0)
        return cairn_client_fail(j->cl, -EINVAL,
                                 "judge: --timeout 0: a run needs some time (seconds, e.g. 0.5)");
    j->runner.timeout = o->timeout > 0 ? o->timeout : JUDGE_DEFAULT_TIMEOUT;
    j->runner.mem_bytes = JUDGE_MEM_BYTES;
    return 0;
}

/* The corpus `cairn gen` writes for the same arguments, solved. */
static int make_cases(struct judge *j, const struct cairn_gen_game *g,
                      const struct cairn_gen_space *sp, uint64_t seed, uint64_t count,
                      struct judge_case *cases)
{
    struct cairn_gen_input in = { 0 };
    struct cairn_gen_rng r;
    uint64_t i;
    int rc = 0;

    for (i = 1; rc == 0 && i <= count; i++) {
        struct judge_case *c = &cases[i - 1];
        struct cairn_judge_input *x = &c->in;
        size_t a;

        cairn_gen_rng_seed(&r, seed, j->p->name, (uint64_t)j->extended | (uint64_t)j->o->traps << 1,
                           i);
        in.profile = NULL;
        if ((rc = j->o->traps ? g->traps(&r, sp, i - 1, &in) : g->plain(&r, sp, &in)) != 0)
            break;
        x->scalar = j->p->inputs[0].kind == CAIRN_INPUT_INT;
        x->k = j->p->n_inputs;
        x->n = in.n;
        if ((x->v = malloc((x->n * x->k > 0 ? x->n * x->k : 1) * sizeof(int64_t))) == NULL ||
            (c->id = cairn_asprintf("%s-%" PRIu64 "-%" PRIu64 "%s%s", j->p->name, seed, i,
                                    in.profile ? ":" : "", in.profile ? in.profile : "")) == NULL) {
            rc = -ENOMEM;
            break;
        }
        for (a = 0; a < x->k; a++)
            memcpy(x->v + a * x->n, in.v[a], x->n * sizeof(int64_t));
        if ((rc = cairn_judge_solve(j, x, NULL, &c->exact)) == 0 && !cairn_judge_is_ok(c->exact))
            rc = cairn_client_fail(j->cl, -EPROTO,
                                   "judge: cairn refuses a position cairn gen made (a bug): %.*s",
                                   (int)(j->rec.len < 300 ? j->rec.len : 300), j->rec.data);
    }
    cairn_gen_input_free(&in);
    return rc;
}

/* The kind of a wrong answer (the file's opening comment). */
static char *kind_of(const struct judge *j, const struct judge_case *c)
{
    const json_t *exact = json_object_get(c->exact, "answer");
    char *g, *e, *k;

    if (json_equal(c->given, exact))
        return strdup(json_is_object(c->play) && json_object_get(c->play, "optimal") != NULL
                          ? "a line of play that is not optimal"
                          : "a line of play that is not legal");
    if (j->p->answer_kind == CAIRN_ANSWER_INT && json_is_integer(c->given))
        return strdup(json_integer_value(c->given) > json_integer_value(exact) ? "too high"
                                                                               : "too low");
    g = json_dumps(c->given, JSON_ENCODE_ANY | JSON_COMPACT);
    e = json_dumps(exact, JSON_ENCODE_ANY | JSON_COMPACT);
    k = g && e ? cairn_asprintf("given %.60s where cairn's is %s", g, e) : NULL;
    free(g);
    free(e);
    return k;
}

static json_t *input_json(struct judge *j, const struct cairn_judge_input *in)
{
    json_t *v;

    j->lines.len = 0;
    if (cairn_judge_render_input(&j->lines, j->p, in) != 0)
        return NULL;
    v = json_loadb(j->lines.data, j->lines.len, 0, NULL);
    return v;
}

/* One kind's failure, shrunk, as the report lists it. */
static int shrink_kind(struct judge *j, const char *kind, size_t n_kind,
                       const struct judge_case *from, json_t *failures)
{
    struct judge_case c = { 0 };
    size_t runs = 0, i;
    char *own = NULL;
    json_t *f;
    int rc, minimal;

    if ((rc = cairn_judge_input_copy(&c.in, &from->in)) != 0)
        return rc;
    rc = cairn_judge_shrink(&c.in, cairn_judge_try_batch, j, &runs);
    minimal = rc == 0;
    if (rc == -ECANCELED)
        rc = 0; /* the candidate failed while shrinking: j->fault says how */
    if (rc == 0)
        rc = cairn_judge_solve(j, &c.in, NULL, &c.exact);
    /* Its answer to the input reached, alone (the shrinker's were many). */
    if (rc == 0 && (rc = cairn_judge_answer(j, &c, 1, "shrinking")) == -ECANCELED)
        rc = 0;
    if (rc != 0) {
        cairn_judge_case_free(&c);
        return rc;
    }
    if ((own = c.given != NULL && c.wrong ? kind_of(j, &c) : strdup(kind)) == NULL) {
        cairn_judge_case_free(&c);
        return -ENOMEM;
    }
    /* Two kinds that shrank to one input: once. */
    for (i = 0; i < json_array_size(failures); i++) {
        json_t *in = input_json(j, &c.in);
        int same = json_equal(in, json_object_get(json_array_get(failures, i), "input"));

        json_decref(in);
        if (same) {
            json_t *also = json_object_get(json_array_get(failures, i), "also");

            json_array_append_new(
                also, json_pack("{s:s, s:I}", "kind", kind, "count", (json_int_t)n_kind));
            cairn_judge_case_free(&c);
            free(own);
            return 0;
        }
    }
    f = json_pack("{s:s, s:{s:s, s:I}, s:o, s:I, s:O*, s:O*, s:O*, s:O*, s:{s:s, s:o}, s:I, s:b, "
                  "s:[]}",
                  "kind", own, "group", "kind", kind, "count", (json_int_t)n_kind, "input",
                  input_json(j, &c.in), "values", (json_int_t)c.in.n, "given", c.given, "exact",
                  json_object_get(c.exact, "answer"), "moves", json_object_get(c.exact, "moves"),
                  "play", c.play, "from", "id", from->id, "input", input_json(j, &from->in),
                  "rounds", (json_int_t)runs, "minimal", minimal, "also");
    cairn_judge_case_free(&c);
    free(own);
    if (f == NULL)
        return -ENOMEM;
    return json_array_append_new(failures, f) == 0 ? 0 : -ENOMEM;
}

/* Groups the wrong answers by kind and shrinks each kind's smallest. */
static int shrink_all(struct judge *j, struct judge_case *cases, size_t n, json_t *failures)
{
    char **kinds = calloc(n > 0 ? n : 1, sizeof(*kinds));
    size_t i, k;
    int rc = kinds == NULL ? -ENOMEM : 0;

    for (i = 0; rc == 0 && i < n; i++)
        if (cases[i].wrong && (kinds[i] = kind_of(j, &cases[i])) == NULL)
            rc = -ENOMEM;
    for (i = 0; rc == 0 && i < n && j->fault == NULL; i++) {
        size_t best = i, count = 0;

        if (kinds[i] == NULL)
            continue;
        for (k = 0; k < i && (kinds[k] == NULL || strcmp(kinds[k], kinds[i]) != 0); k++)
            ;
        if (k < i)
            continue; /* that kind was shrunk already */
        for (k = i; k < n; k++)
            if (kinds[k] != NULL && strcmp(kinds[k], kinds[i]) == 0) {
                count++;
                if (smaller(&cases[k].in, &cases[best].in))
                    best = k;
            }
        rc = shrink_kind(j, kinds[i], count, &cases[best], failures);
    }
    for (i = 0; kinds != NULL && i < n; i++)
        free(kinds[i]);
    free(kinds);
    return rc;
}

/* A word as a shell reads it back. */
static int shell_word(struct cairn_buf *b, const char *w)
{
    const char *p;
    int rc;

    if (*w != '\0' && strspn(w, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                                "-_./=:,+@%") == strlen(w))
        return cairn_buf_printf(b, " %s", w);
    rc = cairn_buf_puts(b, " '");
    for (p = w; rc == 0 && *p != '\0'; p++)
        rc = *p == '\'' ? cairn_buf_puts(b, "'\\''") : cairn_buf_append(b, p, 1);
    return rc != 0 ? rc : cairn_buf_puts(b, "'");
}

/* The command lines that give the same positions again. */
static int reproduce(struct judge *j, uint64_t seed, uint64_t count, json_t *report)
{
    const struct cairn_judge_opts *o = j->o;
    struct cairn_buf b = { 0 }, g = { 0 };
    char opts[256];
    size_t i;
    int rc;

    snprintf(opts, sizeof(opts), " --count %" PRIu64 " --seed %" PRIu64 "%s%s%s%s", count, seed,
             o->traps ? " --traps" : "", o->size ? " --size " : "", o->size ? o->size : "",
             j->extended ? " --limits extended" : "");
    rc = cairn_buf_printf(&b, "cairn judge %s%s", j->p->name, opts);
    if (rc == 0 && o->timeout > 0)
        rc = cairn_buf_printf(&b, " --timeout %g", o->timeout);
    if (rc == 0 && o->no_sandbox)
        rc = cairn_buf_puts(&b, " --no-sandbox");
    if (rc == 0)
        rc = cairn_buf_puts(&b, " --");
    for (i = 0; rc == 0 && i < o->n_cmd; i++)
        rc = shell_word(&b, o->cmd[i]);
    if (rc == 0)
        rc = cairn_buf_printf(&g, "cairn gen %s%s", j->p->name, opts);
    if (rc == 0 && (cairn_buf_append(&b, "", 1) != 0 || cairn_buf_append(&g, "", 1) != 0))
        rc = -ENOMEM;
    if (rc == 0 && (json_object_set_new(report, "reproduce", json_string(b.data)) != 0 ||
                    json_object_set_new(report, "corpus", json_string(g.data)) != 0))
        rc = -ENOMEM;
    cairn_buf_free(&b);
    cairn_buf_free(&g);
    return rc;
}

static json_t *command_json(const struct cairn_judge_opts *o)
{
    json_t *a = json_array();
    size_t i;

    for (i = 0; a != NULL && i < o->n_cmd; i++)
        if (json_array_append_new(a, json_string(o->cmd[i])) != 0) {
            json_decref(a);
            return NULL;
        }
    return a;
}

static int judge(struct judge *j, int *failed)
{
    const char *dir = j->o->plugins != NULL ? j->o->plugins : j->cl->cfg.plugin_dir;
    const struct cairn_gen_game *g = NULL;
    struct judge_case *cases = NULL;
    struct cairn_gen_space sp;
    uint64_t count, seed, i;
    size_t wrong = 0;
    json_t *report = NULL, *failures = NULL;
    int rc;

    if ((rc = check_args(j, &count, &seed)) != 0 ||
        (rc = cairn_gen_solver_open_as(j->cl, dir, "judge", &j->s)) != 0 ||
        (rc = cairn_gen_find_game(j->cl, "judge", j->s, j->o->variant, dir, &j->p, &g)) != 0 ||
        (rc = cairn_gen_settle_space(j->cl, "judge", j->p, g, j->o->size, j->extended, &sp)) != 0 ||
        (rc = cairn_judge_settle_runner(j)) != 0)
        return rc;
    if ((cases = calloc(count, sizeof(*cases))) == NULL)
        return -ENOMEM;
    rc = make_cases(j, g, &sp, seed, count, cases);
    if (rc == 0 && (rc = cairn_judge_answer(j, cases, count, "the first run")) == -ECANCELED)
        rc = 0;
    for (i = 0; rc == 0 && j->fault == NULL && i < count; i++)
        wrong += cases[i].wrong != 0;
    failures = json_array();
    if (rc == 0 && failures == NULL)
        rc = -ENOMEM;
    if (rc == 0 && j->fault == NULL && wrong > 0)
        rc = shrink_all(j, cases, count, failures);
    if (rc == 0) {
        int ran = j->fault == NULL || strcmp(json_string_value(json_object_get(j->fault, "during")),
                                             "the first run") != 0;

        report = json_pack("{s:s, s:I, s:I, s:b, s:s?, s:s, s:o, s:s, s:f, s:I, s:I, s:O, s:O*}",
                           "variant", j->p->name, "seed", (json_int_t)seed, "count",
                           (json_int_t)count, "traps", j->o->traps, "size", j->o->size, "limits",
                           j->extended ? "extended" : "official", "command", command_json(j->o),
                           "sandbox", j->sandbox, "timeout", j->runner.timeout, "right",
                           (json_int_t)(ran ? count - wrong : 0), "wrong", (json_int_t)wrong,
                           "failures", failures, "candidate_error", j->fault);
        if (report == NULL)
            rc = -ENOMEM;
        else if (ran)
            json_object_set_new(report, "pass_rate", json_real((double)(count - wrong) / count));
        else
            json_object_set_new(report, "pass_rate", json_null());
    }
    if (rc == 0)
        rc = reproduce(j, seed, count, report);
    if (rc == 0)
        rc = j->o->json ? cairn_judge_print_json(j->cl, report)
                        : cairn_judge_print_text(j->cl, report);
    if (rc == 0 && j->o->html != NULL)
        rc = cairn_judge_write_html(j->cl, report, j->o->html);
    *failed = wrong > 0 || j->fault != NULL;
    for (i = 0; i < count; i++)
        cairn_judge_case_free(&cases[i]);
    free(cases);
    json_decref(failures);
    json_decref(report);
    return rc;
}

int cairn_cmd_judge(struct cairn_client *cl, const struct cairn_judge_opts *o, int *failed)
{
    struct judge j = { .cl = cl, .o = o };
    struct sigaction ign = { .sa_handler = SIG_IGN }, old;
    int rc;

    *failed = 0;
    if (o->n_cmd == 0)
        return cairn_client_fail(cl, -EINVAL,
                                 "judge: no candidate: cairn judge VARIANT [OPTIONS] -- CMD "
                                 "[ARGS...]");
    /* A candidate that stops reading its input must not end cairn; one
     * that escapes its process group is still cairn's to end (judge_run.c). */
    sigemptyset(&ign.sa_mask);
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    sigaction(SIGPIPE, &ign, &old);
    rc = judge(&j, failed);
    sigaction(SIGPIPE, &old, NULL);
    if (rc == -ENOMEM && cl->msg == NULL)
        cairn_client_fail(cl, rc, "judge: out of memory");
    cairn_judge_argv_free(j.runner.argv);
    cairn_buf_free(&j.rec);
    cairn_buf_free(&j.lines);
    json_decref(j.fault);
    cairn_gen_solver_close(j.s);
    return rc;
}
