// SPDX-License-Identifier: GPL-2.0
/*
 * Userspace benchmark of the nvme-peer mediated pass
 * (drivers/nvme/peer/medpass.c, the same code the kernel's poller threads
 * run) against a simulated controller and a simulated peer.
 *
 * Each queue has a shadow SQ, CQ and doorbell page (the peer's side, driven
 * with tools/lib/nvme-peer exactly as a peer drives a real queue), and a
 * hardware SQ, CQ and two doorbell words (the controller's side: a thread
 * reads the SQ tail the poller "rings", takes each entry and posts a
 * completion with the phase tag, as a controller does).  The peer keeps
 * every shadow SQ full, in batches of the pass's batch size, with valid
 * 4 KiB reads against a policy of 16 extents (guard-bench's headline case).
 *
 *   med-bench               the table: batch 1/8/32/64 x 1/16/256 queues,
 *                           one poller on CPU 0, peer and controller in one
 *                           thread on the last CPU polling without pause;
 *                           the batch-32 rows again with the simulated ends
 *                           pausing PACE_NS between rounds ("paced"); then
 *                           1 poller on each CPU and 2 pollers, each with
 *                           its own peer and controller inline, for 2 and
 *                           16 queues, the two pollers' queues allocated
 *                           one after the other and "apart" (SPACER idle
 *                           queues between them); then the queue
 *                           library's own cost
 *   med-bench --csv FILE    also write every run to FILE
 *   med-bench --callgrind-case [N]
 *                           N commands at batch 32 in one thread, for
 *     valgrind --tool=callgrind --toggle-collect=np_mp_pass
 *
 * "poller ns/cmd" is the time of the passes that found work (TSC around
 * each pass) divided by the commands forwarded: what a poller core spends
 * per command.  Empty passes are not counted there; "busy" is the share of
 * passes' time that found work; "ran" the share of the wall time the
 * poller threads got a CPU (other load on the machine preempts them: the
 * pass times are scaled by it, since a preemption falls in a pass with a
 * chance that grows with the pass's length).  Each figure is the median
 * of RUNS runs, with the minimum and maximum.
 *
 * Why "paced": the poller shares cache lines with both ends (shadow SQEs
 * and CQEs, hardware SQEs and CQEs, doorbells).  A simulated end on a CPU
 * polls those lines every few nanoseconds and takes each one away from the
 * poller as soon as it is written; a device reads host memory through PCIe
 * round trips of the order of a microsecond.  The unpaced rows are the
 * worst case (a CPU thread as the peer), the paced rows what a device that
 * polls once a microsecond costs the poller.  Both are printed, and the
 * target is judged on both.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "bench.h"
#include "medpass.h"
#include "nvme-peer/nvme_peer_queue.h"

#define NSID		1
#define LBA_SHIFT	9
#define NS_SIZE		BIT_ULL(32)
#define DATA_BASE	0x100000000000ULL	/* NVME_PEER_PRP_BASE's role */
#define DATA_SIZE	BIT(20)
#define DATA_DMA	0x40000000ULL
#define NR_EXTENTS	16
#define POOL		256		/* prebuilt SQEs */
#define RUNS		3
#define MAX_POLLERS	8
#define TARGET_NS	50.0
#define PACE_NS		1000		/* a PCIe read round trip */
#define SPACER		16		/* queues, about 1.7 MB */
#define LINE		128		/* a cache line and its prefetched pair */
#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

static u32 depth = 256;
static double run_secs = 0.3;
static FILE *csv;

/*
 * One queue pair: both sides, and the simulated ends' positions.  What the
 * poller writes and what the simulated ends write are on separate cache
 * lines (128 bytes: adjacent-line prefetch), or the benchmark would measure
 * false sharing that the kernel's layout does not have.
 */
struct bq {
	alignas(LINE) struct np_mp mp;
	struct np_policy policy;
	struct np_range extents[NR_EXTENTS];
	struct np_range window;
	/* the simulated ends' own, with copies of what they read of @mp */
	alignas(LINE) struct npq pq;	/* the peer's view */
	const u8 *hsq;
	struct np_mp_cqe *hcq;
	u16 qid;
	struct npq_sqe *pool;		/* prebuilt reads */
	u32 next;
	u64 reaped;			/* completions the peer consumed */
	/* the controller */
	u32 c_head;			/* next hardware SQE to take */
	u32 c_tail;			/* next hardware CQE to post */
	u16 c_phase;
	u32 *hw_db;			/* [0] SQ tail, [16] CQ head: own lines */
	u32 *sdb;
};

