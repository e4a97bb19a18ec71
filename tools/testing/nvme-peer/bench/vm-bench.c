// SPDX-License-Identifier: GPL-2.0
/*
 * In-VM half of `make bench` (scripts/bench): kernel CPU per I/O of the
 * block path and of peer queues, and the costs of reservations.  Static,
 * no liburing: io_uring through its system calls.
 *
 *   vm-bench io MODE QD SECS     4 KiB random reads for SECS seconds at
 *                                queue depth QD; MODE is uring (O_DIRECT on
 *                                /dev/nvme0n1), uring-cmd (passthrough on
 *                                /dev/ng0n1), mediated, direct or isolated
 *                                (a peer queue driven with
 *                                tools/lib/nvme-peer; isolated on namespace
 *                                2, attached to a VF of its own)
 *
 * NP_BENCH_CTRL (0), NP_BENCH_BDEV (/dev/nvme0n1), NP_BENCH_CDEV
 * (/dev/ng0n1) name the controller and namespace 1's devices where they
 * are others (the sriov topology); NP_BENCH_SPAN_MB (256) the bytes the
 * random reads cover, from LBA 0.
 *   vm-bench window SECS         (two-ctrl topology) random reads of
 *                                namespace 2 through a read-only window
 *                                (CPU loads: 64 and 512 bytes), beside
 *                                512-byte reads of the same namespace
 *                                through io_uring O_DIRECT and a mediated
 *                                peer queue at QD 1 and 32: reads/s, CPU
 *                                per read, and the ratios (NP_BENCH_FILL=1:
 *                                pseudo-random bytes in the namespace first)
 *   vm-bench life N              reserve, release, attach and recycle
 *                                latency (means of N), revocation latency
 *                                on reset
 *   vm-bench mem                 memory per reservation, 1/16/4096/65536
 *                                extents
 *
 * Every line printed is "NP-BENCH key=value ...": scripts/bench collects
 * them.  Kernel CPU is what /proc/stat counts as system, irq and softirq
 * time over the run on every CPU (tick-sampled: this kernel has neither
 * IRQ_TIME_ACCOUNTING nor SCHEDSTATS), split into the submitter's system
 * time, the pollers' and the kworkers' from /proc/PID/stat.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>
#include <linux/io_uring.h>
#include <linux/nvme_ioctl.h>
#include <linux/nvme_peer.h>

#include "bench.h"
#include "nvme-peer/nvme_peer_queue.h"

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))

/* the span the reads cover, MiB: NP_BENCH_SPAN_MB, the VM's namespace */
static unsigned long long span_mb = 256;
/* the bytes of a read (a multiple of the 512 B LBA) and its namespace */
static unsigned int io_bs = 4096, io_nsid = 1;

/* a random LBA aligned to the read size (512 B LBAs) */
static unsigned long long rnd_lba(void)
{
	return rnd() % ((span_mb << 20) / io_bs) * (io_bs >> 9);
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

static int read_file(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY), n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = 0;
	return n;
}

/* ---- CPU accounting ----------------------------------------------------- */

struct cpu {
	long long sys, irq, softirq, total;	/* /proc/stat, all CPUs */
	long long self, poller, kworker;	/* stime of those threads */
};

/* stime (field 15) of /proc/PID/stat, and its comm */
static long long stime_of(const char *pid, char *comm, size_t len)
{
	char path[64], buf[1024], *p;
	long long v = 0;
	int i;

	snprintf(path, sizeof(path), "/proc/%s/stat", pid);
	if (read_file(path, buf, sizeof(buf)) < 0)
		return 0;
	p = strchr(buf, '(');
	if (comm && p) {
		snprintf(comm, len, "%.*s", (int)(strrchr(buf, ')') - p - 1),
			 p + 1);
	}
	p = strrchr(buf, ')');
	for (i = 0; p && i < 13; i++)
		p = strchr(p + 1, ' ');
	if (p)
		v = strtoll(p + 1, NULL, 10);
	return v;
}

