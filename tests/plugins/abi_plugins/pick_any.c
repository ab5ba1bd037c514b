/*
 * pick_any - an ABI 1.1 test plugin for arrays of equal length, moves that
 * name a stone (CAIRN_MOVES_INDEX) and a game with only a margin.
 *
 * The game ("pick-any"): stone i is worth aliceValues[i] to Alice and
 * bobValues[i] to Bob.  They alternately take any remaining stone, Alice
 * first; each plays to maximise (own total - other's total).  Answer: that
 * margin for Alice.  Alice - Bob = sum over Alice's stones of (a + b) -
 * sum of all b, so both always take a stone with the largest a + b.  Stones
 * of equal a + b are interchangeable for the margin but not for each
 * player's total, so only the margin is declared: the totals depend on
 * which of several optimal lines is followed.
 */
#include <cairn/plugin.h>

/* Built against tests/plugins/abi-1.1: a real 1.1 binary (see meson.build). */
_Static_assert(CAIRN_PLUGIN_ABI_MAJOR == 1 && CAIRN_PLUGIN_ABI_MINOR == 1,
               "pick_any must be built against the frozen 1.1 header");

#include <stdio.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

#define PA_MAX_VALUE 100 /* so a + b fits a counting sort of 2 * 100 + 1 buckets */

static const char *const pa_aliases[] = { "pick-any-stone", NULL };

static const struct cairn_input_decl pa_inputs[] = {
    { .name = "aliceValues",
      .kind = CAIRN_INPUT_INT_ARRAY,
      .official = { .min_len = 1, .max_len = 1000, .min_value = 1, .max_value = PA_MAX_VALUE },
      .extended = { .min_len = 1, .max_len = 1000000, .min_value = 1, .max_value = PA_MAX_VALUE } },
    { .name = "bobValues",
      .kind = CAIRN_INPUT_INT_ARRAY,
      .official = { .min_len = 1, .max_len = 1000, .min_value = 1, .max_value = PA_MAX_VALUE },
      .extended = { .min_len = 1, .max_len = 1000000, .min_value = 1, .max_value = PA_MAX_VALUE } },
};

/* order[n] (uint32) then the 2 * PA_MAX_VALUE + 2 bucket starts (size_t). */
static size_t pa_scratch_bytes(const struct cairn_problem *p)
{
    size_t order = (p->inputs[0].n * sizeof(uint32_t) + 7) / 8 * 8;
    return order + (2 * PA_MAX_VALUE + 2) * sizeof(size_t);
}

static size_t pa_max_moves(const struct cairn_problem *p)
{
    return p->inputs[0].n;
}

static int pa_solve(const struct cairn_problem *p, struct cairn_result *res, void *scratch,
                    char *msg, size_t msg_len)
{
    const int64_t *a = p->inputs[0].v, *b = p->inputs[1].v;
    size_t n = p->inputs[0].n, i, s;
    uint32_t *order = scratch;
    size_t *start = (size_t *)((char *)scratch + (n * sizeof(uint32_t) + 7) / 8 * 8);

    /* The host has checked the lengths (equal_length) and the bounds. */
    if (p->n_inputs != 2 || p->inputs[1].n != n) {
        snprintf(msg, msg_len, "expected two arrays of one length");
        return CAIRN_E_INTERNAL;
    }
    /* A stable counting sort by a + b, largest first: ties by index. */
    for (s = 0; s < 2 * PA_MAX_VALUE + 2; s++)
        start[s] = 0;
    for (i = 0; i < n; i++)
        start[2 * PA_MAX_VALUE - (size_t)(a[i] + b[i]) + 1]++;
    for (s = 1; s < 2 * PA_MAX_VALUE + 2; s++)
        start[s] += start[s - 1];
    for (i = 0; i < n; i++)
        order[start[2 * PA_MAX_VALUE - (size_t)(a[i] + b[i])]++] = (uint32_t)i;

    res->alice = res->bob = 0;
    res->n_moves = 0;
    for (i = 0; i < n; i++) {
        if (i % 2 == 0)
            res->alice += a[order[i]];
        else
            res->bob += b[order[i]];
        if (p->want_moves)
            res->moves[res->n_moves++] = (int32_t)order[i];
    }
    res->answer = res->alice - res->bob;
    return CAIRN_OK;
}

static const struct cairn_plugin pa_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "pick-any",
    .aliases = pa_aliases,
    .version = "1.1.0",
    .summary = "test plugin (ABI 1.1): take any stone, valued per player; Alice's margin",
    .inputs = pa_inputs,
    .n_inputs = 2,
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_INDEX,
    .check = NULL,
    .scratch_bytes = pa_scratch_bytes,
    .max_moves = pa_max_moves,
    .solve = pa_solve,
    .equal_length = 1u << 0 | 1u << 1, /* aliceValues, bobValues */
    .totals = CAIRN_TOTAL_MARGIN,
};

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &pa_plugin;
}
