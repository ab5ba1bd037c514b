/*
 * reuse.h - claiming a job whose name was used before.
 *
 * A job file named like one that already finished (its input is in
 * .cairn/done/ or .cairn/failed/, or its summary is in the output
 * directory) would overwrite that job's results, summary and
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
 * ARGUMENTS out_fd: the output directory the job will write to.
 *          A file handed back (attempts.h) is claimed as the name it ran
 *          as, and *replaces is set when that run's summary exists (its
 *          re-run replaces its own outputs, for the log).  Otherwise a job
 *          of that name in active/ makes it wait, and any other trace of
 *          name (a summary, a done/ or failed/ copy) makes it claimed as
 *          the first NAME~N used nowhere.
 * RETURNS  0 with *as NULL (claimed as name) or the malloc'd name it was
 *          claimed as in .cairn/active/, and *submitted NULL or the
 *          malloc'd name the job was dropped as (for its summary);
 *          -EEXIST when a job of that name is active, finished before or
 *          not (it waits, as before), or no NAME~N was free; -ENOENT
 *          (gone), -ENOMEM
 *          (nothing claimed), or another negative errno from rename(2)
 */
int cairn_reuse_claim(const struct cairn_spool *sp, int out_fd, const char *name, char **as,
                      char **submitted, int *replaces);

/* The name the n-th run (n >= 2) of name is claimed as: NAME~n.jsonl,
 * NAME cut (not splitting a UTF-8 character) when that would not fit in
 * NAME_MAX.  malloc'd, or NULL. */
char *cairn_reuse_name(const char *name, unsigned n);

#endif /* CAIRN_REUSE_H */
