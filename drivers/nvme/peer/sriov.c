// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: secondary controllers (SR-IOV virtual functions) of a primary
 * controller, provisioned through the primary's admin queue -- the
 * foundation of isolated mode (issue 23).  Identify Primary Controller
 * Capabilities and Secondary Controller List say what there is; Virtualization
 * Management assigns flexible queue and interrupt resources to a secondary
 * controller and takes it online or offline; Namespace Attachment attaches
 * exactly the tenant's namespace to it; pci_enable_sriov() creates the VFs.
 *
 * The admin commands go the way admin.c sends its own (np_admin_cmd(): only
 * while the primary is live), so the hook patch is unchanged.  A VF is
 * held back from every driver (driver_override) from the moment it appears
 * until it is online with its namespace: nvme-pci would otherwise probe an
 * offline controller, which never becomes ready.  Once online, nvme-pci
 * binds it like any controller (the override then names nvme-pci: no
 * other driver may take it), and with peer_queues it becomes an
 * nvme-peer controller of its own.  Here is decided only how a secondary
 * controller is brought up and down; who may use it is isolated mode's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/device.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "nvme-peer.h"

/* Identify CNS values (not in every supported kernel's nvme.h) */
#define NP_CNS_PRIMARY_CAPS	0x14
#define NP_CNS_SECONDARY_LIST	0x15
#define NP_CNS_NS_ALLOCATED	0x11
#define NP_CNS_NS_ALLOCATED_LIST	0x10
#define NP_CNS_NS_CTRL_LIST	0x12
/* entries of an Identify NSID list */
#define NP_NSLIST_MAX		1024
/* attached namespaces of one secondary controller looked at in one pass */
/* Namespace Attachment data: a controller list of at most this many ids */
#define NP_CTRL_LIST_MAX	2047
/* the driver_override of a VF no driver may bind yet */
#define NP_SRIOV_HELD		"nvme-peer-held"
/* ... and of a VF online with its namespace: nvme-pci's name */
#define NP_SRIOV_DRIVER		"nvme"

/* Identify Primary Controller Capabilities data structure (CNS 0x14) */
struct np_id_primary_caps {
	__le16	cntlid;
	__le16	portid;
	__u8	crt;
	__u8	rsvd5[27];
	__le32	vqfrt;
	__le32	vqrfa;
	__le16	vqrfap;
	__le16	vqprt;
	__le16	vqfrsm;
	__le16	vqgran;
	__u8	rsvd48[16];
	__le32	vifrt;
	__le32	virfa;
	__le16	virfap;
	__le16	viprt;
	__le16	vifrsm;
	__le16	vigran;
	__u8	rsvd80[4016];
};

/* Secondary Controller List (CNS 0x15): a count and 127 entries */
struct np_id_secondary_entry {
	__le16	scid;
	__le16	pcid;
	__u8	scs;
	__u8	rsvd5[3];
	__le16	vfn;
	__le16	nvq;
	__le16	nvi;
	__u8	rsvd14[18];
};

struct np_id_secondary_list {
	__u8	numid;
	__u8	rsvd1[31];
	struct np_id_secondary_entry sc[NP_SRIOV_MAX_SECONDARY];
};

/* Namespace Attachment data: a controller list */
struct np_ctrl_list {
	__le16	num;
	__le16	ids[NP_CTRL_LIST_MAX];
};

/* serialises provisioning; the VF hold below */
static DEFINE_MUTEX(np_sriov_lock);
/* the primary whose VFs pci_enable_sriov() is adding right now */
static struct pci_dev *np_sriov_holding;

/* Virtualization Management cdw10: action, resource type, controller. */
static u32 np_virt_mgmt_cdw10(u8 act, u8 rt, u16 cntlid)
{
	return (act & 0xf) | (rt & 0x7) << 8 | (u32)cntlid << 16;
}

/* Namespace Attachment cdw10: select (0 attach, 1 detach). */
static u32 np_ns_attach_cdw10(bool attach)
{
	return attach ? 0 : 1;
}

