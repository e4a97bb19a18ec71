// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: /sys/kernel/config/nvme-peer/, the administrator's intent.
 *
 * nvme-peer/<ctrl>/<name>/ is a reservation an administrator wants: one
 * attribute per value of the request, written while it is disabled, and
 * enable written last, as nvmet's namespaces.  Enabling looks up the
 * controller, the peer device and the file (opened with the writer's
 * permissions) and reserves (core.c) a reservation carrying the name, so
 * that a process attaches to it by name (cdev.c).
 *
 * The intent outlives its reservation.  A reset revokes the reservation
 * (reason reset, every attached process sees it); when the controller is
 * live again the intent is reserved anew with what enabling took, as a new
 * generation whose qid may differ.  Any other revocation, or a re-creation
 * that fails, leaves it down, with the reason and the error shown, until
 * it is disabled or removed: nothing is dropped silently.  The
 * controller's removal ends the reservation and lets go of what enabling
 * took; the module does not unload while an intent exists (configfs pins
 * it).  sysfs qN/ stays the reservation's read-only state.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/configfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/pci.h>
#include <linux/sizes.h>
#include <linux/slab.h>
#include <linux/uidgid.h>

#include "nvme-peer.h"

/*
 * Re-creation after a reset: 25 tries 200 ms apart while the namespace or
 * the controller is not back yet, then once a second while the controller
 * is live and the reserve says -EAGAIN (a Format settling, a VF's
 * teardown): np_cfs_retry_delay().
 */
#define NP_CFS_RETRIES		25
#define NP_CFS_RETRY_DELAY	(HZ / 5)
#define NP_CFS_SLOW_DELAY	HZ

/*
 * nvme-peer/<ctrl>/: on np_cfs_ctrls from mkdir to rmdir, which configfs
 * refuses while an intent is below (and holds the directory's inode lock
 * across an intent's rmdir, drop included).
 */
struct np_cfs_ctrl {
	struct config_group group;
	struct list_head node;		/* on np_cfs_ctrls, under np_cfs_lock */
	struct list_head intents;	/* np_cfs_res.node, under np_cfs_lock */
};

/* nvme-peer/<ctrl>/<name>/ */
struct np_cfs_res {
	struct config_item item;
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
	unsigned int generation;	/* reservations made */
	bool again;			/* a reset took it: reserve again */
	unsigned int tries;		/* re-creation tries, in a row */
	int error;			/* the last re-creation's */
	enum nvme_peer_reason reason;	/* why the last one ended */
};

static DEFINE_MUTEX(np_cfs_lock);
static LIST_HEAD(np_cfs_ctrls);

static struct np_cfs_res *to_res(struct config_item *item)
{
	return container_of(item, struct np_cfs_res, item);
}

static struct np_cfs_ctrl *to_cfs_ctrl(struct config_group *group)
{
	return container_of(group, struct np_cfs_ctrl, group);
}

static const char *np_cfs_ctrl_name(struct np_cfs_res *r)
{
	return r->ctrl;
}

/* nvme-peer/@name/, or NULL */
static struct np_cfs_ctrl *np_cfs_ctrl_find(const char *name)
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

