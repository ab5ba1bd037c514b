/*
 * config.c - one table describes every key: its type, where it lives in
 * struct cairn_config, its bounds.  Defaults, the file and the command
 * line all go through it, so every key is checked the same way.
 */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "prom_label.h"
#include "util.h"

#ifndef CAIRN_PLUGIN_DIR
#define CAIRN_PLUGIN_DIR "/usr/local/lib/cairn/plugins"
#endif

enum key_type {
    T_STRING,
    T_DIR_LIST,
    T_FILE_NAME,
    T_UINT,
    T_SECONDS,
    T_BOOL,
    T_LIMITS,
    T_LOG_LEVEL,
    T_UMASK,
    T_LABELS
};

struct key {
    const char *name;
    enum key_type type;
    size_t offset;
    const char *deflt; /* textual default, NULL for none */
    uint64_t min;      /* T_UINT bounds */
    uint64_t max;
};

#define KEY(name, type, deflt, min, max)                                  \
    {                                                                     \
#name, type, offsetof(struct cairn_config, name), deflt, min, max \
    }

static const struct key keys[] = {
    KEY(input_dir, T_STRING, NULL, 0, 0),
    KEY(output_dir, T_STRING, NULL, 0, 0),
    KEY(plugin_dir, T_DIR_LIST, CAIRN_PLUGIN_DIR, 0, 0),
    KEY(threads, T_UINT, "0", 0, 1024),
    KEY(min_age_ms, T_UINT, "1000", 0, 86400000),
    KEY(rescan_interval_s, T_SECONDS, "30", 0, 0),
    KEY(keep_inputs, T_BOOL, "true", 0, 0),
    KEY(max_line_bytes, T_UINT, "16777216", 64, (uint64_t)1 << 40),
    KEY(max_attempts, T_UINT, "3", 1, 1000),
    KEY(metrics_file, T_FILE_NAME, "metrics.prom", 0, 0),
    KEY(metrics_interval_s, T_SECONDS, "10", 0, 0),
    KEY(shutdown_timeout_s, T_SECONDS, "30", 0, 0),
    KEY(solve_timeout_s, T_SECONDS, "60", 0, 0),
    KEY(limits, T_LIMITS, "official", 0, 0),
    KEY(default_variant, T_STRING, NULL, 0, 0),
    KEY(log_level, T_LOG_LEVEL, "info", 0, 0),
    KEY(umask, T_UMASK, NULL, 0, 0777),
    KEY(metrics_labels, T_LABELS, NULL, 0, 0),
};
#define N_KEYS (sizeof(keys) / sizeof(keys[0]))

/* Keys whose field is a malloc'd string the configuration owns. */
static int owns_string(const struct key *k)
{
    return k->type == T_STRING || k->type == T_DIR_LIST || k->type == T_FILE_NAME ||
           k->type == T_LABELS;
}

static const struct key *find_key(const char *name)
{
    size_t i;

    for (i = 0; i < N_KEYS; i++)
        if (strcmp(keys[i].name, name) == 0)
            return &keys[i];
    return NULL;
}

static char *known_keys(void)
{
    struct cairn_buf b = { 0 };
    size_t i;

    for (i = 0; i < N_KEYS; i++)
        if (cairn_buf_puts(&b, i ? ", " : "") != 0 || cairn_buf_puts(&b, keys[i].name) != 0)
            goto oom;
    if (cairn_buf_append(&b, "", 1) != 0)
        goto oom;
    return b.data;
oom:
    cairn_buf_free(&b);
    return NULL;
}

