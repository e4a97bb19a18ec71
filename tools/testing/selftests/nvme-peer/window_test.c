// SPDX-License-Identifier: GPL-2.0
/*
 * Read-only windows: a namespace of the first controller is mirrored by
 * that controller's PMR (QEMU pmrdev on a memory-backend-file of the
 * namespace's own image): namespace 2 (XFS, 512 MiB) in the two-ctrl
 * topology, namespace 1 (256 MiB) in iommu and iommu-pt.  The
 * administrator declares it (configfs pmr_nsid); a window's loads equal
 * the block device's bytes at every extent edge, outside the extents a
 * load gets SIGBUS, writes are refused, a write through the block device
 * shows once it completed, a file's window shows the file and a truncate
 * revokes it before it returns; a reset and the administrator revoke; the
 * edu device reads its window by DMA, and behind an IOMMU nothing else.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "np_file.h"
#include "np_window.h"
#include "kselftest_harness.h"

#define WIN_NS		(strcmp(np_topology(), "two-ctrl") ? 1 : FS_NS)
#define WIN_CTRL	np_ctrl()

/* two-ctrl's second controller (no PMR), by name: the order may vary */
static const char *np_other_ctrl(void)
{
	const char *pci = np_nvme_pci(1);

	return pci ? np_ctrl_of(pci) : "";
}

/* The namespace's bytes, from its block device's size */
static unsigned long long np_win_ns_bytes(void)
{
	char path[128];

	snprintf(path, sizeof(path), "/sys/block/%s/size",
		 np_ns_dev(WIN_CTRL, WIN_NS) + 5);
	return np_read_num(path) * 512;
}

static const char *np_pmr_path(const char *ctrl)
{
	static char path[128];

	snprintf(path, sizeof(path), "/sys/kernel/config/nvme-peer/%s/pmr_nsid",
		 ctrl);
	return path;
}

/* Declare @ctrl's PMR as showing @nsid: 0 or -errno. */
static int np_pmr_declare(const char *ctrl, unsigned int nsid)
{
	char dir[96];

	snprintf(dir, sizeof(dir), "/sys/kernel/config/nvme-peer/%s", ctrl);
	mkdir(dir, 0755);
	return np_write(np_pmr_path(ctrl), "%u", nsid);
}

/* Why windows cannot be tested here, or NULL. */
static const char *np_no_window(void)
{
	if (np_missing())
		return np_missing();
	if (strcmp(np_topology(), "two-ctrl") && strcmp(np_topology(), "iommu") &&
	    strcmp(np_topology(), "iommu-pt"))
		return "no PMR in this topology (two-ctrl, iommu, iommu-pt)";
	if (np_pmr_declare(WIN_CTRL, WIN_NS))
		return "no PMR showing the namespace";
	return NULL;
}

/* WINDOW of the provider's namespace on a new open file: its fd or -errno. */
static int np_window(struct nvme_peer_window_req *r, unsigned int flags,
		     const struct nvme_peer_extent *ext, unsigned int n,
		     int file_fd, __u64 off, __u64 len)
{
	return np_window_on(WIN_CTRL, WIN_NS, r, flags, ext, n, file_fd, off,
			    len);
}

static int np_window_ns(struct nvme_peer_window_req *r,
			const struct nvme_peer_extent *ext, unsigned int n)
{
	return np_window(r, 0, ext, n, 0, 0, 0);
}

/* The block device's bytes at @off (O_DIRECT, 4 KiB aligned read). */
static int np_dev_bytes(__u64 off, void *buf, size_t len)
{
	size_t a = off & 4095, rlen = (a + len + 4095) & ~4095UL;
	char *tmp = np_aligned(rlen);
	int ret;

	if (!tmp)
		return -ENOMEM;
	ret = np_blk_io(np_ns_dev(WIN_CTRL, WIN_NS), 0, off - a, tmp, rlen);
	if (!ret)
		memcpy(buf, tmp + a, len);
	free(tmp);
	return ret;
}

/* The declaration: refused for what cannot be shown, and withdrawn. */
TEST(declaration)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	char buf[32];

	if (why)
		SKIP(return, "%s", why);
	ASSERT_EQ(0, np_read(np_pmr_path(WIN_CTRL), buf, sizeof(buf)));
	EXPECT_EQ(WIN_NS, atoi(buf));
	/* no such namespace; a controller without a PMR */
	EXPECT_EQ(-ENOENT, np_pmr_declare(WIN_CTRL, 9));
	if (!strcmp(np_topology(), "two-ctrl")) {
		char dir[96];

		ASSERT_NE(0, np_other_ctrl()[0]);
		EXPECT_EQ(-EOPNOTSUPP, np_pmr_declare(np_other_ctrl(), 1));
		snprintf(dir, sizeof(dir), "/sys/kernel/config/nvme-peer/%s",
			 np_other_ctrl());
		rmdir(dir);
	}
	EXPECT_EQ(-EINVAL, np_write(np_pmr_path(WIN_CTRL), "two"));
	/* a refused declaration changed nothing */
	ASSERT_EQ(0, np_read(np_pmr_path(WIN_CTRL), buf, sizeof(buf)));
	EXPECT_EQ(WIN_NS, atoi(buf));
	/* withdrawn: no window; declared again */
	ASSERT_EQ(0, np_pmr_declare(WIN_CTRL, 0));
	EXPECT_EQ(-ENXIO, np_window_ns(&r, NULL, 0));
	ASSERT_EQ(0, np_pmr_declare(WIN_CTRL, WIN_NS));
}

/* The whole namespace: loads equal the block device at the edges. */
TEST(whole_namespace_matches)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	unsigned char want[4096];
	__u64 offs[] = { 0, 4095, 4096, 1 << 20, 0 };
	unsigned char *v;
	int fd, i;

	if (why)
		SKIP(return, "%s", why);
	fd = np_window_ns(&r, NULL, 0);
	ASSERT_LE(0, fd);
	EXPECT_EQ(9, r.lba_shift);
	EXPECT_EQ(np_win_ns_bytes(), r.view_size);
	EXPECT_EQ(NVME_PEER_GUARANTEE_CPU, r.guarantee);
	v = mmap(NULL, r.view_size, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	offs[4] = r.view_size - 1;
	for (i = 0; i < 5; i++) {
		unsigned long long off = offs[i];
		unsigned char got;

		ASSERT_EQ(0, np_dev_bytes(off, want, 1));
		ASSERT_EQ(0, np_load(v + off, &got)) TH_LOG("off %llu", off);
		EXPECT_EQ(want[0], got) TH_LOG("off %llu", off);
	}
	ASSERT_EQ(0, np_dev_bytes(0, want, sizeof(want)));
	EXPECT_EQ(0, memcmp(want, v, sizeof(want)));
	munmap(v, r.view_size);
	close(fd);
}

