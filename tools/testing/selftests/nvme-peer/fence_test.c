// SPDX-License-Identifier: GPL-2.0
/*
 * The fence against a slow controller: namespace 3 of the two-ctrl
 * topology, which QEMU throttles to 20 commands a second, keeps a queue's
 * commands in the controller long after they were submitted.  A fence (a
 * layout break, a dma-buf move) must return only when the controller holds
 * none of them: no Write lands on a block after the file system got it
 * back, no DMA reaches a buffer after its exporter moved it, whatever the
 * mode, even when the Delete I/O SQ the fence sends fails.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <time.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "np_queue.h"
#include "np_file.h"
#include "np_dmabuf.h"
#include "kselftest_harness.h"

#define SLOW_NS		3
#define SLOW_MNT	"/mnt/npslow"
#define SLOW_IOPS	20

static double np_now(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

/* Why the slow-namespace tests cannot run here, or NULL. */
static const char *np_no_slow(void)
{
	if (np_missing())
		return np_missing();
	if (strcmp(np_topology(), "two-ctrl"))
		return "the slow namespace is in the two-ctrl topology";
	return np_ns_dev(np_ctrl(), SLOW_NS)[0] ? NULL : "no namespace 3";
}

/* A file of the slow namespace, bound rw, with Writes waiting in the controller. */
struct np_busy {
	int file, fd;
	struct np_map m;
	struct nvme_peer_file_extent *ext;
};

/*
 * Make SLOW_MNT/@name (1 MiB of pattern @seed), bind it read+write, map the
 * queue and submit @nr Writes of 8 KiB of the data buffer (filled with
 * pattern @seed + 100 first) to its first extent, without waiting.
 * Return: 0, or -1 if any step failed.
 */
static int np_busy_file(struct np_busy *b, const char *name, int seed, int nr)
{
	struct npq_sqe e;
	int i;

	if (np_fs_on(SLOW_NS, SLOW_MNT))
		return -1;
	b->file = np_mkfile_at(SLOW_MNT, name, MIB, seed);
	b->fd = np_open();
	if (b->file < 0 || b->fd < 0 ||
	    np_bind(b->fd, b->file, SLOW_NS, 0, MIB,
		    NVME_PEER_ACCESS_READ | NVME_PEER_ACCESS_WRITE,
		    NVME_PEER_MODE_MEDIATED) ||
	    np_map_all(b->fd, &b->m, 1) || np_file_map(b->fd, &b->ext) <= 0 ||
	    b->ext[0].nlb < (__u64)nr * 16)
		return -1;
	np_fill(b->m.data, 8192, seed + 100);
	for (i = 0; i < nr; i++) {
		npq_sqe_rw(&e, NPQ_OPC_WRITE, SLOW_NS, b->ext[0].slba + 16 * i,
			   16, b->m.info.data_ctrl_addr,
			   b->m.info.data_ctrl_addr + 4096);
		if (npq_enqueue(&b->m.q, &e) < 0)
			return -1;
	}
	npq_ring_sq(&b->m.q);
	usleep(100000);		/* forwarded: the poller is fast */
	return 0;
}

/* How many of the @n 8 KiB pieces at @slba of the slow namespace are @pat. */
static int np_count_pattern(__u64 slba, int n, const void *pat)
{
	char *buf = np_aligned(n * 8192);
	int i, same = 0;

	if (!buf || np_blk_io(np_ns_dev(np_ctrl(), SLOW_NS), 0, slba * 512,
			      buf, n * 8192)) {
		free(buf);
		return -1;
	}
	for (i = 0; i < n; i++)
		same += !memcmp(buf + i * 8192, pat, 8192);
	free(buf);
	return same;
}

/*
 * A layout break while 40 Writes of a bound file wait in the controller
 * (2 s of them), with the Delete I/O SQ the fence sends after its 1 s
 * budget failing (fault injection): the truncate returns only once the
 * controller holds none of them, so what is on the freed blocks when it
 * returns stays.  Before: the fence gave the lease back after 1.3 s and
 * the rest of the Writes landed on blocks XFS had freed.
 */
