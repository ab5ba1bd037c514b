/*
 * report_text.c - the report as text, for a terminal or a log.  Every
 * figure says what it is computed from (report.h), since a reader cannot
 * ask.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "report.h"

#define JOBS_SHOWN 50

static void pct(uint64_t part, uint64_t whole, char out[16])
{
    if (whole == 0)
        snprintf(out, 16, "-");
    else
        snprintf(out, 16, "%.1f%%", 100.0 * (double)part / (double)whole);
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
        char acc[16], per[32];

        pct(v->matches, v->checked, acc);
        if (v->ok_timed > 0)
            cairn_report_seconds(v->solve_seconds / (double)v->ok_timed, per);
        else
            snprintf(per, sizeof(per), "-");
        fprintf(out, "%-*s %9llu %9llu %9llu %9llu %9llu %9s %13s\n", w, v->name,
                (unsigned long long)v->records, (unsigned long long)v->ok,
                (unsigned long long)v->errors, (unsigned long long)v->checked,
                (unsigned long long)v->matches, acc, per);
    }
    fprintf(out, "(checked: records with an expected answer that were solved; solve/record: "
                 "the variant's solve time over its ok records)\n");
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

static void mismatches(const struct cairn_report *r, FILE *out)
{
    int wj = 3, wi = 2, we = 8;
    size_t i;

    if (r->n_mm == 0)
        return;
    for (i = 0; i < r->n_mm; i++) {
        wj = col_width(wj, r->mm[i].job);
        wi = col_width(wi, r->mm[i].id);
        we = col_width(we, r->mm[i].expected != NULL ? r->mm[i].expected : "unavailable");
    }
    fprintf(out, "first mismatches (expected answers %s):\n", r->expected_note);
    fprintf(out, "  %-*s %6s  %-*s  %-*s  %s\n", wj, "job", "line", wi, "id", we, "expected",
            "answer");
    for (i = 0; i < r->n_mm; i++) {
        const struct cairn_rep_mismatch *m = &r->mm[i];
        fprintf(out, "  %-*s %6llu  %-*s  %-*s  %s\n", wj, m->job, (unsigned long long)m->line, wi,
                m->id ? m->id : "-", we, m->expected ? m->expected : "unavailable",
                m->answer ? m->answer : "-");
    }
}

static void times(const struct cairn_report *r, FILE *out)
{
    const double *v = r->per_record;
    size_t n = r->n_per_record;
    char a[32], b[32], c[32], d[32], e[32];
    double span = r->last_finish - r->first_start;

    if (n > 0) {
        cairn_report_seconds(cairn_report_percentile(v, n, 50), a);
        cairn_report_seconds(cairn_report_percentile(v, n, 90), b);
        cairn_report_seconds(cairn_report_percentile(v, n, 99), c);
        cairn_report_seconds(v[n - 1], d);
        fprintf(out,
                "\nsolve time per record, the mean within each job (its solve_seconds over "
                "its ok records;\nresult lines carry no per-record time), over %zu job%s: "
                "p50 %s, p90 %s, p99 %s, max %s\n",
                n, n == 1 ? "" : "s", a, b, c, d);
    }
    if (r->ok_timed > 0 || r->untimed == 0)
        cairn_report_seconds(r->solve_seconds, e);
    else
        snprintf(e, sizeof(e), "-");
    fprintf(out, "solve time, all records: %s", e);
    if (r->untimed > 0)
        fprintf(out, " (%llu job%s without solve_seconds left out)", (unsigned long long)r->untimed,
                r->untimed == 1 ? "" : "s");
    fputc('\n', out);
    if (r->first_start > 0 && span > 0) {
        char bytes[32], rate[32], records[32];
        cairn_client_bytes(r->bytes, bytes);
        cairn_client_bytes((uint64_t)((double)r->bytes / span), rate);
        cairn_report_seconds(span, a);
        cairn_report_rate((double)r->records / span, records);
        fprintf(out,
                "throughput: %llu record%s (%s) in %s, from the first job's start to the "
                "last job's finish: %s records/s, %s/s\n",
                (unsigned long long)r->records, r->records == 1 ? "" : "s", bytes, a, records,
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
        char wall[32];

        cairn_report_seconds(j->wall_seconds, wall);
        fprintf(out, "  %-*s %-6s %8llu %8llu %8llu %8llu %8llu %10s\n", w, j->name, j->status,
                (unsigned long long)j->records, (unsigned long long)j->ok,
                (unsigned long long)(j->records - j->ok), (unsigned long long)j->matches,
                (unsigned long long)j->mismatches, wall);
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
    pct(r->matches, r->matches + r->mismatches, acc);
    fprintf(out, "\naccuracy against expected: %llu checked: %llu match, %llu differ (%s)\n",
            (unsigned long long)(r->matches + r->mismatches), (unsigned long long)r->matches,
            (unsigned long long)r->mismatches, acc);
    if (r->has_unchecked)
        fprintf(out, "unchecked: %llu (an expected answer, but the record ended in an error)\n",
                (unsigned long long)r->unchecked);
    mismatches(r, out);
    times(r, out);
    jobs(r, out);
    return ferror(out) ? -EIO : 0;
}