/* Extents: their pages and nothing else; sub-page edges shrink inward. */
TEST(extents_and_nothing_else)
{
	const char *why = np_no_window();
	/* LBAs (512 B): a page-aligned run and one with ragged edges */
	struct nvme_peer_extent ext[] = {
		{ .slba = 2048, .nlb = 16 },		/* 1 MiB .. +8 KiB */
		{ .slba = 4097, .nlb = 30 },		/* 2 MiB+512 .. +15 KiB */
	};
	struct nvme_peer_window_req r;
	unsigned char want[8192], got;
	unsigned char *v;
	int fd;

	if (why)
		SKIP(return, "%s", why);
	fd = np_window_ns(&r, ext, 2);
	ASSERT_LE(0, fd);
	v = mmap(NULL, r.view_size, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	/* the first and last byte of the aligned run */
	ASSERT_EQ(0, np_dev_bytes(1 << 20, want, 8192));
	EXPECT_EQ(0, memcmp(want, v + (1 << 20), 8192));
	ASSERT_EQ(0, np_load(v + (1 << 20) + 8191, &got));
	EXPECT_EQ(want[8191], got);
	/* one past it, and the page before it */
	EXPECT_EQ(-1, np_load(v + (1 << 20) + 8192, &got));
	EXPECT_EQ(-1, np_load(v + (1 << 20) - 1, &got));
	/* the ragged run: 2 MiB + 512 .. 2 MiB + 15872: only page 2 MiB + 4 KiB
	 * .. + 12 KiB is whole; its neighbours hold bytes outside the extent
	 */
	EXPECT_EQ(-1, np_load(v + (2 << 20) + 512, &got));
	ASSERT_EQ(0, np_dev_bytes((2 << 20) + 4096, want, 8192));
	EXPECT_EQ(0, memcmp(want, v + (2 << 20) + 4096, 8192));
	EXPECT_EQ(-1, np_load(v + (2 << 20) + 12288, &got));
	/* another range entirely */
	EXPECT_EQ(-1, np_load(v, &got));
	EXPECT_EQ(-1, np_load(v + (100 << 20), &got));
	munmap(v, r.view_size);
	close(fd);
}

/* Read only: no writable mapping, no mprotect to one, no private one. */
TEST(read_only)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r, again;
	void *v;
	int fd;

	if (why)
		SKIP(return, "%s", why);
	fd = np_window_ns(&r, NULL, 0);
	ASSERT_LE(0, fd);
	v = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, r.mmap_off);
	EXPECT_EQ(MAP_FAILED, v);
	EXPECT_EQ(EACCES, errno);
	v = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE, fd, r.mmap_off);
	EXPECT_EQ(MAP_FAILED, v);
	EXPECT_EQ(EINVAL, errno);
	/* past the view */
	v = mmap(NULL, 8192, PROT_READ, MAP_SHARED, fd,
		 r.mmap_off + r.view_size - 4096);
	EXPECT_EQ(MAP_FAILED, v);
	EXPECT_EQ(EINVAL, errno);
	v = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	EXPECT_EQ(-1, mprotect(v, 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(v, 4096);
	/* one window per open file */
	again = r;
	again.lba_shift = 0;
	again.mmap_off = 0;
	again.view_size = 0;
	again.guarantee = 0;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_WINDOW, &again));
	EXPECT_EQ(EBUSY, errno);
	close(fd);
}

/* Bad requests: each gets its errno, and nothing stays mapped. */
TEST(refusals)
{
	const char *why = np_no_window();
	struct nvme_peer_extent past = { .nlb = 8 };
	struct nvme_peer_extent small = { .slba = 1, .nlb = 2 };
	struct nvme_peer_window_req r;
	int fd;

	if (why)
		SKIP(return, "%s", why);
	past.slba = np_win_ns_bytes() / 512;
	EXPECT_EQ(-EINVAL, np_window_ns(&r, &past, 1));
	/* no whole page inside */
	EXPECT_EQ(-EINVAL, np_window_ns(&r, &small, 1));
	/* another namespace than the provider's */
	fd = np_open();
	ASSERT_LE(0, fd);
	memset(&r, 0, sizeof(r));
	r.size = sizeof(r);
	r.ctrl = atoi(WIN_CTRL + 4);
	r.nsid = 3 - WIN_NS;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_WINDOW, &r));
	EXPECT_EQ(ENXIO, errno);
	r.nsid = WIN_NS;
	r.rsvd = 1;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_WINDOW, &r));
	EXPECT_EQ(EINVAL, errno);
	r.rsvd = 0;
	r.size = NVME_PEER_WINDOW_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_WINDOW, &r));
	EXPECT_EQ(EINVAL, errno);
	/* a controller without a provider, one that does not exist */
	r.size = sizeof(r);
	r.nsid = 1;
	if (!strcmp(np_topology(), "two-ctrl")) {
		r.ctrl = atoi(np_other_ctrl() + 4);
		EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_WINDOW, &r));
		EXPECT_EQ(ENXIO, errno);
	}
	r.ctrl = 99;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_WINDOW, &r));
	EXPECT_EQ(ENODEV, errno);
	/* the file was not spent by the refusals */
	r.ctrl = atoi(WIN_CTRL + 4);
	r.nsid = WIN_NS;
	EXPECT_EQ(0, ioctl(fd, NVME_PEER_IOC_WINDOW, &r));
	close(fd);
}

/* A namespace window needs CAP_SYS_ADMIN; another user's file maps nothing. */
TEST(privilege)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	int fd, status;
	pid_t pid;

	if (why)
		SKIP(return, "%s", why);
	fd = np_window_ns(&r, NULL, 0);
	ASSERT_LE(0, fd);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct nvme_peer_window_req mine;
		int other;
		void *v;

		if (setgid(1000) || setuid(1000))
			_exit(10);
		if (np_window_ns(&mine, NULL, 0) != -EPERM)
			_exit(11);
		/* its own open file does not reach the first one's window */
		other = np_open();
		if (other < 0)
			_exit(12);
		v = mmap(NULL, 4096, PROT_READ, MAP_SHARED, other, r.mmap_off);
		if (v != MAP_FAILED || errno != EINVAL)
			_exit(13);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	close(fd);
}