static const char *type_text(enum key_type t)
{
    switch (t) {
    case T_STRING: return "a non-empty string";
    case T_DIR_LIST:
        return "a directory, a colon-separated list of directories, or an array of "
               "directories (non-empty, without ':')";
    case T_FILE_NAME: return "a plain file name (no '/', not \".\" or \"..\", at most 255 bytes)";
    case T_UINT: return "a non-negative integer";
    case T_SECONDS: return "a non-negative number of seconds";
    case T_BOOL: return "true or false";
    case T_LIMITS: return "\"official\" or \"extended\"";
    case T_LOG_LEVEL: return "\"error\", \"warning\", \"info\" or \"debug\"";
    case T_UMASK: return "an octal mode string such as \"0027\", or null";
    case T_LABELS: return "an object of label names to non-empty strings, or null";
    }
    return "?";
}

/*
 * metrics_labels: {"instance":"node7"} is kept as the text every series
 * gets, instance="node7", so metrics.c never sees JSON and a bad label is
 * refused here, naming it, rather than at the first render.  where and err
 * may be NULL (no message wanted).
 */
static int store_labels(char **field, const json_t *v, const char *key, const char *where,
                        char **err)
{
    struct cairn_buf b = { 0 };
    const char *name, *why = NULL;
    const json_t *value;

    if (json_is_null(v)) {
        free(*field);
        *field = NULL;
        return 0;
    }
    if (!json_is_object(v)) {
        if (err != NULL)
            *err = cairn_asprintf("%s: key \"%s\": expected %s", where, key, type_text(T_LABELS));
        return -EINVAL;
    }
    json_object_foreach((json_t *)v, name, value)
    {
        if (cairn_prom_label_check(name, &why) != 0) {
            if (err != NULL)
                *err = cairn_asprintf("%s: key \"%s\": label \"%s\": %s", where, key, name, why);
            cairn_buf_free(&b);
            return -EINVAL;
        }
        /* An empty value is the same as no label to Prometheus, and a NUL
         * cannot be written: both are surely mistakes. */
        if (!json_is_string(value) || json_string_length(value) == 0 ||
            strlen(json_string_value(value)) != json_string_length(value)) {
            if (err != NULL)
                *err = cairn_asprintf("%s: key \"%s\": label \"%s\": expected a non-empty "
                                      "string without NUL",
                                      where, key, name);
            cairn_buf_free(&b);
            return -EINVAL;
        }
        if ((b.len > 0 && cairn_buf_puts(&b, ",") != 0) ||
            cairn_prom_label_put(&b, name, json_string_value(value)) != 0 ||
            cairn_buf_append(&b, "", 1) != 0) {
            cairn_buf_free(&b);
            return -ENOMEM;
        }
        b.len--; /* keep the text terminated, but append after it */
    }
    free(*field);
    *field = b.data; /* NULL for {}: no labels */
    return 0;
}

/* A directory list is kept as one colon-separated string, PATH style, so
 * the command line, the file and the loader share one form.  A string is
 * taken as such a list; an array's elements are joined.  Empty entries
 * and, in an array, entries holding ':' are refused: either would load
 * from a directory nobody named. */
static int store_dir_list(char **field, const json_t *v, const char **why)
{
    struct cairn_buf b = { 0 };
    size_t i, n = json_is_array(v) ? json_array_size(v) : 1;

    if (!json_is_array(v) && !json_is_string(v))
        return -EINVAL;
    if (n == 0) {
        *why = "an empty list names no directory";
        return -EINVAL;
    }
    for (i = 0; i < n; i++) {
        const json_t *e = json_is_array(v) ? json_array_get(v, i) : v;
        const char *text = json_string_value(e);

        if (text == NULL || strlen(text) != json_string_length(e) || *text == '\0' ||
            (json_is_array(v) && strchr(text, ':') != NULL)) {
            cairn_buf_free(&b);
            return -EINVAL;
        }
        if (!json_is_array(v) &&
            (text[0] == ':' || text[strlen(text) - 1] == ':' || strstr(text, "::") != NULL)) {
            *why = "an empty entry in the colon-separated list";
            return -EINVAL;
        }
        if ((i > 0 && cairn_buf_puts(&b, ":") != 0) || cairn_buf_puts(&b, text) != 0) {
            cairn_buf_free(&b);
            return -ENOMEM;
        }
    }
    if (cairn_buf_append(&b, "", 1) != 0) {
        cairn_buf_free(&b);
        return -ENOMEM;
    }
    free(*field);
    *field = b.data;
    return 0;
}

