/*
 * clock_shift.c - LD_PRELOAD shim: a process whose wall clock is off by
 * $CAIRN_CLOCK_SHIFT_S seconds (an integer, negative for behind) from the
 * file times of the file system it works on, as a daemon on a second host
 * over NFS, or one after an NTP step, sees them.  The file times stay the
 * kernel's: only what the process asks of the wall clock (clock_gettime's
 * CLOCK_REALTIME and CLOCK_REALTIME_COARSE, and time) is
 * shifted.  Monotonic clocks are left alone.
 */
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>

static long shift_s(void)
{
    const char *v = getenv("CAIRN_CLOCK_SHIFT_S");

    return v != NULL ? strtol(v, NULL, 10) : 0;
}

int clock_gettime(clockid_t clk, struct timespec *ts)
{
    static int (*real)(clockid_t, struct timespec *);
    int rc;

    if (real == NULL)
        real = (int (*)(clockid_t, struct timespec *))dlsym(RTLD_NEXT, "clock_gettime");
    rc = real(clk, ts);
    if (rc == 0 && (clk == CLOCK_REALTIME || clk == CLOCK_REALTIME_COARSE))
        ts->tv_sec += shift_s();
    return rc;
}

time_t time(time_t *t)
{
    struct timespec ts;
    time_t now;

    if (clock_gettime(CLOCK_REALTIME, &ts) != 0)
        return (time_t)-1;
    now = ts.tv_sec;
    if (t != NULL)
        *t = now;
    return now;
}
