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

/* The longest note kept with the count, with its NUL. */
#define CAIRN_ATTEMPTS_NOTE_MAX 200

/* cairn_attempts_count, and note (note_len bytes) gets what the last run
 * that never ended said of itself (cairn_attempts_note), or "" */
unsigned cairn_attempts_count_noted(int active_fd, const char *name, int fd, ino_t ino,
                                    int ran_before, char *note, size_t note_len);

/* The run now counted is ending without an end (a plugin call that never
 * returned): why, in a few words ("line 2: plugin hang: ..."), is kept
 * beside its count for the quarantine's reason.  Best effort, and only in
 * the attribute form: the file form keeps no note. */
void cairn_attempts_note(int fd, const char *why);

/* The run ended, well or badly, but it did end: forget the count.  fd:
 * the job file, open, or -1 when it is closed (only the file form is
 * removed then). */
void cairn_attempts_forget(int active_fd, const char *name, int fd);

#endif /* CAIRN_ATTEMPTS_H */
