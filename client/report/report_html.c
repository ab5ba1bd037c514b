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
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "report_html.h"
#include "report_format.h"
#include "report_html_esc.h"
#include "report_html_eval.h"

#define BAR_W   420 /* the longest bar, in SVG units */
#define LABEL_W 150 /* room for a name left of the bars */
#define ROW_H   26

static const char style[] =
    "body{font:15px/1.45 system-ui,sans-serif;margin:2em auto;max-width:80em;padding:0 1em;"
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
    "#variants td:first-child,#jobs-list td:first-child,#sizes td:first-child,"
    "#play td:first-child{white-space:nowrap}"
    /* Names and ids stay on one line, cut with an ellipsis, whole in the
     * title tooltip: a long job name does not make a row four lines. */
    "td.nw{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;max-width:16em}"
    "details summary{cursor:pointer}code.all{display:block;word-break:break-all;"
    "white-space:pre-wrap}"
    /* An input or a line of play breaks anywhere rather than push the
     * table past the page. */
    "#smallest td code,table.mm td code,table.blunders td code{word-break:break-all}"
    /* An answer is short: "Alice" stays whole. */
    "#smallest td:nth-child(3) code,#smallest td:nth-child(4) code{word-break:normal;"
    "white-space:nowrap}"
    "#smallest td:nth-child(2){min-width:20em}#smallest td:nth-child(5){max-width:20em;"
    "overflow:hidden}#smallest summary code{white-space:normal}"
    "code{font-size:.92em}.note{color:#5b6670;font-size:.9em}"
    "h3{font-size:1.05em}.rec pre{white-space:pre-wrap;word-break:break-all;"
    "background:#f5f7f9;padding:.4em .6em;margin-top:0}.rec:target pre{background:#fff4c2}"
    "svg text{font:13px system-ui,sans-serif;fill:#1d232a}"
    ".failed{color:#b3261e}";

static void card(FILE *out, const char *id, const char *value, const char *what)
{
    fprintf(out, "<div class=\"card\"><div class=\"v\" id=\"%s\">", id);
    cairn_report_html_esc(out, value);
    fputs("</div><div class=\"k\">", out);
    cairn_report_html_esc(out, what);
    fputs("</div></div>\n", out);
}

static void cards(const struct cairn_report *r, FILE *out)
{
    char v[64], k[96];
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
    card(out, "matches", v, "given answers exact");
    snprintf(v, sizeof(v), "%llu", (unsigned long long)r->mismatches);
    card(out, "mismatches", v, "given answers that differ");
    cairn_report_pct(r->matches, r->matches + r->mismatches, v);
    card(out, "accuracy", v, "accuracy");
    if (r->has_unchecked) {
        snprintf(v, sizeof(v), "%llu", (unsigned long long)r->unchecked);
        card(out, "unchecked", v, "answer given, record ended in an error");
    }
    if (r->busy_seconds > 0)
        cairn_report_rate((double)r->records / r->busy_seconds, v);
    else
        snprintf(v, sizeof(v), "-");
    card(out, "throughput", v, "records/s while a job ran");
    fputs("</section>\n", out);
}

static void svg_open(FILE *out, const char *id, int height, const char *title)
{
    fprintf(out,
            "<svg id=\"%s\" xmlns=\"http://www.w3.org/2000/svg\" role=\"img\" "
            "width=\"%d\" height=\"%d\" viewBox=\"0 0 %d %d\"><title>",
            id, LABEL_W + BAR_W + 130, height, LABEL_W + BAR_W + 130, height);
    cairn_report_html_esc(out, title);
    fputs("</title>\n", out);
}

