/*
 * notify.c - sd_notify's datagram protocol written out: it is small and
 * stable (one AF_UNIX datagram of "KEY=VALUE\n" lines to $NOTIFY_SOCKET),
 * and libsystemd, which we used for it, cost every start of cairnd 1.5 ms
 * in the six libraries it pulls in.
 */
#include "notify.h"

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sys/socket.h>
#include <sys/un.h>

int cairn_notify(const char *state)
{
    const char *path = getenv("NOTIFY_SOCKET");
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t n;
    socklen_t len;
    int fd, rc = 0;

    if (path == NULL || (path[0] != '/' && path[0] != '@'))
        return 0;
    n = strlen(path);
    if (n >= sizeof(sa.sun_path))
        return -ENAMETOOLONG;
    memcpy(sa.sun_path, path, n);
    if (path[0] == '@')
        sa.sun_path[0] = '\0'; /* abstract namespace */
    len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + n + (path[0] == '/'));
    fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd < 0)
        return -errno;
    if (sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, len) < 0)
        rc = -errno;
    close(fd);
    return rc;
}

uint64_t cairn_notify_watchdog_usec(void)
{
    const char *usec = getenv("WATCHDOG_USEC");
    const char *pid = getenv("WATCHDOG_PID");

    if (usec == NULL || (pid != NULL && strtol(pid, NULL, 10) != (long)getpid()))
        return 0;
    return strtoull(usec, NULL, 10);
}

int cairn_notify_reloading(void)
{
    struct timespec ts;
    char msg[64];

    clock_gettime(CLOCK_MONOTONIC, &ts);
    snprintf(msg, sizeof(msg), "RELOADING=1\nMONOTONIC_USEC=%llu",
             (unsigned long long)ts.tv_sec * 1000000ull + (unsigned long long)ts.tv_nsec / 1000);
    return cairn_notify(msg);
}
