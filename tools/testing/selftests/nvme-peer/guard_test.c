// SPDX-License-Identifier: GPL-2.0
/*
 * Guards in mediated mode, from the peer's side: the CPU plays a hostile
 * peer through the queue library and mixes out-of-range, wrong-namespace,
 * forbidden-opcode, out-of-window and malformed commands with valid reads.
 * Each rejected command must complete with the status that names its
 * reason (and Do Not Retry), each valid one with the data the block device
 * holds, and the per-queue counters in sysfs must add up.
 *
 * That no rejected command reached the controller is checked on the host:
 * every "# np-trace-absent: REGEX" line this test prints must match nothing
 * in QEMU's trace and every "# np-trace-present: REGEX" line something
 * (scripts/check).  The hostile commands use LBAs, namespaces and opcodes
 * that nothing else in the test run uses.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <sys/ioctl.h>
#include <poll.h>
#include <pthread.h>
#include <time.h>
#include <sys/mman.h>
#include <linux/nvme_ioctl.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "kselftest_harness.h"

#define G 0x50000ULL		/* the extents: [G, G+64) and [G+128, G+192) */
#define DATA_SIZE (8 * 4096)
#define LIST_PAGE 7		/* the PRP list of the 16 KiB read lives here */
#define DNR 0x4000

/* what a command breaks; F_* change the entry after it is built */
enum {
	F_FUSE = 1, F_SGL = 2, F_MPTR = 4, F_RSVD = 8, F_LIST = 16,
};

struct np_gcmd {
	const char *name;
	int opc;
	__u32 nsid;
	__u64 slba;
	int nlb;
	long long prp1;		/* offset in the data buffer, or ... */
	long long prp2;		/* ... an absolute address when < 0 */
	int flags;
	__u16 want;		/* status as npq_cqe_status() gives it */
	const char *trace;	/* regex absent from QEMU's trace; %d: qid */
};

#define OFF(x)	(x)
#define ABS(x)	(-(long long)(x))

static const struct np_gcmd np_cmds[] = {
	{ "valid 4 KiB read", 2, 1, G, 8, OFF(0), 0, 0, 0, NULL },
	{ "valid 512 B read at an offset", 2, 1, G + 16, 1, OFF(512), 0, 0, 0,
	  NULL },
	{ "valid read of an extent's last LBA", 2, 1, G + 63, 1, OFF(0), 0, 0,
	  0, NULL },
	{ "valid 8 KiB read, PRP2 a page", 2, 1, G + 128, 16, OFF(0),
	  OFF(4096), 0, 0, NULL },
	{ "valid 16 KiB read, PRP2 a list", 2, 1, G + 144, 32, OFF(0),
	  OFF(LIST_PAGE * 4096), F_LIST, 0, NULL },
	{ "LBA before the extent", 2, 1, G - 1, 1, OFF(0), 0, 0, DNR | 0x80,
	  "pci_nvme_read .* lba 0x4ffff$" },
	{ "LBAs across an extent's end", 2, 1, G + 60, 8, OFF(0), 0, 0,
	  DNR | 0x80, "pci_nvme_read .* lba 0x5003c$" },
	{ "LBA between extents", 2, 1, G + 64, 1, OFF(0), 0, 0, DNR | 0x80,
	  "pci_nvme_read .* lba 0x50040$" },
	{ "LBAs wrapping past 2^64", 2, 1, ~0ULL - 3, 8, OFF(0), 0, 0,
	  DNR | 0x80, "lba 0xfffffffffffffffc$" },
	{ "namespace 2", 2, 2, G, 8, OFF(0), 0, 0, DNR | 0x0b,
	  "pci_nvme_io_cmd .* nsid 0x2 sqid %d " },
	{ "namespace 0", 2, 0, G, 8, OFF(0), 0, 0, DNR | 0x0b,
	  "pci_nvme_io_cmd .* nsid 0x0 sqid %d " },
	{ "broadcast namespace", 2, 0xffffffff, G, 8, OFF(0), 0, 0, DNR | 0x0b,
	  "pci_nvme_io_cmd .* nsid 0xffffffff sqid %d " },
	{ "write on a read-only queue", 1, 1, G + 4, 8, OFF(0), 0, 0,
	  DNR | 0x01, "pci_nvme_write .* lba 0x50004$" },
	{ "write zeroes on a read-only queue", 8, 1, G + 5, 1, OFF(0), 0, 0,
	  DNR | 0x01, "pci_nvme_io_cmd .* sqid %d opc 0x8 " },
	{ "dataset management on a read-only queue", 9, 1, 0, 1, OFF(0), 0, 0,
	  DNR | 0x01, "pci_nvme_dsm nr 1 attr 0x0$" },
	{ "vendor opcode 0x7f", 0x7f, 1, G, 1, OFF(0), 0, 0, DNR | 0x01,
	  "pci_nvme_io_cmd .* sqid %d opc 0x7f " },
	{ "PRP1 just past the data buffer", 2, 1, G + 20, 1, OFF(DATA_SIZE), 0,
	  0, DNR | 0x04, "pci_nvme_read .* lba 0x50014$" },
	{ "PRP1 at a foreign address", 2, 1, G + 21, 8, ABS(0xdead0000), 0, 0,
	  DNR | 0x04, "pci_nvme_read .* lba 0x50015$" },
	{ "PRP2 page outside the buffer", 2, 1, G + 22, 16, OFF(0),
	  OFF(DATA_SIZE), 0, DNR | 0x04, "pci_nvme_read .* lba 0x50016$" },
	{ "PRP list outside the buffer", 2, 1, G + 24, 32, OFF(0),
	  ABS(0xdead1000), 0, DNR | 0x04, "pci_nvme_read .* lba 0x50018$" },
	{ "PRP1 not dword aligned", 2, 1, G + 25, 1, OFF(2), 0, 0, DNR | 0x13,
	  "pci_nvme_read .* lba 0x50019$" },
	{ "PRP2 not page aligned", 2, 1, G + 26, 16, OFF(0), OFF(4096 + 8), 0,
	  DNR | 0x13, "pci_nvme_read .* lba 0x5001a$" },
	{ "fused command", 2, 1, G + 27, 1, OFF(0), 0, F_FUSE, DNR | 0x02,
	  "pci_nvme_read .* lba 0x5001b$" },
	{ "SGL instead of PRPs", 2, 1, G + 28, 1, OFF(0), 0, F_SGL,
	  DNR | 0x02, "pci_nvme_read .* lba 0x5001c$" },
	{ "metadata pointer", 2, 1, G + 29, 1, OFF(0), 0, F_MPTR, DNR | 0x02,
	  "pci_nvme_read .* lba 0x5001d$" },
	{ "reserved dword 2", 2, 1, G + 30, 1, OFF(0), 0, F_RSVD, DNR | 0x02,
	  "pci_nvme_read .* lba 0x5001e$" },
};

