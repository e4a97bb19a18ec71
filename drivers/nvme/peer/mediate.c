// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer mediated mode: the peer fills a shadow submission queue and
 * writes its tail to a shadow doorbell word, both in memory it can reach; a
 * kernel thread checks every entry with the guard (guard.c) and copies the
 * entries that pass into a hardware SQ in host memory that only the
 * controller can reach.  Completions come back through a hardware CQ the
 * kernel polls and are copied to the peer's (shadow) CQ with the peer's
 * command id; a rejected entry gets a completion at once, with the NVMe
 * status the guard chose and Do Not Retry set.  The per-queue work of a
 * pass is medpass.c, which the userspace benchmark runs as well.
 *
 * The peer sees the same queue layout as in direct mode: a 64-byte-entry
 * SQ, a 16-byte-entry CQ with a phase bit, an SQ tail and a CQ head
 * "doorbell".  Only the addresses differ.
 *
 * Here is decided what a mediated queue is: its policy (the guard's
 * extents, windows, opcodes), its memory (shadow queues and doorbell,
 * hardware queues, the PRP pages) and its sysfs files.  The threads that
 * run the queues are poller.c's.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/dma-mapping.h>
#include <linux/nvme.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "mediate.h"

/* ---- policy ------------------------------------------------------------- */

/*
 * Largest NLB a command may carry by default: 128 KiB, or the controller's
 * transfer limit when smaller; never more than one PRP list page maps.
 */
static u32 np_med_max_nlb(struct nvme_peer_queue *q)
{
	u64 bytes = min_t(u64, 128 << 10, q->max_xfer);

	return max_t(u64, bytes >> q->lba_shift, 1);
}

/**
 * np_med_validate() - the policy checks that need no namespace
 * @p: reservation parameters
 *
 * Part of the reservation gate (core.c); the
 * checks against the namespace (extents past its end, empty or wrapping
 * ranges, max_nlb above its transfer limit) come when the queue is built.
 *
 * Return: 0, or -EINVAL: an unknown opcode bit, more than
 * %NVME_PEER_MAX_EXTENTS extents or %NVME_PEER_MAX_WINDOWS windows, a
 * count without its array, a window that overlaps the data buffer's PRP
 * range (%NVME_PEER_PRP_BASE, translated by the poller).
 */
int np_med_validate(const struct nvme_peer_params *p)
{
	const struct nvme_peer_policy *pol = &p->policy;
	u32 i;

	if (pol->opcodes & ~NVME_PEER_OPCODES_ALL ||
	    pol->nr_extents > NVME_PEER_MAX_EXTENTS ||
	    pol->nr_windows > NVME_PEER_MAX_WINDOWS ||
	    (pol->nr_extents && !pol->extents) ||
	    (pol->nr_windows && !pol->windows))
		return -EINVAL;
	for (i = 0; i < pol->nr_windows; i++) {
		const struct nvme_peer_data_window *w = &pol->windows[i];

		if (w->addr < NVME_PEER_PRP_BASE + p->data_size &&
		    w->addr + w->len > NVME_PEER_PRP_BASE)
			return -EINVAL;
	}
	return 0;
}

static int np_med_policy(struct nvme_peer_queue *q, struct np_med *m,
			 const struct nvme_peer_policy *pol)
{
	struct np_policy *p = &m->policy;
	u32 nr_ext = pol->nr_extents ? pol->nr_extents : 1;
	u32 nr_win = pol->nr_windows + !!q->data.size;
	u32 i, limit = np_med_max_nlb(q);

	/* np_med_validate() checked the rest: the namespace's limit is known now */
	if (pol->max_nlb > limit)
		return -EINVAL;

	m->extents = kvcalloc(nr_ext, sizeof(*m->extents), GFP_KERNEL);
	m->windows = kcalloc(max_t(u32, nr_win, 1), sizeof(*m->windows),
			     GFP_KERNEL);
	if (!m->extents || !m->windows)
		return -ENOMEM;

	if (!pol->nr_extents) {
		m->extents[0].start = 0;
		m->extents[0].len = q->ns_size;
	}
	/* empty or wrapping ranges are np_ranges_prepare()'s to refuse */
	for (i = 0; i < pol->nr_extents; i++) {
		const struct nvme_peer_extent *e = &pol->extents[i];

		if (e->slba >= q->ns_size || e->nlb > q->ns_size - e->slba)
			return -EINVAL;
		m->extents[i].start = e->slba;
		m->extents[i].len = e->nlb;
	}
	for (i = 0; i < pol->nr_windows; i++) {
		const struct nvme_peer_data_window *w = &pol->windows[i];

		m->windows[i].start = w->addr;
		m->windows[i].len = w->len;
	}
	if (q->data.size) {
		m->windows[i].start = NVME_PEER_PRP_BASE;
		m->windows[i].len = q->data.size;
	}

	p->nsid = q->params.nsid;
	p->lba_shift = q->lba_shift;
	p->ns_size = q->ns_size;
	p->opcodes[0] = pol->opcodes ? pol->opcodes : NVME_PEER_OPCODE_READ;
	p->max_nlb = pol->max_nlb ? pol->max_nlb : limit;
	if (np_ranges_prepare(m->extents, &nr_ext) ||
	    np_ranges_prepare(m->windows, &nr_win))
		return -EINVAL;
	p->extents = m->extents;
	p->nr_extents = nr_ext;
	p->windows = m->windows;
	p->nr_windows = nr_win;
	return np_policy_init(p);
}

