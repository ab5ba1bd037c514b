/*
 * test_config.c - core/common/config.c and how cairnd reports a
 * bad configuration file.
 *
 * Files are written into one mkdtemp directory made by main() and removed
 * at the end, whatever the forked cases did.
 */
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "alloc_fail.h"
#include "cairn/plugin.h"
#include "config.h"
#include "harness.h"

static char root_dir[] = "/tmp/cairn-test-config-XXXXXX";

/* Writes text to a new file named `name` in a new directory; returns the
 * path.  Each call gets its own directory, so names never collide. */
static char *write_file(const char *name, const char *text)
{
    char *dir = th_make_dir_in(root_dir);
    char *path = th_xasprintf("%s/%s", dir, name);

    th_write_text(path, text);
    free(dir);
    return path;
}

static struct cairn_config defaults(void)
{
    struct cairn_config cfg;

    ck_assert_int_eq(cairn_config_defaults(&cfg), 0);
    return cfg;
}

/* Loads `json` from a file named cairn.json; returns the code, and the
 * message and path through the out-parameters (caller frees). */
static int load_text(struct cairn_config *cfg, const char *json, char **path, char **err)
{
    *path = write_file("cairn.json", json);
    return cairn_config_load_file(cfg, *path, err);
}

/* ---- defaults --------------------------------------------------------- */

START_TEST(defaults_match_the_spec)
{
    struct cairn_config cfg = defaults();

    ck_assert_ptr_null(cfg.input_dir);
    ck_assert_ptr_null(cfg.output_dir);
    ck_assert_ptr_nonnull(cfg.plugin_dir);
    ck_assert_int_gt(strlen(cfg.plugin_dir), 0);
    ck_assert_uint_eq(cfg.threads, 0);
    ck_assert_uint_eq(cfg.min_age_ms, 1000);
    ck_assert_double_eq(cfg.rescan_interval_s, 30.0);
    ck_assert_int_ne(cfg.keep_inputs, 0);
    ck_assert_uint_eq(cfg.max_line_bytes, 16u * 1024u * 1024u);
    ck_assert_uint_eq(cfg.max_attempts, 3);
    ck_assert_ptr_nonnull(cfg.metrics_file);
    ck_assert_str_eq(cfg.metrics_file, "metrics.prom");
    ck_assert_double_eq(cfg.metrics_interval_s, 10.0);
    ck_assert_double_eq(cfg.shutdown_timeout_s, 30.0);
    ck_assert_double_eq(cfg.solve_timeout_s, 60.0);
    ck_assert_int_eq(cfg.limits, CAIRN_LIMITS_OFFICIAL);
    ck_assert_ptr_null(cfg.default_variant);
    ck_assert_int_eq(cfg.log_level, CAIRN_LOG_INFO);
    cairn_config_free(&cfg);
    /* free leaves it freeable again */
    cairn_config_free(&cfg);
}
END_TEST

/* ---- a good file ------------------------------------------------------ */

START_TEST(every_key_loads)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;
    int rc;

    rc = load_text(&cfg,
                   "{\n"
                   "  \"input_dir\": \"/srv/cairn/in\",\n"
                   "  \"output_dir\": \"/srv/cairn/out\",\n"
                   "  \"plugin_dir\": \"/opt/cairn/plugins\",\n"
                   "  \"threads\": 12,\n"
                   "  \"min_age_ms\": 250,\n"
                   "  \"rescan_interval_s\": 2.5,\n"
                   "  \"keep_inputs\": false,\n"
                   "  \"max_line_bytes\": 1048576,\n"
                   "  \"max_attempts\": 7,\n"
                   "  \"metrics_file\": \"node-a.prom\",\n"
                   "  \"metrics_interval_s\": 1,\n"
                   "  \"shutdown_timeout_s\": 0.5,\n"
                   "  \"solve_timeout_s\": 2.5,\n"
                   "  \"limits\": \"extended\",\n"
                   "  \"default_variant\": \"877\",\n"
                   "  \"log_level\": \"debug\"\n"
                   "}\n",
                   &path, &err);
    ck_assert_msg(rc == 0, "rc %d: %s", rc, err ? err : "(no message)");
    ck_assert_ptr_null(err);
    ck_assert_str_eq(cfg.input_dir, "/srv/cairn/in");
    ck_assert_str_eq(cfg.output_dir, "/srv/cairn/out");
    ck_assert_str_eq(cfg.plugin_dir, "/opt/cairn/plugins");
    ck_assert_uint_eq(cfg.threads, 12);
    ck_assert_uint_eq(cfg.min_age_ms, 250);
    ck_assert_double_eq(cfg.rescan_interval_s, 2.5);
    ck_assert_int_eq(cfg.keep_inputs, 0);
    ck_assert_uint_eq(cfg.max_line_bytes, 1048576);
    ck_assert_uint_eq(cfg.max_attempts, 7);
    ck_assert_str_eq(cfg.metrics_file, "node-a.prom");
    ck_assert_double_eq(cfg.metrics_interval_s, 1.0);
    ck_assert_double_eq(cfg.shutdown_timeout_s, 0.5);
    ck_assert_double_eq(cfg.solve_timeout_s, 2.5);
    ck_assert_int_eq(cfg.limits, CAIRN_LIMITS_EXTENDED);
    ck_assert_str_eq(cfg.default_variant, "877");
    ck_assert_int_eq(cfg.log_level, CAIRN_LOG_DEBUG);
    cairn_config_free(&cfg);
    free(path);
}
END_TEST

START_TEST(unset_keys_keep_their_values)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;

    ck_assert_int_eq(load_text(&cfg, "{\"threads\": 3}", &path, &err), 0);
    ck_assert_uint_eq(cfg.threads, 3);
    ck_assert_uint_eq(cfg.min_age_ms, 1000);
    ck_assert_uint_eq(cfg.max_attempts, 3);
    ck_assert_str_eq(cfg.metrics_file, "metrics.prom");
    ck_assert_int_eq(cfg.limits, CAIRN_LIMITS_OFFICIAL);
    free(path);

    /* An empty object changes nothing. */
    ck_assert_int_eq(load_text(&cfg, "{}", &path, &err), 0);
    ck_assert_uint_eq(cfg.threads, 3);
    cairn_config_free(&cfg);
    free(path);
}
END_TEST

START_TEST(optional_string_may_be_null)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;

    ck_assert_int_eq(load_text(&cfg, "{\"default_variant\": \"1140\"}", &path, &err), 0);
    ck_assert_str_eq(cfg.default_variant, "1140");
    free(path);
    ck_assert_int_eq(load_text(&cfg, "{\"default_variant\": null}", &path, &err), 0);
    ck_assert_ptr_null(cfg.default_variant);
    cairn_config_free(&cfg);
    free(path);
}
END_TEST

/* Kept as the text every series gets, values escaped as Prometheus's text
 * format wants; {} and null mean none. */
START_TEST(metrics_labels_load)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;

    ck_assert_ptr_null(cfg.metrics_labels);
    ck_assert_int_eq(load_text(&cfg,
                               "{\"metrics_labels\": {\"instance\": \"node7\", "
                               "\"_Zone9\": \"a\\\"b\\\\c\\nd \\u00e9\"}}",
                               &path, &err),
                     0);
    ck_assert_str_eq(cfg.metrics_labels, "instance=\"node7\",_Zone9=\"a\\\"b\\\\c\\nd \xc3\xa9\"");
    free(path);
    ck_assert_int_eq(load_text(&cfg, "{\"metrics_labels\": {}}", &path, &err), 0);
    ck_assert_ptr_null(cfg.metrics_labels);
    free(path);
    ck_assert_int_eq(load_text(&cfg, "{\"metrics_labels\": {\"a\": \"1\"}}", &path, &err), 0);
    ck_assert_str_eq(cfg.metrics_labels, "a=\"1\"");
    free(path);
    ck_assert_int_eq(load_text(&cfg, "{\"metrics_labels\": null}", &path, &err), 0);
    ck_assert_ptr_null(cfg.metrics_labels);
    free(path);
    /* From text, as cairn_config_set takes it. */
    ck_assert_int_eq(cairn_config_set(&cfg, "metrics_labels", "{\"job\":\"cairn\"}", &err), 0);
    ck_assert_str_eq(cfg.metrics_labels, "job=\"cairn\"");
    cairn_config_free(&cfg);
}
END_TEST

/* A bad label is named, with the rule it breaks, besides file and key. */
START_TEST(metrics_labels_name_the_bad_label)
{
    static const struct {
        const char *json, *label, *rule;
    } bad[] = {
        { "{\"metrics_labels\": {\"ok\": \"1\", \"in-stance\": \"a\"}}", "\"in-stance\"",
          "[a-zA-Z_][a-zA-Z0-9_]*" },
        { "{\"metrics_labels\": {\"__x\": \"a\"}}", "\"__x\"", "reserved" },
        { "{\"metrics_labels\": {\"variant\": \"a\"}}", "\"variant\"", "cairn sets" },
        { "{\"metrics_labels\": {\"node\": 7}}", "\"node\"", "non-empty string" },
    };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cairn_config cfg = defaults();
        char *path, *err = NULL;

        ck_assert_int_eq(load_text(&cfg, "{\"metrics_labels\": {\"keep\": \"me\"}}", &path, &err),
                         0);
        free(path);
        ck_assert_int_eq(load_text(&cfg, bad[i].json, &path, &err), -EINVAL);
        ck_assert_ptr_nonnull(err);
        ck_assert_msg(strstr(err, path) != NULL, "no file in: %s", err);
        ck_assert_msg(strstr(err, "\"metrics_labels\"") != NULL, "no key in: %s", err);
        ck_assert_msg(strstr(err, bad[i].label) != NULL, "no label in: %s", err);
        ck_assert_msg(strstr(err, bad[i].rule) != NULL, "no rule in: %s", err);
        /* The old labels stand. */
        ck_assert_str_eq(cfg.metrics_labels, "keep=\"me\"");
        free(err);
        free(path);
        cairn_config_free(&cfg);
    }
}
END_TEST

/* ---- refusals --------------------------------------------------------- */

START_TEST(unknown_key_is_refused)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;
    int rc;

    char *where;

    rc = load_text(&cfg, "{\n  \"threads\": 2,\n\n  \"thread_count\": 4\n}\n", &path, &err);
    ck_assert_int_eq(rc, -EINVAL);
    ck_assert_ptr_nonnull(err);
    /* file:line, the line the key is written on */
    where = th_xasprintf("%s:4: ", path);
    ck_assert_msg(strstr(err, where) != NULL, "no %s in: %s", where, err);
    ck_assert_msg(strstr(err, "\"thread_count\"") != NULL, "no key in: %s", err);
    free(where);
    free(err);
    cairn_config_free(&cfg);
    free(path);
}
END_TEST

