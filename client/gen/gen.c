/*
 * gen.c - `cairn gen VARIANT --count N --seed S [--size A..B]
 * [--limits extended] [--traps]`: N records on stdout, each a job-file
 * line with "expected" set to cairn's own answer.  This file checks the
 * arguments against the game's declared limits, draws the inputs
 * (gen_games.c, gen_traps*.c) and renders the lines; gen_solve.c answers
 * them.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gen.h"

/* Past this a corpus is a mistake: 10^9 records of the smallest game
 * are 60 GB already. */
#define GEN_MAX_COUNT UINT64_C(1000000000)

/* A whole number of digits only (strtoull takes "-1" and " 1"). */
int cairn_gen_parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;

    if (*s == '\0')
        return -EINVAL;
    for (; *s != '\0'; s++) {
        if (*s < '0' || *s > '9' || v > (UINT64_MAX - (uint64_t)(*s - '0')) / 10)
            return -EINVAL;
        v = v * 10 + (uint64_t)(*s - '0');
    }
    *out = v;
    return 0;
}

/* "A..B" or "A" (A..A). */
static int parse_size(const char *s, uint64_t *lo, uint64_t *hi)
{
    const char *dots = strstr(s, "..");
    char *a;
    int rc;

    if (dots == NULL)
        return cairn_gen_parse_u64(s, lo) == 0 && cairn_gen_parse_u64(s, hi) == 0 ? 0 : -EINVAL;
    if ((a = strndup(s, (size_t)(dots - s))) == NULL)
        return -ENOMEM;
    rc = cairn_gen_parse_u64(a, lo) == 0 && cairn_gen_parse_u64(dots + 2, hi) == 0 && *lo <= *hi
             ? 0
             : -EINVAL;
    free(a);
    return rc;
}

/* What a size counts, for messages: "the length of input.piles" or
 * "input.n itself". */
static const char *size_meaning(const struct cairn_input_decl *d, char *buf, size_t len)
{
    if (d->kind == CAIRN_INPUT_INT)
        snprintf(buf, len, "input.%s itself", d->name);
    else
        snprintf(buf, len, "the length of input.%s", d->name);
    return buf;
}

static void bounds_of(const struct cairn_input_decl *d, int extended, int64_t *lo, int64_t *hi)
{
    const struct cairn_bounds *b = extended ? &d->extended : &d->official;

    if (d->kind == CAIRN_INPUT_INT) {
        *lo = b->min_value;
        *hi = b->max_value;
    } else {
        *lo = (int64_t)b->min_len;
        *hi = (int64_t)b->max_len;
    }
}

/* The sizes and values a record may have: the declared limits, narrowed
 * by --size or by the game's default. */
int cairn_gen_settle_space(struct cairn_client *cl, const char *cmd, const struct cairn_plugin *p,
                           const struct cairn_gen_game *g, const char *size, int extended,
                           struct cairn_gen_space *sp)
{
    const struct cairn_input_decl *d = &p->inputs[0];
    const char *which = extended ? "extended" : "official";
    int64_t lo, hi, xlo, xhi;
    uint64_t a, b;
    char what[96];

    memset(sp, 0, sizeof(*sp));
    sp->extended = extended;
    sp->even = g->even_official && !extended;
    sp->vlo = (extended ? &d->extended : &d->official)->min_value;
    sp->vhi = (extended ? &d->extended : &d->official)->max_value;
    bounds_of(d, extended, &lo, &hi);
    size_meaning(d, what, sizeof(what));
    if (size == NULL) {
        int64_t cap = extended ? g->default_max_x : g->default_max;

        sp->size_lo = lo;
        sp->size_hi = hi < cap ? hi : cap;
        return 0;
    }
    if (parse_size(size, &a, &b) != 0)
        return cairn_client_fail(cl, -EINVAL,
                                 "%s: --size %s: expected A..B (whole numbers, A <= B) or one "
                                 "number; the size of a %s record is %s",
                                 cmd, size, p->name, what);
    if (a < (uint64_t)lo || b > (uint64_t)hi) {
        bounds_of(d, !extended, &xlo, &xhi);
        return cairn_client_fail(
            cl, -EINVAL,
            "%s: --size %s is outside %s's %s limit: %" PRId64 " <= %s <= %" PRId64 "%s", cmd, size,
            p->name, which, lo, what, hi,
            !extended && a >= (uint64_t)xlo && b <= (uint64_t)xhi ? " (--limits extended allows it)"
                                                                  : "");
    }
    sp->size_lo = (int64_t)a;
    sp->size_hi = (int64_t)b;
    if (sp->even && a == b && a % 2 != 0)
        return cairn_client_fail(cl, -EINVAL,
                                 "%s: --size %s: %s's official limit wants an even length of "
                                 "input.%s (--limits extended allows odd ones)",
                                 cmd, size, p->name, d->name);
    return 0;
}

static int render_array(struct cairn_buf *b, const int64_t *v, size_t n)
{
    size_t i;
    int rc = cairn_buf_puts(b, "[");

    for (i = 0; rc == 0 && i < n; i++)
        if ((i > 0 && (rc = cairn_buf_puts(b, ",")) != 0) || (rc = cairn_buf_int(b, v[i])) != 0)
            break;
    return rc != 0 ? rc : cairn_buf_puts(b, "]");
}

