// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: /sys/class/nvme/nvmeX/peer/, the administrator's view.
 * See Documentation/ABI/testing/sysfs-class-nvme-peer; the words it
 * prints are words.h's.
 */
#include <linux/device.h>
#include <linux/kernfs.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uidgid.h>

#include "nvme-peer.h"

struct np_ctrl_kobj {
	struct kobject kobj;
	struct nvme_peer_ctrl *pctrl;
};

static struct nvme_peer_ctrl *to_pctrl(struct kobject *kobj)
{
	return container_of(kobj, struct np_ctrl_kobj, kobj)->pctrl;
}

static ssize_t first_qid_show(struct kobject *kobj, struct kobj_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", to_pctrl(kobj)->info.first_qid);
}

static ssize_t nr_qids_show(struct kobject *kobj, struct kobj_attribute *a,
			    char *buf)
{
	return sysfs_emit(buf, "%u\n", to_pctrl(kobj)->info.nr_qids);
}

static ssize_t free_show(struct kobject *kobj, struct kobj_attribute *a,
			 char *buf)
{
	struct nvme_peer_ctrl *pctrl = to_pctrl(kobj);
	unsigned int nr;

	spin_lock(&pctrl->state_lock);
	nr = np_free_qids(pctrl);
	spin_unlock(&pctrl->state_lock);
	return sysfs_emit(buf, "%u\n", nr);
}

static ssize_t live_show(struct kobject *kobj, struct kobj_attribute *a,
			 char *buf)
{
	return sysfs_emit(buf, "%d\n", READ_ONCE(to_pctrl(kobj)->live));
}

static ssize_t cmbsz_show(struct kobject *kobj, struct kobj_attribute *a,
			  char *buf)
{
	return sysfs_emit(buf, "%#x\n", to_pctrl(kobj)->info.cmbsz);
}

static ssize_t max_depth_show(struct kobject *kobj, struct kobj_attribute *a,
			      char *buf)
{
	return sysfs_emit(buf, "%u\n", to_pctrl(kobj)->info.mqes);
}

static ssize_t doorbell_stride_show(struct kobject *kobj,
				    struct kobj_attribute *a, char *buf)
{
	return sysfs_emit(buf, "%u\n", np_db_stride(&to_pctrl(kobj)->info));
}

static struct kobj_attribute np_attr_first_qid = __ATTR_RO(first_qid);
static struct kobj_attribute np_attr_nr_qids = __ATTR_RO(nr_qids);
static struct kobj_attribute np_attr_free = __ATTR_RO(free);
static struct kobj_attribute np_attr_live = __ATTR_RO(live);
static struct kobj_attribute np_attr_cmbsz = __ATTR_RO(cmbsz);
static struct kobj_attribute np_attr_max_depth = __ATTR_RO(max_depth);
static struct kobj_attribute np_attr_doorbell_stride =
	__ATTR_RO(doorbell_stride);

static struct attribute *np_ctrl_attrs[] = {
	&np_attr_first_qid.attr, &np_attr_nr_qids.attr, &np_attr_free.attr,
	&np_attr_live.attr, &np_attr_cmbsz.attr, &np_attr_max_depth.attr,
	&np_attr_doorbell_stride.attr,
	NULL,
};
ATTRIBUTE_GROUPS(np_ctrl);

static void np_ctrl_kobj_release(struct kobject *kobj)
{
	kfree(container_of(kobj, struct np_ctrl_kobj, kobj));
}

static const struct kobj_type np_ctrl_ktype = {
	.release = np_ctrl_kobj_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = np_ctrl_groups,
};

int np_sysfs_ctrl_add(struct nvme_peer_ctrl *pctrl)
{
	struct np_ctrl_kobj *ck;
	int ret;

	ck = kzalloc(sizeof(*ck), GFP_KERNEL);
	if (!ck)
		return -ENOMEM;
	ck->pctrl = pctrl;
	ret = kobject_init_and_add(&ck->kobj, &np_ctrl_ktype,
				   &pctrl->dev->kobj, "peer");
	if (ret) {
		kobject_put(&ck->kobj);
		return ret;
	}
	pctrl->kobj = &ck->kobj;
	return 0;
}

