/*
 * alloc_fail.c - see alloc_fail.h.  glibc's __libc_* entry points do the
 * real work; the counter is atomic because a library may allocate from a
 * thread of its own.
 */
#include "alloc_fail.h"

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>

#ifdef __SANITIZE_ADDRESS__
/* ASan's malloc is the one to keep: memory from glibc's would be freed
 * into it.  Nothing fails; th_alloc_can_fail() says so. */
int th_alloc_can_fail(void)
{
    return 0;
}

void th_alloc_fail_at(long n)
{
    (void)n;
}

int th_alloc_disarm(void)
{
    return 0;
}

void *th_alloc_unfailing(size_t n)
{
    return malloc(n);
}
#else

void *__libc_malloc(size_t n);
void *__libc_calloc(size_t n, size_t size);
void *__libc_realloc(void *p, size_t n);

static long countdown; /* 0: off */
static int fired;

static int fails(void)
{
    if (__atomic_load_n(&countdown, __ATOMIC_SEQ_CST) == 0 ||
        __atomic_sub_fetch(&countdown, 1, __ATOMIC_SEQ_CST) != 0)
        return 0;
    __atomic_store_n(&fired, 1, __ATOMIC_SEQ_CST);
    errno = ENOMEM;
    return 1;
}

void *malloc(size_t n)
{
    return fails() ? NULL : __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    return fails() ? NULL : __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    return fails() ? NULL : __libc_realloc(p, n);
}

void th_alloc_fail_at(long n)
{
    __atomic_store_n(&fired, 0, __ATOMIC_SEQ_CST);
    __atomic_store_n(&countdown, n, __ATOMIC_SEQ_CST);
}

int th_alloc_disarm(void)
{
    __atomic_store_n(&countdown, 0, __ATOMIC_SEQ_CST);
    return __atomic_load_n(&fired, __ATOMIC_SEQ_CST);
}

void *th_alloc_unfailing(size_t n)
{
    return __libc_malloc(n);
}

int th_alloc_can_fail(void)
{
    return 1;
}
#endif
