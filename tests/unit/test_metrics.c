/*
 * test_metrics.c - the daemon-wide metrics and their Prometheus text
 * exposition (contract.md, Metrics).
 *
 * The real plugins are loaded from $CAIRN_TEST_PLUGIN_DIR; a hand-built
 * registry stands in for a plugin with an awkward version string and for a
 * reload that reorders plugins.  Sample values are read back from the
 * rendered text by their exact series name, so a wrong label set fails as
 * surely as a wrong count.  When promtool is on PATH, the output must pass
 * `promtool check metrics`.
 */
#include <check.h>
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "alloc_fail.h"
#include "metrics.h"
#include "plugin_loader.h"
#include "prom_label.h"
#include "record.h"
#include "util.h"

static struct cairn_registry g_reg;

/* ------------------------------------------------------------------ */
/* Helpers                                                             */
/* ------------------------------------------------------------------ */

/* The rendered text, NUL-terminated; free with free(). */
static char *render(const struct cairn_metrics *m)
{
    struct cairn_buf b = { 0 };

    ck_assert_int_eq(cairn_metrics_render(m, &b), 0);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    return b.data;
}

/* The line starting with "series " (series = name plus labels), or NULL. */
static const char *find_series(const char *text, const char *series)
{
    size_t n = strlen(series);
    const char *p = text;

    while (p != NULL && *p != '\0') {
        if (strncmp(p, series, n) == 0 && p[n] == ' ')
            return p;
        p = strchr(p, '\n');
        if (p != NULL)
            p++;
    }
    return NULL;
}

static double value_of(const char *text, const char *series)
{
    const char *line = find_series(text, series);

    ck_assert_msg(line != NULL, "series %s missing from:\n%s", series, text);
    return strtod(line + strlen(series) + 1, NULL);
}

static uint64_t u64_of(const char *text, const char *series)
{
    const char *line = find_series(text, series);

    ck_assert_msg(line != NULL, "series %s missing from:\n%s", series, text);
    return strtoull(line + strlen(series) + 1, NULL, 10);
}

static size_t count_lines_starting(const char *text, const char *prefix)
{
    size_t n = 0, len = strlen(prefix);
    const char *p = text;

    while (*p != '\0') {
        if (strncmp(p, prefix, len) == 0)
            n++;
        p = strchr(p, '\n');
        if (p == NULL)
            break;
        p++;
    }
    return n;
}

static size_t plugin_index(const struct cairn_registry *reg, const char *name)
{
    size_t i;

    for (i = 0; i < reg->n_plugins; i++)
        if (strcmp(reg->plugins[i].desc->name, name) == 0)
            return i;
    ck_abort_msg("plugin %s not loaded", name);
    return 0;
}

/* Adds one solve of `seconds` to variant slot i, as the record code does. */
static void tally_solve(struct cairn_tally *t, size_t i, double seconds)
{
    uint64_t ns = (uint64_t)(seconds * 1e9 + 0.5);
    size_t k = 0;

    while (k < CAIRN_SOLVE_BUCKETS - 1 && seconds > cairn_solve_bucket_le[k])
        k++;
    t->records++;
    t->ok++;
    t->variant_ok[i]++;
    t->variant_ns[i] += ns;
    t->solve_ns += ns;
    t->variant_hist[i * CAIRN_SOLVE_BUCKETS + k]++;
}

static void tally_error(struct cairn_tally *t, size_t i, enum cairn_code code)
{
    t->records++;
    t->errors[code]++;
    t->variant_err[i]++;
}

/* A populated metrics object, made by running real lines through
 * cairn_record_process so the tally is what a worker would produce. */
static void populate(struct cairn_metrics *m)
{
    static const char *const lines[] = {
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4,5]}}",
        "{\"variant\":\"stone-game-ii\",\"input\":{\"piles\":[2,7,9,4,4]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}",
        "{\"variant\":\"1406\",\"input\":{\"stoneValue\":[1,2,3,-9]}}",
        "{\"variant\":\"stone-game\",\"input\":{\"piles\":[5,3,4]}}",
        "{\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,\"x\"]}}",
        "{\"variant\":\"no-such-game\",\"input\":{}}",
        "not json",
        "[1,2]",
    };
    struct cairn_record_ctx ctx = { .reg = &g_reg, .default_limits = CAIRN_LIMITS_OFFICIAL };
    struct cairn_scratch s = { 0 };
    struct cairn_buf out = { 0 };
    struct cairn_tally t;
    size_t i;

    ck_assert_int_eq(cairn_metrics_init(m, "1.2.3"), 0);
    ck_assert_int_eq(cairn_metrics_set_plugins(m, &g_reg), 0);
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    for (i = 0; i < sizeof(lines) / sizeof(lines[0]); i++)
        ck_assert_int_eq(
            cairn_record_process(&ctx, &s, i + 1, lines[i], strlen(lines[i]), &out, &t), 0);
    ck_assert_int_eq(cairn_metrics_add_tally(m, &g_reg, &t), 0);
    cairn_metrics_add_bytes(m, 4096);
    cairn_metrics_job_done(m, 1, 0.25);
    cairn_metrics_job_done(m, 0, 12.5);
    cairn_metrics_set_gauges(m, 2, 7);
    cairn_tally_free(&t);
    cairn_buf_free(&out);
    cairn_scratch_free(&s);
}

