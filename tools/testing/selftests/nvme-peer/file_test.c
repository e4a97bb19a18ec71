// SPDX-License-Identifier: GPL-2.0
/*
 * File-bound queues: a range of a file on XFS (namespace 2 of the two-ctrl
 * topology's first controller) becomes a mediated queue's extents under a layout
 * lease; reads match read(2); holes, unwritten extents, other files' blocks
 * and blocks past EOF are refused; every layout change revokes the queue
 * before it returns; the three doors (ioctl, in-kernel, sysfs) and the
 * refusals.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <signal.h>
#include <time.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <sys/syscall.h>
#include <linux/capability.h>
#include <linux/falloc.h>
#include <linux/fiemap.h>
#include <linux/fs.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "np_queue.h"
#include "np_file.h"
#include "kselftest_harness.h"

#define DNR	0x4000
#define LBA_OOR	(DNR | 0x80)	/* LBA Out of Range */

/*
 * Physical extents of @fd (FIEMAP), as 512-byte LBAs of the namespace;
 * @unwritten selects unwritten (preallocated) ones instead of written.
 */
static int np_fiemap(int fd, int unwritten, __u64 *slba, __u64 *nlb, int max)
{
	struct fiemap *fm = calloc(1, sizeof(*fm) + 64 * sizeof(fm->fm_extents[0]));
	int i, n = 0;

	fm->fm_length = ~0ULL;
	fm->fm_flags = FIEMAP_FLAG_SYNC;
	fm->fm_extent_count = 64;
	if (ioctl(fd, FS_IOC_FIEMAP, fm)) {
		free(fm);
		return -errno;
	}
	for (i = 0; i < (int)fm->fm_mapped_extents && n < max; i++) {
		struct fiemap_extent *e = &fm->fm_extents[i];

		if (!!(e->fe_flags & FIEMAP_EXTENT_UNWRITTEN) != !!unwritten)
			continue;
		slba[n] = e->fe_physical / 512;
		nlb[n++] = e->fe_length / 512;
	}
	free(fm);
	return n;
}

/* Read every extent of the map through the queue; compare with pread(). */
static int np_check_map(int fd, struct np_map *m, int file_fd,
			struct nvme_peer_file_extent *ext, int n)
{
	char want[8192];
	__u64 done, nlb;
	int i, st;

	for (i = 0; i < n; i++) {
		for (done = 0; done < ext[i].nlb; done += nlb) {
			nlb = ext[i].nlb - done < 16 ? ext[i].nlb - done : 16;
			st = np_cmd_ns(fd, m, NPQ_OPC_READ, FS_NS,
				       ext[i].slba + done, nlb, 5000);
			if (st)
				return st;
			if (pread(file_fd, want, nlb * 512,
				  ext[i].off + done * 512) != (ssize_t)(nlb * 512) ||
			    memcmp(want, m->data, nlb * 512))
				return -EIO;
		}
	}
	return 0;
}