/* A wrong value names the line it is on, as an unknown key does. */
START_TEST(wrong_value_names_its_line)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL, *where;

    ck_assert_int_eq(load_text(&cfg,
                               "{\"threads\": 2,\n \"umask\": \"022\",\n \"limits\":\n   \"fast\"}",
                               &path, &err),
                     -EINVAL);
    where = th_xasprintf("%s:4: key \"limits\": ", path);
    ck_assert_msg(strstr(err, where) != NULL, "no %s in: %s", where, err);
    free(where);
    free(err);
    free(path);
    cairn_config_free(&cfg);
}
END_TEST

/* One wrong value per row; the message must name the file and the key. */
static const struct {
    const char *json;
    const char *key;
} wrong[] = {
    { "{\"threads\": \"4\"}", "threads" },
    { "{\"threads\": 1.5}", "threads" },
    { "{\"threads\": -2}", "threads" },
    { "{\"threads\": 100000}", "threads" },
    { "{\"keep_inputs\": 1}", "keep_inputs" },
    { "{\"keep_inputs\": \"true\"}", "keep_inputs" },
    { "{\"limits\": \"fast\"}", "limits" },
    { "{\"limits\": 1}", "limits" },
    { "{\"log_level\": \"loud\"}", "log_level" },
    { "{\"log_level\": null}", "log_level" },
    { "{\"min_age_ms\": -1}", "min_age_ms" },
    { "{\"min_age_ms\": true}", "min_age_ms" },
    { "{\"max_attempts\": 0}", "max_attempts" },
    { "{\"max_line_bytes\": 10}", "max_line_bytes" },
    { "{\"rescan_interval_s\": \"30\"}", "rescan_interval_s" },
    { "{\"rescan_interval_s\": -1}", "rescan_interval_s" },
    { "{\"shutdown_timeout_s\": []}", "shutdown_timeout_s" },
    { "{\"solve_timeout_s\": -1}", "solve_timeout_s" },
    { "{\"solve_timeout_s\": \"60\"}", "solve_timeout_s" },
    { "{\"metrics_file\": \"\"}", "metrics_file" },
    { "{\"metrics_file\": 5}", "metrics_file" },
    { "{\"plugin_dir\": null}", "plugin_dir" },
    { "{\"plugin_dir\": []}", "plugin_dir" },
    { "{\"plugin_dir\": [\"/a\", \"\"]}", "plugin_dir" },
    { "{\"plugin_dir\": [\"/a\", \"/b:/c\"]}", "plugin_dir" },
    { "{\"plugin_dir\": [\"/a\", 5]}", "plugin_dir" },
    { "{\"plugin_dir\": \"/a::/b\"}", "plugin_dir" },
    { "{\"plugin_dir\": \":/a\"}", "plugin_dir" },
    { "{\"plugin_dir\": \"/a:\"}", "plugin_dir" },
    { "{\"input_dir\": {}}", "input_dir" },
    { "{\"default_variant\": 877}", "default_variant" },
    { "{\"metrics_labels\": \"instance=node7\"}", "metrics_labels" },
    { "{\"metrics_labels\": [\"instance\"]}", "metrics_labels" },
    { "{\"metrics_labels\": {\"instance\": 7}}", "metrics_labels" },
    { "{\"metrics_labels\": {\"instance\": \"\"}}", "metrics_labels" },
    { "{\"metrics_labels\": {\"1st\": \"a\"}}", "metrics_labels" },
    { "{\"metrics_labels\": {\"in-stance\": \"a\"}}", "metrics_labels" },
    { "{\"metrics_labels\": {\"\": \"a\"}}", "metrics_labels" },
    { "{\"metrics_labels\": {\"__name__\": \"a\"}}", "metrics_labels" },
    { "{\"metrics_labels\": {\"status\": \"a\"}}", "metrics_labels" },
    { "{\"metrics_labels\": {\"le\": \"a\"}}", "metrics_labels" },
    { "{\"input_dir\": \"\"}", "input_dir" },
    { "{\"metrics_file\": null}", "metrics_file" },
    { "{\"plugin_dir\": 5}", "plugin_dir" },
    { "{\"threads\": null}", "threads" },
    { "{\"threads\": 1025}", "threads" },
    { "{\"max_attempts\": 1001}", "max_attempts" },
    { "{\"keep_inputs\": null}", "keep_inputs" },
    { "{\"rescan_interval_s\": 1e10}", "rescan_interval_s" },
    { "{\"rescan_interval_s\": true}", "rescan_interval_s" },
    { "{\"rescan_interval_s\": null}", "rescan_interval_s" },
    { "{\"limits\": null}", "limits" },
    { "{\"umask\": 27}", "umask" },
    { "{\"umask\": \"\"}", "umask" },
    { "{\"umask\": \"0o27\"}", "umask" },
    { "{\"umask\": \"-1\"}", "umask" },
    { "{\"umask\": \"0028\"}", "umask" },
    { "{\"umask\": \"1000\"}", "umask" },
    { "{\"umask\": \"7777777777777777777777777\"}", "umask" },
};

/* plugin_dir takes a list: a colon-separated string or an
 * array, kept as one colon-separated string for the loader. */
START_TEST(plugin_dir_takes_a_list)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;

    ck_assert_int_eq(
        load_text(&cfg, "{\"plugin_dir\": [\"/usr/lib/p\", \"my plugins\"]}", &path, &err), 0);
    ck_assert_str_eq(cfg.plugin_dir, "/usr/lib/p:my plugins");
    free(path);
    ck_assert_int_eq(load_text(&cfg, "{\"plugin_dir\": \"/a:/b\"}", &path, &err), 0);
    ck_assert_str_eq(cfg.plugin_dir, "/a:/b");
    free(path);
    ck_assert_int_eq(cairn_config_set(&cfg, "plugin_dir", "/x:/y:/z", &err), 0);
    ck_assert_str_eq(cfg.plugin_dir, "/x:/y:/z");
    cairn_config_free(&cfg);
}
END_TEST

START_TEST(wrong_type_is_refused)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;
    char *quoted = th_xasprintf("\"%s\"", wrong[_i].key);
    int rc;

    rc = load_text(&cfg, wrong[_i].json, &path, &err);
    ck_assert_msg(rc == -EINVAL, "%s: rc %d", wrong[_i].json, rc);
    ck_assert_msg(err != NULL, "%s: no message", wrong[_i].json);
    ck_assert_msg(strstr(err, path) != NULL, "%s: no file name in: %s", wrong[_i].json, err);
    ck_assert_msg(strstr(err, quoted) != NULL, "%s: no key in: %s", wrong[_i].json, err);
    free(err);
    cairn_config_free(&cfg);
    free(quoted);
    free(path);
}
END_TEST

START_TEST(invalid_json_names_line_and_column)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL, *prefix;
    int rc, line = 0, col = 0, n = 0;

    rc = load_text(&cfg, "{\n  \"threads\": 4,\n  oops: 1\n}\n", &path, &err);
    ck_assert_int_eq(rc, -EINVAL);
    ck_assert_ptr_nonnull(err);
    prefix = th_xasprintf("%s:", path);
    ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "does not start with file: %s", err);
    ck_assert_msg(sscanf(err + strlen(prefix), "%d:%d:%n", &line, &col, &n) == 2 && n > 0,
                  "no line:column in: %s", err);
    ck_assert_int_eq(line, 3);
    ck_assert_int_ge(col, 1);
    ck_assert_int_le(col, 8);
    free(err);
    free(prefix);
    free(path);

    /* Trailing garbage after the object, on line 2. */
    rc = load_text(&cfg, "{\"threads\": 4}\n}\n", &path, &err);
    ck_assert_int_eq(rc, -EINVAL);
    prefix = th_xasprintf("%s:2:", path);
    ck_assert_msg(strncmp(err, prefix, strlen(prefix)) == 0, "expected %s...: %s", prefix, err);
    free(err);
    free(prefix);
    cairn_config_free(&cfg);
    free(path);
}
END_TEST

START_TEST(non_object_is_refused)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;

    ck_assert_int_eq(load_text(&cfg, "[1, 2]\n", &path, &err), -EINVAL);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(strstr(err, path) != NULL, "no file name in: %s", err);
    free(err);
    cairn_config_free(&cfg);
    free(path);
}
END_TEST

/* -c /etc/cairn (a directory): said so, not "'[' or '{' expected near
 * end of file". */
START_TEST(a_directory_is_not_read_as_a_file)
{
    struct cairn_config cfg = defaults();
    char *dir = th_make_dir_in(root_dir);
    char *err = NULL, *want = th_xasprintf("%s: is a directory, not a configuration file", dir);

    ck_assert_int_eq(cairn_config_load_file(&cfg, dir, &err), -EINVAL);
    ck_assert_msg(err != NULL && strcmp(err, want) == 0, "%s", err);
    free(err);
    free(want);
    cairn_config_free(&cfg);
    free(dir);
}
END_TEST

/* A FIFO named as the configuration (or a file nobody will ever finish
 * writing to) is refused at once, naming it: an open(2) that waited for a
 * writer held cairnd --check, and a SIGHUP held the daemon's whole loop.
 * Nothing opens the FIFO's other end, so a blocking open never returns. */
START_TEST(a_fifo_is_refused_without_blocking)
{
    struct cairn_config cfg = defaults();
    char *dir = th_make_dir_in(root_dir);
    char *path = th_xasprintf("%s/cairn.json", dir), *err = NULL;

    ck_assert_int_eq(mkfifo(path, 0600), 0);
    ck_assert_int_eq(cairn_config_load_file(&cfg, path, &err), -EINVAL);
    ck_assert_msg(err != NULL && strstr(err, path) != NULL && strstr(err, "FIFO") != NULL &&
                      strstr(err, "not a regular file") != NULL,
                  "%s", err);
    ck_assert_uint_eq(cfg.min_age_ms, 1000); /* nothing was changed */
    free(err);
    cairn_config_free(&cfg);
    free(path);
    free(dir);
}
END_TEST

START_TEST(missing_file_is_named)
{
    struct cairn_config cfg = defaults();
    char *dir = th_make_dir_in(root_dir);
    char *path = th_xasprintf("%s/absent.json", dir);
    char *err = NULL;
    int rc;

    rc = cairn_config_load_file(&cfg, path, &err);
    ck_assert_int_lt(rc, 0);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(strstr(err, path) != NULL, "no file name in: %s", err);
    /* Nothing was changed. */
    ck_assert_uint_eq(cfg.min_age_ms, 1000);
    free(err);
    cairn_config_free(&cfg);
    free(path);
    free(dir);
}
END_TEST

