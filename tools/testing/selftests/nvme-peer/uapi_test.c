// SPDX-License-Identifier: GPL-2.0
/*
 * /dev/nvme-peer: reserve, attach, query, release; struct-size rules;
 * permissions; mmap rules; real I/O through mmapped queues with the
 * device-side queue library; revocation reaching a polling process (poll
 * reports it, touching the mapping raises SIGBUS); close, kill and fork.
 */
#define _GNU_SOURCE
#include <grp.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stddef.h>
#include <signal.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "np_queue.h"
#include "kselftest_harness.h"

static int np_open(void)
{
	return open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
}

static int np_reserve(int fd, int sq, int cq, int data, __u64 data_size)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .ctrl = 0, .nsid = 1, .depth = 64,
		.sq_placement = sq, .cq_placement = cq, .data_placement = data,
		.data_size = data_size,
		.opcodes = NVME_PEER_OPCODE_READ | NVME_PEER_OPCODE_WRITE |
			   NVME_PEER_OPCODE_FLUSH,
	};

	if (ioctl(fd, NVME_PEER_IOC_RESERVE, &r))
		return -errno;
	return r.qid;
}

static int np_attach(int fd, int qid)
{
	struct nvme_peer_attach a = { .size = sizeof(a), .qid = qid };

	return ioctl(fd, NVME_PEER_IOC_ATTACH, &a) ? -errno : 0;
}

static long long np_free(void)
{
	return np_peer_num("free");
}

/* Remove every administrator's intent of the controller. */
static void np_clean_sysfs(void)
{
	np_cfs_clear(np_ctrl());
}

static int np_attach_name(int fd, const char *name)
{
	struct nvme_peer_attach a = {
		.size = sizeof(a), .flags = NVME_PEER_ATTACH_BY_NAME,
	};

	snprintf(a.name, sizeof(a.name), "%s", name);
	return ioctl(fd, NVME_PEER_IOC_ATTACH, &a) ? -errno : 0;
}

/* Run @fn as uid/gid 1000 in a child; its exit code, or -1. */
static int np_as_user(int (*fn)(void *), void *arg)
{
	pid_t pid = fork();
	int st;

	if (!pid) {
		if (setgroups(0, NULL) || setgid(1000) || setuid(1000))
			_exit(100);
		_exit(fn(arg));
	}
	if (pid < 0 || waitpid(pid, &st, 0) != pid || !WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

TEST(reserve_query_release)
{
	struct nvme_peer_info info;
	char path[128], buf[64];
	int fd = np_open(), qid, nr = np_peer_num("nr_qids");

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENXIO, np_query(fd, &info));
	qid = np_reserve(fd, NVME_PEER_PLACE_HOST, NVME_PEER_PLACE_HOST,
			 NVME_PEER_PLACE_HOST, 8192);
	ASSERT_LT(0, qid);
	EXPECT_EQ(nr - 1, np_free());
	snprintf(path, sizeof(path), "%s/q%d/owner", np_peer(), qid);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("process", buf);

	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(qid, info.qid);
	EXPECT_EQ(1, info.nsid);
	EXPECT_EQ(64, info.depth);
	EXPECT_EQ(9, info.lba_shift);
	EXPECT_EQ(NVME_PEER_STATE_ACTIVE, info.state);
	EXPECT_EQ(NVME_PEER_REASON_NONE, info.reason);
	EXPECT_EQ(4096, info.sq_size);
	EXPECT_EQ(4096, info.cq_size);
	EXPECT_EQ(8192, info.data_size);
	EXPECT_EQ(4096, info.db_size);
	EXPECT_NE(0, info.sq_addr);	/* root sees bus addresses */
	EXPECT_NE(0, info.data_ctrl_addr);
	EXPECT_EQ(0, info.sq_off & 4095);
	EXPECT_EQ(4, info.db_stride);
	/* mediated (the default): the doorbells are words of our own page */
	EXPECT_EQ(NVME_PEER_MODE_MEDIATED, info.mode);
	EXPECT_TRUE(info.flags & NVME_PEER_INFO_MEDIATED);
	EXPECT_TRUE(info.flags & NVME_PEER_INFO_DB_MAP);
	EXPECT_EQ(NVME_PEER_GUARANTEE_CPU, info.guarantee);
	EXPECT_EQ(0, info.sq_db_in_page);
	EXPECT_EQ(4, info.cq_db_in_page);
	/* a second reservation on the same fd */
	EXPECT_EQ(-EBUSY, np_reserve(fd, 1, 1, 0, 0));

	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_RELEASE, 0));
	EXPECT_EQ(nr, np_free());
	EXPECT_NE(0, access(path, F_OK));
	EXPECT_EQ(-ENXIO, np_query(fd, &info));
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RELEASE, 1));
	close(fd);
}