static void cpu_sample(struct cpu *c)
{
	long long v[8] = { 0 };
	char buf[4096], comm[64];
	struct dirent *d;
	DIR *dir;
	int i;

	memset(c, 0, sizeof(*c));
	if (read_file("/proc/stat", buf, sizeof(buf)) > 0)
		sscanf(buf, "cpu %lld %lld %lld %lld %lld %lld %lld %lld",
		       &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7]);
	c->sys = v[2];
	c->irq = v[5];
	c->softirq = v[6];
	for (i = 0; i < 8; i++)
		c->total += v[i];
	c->self = stime_of("self", NULL, 0);
	dir = opendir("/proc");
	while (dir && (d = readdir(dir))) {
		long long s;

		if (d->d_name[0] < '0' || d->d_name[0] > '9')
			continue;
		s = stime_of(d->d_name, comm, sizeof(comm));
		if (!strncmp(comm, "nvme-peer-med", 13))
			c->poller += s;
		else if (!strncmp(comm, "kworker", 7))
			c->kworker += s;
	}
	if (dir)
		closedir(dir);
}

/* ---- io_uring ----------------------------------------------------------- */

struct ring {
	int fd;
	unsigned int *sq_head, *sq_tail, *sq_mask, *sq_array;
	unsigned int *cq_head, *cq_tail, *cq_mask;
	void *sqes, *cqes;
	size_t sqe_size, cqe_size;
};

static int ring_init(struct ring *r, unsigned int entries, unsigned int flags)
{
	struct io_uring_params p = { .flags = flags };
	void *sq, *cq;

	r->fd = syscall(__NR_io_uring_setup, entries, &p);
	if (r->fd < 0)
		return -1;
	r->sqe_size = flags & IORING_SETUP_SQE128 ? 128 : 64;
	r->cqe_size = flags & IORING_SETUP_CQE32 ? 32 : 16;
	sq = mmap(NULL, p.sq_off.array + p.sq_entries * 4, PROT_READ | PROT_WRITE,
		  MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQ_RING);
	cq = mmap(NULL, p.cq_off.cqes + p.cq_entries * r->cqe_size,
		  PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, r->fd,
		  IORING_OFF_CQ_RING);
	r->sqes = mmap(NULL, p.sq_entries * r->sqe_size, PROT_READ | PROT_WRITE,
		       MAP_SHARED | MAP_POPULATE, r->fd, IORING_OFF_SQES);
	if (sq == MAP_FAILED || cq == MAP_FAILED || r->sqes == MAP_FAILED)
		return -1;
	r->sq_head = sq + p.sq_off.head;
	r->sq_tail = sq + p.sq_off.tail;
	r->sq_mask = sq + p.sq_off.ring_mask;
	r->sq_array = sq + p.sq_off.array;
	r->cq_head = cq + p.cq_off.head;
	r->cq_tail = cq + p.cq_off.tail;
	r->cq_mask = cq + p.cq_off.ring_mask;
	r->cqes = cq + p.cq_off.cqes;
	return 0;
}

/* The next free SQE, zeroed; the caller fills it. */
static struct io_uring_sqe *ring_sqe(struct ring *r)
{
	unsigned int tail = *r->sq_tail, i = tail & *r->sq_mask;
	struct io_uring_sqe *sqe = (void *)((char *)r->sqes + i * r->sqe_size);

	memset(sqe, 0, r->sqe_size);
	r->sq_array[i] = i;
	__atomic_store_n(r->sq_tail, tail + 1, __ATOMIC_RELEASE);
	return sqe;
}

/* Reap what completed; the number, or -1 on an I/O error. */
static int ring_reap(struct ring *r)
{
	unsigned int head = *r->cq_head, n = 0;
	struct io_uring_cqe *cqe;

	while (head != __atomic_load_n(r->cq_tail, __ATOMIC_ACQUIRE)) {
		cqe = (void *)((char *)r->cqes + (head & *r->cq_mask) *
			       r->cqe_size);
		if (cqe->res < 0) {
			fprintf(stderr, "io_uring: %s\n", strerror(-cqe->res));
			return -1;
		}
		head++;
		n++;
	}
	__atomic_store_n(r->cq_head, head, __ATOMIC_RELEASE);
	return n;
}