static const char * const np_good_trace[] = {
	"pci_nvme_read .* lba 0x50000$",
	"pci_nvme_read .* lba 0x50090$",
};

/* For scripts/check: what QEMU must not have seen of these commands. */
static void np_print_trace(int qid)
{
	char re[160];
	int n;

	for (n = 0; n < ARRAY_SIZE(np_cmds); n++) {
		if (!np_cmds[n].trace)
			continue;
		snprintf(re, sizeof(re), np_cmds[n].trace, qid);
		printf("# np-trace-absent: %s\n", re);
	}
}

/* A reservation as its process sees it: the info and the four mappings. */
struct np_gq {
	struct nvme_peer_info info;
	void *sq, *cq, *db, *data;
	struct npq q;
};

/* Query what @fd reserved or attached and map it; 0 or -1. */
static int np_gq_map(int fd, struct np_gq *g)
{
	struct nvme_peer_info *i = &g->info;

	if (np_query(fd, i))
		return -1;
	g->sq = mmap(NULL, i->sq_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		     fd, i->sq_off);
	g->cq = mmap(NULL, i->cq_size, PROT_READ, MAP_SHARED, fd, i->cq_off);
	g->db = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		     i->db_off);
	g->data = mmap(NULL, i->data_size, PROT_READ | PROT_WRITE, MAP_SHARED,
		       fd, i->data_off);
	if (g->sq == MAP_FAILED || g->cq == MAP_FAILED ||
	    g->db == MAP_FAILED || g->data == MAP_FAILED)
		return -1;
	npq_init(&g->q, g->sq, g->cq, (char *)g->db + i->sq_db_in_page,
		 (char *)g->db + i->cq_db_in_page, i->depth, i->qid);
	return 0;
}

static void np_gq_unmap(struct np_gq *g)
{
	munmap(g->sq, g->info.sq_size);
	munmap(g->cq, g->info.cq_size);
	munmap(g->db, 4096);
	munmap(g->data, g->info.data_size);
}

FIXTURE(guard) {
	int fd, qid;
	struct np_gq g;
	unsigned char *disk;	/* what the block device holds at G */
	char dir[128];
};

FIXTURE_SETUP(guard)
{
	static const struct nvme_peer_extent ext[] = {
		{ G, 64 }, { G + 128, 64 },
	};
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = 1, .depth = 64,
		.sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = NVME_PEER_PLACE_HOST, .data_size = DATA_SIZE,
		.mode = NVME_PEER_MODE_MEDIATED,	/* opcodes 0: Read only */
		.nr_extents = ARRAY_SIZE(ext), .extents = (uintptr_t)ext,
	};
	if (np_missing())
		SKIP(return, "%s", np_missing());
	self->disk = np_aligned(192 * 512);
	ASSERT_NE(NULL, self->disk);
	np_fill(self->disk, 192 * 512, 0x6a7d);
	ASSERT_EQ(0, np_blk_io(np_bdev(), 1, G * 512, self->disk,
			       192 * 512));
	self->fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ioctl(self->fd, NVME_PEER_IOC_RESERVE, &r));
	self->qid = r.qid;
	ASSERT_EQ(0, np_gq_map(self->fd, &self->g));
	snprintf(self->dir, sizeof(self->dir), "%s/q%d", np_peer(), self->qid);
}

FIXTURE_TEARDOWN(guard)
{
	if (self->fd <= 0)
		return;		/* skipped: nothing was set up */
	np_gq_unmap(&self->g);
	close(self->fd);
	free(self->disk);
}

