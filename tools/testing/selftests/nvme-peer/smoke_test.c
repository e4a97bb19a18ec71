// SPDX-License-Identifier: GPL-2.0
/*
 * Test-bed smoke tests: the patched nvme modules load, the CMB is published
 * as p2pmem, peer-to-peer DMA is accepted below a switch and refused across
 * root ports, the edu device DMAs into the CMB, and the block device works.
 */
#include "np_util.h"
#include "kselftest_harness.h"

#define CMB_SIZE (64ULL << 20)

TEST(modules_loaded)
{
	char buf[64];

	ASSERT_EQ(0, np_read("/sys/module/nvme/parameters/peer_queues", buf,
			     sizeof(buf)));
	EXPECT_EQ(8, atoi(buf));
	EXPECT_EQ(0, access("/sys/module/nvme_peer", F_OK));
	EXPECT_EQ(0, access("/sys/module/np_accel", F_OK));
}

TEST(cmb_published_as_p2pmem)
{
	const char *nvme = np_nvme_pci(0);
	char path[256];

	ASSERT_NE(NULL, nvme);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/p2pmem/size", nvme);
	EXPECT_EQ(CMB_SIZE, (unsigned long long)np_read_num(path));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/p2pmem/published",
		 nvme);
	EXPECT_EQ(1, np_read_num(path));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/p2pmem/available",
		 nvme);
	EXPECT_LT(0, np_read_num(path));
}

TEST(p2p_distance_follows_topology)
{
	char buf[32];

	ASSERT_EQ(0, np_read(NP_DBG_ACCEL "/distance", buf, sizeof(buf)));
	/*
	 * rootports: no common switch.  QEMU's xio3130 ports have no ACS, so
	 * the kernel accepts the switch path even with intel-iommu on.
	 */
	EXPECT_EQ(!strcmp(np_topology(), "rootports"), atoi(buf) < 0)
		TH_LOG("distance %s", buf);
}

TEST(edu_dma_into_cmb)
{
	char buf[128];
	int ret = np_read(NP_DBG_ACCEL "/p2p_smoke", buf, sizeof(buf));

	if (!strcmp(np_topology(), "rootports")) {
		/* the DMA mapping of CMB pages for edu is refused */
		EXPECT_EQ(-EREMOTEIO, ret);
		return;
	}
	if (!strcmp(np_topology(), "iommu")) {
		/*
		 * QEMU translates all DMA through intel-iommu, peer-to-peer
		 * included: the bus-address write faults and never lands.
		 */
		EXPECT_EQ(-EIO, ret);
		return;
	}
	ASSERT_EQ(0, ret);
	EXPECT_EQ(0, strncmp(buf, "ok bytes=4095", 13)) TH_LOG("%s", buf);
}

TEST(block_device_4k_rw)
{
	unsigned char *w = np_aligned(4096), *r = np_aligned(4096);

	ASSERT_NE(NULL, w);
	ASSERT_NE(NULL, r);
	np_fill(w, 4096, 42);
	ASSERT_EQ(0, np_blk_io(np_bdev(), 1, 1 << 20, w, 4096));
	memset(r, 0, 4096);
	ASSERT_EQ(0, np_blk_io(np_bdev(), 0, 1 << 20, r, 4096));
	EXPECT_EQ(0, memcmp(w, r, 4096));
	free(w);
	free(r);
}

TEST_HARNESS_MAIN
