// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: isolated mode.  An isolated reservation names a primary
 * controller and one namespace.  Here a secondary controller (an SR-IOV
 * VF, brought up by sriov.c) is claimed for it, taken online with exactly
 * that namespace attached, and handed to core.c, which reserves the queue
 * pair on the VF's own nvme-peer side the way direct mode does: the peer
 * writes the SQ and rings the doorbell, the controller -- not the
 * kernel -- refuses every other namespace, and the IOMMU, where the VF has
 * a domain of its own, confines its DMA.  Here is decided which VF a
 * reservation gets, when it is given back, and what the primary's events
 * do to the tenants.
 *
 * A tenant is one secondary controller serving one reservation.  Its VF
 * number is claimed (np_iso_lock) before any command is sent, and becomes
 * free only when its teardown is over: the VF unbound (nvme-pci's removal
 * disables the controller, and nvme-peer frees the reservation's memory),
 * every namespace attached to its controller detached, the controller
 * offline, the VF function-reset.  The next tenant of that VF finds a
 * controller that was reset, and new, zeroed queue memory.  Attachments
 * are the subsystem's and outlive all that: np_sriov_provision() checks
 * that exactly the tenant's namespace is attached before the VF is handed
 * out, as the recovery does after a primary's reset; a teardown that
 * fails keeps the VF number, quarantined, and is tried again until it
 * succeeds.  The teardown runs from np_wq: it unbinds a driver,
 * which must not happen under a configfs intent's lock or a reserve's.
 *
 * A reset of the primary takes its secondary controllers offline (QEMU
 * 7.2), and nvme-pci on the VF is not told: the primary's DOWN revokes
 * every tenant and marks the VF's side not live, so a release sends no
 * Delete the offline controller would never complete; the queue's memory
 * is freed when the VF is disabled next (its reset, or the teardown's
 * unbind).  The host's own I/O on the VF (a partition scan, a read of the
 * tenant's namespace) would wait for nvme-pci's timeout: at the primary's
 * LIVE each provisioned tenant's recovery brings its secondary controller
 * online again and resets the VF, whose nvme-pci retries that I/O; the
 * teardown cancels or waits for the recovery first.  Removal of the
 * primary and unload disable the VFs nvme-peer enabled.  The VFs are
 * enabled with the primary's first tenant and disabled when its last one
 * is torn down: a primary without tenants is left as nvme-peer found it.
 *
 * Disabling the VFs removes them: nvme-pci's remove and nvme-peer's forget
 * run for each.  At the primary's removal that happens from np_wq, after
 * nvme-pci's remove of the primary (whose REMOVED event holds its
 * shutdown_lock, the lock each VF's remove takes too); a claim on a primary
 * whose VFs are being disabled is -EAGAIN, so a primary bound again never
 * sees its old VFs go under a new tenant.
 *
 * Locks: np_iso_vfs_lock guards each primary's iso_vfs, iso_enabling and
 * iso_gone and the pending disables; it is held neither while VFs are
 * enabled nor while they are disabled (np_sriov_lock is, which a VF's
 * removal holds while it waits for the VF's reset work; the primary's
 * REMOVED takes np_iso_vfs_lock under nvme-pci's shutdown_lock, which
 * reset work takes).  It is taken before np_iso_lock, which guards the
 * tenant list.
 * np_iso_lock is never held across an admin command, a probe, an unbind
 * or a VF's removal (the primary's DOWN takes it).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/pci.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/wait.h>

#include "nvme-peer.h"

/* queue resources of a secondary: admin, nvme-pci's I/O queue, the tenant's */
#define NP_ISO_NVQ		3
#define NP_ISO_NVI		2
/* how long a VF may take to be probed and show its namespace */
#define NP_ISO_UP_MS		30000
/* a teardown while the primary resets tries again this often, this long */
#define NP_ISO_RETRY_DELAY	msecs_to_jiffies(200)
#define NP_ISO_RETRIES		50
/* how long unload waits for the teardowns before it gives the primaries up */
#define NP_ISO_EXIT_WAIT	(30 * HZ)
/* a quarantined VF's teardown is tried again after 1 s, 2 s, ... 30 s */
#define NP_ISO_QUARANTINE_MIN	msecs_to_jiffies(1000)
#define NP_ISO_QUARANTINE_MAX	msecs_to_jiffies(30000)

