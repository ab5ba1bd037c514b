/*
 * test_lib.c - core/lib/ on its own: the text every result line, file
 * name and log line is made of (util.c), the arena jansson parses records
 * in (arena.c), Prometheus labels (prom_label.c) and the log (log.c).
 *
 * What reaches users through these is tested where it reaches them
 * (test_record, test_metrics, test_daemon); here, the edges a record or a
 * job rarely brings: every kind of bad UTF-8, sizes past SIZE_MAX, a
 * descriptor left non-blocking, allocations failing (alloc_fail.h).
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "alloc_fail.h"
#include "arena.h"
#include "inflight.h"
#include "log.h"
#include "namemap.h"
#include "prom_label.h"
#include "tmpfile.h"
#include "util.h"

/* ---- JSON strings --------------------------------------------------------- */

/* s (n bytes) as cairn_buf_json_string() writes it, NUL-terminated. */
static char *json_text(const char *s, size_t n)
{
    struct cairn_buf b = { 0 };

    ck_assert_int_eq(cairn_buf_json_string(&b, s, n), 0);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    return b.data;
}

/* Every byte string becomes a JSON string a strict parser takes: valid
 * UTF-8 as it is, each byte that is not part of it as U+FFFD. */
START_TEST(json_strings_are_always_valid_json)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "plain", "\"plain\"" },
        { "\"\\\n\r\t", "\"\\\"\\\\\\n\\r\\t\"" },
        { "\x01\x1f\b\f", "\"\\u0001\\u001f\\u0008\\u000c\"" },
        { "\x7f", "\"\x7f\"" },
        { "\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xef\xbf\xbf \xf4\x8f\xbf\xbf",
          "\"\xc3\xa9 \xe2\x82\xac \xf0\x9d\x84\x9e \xef\xbf\xbf \xf4\x8f\xbf\xbf\"" },
        /* Overlong forms, surrogates, past U+10FFFF, bad leads, cut short. */
        { "\xc0\x80", "\"\\ufffd\\ufffd\"" },
        { "\xc1\xbf", "\"\\ufffd\\ufffd\"" },
        { "\xe0\x80\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
        { "\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"" },
        { "\xed\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\"" },
        { "\xf0\x8f\xbf\xbf", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
        { "\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"" },
        { "\xf5\x80", "\"\\ufffd\\ufffd\"" },
        { "\xff", "\"\\ufffd\"" },
        { "a\xe2\x82", "\"a\\ufffd\\ufffd\"" },
        { "\xe2\x28\xa1", "\"\\ufffd(\\ufffd\"" },
        { "\x80z", "\"\\ufffdz\"" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = json_text(cases[i].in, strlen(cases[i].in));

        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: %s, not %s", i, got,
                      cases[i].want);
        free(got);
    }
}
END_TEST

/* The same on random bytes, checked against jansson: it parses every
 * output, and gives the input back whenever the input was UTF-8. */
START_TEST(json_strings_round_trip_through_jansson)
{
    uint64_t x = 0x9e3779b97f4a7c15u;
    int round;

    for (round = 0; round < 20000; round++) {
        char in[12], *got;
        size_t n = (size_t)(x % sizeof(in)), k;
        json_t *parsed, *direct;

        for (k = 0; k < n; k++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            /* Mostly bytes around the UTF-8 boundaries. */
            in[k] = (char)(x & 1 ? 0x80 + (x >> 8) % 0x78 : (x >> 8) % 0x100);
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        got = json_text(in, n);
        parsed = json_loads(got, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
        ck_assert_msg(parsed != NULL && json_is_string(parsed), "not JSON: %s", got);
        direct = json_stringn(in, n); /* NULL unless valid UTF-8 */
        if (direct != NULL)
            ck_assert_msg(json_equal(parsed, direct), "changed: %s", got);
        else
            ck_assert_msg(memmem(json_string_value(parsed), json_string_length(parsed),
                                 "\xef\xbf\xbd", 3) != NULL,
                          "no U+FFFD for bad UTF-8: %s", got);
        json_decref(direct);
        json_decref(parsed);
        free(got);
    }
}
END_TEST

/* ---- names, log text, short names ----------------------------------------- */

/* A job's name as text, injectively: a backslash is doubled, a byte not
 * part of UTF-8 is \xNN, the rest is kept. */
START_TEST(file_names_escape_injectively)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "job-1.jsonl", "job-1.jsonl" },
        { "a\\b", "a\\\\b" },
        { "\\xff", "\\\\xff" },
        { "\xff", "\\xff" },
        { "caf\xc3\xa9\n", "caf\xc3\xa9\n" },
        { "\xc3", "\\xc3" },
        { "", "" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = cairn_name_escape(cases[i].in);

        ck_assert_ptr_nonnull(got);
        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: %s", i, got);
        free(got);
    }
}
END_TEST

/* Text for a log or a terminal: no control character gets through, C0,
 * DEL or C1, nor a byte that is not UTF-8. */
START_TEST(log_text_is_printable)
{
    static const struct {
        const char *in, *want;
    } cases[] = {
        { "job 7: done", "job 7: done" },
        { "a\nb\r\x1b[2J\x7f", "a\\x0ab\\x0d\\x1b[2J\\x7f" },
        { "\xc2\x85\xc2\x9f\xc2\xa0", "\\u0085\\u009f\xc2\xa0" },
        { "\xe2\x82\xac\xff", "\xe2\x82\xac\\xff" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *got = cairn_text_printable(cases[i].in);

        ck_assert_ptr_nonnull(got);
        ck_assert_msg(strcmp(got, cases[i].want) == 0, "case %zu: %s", i, got);
        free(got);
    }
}
END_TEST

/* A name quoted in a message is cut at 64 bytes, never inside a UTF-8
 * character. */
START_TEST(short_names_cut_between_characters)
{
    char long_ascii[80], long_utf8[80], out[72];

    memset(long_ascii, 'a', 70);
    long_ascii[70] = '\0';
    ck_assert_ptr_eq(cairn_short_name("short", out), "short");
    long_ascii[64] = '\0';
    ck_assert_ptr_eq(cairn_short_name(long_ascii, out), long_ascii);
    long_ascii[64] = 'a';
    ck_assert_str_eq(cairn_short_name(long_ascii, out),
                     "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa...");
    /* 63 ASCII bytes, then "é": byte 64 is é's second byte. */
    memset(long_utf8, 'b', 63);
    memcpy(long_utf8 + 63, "\xc3\xa9zzz", 6);
    ck_assert_uint_eq(strlen(cairn_short_name(long_utf8, out)), 63 + 3);
    ck_assert_int_eq(memcmp(out + 63, "...", 4), 0);
    /* Not UTF-8 at all: nothing is a safe cut but the start. */
    memset(long_utf8, 0x80, 70);
    long_utf8[70] = '\0';
    ck_assert_str_eq(cairn_short_name(long_utf8, out), "...");
}
END_TEST

/* ---- buffers and sizes ---------------------------------------------------- */

/* A size that cannot be had is refused before anything is touched. */
START_TEST(sizes_past_size_max_are_refused)
{
    struct cairn_buf b = { 0 };
    void *p = NULL;
    size_t cap = 0;

    ck_assert_int_eq(cairn_buf_puts(&b, "kept"), 0);
    ck_assert_int_eq(cairn_buf_reserve(&b, 10), 0); /* room already */
    ck_assert_int_eq(cairn_buf_reserve(&b, SIZE_MAX - 2), -ENOMEM);
    ck_assert_uint_eq(b.len, 4);
    ck_assert_int_eq(memcmp(b.data, "kept", 4), 0);
    cairn_buf_free(&b);
    ck_assert_ptr_null(b.data);

    ck_assert_int_eq(cairn_grow(&p, &cap, SIZE_MAX / 8 + 1, 8), -ENOMEM);
    ck_assert_ptr_null(p);
    ck_assert_int_eq(cairn_grow(&p, &cap, 10, 8), 0);
    ck_assert_uint_eq(cap, 10);
    ck_assert_int_eq(cairn_grow(&p, &cap, 4, 8), 0); /* already room: kept */
    ck_assert_uint_eq(cap, 10);
    free(p);
}
END_TEST

/* Formatted appends of any length, each kept whole. */
START_TEST(printf_appends_grow_the_buffer)
{
    struct cairn_buf b = { 0 };
    char big[1000];
    int i;

    memset(big, 'x', sizeof(big) - 1);
    big[sizeof(big) - 1] = '\0';
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(cairn_buf_printf(&b, "%d:%s;", i, big), 0);
    ck_assert_uint_eq(b.len, 3 * (2 + 999 + 1));
    ck_assert_int_eq(strncmp(b.data + 2 * 1002, "2:xxx", 5), 0);
    ck_assert_int_eq(b.data[b.len], '\0');
    cairn_buf_free(&b);
}
END_TEST

/* Out of memory in any of them: -ENOMEM or NULL, never text cut short.
 * The inputs outgrow a first buffer, so each escape's append meets a
 * failing allocation somewhere. */
static void long_text(char *out, size_t copies, const char *unit)
{
    out[0] = '\0';
    while (copies-- > 0)
        strcat(out, unit);
}

START_TEST(out_of_memory_leaves_no_text_cut_short)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    static const char *const units[] = { "\xff", "\n", "a\xff", "\"b",
                                         ("\xff\xc2\x85"
                                          "aaaa") };
    char in[800], *want[3][5];
    size_t u, k;
    long n;

    for (u = 0; u < 5; u++) {
        struct cairn_buf b = { 0 };

        long_text(in, 80, units[u]);
        ck_assert_int_eq(cairn_buf_json_string(&b, in, strlen(in)), 0);
        ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
        want[0][u] = b.data;
        want[1][u] = cairn_name_escape(in);
        want[2][u] = cairn_text_printable(in);
    }
    for (n = 1; n < 12; n++)
        for (u = 0; u < 5; u++) {
            struct cairn_buf b = { 0 }, label = { 0 };
            char *esc, *pr;
            void *grown = NULL;
            size_t cap = 0;
            int rc, rc_label, rc_grow;

            long_text(in, 80, units[u]);
            th_alloc_fail_at(n);
            rc = cairn_buf_json_string(&b, in, strlen(in));
            th_alloc_fail_at(n);
            rc_label = cairn_prom_label_put(&label, "name", in);
            th_alloc_fail_at(n);
            esc = cairn_name_escape(in);
            th_alloc_fail_at(n);
            pr = cairn_text_printable(in);
            th_alloc_fail_at(n);
            rc_grow = cairn_grow(&grown, &cap, 100, 8);
            th_alloc_disarm();
            ck_assert(rc == 0 || rc == -ENOMEM);
            if (rc == 0) {
                ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
                ck_assert_str_eq(b.data, want[0][u]);
            }
            ck_assert(rc_label == 0 || rc_label == -ENOMEM);
            ck_assert(esc == NULL || strcmp(esc, want[1][u]) == 0);
            ck_assert(pr == NULL || strcmp(pr, want[2][u]) == 0);
            ck_assert(rc_grow == 0 ? cap == 100 && grown != NULL
                                   : rc_grow == -ENOMEM && cap == 0 && grown == NULL);
            free(grown);
            free(esc);
            free(pr);
            cairn_buf_free(&b);
            cairn_buf_free(&label);
        }
    for (k = 0; k < 3; k++)
        for (u = 0; u < 5; u++)
            free(want[k][u]);
}
END_TEST

/* ---- writing whole buffers -------------------------------------------------- */

static void on_alarm(int sig)
{
    (void)sig;
}

/* All of it, through a reader slower than the pipe, whether the
 * descriptor was left blocking or non-blocking, with signals arriving
 * all the while (no SA_RESTART: each interrupts a write or a poll); a
 * closed descriptor is an error. */
START_TEST(write_all_writes_everything_whatever_interrupts_it)
{
    static char data[1 << 20];
    struct sigaction sa = { .sa_handler = on_alarm };
    struct itimerval every = { { 0, 2000 }, { 0, 2000 } }, off = { { 0, 0 }, { 0, 0 } };
    int nonblocking, fds[2], status;
    pid_t pid;

    for (size_t i = 0; i < sizeof(data); i++)
        data[i] = (char)('a' + i % 26);
    ck_assert_int_eq(sigaction(SIGALRM, &sa, NULL), 0);
    for (nonblocking = 0; nonblocking < 2; nonblocking++) {
        ck_assert_int_eq(pipe(fds), 0);
        pid = fork();
        ck_assert_int_ge(pid, 0);
        if (pid == 0) {
            static char got[sizeof(data)];
            size_t n = 0;
            ssize_t r;

            close(fds[1]);
            usleep(50 * 1000); /* let the pipe fill */
            while ((r = read(fds[0], got + n, 4096)) > 0) {
                n += (size_t)r;
                if (n % (64 << 10) == 0)
                    usleep(1000); /* slower than the writer */
            }
            _exit(n == sizeof(data) && memcmp(got, data, n) == 0 ? 0 : 1);
        }
        close(fds[0]);
        if (nonblocking)
            ck_assert_int_eq(fcntl(fds[1], F_SETFL, O_NONBLOCK), 0);
        ck_assert_int_eq(setitimer(ITIMER_REAL, &every, NULL), 0);
        ck_assert_int_eq(cairn_write_all(fds[1], data, sizeof(data)), 0);
        ck_assert_int_eq(setitimer(ITIMER_REAL, &off, NULL), 0);
        close(fds[1]);
        ck_assert_int_eq(waitpid(pid, &status, 0), pid);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
                      "the reader saw other bytes (%s)", nonblocking ? "non-blocking" : "blocking");
    }
    ck_assert_int_eq(cairn_write_all(fds[1], "x", 1), -EBADF);
}
END_TEST

/* ---- listing a directory ------------------------------------------------------ */

static int count_entry(void *data, const char *name)
{
    int *n = data;

    ck_assert(strcmp(name, ".") != 0 && strcmp(name, "..") != 0);
    return ++*n == 2 ? 42 : 0; /* stop at the second */
}

/* Every entry but . and .., until the callback says stop (its value
 * returned); a descriptor that is not a directory is an error. */
START_TEST(dir_each_lists_and_stops)
{
    char dir[] = "/tmp/cairn-test-lib-XXXXXX", path[64];
    int fd, n = 0, i;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/f%d", dir, i);
        ck_assert_int_ge(fd = open(path, O_CREAT | O_WRONLY, 0644), 0);
        close(fd);
    }
    ck_assert_int_ge(fd = open(dir, O_RDONLY | O_DIRECTORY), 0);
    ck_assert_int_eq(cairn_dir_each(fd, count_entry, &n), 42);
    ck_assert_int_eq(n, 2);
    close(fd);
    snprintf(path, sizeof(path), "%s/f0", dir);
    ck_assert_int_ge(fd = open(path, O_RDONLY), 0);
    ck_assert_int_eq(cairn_dir_each(fd, count_entry, &n), -ENOTDIR);
    close(fd);
    for (i = 0; i < 3; i++) {
        snprintf(path, sizeof(path), "%s/f%d", dir, i);
        unlink(path);
    }
    rmdir(dir);
}
END_TEST

