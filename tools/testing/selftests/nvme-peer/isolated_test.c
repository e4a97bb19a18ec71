// SPDX-License-Identifier: GPL-2.0
/*
 * Isolated mode (issue 23), topologies sriov and sriov-iommu: a RESERVE of
 * mode isolated on a primary controller gets a secondary controller (a VF)
 * of its own with the one namespace attached; the peer rings that
 * controller's doorbell, and the controller refuses the rest.  Two
 * primaries: "peer-rp" on a root port (2 VFs, each in an IOMMU group of
 * its own, namespaces 1-3 detached) and the one below the switch (4 VFs
 * sharing the switch port's group, namespaces 2-4 detached).  What the
 * tenants write is checked through the primary's block devices, with the
 * namespace attached to the primary as well.  peer-rp's namespace 3 is
 * throttled to 20 commands a second.  Tests that wait for a
 * reset, a removal or a teardown (each wait up to 30 s) have 180 s: they
 * test what happens, not how fast, on a loaded 2-core machine.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <stddef.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <linux/capability.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "np_queue.h"
#include "np_sriov.h"
#include "np_dmabuf.h"
#include "kselftest_harness.h"

#define NP_RP_SERIAL	"peer-rp"
#define NP_RP_VFS	2
#define NP_RP_NSZE	(16 << 20 >> 9)	/* LBAs of peer-rp's namespaces */
#define NP_TENANTS	3
#define NP_SC_INVALID_OPCODE	0x01
#define NP_SC_LBA_RANGE		0x80

static int np_iommu(void)
{
	return !strcmp(np_topology(), "sriov-iommu");
}

/*
 * RESERVE @r (mode isolated unless set) on @ctrl, mapped with doorbells.
 * -EAGAIN (the last tenant's VF or VFs still going) is tried again for
 * up to 10 s, as a runtime would.
 */
static int np_iso_reserve_r(const char *ctrl, struct nvme_peer_reserve *r,
			    int *fd, struct np_map *m)
{
	int ret, i;

	r->size = sizeof(*r);
	r->ctrl = atoi(ctrl + 4);
	*fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	if (*fd < 0)
		return -errno;
	for (i = 0; i < 100; i++) {
		ret = ioctl(*fd, NVME_PEER_IOC_RESERVE, r) ? -errno : 0;
		if (ret != -EAGAIN)
			break;
		usleep(100000);
	}
	if (ret) {
		close(*fd);
		*fd = -1;
		return ret;
	}
	memset(m, 0, sizeof(*m));
	return np_map_all(*fd, m, 1) ? -EIO : 0;
}

static void np_iso_params(struct nvme_peer_reserve *r, __u32 nsid,
			  __u64 data_size)
{
	memset(r, 0, sizeof(*r));
	r->nsid = nsid;
	r->depth = 64;
	r->sq_placement = NVME_PEER_PLACE_HOST;
	r->cq_placement = NVME_PEER_PLACE_HOST;
	r->data_placement = NVME_PEER_PLACE_HOST;
	r->data_size = data_size;
	r->mode = NVME_PEER_MODE_ISOLATED;
}

static int np_iso_reserve(const char *ctrl, __u32 nsid, __u64 data_size,
			  int *fd, struct np_map *m)
{
	struct nvme_peer_reserve r;

	np_iso_params(&r, nsid, data_size);
	return np_iso_reserve_r(ctrl, &r, fd, m);
}

/* A RESERVE that must fail: its errno. */
static int np_iso_refused(const char *ctrl, struct nvme_peer_reserve *r)
{
	struct np_map m;
	int fd, ret;

	ret = np_iso_reserve_r(ctrl, r, &fd, &m);
	if (!ret) {
		np_unmap_all(&m);
		close(fd);
	}
	return ret;
}

static void np_iso_drop(int *fd, struct np_map *m)
{
	if (*fd < 0)
		return;
	np_unmap_all(m);
	close(*fd);
	*fd = -1;
}

/* Secondary controllers of @ctrl online, VFs 1-@nr. */
static int np_online(const char *ctrl, int nr)
{
	int vfn, n = 0;

	for (vfn = 1; vfn <= nr; vfn++)
		n += np_sec_online(ctrl, vfn) == 1;
	return n;
}

/*
 * Wait up to 30 s until @ctrl has @want tenants, as many of its first @nr
 * secondaries online: the others' teardown is over.
 */
static int np_settle(const char *ctrl, int nr, int want)
{
	int i;

	for (i = 0; i < 300 && (np_online(ctrl, nr) != want ||
				np_tenants(ctrl) != want); i++)
		usleep(100000);
	return np_tenants(ctrl) == want ? np_online(ctrl, nr) : -1;
}

/* The PCI address of controller instance @inst. */
static const char *np_pci_of(unsigned int inst)
{
	static char name[64];
	char path[128], target[256];
	ssize_t n;

	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%u/device", inst);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return "";
	target[n] = '\0';
	snprintf(name, sizeof(name), "%s", strrchr(target, '/') + 1);
	return name;
}

/* Attach @nsid to the primary @ctrl too: its block device, or "". */
static const char *np_host_view(const char *ctrl, int cntlid, int nsid)
{
	if (!np_ns_dev(ctrl, nsid)[0])
		np_door("attach %s %d %d", ctrl, nsid, cntlid, 0, 0);
	return np_wait_ns(ctrl, nsid);
}

/*
 * Release the tenant in @fd/@m, wait until @ctrl's VFs are down, then a
 * new tenant of @nsid reads its namespace: 0, or -1 at the first failure.
 */
static int np_iso_serves_again(const char *ctrl, int nsid, int *fd,
			       struct np_map *m)
{
	np_iso_drop(fd, m);
	if (np_settle(ctrl, NP_RP_VFS, 0) ||
	    np_iso_reserve(ctrl, nsid, 8192, fd, m))
		return -1;
	return np_cmd_ns(*fd, m, NPQ_OPC_READ, nsid, 0, 8, 5000) ? -1 : 0;
}

FIXTURE(iso) {
	char rp[32], sw[32];
	int rp_cntlid, sw_cntlid;
	int fd[NP_TENANTS];
	struct np_map m[NP_TENANTS];
};

FIXTURE_SETUP(iso)
{
	int i;

	for (i = 0; i < NP_TENANTS; i++)
		self->fd[i] = -1;
	if (np_sriov_missing())
		SKIP(return, "%s", np_sriov_missing());
	snprintf(self->rp, sizeof(self->rp), "%s", np_ctrl_by_serial(NP_RP_SERIAL));
	ASSERT_NE(0, self->rp[0]);
	snprintf(self->sw, sizeof(self->sw), "%s", np_ctrl());
	self->rp_cntlid = np_primary_cntlid(self->rp);
	self->sw_cntlid = np_primary_cntlid(self->sw);
	ASSERT_LE(0, self->rp_cntlid);
	ASSERT_LE(0, self->sw_cntlid);
}

FIXTURE_TEARDOWN(iso)
{
	int i, nsid;

	if (!self->rp[0] || access(NP_SRIOV, F_OK))
		return;
	np_inject("fail_detach", 0, 0);
	np_inject("free_work_delay", 0, 0);
	for (i = 0; i < NP_TENANTS; i++)
		np_iso_drop(&self->fd[i], &self->m[i]);
	/* every released tenant's secondary controller goes offline */
	EXPECT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));
	EXPECT_EQ(0, np_settle(self->sw, 4, 0));
	for (nsid = 1; nsid <= 3; nsid++)
		np_door("detach %s %d %d", self->rp, nsid, self->rp_cntlid, 0, 0);
	for (nsid = 2; nsid <= 4; nsid++)
		np_door("detach %s %d %d", self->sw, nsid, self->sw_cntlid, 0, 0);
}

