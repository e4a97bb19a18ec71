// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: /sys/class/nvme/nvmeX/peer/, the administrator's view.
 * See Documentation/ABI/testing/sysfs-class-nvme-peer.
 */
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/namei.h>
#include <linux/parser.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/uidgid.h>

#include "nvme.h"
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
	return sysfs_emit(buf, "%u\n", 4 * to_pctrl(kobj)->info.db_stride);
}

/* ---- names, next to what prints them ---------------------------------- */

static const char *np_qstate_name(enum np_qstate state)
{
	static const char * const names[] = {
		[NP_Q_NEW] = "creating",
		[NP_Q_ACTIVE] = "active",
		[NP_Q_REVOKED] = "revoked",
		[NP_Q_RELEASED] = "released",
	};

	return state < ARRAY_SIZE(names) ? names[state] : "?";
}

static const char *np_mode_name(enum nvme_peer_mode mode)
{
	return mode == NVME_PEER_MODE_DIRECT ? "direct" : "mediated";
}

static const char *np_guarantee_name(enum nvme_peer_guarantee g)
{
	static const char * const names[] = {
		[NVME_PEER_GUARANTEE_NONE] = "none",
		[NVME_PEER_GUARANTEE_IOMMU_SWITCH] = "iommu-switch",
		[NVME_PEER_GUARANTEE_IOMMU] = "iommu",
		[NVME_PEER_GUARANTEE_CPU] = "cpu",
	};

	return g < ARRAY_SIZE(names) ? names[g] : "?";
}

static const char * const np_placements[] = {
	[NVME_PEER_PLACE_NONE] = "none",
	[NVME_PEER_PLACE_HOST] = "host",
	[NVME_PEER_PLACE_CMB] = "cmb",
	[NVME_PEER_PLACE_PEER] = "peer",
	[NVME_PEER_PLACE_DMABUF] = "dmabuf",
};

static const char *np_location_name(enum nvme_peer_location loc)
{
	static const char * const names[] = {
		[NVME_PEER_LOC_NONE] = "none",
		[NVME_PEER_LOC_SYSTEM] = "system",
		[NVME_PEER_LOC_P2P] = "p2p",
	};

	return loc < ARRAY_SIZE(names) ? names[loc] : "?";
}

static const char *np_placement_name(enum nvme_peer_placement where)
{
	return where < ARRAY_SIZE(np_placements) ? np_placements[where] : "?";
}

/**
 * np_parse_placement() - parse "none", "host", "cmb" or "peer"
 * @s: the word
 * @where: the placement, set on success
 *
 * Return: 0 or -EINVAL.
 */
static int np_parse_placement(const char *s, enum nvme_peer_placement *where)
{
	int i = match_string(np_placements, ARRAY_SIZE(np_placements), s);

	if (i < 0)
		return -EINVAL;
	*where = i;
	return 0;
}

static const char *np_owner_name(enum np_owner owner)
{
	switch (owner) {
	case NP_OWNER_KERNEL:
		return "kernel";
	case NP_OWNER_SYSFS:
		return "sysfs";
	case NP_OWNER_FILE:
		return "process";
	}
	return "?";
}

/* ---- peer/create: the request grammar --------------------------------- */

enum {
	NP_OPT_NSID, NP_OPT_DEPTH, NP_OPT_SQ_PLACEMENT, NP_OPT_CQ_PLACEMENT,
	NP_OPT_DATA_PLACEMENT, NP_OPT_DATA_SIZE, NP_OPT_PEER, NP_OPT_QID,
	NP_OPT_UID, NP_OPT_GID, NP_OPT_MODE, NP_OPT_OPCODES, NP_OPT_MAX_NLB,
	NP_OPT_EXTENT, NP_OPT_FILE, NP_OPT_OFF, NP_OPT_LEN, NP_OPT_ACCESS,
	NP_OPT_ERR,
};