struct np_tenant {
	struct list_head node;		/* np_tenants */
	struct nvme_peer_ctrl *primary;	/* reference */
	struct pci_dev *vf;		/* reference */
	u16 vfn;
	u32 nsid;
	bool leaving;			/* its reservation is gone or failed */
	bool provisioned;		/* online with nsid: recovered */
	bool quarantined;		/* its teardown failed: VF out of service */
	u16 nvi;			/* interrupt resources */
	unsigned int tries;
	unsigned long delay;		/* until the quarantine's next try */
	struct delayed_work teardown;
	struct work_struct recover;	/* after the primary's reset */
};

/* a primary's VFs nvme-peer is disabling */
struct np_iso_off {
	struct list_head node;		/* np_iso_offs */
	struct pci_dev *pf;		/* reference */
	struct work_struct work;
};

static DEFINE_MUTEX(np_iso_vfs_lock);
static LIST_HEAD(np_iso_offs);
static DEFINE_MUTEX(np_iso_lock);
static LIST_HEAD(np_tenants);
static bool np_iso_unloading;			/* np_iso_lock */
static atomic_t np_iso_count = ATOMIC_INIT(0);	/* tenants */
static DECLARE_WAIT_QUEUE_HEAD(np_iso_wait);

/**
 * np_iso_owns() - whether isolated mode holds a VF
 * @pdev: a PCI function
 *
 * Return: true while @pdev is a tenant's secondary controller: it takes no
 * reservation of another mode.
 */
bool np_iso_owns(struct pci_dev *pdev)
{
	struct np_tenant *t;
	bool owned = false;

	if (!pdev->is_virtfn)
		return false;
	mutex_lock(&np_iso_lock);
	list_for_each_entry(t, &np_tenants, node)
		owned |= t->vf == pdev;
	mutex_unlock(&np_iso_lock);
	return owned;
}

/* The nvme-peer side of @vf's controller, with a reference, or NULL. */
static struct nvme_peer_ctrl *np_iso_vctrl(struct pci_dev *vf)
{
	struct nvme_peer_ctrl *pctrl;
	unsigned long i = 0;

	while ((pctrl = np_ctrl_next(&i))) {
		if (pctrl->info.pdev == vf)
			return pctrl;
		nvme_peer_ctrl_put(pctrl);
	}
	return NULL;
}

static void np_iso_teardown(struct work_struct *work);
static void np_iso_recover(struct work_struct *work);
static struct np_iso_off *np_iso_unused_locked(struct nvme_peer_ctrl *pf,
					       struct np_tenant *self);
static struct np_iso_off *np_iso_off_locked(struct nvme_peer_ctrl *pf);
static void np_iso_off(struct np_iso_off *o);

/* Whether nvme-peer is disabling the VFs of @pdev. */
static bool np_iso_going_off(struct pci_dev *pdev)
{
	struct np_iso_off *o;

	lockdep_assert_held(&np_iso_vfs_lock);
	list_for_each_entry(o, &np_iso_offs, node)
		if (o->pf == pdev)
			return true;
	return false;
}

/*
 * Enable every VF of @pf, held from drivers, unless someone else did or
 * they are enabled already.  pci_enable_sriov() runs without
 * np_iso_vfs_lock (the primary's REMOVED event takes it under nvme-pci's
 * shutdown_lock, and np_sriov_lock is held while VFs are removed, which
 * waits for their reset work); a claim meanwhile is -EAGAIN.
 */
static int np_iso_enable(struct nvme_peer_ctrl *pf)
{
	struct pci_dev *pdev = pf->info.pdev;
	int total = pci_sriov_get_totalvfs(pdev), ret = 0;
	struct np_iso_off *off = NULL;
	bool enable = false;

	mutex_lock(&np_iso_vfs_lock);
	if (pf->iso_gone)
		ret = -ENODEV;		/* being removed, or unloading */
	else if (pf->iso_vfs)
		ret = 0;
	else if (pf->iso_enabling || np_iso_going_off(pdev))
		ret = -EAGAIN;		/* VFs coming or going */
	else if (pci_num_vf(pdev))
		ret = -EBUSY;		/* VFs an administrator enabled */
	else if (total <= 0)
		ret = -EOPNOTSUPP;
	else
		enable = true;
	if (enable)
		pf->iso_enabling = true;
	mutex_unlock(&np_iso_vfs_lock);
	if (!enable)
		return ret;

	ret = np_sriov_enable(pf, total);
	mutex_lock(&np_iso_vfs_lock);
	pf->iso_enabling = false;
	if (!ret) {
		pf->iso_vfs = total;
		if (pf->iso_gone) {	/* removed meanwhile: they go again */
			off = np_iso_off_locked(pf);
			ret = -ENODEV;
		}
	}
	mutex_unlock(&np_iso_vfs_lock);
	if (off)
		np_iso_off(off);
	return ret;
}