/* Decode a Secondary Controller List; returns the number of entries. */
static unsigned int np_sriov_parse_list(const struct np_id_secondary_list *l,
					struct np_sriov_sec *sec,
					unsigned int max)
{
	unsigned int i, n = min3((unsigned int)l->numid, max,
				 (unsigned int)NP_SRIOV_MAX_SECONDARY);

	for (i = 0; i < n; i++) {
		sec[i].cntlid = le16_to_cpu(l->sc[i].scid);
		sec[i].pcid = le16_to_cpu(l->sc[i].pcid);
		sec[i].online = l->sc[i].scs & 1;
		sec[i].vfn = le16_to_cpu(l->sc[i].vfn);
		sec[i].nvq = le16_to_cpu(l->sc[i].nvq);
		sec[i].nvi = le16_to_cpu(l->sc[i].nvi);
	}
	return n;
}

/*
 * How many leading entries of an Identify NSID list (@ids, @max entries)
 * are NSIDs: the list ends at the first 0, and its NSIDs ascend from
 * above @after; one that does not ends it too.
 */
static unsigned int np_nslist_count(const __le32 *ids, unsigned int max,
				    u32 after)
{
	unsigned int i;
	u32 nsid;

	for (i = 0; i < max; i++) {
		nsid = le32_to_cpu(ids[i]);
		if (nsid <= after)
			break;
		after = nsid;
	}
	return i;
}

/* Whether a Controller List (Identify CNS 0x12) names @cntlid. */
static bool np_ctrl_list_has(const struct np_ctrl_list *l, u16 cntlid)
{
	unsigned int i, n = min_t(unsigned int, le16_to_cpu(l->num),
				  NP_CTRL_LIST_MAX);

	for (i = 0; i < n; i++)
		if (le16_to_cpu(l->ids[i]) == cntlid)
			return true;
	return false;
}

/*
 * Of the @n namespaces attached to a controller (@att, of which the first
 * NP_SRIOV_MAX_ATTACHED were seen), move those that are not @keep (0:
 * none is kept) to the front: how many there are.
 */
static unsigned int np_sriov_strangers(u32 *att, unsigned int n, u32 keep)
{
	unsigned int i, s = 0;

	n = min_t(unsigned int, n, NP_SRIOV_MAX_ATTACHED);
	for (i = 0; i < n; i++)
		if (att[i] != keep)
			att[s++] = att[i];
	return s;
}

/*
 * Whether the @n namespaces attached to a controller (@att) are exactly
 * @keep, or none when @keep is 0: the tenant's, nothing else.
 */
static bool np_sriov_exactly(const u32 *att, unsigned int n, u32 keep)
{
	if (!keep)
		return !n;
	return n == 1 && att[0] == keep;
}

/*
 * SR-IOV needs a physical function; Virtualization Management is not
 * judged by OACS bit 7 (VMS), which QEMU 7.2 leaves clear although it
 * implements the command: np_sriov_caps() asks the controller instead.
 */
static int np_sriov_check(struct nvme_peer_ctrl *pctrl)
{
	if (!pctrl->ctrl || !pctrl->info.pdev->is_physfn)
		return -EOPNOTSUPP;
	return 0;
}

/*
 * Identify data of @cns for @nsid and CNTID @cntid in a new buffer of
 * @len bytes, or NULL and *@err: -EOPNOTSUPP without SR-IOV or when the
 * controller refuses the Identify (no Virtualization Management; an NSID
 * out of range), -ENOMEM, or np_admin_errno() of a command that did not
 * complete.
 */
static void *np_sriov_identify(struct nvme_peer_ctrl *pctrl, u8 cns,
			       u32 nsid, u16 cntid, size_t len, int *err)
{
	struct nvme_command c = { };
	void *buf;
	int ret = np_sriov_check(pctrl);

	if (ret)
		goto out_err;
	ret = -ENOMEM;
	buf = kzalloc(len, GFP_KERNEL);
	if (!buf)
		goto out_err;
	c.identify.opcode = nvme_admin_identify;
	c.identify.nsid = cpu_to_le32(nsid);
	c.identify.cns = cns;
	c.identify.ctrlid = cpu_to_le16(cntid);
	ret = np_admin_cmd(pctrl, &c, buf, len);
	if (ret > 0 && (ret & 0x7ff) != NVME_SC_HOST_PATH_ERROR)
		ret = -EOPNOTSUPP;
	ret = np_admin_errno(ret);
	if (!ret)
		return buf;
	kfree(buf);
out_err:
	*err = ret;
	return NULL;
}

