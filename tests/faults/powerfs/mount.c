/*
 * mount.c - powerfs for a test (mount.h).
 */
#include "powerfs/mount.h"

#include <check.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

int powerfs_mount(const char *mnt, pid_t *pid)
{
    const char *bin = getenv("CAIRN_TEST_POWERFS");
    char probe[PATH_MAX + 16];
    double end;

    ck_assert_msg(bin != NULL, "CAIRN_TEST_POWERFS is not set (run through meson test)");
    *pid = fork();
    ck_assert_int_ge(*pid, 0);
    if (*pid == 0) {
        execl(bin, bin, mnt, "-f", "-s", (char *)NULL);
        _exit(127);
    }
    snprintf(probe, sizeof(probe), "%s/.powerfs", mnt);
    for (end = th_now_s() + 10; th_now_s() < end; th_sleep_ms(20)) {
        int status;

        if (access(probe, F_OK) == 0)
            return 1;
        if (waitpid(*pid, &status, WNOHANG) == *pid) {
            printf("skipped: powerfs could not mount (no /dev/fuse or no permission): exit %d\n",
                   WIFEXITED(status) ? WEXITSTATUS(status) : -1);
            *pid = 0;
            return 0;
        }
    }
    ck_abort_msg("powerfs did not come up on %s", mnt);
    return 0;
}

void powerfs_unmount(const char *mnt, pid_t pid)
{
    pid_t p;

    if (pid <= 0)
        return;
    p = fork();
    if (p == 0) {
        execlp("fusermount3", "fusermount3", "-u", "-z", mnt, (char *)NULL);
        _exit(127);
    }
    waitpid(p, NULL, 0);
    kill(pid, SIGTERM);
    waitpid(pid, NULL, 0);
}
