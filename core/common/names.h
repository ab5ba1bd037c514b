/*
 * names.h - how the names cairn derives from a job's file name are
 * spelled, in one place for the daemon and the cairn client alike.  Which
 * of them a job takes, and when, is the claim's to decide (claim.h).
 */
#ifndef CAIRN_NAMES_H
#define CAIRN_NAMES_H

#include <stddef.h>

/* What the outputs of file (NAME.jsonl) are named after: NAME when
 * NAME.results.jsonl fits in NAME_MAX; otherwise NAME's first 200 bytes
 * (not splitting a UTF-8 character), "~" and 16 hex digits of a hash of
 * the whole file name: short, and distinct for distinct names.
 * malloc'd, or NULL. */
char *cairn_output_base(const char *file);

/* The file named after base (an output base, or a job's name without
 * its suffix) with suffix, one of layout.h's: NAME.summary.json,
 * NAME.results.jsonl, NAME.reason.json.  malloc'd, or NULL. */
char *cairn_output_name(const char *base, const char *suffix);

/* The input file of the job named base: NAME.jsonl.  malloc'd, or NULL. */
char *cairn_job_file_name(const char *base);

/* The path of the state folder sub (layout.h's CAIRN_*_DIR) from the
 * input directory, .cairn/SUB, into buf.  0, or -ENAMETOOLONG when it
 * does not fit in size. */
int cairn_state_path(char *buf, size_t size, const char *sub);

/* The crash count of a claimed file in .cairn/active/: named by a hash of
 * the file name, so any name's count fits.  malloc'd, or NULL. */
char *cairn_attempts_file(const char *file);

/* Another record of a claimed file in .cairn/active/ (marks.h), named
 * the same way: .cairn-KIND.HASH.  malloc'd, or NULL. */
char *cairn_active_record_file(const char *kind, const char *file);

/* The name the n-th run (n >= 2) of name is claimed as when its earlier
 * runs' outputs stay (claim.h): NAME~n.jsonl, NAME cut (not splitting a
 * UTF-8 character) when that would not fit in NAME_MAX.  malloc'd, or
 * NULL. */
char *cairn_run_name(const char *name, unsigned n);

#endif /* CAIRN_NAMES_H */
