/*
 * metrics.c - the daemon-wide counters and their Prometheus text
 * exposition (docs/contract.md, Metrics).
 *
 * Loop thread only: no locks.  Rendering is separate from writing so the
 * file is never opened unless the whole text is already in memory.
 */
#include "metrics.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "prom_label.h"
#include "publish.h"

const double cairn_job_bucket_le[CAIRN_JOB_BUCKETS - 1] = {
    0.001, 0.005, 0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 300, 900, 3600
};

/* ---- life cycle ------------------------------------------------------- */

/* Finds name's slot in the sorted variant array, creating a zeroed one if
 * needed; NULL only on -ENOMEM. */
static struct cairn_metrics_variant *variant_get(struct cairn_metrics *m, const char *name)
{
    size_t lo = 0, hi = m->n_variants;
    struct cairn_metrics_variant *v;

    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        int c = strcmp(m->variants[mid].name, name);

        if (c == 0)
            return &m->variants[mid];
        if (c < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (m->n_variants == m->cap_variants) {
        size_t cap = m->cap_variants ? m->cap_variants * 2 : 8;

        v = realloc(m->variants, cap * sizeof(*v));
        if (v == NULL)
            return NULL;
        m->variants = v;
        m->cap_variants = cap;
    }
    v = &m->variants[lo];
    memmove(v + 1, v, (m->n_variants - lo) * sizeof(*v));
    memset(v, 0, sizeof(*v));
    v->name = strdup(name);
    if (v->name == NULL) {
        memmove(v, v + 1, (m->n_variants - lo) * sizeof(*v));
        return NULL;
    }
    m->n_variants++;
    return v;
}

int cairn_metrics_init(struct cairn_metrics *m, const char *version)
{
    struct timespec ts;

    memset(m, 0, sizeof(*m));
    m->version = strdup(version != NULL ? version : "unknown");
    if (m->version == NULL)
        return -ENOMEM;
    if (clock_gettime(CLOCK_REALTIME, &ts) == 0)
        m->start_time = (double)ts.tv_sec + (double)(ts.tv_nsec / 1000000) / 1e3;
    /* Created up front so cairn_records_total{variant="none"} exists from the
     * first scrape: rate() over a series that appears late misses its start. */
    if (variant_get(m, CAIRN_METRICS_NO_VARIANT) == NULL) {
        cairn_metrics_free(m);
        return -ENOMEM;
    }
    return 0;
}

static void plugins_free(struct cairn_metrics_plugin *p, size_t n)
{
    size_t i;

    for (i = 0; i < n; i++) {
        free(p[i].name);
        free(p[i].version);
    }
    free(p);
}

void cairn_metrics_free(struct cairn_metrics *m)
{
    size_t i;

    for (i = 0; i < m->n_variants; i++)
        free(m->variants[i].name);
    free(m->variants);
    plugins_free(m->plugins, m->n_plugins);
    free(m->version);
    memset(m, 0, sizeof(*m));
}

/* ---- updates ---------------------------------------------------------- */

int cairn_metrics_set_plugins(struct cairn_metrics *m, const struct cairn_registry *reg)
{
    struct cairn_metrics_plugin *p = NULL;
    size_t i, n = reg->n_plugins;

    /* Build the new set aside so a failure leaves the old one intact. */
    if (n > 0) {
        p = calloc(n, sizeof(*p));
        if (p == NULL)
            return -ENOMEM;
    }
    for (i = 0; i < n; i++) {
        const struct cairn_plugin *d = reg->plugins[i].desc;

        p[i].name = strdup(d->name);
        p[i].version = strdup(d->version != NULL ? d->version : "");
        if (p[i].name == NULL || p[i].version == NULL) {
            plugins_free(p, n);
            return -ENOMEM;
        }
    }
    /* Zero series for every new variant; harmless if it fails half-way,
     * since an empty slot renders as zeros and is added to later. */
    for (i = 0; i < n; i++) {
        struct cairn_metrics_variant *v = variant_get(m, p[i].name);

        if (v == NULL) {
            plugins_free(p, n);
            return -ENOMEM;
        }
        v->solvable = 1;
    }
    plugins_free(m->plugins, m->n_plugins);
    m->plugins = p;
    m->n_plugins = n;
    return 0;
}

static const char *tally_variant_name(const struct cairn_registry *reg, size_t i)
{
    return i < reg->n_plugins ? reg->plugins[i].desc->name : CAIRN_METRICS_NO_VARIANT;
}

int cairn_metrics_add_tally(struct cairn_metrics *m, const struct cairn_registry *reg,
                            const struct cairn_tally *t)
{
    size_t i, k;

    if (t->n_variants != reg->n_plugins + 1)
        return -EINVAL;
    /* Two passes so an -ENOMEM adds nothing: first make every slot exist
     * (the only step that can fail), then add, looking them up again. */
    for (i = 0; i < t->n_variants; i++)
        if (variant_get(m, tally_variant_name(reg, i)) == NULL)
            return -ENOMEM;
    for (i = 0; i < t->n_variants; i++) {
        struct cairn_metrics_variant *v = variant_get(m, tally_variant_name(reg, i));

        if (i < reg->n_plugins)
            v->solvable = 1;
        v->ok += t->variant_ok[i];
        v->err += t->variant_err[i];
        v->solve_ns += t->variant_ns[i];
        for (k = 0; k < CAIRN_SOLVE_BUCKETS; k++)
            v->hist[k] += t->variant_hist[i * CAIRN_SOLVE_BUCKETS + k];
    }
    for (k = 0; k < CAIRN_CODE_COUNT; k++)
        m->errors[k] += t->errors[k];
    return 0;
}

void cairn_metrics_job_done(struct cairn_metrics *m, int ok, double wall_seconds)
{
    size_t i = 0;

    /* A clock step can make a wall time negative, and a NaN would poison
     * the _sum forever: count either as an instant job. */
    if (!(wall_seconds >= 0))
        wall_seconds = 0;
    if (ok)
        m->jobs_ok++;
    else
        m->jobs_failed++;
    while (i < CAIRN_JOB_BUCKETS - 1 && wall_seconds > cairn_job_bucket_le[i])
        i++;
    m->job_hist[i]++;
    m->job_seconds_sum += wall_seconds;
}

void cairn_metrics_add_bytes(struct cairn_metrics *m, uint64_t bytes)
{
    m->bytes_read += bytes;
}

void cairn_metrics_set_labels(struct cairn_metrics *m, const char *labels)
{
    m->labels = labels;
}

void cairn_metrics_set_gauges(struct cairn_metrics *m, uint64_t jobs_active, uint64_t jobs_queued)
{
    m->jobs_active = jobs_active;
    m->jobs_queued = jobs_queued;
}

/* ---- rendering -------------------------------------------------------- */

struct label {
    const char *key;
    const char *value;
};

/* Where one rendering goes, and the configured labels every series gets
 * (already "k=\"v\",..." text; NULL for none). */
struct expo {
    struct cairn_buf *b;
    const char *labels;
};

/* The shortest text that reads back as v, so 0.1 prints as "0.1" rather
 * than %.17g's "0.10000000000000001".  The daemon never calls setlocale(),
 * so printf and strtod agree on '.' as the decimal point. */
static void fmt_double(char *out, size_t cap, double v)
{
    if (isnan(v)) {
        snprintf(out, cap, "NaN");
        return;
    }
    if (isinf(v)) {
        snprintf(out, cap, v > 0 ? "+Inf" : "-Inf");
        return;
    }
    snprintf(out, cap, "%.15g", v);
    if (strtod(out, NULL) != v)
        snprintf(out, cap, "%.17g", v);
}

static int put_family(struct expo *e, const char *name, const char *type, const char *help)
{
    return cairn_buf_printf(e->b, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

static int put_sample(struct expo *e, const char *name, const char *suffix,
                      const struct label *labels, size_t n_labels, const char *value)
{
    struct cairn_buf *b = e->b;
    int rc = cairn_buf_puts(b, name);
    int braces = n_labels > 0 || e->labels != NULL;
    size_t i;

    rc |= cairn_buf_puts(b, suffix);
    if (braces)
        rc |= cairn_buf_puts(b, "{");
    /* The configured labels first: the same prefix on every series. */
    if (e->labels != NULL)
        rc |= cairn_buf_puts(b, e->labels);
    for (i = 0; i < n_labels; i++) {
        if (i > 0 || e->labels != NULL)
            rc |= cairn_buf_puts(b, ",");
        rc |= cairn_prom_label_put(b, labels[i].key, labels[i].value);
    }
    rc |= cairn_buf_puts(b, braces ? "} " : " ");
    rc |= cairn_buf_puts(b, value);
    rc |= cairn_buf_puts(b, "\n");
    return rc ? -ENOMEM : 0;
}

static int put_u64(struct expo *e, const char *name, const char *suffix, const struct label *labels,
                   size_t n_labels, uint64_t v)
{
    char num[24];

    snprintf(num, sizeof(num), "%" PRIu64, v);
    return put_sample(e, name, suffix, labels, n_labels, num);
}

static int put_double(struct expo *e, const char *name, const char *suffix,
                      const struct label *labels, size_t n_labels, double v)
{
    char num[40];

    fmt_double(num, sizeof(num), v);
    return put_sample(e, name, suffix, labels, n_labels, num);
}

/* One histogram's series: _bucket in rising le (cumulative), then _sum and
 * _count.  label may be NULL; le has n_buckets - 1 finite bounds. */
static int put_histogram(struct expo *e, const char *name, const struct label *label,
                         const double *le, const uint64_t *per_bucket, size_t n_buckets, double sum)
{
    struct label l[2];
    size_t n = 0, i;
    uint64_t cum = 0;
    char bound[40];
    int rc = 0;

    if (label != NULL)
        l[n++] = *label;
    l[n].key = "le";
    l[n].value = bound;
    for (i = 0; i < n_buckets; i++) {
        cum += per_bucket[i];
        fmt_double(bound, sizeof(bound), i < n_buckets - 1 ? le[i] : INFINITY);
        rc |= put_u64(e, name, "_bucket", l, n + 1, cum);
    }
    rc |= put_double(e, name, "_sum", l, n, sum);
    rc |= put_u64(e, name, "_count", l, n, cum);
    return rc ? -ENOMEM : 0;
}

static int render_jobs(const struct cairn_metrics *m, struct expo *e)
{
    struct label ok = { "status", "ok" }, failed = { "status", "failed" };
    int rc;

    rc = put_family(e, "cairn_jobs_total", "counter", "Jobs finished, by outcome.");
    rc |= put_u64(e, "cairn_jobs_total", "", &ok, 1, m->jobs_ok);
    rc |= put_u64(e, "cairn_jobs_total", "", &failed, 1, m->jobs_failed);

    rc |= put_family(e, "cairn_job_seconds", "histogram",
                     "Wall time of finished jobs, from claim to summary, in seconds.");
    rc |= put_histogram(e, "cairn_job_seconds", NULL, cairn_job_bucket_le, m->job_hist,
                        CAIRN_JOB_BUCKETS, m->job_seconds_sum);

    rc |= put_family(e, "cairn_jobs_active", "gauge", "Jobs being processed now.");
    rc |= put_u64(e, "cairn_jobs_active", "", NULL, 0, m->jobs_active);
    rc |= put_family(e, "cairn_jobs_queued", "gauge",
                     "Jobs found in the input directory and waiting for a worker.");
    rc |= put_u64(e, "cairn_jobs_queued", "", NULL, 0, m->jobs_queued);

    rc |= put_family(e, "cairn_bytes_read_total", "counter", "Bytes of job files read.");
    rc |= put_u64(e, "cairn_bytes_read_total", "", NULL, 0, m->bytes_read);
    return rc ? -ENOMEM : 0;
}

static int render_records(const struct cairn_metrics *m, struct expo *e)
{
    size_t i;
    int rc;

    rc = put_family(e, "cairn_records_total", "counter",
                    "Records answered, by variant (\"none\": never resolved) and status.");
    for (i = 0; i < m->n_variants; i++) {
        const struct cairn_metrics_variant *v = &m->variants[i];
        struct label l[2] = { { "variant", v->name }, { "status", "ok" } };

        rc |= put_u64(e, "cairn_records_total", "", l, 2, v->ok);
        l[1].value = "error";
        rc |= put_u64(e, "cairn_records_total", "", l, 2, v->err);
    }

    rc |= put_family(e, "cairn_record_errors_total", "counter",
                     "Records answered with an error line, by error code.");
    for (i = 0; i < CAIRN_CODE_COUNT; i++) {
        struct label l = { "code", cairn_code_name((enum cairn_code)i) };

        rc |= put_u64(e, "cairn_record_errors_total", "", &l, 1, m->errors[i]);
    }

    rc |= put_family(e, "cairn_solve_seconds", "histogram",
                     "Time spent in a plugin's solver per record, by variant, in seconds.");
    for (i = 0; i < m->n_variants; i++) {
        const struct cairn_metrics_variant *v = &m->variants[i];
        struct label l = { "variant", v->name };
        uint64_t n = 0;
        size_t k;

        for (k = 0; k < CAIRN_SOLVE_BUCKETS; k++)
            n += v->hist[k];
        /* "none" is never solved: an always-empty histogram is noise. */
        if (!v->solvable && n == 0)
            continue;
        rc |= put_histogram(e, "cairn_solve_seconds", &l, cairn_solve_bucket_le, v->hist,
                            CAIRN_SOLVE_BUCKETS, (double)v->solve_ns / 1e9);
    }
    return rc ? -ENOMEM : 0;
}

static int render_info(const struct cairn_metrics *m, struct expo *e)
{
    struct label build = { "version", m->version };
    size_t i;
    int rc;

    rc = put_family(e, "cairn_plugin_info", "gauge", "Loaded solver plugins (always 1).");
    for (i = 0; i < m->n_plugins; i++) {
        struct label l[2] = { { "name", m->plugins[i].name },
                              { "version", m->plugins[i].version } };

        rc |= put_u64(e, "cairn_plugin_info", "", l, 2, 1);
    }
    rc |= put_family(e, "cairn_build_info", "gauge", "The cairn build (always 1).");
    rc |= put_u64(e, "cairn_build_info", "", &build, 1, 1);
    rc |= put_family(e, "cairn_start_time_seconds", "gauge",
                     "When the daemon started, in seconds since the Unix epoch.");
    rc |= put_double(e, "cairn_start_time_seconds", "", NULL, 0, m->start_time);
    return rc ? -ENOMEM : 0;
}

int cairn_metrics_render(const struct cairn_metrics *m, struct cairn_buf *out)
{
    struct expo e = { out, m->labels != NULL && m->labels[0] != '\0' ? m->labels : NULL };
    size_t len0 = out->len;

    if (render_jobs(m, &e) != 0 || render_records(m, &e) != 0 || render_info(m, &e) != 0) {
        out->len = len0; /* no half exposition for the caller to publish */
        return -ENOMEM;
    }
    return 0;
}

/* ---- publishing ------------------------------------------------------- */

int cairn_metrics_write(const struct cairn_metrics *m, int dir_fd, const char *file)
{
    /* The collector may run as another user: 0644 whatever our umask. */
    static const struct cairn_publish_opts opts = { .kind = 'm', .sync = 1, .mode = 0644 };
    struct cairn_buf text = { 0 };
    int rc;

    if (!cairn_is_plain_name(file))
        return -EINVAL;
    rc = cairn_metrics_render(m, &text);
    if (rc == 0)
        rc = cairn_publish_now(dir_fd, file, text.data, text.len, &opts);
    cairn_buf_free(&text);
    return rc;
}