/* ---- the arena ------------------------------------------------------------------ */

/* jansson's allocations come from the arena between begin and end, up
 * to the budget; a value bigger than a block gets one of its own; frees
 * of what the arena did not hand out still free; after a huge record
 * the arena keeps no more than a few blocks. */
START_TEST(arena_serves_jansson_within_its_budget)
{
    struct cairn_arena a = { 0 };
    json_t *before, *v;
    char *big = malloc(3u << 20);
    size_t i;

    ck_assert_ptr_nonnull(big);
    before = json_string("made before the arena"); /* malloc'd */
    cairn_arena_install();
    ck_assert_int_eq(cairn_arena_installed(), 1);

    cairn_arena_begin(&a, 0);
    v = json_loads("[1, {\"a\": \"b\"}, [2.5]]", 0, NULL);
    ck_assert_ptr_nonnull(v);
    ck_assert_uint_gt(a.used, 0);
    json_decref(before); /* not the arena's: freed for real */
    cairn_arena_end(&a);

    /* A string past a block (1 MiB), and many small values. */
    memset(big, 'q', (3u << 20) - 1);
    big[(3u << 20) - 1] = '\0';
    for (i = 0; i < 2; i++) {
        cairn_arena_begin(&a, 0);
        v = json_string(big);
        ck_assert_ptr_nonnull(v);
        ck_assert_uint_eq(json_string_length(v), (3u << 20) - 1);
        v = json_loads("[[1],[2],[3],[4]]", 0, NULL);
        ck_assert_ptr_nonnull(v);
        cairn_arena_end(&a);
    }

    /* Past the budget: the allocation fails and the arena says so. */
    cairn_arena_begin(&a, 4096);
    v = json_string(big);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(a.exceeded, 1);
    cairn_arena_end(&a);
    cairn_arena_begin(&a, 4096);
    ck_assert_int_eq(a.exceeded, 0);
    ck_assert_ptr_nonnull(json_loads("[1,2,3]", 0, NULL));
    cairn_arena_end(&a);
    /* ... and so do many small ones that add up past it. */
    {
        struct cairn_buf many = { 0 };

        ck_assert_int_eq(cairn_buf_puts(&many, "[0"), 0);
        for (i = 1; i < 400; i++)
            ck_assert_int_eq(cairn_buf_printf(&many, ",%zu", i), 0);
        ck_assert_int_eq(cairn_buf_append(&many, "]", 2), 0);
        cairn_arena_begin(&a, 4096);
        ck_assert_ptr_null(json_loads(many.data, 0, NULL));
        ck_assert_int_eq(a.exceeded, 1);
        ck_assert_uint_le(a.used, 4096);
        cairn_arena_end(&a);
        cairn_buf_free(&many);
    }

    /* Freed while still in use, the arena lets go of the thread. */
    cairn_arena_begin(&a, 0);
    cairn_arena_free(&a);
    v = json_string("malloc'd again");
    ck_assert_ptr_nonnull(v);
    json_decref(v);
    free(big);
}
END_TEST

