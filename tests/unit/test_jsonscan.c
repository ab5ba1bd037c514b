/*
 * test_jsonscan.c - the tree-free JSON check (jsonscan.h) against jansson:
 * on every line here, hand-made at each edge of the grammar or mutated at
 * random, it accepts exactly what json_loadb() accepts with the flags
 * cairnd reads a record with, and names the same type; its messages say
 * where; and its memory does not grow with the number of values.
 */
#include <check.h>
#include <errno.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "alloc_fail.h"
#include "jsonscan.h"
#include "rng.h"

static const char *jansson_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    default: return "null";
    }
}

/* 1 when the scanner and jansson agree on text (and on its type); the
 * disagreement is printed. */
static int agree(const char *text, size_t len)
{
    struct cairn_json_fault f;
    enum cairn_json_kind kind;
    json_error_t e;
    json_t *v = json_loadb(text, len, JSON_REJECT_DUPLICATES | JSON_DECODE_ANY, &e);
    int rc = cairn_json_scan(text, len, &kind, &f), same;

    ck_assert_int_ne(rc, -ENOMEM);
    same = (v != NULL) == (rc == 0) &&
           (v == NULL || strcmp(jansson_kind(v), cairn_json_kind_name(kind)) == 0);
    if (!same)
        fprintf(stderr, "disagree on %.*s: jansson %s (%s), scan %s (%s)\n",
                len > 200 ? 200 : (int)len, text, v ? jansson_kind(v) : "refuses", v ? "" : e.text,
                rc == 0 ? cairn_json_kind_name(kind) : "refuses", rc == 0 ? "" : f.what);
    json_decref(v);
    return same;
}

static int agree_s(const char *text)
{
    return agree(text, strlen(text));
}

static const char *const edges[] = {
    /* values and types */
    "{}",
    "[]",
    "\"\"",
    "0",
    "-0",
    "1.5",
    "-1.5e3",
    "1E+2",
    "1e-2",
    "true",
    "false",
    "null",
    " {\"a\" : [1 , 2] }\t",
    "\r\n{}\n",
    "{\"a\":{\"b\":[{},[],\"x\"]}}",
    /* numbers */
    "01",
    "-01",
    "-",
    "--1",
    "+1",
    "1.",
    ".5",
    "1.e3",
    "1e",
    "1e+",
    "0x10",
    "1.5.3",
    "1 2",
    "00",
    "9223372036854775807",
    "-9223372036854775808",
    "9223372036854775808",
    "-9223372036854775809",
    "10000000000000000000",
    "-0000",
    "1e309",
    "-1e309",
    "1e-400",
    "1.7976931348623157e308",
    "1.7976931348623159e308",
    "1.7976931348623158e308",
    "123456789012345678901234567890.5",
    "0.0000000000000000000000000000001e-330",
    "[-9223372036854775808,9223372036854775807]",
    "[9223372036854775808]",
    "100000000000000000000000000000000000000000000000000000000000000000000000000000e300",
    /* literals */
    "tru",
    "truee",
    "True",
    "nul",
    "nulll",
    "null1",
    "[true,false,null]",
    "[truefalse]",
    "NaN",
    "Infinity",
    "-Infinity",
    "nan",
    /* strings */
    "\"a\\\"b\"",
    "\"\\/\\b\\f\\n\\r\\t\\\\\"",
    "\"\\x\"",
    "\"\\u12\"",
    "\"\\u12g4\"",
    "\"\\u0000\"",
    "\"\\u0001\"",
    "\"\\uD834\\uDD1E\"",
    "\"\\ud834\\udd1e\"",
    "\"\\uD834\"",
    "\"\\uD834x\"",
    "\"\\uD834\\u0041\"",
    "\"\\uDD1E\"",
    "\"\\uDD1E\\uD834\"",
    "\"\\uD834\\uD834\"",
    "\"\\uD834\\n\"",
    "\"\\uFFFF\"",
    "\"abc",
    "\"a\tb\"",
    "\"a\nb\"",
    "\"\x7f\"",
    "\"\\",
    "\"\\u\"",
    "\"\\uD834\\u\"",
    /* UTF-8 */
    "\"\xc3\xa9\"",
    "\"\xc3\"",
    "\"\xc0\x80\"",
    "\"\xc1\xbf\"",
    "\"\xe0\x80\x80\"",
    "\"\xe0\xa0\x80\"",
    "\"\xed\xa0\x80\"",
    "\"\xef\xbf\xbf\"",
    "\"\xf0\x8f\xbf\xbf\"",
    "\"\xf0\x90\x80\x80\"",
    "\"\xf4\x8f\xbf\xbf\"",
    "\"\xf4\x90\x80\x80\"",
    "\"\xf5\x80\x80\x80\"",
    "\"\xff\"",
    "\"\x80\"",
    "\xc3\xa9",
    "[\"\xe2\x82\"]",
    "\"\xe2\x82\xac\"",
    /* structure */
    "{",
    "}",
    "[",
    "]",
    "{\"a\"}",
    "{\"a\":}",
    "{\"a\":1,}",
    "[1,]",
    "[,1]",
    "{,}",
    "{\"a\" 1}",
    "{1:2}",
    "{a:1}",
    "[1 2]",
    "[1,,2]",
    "{\"a\":1 \"b\":2}",
    "{}}",
    "[]]",
    "{}{}",
    "[][]",
    "",
    " ",
    "{\"a\":1}x",
    "[1]\x01",
    "[\"a\":1]",
    "{\"a\":[}]",
    "{'a':1}",
    /* duplicate keys */
    "{\"a\":1,\"a\":2}",
    "{\"a\":1,\"b\":2,\"a\":3}",
    "{\"a\":1,\"\\u0061\":2}",
    "{\"\\u00e9\":1,\"\xc3\xa9\":2}",
    "{\"\\uD834\\uDD1E\":1,\"\xf0\x9d\x84\x9e\":2}",
    "{\"a\":{\"a\":1},\"b\":{\"a\":1}}",
    "{\"a\":{\"b\":1,\"b\":2}}",
    "[{\"a\":1},{\"a\":1}]",
    "{\"\":1,\"\":2}",
    "{\"\":1,\"a\":2}",
    "{\"ab\":1,\"a\":2,\"abc\":3}",
    "{\"a\\\"\":1,\"a\\u0022\":2}",
    "{\"\\/\":1,\"/\":2}",
    "{\"\\n\":1,\"\\u000a\":2}",
    "{\"a\":1,\"b\":{\"a\":2},\"a\":3}",
};