/*
 * Claim a free VF of @pf for a tenant of @nsid: -EBUSY when another tenant
 * has @nsid, -ENOSPC when every VF serves one, -EAGAIN when one of them
 * is being torn down (it is free soon).
 */
static struct np_tenant *np_iso_claim(struct nvme_peer_ctrl *pf, u32 nsid,
				      int *err)
{
	struct np_tenant *t, *n;
	struct np_iso_off *off;
	bool leaving = false;
	u16 vfn;
	int ret;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t) {
		*err = -ENOMEM;
		return NULL;
	}
	ret = np_iso_enable(pf);
	if (ret) {
		kfree(t);
		*err = ret;
		return NULL;
	}
	mutex_lock(&np_iso_vfs_lock);
	mutex_lock(&np_iso_lock);
	/* disabled meanwhile (the last tenant left), or the primary went */
	ret = pf->iso_gone ? -ENODEV : -EAGAIN;
	if (!pf->iso_vfs)
		goto out_unlock;
	list_for_each_entry(n, &np_tenants, node) {
		if (n->primary != pf || n->nsid != nsid || n->quarantined)
			continue;
		ret = n->leaving ? -EAGAIN : -EBUSY;
		goto out_unlock;
	}
	for (vfn = 1; vfn <= pf->iso_vfs; vfn++) {
		bool taken = false;

		list_for_each_entry(n, &np_tenants, node) {
			if (n->primary == pf && n->vfn == vfn) {
				taken = true;
				leaving |= n->leaving && !n->quarantined;
			}
		}
		if (!taken)
			break;
	}
	ret = leaving ? -EAGAIN : -ENOSPC;
	if (vfn > pf->iso_vfs)
		goto out_unlock;
	ret = -ENODEV;
	t->vf = np_sriov_get_vf(pf, vfn);
	if (!t->vf)
		goto out_unlock;
	kref_get(&pf->ref);
	t->primary = pf;
	t->vfn = vfn;
	t->nsid = nsid;
	INIT_DELAYED_WORK(&t->teardown, np_iso_teardown);
	INIT_WORK(&t->recover, np_iso_recover);
	list_add_tail(&t->node, &np_tenants);
	atomic_inc(&np_iso_count);
	mutex_unlock(&np_iso_lock);
	mutex_unlock(&np_iso_vfs_lock);
	return t;

out_unlock:
	mutex_unlock(&np_iso_lock);
	off = np_iso_unused_locked(pf, NULL);
	mutex_unlock(&np_iso_vfs_lock);
	if (off)
		np_iso_off(off);
	kfree(t);
	*err = ret;
	return NULL;
}

/* Disable the VFs of @o's primary, then forget @o. */
static void np_iso_off(struct np_iso_off *o)
{
	np_sriov_disable_pf(o->pf);
	mutex_lock(&np_iso_vfs_lock);
	list_del(&o->node);
	mutex_unlock(&np_iso_vfs_lock);
	pci_dev_put(o->pf);
	kfree(o);
}

static void np_iso_off_work(struct work_struct *work)
{
	np_iso_off(container_of(work, struct np_iso_off, work));
}

/*
 * @pf's VFs, which nvme-peer enabled, go: they are marked going (a claim
 * meanwhile is -EAGAIN) and the caller runs np_iso_off() on the result,
 * without the lock, or from np_wq.
 */
static struct np_iso_off *np_iso_off_locked(struct nvme_peer_ctrl *pf)
{
	struct np_iso_off *o;

	lockdep_assert_held(&np_iso_vfs_lock);
	if (!pf->iso_vfs)
		return NULL;
	o = kzalloc(sizeof(*o), GFP_KERNEL | __GFP_NOFAIL);
	o->pf = pci_dev_get(pf->info.pdev);
	INIT_WORK(&o->work, np_iso_off_work);
	list_add_tail(&o->node, &np_iso_offs);
	pf->iso_vfs = 0;
	return o;
}

