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
#include <linux/ctype.h>
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
	/* file_off, file_len and file_access describe a file */
	if (!r->path && (pf->off || pf->len || pf->access))
		return -EINVAL;
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
 * configfs hands a store at most this many bytes and cuts a longer write
 * without a word (fs/configfs/file.c): a value that long may have been
 * cut, and is refused.
 */
#define NP_CFS_WRITE_MAX	(SZ_4K - 1)

/*
 * Numbers are decimal, or hexadecimal after 0x; a leading 0 is decimal
 * (kstrto*()'s base 0 would read it as octal).
 */
static unsigned int np_cfs_radix(const char *s)
{
	return s[0] == '0' && (s[1] == 'x' || s[1] == 'X') ? 16 : 10;
}

static const char * const np_opcode_names[] = {
	"flush", "write", "read", "write_zeroes", "dsm",
};

static const u32 np_opcode_bits[] = {
	NVME_PEER_OPCODE_FLUSH, NVME_PEER_OPCODE_WRITE, NVME_PEER_OPCODE_READ,
	NVME_PEER_OPCODE_WRITE_ZEROES, NVME_PEER_OPCODE_DSM,
};

/*
 * "read,write,...": the opcodes a mediated queue may use; "" is 0, which
 * the policy takes as Read only.  -EINVAL for an unknown or repeated name.
 */
static int np_parse_opcodes(char *s, u32 *ops)
{
	char *op;
	int i;

	*ops = 0;
	if (!*s)
		return 0;
	while ((op = strsep(&s, ",")) != NULL) {
		i = match_string(np_opcode_names, ARRAY_SIZE(np_opcode_names),
				 op);
		if (i < 0 || *ops & np_opcode_bits[i])
			return -EINVAL;
		*ops |= np_opcode_bits[i];
	}
	return 0;
}

/* The names of @ops, as np_parse_opcodes() reads them, and a newline. */
static ssize_t np_print_opcodes(u32 ops, char *page)
{
	ssize_t len = 0;
	int i;

	for (i = 0; i < ARRAY_SIZE(np_opcode_names); i++)
		if (ops & np_opcode_bits[i])
			len += sprintf(page + len, "%s%s", len ? "," : "",
				       np_opcode_names[i]);
	return len + sprintf(page + len, "\n");
}

/*
 * "SLBA+NLB,...": LBAs [SLBA, SLBA + NLB) each, into @ext (at most @max);
 * "" is none.  Return: how many, or -EINVAL.
 */
static int np_parse_extents(char *s, struct nvme_peer_extent *ext, int max)
{
	char *one, *plus;
	u64 slba, nlb;
	int n = 0;

	if (!*s)
		return 0;
	while ((one = strsep(&s, ",")) != NULL) {
		plus = strchr(one, '+');
		if (!plus || n >= max)
			return -EINVAL;
		*plus++ = '\0';
		if (kstrtou64(one, np_cfs_radix(one), &slba) ||
		    kstrtou64(plus, np_cfs_radix(plus), &nlb) ||
		    !nlb || slba + nlb < slba)
			return -EINVAL;
		ext[n].slba = slba;
		ext[n].nlb = nlb;
		n++;
	}
	return n;
}

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

/*
 * A number attribute: the field np_cfs_NAME() points to, parsed with
 * kstrtoTYPE, at most MAX.
 */