/**
 * np_sriov_caps() - Identify Primary Controller Capabilities
 * @pctrl: the primary controller
 * @caps: filled in
 *
 * Return: 0, -EOPNOTSUPP without SR-IOV or when the controller refuses
 * the Identify (no Virtualization Management), -ENOMEM, or
 * np_admin_errno() of a command that did not complete.
 */
int np_sriov_caps(struct nvme_peer_ctrl *pctrl, struct np_sriov_caps *caps)
{
	struct np_id_primary_caps *id;
	int ret;

	id = np_sriov_identify(pctrl, NP_CNS_PRIMARY_CAPS, 0, 0, sizeof(*id),
			       &ret);
	if (!id)
		return ret;
	caps->cntlid = le16_to_cpu(id->cntlid);
	caps->vqfrt = le32_to_cpu(id->vqfrt);
	caps->vqrfa = le32_to_cpu(id->vqrfa);
	caps->vqprt = le16_to_cpu(id->vqprt);
	caps->vqfrsm = le16_to_cpu(id->vqfrsm);
	caps->vifrt = le32_to_cpu(id->vifrt);
	caps->virfa = le32_to_cpu(id->virfa);
	caps->viprt = le16_to_cpu(id->viprt);
	caps->vifrsm = le16_to_cpu(id->vifrsm);
	caps->total_vfs = pci_sriov_get_totalvfs(pctrl->info.pdev);
	kfree(id);
	return 0;
}

/**
 * np_sriov_list() - Secondary Controller List of a primary controller
 * @pctrl: the primary controller
 * @sec: filled in
 * @max: entries in @sec
 *
 * Return: the number of secondary controllers reported (at most @max),
 * or np_sriov_caps()'s errors.
 */
int np_sriov_list(struct nvme_peer_ctrl *pctrl, struct np_sriov_sec *sec,
		  unsigned int max)
{
	struct np_id_secondary_list *l;
	int ret;

	/* from the lowest CNTLID: Identify's CNTID 0 */
	l = np_sriov_identify(pctrl, NP_CNS_SECONDARY_LIST, 0, 0, sizeof(*l),
			      &ret);
	if (!l)
		return ret;
	ret = np_sriov_parse_list(l, sec, max);
	kfree(l);
	return ret;
}

/**
 * np_sriov_ns_exists() - whether the subsystem has a namespace
 * @pctrl: the primary controller
 * @nsid: the namespace
 *
 * Identify Namespace for an Allocated NSID (CNS 0x11): attached to a
 * controller or not, an allocated namespace has a size.
 *
 * Return: 0, -ENODEV for an NSID the subsystem does not have, -ENOMEM, or
 * np_admin_errno() of a command that did not complete.
 */
int np_sriov_ns_exists(struct nvme_peer_ctrl *pctrl, u32 nsid)
{
	struct nvme_id_ns *id;
	int ret;

	id = np_sriov_identify(pctrl, NP_CNS_NS_ALLOCATED, nsid, 0, sizeof(*id),
			       &ret);
	if (!id)
		return ret == -EOPNOTSUPP ? -ENODEV : ret;
	ret = id->nsze ? 0 : -ENODEV;
	kfree(id);
	return ret;
}

/**
 * np_sriov_virt_mgmt() - send Virtualization Management
 * @pctrl: the primary controller
 * @act: NP_VIRT_* action
 * @rt: NP_VIRT_RES_VQ or NP_VIRT_RES_VI
 * @cntlid: the secondary controller
 * @nr: resources to assign (assign actions only)
 *
 * Return: 0, -EOPNOTSUPP, or the NVMe status (> 0) the controller returned:
 * callers tell an invalid secondary state from other refusals by it.
 */
int np_sriov_virt_mgmt(struct nvme_peer_ctrl *pctrl, u8 act, u8 rt,
		       u16 cntlid, u16 nr)
{
	struct nvme_command c = { };
	int ret = np_sriov_check(pctrl);

	if (ret)
		return ret;
	c.common.opcode = nvme_admin_virtual_mgmt;
	c.common.cdw10 = cpu_to_le32(np_virt_mgmt_cdw10(act, rt, cntlid));
	c.common.cdw11 = cpu_to_le32(nr);
	ret = np_admin_cmd(pctrl, &c, NULL, 0);
	if (ret > 0)
		dev_info(pctrl->dev,
			 "nvme-peer: Virtualization Management act %u rt %u cntlid %u nr %u: status %#x\n",
			 act, rt, cntlid, nr, ret);
	return ret;
}

