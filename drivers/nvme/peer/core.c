// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: hand NVMe I/O queue pairs that nvme-pci holds back
 * (nvme.peer_queues=N) to peer devices, and take them back.
 *
 * Lock order, outer first (the one table; code asserts with lockdep):
 *
 *   np_ctrls_lock         mutex: adding and removing controllers; lookups
 *                         of np_ctrls run under RCU
 *   pctrl->forget_lock    mutex: np_ctrl_forget() runs once
 *   pctrl->lock           mutex: reserve, release, recycle and teardown of
 *                         one controller's queues; admin commands are sent
 *                         under it, so the DOWN and DISABLED events (which
 *                         may run from the NVMe timeout handler while one
 *                         waits) and the namespace fence never take it
 *   ctrl->scan_lock       nvme core's, around Identify Namespace only
 *   np_med_lock           mutex (mediate.c): the pollers, which queue each
 *                         serves; under it a poller's own lock, held for
 *                         that poller's whole pass
 *   pctrl->state_lock     spinlock: live state, generation, qid bitmap,
 *                         queue list, every queue's state; the queue list
 *                         changes only with pctrl->lock held too
 *
 *   pctrl->cb_sem         rwsem, read while an event calls owners back; a
 *                         release takes it for write to wait for them; an
 *                         owner's callback may take its own locks (cdev.c's
 *                         map_lock) inside it
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "nvme.h"
#include "nvme-peer.h"

static bool allow_direct;
module_param(allow_direct, bool, 0644);
MODULE_PARM_DESC(allow_direct,
		 "allow new direct-mode queues: peers write hardware SQs and doorbells, nothing is checked (default: no)");

/* the Status Code Type and Status Code of an NVMe status */
#define NP_STATUS_SCT_SC	0x7ff

static DEFINE_XARRAY(np_ctrls);
static DEFINE_MUTEX(np_ctrls_lock);
static bool np_unloading;
struct workqueue_struct *np_wq;		/* drained before unload */

static void np_ctrl_release(struct kref *ref)
{
	struct nvme_peer_ctrl *pctrl = container_of(ref, struct nvme_peer_ctrl,
						    ref);

	WARN_ON_ONCE(!list_empty(&pctrl->queues));
	nvme_put_ctrl(pctrl->ctrl);
	bitmap_free(pctrl->qids);
	kfree_rcu(pctrl, rcu);
}

static struct nvme_peer_ctrl *np_ctrl_lookup(struct nvme_ctrl *ctrl)
{
	struct nvme_peer_ctrl *pctrl;

	rcu_read_lock();
	pctrl = xa_load(&np_ctrls, ctrl->instance);
	if (pctrl && (pctrl->ctrl != ctrl || !kref_get_unless_zero(&pctrl->ref)))
		pctrl = NULL;
	rcu_read_unlock();
	return pctrl;
}

/* The last reference to a reservation is gone. */
static void np_queue_release(struct kobject *kobj)
{
	struct nvme_peer_queue *q = np_queue_of(kobj);

	np_bind_put(q->bind);
	pci_dev_put(q->peer);
	kref_put(&q->pctrl->ref, np_ctrl_release);
	kfree(q);
}

/* A reservation's lifetime is its kobject's; sysfs.c has its attributes. */
static const struct kobj_type np_queue_ktype = {
	.release = np_queue_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = np_queue_groups,
};

/* The controller at index *@i or after, with a reference; *@i moves on. */
static struct nvme_peer_ctrl *np_ctrl_next(unsigned long *i)
{
	struct nvme_peer_ctrl *pctrl;

	mutex_lock(&np_ctrls_lock);
	pctrl = xa_find(&np_ctrls, i, ULONG_MAX, XA_PRESENT);
	if (pctrl) {
		kref_get(&pctrl->ref);
		(*i)++;
	}
	mutex_unlock(&np_ctrls_lock);
	return pctrl;
}

/*
 * Wait until no DOWN event is calling an owner back: after this, a queue
 * released or detached meanwhile is not called back any more.
 */
static void np_wait_callbacks(struct nvme_peer_ctrl *pctrl)
{
	down_write(&pctrl->cb_sem);
	up_write(&pctrl->cb_sem);
}

/* ---- a reservation's state, its parameters and its qid ----------------- */

/**
 * np_qstate_next() - apply an event to a reservation's state
 * @state: the state, updated on success
 * @ev: what happened
 * @notify: set when the owner's revoke callback must run now
 *
 * A reservation is revoked at most once: the first %NP_EV_REVOKE or
 * %NP_EV_RELEASE of a handed-out (active) reservation asks for the
 * callback, later ones do not.  A reservation that was never handed out
 * (still %NP_Q_NEW) never asks for it.
 *
 * Return: 0; -EALREADY for a second revocation (state unchanged); -ESTALE
 * when creation completes on a reservation revoked meanwhile; -EINVAL for
 * an event that cannot happen in @state.
 */
static int np_qstate_next(enum np_qstate *state, enum np_qevent ev, bool *notify)
{
	*notify = false;
	switch (*state) {
	case NP_Q_NEW:
		if (ev == NP_EV_CREATED)
			*state = NP_Q_ACTIVE;
		else if (ev == NP_EV_REVOKE)
			*state = NP_Q_REVOKED;
		else
			*state = NP_Q_RELEASED;
		return 0;
	case NP_Q_ACTIVE:
		if (ev == NP_EV_CREATED)
			return -EINVAL;
		*notify = true;
		*state = ev == NP_EV_REVOKE ? NP_Q_REVOKED : NP_Q_RELEASED;
		return 0;
	case NP_Q_REVOKED:
		if (ev == NP_EV_CREATED)
			return -ESTALE;
		if (ev == NP_EV_REVOKE)
			return -EALREADY;
		*state = NP_Q_RELEASED;
		return 0;
	case NP_Q_RELEASED:
	default:
		return -EINVAL;
	}
}

/**
 * np_validate_params() - check reservation parameters against a controller
 * @p: the parameters
 * @mqes: largest queue depth (CAP.MQES + 1)
 * @cmbsz: the CMBSZ register, 0 without a CMB
 *
 * The namespace and the peer's reachability are checked later, against the
 * live controller.
 *
 * Return: 0; -EINVAL for a malformed request (nsid 0 or broadcast, depth not
 * a power of two in 2..@mqes, or above %NVME_PEER_MAX_MEDIATED_DEPTH in
 * mediated mode, SQ/CQ placement none, data size not a page multiple up to
 * 64 MiB (4 MiB in host memory, which is one physically contiguous
 * allocation) or given without a data placement, peer placement without a peer,
 * an unknown mode, a policy in direct mode, a dma-buf range that
 * np_dmabuf_validate() refuses); -EOPNOTSUPP when the
 * controller cannot do it (CMB placement without a CMB or without the CMBSZ
 * support bit for that use).
 */