/* A write through the block device shows once it completed. */
TEST(coherent_with_completed_writes)
{
	const char *why = np_no_window();
	struct nvme_peer_extent ext = { .slba = 200000, .nlb = 64 };
	struct nvme_peer_window_req r;
	__u64 off = 200000ULL * 512;
	unsigned char *buf, *v;
	int fd, dev, i;

	if (why)
		SKIP(return, "%s", why);
	fd = np_window_ns(&r, &ext, 1);
	ASSERT_LE(0, fd);
	v = mmap(NULL, r.view_size, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	buf = np_aligned(32768);
	ASSERT_NE(NULL, buf);
	for (i = 0; i < 3; i++) {
		np_fill(buf, 32768, 77 + i);
		/* O_DIRECT: visible when the write returned */
		ASSERT_EQ(0, np_blk_io(np_ns_dev(WIN_CTRL, WIN_NS), 1, off,
				       buf, 32768));
		EXPECT_EQ(0, memcmp(buf, v + off, 32768)) TH_LOG("round %d", i);
	}
	/* buffered: after fsync */
	np_fill(buf, 32768, 99);
	dev = open(np_ns_dev(WIN_CTRL, WIN_NS), O_RDWR);
	ASSERT_LE(0, dev);
	ASSERT_EQ(32768, pwrite(dev, buf, 32768, off));
	ASSERT_EQ(0, fsync(dev));
	EXPECT_EQ(0, memcmp(buf, v + off, 32768));
	close(dev);
	free(buf);
	munmap(v, r.view_size);
	close(fd);
}

/* Revoked: every load faults, poll says so, QUERY tells why. */
static void np_expect_revoked(struct __test_metadata *_metadata, int fd,
			      unsigned char *v, __u64 off, __u32 reason)
{
	struct nvme_peer_info info;
	struct pollfd pfd = { .fd = fd, .events = POLLPRI };
	unsigned char got;

	/* a reset's revocation comes from its work: wait for it first */
	EXPECT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_EQ(-1, np_load(v + off, &got));
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_TRUE(info.flags & NVME_PEER_INFO_WINDOW);
	EXPECT_EQ(NVME_PEER_STATE_REVOKED, info.state);
	EXPECT_EQ(reason, info.reason);
}

TEST(reset_revokes)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	struct nvme_peer_info info;
	unsigned char *v, got, want;
	int fd, fd2;

	if (why)
		SKIP(return, "%s", why);
	fd = np_window_ns(&r, NULL, 0);
	ASSERT_LE(0, fd);
	v = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(0, np_load(v + 4096, &got));
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_STATE_ACTIVE, info.state);
	EXPECT_EQ(WIN_NS, info.nsid);
	EXPECT_EQ(r.view_size, info.data_size);
	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"),
			      "1"));
	np_expect_revoked(_metadata, fd, v, 4096, NVME_PEER_REASON_RESET);
	/* the declaration outlived the reset: a new window reads again */
	fd2 = np_window_ns(&r, NULL, 0);
	ASSERT_LE(0, fd2);
	munmap(v, 1 << 20);
	v = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd2, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(0, np_dev_bytes(4096, &want, 1));
	ASSERT_EQ(0, np_load(v + 4096, &got));
	EXPECT_EQ(want, got);
	munmap(v, 1 << 20);
	close(fd2);
	close(fd);
}

/*
 * Write @val to the controller's register at @off, through BAR0 as a
 * misbehaving or a spec-strict device would change it: 0 or -errno.
 */
static int np_ctrl_reg_poke(const char *ctrl, unsigned int off, __u32 val)
{
	char path[160], target[256];
	__u32 *bar;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/device", ctrl);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return -errno;
	target[n] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/resource0",
		 strrchr(target, '/') + 1);
	fd = open(path, O_RDWR | O_SYNC);
	if (fd < 0)
		return -errno;
	bar = mmap(NULL, 16384, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (bar == MAP_FAILED)
		return -errno;
	/*
	 * One 32-bit store the compiler keeps: a release store is a plain
	 * mov on x86 (a seq_cst one is an xchg, a locked read-modify-write
	 * of the register, which QEMU 7.2's TCG aborts on: rcu.h:102)
	 */
	__atomic_store_n(&bar[off / 4], val, __ATOMIC_RELEASE);
	munmap(bar, 16384);
	return 0;
}

#define NP_REG_PMRCTL	0xe04

/*
 * The controller is live after a reset before nvme-peer's work has
 * enabled the PMR again: a controller that clears PMRCTL.EN on reset (the
 * test clears it, QEMU 7.2 keeps it) shows zeros meanwhile.  A window
 * asked for then (pmr_enable_delay holds the work 5 s) is refused
 * -EAGAIN, never handed out over the disabled PMR; once given, it shows
 * the namespace.
 */
TEST(pmr_enable_after_reset)
{
	const char *why = np_no_window();
	__u64 off = 200000ULL * 512;	/* coherent_with_completed_writes' */
	struct pollfd pfd = { .events = POLLPRI };
	struct nvme_peer_window_req r;
	unsigned char *buf, *v, got;
	int fd, i, early = 0;

	if (why)
		SKIP(return, "%s", why);
	if (np_inject("pmr_enable_delay", 0, 0))
		SKIP(return, "no fault injection (NP_TESTS=y)");
	buf = np_aligned(4096);
	ASSERT_NE(NULL, buf);
	np_fill(buf, 4096, 4242);
	ASSERT_EQ(0, np_blk_io(np_ns_dev(WIN_CTRL, WIN_NS), 1, off, buf, 4096));
	/* a window held across the reset tells when it went down */
	pfd.fd = np_window_ns(&r, NULL, 0);
	ASSERT_LE(0, pfd.fd);
	ASSERT_EQ(0, np_inject("pmr_enable_delay", 1, 5000));
	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"),
			      "1"));
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	close(pfd.fd);
	ASSERT_EQ(0, np_wait_for(np_ctrl_path("/sys/class/nvme/%s/state"),
				 "live", 20));
	ASSERT_EQ(0, np_ctrl_reg_poke(WIN_CTRL, NP_REG_PMRCTL, 0));
	/* live, the PMR not enabled again: refused while that lasts */
	for (i = 0; i < 300; i++) {
		fd = np_open();
		ASSERT_LE(0, fd);
		memset(&r, 0, sizeof(r));
		r.size = sizeof(r);
		r.ctrl = strtoul(WIN_CTRL + 4, NULL, 10);
		r.nsid = WIN_NS;
		if (!ioctl(fd, NVME_PEER_IOC_WINDOW, &r))
			break;
		ASSERT_EQ(EAGAIN, errno);
		early++;
		close(fd);
		fd = -1;
		usleep(50000);
	}
	np_inject("pmr_enable_delay", 0, 0);
	ASSERT_LE(0, fd);
	TH_LOG("refused %d times (-EAGAIN) until the PMR was back", early);
	v = mmap(NULL, r.view_size, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(0, np_load(v + off, &got));
	EXPECT_EQ(0, memcmp(buf, v + off, 4096));
	munmap(v, r.view_size);
	close(fd);
	free(buf);
}