/* A block that cannot be had is an allocation that fails, not a crash. */
START_TEST(arena_out_of_memory_fails_the_allocation)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    struct cairn_arena a = { 0 };
    json_t *v;

    cairn_arena_install();
    cairn_arena_begin(&a, 0);
    th_alloc_fail_at(1);
    v = json_integer(7);
    ck_assert_int_eq(th_alloc_disarm(), 1);
    ck_assert_ptr_null(v);
    ck_assert_int_eq(a.exceeded, 0); /* memory, not the budget */
    ck_assert_ptr_nonnull(json_integer(8));
    cairn_arena_end(&a);
    cairn_arena_free(&a);
}
END_TEST

/* ---- Prometheus labels ------------------------------------------------------------ */

START_TEST(label_names_follow_prometheus)
{
    static const char *const good[] = { "instance", "Zone", "_x9", "a_B_1" };
    static const char *const bad[] = { "", "9a", "a-b", "a.b", "\xc3\xa9", "__x", "le", "code" };
    const char *why;
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++)
        ck_assert_msg(cairn_prom_label_check(good[i], &why) == 0, "%s refused", good[i]);
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        ck_assert_msg(cairn_prom_label_check(bad[i], &why) == -EINVAL, "%s taken", bad[i]);
        ck_assert_ptr_nonnull(why);
    }
}
END_TEST

