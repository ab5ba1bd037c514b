/*
 * split_keep - an ABI 1.1 test plugin for split moves (CAIRN_MOVES_SPLIT)
 * and a game where only Alice scores.
 *
 * The game ("split-keep"): Alice cuts the row into two non-empty parts; the
 * part with the larger sum is thrown away (on equal sums Alice chooses),
 * and Alice scores the sum of the part kept.  Play goes on with the kept
 * part until one stone is left.  Answer: Alice's maximum total.  Bob makes
 * no choices and scores nothing, so only "alice" is declared.
 *
 * An O(n^3) interval DP over [i, j): small inputs only, it is a fixture.
 */
#include <cairn/plugin.h>

#include <stdio.h>

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sk_aliases[] = { "cut-and-keep", NULL };

static const struct cairn_input_decl sk_inputs[] = {
    { .name = "row",
      .kind = CAIRN_INPUT_INT_ARRAY,
      .official = { .min_len = 1, .max_len = 50, .min_value = 1, .max_value = 100 },
      .extended = { .min_len = 1, .max_len = 200, .min_value = 1, .max_value = 1000000 } },
};

/* prefix[n + 1], then dp[(n + 1) * (n + 1)]: dp[i * (n + 1) + j] is Alice's
 * best from the row [i, j). */
static size_t sk_scratch_bytes(const struct cairn_problem *p)
{
    size_t n = p->inputs[0].n;
    return ((n + 1) + (n + 1) * (n + 1)) * sizeof(int64_t);
}

static size_t sk_max_moves(const struct cairn_problem *p)
{
    return p->inputs[0].n - 1;
}

/* The best of cutting [i, j) before k, and which part is kept then. */
static int64_t sk_cut(const int64_t *pre, const int64_t *dp, size_t w, size_t i, size_t k, size_t j,
                      int *keep_right)
{
    int64_t left = pre[k] - pre[i], right = pre[j] - pre[k];
    int64_t keep_l = left + dp[i * w + k], keep_r = right + dp[k * w + j];

    if (left < right || (left == right && keep_l >= keep_r)) {
        *keep_right = 0;
        return keep_l;
    }
    *keep_right = 1;
    return keep_r;
}

static int sk_solve(const struct cairn_problem *p, struct cairn_result *res, void *scratch,
                    char *msg, size_t msg_len)
{
    const int64_t *v = p->inputs[0].v;
    size_t n = p->inputs[0].n, w = n + 1, len, i, j, k;
    int64_t *pre = scratch, *dp = pre + w;
    int right = 0;

    if (p->n_inputs != 1 || n == 0) {
        snprintf(msg, msg_len, "expected one non-empty row");
        return CAIRN_E_INTERNAL;
    }
    pre[0] = 0;
    for (i = 0; i < n; i++)
        pre[i + 1] = pre[i] + v[i];
    for (i = 0; i < n; i++)
        dp[i * w + i + 1] = 0;
    for (len = 2; len <= n; len++)
        for (i = 0, j = len; j <= n; i++, j++) {
            int64_t best = 0;
            for (k = i + 1; k < j; k++) {
                int64_t c = sk_cut(pre, dp, w, i, k, j, &right);
                if (c > best)
                    best = c;
            }
            dp[i * w + j] = best;
        }
    res->answer = res->alice = dp[n];
    res->bob = 0;
    res->n_moves = 0;
    /* One optimal line: the first best cut, in input coordinates. */
    for (i = 0, j = n; p->want_moves && j - i >= 2;) {
        for (k = i + 1; k < j; k++)
            if (sk_cut(pre, dp, w, i, k, j, &right) == dp[i * w + j])
                break;
        res->moves[res->n_moves++] = CAIRN_MOVE_SPLIT(k, right);
        if (right)
            i = k;
        else
            j = k;
    }
    return CAIRN_OK;
}

static const struct cairn_plugin sk_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "split-keep",
    .aliases = sk_aliases,
    .version = "1.1.0",
    .summary = "test plugin (ABI 1.1): cut the row, keep the smaller part, score it",
    .inputs = sk_inputs,
    .n_inputs = 1,
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_SPLIT,
    .check = NULL,
    .scratch_bytes = sk_scratch_bytes,
    .max_moves = sk_max_moves,
    .solve = sk_solve,
    .equal_length = 0,
    .totals = CAIRN_TOTAL_ALICE,
};

const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sk_plugin;
}
