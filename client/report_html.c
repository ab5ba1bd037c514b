/*
 * report_html.c - the report as one self-contained HTML page: inline CSS,
 * charts as inline SVG, no script, nothing fetched.  A Content-Security-
 * Policy that allows nothing from outside makes that a property of the
 * page, not only of this code: a browser refuses (and logs) any fetch.
 *
 * Numbers the test reads from the DOM carry ids or data- attributes, so
 * the layout can change without breaking what is checked.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report.h"

#define BAR_W   420 /* the longest bar, in SVG units */
#define LABEL_W 150 /* room for a name left of the bars */
#define ROW_H   26

static const char style[] =
    "body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:60em;padding:0 1em;"
    "color:#1d232a;background:#fff}"
    "h1{font-size:1.6em;margin-bottom:.1em}h2{font-size:1.2em;margin-top:1.8em;"
    "border-bottom:1px solid #d5dbe1;padding-bottom:.2em}"
    ".sub{color:#5b6670;margin-top:0}"
    ".cards{display:flex;flex-wrap:wrap;gap:.8em}"
    ".card{border:1px solid #d5dbe1;border-radius:6px;padding:.6em 1em;min-width:8em}"
    ".card .v{font-size:1.6em;font-weight:600}.card .k{color:#5b6670;font-size:.9em}"
    "table{border-collapse:collapse;width:100%;font-size:.92em}"
    "th,td{text-align:left;padding:.25em .6em;border-bottom:1px solid #e6eaee}"
    "td.n,th.n{text-align:right;font-variant-numeric:tabular-nums;white-space:nowrap}"
    "#variants td:first-child,#jobs-list td:first-child{white-space:nowrap}"
    "code{font-size:.92em}.note{color:#5b6670;font-size:.9em}"
    "svg text{font:13px system-ui,sans-serif;fill:#1d232a}"
    ".failed{color:#b3261e}";

static void esc(FILE *out, const char *s)
{
    for (; s != NULL && *s; s++) {
        switch (*s) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        default: fputc(*s, out);
        }
    }
}

static void pct(uint64_t part, uint64_t whole, char out[16])
{
    if (whole == 0)
        snprintf(out, 16, "-");
    else
        snprintf(out, 16, "%.1f%%", 100.0 * (double)part / (double)whole);
}

static void card(FILE *out, const char *id, const char *value, const char *what)
{
    fprintf(out, "<div class=\"card\"><div class=\"v\" id=\"%s\">", id);
    esc(out, value);
    fputs("</div><div class=\"k\">", out);
    esc(out, what);
    fputs("</div></div>\n", out);
}

static void cards(const struct cairn_report *r, FILE *out)
{
    char v[64], k[96];
    double span = r->last_finish - r->first_start;

    fputs("<section class=\"cards\">\n", out);
    snprintf(v, sizeof(v), "%zu", r->n_jobs);
    snprintf(k, sizeof(k), "jobs (%llu ok, %llu failed)", (unsigned long long)r->jobs_ok,
             (unsigned long long)r->jobs_failed);
    card(out, "jobs", v, k);
    snprintf(v, sizeof(v), "%llu", (unsigned long long)r->records);
    card(out, "records", v, "records");
    snprintf(v, sizeof(v), "%llu", (unsigned long long)r->ok);
    card(out, "ok", v, "ok");
    snprintf(v, sizeof(v), "%llu", (unsigned long long)r->errors);
    card(out, "errors", v, "errors");
    snprintf(v, sizeof(v), "%llu", (unsigned long long)r->matches);
    card(out, "matches", v, "match expected");
    snprintf(v, sizeof(v), "%llu", (unsigned long long)r->mismatches);
    card(out, "mismatches", v, "differ from expected");
    pct(r->matches, r->matches + r->mismatches, v);
    card(out, "accuracy", v, "accuracy");
    if (r->has_unchecked) {
        snprintf(v, sizeof(v), "%llu", (unsigned long long)r->unchecked);
        card(out, "unchecked", v, "expected given, record ended in an error");
    }
    if (r->first_start > 0 && span > 0)
        cairn_report_rate((double)r->records / span, v);
    else
        snprintf(v, sizeof(v), "-");
    card(out, "throughput", v, "records/s, first start to last finish");
    fputs("</section>\n", out);
}

