/*
 * test_filter.c - `cairnd --filter` end to end, through the real binary.
 *
 * cairnd ($CAIRN_TEST_CAIRND) runs with the plugins of the build
 * ($CAIRN_TEST_PLUGIN_DIR) and -c pointing at a config file holding {}, so
 * no system configuration interferes.  Its stdin is a regular file or a
 * pipe fed by a separate writer process (the two code paths of source.c);
 * its stdout is collected through a pipe and parsed line by line.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "util.h"

static const char *g_cairnd;
static const char *g_plugins;
static const char *g_source_dir;
static char g_cfg[] = "/tmp/cairn-test-filter-cfg-XXXXXX";

/* ------------------------------------------------------------------ */
/* Running cairnd                                                      */
/* ------------------------------------------------------------------ */

enum in_mode {
    IN_FILE,
    IN_PIPE
};

struct run {
    struct cairn_buf out;
    struct cairn_buf err;
    int exit_code; /* -1 when killed by a signal */
};

static void read_all(int fd, struct cairn_buf *b)
{
    char tmp[65536];
    ssize_t n;

    for (;;) {
        n = read(fd, tmp, sizeof(tmp));
        if (n < 0 && errno == EINTR)
            continue;
        ck_assert_msg(n >= 0, "read: %s", strerror(errno));
        if (n == 0)
            break;
        ck_assert_int_eq(cairn_buf_append(b, tmp, (size_t)n), 0);
    }
}

/* A temporary file holding len bytes of data, open for reading at 0. */
static int temp_input(const char *data, size_t len)
{
    char path[] = "/tmp/cairn-test-filter-in-XXXXXX";
    int fd = mkstemp(path);

    ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
    unlink(path);
    ck_assert_int_eq(cairn_write_all(fd, data, len), 0);
    ck_assert_int_eq(lseek(fd, 0, SEEK_SET), 0);
    return fd;
}

/* Runs argv (argv[0] is the binary) with stdin from a file or a pipe. */
static void run_argv(char *const *argv, const char *in, size_t len, enum in_mode mode,
                     struct run *r)
{
    int out[2], inp[2] = { -1, -1 }, in_fd = -1, status;
    char errpath[] = "/tmp/cairn-test-filter-err-XXXXXX";
    int err_fd = mkstemp(errpath);
    pid_t pid, writer = -1;

    memset(r, 0, sizeof(*r));
    ck_assert_msg(err_fd >= 0, "mkstemp: %s", strerror(errno));
    unlink(errpath);
    ck_assert_int_eq(pipe(out), 0);
    if (mode == IN_FILE) {
        in_fd = temp_input(in, len);
    } else {
        ck_assert_int_eq(pipe(inp), 0);
        writer = fork();
        ck_assert_msg(writer >= 0, "fork: %s", strerror(errno));
        if (writer == 0) {
            close(inp[0]);
            close(out[0]);
            close(out[1]);
            _exit(cairn_write_all(inp[1], in, len) == 0 ? 0 : 1);
        }
        close(inp[1]);
        in_fd = inp[0];
    }
    fflush(NULL);
    pid = fork();
    ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
    if (pid == 0) {
        dup2(in_fd, 0);
        dup2(out[1], 1);
        dup2(err_fd, 2);
        close(in_fd);
        close(out[0]);
        close(out[1]);
        close(err_fd);
        signal(SIGPIPE, SIG_DFL);
        execv(argv[0], argv);
        fprintf(stderr, "execv %s: %s\n", argv[0], strerror(errno));
        _exit(127);
    }
    close(in_fd);
    close(out[1]);
    read_all(out[0], &r->out);
    close(out[0]);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    r->exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
    if (writer > 0) {
        int ws;
        ck_assert_int_eq(waitpid(writer, &ws, 0), writer);
    }
    ck_assert_int_eq(lseek(err_fd, 0, SEEK_SET), 0);
    read_all(err_fd, &r->err);
    close(err_fd);
    ck_assert_int_eq(cairn_buf_append(&r->err, "", 1), 0);
}

/* cairnd -c CFG --filter --plugins DIR [extra...] */
static void run_filter(const char *const *extra, const char *in, size_t len, enum in_mode mode,
                       struct run *r)
{
    char *argv[32];
    size_t n = 0, i;

    argv[n++] = (char *)g_cairnd;
    argv[n++] = "-c";
    argv[n++] = g_cfg;
    argv[n++] = "--filter";
    argv[n++] = "--plugins";
    argv[n++] = (char *)g_plugins;
    for (i = 0; extra != NULL && extra[i] != NULL && n < 31; i++)
        argv[n++] = (char *)extra[i];
    argv[n] = NULL;
    run_argv(argv, in, len, mode, r);
}

static void run_free(struct run *r)
{
    cairn_buf_free(&r->out);
    cairn_buf_free(&r->err);
}

static const char *mode_name(enum in_mode m)
{
    return m == IN_FILE ? "file" : "pipe";
}

static const char *status_of(const json_t *j)
{
    const char *s = json_string_value(json_object_get(j, "status"));
    return s ? s : "(none)";
}

static const char *code_of(const json_t *j)
{
    const char *s = json_string_value(json_object_get(json_object_get(j, "error"), "code"));
    return s ? s : "(none)";
}

static int64_t line_of(const json_t *j)
{
    return (int64_t)json_integer_value(json_object_get(j, "line"));
}

/* Physical numbers of the non-blank lines of in (cairnd(8), RECORDS). */
static size_t nonblank_lines(const char *in, size_t len, uint64_t *nos, size_t cap)
{
    size_t pos = 0, n = 0;
    uint64_t no = 0;

    while (pos < len) {
        const char *p = in + pos, *nl = memchr(p, '\n', len - pos);
        size_t k = nl ? (size_t)(nl - p) : len - pos, i;
        int blank = 1;

        pos += k + (nl != NULL);
        no++;
        if (no == 1 && k >= 3 && memcmp(p, "\xEF\xBB\xBF", 3) == 0)
            p += 3, k -= 3;
        for (i = 0; i < k; i++)
            if (p[i] != ' ' && p[i] != '\t' && !(p[i] == '\r' && i == k - 1))
                blank = 0;
        if (!blank) {
            if (n < cap)
                nos[n] = no;
            n++;
        }
    }
    return n;
}

/* ------------------------------------------------------------------ */
/* Inputs                                                              */
/* ------------------------------------------------------------------ */

static uint64_t g_rng;

/* n records of all three games, with ids, moves, expected answers and
 * a sprinkling of broken lines, blank lines and CRLF. */