TEST(bound_file_reads_match_and_nothing_else)
{
	struct nvme_peer_file_extent *ext;
	__u64 slba[8], nlb[8], end = 0;
	int fd, file, other, sparse, n, i;
	struct nvme_peer_info info;
	struct np_map m;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("plain", 8 * MIB, 1);
	other = np_mkfile("other", MIB, 2);
	ASSERT_LE(0, file);
	ASSERT_LE(0, other);
	fd = np_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_bind(fd, file, FS_NS, 0, 8 * MIB,
			     NVME_PEER_ACCESS_READ, NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	info = m.info;
	EXPECT_TRUE(info.flags & NVME_PEER_INFO_FILE);
	EXPECT_EQ(NVME_PEER_LEASE_HELD, info.lease);
	EXPECT_EQ(8 * MIB, info.file_len);
	n = np_file_map(fd, &ext);
	ASSERT_LT(0, n);
	EXPECT_EQ(n, (int)info.file_extents);
	ASSERT_EQ(0, np_check_map(fd, &m, file, ext, n));
	for (i = 0; i < n; i++)
		if (ext[i].slba + ext[i].nlb > end)
			end = ext[i].slba + ext[i].nlb;
	/* the block after the file's last one: past EOF */
	EXPECT_EQ(LBA_OOR, np_cmd_ns(fd, &m, NPQ_OPC_READ, FS_NS, end, 8,
				     5000));
	/* another file's blocks */
	ASSERT_LT(0, np_fiemap(other, 0, slba, nlb, 8));
	EXPECT_EQ(LBA_OOR, np_cmd_ns(fd, &m, NPQ_OPC_READ, FS_NS, slba[0], 8,
				     5000));
	np_unmap_all(&m);
	close(fd);
	free(ext);

	/* a hole and an unwritten extent inside the bound range */
	sparse = np_mkfile("sparse", 4 * MIB, 3);
	ASSERT_LE(0, sparse);
	ASSERT_EQ(0, fallocate(sparse, FALLOC_FL_PUNCH_HOLE |
			       FALLOC_FL_KEEP_SIZE, MIB, MIB));
	ASSERT_EQ(0, fallocate(sparse, FALLOC_FL_PUNCH_HOLE |
			       FALLOC_FL_KEEP_SIZE, 2 * MIB, MIB));
	ASSERT_EQ(0, fallocate(sparse, 0, 2 * MIB, MIB));	/* unwritten */
	fd = np_open();
	ASSERT_EQ(0, np_bind(fd, sparse, FS_NS, 0, 4 * MIB,
			     NVME_PEER_ACCESS_READ, NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	n = np_file_map(fd, &ext);
	ASSERT_LT(0, n);
	for (end = 0, i = 0; i < n; i++) {
		end += ext[i].nlb;
		EXPECT_TRUE(ext[i].off < MIB || ext[i].off >= 3 * MIB);
	}
	EXPECT_EQ(2 * MIB / 512, end);		/* the written 2 MiB only */
	ASSERT_EQ(0, np_check_map(fd, &m, sparse, ext, n));
	ASSERT_LT(0, np_fiemap(sparse, 1, slba, nlb, 8));
	EXPECT_EQ(LBA_OOR, np_cmd_ns(fd, &m, NPQ_OPC_READ, FS_NS, slba[0], 8,
				     5000));
	np_unmap_all(&m);
	close(fd);
	free(ext);
	close(sparse);
	close(other);
	close(file);
}

/* Appends of 16 KiB to @fd with O_DIRECT: allocated as written. */
static int np_append_direct(const char *name, int *fd)
{
	char path[128];

	snprintf(path, sizeof(path), MNT "/%s", name);
	unlink(path);
	*fd = open(path, O_RDWR | O_CREAT | O_DIRECT, 0644);
	return *fd < 0 ? -errno : 0;
}

TEST(fragmented_file)
{
	struct nvme_peer_file_extent *ext;
	char *buf = np_aligned(16384);
	int fd, a, b, i, n, ra;
	struct np_map m;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	ASSERT_EQ(0, np_append_direct("frag-a", &a));
	ASSERT_EQ(0, np_append_direct("frag-b", &b));
	/* interleaved direct appends: each takes the next free blocks */
	for (i = 0; i < 64; i++) {
		np_fill(buf, 16384, 100 + i);
		ASSERT_EQ(16384, write(a, buf, 16384));
		ASSERT_EQ(16384, write(b, buf, 16384));
	}
	ASSERT_EQ(0, fsync(a));
	ASSERT_EQ(0, fsync(b));
	ra = open(MNT "/frag-a", O_RDONLY);	/* buffered, for the check */
	ASSERT_LE(0, ra);
	fd = np_open();
	ASSERT_EQ(0, np_bind(fd, ra, FS_NS, 0, 64 * 16384,
			     NVME_PEER_ACCESS_READ, NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	n = np_file_map(fd, &ext);
	TH_LOG("64 interleaved appends: %d extents", n);
	ASSERT_LE(16, n);
	ASSERT_EQ(0, np_check_map(fd, &m, ra, ext, n));
	np_unmap_all(&m);
	close(fd);
	free(ext);
	free(buf);
	close(ra);
	close(a);
	close(b);
}

enum np_change {
	CH_TRUNC_DOWN, CH_TRUNC_UP, CH_FALLOC, CH_PUNCH, CH_COLLAPSE,
	CH_INSERT, CH_ZERO, CH_WRITE, CH_CLONE, CH_DEDUPE,
};

FIXTURE(layout) {
	int fd, file;
	struct np_map m;
};

FIXTURE_VARIANT(layout) {
	enum np_change change;
};

FIXTURE_VARIANT_ADD(layout, truncate_down) { CH_TRUNC_DOWN };
FIXTURE_VARIANT_ADD(layout, truncate_up) { CH_TRUNC_UP };
FIXTURE_VARIANT_ADD(layout, fallocate) { CH_FALLOC };
FIXTURE_VARIANT_ADD(layout, punch_hole) { CH_PUNCH };
FIXTURE_VARIANT_ADD(layout, collapse_range) { CH_COLLAPSE };
FIXTURE_VARIANT_ADD(layout, insert_range) { CH_INSERT };
FIXTURE_VARIANT_ADD(layout, zero_range) { CH_ZERO };
FIXTURE_VARIANT_ADD(layout, write) { CH_WRITE };
FIXTURE_VARIANT_ADD(layout, ficlone) { CH_CLONE };
FIXTURE_VARIANT_ADD(layout, fideduperange) { CH_DEDUPE };

FIXTURE_SETUP(layout)
{
	self->fd = -1;
	if (np_fs())
		SKIP(return, "%s", np_fs());
	self->file = np_mkfile("layout", 2 * MIB, 7);
	ASSERT_LE(0, self->file);
	self->fd = np_open();
	ASSERT_EQ(0, np_bind(self->fd, self->file, FS_NS, 0, 2 * MIB,
			     NVME_PEER_ACCESS_READ, NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_map_all(self->fd, &self->m, 1));
}

FIXTURE_TEARDOWN(layout)
{
	np_inject("lease_return_delay", 0, 0);
	if (self->fd >= 0) {
		np_unmap_all(&self->m);
		close(self->fd);
		close(self->file);
	}
}

/* Change the layout of @file as @change does; 0 or -errno. */
static int np_change_layout(int file, enum np_change change)
{
	struct file_dedupe_range *d;
	char buf[4096] = { 1 };
	int other, ret = 0;

	switch (change) {
	case CH_TRUNC_DOWN:
		return ftruncate(file, MIB) ? -errno : 0;
	case CH_TRUNC_UP:
		return ftruncate(file, 4 * MIB) ? -errno : 0;
	case CH_FALLOC:
		return fallocate(file, 0, 2 * MIB, MIB) ? -errno : 0;
	case CH_PUNCH:
		return fallocate(file, FALLOC_FL_PUNCH_HOLE |
				 FALLOC_FL_KEEP_SIZE, 0, 65536) ? -errno : 0;
	case CH_COLLAPSE:
		return fallocate(file, FALLOC_FL_COLLAPSE_RANGE, 0, 65536) ?
		       -errno : 0;
	case CH_INSERT:
		return fallocate(file, FALLOC_FL_INSERT_RANGE, 0, 65536) ?
		       -errno : 0;
	case CH_ZERO:
		return fallocate(file, FALLOC_FL_ZERO_RANGE, 0, 65536) ?
		       -errno : 0;
	case CH_WRITE:
		return pwrite(file, buf, sizeof(buf), 0) == sizeof(buf) ?
		       0 : -errno;
	case CH_CLONE:
	case CH_DEDUPE:
		break;
	}
	other = np_mkfile("layout-copy", 2 * MIB, 7);	/* the same bytes */
	if (other < 0)
		return -EIO;
	if (change == CH_CLONE) {
		ret = ioctl(other, FICLONE, file) ? -errno : 0;
	} else {
		d = calloc(1, sizeof(*d) + sizeof(d->info[0]));
		d->src_length = MIB;
		d->dest_count = 1;
		d->info[0].dest_fd = other;
		ret = ioctl(file, FIDEDUPERANGE, d) ? -errno : 0;
		if (!ret && d->info[0].status != FILE_DEDUPE_RANGE_SAME)
			ret = -EIO;
		free(d);
	}
	close(other);
	return ret;
}

/*
 * When the changing call returns, the queue is revoked and the lease
 * returned, as QUERY says at once.  The injected delay holds nvme-peer's
 * work item for 100 ms right after it gave the lease back, so that the
 * breaker always returns first: whatever is left to do then must not be
 * visible.
 */
TEST_F(layout, change_revokes_before_it_returns)
{
	struct pollfd pfd = { .fd = self->fd, .events = POLLIN };
	struct nvme_peer_info info;
	struct timespec t0, t1;
	int changed;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	ASSERT_EQ(0, np_query(self->fd, &info));
	ASSERT_EQ(NVME_PEER_STATE_ACTIVE, info.state);
	ASSERT_EQ(0, np_inject("lease_return_delay", -1, 100));
	clock_gettime(CLOCK_MONOTONIC, &t0);
	changed = np_change_layout(self->file, variant->change);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ASSERT_EQ(0, np_query(self->fd, &info));
	usleep(200000);		/* the work item finishes before the reset */
	ASSERT_EQ(0, np_inject("lease_return_delay", 0, 0));
	ASSERT_EQ(0, changed);
	EXPECT_EQ(NVME_PEER_STATE_REVOKED, info.state);
	EXPECT_EQ(NVME_PEER_REASON_LAYOUT, info.reason);
	EXPECT_EQ(NVME_PEER_LEASE_RETURNED, info.lease);
	EXPECT_EQ(1, poll(&pfd, 1, 0));
	EXPECT_TRUE(pfd.revents & POLLERR);
	TH_LOG("layout change returned after %ld us",
	       (t1.tv_sec - t0.tv_sec) * 1000000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000);
}

/* The "reason=" and "callbacks=" of np-client's reservation @qid. */
static int np_client_status(int qid, char *reason, int *callbacks)
{
	char buf[1024], *line, want[32];

	if (np_read(NP_DBG_CLIENT "/status", buf, sizeof(buf)))
		return -1;
	snprintf(want, sizeof(want), "qid=%d ", qid);
	line = strstr(buf, want);
	if (!line || sscanf(line, "qid=%*d ctrl=%*s state=%*s reason=%31s callbacks=%d",
			    reason, callbacks) != 2)
		return -1;
	return 0;
}

/*
 * An in-kernel owner (np-client opens the file for its user) whose
 * callback does nothing but count: a truncate frees the blocks, another
 * file takes them, and the stale peer's reads of them are never forwarded.
 */
TEST(reallocated_blocks_never_readable)
{
	int file, g, qid, callbacks, i, ret;
	__u64 slba, nlb, gl[8], gn[8];
	char reason[32], line[160];
	struct timespec t0, t1;
	long long fwd;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	if (np_sys("modprobe np-client"))
		SKIP(return, "no np-client module");
	file = np_mkfile("kernel-owned", 4 * MIB, 11);
	ASSERT_LE(0, file);
	close(file);
	ASSERT_EQ(-1, np_client_last_qid());	/* none of other tests' */
	ASSERT_EQ(0, np_client_bind("kernel-owned", 4 * MIB));
	qid = np_client_last_qid();
	ASSERT_LT(0, qid);
	ASSERT_EQ(0, np_policy_extent(qid, &slba, &nlb));
	snprintf(line, sizeof(line), "%d r %llu 8 0", qid, slba);
	ASSERT_EQ(0, np_write(NP_DBG_CLIENT "/io", "%s", line));

	clock_gettime(CLOCK_MONOTONIC, &t0);
	ASSERT_EQ(0, truncate(MNT "/kernel-owned", 0));
	clock_gettime(CLOCK_MONOTONIC, &t1);
	TH_LOG("truncate with an owner that never reacts: %ld us",
	       (t1.tv_sec - t0.tv_sec) * 1000000 +
	       (t1.tv_nsec - t0.tv_nsec) / 1000);
	ASSERT_EQ(0, np_client_status(qid, reason, &callbacks));
	EXPECT_STREQ("layout", reason);
	EXPECT_EQ(1, callbacks);

	/* the freed blocks go to another file, with other bytes */
	g = np_mkfile("newcomer", 8 * MIB, 99);
	ASSERT_LE(0, g);
	ret = np_fiemap(g, 0, gl, gn, 8);
	ASSERT_LT(0, ret);
	for (i = 0; i < ret; i++)
		if (gl[i] <= slba && slba < gl[i] + gn[i])
			break;
	TH_LOG("old extent %llu+%llu %s by the new file", slba, nlb,
	       i < ret ? "reused" : "not reused");
	fwd = np_qfile_num(qid, "stats", "forwarded");
	snprintf(line, sizeof(line), "%d s %llu 8 0", qid, slba);
	EXPECT_EQ(-ETIMEDOUT, np_write(NP_DBG_CLIENT "/io", "%s", line));
	EXPECT_EQ(fwd, np_qfile_num(qid, "stats", "forwarded"));
	EXPECT_EQ(0, np_write(NP_DBG_CLIENT "/release", "%d", qid));
	close(g);
}

/*
 * An in-kernel owner whose data buffer is a dma-buf of the accelerator's
 * memory (np-client's "accel", np-accel's ivshmem BAR: what make demo's
 * edu device reads into): a Read of the bound file lands there, and only
 * there.
 */
TEST(client_reads_the_file_into_accelerator_memory)
{
	char want[4096], got[8192], buf[32];
	__u64 slba[8], nlb[8];
	int file, data, qid;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	if (np_sys("modprobe np-client"))
		SKIP(return, "no np-client module");
	file = np_mkfile("into-accel", MIB, 31);
	ASSERT_LE(0, file);
	ASSERT_LT(0, np_fiemap(file, 0, slba, nlb, 8));
	ASSERT_EQ(-1, np_client_last_qid());	/* none of other tests' */
	ASSERT_EQ(0, np_write(NP_DBG_CLIENT "/reserve",
			      "%s %d 16 %s %s accel 8192 cpu mediated r file=%s/into-accel,0,%d,r",
			      np_ctrl(), FS_NS, "host", "host", MNT, MIB));
	qid = np_client_last_qid();
	ASSERT_LT(0, qid);
	snprintf(buf, sizeof(buf), "q%d/data_placement", qid);
	ASSERT_EQ(0, np_read(np_peer_file(buf), buf, sizeof(buf)));
	EXPECT_STREQ("dmabuf", buf);
	snprintf(buf, sizeof(buf), "q%d/data_location", qid);
	ASSERT_EQ(0, np_read(np_peer_file(buf), buf, sizeof(buf)));
	EXPECT_STREQ("p2p", buf);

	ASSERT_EQ(0, np_write(NP_DBG_CLIENT "/io", "%d r %llu 8 0", qid,
			      slba[0]));
	ASSERT_EQ((ssize_t)sizeof(want), pread(file, want, sizeof(want), 0));
	data = open(NP_DBG_CLIENT "/data", O_RDONLY);
	ASSERT_LE(0, data);
	EXPECT_EQ((ssize_t)sizeof(got), read(data, got, sizeof(got)));
	close(data);
	EXPECT_EQ(0, memcmp(want, got, sizeof(want)));
	EXPECT_EQ(0, np_write(NP_DBG_CLIENT "/release", "%d", qid));
	close(file);
	unlink(MNT "/into-accel");
}

TEST(rw_binding_writes_reach_the_file)
{
	struct nvme_peer_file_extent *ext;
	char before[8192], after[8192];
	__u64 slba[8], nlb[8];
	int fd, file, pre, n;
	struct np_map m;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("rw", MIB, 21);
	pre = np_mkfile("prealloc", 0, 0);
	ASSERT_LE(0, file);
	ASSERT_LE(0, pre);
	ASSERT_EQ(0, fallocate(pre, 0, 0, MIB));
	/* the page cache holds the old bytes */
	ASSERT_EQ(sizeof(before), pread(file, before, sizeof(before), 0));
	fd = np_open();
	ASSERT_EQ(0, np_bind(fd, file, FS_NS, 0, MIB,
			     NVME_PEER_ACCESS_READ | NVME_PEER_ACCESS_WRITE,
			     NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	n = np_file_map(fd, &ext);
	ASSERT_LT(0, n);
	ASSERT_EQ(0, ext[0].off);
	np_fill(m.data, 8192, 4242);
	memcpy(after, m.data, sizeof(after));
	ASSERT_EQ(0, np_cmd_ns(fd, &m, NPQ_OPC_WRITE, FS_NS, ext[0].slba, 16,
			       5000));
	/* not into unwritten extents */
	ASSERT_LT(0, np_fiemap(pre, 1, slba, nlb, 8));
	EXPECT_EQ(LBA_OOR, np_cmd_ns(fd, &m, NPQ_OPC_WRITE, FS_NS, slba[0],
				     8, 5000));
	np_unmap_all(&m);
	close(fd);		/* release: the cached pages go */
	ASSERT_EQ(sizeof(before), pread(file, before, sizeof(before), 0));
	EXPECT_EQ(0, memcmp(before, after, sizeof(after)));
	free(ext);
	close(pre);
	close(file);
}

TEST(refusals_bind_nothing)
{
	int fd, file, wo, ro, dir, tmp, clone, free_before;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("refuse", MIB, 31);
	ASSERT_LE(0, file);
	free_before = np_peer_num("free");
	fd = np_open();
	ASSERT_LE(0, fd);
	/* another namespace than the file's */
	EXPECT_EQ(-EXDEV, np_bind(fd, file, 1, 0, MIB, NVME_PEER_ACCESS_READ,
				  NVME_PEER_MODE_MEDIATED));
	/* another device: tmpfs */
	tmp = open("/tmp/np-file", O_RDWR | O_CREAT, 0644);
	ASSERT_EQ(0, ftruncate(tmp, MIB));
	EXPECT_EQ(-EXDEV, np_bind(fd, tmp, FS_NS, 0, MIB,
				  NVME_PEER_ACCESS_READ,
				  NVME_PEER_MODE_MEDIATED));
	dir = open(MNT, O_RDONLY | O_DIRECTORY);
	EXPECT_EQ(-EISDIR, np_bind(fd, dir, FS_NS, 0, 4096,
				   NVME_PEER_ACCESS_READ,
				   NVME_PEER_MODE_MEDIATED));
	wo = open(MNT "/refuse", O_WRONLY);
	EXPECT_EQ(-EBADF, np_bind(fd, wo, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
				  NVME_PEER_MODE_MEDIATED));
	ro = open(MNT "/refuse", O_RDONLY);
	EXPECT_EQ(-EBADF, np_bind(fd, ro, FS_NS, 0, MIB,
				  NVME_PEER_ACCESS_READ |
				  NVME_PEER_ACCESS_WRITE,
				  NVME_PEER_MODE_MEDIATED));
	EXPECT_EQ(-EINVAL, np_bind(fd, file, FS_NS, 0, 2 * MIB,
				   NVME_PEER_ACCESS_READ,
				   NVME_PEER_MODE_MEDIATED));	/* past EOF */
	EXPECT_EQ(-EINVAL, np_bind(fd, file, FS_NS, 512, 4096,
				   NVME_PEER_ACCESS_READ,
				   NVME_PEER_MODE_MEDIATED));	/* unaligned */
	EXPECT_EQ(-EINVAL, np_bind(fd, file, FS_NS, 0, MIB,
				   NVME_PEER_ACCESS_WRITE,
				   NVME_PEER_MODE_MEDIATED));	/* no read */
	EXPECT_EQ(-EINVAL, np_bind(fd, file, FS_NS, 0, MIB,
				   NVME_PEER_ACCESS_READ,
				   NVME_PEER_MODE_DIRECT));
	EXPECT_EQ(-EBADF, np_bind(fd, 1000, FS_NS, 0, MIB,
				  NVME_PEER_ACCESS_READ,
				  NVME_PEER_MODE_MEDIATED));
	/* a reflinked file: XFS hands out no layout for it */
	clone = open(MNT "/refuse-clone", O_RDWR | O_CREAT, 0644);
	ASSERT_EQ(0, ioctl(clone, FICLONE, file));
	EXPECT_EQ(-ENXIO, np_bind(fd, file, FS_NS, 0, MIB,
				  NVME_PEER_ACCESS_READ,
				  NVME_PEER_MODE_MEDIATED));
	EXPECT_EQ(free_before, np_peer_num("free"));
	/* and the file descriptor can still reserve */
	file = np_mkfile("refuse-ok", MIB, 32);
	EXPECT_EQ(0, np_bind(fd, file, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
			     NVME_PEER_MODE_MEDIATED));
	close(fd);
	close(clone);
	close(ro);
	close(wo);
	close(dir);
	close(tmp);
	close(file);
}

/* Read [0, @len) of MNT/@name from the media (O_DIRECT) into @buf. */
static int np_read_media(const char *name, void *buf, size_t len)
{
	char path[128];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), MNT "/%s", name);
	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return -errno;
	n = pread(fd, buf, len, 0);
	close(fd);
	return n == (ssize_t)len ? 0 : -EIO;
}

/*
 * A read binding forwards no command that changes the media: a policy
 * asking for any opcode but the readers (Read, Flush) is refused with
 * EACCES when the queue is reserved, through each door (the ioctl, sysfs,
 * the in-kernel API); without opcodes it gets Read alone.  The file is
 * root's and 0444, as in the review (issue 20, item 1).
 */
TEST(read_binding_refuses_writers)
{
	static const __u32 writers[] = {
		NVME_PEER_OPCODE_WRITE,
		NVME_PEER_OPCODE_READ | NVME_PEER_OPCODE_WRITE,
		NVME_PEER_OPCODE_WRITE_ZEROES,
		NVME_PEER_OPCODE_DSM,
		NVME_PEER_OPCODE_READ | NVME_PEER_OPCODE_FLUSH |
			NVME_PEER_OPCODE_DSM,
		1U << 0x05,		/* not a reader: an unknown opcode */
	};
	char *before = np_aligned(4096), *after = np_aligned(4096);
	int fd, ro, qid, free_before, i;
	char path[64], buf[4096];
	struct nvme_peer_info info;
	__u64 slba, nlb;
	struct np_map m;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	ASSERT_NE(NULL, before);
	ASSERT_NE(NULL, after);
	ro = np_mkfile("ro", MIB, 61);
	ASSERT_LE(0, ro);
	close(ro);
	ASSERT_EQ(0, chmod(MNT "/ro", 0444));
	ro = open(MNT "/ro", O_RDONLY);
	ASSERT_LE(0, ro);
	ASSERT_EQ(0, np_read_media("ro", before, 4096));
	free_before = np_peer_num("free");
	qid = np_peer_num("first_qid") + 6;

	fd = np_open();
	ASSERT_LE(0, fd);
	for (i = 0; i < (int)ARRAY_SIZE(writers); i++) {
		EXPECT_EQ(-EACCES, np_bind_ops(fd, ro, FS_NS, 0, MIB,
					       NVME_PEER_ACCESS_READ,
					       NVME_PEER_MODE_MEDIATED,
					       writers[i]))
			TH_LOG("ioctl, opcodes %#x", writers[i]);
	}
	/* the review's request */
	EXPECT_EQ(-EACCES, np_admin_create("nsid=%d file=" MNT
					   "/ro file_off=0 file_len=%d %s qid=%d",
					   FS_NS, MIB,
					   "file_access=read opcodes=read,write uid=1000", qid));
	EXPECT_EQ(-EACCES, np_admin_create("nsid=%d file=" MNT
					   "/ro file_len=%d opcodes=read,dsm qid=%d",
					   FS_NS, MIB, qid));
	/* np-client opens the file read-only for its user */
	if (!np_sys("modprobe np-client")) {
		EXPECT_EQ(-EACCES, np_client_bind_ops("ro", MIB, "rw"));
		EXPECT_EQ(-EACCES, np_client_bind_ops("ro", MIB, "z"));
		EXPECT_EQ(0, np_client_bind_ops("ro", MIB, "rf"));
		EXPECT_EQ(0, np_write(NP_DBG_CLIENT "/release", "all"));
	} else {
		TH_LOG("no np-client module: the in-kernel door is not tried");
	}
	EXPECT_EQ(free_before, np_peer_num("free"));

	/* the readers pass; a Write on such a queue is never forwarded */
	ASSERT_EQ(0, np_bind_ops(fd, ro, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
				 NVME_PEER_MODE_MEDIATED,
				 NVME_PEER_OPCODE_READ |
				 NVME_PEER_OPCODE_FLUSH));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	ASSERT_EQ(0, np_policy_extent(m.info.qid, &slba, &nlb));
	np_fill(m.data, 4096, 62);
	EXPECT_EQ(DNR | 0x01, np_cmd_ns(fd, &m, NPQ_OPC_WRITE, FS_NS, slba, 8,
					5000));
	EXPECT_EQ(0, np_cmd_ns(fd, &m, NPQ_OPC_READ, FS_NS, slba, 8, 5000));
	EXPECT_EQ(0, memcmp(before, m.data, 4096));
	np_unmap_all(&m);
	close(fd);
	/* no opcodes: Read alone */
	fd = np_open();
	ASSERT_EQ(0, np_bind_ops(fd, ro, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
				 NVME_PEER_MODE_MEDIATED, 0));
	ASSERT_EQ(0, np_query(fd, &info));
	snprintf(path, sizeof(path), "q%u/policy", info.qid);
	ASSERT_EQ(0, np_read(np_peer_file(path), buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "opcodes 0x4\n")) TH_LOG("%s", buf);
	close(fd);
	EXPECT_EQ(0, np_admin_create("nsid=%d file=" MNT
				     "/ro file_len=%d opcodes=read,flush qid=%d",
				     FS_NS, MIB, qid));
	EXPECT_EQ(0, np_admin_delete(qid));

	ASSERT_EQ(0, np_read_media("ro", after, 4096));
	EXPECT_EQ(0, memcmp(before, after, 4096));
	close(ro);
	free(before);
	free(after);
}

static void np_alarm(int sig)
{
}

/*
 * Enabling an intent opens its file as a regular file only, without blocking: a
 * FIFO with no writer fails at once (EINVAL), a directory with EISDIR, a
 * device with EINVAL (issue 20, item 12).  Before, the FIFO's open waited
 * for a writer, and the controller's removal with it.
 */
TEST(admin_file_must_be_regular)
{
	struct sigaction sa = { .sa_handler = np_alarm };	/* no restart */
	struct timespec t0, t1;
	int ret, free_before;
	long ms;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	unlink(MNT "/fifo");
	ASSERT_EQ(0, mkfifo(MNT "/fifo", 0644));
	free_before = np_peer_num("free");
	ASSERT_EQ(0, sigaction(SIGALRM, &sa, NULL));
	alarm(5);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	ret = np_admin_create("nsid=%d file=" MNT "/fifo file_len=4096", FS_NS);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	alarm(0);
	ms = (t1.tv_sec - t0.tv_sec) * 1000 + (t1.tv_nsec - t0.tv_nsec) / 1000000;
	EXPECT_EQ(-EINVAL, ret) TH_LOG("after %ld ms", ms);
	EXPECT_GT(1000, ms);
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=%d file=" MNT "/fifo file_access=rw file_len=4096",
					   FS_NS));
	EXPECT_EQ(-EISDIR, np_admin_create("nsid=%d file=" MNT " file_len=4096", FS_NS));
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=%d file=/dev/null file_len=4096", FS_NS));
	EXPECT_EQ(-ENOENT, np_admin_create("nsid=%d file=" MNT "/none file_len=4096", FS_NS));
	EXPECT_EQ(free_before, np_peer_num("free"));
	unlink(MNT "/fifo");
}

/*
 * An intent without file_len (0) binds up to the end of the file, which must
 * then lie on a file system block (issue 20, item 15).
 */
TEST(admin_len_defaults_to_eof)
{
	char path[64], buf[512];
	int qid, file, free_before;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("to-eof", 3 * MIB, 71);
	ASSERT_LE(0, file);
	free_before = np_peer_num("free");
	qid = np_peer_num("first_qid") + 6;
	ASSERT_EQ(0, np_admin_create("nsid=%d file=" MNT "/to-eof file_off=%d qid=%d", FS_NS, MIB,
				     qid));
	snprintf(path, sizeof(path), "q%d/file", qid);
	ASSERT_EQ(0, np_read(np_peer_file(path), buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "off 1048576\nlen 2097152\n"))
		TH_LOG("%s", buf);
	EXPECT_EQ(0, np_admin_delete(qid));
	ASSERT_EQ(0, np_admin_create("nsid=%d file=" MNT "/to-eof qid=%d", FS_NS, qid));
	ASSERT_EQ(0, np_read(np_peer_file(path), buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "off 0\nlen 3145728\n")) TH_LOG("%s", buf);
	EXPECT_EQ(0, np_admin_delete(qid));
	/* nothing left past the offset, or an end inside a block */
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=%d file=" MNT "/to-eof file_off=%d",
					   FS_NS, 3 * MIB));
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=%d file=" MNT "/to-eof file_off=%d",
					   FS_NS, 4 * MIB));
	ASSERT_EQ(0, ftruncate(file, 3 * MIB - 100));
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=%d file=" MNT "/to-eof", FS_NS));
	EXPECT_EQ(free_before, np_peer_num("free"));
	close(file);
}

