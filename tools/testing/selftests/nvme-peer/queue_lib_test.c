// SPDX-License-Identifier: GPL-2.0
/*
 * Unit test of the device-side queue library (tools/lib/nvme-peer) against
 * a controller simulated in plain memory: SQ, CQ and the two doorbells are
 * ordinary arrays, and a fake controller fetches SQEs between its head and
 * the SQ tail doorbell and posts CQEs with the phase tag, the SQ head and a
 * status.  Needs no device; runs on the build host.
 *
 * The barrier and doorbell macros are overridden with hooks that log their
 * order; the queue memory accessors are the library's defaults.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <string.h>
#include <time.h>

/* Event log of the library's barriers and doorbell stores. */
static struct {
	uint32_t seq;		/* events so far */
	uint32_t wmb, rmb, mmio;	/* calls of each */
	uint32_t last_wmb, last_rmb, last_mmio;	/* seq of the last call */
	const uint32_t *db;	/* read at NPQ_WMB() time into db_at_wmb */
	uint32_t db_at_wmb;
	const void *snap_src;	/* copied at NPQ_WMB() time into snap */
	unsigned char snap[64];
	uint32_t *poke;		/* NPQ_RMB() stores poke_val here, once */
	uint32_t poke_val;
} hk;

static void hook_wmb(void)
{
	hk.wmb++;
	hk.last_wmb = ++hk.seq;
	if (hk.db)
		hk.db_at_wmb = __atomic_load_n(hk.db, __ATOMIC_RELAXED);
	if (hk.snap_src)
		memcpy(hk.snap, hk.snap_src, sizeof(hk.snap));
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void hook_rmb(void)
{
	hk.rmb++;
	hk.last_rmb = ++hk.seq;
	if (hk.poke) {
		*hk.poke = hk.poke_val;
		hk.poke = NULL;
	}
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static void hook_mmio(uint32_t *p, uint32_t v)
{
	hk.mmio++;
	hk.last_mmio = ++hk.seq;
	__atomic_store_n(p, v, __ATOMIC_RELEASE);
}

#define NPQ_WMB()		hook_wmb()
#define NPQ_RMB()		hook_rmb()
#define NPQ_MMIO_WRITE32(p, v)	hook_mmio(p, v)

#include "nvme-peer/nvme_peer_queue.h"
#include "kselftest_harness.h"

#define MAXQ	64
#define FIFO	4096

/* A controller in memory, owning one SQ/CQ pair. */
struct fake_ctrl {
	struct npq_sqe sq[MAXQ];
	struct npq_cqe cq[MAXQ];
	uint32_t sq_db;		/* SQ tail doorbell */
	uint32_t cq_db;		/* CQ head doorbell */
	uint32_t depth;
	uint16_t sqid;
	uint32_t sq_head;	/* next SQE to fetch */
	uint32_t cq_tail;	/* next CQ slot to post into */
	uint8_t phase;		/* phase tag of the next CQE */
	uint16_t status;	/* status (without phase tag) to post */
	uint64_t fetched;
	uint64_t posted;
	int check_seq;		/* each SQE's SLBA is its fetch number */
	uint32_t errors;	/* protocol violations seen */
	uint16_t fifo_cid[FIFO];	/* fetched, not yet completed */
	uint32_t fifo_dw0[FIFO];
	uint32_t fifo_r, fifo_w;
};

static struct fake_ctrl *ctrl_new(uint32_t depth, uint16_t sqid)
{
	struct fake_ctrl *c = calloc(1, sizeof(*c));

	if (!c)
		return NULL;
	c->depth = depth;
	c->sqid = sqid;
	c->phase = 1;
	return c;
}

/* Fetch up to @max SQEs between our head and the SQ tail doorbell. */
static uint32_t ctrl_fetch(struct fake_ctrl *c, uint32_t max)
{
	uint32_t tail = __atomic_load_n(&c->sq_db, __ATOMIC_ACQUIRE);
	uint32_t n = 0;

	tail = NPQ_LE32_TO_CPU(tail);
	if (tail >= c->depth) {
		c->errors++;
		return 0;
	}
	while (n < max && c->sq_head != tail && c->fifo_w - c->fifo_r < FIFO) {
		const struct npq_sqe *e = &c->sq[c->sq_head];
		uint32_t dw0 = NPQ_LE32_TO_CPU(e->dw[0]);
		uint64_t slba = NPQ_LE32_TO_CPU(e->dw[10]) |
				(uint64_t)NPQ_LE32_TO_CPU(e->dw[11]) << 32;

		if (c->check_seq && slba != c->fetched)
			c->errors++;
		c->fifo_cid[c->fifo_w % FIFO] = dw0 >> 16;
		c->fifo_dw0[c->fifo_w % FIFO] = (uint32_t)slba;
		c->fifo_w++;
		c->sq_head = (c->sq_head + 1) % c->depth;
		c->fetched++;
		n++;
	}
	return n;
}

/* Post up to @max CQEs for fetched commands, in order, while the CQ has room. */
static uint32_t ctrl_complete(struct fake_ctrl *c, uint32_t max)
{
	uint32_t n = 0;

	while (n < max && c->fifo_r != c->fifo_w) {
		uint32_t head = __atomic_load_n(&c->cq_db, __ATOMIC_ACQUIRE);
		struct npq_cqe *cqe = &c->cq[c->cq_tail];
		uint32_t dw3;

		head = NPQ_LE32_TO_CPU(head);
		if (head >= c->depth) {
			c->errors++;
			break;
		}
		if ((c->cq_tail + 1) % c->depth == head)
			break;	/* CQ full */
		cqe->dw[0] = NPQ_CPU_TO_LE32(c->fifo_dw0[c->fifo_r % FIFO]);
		cqe->dw[1] = 0;
		cqe->dw[2] = NPQ_CPU_TO_LE32(c->sq_head |
					     (uint32_t)c->sqid << 16);
		dw3 = c->fifo_cid[c->fifo_r % FIFO] |
		      (uint32_t)c->phase << 16 | (uint32_t)c->status << 17;
		__atomic_store_n(&cqe->dw[3], NPQ_CPU_TO_LE32(dw3),
				 __ATOMIC_RELEASE);
		c->fifo_r++;
		c->posted++;
		c->cq_tail = (c->cq_tail + 1) % c->depth;
		if (!c->cq_tail)
			c->phase ^= 1;
		n++;
	}
	return n;
}

static void ctrl_attach(struct npq *q, struct fake_ctrl *c)
{
	npq_init(q, c->sq, c->cq, &c->sq_db, &c->cq_db, c->depth, c->sqid);
}

static uint64_t le_at(const void *base, size_t off, int bytes)
{
	const unsigned char *b = (const unsigned char *)base + off;
	uint64_t v = 0;
	int i;

	for (i = bytes - 1; i >= 0; i--)
		v = v << 8 | b[i];
	return v;
}

static int all_zero(const void *base, size_t from, size_t to)
{
	const unsigned char *b = base;

	while (from < to)
		if (b[from++])
			return 0;
	return 1;
}

/* The command id npq_enqueue() hands out for the @n-th command. */
static uint16_t cid_of(uint16_t first, uint64_t n)
{
	return (uint16_t)((first + n) % 0xffff);
}

TEST(struct_sizes)
{
	struct npq_sqe e;
	struct npq_cqe c;

	ASSERT_EQ(64u, sizeof(e));
	ASSERT_EQ(16u, sizeof(c));
	ASSERT_EQ(64u * 4, sizeof(struct npq_sqe[4]));
}

/* Enqueue @e into an SQ full of garbage; return the raw bytes of its slot. */
static const unsigned char *enqueue_raw(struct __test_metadata *_metadata,
					struct fake_ctrl *c, struct npq *q,
					struct npq_sqe *e, int *cid)
{
	uint32_t slot = q->sq_tail;

	memset(&c->sq[slot], 0xee, sizeof(c->sq[slot]));
	*cid = npq_enqueue(q, e);
	ASSERT_LE(0, *cid);
	ASSERT_EQ(*cid, npq_sqe_cid(e));
	return (const unsigned char *)&c->sq[slot];
}

TEST(sqe_layout_read_write)
{
	static const uint8_t opcs[] = { NPQ_OPC_READ, NPQ_OPC_WRITE,
					NPQ_OPC_WRITE_ZEROES };
	static const uint32_t nlbs[] = { 0x100, 1, 65536 };
	struct fake_ctrl *c = ctrl_new(8, 1);
	const unsigned char *b;
	struct npq_sqe e;
	struct npq q;
	int i, cid;

	ASSERT_NE(NULL, c);
	ASSERT_EQ(0x02, NPQ_OPC_READ);
	ASSERT_EQ(0x01, NPQ_OPC_WRITE);
	ASSERT_EQ(0x08, NPQ_OPC_WRITE_ZEROES);
	ctrl_attach(&q, c);
	q.next_cid = 0xa55a;
	for (i = 0; i < 3; i++) {
		memset(&e, 0xff, sizeof(e));	/* all of it must be rewritten */
		npq_sqe_rw(&e, opcs[i], 0x11223344 + i, 0x0102030405060708ull,
			   nlbs[i], 0xa1a2a3a4a5a6a7a8ull, 0xb1b2b3b4b5b6b7b8ull);
		b = enqueue_raw(_metadata, c, &q, &e, &cid);
		ASSERT_EQ(0xa55a + i, cid);
		EXPECT_EQ(opcs[i], b[0]);		/* opcode */
		EXPECT_EQ(0, b[1]);		/* fuse 9:8, PSDT 15:14 */
		EXPECT_EQ((uint64_t)cid, le_at(b, 2, 2));	/* command id */
		EXPECT_EQ(0x11223344u + i, le_at(b, 4, 4));	/* nsid */
		EXPECT_TRUE(all_zero(b, 8, 24));	/* cdw2-3, MPTR */
		EXPECT_EQ(0xa1a2a3a4a5a6a7a8ull, le_at(b, 24, 8)); /* PRP1 */
		EXPECT_EQ(0xb1b2b3b4b5b6b7b8ull, le_at(b, 32, 8)); /* PRP2 */
		EXPECT_EQ(0x0102030405060708ull, le_at(b, 40, 8)); /* SLBA */
		EXPECT_EQ(nlbs[i] - 1, le_at(b, 48, 2));	/* NLB, 0-based */
		EXPECT_TRUE(all_zero(b, 50, 64));	/* cdw12 flags, 13-15 */
	}
	free(c);
}

TEST(sqe_layout_flush_dsm)
{
	struct fake_ctrl *c = ctrl_new(8, 1);
	const unsigned char *b;
	struct npq_sqe e;
	struct npq q;
	int cid;

	ASSERT_NE(NULL, c);
	ctrl_attach(&q, c);
	q.next_cid = 0x1234;

	memset(&e, 0xff, sizeof(e));
	npq_sqe_flush(&e, 0xdeadbeef);
	b = enqueue_raw(_metadata, c, &q, &e, &cid);
	EXPECT_EQ(0x00, b[0]);
	EXPECT_EQ(0, b[1]);
	EXPECT_EQ(0x1234u, le_at(b, 2, 2));
	EXPECT_EQ(0xdeadbeef, le_at(b, 4, 4));
	EXPECT_TRUE(all_zero(b, 8, 64));

	memset(&e, 0xff, sizeof(e));
	npq_sqe_dsm(&e, 5, 3, NPQ_DSM_AD, 0x123456789000ull);
	b = enqueue_raw(_metadata, c, &q, &e, &cid);
	EXPECT_EQ(0x09, b[0]);
	EXPECT_EQ(0, b[1]);
	EXPECT_EQ(0x1235u, le_at(b, 2, 2));
	EXPECT_EQ(5u, le_at(b, 4, 4));
	EXPECT_TRUE(all_zero(b, 8, 24));
	EXPECT_EQ(0x123456789000ull, le_at(b, 24, 8));
	EXPECT_TRUE(all_zero(b, 32, 40));
	EXPECT_EQ(2u, le_at(b, 40, 4));		/* NR, 0-based */
	EXPECT_EQ(0x4u, le_at(b, 44, 4));	/* AD */
	EXPECT_TRUE(all_zero(b, 48, 64));
	free(c);
}

/* Submit one command, let the controller run it, poll it back. */
static void one_cmd(struct __test_metadata *_metadata, struct fake_ctrl *c,
		    struct npq *q, uint16_t want_cid)
{
	struct npq_sqe e;
	struct npq_cqe cqe;
	uint32_t slot = q->sq_tail;
	int cid;

	npq_sqe_rw(&e, NPQ_OPC_READ, 1, 0, 1, 0x1000, 0);
	cid = npq_submit(q, &e);
	ASSERT_EQ(want_cid, cid);
	ASSERT_EQ(want_cid, npq_sqe_cid(&c->sq[slot]));
	ASSERT_EQ(1u, ctrl_fetch(c, ~0u));
	ASSERT_EQ(1u, ctrl_complete(c, ~0u));
	ASSERT_EQ(1, npq_poll(q, &cqe));
	ASSERT_EQ(want_cid, npq_cqe_cid(&cqe));
	npq_ring_cq(q);
}

TEST(cid_unique_and_wrap)
{
	static const uint16_t want[] = { 0xfffb, 0xfffc, 0xfffd, 0xfffe,
					 0x0000, 0x0001, 0x0002 };
	struct fake_ctrl *c = ctrl_new(4, 1);
	struct npq q;
	size_t i;

	ASSERT_NE(NULL, c);
	ctrl_attach(&q, c);
	ASSERT_EQ(0, q.next_cid);
	one_cmd(_metadata, c, &q, 0);
	one_cmd(_metadata, c, &q, 1);
	q.next_cid = 0xfffb;
	/* 0xffff is skipped: the spec reserves it */
	for (i = 0; i < ARRAY_SIZE(want); i++)
		one_cmd(_metadata, c, &q, want[i]);
	EXPECT_EQ(0u, c->errors);
	free(c);
}

TEST(barriers_and_doorbells)
{
	struct fake_ctrl *c = ctrl_new(8, 3);
	struct npq_sqe e;
	struct npq_cqe cqe;
	struct npq q;
	uint32_t wmb;

	ASSERT_NE(NULL, c);
	ctrl_attach(&q, c);
	npq_sqe_rw(&e, NPQ_OPC_WRITE, 1, 77, 8, 0x2000, 0);

	/* enqueue alone neither fences nor rings */
	wmb = hk.wmb;
	hk.mmio = 0;
	ASSERT_EQ(0, npq_enqueue(&q, &e));
	ASSERT_EQ(1, npq_enqueue(&q, &e));
	EXPECT_EQ(wmb, hk.wmb);
	EXPECT_EQ(0u, hk.mmio);
	EXPECT_EQ(0u, c->sq_db);
	EXPECT_EQ(2u, q.pending_db);

	/* NPQ_WMB() right before the doorbell, after the SQE stores */
	hk.db = &c->sq_db;
	hk.snap_src = &c->sq[1];
	npq_ring_sq(&q);
	hk.db = NULL;
	hk.snap_src = NULL;
	EXPECT_EQ(wmb + 1, hk.wmb);
	EXPECT_EQ(1u, hk.mmio);
	EXPECT_EQ(hk.last_wmb + 1, hk.last_mmio);
	EXPECT_EQ(0u, hk.db_at_wmb);
	EXPECT_EQ(0, memcmp(hk.snap, &e, sizeof(e)));
	EXPECT_EQ(2u, c->sq_db);
	EXPECT_EQ(0u, q.pending_db);

	/* npq_submit() rings once; a full queue rings nothing */
	ASSERT_EQ(2, npq_submit(&q, &e));
	EXPECT_EQ(2u, hk.mmio);
	EXPECT_EQ(3u, c->sq_db);

	/* the CQE body is loaded after NPQ_RMB() */
	ASSERT_EQ(3u, ctrl_fetch(c, ~0u));
	ASSERT_EQ(3u, ctrl_complete(c, ~0u));
	ASSERT_EQ(1, npq_poll(&q, &cqe));
	EXPECT_EQ(0, npq_cqe_cid(&cqe));
	hk.poke = &c->cq[1].dw[0];
	hk.poke_val = 0x5a5a5a5a;
	ASSERT_EQ(1, npq_poll(&q, &cqe));
	EXPECT_EQ(0x5a5a5a5au, npq_cqe_dw0(&cqe));
	EXPECT_EQ(1, npq_cqe_cid(&cqe));
	EXPECT_EQ(3, npq_cqe_sqid(&cqe));
	EXPECT_EQ(3, npq_cqe_sq_head(&cqe));

	/* CQ doorbell: NPQ_RMB(), then the head */
	npq_ring_cq(&q);
	EXPECT_EQ(hk.last_rmb + 1, hk.last_mmio);
	EXPECT_EQ(2u, c->cq_db);
	EXPECT_EQ(q.cq_head, c->cq_db);
	free(c);
}

TEST(status_decode)
{
	struct fake_ctrl *c = ctrl_new(4, 9);
	struct npq_cqe cqe;
	struct npq_sqe e;
	struct npq q;
	uint16_t st;

	ASSERT_NE(NULL, c);
	/* DNR, SCT 2 (media), SC 0x81, phase 1 */
	cqe.dw[0] = 0;
	cqe.dw[1] = 0;
	cqe.dw[2] = NPQ_CPU_TO_LE32(0x00090002);
	cqe.dw[3] = NPQ_CPU_TO_LE32((0x8000u | 2u << 9 | 0x81u << 1 | 1u) << 16 |
				    0x4321);
	st = npq_cqe_status(&cqe);
	EXPECT_EQ(0x4281, st);
	EXPECT_EQ(0x81, npq_status_sc(st));
	EXPECT_EQ(NPQ_SCT_MEDIA, npq_status_sct(st));
	EXPECT_EQ(1, npq_status_dnr(st));
	EXPECT_EQ(1, npq_cqe_phase(&cqe));
	EXPECT_EQ(0x4321, npq_cqe_cid(&cqe));
	EXPECT_EQ(2, npq_cqe_sq_head(&cqe));
	EXPECT_EQ(9, npq_cqe_sqid(&cqe));

	/* the phase tag alone is success */
	cqe.dw[3] = NPQ_CPU_TO_LE32(0x00010000);
	EXPECT_EQ(0, npq_cqe_status(&cqe));
	EXPECT_EQ(1, npq_cqe_phase(&cqe));
	/* every status bit, phase 0 */
	cqe.dw[3] = NPQ_CPU_TO_LE32(0xfffe0000);
	EXPECT_EQ(0x7fff, npq_cqe_status(&cqe));
	EXPECT_EQ(0, npq_cqe_phase(&cqe));
	EXPECT_EQ(0xff, npq_status_sc(0x7fff));
	EXPECT_EQ(7, npq_status_sct(0x7fff));
	EXPECT_EQ(0, npq_status_dnr(0x3fff));

	/* through the controller: SCT 1, SC 0x80 (LBA out of range) */
	ctrl_attach(&q, c);
	c->status = NPQ_SCT_CMD_SPECIFIC << 8 | 0x80;
	npq_sqe_rw(&e, NPQ_OPC_READ, 1, 0, 1, 0x1000, 0);
	ASSERT_EQ(0, npq_submit(&q, &e));
	ctrl_fetch(c, ~0u);
	ctrl_complete(c, ~0u);
	ASSERT_EQ(1, npq_poll(&q, &cqe));
	st = npq_cqe_status(&cqe);
	EXPECT_EQ(0x180, st);
	EXPECT_EQ(NPQ_SCT_CMD_SPECIFIC, npq_status_sct(st));
	EXPECT_EQ(0x80, npq_status_sc(st));
	EXPECT_EQ(0, npq_status_dnr(st));
	free(c);
}

TEST(stale_cqe_not_consumed)
{
	struct fake_ctrl *c = ctrl_new(4, 1);
	struct npq_cqe cqe, sentinel;
	struct npq_sqe e;
	struct npq q;
	int i;

	ASSERT_NE(NULL, c);
	ctrl_attach(&q, c);
	memset(&sentinel, 0x3c, sizeof(sentinel));

	/* a zeroed CQ (phase 0) holds nothing */
	cqe = sentinel;
	EXPECT_EQ(0, npq_poll(&q, &cqe));
	EXPECT_EQ(0, memcmp(&cqe, &sentinel, sizeof(cqe)));

	/* an entry with the old phase is ignored, flipping it makes it new */
	c->cq[0].dw[0] = NPQ_CPU_TO_LE32(0x77);
	c->cq[0].dw[2] = NPQ_CPU_TO_LE32(1);
	c->cq[0].dw[3] = NPQ_CPU_TO_LE32(0xfffe0000);	/* status, phase 0 */
	EXPECT_EQ(0, npq_poll(&q, &cqe));
	EXPECT_EQ(0, memcmp(&cqe, &sentinel, sizeof(cqe)));
	EXPECT_EQ(0u, q.cq_head);
	EXPECT_EQ(1, q.phase);
	EXPECT_EQ(0u, q.sq_head);
	c->cq[0].dw[3] = NPQ_CPU_TO_LE32(0x00010000);
	EXPECT_EQ(1, npq_poll(&q, &cqe));
	EXPECT_EQ(0x77u, npq_cqe_dw0(&cqe));
	EXPECT_EQ(1u, q.cq_head);

	/* after a wrap, last round's entries (phase 1) are stale */
	memset(c->cq, 0, sizeof(c->cq));
	ctrl_attach(&q, c);
	for (i = 0; i < 4; i++)
		one_cmd(_metadata, c, &q, i);
	ASSERT_EQ(0u, q.cq_head);
	ASSERT_EQ(0, q.phase);
	for (i = 0; i < 3; i++) {
		cqe = sentinel;
		EXPECT_EQ(0, npq_poll(&q, &cqe));
		EXPECT_EQ(0, memcmp(&cqe, &sentinel, sizeof(cqe)));
		EXPECT_EQ(0u, q.cq_head);
		EXPECT_EQ(0, q.phase);
	}
	/* the next real completion (phase 0) is taken */
	npq_sqe_rw(&e, NPQ_OPC_READ, 1, 0, 1, 0x1000, 0);
	ASSERT_EQ(4, npq_submit(&q, &e));
	ASSERT_EQ(1u, ctrl_fetch(c, ~0u));
	ASSERT_EQ(1u, ctrl_complete(c, ~0u));
	ASSERT_EQ(1, npq_poll(&q, &cqe));
	EXPECT_EQ(4, npq_cqe_cid(&cqe));
	EXPECT_EQ(0, npq_cqe_phase(&cqe));
	EXPECT_EQ(0, npq_poll(&q, &cqe));
	EXPECT_EQ(0u, c->errors);
	free(c);
}

FIXTURE(ring) {
	struct fake_ctrl *c;
	struct npq q;
};

FIXTURE_VARIANT(ring) {
	uint32_t depth;
};

FIXTURE_VARIANT_ADD(ring, depth2) {
	.depth = 2,
};

FIXTURE_VARIANT_ADD(ring, depth4) {
	.depth = 4,
};

FIXTURE_VARIANT_ADD(ring, depth64) {
	.depth = 64,
};

FIXTURE_SETUP(ring)
{
	self->c = ctrl_new(variant->depth, 5);
	ASSERT_NE(NULL, self->c);
	self->c->check_seq = 1;
	ctrl_attach(&self->q, self->c);
}

FIXTURE_TEARDOWN(ring)
{
	free(self->c);
}

/* Ring the SQ doorbell; NPQ_WMB() must come right before the store. */
static void ring_sq(struct __test_metadata *_metadata, struct npq *q,
		    struct fake_ctrl *c)
{
	npq_ring_sq(q);
	ASSERT_EQ(hk.last_wmb + 1, hk.last_mmio);
	ASSERT_EQ(q->sq_tail, c->sq_db);
	ASSERT_EQ(0u, q->pending_db);
}

static int enqueue_seq(struct npq *q, uint64_t seq)
{
	struct npq_sqe e;

	npq_sqe_rw(&e, NPQ_OPC_READ, 1, seq, 1, 0x1000, 0);
	return npq_enqueue(q, &e);
}

TEST_F(ring, full_and_refill)
{
	uint32_t d = variant->depth, i;
	struct fake_ctrl *c = self->c;
	struct npq *q = &self->q;
	struct npq_cqe cqe;
	struct npq_sqe before;
	uint64_t seq = 0;

	for (i = 0; i < d - 1; i++) {
		EXPECT_FALSE(npq_full(q));
		EXPECT_EQ(d - 1 - i, npq_space(q));
		ASSERT_EQ((int)i, enqueue_seq(q, seq++));
	}
	/* one slot stays empty */
	EXPECT_TRUE(npq_full(q));
	EXPECT_EQ(0u, npq_space(q));
	before = c->sq[q->sq_tail];
	EXPECT_EQ(-1, enqueue_seq(q, 999));
	EXPECT_EQ(-1, enqueue_seq(q, 999));
	EXPECT_EQ(0, memcmp(&before, &c->sq[q->sq_tail], sizeof(before)));
	EXPECT_EQ(d - 1, q->sq_tail);
	EXPECT_EQ(d - 1, q->next_cid);
	EXPECT_EQ(d - 1, q->pending_db);
	npq_ring_sq(q);
	EXPECT_EQ(d - 1, c->sq_db);

	/* fetched but not completed: the library cannot know yet */
	ASSERT_EQ(1u, ctrl_fetch(c, 1));
	EXPECT_EQ(-1, enqueue_seq(q, 999));

	/* one CQE reporting SQ head 1 frees exactly one slot */
	ASSERT_EQ(1u, ctrl_complete(c, ~0u));
	ASSERT_EQ(1, npq_poll(q, &cqe));
	EXPECT_EQ(1u, q->sq_head);
	EXPECT_EQ(1u, npq_space(q));
	EXPECT_FALSE(npq_full(q));
	ASSERT_EQ((int)(d - 1), enqueue_seq(q, seq++));
	EXPECT_TRUE(npq_full(q));
	EXPECT_EQ(-1, enqueue_seq(q, 999));
	npq_ring_sq(q);
	npq_ring_cq(q);

	/* drain: everything completes once, in order */
	ASSERT_EQ(d - 1, ctrl_fetch(c, ~0u));
	ASSERT_EQ(d - 1, ctrl_complete(c, ~0u));
	for (i = 1; i < d; i++) {
		ASSERT_EQ(1, npq_poll(q, &cqe));
		EXPECT_EQ(i, npq_cqe_cid(&cqe));
		EXPECT_EQ(i, npq_cqe_dw0(&cqe));
	}
	EXPECT_EQ(0, npq_poll(q, &cqe));
	npq_ring_cq(q);
	EXPECT_EQ(q->cq_head, c->cq_db);
	EXPECT_EQ(d - 1, npq_space(q));
	EXPECT_EQ(0u, c->errors);
}

static uint32_t rnd(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return (uint32_t)(*s >> 16);
}

static unsigned char outstanding[65536 / 8];

static int cid_test_and_flip(uint16_t cid)
{
	int was = outstanding[cid / 8] >> (cid % 8) & 1;

	outstanding[cid / 8] ^= 1 << (cid % 8);
	return was;
}

TEST_F(ring, many_rounds_across_wrap)
{
	const uint32_t d = variant->depth;
	const uint64_t total = (uint64_t)d * 300 + d / 2 + 1;
	const uint16_t first = 0xfff0;	/* cross the cid wrap too */
	struct fake_ctrl *c = self->c;
	struct npq *q = &self->q;
	uint64_t submitted = 0, done = 0, wraps = 0, iter, s = 0x9e3779b97f4a7c15ull;
	struct npq_cqe cqe;
	uint32_t i, batch;
	uint8_t phase;
	int cid;

	memset(outstanding, 0, sizeof(outstanding));
	q->next_cid = first;
	for (iter = 0; done < total && iter < 100000000; iter++) {
		batch = rnd(&s) % (d + 1);
		for (i = 0; i < batch && submitted < total; i++) {
			int full = npq_full(q);

			cid = enqueue_seq(q, submitted);
			if (full) {
				ASSERT_EQ(-1, cid);
				break;
			}
			ASSERT_EQ(cid_of(first, submitted), cid);
			ASSERT_EQ(0, cid_test_and_flip(cid));	/* unique */
			submitted++;
			if (rnd(&s) & 1)
				ring_sq(_metadata, q, c);
		}
		if (q->pending_db)
			ring_sq(_metadata, q, c);

		ctrl_fetch(c, rnd(&s) % (d + 1));
		ctrl_complete(c, rnd(&s) % (d + 1));

		for (;;) {
			phase = q->phase;
			if (!npq_poll(q, &cqe))
				break;
			ASSERT_EQ(phase, npq_cqe_phase(&cqe));
			ASSERT_EQ(done, npq_cqe_dw0(&cqe));	/* in order */
			ASSERT_EQ(cid_of(first, done), npq_cqe_cid(&cqe));
			ASSERT_EQ(1, cid_test_and_flip(npq_cqe_cid(&cqe)));
			ASSERT_EQ(0, npq_cqe_status(&cqe));
			ASSERT_EQ(5, npq_cqe_sqid(&cqe));
			ASSERT_EQ(npq_cqe_sq_head(&cqe), q->sq_head);
			if (q->cq_head == 0) {
				ASSERT_EQ(phase ^ 1, q->phase);	/* flips */
				wraps++;
			} else {
				ASSERT_EQ(phase, q->phase);
			}
			done++;
		}
		if (rnd(&s) & 1) {
			npq_ring_cq(q);
			ASSERT_EQ(q->cq_head, c->cq_db);
		}
	}
	ASSERT_EQ(total, done);
	ASSERT_EQ(total, submitted);
	EXPECT_EQ(total, c->fetched);
	EXPECT_EQ(total, c->posted);
	EXPECT_EQ(total / d, wraps);
	EXPECT_EQ(total % d, q->cq_head);
	EXPECT_EQ((wraps & 1) ^ 1, q->phase);
	EXPECT_EQ(0, npq_poll(q, &cqe));	/* nothing twice */
	npq_ring_cq(q);
	EXPECT_EQ(q->cq_head, c->cq_db);
	EXPECT_EQ(0u, c->errors);
	TH_LOG("depth %u: %llu commands, %llu CQ wraps, %llu iterations",
	       d, (unsigned long long)total, (unsigned long long)wraps,
	       (unsigned long long)iter);
}

static int ctrl_stop;

static void *ctrl_thread(void *arg)
{
	struct fake_ctrl *c = arg;

	while (!__atomic_load_n(&ctrl_stop, __ATOMIC_ACQUIRE)) {
		uint32_t n = ctrl_fetch(c, ~0u);

		n += ctrl_complete(c, ~0u);
		if (!n)
			sched_yield();
	}
	return NULL;
}

/* Seconds of the clock: the stall guard of the threaded test */
static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/*
 * The controller in its own thread, racing the library for real.  Under
 * QEMU's TCG the two vCPUs are host threads beside another VM's on two
 * cores: the controller's thread may not run for seconds.  The test
 * gives up only after NO_PROGRESS_S without a completion, and has the
 * time for that (the harness's default 30 s held setup, run and stall).
 */
#define NO_PROGRESS_S	60

FIXTURE(threaded) {
	struct fake_ctrl *c;
};

FIXTURE_SETUP(threaded)
{
	self->c = ctrl_new(16, 2);
	ASSERT_NE(NULL, self->c);
}

FIXTURE_TEARDOWN(threaded)
{
	free(self->c);
}

TEST_F_TIMEOUT(threaded, controller, 2 * NO_PROGRESS_S + 60)
{
	const uint64_t total = 200000;
	struct fake_ctrl *c = self->c;
	uint64_t submitted = 0, done = 0, idle = 0;
	double start = now_s(), last = start;
	struct npq_cqe cqe;
	struct npq q;
	pthread_t t;
	int bad = 0;

	c->check_seq = 1;
	ctrl_attach(&q, c);
	ASSERT_EQ(0, pthread_create(&t, NULL, ctrl_thread, c));
	while (done < total && !bad) {
		uint64_t was = done;

		while (submitted < total && !npq_full(&q) &&
		       q.pending_db < 8) {
			if (enqueue_seq(&q, submitted) < 0)
				break;
			submitted++;
		}
		if (q.pending_db)
			npq_ring_sq(&q);
		while (npq_poll(&q, &cqe)) {
			if (npq_cqe_dw0(&cqe) != done ||
			    npq_cqe_cid(&cqe) != cid_of(0, done) ||
			    npq_cqe_status(&cqe)) {
				bad = 1;
				break;
			}
			done++;
		}
		npq_ring_cq(&q);
		if (was != done) {
			last = now_s();
			continue;
		}
		idle++;
		if (!(idle % 1024) && now_s() - last > NO_PROGRESS_S)
			break;
		sched_yield();
	}
	__atomic_store_n(&ctrl_stop, 1, __ATOMIC_RELEASE);
	pthread_join(t, NULL);
	TH_LOG("%llu of %llu completed (%llu submitted, %llu fetched) in %.1f s, %llu idle rounds",
	       (unsigned long long)done, (unsigned long long)total,
	       (unsigned long long)submitted, (unsigned long long)c->fetched,
	       now_s() - start, (unsigned long long)idle);
	EXPECT_EQ(0, bad);
	EXPECT_EQ(total, done);
	EXPECT_EQ(total, c->posted);
	EXPECT_EQ(0u, c->errors);
}

TEST_HARNESS_MAIN
