// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer's test doors (CONFIG_NVME_PEER_FAULT_INJECTION, make
 * NP_TESTS=y), all of them, in debugfs nvme-peer/: the fault points below,
 * the sriov door (secondary controllers by hand) and the isolated
 * listing (its tenants).  A production build has none of this file.
 *
 * Fault injection makes
 * events QEMU cannot produce at a chosen instant, through the kernel's
 * fault injection framework (should_fail(), Documentation/fault-injection/).
 * Each point is a directory under debugfs nvme-peer/ with the framework's
 * files (probability, interval, times, verbose, ...); a point fires when
 * should_fail() says so: probability 100 and times N make the next N
 * passes fire, times -1 every pass, times 0 (the default) none.  Delays are an extra
 * file delay_ms in the point's directory.  The list, with the tests that
 * use each point, is in Documentation/nvme/peer-testing.rst:
 *
 *   reset_before_create  a Create of a hardware queue first resets the
 *                        controller and waits for it to come back, as if
 *                        a reset raced the reservation
 *   fail_delete          a Delete SQ/CQ command fails as if the controller
 *                        had refused it (not sent)
 *   fail_create          a Create I/O CQ/SQ command fails the same way
 *   fail_detach          a Namespace Attachment that detaches fails the
 *                        same way (isolated mode's teardown, its check
 *                        before a VF is handed out)
 *   lease_return_delay   after giving a layout lease back, wait delay_ms,
 *                        as a preempted work item would: the breaker
 *                        returns meanwhile
 *   med_free_delay       the mediation teardown waits delay_ms between taking a
 *                        queue's mediation state away and freeing it, as a
 *                        preempted release would: a fence draining the
 *                        queue meanwhile must not read it
 *   down_delay           a DOWN event waits delay_ms after it revoked the
 *                        controller's queues, holding nvme-pci's shutdown
 *                        lock: the controller stays mid-reset (not live,
 *                        not disabled yet) that long
 *   drain_read_delay     a fence's drain, having taken a queue's mediation
 *                        state to read its hardware CQ, waits delay_ms
 *                        before reading it, as a preempted drain would: a
 *                        release meanwhile must not free what it reads
 *   poller_stall         a pass of poller id (file id) sleeps delay_ms
 *                        holding the poller's lock, as a pass stuck on a
 *                        read of a stalled peer BAR would; stalling reads
 *                        Y meanwhile
 *   cfs_drop_delay       an rmdir of an intent waits delay_ms after
 *                        configfs unlinked its directory and before the
 *                        intent leaves nvme-peer's list, as a preempted
 *                        rmdir would: controller events meanwhile still
 *                        find it
 *   ns_settling          the namespace check of a reservation fails
 *                        -EAGAIN as while a Format settles, on a live
 *                        controller
 *   teardown_delay       an isolated tenant's teardown waits delay_ms
 *                        before it takes the VF down, as one stuck on an
 *                        admin command would: an unload meanwhile gives
 *                        the primaries up after its bound
 *   free_work_delay      a controller's settling of released reservations
 *                        (np_free_work()) waits delay_ms before it
 *                        starts, as a preempted work would: a removal
 *                        meanwhile waits for it from nvme-pci's workqueue
 *   pmr_enable_delay     after a reset, the work that enables the window
 *                        provider's PMR again waits delay_ms before it
 *                        does, as a preempted work would: a window asked
 *                        for meanwhile must not show the disabled PMR
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/fault-inject.h>
#include <linux/nvme.h>
#include <linux/pci.h>
#include <linux/seq_file.h>

#include "nvme-peer.h"

/* one injection point: the framework's attributes and a delay */
struct np_fault {
	const char *name;
	struct fault_attr attr;
	u32 delay_ms;
};

enum {
	NP_F_RESET_BEFORE_CREATE,
	NP_F_FAIL_DELETE,
	NP_F_FAIL_CREATE,
	NP_F_FAIL_DETACH,
	NP_F_LEASE_RETURN_DELAY,
	NP_F_MED_FREE_DELAY,
	NP_F_DOWN_DELAY,
	NP_F_DRAIN_READ_DELAY,
	NP_F_POLLER_STALL,
	NP_F_CFS_DROP_DELAY,
	NP_F_NS_SETTLING,
	NP_F_TEARDOWN_DELAY,
	NP_F_FREE_WORK_DELAY,
	NP_F_PMR_ENABLE_DELAY,
	NP_F_NR
};

