// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: the admin commands nvme-peer sends on a controller's admin
 * queue -- Create and Delete I/O SQ/CQ for a reservation, Identify
 * Namespace for the guard's view of the format -- and the one way to make
 * a controller drop every queue: ask for a reset and wait for the disable.
 * Here is decided whether a hardware queue may exist (q->hw_sq, q->hw_cq,
 * q->gen) and which errno an NVMe status becomes; nothing here decides
 * whether a queue should exist (core.c) or is revoked (fence.c).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/slab.h>

#include "nvme.h"
#include "nvme-peer.h"

/* the Status Code Type and Status Code of an NVMe status */
#define NP_STATUS_SCT_SC	0x7ff
/* how often a wait for a disable says it still waits */
#define NP_DISABLE_NAG		(10 * HZ)

/* A command of np_admin_cmd_foreign(), on pctrl->foreign_cmds while sent. */
struct np_foreign_cmd {
	struct list_head node;
	const struct nvme_command *cmd;	/* the request's own copy */
};

/*
 * Send @c on @req (freed here); with @foreign, the request's own command is
 * on @pctrl's foreign_cmds while it is in flight (np_admin_cmd_foreign()).
 */
static int np_admin_send(struct nvme_peer_ctrl *pctrl, struct request *req,
			 struct nvme_command *c, void *buf, unsigned int len,
			 bool foreign)
{
	struct np_foreign_cmd f;
	blk_status_t status;
	int ret;

	nvme_init_request(req, c);
	nvme_req(req)->flags |= NVME_REQ_USERCMD;
	if (buf && len) {
		ret = blk_rq_map_kern(req->q, req, buf, len, GFP_KERNEL);
		if (ret)
			goto out_free_req;
	}
	if (foreign) {
		f.cmd = nvme_req(req)->cmd;
		spin_lock(&pctrl->state_lock);
		list_add(&f.node, &pctrl->foreign_cmds);
		spin_unlock(&pctrl->state_lock);
	}
	status = blk_execute_rq(req, false);
	if (foreign) {
		spin_lock(&pctrl->state_lock);
		list_del(&f.node);
		spin_unlock(&pctrl->state_lock);
	}
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

/**
 * np_admin_rq_alloc() - a request of the controller's admin queue
 * @pctrl: the controller
 * @op: REQ_OP_DRV_IN, or REQ_OP_DRV_OUT for a command that sends data
 *
 * For np_admin_exec(); the one place nvme-peer allocates one.
 *
 * Return: the request, or an ERR_PTR (blk_mq_alloc_request()'s).
 */
struct request *np_admin_rq_alloc(struct nvme_peer_ctrl *pctrl,
				  enum req_op op)
{
	return blk_mq_alloc_request(pctrl->ctrl->admin_q, op, 0);
}

/* np_admin_send() on a request allocated for it */
static int np_admin_alloc_send(struct nvme_peer_ctrl *pctrl,
			       struct nvme_command *c, void *buf,
			       unsigned int len, bool foreign)
{
	struct request *req;

	req = np_admin_rq_alloc(pctrl, nvme_req_op(c));
	if (IS_ERR(req))
		return PTR_ERR(req);
	return np_admin_send(pctrl, req, c, buf, len, foreign);
}

/**
 * np_admin_exec() - send an admin command with a request already allocated
 * @req: a request of the controller's admin queue; freed here
 * @c: the command
 * @buf: its data (kernel memory), or NULL
 * @len: bytes of @buf
 *
 * Allocates nothing without @buf: a dma-buf fence sends its Delete SQ this
 * way, with the request preallocated at import.  The wait for the
 * completion is bounded by nvme-pci's admin timeout (``admin_timeout``,
 * 60 s), after which nvme-pci disables the controller and cancels it.
 *
 * Return: 0, the NVMe status (> 0), or -errno.
 */
int np_admin_exec(struct request *req, struct nvme_command *c, void *buf,
		  unsigned int len)
{
	return np_admin_send(NULL, req, c, buf, len, false);
}

/**
 * np_admin_cmd() - send an admin command on a controller's admin queue
 * @pctrl: the controller
 * @c: the command
 * @buf: its data (kernel memory), or NULL
 * @len: bytes of @buf
 *
 * The way an ioctl does (NVME_REQ_USERCMD): it runs only while the
 * controller is LIVE and fails at once, with a host path error, while it
 * resets.  A command of ours must never run in the middle of a reset,
 * before nvme-pci has set up its own queues.
 *
 * Return: 0, the NVMe status (> 0), or -errno.
 */
int np_admin_cmd(struct nvme_peer_ctrl *pctrl, struct nvme_command *c,
		 void *buf, unsigned int len)
{
	return np_admin_alloc_send(pctrl, c, buf, len, false);
}

/**
 * np_admin_cmd_foreign() - np_admin_cmd() for a change of another controller
 * @pctrl: the controller whose admin queue sends it
 * @c: a Namespace Attachment whose controller list names only other
 *	controllers (a secondary's), or another command that changes no
 *	namespace @pctrl sees
 * @buf: its data (kernel memory), or NULL
 * @len: bytes of @buf
 *
 * nvme-pci hands the command to the admin_cmd hook, which would fence
 * @pctrl's own reservations on the namespace (np_ns_admin_cmd()); this
 * one is known not to change what @pctrl sees of it, and the hook lets
 * it pass (np_admin_cmd_is_foreign()).  A command the same in every
 * word sent by anyone else is fenced as before: the hook knows ours by
 * the request that carries it, not by its contents.
 *
 * Return: as np_admin_cmd().
 */
int np_admin_cmd_foreign(struct nvme_peer_ctrl *pctrl, struct nvme_command *c,
			 void *buf, unsigned int len)
{
	return np_admin_alloc_send(pctrl, c, buf, len, true);
}

/**
 * np_admin_cmd_is_foreign() - whether @c is one of np_admin_cmd_foreign()'s
 * @pctrl: the controller the hook runs for
 * @c: the command nvme-pci is about to submit (its request's own)
 *
 * Context: atomic; takes @pctrl->state_lock.
 * Return: true if nvme-peer sent @c as changing no namespace of @pctrl.
 */
bool np_admin_cmd_is_foreign(struct nvme_peer_ctrl *pctrl,
			     const struct nvme_command *c)
{
	struct np_foreign_cmd *f;
	bool found = false;

	spin_lock(&pctrl->state_lock);
	list_for_each_entry(f, &pctrl->foreign_cmds, node)
		found |= f->cmd == c;
	spin_unlock(&pctrl->state_lock);
	return found;
}

/**
 * np_admin_errno() - the errno for np_admin_cmd()'s result
 * @ret: np_admin_cmd()'s return
 *
 * Return: 0 or -errno: a resetting controller -EAGAIN, Invalid Namespace
 * -ENODEV, any other status -EIO.
 */
int np_admin_errno(int ret)
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
			  bool *hw, bool create, struct request *req)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	int ret;

	lockdep_assert_held(&q->hw_lock);
	if (create) {
		/* a revoked queue is never created: a fence saw it quiet */
		spin_lock(&pctrl->state_lock);
		ret = pctrl->live && (q->state == NP_Q_CREATING ||
				      q->state == NP_Q_ACTIVE) ? 0 : -EAGAIN;
		if (!ret) {
			*hw = true;
			q->gen = pctrl->disable_gen;
		}
		spin_unlock(&pctrl->state_lock);
		if (ret)
			return ret;
		if (np_inject_reset()) {
			dev_info(pctrl->dev,
				 "nvme-peer: injected reset before Create\n");
			np_ctrl_reset_wait(pctrl, true);
		}
	}
	ret = np_inject_admin_error(c);
	if (ret && req)
		blk_mq_free_request(req);
	else if (req)
		ret = np_admin_exec(req, c, NULL, 0);
	else if (!ret)
		ret = np_admin_cmd(pctrl, c, NULL, 0);
	if (!create && ret > 0 && np_no_such_queue(ret))
		ret = 0;		/* gone already: as good as deleted */
	if (ret > 0)
		dev_warn(pctrl->dev,
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
	ret = np_admin_queue(q, &c, &q->hw_cq, true, NULL);
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
	return np_admin_queue(q, &c, &q->hw_sq, true, NULL);
}