/* __atomic accesses; read by every thread, on a line of its own */
static alignas(LINE) int stop;

static inline u64 tsc(void)
{
#if __has_builtin(__builtin_ia32_rdtsc)
	return __builtin_ia32_rdtsc();
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
#endif
}

static double tsc_ghz;

static inline void cpu_relax(void)
{
#if __has_builtin(__builtin_ia32_pause)
	__builtin_ia32_pause();
#endif
}

static void calibrate(void)
{
	double t0 = now(), t1;
	u64 c0 = tsc(), c1;

	do {
		t1 = now();
	} while (t1 - t0 < 0.1);
	c1 = tsc();
	tsc_ghz = (c1 - c0) / (t1 - t0) / 1e9;
}

static void *zalloc(size_t size)
{
	void *p = aligned_alloc(4096, (size + 4095) & ~4095UL);

	if (!p) {
		fprintf(stderr, "out of memory\n");
		exit(1);
	}
	memset(p, 0, size);
	return p;
}

static void bq_init(struct bq *b, u16 qid)
{
	struct np_policy *p = &b->policy;
	u64 stride = NS_SIZE / NR_EXTENTS;
	u32 i, n = NR_EXTENTS, nw = 1;
	struct np_mp *mp = &b->mp;

	memset(b, 0, sizeof(*b));
	for (i = 0; i < NR_EXTENTS; i++) {
		b->extents[i].start = i * stride + stride / 8;
		b->extents[i].len = stride / 2;
	}
	b->window.start = DATA_BASE;
	b->window.len = DATA_SIZE;
	if (np_ranges_prepare(b->extents, &n) ||
	    np_ranges_prepare(&b->window, &nw)) {
		fprintf(stderr, "np_ranges_prepare failed\n");
		exit(1);
	}
	p->nsid = NSID;
	p->lba_shift = LBA_SHIFT;
	p->ns_size = NS_SIZE;
	p->opcodes[0] = 1ULL << NP_OP_READ;
	p->extents = b->extents;
	p->nr_extents = n;
	p->windows = &b->window;
	p->nr_windows = nw;
	p->max_nlb = 256;
	if (np_policy_init(p)) {
		fprintf(stderr, "np_policy_init failed\n");
		exit(1);
	}

	mp->policy = p;
	mp->depth = depth;
	mp->qid = qid;
	mp->ssq = zalloc(depth * 64);
	mp->scq = zalloc(depth * 16);
	b->sdb = zalloc(64);
	mp->sdb = b->sdb;
	mp->hsq = zalloc(depth * 64);
	mp->hcq = zalloc(depth * 16);
	b->hw_db = zalloc(128);
	mp->hsq_db = &b->hw_db[0];
	mp->hcq_db = &b->hw_db[16];
	mp->data_size = DATA_SIZE;
	mp->data_base = DATA_BASE;
	mp->data_dma = DATA_DMA;
	mp->slots = zalloc(depth * sizeof(*mp->slots));
	mp->free = zalloc(depth * sizeof(*mp->free));
	np_mp_reset(mp);

	npq_init(&b->pq, (void *)mp->ssq, mp->scq, &b->sdb[0], &b->sdb[1],
		 depth, qid);
	b->pool = zalloc(POOL * sizeof(*b->pool));
	for (i = 0; i < POOL; i++) {
		const struct np_range *e = &b->extents[rnd() % n];
		u64 slba = e->start + rnd() % (e->len - 8);

		npq_sqe_rw(&b->pool[i], NPQ_OPC_READ, NSID, slba, 8,
			   DATA_BASE + 4096 * (rnd() % (DATA_SIZE / 4096)), 0);
	}
	b->c_phase = 1;
	b->hsq = mp->hsq;
	b->hcq = (struct np_mp_cqe *)mp->hcq;
	b->qid = qid;
}

static void bq_free(struct bq *b)
{
	free((void *)b->mp.ssq);
	free(b->mp.scq);
	free(b->sdb);
	free(b->mp.hsq);
	free((void *)b->mp.hcq);
	free(b->hw_db);
	free(b->mp.slots);
	free(b->mp.free);
	free(b->pool);
}

