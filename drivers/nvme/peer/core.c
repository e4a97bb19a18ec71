// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: reservations.  A reservation is one hardware I/O queue pair
 * (a qid nvme-pci held back), its memory and its guard, owned by a driver
 * (nvme_peer_reserve()), a process (cdev.c) or the administrator
 * (sysfs.c).  Here is decided whether a request may be reserved (the
 * parameters, the namespace, the qid: one gate for every mode), who may
 * drive a queue without the guard (np_unguarded_check()), on which
 * controller it is built (an isolated one on the secondary controller
 * isolated.c provides), in which order it is
 * built (binding, format, memory, qid, Create) and torn down, and when a
 * released reservation's memory may be freed: only once the controller can
 * no longer reach it.  Revocation itself -- the state machine, the owner's
 * callback, the fence -- is fence.c's; np_revoke_locked() here adds what
 * only the holder of pctrl->lock may do (Delete, free).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "nvme.h"
#include "nvme-peer.h"

static bool allow_direct;
module_param(allow_direct, bool, 0644);
MODULE_PARM_DESC(allow_direct,
		 "allow new direct-mode queues: peers write hardware SQs and doorbells, nothing is checked (default: no)");

/* The last reference to a reservation is gone. */
static void np_queue_release(struct kobject *kobj)
{
	struct nvme_peer_queue *q = np_queue_of(kobj);

	np_sysfs_queue_release(q);
	np_bind_put(q->bind);
	pci_dev_put(q->peer);
	nvme_peer_ctrl_put(q->pctrl);
	kfree(q);
}

/* A reservation's lifetime is its kobject's; sysfs.c has its attributes. */
static const struct kobj_type np_queue_ktype = {
	.release = np_queue_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = np_queue_groups,
};

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
 * an unknown mode, a policy in direct or isolated mode, a file binding in
 * isolated mode, a dma-buf range that
 * np_dmabuf_validate() refuses, a policy np_med_validate() refuses, a file
 * binding np_bind_validate() refuses); -EACCES from np_bind_validate();
 * -EOPNOTSUPP when the controller cannot do it (CMB placement without a
 * CMB or without the CMBSZ support bit for that use).
 *
 * The one semantic gate: every door (nvme_peer_reserve(), the RESERVE
 * ioctl, configfs's enable) checks only the shape of what it got and comes
 * here, through np_reserve(), before anything is looked up, leased or
 * allocated; each part checks the fields it owns.
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
	if (p->mode != NVME_PEER_MODE_MEDIATED && p->mode != NVME_PEER_MODE_DIRECT &&
	    p->mode != NVME_PEER_MODE_ISOLATED)
		return -EINVAL;
	if (p->mode == NVME_PEER_MODE_MEDIATED &&
	    p->depth > NVME_PEER_MAX_MEDIATED_DEPTH)
		return -EINVAL;
	/* a policy is for mediated mode: refused, not ignored */
	if (p->mode != NVME_PEER_MODE_MEDIATED &&
	    (p->policy.opcodes || p->policy.nr_extents ||
	     p->policy.nr_windows || p->policy.max_nlb))
		return -EINVAL;
	/* a controller cannot keep a queue inside a file's blocks */
	if (p->mode == NVME_PEER_MODE_ISOLATED && p->file.file)
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

	/* the binding first: a read binding refuses any writer, known or not */
	if (p->file.file) {
		int ret = np_bind_validate(p);

		if (ret)
			return ret;
	}
	if (np_dmabuf_validate(p) || np_med_validate(p))
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

/* Free what the controller and the peer could reach. */
static void np_queue_free_mem(struct nvme_peer_queue *q)
{
	np_med_stop(q);
	np_med_free(q);
	np_doorbells_unmap(q);
	np_mem_free(q, &q->data);
	np_mem_free(q, &q->cq);
	np_mem_free(q, &q->sq);
	np_fence_rq_free(q);		/* after the dma-buf fences */
}

/* Drop a released queue whose hardware queues are gone. */
void np_queue_destroy(struct nvme_peer_queue *q)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;

	lockdep_assert_held(&pctrl->lock);
	/* waits for readers of qN/ files, which read the memory freed next */
	if (q->sysfs_added)
		np_sysfs_queue_del(q);
	np_queue_free_mem(q);
	spin_lock(&pctrl->state_lock);
	list_del_init(&q->node);
	np_qid_free(pctrl->qids, q->qid);
	spin_unlock(&pctrl->state_lock);
	kobject_put(&q->kobj);		/* the list's reference */
}

