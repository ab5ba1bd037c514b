/*
 * publish.h - small files written whole: a fresh temporary (tmpfile.h),
 * optionally fsync'd, renamed over the final name: started from the loop
 * and done on a pool thread (metrics, the status file), or now by a
 * caller already on one (a failed job's reason and summary) or at exit.
 */
#ifndef CAIRN_PUBLISH_H
#define CAIRN_PUBLISH_H

#include <sys/types.h>
#include <uv.h>

#include "util.h"

struct cairn_inflight;

struct cairn_publish_opts {
    char kind;   /* the temporary's kind letter (tmpfile.h) */
    int sync;    /* fsync before the rename */
    mode_t mode; /* chmod the temporary to this (0: leave it to the umask) */
};

/*
 * NAME     cairn_publish_start - publish dir_fd/name with text, on the pool
 * ARGUMENTS text is moved in (zeroed); dir_fd is duplicated, so the caller
 *          may swap or close its own at once; inflight (may be NULL) counts
 *          the write until its file is in place (inflight.h)
 * RETURNS  0, then done(rc, data) (required) runs on the loop; or
 *          -ENOMEM or dup's error, and done is never called
 */
int cairn_publish_start(uv_loop_t *loop, struct cairn_inflight *inflight, int dir_fd,
                        const char *name, struct cairn_buf *text,
                        const struct cairn_publish_opts *opts, void (*done)(int rc, void *data),
                        void *data);

/* The same, now, on this thread.  0 or a negative errno. */
int cairn_publish_now(int dir_fd, const char *name, const void *text, size_t len,
                      const struct cairn_publish_opts *opts);

#endif /* CAIRN_PUBLISH_H */
