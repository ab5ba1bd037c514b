/*
 * test_hang.c - the watch on plugin calls that never return (hang.h), on
 * its own, on a loop of the test's: what is reported (owner, line, plugin,
 * how long), when (past the timeout only, never for a record that ended or
 * a thread beyond the watched ones), that a timeout of 0 turns it off, and
 * that time the process spent stopped (SIGSTOP) does not count.
 * What the daemon and --filter do about a report is test_plugins.c's.
 */
#include <check.h>
#include <pthread.h>
#include <string.h>
#include <uv.h>

#include "harness.h"
#include "hang.h"

struct seen {
    size_t calls, n;
    struct cairn_hang_report first;
    uv_loop_t *loop;
};

static void on_hang(struct cairn_hang *h, const struct cairn_hang_report *r, size_t n)
{
    struct seen *s = h->data;

    if (s->calls++ == 0) {
        s->first = r[0];
        s->n = n;
    }
    uv_stop(s->loop);
}

static void on_deadline(uv_timer_t *t)
{
    uv_stop(t->loop);
}

/* Runs the loop for at most ms (or until a report stops it). */
static void run_for(uv_loop_t *loop, uint64_t ms)
{
    uv_timer_t deadline;

    ck_assert_int_eq(uv_timer_init(loop, &deadline), 0);
    ck_assert_int_eq(uv_timer_start(&deadline, on_deadline, ms, 0), 0);
    uv_run(loop, UV_RUN_DEFAULT);
    uv_close((uv_handle_t *)&deadline, NULL);
    uv_run(loop, UV_RUN_NOWAIT);
}

static void close_loop(uv_loop_t *loop, struct cairn_hang *h)
{
    cairn_hang_close(h);
    cairn_hang_close(h); /* a second close is harmless */
    uv_run(loop, UV_RUN_DEFAULT);
    cairn_hang_free(h);
    ck_assert_int_eq(uv_loop_close(loop), 0);
}

START_TEST(a_record_past_the_timeout_is_reported)
{
    static const int owner = 0;
    struct seen s = { 0 };
    struct cairn_hang h;
    uv_loop_t loop;
    uint64_t t0;
    double took;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    s.loop = &loop;
    ck_assert_int_eq(cairn_hang_init(&h, &loop, 2, on_hang, &s), 0);
    cairn_hang_set_timeout(&h, 0.1);
    t0 = uv_hrtime();
    cairn_hang_begin(&h, &owner, 7, "stuck-game");
    run_for(&loop, 30000); /* a report stops the loop long before */
    took = (double)(uv_hrtime() - t0) / 1e9;
    ck_assert_uint_eq(s.calls, 1);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_ptr_eq(s.first.owner, &owner);
    ck_assert_uint_eq(s.first.line, 7);
    ck_assert_str_eq(s.first.plugin, "stuck-game");
    /* How soon past the timeout is not asserted: a loaded machine may
     * hold this process off the CPU for any time (bench/, not tests/,
     * measures time). */
    ck_assert_msg(s.first.seconds > 0.1 && s.first.seconds <= took,
                  "reported after %.3f s, %.3f s since it began", s.first.seconds, took);

    /* Ended: nothing more to say. */
    cairn_hang_end(&h);
    run_for(&loop, 400);
    ck_assert_uint_eq(s.calls, 1);
    close_loop(&loop, &h);
}
END_TEST

/* Records that have ended are never reported, however long the loop then
 * runs past the timeout, and neither is one younger than a long timeout
 * (checked every second).  Each short record begins and ends with the loop
 * idle, so a stall of this process (a loaded machine) cannot age one past
 * the timeout while it runs. */
START_TEST(records_within_the_timeout_are_not_reported)
{
    struct seen s = { 0 };
    struct cairn_hang h;
    uv_loop_t loop;
    int i;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    s.loop = &loop;
    ck_assert_int_eq(cairn_hang_init(&h, &loop, 1, on_hang, &s), 0);
    cairn_hang_set_timeout(&h, 0.05);
    for (i = 0; i < 8; i++) {
        cairn_hang_begin(&h, &s, (uint64_t)i + 1, "quick-game");
        cairn_hang_end(&h);
        run_for(&loop, 60); /* past the timeout, a check or more apart */
    }
    ck_assert_uint_eq(s.calls, 0);
    cairn_hang_set_timeout(&h, 30);
    cairn_hang_begin(&h, &s, 9, "patient-game");
    run_for(&loop, 1500);
    ck_assert_uint_eq(s.calls, 0);
    cairn_hang_end(&h);
    close_loop(&loop, &h);
}
END_TEST

/* A timeout of 0 (or less) stops the checks: a stuck record goes unsaid. */
START_TEST(timeout_zero_watches_nothing)
{
    struct seen s = { 0 };
    struct cairn_hang h, zeroed;
    uv_loop_t loop;

    memset(&zeroed, 0, sizeof(zeroed));
    cairn_hang_set_timeout(&zeroed, 1); /* never initialised: left alone */
    cairn_hang_close(&zeroed);
    ck_assert_ptr_null(zeroed.timer.loop);

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    s.loop = &loop;
    ck_assert_int_eq(cairn_hang_init(&h, &loop, 0, on_hang, &s), 0);
    ck_assert_uint_eq(h.n_slots, 1); /* 0 threads: one slot all the same */
    cairn_hang_set_timeout(&h, 0.05);
    cairn_hang_set_timeout(&h, 0);
    ck_assert_uint_eq(h.timeout_ns, 0);
    cairn_hang_begin(&h, &s, 1, "stuck-game");
    run_for(&loop, 300);
    ck_assert_uint_eq(s.calls, 0);
    cairn_hang_set_timeout(&h, -1);
    ck_assert_uint_eq(h.timeout_ns, 0);
    run_for(&loop, 100);
    ck_assert_uint_eq(s.calls, 0);
    cairn_hang_end(&h);
    close_loop(&loop, &h);
}
END_TEST

