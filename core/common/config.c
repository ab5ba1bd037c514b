/*
 * config.c - one table describes every key: its type, where it lives in
 * struct cairn_config, its bounds.  Defaults, the file and the command
 * line all go through it, so every key is checked the same way.
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <jansson.h>
#include <libgen.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "jsontext.h"
#include "layout.h"
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
    int rc = 0;

    /* A failed append leaves the buffer as it was: check once. */
    for (i = 0; i < N_KEYS; i++)
        rc |= cairn_buf_puts(&b, i ? ", " : "") | cairn_buf_puts(&b, keys[i].name);
    if ((rc | cairn_buf_append(&b, "", 1)) != 0) {
        cairn_buf_free(&b);
        return NULL;
    }
    return b.data;
}

static const char *const type_texts[] = {
    [T_STRING] = "a non-empty string",
    [T_DIR_LIST] = ("a directory, a colon-separated list of directories, or an array of "
                    "directories (non-empty, without ':')"),
    [T_FILE_NAME] = "a plain file name (no '/', not \".\" or \"..\", at most 255 bytes)",
    [T_UINT] = "a non-negative integer",
    [T_SECONDS] = "a number of seconds from 0 to 1000000000",
    [T_BOOL] = "true or false",
    [T_LIMITS] = "\"official\" or \"extended\"",
    [T_LOG_LEVEL] = "\"error\", \"warning\", \"info\" or \"debug\"",
    [T_UMASK] = "an octal mode string such as \"0027\", or null",
    [T_LABELS] = "an object of label names to non-empty strings, or null",
};

/* Why a value was refused, for store_or_explain's message: neither set
 * means the wrong type. */
struct fault {
    const char *why;   /* static text */
    const char *label; /* T_LABELS: the label at fault, inside the value */
};

/*
 * metrics_labels: {"instance":"node7"} is kept as the text every series
 * gets, instance="node7", so metrics.c never sees JSON and a bad label is
 * refused here, naming it, rather than at the first render.
 */
static int store_labels(char **field, const json_t *v, struct fault *f)
{
    struct cairn_buf b = { 0 };
    void *it;

    if (json_typeof(v) != JSON_OBJECT)
        return -EINVAL;
    for (it = json_object_iter((json_t *)v); it != NULL;
         it = json_object_iter_next((json_t *)v, it)) {
        const char *name = json_object_iter_key(it);
        const json_t *value = json_object_iter_value(it);

        if (cairn_prom_label_check(name, &f->why) != 0) {
            f->label = name;
            cairn_buf_free(&b);
            return -EINVAL;
        }
        /* An empty value is the same as no label to Prometheus: surely a
         * mistake. */
        if (json_typeof(value) != JSON_STRING || json_string_length(value) == 0) {
            f->label = name;
            f->why = "expected a non-empty string";
            cairn_buf_free(&b);
            return -EINVAL;
        }
        if (((b.len > 0 ? cairn_buf_puts(&b, ",") : 0) |
             cairn_prom_label_put(&b, name, json_string_value(value)) |
             cairn_buf_append(&b, "", 1)) != 0) {
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
    int array = json_typeof(v) == JSON_ARRAY, rc = 0;
    size_t i, n = array ? json_array_size(v) : 1;

    if (!array && json_typeof(v) != JSON_STRING)
        return -EINVAL;
    if (n == 0) {
        *why = "an empty list names no directory";
        return -EINVAL;
    }
    for (i = 0; i < n; i++) {
        const json_t *e = array ? json_array_get(v, i) : v;
        const char *text = json_string_value(e);

        if (text == NULL || *text == '\0' || (array && strchr(text, ':') != NULL)) {
            cairn_buf_free(&b);
            return -EINVAL;
        }
        if (!array &&
            (text[0] == ':' || text[strlen(text) - 1] == ':' || strstr(text, "::") != NULL)) {
            *why = "an empty entry in the colon-separated list";
            return -EINVAL;
        }
        rc |= (i > 0 ? cairn_buf_puts(&b, ":") : 0) | cairn_buf_puts(&b, text);
    }
    if ((rc | cairn_buf_append(&b, "", 1)) != 0) {
        cairn_buf_free(&b);
        return -ENOMEM;
    }
    free(*field);
    *field = b.data;
    return 0;
}

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), k = strlen(suffix);

    return n >= k && memcmp(s + n - k, suffix, k) == 0;
}

/* Why name cannot be the metrics file, which lives in output_dir beside
 * every job's outputs: a name they take would be overwritten by the
 * metrics, or overwrite a job's summary (a job "a" writes a.summary.json),
 * and one shaped like cairn's temporaries is removed by the next start's
 * sweep.  NULL when it is fine. */