/*
 * A file is good for one reservation: after RELEASE it is spent, so that
 * nothing mapped from it can reach a later reservation's memory.  It says
 * so (-EBUSY) instead of handing out a reservation it would then report
 * revoked (POLLERR, SIGBUS, ENXIO).
 */
TEST(released_file_is_spent)
{
	struct nvme_peer_info info;
	struct pollfd pfd;
	int fd = np_open(), qid, nr = np_peer_num("nr_qids");

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	qid = np_reserve(fd, NVME_PEER_PLACE_HOST, NVME_PEER_PLACE_HOST,
			 NVME_PEER_PLACE_HOST, 4096);
	ASSERT_LT(0, qid);
	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_RELEASE, 0));
	EXPECT_EQ(-EBUSY, np_reserve(fd, NVME_PEER_PLACE_HOST,
				     NVME_PEER_PLACE_HOST, 0, 0));
	EXPECT_EQ(-EBUSY, np_attach(fd, qid));
	EXPECT_EQ(nr, np_free());	/* nothing was reserved */
	EXPECT_EQ(-ENXIO, np_query(fd, &info));
	pfd = (struct pollfd){ .fd = fd, .events = POLLIN | POLLPRI };
	EXPECT_EQ(0, poll(&pfd, 1, 0));	/* nothing to report: no POLLERR */
	close(fd);
	/* a new open works as always */
	fd = np_open();
	ASSERT_LE(0, fd);
	EXPECT_LT(0, np_reserve(fd, NVME_PEER_PLACE_HOST, NVME_PEER_PLACE_HOST,
				0, 0));
	close(fd);
}

static int np_reserve_mode(int fd, __u32 mode, __u32 opcodes)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = 1, .depth = 64, .sq_placement = 1,
		.cq_placement = 1,
		.mode = mode, .opcodes = opcodes,
	};

	if (ioctl(fd, NVME_PEER_IOC_RESERVE, &r))
		return -errno;
	return r.qid;
}

#define NP_ALLOW_DIRECT "/sys/module/nvme_peer/parameters/allow_direct"

TEST(direct_mode_is_opt_in)
{
	struct nvme_peer_info info;
	int fd = np_open(), qid;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	/* a policy means nothing to a direct queue: refused, not ignored */
	EXPECT_EQ(-EINVAL, np_reserve_mode(fd, NVME_PEER_MODE_DIRECT,
					   NVME_PEER_OPCODE_READ));
	EXPECT_EQ(-EINVAL, np_reserve_mode(fd, 7, 0));
	ASSERT_EQ(0, np_write(NP_ALLOW_DIRECT, "0"));
	EXPECT_EQ(-EPERM, np_reserve_mode(fd, NVME_PEER_MODE_DIRECT, 0));
	ASSERT_EQ(0, np_write(NP_ALLOW_DIRECT, "1"));
	qid = np_reserve_mode(fd, NVME_PEER_MODE_DIRECT, 0);
	ASSERT_LT(0, qid);
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_MODE_DIRECT, info.mode);
	EXPECT_FALSE(info.flags & NVME_PEER_INFO_MEDIATED);
	EXPECT_EQ(NVME_PEER_GUARANTEE_NONE, info.guarantee);
	EXPECT_EQ(8 * qid, info.sq_db_in_page);
	EXPECT_EQ(8 * qid + 4, info.cq_db_in_page);
	close(fd);
}

/*
 * The ABI as user space is compiled against it: 'N' 0x90-0x95 (0x80-0x8F
 * is ntsync's), the directions, the VER0 sizes in the numbers and in the
 * structs, and where each struct ends.  No device needed.
 */
#define NP_IOC_RW	(_IOC_READ | _IOC_WRITE)