/*
 * The peer on its secondary controller reads and writes its namespace;
 * the primary sees the data.  QUERY and sysfs say isolated, on the VF,
 * and what confines it: controller-iommu only where the VF has an IOMMU
 * group of its own.  The VF's driver_override names nvme-pci.
 */
TEST_F_TIMEOUT(iso, reads_and_writes_its_namespace, 180)
{
	void *buf = np_aligned(4096);
	struct nvme_peer_info *in = &self->m[0].info;
	char path[160], s[32], bdev[64];

	ASSERT_NE(NULL, buf);
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	EXPECT_EQ(NVME_PEER_MODE_ISOLATED, in->mode);
	EXPECT_NE((unsigned int)atoi(self->rp + 4), in->ctrl);
	EXPECT_EQ(NVME_PEER_STATE_ACTIVE, in->state);
	EXPECT_EQ(np_iommu() ? NVME_PEER_GUARANTEE_CONTROLLER_IOMMU :
			       NVME_PEER_GUARANTEE_CONTROLLER, in->guarantee);
	/* the queue is one of the VF's peer qids */
	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%u/peer/q%u/mode",
		 in->ctrl, in->qid);
	ASSERT_EQ(0, np_read(path, s, sizeof(s)));
	EXPECT_STREQ("isolated", s);
	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%u/peer/q%u/guarantee",
		 in->ctrl, in->qid);
	ASSERT_EQ(0, np_read(path, s, sizeof(s)));
	EXPECT_STREQ(np_iommu() ? "controller-iommu" : "controller", s);
	EXPECT_EQ(1, np_online(self->rp, NP_RP_VFS));
	/* nvme-pci's, and no other driver's, to bind (issue 31 item 8) */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver_override",
		 np_pci_of(in->ctrl));
	ASSERT_EQ(0, np_read(path, s, sizeof(s)));
	EXPECT_STREQ("nvme", s);

	snprintf(bdev, sizeof(bdev), "%s",
		 np_host_view(self->rp, self->rp_cntlid, 1));
	ASSERT_NE(0, bdev[0]);
	np_fill(self->m[0].data, 4096, 41);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_WRITE, 1, 64,
			       8, 5000));
	ASSERT_EQ(0, np_blk_io(bdev, 0, 64 * 512, buf, 4096));
	EXPECT_EQ(0, memcmp(buf, self->m[0].data, 4096));
	np_fill(buf, 4096, 4141);
	ASSERT_EQ(0, np_blk_io(bdev, 1, 128 * 512, buf, 4096));
	memset(self->m[0].data, 0, 4096);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_READ, 1, 128,
			       8, 5000));
	EXPECT_EQ(0, memcmp(buf, self->m[0].data, 4096));
	free(buf);
}

/* The PCI domain and bus << 8 | devfn of @pci ("DDDD:BB:DD.F"). */
static int np_pci_ids(const char *pci, __u32 *domain, __u32 *bdf)
{
	unsigned int d, b, dev, fn;

	if (sscanf(pci, "%x:%x:%x.%x", &d, &b, &dev, &fn) != 4)
		return -1;
	*domain = d;
	*bdf = b << 8 | dev << 3 | fn;
	return 0;
}

/*
 * Isolated mode takes direct mode's placements, on a VF of the primary
 * below the switch (peer-rp's VFs have no P2P path to ivshmem).  The data
 * buffer in an exporter's dma-buf (np-accel's: ivshmem memory, which it
 * maps for the VF through the IOMMU): the tenant writes and reads its
 * namespace through it and the primary's block device sees the data.
 * The SQ and the CQ in the peer's BAR (ivshmem's p2pmem,
 * NVME_PEER_RESERVE_PEER): reserved, reported and mapped; I/O through
 * them only without the IOMMU, because QEMU translates every DMA through
 * intel-iommu, also the bus addresses P2PDMA gives a device below a switch
 * without ACS, which a real switch routes to the peer (the IOMMU faults
 * them: "PTE Read access is not set").
 */
TEST_F_TIMEOUT(iso, peer_bar_and_dmabuf_placements, 180)
{
	struct nvme_peer_info *in = &self->m[0].info;
	struct nvme_peer_reserve r;
	void *blk = np_aligned(8192);
	unsigned char *mem;
	char bdev[64];
	size_t size;
	int buf;

	ASSERT_NE(NULL, blk);
	snprintf(bdev, sizeof(bdev), "%s",
		 np_host_view(self->sw, self->sw_cntlid, 2));
	ASSERT_NE(0, bdev[0]);

	/* data in the dma-buf: mapped from the dma-buf, not from nvme-peer */
	ASSERT_EQ(0, np_accel_open(&buf, &mem, &size));
	np_iso_params(&r, 2, NP_DATA);
	r.data_placement = NVME_PEER_PLACE_DMABUF;
	r.data_buf.fd = buf;
	r.data_buf.length = NP_DATA;
	ASSERT_EQ(0, np_iso_reserve_r(self->sw, &r, &self->fd[0],
				      &self->m[0]));
	EXPECT_EQ(NVME_PEER_MODE_ISOLATED, in->mode);
	EXPECT_NE((unsigned int)atoi(self->sw + 4), in->ctrl);
	EXPECT_EQ(NVME_PEER_PLACE_DMABUF, in->data_placement);
	EXPECT_EQ(NVME_PEER_LOC_P2P, in->data_location);
	EXPECT_EQ(MAP_FAILED, mmap(NULL, in->data_size, PROT_READ, MAP_SHARED,
				   self->fd[0], in->data_off));
	np_fill(mem, 8192, 4242);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_WRITE, 2, 256,
			       16, 5000));
	ASSERT_EQ(0, np_blk_io(bdev, 0, 256 * 512, blk, 8192));
	EXPECT_EQ(0, memcmp(blk, mem, 8192));
	np_fill(blk, 8192, 424242);
	ASSERT_EQ(0, np_blk_io(bdev, 1, 512 * 512, blk, 8192));
	memset(mem, 0, 8192);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_READ, 2, 512,
			       16, 5000));
	EXPECT_EQ(0, memcmp(blk, mem, 8192));
	np_iso_drop(&self->fd[0], &self->m[0]);
	np_accel_close(buf, mem, size);
	EXPECT_EQ(0, np_settle(self->sw, 4, 0));

	/* the queues in the peer's BAR */
	np_iso_params(&r, 2, 8192);
	r.flags = NVME_PEER_RESERVE_PEER;
	ASSERT_EQ(0, np_pci_ids(np_ivshmem_pci(), &r.peer_domain,
				&r.peer_bdf));
	r.sq_placement = NVME_PEER_PLACE_PEER;
	r.cq_placement = NVME_PEER_PLACE_PEER;
	ASSERT_EQ(0, np_iso_reserve_r(self->sw, &r, &self->fd[0],
				      &self->m[0]));
	EXPECT_EQ(NVME_PEER_PLACE_PEER, in->sq_placement);
	EXPECT_EQ(NVME_PEER_PLACE_PEER, in->cq_placement);
	EXPECT_EQ(NVME_PEER_LOC_P2P, in->sq_location);
	EXPECT_EQ(NVME_PEER_LOC_P2P, in->cq_location);
	if (!np_iommu()) {
		np_fill(self->m[0].data, 4096, 4343);
		EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_WRITE,
				       2, 768, 8, 5000));
		ASSERT_EQ(0, np_blk_io(bdev, 0, 768 * 512, blk, 4096));
		EXPECT_EQ(0, memcmp(blk, self->m[0].data, 4096));
	}
	free(blk);
}

/*
 * A hostile peer on its VF: other NSIDs, the broadcast NSID, admin
 * opcodes on the I/O queue, LBAs past its namespace.  The controller
 * answers each with an error; the other namespaces are unchanged byte for
 * byte as the primary sees them, and the queue still works.
 */
