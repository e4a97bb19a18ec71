// SPDX-License-Identifier: GPL-2.0
/*
 * Secondary controllers (issue 23's foundation), topology sriov: nvme-peer
 * provisions a VF of the primary through the primary's admin queue (the
 * np_sriov_* API, driven through the test door debugfs nvme-peer/sriov),
 * the VF comes up as a controller of its own under nvme-pci with peer
 * qids, a direct-mode queue on it reads and writes its one namespace (the
 * data checked through the primary's block device), every other namespace
 * gets the controller's Invalid Namespace, and the teardown leaves the
 * secondary controller offline with its resources back at the primary.
 */
#define _GNU_SOURCE
#include <stddef.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "np_queue.h"
#include "np_sriov.h"
#include "kselftest_harness.h"

#define NP_NSID		2	/* the tenant's namespace */
#define NP_NSID2	3	/* a second tenant's (two_tenants) */
#define NP_NVQ		4	/* admin, one host I/O queue, two peer qids */
#define NP_NVI		2
/*
 * Take down whatever a test left provisioned (a failed assertion skips
 * the teardown): both VFs, both namespaces' attachment to the primary,
 * the VFs themselves.  Errors are expected and ignored.
 */
static void np_sriov_clean(const char *ctrl, int primary_cntlid)
{
	static const int nsid[] = { NP_NSID, NP_NSID2 };
	int vfn, cntlid, online, nvq, nvi;

	for (vfn = 1; vfn <= 2; vfn++) {
		if (!np_sec(ctrl, vfn, &cntlid, &online, &nvq, &nvi) && online)
			np_door("unprovision %s %d %d", ctrl, vfn,
				nsid[vfn - 1], 0, 0);
		np_door("detach %s %d %d", ctrl, nsid[vfn - 1],
			primary_cntlid, 0, 0);
	}
	np_door("disable %s", ctrl, 0, 0, 0, 0);
}

FIXTURE(sriov) {
	char pf[64], ctrl[32], vf[32], bdev[64];
	int primary_cntlid, cntlid, fd;
	struct np_map m;
};

FIXTURE_SETUP(sriov)
{
	int online, nvq, nvi;

	self->fd = -1;
	if (np_sriov_missing())
		SKIP(return, "%s", np_sriov_missing());
	snprintf(self->pf, sizeof(self->pf), "%s", np_nvme_pci(0));
	snprintf(self->ctrl, sizeof(self->ctrl), "%s", np_ctrl());
	self->primary_cntlid = np_primary_cntlid(self->ctrl);
	ASSERT_LE(0, self->primary_cntlid);
	np_sriov_clean(self->ctrl, self->primary_cntlid);

	ASSERT_EQ(0, np_door("enable %s 2", self->ctrl, 0, 0, 0, 0));
	ASSERT_EQ(0, np_door("provision %s %d %d %d %d", self->ctrl, 1,
			     NP_NSID, NP_NVQ, NP_NVI));
	ASSERT_EQ(0, np_sec(self->ctrl, 1, &self->cntlid, &online, &nvq, &nvi));
	EXPECT_TRUE(online);
	EXPECT_EQ(NP_NVQ, nvq);
	EXPECT_EQ(NP_NVI, nvi);
	/* the host sees the tenant's namespace through the primary as well */
	ASSERT_EQ(0, np_door("attach %s %d %d", self->ctrl, NP_NSID,
			     self->primary_cntlid, 0, 0));
	snprintf(self->vf, sizeof(self->vf), "%s", np_vf_ctrl(self->pf, 1));
	ASSERT_NE(0, self->vf[0]);
	ASSERT_NE(0, np_wait_ns(self->vf, NP_NSID)[0]);
	snprintf(self->bdev, sizeof(self->bdev), "%s",
		 np_wait_ns(self->ctrl, NP_NSID));
	ASSERT_NE(0, self->bdev[0]);
}

