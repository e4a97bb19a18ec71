/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by the nvme-peer selftests: sysfs and debugfs access,
 * finding devices, block device I/O.
 */
#ifndef NP_UTIL_H
#define NP_UTIL_H

#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/capability.h>

#ifndef ARRAY_SIZE
#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#endif

#define NP_DBG_ACCEL "/sys/kernel/debug/np-accel"
#define NP_DBG_CLIENT "/sys/kernel/debug/np-client"

/*
 * The fault injection points of CONFIG_NVME_PEER_FAULT_INJECTION
 * (drivers/nvme/peer/inject.c, Documentation/nvme/peer-testing.rst): one
 * directory each, with the fault injection framework's files.
 */
#define NP_INJECT "/sys/kernel/debug/nvme-peer"

/* Write @val to @path; 0 or -errno of the write. */
static inline int np_write(const char *path, const char *fmt, ...)
{
	char buf[512];
	va_list ap;
	int fd, n, ret = 0;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	if (write(fd, buf, n) != n)
		ret = -errno;
	close(fd);
	return ret;
}

/* Read @path into @buf (NUL-terminated, trailing newline cut). */
static inline int np_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		n = -errno;
		close(fd);
		return n;
	}
	close(fd);
	buf[n] = '\0';
	while (n > 0 && buf[n - 1] == '\n')
		buf[--n] = '\0';
	return 0;
}

static inline long long np_read_num(const char *path)
{
	char buf[64];

	if (np_read(path, buf, sizeof(buf)))
		return -1;
	return strtoll(buf, NULL, 0);
}

/*
 * Arm injection point @name: it fires on its next @times passes (-1: every
 * pass, 0: disarmed), each time sleeping @delay_ms where the point delays.
 * 0 or -errno of the first write that failed (-ENOENT: nvme-peer was built
 * without NP_TESTS=y).
 */
static inline int np_inject(const char *name, int times, unsigned int delay_ms)
{
	char path[128];
	int ret;

	snprintf(path, sizeof(path), NP_INJECT "/%s/delay_ms", name);
	ret = np_write(path, "%u", delay_ms);
	if (ret && (ret != -ENOENT || delay_ms))
		return ret;
	snprintf(path, sizeof(path), NP_INJECT "/%s/probability", name);
	ret = np_write(path, "100");
	if (ret)
		return ret;
	snprintf(path, sizeof(path), NP_INJECT "/%s/interval", name);
	ret = np_write(path, "1");
	if (ret)
		return ret;
	/* last: it arms the point */
	snprintf(path, sizeof(path), NP_INJECT "/%s/times", name);
	return np_write(path, "%d", times);
}

static inline int np_sys(const char *fmt, ...)
{
	char cmd[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	return system(cmd);
}

static inline const char *np_topology(void)
{
	static char topo[32];

	if (!topo[0] && np_read("/np/topology", topo, sizeof(topo)))
		snprintf(topo, sizeof(topo), "switch");
	return topo;
}

/*
 * The PCI address of the @nth (from 0) device with @vendor:@device in
 * address order, or NULL.
 */
static inline const char *np_find_pci(unsigned int vendor, unsigned int device,
				      int nth)
{
	static char found[4][64];
	static int slot;
	char path[300], buf[32];
	struct dirent **names;
	char *ret = NULL;
	int i, n = scandir("/sys/bus/pci/devices", &names, NULL, alphasort);

	for (i = 0; i < n; i++) {
		const char *name = names[i]->d_name;

		if (ret || name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/vendor",
			 name);
		if (np_read(path, buf, sizeof(buf)) ||
		    strtoul(buf, NULL, 0) != vendor)
			continue;
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/device",
			 name);
		if (np_read(path, buf, sizeof(buf)) ||
		    strtoul(buf, NULL, 0) != device)
			continue;
		if (nth--)
			continue;
		ret = found[slot++ % 4];
		snprintf(ret, 64, "%.63s", name);
	}
	for (i = 0; i < n; i++)
		free(names[i]);
	if (n >= 0)
		free(names);
	return ret;
}

#define np_nvme_pci(n)	np_find_pci(0x1b36, 0x0010, n)
#define np_edu_pci()	np_find_pci(0x1234, 0x11e8, 0)
#define np_ivshmem_pci() np_find_pci(0x1af4, 0x1110, 0)

