/*
 * statusfile.h - reading the daemons' live status files.
 *
 * Each running cairnd keeps one file, INPUT/.cairn/status/<anything>.json,
 * rewritten atomically (temporary + rename) at most once a second and
 * removed at a clean exit:
 *
 *   {"host":"h","pid":123,"version":"0.1.0",
 *    "started":"2026-11-30T21:00:00.000Z","updated":"2026-11-30T21:00:05.000Z",
 *    "active":[{"job":"NAME","input":"NAME.jsonl","size":12345,"bytes":2345,
 *               "records":10,"started":"2026-11-30T21:00:01.000Z"}]}
 *
 * job and input are escaped like names in summaries (util.h
 * cairn_name_escape).  A file not updated for CAIRN_STATUS_STALE_S seconds
 * is not used for progress.  It is a dead daemon's when it still lists
 * jobs (a daemon running jobs rewrites it every second).  cairnd rewrites
 * it every 5 s while idle too, so an old file with no jobs is a dead or
 * stuck daemon's wherever it runs; cairnd 0.1.0 before that heartbeat did
 * not, so on this host its pid still tells an idle daemon from a dead one.
 */
#ifndef CAIRN_CLIENT_STATUSFILE_H
#define CAIRN_CLIENT_STATUSFILE_H

#include <jansson.h>
#include <stdint.h>

#include "client.h"
#include "status.h" /* CAIRN_STATUS_STALE_S */

struct cairn_daemon_status {
    char *file;   /* its name in .cairn/status/ */
    json_t *root; /* the object as read; NULL when unreadable */
    double age_s; /* since "updated" (0 when in the future) */
    int stale;    /* too old, or unreadable: its progress is not used */
    int idle;     /* stale, lists no job, and its pid runs on this host */
    int gone;     /* on this host, and its pid is not running */
};

/* One active job as a daemon reports it. */
struct cairn_progress {
    const struct cairn_daemon_status *daemon;
    uint64_t size;
    uint64_t bytes;
    uint64_t records;
};

/*
 * NAME     cairn_status_files_read - every daemon's status file
 * RETURNS  0 with *out (n entries, possibly none when the folder does not
 *          exist); a negative errno when the folder cannot be read
 */
int cairn_status_files_read(struct cairn_client *cl, struct cairn_daemon_status **out, size_t *n);
void cairn_status_files_free(struct cairn_daemon_status *d, size_t n);

/* The progress of job file `file` (NAME.jsonl, raw bytes) in a live
 * daemon's status: 1 found, 0 not. */
int cairn_status_find(const struct cairn_daemon_status *d, size_t n, const char *file,
                      struct cairn_progress *p);

/* A running job's progress for people: "354 B of 708 B (50%), 4 records",
 * or "starting" before its daemon has looked at its size or read a byte
 * (a fast job's first status shows nothing else yet). */
void cairn_status_progress_text(const struct cairn_progress *p, char *out, size_t len);

/* "h pid 123" for messages, into out. */
void cairn_status_label(const struct cairn_daemon_status *d, char *out, size_t size);

#endif /* CAIRN_CLIENT_STATUSFILE_H */