static const char *output_name_clash(const char *name)
{
    static const struct {
        const char *suffix, *why;
    } taken[] = {
        { CAIRN_RESULTS_SUFFIX, "ends in \"" CAIRN_RESULTS_SUFFIX "\", the name of a job's "
                                "results: the metrics and that job would overwrite each other" },
        { CAIRN_SUMMARY_SUFFIX, "ends in \"" CAIRN_SUMMARY_SUFFIX "\", the name of a job's "
                                "summary: the metrics and that job would overwrite each other" },
        { CAIRN_REASON_SUFFIX, "ends in \"" CAIRN_REASON_SUFFIX "\", the name of a failed "
                               "job's reason: the metrics and that job would overwrite each "
                               "other" },
    };
    size_t i;

    for (i = 0; i < sizeof(taken) / sizeof(taken[0]); i++)
        if (ends_with(name, taken[i].suffix))
            return taken[i].why;
    if (strncmp(name, CAIRN_STATE_DIR ".", strlen(CAIRN_STATE_DIR ".")) == 0)
        return "begins with \"" CAIRN_STATE_DIR ".\", which cairn keeps for its temporary "
               "files (a start removes those it finds unlocked)";
    return NULL;
}

/* Stores v (already a JSON value) into the field of k.  Returns 0, or
 * -EINVAL with *f saying why when there is more to say than the type.
 * No string holds a NUL: jansson refuses \u0000 without JSON_ALLOW_NUL,
 * and json_string() takes a C string. */
static int store(struct cairn_config *cfg, const struct key *k, const json_t *v, struct fault *f)
{
    char *field = (char *)cfg + k->offset;

    f->why = NULL;
    f->label = NULL;
    /* Exactly the keys without a default are optional, and null unsets
     * them; a key with a default always has a value. */
    if (json_typeof(v) == JSON_NULL && k->deflt == NULL) {
        if (k->type == T_UMASK) {
            *(int *)field = -1; /* keep the inherited umask */
        } else {
            free(*(char **)field);
            *(char **)field = NULL;
        }
        return 0;
    }
    switch (k->type) {
    case T_FILE_NAME:
        /* The name is used in the output directory as it is: a path
         * would write elsewhere, or never. */
        if (json_typeof(v) != JSON_STRING || !cairn_is_plain_name(json_string_value(v)) ||
            json_string_length(v) > 255)
            return -EINVAL;
        if ((f->why = output_name_clash(json_string_value(v))) != NULL)
            return -EINVAL;
        /* fall through */
    case T_STRING: {
        char *s;
        if (json_typeof(v) != JSON_STRING || json_string_length(v) == 0)
            return -EINVAL;
        if ((s = strdup(json_string_value(v))) == NULL)
            return -ENOMEM;
        free(*(char **)field);
        *(char **)field = s;
        return 0;
    }
    case T_DIR_LIST: return store_dir_list((char **)field, v, &f->why);
    case T_UINT: {
        json_int_t x;
        if (json_typeof(v) != JSON_INTEGER || (x = json_integer_value(v)) < 0)
            return -EINVAL;
        if ((uint64_t)x < k->min || (uint64_t)x > k->max) {
            f->why = "out of range";
            return -EINVAL;
        }
        *(uint64_t *)field = (uint64_t)x;
        return 0;
    }
    case T_SECONDS: {
        double x;
        /* jansson holds no NaN nor infinity (json_real refuses them, its
         * parser calls 1e400 an overflow), so x is finite. */
        if ((json_typeof(v) != JSON_INTEGER && json_typeof(v) != JSON_REAL) ||
            (x = json_number_value(v)) < 0 || x > 1e9)
            return -EINVAL;
        *(double *)field = x;
        return 0;
    }
    case T_BOOL:
        if (json_typeof(v) != JSON_TRUE && json_typeof(v) != JSON_FALSE)
            return -EINVAL;
        *(int *)field = json_typeof(v) == JSON_TRUE;
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
        /* A string, since JSON has no octal: "0027".  Octal digits only,
         * so strtol cannot go negative; past LONG_MAX it stops there. */
        const char *s = json_string_value(v);
        long m;
        if (s == NULL || *s == '\0' || strspn(s, "01234567") != strlen(s))
            return -EINVAL;
        if ((uint64_t)(m = strtol(s, NULL, 8)) > k->max)
            return -EINVAL;
        *(int *)field = (int)m;
        return 0;
    }
    case T_LABELS: return store_labels((char **)field, v, f);
    }
    return -EINVAL;
}