/* The nvmeN name of the controller at PCI address @pci ("" if none). */
static inline const char *np_ctrl_of(const char *pci)
{
	static char name[32];
	char path[300];
	struct dirent *d;
	DIR *dir;

	name[0] = '\0';
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/nvme", pci);
	dir = opendir(path);
	if (!dir)
		return name;
	while ((d = readdir(dir)))
		if (!strncmp(d->d_name, "nvme", 4))
			snprintf(name, sizeof(name), "%.31s", d->d_name);
	closedir(dir);
	return name;
}

/*
 * The controller the tests use, found once: the first NVMe controller's
 * name ("nvme0"), or "" when there is none (tests then SKIP).
 */
static inline const char *np_ctrl(void)
{
	static char name[32];
	const char *pci = name[0] ? NULL : np_nvme_pci(0);

	if (pci)
		snprintf(name, sizeof(name), "%s", np_ctrl_of(pci));
	return name;
}

/* A path under the controller: np_ctrl_path("%s/peer/free") and so on. */
static inline const char *np_ctrl_path(const char *fmt)
{
	static char path[4][256];
	static int n;
	char *buf = path[n++ % 4];

	snprintf(buf, sizeof(path[0]), fmt, np_ctrl());
	return buf;
}

/*
 * "/dev/nvmeXnY" of namespace @nsid of controller @ctrl ("" if none).  Y
 * is the order the namespaces were found in, not the nsid: with two
 * namespaces, nvme0n1 may be namespace 2.
 */
static inline const char *np_ns_dev(const char *ctrl, unsigned int nsid)
{
	static char dev[4][64];
	static int n;
	char *ret = dev[n++ % 4], path[300];
	struct dirent *d;
	DIR *dir = opendir("/sys/block");
	size_t len = strlen(ctrl);

	ret[0] = '\0';
	while (dir && (d = readdir(dir))) {
		if (strncmp(d->d_name, ctrl, len) || d->d_name[len] != 'n')
			continue;
		snprintf(path, sizeof(path), "/sys/block/%s/nsid", d->d_name);
		if (np_read_num(path) == nsid)
			snprintf(ret, 64, "/dev/%.58s", d->d_name);
	}
	if (dir)
		closedir(dir);
	return ret;
}

/* Its peer/ directory, namespace 1's block device, character device. */
#define np_peer()	np_ctrl_path("/sys/class/nvme/%s/peer")
#define np_bdev()	np_ns_dev(np_ctrl(), 1)
#define np_cdev()	np_ctrl_path("/dev/%s")

/* Write or read a file of peer/ ("create", "q5/policy", ...). */
#define np_peer_write(file, ...) \
	np_write(np_peer_file(file), __VA_ARGS__)
#define np_peer_num(file)	np_read_num(np_peer_file(file))

static inline const char *np_peer_file(const char *file)
{
	static char path[4][300];
	static int n;
	char *buf = path[n++ % 4];

	snprintf(buf, sizeof(path[0]), "%s/%s", np_peer(), file);
	return buf;
}

/*
 * The administrator's intents: configfs nvme-peer/<ctrl>/<name>/, one
 * attribute per value, enable written last
 * (Documentation/ABI/testing/configfs-nvme-peer).
 */
#define NP_CFS "/sys/kernel/config/nvme-peer"

static inline const char *np_cfs_path(const char *ctrl, const char *name,
				      const char *attr)
{
	/* per thread: reserve_test's threads make intents at once */
	static __thread char path[4][600];
	static __thread int n;
	char *buf = path[n++ % 4];

	snprintf(buf, sizeof(path[0]), NP_CFS "/%s%s%s%s%s", ctrl,
		 name ? "/" : "", name ? name : "", attr ? "/" : "",
		 attr ? attr : "");
	return buf;
}

/*
 * Make intent @name on @ctrl from "attr=value ..." (extents= may repeat:
 * the lists are joined) and write enable=1 last.  Return 0, or the -errno
 * of the first step that failed (mkdir, an attribute, enable), with the
 * directory removed again.
 */
