// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: /sys/kernel/config/nvme-peer/, the administrator's intent.
 *
 * nvme-peer/<ctrl>/<name>/ is a reservation an administrator wants: one
 * attribute per value of the request, written while it is disabled, and
 * enable written last, as nvmet's namespaces.  Enabling looks up the
 * controller, the peer device and the file and reserves: intent.c, which
 * also keeps the intent across the controller's resets.  Here are the
 * directories and the shape of each value.  The module does not unload
 * while an intent exists (configfs pins it).  sysfs qN/ stays the
 * reservation's read-only state.
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

#include "configfs.h"

/* the controller directories, and each one's intents (configfs.h) */
DEFINE_MUTEX(np_cfs_lock);
LIST_HEAD(np_cfs_ctrls);

static struct np_cfs_res *to_res(struct config_item *item)
{
	return container_of(item, struct np_cfs_res, item);
}

static struct np_cfs_ctrl *to_cfs_ctrl(struct config_group *group)
{
	return container_of(group, struct np_cfs_ctrl, group);
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

	lockdep_assert_held(&r->lock);
	if (!r->enabled)
		return NP_INTENT_DISABLED;
	if (!r->q && !r->w)
		return r->again ? NP_INTENT_WAITING : NP_INTENT_DOWN;
	if (np_cfs_active(r, &reason))
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

	/* the current reservation's if it ended, else the last one's */
	mutex_lock(&r->lock);
	if (!(r->q || r->w) || np_cfs_active(r, &reason))
		reason = r->reason;
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

/* a window's intent: the keys np_win_key() names, in np_cfs_keys[]' order */
static struct configfs_attribute *np_cfs_win_attrs[] = {
	&np_cfs_attr_nsid, &np_cfs_attr_peer, &np_cfs_attr_uid,
	&np_cfs_attr_gid, &np_cfs_attr_extents, &np_cfs_attr_file,
	&np_cfs_attr_file_off, &np_cfs_attr_file_len, &np_cfs_attr_enable,
	&np_cfs_attr_state, &np_cfs_attr_reason, &np_cfs_attr_error,
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

static const struct config_item_type np_cfs_win_type = {
	.ct_item_ops = &np_cfs_res_ops,
	.ct_attrs = np_cfs_win_attrs,
	.ct_owner = THIS_MODULE,
};

/* An intent of @cc named @name, disabled, with the defaults */
static struct config_item *np_cfs_intent_make(struct np_cfs_ctrl *cc,
					      const char *name, bool window)
{
	struct np_cfs_res *r;

	if (!np_cfs_name_ok(name))
		return ERR_PTR(-EINVAL);
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return ERR_PTR(-ENOMEM);
	strscpy(r->ctrl, config_item_name(&cc->group.cg_item), sizeof(r->ctrl));
	r->window = window;
	mutex_init(&r->lock);
	INIT_DELAYED_WORK(&r->work, np_cfs_work);
	np_cfs_defaults(r);
	config_item_init_type_name(&r->item, name, window ? &np_cfs_win_type :
				   &np_cfs_res_type);
	mutex_lock(&np_cfs_lock);
	list_add_tail(&r->node, &cc->intents);
	mutex_unlock(&np_cfs_lock);
	return &r->item;
}

/* mkdir nvme-peer/<ctrl>/<name>: a queue's intent */
static struct config_item *np_cfs_res_make(struct config_group *group,
					   const char *name)
{
	return np_cfs_intent_make(to_cfs_ctrl(group), name, false);
}

/* mkdir nvme-peer/<ctrl>/windows/<name>: a window's intent */
static struct config_item *np_cfs_win_make(struct config_group *group,
					   const char *name)
{
	return np_cfs_intent_make(container_of(group, struct np_cfs_ctrl,
					       windows), name, true);
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

static struct configfs_group_operations np_cfs_windows_ops = {
	.make_item = np_cfs_win_make,
	.drop_item = np_cfs_res_drop,
};

/* nvme-peer/<ctrl>/windows/: freed with its controller's directory */
static const struct config_item_type np_cfs_windows_type = {
	.ct_group_ops = &np_cfs_windows_ops,
	.ct_owner = THIS_MODULE,
};

static void np_cfs_ctrl_release(struct config_item *item)
{
	kfree(to_cfs_ctrl(to_config_group(item)));
}

static struct configfs_item_operations np_cfs_ctrl_item_ops = {
	.release = np_cfs_ctrl_release,
};

/*
 * nvme-peer/<ctrl>/pmr_nsid: the namespace the controller's PMR shows to
 * read-only windows (window.c), 0 for none.  The declaration is the
 * controller's: it outlives resets, not the controller's removal (it
 * reads 0 then; write it again once the controller is back).
 */
static ssize_t np_cfs_ctrl_pmr_nsid_show(struct config_item *item, char *page)
{
	struct nvme_peer_ctrl *pctrl;
	u32 nsid = 0;

	pctrl = nvme_peer_ctrl_get_by_name(config_item_name(item));
	if (pctrl) {
		nsid = np_win_provider(pctrl);
		nvme_peer_ctrl_put(pctrl);
	}
	return sysfs_emit(page, "%u\n", nsid);
}

static ssize_t np_cfs_ctrl_pmr_nsid_store(struct config_item *item,
					  const char *page, size_t count)
{
	struct nvme_peer_ctrl *pctrl;
	u32 nsid;
	int ret;

	ret = kstrtou32(page, 0, &nsid);
	if (ret)
		return ret;
	if (nsid > NP_PROV_NSID_MAX)
		return -EINVAL;
	pctrl = nvme_peer_ctrl_get_by_name(config_item_name(item));
	if (!pctrl)
		return -ENODEV;
	ret = np_win_provider_set(pctrl, nsid);
	nvme_peer_ctrl_put(pctrl);
	return ret ?: count;
}
CONFIGFS_ATTR(np_cfs_ctrl_, pmr_nsid);	/* words.h: NP_PROV_KEY */

static struct configfs_attribute *np_cfs_ctrl_attrs[] = {
	&np_cfs_ctrl_attr_pmr_nsid,
	NULL,
};

static const struct config_item_type np_cfs_ctrl_type = {
	.ct_group_ops = &np_cfs_ctrl_ops,
	.ct_item_ops = &np_cfs_ctrl_item_ops,
	.ct_attrs = np_cfs_ctrl_attrs,
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
	config_group_init_type_name(&cc->windows, NP_WIN_DIR,
				    &np_cfs_windows_type);
	configfs_add_default_group(&cc->windows, &cc->group);
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
	struct nvme_peer_ctrl *pctrl;

	mutex_lock(&np_cfs_lock);
	WARN_ON_ONCE(!list_empty(&cc->intents));
	list_del(&cc->node);
	mutex_unlock(&np_cfs_lock);
	/* the declaration goes with its directory: windows revoked */
	pctrl = nvme_peer_ctrl_get_by_name(config_item_name(item));
	if (pctrl) {
		np_win_provider_set(pctrl, 0);
		nvme_peer_ctrl_put(pctrl);
	}
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
#include "tests/configfs_kunit.c"
#endif