START_TEST(duplicate_key_is_refused)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;

    ck_assert_int_eq(load_text(&cfg, "{\"threads\": 1,\n \"threads\": 2}\n", &path, &err), -EINVAL);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(strstr(err, path) != NULL, "no file name in: %s", err);
    ck_assert_msg(strstr(err, "threads") != NULL, "no key in: %s", err);
    free(err);
    cairn_config_free(&cfg);
    free(path);
}
END_TEST

/* ---- the command-line form -------------------------------------------- */

START_TEST(set_from_text)
{
    struct cairn_config cfg = defaults();
    char *err = NULL;

    ck_assert_int_eq(cairn_config_set(&cfg, "threads", "8", &err), 0);
    ck_assert_ptr_null(err);
    ck_assert_uint_eq(cfg.threads, 8);
    ck_assert_int_eq(cairn_config_set(&cfg, "threads", "0", &err), 0);
    ck_assert_uint_eq(cfg.threads, 0);
    ck_assert_int_eq(cairn_config_set(&cfg, "limits", "extended", &err), 0);
    ck_assert_int_eq(cfg.limits, CAIRN_LIMITS_EXTENDED);
    ck_assert_int_eq(cairn_config_set(&cfg, "limits", "official", &err), 0);
    ck_assert_int_eq(cfg.limits, CAIRN_LIMITS_OFFICIAL);
    ck_assert_int_eq(cairn_config_set(&cfg, "plugin_dir", "/tmp/p", &err), 0);
    ck_assert_str_eq(cfg.plugin_dir, "/tmp/p");
    /* A string that looks like a number stays a string. */
    ck_assert_int_eq(cairn_config_set(&cfg, "default_variant", "877", &err), 0);
    ck_assert_str_eq(cfg.default_variant, "877");
    ck_assert_int_eq(cairn_config_set(&cfg, "keep_inputs", "false", &err), 0);
    ck_assert_int_eq(cfg.keep_inputs, 0);
    ck_assert_int_eq(cairn_config_set(&cfg, "log_level", "error", &err), 0);
    ck_assert_int_eq(cfg.log_level, CAIRN_LOG_ERROR);
    cairn_config_free(&cfg);
}
END_TEST

static const struct {
    const char *key, *value;
} bad_set[] = {
    { "threads", "four" },
    { "threads", "-1" },
    { "threads", "4x" },
    { "threads", "" },
    { "threads", "2.5" },
    { "threads", "100000" },
    { "limits", "fast" },
    { "limits", "OFFICIAL" },
    { "limits", "" },
    { "max_attempts", "0" },
    { "log_level", "loud" },
    { "metrics_labels", "instance=node7" },
    { "metrics_labels", "{\"a\":\"1\",\"a\":\"2\"}" },
    { "metrics_labels", "{\"le\":\"1\"}" },
};

START_TEST(set_refuses_bad_values)
{
    struct cairn_config cfg = defaults();
    char *err = NULL;
    int rc;

    ck_assert_int_eq(cairn_config_set(&cfg, "threads", "6", &err), 0);
    rc = cairn_config_set(&cfg, bad_set[_i].key, bad_set[_i].value, &err);
    ck_assert_msg(rc == -EINVAL, "%s=\"%s\": rc %d", bad_set[_i].key, bad_set[_i].value, rc);
    ck_assert_msg(err != NULL, "%s=\"%s\": no message", bad_set[_i].key, bad_set[_i].value);
    ck_assert_msg(strstr(err, bad_set[_i].key) != NULL, "no key in: %s", err);
    /* The old value stands. */
    ck_assert_uint_eq(cfg.threads, 6);
    ck_assert_int_eq(cfg.limits, CAIRN_LIMITS_OFFICIAL);
    free(err);
    cairn_config_free(&cfg);
}
END_TEST

START_TEST(set_refuses_unknown_key)
{
    struct cairn_config cfg = defaults();
    char *err = NULL;

    ck_assert_int_eq(cairn_config_set(&cfg, "bogus_key", "1", &err), -EINVAL);
    ck_assert_ptr_nonnull(err);
    ck_assert_msg(strstr(err, "bogus_key") != NULL, "no key in: %s", err);
    free(err);
    cairn_config_free(&cfg);
}
END_TEST

/* ---- copies ----------------------------------------------------------- */

START_TEST(copy_is_independent)
{
    struct cairn_config src = defaults(), dst;
    char *err = NULL;

    ck_assert_int_eq(cairn_config_set(&src, "input_dir", "/in", &err), 0);
    ck_assert_int_eq(cairn_config_set(&src, "output_dir", "/out", &err), 0);
    ck_assert_int_eq(cairn_config_set(&src, "default_variant", "stone-game", &err), 0);
    ck_assert_int_eq(cairn_config_set(&src, "threads", "5", &err), 0);
    ck_assert_int_eq(cairn_config_set(&src, "metrics_labels", "{\"instance\":\"n1\"}", &err), 0);
    ck_assert_int_eq(cairn_config_copy(&dst, &src), 0);

    ck_assert_str_eq(dst.input_dir, "/in");
    ck_assert_str_eq(dst.output_dir, "/out");
    ck_assert_str_eq(dst.default_variant, "stone-game");
    ck_assert_str_eq(dst.plugin_dir, src.plugin_dir);
    ck_assert_str_eq(dst.metrics_file, "metrics.prom");
    ck_assert_uint_eq(dst.threads, 5);
    /* No string is shared. */
    ck_assert_ptr_ne(dst.input_dir, src.input_dir);
    ck_assert_ptr_ne(dst.output_dir, src.output_dir);
    ck_assert_ptr_ne(dst.plugin_dir, src.plugin_dir);
    ck_assert_ptr_ne(dst.metrics_file, src.metrics_file);
    ck_assert_ptr_ne(dst.default_variant, src.default_variant);
    ck_assert_str_eq(dst.metrics_labels, "instance=\"n1\"");
    ck_assert_ptr_ne(dst.metrics_labels, src.metrics_labels);

    /* Changing and freeing the source leaves the copy intact. */
    ck_assert_int_eq(cairn_config_set(&src, "input_dir", "/elsewhere", &err), 0);
    ck_assert_int_eq(cairn_config_set(&src, "threads", "9", &err), 0);
    ck_assert_str_eq(dst.input_dir, "/in");
    ck_assert_uint_eq(dst.threads, 5);
    cairn_config_free(&src);
    ck_assert_str_eq(dst.input_dir, "/in");
    ck_assert_str_eq(dst.default_variant, "stone-game");
    ck_assert_str_eq(dst.metrics_labels, "instance=\"n1\"");
    cairn_config_free(&dst);
}
END_TEST

START_TEST(copy_of_defaults_keeps_nulls)
{
    struct cairn_config src = defaults(), dst;

    ck_assert_int_eq(cairn_config_copy(&dst, &src), 0);
    ck_assert_ptr_null(dst.input_dir);
    ck_assert_ptr_null(dst.default_variant);
    ck_assert_str_eq(dst.metrics_file, "metrics.prom");
    cairn_config_free(&dst);
    cairn_config_free(&src);
}
END_TEST

/* ---- cairnd --------------------------------------------------------- */

static struct th_run run_cairnd(const char *const *args)
{
    const char *cairnd = getenv("CAIRN_TEST_CAIRND");
    char *dir;
    struct th_run r;

    ck_assert_msg(cairnd != NULL, "CAIRN_TEST_CAIRND is not set (run through meson test)");
    dir = th_make_dir_in(root_dir);
    r = th_run_cairnd(cairnd, dir, args);
    th_rm_tree(dir);
    free(dir);
    return r;
}

/* A 0755 directory holding a copy of the real stone-game.so. */
static char *plugin_dir_copy(void)
{
    const char *src_dir = getenv("CAIRN_TEST_PLUGIN_DIR");
    char *dir = th_make_dir_in(root_dir);
    char *src, *dst;

    ck_assert_msg(src_dir != NULL, "CAIRN_TEST_PLUGIN_DIR is not set");
    src = th_xasprintf("%s/stone-game.so", src_dir);
    dst = th_xasprintf("%s/stone-game.so", dir);
    th_copy_file(src, dst, 0755);
    free(src);
    free(dst);
    return dir;
}

/* Under journald (JOURNAL_STREAM names stderr), a cairnd that cannot start
 * says why with a <3> priority, like its later log lines: without it the
 * line was logged as info and `journalctl -p warning` hid it. */
START_TEST(start_errors_carry_a_priority_under_journald)
{
    const char *cairnd = getenv("CAIRN_TEST_CAIRND");
    char *cfg = write_file("bad.json", "{\"limits\": \"x\"}");
    const char *const cases[] = { "-c '%s' --check", "--bogus", "--input", "--once --filter",
                                  "-c '%s' --summary" };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        char *dir = th_make_dir_in(root_dir);
        char *err = th_xasprintf("%s/stderr", dir), *args, *cmd, *text;
        struct stat st;
        int status;

        th_write_text(err, "");
        ck_assert_int_eq(stat(err, &st), 0);
        args = th_xasprintf(cases[i], cfg);
        cmd = th_xasprintf("JOURNAL_STREAM=%llu:%llu '%s' %s 2>>'%s' >/dev/null",
                           (unsigned long long)st.st_dev, (unsigned long long)st.st_ino, cairnd,
                           args, err);
        status = system(cmd);
        text = th_slurp(err, NULL);
        ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 2, "%s: status %d: %s", args,
                      status, text);
        ck_assert_msg(text != NULL && strncmp(text, "<3>cairnd: ", 11) == 0,
                      "%s: the first line has no <3>: %s", args, text);
        free(text);
        free(cmd);
        free(args);
        free(err);
        th_rm_tree(dir);
        free(dir);
    }
    free(cfg);
}
END_TEST

START_TEST(cairnd_check_names_bad_key)
{
    static const struct {
        const char *json, *key;
    } bad[] = {
        { "{\"threads\": \"4\"}", "threads" },
        { "{\"thread_count\": 4}", "thread_count" },
        { "{\"limits\": \"fast\"}", "limits" },
    };
    char *plugins = plugin_dir_copy();
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *cfg = write_file("bad.json", bad[i].json);
        struct th_run r =
            run_cairnd((const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, NULL });

        ck_assert_msg(r.status == 2, "%s: exit %d, stderr: %s", bad[i].json, r.status, r.err);
        ck_assert_msg(strstr(r.err, bad[i].key) != NULL, "stderr lacks %s: %s", bad[i].key, r.err);
        ck_assert_msg(strstr(r.err, cfg) != NULL, "stderr lacks %s: %s", cfg, r.err);
        free(r.out);
        free(r.err);
        free(cfg);
    }
    free(plugins);
}
END_TEST