FIXTURE_TEARDOWN(sriov)
{
	int cntlid, online, nvq, nvi;
	char path[128];

	if (!self->ctrl[0] || access(NP_SRIOV, F_OK))
		return;
	if (self->fd >= 0) {
		np_unmap_all(&self->m);
		close(self->fd);
	}
	/* a second tenant a test left behind (it cleans up when it passes) */
	if (!np_sec(self->ctrl, 2, &cntlid, &online, &nvq, &nvi) && online) {
		np_door("unprovision %s %d %d", self->ctrl, 2, NP_NSID2, 0, 0);
		np_door("detach %s %d %d", self->ctrl, NP_NSID2,
			self->primary_cntlid, 0, 0);
	}
	EXPECT_EQ(0, np_door("unprovision %s %d %d", self->ctrl, 1, NP_NSID,
			     0, 0));
	EXPECT_EQ(0, np_door("detach %s %d %d", self->ctrl, NP_NSID,
			     self->primary_cntlid, 0, 0));
	EXPECT_EQ(0, np_door("disable %s", self->ctrl, 0, 0, 0, 0));
	/* offline, its resources back at the primary, the VF gone */
	ASSERT_EQ(0, np_sec(self->ctrl, 1, &cntlid, &online, &nvq, &nvi));
	EXPECT_FALSE(online);
	EXPECT_EQ(0, nvq);
	EXPECT_EQ(0, nvi);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_numvfs",
		 self->pf);
	EXPECT_EQ(0, np_read_num(path));
}

/* A direct-mode queue of VF @vf on @nsid, mapped with its doorbells. */
static int np_vf_queue(const char *vf, __u32 nsid, int *fd, struct np_map *m)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = nsid, .depth = 64,
		.sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = NVME_PEER_PLACE_HOST, .data_size = 2 * 4096,
		.mode = NVME_PEER_MODE_DIRECT,
	};

	r.ctrl = atoi(vf + 4);
	*fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	if (ioctl(*fd, NVME_PEER_IOC_RESERVE, &r))
		return -errno;
	memset(m, 0, sizeof(*m));
	return np_map_all(*fd, m, 1);
}

TEST_F_TIMEOUT(sriov, vf_is_a_controller_of_its_own, 180)
{
	char path[128];

	/* nvme-pci keeps the admin queue and one I/O queue, two are peer qids */
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/cntlid", self->vf);
	EXPECT_EQ(self->cntlid, np_read_num(path));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/nr_qids", self->vf);
	EXPECT_EQ(NP_NVQ - 2, np_read_num(path));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/cmbsz", self->vf);
	EXPECT_EQ(0, np_read_num(path));
	/* it sees its namespace only */
	EXPECT_NE(0, np_ns_dev(self->vf, NP_NSID)[0]);
	EXPECT_EQ(0, np_ns_dev(self->vf, 1)[0]);
	EXPECT_EQ(0, np_ns_dev(self->vf, 3)[0]);
	EXPECT_EQ(0, np_ns_dev(self->vf, 4)[0]);
}

TEST_F_TIMEOUT(sriov, direct_queue_on_the_vf_reads_and_writes_its_namespace, 180)
{
	void *buf = np_aligned(4096);
	int blk;

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, np_vf_queue(self->vf, NP_NSID, &self->fd, &self->m));
	/* the VF writes 8 LBAs at LBA 64, the primary reads them */
	np_fill(self->m.data, 4096, 23);
	EXPECT_EQ(0, np_cmd_ns(self->fd, &self->m, NPQ_OPC_WRITE, NP_NSID, 64,
			       8, 5000));
	ASSERT_EQ(0, np_blk_io(self->bdev, 0, 64 * 512, buf, 4096));
	EXPECT_EQ(0, memcmp(buf, self->m.data, 4096));
	/* the primary writes LBA 128, the VF reads it */
	np_fill(buf, 4096, 2323);
	ASSERT_EQ(0, np_blk_io(self->bdev, 1, 128 * 512, buf, 4096));
	memset(self->m.data, 0, 4096);
	EXPECT_EQ(0, np_cmd_ns(self->fd, &self->m, NPQ_OPC_READ, NP_NSID, 128,
			       8, 5000));
	EXPECT_EQ(0, memcmp(buf, self->m.data, 4096));
	/* and the host's view through the VF agrees */
	blk = np_blk_io(np_ns_dev(self->vf, NP_NSID), 0, 64 * 512, buf, 4096);
	EXPECT_EQ(0, blk);
	np_fill(self->m.data, 4096, 23);
	EXPECT_EQ(0, memcmp(buf, self->m.data, 4096));
	free(buf);
}

