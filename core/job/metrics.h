/*
 * metrics.h - the daemon-wide counters behind OUTPUT/metrics.prom
 * (docs/contract.md, Metrics).
 *
 * One struct cairn_metrics is owned by the daemon and touched only on the
 * loop thread, so nothing here locks.  Workers never see it: they fill a
 * struct cairn_tally per batch and the loop thread folds it in with
 * cairn_metrics_add_tally().
 *
 * Per-variant counts are kept by variant NAME rather than by registry
 * index, because a SIGHUP may reorder, add or drop plugins while the
 * counters must stay monotonic (Prometheus treats a drop as a restart).
 */
#ifndef CAIRN_METRICS_H
#define CAIRN_METRICS_H

#include <stddef.h>
#include <stdint.h>

#include "registry.h"
#include "record.h"
#include "util.h"
#include "variant.h"

/* Job wall-time histogram buckets (seconds, upper bounds); the last bucket
 * is +Inf.  Jobs range from a one-line file (milliseconds) to a huge batch
 * (an hour). */
#define CAIRN_JOB_BUCKETS 15
extern const double cairn_job_bucket_le[CAIRN_JOB_BUCKETS - 1];

/* The variant label of records whose variant was never resolved. */
#define CAIRN_METRICS_NO_VARIANT CAIRN_VARIANT_UNRESOLVED

/* Counters of one variant, accumulated across every registry it was in. */
struct cairn_metrics_variant {
    char *name;
    int solvable; /* was a plugin name at some point (vs. "none") */
    uint64_t ok;
    uint64_t err;
    uint64_t solve_ns;
    uint64_t hist[CAIRN_SOLVE_BUCKETS]; /* solves per bucket, not cumulative */
};

/* A loaded plugin, copied so the registry may be freed (SIGHUP) before the
 * next render. */
struct cairn_metrics_plugin {
    char *name;
    char *version;
};

struct cairn_metrics {
    char *version;     /* cairn_build_info{version} */
    double start_time; /* unix seconds, at init */

    uint64_t jobs_ok;
    uint64_t jobs_failed;
    uint64_t job_hist[CAIRN_JOB_BUCKETS]; /* jobs per bucket, not cumulative */
    double job_seconds_sum;

    uint64_t bytes_read;
    uint64_t jobs_active; /* gauges: last value set */
    uint64_t jobs_queued;

    uint64_t errors[CAIRN_CODE_COUNT];

    struct cairn_metrics_variant *variants; /* sorted by name */
    size_t n_variants;
    size_t cap_variants;

    struct cairn_metrics_plugin *plugins; /* the current plugin set */
    size_t n_plugins;

    const char *labels; /* borrowed: cairn_metrics_set_labels() */
};

/*
 * NAME     cairn_metrics_init - zero counters, stamp the start time
 * ARGUMENTS version: the daemon's version (copied; NULL means "unknown")
 * RETURNS  0 or -ENOMEM (m is then safe to free)
 */
int cairn_metrics_init(struct cairn_metrics *m, const char *version);
void cairn_metrics_free(struct cairn_metrics *m);

/*
 * NAME     cairn_metrics_set_plugins - the plugin set changed (start-up, SIGHUP)
 * RETURNS  0 or -ENOMEM (the previous plugin set is then kept)
 * NOTES    cairn_plugin_info follows reg exactly; per-variant counters are
 *          never dropped, and every variant of reg gets its (zero) series.
 */
int cairn_metrics_set_plugins(struct cairn_metrics *m, const struct cairn_registry *reg);

/*
 * NAME     cairn_metrics_add_tally - fold in one batch's tally
 * ARGUMENTS reg: the registry the tally was built against (a job in flight
 *          across a SIGHUP keeps its old one): index i < reg->n_plugins is
 *          reg->plugins[i].desc->name, the last index is variant "none"
 * RETURNS  0; -EINVAL when t->n_variants != reg->n_plugins + 1; -ENOMEM.
 *          On error nothing is added.
 */
int cairn_metrics_add_tally(struct cairn_metrics *m, const struct cairn_registry *reg,
                            const struct cairn_tally *t);

/* A job ended: ok or failed, its wall time in seconds. */
void cairn_metrics_job_done(struct cairn_metrics *m, int ok, double wall_seconds);
void cairn_metrics_add_bytes(struct cairn_metrics *m, uint64_t bytes);
void cairn_metrics_set_gauges(struct cairn_metrics *m, uint64_t jobs_active, uint64_t jobs_queued);

/*
 * NAME     cairn_metrics_set_labels - labels added to every series
 * ARGUMENTS labels: cairn_prom_label_put() pieces (prom_label.h) joined by ',' (the
 *          config's metrics_labels), or NULL or "" for none.  Borrowed, not
 *          copied: it must stay valid until the next call or the last
 *          render (the daemon points it at its current configuration).
 * NOTES    They come first in every series, so several daemons' files can
 *          feed one node_exporter without two series being the same.
 */
void cairn_metrics_set_labels(struct cairn_metrics *m, const char *labels);

/* Appends the Prometheus text exposition (format 0.0.4) to out.
 * Returns 0 or -ENOMEM. */
int cairn_metrics_render(const struct cairn_metrics *m, struct cairn_buf *out);

/*
 * NAME     cairn_metrics_write - render and publish dir_fd/file atomically
 * RETURNS  0 or a negative errno (-EINVAL for a file name that is empty,
 *          "." or "..", or holds a '/')
 * NOTES    writes a fresh temporary (tmpfile.h: unique name, O_EXCL,
 *          O_NOFOLLOW, so a planted link is never followed), makes it 0644,
 *          fsyncs it and renames it over file: the node_exporter
 *          textfile-collector convention.  The collector reads only
 *          "*.prom", so it never sees the temporary, and rename() means it
 *          never sees a torn file.  The temporary never outlives the call.
 */
int cairn_metrics_write(const struct cairn_metrics *m, int dir_fd, const char *file);

#endif /* CAIRN_METRICS_H */
