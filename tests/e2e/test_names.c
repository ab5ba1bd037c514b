/*
 * test_names.c - job names a hostile producer can choose (hardening,
 * names are untrusted): control characters never reach the log raw; names that are
 * not UTF-8 are escaped into summaries, distinctly; names near NAME_MAX
 * get outputs and attempt counts like any other.
 */
#include <check.h>
#include <dirent.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "names.h"
#include "spool.h"
#include "util.h"

static const char *g_cairnd;
static const char *g_plugins;

static const char JOB[] =
    "{\"id\":1,\"variant\":\"stone-game-iii\",\"input\":{\"stoneValue\":[1,2,3,7]}}\n";

static void env_init(struct th_env *e)
{
    th_env_init(e, "{\"min_age_ms\":0}\n");
}

/* Runs --once; exit status want; returns its log. */
static char *once_log_status(const struct th_env *e, int want)
{
    char *argv[] = { (char *)g_cairnd, "-c",          (char *)e->cfg,
                     "--input",        (char *)e->in, "--output",
                     (char *)e->out,   "--plugins",   (char *)g_plugins,
                     "--once",         NULL };
    int p = th_spawn(e->root, argv), code;

    code = th_wait_exit(p, 60000);
    TH_REQUIRE(code == want, "cairnd --once exited %d, want %d", code, want);
    return th_read_file(th_log[p], NULL);
}

/* The whole log of a --once run.  journald reads a "<N>" at the start of a
 * line as its priority, so a raw newline in a name could forge one. */
static char *once_log(const struct th_env *e)
{
    char *argv[] = { (char *)g_cairnd, "-c",          (char *)e->cfg,
                     "--input",        (char *)e->in, "--output",
                     (char *)e->out,   "--plugins",   (char *)g_plugins,
                     "--once",         NULL };
    int p = th_spawn(e->root, argv), code;

    code = th_wait_exit(p, 20000);
    TH_REQUIRE(code == 0, "cairnd --once exited %d", code);
    return th_read_file(th_log[p], NULL);
}

/* A name holding "\n<0>" once forged an emergency-priority journal entry:
 * every control byte is escaped, and each job is still logged on one line. */
/* The name a reused job name runs as: NAME~N.jsonl, cut to fit
 * NAME_MAX without splitting a UTF-8 character. */
START_TEST(reused_name_fits_and_keeps_utf8_whole)
{
    char name[NAME_MAX + 1], *got;
    size_t i;

    got = cairn_run_name("a.jsonl", 2);
    ck_assert_str_eq(got, "a~2.jsonl");
    free(got);
    got = cairn_run_name("x~2.jsonl", 13);
    ck_assert_str_eq(got, "x~2~13.jsonl");
    free(got);
    /* 249 bytes of name: "~2.jsonl" more would be 257.  The bytes around
     * the cut (bytes 246, 247) are one 2-byte character, so the cut moves
     * before it. */
    for (i = 0; i < 249; i++)
        name[i] = 'n';
    name[246] = (char)0xc3;
    name[247] = (char)0xa9;
    memcpy(name + 249, ".jsonl", 7);
    got = cairn_run_name(name, 2);
    ck_assert_uint_le(strlen(got), NAME_MAX);
    ck_assert_str_eq(got + strlen(got) - strlen("~2.jsonl"), "~2.jsonl");
    ck_assert_msg(strncmp(got, name, strlen(got) - strlen("~2.jsonl")) == 0, "not a prefix");
    ck_assert_msg(((unsigned char)got[strlen(got) - strlen("~2.jsonl") - 1] & 0xC0) != 0xC0,
                  "the cut split a UTF-8 character: %s", got);
    free(got);
}
END_TEST

START_TEST(control_characters_are_escaped_in_the_log)
{
    struct th_env e;
    char *log, *line;
    int lines_with_name = 0;

    env_init(&e);
    th_drop_job(e.in, "evil\n<0>forged\x1b[2J.jsonl", JOB, strlen(JOB));
    log = once_log(&e);
    for (line = log; line != NULL && *line != '\0';) {
        char *nl = strchr(line, '\n');
        if (nl != NULL)
            *nl = '\0';
        TH_REQUIRE(strncmp(line, "<0>", 3) != 0 && strncmp(line, "forged", 6) != 0,
                   "a forged log line: %s", line);
        TH_REQUIRE(strchr(line, '\x1b') == NULL, "a raw escape byte in: %s", line);
        lines_with_name += strstr(line, "evil\\x0a<0>forged\\x1b[2J") != NULL;
        line = nl != NULL ? nl + 1 : NULL;
    }
    TH_REQUIRE(lines_with_name >= 2, "the job's name, escaped, is on %d line(s)", lines_with_name);
    free(log);
    th_cleanup();
}
END_TEST