int np_create_hw(struct nvme_peer_queue *q)
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
		np_admin_queue(q, &c, &q->hw_sq, false, NULL);
	}
	if (q->hw_cq && !q->hw_sq) {
		c.delete_queue.opcode = nvme_admin_delete_cq;
		np_admin_queue(q, &c, &q->hw_cq, false, NULL);
	}
	mutex_unlock(&q->hw_lock);
}

/**
 * np_delete_sq_prealloc() - Delete I/O SQ with the preallocated request
 * @q: the reservation, with its request from np_fence_rq_alloc()
 *
 * The dma-buf fence's Delete (NP_FENCE_SIGNALLING): no memory is
 * allocated and no tag waited for.  The request is used up; without one
 * (used by an earlier fence of @q, whose Delete failed), nothing is sent
 * and the fence goes on to the reset.  The CQ is left to the release: a
 * CQ without its SQ receives no completion.
 */
void np_delete_sq_prealloc(struct nvme_peer_queue *q)
{
	struct nvme_command c = { };
	struct request *req;

	mutex_lock(&q->hw_lock);
	req = q->fence_rq;
	if (q->hw_sq && req) {
		q->fence_rq = NULL;
		atomic_dec(&q->pctrl->fence_rqs);
		c.delete_queue.opcode = nvme_admin_delete_sq;
		c.delete_queue.qid = cpu_to_le16(q->qid);
		np_admin_queue(q, &c, &q->hw_sq, false, req);
	}
	mutex_unlock(&q->hw_lock);
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
int np_ns_format(struct nvme_peer_ctrl *pctrl, struct nvme_ns *ns,
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
	    (capacity && *nsze != capacity >> (f->ds - SECTOR_SHIFT)) ||
	    np_inject_ns_settling())
		ret = -EAGAIN;
out_unlock:
	mutex_unlock(&pctrl->ctrl->scan_lock);
	kfree(id);
	return ret;
}