TEST(admin_binding_for_a_tenant)
{
	char path[64], buf[512];
	struct stat st;
	int qid, file;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("tenant", 2 * MIB, 41);
	ASSERT_LE(0, file);
	qid = np_peer_num("first_qid") + 5;
	EXPECT_EQ(-EINVAL, np_admin_create("nsid=%d file_off=4096 qid=%d", FS_NS, qid));
	ASSERT_EQ(0, np_admin_create("nsid=%d file=" MNT
				     "/tenant file_off=0 file_len=%d uid=1000 qid=%d",
				     FS_NS, 2 * MIB, qid));
	snprintf(path, sizeof(path), "q%d/file", qid);
	ASSERT_EQ(0, np_read(np_peer_file(path), buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "lease held"));
	EXPECT_NE(NULL, strstr(buf, "access read"));
	EXPECT_NE(NULL, strstr(buf, "len 2097152"));
	/* the block map is root's: FIBMAP needs CAP_SYS_RAWIO (item 11) */
	snprintf(path, sizeof(path), "q%d/policy", qid);
	ASSERT_EQ(0, stat(np_peer_file(path), &st));
	EXPECT_EQ(0400, st.st_mode & 0777);
	ASSERT_EQ(0, ftruncate(file, 0));
	snprintf(path, sizeof(path), "q%d/reason", qid);
	ASSERT_EQ(0, np_read(np_peer_file(path), buf, sizeof(buf)));
	EXPECT_STREQ("layout", buf);
	snprintf(path, sizeof(path), "q%d/file", qid);
	ASSERT_EQ(0, np_read(np_peer_file(path), buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "lease returned"));
	EXPECT_EQ(0, np_admin_delete(qid));
	close(file);
}