/* A fake plugin whose version needs every escape the format has. */
static const struct cairn_plugin fake_quote = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "fake-game",
    .version = "2.0 \"beta\" C:\\new\nline",
};

/* cairn_metrics_write into the directory at path (-ENOENT when there is
 * none). */
static int write_to(const struct cairn_metrics *m, const char *path, const char *file)
{
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc;

    if (fd < 0)
        return -errno;
    rc = cairn_metrics_write(m, fd, file);
    close(fd);
    return rc;
}

static char *make_tmpdir(void)
{
    const char *base = getenv("TMPDIR");
    char *dir = cairn_asprintf("%s/cairn-metrics-XXXXXX", base && *base ? base : "/tmp");

    ck_assert_ptr_nonnull(dir);
    ck_assert_ptr_nonnull(mkdtemp(dir));
    return dir;
}

/* The names in dir, excluding . and .., joined by spaces (sorted by
 * nothing: the tests only need one name or none). */
static char *list_dir(const char *dir)
{
    struct cairn_buf b = { 0 };
    struct dirent *e;
    DIR *d = opendir(dir);

    ck_assert_ptr_nonnull(d);
    while ((e = readdir(d)) != NULL) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        ck_assert_int_eq(cairn_buf_printf(&b, "%s%s", b.len ? " " : "", e->d_name), 0);
    }
    closedir(d);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    return b.data;
}

static char *slurp(const char *path)
{
    struct cairn_buf b = { 0 };
    char chunk[4096];
    size_t n;
    FILE *f = fopen(path, "rb");

    ck_assert_msg(f != NULL, "cannot open %s: %s", path, strerror(errno));
    while ((n = fread(chunk, 1, sizeof(chunk), f)) > 0)
        ck_assert_int_eq(cairn_buf_append(&b, chunk, n), 0);
    fclose(f);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    return b.data;
}

static void rm_dir(char *dir, const char *file)
{
    char *p = cairn_asprintf("%s/%s", dir, file);

    unlink(p);
    free(p);
    rmdir(dir);
    free(dir);
}

/* ------------------------------------------------------------------ */
/* exposition: names, HELP/TYPE, initial series                        */
/* ------------------------------------------------------------------ */

START_TEST(test_every_family_has_help_and_type)
{
    static const char *const fam[][2] = {
        { "cairn_jobs_total", "counter" },          { "cairn_records_total", "counter" },
        { "cairn_record_errors_total", "counter" }, { "cairn_solve_seconds", "histogram" },
        { "cairn_job_seconds", "histogram" },       { "cairn_jobs_active", "gauge" },
        { "cairn_jobs_queued", "gauge" },           { "cairn_bytes_read_total", "counter" },
        { "cairn_plugin_info", "gauge" },           { "cairn_build_info", "gauge" },
        { "cairn_start_time_seconds", "gauge" },
    };
    struct cairn_metrics m;
    char *text, want[128];
    size_t i;

    ck_assert_int_eq(cairn_metrics_init(&m, "0.9.0"), 0);
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &g_reg), 0);
    text = render(&m);
    for (i = 0; i < sizeof(fam) / sizeof(fam[0]); i++) {
        snprintf(want, sizeof(want), "# HELP %s ", fam[i][0]);
        ck_assert_msg(count_lines_starting(text, want) == 1, "want one '%s' in:\n%s", want, text);
        snprintf(want, sizeof(want), "# TYPE %s %s\n", fam[i][0], fam[i][1]);
        ck_assert_msg(strstr(text, want) != NULL, "missing '%s' in:\n%s", want, text);
    }
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

START_TEST(test_fresh_metrics_have_zero_series)
{
    struct cairn_metrics m;
    char *text, series[128];
    size_t i;

    ck_assert_int_eq(cairn_metrics_init(&m, "0.9.0"), 0);
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &g_reg), 0);
    text = render(&m);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_total{status=\"ok\"}"), 0);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_total{status=\"failed\"}"), 0);
    for (i = 0; i < CAIRN_CODE_COUNT; i++) {
        snprintf(series, sizeof(series), "cairn_record_errors_total{code=\"%s\"}",
                 cairn_code_name((enum cairn_code)i));
        ck_assert_uint_eq(u64_of(text, series), 0);
    }
    for (i = 0; i < g_reg.n_plugins; i++) {
        const struct cairn_plugin *d = g_reg.plugins[i].desc;

        snprintf(series, sizeof(series), "cairn_plugin_info{name=\"%s\",version=\"%s\"}", d->name,
                 d->version);
        ck_assert_uint_eq(u64_of(text, series), 1);
        snprintf(series, sizeof(series), "cairn_records_total{variant=\"%s\",status=\"ok\"}",
                 d->name);
        ck_assert_uint_eq(u64_of(text, series), 0);
        snprintf(series, sizeof(series), "cairn_solve_seconds_count{variant=\"%s\"}", d->name);
        ck_assert_uint_eq(u64_of(text, series), 0);
    }
    ck_assert_uint_eq(count_lines_starting(text, "cairn_plugin_info{"), g_reg.n_plugins);
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"none\",status=\"error\"}"), 0);
    ck_assert_uint_eq(u64_of(text, "cairn_build_info{version=\"0.9.0\"}"), 1);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_active"), 0);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_queued"), 0);
    ck_assert_uint_eq(u64_of(text, "cairn_bytes_read_total"), 0);
    ck_assert_uint_eq(u64_of(text, "cairn_job_seconds_count"), 0);
    /* A plausible unix time, not a monotonic clock reading. */
    ck_assert(value_of(text, "cairn_start_time_seconds") > 1.6e9);
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* tally: records, errors and solve histograms                         */
/* ------------------------------------------------------------------ */