/**
 * np_ctrl_disable_wait() - have the controller disabled and wait for it
 * @pctrl: the controller
 * @done: returns true once the wait is over (the fence's: @q is quiet)
 * @arg: for @done
 * @why: for the log
 *
 * Asks nvme-pci for a reset (a reset or a removal already running will
 * do: nvme_reset_ctrl() then refuses, and the disable comes anyway) and
 * waits, without a time limit, until @done says so: every disable moves
 * pctrl->disable_gen.  Every %NP_DISABLE_NAG it logs that it still waits and
 * asks again (a reset that failed leaves the controller dead: disabled).
 */
void np_ctrl_disable_wait(struct nvme_peer_ctrl *pctrl,
			  bool (*done)(void *arg), void *arg,
			  const char *why)
{
	unsigned long nag = jiffies + NP_DISABLE_NAG;

	nvme_reset_ctrl(pctrl->ctrl);
	while (!done(arg)) {
		msleep(20);
		if (time_after(jiffies, nag)) {
			dev_warn(pctrl->dev,
				 "nvme-peer: %s: still waiting for the controller to be disabled\n",
				 why);
			nvme_reset_ctrl(pctrl->ctrl);
			nag = jiffies + NP_DISABLE_NAG;
		}
	}
}

struct np_gen_wait {
	struct nvme_peer_ctrl *pctrl;
	unsigned int gen;
	bool live;
};

