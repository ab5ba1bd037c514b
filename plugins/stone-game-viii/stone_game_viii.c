/*
 * stone-game-viii - LeetCode 1872.
 *
 * A row of stones with integer values (possibly negative).  While more than
 * one stone remains, the player to move (Alice first) chooses x > 1, removes
 * the x leftmost stones, scores their sum, and puts one stone with that sum
 * at the left end.  Alice maximises and Bob minimises Alice - Bob; the
 * answer is that difference.
 *
 * After any move the leftmost stone is a prefix sum P[k] = v[0] + ... + v[k]
 * and the row is P[k], v[k+1], ..., v[n-1]: call that state k (the game
 * starts in state 0 and ends in state n-1).  A move from state k to state j
 * (j > k, x = j - k + 1) scores P[j].  With f(k) the mover's best margin
 * from state k and c(j) = P[j] - f(j), f(k) = max_{j > k} c(j), so with
 * g(j) = max_{i >= j} c(i):
 *
 *     g(n-1) = P[n-1],  g(j) = max(g(j+1), P[j] - g(j+1)),  answer g(1).
 *
 * P[0] is never a candidate (x > 1).  The kernel runs right to left with
 * P[j] = P[j+1] - v[j+1], so it needs O(1) memory: the total, then one pass.
 *
 * Totals.  The margin alone does not fix the players' scores: two optimal
 * moves can give different scores with the same margin.  cairn reports the
 * scores of one line of play, the one that, among optimal moves, always
 * merges the fewest stones (smallest x, i.e. smallest j).  That j is where
 * g last rose or was equalled going left, so the line is found with the
 * same pass: on every "P[j] >= 2 g(j+1)" the candidate becomes j, and the
 * score sum sigma of the line from the new candidate is P[j] + the old
 * sigma (mover and other swap).  Since mover - other = g along the way,
 * alice = (sigma + g) / 2 and bob = (sigma - g) / 2.
 *
 * The update is rare on most rows (g only grows, so P[j] must exceed twice
 * a growing value), so the pass tests four positions per step with
 * branches that are almost never taken (see sg8_pass).
 */
#include <cairn/plugin.h>

#include <stdint.h>
#include <stdio.h>

#define SG8_OFFICIAL_MIN_LEN   2
#define SG8_OFFICIAL_MAX_LEN   100000
#define SG8_OFFICIAL_MAX_VALUE 10000
/*
 * n * |v| <= 10^18: every prefix sum fits, with room for 4 |P| (|g| <= 2
 * max|P|, and 2g is compared).  The players' totals of a line of play can
 * reach about (n + 1) * sum|v|, so check() also asks for that to stay
 * under SG8_TOTALS_LIMIT (see sg8_check).
 */
#define SG8_EXTENDED_MAX_LEN   10000000
#define SG8_EXTENDED_MAX_VALUE INT64_C(100000000000)        /* 1e11 */
#define SG8_TOTALS_LIMIT       INT64_C(9000000000000000000) /* 9e18 < 2^63 - 1 */

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void);

static const char *const sg8_aliases[] = { "1872", NULL };

static const struct cairn_input_decl sg8_inputs[] = {
    {
        .name = "stones",
        .kind = CAIRN_INPUT_INT_ARRAY,
        .official = { .min_len = SG8_OFFICIAL_MIN_LEN,
                      .max_len = SG8_OFFICIAL_MAX_LEN,
                      .min_value = -SG8_OFFICIAL_MAX_VALUE,
                      .max_value = SG8_OFFICIAL_MAX_VALUE },
        .extended = { .min_len = 1,
                      .max_len = SG8_EXTENDED_MAX_LEN,
                      .min_value = -SG8_EXTENDED_MAX_VALUE,
                      .max_value = SG8_EXTENDED_MAX_VALUE },
    },
};

static void sg8_msg(char *msg, size_t msg_len, const char *text)
{
    if (msg && msg_len)
        snprintf(msg, msg_len, "%s", text);
}

static int sg8_get(const struct cairn_problem *pb, const int64_t **v, size_t *n)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs)
        return CAIRN_E_INTERNAL;
    *v = pb->inputs[0].v;
    *n = pb->inputs[0].n;
    if (*n == 0 || !*v)
        return CAIRN_E_INTERNAL;
    if (*n > SG8_EXTENDED_MAX_LEN)
        return CAIRN_E_TOO_LARGE;
    return CAIRN_OK;
}

