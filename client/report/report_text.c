/*
 * report_text.c - the report as text, for a terminal or a log.  Every
 * figure says what it is computed from (report_types.h), since a reader cannot
 * ask.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report_format.h"
#include "report_spill.h"
#include "report_text.h"

#define JOBS_SHOWN 50

/* s right-aligned in width columns, counting characters, not bytes: "µs"
 * is two bytes but one column, and would shift its row. */
static const char *right(char out[64], const char *s, int width)
{
    int cols = 0, pad;
    const char *p;

    for (p = s; *p; p++)
        cols += ((unsigned char)*p & 0xC0) != 0x80;
    pad = width > cols ? width - cols : 0;
    snprintf(out, 64, "%*s%s", pad, "", s);
    return out;
}

static int name_width(const struct cairn_report *r, int min)
{
    size_t i, w = (size_t)min;

    for (i = 0; i < r->n_variants; i++)
        if (strlen(r->variants[i].name) > w)
            w = strlen(r->variants[i].name);
    return (int)w;
}

static void variants(const struct cairn_report *r, FILE *out)
{
    int w = name_width(r, 7);
    size_t i;

    fprintf(out, "\n%-*s %9s %9s %9s %9s %9s %9s %13s\n", w, "variant", "records", "ok", "errors",
            "checked", "match", "accuracy", "solve/record");
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];
        char acc[16], per[32], shown[64];

        cairn_report_pct(v->matches, v->checked, acc);
        if (v->ok_timed > 0)
            cairn_report_seconds(v->solve_seconds / (double)v->ok_timed, per);
        else
            snprintf(per, sizeof(per), "-");
        fprintf(out, "%-*s %9llu %9llu %9llu %9llu %9llu %9s %s\n", w, v->name,
                (unsigned long long)v->records, (unsigned long long)v->ok,
                (unsigned long long)v->errors, (unsigned long long)v->checked,
                (unsigned long long)v->matches, acc, right(shown, per, 13));
    }
    fprintf(out, "(checked: records with a given answer, their \"expected\", that were solved; "
                 "solve/record: the variant's solve time over its ok records)\n");
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];
        size_t k;

        if (v->n_codes == 0)
            continue;
        fprintf(out, "errors of %s:", v->name);
        for (k = 0; k < v->n_codes; k++)
            fprintf(out, "%s %s %llu", k ? "," : "", v->codes[k].name,
                    (unsigned long long)v->codes[k].n);
        fputc('\n', out);
    }
}

/* A column as wide as its widest text (at least its heading), within
 * reason: past 64 bytes a text pushes the rest of its line out, not every
 * line. */
static int col_width(int w, const char *text)
{
    size_t n = text != NULL ? strlen(text) : 0;

    return (int)n > w ? (n > 64 ? 64 : (int)n) : w;
}

static void sizes(const struct cairn_report *r, FILE *out)
{
    int w = name_width(r, 7), any = 0;
    size_t i, b;

    for (i = 0; i < r->n_variants; i++)
        for (b = 0; b < CAIRN_SIZE_BUCKETS; b++)
            any |= r->variants[i].size[b].checked > 0;
    if (!any) {
        if (r->sizes_why != NULL)
            fprintf(out, "\naccuracy by input size: not shown: %s\n", r->sizes_why);
        return;
    }
    fprintf(out, "\naccuracy by input size (the longest array, or the game's number):\n");
    fprintf(out, "  %-*s %13s %9s %9s %9s\n", w, "variant", "size", "checked", "match", "accuracy");
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];

        for (b = 0; b < CAIRN_SIZE_BUCKETS; b++) {
            const struct cairn_rep_size *s = &v->size[b];
            char size[48], acc[16];

            if (s->checked == 0)
                continue;
            cairn_report_size_label(b, size);
            cairn_report_pct(s->matches, s->checked, acc);
            fprintf(out, "  %-*s %13s %9llu %9llu %9s\n", w, v->name, size,
                    (unsigned long long)s->checked, (unsigned long long)s->matches, acc);
        }
    }
}