START_TEST(test_counts_add_up_across_tallies)
{
    size_t sg = plugin_index(&g_reg, "stone-game");
    size_t sg3 = plugin_index(&g_reg, "stone-game-iii");
    struct cairn_metrics m;
    struct cairn_tally t;
    char *text;
    int round;

    ck_assert_int_eq(cairn_metrics_init(&m, "1"), 0);
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &g_reg), 0);
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    for (round = 0; round < 3; round++) {
        cairn_tally_reset(&t);
        tally_solve(&t, sg, 2e-6);
        tally_solve(&t, sg, 3e-6);
        tally_solve(&t, sg3, 0.02);
        tally_error(&t, sg, CAIRN_CODE_CONSTRAINT);
        tally_error(&t, sg3, CAIRN_CODE_INVALID_INPUT);
        tally_error(&t, sg3, CAIRN_CODE_TOO_LARGE);
        ck_assert_int_eq(cairn_metrics_add_tally(&m, &g_reg, &t), 0);
    }
    text = render(&m);
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"stone-game\",status=\"ok\"}"), 6);
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"stone-game\",status=\"error\"}"),
                      3);
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"stone-game-iii\",status=\"ok\"}"),
                      3);
    ck_assert_uint_eq(
        u64_of(text, "cairn_records_total{variant=\"stone-game-iii\",status=\"error\"}"), 6);
    ck_assert_uint_eq(u64_of(text, "cairn_record_errors_total{code=\"constraint\"}"), 3);
    ck_assert_uint_eq(u64_of(text, "cairn_record_errors_total{code=\"invalid_input\"}"), 3);
    ck_assert_uint_eq(u64_of(text, "cairn_record_errors_total{code=\"too_large\"}"), 3);
    ck_assert_uint_eq(u64_of(text, "cairn_record_errors_total{code=\"bad_json\"}"), 0);
    ck_assert_uint_eq(u64_of(text, "cairn_solve_seconds_count{variant=\"stone-game\"}"), 6);
    ck_assert_double_eq_tol(value_of(text, "cairn_solve_seconds_sum{variant=\"stone-game\"}"),
                            15e-6, 1e-12);
    ck_assert_double_eq_tol(value_of(text, "cairn_solve_seconds_sum{variant=\"stone-game-iii\"}"),
                            0.06, 1e-12);
    cairn_tally_free(&t);
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

START_TEST(test_solve_histogram_is_cumulative_and_sorted)
{
    static const double solves[] = { 5e-7, 1e-6, 2e-6, 3e-5, 3e-5, 7e-4, 2e-3, 0.3, 0.9, 2.5 };
    size_t sg2 = plugin_index(&g_reg, "stone-game-ii");
    struct cairn_metrics m;
    struct cairn_tally t;
    char *text, series[160], le[40];
    uint64_t prev = 0, got;
    double prev_le = -1;
    size_t i, k;

    ck_assert_int_eq(cairn_metrics_init(&m, "1"), 0);
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    for (i = 0; i < sizeof(solves) / sizeof(solves[0]); i++)
        tally_solve(&t, sg2, solves[i]);
    ck_assert_int_eq(cairn_metrics_add_tally(&m, &g_reg, &t), 0);
    text = render(&m);

    /* Each finite bucket counts the solves <= its bound, in the order
     * printed, and the bounds rise. */
    const char *p = strstr(text, "cairn_solve_seconds_bucket{variant=\"stone-game-ii\",le=\"");
    ck_assert_ptr_nonnull(p);
    for (k = 0; k < CAIRN_SOLVE_BUCKETS; k++) {
        const char *q = strstr(p, "le=\"");
        size_t n = 0, want = 0;
        double bound;

        ck_assert_ptr_nonnull(q);
        q += 4;
        while (q[n] != '"')
            n++;
        ck_assert_uint_lt(n, sizeof(le));
        memcpy(le, q, n);
        le[n] = '\0';
        if (k == CAIRN_SOLVE_BUCKETS - 1) {
            ck_assert_str_eq(le, "+Inf");
            bound = 1e300;
        } else {
            bound = strtod(le, NULL);
            ck_assert_double_eq(bound, cairn_solve_bucket_le[k]);
        }
        ck_assert(bound > prev_le);
        prev_le = bound;
        for (i = 0; i < sizeof(solves) / sizeof(solves[0]); i++)
            want += solves[i] <= bound;
        snprintf(series, sizeof(series),
                 "cairn_solve_seconds_bucket{variant=\"stone-game-ii\",le=\"%s\"}", le);
        got = u64_of(text, series);
        ck_assert_msg(got == want, "%s: got %" PRIu64 ", want %zu", series, got, want);
        ck_assert_uint_ge(got, prev);
        prev = got;
        p = strchr(q, '\n');
        ck_assert_ptr_nonnull(p);
    }
    ck_assert_uint_eq(prev, sizeof(solves) / sizeof(solves[0]));
    ck_assert_uint_eq(u64_of(text, "cairn_solve_seconds_count{variant=\"stone-game-ii\"}"), prev);
    /* _sum and _count follow the buckets of their series. */
    ck_assert_ptr_nonnull(strstr(p, "\ncairn_solve_seconds_sum{variant=\"stone-game-ii\"} "));
    cairn_tally_free(&t);
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

START_TEST(test_unresolved_records_are_variant_none)
{
    struct cairn_record_ctx ctx = { .reg = &g_reg, .default_limits = CAIRN_LIMITS_OFFICIAL };
    static const char *const lines[] = { "not json", "[1]", "{\"variant\":\"nope\",\"input\":{}}" };
    struct cairn_scratch s = { 0 };
    struct cairn_buf out = { 0 };
    struct cairn_metrics m;
    struct cairn_tally t;
    char *text;
    size_t i;

    ck_assert_int_eq(cairn_metrics_init(&m, "1"), 0);
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(
            cairn_record_process(&ctx, &s, i + 1, lines[i], strlen(lines[i]), &out, &t), 0);
    /* And one counted by hand in the last slot. */
    tally_error(&t, t.n_variants - 1, CAIRN_CODE_BAD_JSON);
    ck_assert_int_eq(cairn_metrics_add_tally(&m, &g_reg, &t), 0);
    text = render(&m);
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"none\",status=\"error\"}"), 4);
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"none\",status=\"ok\"}"), 0);
    ck_assert_uint_eq(u64_of(text, "cairn_record_errors_total{code=\"bad_json\"}"), 2);
    ck_assert_uint_eq(u64_of(text, "cairn_record_errors_total{code=\"bad_record\"}"), 1);
    ck_assert_uint_eq(u64_of(text, "cairn_record_errors_total{code=\"unknown_variant\"}"), 1);
    /* Nothing is ever solved as "none": no empty histogram for it. */
    ck_assert_ptr_null(strstr(text, "cairn_solve_seconds_count{variant=\"none\"}"));
    cairn_tally_free(&t);
    cairn_buf_free(&out);
    cairn_scratch_free(&s);
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

