/*
 * no_entry - broken in one way: a well-formed descriptor, but the exported
 * function is named cairn_plugin_entry_v2, not cairn_plugin_entry, so the
 * loader finds no entry symbol.
 */
#include <cairn/plugin.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry_v2(void);

static const char *const ne_aliases[] = {"no-entry-alias", NULL};

static const struct cairn_input_decl ne_inputs[] = {
    {.name = "values",
     .kind = CAIRN_INPUT_INT_ARRAY,
     .official = {.min_len = 1, .max_len = 100, .min_value = -1000, .max_value = 1000},
     .extended = {.min_len = 1, .max_len = 1000, .min_value = -1000000, .max_value = 1000000}},
};

static size_t ne_zero(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static int ne_solve(const struct cairn_problem *problem, struct cairn_result *result,
                    void *scratch, char *msg, size_t msg_len)
{
    (void)problem;
    (void)scratch;
    (void)msg;
    (void)msg_len;
    result->answer = 0;
    return CAIRN_OK;
}

static const struct cairn_plugin ne_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "no-entry",
    .aliases = ne_aliases,
    .version = "0.0.1",
    .summary = "test plugin: exports the wrong symbol",
    .inputs = ne_inputs,
    .n_inputs = 1,
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_COUNT,
    .scratch_bytes = ne_zero,
    .max_moves = ne_zero,
    .solve = ne_solve,
};

const struct cairn_plugin *cairn_plugin_entry_v2(void)
{
    return &ne_plugin;
}