static struct np_fault np_faults[NP_F_NR] = {
	[NP_F_RESET_BEFORE_CREATE] = { "reset_before_create", FAULT_ATTR_INITIALIZER },
	[NP_F_FAIL_DELETE]	   = { "fail_delete", FAULT_ATTR_INITIALIZER },
	[NP_F_FAIL_CREATE]	   = { "fail_create", FAULT_ATTR_INITIALIZER },
	[NP_F_FAIL_DETACH]	   = { "fail_detach", FAULT_ATTR_INITIALIZER },
	[NP_F_LEASE_RETURN_DELAY]  = { "lease_return_delay", FAULT_ATTR_INITIALIZER },
	[NP_F_MED_FREE_DELAY]	   = { "med_free_delay", FAULT_ATTR_INITIALIZER },
	[NP_F_DOWN_DELAY]	   = { "down_delay", FAULT_ATTR_INITIALIZER },
	[NP_F_DRAIN_READ_DELAY]	   = { "drain_read_delay", FAULT_ATTR_INITIALIZER },
	[NP_F_POLLER_STALL]	   = { "poller_stall", FAULT_ATTR_INITIALIZER },
	[NP_F_CFS_DROP_DELAY]	   = { "cfs_drop_delay", FAULT_ATTR_INITIALIZER },
	[NP_F_NS_SETTLING]	   = { "ns_settling", FAULT_ATTR_INITIALIZER },
	[NP_F_TEARDOWN_DELAY]	   = { "teardown_delay", FAULT_ATTR_INITIALIZER },
	[NP_F_FREE_WORK_DELAY]	   = { "free_work_delay", FAULT_ATTR_INITIALIZER },
	[NP_F_PMR_ENABLE_DELAY]	   = { "pmr_enable_delay", FAULT_ATTR_INITIALIZER },
};

static u32 np_stall_id;
static bool np_stalling;
static struct dentry *np_inject_dir;

static bool np_fail(int point)
{
	return should_fail(&np_faults[point].attr, 1);
}

/* The point's delay_ms if it fires, else 0. */
static u32 np_fail_ms(int point)
{
	return np_fail(point) ? READ_ONCE(np_faults[point].delay_ms) : 0;
}

static void np_fail_delay(int point)
{
	u32 ms = np_fail_ms(point);

	if (ms)
		msleep(ms);
}

/* Whether this Create is to be preceded by a reset (the caller does it). */
bool np_inject_reset(void)
{
	return np_fail(NP_F_RESET_BEFORE_CREATE);
}

int np_inject_admin_error(const struct nvme_command *c)
{
	if ((c->common.opcode == nvme_admin_delete_sq ||
	     c->common.opcode == nvme_admin_delete_cq) &&
	    np_fail(NP_F_FAIL_DELETE))
		return NVME_SC_INTERNAL;
	if ((c->common.opcode == nvme_admin_create_sq ||
	     c->common.opcode == nvme_admin_create_cq) &&
	    np_fail(NP_F_FAIL_CREATE))
		return NVME_SC_INTERNAL;
	/* SEL 1: detach */
	if (c->common.opcode == nvme_admin_ns_attach &&
	    (le32_to_cpu(c->common.cdw10) & 0xf) == 1 &&
	    np_fail(NP_F_FAIL_DETACH))
		return NVME_SC_INTERNAL;
	return 0;
}

void np_inject_lease_returned(void)
{
	np_fail_delay(NP_F_LEASE_RETURN_DELAY);
}

void np_inject_med_free(void)
{
	np_fail_delay(NP_F_MED_FREE_DELAY);
}

void np_inject_poller_stall(unsigned int id)
{
	u32 ms;

	if (READ_ONCE(np_stall_id) != id)
		return;
	ms = np_fail_ms(NP_F_POLLER_STALL);
	if (!ms)
		return;
	WRITE_ONCE(np_stalling, true);
	msleep(ms);
	WRITE_ONCE(np_stalling, false);
}

