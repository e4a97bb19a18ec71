// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_window: a window's arithmetic (extents to whole
 * provider pages, a file's blocks to view pages, the lookup a fault
 * makes) and its revocation rules (once, never after the owner's put).
 * Included at the end of window.c (the KUnit #include pattern).
 */
#include <kunit/test.h>

/* ---- namespace extents -------------------------------------------------- */

static void np_test_win_whole_ns(struct kunit *test)
{
	struct np_win_seg segs[1];
	u32 nr;

	/* 4096-byte LBAs: the whole namespace, one piece */
	KUNIT_ASSERT_EQ(test, np_win_segs_ns(NULL, 0, 12, 256, segs, &nr), 0);
	KUNIT_ASSERT_EQ(test, nr, 1U);
	KUNIT_EXPECT_EQ(test, segs[0].view_off, 0ULL);
	KUNIT_EXPECT_EQ(test, segs[0].pmr_off, 0ULL);
	KUNIT_EXPECT_EQ(test, segs[0].len, 256ULL << 12);
	/* 512-byte LBAs, 9 of them: the last, partial page is left out */
	KUNIT_ASSERT_EQ(test, np_win_segs_ns(NULL, 0, 9, 9, segs, &nr), 0);
	KUNIT_EXPECT_EQ(test, segs[0].len, (u64)PAGE_SIZE);
	/* fewer than a page: nothing to show */
	KUNIT_EXPECT_EQ(test, np_win_segs_ns(NULL, 0, 9, 7, segs, &nr), -EINVAL);
}

static void np_test_win_unaligned_512(struct kunit *test)
{
	/* LBAs 1..16 and 17..23 (512 bytes): bytes 512..12288 */
	struct nvme_peer_extent ext[] = {
		{ .slba = 1, .nlb = 16 },	/* 512..8704: page 4096..8192 */
		{ .slba = 17, .nlb = 7 },	/* 8704..12288: page 8192..12288 */
	};
	struct np_win_seg segs[2];
	u32 nr;

	KUNIT_ASSERT_EQ(test, np_win_segs_ns(ext, 2, 9, 1024, segs, &nr), 0);
	/* two touching pieces, merged */
	KUNIT_ASSERT_EQ(test, nr, 1U);
	KUNIT_EXPECT_EQ(test, segs[0].view_off, 4096ULL);
	KUNIT_EXPECT_EQ(test, segs[0].len, 8192ULL);
	/* the page holding LBA 0 is never shown: LBA 0 is not in the extents */
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 0), NULL);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 4095), NULL);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 4096), &segs[0]);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 12287), &segs[0]);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 12288), NULL);
}

static void np_test_win_sorted_disjoint(struct kunit *test)
{
	struct nvme_peer_extent ext[] = {
		{ .slba = 100, .nlb = 4 },
		{ .slba = 10, .nlb = 2 },
		{ .slba = 11, .nlb = 3 },	/* overlaps the one before */
		{ .slba = 50, .nlb = 1 },
	};
	struct np_win_seg segs[4];
	u32 nr, i;

	KUNIT_ASSERT_EQ(test, np_win_segs_ns(ext, 4, 12, 1024, segs, &nr), 0);
	KUNIT_ASSERT_EQ(test, nr, 3U);
	KUNIT_EXPECT_EQ(test, segs[0].view_off, 10ULL << 12);
	KUNIT_EXPECT_EQ(test, segs[0].len, 4ULL << 12);
	KUNIT_EXPECT_EQ(test, segs[1].view_off, 50ULL << 12);
	KUNIT_EXPECT_EQ(test, segs[2].view_off, 100ULL << 12);
	for (i = 0; i < nr; i++)
		KUNIT_EXPECT_EQ(test, segs[i].view_off, segs[i].pmr_off);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, (14ULL << 12)), NULL);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, (50ULL << 12) + 5),
			    &segs[1]);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 104ULL << 12), NULL);
}

