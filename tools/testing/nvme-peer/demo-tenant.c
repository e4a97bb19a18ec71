// SPDX-License-Identifier: GPL-2.0
/*
 * demo-tenant: the tenant of `make demo` (demo-guest.sh), a process that
 * uses a queue an administrator provisioned in configfs, by its name.
 *
 *   demo-tenant CTRL NAME SLBA READY
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
 * written through the old one, 1 otherwise.  Built by the selftests'
 * Makefile (it uses their helpers), which vm-run copies into the VM.
 */
#define _GNU_SOURCE
#include <poll.h>
#include <linux/nvme_peer.h>

#include "np_util.h"
#include "nvme-peer/nvme_peer_queue.h"
#include "np_queue.h"

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

	if (argc != 5 || strncmp(argv[1], "nvme", 4)) {
		fprintf(stderr, "usage: demo-tenant CTRL NAME SLBA READY\n");
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
