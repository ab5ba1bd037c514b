/*
 * good_extra - a valid tiny plugin ("good-extra", alias "9999") that sums
 * one integer array.  The loader tests use it to show that good plugins are
 * still loaded when a bad one beside them is refused.
 */
#include <cairn/plugin.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const ge_aliases[] = {"9999", NULL};

static const struct cairn_input_decl ge_inputs[] = {
    {.name = "values",
     .kind = CAIRN_INPUT_INT_ARRAY,
     .official = {.min_len = 1, .max_len = 100, .min_value = -1000, .max_value = 1000},
     .extended = {.min_len = 1, .max_len = 1000, .min_value = -1000000, .max_value = 1000000}},
};

static size_t ge_scratch_bytes(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static size_t ge_max_moves(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static int ge_solve(const struct cairn_problem *problem, struct cairn_result *result,
                    void *scratch, char *msg, size_t msg_len)
{
    int64_t sum = 0;
    size_t i;

    (void)scratch;
    (void)msg;
    (void)msg_len;
    if (problem->n_inputs != 1)
        return CAIRN_E_INTERNAL;
    for (i = 0; i < problem->inputs[0].n; i++)
        sum += problem->inputs[0].v[i];
    result->answer = sum;
    result->n_moves = 0;
    return CAIRN_OK;
}

static const struct cairn_plugin ge_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "good-extra",
    .aliases = ge_aliases,
    .version = "0.0.1",
    .summary = "test plugin: the sum of values",
    .inputs = ge_inputs,
    .n_inputs = 1,
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = NULL,
    .scratch_bytes = ge_scratch_bytes,
    .max_moves = ge_max_moves,
    .solve = ge_solve,
};

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &ge_plugin;
}
