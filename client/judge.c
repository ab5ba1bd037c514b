/*
 * judge.c - `cairn judge`: the positions `cairn gen` would write (the
 * same seed, the same inputs), cairn's answer to each through cairnd's
 * record path (gen_solve.c), one run of the candidate over them all, the
 * grading, and for each kind of failure the smallest failing input,
 * shrunk (judge_shrink.c) with every try graded by cairn and answered by
 * the candidate.  Legal means what the record path says: "ok" under the
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
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "gen.h"
#include "judge.h"

#define JUDGE_DEFAULT_COUNT   100
#define JUDGE_MAX_COUNT       1000000
#define JUDGE_DEFAULT_TIMEOUT 10.0
#define JUDGE_MEM_BYTES       (UINT64_C(1) << 30)
#define JUDGE_STDERR_LINES    10

struct judge_case {
    struct cairn_judge_input in;
    char *id;
    json_t *exact; /* cairn's result line for it */
    json_t *given; /* the candidate's answer */
    json_t *play;  /* cairn's grading of the candidate's line of play, or NULL */
    int wrong;
};

struct judge {
    struct cairn_client *cl;
    const struct cairn_judge_opts *o;
    const struct cairn_plugin *p;
    struct cairn_gen_solver *s;
    int extended;
    struct cairn_judge_runner runner;
    const char *sandbox; /* what the report says about it */
    struct cairn_buf rec, lines;
    json_t *fault; /* the candidate's failure as a program, or NULL */
};

/* ---- inputs and records -------------------------------------------------- */