TEST(withdrawal_revokes)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	unsigned char *v;
	int fd;

	if (why)
		SKIP(return, "%s", why);
	fd = np_window_ns(&r, NULL, 0);
	ASSERT_LE(0, fd);
	v = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(0, np_pmr_declare(WIN_CTRL, 0));
	np_expect_revoked(_metadata, fd, v, 0, NVME_PEER_REASON_ADMIN);
	ASSERT_EQ(0, np_pmr_declare(WIN_CTRL, WIN_NS));
	munmap(v, 4096);
	close(fd);
}

/*
 * A file's window, by its owner without privilege: the file's bytes at
 * file offsets, nothing past its written blocks; a truncate revokes it
 * and the old mapping faults before truncate returns.
 */
/*
 * In a child: window @fd, mapped at @v, shows bytes [1 MiB, 3 MiB) of the
 * file at @path (a lease held); a truncate to 2 MiB revokes it (layout)
 * before it returns.  0, or the step that failed (1-6).
 */
static int np_reads_then_truncates(const char *path, int fd,
				   const unsigned char *v)
{
	unsigned char *want = malloc(2 * MIB), got;
	struct nvme_peer_info info;
	int file = open(path, O_RDWR);

	if (!want || file < 0 || pread(file, want, 2 * MIB, 1 * MIB) != 2 * MIB)
		return 1;
	if (np_load(v, &got) || memcmp(want, v, 2 * MIB))
		return 2;
	if (np_query(fd, &info) || !(info.flags & NVME_PEER_INFO_FILE) ||
	    info.lease != NVME_PEER_LEASE_HELD)
		return 3;
	/* the layout changes: revoked before truncate returns */
	if (ftruncate(file, 2 * MIB))
		return 4;
	if (np_load(v, &got) != -1)
		return 5;
	if (np_query(fd, &info) || info.reason != NVME_PEER_REASON_LAYOUT)
		return 6;
	return 0;
}

TEST(file_window_and_truncate)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	int file, fd, status;
	pid_t pid;

	if (why)
		SKIP(return, "%s", why);
	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("window", 4 * MIB, 31);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, fchown(file, 1000, 1000));
	close(file);
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		unsigned char *v;
		int ret;

		if (setgid(1000) || setuid(1000))
			_exit(10);
		file = open(MNT "/window", O_RDWR);
		if (file < 0)
			_exit(11);
		fd = np_window(&r, NVME_PEER_WINDOW_FILE, NULL, 0, file,
			       1 * MIB, 2 * MIB);
		if (fd < 0)
			_exit(12);
		if (r.view_size != 2 * MIB)
			_exit(13);
		v = mmap(NULL, r.view_size, PROT_READ, MAP_SHARED, fd,
			 r.mmap_off);
		if (v == MAP_FAILED)
			_exit(14);
		ret = np_reads_then_truncates(MNT "/window", fd, v);
		_exit(ret ? 20 + ret : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	unlink(MNT "/window");
}

/* ---- windows an administrator makes (configfs windows/<name>/) ------- */

#define WIN_INTENT(n)	NP_CFS_WIN "/" n

/* ATTACH of window intent @name of the provider's controller: 0 or -errno */
static int np_attach_window(int fd, const char *name)
{
	struct nvme_peer_attach a = {
		.size = sizeof(a),
		.flags = NVME_PEER_ATTACH_BY_NAME | NVME_PEER_ATTACH_WINDOW,
		.ctrl = strtoul(WIN_CTRL + 4, NULL, 10),
	};

	snprintf(a.name, sizeof(a.name), "%s", name);
	return ioctl(fd, NVME_PEER_IOC_ATTACH, &a) ? -errno : 0;
}

/* A window intent's read-only attribute */
static const char *np_win_attr(const char *name, const char *attr)
{
	static char buf[64];
	char dir[64];

	snprintf(dir, sizeof(dir), NP_CFS_WIN "/%s", name);
	if (np_read(np_cfs_path(WIN_CTRL, dir, attr), buf, sizeof(buf)))
		return "?";
	return buf;
}

/* Wait up to 30 s for intent @name's state to read @state */
static int np_win_state_is(const char *name, const char *state)
{
	int i;

	for (i = 0; i < 300 && strcmp(np_win_attr(name, "state"), state); i++)
		usleep(100000);
	return strcmp(np_win_attr(name, "state"), state) ? -1 : 0;
}

/*
 * A window intent on extents, for uid 1000: that user attaches by name
 * (no capability: the administrator granted it), reads the extents'
 * bytes and nothing else; one process at a time; nobody else, root
 * included, attaches; a queue of that name is another thing.
 */
TEST(intent_attach_by_name)
{
	const char *why = np_no_window();
	__u64 off = 200000ULL * 512;	/* coherent_with_completed_writes' */
	struct nvme_peer_attach a = { .size = sizeof(a) };
	unsigned char *want;
	int fd, status;
	pid_t pid;

	if (why)
		SKIP(return, "%s", why);
	want = np_aligned(32768);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, np_dev_bytes(off, want, 32768));
	ASSERT_EQ(0, np_cfs_make(WIN_CTRL, WIN_INTENT("w1"),
				 "nsid=%u extents=200000+64 uid=1000", WIN_NS));
	EXPECT_STREQ("active", np_win_attr("w1", "state"));
	EXPECT_STREQ("1", np_win_attr("w1", "generation"));
	/* one value at a time, while disabled; a queue's keys are not there */
	EXPECT_EQ(-EBUSY, np_write(np_cfs_path(WIN_CTRL, WIN_INTENT("w1"),
					       "nsid"), "1"));
	EXPECT_NE(0, access(np_cfs_path(WIN_CTRL, WIN_INTENT("w1"), "depth"),
			    F_OK));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct nvme_peer_info info;
		unsigned char *v, got;
		int second;

		if (setgid(1000) || setuid(1000))
			_exit(10);
		fd = np_open();
		if (fd < 0 || np_attach_window(fd, "w1"))
			_exit(11);
		if (np_query(fd, &info) || !(info.flags & NVME_PEER_INFO_WINDOW) ||
		    info.state != NVME_PEER_STATE_ACTIVE || info.nsid != WIN_NS ||
		    info.data_size != np_win_ns_bytes())
			_exit(12);
		v = mmap(NULL, info.data_size, PROT_READ, MAP_SHARED, fd,
			 info.data_off);
		if (v == MAP_FAILED)
			_exit(13);
		if (np_load(v + off, &got) || memcmp(want, v + off, 32768))
			_exit(14);
		/* outside the extents */
		if (np_load(v + off - 1, &got) != -1 ||
		    np_load(v + off + 32768, &got) != -1)
			_exit(15);
		if (mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
			 info.data_off) != MAP_FAILED || errno != EACCES)
			_exit(16);
		/* one process at a time; the file holds one thing */
		second = np_open();
		if (second < 0 || np_attach_window(second, "w1") != -EBUSY)
			_exit(17);
		if (np_attach_window(fd, "w1") != -EBUSY)
			_exit(18);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));

	fd = np_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EACCES, np_attach_window(fd, "w1"));	/* root is not 1000 */
	EXPECT_EQ(-ENOENT, np_attach_window(fd, "none-such"));
	/* a queue named w1 is not the window w1 */
	a.flags = NVME_PEER_ATTACH_BY_NAME;
	a.ctrl = strtoul(WIN_CTRL + 4, NULL, 10);
	snprintf(a.name, sizeof(a.name), "w1");
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(ENOENT, errno);
	/* a window by name only */
	a.flags = NVME_PEER_ATTACH_WINDOW;
	memset(a.name, 0, sizeof(a.name));
	a.qid = 1;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	close(fd);
	EXPECT_EQ(0, np_cfs_remove(WIN_CTRL, WIN_INTENT("w1")));
	free(want);
}