static int np_validate_params(const struct nvme_peer_params *p, u32 mqes, u32 cmbsz)
{
	const enum nvme_peer_placement all[] = {
		p->sq_placement, p->cq_placement, p->data_placement
	};
	int i;

	if (!p->nsid || p->nsid == NVME_NSID_ALL)
		return -EINVAL;
	if (p->depth < 2 || p->depth > mqes || !is_power_of_2(p->depth))
		return -EINVAL;
	if (p->mode != NVME_PEER_MODE_MEDIATED && p->mode != NVME_PEER_MODE_DIRECT)
		return -EINVAL;
	if (p->mode == NVME_PEER_MODE_MEDIATED &&
	    p->depth > NVME_PEER_MAX_MEDIATED_DEPTH)
		return -EINVAL;
	/* a policy is for mediated mode: refused, not ignored */
	if (p->mode == NVME_PEER_MODE_DIRECT &&
	    (p->policy.opcodes || p->policy.nr_extents ||
	     p->policy.nr_windows || p->policy.max_nlb))
		return -EINVAL;
	if (p->sq_placement == NVME_PEER_PLACE_NONE ||
	    p->cq_placement == NVME_PEER_PLACE_NONE)
		return -EINVAL;
	for (i = 0; i < ARRAY_SIZE(all); i++) {
		if (all[i] > NVME_PEER_PLACE_DMABUF)
			return -EINVAL;
		if (all[i] == NVME_PEER_PLACE_PEER && !p->peer)
			return -EINVAL;
	}
	if (!p->data_size != !p->data_placement)
		return -EINVAL;
	if (p->data_size > NP_MAX_DATA_SIZE || !PAGE_ALIGNED(p->data_size) ||
	    (p->data_placement == NVME_PEER_PLACE_HOST &&
	     p->data_size > NP_MAX_HOST_DATA_SIZE))
		return -EINVAL;

	if (np_dmabuf_validate(p))
		return -EINVAL;

	if (p->sq_placement == NVME_PEER_PLACE_CMB && !(cmbsz & NVME_CMBSZ_SQS))
		return -EOPNOTSUPP;
	if (p->cq_placement == NVME_PEER_PLACE_CMB && !(cmbsz & NVME_CMBSZ_CQS))
		return -EOPNOTSUPP;
	if (p->data_placement == NVME_PEER_PLACE_CMB &&
	    (cmbsz & (NVME_CMBSZ_WDS | NVME_CMBSZ_RDS)) !=
	    (NVME_CMBSZ_WDS | NVME_CMBSZ_RDS))
		return -EOPNOTSUPP;
	return 0;
}

/**
 * np_qid_alloc() - take a free qid in a range
 * @map: held qids, indexed by qid
 * @first: first qid of the range
 * @nr: number of qids in the range
 * @want: the qid wanted, or 0 for the lowest free one
 *
 * Return: the qid; -ENOSPC when all are held; -EINVAL when @want is outside
 * the range; -EBUSY when @want is held.
 */
static int np_qid_alloc(unsigned long *map, unsigned int first,
			unsigned int nr, unsigned int want)
{
	unsigned long end = (unsigned long)first + nr, qid;

	if (want) {
		if (want < first || want >= end)
			return -EINVAL;
		if (__test_and_set_bit(want, map))
			return -EBUSY;
		return want;
	}
	qid = find_next_zero_bit(map, end, first);
	if (qid >= end)
		return -ENOSPC;
	__set_bit(qid, map);
	return qid;
}

/**
 * np_qid_free() - give a qid back
 * @map: held qids
 * @qid: a qid np_qid_alloc() returned
 */
static void np_qid_free(unsigned long *map, unsigned int qid)
{
	WARN_ON_ONCE(!__test_and_clear_bit(qid, map));
}

/* Whether the controller may still run @q's hardware queues. */
static bool np_hw_gone(struct nvme_peer_queue *q)
{
	lockdep_assert_held(&q->pctrl->state_lock);
	return (!q->hw_cq && !q->hw_sq) || q->gen != q->pctrl->disable_gen;
}

/*
 * Send an admin command the way an ioctl does (NVME_REQ_USERCMD): it runs
 * only while the controller is LIVE and fails at once, with a host path
 * error, while it resets.  A command of ours must never run in the middle
 * of a reset, before nvme-pci has set up its own queues.
 */
static int np_admin_cmd(struct nvme_peer_ctrl *pctrl, struct nvme_command *c,
			void *buf, unsigned int len)
{
	struct request *req;
	blk_status_t status;
	int ret;

	req = blk_mq_alloc_request(pctrl->ctrl->admin_q, nvme_req_op(c), 0);
	if (IS_ERR(req))
		return PTR_ERR(req);
	nvme_init_request(req, c);
	nvme_req(req)->flags |= NVME_REQ_USERCMD;
	if (buf && len) {
		ret = blk_rq_map_kern(req->q, req, buf, len, GFP_KERNEL);
		if (ret)
			goto out_free_req;
	}
	status = blk_execute_rq(req, false);
	if (nvme_req(req)->flags & NVME_REQ_CANCELLED)
		ret = -EINTR;
	else if (nvme_req(req)->status)
		ret = nvme_req(req)->status;
	else
		ret = blk_status_to_errno(status);
out_free_req:
	blk_mq_free_request(req);
	return ret;
}

/* The errno for an admin command's result: a status becomes -EIO. */
static int np_admin_errno(int ret)
{
	if (ret <= 0)
		return ret;
	if ((ret & NP_STATUS_SCT_SC) == NVME_SC_HOST_PATH_ERROR)
		return -EAGAIN;		/* the controller is resetting */
	if ((ret & NP_STATUS_SCT_SC) == NVME_SC_INVALID_NS)
		return -ENODEV;
	return -EIO;
}

/* The controller says the queue a Delete named does not exist. */
static bool np_no_such_queue(int status)
{
	status &= NP_STATUS_SCT_SC;
	return status == NVME_SC_QID_INVALID || status == NVME_SC_CQ_INVALID;
}

/*
 * Send an admin command that creates (@create true) or deletes a hardware
 * queue, and track whether the queue may exist: it may from the moment a
 * Create is sent, until the controller refuses that Create, completes the
 * Delete or says there is no such queue.  A transport error (timeout,
 * controller going down) leaves the queue "maybe": only disabling the
 * controller settles it.
 *
 * A Create is sent only while the controller is live and the queue is not
 * revoked (so a queue a fence found quiet stays so), and q->gen records
 * the run it was sent in.  If the controller was disabled while it was on
 * its way, it ran either before the disable (and died with that run) or,
 * after a complete reset, in the new run: the queue is then assumed to
 * exist in the current run, so that it is deleted or outlived, never
 * forgotten.
 */
static int np_admin_queue(struct nvme_peer_queue *q, struct nvme_command *c,
			  bool *hw, bool create)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	int ret;

	lockdep_assert_held(&q->hw_lock);
	if (create) {
		/* a revoked queue is never created: a fence saw it quiet */
		spin_lock(&pctrl->state_lock);
		ret = pctrl->live && (q->state == NP_Q_NEW ||
				      q->state == NP_Q_ACTIVE) ? 0 : -EAGAIN;
		if (!ret) {
			*hw = true;
			q->gen = pctrl->disable_gen;
		}
		spin_unlock(&pctrl->state_lock);
		if (ret)
			return ret;
		np_inject_reset(pctrl);
	}
	ret = np_inject_admin_error(c);
	if (!ret)
		ret = np_admin_cmd(pctrl, c, NULL, 0);
	if (!create && ret > 0 && np_no_such_queue(ret))
		ret = 0;		/* gone already: as good as deleted */
	if (ret > 0)
		dev_warn(pctrl->ctrl->device,
			 "nvme-peer: qid %u: admin opcode %#x failed, status %#x\n",
			 q->qid, c->common.opcode, ret);
	spin_lock(&pctrl->state_lock);
	if (create ? ret > 0 : !ret)
		*hw = false;
	else if (create && !ret)
		q->gen = pctrl->disable_gen;	/* see above */
	spin_unlock(&pctrl->state_lock);
	return np_admin_errno(ret);
}

