/*
 * fuzz_config.c - libFuzzer target for the configuration parser.
 *
 * Each input is used twice:
 *   1. written to a per-process temporary file (created once, rewritten
 *      every run, removed at exit; in $CAIRN_FUZZ_TMPDIR, else /dev/shm when
 *      writable, as a file on disk is ten times slower to rewrite, else
 *      $TMPDIR, else /tmp) and loaded with
 *      cairn_config_load_file() over a defaults-filled configuration;
 *   2. split at its first '=' into a key and a value (no '=': the whole
 *      input is the key and the value is empty; both are cut at their
 *      first NUL byte, as a command line would be) and applied with
 *      cairn_config_set() to the configuration from step 1.
 *
 * Invariants (a violation aborts, so libFuzzer keeps the input):
 *   - each call returns 0 with no message, or a negative errno with a
 *     non-NULL, non-empty message;
 *   - whatever the outcome, every field of the configuration holds a value
 *     its key allows (a failed load may leave it partly updated, never
 *     broken): strings NULL (only for keys without a default) or non-empty,
 *     integers within their bounds, seconds finite and in [0, 1e9], the
 *     enums in range, umask -1 or 0..0777, metrics_labels without a raw
 *     newline;
 *   - cairn_config_copy() of the result is equal field by field, and
 *     cairn_config_free() of both is clean (ASan and LeakSanitizer watch).
 */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char tmp_path[4096];
static int tmp_fd = -1;

#define CHECK(cond, ...)                                                            \
    do {                                                                            \
        if (!(cond)) {                                                              \
            fprintf(stderr, "fuzz_config: invariant broken: %s\n  ", #cond);        \
            fprintf(stderr, __VA_ARGS__);                                           \
            fprintf(stderr, "\n");                                                  \
            abort();                                                                \
        }                                                                           \
    } while (0)

static void remove_tmp(void)
{
    if (tmp_path[0] != '\0')
        unlink(tmp_path);
}

int LLVMFuzzerInitialize(int *argc, char ***argv)
{
    const char *dir = getenv("CAIRN_FUZZ_TMPDIR");

    (void)argc;
    (void)argv;
    if ((dir == NULL || *dir == '\0') && access("/dev/shm", W_OK | X_OK) == 0)
        dir = "/dev/shm";
    if (dir == NULL || *dir == '\0')
        dir = getenv("TMPDIR");
    if (dir == NULL || *dir == '\0')
        dir = "/tmp";
    snprintf(tmp_path, sizeof(tmp_path), "%s/cairn-fuzz-config-XXXXXX", dir);
    tmp_fd = mkstemp(tmp_path);
    if (tmp_fd < 0) {
        perror("fuzz_config: mkstemp");
        exit(2);
    }
    atexit(remove_tmp);
    return 0;
}

static void write_input(const uint8_t *data, size_t size)
{
    size_t off = 0;

    if (ftruncate(tmp_fd, 0) != 0) {
        perror("fuzz_config: ftruncate");
        abort();
    }
    while (off < size) {
        ssize_t n = pwrite(tmp_fd, data + off, size - off, (off_t)off);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            perror("fuzz_config: pwrite");
            abort();
        }
        off += (size_t)n;
    }
}

static void check_string(const char *s, int optional, const char *name)
{
    CHECK(s != NULL || optional, "%s is NULL but has a default", name);
    CHECK(s == NULL || *s != '\0', "%s is an empty string", name);
}

static void check_seconds(double x, const char *name)
{
    CHECK(isfinite(x) && x >= 0 && x <= 1e9, "%s is %g", name, x);
}

