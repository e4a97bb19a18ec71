// SPDX-License-Identifier: GPL-2.0
/*
 * demo-tenant: the tenant of `make demo` (demo-guest.sh), a process that
 * uses a queue an administrator provisioned in configfs, by its name.
 *
 *   demo-tenant CTRL NAME SLBA READY
 *   demo-tenant --window CTRL UID FILE OUT
 *
 * Attaches to intent NAME of controller CTRL (nvmeN; NVME_PEER_IOC_ATTACH,
 * NVME_PEER_ATTACH_BY_NAME), writes 8 LBAs of a
 * pattern at SLBA of namespace 1 through its mmapped queues, creates the
 * file READY and waits (60 s at most) for the revocation (POLLERR).  Then
 * it waits for the intent to be active again, attaches by name once more,
 * reads the 8 LBAs back through the new queue and compares.  Each step is
 * one line on stdout; the last is "tenant: qid A gen G -> qid B gen H
 * reason R status S match yes|no".
 *
 * Exit: 0 when the data read back through the new reservation is the data
 * written through the old one, 1 otherwise.
 *
 * --window: the read-only window's tenant.  Opens OUT.read and OUT.window,
 * becomes user UID (group UID, no other groups), writes FILE (1 MiB of a
 * pattern with a hole punched at 512-768 KiB) on namespace 2 of CTRL,
 * which CTRL's PMR mirrors, and asks for a window of all of it
 * (NVME_PEER_IOC_WINDOW, NVME_PEER_WINDOW_FILE).  It writes the first
 * 512 KiB as read(2) reads them to OUT.read and as loads through the
 * window see them to OUT.window (the caller compares their md5), loads a
 * byte of the hole, truncates FILE to 256 KiB and loads again.  The last
 * line is "window: equal yes|no hole SIGBUS|read reason R after
 * SIGBUS|read us U" (U: the microseconds ftruncate() took); exit 0 when
 * the bytes are equal, both loads fault and the reason is layout.
 *
 * Built by the selftests' Makefile (it uses their helpers), which vm-run
 * copies into the VM.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <grp.h>
#include <time.h>
#include <sys/mman.h>
#include <linux/falloc.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "np_queue.h"
#include "np_file.h"
#include "np_window.h"

#define SEED	2205
#define LEN	4096

static const char * const reasons[] = {
	"none", "release", "admin", "reset", "ctrl-down", "removed", "unload",
	"namespace", "peer-removed", "layout", "moved",
};

static const char *ctrl;

static int by_name(const char *name, struct np_map *m, char *gen, size_t len)
{
	struct nvme_peer_attach a = {
		.size = sizeof(a), .flags = NVME_PEER_ATTACH_BY_NAME,
		.ctrl = strtoul(ctrl + 4, NULL, 10),		/* nvmeN */
	};
	char path[160];
	int fd = open("/dev/nvme-peer", O_RDWR | O_CLOEXEC);

	snprintf(a.name, sizeof(a.name), "%s", name);
	if (fd < 0 || ioctl(fd, NVME_PEER_IOC_ATTACH, &a) ||
	    np_map_all(fd, m, 1)) {
		printf("   attach by name %s: %s\n", name, strerror(errno));
		exit(1);
	}
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/q%u/generation",
		 ctrl, m->info.qid);
	if (np_read(path, gen, len))
		snprintf(gen, len, "?");
	return fd;
}

static const char *reason(__u32 r)
{
	return r < ARRAY_SIZE(reasons) ? reasons[r] : "?";
}

#define WIN_LEN		MIB
#define WIN_HOLE	(MIB / 2)	/* the hole: 512 KiB .. 768 KiB */
#define WIN_HOLE_LEN	(MIB / 4)
#define WIN_CUT		(MIB / 4)	/* truncated to */

/* Open @out.@ext for writing: its fd, or exit. */
static int out_open(const char *out, const char *ext)
{
	char path[160];
	int fd;

	snprintf(path, sizeof(path), "%s.%s", out, ext);
	fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		printf("   %s: %s\n", path, strerror(errno));
		exit(1);
	}
	return fd;
}