START_TEST(test_counts_follow_names_across_reload)
{
    /* The reload puts the plugins in reverse order and adds a new one. */
    struct cairn_plugin_handle h[32];
    struct cairn_registry r2 = { 0 };
    size_t sg = plugin_index(&g_reg, "stone-game"), i;
    struct cairn_metrics m;
    struct cairn_tally t;
    char *text;

    ck_assert_uint_lt(g_reg.n_plugins, sizeof(h) / sizeof(h[0]));
    for (i = 0; i < g_reg.n_plugins; i++)
        h[i] = g_reg.plugins[g_reg.n_plugins - 1 - i];
    h[g_reg.n_plugins] = (struct cairn_plugin_handle){ .desc = &fake_quote };
    r2.plugins = h;
    r2.n_plugins = g_reg.n_plugins + 1;

    ck_assert_int_eq(cairn_metrics_init(&m, "1"), 0);
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &g_reg), 0);
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins), 0);
    tally_solve(&t, sg, 1e-5);
    ck_assert_int_eq(cairn_metrics_add_tally(&m, &g_reg, &t), 0);
    cairn_tally_free(&t);

    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &r2), 0);
    ck_assert_int_eq(cairn_tally_init(&t, r2.n_plugins), 0);
    tally_solve(&t, plugin_index(&r2, "stone-game"), 1e-5);
    tally_solve(&t, plugin_index(&r2, "fake-game"), 1e-5);
    ck_assert_int_eq(cairn_metrics_add_tally(&m, &r2, &t), 0);
    cairn_tally_free(&t);

    text = render(&m);
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"stone-game\",status=\"ok\"}"), 2);
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"fake-game\",status=\"ok\"}"), 1);
    ck_assert_uint_eq(u64_of(text, "cairn_solve_seconds_count{variant=\"stone-game\"}"), 2);
    ck_assert_uint_eq(count_lines_starting(text, "cairn_plugin_info{"), g_reg.n_plugins + 1);
    free(text);

    /* Back to the real set: the fake plugin's info goes, its counts stay. */
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &g_reg), 0);
    text = render(&m);
    ck_assert_uint_eq(count_lines_starting(text, "cairn_plugin_info{"), g_reg.n_plugins);
    ck_assert_ptr_null(strstr(text, "cairn_plugin_info{name=\"fake-game\""));
    ck_assert_uint_eq(u64_of(text, "cairn_records_total{variant=\"fake-game\",status=\"ok\"}"), 1);
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

