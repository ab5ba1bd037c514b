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
    /* The item added while the last were told goes in a turn of its own.
     * Found by its item, not by its place in the record: two work items
     * reach the record's lock in whichever order their threads run, so a
     * turn that took its items earlier may be recorded after it. */
    for (i = 2; i < (int)g_n_turns && g_turn_first[i] != ITEMS - 1; i++)
        ;
    ck_assert_msg(i < (int)g_n_turns, "no turn took item %d", ITEMS - 1);
    ck_assert_int_eq(g_turn_n[i], 1);
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

/* ---- added from a pool thread ---------------------------------------- */

static uv_thread_t g_turn_thread[TURNS];
static int g_hold_first; /* the first turn waits for g_hold */

static void publish_here(struct cairn_finisher_link **items, size_t n)
{
    int hold;

    uv_mutex_lock(&g_lock);
    if (g_n_turns < TURNS) {
        g_turn_first[g_n_turns] = ((struct item *)items[0])->id;
        g_turn_n[g_n_turns] = (int)n;
        g_turn_thread[g_n_turns] = uv_thread_self();
    }
    hold = g_n_turns == 0 && g_hold_first;
    g_n_turns++;
    g_n_items += n;
    uv_mutex_unlock(&g_lock);
    if (hold) {
        uv_sem_post(&g_began);
        uv_sem_wait(&g_hold);
    }
}

struct adder {
    int id;
    uv_thread_t self;
};

static void add_here_thread(void *arg)
{
    struct adder *a = arg;

    a->self = uv_thread_self();
    cairn_finisher_add_here(&g_f, &g_items[a->id].link);
}

static void nothing(uv_async_t *h)
{
    (void)h;
}

/* A pool thread that adds an item publishes it there and then, unless a
 * turn under way will take it: the first adder turns on its own thread
 * (held there by the test); the second finds that turn under way and
 * returns at once, its item waiting; the third finds two waiting and the
 * second slot free, and turns both on its thread.  Each is told on the
 * loop once, and nothing is left running. */
START_TEST(added_on_a_pool_thread_turns_there_unless_a_turn_will_take_it)
{
    struct adder a[3] = { { .id = 0 }, { .id = 1 }, { .id = 2 } };
    uv_thread_t t[3];
    uv_async_t keep; /* keeps the loop polling for the finisher's wake-up */
    uv_loop_t loop;
    int i;

    ck_assert_int_eq(uv_loop_init(&loop), 0);
    ck_assert_int_eq(uv_async_init(&loop, &keep, nothing), 0);
    for (i = 0; i < 3; i++)
        g_items[i] = (struct item){ .id = i };
    g_n_turns = g_n_items = g_n_told = 0;
    g_add_when_told = -1;
    g_hold_first = 1;
    ck_assert_int_eq(uv_mutex_init(&g_lock), 0);
    ck_assert_int_eq(uv_sem_init(&g_hold, 0), 0);
    ck_assert_int_eq(uv_sem_init(&g_began, 0), 0);
    ck_assert_int_eq(cairn_finisher_init(&g_f, &loop, NULL, publish_here, published), 0);

    ck_assert_int_eq(uv_thread_create(&t[0], add_here_thread, &a[0]), 0);
    uv_sem_wait(&g_began);
    ck_assert_int_eq(uv_thread_create(&t[1], add_here_thread, &a[1]), 0);
    ck_assert_int_eq(uv_thread_join(&t[1]), 0);
    uv_mutex_lock(&g_lock);
    ck_assert_uint_eq(g_n_turns, 1); /* item 1 waits */
    uv_mutex_unlock(&g_lock);
    ck_assert_int_eq(uv_thread_create(&t[2], add_here_thread, &a[2]), 0);
    ck_assert_int_eq(uv_thread_join(&t[2]), 0);
    uv_sem_post(&g_hold);
    ck_assert_int_eq(uv_thread_join(&t[0]), 0);

    ck_assert_uint_eq(g_n_turns, 2);
    ck_assert_int_eq(g_turn_first[0], 0);
    ck_assert_int_eq(g_turn_n[0], 1);
    ck_assert(uv_thread_equal(&g_turn_thread[0], &a[0].self));
    ck_assert_int_eq(g_turn_first[1], 1);
    ck_assert_int_eq(g_turn_n[1], 2);
    ck_assert(uv_thread_equal(&g_turn_thread[1], &a[2].self));
    ck_assert_uint_eq(g_f.running, 0);
    /* Every adder has returned, so every wake-up was sent: one pass of the
     * loop tells them all. */
    ck_assert_int_eq(uv_run(&loop, UV_RUN_NOWAIT), 1);
    ck_assert_uint_eq(g_n_told, 3);
    for (i = 0; i < 3; i++)
        ck_assert_int_eq(g_items[i].published, 1);

    uv_sem_destroy(&g_hold);
    uv_sem_destroy(&g_began);
    uv_mutex_destroy(&g_lock);
    cairn_finisher_close(&g_f);
    uv_close((uv_handle_t *)&keep, NULL);
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
    tcase_add_test(tc, added_on_a_pool_thread_turns_there_unless_a_turn_will_take_it);
    suite_add_tcase(s, tc);
    failed = th_run_suite(s, CK_NORMAL, 1);
    return failed == 0 ? EXIT_SUCCESS : EXIT_FAILURE;
}
