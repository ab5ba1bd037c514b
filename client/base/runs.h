/*
 * runs.h - which run of a job name a command means.
 *
 * A name is used again and again (`mv job.jsonl in/` every night); each
 * file dropped under a used name runs as NAME~N (core/job/claim.h), and its
 * summary says submitted_as.  "My run" of a name is the file the command
 * saw, followed by its inode, which the daemon keeps across its renames
 * and writes into the summary as input_inode:
 *   1. the file waiting in the spool under the name;
 *   2. else the run of the name in .cairn/active/ (NAME.jsonl, or NAME~N
 *      whose submitted record names the file; the newest);
 *   3. else the latest finished run of the name (its summary's input_inode).
 * The order follows the file's own path: the claim moves it from the
 * spool to active/ by one rename, and its summary is published before it
 * leaves active/, so a look in that order misses it nowhere.
 * A summary is the run's when its input_inode is the file's and it was
 * handed over under the name (submitted_as, or the name itself); never by
 * a time: the daemon's clock may not be the file system's (another host
 * over NFS, an NTP step).  The file's inode is the same for a file handed
 * over again (moved back from done/, retried) and may be reused once a
 * file is deleted, so the run is also told apart from what came before:
 * a file found waiting has no run among the summaries there before it
 * was seen (their own files, by identity); a run found in active/ or
 * finished is known by its summary's name.
 */
#ifndef CAIRN_CLIENT_RUNS_H
#define CAIRN_CLIENT_RUNS_H

#include <sys/types.h>

#include "client.h"

/* The largest prefix of a long name that its runs keep (core/common/names.h: a
 * run's name is a cut of the name, never shorter than this). */
#define CAIRN_RUN_PREFIX 150

/* A summary file, by its own identity (a summary is renamed into
 * place: a new one is a new file). */
struct cairn_known_summary {
    dev_t dev;
    ino_t ino;
};

/* A job handed over. */
struct cairn_submitted {
    char *file; /* NAME.jsonl */
    char *base; /* NAME */
    /* Which run is this job's (a used name runs as NAME~N, and a job of
     * its name may have finished or be running): its file's inode, kept
     * across the daemon's renames and given in its summary as input_inode
     * beside the name it was handed over as (above).  ino 0: unknown,
     * the summary NAME.summary.json is taken as it is. */
    ino_t ino;
    /* The run's summary name when the run is known by it (running or
     * finished: its name is decided), else NULL. */
    char *ran_as;
    /* Summaries of runs of the name there before the file was seen handed
     * over: earlier runs, never this one, whatever they say. */
    struct cairn_known_summary *before;
    size_t n_before;
};

/* name (a file in a folder of the spool, or in the output directory) is a
 * run of job base: base + suffix, or base~N + suffix (".jsonl",
 * ".summary.json"); a long base's runs start with its first
 * CAIRN_RUN_PREFIX bytes. */
int cairn_client_is_run(const char *base, const char *name, const char *suffix);

/* Records in job->before the summaries of runs of job->base in the output
 * directory now (none when it is not open).  0 or -ENOMEM. */
int cairn_client_runs_before(struct cairn_client *cl, struct cairn_submitted *job);

/*
 * NAME     cairn_client_find_run - which run of job->file is the job's
 * ARGUMENTS job->file and job->base set; in_fd and out_fd open (out_fd
 *          may be -1: no finished run is looked for)
 * RETURNS  1 with job->ino set, and job->before (a file waiting) or
 *          job->ran_as (a run in active/ or finished); 0 when no run is
 *          known (job->ino stays 0: the summary NAME.summary.json is taken
 *          as it is); -ENOMEM
 */
int cairn_client_find_run(struct cairn_client *cl, struct cairn_submitted *job);

#endif /* CAIRN_CLIENT_RUNS_H */