void np_inject_down(void)
{
	np_fail_delay(NP_F_DOWN_DELAY);
}

void np_inject_drain_read(void)
{
	np_fail_delay(NP_F_DRAIN_READ_DELAY);
}

void np_inject_cfs_drop(void)
{
	np_fail_delay(NP_F_CFS_DROP_DELAY);
}

bool np_inject_ns_settling(void)
{
	return np_fail(NP_F_NS_SETTLING);
}

void np_inject_teardown(void)
{
	np_fail_delay(NP_F_TEARDOWN_DELAY);
}

void np_inject_free_work(void)
{
	np_fail_delay(NP_F_FREE_WORK_DELAY);
}

void np_inject_pmr_enable(void)
{
	np_fail_delay(NP_F_PMR_ENABLE_DELAY);
}

/* ---- the sriov door ------------------------------------------------------ */

/*
 * The sriov door (debugfs nvme-peer/sriov): secondary controllers by hand.
 * Reading lists, for every controller with
 * Virtualization Management, its capabilities and secondary controllers.
 * Writing runs one command on controller nvmeCTRL:
 *
 *   enable CTRL NR_VFS            np_sriov_enable()
 *   disable CTRL                  np_sriov_disable()
 *   provision CTRL VFN NSID NVQ NVI
 *   unprovision CTRL VFN NSID
 *   attach|detach CTRL NSID CNTLID   Namespace Attachment
 *   attached CTRL CNTLID          np_sriov_attached(): a mask of NSIDs
 *   virt CTRL ACT RT CNTLID NR    Virtualization Management as given
 *
 * The write fails with the command's errno; sriov_status holds the NVMe
 * status (0 for none) of the last attach, detach or virt, or the mask of
 * the NSIDs below 32 the last attached found.
 */
static u32 np_sriov_status;

static int np_sriov_show(struct seq_file *m, void *v)
{
	struct nvme_peer_ctrl *pctrl;
	struct np_sriov_sec *sec;
	struct np_sriov_caps caps;
	unsigned long i = 0;
	int j, n;

	sec = kcalloc(NP_SRIOV_MAX_SECONDARY, sizeof(*sec), GFP_KERNEL);
	if (!sec)
		return -ENOMEM;
	while ((pctrl = np_ctrl_next(&i))) {
		if (!np_sriov_caps(pctrl, &caps)) {
			seq_printf(m, "%s cntlid %u vfs %u/%u vq %u/%u private %u max %u vi %u/%u private %u max %u\n",
				   pctrl->name, caps.cntlid,
				   pci_num_vf(pctrl->info.pdev),
				   caps.total_vfs, caps.vqrfa, caps.vqfrt,
				   caps.vqprt, caps.vqfrsm, caps.virfa,
				   caps.vifrt, caps.viprt, caps.vifrsm);
			n = np_sriov_list(pctrl, sec, NP_SRIOV_MAX_SECONDARY);
			for (j = 0; j < n; j++)
				seq_printf(m, "%s sec cntlid %u pcid %u vfn %u %s vq %u vi %u\n",
					   pctrl->name, sec[j].cntlid,
					   sec[j].pcid, sec[j].vfn,
					   sec[j].online ? "online" : "offline",
					   sec[j].nvq, sec[j].nvi);
		}
		nvme_peer_ctrl_put(pctrl);
	}
	kfree(sec);
	return 0;
}

static int np_sriov_open(struct inode *inode, struct file *file)
{
	return single_open(file, np_sriov_show, NULL);
}

/* sriov_status: the NSIDs below 32 attached to controller @cntlid, a mask */
static int np_sriov_door_attached(struct nvme_peer_ctrl *pctrl, u16 cntlid)
{
	u32 *att, mask = 0;
	int i, n;

	att = kcalloc(NP_SRIOV_MAX_ATTACHED, sizeof(*att), GFP_KERNEL);
	if (!att)
		return -ENOMEM;
	n = np_sriov_attached(pctrl, cntlid, att);
	for (i = 0; i < min(n, NP_SRIOV_MAX_ATTACHED); i++)
		if (att[i] < 32)
			mask |= BIT(att[i]);
	kfree(att);
	np_sriov_status = mask;
	return min(n, 0);
}