TEST_F_TIMEOUT(iso, hostile_peer_gets_the_controllers_errors, 180)
{
	static const unsigned int others[] = { 0, 2, 3, 4, 0x100, 0x1001,
					       0xffffffff };
	static const int admin_ops[] = { 0x06, 0x0d, 0x10, 0x15, 0x1c, 0x80,
					 0x84 };
	char *before[2], *after = np_aligned(1 << 20), bdev[2][64];
	struct np_map *m = &self->m[0];
	struct npq_sqe e;
	unsigned int i;
	int st, n;

	ASSERT_NE(NULL, after);
	for (n = 0; n < 2; n++) {
		snprintf(bdev[n], sizeof(bdev[n]), "%s",
			 np_host_view(self->rp, self->rp_cntlid, n + 2));
		ASSERT_NE(0, bdev[n][0]);
		before[n] = np_aligned(1 << 20);
		ASSERT_NE(NULL, before[n]);
		np_fill(before[n], 1 << 20, 77 + n);
		ASSERT_EQ(0, np_blk_io(bdev[n], 1, 0, before[n], 1 << 20));
	}
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0], m));
	for (i = 0; i < ARRAY_SIZE(others); i++) {
		np_fill(m->data, 8192, i);
		st = np_cmd_ns(self->fd[0], m, NPQ_OPC_WRITE, others[i], 0, 16,
			       5000);
		TH_LOG("Write to nsid %#x: status %#x", others[i], st);
		EXPECT_TRUE(np_refused_ns(st));
		st = np_cmd_ns(self->fd[0], m, NPQ_OPC_READ, others[i], 0, 16,
			       5000);
		EXPECT_TRUE(np_refused_ns(st));
	}
	for (i = 0; i < ARRAY_SIZE(admin_ops); i++) {
		npq_sqe_rw(&e, NPQ_OPC_WRITE, 2, 0, 8, m->info.data_ctrl_addr, 0);
		e.dw[0] = (e.dw[0] & ~0xffu) | admin_ops[i];
		st = np_cmd_sqe(self->fd[0], m, &e, 5000);
		TH_LOG("opcode %#x on the I/O queue: status %#x", admin_ops[i],
		       st);
		EXPECT_LT(0, st);
	}
	/* LBAs past the end of its namespace */
	EXPECT_EQ(NP_SC_LBA_RANGE, np_cmd_ns(self->fd[0], m, NPQ_OPC_WRITE, 1,
					     NP_RP_NSZE, 8, 5000) & 0xff);
	EXPECT_EQ(NP_SC_LBA_RANGE, np_cmd_ns(self->fd[0], m, NPQ_OPC_WRITE, 1,
					     NP_RP_NSZE - 4, 8, 5000) & 0xff);
	for (n = 0; n < 2; n++) {
		ASSERT_EQ(0, np_blk_io(bdev[n], 0, 0, after, 1 << 20));
		EXPECT_EQ(0, memcmp(before[n], after, 1 << 20));
		free(before[n]);
	}
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], m, NPQ_OPC_READ, 1, 0, 8, 5000));
	free(after);
}

/*
 * The IOMMU: a tenant whose PRP points at another tenant's data buffer.
 * On peer-rp each VF has a domain of its own: the address is not mapped
 * for the first VF, the DMA faults (the IOMMU reports the VF's request;
 * QEMU 7.2 still completes the Read with status 0, where a controller
 * reports a Data Transfer Error) and the other buffer is unchanged.
 * Below the switch the VFs share the primary's group: the same command
 * reaches the other tenant, which is what guarantee "controller" (not
 * "controller-iommu") tells.
 */
TEST_F_TIMEOUT(iso, iommu_confines_a_vf_of_its_own_group, 180)
{
	struct np_map *a = &self->m[0], *b = &self->m[1];
	char *copy, cmd[160];
	struct npq_sqe e;
	int st;

	copy = malloc(1 << 18);
	ASSERT_NE(NULL, copy);
	/* B's buffer is larger than everything A maps: it lies below */
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0], a));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 2, 1 << 18, &self->fd[1], b));
	EXPECT_NE(a->info.ctrl, b->info.ctrl);
	np_fill(b->data, 1 << 18, 5);
	memcpy(copy, b->data, 1 << 18);
	np_fill(a->data, 4096, 6);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], a, NPQ_OPC_WRITE, 1, 0, 8, 5000));
	npq_sqe_rw(&e, NPQ_OPC_READ, 1, 0, 8, b->info.data_ctrl_addr, 0);
	st = np_cmd_sqe(self->fd[0], a, &e, 5000);
	TH_LOG("peer-rp: Read into the other VF's buffer %#llx: status %#x",
	       (unsigned long long)b->info.data_ctrl_addr, st);
	EXPECT_LE(0, st);
	if (np_iommu()) {
		snprintf(cmd, sizeof(cmd),
			 "dmesg | grep -Fq '[%s] fault addr %#llx'",
			 np_pci_of(a->info.ctrl) + 5,
			 (unsigned long long)b->info.data_ctrl_addr);
		EXPECT_EQ(0, np_sys(cmd));
		EXPECT_EQ(0, memcmp(copy, b->data, 1 << 18));
	}
	np_iso_drop(&self->fd[0], a);
	np_iso_drop(&self->fd[1], b);

	/* below the switch: one group, one domain */
	ASSERT_EQ(0, np_iso_reserve(self->sw, 2, 8192, &self->fd[0], a));
	ASSERT_EQ(0, np_iso_reserve(self->sw, 3, 1 << 18, &self->fd[1], b));
	EXPECT_EQ(NVME_PEER_GUARANTEE_CONTROLLER, a->info.guarantee);
	np_fill(b->data, 1 << 18, 5);
	memcpy(copy, b->data, 1 << 18);
	np_fill(a->data, 4096, 6);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], a, NPQ_OPC_WRITE, 2, 0, 8, 5000));
	npq_sqe_rw(&e, NPQ_OPC_READ, 2, 0, 8, b->info.data_ctrl_addr, 0);
	EXPECT_EQ(0, np_cmd_sqe(self->fd[0], a, &e, 5000));
	EXPECT_EQ(0, memcmp(a->data, b->data, 4096));
	EXPECT_NE(0, memcmp(copy, b->data, 4096));
	free(copy);
}

/*
 * Two tenants on two VFs of peer-rp at once, interleaved with the host's
 * block I/O on a third namespace through the primary: each writes its
 * own, neither reaches the other's, the host's data is intact.
 */
TEST_F_TIMEOUT(iso, two_tenants_and_the_host, 180)
{
	char *host = np_aligned(4096), *buf = np_aligned(4096), ns[3][64];
	int t, round;

	ASSERT_NE(NULL, host);
	ASSERT_NE(NULL, buf);
	for (t = 0; t < 3; t++) {
		snprintf(ns[t], sizeof(ns[t]), "%s",
			 np_host_view(self->rp, self->rp_cntlid, t + 1));
		ASSERT_NE(0, ns[t][0]);
	}
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 2, 8192, &self->fd[1],
				    &self->m[1]));
	EXPECT_EQ(2, np_online(self->rp, NP_RP_VFS));
	for (round = 0; round < 4; round++) {
		np_fill(host, 4096, 900 + round);
		ASSERT_EQ(0, np_blk_io(ns[2], 1, round * 4096, host, 4096));
		for (t = 0; t < 2; t++) {
			np_fill(self->m[t].data, 4096, 10 * round + t);
			EXPECT_EQ(0, np_cmd_ns(self->fd[t], &self->m[t],
					       NPQ_OPC_WRITE, t + 1, round * 8,
					       8, 5000));
			EXPECT_TRUE(np_refused_ns(np_cmd_ns(self->fd[t],
							    &self->m[t],
							    NPQ_OPC_WRITE, 2 - t,
							    round * 8, 8,
							    5000)));
		}
		for (t = 0; t < 2; t++) {
			ASSERT_EQ(0, np_blk_io(ns[t], 0, round * 4096, buf,
					       4096));
			np_fill(self->m[t].data, 4096, 10 * round + t);
			EXPECT_EQ(0, memcmp(buf, self->m[t].data, 4096));
		}
		ASSERT_EQ(0, np_blk_io(ns[2], 0, round * 4096, buf, 4096));
		EXPECT_EQ(0, memcmp(buf, host, 4096));
	}
	free(host);
	free(buf);
}

