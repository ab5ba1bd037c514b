/*
 * hang.c - notice a plugin call that never returns.  See hang.h.
 *
 * Each worker thread owns one slot and is its only writer; the loop
 * thread only reads.  A slot is a seqlock (Boehm, "Can seqlocks get along
 * with programming language memory models?", 2012): the writer makes seq
 * odd, writes the fields, makes it even again; a reader that sees the same
 * even seq before and after its reads has a consistent record.  A reader
 * that meets a write in progress skips the slot: that worker is starting
 * or ending a record right now, so it is not stuck.
 *
 * The watch has workers read no clock: a record's slot carries a number
 * that changes at every record, and the loop thread times how long it
 * keeps seeing the same one.  That start is late by at most one check
 * interval, so a hang is reported at most two intervals past the timeout
 * instead of one, and never early.  On this VM a precise clock read costs
 * 120 ns and the coarse one 45 ns; once per record that was 3 % of a
 * worker's time on small records.  What the watch leaves per record is a
 * few plain stores (record.c's timing of solve() for the metrics is its
 * own).
 *
 * The loop thread's timing is by its own clock, ran_ns, not by uv_hrtime:
 * CLOCK_MONOTONIC goes on while the whole process is stopped (SIGSTOP, a
 * frozen cgroup, a paused VM), and a good record that was being solved
 * when the process was stopped for longer than the timeout would be
 * reported hung the moment it runs again.  Between two checks ran_ns
 * advances by the time that passed, up to two intervals; a check later
 * than that means this process (or at least its loop thread) did not run,
 * and what did not run cannot have been hanging: that gap counts as one
 * interval, as if the check had come on time.  Thread CPU
 * time would not do: a plugin blocked in a sleep or a read uses none and
 * is hung all the same.  Each check adds at least one interval (a timer
 * never fires early), so a real hang is still reported within a bounded
 * number of checks, however late they run.
 */
#include "hang.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

struct cairn_hang_slot {
    atomic_uint_fast64_t seq;
    atomic_uint_fast64_t gen; /* changes at every record; 0: idle */
    atomic_uint_fast64_t line;
    _Atomic(const void *) owner;
    _Atomic(const char *) plugin;
} __attribute__((aligned(64))); /* one cache line each: workers do not share */

/* Monitors are numbered, so a thread that cached a slot of a monitor that
 * was freed (a test making several) claims a new one instead of writing
 * into freed memory. */
static atomic_uint_fast64_t next_id = 1;

/* What the loop thread last saw in a slot, and since when. */
struct cairn_hang_seen {
    uint64_t gen;
    uint64_t since; /* ran_ns */
};

/* The calling thread's slot, and whose it is. */
static _Thread_local uint64_t my_id;
static _Thread_local struct cairn_hang_slot *my_slot;
static _Thread_local uint64_t my_gen;

int cairn_hang_init(struct cairn_hang *h, uv_loop_t *loop, size_t n_threads, cairn_hang_cb cb,
                    void *data)
{
    int rc;

    memset(h, 0, sizeof(*h));
    if (n_threads == 0)
        n_threads = 1;
    h->slots =
        aligned_alloc(_Alignof(struct cairn_hang_slot), n_threads * sizeof(struct cairn_hang_slot));
    h->reports = calloc(n_threads, sizeof(*h->reports));
    h->seen = calloc(n_threads, sizeof(*h->seen));
    if (h->slots == NULL || h->reports == NULL || h->seen == NULL) {
        cairn_hang_free(h);
        return -ENOMEM;
    }
    memset(h->slots, 0, n_threads * sizeof(struct cairn_hang_slot));
    h->n_slots = n_threads;
    atomic_init(&h->n_claimed, 0);
    h->id = atomic_fetch_add(&next_id, 1);
    h->cb = cb;
    h->data = data;
    h->clock = uv_hrtime;
    if ((rc = uv_timer_init(loop, &h->timer)) != 0) {
        cairn_hang_free(h);
        return rc;
    }
    h->timer.data = h;
    /* A watch on work in progress is no reason to keep a loop running. */
    uv_unref((uv_handle_t *)&h->timer);
    return 0;
}

/* A consistent copy of slot s into *r and its record's number into *gen:
 * 1 when it is in a record, 0 when it is idle, -1 when it is changing. */
static int read_slot(struct cairn_hang_slot *s, struct cairn_hang_report *r, uint64_t *gen)
{
    uint64_t q1, q2;

    q1 = atomic_load_explicit(&s->seq, memory_order_acquire);
    if (q1 & 1)
        return -1;
    *gen = atomic_load_explicit(&s->gen, memory_order_relaxed);
    r->line = atomic_load_explicit(&s->line, memory_order_relaxed);
    r->owner = atomic_load_explicit(&s->owner, memory_order_relaxed);
    r->plugin = atomic_load_explicit(&s->plugin, memory_order_relaxed);
    atomic_thread_fence(memory_order_acquire);
    q2 = atomic_load_explicit(&s->seq, memory_order_relaxed);
    if (q1 != q2)
        return -1;
    return *gen != 0;
}