/* The peer: consume completions, then fill the SQ in batches of @batch. */
static void peer_step(struct bq *b, u32 batch)
{
	struct npq_cqe c;
	u32 n = 0, k;

	while (npq_poll(&b->pq, &c))
		n++;
	if (n) {
		npq_ring_cq(&b->pq);
		b->reaped += n;
	}
	while (npq_space(&b->pq) >= batch) {
		for (k = 0; k < batch; k++) {
			npq_enqueue(&b->pq, &b->pool[b->next]);
			b->next = (b->next + 1) % POOL;
		}
		npq_ring_sq(&b->pq);
	}
}

/* The controller: take every rung SQE and complete it at once. */
static void ctrl_step(struct bq *b)
{
	u32 tail = __atomic_load_n(&b->hw_db[0], __ATOMIC_ACQUIRE);
	u32 cq_head = __atomic_load_n(&b->hw_db[16], __ATOMIC_ACQUIRE);
	struct np_mp_cqe *hcq = b->hcq, *cqe;
	const u8 *hsq = b->hsq;
	u16 cid;

	while (b->c_head != tail &&
	       (b->c_tail + 1) % depth != cq_head) {
		cid = *(const u16 *)(hsq + (size_t)b->c_head * 64 + 2);
		b->c_head = (b->c_head + 1) % depth;
		cqe = &hcq[b->c_tail];
		cqe->result = 0;
		cqe->sq_head = b->c_head;
		cqe->sq_id = b->qid;
		cqe->command_id = cid;
		__atomic_store_n(&cqe->status, b->c_phase, __ATOMIC_RELEASE);
		if (++b->c_tail == depth) {
			b->c_tail = 0;
			b->c_phase ^= 1;
		}
	}
}

struct run {				/* lines of its own: no false sharing */
	alignas(LINE) struct bq *qs;
	u32 first, nr;			/* this thread's queues */
	u32 batch;
	int cpu;
	int inline_sim;			/* play peer and controller too */
	/* results */
	u64 busy, total;		/* TSC in passes with work, in passes */
	u64 passes, busy_passes;
	u64 cmds;
	double ran;			/* share of the wall time it ran */
};

static void pin(int cpu)
{
	cpu_set_t set;

	if (cpu < 0)
		return;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
}

/* CPU time of the calling thread, in seconds */
static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void *poller(void *arg)
{
	struct run *r = arg;
	u64 t1, t2, fwd0 = 0;
	double c0, w0;
	u32 i, done;

	pin(r->cpu);
	c0 = thread_cpu();
	w0 = now();
	for (i = 0; i < r->nr; i++)
		fwd0 += r->qs[r->first + i].mp.forwarded;
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		if (r->inline_sim)
			for (i = 0; i < r->nr; i++)
				peer_step(&r->qs[r->first + i], r->batch);
		done = 0;
		t1 = tsc();
		for (i = 0; i < r->nr; i++)
			done += np_mp_pass(&r->qs[r->first + i].mp, r->batch);
		t2 = tsc();
		r->total += t2 - t1;
		r->passes++;
		if (done) {
			r->busy += t2 - t1;
			r->busy_passes++;
		}
		if (r->inline_sim)
			for (i = 0; i < r->nr; i++)
				ctrl_step(&r->qs[r->first + i]);
	}
	r->ran = (thread_cpu() - c0) / (now() - w0);
	for (i = 0; i < r->nr; i++)
		r->cmds += r->qs[r->first + i].mp.forwarded;
	r->cmds -= fwd0;
	return NULL;
}

struct sim {
	struct bq *qs;
	u32 nr, batch;
	int cpu;
	u32 pace_ns;			/* pause after each round */
};

static void *simulator(void *arg)
{
	struct sim *s = arg;
	u32 i;

	u64 pause = s->pace_ns * tsc_ghz, t;

	pin(s->cpu);
	while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
		for (i = 0; i < s->nr; i++) {
			peer_step(&s->qs[i], s->batch);
			ctrl_step(&s->qs[i]);
		}
		/* away from the shared lines, as a device between reads */
		for (t = tsc(); tsc() - t < pause; )
			cpu_relax();
	}
	return NULL;
}

struct result {
	double ns_cmd;			/* poller ns per command */
	double mcmds;			/* million commands per second */
	double busy;			/* share of passes' time with work */
	double ran;			/* share of the wall time pollers ran */
};