/* Stores v (already a JSON value) into the field of k.  Returns 0, or
 * -EINVAL with *why set to a static explanation. */
static int store(struct cairn_config *cfg, const struct key *k, const json_t *v, const char **why)
{
    char *field = (char *)cfg + k->offset;

    *why = NULL;
    switch (k->type) {
    case T_FILE_NAME:
        /* The name is used in the output directory as it is: a path
         * would write elsewhere, or never. */
        if (!json_is_string(v) || !cairn_is_plain_name(json_string_value(v)) ||
            json_string_length(v) > 255)
            return -EINVAL;
        /* fall through */
    case T_STRING: {
        char *s;
        if (json_is_null(v) && k->deflt == NULL) { /* optional keys may be unset */
            free(*(char **)field);
            *(char **)field = NULL;
            return 0;
        }
        if (!json_is_string(v) || json_string_length(v) == 0 ||
            strlen(json_string_value(v)) != json_string_length(v))
            return -EINVAL;
        if ((s = strdup(json_string_value(v))) == NULL)
            return -ENOMEM;
        free(*(char **)field);
        *(char **)field = s;
        return 0;
    }
    case T_DIR_LIST: return store_dir_list((char **)field, v, why);
    case T_UINT: {
        json_int_t x;
        if (!json_is_integer(v) || (x = json_integer_value(v)) < 0)
            return -EINVAL;
        if ((uint64_t)x < k->min || (uint64_t)x > k->max) {
            *why = "out of range";
            return -EINVAL;
        }
        *(uint64_t *)field = (uint64_t)x;
        return 0;
    }
    case T_SECONDS: {
        double x;
        if (!json_is_number(v) || !isfinite(x = json_number_value(v)) || x < 0 || x > 1e9)
            return -EINVAL;
        *(double *)field = x;
        return 0;
    }
    case T_BOOL:
        if (!json_is_boolean(v))
            return -EINVAL;
        *(int *)field = json_is_true(v);
        return 0;
    case T_LIMITS: {
        const char *s = json_string_value(v);
        if (s != NULL && strcmp(s, "official") == 0)
            *(enum cairn_limits *)field = CAIRN_LIMITS_OFFICIAL;
        else if (s != NULL && strcmp(s, "extended") == 0)
            *(enum cairn_limits *)field = CAIRN_LIMITS_EXTENDED;
        else
            return -EINVAL;
        return 0;
    }
    case T_LOG_LEVEL: {
        const char *s = json_string_value(v);
        if (s == NULL || cairn_log_level_parse(s, (enum cairn_log_level *)field) != 0)
            return -EINVAL;
        return 0;
    }
    case T_UMASK: {
        /* A string, since JSON has no octal: "0027". */
        const char *s = json_string_value(v);
        char *end;
        long m;
        if (json_is_null(v)) {
            *(int *)field = -1;
            return 0;
        }
        if (s == NULL || *s == '\0' || strspn(s, "01234567") != strlen(s))
            return -EINVAL;
        m = strtol(s, &end, 8);
        if (m < 0 || (uint64_t)m > k->max)
            return -EINVAL;
        *(int *)field = (int)m;
        return 0;
    }
    case T_LABELS: return store_labels((char **)field, v, k->name, NULL, NULL);
    }
    return -EINVAL;
}