/* ---- memory ------------------------------------------------------------- */

static int np_med_coherent(struct nvme_peer_queue *q, struct np_mem *m,
			   size_t size)
{
	memset(m, 0, sizeof(*m));
	m->where = NVME_PEER_PLACE_HOST;
	m->size = size;
	m->vaddr = dma_alloc_coherent(&q->pctrl->info.pdev->dev, size,
				      &m->ctrl_dma, GFP_KERNEL);
	if (!m->vaddr)
		return -ENOMEM;
	m->coherent = true;
	return 0;
}

/**
 * np_med_alloc() - set up mediated mode for a reservation
 * @q: the reservation, with its shadow SQ, CQ and data buffer allocated
 *
 * Checks and copies @q->params.policy (the caller's arrays are not kept),
 * and allocates the hardware SQ and CQ, one PRP list page per command slot
 * (only the controller can reach those) and the shadow doorbell page.
 *
 * Return: 0; -EINVAL for a policy that does not fit the namespace or the
 * limits (see Documentation/nvme/peer-queues.rst); -ENOMEM; -EXDEV when
 * the doorbell page's placement is not reachable.
 */
int np_med_alloc(struct nvme_peer_queue *q)
{
	u32 depth = q->params.depth;
	struct np_med *m;
	int ret;

	m = kzalloc(sizeof(*m), GFP_KERNEL);
	if (!m)
		return -ENOMEM;
	q->med = m;
	m->q = q;
	m->depth = depth;
	INIT_LIST_HEAD(&m->node);
	ret = np_med_policy(q, m, &q->params.policy);
	q->params.policy.extents = NULL;
	q->params.policy.windows = NULL;
	if (ret)
		return ret;

	m->slots = kcalloc(depth, sizeof(*m->slots), GFP_KERNEL);
	m->free = kcalloc(depth, sizeof(*m->free), GFP_KERNEL);
	if (!m->slots || !m->free)
		return -ENOMEM;		/* np_med_start() fills them */
	m->mp.depth = depth;
	m->mp.nr_free = depth - 1;	/* nothing in flight: np_med_idle() */
	m->poller_id = -1;

	ret = np_med_coherent(q, &q->hsq, depth * sizeof(struct nvme_command));
	if (!ret)
		ret = np_med_coherent(q, &q->hcq,
				      depth * sizeof(struct nvme_completion));
	if (!ret)
		ret = np_med_coherent(q, &q->prp,
				      (size_t)depth * NP_GUARD_PAGE_SIZE);
	if (!ret)
		ret = np_mem_alloc(q, &q->sdb, q->params.sq_placement == NVME_PEER_PLACE_DMABUF ?
				   NVME_PEER_PLACE_HOST : q->params.sq_placement, PAGE_SIZE);
	if (ret)
		return ret;
	q->sq_db_addr = q->sdb.peer_dma + NP_MP_SDB_SQ;
	q->cq_db_addr = q->sdb.peer_dma + NP_MP_SDB_CQ;
	return 0;
}

/**
 * np_med_free() - free what np_med_alloc() set up
 * @q: the reservation; the thread no longer serves it (np_med_stop())
 *	and its hardware queues are gone
 *
 * @q->med goes first, under np_med_lock: a fence that reads the hardware
 * CQ through it (np_med_idle()) with only a reference to @q then sees no
 * mediation (nothing in flight: the hardware queues are gone) instead of
 * freed memory.
 */
