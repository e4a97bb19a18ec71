/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Secondary controllers in the test VM (topologies sriov, sriov-iommu):
 * the test door debugfs nvme-peer/sriov, the Secondary Controller List it
 * prints, VFs and their controllers.  For sriov_test and isolated_test.
 */
#ifndef NP_SRIOV_H
#define NP_SRIOV_H

#include "np_util.h"

#define NP_SRIOV	NP_INJECT "/sriov"
#define NP_SRIOV_STATUS	NP_INJECT "/sriov_status"
#define NP_SC_INVALID_FIELD	0x02
#define NP_SC_INVALID_NS	0x0b
#define NP_DNR			0x4000

/*
 * The controller's refusal of a command to a namespace not attached to it:
 * QEMU 7.2 answers Invalid Field in Command for an NSID it could have
 * (1-256, and the broadcast NSID for Read and Write), Invalid Namespace or
 * Format for any other; both with Do Not Retry.
 */
static inline int np_refused_ns(int st)
{
	int sc = st & 0x7ff;

	return st > 0 && (st & NP_DNR) &&
	       (sc == NP_SC_INVALID_FIELD || sc == NP_SC_INVALID_NS);
}

/* The controller's line "nvmeX sec cntlid C pcid P vfn V ..." for VF @vfn. */
static inline int np_sec(const char *ctrl, int vfn, int *cntlid,
			 int *online, int *nvq, int *nvi)
{
	char buf[4096], *l, name[32], state[16];
	int c, p, v, q, i;

	if (np_read(NP_SRIOV, buf, sizeof(buf)))
		return -1;
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n")) {
		if (sscanf(l, "%31s sec cntlid %d pcid %d vfn %d %15s vq %d vi %d",
			   name, &c, &p, &v, state, &q, &i) != 7 ||
		    strcmp(name, ctrl) || v != vfn)
			continue;
		*cntlid = c;
		*online = !strcmp(state, "online");
		*nvq = q;
		*nvi = i;
		return 0;
	}
	return -1;
}

/* The primary's own CNTLID, from its capabilities line. */
static inline int np_primary_cntlid(const char *ctrl)
{
	char buf[4096], *l, name[32];
	int c;

	if (np_read(NP_SRIOV, buf, sizeof(buf)))
		return -1;
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		if (sscanf(l, "%31s cntlid %d vfs", name, &c) == 2 &&
		    !strcmp(name, ctrl))
			return c;
	return -1;
}

/* The nvmeN of VF @vfn (1-based) of PCI function @pf, waiting up to 20 s. */
static inline const char *np_vf_ctrl(const char *pf, int vfn)
{
	static char name[32];
	char link[300], target[300];
	ssize_t n;
	int i;

	snprintf(link, sizeof(link), "/sys/bus/pci/devices/%s/virtfn%d", pf,
		 vfn - 1);
	n = readlink(link, target, sizeof(target) - 1);
	if (n < 0)
		return "";
	target[n] = '\0';
	for (i = 0; i < 200; i++) {
		snprintf(name, sizeof(name), "%s", np_ctrl_of(strrchr(target, '/') + 1));
		if (name[0]) {
			snprintf(link, sizeof(link), "/sys/class/nvme/%s/peer/live",
				 name);
			if (!np_wait_for(link, "1", 20))
				return name;
		}
		usleep(100000);
	}
	return "";
}

/* Wait up to 10 s for controller @ctrl to show namespace @nsid. */
static inline const char *np_wait_ns(const char *ctrl, unsigned int nsid)
{
	const char *dev;
	int i, fd;

	for (i = 0; i < 100 && !np_ns_dev(ctrl, nsid)[0]; i++)
		usleep(100000);
	dev = np_ns_dev(ctrl, nsid);
	/*
	 * The node is there before the kernel has read the partition table,
	 * which holds the disk's open_mutex: an open waits for that I/O, so a
	 * test's next reset or teardown finds no host I/O of the scan on the
	 * controller (a secondary controller a primary's reset takes offline
	 * would hold it until nvme-pci's timeout).
	 */
	fd = dev[0] ? open(dev, O_RDONLY) : -1;
	if (fd >= 0)
		close(fd);
	return dev;
}

static inline int np_door(const char *fmt, const char *ctrl, int a, int b,
			  int c, int d)
{
	return np_write(NP_SRIOV, fmt, ctrl + 4, a, b, c, d);
}

/* Why a secondary controller test cannot run here, or NULL. */
static inline const char *np_sriov_missing(void)
{
	if (strcmp(np_topology(), "sriov") && strcmp(np_topology(), "sriov-iommu"))
		return "needs topology sriov";
	if (np_missing())
		return np_missing();
	if (access(NP_SRIOV, F_OK))
		return "nvme-peer built without NP_TESTS=y";
	return NULL;
}

/* The nvmeN whose serial number is @serial ("" if none). */
static inline const char *np_ctrl_by_serial(const char *serial)
{
	static char name[32];
	char path[128], buf[64];
	int i;

	for (i = 0; i < 32; i++) {
		snprintf(path, sizeof(path), "/sys/class/nvme/nvme%d/serial", i);
		if (np_read(path, buf, sizeof(buf)))
			continue;
		/* QEMU pads the serial number with spaces */
		buf[strcspn(buf, " ")] = '\0';
		if (!strcmp(buf, serial)) {
			snprintf(name, sizeof(name), "nvme%d", i);
			return name;
		}
	}
	return "";
}

/* Whether VF @vfn of @ctrl's secondary list is online (-1: not listed). */
static inline int np_sec_online(const char *ctrl, int vfn)
{
	int cntlid, online, nvq, nvi;

	if (np_sec(ctrl, vfn, &cntlid, &online, &nvq, &nvi))
		return -1;
	return online;
}

/* Isolated mode's tenants of @ctrl (active or being torn down). */
static inline int np_tenants(const char *ctrl)
{
	char buf[4096], *l, name[32];
	int n = 0, v;

	if (np_read(NP_INJECT "/isolated", buf, sizeof(buf)))
		return -1;
	for (l = strtok(buf, "\n"); l; l = strtok(NULL, "\n"))
		n += sscanf(l, "%31s tenant vfn %d", name, &v) == 2 &&
		     !strcmp(name, ctrl);
	return n;
}

#endif /* NP_SRIOV_H */