/* The command line on its own: --version answers without reading any
 * configuration; two modes, an unknown option and a stray argument are
 * usage errors (exit 2, the usage on stderr, the culprit named), and the
 * same mode given twice is no conflict. */
START_TEST(cairnd_command_line_mistakes_are_usage_errors)
{
    static const struct {
        const char *args[4], *said;
    } bad[] = {
        { { "--once", "--filter", NULL },
          "choose one of --once, --filter, --check, --list-plugins" },
        { { "--check", "--version", NULL }, "choose one of" },
        { { "--frobnicate", NULL }, "frobnicate" },
        { { "--check", "spool", NULL }, "unexpected argument \"spool\"" },
    };
    char *missing = th_xasprintf("%s/absent.json", root_dir), abi[64];
    struct th_run r;
    size_t i;

    snprintf(abi, sizeof(abi), " (plugin ABI %d.%d)\n", CAIRN_PLUGIN_ABI_MAJOR,
             CAIRN_PLUGIN_ABI_MINOR);
    r = run_cairnd((const char *const[]){ "--version", "-c", missing, NULL });
    ck_assert_msg(r.status == 0, "--version: exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strncmp(r.out, "cairnd ", 7) == 0 && th_ends_with(r.out, abi),
                  "--version printed: %s", r.out);
    ck_assert_str_eq(r.err, "");
    th_run_free(&r);

    r = run_cairnd((const char *const[]){ "--version", "--version", NULL });
    ck_assert_msg(r.status == 0 && strncmp(r.out, "cairnd ", 7) == 0,
                  "--version twice: exit %d: %s", r.status, r.err);
    th_run_free(&r);

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        r = run_cairnd(bad[i].args);
        ck_assert_msg(r.status == 2, "%s %s: exit %d", bad[i].args[0], bad[i].args[1], r.status);
        ck_assert_msg(strstr(r.err, bad[i].said) != NULL, "%s %s: stderr lacks \"%s\": %s",
                      bad[i].args[0], bad[i].args[1], bad[i].said, r.err);
        ck_assert_msg(strstr(r.err, "usage: cairnd") != NULL, "no usage on stderr: %s", r.err);
        ck_assert_str_eq(r.out, "");
        th_run_free(&r);
    }
    free(missing);
}
END_TEST

START_TEST(cairnd_check_good_config)
{
    char *plugins = plugin_dir_copy();
    char *cfg = write_file("good.json", "{\"threads\": 2, \"limits\": \"extended\"}\n");
    struct th_run r;

    r = run_cairnd((const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "stone-game") != NULL, "stdout: %s", r.out);
    free(r.out);
    free(r.err);

    /* A bad command-line value is a usage error naming the key. */
    r = run_cairnd((const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, "--threads",
                                          "many", NULL });
    ck_assert_msg(r.status == 2, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.err, "threads") != NULL, "stderr: %s", r.err);
    free(r.out);
    free(r.err);
    free(cfg);
    free(plugins);
}
END_TEST

START_TEST(cairnd_missing_config_is_named)
{
    char *plugins = plugin_dir_copy();
    char *missing = th_xasprintf("%s/absent.json", plugins);
    struct th_run r;

    r = run_cairnd((const char *const[]){ "--check", "-c", missing, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 2, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.err, missing) != NULL, "stderr: %s", r.err);
    free(r.out);
    free(r.err);
    free(missing);
    free(plugins);
}
END_TEST

/* The daemon would take its own results for jobs: refused at --check
 * (and so at start, which settles the configuration the same way). */
START_TEST(cairnd_check_refuses_overlapping_dirs)
{
    char *plugins = plugin_dir_copy(), *top = th_make_dir_in(root_dir);
    char *in = th_xasprintf("%s/in", top), *link = th_xasprintf("%s/link", top);
    char *bad_out[4], *out;
    struct th_run r;
    size_t i;

    ck_assert_int_eq(mkdir(in, 0755), 0);
    ck_assert_int_eq(symlink(in, link), 0);
    bad_out[0] = th_xasprintf("%s", in);           /* the same */
    bad_out[1] = th_xasprintf("%s/out", in);       /* inside, not yet created */
    bad_out[2] = th_xasprintf("%s", top);          /* around it */
    bad_out[3] = th_xasprintf("%s/results", link); /* inside, through a link */
    for (i = 0; i < 4; i++) {
        r = run_cairnd((const char *const[]){ "--check", "--plugins", plugins, "--input", in,
                                              "--output", bad_out[i], NULL });
        ck_assert_msg(r.status == 2, "--output %s: exit %d, stderr: %s", bad_out[i], r.status,
                      r.err);
        ck_assert_msg(strstr(r.err, "input_dir") != NULL && strstr(r.err, "output_dir") != NULL,
                      "--output %s: stderr does not name both keys: %s", bad_out[i], r.err);
        free(r.out);
        free(r.err);
        free(bad_out[i]);
    }
    out = th_xasprintf("%s/out", top);
    r = run_cairnd((const char *const[]){ "--check", "--plugins", plugins, "--input", in,
                                          "--output", out, NULL });
    ck_assert_msg(r.status == 0, "siblings refused: exit %d, stderr: %s", r.status, r.err);
    free(r.out);
    free(r.err);
    th_rm_tree(top);
    free(out);
    free(link);
    free(in);
    free(top);
    free(plugins);
}
END_TEST

/* The daemon opens INPUT/.cairn and .cairn/active with O_NOFOLLOW, so a
 * symlink there stops it at start: --check must say so too, not follow
 * the link to a directory that looks fine. */
START_TEST(cairnd_check_refuses_symlinked_state_dirs)
{
    char *plugins = plugin_dir_copy(), *top = th_make_dir_in(root_dir);
    char *in = th_xasprintf("%s/in", top), *out = th_xasprintf("%s/out", top);
    char *elsewhere = th_xasprintf("%s/elsewhere", top), *state = th_xasprintf("%s/.cairn", in);
    char *active = th_xasprintf("%s/active", state);
    struct th_run r;

    ck_assert_int_eq(mkdir(in, 0755), 0);
    ck_assert_int_eq(mkdir(elsewhere, 0755), 0);
    /* .cairn a link to a real directory */
    ck_assert_int_eq(symlink(elsewhere, state), 0);
    r = run_cairnd((const char *const[]){ "--check", "--plugins", plugins, "--input", in,
                                          "--output", out, NULL });
    ck_assert_msg(r.status == 2 && strstr(r.err, "symbolic link") != NULL,
                  ".cairn a symlink: exit %d, stderr: %s", r.status, r.err);
    free(r.out);
    free(r.err);
    /* .cairn real, .cairn/active a link */
    ck_assert_int_eq(unlink(state), 0);
    ck_assert_int_eq(mkdir(state, 0755), 0);
    ck_assert_int_eq(symlink(elsewhere, active), 0);
    r = run_cairnd((const char *const[]){ "--check", "--plugins", plugins, "--input", in,
                                          "--output", out, NULL });
    ck_assert_msg(r.status == 2 && strstr(r.err, "symbolic link") != NULL,
                  ".cairn/active a symlink: exit %d, stderr: %s", r.status, r.err);
    free(r.out);
    free(r.err);
    th_rm_tree(top);
    free(active);
    free(state);
    free(elsewhere);
    free(out);
    free(in);
    free(top);
    free(plugins);
}
END_TEST

START_TEST(cairnd_check_refuses_a_fifo)
{
    char *plugins = plugin_dir_copy(), *dir = th_make_dir_in(root_dir);
    char *path = th_xasprintf("%s/cairn.json", dir);
    struct th_run r;

    ck_assert_int_eq(mkfifo(path, 0600), 0);
    r = run_cairnd((const char *const[]){ "--check", "-c", path, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 2, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.err, path) != NULL && strstr(r.err, "FIFO") != NULL,
                  "stderr does not name the FIFO: %s", r.err);
    th_run_free(&r);
    free(path);
    th_rm_tree(dir);
    free(dir);
    free(plugins);
}
END_TEST

/* metrics_file lives in output_dir beside every job's outputs: a name one
 * of them takes (job a's summary is a.summary.json) would be overwritten
 * by the metrics and overwrite the job's file in turn, and one shaped like
 * cairn's temporaries would be swept away at the next start. */
START_TEST(metrics_file_may_not_take_an_output_name)
{
    static const struct {
        const char *name, *why;
    } bad[] = {
        { "a.summary.json", "ends in \".summary.json\"" },
        { "a.results.jsonl", "ends in \".results.jsonl\"" },
        { "a.reason.json", "ends in \".reason.json\"" },
        { ".summary.json", "ends in \".summary.json\"" },
        { ".cairn.0123456789abcdef0123456789abcdef.m.tmp", "begins with \".cairn.\"" },
    };
    static const char *const good[] = { "metrics.prom", "summary.json", "a.summary.json.prom",
                                        "results.jsonl" };
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        struct cairn_config cfg = defaults();
        char *json = th_xasprintf("{\n  \"metrics_file\": \"%s\"\n}", bad[i].name);
        char *path, *err = NULL;

        ck_assert_int_eq(load_text(&cfg, json, &path, &err), -EINVAL);
        ck_assert_msg(err != NULL && strstr(err, ":2: key \"metrics_file\": ") != NULL &&
                          strstr(err, bad[i].why) != NULL,
                      "%s: want the key, its line and \"%s\" in: %s", bad[i].name, bad[i].why, err);
        ck_assert_str_eq(cfg.metrics_file, "metrics.prom");
        free(err);
        free(path);
        free(json);
        ck_assert_int_eq(cairn_config_set(&cfg, "metrics_file", bad[i].name, &err), -EINVAL);
        ck_assert_msg(err != NULL && strstr(err, "\"metrics_file\"") != NULL &&
                          strstr(err, bad[i].why) != NULL,
                      "set %s: %s", bad[i].name, err);
        free(err);
        cairn_config_free(&cfg);
    }
    for (i = 0; i < sizeof(good) / sizeof(good[0]); i++) {
        struct cairn_config cfg = defaults();
        char *err = NULL;

        ck_assert_msg(cairn_config_set(&cfg, "metrics_file", good[i], &err) == 0, "%s: %s", good[i],
                      err);
        ck_assert_str_eq(cfg.metrics_file, good[i]);
        cairn_config_free(&cfg);
    }
}
END_TEST

