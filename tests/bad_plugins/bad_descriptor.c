/*
 * bad_descriptor - broken in one way: the ABI version and size are right,
 * but solve is NULL, so the descriptor is malformed.
 */
#include <cairn/plugin.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const bd_aliases[] = {"bad-descriptor-alias", NULL};

static const struct cairn_input_decl bd_inputs[] = {
    {.name = "values",
     .kind = CAIRN_INPUT_INT_ARRAY,
     .official = {.min_len = 1, .max_len = 100, .min_value = -1000, .max_value = 1000},
     .extended = {.min_len = 1, .max_len = 1000, .min_value = -1000000, .max_value = 1000000}},
};

static size_t bd_scratch_bytes(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static size_t bd_max_moves(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static const struct cairn_plugin bd_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "bad-descriptor",
    .aliases = bd_aliases,
    .version = "0.0.1",
    .summary = "test plugin: the sum of values",
    .inputs = bd_inputs,
    .n_inputs = 1,
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = NULL,
    .scratch_bytes = bd_scratch_bytes,
    .max_moves = bd_max_moves,
    .solve = NULL,
};

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &bd_plugin;
}