TEST(layout_fence_outwaits_a_failed_delete)
{
	struct nvme_peer_info info;
	int before, after;
	struct np_busy b;
	char pat[8192];
	double t0, took;

	if (np_no_slow())
		SKIP(return, "%s", np_no_slow());
	ASSERT_EQ(0, np_busy_file(&b, "busy", 61, 40));
	memcpy(pat, b.m.data, sizeof(pat));
	ASSERT_EQ(0, np_inject("fail_delete", 1, 0));

	t0 = np_now();
	ASSERT_EQ(0, ftruncate(b.file, 0));
	took = np_now() - t0;
	before = np_count_pattern(b.ext[0].slba, 40, pat);
	usleep(3000000);	/* longer than the 40 Writes take */
	after = np_count_pattern(b.ext[0].slba, 40, pat);
	TH_LOG("truncate took %.2f s; Writes on the media: %d when it returned, %d 3 s later",
	       took, before, after);
	EXPECT_LE(0, before);
	EXPECT_EQ(before, after);
	ASSERT_EQ(0, np_query(b.fd, &info));
	EXPECT_EQ(NVME_PEER_STATE_REVOKED, info.state);
	np_inject("fail_delete", 0, 0);
	np_unmap_all(&b.m);
	close(b.fd);
	close(b.file);
	free(b.ext);
}

static void *np_truncate_thread(void *arg)
{
	return (void *)(long)ftruncate(*(int *)arg, 0);
}

/*
 * The owner releases the queue while a layout break's fence waits for its
 * Writes: the release deletes the queue and frees its mediation state
 * under the fence, which reads the hardware CQ through it; the free is
 * held 200 ms (fault injection med_free_delay).  The fence sees the
 * state gone (nothing in flight) and the truncate returns.  Before, the
 * fence read q->med without the lock it is freed under.
 */
TEST(release_during_a_layout_fence)
{
	struct np_busy b;
	pthread_t t;
	void *ret;

	if (np_no_slow())
		SKIP(return, "%s", np_no_slow());
	ASSERT_EQ(0, np_busy_file(&b, "release", 62, 20));
	ASSERT_EQ(0, pthread_create(&t, NULL, np_truncate_thread, &b.file));
	usleep(300000);		/* the fence drains: 1 s of Writes left */
	/* the release's free takes 200 ms: the drain runs meanwhile */
	ASSERT_EQ(0, np_inject("med_free_delay", -1, 200));
	np_unmap_all(&b.m);
	close(b.fd);		/* release under the fence */
	ASSERT_EQ(0, pthread_join(t, &ret));
	np_inject("med_free_delay", 0, 0);
	EXPECT_EQ(0, (long)ret);
	close(b.file);
	free(b.ext);
}

#define NP_PARAMS	"/sys/module/nvme_peer/parameters/"

/* A mediated queue of namespace 1 on controller @n (nvmeN): its fd. */
static int np_plain_queue(int n)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .ctrl = n, .nsid = 1, .depth = 16,
		.sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = NVME_PEER_PLACE_HOST, .data_size = 8192,
	};
	int fd = np_open();

	if (fd < 0 || ioctl(fd, NVME_PEER_IOC_RESERVE, &r)) {
		if (fd >= 0)
			close(fd);
		return -1;
	}
	return fd;
}

/* The poller serving @fd's queue on controller nvme@n, or -1. */
static int np_poller_of_fd(int fd, int n)
{
	struct nvme_peer_info info;
	char path[96];

	if (np_query(fd, &info))
		return -1;
	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%d/peer/q%u/poller",
		 n, info.qid);
	return np_read_num(path);
}

static int np_stalling(void)
{
	char buf[8];

	return !np_read(NP_INJECT "/poller_stall/stalling", buf, sizeof(buf)) &&
	       buf[0] == 'Y';
}

/*
 * Issue 20, item 5, the window itself: the fence's drain takes a queue's
 * mediation state, then reads the hardware CQ through it; that read is
 * held 500 ms (fault injection drain_read_delay) while the owner releases
 * the queue, whose free of the state takes np_med_lock, held by the read:
 * the release waits, the fence ends, nothing freed is read.  Before, the
 * drain took q->med without the lock and read it after taking it: with
 * the same 500 ms between the two, the release freed the state under it
 * (KASAN: use-after-free in np_med_idle; the commit says how that was
 * run).
 */
