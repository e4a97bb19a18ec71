// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace benchmark of the nvme-peer guard (drivers/nvme/peer/guard.c).
 *
 *   guard-bench                      ns per SQE for mixed streams and the
 *                                    headline case, checked against targets
 *   guard-bench --callgrind-case [N] the headline case N times (default
 *                                    1000000), for
 *     valgrind --tool=callgrind --toggle-collect=np_guard_check
 *
 * guard.c is built as its own object, so np_guard_check() is a real call
 * the compiler cannot hoist out of the loop; the verdicts are summed into
 * a sink the compiler must produce (an empty asm volatile, consume()), and
 * every SQE of a stream differs from its neighbours.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench.h"
#include "guard.h"

#define NSID		1
#define LBA_SHIFT	9
#define NS_SIZE		BIT_ULL(32)	/* 2 TiB of 512 B LBAs */
#define STREAM		4096		/* SQEs per stream */
#define HEADLINE	256		/* SQEs in the headline stream */
#define CHECKS		(4u << 20)	/* checks per timed run */
#define RUNS		7		/* best of */
#define MAX_ENTRIES	40		/* list entries per SQE: 128 KiB + offset */
#define TARGET_NS	5.0
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define TARGET_INSNS	50

union sqe {
	__le32 dw[16];
	__le64 qw[8];
};

/* 128 bytes: in an aligned_alloc(64) array every SQE is 64-byte aligned */
struct item {
	union sqe s;
	struct np_prp_list list;
	int has_list;
	int hostile;
	char pad[128 - 64 - sizeof(struct np_prp_list) - 2 * sizeof(int)];
};

static unsigned long long rnd_below(unsigned long long n)
{
	return rnd() % n;
}

/* A few windows, as a peer would have: CMB, a RAM BAR, some host memory. */
static struct np_range windows[] = {
	{ 0x200000000ULL, 4ULL << 20 },
	{ 0x80000000ULL, 16ULL << 20 },
	{ 0x100000000ULL, 64ULL << 20 },
};

static struct np_range *make_extents(u32 *n)
{
	struct np_range *e = calloc(*n, sizeof(*e));
	u64 stride = NS_SIZE / *n;
	u32 i;

	/* given in reverse to exercise np_ranges_prepare() */
	for (i = 0; i < *n; i++) {
		e[*n - 1 - i].start = i * stride + stride / 8;
		e[*n - 1 - i].len = stride / 2;
	}
	if (np_ranges_prepare(e, n)) {
		fprintf(stderr, "np_ranges_prepare failed (extents)\n");
		exit(1);
	}
	return e;
}

static void make_policy(struct np_policy *p, u32 nr_ext)
{
	u32 nw = ARRAY_SIZE(windows);

	if (np_ranges_prepare(windows, &nw)) {
		fprintf(stderr, "np_ranges_prepare failed (windows)\n");
		exit(1);
	}
	memset(p, 0, sizeof(*p));
	p->nsid = NSID;
	p->lba_shift = LBA_SHIFT;
	p->ns_size = NS_SIZE;
	p->opcodes[0] = 1ULL << NP_OP_READ | 1ULL << NP_OP_WRITE |
			1ULL << NP_OP_FLUSH;
	p->extents = make_extents(&nr_ext);
	p->nr_extents = nr_ext;
	p->windows = windows;
	p->nr_windows = nw;
	p->max_nlb = 256;		/* MDTS 128 KiB */
	if (np_policy_init(p)) {
		fprintf(stderr, "np_policy_init failed\n");
		exit(1);
	}
}

/* A page-aligned buffer of @pages pages inside a random window. */
static u64 pick_buffer(const struct np_policy *p, u32 pages)
{
	const struct np_range *w = &p->windows[rnd_below(p->nr_windows)];
	u64 room = w->len / 4096 - pages;

	return w->start + rnd_below(room) * 4096;
}