/* np_iso_off_locked() if no tenant of @pf but @self is left. */
static struct np_iso_off *np_iso_unused_locked(struct nvme_peer_ctrl *pf,
					       struct np_tenant *self)
{
	struct np_tenant *t;
	bool used = false;

	lockdep_assert_held(&np_iso_vfs_lock);
	mutex_lock(&np_iso_lock);
	list_for_each_entry(t, &np_tenants, node)
		used |= t->primary == pf && t != self;
	mutex_unlock(&np_iso_lock);
	return used ? NULL : np_iso_off_locked(pf);
}

/*
 * Give a tenant's VF back: the last step of its teardown.  The primary's
 * last tenant disables the VFs before it leaves the list: an empty list
 * means the primary is as nvme-peer found it.
 */
static void np_iso_unclaim(struct np_tenant *t)
{
	struct np_iso_off *off;

	mutex_lock(&np_iso_vfs_lock);
	off = np_iso_unused_locked(t->primary, t);
	mutex_unlock(&np_iso_vfs_lock);
	if (off)
		np_iso_off(off);
	mutex_lock(&np_iso_lock);
	list_del(&t->node);
	mutex_unlock(&np_iso_lock);
	/* a kick of the quarantine (np_iso_kick_locked()) queued it again */
	cancel_delayed_work(&t->teardown);
	if (atomic_dec_and_test(&np_iso_count))
		wake_up_all(&np_iso_wait);
	pci_dev_put(t->vf);
	nvme_peer_ctrl_put(t->primary);
	kfree(t);
}

/*
 * Whether @t's primary is gone: it took its VFs with it, and its VF
 * numbers may be another primary's VFs by now.
 */
static bool np_iso_primary_gone(struct np_tenant *t)
{
	bool gone;

	mutex_lock(&np_iso_vfs_lock);
	gone = t->primary->iso_gone;
	mutex_unlock(&np_iso_vfs_lock);
	return gone;
}

/*
 * Keep @t's VF out of service: its teardown failed with @err, so a
 * namespace may still be attached to its secondary controller (or the
 * controller is still online).  The tenant stays on the list, holding the
 * VF number, and its teardown is tried again, ever less often, until the
 * subsystem reports nothing attached to the controller and it is offline,
 * or the primary is gone.  Returns false at unload: the VF is given back
 * as it is (the next handout's check is what protects a tenant).
 */
static bool np_iso_quarantine(struct np_tenant *t, int err)
{
	bool first;

	mutex_lock(&np_iso_lock);
	if (np_iso_unloading) {
		mutex_unlock(&np_iso_lock);
		return false;
	}
	first = !t->quarantined;
	t->quarantined = true;
	t->delay = first ? NP_ISO_QUARANTINE_MIN :
			   min(2 * t->delay, NP_ISO_QUARANTINE_MAX);
	queue_delayed_work(np_wq, &t->teardown, t->delay);
	mutex_unlock(&np_iso_lock);
	if (first)
		pci_warn(t->vf, "nvme-peer: VF %u quarantined: its secondary controller was not taken down (%d), a namespace may be attached to it; not handed out until it is\n",
			 t->vfn, err);
	return true;
}

/* Try the teardown of @pf's quarantined tenants (NULL: all) now. */
static void np_iso_kick_locked(struct nvme_peer_ctrl *pf)
{
	struct np_tenant *t;

	lockdep_assert_held(&np_iso_lock);
	list_for_each_entry(t, &np_tenants, node)
		if (t->quarantined && (!pf || t->primary == pf))
			mod_delayed_work(np_wq, &t->teardown, 0);
}

/*
 * Unbind the VF (its reservation's memory is freed when nvme-pci disables
 * it), detach every namespace attached to its secondary controller, take
 * the controller offline, reset the VF, give the VF number back.  While
 * the primary resets the admin commands are tried again; then, and for
 * any other failure, the VF is quarantined (np_iso_quarantine()) and
 * never handed out before a later try succeeds.  A primary that is gone
 * took its VFs with it, and its VF numbers may be another primary's VFs
 * by now: nothing is sent.
 */