/**
 * np_sriov_ns_attach() - attach a namespace to one controller, or detach it
 * @pctrl: the controller whose admin queue sends the command (the primary)
 * @nsid: the namespace
 * @cntlid: the controller to attach it to or detach it from
 * @attach: attach (true) or detach
 *
 * nvme-pci passes the command to nvme-peer's admin_cmd hook first, which
 * fences @pctrl's own reservations on @nsid when @cntlid is @pctrl's own;
 * for another controller (a secondary) the primary's view of the
 * namespace does not change, and the hook lets it pass
 * (np_admin_cmd_foreign()).
 *
 * Return: 0, -EOPNOTSUPP, -ENOMEM or the NVMe status (> 0).
 */
int np_sriov_ns_attach(struct nvme_peer_ctrl *pctrl, u32 nsid, u16 cntlid,
		       bool attach)
{
	struct nvme_command c = { };
	struct np_ctrl_list *list;
	int ret;

	if (!np_ctrl_ns_mgmt(pctrl))
		return -EOPNOTSUPP;
	list = kzalloc(sizeof(*list), GFP_KERNEL);
	if (!list)
		return -ENOMEM;
	list->num = cpu_to_le16(1);
	list->ids[0] = cpu_to_le16(cntlid);
	c.common.opcode = nvme_admin_ns_attach;
	c.common.nsid = cpu_to_le32(nsid);
	c.common.cdw10 = cpu_to_le32(np_ns_attach_cdw10(attach));
	ret = np_inject_admin_error(&c);
	if (!ret && cntlid == np_ctrl_cntlid(pctrl))
		ret = np_admin_cmd(pctrl, &c, list, sizeof(*list));
	else if (!ret)
		ret = np_admin_cmd_foreign(pctrl, &c, list, sizeof(*list));
	if (ret > 0)
		dev_info(pctrl->dev,
			 "nvme-peer: %s nsid %u, cntlid %u: status %#x\n",
			 attach ? "attach" : "detach", nsid, cntlid, ret);
	kfree(list);
	return ret;
}

/* Hold a new VF of np_sriov_holding back from every driver. */
static int np_sriov_bus_event(struct notifier_block *nb, unsigned long action,
			      void *data)
{
	struct device *dev = data;
	struct pci_dev *pdev = to_pci_dev(dev);

	if (action != BUS_NOTIFY_ADD_DEVICE || !pdev->is_virtfn ||
	    pci_physfn(pdev) != READ_ONCE(np_sriov_holding))
		return NOTIFY_DONE;
	if (np_set_driver_override(pdev, NP_SRIOV_HELD))
		pci_warn(pdev, "nvme-peer: cannot hold the VF back from drivers\n");
	return NOTIFY_OK;
}

static struct notifier_block np_sriov_nb = {
	.notifier_call = np_sriov_bus_event,
};

/**
 * np_sriov_enable() - enable VFs of a primary controller, held from drivers
 * @pctrl: the primary controller
 * @nr_vfs: how many
 *
 * The VFs appear with a driver_override no driver has: they stay unbound
 * until np_sriov_provision() has them online and releases them.
 *
 * Return: 0, -EOPNOTSUPP, -EBUSY when VFs are enabled already, or
 * pci_enable_sriov()'s error.
 */