static int render_input(struct cairn_buf *b, const struct cairn_plugin *p,
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
static int solve(struct judge *j, const struct cairn_judge_input *in, const json_t *play,
                 json_t **res)
{
    struct cairn_buf *b = &j->rec;
    int rc;

    b->len = 0;
    rc = cairn_buf_printf(b, "{\"variant\":\"%s\",\"input\":", j->p->name);
    if (rc == 0)
        rc = render_input(b, j->p, in);
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

static int is_ok(const json_t *res)
{
    const char *st = json_string_value(json_object_get(res, "status"));

    return st != NULL && strcmp(st, "ok") == 0;
}

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

/* One answer line: the answer, and the line of play when given one. */
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
static int answer(struct judge *j, struct judge_case *cases, size_t n, const char *during)
{
    struct cairn_judge_run run;
    const char *line;
    size_t i;
    int rc;

    j->lines.len = 0;
    for (i = 0, rc = 0; rc == 0 && i < n; i++)
        if ((rc = render_input(&j->lines, j->p, &cases[i].in)) == 0)
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

            rc = solve(j, &c->in, play_res, &played);
            json_decref(play_res);
            /* Legal: the grading; illegal: the error naming the move. */
            c->play = played == NULL  ? NULL
                      : is_ok(played) ? json_incref(json_object_get(played, "play"))
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

static void case_free(struct judge_case *c)
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
static int try_batch(void *ctx, const struct cairn_judge_input *tries, size_t n, int *verdict)
{
    struct judge *j = ctx;
    struct judge_case *cases = calloc(n > 0 ? n : 1, sizeof(*cases));
    size_t i, m = 0, *at = calloc(n > 0 ? n : 1, sizeof(*at));
    int rc = cases == NULL || at == NULL ? -ENOMEM : 0;

    for (i = 0; rc == 0 && i < n; i++) {
        json_t *res = NULL;

        if ((rc = solve(j, &tries[i], NULL, &res)) != 0)
            break;
        verdict[i] = -1;
        if (!is_ok(res)) {
            json_decref(res);
            continue;
        }
        cases[m].in = tries[i]; /* borrowed: not freed below */
        cases[m].exact = res;
        at[m++] = i;
    }
    if (rc == 0 && m > 0)
        rc = answer(j, cases, m, "shrinking");
    for (i = 0; i < m; i++) {
        if (rc == 0)
            verdict[at[i]] = cases[i].wrong;
        cases[i].in = (struct cairn_judge_input){ 0 };
        case_free(&cases[i]);
    }
    free(cases);
    free(at);
    return rc;
}

/* ---- the command --------------------------------------------------------- */

/* An executable file of that name in PATH (or the path given), made
 * absolute: malloc'd, or NULL. */
static char *find_exe(const char *name)
{
    const char *path = getenv("PATH"), *p, *colon;
    char buf[PATH_MAX];

    if (strchr(name, '/') != NULL)
        return access(name, X_OK) == 0 ? realpath(name, NULL) : NULL;
    for (p = path != NULL ? path : "/usr/bin:/bin"; *p != '\0'; p = *colon ? colon + 1 : colon) {
        colon = strchrnul(p, ':');
        snprintf(buf, sizeof(buf), "%.*s/%s", (int)(colon - p), p, name);
        if (colon > p && access(buf, X_OK) == 0)
            return realpath(buf, NULL);
    }
    return NULL;
}

struct argv_buf {
    char **v;
    size_t n, cap;
};

static int push(struct argv_buf *a, const char *s)
{
    char *copy = s != NULL ? strdup(s) : NULL;

    if (s != NULL && copy == NULL)
        return -ENOMEM;
    if (a->n == a->cap) {
        size_t cap = a->cap ? a->cap * 2 : 32;
        char **v = realloc(a->v, cap * sizeof(*v));

        if (v == NULL) {
            free(copy);
            return -ENOMEM;
        }
        a->v = v;
        a->cap = cap;
    }
    a->v[a->n++] = copy;
    return 0;
}

static void argv_free(char **v)
{
    size_t i;

    for (i = 0; v != NULL && v[i] != NULL; i++)
        free(v[i]);
    free(v);
}

/*
 * The command as run.  In bubblewrap: no network (every namespace of its
 * own), a read-only view of the system (/usr, /bin, /lib*, /etc), a
 * private /tmp, the candidate's own files read-only at their real paths
 * (its arguments naming files are rewritten to those), and bwrap ends
 * with cairn.
 */
static int build_argv(struct judge *j, const char *exe, const char *bwrap)
{
    static const char *const system_dirs[] = { "/bin",   "/sbin",   "/lib", "/lib32",
                                               "/lib64", "/libx32", "/etc" };
    struct argv_buf a = { 0 };
    size_t i;
    int rc = 0;

    if (bwrap != NULL) {
        const char *pre[] = { bwrap,           "--unshare-all", "--die-with-parent",
                              "--new-session", "--ro-bind",     "/usr",
                              "/usr" };

        for (i = 0; rc == 0 && i < sizeof(pre) / sizeof(pre[0]); i++)
            rc = push(&a, pre[i]);
        for (i = 0; rc == 0 && i < sizeof(system_dirs) / sizeof(system_dirs[0]); i++)
            if ((rc = push(&a, "--ro-bind-try")) == 0 && (rc = push(&a, system_dirs[i])) == 0)
                rc = push(&a, system_dirs[i]);
        const char *post[] = { "--proc", "/proc",     "--dev", "/dev", "--tmpfs",
                               "/tmp",   "--ro-bind", exe,     exe };
        for (i = 0; rc == 0 && i < sizeof(post) / sizeof(post[0]); i++)
            rc = push(&a, post[i]);
        for (i = 1; rc == 0 && i < j->o->n_cmd; i++) {
            struct stat st;
            char *real;

            if (stat(j->o->cmd[i], &st) != 0 || !S_ISREG(st.st_mode) ||
                (real = realpath(j->o->cmd[i], NULL)) == NULL)
                continue;
            if ((rc = push(&a, "--ro-bind")) == 0 && (rc = push(&a, real)) == 0)
                rc = push(&a, real);
            free(real);
        }
        if (rc == 0 && (rc = push(&a, "--chdir")) == 0 && (rc = push(&a, "/")) == 0)
            rc = push(&a, "--");
    }
    if (rc == 0)
        rc = push(&a, exe);
    for (i = 1; rc == 0 && i < j->o->n_cmd; i++) {
        struct stat st;
        char *real = bwrap != NULL && stat(j->o->cmd[i], &st) == 0 && S_ISREG(st.st_mode)
                         ? realpath(j->o->cmd[i], NULL)
                         : NULL;

        rc = push(&a, real != NULL ? real : j->o->cmd[i]);
        free(real);
    }
    if (rc == 0)
        rc = push(&a, NULL);
    if (rc != 0) {
        a.v[a.n > 0 ? a.n - 1 : 0] = NULL;
        argv_free(a.v);
        return rc;
    }
    j->runner.argv = a.v;
    return 0;
}

/* The runner: the command found, and bwrap unless --no-sandbox or not
 * installed; an installed bwrap that cannot run here is an error that
 * names --no-sandbox, never a silent run without it. */
static int settle_runner(struct judge *j)
{
    char *exe = find_exe(j->o->cmd[0]), *bwrap = NULL;
    struct cairn_judge_run probe;
    int rc;

    if (exe == NULL)
        return cairn_client_fail(j->cl, -ENOENT, "judge: %s: no such executable file%s",
                                 j->o->cmd[0], strchr(j->o->cmd[0], '/') ? "" : " in PATH");
    j->sandbox = "none (--no-sandbox)";
    if (!j->o->no_sandbox) {
        bwrap = find_exe("bwrap");
        j->sandbox = bwrap != NULL ? "bwrap (no network, read-only system, private /tmp)"
                                   : "none (bwrap is not installed; Debian's bubblewrap)";
    }
    if (bwrap != NULL) {
        /* /usr/bin/true inside the same sandbox: it must exit 0. */
        char *const probe_cmd[] = { "/usr/bin/true" };
        struct cairn_judge_opts po = *j->o;
        const struct cairn_judge_opts *keep = j->o;

        po.cmd = probe_cmd;
        po.n_cmd = 1;
        j->o = &po;
        rc = build_argv(j, "/usr/bin/true", bwrap);
        j->o = keep;
        if (rc == 0)
            rc = cairn_judge_run(j->cl, &j->runner, "", 0, 1, &probe);
        argv_free(j->runner.argv);
        j->runner.argv = NULL;
        if (rc == 0 && probe.fault != CAIRN_JUDGE_TOO_FEW) {
            char *err = cairn_text_printable(probe.err_tail);

            rc = cairn_client_fail(j->cl, -ENOTSUP,
                                   "judge: bwrap is installed (%s) but cannot run a sandbox "
                                   "here: %s; --no-sandbox runs the candidate without one",
                                   bwrap, err != NULL ? err : "(out of memory)");
            free(err);
        }
        if (rc == 0)
            cairn_judge_run_free(&probe);
        else if (probe.out != NULL)
            cairn_judge_run_free(&probe);
        if (rc != 0) {
            free(exe);
            free(bwrap);
            return rc;
        }
    }
    rc = build_argv(j, exe, bwrap);
    j->runner.sandboxed = bwrap != NULL;
    free(exe);
    free(bwrap);
    return rc;
}

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
        if ((rc = solve(j, x, NULL, &c->exact)) == 0 && !is_ok(c->exact))
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
    if (render_input(&j->lines, j->p, in) != 0)
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
    rc = cairn_judge_shrink(&c.in, try_batch, j, &runs);
    minimal = rc == 0;
    if (rc == -ECANCELED)
        rc = 0; /* the candidate failed while shrinking: j->fault says how */
    if (rc == 0)
        rc = solve(j, &c.in, NULL, &c.exact);
    /* Its answer to the input reached, alone (the shrinker's were many). */
    if (rc == 0 && (rc = answer(j, &c, 1, "shrinking")) == -ECANCELED)
        rc = 0;
    if (rc != 0) {
        case_free(&c);
        return rc;
    }
    if ((own = c.given != NULL && c.wrong ? kind_of(j, &c) : strdup(kind)) == NULL) {
        case_free(&c);
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
            case_free(&c);
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
    case_free(&c);
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
        (rc = settle_runner(j)) != 0)
        return rc;
    if ((cases = calloc(count, sizeof(*cases))) == NULL)
        return -ENOMEM;
    rc = make_cases(j, g, &sp, seed, count, cases);
    if (rc == 0 && (rc = answer(j, cases, count, "the first run")) == -ECANCELED)
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
        case_free(&cases[i]);
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
    argv_free(j.runner.argv);
    cairn_buf_free(&j.rec);
    cairn_buf_free(&j.lines);
    json_decref(j.fault);
    cairn_gen_solver_close(j.s);
    return rc;
}