/* metrics_file names a file in output_dir: a path would write elsewhere
 * or never, so it is refused where it is set. */
START_TEST(cairnd_check_refuses_metrics_file_paths)
{
    static const char *const bad[] = { "sub/metrics.prom", "../metrics.prom", "..", ".",
                                       "/tmp/metrics.prom" };
    char *plugins = plugin_dir_copy();
    size_t i;

    for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        char *json = th_xasprintf("{\"metrics_file\": \"%s\"}", bad[i]);
        char *cfg = write_file("metrics.json", json);
        struct th_run r =
            run_cairnd((const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, NULL });

        ck_assert_msg(r.status == 2, "%s: exit %d, stderr: %s", json, r.status, r.err);
        ck_assert_msg(strstr(r.err, "metrics_file") != NULL, "%s: stderr: %s", json, r.err);
        free(r.out);
        free(r.err);
        free(cfg);
        free(json);
    }
    free(plugins);
}
END_TEST

/* metrics_labels reach the daemon's metrics file: every series carries
 * them, and a bad label stops --check with exit 2 naming it. */
START_TEST(cairnd_writes_metrics_labels)
{
    char *plugins = plugin_dir_copy(), *top = th_make_dir_in(root_dir);
    char *in = th_xasprintf("%s/in", top), *out = th_xasprintf("%s/out", top);
    char *prom = th_xasprintf("%s/metrics.prom", out), *json, *cfg, *text, *line;
    struct th_run r;
    size_t samples = 0;

    ck_assert_int_eq(mkdir(in, 0755), 0);
    json = th_xasprintf("{\"input_dir\": \"%s\", \"output_dir\": \"%s\", "
                        "\"metrics_labels\": {\"instance\": \"node7\", \"rack\": \"r\\\"2\"}}",
                        in, out);
    cfg = write_file("labels.json", json);
    r = run_cairnd((const char *const[]){ "--once", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    th_run_free(&r);
    text = th_read_file(prom, NULL);
    for (line = text; *line != '\0'; line = strchr(line, '\n') + 1) {
        if (*line != '#') {
            ck_assert_msg(strncmp(line, "cairn_", 6) == 0, "odd line in %s", text);
            ck_assert_msg(
                strstr(line, "{instance=\"node7\",rack=\"r\\\"2\"") == strchr(line, '{') &&
                    strchr(line, '{') != NULL,
                "a series without the labels first: %.*s", (int)(strchr(line, '\n') - line), line);
            samples++;
        }
    }
    ck_assert_uint_gt(samples, 20);
    ck_assert_ptr_nonnull(strstr(text, "\ncairn_jobs_total{instance=\"node7\",rack=\"r\\\"2\","
                                       "status=\"ok\"} 0\n"));
    ck_assert_ptr_nonnull(
        strstr(text, "\ncairn_jobs_active{instance=\"node7\",rack=\"r\\\"2\"} 0\n"));
    free(text);
    free(cfg);
    free(json);

    cfg = write_file("bad-labels.json", "{\"metrics_labels\": {\"code\": \"x\"}}");
    r = run_cairnd((const char *const[]){ "--check", "-c", cfg, "--plugins", plugins, NULL });
    ck_assert_msg(r.status == 2, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.err, "metrics_labels") != NULL && strstr(r.err, "\"code\"") != NULL,
                  "stderr: %s", r.err);
    th_run_free(&r);
    th_rm_tree(top);
    free(cfg);
    free(prom);
    free(out);
    free(in);
    free(top);
    free(plugins);
}
END_TEST

/* A bad value on the command line is refused naming the option as typed,
 * its value and the key it sets (cairnd(8), OPTIONS). */
START_TEST(cairnd_option_errors_name_the_option)
{
    static const struct {
        const char *opt, *value, *want;
    } cases[] = {
        { "--threads", "2000", "--threads 2000: key \"threads\": out of range" },
        { "--limits", "huge", "--limits huge: key \"limits\": expected" },
        { "--threads", "abc", "--threads abc: expected a non-negative integer" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        const char *args[] = { "--check", cases[i].opt, cases[i].value, NULL };
        struct th_run r = run_cairnd(args);

        ck_assert_msg(r.status == 2 && strstr(r.err, cases[i].want) != NULL,
                      "%s %s: exit %d, stderr: %s", cases[i].opt, cases[i].value, r.status, r.err);
        th_run_free(&r);
    }
}
END_TEST

/* --check prints the settled configuration: threads 0 (one per CPU) is
 * printed as the count the daemon would start, not as 0. */
START_TEST(cairnd_check_prints_the_threads_it_would_start)
{
    char *plugins = plugin_dir_copy(), *in = th_make_dir_in(root_dir);
    const char *args[] = { "--check", "--plugins", plugins, "--input", in, "--threads", "0", NULL };
    struct th_run r = run_cairnd(args);
    const char *at = strstr(r.out, "threads=");

    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(at != NULL && atoi(at + strlen("threads=")) >= 1 &&
                      strstr(at, " (one per CPU) ") != NULL,
                  "threads 0 not settled: %s", r.out);
    th_run_free(&r);
    free(plugins);
    free(in);
}
END_TEST

/* Any number of repeated options: the last of each wins, none is lost
 * (the eighth override was once dropped silently). */
START_TEST(cairnd_every_override_counts)
{
    char *plugins = plugin_dir_copy(), *last = th_make_dir_in(root_dir);
    char *want = th_xasprintf("input_dir=%s ", last);
    const char *args[32];
    size_t n = 0, i;
    struct th_run r;

    args[n++] = "--check";
    args[n++] = "--plugins";
    args[n++] = plugins;
    /* Only the last --input must exist: --check refuses a missing one. */
    for (i = 0; i < 7; i++) {
        args[n++] = "--input";
        args[n++] = i < 6 ? "/nonexistent/in" : last;
    }
    args[n++] = "--threads";
    args[n++] = "3";
    args[n++] = "--limits";
    args[n++] = "extended";
    args[n] = NULL;
    r = run_cairnd(args);
    ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
    ck_assert_msg(strstr(r.out, "threads=3") != NULL, "threads lost: %s", r.out);
    ck_assert_msg(strstr(r.out, "limits=extended") != NULL, "limits lost: %s", r.out);
    ck_assert_msg(strstr(r.out, want) != NULL, "the last --input did not win: %s", r.out);
    free(r.out);
    free(r.err);
    free(plugins);
    free(last);
    free(want);
}
END_TEST

/* --check approves only directories the daemon can use: a
 * missing input directory, a file where a directory belongs, an output
 * directory that cannot be created are configuration errors, exit 2, the
 * message naming the key and the path.  --check once approved a missing
 * input directory and the daemon then exited 1. */
START_TEST(cairnd_check_refuses_unusable_dirs)
{
    char *plugins = plugin_dir_copy(), *top = th_make_dir_in(root_dir);
    char *in = th_xasprintf("%s/in", top), *out = th_xasprintf("%s/out", top);
    char *file = th_xasprintf("%s/plain-file", top);
    char *deep = th_xasprintf("%s/no/such/out", top);
    static const char *const modes[] = { "--check", "--once" };
    const struct {
        const char *in, *out, *key, *path;
    } bad[] = {
        { in, out, "input_dir", in },      /* in not created yet */
        { file, out, "input_dir", file },  /* a file */
        { top, file, "output_dir", file }, /* a file */
        { top, deep, "output_dir", deep }, /* parent missing */
    };
    size_t i, m;

    th_write_text(file, "not a directory\n");
    for (m = 0; m < 2; m++)
        for (i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
            const char *args[] = { modes[m],  "--plugins", plugins,    "--input",
                                   bad[i].in, "--output",  bad[i].out, NULL };
            struct th_run r = run_cairnd(args);

            ck_assert_msg(r.status == 2, "%s case %zu: exit %d, stderr: %s", modes[m], i, r.status,
                          r.err);
            ck_assert_msg(strstr(r.err, bad[i].key) != NULL && strstr(r.err, bad[i].path) != NULL,
                          "%s case %zu: the message does not name %s and %s: %s", modes[m], i,
                          bad[i].key, bad[i].path, r.err);
            free(r.out);
            free(r.err);
        }
    /* An output directory that does not exist yet but can be created is
     * fine: the daemon creates it. */
    ck_assert_int_eq(mkdir(in, 0755), 0);
    {
        const char *args[] = {
            "--check", "--plugins", plugins, "--input", in, "--output", out, NULL
        };
        struct th_run r = run_cairnd(args);
        ck_assert_msg(r.status == 0, "exit %d, stderr: %s", r.status, r.err);
        free(r.out);
        free(r.err);
    }
    free(plugins);
    free(top);
    free(in);
    free(out);
    free(file);
    free(deep);
}
END_TEST

/* Not writable: only testable when not root (root passes access(2)). */
START_TEST(cairnd_check_refuses_read_only_input)
{
    char *plugins, *top, *in, *out;

    if (geteuid() == 0)
        return; /* nothing to prove as root: every directory is writable */
    plugins = plugin_dir_copy();
    top = th_make_dir_in(root_dir);
    in = th_xasprintf("%s/in", top);
    out = th_xasprintf("%s/out", top);
    ck_assert_int_eq(mkdir(in, 0555), 0);
    {
        const char *args[] = {
            "--check", "--plugins", plugins, "--input", in, "--output", out, NULL
        };
        struct th_run r = run_cairnd(args);
        ck_assert_msg(r.status == 2 && strstr(r.err, "input_dir") != NULL &&
                          strstr(r.err, "not writable") != NULL,
                      "exit %d, stderr: %s", r.status, r.err);
        free(r.out);
        free(r.err);
    }
    chmod(in, 0755);
    free(plugins);
    free(top);
    free(in);
    free(out);
}
END_TEST

/* umask: an octal string, since JSON has none; null keeps the inherited
 * one, and so does the default. */
START_TEST(umask_loads_as_octal)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;

    ck_assert_int_eq(cfg.umask, -1);
    ck_assert_int_eq(load_text(&cfg, "{\"umask\": \"0027\"}", &path, &err), 0);
    ck_assert_int_eq(cfg.umask, 027);
    free(path);
    ck_assert_int_eq(load_text(&cfg, "{\"umask\": \"777\"}", &path, &err), 0);
    ck_assert_int_eq(cfg.umask, 0777);
    free(path);
    ck_assert_int_eq(load_text(&cfg, "{\"umask\": \"0\"}", &path, &err), 0);
    ck_assert_int_eq(cfg.umask, 0);
    free(path);
    ck_assert_int_eq(load_text(&cfg, "{\"umask\": null}", &path, &err), 0);
    ck_assert_int_eq(cfg.umask, -1);
    free(path);
    ck_assert_int_eq(cairn_config_set(&cfg, "umask", "0077", &err), 0);
    ck_assert_int_eq(cfg.umask, 077);
    /* A bad one leaves the old one standing. */
    ck_assert_int_eq(cairn_config_set(&cfg, "umask", "0800", &err), -EINVAL);
    ck_assert_msg(strstr(err, "\"umask\"") != NULL && strstr(err, "octal") != NULL, "%s", err);
    ck_assert_int_eq(cfg.umask, 077);
    free(err);
    cairn_config_free(&cfg);
}
END_TEST

/* null unsets exactly the keys without a default; a key with one always
 * has a value, so null there is a wrong type. */
START_TEST(null_unsets_only_optional_keys)
{
    static const char *const optional[] = { "input_dir", "output_dir", "default_variant", "umask",
                                            "metrics_labels" };
    static const char *const required[] = {
        "plugin_dir",         "threads",         "min_age_ms",
        "rescan_interval_s",  "keep_inputs",     "max_line_bytes",
        "max_attempts",       "metrics_file",    "metrics_interval_s",
        "shutdown_timeout_s", "solve_timeout_s", "limits",
        "log_level",
    };
    struct cairn_config cfg = defaults();
    char *path, *err = NULL, *json;
    size_t i;

    ck_assert_int_eq(load_text(&cfg,
                               "{\"input_dir\": \"/i\", \"output_dir\": \"/o\", "
                               "\"default_variant\": \"877\", \"umask\": \"022\", "
                               "\"metrics_labels\": {\"a\": \"b\"}}",
                               &path, &err),
                     0);
    free(path);
    for (i = 0; i < sizeof(optional) / sizeof(optional[0]); i++) {
        json = th_xasprintf("{\"%s\": null}", optional[i]);
        ck_assert_msg(load_text(&cfg, json, &path, &err) == 0, "%s: %s", json, err);
        free(path);
        free(json);
    }
    ck_assert_ptr_null(cfg.input_dir);
    ck_assert_ptr_null(cfg.output_dir);
    ck_assert_ptr_null(cfg.default_variant);
    ck_assert_int_eq(cfg.umask, -1);
    ck_assert_ptr_null(cfg.metrics_labels);
    for (i = 0; i < sizeof(required) / sizeof(required[0]); i++) {
        char *quoted = th_xasprintf("\"%s\"", required[i]);

        json = th_xasprintf("{\"%s\": null}", required[i]);
        ck_assert_msg(load_text(&cfg, json, &path, &err) == -EINVAL, "%s accepted", json);
        ck_assert_msg(strstr(err, quoted) != NULL && strstr(err, "expected") != NULL, "%s: %s",
                      json, err);
        free(err);
        free(path);
        free(json);
        free(quoted);
    }
    ck_assert_ptr_nonnull(cfg.plugin_dir);
    ck_assert_str_eq(cfg.metrics_file, "metrics.prom");
    cairn_config_free(&cfg);
}
END_TEST

/* The message says what is wrong, not only where: a range gives its
 * bounds, a list what is empty, a label which one and why. */
START_TEST(refusals_say_why)
{
    static const struct {
        const char *json, *why;
    } cases[] = {
        { "{\"threads\": 1025}", "key \"threads\": out of range (allowed: 0..1024)" },
        { "{\"max_line_bytes\": 63}",
          "key \"max_line_bytes\": out of range (allowed: 64..1099511627776)" },
        { "{\"plugin_dir\": []}",
          "key \"plugin_dir\": an empty list names no directory (expected a directory" },
        { "{\"plugin_dir\": \"/a::/b\"}",
          "key \"plugin_dir\": an empty entry in the colon-separated list (expected" },
        { "{\"metrics_labels\": {\"a\": \"\"}}",
          "key \"metrics_labels\": label \"a\": expected a non-empty string" },
        { "{\"metrics_labels\": 7}",
          "key \"metrics_labels\": expected an object of label names to non-empty strings" },
        { "{\"keep_inputs\": 1}", "key \"keep_inputs\": expected true or false" },
        { "{\"rescan_interval_s\": -0.5}",
          "key \"rescan_interval_s\": expected a number of seconds from 0 to 1000000000" },
        { "{\"metrics_interval_s\": 1e10}",
          "key \"metrics_interval_s\": expected a number of seconds from 0 to 1000000000" },
        { "{\"threads\": 99999999999999999999999}", ":1:35: key \"threads\": too big integer" },
        { "{\"metrics_labels\": {\"a\": \"b\"},\n \"solve_timeout_s\": 1e999}",
          ":2:25: key \"solve_timeout_s\": real number overflow" },
        { "{\"log_level\": \"loud\"}",
          "key \"log_level\": expected \"error\", \"warning\", \"info\" or \"debug\"" },
        { "{\"metrics_file\": \"a/b\"}", "key \"metrics_file\": expected a plain file name" },
    };
    size_t i;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        struct cairn_config cfg = defaults();
        char *path, *err = NULL;

        ck_assert_int_eq(load_text(&cfg, cases[i].json, &path, &err), -EINVAL);
        ck_assert_msg(strstr(err, cases[i].why) != NULL, "%s: want \"%s\" in: %s", cases[i].json,
                      cases[i].why, err);
        free(err);
        free(path);
        cairn_config_free(&cfg);
    }
}
END_TEST