static void svg_open(FILE *out, const char *id, int height, const char *title)
{
    fprintf(out,
            "<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"><title>",
            id, LABEL_W + BAR_W + 130, height, LABEL_W + BAR_W + 130, height);
    esc(out, title);
    fputs("</title>\n", out);
}

static void accuracy_chart(const struct cairn_report *r, FILE *out)
{
    size_t i;
    int y = 4;

    svg_open(out, "chart-accuracy", (int)r->n_variants * ROW_H + 8,
             "accuracy against expected answers, per variant");
    for (i = 0; i < r->n_variants; i++, y += ROW_H) {
        const struct cairn_rep_variant *v = &r->variants[i];
        char acc[16];

        fprintf(out, "<g data-variant=\"");
        esc(out, v->name);
        fprintf(out, "\" data-checked=\"%llu\" data-matches=\"%llu\"><text x=\"0\" y=\"%d\">",
                (unsigned long long)v->checked, (unsigned long long)v->matches, y + 16);
        esc(out, v->name);
        fputs("</text>", out);
        if (v->checked == 0) {
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"18\" fill=\"#eef1f4\"/>"
                    "<text x=\"%d\" y=\"%d\">no expected answers</text></g>\n",
                    LABEL_W, y + 2, BAR_W, LABEL_W + 8, y + 16);
            continue;
        }
        {
            double w = (double)BAR_W * (double)v->matches / (double)v->checked;
            pct(v->matches, v->checked, acc);
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"#2e7d32\"/>"
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"18\" "
                    "fill=\"#c62828\"/><text x=\"%d\" y=\"%d\">%llu/%llu (%s)</text></g>\n",
                    LABEL_W, y + 2, w, LABEL_W + w, y + 2, BAR_W - w, LABEL_W + BAR_W + 8, y + 16,
                    (unsigned long long)v->matches, (unsigned long long)v->checked, acc);
        }
    }
    fputs("</svg>\n<p class=\"note\">Green: solved records whose answer matches "
          "<code>expected</code>; red: those that differ. Records with no "
          "<code>expected</code>, or that ended in an error, are not counted.</p>\n",
          out);
}

static void errors_chart(const struct cairn_report *r, FILE *out)
{
    uint64_t max = 1;
    size_t i;
    int y = 4;

    for (i = 0; i < r->n_codes; i++)
        if (r->codes[i].n > max)
            max = r->codes[i].n;
    svg_open(out, "chart-errors", (int)r->n_codes * ROW_H + 8, "error lines by code");
    for (i = 0; i < r->n_codes; i++, y += ROW_H) {
        double w = (double)BAR_W * (double)r->codes[i].n / (double)max;

        fputs("<g data-code=\"", out);
        esc(out, r->codes[i].name);
        fprintf(out, "\" data-count=\"%llu\"><text x=\"0\" y=\"%d\">",
                (unsigned long long)r->codes[i].n, y + 16);
        esc(out, r->codes[i].name);
        fprintf(out,
                "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" "
                "fill=\"#b26a00\"/><text x=\"%.1f\" y=\"%d\">%llu</text></g>\n",
                LABEL_W, y + 2, w, LABEL_W + w + 6, y + 16, (unsigned long long)r->codes[i].n);
    }
    fputs("</svg>\n", out);
}

/* 1-2-5 steps: bin 3d is [10^d, 2*10^d), 3d+1 [2*10^d, 5*10^d), 3d+2
 * [5*10^d, 10^(d+1)).  Readable edges, and three bins a decade. */
static int bin_of(double v)
{
    int d = (int)floor(log10(v));
    double m = v / pow(10, d);

    return 3 * d + (m < 2 ? 0 : m < 5 ? 1 : 2);
}

static double bin_start(int b)
{
    static const double step[] = { 1, 2, 5 };
    int d = (int)floor(b / 3.0);

    return step[b - 3 * d] * pow(10, d);
}

#define MAX_BINS 30
#define MIN_BINS 6

