/*
 * floor-disk.c - the disk's floor for a durable hand-off: the file-system
 * work cairnd does to take a one-record job and publish its outputs
 * durably, done as fast as one C thread can do it on the same directory.
 * bench/run prints cairnd's durable jobs/s and hand-off latency as ratios
 * to this.
 *
 * Per job, the same files, renames and syncs as cairnd, each step beside
 * the code in core/ it mirrors:
 *   1. claim: one renameat2(RENAME_NOREPLACE) from the spool into
 *      .cairn/active/, not synced (core/job/claim.c cairn_claim_take,
 *      core/common/spool.c cairn_spool_claim);
 *   2. open the input and read it (core/job/job_files.c open_input; the
 *      engine reads it, core/engine/source.c);
 *   3. two temporaries created (O_CREAT | O_EXCL) in the output directory
 *      and written, results then summary, of the sizes cairnd writes for
 *      this record: 97 and 614 bytes (core/lib/tmpfile.c, job_files.c
 *      finish_ok);
 *   4. sync round 1, both temporaries: one syncfs(2) where cairnd's group
 *      commit would use one (two inodes or more in the round, on ext4, XFS
 *      or Btrfs), else an fsync(2) each (core/lib/commit.c sync_round,
 *      worth_syncfs, syncfs_is_barrier);
 *   5. two renames into place, results then summary: the summary's
 *      rename is the hand-off (job_files.c finish_ok,
 *      cairn_tmpfile_commit);
 *   6. sync round 2: fsync(2) of the output directory, one inode however
 *      many jobs share it (job_files.c finish_ok, "fsync output
 *      directory");
 *   7. the input renamed from .cairn/active/ to .cairn/done/, not synced:
 *      cairnd does not sync that move either (job_files.c, the crash
 *      consistency note; claim.c cairn_claim_move_input).
 * Per job: 2 files created, 4 renames, and the share of 2 sync rounds.
 * Left out, as cairnd's own choices rather than the hand-off's: the
 * flock(2)s on the input, the temporaries and the output directory, the
 * fstatat(2) lookups of the claim, the attempts count in an extended
 * attribute (core/common/attempts.c), sync_file_range(2) after the
 * syncfs (commit.c check_out: each file's own writeback errors), and the
 * inotify wake-up.
 *
 * Modes:
 *   batch N DIR  N jobs written to a staging directory, then renamed into
 *                the spool at once (as bench/run's durable run does); each
 *                step then runs for all of them before the next (all
 *                claims, all writes, one sync round, all renames, one sync
 *                round, all moves), in waves as large as the descriptor
 *                limit allows.  Prints jobs/s, from the first rename into
 *                the spool to the last input in done/.
 *   alone N DIR  one job at a time, each finished before the next is
 *                renamed in (as bench/handoff.py does).  Prints p50, p99
 *                and max of the hand-off: from the rename into the spool
 *                to the summary's rename, timed here, in the one thread
 *                that does both.
 *   serve N IN OUT  the same work, but for jobs renamed into IN by another
 *                process, as cairnd gets them: IN is watched with inotify
 *                (one blocking read(2) a wake-up), and each job named
 *                jK.jsonl is served as it arrives, its outputs in OUT.
 *                bench/handoff.py --floor drives and times it exactly as
 *                it does cairnd, so the figures of both include the same
 *                wake-ups (the server's at the rename in, the timer's at
 *                the summary): what a hand-off between two processes
 *                costs, which "alone" leaves out.  Exits after N jobs.
 *                Its watch is set before IN/.cairn/active exists, the
 *                sign handoff.py waits for.
 * The files of batch and alone runs are made in a fresh DIR/floor-XXXXXX
 * and left there: the caller removes DIR once every run is over (bench/run
 * explains why).
 *
 * usage: bench-floor-disk batch|alone N DIR
 *        bench-floor-disk serve N IN OUT
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <time.h>
#include <unistd.h>

static const char record[] =
    "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n";
static const char results[] = "{\"line\":1,\"variant\":\"stone-game-iii\",\"status\":\"ok\","
                              "\"answer\":\"Bob\",\"alice\":6,\"bob\":7,\"margin\":-1}\n";

/* A summary of cairnd's size for this job (614 bytes); its content does
 * not matter to the disk. */
#define SUMMARY_LEN 614

struct dirs {
    int stage, spool, active, done, out;
    int use_syncfs; /* the output's file system has a barrier syncfs */
    char summary[SUMMARY_LEN];
};

