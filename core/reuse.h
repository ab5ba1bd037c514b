/*
 * reuse.h - claiming a job whose name was used before.
 *
 * A job file named like one that already finished (its input is in
 * .cairn/done/ or .cairn/failed/; without keep_inputs, its summary is in
 * the output directory) would overwrite that job's results, summary and
 * done/ copy.  Instead it is claimed under a name of its own,
 * NAME~2.jsonl (then ~3, ...): its outputs and its done/ copy carry that
 * name, and nothing earlier is touched.  The new name is chosen at the
 * claim, by the rename into .cairn/active/, so a crash re-run (which
 * starts from active/) keeps it and replaces only its own outputs.
 */
#ifndef CAIRN_REUSE_H
#define CAIRN_REUSE_H

#include "spool.h"

/*
 * NAME     cairn_reuse_claim - claim name, under a new name if it was used
 * ARGUMENTS out_fd: the output directory the job will write to;
 *          keep_inputs: the setting the job runs with; *replaces is set
 *          when name is claimed as itself although its summary exists
 *          (with keep_inputs and no input in done/ or failed/: the job's
 *          own earlier try, handed back, or an earlier job whose done/
 *          copy was removed), for the log
 * RETURNS  0 with *as NULL (claimed as name), or with *as the malloc'd
 *          name it was claimed as (in .cairn/active/); -EEXIST when a job
 *          of that name is active and the name was never used (it waits,
 *          as before); -ENOENT (gone), -ENOMEM, or another negative errno
 *          from rename(2)
 */
int cairn_reuse_claim(const struct cairn_spool *sp, int out_fd, const char *name, int keep_inputs,
                      char **as, int *replaces);

/* The name the n-th run (n >= 2) of name is claimed as: NAME~n.jsonl,
 * NAME cut (not splitting a UTF-8 character) when that would not fit in
 * NAME_MAX.  malloc'd, or NULL. */
char *cairn_reuse_name(const char *name, unsigned n);

#endif /* CAIRN_REUSE_H */