/* Let go of the reservation: attached processes see @reason. */
static void np_cfs_release(struct np_cfs_res *r, enum nvme_peer_reason why)
{
	enum nvme_peer_reason reason;
	enum np_qstate state;

	lockdep_assert_held(&r->lock);
	if (!r->q)
		return;
	np_queue_snapshot(r->q, &state, &reason);
	r->reason = state == NP_Q_ACTIVE ? why : reason;
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

	lockdep_assert_held(&r->lock);
	prov.attachable = uid_valid(r->uid) || gid_valid(r->gid);
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

static int np_cfs_enable(struct np_cfs_res *r)
{
	struct nvme_peer_file *pf = &r->p.file;
	struct device *dev;
	int ret;

	lockdep_assert_held(&r->lock);
	/* a namespace; file_off, file_len and file_access describe a file */
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

static void np_cfs_disable(struct np_cfs_res *r)
{
	lockdep_assert_held(&r->lock);
	np_cfs_release(r, NVME_PEER_REASON_ADMIN);
	np_cfs_put(r);
	r->enabled = false;
	r->error = 0;
}

/* Revoked by a reset or a disable: it comes back once the controller is. */
static bool np_cfs_comes_back(enum nvme_peer_reason reason)
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

static void np_cfs_work(struct work_struct *work)
{
	struct np_cfs_res *r = container_of(to_delayed_work(work),
					    struct np_cfs_res, work);
	enum nvme_peer_reason reason;
	unsigned long delay;
	enum np_qstate state;
	int ret;

	mutex_lock(&r->lock);
	if (!r->enabled || !r->pctrl)
		goto out_unlock;
	if (r->q) {
		np_queue_snapshot(r->q, &state, &reason);
		if (state == NP_Q_ACTIVE || !np_cfs_comes_back(reason))
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

/* ---- attributes: the intent, written while disabled ----------------------- */

/*
 * The values and their rules are words.c's (np_value_parse()), the ones
 * tools/nvme-peer checks a save file with.  configfs hands a store at most
 * NP_VALUE_LEN bytes and cuts a longer write without a word
 * (fs/configfs/file.c): a write that long may have been cut, and is
 * refused.
 */

/* words.h includes no kernel header: its limits are these */
static_assert(NP_DATA_SIZE_MAX == NP_MAX_DATA_SIZE);
static_assert(NP_NAME_LEN == NVME_PEER_NAME_MAX);
static_assert(NP_CTRL_LEN == NP_CTRL_NAME_LEN);
static_assert(NP_VALUE_LEN + 1 == SZ_4K);
/* np_cfs_fields[]: an enum field is a u32's */
static_assert(sizeof(enum nvme_peer_placement) == sizeof(u32));
static_assert(sizeof(enum nvme_peer_mode) == sizeof(u32));

/* Lock @r for a change of its intent: -EBUSY while it is enabled. */
static int np_cfs_change(struct np_cfs_res *r)
{
	mutex_lock(&r->lock);
	if (r->enabled) {
		mutex_unlock(&r->lock);
		return -EBUSY;
	}
	return 0;
}

/* uid and gid: an id without a mapping in the writer's namespace is -EINVAL */
static int np_cfs_set_ids(struct np_cfs_res *r, enum np_key key, u64 id)
{
	struct user_namespace *ns = current_user_ns();

	if (key == NP_KEY_uid) {
		r->uid = id == NP_U64_MAX ? INVALID_UID : make_kuid(ns, id);
		return id == NP_U64_MAX || uid_valid(r->uid) ? 0 : -EINVAL;
	}
	r->gid = id == NP_U64_MAX ? INVALID_GID : make_kgid(ns, id);
	return id == NP_U64_MAX || gid_valid(r->gid) ? 0 : -EINVAL;
}

/* file: an absolute path (enabling opens it as the writer), "" for none */
static int np_cfs_set_file(struct np_cfs_res *r, const char *s)
{
	char *path = NULL;

	if (*s) {
		path = kstrdup(s, GFP_KERNEL);
		if (!path)
			return -ENOMEM;
	}
	kfree(r->path);
	r->path = path;
	return 0;
}

static void np_cfs_set_extents(struct np_cfs_res *r, const struct np_value *v)
{
	unsigned int i;

	for (i = 0; i < v->nr_ext; i++) {
		r->extents[i].slba = v->ext[i].slba;
		r->extents[i].nlb = v->ext[i].nlb;
	}
	r->p.policy.nr_extents = v->nr_ext;
	r->p.policy.extents = v->nr_ext ? r->extents : NULL;
}

/* The keys an intent holds in one scalar field: where, and its size */
#define NP_OFF(f)	offsetof(struct np_cfs_res, f)
#define NP_SIZE(f)	sizeof_field(struct np_cfs_res, f)

static const struct {
	size_t off;
	size_t size;
} np_cfs_fields[NP_NKEYS] = {
	[NP_KEY_nsid] = { NP_OFF(p.nsid), NP_SIZE(p.nsid) },
	[NP_KEY_depth] = { NP_OFF(p.depth), NP_SIZE(p.depth) },
	[NP_KEY_sq_placement] = { NP_OFF(p.sq_placement), NP_SIZE(p.sq_placement) },
	[NP_KEY_cq_placement] = { NP_OFF(p.cq_placement), NP_SIZE(p.cq_placement) },
	[NP_KEY_data_placement] = { NP_OFF(p.data_placement), NP_SIZE(p.data_placement) },
	[NP_KEY_data_size] = { NP_OFF(p.data_size), NP_SIZE(p.data_size) },
	[NP_KEY_qid] = { NP_OFF(qid), NP_SIZE(qid) },
	[NP_KEY_mode] = { NP_OFF(p.mode), NP_SIZE(p.mode) },
	[NP_KEY_opcodes] = { NP_OFF(p.policy.opcodes), NP_SIZE(p.policy.opcodes) },
	[NP_KEY_max_nlb] = { NP_OFF(p.policy.max_nlb), NP_SIZE(p.policy.max_nlb) },
	[NP_KEY_file_off] = { NP_OFF(p.file.off), NP_SIZE(p.file.off) },
	[NP_KEY_file_len] = { NP_OFF(p.file.len), NP_SIZE(p.file.len) },
	[NP_KEY_file_access] = { NP_OFF(p.file.access), NP_SIZE(p.file.access) },
};

static u64 np_cfs_get_field(struct np_cfs_res *r, enum np_key key)
{
	void *f = (char *)r + np_cfs_fields[key].off;

	switch (np_cfs_fields[key].size) {
	case sizeof(u16):
		return *(u16 *)f;
	case sizeof(u32):
		return *(u32 *)f;
	default:
		return *(u64 *)f;
	}
}

static void np_cfs_set_field(struct np_cfs_res *r, enum np_key key, u64 val)
{
	void *f = (char *)r + np_cfs_fields[key].off;

	switch (np_cfs_fields[key].size) {
	case sizeof(u16):
		*(u16 *)f = val;
		break;
	case sizeof(u32):
		/* mode: a VF's live event reads it without the intent's lock */
		WRITE_ONCE(*(u32 *)f, val);
		break;
	default:
		*(u64 *)f = val;
		break;
	}
}

/* Set @key of @r to @s, which np_value_parse() made @v of */
static int np_cfs_set(struct np_cfs_res *r, enum np_key key, const char *s,
		      const struct np_value *v)
{
	lockdep_assert_held(&r->lock);
	switch (np_cfs_keys[key].type) {
	case NP_V_NUM:
		np_cfs_set_field(r, key, v->num);
		return 0;
	case NP_V_PLACEMENT:
	case NP_V_MODE:
	case NP_V_ACCESS:
		np_cfs_set_field(r, key, v->word);
		return 0;
	case NP_V_OPCODES:
		np_cfs_set_field(r, key, v->opcodes);
		return 0;
	case NP_V_PEER:
		strscpy(r->peer_name, strcmp(s, "cpu") ? s : "",
			sizeof(r->peer_name));
		return 0;
	case NP_V_ID:
		return np_cfs_set_ids(r, key, v->num);
	case NP_V_EXTENTS:
		np_cfs_set_extents(r, v);
		return 0;
	case NP_V_FILE:
		return np_cfs_set_file(r, s);
	default:
		return -EINVAL;
	}
}

/*
 * Store @page into @key of @r: the value with the blanks around it (the
 * newline echo adds) taken away.  -EBUSY while enabled, -EINVAL for a
 * value words.h's rules refuse; nothing changes then.
 */
static ssize_t np_cfs_store(struct np_cfs_res *r, enum np_key key,
			    const char *page, size_t count)
{
	struct np_value v = { };
	char *word, *s;
	int ret;

	if (count >= NP_VALUE_LEN)
		return -EINVAL;
	word = kstrndup(page, count, GFP_KERNEL);
	if (key == NP_KEY_extents)
		v.ext = kmalloc_array(NP_EXTENTS_MAX, sizeof(*v.ext),
				      GFP_KERNEL);
	ret = -ENOMEM;
	if (!word || (key == NP_KEY_extents && !v.ext))
		goto out_free;
	s = strim(word);
	ret = np_cfs_change(r);
	if (ret)
		goto out_free;
	ret = np_value_parse(key, s, &v, NULL, 0);
	if (!ret)
		ret = np_cfs_set(r, key, s, &v);
	mutex_unlock(&r->lock);
out_free:
	kfree(v.ext);
	kfree(word);
	return ret ? ret : count;
}

/* uid or gid, as the writer's namespace sees it; -1 for none */
static int np_cfs_print_id(struct np_cfs_res *r, enum np_key key, char *page)
{
	struct user_namespace *ns = current_user_ns();

	if (key == NP_KEY_uid)
		return uid_valid(r->uid) ?
		       sprintf(page, "%u\n", from_kuid_munged(ns, r->uid)) :
		       sprintf(page, "-1\n");
	return gid_valid(r->gid) ?
	       sprintf(page, "%u\n", from_kgid_munged(ns, r->gid)) :
	       sprintf(page, "-1\n");
}

/* @key of @r as np_cfs_store() takes it back, and a newline */
static int np_cfs_print(struct np_cfs_res *r, enum np_key key, char *page)
{
	const struct nvme_peer_policy *pol = &r->p.policy;
	u64 val = np_cfs_fields[key].size ? np_cfs_get_field(r, key) : 0;
	int n = 0;
	u32 i;

	switch (np_cfs_keys[key].type) {
	case NP_V_NUM:
		return sprintf(page, "%llu\n", val);
	case NP_V_PLACEMENT:
		return sprintf(page, "%s\n", np_placement_name(val));
	case NP_V_MODE:
		return sprintf(page, "%s\n", np_mode_name(val));
	case NP_V_ACCESS:
		return sprintf(page, "%s\n", np_access_name(val));
	case NP_V_PEER:
		return sprintf(page, "%s\n", r->peer_name[0] ? r->peer_name : "cpu");
	case NP_V_ID:
		return np_cfs_print_id(r, key, page);
	case NP_V_FILE:
		return snprintf(page, PAGE_SIZE, "%s\n", r->path ? r->path : "");
	case NP_V_OPCODES:
		n = np_print_opcodes(val, page, PAGE_SIZE);
		break;
	case NP_V_EXTENTS:
		for (i = 0; i < pol->nr_extents; i++)
			n += sprintf(page + n, "%s%llu+%llu", i ? "," : "",
				     pol->extents[i].slba, pol->extents[i].nlb);
		break;
	default:
		break;
	}
	return n + sprintf(page + n, "\n");
}

static ssize_t np_cfs_show(struct np_cfs_res *r, enum np_key key, char *page)
{
	ssize_t ret;

	mutex_lock(&r->lock);
	ret = np_cfs_print(r, key, page);
	mutex_unlock(&r->lock);
	return ret;
}

/* One attribute per key of words.c's np_cfs_keys[], named as it */
#define NP_CFS_ATTR(key)						\
static ssize_t np_cfs_##key##_show(struct config_item *item, char *page) \
{									\
	return np_cfs_show(to_res(item), NP_KEY_##key, page);		\
}									\
static ssize_t np_cfs_##key##_store(struct config_item *item,		\
				    const char *page, size_t count)	\
{									\
	return np_cfs_store(to_res(item), NP_KEY_##key, page, count);	\
}									\
CONFIGFS_ATTR(np_cfs_, key)

NP_CFS_ATTR(nsid);
NP_CFS_ATTR(depth);
NP_CFS_ATTR(sq_placement);
NP_CFS_ATTR(cq_placement);
NP_CFS_ATTR(data_placement);
NP_CFS_ATTR(data_size);
NP_CFS_ATTR(peer);
NP_CFS_ATTR(qid);
NP_CFS_ATTR(uid);
NP_CFS_ATTR(gid);
NP_CFS_ATTR(mode);
NP_CFS_ATTR(opcodes);
NP_CFS_ATTR(max_nlb);
NP_CFS_ATTR(extents);
NP_CFS_ATTR(file);
NP_CFS_ATTR(file_off);
NP_CFS_ATTR(file_len);
NP_CFS_ATTR(file_access);

/* What mkdir gives an intent: the defaults of words.c */
static void np_cfs_defaults(struct np_cfs_res *r)
{
	struct np_value v = { };
	int k;

	mutex_lock(&r->lock);
	for (k = 0; k < NP_KEY_enable; k++)
		WARN_ON_ONCE(np_value_parse(k, np_cfs_keys[k].def, &v, NULL, 0) ||
			     np_cfs_set(r, k, np_cfs_keys[k].def, &v));
	mutex_unlock(&r->lock);
}

/* ---- enable, and the state of what it made -------------------------------- */

static ssize_t np_cfs_enable_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", READ_ONCE(to_res(item)->enabled));
}

static ssize_t np_cfs_enable_store(struct config_item *item,
				   const char *page, size_t count)
{
	struct np_cfs_res *r = to_res(item);
	char word[4] = "";
	struct np_value v;
	bool enable;
	int ret;

	/* 0 or 1 (words.h), as the other values with blanks around */
	if (count >= sizeof(word))
		return -EINVAL;
	memcpy(word, page, count);
	if (np_value_parse(NP_KEY_enable, strim(word), &v, NULL, 0))
		return -EINVAL;
	enable = v.num;
	/* the RESERVE ioctl's rule: root without CAP_SYS_ADMIN does not */
	if (enable && !capable(CAP_SYS_ADMIN))
		return -EPERM;
	/* a re-creation in flight ends before the intent changes */
	cancel_delayed_work_sync(&r->work);
	mutex_lock(&r->lock);
	ret = 0;
	if (enable && !r->enabled)
		ret = np_cfs_enable(r);
	else if (!enable && r->enabled)
		np_cfs_disable(r);
	mutex_unlock(&r->lock);
	return ret ? ret : count;
}

CONFIGFS_ATTR(np_cfs_, enable);

/* disabled, active, waiting (for the controller, after a reset) or down */
static enum np_intent_state np_cfs_state(struct np_cfs_res *r)
{
	enum nvme_peer_reason reason;
	enum np_qstate state;

	lockdep_assert_held(&r->lock);
	if (!r->enabled)
		return NP_INTENT_DISABLED;
	if (!r->q)
		return r->again ? NP_INTENT_WAITING : NP_INTENT_DOWN;
	np_queue_snapshot(r->q, &state, &reason);
	if (state == NP_Q_ACTIVE)
		return NP_INTENT_ACTIVE;
	return np_cfs_comes_back(reason) ? NP_INTENT_WAITING : NP_INTENT_DOWN;
}

static ssize_t np_cfs_state_show(struct config_item *item, char *page)
{
	struct np_cfs_res *r = to_res(item);
	ssize_t ret;

	mutex_lock(&r->lock);
	ret = sprintf(page, "%s\n", np_intent_name(np_cfs_state(r)));
	mutex_unlock(&r->lock);
	return ret;
}

CONFIGFS_ATTR_RO(np_cfs_, state);

static ssize_t np_cfs_reason_show(struct config_item *item, char *page)
{
	struct np_cfs_res *r = to_res(item);
	enum nvme_peer_reason reason;
	enum np_qstate state;

	/* the current reservation's if it ended, else the last one's */
	mutex_lock(&r->lock);
	reason = r->reason;
	if (r->q) {
		np_queue_snapshot(r->q, &state, &reason);
		if (state == NP_Q_ACTIVE)
			reason = r->reason;
	}
	mutex_unlock(&r->lock);
	return sprintf(page, "%s\n", np_reason_name(reason));
}

CONFIGFS_ATTR_RO(np_cfs_, reason);

static ssize_t np_cfs_error_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", READ_ONCE(to_res(item)->error));
}

CONFIGFS_ATTR_RO(np_cfs_, error);

static ssize_t np_cfs_live_qid_show(struct config_item *item, char *page)
{
	struct np_cfs_res *r = to_res(item);
	enum nvme_peer_reason reason;
	enum np_qstate state;
	u16 qid = 0;

	mutex_lock(&r->lock);
	if (r->q) {
		np_queue_snapshot(r->q, &state, &reason);
		if (state == NP_Q_ACTIVE)
			qid = r->q->qid;
	}
	mutex_unlock(&r->lock);
	return sprintf(page, "%u\n", qid);
}

CONFIGFS_ATTR_RO(np_cfs_, live_qid);

static ssize_t np_cfs_generation_show(struct config_item *item, char *page)
{
	return sprintf(page, "%u\n", READ_ONCE(to_res(item)->generation));
}

CONFIGFS_ATTR_RO(np_cfs_, generation);

/* np_cfs_keys[]' order first: np_test_keys() checks */
static struct configfs_attribute *np_cfs_res_attrs[] = {
	&np_cfs_attr_nsid, &np_cfs_attr_depth, &np_cfs_attr_sq_placement,
	&np_cfs_attr_cq_placement, &np_cfs_attr_data_placement,
	&np_cfs_attr_data_size, &np_cfs_attr_peer, &np_cfs_attr_qid,
	&np_cfs_attr_uid, &np_cfs_attr_gid, &np_cfs_attr_mode,
	&np_cfs_attr_opcodes, &np_cfs_attr_max_nlb, &np_cfs_attr_extents,
	&np_cfs_attr_file, &np_cfs_attr_file_off, &np_cfs_attr_file_len,
	&np_cfs_attr_file_access, &np_cfs_attr_enable, &np_cfs_attr_state,
	&np_cfs_attr_reason, &np_cfs_attr_error, &np_cfs_attr_live_qid,
	&np_cfs_attr_generation,
	NULL,
};

/* ---- the directories ------------------------------------------------------ */

static void np_cfs_res_release(struct config_item *item)
{
	struct np_cfs_res *r = to_res(item);

	kfree(r->path);
	kfree(r);
}

static struct configfs_item_operations np_cfs_res_ops = {
	.release = np_cfs_res_release,
};

static const struct config_item_type np_cfs_res_type = {
	.ct_item_ops = &np_cfs_res_ops,
	.ct_attrs = np_cfs_res_attrs,
	.ct_owner = THIS_MODULE,
};

/* mkdir nvme-peer/<ctrl>/<name>: an intent, disabled, with the defaults */
static struct config_item *np_cfs_res_make(struct config_group *group,
					   const char *name)
{
	struct np_cfs_ctrl *cc = to_cfs_ctrl(group);
	struct np_cfs_res *r;

	if (!np_cfs_name_ok(name))
		return ERR_PTR(-EINVAL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	strscpy(r->ctrl, config_item_name(&group->cg_item), sizeof(r->ctrl));
	mutex_init(&r->lock);
	INIT_DELAYED_WORK(&r->work, np_cfs_work);
	np_cfs_defaults(r);
	config_item_init_type_name(&r->item, name, &np_cfs_res_type);
	mutex_lock(&np_cfs_lock);
	list_add_tail(&r->node, &cc->intents);
	mutex_unlock(&np_cfs_lock);
	return &r->item;
}

/* rmdir nvme-peer/<ctrl>/<name>: the reservation is released */
static void np_cfs_res_drop(struct config_group *group,
			    struct config_item *item)
{
	struct np_cfs_res *r = to_res(item);

	np_inject_cfs_drop();
	mutex_lock(&np_cfs_lock);
	list_del(&r->node);
	mutex_unlock(&np_cfs_lock);
	/* off the list: no live event queues it again */
	cancel_delayed_work_sync(&r->work);
	mutex_lock(&r->lock);
	if (r->enabled)
		np_cfs_disable(r);
	mutex_unlock(&r->lock);
	config_item_put(item);
}

static struct configfs_group_operations np_cfs_ctrl_ops = {
	.make_item = np_cfs_res_make,
	.drop_item = np_cfs_res_drop,
};

static void np_cfs_ctrl_release(struct config_item *item)
{
	kfree(to_cfs_ctrl(to_config_group(item)));
}

static struct configfs_item_operations np_cfs_ctrl_item_ops = {
	.release = np_cfs_ctrl_release,
};

static const struct config_item_type np_cfs_ctrl_type = {
	.ct_group_ops = &np_cfs_ctrl_ops,
	.ct_item_ops = &np_cfs_ctrl_item_ops,
	.ct_owner = THIS_MODULE,
};

/*
 * mkdir nvme-peer/<ctrl>: "nvme" and a number.  The controller need not
 * exist yet; enabling an intent below it looks it up.
 */
static struct config_group *np_cfs_ctrl_make(struct config_group *group,
					     const char *name)
{
	struct np_cfs_ctrl *cc;

	if (!np_ctrl_name_ok(name))
		return ERR_PTR(-EINVAL);
	cc = kzalloc(sizeof(*cc), GFP_KERNEL);
	if (!cc)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&cc->intents);
	config_group_init_type_name(&cc->group, name, &np_cfs_ctrl_type);
	mutex_lock(&np_cfs_lock);
	list_add_tail(&cc->node, &np_cfs_ctrls);
	mutex_unlock(&np_cfs_lock);
	return &cc->group;
}

/* rmdir nvme-peer/<ctrl>: configfs allows it only with no intent below */
static void np_cfs_ctrl_drop(struct config_group *group,
			     struct config_item *item)
{
	struct np_cfs_ctrl *cc = to_cfs_ctrl(to_config_group(item));

	mutex_lock(&np_cfs_lock);
	WARN_ON_ONCE(!list_empty(&cc->intents));
	list_del(&cc->node);
	mutex_unlock(&np_cfs_lock);
	config_item_put(item);
}

static struct configfs_group_operations np_cfs_root_ops = {
	.make_group = np_cfs_ctrl_make,
	.drop_item = np_cfs_ctrl_drop,
};

static const struct config_item_type np_cfs_root_type = {
	.ct_group_ops = &np_cfs_root_ops,
	.ct_owner = THIS_MODULE,
};

static struct configfs_subsystem np_cfs_subsys = {
	.su_group = {
		.cg_item = {
			.ci_namebuf = "nvme-peer",
			.ci_type = &np_cfs_root_type,
		},
	},
};

int np_cfs_init(void)
{
	config_group_init(&np_cfs_subsys.su_group);
	mutex_init(&np_cfs_subsys.su_mutex);
	return configfs_register_subsystem(&np_cfs_subsys);
}

void np_cfs_exit(void)
{
	configfs_unregister_subsystem(&np_cfs_subsys);
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "configfs_kunit.c"
#endif