static char *mixed_records(size_t n, uint64_t seed, size_t *len)
{
    struct cairn_buf b = { 0 };
    size_t i, k;

    g_rng = seed;
    for (i = 0; i < n; i++) {
        uint64_t r = th_splitmix64(&g_rng);
        size_t m = 1 + (size_t)(r % 16);
        int rc = 0;

        switch (r % 23) {
        case 0: rc |= cairn_buf_puts(&b, "{\"variant\":\"stone-game\",\"input\":"); break;
        case 1: rc |= cairn_buf_puts(&b, "  "); break;
        case 2:
            rc |= cairn_buf_printf(&b, "{\"id\":%zu,\"variant\":\"nope\",\"input\":{}}", i);
            break;
        case 3:
            rc |= cairn_buf_printf(&b,
                                   "{\"id\":%zu,\"variant\":\"stone-game\","
                                   "\"input\":{\"piles\":[1,2,3]}}",
                                   i);
            break;
        default: {
            static const char *const v[] = { "stone-game", "stone-game-ii", "stone-game-iii",
                                             "877",        "1140",          "1406" };
            int g = (int)((r >> 8) % 6);
            int sg1 = g % 3 == 0;
            int64_t sum = 0;

            if (sg1)
                m = 2 * (m / 2 + 1);
            rc |= cairn_buf_printf(&b, "{\"id\":\"m%zu\",\"variant\":\"%s\",\"input\":{\"%s\":[", i,
                                   v[g], g % 3 == 2 ? "stoneValue" : "piles");
            for (k = 0; k < m; k++) {
                int64_t x = g % 3 == 2 ? (int64_t)(th_splitmix64(&g_rng) % 2001) - 1000
                                       : (int64_t)(th_splitmix64(&g_rng) % 500) + 1;
                if (sg1 && k == m - 1 && (sum + x) % 2 == 0)
                    x = x == 500 ? 499 : x + 1;
                sum += x;
                rc |= cairn_buf_printf(&b, "%s%" PRId64, k ? "," : "", x);
            }
            rc |= cairn_buf_puts(&b, "]}");
            if (r % 5 == 0)
                rc |= cairn_buf_puts(&b, ",\"options\":{\"moves\":true}");
            rc |= cairn_buf_puts(&b, "}");
        }
        }
        rc |= cairn_buf_puts(&b, r % 11 == 0 ? "\r\n" : "\n");
        ck_assert_int_eq(rc, 0);
    }
    *len = b.len;
    return b.data;
}

/* The official examples of the first three games (docs/games.md), each with its answer. */
static const struct {
    const char *record;
    const char *answer;
} examples[] = {
    { "{\"id\":\"e1\",\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]},\"expected\":"
      "true}",
      "true" },
    { "{\"id\":\"e2\",\"variant\":\"stone-game\",\"input\":{\"piles\":[3,7,2,3]},\"expected\":"
      "true}",
      "true" },
    { "{\"id\":\"e3\",\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]},"
      "\"expected\":10}",
      "10" },
    { "{\"id\":\"e4\",\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5,100]},"
      "\"expected\":104}",
      "104" },
    { "{\"id\":\"e5\",\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[1,2,3,4,5]},"
      "\"expected\":8}",
      "8" },
    { "{\"id\":\"e6\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]},"
      "\"expected\":\"Bob\"}",
      "\"Bob\"" },
    { "{\"id\":\"e7\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,-9]},"
      "\"expected\":\"Alice\"}",
      "\"Alice\"" },
    { "{\"id\":\"e8\",\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,6]},"
      "\"expected\":\"Tie\"}",
      "\"Tie\"" },
};
#define N_EXAMPLES (sizeof(examples) / sizeof(examples[0]))

/* ------------------------------------------------------------------ */
/* Tests                                                               */
/* ------------------------------------------------------------------ */

START_TEST(test_official_examples)
{
    struct cairn_buf in = { 0 };
    size_t i, n;
    int m;

    for (i = 0; i < N_EXAMPLES; i++)
        ck_assert_int_eq(cairn_buf_printf(&in, "%s\n", examples[i].record), 0);
    for (m = IN_FILE; m <= IN_PIPE; m++) {
        struct run r;
        json_t **v;

        run_filter(NULL, in.data, in.len, (enum in_mode)m, &r);
        ck_assert_msg(r.exit_code == 0, "%s: exit %d, stderr: %s", mode_name(m), r.exit_code,
                      r.err.data);
        v = th_parse_lines(r.out.data, r.out.len, &n, mode_name(m));
        ck_assert_uint_eq(n, N_EXAMPLES);
        for (i = 0; i < n; i++) {
            json_t *want = json_loads(examples[i].answer, JSON_DECODE_ANY, NULL);
            char id[24];

            snprintf(id, sizeof(id), "e%zu", i + 1);
            ck_assert_int_eq(line_of(v[i]), (int64_t)i + 1);
            ck_assert_str_eq(status_of(v[i]), "ok");
            ck_assert_str_eq(json_string_value(json_object_get(v[i], "id")), id);
            ck_assert_msg(json_equal(json_object_get(v[i], "answer"), want),
                          "%s: example %zu: answer is not %s", mode_name(m), i + 1,
                          examples[i].answer);
            ck_assert_msg(json_is_true(json_object_get(v[i], "match")),
                          "%s: example %zu does not match", mode_name(m), i + 1);
            json_decref(want);
        }
        th_free_lines(v, n);
        run_free(&r);
    }
    cairn_buf_free(&in);
}
END_TEST

START_TEST(test_line_numbers_and_errors)
{
    static const char in[] =
        "\n"                                                                      /* 1 blank */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n"          /* 2 ok */
        "this is not json\n"                                                      /* 3 */
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n" /* 4 ok */
        "   \r\n"                                                                 /* 5 blank */
        "[1,2]\r\n"                                                               /* 6 */
        "{\"variant\":\"1140\",\"input\":{\"piles\":[1,2,3,4,5]}}\r\n"            /* 7 ok */
        "{\"variant\":\"no-such-game\",\"input\":{}}\n"                           /* 8 */
        "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]}}\n"                 /* 9 ok */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,\"4\",5]}}\n"      /* 10 */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n"          /* 11 ok */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]}}\n"            /* 12 */
        "\t\n"                                                                    /* 13 blank */
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}";           /* 14, no \n */
    static const struct {
        int line;
        const char *status, *code;
    } want[] = { { 2, "ok", NULL },  { 3, "error", "bad_json" },
                 { 4, "ok", NULL },  { 6, "error", "bad_record" },
                 { 7, "ok", NULL },  { 8, "error", "unknown_variant" },
                 { 9, "ok", NULL },  { 10, "error", "invalid_input" },
                 { 11, "ok", NULL }, { 12, "error", "constraint" },
                 { 14, "ok", NULL } };
    size_t nw = sizeof(want) / sizeof(want[0]), i, n;
    int m;

    for (m = IN_FILE; m <= IN_PIPE; m++) {
        struct run r;
        json_t **v;

        run_filter(NULL, in, sizeof(in) - 1, (enum in_mode)m, &r);
        ck_assert_msg(r.exit_code == 0, "%s: exit %d, stderr: %s", mode_name(m), r.exit_code,
                      r.err.data);
        v = th_parse_lines(r.out.data, r.out.len, &n, mode_name(m));
        ck_assert_uint_eq(n, nw);
        for (i = 0; i < n; i++) {
            ck_assert_msg(line_of(v[i]) == want[i].line,
                          "%s: output %zu has line %" PRId64 ", want %d", mode_name(m), i + 1,
                          line_of(v[i]), want[i].line);
            ck_assert_str_eq(status_of(v[i]), want[i].status);
            if (want[i].code != NULL)
                ck_assert_str_eq(code_of(v[i]), want[i].code);
        }
        th_free_lines(v, n);
        run_free(&r);
    }
}
END_TEST

