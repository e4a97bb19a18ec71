// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: an administrator's intent, enabled (configfs.c has its
 * directory and attributes).
 *
 * Enabling looks up the controller, the peer device and the file (opened
 * with the writer's permissions) and reserves (core.c) a reservation
 * carrying the intent's name, so that a process attaches to it by name
 * (cdev.c).  The intent outlives its reservation.  A reset revokes the
 * reservation (reason reset, every attached process sees it); when the
 * controller is live again the intent is reserved anew with what enabling
 * took, as a new generation whose qid may differ.  Any other revocation,
 * or a re-creation that fails, leaves it down, with the reason and the
 * error shown, until it is disabled or removed: nothing is dropped
 * silently.  The controller's removal ends the reservation and lets go of
 * what enabling took.
 *
 * A window's intent lives the same life with a read-only window in place
 * of the reservation (window.c): a process attaches to it by name, a
 * reset revokes it and the window is made again once the controller and
 * its PMR are back.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/fs.h>
#include <linux/namei.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "configfs.h"

/*
 * Re-creation after a reset: 25 tries 200 ms apart while the namespace or
 * the controller is not back yet, then once a second while the controller
 * is live and the reserve says -EAGAIN (a Format settling, a VF's
 * teardown): np_cfs_retry_delay().
 */
#define NP_CFS_RETRIES		25
#define NP_CFS_RETRY_DELAY	(HZ / 5)
#define NP_CFS_SLOW_DELAY	HZ

static const char *np_cfs_ctrl_name(struct np_cfs_res *r)
{
	return r->ctrl;
}

/**
 * np_cfs_ctrl_find() - a controller's directory
 * @name: the controller's name
 *
 * Context: np_cfs_lock held.
 * Return: nvme-peer/@name/, or NULL.
 */
struct np_cfs_ctrl *np_cfs_ctrl_find(const char *name)
{
	struct np_cfs_ctrl *cc;

	lockdep_assert_held(&np_cfs_lock);
	list_for_each_entry(cc, &np_cfs_ctrls, node)
		if (!strcmp(config_item_name(&cc->group.cg_item), name))
			return cc;
	return NULL;
}

/* ---- what enabling takes, and gives back -------------------------------- */

/* -EISDIR for a directory, -EINVAL for anything else not a regular file */
static int np_cfs_file_type(umode_t mode)
{
	if (S_ISDIR(mode))
		return -EISDIR;
	return S_ISREG(mode) ? 0 : -EINVAL;
}

/*
 * Open the file to bind as the writer of enable (its permissions decide),
 * read-only or, for file_access rw, read-write.  A regular file only,
 * checked before it is opened: opening a FIFO would wait for a writer,
 * and a device's open has effects of its own.  The open does not block
 * either (%O_NONBLOCK) should the name have been replaced meanwhile, and
 * the opened file is checked again.
 */
static struct file *np_cfs_open(struct np_cfs_res *r)
{
	bool rw = r->p.file.access & NVME_PEER_ACCESS_WRITE;
	struct file *file;
	struct path path;
	int ret;

	ret = kern_path(r->path, LOOKUP_FOLLOW, &path);
	if (ret)
		return ERR_PTR(ret);
	ret = np_cfs_file_type(d_inode(path.dentry)->i_mode);
	path_put(&path);
	if (ret)
		return ERR_PTR(ret);
	file = filp_open(r->path, O_LARGEFILE | O_NONBLOCK |
			 (rw ? O_RDWR : O_RDONLY), 0);
	if (IS_ERR(file))
		return file;
	ret = np_cfs_file_type(file_inode(file)->i_mode);
	if (ret) {
		filp_close(file, NULL);
		return ERR_PTR(ret);
	}
	return file;
}

struct np_cfs_close {
	struct work_struct work;
	struct file *file;
};

static void np_cfs_close_work(struct work_struct *work)
{
	struct np_cfs_close *c = container_of(work, struct np_cfs_close, work);

	fput(c->file);		/* from a worker: deferred once more */
	kfree(c);
}

/*
 * Close the file enabling opened: at once (an unmount may follow the
 * disable or rmdir), but from np_wq while its file system is frozen: the
 * last close of a file open for writing may wait for the thaw (XFS trims
 * the blocks past EOF), and a disable, an rmdir or a controller's removal
 * must not.  Opened with filp_open(), it holds no lock and no dnotify of
 * a task's: fput() is its close.
 */
static void np_cfs_close(struct file *file)
{
	struct np_cfs_close *c = NULL;

	if (np_file_frozen(file))
		c = kmalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		filp_close(file, NULL);
		return;
	}
	INIT_WORK(&c->work, np_cfs_close_work);
	c->file = file;
	queue_work(np_wq, &c->work);
}

