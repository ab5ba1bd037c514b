/*
 * report_html_eval.c - the page's sections for evaluators (report_types.h says
 * what each figure is): accuracy by input size, the first mismatches,
 * graded play and its worst blunders, and the records their lines link
 * to.  report_html.c writes the rest of the page around them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_html_eval.h"
#include "layout.h"
#include "report_format.h"
#include "report_html_esc.h"
#include "report_spill.h"

void cairn_report_html_sizes(const struct cairn_report *r, FILE *out)
{
    size_t i, b;
    int any = 0;

    for (i = 0; i < r->n_variants; i++)
        for (b = 0; b < CAIRN_SIZE_BUCKETS; b++)
            any |= r->variants[i].size[b].checked > 0;
    if (!any) {
        fputs("<p id=\"sizes-none\">Not shown: ", out);
        cairn_report_html_esc(out,
                              r->sizes_why ? r->sizes_why : "no checked record with a known size");
        fputs(".</p>\n", out);
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
            fprintf(out, "\" data-size=\"%s\" data-checked=\"%llu\" data-matches=\"%llu\">", size,
                    (unsigned long long)s->checked, (unsigned long long)s->matches);
            cairn_report_html_name_cell(out, v->name);
            fprintf(out,
                    "<td class=\"n\">%s</td><td class=\"n\">%llu</td><td class=\"n\">%llu"
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

static void blunders(const struct cairn_rep_variant *v, FILE *out)
{
    size_t i;

    fputs("<h3>Worst blunders of ", out);
    cairn_report_html_esc(out, v->name);
    fputs("</h3>\n<p class=\"note\">Cost in ", out);
    cairn_report_html_esc(out, cairn_report_cost_unit(v->name));
    fputs(".</p>\n<table class=\"blunders\" id=\"blunders-", out);
    cairn_report_html_esc(out, v->name);
    fputs("\" data-variant=\"", out);
    cairn_report_html_esc(out, v->name);
    fputs("\"><tr><th>job</th><th class=\"n\">line</th><th class=\"n\">ply</th><th>by</th>"
          "<th>move</th><th>best</th><th class=\"n\">cost</th><th>position</th></tr>\n",
          out);
    for (i = 0; i < v->n_bl; i++) {
        const struct cairn_rep_blunder *bl = &v->bl[i];
        char cost[40];

        cairn_report_num_text(&bl->cost, cost);
        fprintf(out, "<tr data-cost=\"%s\">", cost);
        cairn_report_html_name_cell(out, bl->at.job);
        line_cell(out, &bl->at);
        fprintf(out, "<td class=\"n\">%llu</td><td>", (unsigned long long)bl->ply);
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
    for (i = 0; i < r->n_variants; i++)
        if (r->variants[i].n_bl > 0)
            blunders(&r->variants[i], out);
}

static void record_div(FILE *out, const struct cairn_rep_where *at)
{
    fputs("<div class=\"rec\" id=\"", out);
    anchor(out, at);
    fputs("\"><details><summary>", out);
    cairn_report_html_esc(out, at->job);
    fprintf(out, ", line %llu</summary><pre>", (unsigned long long)at->line);
    cairn_report_html_esc(out, at->record
                                   ? at->record
                                   : "(the record is not available: its input is not kept in the "
                                     "spool's " CAIRN_DONE_PATH "/, the spool is not known, or no "
                                     "--inputs was given)");
    fputs("</pre></details></div>\n", out);
}

struct records {
    FILE *out;
    int any;
};

static void records_head(struct records *rs)
{
    if (!rs->any++)
        fputs("<h2>Records</h2>\n<div id=\"record-lines\">\n", rs->out);
}

static int mismatch_record(const struct cairn_rep_mismatch *m, void *data)
{
    records_head(data);
    record_div(((struct records *)data)->out, &m->at);
    return 0;
}

/* The whole records behind the tables' line links, each folded: the shown
 * mismatches' (read from the spill with --mismatches all), then the
 * blunders' and smallest inputs' that are not among them. */
