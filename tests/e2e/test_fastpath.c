/*
 * test_fastpath.c - the plain-record reader must never change an answer:
 * every line gives byte-for-byte the same result line (and the same
 * tally) through the fast path as through jansson alone.  The lines: the
 * shipped examples, the fuzz seed corpus, a grammar of record variations,
 * and thousands of random mutations of them.  The plugins: the build's,
 * and the ABI test plugins (tests/plugins/abi_plugins: scalar inputs, arrays of
 * equal length, a 1.0 binary), copied into one directory by main().
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fastparse.h"
#include "harness.h"
#include "plugin_loader.h"
#include "record.h"

static struct cairn_registry reg;
static size_t n_compared, n_fast;

static uint64_t rng_state = 0x0DDBA11CAFEF00Dull;

static uint64_t rng(void)
{
    return th_splitmix64(&rng_state);
}

/* One line through both readers, under one setting; they must agree. */
static void compare_one(const char *line, size_t len, enum cairn_limits limits,
                        const char *default_variant)
{
    struct cairn_record_ctx fast = { .reg = &reg,
                                     .default_limits = limits,
                                     .default_variant = default_variant };
    struct cairn_record_ctx slow = fast;
    struct cairn_scratch s1 = { 0 }, s2 = { 0 };
    struct cairn_buf o1 = { 0 }, o2 = { 0 };
    struct cairn_tally t1, t2;
    struct cairn_fast_rec probe;
    size_t i;

    slow.no_fast_path = 1;
    ck_assert_int_eq(cairn_tally_init(&t1, reg.n_plugins), 0);
    ck_assert_int_eq(cairn_tally_init(&t2, reg.n_plugins), 0);
    ck_assert_int_eq(cairn_record_process(&fast, &s1, 7, line, len, &o1, &t1), 0);
    ck_assert_int_eq(cairn_record_process(&slow, &s2, 7, line, len, &o2, &t2), 0);
    ck_assert_msg(o1.len == o2.len && memcmp(o1.data, o2.data, o1.len) == 0,
                  "the readers disagree on [%.*s]:\n  fast:    %.*s  jansson: %.*s", (int)len, line,
                  (int)o1.len, o1.data, (int)o2.len, o2.data);
    ck_assert(t1.records == t2.records && t1.ok == t2.ok && t1.matches == t2.matches &&
              t1.mismatches == t2.mismatches);
    for (i = 0; i < CAIRN_CODE_COUNT; i++)
        ck_assert(t1.errors[i] == t2.errors[i]);
    for (i = 0; i < t1.n_variants; i++)
        ck_assert(t1.variant_ok[i] == t2.variant_ok[i] && t1.variant_err[i] == t2.variant_err[i]);
    n_compared++;
    if (cairn_fast_parse(line, len, &probe, &s1) == 1)
        n_fast++;
    cairn_tally_free(&t1);
    cairn_tally_free(&t2);
    cairn_scratch_free(&s1);
    cairn_scratch_free(&s2);
    cairn_buf_free(&o1);
    cairn_buf_free(&o2);
}

static void compare(const char *line, size_t len)
{
    compare_one(line, len, CAIRN_LIMITS_OFFICIAL, NULL);
    compare_one(line, len, CAIRN_LIMITS_EXTENDED, "1406");
}

static void compare_str(const char *line)
{
    compare(line, strlen(line));
}

static void compare_file_lines(const char *path)
{
    FILE *f = fopen(path, "rb");
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;

    ck_assert_msg(f != NULL, "cannot open %s", path);
    while ((n = getline(&line, &cap, f)) > 0) {
        if (line[n - 1] == '\n')
            n--;
        compare(line, (size_t)n);
    }
    free(line);
    fclose(f);
}

static void compare_dir(const char *dir, const char *suffix)
{
    DIR *d = opendir(dir);
    struct dirent *e;
    char path[4096];
    size_t files = 0;

    ck_assert_msg(d != NULL, "cannot open %s", dir);
    while ((e = readdir(d)) != NULL) {
        size_t n = strlen(e->d_name), m = strlen(suffix);
        if (e->d_name[0] == '.' || n < m || strcmp(e->d_name + n - m, suffix) != 0)
            continue;
        snprintf(path, sizeof(path), "%s/%s", dir, e->d_name);
        compare_file_lines(path);
        files++;
    }
    closedir(d);
    ck_assert_uint_gt(files, 0);
}

