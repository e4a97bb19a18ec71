// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: revocation and the fence.  A reservation's state machine
 * (np_qstate_next(): revoked at most once, the owner told once), the
 * revocation that needs no pctrl->lock (np_revoke_unlocked()), and the
 * fence.  Every cause that takes a queue away while the controller may
 * still run it -- a layout break (file.c), a dma-buf move (dmabuf.c), a
 * namespace change (here, np_ns_admin_cmd()), a peer device leaving
 * (events.c) -- calls np_fence(), which revokes the queue and returns only
 * when the hardware provably holds no command of it, by one of three
 * proofs:
 *
 *   drained  (mediated queues) nvme-peer is the only writer of the
 *            hardware SQ and its doorbell; with the poller stopped, the
 *            hardware CQ holds a completion for every command forwarded;
 *   deleted  Delete I/O SQ completed successfully: the controller
 *            completes or aborts every command of the SQ before it
 *            completes the Delete (NVMe Base 2.0, 5.7);
 *   reset    the controller went through a disable (CC.EN cleared) after
 *            the queue's Create: its disable generation moved.
 *
 * A failed Delete, a Delete that cannot be sent (the controller is not
 * live, or the admin queue is held by the very command a namespace fence
 * runs for) and a reset already in progress all end in the third: the
 * fence asks for a reset and waits for the disable, however long it takes
 * (nvme-pci's own timeouts bound it).  It never gives up.
 *
 * A dma-buf move's fence runs in a dma-fence signalling section
 * (%NP_FENCE_SIGNALLING): it allocates nothing (its Delete SQ's request is
 * preallocated, np_fence_rq_alloc()) and does not revoke again (no
 * cb_sem: owners' callbacks allocate under it).
 *
 * Locks: np_fence() takes pctrl->cb_sem (read), np_med_lock and q->hw_lock
 * (in np_delete_hw()), never pctrl->lock, so it may run while a reserve or
 * a release holds pctrl->lock and waits for a dma-buf reservation lock
 * whose holder waits for the fence.  q->hw_lock serialises the Create and
 * Delete commands of one queue; a Create is refused once the queue is
 * revoked (admin.c), so a queue the fence saw quiet stays quiet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blk-mq.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/kernfs.h>

#include "nvme-peer.h"

/**
 * np_hw_quiet() - whether the controller can no longer run @q's commands
 * @q: the reservation
 *
 * True once the SQ cannot exist (never created, the Create refused, the
 * Delete completed) or the controller was disabled after the Create.  A CQ
 * without its SQ receives no completion.
 *
 * Return: true if quiet.
 */
bool np_hw_quiet(struct nvme_peer_queue *q)
{
	lockdep_assert_held(&q->pctrl->state_lock);
	return !q->hw_sq || q->gen != q->pctrl->disable_gen;
}

static bool np_fence_quiet(struct nvme_peer_queue *q)
{
	bool quiet;

	spin_lock(&q->pctrl->state_lock);
	quiet = np_hw_quiet(q);
	spin_unlock(&q->pctrl->state_lock);
	return quiet;
}

/* Mediated: wait up to @budget jiffies for the forwarded commands. */
static bool np_fence_drain(struct nvme_peer_queue *q, unsigned long budget)
{
	unsigned long end = jiffies + budget;

	for (;;) {
		if (np_med_idle(q))
			return true;
		if (np_fence_quiet(q) || time_after(jiffies, end))
			return false;
		usleep_range(50, 100);
	}
}

/*
 * Delete the SQ and CQ, or in a signalling section only the SQ, with the
 * preallocated request; true once quiet (a failed Delete is not).
 */
static bool np_fence_delete(struct nvme_peer_queue *q, unsigned int flags)
{
	if (flags & NP_FENCE_SIGNALLING)
		np_delete_sq_prealloc(q);
	else
		np_delete_hw(q);
	return np_fence_quiet(q);
}

/*
 * Claim one of @max preallocated requests counted in @held; false when
 * all are claimed.
 */
static bool np_fence_rq_claim(atomic_t *held, int max)
{
	return atomic_add_unless(held, 1, max);
}

/**
 * np_fence_rq_alloc() - preallocate the admin request of a dma-buf fence
 * @q: a reservation with a region in a dma-buf, not on the list yet
 *
 * A dma-buf move's fence runs in a dma-fence signalling section, where
 * nothing may be allocated nor waited for without bound: its Delete I/O
 * SQ is sent with this request, allocated now (a tag of the admin queue,
 * held until the release or the controller's removal).  One per
 * reservation, at most %NP_FENCE_RQS_MAX per controller, so that the
 * admin queue keeps most of its tags for nvme-pci.  Called again for the
 * reservation's next dma-buf region: nothing more.
 *
 * Context: pctrl->lock held; sleeps (a free tag).
 * Return: 0, -EBUSY when the controller's fence requests are all held,
 * or blk_mq_alloc_request()'s error.
 */
int np_fence_rq_alloc(struct nvme_peer_queue *q)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	struct request *req;

	lockdep_assert_held(&pctrl->lock);
	if (q->fence_rq)
		return 0;
	if (!np_fence_rq_claim(&pctrl->fence_rqs, NP_FENCE_RQS_MAX))
		return -EBUSY;
	req = np_admin_rq_alloc(pctrl, REQ_OP_DRV_IN);
	if (IS_ERR(req)) {
		atomic_dec(&pctrl->fence_rqs);
		return PTR_ERR(req);
	}
	mutex_lock(&q->hw_lock);
	q->fence_rq = req;
	mutex_unlock(&q->hw_lock);
	return 0;
}

/**
 * np_fence_rq_free() - free a preallocated fence request, if unused
 * @q: the reservation; no fence of it runs any more (its dma-buf regions
 *	are released: their fence work flushed)
 *
 * Before nvme-pci destroys the admin queue (REMOVED), whose freeze waits
 * for every request allocated on it.
 */
void np_fence_rq_free(struct nvme_peer_queue *q)
{
	struct request *req;

	mutex_lock(&q->hw_lock);
	req = q->fence_rq;
	q->fence_rq = NULL;
	mutex_unlock(&q->hw_lock);
	if (req) {
		blk_mq_free_request(req);
		atomic_dec(&q->pctrl->fence_rqs);
	}
}

static bool np_fence_quiet_arg(void *q)
{
	return np_fence_quiet(q);
}

/**
 * np_fence_start() - the quick first half of a fence, for atomic-ish callers
 * @q: the reservation
 * @reason: why
 *
 * Revokes @q (its owner is told) and stops its poller, as np_fence() does
 * first; for a caller that must not wait (dma-buf's move_notify()) and
 * hands the wait to np_fence() elsewhere.
 *
 * Return: true if the controller cannot run @q any more: no wait needed.
 */
bool np_fence_start(struct nvme_peer_queue *q, enum nvme_peer_reason reason)
{
	np_revoke_unlocked(q->pctrl, 0, q, reason);
	np_med_stop(q);
	return np_fence_quiet(q);
}

/* np_fence() without the mark */
static enum np_fence_how np_fence_wait(struct nvme_peer_queue *q,
				       enum nvme_peer_reason reason,
				       unsigned long budget, unsigned int flags)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	char why[48];

	if (flags & NP_FENCE_SIGNALLING) {
		if (np_fence_quiet(q))		/* started by the caller */
			return NP_FENCED_GONE;
	} else if (np_fence_start(q, reason)) {
		return NP_FENCED_GONE;
	}
	if (np_mediated(q) && np_fence_drain(q, budget))
		return NP_FENCED_DRAINED;
	if (np_fence_quiet(q))
		return NP_FENCED_GONE;
	if (!(flags & NP_FENCE_NO_ADMIN) && np_fence_delete(q, flags))
		return NP_FENCED_DELETED;

	snprintf(why, sizeof(why), "qid %u (%s)", q->qid,
		 np_reason_name(reason));
	dev_warn(pctrl->dev,
		 "nvme-peer: %s: the SQ could not be deleted: resetting the controller\n",
		 why);
	np_ctrl_disable_wait(pctrl, np_fence_quiet_arg, q, why);
	return NP_FENCED_RESET;
}