#define NP_CFS_NUM(name, fmt, type, max)				\
static ssize_t np_cfs_##name##_show(struct config_item *item, char *page) \
{									\
	return sprintf(page, fmt "\n", *np_cfs_##name(to_res(item)));	\
}									\
static ssize_t np_cfs_##name##_store(struct config_item *item,		\
				     const char *page, size_t count)	\
{									\
	struct np_cfs_res *r = to_res(item);				\
	type val;							\
	int ret;							\
									\
	/* -EINVAL for a number out of range too: one errno, one meaning */ \
	if (kstrto##type(page, np_cfs_radix(page), &val) || val > (max)) \
		return -EINVAL;						\
	ret = np_cfs_change(r);						\
	if (ret)							\
		return ret;						\
	*np_cfs_##name(r) = val;					\
	mutex_unlock(&r->lock);						\
	return count;							\
}									\
CONFIGFS_ATTR(np_cfs_, name)

static u32 *np_cfs_nsid(struct np_cfs_res *r)
{
	return &r->p.nsid;
}

static u32 *np_cfs_depth(struct np_cfs_res *r)
{
	return &r->p.depth;
}

static size_t *np_cfs_data_size(struct np_cfs_res *r)
{
	return &r->p.data_size;
}

static u16 *np_cfs_qid(struct np_cfs_res *r)
{
	return &r->qid;
}

static u32 *np_cfs_max_nlb(struct np_cfs_res *r)
{
	return &r->p.policy.max_nlb;
}

static u64 *np_cfs_file_off(struct np_cfs_res *r)
{
	return &r->p.file.off;
}

static u64 *np_cfs_file_len(struct np_cfs_res *r)
{
	return &r->p.file.len;
}

NP_CFS_NUM(nsid, "%u", u32, U32_MAX);
NP_CFS_NUM(depth, "%u", u32, U32_MAX);
NP_CFS_NUM(data_size, "%zu", u64, NP_MAX_DATA_SIZE);
NP_CFS_NUM(qid, "%u", u16, U16_MAX);
NP_CFS_NUM(max_nlb, "%u", u32, U32_MAX);
NP_CFS_NUM(file_off, "%llu", u64, U64_MAX);
NP_CFS_NUM(file_len, "%llu", u64, U64_MAX);

/* A word attribute: parsed by PARSE(r, word), shown by SHOW(r, page). */
#define NP_CFS_WORD(name, parse, show)					\
static ssize_t np_cfs_##name##_show(struct config_item *item, char *page) \
{									\
	struct np_cfs_res *r = to_res(item);				\
	ssize_t ret;							\
									\
	mutex_lock(&r->lock);						\
	ret = show(r, page);						\
	mutex_unlock(&r->lock);						\
	return ret;							\
}									\
static ssize_t np_cfs_##name##_store(struct config_item *item,		\
				     const char *page, size_t count)	\
{									\
	struct np_cfs_res *r = to_res(item);				\
	char *word;							\
	int ret;							\
									\
	if (count >= NP_CFS_WRITE_MAX)					\
		return -EINVAL;						\
	word = kstrndup(page, count, GFP_KERNEL);			\
	if (!word)							\
		return -ENOMEM;						\
	ret = np_cfs_change(r);						\
	if (!ret) {							\
		ret = parse(r, strim(word));				\
		mutex_unlock(&r->lock);					\
	}								\
	kfree(word);							\
	return ret ? ret : count;					\
}									\
CONFIGFS_ATTR(np_cfs_, name)

static int np_cfs_parse_placement(const char *s, enum nvme_peer_placement *w)
{
	enum nvme_peer_placement where;

	/* a dma-buf is an fd's: only a process or a driver can give one */
	if (np_parse_placement(s, &where) || where == NVME_PEER_PLACE_DMABUF)
		return -EINVAL;
	*w = where;
	return 0;
}