START_TEST(shipped_examples_and_seeds_agree)
{
    char dir[4096];
    const char *src = getenv("CAIRN_TEST_SOURCE_DIR");

    ck_assert_ptr_nonnull(src);
    snprintf(dir, sizeof(dir), "%s/examples", src);
    compare_dir(dir, ".jsonl");
    snprintf(dir, sizeof(dir), "%s/fuzz/corpus/record", src);
    compare_dir(dir, "");
}
END_TEST

/* Hand-picked lines on the edge of what the fast reader takes. */
START_TEST(edge_cases_agree)
{
    static const char *const lines[] = {
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}",
        " { \"input\" : { \"piles\" : [ 5 , 3 , 4 , 5 ] } , \"variant\" : \"877\" } ",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":-0}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[-0,3]},\"options\":{\"limits\":"
        "\"extended\"}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[9223372036854775807]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[-9223372036854775808]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[9223372036854775808]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[01]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1.0]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1e2]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1 2]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"piles\":[1]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1],\"piles\":[2]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1],\"stoneValue\":[2]}}",
        "{\"variant\":\"stone-game-iii\",\"variant\":\"877\",\"input\":{\"stoneValue\":[1]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"input\":{}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"id\":null}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"id\":true,\"expected\":"
        "\"Alice\"}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"id\":2.5}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"id\":\"a\\\"b\"}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"id\":\"caf\xc3\xa9\"}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"id\":[1]}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"expected\":\"Bob\"}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"expected\":\"bob\"}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1]},\"expected\":1}",
        "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},\"expected\":8}",
        "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},\"expected\":9}",
        "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},\"expected\":true}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":false}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":null}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"moves\":true,"
        "\"limits\":\"official\"}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"moves\":1}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"moves\":false}"
        "}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]},\"options\":{\"limits\":"
        "\"official\"}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"limits\":"
        "\"huge\"}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"moves\":true,"
        "\"moves\":false}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"colour\":1}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"comment\":\"hi\"}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,4]}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[0,3]}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[501,3]}}",
        "{\"variant\":\"\",\"input\":{\"piles\":[1]}}",
        "{\"variant\":\"stone-game-"
        "vvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvvv\""
        ",\"input\":{\"piles\":[1]}}",
        "{\"variant\":\"stone-game\",\"input\":{"
        "\"xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"
        "xxxxxx\":[1]}}",
        "{\"input\":{\"piles\":[5,3,4,5]}}",
        "{\"variant\":\"stone-game\"}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}} x",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}",
        "{}",
        "[]",
        "\"s\"",
        "{\"variant\":\"stone-game\"\t,\r\"input\":{\"piles\":[5,3,4,5]}}",
        "{\"variant\":\"stone\\u002dgame\",\"input\":{\"piles\":[5,3,4,5]}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"id\":\"\x7f\"}",
        /* ABI 1.1: scalar inputs, arrays of equal length */
        "{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3},\"options\":{\"moves\":true}}",
        "{\"variant\":\"count-down\",\"input\":{ \"k\" : 3 , \"n\" : -0 }}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":1001,\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":9223372036854775808,\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":17.0,\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":1e1,\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":\"17\",\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":true,\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":[17],\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":[],\"k\":[3]}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":17}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3,\"n\":4}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":2,\"k\":3}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":-5,\"k\":3},\"options\":{\"limits\":"
        "\"extended\"}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":4}}",
        "{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[1,3],\"bobValues\":[2,1]},"
        "\"expected\":1}",
        "{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[1,3],\"bobValues\":[2,1,5]}}",
        "{\"variant\":\"pick-any\",\"input\":{\"bobValues\":[2],\"aliceValues\":[1,300]}}",
        "{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[],\"bobValues\":[]}}",
        "{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[1,3]}}",
        "{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":7,\"bobValues\":[2,1,5]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"moves\":true}"
        "}",
        "{\"variant\":\"take12\",\"input\":{\"stones\":[3,-1,-1,5]},\"options\":{\"moves\":true}}",
        /* options.analysis and options.play (moves of every shape) */
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[\"L\","
        "\"R\"],\"analysis\":true}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[ ],"
        "\"analysis\":false}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[\"X\","
        "\"LL\",1,{\"split\":1,\"keep\":\"L\"}]}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[1]}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[{\"split\":"
        "1,\"keep\":\"L\"}]}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[\"a-very-"
        "long-move-that-is-no-side-at-all-0123456789\"]}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[\"L\"],"
        "\"play\":[\"R\"]}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"analysis\":1}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"analysis\":true,"
        "\"analysis\":true}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":\"L\"}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[\"L\",]}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[null]}}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[3,1,"
        "1]}}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[1,4]}"
        "}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[-1]}}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[-0,"
        "2147483648,9223372036854775807]}}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[1.0]}}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[\"1\"]"
        "}}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[true]}"
        "}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[{"
        "\"split\":1,\"keep\":\"L\"}]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[{"
        "\"split\":3,\"keep\":\"L\"},{ \"keep\" : \"R\" , \"split\" : 1 }]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[{"
        "\"split\":3,\"keep\":\"L\",\"x\":1}]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[{"
        "\"split\":3,\"split\":2,\"keep\":\"L\"}]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[{"
        "\"split\":3}]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[{"
        "\"split\":-1,\"keep\":\"L\"}]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[{"
        "\"split\":3,\"keep\":\"M\"}]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[{"
        "}]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[3]"
        "}}",
        /* keys the record does not use: scalars and arrays of them */
        "{\"variant\":\"877\",\"moves\":[1,-2,[3,[4,[]]],\"a\",true,false,null,-0],\"input\":{"
        "\"piles\":[5,3,4,5]},\"n\":7,\"s\":\"x\"}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":1,\"a\":2}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":{}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":[1.5]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":[1e400]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":[99999999999999999999]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":[1,]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":[tru]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":[\"\\n\"]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":\"\xff\"}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[["
        "[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"a\":[[[[[[[[[[[[[[[[[[[[[[[[[["
        "[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"k1\":1,\"k2\":1,\"k3\":1,\"k4\":"
        "1,\"k5\":1,\"k6\":1,\"k7\":1,\"k8\":1,\"k9\":1,\"k10\":1,\"k11\":1,\"k12\":1,\"k13\":1,"
        "\"k14\":1,\"k15\":1,\"k16\":1,\"k17\":1,\"k1\":2}",
    };
    size_t i;

    for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        compare_str(lines[i]);
}
END_TEST