int cairn_report_html_records(const struct cairn_report *r, FILE *out)
{
    struct records rs = { .out = out };
    const struct cairn_rep_where **more;
    size_t n = 0, i, k, cap = 0;
    int rc = cairn_report_each_mismatch(r, NULL, mismatch_record, &rs);

    if (rc != 0)
        return rc;
    for (i = 0; i < r->n_variants; i++)
        cap += r->variants[i].n_bl + 1;
    if (cap > 0 && (more = calloc(cap, sizeof(*more))) != NULL) {
        for (i = 0; i < r->n_variants; i++)
            for (k = 0; k < r->variants[i].n_bl; k++)
                if (!cairn_report_shown(r, &r->variants[i].bl[k].at, r->variants[i].bl[k].mismatch))
                    more[n++] = &r->variants[i].bl[k].at;
        for (i = 0; i < r->n_variants; i++)
            if (r->variants[i].small.input != NULL &&
                !cairn_report_shown(r, &r->variants[i].small.m.at, 1))
                more[n++] = &r->variants[i].small.m.at;
        for (i = 0; i < n; i++) {
            for (k = 0; k < i; k++)
                if (more[k]->job_index == more[i]->job_index && more[k]->line == more[i]->line)
                    break;
            if (k < i)
                continue; /* a blunder that is the smallest input too: one anchor */
            records_head(&rs);
            record_div(out, more[i]);
        }
        free(more);
    }
    if (rs.any)
        fputs("</div>\n", out);
    return 0;
}

/* A name or an id: one line, cut with an ellipsis, whole in its tooltip. */
void cairn_report_html_name_cell(FILE *out, const char *text)
{
    fputs("<td class=\"nw\" title=\"", out);
    cairn_report_html_esc(out, text);
    fputs("\">", out);
    cairn_report_html_esc(out, text);
    fputs("</td>", out);
}

/* A long text (an input, a record) folded: its first bytes, then all of
 * it on demand. */
static void folded(FILE *out, const char *text)
{
    size_t n = strlen(text);

    if (n <= CAIRN_REPORT_POSITION_MAX) {
        fputs("<code>", out);
        cairn_report_html_esc(out, text);
        fputs("</code>", out);
        return;
    }
    char head[CAIRN_REPORT_POSITION_MAX + 1];

    memcpy(head, text, CAIRN_REPORT_POSITION_MAX);
    head[cairn_utf8_cut(text, CAIRN_REPORT_POSITION_MAX)] = '\0';
    fputs("<details><summary><code>", out);
    cairn_report_html_esc(out, head);
    fprintf(out, "...</code> (%zu bytes)</summary><code class=\"all\">", n);
    cairn_report_html_esc(out, text);
    fputs("</code></details>", out);
}

/* Each variant's smallest failing input, at the top of the page. */
void cairn_report_html_smallest(const struct cairn_report *r, FILE *out)
{
    size_t i;
    int any = 0;

    for (i = 0; i < r->n_variants; i++)
        any |= r->variants[i].mismatches > 0;
    if (!any)
        return;
    fputs("<h2>Smallest failing inputs</h2>\n<table id=\"smallest\"><tr><th>variant</th>"
          "<th>input</th><th>given</th><th>exact</th><th>optimal line of play</th><th>job</th>"
          "<th class=\"n\">line</th><th>id</th></tr>\n",
          out);
    for (i = 0; i < r->n_variants; i++) {
        const struct cairn_rep_variant *v = &r->variants[i];
        const struct cairn_rep_mismatch *m;

        if (v->mismatches == 0)
            continue;
        fputs("<tr data-variant=\"", out);
        cairn_report_html_esc(out, v->name);
        fputs("\">", out);
        cairn_report_html_name_cell(out, v->name);
        if (v->small.input == NULL) {
            fputs("<td colspan=\"7\" class=\"note\">not shown: ", out);
            cairn_report_html_esc(out, r->inputs_why ? r->inputs_why
                                                     : "no failing record could be read");
            fputs("</td></tr>\n", out);
            continue;
        }
        m = &v->small.m;
        fputs("<td>", out);
        folded(out, v->small.input);
        fputs("</td><td><code>", out);
        cairn_report_html_esc(out, m->given ? m->given : "unavailable");
        fputs("</code></td><td><code>", out);
        cairn_report_html_esc(out, m->exact ? m->exact : "-");
        fputs("</code></td><td>", out);
        if (v->small.moves != NULL)
            folded(out, v->small.moves);
        else {
            fputs("<span class=\"note\">not shown: ", out);
            cairn_report_html_esc(out, v->small.moves_why ? v->small.moves_why : "not computed");
            fputs("</span>", out);
        }
        fputs("</td>", out);
        cairn_report_html_name_cell(out, m->at.job);
        line_cell(out, &m->at);
        cairn_report_html_name_cell(out, m->at.id ? m->at.id : "-");
        fputs("</tr>\n", out);
    }
    fputs("</table>\n<p class=\"note\">Smallest: the fewest values, then the smallest sum of "
          "|v|. Given: the candidate's answer (the record's <code>expected</code>); exact: "
          "cairn's.</p>\n",
          out);
}