static int np_create_hw_locked(struct nvme_peer_queue *q)
{
	struct np_mem *sq = np_mediated(q) ? &q->hsq : &q->sq;
	struct np_mem *cq = np_mediated(q) ? &q->hcq : &q->cq;
	struct nvme_command c = { };
	int ret;

	c.create_cq.opcode = nvme_admin_create_cq;
	c.create_cq.prp1 = cpu_to_le64(cq->ctrl_dma);
	c.create_cq.cqid = cpu_to_le16(q->qid);
	c.create_cq.qsize = cpu_to_le16(q->params.depth - 1);
	c.create_cq.cq_flags = cpu_to_le16(NVME_QUEUE_PHYS_CONTIG);
	ret = np_admin_queue(q, &c, &q->hw_cq, true);
	if (ret)
		return ret;

	memset(&c, 0, sizeof(c));
	c.create_sq.opcode = nvme_admin_create_sq;
	c.create_sq.prp1 = cpu_to_le64(sq->ctrl_dma);
	c.create_sq.sqid = cpu_to_le16(q->qid);
	c.create_sq.qsize = cpu_to_le16(q->params.depth - 1);
	c.create_sq.sq_flags = cpu_to_le16(NVME_QUEUE_PHYS_CONTIG |
					   NVME_SQ_PRIO_MEDIUM);
	c.create_sq.cqid = cpu_to_le16(q->qid);
	return np_admin_queue(q, &c, &q->hw_sq, true);
}

static int np_create_hw(struct nvme_peer_queue *q)
{
	int ret;

	mutex_lock(&q->hw_lock);
	ret = np_create_hw_locked(q);
	mutex_unlock(&q->hw_lock);
	return ret;
}

/**
 * np_delete_hw() - delete the SQ, then the CQ: those that may exist
 * @q: the reservation
 *
 * Under @q->hw_lock, so that a fence and a release or recycle never cross
 * each other's Create and Delete.  A Delete that fails leaves the queue
 * "maybe there": only a disable settles it.
 */
void np_delete_hw(struct nvme_peer_queue *q)
{
	struct nvme_command c = { };

	mutex_lock(&q->hw_lock);
	c.delete_queue.qid = cpu_to_le16(q->qid);
	if (q->hw_sq) {
		c.delete_queue.opcode = nvme_admin_delete_sq;
		np_admin_queue(q, &c, &q->hw_sq, false);
	}
	if (q->hw_cq && !q->hw_sq) {
		c.delete_queue.opcode = nvme_admin_delete_cq;
		np_admin_queue(q, &c, &q->hw_cq, false);
	}
	mutex_unlock(&q->hw_lock);
}

/* Free what the controller and the peer could reach. */
static void np_queue_free_mem(struct nvme_peer_queue *q)
{
	np_med_stop(q);
	np_med_free(q);
	np_doorbells_unmap(q);
	np_mem_free(q, &q->data);
	np_mem_free(q, &q->cq);
	np_mem_free(q, &q->sq);
}

/* Drop a released queue whose hardware queues are gone. */
static void np_queue_destroy(struct nvme_peer_queue *q)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;

	lockdep_assert_held(&pctrl->lock);
	/* waits for readers of qN/ files, which read the memory freed next */
	if (q->sysfs_added)
		kobject_del(&q->kobj);
	np_queue_free_mem(q);
	spin_lock(&pctrl->state_lock);
	list_del_init(&q->node);
	np_qid_free(pctrl->qids, q->qid);
	spin_unlock(&pctrl->state_lock);
	kobject_put(&q->kobj);		/* the list's reference */
}

/* Destroy @q if it was released and the controller cannot reach it. */
static void np_queue_reap(struct nvme_peer_queue *q)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	bool gone;

	lockdep_assert_held(&pctrl->lock);
	spin_lock(&pctrl->state_lock);
	gone = q->state == NP_Q_RELEASED && np_hw_gone(q);
	spin_unlock(&pctrl->state_lock);
	if (gone)
		np_queue_destroy(q);
}

/*
 * The one revocation path: move @q to its next state, tell the owner once,
 * delete the hardware queues while the controller is live, and free what
 * is no longer reachable.  @ev is NP_EV_RELEASE when the owner lets go.
 */
static void np_revoke_locked(struct nvme_peer_queue *q, enum np_qevent ev,
			     enum nvme_peer_reason reason)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	nvme_peer_revoke_fn revoke;
	bool notify, hw_live;
	void *priv;

	lockdep_assert_held(&pctrl->lock);
	spin_lock(&pctrl->state_lock);
	if (np_qstate_next(&q->state, ev, &notify) == 0 && notify)
		q->reason = reason;
	hw_live = pctrl->live && !np_hw_gone(q);
	revoke = q->params.revoke;
	priv = q->params.priv;
	spin_unlock(&pctrl->state_lock);
	np_med_stop(q);
	if (ev == NP_EV_RELEASE)
		np_wait_callbacks(pctrl);

	if (notify && revoke)
		revoke(q, reason, priv);
	if (hw_live)
		np_delete_hw(q);
	np_queue_reap(q);
}

/*
 * After a disable (every hardware queue is gone) or a restart (a Create that
 * crossed a reset may have left a queue in the new run), settle the released
 * reservations: delete what may still exist, free what cannot.
 */
static void np_free_work(struct work_struct *work)
{
	struct nvme_peer_ctrl *pctrl = container_of(work, struct nvme_peer_ctrl,
						    free_work);
	struct nvme_peer_queue *q, *next;
	bool maybe;

	mutex_lock(&pctrl->lock);
	list_for_each_entry_safe(q, next, &pctrl->queues, node) {
		if (q->state != NP_Q_RELEASED)	/* final; set under our lock */
			continue;
		spin_lock(&pctrl->state_lock);
		maybe = pctrl->live && !np_hw_gone(q);
		spin_unlock(&pctrl->state_lock);
		if (maybe)
			np_delete_hw(q);
		np_queue_reap(q);
	}
	mutex_unlock(&pctrl->lock);
	kref_put(&pctrl->ref, np_ctrl_release);
}

/* Run np_free_work(), which drops the reference taken here. */
static void np_queue_free_work(struct nvme_peer_ctrl *pctrl)
{
	kref_get(&pctrl->ref);
	if (!queue_work(np_wq, &pctrl->free_work))
		kref_put(&pctrl->ref, np_ctrl_release);
}

/*
 * The namespace's format as the controller reports it now, for the guard.
 * An admin command that changes it (Format NVM through the ioctl, say)
 * holds the controller's scan_lock from before it is sent until it has
 * completed; the block layer's view (ns->lba_shift, ns->ms, the capacity)
 * then lags until the namespace is revalidated, and a reservation made in
 * between would check commands with a stale LBA size.  So ask under
 * scan_lock, and -EAGAIN until both views agree.  (The capacity is 0 for
 * a format the block layer cannot use, such as separate metadata.)
 */
static int np_ns_format(struct nvme_peer_ctrl *pctrl, struct nvme_ns *ns,
			u32 nsid, u32 *lba_shift, u64 *nsze)
{
	struct nvme_command c = { };
	struct nvme_id_ns *id;
	struct nvme_lbaf *f;
	sector_t capacity;
	int ret;

	lockdep_assert_held(&pctrl->lock);
	id = kmalloc(sizeof(*id), GFP_KERNEL);
	if (!id)
		return -ENOMEM;
	c.identify.opcode = nvme_admin_identify;
	c.identify.nsid = cpu_to_le32(nsid);
	c.identify.cns = NVME_ID_CNS_NS;
	mutex_lock(&pctrl->ctrl->scan_lock);
	ret = np_admin_errno(np_admin_cmd(pctrl, &c, id, sizeof(*id)));
	if (ret)
		goto out_unlock;
	f = &id->lbaf[nvme_lbaf_index(id->flbas)];
	*lba_shift = f->ds;
	*nsze = le64_to_cpu(id->nsze);
	capacity = get_capacity(ns->disk);
	if (f->ds != np_ns_lba_shift(ns) || !f->ms != !np_ns_ms(ns) ||
	    (capacity && *nsze != capacity >> (f->ds - SECTOR_SHIFT)))
		ret = -EAGAIN;
out_unlock:
	mutex_unlock(&pctrl->ctrl->scan_lock);
	kfree(id);
	return ret;
}

