/*
 * test_outcome.c - the one policy for a job's end: failed only for what
 * the job is, "try again later" for whatever is the machine's trouble.
 */
#include <check.h>
#include <errno.h>
#include <stdlib.h>

#include "harness.h"
#include "outcome.h"

START_TEST(clean_end_is_done)
{
    ck_assert_int_eq(cairn_job_outcome(0, 0), CAIRN_JOB_DONE);
}
END_TEST

START_TEST(bad_job_is_failed)
{
    ck_assert_int_eq(cairn_job_outcome(0, 1), CAIRN_JOB_FAILED);
}
END_TEST

/* Out of memory, a full disk, an output directory gone, an I/O error:
 * never a reason to quarantine a job, even one already found bad (its
 * summary could not be written: it is failed on the next try). */
START_TEST(machine_trouble_is_retried)
{
    static const int errs[] = { -ENOMEM, -ENOSPC, -EDQUOT, -ENOENT, -EIO, -EROFS, -EMFILE };
    size_t i;

    for (i = 0; i < sizeof(errs) / sizeof(errs[0]); i++) {
        ck_assert_int_eq(cairn_job_outcome(errs[i], 0), CAIRN_JOB_RETRY);
        ck_assert_int_eq(cairn_job_outcome(errs[i], 1), CAIRN_JOB_RETRY);
    }
}
END_TEST

/* Opening or reading a job's file: what another try may not meet hands
 * the job back, what the file itself is fails it with the reason. */
START_TEST(open_errors_sorted_by_whose_they_are)
{
    static const int machines[] = { EIO,    ENOSPC,  EDQUOT, EINTR,     EAGAIN, ENOMEM, EMFILE,
                                    ENFILE, ENOBUFS, ESTALE, ETIMEDOUT, EBUSY,  ENOLCK };
    static const int the_files[] = { EACCES, EPERM, ELOOP, ENXIO, EISDIR, ENAMETOOLONG, EINVAL };
    size_t i;

    for (i = 0; i < sizeof(machines) / sizeof(machines[0]); i++)
        ck_assert_msg(cairn_error_is_the_machines(-machines[i]), "errno %d is the machine's",
                      machines[i]);
    for (i = 0; i < sizeof(the_files) / sizeof(the_files[0]); i++)
        ck_assert_msg(!cairn_error_is_the_machines(-the_files[i]), "errno %d is the file's",
                      the_files[i]);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("outcome");
    TCase *tc = tcase_create("outcome");
    int failed;

    tcase_add_test(tc, clean_end_is_done);
    tcase_add_test(tc, bad_job_is_failed);
    tcase_add_test(tc, machine_trouble_is_retried);
    tcase_add_test(tc, open_errors_sorted_by_whose_they_are);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