static void on_check(uv_timer_t *t)
{
    struct cairn_hang *h = t->data;
    size_t claimed = atomic_load_explicit(&h->n_claimed, memory_order_acquire);
    uint64_t wall = h->clock(), gap = wall - h->last_ns, now;
    size_t i, n = 0;

    /* A gap past two intervals is a stop of the process (see the top):
     * counted as one interval, as if this check had come on time. */
    h->last_ns = wall;
    h->ran_ns += gap <= 2 * h->every_ns ? gap : h->every_ns;
    now = h->ran_ns;
    if (claimed > h->n_slots)
        claimed = h->n_slots;
    for (i = 0; i < claimed; i++) {
        struct cairn_hang_report *r = &h->reports[n];
        struct cairn_hang_seen *seen = &h->seen[i];
        uint64_t gen;
        int busy = read_slot(&h->slots[i], r, &gen);

        /* Idle, or starting or ending a record right now: not stuck. */
        if (busy <= 0) {
            if (busy == 0)
                seen->gen = 0;
            continue;
        }
        if (gen != seen->gen) {
            seen->gen = gen;
            seen->since = now;
            continue;
        }
        r->seconds = (double)(now - seen->since) / 1e9;
        if (now - seen->since > h->timeout_ns)
            n++;
    }
    if (n > 0)
        h->cb(h, h->reports, n);
}

void cairn_hang_set_timeout(struct cairn_hang *h, double seconds)
{
    uint64_t every_ms;

    if (h->timer.loop == NULL)
        return;
    uv_timer_stop(&h->timer);
    h->timeout_ns = seconds > 0 ? (uint64_t)(seconds * 1e9) : 0;
    if (h->timeout_ns == 0)
        return;
    /* A quarter of the timeout, within [20 ms, 1 s]: a hang is reported at
     * most two of these after the timeout (see the top), at a negligible
     * cost. */
    every_ms = h->timeout_ns / 4000000;
    every_ms = every_ms < 20 ? 20 : every_ms > 1000 ? 1000 : every_ms;
    h->every_ns = every_ms * 1000000;
    h->last_ns = h->clock();
    uv_timer_start(&h->timer, on_check, every_ms, every_ms);
}

void cairn_hang_close(struct cairn_hang *h)
{
    if (h->timer.loop != NULL && !uv_is_closing((uv_handle_t *)&h->timer)) {
        uv_timer_stop(&h->timer);
        uv_close((uv_handle_t *)&h->timer, NULL);
    }
}

void cairn_hang_free(struct cairn_hang *h)
{
    free(h->slots);
    free(h->reports);
    free(h->seen);
    h->slots = NULL;
    h->reports = NULL;
    h->seen = NULL;
    h->n_slots = 0;
}

/* The calling thread's slot in h, claimed at its first record; NULL when
 * every slot is taken. */
static struct cairn_hang_slot *slot_of(struct cairn_hang *h)
{
    size_t i;

    if (my_id == h->id)
        return my_slot;
    i = atomic_fetch_add_explicit(&h->n_claimed, 1, memory_order_acq_rel);
    my_id = h->id;
    my_slot = i < h->n_slots ? &h->slots[i] : NULL;
    return my_slot;
}

/* The writer's half of the seqlock; this thread is the slot's only writer. */
static void publish(struct cairn_hang_slot *s, uint64_t gen, const void *owner, uint64_t line,
                    const char *plugin)
{
    uint64_t q = atomic_load_explicit(&s->seq, memory_order_relaxed);

    atomic_store_explicit(&s->seq, q + 1, memory_order_relaxed);
    atomic_thread_fence(memory_order_release);
    atomic_store_explicit(&s->gen, gen, memory_order_relaxed);
    atomic_store_explicit(&s->line, line, memory_order_relaxed);
    atomic_store_explicit(&s->owner, owner, memory_order_relaxed);
    atomic_store_explicit(&s->plugin, plugin, memory_order_relaxed);
    atomic_store_explicit(&s->seq, q + 2, memory_order_release);
}

void cairn_hang_begin(struct cairn_hang *h, const void *owner, uint64_t line, const char *plugin)
{
    struct cairn_hang_slot *s;

    if (h == NULL || (s = slot_of(h)) == NULL)
        return;
    if (++my_gen == 0)
        my_gen = 1; /* 0 means idle */
    publish(s, my_gen, owner, line, plugin);
}

void cairn_hang_end(struct cairn_hang *h)
{
    struct cairn_hang_slot *s;

    if (h == NULL || (s = slot_of(h)) == NULL)
        return;
    publish(s, 0, NULL, 0, NULL);
}