/**
 * np_cfs_active() - whether what enabling made is active, else why not
 * @r: the intent, holding a reservation or a window
 * @reason: why it ended (%NVME_PEER_REASON_NONE while active)
 *
 * Return: true while it is active.
 */
bool np_cfs_active(struct np_cfs_res *r, enum nvme_peer_reason *reason)
{
	enum np_qstate state;

	lockdep_assert_held(&r->lock);
	if (r->w) {
		*reason = nvme_peer_window_revoked(r->w);
		return *reason == NVME_PEER_REASON_NONE;
	}
	np_queue_snapshot(r->q, &state, reason);
	return state == NP_Q_ACTIVE;
}

/* Let go of the reservation or window: attached processes see @why. */
static void np_cfs_release(struct np_cfs_res *r, enum nvme_peer_reason why)
{
	enum nvme_peer_reason reason;

	lockdep_assert_held(&r->lock);
	if (!r->q && !r->w)
		return;
	r->reason = np_cfs_active(r, &reason) ? why : reason;
	if (r->w) {
		/* the attached process is told @why, not "released" */
		np_win_revoke_one(r->w, why);
		nvme_peer_window_put(r->w);
		r->w = NULL;
		return;
	}
	np_release(r->q, why);
	r->q = NULL;
}

/* Give back what enabling took. */
static void np_cfs_put(struct np_cfs_res *r)
{
	lockdep_assert_held(&r->lock);
	if (r->file)
		np_cfs_close(r->file);
	r->file = NULL;
	pci_dev_put(r->peer);
	r->peer = NULL;
	if (r->pctrl)
		nvme_peer_ctrl_put(r->pctrl);
	r->pctrl = NULL;
	r->again = false;
	r->tries = 0;
}

/* A window with what enabling took: the reservation's counterpart. */
static int np_cfs_window(struct np_cfs_res *r, const struct np_provision *prov)
{
	struct nvme_peer_window_params wp = {
		.nsid = r->p.nsid,
		.extents = r->p.policy.extents,
		.nr_extents = r->p.policy.nr_extents,
		.peer = r->peer,
	};
	struct nvme_peer_window *w;
	loff_t size;

	lockdep_assert_held(&r->lock);
	if (r->file) {
		wp.file.file = r->file;
		wp.file.access = NVME_PEER_ACCESS_READ;
		wp.file.off = r->p.file.off;
		wp.file.len = r->p.file.len;
		size = i_size_read(file_inode(r->file));
		/* file_len 0: up to the end of the file, as it is now */
		if (!wp.file.len)
			wp.file.len = size > wp.file.off ? size - wp.file.off : 0;
	}
	w = np_win_get(r->pctrl, &wp, NP_OWNER_ADMIN, prov);
	if (IS_ERR(w))
		return PTR_ERR(w);
	r->w = w;
	return 0;
}

