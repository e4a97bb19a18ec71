// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_file: file.c's pure parts, how the pieces that
 * ->map_blocks() returns become the map and the guard's extents.  Included
 * at the end of file.c (the KUnit #include pattern); runs when nvme-peer
 * loads.
 */
#include <kunit/test.h>

/* A binding with no file: enough for the map. */
static struct np_bind *np_test_bind(struct kunit *test)
{
	struct np_bind *b = kunit_kzalloc(test, sizeof(*b), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, b);
	return b;
}

static void np_test_bind_free_map(struct np_bind *b)
{
	kvfree(b->map);
	kvfree(b->daddr);
	kvfree(b->lbas);
}

/* Pieces contiguous in the file and on disk merge; others do not. */
static void np_test_bind_add_merges(struct kunit *test)
{
	struct np_bind *b = np_test_bind(test);
	u32 room = 0;

	KUNIT_EXPECT_EQ(test, 0, np_bind_add(b, 0, 1 << 20, 4096, &room));
	KUNIT_EXPECT_EQ(test, 0, np_bind_add(b, 4096, (1 << 20) + 4096, 4096,
					     &room));
	/* on disk elsewhere */
	KUNIT_EXPECT_EQ(test, 0, np_bind_add(b, 8192, 8 << 20, 4096, &room));
	/* after a hole in the file, on disk right after */
	KUNIT_EXPECT_EQ(test, 0, np_bind_add(b, 65536, (8 << 20) + 4096, 4096,
					     &room));
	KUNIT_ASSERT_EQ(test, 3, b->nr_map);
	KUNIT_EXPECT_EQ(test, 8192, b->map[0].nlb);
	KUNIT_EXPECT_EQ(test, 8192, b->map[1].off);
	KUNIT_EXPECT_EQ(test, 65536, b->map[2].off);
	np_test_bind_free_map(b);
}

/* The map grows past its first allocation and stops at the limit. */
static void np_test_bind_add_grows_and_stops(struct kunit *test)
{
	struct np_bind *b = np_test_bind(test);
	u32 room = 0, i;
	int ret = 0;

	for (i = 0; i <= NVME_PEER_MAX_EXTENTS && !ret; i++)
		ret = np_bind_add(b, (u64)i * 8192, (u64)i * 16384, 4096,
				  &room);
	KUNIT_EXPECT_EQ(test, -E2BIG, ret);
	KUNIT_EXPECT_EQ(test, NVME_PEER_MAX_EXTENTS, b->nr_map);
	KUNIT_EXPECT_EQ(test, (u64)(NVME_PEER_MAX_EXTENTS - 1) * 16384,
			b->daddr[NVME_PEER_MAX_EXTENTS - 1]);
	np_test_bind_free_map(b);
}

/* Byte addresses to LBAs: partition offset, LBA size, namespace end. */
static void np_test_bind_policy(struct kunit *test)
{
	struct nvme_peer_policy pol = { };
	struct np_bind *b = np_test_bind(test);
	u32 room = 0;

	b->part_off = 1 << 20;
	KUNIT_ASSERT_EQ(test, 0, np_bind_add(b, 0, 4096, 8192, &room));
	KUNIT_ASSERT_EQ(test, 0, np_bind_add(b, 8192, 65536, 4096, &room));
	KUNIT_ASSERT_EQ(test, 0, np_bind_policy(b, 9, 1 << 20, &pol));
	KUNIT_EXPECT_EQ(test, 2, pol.nr_extents);
	KUNIT_EXPECT_EQ(test, ((1 << 20) + 4096) >> 9, pol.extents[0].slba);
	KUNIT_EXPECT_EQ(test, 16, pol.extents[0].nlb);
	KUNIT_EXPECT_EQ(test, ((1 << 20) + 65536) >> 9, b->map[1].slba);
	KUNIT_EXPECT_EQ(test, 8, b->map[1].nlb);
	KUNIT_EXPECT_EQ(test, 8192, b->map[1].off);
	np_test_bind_free_map(b);

	/* 4 KiB LBAs and a partition starting at 512 bytes: refused */
	b = np_test_bind(test);
	room = 0;
	b->part_off = 512;
	KUNIT_ASSERT_EQ(test, 0, np_bind_add(b, 0, 4096, 4096, &room));
	KUNIT_EXPECT_EQ(test, -EINVAL, np_bind_policy(b, 12, 1 << 20, &pol));
	np_test_bind_free_map(b);

	/* past the namespace's end: refused */
	b = np_test_bind(test);
	room = 0;
	KUNIT_ASSERT_EQ(test, 0, np_bind_add(b, 0, 1 << 20, 4096, &room));
	KUNIT_EXPECT_EQ(test, -EINVAL, np_bind_policy(b, 9, 2049, &pol));
	np_test_bind_free_map(b);
}

/*
 * The readers a read binding may use: Read and Flush (the default, 0, is
 * Read); every other opcode bit, known to the guard or not, is a writer.
 */
static void np_test_bind_reader_ops(struct kunit *test)
{
	u32 bit;

	KUNIT_EXPECT_TRUE(test, np_bind_reader_opcodes(0));
	KUNIT_EXPECT_TRUE(test, np_bind_reader_opcodes(NVME_PEER_OPCODE_READ |
						       NVME_PEER_OPCODE_FLUSH));
	for (bit = 0; bit < 32; bit++)
		KUNIT_EXPECT_EQ_MSG(test, (int)np_bind_reader_opcodes(BIT(bit)),
				    BIT(bit) == NVME_PEER_OPCODE_READ ||
				    BIT(bit) == NVME_PEER_OPCODE_FLUSH,
				    "opcode bit %u", bit);
	KUNIT_EXPECT_FALSE(test, np_bind_reader_opcodes(NVME_PEER_OPCODES_ALL));
}

/*
 * Attaching after a break fails and leaves the binding as it was: not
 * attached (so its release neither drops the page cache nor touches the
 * file's times) and without a queue for the break to fence.
 */
static void np_test_bind_attach(struct kunit *test)
{
	static const enum nvme_peer_lease gone[] = {
		NVME_PEER_LEASE_BREAKING, NVME_PEER_LEASE_RETURNED,
		NVME_PEER_LEASE_NONE,
	};
	struct nvme_peer_queue *q = kunit_kzalloc(test, sizeof(*q),
						  GFP_KERNEL);
	struct np_bind *b;
	int i;

	KUNIT_ASSERT_NOT_NULL(test, q);
	for (i = 0; i < ARRAY_SIZE(gone); i++) {
		b = np_test_bind(test);
		spin_lock_init(&b->lock);
		b->lease = gone[i];
		KUNIT_EXPECT_EQ(test, -EAGAIN, np_bind_attach(b, q));
		KUNIT_EXPECT_FALSE_MSG(test, b->attached, "lease %d", gone[i]);
		KUNIT_EXPECT_NULL(test, b->q);
	}
	b = np_test_bind(test);
	spin_lock_init(&b->lock);
	b->lease = NVME_PEER_LEASE_HELD;
	KUNIT_EXPECT_EQ(test, 0, np_bind_attach(b, q));
	KUNIT_EXPECT_TRUE(test, b->attached);
	KUNIT_EXPECT_PTR_EQ(test, q, b->q);
}

static struct kunit_case nvme_peer_file_cases[] = {
	KUNIT_CASE(np_test_bind_add_merges),
	KUNIT_CASE(np_test_bind_add_grows_and_stops),
	KUNIT_CASE(np_test_bind_policy),
	KUNIT_CASE(np_test_bind_reader_ops),
	KUNIT_CASE(np_test_bind_attach),
	{}
};

static struct kunit_suite nvme_peer_file_suite = {
	.name = "nvme_peer_file",
	.test_cases = nvme_peer_file_cases,
};

kunit_test_suite(nvme_peer_file_suite);