/*
 * A reset of the primary takes its secondary controllers offline: both
 * tenants are revoked (POLLERR, reason reset), their release waits for no
 * Delete, the VFs go down, and a new reservation works again.
 */
TEST_F_TIMEOUT(iso, primary_reset_revokes_each_tenant, 180)
{
	struct pollfd p[2] = { { .events = POLLIN }, { .events = POLLIN } };
	struct nvme_peer_info info;
	char path[128];
	int t;

	for (t = 0; t < 2; t++) {
		ASSERT_EQ(0, np_iso_reserve(self->rp, t + 1, 8192, &self->fd[t],
					    &self->m[t]));
		p[t].fd = self->fd[t];
	}
	EXPECT_EQ(0, poll(p, 2, 0));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/reset_controller",
		 self->rp);
	ASSERT_EQ(0, np_write(path, "1"));
	for (t = 0; t < 2; t++) {
		EXPECT_EQ(1, poll(&p[t], 1, 10000));
		EXPECT_TRUE(p[t].revents & POLLERR);
		ASSERT_EQ(0, np_query(self->fd[t], &info));
		EXPECT_EQ(NVME_PEER_STATE_REVOKED, info.state);
		EXPECT_EQ(NVME_PEER_REASON_RESET, info.reason);
	}
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/live", self->rp);
	ASSERT_EQ(0, np_wait_for(path, "1", 30));
	/* revoked once: the reason is still the first one */
	for (t = 0; t < 2; t++) {
		ASSERT_EQ(0, np_query(self->fd[t], &info));
		EXPECT_EQ(NVME_PEER_REASON_RESET, info.reason);
		np_iso_drop(&self->fd[t], &self->m[t]);
	}
	EXPECT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));
	/* provisioned anew */
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	np_fill(self->m[0].data, 4096, 3);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_WRITE, 1, 0,
			       8, 5000));
	memset(self->m[0].data, 0, 4096);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_READ, 1, 0,
			       8, 5000));
	np_fill(path, sizeof(path), 3);
	EXPECT_EQ(0, memcmp(path, self->m[0].data, sizeof(path)));
}

/* Wait up to 10 s for POLLERR on @fd; QUERY's reason, or -1. */
static int np_revoked_reason(int fd)
{
	struct pollfd p = { .fd = fd, .events = POLLIN };
	struct nvme_peer_info info;

	if (poll(&p, 1, 10000) != 1 || !(p.revents & POLLERR) ||
	    np_query(fd, &info) || info.state != NVME_PEER_STATE_REVOKED)
		return -1;
	return info.reason;
}

/*
 * Read the first @n 4 KiB blocks of @dev (O_DIRECT): exit 0 if every read
 * completed, 1 at the first that failed, 2 if @dev did not open.
 */
static void np_read_blocks(const char *dev, int n)
{
	void *buf;
	int fd, i;

	fd = open(dev, O_RDONLY | O_DIRECT);
	if (fd < 0 || posix_memalign(&buf, 4096, 4096))
		_exit(2);
	for (i = 0; i < n; i++)
		if (pread(fd, buf, 4096, (off_t)i * 4096) != 4096)
			_exit(1);
	_exit(0);
}

/*
 * The primary's reset takes the VF's controller offline under the host's
 * own I/O on it (reads of the tenant's namespace through the VF's block
 * device; peer-rp's namespace 3 is throttled to 20 commands a second, so
 * reads are in the controller when it goes).  nvme-peer brings the
 * secondary controller back online when the primary is live and resets
 * the VF, whose nvme-pci retries that I/O: every read completes, long
 * before nvme-pci's timeout (then an Abort's, 30 + 60 s by default, and
 * a lockdep report from 6.1's timeout path) could have fired.  The tenant
 * stays revoked; its VF serves the next one after the teardown.
 */
TEST_F_TIMEOUT(iso, host_io_on_a_vf_survives_the_primary_reset, 180)
{
	struct timespec t0, t1;
	int status = -1, timeout, i;
	char path[128], dev[64];
	pid_t pid;

	ASSERT_EQ(0, np_iso_reserve(self->rp, 3, 8192, &self->fd[0],
				    &self->m[0]));
	snprintf(path, sizeof(path), "nvme%u", self->m[0].info.ctrl);
	snprintf(dev, sizeof(dev), "%s", np_wait_ns(path, 3));
	ASSERT_NE(0, dev[0]);
	timeout = np_read_num("/sys/module/nvme_core/parameters/io_timeout");
	ASSERT_LT(0, timeout);

	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid)
		np_read_blocks(dev, 60);	/* 3 s at 20 a second */
	usleep(300000);			/* a few reads in the controller */
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/reset_controller",
		 self->rp);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, np_write(path, "1"));
	for (i = 0; i < 1500 && waitpid(pid, &status, WNOHANG) != pid; i++)
		usleep(100000);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (i == 1500) {
		kill(pid, SIGKILL);
		waitpid(pid, &status, 0);
	}
	TH_LOG("the VF's reads ended %ld s after the reset (io_timeout %d s)",
	       (long)(t1.tv_sec - t0.tv_sec), timeout);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_GT(timeout, t1.tv_sec - t0.tv_sec);

	EXPECT_EQ(NVME_PEER_REASON_RESET, np_revoked_reason(self->fd[0]));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/live", self->rp);
	ASSERT_EQ(0, np_wait_for(path, "1", 30));
	EXPECT_EQ(0, np_iso_serves_again(self->rp, 3, &self->fd[0],
					 &self->m[0]));
}

/*
 * The VF's own reset or removal revokes its tenant (reason reset,
 * removed) as any controller's; the release tears the VF down and a new
 * reservation works.
 */
TEST_F_TIMEOUT(iso, vf_reset_and_removal_revoke_the_tenant, 180)
{
	char path[160];

	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%u/reset_controller",
		 self->m[0].info.ctrl);
	ASSERT_EQ(0, np_write(path, "1"));
	EXPECT_EQ(NVME_PEER_REASON_RESET, np_revoked_reason(self->fd[0]));
	np_iso_drop(&self->fd[0], &self->m[0]);
	EXPECT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));

	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/driver/unbind",
		 np_pci_of(self->m[0].info.ctrl));
	ASSERT_EQ(0, np_write(path, "%s", np_pci_of(self->m[0].info.ctrl)));
	EXPECT_EQ(NVME_PEER_REASON_REMOVED, np_revoked_reason(self->fd[0]));
	np_iso_drop(&self->fd[0], &self->m[0]);
	EXPECT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));

	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_READ, 1, 0,
			       8, 5000));
}

/*
 * Removal of the primary (nvme-pci unbound from it) revokes its tenants
 * (reason removed) and disables the VFs nvme-peer enabled (PCI logs that
 * nvme-pci "left SR-IOV enabled after remove": nvme-peer disables them
 * right after, not inside nvme-pci's remove); bound again, the primary
 * serves isolated reservations anew.
 */