/*
 * Issue 22: a file-bound intent across a reset.  Its reservation comes
 * back (generation 2) with the layout lease held again on the same blocks;
 * a truncate afterwards revokes it, and a layout change does not come back
 * by itself: the intent is down with reason layout.
 */
TEST(admin_binding_survives_a_reset)
{
	const char *ctrl = np_ctrl();
	char path[64], buf[512], map[512];
	int file, qid;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("across", 2 * MIB, 23);
	ASSERT_LE(0, file);
	np_cfs_clear(ctrl);
	ASSERT_EQ(0, np_cfs_make(ctrl, "bound",
				 "nsid=%d file=" MNT "/across file_len=%d uid=1000",
				 FS_NS, 2 * MIB));
	qid = np_read_num(np_cfs_path(ctrl, "bound", "live_qid"));
	snprintf(path, sizeof(path), "q%d/file", qid);
	ASSERT_EQ(0, np_read(np_peer_file(path), map, sizeof(map)));

	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"),
			      "1"));
	ASSERT_EQ(0, np_wait_for(np_cfs_path(ctrl, "bound", "generation"), "2",
				 30));
	ASSERT_EQ(0, np_cfs_read(ctrl, "bound", "state", buf, sizeof(buf)));
	EXPECT_STREQ("active", buf);
	qid = np_read_num(np_cfs_path(ctrl, "bound", "live_qid"));
	snprintf(path, sizeof(path), "q%d/file", qid);
	ASSERT_EQ(0, np_read(np_peer_file(path), buf, sizeof(buf)));
	EXPECT_NE(NULL, strstr(buf, "lease held")) TH_LOG("%s", buf);
	/* the same file, range and blocks as before the reset */
	EXPECT_STREQ(map, buf);

	ASSERT_EQ(0, ftruncate(file, 0));
	ASSERT_EQ(0, np_cfs_read(ctrl, "bound", "state", buf, sizeof(buf)));
	EXPECT_STREQ("down", buf);
	ASSERT_EQ(0, np_cfs_read(ctrl, "bound", "reason", buf, sizeof(buf)));
	EXPECT_STREQ("layout", buf);
	snprintf(path, sizeof(path), "q%d/reason", qid);
	ASSERT_EQ(0, np_read(np_peer_file(path), buf, sizeof(buf)));
	EXPECT_STREQ("layout", buf);
	EXPECT_EQ(0, np_cfs_remove(ctrl, "bound"));
	close(file);
}

