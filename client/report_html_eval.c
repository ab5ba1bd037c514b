/*
 * report_html_eval.c - the page's sections for evaluators (report.h says
 * what each figure is): accuracy by input size, the first mismatches,
 * graded play and its worst blunders, and the records their lines link
 * to.  report_html.c writes the rest of the page around them.
 */
#include <stdio.h>
#include <string.h>

#include "report_html.h"

void cairn_report_html_sizes(const struct cairn_report *r, FILE *out)
{
    size_t i, b;
    int any = 0;

    for (i = 0; i < r->n_variants; i++)
        for (b = 0; b < CAIRN_SIZE_BUCKETS; b++)
            any |= r->variants[i].size[b].checked > 0;
    if (!any) {
        fputs("<p id=\"sizes-none\">No graded records with a known size.</p>\n", out);
        return;
    }
    fputs("<table id=\"sizes\"><tr><th>variant</th><th class=\"n\">size</th>"
          "<th class=\"n\">checked</th><th class=\"n\">match</th><th class=\"n\">accuracy</th>"
          "<th>accuracy</th></tr>\n",
          out);
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];

        for (b = 0; b < CAIRN_SIZE_BUCKETS; b++) {
            const struct cairn_rep_size *s = &v->size[b];
            char size[48], acc[16];
            double w;

            if (s->checked == 0)
                continue;
            cairn_report_size_label(b, size);
            cairn_report_pct(s->matches, s->checked, acc);
            w = 160.0 * (double)s->matches / (double)s->checked;
            fputs("<tr data-variant=\"", out);
            cairn_report_html_esc(out, v->name);
            fprintf(out, "\" data-size=\"%s\" data-checked=\"%llu\" data-matches=\"%llu\"><td>",
                    size, (unsigned long long)s->checked, (unsigned long long)s->matches);
            cairn_report_html_esc(out, v->name);
            fprintf(out,
                    "</td><td class=\"n\">%s</td><td class=\"n\">%llu</td><td class=\"n\">%llu"
                    "</td><td class=\"n\">%s</td><td><svg width=\"160\" height=\"12\" "
                    "role=\"img\"><title>%s</title><rect width=\"%.1f\" height=\"12\" "
                    "fill=\"#2e7d32\"/><rect x=\"%.1f\" width=\"%.1f\" height=\"12\" "
                    "fill=\"#c62828\"/></svg></td></tr>\n",
                    size, (unsigned long long)s->checked, (unsigned long long)s->matches, acc, acc,
                    w, w, 160.0 - w);
        }
    }
    fputs("</table>\n<p class=\"note\">A record's size: its longest array, or for a game of "
          "one number, that number; buckets double in size.</p>\n",
          out);
}

/* The anchor of a record in the Records section. */
static void anchor(FILE *out, const struct cairn_rep_where *w)
{
    fprintf(out, "rec-%zu-%llu", w->job_index, (unsigned long long)w->line);
}

static void line_cell(FILE *out, const struct cairn_rep_where *w)
{
    fputs("<td class=\"n\"><a href=\"#", out);
    anchor(out, w);
    fprintf(out, "\">%llu</a></td>", (unsigned long long)w->line);
}

static void position_cell(FILE *out, const struct cairn_rep_where *w)
{
    fputs("<td><code>", out);
    cairn_report_html_esc(out, w->position ? w->position : "unavailable");
    fputs("</code></td>", out);
}