/* A placement attribute: the placement np_cfs_NAME() points to. */
#define NP_CFS_PLACEMENT(name)						\
static int np_cfs_parse_##name(struct np_cfs_res *r, char *s)		\
{									\
	return np_cfs_parse_placement(s, np_cfs_##name(r));		\
}									\
static ssize_t np_cfs_show_##name(struct np_cfs_res *r, char *page)	\
{									\
	return sprintf(page, "%s\n", np_placement_name(*np_cfs_##name(r))); \
}									\
NP_CFS_WORD(name, np_cfs_parse_##name, np_cfs_show_##name)

static enum nvme_peer_placement *np_cfs_sq_placement(struct np_cfs_res *r)
{
	return &r->p.sq_placement;
}

static enum nvme_peer_placement *np_cfs_cq_placement(struct np_cfs_res *r)
{
	return &r->p.cq_placement;
}

static enum nvme_peer_placement *np_cfs_data_placement(struct np_cfs_res *r)
{
	return &r->p.data_placement;
}

NP_CFS_PLACEMENT(sq_placement);
NP_CFS_PLACEMENT(cq_placement);
NP_CFS_PLACEMENT(data_placement);

static int np_cfs_parse_mode(struct np_cfs_res *r, char *s)
{
	enum nvme_peer_mode mode;

	if (!strcmp(s, "mediated"))
		mode = NVME_PEER_MODE_MEDIATED;
	else if (!strcmp(s, "direct"))
		mode = NVME_PEER_MODE_DIRECT;
	else if (!strcmp(s, "isolated"))
		mode = NVME_PEER_MODE_ISOLATED;
	else
		return -EINVAL;
	/* a VF's live event reads it without the intent's lock */
	WRITE_ONCE(r->p.mode, mode);
	return 0;
}

static ssize_t np_cfs_show_mode(struct np_cfs_res *r, char *page)
{
	return sprintf(page, "%s\n", np_mode_name(r->p.mode));
}

NP_CFS_WORD(mode, np_cfs_parse_mode, np_cfs_show_mode);

/*
 * "cpu", or a PCI device's name as the kernel writes it
 * (domain:bus:slot.function in lower-case hex, pci_name()): the device
 * need not exist yet, enabling looks it up.
 */
static int np_cfs_parse_peer(struct np_cfs_res *r, char *s)
{
	unsigned int dom, bus, slot, fn;
	char name[sizeof(r->peer_name)];
	int n = 0;

	if (!strcmp(s, "cpu")) {
		r->peer_name[0] = '\0';
		return 0;
	}
	if (sscanf(s, "%x:%x:%x.%u%n", &dom, &bus, &slot, &fn, &n) != 4 ||
	    s[n] || bus > 0xff || slot > 0x1f || fn > 7)
		return -EINVAL;
	/* one spelling: the one the kernel names the device with */
	if (snprintf(name, sizeof(name), "%04x:%02x:%02x.%u", dom, bus, slot,
		     fn) >= sizeof(name) || strcmp(name, s))
		return -EINVAL;
	strscpy(r->peer_name, name, sizeof(r->peer_name));
	return 0;
}

static ssize_t np_cfs_show_peer(struct np_cfs_res *r, char *page)
{
	return sprintf(page, "%s\n", r->peer_name[0] ? r->peer_name : "cpu");
}

NP_CFS_WORD(peer, np_cfs_parse_peer, np_cfs_show_peer);

static int np_cfs_parse_opcodes(struct np_cfs_res *r, char *s)
{
	u32 ops;
	int ret = np_parse_opcodes(s, &ops);

	if (!ret)
		r->p.policy.opcodes = ops;
	return ret;
}

static ssize_t np_cfs_show_opcodes(struct np_cfs_res *r, char *page)
{
	return np_print_opcodes(r->p.policy.opcodes, page);
}

NP_CFS_WORD(opcodes, np_cfs_parse_opcodes, np_cfs_show_opcodes);

static int np_cfs_parse_extents(struct np_cfs_res *r, char *s)
{
	struct nvme_peer_extent *ext;
	int n;

	/* parsed aside: a list that does not parse changes nothing */
	ext = kmalloc_array(NP_CFS_MAX_EXTENTS, sizeof(*ext), GFP_KERNEL);
	if (!ext)
		return -ENOMEM;
	n = np_parse_extents(s, ext, NP_CFS_MAX_EXTENTS);
	if (n >= 0) {
		memcpy(r->extents, ext, n * sizeof(*ext));
		r->p.policy.nr_extents = n;
		r->p.policy.extents = n ? r->extents : NULL;
	}
	kfree(ext);
	return n < 0 ? n : 0;
}

static ssize_t np_cfs_show_extents(struct np_cfs_res *r, char *page)
{
	const struct nvme_peer_policy *pol = &r->p.policy;
	ssize_t len = 0;
	u32 i;

	for (i = 0; i < pol->nr_extents; i++)
		len += sprintf(page + len, "%s%llu+%llu", i ? "," : "",
			       pol->extents[i].slba, pol->extents[i].nlb);
	return len + sprintf(page + len, "\n");
}

NP_CFS_WORD(extents, np_cfs_parse_extents, np_cfs_show_extents);

/* uid and gid: who may attach through /dev/nvme-peer; -1: nobody */
static int np_cfs_parse_uid(struct np_cfs_res *r, char *s)
{
	u32 id;

	if (!strcmp(s, "-1")) {
		r->uid = INVALID_UID;
		return 0;
	}
	/* an id with no mapping in the writer's namespace is not "anyone" */
	if (kstrtou32(s, np_cfs_radix(s), &id) || !uid_valid(make_kuid(current_user_ns(), id)))
		return -EINVAL;
	r->uid = make_kuid(current_user_ns(), id);
	return 0;
}

static ssize_t np_cfs_show_uid(struct np_cfs_res *r, char *page)
{
	if (!uid_valid(r->uid))
		return sprintf(page, "-1\n");
	return sprintf(page, "%u\n", from_kuid_munged(current_user_ns(), r->uid));
}

NP_CFS_WORD(uid, np_cfs_parse_uid, np_cfs_show_uid);

static int np_cfs_parse_gid(struct np_cfs_res *r, char *s)
{
	u32 id;

	if (!strcmp(s, "-1")) {
		r->gid = INVALID_GID;
		return 0;
	}
	if (kstrtou32(s, np_cfs_radix(s), &id) || !gid_valid(make_kgid(current_user_ns(), id)))
		return -EINVAL;
	r->gid = make_kgid(current_user_ns(), id);
	return 0;
}

static ssize_t np_cfs_show_gid(struct np_cfs_res *r, char *page)
{
	if (!gid_valid(r->gid))
		return sprintf(page, "-1\n");
	return sprintf(page, "%u\n", from_kgid_munged(current_user_ns(), r->gid));
}

NP_CFS_WORD(gid, np_cfs_parse_gid, np_cfs_show_gid);

/* An absolute path (enabling opens it as the writer), or "" for none. */
static int np_cfs_parse_file(struct np_cfs_res *r, char *s)
{
	char *path = NULL;

	if (*s && *s != '/')
		return -EINVAL;
	if (*s) {
		path = kstrdup(s, GFP_KERNEL);
		if (!path)
			return -ENOMEM;
	}
	kfree(r->path);
	r->path = path;
	return 0;
}

static ssize_t np_cfs_show_file(struct np_cfs_res *r, char *page)
{
	return snprintf(page, PAGE_SIZE, "%s\n", r->path ? r->path : "");
}

NP_CFS_WORD(file, np_cfs_parse_file, np_cfs_show_file);

static int np_cfs_parse_file_access(struct np_cfs_res *r, char *s)
{
	if (!strcmp(s, "read"))
		r->p.file.access = 0;
	else if (!strcmp(s, "rw"))
		r->p.file.access = NVME_PEER_ACCESS_WRITE;
	else
		return -EINVAL;
	return 0;
}

static ssize_t np_cfs_show_file_access(struct np_cfs_res *r, char *page)
{
	return sprintf(page, "%s\n", r->p.file.access & NVME_PEER_ACCESS_WRITE ?
		       "rw" : "read");
}

NP_CFS_WORD(file_access, np_cfs_parse_file_access,
	    np_cfs_show_file_access);

/* ---- enable, and the state of what it made -------------------------------- */

static ssize_t np_cfs_enable_show(struct config_item *item, char *page)
{
	return sprintf(page, "%d\n", READ_ONCE(to_res(item)->enabled));
}

static ssize_t np_cfs_enable_store(struct config_item *item,
				   const char *page, size_t count)
{
	struct np_cfs_res *r = to_res(item);
	bool enable;
	int ret;

	if (kstrtobool(page, &enable))
		return -EINVAL;
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
static const char *np_cfs_state(struct np_cfs_res *r)
{
	enum nvme_peer_reason reason;
	enum np_qstate state;

	lockdep_assert_held(&r->lock);
	if (!r->enabled)
		return "disabled";
	if (!r->q)
		return r->again ? "waiting" : "down";
	np_queue_snapshot(r->q, &state, &reason);
	if (state == NP_Q_ACTIVE)
		return "active";
	return np_cfs_comes_back(reason) ? "waiting" : "down";
}

static ssize_t np_cfs_state_show(struct config_item *item, char *page)
{
	struct np_cfs_res *r = to_res(item);
	ssize_t ret;

	mutex_lock(&r->lock);
	ret = sprintf(page, "%s\n", np_cfs_state(r));
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

/**
 * np_cfs_name_ok() - whether @name may name a reservation
 * @name: 1 to %NVME_PEER_NAME_MAX - 1 characters of [A-Za-z0-9_.-], not
 *	. or .. (a path's own components)
 *
 * Return: true if it may.
 */
bool np_cfs_name_ok(const char *name)
{
	size_t len = strnlen(name, NVME_PEER_NAME_MAX);
	size_t i;

	if (!len || len >= NVME_PEER_NAME_MAX || !strcmp(name, ".") ||
	    !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && !strchr("_.-", name[i]))
			return false;
	return true;
}

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
	r->p.depth = 64;
	r->p.sq_placement = NVME_PEER_PLACE_HOST;
	r->p.cq_placement = NVME_PEER_PLACE_HOST;
	r->uid = INVALID_UID;
	r->gid = INVALID_GID;
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
	unsigned int n;
	char end;

	if (strncmp(name, "nvme", 4) || !isdigit(name[4]) ||
	    sscanf(name, "nvme%u%c", &n, &end) != 1 ||
	    strlen(name) >= NP_CTRL_NAME_LEN)
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
