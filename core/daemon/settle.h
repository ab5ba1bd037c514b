/*
 * settle.h - when a job file found by a scan is old enough to take.
 *
 * A file written in place is taken once its writer is done; without an
 * inotify close event to say so (at start-up, in --once, after a missed
 * event) "done" means "not modified for min_age_ms".  The mtime says that,
 * unless it lies in the future: tar, rsync -t, cp -p and NFS clock skew
 * all produce such files, and measuring against the mtime would make them
 * wait until the wall clock catches up, perhaps for years.  Such a file is
 * instead watched by our own clock: old enough once its size and mtime
 * have not changed for min_age_ms since we first saw them.
 */
#ifndef CAIRN_SETTLE_H
#define CAIRN_SETTLE_H

#include <stdint.h>
#include <sys/stat.h>

struct cairn_settle_entry;

/* Zero-initialise.  Loop thread only. */
struct cairn_settle {
    struct cairn_settle_entry *head; /* files with a future mtime */
    uint64_t scan;                   /* the current scan's number */
};

/* Brackets one full scan: entries of files the scan did not see again
 * are dropped at its end. */
void cairn_settle_begin_scan(struct cairn_settle *s);
void cairn_settle_end_scan(struct cairn_settle *s);

/*
 * NAME     cairn_settle_age_ms - how long name (as lstat saw it) has been quiet
 * ARGUMENTS now_real: CLOCK_REALTIME; now_mono_ns: a monotonic clock
 * RETURNS  milliseconds since the mtime, or, for a future mtime, since the
 *          size and mtime were first seen as they are now (0 when that
 *          cannot be remembered for want of memory: the next scan asks
 *          again)
 */
uint64_t cairn_settle_age_ms(struct cairn_settle *s, const char *name, const struct stat *st,
                             const struct timespec *now_real, uint64_t now_mono_ns);

void cairn_settle_free(struct cairn_settle *s);

#endif /* CAIRN_SETTLE_H */