int np_sriov_enable(struct nvme_peer_ctrl *pctrl, int nr_vfs)
{
	struct pci_dev *pf = pctrl->info.pdev;
	int ret = np_sriov_check(pctrl);

	if (ret)
		return ret;
	mutex_lock(&np_sriov_lock);
	if (pci_num_vf(pf)) {
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = bus_register_notifier(&pci_bus_type, &np_sriov_nb);
	if (ret)
		goto out_unlock;
	WRITE_ONCE(np_sriov_holding, pf);
	ret = pci_enable_sriov(pf, nr_vfs);
	WRITE_ONCE(np_sriov_holding, NULL);
	bus_unregister_notifier(&pci_bus_type, &np_sriov_nb);
out_unlock:
	mutex_unlock(&np_sriov_lock);
	return ret;
}

/**
 * np_sriov_disable() - disable the VFs of a primary controller
 * @pctrl: the primary controller
 *
 * Removes every VF: a driver bound to one is unbound first (nvme-pci's
 * removal revokes the reservations on it).  Their secondary controllers
 * keep their state: np_sriov_unprovision() takes them offline.
 */
void np_sriov_disable(struct nvme_peer_ctrl *pctrl)
{
	np_sriov_disable_pf(pctrl->info.pdev);
}

/**
 * np_sriov_disable_pf() - np_sriov_disable() of a physical function
 * @pf: the primary controller's PCI function, which may have no driver
 *	(nvme-pci's remove ran) or no nvme-peer side any more
 */
void np_sriov_disable_pf(struct pci_dev *pf)
{
	mutex_lock(&np_sriov_lock);
	pci_disable_sriov(pf);
	mutex_unlock(&np_sriov_lock);
}

/* The VF of VF number @vfn (1-based) of @pf, referenced, or NULL. */
static struct pci_dev *np_sriov_vf(struct pci_dev *pf, u16 vfn)
{
	struct pci_dev *vf = NULL;

	while ((vf = pci_get_device(PCI_ANY_ID, PCI_ANY_ID, vf)))
		if (vf->is_virtfn && pci_physfn(vf) == pf &&
		    pci_iov_vf_id(vf) == vfn - 1)
			return vf;
	return NULL;
}

/**
 * np_sriov_get_vf() - the VF of a VF number
 * @pctrl: the primary controller
 * @vfn: the VF number (1-based)
 *
 * Return: the VF with a reference (pci_dev_put() it), or NULL.
 */
struct pci_dev *np_sriov_get_vf(struct nvme_peer_ctrl *pctrl, u16 vfn)
{
	return np_sriov_vf(pctrl->info.pdev, vfn);
}

/**
 * np_sriov_reset_vf() - Function Level Reset of a VF no driver holds
 * @vf: the VF, unbound
 *
 * Return: true if the VF was reset.
 */
bool np_sriov_reset_vf(struct pci_dev *vf)
{
	int ret = pci_reset_function(vf);

	if (ret)
		pci_info(vf, "nvme-peer: no function reset (%d)\n", ret);
	return !ret;
}

/* The secondary controller of VF number @vfn. */
static int np_sriov_find(struct nvme_peer_ctrl *pctrl, u16 vfn,
			 struct np_sriov_sec *out)
{
	struct np_sriov_sec *sec;
	int i, n;

	sec = kcalloc(NP_SRIOV_MAX_SECONDARY, sizeof(*sec), GFP_KERNEL);
	if (!sec)
		return -ENOMEM;
	n = np_sriov_list(pctrl, sec, NP_SRIOV_MAX_SECONDARY);
	for (i = 0; i < n; i++) {
		if (sec[i].vfn == vfn) {
			*out = sec[i];
			break;
		}
	}
	kfree(sec);
	if (n < 0)
		return n;
	return i < n ? 0 : -ENODEV;
}

/**
 * np_sriov_errno() - the errno of a Virtualization Management or
 *	attachment status
 * @ret: 0, an NVMe status (> 0) or -errno
 *
 * Return: 0 or -errno.
 */
int np_sriov_errno(int ret)
{
	if (ret <= 0)
		return ret;
	switch (ret & 0x7ff) {
	case NP_SC_INVALID_SEC_CTRL_STATE:
	case NP_SC_NS_ALREADY_ATTACHED:
		return -EBUSY;
	case NP_SC_INVALID_CTRL_ID:
	case NP_SC_INVALID_RESOURCE_ID:
	case NP_SC_INVALID_NUM_RESOURCES:
		return -EINVAL;
	case NP_SC_NS_NOT_ATTACHED:
		return -ENOENT;
	case NVME_SC_INVALID_NS:
		return -ENODEV;
	}
	return np_admin_errno(ret);
}

/**
 * np_sriov_attached() - the namespaces attached to a controller
 * @pctrl: the primary controller
 * @cntlid: the controller asked about
 * @att: NP_SRIOV_MAX_ATTACHED entries
 *
 * The namespaces attached to controller @cntlid, as the subsystem says:
 * every namespace it has allocated (Identify CNS 0x10, page by page) and,
 * for each, the controllers attached to it from @cntlid up (CNS 0x12).
 * The controller itself is not asked: a secondary controller answers
 * nothing while it is offline.  @att gets the first NP_SRIOV_MAX_ATTACHED
 * NSIDs, ascending.
 *
 * Return: how many namespaces are attached (possibly more than @att
 * holds), or np_sriov_identify()'s errors (-EOPNOTSUPP for a controller
 * that refuses either Identify).
 */
int np_sriov_attached(struct nvme_peer_ctrl *pctrl, u16 cntlid, u32 *att)
{
	unsigned int i, cnt, n = 0;
	struct np_ctrl_list *cl;
	u32 after = 0, nsid;
	__le32 *ids;
	int ret = 0;

	for (;;) {
		ids = np_sriov_identify(pctrl, NP_CNS_NS_ALLOCATED_LIST, after,
					0, NP_NSLIST_MAX * sizeof(*ids), &ret);
		if (!ids)
			return ret;
		cnt = np_nslist_count(ids, NP_NSLIST_MAX, after);
		for (i = 0; i < cnt; i++) {
			nsid = le32_to_cpu(ids[i]);
			cl = np_sriov_identify(pctrl, NP_CNS_NS_CTRL_LIST, nsid,
					       cntlid, sizeof(*cl), &ret);
			if (!cl)
				break;
			if (np_ctrl_list_has(cl, cntlid)) {
				if (n < NP_SRIOV_MAX_ATTACHED)
					att[n] = nsid;
				n++;
			}
			kfree(cl);
		}
		if (cnt)
			after = le32_to_cpu(ids[cnt - 1]);
		kfree(ids);
		if (ret)
			return ret;
		if (cnt < NP_NSLIST_MAX)
			return n;
	}
}

/*
 * Detach the @s namespaces @att from controller @cntlid; one the
 * controller says is not attached is as good as detached.  A detach of
 * one not @expected is logged.  Returns 0, -EAGAIN while the primary
 * resets, or -EBUSY for a namespace that stays attached.
 */
static int np_sriov_detach(struct nvme_peer_ctrl *pctrl, u16 cntlid,
			   const u32 *att, unsigned int s, u32 expected)
{
	unsigned int i;
	int st, ret = 0;

	for (i = 0; i < s; i++) {
		st = np_sriov_ns_attach(pctrl, att[i], cntlid, false);
		if (st > 0 && (st & 0x7ff) == NP_SC_NS_NOT_ATTACHED)
			st = 0;
		st = np_sriov_errno(st);
		if (!st) {
			if (att[i] != expected)
				dev_info(pctrl->dev,
					 "nvme-peer: nsid %u was attached to secondary controller %u: detached\n",
					 att[i], cntlid);
			continue;
		}
		dev_warn(pctrl->dev,
			 "nvme-peer: nsid %u stays attached to secondary controller %u: %d\n",
			 att[i], cntlid, st);
		if (!ret)
			ret = st == -EAGAIN ? -EAGAIN : -EBUSY;
	}
	return ret;
}

/*
 * Make the namespaces attached to secondary controller @cntlid exactly
 * @keep (none for 0): detach every other one, then look again.  Detaching
 * @expected (the tenant's own, at teardown) is not logged.
 *
 * Return: 0 when the subsystem reports exactly @keep attached, -EBUSY
 * when it does not after one round of detaching (a detach failed, @keep
 * is not attached, more than NP_SRIOV_MAX_ATTACHED were), -EAGAIN while
 * the primary resets, or np_sriov_attached()'s errors.
 */
static int np_sriov_clean(struct nvme_peer_ctrl *pctrl, u16 cntlid, u32 keep,
			  u32 expected)
{
	int n, ret, pass;
	u32 *att;

	lockdep_assert_held(&np_sriov_lock);
	att = kcalloc(NP_SRIOV_MAX_ATTACHED, sizeof(*att), GFP_KERNEL);
	if (!att)
		return -ENOMEM;
	n = np_sriov_attached(pctrl, cntlid, att);
	for (pass = 0; n >= 0 && !np_sriov_exactly(att, n, keep); pass++) {
		if (pass) {
			n = -EBUSY;
			break;
		}
		ret = np_sriov_detach(pctrl, cntlid, att,
				      np_sriov_strangers(att, n, keep),
				      expected);
		n = ret ? ret : np_sriov_attached(pctrl, cntlid, att);
	}
	kfree(att);
	return n < 0 ? n : 0;
}

/*
 * Assign @nvq queue and @nvi interrupt resources to secondary controller
 * @cntlid and take it online: 0 or the first failure's status or errno.
 */
static int np_sriov_sec_online(struct nvme_peer_ctrl *pctrl, u16 cntlid,
			       u16 nvq, u16 nvi)
{
	int ret;

	lockdep_assert_held(&np_sriov_lock);
	ret = np_sriov_virt_mgmt(pctrl, NP_VIRT_SEC_ASSIGN, NP_VIRT_RES_VQ,
				 cntlid, nvq);
	if (!ret)
		ret = np_sriov_virt_mgmt(pctrl, NP_VIRT_SEC_ASSIGN,
					 NP_VIRT_RES_VI, cntlid, nvi);
	if (!ret)
		ret = np_sriov_virt_mgmt(pctrl, NP_VIRT_SEC_ONLINE, 0, cntlid,
					 0);
	return ret;
}

/**
 * np_sriov_provision() - bring one secondary controller up for a tenant
 * @pctrl: the primary controller
 * @vfn: its VF number (1-based), enabled by np_sriov_enable()
 * @nsid: the one namespace to attach to it
 * @nvq: flexible queue resources (admin queue included): nvme-pci keeps
 *	the admin queue and one I/O queue, the rest are peer qids
 * @nvi: flexible interrupt resources
 * @cntlid: returns the secondary controller's CNTLID
 *
 * Attachments are the subsystem's: they outlive a tenant, an unbind, an
 * FLR, and on real drives pci_disable_sriov() and power cycles.  So first
 * every namespace attached to the secondary controller is detached
 * (np_sriov_clean(): whatever a failed teardown, an earlier boot or an
 * administrator left), then the resources are assigned, the controller
 * taken online and @nsid attached; the subsystem is asked again that
 * exactly @nsid is attached, and only then may drivers bind the VF
 * (nvme-pci, which probes it in the background; nvme-peer registers it
 * when it is live).  On failure the controller is offline again, its
 * resources returned, @nsid detached.
 *
 * Return: 0, -EOPNOTSUPP (also a controller that cannot list the
 * attachments: Identify CNS 0x10 or 0x12), -ENODEV (no such VF), -EBUSY
 * (online already, @nsid attached to it already, or a namespace that
 * stays attached to it: a detach failed), -EINVAL (resources), -ENOSPC
 * (no flexible resources left) or another errno of the admin commands.
 */
int np_sriov_provision(struct nvme_peer_ctrl *pctrl, u16 vfn, u32 nsid,
		       u16 nvq, u16 nvi, u16 *cntlid)
{
	struct np_sriov_sec sec;
	struct pci_dev *vf;
	int ret;

	vf = np_sriov_vf(pctrl->info.pdev, vfn);
	if (!vf)
		return -ENODEV;
	mutex_lock(&np_sriov_lock);
	ret = np_sriov_find(pctrl, vfn, &sec);
	if (ret)
		goto out_unlock;
	if (sec.online) {
		ret = -EBUSY;
		goto out_unlock;
	}
	ret = np_sriov_clean(pctrl, sec.cntlid, 0, 0);
	if (ret)
		goto out_unlock;
	ret = np_sriov_sec_online(pctrl, sec.cntlid, nvq, nvi);
	if (ret)
		goto out_offline;
	ret = np_sriov_ns_attach(pctrl, nsid, sec.cntlid, true);
	if (ret)
		goto out_offline;
	/* an attach through the primary's passthrough meanwhile */
	ret = np_sriov_clean(pctrl, sec.cntlid, nsid, 0);
	if (ret) {
		np_sriov_ns_attach(pctrl, nsid, sec.cntlid, false);
		goto out_offline;
	}
	*cntlid = sec.cntlid;
	mutex_unlock(&np_sriov_lock);
	/*
	 * online with its namespace: nvme-pci may have it now, and only
	 * nvme-pci (an empty override would let any driver whose ids match
	 * -- vfio-pci given new_id -- take a VF that reaches the namespace)
	 */
	np_set_driver_override(vf, NP_SRIOV_DRIVER);
	ret = device_attach(&vf->dev);
	pci_dev_put(vf);
	return ret < 0 ? ret : 0;

out_offline:
	/* offline returns its resources to the primary */
	np_sriov_virt_mgmt(pctrl, NP_VIRT_SEC_OFFLINE, 0, sec.cntlid, 0);
out_unlock:
	mutex_unlock(&np_sriov_lock);
	pci_dev_put(vf);
	if (ret > 0 && (ret & 0x7ff) == NP_SC_INVALID_NUM_RESOURCES)
		return -ENOSPC;
	return np_sriov_errno(ret);
}

/**
 * np_sriov_online() - bring a provisioned secondary controller back
 * @pctrl: the primary controller
 * @vfn: its VF number (1-based)
 * @nsid: the namespace np_sriov_provision() attached to it
 * @nvq: flexible queue resources, as np_sriov_provision()
 * @nvi: flexible interrupt resources, as np_sriov_provision()
 *
 * After a reset of the primary, which may take its secondary controllers
 * offline and return their resources (QEMU 7.2 does): assign the
 * resources again, take the controller online, attach @nsid if it is not
 * (an attachment the controller kept is fine).  Online already or again,
 * the namespaces attached to it are then made exactly @nsid
 * (np_sriov_clean(): one attached meanwhile is detached).  The VF's
 * driver stays bound.  On failure the controller is offline.
 *
 * Return: 1 if the controller was online already (nothing but the check
 * and its detaches sent), 0 if it is online again, or an errno as
 * np_sriov_provision().
 */
int np_sriov_online(struct nvme_peer_ctrl *pctrl, u16 vfn, u32 nsid,
		    u16 nvq, u16 nvi)
{
	struct np_sriov_sec sec;
	bool was_online;
	int ret;

	mutex_lock(&np_sriov_lock);
	ret = np_sriov_find(pctrl, vfn, &sec);
	if (ret)
		goto out_unlock;
	was_online = sec.online;
	if (!was_online)
		ret = np_sriov_sec_online(pctrl, sec.cntlid, nvq, nvi);
	if (!ret) {
		ret = np_sriov_ns_attach(pctrl, nsid, sec.cntlid, true);
		if (ret > 0 && (ret & 0x7ff) == NP_SC_NS_ALREADY_ATTACHED)
			ret = 0;
	}
	if (!ret)
		ret = np_sriov_clean(pctrl, sec.cntlid, nsid, 0);
	if (ret)
		np_sriov_virt_mgmt(pctrl, NP_VIRT_SEC_OFFLINE, 0, sec.cntlid, 0);
	else if (was_online)
		ret = 1;
out_unlock:
	mutex_unlock(&np_sriov_lock);
	return np_sriov_errno(ret);
}

/**
 * np_sriov_unprovision() - take one secondary controller down
 * @pctrl: the primary controller
 * @vfn: its VF number (1-based)
 * @nsid: the namespace np_sriov_provision() attached to it
 *
 * Unbinds the VF's driver (nvme-pci's removal revokes every reservation on
 * it) and holds it back from drivers again, detaches every namespace
 * attached to the controller (@nsid and any other: np_sriov_clean()) and
 * takes the controller offline, which returns its resources to the
 * primary.  A namespace the controller says is not attached is as good as
 * detached; a secondary controller the primary no longer lists (QEMU 7.2
 * after an FLR of the primary) has nothing attached.
 *
 * Return: 0 when the subsystem reports nothing attached to the controller
 * and it is offline, or the first error (the later steps are tried
 * anyway): -EBUSY for a namespace that stays attached.
 */
int np_sriov_unprovision(struct nvme_peer_ctrl *pctrl, u16 vfn, u32 nsid)
{
	struct np_sriov_sec sec;
	struct pci_dev *vf;
	int ret, ret2;

	vf = np_sriov_vf(pctrl->info.pdev, vfn);
	if (vf) {
		np_set_driver_override(vf, NP_SRIOV_HELD);
		device_release_driver(&vf->dev);
		pci_dev_put(vf);
	}
	mutex_lock(&np_sriov_lock);
	ret = np_sriov_find(pctrl, vfn, &sec);
	if (ret) {
		if (ret == -ENODEV)
			ret = 0;
		goto out_unlock;
	}
	ret = np_sriov_clean(pctrl, sec.cntlid, 0, nsid);
	ret2 = np_sriov_errno(np_sriov_virt_mgmt(pctrl, NP_VIRT_SEC_OFFLINE,
						 0, sec.cntlid, 0));
	if (!ret)
		ret = ret2;
out_unlock:
	mutex_unlock(&np_sriov_lock);
	return ret;
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/sriov_kunit.c"
#endif