TEST(ioctl_numbers_and_sizes)
{
	EXPECT_EQ(_IOC(NP_IOC_RW, 'N', 0x90, 168), NVME_PEER_IOC_RESERVE);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'N', 0x91, 48), NVME_PEER_IOC_ATTACH);
	EXPECT_EQ(_IOC(NP_IOC_RW, 'N', 0x92, 216), NVME_PEER_IOC_QUERY);
	EXPECT_EQ(_IOC(_IOC_NONE, 'N', 0x93, 0), NVME_PEER_IOC_RELEASE);
	EXPECT_EQ(_IOC(_IOC_WRITE, 'N', 0x94, 16), NVME_PEER_IOC_RING);
	EXPECT_EQ(_IOC(NP_IOC_RW, 'N', 0x95, 24), NVME_PEER_IOC_FILE_MAP);
	EXPECT_EQ(_IOC(NP_IOC_RW, 'N', 0x96, 80), NVME_PEER_IOC_WINDOW);
	EXPECT_EQ(_IOC(NP_IOC_RW, 'N', 0x97, 24), NVME_PEER_IOC_WINDOW_MAP);

	EXPECT_EQ(168, NVME_PEER_RESERVE_SIZE_VER0);
	EXPECT_EQ(48, NVME_PEER_ATTACH_SIZE_VER0);
	EXPECT_EQ(216, NVME_PEER_INFO_SIZE_VER0);
	EXPECT_EQ(24, NVME_PEER_FILE_MAP_SIZE_VER0);
	EXPECT_EQ(16, NVME_PEER_RING_SIZE_VER0);
	EXPECT_EQ(80, NVME_PEER_WINDOW_SIZE_VER0);
	EXPECT_EQ(24, NVME_PEER_WINDOW_MAP_SIZE_VER0);
	EXPECT_EQ(NVME_PEER_WINDOW_SIZE_VER0,
		  sizeof(struct nvme_peer_window_req));
	EXPECT_EQ(NVME_PEER_WINDOW_MAP_SIZE_VER0,
		  sizeof(struct nvme_peer_window_map));
	EXPECT_EQ(24, sizeof(struct nvme_peer_window_piece));
	EXPECT_EQ(NVME_PEER_RESERVE_SIZE_VER0, sizeof(struct nvme_peer_reserve));
	EXPECT_EQ(NVME_PEER_ATTACH_SIZE_VER0, sizeof(struct nvme_peer_attach));
	EXPECT_EQ(NVME_PEER_INFO_SIZE_VER0, sizeof(struct nvme_peer_info));
	EXPECT_EQ(NVME_PEER_FILE_MAP_SIZE_VER0,
		  sizeof(struct nvme_peer_file_map));
	EXPECT_EQ(NVME_PEER_RING_SIZE_VER0, sizeof(struct nvme_peer_ring));
	EXPECT_EQ(16, sizeof(struct nvme_peer_extent));
	EXPECT_EQ(24, sizeof(struct nvme_peer_file_extent));
	EXPECT_EQ(24, sizeof(struct nvme_peer_dmabuf_region));

	/* each struct ends with its last field: no tail padding */
	EXPECT_EQ(168 - 24, offsetof(struct nvme_peer_reserve, data_buf));
	EXPECT_EQ(48 - NVME_PEER_NAME_MAX, offsetof(struct nvme_peer_attach, name));
	EXPECT_EQ(216 - 2, offsetof(struct nvme_peer_info, rsvd));
	EXPECT_EQ(24 - 8, offsetof(struct nvme_peer_file_map, extents));
	EXPECT_EQ(16 - 4, offsetof(struct nvme_peer_ring, cq_head));
	EXPECT_EQ(80 - 4, offsetof(struct nvme_peer_window_req, rsvd2));
	EXPECT_EQ(24 - 8, offsetof(struct nvme_peer_window_map, pieces));
	EXPECT_EQ(24 - 8, offsetof(struct nvme_peer_window_piece, bus_addr));
	/* a few offsets user space hard-codes in device code */
	EXPECT_EQ(20, offsetof(struct nvme_peer_reserve, qid));
	EXPECT_EQ(96, offsetof(struct nvme_peer_reserve, sq_buf));
	EXPECT_EQ(112, offsetof(struct nvme_peer_info, data_ctrl_addr));
	EXPECT_EQ(144, offsetof(struct nvme_peer_info, sq_db_addr));
	EXPECT_EQ(208, offsetof(struct nvme_peer_info, sq_placement));
	EXPECT_EQ(8, offsetof(struct nvme_peer_file_map, nr));
}

