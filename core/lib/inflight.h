/*
 * inflight.h - a count of the pool work items that create or rename files.
 *
 * A run that ends without its workers (a shutdown timeout, or a plugin
 * call that never returns: daemon.c's abort) leaves with _exit, and a
 * file write still on the pool at that moment would leave its temporary
 * in the output directory.  Those items are short and never wait for a
 * plugin, so the abort first waits for them, a bounded time, without
 * turning the loop (whose callbacks may belong to jobs being abandoned).
 *
 * Every function accepts NULL: nothing counted (the --filter path, tests).
 */
#ifndef CAIRN_INFLIGHT_H
#define CAIRN_INFLIGHT_H

#include <stdatomic.h>

struct cairn_inflight {
    atomic_uint n; /* items in flight, and CAIRN_INFLIGHT_CLOSED once closed */
};

#define CAIRN_INFLIGHT_CLOSED 0x80000000u

/* Loop thread, just before the item is queued. */
void cairn_inflight_enter(struct cairn_inflight *f);

/* A pool thread that is about to start file work of its own accord (a
 * job published from its start, job.c), only when no other item is in
 * flight: 1 when counted; 0 when another is, or once cairn_inflight_close
 * has run (the run is being abandoned: leave the work undone).  NULL
 * counts nothing and says 1. */
int cairn_inflight_try_enter_alone(struct cairn_inflight *f);

/* Any thread, once the item's files are all in their final state (the
 * item's work function, at its end; or the loop, if queueing failed). */
void cairn_inflight_leave(struct cairn_inflight *f);

/* Waits until no item is in flight, at most ms.  0, or -ETIMEDOUT. */
int cairn_inflight_wait(struct cairn_inflight *f, unsigned ms);

/* Loop thread, at an abort: no pool thread enters after this
 * (cairn_inflight_try_enter_alone says 0), then waits as
 * cairn_inflight_wait. */
int cairn_inflight_close(struct cairn_inflight *f, unsigned ms);

#endif /* CAIRN_INFLIGHT_H */
