/*
 * claim.h - a job's names, decided in one place: the name its file is
 * claimed as in .cairn/active/, the name it was submitted as, what its
 * outputs are named after, and the name it goes back to the spool as.
 * How each name is spelled is names.h's and layout.h's; the records a
 * claim leaves beside the file are marks.h's; this module decides which
 * name a job takes and keeps those records true.
 *
 * A job file named like one that already finished (its input is in
 * .cairn/done/ or .cairn/failed/, or its summary is in the output
 * directory) would overwrite that job's results, summary and done/ copy.
 * Instead it is claimed under a name of its own, NAME~2.jsonl (then ~3,
 * ...): its outputs and its done/ copy carry that name, and nothing
 * earlier is touched.  The new name is chosen at the claim, by the rename
 * into .cairn/active/, so a crash re-run (which starts from active/) keeps
 * it and replaces only its own outputs.  A file handed back is claimed
 * again as the name it ran as, replacing its own outputs.
 *
 * Threads: take, recall, move_input and hand_back run on the job's pool
 * thread, adopt on the loop once take's work item has ended.  The loop
 * may read name meanwhile: take writes only claimed_as, submitted_as and
 * replaces, and hand_back only back_name.
 */
#ifndef CAIRN_CLAIM_H
#define CAIRN_CLAIM_H

#include <sys/types.h>

#include "log.h"
#include "spool.h"

struct cairn_claim {
    char *name;            /* NAME.jsonl: as dropped, then as it runs in active/ */
    char *base;            /* NAME, for messages */
    char *out_base;        /* what its outputs are named after (names.h) */
    char *label;           /* name, escaped for JSON and messages */
    char *submitted_as;    /* the name it was dropped as, when it runs under
                              a name of its own: set by take, or for a re-run
                              from active/ by its mark there (recall) */
    char *claimed_as;      /* the name take chose, until adopt makes it name */
    int replaces;          /* claimed as the name it ran as before a
                              hand-back, over that run's summary */
    int name_taken;        /* its name was taken in done/ or failed/: the
                              next claim after a hand-back chooses anew */
    mode_t mode;           /* what take found at the name (lstat), just before
                              its rename; 0 when it took nothing */
    int marked;            /* a submitted mark may be in active/ for it
                              (a crash re-run's, or recall's): move_input
                              removes it */
    const char *back_name; /* the name hand_back put it back in the spool as */
};

/* The names of INPUT/name, before any claim.  0 or -ENOMEM (then
 * cairn_claim_free still frees what was made). */
int cairn_claim_init(struct cairn_claim *c, const char *name);
void cairn_claim_free(struct cairn_claim *c);

/*
 * NAME     cairn_claim_take - claim INPUT/name, under a new name if it was used
 * ARGUMENTS out_fd: the output directory the job will write to.
 *          A file handed back is claimed as the name it ran as, and
 *          replaces is set when that run's summary exists.  Otherwise a
 *          job of that name in active/ makes it wait, and any other trace
 *          of the name (a summary, a done/ or failed/ copy) makes it
 *          claimed as the first NAME~N used nowhere.
 * RETURNS  0: in active/ as cairn_claim_file(c) (claimed_as set when that
 *          is not name, submitted_as then what it was dropped as); -EEXIST
 *          when a job of that name is active (it waits) or no NAME~N was
 *          free; -ENOENT (gone), -ENOMEM (nothing claimed), or another
 *          negative errno from rename(2)
 */
int cairn_claim_take(struct cairn_claim *c, const struct cairn_spool *sp, int out_fd);

/* The file's name in active/ now: claimed_as until adopt, then name. */
const char *cairn_claim_file(const struct cairn_claim *c);

/* Once the claimed file is open (inode ino): a re-run from active/
 * (recovered) reads what it was dropped as from its mark; a fresh claim
 * under a name of its own leaves that mark, best effort (without it only
 * a crash re-run's summary lacks submitted_as).  0 or -ENOMEM. */
int cairn_claim_recall(struct cairn_claim *c, const struct cairn_spool *sp, ino_t ino,
                       int recovered);

/*
 * NAME     cairn_claim_adopt - make the name take chose the job's own
 * ARGUMENTS in_fd: the job file's descriptor; log: where the new name is
 *          said
 * RETURNS  0 (nothing to adopt, or the job is that name now: its outputs
 *          and done/ copy are named after it); -ENOMEM: the file was put
 *          back in the spool as it came (*in_fd closed first, so no other
 *          daemon takes the lock for ours) or, if that fails, left in
 *          active/ for the next start; said in the log either way
 */
int cairn_claim_adopt(struct cairn_claim *c, const struct cairn_spool *sp, int *in_fd,
                      const struct cairn_log *log);

/* NAME<suffix>, the name of one of the job's outputs.  malloc'd, or NULL. */
char *cairn_claim_output(const struct cairn_claim *c, const char *suffix);

/* The input leaves active/: into dir_fd (done/ or failed/), or deleted
 * when dir_fd < 0, never over a file there (a finished job's copy is never
 * replaced; name_taken is set instead).  A state folder removed meanwhile
 * is recreated (its bit in *recreated, cairn_spool_repair).  0 or -errno. */
int cairn_claim_move_input(struct cairn_claim *c, const struct cairn_spool *sp, int dir_fd,
                           int *recreated);

/* The claimed file (inode ino, 0: looked up) goes back to the spool: as
 * the name it was dropped as, so the daemon's back-off knows it, or when
 * a new file of that name waits there, as the name it ran as; back_name
 * says which.  A hand-back mark makes its next claim take the name it ran
 * as again, unless name_taken.  0, or -errno with the file left in
 * active/ as it ran (its submitted mark kept for the next start). */
int cairn_claim_hand_back(struct cairn_claim *c, const struct cairn_spool *sp, ino_t ino);

#endif /* CAIRN_CLAIM_H */