void cairn_report_html_traps(const struct cairn_report *r, FILE *out)
{
    size_t i, k;
    int any = 0;

    for (i = 0; i < r->n_variants; i++)
        for (k = 0; k < r->variants[i].n_traps; k++)
            any |= strcmp(r->variants[i].traps[k].name, "-") != 0;
    if (!any) {
        fputs("<p id=\"traps-none\">No record names a trap (<code>cairn gen --traps</code> ids end "
              "in <code>:TRAP</code>).</p>\n",
              out);
        return;
    }
    fputs("<table id=\"traps\"><tr><th>variant</th><th>trap</th><th class=\"n\">checked</th>"
          "<th class=\"n\">match</th><th class=\"n\">accuracy</th></tr>\n",
          out);
    for (i = 0; i < r->n_variants; i++)
        for (k = 0; k < r->variants[i].n_traps; k++) {
            const struct cairn_rep_trap *t = &r->variants[i].traps[k];
            char acc[16];

            cairn_report_pct(t->matches, t->checked, acc);
            fputs("<tr data-variant=\"", out);
            cairn_report_html_esc(out, r->variants[i].name);
            fputs("\" data-trap=\"", out);
            cairn_report_html_esc(out, t->name);
            fprintf(out, "\" data-checked=\"%llu\" data-matches=\"%llu\">",
                    (unsigned long long)t->checked, (unsigned long long)t->matches);
            cairn_report_html_name_cell(out, r->variants[i].name);
            cairn_report_html_name_cell(out, t->name);
            fprintf(out,
                    "<td class=\"n\">%llu</td><td class=\"n\">%llu</td><td class=\"n\">%s</td>"
                    "</tr>\n",
                    (unsigned long long)t->checked, (unsigned long long)t->matches, acc);
        }
    fputs("</table>\n", out);
}

static int mismatch_row(const struct cairn_rep_mismatch *m, void *data)
{
    FILE *out = data;

    fputs("<tr>", out);
    cairn_report_html_name_cell(out, m->at.job);
    line_cell(out, &m->at);
    cairn_report_html_name_cell(out, m->at.id ? m->at.id : "-");
    fputs("<td><code>", out);
    cairn_report_html_esc(out, m->given ? m->given : "unavailable");
    fputs("</code></td><td><code>", out);
    cairn_report_html_esc(out, m->exact ? m->exact : "-");
    fputs("</code></td>", out);
    position_cell(out, &m->at);
    fputs("</tr>\n", out);
    return 0;
}

int cairn_report_html_mismatches(const struct cairn_report *r, FILE *out)
{
    size_t k;
    int any = 0, rc;

    for (k = 0; k < r->n_variants; k++)
        any |= r->variants[k].mismatches > 0;
    if (!any) {
        fputs("<p id=\"mismatches-none\">No given answer differs from cairn's.</p>\n", out);
        return 0;
    }
    fputs("<div id=\"mismatch-list\">\n", out);
    for (k = 0; k < r->n_variants; k++) {
        const struct cairn_rep_variant *v = &r->variants[k];

        if (v->mismatches == 0)
            continue;
        fputs("<h3>", out);
        cairn_report_html_esc(out, v->name);
        fprintf(out, ": %llu mismatch%s, %llu shown", (unsigned long long)v->mismatches,
                v->mismatches == 1 ? "" : "es", (unsigned long long)v->shown);
        if (v->int_errors > 0)
            fprintf(out, "; error size |given &minus; exact| over %llu: mean %.2f, worst %llu",
                    (unsigned long long)v->int_errors, v->error_sum / (double)v->int_errors,
                    (unsigned long long)v->error_max);
        fputs("</h3>\n<table class=\"mm\" data-variant=\"", out);
        cairn_report_html_esc(out, v->name);
        fprintf(out,
                "\" data-mismatches=\"%llu\"><tr><th>job</th><th class=\"n\">line</th>"
                "<th>id</th><th>given</th><th>exact</th><th>position</th></tr>\n",
                (unsigned long long)v->mismatches);
        if ((rc = cairn_report_each_mismatch(r, v->name, mismatch_row, out)) != 0)
            return rc;
        fputs("</table>\n", out);
    }
    fputs("</div>\n<p class=\"note\">Given: the candidate's answer, the record's "
          "<code>expected</code> (",
          out);
    cairn_report_html_esc(out, r->expected_note);
    fputs("); exact: cairn's answer.", out);
    if (r->mm_limit != CAIRN_REPORT_MISMATCHES_ALL)
        fprintf(out, " The first %zu of each variant are shown (<code>--mismatches N|all</code>).",
                r->mm_limit);
    if (r->inputs_why != NULL) {
        fputs(" Positions unavailable: ", out);
        cairn_report_html_esc(out, r->inputs_why);
        fputs(".", out);
    }
    fputs("</p>\n", out);
    return 0;
}