static json_t *summary(const struct th_env *e, const char *out_base)
{
    char path[PATH_MAX];

    th_pathf(path, "%s/%s.summary.json", e->out, out_base);
    TH_REQUIRE(th_exists(path), "no summary %s", path);
    return th_load_json(path);
}

/* Names that are not UTF-8 once left summaries without job, input and
 * results, and a symlink so named was retried for ever.  Now names are
 * escaped (\xNN for such bytes, backslashes doubled), so a name that
 * really holds the four characters \xff stays distinct. */
START_TEST(names_that_are_not_utf8_are_escaped)
{
    struct th_env e;
    char path[PATH_MAX];
    json_t *a, *b, *c;

    env_init(&e);
    th_drop_job(e.in, "bad\xff.jsonl", JOB, strlen(JOB));
    th_drop_job(e.in, "bad\\xff.jsonl", JOB, strlen(JOB));
    th_pathf(path, "%s/link\xfe.jsonl", e.in);
    ck_assert_int_eq(symlink("/etc/passwd", path), 0);
    free(once_log_status(&e, 1));
    a = summary(&e, "bad\xff");
    b = summary(&e, "bad\\xff");
    c = summary(&e, "link\xfe");
    TH_REQUIRE(strcmp(th_str_field(a, "job"), "bad\\xff") == 0, "job %s", th_str_field(a, "job"));
    TH_REQUIRE(strcmp(th_str_field(a, "input"), "bad\\xff.jsonl") == 0, "input %s",
               th_str_field(a, "input"));
    TH_REQUIRE(strcmp(th_str_field(a, "results"), "bad\\xff.results.jsonl") == 0, "results %s",
               th_str_field(a, "results"));
    TH_REQUIRE(strcmp(th_str_field(a, "status"), "ok") == 0, "status %s",
               th_str_field(a, "status"));
    TH_REQUIRE(strcmp(th_str_field(b, "job"), "bad\\\\xff") == 0, "job %s", th_str_field(b, "job"));
    TH_REQUIRE(strcmp(th_str_field(c, "job"), "link\\xfe") == 0 &&
                   strcmp(th_str_field(c, "status"), "failed") == 0,
               "the symlink's summary: job %s, status %s", th_str_field(c, "job"),
               th_str_field(c, "status"));
    th_pathf(path, "%s/.cairn/failed/link\xfe.jsonl", e.in);
    TH_REQUIRE(th_exists(path), "the symlink is not quarantined");
    json_decref(a);
    json_decref(b);
    json_decref(c);
    th_cleanup();
}
END_TEST

/* A job that crashes the daemon is quarantined after max_attempts runs,
 * whatever the length of its name: the count once lived in a file named
 * after the job, which did not fit for names near NAME_MAX. */
START_TEST(long_named_poison_job_is_quarantined)
{
    struct th_env e;
    char name[NAME_MAX + 1], path[PATH_MAX], gate[PATH_MAX];
    char *job;
    size_t len;
    int p;
    DIR *d;
    struct dirent *de;
    json_t *sum = NULL;

    env_init(&e);
    th_write_text(e.cfg, "{\"min_age_ms\":0,\"max_attempts\":1,\"threads\":1}\n");
    memset(name, 'p', 249);
    strcpy(name + 249, ".jsonl");
    /* One record of plugin "slow", held at its gate: the run is in flight
     * at the kill however fast or slow the machine. */
    th_plugins_with_slow(e.root, e.plugins);
    th_close_slow_gate(e.root, gate);
    job = th_slow_job(1, 1, &len);
    th_drop_job(e.in, name, job, len);
    free(job);
    {
        char *argv[] = { (char *)g_cairnd, "-c",  e.cfg,       "--input", e.in,
                         "--output",       e.out, "--plugins", e.plugins, NULL };
        p = th_spawn(e.root, argv);
    }
    /* Killed mid-run, as a crashing plugin or the OOM killer would, once
     * the run is counted (the signal: its count on the job file). */
    TH_EVENTUALLY(th_attempts_of(e.active, name) == 1, 20000, "the job's run was never counted");
    kill(th_pid[p], SIGKILL);
    th_reap(p, 0);
    free(once_log_status(&e, 1));
    th_pathf(path, "%s/.cairn/failed/%s", e.in, name);
    TH_REQUIRE(th_exists(path), "the poison job with a 255-byte name is not quarantined");
    d = opendir(e.out);
    ck_assert_ptr_nonnull(d);
    while ((de = readdir(d)) != NULL)
        if (th_ends_with(de->d_name, ".summary.json") && sum == NULL) {
            th_pathf(path, "%s/%s", e.out, de->d_name);
            sum = th_load_json(path);
        }
    closedir(d);
    TH_REQUIRE(sum != NULL, "no summary for the quarantined job");
    TH_REQUIRE(strcmp(th_str_field(sum, "status"), "failed") == 0 &&
                   strncmp(th_str_field(sum, "job"), name, 249) == 0 &&
                   strstr(th_str_field(sum, "reason"), "never finished") != NULL,
               "summary: status %s, reason %s", th_str_field(sum, "status"),
               th_str_field(sum, "reason"));
    json_decref(sum);
    th_cleanup();
}
END_TEST