static const char *sg8_get_error(int rc)
{
    return rc == CAIRN_E_TOO_LARGE ? "input.stones: longer than the extended maximum"
                                   : "input.stones: bad problem";
}

/*
 * NAME     sg8_check - the totals must fit in 64 bits
 * NOTES    A line of play has at most n - 1 moves, each scoring a prefix
 *          sum, |P| <= A = sum |v|; so |sigma| <= (n - 1) A, |g| <= 2 A and
 *          |sigma +- g| <= (n + 1) A.  The official bounds give at most
 *          about 10^14; the extended ones could reach 10^25, so extended
 *          rows must keep (n + 1) A <= 9e18.  That allows n = 10^7 with
 *          |v| up to about 9e4, or n = 10^5 with |v| up to about 9e8.
 */
static int sg8_check(const struct cairn_problem *pb, char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg8_get(pb, &v, &n);

    if (rc != CAIRN_OK) {
        sg8_msg(msg, msg_len, sg8_get_error(rc));
        return rc;
    }
    if (pb->limits == CAIRN_LIMITS_OFFICIAL)
        return CAIRN_OK;
    /* The host has checked |v| <= 1e11 and n <= 1e7: A <= 1e18, no wrap. */
    uint64_t a = 0;
    for (size_t i = 0; i < n; i++)
        a += v[i] < 0 ? (uint64_t)0 - (uint64_t)v[i] : (uint64_t)v[i];
    if (a > (uint64_t)SG8_TOTALS_LIMIT / (n + 1)) {
        if (msg && msg_len)
            snprintf(msg, msg_len,
                     "input.stones: (n + 1) * sum|stones[i]| = %zu * %llu exceeds 9e18, so the "
                     "players' totals could overflow 64 bits",
                     n + 1, (unsigned long long)a);
        return CAIRN_E_TOO_LARGE;
    }
    return CAIRN_OK;
}

static size_t sg8_scratch_bytes(const struct cairn_problem *pb)
{
    const int64_t *v;
    size_t n;
    if (sg8_get(pb, &v, &n) != CAIRN_OK)
        return 0;                  /* solve() refuses the problem before touching scratch */
    return pb->want_moves ? n : 0; /* one flag byte per state, n <= 1e7 */
}

/* Every move merges at least two stones into one: at most n - 1 moves. */
static size_t sg8_max_moves(const struct cairn_problem *pb)
{
    if (!pb || pb->n_inputs != 1 || !pb->inputs || pb->inputs[0].n == 0)
        return 0;
    return pb->inputs[0].n - 1;
}

/* The state the right-to-left pass carries: g = g(j), sigma = the score
 * sum of the line from the current candidate, p = P[j]. */
struct sg8_pass {
    int64_t g, sigma, p;
};

/* Positions j = hi-1 down to lo (lo >= 1), one at a time.  When cand is
 * not NULL, cand[j] = 1 where j becomes the candidate, else 0. */
static void sg8_steps(struct sg8_pass *st, const int64_t *v, size_t lo, size_t hi, uint8_t *cand)
{
    int64_t g = st->g, sigma = st->sigma, p = st->p;
    for (size_t j = hi; j-- > lo;) {
        p -= v[j + 1];
        int up = p >= 2 * g; /* c(j) = p - g >= g: ties take the smaller j */
        if (up) {
            sigma += p;
            g = p - g;
        }
        if (cand)
            cand[j] = (uint8_t)up;
    }
    st->g = g;
    st->sigma = sigma;
    st->p = p;
}

/*
 * Without moves.  Position k updates iff P[k] >= 2g, i.e. iff the stones
 * between it and the current P, s = v[k+1] + ... (the current index), are
 * at most thr = P - 2g.  Four positions per step: their s come from a
 * short running sum that does not depend on thr, so the loop-carried
 * chain is one subtraction per four stones, and the four tests are
 * branches that are almost never taken: g only grows, so on most rows a
 * prefix sum soon cannot reach twice g.  A step with an update is redone
 * one position at a time by sg8_steps.  |thr| <= |P| + 4 max|P| <= 5e18.
 */
