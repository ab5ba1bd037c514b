/*
 * fixture.h - a small valid plugin ("the sum of values"), for the loader's
 * broken plugins: each .c file sets the few macros below for the one thing
 * it breaks, then includes this.  Every plugin stays its own .so.
 *
 *   FIXTURE_NAME       plugin name (required)
 *   FIXTURE_ALIASES    alias list, NULL-terminated (required)
 *   FIXTURE_ABI_MAJOR  [CAIRN_PLUGIN_ABI_MAJOR]
 *   FIXTURE_ABI_MINOR  [CAIRN_PLUGIN_ABI_MINOR]
 *   FIXTURE_TOTALS     [CAIRN_TOTALS_ALL]
 *   FIXTURE_SOLVE      the solve function [fixture_sum]
 *   FIXTURE_CHECK      the check function [NULL]
 *   FIXTURE_ENTRY      the exported function's name [cairn_plugin_entry]
 *   FIXTURE_VERSION    the version string ["0.0.1"]
 */
#include <cairn/plugin.h>

#ifndef FIXTURE_ABI_MAJOR
#define FIXTURE_ABI_MAJOR CAIRN_PLUGIN_ABI_MAJOR
#endif
#ifndef FIXTURE_ABI_MINOR
#define FIXTURE_ABI_MINOR CAIRN_PLUGIN_ABI_MINOR
#endif
#ifndef FIXTURE_TOTALS
#define FIXTURE_TOTALS CAIRN_TOTALS_ALL
#endif
#ifndef FIXTURE_SOLVE
#define FIXTURE_SOLVE fixture_sum
#endif
#ifndef FIXTURE_ENTRY
#define FIXTURE_ENTRY cairn_plugin_entry
#endif
#ifndef FIXTURE_CHECK
#define FIXTURE_CHECK NULL
#endif
#ifndef FIXTURE_VERSION
#define FIXTURE_VERSION "0.0.1"
#endif

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *FIXTURE_ENTRY(void);

static const char *const fixture_aliases[] = { FIXTURE_ALIASES };

static const struct cairn_input_decl fixture_inputs[] = {
    { .name = "values",
      .kind = CAIRN_INPUT_INT_ARRAY,
      .official = { .min_len = 1, .max_len = 100, .min_value = -1000, .max_value = 1000 },
      .extended = { .min_len = 1, .max_len = 1000, .min_value = -1000000, .max_value = 1000000 } },
};

static size_t fixture_zero(const struct cairn_problem *problem)
{
    (void)problem;
    return 0;
}

static __attribute__((unused)) int fixture_sum(const struct cairn_problem *problem,
                                               struct cairn_result *result, void *scratch,
                                               char *msg, size_t msg_len)
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

static const struct cairn_plugin fixture_plugin = {
    .abi_major = FIXTURE_ABI_MAJOR,
    .abi_minor = FIXTURE_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = FIXTURE_NAME,
    .aliases = fixture_aliases,
    .version = FIXTURE_VERSION,
    .summary = "test plugin: the sum of values",
    .inputs = fixture_inputs,
    .n_inputs = 1,
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = FIXTURE_CHECK,
    .scratch_bytes = fixture_zero,
    .max_moves = fixture_zero,
    .solve = FIXTURE_SOLVE,
    .totals = FIXTURE_TOTALS,
};

const struct cairn_plugin *FIXTURE_ENTRY(void)
{
    return &fixture_plugin;
}