static void np_test_win_bad_extents(struct kunit *test)
{
	struct nvme_peer_extent past = { .slba = 1000, .nlb = 25 };
	struct nvme_peer_extent empty = { .slba = 0, .nlb = 0 };
	struct nvme_peer_extent wrap = { .slba = U64_MAX - 1, .nlb = 4 };
	struct nvme_peer_extent big = { .slba = 1ULL << 60, .nlb = 1 };
	struct np_win_seg segs[1];
	u32 nr;

	KUNIT_EXPECT_EQ(test, np_win_segs_ns(&past, 1, 12, 1024, segs, &nr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, np_win_segs_ns(&empty, 1, 12, 1024, segs, &nr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, np_win_segs_ns(&wrap, 1, 12, U64_MAX, segs, &nr),
			-EINVAL);
	/* inside a huge namespace, but its byte offset wraps 64 bits */
	KUNIT_EXPECT_EQ(test, np_win_segs_ns(&big, 1, 12, U64_MAX, segs, &nr),
			-EINVAL);
}

/* ---- the provider ------------------------------------------------------------ */

static void np_test_win_fits(struct kunit *test)
{
	/* 512 MiB of 512-byte LBAs in a 512 MiB BAR: fits exactly */
	KUNIT_EXPECT_EQ(test, np_win_fits(1ULL << 20, 9, 512ULL << 20), 0);
	/* one LBA more does not */
	KUNIT_EXPECT_EQ(test, np_win_fits((1ULL << 20) + 1, 9, 512ULL << 20),
			-ENOSPC);
	/* 4096-byte LBAs: the size counts bytes, not LBAs */
	KUNIT_EXPECT_EQ(test, np_win_fits(1ULL << 17, 12, 512ULL << 20), 0);
	KUNIT_EXPECT_EQ(test, np_win_fits(1ULL << 18, 12, 512ULL << 20),
			-ENOSPC);
	/* a size whose bytes wrap 64 bits, an empty namespace */
	KUNIT_EXPECT_EQ(test, np_win_fits(1ULL << 60, 12, U64_MAX), -ENOSPC);
	KUNIT_EXPECT_EQ(test, np_win_fits(0, 9, 512ULL << 20), -ENOSPC);
}

/* ---- file maps ------------------------------------------------------------ */

static void np_test_win_file(struct kunit *test)
{
	/* a 4 KiB-block file from offset 8192: blocks at LBAs (512 B) 800, 64 */
	struct nvme_peer_file_extent map[] = {
		{ .off = 8192, .slba = 800, .nlb = 16 },	/* 2 pages */
		{ .off = 16384, .slba = 64, .nlb = 8 },		/* 1 page */
	};
	struct np_win_seg segs[2];
	u32 nr;

	KUNIT_ASSERT_EQ(test, np_win_segs_file(map, 2, 8192, 9, segs, &nr), 0);
	KUNIT_ASSERT_EQ(test, nr, 2U);
	KUNIT_EXPECT_EQ(test, segs[0].view_off, 0ULL);
	KUNIT_EXPECT_EQ(test, segs[0].pmr_off, 800ULL << 9);
	KUNIT_EXPECT_EQ(test, segs[0].len, 8192ULL);
	/* contiguous in the view, not on the media: two pieces */
	KUNIT_EXPECT_EQ(test, segs[1].view_off, 8192ULL);
	KUNIT_EXPECT_EQ(test, segs[1].pmr_off, 64ULL << 9);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 8191), &segs[0]);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 8192), &segs[1]);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 12288), NULL);
}