/* ---- the log ----------------------------------------------------------------------- */

/* What cairn_log writes to stderr, in a child so the test's own stderr
 * is left alone.  journal: JOURNAL_STREAM names stderr; progress: a
 * progress line is on the terminal. */
/* The program log_line's lines name, or NULL for the default. */
static const char *g_log_program;

static char *log_line(int journal, int progress, enum cairn_log_level level, const char *msg)
{
    char path[] = "/tmp/cairn-test-log-XXXXXX", *text = malloc(4096);
    int fd = mkstemp(path), status;
    ssize_t n;
    pid_t pid;

    ck_assert(fd >= 0 && text != NULL);
    pid = fork();
    ck_assert_int_ge(pid, 0);
    if (pid == 0) {
        struct cairn_log log;
        struct stat st;
        char js[64];

        dup2(fd, 2);
        fstat(2, &st);
        /* Not the journal: another inode, or (journal < 0) another device. */
        snprintf(js, sizeof(js), "%llu:%llu", (unsigned long long)st.st_dev + (journal < 0),
                 (unsigned long long)st.st_ino + (journal == 0));
        setenv("JOURNAL_STREAM", js, 1);
        cairn_log_init(&log, CAIRN_LOG_INFO);
        if (g_log_program != NULL)
            cairn_log_set_program(&log, g_log_program);
        log.progress = progress;
        cairn_log(&log, level, "%s", msg);
        free(text);                                 /* the parent's; LeakSanitizer would count it */
        exit(log.journal == (journal > 0) ? 0 : 3); /* not _exit: gcov writes its counts */
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "the journal was not seen right");
    n = pread(fd, text, 4095, 0);
    ck_assert_int_ge(n, 0);
    text[n] = '\0';
    close(fd);
    unlink(path);
    return text;
}