static void np_iso_teardown(struct work_struct *work)
{
	struct np_tenant *t = container_of(to_delayed_work(work),
					   struct np_tenant, teardown);
	int ret;

	/* leaving: no recovery is queued any more, one under way ends */
	cancel_work_sync(&t->recover);
	np_inject_teardown();
	if (np_iso_primary_gone(t)) {
		if (t->quarantined)
			pci_info(t->vf, "nvme-peer: VF %u: quarantine ends with its primary\n",
				 t->vfn);
		goto out_unclaim;
	}
	ret = np_sriov_unprovision(t->primary, t->vfn, t->nsid);
	if (ret == -EAGAIN && !t->quarantined && ++t->tries < NP_ISO_RETRIES) {
		queue_delayed_work(np_wq, &t->teardown, NP_ISO_RETRY_DELAY);
		return;
	}
	if (ret && np_iso_quarantine(t, ret))
		return;
	if (ret)
		pci_warn(t->vf, "nvme-peer: unloading: secondary controller of VF %u not taken down: %d\n",
			 t->vfn, ret);
	else if (t->quarantined)
		pci_info(t->vf, "nvme-peer: VF %u clean again: back in service\n",
			 t->vfn);
	/* a primary gone meanwhile took the VF with it */
	if (!np_iso_primary_gone(t))
		np_sriov_reset_vf(t->vf);
out_unclaim:
	np_iso_unclaim(t);
}

/*
 * Bring @t's secondary controller back after a reset of its primary took
 * it offline: online again with its namespace (np_sriov_online()), then a
 * reset of the VF, which ends the host's I/O nvme-pci sent before the
 * primary's reset (the controller dropped it) and retries it.  Nothing is
 * sent for a controller that stayed online, or for a primary that is
 * gone; a failure leaves the VF as the reset left it (its I/O times out).
 */
static void np_iso_recover(struct work_struct *work)
{
	struct np_tenant *t = container_of(work, struct np_tenant, recover);
	struct nvme_peer_ctrl *vctrl;
	int ret;

	if (np_iso_primary_gone(t))
		return;
	ret = np_sriov_online(t->primary, t->vfn, t->nsid, NP_ISO_NVQ, t->nvi);
	if (ret) {
		if (ret < 0)
			pci_warn(t->vf, "nvme-peer: secondary controller of VF %u not back online: %d\n",
				 t->vfn, ret);
		return;
	}
	vctrl = np_iso_vctrl(t->vf);
	if (!vctrl)
		return;
	/* waited for: the teardown's unbind must not race the reset */
	pci_info(t->vf, "nvme-peer: secondary controller of VF %u online again: resetting %s\n",
		 t->vfn, vctrl->name);
	np_ctrl_reset_flush(vctrl);
	nvme_peer_ctrl_put(vctrl);
}

/* Start the teardown of @t, whose reservation is gone or never was. */
static void np_iso_leave(struct np_tenant *t)
{
	mutex_lock(&np_iso_lock);
	t->leaving = true;
	mutex_unlock(&np_iso_lock);
	queue_delayed_work(np_wq, &t->teardown, 0);
}

/*
 * Wait until nvme-pci has probed @t's VF, nvme-peer has its side and it
 * shows @t's namespace: the VF's side with a reference, or an ERR_PTR:
 * -EAGAIN when the primary went down meanwhile, -EIO after NP_ISO_UP_MS.
 */
static struct nvme_peer_ctrl *np_iso_wait_up(struct np_tenant *t)
{
	unsigned long end = jiffies + msecs_to_jiffies(NP_ISO_UP_MS);
	struct nvme_peer_ctrl *vctrl;
	bool up, ns = false;

	for (;;) {
		vctrl = np_iso_vctrl(t->vf);
		if (vctrl) {
			mutex_lock(&vctrl->lock);
			spin_lock(&vctrl->state_lock);
			up = vctrl->live && !vctrl->removed;
			spin_unlock(&vctrl->state_lock);
			if (up)
				ns = np_ctrl_has_ns(vctrl, t->nsid);
			mutex_unlock(&vctrl->lock);
			if (ns)
				return vctrl;
			nvme_peer_ctrl_put(vctrl);
		}
		spin_lock(&t->primary->state_lock);
		up = t->primary->live;
		spin_unlock(&t->primary->state_lock);
		if (!up)
			return ERR_PTR(-EAGAIN);
		if (time_after(jiffies, end)) {
			pci_warn(t->vf, "nvme-peer: VF %u did not come up with nsid %u\n",
				 t->vfn, t->nsid);
			return ERR_PTR(-EIO);
		}
		msleep(20);
	}
}