/* values are parsed by np_parse_opt(), with the usual C prefixes (0x, 0) */
static const match_table_t np_create_tokens = {
	{ NP_OPT_NSID,		"nsid=%s" },
	{ NP_OPT_DEPTH,		"depth=%s" },
	{ NP_OPT_SQ_PLACEMENT,		"sq_placement=%s" },
	{ NP_OPT_CQ_PLACEMENT,		"cq_placement=%s" },
	{ NP_OPT_DATA_PLACEMENT,	"data_placement=%s" },
	{ NP_OPT_DATA_SIZE,	"data_size=%s" },
	{ NP_OPT_PEER,		"peer=%s" },
	{ NP_OPT_QID,		"qid=%s" },
	{ NP_OPT_UID,		"uid=%s" },
	{ NP_OPT_GID,		"gid=%s" },
	{ NP_OPT_MODE,		"mode=%s" },
	{ NP_OPT_OPCODES,		"opcodes=%s" },
	{ NP_OPT_MAX_NLB,	"max_nlb=%s" },
	{ NP_OPT_EXTENT,		"extent=%s" },
	{ NP_OPT_FILE,		"file=%s" },
	{ NP_OPT_OFF,		"off=%s" },
	{ NP_OPT_LEN,		"len=%s" },
	{ NP_OPT_ACCESS,	"access=%s" },
	{ NP_OPT_ERR,		NULL },
};

/* "read,write,...": the opcodes a mediated queue may use */
static int np_parse_opcodes(char *val, u32 *ops)
{
	static const char * const names[] = {
		"flush", "write", "read", "write_zeroes", "dsm",
	};
	static const u32 bits[] = {
		NVME_PEER_OPCODE_FLUSH, NVME_PEER_OPCODE_WRITE,
		NVME_PEER_OPCODE_READ, NVME_PEER_OPCODE_WRITE_ZEROES,
		NVME_PEER_OPCODE_DSM,
	};
	char *op;
	int i;

	*ops = 0;
	while ((op = strsep(&val, ",")) != NULL) {
		i = match_string(names, ARRAY_SIZE(names), op);
		if (i < 0 || *ops & bits[i])
			return -EINVAL;
		*ops |= bits[i];
	}
	return 0;
}

/* "SLBA+NLB": LBAs [SLBA, SLBA + NLB) */
static int np_parse_extent(char *val, struct np_create_req *req)
{
	struct nvme_peer_policy *pol = &req->p.policy;
	char *plus = strchr(val, '+');
	u64 slba, nlb;

	if (!plus || pol->nr_extents >= NP_CREATE_MAX_EXTENTS)
		return -EINVAL;
	*plus++ = '\0';
	if (kstrtou64(val, 0, &slba) || kstrtou64(plus, 0, &nlb) || !nlb ||
	    slba + nlb < slba)
		return -EINVAL;
	req->extents[pol->nr_extents].slba = slba;
	req->extents[pol->nr_extents].nlb = nlb;
	pol->nr_extents++;
	return 0;
}

/* One key's value into @req; true if it does not parse. */
static bool np_parse_opt(struct np_create_req *req, int token, char *val)
{
	struct nvme_peer_params *p = &req->p;
	u64 num;

	switch (token) {
	case NP_OPT_NSID:
		return kstrtou32(val, 0, &p->nsid);
	case NP_OPT_DEPTH:
		return kstrtou32(val, 0, &p->depth);
	case NP_OPT_SQ_PLACEMENT:
		return np_parse_placement(val, &p->sq_placement);
	case NP_OPT_CQ_PLACEMENT:
		return np_parse_placement(val, &p->cq_placement);
	case NP_OPT_DATA_PLACEMENT:
		return np_parse_placement(val, &p->data_placement);
	case NP_OPT_DATA_SIZE:
		if (kstrtou64(val, 0, &num) || num > NP_MAX_DATA_SIZE)
			return true;
		p->data_size = num;
		return false;
	case NP_OPT_PEER:
		return strscpy(req->peer, val, sizeof(req->peer)) < 0;
	case NP_OPT_QID:
		return kstrtou16(val, 0, &req->qid) || !req->qid;
	case NP_OPT_UID:
		req->has_uid = true;
		return kstrtou32(val, 0, &req->uid) || req->uid == (u32)-1;
	case NP_OPT_GID:
		req->has_gid = true;
		return kstrtou32(val, 0, &req->gid) || req->gid == (u32)-1;
	case NP_OPT_MODE:
		if (sysfs_streq(val, "direct"))
			p->mode = NVME_PEER_MODE_DIRECT;
		return p->mode != NVME_PEER_MODE_DIRECT &&
		       !sysfs_streq(val, "mediated");
	case NP_OPT_OPCODES:
		return np_parse_opcodes(val, &p->policy.opcodes);
	case NP_OPT_MAX_NLB:
		return kstrtou32(val, 0, &p->policy.max_nlb) ||
		       !p->policy.max_nlb;
	case NP_OPT_EXTENT:
		return np_parse_extent(val, req);
	case NP_OPT_FILE:
		req->file = val;	/* in the request's buffer */
		return !*val;
	case NP_OPT_OFF:
		return kstrtou64(val, 0, &p->file.off);
	case NP_OPT_LEN:
		req->has_len = true;
		return kstrtou64(val, 0, &p->file.len);
	case NP_OPT_ACCESS:
		if (sysfs_streq(val, "rw"))
			p->file.access |= NVME_PEER_ACCESS_WRITE;
		return !sysfs_streq(val, "rw") && !sysfs_streq(val, "read");
	}
	return true;
}

