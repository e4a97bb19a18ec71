// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_mem: mem.c's pure parts, where a queue's doorbells
 * are and the guarantee of a reservation with a dma-buf.  Included at the
 * end of mem.c (the KUnit #include pattern), so it tests static functions;
 * it runs when nvme-peer loads.
 */
#include <kunit/test.h>

/* ---- doorbells ---------------------------------------------------------------- */

struct np_db_case {
	u32 stride;		/* in 32-bit words, as CAP.DSTRD gives it */
	u16 qid;
	u32 sq_off, cq_off;	/* in the region */
	size_t size;
};

/*
 * The doorbell region of a direct queue: both doorbells inside it, also
 * when the stride puts the CQ head doorbell pages after the SQ tail.
 */
static void np_test_db_region(struct kunit *test)
{
	static const struct np_db_case cases[] = {
		{ 1, 1, 0x008, 0x00c, PAGE_SIZE },	/* QEMU: 4 bytes */
		{ 1, 9, 0x048, 0x04c, PAGE_SIZE },
		{ 1, 511, 0xff8, 0xffc, PAGE_SIZE },	/* the page's end */
		{ 1, 512, 0x000, 0x004, PAGE_SIZE },	/* the next page */
		{ 512, 1, 0x000, 0x800, PAGE_SIZE },	/* 2 KiB stride */
		{ 1024, 1, 0x000, 0x1000, 2 * PAGE_SIZE }, /* 4 KiB */
		{ 2048, 3, 0x000, 0x2000, 3 * PAGE_SIZE }, /* 8 KiB */
	};
	struct nvme_pci_peer_info info = { .bar_phys = 0xfe000000 };
	struct np_db_region r;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct np_db_case *c = &cases[i];

		info.db_stride = c->stride;
		np_db_region(&info, c->qid, &r);
		KUNIT_EXPECT_EQ_MSG(test, r.sq_off, c->sq_off, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.cq_off, c->cq_off, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.size, c->size, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.phys + r.sq_off,
				    info.bar_phys + np_db_off(&info, c->qid, false),
				    "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.phys + r.cq_off,
				    info.bar_phys + np_db_off(&info, c->qid, true),
				    "case %d", i);
		KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(r.phys));
	}
}

/* ---- guarantees ---------------------------------------------------------------- */

/*
 * Without a peer device the guarantee is the CPU's only while the shadow
 * SQ is in host memory: in a dma-buf a device nvme-peer does not know
 * writes the commands.
 */
static void np_test_guarantee_dmabuf(struct kunit *test)
{
	struct nvme_peer_ctrl *pctrl = kunit_kzalloc(test, sizeof(*pctrl),
						     GFP_KERNEL);
	struct nvme_peer_queue *q = kunit_kzalloc(test, sizeof(*q),
						  GFP_KERNEL);
	struct pci_dev *peer = kunit_kzalloc(test, sizeof(*peer), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pctrl);
	KUNIT_ASSERT_NOT_NULL(test, q);
	KUNIT_ASSERT_NOT_NULL(test, peer);
	q->pctrl = pctrl;
	q->params.mode = NVME_PEER_MODE_MEDIATED;
	q->params.sq_placement = NVME_PEER_PLACE_HOST;
	q->params.cq_placement = NVME_PEER_PLACE_HOST;
	q->params.data_placement = NVME_PEER_PLACE_HOST;
	KUNIT_EXPECT_EQ(test, np_guarantee(q), NVME_PEER_GUARANTEE_CPU);

	/* a device fills the data and reads the CQ: commands stay the CPU's */
	q->params.data_placement = NVME_PEER_PLACE_DMABUF;
	q->params.cq_placement = NVME_PEER_PLACE_DMABUF;
	KUNIT_EXPECT_EQ(test, np_guarantee(q), NVME_PEER_GUARANTEE_CPU);

	/* a device writes the shadow SQ */
	q->params.sq_placement = NVME_PEER_PLACE_DMABUF;
	KUNIT_EXPECT_EQ(test, np_guarantee(q), NVME_PEER_GUARANTEE_NONE);
	q->params.cq_placement = NVME_PEER_PLACE_HOST;
	q->params.data_placement = NVME_PEER_PLACE_HOST;
	KUNIT_EXPECT_EQ(test, np_guarantee(q), NVME_PEER_GUARANTEE_NONE);
	/* also beside a peer device: the buffer's other devices may write */
	q->peer = peer;
	KUNIT_EXPECT_EQ(test, np_guarantee(q), NVME_PEER_GUARANTEE_NONE);

	/* direct mode: nothing, as always */
	q->peer = NULL;
	q->params.sq_placement = NVME_PEER_PLACE_HOST;
	q->params.mode = NVME_PEER_MODE_DIRECT;
	KUNIT_EXPECT_EQ(test, np_guarantee(q), NVME_PEER_GUARANTEE_NONE);
}

static struct kunit_case nvme_peer_mem_cases[] = {
	KUNIT_CASE(np_test_db_region),
	KUNIT_CASE(np_test_guarantee_dmabuf),
	{}
};

static struct kunit_suite nvme_peer_mem_suite = {
	.name = "nvme_peer_mem",
	.test_cases = nvme_peer_mem_cases,
};

kunit_test_suite(nvme_peer_mem_suite);
