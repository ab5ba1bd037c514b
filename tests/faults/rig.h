/*
 * rig.h - what the fault sweeps share (test_syscall_faults.c,
 * test_oom_faults.c): a spool of their own with one job, cairnd started
 * and stopped by hand (a sweep starts hundreds, past the harness's table),
 * and the checks every point ends with.
 */
#ifndef CAIRN_TEST_RIG_H
#define CAIRN_TEST_RIG_H

#include <limits.h>
#include <sys/types.h>

/* Set by main() from the test environment. */
extern const char *rig_cairnd, *rig_cairn, *rig_plugins;

/* The job every point runs: three good records and a bad line. */
extern const char rig_job_text[];
/* cairnd --filter's results of it (rig_make_reference). */
extern char *rig_reference;

/* One point's directory: the spool, the output, the configuration, the
 * daemon's log and the shim's. */
struct spot {
    char root[PATH_MAX];
    char in[PATH_MAX + 8], out[PATH_MAX + 8], cfg[PATH_MAX + 16], log[PATH_MAX + 16];
    char faults[PATH_MAX + 16], job[PATH_MAX + 32];
};

void rig_spot_init(struct spot *s);
void rig_make_reference(void);

/* cairnd on the spot (--once when once), logging to s->log; the clean run
 * after a fault logs apart and, as a daemon, is waited for until it
 * watches the spool. */
pid_t rig_start(const struct spot *s, int once);
pid_t rig_start_clean(const struct spot *s, int once, const char *what);

/* job.jsonl is over: its summary out, its input out of the spool and
 * active/. */
int rig_finished(const struct spot *s);
/* p exited on its own within ms: 1 with *status, or 0. */
int rig_exited(pid_t p, int *status, long ms);
/* The process ended by exit, never by a signal. */
void rig_no_crash(const char *what, int status);
/* SIGTERM; it must end by exit. */
void rig_stop(pid_t p, const char *what);
/* After a clean run: the job whole, once, its results byte for byte
 * rig_reference, its input in done/, nothing visible but whole outputs. */
void rig_check_done(const struct spot *s, const char *what);

/* The point a sweep tries after point n.  The full sweep (meson's suite
 * "full") tries every point; the short form (CAIRN_TEST_SWEEP=quick, the
 * suite "quick") tries points 1, 2, 4, 8, ...: every kind of call is
 * still failed at its first use and past its last, in far fewer runs. */
int rig_quick_sweep(void);
long rig_next_point(long n);
/* Whether the sweep goes past point 1 of call kind `kind` with the
 * err-th of n_errs errnos: always in the full sweep; in the short form,
 * with one errno per kind, in turn, so that every kind fails with every
 * errno at its first point and deeper with one of them. */
int rig_deeper_points(size_t kind, int err, int n_errs);
/* The number of words of a space-separated list (a sweep's errnos). */
int rig_word_count(const char *list);
/* "every point" or "points 1, 2, 4, ...": for the sweep's summary line. */
const char *rig_sweep_form(void);

#endif /* CAIRN_TEST_RIG_H */
