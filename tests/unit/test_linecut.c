/*
 * test_linecut.c - the line cutter on its own (linecut.h): no loop, no
 * threads.  The same bytes must give the same lines however the reads
 * split them.
 */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "linecut.h"

/* Feeds in[0, n) in reads of chunk bytes to a cutter with the given
 * max_line_bytes and describes what came out, one "NO:TEXT|" per line
 * ("NO:!BYTES|" for one over the limit, "NO:!BYTES NOTE|" when its note
 * is not empty). */
static void cut_all(const char *in, size_t n, size_t chunk, size_t max, char *desc, size_t cap)
{
    struct cairn_linecut c = { .max_line_bytes = max };
    struct cairn_lines lines = { 0 };
    struct cairn_batchsize never_full = { .max_lines = SIZE_MAX, .max_bytes = SIZE_MAX };
    char *buf = malloc(n + 1);
    size_t len = 0, done = 0, i, used = 0, note_at = 0;

    ck_assert_ptr_nonnull(buf);
    while (done < n) {
        size_t k = n - done < chunk ? n - done : chunk, from = len;

        memcpy(buf + len, in + done, k);
        len += k;
        done += k;
        ck_assert_int_eq(cairn_linecut_cut(&c, buf, &len, from, &never_full, &lines), 0);
    }
    ck_assert_int_eq(cairn_linecut_end(&c, buf, len, &lines), 0);
    desc[0] = '\0';
    for (i = 0; i < lines.n; i++) {
        const struct cairn_line *l = &lines.v[i];

        if (l->len == CAIRN_LINE_TOO_LONG) {
            size_t nn;
            const char *note = cairn_lines_note(&lines, &note_at, &nn);

            used +=
                (size_t)snprintf(desc + used, cap - used, "%llu:!%zu%s%.*s|",
                                 (unsigned long long)l->no, l->off, nn ? " " : "", (int)nn, note);
        } else
            used += (size_t)snprintf(desc + used, cap - used, "%llu:%.*s|",
                                     (unsigned long long)l->no, (int)l->len, buf + l->off);
        ck_assert_uint_lt(used, cap);
    }
    cairn_lines_free(&lines);
    free(buf);
}

START_TEST(lines_are_the_same_whatever_the_reads)
{
    /* A BOM (first line only), CRLF, blank lines, a BOM later on (data),
     * a line over the limit with a CR, and a last line without newline. */
    static const char in[] = "\xEF\xBB\xBF"
                             "ab\r\n"
                             "\n"
                             " \t \r\n"
                             "\xEF\xBB\xBF"
                             "c\n"
                             "0123456789\r\n"
                             "de";
    static const char want[] = "1:ab|4:\xEF\xBB\xBF"
                               "c|5:!10|6:de|";
    char got[256];
    size_t chunk;

    for (chunk = 1; chunk <= sizeof(in); chunk++) {
        cut_all(in, sizeof(in) - 1, chunk, 5, got, sizeof(got));
        ck_assert_msg(strcmp(got, want) == 0, "reads of %zu bytes: %s", chunk, got);
    }
}
END_TEST

/* A line over the limit keeps its top-level id and variant, found as its
 * bytes stream past (idscan.h), whatever the reads: small scalars only,
 * nothing nested, nothing said twice; the closing brace only when the
 * object ended (so a default variant may stand in). */
START_TEST(a_long_line_keeps_its_id_and_variant)
{
    static const char in[] =
        "{\"id\":\"r7\",\"pad\":[\"}\\\"{\",[{\"id\":1}],\"xxxxxxxx\"],\"variant\" : \"1406\","
        "\"input\":{}}\r\n"
        "{\"pad\":\"xxxxxxxxxxxxxxxxxxxx\",\"id\":-0.5}\n"
        "{\"id\":1,\"pad\":\"xxxxxxxxxxxxxxxxxxxx\",\"id\":2,\"variant\":{\"a\":1}}\n"
        "{\"variant\":\"stone-game\",\"pad\":\"xxxxxxxxxxxxxxxxxxxxxxxx\n"
        "[\"id\",\"variant\",\"xxxxxxxxxxxxxxxxxxxxxxxx\"]\n"
        "ok\n";
    static const char want[] = "1:!78 {\"id\":\"r7\",\"variant\":\"1406\"}|"
                               "2:!40 {\"id\":-0.5}|"
                               "3:!62 {|"
                               "4:!55 {\"variant\":\"stone-game\"|"
                               "5:!43|6:ok|";
    char got[512];
    size_t chunk;

    for (chunk = 1; chunk <= sizeof(in); chunk++) {
        cut_all(in, sizeof(in) - 1, chunk, 20, got, sizeof(got));
        ck_assert_msg(strcmp(got, want) == 0, "reads of %zu bytes: %s", chunk, got);
    }
}
END_TEST

