// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_dmabuf: dmabuf.c's pure parts, the checks of a
 * dma-buf range, the pieces of a mapping and where it is.  Included at the
 * end of dmabuf.c (the KUnit #include pattern); it runs when nvme-peer
 * loads.
 */
#include <kunit/test.h>

static void np_test_dmabuf_validate(struct kunit *test)
{
	struct dma_buf *bufs = kunit_kcalloc(test, 2, sizeof(*bufs), GFP_KERNEL);
	struct dma_buf *a = &bufs[0], *b = &bufs[1];
	struct nvme_peer_params p = {
		.depth = 64, .sq = NVME_PEER_PLACE_HOST,
		.cq = NVME_PEER_PLACE_HOST, .data = NVME_PEER_PLACE_DMABUF,
		.data_size = 4 * PAGE_SIZE,
	};

	KUNIT_ASSERT_NOT_NULL(test, bufs);
	a->size = 16 * PAGE_SIZE;
	b->size = PAGE_SIZE;
	p.data_buf = (struct nvme_peer_dmabuf_range){ a, 0, 4 * PAGE_SIZE };

	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), 0);
	p.data_buf.offset = 12 * PAGE_SIZE;	/* the last four pages */
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), 0);
	p.data_buf.offset = 13 * PAGE_SIZE;	/* past the end */
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), -EINVAL);
	p.data_buf.offset = 100;		/* unaligned */
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), -EINVAL);
	p.data_buf.offset = U64_MAX & PAGE_MASK;	/* wraps */
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), -EINVAL);
	p.data_buf.offset = 0;
	p.data_buf.length = 2 * PAGE_SIZE;	/* not the data size */
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), -EINVAL);
	p.data_buf.length = 4 * PAGE_SIZE;
	p.data_buf.dmabuf = NULL;		/* placement without buffer */
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), -EINVAL);
	p.data_buf.dmabuf = a;

	/* a range for a region not in a dma-buf */
	p.sq_buf.offset = PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), -EINVAL);

	/* the SQ in the same buffer: fine apart, refused overlapping */
	p.sq = NVME_PEER_PLACE_DMABUF;
	p.sq_buf = (struct nvme_peer_dmabuf_range){ a, 8 * PAGE_SIZE,
						    np_sq_bytes(64) };
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), 0);
	p.sq_buf.offset = 3 * PAGE_SIZE;
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), -EINVAL);
	/* too small for the depth */
	p.sq_buf = (struct nvme_peer_dmabuf_range){ b, 0, PAGE_SIZE };
	p.depth = 128;
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), -EINVAL);
	p.depth = 64;
	KUNIT_EXPECT_EQ(test, np_dmabuf_validate(&p), 0);
}

/* A fake mapping: @n pieces of @len bytes at @dma[i], struct pages or not. */
static struct sg_table *np_test_sgt(struct kunit *test, const dma_addr_t *dma,
				    const unsigned int *len, int n,
				    struct page *page)
{
	struct sg_table *sgt = kunit_kzalloc(test, sizeof(*sgt), GFP_KERNEL);
	struct scatterlist *sg;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, sgt);
	KUNIT_ASSERT_EQ(test, sg_alloc_table(sgt, n, GFP_KERNEL), 0);
	for_each_sgtable_sg(sgt, sg, i) {
		if (page)
			sg_set_page(sg, page, len[i], 0);
		sg_dma_address(sg) = dma[i];
		sg_dma_len(sg) = len[i];
	}
	sgt->nents = n;
	return sgt;
}