TEST_F_TIMEOUT(iso, primary_removal_revokes_and_disables_the_vfs, 180)
{
	char pf[64], path[160];

	snprintf(pf, sizeof(pf), "%s", np_pci_of(atoi(self->rp + 4)));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 2, 8192, &self->fd[1],
				    &self->m[1]));
	ASSERT_EQ(0, np_write("/sys/bus/pci/drivers/nvme/unbind", "%s", pf));
	EXPECT_EQ(NVME_PEER_REASON_REMOVED, np_revoked_reason(self->fd[0]));
	EXPECT_EQ(NVME_PEER_REASON_REMOVED, np_revoked_reason(self->fd[1]));
	/* from np_wq, once nvme-pci's remove of the primary returned */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_numvfs", pf);
	EXPECT_EQ(0, np_wait_for(path, "0", 10));
	np_iso_drop(&self->fd[0], &self->m[0]);
	np_iso_drop(&self->fd[1], &self->m[1]);

	ASSERT_EQ(0, np_write("/sys/bus/pci/drivers/nvme/bind", "%s", pf));
	snprintf(self->rp, sizeof(self->rp), "%s", np_ctrl_of(pf));
	for (int i = 0; i < 100 && !self->rp[0]; i++) {
		usleep(100000);
		snprintf(self->rp, sizeof(self->rp), "%s", np_ctrl_of(pf));
	}
	ASSERT_NE(0, self->rp[0]);
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/live", self->rp);
	ASSERT_EQ(0, np_wait_for(path, "1", 30));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_READ, 1, 0,
			       8, 5000));
}

/*
 * The first tenant leaves commands it never rang in its SQ, a completion
 * unread in its CQ and data in its buffer; the second tenant, given the
 * same (recycled) secondary controller, sees none of it: zeroed memory,
 * exactly its own completion, and the first tenant's namespace refused.
 */
TEST_F_TIMEOUT(iso, recycled_secondary_shows_nothing_of_the_last_tenant, 180)
{
	struct np_map *a = &self->m[0], *b = &self->m[1];
	char vf[64], *zero = calloc(1, 8192);
	struct npq_sqe e;
	struct npq_cqe *cq;
	int i;

	ASSERT_NE(NULL, zero);
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0], a));
	snprintf(vf, sizeof(vf), "%s", np_pci_of(a->info.ctrl));
	np_fill(a->data, 8192, 1);
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], a, NPQ_OPC_WRITE, 1, 0, 16, 5000));
	/* a completion left in the CQ, three commands never rung */
	npq_sqe_rw(&e, NPQ_OPC_READ, 1, 0, 8, a->info.data_ctrl_addr, 0);
	npq_enqueue(&a->q, &e);
	npq_ring_sq(&a->q);
	usleep(200000);
	for (i = 0; i < 3; i++) {
		npq_sqe_rw(&e, NPQ_OPC_WRITE, 1, 8 * i, 8,
			   a->info.data_ctrl_addr, 0);
		npq_enqueue(&a->q, &e);
	}
	np_iso_drop(&self->fd[0], a);
	ASSERT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));

	ASSERT_EQ(0, np_iso_reserve(self->rp, 2, 8192, &self->fd[1], b));
	EXPECT_STREQ(vf, np_pci_of(b->info.ctrl));
	EXPECT_EQ(0, memcmp(b->sq, zero, b->info.sq_size));
	EXPECT_EQ(0, memcmp(b->cq, zero, b->info.cq_size));
	EXPECT_EQ(0, memcmp(b->data, zero, 8192));
	EXPECT_TRUE(np_refused_ns(np_cmd_ns(self->fd[1], b, NPQ_OPC_READ, 1, 0,
					    8, 5000)));
	EXPECT_EQ(0, memcmp(b->data, zero, 8192));
	EXPECT_EQ(0, np_cmd_ns(self->fd[1], b, NPQ_OPC_READ, 2, 0, 8, 5000));
	/* two completions, its own two commands: nothing else came */
	usleep(200000);
	cq = b->cq;
	for (i = 2; i < 64; i++)
		EXPECT_EQ(0, cq[i].dw[3]);
	free(zero);
}

/*
 * Issue 31 item 2: attachments are the subsystem's, not the VF's, and
 * outlive a tenant.  A namespace left attached to the secondary controller
 * of the VF the next tenant gets (here nsid 4, attached by hand to VF 2 of
 * the primary below the switch while VF 1 serves a tenant) is detached
 * before the VF is handed out, or the VF is refused (-EBUSY): the tenant
 * of nsid 3 gets the controller's refusal for nsid 4, and nsid 4 is
 * unchanged as the primary sees it.
 */
TEST_F_TIMEOUT(iso, foreign_namespace_is_detached_before_handout, 180)
{
	char *before = np_aligned(8192), *after = np_aligned(8192), bdev[64];
	int cntlid, online, nvq, nvi, ret, st;

	ASSERT_NE(NULL, before);
	ASSERT_NE(NULL, after);
	ASSERT_EQ(0, np_iso_reserve(self->sw, 2, 8192, &self->fd[0],
				    &self->m[0]));
	ASSERT_EQ(0, np_sec(self->sw, 2, &cntlid, &online, &nvq, &nvi));
	EXPECT_EQ(0, online);
	ASSERT_EQ(0, np_door("attach %s %d %d", self->sw, 4, cntlid, 0, 0));
	snprintf(bdev, sizeof(bdev), "%s",
		 np_host_view(self->sw, self->sw_cntlid, 4));
	ASSERT_NE(0, bdev[0]);
	np_fill(before, 8192, 31);
	ASSERT_EQ(0, np_blk_io(bdev, 1, 0, before, 8192));

	ret = np_iso_reserve(self->sw, 3, 8192, &self->fd[1], &self->m[1]);
	TH_LOG("reserve of nsid 3 with nsid 4 left on VF 2: %d", ret);
	if (ret != -EBUSY) {
		ASSERT_EQ(0, ret);
		EXPECT_EQ(1, np_sec_online(self->sw, 2));
		np_fill(self->m[1].data, 8192, 32);
		st = np_cmd_ns(self->fd[1], &self->m[1], NPQ_OPC_WRITE, 4, 0,
			       16, 5000);
		TH_LOG("the tenant of nsid 3 writes nsid 4: status %#x", st);
		EXPECT_TRUE(np_refused_ns(st));
		st = np_cmd_ns(self->fd[1], &self->m[1], NPQ_OPC_READ, 4, 0,
			       16, 5000);
		TH_LOG("the tenant of nsid 3 reads nsid 4: status %#x", st);
		EXPECT_TRUE(np_refused_ns(st));
		EXPECT_EQ(0, np_cmd_ns(self->fd[1], &self->m[1], NPQ_OPC_READ,
				       3, 0, 8, 5000));
	}
	ASSERT_EQ(0, np_blk_io(bdev, 0, 0, after, 8192));
	EXPECT_EQ(0, memcmp(before, after, 8192));
	free(before);
	free(after);
}

/*
 * The namespaces attached to secondary controller @cntlid of @ctrl, a
 * bitmask of NSIDs 1-31 (the door's "attached"), or -1.
 */
static int np_attached(const char *ctrl, int cntlid)
{
	if (np_door("attached %s %d", ctrl, cntlid, 0, 0, 0))
		return -1;
	return np_read_num(NP_SRIOV_STATUS);
}

/*
 * After the primary's reset the recovery brings the tenant's secondary
 * controller back with exactly its namespace: one an administrator
 * attached to it meanwhile (nsid 2, to VF 1 serving nsid 1) is detached.
 */
TEST_F_TIMEOUT(iso, recovery_leaves_only_the_tenants_namespace, 180)
{
	int cntlid, online, nvq, nvi, i;
	char path[128];

	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	ASSERT_EQ(0, np_sec(self->rp, 1, &cntlid, &online, &nvq, &nvi));
	EXPECT_EQ(1, online);
	EXPECT_EQ(1 << 1, np_attached(self->rp, cntlid));
	ASSERT_EQ(0, np_door("attach %s %d %d", self->rp, 2, cntlid, 0, 0));
	EXPECT_EQ(1 << 1 | 1 << 2, np_attached(self->rp, cntlid));

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/reset_controller",
		 self->rp);
	ASSERT_EQ(0, np_write(path, "1"));
	EXPECT_EQ(NVME_PEER_REASON_RESET, np_revoked_reason(self->fd[0]));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/live", self->rp);
	ASSERT_EQ(0, np_wait_for(path, "1", 30));
	for (i = 0; i < 300 && (np_sec_online(self->rp, 1) != 1 ||
				np_attached(self->rp, cntlid) != 1 << 1); i++)
		usleep(100000);
	EXPECT_EQ(1, np_sec_online(self->rp, 1));
	EXPECT_EQ(1 << 1, np_attached(self->rp, cntlid));
}

