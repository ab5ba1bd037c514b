/*
 * test_finisher.c - the jobs that end together are published together:
 * one work item in flight, whose next turn takes every item that became
 * ready meanwhile (at most CAIRN_FINISH_BATCH), in the order they came;
 * an item alone goes at once.  The first turn says it began and is then
 * held on a semaphore the test posts, so which items wait is decided by
 * the test, never by how fast a thread runs.
 */
#include <check.h>
#include <stdlib.h>
#include <uv.h>

#include "harness.h"
#include "finisher.h"

#define ITEMS 140

struct item {
    struct cairn_finisher_link link; /* first: the item is its link */
    int id;
    int published;
};

static struct item g_items[ITEMS];
static struct cairn_finisher g_f;
static uv_sem_t g_hold;    /* the first turn waits for it */
static uv_sem_t g_began;   /* ... and posts this first */
static int g_held;         /* the first turn began */
static size_t g_sizes[16]; /* each work item's count, in order */
static size_t g_n_batches;
static int g_order[ITEMS]; /* ids, in the order published */
static size_t g_n_items, g_n_told;
static int g_add_when_told; /* id that, when told, adds the last item */

static void publish(struct cairn_finisher_link **items, size_t n)
{
    size_t i;

    if (!g_held) {
        g_held = 1;
        uv_sem_post(&g_began);
        uv_sem_wait(&g_hold);
    }
    for (i = 0; i < n; i++)
        g_order[g_n_items + i] = ((struct item *)items[i])->id;
    if (g_n_batches < 16)
        g_sizes[g_n_batches] = n;
    g_n_batches++;
    g_n_items += n;
}

static void published(struct cairn_finisher_link *link)
{
    struct item *it = (struct item *)link;

    it->published++;
    g_n_told++;
    /* Told on the loop: a job that ends may start another that ends at
     * once; it waits for the next work item. */
    if (it->id == g_add_when_told)
        cairn_finisher_add(&g_f, &g_items[ITEMS - 1].link);
}

static void setup_items(uv_loop_t *loop)
{
    int i;

    for (i = 0; i < ITEMS; i++)
        g_items[i] = (struct item){ .id = i };
    for (i = 0; i < 16; i++)
        g_sizes[i] = 0;
    g_held = 0;
    g_n_items = g_n_told = g_n_batches = 0;
    g_add_when_told = -1;
    ck_assert_int_eq(uv_sem_init(&g_hold, 0), 0);
    ck_assert_int_eq(uv_sem_init(&g_began, 0), 0);
    ck_assert_int_eq(cairn_finisher_init(&g_f, loop, NULL, publish, published), 0);
}

START_TEST(alone_goes_at_once_and_the_waiting_go_together)
{
    uv_loop_t loop;
    int i;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    setup_items(&loop);
    /* The first goes at once, and is held; the next ITEMS - 2 wait. */
    cairn_finisher_add(&g_f, &g_items[0].link);
    uv_sem_wait(&g_began);
    for (i = 1; i < ITEMS - 1; i++)
        cairn_finisher_add(&g_f, &g_items[i].link);
    g_add_when_told = ITEMS - 2;
    uv_sem_post(&g_hold);
    uv_run(&loop, UV_RUN_DEFAULT);
    ck_assert_uint_eq(g_n_told, ITEMS);
    ck_assert_uint_eq(g_n_items, ITEMS);
    /* 1 alone, then the 138 waiting in turns of 64, 64 and 10, then the
     * one added while the last were told (in a work item of its own: the
     * last was told once the item ended, and nobody waited then). */
    ck_assert_uint_eq(g_sizes[0], 1);
    ck_assert_uint_eq(g_sizes[1], CAIRN_FINISH_BATCH);
    ck_assert_uint_eq(g_sizes[2], CAIRN_FINISH_BATCH);
    ck_assert_uint_eq(g_sizes[3], ITEMS - 2 - 2 * CAIRN_FINISH_BATCH);
    ck_assert_uint_eq(g_sizes[4], 1);
    ck_assert_uint_eq(g_n_batches, 5);
    for (i = 0; i < ITEMS; i++) {
        ck_assert_int_eq(g_order[i], i);
        ck_assert_int_eq(g_items[i].published, 1);
    }
    uv_sem_destroy(&g_hold);
    uv_sem_destroy(&g_began);
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