static void histogram(const struct cairn_report *r, FILE *out)
{
    const double *v = r->per_record;
    size_t n = r->n_per_record, i;
    int lo, hi, bins, b, max = 1, counts[MAX_BINS] = { 0 };
    const int height = 170, top = 24, chart_w = LABEL_W + BAR_W;

    if (n == 0 && r->untimed > 0) {
        fprintf(out,
                "<p id=\"chart-solve\">No solve times: %llu job%s without "
                "<code>solve_seconds</code> in %s summary.</p>\n",
                (unsigned long long)r->untimed, r->untimed == 1 ? "" : "s",
                r->untimed == 1 ? "its" : "their");
        return;
    }
    if (n == 0 || !(v[0] > 0)) {
        fputs("<p id=\"chart-solve\">No solved records: no solve times.</p>\n", out);
        return;
    }
    lo = bin_of(v[0]);
    hi = bin_of(v[n - 1]);
    if (hi - lo >= MAX_BINS)
        lo = hi - MAX_BINS + 1;
    /* A narrow range still shows its neighbours, so one bar is not the
     * whole chart. */
    while (hi - lo + 1 < MIN_BINS) {
        lo--;
        if (hi - lo + 1 < MIN_BINS)
            hi++;
    }
    bins = hi - lo + 1;
    for (i = 0; i < n; i++) {
        b = bin_of(v[i]) - lo;
        b = b < 0 ? 0 : b >= bins ? bins - 1 : b;
        if (++counts[b] > max)
            max = counts[b];
    }
    svg_open(out, "chart-solve", top + height + 30, "jobs by mean solve time per record");
    fprintf(out, "<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#9aa5b1\"/>\n",
            top + height, chart_w, top + height);
    for (b = 0; b < bins; b++) {
        double bw = (double)chart_w / bins, x = b * bw + 2, h = (double)height * counts[b] / max;
        char from[32];

        cairn_report_seconds(bin_start(lo + b), from);
        fprintf(out,
                "<g data-bin=\"%d\" data-count=\"%d\"><rect x=\"%.1f\" y=\"%.1f\" "
                "width=\"%.1f\" height=\"%.1f\" fill=\"#1565c0\"/>",
                b, counts[b], x, top + height - h, bw - 4, h);
        if (counts[b] > 0)
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%d</text>", x + 2, top + height - h - 5,
                    counts[b]);
        fprintf(out, "<text x=\"%.1f\" y=\"%d\">%s</text></g>\n", x, top + height + 18, from);
    }
    fputs("</svg>\n<p class=\"note\">Jobs by their mean solve time per record; each bar "
          "starts at the time below it.</p>\n",
          out);
}