static bool np_gen_moved(void *arg)
{
	struct np_gen_wait *w = arg;
	bool done;

	spin_lock(&w->pctrl->state_lock);
	done = w->pctrl->disable_gen != w->gen && (!w->live || w->pctrl->live);
	spin_unlock(&w->pctrl->state_lock);
	return done;
}

/**
 * np_ctrl_reset_flush() - reset a controller and wait for the reset's work
 * @pctrl: the controller
 *
 * For a caller that holds no lock a removal may wait for (the reset work
 * takes the shutdown lock); see np_ctrl_reset_wait() otherwise.
 *
 * Return: 0 once the work ended, or nvme_reset_ctrl()'s -EBUSY when the
 * controller cannot reset now (resetting, deleting, dead).
 */
int np_ctrl_reset_flush(struct nvme_peer_ctrl *pctrl)
{
	int ret = nvme_reset_ctrl(pctrl->ctrl);

	if (!ret)
		flush_work(&pctrl->ctrl->reset_work);
	return ret;
}

/**
 * np_ctrl_has_ns() - whether nvme-core shows namespace @nsid of @pctrl
 * @pctrl: the controller
 * @nsid: the namespace
 */
bool np_ctrl_has_ns(struct nvme_peer_ctrl *pctrl, u32 nsid)
{
	struct nvme_ns *ns = nvme_find_get_ns(pctrl->ctrl, nsid);

	if (ns)
		nvme_put_ns(ns);
	return ns;
}

/**
 * np_ns_geometry() - a namespace's LBA size and size, as a window needs
 * @pctrl: the controller, its lock held (an admin command)
 * @nsid: the namespace
 * @b: a file binding whose file must live on it, or NULL
 * @lba_shift: log2 of its LBA size
 * @nsze: its size in LBAs
 *
 * Return: 0; -ENOENT (nvme-core shows no such namespace), -EXDEV (@b's
 * file lives elsewhere), -EOPNOTSUPP
 * (LBAs carry metadata: a provider shows data only), -EAGAIN (its format
 * is changing, see np_ns_format()), or an admin command's error.
 */
int np_ns_geometry(struct nvme_peer_ctrl *pctrl, u32 nsid, struct np_bind *b,
		   u32 *lba_shift, u64 *nsze)
{
	struct nvme_ns *ns;
	int ret;

	lockdep_assert_held(&pctrl->lock);
	ns = nvme_find_get_ns(pctrl->ctrl, nsid);
	if (!ns)
		return -ENOENT;
	ret = b ? np_bind_on(b, ns->disk) : 0;
	if (!ret)
		ret = np_ns_ms(ns) ? -EOPNOTSUPP :
				     np_ns_format(pctrl, ns, nsid, lba_shift, nsze);
	nvme_put_ns(ns);
	return ret;
}

/* The controller's CNTLID, from nvme-core's Identify. */
u16 np_ctrl_cntlid(struct nvme_peer_ctrl *pctrl)
{
	return pctrl->ctrl->cntlid;
}

/* Whether the controller supports Namespace Management and Attachment. */
bool np_ctrl_ns_mgmt(struct nvme_peer_ctrl *pctrl)
{
	return pctrl->ctrl->oacs & NVME_CTRL_OACS_NS_MNGT_SUPP;
}

/**
 * np_ctrl_reset_wait() - reset a controller and wait for its disable
 * @pctrl: the controller
 * @live: wait until it is live again too
 *
 * Waits for the disable generation to move (and @live), with no time
 * limit, instead of flushing the reset work: that work takes the shutdown
 * lock, under which a removal may be waiting for locks the caller holds.
 * Any disable will do, the reset's, one already running, or a removal's.
 */
void np_ctrl_reset_wait(struct nvme_peer_ctrl *pctrl, bool live)
{
	struct np_gen_wait w = { .pctrl = pctrl, .live = live };

	spin_lock(&pctrl->state_lock);
	w.gen = pctrl->disable_gen;
	spin_unlock(&pctrl->state_lock);
	np_ctrl_disable_wait(pctrl, np_gen_moved, &w, "reset");
}
