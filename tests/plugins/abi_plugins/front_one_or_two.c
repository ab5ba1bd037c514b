/*
 * front_one_or_two - a plugin built against the FROZEN 1.0 header
 * (tests/plugins/abi-1.0/cairn/plugin.h, first in its include path), so the tests
 * hold a real 1.0 binary: its descriptor is the 1.0 size and has no 1.1
 * fields.  A 1.1 host must load it and answer exactly as a 1.0 host did.
 *
 * The game ("front-one-or-two"): a row of stones with integer values;
 * Alice and Bob alternately take the first one or the first two stones of
 * the row, Alice first, and add their values to their own total.  Both
 * play optimally (each maximises their own total; the totals add up to the
 * row's sum, so that is minimax on the difference).  Answer: "Alice",
 * "Bob" or "Tie"; moves: how many stones each turn takes.
 *
 *   g(i) = max over k in {1, 2}, i + k <= n, of sum(v[i..i+k)) - g(i+k),
 *   g(n) = 0: the mover's lead over the rest of the game from stone i.
 */
#include <cairn/plugin.h>

#include <stdio.h>

_Static_assert(
    CAIRN_PLUGIN_ABI_MAJOR == 1 && CAIRN_PLUGIN_ABI_MINOR == 0,
    "front_one_or_two must be built against tests/plugins/abi-1.0, the frozen 1.0 header");

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const fot_aliases[] = { "take12", NULL };

static const struct cairn_input_decl fot_inputs[] = {
    { .name = "stones",
      .kind = CAIRN_INPUT_INT_ARRAY,
      .official = { .min_len = 1, .max_len = 1000, .min_value = -1000, .max_value = 1000 },
      /* |sum| <= 10^6 * 10^9: far inside int64. */
      .extended = { .min_len = 1,
                    .max_len = 1000000,
                    .min_value = -1000000000,
                    .max_value = 1000000000 } },
};

static size_t fot_scratch_bytes(const struct cairn_problem *p)
{
    return (p->inputs[0].n + 1) * sizeof(int64_t);
}

static size_t fot_max_moves(const struct cairn_problem *p)
{
    return p->inputs[0].n;
}

static int fot_solve(const struct cairn_problem *p, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *v = p->inputs[0].v;
    size_t n = p->inputs[0].n, i;
    int64_t *g = scratch, total = 0;

    if (p->n_inputs != 1 || n == 0) {
        snprintf(msg, msg_len, "expected one non-empty row");
        return CAIRN_E_INTERNAL;
    }
    g[n] = 0;
    for (i = n; i-- > 0;) {
        int64_t one = v[i] - g[i + 1];
        g[i] = one;
        if (i + 2 <= n && v[i] + v[i + 1] - g[i + 2] > one)
            g[i] = v[i] + v[i + 1] - g[i + 2];
        total += v[i];
    }
    res->alice = (total + g[0]) / 2;
    res->bob = (total - g[0]) / 2;
    res->answer = g[0] > 0 ? CAIRN_WINNER_ALICE : g[0] < 0 ? CAIRN_WINNER_BOB : CAIRN_WINNER_TIE;
    res->n_moves = 0;
    if (p->want_moves) {
        /* One optimal line: one stone unless two are strictly better. */
        for (i = 0; i < n;) {
            size_t k = i + 2 <= n && v[i] + v[i + 1] - g[i + 2] > v[i] - g[i + 1] ? 2 : 1;
            res->moves[res->n_moves++] = (int32_t)k;
            i += k;
        }
    }
    return CAIRN_OK;
}

static const struct cairn_plugin fot_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "front-one-or-two",
    .aliases = fot_aliases,
    .version = "1.0.0",
    .summary = "test plugin (ABI 1.0): take the first one or two stones; who ends ahead",
    .inputs = fot_inputs,
    .n_inputs = 1,
    .answer_kind = CAIRN_ANSWER_WINNER,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = NULL,
    .scratch_bytes = fot_scratch_bytes,
    .max_moves = fot_max_moves,
    .solve = fot_solve,
};

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &fot_plugin;
}
