/*
 * status.h - what a running daemon is doing, for `cairn status`: one small
 * JSON file per daemon in INPUT/.cairn/status/, rewritten at most once a
 * second while jobs run, every CAIRN_STATUS_HEARTBEAT_S while idle, and
 * removed at a clean exit.
 *
 *   {"host":"h","pid":123,"version":"0.1.0","started":"...","updated":"...",
 *    "metrics":"/var/lib/cairn/out/metrics.prom","active":[{"job":"NAME","input":"NAME.jsonl","size":12345,
 *               "bytes":2345,"records":10,"started":"..."}]}
 *
 * Times are RFC 3339 UTC; job and input are escaped as in summaries.
 * "metrics" is the metrics file this daemon writes (its output directory's
 * real path, then metrics_file), so a second daemon can tell it would
 * overwrite the same one; absent when that path is not known.  A
 * file whose "updated" is old belongs to a daemon that died (the client
 * calls it stale after 10 s, twice the heartbeat).
 */
#ifndef CAIRN_STATUS_H
#define CAIRN_STATUS_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "util.h"

#define CAIRN_STATUS_HEARTBEAT_S 5
/* A file not updated for this long is a dead (or stuck) daemon's: twice
 * the heartbeat. */
#define CAIRN_STATUS_STALE_S 10.0

struct cairn_status_job {
    const char *name; /* NAME.jsonl */
    uint64_t size;
    uint64_t bytes;   /* read so far */
    uint64_t records; /* answered so far */
    struct timespec started;
};

struct cairn_status_report {
    const char *host;
    long pid;
    const char *version;
    struct timespec started;
    const char *metrics; /* NULL: not said */
    const struct cairn_status_job *jobs;
    size_t n_jobs;
};

/* Renders st as one JSON line into out (replacing it).  0 or -ENOMEM. */
int cairn_status_render(const struct cairn_status_report *st, struct cairn_buf *out);

/* 1 when a status file's object (as read) names this_host and its pid
 * (missing or impossible counts) no longer runs there: a killed daemon's
 * file (a clean exit removes its own).  PID namespaces aside, which share
 * a spool under one hostname only by accident.  EPERM counts as running:
 * the process exists, it is only not ours to signal. */
int cairn_status_is_gone(const json_t *root, const char *this_host);

/* A name for this daemon's status file, unique across hosts and PID
 * namespaces: HOST.PID.RANDOM.json.  malloc'd, or NULL. */
char *cairn_status_file_name(void);

#endif /* CAIRN_STATUS_H */