static void np_test_win_file_subpage(struct kunit *test)
{
	/* 1 KiB blocks: a run whose media offset is off the page grid */
	struct nvme_peer_file_extent skew = { .off = 0, .slba = 2, .nlb = 16 };
	/* on the grid, but shorter than a page */
	struct nvme_peer_file_extent small = { .off = 4096, .slba = 8, .nlb = 2 };
	/* before the range */
	struct nvme_peer_file_extent before = { .off = 0, .slba = 8, .nlb = 8 };
	struct np_win_seg segs[2];
	u32 nr;

	KUNIT_EXPECT_EQ(test, np_win_segs_file(&skew, 1, 0, 9, segs, &nr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, np_win_segs_file(&small, 1, 0, 9, segs, &nr),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, np_win_segs_file(&before, 1, 4096, 9, segs, &nr),
			-EINVAL);
}

static void np_test_win_file_small_blocks(struct kunit *test)
{
	/*
	 * 1 KiB blocks: runs that follow each other in the file and on the
	 * media make whole pages together; a run elsewhere on the media
	 * breaks the page it shares
	 */
	struct nvme_peer_file_extent map[] = {
		{ .off = 0, .slba = 16, .nlb = 2 },	/* 0..1 KiB at 8 KiB */
		{ .off = 1024, .slba = 18, .nlb = 14 },	/* ..8 KiB at 9 KiB */
		{ .off = 8192, .slba = 400, .nlb = 2 },	/* elsewhere */
		{ .off = 9216, .slba = 34, .nlb = 6 },	/* back */
	};
	struct np_win_seg segs[4];
	u32 nr;

	KUNIT_ASSERT_EQ(test, np_win_segs_file(map, 4, 0, 9, segs, &nr), 0);
	KUNIT_ASSERT_EQ(test, nr, 1U);
	KUNIT_EXPECT_EQ(test, segs[0].view_off, 0ULL);
	KUNIT_EXPECT_EQ(test, segs[0].pmr_off, 16ULL << 9);
	KUNIT_EXPECT_EQ(test, segs[0].len, 8192ULL);
	KUNIT_EXPECT_PTR_EQ(test, np_win_find(segs, nr, 8192), NULL);
}

/* ---- revocation: once, never after the put ------------------------------- */

struct np_test_win_owner {
	int calls;
	enum nvme_peer_reason reason;
};

static void np_test_win_cb(struct nvme_peer_window *w,
			   enum nvme_peer_reason reason, void *priv)
{
	struct np_test_win_owner *o = priv;

	o->calls++;
	o->reason = reason;
}

/* A controller with no hardware: lists, locks and a reference never last. */
static struct nvme_peer_ctrl *np_test_win_ctrl(struct kunit *test)
{
	struct nvme_peer_ctrl *pctrl = kunit_kzalloc(test, sizeof(*pctrl),
						     GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, pctrl);
	kref_init(&pctrl->ref);
	spin_lock_init(&pctrl->state_lock);
	init_rwsem(&pctrl->cb_sem);
	mutex_init(&pctrl->lock);
	np_win_ctrl_init(pctrl);
	return pctrl;
}

static struct nvme_peer_window *np_test_win_new(struct kunit *test,
						struct nvme_peer_ctrl *pctrl,
						u32 nsid,
						struct np_test_win_owner *o)
{
	struct nvme_peer_window *w = kzalloc(sizeof(*w), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, w);
	kref_init(&w->ref);
	kref_get(&pctrl->ref);
	w->pctrl = pctrl;
	w->nsid = nsid;
	w->revoke = np_test_win_cb;
	w->priv = o;
	spin_lock(&pctrl->state_lock);
	list_add_tail(&w->node, &pctrl->windows);
	spin_unlock(&pctrl->state_lock);
	return w;
}

static void np_test_win_revoke_once(struct kunit *test)
{
	struct nvme_peer_ctrl *pctrl = np_test_win_ctrl(test);
	struct np_test_win_owner a = { }, b = { };
	struct nvme_peer_window *wa = np_test_win_new(test, pctrl, 1, &a);
	struct nvme_peer_window *wb = np_test_win_new(test, pctrl, 2, &b);

	/* a namespace fence of nsid 1 leaves nsid 2 alone */
	np_win_revoke(pctrl, 1, NULL, NVME_PEER_REASON_NAMESPACE);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, a.reason, NVME_PEER_REASON_NAMESPACE);
	KUNIT_EXPECT_EQ(test, b.calls, 0);
	/* a reset after it: the first cause stays, nobody told twice */
	np_win_revoke(pctrl, 0, NULL, NVME_PEER_REASON_RESET);
	KUNIT_EXPECT_EQ(test, a.calls, 1);
	KUNIT_EXPECT_EQ(test, b.calls, 1);
	KUNIT_EXPECT_EQ(test, nvme_peer_window_revoked(wa),
			NVME_PEER_REASON_NAMESPACE);
	KUNIT_EXPECT_EQ(test, nvme_peer_window_revoked(wb),
			NVME_PEER_REASON_RESET);
	nvme_peer_window_put(wa);
	nvme_peer_window_put(wb);
	KUNIT_EXPECT_EQ(test, a.calls + b.calls, 2);
	KUNIT_EXPECT_TRUE(test, list_empty(&pctrl->windows));
	KUNIT_EXPECT_EQ(test, kref_read(&pctrl->ref), 1U);
}