static const char *or_unavailable(const char *s)
{
    return s != NULL ? s : "unavailable";
}

/* The error size of a variant's integer answers, for people. */
static void error_size_text(const struct cairn_rep_variant *v, char out[96])
{
    if (v->int_errors == 0)
        out[0] = '\0';
    else
        snprintf(out, 96, "; error size |given - exact| over %llu: mean %.2f, worst %llu",
                 (unsigned long long)v->int_errors, v->error_sum / (double)v->int_errors,
                 (unsigned long long)v->error_max);
}

struct widths {
    int wj, wi, we, wa;
    FILE *out;
};

static int measure_row(const struct cairn_rep_mismatch *m, void *data)
{
    struct widths *w = data;

    w->wj = col_width(w->wj, m->at.job);
    w->wi = col_width(w->wi, m->at.id);
    w->we = col_width(w->we, or_unavailable(m->given));
    w->wa = col_width(w->wa, m->exact);
    return 0;
}

static int print_row(const struct cairn_rep_mismatch *m, void *data)
{
    const struct widths *w = data;

    fprintf(w->out, "  %-*s %6llu  %-*s  %-*s  %-*s  %s\n", w->wj, m->at.job,
            (unsigned long long)m->at.line, w->wi, m->at.id ? m->at.id : "-", w->we,
            or_unavailable(m->given), w->wa, m->exact ? m->exact : "-",
            or_unavailable(m->at.position));
    return 0;
}

/* One variant's shown mismatches, grouped by job (they are in job order);
 * with --mismatches all, read twice from the spill, never all in memory. */
static int variant_mismatches(const struct cairn_report *r, const struct cairn_rep_variant *v,
                              FILE *out)
{
    struct widths w = { .wj = 3, .wi = 2, .we = 5, .wa = 5, .out = out };
    char esz[96];
    int rc;

    if ((rc = cairn_report_each_mismatch(r, v->name, measure_row, &w)) != 0)
        return rc;
    error_size_text(v, esz);
    fprintf(out, "mismatches of %s: %llu, %llu shown%s\n", v->name,
            (unsigned long long)v->mismatches, (unsigned long long)v->shown, esz);
    fprintf(out, "  %-*s %6s  %-*s  %-*s  %-*s  %s\n", w.wj, "job", "line", w.wi, "id", w.we,
            "given", w.wa, "exact", "position");
    return cairn_report_each_mismatch(r, v->name, print_row, &w);
}

static int mismatches(const struct cairn_report *r, FILE *out)
{
    size_t i;
    int any = 0, rc = 0;

    for (i = 0; i < r->n_variants; i++)
        any |= r->variants[i].mismatches > 0;
    if (!any)
        return 0;
    fprintf(out,
            "\nmismatches per variant (given: the record's expected answer, %s; exact: "
            "cairn's; ",
            r->expected_note);
    if (r->mm_limit == CAIRN_REPORT_MISMATCHES_ALL)
        fprintf(out, "all shown):\n");
    else
        fprintf(out, "the first %zu of each variant shown, --mismatches N|all for more):\n",
                r->mm_limit);
    for (i = 0; rc == 0 && i < r->n_variants; i++)
        if (r->variants[i].mismatches > 0)
            rc = variant_mismatches(r, &r->variants[i], out);
    if (r->inputs_why != NULL)
        fprintf(out, "  (positions unavailable: %s)\n", r->inputs_why);
    return rc;
}

