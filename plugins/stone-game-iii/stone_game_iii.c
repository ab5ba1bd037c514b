/*
 * stone-game-iii - LeetCode 1406.
 *
 * A row of stones with integer values (possibly negative).  On each turn the
 * player to move takes 1, 2 or 3 stones from the front.  Alice moves first;
 * both maximise their own total (minimax on the difference).  The answer is
 * who ends ahead: Alice, Bob, or a tie.
 *
 * Kernel: right to left,
 *
 *     dp[i] = max_{k = 1..3, k <= n-i} (v[i] + ... + v[i+k-1]) - dp[i+k],
 *     dp[n] = 0,
 *
 * keeping dp[i+1..i+3] in locals: O(n) time, O(1) memory.  With moves, the
 * chosen k is kept per position (one byte each) and read back from 0.
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#define SG3_OFFICIAL_MAX_LEN   50000
#define SG3_OFFICIAL_MAX_VALUE 1000
/* n * |v| <= 1e18 < 2^63; with moves, n bytes of scratch (10 MB). */
#define SG3_EXTENDED_MAX_LEN   10000000
#define SG3_EXTENDED_MAX_VALUE INT64_C(100000000000) /* 1e11 */

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg3_aliases[] = { "1406", NULL };

static const struct cairn_input_decl sg3_inputs[] = {
    {
        .name = "stoneValue",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = 1,
                      .max_len = SG3_OFFICIAL_MAX_LEN,
                      .min_value = -SG3_OFFICIAL_MAX_VALUE,
                      .max_value = SG3_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = SG3_EXTENDED_MAX_LEN,
                      .min_value = -SG3_EXTENDED_MAX_VALUE,
                      .max_value = SG3_EXTENDED_MAX_VALUE },
    },
};

static void sg3_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int sg3_get(const struct cairn_problem *pb, const int64_t **v, size_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *v = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || !*v)
        return CAIRN_E_INTERNAL;
    if (*n > SG3_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static size_t sg3_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *v;
    size_t n;
    if (sg3_get(pb, &v, &n) != CAIRN_OK)
        return 0;                  /* solve() refuses the problem before touching scratch */
    return pb->want_moves ? n : 0; /* one byte per position, n <= 1e7 */
}

static size_t sg3_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return 0;
    return pb->inputs[0].n;
}

/*
 * The DP; choice (n bytes) receives the chosen k per position when not NULL.
 * Ties take the smallest k.  Returns dp[0].
 */
/* Without moves: with S[j] = v[j] + ... + v[n-1] and g[j] = S[j] + dp[j],
 *     dp[i] = max_k (S[i] - S[i+k] - dp[i+k]) = S[i] - min_k g[i+k]
 *     g[i]  = 2 S[i] - min(g[i+1], g[i+2], g[i+3])
 * min(g[i+2], g[i+3]) is ready a step early, so the loop-carried chain is
 * one compare-and-select and one subtraction.  g past the end is +inf
 * (fewer than three stones left); |g| <= 4e18 with the extended bounds. */
static int64_t sg3_margin(const int64_t *v, size_t n, int64_t *sum)
{
    /* g1 = g[i+1], g2 = g[i+2], m23 = min(g[i+2], g[i+3]) */
    int64_t s = 0, g1 = 0, g2 = INT64_MAX, m23 = INT64_MAX;
    size_t i = n;

    while (i > 0) {
        int64_t m, next_m23;
        i--;
        s += v[i];
        m = g1 < m23 ? g1 : m23;      /* on the loop-carried chain */
        next_m23 = g1 < g2 ? g1 : g2; /* off it: next step's min(g[i+2], g[i+3]) */
        g2 = g1;
        g1 = 2 * s - m;
        m23 = next_m23;
    }
    *sum = s; /* S[0]: the total comes for free */
    return g1 - s;
}

/* With moves: the plain rolling form, which names the move it takes. */
static int64_t sg3_kernel(const int64_t *v, size_t n, uint8_t *choice)
{
    int64_t d1 = 0, d2 = 0, d3 = 0; /* dp[i+1], dp[i+2], dp[i+3] */
    size_t i = n;
    /* The last two positions, where fewer than three stones remain. */
    if (i > 0) {
        i--; /* r = 1 */
        d1 = v[i];
        choice[i] = 1;
    }
    if (i > 0) {
        i--; /* r = 2 */
        int64_t a = v[i] - d1;
        int64_t b = v[i] + v[i + 1];
        int k = b > a ? 2 : 1;
        d2 = d1;
        d1 = b > a ? b : a;
        choice[i] = (uint8_t)k;
    }
    /* Three stones or more, branch-free (random signs make the comparisons
     * unpredictable). */
    while (i > 0) {
        i--;
        int64_t s1 = v[i];
        int64_t s2 = s1 + v[i + 1];
        int64_t s3 = s2 + v[i + 2];
        int64_t c1 = s1 - d1, c2 = s2 - d2, c3 = s3 - d3;
        int take2 = c2 > c1;
        int64_t best = take2 ? c2 : c1;
        int take3 = c3 > best;
        best = take3 ? c3 : best;
        /* take3 ? 3 : 1 + take2, as arithmetic (gcc branches on the ternary) */
        choice[i] = (uint8_t)(1 + take2 + take3 * (2 - take2));
        d3 = d2;
        d2 = d1;
        d1 = best;
    }
    return d1;
}