static int window_tenant(const char *uid_arg, const char *path, const char *out)
{
	unsigned int uid = strtoul(uid_arg, NULL, 10);
	int rd = out_open(out, "read"), wr = out_open(out, "window");
	struct nvme_peer_window_req r;
	struct nvme_peer_info info;
	struct timespec t0, t1;
	struct pollfd pfd;
	unsigned char *v, *buf, got, zero = 1;
	int file, fd, equal, hole, after;
	long us;
	char dir[64], *base;

	if (setgroups(0, NULL) || setgid(uid) || setuid(uid)) {
		printf("   becoming uid %u: %s\n", uid, strerror(errno));
		return 1;
	}
	/* np_mkfile_at(DIR, NAME): @path split at its last slash */
	snprintf(dir, sizeof(dir), "%s", path);
	base = strrchr(dir, '/');
	if (!base)
		return 2;
	*base++ = 0;
	file = np_mkfile_at(dir, base, WIN_LEN, 33);
	if (file < 0 || fallocate(file, FALLOC_FL_PUNCH_HOLE |
				  FALLOC_FL_KEEP_SIZE, WIN_HOLE,
				  WIN_HOLE_LEN) || fsync(file) ||
	    pread(file, &zero, 1, WIN_HOLE) != 1) {
		printf("   writing %s as uid %u: %s\n", path, uid,
		       strerror(errno));
		return 1;
	}
	printf("   uid %u writes %s: %d bytes,", getuid(), path, WIN_LEN);
	printf(" a hole punched at %d-%d (read(2) there: 0x%02x)\n", WIN_HOLE,
	       WIN_HOLE + WIN_HOLE_LEN - 1, zero);
	fd = np_window_on(ctrl, FS_NS, &r, NVME_PEER_WINDOW_FILE, NULL, 0,
			  file, 0, WIN_LEN);
	v = fd < 0 ? MAP_FAILED : mmap(NULL, r.view_size, PROT_READ,
				       MAP_SHARED, fd, r.mmap_off);
	if (v == MAP_FAILED) {
		printf("   WINDOW of %s: %s\n", path,
		       strerror(fd < 0 ? -fd : errno));
		return 1;
	}
	printf("   NVME_PEER_IOC_WINDOW of its bytes 0-%d (no capability):",
	       WIN_LEN - 1);
	printf(" view_size %llu, mmap read only at %#llx\n",
	       (unsigned long long)r.view_size, (unsigned long long)r.mmap_off);
	/* the first run: by read(2), and by loads into a buffer of its own */
	buf = malloc(2 * WIN_HOLE);
	if (!buf || pread(file, buf, WIN_HOLE, 0) != WIN_HOLE) {
		printf("   read(2) of bytes 0-%d: %s\n", WIN_HOLE - 1,
		       strerror(errno));
		return 1;
	}
	memcpy(buf + WIN_HOLE, v, WIN_HOLE);
	if (write(rd, buf, WIN_HOLE) != WIN_HOLE ||
	    write(wr, buf + WIN_HOLE, WIN_HOLE) != WIN_HOLE) {
		printf("   writing %s.*: %s\n", out, strerror(errno));
		return 1;
	}
	equal = !memcmp(buf, buf + WIN_HOLE, WIN_HOLE);
	hole = np_load(v + WIN_HOLE, &got);
	printf("   a load at byte %d (the hole): %s\n", WIN_HOLE,
	       hole ? "SIGBUS, refused" : "NOT refused");
	fflush(stdout);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (ftruncate(file, WIN_CUT)) {
		printf("   ftruncate: %s\n", strerror(errno));
		return 1;
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	us = (t1.tv_sec - t0.tv_sec) * 1000000 +
	     (t1.tv_nsec - t0.tv_nsec) / 1000;
	/* revoked before ftruncate returned: poll with no wait */
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI };
	if (poll(&pfd, 1, 0) < 0 || np_query(fd, &info)) {
		printf("   poll or QUERY: %s\n", strerror(errno));
		return 1;
	}
	printf("   ftruncate to %d bytes: returned after %ld us;", WIN_CUT, us);
	printf(" at once poll: %s; QUERY: state %s, reason %s\n",
	       pfd.revents & POLLERR ? "POLLERR" : "no POLLERR",
	       info.state == NVME_PEER_STATE_REVOKED ? "revoked" : "active",
	       reason(info.reason));
	after = np_load(v, &got);
	printf("   a load at byte 0 of the old mapping (still in the file): %s\n",
	       after ? "SIGBUS" : "NOT refused");
	printf("window: equal %s hole %s reason %s after %s us %ld\n",
	       equal ? "yes" : "no", hole ? "SIGBUS" : "read",
	       reason(info.reason), after ? "SIGBUS" : "read", us);
	munmap(v, r.view_size);
	close(fd);
	close(file);
	free(buf);
	return !(equal && hole && after &&
		 info.reason == NVME_PEER_REASON_LAYOUT);
}