/*
 * What does not break a layout: unlink (the bound file keeps the inode
 * and its blocks) and writes through a shared mapping (the blocks stay;
 * the peer sees the bytes once they are written back).
 */
TEST(unlink_and_mmap_writes_keep_the_queue)
{
	struct nvme_peer_file_extent *ext;
	__u64 gl[8], gn[8];
	int fd, file, g, n, i, k;
	struct nvme_peer_info info;
	struct np_map m;
	char *map;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("doomed", MIB, 51);
	ASSERT_LE(0, file);
	fd = np_open();
	ASSERT_EQ(0, np_bind(fd, file, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
			     NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	n = np_file_map(fd, &ext);
	ASSERT_LT(0, n);

	map = mmap(NULL, MIB, PROT_READ | PROT_WRITE, MAP_SHARED, file, 0);
	ASSERT_NE(MAP_FAILED, map);
	map[0] = ~map[0];
	ASSERT_EQ(0, msync(map, 4096, MS_SYNC));
	ASSERT_EQ(0, np_check_map(fd, &m, file, ext, 1));	/* new byte */
	munmap(map, MIB);

	ASSERT_EQ(0, unlink(MNT "/doomed"));
	g = np_mkfile("after-unlink", 32 * MIB, 52);
	ASSERT_LE(0, g);
	k = np_fiemap(g, 0, gl, gn, 8);
	ASSERT_LT(0, k);
	for (i = 0; i < k; i++)		/* the unlinked file's blocks stay its */
		EXPECT_TRUE(gl[i] + gn[i] <= ext[0].slba ||
			    ext[0].slba + ext[0].nlb <= gl[i]);
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_STATE_ACTIVE, info.state);
	ASSERT_EQ(0, np_check_map(fd, &m, file, ext, n));
	np_unmap_all(&m);
	close(fd);
	free(ext);
	close(g);
	unlink(MNT "/after-unlink");
	close(file);
}

/*
 * The lease is nvme-peer's own, on a file it opened itself: the caller's
 * open file shows no lease (F_GETLEASE) while bound and keeps its owner
 * (F_SETOWN) after the release.
 */
TEST(lease_is_nvme_peers_own)
{
	int fd, file;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("own", MIB, 71);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, fcntl(file, F_SETOWN, getpid()));
	fd = np_open();
	ASSERT_EQ(0, np_bind(fd, file, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
			     NVME_PEER_MODE_MEDIATED));
	EXPECT_EQ(F_UNLCK, fcntl(file, F_GETLEASE));
	close(fd);
	EXPECT_EQ(getpid(), fcntl(file, F_GETOWN));
	close(file);
}