/* Reserve the intent with what enabling took: a new generation. */
static int np_cfs_reserve(struct np_cfs_res *r)
{
	struct np_provision prov = {
		.name = config_item_name(&r->item),
		.generation = r->generation + 1,
		.uid = r->uid,
		.gid = r->gid,
	};
	struct nvme_peer_params p = r->p;
	struct nvme_peer_queue *q;
	loff_t size;
	int ret;

	lockdep_assert_held(&r->lock);
	prov.attachable = uid_valid(r->uid) || gid_valid(r->gid);
	if (r->window) {
		ret = np_cfs_window(r, &prov);
		if (ret)
			return ret;
		r->generation++;
		r->error = 0;
		return 0;
	}
	p.peer = r->peer;
	if (r->file) {
		p.file.file = r->file;
		p.file.access |= NVME_PEER_ACCESS_READ;
		size = i_size_read(file_inode(r->file));
		/* file_len 0: up to the end of the file, as it is now */
		if (!p.file.len)
			p.file.len = size > p.file.off ? size - p.file.off : 0;
	}
	q = np_reserve(r->pctrl, &p, NP_OWNER_ADMIN, r->qid, &prov);
	if (IS_ERR(q))
		return PTR_ERR(q);
	r->q = q;
	r->generation++;
	r->error = 0;
	return 0;
}

int np_cfs_enable(struct np_cfs_res *r)
{
	struct nvme_peer_file *pf = &r->p.file;
	struct device *dev;
	int ret;

	lockdep_assert_held(&r->lock);
	/* a namespace; file_off, file_len and file_access describe a file */
	if (r->window)
		ret = np_win_enable_check(r->p.nsid, !!r->path, pf->off,
					  pf->len, r->p.policy.nr_extents,
					  NULL, 0);
	else
		ret = np_enable_check(r->p.nsid, !!r->path, pf->off, pf->len,
				      pf->access, NULL, 0);
	if (ret)
		return ret;
	r->pctrl = nvme_peer_ctrl_get_by_name(np_cfs_ctrl_name(r));
	ret = -ENODEV;
	if (!r->pctrl)
		goto out_put;
	if (r->peer_name[0]) {
		dev = bus_find_device_by_name(&pci_bus_type, NULL,
					      r->peer_name);
		if (!dev)
			goto out_put;
		r->peer = to_pci_dev(dev);
	}
	if (r->path) {
		r->file = np_cfs_open(r);
		ret = PTR_ERR_OR_ZERO(r->file);
		if (ret) {
			r->file = NULL;
			goto out_put;
		}
	}
	ret = np_cfs_reserve(r);
	if (ret)
		goto out_put;
	r->enabled = true;
	return 0;

out_put:
	np_cfs_put(r);
	return ret;
}

void np_cfs_disable(struct np_cfs_res *r)
{
	lockdep_assert_held(&r->lock);
	np_cfs_release(r, NVME_PEER_REASON_ADMIN);
	np_cfs_put(r);
	r->enabled = false;
	r->error = 0;
}

/* Revoked by a reset or a disable: it comes back once the controller is. */
bool np_cfs_comes_back(enum nvme_peer_reason reason)
{
	return reason == NVME_PEER_REASON_RESET ||
	       reason == NVME_PEER_REASON_CTRL_DOWN;
}

/*
 * When a re-creation that failed with @ret is tried again, or 0 for not:
 * -ENODEV (the namespace not back yet) and -EAGAIN NP_CFS_RETRIES times
 * quickly; after that -EAGAIN only while the controller is live, once a
 * second for as long as it lasts.  On a controller that is not live the
 * intent waits for its LIVE event, which queues the work again.
 */
static unsigned long np_cfs_retry_delay(struct np_cfs_res *r, int ret)
{
	lockdep_assert_held(&r->lock);
	if (ret != -EAGAIN && ret != -ENODEV)
		return 0;
	if (++r->tries < NP_CFS_RETRIES)
		return NP_CFS_RETRY_DELAY;
	if (ret == -EAGAIN && np_ctrl_is_live(r->pctrl))
		return NP_CFS_SLOW_DELAY;
	return 0;
}