static long long np_stat(const char *dir, const char *key)
{
	char path[160], buf[512], *p;

	snprintf(path, sizeof(path), "%s/stats", dir);
	if (np_read(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, key);
	return p ? strtoll(p + strlen(key) + 1, NULL, 0) : -1;
}

static void np_build(const struct np_gcmd *g, __u64 data, struct npq_sqe *e,
		     void *buf)
{
	__u64 prp1 = g->prp1 < 0 ? -g->prp1 : data + g->prp1;
	__u64 prp2 = g->prp2 < 0 ? -g->prp2 : g->prp2 ? data + g->prp2 : 0;
	__u64 *list = (__u64 *)((char *)buf + LIST_PAGE * 4096);
	int k;

	npq_sqe_rw(e, g->opc, g->nsid, g->slba, g->nlb, prp1, prp2);
	if (g->flags & F_FUSE)
		e->dw[0] |= 1 << 8;
	if (g->flags & F_SGL)
		e->dw[0] |= 1 << 14;
	if (g->flags & F_MPTR) {	/* MPTR: the data buffer, all 64 bits */
		e->dw[4] = (__u32)data;
		e->dw[5] = data >> 32;
	}
	if (g->flags & F_RSVD)
		e->dw[2] = 1;
	if (g->flags & F_LIST)
		for (k = 0; k < 3; k++)
			list[k] = data + (k + 1) * 4096;
}

/* Wait for one completion; its status, or -1 after 10 s. */
static int np_wait(struct npq *q, struct npq_cqe *c)
{
	int i;

	for (i = 0; i < 200000 && !npq_poll(q, c); i++)
		usleep(50);
	if (i == 200000)
		return -1;
	npq_ring_cq(q);
	return npq_cqe_status(c);
}

/* The valid reads' data must be what the block device holds. */
static int np_data_ok(const struct np_gcmd *g, void *data, unsigned char *disk)
{
	__u64 off = (g->slba - G) * 512;
	int len = g->nlb * 512;

	if (g->flags & F_LIST)	/* pages 0..3, the list is in page 7 */
		return !memcmp(data, disk + off, len);
	return !memcmp((char *)data + g->prp1, disk + off,
		       len < 4096 ? len : 4096) &&
	       (len <= 4096 || !memcmp((char *)data + g->prp2,
				       disk + off + 4096, len - 4096));
}

TEST_F(guard, policy_mode_and_guarantee_in_sysfs)
{
	char path[160], buf[4096], want[80];

	if (np_missing())
		SKIP(return, "%s", np_missing());
	EXPECT_EQ(NVME_PEER_MODE_MEDIATED, self->g.info.mode);
	EXPECT_TRUE(self->g.info.flags & NVME_PEER_INFO_MEDIATED);
	EXPECT_EQ(NVME_PEER_GUARANTEE_CPU, self->g.info.guarantee);
	snprintf(path, sizeof(path), "%s/mode", self->dir);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("mediated", buf);
	snprintf(path, sizeof(path), "%s/guarantee", self->dir);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("cpu", buf);
	snprintf(path, sizeof(path), "%s/policy", self->dir);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	TH_LOG("policy:\n%s", buf);
	EXPECT_NE(NULL, strstr(buf, "nsid 1\n"));
	EXPECT_NE(NULL, strstr(buf, "opcodes 0x4\n"));	/* Read only */
	EXPECT_NE(NULL, strstr(buf, "extents 2\nextent 327680+64\nextent 327808+64\n"));
	/* the data buffer as the peer names it, never its real address */
	snprintf(want, sizeof(want), "windows 1\nwindow %#llx+%#x",
		 NVME_PEER_PRP_BASE, DATA_SIZE);
	EXPECT_NE(NULL, strstr(buf, want));
	EXPECT_EQ(NVME_PEER_PRP_BASE, self->g.info.data_ctrl_addr);
	snprintf(path, sizeof(path), "%s/last_reject", self->dir);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("none", buf);
}

/* Extents come in any order and overlapping; the policy holds them merged. */
TEST(extents_are_sorted_and_merged)
{
	struct nvme_peer_extent ext[] = {
		{ 100, 8 }, { 0, 8 }, { 104, 10 }, { 8, 1 },
	};
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = 1, .depth = 64, .sq_placement = 1,
		.cq_placement = 1,
		.nr_extents = ARRAY_SIZE(ext), .extents = (uintptr_t)ext,
	};
	int fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	char path[160], buf[4096];

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_RESERVE, &r));
	snprintf(path, sizeof(path), "%s/q%d/policy", np_peer(), r.qid);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "extents 2\nextent 0+9\nextent 100+14\n"))
		TH_LOG("policy:\n%s", buf);
	close(fd);
}

/* A policy that cannot be enforced is refused, with the errno the docs give. */
TEST(bad_policies_are_refused)
{
	struct nvme_peer_extent bad[] = { { 1ULL << 40, 8 } };
	struct nvme_peer_extent empty[] = { { 100, 0 } };
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = 1, .depth = 64, .sq_placement = 1,
		.cq_placement = 1,
		.nr_extents = 1, .extents = (uintptr_t)bad,
	};
	int fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &r));
	EXPECT_EQ(EINVAL, errno);	/* past the namespace's end */
	r.extents = (uintptr_t)empty;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &r));
	EXPECT_EQ(EINVAL, errno);	/* no LBA at all */
	r.extents = 0;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &r));
	EXPECT_EQ(EFAULT, errno);	/* nr_extents without the array */
	r.nr_extents = 0;
	r.opcodes = 1U << 31;	/* opcode 0x1f: no policy may allow it */
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &r));
	EXPECT_EQ(EINVAL, errno);
	r.opcodes = 0;
	r.depth = 2048;		/* more than a mediated queue may have */
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &r));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
}

/* One command at a time: each status, each valid read's data. */
TEST_F(guard, hostile_mix_one_by_one)
{
	long long fwd0 = np_stat(self->dir, "forwarded");
	long long rej0 = np_stat(self->dir, "rejected");
	int n, good = 0, bad = 0;
	char path[160], buf[256], want[256];

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fwd0);
	for (n = 0; n < ARRAY_SIZE(np_cmds); n++) {
		const struct np_gcmd *g = &np_cmds[n];
		struct npq_sqe e;
		struct npq_cqe c;
		int st;

		memset(self->g.data, 0xee, DATA_SIZE);
		np_build(g, self->g.info.data_ctrl_addr, &e, self->g.data);
		ASSERT_LE(0, npq_enqueue(&self->g.q, &e));
		npq_ring_sq(&self->g.q);
		st = np_wait(&self->g.q, &c);
		EXPECT_EQ(g->want, st) TH_LOG("%s: status %#x, want %#x",
					      g->name, st, g->want);
		EXPECT_EQ(npq_sqe_cid(&e), npq_cqe_cid(&c));
		if (g->want) {
			bad++;
			continue;
		}
		good++;
		EXPECT_TRUE(np_data_ok(g, self->g.data, self->disk))
			TH_LOG("%s: data differs from the block device",
			       g->name);
	}
	EXPECT_EQ(fwd0 + good, np_stat(self->dir, "forwarded"));
	EXPECT_EQ(rej0 + bad, np_stat(self->dir, "rejected"));
	EXPECT_EQ(0, np_stat(self->dir, "bad_doorbells"));
	/* the last one was a reserved-field rejection */
	snprintf(path, sizeof(path), "%s/last_reject", self->dir);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	snprintf(want, sizeof(want), "field status=0x2 opcode=0x2 cid=%u",
		 (unsigned int)(self->g.q.next_cid - 1));
	EXPECT_STREQ(want, buf);
	np_print_trace(self->qid);
	for (n = 0; n < ARRAY_SIZE(np_good_trace); n++)
		printf("# np-trace-present: %s\n", np_good_trace[n]);
}