/**
 * np_parse_create() - parse a peer/create request
 * @buf: "key=value" words separated by blanks; modified
 * @req: filled in; keys not given keep their defaults (depth 64, SQ and CQ
 *	in host memory, no data buffer, the CPU as the peer, any qid, not
 *	attachable)
 *
 * Keys: np_create_tokens; extent=SLBA+NLB is the only key that may be
 * repeated (up to %NP_CREATE_MAX_EXTENTS times).  file=PATH binds a file
 * (off=, len= and access=read|rw go with it, access=read by default; no
 * len= binds up to the end of the file, see np_create_file()).
 *
 * Return: 0, or -EINVAL for an unknown or repeated key, a missing value, a
 * value that does not parse, or off=, len= or access= without file=.
 */
static int np_parse_create(char *buf, struct np_create_req *req)
{
	substring_t args[MAX_OPT_ARGS];
	unsigned long seen = 0;
	char *word;
	int token;

	memset(req, 0, sizeof(*req));
	req->p.depth = 64;
	req->p.sq_placement = NVME_PEER_PLACE_HOST;
	req->p.cq_placement = NVME_PEER_PLACE_HOST;
	while ((word = strsep(&buf, " \t\n")) != NULL) {
		if (!*word)
			continue;
		token = match_token(word, np_create_tokens, args);
		if (token == NP_OPT_ERR ||
		    (seen & BIT(token) && token != NP_OPT_EXTENT) ||
		    np_parse_opt(req, token, args[0].from))
			return -EINVAL;
		seen |= BIT(token);
	}
	if (req->p.policy.nr_extents)
		req->p.policy.extents = req->extents;
	/* off=, len= and access= describe a file= */
	if (!req->file && (seen & (BIT(NP_OPT_OFF) | BIT(NP_OPT_LEN) |
				   BIT(NP_OPT_ACCESS))))
		return -EINVAL;
	if (req->file)
		req->p.file.access |= NVME_PEER_ACCESS_READ;
	return 0;
}

/* -EISDIR for a directory, -EINVAL for anything else not a regular file */
static int np_create_file_type(umode_t mode)
{
	if (S_ISDIR(mode))
		return -EISDIR;
	return S_ISREG(mode) ? 0 : -EINVAL;
}

/**
 * np_create_file() - open the file= of a peer/create request
 * @req: the parsed request; its range gets its default length
 *
 * Opened as the writer (its permissions decide), read-only or, for
 * access=rw, read-write.  A regular file only, checked before it is opened:
 * opening a FIFO would wait for a writer, and the sysfs write, the
 * controller's removal with it; a device's open has effects of its own.
 * The open does not block either (%O_NONBLOCK) should the name have been
 * replaced meanwhile, and the opened file is checked again.
 *
 * Without len= the range runs from off= to the end of the file: the
 * binding's checks then refuse an empty range (off= at or past EOF) and
 * an end of file inside a block with -EINVAL, like an explicit len=.
 *
 * Return: the file, or an ERR_PTR: -EISDIR (a directory), -EINVAL
 * (another type), or the error of looking PATH up or opening it.
 */
static struct file *np_create_file(struct np_create_req *req)
{
	struct nvme_peer_file *pf = &req->p.file;
	struct path path;
	struct file *file;
	loff_t size;
	int ret;

	ret = kern_path(req->file, LOOKUP_FOLLOW, &path);
	if (ret)
		return ERR_PTR(ret);
	ret = np_create_file_type(d_inode(path.dentry)->i_mode);
	path_put(&path);
	if (ret)
		return ERR_PTR(ret);
	file = filp_open(req->file, O_LARGEFILE | O_NONBLOCK |
			 (pf->access & NVME_PEER_ACCESS_WRITE ?
			  O_RDWR : O_RDONLY), 0);
	if (IS_ERR(file))
		return file;
	ret = np_create_file_type(file_inode(file)->i_mode);
	if (ret) {
		filp_close(file, NULL);
		return ERR_PTR(ret);
	}
	if (!req->has_len) {
		size = i_size_read(file_inode(file));
		pf->len = size > pf->off ? size - pf->off : 0;
	}
	return file;
}

