/*
 * names.h - how the names cairn derives from a job's file name are
 * spelled, in one place for the daemon and the cairn client alike.  Which
 * of them a job takes, and when, is the claim's to decide (claim.h).
 */
#ifndef CAIRN_NAMES_H
#define CAIRN_NAMES_H

/* What the outputs of file (NAME.jsonl) are named after: NAME when
 * NAME.results.jsonl fits in NAME_MAX; otherwise NAME's first 200 bytes
 * (not splitting a UTF-8 character), "~" and 16 hex digits of a hash of
 * the whole file name: short, and distinct for distinct names.
 * malloc'd, or NULL. */
char *cairn_output_base(const char *file);

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
