/*
 * marks.h - two records a claimed file's names leave in .cairn/active/,
 * beside its crash count (attempts.h) and kept like it: no fsync, tied to
 * the file's inode, named by a hash of the name (names.h):
 * .cairn-submitted.HASH and .cairn-handback.HASH.  What they mean for a
 * job's names is decided by the claim (claim.h); cairn's client reads the
 * first to show what a job was dropped as.
 *
 * - submitted: active/name runs under a name of its own (claim.h) and was
 *   dropped as `as`.  A crash re-run starts from active/name and finds it
 *   here, so its summary still says submitted_as.
 * - hand-back: the file went back to the input directory as back_as after
 *   running as ran_as (dropped as submitted, or NULL).  Its next claim
 *   takes ran_as again, replacing that run's own outputs (a summary may be
 *   published when a later step fails); without this mark every trace of
 *   a name, a summary included, means a finished job.
 *
 * Writers return 0 or -errno; readers 1 (found, *out malloc'd), 0 (none
 * for this inode) or -ENOMEM.
 */
#ifndef CAIRN_MARKS_H
#define CAIRN_MARKS_H

#include <sys/types.h>

int cairn_marks_note_submitted(int active_fd, const char *name, ino_t ino, const char *as);
int cairn_marks_submitted(int active_fd, const char *name, ino_t ino, char **as);
void cairn_marks_forget_submitted(int active_fd, const char *name);

int cairn_marks_note_handback(int active_fd, const char *back_as, ino_t ino, const char *ran_as,
                              const char *submitted);
int cairn_marks_handback(int active_fd, const char *back_as, ino_t ino, char **ran_as,
                         char **submitted);
void cairn_marks_forget_handback(int active_fd, const char *back_as);

#endif /* CAIRN_MARKS_H */