/* The bounds themselves are allowed. */
START_TEST(bounds_are_inclusive)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL, *json, name[257];

    ck_assert_int_eq(
        load_text(&cfg,
                  "{\"threads\": 1024, \"max_line_bytes\": 64, \"max_attempts\": 1000, "
                  "\"min_age_ms\": 86400000, \"rescan_interval_s\": 1e9, "
                  "\"solve_timeout_s\": 0}",
                  &path, &err),
        0);
    ck_assert_uint_eq(cfg.threads, 1024);
    ck_assert_uint_eq(cfg.max_line_bytes, 64);
    ck_assert_uint_eq(cfg.max_attempts, 1000);
    ck_assert_uint_eq(cfg.min_age_ms, 86400000);
    ck_assert_double_eq(cfg.rescan_interval_s, 1e9);
    ck_assert_double_eq(cfg.solve_timeout_s, 0);
    free(path);
    /* A file name is at most 255 bytes, as a directory entry is. */
    memset(name, 'm', 255);
    name[255] = '\0';
    json = th_xasprintf("{\"metrics_file\": \"%s\"}", name);
    ck_assert_int_eq(load_text(&cfg, json, &path, &err), 0);
    ck_assert_str_eq(cfg.metrics_file, name);
    free(path);
    free(json);
    name[255] = 'm';
    name[256] = '\0';
    json = th_xasprintf("{\"metrics_file\": \"%s\"}", name);
    ck_assert_int_eq(load_text(&cfg, json, &path, &err), -EINVAL);
    ck_assert_msg(strstr(err, "\"metrics_file\"") != NULL && strstr(err, "255 bytes") != NULL, "%s",
                  err);
    ck_assert_uint_eq(strlen(cfg.metrics_file), 255);
    free(err);
    free(path);
    free(json);
    cairn_config_free(&cfg);
}
END_TEST

/* A misspelt key is answered with the keys there are. */
START_TEST(unknown_key_lists_the_known_ones)
{
    struct cairn_config cfg = defaults();
    char *path, *err = NULL;

    ck_assert_int_eq(load_text(&cfg, "{\"input_directory\": \"/in\"}", &path, &err), -EINVAL);
    ck_assert_msg(strstr(err, "(known keys: input_dir, output_dir, plugin_dir, threads,") != NULL,
                  "%s", err);
    ck_assert_msg(strstr(err, ", umask, metrics_labels)") != NULL, "%s", err);
    free(err);
    free(path);
    cairn_config_free(&cfg);
}
END_TEST

/* ---- the directories, checked in-process ------------------------------ */

static int check_dirs(const char *in, const char *out, char **err)
{
    struct cairn_config cfg = defaults();
    int rc;

    ck_assert_int_eq(cairn_config_set(&cfg, "input_dir", in, err), 0);
    ck_assert_int_eq(cairn_config_set(&cfg, "output_dir", out, err), 0);
    rc = cairn_config_check_dirs(&cfg, err);
    cairn_config_free(&cfg);
    return rc;
}

/* Containment is by whole path components, after resolving: "in" does
 * not hold "in-results", a relative or slash-ended path is the directory
 * it names, and an output directory not yet made is judged by where it
 * would be made. */
START_TEST(check_dirs_compares_resolved_paths)
{
    char *top = th_make_dir_in(root_dir), *in = th_xasprintf("%s/in", top), *err = NULL;
    char *sibling = th_xasprintf("%s/in-results", top);
    char *inside_slash = th_xasprintf("%s/in/results/", top);

    ck_assert_int_eq(mkdir(in, 0755), 0);
    ck_assert_int_eq(check_dirs(in, sibling, &err), 0);
    ck_assert_ptr_null(err);
    ck_assert_int_eq(mkdir(sibling, 0755), 0);
    ck_assert_int_eq(check_dirs(sibling, in, &err), 0);
    ck_assert_int_eq(check_dirs(in, inside_slash, &err), -EINVAL);
    ck_assert_msg(strstr(err, "output_dir (") != NULL && strstr(err, "/in/results) lies inside") &&
                      strstr(err, "input_dir (") != NULL,
                  "%s", err);
    free(err);
    /* Relative to the working directory: "out" is in ".". */
    ck_assert_int_eq(chdir(in), 0);
    ck_assert_int_eq(check_dirs(in, "out", &err), -EINVAL);
    ck_assert_msg(strstr(err, "lies inside") != NULL, "%s", err);
    free(err);
    ck_assert_int_eq(check_dirs(in, "../out/", &err), 0);
    ck_assert_int_eq(check_dirs(".", top, &err), -EINVAL);
    ck_assert_msg(strstr(err, "input_dir (") == err && strstr(err, "lies inside output_dir"), "%s",
                  err);
    free(err);
    ck_assert_int_eq(check_dirs("./", in, &err), -EINVAL);
    ck_assert_msg(strstr(err, "the same directory") != NULL, "%s", err);
    free(err);
    th_rm_tree(top);
    free(inside_slash);
    free(sibling);
    free(in);
    free(top);
}
END_TEST

/* A path that cannot name a directory at all is refused with the
 * system's reason, not taken for one to create. */