START_TEST(test_add_tally_rejects_a_mismatched_registry)
{
    struct cairn_metrics m;
    struct cairn_tally t;
    char *text;

    ck_assert_int_eq(cairn_metrics_init(&m, "1"), 0);
    ck_assert_int_eq(cairn_tally_init(&t, g_reg.n_plugins + 1), 0);
    tally_error(&t, 0, CAIRN_CODE_INTERNAL);
    ck_assert_int_eq(cairn_metrics_add_tally(&m, &g_reg, &t), -EINVAL);
    text = render(&m);
    ck_assert_uint_eq(u64_of(text, "cairn_record_errors_total{code=\"internal\"}"), 0);
    cairn_tally_free(&t);
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

/* The reversed registry plus fake-game, in h (32 handles), as a reload
 * would give it. */
static void reload_registry(struct cairn_registry *r2, struct cairn_plugin_handle *h)
{
    size_t i;

    ck_assert_uint_lt(g_reg.n_plugins, 32);
    for (i = 0; i < g_reg.n_plugins; i++)
        h[i] = g_reg.plugins[g_reg.n_plugins - 1 - i];
    h[g_reg.n_plugins] = (struct cairn_plugin_handle){ .desc = &fake_quote };
    memset(r2, 0, sizeof(*r2));
    r2->plugins = h;
    r2->n_plugins = g_reg.n_plugins + 1;
}

/* Out of memory at each allocation in turn: every call says -ENOMEM and
 * changes nothing a scrape would see (init leaves nothing to free, a
 * reload keeps the old plugin list, a tally adds no count, a render
 * leaves no half exposition after what the buffer held), and the same
 * call succeeds once memory is back. */
START_TEST(test_out_of_memory_changes_nothing)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    struct cairn_plugin_handle h[32];
    struct cairn_registry r2;
    struct cairn_metrics m;
    struct cairn_tally t;
    char *before, *after;
    long n;
    int rc, failed;

    reload_registry(&r2, h);
    for (n = 1;; n++) {
        th_alloc_fail_at(n);
        rc = cairn_metrics_init(&m, "1.2.3");
        failed = th_alloc_disarm();
        if (!failed)
            break;
        ck_assert_int_eq(rc, -ENOMEM);
        ck_assert_ptr_null(m.version);
        ck_assert_ptr_null(m.variants);
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_gt(n, 2); /* the version and the "none" series both failed once */

    /* A reload that runs out of memory keeps the old plugin list. */
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &g_reg), 0);
    for (n = 1;; n++) {
        th_alloc_fail_at(n);
        rc = cairn_metrics_set_plugins(&m, &r2);
        failed = th_alloc_disarm();
        if (!failed)
            break;
        ck_assert_int_eq(rc, -ENOMEM);
        before = render(&m);
        ck_assert_uint_eq(count_lines_starting(before, "cairn_plugin_info{"), g_reg.n_plugins);
        ck_assert_ptr_null(strstr(before, "cairn_plugin_info{name=\"fake-game\""));
        free(before);
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_gt(n, 2 * r2.n_plugins); /* every name and version failed once */
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &g_reg), 0);
    cairn_metrics_free(&m);

    /* A tally naming a variant the metrics have no series for yet. */
    ck_assert_int_eq(cairn_metrics_init(&m, "1.2.3"), 0);
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &g_reg), 0);
    ck_assert_int_eq(cairn_tally_init(&t, r2.n_plugins), 0);
    tally_solve(&t, plugin_index(&r2, "fake-game"), 1e-5);
    tally_error(&t, plugin_index(&r2, "stone-game"), CAIRN_CODE_CONSTRAINT);
    before = render(&m);
    for (n = 1;; n++) {
        th_alloc_fail_at(n);
        rc = cairn_metrics_add_tally(&m, &r2, &t);
        failed = th_alloc_disarm();
        if (!failed)
            break;
        ck_assert_int_eq(rc, -ENOMEM);
        after = render(&m);
        ck_assert_str_eq(after, before);
        free(after);
    }
    ck_assert_int_eq(rc, 0);
    ck_assert_int_gt(n, 1);
    free(before);
    cairn_tally_free(&t);

    /* A render that runs out of memory leaves the buffer as it was. */
    before = render(&m);
    ck_assert_uint_eq(u64_of(before, "cairn_records_total{variant=\"fake-game\",status=\"ok\"}"),
                      1);
    ck_assert_uint_eq(u64_of(before, "cairn_record_errors_total{code=\"constraint\"}"), 1);
    for (n = 1;; n++) {
        struct cairn_buf b = { 0 };

        ck_assert_int_eq(cairn_buf_puts(&b, "# kept\n"), 0);
        th_alloc_fail_at(n);
        rc = cairn_metrics_render(&m, &b);
        failed = th_alloc_disarm();
        if (failed) {
            ck_assert_int_eq(rc, -ENOMEM);
            ck_assert_uint_eq(b.len, strlen("# kept\n"));
            cairn_buf_free(&b);
            continue;
        }
        ck_assert_int_eq(rc, 0);
        ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
        ck_assert_str_eq(b.data + strlen("# kept\n"), before);
        cairn_buf_free(&b);
        break;
    }
    ck_assert_int_gt(n, 1);
    free(before);
    cairn_metrics_free(&m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* jobs: counters, wall-time histogram, bytes, gauges                  */
/* ------------------------------------------------------------------ */

START_TEST(test_jobs_bytes_and_gauges)
{
    struct cairn_metrics m;
    char *text;

    ck_assert_int_eq(cairn_metrics_init(&m, "1"), 0);
    cairn_metrics_job_done(&m, 1, 0.0005);
    cairn_metrics_job_done(&m, 1, 0.5);
    cairn_metrics_job_done(&m, 0, 4000);
    cairn_metrics_job_done(&m, 1, -1); /* a clock step: counted as instant */
    cairn_metrics_add_bytes(&m, 100);
    cairn_metrics_add_bytes(&m, 23);
    cairn_metrics_set_gauges(&m, 3, 9);
    cairn_metrics_set_gauges(&m, 1, 4);
    text = render(&m);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_total{status=\"ok\"}"), 3);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_total{status=\"failed\"}"), 1);
    ck_assert_uint_eq(u64_of(text, "cairn_job_seconds_bucket{le=\"0.001\"}"), 2);
    ck_assert_uint_eq(u64_of(text, "cairn_job_seconds_bucket{le=\"0.5\"}"), 3);
    ck_assert_uint_eq(u64_of(text, "cairn_job_seconds_bucket{le=\"3600\"}"), 3);
    ck_assert_uint_eq(u64_of(text, "cairn_job_seconds_bucket{le=\"+Inf\"}"), 4);
    ck_assert_uint_eq(u64_of(text, "cairn_job_seconds_count"), 4);
    ck_assert_double_eq_tol(value_of(text, "cairn_job_seconds_sum"), 4000.5005, 1e-9);
    ck_assert_uint_eq(u64_of(text, "cairn_bytes_read_total"), 123);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_active"), 1);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_queued"), 4);
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* escaping: label values                                              */
/* ------------------------------------------------------------------ */