static int sg3_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg3_get(pb, &v, &n);
    if (rc != CAIRN_OK) {
        sg3_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.stoneValue: too long"
                                        : "input.stoneValue: bad problem");
        return rc;
    }
    if (!res) {
        sg3_msg(msg, msg_len, "stone-game-iii: no result");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!scratch || !res->moves || res->moves_cap < n)) {
        sg3_msg(msg, msg_len, "stone-game-iii: moves or scratch buffer too small");
        return CAIRN_E_INTERNAL;
    }

    int64_t sum = 0;
    int64_t diff;
    if (!pb->want_moves) {
        diff = sg3_margin(v, n, &sum);
    } else {
        uint8_t *choice = scratch;
        for (size_t i = 0; i < n; i++)
            sum += v[i];
        diff = sg3_kernel(v, n, choice);
        size_t k = 0;
        for (size_t i = 0; i < n; i += choice[i])
            res->moves[k++] = choice[i];
        res->n_moves = k;
    }

    res->answer = diff > 0 ? CAIRN_WINNER_ALICE : diff < 0 ? CAIRN_WINNER_BOB : CAIRN_WINNER_TIE;
    res->alice = (sum + diff) / 2; /* |sum|, |diff| <= 1e18: no overflow */
    res->bob = (sum - diff) / 2;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2) ------------------------------------------------- */

/*
 * A position is the index i of the first stone left; dp[i], the best
 * "mover minus other" from it, covers every position of every line, so one
 * O(n) table grades a whole line.  Values are the final margin Alice - Bob:
 * the margin taken so far plus, from the mover's side, sum - dp[i + k].
 */
static size_t sg3_max_legal_moves(const struct cairn_problem *pb)
{
    (void)pb;
    return 3;
}

static size_t sg3_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    const int64_t *v;
    size_t n;
    (void)n_line;
    if (sg3_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* analyze() refuses the problem before touching scratch */
    return (n + 1) * sizeof(int64_t);
}

/* The mover's score of taking k (1..3) stones at i: their sum - dp[i + k]. */
static int64_t sg3_take(const int64_t *v, const int64_t *dp, size_t i, size_t k)
{
    int64_t s = 0;
    for (size_t j = 0; j < k; j++)
        s += v[i + j];
    return s - dp[i + k];
}

/* The best k at i (the smallest on a tie, as moves[] does) and its score. */
static size_t sg3_best(const int64_t *v, size_t n, const int64_t *dp, size_t i, int64_t *score)
{
    size_t best = 1;
    *score = sg3_take(v, dp, i, 1);
    for (size_t k = 2; k <= 3 && i + k <= n; k++) {
        int64_t x = sg3_take(v, dp, i, k);
        if (x > *score) {
            *score = x;
            best = k;
        }
    }
    return best;
}

static int sg3_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg3_get(pb, &v, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < 3)) {
        sg3_msg(msg, msg_len,
                rc == CAIRN_E_TOO_LARGE ? "input.stoneValue: too long"
                                        : "stone-game-iii: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    int64_t *dp = scratch;
    dp[n] = 0;
    for (size_t i = n; i-- > 0;) {
        int64_t best;
        sg3_best(v, n, dp, i, &best);
        dp[i] = best;
    }

    size_t i = 0, found = 0;
    int64_t acc = 0;
    for (size_t t = 0; t < a->n_line; t++) {
        int32_t k = a->line[t];
        int64_t s = t % 2 == 0 ? 1 : -1;
        if (i == n || k < 1 || k > 3 || (size_t)k > n - i) {
            a->bad = t;
            if (i == n)
                snprintf(msg, msg_len, "the game is over: all %zu stones are taken", n);
            else
                snprintf(msg, msg_len, "a move takes 1, 2 or 3 stones, at most the %zu left",
                         n - i);
            return CAIRN_E_ILLEGAL;
        }
        int64_t score = sg3_take(v, dp, i, (size_t)k), best_score;
        size_t best = sg3_best(v, n, dp, i, &best_score);
        if (!found && score < best_score) {
            found = 1;
            a->ply = t;
            a->mover = (int32_t)(t % 2);
            a->best = (int32_t)best;
            a->best_value = acc + s * best_score;
            a->value = acc + s * score;
        }
        acc += s * (score + dp[i + (size_t)k]); /* the stones' sum */
        i += (size_t)k;
    }
    int64_t s = a->n_line % 2 == 0 ? 1 : -1;
    if (!found) {
        a->ply = a->n_line;
        a->mover = (int32_t)(a->n_line % 2);
        a->best_value = acc + s * dp[i];
    }
    if (a->moves)
        for (size_t k = 1; k <= 3 && i + k <= n; k++)
            a->moves[a->n_moves++] =
                (struct cairn_move_value){ .move = (int32_t)k,
                                           .value = acc + s * sg3_take(v, dp, i, k) };
    return CAIRN_OK;
}

static const struct cairn_plugin sg3_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game-iii",
    .aliases = sg3_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 1406: take 1, 2 or 3 stones from the front; Alice, Bob or Tie",
    .inputs = sg3_inputs,
    .n_inputs = sizeof sg3_inputs / sizeof sg3_inputs[0],
    .answer_kind = CAIRN_ANSWER_WINNER,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = NULL,
    .scratch_bytes = sg3_scratch_bytes,
    .max_moves = sg3_max_moves,
    .solve = sg3_solve,
    .totals = CAIRN_TOTALS_ALL, /* alice, bob and margin, as in ABI 1.0 */
    .value_kind = CAIRN_VALUE_MARGIN,
    .max_legal_moves = sg3_max_legal_moves,
    .analysis_scratch_bytes = sg3_analysis_bytes,
    .analyze = sg3_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg3_plugin;
}