int main(int argc, char **argv)
{
	const char *name;
	struct nvme_peer_info info;
	char gen1[16], gen2[16], want[LEN], buf[64];
	struct pollfd pfd;
	unsigned int qid1;
	unsigned long long slba;
	struct np_map m;
	int fd, st, i;

	if (argc == 6 && !strcmp(argv[1], "--window") &&
	    !strncmp(argv[2], "nvme", 4)) {
		ctrl = argv[2];
		return window_tenant(argv[3], argv[4], argv[5]);
	}
	if (argc != 5 || strncmp(argv[1], "nvme", 4)) {
		fprintf(stderr, "usage: demo-tenant CTRL NAME SLBA READY\n"
			"       demo-tenant --window CTRL UID FILE OUT\n");
		return 2;
	}
	ctrl = argv[1];
	name = argv[2];
	slba = strtoull(argv[3], NULL, 0);

	fd = by_name(name, &m, gen1, sizeof(gen1));
	qid1 = m.info.qid;
	np_fill(want, LEN, SEED);
	memcpy(m.data, want, LEN);
	st = np_cmd(fd, &m, 0x01, slba, LEN / 512);
	printf("   attached by name \"%s\": qid %u, generation %s\n",
	       name, qid1, gen1);
	printf("   Write of LBAs %llu-%llu: status %#x\n", slba,
	       slba + LEN / 512 - 1, st);
	fflush(stdout);
	if (st)
		return 1;

	close(open(argv[4], O_WRONLY | O_CREAT, 0644));
	pfd = (struct pollfd){ .fd = fd, .events = POLLPRI };
	if (poll(&pfd, 1, 60000) != 1 || np_query(fd, &info)) {
		printf("   no revocation within 60 s\n");
		return 1;
	}
	printf("   poll: %s; QUERY: state %s, reason %s\n",
	       pfd.revents & POLLERR ? "POLLERR" : "no POLLERR",
	       info.state == NVME_PEER_STATE_REVOKED ? "revoked" : "active",
	       reason(info.reason));
	np_unmap_all(&m);
	close(fd);

	/* the intent reserves its next generation once the controller is live */
	for (i = 0; i < 300; i++) {
		if (!np_read(np_cfs_path(ctrl, name, "state"), buf, sizeof(buf)) &&
		    !strcmp(buf, "active") &&
		    !np_read(np_cfs_path(ctrl, name, "generation"), buf,
			     sizeof(buf)) && strcmp(buf, gen1))
			break;
		usleep(100000);
	}
	fd = by_name(name, &m, gen2, sizeof(gen2));
	memset(m.data, 0, LEN);
	st = np_cmd(fd, &m, 0x02, slba, LEN / 512);
	i = !st && !memcmp(m.data, want, LEN);
	printf("   attached by name again: qid %u, generation %s\n", m.info.qid,
	       gen2);
	printf("   Read of LBAs %llu-%llu: status %#x, %s\n", slba,
	       slba + LEN / 512 - 1, st,
	       i ? "the 4096 bytes written before the reset" :
		   "NOT the bytes written before the reset");
	printf("tenant: qid %u gen %s -> qid %u gen %s reason %s status %#x match %s\n",
	       qid1, gen1, m.info.qid, gen2, reason(info.reason), st,
	       i ? "yes" : "no");
	np_unmap_all(&m);
	close(fd);
	return !i;
}