/* Random mutations of plain records: flipped, dropped, doubled and
 * inserted bytes, from characters that matter to JSON. */
/* Integers of every length, 1 to 21 digits, signed or not, each followed
 * by whatever may follow one (or the end of the array near the end of the
 * line): the reader takes up to eight digits at once, and a number must
 * read the same whichever way its digits were taken. */
/* A line cut anywhere, and the same keys given twice: the plain reader
 * must hand each to jansson (or end the same way), never read past the
 * cut nor take the second value. */
START_TEST(cut_lines_and_repeated_keys_agree)
{
    static const char *const whole[] = {
        (" {\t\"variant\" :\r\"877\", \"input\":{\"piles\":[5, -3,4 ,05]},\"id\":-12,"
         "\"expected\":true,\"options\":{\"limits\":\"extended\",\"moves\":false}} "),
        "{\"variant\":\"stone-game-iv\",\"input\":{\"n\":-7}}\n", /* whitespace, to jansson */
        "{\"variant\":\"1686\",\"input\":{\"aliceValues\":[1,2],\"bobValues\":[3,1]}}",
    };
    static const char *const twice[] = {
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"limits\":"
        "\"official\",\"limits\":\"extended\"}}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":true,"
        "\"expected\":false}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{},\"options\":{}}",
        "{\"variant\":\"877\",\"input\":{\"a\":[1],\"b\":[1],\"c\":[1],\"d\":[1],\"e\":[1],"
        "\"f\":[1],\"g\":[1],\"h\":[1],\"i\":[1]}}",
    };
    size_t i, n;

    for (i = 0; i < sizeof(whole) / sizeof(whole[0]); i++)
        for (n = 0; n <= strlen(whole[i]); n++)
            compare(whole[i], n);
    for (i = 0; i < sizeof(twice) / sizeof(twice[0]); i++)
        compare(twice[i], strlen(twice[i]));
    /* More values than the reader's first buffer holds. */
    {
        struct cairn_buf b = { 0 };

        ck_assert_int_eq(cairn_buf_puts(&b, "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1"),
                         0);
        for (i = 1; i < 1500; i++)
            ck_assert_int_eq(cairn_buf_puts(&b, ",-2"), 0);
        ck_assert_int_eq(cairn_buf_puts(&b, "]}}"), 0);
        compare(b.data, b.len);
        cairn_buf_free(&b);
    }
}
END_TEST