static inline int np_cfs_make_v(const char *ctrl, const char *name,
				const char *fmt, va_list ap)
{
	char line[2048], ext[2048] = "", *save, *w, *eq;
	int ret = 0;

	vsnprintf(line, sizeof(line), fmt, ap);
	if (mkdir(np_cfs_path(ctrl, NULL, NULL), 0755) && errno != EEXIST)
		return -errno;
	if (mkdir(np_cfs_path(ctrl, name, NULL), 0755))
		return -errno;
	for (w = strtok_r(line, " \t\n", &save); w && !ret;
	     w = strtok_r(NULL, " \t\n", &save)) {
		eq = strchr(w, '=');
		if (!eq) {
			ret = -EINVAL;
			break;
		}
		*eq++ = '\0';
		if (!strcmp(w, "extents"))
			snprintf(ext + strlen(ext), sizeof(ext) - strlen(ext),
				 "%s%s", ext[0] ? "," : "", eq);
		else
			ret = np_write(np_cfs_path(ctrl, name, w), "%s", eq);
	}
	if (!ret && ext[0])
		ret = np_write(np_cfs_path(ctrl, name, "extents"), "%s", ext);
	if (!ret)
		ret = np_write(np_cfs_path(ctrl, name, "enable"), "1");
	if (ret)
		rmdir(np_cfs_path(ctrl, name, NULL));
	return ret;
}

static inline int np_cfs_make(const char *ctrl, const char *name,
			      const char *fmt, ...)
{
	va_list ap;
	int ret;

	va_start(ap, fmt);
	ret = np_cfs_make_v(ctrl, name, fmt, ap);
	va_end(ap);
	return ret;
}

/* rmdir intent @name of @ctrl (its reservation is released): 0 or -errno. */
static inline int np_cfs_remove(const char *ctrl, const char *name)
{
	return rmdir(np_cfs_path(ctrl, name, NULL)) ? -errno : 0;
}

/* np_cfs_make() on @ctrl with a name of its own (t<pid>-<n>). */
static inline int np_admin_create_on(const char *ctrl, const char *fmt, ...)
{
	static int seq;
	char line[2048], name[32];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	snprintf(name, sizeof(name), "t%d-%d", getpid(),
		 __atomic_add_fetch(&seq, 1, __ATOMIC_RELAXED));
	return np_cfs_make(ctrl, name, "%s", line);
}

/*
 * Remove the intent whose reservation holds @qid on @ctrl (sysfs qN/name
 * names it): 0, or -ENOENT when no administrator's reservation has it.
 */
static inline int np_admin_delete_on(const char *ctrl, int qid)
{
	char path[300], name[64];

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/q%d/name", ctrl,
		 qid);
	if (np_read(path, name, sizeof(name)) || !name[0])
		return -ENOENT;
	return np_cfs_remove(ctrl, name);
}

/* configfs nvme-peer/<ctrl>/windows/: read-only windows' intents */
#define NP_CFS_WIN	"windows"

/* Remove every intent in directory @dir of @ctrl ("" or NP_CFS_WIN). */
static inline void np_cfs_clear_in(const char *ctrl, const char *dir)
{
	char path[300], name[300];
	struct dirent *d;
	DIR *dp;

	snprintf(path, sizeof(path), "%s%s%s", np_cfs_path(ctrl, NULL, NULL),
		 dir[0] ? "/" : "", dir);
	dp = opendir(path);
	while (dp && (d = readdir(dp))) {
		if (d->d_type != DT_DIR || d->d_name[0] == '.' ||
		    (!dir[0] && !strcmp(d->d_name, NP_CFS_WIN)))
			continue;
		snprintf(name, sizeof(name), "%s%s%s", dir, dir[0] ? "/" : "",
			 d->d_name);
		np_cfs_remove(ctrl, name);
	}
	if (dp)
		closedir(dp);
}

/*
 * Remove every intent of @ctrl, windows' too, and its directory (test
 * cleanup): any directory left in nvme-peer/ keeps the module from
 * unloading.
 */
static inline void np_cfs_clear(const char *ctrl)
{
	np_cfs_clear_in(ctrl, NP_CFS_WIN);
	np_cfs_clear_in(ctrl, "");
	rmdir(np_cfs_path(ctrl, NULL, NULL));
}

