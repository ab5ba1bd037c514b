/*
 * report_format.h - figures for people and exact sums (report_format.c), which the
 * text, JSON and HTML writers share.
 */
#ifndef CAIRN_CLIENT_REPORT_FORMAT_H
#define CAIRN_CLIENT_REPORT_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#include "report_types.h"

/* The value as text: an integer in full ("19999999996", never "2e+10"),
 * a real with the fewest digits that read back as it. */
void cairn_report_num_text(const struct cairn_rep_num *n, char out[40]);

/* n / count (count > 0) as text: exact when it is a whole number, else to
 * two decimals ("1.33"), never in exponent form. */
void cairn_report_num_mean(const struct cairn_rep_num *n, uint64_t count, char out[48]);

/* < 0, 0, > 0 as a is less than, equal to or more than b. */
int cairn_report_num_cmp(const struct cairn_rep_num *a, const struct cairn_rep_num *b);

/* The bucket (buckets.h) holding the p-th percentile (0..100, nearest
 * rank) of the solves counted in hist; -1 when it counts none. */
int cairn_report_percentile_bucket(const uint64_t hist[CAIRN_SOLVE_BUCKETS], double p);

/* A solve-time bucket for people: "<= 1.0 µs", "> 1.00 s". */
void cairn_report_bucket_label(int b, char out[32]);

/* An input-size bucket (buckets.h) for people: "1", "3-4", "131073+". */
void cairn_report_size_label(size_t b, char out[48]);

/* The first non-optimal ply bucket for people: "0", "4-7", "32+". */
void cairn_report_ply_label(int b, char out[16]);

/* A duration for people: "850 ns", "4.2 µs", "1.30 ms", "2.41 s". */
void cairn_report_seconds(double s, char out[32]);

/* What a blunder's cost counts in the variant's game (docs/contract.md,
 * Analysis and play): margin points, Alice's points, or won games. */
const char *cairn_report_cost_unit(const char *variant);

/* part of whole as "12.5%", or "-" when whole is 0. */
void cairn_report_pct(uint64_t part, uint64_t whole, char out[16]);

/* A rate for people: "0.4", "1.5", "37", "12345": one decimal below 10, so
 * a slow run does not read "1 records/s" (or "0"). */
void cairn_report_rate(double per_second, char out[32]);

#endif /* CAIRN_CLIENT_REPORT_FORMAT_H */
