/*
 * report_format.c - a report's figures for people: durations, rates,
 * shares, and the labels of the histograms' buckets (report_types.h).
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report_format.h"

int cairn_report_percentile_bucket(const uint64_t hist[CAIRN_SOLVE_BUCKETS], double p)
{
    uint64_t n = 0, rank, seen = 0;
    int b;

    for (b = 0; b < CAIRN_SOLVE_BUCKETS; b++)
        n += hist[b];
    if (n == 0)
        return -1;
    rank = (uint64_t)ceil(p / 100.0 * (double)n);
    for (b = 0; b < CAIRN_SOLVE_BUCKETS - 1; b++)
        if ((seen += hist[b]) >= (rank == 0 ? 1 : rank))
            break;
    return b;
}

void cairn_report_bucket_label(int b, char out[32])
{
    char t[32];

    if (b < 0) {
        snprintf(out, 32, "-");
        return;
    }
    cairn_report_seconds(cairn_solve_bucket_le[b < CAIRN_SOLVE_BUCKETS - 1 ? b : b - 1], t);
    snprintf(out, 32, "%s %.28s", b < CAIRN_SOLVE_BUCKETS - 1 ? "<=" : ">", t);
}

void cairn_report_size_label(size_t b, char out[48])
{
    uint64_t min, max;

    cairn_size_bucket_range(b, &min, &max);
    if (max == UINT64_MAX)
        snprintf(out, 48, "%llu+", (unsigned long long)min);
    else if (min == max)
        snprintf(out, 48, "%llu", (unsigned long long)min);
    else
        snprintf(out, 48, "%llu-%llu", (unsigned long long)min, (unsigned long long)max);
}

void cairn_report_ply_label(int b, char out[16])
{
    if (b < 4)
        snprintf(out, 16, "%d", b);
    else if (b < CAIRN_REPORT_PLY_BUCKETS - 1)
        snprintf(out, 16, "%d-%d", 1 << (b - 2), (1 << (b - 1)) - 1);
    else
        snprintf(out, 16, "%d+", 1 << (b - 2));
}

void cairn_report_pct(uint64_t part, uint64_t whole, char out[16])
{
    if (whole == 0)
        snprintf(out, 16, "-");
    else
        snprintf(out, 16, "%.1f%%", 100.0 * (double)part / (double)whole);
}

void cairn_report_rate(double per_second, char out[32])
{
    snprintf(out, 32, per_second < 9.95 ? "%.1f" : "%.0f", per_second);
}

void cairn_report_seconds(double s, char out[32])
{
    if (!(s >= 0))
        snprintf(out, 32, "-");
    else if (s < 1e-6)
        snprintf(out, 32, "%.0f ns", s * 1e9);
    else if (s < 1e-3)
        snprintf(out, 32, "%.1f \xc2\xb5s", s * 1e6);
    else if (s < 1)
        snprintf(out, 32, "%.2f ms", s * 1e3);
    else
        snprintf(out, 32, "%.2f s", s);
}

/* A double as the fewest significant digits (15 to 17) that read back as
 * it; a whole number below 10^18 in full. */
static void real_text(double d, char out[40])
{
    int prec;

    if (isfinite(d) && d == floor(d) && fabs(d) < 1e18) {
        snprintf(out, 40, "%.0f", d);
        return;
    }
    for (prec = 15; prec < 17; prec++) {
        snprintf(out, 40, "%.*g", prec, d);
        if (strtod(out, NULL) == d)
            return;
    }
    snprintf(out, 40, "%.17g", d);
}

void cairn_report_num_text(const struct cairn_rep_num *n, char out[40])
{
    if (n->real)
        real_text(n->d, out);
    else
        snprintf(out, 40, "%" PRId64, n->i);
}

void cairn_report_num_mean(const struct cairn_rep_num *n, uint64_t count, char out[48])
{
    uint64_t mag, q, r, cents;
    double m;

    if (count == 0) {
        snprintf(out, 48, "-");
        return;
    }
    if (n->real) {
        m = n->d / (double)count;
        if (isfinite(m) && m == floor(m) && fabs(m) < 1e18)
            snprintf(out, 48, "%.0f", m);
        else if (isfinite(m) && fabs(m) < 1e18)
            snprintf(out, 48, "%.2f", m);
        else
            real_text(m, out);
        return;
    }
    /* Integer division, so a sum past 2^53 loses nothing: the quotient
     * exact, the remainder's share rounded to hundredths. */
    mag = n->i < 0 ? 0 - (uint64_t)n->i : (uint64_t)n->i;
    q = mag / count;
    r = mag % count;
    if (r == 0) {
        snprintf(out, 48, "%s%" PRIu64, n->i < 0 ? "-" : "", q);
        return;
    }
    cents = (uint64_t)llround((double)r / (double)count * 100.0);
    if (cents >= 100) {
        q++;
        cents = 0;
    }
    snprintf(out, 48, "%s%" PRIu64 ".%02" PRIu64, n->i < 0 ? "-" : "", q, cents);
}

int cairn_report_num_cmp(const struct cairn_rep_num *a, const struct cairn_rep_num *b)
{
    double x, y;

    if (!a->real && !b->real)
        return a->i < b->i ? -1 : a->i > b->i;
    x = a->real ? a->d : (double)a->i;
    y = b->real ? b->d : (double)b->i;
    return x < y ? -1 : x > y;
}

const char *cairn_report_cost_unit(const char *variant)
{
    static const char *const won[] = { "stone-game-iv", "stone-game-ix", "stone-removal-game" };
    size_t i;

    for (i = 0; i < sizeof(won) / sizeof(won[0]); i++)
        if (strcmp(variant, won[i]) == 0)
            return "won games thrown away";
    if (strcmp(variant, "stone-game-v") == 0)
        return "points of Alice's total";
    return "points of the final margin, Alice - Bob";
}
