/*
 * fork_then_crash - sound ELF, sound descriptor, a constructor that forks
 * and then faults.  The forked process outlives the one that loaded the
 * plugin and holds every descriptor it had: a loader that waited for the
 * probe's socket or pipe to close would wait for it.  It writes its pid
 * to $CAIRN_TEST_WITNESS (for the test to end it) and ends by itself
 * within a minute.
 */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#define FIXTURE_NAME    "fork-then-crash"
#define FIXTURE_ALIASES NULL
#include "fixture.h"

__attribute__((constructor)) static void fork_then_fault(void)
{
    const char *file = getenv("CAIRN_TEST_WITNESS");

    if (fork() == 0) {
        char line[32];
        int fd, n;

        if (file != NULL && (fd = open(file, O_WRONLY | O_APPEND | O_CREAT, 0644)) >= 0) {
            n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
            if (write(fd, line, (size_t)n) != n)
                _exit(1);
            close(fd);
        }
        alarm(60);
        for (;;)
            pause();
    }
    raise(SIGSEGV);
}
