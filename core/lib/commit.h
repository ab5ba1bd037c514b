/*
 * commit.h - group commit: threads that need files or directories durable
 * share the fsyncs.
 *
 * A caller names the descriptors whose changes must be on disk before its
 * next step and blocks until they are.  The first caller to find no sync
 * in progress becomes the leader: it takes every request waiting, fsyncs
 * each file or directory among them once (two descriptors of one inode
 * share one fsync; several inodes of one ext4, XFS or Btrfs file system
 * share one syncfs), hands each request its result and wakes the others.
 * Requests that arrive while a leader is syncing wait for it, then one of
 * them leads the next round for all of them.  So a caller alone syncs at
 * once (no timer, no waiting for a batch that never comes), and when many
 * jobs finish together one fsync of the output directory serves them all.
 *
 * Never weaker than each caller fsyncing for itself: a round only starts
 * after every request in it was registered, and a request is registered
 * only after the caller's writes or renames returned, so the fsync the
 * leader issues covers them (fsync(2) makes the inode durable, whichever
 * descriptor of it is used).  Its error goes to every request for that
 * inode.
 */
#ifndef CAIRN_COMMIT_H
#define CAIRN_COMMIT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct cairn_commit;

/* What a group commit did so far, for tests and the benchmark. */
struct cairn_commit_stats {
    uint64_t requests; /* cairn_commit_sync calls */
    uint64_t rounds;   /* leader rounds */
    uint64_t syncs;    /* fsync(2) and syncfs(2) calls issued */
    /* Files whose own writeback errors were left to sync_file_range(2)
     * on their descriptor: those no fsync through it reported. */
    uint64_t checks;
};

/* A new group commit, in *out.  0 or -ENOMEM. */
int cairn_commit_new(struct cairn_commit **out);

/* Frees it; no thread may be inside cairn_commit_sync.  NULL is a no-op. */
void cairn_commit_free(struct cairn_commit *c);

/*
 * NAME     cairn_commit_sync - make fds[0..n) durable, sharing the work
 * ARGUMENTS fds: open files or directories whose changes so far (data,
 *          metadata, entries renamed in or out) must reach the disk
 * RETURNS  0 once all are durable, or the first negative errno of an
 *          fsync among them (or of fstat)
 * NOTES    blocks: call it on a pool thread, never on the loop.  A leader
 *          only waits on fsync(2), never on another request, so rounds
 *          always end however many threads wait.
 */
int cairn_commit_sync(struct cairn_commit *c, const int *fds, size_t n);

/* What a caller that has just created or fstat'd a descriptor knows of
 * it, sparing the commit its own fstat(2). */
struct cairn_commit_key {
    dev_t dev;
    ino_t ino;   /* unused when fresh */
    int regular; /* a regular file (its own writeback errors are looked
                    for through its descriptor after the round, unless
                    its own fsync reported them) */
    int fresh;   /* a file the caller created and no other descriptor of
                    the round names: an inode of its own, whatever ino says
                    (a temporary, created in a directory on device dev) */
};

/* One job's request in a cairn_commit_sync_each call. */
struct cairn_commit_set {
    const int *fds; /* as for cairn_commit_sync: at most four */
    size_t n;
    const struct cairn_commit_key *keys; /* of fds[i], or NULL: looked up */
    int rc; /* out: what cairn_commit_sync would have returned for them */
};

/*
 * NAME     cairn_commit_sync_each - many jobs' requests made durable at once
 * ARGUMENTS sets[0..n): each one job's descriptors, with its own result
 * NOTES    the same guarantees as one cairn_commit_sync call per set, run
 *          by one thread: all sets are registered together, so they share
 *          one round (one syncfs for the lot where the file system allows
 *          it) instead of one round each.  Blocks, like
 *          cairn_commit_sync.
 */
void cairn_commit_sync_each(struct cairn_commit *c, struct cairn_commit_set *sets, size_t n);

/* A copy of the counters, taken under the lock. */
void cairn_commit_stats(struct cairn_commit *c, struct cairn_commit_stats *out);

#endif /* CAIRN_COMMIT_H */