/* The record, without "expected". */
static int render_record(struct cairn_buf *b, const struct cairn_plugin *p, uint64_t seed,
                         uint64_t i, const struct cairn_gen_input *in, int extended)
{
    size_t k;
    int rc;

    b->len = 0;
    rc = cairn_buf_printf(b,
                          "{\"variant\":\"%s\",\"id\":\"%s-%" PRIu64 "-%" PRIu64 "%s%s\","
                          "\"input\":{",
                          p->name, p->name, seed, i, in->profile ? ":" : "",
                          in->profile ? in->profile : "");
    for (k = 0; rc == 0 && k < p->n_inputs && k < CAIRN_GEN_MAX_ARRAYS; k++) {
        rc = cairn_buf_printf(b, "%s\"%s\":", k > 0 ? "," : "", p->inputs[k].name);
        if (rc == 0)
            rc = p->inputs[k].kind == CAIRN_INPUT_INT ? cairn_buf_int(b, in->v[0][0])
                                                      : render_array(b, in->v[k], in->n);
    }
    if (rc == 0)
        rc = cairn_buf_puts(b, extended ? "},\"options\":{\"limits\":\"extended\"}}" : "}}");
    return rc;
}

static int check_args(struct cairn_client *cl, const struct cairn_gen_opts *o, uint64_t *count,
                      uint64_t *seed, int *extended)
{
    if (o->count == NULL || o->seed == NULL)
        return cairn_client_fail(cl, -EINVAL,
                                 "gen: --count N and --seed S are required (the same seed "
                                 "gives the same corpus)");
    if (cairn_gen_parse_u64(o->count, count) != 0 || *count < 1 || *count > GEN_MAX_COUNT)
        return cairn_client_fail(cl, -EINVAL,
                                 "gen: --count %s: expected a number of records from 1 to "
                                 "1000000000",
                                 o->count);
    if (cairn_gen_parse_u64(o->seed, seed) != 0)
        return cairn_client_fail(cl, -EINVAL,
                                 "gen: --seed %s: expected a whole number from 0 to "
                                 "18446744073709551615",
                                 o->seed);
    *extended = o->limits != NULL && strcmp(o->limits, "extended") == 0;
    if (o->limits != NULL && !*extended && strcmp(o->limits, "official") != 0)
        return cairn_client_fail(cl, -EINVAL, "gen: --limits %s: expected official or extended",
                                 o->limits);
    return 0;
}

/* The variant's plugin and its generator; messages name what is missing. */
int cairn_gen_find_game(struct cairn_client *cl, const char *cmd, struct cairn_gen_solver *s,
                        const char *variant, const char *dir, const struct cairn_plugin **p,
                        const struct cairn_gen_game **g)
{
    if ((*p = cairn_gen_solver_find(s, variant)) == NULL)
        return cairn_client_fail(cl, -EINVAL,
                                 "%s: unknown variant \"%s\": no plugin of %s has that name or "
                                 "alias (cairnd --list-plugins lists them)",
                                 cmd, variant, dir);
    if ((*g = cairn_gen_game((*p)->name)) == NULL || (*p)->n_inputs < 1 ||
        (*p)->n_inputs > CAIRN_GEN_MAX_ARRAYS)
        return cairn_client_fail(cl, -EINVAL,
                                 "%s: no generator for %s: cairn gen knows the eleven games "
                                 "cairn ships",
                                 cmd, (*p)->name);
    return 0;
}

int cairn_cmd_gen(struct cairn_client *cl, const struct cairn_gen_opts *o)
{
    const char *dir = o->plugins != NULL ? o->plugins : cl->cfg.plugin_dir;
    const struct cairn_gen_game *g = NULL;
    const struct cairn_plugin *p = NULL;
    struct cairn_gen_solver *s = NULL;
    struct cairn_gen_input in = { 0 };
    struct cairn_buf b = { 0 };
    struct cairn_gen_space sp;
    struct cairn_gen_rng r;
    uint64_t count = 0, seed = 0, i;
    int extended, rc;

    if ((rc = check_args(cl, o, &count, &seed, &extended)) != 0)
        return rc;
    if ((rc = cairn_gen_solver_open(cl, dir, &s)) != 0)
        return rc;
    if ((rc = cairn_gen_find_game(cl, "gen", s, o->variant, dir, &p, &g)) != 0 ||
        (rc = cairn_gen_settle_space(cl, "gen", p, g, o->size, extended, &sp)) != 0)
        goto out;
    for (i = 1; i <= count; i++) {
        const char *answer;

        cairn_gen_rng_seed(&r, seed, p->name, (uint64_t)extended | (uint64_t)o->traps << 1, i);
        in.profile = NULL;
        rc = o->traps ? g->traps(&r, &sp, i - 1, &in) : g->plain(&r, &sp, &in);
        if (rc == 0)
            rc = render_record(&b, p, seed, i, &in, extended);
        if (rc == 0)
            rc = cairn_gen_solve(s, cl, b.data, b.len, &answer);
        if (rc != 0)
            break;
        /* The same line, its closing brace moved after "expected". */
        if (fwrite(b.data, 1, b.len - 1, stdout) != b.len - 1 ||
            printf(",\"expected\":%s}\n", answer) < 0) {
            rc = cairn_client_fail(cl, -errno, "gen: cannot write to standard output: %s",
                                   strerror(errno));
            break;
        }
    }
out:
    if (rc == -ENOMEM && cl->msg == NULL)
        cairn_client_fail(cl, rc, "gen: out of memory");
    cairn_buf_free(&b);
    cairn_gen_input_free(&in);
    cairn_gen_solver_close(s);
    return rc;
}