TEST(struct_size_rules)
{
	struct {
		struct nvme_peer_reserve r;
		__u64 extra;
	} big = { };
	struct {
		struct nvme_peer_info info;
		__u64 extra;
	} qbig;
	int fd = np_open();

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	big.r = (struct nvme_peer_reserve){ .size = 8, .nsid = 1, .depth = 64,
					    .sq_placement = 1,
					    .cq_placement = 1 };
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &big));
	EXPECT_EQ(EINVAL, errno);	/* too small to say anything */
	big.r.size = NVME_PEER_RESERVE_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &big));
	EXPECT_EQ(EINVAL, errno);	/* smaller than the first version */
	big.r.size = sizeof(big);
	big.extra = 1;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &big));
	EXPECT_EQ(E2BIG, errno);	/* unknown non-zero tail */
	big.r.flags = 0x80;
	big.extra = 0;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &big));
	EXPECT_EQ(EINVAL, errno);	/* unknown flag */
	big.r.flags = 0;
	big.r.rsvd[sizeof(big.r.rsvd) - 1] = 1;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &big));
	EXPECT_EQ(EINVAL, errno);	/* reserved bytes, the last one too */
	big.r.rsvd[sizeof(big.r.rsvd) - 1] = 0;
	big.r.sq_placement = 9;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &big));
	EXPECT_EQ(EINVAL, errno);	/* unknown placement */
	big.r.sq_placement = 1;
	big.r.ctrl = 77;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, &big));
	EXPECT_EQ(ENODEV, errno);	/* no such controller */
	big.r.ctrl = 0;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RESERVE, (void *)1));
	EXPECT_EQ(EFAULT, errno);
	/* larger than the kernel's struct with a zero tail: accepted */
	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_RESERVE, &big));
	EXPECT_LT(0, big.r.qid);
	/* a query smaller than the first version: refused */
	memset(&qbig, 0, sizeof(qbig));
	qbig.info.size = NVME_PEER_INFO_SIZE_VER0 - 8;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_QUERY, &qbig));
	EXPECT_EQ(EINVAL, errno);
	/* a newer, larger one with a zero tail gets what the kernel knows */
	memset(&qbig, 0xff, sizeof(qbig));
	memset(&qbig.info, 0, sizeof(qbig.info));
	qbig.extra = 0;
	qbig.info.size = sizeof(qbig);
	ASSERT_EQ(0, ioctl(fd, NVME_PEER_IOC_QUERY, &qbig));
	EXPECT_EQ(NVME_PEER_INFO_SIZE_VER0, qbig.info.size);
	EXPECT_EQ(big.r.qid, qbig.info.qid);
	EXPECT_EQ(0, qbig.extra);	/* untouched past the kernel's size */
	EXPECT_EQ(-1, ioctl(fd, _IO('N', 0x9f), 0));
	EXPECT_EQ(ENOTTY, errno);
	/* the numbers of before 'N' 0x90 (ntsync's range) are not ours */
	EXPECT_EQ(-1, ioctl(fd, _IO('N', 0x82), &qbig));
	EXPECT_EQ(ENOTTY, errno);
	/* nor is a number with another size or direction */
	EXPECT_EQ(-1, ioctl(fd, _IOWR('N', 0x92, __u64), &qbig));
	EXPECT_EQ(ENOTTY, errno);
	EXPECT_EQ(-1, ioctl(fd, _IOR('N', 0x92, struct nvme_peer_info), &qbig));
	EXPECT_EQ(ENOTTY, errno);
	close(fd);
	EXPECT_EQ(np_peer_num("nr_qids"), np_free());
}