START_TEST(integers_of_every_length_agree)
{
    static const char *const after[] = { "", ",7", ".5", "e3", "x", " ", "0" };
    char num[32], buf[256];
    size_t digits, round, a;

    for (digits = 1; digits <= 21; digits++) {
        for (round = 0; round < 60; round++) {
            size_t k, len;

            /* The extremes of each length, then random ones. */
            for (k = 0; k < digits; k++)
                num[k] = round == 0   ? (k == 0 ? '1' : '0')
                         : round == 1 ? '9'
                                      : (char)('0' + (k == 0 ? 1 + rng() % 9 : rng() % 10));
            num[digits] = '\0';
            if (round == 2 && digits == 19)
                memcpy(num, "9223372036854775807", 20);
            if (round == 3 && digits == 19)
                memcpy(num, "9223372036854775808", 20);
            if (round == 4 && digits == 20)
                memcpy(num, "18446744073709551616", 21);
            for (a = 0; a < sizeof(after) / sizeof(after[0]); a++) {
                len = (size_t)snprintf(buf, sizeof(buf),
                                       "{\"variant\":\"stone-game-iii\",\"input\":{"
                                       "\"stoneValue\":[%s%s%s]},\"options\":{\"limits\":"
                                       "\"extended\"}}",
                                       round % 2 ? "-" : "", num, after[a]);
                compare(buf, len);
                /* The number last on its line: fewer than eight bytes after it. */
                len = (size_t)snprintf(buf, sizeof(buf), "{\"id\":%s%s%s}", round % 2 ? "-" : "",
                                       num, after[a]);
                compare(buf, len);
            }
        }
    }
}
END_TEST

/* Integer arrays of every shape the reader may meet, each element and
 * separator drawn at random, the array followed by tails of every length
 * (so each element is read both with and without 16 bytes left after
 * it): the reader takes "-1234567," in one step, and must agree with
 * jansson on everything else, leading zeros, spaces and stray commas
 * included. */
START_TEST(int_arrays_of_every_shape_agree)
{
    static const char *const odd[] = { "0",        "-0",       "01",  "-01", "00", "-",
                                       "12345678", "-9999999", "1.5", "2e3", "" };
    static const char *const sep[] = { ",", ",", ",", ",", ", ", " ,", ",,", " " };
    static const char *const end[] = { "]", "]", " ]", ",]" };
    char buf[1024];
    int round;

    for (round = 0; round < 20000; round++) {
        size_t len, n = 1 + rng() % 8, i, tail = rng() % 40;

        len = (size_t)snprintf(buf, sizeof(buf),
                               "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[");
        for (i = 0; i < n; i++) {
            if (rng() % 6 == 0)
                len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s",
                                        odd[rng() % (sizeof(odd) / sizeof(odd[0]))]);
            else
                len +=
                    (size_t)snprintf(buf + len, sizeof(buf) - len, "%s%llu", rng() % 2 ? "-" : "",
                                     (unsigned long long)(rng() % 10000000));
            if (i + 1 < n)
                len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s",
                                        rng() % 10 ? ","
                                                   : sep[rng() % (sizeof(sep) / sizeof(sep[0]))]);
        }
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "%s}",
                                rng() % 10 ? "]" : end[rng() % (sizeof(end) / sizeof(end[0]))]);
        /* A tail of some length: "options" pads it, "id" cuts it short. */
        if (tail > 20)
            len += (size_t)snprintf(buf + len, sizeof(buf) - len, ",\"id\":\"%.*s\"",
                                    (int)(tail - 20), "abcdefghijklmnopqrst");
        else if (tail > 10)
            len += (size_t)snprintf(buf + len, sizeof(buf) - len,
                                    ",\"options\":{\"limits\":\"extended\"}");
        len += (size_t)snprintf(buf + len, sizeof(buf) - len, "}");
        compare(buf, len);
    }
}
END_TEST

