/*
 * bad_abi - broken in one way: abi_major is CAIRN_PLUGIN_ABI_MAJOR + 1.
 * Everything else is a valid plugin ("bad-abi"), so the loader must refuse
 * it on the version check alone, naming the file and "ABI version".
 */
#include <cairn/plugin.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const ba_aliases[] = {"bad-abi-alias", NULL};

static const struct cairn_input_decl ba_inputs[] = {
    {.name = "values",
     .kind = CAIRN_INPUT_INT_ARRAY,
     .official = {.min_len = 1, .max_len = 100, .min_value = -1000, .max_value = 1000},
     .extended = {.min_len = 1, .max_len = 1000, .min_value = -1000000, .max_value = 1000000}},
};

static size_t ba_scratch_bytes(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static size_t ba_max_moves(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static int ba_solve(const struct cairn_problem *problem, struct cairn_result *result,
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

static const struct cairn_plugin ba_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR + 1,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "bad-abi",
    .aliases = ba_aliases,
    .version = "0.0.1",
    .summary = "test plugin: the sum of values",
    .inputs = ba_inputs,
    .n_inputs = 1,
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = NULL,
    .scratch_bytes = ba_scratch_bytes,
    .max_moves = ba_max_moves,
    .solve = ba_solve,
};

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &ba_plugin;
}