/* A valid read or write of @bytes starting @off bytes into its first page. */
static void make_rw(const struct np_policy *p, struct item *it, u8 opc,
		    u32 bytes, u32 off, __le64 *pool)
{
	u32 nlb = bytes >> LBA_SHIFT, pages = (off + bytes + 4095) / 4096, i;
	const struct np_range *e = &p->extents[rnd_below(p->nr_extents)];
	u64 slba = e->start + rnd_below(e->len - nlb + 1);
	u64 buf = pick_buffer(p, pages) + off;
	u64 prp2 = 0;

	memset(it, 0, sizeof(*it));
	it->s.dw[0] = cpu_to_le32(opc | (rnd() & 0xffff) << 16);
	it->s.dw[1] = cpu_to_le32(NSID);
	it->s.qw[3] = cpu_to_le64(buf);
	it->s.qw[5] = cpu_to_le64(slba);
	it->s.dw[12] = cpu_to_le32(nlb - 1);
	it->s.dw[13] = cpu_to_le32(rnd() & 0xff);
	if (pages == 2) {
		prp2 = (buf & ~4095ULL) + 4096;
	} else if (pages > 2) {
		prp2 = pick_buffer(p, 1) + 8 * rnd_below(512 - (pages - 1));
		for (i = 1; i < pages; i++)
			pool[i - 1] = cpu_to_le64((buf & ~4095ULL) + 4096 * i);
		it->list.entries = pool;
		it->list.nr = pages - 1;
		it->list.list_addr = prp2;
		it->has_list = 1;
	}
	it->s.qw[4] = cpu_to_le64(prp2);
}

static void make_hostile(const struct np_policy *p, struct item *it)
{
	const struct np_range *e;
	u32 nlb;

	it->hostile = 1;
	switch (rnd_below(4)) {
	case 0:		/* wrong namespace */
		it->s.dw[1] = cpu_to_le32((u32)rnd_below(3) * 0x7fffffffU);
		break;
	case 1:		/* the last LBAs past the end of an extent */
		e = &p->extents[rnd_below(p->nr_extents)];
		nlb = (le32_to_cpu(it->s.dw[12]) & 0xffff) + 1;
		it->s.qw[5] = cpu_to_le64(e->start + e->len - nlb + 1 +
					  rnd_below(4));
		break;
	case 2:		/* Compare, or some vendor opcode */
		it->s.dw[0] = cpu_to_le32((le32_to_cpu(it->s.dw[0]) & ~0xffU) |
					  (rnd_below(2) ? 0x05 : 0x81));
		break;
	default:	/* data outside the windows */
		it->s.qw[3] = cpu_to_le64(0x1000 + 4096 * rnd_below(1024));
		it->s.qw[4] = 0;
		it->s.dw[12] = cpu_to_le32(0);	/* 512 B: PRP1 only */
		break;
	}
}

/* Reads and writes of 512 B..128 KiB, about 10 % hostile. */
static struct item *make_stream(const struct np_policy *p, __le64 *pool)
{
	static const u32 sizes[] = { 512, 4096, 4096, 8192, 16384, 65536,
				     131072 };
	struct item *it = aligned_alloc(64, STREAM * sizeof(*it));
	u32 i, bytes, off;

	for (i = 0; i < STREAM; i++) {
		bytes = sizes[rnd_below(ARRAY_SIZE(sizes))];
		off = rnd_below(4) ? 0 : 512 * (u32)rnd_below(8);
		make_rw(p, &it[i], rnd_below(5) ? NP_OP_READ : NP_OP_WRITE,
			bytes, off, pool + i * MAX_ENTRIES);
		if (rnd_below(10) == 0)
			make_hostile(p, &it[i]);
	}
	return it;
}

/* The headline case: valid 4 KiB reads (NLB 8 of 512 B), PRP1 only. */
static struct item *make_headline(const struct np_policy *p)
{
	struct item *it = aligned_alloc(64, HEADLINE * sizeof(*it));
	u32 i;

	for (i = 0; i < HEADLINE; i++)
		make_rw(p, &it[i], NP_OP_READ, 4096, 0, NULL);
	return it;
}