static void sg8_pass(struct sg8_pass *st, const int64_t *v, size_t n)
{
    size_t j = n - 1; /* positions j-1 ... 1 are left; st->p = P[j] */
    int64_t thr = st->p - 2 * st->g;
    while (j >= 5) {
        int64_t s1 = v[j], s2 = s1 + v[j - 1], s3 = s2 + v[j - 2], s4 = s3 + v[j - 3];
        if (s1 <= thr || s2 <= thr || s3 <= thr || s4 <= thr) {
            st->p = thr + 2 * st->g;
            sg8_steps(st, v, j - 4, j, NULL);
            thr = st->p - 2 * st->g;
        } else {
            thr -= s4;
        }
        j -= 4;
    }
    st->p = thr + 2 * st->g;
    sg8_steps(st, v, 1, j, NULL);
}

/* The sum of the row, four independent adds per step. */
static int64_t sg8_total(const int64_t *v, size_t n)
{
    int64_t t0 = 0, t1 = 0, t2 = 0, t3 = 0;
    size_t i = 0;
    for (; i + 4 <= n; i += 4) {
        t0 += v[i];
        t1 += v[i + 1];
        t2 += v[i + 2];
        t3 += v[i + 3];
    }
    for (; i < n; i++)
        t0 += v[i];
    return (t0 + t1) + (t2 + t3);
}

static int sg8_solve(const struct cairn_problem *pb, struct cairn_result *res, void *scratch,
                     char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg8_get(pb, &v, &n);
    if (rc != CAIRN_OK) {
        sg8_msg(msg, msg_len, sg8_get_error(rc));
        return rc;
    }
    if (!res) {
        sg8_msg(msg, msg_len, "stone-game-viii: no result");
        return CAIRN_E_INTERNAL;
    }
    if (pb->want_moves && (!scratch || !res->moves || res->moves_cap < n - 1)) {
        sg8_msg(msg, msg_len, "stone-game-viii: moves or scratch buffer too small");
        return CAIRN_E_INTERNAL;
    }
    if (n == 1) { /* no move is possible: the game is over */
        res->answer = res->alice = res->bob = 0;
        res->n_moves = 0;
        return CAIRN_OK;
    }

    int64_t total = sg8_total(v, n);
    /* State n-1 ends the game: c(n-1) = P[n-1], the line from it scores
     * P[n-1] for the mover and nothing more. */
    struct sg8_pass st = { .g = total, .sigma = total, .p = total };

    if (!pb->want_moves) {
        sg8_pass(&st, v, n);
    } else {
        uint8_t *cand = scratch;
        cand[n - 1] = 1;
        sg8_steps(&st, v, 1, n - 1, cand);
        /* From state k the line moves to the first candidate j > k. */
        size_t k = 0, m = 0;
        while (k < n - 1) {
            size_t j = k + 1;
            while (!cand[j])
                j++;
            res->moves[m++] = (int32_t)(j - k + 1); /* x: stones merged */
            k = j;
        }
        res->n_moves = m;
    }

    res->answer = st.g;
    res->alice = (st.sigma + st.g) / 2; /* exact: sigma + g = 2 * alice */
    res->bob = (st.sigma - st.g) / 2;
    return CAIRN_OK;
}

/* ---- analysis (ABI 1.2) ------------------------------------------------- */

/*
 * A position is the state j: the leftmost stone is the prefix sum P[j] and
 * stones j+1..n-1 follow (n - j stones).  Taking x stones goes to state
 * j' = j + x - 1 and scores P[j'].  With f(j) the best "mover minus other"
 * from j (f(n-1) = 0) and g(j) = max over j' >= j of P[j'] - f(j'), f(j) =
 * g(j + 1): one table g covers every position of every line.  Values are
 * the final margin Alice - Bob.  States only grow along a line, so P[j']
 * is summed forward as the line goes, and the table is all the scratch.
 */
static size_t sg8_max_legal_moves(const struct cairn_problem *pb)
{
    const int64_t *v;
    size_t n;
    if (sg8_get(pb, &v, &n) != CAIRN_OK)
        return 0;
    return n - 1; /* x = 2..n */
}

static size_t sg8_analysis_bytes(const struct cairn_problem *pb, size_t n_line)
{
    const int64_t *v;
    size_t n;
    (void)n_line;
    if (sg8_get(pb, &v, &n) != CAIRN_OK)
        return 0; /* analyze() refuses the problem before touching scratch */
    return (n + 1) * sizeof(int64_t);
}

/* f(j), from the table g (g[n] unused). */
static int64_t sg8_f(const int64_t *g, size_t n, size_t j)
{
    return j + 1 < n ? g[j + 1] : 0;
}