/* Whether @p may be reserved now: -ENODEV, -EAGAIN, -EINVAL, -EPERM... */
static int np_reserve_allowed(struct nvme_peer_ctrl *pctrl,
			      const struct nvme_peer_params *p,
			      enum np_owner owner)
{
	int ret;

	lockdep_assert_held(&pctrl->lock);
	spin_lock(&pctrl->state_lock);
	ret = pctrl->removed ? -ENODEV : !pctrl->live ? -EAGAIN : 0;
	spin_unlock(&pctrl->state_lock);
	if (!ret)
		ret = np_validate_params(p, pctrl->info.mqes, pctrl->info.cmbsz);
	if (!ret && p->mode == NVME_PEER_MODE_DIRECT &&
	    (!READ_ONCE(allow_direct) ||
	     (owner != NP_OWNER_KERNEL && !capable(CAP_SYS_RAWIO))))
		ret = -EPERM;
	return ret;
}

/* The namespace @p names, with a reference, if @p's mode can use it. */
static int np_reserve_ns(struct nvme_peer_ctrl *pctrl,
			 const struct nvme_peer_params *p, struct nvme_ns **nsp)
{
	struct nvme_ns *ns = nvme_find_get_ns(pctrl->ctrl, p->nsid);

	if (!ns)
		return -ENODEV;
	/*
	 * With metadata the controller moves bytes the guard does not count:
	 * LBAs longer than their data (extended formats) or a metadata
	 * buffer at MPTR.  Mediated mode cannot confine either.
	 */
	if (p->mode == NVME_PEER_MODE_MEDIATED && np_ns_ms(ns)) {
		nvme_put_ns(ns);
		return -EOPNOTSUPP;
	}
	*nsp = ns;
	return 0;
}

/* A new reservation, not on the controller's list yet. */
static struct nvme_peer_queue *np_queue_new(struct nvme_peer_ctrl *pctrl,
					    const struct nvme_peer_params *p,
					    enum np_owner owner,
					    const struct np_provision *prov)
{
	struct nvme_peer_queue *q = kzalloc(sizeof(*q), GFP_KERNEL);

	if (!q)
		return ERR_PTR(-ENOMEM);
	kobject_init(&q->kobj, &np_queue_ktype);
	mutex_init(&q->hw_lock);
	q->pctrl = pctrl;
	kref_get(&pctrl->ref);
	q->owner = owner;
	if (prov) {
		q->provisioned = true;
		q->uid = prov->uid;
		q->gid = prov->gid;
	}
	q->params = *p;
	q->params.file.file = NULL;	/* the binding holds its own */
	q->peer = pci_dev_get(p->peer);
	q->max_xfer = min_t(u64, U32_MAX,
			    (u64)pctrl->ctrl->max_hw_sectors << SECTOR_SHIFT);
	INIT_LIST_HEAD(&q->node);
	return q;
}

/* Give @q a qid and put it on the controller's list. */
static int np_queue_take_qid(struct nvme_peer_queue *q, u16 want_qid)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	int qid;

	spin_lock(&pctrl->state_lock);
	qid = np_qid_alloc(pctrl->qids, pctrl->info.first_qid,
			   pctrl->info.nr_qids, want_qid);
	if (qid >= 0) {
		q->qid = qid;
		kobject_get(&q->kobj);	/* the list's reference */
		list_add_tail(&q->node, &pctrl->queues);
	}
	spin_unlock(&pctrl->state_lock);
	return qid < 0 ? qid : 0;
}

/*
 * The SQ, the CQ and the data buffer placed in dma-bufs, or (@dmabuf
 * false) the others and what the mode needs besides.  Every dma-buf range
 * is imported before the queue is on the controller's list: a move during
 * the import of another range (an exporter that migrates on map) then
 * revokes nothing and only marks the range moved, which the reserve checks
 * once the queue is on the list.
 */
static int np_queue_alloc_mem(struct nvme_peer_queue *q, bool dmabuf)
{
	const struct nvme_peer_params *p = &q->params;
	const struct {
		struct np_mem *m;
		enum nvme_peer_placement where;
		size_t size;
	} r[] = {
		{ &q->sq, p->sq_placement, np_sq_bytes(p->depth) },
		{ &q->cq, p->cq_placement, np_cq_bytes(p->depth) },
		{ &q->data, p->data_placement, p->data_size },
	};
	int ret, i;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		bool in_dmabuf = r[i].where == NVME_PEER_PLACE_DMABUF;

		if (in_dmabuf != dmabuf)
			continue;
		ret = np_mem_alloc(q, r[i].m, r[i].where, r[i].size);
		if (ret)
			return ret;
	}
	if (dmabuf)
		return 0;
	/* the caller's dma-buf pointers: the ranges hold their own */
	q->params.sq_buf.dmabuf = NULL;
	q->params.cq_buf.dmabuf = NULL;
	q->params.data_buf.dmabuf = NULL;
	for (i = 0; i < ARRAY_SIZE(r); i++)
		if (np_dmabuf_moved(r[i].m))
			return -EAGAIN;
	return np_mediated(q) ? np_med_alloc(q) : np_doorbells_map(q);
}

/**
 * np_reserve() - reserve a queue pair for a peer
 * @pctrl: the controller
 * @p: what to reserve (validated here)
 * @owner: who will release it
 * @want_qid: the qid to take, or 0 for the lowest free one
 * @prov: who may attach to it through /dev/nvme-peer, or NULL: nobody
 *
 * Return: the reservation, holding one reference for its owner, or an
 * ERR_PTR with the errors listed at nvme_peer_reserve() (the one list of
 * them), plus -EINVAL for @want_qid outside the reserved range and -EBUSY
 * when @want_qid is held.
 */
struct nvme_peer_queue *np_reserve(struct nvme_peer_ctrl *pctrl,
				   const struct nvme_peer_params *p,
				   enum np_owner owner, u16 want_qid,
				   const struct np_provision *prov)
{
	struct np_bind *bind = NULL;
	struct nvme_peer_queue *q;
	struct nvme_ns *ns = NULL;
	bool notify;
	int ret;

	/* before the lock: mapping the file writes its dirty pages back */
	if (p->file.file) {
		ret = np_bind_file(p, &bind);
		if (ret)
			return ERR_PTR(ret);
	}
	mutex_lock(&pctrl->lock);
	ret = np_reserve_allowed(pctrl, p, owner);
	if (!ret)
		ret = np_reserve_ns(pctrl, p, &ns);
	if (ret)
		goto out_unlock;
	q = np_queue_new(pctrl, p, owner, prov);
	ret = PTR_ERR_OR_ZERO(q);
	if (ret)
		goto out_put_ns;
	q->bind = bind;			/* the queue's now: freed with it */
	bind = NULL;
	ret = q->bind ? np_bind_on(q->bind, ns) : 0;
	if (!ret)
		ret = np_ns_format(pctrl, ns, p->nsid, &q->lba_shift,
				   &q->ns_size);
	if (!ret && q->bind)
		ret = np_bind_policy(q->bind, q->lba_shift, q->ns_size,
				     &q->params.policy);
	if (!ret)
		ret = np_queue_alloc_mem(q, true);
	if (ret)
		goto out_free_mem;
	ret = np_queue_take_qid(q, want_qid);
	if (ret)
		goto out_free_mem;

	/* on the list: a layout break or a move from now on revokes it */
	if (q->bind)
		ret = np_bind_attach(q->bind, q);
	if (!ret)
		ret = np_queue_alloc_mem(q, false);
	if (!ret)
		ret = np_create_hw(q);
	if (ret)
		goto out_release;
	spin_lock(&pctrl->state_lock);
	ret = np_qstate_next(&q->state, NP_EV_CREATED, &notify);
	spin_unlock(&pctrl->state_lock);
	if (ret) {
		ret = -EAGAIN;		/* the controller went down meanwhile */
		goto out_release;
	}
	q->guarantee = np_guarantee(q);
	if (np_mediated(q))
		np_med_start(q);
	if (!np_sysfs_queue_add(q))
		q->sysfs_added = true;
	mutex_unlock(&pctrl->lock);
	nvme_put_ns(ns);
	return q;

out_release:
	np_revoke_locked(q, NP_EV_RELEASE, NVME_PEER_REASON_RELEASE);
	goto out_put_queue;
out_free_mem:
	np_queue_free_mem(q);		/* not on the list: nothing reached it */
out_put_queue:
	kobject_put(&q->kobj);
out_put_ns:
	nvme_put_ns(ns);
out_unlock:
	mutex_unlock(&pctrl->lock);
	np_bind_put(bind);
	return ERR_PTR(ret);
}

