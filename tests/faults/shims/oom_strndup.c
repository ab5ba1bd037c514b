/*
 * oom_strndup.c - LD_PRELOAD shim for test_job_reuse.sh: the second
 * strndup(3) of a string starting with CAIRN_OOM_PREFIX fails with
 * ENOMEM, once.  In cairnd that is the claim naming a job claimed as
 * NAME~2 (the first is the claim's own look at NAME~2's outputs), a path
 * no ordinary test can reach.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

char *strndup(const char *s, size_t n)
{
    static char *(*real)(const char *, size_t);
    static int seen;
    const char *prefix = getenv("CAIRN_OOM_PREFIX");

    if (real == NULL)
        real = (char *(*)(const char *, size_t))dlsym(RTLD_NEXT, "strndup");
    if (prefix != NULL && strncmp(s, prefix, strlen(prefix)) == 0 &&
        __atomic_add_fetch(&seen, 1, __ATOMIC_SEQ_CST) == 2) {
        errno = ENOMEM;
        return NULL;
    }
    return real(s, n);
}
