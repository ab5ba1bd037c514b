/*
 * undefined_symbol - broken in one way: solve() calls
 * cairn_test_symbol_that_exists_nowhere(), defined in no library, so
 * dlopen(RTLD_NOW) fails before the entry function can be looked up.  It is
 * linked with undefined symbols allowed (see meson.build).
 */
#include <cairn/plugin.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

extern int64_t cairn_test_symbol_that_exists_nowhere(int64_t x);

static const char *const us_aliases[] = {"undefined-symbol-alias", NULL};

static const struct cairn_input_decl us_inputs[] = {
    {.name = "values",
     .kind = CAIRN_INPUT_INT_ARRAY,
     .official = {.min_len = 1, .max_len = 100, .min_value = -1000, .max_value = 1000},
     .extended = {.min_len = 1, .max_len = 1000, .min_value = -1000000, .max_value = 1000000}},
};

static size_t us_zero(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static int us_solve(const struct cairn_problem *problem, struct cairn_result *result,
                    void *scratch, char *msg, size_t msg_len)
{
    (void)scratch;
    (void)msg;
    (void)msg_len;
    result->answer = cairn_test_symbol_that_exists_nowhere((int64_t)problem->n_inputs);
    return CAIRN_OK;
}

static const struct cairn_plugin us_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "undefined-symbol",
    .aliases = us_aliases,
    .version = "0.0.1",
    .summary = "test plugin: needs a symbol nobody defines",
    .inputs = us_inputs,
    .n_inputs = 1,
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_COUNT,
    .scratch_bytes = us_zero,
    .max_moves = us_zero,
    .solve = us_solve,
};

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &us_plugin;
}