START_TEST(test_every_line_answered_in_order)
{
    size_t len, n, i, n_want;
    char *in = mixed_records(3000, 5, &len);
    uint64_t *nos = malloc(3000 * sizeof(*nos));
    int m;

    ck_assert_ptr_nonnull(nos);
    n_want = nonblank_lines(in, len, nos, 3000);
    for (m = IN_FILE; m <= IN_PIPE; m++) {
        struct run r;
        json_t **v;

        run_filter(NULL, in, len, (enum in_mode)m, &r);
        ck_assert_msg(r.exit_code == 0, "exit %d, stderr: %s", r.exit_code, r.err.data);
        v = th_parse_lines(r.out.data, r.out.len, &n, mode_name(m));
        ck_assert_uint_eq(n, n_want);
        for (i = 0; i < n; i++) {
            const char *st = status_of(v[i]);
            ck_assert_msg(line_of(v[i]) == (int64_t)nos[i],
                          "%s: output %zu has line %" PRId64 ", want %" PRIu64, mode_name(m), i + 1,
                          line_of(v[i]), nos[i]);
            ck_assert_msg(strcmp(st, "ok") == 0 || strcmp(st, "error") == 0,
                          "status %s on line %zu", st, i + 1);
        }
        th_free_lines(v, n);
        run_free(&r);
    }
    free(nos);
    free(in);
}
END_TEST

START_TEST(test_threads_give_identical_output)
{
    size_t len;
    char *in = mixed_records(4000, 77, &len);
    static const char *const t1[] = { "--threads", "1", NULL };
    static const char *const t2[] = { "--threads", "2", NULL };
    static const char *const t4[] = { "--threads", "4", NULL };
    struct run a, b, c, d;

    run_filter(t1, in, len, IN_FILE, &a);
    run_filter(t2, in, len, IN_FILE, &b);
    run_filter(t2, in, len, IN_PIPE, &c);
    run_filter(t4, in, len, IN_PIPE, &d);
    ck_assert_int_eq(a.exit_code, 0);
    ck_assert_int_eq(b.exit_code, 0);
    ck_assert_int_eq(c.exit_code, 0);
    ck_assert_int_eq(d.exit_code, 0);
    ck_assert_uint_gt(a.out.len, 0);
    ck_assert_msg(a.out.len == b.out.len && memcmp(a.out.data, b.out.data, a.out.len) == 0,
                  "--threads 1 and --threads 2 differ (file)");
    ck_assert_msg(a.out.len == c.out.len && memcmp(a.out.data, c.out.data, a.out.len) == 0,
                  "--threads 1 (file) and --threads 2 (pipe) differ");
    ck_assert_msg(a.out.len == d.out.len && memcmp(a.out.data, d.out.data, a.out.len) == 0,
                  "--threads 1 (file) and --threads 4 (pipe) differ");
    run_free(&a);
    run_free(&b);
    run_free(&c);
    run_free(&d);
    free(in);
}
END_TEST

START_TEST(test_twenty_thousand_records_in_order)
{
    struct cairn_buf in = { 0 };
    size_t i, n;
    int m;

    g_rng = 12345;
    for (i = 0; i < 20000; i++) {
        size_t k, len = 1 + (size_t)(th_splitmix64(&g_rng) % 20);
        ck_assert_int_eq(cairn_buf_printf(&in,
                                          "{\"id\":%zu,\"variant\":\"stone-game-iii\","
                                          "\"input\":{\"stoneValue\":[",
                                          i),
                         0);
        for (k = 0; k < len; k++)
            ck_assert_int_eq(cairn_buf_printf(&in, "%s%d", k ? "," : "",
                                              (int)(th_splitmix64(&g_rng) % 2001) - 1000),
                             0);
        ck_assert_int_eq(cairn_buf_puts(&in, "]}}\n"), 0);
    }
    for (m = IN_FILE; m <= IN_PIPE; m++) {
        struct run r;
        json_t **v;

        run_filter(NULL, in.data, in.len, (enum in_mode)m, &r);
        ck_assert_msg(r.exit_code == 0, "exit %d, stderr: %s", r.exit_code, r.err.data);
        v = th_parse_lines(r.out.data, r.out.len, &n, mode_name(m));
        ck_assert_uint_eq(n, 20000);
        for (i = 0; i < n; i++) {
            ck_assert_msg(line_of(v[i]) == (int64_t)i + 1 &&
                              json_integer_value(json_object_get(v[i], "id")) == (json_int_t)i,
                          "%s: output %zu is out of order", mode_name(m), i + 1);
            ck_assert_str_eq(status_of(v[i]), "ok");
        }
        th_free_lines(v, n);
        run_free(&r);
    }
    cairn_buf_free(&in);
}
END_TEST

START_TEST(test_limits_flag_changes_default)
{
    static const char in[] =
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[1,2,3]}}\n"
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[1,2,3]},"
        "\"options\":{\"limits\":\"official\"}}\n"
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[5000,-2000,0]}}\n";
    static const char *const ext[] = { "--limits", "extended", NULL };
    static const char *const off[] = { "--limits", "official", NULL };
    struct run r;
    json_t **v;
    size_t n;

    run_filter(NULL, in, sizeof(in) - 1, IN_FILE, &r);
    ck_assert_int_eq(r.exit_code, 0);
    v = th_parse_lines(r.out.data, r.out.len, &n, "default limits");
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(code_of(v[0]), "constraint");
    ck_assert_str_eq(code_of(v[1]), "constraint");
    ck_assert_str_eq(code_of(v[2]), "constraint");
    th_free_lines(v, n);
    run_free(&r);

    run_filter(ext, in, sizeof(in) - 1, IN_PIPE, &r);
    ck_assert_msg(r.exit_code == 0, "exit %d, stderr: %s", r.exit_code, r.err.data);
    v = th_parse_lines(r.out.data, r.out.len, &n, "--limits extended");
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(status_of(v[0]), "ok");
    ck_assert(json_is_true(json_object_get(v[0], "answer")));
    ck_assert_int_eq(json_integer_value(json_object_get(v[0], "alice")), 4);
    ck_assert_int_eq(json_integer_value(json_object_get(v[0], "bob")), 2);
    ck_assert_str_eq(code_of(v[1]), "constraint"); /* the record's own option wins */
    ck_assert_str_eq(status_of(v[2]), "ok");
    ck_assert_str_eq(json_string_value(json_object_get(v[2], "answer")), "Alice");
    th_free_lines(v, n);
    run_free(&r);

    run_filter(off, in, sizeof(in) - 1, IN_FILE, &r);
    ck_assert_int_eq(r.exit_code, 0);
    v = th_parse_lines(r.out.data, r.out.len, &n, "--limits official");
    ck_assert_uint_eq(n, 3);
    ck_assert_str_eq(code_of(v[0]), "constraint");
    th_free_lines(v, n);
    run_free(&r);
}
END_TEST

START_TEST(test_empty_input)
{
    static const char *const inputs[] = { "", "\n\n", "  \r\n" };
    size_t i;
    int m;

    for (i = 0; i < 3; i++)
        for (m = IN_FILE; m <= IN_PIPE; m++) {
            struct run r;
            run_filter(NULL, inputs[i], strlen(inputs[i]), (enum in_mode)m, &r);
            ck_assert_int_eq(r.exit_code, 0);
            ck_assert_uint_eq(r.out.len, 0);
            run_free(&r);
        }
}
END_TEST