/*
 * Remove peer/ and wait for its writers, which may wait for pctrl->lock:
 * call without it.  The kobject is dropped under the lock, so a reserve in
 * progress either sees it (and fails to add below a removed directory) or
 * sees NULL.
 */
void np_sysfs_ctrl_del(struct nvme_peer_ctrl *pctrl)
{
	lockdep_assert_not_held(&pctrl->lock);
	if (!pctrl->kobj)
		return;
	kobject_del(pctrl->kobj);
	mutex_lock(&pctrl->lock);
	kobject_put(pctrl->kobj);
	pctrl->kobj = NULL;
	mutex_unlock(&pctrl->lock);
}

/* ---- one directory per reservation: peer/q<qid>/ -------------------- */

#define NP_Q_SHOW(name, fmt, expr)					\
static ssize_t name##_show(struct kobject *kobj, struct kobj_attribute *a, \
			   char *buf)					\
{									\
	struct nvme_peer_queue *q = np_queue_of(kobj);				\
									\
	return sysfs_emit(buf, fmt "\n", expr);				\
}									\
static struct kobj_attribute np_q_##name = __ATTR_RO(name)

#define NP_Q_SHOW_ADDR(name, expr)					\
static ssize_t name##_show(struct kobject *kobj, struct kobj_attribute *a, \
			   char *buf)					\
{									\
	struct nvme_peer_queue *q = np_queue_of(kobj);				\
									\
	return sysfs_emit(buf, "%#llx\n", (u64)(expr));		\
}									\
static struct kobj_attribute np_q_##name = __ATTR(name, 0400, name##_show, NULL)

NP_Q_SHOW(qid, "%u", q->qid);
NP_Q_SHOW(nsid, "%u", q->params.nsid);
NP_Q_SHOW(depth, "%u", q->params.depth);
NP_Q_SHOW(lba_shift, "%u", q->lba_shift);
NP_Q_SHOW(owner, "%s", np_owner_name(q->owner));
NP_Q_SHOW(name, "%s", q->name);
NP_Q_SHOW(generation, "%u", q->generation);
NP_Q_SHOW(uid, "%d", q->provisioned && uid_valid(q->uid) ?
	  (int)from_kuid(&init_user_ns, q->uid) : -1);
NP_Q_SHOW(gid, "%d", q->provisioned && gid_valid(q->gid) ?
	  (int)from_kgid(&init_user_ns, q->gid) : -1);
NP_Q_SHOW(attached, "%d", READ_ONCE(q->attached));
NP_Q_SHOW(peer, "%s", q->peer ? pci_name(q->peer) : "cpu");
NP_Q_SHOW(sq_placement, "%s", np_placement_name(q->sq.where));
NP_Q_SHOW(cq_placement, "%s", np_placement_name(q->cq.where));
NP_Q_SHOW(data_placement, "%s", np_placement_name(q->data.where));
NP_Q_SHOW(data_size, "%zu", q->data.size);
NP_Q_SHOW(sq_location, "%s", np_location_name(q->sq.loc));
NP_Q_SHOW(cq_location, "%s", np_location_name(q->cq.loc));
NP_Q_SHOW(data_location, "%s", np_location_name(q->data.loc));
NP_Q_SHOW_ADDR(sq_addr, q->sq.peer_dma);
NP_Q_SHOW_ADDR(cq_addr, q->cq.peer_dma);
NP_Q_SHOW_ADDR(data_addr, q->data.peer_dma);
NP_Q_SHOW_ADDR(data_ctrl_addr, q->data.ctrl_dma);
NP_Q_SHOW_ADDR(sq_db_addr, q->sq_db_addr);
NP_Q_SHOW_ADDR(cq_db_addr, q->cq_db_addr);
NP_Q_SHOW(mode, "%s", np_mode_name(q->params.mode));
NP_Q_SHOW(guarantee, "%s", np_guarantee_name(q->guarantee));

