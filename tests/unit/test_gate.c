/*
 * test_gate.c - at most so many through at once; the others wait their
 * turn, oldest first, and go on a later loop turn, never from inside the
 * call that made room.  Loop turns are run by the test (UV_RUN_NOWAIT),
 * so nothing depends on timing.
 */
#include <check.h>
#include <stdlib.h>
#include <uv.h>

#include "harness.h"
#include "gate.h"

struct waiter {
    struct cairn_gate_link link; /* first: the waiter is its link */
    int id;
};

static struct cairn_gate g_gate;
static int g_order[8];
static int g_n_went;
static int g_leave_at_once; /* a go() that is done at once leaves */

static void go(struct cairn_gate_link *l)
{
    g_order[g_n_went++] = ((struct waiter *)l)->id;
    if (g_leave_at_once)
        cairn_gate_leave(&g_gate);
}

START_TEST(waiters_go_in_order_on_later_turns)
{
    struct waiter w[6];
    uv_loop_t loop;
    int i;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    cairn_gate_init(&g_gate, &loop, 2);
    g_n_went = 0;
    g_leave_at_once = 0;
    for (i = 0; i < 6; i++)
        w[i] = (struct waiter){ .link = { .go = go }, .id = i };
    /* Two through at once; the next three wait. */
    ck_assert_int_eq(cairn_gate_enter(&g_gate, &w[0].link), 1);
    ck_assert_int_eq(cairn_gate_enter(&g_gate, &w[1].link), 1);
    ck_assert_int_eq(cairn_gate_enter(&g_gate, &w[2].link), 0);
    ck_assert_int_eq(cairn_gate_enter(&g_gate, &w[3].link), 0);
    ck_assert_int_eq(cairn_gate_enter(&g_gate, &w[4].link), 0);
    uv_run(&loop, UV_RUN_NOWAIT);
    ck_assert_int_eq(g_n_went, 0);
    /* One leaves: the oldest waiting goes, on the next turn only. */
    cairn_gate_leave(&g_gate);
    ck_assert_int_eq(g_n_went, 0);
    /* Room now, but one came after those waiting: it waits behind them. */
    ck_assert_int_eq(cairn_gate_enter(&g_gate, &w[5].link), 0);
    uv_run(&loop, UV_RUN_NOWAIT);
    ck_assert_int_eq(g_n_went, 1);
    ck_assert_int_eq(g_order[0], 2);
    ck_assert_uint_eq(g_gate.in, 2);
    /* The rest, each done as soon as it goes: one at a time still, in
     * order, never from inside the leave that made its room. */
    g_leave_at_once = 1;
    cairn_gate_leave(&g_gate);
    uv_run(&loop, UV_RUN_NOWAIT);
    ck_assert_int_ge(g_n_went, 2);
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_run(&loop, UV_RUN_NOWAIT);
    uv_run(&loop, UV_RUN_NOWAIT);
    ck_assert_int_eq(g_n_went, 4);
    for (i = 0; i < 4; i++)
        ck_assert_int_eq(g_order[i], i + 2);
    ck_assert_uint_eq(g_gate.in, 1); /* w[1], never left */
    ck_assert_ptr_null(g_gate.first);
    cairn_gate_close(&g_gate);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("gate");
    TCase *tc = tcase_create("gate");
    int failed;

    tcase_add_test(tc, waiters_go_in_order_on_later_turns);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