START_TEST(random_mutations_agree)
{
    static const char *const seeds[] = {
        "{\"id\":\"r1\",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":"
        "true}",
        "{\"variant\":\"1140\",\"input\":{\"piles\":[1,2,3,4,5,100]},\"options\":{\"moves\":true}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,-9]},\"id\":42,"
        "\"options\":{\"limits\":\"extended\"}}",
        "{\"variant\":\"count-down\",\"input\":{\"n\":17,\"k\":3},\"options\":{\"moves\":true}}",
        "{\"variant\":\"pick-any\",\"input\":{\"aliceValues\":[2,4,3],\"bobValues\":[1,6,7]},"
        "\"expected\":-1}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]},\"options\":{\"play\":[3,1],"
        "\"analysis\":true},\"seen\":[1,[2],\"x\",null]}",
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"options\":{\"play\":[\"L\","
        "\"R\"]}}",
        "{\"variant\":\"split-keep\",\"input\":{\"row\":[6,2,3,4,5,5]},\"options\":{\"play\":[{"
        "\"split\":3,\"keep\":\"L\"}]}}",
    };
    static const char alphabet[] = "{}[]\",:-0123456789eE.tfnul \\a";
    char buf[512];
    size_t round;

    for (round = 0; round < 10000; round++) {
        const char *seed = seeds[rng() % (sizeof(seeds) / sizeof(seeds[0]))];
        size_t len = strlen(seed), edits = 1 + rng() % 3, k;

        memcpy(buf, seed, len);
        for (k = 0; k < edits && len > 2 && len < sizeof(buf) - 2; k++) {
            size_t at = rng() % len;
            char ch = alphabet[rng() % (sizeof(alphabet) - 1)];
            switch (rng() % 3) {
            case 0: buf[at] = ch; break;
            case 1:
                memmove(buf + at, buf + at + 1, len - at - 1);
                len--;
                break;
            default:
                memmove(buf + at + 1, buf + at, len - at);
                buf[at] = ch;
                len++;
            }
        }
        compare(buf, len);
    }
    /* The fast reader must really have been exercised. */
    ck_assert_msg(n_fast * 10 > n_compared, "only %zu of %zu lines took the fast path", n_fast,
                  n_compared);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("fastpath");
    TCase *tc = tcase_create("same_answers_as_jansson");
    int failed;
    const char *real = getenv("CAIRN_TEST_PLUGIN_DIR");
    const char *abi = getenv("CAIRN_TEST_ABI_PLUGIN_DIR");
    char root[] = "/tmp/cairn-test-fastpath-XXXXXX";
    char dir[PATH_MAX];

    if (real == NULL || abi == NULL || mkdtemp(root) == NULL) {
        fprintf(stderr, "run through meson test (CAIRN_TEST_*_PLUGIN_DIR), with /tmp writable\n");
        return 2;
    }
    snprintf(dir, sizeof(dir), "%s/plugins", root);
    if (mkdir(dir, 0755) != 0 || chmod(dir, 0755) != 0 || th_copy_plugins(real, dir) != 0 ||
        th_copy_plugins(abi, dir) != 0 || cairn_registry_load(&reg, dir) != 0) {
        fprintf(stderr, "cannot load the plugins of %s and %s into %s\n", real, abi, dir);
        th_rm_tree(root);
        return 2;
    }
    tcase_add_test(tc, shipped_examples_and_seeds_agree);
    tcase_add_test(tc, edge_cases_agree);
    tcase_add_test(tc, random_mutations_agree);
    tcase_add_test(tc, integers_of_every_length_agree);
    tcase_add_test(tc, int_arrays_of_every_shape_agree);
    tcase_add_test(tc, cut_lines_and_repeated_keys_agree);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 0);
    cairn_registry_free(&reg);
    th_rm_tree(root);
    return failed == 0 ? 0 : 1;
}