/*
 * Who may bind: the file's owner or a caller with CAP_LEASE, on 6.1 and
 * 6.12 alike (6.12's kernel_setlease() checks neither).  Root without
 * CAP_LEASE cannot bind uid 1000's file, with it can.
 */
TEST(bind_needs_owner_or_cap_lease)
{
	int fd, file;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("theirs", MIB, 72);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, fchown(file, 1000, 1000));
	fd = np_open();
	ASSERT_EQ(0, np_cap_set(CAP_LEASE, 0));
	EXPECT_EQ(-EACCES, np_bind(fd, file, FS_NS, 0, MIB,
				   NVME_PEER_ACCESS_READ,
				   NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_cap_set(CAP_LEASE, 1));
	EXPECT_EQ(0, np_bind(fd, file, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
			     NVME_PEER_MODE_MEDIATED));
	close(fd);
	close(file);
}

/*
 * A caller that bound with CAP_LEASE and lost it before the release: the
 * lease still goes with the binding, so a truncate afterwards breaks
 * nothing of nvme-peer's.  Before, on 6.1, giving the lease back failed
 * the owner check, the binding was freed with the lease on the inode, and
 * the truncate ran ->lm_break() on freed memory (KASAN).
 */
TEST(lease_goes_with_the_binding_without_cap_lease)
{
	int fd, file;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("dropcap", MIB, 73);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, fchown(file, 1000, 1000));
	fd = np_open();
	ASSERT_EQ(0, np_bind(fd, file, FS_NS, 0, MIB, NVME_PEER_ACCESS_READ,
			     NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_cap_set(CAP_LEASE, 0));
	close(fd);		/* the release gives the lease back */
	ASSERT_EQ(0, np_cap_set(CAP_LEASE, 1));
	EXPECT_EQ(0, ftruncate(file, 0));
	close(file);
}