static void prep_read(struct ring *r, int fd, void *buf, int cmd)
{
	struct io_uring_sqe *sqe = ring_sqe(r);
	unsigned long long lba = rnd_lba();

	sqe->fd = fd;
	if (!cmd) {
		sqe->opcode = IORING_OP_READ;
		sqe->addr = (uintptr_t)buf;
		sqe->len = io_bs;
		sqe->off = lba * 512;
	} else {
		struct nvme_uring_cmd *c = (void *)sqe->cmd;

		sqe->opcode = IORING_OP_URING_CMD;
		sqe->cmd_op = NVME_URING_CMD_IO;
		c->opcode = 2;		/* Read */
		c->nsid = io_nsid;
		c->addr = (uintptr_t)buf;
		c->data_len = io_bs;
		c->cdw10 = (uint32_t)lba;
		c->cdw11 = lba >> 32;
		c->cdw12 = (io_bs >> 9) - 1;	/* LBAs, 0-based */
	}
}

/* Keep @qd reads in flight for @secs; the number completed. */
static long long run_uring(int cmd, int qd, double secs)
{
	const char *dev = cmd ? env_or("NP_BENCH_CDEV", "/dev/ng0n1") :
				env_or("NP_BENCH_BDEV", "/dev/nvme0n1");
	int fd = open(dev, O_RDONLY | (cmd ? 0 : O_DIRECT)), i, n, pending;
	unsigned int flags = cmd ? IORING_SETUP_SQE128 | IORING_SETUP_CQE32 : 0;
	char *bufs = aligned_alloc(4096, (size_t)qd * 4096);
	unsigned int loops = 0;
	long long done = 0;
	struct ring r;
	double end;

	if (fd < 0 || !bufs || ring_init(&r, qd, flags)) {
		fprintf(stderr, "%s: %s\n", dev, strerror(errno));
		return -1;
	}
	for (i = 0; i < qd; i++)
		prep_read(&r, fd, bufs + (size_t)i * 4096, cmd);
	pending = qd;
	end = now() + secs;
	do {
		if (syscall(__NR_io_uring_enter, r.fd, pending, 1,
			    IORING_ENTER_GETEVENTS, NULL, 0) < 0) {
			perror("io_uring_enter");
			return -1;
		}
		n = ring_reap(&r);
		if (n < 0)
			return -1;
		done += n;
		for (i = 0; i < n; i++)
			prep_read(&r, fd, bufs + (size_t)(rnd() % qd) * 4096, cmd);
		pending = n;
	} while (++loops % 16 || now() < end);
	close(r.fd);
	close(fd);
	free(bufs);
	return done;
}

/* ---- peer queues -------------------------------------------------------- */

/* the namespace an isolated queue reads: attached to its VF only */
#define ISO_NSID	2

struct pq {
	int fd;
	struct nvme_peer_info info;
	void *sq, *cq, *db, *data;
	struct npq q;
};

static int pq_reserve(struct pq *p, int mode, int depth, size_t data_size,
		      unsigned int nr_ext, struct nvme_peer_extent *ext)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .depth = depth,
		.ctrl = atoi(env_or("NP_BENCH_CTRL", "0")),
		.nsid = mode == NVME_PEER_MODE_ISOLATED ? ISO_NSID : io_nsid,
		.sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = NVME_PEER_PLACE_HOST, .data_size = data_size,
		.mode = mode, .nr_extents = nr_ext, .extents = (uintptr_t)ext,
	};
	int i;

	p->fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		return -1;
	for (i = 0; i < 100; i++) {
		if (!ioctl(p->fd, NVME_PEER_IOC_RESERVE, &r))
			return r.qid;
		if (errno != EAGAIN)
			break;
		usleep(100000);
	}
	close(p->fd);
	return -1;
}

static int pq_map(struct pq *p)
{
	struct nvme_peer_info *i = &p->info;

	memset(i, 0, sizeof(*i));
	i->size = sizeof(*i);
	if (ioctl(p->fd, NVME_PEER_IOC_QUERY, i))
		return -1;
	p->sq = mmap(NULL, i->sq_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     p->fd, i->sq_off);
	p->cq = mmap(NULL, i->cq_size, PROT_READ, MAP_SHARED, p->fd, i->cq_off);
	p->db = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, p->fd,
		     i->db_off);
	p->data = mmap(NULL, i->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       p->fd, i->data_off);
	if (p->sq == MAP_FAILED || p->cq == MAP_FAILED ||
	    p->db == MAP_FAILED || p->data == MAP_FAILED)
		return -1;
	npq_init(&p->q, p->sq, p->cq, (char *)p->db + i->sq_db_in_page,
		 (char *)p->db + i->cq_db_in_page, i->depth, i->qid);
	return 0;
}