/* Whether VF @vfn of @ctrl is quarantined (debugfs isolated). */
static int np_quarantined(const char *ctrl, int vfn)
{
	char buf[4096], *l, name[32], state[16];
	int v, nsid;

	if (np_read(NP_INJECT "/isolated", buf, sizeof(buf)))
		return -1;
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (sscanf(l, "%31s tenant vfn %d nsid %d %15s", name, &v,
			   &nsid, state) == 4 && !strcmp(name, ctrl) &&
		    v == vfn)
			return !strcmp(state, "quarantined");
	return 0;
}

/*
 * A detach that fails at teardown (fault injection fail_detach): the VF
 * is quarantined (debugfs isolated says so), never handed out -- the next
 * tenant gets the other VF, the one after that -ENOSPC -- until its
 * teardown, tried again, finds it clean; then it serves again, with the
 * first tenant's namespace refused.
 */
TEST_F_TIMEOUT(iso, failed_detach_quarantines_the_vf, 180)
{
	char vf[64];
	int i;

	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	snprintf(vf, sizeof(vf), "%s", np_pci_of(self->m[0].info.ctrl));
	ASSERT_EQ(0, np_inject("fail_detach", -1, 0));
	np_iso_drop(&self->fd[0], &self->m[0]);
	for (i = 0; i < 300 && np_quarantined(self->rp, 1) != 1; i++)
		usleep(100000);
	ASSERT_EQ(1, np_quarantined(self->rp, 1));
	EXPECT_EQ(1, np_tenants(self->rp));

	ASSERT_EQ(0, np_iso_reserve(self->rp, 2, 8192, &self->fd[1],
				    &self->m[1]));
	EXPECT_STRNE(vf, np_pci_of(self->m[1].info.ctrl));
	EXPECT_EQ(0, np_cmd_ns(self->fd[1], &self->m[1], NPQ_OPC_READ, 2, 0,
			       8, 5000));
	EXPECT_EQ(-ENOSPC, np_iso_reserve(self->rp, 3, 8192, &self->fd[2],
					  &self->m[2]));
	EXPECT_EQ(1, np_quarantined(self->rp, 1));

	/* the detach works again: the retried teardown finds VF 1 clean */
	ASSERT_EQ(0, np_inject("fail_detach", 0, 0));
	for (i = 0; i < 600 && np_quarantined(self->rp, 1); i++)
		usleep(100000);
	EXPECT_EQ(0, np_quarantined(self->rp, 1));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 3, 8192, &self->fd[2],
				    &self->m[2]));
	EXPECT_STREQ(vf, np_pci_of(self->m[2].info.ctrl));
	EXPECT_TRUE(np_refused_ns(np_cmd_ns(self->fd[2], &self->m[2],
					    NPQ_OPC_READ, 1, 0, 8, 5000)));
	EXPECT_EQ(0, np_cmd_ns(self->fd[2], &self->m[2], NPQ_OPC_READ, 3, 0,
			       8, 5000));
}

/*
 * The handout's check cannot detach the namespace left on the VF
 * (fail_detach armed): the reserve is refused (-EBUSY) and the VF
 * quarantined, not handed out; once the detach works again its teardown
 * detaches the namespace and the VF serves the next tenant.
 */
TEST_F_TIMEOUT(iso, foreign_namespace_that_stays_refuses_the_vf, 180)
{
	int cntlid, online, nvq, nvi, i;

	ASSERT_EQ(0, np_iso_reserve(self->sw, 2, 8192, &self->fd[0],
				    &self->m[0]));
	ASSERT_EQ(0, np_sec(self->sw, 2, &cntlid, &online, &nvq, &nvi));
	ASSERT_EQ(0, np_door("attach %s %d %d", self->sw, 4, cntlid, 0, 0));
	ASSERT_EQ(0, np_inject("fail_detach", -1, 0));
	EXPECT_EQ(-EBUSY, np_iso_reserve(self->sw, 3, 8192, &self->fd[1],
					 &self->m[1]));
	for (i = 0; i < 300 && np_quarantined(self->sw, 2) != 1; i++)
		usleep(100000);
	EXPECT_EQ(1, np_quarantined(self->sw, 2));
	EXPECT_EQ(0, np_sec_online(self->sw, 2));

	ASSERT_EQ(0, np_inject("fail_detach", 0, 0));
	for (i = 0; i < 600 && np_quarantined(self->sw, 2); i++)
		usleep(100000);
	EXPECT_EQ(0, np_quarantined(self->sw, 2));
	EXPECT_EQ(0, np_attached(self->sw, cntlid));
	ASSERT_EQ(0, np_iso_reserve(self->sw, 3, 8192, &self->fd[1],
				    &self->m[1]));
	EXPECT_EQ(1, np_sec_online(self->sw, 2));
	EXPECT_TRUE(np_refused_ns(np_cmd_ns(self->fd[1], &self->m[1],
					    NPQ_OPC_READ, 4, 0, 8, 5000)));
}

/* Every refusal has its errno, and leaves no secondary controller up. */
TEST_F_TIMEOUT(iso, bad_input_changes_nothing, 180)
{
	struct nvme_peer_reserve r;
	struct nvme_peer_extent ext = { .slba = 0, .nlb = 8 };
	char path[128];
	int vf_inst, file;

	/* what the controller cannot enforce, refused before any VF is up */
	np_iso_params(&r, 1, 8192);
	r.opcodes = NVME_PEER_OPCODE_READ;
	EXPECT_EQ(-EINVAL, np_iso_refused(self->rp, &r));
	np_iso_params(&r, 1, 8192);
	r.max_nlb = 8;
	EXPECT_EQ(-EINVAL, np_iso_refused(self->rp, &r));
	np_iso_params(&r, 1, 8192);
	r.nr_extents = 1;
	r.extents = (__u64)(uintptr_t)&ext;
	EXPECT_EQ(-EINVAL, np_iso_refused(self->rp, &r));
	file = open("/np/topology", O_RDONLY);
	ASSERT_LE(0, file);
	np_iso_params(&r, 1, 8192);
	r.flags = NVME_PEER_RESERVE_FILE;
	r.file_fd = file;
	r.file_len = 4096;
	r.file_access = NVME_PEER_ACCESS_READ;
	EXPECT_EQ(-EINVAL, np_iso_refused(self->rp, &r));
	close(file);
	np_iso_params(&r, 1, 8192);
	r.qid = 2;
	EXPECT_EQ(-EINVAL, np_iso_refused(self->rp, &r));
	np_iso_params(&r, 1, 8192);
	r.depth = 3;
	EXPECT_EQ(-EINVAL, np_iso_refused(self->rp, &r));
	np_iso_params(&r, 1, 8192);
	r.sq_placement = NVME_PEER_PLACE_CMB;
	EXPECT_EQ(-EOPNOTSUPP, np_iso_refused(self->rp, &r));
	EXPECT_EQ(0, np_online(self->rp, NP_RP_VFS));

	/* one tenant per namespace, one per VF */
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	np_iso_params(&r, 1, 8192);
	EXPECT_EQ(-EBUSY, np_iso_refused(self->rp, &r));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 2, 8192, &self->fd[1],
				    &self->m[1]));
	np_iso_params(&r, 3, 8192);
	EXPECT_EQ(-ENOSPC, np_iso_refused(self->rp, &r));
	EXPECT_EQ(2, np_online(self->rp, NP_RP_VFS));

	/* a VF has no VFs; and takes no reservation of another mode */
	vf_inst = self->m[0].info.ctrl;
	snprintf(path, sizeof(path), "nvme%d", vf_inst);
	np_iso_params(&r, 1, 8192);
	EXPECT_EQ(-EOPNOTSUPP, np_iso_refused(path, &r));
	np_iso_params(&r, 1, 8192);
	r.mode = NVME_PEER_MODE_DIRECT;
	EXPECT_EQ(-EBUSY, np_iso_refused(path, &r));
	np_iso_params(&r, 1, 8192);
	r.mode = NVME_PEER_MODE_MEDIATED;
	EXPECT_EQ(-EBUSY, np_iso_refused(path, &r));

	/* a namespace the subsystem does not have */
	np_iso_drop(&self->fd[1], &self->m[1]);
	EXPECT_EQ(1, np_settle(self->rp, NP_RP_VFS, 1));
	np_iso_params(&r, 9, 8192);
	EXPECT_EQ(-ENODEV, np_iso_refused(self->rp, &r));
	EXPECT_EQ(1, np_settle(self->rp, NP_RP_VFS, 1));
	/* the first tenant is unchanged */
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_READ, 1, 0,
			       8, 5000));

	/*
	 * VFs an administrator enabled are not nvme-peer's to hand out; the
	 * ones nvme-peer enabled went with the primary's last tenant
	 */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/sriov_numvfs",
		 np_nvme_pci(0));
	EXPECT_EQ(0, np_read_num(path));
	ASSERT_EQ(0, np_door("enable %s 2", self->sw, 0, 0, 0, 0));
	np_iso_params(&r, 2, 8192);
	EXPECT_EQ(-EBUSY, np_iso_refused(self->sw, &r));
	EXPECT_EQ(0, np_door("disable %s", self->sw, 0, 0, 0, 0));
	EXPECT_EQ(0, np_read_num(path));
}