/**
 * np_iso_provide() - a secondary controller for an isolated reservation
 * @pf: the primary controller
 * @nsid: the namespace the reservation is for
 * @tenant: the tenant, to hand to np_reserve_on() and, if that fails,
 *	to np_iso_abandon()
 *
 * The request passed core.c's gate already.  Claims a VF (enabling the
 * VFs the first time), provisions its secondary controller with exactly
 * @nsid and waits for it to come up.
 *
 * Return: the VF's nvme-peer side, with a reference, or an ERR_PTR:
 * -EOPNOTSUPP for a primary without SR-IOV or Virtualization Management
 * or that cannot list which namespaces are attached to a controller,
 * -ENODEV for a namespace the subsystem does not have,
 * -EBUSY when another isolated reservation has the namespace, an
 * administrator enabled the VFs, or another namespace stays attached to
 * the VF's secondary controller (the VF is then quarantined), -ENOSPC
 * when every VF serves a tenant or is quarantined, or the flexible
 * resources are spent, -EAGAIN while a VF is torn down or the primary
 * resets, -EIO when the VF did not come up.
 */
struct nvme_peer_ctrl *np_iso_provide(struct nvme_peer_ctrl *pf, u32 nsid,
				      struct np_tenant **tenant)
{
	struct nvme_peer_ctrl *vctrl;
	struct np_sriov_caps caps;
	struct np_tenant *t;
	u16 cntlid;
	int ret;

	ret = np_sriov_caps(pf, &caps);
	if (!ret && (caps.vqfrsm < NP_ISO_NVQ || !caps.vifrsm))
		ret = -ENOSPC;
	if (!ret)
		ret = np_sriov_ns_exists(pf, nsid);
	if (ret)
		return ERR_PTR(ret);
	t = np_iso_claim(pf, nsid, &ret);
	if (!t)
		return ERR_PTR(ret);
	t->nvi = min_t(u16, NP_ISO_NVI, caps.vifrsm);
	ret = np_sriov_provision(pf, t->vfn, nsid, NP_ISO_NVQ, t->nvi, &cntlid);
	if (ret)
		goto out_leave;
	mutex_lock(&np_iso_lock);
	t->provisioned = true;
	mutex_unlock(&np_iso_lock);
	vctrl = np_iso_wait_up(t);
	ret = PTR_ERR_OR_ZERO(vctrl);
	if (ret)
		goto out_leave;
	dev_info(pf->dev,
		 "nvme-peer: isolated: %s (VF %u, cntlid %u) serves nsid %u\n",
		 vctrl->name, t->vfn, cntlid, nsid);
	*tenant = t;
	return vctrl;

out_leave:
	np_iso_leave(t);
	return ERR_PTR(ret);
}

/**
 * np_iso_abandon() - the reservation np_iso_provide() was for failed
 * @t: its tenant
 *
 * The secondary controller is torn down as at a release.
 */
void np_iso_abandon(struct np_tenant *t)
{
	np_iso_leave(t);
}

/**
 * np_iso_release() - an isolated reservation was released
 * @q: the reservation, released (np_release())
 *
 * Its secondary controller is torn down from np_wq and then free for the
 * next tenant.
 */
void np_iso_release(struct nvme_peer_queue *q)
{
	np_iso_leave(q->tenant);
}

/* References to the VFs of @pf's tenants: an array, *@n entries. */
static struct pci_dev **np_iso_vfs(struct nvme_peer_ctrl *pf,
				   unsigned int *n)
{
	struct pci_dev **vfs;
	struct np_tenant *t;
	unsigned int nr = 0;

	mutex_lock(&np_iso_lock);
	list_for_each_entry(t, &np_tenants, node)
		nr += t->primary == pf;
	vfs = kcalloc(nr, sizeof(*vfs), GFP_KERNEL | __GFP_NOFAIL);
	*n = 0;
	list_for_each_entry(t, &np_tenants, node)
		if (t->primary == pf)
			vfs[(*n)++] = pci_dev_get(t->vf);
	mutex_unlock(&np_iso_lock);
	return vfs;
}