static int np_user_checks(void *arg)
{
	int qid = *(int *)arg, other = qid + 1, fd = np_open();
	struct nvme_peer_info info;
	void *p;

	if (fd < 0)
		return 1;
	if (np_reserve(fd, 1, 1, 0, 0) != -EPERM)
		return 2;
	if (np_attach(fd, qid + 3) != -EPERM)	/* direct: CAP_SYS_RAWIO */
		return 11;
	if (np_attach(fd, other) != -EACCES)	/* provisioned for uid 2000 */
		return 3;
	if (np_attach(fd, qid + 2) != -EACCES)	/* not provisioned */
		return 4;
	if (np_attach(fd, 999) != -ENOENT)
		return 5;
	if (np_attach(fd, qid))
		return 6;
	if (np_attach(fd, qid) != -EBUSY)
		return 7;
	/* no physical or bus address: PRPs name NVME_PEER_PRP_BASE + offset */
	if (np_query(fd, &info) || info.qid != qid || info.sq_addr ||
	    info.cq_addr || info.data_addr || info.sq_db_addr ||
	    info.cq_db_addr || info.data_ctrl_addr != NVME_PEER_PRP_BASE)
		return 8;
	/* mediated: the shadow doorbell page is the queue's own */
	if (!(info.flags & NVME_PEER_INFO_DB_MAP) ||
	    !(info.flags & NVME_PEER_INFO_MEDIATED) ||
	    info.mode != NVME_PEER_MODE_MEDIATED)
		return 9;
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 info.db_off);
	if (p == MAP_FAILED)
		return 10;
	munmap(p, 4096);
	return 0;
}

TEST(unprivileged_attach_only_where_provisioned)
{
	int first = np_peer_num("first_qid"), fd, rc;
	char path[128], buf[16];

	if (np_missing())
		SKIP(return, "%s", np_missing());
	np_clean_sysfs();
	ASSERT_EQ(0, np_admin_create("nsid=1 data_placement=host data_size=4096 qid=%d uid=1000",
				     first));
	ASSERT_EQ(0, np_admin_create("nsid=1 qid=%d uid=2000", first + 1));
	ASSERT_EQ(0, np_admin_create("nsid=1 qid=%d", first + 2));
	ASSERT_EQ(0, np_admin_create("nsid=1 mode=direct qid=%d uid=1000", first + 3));
	rc = np_as_user(np_user_checks, &first);
	EXPECT_EQ(0, rc);
	/* the user's exit detached it; it stays provisioned */
	snprintf(path, sizeof(path), "%s/q%d/attached", np_peer(), first);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("0", buf);
	snprintf(path, sizeof(path), "%s/q%d/state", np_peer(), first);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("active", buf);
	/* root may attach anything provisioned, not admin-only ones */
	fd = np_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-EACCES, np_attach(fd, first + 2));
	close(fd);
	np_clean_sysfs();
}

TEST(mmap_rules)
{
	struct nvme_peer_info info;
	int fd = np_open();
	void *p;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	ASSERT_LT(0, np_reserve(fd, 1, 1, 1, 8192));
	ASSERT_EQ(0, np_query(fd, &info));
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd, info.sq_off);
	EXPECT_EQ(MAP_FAILED, p);	/* past the SQ */
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 info.sq_off + 4096);
	EXPECT_EQ(MAP_FAILED, p);	/* not at the region start */
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE, fd, info.sq_off);
	EXPECT_EQ(MAP_FAILED, p);
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	EXPECT_EQ(MAP_FAILED, p);	/* another file's window */
	EXPECT_EQ(EINVAL, errno);
	p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, fd, info.cq_off);
	EXPECT_EQ(MAP_FAILED, p);	/* the CQ is read-only */
	EXPECT_EQ(EACCES, errno);
	p = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fd, info.cq_off);
	ASSERT_NE(MAP_FAILED, p);
	EXPECT_EQ(-1, mprotect(p, 4096, PROT_READ | PROT_WRITE));
	EXPECT_EQ(EACCES, errno);
	munmap(p, 4096);
	p = mmap(NULL, 8192, PROT_READ | PROT_WRITE, MAP_SHARED, fd,
		 info.data_off);
	ASSERT_NE(MAP_FAILED, p);
	munmap(p, 8192);
	close(fd);
}

FIXTURE(mio) {
	int fd;
	struct np_map m;
};

FIXTURE_VARIANT(mio) {
	int sq, data, mode;
};

FIXTURE_VARIANT_ADD(mio, host) { NVME_PEER_PLACE_HOST, NVME_PEER_PLACE_HOST,
				 NVME_PEER_MODE_MEDIATED };
FIXTURE_VARIANT_ADD(mio, cmb) { NVME_PEER_PLACE_CMB, NVME_PEER_PLACE_CMB,
				NVME_PEER_MODE_MEDIATED };
/* the raw hardware queue: root has CAP_SYS_RAWIO, run-guest.sh allows it */
FIXTURE_VARIANT_ADD(mio, direct_cmb) { NVME_PEER_PLACE_CMB,
				       NVME_PEER_PLACE_CMB,
				       NVME_PEER_MODE_DIRECT };