/*
 * Issue 31 item 6, CAP_SYS_RAWIO: a VF's doorbell page also holds the
 * doorbells of nvme-pci's own admin and I/O queues on that VF (a 4-byte
 * stride); a tenant that maps it can ring them past nvme-pci's tails and
 * have the VF execute stale host commands into IOVAs nvme-pci unmapped.
 * So a process without the capability gets no secondary controller,
 * confined by the IOMMU or not: its RESERVE is refused, and so is its
 * ATTACH to an administrator's isolated intent provisioned for it.  (On
 * the code before, the IOMMU-confined VF was reserved and attached.)
 */
TEST_F_TIMEOUT(iso, process_without_cap_sys_rawio, 180)
{
	struct nvme_peer_attach a = { .size = sizeof(a),
				      .flags = NVME_PEER_ATTACH_BY_NAME };
	struct nvme_peer_reserve r;
	int fd;

	ASSERT_EQ(0, np_cfs_make(self->rp, "iso2",
				 "nsid=1 mode=isolated data_placement=host data_size=8192 uid=0"));
	ASSERT_EQ(0, np_cap_set(CAP_SYS_RAWIO, 0));
	np_iso_params(&r, 2, 8192);
	EXPECT_EQ(-EPERM, np_iso_refused(self->sw, &r));
	np_iso_params(&r, 2, 8192);
	EXPECT_EQ(-EPERM, np_iso_refused(self->rp, &r));
	a.ctrl = atoi(self->rp + 4);
	snprintf(a.name, sizeof(a.name), "iso2");
	fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(EPERM, errno);
	close(fd);
	EXPECT_EQ(0, np_cap_set(CAP_SYS_RAWIO, 1));
	np_cfs_clear(self->rp);
	EXPECT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));
}

/*
 * The in-kernel API: a driver (np-client, the CPU as its peer) reserves
 * an isolated queue on the primary with nvme_peer_reserve() and writes
 * through it; the primary sees the data; the primary's reset calls the
 * driver's revoke callback exactly once (reason reset); the release takes
 * the VF down.
 */
TEST_F_TIMEOUT(iso, in_kernel_driver, 180)
{
	char line[256], bdev[64], *got = np_aligned(4096), *want = malloc(8192);
	int qid, fd;

	ASSERT_NE(NULL, got);
	ASSERT_NE(NULL, want);
	if (np_sys("modprobe np-client"))
		SKIP(return, "no np-client module");
	ASSERT_EQ(-1, np_client_last_qid());
	ASSERT_EQ(0, np_write(NP_DBG_CLIENT "/reserve",
			      "%s 1 64 %s %s %s 8192 cpu isolated", self->rp,
			      "host", "host", "host"));
	qid = np_client_last_qid();
	ASSERT_LT(0, qid);
	EXPECT_EQ(1, np_online(self->rp, NP_RP_VFS));
	ASSERT_EQ(0, np_write(NP_DBG_CLIENT "/io", "%d w 0 8 9", qid));
	fd = open(NP_DBG_CLIENT "/data", O_RDONLY);
	ASSERT_LE(0, fd);
	EXPECT_EQ(8192, read(fd, want, 8192));
	close(fd);
	snprintf(bdev, sizeof(bdev), "%s",
		 np_host_view(self->rp, self->rp_cntlid, 1));
	ASSERT_NE(0, bdev[0]);
	ASSERT_EQ(0, np_blk_io(bdev, 0, 0, got, 4096));
	EXPECT_EQ(0, memcmp(want, got, 4096));

	snprintf(line, sizeof(line), "/sys/class/nvme/%s/reset_controller",
		 self->rp);
	ASSERT_EQ(0, np_write(line, "1"));
	snprintf(line, sizeof(line), "/sys/class/nvme/%s/peer/live", self->rp);
	ASSERT_EQ(0, np_wait_for(line, "1", 30));
	usleep(500000);
	ASSERT_EQ(0, np_client_line(qid, line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "state=revoked reason=reset callbacks=1"))
		TH_LOG("%s", line);
	EXPECT_EQ(0, np_write(NP_DBG_CLIENT "/release", "%d", qid));
	EXPECT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));
	free(got);
	free(want);
}

/*
 * configfs: an administrator's isolated intent on the primary; a process
 * attaches by name through the primary and drives the VF's queue; a
 * policy is refused; the reset of the primary brings it back as the next
 * generation; the delete revokes it (reason admin) and the VF goes down.
 */
TEST_F_TIMEOUT(iso, configfs_intent, 180)
{
	struct nvme_peer_attach a = { .size = sizeof(a),
				      .flags = NVME_PEER_ATTACH_BY_NAME };
	struct nvme_peer_info info;
	char buf[64], path[128];
	int fd;

	EXPECT_EQ(-EINVAL, np_cfs_make(self->rp, "iso0",
				       "nsid=1 mode=isolated opcodes=read"));
	ASSERT_EQ(0, np_cfs_make(self->rp, "iso1",
				 "nsid=1 mode=isolated data_placement=host data_size=8192 uid=0"));
	ASSERT_EQ(0, np_cfs_read(self->rp, "iso1", "state", buf, sizeof(buf)));
	EXPECT_STREQ("active", buf);
	EXPECT_EQ(1, np_online(self->rp, NP_RP_VFS));

	a.ctrl = atoi(self->rp + 4);
	snprintf(a.name, sizeof(a.name), "iso1");
	fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	self->fd[0] = fd;
	ASSERT_EQ(0, np_map_all(fd, &self->m[0], 1));
	EXPECT_EQ(NVME_PEER_MODE_ISOLATED, self->m[0].info.mode);
	EXPECT_EQ(0, np_cmd_ns(fd, &self->m[0], NPQ_OPC_READ, 1, 0, 8, 5000));
	EXPECT_TRUE(np_refused_ns(np_cmd_ns(fd, &self->m[0], NPQ_OPC_READ, 2,
					    0, 8, 5000)));
	np_iso_drop(&self->fd[0], &self->m[0]);

	/* the reset revokes it; it comes back as generation 2 */
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/reset_controller",
		 self->rp);
	ASSERT_EQ(0, np_write(path, "1"));
	snprintf(path, sizeof(path), "%s",
		 np_cfs_path(self->rp, "iso1", "generation"));
	EXPECT_EQ(0, np_wait_for(path, "2", 30));
	ASSERT_EQ(0, np_cfs_read(self->rp, "iso1", "state", buf, sizeof(buf)));
	EXPECT_STREQ("active", buf);

	fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	self->fd[0] = fd;
	ASSERT_EQ(0, np_map_all(fd, &self->m[0], 1));
	EXPECT_EQ(0, np_cmd_ns(fd, &self->m[0], NPQ_OPC_READ, 1, 0, 8, 5000));
	/* the delete revokes the attached process */
	EXPECT_EQ(0, np_cfs_remove(self->rp, "iso1"));
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_STATE_REVOKED, info.state);
	EXPECT_EQ(NVME_PEER_REASON_ADMIN, info.reason);
	np_iso_drop(&self->fd[0], &self->m[0]);
	np_cfs_clear(self->rp);
	EXPECT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));
}

