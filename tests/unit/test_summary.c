/*
 * test_summary.c - a job's summary and reason, and a --filter run's
 * summary line, rendered whole or not at all: with jansson's N-th
 * allocation failing, for every N, the render says -ENOMEM or gives a line
 * holding every key (a summary missing a key must never be published).
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "summary.h"

/* jansson's allocations: the fail_at-th fails (0: none); seen counts. */
static long fail_at, seen;

static void *failing_malloc(size_t n)
{
    if (++seen == fail_at)
        return NULL;
    return malloc(n);
}

static const char *const ok_keys[] = { "job",          "status",        "input",   "submitted_as",
                                       "input_inode",  "results",       "records", "ok",
                                       "errors",       "by_variant",    "matches", "mismatches",
                                       "unchecked",    "bytes",         "started", "finished",
                                       "wall_seconds", "solve_seconds", "pid",     NULL };
static const char *const failed_keys[] = { "job",     "status",     "reason",       "input",
                                           "records", "ok",         "errors",       "by_variant",
                                           "matches", "mismatches", "unchecked",    "bytes",
                                           "started", "finished",   "wall_seconds", "pid",
                                           NULL };
static const char *const reason_keys[] = { "job", "reason", "time", "pid", NULL };
static const char *const filter_keys[] = { "records",    "ok",           "errors",
                                           "by_variant", "matches",      "mismatches",
                                           "unchecked",  "wall_seconds", "solve_seconds",
                                           NULL };

static struct cairn_tally tally;
static struct cairn_registry reg; /* no plugins: variant 0 is "unresolved" */

static void make_tally(void)
{
    ck_assert_int_eq(cairn_tally_init(&tally, 0), 0);
    tally.records = 3;
    tally.ok = 2;
    tally.errors[0] = 1;
    tally.variant_ok[0] = 2;
    tally.variant_err[0] = 1;
}

static struct cairn_job_facts facts(const char *reason)
{
    return (struct cairn_job_facts){ .name = "job.jsonl",
                                     .base = "job",
                                     .out_base = "job",
                                     .reason = reason,
                                     .submitted_as = "job.jsonl",
                                     .input_inode = 42,
                                     .wall_seconds = 0.5,
                                     .bytes = 100,
                                     .tally = &tally,
                                     .reg = &reg };
}

/* One JSON line holding every key of keys. */
static void check_line(const struct cairn_buf *b, const char *const *keys, long n)
{
    json_error_t err;
    json_t *o;

    ck_assert_msg(b->len > 0 && b->data[b->len - 1] == '\n', "allocation %ld: not one line", n);
    ck_assert_ptr_null(memchr(b->data, '\n', b->len - 1));
    o = json_loadb(b->data, b->len, 0, &err);
    ck_assert_msg(o != NULL, "allocation %ld: not JSON: %s", n, err.text);
    for (; *keys != NULL; keys++)
        ck_assert_msg(json_object_get(o, *keys) != NULL, "allocation %ld failed: no \"%s\"", n,
                      *keys);
    json_decref(o);
}

enum which {
    SUMMARY_OK,
    SUMMARY_FAILED,
    REASON,
    FILTER
};

static int render(enum which w, struct cairn_buf *out)
{
    struct cairn_job_facts f = facts(w == SUMMARY_OK ? NULL : "job.jsonl is a FIFO");

    switch (w) {
    case SUMMARY_OK:
    case SUMMARY_FAILED: return cairn_summary_render(&f, out);
    case REASON: return cairn_reason_render(&f, out);
    case FILTER: return cairn_filter_summary_render(&tally, &reg, 0.5, out);
    }
    return -EINVAL;
}

/* Every allocation of the render fails in turn; the last run has none
 * failing and must give the whole line. */
static void sweep(enum which w, const char *const *keys)
{
    struct cairn_buf out = { 0 };
    long n, failures = 0;
    int rc;

    make_tally();
    json_set_alloc_funcs(failing_malloc, free);
    for (n = 1;; n++) {
        fail_at = n;
        seen = 0;
        rc = render(w, &out);
        fail_at = 0; /* check_line parses with jansson */
        if (seen < n)
            break; /* no allocation failed: the clean render */
        ck_assert_msg(rc == -ENOMEM || rc == 0, "allocation %ld: rc %d", n, rc);
        if (rc == 0)
            check_line(&out, keys, n); /* a failure it could do without */
        else
            failures++;
    }
    ck_assert_int_eq(rc, 0);
    check_line(&out, keys, n);
    ck_assert_msg(failures > 0, "no allocation failure was seen: the sweep checked nothing");
    json_set_alloc_funcs(malloc, free);
    cairn_buf_free(&out);
    cairn_tally_free(&tally);
}

START_TEST(ok_summary_whole_or_enomem)
{
    sweep(SUMMARY_OK, ok_keys);
}
END_TEST

START_TEST(failed_summary_whole_or_enomem)
{
    sweep(SUMMARY_FAILED, failed_keys);
}
END_TEST

START_TEST(reason_whole_or_enomem)
{
    sweep(REASON, reason_keys);
}
END_TEST

START_TEST(filter_summary_whole_or_enomem)
{
    sweep(FILTER, filter_keys);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("summary");
    TCase *tc = tcase_create("out_of_memory");
    int failed;

    tcase_add_test(tc, ok_summary_whole_or_enomem);
    tcase_add_test(tc, failed_summary_whole_or_enomem);
    tcase_add_test(tc, reason_whole_or_enomem);
    tcase_add_test(tc, filter_summary_whole_or_enomem);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