static double now_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* As core/lib/commit.c syncfs_is_barrier decides it. */
static int syncfs_is_barrier(int fd)
{
    struct statfs fs;

    if (fstatfs(fd, &fs) != 0)
        return 0;
    switch ((unsigned long)fs.f_type) {
    case EXT4_SUPER_MAGIC:
    case XFS_SUPER_MAGIC:
    case BTRFS_SUPER_MAGIC: return 1;
    default: return 0;
    }
}

static int make_dir(int at, const char *name, int *fd)
{
    if (mkdirat(at, name, 0755) != 0)
        return -errno;
    *fd = openat(at, name, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    return *fd >= 0 ? 0 : -errno;
}

/* The spool's .cairn/done/ and .cairn/active/, the latter last: a
 * driver takes it for the sign that jobs may come. */
static int make_state_dirs(struct dirs *d)
{
    int cairn_fd, rc = make_dir(d->spool, ".cairn", &cairn_fd);

    if (rc != 0)
        return rc;
    rc = make_dir(cairn_fd, "done", &d->done);
    if (rc == 0)
        rc = make_dir(cairn_fd, "active", &d->active);
    close(cairn_fd);
    return rc;
}

/* What every mode decides once its directories are made. */
static void ready(struct dirs *d)
{
    d->use_syncfs = syncfs_is_barrier(d->out);
    memset(d->summary, ' ', sizeof(d->summary));
    memcpy(d->summary, "{\"job\":\"floor\"}", 15);
    d->summary[sizeof(d->summary) - 1] = '\n';
}

static int setup(const char *parent, struct dirs *d)
{
    char root[PATH_MAX];
    int root_fd, rc;

    if (snprintf(root, sizeof(root), "%s/floor-XXXXXX", parent) >= (int)sizeof(root))
        return -ENAMETOOLONG;
    if (mkdtemp(root) == NULL)
        return -errno;
    root_fd = open(root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root_fd < 0)
        return -errno;
    rc = make_dir(root_fd, "stage", &d->stage);
    if (rc == 0)
        rc = make_dir(root_fd, "in", &d->spool);
    if (rc == 0)
        rc = make_state_dirs(d);
    if (rc == 0)
        rc = make_dir(root_fd, "out", &d->out);
    close(root_fd);
    if (rc != 0)
        return rc;
    ready(d);
    return 0;
}

static int write_file(int dir, const char *name, const void *data, size_t len, int *fd_out)
{
    int fd = openat(dir, name, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    ssize_t n;

    if (fd < 0)
        return -errno;
    n = write(fd, data, len);
    if (n != (ssize_t)len) {
        int rc = n < 0 ? -errno : -EIO;
        close(fd);
        return rc;
    }
    if (fd_out != NULL)
        *fd_out = fd;
    else
        close(fd);
    return 0;
}

static int read_input(int dir, const char *name)
{
    char buf[4096];
    int fd = openat(dir, name, O_RDONLY | O_CLOEXEC);
    ssize_t n;

    if (fd < 0)
        return -errno;
    n = read(fd, buf, sizeof(buf));
    close(fd);
    return n > 0 ? 0 : n < 0 ? -errno : -ENODATA;
}

static int move(int from, const char *name, int to)
{
    return renameat2(from, name, to, name, RENAME_NOREPLACE) == 0 ? 0 : -errno;
}

/* Sync round 1 over n temporaries, as the group commit would serve them. */
static int sync_files(const struct dirs *d, const int *fds, size_t n)
{
    size_t i;

    if (d->use_syncfs && n >= 2)
        return syncfs(d->out) == 0 ? 0 : -errno;
    for (i = 0; i < n; i++)
        if (fsync(fds[i]) != 0)
            return -errno;
    return 0;
}

/* Steps 2-5 for jobs [first, first + n): the temporaries written, synced
 * and renamed into place.  fds holds 2n descriptors' room. */
static int publish_wave(const struct dirs *d, unsigned first, unsigned n, int *fds)
{
    char name[64], tmp[64], final[64];
    unsigned i, opened = 0;
    int rc = 0;

    for (i = 0; i < n && rc == 0; i++) {
        snprintf(name, sizeof(name), "j%u.jsonl", first + i);
        rc = read_input(d->active, name);
        snprintf(tmp, sizeof(tmp), ".tmp.j%u.r", first + i);
        if (rc == 0 &&
            (rc = write_file(d->out, tmp, results, sizeof(results) - 1, &fds[2 * i])) == 0)
            opened++;
        snprintf(tmp, sizeof(tmp), ".tmp.j%u.s", first + i);
        if (rc == 0 &&
            (rc = write_file(d->out, tmp, d->summary, sizeof(d->summary), &fds[2 * i + 1])) == 0)
            opened++;
    }
    if (rc == 0)
        rc = sync_files(d, fds, 2 * (size_t)n);
    for (i = 0; i < n && rc == 0; i++) {
        snprintf(tmp, sizeof(tmp), ".tmp.j%u.r", first + i);
        snprintf(final, sizeof(final), "j%u.results.jsonl", first + i);
        if (renameat(d->out, tmp, d->out, final) != 0)
            rc = -errno;
        snprintf(tmp, sizeof(tmp), ".tmp.j%u.s", first + i);
        snprintf(final, sizeof(final), "j%u.summary.json", first + i);
        if (rc == 0 && renameat(d->out, tmp, d->out, final) != 0)
            rc = -errno;
    }
    for (i = 0; i < opened; i++)
        close(fds[i]);
    return rc;
}

/* As many jobs at once as the descriptor limit allows (two each). */
static unsigned wave_size(unsigned n)
{
    struct rlimit rl;
    rlim_t room;

    if (getrlimit(RLIMIT_NOFILE, &rl) == 0 && rl.rlim_cur < rl.rlim_max) {
        rl.rlim_cur = rl.rlim_max;
        (void)setrlimit(RLIMIT_NOFILE, &rl);
        (void)getrlimit(RLIMIT_NOFILE, &rl);
    }
    room = rl.rlim_cur > 64 ? (rl.rlim_cur - 32) / 2 : 16;
    return room < n ? (unsigned)room : n;
}

static int run_batch(const struct dirs *d, unsigned n, double *rate)
{
    char name[64];
    unsigned i, first, w = wave_size(n);
    int *fds = calloc(2 * (size_t)w, sizeof(*fds));
    double t0;
    int rc = 0;

    if (fds == NULL)
        return -ENOMEM;
    for (i = 0; i < n && rc == 0; i++) {
        snprintf(name, sizeof(name), "j%u.jsonl", i);
        rc = write_file(d->stage, name, record, sizeof(record) - 1, NULL);
    }
    sync(); /* the staging's dirty pages are not the run's to flush */
    t0 = now_ms();
    for (i = 0; i < n && rc == 0; i++) {
        snprintf(name, sizeof(name), "j%u.jsonl", i);
        rc = move(d->stage, name, d->spool);
    }
    for (first = 0; first < n && rc == 0; first += w) {
        unsigned k = n - first < w ? n - first : w;

        for (i = first; i < first + k && rc == 0; i++) {
            snprintf(name, sizeof(name), "j%u.jsonl", i);
            rc = move(d->spool, name, d->active);
        }
        if (rc == 0)
            rc = publish_wave(d, first, k, fds);
        if (rc == 0 && fsync(d->out) != 0)
            rc = -errno;
        for (i = first; i < first + k && rc == 0; i++) {
            snprintf(name, sizeof(name), "j%u.jsonl", i);
            rc = move(d->active, name, d->done);
        }
    }
    *rate = (double)n / ((now_ms() - t0) / 1e3);
    free(fds);
    return rc;
}

/* The spool and outputs handoff.py made: IN and OUT exist, .cairn/ is
 * made here, after the watch (returned in *watch_fd). */
static int setup_serve(const char *in, const char *out, struct dirs *d, int *watch_fd)
{
    int rc;

    *d = (struct dirs){ .stage = -1 };
    d->spool = open(in, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d->spool < 0)
        return -errno;
    *watch_fd = inotify_init1(IN_CLOEXEC);
    if (*watch_fd < 0 || inotify_add_watch(*watch_fd, in, IN_MOVED_TO | IN_ONLYDIR) < 0)
        return -errno;
    if (mkdir(out, 0755) != 0 && errno != EEXIST)
        return -errno;
    d->out = open(out, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (d->out < 0)
        return -errno;
    if ((rc = make_state_dirs(d)) != 0)
        return rc;
    ready(d);
    return 0;
}

/* Job k, in the spool: claimed, its outputs published (the hand-off ends
 * there: *lat gets the ms since t0 when lat is not NULL), the output
 * directory synced and the input moved to done/. */
static int one_job(const struct dirs *d, unsigned k, double t0, double *lat)
{
    char name[64];
    int fds[2], rc;

    snprintf(name, sizeof(name), "j%u.jsonl", k);
    rc = move(d->spool, name, d->active);
    if (rc == 0)
        rc = publish_wave(d, k, 1, fds);
    if (lat != NULL)
        *lat = now_ms() - t0;
    if (rc == 0 && fsync(d->out) != 0)
        rc = -errno;
    if (rc == 0)
        rc = move(d->active, name, d->done);
    return rc;
}

/* Serves n jobs renamed into the spool, each as it arrives: the steps of
 * run_alone, woken by inotify instead of doing the rename itself. */
static int run_serve(const struct dirs *d, int watch_fd, unsigned n)
{
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    unsigned served = 0, k;
    int rc = 0;

    while (served < n && rc == 0) {
        ssize_t len = read(watch_fd, buf, sizeof(buf));
        char *p;

        if (len <= 0)
            return len < 0 ? -errno : -EIO;
        for (p = buf; p < buf + len && rc == 0;) {
            const struct inotify_event *ev = (const struct inotify_event *)p;
            char name[64];

            p += sizeof(*ev) + ev->len;
            if (ev->len == 0 || sscanf(ev->name, "j%u.jsonl", &k) != 1)
                continue;
            snprintf(name, sizeof(name), "j%u.jsonl", k);
            if (strcmp(name, ev->name) != 0)
                continue;
            rc = one_job(d, k, 0, NULL);
            served++;
        }
    }
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;

    return (x > y) - (x < y);
}

static int run_alone(const struct dirs *d, unsigned n, double *lat)
{
    char tmp[64], name[64];
    unsigned i;
    int rc = 0;

    for (i = 0; i < n && rc == 0; i++) {
        double t0;

        snprintf(tmp, sizeof(tmp), ".j%u.tmp", i);
        snprintf(name, sizeof(name), "j%u.jsonl", i);
        rc = write_file(d->spool, tmp, record, sizeof(record) - 1, NULL);
        t0 = now_ms();
        if (rc == 0 && renameat(d->spool, tmp, d->spool, name) != 0)
            rc = -errno;
        if (rc == 0)
            rc = one_job(d, i, t0, &lat[i]);
    }
    return rc;
}

int main(int argc, char **argv)
{
    struct dirs d;
    unsigned long n;
    char *end;
    int rc, serve = argc == 5 && strcmp(argv[1], "serve") == 0, watch_fd = -1;

    if (!serve && (argc != 4 || (strcmp(argv[1], "batch") != 0 && strcmp(argv[1], "alone") != 0))) {
        fprintf(stderr, "usage: bench-floor-disk batch|alone N DIR\n"
                        "       bench-floor-disk serve N IN OUT\n");
        return 2;
    }
    errno = 0;
    n = strtoul(argv[2], &end, 10);
    if (errno != 0 || *end != '\0' || n == 0 || n > 1000000) {
        fprintf(stderr, "bench-floor-disk: N must be 1 to 1000000, not %s\n", argv[2]);
        return 2;
    }
    if ((rc = serve ? setup_serve(argv[3], argv[4], &d, &watch_fd) : setup(argv[3], &d)) != 0) {
        fprintf(stderr, "bench-floor-disk: cannot make its directories in %s: %s\n", argv[3],
                strerror(-rc));
        return 1;
    }
    if (serve) {
        rc = run_serve(&d, watch_fd, (unsigned)n);
    } else if (strcmp(argv[1], "batch") == 0) {
        double rate = 0;

        rc = run_batch(&d, (unsigned)n, &rate);
        if (rc == 0)
            printf("floor: %lu one-record jobs at once (%s): %.0f jobs/s\n", n,
                   d.use_syncfs ? "syncfs" : "fsync per file", rate);
    } else {
        double *lat = calloc(n, sizeof(*lat));

        if (lat == NULL) {
            fprintf(stderr, "bench-floor-disk: out of memory\n");
            return 1;
        }
        rc = run_alone(&d, (unsigned)n, lat);
        if (rc == 0) {
            size_t p99 = (size_t)((double)n * 0.99);

            qsort(lat, n, sizeof(*lat), cmp_double);
            /* handoff.py's format, so bench/run reads both alike. */
            printf("floor hand-off over %lu one-record jobs (%s; rename-in -> summary "
                   "visible): median %.2f ms, p99 %.2f ms, max %.2f ms\n",
                   n, d.use_syncfs ? "syncfs" : "fsync per file",
                   n % 2 ? lat[n / 2] : (lat[n / 2 - 1] + lat[n / 2]) / 2,
                   lat[p99 < n ? p99 : n - 1], lat[n - 1]);
        }
        free(lat);
    }
    if (rc != 0) {
        fprintf(stderr, "bench-floor-disk: %s run failed: %s\n", argv[1], strerror(-rc));
        return 1;
    }
    return 0;
}
