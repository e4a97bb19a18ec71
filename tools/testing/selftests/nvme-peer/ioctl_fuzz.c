// SPDX-License-Identifier: GPL-2.0
/*
 * A bounded fuzzer for /dev/nvme-peer's ioctls: random and boundary values
 * for every ioctl, struct size and field, from a fixed seed (printed; pass
 * another as argv[1]).  Every call must return 0 or a documented errno;
 * KASAN and kmemleak in the test kernel catch what the return codes cannot.
 */
#define _GNU_SOURCE
#include <sys/ioctl.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "kselftest_harness.h"

#include <time.h>

#define NP_FUZZ_CALLS 100000

static unsigned long long np_rnd_state;

static unsigned long long np_rnd(void)
{
	/* xorshift64* */
	np_rnd_state ^= np_rnd_state >> 12;
	np_rnd_state ^= np_rnd_state << 25;
	np_rnd_state ^= np_rnd_state >> 27;
	return np_rnd_state * 2685821657736338717ULL;
}

static const unsigned long long np_edges[] = {
	0, 1, 2, 3, 4, 7, 8, 63, 64, 65, 255, 256, 4095, 4096, 4097,
	0x7fff, 0xffff, 0x10000, 0x7fffffff, 0x80000000, 0xffffffff,
	0x100000000ULL, 64ULL << 20, (64ULL << 20) + 1, ~0ULL,
};

static unsigned long long np_value(void)
{
	switch (np_rnd() % 4) {
	case 0:
		return np_edges[np_rnd() % ARRAY_SIZE(np_edges)];
	case 1:
		return np_rnd() % 16;
	default:
		return np_rnd();
	}
}

static const int np_allowed[] = {
	0, EPERM, ENOENT, EIO, ENXIO, E2BIG, ENOMEM, EACCES, EFAULT, EBUSY,
	ENODEV, EXDEV, EINVAL, ENOSPC, ENOTTY, EAGAIN, EOPNOTSUPP,
	/* file bindings and NVME_PEER_IOC_FILE_MAP */
	EBADF, EISDIR, ENODATA,
};

static int np_errno_ok(int e)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(np_allowed); i++)
		if (np_allowed[i] == e)
			return 1;
	return 0;
}

FIXTURE(fuzz) {
	int unused;
};

FIXTURE_SETUP(fuzz)
{
	if (np_missing())
		SKIP(return, "%s", np_missing());
}

FIXTURE_TEARDOWN(fuzz)
{
}

