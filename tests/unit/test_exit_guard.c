/*
 * test_exit_guard.c - exit_guard.h: a test whose process exits 0 half-way
 * fails; one that returns, or forks a child that exits 0, passes.
 *
 * The three are run by a runner inside a test, silent, so only the
 * outer verdicts reach the totals.
 */
#include <check.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

START_TEST(exits_half_way)
{
    exit(0);
}
END_TEST

START_TEST(returns)
{
    ck_assert_int_eq(1 + 1, 2);
}
END_TEST

START_TEST(forks_a_child_that_exits_0)
{
    int status;
    pid_t pid = fork();

    ck_assert_int_ge(pid, 0);
    if (pid == 0)
        exit(0);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

static SRunner *run_inner(void)
{
    Suite *s = suite_create("inner");
    TCase *tc = tcase_create("inner");
    SRunner *sr;

    tcase_add_test(tc, exits_half_way);
    tcase_add_test(tc, returns);
    tcase_add_test(tc, forks_a_child_that_exits_0);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_set_fork_status(sr, CK_FORK);
    srunner_run_all(sr, CK_SILENT);
    return sr;
}

START_TEST(an_exit_half_way_fails_and_nothing_else_does)
{
    SRunner *sr = run_inner();
    TestResult **failed;

    ck_assert_int_eq(srunner_ntests_run(sr), 3);
    ck_assert_int_eq(srunner_ntests_failed(sr), 1);
    failed = srunner_failures(sr);
    ck_assert_str_eq(tr_tcname(failed[0]), "inner");
    ck_assert_msg(strstr(tr_msg(failed[0]), "99") != NULL, "%s", tr_msg(failed[0]));
    free(failed);
    srunner_free(sr);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("exit guard");
    TCase *tc = tcase_create("an exit half-way through a test fails it");
    SRunner *sr;
    int failed;

    tcase_add_test(tc, an_exit_half_way_fails_and_nothing_else_does);
    suite_add_tcase(s, tc);
    sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed == 0 ? 0 : 1;
}