/* Each variant's smallest failing input, first: the one to read. */
static void smallest(const struct cairn_report *r, FILE *out)
{
    size_t i;
    int any = 0;

    for (i = 0; i < r->n_variants; i++)
        any |= r->variants[i].mismatches > 0;
    if (!any)
        return;
    fprintf(out, "\nsmallest failing input per variant (fewest values, then smallest sum of "
                 "|v|):\n");
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];
        const struct cairn_rep_mismatch *m;

        if (v->mismatches == 0)
            continue;
        if (v->small.input == NULL) {
            fprintf(out, "  %s: not shown: %s\n", v->name,
                    r->inputs_why ? r->inputs_why : "no failing record could be read");
            continue;
        }
        m = &v->small.m;
        fprintf(out, "  %s: %s (job %s, line %llu, id %s)\n", v->name, v->small.input, m->at.job,
                (unsigned long long)m->at.line, m->at.id ? m->at.id : "-");
        fprintf(out, "    given %s, exact %s; optimal line of play: %s\n", or_unavailable(m->given),
                m->exact ? m->exact : "-", v->small.moves ? v->small.moves : "not shown");
        if (v->small.moves == NULL)
            fprintf(out, "    (the line of play is %s)\n",
                    v->small.moves_why ? v->small.moves_why : "not computed");
    }
}

static void traps(const struct cairn_report *r, FILE *out)
{
    int w = name_width(r, 7), tw = 4, any = 0;
    size_t i, k;

    for (i = 0; i < r->n_variants; i++)
        for (k = 0; k < r->variants[i].n_traps; k++) {
            any |= strcmp(r->variants[i].traps[k].name, "-") != 0;
            tw = col_width(tw, r->variants[i].traps[k].name);
        }
    if (!any)
        return;
    fprintf(out, "\naccuracy by trap (the id's \":TRAP\", as `cairn gen --traps` writes it; -: "
                 "none):\n");
    fprintf(out, "  %-*s  %-*s %9s %9s %9s\n", w, "variant", tw, "trap", "checked", "match",
            "accuracy");
    for (i = 0; i < r->n_variants; i++)
        for (k = 0; k < r->variants[i].n_traps; k++) {
            const struct cairn_rep_trap *t = &r->variants[i].traps[k];
            char acc[16];

            cairn_report_pct(t->matches, t->checked, acc);
            fprintf(out, "  %-*s  %-*s %9llu %9llu %9s\n", w, r->variants[i].name, tw, t->name,
                    (unsigned long long)t->checked, (unsigned long long)t->matches, acc);
        }
}

static void plies(const struct cairn_rep_variant *v, FILE *out)
{
    int b;

    fprintf(out, "  first non-optimal ply of %s (0: Alice's first move):", v->name);
    for (b = 0; b < CAIRN_REPORT_PLY_BUCKETS; b++) {
        char label[16];

        if (v->first_ply[b] == 0)
            continue;
        cairn_report_ply_label(b, label);
        fprintf(out, " %s: %llu", label, (unsigned long long)v->first_ply[b]);
    }
    fputc('\n', out);
}

static void blunders(const struct cairn_rep_variant *v, FILE *out)
{
    int wj = 3, wm = 4, wb = 4;
    size_t i;

    for (i = 0; i < v->n_bl; i++) {
        wj = col_width(wj, v->bl[i].at.job);
        wm = col_width(wm, v->bl[i].move);
        wb = col_width(wb, v->bl[i].best);
    }
    fprintf(out, "worst blunders of %s (the costliest first non-optimal moves; cost in %s):\n",
            v->name, cairn_report_cost_unit(v->name));
    fprintf(out, "  %-*s %6s %5s %-5s  %-*s  %-*s %8s  %s\n", wj, "job", "line", "ply", "by", wm,
            "move", wb, "best", "cost", "position");
    for (i = 0; i < v->n_bl; i++) {
        const struct cairn_rep_blunder *b = &v->bl[i];
        char cost[40];

        cairn_report_num_text(&b->cost, cost);
        fprintf(out, "  %-*s %6llu %5llu %-5s  %-*s  %-*s %8s  %s\n", wj, b->at.job,
                (unsigned long long)b->at.line, (unsigned long long)b->ply, b->by, wm, b->move, wb,
                b->best, cost, or_unavailable(b->at.position));
    }
}