/**
 * np_fence() - revoke a queue and wait until the hardware holds none of it
 * @q: the reservation; the caller holds a reference
 * @reason: why; the owner's callback runs once, with the first reason
 * @budget: jiffies a mediated queue's forwarded commands may take before
 *	the fence deletes the SQ
 * @flags: %NP_FENCE_NO_ADMIN when no admin command may be sent (the
 *	namespace fence: the admin queue holds the command it fences for);
 *	%NP_FENCE_SIGNALLING in a dma-fence signalling section (a dma-buf
 *	move): the caller ran np_fence_start() already, and the Delete SQ
 *	uses the request of np_fence_rq_alloc()
 *
 * Revokes @q (its owner is told), stops its mediation, then waits for one
 * of the proofs in this file's header: drained (mediated, within
 * @budget), deleted, or reset.  A direct queue is never drained: its peer
 * writes the hardware SQ, so its SQ is deleted (or the controller reset)
 * at once.  Takes no pctrl->lock.
 *
 * Context: process context; sleeps, possibly long (a reset).
 * Return: how the fence ended; every value means the controller holds no
 * command of @q any more.
 */
enum np_fence_how np_fence(struct nvme_peer_queue *q,
			   enum nvme_peer_reason reason, unsigned long budget,
			   unsigned int flags)
{
	enum np_fence_how how = np_fence_wait(q, reason, budget, flags);

	spin_lock(&q->pctrl->state_lock);
	q->fenced = true;
	spin_unlock(&q->pctrl->state_lock);
	return how;
}