static void accuracy_chart(const struct cairn_report *r, FILE *out)
{
    size_t i;
    int y = 4;

    svg_open(out, "chart-accuracy", (int)r->n_variants * ROW_H + 8,
             "accuracy of the given answers, per variant");
    for (i = 0; i < r->n_variants; i++, y += ROW_H) {
        const struct cairn_rep_variant *v = &r->variants[i];
        char acc[16];

        fprintf(out, "<g data-variant=\"");
        cairn_report_html_esc(out, v->name);
        fprintf(out, "\" data-checked=\"%llu\" data-matches=\"%llu\"><text x=\"0\" y=\"%d\">",
                (unsigned long long)v->checked, (unsigned long long)v->matches, y + 16);
        cairn_report_html_esc(out, v->name);
        fputs("</text>", out);
        if (v->checked == 0) {
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%d\" height=\"18\" fill=\"#eef1f4\"/>"
                    "<text x=\"%d\" y=\"%d\">no given answers</text></g>\n",
                    LABEL_W, y + 2, BAR_W, LABEL_W + 8, y + 16);
            continue;
        }
        {
            double w = (double)BAR_W * (double)v->matches / (double)v->checked;
            cairn_report_pct(v->matches, v->checked, acc);
            fprintf(out,
                    "<rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" fill=\"#2e7d32\"/>"
                    "<rect x=\"%.1f\" y=\"%d\" width=\"%.1f\" height=\"18\" "
                    "fill=\"#c62828\"/><text x=\"%d\" y=\"%d\">%llu/%llu (%s)</text></g>\n",
                    LABEL_W, y + 2, w, LABEL_W + w, y + 2, BAR_W - w, LABEL_W + BAR_W + 8, y + 16,
                    (unsigned long long)v->matches, (unsigned long long)v->checked, acc);
        }
    }
    fputs("</svg>\n<p class=\"note\">Green: solved records whose given answer (the "
          "record's <code>expected</code>) is cairn's exact one; red: those that differ. "
          "Records with no <code>expected</code>, or that ended in an error, are not "
          "counted.</p>\n",
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
        cairn_report_html_esc(out, r->codes[i].name);
        fprintf(out, "\" data-count=\"%llu\"><text x=\"0\" y=\"%d\">",
                (unsigned long long)r->codes[i].n, y + 16);
        cairn_report_html_esc(out, r->codes[i].name);
        fprintf(out,
                "</text><rect x=\"%d\" y=\"%d\" width=\"%.1f\" height=\"18\" "
                "fill=\"#b26a00\"/><text x=\"%.1f\" y=\"%d\">%llu</text></g>\n",
                LABEL_W, y + 2, w, LABEL_W + w + 6, y + 16, (unsigned long long)r->codes[i].n);
    }
    fputs("</svg>\n", out);
}

static void histogram(const struct cairn_report *r, FILE *out)
{
    uint64_t max = 1, n = 0;
    int b, lo = -1, hi = -1, bins;
    const int height = 170, top = 24, chart_w = LABEL_W + BAR_W;

    for (b = 0; b < CAIRN_SOLVE_BUCKETS; b++) {
        n += r->hist[b];
        if (r->hist[b] > max)
            max = r->hist[b];
        if (r->hist[b] > 0) {
            lo = lo < 0 ? b : lo;
            hi = b;
        }
    }
    if (n == 0) {
        fprintf(out, "<p id=\"chart-solve\">No per-record solve times%s.</p>\n",
                r->hist_missing > 0 ? ": the summaries carry no solve_histogram"
                                    : ": no record was solved");
        return;
    }
    /* The buckets from one below the fastest to one above the slowest. */
    lo = lo > 0 ? lo - 1 : 0;
    hi = hi < CAIRN_SOLVE_BUCKETS - 1 ? hi + 1 : hi;
    bins = hi - lo + 1;
    svg_open(out, "chart-solve", top + height + 30, "records by solve time");
    fprintf(out, "<line x1=\"0\" y1=\"%d\" x2=\"%d\" y2=\"%d\" stroke=\"#9aa5b1\"/>\n",
            top + height, chart_w, top + height);
    for (b = 0; b < bins; b++) {
        uint64_t c = r->hist[lo + b];
        double bw = (double)chart_w / bins, x = b * bw + 2, h = (double)height * c / max;
        char label[32];

        cairn_report_bucket_label(lo + b, label);
        fprintf(out,
                "<g data-bucket=\"%d\" data-count=\"%llu\"><rect x=\"%.1f\" y=\"%.1f\" "
                "width=\"%.1f\" height=\"%.1f\" fill=\"#1565c0\"/>",
                lo + b, (unsigned long long)c, x, top + height - h, bw - 4, h);
        if (c > 0)
            fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">%llu</text>", x + 2, top + height - h - 5,
                    (unsigned long long)c);
        fputs("<text x=\"", out);
        fprintf(out, "%.1f\" y=\"%d\">", x, top + height + 18);
        cairn_report_html_esc(out, label);
        fputs("</text></g>\n", out);
    }
    fputs("</svg>\n<p class=\"note\">Records by the time their solver took, from the "
          "summaries' <code>solve_histogram</code>; each bar is a bucket of the metric "
          "<code>cairn_solve_seconds</code>, labelled by its upper bound.</p>\n",
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

        cairn_report_pct(v->matches, v->checked, acc);
        if (v->ok_timed > 0)
            cairn_report_seconds(v->solve_seconds / (double)v->ok_timed, per);
        fputs("<tr data-variant=\"", out);
        cairn_report_html_esc(out, v->name);
        fputs("\">", out);
        cairn_report_html_name_cell(out, v->name);
        fprintf(out,
                "<td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                "<td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
                (unsigned long long)v->records, (unsigned long long)v->ok,
                (unsigned long long)v->errors, (unsigned long long)v->checked,
                (unsigned long long)v->matches, acc, per);
        for (k = 0; k < v->n_codes; k++) {
            fputs(k ? ", " : "", out);
            cairn_report_html_esc(out, v->codes[k].name);
            fprintf(out, " %llu", (unsigned long long)v->codes[k].n);
        }
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
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
        fputs("<tr>", out);
        cairn_report_html_name_cell(out, j->name);
        fprintf(out, "<td%s>", strcmp(j->status, "ok") ? " class=\"failed\"" : "");
        cairn_report_html_esc(out, j->status);
        fprintf(out,
                "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td>"
                "<td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
                "<td>",
                (unsigned long long)j->records, (unsigned long long)j->ok,
                (unsigned long long)j->matches, (unsigned long long)j->mismatches, wall);
        cairn_report_html_esc(out, j->reason ? j->reason : "");
        fputs("</td></tr>\n", out);
    }
    fputs("</table>\n", out);
}

