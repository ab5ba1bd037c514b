/*
 * peers_a.c - ported published solutions (see peers.h).
 */
#include "peers.h"

const struct bench_peer bench_peers_a[] = {
    {0},
};