/* A queue of @mode for @qd reads in flight, reserved and mapped: 0 or -1. */
static int pq_setup(struct pq *p, int mode, int qd)
{
	if (pq_reserve(p, mode, 256, (size_t)qd * 4096, 0, NULL) < 0 ||
	    pq_map(p)) {
		perror("reserve");
		return -1;
	}
	return 0;
}

/* Keep @qd reads in flight on @p for @secs; the number completed. */
static long long run_peer(struct pq *p, int qd, double secs)
{
	__u32 nsid = p->info.nsid;
	struct npq_sqe e;
	struct npq_cqe c;
	long long done = 0;
	int inflight = 0, n;
	unsigned int loops = 0;
	double end;

	end = now() + secs;
	do {
		while (inflight < qd) {
			npq_sqe_rw(&e, NPQ_OPC_READ, nsid, rnd_lba(), io_bs >> 9,
				   p->info.data_ctrl_addr +
				   (rnd() % qd) * 4096, 0);
			if (npq_enqueue(&p->q, &e) < 0)
				break;
			inflight++;
		}
		npq_ring_sq(&p->q);
		for (n = 0; npq_poll(&p->q, &c); n++) {
			if (npq_cqe_status(&c)) {
				fprintf(stderr, "status %#x\n", npq_cqe_status(&c));
				return -1;
			}
		}
		if (n)
			npq_ring_cq(&p->q);
		inflight -= n;
		done += n;
		/* the clock may be a system call (hpet): look rarely */
	} while (++loops % 65536 || now() < end);
	while (inflight)
		if (npq_poll(&p->q, &c)) {
			inflight--;
			npq_ring_cq(&p->q);
		}
	return done;
}

/* a read-only window's view (vm-bench window): the "window" mode reads it */
static const unsigned char *win_view;
static size_t win_size;

/*
 * Random @io_bs-byte reads of the window's view for @secs: a memcpy() of
 * each to a local buffer (CPU loads), at offsets aligned to the read size.
 */
static long long run_window(double secs)
{
	unsigned long long slots = win_size / io_bs, r;
	unsigned long long mask = slots & (slots - 1) ? 0 : slots - 1;
	char buf[4096];
	long long done = 0;
	double end = now() + secs;
	int i;

	if (!win_view || !slots || io_bs > sizeof(buf))
		return -1;
	do {
		for (i = 0; i < 4096; i++) {
			r = rnd();
			r = mask ? r & mask : r % slots;
			memcpy(buf, win_view + r * io_bs, io_bs);
			/* the copy is used: the compiler keeps it */
			__asm__ __volatile__("" : : "r"(buf) : "memory");
		}
		done += i;
	} while (now() < end);
	return done;
}

/* One run: the reads completed and what they cost. */
struct run {
	long long n;
	double secs;		/* wall time */
	double thread_s;	/* the reading thread's CPU time, user + system */
	struct cpu a, b;	/* before and after */
};