static ssize_t state_show(struct kobject *kobj, struct kobj_attribute *a,
			  char *buf)
{
	enum nvme_peer_reason reason;
	enum np_qstate state;

	np_queue_snapshot(np_queue_of(kobj), &state, &reason);
	return sysfs_emit(buf, "%s\n", np_qstate_name(state));
}

static struct kobj_attribute np_q_state = __ATTR_RO(state);

static ssize_t reason_show(struct kobject *kobj, struct kobj_attribute *a,
			   char *buf)
{
	enum nvme_peer_reason reason;
	enum np_qstate state;

	np_queue_snapshot(np_queue_of(kobj), &state, &reason);
	return sysfs_emit(buf, "%s\n", np_reason_name(reason));
}

static struct kobj_attribute np_q_reason = __ATTR_RO(reason);

static struct attribute *np_queue_attrs[] = {
	&np_q_qid.attr, &np_q_nsid.attr, &np_q_depth.attr,
	&np_q_lba_shift.attr, &np_q_owner.attr, &np_q_uid.attr,
	&np_q_gid.attr, &np_q_attached.attr, &np_q_peer.attr,
	&np_q_sq_placement.attr, &np_q_cq_placement.attr,
	&np_q_data_placement.attr, &np_q_data_size.attr,
	&np_q_sq_addr.attr, &np_q_cq_addr.attr, &np_q_data_addr.attr,
	&np_q_data_ctrl_addr.attr, &np_q_sq_db_addr.attr,
	&np_q_cq_db_addr.attr, &np_q_state.attr, &np_q_reason.attr,
	&np_q_mode.attr, &np_q_guarantee.attr, &np_q_sq_location.attr,
	&np_q_cq_location.attr, &np_q_data_location.attr, &np_q_name.attr,
	&np_q_generation.attr,
	NULL,
};

static const struct attribute_group np_queue_group = {
	.attrs = np_queue_attrs,
};

/* qN/: these, mediated mode's (mediate.c) and a binding's (file.c) */
const struct attribute_group *np_queue_groups[] = {
	&np_queue_group,
	&np_med_attr_group,
	&np_bind_attr_group,
	NULL,
};

/* ---- events: poll() on state and reason, and uevents ----------------- */

static const char * const np_uev_kinds[] = {
	[NP_UEV_ADD] = "add",
	[NP_UEV_CHANGE] = "change",
	[NP_UEV_REMOVE] = "remove",
};

/* One uevent of @q on its controller's nvmeX: KOBJ_CHANGE and its words. */
static void np_uevent_send(struct nvme_peer_queue *q, const struct np_uev *ev)
{
	char kind[32], qid[24], name[NVME_PEER_NAME_MAX + 16], state[24];
	char reason[32], gen[32];
	char *envp[7];

	snprintf(kind, sizeof(kind), "NVME_PEER_EVENT=%s",
		 np_uev_kinds[ev->kind]);
	snprintf(qid, sizeof(qid), "NVME_PEER_QID=%u", q->qid);
	snprintf(state, sizeof(state), "STATE=%s", np_qstate_name(ev->state));
	snprintf(reason, sizeof(reason), "REASON=%s",
		 np_reason_name(ev->reason));
	snprintf(gen, sizeof(gen), "GENERATION=%u", q->generation);
	snprintf(name, sizeof(name), "NVME_PEER_NAME=%s", q->name);
	envp[0] = kind;
	envp[1] = qid;
	envp[2] = state;
	envp[3] = reason;
	envp[4] = gen;
	envp[5] = name;
	envp[6] = NULL;
	kobject_uevent_env(&q->pctrl->dev->kobj, KOBJ_CHANGE, envp);
}

/**
 * np_uevent_work() - send the uevents the state changes recorded
 * @work: &nvme_peer_ctrl.uevent_work, holding a controller reference
 *
 * Queue by queue, in the order they changed first, each queue's in the
 * order they happened.  kobject_uevent_env() allocates: never under the
 * state lock.
 */