/*
 * A reset revokes the attached process's window (reset) and the intent
 * makes it again once the controller and its PMR are back (generation
 * 2); the process attaches again by name.  Disabling revokes (admin);
 * an rmdir with a process attached revokes it too.
 */
TEST(intent_comes_back_after_reset)
{
	const char *why = np_no_window();
	__u64 off = 200000ULL * 512;
	struct nvme_peer_info info;
	unsigned char *v, *want, got;
	int fd;

	if (why)
		SKIP(return, "%s", why);
	want = np_aligned(4096);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(0, np_cfs_make(WIN_CTRL, WIN_INTENT("w2"),
				 "nsid=%u extents=200000+8 uid=0", WIN_NS));
	fd = np_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_attach_window(fd, "w2"));
	ASSERT_EQ(0, np_query(fd, &info));
	v = mmap(NULL, info.data_size, PROT_READ, MAP_SHARED, fd, info.data_off);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(0, np_load(v + off, &got));
	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"),
			      "1"));
	np_expect_revoked(_metadata, fd, v, off, NVME_PEER_REASON_RESET);
	munmap(v, info.data_size);
	close(fd);
	ASSERT_EQ(0, np_win_state_is("w2", "active"));
	EXPECT_STREQ("2", np_win_attr("w2", "generation"));

	fd = np_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_attach_window(fd, "w2"));
	ASSERT_EQ(0, np_query(fd, &info));
	v = mmap(NULL, info.data_size, PROT_READ, MAP_SHARED, fd, info.data_off);
	ASSERT_NE(MAP_FAILED, v);
	np_fill(want, 4096, 515);
	ASSERT_EQ(0, np_blk_io(np_ns_dev(WIN_CTRL, WIN_NS), 1, off, want, 4096));
	ASSERT_EQ(0, np_load(v + off, &got));
	EXPECT_EQ(0, memcmp(want, v + off, 4096));
	/* disabled: the attached process is told admin */
	ASSERT_EQ(0, np_write(np_cfs_path(WIN_CTRL, WIN_INTENT("w2"), "enable"),
			      "0"));
	np_expect_revoked(_metadata, fd, v, off, NVME_PEER_REASON_ADMIN);
	EXPECT_STREQ("disabled", np_win_attr("w2", "state"));
	munmap(v, info.data_size);
	close(fd);

	/* enabled again (generation 3), attached, then removed */
	ASSERT_EQ(0, np_write(np_cfs_path(WIN_CTRL, WIN_INTENT("w2"), "enable"),
			      "1"));
	EXPECT_STREQ("3", np_win_attr("w2", "generation"));
	fd = np_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_attach_window(fd, "w2"));
	ASSERT_EQ(0, np_query(fd, &info));
	v = mmap(NULL, info.data_size, PROT_READ, MAP_SHARED, fd, info.data_off);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(0, np_load(v + off, &got));
	EXPECT_EQ(0, np_cfs_remove(WIN_CTRL, WIN_INTENT("w2")));
	np_expect_revoked(_metadata, fd, v, off, NVME_PEER_REASON_ADMIN);
	munmap(v, info.data_size);
	close(fd);
	free(want);
}

/*
 * What a window's intent refuses, with nothing left behind: no provider
 * (ENXIO), extents with a file, a file's range without one, no
 * namespace (EINVAL), a namespace the provider does not show (ENXIO).
 */
TEST(intent_refusals)
{
	const char *why = np_no_window();
	char path[160];

	if (why)
		SKIP(return, "%s", why);
	EXPECT_EQ(-EINVAL, np_cfs_make(WIN_CTRL, WIN_INTENT("bad"), "uid=0"));
	EXPECT_EQ(-EINVAL, np_cfs_make(WIN_CTRL, WIN_INTENT("bad"),
				       "nsid=%u file_off=4096", WIN_NS));
	EXPECT_EQ(-EINVAL, np_cfs_make(WIN_CTRL, WIN_INTENT("bad"),
				       "nsid=%u extents=0+8 file=/mnt/np/x",
				       WIN_NS));
	EXPECT_EQ(-ENXIO, np_cfs_make(WIN_CTRL, WIN_INTENT("bad"), "nsid=%u",
				      WIN_NS + 1));
	/* past the namespace */
	EXPECT_EQ(-EINVAL, np_cfs_make(WIN_CTRL, WIN_INTENT("bad"),
				       "nsid=%u extents=%llu+8", WIN_NS,
				       np_win_ns_bytes() / 512));
	/* the provider withdrawn: ENXIO; the error and state say so */
	ASSERT_EQ(0, np_pmr_declare(WIN_CTRL, 0));
	ASSERT_EQ(0, mkdir(np_cfs_path(WIN_CTRL, WIN_INTENT("bad"), NULL), 0755));
	ASSERT_EQ(0, np_write(np_cfs_path(WIN_CTRL, WIN_INTENT("bad"), "nsid"),
			      "%u", WIN_NS));
	EXPECT_EQ(-ENXIO, np_write(np_cfs_path(WIN_CTRL, WIN_INTENT("bad"),
					       "enable"), "1"));
	EXPECT_STREQ("disabled", np_win_attr("bad", "state"));
	ASSERT_EQ(0, np_pmr_declare(WIN_CTRL, WIN_NS));
	EXPECT_EQ(0, np_write(np_cfs_path(WIN_CTRL, WIN_INTENT("bad"), "enable"),
			      "1"));
	EXPECT_STREQ("active", np_win_attr("bad", "state"));
	/* a queue intent cannot be named windows: the directory is there */
	snprintf(path, sizeof(path), "%s", np_cfs_path(WIN_CTRL, NP_CFS_WIN, NULL));
	EXPECT_EQ(-1, mkdir(path, 0755));
	EXPECT_EQ(EEXIST, errno);
	/* nor can the controller's directory go while a window's intent is */
	EXPECT_EQ(-1, rmdir(np_cfs_path(WIN_CTRL, NULL, NULL)));
	EXPECT_EQ(ENOTEMPTY, errno);
	EXPECT_EQ(0, np_cfs_remove(WIN_CTRL, WIN_INTENT("bad")));
}

