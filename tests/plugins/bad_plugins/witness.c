/*
 * witness - not broken: a valid plugin whose constructor appends the
 * loading process's pid to the file named by CAIRN_TEST_WITNESS, so a
 * test sees which processes loaded it (the probe's and the real load's).
 * Built twice, witness_a and witness_b, under two names.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define FIXTURE_ALIASES NULL
#include "fixture.h"

__attribute__((constructor)) static void say_who_loads(void)
{
    const char *file = getenv("CAIRN_TEST_WITNESS");
    char line[32];
    int fd, n;

    if (file == NULL)
        return;
    n = snprintf(line, sizeof(line), "%ld\n", (long)getpid());
    fd = open(file, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    if (fd >= 0) {
        if (write(fd, line, (size_t)n) != n)
            abort();
        close(fd);
    }
}
