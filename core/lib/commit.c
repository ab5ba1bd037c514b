/*
 * commit.c - group commit of fsyncs (see commit.h).
 */
#include "commit.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <uv.h>

/* A job needs at most its two temporaries, or the output directory and
 * failed/, at one step. */
#define MAX_FDS 4

/* One caller's request, on its own stack until the round that serves it
 * sets done. */
struct request {
    const int *fds;
    size_t n;
    dev_t dev[MAX_FDS];
    ino_t ino[MAX_FDS];
    int fd_rc[MAX_FDS];
    /* The file system of fds[i] has a syncfs(2) that is a full barrier
     * (syncfs_is_barrier). */
    unsigned char barrier_fs[MAX_FDS];
    unsigned char regular[MAX_FDS]; /* fds[i] is a regular file */
    unsigned char fresh[MAX_FDS];   /* fds[i]'s inode is its own (cairn_commit_key) */
    /* How fds[i] was made durable this round: by its own or an earlier
     * entry's fsync, or by a syncfs of its whole file system. */
    unsigned char by_syncfs[MAX_FDS];
    /* fds[i]'s own writeback errors are still to be read (check_out): it
     * is a file, and no fsync through this very descriptor reported
     * them. */
    unsigned char check[MAX_FDS];
    int rc;
    int done;
    struct request *next;
};

/* A file system's syncfs_is_barrier(), known by its device number. */
struct known_fs {
    dev_t dev;
    unsigned char barrier;
};

/* Devices remembered: a daemon writes to one or two file systems. */
#define MAX_KNOWN_FS 8

struct cairn_commit {
    uv_mutex_t lock;
    uv_cond_t cond;          /* a round ended */
    struct request *waiting; /* registered, for the next round */
    int leading;             /* a round is in progress */
    struct cairn_commit_stats stats;
    /* What each device's file system is, asked once rather than by an
     * fstatfs(2) for every descriptor of every request (three a job).
     * The leader's alone: one at a time, handed on under the lock.  A
     * device number stays with its file system while a descriptor on it
     * is open, and the callers hold theirs. */
    struct known_fs fs[MAX_KNOWN_FS];
    size_t n_fs;
};

int cairn_commit_new(struct cairn_commit **out)
{
    struct cairn_commit *c = calloc(1, sizeof(*c));

    if (c == NULL)
        return -ENOMEM;
    if (uv_mutex_init(&c->lock) != 0) {
        free(c);
        return -ENOMEM;
    }
    if (uv_cond_init(&c->cond) != 0) {
        uv_mutex_destroy(&c->lock);
        free(c);
        return -ENOMEM;
    }
    *out = c;
    return 0;
}

void cairn_commit_free(struct cairn_commit *c)
{
    if (c == NULL)
        return;
    uv_cond_destroy(&c->cond);
    uv_mutex_destroy(&c->lock);
    free(c);
}

/*
 * File systems whose syncfs(2) commits the journal (every metadata change,
 * renames included, of every inode) and flushes the device cache once, and
 * reports errors (Linux >= 5.8).  Elsewhere (FUSE, network and unknown
 * file systems) syncfs may do less than fsync, so only per-inode fsyncs
 * are trusted there.
 */
static int syncfs_is_barrier(int fd)
{
    struct statfs fs;

    if (fstatfs(fd, &fs) != 0)
        return 0;
    switch ((unsigned long)fs.f_type) {
    case EXT4_SUPER_MAGIC: /* also ext2 and ext3 */
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC: return 1;
    default: return 0;
    }
}

/* Fills in barrier_fs for every descriptor of the round, from what the
 * leader knows of each device or, the first time, from fstatfs(2). */
static void mark_barriers(struct cairn_commit *c, struct request *round)
{
    struct request *r;
    size_t i, k;

    for (r = round; r != NULL; r = r->next)
        for (i = 0; i < r->n; i++) {
            for (k = 0; k < c->n_fs && c->fs[k].dev != r->dev[i]; k++)
                ;
            if (k < c->n_fs) {
                r->barrier_fs[i] = c->fs[k].barrier;
                continue;
            }
            r->barrier_fs[i] = (unsigned char)syncfs_is_barrier(r->fds[i]);
            if (c->n_fs < MAX_KNOWN_FS)
                c->fs[c->n_fs++] = (struct known_fs){ r->dev[i], r->barrier_fs[i] };
        }
}

/* 1 when p->fds[k] and q->fds[j] (both of one device) name one inode. */
static int same_inode(const struct request *p, size_t k, const struct request *q, size_t j)
{
    return !p->fresh[k] && !q->fresh[j] && p->ino[k] == q->ino[j];
}