static int sg8_analyze(const struct cairn_problem *pb, struct cairn_analysis *a, void *scratch,
                       char *msg, size_t msg_len)
{
    const int64_t *v;
    size_t n;
    int rc = sg8_get(pb, &v, &n);
    if (rc != CAIRN_OK || !a || !scratch || (a->n_line && !a->line) ||
        (a->moves && a->moves_cap < n - 1)) {
        sg8_msg(msg, msg_len,
                rc != CAIRN_OK ? sg8_get_error(rc) : "stone-game-viii: bad analysis request");
        return rc != CAIRN_OK ? rc : CAIRN_E_INTERNAL;
    }
    int64_t *g = scratch, P = 0;
    for (size_t i = 0; i < n; i++)
        P += v[i];
    for (size_t j = n - 1; j >= 1; j--) { /* P = P[j] */
        int64_t c = P - sg8_f(g, n, j);
        g[j] = j + 1 < n && g[j + 1] > c ? g[j + 1] : c;
        P -= v[j];
    }

    size_t j = 0, found = 0;
    int64_t Pj = v[0], acc = 0;
    for (size_t t = 0; t < a->n_line; t++) {
        int32_t x = a->line[t];
        int64_t s = t % 2 == 0 ? 1 : -1;
        if (j + 1 >= n || x < 2 || (size_t)x > n - j) {
            a->bad = t;
            if (j + 1 >= n)
                snprintf(msg, msg_len, "the game is over: one stone is left");
            else
                snprintf(msg, msg_len, "x must be 2 to %zu (x > 1, at most the %zu stones left)",
                         n - j, n - j);
            return CAIRN_E_ILLEGAL;
        }
        size_t to = j + (size_t)x - 1;
        int64_t Pto = Pj;
        for (size_t i = j + 1; i <= to; i++)
            Pto += v[i];
        int64_t score = Pto - sg8_f(g, n, to), best_score = g[j + 1];
        if (!found && score < best_score) {
            /* The fewest stones worth g, as the line of solve() takes. */
            int64_t q = Pj;
            size_t b = j + 1;
            for (;; b++) {
                q += v[b];
                if (q - sg8_f(g, n, b) == best_score)
                    break;
            }
            found = 1;
            a->ply = t;
            a->mover = (int32_t)(t % 2);
            a->best = (int32_t)(b - j + 1);
            a->best_value = acc + s * best_score;
            a->value = acc + s * score;
        }
        acc += s * Pto;
        j = to;
        Pj = Pto;
    }
    int64_t s = a->n_line % 2 == 0 ? 1 : -1;
    if (!found) {
        a->ply = a->n_line;
        a->mover = (int32_t)(a->n_line % 2);
        a->best_value = acc + s * sg8_f(g, n, j);
    }
    if (a->moves) {
        int64_t q = Pj;
        for (size_t to = j + 1; to < n; to++) {
            q += v[to];
            a->moves[a->n_moves++] =
                (struct cairn_move_value){ .move = (int32_t)(to - j + 1),
                                           .value = acc + s * (q - sg8_f(g, n, to)) };
        }
    }
    return CAIRN_OK;
}

static const struct cairn_plugin sg8_plugin = {
    .abi_major = CAIRN_PLUGIN_ABI_MAJOR,
    .abi_minor = CAIRN_PLUGIN_ABI_MINOR,
    .struct_size = sizeof(struct cairn_plugin),
    .name = "stone-game-viii",
    .aliases = sg8_aliases,
    .version = "1.0.0",
    .summary = "LeetCode 1872: merge the x > 1 leftmost stones into one and score their sum; "
               "Alice - Bob",
    .inputs = sg8_inputs,
    .n_inputs = sizeof sg8_inputs / sizeof sg8_inputs[0],
    .answer_kind = CAIRN_ANSWER_INT,
    .moves_kind = CAIRN_MOVES_COUNT,
    .check = sg8_check,
    .scratch_bytes = sg8_scratch_bytes,
    .max_moves = sg8_max_moves,
    .solve = sg8_solve,
    .equal_length = 0,
    .totals = CAIRN_TOTALS_ALL,
    .value_kind = CAIRN_VALUE_MARGIN,
    .max_legal_moves = sg8_max_legal_moves,
    .analysis_scratch_bytes = sg8_analysis_bytes,
    .analyze = sg8_analyze,
};

CAIRN_PLUGIN_EXPORT const struct cairn_plugin *cairn_plugin_entry(void)
{
    return &sg8_plugin;
}