/* A name too long for NAME.results.jsonl is cut to 200 bytes, never
 * inside a UTF-8 character (a reader of the output directory would see a
 * broken name), then "~" and a hash; a name whose first 200 bytes are all
 * continuation bytes (not UTF-8 at all) keeps none of them. */
START_TEST(long_output_names_cut_between_characters)
{
    char name[NAME_MAX + 1], other[NAME_MAX + 1], *b, *c;

    /* "\xe2\x82\xac" (the euro sign) at bytes 199..201: byte 200 is
     * inside it, so the cut comes before it. */
    memset(name, 'a', 199);
    memcpy(name + 199, "\xe2\x82\xac", 3);
    memset(name + 202, 'b', 40);
    strcpy(name + 242, ".jsonl");
    b = cairn_output_base(name);
    ck_assert_ptr_nonnull(b);
    ck_assert_uint_eq(strlen(b), 199 + 1 + 16);
    ck_assert_int_eq(memcmp(b, name, 199), 0);
    ck_assert_int_eq(b[199], '~');
    ck_assert_uint_le(strlen(b) + strlen(".results.jsonl"), NAME_MAX);
    free(b);

    memset(name, 0x80, 245);
    strcpy(name + 245, ".jsonl");
    memcpy(other, name, sizeof(name));
    other[0] = (char)0x81;
    b = cairn_output_base(name);
    c = cairn_output_base(other);
    ck_assert_ptr_nonnull(b);
    ck_assert_ptr_nonnull(c);
    ck_assert_uint_eq(strlen(b), 1 + 16);
    ck_assert_int_eq(b[0], '~');
    ck_assert_str_ne(b, c); /* distinct names, distinct outputs */
    free(b);
    free(c);

    b = cairn_output_base("short.jsonl");
    ck_assert_str_eq(b, "short");
    free(b);
}
END_TEST

/* Which names in the spool are jobs, and which are never taken (and
 * said once in the log): temporaries and hidden files are neither. */
START_TEST(job_names_and_names_never_taken)
{
    static const char *const jobs[] = { "a.jsonl", "x y.jsonl", "a.b.jsonl" };
    static const char *const never[] = { "notes.txt", "a.json", "a.jsonl.gz", "jsonl" };
    static const char *const neither[] = { ".jsonl", ".a.jsonl", "",           ".hidden",
                                           "a.tmp",  ".cairn",   "a.jsonl.tmp" };
    size_t i;

    for (i = 0; i < sizeof(jobs) / sizeof(jobs[0]); i++) {
        ck_assert_msg(cairn_spool_is_job_name(jobs[i]), "%s is a job", jobs[i]);
        ck_assert_msg(!cairn_spool_is_never_taken(jobs[i]), "%s is taken", jobs[i]);
    }
    for (i = 0; i < sizeof(never) / sizeof(never[0]); i++) {
        ck_assert_msg(!cairn_spool_is_job_name(never[i]), "%s is no job", never[i]);
        ck_assert_msg(cairn_spool_is_never_taken(never[i]), "%s is never taken", never[i]);
    }
    for (i = 0; i < sizeof(neither) / sizeof(neither[0]); i++) {
        ck_assert_msg(!cairn_spool_is_job_name(neither[i]), "%s is no job", neither[i]);
        ck_assert_msg(!cairn_spool_is_never_taken(neither[i]), "%s is not said", neither[i]);
    }
    /* A path is no name in the spool. */
    ck_assert(!cairn_spool_is_job_name("sub/a.jsonl"));
}
END_TEST

int main(void)
{
    Suite *s = suite_create("names");
    TCase *tc = tcase_create("names");
    int failed;

    g_cairnd = getenv("CAIRN_TEST_CAIRND");
    g_plugins = getenv("CAIRN_TEST_PLUGIN_DIR");
    if (g_cairnd == NULL || g_plugins == NULL) {
        fprintf(stderr, "test_names: CAIRN_TEST_CAIRND and CAIRN_TEST_PLUGIN_DIR must be set "
                        "(meson test sets them)\n");
        return EXIT_FAILURE;
    }
    if (th_make_top("names") != 0)
        return EXIT_FAILURE;
    atexit(th_cleanup_top);
    tcase_add_test(tc, reused_name_fits_and_keeps_utf8_whole);
    tcase_add_test(tc, control_characters_are_escaped_in_the_log);
    tcase_add_test(tc, names_that_are_not_utf8_are_escaped);
    tcase_add_test(tc, long_named_poison_job_is_quarantined);
    tcase_add_test(tc, long_output_names_cut_between_characters);
    tcase_add_test(tc, job_names_and_names_never_taken);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_ENV, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
