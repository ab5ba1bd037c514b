/*
 * scanner.h - directory scans on the pool.
 *
 * A scan reads the whole input directory and lstat(2)s every job file in
 * it: on a spool of many thousand files, or on NFS, that is long enough to
 * stall every timer and inotify event if done on the loop.  So a scan runs
 * as one work item, which also recreates state folders someone removed
 * (spool.h) and may list active/ too; the loop then gets the finished
 * listing, which it sorts with no system call.
 *
 * The same work item looks up single names the daemon wants to look at
 * again (a job that ended may have a successor of the same name waiting).
 *
 * One work item at a time: requests made while one runs are gathered, and
 * one more runs after it for all of them, however many came meanwhile.
 */
#ifndef CAIRN_SCANNER_H
#define CAIRN_SCANNER_H

#include <stddef.h>
#include <sys/stat.h>
#include <time.h>
#include <uv.h>

#include "spool.h"

struct cairn_scan_entry {
    char *name;
    struct stat st; /* lstat(2): a symbolic link is not followed */
};

struct cairn_scan_list {
    struct cairn_scan_entry *v;
    size_t n;
    size_t cap;
    int rc; /* 0, or the negative errno that cut the listing short */
};

/* What to do: a full scan of the input directory, and a listing of
 * active/ (names to look up are given apart). */
#define CAIRN_SCAN_FULL   1
#define CAIRN_SCAN_ACTIVE 2

/* One finished work item, as the done callback sees it. */
struct cairn_scan {
    int what;                       /* CAIRN_SCAN_* bits */
    struct cairn_scan_list input;   /* FULL: job files in the input directory */
    struct cairn_scan_list active;  /* ACTIVE: job files in active/ */
    struct cairn_scan_list ignored; /* FULL: regular files the spool never takes */
    char **names;                   /* names to look up, n_names of them */
    size_t n_names;
    struct cairn_scan_list found; /* those of them that exist */
    int repaired;                 /* cairn_spool_repair(): bits, or a negative errno */
    struct timespec began;        /* CLOCK_REALTIME as the listing began */
};

/* Lists the job files of dfd into jobs now, on the calling thread (the
 * start-up listing of active/, before the loop serves anything).  0 or a
 * negative errno; free the list with cairn_scan_list_free. */
int cairn_scan_list_jobs(int dfd, struct cairn_scan_list *jobs);
void cairn_scan_list_free(struct cairn_scan_list *l);

struct cairn_scanner;
/* Loop thread; the listing is freed when it returns. */
typedef void (*cairn_scanner_done_fn)(struct cairn_scanner *s, const struct cairn_scan *scan);

/* Zero-initialise, then cairn_scanner_init(). */
struct cairn_scanner {
    uv_work_t work;
    uv_loop_t *loop;
    const struct cairn_spool *spool;
    cairn_scanner_done_fn done;
    void *data;
    struct cairn_scan cur;
    int running; /* a work item is queued or running */
    int stopped; /* no more scans: the done callback is not called */
    /* The next work item, gathered while one runs. */
    int want;
    char **want_names;
    size_t n_want;
    size_t cap_want;
};

void cairn_scanner_init(struct cairn_scanner *s, uv_loop_t *loop, const struct cairn_spool *spool,
                        cairn_scanner_done_fn done, void *data);

/*
 * NAME     cairn_scanner_request - scan soon
 * ARGUMENTS what: CAIRN_SCAN_FULL, with CAIRN_SCAN_ACTIVE to list active/
 *          too; 0 only recreates missing state folders
 * RETURNS  0: libuv's pool never refuses a work item
 */
int cairn_scanner_request(struct cairn_scanner *s, int what);

/* Looks up INPUT/name soon: it is in the done callback's found list if it
 * exists then.  0 or -ENOMEM. */
int cairn_scanner_lookup(struct cairn_scanner *s, const char *name);

/* 1 while a scan is queued, running, or asked for. */
int cairn_scanner_busy(const struct cairn_scanner *s);

/* No done callback after this; a scan still running ends on its own and
 * frees what it listed. */
void cairn_scanner_stop(struct cairn_scanner *s);

/* Frees what is gathered for a next scan; none may be running. */
void cairn_scanner_free(struct cairn_scanner *s);

#endif /* CAIRN_SCANNER_H */
