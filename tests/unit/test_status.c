/*
 * test_status.c - the status file `cairn status` reads (status.h): one
 * JSON line naming every active job, escaped as in summaries, and a file
 * name of its own per daemon.
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "alloc_fail.h"
#include "status.h"

/* Three jobs at once (a busy daemon), one of them named with a quote and
 * a byte that is not UTF-8: still one line of JSON, every job in order
 * with its figures. */
START_TEST(every_active_job_is_listed)
{
    const struct cairn_status_job jobs[] = {
        { .name = "a.jsonl", .size = 10, .bytes = 5, .records = 1, .started = { 1700000000, 0 } },
        { .name = "b\"\xff.jsonl", .size = 20, .bytes = 20, .records = 2 },
        { .name = "c.jsonl", .size = 30, .bytes = 0, .records = 0 },
    };
    const struct cairn_status_report st = {
        .host = "h", .pid = 123, .version = "9.9", .jobs = jobs, .n_jobs = 3
    };
    struct cairn_buf out = { 0 };
    json_error_t err;
    json_t *o, *active;
    size_t i;

    ck_assert_int_eq(cairn_status_render(&st, &out), 0);
    ck_assert(out.len > 0 && out.data[out.len - 1] == '\n');
    ck_assert_ptr_null(memchr(out.data, '\n', out.len - 1));
    o = json_loadb(out.data, out.len, 0, &err);
    ck_assert_msg(o != NULL, "not JSON: %s: %.*s", err.text, (int)out.len, out.data);
    ck_assert_str_eq(json_string_value(json_object_get(o, "host")), "h");
    ck_assert_int_eq(json_integer_value(json_object_get(o, "pid")), 123);
    active = json_object_get(o, "active");
    ck_assert_uint_eq(json_array_size(active), 3);
    for (i = 0; i < 3; i++) {
        json_t *j = json_array_get(active, i);

        ck_assert_int_eq(json_integer_value(json_object_get(j, "size")), (json_int_t)jobs[i].size);
        ck_assert_int_eq(json_integer_value(json_object_get(j, "records")),
                         (json_int_t)jobs[i].records);
        ck_assert_ptr_nonnull(json_string_value(json_object_get(j, "started")));
    }
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(active, 0), "job")), "a");
    ck_assert_str_eq(json_string_value(json_object_get(json_array_get(active, 2), "input")),
                     "c.jsonl");
    /* The quote kept, the stray byte escaped as summaries escape it. */
    ck_assert_ptr_nonnull(
        strstr(json_string_value(json_object_get(json_array_get(active, 1), "job")), "b\""));
    json_decref(o);

    /* Idle: an empty list, not a missing one. */
    ck_assert_int_eq(
        cairn_status_render(&(struct cairn_status_report){ .host = "h", .version = "9.9" }, &out),
        0);
    o = json_loadb(out.data, out.len, 0, &err);
    ck_assert_ptr_nonnull(o);
    ck_assert_uint_eq(json_array_size(json_object_get(o, "active")), 0);
    ck_assert(json_is_array(json_object_get(o, "active")));
    json_decref(o);
    cairn_buf_free(&out);
}
END_TEST

/* Two daemons of one host never share a file: the name ends in a random
 * part, and holds no '/'. */
START_TEST(file_names_differ_and_stay_in_the_folder)
{
    char *a = cairn_status_file_name(), *b = cairn_status_file_name();

    ck_assert_ptr_nonnull(a);
    ck_assert_ptr_nonnull(b);
    ck_assert_str_ne(a, b);
    ck_assert_ptr_null(strchr(a, '/'));
    ck_assert_uint_gt(strlen(a), strlen(".json"));
    ck_assert_str_eq(a + strlen(a) - strlen(".json"), ".json");
    free(a);
    free(b);
}
END_TEST

/* Out of memory at each allocation of a render in turn: -ENOMEM, or the
 * whole line with every job (the caller publishes only a 0). */
START_TEST(out_of_memory_is_said_not_cut_short)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    const struct cairn_status_job jobs[] = {
        { .name = "a.jsonl", .size = 10 },
        { .name = "b\xff.jsonl", .size = 20 },
    };
    const struct cairn_status_report st = {
        .host = "h", .pid = 1, .version = "9.9", .jobs = jobs, .n_jobs = 2
    };
    long n;
    int failed = 1;

    for (n = 1; failed; n++) {
        struct cairn_buf out = { 0 };
        int rc;

        th_alloc_fail_at(n);
        rc = cairn_status_render(&st, &out);
        failed = th_alloc_disarm();
        if (failed) {
            ck_assert_int_eq(rc, -ENOMEM);
        } else {
            json_t *o;

            ck_assert_int_eq(rc, 0);
            o = json_loadb(out.data, out.len, 0, NULL);
            ck_assert_ptr_nonnull(o);
            ck_assert_uint_eq(json_array_size(json_object_get(o, "active")), 2);
            json_decref(o);
        }
        cairn_buf_free(&out);
    }
    ck_assert_int_gt(n, 4); /* the buffer, each job's name and its escape */
}
END_TEST

int main(void)
{
    Suite *s = suite_create("status");
    TCase *tc = tcase_create("status");
    int failed;

    tcase_add_test(tc, every_active_job_is_listed);
    tcase_add_test(tc, file_names_differ_and_stay_in_the_folder);
    tcase_add_test(tc, out_of_memory_is_said_not_cut_short);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