START_TEST(agrees_with_jansson_at_the_edges)
{
    size_t i;
    int bad = 0;

    for (i = 0; i < sizeof(edges) / sizeof(edges[0]); i++)
        bad += !agree_s(edges[i]);
    /* Embedded NUL bytes, which C strings cannot show above. */
    bad += !agree("\"a\0b\"", 5);
    bad += !agree("[1]\0", 4);
    bad += !agree("\0", 1);
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* jansson counts every value's depth, scalars too, up to 2048. */
START_TEST(agrees_on_depth)
{
    static const size_t depths[] = { 2046, 2047, 2048, 2049, 2050 };
    size_t i, d, n;
    int bad = 0;

    for (i = 0; i < sizeof(depths) / sizeof(depths[0]); i++) {
        char *s = malloc(4 * depths[i] + 16);

        ck_assert_ptr_nonnull(s);
        /* [[...[]...]], [[...[1]...]], {"a":{"a":...{}...}} */
        for (n = 0, d = 0; d < depths[i]; d++)
            s[n++] = '[';
        for (d = 0; d < depths[i]; d++)
            s[n++] = ']';
        bad += !agree(s, n);
        for (n = 0, d = 0; d < depths[i]; d++)
            s[n++] = '[';
        s[n++] = '1';
        for (d = 0; d < depths[i]; d++)
            s[n++] = ']';
        bad += !agree(s, n);
        free(s);
        s = malloc(6 * depths[i] + 16);
        ck_assert_ptr_nonnull(s);
        for (n = 0, d = 0; d < depths[i]; d++) {
            memcpy(s + n, d ? "\"a\":{" : "{", d ? 5 : 1);
            n += d ? 5 : 1;
        }
        for (d = 0; d < depths[i]; d++)
            s[n++] = '}';
        bad += !agree(s, n);
        free(s);
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Lines of records, mutated a byte at a time with the bytes that matter
 * to JSON: every one judged as jansson judges it. */
START_TEST(agrees_with_jansson_on_mutations)
{
    static const char *const seeds[] = {
        "{\"id\":\"r1\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,-2,3.5e1,7]},"
        "\"expected\":\"Bob\",\"options\":{\"moves\":true,\"limits\":null}}",
        "{\"a\":{\"a\":[{\"b\":1,\"c\":\"\\u00e9\\uD834\\uDD1E\"},[]],\"d\":\"\xc3\xa9\"}}",
        "[0,-0,1e5,\"\\\\\",{\"\":false}]",
    };
    static const char alphabet[] = "{}[]\",:\\-+.0123456789eEutrfalsnx \t\r\n\x01\x80\xc3\xa9\xed";
    uint64_t seed = 6;
    char buf[512];
    long i;
    int bad = 0;

    for (i = 0; i < 200000 && bad < 10; i++) {
        const char *from = seeds[i % 3];
        size_t n = strlen(from), k, m = 1 + th_splitmix64(&seed) % 3;

        memcpy(buf, from, n);
        for (k = 0; k < m && n > 0; k++) {
            size_t at = th_splitmix64(&seed) % n;
            char c = alphabet[th_splitmix64(&seed) % (sizeof(alphabet) - 1)];

            switch (th_splitmix64(&seed) % 3) {
            case 0: buf[at] = c; break;
            case 1:
                memmove(buf + at, buf + at + 1, n - at - 1);
                n--;
                break;
            default:
                memmove(buf + at + 1, buf + at, n - at);
                buf[at] = c;
                n++;
            }
        }
        bad += !agree(buf, n);
    }
    ck_assert_int_eq(bad, 0);
}
END_TEST

/* Where: the column cairnd's bad_json names, in characters; the line's
 * last one when it ends too early. */
START_TEST(faults_say_where)
{
    struct cairn_json_fault f;
    enum cairn_json_kind kind;
    const char *cut = "{\"id\":\"bad-json\",\"variant\":\"stone-game\"";

    ck_assert_int_eq(cairn_json_scan(cut, strlen(cut), &kind, &f), -EINVAL);
    ck_assert_uint_eq(f.column, 39);
    ck_assert_int_eq(cairn_json_scan("{\"\xc3\xa9\":01}", 9, &kind, &f), -EINVAL);
    ck_assert_uint_eq(f.column, 6);
    ck_assert_ptr_nonnull(strstr(f.what, "leading zero"));
    ck_assert_int_eq(cairn_json_scan("{\"a\":1,\"a\":2}", 13, &kind, &f), -EINVAL);
    ck_assert_uint_eq(f.offset, 7);
    ck_assert_ptr_nonnull(strstr(f.what, "duplicate"));
    ck_assert_int_eq(cairn_json_scan("[1,2", 4, &kind, &f), -EINVAL);
    ck_assert_uint_eq(f.offset, 4);
    ck_assert_ptr_nonnull(strstr(f.what, "the line ended"));
}
END_TEST

/* Millions of tiny values take no memory at all; keys one offset each,
 * and running out of it is -ENOMEM, never a verdict. */
START_TEST(memory_does_not_grow_with_values)
{
    size_t n = 3u << 20, i, keys = 20000, len = 0;
    char *s = malloc(n + 2), *o = malloc(keys * 16 + 2);
    struct cairn_json_fault f;
    enum cairn_json_kind kind;
    long at;
    int rc;

    ck_assert_ptr_nonnull(s);
    ck_assert_ptr_nonnull(o);
    s[0] = '[';
    for (i = 1; i + 3 <= n; i += 3)
        memcpy(s + i, "{},", 3);
    s[i - 1] = ']';
    if (th_alloc_can_fail()) {
        int fired;

        /* Check's assertions allocate: none while armed. */
        th_alloc_fail_at(1);
        rc = cairn_json_scan(s, i, &kind, &f);
        fired = th_alloc_disarm();
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq(fired, 0);
    } else {
        ck_assert_int_eq(cairn_json_scan(s, i, &kind, &f), 0);
    }
    ck_assert_int_eq(kind, CAIRN_JSON_KIND_ARRAY);
    o[len++] = '{';
    for (i = 0; i < keys; i++)
        len += (size_t)sprintf(o + len, "%s\"k%zu\":0", i ? "," : "", i);
    o[len++] = '}';
    ck_assert_int_eq(cairn_json_scan(o, len, &kind, &f), 0);
    for (at = 1; th_alloc_can_fail(); at++) {
        th_alloc_fail_at(at);
        rc = cairn_json_scan(o, len, &kind, &f);
        if (!th_alloc_disarm()) {
            ck_assert_int_eq(rc, 0);
            break;
        }
        /* qsort_r's own buffer failing is not an error: it sorts in place. */
        ck_assert(rc == -ENOMEM || rc == 0);
    }
    free(s);
    free(o);
}
END_TEST

static Suite *jsonscan_suite(void)
{
    Suite *s = suite_create("jsonscan");
    TCase *tc = tcase_create("scan");

    tcase_add_test(tc, agrees_with_jansson_at_the_edges);
    tcase_add_test(tc, agrees_on_depth);
    tcase_add_test(tc, agrees_with_jansson_on_mutations);
    tcase_add_test(tc, faults_say_where);
    tcase_add_test(tc, memory_does_not_grow_with_values);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed;

    failed = th_run_suite(jsonscan_suite(), CK_ENV, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