START_TEST(test_usage_errors_exit_2)
{
    static const char *const bogus[] = { "--bogus", NULL };
    static const char *const extra[] = { "stray-argument", NULL };
    static const char *const threads[] = { "--threads", "many", NULL };
    static const char *const limits[] = { "--limits", "huge", NULL };
    struct run r;

    run_filter(bogus, "", 0, IN_FILE, &r);
    ck_assert_msg(r.exit_code == 2, "--bogus: exit %d", r.exit_code);
    ck_assert_uint_eq(r.out.len, 0);
    run_free(&r);
    run_filter(extra, "", 0, IN_FILE, &r);
    ck_assert_msg(r.exit_code == 2, "stray argument: exit %d", r.exit_code);
    run_free(&r);
    run_filter(threads, "", 0, IN_FILE, &r);
    ck_assert_msg(r.exit_code == 2, "--threads many: exit %d", r.exit_code);
    ck_assert_msg(strstr(r.err.data, "threads") != NULL, "stderr does not name threads: %s",
                  r.err.data);
    run_free(&r);
    run_filter(limits, "", 0, IN_FILE, &r);
    ck_assert_msg(r.exit_code == 2, "--limits huge: exit %d", r.exit_code);
    ck_assert_msg(strstr(r.err.data, "limits") != NULL, "stderr does not name limits: %s",
                  r.err.data);
    run_free(&r);
    {
        /* No mode at all. */
        char *argv[] = { (char *)g_cairnd, "-c", g_cfg, "--plugins", (char *)g_plugins, NULL };
        run_argv(argv, "", 0, IN_FILE, &r);
        ck_assert_msg(r.exit_code == 2, "no mode: exit %d", r.exit_code);
        run_free(&r);
    }
}
END_TEST

START_TEST(test_config_and_plugin_errors_exit_2)
{
    char dir[] = "/tmp/cairn-test-filter-empty-XXXXXX";
    struct run r;

    {
        char *argv[] = {
            (char *)g_cairnd,  "-c", "/nonexistent/cairn.json", "--filter", "--plugins",
            (char *)g_plugins, NULL
        };
        run_argv(argv, "", 0, IN_FILE, &r);
        ck_assert_msg(r.exit_code == 2, "missing config: exit %d", r.exit_code);
        ck_assert_msg(strstr(r.err.data, "/nonexistent/cairn.json") != NULL,
                      "stderr does not name the file: %s", r.err.data);
        run_free(&r);
    }
    ck_assert_ptr_nonnull(mkdtemp(dir));
    chmod(dir, 0755);
    {
        char *argv[] = { (char *)g_cairnd, "-c", g_cfg, "--filter", "--plugins", dir, NULL };
        run_argv(argv, "{}\n", 3, IN_FILE, &r);
        ck_assert_msg(r.exit_code == 2, "empty plugin dir: exit %d", r.exit_code);
        ck_assert_uint_eq(r.out.len, 0);
        run_free(&r);
    }
    rmdir(dir);
}
END_TEST

/* A config file holding text; the caller frees the path. */
static char *temp_config(const char *text)
{
    char *path = strdup("/tmp/cairn-test-filter-cfg2-XXXXXX");
    int fd;

    ck_assert_ptr_nonnull(path);
    fd = mkstemp(path);
    ck_assert_msg(fd >= 0, "mkstemp: %s", strerror(errno));
    ck_assert_int_eq(cairn_write_all(fd, text, strlen(text)), 0);
    close(fd);
    chmod(path, 0644);
    return path;
}

START_TEST(test_config_max_line_and_default_variant)
{
    char *cfg = temp_config("{\"max_line_bytes\": 200, \"default_variant\": \"1406\"}\n");
    struct cairn_buf in = { 0 };
    size_t i, n;
    int m;

    ck_assert_int_eq(cairn_buf_puts(&in, "{\"input\":{\"stoneValue\":[1,2,3,7]}}\n"), 0);
    ck_assert_int_eq(cairn_buf_puts(&in, "{\"id\":\"long\",\"input\":{\"stoneValue\":["), 0);
    for (i = 0; i < 50000; i++)
        ck_assert_int_eq(cairn_buf_puts(&in, i ? ",1" : "1"), 0);
    ck_assert_int_eq(cairn_buf_puts(&in, "]}}\n"), 0);
    ck_assert_int_eq(cairn_buf_puts(&in, "{\"input\":{\"stoneValue\":["), 0);
    for (i = 0; i < 50000; i++)
        ck_assert_int_eq(cairn_buf_puts(&in, i ? ",1" : "1"), 0);
    ck_assert_int_eq(cairn_buf_puts(&in, "]},\"variant\":\"877\",\"id\":7}\n"), 0);
    ck_assert_int_eq(cairn_buf_puts(&in, "{\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]}}"),
                     0);
    for (m = IN_FILE; m <= IN_PIPE; m++) {
        char *argv[] = { (char *)g_cairnd,  "-c", cfg, "--filter", "--plugins",
                         (char *)g_plugins, NULL };
        struct run r;
        json_t **v;

        run_argv(argv, in.data, in.len, (enum in_mode)m, &r);
        ck_assert_msg(r.exit_code == 0, "%s: exit %d, stderr: %s", mode_name(m), r.exit_code,
                      r.err.data);
        v = th_parse_lines(r.out.data, r.out.len, &n, mode_name(m));
        ck_assert_uint_eq(n, 4);
        ck_assert_str_eq(status_of(v[0]), "ok");
        ck_assert_str_eq(json_string_value(json_object_get(v[0], "variant")), "stone-game-iii");
        /* A line over max_line_bytes is not kept, but its id and variant
         * (the default, for a record that names none) are, wherever they
         * are in it. */
        ck_assert_int_eq(line_of(v[1]), 2);
        ck_assert_str_eq(code_of(v[1]), "too_large");
        ck_assert_str_eq(json_string_value(json_object_get(v[1], "id")), "long");
        ck_assert_str_eq(json_string_value(json_object_get(v[1], "variant")), "stone-game-iii");
        ck_assert_int_eq(line_of(v[2]), 3);
        ck_assert_str_eq(code_of(v[2]), "too_large");
        ck_assert_int_eq(json_integer_value(json_object_get(v[2], "id")), 7);
        ck_assert_str_eq(json_string_value(json_object_get(v[2], "variant")), "stone-game");
        ck_assert_int_eq(line_of(v[3]), 4);
        ck_assert_str_eq(status_of(v[3]), "ok");
        ck_assert_str_eq(json_string_value(json_object_get(v[3], "variant")), "stone-game");
        th_free_lines(v, n);
        run_free(&r);
    }
    unlink(cfg);
    free(cfg);
    cairn_buf_free(&in);

    /* A default_variant that names no plugin is a start-up error. */
    cfg = temp_config("{\"default_variant\": \"stone-game-xl\"}\n");
    {
        char *argv[] = { (char *)g_cairnd,  "-c", cfg, "--filter", "--plugins",
                         (char *)g_plugins, NULL };
        struct run r;
        run_argv(argv, "", 0, IN_FILE, &r);
        ck_assert_msg(r.exit_code == 2, "bad default_variant: exit %d", r.exit_code);
        ck_assert_msg(strstr(r.err.data, "stone-game-xl") != NULL,
                      "stderr does not name the variant: %s", r.err.data);
        run_free(&r);
    }
    unlink(cfg);
    free(cfg);
}
END_TEST

