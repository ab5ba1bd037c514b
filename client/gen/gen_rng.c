/*
 * gen_rng.c - cairn gen's random numbers: xoshiro256** (Blackman and
 * Vigna), seeded through splitmix64.  Integer arithmetic only, defined
 * to the bit by C's unsigned types, so every machine draws the same
 * numbers; rand() and random() differ between libcs and are never used.
 */
#include "gen_rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += UINT64_C(0x9e3779b97f4a7c15));

    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* FNV-1a: the variant's part of the seed.  Spelled here, not borrowed
 * from util.h, so a change to the core's hash never changes a corpus. */
static uint64_t fnv1a(const char *s)
{
    uint64_t h = UINT64_C(0xcbf29ce484222325);

    for (; *s != '\0'; s++)
        h = (h ^ (unsigned char)*s) * UINT64_C(0x100000001b3);
    return h;
}

void cairn_gen_rng_seed(struct cairn_gen_rng *r, uint64_t seed, const char *variant, uint64_t mode,
                        uint64_t index)
{
    uint64_t x = seed;
    int i;

    /* Each part goes through the mixer before the next is added, so no
     * two argument lists are one xor apart from each other. */
    x = splitmix64(&x) ^ fnv1a(variant);
    x = splitmix64(&x) ^ mode;
    x = splitmix64(&x) ^ index;
    for (i = 0; i < 4; i++)
        r->s[i] = splitmix64(&x);
}

static uint64_t rotl(uint64_t v, int k)
{
    return (v << k) | (v >> (64 - k));
}

uint64_t cairn_gen_next(struct cairn_gen_rng *r)
{
    uint64_t *s = r->s;
    uint64_t out = rotl(s[1] * 5, 7) * 9, t = s[1] << 17;

    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return out;
}

int64_t cairn_gen_range(struct cairn_gen_rng *r, int64_t lo, int64_t hi)
{
    /* The span in unsigned arithmetic: hi - lo may not fit an int64. */
    uint64_t span = (uint64_t)hi - (uint64_t)lo + 1, v, limit;

    if (span == 0) /* the whole 64-bit range */
        return (int64_t)cairn_gen_next(r);
    /* Reject the top partial bucket: every value equally likely. */
    limit = UINT64_MAX - UINT64_MAX % span;
    do
        v = cairn_gen_next(r);
    while (v >= limit);
    return (int64_t)((uint64_t)lo + v % span);
}

int cairn_gen_chance(struct cairn_gen_rng *r, uint64_t num, uint64_t den)
{
    return (uint64_t)cairn_gen_range(r, 0, (int64_t)den - 1) < num;
}

void cairn_gen_shuffle(struct cairn_gen_rng *r, int64_t *v, size_t n)
{
    size_t i;

    for (i = n; i > 1; i--) {
        size_t j = (size_t)cairn_gen_range(r, 0, (int64_t)i - 1);
        int64_t t = v[i - 1];

        v[i - 1] = v[j];
        v[j] = t;
    }
}