static void solve_text(const struct cairn_report *r, FILE *out)
{
    uint64_t n = 0;
    char a[32], b[32], c[32];
    int k;

    for (k = 0; k < CAIRN_SOLVE_BUCKETS; k++)
        n += r->hist[k];
    if (n > 0) {
        cairn_report_bucket_label(cairn_report_percentile_bucket(r->hist, 50), a);
        cairn_report_bucket_label(cairn_report_percentile_bucket(r->hist, 90), b);
        cairn_report_bucket_label(cairn_report_percentile_bucket(r->hist, 99), c);
        fprintf(out, "<p id=\"percentiles\">Over %llu solve%s: p50 %s, p90 %s, p99 %s.</p>\n",
                (unsigned long long)n, n == 1 ? "" : "s", a, b, c);
    }
    if (r->hist_missing > 0)
        fprintf(out,
                "<p class=\"note\">Left out: %llu job%s without per-record solve times "
                "(<code>solve_histogram</code>).</p>\n",
                (unsigned long long)r->hist_missing, r->hist_missing == 1 ? "" : "s");
}

int cairn_report_html(const struct cairn_report *r, FILE *out)
{
    char when[32];
    time_t now = time(NULL);
    struct tm tm;
    int rc;

    gmtime_r(&now, &tm);
    strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
    fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
          "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
          "style-src 'unsafe-inline'; img-src data:\">\n"
          "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
          "<link rel=\"icon\" href=\"data:,\">\n<title>cairn report: ",
          out);
    cairn_report_html_esc(out, r->out_dir);
    fprintf(out,
            "</title>\n<style>%s</style></head>\n<body>\n<h1>cairn report</h1>\n"
            "<p class=\"sub\">",
            style);
    cairn_report_html_esc(out, r->out_dir);
    fprintf(out, " &middot; generated %s</p>\n", when);
    cards(r, out);
    /* What an evaluator reads first: the smallest input each variant fails. */
    cairn_report_html_smallest(r, out);
    fputs("<h2>Accuracy per variant</h2>\n", out);
    accuracy_chart(r, out);
    fputs("<h2>Errors by code</h2>\n", out);
    errors_chart(r, out);
    fputs("<h2>Solve time</h2>\n", out);
    histogram(r, out);
    solve_text(r, out);
    fputs("<h2>Variants</h2>\n", out);
    variants_table(r, out);
    fputs("<h2>Accuracy by input size</h2>\n", out);
    cairn_report_html_sizes(r, out);
    fputs("<h2>Accuracy by trap</h2>\n", out);
    cairn_report_html_traps(r, out);
    fputs("<h2>Mismatches per variant</h2>\n", out);
    if ((rc = cairn_report_html_mismatches(r, out)) != 0)
        return rc;
    fputs("<h2>Graded play</h2>\n", out);
    cairn_report_html_play(r, out);
    fputs("<h2>Jobs</h2>\n", out);
    jobs_table(r, out);
    if ((rc = cairn_report_html_records(r, out)) != 0)
        return rc;
    fputs("</body></html>\n", out);
    return ferror(out) ? -EIO : 0;
}