/**
 * np_wait_callbacks() - wait for the revoke callbacks running now
 * @pctrl: the controller
 *
 * Wait until no DOWN event is calling an owner back: after this, a queue
 * released or detached meanwhile is not called back any more.
 */
void np_wait_callbacks(struct nvme_peer_ctrl *pctrl)
{
	down_write(&pctrl->cb_sem);
	up_write(&pctrl->cb_sem);
}

/* ---- a reservation's state and its revocation ------------------------- */

/**
 * np_qstate_next() - apply an event to a reservation's state
 * @state: the state, updated on success
 * @ev: what happened
 * @notify: set when the owner's revoke callback must run now
 *
 * A reservation is revoked at most once: the first %NP_EV_REVOKE or
 * %NP_EV_RELEASE of a handed-out (active) reservation asks for the
 * callback, later ones do not.  A reservation that was never handed out
 * (still %NP_Q_CREATING) never asks for it.
 *
 * Return: 0; -EALREADY for a second revocation (state unchanged); -ESTALE
 * when creation completes on a reservation revoked meanwhile; -EINVAL for
 * an event that cannot happen in @state.
 */
int np_qstate_next(enum np_qstate *state, enum np_qevent ev, bool *notify)
{
	*notify = false;
	switch (*state) {
	case NP_Q_CREATING:
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
 * np_uevent_queue() - record a uevent of @q
 * @q: the reservation
 * @kind: add, change or remove
 *
 * Record a uevent of @q and have the controller's work send it.  The list
 * holds a reference to @q, the queued work one to the controller; after
 * forget (np_uevents_stop()) nothing is recorded.
 */
void np_uevent_queue(struct nvme_peer_queue *q, enum np_uev_kind kind)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;

	lockdep_assert_held(&pctrl->state_lock);
	if (pctrl->uevents_off || WARN_ON_ONCE(q->nr_uev == NP_UEV_MAX))
		return;
	q->uev[q->nr_uev++] = (struct np_uev){
		.kind = kind, .state = q->state, .reason = q->reason,
	};
	if (list_empty(&q->uevent_node)) {
		kobject_get(&q->kobj);
		list_add_tail(&q->uevent_node, &pctrl->uevents);
	}
	/* the work takes state_lock before it may put this reference */
	if (queue_work(np_settle_wq, &pctrl->uevent_work))
		kref_get(&pctrl->ref);
}

/*
 * np_queue_changed() - @q's state changed: tell who watches
 * @q: the reservation
 *
 * Wakes poll() on qN/state and qN/reason (POLLPRI | POLLERR) and records
 * a change uevent.  Nothing before qN/ exists: its addition says the state.
 *
 * Context: pctrl->state_lock held; atomic.
 */
static void np_queue_changed(struct nvme_peer_queue *q)
{
	lockdep_assert_held(&q->pctrl->state_lock);
	if (!q->state_kn)
		return;
	/* sysfs_notify() looks the files up under a sleeping lock */
	kernfs_notify(q->state_kn);
	kernfs_notify(q->reason_kn);
	np_uevent_queue(q, NP_UEV_CHANGE);
}

/**
 * np_queue_next() - apply an event to a reservation, and say so
 * @q: the reservation
 * @ev: what happened
 * @reason: why, kept if the owner must be told now
 * @notify: as np_qstate_next()
 *
 * np_qstate_next() on @q's state; a change wakes poll() on qN/state and
 * qN/reason and sends a uevent (np_queue_changed()).
 *
 * Context: pctrl->state_lock held.
 * Return: as np_qstate_next().
 */
int np_queue_next(struct nvme_peer_queue *q, enum np_qevent ev,
		  enum nvme_peer_reason reason, bool *notify)
{
	enum np_qstate old = q->state;
	int ret;

	lockdep_assert_held(&q->pctrl->state_lock);
	ret = np_qstate_next(&q->state, ev, notify);
	if (!ret && *notify)
		q->reason = reason;
	if (q->state != old)
		np_queue_changed(q);
	return ret;
}

/**
 * np_hw_gone() - whether the controller can no longer run @q's queues
 * @q: the reservation
 *
 * Unlike np_hw_quiet(), a CQ left alone counts: it must be deleted or
 * outlived before its memory is freed.
 *
 * Return: true once neither queue may exist in the current run.
 */
bool np_hw_gone(struct nvme_peer_queue *q)
{
	lockdep_assert_held(&q->pctrl->state_lock);
	return (!q->hw_cq && !q->hw_sq) || q->gen != q->pctrl->disable_gen;
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
			if ((q->state != NP_Q_CREATING && q->state != NP_Q_ACTIVE) ||
			    (nsid && q->params.nsid != nsid) ||
			    (only && q != only))
				continue;
			np_queue_next(q, NP_EV_REVOKE, reason, &notify);
			if (!notify)
				continue;
			revoke = q->revoke;
			priv = q->priv;
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
	if (q->state == NP_Q_CREATING || q->state == NP_Q_ACTIVE)
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

/**
 * np_ns_fence_work() - fence the queues in the way of namespace changes
 * @work: &nvme_peer_ctrl.fence_work, holding a controller reference
 *
 * Fences the queues of the namespaces admin commands are about to change
 * (each marked ns_fence by np_ns_admin_cmd()): np_fence() with reason
 * "namespace", without admin commands: the command it fences for waits
 * ahead of any in the admin queue.  A direct queue, and a mediated one
 * whose commands take longer than the budget, are fenced by a reset.
 */
void np_ns_fence_work(struct work_struct *work)
{
	struct nvme_peer_ctrl *pctrl = container_of(work, struct nvme_peer_ctrl,
						    fence_work);
	struct nvme_peer_queue *q;

	np_win_ns_fence(pctrl);
	while ((q = np_ns_next(pctrl))) {
		np_fence(q, NVME_PEER_REASON_NAMESPACE, NP_FENCE_BUDGET,
			 NP_FENCE_NO_ADMIN);
		kobject_put(&q->kobj);
	}
	nvme_peer_ctrl_put(pctrl);
}

/**
 * np_ns_admin_cmd() - may this admin command run now? (nvme-pci's hook)
 * @ctrl: the controller
 * @c: an admin command that may change a namespace's format, size or
 *	attachment: Format NVM, Namespace Management or Attachment, Sanitize
 *
 * The command waits (false: blk-mq retries it a few ms later) until every
 * peer queue of that namespace is fenced: otherwise a mediated queue's
 * guard, which counts bytes with the old LBA size, would pass commands
 * that move more than it checked.
 *
 * Context: atomic.
 * Return: true if the command may be sent.
 */
bool np_ns_admin_cmd(struct nvme_ctrl *ctrl, const struct nvme_command *c)
{
	struct nvme_peer_ctrl *pctrl;
	bool any, fenced;
	u32 nsid;

	if (!np_admin_cmd_ns(c, &nsid, &any))
		return true;
	rcu_read_lock();
	pctrl = np_ctrl_find_rcu(ctrl);
	if (!pctrl) {
		rcu_read_unlock();
		return true;
	}
	/* nvme-peer's own change of another controller: nothing to fence */
	if (np_admin_cmd_is_foreign(pctrl, c)) {
		rcu_read_unlock();
		return true;
	}
	spin_lock(&pctrl->state_lock);
	fenced = np_ns_mark(pctrl, nsid, any);
	fenced &= np_win_ns_mark(pctrl, nsid, any);
	spin_unlock(&pctrl->state_lock);
	/* a pending work holds a reference: this put is never the last */
	if (!fenced && kref_get_unless_zero(&pctrl->ref) &&
	    !queue_work(np_settle_wq, &pctrl->fence_work))
		nvme_peer_ctrl_put(pctrl);
	rcu_read_unlock();
	return fenced;
}

struct workqueue_struct *np_wq;
struct workqueue_struct *np_settle_wq;
struct workqueue_struct *np_move_wq;

/**
 * np_fence_init() - the workqueues of the fences and of their causes
 *
 * Three, by who waits for their work:
 *
 * - np_settle_wq (WQ_MEM_RECLAIM): what a controller event waits for
 *   (np_ctrl_forget(), nvme-pci's removal, itself on nvme-wq, a reclaim
 *   workqueue): the settling of released reservations, the namespace
 *   fence, a binding's lease return (np_bind_sync()).
 * - np_move_wq (WQ_MEM_RECLAIM): the dma-buf moves' fences, which the
 *   settling waits for when it frees a queue's dma-buf (np_dmabuf_release());
 *   a workqueue of their own: a work waiting for one of its own
 *   workqueue's is a deadlock lockdep reports.
 * - np_wq: the rest, which may wait for the others: configfs
 *   re-creations, isolated mode's teardowns (which remove VFs, whose
 *   REMOVED waits for np_settle_wq), layout breaks, a frozen file
 *   system's time update and close.
 *
 * np_fence_exit() drains them at unload, after the last event.
 *
 * Return: 0 or -ENOMEM.
 */
int __init np_fence_init(void)
{
	np_wq = alloc_workqueue("nvme-peer", 0, 0);
	if (!np_wq)
		goto out;
	np_settle_wq = alloc_workqueue("nvme-peer-settle", WQ_MEM_RECLAIM, 0);
	if (!np_settle_wq)
		goto out_destroy_np_wq;
	np_move_wq = alloc_workqueue("nvme-peer-move", WQ_MEM_RECLAIM, 0);
	if (!np_move_wq)
		goto out_destroy_settle_wq;
	return 0;

out_destroy_settle_wq:
	destroy_workqueue(np_settle_wq);
out_destroy_np_wq:
	destroy_workqueue(np_wq);
out:
	return -ENOMEM;
}

/**
 * np_fence_exit() - drain and free the workqueues
 *
 * In the order their work queues more: a settling's last put of a
 * binding queues its lease return (np_settle_wq itself) and a frozen
 * file's close (np_wq).
 */
void np_fence_exit(void)
{
	destroy_workqueue(np_settle_wq);
	destroy_workqueue(np_move_wq);
	destroy_workqueue(np_wq);
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/fence_kunit.c"
#endif