/*
 * Reset the controller and RESERVE a plain mediated queue of namespace 1
 * in a child; wait up to @secs for it (a child blocked in the kernel
 * cannot be killed), then thaw MNT either way.  0, -errno, or -ETIMEDOUT.
 */
static int np_reset_reserve_thaw(int secs)
{
	pid_t pid = fork();
	int st, i;

	if (!pid) {
		struct nvme_peer_reserve r = {
			.size = sizeof(r), .nsid = 1, .depth = 16,
			.ctrl = strtoul(np_ctrl() + 4, NULL, 10),
			.sq_placement = NVME_PEER_PLACE_HOST,
			.cq_placement = NVME_PEER_PLACE_HOST,
			.data_placement = NVME_PEER_PLACE_HOST,
			.data_size = 8192,
		};
		int fd = np_open();

		if (np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"),
			     "1"))
			_exit(EIO);
		for (i = 0; i < 50; i++) {	/* -EAGAIN while it resets */
			if (!ioctl(fd, NVME_PEER_IOC_RESERVE, &r))
				_exit(0);
			if (errno != EAGAIN)
				_exit(errno);
			usleep(100000);
		}
		_exit(EAGAIN);
	}
	if (pid < 0)
		return -ECHILD;
	for (i = 0; i < secs * 10; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			break;
		usleep(100000);
	}
	np_sys("xfs_io -x -c thaw " MNT);
	if (i == secs * 10) {
		waitpid(pid, &st, 0);	/* the thaw let it go on */
		return -ETIMEDOUT;
	}
	return -WEXITSTATUS(st);
}

/*
 * The file-system work of a binding's last reference (lease back, page
 * cache dropped, times updated) must not run under the controller's lock:
 * with the file system frozen it would block every reserve, release and
 * removal of the controller.  A released rw binding whose Delete failed
 * (fail_delete) is freed by the reset's work under pctrl->lock; with the
 * file system frozen, a reserve on the controller still completes.
 * Before: the reset's work blocked in the time update holding the lock,
 * and the reserve waited for the thaw (here: after 12 s).
 */
TEST(frozen_file_system_blocks_no_reserve)
{
	int fd, file, ret;
	struct np_map m;
	struct nvme_peer_file_extent *ext;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("frozen", MIB, 74);
	ASSERT_LE(0, file);
	fd = np_open();
	ASSERT_EQ(0, np_bind(fd, file, FS_NS, 0, MIB,
			     NVME_PEER_ACCESS_READ | NVME_PEER_ACCESS_WRITE,
			     NVME_PEER_MODE_MEDIATED));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	ASSERT_LT(0, np_file_map(fd, &ext));
	np_fill(m.data, 8192, 7474);
	ASSERT_EQ(0, np_cmd_ns(fd, &m, NPQ_OPC_WRITE, FS_NS, ext[0].slba, 16,
			       5000));
	np_unmap_all(&m);
	ASSERT_EQ(0, np_inject("fail_delete", 1, 0));
	close(fd);		/* released; its SQ stays: not freed yet */
	ASSERT_EQ(0, np_sys("xfs_io -x -c freeze " MNT));
	ret = np_reset_reserve_thaw(12);
	EXPECT_EQ(0, ret);
	np_inject("fail_delete", 0, 0);
	close(file);
	free(ext);
}

/*
 * FIFREEZE or FITHAW on MNT: 0 or -errno.  The freeze keeps MNT open for
 * the thaw: XFS refuses opens once it is shut down (its device removed),
 * and a frozen one must still be thawed then.
 */
static int np_freeze(unsigned long req)
{
	static int fd = -1;
	int ret;

	if (fd < 0)
		fd = open(MNT, O_RDONLY | O_DIRECTORY);
	if (fd < 0)
		return -errno;
	ret = ioctl(fd, req, 0) ? -errno : 0;
	if (req == FITHAW) {
		close(fd);
		fd = -1;
	}
	return ret;
}

/*
 * Run @fn(@arg) in a child and wait up to @secs for it (a child blocked in
 * the kernel cannot be killed): on a timeout its kernel stack is logged,
 * MNT thawed and the child reaped.  Its exit status, or -ETIMEDOUT.
 */
static int np_bounded(int secs, int (*fn)(const void *), const void *arg)
{
	char path[64], stack[4096];
	pid_t pid = fork();
	int st, i;

	if (!pid)
		_exit(fn(arg));
	if (pid < 0)
		return -ECHILD;
	for (i = 0; i < secs * 10; i++) {
		if (waitpid(pid, &st, WNOHANG) == pid)
			return WEXITSTATUS(st);
		usleep(100000);
	}
	snprintf(path, sizeof(path), "/proc/%d/stack", pid);
	if (!np_read(path, stack, sizeof(stack)))
		fprintf(stderr, "# still blocked after %d s:\n%s\n", secs,
			stack);
	np_freeze(FITHAW);
	waitpid(pid, &st, 0);
	return -ETIMEDOUT;
}