START_TEST(check_dirs_names_the_system_reason)
{
    char *top = th_make_dir_in(root_dir), *file = th_xasprintf("%s/file", top);
    char *under = th_xasprintf("%s/file/out", top), *err = NULL;

    th_write_text(file, "not a directory\n");
    ck_assert_int_eq(check_dirs(top, under, &err), -EINVAL);
    ck_assert_msg(strstr(err, "output_dir: ") == err && strstr(err, under) != NULL &&
                      strstr(err, "Not a directory") != NULL,
                  "%s", err);
    free(err);
    ck_assert_int_eq(check_dirs(under, top, &err), -EINVAL);
    ck_assert_msg(strstr(err, "input_dir: ") == err && strstr(err, "Not a directory") != NULL, "%s",
                  err);
    free(err);
    th_rm_tree(top);
    free(under);
    free(file);
    free(top);
}
END_TEST

/* "/" holds every directory; an output directory made in "/" is named
 * without a doubled slash. */
START_TEST(check_dirs_at_the_root)
{
    char *top = th_make_dir_in(root_dir), *err = NULL;
    char *absent = th_xasprintf("/cairn-test-config-absent-%ld", (long)getpid());
    int rc;

    rc = check_dirs("/", top, &err);
    ck_assert_int_eq(rc, -EINVAL);
    ck_assert_msg(strstr(err, "input_dir") != NULL, "%s", err);
    if (geteuid() == 0) /* else "/" is not writable, which is the message */
        ck_assert_msg(strstr(err, "lies inside input_dir (/)") != NULL, "%s", err);
    free(err);
    if (geteuid() == 0) {
        char *want = th_xasprintf("output_dir (%s) lies inside input_dir (/)", absent);

        ck_assert_int_eq(check_dirs("/", absent, &err), -EINVAL);
        ck_assert_msg(strstr(err, want) == err, "want \"%s\" in: %s", want, err);
        free(err);
        free(want);
    }
    err = NULL;
    rc = check_dirs(top, absent, &err);
    if (geteuid() == 0) {
        ck_assert_msg(rc == 0, "%s", err);
    } else {
        ck_assert_int_eq(rc, -EINVAL);
        ck_assert_msg(strstr(err, "cannot be created in /:") != NULL, "%s", err);
        free(err);
    }
    th_rm_tree(top);
    free(absent);
    free(top);
}
END_TEST

/* Runs check_dirs with the real and effective user nobody: access(2)
 * judges by the real one.  Root keeps its saved set-user-ID, to come back
 * (gcov writes its counts at exit). */
static int check_dirs_as_nobody(const char *in, const char *out, char **err)
{
    uid_t uid = getuid();
    int rc;

    if (uid == 0)
        ck_assert_int_eq(setresuid(65534, 65534, 0), 0);
    rc = check_dirs(in, out, err);
    if (uid == 0)
        ck_assert_int_eq(setresuid(0, 0, 0), 0);
    return rc;
}

/* A directory the daemon cannot write is refused, saying what it would
 * write there; one it would have to make, naming where. */
START_TEST(check_dirs_refuses_what_it_cannot_write)
{
    char *top = th_make_dir_in(root_dir), *ro = th_xasprintf("%s/ro", top);
    char *out = th_xasprintf("%s/out", ro), *rw = th_xasprintf("%s/rw", top), *err = NULL;

    /* Others may pass through the test's directories, not write them. */
    ck_assert_int_eq(chmod(root_dir, 0711), 0);
    ck_assert_int_eq(mkdir(ro, 0555), 0);
    ck_assert_int_eq(mkdir(rw, 0777), 0);
    ck_assert_int_eq(chmod(rw, 0777), 0); /* whatever the umask */
    ck_assert_int_eq(check_dirs_as_nobody(ro, rw, &err), -EINVAL);
    ck_assert_msg(strstr(err, "input_dir: ") == err &&
                      strstr(err, "is not writable by this user") &&
                      strstr(err, "claiming a job renames it into .cairn/active/"),
                  "%s", err);
    free(err);
    ck_assert_int_eq(check_dirs_as_nobody(rw, ro, &err), -EINVAL);
    ck_assert_msg(strstr(err, "output_dir: ") == err &&
                      strstr(err, "results, summaries and metrics are written there"),
                  "%s", err);
    free(err);
    ck_assert_int_eq(check_dirs_as_nobody(rw, out, &err), -EINVAL);
    ck_assert_msg(strstr(err, "output_dir: ") == err &&
                      strstr(err, "does not exist, and it cannot be created in") &&
                      strstr(err, "Permission denied"),
                  "%s", err);
    free(err);
    ck_assert_int_eq(check_dirs_as_nobody(rw, rw, &err), -EINVAL);
    ck_assert_msg(strstr(err, "the same directory") != NULL, "%s", err);
    free(err);
    ck_assert_int_eq(chmod(root_dir, 0700), 0);
    ck_assert_int_eq(chmod(ro, 0755), 0);
    th_rm_tree(top);
    free(rw);
    free(out);
    free(ro);
    free(top);
}
END_TEST

/* ---- out of memory ---------------------------------------------------- */

typedef int (*config_op)(struct cairn_config *cfg, char **err, const void *arg);

/* Runs op with the nth allocation failing, for n = 1, 2, ... until op
 * makes no allocation that fails.  Out of memory is reported as such:
 * -ENOMEM without a message (cairnd then says "out of memory"), or what
 * op gives with memory to spare; never a message blaming the value.  A
 * refusal still names want (the list of known keys may be left out).
 * Without jansson_too, jansson's allocations never fail (alloc_fail.h). */
static void sweep(const char *what, config_op op, const void *arg, int jansson_too, int want_rc,
                  const char *want, void (*check)(const struct cairn_config *cfg))
{
    long n;

    json_set_alloc_funcs(jansson_too ? malloc : th_alloc_unfailing, free);
    for (n = 1;; n++) {
        struct cairn_config cfg = defaults();
        char *err = NULL;
        int rc, fired;

        th_alloc_fail_at(n);
        rc = op(&cfg, &err, arg);
        fired = th_alloc_disarm();
        if (rc == -ENOMEM) {
            ck_assert_msg(fired, "%s: -ENOMEM with memory to spare", what);
            ck_assert_msg(err == NULL, "%s, allocation %ld failing: -ENOMEM, and: %s", what, n,
                          err);
        } else {
            ck_assert_msg(rc == want_rc, "%s, allocation %ld failing: rc %d, not %d (%s)", what, n,
                          rc, want_rc, err != NULL ? err : "no message");
            if (rc != 0)
                ck_assert_msg(err != NULL && strstr(err, want) != NULL,
                              "%s, allocation %ld failing: \"%s\" not in: %s", what, n, want,
                              err != NULL ? err : "(no message)");
            else if (check != NULL)
                check(&cfg);
        }
        free(err);
        cairn_config_free(&cfg);
        if (!fired)
            break;
    }
    json_set_alloc_funcs(malloc, free);
    ck_assert_int_gt(n, 1); /* something was allocated, so something was tried */
}

static int op_defaults(struct cairn_config *cfg, char **err, const void *arg)
{
    (void)err;
    (void)arg;
    cairn_config_free(cfg);
    return cairn_config_defaults(cfg);
}

static void check_defaults(const struct cairn_config *cfg)
{
    ck_assert_str_eq(cfg->metrics_file, "metrics.prom");
    ck_assert_ptr_nonnull(cfg->plugin_dir);
    ck_assert_uint_eq(cfg->max_line_bytes, 16u * 1024u * 1024u);
}

static int op_load(struct cairn_config *cfg, char **err, const void *path)
{
    return cairn_config_load_file(cfg, path, err);
}

static void check_loaded(const struct cairn_config *cfg)
{
    ck_assert_str_eq(cfg->input_dir, "/srv/in");
    ck_assert_str_eq(cfg->plugin_dir, "/a:/b");
    ck_assert_str_eq(cfg->metrics_file, "n.prom");
    ck_assert_str_eq(cfg->metrics_labels, "instance=\"n7\",rack=\"r2\"");
    ck_assert_uint_eq(cfg->threads, 4);
    ck_assert_int_eq(cfg->umask, 027);
}

struct set_arg {
    const char *key, *value;
};

static int op_set(struct cairn_config *cfg, char **err, const void *arg)
{
    const struct set_arg *a = arg;

    return cairn_config_set(cfg, a->key, a->value, err);
}

static void check_set(const struct cairn_config *cfg)
{
    ck_assert_str_eq(cfg->plugin_dir, "/x:/y");
}

static void check_set_labels(const struct cairn_config *cfg)
{
    ck_assert_str_eq(cfg->metrics_labels, "job=\"cairn\"");
}

static int op_copy(struct cairn_config *cfg, char **err, const void *arg)
{
    struct cairn_config src, dst;
    int rc;

    (void)arg;
    if ((rc = cairn_config_defaults(&src)) != 0)
        return rc;
    if ((rc = cairn_config_set(&src, "input_dir", "/in", err)) == 0 &&
        (rc = cairn_config_set(&src, "default_variant", "877", err)) == 0 &&
        (rc = cairn_config_set(&src, "metrics_labels", "{\"a\":\"b\"}", err)) == 0 &&
        (rc = cairn_config_copy(&dst, &src)) == 0) {
        cairn_config_free(cfg);
        *cfg = dst;
    }
    cairn_config_free(&src);
    return rc;
}

static void check_copy(const struct cairn_config *cfg)
{
    ck_assert_str_eq(cfg->input_dir, "/in");
    ck_assert_str_eq(cfg->default_variant, "877");
    ck_assert_str_eq(cfg->metrics_labels, "a=\"b\"");
    ck_assert_str_eq(cfg->metrics_file, "metrics.prom");
}

struct dirs_arg {
    const char *in, *out;
};

static int op_check_dirs(struct cairn_config *cfg, char **err, const void *arg)
{
    const struct dirs_arg *a = arg;
    int rc;

    if ((rc = cairn_config_set(cfg, "input_dir", a->in, err)) != 0 ||
        (rc = cairn_config_set(cfg, "output_dir", a->out, err)) != 0)
        return rc;
    return cairn_config_check_dirs(cfg, err);
}

static int op_check_dirs_as_nobody(struct cairn_config *cfg, char **err, const void *arg)
{
    uid_t uid = getuid();
    int rc;

    /* No ck_assert while armed: Check allocates for each. */
    if (uid == 0 && setresuid(65534, 65534, 0) != 0)
        return -EPERM;
    rc = op_check_dirs(cfg, err, arg);
    if (uid == 0 && setresuid(0, 0, 0) != 0)
        abort();
    return rc;
}