/* Under journald a line is "<N>message"; elsewhere a UTC time and the
 * level; a progress line is cleared first; a control character never
 * starts a line of its own; debug is dropped at info; a message too long
 * is cut, its line still ended. */
START_TEST(log_lines_suit_where_they_go)
{
    char *t, longmsg[3000];

    t = log_line(1, 0, CAIRN_LOG_WARNING, "disk nearly full");
    ck_assert_str_eq(t, "<4>disk nearly full\n");
    free(t);
    t = log_line(0, 0, CAIRN_LOG_ERROR, "job a\n<0>forged");
    ck_assert_msg(strlen(t) > 25 && t[4] == '-' && t[10] == 'T' && t[23] == 'Z' &&
                      strcmp(t + 24, " cairnd error: job a\\x0a<0>forged\n") == 0,
                  "%s", t);
    free(t);
    t = log_line(1, 1, CAIRN_LOG_INFO, "tab\there\x7f");
    ck_assert_str_eq(t, "\r\033[K<6>tab\\x09here\\x7f\n");
    free(t);
    t = log_line(-1, 0, CAIRN_LOG_INFO, "another device");
    ck_assert_msg(strstr(t, "Z cairnd info: another device\n") != NULL, "%s", t);
    free(t);
    t = log_line(1, 0, CAIRN_LOG_DEBUG, "not at info");
    ck_assert_str_eq(t, "");
    free(t);
    memset(longmsg, '\n', sizeof(longmsg) - 1);
    longmsg[sizeof(longmsg) - 1] = '\0';
    t = log_line(1, 0, CAIRN_LOG_ERROR, longmsg);
    ck_assert_uint_gt(strlen(t), 1000);
    ck_assert_uint_lt(strlen(t), 2048);
    ck_assert_ptr_eq(strchr(t, '\n'), t + strlen(t) - 1); /* one line, ended */
    free(t);
}
END_TEST