static int store_or_explain(struct cairn_config *cfg, const struct key *k, const json_t *v,
                            const char *where, char **err)
{
    const char *why;
    int rc;

    /* Its messages name the label at fault as well as the key. */
    if (k->type == T_LABELS)
        rc = store_labels((char **)((char *)cfg + k->offset), v, k->name, where, err);
    else
        rc = store(cfg, k, v, &why);
    if (rc == -EINVAL && k->type != T_LABELS) {
        if (why != NULL && k->type != T_UINT)
            *err = cairn_asprintf("%s: key \"%s\": %s (expected %s)", where, k->name, why,
                                  type_text(k->type));
        else if (why != NULL)
            *err = cairn_asprintf("%s: key \"%s\": %s (allowed: %" PRIu64 "..%" PRIu64 ")", where,
                                  k->name, why, k->min, k->max);
        else
            *err =
                cairn_asprintf("%s: key \"%s\": expected %s", where, k->name, type_text(k->type));
    }
    return rc == -EINVAL && *err == NULL ? -ENOMEM : rc;
}

/* Defaults are written as text, parsed the way the command line is. */
static json_t *text_to_json(const struct key *k, const char *text)
{
    json_error_t e;

    switch (k->type) {
    case T_UINT:
    case T_SECONDS:
    case T_BOOL:
    case T_LABELS: return json_loads(text, JSON_DECODE_ANY | JSON_REJECT_DUPLICATES, &e);
    default: return json_string(text);
    }
}

int cairn_config_defaults(struct cairn_config *cfg)
{
    size_t i;

    memset(cfg, 0, sizeof(*cfg));
    cfg->umask = -1;
    for (i = 0; i < N_KEYS; i++) {
        const char *why;
        json_t *v;
        int rc;

        if (keys[i].deflt == NULL)
            continue;
        v = text_to_json(&keys[i], keys[i].deflt);
        rc = v ? store(cfg, &keys[i], v, &why) : -ENOMEM;
        json_decref(v);
        if (rc != 0) {
            cairn_config_free(cfg);
            return rc;
        }
    }
    return 0;
}

int cairn_config_set(struct cairn_config *cfg, const char *key, const char *value, char **err)
{
    const struct key *k = find_key(key);
    json_t *v;
    int rc;

    *err = NULL;
    if (k == NULL) {
        *err = cairn_asprintf("unknown configuration key \"%s\"", key);
        return *err != NULL ? -EINVAL : -ENOMEM;
    }
    errno = 0;
    v = text_to_json(k, value);
    if (v == NULL && errno == ENOMEM)
        return -ENOMEM; /* not the value's fault: no message to blame it */
    if (v == NULL) {
        *err = cairn_asprintf("--%s: expected %s, got \"%s\"", key, type_text(k->type), value);
        return *err != NULL ? -EINVAL : -ENOMEM;
    }
    rc = store_or_explain(cfg, k, v, "command line", err);
    json_decref(v);
    return rc;
}

int cairn_config_load_file(struct cairn_config *cfg, const char *path, char **err)
{
    json_error_t jerr;
    json_t *root, *v;
    const char *name;
    int rc = 0;

    *err = NULL;
    errno = 0;
    root = json_load_file(path, JSON_REJECT_DUPLICATES, &jerr);
    /* Not the file's fault: no message to blame it (cairnd says "out of
     * memory"), as cairn_config_set does. */
    if (root == NULL && errno == ENOMEM)
        return -ENOMEM;
    if (root == NULL) {
        if (jerr.line < 0) /* could not read it at all */
            *err = cairn_asprintf("%s: %s", path, jerr.text);
        else
            *err = cairn_asprintf("%s:%d:%d: %s", path, jerr.line, jerr.column, jerr.text);
        return *err != NULL ? -EINVAL : -ENOMEM;
    }
    if (!json_is_object(root)) {
        *err = cairn_asprintf("%s: the configuration must be a JSON object", path);
        json_decref(root);
        return *err != NULL ? -EINVAL : -ENOMEM;
    }
    json_object_foreach(root, name, v)
    {
        const struct key *k = find_key(name);
        if (k == NULL) {
            char *known = known_keys();
            *err = cairn_asprintf("%s: unknown key \"%s\" (known keys: %s)", path, name,
                                  known ? known : "?");
            free(known);
            rc = *err != NULL ? -EINVAL : -ENOMEM;
            break;
        }
        if ((rc = store_or_explain(cfg, k, v, path, err)) != 0)
            break;
    }
    json_decref(root);
    return rc;
}

