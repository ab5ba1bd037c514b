/*
 * attempts.h - how many runs of a claimed job began and never ended.
 *
 * A run that never ends (SIGKILL, a crash inside a plugin) leaves its count
 * on the job file itself, in the extended attribute user.cairn.attempts:
 * it survives the process, and it belongs to this very file, not to a
 * later one of the same name.  Where the file system keeps no user
 * attributes, the count is in active/.cairn-attempts.HASH (names.h) as
 * "INODE COUNT" instead: a file created and deleted per job, which on
 * ext4 was the dearest part of a small job's hand-off.  After
 * max_attempts such runs the job is quarantined instead of crashing the
 * daemon forever.
 */
#ifndef CAIRN_ATTEMPTS_H
#define CAIRN_ATTEMPTS_H

#include <sys/types.h>

/* Records that a run of active/name (open as fd, inode ino) begins.
 * Returns how many runs began before it and never ended (0 if unknown).
 * ran_before: the file was found in active/ (left by a crash), so a count
 * an earlier version left in the file form is looked for and taken over;
 * a fresh claim skips that lookup. */
unsigned cairn_attempts_count(int active_fd, const char *name, int fd, ino_t ino, int ran_before);

/* The run ended, well or badly, but it did end: forget the count.  fd:
 * the job file, open, or -1 when it is closed (only the file form is
 * removed then). */
void cairn_attempts_forget(int active_fd, const char *name, int fd);

/*
 * Two more records in active/, kept like the count (no fsync, tied to the
 * file's inode, named by a hash: .cairn-submitted.HASH, .cairn-handback.HASH):
 *
 * - submitted: active/name runs under a name of its own (reuse.h) and was
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
int cairn_attempts_note_submitted(int active_fd, const char *name, ino_t ino, const char *as);
int cairn_attempts_submitted(int active_fd, const char *name, ino_t ino, char **as);
void cairn_attempts_forget_submitted(int active_fd, const char *name);

int cairn_attempts_note_handback(int active_fd, const char *back_as, ino_t ino, const char *ran_as,
                                 const char *submitted);
int cairn_attempts_handback(int active_fd, const char *back_as, ino_t ino, char **ran_as,
                            char **submitted);
void cairn_attempts_forget_handback(int active_fd, const char *back_as);

#endif /* CAIRN_ATTEMPTS_H */