/* Destroy @q if it was released and the controller cannot reach it. */
void np_queue_reap(struct nvme_peer_queue *q)
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
void np_revoke_locked(struct nvme_peer_queue *q, enum np_qevent ev,
		      enum nvme_peer_reason reason)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	nvme_peer_revoke_fn revoke;
	bool notify, hw_live;
	void *priv;

	lockdep_assert_held(&pctrl->lock);
	spin_lock(&pctrl->state_lock);
	np_queue_next(q, ev, reason, &notify);
	hw_live = pctrl->live && !np_hw_gone(q);
	revoke = q->revoke;
	priv = q->priv;
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
void np_free_work(struct work_struct *work)
{
	struct nvme_peer_ctrl *pctrl = container_of(work, struct nvme_peer_ctrl,
						    free_work);
	struct nvme_peer_queue *q, *next;
	bool maybe;

	np_inject_free_work();
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
	nvme_peer_ctrl_put(pctrl);
}

/* Run np_free_work(), which drops the reference taken here. */
void np_queue_free_work(struct nvme_peer_ctrl *pctrl)
{
	kref_get(&pctrl->ref);
	if (!queue_work(np_settle_wq, &pctrl->free_work))
		nvme_peer_ctrl_put(pctrl);
}

/**
 * np_unguarded_check() - may @owner drive a queue the guard does not check
 * @mode: the queue's mode
 * @owner: who asks: a peer driver in the kernel, or a process
 * @create: a new reservation (else an attach to one, or a mapping)
 *
 * The one place it is decided.  Without the guard (direct and isolated
 * mode) a process rings the controller's doorbells itself, in a page
 * that holds other queues' doorbells too -- the controller's others, or
 * on a VF nvme-pci's own admin and I/O queues of that VF, whatever
 * confines the VF's DMA --: it needs CAP_SYS_RAWIO.  A new direct queue
 * also needs nvme_peer.allow_direct=1, the administrator's word; an
 * isolated one is checked by its secondary controller and the IOMMU.
 *
 * Return: 0 or -EPERM.
 */
int np_unguarded_check(enum nvme_peer_mode mode, enum np_owner owner,
		       bool create)
{
	if (mode == NVME_PEER_MODE_MEDIATED)
		return 0;
	if (create && mode == NVME_PEER_MODE_DIRECT && !READ_ONCE(allow_direct))
		return -EPERM;
	if (owner != NP_OWNER_KERNEL && !capable(CAP_SYS_RAWIO))
		return -EPERM;
	return 0;
}

/*
 * The gate, run once for each request, against the controller it names
 * (an isolated request's primary: the queue's own controller does not
 * exist yet): -EINVAL, -EOPNOTSUPP, -EPERM...  An isolated queue lives in
 * a secondary controller, whose memory buffer nvme-peer does not look
 * for (CMB placement: -EOPNOTSUPP), and whose qids are its own.
 */
static int np_reserve_check(struct nvme_peer_ctrl *pctrl,
			    const struct nvme_peer_params *p,
			    enum np_owner owner, u16 want_qid)
{
	u32 mqes, cmbsz;
	int ret;

	spin_lock(&pctrl->state_lock);
	mqes = pctrl->info.mqes;
	cmbsz = np_isolated_mode(p) ? 0 : pctrl->info.cmbsz;
	spin_unlock(&pctrl->state_lock);
	ret = np_validate_params(p, mqes, cmbsz);
	if (!ret && np_isolated_mode(p) && want_qid)
		ret = -EINVAL;
	return ret ?: np_unguarded_check(p->mode, owner, true);
}

