/*
 * hang.h - notice a plugin call that never returns.
 *
 * A worker thread says, before a record's plugin calls (check, the scratch
 * sizes, solve and, for options.analysis or options.play, analyze) and
 * after them, which record it is in: lock-free, a few stores in a slot of
 * its own.  A timer on the loop thread looks at every slot at least four
 * times per timeout (cairn_hang_set_timeout) and reports each record
 * whose plugin calls have run longer than the timeout.
 *
 * "Run" means while this process ran: the checks keep a clock of their own,
 * and a gap of more than two check intervals between one check and the
 * next counts as one.  A process that was stopped (SIGSTOP, docker pause,
 * the cgroup freezer, a debugger, a paused virtual machine) runs no check,
 * so however long the stop, it adds one interval (a quarter of the
 * timeout, at most 1 s) to a record's time; a plugin that blocks without
 * using CPU (a sleep, a read that never returns) is still timed, check by
 * check, and reported.
 *
 * What to do about it is the owner's decision (daemon.c for the daemon,
 * main.c for --filter): a thread inside a plugin can be neither stopped nor
 * cancelled safely, only left behind by exiting.
 *
 * The monitor's functions run on the loop thread, except cairn_hang_begin
 * and cairn_hang_end, which run on workers.
 */
#ifndef CAIRN_HANG_H
#define CAIRN_HANG_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>
#include <uv.h>

/* One record past the timeout. */
struct cairn_hang_report {
    const void *owner;  /* as given to cairn_hang_begin: the record's context */
    uint64_t line;      /* its 1-based line number */
    const char *plugin; /* the plugin's name */
    double seconds;     /* how long its plugin calls have run so far, at
                           least (timed from the first check that saw it,
                           stops of the process left out: see the top) */
};

struct cairn_hang;

/* Called on the loop thread, at every check that finds records past the
 * timeout (so again at the next check if the owner does nothing), with
 * all of them.  owner, plugin and the strings they lead to stay valid
 * until the callback returns. */
typedef void (*cairn_hang_cb)(struct cairn_hang *h, const struct cairn_hang_report *r, size_t n);

struct cairn_hang_slot; /* one per worker thread, private to hang.c */
struct cairn_hang_seen; /* the loop thread's view of each slot */

struct cairn_hang {
    uv_timer_t timer;
    uint64_t timeout_ns; /* 0: nothing is watched */
    uint64_t id;         /* tells a worker's cached slot of a freed
                                     monitor from one of ours */
    uint64_t every_ns;   /* the check interval */
    uint64_t last_ns;    /* clock() at the last check (or set_timeout) */
    uint64_t ran_ns;     /* the checks' own clock: what they count as run */
    /* uv_hrtime, unless a test puts a clock of its own here (before
     * cairn_hang_set_timeout) to stop the process without stopping it. */
    uint64_t (*clock)(void);
    struct cairn_hang_slot *slots;
    size_t n_slots;
    atomic_size_t n_claimed;           /* slots handed to worker threads */
    struct cairn_hang_report *reports; /* [n_slots], filled at each check */
    struct cairn_hang_seen *seen;      /* [n_slots], loop thread only */
    cairn_hang_cb cb;
    void *data; /* for cb */
};

/*
 * NAME     cairn_hang_init - a monitor on loop, not yet checking
 * ARGUMENTS n_threads: every thread that may call cairn_hang_begin (the
 *          whole libuv pool: any of its threads may run a batch); a thread
 *          beyond them is not watched.  cb: required
 * RETURNS  0, -ENOMEM, or a libuv error
 * NOTES    the timer never keeps the loop alive (uv_unref)
 */
int cairn_hang_init(struct cairn_hang *h, uv_loop_t *loop, size_t n_threads, cairn_hang_cb cb,
                    void *data);

/* Checks from now on against a timeout of `seconds` (0: stops checking),
 * every quarter of it (at most every second), so a record is noticed
 * within two of those checks past the timeout. */
void cairn_hang_set_timeout(struct cairn_hang *h, double seconds);

/* Stops checking and closes the timer (a zeroed h is left alone). */
void cairn_hang_close(struct cairn_hang *h);

/* Frees the slots, once the timer is closed and no worker can be inside
 * cairn_hang_begin/end any more. */
void cairn_hang_free(struct cairn_hang *h);

/* On a worker, around one record's plugin calls.  h NULL: nothing. */
void cairn_hang_begin(struct cairn_hang *h, const void *owner, uint64_t line, const char *plugin);
void cairn_hang_end(struct cairn_hang *h);

#endif /* CAIRN_HANG_H */