/*
 * Issue 31 item 4: a tenant's Namespace Attachment, nvme-peer's own and
 * for the VF's controller only, changes nothing the primary sees of the
 * namespace: the primary's own reservation on it stays active through
 * the tenant's reserve (attach) and release (detach).  Before, the
 * admin_cmd hook fenced it (reason namespace; a direct queue by a reset
 * of the primary, which revokes every tenant).
 */
TEST_F_TIMEOUT(iso, tenant_attach_leaves_the_primarys_reservation, 180)
{
	char state[32], reason[32];

	ASSERT_NE(0, np_host_view(self->rp, self->rp_cntlid, 1)[0]);
	ASSERT_EQ(0, np_cfs_make(self->rp, "host1", "nsid=1"));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	ASSERT_EQ(0, np_cfs_read(self->rp, "host1", "state", state,
				 sizeof(state)));
	EXPECT_STREQ("active", state);
	np_iso_drop(&self->fd[0], &self->m[0]);
	EXPECT_EQ(0, np_settle(self->rp, NP_RP_VFS, 0));
	ASSERT_EQ(0, np_cfs_read(self->rp, "host1", "state", state,
				 sizeof(state)));
	ASSERT_EQ(0, np_cfs_read(self->rp, "host1", "reason", reason,
				 sizeof(reason)));
	EXPECT_STREQ("active", state);
	EXPECT_STREQ("none", reason);
	np_cfs_clear(self->rp);
}

/*
 * The chaos run's finding A: the primary's PCI function itself goes (PCI
 * remove, not an unbind) while a tenant holds a VF.  Its VFs must be
 * disabled before the function leaves sysfs: disabled later from np_wq,
 * sriov_disable() removed the virtfnN links of a directory already gone
 * (WARNING "kernfs: can not remove 'virtfn1', no directory", which fails
 * the boot).  The tenant is revoked (removed), the VFs are gone with the
 * function, and after a rescan the primary serves a new tenant.
 */
TEST_F_TIMEOUT(iso, primary_pci_removal_takes_the_vfs_first, 180)
{
	char pf[64], path[160];
	int i;

	snprintf(pf, sizeof(pf), "%s", np_pci_of(atoi(self->rp + 4)));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove", pf);
	ASSERT_EQ(0, np_write(path, "1"));
	EXPECT_EQ(NVME_PEER_REASON_REMOVED, np_revoked_reason(self->fd[0]));
	np_iso_drop(&self->fd[0], &self->m[0]);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", pf);
	EXPECT_NE(0, access(path, F_OK));
	ASSERT_EQ(0, np_write("/sys/bus/pci/rescan", "1"));
	self->rp[0] = '\0';
	for (i = 0; i < 100 && !self->rp[0]; i++) {
		usleep(100000);
		snprintf(self->rp, sizeof(self->rp), "%s", np_ctrl_of(pf));
	}
	ASSERT_NE(0, self->rp[0]);
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/live", self->rp);
	ASSERT_EQ(0, np_wait_for(path, "1", 30));
	self->rp_cntlid = np_primary_cntlid(self->rp);
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	EXPECT_EQ(0, np_cmd_ns(self->fd[0], &self->m[0], NPQ_OPC_READ, 1, 0,
			       8, 5000));
}

/* VF number (1-based) of @pci, a VF of @pf, or -1. */
static int np_vfn_of(const char *pf, const char *pci)
{
	char link[300], target[300];
	ssize_t n;
	int vfn;

	for (vfn = 1; vfn <= 8; vfn++) {
		snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/virtfn%d",
			 pf, vfn - 1);
		n = readlink(link, target, sizeof(target) - 1);
		if (n < 0)
			continue;
		target[n] = '\0';
		if (!strcmp(strrchr(target, '/') + 1, pci))
			return vfn;
	}
	return -1;
}

/*
 * The chaos run's finding D: a VF whose reset fails is removed from
 * nvme-pci's workqueue (nvme_remove_dead_ctrl_work(), WQ_MEM_RECLAIM), and
 * its REMOVED waits for nvme-peer's settling of released reservations.
 * What a reclaim worker waits for must run on a reclaim workqueue, or the
 * kernel's check_flush_dependency() WARNs (which fails the boot).  The
 * secondary controller is taken offline behind the host, so the VF's
 * reset cannot enable it (CSTS.CFS); free_work_delay keeps the settling
 * running when the removal comes.  The VF serves the next tenant.
 */
TEST_F_TIMEOUT(iso, dead_vf_removal_waits_only_for_reclaim_work, 180)
{
	int vfn, cntlid, online, nvq, nvi, major, minor, n;
	char pf[64], path[160], kver[64];

	ASSERT_EQ(0, np_read("/proc/sys/kernel/osrelease", kver, sizeof(kver)));
	n = sscanf(kver, "%d.%d", &major, &minor);
	ASSERT_EQ(2, n);
	/*
	 * 6.12's nvme-pci keeps a controller whose reset failed (DEAD, no
	 * removal), and Debian 6.12's lockdep reports the queue freeze that
	 * failed reset leaves (nvme-pci's own: the chaos run's finding B).
	 */
	if (major > 6 || (major == 6 && minor >= 12))
		SKIP(return, "nvme-pci removes a controller whose reset failed only before 6.12");
	snprintf(pf, sizeof(pf), "%s", np_pci_of(atoi(self->rp + 4)));
	ASSERT_EQ(0, np_iso_reserve(self->rp, 1, 8192, &self->fd[0],
				    &self->m[0]));
	vfn = np_vfn_of(pf, np_pci_of(self->m[0].info.ctrl));
	ASSERT_LT(0, vfn);
	ASSERT_EQ(0, np_sec(self->rp, vfn, &cntlid, &online, &nvq, &nvi));
	ASSERT_EQ(1, online);
	ASSERT_EQ(0, np_inject("free_work_delay", -1, 15000));
	ASSERT_EQ(0, np_door("virt %s %d %d %d %d", self->rp, 7, 0, cntlid, 0));
	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%u/reset_controller",
		 self->m[0].info.ctrl);
	/* the reset fails (-ENETRESET, the controller not live after it) */
	EXPECT_NE(0, np_write(path, "1"));
	EXPECT_EQ(NVME_PEER_REASON_RESET, np_revoked_reason(self->fd[0]));
	/* nvme-pci gives the dead controller up: its class device goes */
	snprintf(path, sizeof(path), "/sys/class/nvme/nvme%u",
		 self->m[0].info.ctrl);
	for (int i = 0; i < 300 && !access(path, F_OK); i++)
		usleep(100000);
	EXPECT_NE(0, access(path, F_OK));
	np_inject("free_work_delay", 0, 0);
	EXPECT_EQ(0, np_iso_serves_again(self->rp, 1, &self->fd[0],
					 &self->m[0]));
}

TEST_HARNESS_MAIN
