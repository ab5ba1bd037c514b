/*
 * test_fdbudget.c - the jobs at once the descriptor limit allows
 * (fdbudget.h): the descriptors open are counted, the reserve and four
 * per job kept, and the cap never exceeds what was wanted.  Each case
 * runs in its own process (Check's fork), so its limit dies with it.
 */
#include <check.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <unistd.h>

#include "harness.h"
#include "fdbudget.h"
#include "job.h"

/* The soft limit set to n (the hard one left as it is). */
static void soft_limit(rlim_t n)
{
    struct rlimit rl;

    ck_assert_int_eq(getrlimit(RLIMIT_NOFILE, &rl), 0);
    ck_assert_msg(rl.rlim_max == RLIM_INFINITY || rl.rlim_max >= n, "hard limit below %llu",
                  (unsigned long long)n);
    rl.rlim_cur = n;
    ck_assert_int_eq(setrlimit(RLIMIT_NOFILE, &rl), 0);
}

START_TEST(counts_the_open_descriptors)
{
    struct cairn_fd_budget before, after;
    int fds[5], i;

    soft_limit(1024);
    ck_assert_int_eq(cairn_fd_budget(8, 0, &before), 0);
    for (i = 0; i < 5; i++)
        ck_assert_int_ge(fds[i] = dup(0), 0);
    ck_assert_int_eq(cairn_fd_budget(8, 0, &after), 0);
    ck_assert_uint_eq(after.open, before.open + 5);
    ck_assert_uint_eq(after.limit, 1024);
    ck_assert_uint_eq(after.per_job, CAIRN_JOB_DESCRIPTORS);
    for (i = 0; i < 5; i++)
        close(fds[i]);
}
END_TEST

START_TEST(a_low_limit_caps_the_jobs)
{
    struct cairn_fd_budget b;
    size_t open;

    ck_assert_int_eq(cairn_fd_budget(8, 10, &b), 0);
    open = b.open;
    /* Room for three jobs and part of a fourth. */
    soft_limit((rlim_t)(open + 10 + 3 * CAIRN_JOB_DESCRIPTORS + CAIRN_JOB_DESCRIPTORS - 1));
    ck_assert_int_eq(cairn_fd_budget(8, 10, &b), 0);
    ck_assert_uint_eq(b.open, open);
    ck_assert_uint_eq(b.reserve, 10);
    ck_assert_uint_eq(b.jobs, 3);
}
END_TEST

START_TEST(no_room_is_zero_jobs)
{
    struct cairn_fd_budget b;

    ck_assert_int_eq(cairn_fd_budget(8, 10, &b), 0);
    soft_limit((rlim_t)(b.open + 10 + CAIRN_JOB_DESCRIPTORS - 1));
    ck_assert_int_eq(cairn_fd_budget(8, 10, &b), 0);
    ck_assert_uint_eq(b.jobs, 0);
    /* Fewer open than reserved, too: no wrap-around to a huge cap. */
    soft_limit((rlim_t)(b.open + 1));
    ck_assert_int_eq(cairn_fd_budget(8, 10, &b), 0);
    ck_assert_uint_eq(b.jobs, 0);
}
END_TEST

START_TEST(a_high_limit_caps_nothing)
{
    struct cairn_fd_budget b;

    soft_limit(1024);
    ck_assert_int_eq(cairn_fd_budget(8, 10, &b), 0);
    ck_assert_uint_eq(b.jobs, 8);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fdbudget");
    TCase *tc = tcase_create("fdbudget");
    int failed;

    tcase_add_test(tc, counts_the_open_descriptors);
    tcase_add_test(tc, a_low_limit_caps_the_jobs);
    tcase_add_test(tc, no_room_is_zero_jobs);
    tcase_add_test(tc, a_high_limit_caps_nothing);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