/* Every field holds a value its key allows. */
static void check_config(const struct cairn_config *c)
{
    check_string(c->input_dir, 1, "input_dir");
    check_string(c->output_dir, 1, "output_dir");
    check_string(c->plugin_dir, 0, "plugin_dir");
    check_string(c->metrics_file, 0, "metrics_file");
    check_string(c->default_variant, 1, "default_variant");
    check_string(c->metrics_labels, 1, "metrics_labels");
    /* The label text goes into every series as it is: a raw newline
     * would end a sample line in the middle. */
    CHECK(c->metrics_labels == NULL || strchr(c->metrics_labels, '\n') == NULL,
          "metrics_labels holds a raw newline: %s", c->metrics_labels);
    CHECK(c->threads <= 1024, "threads is %llu", (unsigned long long)c->threads);
    CHECK(c->min_age_ms <= 86400000, "min_age_ms is %llu", (unsigned long long)c->min_age_ms);
    CHECK(c->max_line_bytes >= 64 && c->max_line_bytes <= ((uint64_t)1 << 40),
          "max_line_bytes is %llu", (unsigned long long)c->max_line_bytes);
    CHECK(c->max_attempts >= 1 && c->max_attempts <= 1000, "max_attempts is %llu",
          (unsigned long long)c->max_attempts);
    check_seconds(c->rescan_interval_s, "rescan_interval_s");
    check_seconds(c->metrics_interval_s, "metrics_interval_s");
    check_seconds(c->shutdown_timeout_s, "shutdown_timeout_s");
    check_seconds(c->solve_timeout_s, "solve_timeout_s");
    CHECK(c->keep_inputs == 0 || c->keep_inputs == 1, "keep_inputs is %d", c->keep_inputs);
    CHECK(c->limits == CAIRN_LIMITS_OFFICIAL || c->limits == CAIRN_LIMITS_EXTENDED,
          "limits is %d", (int)c->limits);
    CHECK(c->log_level == CAIRN_LOG_ERROR || c->log_level == CAIRN_LOG_WARNING ||
              c->log_level == CAIRN_LOG_INFO || c->log_level == CAIRN_LOG_DEBUG,
          "log_level is %d", (int)c->log_level);
    CHECK(c->umask >= -1 && c->umask <= 0777, "umask is %d", c->umask);
}

static int same_string(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a != NULL && b != NULL && a != b && strcmp(a, b) == 0);
}

static void check_copy(const struct cairn_config *c)
{
    struct cairn_config d;
    int rc = cairn_config_copy(&d, c);

    CHECK(rc == 0, "cairn_config_copy returned %d", rc);
    CHECK(same_string(c->input_dir, d.input_dir) && same_string(c->output_dir, d.output_dir) &&
              same_string(c->plugin_dir, d.plugin_dir) &&
              same_string(c->metrics_file, d.metrics_file) &&
              same_string(c->default_variant, d.default_variant) &&
              same_string(c->metrics_labels, d.metrics_labels),
          "the copy's strings differ or are shared with the original");
    CHECK(c->threads == d.threads && c->min_age_ms == d.min_age_ms &&
              c->max_line_bytes == d.max_line_bytes && c->max_attempts == d.max_attempts &&
              c->keep_inputs == d.keep_inputs && c->limits == d.limits &&
              c->log_level == d.log_level && c->umask == d.umask &&
              c->rescan_interval_s == d.rescan_interval_s &&
              c->metrics_interval_s == d.metrics_interval_s &&
              c->shutdown_timeout_s == d.shutdown_timeout_s &&
              c->solve_timeout_s == d.solve_timeout_s,
          "the copy's numbers differ");
    cairn_config_free(&d);
}

static void check_outcome(int rc, const char *err, const char *what)
{
    if (rc == 0)
        CHECK(err == NULL, "%s succeeded but set a message: %s", what, err);
    else
        CHECK(rc < 0 && rc >= -4095 && err != NULL && *err != '\0',
              "%s returned %d with message %s", what, rc, err ? err : "(null)");
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    struct cairn_config cfg;
    const uint8_t *eq = memchr(data, '=', size);
    size_t klen = eq ? (size_t)(eq - data) : size;
    size_t vlen = eq ? size - klen - 1 : 0;
    char *key, *value, *err = (char *)1;
    int rc;

    rc = cairn_config_defaults(&cfg);
    CHECK(rc == 0, "cairn_config_defaults returned %d", rc);
    check_config(&cfg);

    /* 1. The input as a configuration file. */
    write_input(data, size);
    rc = cairn_config_load_file(&cfg, tmp_path, &err);
    check_outcome(rc, err, "cairn_config_load_file");
    free(err);
    check_config(&cfg);
    check_copy(&cfg);

    /* 2. The input as KEY=VALUE from the command line. */
    key = malloc(klen + 1);
    value = malloc(vlen + 1);
    if (key == NULL || value == NULL)
        abort();
    memcpy(key, data, klen);
    key[klen] = '\0';
    if (vlen > 0)
        memcpy(value, eq + 1, vlen);
    value[vlen] = '\0';
    err = (char *)1;
    rc = cairn_config_set(&cfg, key, value, &err);
    check_outcome(rc, err, "cairn_config_set");
    free(err);
    check_config(&cfg);
    check_copy(&cfg);

    free(key);
    free(value);
    cairn_config_free(&cfg);
    return 0;
}