void np_med_free(struct nvme_peer_queue *q)
{
	struct np_med *m = np_med_take(q);

	np_inject_med_free();
	np_mem_free(q, &q->sdb);
	np_mem_free(q, &q->prp);
	np_mem_free(q, &q->hcq);
	np_mem_free(q, &q->hsq);
	if (!m)
		return;
	kfree(m->free);
	kfree(m->slots);
	kfree(m->windows);
	kvfree(m->extents);
	kfree(m);
}

/* ---- sysfs -------------------------------------------------------------- */

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *a,
			  char *buf)
{
	struct np_med *m = np_queue_of(kobj)->med;

	return sysfs_emit(buf,
			  "forwarded %llu\ncompleted %llu\nrejected %llu\nbad_doorbells %llu\n",
			  READ_ONCE(m->mp.forwarded), READ_ONCE(m->mp.completed),
			  READ_ONCE(m->mp.rejected),
			  READ_ONCE(m->mp.bad_doorbells));
}

/* "none", or the reason, NVMe status, opcode and cid of the last rejection */
static ssize_t last_reject_show(struct kobject *kobj,
				struct kobj_attribute *a, char *buf)
{
	struct np_mp *mp = &np_queue_of(kobj)->med->mp;
	u8 v;

	if (!READ_ONCE(mp->rejected))
		return sysfs_emit(buf, "none\n");
	v = READ_ONCE(mp->last_verdict);
	return sysfs_emit(buf, "%s status=%#x opcode=%#x cid=%u\n",
			  np_verdict_name(v),
			  mp->last_status, mp->last_opcode, mp->last_cid);
}

/* The namespace, opcodes, NLB limit, extents and windows (as fit a page). */
static ssize_t policy_show(struct kobject *kobj, struct kobj_attribute *a,
			   char *buf)
{
	const struct np_policy *p = &np_queue_of(kobj)->med->policy;
	ssize_t len;
	u32 i;

	len = sysfs_emit(buf, "nsid %u\nopcodes %#llx\nmax_nlb %u\nextents %u\n",
			 p->nsid, p->opcodes[0], p->max_nlb, p->nr_extents);
	for (i = 0; i < p->nr_extents && len < PAGE_SIZE - 128; i++)
		len += sysfs_emit_at(buf, len, "extent %llu+%llu\n",
				     p->extents[i].start, p->extents[i].len);
	/*
	 * The data buffer as the peer names it; a driver's own windows are
	 * bus or physical addresses, which this file does not show either.
	 */
	len += sysfs_emit_at(buf, len, "windows %u\n", p->nr_windows);
	for (i = 0; i < p->nr_windows && len < PAGE_SIZE - 64; i++) {
		if (p->windows[i].start == NVME_PEER_PRP_BASE)
			len += sysfs_emit_at(buf, len, "window %#llx+%#llx\n",
					     p->windows[i].start,
					     p->windows[i].len);
		else
			len += sysfs_emit_at(buf, len, "window driver+%#llx\n",
					     p->windows[i].len);
	}
	return len;
}

/* The poller serving the queue (0 is "nvme-peer-med"), or -1 when none. */
static ssize_t poller_show(struct kobject *kobj, struct kobj_attribute *a,
			   char *buf)
{
	return sysfs_emit(buf, "%d\n",
			  READ_ONCE(np_queue_of(kobj)->med->poller_id));
}

static struct kobj_attribute np_med_attr_stats = __ATTR_RO(stats);
static struct kobj_attribute np_med_attr_poller = __ATTR_RO(poller);
static struct kobj_attribute np_med_attr_last_reject = __ATTR_RO(last_reject);
/* root's: a bound file's extents are its block map (FIBMAP: CAP_SYS_RAWIO) */
static struct kobj_attribute np_med_attr_policy = __ATTR_RO_MODE(policy, 0400);

static struct attribute *np_med_attrs[] = {
	&np_med_attr_stats.attr, &np_med_attr_last_reject.attr,
	&np_med_attr_policy.attr, &np_med_attr_poller.attr,
	NULL,
};

/* Shown for mediated queues only: a direct queue has no policy. */
static umode_t np_med_attr_visible(struct kobject *kobj, struct attribute *a,
				   int n)
{
	return np_mediated(np_queue_of(kobj)) ? a->mode : 0;
}

/*
 * qN/stats, qN/last_reject, qN/policy and qN/poller; their memory lives as
 * qN/ does
 */
const struct attribute_group np_med_attr_group = {
	.attrs = np_med_attrs,
	.is_visible = np_med_attr_visible,
};