static ssize_t create_store(struct kobject *kobj, struct kobj_attribute *a,
			    const char *buf, size_t count)
{
	struct nvme_peer_ctrl *pctrl = to_pctrl(kobj);
	struct np_provision prov = { INVALID_UID, INVALID_GID };
	struct nvme_peer_queue *q;
	struct device *peer = NULL;
	struct np_create_req *req;
	struct file *file = NULL;
	char *args;
	int ret;

	req = kmalloc(sizeof(*req), GFP_KERNEL);
	args = kstrndup(buf, count, GFP_KERNEL);
	ret = -ENOMEM;
	if (!req || !args)
		goto out_free;
	ret = np_parse_create(args, req);
	if (ret)
		goto out_free;
	/* an id with no mapping in the writer's namespace is not "anyone" */
	if (req->has_uid)
		prov.uid = make_kuid(current_user_ns(), req->uid);
	if (req->has_gid)
		prov.gid = make_kgid(current_user_ns(), req->gid);
	ret = -EINVAL;
	if ((req->has_uid && !uid_valid(prov.uid)) ||
	    (req->has_gid && !gid_valid(prov.gid)))
		goto out_free;
	if (req->peer[0]) {
		peer = bus_find_device_by_name(&pci_bus_type, NULL, req->peer);
		ret = -ENODEV;
		if (!peer)
			goto out_free;
		req->p.peer = to_pci_dev(peer);
	}
	if (req->file) {
		file = np_create_file(req);
		ret = PTR_ERR_OR_ZERO(file);
		if (ret)
			goto out_put_peer;
		req->p.file.file = file;
	}
	q = np_reserve(pctrl, &req->p, NP_OWNER_SYSFS, req->qid,
		       req->has_uid || req->has_gid ? &prov : NULL);
	ret = PTR_ERR_OR_ZERO(q);
	if (file)
		filp_close(file, NULL);
out_put_peer:
	put_device(peer);
out_free:
	kfree(args);
	kfree(req);
	return ret ? ret : count;
}

static ssize_t delete_store(struct kobject *kobj, struct kobj_attribute *a,
			    const char *buf, size_t count)
{
	u16 qid;
	int ret;

	if (kstrtou16(buf, 0, &qid))
		return -EINVAL;
	ret = np_delete_qid(to_pctrl(kobj), qid, NP_OWNER_SYSFS);
	return ret ? ret : count;
}

static struct kobj_attribute np_attr_first_qid = __ATTR_RO(first_qid);
static struct kobj_attribute np_attr_nr_qids = __ATTR_RO(nr_qids);
static struct kobj_attribute np_attr_free = __ATTR_RO(free);
static struct kobj_attribute np_attr_live = __ATTR_RO(live);
static struct kobj_attribute np_attr_cmbsz = __ATTR_RO(cmbsz);
static struct kobj_attribute np_attr_max_depth = __ATTR_RO(max_depth);
static struct kobj_attribute np_attr_doorbell_stride =
	__ATTR_RO(doorbell_stride);
static struct kobj_attribute np_attr_create = __ATTR_WO(create);
static struct kobj_attribute np_attr_delete = __ATTR_WO(delete);

static struct attribute *np_ctrl_attrs[] = {
	&np_attr_first_qid.attr, &np_attr_nr_qids.attr, &np_attr_free.attr,
	&np_attr_live.attr, &np_attr_cmbsz.attr, &np_attr_max_depth.attr,
	&np_attr_doorbell_stride.attr, &np_attr_create.attr,
	&np_attr_delete.attr,
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
				   &pctrl->ctrl->device->kobj, "peer");
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
	&np_q_cq_location.attr, &np_q_data_location.attr,
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

int np_sysfs_queue_add(struct nvme_peer_queue *q)
{
	lockdep_assert_held(&q->pctrl->lock);
	if (!q->pctrl->kobj)
		return -ENODEV;
	return kobject_add(&q->kobj, q->pctrl->kobj, "q%u", q->qid);
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "sysfs_kunit.c"
#endif