static void play(const struct cairn_report *r, FILE *out)
{
    int w = name_width(r, 7);
    size_t i;
    char p[16];

    if (r->graded == 0)
        return;
    cairn_report_pct(r->optimal, r->graded, p);
    fprintf(out, "\ngraded play (options.play): %llu line%s, %llu optimal (%s)\n",
            (unsigned long long)r->graded, r->graded == 1 ? "" : "s",
            (unsigned long long)r->optimal, p);
    fprintf(out, "  %-*s %9s %9s %9s %11s %11s\n", w, "variant", "graded", "optimal", "share",
            "total cost", "mean cost");
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];

        if (v->graded == 0)
            continue;
        char total[40], mean[48];

        cairn_report_pct(v->optimal, v->graded, p);
        cairn_report_num_text(&v->cost, total);
        cairn_report_num_mean(&v->cost, v->graded, mean);
        fprintf(out, "  %-*s %9llu %9llu %9s %11s %11s\n", w, v->name,
                (unsigned long long)v->graded, (unsigned long long)v->optimal, p, total, mean);
    }
    fprintf(out, "  (cost: what a line's first non-optimal move gave away, in the game's "
                 "terms; the mean is over every graded line)\n");
    for (i = 0; i < r->n_variants; i++)
        if (r->variants[i].graded > r->variants[i].optimal)
            plies(&r->variants[i], out);
    for (i = 0; i < r->n_variants; i++)
        if (r->variants[i].n_bl > 0)
            blunders(&r->variants[i], out);
}

static void solve_histogram(const struct cairn_report *r, FILE *out)
{
    uint64_t n = 0, max = 1;
    char a[32], b[32], c[32], d[32];
    int k, top = -1;

    for (k = 0; k < CAIRN_SOLVE_BUCKETS; k++) {
        n += r->hist[k];
        if (r->hist[k] > max)
            max = r->hist[k];
        if (r->hist[k] > 0)
            top = k;
    }
    if (n == 0)
        return;
    cairn_report_bucket_label(cairn_report_percentile_bucket(r->hist, 50), a);
    cairn_report_bucket_label(cairn_report_percentile_bucket(r->hist, 90), b);
    cairn_report_bucket_label(cairn_report_percentile_bucket(r->hist, 99), c);
    cairn_report_bucket_label(top, d);
    fprintf(out, "\nsolve time per record, over %llu solve%s: p50 %s, p90 %s, p99 %s, max %s\n",
            (unsigned long long)n, n == 1 ? "" : "s", a, b, c, d);
    for (k = 0; k <= top; k++) {
        int bar = (int)(40.0 * (double)r->hist[k] / (double)max + 0.5);

        char shown[64];

        cairn_report_bucket_label(k, a);
        fprintf(out, "  %s %10llu  %.*s\n", right(shown, a, 12), (unsigned long long)r->hist[k],
                bar, "########################################");
    }
    if (r->hist_missing > 0)
        fprintf(out, "  (%llu job%s without per-record solve times left out)\n",
                (unsigned long long)r->hist_missing, r->hist_missing == 1 ? "" : "s");
}

static void times(const struct cairn_report *r, FILE *out)
{
    char e[32];

    solve_histogram(r, out);
    if (r->ok_timed > 0 || r->untimed == 0)
        cairn_report_seconds(r->solve_seconds, e);
    else
        snprintf(e, sizeof(e), "-");
    fprintf(out, "solve time, all records: %s", e);
    if (r->untimed > 0)
        fprintf(out, " (%llu job%s without solve_seconds left out)", (unsigned long long)r->untimed,
                r->untimed == 1 ? "" : "s");
    fputc('\n', out);
    if (r->busy_seconds > 0) {
        char bytes[32], rate[32], records[32], busy[32];

        cairn_client_bytes(r->bytes, bytes);
        cairn_client_bytes((uint64_t)((double)r->bytes / r->busy_seconds), rate);
        cairn_report_seconds(r->busy_seconds, busy);
        cairn_report_rate((double)r->records / r->busy_seconds, records);
        fprintf(out,
                "throughput: %llu record%s (%s) in %s busy (while a job ran): %s records/s, "
                "%s/s\n",
                (unsigned long long)r->records, r->records == 1 ? "" : "s", bytes, busy, records,
                rate);
    }
}