/* The whole mix in one doorbell write: the poller batches and sorts it out. */
TEST_F(guard, hostile_mix_in_one_batch)
{
	__u16 want[64];
	int n, seen = 0, good = 0, k;
	long long fwd0 = np_stat(self->dir, "forwarded");

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LT(ARRAY_SIZE(np_cmds), 64);
	memset(self->g.data, 0xee, DATA_SIZE);
	for (n = 0; n < ARRAY_SIZE(np_cmds); n++) {
		struct npq_sqe e;

		/* a valid read at a time: they share the data buffer */
		if (!np_cmds[n].want && n != 0)
			continue;
		np_build(&np_cmds[n], self->g.info.data_ctrl_addr, &e,
			 self->g.data);
		k = npq_enqueue(&self->g.q, &e);
		ASSERT_LE(0, k);
		want[k % 64] = np_cmds[n].want;
		good += !np_cmds[n].want;
		seen++;
	}
	npq_ring_sq(&self->g.q);
	for (n = 0; n < seen; n++) {
		struct npq_cqe c;
		int st = np_wait(&self->g.q, &c);

		ASSERT_LE(0, st);
		EXPECT_EQ(want[npq_cqe_cid(&c) % 64], st);
	}
	EXPECT_TRUE(np_data_ok(&np_cmds[0], self->g.data, self->disk));
	EXPECT_EQ(fwd0 + good, np_stat(self->dir, "forwarded"));
	np_print_trace(self->qid);
}

/*
 * Random commands: valid reads with one to three random dwords or bits
 * changed, and some all random.  Whatever the guard decides, every command
 * completes exactly once, the rejected ones with Do Not Retry, the counters
 * add up, and nothing in the kernel complains (KASAN, lockdep, UBSAN watch
 * the whole run).
 */
TEST_F(guard, random_commands_all_complete)
{
	long long fwd0 = np_stat(self->dir, "forwarded");
	long long rej0 = np_stat(self->dir, "rejected");
	unsigned int seed = 20261204, round, n, k, total = 0, bad = 0;
	unsigned char seen[64];

	if (np_missing())
		SKIP(return, "%s", np_missing());
	TH_LOG("seed %u", seed);
	for (round = 0; round < 40; round++) {
		memset(seen, 0, sizeof(seen));
		for (n = 0; n < 48; n++) {
			struct npq_sqe e;

			np_build(&np_cmds[0], self->g.info.data_ctrl_addr, &e,
				 self->g.data);
			k = rand_r(&seed) % 10;
			if (k == 0) {
				for (k = 0; k < 16; k++)
					e.dw[k] = rand_r(&seed) * 2654435761U;
			} else if (k < 5) {
				for (k = 1 + rand_r(&seed) % 3; k; k--)
					e.dw[rand_r(&seed) % 16] ^=
						1U << (rand_r(&seed) % 32);
			} else {
				for (k = 1 + rand_r(&seed) % 3; k; k--)
					e.dw[rand_r(&seed) % 16] = rand_r(&seed);
			}
			ASSERT_LE(0, npq_enqueue(&self->g.q, &e));
		}
		npq_ring_sq(&self->g.q);
		for (n = 0; n < 48; n++) {
			struct npq_cqe c;
			int st = np_wait(&self->g.q, &c);

			ASSERT_LE(0, st) TH_LOG("round %u: %u of 48 completed",
						round, n);
			k = npq_cqe_cid(&c) % 64;
			EXPECT_EQ(0, seen[k]) TH_LOG("cid %u twice", k);
			seen[k] = 1;
			bad += !!(st & DNR);
		}
		total += 48;
	}
	TH_LOG("%u commands, %u rejected or failed with DNR, %lld forwarded",
	       total, bad, np_stat(self->dir, "forwarded") - fwd0);
	EXPECT_EQ(total, np_stat(self->dir, "forwarded") - fwd0 +
			 np_stat(self->dir, "rejected") - rej0);
	EXPECT_EQ(np_stat(self->dir, "forwarded"),
		  np_stat(self->dir, "completed"));
	EXPECT_LE(np_stat(self->dir, "rejected") - rej0, bad);
}

/* A tail or head outside the queue is counted and ignored, not obeyed. */
TEST_F(guard, bad_doorbells_are_counted_and_ignored)
{
	__u32 *sq_db = (__u32 *)((char *)self->g.db + self->g.info.sq_db_in_page);
	long long fwd0 = np_stat(self->dir, "forwarded");
	struct npq_sqe e;
	struct npq_cqe c;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	memset(self->g.data, 0xee, DATA_SIZE);
	*sq_db = 64 + 5;
	usleep(200000);
	EXPECT_EQ(1, np_stat(self->dir, "bad_doorbells"));
	EXPECT_EQ(fwd0, np_stat(self->dir, "forwarded"));
	*sq_db = 0;	/* back to what it was */
	np_build(&np_cmds[0], self->g.info.data_ctrl_addr, &e, self->g.data);
	ASSERT_LE(0, npq_enqueue(&self->g.q, &e));
	npq_ring_sq(&self->g.q);
	EXPECT_EQ(0, np_wait(&self->g.q, &c));
	EXPECT_TRUE(np_data_ok(&np_cmds[0], self->g.data, self->disk));
	EXPECT_EQ(fwd0 + 1, np_stat(self->dir, "forwarded"));
}

/*
 * Dataset Management carries its LBAs in a range list in peer memory: the
 * kernel checks a copy of it, range by range, and the controller reads the
 * copy.  One range outside the extents refuses the whole command.
 */