/* *err = msg: -EINVAL, or -ENOMEM when the message could not be made
 * (a refusal without a message would blame the value for memory). */
static int refuse(char **err, char *msg)
{
    *err = msg;
    return msg != NULL ? -EINVAL : -ENOMEM;
}

/* Why store() refused k's value, in words, for the value written at where
 * (a file and line, or "command line"). */
static int explain(const struct key *k, const struct fault *f, const char *where, char **err)
{
    if (f->label != NULL)
        return refuse(err, cairn_asprintf("%s: key \"%s\": label \"%s\": %s", where, k->name,
                                          f->label, f->why));
    if (f->why != NULL && k->type != T_UINT)
        return refuse(err, cairn_asprintf("%s: key \"%s\": %s (expected %s)", where, k->name,
                                          f->why, type_texts[k->type]));
    if (f->why != NULL)
        return refuse(err, cairn_asprintf("%s: key \"%s\": %s (allowed: %" PRIu64 "..%" PRIu64 ")",
                                          where, k->name, f->why, k->min, k->max));
    return refuse(
        err, cairn_asprintf("%s: key \"%s\": expected %s", where, k->name, type_texts[k->type]));
}

static int store_or_explain(struct cairn_config *cfg, const struct key *k, const json_t *v,
                            const char *where, char **err)
{
    struct fault f;
    int rc = store(cfg, k, v, &f);

    return rc == -EINVAL ? explain(k, &f, where, err) : rc;
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
        struct fault f;
        json_t *v;
        int rc;

        if (keys[i].deflt == NULL)
            continue;
        /* The table's defaults are valid: only memory can fail here. */
        v = text_to_json(&keys[i], keys[i].deflt);
        rc = v ? store(cfg, &keys[i], v, &f) : -ENOMEM;
        json_decref(v);
        if (rc != 0) {
            cairn_config_free(cfg);
            return rc;
        }
    }
    return 0;
}

int cairn_config_default_when_uninstalled(struct cairn_config *cfg, const char *build_exe,
                                          const char *build_plugins)
{
    struct stat self, built;
    char *dir;

    if (stat("/proc/self/exe", &self) != 0 || stat(build_exe, &built) != 0 ||
        self.st_dev != built.st_dev || self.st_ino != built.st_ino)
        return 0;
    if ((dir = strdup(build_plugins)) == NULL)
        return -ENOMEM;
    free(cfg->plugin_dir);
    cfg->plugin_dir = dir;
    return 0;
}

int cairn_config_set_option(struct cairn_config *cfg, const char *key, const char *option,
                            const char *value, char **err)
{
    const struct key *k = find_key(key);
    char *where;
    json_t *v;
    int rc;

    *err = NULL;
    if (k == NULL)
        return refuse(err, cairn_asprintf("unknown configuration key \"%s\"", key));
    errno = 0;
    v = text_to_json(k, value);
    if (v == NULL && errno == ENOMEM)
        return -ENOMEM; /* not the value's fault: no message to blame it */
    if (v == NULL)
        return refuse(err, option != NULL ? cairn_asprintf("%s %s: expected %s", option, value,
                                                           type_texts[k->type])
                                          : cairn_asprintf("--%s: expected %s, got \"%s\"", key,
                                                           type_texts[k->type], value));
    where = option != NULL ? cairn_asprintf("%s %s", option, value) : NULL;
    rc = option != NULL && where == NULL
             ? -ENOMEM
             : store_or_explain(cfg, k, v, where ? where : "command line", err);
    free(where);
    json_decref(v);
    return rc;
}

int cairn_config_set(struct cairn_config *cfg, const char *key, const char *value, char **err)
{
    return cairn_config_set_option(cfg, key, NULL, value, err);
}

/* The configuration file's text, NUL-terminated (text->len leaves the
 * NUL out).  Opened with O_NONBLOCK, and read only once fstat says it is a
 * regular file: a FIFO or a device named as the configuration would hold
 * the caller in open(2) or read(2) for as long as nobody writes to it (on
 * SIGHUP, cairnd's whole loop: no job claimed, SIGTERM unheard).  0, or
 * -EINVAL with *err naming the file, or -ENOMEM. */