TEST_F_TIMEOUT(sriov, other_namespaces_get_invalid_namespace, 180)
{
	static const unsigned int others[] = { 0, 1, 3, 4, 5, 0x1001,
					       0xffffffff };
	char *before = np_aligned(4096), *after = np_aligned(4096);
	const char *ns1 = np_ns_dev(self->ctrl, 1);
	unsigned int i;
	int st;

	ASSERT_NE(NULL, before);
	ASSERT_NE(NULL, after);
	ASSERT_NE(0, ns1[0]);
	ASSERT_EQ(0, np_blk_io(ns1, 0, 0, before, 4096));
	ASSERT_EQ(0, np_vf_queue(self->vf, NP_NSID, &self->fd, &self->m));
	for (i = 0; i < ARRAY_SIZE(others); i++) {
		np_fill(self->m.data, 4096, i);
		st = np_cmd_ns(self->fd, &self->m, NPQ_OPC_WRITE, others[i], 0,
			       8, 5000);
		TH_LOG("Write to nsid %#x: status %#x", others[i], st);
		EXPECT_TRUE(np_refused_ns(st));
		st = np_cmd_ns(self->fd, &self->m, NPQ_OPC_READ, others[i], 0,
			       8, 5000);
		TH_LOG("Read of nsid %#x: status %#x", others[i], st);
		EXPECT_TRUE(np_refused_ns(st));
	}
	/* the primary's namespace 1 is as it was */
	ASSERT_EQ(0, np_blk_io(ns1, 0, 0, after, 4096));
	EXPECT_EQ(0, memcmp(before, after, 4096));
	/* the queue still works for its own namespace */
	EXPECT_EQ(0, np_cmd_ns(self->fd, &self->m, NPQ_OPC_READ, NP_NSID, 0, 8,
			       5000));
	free(before);
	free(after);
}

TEST_F_TIMEOUT(sriov, refused_with_no_change, 180)
{
	int cntlid, online, nvq, nvi;

	/* a VF has no VFs: -EOPNOTSUPP */
	EXPECT_EQ(-EOPNOTSUPP, np_door("enable %s 1", self->vf, 0, 0, 0, 0));
	/* VFs are enabled already */
	EXPECT_EQ(-EBUSY, np_door("enable %s 1", self->ctrl, 0, 0, 0, 0));
	/* VF 1 is online already */
	EXPECT_EQ(-EBUSY, np_door("provision %s %d %d %d %d", self->ctrl, 1,
				  3, NP_NVQ, NP_NVI));
	/* more queues than a VF may have (sriov_max_vq_per_vf=6) */
	EXPECT_EQ(-ENOSPC, np_door("provision %s %d %d %d %d", self->ctrl, 2,
				   3, 7, NP_NVI));
	ASSERT_EQ(0, np_sec(self->ctrl, 2, &cntlid, &online, &nvq, &nvi));
	EXPECT_FALSE(online);
	EXPECT_EQ(0, nvq);
	EXPECT_EQ(0, nvi);
	/* VF 3 is not enabled (2 VFs) */
	EXPECT_EQ(-ENODEV, np_door("provision %s %d %d %d %d", self->ctrl, 3,
				   3, NP_NVQ, NP_NVI));
	/* the namespace is attached to VF 1 already: the controller says so */
	EXPECT_EQ(-EBUSY, np_door("attach %s %d %d", self->ctrl, NP_NSID,
				  self->cntlid, 0, 0));
	EXPECT_EQ(0x118, np_read_num(NP_SRIOV_STATUS) & 0x7ff);
	/* VF 1 unchanged */
	ASSERT_EQ(0, np_sec(self->ctrl, 1, &cntlid, &online, &nvq, &nvi));
	EXPECT_TRUE(online);
	EXPECT_EQ(NP_NVQ, nvq);
}

/*
 * Two tenants on two VFs, each with its own namespace, interleaved with
 * block I/O of the host on the primary's namespace 1: each writes its own
 * namespace, neither reaches the other's, the host's data is intact.
 */