/* Wait up to ms for fd to be readable. */
static int wait_readable(int fd, int ms)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    int rc;

    do
        rc = poll(&p, 1, ms);
    while (rc < 0 && errno == EINTR);
    return rc > 0;
}

START_TEST(test_pipe_answers_before_eof)
{
    /* Fit for a co-process (Spark pipe(), an interactive shell): a line
     * written to the pipe is answered while stdin stays open. */
    static const char l1[] =
        "{\"id\":1,\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n";
    static const char l2[] =
        "{\"id\":2,\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,6]}}\n";
    int in[2], out[2], status;
    char buf[4096];
    ssize_t n;
    size_t got = 0;
    pid_t pid;

    ck_assert_int_eq(pipe(in), 0);
    ck_assert_int_eq(pipe(out), 0);
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(devnull, 2);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(g_cairnd, g_cairnd, "-c", g_cfg, "--filter", "--plugins", g_plugins, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(out[1]);
    ck_assert_int_eq(cairn_write_all(in[1], l1, sizeof(l1) - 1), 0);
    while (got == 0 || buf[got - 1] != '\n') {
        ck_assert_msg(wait_readable(out[0], (int)th_scaled_ms(10000)),
                      "no answer to the first line within 10 s while stdin stays open");
        n = read(out[0], buf + got, sizeof(buf) - 1 - got);
        ck_assert_msg(n > 0, "cairnd closed stdout early");
        got += (size_t)n;
    }
    buf[got] = '\0';
    ck_assert_msg(strstr(buf, "\"line\":1") != NULL && strstr(buf, "\"answer\":true") != NULL,
                  "first answer: %s", buf);
    ck_assert_int_eq(cairn_write_all(in[1], l2, sizeof(l2) - 1), 0);
    close(in[1]);
    got = 0;
    for (;;) {
        n = read(out[0], buf + got, sizeof(buf) - 1 - got);
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    buf[got] = '\0';
    ck_assert_msg(strstr(buf, "\"line\":2") != NULL && strstr(buf, "\"answer\":\"Tie\"") != NULL,
                  "second answer: %s", buf);
    close(out[0]);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}
END_TEST

START_TEST(test_closed_stdout_exits_1)
{
    /* A reader that goes away is a runtime failure (exit 1), not a hang or
     * a death by SIGPIPE. */
    struct cairn_buf in = { 0 };
    int out[2], in_fd, status;
    char buf[128];
    pid_t pid;
    size_t i;

    for (i = 0; i < 50000; i++)
        ck_assert_int_eq(cairn_buf_printf(&in,
                                          "{\"id\":%zu,\"variant\":\"1406\",\"input\":"
                                          "{\"stoneValue\":[1,2,3,7]}}\n",
                                          i),
                         0);
    in_fd = temp_input(in.data, in.len);
    ck_assert_int_eq(pipe(out), 0);
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(in_fd, 0);
        dup2(out[1], 1);
        dup2(devnull, 2);
        close(out[0]);
        close(out[1]);
        signal(SIGPIPE, SIG_DFL);
        execl(g_cairnd, g_cairnd, "-c", g_cfg, "--filter", "--plugins", g_plugins, (char *)NULL);
        _exit(127);
    }
    close(in_fd);
    close(out[1]);
    ck_assert_int_gt(read(out[0], buf, sizeof(buf)), 0);
    close(out[0]);
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "cairnd died of signal %d", WTERMSIG(status));
    ck_assert_int_eq(WEXITSTATUS(status), 1);
    cairn_buf_free(&in);
}
END_TEST

/* `producer | cairnd --filter | head -1` with a producer that never ends:
 * cairnd must stop at the first failed write and exit 1 naming it, not go
 * on reading and solving for nobody. */
START_TEST(test_endless_producer_stops_at_write_error)
{
    static const char rec[] = "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n";
    int in[2], out[2], status;
    char buf[128], errpath[] = "/tmp/cairn-test-filter-err-XXXXXX";
    pid_t pid, producer;
    double end;
    char *err;
    int errfd = mkstemp(errpath);

    ck_assert_int_ge(errfd, 0);
    ck_assert_int_eq(pipe(in), 0);
    ck_assert_int_eq(pipe(out), 0);
    producer = fork();
    ck_assert(producer >= 0);
    if (producer == 0) {
        close(in[0]);
        close(out[0]);
        close(out[1]);
        signal(SIGPIPE, SIG_DFL);
        for (;;)
            if (write(in[1], rec, sizeof(rec) - 1) < 0)
                _exit(0);
    }
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        dup2(in[0], 0);
        dup2(out[1], 1);
        dup2(errfd, 2);
        close(in[0]);
        close(in[1]);
        close(out[0]);
        close(out[1]);
        execl(g_cairnd, g_cairnd, "-c", g_cfg, "--filter", "--plugins", g_plugins, (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    close(in[1]);
    close(out[1]);
    /* `head -1`: one line, then the reader is gone. */
    ck_assert_int_gt(read(out[0], buf, sizeof(buf)), 0);
    close(out[0]);
    end = th_now_s() + th_scaled_ms(20000) / 1000;
    while (waitpid(pid, &status, WNOHANG) == 0 && th_now_s() < end)
        th_sleep_ms(20);
    if (th_now_s() >= end) {
        kill(pid, SIGKILL);
        waitpid(pid, &status, 0);
        kill(producer, SIGKILL);
        waitpid(producer, NULL, 0);
        ck_abort_msg("cairnd --filter still running %.0f s after its reader left",
                     th_scaled_ms(20000) / 1000);
    }
    kill(producer, SIGKILL);
    waitpid(producer, NULL, 0);
    ck_assert_msg(WIFEXITED(status), "cairnd died of signal %d", WTERMSIG(status));
    ck_assert_int_eq(WEXITSTATUS(status), 1);
    close(errfd);
    err = th_slurp(errpath, NULL);
    ck_assert_msg(err != NULL && strstr(err, "broken pipe") != NULL, "stderr: %s", err);
    free(err);
    unlink(errpath);
}
END_TEST

/* Started with stdin, stdout and stderr closed (a careless init script):
 * --once still does its job and exits 0, without libuv aborting at exit
 * over descriptors it took for its own. */
START_TEST(test_closed_std_descriptors)
{
    char dir[] = "/tmp/cairn-test-filter-std-XXXXXX", in[PATH_MAX], out[PATH_MAX];
    char job[PATH_MAX], summary[PATH_MAX];
    static const char rec[] = "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n";
    int status;
    pid_t pid;
    char *text;

    ck_assert_ptr_nonnull(mkdtemp(dir));
    th_pathf(in, "%s/in", dir);
    th_pathf(out, "%s/out", dir);
    th_pathf(job, "%s/j.jsonl", in);
    th_pathf(summary, "%s/j.summary.json", out);
    ck_assert_int_eq(mkdir(in, 0755), 0);
    th_write_file(job, rec, sizeof(rec) - 1, 0644);
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        close(0);
        close(1);
        close(2);
        execl(g_cairnd, g_cairnd, "-c", g_cfg, "--once", "--plugins", g_plugins, "--input", in,
              "--output", out, (char *)NULL);
        _exit(127);
    }
    ck_assert_int_eq(waitpid(pid, &status, 0), pid);
    ck_assert_msg(WIFEXITED(status), "cairnd died of signal %d", WTERMSIG(status));
    ck_assert_int_eq(WEXITSTATUS(status), 0);
    text = th_slurp(summary, NULL);
    ck_assert_msg(text != NULL && strstr(text, "\"status\":\"ok\"") != NULL, "summary: %s", text);
    free(text);
    th_rm_tree(dir);
}
END_TEST

/* stdin that cannot be read (here a directory, as `cairnd --filter < dir`
 * gives it): exit 1 with the system's reason, no result line. */
START_TEST(test_unreadable_stdin_exits_1)
{
    char scratch[] = "/tmp/cairn-test-filter-dir-XXXXXX";
    struct th_run r;

    ck_assert_ptr_nonnull(mkdtemp(scratch));
    r = th_run_cairnd_stdin(
        g_cairnd, scratch, scratch,
        (const char *const[]){ "-c", g_cfg, "--filter", "--plugins", g_plugins, NULL });
    th_rm_tree(scratch);
    ck_assert_msg(r.status == 1, "exit %d: %s", r.status, r.err);
    ck_assert_msg(strstr(r.err, "--filter stopped: reading standard input: illegal operation on "
                                "a directory") != NULL,
                  "stderr: %s", r.err);
    ck_assert_str_eq(r.out, "");
    th_run_free(&r);
}
END_TEST

/* stdout that cannot be written (a full disk: /dev/full): exit 1, and the
 * message says it was the writing. */
START_TEST(test_unwritable_stdout_exits_1)
{
    char scratch[] = "/tmp/cairn-test-filter-full-XXXXXX";
    char *job, *err, *cmd, *text;
    int status;

    ck_assert_ptr_nonnull(mkdtemp(scratch));
    job = th_xasprintf("%s/job.jsonl", scratch);
    err = th_xasprintf("%s/err", scratch);
    th_write_text(job, "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}\n");
    cmd = th_xasprintf("'%s' -c '%s' --filter --plugins '%s' < '%s' > /dev/full 2> '%s'", g_cairnd,
                       g_cfg, g_plugins, job, err);
    status = system(cmd);
    text = th_slurp(err, NULL);
    th_rm_tree(scratch);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 1, "status %d: %s", status, text);
    ck_assert_msg(text != NULL &&
                      strstr(text, "--filter stopped: writing standard output: no space left on "
                                   "device") != NULL,
                  "stderr: %s", text);
    free(text);
    free(cmd);
    free(err);
    free(job);
}
END_TEST

