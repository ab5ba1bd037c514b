/*
 * fdbudget.c - the jobs at once the descriptor limit allows (fdbudget.h).
 */
#include "fdbudget.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "job.h"
#include "util.h"

static int count_one(void *data, const char *name)
{
    (void)name;
    ++*(size_t *)data;
    return 0;
}

/* The descriptors open now, from /proc/self/fd (less the two the listing
 * itself holds).  Without /proc, every number below the limit is asked,
 * which is cheap for the low limits this is about. */
static int count_open(unsigned long long limit, size_t *n)
{
    int dfd = open("/proc/self/fd", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    unsigned long long fd;
    int rc;

    *n = 0;
    if (dfd >= 0) {
        rc = cairn_dir_each(dfd, count_one, n);
        close(dfd);
        if (rc == 0) {
            /* dfd, and the one cairn_dir_each lists through. */
            *n = *n > 2 ? *n - 2 : 0;
            return 0;
        }
        *n = 0;
    }
    if (limit > 65536)
        return -ENOENT;
    for (fd = 0; fd < limit; fd++)
        if (fcntl((int)fd, F_GETFD) >= 0)
            ++*n;
    return 0;
}

int cairn_fd_budget(size_t wanted, size_t reserve, struct cairn_fd_budget *b)
{
    struct rlimit rl;
    unsigned long long spare;
    int rc;

    *b = (struct cairn_fd_budget){ .reserve = reserve,
                                   .per_job = CAIRN_JOB_DESCRIPTORS,
                                   .jobs = wanted };
    if (getrlimit(RLIMIT_NOFILE, &rl) != 0)
        return -errno;
    if (rl.rlim_cur == RLIM_INFINITY)
        return 0;
    b->limit = (unsigned long long)rl.rlim_cur;
    if ((rc = count_open(b->limit, &b->open)) != 0)
        return rc;
    spare = b->limit > b->open + reserve ? b->limit - b->open - reserve : 0;
    if (spare / b->per_job < wanted)
        b->jobs = (size_t)(spare / b->per_job);
    return 0;
}