/*
 * A file's window an administrator grants: the owner of the file
 * attaches by name and reads it; a truncate revokes it (layout) before
 * it returns, and the intent is down with that reason.
 */
TEST(intent_file_window_and_truncate)
{
	const char *why = np_no_window();
	int file, status;
	pid_t pid;

	if (why)
		SKIP(return, "%s", why);
	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("iwindow", 4 * MIB, 37);
	ASSERT_LE(0, file);
	ASSERT_EQ(0, fchown(file, 1000, 1000));
	close(file);
	ASSERT_EQ(0, np_cfs_make(WIN_CTRL, WIN_INTENT("fw"),
				 "nsid=%u file=" MNT "/iwindow file_off=%u file_len=%u gid=1000",
				 WIN_NS, 1 * MIB, 2 * MIB));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct nvme_peer_info info;
		unsigned char *v;
		int fd, ret;

		if (setgid(1000) || setuid(1000))
			_exit(10);
		fd = np_open();
		if (fd < 0 || np_attach_window(fd, "fw"))
			_exit(11);
		if (np_query(fd, &info) || info.data_size != 2 * MIB)
			_exit(12);
		v = mmap(NULL, info.data_size, PROT_READ, MAP_SHARED, fd,
			 info.data_off);
		if (v == MAP_FAILED)
			_exit(13);
		ret = np_reads_then_truncates(MNT "/iwindow", fd, v);
		_exit(ret ? 20 + ret : 0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	EXPECT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status));
	EXPECT_STREQ("down", np_win_attr("fw", "state"));
	EXPECT_STREQ("layout", np_win_attr("fw", "reason"));
	EXPECT_EQ(0, np_cfs_remove(WIN_CTRL, WIN_INTENT("fw")));
	unlink(MNT "/iwindow");
}

/*
 * An unlink with the file open does not revoke its window: the binding
 * holds the file, whose blocks stay its own, and the window shows them.
 */
TEST(file_window_survives_unlink)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	struct nvme_peer_info info;
	unsigned char *v, *want, got;
	int file, fd;

	if (why)
		SKIP(return, "%s", why);
	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("unlinked", 2 * MIB, 41);
	ASSERT_LE(0, file);
	want = malloc(MIB);
	ASSERT_NE(NULL, want);
	ASSERT_EQ(MIB, pread(file, want, MIB, 0));
	fd = np_window(&r, NVME_PEER_WINDOW_FILE, NULL, 0, file, 0, MIB);
	ASSERT_LE(0, fd);
	close(file);
	ASSERT_EQ(0, unlink(MNT "/unlinked"));
	v = mmap(NULL, r.view_size, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(0, np_load(v, &got));
	EXPECT_EQ(0, memcmp(want, v, MIB));
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_STATE_ACTIVE, info.state);
	EXPECT_EQ(NVME_PEER_LEASE_HELD, info.lease);
	munmap(v, r.view_size);
	close(fd);
	free(want);
}

/* A file range with a hole: the hole's pages fault. */
TEST(file_hole_faults)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	unsigned char *v, got, want[4096];
	int file, fd;

	if (why)
		SKIP(return, "%s", why);
	if (np_fs())
		SKIP(return, "%s", np_fs());
	file = np_mkfile("holey", 1 * MIB, 41);
	ASSERT_LE(0, file);
	/* 1 MiB .. 2 MiB: a hole; 2 MiB .. 2 MiB + 64 KiB: written */
	np_fill(want, sizeof(want), 5);
	ASSERT_EQ(0, ftruncate(file, 2 * MIB));
	ASSERT_EQ(4096, pwrite(file, want, 4096, 2 * MIB));
	ASSERT_EQ(0, ftruncate(file, 2 * MIB + 65536));
	ASSERT_EQ(0, fsync(file));
	fd = np_window(&r, NVME_PEER_WINDOW_FILE, NULL, 0, file, 0,
		       2 * MIB + 65536);
	ASSERT_LE(0, fd);
	v = mmap(NULL, r.view_size, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	ASSERT_EQ(0, np_load(v + MIB - 1, &got));
	EXPECT_EQ(-1, np_load(v + MIB, &got));
	EXPECT_EQ(-1, np_load(v + 2 * MIB - 1, &got));
	EXPECT_EQ(0, memcmp(want, v + 2 * MIB, 4096));
	munmap(v, r.view_size);
	close(fd);
	close(file);
	unlink(MNT "/holey");
}

/*
 * The administrator's command keeps the declaration: save writes
 * "CTRL pmr_nsid=NSID", restore declares it again (after the
 * reservations), and refuses to over-declare a controller.
 */
/*
 * The command saves the provider and a window intent it made, the
 * window after the provider; restore brings back both, in that order
 * (the window's enable needs the provider), and a process attaches.
 */