TEST(release_during_a_drain_read)
{
	struct np_busy b;
	pthread_t t;
	void *ret;

	if (np_no_slow())
		SKIP(return, "%s", np_no_slow());
	ASSERT_EQ(0, np_busy_file(&b, "dread", 63, 20));
	ASSERT_EQ(0, np_inject("drain_read_delay", 1, 500));
	ASSERT_EQ(0, pthread_create(&t, NULL, np_truncate_thread, &b.file));
	usleep(200000);		/* the drain's first read is held */
	np_unmap_all(&b.m);
	close(b.fd);		/* release: its free waits for the read */
	ASSERT_EQ(0, pthread_join(t, &ret));
	np_inject("drain_read_delay", 0, 0);
	EXPECT_EQ(0, (long)ret);
	close(b.file);
	free(b.ext);
}

static void *np_close_thread(void *arg)
{
	close(*(int *)arg);
	return NULL;
}

/*
 * A poller whose pass is stuck (on a stalled peer BAR read: fault
 * injection, 3 s) stalls the stops of its own queues only.  A queue of
 * controller 0 on the stuck poller is released (its stop waits for the
 * pass); a queue of controller 1 on the other poller is released
 * meanwhile and its release returns while the pass is still stuck.
 * Before, the first stop waited holding the global np_med_lock, and every
 * controller's stops and events waited behind it.
 */
TEST(a_stuck_poller_stalls_only_its_queues)
{
	long long was = np_read_num(NP_PARAMS "mediate_pollers");
	int n0, n1, fa, fb, pa, pb, i;
	pthread_t t;

	if (np_no_slow())
		SKIP(return, "%s", np_no_slow());
	n0 = atoi(np_ctrl_of(np_nvme_pci(0)) + 4);
	n1 = atoi(np_ctrl_of(np_nvme_pci(1)) + 4);
	ASSERT_EQ(0, np_write(NP_PARAMS "mediate_pollers", "2"));
	fa = np_plain_queue(n0);
	fb = np_plain_queue(n1);
	ASSERT_LE(0, fa);
	ASSERT_LE(0, fb);
	pa = np_poller_of_fd(fa, n0);
	pb = np_poller_of_fd(fb, n1);
	ASSERT_LE(0, pa);
	ASSERT_LE(0, pb);
	ASSERT_NE(pa, pb);

	ASSERT_EQ(0, np_write(NP_INJECT "/poller_stall/id", "%d", pa));
	ASSERT_EQ(0, np_inject("poller_stall", 1, 3000));
	for (i = 0; i < 200 && !np_stalling(); i++)
		usleep(10000);
	ASSERT_TRUE(np_stalling());
	ASSERT_EQ(0, pthread_create(&t, NULL, np_close_thread, &fa));
	usleep(200000);		/* its stop waits for the stuck pass */
	close(fb);
	EXPECT_TRUE(np_stalling())
		TH_LOG("the other controller's release waited for the stuck poller");
	pthread_join(t, NULL);
	np_write(NP_PARAMS "mediate_pollers", "%lld", was);
}

FIXTURE(slow_accel) {
	int buf;
	unsigned char *mem;
	size_t size;
};

FIXTURE_SETUP(slow_accel)
{
	if (np_no_slow())
		SKIP(return, "%s", np_no_slow());
	ASSERT_EQ(0, np_accel_open(&self->buf, &self->mem, &self->size));
}

FIXTURE_TEARDOWN(slow_accel)
{
	np_write(NP_DBG_ACCEL "/migrate_on_map", "0");
	np_accel_close(self->buf, self->mem, self->size);
}

/* Submit 8 Reads of 8 KiB of the slow namespace into the data buffer. */
static int np_slow_reads(struct np_q *q)
{
	__u64 a = q->info.data_ctrl_addr;
	struct npq_sqe e;
	int i;

	for (i = 0; i < 8; i++) {
		npq_sqe_rw(&e, NPQ_OPC_READ, SLOW_NS, 1000 + 16 * i, 16,
			   a + i * 8192, a + i * 8192 + 4096);
		if (npq_enqueue(&q->q, &e) < 0)
			return -1;
	}
	npq_ring_sq(&q->q);
	return 0;
}

/* The first byte of @mem[0, @len) that is not the exporter's 0xee, or -1. */
static long np_not_poison(const unsigned char *mem, size_t len)
{
	size_t i;

	for (i = 0; i < len; i++)
		if (mem[i] != 0xee)
			return i;
	return -1;
}