static void np_test_dmabuf_segs(struct kunit *test)
{
	static const dma_addr_t dma[] = { 0x100000, 0x101000, 0x200000,
					  0x300000 };
	static const unsigned int len[] = { PAGE_SIZE, 2 * PAGE_SIZE,
					    PAGE_SIZE, PAGE_SIZE };
	struct np_dmabuf_seg segs[4];
	struct np_dmabuf d = { .segs = segs };
	struct sg_table *sgt = np_test_sgt(test, dma, len, 4, NULL);
	int n;

	/* pieces 0 and 1 are contiguous: merged */
	n = np_dmabuf_segs(sgt, 0, 5 * PAGE_SIZE, segs);
	KUNIT_ASSERT_EQ(test, n, 3);
	KUNIT_EXPECT_EQ(test, segs[0].len, 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, segs[1].off, 3 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, segs[2].dma, 0x300000);
	d.nr_segs = n;
	KUNIT_EXPECT_EQ(test, np_dmabuf_ctrl_addr(&d, 0x10), 0x100010);
	KUNIT_EXPECT_EQ(test, np_dmabuf_ctrl_addr(&d, 2 * PAGE_SIZE + 8),
			0x102008);
	KUNIT_EXPECT_EQ(test, np_dmabuf_ctrl_addr(&d, 3 * PAGE_SIZE), 0x200000);
	KUNIT_EXPECT_EQ(test, np_dmabuf_ctrl_addr(&d, 5 * PAGE_SIZE - 1),
			0x300000 + PAGE_SIZE - 1);

	/* a range inside: starts in the middle of piece 1 */
	n = np_dmabuf_segs(sgt, 2 * PAGE_SIZE, 2 * PAGE_SIZE, segs);
	KUNIT_ASSERT_EQ(test, n, 2);
	KUNIT_EXPECT_EQ(test, segs[0].dma, 0x102000);
	KUNIT_EXPECT_EQ(test, segs[0].len, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, segs[1].off, PAGE_SIZE);

	/* longer than the mapping */
	KUNIT_EXPECT_EQ(test, np_dmabuf_segs(sgt, PAGE_SIZE, 5 * PAGE_SIZE,
					     segs), -EINVAL);
	sg_free_table(sgt);
}

static void np_test_dmabuf_unaligned(struct kunit *test)
{
	static const dma_addr_t dma[] = { 0x100000, 0x200800 };
	static const unsigned int len[] = { PAGE_SIZE, PAGE_SIZE };
	struct sg_table *sgt = np_test_sgt(test, dma, len, 2, NULL);
	struct np_dmabuf_seg segs[2];

	KUNIT_EXPECT_EQ(test, np_dmabuf_segs(sgt, 0, PAGE_SIZE, segs), 1);
	KUNIT_EXPECT_EQ(test, np_dmabuf_segs(sgt, 0, 2 * PAGE_SIZE, segs),
			-EOPNOTSUPP);
	sg_free_table(sgt);
}

/* Host pages are system memory; entries without pages device memory. */
static void np_test_dmabuf_location(struct kunit *test)
{
	static const dma_addr_t dma[] = { 0x100000 };
	static const unsigned int len[] = { PAGE_SIZE };
	struct page *page = alloc_page(GFP_KERNEL);
	struct sg_table *sgt;

	KUNIT_ASSERT_NOT_NULL(test, page);
	sgt = np_test_sgt(test, dma, len, 1, NULL);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(sgt), NVME_PEER_LOC_P2P);
	sg_free_table(sgt);
	sgt = np_test_sgt(test, dma, len, 1, page);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(sgt), NVME_PEER_LOC_SYSTEM);
	sg_free_table(sgt);
	__free_page(page);
}

static struct kunit_case nvme_peer_dmabuf_cases[] = {
	KUNIT_CASE(np_test_dmabuf_validate),
	KUNIT_CASE(np_test_dmabuf_segs),
	KUNIT_CASE(np_test_dmabuf_unaligned),
	KUNIT_CASE(np_test_dmabuf_location),
	{}
};

static struct kunit_suite nvme_peer_dmabuf_suite = {
	.name = "nvme_peer_dmabuf",
	.test_cases = nvme_peer_dmabuf_cases,
};

kunit_test_suite(nvme_peer_dmabuf_suite);