TEST_F_TIMEOUT(sriov, two_tenants_each_on_its_own_namespace, 180)
{
	char *host = np_aligned(4096), *buf = np_aligned(4096);
	const char *ns1 = np_ns_dev(self->ctrl, 1);
	char vf2[32], bdev2[64];
	struct np_map m2;
	int fd2 = -1;

	ASSERT_NE(NULL, host);
	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, np_door("provision %s %d %d %d %d", self->ctrl, 2,
			     NP_NSID2, NP_NVQ, NP_NVI));
	ASSERT_EQ(0, np_door("attach %s %d %d", self->ctrl, NP_NSID2,
			     self->primary_cntlid, 0, 0));
	snprintf(vf2, sizeof(vf2), "%s", np_vf_ctrl(self->pf, 2));
	ASSERT_NE(0, vf2[0]);
	ASSERT_NE(0, np_wait_ns(vf2, NP_NSID2)[0]);
	snprintf(bdev2, sizeof(bdev2), "%s", np_wait_ns(self->ctrl, NP_NSID2));
	ASSERT_NE(0, bdev2[0]);
	ASSERT_EQ(0, np_vf_queue(self->vf, NP_NSID, &self->fd, &self->m));
	ASSERT_EQ(0, np_vf_queue(vf2, NP_NSID2, &fd2, &m2));

	np_fill(host, 4096, 1000);
	ASSERT_EQ(0, np_blk_io(ns1, 1, 1000 * 512, host, 4096));
	np_fill(self->m.data, 4096, 1);
	EXPECT_EQ(0, np_cmd_ns(self->fd, &self->m, NPQ_OPC_WRITE, NP_NSID, 0,
			       8, 5000));
	np_fill(m2.data, 4096, 2);
	EXPECT_EQ(0, np_cmd_ns(fd2, &m2, NPQ_OPC_WRITE, NP_NSID2, 0, 8, 5000));
	/* neither reaches the other's namespace */
	EXPECT_TRUE(np_refused_ns(np_cmd_ns(self->fd, &self->m, NPQ_OPC_WRITE,
					    NP_NSID2, 0, 8, 5000)));
	EXPECT_TRUE(np_refused_ns(np_cmd_ns(fd2, &m2, NPQ_OPC_WRITE, NP_NSID,
					    0, 8, 5000)));
	/* as the primary sees them */
	ASSERT_EQ(0, np_blk_io(self->bdev, 0, 0, buf, 4096));
	np_fill(self->m.data, 4096, 1);
	EXPECT_EQ(0, memcmp(buf, self->m.data, 4096));
	ASSERT_EQ(0, np_blk_io(bdev2, 0, 0, buf, 4096));
	np_fill(m2.data, 4096, 2);
	EXPECT_EQ(0, memcmp(buf, m2.data, 4096));
	ASSERT_EQ(0, np_blk_io(ns1, 0, 1000 * 512, buf, 4096));
	EXPECT_EQ(0, memcmp(buf, host, 4096));

	np_unmap_all(&m2);
	close(fd2);
	EXPECT_EQ(0, np_door("unprovision %s %d %d", self->ctrl, 2, NP_NSID2,
			     0, 0));
	EXPECT_EQ(0, np_door("detach %s %d %d", self->ctrl, NP_NSID2,
			     self->primary_cntlid, 0, 0));
	free(host);
	free(buf);
}

/*
 * A Controller Reset of the primary takes every secondary controller
 * offline and returns its resources (QEMU 7.2; isolated mode must revoke
 * the tenants then); the teardown works after it.
 */
TEST_F_TIMEOUT(sriov, primary_reset_takes_every_secondary_offline, 180)
{
	char path[128], target[256];
	int cntlid, online, nvq, nvi;
	ssize_t n;

	/*
	 * nvme-pci lets go of the VF first: a host command of its own in
	 * flight there (the namespace scan that provisioning started) when
	 * the primary's reset takes the secondary offline would wait for
	 * the admin timeout (60 s), and the VF's reset then meets 6.1
	 * nvme-pci's own lock order (STATUS.md, finding F), a kernel report
	 * that is not the secondary's state this test is about.
	 */
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/device", self->vf);
	n = readlink(path, target, sizeof(target) - 1);
	ASSERT_LT(0, n);
	target[n] = '\0';
	ASSERT_EQ(0, np_write("/sys/bus/pci/drivers/nvme/unbind", "%s",
			      strrchr(target, '/') + 1));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/reset_controller",
		 self->ctrl);
	ASSERT_EQ(0, np_write(path, "1"));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/live", self->ctrl);
	ASSERT_EQ(0, np_wait_for(path, "1", 30));
	ASSERT_EQ(0, np_sec(self->ctrl, 1, &cntlid, &online, &nvq, &nvi));
	EXPECT_FALSE(online);
	EXPECT_EQ(0, nvq);
	EXPECT_EQ(0, nvi);
}

TEST_HARNESS_MAIN