FIXTURE_SETUP(mio)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .nsid = 1, .depth = 64,
		.sq_placement = variant->sq,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = variant->data,
		.data_size = 8192, .mode = variant->mode,
	};

	if (np_missing())
		SKIP(return, "%s", np_missing());
	if (variant->mode == NVME_PEER_MODE_MEDIATED)
		r.opcodes = NVME_PEER_OPCODE_READ | NVME_PEER_OPCODE_WRITE;
	self->fd = np_open();
	ASSERT_LE(0, self->fd);
	ASSERT_EQ(0, ioctl(self->fd, NVME_PEER_IOC_RESERVE, &r));
	ASSERT_EQ(0, np_map_all(self->fd, &self->m, 1));
	ASSERT_EQ(variant->mode, self->m.info.mode);
	if (variant->mode == NVME_PEER_MODE_DIRECT)
		ASSERT_EQ(8 * r.qid, self->m.info.sq_db_in_page);
}

FIXTURE_TEARDOWN(mio)
{
	if (self->fd > 0)
		close(self->fd);
}

TEST_F(mio, io_through_mmapped_queues)
{
	unsigned char *blk = np_aligned(8192);
	int i;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_NE(NULL, blk);
	/* more commands than the queue is deep: the tail and phase wrap */
	for (i = 0; i < 152; i++) {
		np_fill(self->m.data, 8192, i);
		ASSERT_EQ(0, np_cmd(self->fd, &self->m, 0x01, 6000 + 16 * (i % 8),
				    16)) TH_LOG("write %d", i);
	}
	for (i = 0; i < 8; i++) {
		ASSERT_EQ(0, np_blk_io(np_bdev(), 0, (6000 + 16 * i) * 512,
				       blk, 8192));
		np_fill(self->m.data, 8192, 144 + i);
		EXPECT_EQ(0, memcmp(blk, self->m.data, 8192)) TH_LOG("lba block %d", i);
	}
	np_fill(blk, 4096, 4242);
	ASSERT_EQ(0, np_blk_io(np_bdev(), 1, 9000 * 512, blk, 4096));
	ASSERT_EQ(0, np_cmd(self->fd, &self->m, 0x02, 9000, 8));
	EXPECT_EQ(0, memcmp(blk, self->m.data, 4096));
	/*
	 * An LBA past the namespace: LBA Out of Range either way, from the
	 * guard (with Do Not Retry) or from the controller.
	 */
	i = np_cmd(self->fd, &self->m, 0x02, 1ULL << 40, 8);
	EXPECT_EQ(0x80, i & 0x7ff);
	if (variant->mode == NVME_PEER_MODE_MEDIATED)
		EXPECT_EQ(0x4080, i);
	free(blk);
}

static int np_user_io(void *arg)
{
	int qid = *(int *)arg, fd = np_open();
	struct np_map m;
	unsigned char *blk = np_aligned(4096);

	if (fd < 0 || np_attach(fd, qid) || np_map_all(fd, &m, 0))
		return 1;
	np_fill(m.data, 4096, 77);
	if (np_cmd(fd, &m, 0x01, 9100, 8))
		return 2;
	memset(m.data, 0, 4096);
	if (np_cmd(fd, &m, 0x02, 9100, 8))
		return 3;
	np_fill(blk, 4096, 77);
	if (memcmp(blk, m.data, 4096))
		return 4;
	return 0;
}

TEST(unprivileged_io_with_ring_ioctl_and_recycle)
{
	int first = np_peer_num("first_qid");

	if (np_missing())
		SKIP(return, "%s", np_missing());
	np_clean_sysfs();
	ASSERT_EQ(0, np_admin_create("%s qid=%d uid=1000",
				     "nsid=1 data_placement=host data_size=4096 opcodes=read,write",
				     first));
	EXPECT_EQ(0, np_as_user(np_user_io, &first));
	/* a second process gets the recycled queue: it works from slot 0 */
	EXPECT_EQ(0, np_as_user(np_user_io, &first));
	np_clean_sysfs();
}

static sigjmp_buf np_jmp;
static int np_faults;

static void np_sigbus(int sig)
{
	siglongjmp(np_jmp, 1);
}