static int read_text(const char *path, struct cairn_buf *text, char **err)
{
    char chunk[4096];
    struct stat st;
    ssize_t n;
    int fd, rc = 0;

    fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return errno == ENOMEM ? -ENOMEM
                               : refuse(err, cairn_asprintf("%s: cannot open the configuration "
                                                            "file: %s",
                                                            path, strerror(errno)));
    if (fstat(fd, &st) != 0) {
        rc = refuse(err, cairn_asprintf("%s: cannot stat the configuration file: %s", path,
                                        strerror(errno)));
    } else if (S_ISDIR(st.st_mode)) {
        /* jansson would have read it as an empty file ("'[' or '{'
         * expected near end of file"). */
        rc = refuse(err, cairn_asprintf("%s: is a directory, not a configuration file", path));
    } else if (!S_ISREG(st.st_mode)) {
        rc = refuse(err, cairn_asprintf("%s: is a %s, not a regular file: the configuration is "
                                        "read only from a regular file",
                                        path,
                                        S_ISFIFO(st.st_mode)   ? "FIFO"
                                        : S_ISCHR(st.st_mode)  ? "character device"
                                        : S_ISBLK(st.st_mode)  ? "block device"
                                        : S_ISSOCK(st.st_mode) ? "socket"
                                                               : "special file"));
    }
    while (rc == 0 && (n = read(fd, chunk, sizeof(chunk))) != 0) {
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            rc = refuse(err, cairn_asprintf("%s: cannot read the configuration file: %s", path,
                                            strerror(errno)));
        else
            rc = cairn_buf_append(text, chunk, (size_t)n);
    }
    close(fd);
    if (rc == 0 && (rc = cairn_buf_append(text, "", 1)) == 0)
        text->len--;
    if (rc != 0)
        cairn_buf_free(text);
    return rc;
}

/* "path:LINE", the line of text (the file's) where key's value is
 * written, for a message about it; plain "path" when the key is not found
 * (an escaped name).  NULL when out of memory. */
static char *where_key(const char *path, const struct cairn_buf *text, const char *key)
{
    const char *val;
    size_t val_len, line = 1, i;

    if (!cairn_json_member_text(text->data, text->len, key, &val, &val_len))
        return strdup(path);
    for (i = 0; i < (size_t)(val - text->data); i++)
        line += text->data[i] == '\n';
    return cairn_asprintf("%s:%zu", path, line);
}

/* jansson's message for a parse error of text (path's), with the key
 * named when the error is a number too big for it (the rest are about the
 * syntax, not a key's value).  NULL when out of memory. */
static char *parse_error(const char *path, const struct cairn_buf *text, const json_error_t *e)
{
    const char *key;
    size_t key_len;

    if ((strncmp(e->text, "too big integer", 15) == 0 ||
         strncmp(e->text, "real number overflow", 20) == 0) &&
        cairn_json_member_before(text->data, text->len, (size_t)e->position, &key, &key_len))
        return cairn_asprintf("%s:%d:%d: key \"%.*s\": %s", path, e->line, e->column, (int)key_len,
                              key, e->text);
    return cairn_asprintf("%s:%d:%d: %s", path, e->line, e->column, e->text);
}

