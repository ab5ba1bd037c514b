/*
 * spool.h - the input directory and its state folders (docs/contract.md, The spool).
 *
 *   INPUT/NAME.jsonl            waiting
 *   INPUT/.cairn/active/        claimed by one rename(2), being processed
 *   INPUT/.cairn/done/          finished inputs (keep_inputs)
 *   INPUT/.cairn/failed/        inputs that could not be processed, with
 *                               NAME.reason.json
 *   INPUT/.cairn/status/        one live status file per running daemon
 *
 * Everything is reached through directory descriptors and plain names
 * (never paths built from job names), so a job name cannot point anywhere
 * else, and no symbolic link in the spool is ever followed.
 */
#ifndef CAIRN_SPOOL_H
#define CAIRN_SPOOL_H

#include <stdint.h>
#include <sys/stat.h>

#include "commit.h"
#include "log.h"
#include "tmpfile.h"

/*
 * The output directory as it was when a job began: shared by the spool,
 * while the path names it, and by every job and write that began with it,
 * each holding a reference (cairn_spool_hold_output).  A job finishes
 * where it began, however the path is followed meanwhile, without a
 * descriptor of its own (a dup(2) and a close(2) a job, and one
 * descriptor fewer against the limit).  The descriptor, device and inode
 * never change; refs is the loop thread's alone.
 */
struct cairn_outdir {
    int fd;
    dev_t dev;
    ino_t ino;
    unsigned refs;
    /* The jobs' temporaries' owner there (tmpfile.h), made at the first
     * job's start (after the start-up sweep); fd -1 until then, or when it
     * could not be made: each temporary then locks itself. */
    struct cairn_tmpowner owner;
    int owner_tried;
    const struct cairn_log *log; /* the spool's: the owner's failures */
};

struct cairn_spool {
    int in_fd;
    int active_fd;
    int done_fd;
    int failed_fd;
    int status_fd;            /* .cairn/status/: live status files (status.h) */
    struct cairn_outdir *out; /* the one the output path names, as last followed */
    /* Shared by the jobs finishing on pool threads: their fsyncs of the
     * output directory and of their outputs are grouped (commit.h). */
    struct cairn_commit *commit;
    /* Set before cairn_spool_open: where the output directories' owner
     * lock files say what went wrong (may be NULL: nowhere). */
    const struct cairn_log *log;
};

/* Opens (creating as needed) the spool folders and the output directory.
 * Returns 0, or a negative errno with *what naming the directory. */
int cairn_spool_open(struct cairn_spool *sp, const char *input_dir, const char *output_dir,
                     const char **what);
void cairn_spool_close(struct cairn_spool *sp);

/*
 * NAME     cairn_spool_follow_output - keep out on the directory at the path
 * RETURNS  0 when out is the directory output_dir names now (reopened if
 *          the path was moved away and recreated); a negative errno when
 *          the path names no usable directory (the one held is kept)
 * NOTES    the daemon follows the path, not the descriptor it opened at
 *          start: outputs and metrics go where an operator looks.  Jobs in
 *          flight hold the one they began with (struct cairn_outdir) and
 *          finish where they began.
 */
int cairn_spool_follow_output(struct cairn_spool *sp, const char *output_dir);

/* Loop thread: a reference to the output directory the path names now,
 * to give back with cairn_outdir_release.  Never NULL once the spool is
 * open. */
struct cairn_outdir *cairn_spool_hold_output(const struct cairn_spool *sp);

/* Loop thread: gives one reference back; the last one removes its owner
 * and closes it.  NULL is a no-op. */
void cairn_outdir_release(struct cairn_outdir *o);

/* Loop thread: the owner of o's temporaries, made the first time it is
 * asked for; NULL when it cannot be made (said in the log; tmpfile.h). */
struct cairn_tmpowner *cairn_outdir_owner(struct cairn_outdir *o);

/* Loop thread, at an abort (the jobs holding o let go, their temporaries
 * removed): its owner's lock file goes now, not at the next start. */
void cairn_outdir_drop_owner(struct cairn_outdir *o);

/* The state folders under INPUT/.cairn/, in the order of
 * cairn_spool_repair's bits. */
#define CAIRN_SPOOL_N_STATE 4
extern const char *const cairn_spool_state_folders[CAIRN_SPOOL_N_STATE];

/*
 * NAME     cairn_spool_repair - recreate state folders removed or moved away
 * RETURNS  which were recreated (bit 0 active/, 1 done/, 2 failed/, 3
 *          status/), 0 when
 *          all are in place, or a negative errno
 * NOTES    the descriptors keep their numbers (dup2), so work in flight on
 *          other threads never uses a closed one.
 */
int cairn_spool_repair(struct cairn_spool *sp);

/* 1 when name is a job file we may claim: "NAME.jsonl", not a dot-file. */
int cairn_spool_is_job_name(const char *name);

/* 1 when name is none of a job file, a dot-file or "*.tmp" (a producer's
 * temporaries): a file the spool will never take, worth a word in the log
 * since its producer probably meant it as a job. */
int cairn_spool_is_never_taken(const char *name);

/*
 * NAME     cairn_spool_claim - take INPUT/name for this daemon
 * RETURNS  0; -ENOENT when it is gone (another daemon took it, or its
 *          producer removed it); -EEXIST when a job of the same name is
 *          still active (try again once it ends)
 * NOTES    one renameat2(RENAME_NOREPLACE): atomic, and never overwrites
 *          a job in progress.
 */
int cairn_spool_claim(const struct cairn_spool *sp, const char *name);

/* The same, into .cairn/active/as: a job name used before (claim.h);
 * -EEXIST when as is taken there. */
int cairn_spool_claim_as(const struct cairn_spool *sp, const char *name, const char *as);

/* Gives a claimed job back to the input directory (RENAME_NOREPLACE). */
int cairn_spool_unclaim(const struct cairn_spool *sp, const char *name);

/* The same, as the input file `as`: a job claimed under a name of its
 * own goes back as the name its producer dropped it as. */
int cairn_spool_unclaim_as(const struct cairn_spool *sp, const char *name, const char *as);

#endif /* CAIRN_SPOOL_H */
