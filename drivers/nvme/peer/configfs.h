/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer's configfs intents, between configfs.c (the directories and
 * their attributes: the administrator's door) and intent.c (what an
 * enabled intent takes, and its life across the controller's events).
 * Private to those two files.
 */
#ifndef _NVME_PEER_CONFIGFS_H
#define _NVME_PEER_CONFIGFS_H

#include <linux/configfs.h>
#include <linux/mutex.h>
#include <linux/workqueue.h>

#include "nvme-peer.h"

/*
 * nvme-peer/<ctrl>/: on np_cfs_ctrls from mkdir to rmdir, which configfs
 * refuses while an intent is below, in it or in its windows/ (and holds
 * the directory's inode lock across an intent's rmdir, drop included).
 */
struct np_cfs_ctrl {
	struct config_group group;
	struct config_group windows;	/* nvme-peer/<ctrl>/windows/ */
	struct list_head node;		/* on np_cfs_ctrls, under np_cfs_lock */
	/* np_cfs_res.node, queues' and windows', under np_cfs_lock */
	struct list_head intents;
};

/*
 * nvme-peer/<ctrl>/<name>/, a queue's intent, or
 * nvme-peer/<ctrl>/windows/<name>/, a read-only window's (@window): the
 * same values (a window's are those np_win_key() names), enabling makes
 * a window instead of a reservation.
 */
struct np_cfs_res {
	struct config_item item;
	bool window;			/* from mkdir */
	/*
	 * The controller's name, kept from mkdir: configfs clears the item's
	 * parent before ->drop_item(), while events may still walk to it.
	 */
	char ctrl[NP_CTRL_NAME_LEN];
	struct list_head node;		/* on its np_cfs_ctrl, np_cfs_lock */
	struct list_head gone_node;	/* np_cfs_ctrl_gone()'s own list */
	struct delayed_work work;	/* re-creation after a reset */
	struct mutex lock;		/* everything below */

	/* the intent: the attributes */
	struct nvme_peer_params p;	/* p.policy.extents is @extents */
	struct nvme_peer_extent extents[NP_CFS_MAX_EXTENTS];
	u16 qid;			/* 0: any */
	char peer_name[32];		/* "": the CPU */
	char *path;			/* file to bind, or NULL */
	kuid_t uid;			/* may attach; INVALID_UID: nobody... */
	kgid_t gid;			/* ...unless a group is given */
	bool enabled;

	/* what enabling took, kept for re-creation */
	struct nvme_peer_ctrl *pctrl;
	struct pci_dev *peer;
	struct file *file;
	struct nvme_peer_queue *q;	/* the owner's reference */
	struct nvme_peer_window *w;	/* or the window's */
	unsigned int generation;	/* reservations made */
	bool again;			/* a reset took it: reserve again */
	unsigned int tries;		/* re-creation tries, in a row */
	int error;			/* the last re-creation's */
	enum nvme_peer_reason reason;	/* why the last one ended */
};

extern struct mutex np_cfs_lock;
extern struct list_head np_cfs_ctrls;

struct np_cfs_ctrl *np_cfs_ctrl_find(const char *name);
bool np_cfs_active(struct np_cfs_res *r, enum nvme_peer_reason *reason);
int np_cfs_enable(struct np_cfs_res *r);
void np_cfs_disable(struct np_cfs_res *r);
bool np_cfs_comes_back(enum nvme_peer_reason reason);
void np_cfs_work(struct work_struct *work);

#endif /* _NVME_PEER_CONFIGFS_H */