/**
 * np_iso_vctrls() - the nvme-peer sides of a primary's tenants' VFs
 * @pf: the primary controller
 * @n: set to the number of entries
 *
 * Return: an array of @n controllers, each with a reference: give it back
 * with np_ctrls_put().
 */
struct nvme_peer_ctrl **np_iso_vctrls(struct nvme_peer_ctrl *pf,
				      unsigned int *n)
{
	struct nvme_peer_ctrl **vctrls, *vctrl;
	struct pci_dev **vfs;
	unsigned int i, nr;

	vfs = np_iso_vfs(pf, &nr);
	vctrls = kcalloc(nr, sizeof(*vctrls), GFP_KERNEL | __GFP_NOFAIL);
	*n = 0;
	for (i = 0; i < nr; i++) {
		vctrl = np_iso_vctrl(vfs[i]);
		if (vctrl)
			vctrls[(*n)++] = vctrl;
		pci_dev_put(vfs[i]);
	}
	kfree(vfs);
	return vctrls;
}

/**
 * np_iso_ctrl_down() - a primary goes down: revoke its tenants
 * @pctrl: the controller (a primary or not)
 * @reason: why
 *
 * Its reset takes the secondary controllers offline without nvme-pci on
 * the VFs knowing: each tenant is revoked with @reason, and the VF's side
 * is marked not live so that no release waits for a Delete.
 */
void np_iso_ctrl_down(struct nvme_peer_ctrl *pctrl,
		      enum nvme_peer_reason reason)
{
	struct nvme_peer_ctrl **vctrls;
	unsigned int i, n;

	vctrls = np_iso_vctrls(pctrl, &n);
	for (i = 0; i < n; i++) {
		spin_lock(&vctrls[i]->state_lock);
		vctrls[i]->live = false;
		spin_unlock(&vctrls[i]->state_lock);
		np_revoke_unlocked(vctrls[i], 0, NULL, reason);
	}
	np_ctrls_put(vctrls, n);
}

/**
 * np_iso_ctrl_live() - a primary is live again: recover its tenants' VFs
 * @pctrl: the controller (a primary or not)
 *
 * Queues each provisioned tenant's np_iso_recover(): the reset before
 * this may have taken the secondary controllers offline.  The revoked
 * reservations stay revoked.  The teardowns of its quarantined VFs are
 * tried again.
 *
 * Context: nvme-pci's LIVE event: no admin command here.
 */
void np_iso_ctrl_live(struct nvme_peer_ctrl *pctrl)
{
	struct np_tenant *t;

	mutex_lock(&np_iso_lock);
	list_for_each_entry(t, &np_tenants, node)
		if (t->primary == pctrl && t->provisioned && !t->leaving)
			queue_work(np_wq, &t->recover);
	/* a reset may have cured what kept a quarantined VF dirty */
	np_iso_kick_locked(pctrl);
	mutex_unlock(&np_iso_lock);
}

/**
 * np_iso_ctrl_gone() - a primary is removed or nvme-peer unloads
 * @pctrl: the controller (a primary or not)
 * @reason: why
 *
 * Its tenants are revoked and no claim enables its VFs again; the VFs
 * nvme-peer enabled are disabled, which removes them and what their
 * reservations hold in the controllers: from np_wq at removal (nvme-pci's
 * remove of the primary is running, see above), at once at unload.  The
 * tenants are given back when their owners release them, quarantined
 * ones at once (their teardown sends nothing to a primary that is gone).
 */
void np_iso_ctrl_gone(struct nvme_peer_ctrl *pctrl,
		      enum nvme_peer_reason reason)
{
	struct np_iso_off *off;

	if (pctrl->info.pdev->is_virtfn)
		return;			/* a VF is no primary */
	mutex_lock(&np_iso_vfs_lock);
	pctrl->iso_gone = true;
	off = np_iso_off_locked(pctrl);
	mutex_lock(&np_iso_lock);
	np_iso_kick_locked(pctrl);
	mutex_unlock(&np_iso_lock);
	mutex_unlock(&np_iso_vfs_lock);
	np_iso_ctrl_down(pctrl, reason);
	if (!off)
		return;
	if (reason == NVME_PEER_REASON_UNLOAD)
		np_iso_off(off);
	else
		queue_work(np_wq, &off->work);
}

