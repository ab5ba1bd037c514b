/*
 * test_commit.c - the group commit: a caller alone syncs at once, callers
 * together share rounds and syncs, and an error reaches exactly the
 * requests whose inode it concerns.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/vfs.h>
#include <unistd.h>
#include <uv.h>

#include "harness.h"
#include "commit.h"

/* In the build tree, not /tmp: the syncfs rule is about real disk file
 * systems, and /tmp may be a tmpfs. */
static char g_dir[256];
static int g_fd = -1;

static void setup(void)
{
    snprintf(g_dir, sizeof(g_dir), "cairn-test-commit-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(g_dir));
    g_fd = open(g_dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(g_fd, 0);
}

static void teardown(void)
{
    char name[32];
    int i;

    for (i = 0; i < 64; i++) {
        snprintf(name, sizeof(name), "f%d", i);
        unlinkat(g_fd, name, 0);
    }
    close(g_fd);
    rmdir(g_dir);
}

static int new_file(int i)
{
    char name[32];
    int fd;

    snprintf(name, sizeof(name), "f%d", i);
    fd = openat(g_fd, name, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, "{\"line\":1}\n", 11), 11);
    return fd;
}

/* ext4, XFS or Btrfs: where one syncfs serves several inodes. */
static int dir_has_barrier_syncfs(void)
{
    struct statfs fs;

    ck_assert_int_eq(fstatfs(g_fd, &fs), 0);
    return fs.f_type == EXT4_SUPER_MAGIC || fs.f_type == XFS_SUPER_MAGIC ||
           fs.f_type == BTRFS_SUPER_MAGIC;
}

START_TEST(alone_syncs_at_once_in_one_round)
{
    struct cairn_commit *c;
    struct cairn_commit_stats st;
    int fds[2];

    ck_assert_int_eq(cairn_commit_new(&c), 0);
    fds[0] = new_file(0);
    fds[1] = new_file(1);
    ck_assert_int_eq(cairn_commit_sync(c, fds, 2), 0);
    ck_assert_int_eq(cairn_commit_sync(c, &g_fd, 1), 0);
    cairn_commit_stats(c, &st);
    ck_assert_uint_eq(st.requests, 2);
    ck_assert_uint_eq(st.rounds, 2);
    /* Two files: one syncfs where it is a full barrier, else an fsync
     * each; the directory alone: one fsync. */
    ck_assert_uint_eq(st.syncs, dir_has_barrier_syncfs() ? 2 : 3);
    /* After a syncfs each file's own errors are read through its own
     * descriptor; an fsync of its own reported them already. */
    ck_assert_uint_eq(st.checks, dir_has_barrier_syncfs() ? 2 : 0);
    close(fds[0]);
    close(fds[1]);
    cairn_commit_free(c);
}
END_TEST

/* Nothing to sync is no request and no round; a descriptor that is not
 * open fails its request with EBADF before it joins a round, and the
 * next request is served as if it had never been. */
START_TEST(empty_and_bad_requests_start_no_round)
{
    struct cairn_commit *c;
    struct cairn_commit_stats st;
    int fds[2];

    ck_assert_int_eq(cairn_commit_new(&c), 0);
    ck_assert_int_eq(cairn_commit_sync(c, fds, 0), 0);
    fds[0] = new_file(0);
    fds[1] = new_file(1);
    ck_assert_int_eq(close(fds[1]), 0);
    ck_assert_int_eq(cairn_commit_sync(c, fds, 2), -EBADF);
    cairn_commit_stats(c, &st);
    ck_assert_uint_eq(st.requests, 0);
    ck_assert_uint_eq(st.rounds, 0);
    ck_assert_uint_eq(st.syncs, 0);
    ck_assert_int_eq(cairn_commit_sync(c, fds, 1), 0);
    cairn_commit_stats(c, &st);
    ck_assert_uint_eq(st.requests, 1);
    ck_assert_uint_eq(st.rounds, 1);
    ck_assert_uint_eq(st.syncs, 1);
    close(fds[0]);
    cairn_commit_free(c);
    cairn_commit_free(NULL); /* as after a failed cairn_commit_new */
}
END_TEST

START_TEST(one_inode_is_synced_once_per_round)
{
    struct cairn_commit *c;
    struct cairn_commit_stats st;
    int fds[3];

    ck_assert_int_eq(cairn_commit_new(&c), 0);
    fds[0] = g_fd;
    fds[1] = open(g_dir, O_RDONLY | O_DIRECTORY);
    fds[2] = dup(g_fd);
    ck_assert_int_ge(fds[1], 0);
    ck_assert_int_eq(cairn_commit_sync(c, fds, 3), 0);
    cairn_commit_stats(c, &st);
    ck_assert_uint_eq(st.syncs, 1);
    ck_assert_uint_eq(st.checks, 0);                         /* directories: nothing to read back */
    ck_assert_int_eq(cairn_commit_sync(c, fds, 5), -EINVAL); /* more than a job needs */
    close(fds[1]);
    close(fds[2]);
    cairn_commit_free(c);
}
END_TEST

/* One file through two descriptors: the first one's fsync makes it
 * durable and reports that descriptor's errors; the second's are still
 * to be read, through the second. */
START_TEST(a_second_descriptor_of_a_file_reads_its_own_errors)
{
    struct cairn_commit *c;
    struct cairn_commit_stats st;
    int fds[2];

    ck_assert_int_eq(cairn_commit_new(&c), 0);
    fds[0] = new_file(0);
    fds[1] = openat(g_fd, "f0", O_WRONLY);
    ck_assert_int_ge(fds[1], 0);
    ck_assert_int_eq(cairn_commit_sync(c, fds, 2), 0);
    cairn_commit_stats(c, &st);
    ck_assert_uint_eq(st.syncs, 1);
    ck_assert_uint_eq(st.checks, 1);
    close(fds[0]);
    close(fds[1]);
    cairn_commit_free(c);
}
END_TEST

/* fsync(2) of a pipe fails with EINVAL: the request naming it gets the
 * error, one sharing its round but not its inode does not. */
START_TEST(error_goes_to_the_requests_it_concerns)
{
    struct cairn_commit *c;
    int p[2], fds[2];

    ck_assert_int_eq(cairn_commit_new(&c), 0);
    ck_assert_int_eq(pipe(p), 0);
    fds[0] = new_file(0);
    fds[1] = p[1];
    ck_assert_int_eq(cairn_commit_sync(c, fds, 2), -EINVAL);
    ck_assert_int_eq(cairn_commit_sync(c, fds, 1), 0);
    close(p[0]);
    close(p[1]);
    close(fds[0]);
    cairn_commit_free(c);
}
END_TEST

#define SETS 12

/* One caller with many jobs' requests: they all go in one round, each
 * gets its own result (a pipe's EINVAL reaches only the set naming it),
 * and a bad descriptor fails its own set before any round. */
START_TEST(sets_of_one_caller_share_one_round)
{
    struct cairn_commit *c;
    struct cairn_commit_stats st;
    struct cairn_commit_set sets[SETS];
    int fds[SETS][2], p[2], i;

    ck_assert_int_eq(cairn_commit_new(&c), 0);
    ck_assert_int_eq(pipe(p), 0);
    for (i = 0; i < SETS; i++) {
        fds[i][0] = new_file(i);
        fds[i][1] = g_fd;
        sets[i] = (struct cairn_commit_set){ .fds = fds[i], .n = 2, .rc = 1 };
    }
    fds[3][1] = p[1]; /* fsync of a pipe: EINVAL */
    close(fds[5][0]);
    fds[5][0] = -1; /* no descriptor: EBADF, before the round */
    sets[7].n = 0;  /* nothing to sync */
    cairn_commit_sync_each(c, sets, SETS);
    for (i = 0; i < SETS; i++)
        ck_assert_int_eq(sets[i].rc, i == 3 ? -EINVAL : i == 5 ? -EBADF : 0);
    cairn_commit_stats(c, &st);
    ck_assert_uint_eq(st.requests, SETS - 2);
    ck_assert_uint_eq(st.rounds, 1);
    if (dir_has_barrier_syncfs())
        ck_assert_uint_eq(st.syncs, 2); /* one syncfs, and the pipe's fsync */
    else
        ck_assert_uint_le(st.syncs, SETS);
    for (i = 0; i < SETS; i++)
        if (i != 5)
            close(fds[i][0]);
    close(p[0]);
    close(p[1]);
    cairn_commit_free(c);
}
END_TEST

/* Two files a caller has just created, keyed fresh with the same device
 * and inode (0, never looked up, as a temporary under an owner is): two
 * inodes, never one.  On a file system without a barrier syncfs that is an fsync each
 * (taken for one inode, the second would never be synced); with one, the
 * two make a syncfs.  A tmpfs is used where there is one, for the first
 * case. */
START_TEST(fresh_keys_are_two_inodes)
{
    char dir[64] = "/dev/shm/cairn-test-commit-XXXXXX";
    struct cairn_commit *c;
    struct cairn_commit_stats st;
    struct cairn_commit_set set;
    struct cairn_commit_key keys[2];
    struct statfs fs;
    struct stat d;
    int dfd, fds[2], i, barrier;

    if (statfs("/dev/shm", &fs) != 0 || fs.f_type != TMPFS_MAGIC)
        snprintf(dir, sizeof(dir), "%s", "cairn-test-commit-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(dir));
    dfd = open(dir, O_RDONLY | O_DIRECTORY);
    ck_assert_int_ge(dfd, 0);
    ck_assert_int_eq(fstat(dfd, &d), 0);
    ck_assert_int_eq(fstatfs(dfd, &fs), 0);
    barrier = fs.f_type == EXT4_SUPER_MAGIC || fs.f_type == XFS_SUPER_MAGIC ||
              fs.f_type == BTRFS_SUPER_MAGIC;
    for (i = 0; i < 2; i++) {
        fds[i] = openat(dfd, i == 0 ? "a" : "b", O_WRONLY | O_CREAT | O_EXCL, 0644);
        ck_assert_int_ge(fds[i], 0);
        ck_assert_int_eq(write(fds[i], "x\n", 2), 2);
        keys[i] = (struct cairn_commit_key){ .dev = d.st_dev, .regular = 1, .fresh = 1 };
    }
    ck_assert_int_eq(cairn_commit_new(&c), 0);
    set = (struct cairn_commit_set){ .fds = fds, .n = 2, .keys = keys, .rc = 1 };
    cairn_commit_sync_each(c, &set, 1);
    ck_assert_int_eq(set.rc, 0);
    cairn_commit_stats(c, &st);
    ck_assert_uint_eq(st.syncs, barrier ? 1 : 2);
    ck_assert_uint_eq(st.checks, barrier ? 2 : 0);
    cairn_commit_free(c);
    for (i = 0; i < 2; i++)
        close(fds[i]);
    unlinkat(dfd, "a", 0);
    unlinkat(dfd, "b", 0);
    close(dfd);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

#define CALLERS 24

struct caller {
    uv_thread_t t;
    struct cairn_commit *c;
    uv_barrier_t *go;
    int fd;
    int rc;
};

static void call(void *arg)
{
    struct caller *k = arg;
    int fds[2] = { k->fd, g_fd };

    uv_barrier_wait(k->go);
    k->rc = cairn_commit_sync(k->c, fds, 2);
}

/* Callers released together share rounds: fewer rounds than callers (each
 * round takes milliseconds on a disk; the callers register within
 * microseconds of each other), and every caller returns 0 only after a
 * round that began once it had registered. */
START_TEST(callers_together_share_rounds)
{
    struct cairn_commit *c;
    struct cairn_commit_stats st;
    struct caller k[CALLERS];
    uv_barrier_t go;
    int i;

    ck_assert_int_eq(cairn_commit_new(&c), 0);
    ck_assert_int_eq(uv_barrier_init(&go, CALLERS), 0);
    for (i = 0; i < CALLERS; i++) {
        k[i] = (struct caller){ .c = c, .go = &go, .fd = new_file(i), .rc = 1 };
        ck_assert_int_eq(uv_thread_create(&k[i].t, call, &k[i]), 0);
    }
    for (i = 0; i < CALLERS; i++) {
        ck_assert_int_eq(uv_thread_join(&k[i].t), 0);
        ck_assert_int_eq(k[i].rc, 0);
        close(k[i].fd);
    }
    cairn_commit_stats(c, &st);
    ck_assert_uint_eq(st.requests, CALLERS);
    ck_assert_uint_lt(st.rounds, CALLERS);
    /* At most each file and the directory once a round, never the
     * directory once per caller. */
    ck_assert_uint_le(st.syncs, (uint64_t)st.rounds + CALLERS);
    if (dir_has_barrier_syncfs() && st.rounds == 1)
        ck_assert_uint_eq(st.syncs, 1); /* all 25 inodes: one syncfs */
    if (dir_has_barrier_syncfs())
        ck_assert_uint_eq(st.syncs, st.rounds); /* one syncfs a round */
    fprintf(stderr, "%d callers: %llu rounds, %llu syncs\n", CALLERS, (unsigned long long)st.rounds,
            (unsigned long long)st.syncs);
    uv_barrier_destroy(&go);
    cairn_commit_free(c);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("commit");
    TCase *tc = tcase_create("group_commit");
    int failed;

    tcase_add_checked_fixture(tc, setup, teardown);
    tcase_add_test(tc, alone_syncs_at_once_in_one_round);
    tcase_add_test(tc, empty_and_bad_requests_start_no_round);
    tcase_add_test(tc, one_inode_is_synced_once_per_round);
    tcase_add_test(tc, a_second_descriptor_of_a_file_reads_its_own_errors);
    tcase_add_test(tc, error_goes_to_the_requests_it_concerns);
    tcase_add_test(tc, callers_together_share_rounds);
    tcase_add_test(tc, sets_of_one_caller_share_one_round);
    tcase_add_test(tc, fresh_keys_are_two_inodes);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