/* The client logs as itself (cairn gen loading plugins), not as cairnd. */
START_TEST(log_lines_name_their_program)
{
    char *t;

    g_log_program = "cairn";
    t = log_line(0, 0, CAIRN_LOG_ERROR, "gen: plugin refused");
    g_log_program = NULL;
    ck_assert_msg(strstr(t, "Z cairn error: gen: plugin refused\n") != NULL, "%s", t);
    free(t);
}
END_TEST

/* JOURNAL_STREAM that does not parse is no journal. */
START_TEST(a_bad_journal_stream_is_ignored)
{
    struct cairn_log log;
    int status;
    pid_t pid = fork();

    ck_assert_int_ge(pid, 0);
    if (pid == 0) { /* no stderr at all: nothing to be the journal */
        close(2);
        setenv("JOURNAL_STREAM", "1:1", 1);
        cairn_log_init(&log, CAIRN_LOG_DEBUG);
        exit(log.journal);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);

    setenv("JOURNAL_STREAM", "not-a-stream", 1);
    cairn_log_init(&log, CAIRN_LOG_DEBUG);
    ck_assert_int_eq(log.journal, 0);
    unsetenv("JOURNAL_STREAM");
    cairn_log_init(&log, CAIRN_LOG_DEBUG);
    ck_assert_int_eq(log.journal, 0);
    ck_assert_int_eq(log.level, CAIRN_LOG_DEBUG);
}
END_TEST

/* ---- names with a state, work in flight -------------------------------------------- */

/* Drops the entries whose state is odd, and counts the calls. */
static int drop_odd(const char *name, int state, void *data)
{
    (void)name;
    (*(size_t *)data)++;
    return state % 2 ? -1 : state;
}

/* Against a plain array, through thousands of random sets, removes and
 * lookups (so tombstones pile up and the table is rebuilt, growing or
 * not): every answer agrees, and an update sees every entry once. */
START_TEST(namemap_agrees_with_a_plain_list)
{
    enum {
        NAMES = 300
    };
    struct cairn_namemap map = { 0 };
    char names[NAMES][16];
    int state[NAMES];
    uint64_t x = 1140;
    size_t i, live = 0, calls = 0;
    int op;

    for (i = 0; i < NAMES; i++) {
        snprintf(names[i], sizeof(names[i]), "job-%zu.jsonl", i);
        state[i] = -1;
    }
    ck_assert_int_eq(cairn_namemap_get(&map, names[0]), -1); /* empty: no table yet */
    ck_assert_int_eq(cairn_namemap_remove(&map, names[0]), 0);
    for (op = 0; op < 20000; op++) {
        size_t k;

        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        k = (size_t)(x >> 8) % (op < 10000 ? NAMES : 40); /* then a few, many times */
        switch (x % 3) {
        case 0:
            ck_assert_int_eq(cairn_namemap_set(&map, names[k], op % 7), 0);
            state[k] = op % 7;
            break;
        case 1:
            ck_assert_int_eq(cairn_namemap_remove(&map, names[k]), state[k] >= 0);
            state[k] = -1;
            break;
        default: ck_assert_int_eq(cairn_namemap_get(&map, names[k]), state[k]);
        }
    }
    for (i = 0; i < NAMES; i++)
        live += state[i] >= 0;
    ck_assert_uint_eq(map.used, live);
    cairn_namemap_update(&map, drop_odd, &calls);
    ck_assert_uint_eq(calls, live);
    for (i = 0; i < NAMES; i++)
        ck_assert_int_eq(cairn_namemap_get(&map, names[i]),
                         state[i] >= 0 && state[i] % 2 == 0 ? state[i] : -1);
    cairn_namemap_free(&map);
    ck_assert_int_eq(cairn_namemap_get(&map, names[1]), -1);
}
END_TEST

/* A set that cannot allocate says so and leaves the map as it was. */
START_TEST(namemap_out_of_memory_loses_nothing)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    struct cairn_namemap map = { 0 };
    char name[32];
    size_t i, failed = 0;

    for (i = 0; i < 100; i++) {
        int rc;

        snprintf(name, sizeof(name), "n%zu", i);
        th_alloc_fail_at(1 + i % 2); /* the table's growth, or the entry */
        rc = cairn_namemap_set(&map, name, (int)i);
        th_alloc_disarm();
        ck_assert(rc == 0 || rc == -ENOMEM);
        failed += rc != 0;
        ck_assert_int_eq(cairn_namemap_get(&map, name), rc == 0 ? (int)i : -1);
    }
    ck_assert_uint_gt(failed, 0);
    ck_assert_uint_eq(map.used, 100 - failed);
    /* The state of a name already there changes without allocating. */
    th_alloc_fail_at(1);
    for (i = 0; i < 100; i++) {
        snprintf(name, sizeof(name), "n%zu", i);
        if (cairn_namemap_get(&map, name) >= 0)
            ck_assert_int_eq(cairn_namemap_set(&map, name, 7), 0);
    }
    th_alloc_disarm();
    cairn_namemap_free(&map);
}
END_TEST