/* The result of a sync already issued this round that covers
 * r->fds[i]: an fsync of its inode or a syncfs of its file system.  1 when
 * none was. */
static int synced_before(const struct request *round, const struct request *r, size_t i)
{
    const struct request *q;
    size_t j;

    for (q = round; q != NULL; q = q->next)
        for (j = 0; j < q->n; j++) {
            if (q == r && j == i)
                return 1;
            if (q->dev[j] == r->dev[i] && (q->by_syncfs[j] || same_inode(q, j, r, i)))
                return q->fd_rc[j];
        }
    return 1;
}

/*
 * From this many inodes of one file system in a round, one syncfs replaces
 * their fsyncs.  Two already: the leader syncs one inode after another,
 * and on ext4 each fsync of a fresh file costs its own journal commit and
 * flush (two files: 3.9-7.2 ms by fsync, 1.4-3.9 ms by syncfs).  The
 * price: syncfs also writes back every other process's dirty data on that
 * file system, so on a busy shared disk its tail is long (p99 36 ms, max
 * 636 ms over 150 lone jobs on the development VM, fsync p99 8.5 ms).  A
 * threshold of eight, which spares a lone job that tail, made the leader
 * fsync small rounds one file at a time and halved the durable throughput
 * (373 against 726 jobs/s, interleaved), so two it is; measured side by
 * side, the lone job's hand-off p99 was no worse than before either way.
 */
#define SYNCFS_MIN_INODES 2

/* 1 when this round holds at least SYNCFS_MIN_INODES inodes of device dev
 * and dev's syncfs is a full barrier. */
static int worth_syncfs(const struct request *round, dev_t dev)
{
    const struct request *q, *p;
    size_t j, k, n = 0;

    for (q = round; q != NULL; q = q->next)
        for (j = 0; j < q->n; j++) {
            int seen = 0;

            if (q->dev[j] != dev)
                continue;
            if (!q->barrier_fs[j])
                return 0;
            /* Counted already if an earlier entry names the same inode. */
            for (p = round; p != NULL && !seen; p = p == q ? NULL : p->next)
                for (k = 0; k < (p == q ? j : p->n) && !seen; k++)
                    seen = p->dev[k] == dev && same_inode(p, k, q, j);
            if (!seen && ++n >= SYNCFS_MIN_INODES)
                return 1;
        }
    return 0;
}

/* What the leader's round did: counted into the stats under the lock. */
struct round_counts {
    uint64_t syncs;
    uint64_t checks;
};

/*
 * The leader's round, without the lock: every request registered before
 * it began.  Where a file system holds many of the round's inodes and
 * its syncfs(2) is a full barrier, one syncfs replaces their fsyncs: on
 * ext4 each fsync of a fresh file costs a journal commit and a device
 * cache flush, and a syncfs costs one of each for all of them (16 small
 * files: 4 ms instead of 55 ms on the development VM); it writes their
 * data out too, all of them in one pass.
 */
static struct round_counts sync_round(struct request *round)
{
    struct round_counts n = { 0, 0 };
    struct request *r;
    size_t i;

    for (r = round; r != NULL; r = r->next) {
        r->rc = 0;
        for (i = 0; i < r->n; i++) {
            int rc = synced_before(round, r, i), own = 0;

            if (rc == 1) {
                r->by_syncfs[i] = (unsigned char)worth_syncfs(round, r->dev[i]);
                if (r->by_syncfs[i]) {
                    rc = syncfs(r->fds[i]) == 0 ? 0 : -errno;
                } else {
                    rc = fsync(r->fds[i]) == 0 ? 0 : -errno;
                    own = 1;
                }
                n.syncs++;
            }
            /* An fsync reports its own descriptor's errors, as a
             * sync_file_range would after it: one call a file less. */
            r->check[i] = (unsigned char)(r->regular[i] && !own);
            n.checks += r->check[i];
            r->fd_rc[i] = rc;
            if (r->rc == 0)
                r->rc = rc;
        }
    }
    return n;
}

/*
 * The caller's share, after its round: each of its files' own writeback
 * errors, seen through its own descriptor, unless that descriptor's own
 * fsync reported them.  The round's syncfs reports what went wrong on the
 * file system since the descriptor it was given was opened, which may be
 * another job's, opened later than ours; an fsync through another
 * descriptor of the inode tells that descriptor, not ours.
 * sync_file_range(2) with WAIT_AFTER alone writes nothing (the round
 * wrote the data out and waited for it): it waits for writeback already
 * under way, and returns what this descriptor has not seen yet of its
 * file's errors.  The data is not written out by the callers first:
 * syncfs writes every dirty file of the file system in one pass, on the
 * kernel's flusher threads rather than on ours (writing them out
 * ourselves, two calls a file, made the finisher's thread the slowest
 * step of a burst of small jobs).
 */