START_TEST(out_of_memory_is_never_blamed_on_the_configuration)
{
    if (!th_alloc_can_fail())
        return; /* a sanitizer build: alloc_fail.h */

    char *good = write_file("good.json", "{\"input_dir\": \"/srv/in\", \"plugin_dir\": [\"/a\", "
                                         "\"/b\"], \"metrics_file\": \"n.prom\", \"threads\": 4, "
                                         "\"umask\": \"027\", \"metrics_labels\": "
                                         "{\"instance\": \"n7\", \"rack\": \"r2\"}}");
    char *unknown = write_file("unknown.json", "{\"threads\": 4, \"thread\": 4}");
    char *label = write_file("label.json", "{\"metrics_labels\": {\"a\": \"1\", \"le\": \"2\"}}");
    char *top = th_make_dir_in(root_dir), *in = th_xasprintf("%s/in", top);
    char *out = th_xasprintf("%s/out", top), *inside = th_xasprintf("%s/in/out", top);
    const struct set_arg dirs = { "plugin_dir", "/x:/y" },
                         labels = { "metrics_labels", "{\"job\":\"cairn\"}" };
    const struct set_arg many = { "threads", "many" }, empty = { "plugin_dir", "/x::/y" };
    const struct set_arg bad_label = { "metrics_labels", "{\"le\":\"1\"}" };
    const struct set_arg nokey = { "thread", "4" };
    const struct dirs_arg apart = { in, out }, nested = { in, inside };
    char *missing = th_xasprintf("%s/missing", top), *deep = th_xasprintf("%s/no/such/out", top);
    char *file = th_xasprintf("%s/file", top), *linked = th_xasprintf("%s/linked", top);
    char *state = th_xasprintf("%s/linked/.cairn", top), *ro = th_xasprintf("%s/ro", top);
    const struct dirs_arg no_in = { missing, out }, no_parent = { in, deep },
                          a_file = { file, out };
    const struct dirs_arg a_link = { linked, out }, same = { in, in }, read_only = { ro, out };
    const struct set_arg range = { "threads", "1025" }, a_bool = { "keep_inputs", "1" };
    char *absent = th_xasprintf("%s/absent.json", top);
    char *syntax = write_file("syntax.json", "{\"threads\": 4,\n oops: 1}");
    char *array = write_file("array.json", "[1, 2]");

    ck_assert_int_eq(mkdir(in, 0755), 0);
    ck_assert_int_eq(mkdir(linked, 0755), 0);
    ck_assert_int_eq(symlink(in, state), 0);
    ck_assert_int_eq(mkdir(ro, 0555), 0);
    th_write_text(file, "not a directory\n");
    ck_assert_int_eq(chmod(root_dir, 0711), 0);
    sweep("defaults", op_defaults, NULL, 1, 0, NULL, check_defaults);
    sweep("a good file", op_load, good, 0, 0, NULL, check_loaded);
    sweep("an unknown key", op_load, unknown, 1, -EINVAL, "unknown key \"thread\"", NULL);
    sweep("a bad label", op_load, label, 0, -EINVAL, "label \"le\"", NULL);
    sweep("set plugin_dir", op_set, &dirs, 1, 0, NULL, check_set);
    sweep("set metrics_labels", op_set, &labels, 1, 0, NULL, check_set_labels);
    sweep("set threads=many", op_set, &many, 1, -EINVAL, "threads", NULL);
    sweep("set plugin_dir=/x::/y", op_set, &empty, 1, -EINVAL, "empty entry", NULL);
    sweep("set a bad label", op_set, &bad_label, 1, -EINVAL, "label \"le\"", NULL);
    sweep("set an unknown key", op_set, &nokey, 1, -EINVAL, "\"thread\"", NULL);
    sweep("copy", op_copy, NULL, 0, 0, NULL, check_copy);
    sweep("dirs apart", op_check_dirs, &apart, 0, 0, NULL, NULL);
    sweep("dirs nested", op_check_dirs, &nested, 0, -EINVAL, "lies inside", NULL);
    sweep("set threads=1025", op_set, &range, 1, -EINVAL, "out of range", NULL);
    sweep("set keep_inputs=1", op_set, &a_bool, 1, -EINVAL, "true or false", NULL);
    sweep("a missing file", op_load, absent, 1, -EINVAL, "absent.json", NULL);
    sweep("a syntax error", op_load, syntax, 1, -EINVAL, "syntax.json:2:", NULL);
    sweep("an array", op_load, array, 1, -EINVAL, "must be a JSON object", NULL);
    sweep("input_dir missing", op_check_dirs, &no_in, 0, -EINVAL, "No such file", NULL);
    sweep("output_dir's parent missing", op_check_dirs, &no_parent, 0, -EINVAL,
          "cannot be created in", NULL);
    sweep("input_dir a file", op_check_dirs, &a_file, 0, -EINVAL, "is not a directory", NULL);
    sweep(".cairn a link", op_check_dirs, &a_link, 0, -EINVAL, "symbolic link", NULL);
    sweep("the same dirs", op_check_dirs, &same, 0, -EINVAL, "the same directory", NULL);
    sweep("input_dir read-only", op_check_dirs_as_nobody, &read_only, 0, -EINVAL, "not writable",
          NULL);
    ck_assert_int_eq(chmod(root_dir, 0700), 0);
    ck_assert_int_eq(chmod(ro, 0755), 0);
    free(array);
    free(syntax);
    free(absent);
    free(ro);
    free(state);
    free(linked);
    free(file);
    free(deep);
    free(missing);
    th_rm_tree(top);
    free(inside);
    free(out);
    free(in);
    free(top);
    free(label);
    free(unknown);
    free(good);
}
END_TEST

static Suite *config_suite(void)
{
    Suite *s = suite_create("config");
    TCase *tc;

#define CASE(name, fn)       \
    tc = tcase_create(name); \
    tcase_add_test(tc, fn);  \
    suite_add_tcase(s, tc)

    CASE("defaults match the spec", defaults_match_the_spec);
    CASE("every key loads from a file", every_key_loads);
    CASE("keys a file does not set keep their values", unset_keys_keep_their_values);
    CASE("an optional string may be null", optional_string_may_be_null);
    CASE("an unknown key is refused", unknown_key_is_refused);
    CASE("a wrong value names its line", wrong_value_names_its_line);
    tc = tcase_create("a wrong type or value is refused naming the key");
    tcase_add_loop_test(tc, wrong_type_is_refused, 0, (int)(sizeof(wrong) / sizeof(wrong[0])));
    suite_add_tcase(s, tc);
    CASE("invalid JSON names file:line:column", invalid_json_names_line_and_column);
    CASE("a non-object is refused", non_object_is_refused);
    CASE("a missing file is named", missing_file_is_named);
    CASE("a directory is not read as a file", a_directory_is_not_read_as_a_file);
    CASE("a FIFO is refused without blocking", a_fifo_is_refused_without_blocking);
    CASE("a duplicate key is refused", duplicate_key_is_refused);
    CASE("set from text", set_from_text);
    tc = tcase_create("set refuses bad values");
    tcase_add_loop_test(tc, set_refuses_bad_values, 0, (int)(sizeof(bad_set) / sizeof(bad_set[0])));
    suite_add_tcase(s, tc);
    CASE("set refuses an unknown key", set_refuses_unknown_key);
    CASE("a copy is independent", copy_is_independent);
    CASE("a copy of the defaults keeps the unset strings unset", copy_of_defaults_keeps_nulls);
    CASE("cairnd --check names the bad key and exits 2", cairnd_check_names_bad_key);
    CASE("start errors carry a priority under journald",
         start_errors_carry_a_priority_under_journald);
    CASE("cairnd --check accepts a good config", cairnd_check_good_config);
    CASE("cairnd names a missing config file", cairnd_missing_config_is_named);
    CASE("cairnd's command-line mistakes are usage errors naming the culprit",
         cairnd_command_line_mistakes_are_usage_errors);
    CASE("plugin_dir takes a colon-separated string or an array", plugin_dir_takes_a_list);
    CASE("cairnd --check and --once refuse unusable directories, naming key and path",
         cairnd_check_refuses_unusable_dirs);
    CASE("cairnd --check refuses an input directory it cannot write",
         cairnd_check_refuses_read_only_input);
    CASE("cairnd --check refuses input_dir and output_dir inside each other",
         cairnd_check_refuses_overlapping_dirs);
    CASE("cairnd --check refuses a symlinked .cairn or .cairn/active",
         cairnd_check_refuses_symlinked_state_dirs);
    CASE("cairnd --check refuses a metrics_file that is a path",
         cairnd_check_refuses_metrics_file_paths);
    CASE("cairnd --check refuses a FIFO as its configuration", cairnd_check_refuses_a_fifo);
    CASE("metrics_file may not take a name a job's outputs take",
         metrics_file_may_not_take_an_output_name);
    CASE("every command-line override counts", cairnd_every_override_counts);
    CASE("--check prints the threads it would start",
         cairnd_check_prints_the_threads_it_would_start);
    CASE("a bad option value names the option", cairnd_option_errors_name_the_option);
    CASE("metrics_labels load as escaped label text", metrics_labels_load);
    CASE("a bad metrics label is named with its rule", metrics_labels_name_the_bad_label);
    CASE("cairnd puts metrics_labels on every series", cairnd_writes_metrics_labels);
    CASE("umask loads as an octal string", umask_loads_as_octal);
    CASE("null unsets exactly the keys without a default", null_unsets_only_optional_keys);
    CASE("a refusal says why", refusals_say_why);
    CASE("the bounds themselves are allowed", bounds_are_inclusive);
    CASE("an unknown key is answered with the known ones", unknown_key_lists_the_known_ones);
    CASE("directories are compared as resolved paths", check_dirs_compares_resolved_paths);
    CASE("directories at the root", check_dirs_at_the_root);
    CASE("a path that names no directory gets the system's reason",
         check_dirs_names_the_system_reason);
    CASE("a directory the daemon cannot write is refused", check_dirs_refuses_what_it_cannot_write);
    CASE("out of memory is never blamed on the configuration",
         out_of_memory_is_never_blamed_on_the_configuration);
#undef CASE
    return s;
}

int main(void)
{
    int failed;

    if (mkdtemp(root_dir) == NULL) {
        perror("mkdtemp");
        return 1;
    }
    failed = th_run_suite(config_suite(), CK_NORMAL, 1);
    th_rm_tree(root_dir);
    return failed == 0 ? 0 : 1;
}