TEST(dsm_ranges_are_checked)
{
	static const struct nvme_peer_extent ext[] = { { G + 256, 64 } };
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = 1, .depth = 64,
		.sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = NVME_PEER_PLACE_HOST, .data_size = 8192,
		.opcodes = NVME_PEER_OPCODE_READ | NVME_PEER_OPCODE_DSM,
		.nr_extents = 1, .extents = (uintptr_t)ext,
	};
	static const struct {
		const char *name;
		__u64 slba[2];
		__u32 nlb[2];
		int nr, off;
		__u16 want;
	} cases[] = {
		{ "one range inside", { G + 264 }, { 8 }, 1, 0, 0 },
		{ "two ranges, the list across a page", { G + 272, G + 300 },
		  { 4, 20 }, 2, 4096 - 16, 0 },
		{ "second range past the extent", { G + 256, G + 316 },
		  { 8, 8 }, 2, 0, DNR | 0x80 },
		{ "range before the extent", { G + 200 }, { 1 }, 1, 0,
		  DNR | 0x80 },
		{ "list past the data buffer", { G + 264 }, { 8 }, 1, 8192,
		  DNR | 0x04 },
	};
	int fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC), i, k;
	struct np_gq g;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_RESERVE, &r));
	ASSERT_EQ(0, np_gq_map(fd, &g));
	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		__u32 *range;
		struct npq_sqe e;
		struct npq_cqe c;
		__u64 list = g.info.data_ctrl_addr + cases[i].off;
		int st;

		memset(g.data, 0, 8192);
		for (k = 0; k < cases[i].nr && cases[i].off < 8192; k++) {
			range = (__u32 *)((char *)g.data + cases[i].off + 16 * k);
			range[0] = 0;
			range[1] = cases[i].nlb[k];
			memcpy(&range[2], &cases[i].slba[k], 8);
		}
		npq_sqe_dsm(&e, 1, cases[i].nr, NPQ_DSM_AD, list);
		if ((list & 4095) + 16 * cases[i].nr > 4096) {
			e.dw[8] = (__u32)((list | 4095) + 1);
			e.dw[9] = (__u32)(((list | 4095) + 1) >> 32);
		}
		ASSERT_LE(0, npq_enqueue(&g.q, &e));
		npq_ring_sq(&g.q);
		st = np_wait(&g.q, &c);
		EXPECT_EQ(cases[i].want, st) TH_LOG("%s: status %#x",
						    cases[i].name, st);
	}
	printf("# np-trace-absent: pci_nvme_dsm_deallocate .*slba (%llu|0x%llx) nlb\n",
	       G + 200, G + 200);
	printf("# np-trace-absent: pci_nvme_dsm_deallocate .*slba (%llu|0x%llx) nlb\n",
	       G + 316, G + 316);
	printf("# np-trace-present: pci_nvme_dsm_deallocate .*slba (%llu|0x%llx) nlb\n",
	       G + 264, G + 264);
	np_gq_unmap(&g);
	close(fd);
}

/*
 * The administrator's way: a policy written to a configfs intent is the one
 * the queue enforces, for whoever attaches it.
 */
TEST(admin_policy_is_enforced)
{
	int qid = np_peer_num("first_qid") + 1, fd, k;
	struct nvme_peer_attach a = { .size = sizeof(a), .qid = qid };
	static const struct {
		int opc;
		__u64 slba;
		int nlb;
		__u16 want;
	} cmds[] = {
		{ 2, G + 512, 8, 0 },			/* read, in range */
		{ 1, G + 520, 8, 0 },			/* write, allowed */
		{ 2, G + 527, 1, 0 },			/* the last LBA */
		{ 2, G + 528, 1, DNR | 0x80 },		/* one past it */
		{ 2, G + 510, 4, DNR | 0x80 },		/* across the start */
		{ 2, G + 512, 9, DNR | 0x02 },		/* over max_nlb */
		{ 0, 0, 1, DNR | 0x01 },		/* flush: not allowed */
	};
	char path[160], buf[4096];
	struct np_gq g;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	np_admin_delete(qid);
	ASSERT_EQ(0, np_admin_create("%s extents=%llu+8 extents=%llu+8 qid=%d uid=0",
				     "nsid=1 data_placement=host data_size=8192 opcodes=write,read max_nlb=8",
				     G + 520, G + 512, qid));
	snprintf(path, sizeof(path), "%s/q%d/policy", np_peer(), qid);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "opcodes 0x6\nmax_nlb 8\nextents 1\nextent 328192+16\n"))
		TH_LOG("policy:\n%s", buf);
	/* a policy means nothing to a direct queue: refused */
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=1 mode=direct opcodes=read qid=%d", qid + 1));
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=1 extents=%llu+0 qid=%d", G, qid + 1));
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=1 opcodes=read,format qid=%d", qid + 1));

	fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	ASSERT_EQ(0, np_gq_map(fd, &g));
	for (k = 0; k < ARRAY_SIZE(cmds); k++) {
		struct npq_sqe e;
		struct npq_cqe c;
		int st;

		if (cmds[k].opc)
			npq_sqe_rw(&e, cmds[k].opc, 1, cmds[k].slba,
				   cmds[k].nlb, g.info.data_ctrl_addr,
				   cmds[k].nlb > 8 ?
				   g.info.data_ctrl_addr + 4096 : 0);
		else
			npq_sqe_flush(&e, 1);
		ASSERT_LE(0, npq_enqueue(&g.q, &e));
		npq_ring_sq(&g.q);
		st = np_wait(&g.q, &c);
		EXPECT_EQ(cmds[k].want, st) TH_LOG("command %d: status %#x", k, st);
	}
	np_gq_unmap(&g);
	close(fd);
	np_admin_delete(qid);
}

/*
 * A driver's way: np-client reserves through the in-kernel API with a
 * policy of its own (Read only, 8 LBAs) and submits from the CPU.
 */
