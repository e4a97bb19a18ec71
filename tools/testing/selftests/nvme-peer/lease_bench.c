// SPDX-License-Identifier: GPL-2.0
/*
 * lease_bench: how long a layout break holds the breaker.  100 truncates of
 * a bound 1 MiB file each, with the queue idle and busy (a thread of
 * np-client reads through it until it is revoked), and of an unbound file
 * for the baseline; prints median, min and max of the truncate's duration
 * and of nvme-peer's fence (qN/file fence_ns: lease broken to lease given
 * back).  Runs in the two-ctrl topology (scripts/vm-run), not in make check.
 * Target: the breaker is held no longer than the in-flight commands take
 * plus one poller pass.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <time.h>
#include <sys/ioctl.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "np_file.h"

#define ROUNDS	100

enum { IDLE, BUSY, UNBOUND };
static const char * const np_case[] = { "idle queue", "busy queue",
					 "unbound file" };

static long long np_now_us(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000LL + t.tv_nsec / 1000;
}

static int np_cmp(const void *a, const void *b)
{
	long long x = *(const long long *)a, y = *(const long long *)b;

	return x < y ? -1 : x > y;
}

static void np_print(const char *what, const char *unit, long long *v, int n)
{
	qsort(v, n, sizeof(*v), np_cmp);
	printf("  %-22s median %8lld  min %8lld  max %8lld %s\n", what,
	       v[n / 2], v[0], v[n - 1], unit);
}

struct np_reader {
	int qid;
	unsigned long long slba;
	long reads;
};

/* a busy peer: reads until the queue is revoked */
static void *np_read_loop(void *arg)
{
	struct np_reader *r = arg;

	while (!np_write(NP_DBG_CLIENT "/io", "%d r %llu 8 0", r->qid,
			 r->slba))
		r->reads++;
	return NULL;
}

/* One round of @c: the truncate's duration and the fence's, in us. */
static int np_round(int c, long long *trunc_us, long long *fence_us,
		    long *reads)
{
	struct nvme_peer_info info;
	struct np_reader r = { 0 };
	pthread_t reader;
	int file, fd = -1;
	unsigned long long nlb;
	long long t0;

	file = np_mkfile("bench", MIB, 5);
	if (file < 0)
		return -1;
	if (c == IDLE) {
		fd = np_open();
		if (np_bind(fd, file, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
			    NVME_PEER_MODE_MEDIATED) || np_query(fd, &info))
			return -1;
		r.qid = info.qid;
	} else if (c == BUSY) {
		if (np_client_bind("bench", MIB))
			return -1;
		r.qid = np_client_last_qid();
		if (np_policy_extent(r.qid, &r.slba, &nlb))
			return -1;
		pthread_create(&reader, NULL, np_read_loop, &r);
		usleep(20000);		/* reads in flight */
	}
	t0 = np_now_us();
	if (ftruncate(file, 0))
		return -1;
	*trunc_us = np_now_us() - t0;
	*fence_us = c == UNBOUND ? 0 : np_qfile_num(r.qid, "file", "fence_ns") / 1000;
	if (c == BUSY) {
		pthread_join(reader, NULL);
		*reads += r.reads;
		np_write(NP_DBG_CLIENT "/release", "%d", r.qid);
	}
	if (fd >= 0)
		close(fd);
	close(file);
	return 0;
}

int main(void)
{
	static long long trunc_us[3][ROUNDS], fence_us[3][ROUNDS];
	long reads = 0;
	int c, i;

	if (np_fs()) {
		printf("lease_bench: %s\n", np_fs());
		return 4;
	}
	if (np_sys("modprobe np-client")) {
		printf("lease_bench: no np-client\n");
		return 4;
	}
	for (c = IDLE; c <= UNBOUND; c++)
		for (i = 0; i < ROUNDS; i++)
			if (np_round(c, &trunc_us[c][i], &fence_us[c][i],
				     &reads)) {
				printf("lease_bench: %s round %d failed\n",
				       np_case[c], i);
				return 1;
			}
	printf("lease_bench: layout break of a bound 1 MiB file, %d truncates each\n",
	       ROUNDS);
	for (c = IDLE; c <= UNBOUND; c++) {
		printf("%s:\n", np_case[c]);
		np_print("truncate", "us", trunc_us[c], ROUNDS);
		if (c != UNBOUND)
			np_print("fence (kernel)", "us", fence_us[c], ROUNDS);
	}
	printf("busy queue: %ld reads completed before the fences\n", reads);
	return 0;
}