/* A plugin's check() that fails on its own account (CAIRN_E_INTERNAL) is
 * an internal error, not a broken rule of the game: it was once reported
 * as "constraint". */
START_TEST(test_check_internal_is_internal)
{
    static const char in[] = "{\"variant\":\"internal\",\"input\":{\"values\":[13,1]}}\n"
                             "{\"variant\":\"internal\",\"input\":{\"values\":[12,1]}}\n";
    const char *dir = getenv("CAIRN_TEST_MISBEHAVING_PLUGIN_DIR");
    char scratch[] = "/tmp/cairn-test-filter-check-XXXXXX", input[PATH_MAX];
    struct th_run r;

    ck_assert_msg(dir != NULL, "CAIRN_TEST_MISBEHAVING_PLUGIN_DIR is not set (meson test sets it)");
    ck_assert_ptr_nonnull(mkdtemp(scratch));
    th_pathf(input, "%s/in.jsonl", scratch);
    th_write_file(input, in, sizeof(in) - 1, 0644);
    r = th_run_cairnd_stdin(
        g_cairnd, scratch, input,
        (const char *const[]){ "-c", g_cfg, "--filter", "--plugins", dir, NULL });
    th_rm_tree(scratch);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "{\"line\":1,\"variant\":\"internal-check\",\"status\":\"error\","
                                "\"error\":{\"code\":\"internal\",\"message\":\"internal-check: "
                                "lookup table not initialised\"}}\n") != NULL,
                  "stdout: %s", r.out);
    ck_assert_msg(strstr(r.out, "{\"line\":2,\"variant\":\"internal-check\",\"status\":\"ok\","
                                "\"answer\":13") != NULL,
                  "stdout: %s", r.out);
    free(r.out);
    free(r.err);
}
END_TEST

/* The cairnd of a build tree, run where it was built, finds the plugins
 * built beside it when nothing names a plugin directory: the installed
 * default does not exist before `meson install`. */
START_TEST(test_uninstalled_cairnd_finds_its_plugins)
{
    static const char in[] = "{\"variant\":\"877\",\"input\":{\"piles\":[3,7,2,3]}}\n";
    char scratch[] = "/tmp/cairn-test-filter-uninstalled-XXXXXX", input[PATH_MAX], cfg[PATH_MAX];
    struct th_run r;

    ck_assert_ptr_nonnull(mkdtemp(scratch));
    th_pathf(input, "%s/in.jsonl", scratch);
    th_write_file(input, in, sizeof(in) - 1, 0644);
    th_pathf(cfg, "%s/empty.json", scratch);
    th_write_file(cfg, "{}\n", 3, 0644);
    r = th_run_cairnd_stdin(g_cairnd, scratch, input,
                            (const char *const[]){ "-c", cfg, "--filter", NULL });
    th_rm_tree(scratch);
    ck_assert_msg(r.status == 0, "exit %d: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "{\"line\":1,\"variant\":\"stone-game\",\"status\":\"ok\"") != NULL,
                  "stdout: %s", r.out);
    free(r.out);
    free(r.err);
}
END_TEST

/* A copy of that cairnd elsewhere is an installed one: it looks for the
 * installed plugins, never for the build tree's beside the file it was
 * copied from, and names the directory it tried. */
START_TEST(test_copied_cairnd_uses_the_installed_plugins)
{
    char scratch[] = "/tmp/cairn-test-filter-copied-XXXXXX", exe[PATH_MAX], cfg[PATH_MAX];
    struct th_run r;

    ck_assert_ptr_nonnull(mkdtemp(scratch));
    th_pathf(exe, "%s/cairnd", scratch);
    th_copy_file(g_cairnd, exe, 0755);
    th_pathf(cfg, "%s/empty.json", scratch);
    th_write_file(cfg, "{}\n", 3, 0644);
    r = th_run_cairnd(exe, scratch, (const char *const[]){ "-c", cfg, "--check", NULL });
    th_rm_tree(scratch);
    ck_assert_msg(strstr(r.out, g_plugins) == NULL && strstr(r.err, g_plugins) == NULL,
                  "a copy of cairnd used the build's plugins: %s%s", r.out, r.err);
    if (r.status != 0) {
        ck_assert_msg(r.status == 2, "exit %d: %s", r.status, r.err);
        ck_assert_msg(strstr(r.err, "/cairn/plugins: cannot open plugin directory") != NULL,
                      "stderr does not name the plugin directory: %s", r.err);
    }
    th_run_free(&r);
}
END_TEST