TEST(kernel_api_policy_is_enforced)
{
	char buf[512], *line;
	long long code;
	int qid = -1;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_EQ(0, np_sys("modprobe np-client"));
	np_write(NP_DBG_CLIENT "/release", "all");
	ASSERT_EQ(0, np_write(NP_DBG_CLIENT "/reserve",
			      "%s 1 64 %s %s %s 8192 cpu mediated r %llu+8",
			      np_ctrl(), "host", "host", "host", G + 1024));
	ASSERT_EQ(0, np_read(NP_DBG_CLIENT "/status", buf, sizeof(buf)));
	line = strstr(buf, "qid=");
	ASSERT_NE(NULL, line);
	qid = atoi(line + 4);
	EXPECT_EQ(0, np_write(NP_DBG_CLIENT "/io", "%d r %llu 8 0", qid, G + 1024));
	EXPECT_EQ(-EIO, np_write(NP_DBG_CLIENT "/io", "%d r %llu 1 0", qid,
				 G + 1032));
	code = np_read_num(NP_DBG_CLIENT "/status_code");
	EXPECT_EQ(DNR | 0x80, code);
	EXPECT_EQ(-EIO, np_write(NP_DBG_CLIENT "/io", "%d w %llu 8 1", qid,
				 G + 1024));
	code = np_read_num(NP_DBG_CLIENT "/status_code");
	EXPECT_EQ(DNR | 0x01, code);
	snprintf(buf, sizeof(buf), "%s/q%d/stats", np_peer(), qid);
	EXPECT_EQ(0, np_sys("grep -q '^rejected 2$' %s", buf));
	EXPECT_EQ(0, np_sys("grep -q '^forwarded 1$' %s", buf));
	/* an empty LBA range is refused through the API as well */
	EXPECT_EQ(-EINVAL, np_write(NP_DBG_CLIENT "/reserve",
				    "%s 1 64 %s %s %s 8192 cpu mediated r %llu+0",
				    np_ctrl(), "host", "host", "host", G));
	np_write(NP_DBG_CLIENT "/release", "all");
}

/* The pid of the kernel thread "nvme-peer-med", or -1. */
static int np_med_pid(void)
{
	char path[300], buf[64];
	struct dirent *d;
	DIR *dir = opendir("/proc");
	int pid = -1;

	while (dir && (d = readdir(dir))) {
		snprintf(path, sizeof(path), "/proc/%s/comm", d->d_name);
		if (!np_read(path, buf, sizeof(buf)) &&
		    !strcmp(buf, "nvme-peer-med")) {
			pid = atoi(d->d_name);
			break;
		}
	}
	if (dir)
		closedir(dir);
	return pid;
}

/* Its CPU time (utime + stime, clock ticks) and its wake-ups so far. */
static int np_med_usage(int pid, long long *ticks, long long *wakeups)
{
	char path[64], buf[2048], *p;
	int i;

	snprintf(path, sizeof(path), "/proc/%d/stat", pid);
	if (np_read(path, buf, sizeof(buf)))
		return -1;
	p = strrchr(buf, ')');
	for (i = 0; p && i < 12; i++)	/* to field 14, utime */
		p = strchr(p + 1, ' ');
	if (!p)
		return -1;
	*ticks = strtoll(p + 1, &p, 10);
	*ticks += strtoll(p, NULL, 10);
	snprintf(path, sizeof(path), "/proc/%d/status", pid);
	if (np_read(path, buf, sizeof(buf)))
		return -1;
	p = strstr(buf, "\nvoluntary_ctxt_switches:");
	if (!p)
		return -1;
	*wakeups = strtoll(p + 26, NULL, 10);
	return 0;
}

#define NP_PARAM "/sys/module/nvme_peer/parameters/"

/*
 * Idle mediated queues cost wake-ups, not spinning: the poller backs off to
 * one look every mediate_idle_max_us.  Counted in wake-ups (exact, unlike
 * tick-sampled CPU time); the CPU time is printed.  With the bound raised
 * to 200 ms the poller is all but silent.
 */
TEST_F(guard, idle_poller_backs_off)
{
	long long max_us = np_read_num(NP_PARAM "mediate_idle_max_us");
	long long t0, t1, w0, w1;
	int pid = np_med_pid();

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LT(0, pid);
	ASSERT_LT(0, max_us);
	usleep(500000);	/* past mediate_spin_us and the back-off */
	ASSERT_EQ(0, np_med_usage(pid, &t0, &w0));
	sleep(3);
	ASSERT_EQ(0, np_med_usage(pid, &t1, &w1));
	TH_LOG("idle queue, mediate_idle_max_us=%lld: %lld wake-ups, %lld ticks of CPU in 3 s",
	       max_us, w1 - w0, t1 - t0);
	EXPECT_LE(w1 - w0, 3000000 / max_us * 3 / 2 + 5);

	ASSERT_EQ(0, np_write(NP_PARAM "mediate_idle_max_us", "200000"));
	usleep(500000);
	ASSERT_EQ(0, np_med_usage(pid, &t0, &w0));
	sleep(3);
	ASSERT_EQ(0, np_med_usage(pid, &t1, &w1));
	ASSERT_EQ(0, np_write(NP_PARAM "mediate_idle_max_us", "%lld", max_us));
	TH_LOG("idle queue, mediate_idle_max_us=200000: %lld wake-ups, %lld ticks of CPU in 3 s",
	       w1 - w0, t1 - t0);
	EXPECT_LE(w1 - w0, 3000000 / 200000 * 3 / 2 + 5);
	/* tick-sampled: allow a few on a slow machine; spinning is 300 */
	EXPECT_LE(t1 - t0, 5);
}

/* No mediated queue at all: the poller does not run, not even once. */
TEST(no_mediated_queue_no_poller)
{
	long long t0, t1, w0, w1;
	int pid = np_med_pid();

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LT(0, pid);
	if (np_sys("ls -d %s/q* >/dev/null 2>&1", np_peer()) == 0)
		SKIP(return, "reservations left by another test");
	usleep(200000);
	ASSERT_EQ(0, np_med_usage(pid, &t0, &w0));
	sleep(2);
	ASSERT_EQ(0, np_med_usage(pid, &t1, &w1));
	TH_LOG("no queue: %lld wake-ups, %lld ticks of CPU in 2 s",
	       w1 - w0, t1 - t0);
	EXPECT_EQ(0, w1 - w0);
	EXPECT_EQ(0, t1 - t0);
}

/* The bus address of BAR0 of PCI device @pci, or 0. */
static unsigned long long np_bar0(const char *pci)
{
	char path[128], buf[256];

	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource", pci);
	if (np_read(path, buf, sizeof(buf)))
		return 0;
	return strtoull(buf, NULL, 0);
}