/* Check the stream's verdicts are what was built. */
static int verify(const struct np_policy *p, const struct item *it, u32 n,
		  u32 *hostile)
{
	enum np_guard_verdict v;
	u32 i, bad = 0;
	int rejected;

	*hostile = 0;
	for (i = 0; i < n; i++) {
		v = np_guard_check(p, &it[i].s,
				   it[i].has_list ? &it[i].list : NULL);
		*hostile += it[i].hostile;
		rejected = v != NP_GUARD_OK;
		if (rejected != it[i].hostile) {
			fprintf(stderr, "SQE %u: verdict %d, hostile %d\n", i,
				v, it[i].hostile);
			bad++;
		}
	}
	return bad;
}

/* The volatile sink: the compiler must produce @v, and cannot see why. */
static void consume(unsigned long v)
{
	__asm__ __volatile__("" : : "r" (v) : "memory");
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static unsigned long run(const struct np_policy *p, const struct item *it,
			 u32 n, u32 rounds)
{
	unsigned long acc = 0;
	u32 r, i;

	for (r = 0; r < rounds; r++)
		for (i = 0; i < n; i++)
			acc += np_guard_check(p, &it[i].s,
					      it[i].has_list ? &it[i].list :
							       NULL) + i;
	return acc;
}

/* Best of RUNS timed runs of about CHECKS checks: ns per SQE. */
static double time_stream(const struct np_policy *p, const struct item *it,
			  u32 n)
{
	u32 rounds = CHECKS / n, k;
	double best = 1e30, t;

	consume(run(p, it, n, rounds / 8));	/* warm up */
	for (k = 0; k < RUNS; k++) {
		t = now_ns();
		consume(run(p, it, n, rounds));
		t = (now_ns() - t) / ((double)rounds * n);
		if (t < best)
			best = t;
	}
	return best;
}

int main(int argc, char **argv)
{
	static const u32 nr_ext[] = { 1, 16, 4096 };
	struct np_policy pol[3];
	struct item *mixed[3], *head[3];
	__le64 *pool = calloc(STREAM * MAX_ENTRIES, sizeof(*pool));
	double ns_mixed[3], ns_head[3];
	u32 i, hostile;
	int bad = 0;

	for (i = 0; i < 3; i++)
		make_policy(&pol[i], nr_ext[i]);

	if (argc > 1 && !strcmp(argv[1], "--callgrind-case")) {
		u32 n = argc > 2 ? strtoul(argv[2], NULL, 0) : 1000000;
		struct item *h = make_headline(&pol[1]);

		consume(run(&pol[1], h, HEADLINE, n / HEADLINE));
		printf("checks: %u\n", n / HEADLINE * HEADLINE);
		return 0;
	}
	if (argc > 1) {
		fprintf(stderr, "usage: %s [--callgrind-case [N]]\n", argv[0]);
		return 2;
	}

	for (i = 0; i < 3; i++) {
		mixed[i] = make_stream(&pol[i], pool);
		head[i] = make_headline(&pol[i]);
		bad += verify(&pol[i], head[i], HEADLINE, &hostile);
		bad += verify(&pol[i], mixed[i], STREAM, &hostile);
		ns_mixed[i] = time_stream(&pol[i], mixed[i], STREAM);
		ns_head[i] = time_stream(&pol[i], head[i], HEADLINE);
	}
	if (bad) {
		fprintf(stderr, "%d unexpected verdicts\n", bad);
		return 1;
	}

	printf("nvme-peer guard: ns per SQE (best of %d runs of %u checks)\n",
	       RUNS, CHECKS);
	printf("mixed stream: 512 B..128 KiB reads/writes, PRP1 / PRP2 / list, ");
	printf("%u%% hostile\n", hostile * 100 / STREAM);
	printf("%-10s %14s %18s\n", "extents", "mixed stream", "valid 4 KiB read");
	for (i = 0; i < 3; i++)
		printf("%-10u %14.2f %18.2f\n", nr_ext[i], ns_mixed[i],
		       ns_head[i]);
	printf("headline: valid 4 KiB read, 16 extents, %u windows: ",
	       pol[1].nr_windows);
	printf("%.2f ns/SQE (target <= %.0f): %s\n", ns_head[1], TARGET_NS,
	       ns_head[1] <= TARGET_NS ? "PASS" : "FAIL");
	printf("instructions: make callgrind (target <= %d)\n", TARGET_INSNS);
	return 0;
}
