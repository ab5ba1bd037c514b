/*
 * gate.h - at most so many jobs streaming at once, the others waiting
 * their turn in order.
 *
 * A job that streams holds memory while it waits for the engine's
 * batches: the rest of its last piece (the stream's carry) and the next
 * piece read ahead, up to half a megabyte a job (two 256 KiB pieces).
 * Jobs answered where they started (pool.h's cairn_pool_solve_here) hold
 * none of that, and a burst of them goes faster the more of them are in
 * flight (daemon_dispatch.c), so the daemon lets many jobs in flight but
 * only some stream at once: the memory of a burst of big jobs stays what
 * those few hold.  A job past the gate's width waits, having read only
 * its first piece, and starts streaming on a loop turn after another
 * stream has ended, oldest first.
 *
 * Loop thread only.
 */
#ifndef CAIRN_GATE_H
#define CAIRN_GATE_H

#include <stddef.h>
#include <uv.h>

/* What the gate knows of a waiter: its place, and what to call when its
 * turn comes.  The job embeds it. */
struct cairn_gate_link {
    struct cairn_gate_link *next;
    void (*go)(struct cairn_gate_link *l);
};

struct cairn_gate {
    size_t in;                            /* through, not left yet */
    size_t width;                         /* at most this many through */
    struct cairn_gate_link *first, *last; /* waiting, oldest first */
    uv_idle_t turn;                       /* lets the waiters through */
};

/* A gate width wide (at least 1). */
void cairn_gate_init(struct cairn_gate *g, uv_loop_t *loop, size_t width);

/* 1: l is through now (the caller goes on, and calls cairn_gate_leave
 * once done).  0: l waits; l->go(l) is called on a later loop turn, when
 * it is through. */
int cairn_gate_enter(struct cairn_gate *g, struct cairn_gate_link *l);

/* One that was through is done: the first waiting goes through on the
 * next loop turn (never from inside this call). */
void cairn_gate_leave(struct cairn_gate *g);

/* Closes the loop handle (with the loop's others, at shutdown, when no
 * job is left). */
void cairn_gate_close(struct cairn_gate *g);

#endif /* CAIRN_GATE_H */