static int np_dmesg_has(const char *what)
{
	char cmd[256];

	snprintf(cmd, sizeof(cmd), "dmesg | grep -q -i -e '%s'", what);
	return np_sys("%s", cmd) == 0;
}

/*
 * The edu device as a hostile peer of a mediated queue.  The reservation
 * reports its guarantee: "none" without an IOMMU, "iommu-switch" when the
 * IOMMU is on but edu and the controller share a switch without ACS
 * redirect (real hardware turns their traffic around in the switch; QEMU
 * sends every DMA through the IOMMU).  Under the IOMMU, edu reaches its
 * own shadow doorbell but its write to the hardware doorbell faults and the
 * controller never sees it.
 */
/* Reserve @qid for @peer; its guarantee in @buf. */
static int np_peer_queue(int qid, const char *peer, char *buf, size_t len)
{
	char path[160];

	np_admin_delete(qid);
	if (np_admin_create("nsid=1 sq_placement=host cq_placement=host peer=%s qid=%d",
			    peer, qid))
		return -1;
	snprintf(path, sizeof(path), "%s/q%d/guarantee", np_peer(), qid);
	return np_read(path, buf, len);
}

TEST(hostile_device_and_the_hardware_doorbell)
{
	const char *edu = np_edu_pci(), *nvme = np_nvme_pci(0);
	const char *edu2 = np_find_pci(0x1234, 0x11e8, 1);
	int iommu = !strcmp(np_topology(), "iommu");
	int first = np_peer_num("first_qid");
	int qid = first + np_peer_num("nr_qids") - 1;
	unsigned long long sq, sdb, hdb;
	char path[160], buf[64];

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_NE(NULL, edu);
	ASSERT_NE(NULL, nvme);
	if (!strcmp(np_topology(), "rootports"))
		SKIP(return, "no peer-to-peer path across root ports");
	if (iommu) {
		/*
		 * The second edu, on a root port of its own: nothing turns
		 * its writes around below the IOMMU and it shares no IOMMU
		 * group with the controller, so the IOMMU confines it.
		 */
		ASSERT_NE(NULL, edu2);
		ASSERT_EQ(0, np_peer_queue(qid, edu2, buf, sizeof(buf)));
		EXPECT_STREQ("iommu", buf);
	}
	/* qid: the last one, which no other test in this boot rings */
	ASSERT_EQ(0, np_peer_queue(qid, edu, buf, sizeof(buf)));
	EXPECT_STREQ(iommu ? "iommu-switch" : "none", buf);
	snprintf(path, sizeof(path), "%s/q%d/sq_addr", np_peer(), qid);
	sq = np_read_num(path);
	snprintf(path, sizeof(path), "%s/q%d/sq_db_addr", np_peer(), qid);
	sdb = np_read_num(path);
	hdb = np_bar0(nvme) + 0x1000 + 8 * qid;
	ASSERT_NE(0, sq);
	ASSERT_NE(0, sdb);
	ASSERT_LT(0x1000, hdb);
	if (iommu) {
		np_sys("dmesg -c > /dev/null");
		/* its own shadow doorbell: allowed, no fault */
		EXPECT_EQ(0, np_write(NP_DBG_ACCEL "/dma", "%llx %llx 4", sq,
				      sdb));
		EXPECT_FALSE(np_dmesg_has("DMA Write"));
		/* the hardware doorbell: the IOMMU stops it */
		EXPECT_EQ(0, np_write(NP_DBG_ACCEL "/dma", "%llx %llx 4", sq,
				      hdb));
		usleep(100000);
		snprintf(buf, sizeof(buf), "fault addr 0x%llx",
			 hdb & ~0xfffULL);
		EXPECT_TRUE(np_dmesg_has(buf))
			TH_LOG("no DMAR fault for %#llx", hdb);
		printf("# np-trace-absent: pci_nvme_mmio_doorbell_sq sqid %d new_tail\n",
		       qid);
	}
	np_admin_delete(qid);
}

/* Format NVM of namespace 1 to LBA format @lbaf; the LBA size then in @lbs. */
static int np_format(int lbaf, int lbs)
{
	struct nvme_passthru_cmd c = {
		.opcode = 0x80, .nsid = 1, .cdw10 = lbaf, .timeout_ms = 60000,
	};
	char want[16];
	int fd = open(np_cdev(), O_RDWR), ret;

	if (fd < 0)
		return -errno;
	ret = ioctl(fd, NVME_IOCTL_ADMIN_CMD, &c);
	close(fd);
	if (ret)
		return ret < 0 ? -errno : -EIO;
	/* the block layer revalidates the namespace afterwards */
	snprintf(want, sizeof(want), "%d", lbs);
	return np_wait_for(np_ctrl_path("/sys/block/%sn1/queue/logical_block_size"),
			   want, 30);
}

/* RESERVE a mediated read-only queue with a 2-page buffer; retries -EAGAIN. */
static int np_reserve_ro(int fd)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = 1, .depth = 16,
		.sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = NVME_PEER_PLACE_HOST, .data_size = 8192,
	};
	int i;

	for (i = 0; i < 100; i++) {
		if (!ioctl(fd, NVME_PEER_IOC_RESERVE, &r))
			return r.qid;
		if (errno != EAGAIN)
			return -errno;
		usleep(100000);
	}
	return -EAGAIN;
}

/* Read @nlb LBAs at @slba into the data buffer's two pages; the status. */
static int np_read_buffer(struct np_gq *g, __u64 slba, int nlb)
{
	struct npq_cqe c;
	struct npq_sqe e;

	npq_sqe_rw(&e, NPQ_OPC_READ, 1, slba, nlb, g->info.data_ctrl_addr,
		   g->info.data_ctrl_addr + 4096);
	if (npq_enqueue(&g->q, &e) < 0)
		return -1;
	npq_ring_sq(&g->q);
	return np_wait(&g->q, &c);
}

/*
 * A Format NVM that changes the LBA size revokes every mediated queue of
 * the namespace (reason "namespace") before the controller runs it: their
 * guards count bytes with the old LBA size.  A reservation made afterwards
 * checks with the new one: with 4 KiB LBAs, 4 LBAs no longer fit an 8 KiB
 * buffer and never reach the controller; 2 do.
 */