void np_cfs_work(struct work_struct *work)
{
	struct np_cfs_res *r = container_of(to_delayed_work(work),
					    struct np_cfs_res, work);
	enum nvme_peer_reason reason;
	unsigned long delay;
	int ret;

	mutex_lock(&r->lock);
	if (!r->enabled || !r->pctrl)
		goto out_unlock;
	if (r->q || r->w) {
		if (np_cfs_active(r, &reason) || !np_cfs_comes_back(reason))
			goto out_unlock;
		np_cfs_release(r, NVME_PEER_REASON_RELEASE);
		r->again = true;
	}
	if (!r->again)
		goto out_unlock;
	ret = np_cfs_reserve(r);
	delay = np_cfs_retry_delay(r, ret);
	if (delay) {
		r->error = ret;
		queue_delayed_work(np_wq, &r->work, delay);
		goto out_unlock;
	}
	r->tries = 0;
	if (!ret) {
		r->again = false;
		if (r->w)
			pr_info("%s/%s/%s: window made again (generation %u)\n",
				np_cfs_ctrl_name(r), NP_WIN_DIR,
				config_item_name(&r->item), r->generation);
		else
			pr_info("%s/%s: reserved again as q%u (generation %u)\n",
				np_cfs_ctrl_name(r), config_item_name(&r->item),
				r->q->qid, r->generation);
		goto out_unlock;
	}
	r->error = ret;
	/* not live yet: the next live event tries again; else it is down */
	r->again = ret == -EAGAIN;
	pr_warn("%s/%s: not reserved again after %s: %d%s\n",
		np_cfs_ctrl_name(r), config_item_name(&r->item),
		np_reason_name(r->reason), ret,
		r->again ? ", waiting for the controller" : "");
out_unlock:
	mutex_unlock(&r->lock);
}

/**
 * np_cfs_ctrl_live() - a controller is live again: re-create its intents
 * @pctrl: the controller
 *
 * Each enabled intent of @pctrl whose reservation a reset revoked is
 * reserved anew, from np_wq.  An isolated intent names the primary but
 * its reservation is on a VF: a VF's live event looks at every isolated
 * intent (each work does nothing while its reservation is active).  The
 * walk reads no item configfs may have unlinked: an intent being removed
 * is on the list until its drop, with the name it was made under.
 */
void np_cfs_ctrl_live(struct nvme_peer_ctrl *pctrl)
{
	struct np_cfs_ctrl *cc;
	struct np_cfs_res *r;

	mutex_lock(&np_cfs_lock);
	if (pctrl->info.pdev->is_virtfn) {
		list_for_each_entry(cc, &np_cfs_ctrls, node)
			list_for_each_entry(r, &cc->intents, node)
				if (READ_ONCE(r->p.mode) == NVME_PEER_MODE_ISOLATED)
					mod_delayed_work(np_wq, &r->work, 0);
	} else {
		cc = np_cfs_ctrl_find(pctrl->name);
		if (cc)
			list_for_each_entry(r, &cc->intents, node)
				mod_delayed_work(np_wq, &r->work, 0);
	}
	mutex_unlock(&np_cfs_lock);
}

/**
 * np_cfs_ctrl_gone() - a controller is going away: end its intents
 * @pctrl: the controller
 * @reason: why (removed, unload)
 *
 * Each intent enabled on @pctrl releases its reservation (attached
 * processes see @reason) and what enabling took; it stays enabled and
 * down.  Call without @pctrl's locks.
 */
void np_cfs_ctrl_gone(struct nvme_peer_ctrl *pctrl,
		      enum nvme_peer_reason reason)
{
	struct np_cfs_res *r, *next;
	struct np_cfs_ctrl *cc;
	LIST_HEAD(mine);

	lockdep_assert_not_held(&pctrl->lock);
	/* no intent's lock under np_cfs_lock: a live event waits for that */
	mutex_lock(&np_cfs_lock);
	cc = np_cfs_ctrl_find(pctrl->name);
	if (cc)
		list_for_each_entry(r, &cc->intents, node) {
			config_item_get(&r->item);
			list_add_tail(&r->gone_node, &mine);
		}
	mutex_unlock(&np_cfs_lock);
	list_for_each_entry_safe(r, next, &mine, gone_node) {
		list_del(&r->gone_node);
		mutex_lock(&r->lock);
		if (r->pctrl == pctrl) {
			np_cfs_release(r, reason);
			r->reason = reason;
			np_cfs_put(r);
		}
		mutex_unlock(&r->lock);
		config_item_put(&r->item);
	}
}