START_TEST(test_label_values_are_escaped)
{
    struct cairn_plugin_handle h = { .desc = &fake_quote };
    struct cairn_registry r = { .plugins = &h, .n_plugins = 1 };
    struct cairn_metrics m;
    char *text;

    ck_assert_int_eq(cairn_metrics_init(&m, "3.0-\"rc\"\\x"), 0);
    ck_assert_int_eq(cairn_metrics_set_plugins(&m, &r), 0);
    text = render(&m);
    ck_assert_uint_eq(
        u64_of(
            text,
            "cairn_plugin_info{name=\"fake-game\",version=\"2.0 \\\"beta\\\" C:\\\\new\\nline\"}"),
        1);
    ck_assert_uint_eq(u64_of(text, "cairn_build_info{version=\"3.0-\\\"rc\\\"\\\\x\"}"), 1);
    /* The raw newline never reaches the output. */
    ck_assert_ptr_null(strstr(text, "C:\\\\new\nline"));
    free(text);
    cairn_metrics_free(&m);
}
END_TEST

/* ------------------------------------------------------------------ */
/* configured labels (metrics_labels)                                  */
/* ------------------------------------------------------------------ */

/* The label text the configuration makes of {"instance":"node7",
 * "note":"a \"b\" c:\\d\ne"}: one value needing every escape. */
static char *labels_text(void)
{
    struct cairn_buf b = { 0 };

    ck_assert_int_eq(cairn_prom_label_put(&b, "instance", "node7"), 0);
    ck_assert_int_eq(cairn_buf_puts(&b, ","), 0);
    ck_assert_int_eq(cairn_prom_label_put(&b, "note", "a \"b\" c:\\d\ne"), 0);
    ck_assert_int_eq(cairn_buf_append(&b, "", 1), 0);
    return b.data;
}

#define LABELS "instance=\"node7\",note=\"a \\\"b\\\" c:\\\\d\\ne\""

START_TEST(test_label_put_escapes)
{
    char *t = labels_text();

    ck_assert_str_eq(t, LABELS);
    free(t);
}
END_TEST

START_TEST(test_label_names_follow_prometheus)
{
    static const char *const good[] = { "instance", "_x", "Node_7", "job", "a", "quantile_x" };
    static const char *const bad[] = { "",         "7up",     "in-stance", "a b",     "é",
                                       "__name__", "__x",     "status",    "variant", "code",
                                       "name",     "version", "le" };
    const char *why;
    size_t i;

    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        ck_assert_msg(cairn_prom_label_check(good[i], &why) == 0, "%s refused: %s", good[i], why);
        ck_assert_ptr_null(why);
    }
    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        why = NULL;
        ck_assert_msg(cairn_prom_label_check(bad[i], &why) == -EINVAL, "%s accepted", bad[i]);
        ck_assert_ptr_nonnull(why);
    }
}
END_TEST

/* Every sample, histograms and unlabelled gauges included, gets the
 * configured labels first; the rest of each line is what it was without
 * them, and "" means none. */
START_TEST(test_configured_labels_on_every_series)
{
    struct cairn_metrics m;
    char *labels = labels_text(), *plain, *text;
    const char *p, *q;
    size_t samples = 0;

    populate(&m);
    plain = render(&m);
    cairn_metrics_set_labels(&m, "");
    text = render(&m);
    ck_assert_str_eq(text, plain);
    free(text);
    cairn_metrics_set_labels(&m, labels);
    text = render(&m);
    for (p = plain, q = text; *p != '\0'; samples += *p != '#') {
        const char *pe = strchr(p, '\n'), *brace;
        size_t name_len;

        ck_assert_ptr_nonnull(pe);
        if (*p == '#') {
            ck_assert_msg(strncmp(p, q, (size_t)(pe - p + 1)) == 0, "comment changed: %s", q);
            q += pe - p + 1;
            p = pe + 1;
            continue;
        }
        name_len = strcspn(p, "{ ");
        ck_assert_msg(strncmp(p, q, name_len) == 0 && q[name_len] == '{' &&
                          strncmp(q + name_len + 1, LABELS, strlen(LABELS)) == 0,
                      "labels missing or not first: %.*s", (int)(strchr(q, '\n') - q), q);
        q += name_len + 1 + strlen(LABELS);
        brace = p + name_len;
        if (*brace == '{') { /* its own labels follow, after a comma */
            ck_assert_msg(*q == ',', "no comma: %.*s", (int)(strchr(q, '\n') - q), q);
            q++;
            brace++;
        } else { /* none of its own: the braces close at once */
            ck_assert_msg(*q == '}', "not closed: %.*s", (int)(strchr(q, '\n') - q), q);
            q++;
        }
        ck_assert_msg(strncmp(brace, q, (size_t)(pe - brace + 1)) == 0, "rest differs: %.*s / %.*s",
                      (int)(pe - p), p, (int)(strchr(q, '\n') - q), q);
        q += pe - brace + 1;
        p = pe + 1;
    }
    ck_assert_int_eq(*q, '\0');
    ck_assert_uint_gt(samples, 50);
    ck_assert_uint_eq(u64_of(text, "cairn_jobs_total{" LABELS ",status=\"ok\"}"), 1);
    ck_assert_uint_eq(u64_of(text, "cairn_bytes_read_total{" LABELS "}"), 4096);
    ck_assert_uint_eq(u64_of(text, "cairn_job_seconds_bucket{" LABELS ",le=\"+Inf\"}"), 2);
    /* The raw newline never reaches the output. */
    ck_assert_ptr_null(strstr(text, "d\ne"));
    free(text);
    free(plain);
    cairn_metrics_free(&m);
    free(labels);
}
END_TEST

