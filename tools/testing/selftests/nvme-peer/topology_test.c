// SPDX-License-Identifier: GPL-2.0
/*
 * What each topology must allow and refuse: peer-to-peer placement works
 * below a common switch and is refused with -EXDEV across root ports (the
 * q35 host bridge is not on the P2PDMA whitelist); host placement and the
 * controller's own CMB work everywhere, and so does I/O on a host-placed
 * queue, through the IOMMU too.
 */
#include "np_util.h"
#include "kselftest_harness.h"

static int np_peer_dir(char *buf, size_t len)
{
	const char *pci = np_nvme_pci(0);

	if (!pci || !np_ctrl_of(pci)[0])
		return -ENODEV;
	snprintf(buf, len, "/sys/class/nvme/%s/peer", np_ctrl_of(pci));
	return 0;
}

/* Remove every administrator's intent of the test's controller. */
static void np_delete_all(const char *dir)
{
	np_cfs_clear(np_ctrl());
}

TEST(p2p_placement_follows_topology)
{
	const char *edu = np_edu_pci(), *ivshmem = np_ivshmem_pci();
	const char *topo = np_topology();
	/* QEMU's switch has no ACS: with the IOMMU on it is still a P2P path */
	int want = strcmp(topo, "rootports") ? 0 : -EXDEV;
	char dir[128];

	ASSERT_EQ(0, np_peer_dir(dir, sizeof(dir)));
	ASSERT_NE(NULL, edu);
	ASSERT_NE(NULL, ivshmem);
	np_delete_all(dir);
	EXPECT_EQ(want, np_admin_create("nsid=1 sq_placement=cmb peer=%s", edu));
	EXPECT_EQ(want, np_admin_create("nsid=1 data_placement=cmb data_size=4096 peer=%s", edu));
	EXPECT_EQ(want, np_admin_create("nsid=1 sq_placement=peer peer=%s", ivshmem));
	np_delete_all(dir);
}

TEST(host_and_own_cmb_work_everywhere)
{
	const char *edu = np_edu_pci();
	char dir[128];

	ASSERT_EQ(0, np_peer_dir(dir, sizeof(dir)));
	np_delete_all(dir);
	EXPECT_EQ(0, np_admin_create("nsid=1 peer=%s", edu));
	EXPECT_EQ(0, np_admin_create("nsid=1 sq_placement=cmb%s", ""));
	np_delete_all(dir);
}

TEST(host_queue_io_works_everywhere)
{
	const char *pci = np_nvme_pci(0);
	unsigned char *blk = np_aligned(4096), dat[4096];
	char buf[512], dev[64];
	int fd, qid = -1, q;

	ASSERT_NE(NULL, pci);
	ASSERT_NE(NULL, blk);
	if (access(NP_DBG_CLIENT, F_OK))
		ASSERT_EQ(0, np_sys("modprobe np-client"));
	/* CTRL NSID DEPTH SQ CQ DATA DATA_SIZE PEER */
	ASSERT_EQ(0, np_write(NP_DBG_CLIENT "/reserve",
			      "%s 1 32 %s %s %s 4096 cpu", np_ctrl_of(pci),
			      "host", "host", "host"));
	ASSERT_EQ(0, np_read(NP_DBG_CLIENT "/status", buf, sizeof(buf)));
	q = sscanf(buf, "qid=%d", &qid);
	ASSERT_EQ(1, q);
	np_fill(blk, 4096, 99);
	snprintf(dev, sizeof(dev), "%s", np_ns_dev(np_ctrl_of(pci), 1));
	ASSERT_EQ(0, np_blk_io(dev, 1, 12 << 20, blk, 4096));
	ASSERT_EQ(0, np_write(NP_DBG_CLIENT "/io", "%d r %d 8 0", qid,
			      (12 << 20) / 512));
	fd = open(NP_DBG_CLIENT "/data", O_RDONLY);
	ASSERT_LE(0, fd);
	ASSERT_EQ(4096, read(fd, dat, sizeof(dat)));
	close(fd);
	EXPECT_EQ(0, memcmp(blk, dat, 4096));
	EXPECT_EQ(0, np_write(NP_DBG_CLIENT "/release", "all"));
	free(blk);
}

/*
 * The guarantee a mediated queue reports for the edu device as its peer:
 * "iommu" only when an IOMMU translates the peer's DMA on every path.
 * With iommu.passthrough=1 the peers have IOMMU groups but identity
 * domains: they reach all memory, so the answer is "none".
 */
TEST(guarantee_follows_the_iommu_domain)
{
	const char *topo = np_topology();
	const char *edu = np_edu_pci(), *edu2 = np_find_pci(0x1234, 0x11e8, 1);
	int iommu = !strcmp(topo, "iommu");
	char dir[128], path[300], buf[64];
	int qid;

	ASSERT_EQ(0, np_peer_dir(dir, sizeof(dir)));
	ASSERT_NE(NULL, edu);
	snprintf(path, sizeof(path), "%s/first_qid", dir);
	qid = np_read_num(path);
	np_delete_all(dir);
	ASSERT_EQ(0, np_admin_create("nsid=1 peer=%s", edu));
	snprintf(path, sizeof(path), "%s/q%d/guarantee", dir, qid);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ(iommu ? "iommu-switch" : "none", buf);
	if (edu2) {
		np_delete_all(dir);
		ASSERT_EQ(0, np_admin_create("nsid=1 peer=%s", edu2));
		ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
		EXPECT_STREQ(iommu ? "iommu" : "none", buf);
	}
	np_delete_all(dir);
}

TEST_HARNESS_MAIN