TEST(revocation_reaches_a_polling_process)
{
	struct nvme_peer_info info;
	struct sigaction sa = { .sa_handler = np_sigbus };
	struct nvme_peer_ring ring = { .size = sizeof(ring) };
	struct pollfd pfd;
	struct np_map m;
	int fd = np_open();

	if (np_missing())
		SKIP(return, "%s", np_missing());
	ASSERT_LE(0, fd);
	ASSERT_LT(0, np_reserve(fd, NVME_PEER_PLACE_CMB, NVME_PEER_PLACE_HOST,
				NVME_PEER_PLACE_HOST, 4096));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	ASSERT_EQ(0, np_cmd(fd, &m, 0x02, 0, 8));
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI };
	EXPECT_EQ(0, poll(&pfd, 1, 0));

	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"), "1"));
	pfd.revents = 0;
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_TRUE(pfd.revents & POLLERR);
	EXPECT_TRUE(pfd.revents & POLLPRI);
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_STATE_REVOKED, info.state);
	EXPECT_EQ(NVME_PEER_REASON_RESET, info.reason);

	ASSERT_EQ(0, sigaction(SIGBUS, &sa, NULL));
	np_faults = 0;
	if (!sigsetjmp(np_jmp, 1))
		__atomic_store_n((unsigned char *)m.sq, 1, __ATOMIC_RELAXED);
	else
		np_faults++;
	if (!sigsetjmp(np_jmp, 1))
		__atomic_load_n((unsigned char *)m.data, __ATOMIC_RELAXED);
	else
		np_faults++;
	EXPECT_EQ(2, np_faults);
	signal(SIGBUS, SIG_DFL);
	/* the ring ioctl refuses too */
	ring.flags = NVME_PEER_RING_SQ;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_RING, &ring));
	EXPECT_EQ(ENXIO, errno);
	np_unmap_all(&m);
	close(fd);
	ASSERT_EQ(0, np_wait_for(np_peer_file("live"), "1", 30));
	EXPECT_EQ(np_peer_num("nr_qids"), np_free());
}

TEST(close_kill_and_fork_release_the_qid)
{
	int nr = np_peer_num("nr_qids"), fd, st;
	pid_t pid;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	/* kill -9 with a mapped, reserved queue */
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		struct np_map m;

		fd = np_open();
		if (np_reserve(fd, 2, 1, 1, 4096) <= 0 || np_map_all(fd, &m, 1))
			_exit(1);
		pause();
	}
	usleep(500000);
	EXPECT_EQ(nr - 1, np_free());
	kill(pid, SIGKILL);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_EQ(nr, np_free());

	/* a forked child keeps the reservation alive past the parent's close */
	fd = np_open();
	ASSERT_LT(0, np_reserve(fd, 1, 1, 0, 0));
	pid = fork();
	ASSERT_LE(0, pid);
	if (!pid) {
		usleep(300000);
		_exit(np_free() == nr - 1 ? 0 : 1);
	}
	close(fd);
	ASSERT_EQ(pid, waitpid(pid, &st, 0));
	EXPECT_TRUE(WIFEXITED(st) && WEXITSTATUS(st) == 0);
	EXPECT_EQ(nr, np_free());
}

/*
 * Issue 22: an administrator's named reservation outlives a reset.  The
 * attached process sees the revocation (POLLERR, reason reset); the
 * reservation comes back as the intent's next generation; a new file
 * attaches by name and its I/O works.
 */