int cairn_config_copy(struct cairn_config *dst, const struct cairn_config *src)
{
    size_t i;

    *dst = *src;
    for (i = 0; i < N_KEYS; i++) {
        char **f;
        if (!owns_string(&keys[i]))
            continue;
        f = (char **)((char *)dst + keys[i].offset);
        if (*f != NULL && (*f = strdup(*f)) == NULL) {
            /* Leave dst freeable: later strings are still src's, drop them. */
            for (; i < N_KEYS; i++)
                if (owns_string(&keys[i]))
                    *(char **)((char *)dst + keys[i].offset) = NULL;
            cairn_config_free(dst);
            return -ENOMEM;
        }
    }
    return 0;
}

void cairn_config_free(struct cairn_config *cfg)
{
    size_t i;

    for (i = 0; i < N_KEYS; i++)
        if (owns_string(&keys[i])) {
            char **f = (char **)((char *)cfg + keys[i].offset);
            free(*f);
            *f = NULL;
        }
}

/* *out = path made absolute with every symlink resolved; a last component
 * that does not exist yet (an output directory created at start) is kept
 * as it is.  *out is NULL when even its parent cannot be resolved: whoever
 * opens it reports that.  0, or -ENOMEM. */
static int resolve(const char *path, char **out)
{
    char *full = realpath(path, NULL), *copy, *slash, *parent;
    const char *base;
    int e = full != NULL ? 0 : errno;

    *out = full;
    if (e == ENOMEM)
        return -ENOMEM;
    if (e != ENOENT)
        return 0;
    if ((copy = strdup(path)) == NULL)
        return -ENOMEM;
    while ((slash = strrchr(copy, '/')) != NULL && slash[1] == '\0' && slash != copy)
        *slash = '\0'; /* "out/" names "out" */
    slash = strrchr(copy, '/');
    base = slash != NULL ? slash + 1 : copy;
    parent = realpath(slash == NULL ? "." : slash == copy ? "/" : (*slash = '\0', copy), NULL);
    e = parent != NULL ? 0 : errno;
    *out = parent != NULL ? cairn_asprintf("%s/%s", strcmp(parent, "/") == 0 ? "" : parent, base)
                          : NULL;
    free(parent);
    free(copy);
    return e == ENOMEM || (e == 0 && *out == NULL) ? -ENOMEM : 0;
}

