/* SPDX-License-Identifier: GPL-2.0 */
/*
 * File-bound reservations in the test VM: XFS on namespace 2 of the two-ctrl
 * topology's controller, files of known bytes, RESERVE with a binding.
 * Include after <linux/nvme_peer.h> and "np_util.h".
 */
#ifndef NP_FILE_H
#define NP_FILE_H

#include <sys/mount.h>

#define MNT	"/mnt/np"
#define FS_NS	2
#define MIB	(1024 * 1024)

/* XFS on namespace @nsid at @mnt, made once per boot; NULL or why not. */
static inline const char *np_fs_on(unsigned int nsid, const char *mnt)
{
	static char why[64];
	const char *dev;
	char mounts[4096];

	if (np_missing())
		return np_missing();
	dev = np_ns_dev(np_ctrl(), nsid);
	if (!dev[0]) {
		snprintf(why, sizeof(why), "no namespace %u for a file system",
			 nsid);
		return why;
	}
	if (!np_read("/proc/mounts", mounts, sizeof(mounts)) &&
	    strstr(mounts, mnt))
		return NULL;
	mkdir(mnt, 0755);
	/* the three together lift mkfs.xfs's 300 MB minimum (small disks) */
	if (np_sys("TEST_DEV=1 TEST_DIR=1 QA_CHECK_FS=1 mkfs.xfs -f -q %s",
		   dev) ||
	    mount(dev, mnt, "xfs", 0, NULL))
		return "mkfs.xfs or mount failed";
	return NULL;
}

/* XFS on namespace 2 */
static inline const char *np_fs(void)
{
	return np_fs_on(FS_NS, MNT);
}

/* A file @dir/@name of @size bytes of pattern @seed, on the media; its fd. */
static inline int np_mkfile_at(const char *dir, const char *name,
			       size_t size, unsigned int seed)
{
	char path[128];
	size_t chunk = 64 * 1024, done;
	char *buf = malloc(chunk);
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	unlink(path);
	fd = open(path, O_RDWR | O_CREAT, 0644);
	for (done = 0; fd >= 0 && buf && done < size; done += chunk) {
		np_fill(buf, chunk, seed + done / chunk);
		if (pwrite(fd, buf, chunk, done) != (ssize_t)chunk)
			break;
	}
	free(buf);
	if (fd >= 0 && (done < size || fsync(fd))) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/* A file of @size bytes of pattern @seed in MNT (O_RDWR). */
static inline int np_mkfile(const char *name, size_t size, unsigned int seed)
{
	return np_mkfile_at(MNT, name, size, seed);
}

static inline int np_open(void)
{
	return open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);
}

/*
 * RESERVE a queue bound to [@off, @off + @len) of @file_fd whose policy
 * allows @opcodes (0: the default).
 */
static inline int np_bind_ops(int fd, int file_fd, __u32 nsid, __u64 off,
			      __u64 len, __u32 access, __u32 mode,
			      __u32 opcodes)
{
	struct nvme_peer_reserve r = {
		.size = sizeof(r), .flags = NVME_PEER_RESERVE_FILE,
		.ctrl = strtoul(np_ctrl() + 4, NULL, 10),	/* nvmeN */
		.nsid = nsid, .depth = 64, .sq_placement = NVME_PEER_PLACE_HOST,
		.cq_placement = NVME_PEER_PLACE_HOST,
		.data_placement = NVME_PEER_PLACE_HOST,
		.data_size = 8192, .mode = mode, .opcodes = opcodes,
		.file_fd = file_fd, .file_access = access, .file_off = off,
		.file_len = len,
	};

	return ioctl(fd, NVME_PEER_IOC_RESERVE, &r) ? -errno : 0;
}

/*
 * RESERVE a mediated queue bound to [@off, @off + @len) of @file_fd: Read,
 * and Write for a read+write binding.
 */
static inline int np_bind(int fd, int file_fd, __u32 nsid, __u64 off,
			  __u64 len, __u32 access, __u32 mode)
{
	__u32 ops = 0;

	if (mode == NVME_PEER_MODE_MEDIATED)
		ops = NVME_PEER_OPCODE_READ |
		      (access & NVME_PEER_ACCESS_WRITE ?
		       NVME_PEER_OPCODE_WRITE : 0);
	return np_bind_ops(fd, file_fd, nsid, off, len, access, mode, ops);
}

/*
 * An np-client reserve line for a mediated queue of depth 16 in host
 * memory whose policy allows @ops (np-client's letters), bound read-only
 * to the first @len bytes of MNT/@name.
 */
static inline int np_client_bind_ops(const char *name, int len,
				     const char *ops)
{
	return np_write(NP_DBG_CLIENT "/reserve",
			"%s %d 16 %s %s %s 8192 cpu mediated %s file=%s/%s,0,%d,r",
			np_ctrl(), FS_NS, "host", "host", "host", ops, MNT,
			name, len);
}

/* The same with Read only. */
static inline int np_client_bind(const char *name, int len)
{
	return np_client_bind_ops(name, len, "r");
}

/* The first extent of qN/policy ("extent SLBA+NLB"). */
static inline int np_policy_extent(int qid, __u64 *slba, __u64 *nlb)
{
	char path[64], buf[4096], *l;

	snprintf(path, sizeof(path), "q%d/policy", qid);
	if (np_read(np_peer_file(path), buf, sizeof(buf)))
		return -1;
	l = strstr(buf, "\nextent ");
	return l && sscanf(l, "\nextent %llu+%llu", slba, nlb) == 2 ? 0 : -1;
}

/* The number after "@key " in qN/@file ("stats", "file"), or -1. */
static inline long long np_qfile_num(int qid, const char *file,
				     const char *key)
{
	char path[64], buf[512], *l;

	snprintf(path, sizeof(path), "q%d/%s", qid, file);
	if (np_read(np_peer_file(path), buf, sizeof(buf)))
		return -1;
	l = strstr(buf, key);
	return l ? strtoll(l + strlen(key), NULL, 0) : -1;
}

/* The bound file's map (malloc'ed into *@ext); the count or -errno. */
static inline int np_file_map(int fd, struct nvme_peer_file_extent **ext)
{
	struct nvme_peer_file_map m = { .size = sizeof(m) };

	*ext = NULL;
	if (ioctl(fd, NVME_PEER_IOC_FILE_MAP, &m))
		return -errno;
	*ext = calloc(m.nr, sizeof(**ext));
	m.extents = (uintptr_t)*ext;
	if (!*ext || ioctl(fd, NVME_PEER_IOC_FILE_MAP, &m))
		return -errno;
	return m.nr;
}

#endif /* NP_FILE_H */