int cairn_config_load_file(struct cairn_config *cfg, const char *path, char **err)
{
    struct cairn_buf text = { 0 };
    struct fault f;
    json_error_t jerr;
    json_t *root;
    void *it;
    int rc;

    *err = NULL;
    /* Read once, by us: the text also places a refused key's line. */
    if ((rc = read_text(path, &text, err)) != 0)
        return rc;
    errno = 0;
    root = json_loadb(text.data, text.len, JSON_REJECT_DUPLICATES, &jerr);
    /* Not the file's fault: no message to blame it (cairnd says "out of
     * memory"), as cairn_config_set does. */
    if (root == NULL && errno == ENOMEM)
        rc = -ENOMEM;
    else if (root == NULL)
        rc = refuse(err, parse_error(path, &text, &jerr));
    else if (json_typeof(root) != JSON_OBJECT)
        rc = refuse(err, cairn_asprintf("%s: the configuration must be a JSON object", path));
    for (it = rc == 0 ? json_object_iter(root) : NULL; it != NULL;
         it = json_object_iter_next(root, it)) {
        const char *name = json_object_iter_key(it);
        const struct key *k = find_key(name);

        if (k == NULL) {
            char *known = known_keys(), *where = where_key(path, &text, name);

            rc = known == NULL || where == NULL
                     ? -ENOMEM
                     : refuse(err, cairn_asprintf("%s: unknown key \"%s\" (known keys: %s)", where,
                                                  name, known));
            free(known);
            free(where);
            break;
        }
        if ((rc = store(cfg, k, json_object_iter_value(it), &f)) == -EINVAL) {
            char *where = where_key(path, &text, name);

            rc = where != NULL ? explain(k, &f, where, err) : -ENOMEM;
            free(where);
        }
        if (rc != 0)
            break;
    }
    json_decref(root);
    cairn_buf_free(&text);
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

/* The directory path lies in, malloc'd: dirname(3), so "out/" is in "."
 * and "/out" in "/".  NULL when out of memory. */
static char *parent_of(const char *path)
{
    char *copy = strdup(path), *parent;

    if (copy == NULL)
        return NULL;
    parent = strdup(dirname(copy));
    free(copy);
    return parent;
}

/* *out = path made absolute with every symlink resolved; a last component
 * that does not exist yet (an output directory created at start) is kept
 * as it is.  *out is NULL when path cannot be resolved: whoever opens it
 * reports that.  0, or -ENOMEM. */
static int resolve(const char *path, char **out)
{
    char *parent, *name = NULL, *real = NULL;
    int e, rc = 0;

    *out = realpath(path, NULL);
    e = *out != NULL ? 0 : errno;
    if (e == ENOMEM)
        return -ENOMEM;
    if (e != ENOENT)
        return 0;
    /* Called after check_one_dir() found the parent: only memory can
     * fail from here on (or a race, which the start then reports). */
    if ((parent = parent_of(path)) == NULL || (name = strdup(path)) == NULL ||
        (real = realpath(parent, NULL)) == NULL ||
        (*out = cairn_asprintf("%s/%s", strcmp(real, "/") == 0 ? "" : real, basename(name))) ==
            NULL)
        rc = -ENOMEM;
    free(real);
    free(name); /* basename(3) may have written to it */
    free(parent);
    return rc;
}

/* 1 when inner is outer or lies below it. */
static int contains(const char *outer, const char *inner)
{
    size_t n = strlen(outer);

    if (strcmp(outer, "/") == 0)
        return 1;
    return strncmp(outer, inner, n) == 0 && (inner[n] == '\0' || inner[n] == '/');
}

/* key's directory p does not exist: it is made at start, so its parent
 * must let us create it, found now rather than at the first job.  That
 * stat(p) said ENOENT, not ENOTDIR, means the parent is a directory or
 * nothing, so access(2) alone says whether mkdir can work. */
static int check_parent(const char *key, const char *p, char **err)
{
    char *parent = parent_of(p);
    int rc = 0;

    if (parent == NULL)
        return -ENOMEM;
    if (access(parent, W_OK | X_OK) != 0)
        rc = refuse(err, cairn_asprintf("%s: %s does not exist, and it cannot be created in %s: %s",
                                        key, p, parent, strerror(errno)));
    free(parent);
    return rc;
}

/* key's directory path must be a directory we may create entries in
 * (W_OK|X_OK); under_too: also INPUT/.cairn and .cairn/active when they
 * exist, since a claim renames into active/.  A missing directory is
 * allowed only when may_create, and then its parent must be writable.
 * 0, or -EINVAL with *err naming the key and the path. */
static int check_one_dir(const char *key, const char *path, int may_create, int under_too,
                         char **err)
{
    static const char *const below[] = { "", "/" CAIRN_STATE_DIR, "/" CAIRN_ACTIVE_PATH };
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
            if (errno != ENOENT || (i == 0 && !may_create))
                rc = refuse(err, cairn_asprintf("%s: %s: %s", key, p, strerror(errno)));
            else if (i == 0)
                rc = check_parent(key, p, err);
            /* else .cairn or .cairn/active, made at start */
        } else if (S_ISLNK(st.st_mode)) {
            rc = refuse(err, cairn_asprintf("%s: %s is a symbolic link; cairnd does not follow "
                                            "one there",
                                            key, p));
        } else if (!S_ISDIR(st.st_mode)) {
            rc = refuse(err, cairn_asprintf("%s: %s is not a directory", key, p));
        } else if (access(p, W_OK | X_OK) != 0) {
            rc = refuse(err,
                        cairn_asprintf(
                            "%s: %s is not writable by this user (%s): %s", key, p, strerror(errno),
                            under_too ? "claiming a job renames it into " CAIRN_ACTIVE_PATH "/"
                                      : "results, summaries and metrics are written "
                                        "there"));
        }
        free(p);
        if (rc != 0)
            return rc;
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
        int out_inside = contains(in, out);

        if (strcmp(in, out) == 0)
            rc = refuse(err, cairn_asprintf("input_dir and output_dir are the same directory (%s): "
                                            "the daemon would take its own results for jobs",
                                            in));
        else
            rc = refuse(err, cairn_asprintf(
                                 "%s (%s) lies inside %s (%s): input_dir and "
                                 "output_dir must not contain each other",
                                 out_inside ? "output_dir" : "input_dir", out_inside ? out : in,
                                 out_inside ? "input_dir" : "output_dir", out_inside ? in : out));
    }
    free(in);
    free(out);
    return rc;
}