/* 1 when inner is outer or lies below it. */
static int contains(const char *outer, const char *inner)
{
    size_t n = strlen(outer);

    if (strcmp(outer, "/") == 0)
        return 1;
    return strncmp(outer, inner, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* key's directory path must be a directory we may create entries in
 * (W_OK|X_OK); under_too: also INPUT/.cairn and .cairn/active when they
 * exist, since a claim renames into active/.  A missing directory is
 * allowed only when may_create, and then its parent must be writable.
 * 0, or -EINVAL with *err naming the key and the path. */
static int check_one_dir(const char *key, const char *path, int may_create, int under_too,
                         char **err)
{
    static const char *const below[] = { "", "/.cairn", "/.cairn/active" };
    struct stat st;
    size_t i;

    for (i = 0; i < (under_too ? 3u : 1u); i++) {
        char *p = cairn_asprintf("%s%s", path, below[i]);
        int rc = 0;

        if (p == NULL)
            return -ENOMEM;
        /* The daemon opens .cairn and .cairn/active with O_NOFOLLOW
         * (spool.c): a symlink there is refused at start, so here too.
         * The input directory itself may be reached through one. */
        if ((i > 0 ? lstat(p, &st) : stat(p, &st)) != 0) {
            int e = errno;
            if (i > 0 && e == ENOENT) {
                free(p);
                continue; /* created at start */
            }
            if (e == ENOENT && may_create) {
                /* mkdir needs the parent: its absence is found now, not
                 * at the first job. */
                char *copy = strdup(p), *slash;
                if (copy == NULL) {
                    free(p);
                    return -ENOMEM;
                }
                while ((slash = strrchr(copy, '/')) != NULL && slash[1] == '\0' && slash != copy)
                    *slash = '\0';
                slash = strrchr(copy, '/');
                const char *parent = slash == NULL   ? "."
                                     : slash == copy ? "/"
                                                     : (*slash = '\0', copy);
                const char *why = NULL;
                if (stat(parent, &st) != 0 || access(parent, W_OK | X_OK) != 0)
                    why = strerror(errno);
                else if (!S_ISDIR(st.st_mode))
                    why = "not a directory";
                if (why != NULL)
                    *err = cairn_asprintf("%s: %s does not exist, and it cannot be created in %s: "
                                          "%s",
                                          key, p, parent, why);
                free(copy);
                rc = why == NULL ? 0 : *err != NULL ? -EINVAL : -ENOMEM;
                free(p);
                return rc;
            }
            *err = cairn_asprintf("%s: %s: %s", key, p, strerror(e));
            rc = -EINVAL;
        } else if (S_ISLNK(st.st_mode)) {
            *err = cairn_asprintf("%s: %s is a symbolic link; cairnd does not follow one there",
                                  key, p);
            rc = -EINVAL;
        } else if (!S_ISDIR(st.st_mode)) {
            *err = cairn_asprintf("%s: %s is not a directory", key, p);
            rc = -EINVAL;
        } else if (access(p, W_OK | X_OK) != 0) {
            int e = errno;
            *err =
                cairn_asprintf("%s: %s is not writable by this user (%s): %s", key, p, strerror(e),
                               under_too ? "claiming a job renames it into .cairn/active/"
                                         : "results, summaries and metrics are written there");
            rc = -EINVAL;
        }
        free(p);
        if (rc != 0)
            return *err != NULL ? rc : -ENOMEM;
    }
    return 0;
}

int cairn_config_check_dirs(const struct cairn_config *cfg, char **err)
{
    char *in, *out;
    int rc = 0;

    *err = NULL;
    /* Found now, with exit 2 naming the key, rather than as a runtime
     * failure once the daemon has started. */
    if (cfg->input_dir != NULL && (rc = check_one_dir("input_dir", cfg->input_dir, 0, 1, err)) != 0)
        return rc;
    if (cfg->output_dir != NULL &&
        (rc = check_one_dir("output_dir", cfg->output_dir, 1, 0, err)) != 0)
        return rc;
    if (cfg->input_dir == NULL || cfg->output_dir == NULL)
        return 0;
    if ((rc = resolve(cfg->input_dir, &in)) != 0)
        return rc;
    if ((rc = resolve(cfg->output_dir, &out)) != 0) {
        free(in);
        return rc;
    }
    /* Unresolvable paths are reported by whoever opens them. */
    if (in != NULL && out != NULL && (contains(in, out) || contains(out, in))) {
        rc = -EINVAL;
        if (strcmp(in, out) == 0)
            *err = cairn_asprintf("input_dir and output_dir are the same directory (%s): the "
                                  "daemon would take its own results for jobs",
                                  in);
        else
            *err = cairn_asprintf(
                "%s (%s) lies inside %s (%s): input_dir and output_dir "
                "must not contain each other",
                contains(in, out) ? "output_dir" : "input_dir", contains(in, out) ? out : in,
                contains(in, out) ? "input_dir" : "output_dir", contains(in, out) ? in : out);
        if (*err == NULL)
            rc = -ENOMEM;
    }
    free(in);
    free(out);
    return rc;
}
