// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: what happens to controllers and peers.  nvme-pci reports a
 * controller live (its nvme-peer side is created or told the new run's
 * facts), down (every queue is revoked: reset, error, removal), disabled
 * (every hardware queue is gone: released reservations are freed) and
 * removed (the controller is forgotten); it asks before an admin command
 * that changes a namespace (fence.c's np_ns_admin_cmd()).  A PCI device
 * leaving or unbinding has every queue that uses it fenced and its memory
 * freed.  np_events_exit() forgets every controller at unload.  Each event
 * decides only which queues it concerns and why: the state changes are
 * fence.c's, the reservation's teardown core.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "nvme.h"
#include "nvme-peer.h"

/* A new controller's nvme-peer side, holding one reference, or NULL. */
static struct nvme_peer_ctrl *np_ctrl_new(struct nvme_ctrl *ctrl,
					  const struct nvme_pci_peer_info *info)
{
	struct nvme_peer_ctrl *pctrl = kzalloc(sizeof(*pctrl), GFP_KERNEL);

	if (!pctrl)
		return NULL;
	pctrl->qids = bitmap_zalloc(NP_QID_BITS, GFP_KERNEL);
	if (!pctrl->qids) {
		kfree(pctrl);
		return NULL;
	}
	kref_init(&pctrl->ref);
	nvme_get_ctrl(ctrl);
	pctrl->ctrl = ctrl;
	pctrl->dev = ctrl->device;
	pctrl->info = *info;
	pctrl->live = true;
	pctrl->instance = ctrl->instance;
	snprintf(pctrl->name, sizeof(pctrl->name), "nvme%d", ctrl->instance);
	mutex_init(&pctrl->lock);
	mutex_init(&pctrl->forget_lock);
	spin_lock_init(&pctrl->state_lock);
	init_rwsem(&pctrl->cb_sem);
	INIT_LIST_HEAD(&pctrl->queues);
	INIT_LIST_HEAD(&pctrl->foreign_cmds);
	INIT_WORK(&pctrl->free_work, np_free_work);
	INIT_WORK(&pctrl->fence_work, np_ns_fence_work);
	INIT_WORK(&pctrl->uevent_work, np_uevent_work);
	INIT_LIST_HEAD(&pctrl->uevents);
	np_win_ctrl_init(pctrl);
	return pctrl;
}

static void np_ctrl_live(struct nvme_ctrl *ctrl)
{
	struct nvme_pci_peer_info info;
	struct nvme_peer_ctrl *pctrl;

	if (nvme_pci_peer_get_info(ctrl, &info))
		return;
	/* nvme-pci holds back no qid on these; say why nvme-peer has none */
	if (info.sqes != NVME_NVM_IOSQES || info.shared_tags) {
		dev_warn(ctrl->device,
			 "nvme-peer: no peer queues: the controller %s\n",
			 info.shared_tags ? "shares command ids with the admin queue" :
					    "needs SQEs other than 64 bytes");
		return;
	}
	pctrl = np_ctrl_lookup(ctrl);
	if (pctrl) {
		spin_lock(&pctrl->state_lock);
		pctrl->info = info;
		pctrl->live = true;
		spin_unlock(&pctrl->state_lock);
		np_queue_free_work(pctrl);
		np_win_ctrl_live(pctrl);	/* the PMR, for new windows */
		np_cfs_ctrl_live(pctrl);	/* what a reset revoked comes back */
		np_iso_ctrl_live(pctrl);	/* and its VFs */
		nvme_peer_ctrl_put(pctrl);
		return;
	}

	pctrl = np_ctrl_new(ctrl, &info);
	if (!pctrl || np_ctrl_add(pctrl))
		return;
	if (np_sysfs_ctrl_add(pctrl))
		dev_warn(ctrl->device, "nvme-peer: no sysfs directory\n");
	if (info.nr_qids)
		dev_info(ctrl->device, "nvme-peer: qids %u-%u reserved for peers\n",
			 info.first_qid, info.first_qid + info.nr_qids - 1);
	else
		dev_info(ctrl->device, "nvme-peer: the controller granted no qid for peers\n");
}

static enum nvme_peer_reason np_down_reason(struct nvme_ctrl *ctrl)
{
	switch (ctrl->state) {
	case NVME_CTRL_RESETTING:
	case NVME_CTRL_CONNECTING:
		return NVME_PEER_REASON_RESET;
	case NVME_CTRL_DELETING:
	case NVME_CTRL_DELETING_NOIO:
	case NVME_CTRL_DEAD:
		return NVME_PEER_REASON_REMOVED;
	default:
		return NVME_PEER_REASON_CTRL_DOWN;
	}
}

static void np_ctrl_down(struct nvme_ctrl *ctrl)
{
	struct nvme_peer_ctrl *pctrl = np_ctrl_lookup(ctrl);

	if (!pctrl)
		return;
	spin_lock(&pctrl->state_lock);
	pctrl->live = false;
	spin_unlock(&pctrl->state_lock);
	np_revoke_unlocked(pctrl, 0, NULL, np_down_reason(ctrl));
	np_win_revoke(pctrl, 0, NULL, np_down_reason(ctrl));
	np_iso_ctrl_down(pctrl, np_down_reason(ctrl));	/* a primary's tenants */
	np_inject_down();
	nvme_peer_ctrl_put(pctrl);
}

static void np_ctrl_disabled(struct nvme_ctrl *ctrl)
{
	struct nvme_peer_ctrl *pctrl = np_ctrl_lookup(ctrl);

	if (!pctrl)
		return;
	spin_lock(&pctrl->state_lock);
	pctrl->live = false;
	pctrl->disable_gen++;
	spin_unlock(&pctrl->state_lock);
	np_queue_free_work(pctrl);	/* frees released queues */
	nvme_peer_ctrl_put(pctrl);
}

/*
 * The controller is going away with @q revoked but not released: free what
 * lives in its memory buffer, unmap its doorbells and its dma-buf ranges
 * (mapped for it), which go with it.  The rest (host or peer memory) stays
 * the owner's until it releases @q.
 */
static void np_queue_free_ctrl_mem(struct nvme_peer_queue *q)
{
	struct np_mem *mems[] = { &q->sq, &q->cq, &q->data, &q->sdb };
	int i;

	np_med_stop(q);
	np_doorbells_unmap(q);
	for (i = 0; i < ARRAY_SIZE(mems); i++)
		if ((mems[i]->provider &&
		     mems[i]->provider == q->pctrl->info.pdev) ||
		    mems[i]->dmabuf)
			np_mem_free(q, mems[i]);
	np_fence_rq_free(q);		/* before nvme-pci frees the admin queue */
}

/* Whether a hardware queue of @pctrl may still exist. */
static bool np_ctrl_has_hw(struct nvme_peer_ctrl *pctrl)
{
	struct nvme_peer_queue *q;
	bool hw = false;

	spin_lock(&pctrl->state_lock);
	list_for_each_entry(q, &pctrl->queues, node)
		hw |= !np_hw_gone(q);
	spin_unlock(&pctrl->state_lock);
	return hw;
}

/*
 * Forget a controller, once: nvme-pci is removing it (it is disabled
 * already), or nvme-peer is unloading (it may be live: its queues are
 * deleted).  Whichever comes second waits until the first is done, so
 * REMOVED does not return while admin commands may still be sent.
 * The administrator's intents let go of their reservations first; a
 * driver's or a process's queue stays revoked, with its host and peer
 * memory, until its owner releases it.
 */
static void np_ctrl_forget(struct nvme_peer_ctrl *pctrl,
			   enum nvme_peer_reason reason)
{
	struct nvme_peer_queue *q, *next;

	np_cfs_ctrl_gone(pctrl, reason);
	np_iso_ctrl_gone(pctrl, reason);	/* a primary's VFs go first */
	mutex_lock(&pctrl->forget_lock);
	if (pctrl->forgotten) {
		mutex_unlock(&pctrl->forget_lock);
		return;
	}
	spin_lock(&pctrl->state_lock);
	pctrl->removed = true;
	spin_unlock(&pctrl->state_lock);
	np_win_ctrl_gone(pctrl, reason);
	np_sysfs_ctrl_del(pctrl);	/* waits for sysfs writers */

	mutex_lock(&pctrl->lock);
	list_for_each_entry_safe(q, next, &pctrl->queues, node) {
		kobject_get(&q->kobj);
		np_revoke_locked(q, NP_EV_REVOKE, reason);
		kobject_put(&q->kobj);
	}
	if (reason == NVME_PEER_REASON_REMOVED) {
		spin_lock(&pctrl->state_lock);
		pctrl->disable_gen++;	/* nvme_remove() disabled it */
		spin_unlock(&pctrl->state_lock);
	} else if (np_ctrl_has_hw(pctrl)) {
		/* a Delete failed: a reset destroys every queue */
		dev_warn(pctrl->dev,
			 "nvme-peer: resetting the controller to delete peer queues\n");
		np_ctrl_reset_wait(pctrl, false);
	}
	/* the disable generation moved or every Delete completed: all gone */
	list_for_each_entry_safe(q, next, &pctrl->queues, node) {
		if (q->state == NP_Q_RELEASED)
			np_queue_destroy(q);
		else
			np_queue_free_ctrl_mem(q);
	}
	mutex_unlock(&pctrl->lock);
	flush_work(&pctrl->free_work);
	flush_work(&pctrl->fence_work);
	np_uevents_stop(pctrl);		/* sent while nvmeX is registered */
	pctrl->forgotten = true;
	mutex_unlock(&pctrl->forget_lock);
	/* an intent enabled after the first call: removed now, let go */
	np_cfs_ctrl_gone(pctrl, reason);

	np_ctrl_del(pctrl);		/* the registry's reference */
}

static void np_ctrl_removed(struct nvme_ctrl *ctrl)
{
	struct nvme_peer_ctrl *pctrl = np_ctrl_lookup(ctrl);

	if (!pctrl)
		return;
	np_ctrl_forget(pctrl, NVME_PEER_REASON_REMOVED);
	nvme_peer_ctrl_put(pctrl);
}

static void np_notify(struct nvme_ctrl *ctrl, enum nvme_pci_peer_event event)
{
	switch (event) {
	case NVME_PCI_PEER_LIVE:
		np_ctrl_live(ctrl);
		break;
	case NVME_PCI_PEER_DOWN:
		np_ctrl_down(ctrl);
		break;
	case NVME_PCI_PEER_DISABLED:
		np_ctrl_disabled(ctrl);
		break;
	case NVME_PCI_PEER_REMOVED:
		np_ctrl_removed(ctrl);
		break;
	}
}

static const struct nvme_pci_peer_client np_client = {
	.notify = np_notify,
	.admin_cmd = np_ns_admin_cmd,
};

/* ---- peer devices going away ------------------------------------------- */

/* Whether @q is driven by @pdev or keeps a queue or its data in @pdev. */
static bool np_queue_uses(struct nvme_peer_queue *q, struct pci_dev *pdev)
{
	return q->peer == pdev || q->sq.provider == pdev ||
	       q->cq.provider == pdev || q->data.provider == pdev ||
	       q->sdb.provider == pdev;
}

/*
 * @pdev leaves and @q, fenced, cannot reach it any more: free or unmap
 * what belongs to @pdev.  The owner keeps the rest until it releases @q.
 */
static void np_peer_gone_queue(struct nvme_peer_queue *q, struct pci_dev *pdev)
{
	struct np_mem *mems[] = { &q->sq, &q->cq, &q->data, &q->sdb };
	int i;

	lockdep_assert_held(&q->pctrl->lock);
	if (list_empty(&q->node))
		return;			/* released and destroyed meanwhile */
	for (i = 0; i < ARRAY_SIZE(mems); i++) {
		if (mems[i]->provider == pdev)
			np_mem_free(q, mems[i]);
		else if (q->peer == pdev)
			np_mem_unmap_peer(q, mems[i]);
	}
	if (q->peer == pdev)
		np_doorbells_unmap(q);
	np_queue_reap(q);
}

/*
 * Fence every queue that uses @pdev (reason "peer-removed": revoked, its
 * hardware queue drained, deleted or reset away) without pctrl->lock, then
 * free what belongs to @pdev under it.
 */
static void np_peer_gone(struct nvme_peer_ctrl *pctrl, struct pci_dev *pdev)
{
	struct nvme_peer_queue *q, **qs;
	unsigned int n = 0, i;

	np_win_revoke(pctrl, 0, pdev, NVME_PEER_REASON_PEER_REMOVED);
	mutex_lock(&pctrl->lock);
	list_for_each_entry(q, &pctrl->queues, node)
		n += np_queue_uses(q, pdev);
	qs = kcalloc(n, sizeof(*qs), GFP_KERNEL | __GFP_NOFAIL);
	n = 0;
	list_for_each_entry(q, &pctrl->queues, node) {
		if (np_queue_uses(q, pdev)) {
			kobject_get(&q->kobj);
			qs[n++] = q;
		}
	}
	mutex_unlock(&pctrl->lock);

	for (i = 0; i < n; i++)
		np_fence(qs[i], NVME_PEER_REASON_PEER_REMOVED, NP_FENCE_BUDGET, 0);
	mutex_lock(&pctrl->lock);
	for (i = 0; i < n; i++) {
		np_peer_gone_queue(qs[i], pdev);
		kobject_put(&qs[i]->kobj);
	}
	mutex_unlock(&pctrl->lock);
	kfree(qs);
}

/*
 * A PCI device is unbinding from its driver or leaving the bus.  If it
 * drives a reservation or holds its memory, that memory (P2PDMA pages pin
 * the device's pgmap: the unbind would wait for them forever) and its DMA
 * mappings must go before this returns.
 */
static int np_pci_notify(struct notifier_block *nb, unsigned long action,
			 void *data)
{
	struct pci_dev *pdev = to_pci_dev(data);
	struct nvme_peer_ctrl *pctrl;
	unsigned long i = 0;

	if (action != BUS_NOTIFY_UNBIND_DRIVER &&
	    action != BUS_NOTIFY_DEL_DEVICE)
		return NOTIFY_DONE;
	/* a primary's VFs go before its sysfs directory does */
	if (action == BUS_NOTIFY_DEL_DEVICE)
		np_iso_pf_leaving(pdev);
	while ((pctrl = np_ctrl_next(&i))) {
		if (pctrl->info.pdev != pdev)	/* its own removal: REMOVED */
			np_peer_gone(pctrl, pdev);
		nvme_peer_ctrl_put(pctrl);
	}
	return NOTIFY_OK;
}

static struct notifier_block np_pci_nb = {
	.notifier_call = np_pci_notify,
};

/**
 * np_events_init() - listen to nvme-pci and to the PCI bus
 *
 * Return: 0; -ENODEV when nvme-pci holds back no queue
 * (nvme.peer_queues=0), -EBUSY when another client is registered.
 */
int __init np_events_init(void)
{
	int ret;

	ret = bus_register_notifier(&pci_bus_type, &np_pci_nb);
	if (ret)
		return ret;
	ret = nvme_pci_peer_register(&np_client);
	if (ret == -ENODEV)
		pr_err("nvme.peer_queues is 0: no queue to hand out\n");
	if (ret)
		bus_unregister_notifier(&pci_bus_type, &np_pci_nb);
	return ret;
}

/**
 * np_events_exit() - forget every controller and stop listening
 *
 * Forgets every controller while the hooks still report events, so that a
 * removal racing the unload waits for it (np_ctrl_forget() runs once per
 * controller) and a reset can still settle queues; then unregisters, after
 * which no event runs.  The caller drains the workqueues afterwards.
 */
void np_events_exit(void)
{
	struct nvme_peer_ctrl *pctrl;
	unsigned long i = 0;

	np_ctrls_close();
	while ((pctrl = np_ctrl_next(&i))) {
		np_ctrl_forget(pctrl, NVME_PEER_REASON_UNLOAD);
		nvme_peer_ctrl_put(pctrl);
	}
	nvme_pci_peer_unregister(&np_client);
	bus_unregister_notifier(&pci_bus_type, &np_pci_nb);
}