/* Whether the controller can take a reservation now: -ENODEV, -EAGAIN. */
static int np_reserve_live(struct nvme_peer_ctrl *pctrl)
{
	int ret;

	lockdep_assert_held(&pctrl->lock);
	spin_lock(&pctrl->state_lock);
	ret = pctrl->removed ? -ENODEV : !pctrl->live ? -EAGAIN : 0;
	spin_unlock(&pctrl->state_lock);
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

/*
 * The reservation's copy of @src: its values, not the caller's references.
 * The peer is q->peer's, the file the binding's and each dma-buf range's
 * buffer the import's, taken from @src during the reserve with references
 * of their own; a pointer kept here would outlive the caller's.  The
 * policy's arrays are read from the copy until np_med_alloc() has copied
 * them, which then clears them.
 */
static void np_params_keep(struct nvme_peer_params *dst,
			   const struct nvme_peer_params *src)
{
	*dst = *src;
	dst->peer = NULL;
	dst->file.file = NULL;
	dst->sq_buf.dmabuf = NULL;
	dst->cq_buf.dmabuf = NULL;
	dst->data_buf.dmabuf = NULL;
}

/* A new reservation, not on the controller's list yet. */
static struct nvme_peer_queue *np_queue_new(struct nvme_peer_ctrl *pctrl,
					    const struct nvme_peer_params *p,
					    enum np_owner owner,
					    const struct np_provision *prov,
					    struct np_tenant *tenant)
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
		strscpy(q->name, prov->name, sizeof(q->name));
		q->generation = prov->generation;
		q->provisioned = prov->attachable;
		q->uid = prov->uid;
		q->gid = prov->gid;
	}
	np_params_keep(&q->params, p);
	q->revoke = p->revoke;
	q->priv = p->priv;
	q->peer = pci_dev_get(p->peer);
	q->tenant = tenant;
	q->max_xfer = min_t(u64, U32_MAX,
			    (u64)pctrl->ctrl->max_hw_sectors << SECTOR_SHIFT);
	INIT_LIST_HEAD(&q->node);
	INIT_LIST_HEAD(&q->uevent_node);
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
 * The SQ, the CQ and the data buffer placed in dma-bufs, from the caller's
 * ranges in @p, or (@dmabuf false) the others and what the mode needs
 * besides.  Every dma-buf range is imported before the queue is on the
 * controller's list: a move during the import of another range (an
 * exporter that migrates on map) then revokes nothing and only marks the
 * range moved, which the reserve checks once the queue is on the list.
 */
static int np_queue_alloc_mem(struct nvme_peer_queue *q,
			      const struct nvme_peer_params *p, bool dmabuf)
{
	const struct {
		struct np_mem *m;
		enum nvme_peer_placement where;
		const struct nvme_peer_dmabuf_range *buf;
		size_t size;
	} r[] = {
		{ &q->sq, p->sq_placement, &p->sq_buf, np_sq_bytes(p->depth) },
		{ &q->cq, p->cq_placement, &p->cq_buf, np_cq_bytes(p->depth) },
		{ &q->data, p->data_placement, &p->data_buf, p->data_size },
	};
	int ret, i;

	for (i = 0; i < ARRAY_SIZE(r); i++) {
		bool in_dmabuf = r[i].where == NVME_PEER_PLACE_DMABUF;

		if (in_dmabuf != dmabuf)
			continue;
		ret = dmabuf ? np_dmabuf_import(q, r[i].m, r[i].buf, r[i].size) :
			       np_mem_alloc(q, r[i].m, r[i].where, r[i].size);
		if (ret)
			return ret;
	}
	if (dmabuf)
		return 0;
	for (i = 0; i < ARRAY_SIZE(r); i++)
		if (np_dmabuf_moved(r[i].m))
			return -EAGAIN;
	return np_mediated(q) ? np_med_alloc(q) : np_doorbells_map(q);
}

/*
 * Fit @q to namespace @nsid: a bound file must live on it, the format
 * gives the LBA size and the size, and the file's blocks become the
 * extents.
 */
static int np_queue_fit_ns(struct nvme_peer_queue *q, struct nvme_ns *ns,
			   u32 nsid)
{
	int ret = q->bind ? np_bind_on(q->bind, ns->disk) : 0;

	if (!ret)
		ret = np_ns_format(q->pctrl, ns, nsid, &q->lba_shift,
				   &q->ns_size);
	if (!ret && q->bind)
		ret = np_bind_policy(q->bind, q->lba_shift, q->ns_size,
				     &q->params.policy);
	return ret;
}

/**
 * np_reserve_on() - build a reservation the gate let through
 * @pctrl: the controller whose qid it takes
 * @p: what to reserve (np_reserve_check() passed)
 * @owner: who will release it
 * @want_qid: the qid to take, or 0 for the lowest free one
 * @prov: who may attach to it through /dev/nvme-peer, or NULL: nobody
 * @tenant: isolated mode: the secondary controller @pctrl is, whose
 *	teardown the release starts (isolated.c); NULL otherwise
 *
 * Return: as np_reserve().
 */