TEST_F_TIMEOUT(fuzz, every_ioctl, 1200)
{
	static const unsigned long cmds[] = {
		NVME_PEER_IOC_RESERVE, NVME_PEER_IOC_ATTACH,
		NVME_PEER_IOC_QUERY, NVME_PEER_IOC_RELEASE,
		NVME_PEER_IOC_RING, NVME_PEER_IOC_FILE_MAP,
		NVME_PEER_IOC_WINDOW, NVME_PEER_IOC_WINDOW_MAP,
	};
	static const unsigned int sizes[] = {
		sizeof(struct nvme_peer_reserve), sizeof(struct nvme_peer_attach),
		sizeof(struct nvme_peer_info), 0, sizeof(struct nvme_peer_ring),
		sizeof(struct nvme_peer_file_map),
		sizeof(struct nvme_peer_window_req),
		sizeof(struct nvme_peer_window_map),
	};
	const unsigned int nr = ARRAY_SIZE(cmds);
	unsigned long long seed = 20261203, ok = 0, counts[ARRAY_SIZE(cmds)] = { };
	static union {
		unsigned long long align;
		unsigned char b[8192];
	} ubuf;
	unsigned char *buf = ubuf.b;
	int fd, i, j, n, last, bad = 0;
	unsigned int k;
	char *env = getenv("NP_FUZZ_SEED");
	int calls = NP_FUZZ_CALLS;
	time_t t0 = time(NULL);

	if (np_missing())
		SKIP(return, "%s", np_missing());
	if (env)
		seed = strtoull(env, NULL, 0);
	env = getenv("NP_FUZZ_CALLS");
	if (env)
		calls = atoi(env);
	np_rnd_state = seed ? seed : 1;
	TH_LOG("seed %llu, %d calls", seed, calls);
	fd = open("/dev/nvme-peer", O_RDWR);
	ASSERT_LE(0, fd);
	/* something to attach to */
	last = np_peer_num("first_qid") + np_peer_num("nr_qids") - 1;
	ASSERT_EQ(0, np_admin_create("nsid=1 qid=%d uid=0", last));

	for (i = 0; i < calls; i++) {
		unsigned long cmd;
		unsigned int size;
		int spent;
		void *arg = buf;
		long ret;

		k = np_rnd() % (nr + 1);
		/* else our range and around it, any direction and size */
		cmd = k < nr ? cmds[k] : _IOC(np_rnd() % 4, 'N',
					     0x80 + np_rnd() % 48,
					     np_rnd() % 256);
		/* mostly valid-looking structs with one or two fields fuzzed */
		memset(buf, 0, sizeof(ubuf.b));
		size = k < nr ? sizes[k] : 16;
		switch (np_rnd() % 6) {
		case 0:
			size = np_edges[np_rnd() % ARRAY_SIZE(np_edges)];
			break;
		case 1:
			size += 8 * (np_rnd() % 4);
			break;
		}
		if (k == 0) {
			struct nvme_peer_reserve *r = (void *)buf;

			/* one in 32 reaches the controller: keeps it fast */
			r->nsid = np_rnd() % 32 ? 0 : 1;
			r->depth = 2 << (np_rnd() % 6);
			r->sq_placement = 1 + np_rnd() % 2;
			r->cq_placement = 1;
		}
		if (k == 1 && np_rnd() % 2)
			((struct nvme_peer_attach *)buf)->qid = last;
		if (k == 1 && np_rnd() % 4 == 0) {
			struct nvme_peer_attach *a = (void *)buf;

			/* a window's name: none is enabled here */
			a->flags = NVME_PEER_ATTACH_BY_NAME |
				   NVME_PEER_ATTACH_WINDOW;
			snprintf(a->name, sizeof(a->name), "w%d",
				 (int)(np_rnd() % 4));
		}
		if (k == 4) {
			struct nvme_peer_ring *r = (void *)buf;

			r->flags = 1 + np_rnd() % 3;
		}
		((unsigned int *)buf)[0] = size;
		n = np_rnd() % 3;
		for (j = 0; j < n; j++) {
			unsigned int off = np_rnd() % 96;
			unsigned long long v = np_value();

			memcpy(buf + (off & ~3U), &v, np_rnd() % 2 ? 4 : 8);
		}
		if (size <= sizeof(ubuf.b) - 64 && np_rnd() % 8 == 0)
			buf[size + np_rnd() % 64] = np_rnd();	/* dirty tail */
		switch (np_rnd() % 40) {
		case 0:
			arg = NULL;
			break;
		case 1:
			arg = (void *)1;
			break;
		case 2:
			arg = buf + 1;
			break;
		}
		if (cmd == NVME_PEER_IOC_RELEASE)
			arg = np_rnd() % 4 ? NULL : arg;
		ret = ioctl(fd, cmd, arg);
		if (ret && !np_errno_ok(errno)) {
			if (bad++ < 10)
				TH_LOG("call %d: cmd %#lx size %u -> errno %d",
				       i, cmd, size, errno);
		}
		if (!ret) {
			ok++;
			if (k < nr)
				counts[k]++;
		}
		/* do not sit on one reservation for long */
		spent = !ret && cmd == NVME_PEER_IOC_RELEASE;
		if (np_rnd() % 64 == 0 && !ioctl(fd, NVME_PEER_IOC_RELEASE, 0))
			spent = 1;
		/* a file is good for one reservation: go on with a new one */
		if (spent) {
			close(fd);
			fd = open("/dev/nvme-peer", O_RDWR);
			ASSERT_LE(0, fd);
		}
	}
	close(fd);
	EXPECT_EQ(0, np_admin_delete(last));
	TH_LOG("%llu calls succeeded in %ld s", ok, (long)(time(NULL) - t0));
	TH_LOG("reserve %llu attach %llu query %llu release %llu ring %llu",
	       counts[0], counts[1], counts[2], counts[3], counts[4]);
	TH_LOG("file_map %llu window %llu window_map %llu", counts[5],
	       counts[6], counts[7]);
	EXPECT_EQ(0, bad);
	EXPECT_LT(0, counts[0]);	/* the fuzzer reached the real paths */
	EXPECT_LT(0, counts[1]);
	EXPECT_LT(0, counts[2]);
	EXPECT_EQ(np_peer_num("nr_qids"), np_peer_num("free"));
}

TEST_HARNESS_MAIN