TEST(save_and_restore_keep_the_provider)
{
	const char *why = np_no_window();
	char line[128], out[4096], buf[32], *prov, *win;
	int fd;

	if (why)
		SKIP(return, "%s", why);
	if (access("/np/tests/nvme-peer", X_OK))
		SKIP(return, "no nvme-peer command beside the tests");
	ASSERT_EQ(0, np_sys("/np/tests/nvme-peer create %s/windows/sw %s%d %s",
			    WIN_CTRL, "nsid=", WIN_NS,
			    "extents=200000+8 uid=0 enable=1"));
	EXPECT_STREQ("active", np_win_attr("sw", "state"));
	ASSERT_EQ(0, np_sys("/np/tests/nvme-peer list --json > /tmp/np-win.list"));
	fd = open("/tmp/np-win.list", O_RDONLY);
	ASSERT_LE(0, fd);
	memset(out, 0, sizeof(out));
	ASSERT_LT(0, read(fd, out, sizeof(out) - 1));
	close(fd);
	EXPECT_NE(NULL, strstr(out, "\"kind\":\"window\"")) TH_LOG("%s", out);
	ASSERT_EQ(0, np_sys("/np/tests/nvme-peer save /tmp/np-win.save"));
	fd = open("/tmp/np-win.save", O_RDONLY);
	ASSERT_LE(0, fd);
	memset(out, 0, sizeof(out));
	ASSERT_LT(0, read(fd, out, sizeof(out) - 1));
	close(fd);
	snprintf(line, sizeof(line), "\n%s pmr_nsid=%d\n", WIN_CTRL, WIN_NS);
	prov = strstr(out, line);
	EXPECT_NE(NULL, prov) TH_LOG("%s", out);
	/* the keys in np_cfs_keys[]' order, defaults left out */
	snprintf(line, sizeof(line), "\n%s/windows/sw nsid=%d uid=0 extents=200000+8 enable=1\n",
		 WIN_CTRL, WIN_NS);
	win = strstr(out, line);
	EXPECT_NE(NULL, win) TH_LOG("%s", out);
	EXPECT_LT(prov, win);
	/* declared: restore refuses the file, changes nothing (exit 3) */
	EXPECT_NE(0, np_sys("/np/tests/nvme-peer restore /tmp/np-win.save 2>/dev/null"));
	ASSERT_EQ(0, np_read(np_pmr_path(WIN_CTRL), buf, sizeof(buf)));
	EXPECT_EQ(WIN_NS, atoi(buf));
	/* the window removed, the provider withdrawn, then both restored */
	ASSERT_EQ(0, np_sys("/np/tests/nvme-peer delete %s/windows/sw", WIN_CTRL));
	ASSERT_EQ(0, np_pmr_declare(WIN_CTRL, 0));
	EXPECT_EQ(0, np_sys("/np/tests/nvme-peer restore /tmp/np-win.save"));
	ASSERT_EQ(0, np_read(np_pmr_path(WIN_CTRL), buf, sizeof(buf)));
	EXPECT_EQ(WIN_NS, atoi(buf));
	EXPECT_STREQ("active", np_win_attr("sw", "state"));
	fd = np_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(0, np_attach_window(fd, "sw"));
	close(fd);
	EXPECT_EQ(0, np_cfs_remove(WIN_CTRL, WIN_INTENT("sw")));
	unlink("/tmp/np-win.save");
	unlink("/tmp/np-win.list");
}

/* np-client's window for the edu device: "segs=N view=V len=L bus=B ..." */
static int np_edu_window(__u64 slba, __u64 nlb, unsigned long long *bus,
			 unsigned long long *len, unsigned int *guarantee)
{
	char line[256];
	int segs;

	if (np_sys("modprobe np-client") || !np_edu_pci())
		return -ENODEV;
	if (np_write(NP_DBG_CLIENT "/window", "%s %u %llu %llu %s", WIN_CTRL,
		     WIN_NS, (unsigned long long)slba, (unsigned long long)nlb,
		     np_edu_pci()))
		return -EIO;
	if (np_read(NP_DBG_CLIENT "/window", line, sizeof(line)) ||
	    sscanf(line, "segs=%d view=%*x len=%llx bus=%llx guarantee=%u",
		   &segs, len, bus, guarantee) != 4)
		return -EIO;
	return segs;
}

/* The edu device reads @n bytes at bus address @bus into @out. */
static int np_edu_read(unsigned long long bus, void *out, int n)
{
	int fd, got;

	if (np_write(NP_DBG_CLIENT "/window_read", "%llx %d", bus, n))
		return -EIO;
	fd = open(NP_DBG_CLIENT "/window_read", O_RDONLY);
	if (fd < 0)
		return -errno;
	got = read(fd, out, n);
	close(fd);
	return got == n ? 0 : -EIO;
}

/*
 * A peer device reads its window by DMA: the bytes of the namespace at
 * the window's bus addresses.  What else it reaches is the guarantee's:
 * behind the IOMMU, the page after the window is not mapped for it (the
 * read faults: the device gets none of the namespace's bytes); without
 * one, it reads the namespace on.
 */
TEST(edu_reads_its_window)
{
	const char *why = np_no_window();
	unsigned long long bus, len;
	int segs, behind_iommu;
	unsigned int guarantee;
	unsigned char *pat, got[512];
	char line[256];

	if (why)
		SKIP(return, "%s", why);
	if (!np_edu_pci())
		SKIP(return, "no edu device");
	behind_iommu = !strcmp(np_topology(), "iommu");
	/* a pattern at 2 MiB .. 2 MiB + 40 KiB: the window is its first 32 */
	pat = np_aligned(40960);
	ASSERT_NE(NULL, pat);
	np_fill(pat, 40960, 123);
	ASSERT_EQ(0, np_blk_io(np_ns_dev(WIN_CTRL, WIN_NS), 1, 2 << 20, pat,
			       40960));
	segs = np_edu_window(4096, 64, &bus, &len, &guarantee);
	ASSERT_EQ(1, segs);
	EXPECT_EQ(32768ULL, len);
	EXPECT_EQ(behind_iommu ? NVME_PEER_GUARANTEE_IOMMU_SWITCH :
		  NVME_PEER_GUARANTEE_NONE, guarantee);
	ASSERT_EQ(0, np_edu_read(bus + 4096, got, sizeof(got)));
	EXPECT_EQ(0, memcmp(pat + 4096, got, sizeof(got)));
	/* the last bytes of the window */
	ASSERT_EQ(0, np_edu_read(bus + len - 512, got, sizeof(got)));
	EXPECT_EQ(0, memcmp(pat + len - 512, got, sizeof(got)));
	/* one past it: not mapped behind the IOMMU, the namespace without */
	ASSERT_EQ(0, np_edu_read(bus + len, got, sizeof(got)));
	EXPECT_EQ(!behind_iommu, !memcmp(pat + len, got, sizeof(got)));
	/* revoked by a reset: the callback ran once, the mapping went */
	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"),
			      "1"));
	ASSERT_EQ(0, np_wait_for(np_ctrl_path("/sys/class/nvme/%s/state"),
				 "live", 30));
	ASSERT_EQ(0, np_read(NP_DBG_CLIENT "/window", line, sizeof(line)));
	EXPECT_NE(NULL, strstr(line, "callbacks=1")) TH_LOG("%s", line);
	EXPECT_NE(NULL, strstr(line, "segs=-6")) TH_LOG("%s", line);
	if (behind_iommu) {
		ASSERT_EQ(0, np_edu_read(bus + 4096, got, sizeof(got)));
		EXPECT_NE(0, memcmp(pat + 4096, got, sizeof(got)));
	}
	EXPECT_EQ(0, np_write(NP_DBG_CLIENT "/window", "put"));
	free(pat);
}

/* WINDOW_MAP of @fd into @p (room @nr): the pieces, or -errno */
static int np_window_map(int fd, struct nvme_peer_window_piece *p, __u32 nr)
{
	struct nvme_peer_window_map m = {
		.size = sizeof(m), .nr = nr, .pieces = (uintptr_t)p,
	};

	return ioctl(fd, NVME_PEER_IOC_WINDOW_MAP, &m) ? -errno : (int)m.nr;
}

