// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: the controller registry.  One struct nvme_peer_ctrl per
 * nvme-pci controller that holds back queues for peers, created when the
 * controller first goes live (events.c) and found here by instance, name
 * or struct nvme_ctrl.  Adding and removing take np_ctrls_lock; lookups run
 * under RCU and take a reference, dropped with nvme_peer_ctrl_put().  Once
 * np_ctrls_close() ran (module unload), no controller is added any more.
 * The lock order of the whole module is at the top of nvme-peer.h.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/xarray.h>

#include "nvme.h"
#include "nvme-peer.h"

static DEFINE_XARRAY(np_ctrls);
static DEFINE_MUTEX(np_ctrls_lock);
static bool np_unloading;		/* under np_ctrls_lock */

static void np_ctrl_release(struct kref *ref)
{
	struct nvme_peer_ctrl *pctrl = container_of(ref, struct nvme_peer_ctrl,
						    ref);

	WARN_ON_ONCE(!list_empty(&pctrl->queues));
	nvme_put_ctrl(pctrl->ctrl);
	bitmap_free(pctrl->qids);
	kfree_rcu(pctrl, rcu);
}

/**
 * np_ctrl_find_rcu() - the nvme-peer side of @ctrl, without a reference
 * @ctrl: an nvme-pci controller
 *
 * Context: rcu_read_lock() held; the result is valid until it is dropped.
 * Return: the controller, or NULL.
 */
struct nvme_peer_ctrl *np_ctrl_find_rcu(struct nvme_ctrl *ctrl)
{
	struct nvme_peer_ctrl *pctrl;

	RCU_LOCKDEP_WARN(!rcu_read_lock_held(), "called without RCU");
	pctrl = xa_load(&np_ctrls, ctrl->instance);
	return pctrl && pctrl->ctrl == ctrl ? pctrl : NULL;
}

/**
 * np_ctrl_lookup() - the nvme-peer side of @ctrl, with a reference
 * @ctrl: an nvme-pci controller
 *
 * Return: a reference to drop with nvme_peer_ctrl_put(), or NULL.
 */
struct nvme_peer_ctrl *np_ctrl_lookup(struct nvme_ctrl *ctrl)
{
	struct nvme_peer_ctrl *pctrl;

	rcu_read_lock();
	pctrl = np_ctrl_find_rcu(ctrl);
	if (pctrl && !kref_get_unless_zero(&pctrl->ref))
		pctrl = NULL;
	rcu_read_unlock();
	return pctrl;
}

/**
 * np_ctrl_next() - walk the controllers
 * @i: the index to start at, moved past the controller returned
 *
 * Return: the controller at index *@i or after, with a reference to drop
 * with nvme_peer_ctrl_put(), or NULL at the end.
 */
struct nvme_peer_ctrl *np_ctrl_next(unsigned long *i)
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
 * nvme_peer_ctrl_put() - drop a controller reference
 * @pctrl: from one of the nvme_peer_ctrl_get*() functions
 */
void nvme_peer_ctrl_put(struct nvme_peer_ctrl *pctrl)
{
	kref_put(&pctrl->ref, np_ctrl_release);
}
EXPORT_SYMBOL_GPL(nvme_peer_ctrl_put);

/**
 * np_ctrls_put() - put each controller of an array, then the array
 * @pctrls: from kmalloc(), or NULL
 * @n: its entries
 */
void np_ctrls_put(struct nvme_peer_ctrl **pctrls, unsigned int n)
{
	while (n--)
		nvme_peer_ctrl_put(pctrls[n]);
	kfree(pctrls);
}

/**
 * np_ctrl_add() - publish a new controller
 * @pctrl: set up, holding one reference that the registry takes over
 *
 * Return: 0; -ESHUTDOWN while the module unloads, -EBUSY when the
 * instance is taken, -ENOMEM.  On error the reference was dropped.
 */
int np_ctrl_add(struct nvme_peer_ctrl *pctrl)
{
	int ret = -ESHUTDOWN;

	mutex_lock(&np_ctrls_lock);
	if (!np_unloading)
		ret = xa_insert(&np_ctrls, pctrl->instance, pctrl, GFP_KERNEL);
	mutex_unlock(&np_ctrls_lock);
	if (ret)
		nvme_peer_ctrl_put(pctrl);
	return ret;
}

/**
 * np_ctrl_del() - unpublish a controller and drop the registry's reference
 * @pctrl: added with np_ctrl_add()
 */
void np_ctrl_del(struct nvme_peer_ctrl *pctrl)
{
	mutex_lock(&np_ctrls_lock);
	xa_erase(&np_ctrls, pctrl->instance);
	mutex_unlock(&np_ctrls_lock);
	nvme_peer_ctrl_put(pctrl);
}

/**
 * np_ctrl_is_live() - whether @pctrl is live now (between LIVE and DOWN)
 * @pctrl: the controller
 *
 * A snapshot: the controller may go down right after; its LIVE event
 * follows then.
 *
 * Return: true if it is live and not removed.
 */
bool np_ctrl_is_live(struct nvme_peer_ctrl *pctrl)
{
	bool live;

	spin_lock(&pctrl->state_lock);
	live = pctrl->live && !pctrl->removed;
	spin_unlock(&pctrl->state_lock);
	return live;
}

/**
 * np_ctrls_close() - refuse new controllers from now on (module unload)
 */
void np_ctrls_close(void)
{
	mutex_lock(&np_ctrls_lock);
	np_unloading = true;
	mutex_unlock(&np_ctrls_lock);
}

/**
 * np_ctrl_reg_read32() - read a controller register of BAR0
 * @pctrl: the controller
 * @off: the register's offset (NVME_REG_*)
 * @val: its value
 *
 * Return: 0, or nvme-pci's error (the controller is gone).
 */
int np_ctrl_reg_read32(struct nvme_peer_ctrl *pctrl, u32 off, u32 *val)
{
	return pctrl->ctrl->ops->reg_read32(pctrl->ctrl, off, val);
}

/**
 * np_ctrl_reg_write32() - write a controller register of BAR0
 * @pctrl: the controller
 * @off: the register's offset (NVME_REG_*)
 * @val: the value
 *
 * Return: 0, or nvme-pci's error.
 */
int np_ctrl_reg_write32(struct nvme_peer_ctrl *pctrl, u32 off, u32 val)
{
	return pctrl->ctrl->ops->reg_write32(pctrl->ctrl, off, val);
}

/**
 * np_ctrl_cap() - the controller's CAP register, as nvme core read it
 * @pctrl: the controller
 *
 * Return: CAP.
 */
u64 np_ctrl_cap(struct nvme_peer_ctrl *pctrl)
{
	return pctrl->ctrl->cap;
}