/* Peak RSS, in KiB, of `cairnd --filter` fed count copies of unit through
 * a pipe (output thrown away). */
static long filter_peak_kib(const char *unit, size_t count)
{
    int in[2], status;
    struct rusage ru;
    pid_t pid, writer;

    ck_assert_int_eq(pipe(in), 0);
    pid = fork();
    ck_assert(pid >= 0);
    if (pid == 0) {
        int devnull = open("/dev/null", O_WRONLY);
        dup2(in[0], 0);
        dup2(devnull, 1);
        dup2(devnull, 2);
        close(in[0]);
        close(in[1]);
        execl(g_cairnd, g_cairnd, "-c", g_cfg, "--filter", "--plugins", g_plugins, "--threads", "2",
              (char *)NULL);
        _exit(127);
    }
    close(in[0]);
    writer = fork();
    ck_assert(writer >= 0);
    if (writer == 0) {
        size_t n = strlen(unit), per = n < 65536 ? 65536 / n : 1, done = 0;
        char *block = malloc(per * n);

        for (size_t i = 0; i < per; i++)
            memcpy(block + i * n, unit, n);
        while (done < count) {
            size_t k = count - done < per ? count - done : per;
            if (cairn_write_all(in[1], block, k * n) != 0)
                _exit(1);
            done += k;
        }
        _exit(0);
    }
    close(in[1]);
    ck_assert_int_eq(waitpid(writer, &status, 0), writer);
    ck_assert_int_eq(wait4(pid, &status, 0, &ru), pid);
    ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0, "cairnd --filter: status 0x%x",
                  (unsigned)status);
    return ru.ru_maxrss;
}

/* Memory stays flat whatever the line lengths: per-line bookkeeping is
 * bounded, not only bytes.  48 MB of newlines once sat in memory whole, and
 * 4 million "{}" lines (an error line each) took 70 MB.  (Not under
 * AddressSanitizer, whose shadow memory is most of any process's RSS.) */
START_TEST(test_memory_flat_for_tiny_lines)
{
    long blank, braces;

#if defined(__SANITIZE_ADDRESS__)
    fprintf(stderr, "test_filter: SKIP memory bound under AddressSanitizer\n");
    return;
#endif
    blank = filter_peak_kib("\n", 48u * 1000 * 1000);
    braces = filter_peak_kib("{}\n", 4u * 1000 * 1000);
    ck_assert_msg(blank < 24 * 1024, "48 MB of newlines: peak RSS %ld KiB", blank);
    ck_assert_msg(braces < 24 * 1024, "4 million {} lines: peak RSS %ld KiB", braces);
}
END_TEST

/* One record's memory is bounded by its line, whatever the shape of its
 * JSON: a 15 MB line whose ignored key holds 5 million empty objects took
 * 1.2 GB to parse (jansson's tree: a few hundred bytes per "{},"); now it
 * is too_large within 8 times the line, and its error line keeps its id
 * and variant. */
START_TEST(test_memory_bounded_for_one_record_of_many_small_values)
{
    const size_t n = 5u * 1000 * 1000;
    const char head[] =
        "{\"id\":\"pad\",\"variant\":\"877\",\"input\":{\"piles\":[5,3,4,5]},\"pad\":[";
    size_t len = sizeof(head) - 1 + 3 * n + 2;
    char *line = malloc(len + 1), *p = line;
    long peak;

#if defined(__SANITIZE_ADDRESS__)
    fprintf(stderr, "test_filter: SKIP memory bound under AddressSanitizer\n");
    free(line);
    return;
#endif
    ck_assert_ptr_nonnull(line);
    p += sprintf(p, "%s", head);
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, i ? ",{}" : "{}");
    p += sprintf(p, "]}\n");
    len = (size_t)(p - line);
    peak = filter_peak_kib(line, 1);
    ck_assert_msg(peak < (long)(8 * len / 1024),
                  "a %zu-byte line of %zu empty objects: peak RSS %ld KiB (8 x the line: %zu KiB)",
                  len, n, peak, 8 * len / 1024);
    {
        struct run r;

        run_filter(NULL, line, len, IN_FILE, &r);
        ck_assert_msg(
            strstr(r.out.data, "\"code\":\"too_large\"") &&
                strstr(r.out.data, "too many small JSON values") &&
                strstr(r.out.data, "{\"line\":1,\"id\":\"pad\",\"variant\":\"stone-game\",") ==
                    r.out.data,
            "got: %.300s", r.out.data);
        run_free(&r);
    }
    free(line);
}
END_TEST

/* Every record the limits allow is answered within its budget: a
 * stone-game-iii record of 200,000 values under extended limits, graded
 * against its own optimal line of some 66,000 moves (refused as too_large
 * when the play array went through a jansson tree). */
START_TEST(test_big_record_graded_against_its_own_line)
{
    struct cairn_buf rec = { 0 };
    struct run r;
    json_t **v, *play;
    char *moves;
    size_t n, head;

    ck_assert_int_eq(cairn_buf_puts(&rec, "{\"id\":\"big\",\"variant\":\"stone-game-iii\","
                                          "\"input\":{\"stoneValue\":["),
                     0);
    for (size_t i = 0; i < 200000; i++)
        ck_assert_int_eq(cairn_buf_printf(&rec, i ? ",%d" : "%d", (int)((i * 7919) % 2001) - 1000),
                         0);
    ck_assert_int_eq(cairn_buf_puts(&rec, "]},\"options\":{\"limits\":\"extended\","), 0);
    head = rec.len;
    ck_assert_int_eq(cairn_buf_puts(&rec, "\"moves\":true}}\n"), 0);
    run_filter(NULL, rec.data, rec.len, IN_FILE, &r);
    v = th_parse_lines(r.out.data, r.out.len, &n, "moves");
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(strcmp(status_of(v[0]), "ok") == 0, "moves: %.300s", r.out.data);
    moves = json_dumps(json_object_get(v[0], "moves"), JSON_COMPACT);
    ck_assert_ptr_nonnull(moves);
    th_free_lines(v, n);
    run_free(&r);

    rec.len = head;
    ck_assert_int_eq(cairn_buf_printf(&rec, "\"play\":%s}}\n", moves), 0);
    run_filter(NULL, rec.data, rec.len, IN_FILE, &r);
    v = th_parse_lines(r.out.data, r.out.len, &n, "play");
    ck_assert_uint_eq(n, 1);
    ck_assert_msg(strcmp(status_of(v[0]), "ok") == 0, "play: %.300s", r.out.data);
    play = json_object_get(v[0], "play");
    ck_assert_msg(json_is_true(json_object_get(play, "optimal")) &&
                      json_integer_value(json_object_get(play, "plies")) > 60000,
                  "play: %.300s", r.out.data);
    th_free_lines(v, n);
    run_free(&r);
    free(moves);
    cairn_buf_free(&rec);
}
END_TEST

/* ---- the examples folder (*.jsonl) ---------------------------------- */

/* Checks one example file: with NAME.results.jsonl (or NAME.expected.jsonl)
 * beside it the output must equal it; otherwise every record must be ok
 * (and match, when it says what it expects), except in files whose name
 * says they hold errors (error, bad, invalid), where error lines with a
 * contract error code are expected too. */