/*
 * A direct queue with its CQ and data buffer in the exporter's memory, 8
 * Reads waiting in the controller, and a move: once the exporter's wait
 * for the importers' fences is over, no completion and no data reach the
 * memory it reused.  Before: move_notify returned at once for a direct
 * queue and the controller wrote CQEs and data into the reused memory.
 */
TEST_F(slow_accel, direct_move_waits_for_the_controller)
{
	struct nvme_peer_reserve r;
	struct nvme_peer_info info;
	struct np_q q;
	int fd;

	if (np_no_slow())
		SKIP(return, "%s", np_no_slow());
	np_rsv_init(&r, NVME_PEER_MODE_DIRECT);
	r.nsid = SLOW_NS;
	r.data_buf.fd = self->buf;
	r.data_buf.length = NP_DATA;
	r.cq_placement = NVME_PEER_PLACE_DMABUF;
	r.cq_buf.fd = self->buf;
	r.cq_buf.offset = NP_DATA;
	r.cq_buf.length = 4096;
	fd = np_rsv(&r);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_q_map(&q, fd, self->buf, NP_DATA));
	ASSERT_EQ(0, np_slow_reads(&q));
	ASSERT_EQ(0, np_write(NP_DBG_ACCEL "/evict", "1"));
	usleep(1500000);	/* longer than the 8 Reads take */
	EXPECT_EQ(-1, np_not_poison(self->mem, NP_DATA + 4096))
		TH_LOG("byte %ld written after the move",
		       np_not_poison(self->mem, NP_DATA + 4096));
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_REASON_MOVED, info.reason);
	np_q_close(&q);
}

/*
 * move_notify does nothing slow: with Reads waiting in the controller it
 * returns having published a fence, which the exporter waits for (and
 * which signals before anything lands after the move).  Before: it waited
 * for the Reads itself, under the exporter's reservation lock.
 */
TEST_F(slow_accel, mediated_move_publishes_a_fence)
{
	struct nvme_peer_reserve r;
	struct np_q q;
	int fd;

	if (np_no_slow())
		SKIP(return, "%s", np_no_slow());
	np_rsv_init(&r, NVME_PEER_MODE_MEDIATED);
	r.nsid = SLOW_NS;
	r.data_buf.fd = self->buf;
	r.data_buf.length = NP_DATA;
	fd = np_rsv(&r);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_q_map(&q, fd, -1, 0));
	ASSERT_EQ(0, np_slow_reads(&q));
	usleep(20000);		/* forwarded */
	ASSERT_EQ(0, np_write(NP_DBG_ACCEL "/evict", "1"));
	EXPECT_EQ(1, np_read_num(NP_DBG_ACCEL "/evict_fences"));
	usleep(1500000);
	EXPECT_EQ(-1, np_not_poison(self->mem, NP_DATA));
	np_q_close(&q);
}

/*
 * An exporter that moves a buffer when an importer maps it: the queue's
 * CQ is mapped, then mapping its data buffer moves the CQ's range.  The
 * reserve fails with -EAGAIN and leaves nothing; without the migration it
 * works.  Before: the move revoked and drained the queue inside the
 * reserve, with the controller's lock held (a lockdep report).
 */
TEST_F(slow_accel, move_during_reserve_is_eagain)
{
	struct nvme_peer_reserve r;
	int fd;

	if (np_no_slow())
		SKIP(return, "%s", np_no_slow());
	np_rsv_init(&r, NVME_PEER_MODE_MEDIATED);
	r.data_buf.fd = self->buf;
	r.data_buf.length = NP_DATA;
	r.cq_placement = NVME_PEER_PLACE_DMABUF;
	r.cq_buf.fd = self->buf;
	r.cq_buf.offset = NP_DATA;
	r.cq_buf.length = 4096;
	ASSERT_EQ(0, np_write(NP_DBG_ACCEL "/migrate_on_map", "1"));
	EXPECT_EQ(-EAGAIN, np_rsv(&r));
	ASSERT_EQ(0, np_write(NP_DBG_ACCEL "/migrate_on_map", "0"));
	fd = np_rsv(&r);
	EXPECT_LE(0, fd);
	if (fd >= 0)
		close(fd);
}

TEST_HARNESS_MAIN
