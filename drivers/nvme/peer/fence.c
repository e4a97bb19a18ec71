// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: the fence.  Every cause that takes a queue away while the
 * controller may still run it -- a layout break, a dma-buf move, a
 * namespace change, a peer device leaving -- calls np_fence(), which
 * revokes the queue and returns only when the hardware provably holds no
 * command of it, by one of three proofs:
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
 * Locks: np_fence() takes pctrl->cb_sem (read), np_med_lock and q->hw_lock
 * (in np_delete_hw()), never pctrl->lock, so it may run while a reserve or a release holds
 * pctrl->lock and waits for a dma-buf reservation lock whose holder waits
 * for the fence.  q->hw_lock serialises the Create and Delete commands of
 * one queue; a Create is refused once the queue is revoked (see
 * np_admin_queue()), so a queue the fence saw quiet stays quiet.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>

#include "nvme.h"
#include "nvme-peer.h"

/* how often a fence waiting for a disable says so */
#define NP_FENCE_NAG		(10 * HZ)

static const char * const np_fence_names[] = {
	[NP_FENCED_GONE] = "gone already",
	[NP_FENCED_DRAINED] = "drained",
	[NP_FENCED_DELETED] = "deleted",
	[NP_FENCED_RESET] = "reset",
};

/**
 * np_fence_how_name() - how a fence ended, for logs and sysfs
 * @how: from np_fence()
 *
 * Return: a constant string.
 */
const char *np_fence_how_name(enum np_fence_how how)
{
	return how < ARRAY_SIZE(np_fence_names) ? np_fence_names[how] : "?";
}

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

/* Delete the SQ and CQ; true once quiet (a failed Delete is not). */
static bool np_fence_delete(struct nvme_peer_queue *q)
{
	np_delete_hw(q);
	return np_fence_quiet(q);
}

/**
 * np_ctrl_disable_wait() - have the controller disabled and wait for it
 * @pctrl: the controller
 * @done: returns true once the wait is over, e.g. np_fence_quiet()
 * @arg: for @done
 * @why: for the log
 *
 * Asks nvme-pci for a reset (a reset or a removal already running will
 * do: nvme_reset_ctrl() then refuses, and the disable comes anyway) and
 * waits, without a time limit, until @done says so: every disable moves
 * pctrl->disable_gen.  Every %NP_FENCE_NAG it logs that it still waits and
 * asks again (a reset that failed leaves the controller dead: disabled).
 */
static void np_ctrl_disable_wait(struct nvme_peer_ctrl *pctrl,
				 bool (*done)(void *arg), void *arg,
				 const char *why)
{
	unsigned long nag = jiffies + NP_FENCE_NAG;

	nvme_reset_ctrl(pctrl->ctrl);
	while (!done(arg)) {
		msleep(20);
		if (time_after(jiffies, nag)) {
			dev_warn(pctrl->ctrl->device,
				 "nvme-peer: %s: still waiting for the controller to be disabled\n",
				 why);
			nvme_reset_ctrl(pctrl->ctrl);
			nag = jiffies + NP_FENCE_NAG;
		}
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

	if (np_fence_start(q, reason))
		return NP_FENCED_GONE;
	if (np_mediated(q) && np_fence_drain(q, budget))
		return NP_FENCED_DRAINED;
	if (np_fence_quiet(q))
		return NP_FENCED_GONE;
	if (!(flags & NP_FENCE_NO_ADMIN) && np_fence_delete(q))
		return NP_FENCED_DELETED;

	snprintf(why, sizeof(why), "qid %u (%s)", q->qid,
		 np_reason_name(reason));
	dev_warn(pctrl->ctrl->device,
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
 *	namespace fence: the admin queue holds the command it fences for)
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