static double thread_cpu(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Run @mode at @qd for @secs: 0, 1 on a failure, 2 for an unknown mode. */
static int io_run(const char *mode, int qd, double secs, struct run *r)
{
	struct pq p = { .fd = -1 };
	int peer = -1;
	double t0, c0;

	if (!strcmp(mode, "mediated"))
		peer = NVME_PEER_MODE_MEDIATED;
	else if (!strcmp(mode, "direct"))
		peer = NVME_PEER_MODE_DIRECT;
	else if (!strcmp(mode, "isolated"))
		peer = NVME_PEER_MODE_ISOLATED;
	else if (strcmp(mode, "uring") && strcmp(mode, "uring-cmd") &&
		 strcmp(mode, "window"))
		return 2;
	/* before the clock: an isolated reserve brings up a VF */
	if (peer >= 0 && pq_setup(&p, peer, qd))
		return 1;

	cpu_sample(&r->a);
	c0 = thread_cpu();
	t0 = now();
	if (!strcmp(mode, "uring"))
		r->n = run_uring(0, qd, secs);
	else if (!strcmp(mode, "uring-cmd"))
		r->n = run_uring(1, qd, secs);
	else if (!strcmp(mode, "window"))
		r->n = run_window(secs);
	else
		r->n = run_peer(&p, qd, secs);
	r->secs = now() - t0;
	r->thread_s = thread_cpu() - c0;
	cpu_sample(&r->b);
	if (p.fd >= 0)
		close(p.fd);
	return r->n > 0 ? 0 : 1;
}

/* us per read of @ticks (clock ticks over @r) */
static double tick_us(const struct run *r, long long ticks)
{
	return ticks * 1e6 / sysconf(_SC_CLK_TCK) / r->n;
}

static int cmd_io(const char *mode, int qd, double secs)
{
	long long ksys;
	char cs[64] = "?";
	struct run r;
	int ret;

	read_file("/sys/devices/system/clocksource/clocksource0/current_clocksource",
		  cs, sizeof(cs));
	cs[strcspn(cs, "\n")] = 0;
	ret = io_run(mode, qd, secs, &r);
	if (ret)
		return ret;
	ksys = r.b.sys + r.b.irq + r.b.softirq - r.a.sys - r.a.irq - r.a.softirq;
	printf("NP-BENCH kind=io mode=%s qd=%d ios=%lld secs=%.2f iops=%.0f ",
	       mode, qd, r.n, r.secs, r.n / r.secs);
	printf("kcpu_us=%.2f sys_us=%.2f irq_us=%.2f softirq_us=%.2f ",
	       tick_us(&r, ksys), tick_us(&r, r.b.sys - r.a.sys),
	       tick_us(&r, r.b.irq - r.a.irq),
	       tick_us(&r, r.b.softirq - r.a.softirq));
	printf("self_us=%.2f poller_us=%.2f kworker_us=%.2f busy_pct=%.1f clocksource=%s\n",
	       tick_us(&r, r.b.self - r.a.self),
	       tick_us(&r, r.b.poller - r.a.poller),
	       tick_us(&r, r.b.kworker - r.a.kworker),
	       100.0 * ksys / (r.b.total - r.a.total ? r.b.total - r.a.total : 1),
	       cs);
	return 0;
}

/* ---- reservation life --------------------------------------------------- */

#define NP_PEER_DIR "/sys/class/nvme/nvme0/peer/"
#define NP_CFS_DIR "/sys/kernel/config/nvme-peer/nvme0"

static int peer_write(const char *file, const char *val)
{
	int fd = open(file, O_WRONLY), ok;

	if (fd < 0)
		return -1;
	ok = write(fd, val, strlen(val)) == (ssize_t)strlen(val);
	close(fd);
	return ok ? 0 : -1;
}

/*
 * Recycle: a reservation an administrator made in configfs, attached through
 * /dev/nvme-peer and let go by close(), which recycles its queues (deleted
 * and created again, empty) for the next process.
 */
static int life_recycle(int n)
{
	struct nvme_peer_attach a = { .size = sizeof(a) };
	double t0, att = 0, rec = 0;
	char buf[64], val[128];
	int i, fd;

	if (read_file(NP_PEER_DIR "first_qid", buf, sizeof(buf)) < 0)
		return 1;
	a.qid = atoi(buf);
	snprintf(val, sizeof(val), "%u", a.qid);
	mkdir(NP_CFS_DIR, 0755);
	if (mkdir(NP_CFS_DIR "/bench", 0755) ||
	    peer_write(NP_CFS_DIR "/bench/nsid", "1") ||
	    peer_write(NP_CFS_DIR "/bench/data_placement", "host") ||
	    peer_write(NP_CFS_DIR "/bench/data_size", "4096") ||
	    peer_write(NP_CFS_DIR "/bench/qid", val) ||
	    peer_write(NP_CFS_DIR "/bench/uid", "0") ||
	    peer_write(NP_CFS_DIR "/bench/enable", "1"))
		return 1;
	for (i = 0; i < n; i++) {
		fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
		t0 = now();
		if (fd < 0 || ioctl(fd, NVME_PEER_IOC_ATTACH, &a))
			return 1;
		att += now() - t0;
		t0 = now();
		close(fd);		/* detach: the queues are recycled */
		rec += now() - t0;
	}
	rmdir(NP_CFS_DIR "/bench");
	rmdir(NP_CFS_DIR);
	printf("NP-BENCH kind=life op=attach n=%d us=%.1f\n", n, att * 1e6 / n);
	printf("NP-BENCH kind=life op=recycle n=%d us=%.1f\n", n, rec * 1e6 / n);
	return 0;
}

static int cmd_life(int n)
{
	double t0, res = 0, rel = 0, rev;
	struct pollfd pfd;
	struct pq p;
	int i, fd;

	for (i = 0; i < n; i++) {
		t0 = now();
		if (pq_reserve(&p, NVME_PEER_MODE_MEDIATED, 64, 4096, 0, NULL) < 0)
			return 1;
		res += now() - t0;
		t0 = now();
		close(p.fd);		/* release */
		rel += now() - t0;
	}
	printf("NP-BENCH kind=life op=reserve n=%d us=%.1f\n", n, res * 1e6 / n);
	printf("NP-BENCH kind=life op=release n=%d us=%.1f\n", n, rel * 1e6 / n);
	if (life_recycle(n))
		return 1;

	/* revocation on reset: from the reset request to POLLPRI */
	if (pq_reserve(&p, NVME_PEER_MODE_MEDIATED, 64, 4096, 0, NULL) < 0)
		return 1;
	fd = open("/sys/class/nvme/nvme0/reset_controller", O_WRONLY);
	if (fd < 0)
		return 1;
	pfd.fd = p.fd;
	pfd.events = POLLPRI;
	t0 = now();
	if (write(fd, "1", 1) != 1)
		return 1;
	if (poll(&pfd, 1, 30000) != 1)
		return 1;
	rev = now() - t0;
	close(fd);
	close(p.fd);
	printf("NP-BENCH kind=life op=revoke-on-reset n=1 us=%.1f\n", rev * 1e6);
	sleep(2);		/* the controller comes back */
	return 0;
}

static long long mem_free_kb(void)
{
	char buf[4096], *p;

	if (read_file("/proc/meminfo", buf, sizeof(buf)) < 0)
		return 0;
	p = strstr(buf, "MemFree:");
	return p ? strtoll(p + 8, NULL, 10) : 0;
}

static int cmd_mem(void)
{
	static const unsigned int nrs[] = { 1, 16, 4096, 65536 };
	struct nvme_peer_extent *ext;
	unsigned int i, k;
	long long before, after;
	struct pq p;

	ext = calloc(65536, sizeof(*ext));
	if (!ext)
		return 1;
	for (k = 0; k < 65536; k++) {
		ext[k].slba = k * 8ULL;
		ext[k].nlb = 4;
	}
	for (i = 0; i < ARRAY_SIZE(nrs); i++) {
		sync();
		before = mem_free_kb();
		if (pq_reserve(&p, NVME_PEER_MODE_MEDIATED, 64, 4096, nrs[i],
			       ext) < 0) {
			printf("NP-BENCH kind=mem extents=%u error=%d\n", nrs[i],
			       errno);
			continue;
		}
		after = mem_free_kb();
		close(p.fd);
		printf("NP-BENCH kind=mem extents=%u kib=%lld\n", nrs[i],
		       before - after);
		usleep(200000);
	}
	free(ext);
	return 0;
}

/* ---- windows ------------------------------------------------------------ */

/* the two-ctrl topology: nvme0's PMR shows its namespace 2 (512 MiB) */
#define WIN_NSID	2
/* 512-byte blocks compared between the window and the block device */
#define WIN_CHECKS	64

/*
 * Declare @ctrl's PMR as showing WIN_NSID and map a window of the whole
 * namespace into win_view: the /dev/nvme-peer file, or -1.
 */
static int win_open(int ctrl)
{
	struct nvme_peer_window_req r;
	char dir[96], file[128];
	void *v;
	int fd, i;

	snprintf(dir, sizeof(dir), "/sys/kernel/config/nvme-peer/nvme%d", ctrl);
	snprintf(file, sizeof(file), "%s/pmr_nsid", dir);
	mkdir(dir, 0755);
	if (peer_write(file, "2"))
		return -1;
	for (i = 0; i < 100; i++) {
		fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
		if (fd < 0)
			return -1;
		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.ctrl = ctrl;
		r.nsid = WIN_NSID;
		if (!ioctl(fd, NVME_PEER_IOC_WINDOW, &r))
			break;
		close(fd);
		fd = -1;
		if (errno != EAGAIN)
			return -1;
		usleep(100000);
	}
	if (fd < 0)
		return -1;
	v = mmap(NULL, r.view_size, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	if (v == MAP_FAILED) {
		close(fd);
		return -1;
	}
	win_view = v;
	win_size = r.view_size;
	return fd;
}

/* /dev/nvmeXnY of @ctrl's namespace @nsid (/sys/block/nvmeXn*'s nsid) */
static int ns_bdev(int ctrl, unsigned int nsid, char *dev, size_t len)
{
	const size_t pre = strlen("/sys/block/");
	char pat[64], buf[32];
	int ret = -1;
	size_t i;
	glob_t g;

	snprintf(pat, sizeof(pat), "/sys/block/nvme%dn*/nsid", ctrl);
	if (glob(pat, 0, NULL, &g))
		return -1;
	for (i = 0; i < g.gl_pathc && ret; i++) {
		if (read_file(g.gl_pathv[i], buf, sizeof(buf)) < 0 ||
		    strtoul(buf, NULL, 0) != nsid)
			continue;
		snprintf(dev, len, "/dev/%.*s",
			 (int)(strrchr(g.gl_pathv[i], '/') - g.gl_pathv[i] - pre),
			 g.gl_pathv[i] + pre);
		ret = 0;
	}
	globfree(&g);
	return ret;
}

/* Fill @dev with pseudo-random bytes (O_DIRECT, 1 MiB writes): 0 or -1. */
static int fill_dev(const char *dev)
{
	int fd = open(dev, O_WRONLY | O_DIRECT), ret = 0;
	unsigned long long *buf = aligned_alloc(4096, 1 << 20);
	size_t i;
	ssize_t n;

	if (fd < 0 || !buf) {
		ret = -1;
		goto out;
	}
	do {
		for (i = 0; i < (1 << 20) / sizeof(*buf); i++)
			buf[i] = rnd();
		n = write(fd, buf, 1 << 20);
	} while (n == 1 << 20);
	if (n < 0 && errno != ENOSPC)
		ret = -1;
out:
	if (fd >= 0)
		close(fd);
	free(buf);
	return ret;
}

/* Of WIN_CHECKS random 512-byte blocks, how many the window and @dev agree on */
static int win_same(const char *dev)
{
	int fd = open(dev, O_RDONLY | O_DIRECT), i, same = 0;
	char *buf = aligned_alloc(4096, 4096);
	off_t off;

	for (i = 0; fd >= 0 && buf && i < WIN_CHECKS; i++) {
		off = rnd() % (win_size >> 9) << 9;
		if (pread(fd, buf, 512, off) == 512 &&
		    !memcmp(buf, win_view + off, 512))
			same++;
	}
	if (fd >= 0)
		close(fd);
	free(buf);
	return same;
}

/* CPU per read, ns: the reader's (precise) and the pollers' and kworkers' */
static double run_cpu_ns(const struct run *r)
{
	return r->thread_s * 1e9 / r->n +
	       tick_us(r, r->b.poller - r->a.poller +
			  r->b.kworker - r->a.kworker) * 1e3;
}

static int win_case(const char *kind, const char *mode, int qd, double secs,
		    struct run *r)
{
	if (io_run(mode, qd, secs, r)) {
		printf("NP-BENCH kind=%s path=%s size=%u qd=%d error=1\n",
		       kind, mode, io_bs, qd);
		return 1;
	}
	printf("NP-BENCH kind=%s path=%s size=%u qd=%d reads=%lld secs=%.2f rps=%.0f ",
	       kind, mode, io_bs, qd, r->n, r->secs, r->n / r->secs);
	printf("cpu_ns=%.1f thread_ns=%.1f helper_ns=%.1f kcpu_ns=%.1f\n",
	       run_cpu_ns(r), r->thread_s * 1e9 / r->n,
	       run_cpu_ns(r) - r->thread_s * 1e9 / r->n,
	       tick_us(r, r->b.sys + r->b.irq + r->b.softirq -
		       r->a.sys - r->a.irq - r->a.softirq) * 1e3);
	return 0;
}

/* The window's reads/s over @b's, and its CPU per read over @b's */
static void win_ratio(unsigned int size, const char *base, int qd,
		      const struct run *w, const struct run *b)
{
	printf("NP-BENCH kind=window-ratio size=%u base=%s qd=%d ", size, base,
	       qd);
	printf("rps_x=%.2f cpu_x=%.4f\n", (w->n / w->secs) / (b->n / b->secs),
	       run_cpu_ns(w) / run_cpu_ns(b));
}

/*
 * Reads of namespace 2 through a window (64 and 512 bytes), then 512 bytes
 * through io_uring O_DIRECT on its block device and a mediated peer queue,
 * QD 1 and 32; the window's reads/s and CPU per read over each of theirs.
 */
static int cmd_window(double secs)
{
	static const unsigned int sizes[] = { 64, 512 };
	static const int qds[] = { 1, 32 };
	static const char * const bases[] = { "uring", "mediated" };
	struct run w[2], b[2][2];
	int ctrl = atoi(env_or("NP_BENCH_CTRL", "0")), fd, ret = 0;
	unsigned int i, j, k;
	unsigned char sink = 0;
	char dev[64];
	double t0;
	size_t off;

	/* NP_BENCH_FILL=1: random bytes in the namespace first */
	fd = -1;
	if (!ns_bdev(ctrl, WIN_NSID, dev, sizeof(dev)) &&
	    (strcmp(env_or("NP_BENCH_FILL", "0"), "1") || !fill_dev(dev)))
		fd = win_open(ctrl);
	if (fd < 0) {
		printf("NP-BENCH kind=window error=%d\n", errno);
		return 1;
	}
	/* every page of the view faulted in before the clock */
	t0 = now();
	for (off = 0; off < win_size; off += 4096)
		sink += win_view[off];
	__asm__ __volatile__("" : : "r"(sink));
	printf("NP-BENCH kind=window-setup nsid=%d bdev=%s view_mib=%zu ",
	       WIN_NSID, dev, win_size >> 20);
	printf("prefault_s=%.2f same=%d/%d\n", now() - t0, win_same(dev),
	       WIN_CHECKS);
	for (i = 0; i < ARRAY_SIZE(sizes); i++) {
		io_bs = sizes[i];
		ret |= win_case("window", "window", 1, secs, &w[i]);
	}
	munmap((void *)win_view, win_size);
	win_view = NULL;
	close(fd);

	/* the same namespace, 512-byte reads across all of it */
	setenv("NP_BENCH_BDEV", dev, 1);
	io_nsid = WIN_NSID;
	io_bs = 512;
	span_mb = win_size >> 20;
	for (j = 0; j < ARRAY_SIZE(bases); j++)
		for (k = 0; k < ARRAY_SIZE(qds); k++)
			ret |= win_case(j ? "window-queue" : "window-uring",
					bases[j], qds[k], secs, &b[j][k]);
	if (ret)
		return 1;
	for (i = 0; i < ARRAY_SIZE(sizes); i++)
		for (j = 0; j < ARRAY_SIZE(bases); j++)
			for (k = 0; k < ARRAY_SIZE(qds); k++)
				win_ratio(sizes[i], bases[j], qds[k], &w[i],
					  &b[j][k]);
	return 0;
}

int main(int argc, char **argv)
{
	span_mb = strtoull(env_or("NP_BENCH_SPAN_MB", "256"), NULL, 0);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 5 && !strcmp(argv[1], "io"))
		return cmd_io(argv[2], atoi(argv[3]), atof(argv[4]));
	if (argc == 3 && !strcmp(argv[1], "life"))
		return cmd_life(atoi(argv[2]));
	if (argc == 2 && !strcmp(argv[1], "mem"))
		return cmd_mem();
	if (argc == 3 && !strcmp(argv[1], "window"))
		return cmd_window(atof(argv[2]));
	fprintf(stderr, "usage: vm-bench io uring|uring-cmd|mediated|direct QD SECS\n");
	fprintf(stderr, "       vm-bench life N | mem | window SECS\n");
	return 2;
}