static void *leave_later(void *arg)
{
    usleep(20 * 1000);
    cairn_inflight_leave(arg);
    return NULL;
}

/* wait() returns once nothing is in flight, or -ETIMEDOUT; NULL counts
 * nothing. */
START_TEST(inflight_wait_sees_the_count_drop)
{
    struct cairn_inflight f = { 0 };
    pthread_t t;

    cairn_inflight_enter(NULL);
    cairn_inflight_leave(NULL);
    ck_assert_int_eq(cairn_inflight_wait(NULL, 0), 0);
    ck_assert_int_eq(cairn_inflight_wait(&f, 0), 0);
    cairn_inflight_enter(&f);
    ck_assert_int_eq(cairn_inflight_wait(&f, 5), -ETIMEDOUT);
    ck_assert_int_eq(pthread_create(&t, NULL, leave_later, &f), 0);
    ck_assert_int_eq(cairn_inflight_wait(&f, 10000), 0);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
}
END_TEST

/* A pool thread's own entry is counted only when nothing else is in
 * flight, and refused once the abort closes the count; the close still
 * waits for the items already in. */
START_TEST(inflight_close_refuses_new_entries)
{
    struct cairn_inflight f = { 0 };

    ck_assert_int_eq(cairn_inflight_try_enter_alone(NULL), 1);
    ck_assert_int_eq(cairn_inflight_close(NULL, 0), 0);
    ck_assert_int_eq(cairn_inflight_try_enter_alone(&f), 1);
    ck_assert_int_eq(cairn_inflight_try_enter_alone(&f), 0); /* not alone */
    ck_assert_int_eq(cairn_inflight_close(&f, 0), -ETIMEDOUT);
    cairn_inflight_leave(&f);
    ck_assert_int_eq(cairn_inflight_wait(&f, 0), 0);
    ck_assert_int_eq(cairn_inflight_try_enter_alone(&f), 0); /* closed */
}
END_TEST

/* ---- temporaries -------------------------------------------------------------------- */

/* A sweep takes a dead writer's temporary only when the name has exactly
 * our shape and the file is a regular one: a near miss of the name
 * (a producer's own file), a directory under our name, are left alone;
 * a descriptor that is not a directory is an error.  A closed temporary
 * cannot be committed, and discarding it again does nothing. */
START_TEST(sweep_takes_only_our_shape)
{
    static const char ours[] = ".cairn.0123456789abcdef0123456789abcdef.r.tmp";
    static const char *const near[] = {
        ".cairn.0123456789abcdef0123456789abcdef.rr.tmp", /* length */
        ".cairm.0123456789abcdef0123456789abcdef.r.tmp",  /* prefix */
        ".cairn.0123456789abcdef0123456789abcdef.r.tmq",  /* suffix */
        ".cairn.0123456789abcdef0123456789abcdefxr.tmp",  /* the dot */
        ".cairn.0123456789ABCDEF0123456789abcdef.r.tmp",  /* upper case */
        ".cairn.0123456789abcdeg0123456789abcdef.r.tmp",  /* not hex */
    };
    char dir[] = "/tmp/cairn-test-lib-XXXXXX";
    struct cairn_tmpfile t;
    int dfd, fd;
    size_t i;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    ck_assert_int_ge(dfd = open(dir, O_RDONLY | O_DIRECTORY), 0);
    ck_assert_int_ge(fd = openat(dfd, ours, O_CREAT | O_WRONLY, 0644), 0);
    close(fd);
    for (i = 0; i < sizeof(near) / sizeof(near[0]); i++) {
        ck_assert_int_ge(fd = openat(dfd, near[i], O_CREAT | O_WRONLY, 0644), 0);
        close(fd);
    }
    ck_assert_int_eq(mkdirat(dfd, ".cairn.ffffffffffffffffffffffffffffffff.d.tmp", 0755), 0);
    ck_assert_int_eq(cairn_tmpfile_sweep(dfd), 1);
    ck_assert_int_eq(faccessat(dfd, ours, F_OK, 0), -1);
    for (i = 0; i < sizeof(near) / sizeof(near[0]); i++)
        ck_assert_msg(faccessat(dfd, near[i], F_OK, 0) == 0, "%s was taken", near[i]);
    ck_assert_int_eq(faccessat(dfd, ".cairn.ffffffffffffffffffffffffffffffff.d.tmp", F_OK, 0), 0);

    ck_assert_int_eq(cairn_tmpfile_open(&t, dfd, 'r', 0644), 0);
    ck_assert_int_eq(cairn_tmpfile_write_sync(&t, "x\n", 2), 0);
    ck_assert_int_eq(cairn_tmpfile_commit(&t, "out.jsonl"), 0);
    ck_assert_int_eq(t.fd, -1);
    ck_assert_int_eq(cairn_tmpfile_commit(&t, "again.jsonl"), -EBADF);
    cairn_tmpfile_discard(&t);
    ck_assert_int_eq(faccessat(dfd, "out.jsonl", F_OK, 0), 0);
    ck_assert_int_eq(cairn_tmpfile_create(&t, dfd, "out.jsonl", 0644), -EEXIST);

    ck_assert_int_ge(fd = openat(dfd, "out.jsonl", O_RDONLY), 0);
    ck_assert_int_eq(cairn_tmpfile_sweep(fd), -ENOTDIR);
    close(fd);

    for (i = 0; i < sizeof(near) / sizeof(near[0]); i++)
        unlinkat(dfd, near[i], 0);
    unlinkat(dfd, "out.jsonl", 0);
    unlinkat(dfd, ".cairn.ffffffffffffffffffffffffffffffff.d.tmp", AT_REMOVEDIR);
    close(dfd);
    ck_assert_int_eq(rmdir(dir), 0);
}
END_TEST

