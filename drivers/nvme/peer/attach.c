// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: a process drives a reservation an administrator made
 * (configfs, made with a uid or gid): attach by qid or by name -- an
 * isolated one is on a VF of the named primary --, detach, and the
 * reservation recycled for the next process: its queues deleted, zeroed
 * and created again, so nothing one process left reaches the next.  Who
 * may attach is decided here (the reservation's uid and gid) and in
 * core.c's np_unguarded_check() (direct and isolated: CAP_SYS_RAWIO).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cred.h>
#include <linux/slab.h>

#include "nvme-peer.h"

/**
 * np_grant_allows() - may the caller attach to what an administrator made
 * @attachable: it was made with a uid or a gid
 * @uid: the user it is for, or INVALID_UID: any
 * @gid: the group it is for, or INVALID_GID: any
 *
 * The one rule for a reservation's and a window's (window.c) attach:
 * the caller's filesystem uid, and its groups.
 *
 * Return: true if the caller may.
 */
bool np_grant_allows(bool attachable, kuid_t uid, kgid_t gid)
{
	return attachable && (!uid_valid(uid) || uid_eq(uid, current_fsuid())) &&
	       (!gid_valid(gid) || in_group_p(gid));
}

/*
 * The reservation with @qid, or named @name: the active one of that name
 * if there is one (a revoked generation may still be held by a process).
 */
static struct nvme_peer_queue *np_find(struct nvme_peer_ctrl *pctrl, u16 qid,
				       const char *name)
{
	struct nvme_peer_queue *q, *found = NULL;

	lockdep_assert_held(&pctrl->lock);
	list_for_each_entry(q, &pctrl->queues, node) {
		if (q->state == NP_Q_RELEASED ||
		    (name ? strcmp(q->name, name) : q->qid != qid))
			continue;
		if (q->state == NP_Q_ACTIVE)
			return q;
		found = q;
	}
	return found;
}

/**
 * np_attach_on() - np_attach() on one controller
 * @pctrl: the controller whose list holds the reservation
 * @qid: as np_attach()
 * @name: as np_attach()
 * @revoke: as np_attach()
 * @priv: as np_attach()
 *
 * Return: as np_attach().
 */
static struct nvme_peer_queue *np_attach_on(struct nvme_peer_ctrl *pctrl,
					    u16 qid, const char *name,
					    nvme_peer_revoke_fn revoke,
					    void *priv)
{
	struct nvme_peer_queue *q;
	int ret = 0;

	mutex_lock(&pctrl->lock);
	q = np_find(pctrl, qid, name);
	if (!q) {
		mutex_unlock(&pctrl->lock);
		return ERR_PTR(-ENOENT);
	}
	spin_lock(&pctrl->state_lock);
	if (q->owner != NP_OWNER_ADMIN ||
	    !np_grant_allows(q->provisioned, q->uid, q->gid))
		ret = -EACCES;
	else if (np_unguarded_check(q->params.mode, NP_OWNER_PROCESS, false))
		ret = -EPERM;
	else if (q->attached)
		ret = -EBUSY;
	else if (q->state != NP_Q_ACTIVE)
		ret = -ENXIO;
	if (!ret) {
		q->attached = true;
		q->revoke = revoke;
		q->priv = priv;
		kobject_get(&q->kobj);
	}
	spin_unlock(&pctrl->state_lock);
	mutex_unlock(&pctrl->lock);
	return ret ? ERR_PTR(ret) : q;
}

/**
 * np_attach() - let a process drive a reservation an administrator made
 * @pctrl: the controller
 * @qid: the reservation's qid, when @name is NULL
 * @name: the reservation's name (its configfs directory), or NULL
 * @revoke: called once if it is revoked while attached
 * @priv: for @revoke
 *
 * Return: the reservation with a reference for the caller, or an ERR_PTR:
 * -ENOENT (no such reservation), -EACCES (made without uid or gid, or for
 * another user or group), -EPERM (the caller lacks CAP_SYS_RAWIO and the
 * reservation is direct or isolated: np_unguarded_check()), -EBUSY
 * (attached already), -ENXIO (revoked; a
 * reservation revoked by a reset comes back under its name).
 */
struct nvme_peer_queue *np_attach(struct nvme_peer_ctrl *pctrl, u16 qid,
				  const char *name, nvme_peer_revoke_fn revoke,
				  void *priv)
{
	struct nvme_peer_ctrl **vctrls;
	struct nvme_peer_queue *q;
	unsigned int i, n;

	q = np_attach_on(pctrl, qid, name, revoke, priv);
	/* an isolated reservation is on one of the primary's VFs, by name */
	if (PTR_ERR(q) != -ENOENT || !name)
		return q;
	vctrls = np_iso_vctrls(pctrl, &n);
	for (i = 0; i < n && PTR_ERR(q) == -ENOENT; i++)
		q = np_attach_on(vctrls[i], 0, name, revoke, priv);
	np_ctrls_put(vctrls, n);
	return q;
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
	q->revoke = NULL;
	q->priv = NULL;
	active = q->state == NP_Q_ACTIVE && pctrl->live;
	spin_unlock(&pctrl->state_lock);
	np_wait_callbacks(pctrl);
	if (active)
		np_recycle(q);
	mutex_unlock(&pctrl->lock);
	kobject_put(&q->kobj);
}