static struct nvme_peer_queue *np_find_qid(struct nvme_peer_ctrl *pctrl,
					   u16 qid)
{
	struct nvme_peer_queue *q;

	lockdep_assert_held(&pctrl->lock);
	list_for_each_entry(q, &pctrl->queues, node)
		if (q->qid == qid && q->state != NP_Q_RELEASED)
			return q;
	return NULL;
}

/**
 * np_delete_qid() - an administrator deletes a reservation
 * @pctrl: the controller
 * @qid: the reservation's qid
 * @owner: %NP_OWNER_SYSFS
 *
 * A reservation the administrator made is released; one a driver or a
 * process holds is revoked, and stays until its owner releases it.
 *
 * Return: 0, or -ENOENT when no reservation has @qid.
 */
int np_delete_qid(struct nvme_peer_ctrl *pctrl, u16 qid, enum np_owner owner)
{
	struct nvme_peer_queue *q;
	struct np_bind *b;
	bool owned;

	mutex_lock(&pctrl->lock);
	q = np_find_qid(pctrl, qid);
	if (!q) {
		mutex_unlock(&pctrl->lock);
		return -ENOENT;
	}
	owned = q->owner == owner;
	kobject_get(&q->kobj);
	b = np_bind_get(q->bind);
	np_revoke_locked(q, owned ? NP_EV_RELEASE : NP_EV_REVOKE,
			 NVME_PEER_REASON_ADMIN);
	mutex_unlock(&pctrl->lock);
	if (owned)
		kobject_put(&q->kobj);	/* the owner's reference */
	kobject_put(&q->kobj);
	np_bind_sync(b);
	return 0;
}

unsigned int np_free_qids(struct nvme_peer_ctrl *pctrl)
{
	unsigned int first = pctrl->info.first_qid, nr = pctrl->info.nr_qids;
	unsigned int held = 0, qid;

	lockdep_assert_held(&pctrl->state_lock);
	for (qid = first; qid < first + nr; qid++)
		held += test_bit(qid, pctrl->qids);
	return nr - held;
}

void np_queue_snapshot(struct nvme_peer_queue *q, enum np_qstate *state,
		       enum nvme_peer_reason *reason)
{
	spin_lock(&q->pctrl->state_lock);
	*state = q->state;
	*reason = q->reason;
	spin_unlock(&q->pctrl->state_lock);
}

/**
 * np_attach() - let a process drive a reservation an administrator made
 * @pctrl: the controller
 * @qid: the reservation
 * @revoke: called once if it is revoked while attached
 * @priv: for @revoke
 *
 * Return: the reservation with a reference for the caller, or an ERR_PTR:
 * -ENOENT (no reservation with @qid), -EACCES (not made with uid=/gid= in
 * sysfs, or made for another user or group), -EPERM (a direct-mode
 * reservation and the caller lacks CAP_SYS_RAWIO), -EBUSY (attached
 * already), -ENXIO (revoked).
 */
struct nvme_peer_queue *np_attach(struct nvme_peer_ctrl *pctrl, u16 qid,
				  nvme_peer_revoke_fn revoke, void *priv)
{
	struct nvme_peer_queue *q;
	int ret = 0;

	mutex_lock(&pctrl->lock);
	q = np_find_qid(pctrl, qid);
	if (!q) {
		mutex_unlock(&pctrl->lock);
		return ERR_PTR(-ENOENT);
	}
	spin_lock(&pctrl->state_lock);
	if (q->owner != NP_OWNER_SYSFS || !q->provisioned ||
	    (uid_valid(q->uid) && !uid_eq(q->uid, current_fsuid())) ||
	    (gid_valid(q->gid) && !in_group_p(q->gid)))
		ret = -EACCES;
	else if (!np_mediated(q) && !capable(CAP_SYS_RAWIO))
		ret = -EPERM;
	else if (q->attached)
		ret = -EBUSY;
	else if (q->state != NP_Q_ACTIVE)
		ret = -ENXIO;
	if (!ret) {
		q->attached = true;
		q->params.revoke = revoke;
		q->params.priv = priv;
		kobject_get(&q->kobj);
	}
	spin_unlock(&pctrl->state_lock);
	mutex_unlock(&pctrl->lock);
	return ret ? ERR_PTR(ret) : q;
}

/* Zero the queues and data, and create the queues afresh. */
static void np_recycle(struct nvme_peer_queue *q)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	struct np_mem *mems[] = { &q->sq, &q->cq, &q->data, &q->sdb,
				  &q->hsq, &q->hcq };
	bool deleted;
	int i;

	lockdep_assert_held(&pctrl->lock);
	np_med_stop(q);
	np_delete_hw(q);
	spin_lock(&pctrl->state_lock);
	deleted = !q->hw_sq && !q->hw_cq && q->state == NP_Q_ACTIVE &&
		  pctrl->live;
	spin_unlock(&pctrl->state_lock);
	if (!deleted)
		goto out_revoke;
	for (i = 0; i < ARRAY_SIZE(mems); i++)
		if (np_mem_zero(mems[i]))
			goto out_revoke;
	if (!np_create_hw(q)) {
		if (np_mediated(q))
			np_med_start(q);
		return;
	}
out_revoke:
	np_revoke_locked(q, NP_EV_REVOKE, NVME_PEER_REASON_RELEASE);
}

/**
 * np_detach() - a process lets go of an attached reservation
 * @q: from np_attach()
 *
 * The reservation stays provisioned for the next process: its queues are
 * deleted, zeroed and created again, so nothing the last process left in
 * them reaches the next one.  If that fails, it is revoked.
 */
void np_detach(struct nvme_peer_queue *q)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	bool active;

	mutex_lock(&pctrl->lock);
	spin_lock(&pctrl->state_lock);
	q->attached = false;
	q->params.revoke = NULL;
	q->params.priv = NULL;
	active = q->state == NP_Q_ACTIVE && pctrl->live;
	spin_unlock(&pctrl->state_lock);
	np_wait_callbacks(pctrl);
	if (active)
		np_recycle(q);
	mutex_unlock(&pctrl->lock);
	kobject_put(&q->kobj);
}

/**
 * np_ctrl_get_by_instance() - find a controller by its instance number
 * @instance: N of /dev/nvmeN
 *
 * Return: a reference to drop with nvme_peer_ctrl_put(), or NULL.
 */
struct nvme_peer_ctrl *np_ctrl_get_by_instance(u32 instance)
{
	struct nvme_peer_ctrl *pctrl;

	rcu_read_lock();
	pctrl = xa_load(&np_ctrls, instance);
	if (pctrl && !kref_get_unless_zero(&pctrl->ref))
		pctrl = NULL;
	rcu_read_unlock();
	return pctrl;
}