static void variants_table(const struct cairn_report *r, FILE *out)
{
    size_t i, k;

    fputs("<table id=\"variants\"><tr><th>variant</th><th class=\"n\">records</th>"
          "<th class=\"n\">ok</th><th class=\"n\">errors</th><th class=\"n\">checked</th>"
          "<th class=\"n\">match</th><th class=\"n\">accuracy</th>"
          "<th class=\"n\">solve time per ok record</th><th>errors by code</th></tr>\n",
          out);
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];
        char acc[16], per[32] = "-";

        pct(v->matches, v->checked, acc);
        if (v->ok_timed > 0)
            cairn_report_seconds(v->solve_seconds / (double)v->ok_timed, per);
        fputs("<tr data-variant=\"", out);
        esc(out, v->name);
        fputs("\"><td>", out);
        esc(out, v->name);
        fprintf(out,
                "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                "<td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
                (unsigned long long)v->records, (unsigned long long)v->ok,
                (unsigned long long)v->errors, (unsigned long long)v->checked,
                (unsigned long long)v->matches, acc, per);
        for (k = 0; k < v->n_codes; k++) {
            fputs(k ? ", " : "", out);
            esc(out, v->codes[k].name);
            fprintf(out, " %llu", (unsigned long long)v->codes[k].n);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void mismatch_table(const struct cairn_report *r, FILE *out)
{
    size_t i;

    if (r->n_mm == 0) {
        fputs("<p id=\"mismatches-none\">No answer differs from its expected one.</p>\n", out);
        return;
    }
    fputs("<table id=\"mismatch-list\"><tr><th>job</th><th class=\"n\">line</th><th>id</th>"
          "<th>variant</th><th>expected</th><th>answer</th></tr>\n",
          out);
    for (i = 0; i < r->n_mm; i++) {
        const struct cairn_rep_mismatch *m = &r->mm[i];
        fputs("<tr><td>", out);
        esc(out, m->job);
        fprintf(out, "</td><td class=\"n\">%llu</td><td><code>", (unsigned long long)m->line);
        esc(out, m->id ? m->id : "-");
        fputs("</code></td><td>", out);
        esc(out, m->variant ? m->variant : "-");
        fputs("</td><td><code>", out);
        esc(out, m->expected ? m->expected : "unavailable");
        fputs("</code></td><td><code>", out);
        esc(out, m->answer ? m->answer : "-");
        fputs("</code></td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"note\">Expected answers: ", out);
    esc(out, r->expected_note);
    fputs(".</p>\n", out);
}

static void jobs_table(const struct cairn_report *r, FILE *out)
{
    size_t i;

    fputs("<table id=\"jobs-list\"><tr><th>job</th><th>status</th><th class=\"n\">records</th>"
          "<th class=\"n\">ok</th><th class=\"n\">match</th><th class=\"n\">differ</th>"
          "<th class=\"n\">wall</th><th>reason</th></tr>\n",
          out);
    for (i = 0; i < r->n_jobs; i++) {
        const struct cairn_rep_job *j = &r->jobs[i];
        char wall[32];

        cairn_report_seconds(j->wall_seconds, wall);
        fputs("<tr><td>", out);
        esc(out, j->name);
        fprintf(out, "</td><td%s>", strcmp(j->status, "ok") ? " class=\"failed\"" : "");
        esc(out, j->status);
        fprintf(out,
                "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                "<td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
                "<td>",
                (unsigned long long)j->records, (unsigned long long)j->ok,
                (unsigned long long)j->matches, (unsigned long long)j->mismatches, wall);
        esc(out, j->reason ? j->reason : "");
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void solve_text(const struct cairn_report *r, FILE *out)
{
    const double *v = r->per_record;
    size_t n = r->n_per_record;
    char a[32], b[32], c[32], d[32];

    if (n == 0)
        return;
    cairn_report_seconds(cairn_report_percentile(v, n, 50), a);
    cairn_report_seconds(cairn_report_percentile(v, n, 90), b);
    cairn_report_seconds(cairn_report_percentile(v, n, 99), c);
    cairn_report_seconds(v[n - 1], d);
    fprintf(out,
            "<p id=\"percentiles\">Over %zu job%s: p50 %s, p90 %s, p99 %s, max %s.</p>\n"
            "<p class=\"note\">Each job counts once, with its mean solve time per record "
            "(its <code>solve_seconds</code> over its ok records): result lines carry no "
            "per-record time.</p>\n",
            n, n == 1 ? "" : "s", a, b, c, d);
    if (r->untimed > 0)
        fprintf(out,
                "<p class=\"note\">Left out: %llu job%s without <code>solve_seconds</code>.</p>\n",
                (unsigned long long)r->untimed, r->untimed == 1 ? "" : "s");
}

int cairn_report_html(const struct cairn_report *r, FILE *out)
{
    char when[32];
    time_t now = time(NULL);
    struct tm tm;

    gmtime_r(&now, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>cairn report: ",
          out);
    esc(out, r->out_dir);
    fprintf(out,
            "</title>\n<style>%s</style></head>\n<body>\n<h1>cairn report</h1>\n"
            "<p class=\"sub\">",
            style);
    esc(out, r->out_dir);
    fprintf(out, " &middot; generated %s</p>\n", when);
    cards(r, out);
    fputs("<h2>Accuracy per variant</h2>\n", out);
    accuracy_chart(r, out);
    fputs("<h2>Errors by code</h2>\n", out);
    errors_chart(r, out);
    fputs("<h2>Solve time</h2>\n", out);
    histogram(r, out);
    solve_text(r, out);
    fputs("<h2>Variants</h2>\n", out);
    variants_table(r, out);
    fputs("<h2>First mismatches</h2>\n", out);
    mismatch_table(r, out);
    fputs("<h2>Jobs</h2>\n", out);
    jobs_table(r, out);
    fputs("</body></html>\n", out);
    return ferror(out) ? -EIO : 0;
}
