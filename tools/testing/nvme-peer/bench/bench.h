/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the benchmarks of this directory share: a fast pseudo-random
 * sequence (xorshift64, the same on every run) and a monotonic clock in
 * seconds.
 */
#ifndef _NVME_PEER_BENCH_H
#define _NVME_PEER_BENCH_H

#include <time.h>

static unsigned long long rng_state = 0x9e3779b97f4a7c15ULL;

static inline unsigned long long rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static inline double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

#endif /* _NVME_PEER_BENCH_H */