static void np_test_win_put_then_revoke(struct kunit *test)
{
	struct nvme_peer_ctrl *pctrl = np_test_win_ctrl(test);
	struct np_test_win_owner a = { };
	struct nvme_peer_window *w = np_test_win_new(test, pctrl, 1, &a);

	nvme_peer_window_put(w);
	np_win_revoke(pctrl, 0, NULL, NVME_PEER_REASON_REMOVED);
	KUNIT_EXPECT_EQ(test, a.calls, 0);
	KUNIT_EXPECT_EQ(test, kref_read(&pctrl->ref), 1U);
}

static void np_test_win_ns_mark(struct kunit *test)
{
	struct nvme_peer_ctrl *pctrl = np_test_win_ctrl(test);
	struct np_test_win_owner a = { }, b = { };
	struct nvme_peer_window *wa = np_test_win_new(test, pctrl, 1, &a);
	struct nvme_peer_window *wb = np_test_win_new(test, pctrl, 2, &b);
	bool done;

	/* Format of nsid 2: waits until its window is revoked */
	spin_lock(&pctrl->state_lock);
	done = np_win_ns_mark(pctrl, 2, false);
	spin_unlock(&pctrl->state_lock);
	KUNIT_EXPECT_FALSE(test, done);
	np_win_ns_fence(pctrl);
	KUNIT_EXPECT_EQ(test, a.calls, 0);
	KUNIT_EXPECT_EQ(test, b.calls, 1);
	KUNIT_EXPECT_EQ(test, b.reason, NVME_PEER_REASON_NAMESPACE);
	spin_lock(&pctrl->state_lock);
	done = np_win_ns_mark(pctrl, 2, false);
	spin_unlock(&pctrl->state_lock);
	KUNIT_EXPECT_TRUE(test, done);
	/* a command on every namespace waits for nsid 1's too */
	spin_lock(&pctrl->state_lock);
	done = np_win_ns_mark(pctrl, 0, true);
	spin_unlock(&pctrl->state_lock);
	KUNIT_EXPECT_FALSE(test, done);
	nvme_peer_window_put(wa);
	nvme_peer_window_put(wb);
	KUNIT_EXPECT_EQ(test, a.calls, 0);
}

static void np_test_win_check(struct kunit *test)
{
	struct nvme_peer_extent ext = { .slba = 0, .nlb = 1 };
	struct nvme_peer_window_params p = { .nsid = 1 };

	KUNIT_EXPECT_EQ(test, np_win_check(&p, NP_OWNER_KERNEL), 0);
	p.nsid = 0;
	KUNIT_EXPECT_EQ(test, np_win_check(&p, NP_OWNER_KERNEL), -EINVAL);
	p.nsid = 1;
	p.nr_extents = 1;	/* no array */
	KUNIT_EXPECT_EQ(test, np_win_check(&p, NP_OWNER_KERNEL), -EINVAL);
	p.extents = &ext;
	KUNIT_EXPECT_EQ(test, np_win_check(&p, NP_OWNER_KERNEL), 0);
	p.nr_extents = NVME_PEER_MAX_EXTENTS + 1;
	KUNIT_EXPECT_EQ(test, np_win_check(&p, NP_OWNER_KERNEL), -EINVAL);
}

static struct kunit_case nvme_peer_window_cases[] = {
	KUNIT_CASE(np_test_win_whole_ns),
	KUNIT_CASE(np_test_win_unaligned_512),
	KUNIT_CASE(np_test_win_sorted_disjoint),
	KUNIT_CASE(np_test_win_bad_extents),
	KUNIT_CASE(np_test_win_fits),
	KUNIT_CASE(np_test_win_file),
	KUNIT_CASE(np_test_win_file_subpage),
	KUNIT_CASE(np_test_win_file_small_blocks),
	KUNIT_CASE(np_test_win_revoke_once),
	KUNIT_CASE(np_test_win_put_then_revoke),
	KUNIT_CASE(np_test_win_ns_mark),
	KUNIT_CASE(np_test_win_check),
	{}
};

static struct kunit_suite nvme_peer_window_suite = {
	.name = "nvme_peer_window",
	.test_cases = nvme_peer_window_cases,
};

kunit_test_suite(nvme_peer_window_suite);