/**
 * np_revoke_unlocked() - revoke queues without pctrl->lock
 * @pctrl: the controller
 * @nsid: revoke the queues of this namespace (0: of every namespace)
 * @only: or only this queue, if not NULL
 * @reason: why
 *
 * Revokes every matching queue that is not revoked yet and stops its
 * mediation, calling owners without the spinlock held.  No pctrl->lock:
 * this runs from the timeout handler while a reserve may wait for an admin
 * command under it, before a deferred admin command that the reserve's own
 * commands queue behind, and from a dma-buf's move_notify, which may come
 * while the reserving thread holds pctrl->lock.  A queue not on the list
 * yet is not revoked: its reserve checks for a move itself.
 */
void np_revoke_unlocked(struct nvme_peer_ctrl *pctrl, u32 nsid,
			struct nvme_peer_queue *only,
			enum nvme_peer_reason reason)
{
	struct nvme_peer_queue *q;
	nvme_peer_revoke_fn revoke;
	bool notify, found;
	void *priv;

	do {
		found = false;
		down_read(&pctrl->cb_sem);
		spin_lock(&pctrl->state_lock);
		list_for_each_entry(q, &pctrl->queues, node) {
			if ((q->state != NP_Q_NEW && q->state != NP_Q_ACTIVE) ||
			    (nsid && q->params.nsid != nsid) ||
			    (only && q != only))
				continue;
			np_qstate_next(&q->state, NP_EV_REVOKE, &notify);
			if (!notify)
				continue;
			q->reason = reason;
			revoke = q->params.revoke;
			priv = q->params.priv;
			kobject_get(&q->kobj);
			found = true;
			break;
		}
		spin_unlock(&pctrl->state_lock);
		if (found) {
			np_med_stop(q);
			if (revoke)
				revoke(q, reason, priv);
			kobject_put(&q->kobj);
		}
		up_read(&pctrl->cb_sem);
	} while (found);
}

/* ---- namespace changes ---------------------------------------------------- */

/*
 * The namespace an admin command may change (@any: every namespace): its
 * nsid; all for 0xffffffff and for Sanitize; none for a Namespace
 * Management create, which changes no existing namespace.
 */
static bool np_admin_cmd_ns(const struct nvme_command *c, u32 *nsid,
			    bool *any)
{
	*nsid = le32_to_cpu(c->common.nsid);
	*any = *nsid == NVME_NSID_ALL ||
	       c->common.opcode == nvme_admin_sanitize_nvm;
	return !(c->common.opcode == nvme_admin_ns_mgmt &&
		 !(le32_to_cpu(c->common.cdw10) & 0xf));	/* SEL 0: create */
}

/* Whether @q is out of the way of a change of @nsid (@any: of all). */
static bool np_ns_fenced(struct nvme_peer_queue *q, u32 nsid, bool any)
{
	lockdep_assert_held(&q->pctrl->state_lock);
	if (!any && q->params.nsid != nsid)
		return true;
	if (q->state == NP_Q_NEW || q->state == NP_Q_ACTIVE)
		return false;
	return q->fenced || np_hw_quiet(q);
}

/*
 * Mark every queue in the way of a change of @nsid (@any: of all) for the
 * fence work; true when none is.  Marks add up: two commands for two
 * namespaces have both namespaces' queues fenced.
 */
static bool np_ns_mark(struct nvme_peer_ctrl *pctrl, u32 nsid, bool any)
{
	struct nvme_peer_queue *q;
	bool fenced = true;

	lockdep_assert_held(&pctrl->state_lock);
	list_for_each_entry(q, &pctrl->queues, node) {
		if (np_ns_fenced(q, nsid, any))
			continue;
		fenced = false;
		q->ns_fence = true;
	}
	return fenced;
}

/* A queue an admin command waits for, with a reference, or NULL. */
static struct nvme_peer_queue *np_ns_next(struct nvme_peer_ctrl *pctrl)
{
	struct nvme_peer_queue *q;

	spin_lock(&pctrl->state_lock);
	list_for_each_entry(q, &pctrl->queues, node) {
		if (q->ns_fence) {
			q->ns_fence = false;
			kobject_get(&q->kobj);
			spin_unlock(&pctrl->state_lock);
			return q;
		}
	}
	spin_unlock(&pctrl->state_lock);
	return NULL;
}

/*
 * Fence the queues of the namespaces admin commands are about to change
 * (each marked ns_fence by np_ctrl_admin_cmd()): np_fence() with reason
 * "namespace", without admin commands: the command it fences for waits
 * ahead of any in the admin queue.  A direct queue, and a mediated one
 * whose commands take longer than the budget, are fenced by a reset.
 */
static void np_fence_work(struct work_struct *work)
{
	struct nvme_peer_ctrl *pctrl = container_of(work, struct nvme_peer_ctrl,
						    fence_work);
	struct nvme_peer_queue *q;

	while ((q = np_ns_next(pctrl))) {
		np_fence(q, NVME_PEER_REASON_NAMESPACE, NP_FENCE_BUDGET,
			 NP_FENCE_NO_ADMIN);
		kobject_put(&q->kobj);
	}
	kref_put(&pctrl->ref, np_ctrl_release);
}

/*
 * nvme-pci asks before an admin command that may change a namespace's
 * format, size or attachment: Format NVM, Namespace Management or
 * Attachment, Sanitize.  Atomic context.  The command waits (false: blk-mq
 * retries it a few ms later) until every peer queue of that namespace is
 * fenced: otherwise a mediated queue's guard, which counts bytes with the
 * old LBA size, would pass commands that move more than it checked.
 */
static bool np_ctrl_admin_cmd(struct nvme_ctrl *ctrl,
			      const struct nvme_command *c)
{
	struct nvme_peer_ctrl *pctrl;
	bool any, fenced;
	u32 nsid;

	if (!np_admin_cmd_ns(c, &nsid, &any))
		return true;
	rcu_read_lock();
	pctrl = xa_load(&np_ctrls, ctrl->instance);
	if (!pctrl || pctrl->ctrl != ctrl) {
		rcu_read_unlock();
		return true;
	}
	spin_lock(&pctrl->state_lock);
	fenced = np_ns_mark(pctrl, nsid, any);
	spin_unlock(&pctrl->state_lock);
	/* a pending work holds a reference: this put is never the last */
	if (!fenced && kref_get_unless_zero(&pctrl->ref) &&
	    !queue_work(np_wq, &pctrl->fence_work))
		kref_put(&pctrl->ref, np_ctrl_release);
	rcu_read_unlock();
	return fenced;
}

/* ---- controller events from nvme-pci --------------------------------- */

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
		kref_put(&pctrl->ref, np_ctrl_release);
		return;
	}

	if (READ_ONCE(np_unloading))
		return;
	pctrl = kzalloc(sizeof(*pctrl), GFP_KERNEL);
	if (!pctrl)
		return;
	pctrl->qids = bitmap_zalloc(NP_QID_BITS, GFP_KERNEL);
	if (!pctrl->qids)
		goto out_free_pctrl;
	kref_init(&pctrl->ref);
	nvme_get_ctrl(ctrl);
	pctrl->ctrl = ctrl;
	pctrl->info = info;
	pctrl->live = true;
	pctrl->instance = ctrl->instance;
	snprintf(pctrl->name, sizeof(pctrl->name), "nvme%d", ctrl->instance);
	mutex_init(&pctrl->lock);
	mutex_init(&pctrl->forget_lock);
	spin_lock_init(&pctrl->state_lock);
	init_rwsem(&pctrl->cb_sem);
	INIT_LIST_HEAD(&pctrl->queues);
	INIT_WORK(&pctrl->free_work, np_free_work);
	INIT_WORK(&pctrl->fence_work, np_fence_work);

	mutex_lock(&np_ctrls_lock);
	if (np_unloading ||
	    xa_insert(&np_ctrls, ctrl->instance, pctrl, GFP_KERNEL)) {
		mutex_unlock(&np_ctrls_lock);
		kref_put(&pctrl->ref, np_ctrl_release);
		return;
	}
	mutex_unlock(&np_ctrls_lock);
	if (np_sysfs_ctrl_add(pctrl))
		dev_warn(ctrl->device, "nvme-peer: no sysfs directory\n");
	if (info.nr_qids)
		dev_info(ctrl->device, "nvme-peer: qids %u-%u reserved for peers\n",
			 info.first_qid, info.first_qid + info.nr_qids - 1);
	else
		dev_info(ctrl->device, "nvme-peer: the controller granted no qid for peers\n");
	return;