/*
 * A window intent naming the edu device as its peer: the attached
 * process learns the bus addresses (NVME_PEER_IOC_WINDOW_MAP) and the
 * device reads the namespace's bytes there; behind the IOMMU one page
 * past the piece gets none of them.  A process's own window has no peer
 * (bus address 0); a revoked window has no map.
 */
TEST(intent_peer_reads_at_the_mapped_addresses)
{
	const char *why = np_no_window();
	struct nvme_peer_window_piece p[4];
	struct nvme_peer_window_map bad = { .size = sizeof(bad), .flags = 1 };
	struct nvme_peer_window_req r;
	struct nvme_peer_extent ext = { .slba = 4096, .nlb = 64 };
	struct nvme_peer_info info;
	unsigned char *pat, got[512];
	int fd, behind_iommu;

	if (why)
		SKIP(return, "%s", why);
	if (!np_edu_pci() || np_sys("modprobe np-client"))
		SKIP(return, "no edu device");
	behind_iommu = !strcmp(np_topology(), "iommu");
	pat = np_aligned(40960);
	ASSERT_NE(NULL, pat);
	np_fill(pat, 40960, 321);
	ASSERT_EQ(0, np_blk_io(np_ns_dev(WIN_CTRL, WIN_NS), 1, 2 << 20, pat,
			       40960));
	ASSERT_EQ(0, np_cfs_make(WIN_CTRL, WIN_INTENT("pw"),
				 "nsid=%u extents=4096+64 peer=%s uid=0", WIN_NS,
				 np_edu_pci()));
	fd = np_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_attach_window(fd, "pw"));
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(behind_iommu ? NVME_PEER_GUARANTEE_IOMMU_SWITCH :
		  NVME_PEER_GUARANTEE_NONE, info.guarantee);
	EXPECT_EQ(1, np_window_map(fd, NULL, 0));	/* how many */
	ASSERT_EQ(1, np_window_map(fd, p, 4));
	EXPECT_EQ(2ULL << 20, p[0].view_off);
	EXPECT_EQ(32768ULL, p[0].len);
	ASSERT_NE(0ULL, p[0].bus_addr);
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_WINDOW_MAP, &bad));
	EXPECT_EQ(EINVAL, errno);
	ASSERT_EQ(0, np_edu_read(p[0].bus_addr + 4096, got, sizeof(got)));
	EXPECT_EQ(0, memcmp(pat + 4096, got, sizeof(got)));
	ASSERT_EQ(0, np_edu_read(p[0].bus_addr + p[0].len, got, sizeof(got)));
	EXPECT_EQ(!behind_iommu, !memcmp(pat + p[0].len, got, sizeof(got)));
	/* disabled: revoked, no map */
	ASSERT_EQ(0, np_write(np_cfs_path(WIN_CTRL, WIN_INTENT("pw"), "enable"),
			      "0"));
	EXPECT_EQ(-ENXIO, np_window_map(fd, p, 4));
	close(fd);
	EXPECT_EQ(0, np_cfs_remove(WIN_CTRL, WIN_INTENT("pw")));

	/* a process's window: the CPU's, no bus address */
	fd = np_window_ns(&r, &ext, 1);
	ASSERT_LE(0, fd);
	ASSERT_EQ(1, np_window_map(fd, p, 4));
	EXPECT_EQ(0ULL, p[0].bus_addr);
	EXPECT_EQ(32768ULL, p[0].len);
	close(fd);
	fd = np_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENXIO, np_window_map(fd, p, 4));	/* holds nothing */
	close(fd);
	free(pat);
}

/*
 * The controller's removal revokes (reason "removed") and takes the
 * declaration with it; after a rescan the administrator declares again.
 * Last: the controller (and two-ctrl's XFS, made again) come back as the
 * next tests expect them.
 */
/* Unmount every file system on @ctrl's namespaces (/proc/mounts). */
static void np_umount_ctrl(const char *ctrl)
{
	char dev[64], mnt[256], line[512], prefix[48];
	int i, again = 1;
	FILE *f;

	snprintf(prefix, sizeof(prefix), "/dev/%sn", ctrl);
	for (i = 0; i < 100 && again; i++) {
		again = 0;
		f = fopen("/proc/mounts", "r");
		while (f && fgets(line, sizeof(line), f)) {
			if (sscanf(line, "%63s %255s", dev, mnt) != 2 ||
			    strncmp(dev, prefix, strlen(prefix)))
				continue;
			if (umount(mnt))
				again = 1;	/* deferred closes: again */
		}
		if (f)
			fclose(f);
		if (again)
			usleep(100000);
	}
}

FIXTURE(removal) {
	int unused;
};

FIXTURE_SETUP(removal)
{
}

FIXTURE_TEARDOWN(removal)
{
}

TEST_F_TIMEOUT(removal, revokes, 120)
{
	const char *why = np_no_window();
	struct nvme_peer_window_req r;
	char path[256], buf[32];
	unsigned char *v;
	int fd, i;

	if (why)
		SKIP(return, "%s", why);
	fd = np_window_ns(&r, NULL, 0);
	ASSERT_LE(0, fd);
	v = mmap(NULL, 1 << 20, PROT_READ, MAP_SHARED, fd, r.mmap_off);
	ASSERT_NE(MAP_FAILED, v);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/remove",
		 np_nvme_pci(0));
	ASSERT_EQ(0, np_write(path, "1"));
	np_expect_revoked(_metadata, fd, v, 0, NVME_PEER_REASON_REMOVED);
	munmap(v, 1 << 20);
	close(fd);
	/* its file systems are dead: unmount them, its name is free then */
	np_umount_ctrl(WIN_CTRL);
	ASSERT_EQ(0, np_write("/sys/bus/pci/rescan", "1"));
	ASSERT_EQ(0, np_wait_for(np_ctrl_path("/sys/class/nvme/%s/peer/live"),
				 "1", 30));
	/* the declaration went with the controller */
	ASSERT_EQ(0, np_read(np_pmr_path(WIN_CTRL), buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
	/* live comes before the namespaces' scan: -ENOENT until then */
	for (i = 0; i < 100 && np_pmr_declare(WIN_CTRL, WIN_NS) == -ENOENT; i++)
		usleep(100000);
	ASSERT_EQ(0, np_pmr_declare(WIN_CTRL, WIN_NS));
	fd = np_window_ns(&r, NULL, 0);
	EXPECT_LE(0, fd);
	close(fd);
	if (!strcmp(np_topology(), "two-ctrl")) {
		for (i = 0; i < 100 && np_fs(); i++)
			usleep(100000);
		EXPECT_EQ(NULL, np_fs());
	}
}

TEST_HARNESS_MAIN