void cairn_report_html_play(const struct cairn_report *r, FILE *out)
{
    size_t i;
    int b;

    if (r->graded == 0) {
        fputs("<p id=\"play-none\">No graded lines of play (<code>options.play</code>).</p>\n",
              out);
        return;
    }
    fputs("<table id=\"play\"><tr><th>variant</th><th class=\"n\">graded</th>"
          "<th class=\"n\">optimal</th><th class=\"n\">share</th><th class=\"n\">total cost</th>"
          "<th class=\"n\">mean cost</th><th>first non-optimal ply</th></tr>\n",
          out);
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];
        char p[16], total[40], mean[48];
        int first = 1;

        if (v->graded == 0)
            continue;
        cairn_report_pct(v->optimal, v->graded, p);
        cairn_report_num_text(&v->cost, total);
        cairn_report_num_mean(&v->cost, v->graded, mean);
        fputs("<tr data-variant=\"", out);
        cairn_report_html_esc(out, v->name);
        fprintf(out, "\" data-graded=\"%llu\" data-optimal=\"%llu\" data-cost=\"%s\"><td>",
                (unsigned long long)v->graded, (unsigned long long)v->optimal, total);
        cairn_report_html_esc(out, v->name);
        fprintf(out,
                "</td><td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
                "<td class=\"n\">%s</td><td class=\"n\">%s</td><td>",
                (unsigned long long)v->graded, (unsigned long long)v->optimal, p, total, mean);
        for (b = 0; b < CAIRN_REPORT_PLY_BUCKETS; b++) {
            char label[16];

            if (v->first_ply[b] == 0)
                continue;
            cairn_report_ply_label(b, label);
            fprintf(out, "%sply %s: %llu", first ? "" : ", ", label,
                    (unsigned long long)v->first_ply[b]);
            first = 0;
        }
        fputs(first ? "all optimal</td></tr>\n" : "</td></tr>\n", out);
    }
    fputs("</table>\n<p class=\"note\">Cost: what a line's first non-optimal move gave away, "
          "in the game's terms (docs/contract.md, Analysis and play); the mean is over every "
          "graded line. Plies count from 0, Alice's first move.</p>\n",
          out);
    if (r->n_bl == 0)
        return;
    fputs("<h3>Worst blunders</h3>\n<table id=\"blunders\"><tr><th>job</th>"
          "<th class=\"n\">line</th><th>variant</th><th class=\"n\">ply</th><th>by</th>"
          "<th>move</th><th>best</th><th class=\"n\">cost</th><th>position</th></tr>\n",
          out);
    for (i = 0; i < r->n_bl; i++) {
        const struct cairn_rep_blunder *bl = &r->bl[i];
        char cost[40];

        cairn_report_num_text(&bl->cost, cost);
        fprintf(out, "<tr data-cost=\"%s\"><td>", cost);
        cairn_report_html_esc(out, bl->at.job);
        fputs("</td>", out);
        line_cell(out, &bl->at);
        fputs("<td>", out);
        cairn_report_html_esc(out, bl->at.variant ? bl->at.variant : "-");
        fprintf(out, "</td><td class=\"n\">%llu</td><td>", (unsigned long long)bl->ply);
        cairn_report_html_esc(out, bl->by);
        fputs("</td><td><code>", out);
        cairn_report_html_esc(out, bl->move);
        fputs("</code></td><td><code>", out);
        cairn_report_html_esc(out, bl->best);
        fprintf(out, "</code></td><td class=\"n\">%s</td>", cost);
        position_cell(out, &bl->at);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n", out);
}

/* The whole records behind the tables' line links. */
void cairn_report_html_records(const struct cairn_report *r, FILE *out)
{
    const struct cairn_rep_where *all[CAIRN_REPORT_MISMATCHES + CAIRN_REPORT_BLUNDERS];
    size_t n = 0, i, k;

    for (i = 0; i < r->n_mm; i++)
        all[n++] = &r->mm[i].at;
    for (i = 0; i < r->n_bl; i++)
        all[n++] = &r->bl[i].at;
    if (n == 0)
        return;
    fputs("<h2>Records</h2>\n<div id=\"record-lines\">\n", out);
    for (i = 0; i < n; i++) {
        for (k = 0; k < i; k++)
            if (all[k]->job_index == all[i]->job_index && all[k]->line == all[i]->line)
                break;
        if (k < i)
            continue; /* a mismatch that is a blunder too: one anchor */
        fputs("<div class=\"rec\" id=\"", out);
        anchor(out, all[i]);
        fputs("\"><p>", out);
        cairn_report_html_esc(out, all[i]->job);
        fprintf(out, ", line %llu:</p><pre>", (unsigned long long)all[i]->line);
        cairn_report_html_esc(
            out, all[i]->record ? all[i]->record
                                : "(the record is not available: its input is not kept in the "
                                  "spool's .cairn/done/, or the spool is not known)");
        fputs("</pre></div>\n", out);
    }
    fputs("</div>\n", out);
}

void cairn_report_html_mismatches(const struct cairn_report *r, FILE *out)
{
    size_t i;

    if (r->n_mm == 0) {
        fputs("<p id=\"mismatches-none\">No answer differs from its expected one.</p>\n", out);
        return;
    }
    fputs("<table id=\"mismatch-list\"><tr><th>job</th><th class=\"n\">line</th><th>id</th>"
          "<th>variant</th><th>expected</th><th>answer</th><th>position</th></tr>\n",
          out);
    for (i = 0; i < r->n_mm; i++) {
        const struct cairn_rep_mismatch *m = &r->mm[i];
        fputs("<tr><td>", out);
        cairn_report_html_esc(out, m->at.job);
        fputs("</td>", out);
        line_cell(out, &m->at);
        fputs("<td><code>", out);
        cairn_report_html_esc(out, m->at.id ? m->at.id : "-");
        fputs("</code></td><td>", out);
        cairn_report_html_esc(out, m->at.variant ? m->at.variant : "-");
        fputs("</td><td><code>", out);
        cairn_report_html_esc(out, m->expected ? m->expected : "unavailable");
        fputs("</code></td><td><code>", out);
        cairn_report_html_esc(out, m->answer ? m->answer : "-");
        fputs("</code></td>", out);
        position_cell(out, &m->at);
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<p class=\"note\">Expected answers: ", out);
    cairn_report_html_esc(out, r->expected_note);
    fputs(".</p>\n", out);
}