static struct nvme_peer_queue *np_reserve_on(struct nvme_peer_ctrl *pctrl,
					     const struct nvme_peer_params *p,
					     enum np_owner owner, u16 want_qid,
					     const struct np_provision *prov,
					     struct np_tenant *tenant)
{
	struct np_bind *bind = NULL;
	struct nvme_peer_queue *q;
	struct nvme_ns *ns = NULL;
	bool notify;
	int ret;

	/* before the lock: mapping the file writes its dirty pages back */
	if (p->file.file) {
		ret = np_bind_file(&p->file, &bind);
		if (ret)
			return ERR_PTR(ret);
	}
	mutex_lock(&pctrl->lock);
	ret = np_reserve_live(pctrl);
	if (!ret)
		ret = np_reserve_ns(pctrl, p, &ns);
	if (ret)
		goto out_unlock;
	q = np_queue_new(pctrl, p, owner, prov, tenant);
	ret = PTR_ERR_OR_ZERO(q);
	if (ret)
		goto out_put_ns;
	q->bind = bind;			/* the queue's now: freed with it */
	bind = NULL;
	ret = np_queue_fit_ns(q, ns, p->nsid);
	if (!ret)
		ret = np_queue_alloc_mem(q, p, true);
	if (ret)
		goto out_free_mem;
	ret = np_queue_take_qid(q, want_qid);
	if (ret)
		goto out_free_mem;

	/* on the list: a layout break or a move from now on revokes it */
	if (q->bind)
		ret = np_bind_attach(q->bind, q);
	if (!ret)
		ret = np_queue_alloc_mem(q, p, false);
	if (!ret)
		ret = np_create_hw(q);
	if (ret)
		goto out_release;
	spin_lock(&pctrl->state_lock);
	ret = np_queue_next(q, NP_EV_CREATED, NVME_PEER_REASON_NONE, &notify);
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

/**
 * np_reserve() - reserve a queue pair for a peer
 * @pctrl: the controller (in isolated mode the primary)
 * @p: what to reserve (validated here)
 * @owner: who will release it
 * @want_qid: the qid to take, or 0 for the lowest free one
 * @prov: who may attach to it through /dev/nvme-peer, or NULL: nobody
 *
 * The gate runs once, here.  An isolated reservation is then built on the
 * secondary controller isolated.c provides for it; a secondary controller
 * isolated mode brought up takes no other reservation (-EBUSY).
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
	struct nvme_peer_ctrl *vctrl;
	struct nvme_peer_queue *q;
	struct np_tenant *t;
	int ret;

	if (!np_isolated_mode(p) && np_iso_owns(pctrl->info.pdev))
		return ERR_PTR(-EBUSY);
	ret = np_reserve_check(pctrl, p, owner, want_qid);
	if (ret)
		return ERR_PTR(ret);
	if (!np_isolated_mode(p))
		return np_reserve_on(pctrl, p, owner, want_qid, prov, NULL);
	vctrl = np_iso_provide(pctrl, p->nsid, &t);
	if (IS_ERR(vctrl))
		return ERR_CAST(vctrl);
	q = np_reserve_on(vctrl, p, owner, 0, prov, t);
	nvme_peer_ctrl_put(vctrl);
	if (IS_ERR(q))
		np_iso_abandon(t);
	return q;
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
	np_release(q, NVME_PEER_REASON_RELEASE);
}
EXPORT_SYMBOL_GPL(nvme_peer_release);

/**
 * np_release() - the owner gives a reservation back
 * @q: the reservation; the owner's reference is dropped
 * @reason: what a process attached to it is told, if it is still active
 *
 * nvme_peer_release() with a reason: an administrator's delete is
 * %NVME_PEER_REASON_ADMIN.
 */
void np_release(struct nvme_peer_queue *q, enum nvme_peer_reason reason)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	struct np_bind *b = np_bind_get(q->bind);

	mutex_lock(&pctrl->lock);
	np_revoke_locked(q, NP_EV_RELEASE, reason);
	mutex_unlock(&pctrl->lock);
	if (q->tenant)
		np_iso_release(q);	/* its secondary controller goes too */
	kobject_put(&q->kobj);
	np_bind_sync(b);
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/core_kunit.c"
#endif