/* The monitor's clock in stopped_process_time_is_not_counted: moved by the
 * test alone, so a stop of any length is one assignment, and a loaded
 * machine's own stalls move nothing. */
static uint64_t fake_now;

static uint64_t fake_clock(void)
{
    return fake_now;
}

/* A record being solved when the whole process is stopped for ten times
 * the timeout (docker pause, SIGSTOP) is not hung once it runs again: the
 * stop counts as one check interval.  The same record, left to run on
 * past the timeout, is still reported, with the stop left out of its
 * time.  Each run_for outlasts a check interval (25 ms), so it holds at
 * least one check; further checks in it see no time pass. */
START_TEST(stopped_process_time_is_not_counted)
{
    struct seen s = { 0 };
    struct cairn_hang h;
    uv_loop_t loop;
    int i;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    s.loop = &loop;
    ck_assert_int_eq(cairn_hang_init(&h, &loop, 1, on_hang, &s), 0);
    fake_now = 1000000000;
    h.clock = fake_clock;
    cairn_hang_set_timeout(&h, 0.1);
    cairn_hang_begin(&h, &s, 5, "slow-game");
    fake_now += 10000000; /* 10 ms in: a check sees the record */
    run_for(&loop, 60);
    ck_assert_uint_eq(s.calls, 0);

    fake_now += 1000000000; /* stopped for 1 s, ten times the timeout */
    run_for(&loop, 60);
    ck_assert_msg(s.calls == 0, "a stop of the process was taken for a hang (%.3f s)",
                  s.first.seconds);

    /* Running on, 25 ms a check: reported once 0.1 s have been counted. */
    for (i = 0; i < 100 && s.calls == 0; i++) {
        fake_now += 25000000;
        run_for(&loop, 60);
    }
    ck_assert_uint_eq(s.calls, 1);
    ck_assert_uint_eq(s.first.line, 5);
    ck_assert_msg(s.first.seconds > 0.1 && s.first.seconds < 0.5,
                  "reported after %.3f s counted: the 1 s stop was counted", s.first.seconds);
    cairn_hang_end(&h);
    close_loop(&loop, &h);
}
END_TEST

struct other {
    struct cairn_hang *h;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int begun, done;
};

static void *other_thread(void *arg)
{
    struct other *o = arg;

    cairn_hang_begin(o->h, o, 2, "unwatched-game");
    pthread_mutex_lock(&o->lock);
    o->begun = 1;
    pthread_cond_broadcast(&o->cond);
    while (!o->done)
        pthread_cond_wait(&o->cond, &o->lock);
    pthread_mutex_unlock(&o->lock);
    cairn_hang_end(o->h);
    return NULL;
}

/* One slot, two threads: the first to begin a record has it; the other is
 * beyond the watched threads and never reported, however long it takes. */
START_TEST(a_thread_beyond_the_slots_is_not_watched)
{
    struct seen s = { 0 };
    struct other o = { .lock = PTHREAD_MUTEX_INITIALIZER, .cond = PTHREAD_COND_INITIALIZER };
    struct cairn_hang h;
    uv_loop_t loop;
    pthread_t t;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    s.loop = &loop;
    ck_assert_int_eq(cairn_hang_init(&h, &loop, 1, on_hang, &s), 0);
    cairn_hang_set_timeout(&h, 0.05);
    cairn_hang_begin(&h, &s, 1, "watched-game");
    cairn_hang_end(&h); /* this thread holds the one slot */
    o.h = &h;
    ck_assert_int_eq(pthread_create(&t, NULL, other_thread, &o), 0);
    pthread_mutex_lock(&o.lock);
    while (!o.begun)
        pthread_cond_wait(&o.cond, &o.lock);
    pthread_mutex_unlock(&o.lock);
    run_for(&loop, 400);
    ck_assert_uint_eq(s.calls, 0);

    /* The watched thread's own stuck record still is. */
    cairn_hang_begin(&h, &s, 3, "watched-game");
    run_for(&loop, 30000); /* a report stops the loop long before */
    ck_assert_uint_eq(s.calls, 1);
    ck_assert_uint_eq(s.n, 1);
    ck_assert_uint_eq(s.first.line, 3);
    ck_assert_str_eq(s.first.plugin, "watched-game");
    cairn_hang_end(&h);

    pthread_mutex_lock(&o.lock);
    o.done = 1;
    pthread_cond_broadcast(&o.cond);
    pthread_mutex_unlock(&o.lock);
    ck_assert_int_eq(pthread_join(t, NULL), 0);
    close_loop(&loop, &h);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("hang");
    TCase *tc = tcase_create("monitor");
    int failed;

    tcase_add_test(tc, a_record_past_the_timeout_is_reported);
    tcase_add_test(tc, records_within_the_timeout_are_not_reported);
    tcase_add_test(tc, timeout_zero_watches_nothing);
    tcase_add_test(tc, a_thread_beyond_the_slots_is_not_watched);
    tcase_add_test(tc, stopped_process_time_is_not_counted);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? 0 : 1;
}
