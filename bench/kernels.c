/*
 * kernels.c - time each plugin's kernel at the maximum official size, side
 * by side with the textbook DP from tests/reference/brute.c, and print medians and
 * ratios; then each newer game's plugin next to the fastest published
 * solution, ported to C (bench/peers.h).  A benchmark, not a test: run it
 * by hand (bench/run-kernels).
 *
 * usage: bench-kernels PLUGIN_DIR [REPEATS]
 */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "brute.h"
#include "peers.h"
#include "plugin_loader.h"

struct kcase {
    const char *variant;
    size_t n;
    int64_t lo, hi;
};

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;

static uint64_t rng(void)
{
    /* splitmix64: deterministic corpora, run after run */
    uint64_t z = (rng_state += 0x9E3779B97F4A7C15ull);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
    return z ^ (z >> 31);
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static double median(double *v, int n)
{
    qsort(v, (size_t)n, sizeof(*v), cmp_double);
    return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static int64_t textbook(const char *variant, const int64_t *a, size_t n)
{
    if (strcmp(variant, "stone-game") == 0)
        return brute_sg1_dp(a, n);
    if (strcmp(variant, "stone-game-ii") == 0)
        return brute_sg2_dp(a, n, 1);
    return brute_sg3_dp(a, n, NULL);
}

#define PEER_BUF (1u << 20)

/* One table of bench/peers.h: plugin and peer on the same position,
 * interleaved; their answers must agree. */
static int run_peers(const struct cairn_registry *reg, const struct bench_peer *t, int repeats)
{
    static int64_t buf[PEER_BUF];
    int status = 0;

    for (; t->variant != NULL; t++) {
        const struct cairn_plugin_handle *h = cairn_registry_find(reg, t->variant);
        struct cairn_array in[8];
        size_t n_in = t->make(rng, in, buf, PEER_BUF);
        double *tp = malloc((size_t)repeats * sizeof(double));
        double *tt = malloc((size_t)repeats * sizeof(double));
        struct cairn_problem pb = { .inputs = in,
                                    .n_inputs = n_in,
                                    .limits = CAIRN_LIMITS_EXTENDED };
        void *scratch = NULL;
        char msg[256];

        if (h == NULL || n_in == 0 || tp == NULL || tt == NULL ||
            (scratch = malloc(h->desc->scratch_bytes(&pb) + 16)) == NULL) {
            fprintf(stderr, "%s: %s\n", t->variant, h == NULL ? "no such plugin" : "no memory");
            free(tp);
            free(tt);
            status = 1;
            continue;
        }
        for (int r = 0; r < repeats; r++) {
            struct cairn_result res = { 0 };
            double t0 = now_s(), t1;
            int64_t ref;
            int rc = h->desc->solve(&pb, &res, scratch, msg, sizeof(msg));

            t1 = now_s();
            ref = t->solve(in, n_in);
            tt[r] = now_s() - t1;
            tp[r] = t1 - t0;
            if (rc != CAIRN_OK || ref != res.answer) {
                fprintf(stderr, "%s: plugin answer %lld (status %d), peer %lld\n", t->variant,
                        (long long)res.answer, rc, (long long)ref);
                status = 1;
            }
        }
        double mp = median(tp, repeats), mt = median(tt, repeats);
        printf("%-20s %14.1f %14.1f %7.1fx  %s\n", t->variant, mp * 1e6, mt * 1e6, mt / mp,
               t->source);
        free(scratch);
        free(tp);
        free(tt);
    }
    return status;
}

int main(int argc, char **argv)
{
    static const struct kcase cases[] = {
        { "stone-game", 500, 1, 500 },
        { "stone-game-ii", 100, 1, 10000 },
        { "stone-game-iii", 50000, -1000, 1000 },
    };
    struct cairn_registry reg = { 0 };
    int repeats = argc > 2 ? atoi(argv[2]) : 21;
    size_t c;
    int status = 0;

    if (argc < 2 || repeats < 1) {
        fprintf(stderr, "usage: %s PLUGIN_DIR [REPEATS]\n", argv[0]);
        return 2;
    }
    if (cairn_registry_load(&reg, argv[1]) != 0) {
        for (size_t i = 0; i < reg.n_errors; i++)
            fprintf(stderr, "%s\n", reg.errors[i]);
        return 2;
    }
    printf("%-16s %7s %14s %14s %8s\n", "kernel", "n", "plugin (us)", "textbook (us)", "speed-up");
    for (c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
        const struct kcase *k = &cases[c];
        const struct cairn_plugin *d = cairn_registry_find(&reg, k->variant)->desc;
        int64_t *a = malloc(k->n * sizeof(*a));
        double *tp = malloc((size_t)repeats * sizeof(double));
        double *tt = malloc((size_t)repeats * sizeof(double));
        struct cairn_array arr = { .v = a, .n = k->n };
        struct cairn_problem pb = { .inputs = &arr,
                                    .n_inputs = 1,
                                    .limits = CAIRN_LIMITS_EXTENDED };
        void *scratch;
        char msg[256];
        int r;

        for (size_t i = 0; i < k->n; i++)
            a[i] = k->lo + (int64_t)(rng() % (uint64_t)(k->hi - k->lo + 1));
        scratch = malloc(d->scratch_bytes(&pb) + 16);
        for (r = 0; r < repeats; r++) {
            struct cairn_result res = { 0 };
            double t0 = now_s(), t1;
            int64_t ref;

            d->solve(&pb, &res, scratch, msg, sizeof(msg));
            t1 = now_s();
            ref = textbook(k->variant, a, k->n);
            tt[r] = now_s() - t1;
            tp[r] = t1 - t0;
            /* The speed-up only means something if both agree. */
            if (ref != res.alice - res.bob) {
                fprintf(stderr, "%s: plugin margin %lld, textbook %lld\n", k->variant,
                        (long long)(res.alice - res.bob), (long long)ref);
                status = 1;
            }
        }
        double mp = median(tp, repeats), mt = median(tt, repeats);
        printf("%-16s %7zu %14.1f %14.1f %7.1fx\n", k->variant, k->n, mp * 1e6, mt * 1e6, mt / mp);
        free(scratch);
        free(a);
        free(tp);
        free(tt);
    }
    printf("(medians of %d runs each, interleaved; random official-range inputs)\n", repeats);
    printf("\n%-20s %14s %14s %8s  %s\n", "kernel", "plugin (us)", "peer (us)", "speed-up", "peer");
    if (run_peers(&reg, bench_peers_a, repeats) != 0 ||
        run_peers(&reg, bench_peers_b, repeats) != 0)
        status = 1;
    printf("(medians of %d runs each, interleaved; one position at the official maximum)\n",
           repeats);
    cairn_registry_free(&reg);
    return status;
}