/* ------------------------------------------------------------------ */
/* write: atomic publication                                           */
/* ------------------------------------------------------------------ */

START_TEST(test_write_publishes_the_render_atomically)
{
    struct cairn_metrics m;
    struct stat st;
    char *dir = make_tmpdir(), *path, *names, *text, *onfile;

    populate(&m);
    path = cairn_asprintf("%s/metrics.prom", dir);
    /* A strict umask must not hide the file from the collector's user. */
    umask(077);
    ck_assert_int_eq(write_to(&m, dir, "metrics.prom"), 0);
    /* Twice: the second rename replaces the first file. */
    cairn_metrics_add_bytes(&m, 1);
    ck_assert_int_eq(write_to(&m, dir, "metrics.prom"), 0);
    names = list_dir(dir);
    ck_assert_str_eq(names, "metrics.prom");
    ck_assert_int_eq(stat(path, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0644);
    text = render(&m);
    onfile = slurp(path);
    ck_assert_str_eq(onfile, text);
    free(onfile);
    free(text);
    free(names);
    free(path);
    cairn_metrics_free(&m);
    rm_dir(dir, "metrics.prom");
}
END_TEST

START_TEST(test_write_fails_cleanly)
{
    struct cairn_metrics m;
    char *dir = make_tmpdir(), *missing = cairn_asprintf("%s/gone", dir), *names;

    ck_assert_int_eq(cairn_metrics_init(&m, "1"), 0);
    /* A directory removed while its descriptor is held. */
    {
        int fd;

        ck_assert_int_eq(mkdir(missing, 0755), 0);
        fd = open(missing, O_RDONLY | O_DIRECTORY);
        ck_assert_int_ge(fd, 0);
        ck_assert_int_eq(rmdir(missing), 0);
        ck_assert_int_eq(cairn_metrics_write(&m, fd, "metrics.prom"), -ENOENT);
        close(fd);
    }
    ck_assert_int_eq(write_to(&m, dir, "sub/metrics.prom"), -EINVAL);
    ck_assert_int_eq(write_to(&m, dir, ""), -EINVAL);
    ck_assert_int_eq(write_to(&m, dir, ".."), -EINVAL);
    /* A directory in the way of the final name: rename fails, and the temp
     * file must not be left behind. */
    {
        char *blocker = cairn_asprintf("%s/metrics.prom", dir);

        ck_assert_int_eq(mkdir(blocker, 0755), 0);
        ck_assert_int_lt(write_to(&m, dir, "metrics.prom"), 0);
        names = list_dir(dir);
        ck_assert_str_eq(names, "metrics.prom");
        free(names);
        rmdir(blocker);
        free(blocker);
    }
    names = list_dir(dir);
    ck_assert_str_eq(names, "");
    free(names);
    free(missing);
    cairn_metrics_free(&m);
    rm_dir(dir, "metrics.prom");
}
END_TEST

/* A link planted where the writer stages its file (here the name every
 * earlier cairnd used, ".cairn.PID.FILE.tmp", which anyone could predict)
 * must never be followed: its target keeps its bytes and its mode. */
START_TEST(test_write_never_follows_a_planted_link)
{
    struct cairn_metrics m;
    struct stat st;
    char *dir = make_tmpdir(), *victim, *link, *names, *text;

    populate(&m);
    victim = cairn_asprintf("%s/victim", dir);
    link = cairn_asprintf("%s/.cairn.%ld.metrics.prom.tmp", dir, (long)getpid());
    {
        FILE *f = fopen(victim, "w");
        ck_assert_ptr_nonnull(f);
        fputs("precious\n", f);
        fclose(f);
    }
    ck_assert_int_eq(chmod(victim, 0600), 0);
    ck_assert_int_eq(symlink(victim, link), 0);
    ck_assert_int_eq(write_to(&m, dir, "metrics.prom"), 0);
    text = slurp(victim);
    ck_assert_str_eq(text, "precious\n");
    ck_assert_int_eq(stat(victim, &st), 0);
    ck_assert_int_eq(st.st_mode & 0777, 0600);
    ck_assert_int_eq(lstat(link, &st), 0);
    ck_assert(S_ISLNK(st.st_mode));
    free(text);
    /* The published file is a new regular file, not the link's target. */
    names = list_dir(dir);
    ck_assert_ptr_nonnull(strstr(names, "metrics.prom"));
    free(names);
    unlink(link);
    unlink(victim);
    free(link);
    free(victim);
    cairn_metrics_free(&m);
    rm_dir(dir, "metrics.prom");
}
END_TEST

/* ------------------------------------------------------------------ */
/* promtool: the whole output passes `promtool check metrics`          */
/* ------------------------------------------------------------------ */

/* 1 when promtool is on PATH; says why the check is skipped otherwise. */
static int have_promtool(void)
{
    if (system("command -v promtool >/dev/null 2>&1") == 0)
        return 1;
    fprintf(stderr, "test_metrics: promtool not on PATH, skipping the promtool check "
                    "(install the Debian package 'prometheus')\n");
    return 0;
}

/* Writes m's file and runs `promtool check metrics` over it. */
static void promtool_check(const struct cairn_metrics *m)
{
    char *dir, *cmd, *log, *logpath;
    int rc;

    dir = make_tmpdir();
    ck_assert_int_eq(write_to(m, dir, "metrics.prom"), 0);
    logpath = cairn_asprintf("%s/promtool.log", dir);
    cmd = cairn_asprintf("promtool check metrics < '%s/metrics.prom' > '%s' 2>&1", dir, logpath);
    rc = system(cmd);
    log = slurp(logpath);
    ck_assert_msg(rc == 0, "promtool check metrics failed (%d):\n%s", rc, log);
    unlink(logpath);
    free(log);
    free(logpath);
    free(cmd);
    rm_dir(dir, "metrics.prom");
}

START_TEST(test_promtool_accepts_populated_output)
{
    struct cairn_metrics m;

    if (!have_promtool())
        return;
    populate(&m);
    promtool_check(&m);
    cairn_metrics_free(&m);
}
END_TEST

START_TEST(test_promtool_accepts_configured_labels)
{
    struct cairn_metrics m;
    char *labels = labels_text();

    if (!have_promtool()) {
        free(labels);
        return;
    }
    populate(&m);
    cairn_metrics_set_labels(&m, labels);
    promtool_check(&m);
    cairn_metrics_free(&m);
    free(labels);
}
END_TEST

static Suite *metrics_suite(void)
{
    Suite *s = suite_create("metrics");
    TCase *tc;

    tc = tcase_create("exposition");
    tcase_add_test(tc, test_every_family_has_help_and_type);
    tcase_add_test(tc, test_fresh_metrics_have_zero_series);
    suite_add_tcase(s, tc);

    tc = tcase_create("tally");
    tcase_add_test(tc, test_counts_add_up_across_tallies);
    tcase_add_test(tc, test_solve_histogram_is_cumulative_and_sorted);
    tcase_add_test(tc, test_unresolved_records_are_variant_none);
    tcase_add_test(tc, test_counts_follow_names_across_reload);
    tcase_add_test(tc, test_add_tally_rejects_a_mismatched_registry);
    tcase_add_test(tc, test_out_of_memory_changes_nothing);
    suite_add_tcase(s, tc);

    tc = tcase_create("jobs");
    tcase_add_test(tc, test_jobs_bytes_and_gauges);
    suite_add_tcase(s, tc);

    tc = tcase_create("escaping");
    tcase_add_test(tc, test_label_values_are_escaped);
    suite_add_tcase(s, tc);

    tc = tcase_create("configured labels");
    tcase_add_test(tc, test_label_put_escapes);
    tcase_add_test(tc, test_label_names_follow_prometheus);
    tcase_add_test(tc, test_configured_labels_on_every_series);
    suite_add_tcase(s, tc);

    tc = tcase_create("write");
    tcase_add_test(tc, test_write_publishes_the_render_atomically);
    tcase_add_test(tc, test_write_fails_cleanly);
    tcase_add_test(tc, test_write_never_follows_a_planted_link);
    suite_add_tcase(s, tc);

    tc = tcase_create("promtool");
    tcase_add_test(tc, test_promtool_accepts_populated_output);
    tcase_add_test(tc, test_promtool_accepts_configured_labels);
    suite_add_tcase(s, tc);

    return s;
}

int main(void)
{
    const char *dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    int failed, rc;

    if (dir == NULL || dir[0] == '\0') {
        fprintf(stderr, "test_metrics: CAIRN_TEST_PLUGIN_DIR is not set: it must name the "
                        "folder holding the plugins (meson test sets it)\n");
        return EXIT_FAILURE;
    }
    rc = cairn_registry_load(&g_reg, dir);
    if (rc != 0 || g_reg.n_plugins < 3) {
        size_t i;
        fprintf(stderr, "test_metrics: cairn_registry_load(%s) returned %d, %zu plugin(s):\n", dir,
                rc, g_reg.n_plugins);
        for (i = 0; i < g_reg.n_errors; i++)
            fprintf(stderr, "  %s\n", g_reg.errors[i]);
        return EXIT_FAILURE;
    }

    failed = th_run_suite(metrics_suite(), CK_NORMAL, 1);
    cairn_registry_free(&g_reg);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