/* How a case runs (see the top of the file). */
struct how {
	const char *mode;		/* as printed */
	int inline_sim;			/* pollers play peer and controller */
	u32 pace_ns;			/* else the simulator's pause */
	int first_cpu;			/* poller i runs on CPU first_cpu + i */
	u32 spacer;			/* idle queues between pollers' */
};

static const struct how threaded = { "threaded", 0, 0, 0, 0 };
static const struct how paced = { "paced", 0, PACE_NS, 0, 0 };
static const struct how inline0 = { "inline", 1, 0, 0, 0 };
static const struct how inline1 = { "inline@1", 1, 0, 1, 0 };
static const struct how apart = { "apart", 1, 0, 0, SPACER };

/*
 * One run: @pollers threads over @nq queues; inline, each poller plays its
 * queues' peer and controller, else one simulator thread on the last CPU
 * plays them all.
 */
static struct result run_once(u32 nq, u32 batch, u32 pollers,
			      const struct how *how)
{
	u32 all = nq + how->spacer * (pollers - 1);
	int inline_sim = how->inline_sim;
	struct bq *qs = zalloc(all * sizeof(*qs));
	struct run r[MAX_POLLERS];
	pthread_t t[MAX_POLLERS], st;
	struct sim s = { qs, nq, batch, -1, how->pace_ns };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	double busy = 0, ran = 0;
	u64 cmds = 0, total = 0;
	struct result res;
	double t0, secs;
	u32 i;

	for (i = 0; i < all; i++)
		bq_init(&qs[i], i + 1);
	__atomic_store_n(&stop, 0, __ATOMIC_RELAXED);
	for (i = 0; i < pollers; i++) {
		memset(&r[i], 0, sizeof(r[i]));
		r[i].qs = qs;
		r[i].first = nq * i / pollers;
		r[i].nr = nq * (i + 1) / pollers - r[i].first;
		r[i].first += i * how->spacer;
		r[i].batch = batch;
		r[i].cpu = (how->first_cpu + i) % ncpu;
		r[i].inline_sim = inline_sim;
	}
	if (!inline_sim) {
		s.cpu = ncpu - 1;
		pthread_create(&st, NULL, simulator, &s);
	}
	t0 = now();
	for (i = 0; i < pollers; i++)
		pthread_create(&t[i], NULL, poller, &r[i]);
	usleep(run_secs * 1e6);
	__atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
	for (i = 0; i < pollers; i++) {
		pthread_join(t[i], NULL);
		/* preempted time falls in passes by their length: scale */
		busy += r[i].busy * r[i].ran;
		ran += r[i].ran / pollers;
		total += r[i].total;
		cmds += r[i].cmds;
	}
	secs = now() - t0;
	if (!inline_sim)
		pthread_join(st, NULL);
	for (i = 0; i < all; i++) {
		if (qs[i].mp.rejected || qs[i].mp.bad_doorbells) {
			fprintf(stderr, "queue %u: %llu rejected, %llu bad doorbells\n",
				i, (unsigned long long)qs[i].mp.rejected,
				(unsigned long long)qs[i].mp.bad_doorbells);
			exit(1);
		}
		bq_free(&qs[i]);
	}
	free(qs);
	res.ns_cmd = cmds ? busy / tsc_ghz / cmds : 0;
	res.mcmds = cmds / secs / 1e6;
	res.busy = total ? busy / total : 0;
	res.ran = ran;
	return res;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* median, min, max of @n values */
static void stats(double *v, int n, double out[3])
{
	qsort(v, n, sizeof(*v), cmp_double);
	out[0] = v[n / 2];
	out[1] = v[0];
	out[2] = v[n - 1];
}

static double loadavg(void)
{
	double l[3] = { -1, -1, -1 };

	if (getloadavg(l, 3) < 1)
		return -1;
	return l[0];
}

/* Run a case RUNS times and print (and log) its line. */
static struct result measure(const struct how *how, u32 nq, u32 batch,
			     u32 pollers)
{
	const char *mode = how->mode;
	double ns[RUNS], m[RUNS], busy[RUNS], ran[RUNS], sn[3], sm[3], sb[3];
	double sr[3];
	double load = loadavg();
	struct result r;
	int i;

	for (i = 0; i < RUNS; i++) {
		r = run_once(nq, batch, pollers, how);
		ns[i] = r.ns_cmd;
		m[i] = r.mcmds;
		busy[i] = r.busy;
		ran[i] = r.ran;
	}
	stats(ns, RUNS, sn);
	stats(m, RUNS, sm);
	stats(busy, RUNS, sb);
	stats(ran, RUNS, sr);
	printf("%-8s %7u %6u %5u %8.1f (%5.1f-%5.1f) %7.2f (%5.2f-%5.2f) %4.0f%% %4.0f%% %5.2f\n",
	       mode, pollers, nq, batch, sn[0], sn[1], sn[2], sm[0], sm[1],
	       sm[2], sb[0] * 100, sr[0] * 100, load);
	fflush(stdout);
	if (csv)
		fprintf(csv, "native,%s,%u,%u,%u,%u,%.2f,%.2f,%.2f,%.3f,%.3f,%.3f,%.3f,%.2f\n",
			mode, pollers, nq, batch, NR_EXTENTS, sn[0], sn[1],
			sn[2], sm[0], sm[1], sm[2], sb[0], load);
	r.ns_cmd = sn[0];
	r.mcmds = sm[0];
	r.busy = sb[0];
	return r;
}

/* The queue library alone: submit (enqueue + ring) and reap (poll + ring). */
static void library_cost(void)
{
	double sub[RUNS], reap[RUNS], s[3], p[3];
	u64 ts, tr, n, c0;
	struct npq_cqe c;
	struct bq b;
	u32 k, i, x;
	int run;

	bq_init(&b, 1);
	for (run = 0; run < RUNS; run++) {
		ts = 0;
		tr = 0;
		n = 0;
		while (n < 4000000) {
			c0 = tsc();
			for (k = 0; k < 32; k++) {
				npq_enqueue(&b.pq, &b.pool[b.next]);
				b.next = (b.next + 1) % POOL;
			}
			npq_ring_sq(&b.pq);
			ts += tsc() - c0;
			/* complete them in the shadow CQ, as the poller does */
			for (k = 0; k < 32; k++) {
				struct np_mp_cqe *e = (struct np_mp_cqe *)b.mp.scq +
						      b.mp.scq_tail;

				i = b.mp.ssq_head;
				b.mp.ssq_head = (i + 1) % depth;
				e->sq_head = b.mp.ssq_head;
				e->command_id = k;
				__atomic_store_n(&e->status, b.mp.scq_phase,
						 __ATOMIC_RELEASE);
				if (++b.mp.scq_tail == depth) {
					b.mp.scq_tail = 0;
					b.mp.scq_phase ^= 1;
				}
			}
			c0 = tsc();
			for (x = 0; npq_poll(&b.pq, &c); x++)
				;
			npq_ring_cq(&b.pq);
			tr += tsc() - c0;
			n += x;
		}
		sub[run] = ts / tsc_ghz / n;
		reap[run] = tr / tsc_ghz / n;
	}
	bq_free(&b);
	stats(sub, RUNS, s);
	stats(reap, RUNS, p);
	printf("\nqueue library (tools/lib/nvme-peer), batch 32, one thread: ");
	printf("submit %.1f ns (%.1f-%.1f) + reap %.1f ns (%.1f-%.1f)",
	       s[0], s[1], s[2], p[0], p[1], p[2]);
	printf(" = %.1f ns per command; load %.2f\n", s[0] + p[0], loadavg());
	if (csv)
		fprintf(csv, "native,library,1,1,32,%u,%.2f,%.2f,%.2f,,,,,%.2f\n",
			NR_EXTENTS, s[0] + p[0], s[1] + p[1], s[2] + p[2],
			loadavg());
}

/* For callgrind: @n commands at batch 32, inline, one queue, one thread. */
static void callgrind_case(u64 n)
{
	struct bq b;
	u64 fwd = 0;

	bq_init(&b, 1);
	while (fwd < n) {
		peer_step(&b, 32);
		np_mp_pass(&b.mp, 32);
		ctrl_step(&b);
		fwd = b.mp.forwarded;
	}
	printf("commands: %llu\n", (unsigned long long)fwd);
	bq_free(&b);
}

/* One line of the verdict on the headline target. */
static void verdict(const char *mode, const struct result *r)
{
	printf("target: <= %.0f ns of poller CPU per command at batch 32 ",
	       TARGET_NS);
	printf("(16 queues, %s): %.1f ns, %s", mode, r->ns_cmd,
	       r->ns_cmd <= TARGET_NS ? "met" : "MISSED");
	if (r->ns_cmd > TARGET_NS)
		printf(" by %.1f ns", r->ns_cmd - TARGET_NS);
	printf(" (%.1f M commands/s per poller core at that cost)\n",
	       r->ns_cmd ? 1e3 / r->ns_cmd : 0);
}

int main(int argc, char **argv)
{
	static const u32 batches[] = { 1, 8, 32, 64 };
	static const u32 queues[] = { 1, 16, 256 };
	static const u32 scale_queues[] = { 2, 16 };
	long ncpu = sysconf(_SC_NPROCESSORS_ONLN);
	struct result one, one1, two, twoa, head = { 0 }, headp;
	unsigned int i, j;

	for (i = 1; i < (unsigned int)argc; i++) {
		if (!strcmp(argv[i], "--callgrind-case")) {
			callgrind_case(i + 1 < (unsigned int)argc ?
				       strtoull(argv[i + 1], NULL, 0) : 1000000);
			return 0;
		} else if (!strcmp(argv[i], "--csv") && i + 1 < (unsigned int)argc) {
			csv = fopen(argv[++i], "w");
			if (!csv) {
				perror(argv[i]);
				return 1;
			}
		} else if (!strcmp(argv[i], "--secs") && i + 1 < (unsigned int)argc) {
			run_secs = atof(argv[++i]);
		} else {
			fprintf(stderr, "usage: %s [--csv FILE] [--secs S] %s\n",
				argv[0], "[--callgrind-case [N]]");
			return 2;
		}
	}
	calibrate();
	if (csv)
		fprintf(csv, "%s%s\n",
			"where,mode,pollers,queues,batch,extents,ns_per_cmd,",
			"ns_min,ns_max,mcmds,mcmds_min,mcmds_max,busy,load1");
	printf("med-bench: mediated pass (drivers/nvme/peer/medpass.c), ");
	printf("depth %u, %u extents, valid 4 KiB reads; %ld CPUs, TSC %.2f GHz; ",
	       depth, NR_EXTENTS, ncpu, tsc_ghz);
	printf("median (min-max) of %d runs of %.1f s\n",
	       RUNS, run_secs);
	printf("threaded: poller on CPU 0, peer + controller in one thread ");
	printf("on CPU %ld, polling without pause\n", ncpu - 1);
	printf("paced:    the same, the peer + controller thread pausing ");
	printf("%u ns after each round (a device's read round trip)\n",
	       PACE_NS);
	printf("inline:   each poller thread (CPU i; inline@1: CPU 1) plays its own queues' ");
	printf("peer and controller\n\n");
	printf("%-8s %7s %6s %5s %21s %21s %5s %5s %5s\n", "mode", "pollers",
	       "queues", "batch", "poller ns/cmd", "Mcmd/s", "busy", "ran",
	       "load");
	for (j = 0; j < ARRAY_SIZE(queues); j++)
		for (i = 0; i < ARRAY_SIZE(batches); i++) {
			struct result r = measure(&threaded, queues[j],
						  batches[i], 1);

			if (batches[i] == 32 && queues[j] == 16)
				head = r;
		}
	printf("\n");
	for (j = 0; j < ARRAY_SIZE(queues); j++) {
		struct result r = measure(&paced, queues[j], 32, 1);

		if (queues[j] == 16)
			headp = r;
	}
	printf("\n");
	for (j = 0; j < ARRAY_SIZE(scale_queues); j++) {
		u32 nq = scale_queues[j];

		one = measure(&inline0, nq, 32, 1);
		one1 = ncpu > 1 ? measure(&inline1, nq, 32, 1) : one;
		two = measure(&inline0, nq, 32, 2);
		twoa = measure(&apart, nq, 32, 2);
		printf("  %u queues: 2 pollers / 1 poller %.2fx the commands/s (apart %.2fx)",
		       nq, one.mcmds ? two.mcmds / one.mcmds : 0,
		       one.mcmds ? twoa.mcmds / one.mcmds : 0);
		if (ncpu > 1)
			printf("; %.2f (apart %.2f) of what CPU 0 and CPU 1 move each alone\n",
			       two.mcmds / (one.mcmds + one1.mcmds),
			       twoa.mcmds / (one.mcmds + one1.mcmds));
		else
			printf(" (one CPU: no room to scale)\n");
	}
	library_cost();
	printf("\n");
	verdict("threaded", &head);
	verdict("paced", &headp);
	if (csv)
		fclose(csv);
	return 0;
}
