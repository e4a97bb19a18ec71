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
		.depth = 64, .sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = NVME_PEER_PLACE_DMABUF,
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
	p.sq_placement = NVME_PEER_PLACE_DMABUF;
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

/*
 * Addresses for the location tests: a host page pair (System RAM), and a
 * "BAR": the top of the physical address space, where no System RAM is.
 * A fake IOMMU maps IOVA NP_IOVA + [0, 2 pages) to the BAR, the next two
 * pages to the host pages, and nothing else (a bus address that bypasses
 * it, as P2PDMA below a switch).
 */
#define NP_IOVA		0x100000
static phys_addr_t np_test_ram;
#define NP_TEST_BAR	((PHYS_ADDR_MAX & PAGE_MASK) - 16 * PAGE_SIZE)

static phys_addr_t np_test_iova_to_phys(struct iommu_domain *dom,
					dma_addr_t iova)
{
	if (iova >= NP_IOVA && iova < NP_IOVA + 2 * PAGE_SIZE)
		return NP_TEST_BAR + (iova - NP_IOVA);
	if (iova >= NP_IOVA + 2 * PAGE_SIZE && iova < NP_IOVA + 4 * PAGE_SIZE)
		return np_test_ram + (iova - NP_IOVA - 2 * PAGE_SIZE);
	return 0;
}

static const struct iommu_domain_ops np_test_iommu_ops = {
	.iova_to_phys = np_test_iova_to_phys,
};

#define NP_SEG(a, l)	((struct np_dmabuf_seg){ .dma = (a), .len = (l) })

/*
 * Where a range is, from the attachment's peer2peer and the controller's
 * DMA addresses only: never from a page.
 */
static void np_test_dmabuf_location(struct kunit *test)
{
	struct device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct iommu_domain paging = { .type = IOMMU_DOMAIN_UNMANAGED,
				       .ops = &np_test_iommu_ops };
	struct iommu_domain ident = { .type = IOMMU_DOMAIN_IDENTITY };
	struct page *page = alloc_pages(GFP_KERNEL, 1);
	struct np_dmabuf_seg s[2];
	dma_addr_t ram, bar;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, page);
	np_test_ram = page_to_phys(page);
	ram = phys_to_dma(dev, np_test_ram);
	bar = phys_to_dma(dev, NP_TEST_BAR);

	/* no peer-to-peer agreed: the exporter must give system memory */
	s[0] = NP_SEG(bar, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, NULL, false, s, 1),
			NVME_PEER_LOC_SYSTEM);

	/* no IOMMU, or an identity domain: the DMA address is the bus's */
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, NULL, true, s, 1),
			NVME_PEER_LOC_P2P);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, &ident, true, s, 1),
			NVME_PEER_LOC_P2P);
	s[0] = NP_SEG(ram, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, NULL, true, s, 1),
			NVME_PEER_LOC_SYSTEM);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, &ident, true, s, 1),
			NVME_PEER_LOC_SYSTEM);
	/* one piece of host memory among device memory is enough */
	s[0] = NP_SEG(bar, 2 * PAGE_SIZE);
	s[1] = NP_SEG(ram + PAGE_SIZE, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, NULL, true, s, 2),
			NVME_PEER_LOC_SYSTEM);

	/* a translating IOMMU: followed page by page */
	s[0] = NP_SEG(NP_IOVA, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, &paging, true, s, 1),
			NVME_PEER_LOC_P2P);
	s[0] = NP_SEG(NP_IOVA + 2 * PAGE_SIZE, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, &paging, true, s, 1),
			NVME_PEER_LOC_SYSTEM);
	/* contiguous for the controller, device then host memory */
	s[0] = NP_SEG(NP_IOVA + PAGE_SIZE, 2 * PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, &paging, true, s, 1),
			NVME_PEER_LOC_SYSTEM);
	/* not mapped by the IOMMU: a bus address routed below it */
	s[0] = NP_SEG(0x40000000, PAGE_SIZE);
	s[1] = NP_SEG(NP_IOVA, PAGE_SIZE);
	KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, &paging, true, s, 2),
			NVME_PEER_LOC_P2P);
	__free_pages(page, 1);
}

/*
 * CONFIG_DMABUF_DEBUG's scrambled page pointers, done here on every
 * kernel: the pieces and the location come from the DMA addresses alone
 * (the old np_dmabuf_location() dereferenced the scrambled pages).
 */
static void np_test_dmabuf_scrambled(struct kunit *test)
{
	static const unsigned int len[] = { PAGE_SIZE, PAGE_SIZE };
	const dma_addr_t dma[] = { NP_TEST_BAR, NP_TEST_BAR + PAGE_SIZE };
	struct device *dev = kunit_kzalloc(test, sizeof(*dev), GFP_KERNEL);
	struct page *page = alloc_page(GFP_KERNEL);
	struct np_dmabuf_seg segs[2];
	struct scatterlist *sg;
	struct sg_table *sgt;
	int i, n;

	KUNIT_ASSERT_NOT_NULL(test, dev);
	KUNIT_ASSERT_NOT_NULL(test, page);
	sgt = np_test_sgt(test, dma, len, 2, page);
	for_each_sgtable_sg(sgt, sg, i)
		sg->page_link ^= ~0xffUL;	/* dma-buf.c's mangle_sg_table() */
	n = np_dmabuf_segs(sgt, 0, 2 * PAGE_SIZE, segs);
	KUNIT_EXPECT_EQ(test, n, 1);
	if (n == 1)
		KUNIT_EXPECT_EQ(test, np_dmabuf_location(dev, NULL, true,
							 segs, n),
				NVME_PEER_LOC_P2P);
	for_each_sgtable_sg(sgt, sg, i)
		sg->page_link ^= ~0xffUL;
	sg_free_table(sgt);
	__free_page(page);
}

static struct kunit_case nvme_peer_dmabuf_cases[] = {
	KUNIT_CASE(np_test_dmabuf_validate),
	KUNIT_CASE(np_test_dmabuf_segs),
	KUNIT_CASE(np_test_dmabuf_unaligned),
	KUNIT_CASE(np_test_dmabuf_location),
	KUNIT_CASE(np_test_dmabuf_scrambled),
	{}
};

static struct kunit_suite nvme_peer_dmabuf_suite = {
	.name = "nvme_peer_dmabuf",
	.test_cases = nvme_peer_dmabuf_cases,
};

kunit_test_suite(nvme_peer_dmabuf_suite);