static int np_sriov_run(struct nvme_peer_ctrl *pctrl, const char *cmd,
			const u32 *a, int n)
{
	u16 cntlid;
	int ret;

	if (!strcmp(cmd, "enable") && n == 1)
		return np_sriov_enable(pctrl, a[0]);
	if (!strcmp(cmd, "disable") && n == 0) {
		np_sriov_disable(pctrl);
		return 0;
	}
	if (!strcmp(cmd, "provision") && n == 4)
		return np_sriov_provision(pctrl, a[0], a[1], a[2], a[3],
					  &cntlid);
	if (!strcmp(cmd, "unprovision") && n == 2)
		return np_sriov_unprovision(pctrl, a[0], a[1]);
	if (!strcmp(cmd, "attached") && n == 1)
		return np_sriov_door_attached(pctrl, a[0]);
	if ((!strcmp(cmd, "attach") || !strcmp(cmd, "detach")) && n == 2)
		ret = np_sriov_ns_attach(pctrl, a[0], a[1], cmd[0] == 'a');
	else if (!strcmp(cmd, "virt") && n == 4)
		ret = np_sriov_virt_mgmt(pctrl, a[0], a[1], a[2], a[3]);
	else
		return -EINVAL;
	np_sriov_status = ret > 0 ? ret : 0;
	return np_sriov_errno(ret);
}

static ssize_t np_sriov_write(struct file *file, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	struct nvme_peer_ctrl *pctrl;
	char buf[96], cmd[16];
	u32 ctrl, a[4];
	int n, ret;

	if (len >= sizeof(buf))
		return -EINVAL;
	if (copy_from_user(buf, ubuf, len))
		return -EFAULT;
	buf[len] = 0;
	n = sscanf(buf, "%15s %u %u %u %u %u", cmd, &ctrl, &a[0], &a[1],
		   &a[2], &a[3]);
	if (n < 2)
		return -EINVAL;
	pctrl = np_ctrl_get_by_instance(ctrl);
	if (!pctrl)
		return -ENODEV;
	ret = np_sriov_run(pctrl, cmd, a, n - 2);
	nvme_peer_ctrl_put(pctrl);
	return ret ? ret : len;
}

static const struct file_operations np_sriov_fops = {
	.owner = THIS_MODULE,
	.open = np_sriov_open,
	.read = seq_read,
	.llseek = seq_lseek,
	.release = single_release,
	.write = np_sriov_write,
};

/* ---- the isolated listing (debugfs nvme-peer/isolated) ---------------- */

static int np_iso_door_show(struct seq_file *m, void *v)
{
	np_iso_show_tenants(m);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(np_iso_door);

void np_inject_init(void)
{
	struct dentry *dir;
	int i;

	np_inject_dir = debugfs_create_dir("nvme-peer", NULL);
	for (i = 0; i < NP_F_NR; i++) {
		struct np_fault *f = &np_faults[i];

		/* off until a test arms it; a message, no stack dump, when it fires */
		atomic_set(&f->attr.times, 0);
		f->attr.verbose = 1;
		dir = fault_create_debugfs_attr(f->name, np_inject_dir, &f->attr);
		if (IS_ERR(dir))
			continue;
		if (i >= NP_F_LEASE_RETURN_DELAY && i != NP_F_NS_SETTLING)
			debugfs_create_u32("delay_ms", 0600, dir, &f->delay_ms);
		if (i == NP_F_POLLER_STALL) {
			debugfs_create_u32("id", 0600, dir, &np_stall_id);
			debugfs_create_bool("stalling", 0400, dir, &np_stalling);
		}
	}
	debugfs_create_file("sriov", 0600, np_inject_dir, NULL, &np_sriov_fops);
	debugfs_create_u32("sriov_status", 0400, np_inject_dir,
			   &np_sriov_status);
	debugfs_create_file("isolated", 0400, np_inject_dir, NULL,
			    &np_iso_door_fops);
}

void np_inject_exit(void)
{
	debugfs_remove_recursive(np_inject_dir);
}
