/*
 * mount.h - powerfs mounted and unmounted for a test (test_powerfs.c,
 * test_powercut.c).
 */
#ifndef POWERFS_MOUNT_H
#define POWERFS_MOUNT_H

#include <sys/types.h>

/* Starts powerfs (the binary in $CAIRN_TEST_POWERFS) on the existing
 * directory mnt and waits for its control file: 1 with *pid, or 0 after
 * printing why this machine cannot mount it (no /dev/fuse, no
 * permission), so the caller can skip.  Fails the test when it neither
 * comes up nor exits within 10 s. */
int powerfs_mount(const char *mnt, pid_t *pid);

/* Lazily unmounts mnt and stops powerfs (pid 0: nothing to do). */
void powerfs_unmount(const char *mnt, pid_t pid);

#endif /* POWERFS_MOUNT_H */
