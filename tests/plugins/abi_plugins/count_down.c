/*
 * count_down - an ABI 1.1 test plugin for scalar inputs and a game without
 * totals.  The game ("count-down", Bachet's game): a pile of n stones;
 * Alice and Bob alternately take 1 to k stones, Alice first; whoever takes
 * the last stone wins.  Answer: true iff Alice wins, which is iff n is not
 * a multiple of k + 1.  Both inputs are JSON integers ({"n":17,"k":3}),
 * and no totals are declared: there are no scores to report.
 */
#include <cairn/plugin.h>

/* Built against tests/plugins/abi-1.1: a real 1.1 binary (see meson.build). */
_Static_assert(CAIRN_PLUGIN_ABI_MAJOR == 1 && CAIRN_PLUGIN_ABI_MINOR == 1,
               "count_down must be built against the frozen 1.1 header");

#include <stdio.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const cd_aliases[] = { "bachet", NULL };

static const struct cairn_input_decl cd_inputs[] = {
    { .name = "n",
      .kind = CAIRN_INPUT_INT,
      .official = { .min_value = 1, .max_value = 1000 },
      .extended = { .min_value = 1, .max_value = 1000000 } },
    { .name = "k",
      .kind = CAIRN_INPUT_INT,
      .official = { .min_value = 1, .max_value = 100 },
      .extended = { .min_value = 1, .max_value = 1000000 } },
};

static size_t cd_scratch_bytes(const struct cairn_problem *p)
{
    (void)p;
    return 0;
}

static size_t cd_max_moves(const struct cairn_problem *p)
{
    return (size_t)p->inputs[0].v[0];
}

static int cd_check(const struct cairn_problem *p, char *msg, size_t msg_len)
{
    if (p->inputs[1].v[0] > p->inputs[0].v[0]) {
        snprintf(msg, msg_len, "input.k: %lld is more than input.n (%lld)",
                 (long long)p->inputs[1].v[0], (long long)p->inputs[0].v[0]);
        return CAIRN_E_CONSTRAINT;
    }
    return CAIRN_OK;
}

static int cd_solve(const struct cairn_problem *p, struct cairn_result *res, void *scratch,
                    char *msg, size_t msg_len)
{
    int64_t n, k;

    (void)scratch;
    if (p->n_inputs != 2 || p->inputs[0].n != 1 || p->inputs[1].n != 1) {
        snprintf(msg, msg_len, "expected two scalars");
        return CAIRN_E_INTERNAL;
    }
    n = p->inputs[0].v[0];
    k = p->inputs[1].v[0];
    res->answer = n % (k + 1) != 0;
    res->n_moves = 0;
    /* One optimal line: the player who can leaves a multiple of k + 1;
     * the other has no winning move, and takes one stone. */
    while (p->want_moves && n > 0) {
        int64_t take = n % (k + 1) != 0 ? n % (k + 1) : 1;
        res->moves[res->n_moves++] = (int32_t)take;
        n -= take;
    }
    return CAIRN_OK;
}

static const struct cairn_plugin cd_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "count-down",
    .aliases = cd_aliases,
    .version = "1.1.0",
    .summary = "test plugin (ABI 1.1): take 1..k from a pile of n; who takes the last wins",
    .inputs = cd_inputs,
    .n_inputs = 2,
    .answer_kind = CAIRN_ANSWER_BOOL,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = cd_check,
    .scratch_bytes = cd_scratch_bytes,
    .max_moves = cd_max_moves,
    .solve = cd_solve,
    .equal_length = 0,
    .totals = 0, /* a win/lose game: no scores */
};

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &cd_plugin;
}
