/*
 * attempts.h - how many runs of a claimed job began and never ended.
 *
 * A run that never ends (SIGKILL, a crash inside a plugin) leaves its count
 * in active/.NAME.jsonl.attempts as "INODE COUNT": the file survives the
 * process, and the inode ties the count to this very job file, not to a
 * later one of the same name.  After max_attempts such runs the job is
 * quarantined instead of crashing the daemon forever.
 */
#ifndef CAIRN_ATTEMPTS_H
#define CAIRN_ATTEMPTS_H

#include <sys/types.h>

/* Records that a run of active/name (inode ino) begins.  Returns how many
 * runs began before it and never ended (0 if unknown). */
unsigned cairn_attempts_count(int active_fd, const char *name, ino_t ino);

/* The run ended, well or badly, but it did end: forget the count. */
void cairn_attempts_forget(int active_fd, const char *name);

#endif /* CAIRN_ATTEMPTS_H */
