/*
 * peers_b.c - ported published solutions (see peers.h).
 */
#include "peers.h"

const struct bench_peer bench_peers_b[] = {
    {0},
};
