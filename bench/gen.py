#!/usr/bin/env python3
"""Deterministic job corpora for the benchmarks.

usage: gen.py KIND MEGABYTES OUT [RECORDS]
  KIND: small  - official-size random records of stone-game, -ii and -iii, a few dozen values each
        max    - maximum official sizes, a third each: stone-game n=500,
                 stone-game-ii n=100, stone-game-iii n=50 000
        mixed  - both, interleaved
        solve-heavy - stone-game-ii with 1,000 piles under extended limits:
                 a few kilobytes that take a worker about 1.6 ms each (0.2 s
                 before the O(n^2) kernel, 10 ms before it filled only the
                 reachable states); the first 400 records are distinct
        solve-heavy-v - stone-game-v with 2,000 stones of 1..9 under
                 extended limits: 40 of them still fit one 256 KiB batch by
                 size, and each takes a worker about 12 ms
  RECORDS, when given, ends the corpus after that many records instead
  (MEGABYTES is then ignored).
The same arguments always give the same bytes (seeded PRNG).
"""
import random
import sys


def stone_game(rng, n):
    piles = [rng.randint(1, 500) for _ in range(n)]
    if sum(piles) % 2 == 0:
        piles[0] += 1 if piles[0] < 500 else -1
    return '{"variant":"stone-game","input":{"piles":[%s]}}\n' % ",".join(map(str, piles))


def stone_game_ii(rng, n):
    piles = [rng.randint(1, 10000) for _ in range(n)]
    return '{"variant":"stone-game-ii","input":{"piles":[%s]}}\n' % ",".join(map(str, piles))


def stone_game_iii(rng, n):
    vals = [rng.randint(-1000, 1000) for _ in range(n)]
    return '{"variant":"stone-game-iii","input":{"stoneValue":[%s]}}\n' % ",".join(map(str, vals))


def solve_heavy(rng, i):
    piles = [rng.randint(1, 10000) for _ in range(1000)]
    return ('{"id":%d,"variant":"stone-game-ii","input":{"piles":[%s]},'
            '"options":{"limits":"extended"}}\n' % (i, ",".join(map(str, piles))))


def solve_heavy_v(rng, i):
    vals = [rng.randint(1, 9) for _ in range(2000)]
    return ('{"id":%d,"variant":"stone-game-v","input":{"stoneValue":[%s]},'
            '"options":{"limits":"extended"}}\n' % (i, ",".join(map(str, vals))))


def small(rng, i):
    kind = i % 3
    if kind == 0:
        return stone_game(rng, 2 * rng.randint(1, 20))
    if kind == 1:
        return stone_game_ii(rng, rng.randint(1, 40))
    return stone_game_iii(rng, rng.randint(1, 60))


def maximal(rng, i):
    return (stone_game(rng, 500), stone_game_ii(rng, 100), stone_game_iii(rng, 50000))[i % 3]


def main():
    kind, megabytes, out = sys.argv[1], float(sys.argv[2]), sys.argv[3]
    records = int(sys.argv[4]) if len(sys.argv) > 4 else None
    make = {"small": small, "max": maximal, "solve-heavy": solve_heavy,
            "solve-heavy-v": solve_heavy_v,
            "mixed": lambda rng, i: maximal(rng, i // 2) if i % 2 else small(rng, i // 2)}[kind]
    rng = random.Random(877 + 1140 + 1406)
    limit = int(megabytes * 1024 * 1024)
    size = 0
    i = 0
    # A max-size corpus repeats a few distinct lines: generating 50 000
    # random values per line in Python would dominate the benchmark's time.
    # The first records do not depend on how many are cached (one PRNG,
    # drawn in order), so a larger cache leaves shorter corpora unchanged.
    cache = [make(rng, j) for j in range({"small": 3000, "solve-heavy": 400, "solve-heavy-v": 40}.get(kind, 30))]
    with open(out, "w") as f:
        while (size < limit) if records is None else (i < records):
            line = cache[i % len(cache)]
            f.write(line)
            size += len(line)
            i += 1
    print(f"{out}: {i} records, {size / 1048576:.1f} MiB", file=sys.stderr)


main()