TEST(reset_brings_a_named_reservation_back)
{
	const char *ctrl = np_ctrl();
	struct nvme_peer_info info;
	struct pollfd pfd;
	struct np_map m;
	char buf[64], path[160], want[4096];
	int fd;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	np_clean_sysfs();
	ASSERT_EQ(0, np_cfs_make(ctrl, "tenant", "%s uid=0",
				 "nsid=1 data_placement=host data_size=4096 opcodes=read,write"));
	fd = np_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_attach_name(fd, "tenant"));
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	np_fill(m.data, 4096, 22);
	ASSERT_EQ(0, np_cmd(fd, &m, 0x01, 64, 8));
	np_unmap_all(&m);

	ASSERT_EQ(0, np_write(np_ctrl_path("/sys/class/nvme/%s/reset_controller"), "1"));
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI };
	ASSERT_EQ(1, poll(&pfd, 1, 10000));
	EXPECT_TRUE(pfd.revents & POLLERR);
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_STATE_REVOKED, info.state);
	EXPECT_EQ(NVME_PEER_REASON_RESET, info.reason);
	/* the file is spent: it attaches to nothing else */
	EXPECT_EQ(-EBUSY, np_attach_name(fd, "tenant"));
	close(fd);

	ASSERT_EQ(0, np_wait_for(np_cfs_path(ctrl, "tenant", "generation"),
				 "2", 30));
	ASSERT_EQ(0, np_wait_for(np_cfs_path(ctrl, "tenant", "state"),
				 "active", 30));
	/* why the last one ended, while the next is active */
	ASSERT_EQ(0, np_cfs_read(ctrl, "tenant", "reason", buf, sizeof(buf)));
	EXPECT_STREQ("reset", buf);
	fd = np_open();
	ASSERT_LE(0, fd);
	ASSERT_EQ(0, np_attach_name(fd, "tenant"));
	ASSERT_EQ(0, np_query(fd, &info));
	EXPECT_EQ(NVME_PEER_STATE_ACTIVE, info.state);
	ASSERT_EQ(0, np_cfs_read(ctrl, "tenant", "live_qid", buf, sizeof(buf)));
	EXPECT_EQ(atoi(buf), (int)info.qid);
	snprintf(path, sizeof(path), "%s/q%u/generation", np_peer(), info.qid);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("2", buf);
	snprintf(path, sizeof(path), "%s/q%u/name", np_peer(), info.qid);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("tenant", buf);
	/* the data written before the reset reads back through the new one */
	ASSERT_EQ(0, np_map_all(fd, &m, 1));
	memset(m.data, 0, 4096);
	ASSERT_EQ(0, np_cmd(fd, &m, 0x02, 64, 8));
	np_fill(want, sizeof(want), 22);
	EXPECT_EQ(0, memcmp(want, m.data, 4096));
	np_unmap_all(&m);
	close(fd);
	EXPECT_EQ(0, np_cfs_remove(ctrl, "tenant"));
	EXPECT_EQ(np_peer_num("nr_qids"), np_free());
}

/* ATTACH by name: what it takes, and the errno of each thing it refuses. */
TEST(attach_by_name_rules)
{
	struct nvme_peer_attach a = { .size = sizeof(a) };
	const char *ctrl = np_ctrl();
	int fd;

	if (np_missing())
		SKIP(return, "%s", np_missing());
	np_clean_sysfs();
	ASSERT_EQ(0, np_cfs_make(ctrl, "named", "nsid=1 uid=0"));
	ASSERT_EQ(0, np_cfs_make(ctrl, "private", "nsid=1"));
	fd = np_open();
	ASSERT_LE(0, fd);
	EXPECT_EQ(-ENOENT, np_attach_name(fd, "none-such"));
	EXPECT_EQ(-EACCES, np_attach_name(fd, "private"));	/* no uid/gid */
	EXPECT_EQ(-EINVAL, np_attach_name(fd, "a b"));
	EXPECT_EQ(-EINVAL, np_attach_name(fd, ""));
	/* no NUL in the name */
	a.flags = NVME_PEER_ATTACH_BY_NAME;
	memset(a.name, 'a', sizeof(a.name));
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	/* a name and a qid */
	snprintf(a.name, sizeof(a.name), "named");
	a.qid = np_peer_num("first_qid");
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	/* a name without the flag */
	a.flags = 0;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	/* a window's name without the by-name flag; an unknown flag */
	a.flags = NVME_PEER_ATTACH_WINDOW;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	a.flags = NVME_PEER_ATTACH_WINDOW << 1;
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	EXPECT_EQ(0, np_attach_name(fd, "named"));
	close(fd);
	/* shorter than the one version there is: refused */
	fd = np_open();
	ASSERT_LE(0, fd);
	memset(&a, 0, sizeof(a));
	a.size = offsetof(struct nvme_peer_attach, name);
	a.qid = np_read_num(np_cfs_path(ctrl, "named", "live_qid"));
	EXPECT_EQ(-1, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	EXPECT_EQ(EINVAL, errno);
	a.size = sizeof(a);
	EXPECT_EQ(0, ioctl(fd, NVME_PEER_IOC_ATTACH, &a));
	close(fd);
	np_clean_sysfs();
}

TEST_HARNESS_MAIN