out_free_pctrl:
	kfree(pctrl);
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
	np_inject_down();
	kref_put(&pctrl->ref, np_ctrl_release);
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
	kref_put(&pctrl->ref, np_ctrl_release);
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
 * Queues an administrator made go with it; a driver's queue stays revoked,
 * with its host and peer memory, until the driver releases it.
 */
static void np_ctrl_forget(struct nvme_peer_ctrl *pctrl,
			   enum nvme_peer_reason reason)
{
	struct nvme_peer_queue *q, *next;
	bool sysfs_owned;

	mutex_lock(&pctrl->forget_lock);
	if (pctrl->forgotten) {
		mutex_unlock(&pctrl->forget_lock);
		return;
	}
	spin_lock(&pctrl->state_lock);
	pctrl->removed = true;
	spin_unlock(&pctrl->state_lock);
	np_sysfs_ctrl_del(pctrl);	/* waits for sysfs writers */

	mutex_lock(&pctrl->lock);
	list_for_each_entry_safe(q, next, &pctrl->queues, node) {
		sysfs_owned = q->owner == NP_OWNER_SYSFS &&
			      q->state != NP_Q_RELEASED;
		kobject_get(&q->kobj);
		np_revoke_locked(q, sysfs_owned ? NP_EV_RELEASE : NP_EV_REVOKE,
				 reason);
		if (sysfs_owned)
			kobject_put(&q->kobj);	/* the owner's reference */
		kobject_put(&q->kobj);
	}
	if (reason == NVME_PEER_REASON_REMOVED) {
		spin_lock(&pctrl->state_lock);
		pctrl->disable_gen++;	/* nvme_remove() disabled it */
		spin_unlock(&pctrl->state_lock);
	} else if (np_ctrl_has_hw(pctrl)) {
		/* a Delete failed: a reset destroys every queue */
		dev_warn(pctrl->ctrl->device,
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
	pctrl->forgotten = true;
	mutex_unlock(&pctrl->forget_lock);

	mutex_lock(&np_ctrls_lock);
	xa_erase(&np_ctrls, pctrl->instance);
	mutex_unlock(&np_ctrls_lock);
	kref_put(&pctrl->ref, np_ctrl_release);	/* np_ctrls' reference */
}

static void np_ctrl_removed(struct nvme_ctrl *ctrl)
{
	struct nvme_peer_ctrl *pctrl = np_ctrl_lookup(ctrl);

	if (!pctrl)
		return;
	np_ctrl_forget(pctrl, NVME_PEER_REASON_REMOVED);
	kref_put(&pctrl->ref, np_ctrl_release);
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
	.admin_cmd = np_ctrl_admin_cmd,
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
	while ((pctrl = np_ctrl_next(&i))) {
		if (pctrl->info.pdev != pdev)	/* its own removal: REMOVED */
			np_peer_gone(pctrl, pdev);
		kref_put(&pctrl->ref, np_ctrl_release);
	}
	return NOTIFY_OK;
}

static struct notifier_block np_pci_nb = {
	.notifier_call = np_pci_notify,
};

/* ---- in-kernel API ------------------------------------------------------ */

/**
 * nvme_peer_ctrl_get() - find the nvme-peer side of a controller
 * @ctrl: an nvme-pci controller
 *
 * Return: a reference to drop with nvme_peer_ctrl_put(), or NULL when the
 * controller has no reserved queues (nvme.peer_queues=0, not live yet, or
 * not an nvme-pci controller).
 */
struct nvme_peer_ctrl *nvme_peer_ctrl_get(struct nvme_ctrl *ctrl)
{
	return np_ctrl_lookup(ctrl);
}
EXPORT_SYMBOL_GPL(nvme_peer_ctrl_get);

/**
 * nvme_peer_ctrl_get_by_name() - find a controller by name ("nvme0")
 * @name: the controller's character device name
 *
 * Return: a reference to drop with nvme_peer_ctrl_put(), or NULL.
 */
struct nvme_peer_ctrl *nvme_peer_ctrl_get_by_name(const char *name)
{
	struct nvme_peer_ctrl *pctrl, *found = NULL;
	unsigned long i;

	rcu_read_lock();
	xa_for_each(&np_ctrls, i, pctrl) {
		if (sysfs_streq(pctrl->name, name) &&
		    kref_get_unless_zero(&pctrl->ref)) {
			found = pctrl;
			break;
		}
	}
	rcu_read_unlock();
	return found;
}
EXPORT_SYMBOL_GPL(nvme_peer_ctrl_get_by_name);

/**
 * nvme_peer_ctrl_get_by_bdev() - find the controller of a namespace
 * @bdev: a block device of an nvme-pci namespace (or a partition of one)
 *
 * Return: a reference to drop with nvme_peer_ctrl_put(), or NULL.
 */
struct nvme_peer_ctrl *nvme_peer_ctrl_get_by_bdev(struct block_device *bdev)
{
	struct nvme_peer_ctrl *pctrl;
	struct nvme_ns *ns;
	unsigned long i;
	bool match;
	int idx;

	mutex_lock(&np_ctrls_lock);
	xa_for_each(&np_ctrls, i, pctrl) {
		match = false;
		idx = np_ns_list_lock(pctrl->ctrl);
		list_for_each_entry_srcu(ns, &pctrl->ctrl->namespaces, list,
					 np_ns_list_held(pctrl->ctrl))
			match |= ns->disk == bdev->bd_disk;
		np_ns_list_unlock(pctrl->ctrl, idx);
		if (match && kref_get_unless_zero(&pctrl->ref)) {
			mutex_unlock(&np_ctrls_lock);
			return pctrl;
		}
	}
	mutex_unlock(&np_ctrls_lock);
	return NULL;
}
EXPORT_SYMBOL_GPL(nvme_peer_ctrl_get_by_bdev);

/**
 * nvme_peer_ctrl_put() - drop a controller reference
 * @pctrl: from one of the nvme_peer_ctrl_get*() functions
 */
void nvme_peer_ctrl_put(struct nvme_peer_ctrl *pctrl)
{
	kref_put(&pctrl->ref, np_ctrl_release);
}
EXPORT_SYMBOL_GPL(nvme_peer_ctrl_put);

/**
 * nvme_peer_reserve() - reserve an I/O queue pair for a peer device
 * @pctrl: the controller
 * @p: the parameters; @p->revoke runs once when the reservation is revoked
 *
 * Allocates the SQ, the CQ (interrupts off: the peer polls) and the data
 * buffer where @p places them, maps them for the controller and @p->peer,
 * and creates the queues on the controller.
 *
 * Context: process context; sleeps.
 * Return: the reservation (release it with nvme_peer_release()) or an
 * ERR_PTR: -EINVAL for bad parameters or a policy that does not fit the
 * namespace, -EOPNOTSUPP for a placement the controller does not support
 * or mediated mode on a namespace with metadata, -EPERM for direct mode
 * without nvme_peer.allow_direct=1 (or asked by a process without
 * CAP_SYS_RAWIO), -ENODEV for a namespace that does not exist or a
 * controller being removed, -EAGAIN while the controller resets or the
 * namespace's format changes, -ENOSPC when every reserved qid is held,
 * -EXDEV when the topology cannot do peer-to-peer, -ENOMEM, -EIO when the
 * controller failed a command; with &nvme_peer_params.file the errors of
 * np_bind_file() (file.c: -EINVAL, -EACCES for a read binding whose policy
 * allows an opcode outside %NVME_PEER_OPCODES_READERS, -EISDIR, -EBADF, -EXDEV,
 * -EOPNOTSUPP, -ENXIO, -ENODATA, -E2BIG, -EAGAIN), listed in
 * peer-queues.rst.
 */
struct nvme_peer_queue *nvme_peer_reserve(struct nvme_peer_ctrl *pctrl,
					  const struct nvme_peer_params *p)
{
	return np_reserve(pctrl, p, NP_OWNER_KERNEL, 0, NULL);
}
EXPORT_SYMBOL_GPL(nvme_peer_reserve);

/**
 * nvme_peer_query() - the addresses of a reservation
 * @q: the reservation
 * @addrs: filled in
 *
 * Context: any context that may take a spinlock.
 * Return: 0 while the reservation is active, -ENXIO once it was revoked
 * (@addrs still describes it; after %NVME_PEER_REASON_REMOVED the memory is
 * gone and the addresses are 0).
 */
int nvme_peer_query(struct nvme_peer_queue *q, struct nvme_peer_addrs *addrs)
{
	enum nvme_peer_reason reason;
	enum np_qstate state;

	np_queue_snapshot(q, &state, &reason);
	memset(addrs, 0, sizeof(*addrs));
	addrs->qid = q->qid;
	addrs->nsid = q->params.nsid;
	addrs->depth = q->params.depth;
	addrs->lba_shift = q->lba_shift;
	if (q->sq.vaddr) {
		addrs->sq_addr = q->sq.peer_dma;
		addrs->cq_addr = q->cq.peer_dma;
		addrs->data_addr = q->data.peer_dma;
		addrs->data_ctrl_addr = np_mediated(q) ? NVME_PEER_PRP_BASE :
						       q->data.ctrl_dma;
		addrs->data_size = q->data.size;
		addrs->sq_db_addr = q->sq_db_addr;
		addrs->cq_db_addr = q->cq_db_addr;
		addrs->sq = q->sq.vaddr;
		addrs->cq = q->cq.vaddr;
		addrs->data = q->data.vaddr;
		if (np_mediated(q)) {
			/* shadow doorbells: words in memory */
			addrs->sq_shadow_db = q->sdb.vaddr;
			addrs->cq_shadow_db = addrs->sq_shadow_db + 1;
		} else {
			addrs->sq_db = np_hw_db(q, false);
			addrs->cq_db = np_hw_db(q, true);
		}
	}
	addrs->mode = q->params.mode;
	addrs->guarantee = q->guarantee;
	return state == NP_Q_ACTIVE ? 0 : -ENXIO;
}
EXPORT_SYMBOL_GPL(nvme_peer_query);

/**
 * nvme_peer_revoked() - whether, and why, a reservation was revoked
 * @q: the reservation
 *
 * Return: %NVME_PEER_REASON_NONE while it is active, else the reason.
 */
enum nvme_peer_reason nvme_peer_revoked(struct nvme_peer_queue *q)
{
	enum nvme_peer_reason reason;
	enum np_qstate state;

	np_queue_snapshot(q, &state, &reason);
	return reason;
}
EXPORT_SYMBOL_GPL(nvme_peer_revoked);

/**
 * nvme_peer_release() - give a reservation back
 * @q: from nvme_peer_reserve()
 *
 * Revokes it (reason %NVME_PEER_REASON_RELEASE, the callback runs if it did
 * not yet), deletes its queues on the controller and frees its memory once
 * the controller can no longer reach it.  The caller guarantees the peer no
 * longer touches the queues.
 *
 * Context: process context; sleeps.
 */
void nvme_peer_release(struct nvme_peer_queue *q)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	struct np_bind *b = np_bind_get(q->bind);

	mutex_lock(&pctrl->lock);
	np_revoke_locked(q, NP_EV_RELEASE, NVME_PEER_REASON_RELEASE);
	mutex_unlock(&pctrl->lock);
	kobject_put(&q->kobj);
	np_bind_sync(b);
}
EXPORT_SYMBOL_GPL(nvme_peer_release);

/**
 * nvme_peer_file_extents() - where the bound file's range is
 * @q: a reservation made with &nvme_peer_params.file
 * @nr: set to the number of extents (0 without a binding)
 *
 * The map is fixed when the reservation is made and stays valid until it
 * is released; after %NVME_PEER_REASON_LAYOUT it describes blocks the file
 * may no longer own.  Holes and unwritten extents are not in it.
 *
 * Return: the extents in file order (LBAs of the namespace), or NULL.
 */
const struct nvme_peer_file_extent *
nvme_peer_file_extents(struct nvme_peer_queue *q, u32 *nr)
{
	struct np_bind_desc d;

	np_bind_describe(q->bind, &d);
	*nr = d.nr_map;
	return d.map;
}
EXPORT_SYMBOL_GPL(nvme_peer_file_extents);

static int __init nvme_peer_init(void)
{
	int ret;

	np_wq = alloc_workqueue("nvme-peer", 0, 0);
	if (!np_wq)
		return -ENOMEM;
	ret = np_med_init();
	if (ret)
		goto out_destroy_wq;
	ret = np_cdev_init();
	if (ret)
		goto out_med_exit;
	ret = bus_register_notifier(&pci_bus_type, &np_pci_nb);
	if (ret)
		goto out_cdev_exit;
	ret = nvme_pci_peer_register(&np_client);
	if (ret == -ENODEV)
		pr_err("nvme.peer_queues is 0: no queue to hand out\n");
	if (ret)
		goto out_unregister_notifier;
	np_inject_init();
	return 0;

out_unregister_notifier:
	bus_unregister_notifier(&pci_bus_type, &np_pci_nb);
out_cdev_exit:
	np_cdev_exit();
out_med_exit:
	np_med_exit();
out_destroy_wq:
	destroy_workqueue(np_wq);
	return ret;
}

/*
 * Forget every controller while the hooks still report events, so that a
 * removal racing the unload waits for it (np_ctrl_forget() runs once per
 * controller) and a reset can still settle queues; then unregister, after
 * which no event runs, and drain the work those events queued.
 */
static void __exit nvme_peer_exit(void)
{
	struct nvme_peer_ctrl *pctrl;
	unsigned long i = 0;

	np_inject_exit();
	np_cdev_exit();
	mutex_lock(&np_ctrls_lock);
	np_unloading = true;
	mutex_unlock(&np_ctrls_lock);
	while ((pctrl = np_ctrl_next(&i))) {
		np_ctrl_forget(pctrl, NVME_PEER_REASON_UNLOAD);
		kref_put(&pctrl->ref, np_ctrl_release);
	}
	nvme_pci_peer_unregister(&np_client);
	bus_unregister_notifier(&pci_bus_type, &np_pci_nb);
	destroy_workqueue(np_wq);
	np_med_exit();
	rcu_barrier();
}

module_init(nvme_peer_init);
module_exit(nvme_peer_exit);

MODULE_DESCRIPTION("NVMe I/O queue pairs for peer devices");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(NVME_TARGET_PASSTHRU);

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "core_kunit.c"
#endif