static int check_out(int fd)
{
    if (sync_file_range(fd, 0, 0, SYNC_FILE_RANGE_WAIT_AFTER) != 0 && errno != ENOSYS &&
        errno != EINVAL && errno != ESPIPE)
        return -errno;
    return 0;
}

/* The keys of req's descriptors, and which of them are files: the
 * caller's (known), or each one's fstat. */
static int key(struct request *req, const struct cairn_commit_key *known)
{
    size_t i;

    if (req->n > MAX_FDS)
        return -EINVAL;
    for (i = 0; i < req->n; i++) {
        struct stat st;

        if (known != NULL) {
            req->dev[i] = known[i].dev;
            req->ino[i] = known[i].ino;
            req->regular[i] = (unsigned char)(known[i].regular != 0);
            req->fresh[i] = (unsigned char)(known[i].fresh != 0);
            continue;
        }
        if (fstat(req->fds[i], &st) != 0)
            return -errno;
        req->dev[i] = st.st_dev;
        req->ino[i] = st.st_ino;
        req->regular[i] = S_ISREG(st.st_mode);
    }
    return 0;
}

/* req's result: its round's, then check_out() of each file left to it. */
static int result(const struct request *req)
{
    size_t i;
    int rc = req->rc;

    for (i = 0; rc == 0 && i < req->n; i++)
        if (req->check[i])
            rc = check_out(req->fds[i]);
    return rc;
}

/* Registers the k requests chained from first (all at once, so one round
 * takes them all) and returns once that round has served them. */
static void run(struct cairn_commit *c, struct request *first, struct request *last, size_t k)
{
    uv_mutex_lock(&c->lock);
    last->next = c->waiting;
    c->waiting = first;
    c->stats.requests += k;
    while (!first->done) {
        struct request *round, *r, *next;
        struct round_counts counts;

        if (c->leading) {
            /* That round may have begun before our renames: wait for it
             * to end, then for one that includes us. */
            uv_cond_wait(&c->cond, &c->lock);
            continue;
        }
        round = c->waiting;
        c->waiting = NULL;
        c->leading = 1;
        uv_mutex_unlock(&c->lock);
        mark_barriers(c, round);
        counts = sync_round(round);
        uv_mutex_lock(&c->lock);
        for (r = round; r != NULL; r = next) {
            next = r->next; /* r may be gone once done is set and we unlock */
            r->done = 1;
        }
        c->leading = 0;
        c->stats.rounds++;
        c->stats.syncs += counts.syncs;
        c->stats.checks += counts.checks;
        uv_cond_broadcast(&c->cond);
    }
    uv_mutex_unlock(&c->lock);
}

int cairn_commit_sync(struct cairn_commit *c, const int *fds, size_t n)
{
    struct request req = { .fds = fds, .n = n };
    int rc;

    if (n == 0)
        return 0;
    if ((rc = key(&req, NULL)) != 0)
        return rc;
    run(c, &req, &req, 1);
    return result(&req);
}

void cairn_commit_sync_each(struct cairn_commit *c, struct cairn_commit_set *sets, size_t n)
{
    struct request *reqs = calloc(n > 0 ? n : 1, sizeof(*reqs));
    struct request *first = NULL, *last = NULL;
    size_t i, k = 0;

    if (reqs == NULL) {
        /* The same guarantees, one round per set. */
        for (i = 0; i < n; i++)
            sets[i].rc = cairn_commit_sync(c, sets[i].fds, sets[i].n);
        return;
    }
    for (i = 0; i < n; i++) {
        reqs[i] = (struct request){ .fds = sets[i].fds, .n = sets[i].n };
        sets[i].rc = 0;
        if (sets[i].n == 0 || (sets[i].rc = key(&reqs[i], sets[i].keys)) != 0)
            continue;
        if (first == NULL)
            first = &reqs[i];
        else
            last->next = &reqs[i];
        last = &reqs[i];
        k++;
    }
    if (k > 0)
        run(c, first, last, k);
    for (i = 0; i < n; i++)
        if (sets[i].n > 0 && sets[i].rc == 0)
            sets[i].rc = result(&reqs[i]);
    free(reqs);
}

void cairn_commit_stats(struct cairn_commit *c, struct cairn_commit_stats *out)
{
    uv_mutex_lock(&c->lock);
    *out = c->stats;
    uv_mutex_unlock(&c->lock);
}