/* Read attribute @attr of intent @name of @ctrl into @buf. */
static inline int np_cfs_read(const char *ctrl, const char *name,
			      const char *attr, char *buf, size_t len)
{
	return np_read(np_cfs_path(ctrl, name, attr), buf, len);
}

#define np_admin_create(...)	np_admin_create_on(np_ctrl(), __VA_ARGS__)
#define np_admin_delete(qid)	np_admin_delete_on(np_ctrl(), qid)

/*
 * Why a test that needs nvme-peer and its controller cannot run here, or
 * NULL: tests SKIP with this reason.
 */
static inline const char *np_missing(void)
{
	if (access("/dev/nvme-peer", F_OK))
		return "nvme-peer is not loaded";
	if (!np_ctrl()[0] || access(np_peer(), F_OK))
		return "no controller with peer queues";
	return NULL;
}

#ifdef _UAPI_LINUX_NVME_PEER_H
/* NVME_PEER_IOC_QUERY into @info; 0 or -errno. */
static inline int np_query(int fd, struct nvme_peer_info *info)
{
	memset(info, 0, sizeof(*info));
	info->size = sizeof(*info);
	return ioctl(fd, NVME_PEER_IOC_QUERY, info) ? -errno : 0;
}
#endif

/* Wait up to @secs for @path to read @want. */
static inline int np_wait_for(const char *path, const char *want, int secs)
{
	char buf[64];
	int i;

	for (i = 0; i < secs * 10; i++) {
		if (!np_read(path, buf, sizeof(buf)) && !strcmp(buf, want))
			return 0;
		usleep(100000);
	}
	return -ETIMEDOUT;
}

/* Aligned O_DIRECT block I/O on @dev. */
static inline int np_blk_io(const char *dev, int write_it, off_t off,
			    void *buf, size_t len)
{
	int fd = open(dev, O_RDWR | O_DIRECT);
	ssize_t n;

	if (fd < 0)
		return -errno;
	n = write_it ? pwrite(fd, buf, len, off) : pread(fd, buf, len, off);
	if (n != (ssize_t)len)
		n = n < 0 ? -errno : -EIO;
	else
		n = 0;
	if (write_it && !n && fsync(fd))
		n = -errno;
	close(fd);
	return n;
}

static inline void *np_aligned(size_t len)
{
	void *p = NULL;

	if (posix_memalign(&p, 4096, len))
		return NULL;
	return p;
}

static inline void np_fill(void *buf, size_t len, unsigned int seed)
{
	unsigned char *p = buf;
	size_t i;

	for (i = 0; i < len; i++) {
		seed = seed * 1103515245 + 12345;
		p[i] = seed >> 16;
	}
}

/* Raise (@on) or lower @cap in the effective set; 0 or -errno. */
static inline int np_cap_set(int cap, int on)
{
	struct __user_cap_header_struct h = {
		.version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct d[2];

	if (syscall(SYS_capget, &h, d))
		return -errno;
	if (on)
		d[cap / 32].effective |= 1U << (cap % 32);
	else
		d[cap / 32].effective &= ~(1U << (cap % 32));
	return syscall(SYS_capset, &h, d) ? -errno : 0;
}

/* The highest qid np-client holds, or -1. */
static inline int np_client_last_qid(void)
{
	char buf[1024], *l = buf;
	int qid = -1, q;

	if (np_read(NP_DBG_CLIENT "/status", buf, sizeof(buf)))
		return -1;
	while ((l = strstr(l, "qid=")) && sscanf(l, "qid=%d", &q) == 1) {
		qid = q > qid ? q : qid;
		l += 4;
	}
	return qid;
}

/* np-client's status line for @qid, or -ENOENT. */
static inline int np_client_line(int qid, char *line, size_t len)
{
	char buf[8192], key[32], *l, *save;

	if (np_read(NP_DBG_CLIENT "/status", buf, sizeof(buf)))
		return -EIO;
	snprintf(key, sizeof(key), "qid=%d ", qid);
	for (l = strtok_r(buf, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		if (!strncmp(l, key, strlen(key))) {
			snprintf(line, len, "%s", l);
			return 0;
		}
	}
	return -ENOENT;
}

#endif /* NP_UTIL_H */
