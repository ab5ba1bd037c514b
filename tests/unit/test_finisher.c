/*
 * test_finisher.c - the jobs that end together are published together:
 * a work item's next turn takes every item that became ready meanwhile
 * (at most CAIRN_FINISH_BATCH), in the order they came; a second work
 * item turns beside the first once items wait; an item alone goes at
 * once.  The turns the test wants held say they began and wait on a
 * semaphore the test posts, so which items wait, and which turn takes
 * them, is decided by the test, never by how fast a thread runs.
 */
#include <check.h>
#include <stdlib.h>
#include <uv.h>

#include "harness.h"
#include "finisher.h"

#define ITEMS 140
#define TURNS 16

struct item {
    struct cairn_finisher_link link; /* first: the item is its link */
    int id;
    int published;
};

static struct item g_items[ITEMS];
static struct cairn_finisher g_f;
static uv_mutex_t g_lock; /* the turns' records: two threads publish */
static uv_sem_t g_hold;   /* the first two turns wait for it */
static uv_sem_t g_began;  /* ... and post this first */
static int g_n_held;      /* turns held so far */
static int g_turn_first[TURNS], g_turn_n[TURNS];
static size_t g_n_turns;
static size_t g_n_items, g_n_told;
static int g_add_when_told; /* id that, when told, adds the last item */

static void publish(struct cairn_finisher_link **items, size_t n)
{
    size_t i;
    int hold;

    uv_mutex_lock(&g_lock);
    if (g_n_turns < TURNS) {
        g_turn_first[g_n_turns] = ((struct item *)items[0])->id;
        g_turn_n[g_n_turns] = (int)n;
    }
    g_n_turns++;
    /* Each turn holds a run of consecutive items, oldest first. */
    for (i = 0; i < n; i++)
        ck_assert_int_eq(((struct item *)items[i])->id, ((struct item *)items[0])->id + (int)i);
    g_n_items += n;
    hold = g_n_held < 2;
    g_n_held += hold;
    uv_mutex_unlock(&g_lock);
    if (hold) {
        uv_sem_post(&g_began);
        uv_sem_wait(&g_hold);
    }
}

static void published(struct cairn_finisher_link *link)
{
    struct item *it = (struct item *)link;

    it->published++;
    g_n_told++;
    /* Told on the loop: a job that ends may start another that ends at
     * once; it waits for the next turn. */
    if (it->id == g_add_when_told)
        cairn_finisher_add(&g_f, &g_items[ITEMS - 1].link);
}

static int by_size(const void *a, const void *b)
{
    return *(const int *)a - *(const int *)b;
}

START_TEST(alone_goes_at_once_and_the_waiting_go_together)
{
    static const int want[] = { 1, 1, 2, 8, CAIRN_FINISH_BATCH, CAIRN_FINISH_BATCH };
    uv_loop_t loop;
    int i;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    for (i = 0; i < ITEMS; i++)
        g_items[i] = (struct item){ .id = i };
    g_add_when_told = -1;
    ck_assert_int_eq(uv_mutex_init(&g_lock), 0);
    ck_assert_int_eq(uv_sem_init(&g_hold, 0), 0);
    ck_assert_int_eq(uv_sem_init(&g_began, 0), 0);
    ck_assert_int_eq(cairn_finisher_init(&g_f, &loop, NULL, publish, published), 0);
    /* The first goes at once, alone, and is held. */
    cairn_finisher_add(&g_f, &g_items[0].link);
    uv_sem_wait(&g_began);
    /* Two wait while it turns: a second work item takes both, and is
     * held too. */
    cairn_finisher_add(&g_f, &g_items[1].link);
    cairn_finisher_add(&g_f, &g_items[2].link);
    uv_sem_wait(&g_began);
    /* The rest wait for the turns after: 64, 64 and 8, on whichever
     * item is free first; then the one added while the last were told. */
    for (i = 3; i < ITEMS - 1; i++)
        cairn_finisher_add(&g_f, &g_items[i].link);
    g_add_when_told = ITEMS - 2;
    uv_sem_post(&g_hold);
    uv_sem_post(&g_hold);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_uint_eq(g_n_told, ITEMS);
    ck_assert_uint_eq(g_n_items, ITEMS);
    ck_assert_uint_eq(g_n_turns, sizeof(want) / sizeof(want[0]));
    ck_assert_int_eq(g_turn_first[0], 0);
    ck_assert_int_eq(g_turn_n[0], 1);
    ck_assert_int_eq(g_turn_first[1], 1);
    ck_assert_int_eq(g_turn_n[1], 2);
    ck_assert_int_eq(g_turn_first[g_n_turns - 1], ITEMS - 1);
    qsort(g_turn_n, g_n_turns, sizeof(g_turn_n[0]), by_size);
    for (i = 0; i < (int)g_n_turns; i++)
        ck_assert_int_eq(g_turn_n[i], want[i]);
    for (i = 0; i < ITEMS; i++)
        ck_assert_int_eq(g_items[i].published, 1);
    uv_sem_destroy(&g_hold);
    uv_sem_destroy(&g_began);
    uv_mutex_destroy(&g_lock);
    cairn_finisher_close(&g_f);
    uv_run(&loop, UV_RUN_DEFAULT);
    cairn_finisher_free(&g_f);
    ck_assert_int_eq(uv_loop_close(&loop), 0);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("finisher");
    TCase *tc = tcase_create("batches");
    int failed;

    tcase_add_test(tc, alone_goes_at_once_and_the_waiting_go_together);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