void np_uevent_work(struct work_struct *work)
{
	struct nvme_peer_ctrl *pctrl = container_of(work, struct nvme_peer_ctrl,
						    uevent_work);
	struct np_uev ev[NP_UEV_MAX];
	struct nvme_peer_queue *q;
	unsigned int n, i;

	for (;;) {
		spin_lock(&pctrl->state_lock);
		q = list_first_entry_or_null(&pctrl->uevents,
					     struct nvme_peer_queue,
					     uevent_node);
		if (q) {
			list_del_init(&q->uevent_node);
			n = q->nr_uev;
			memcpy(ev, q->uev, n * sizeof(ev[0]));
			q->nr_uev = 0;
		}
		spin_unlock(&pctrl->state_lock);
		if (!q)
			break;
		for (i = 0; i < n; i++)
			np_uevent_send(q, &ev[i]);
		kobject_put(&q->kobj);		/* the list's */
	}
	nvme_peer_ctrl_put(pctrl);
}

/**
 * np_uevents_stop() - send what is recorded, record nothing more
 * @pctrl: a controller being forgotten, whose nvmeX is still registered
 *
 * After it a state change only wakes poll(): nvme-pci deletes nvmeX once
 * its REMOVED returns.
 */
void np_uevents_stop(struct nvme_peer_ctrl *pctrl)
{
	spin_lock(&pctrl->state_lock);
	pctrl->uevents_off = true;
	spin_unlock(&pctrl->state_lock);
	flush_work(&pctrl->uevent_work);
}

/**
 * np_sysfs_queue_add() - add qN/ below peer/, and say so
 * @q: an active reservation, on the controller's list
 *
 * Looks up the state and reason files for np_sysfs_queue_changed() and
 * records the add uevent, with the state @q has by then.
 *
 * Context: pctrl->lock held.
 * Return: 0, -ENODEV when peer/ is gone, or kobject_add()'s error.
 */
int np_sysfs_queue_add(struct nvme_peer_queue *q)
{
	struct nvme_peer_ctrl *pctrl = q->pctrl;
	struct kernfs_node *state_kn, *reason_kn;
	int ret;

	lockdep_assert_held(&pctrl->lock);
	if (!pctrl->kobj)
		return -ENODEV;
	ret = kobject_add(&q->kobj, pctrl->kobj, "q%u", q->qid);
	if (ret)
		return ret;
	state_kn = sysfs_get_dirent(q->kobj.sd, "state");
	reason_kn = sysfs_get_dirent(q->kobj.sd, "reason");
	spin_lock(&pctrl->state_lock);
	if (state_kn && reason_kn) {
		q->state_kn = state_kn;
		q->reason_kn = reason_kn;
		state_kn = NULL;
		reason_kn = NULL;
	}
	np_uevent_queue(q, NP_UEV_ADD);
	spin_unlock(&pctrl->state_lock);
	kernfs_put(state_kn);
	kernfs_put(reason_kn);
	return 0;
}

/**
 * np_sysfs_queue_del() - remove qN/, and say so
 * @q: a released reservation being destroyed
 *
 * Records the remove uevent, then waits for the readers of qN/ files.
 *
 * Context: pctrl->lock held.
 */
void np_sysfs_queue_del(struct nvme_peer_queue *q)
{
	lockdep_assert_held(&q->pctrl->lock);
	spin_lock(&q->pctrl->state_lock);
	np_uevent_queue(q, NP_UEV_REMOVE);
	spin_unlock(&q->pctrl->state_lock);
	kobject_del(&q->kobj);
}

/**
 * np_sysfs_queue_release() - drop what np_sysfs_queue_add() looked up
 * @q: a reservation whose last reference is gone
 */
void np_sysfs_queue_release(struct nvme_peer_queue *q)
{
	kernfs_put(q->state_kn);
	kernfs_put(q->reason_kn);
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/sysfs_kunit.c"
#endif