/* What is waited out (a resource ran out) and what is an error (the
 * request was wrong): the daemon and `cairn wait` fall back on polling for
 * the first kind only. */
START_TEST(out_of_resources_is_told_from_a_wrong_request)
{
    static const int waited[] = { -EMFILE, -ENFILE, -ENOSPC, -ENOMEM };
    static const int wrong[] = { 0, -EACCES, -ENOENT, -ENOTDIR, -EINVAL, -EIO, -EBADF };
    size_t i;

    for (i = 0; i < sizeof(waited) / sizeof(waited[0]); i++)
        ck_assert_msg(cairn_is_out_of_resources(waited[i]), "%s", strerror(-waited[i]));
    for (i = 0; i < sizeof(wrong) / sizeof(wrong[0]); i++)
        ck_assert_msg(!cairn_is_out_of_resources(wrong[i]), "%s", strerror(-wrong[i]));
}
END_TEST

static Suite *lib_suite(void)
{
    Suite *s = suite_create("lib");
    TCase *tc;

    tc = tcase_create("text");
    tcase_add_test(tc, json_strings_are_always_valid_json);
    tcase_add_test(tc, json_strings_round_trip_through_jansson);
    tcase_add_test(tc, file_names_escape_injectively);
    tcase_add_test(tc, out_of_resources_is_told_from_a_wrong_request);
    tcase_add_test(tc, log_text_is_printable);
    tcase_add_test(tc, short_names_cut_between_characters);
    tcase_add_test(tc, sizes_past_size_max_are_refused);
    tcase_add_test(tc, printf_appends_grow_the_buffer);
    tcase_add_test(tc, out_of_memory_leaves_no_text_cut_short);
    suite_add_tcase(s, tc);

    tc = tcase_create("files");
    tcase_add_test(tc, write_all_writes_everything_whatever_interrupts_it);
    tcase_add_test(tc, dir_each_lists_and_stops);
    tcase_add_test(tc, sweep_takes_only_our_shape);
    suite_add_tcase(s, tc);

    tc = tcase_create("sets");
    tcase_add_test(tc, namemap_agrees_with_a_plain_list);
    tcase_add_test(tc, namemap_out_of_memory_loses_nothing);
    tcase_add_test(tc, inflight_wait_sees_the_count_drop);
    tcase_add_test(tc, inflight_close_refuses_new_entries);
    suite_add_tcase(s, tc);

    tc = tcase_create("arena");
    tcase_add_test(tc, arena_serves_jansson_within_its_budget);
    tcase_add_test(tc, arena_out_of_memory_fails_the_allocation);
    suite_add_tcase(s, tc);

    tc = tcase_create("labels_and_log");
    tcase_add_test(tc, label_names_follow_prometheus);
    tcase_add_test(tc, log_lines_suit_where_they_go);
    tcase_add_test(tc, log_lines_name_their_program);
    tcase_add_test(tc, a_bad_journal_stream_is_ignored);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    int failed;

    failed = th_run_suite(lib_suite(), CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