TEST(format_revokes_mediated_queues)
{
	unsigned char *disk = np_aligned(8192);
	struct np_gq g, g2;
	struct pollfd pfd;
	char path[160];
	int fd, fd2, qid;
	__u64 fwd;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	if (strcmp(np_topology(), "switch"))
		SKIP(return, "formats namespace 1: once, in the switch boot");
	ASSERT_NE(NULL, disk);
	fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd);
	qid = np_reserve_ro(fd);
	ASSERT_LT(0, qid);
	ASSERT_EQ(0, np_gq_map(fd, &g));
	EXPECT_EQ(9, g.info.lba_shift);

	ASSERT_EQ(0, np_format(4, 4096));	/* LBA format 4: 4 KiB */
	ASSERT_EQ(0, np_query(fd, &g.info));
	EXPECT_EQ(NVME_PEER_STATE_REVOKED, g.info.state);
	EXPECT_EQ(NVME_PEER_REASON_NAMESPACE, g.info.reason);
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI };
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	np_gq_unmap(&g);
	close(fd);	/* the mappings were zapped: never touched again */

	fd2 = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
	ASSERT_LE(0, fd2);
	qid = np_reserve_ro(fd2);
	ASSERT_LT(0, qid);
	ASSERT_EQ(0, np_gq_map(fd2, &g2));
	EXPECT_EQ(12, g2.info.lba_shift);
	snprintf(path, sizeof(path), "%s/q%d", np_peer(), qid);
	fwd = np_stat(path, "forwarded");
	EXPECT_EQ(DNR | 0x04, np_read_buffer(&g2, G / 8 + 9, 4)); /* 16 KiB: no */
	EXPECT_EQ(fwd, np_stat(path, "forwarded"));
	printf("# np-trace-absent: pci_nvme_read .* lba 0x%llx$\n", G / 8 + 9);
	EXPECT_EQ(0, np_read_buffer(&g2, G / 8 + 10, 2));	/* 8 KiB: yes */
	EXPECT_EQ(fwd + 1, np_stat(path, "forwarded"));
	ASSERT_EQ(0, np_blk_io(np_bdev(), 0, (G / 8 + 10) * 4096ULL, disk,
			       8192));
	EXPECT_EQ(0, memcmp(disk, g2.data, 8192));
	np_gq_unmap(&g2);
	close(fd2);

	/* back to 512-byte LBAs for what follows */
	ASSERT_EQ(0, np_format(0, 512));
	free(disk);
}

/* Commands one thread keeps going on one queue for a second. */
struct np_load {
	struct np_gq *g;
	int done, failed;
};

static void *np_load_thread(void *arg)
{
	struct np_load *l = arg;
	struct timespec t0, t;
	int st;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		st = np_read_buffer(l->g, 64 + l->done % 64 * 16, 16);
		if (st)
			l->failed++;
		else
			l->done++;
		clock_gettime(CLOCK_MONOTONIC, &t);
	} while (!l->failed && t.tv_sec - t0.tv_sec < 2);
	return NULL;
}

static int np_poller_of(int qid)
{
	char path[160];

	snprintf(path, sizeof(path), "%s/q%d/poller", np_peer(), qid);
	return np_read_num(path);
}

/*
 * Two pollers: two mediated queues go to different threads, and both make
 * progress under load at once; going back to one poller moves both
 * queues to it while they stay usable.
 */
TEST(two_pollers_both_progress)
{
	long long was = np_read_num(NP_PARAM "mediate_pollers");
	struct np_load l[2] = { };
	struct np_gq g[2];
	pthread_t t[2];
	int fd[2], qid[2], i;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(1, was);
	/* both pollers bound, to CPU 0 and CPU 1 (or both to 0 with one) */
	ASSERT_EQ(0, np_write(NP_PARAM "mediate_cpus", "0-%ld",
			      sysconf(_SC_NPROCESSORS_ONLN) - 1));
	ASSERT_EQ(0, np_write(NP_PARAM "mediate_pollers", "2"));
	for (i = 0; i < 2; i++) {
		fd[i] = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
		ASSERT_LE(0, fd[i]);
		qid[i] = np_reserve_ro(fd[i]);
		ASSERT_LT(0, qid[i]);
		ASSERT_EQ(0, np_gq_map(fd[i], &g[i]));
	}
	TH_LOG("q%d on poller %d, q%d on poller %d", qid[0],
	       np_poller_of(qid[0]), qid[1], np_poller_of(qid[1]));
	EXPECT_NE(np_poller_of(qid[0]), np_poller_of(qid[1]));
	EXPECT_LE(0, np_poller_of(qid[0]));
	EXPECT_LE(0, np_poller_of(qid[1]));
	for (i = 0; i < 2; i++) {
		l[i].g = &g[i];
		ASSERT_EQ(0, pthread_create(&t[i], NULL, np_load_thread, &l[i]));
	}
	for (i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	TH_LOG("2 s of 8 KiB reads at QD1: %d and %d done", l[0].done,
	       l[1].done);
	EXPECT_EQ(0, l[0].failed + l[1].failed);
	EXPECT_LT(10, l[0].done);
	EXPECT_LT(10, l[1].done);

	ASSERT_EQ(0, np_write(NP_PARAM "mediate_pollers", "1"));
	EXPECT_EQ(0, np_poller_of(qid[0]));
	EXPECT_EQ(0, np_poller_of(qid[1]));
	for (i = 0; i < 2; i++) {
		EXPECT_EQ(0, np_read_buffer(&g[i], 64, 16));
		np_gq_unmap(&g[i]);
		close(fd[i]);
	}
	ASSERT_EQ(0, np_write(NP_PARAM "mediate_pollers", "%lld", was));
	EXPECT_EQ(-EINVAL, np_write(NP_PARAM "mediate_pollers", "0"));
	EXPECT_GT(0, np_write(NP_PARAM "mediate_cpus", "4096"));	/* -ERANGE */
	ASSERT_EQ(0, np_write(NP_PARAM "mediate_cpus", "\n"));
}

TEST_HARNESS_MAIN