static void check_example_file(const char *dir, const char *name)
{
    static const char *const codes[] = {
        "bad_json",  "bad_record", "unknown_variant", "invalid_input", "constraint",
        "too_large", NULL
    };
    size_t len, n, n_want, i, ref_len = 0;
    char *path, *ref, *in, *want = NULL;
    uint64_t *nos;
    int errors_ok = strstr(name, "error") != NULL || strstr(name, "bad") != NULL ||
                    strstr(name, "invalid") != NULL;
    int base = (int)(strlen(name) - strlen(".jsonl"));
    struct run r;
    json_t **v;

    path = cairn_asprintf("%s/%s", dir, name);
    ck_assert_ptr_nonnull(path);
    in = th_slurp(path, &len);
    ck_assert_msg(in != NULL, "cannot read %s", path);
    ref = cairn_asprintf("%s/%.*s.results.jsonl", dir, base, name);
    ck_assert_ptr_nonnull(ref);
    want = th_slurp(ref, &ref_len);
    if (want == NULL) {
        free(ref);
        ref = cairn_asprintf("%s/%.*s.expected.jsonl", dir, base, name);
        ck_assert_ptr_nonnull(ref);
        want = th_slurp(ref, &ref_len);
    }
    run_filter(NULL, in, len, IN_FILE, &r);
    ck_assert_msg(r.exit_code == 0, "%s: exit %d, stderr: %s", path, r.exit_code, r.err.data);
    if (want != NULL) {
        ck_assert_msg(r.out.len == ref_len && memcmp(r.out.data, want, ref_len) == 0,
                      "%s: output differs from %s:\n%s", path, ref, r.out.data);
    }
    nos = malloc((len + 1) * sizeof(*nos));
    ck_assert_ptr_nonnull(nos);
    n_want = nonblank_lines(in, len, nos, len + 1);
    v = th_parse_lines(r.out.data, r.out.len, &n, path);
    ck_assert_msg(n == n_want, "%s: %zu result lines for %zu records", path, n, n_want);
    for (i = 0; i < n; i++) {
        const char *st = status_of(v[i]);

        ck_assert_msg(line_of(v[i]) == (int64_t)nos[i],
                      "%s: result %zu has line %" PRId64 ", want %" PRIu64, path, i + 1,
                      line_of(v[i]), nos[i]);
        if (strcmp(st, "ok") == 0) {
            const json_t *match = json_object_get(v[i], "match");
            ck_assert_msg(match == NULL || json_is_true(match),
                          "%s line %" PRIu64 ": the answer does not match \"expected\"", path,
                          nos[i]);
        } else {
            const char *code = code_of(v[i]);
            size_t c;
            int known = 0;

            for (c = 0; codes[c] != NULL; c++)
                known |= strcmp(code, codes[c]) == 0;
            ck_assert_msg(strcmp(st, "error") == 0 && known,
                          "%s line %" PRIu64 ": status %s, code %s", path, nos[i], st, code);
            ck_assert_msg(
                errors_ok || want != NULL, "%s line %" PRIu64 ": unexpected error %s: %s", path,
                nos[i], code,
                json_string_value(json_object_get(json_object_get(v[i], "error"), "message")));
        }
    }
    th_free_lines(v, n);
    free(nos);
    free(want);
    free(in);
    free(ref);
    free(path);
    run_free(&r);
}

START_TEST(test_examples_directory)
{
    struct dirent *e;
    size_t files = 0;
    char *dir;
    DIR *d;

    if (g_source_dir == NULL) {
        fprintf(stderr, "test_examples_directory: CAIRN_TEST_SOURCE_DIR unset, skipped\n");
        return;
    }
    dir = cairn_asprintf("%s/examples", g_source_dir);
    ck_assert_ptr_nonnull(dir);
    d = opendir(dir);
    if (d == NULL) {
        fprintf(stderr, "test_examples_directory: %s does not exist yet, skipped\n", dir);
        free(dir);
        return;
    }
    while ((e = readdir(d)) != NULL) {
        if (e->d_name[0] == '.' || !th_ends_with(e->d_name, ".jsonl") ||
            th_ends_with(e->d_name, ".results.jsonl") || th_ends_with(e->d_name, ".expected.jsonl"))
            continue;
        check_example_file(dir, e->d_name);
        files++;
    }
    closedir(d);
    if (files == 0)
        fprintf(stderr, "test_examples_directory: no *.jsonl in %s, skipped\n", dir);
    free(dir);
}
END_TEST

/* ------------------------------------------------------------------ */

static Suite *filter_suite(void)
{
    Suite *s = suite_create("filter");
    TCase *tc;

    tc = tcase_create("answers");
    tcase_add_test(tc, test_official_examples);
    tcase_add_test(tc, test_line_numbers_and_errors);
    tcase_add_test(tc, test_limits_flag_changes_default);
    tcase_add_test(tc, test_empty_input);
    tcase_add_test(tc, test_config_max_line_and_default_variant);
    tcase_add_test(tc, test_examples_directory);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("order_and_volume");
    tcase_add_test(tc, test_every_line_answered_in_order);
    tcase_add_test(tc, test_threads_give_identical_output);
    tcase_add_test(tc, test_twenty_thousand_records_in_order);
    tcase_add_test(tc, test_pipe_answers_before_eof);
    tcase_set_timeout(tc, 120);
    suite_add_tcase(s, tc);

    tc = tcase_create("exit_codes");
    tcase_add_test(tc, test_usage_errors_exit_2);
    tcase_add_test(tc, test_config_and_plugin_errors_exit_2);
    tcase_add_test(tc, test_closed_stdout_exits_1);
    tcase_add_test(tc, test_endless_producer_stops_at_write_error);
    tcase_add_test(tc, test_closed_std_descriptors);
    tcase_add_test(tc, test_unreadable_stdin_exits_1);
    tcase_add_test(tc, test_unwritable_stdout_exits_1);
    tcase_add_test(tc, test_check_internal_is_internal);
    tcase_add_test(tc, test_uninstalled_cairnd_finds_its_plugins);
    tcase_add_test(tc, test_copied_cairnd_uses_the_installed_plugins);
    tcase_add_test(tc, test_memory_flat_for_tiny_lines);
    tcase_add_test(tc, test_memory_bounded_for_one_record_of_many_small_values);
    tcase_add_test(tc, test_big_record_graded_against_its_own_line);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    int failed, fd;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    g_source_dir = getenv("CAIRN_TEST_SOURCE_DIR");
    if (g_cairnd == NULL || g_plugins == NULL || access(g_cairnd, X_OK) != 0) {
        fprintf(stderr, "test_filter: CAIRN_TEST_CAIRND (the cairnd binary) and "
                        "CAIRN_TEST_PLUGIN_DIR must be set (meson test sets them)\n");
        return EXIT_FAILURE;
    }
    fd = mkstemp(g_cfg);
    if (fd < 0 || cairn_write_all(fd, "{}\n", 3) != 0) {
        perror("test_filter: config file");
        return EXIT_FAILURE;
    }
    close(fd);
    chmod(g_cfg, 0644);

    failed = th_run_suite(filter_suite(), CK_NORMAL, 1);
    unlink(g_cfg);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