/* A value too long to keep is not kept (nor is the line). */
START_TEST(a_long_id_is_not_kept)
{
    size_t n = 5000;
    char *in = malloc(n + 64), got[256];
    int k;

    ck_assert_ptr_nonnull(in);
    k = sprintf(in, "{\"variant\":\"877\",\"id\":\"");

    memset(in + k, 'x', n);
    strcpy(in + k + n, "\"}\n");
    cut_all(in, strlen(in), 4096, 100, got, sizeof(got));
    ck_assert_msg(strstr(got, "{\"variant\":\"877\"}|") != NULL, "%s", got);
    free(in);
}
END_TEST

START_TEST(a_long_line_is_counted_not_held)
{
    /* 100,000 bytes over a limit of 10: the buffer never holds them. */
    size_t n = 100000, chunk = 4096, len = 0, done = 0, peak = 0;
    struct cairn_linecut c = { .max_line_bytes = 10 };
    struct cairn_lines lines = { 0 };
    struct cairn_batchsize never_full = { .max_lines = SIZE_MAX, .max_bytes = SIZE_MAX };
    char *in = malloc(n + 2), *buf = malloc(n + 2);

    memset(in, 'x', n);
    memcpy(in + n, "\ny", 2);
    while (done < n + 2) {
        size_t k = n + 2 - done < chunk ? n + 2 - done : chunk, from = len;

        memcpy(buf + len, in + done, k);
        len += k;
        done += k;
        ck_assert_int_eq(cairn_linecut_cut(&c, buf, &len, from, &never_full, &lines), 0);
        peak = len > peak ? len : peak;
    }
    ck_assert_uint_le(peak, chunk);
    ck_assert_int_eq(cairn_linecut_end(&c, buf, len, &lines), 0);
    ck_assert_uint_eq(lines.n, 2);
    ck_assert_uint_eq(lines.v[0].len, CAIRN_LINE_TOO_LONG);
    ck_assert_uint_eq(lines.v[0].off, n);
    ck_assert_uint_eq(lines.v[1].no, 2);
    ck_assert_uint_eq(lines.v[1].len, 1);
    cairn_lines_free(&lines);
    free(in);
    free(buf);
}
END_TEST

START_TEST(a_full_batch_stops_after_its_line)
{
    static const char in[] = "a\nb\nc\nd";
    struct cairn_linecut c = { .max_line_bytes = 100 };
    struct cairn_lines lines = { 0 };
    struct cairn_batchsize two = { .max_lines = 2, .max_bytes = SIZE_MAX };
    size_t len = sizeof(in) - 1;

    ck_assert_int_eq(cairn_linecut_cut(&c, in, &len, 0, &two, &lines), CAIRN_LINECUT_FULL);
    ck_assert_uint_eq(lines.n, 2);
    ck_assert_uint_eq(c.line_start, 4); /* "c\nd" is the next batch's */
    ck_assert_uint_eq(len, sizeof(in) - 1);
    /* Cut by bytes too: a batch whose lines span 2 bytes is full. */
    lines.n = 0;
    c = (struct cairn_linecut){ .max_line_bytes = 100 };
    two = (struct cairn_batchsize){ .max_lines = SIZE_MAX, .max_bytes = 2 };
    ck_assert_int_eq(cairn_linecut_cut(&c, in, &len, 0, &two, &lines), CAIRN_LINECUT_FULL);
    ck_assert_uint_eq(lines.n, 1);
    ck_assert_uint_eq(c.line_start, 2);
    cairn_lines_free(&lines);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("linecut");
    TCase *tc = tcase_create("linecut");
    int failed;

    tcase_add_test(tc, lines_are_the_same_whatever_the_reads);
    tcase_add_test(tc, a_long_line_is_counted_not_held);
    tcase_add_test(tc, a_long_line_keeps_its_id_and_variant);
    tcase_add_test(tc, a_long_id_is_not_kept);
    tcase_add_test(tc, a_full_batch_stops_after_its_line);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? 0 : 1;
}