static int np_write_zero(const void *path)
{
	return -np_write(path, "0");
}

static int np_rmdir(const void *path)
{
	return rmdir(path) ? errno : 0;
}

/*
 * Whether a lease (nvme-peer's layout lease) is on the inode @st is of
 * (stat before: a shut-down XFS fails fstat()).
 */
static int np_leased(const struct stat *st)
{
	char locks[8192], key[64];

	if (np_read("/proc/locks", locks, sizeof(locks)))
		return -1;
	snprintf(key, sizeof(key), " %02x:%02x:%lu ", major(st->st_dev),
		 minor(st->st_dev), (unsigned long)st->st_ino);
	return !!strstr(locks, key);
}

/* Pages of [0, @len) of @fd in the page cache. */
static int np_cached(int fd, size_t len)
{
	unsigned char vec[512];
	void *map = mmap(NULL, len, PROT_READ, MAP_SHARED, fd, 0);
	int i, n = 0;

	if (map == MAP_FAILED || len / 4096 > sizeof(vec))
		return -1;
	if (!mincore(map, len, vec))
		for (i = 0; i < (int)(len / 4096); i++)
			n += vec[i] & 1;
	munmap(map, len);
	return n;
}

/* Wait up to @secs for the mtime of @fd to differ from @before. */
static int np_mtime_moves(int fd, const struct timespec *before, int secs)
{
	struct stat st;
	int i;

	for (i = 0; i < secs * 10; i++) {
		if (!fstat(fd, &st) &&
		    (st.st_mtim.tv_sec != before->tv_sec ||
		     st.st_mtim.tv_nsec != before->tv_nsec))
			return 0;
		usleep(100000);
	}
	return -ETIMEDOUT;
}

/*
 * A read-write intent @name on np_ctrl() bound to a new MNT/@file of 1 MiB
 * (@st: its stat): the file's fd, or -errno.
 */
static int np_rw_intent(const char *name, const char *file, unsigned int seed,
			struct stat *st)
{
	int fd = np_mkfile(file, MIB, seed), ret;

	if (fd < 0)
		return -EIO;
	np_cfs_clear(np_ctrl());
	ret = np_cfs_make(np_ctrl(), name,
			  "nsid=%d file=" MNT "/%s file_access=rw", FS_NS, file);
	if (!ret && fstat(fd, st))
		ret = -errno;
	if (ret) {
		close(fd);
		return ret;
	}
	return fd;
}

/*
 * Issue 31, item 7: an intent's release waits for no file-system work a
 * frozen file system holds up.  Disabling and removing a read-write
 * file-bound intent while its XFS is frozen returns at once, with the
 * lease back and the bound range's cached pages dropped; the time update
 * follows the thaw.  Before: the release waited for file_update_time() on
 * the frozen XFS, and a controller's removal (REMOVED ends its intents
 * through the same release) with it.
 */
TEST(frozen_file_system_blocks_no_intent_release)
{
	const char *ctrl = np_ctrl();
	char buf[MIB / 4];
	struct stat st;
	int file, qid;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_rw_intent("frozen", "frozen-intent", 75, &st);
	ASSERT_LE(0, file);
	qid = np_read_num(np_cfs_path(ctrl, "frozen", "live_qid"));
	ASSERT_LT(0, qid);
	EXPECT_EQ(1, np_leased(&st));
	ASSERT_EQ(sizeof(buf), pread(file, buf, sizeof(buf), 0));
	EXPECT_LT(0, np_cached(file, MIB));

	ASSERT_EQ(0, np_freeze(FIFREEZE));
	EXPECT_EQ(0, np_bounded(10, np_write_zero,
				np_cfs_path(ctrl, "frozen", "enable")));
	EXPECT_EQ(0, np_leased(&st));
	EXPECT_EQ(0, np_cached(file, MIB));
	EXPECT_EQ(0, np_bounded(10, np_rmdir,
				np_cfs_path(ctrl, "frozen", NULL)));
	np_freeze(FITHAW);	/* unless a timeout did */
	EXPECT_EQ(0, np_mtime_moves(file, &st.st_mtim, 10));
	np_cfs_clear(ctrl);
	close(file);
}

static int np_write_one(const void *path)
{
	return -np_write(path, "1");
}

/* The removals below take longer than the harness's 30 s. */
FIXTURE(frozen) {
	int unused;
};

FIXTURE_SETUP(frozen)
{
}

FIXTURE_TEARDOWN(frozen)
{
}

/*
 * The same through the controller's removal (REMOVED ends the intent),
 * the honest way in one VM: the file system lives on the controller that
 * goes, and nvme-pci removes its namespaces (the XFS is shut down) before
 * nvme-peer hears of it.  The removal returns while the XFS is frozen,
 * with the intent down and the lease back; then the dead XFS is thawed
 * and unmounted, the controller found again and a new XFS made.
 * Before: the removal waited in the intent's release for the thaw, with
 * nvme-pci's shutdown_lock held; the XFS shut down, forever.
 */
TEST_F_TIMEOUT(frozen, file_system_blocks_no_removal, 120)
{
	const char *ctrl = np_ctrl();
	char path[256], buf[64];
	struct stat st;
	int file, i;

	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_rw_intent("gone", "frozen-removed", 76, &st);
	ASSERT_LE(0, file);
	EXPECT_EQ(1, np_leased(&st));
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove",
		 np_nvme_pci(0));

	ASSERT_EQ(0, np_freeze(FIFREEZE));
	EXPECT_EQ(0, np_bounded(30, np_write_one, path));
	EXPECT_EQ(0, np_leased(&st));
	ASSERT_EQ(0, np_cfs_read(ctrl, "gone", "state", buf, sizeof(buf)));
	EXPECT_STREQ("down", buf);
	ASSERT_EQ(0, np_cfs_read(ctrl, "gone", "reason", buf, sizeof(buf)));
	EXPECT_STREQ("removed", buf);
	np_cfs_clear(ctrl);
	/* the time update waits for it (and fails: the XFS is shut down) */
	EXPECT_EQ(0, np_freeze(FITHAW));
	close(file);
	/* the deferred closes: then the old controller's name is free */
	for (i = 0; i < 100 && umount(MNT); i++)
		usleep(100000);
	EXPECT_GT(100, i);
	ASSERT_EQ(0, np_write("/sys/bus/pci/rescan", "1"));
	EXPECT_EQ(0, np_wait_for(np_ctrl_path("/sys/class/nvme/%s/peer/live"),
				 "1", 30));
	/* a new XFS at MNT, as the next tests and run-guest.sh expect */
	for (i = 0; i < 100 && np_fs(); i++)
		usleep(100000);
	EXPECT_EQ(NULL, np_fs());
}

TEST_HARNESS_MAIN