/* Whether nvme-peer is disabling the VFs of @pdev, from outside the lock. */
static bool np_iso_pf_going_off(struct pci_dev *pdev)
{
	bool going;

	mutex_lock(&np_iso_vfs_lock);
	going = np_iso_going_off(pdev);
	mutex_unlock(&np_iso_vfs_lock);
	return going;
}

/**
 * np_iso_pf_leaving() - a physical function is leaving the bus
 * @pdev: the function (BUS_NOTIFY_DEL_DEVICE: its driver is gone, its
 *	sysfs directory not yet)
 *
 * The VFs nvme-peer enabled on a primary are disabled from np_wq after
 * its REMOVED event (np_iso_ctrl_gone()).  When the function itself
 * leaves (a PCI remove, not an unbind), that work would run after the
 * function's sysfs directory is gone, whose virtfnN links
 * sriov_disable() removes (a kernfs WARNING).  So it runs here, where no
 * nvme-pci lock is held, or this waits for the work already running it.
 */
void np_iso_pf_leaving(struct pci_dev *pdev)
{
	struct np_iso_off *o, *mine = NULL;

	if (!pdev->is_physfn)
		return;
	mutex_lock(&np_iso_vfs_lock);
	list_for_each_entry(o, &np_iso_offs, node) {
		if (o->pf == pdev && cancel_work(&o->work)) {
			mine = o;
			break;
		}
	}
	mutex_unlock(&np_iso_vfs_lock);
	if (mine)
		np_iso_off(mine);
	/* one already running: its pci_disable_sriov() ends soon */
	while (np_iso_pf_going_off(pdev))
		msleep(20);
}

/**
 * np_iso_exit() - at unload: wait for the teardowns, disable the VFs
 *
 * Every owner has released its reservation by now (the doors are closed
 * and held the module); the teardowns they started finish here, while
 * the primaries still answer, and the VFs nvme-peer enabled go.  A
 * quarantined VF's teardown is tried once more and then given back as
 * it is (logged).  A teardown's own retries end within 10 s
 * (NP_ISO_RETRIES); after NP_ISO_EXIT_WAIT the unload stops waiting for
 * them to finish their work: every primary is given up (np_iso_ctrl_gone(),
 * which disables the VFs nvme-peer enabled), so each teardown's next step
 * sends nothing and gives its VF back.  What remains is the step each one
 * is in -- an admin command, bounded by nvme-core's timeouts, or an unbind
 * -- which the unload still waits for: the teardowns run nvme-peer's code
 * on np_wq.
 */
void np_iso_exit(void)
{
	struct nvme_peer_ctrl *pctrl;
	unsigned long i = 0;

	mutex_lock(&np_iso_lock);
	np_iso_unloading = true;
	np_iso_kick_locked(NULL);
	mutex_unlock(&np_iso_lock);

	if (!wait_event_timeout(np_iso_wait, !atomic_read(&np_iso_count),
				NP_ISO_EXIT_WAIT))
		pr_warn("unloading: secondary controllers not down after %u s: their primaries are given up\n",
			NP_ISO_EXIT_WAIT / HZ);
	while ((pctrl = np_ctrl_next(&i))) {
		np_iso_ctrl_gone(pctrl, NVME_PEER_REASON_UNLOAD);
		nvme_peer_ctrl_put(pctrl);
	}
	/* given up: what each teardown still does sends nothing */
	wait_event(np_iso_wait, !atomic_read(&np_iso_count));
	/* a removal's disable still queued */
	flush_workqueue(np_wq);
}

#if IS_ENABLED(CONFIG_NVME_PEER_FAULT_INJECTION)
/**
 * np_iso_show_tenants() - one line per tenant, for the test doors
 * @m: the seq_file of debugfs nvme-peer/isolated
 *
 * "nvmeX tenant vfn V nsid N STATE", STATE active, leaving or quarantined.
 */
void np_iso_show_tenants(struct seq_file *m)
{
	struct np_tenant *t;

	mutex_lock(&np_iso_lock);
	list_for_each_entry(t, &np_tenants, node)
		seq_printf(m, "%s tenant vfn %u nsid %u %s\n", t->primary->name,
			   t->vfn, t->nsid, t->quarantined ? "quarantined" :
			   t->leaving ? "leaving" : "active");
	mutex_unlock(&np_iso_lock);
}
#endif