static void jobs(const struct cairn_report *r, FILE *out)
{
    int w = 8;
    size_t i;

    /* As wide as the longest name shown, within reason. */
    for (i = 0; i < r->n_jobs && i < JOBS_SHOWN; i++)
        if ((int)strlen(r->jobs[i].name) > w)
            w = strlen(r->jobs[i].name) > 64 ? 64 : (int)strlen(r->jobs[i].name);
    fprintf(out, "\njobs:\n  %-*s %-6s %8s %8s %8s %8s %8s %10s\n", w, "job", "status", "records",
            "ok", "errors", "match", "differ", "wall");
    for (i = 0; i < r->n_jobs && i < JOBS_SHOWN; i++) {
        const struct cairn_rep_job *j = &r->jobs[i];
        char wall[32], shown[64];

        cairn_report_seconds(j->wall_seconds, wall);
        fprintf(out, "  %-*s %-6s %8llu %8llu %8llu %8llu %8llu %s\n", w, j->name, j->status,
                (unsigned long long)j->records, (unsigned long long)j->ok,
                (unsigned long long)(j->records - j->ok), (unsigned long long)j->matches,
                (unsigned long long)j->mismatches, right(shown, wall, 10));
        if (j->reason != NULL)
            fprintf(out, "    reason: %s\n", j->reason);
    }
    if (r->n_jobs > JOBS_SHOWN)
        fprintf(out, "  ... and %zu more (the HTML page lists them all)\n", r->n_jobs - JOBS_SHOWN);
}

int cairn_report_text(const struct cairn_report *r, FILE *out)
{
    char acc[16];
    size_t i;
    int rc;

    fprintf(out, "cairn report: %s\n", r->out_dir);
    fprintf(out, "jobs: %zu (%llu ok, %llu failed); records: %llu, ok %llu, errors %llu\n",
            r->n_jobs, (unsigned long long)r->jobs_ok, (unsigned long long)r->jobs_failed,
            (unsigned long long)r->records, (unsigned long long)r->ok,
            (unsigned long long)r->errors);
    fprintf(out, "errors by code:");
    for (i = 0; i < r->n_codes; i++)
        fprintf(out, "%s %s %llu", i ? "," : "", r->codes[i].name,
                (unsigned long long)r->codes[i].n);
    fprintf(out, "%s\n", r->n_codes == 0 ? " none" : "");
    variants(r, out);
    cairn_report_pct(r->matches, r->matches + r->mismatches, acc);
    fprintf(out, "\naccuracy of the given answers: %llu checked: %llu match, %llu differ (%s)\n",
            (unsigned long long)(r->matches + r->mismatches), (unsigned long long)r->matches,
            (unsigned long long)r->mismatches, acc);
    if (r->has_unchecked)
        fprintf(out, "unchecked: %llu (a given answer, but the record ended in an error)\n",
                (unsigned long long)r->unchecked);
    if (r->damaged > 0)
        fprintf(out, "damaged: %llu results line%s not JSON, left out (each named on stderr)\n",
                (unsigned long long)r->damaged, r->damaged == 1 ? "" : "s");
    smallest(r, out);
    if ((rc = mismatches(r, out)) != 0)
        return rc;
    sizes(r, out);
    traps(r, out);
    play(r, out);
    times(r, out);
    jobs(r, out);
    return ferror(out) ? -EIO : 0;
}
