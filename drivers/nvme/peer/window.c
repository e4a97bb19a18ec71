// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: read-only windows.  A window shows a namespace's bytes (or a
 * bound file's blocks) through a BAR that mirrors the namespace: a peer,
 * or a process through mmap(), reads them with loads instead of commands.
 *
 * No NVMe standard says "this BAR shows namespace N", so the provider is
 * declared by the administrator (configfs nvme-peer/nvmeX/pmr_nsid) and
 * never guessed: today the controller's Persistent Memory Region, which
 * nvme-peer enables (PMRCTL.EN) and promises shows namespace N's byte
 * (LBA x LBA size) at that offset, read only, coherent with completed
 * writes.  See "Read-only windows" in Documentation/nvme/peer-queues.rst.
 *
 * A window is revoked as a queue is, by every cause that makes its bytes
 * stale or its BAR unusable: a reset, the controller going down or away,
 * unload, a namespace change (Format...), the provider withdrawn, the peer
 * leaving, a layout break of a bound file.  Revocation calls the owner
 * back once (a process's mappings are zapped there), then unmaps the
 * peer's bus addresses; nvme_peer_window_put() waits for a callback in
 * flight and never lets one run after it returns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/kref.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/overflow.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/sort.h>

#include "nvme-peer.h"

/* CAP.PMRS; PMRCAP.RDS and .BIR; PMRCTL.EN; PMRSTS.NRDY */
#define NP_CAP_PMRS(cap)	(((cap) >> 56) & 0x1)
#define NP_PMRCAP_RDS		BIT(3)
#define NP_PMRCAP_BIR(pmrcap)	(((pmrcap) >> 5) & 0x7)
#define NP_PMRCTL_EN		BIT(0)
#define NP_PMRSTS_NRDY		BIT(8)
/* how long PMRSTS.NRDY may stay set after PMRCTL.EN */
#define NP_PMR_READY_MS		2000

/* One window.  Lifetime: @ref (the owner's, a revocation's, a break's). */
struct nvme_peer_window {
	struct kref ref;
	struct nvme_peer_ctrl *pctrl;	/* reference held */
	struct list_head node;		/* on pctrl->windows, state_lock */
	struct list_head revoke_node;	/* a revocation's own list */
	u32 nsid;
	u32 lba_shift;
	u64 view_size;
	phys_addr_t phys;		/* the provider's BAR */
	struct np_win_seg *segs;	/* by view_off, disjoint (immutable) */
	u32 nr_segs;
	struct pci_dev *peer;		/* reference held, or NULL: the CPU */
	dma_addr_t *peer_dma;		/* each segment's, for @peer */
	enum nvme_peer_guarantee guarantee;
	struct np_bind *bind;		/* a file-bound window's, held */

	/* an administrator's (configfs), for a process to attach by name */
	char name[NVME_PEER_NAME_MAX];
	bool attachable;
	kuid_t uid;			/* INVALID_UID: any user */
	kgid_t gid;			/* INVALID_GID: any group */

	/* under pctrl->state_lock */
	nvme_peer_window_revoke_fn revoke;	/* and @priv: the owner's or */
	void *priv;				/* the attached process's */
	bool attached;
	bool revoked;			/* whoever sets it unmaps the peer */
	bool ns_fence;			/* a namespace change waits for it */
	enum nvme_peer_reason reason;
};

/* ---- arithmetic: extents to whole pages of the provider ------------------ */

static int np_win_seg_cmp(const void *a, const void *b)
{
	const struct np_win_seg *x = a, *y = b;

	return x->view_off < y->view_off ? -1 : x->view_off > y->view_off;
}

/* Sort @segs by view offset and merge those that overlap or touch. */
static u32 np_win_merge(struct np_win_seg *segs, u32 n)
{
	u32 i, out = 0;

	sort(segs, n, sizeof(*segs), np_win_seg_cmp, NULL);
	for (i = 0; i < n; i++) {
		struct np_win_seg *last = out ? &segs[out - 1] : NULL;

		if (last && segs[i].view_off <= last->view_off + last->len &&
		    segs[i].view_off - last->view_off ==
		    segs[i].pmr_off - last->pmr_off) {
			last->len = max(last->len, segs[i].view_off +
					segs[i].len - last->view_off);
			continue;
		}
		segs[out++] = segs[i];
	}
	return out;
}

/*
 * Shrink merged byte ranges to the whole pages inside them, the safe
 * direction: a page partly outside is never shown, nor one whose view
 * and provider offsets disagree on the page grid.  Empty ones go.
 */
static u32 np_win_pages(struct np_win_seg *segs, u32 n)
{
	u64 s, e;
	u32 i, out = 0;

	for (i = 0; i < n; i++) {
		if ((segs[i].view_off ^ segs[i].pmr_off) & ~PAGE_MASK)
			continue;
		s = round_up(segs[i].view_off, PAGE_SIZE);
		e = round_down(segs[i].view_off + segs[i].len, PAGE_SIZE);
		if (s < segs[i].view_off || e <= s)
			continue;
		segs[out].pmr_off = segs[i].pmr_off + (s - segs[i].view_off);
		segs[out].view_off = s;
		segs[out].len = e - s;
		out++;
	}
	return out;
}

/**
 * np_win_segs_ns() - a namespace window's pieces
 * @ext: LBA ranges, or NULL with @n 0 for the whole namespace
 * @n: number of @ext
 * @lba_shift: log2 of the LBA size
 * @nsze: the namespace's size in LBAs
 * @segs: room for max(@n, 1) pieces
 * @nr: the pieces made: sorted, merged, whole pages
 *
 * The view is the namespace: view offset = provider offset = LBA x LBA
 * size.  The extents are merged first; pages only partly inside their
 * union are left out.
 *
 * Return: 0; -EINVAL for an empty extent, one past the namespace or
 * wrapping, or when no whole page is left.
 */
int np_win_segs_ns(const struct nvme_peer_extent *ext, u32 n, u32 lba_shift,
		   u64 nsze, struct np_win_seg *segs, u32 *nr)
{
	struct nvme_peer_extent all = { .slba = 0, .nlb = nsze };
	u64 start, end;
	u32 i;

	if (!n) {
		ext = &all;
		n = 1;
	}
	for (i = 0; i < n; i++) {
		if (!ext[i].nlb || ext[i].slba > nsze ||
		    ext[i].nlb > nsze - ext[i].slba)
			return -EINVAL;
		if (check_shl_overflow(ext[i].slba, lba_shift, &start) ||
		    check_shl_overflow(ext[i].slba + ext[i].nlb, lba_shift, &end))
			return -EINVAL;
		segs[i].view_off = start;
		segs[i].pmr_off = start;
		segs[i].len = end - start;
	}
	*nr = np_win_pages(segs, np_win_merge(segs, n));
	return *nr ? 0 : -EINVAL;
}

/**
 * np_win_segs_file() - a file window's pieces
 * @map: the bound range's written blocks, in file order (file.c; @nlb in
 *	LBAs)
 * @n: number of @map
 * @range_off: the range's first byte in the file: view offset 0
 * @lba_shift: log2 of the LBA size
 * @segs: room for @n pieces
 * @nr: the pieces made
 *
 * The view is the file range; each piece shows a run of blocks at its
 * LBAs' provider offset.  Runs that follow each other both in the file
 * and on the media are merged first; a page is shown only when it lies
 * wholly in one run and the file offset and the namespace offset agree
 * on where it starts.
 *
 * Return: 0; -EINVAL for a map before the range or wrapping, or with no
 * whole page.
 */
int np_win_segs_file(const struct nvme_peer_file_extent *map, u32 n,
		     u64 range_off, u32 lba_shift, struct np_win_seg *segs,
		     u32 *nr)
{
	u64 pmr, len;
	u32 i;

	for (i = 0; i < n; i++) {
		if (map[i].off < range_off ||
		    check_shl_overflow(map[i].slba, lba_shift, &pmr) ||
		    check_shl_overflow(map[i].nlb, lba_shift, &len) ||
		    pmr + len < pmr || map[i].off - range_off + len < len)
			return -EINVAL;
		segs[i].view_off = map[i].off - range_off;
		segs[i].pmr_off = pmr;
		segs[i].len = len;
	}
	*nr = np_win_pages(segs, np_win_merge(segs, n));
	return *nr ? 0 : -EINVAL;
}

/**
 * np_win_find() - the piece holding a view offset
 * @segs: sorted, disjoint pieces
 * @nr: their number
 * @view_off: a byte of the view
 *
 * Return: the piece, or NULL when no piece shows @view_off.
 */
const struct np_win_seg *np_win_find(const struct np_win_seg *segs, u32 nr,
				     u64 view_off)
{
	u32 lo = 0, hi = nr;

	while (lo < hi) {
		u32 mid = lo + (hi - lo) / 2;

		if (view_off < segs[mid].view_off)
			hi = mid;
		else if (view_off - segs[mid].view_off >= segs[mid].len)
			lo = mid + 1;
		else
			return &segs[mid];
	}
	return NULL;
}

/* ---- the provider: the controller's PMR -------------------------------- */

/* Whether a namespace of @nsze LBAs of 2^@lba_shift bytes fits @bar_len */
static int np_win_fits(u64 nsze, u32 lba_shift, u64 bar_len)
{
	u64 bytes;

	if (!nsze || check_shl_overflow(nsze, lba_shift, &bytes) ||
	    bytes > bar_len)
		return -ENOSPC;
	return 0;
}

static int np_win_pmr_enable(struct nvme_peer_ctrl *pctrl, bool on)
{
	unsigned long end = jiffies + msecs_to_jiffies(NP_PMR_READY_MS);
	u32 sts;
	int ret;

	ret = np_ctrl_reg_write32(pctrl, NVME_REG_PMRCTL, on ? NP_PMRCTL_EN : 0);
	while (!ret && on) {
		ret = np_ctrl_reg_read32(pctrl, NVME_REG_PMRSTS, &sts);
		if (ret || !(sts & NP_PMRSTS_NRDY))
			break;
		if (time_after(jiffies, end))
			return -ETIMEDOUT;
		msleep(20);
	}
	return ret ? -ENODEV : 0;
}

/*
 * Enable the PMR.  A reset disables it again, and the controller is live
 * before np_win_live_work() enables it: windows are handed out only
 * while @win_gen is the controller's disable generation, the one in
 * which it was enabled.
 */
static int np_win_pmr_start(struct nvme_peer_ctrl *pctrl)
{
	unsigned int gen;
	int ret;

	lockdep_assert_held(&pctrl->lock);
	spin_lock(&pctrl->state_lock);
	gen = pctrl->disable_gen;
	spin_unlock(&pctrl->state_lock);
	ret = np_win_pmr_enable(pctrl, true);
	if (ret)
		return ret;
	spin_lock(&pctrl->state_lock);
	pctrl->win_gen = gen;
	spin_unlock(&pctrl->state_lock);
	return 0;
}

/* Where the PMR is, if it can show @nsid whole: -EOPNOTSUPP, -ENXIO... */
static int np_win_pmr_find(struct nvme_peer_ctrl *pctrl, u32 nsid,
			   phys_addr_t *phys, u64 *len)
{
	struct pci_dev *pdev = pctrl->info.pdev;
	u32 pmrcap, lba_shift;
	u64 nsze;
	int bir, ret;

	lockdep_assert_held(&pctrl->lock);
	if (!NP_CAP_PMRS(np_ctrl_cap(pctrl)))
		return -EOPNOTSUPP;
	if (np_ctrl_reg_read32(pctrl, NVME_REG_PMRCAP, &pmrcap))
		return -ENODEV;
	if (!(pmrcap & NP_PMRCAP_RDS))
		return -EOPNOTSUPP;
	bir = NP_PMRCAP_BIR(pmrcap);
	if (bir < 2 || bir > 5 || !pci_resource_len(pdev, bir) ||
	    !(pci_resource_flags(pdev, bir) & IORESOURCE_MEM))
		return -ENXIO;
	ret = np_ns_geometry(pctrl, nsid, NULL, &lba_shift, &nsze);
	if (!ret)
		ret = np_win_fits(nsze, lba_shift, pci_resource_len(pdev, bir));
	if (ret)
		return ret;
	*phys = pci_resource_start(pdev, bir);
	*len = pci_resource_len(pdev, bir);
	return 0;
}

/**
 * np_win_provider_set() - the administrator declares (or withdraws) a provider
 * @pctrl: the controller
 * @nsid: the namespace its PMR shows, or 0: none
 *
 * Withdrawing, or declaring another namespace, revokes every window of
 * @pctrl (%NVME_PEER_REASON_ADMIN) first; withdrawing disables the PMR.
 * A refused declaration leaves the one before (and its windows) as it
 * was.
 *
 * Return: 0; -ENODEV (removed), -EAGAIN (not live), -EOPNOTSUPP (no PMR,
 * or one that cannot be read), -ENXIO (its BAR is not assigned), -ENOENT
 * (no such namespace), -ENOSPC (the namespace is larger than the BAR),
 * -ETIMEDOUT (the PMR did not get ready), an admin command's error.
 */
int np_win_provider_set(struct nvme_peer_ctrl *pctrl, u32 nsid)
{
	phys_addr_t phys;
	u64 len;
	int ret = 0;

	mutex_lock(&pctrl->lock);
	spin_lock(&pctrl->state_lock);
	if (pctrl->removed)
		ret = -ENODEV;
	else if (nsid && !pctrl->live)
		ret = -EAGAIN;
	spin_unlock(&pctrl->state_lock);
	if (ret || nsid == pctrl->win_nsid)
		goto out_unlock;
	/* a refused declaration leaves the one before as it was */
	if (nsid) {
		ret = np_win_pmr_find(pctrl, nsid, &phys, &len);
		if (ret)
			goto out_unlock;
		ret = np_win_pmr_start(pctrl);
		if (ret) {
			if (!pctrl->win_nsid)
				np_win_pmr_enable(pctrl, false);
			goto out_unlock;
		}
	}
	if (pctrl->win_nsid)
		np_win_revoke(pctrl, 0, NULL, NVME_PEER_REASON_ADMIN);
	pctrl->win_nsid = nsid;
	if (!nsid) {
		np_win_pmr_enable(pctrl, false);
		goto out_unlock;
	}
	pctrl->win_phys = phys;
	pctrl->win_len = len;
	dev_info(pctrl->dev, "nvme-peer: PMR (%llu MiB) shows namespace %u to windows\n",
		 len >> 20, nsid);
out_unlock:
	mutex_unlock(&pctrl->lock);
	return ret;
}

/**
 * np_win_provider() - the namespace @pctrl's provider shows, 0 for none
 * @pctrl: the controller
 *
 * Return: the namespace.
 */
u32 np_win_provider(struct nvme_peer_ctrl *pctrl)
{
	u32 nsid;

	mutex_lock(&pctrl->lock);
	nsid = pctrl->win_nsid;
	mutex_unlock(&pctrl->lock);
	return nsid;
}

/* After a reset: the controller came back with its PMR disabled. */
static void np_win_live_work(struct work_struct *work)
{
	struct nvme_peer_ctrl *pctrl = container_of(work, struct nvme_peer_ctrl,
						    win_work);
	int ret;

	np_inject_pmr_enable();
	mutex_lock(&pctrl->lock);
	if (pctrl->win_nsid && np_ctrl_is_live(pctrl)) {
		ret = np_win_pmr_start(pctrl);
		if (ret) {
			dev_warn(pctrl->dev, "nvme-peer: PMR not ready after the reset (%d): no windows\n",
				 ret);
			pctrl->win_nsid = 0;
		}
	}
	mutex_unlock(&pctrl->lock);
	nvme_peer_ctrl_put(pctrl);
}

/**
 * np_win_ctrl_init() - a new controller has no provider and no window
 * @pctrl: the controller
 */
void np_win_ctrl_init(struct nvme_peer_ctrl *pctrl)
{
	INIT_LIST_HEAD(&pctrl->windows);
	INIT_WORK(&pctrl->win_work, np_win_live_work);
}

/**
 * np_win_ctrl_live() - the controller is live again (LIVE event)
 * @pctrl: the controller
 *
 * Its provider is enabled again from a work item: the event must not wait
 * for pctrl->lock, held by whoever waits for the event.
 */
void np_win_ctrl_live(struct nvme_peer_ctrl *pctrl)
{
	kref_get(&pctrl->ref);
	if (!queue_work(np_wq, &pctrl->win_work))
		nvme_peer_ctrl_put(pctrl);
}

/**
 * np_win_ctrl_gone() - the controller is removed, or nvme-peer unloads
 * @pctrl: the controller, already marked removed
 * @reason: %NVME_PEER_REASON_REMOVED or %NVME_PEER_REASON_UNLOAD
 *
 * Revokes every window.  At unload the controller stays: its PMR is
 * disabled again.  Called without pctrl->lock.
 */
void np_win_ctrl_gone(struct nvme_peer_ctrl *pctrl,
		      enum nvme_peer_reason reason)
{
	if (cancel_work_sync(&pctrl->win_work))
		nvme_peer_ctrl_put(pctrl);	/* the work's reference */
	np_win_revoke(pctrl, 0, NULL, reason);
	mutex_lock(&pctrl->lock);
	if (pctrl->win_nsid && reason == NVME_PEER_REASON_UNLOAD)
		np_win_pmr_enable(pctrl, false);
	pctrl->win_nsid = 0;
	mutex_unlock(&pctrl->lock);
}

/* ---- revocation ------------------------------------------------------- */

static void np_win_release(struct kref *ref)
{
	struct nvme_peer_window *w = container_of(ref, struct nvme_peer_window,
						  ref);

	np_bind_unref(w->bind);
	kvfree(w->segs);
	kvfree(w->peer_dma);
	pci_dev_put(w->peer);
	nvme_peer_ctrl_put(w->pctrl);
	kfree(w);
}

/**
 * np_window_hold() - another reference to a window
 * @w: the window
 *
 * Return: @w.
 */
struct nvme_peer_window *np_window_hold(struct nvme_peer_window *w)
{
	kref_get(&w->ref);
	return w;
}

/**
 * np_window_free() - drop a reference from np_window_hold()
 * @w: the window
 */
void np_window_free(struct nvme_peer_window *w)
{
	kref_put(&w->ref, np_win_release);
}

/* The peer's bus addresses go: whoever set @w->revoked calls this once. */
static void np_win_unmap_peer(struct nvme_peer_window *w)
{
	u32 i;

	if (!w->peer_dma)
		return;
	for (i = 0; i < w->nr_segs; i++)
		dma_unmap_resource(&w->peer->dev, w->peer_dma[i],
				   w->segs[i].len, DMA_TO_DEVICE, 0);
}

/* Mark @w revoked under state_lock: true if this call did. */
static bool np_win_mark(struct nvme_peer_window *w,
			enum nvme_peer_reason reason)
{
	lockdep_assert_held(&w->pctrl->state_lock);
	if (w->revoked)
		return false;
	w->revoked = true;
	w->reason = reason;
	return true;
}

/* Tell the owner, then take the peer's addresses away; cb_sem held. */
static void np_win_tell(struct nvme_peer_window *w,
			enum nvme_peer_reason reason)
{
	nvme_peer_window_revoke_fn revoke;
	void *priv;

	lockdep_assert_held_read(&w->pctrl->cb_sem);
	/* an attach or a detach changes them under state_lock */
	spin_lock(&w->pctrl->state_lock);
	revoke = w->revoke;
	priv = w->priv;
	spin_unlock(&w->pctrl->state_lock);
	if (revoke)
		revoke(w, reason, priv);
	np_win_unmap_peer(w);
}

/* Which windows a revocation takes: a namespace, a peer, or the marked */
struct np_win_which {
	u32 nsid;			/* 0: any */
	struct pci_dev *peer;		/* NULL: any */
	bool ns_fence;			/* only those np_win_ns_mark() marked */
};

static bool np_win_hit(const struct nvme_peer_window *w,
		       const struct np_win_which *which)
{
	if (which->ns_fence)
		return w->ns_fence;
	return (!which->nsid || w->nsid == which->nsid) &&
	       (!which->peer || w->peer == which->peer);
}

/* Revoke every window @which takes that is not revoked yet. */
static void np_win_revoke_which(struct nvme_peer_ctrl *pctrl,
				const struct np_win_which *which,
				enum nvme_peer_reason reason)
{
	struct nvme_peer_window *w, *next;
	LIST_HEAD(todo);

	down_read(&pctrl->cb_sem);
	spin_lock(&pctrl->state_lock);
	list_for_each_entry(w, &pctrl->windows, node) {
		if (np_win_hit(w, which) && np_win_mark(w, reason)) {
			kref_get(&w->ref);
			list_add_tail(&w->revoke_node, &todo);
		}
	}
	spin_unlock(&pctrl->state_lock);
	list_for_each_entry_safe(w, next, &todo, revoke_node) {
		list_del(&w->revoke_node);
		np_win_tell(w, reason);
		kref_put(&w->ref, np_win_release);
	}
	up_read(&pctrl->cb_sem);
}

/**
 * np_win_revoke() - revoke windows of a controller
 * @pctrl: the controller
 * @nsid: only those of this namespace, or 0 for all
 * @peer: only those this device reads, or NULL for all
 * @reason: why
 *
 * Each window is revoked once: its owner is called back, its peer's
 * mappings go.  Returns when that is done for every window it revoked.
 * Context: may sleep; the DOWN event (the NVMe timeout handler) calls it.
 */
void np_win_revoke(struct nvme_peer_ctrl *pctrl, u32 nsid,
		   struct pci_dev *peer, enum nvme_peer_reason reason)
{
	struct np_win_which which = { .nsid = nsid, .peer = peer };

	np_win_revoke_which(pctrl, &which, reason);
}

/**
 * np_win_revoke_one() - revoke one window (a layout break of its file)
 * @w: the window, a reference held
 * @reason: why
 */
void np_win_revoke_one(struct nvme_peer_window *w,
		       enum nvme_peer_reason reason)
{
	struct nvme_peer_ctrl *pctrl = w->pctrl;
	bool mine;

	down_read(&pctrl->cb_sem);
	spin_lock(&pctrl->state_lock);
	mine = np_win_mark(w, reason);
	spin_unlock(&pctrl->state_lock);
	if (mine)
		np_win_tell(w, reason);
	up_read(&pctrl->cb_sem);
}

/**
 * np_win_ns_mark() - mark the windows a namespace change must revoke first
 * @pctrl: the controller, its state_lock held
 * @nsid: the namespace the admin command changes
 * @any: it may change any namespace
 *
 * Return: true when none is left: the command may run.
 */
bool np_win_ns_mark(struct nvme_peer_ctrl *pctrl, u32 nsid, bool any)
{
	struct nvme_peer_window *w;
	bool done = true;

	lockdep_assert_held(&pctrl->state_lock);
	list_for_each_entry(w, &pctrl->windows, node) {
		if (w->revoked || (!any && w->nsid != nsid))
			continue;
		w->ns_fence = true;
		done = false;
	}
	return done;
}

/**
 * np_win_ns_fence() - revoke the windows np_win_ns_mark() marked
 * @pctrl: the controller
 *
 * From the namespace fence's work.
 */
void np_win_ns_fence(struct nvme_peer_ctrl *pctrl)
{
	struct np_win_which which = { .ns_fence = true };

	np_win_revoke_which(pctrl, &which, NVME_PEER_REASON_NAMESPACE);
}

/* ---- getting a window ------------------------------------------------- */

/* What no controller needs to be asked about: -EINVAL, -EPERM */
static int np_win_check(const struct nvme_peer_window_params *p,
			enum np_owner owner)
{
	if (!p->nsid || p->nr_extents > NVME_PEER_MAX_EXTENTS ||
	    !p->extents != !p->nr_extents)
		return -EINVAL;
	if (p->file.file && (p->nr_extents ||
			     p->file.access != NVME_PEER_ACCESS_READ))
		return -EINVAL;
	/* a namespace's raw bytes: what reading its block device would show */
	if (!p->file.file && owner == NP_OWNER_PROCESS &&
	    !capable(CAP_SYS_ADMIN))
		return -EPERM;
	return 0;
}

/* @w's pieces, from its file's map or its extents */
static int np_win_build(struct nvme_peer_window *w,
			const struct nvme_peer_window_params *p, u64 nsze)
{
	struct nvme_peer_policy pol = { };
	struct np_bind_desc d;
	u32 room;
	int ret;

	if (w->bind) {
		ret = np_bind_policy(w->bind, w->lba_shift, nsze, &pol);
		if (ret)
			return ret;
		np_bind_describe(w->bind, &d);
		room = d.nr_map;
		w->view_size = d.len;
	} else {
		room = max(p->nr_extents, 1U);
		w->view_size = nsze << w->lba_shift;
	}
	w->segs = kvcalloc(room, sizeof(*w->segs), GFP_KERNEL);
	if (!w->segs)
		return -ENOMEM;
	if (w->bind)
		return np_win_segs_file(d.map, d.nr_map, d.off, w->lba_shift,
					w->segs, &w->nr_segs);
	return np_win_segs_ns(p->extents, p->nr_extents, w->lba_shift, nsze,
			      w->segs, &w->nr_segs);
}

/* Bus addresses of every piece for the peer: read only (DMA_TO_DEVICE). */
static int np_win_map_peer(struct nvme_peer_window *w)
{
	struct device *dev = &w->peer->dev;
	u32 i;

	w->peer_dma = kvcalloc(w->nr_segs, sizeof(*w->peer_dma), GFP_KERNEL);
	if (!w->peer_dma)
		return -ENOMEM;
	for (i = 0; i < w->nr_segs; i++) {
		w->peer_dma[i] = dma_map_resource(dev, w->phys +
						  w->segs[i].pmr_off,
						  w->segs[i].len,
						  DMA_TO_DEVICE, 0);
		if (dma_mapping_error(dev, w->peer_dma[i]))
			goto out_unmap;
	}
	return 0;
out_unmap:
	while (i--)
		dma_unmap_resource(dev, w->peer_dma[i], w->segs[i].len,
				   DMA_TO_DEVICE, 0);
	kvfree(w->peer_dma);
	w->peer_dma = NULL;
	return -EIO;
}

/* Build @w on @pctrl, its lock held, and publish it. */
static int np_win_make(struct nvme_peer_window *w,
		       const struct nvme_peer_window_params *p)
{
	struct nvme_peer_ctrl *pctrl = w->pctrl;
	bool mine;
	u64 nsze;
	int ret;

	lockdep_assert_held(&pctrl->lock);
	if (!pctrl->win_nsid || pctrl->win_nsid != p->nsid)
		return -ENXIO;
	ret = np_ns_geometry(pctrl, p->nsid, w->bind, &w->lba_shift, &nsze);
	if (ret)
		return ret;
	/* the namespace may have grown since the declaration */
	ret = np_win_fits(nsze, w->lba_shift, pctrl->win_len);
	if (ret)
		return ret;
	ret = np_win_build(w, p, nsze);
	if (ret)
		return ret;
	w->phys = pctrl->win_phys;
	if (w->peer) {
		ret = np_win_map_peer(w);
		if (ret)
			return ret;
	}
	w->guarantee = np_peer_guarantee(w->peer, pctrl->info.pdev);

	spin_lock(&pctrl->state_lock);
	if (pctrl->removed)
		ret = -ENODEV;
	else if (!pctrl->live || pctrl->win_gen != pctrl->disable_gen)
		ret = -EAGAIN;	/* the PMR not enabled again yet */
	if (!ret)
		list_add_tail(&w->node, &pctrl->windows);
	spin_unlock(&pctrl->state_lock);
	if (ret) {
		np_win_unmap_peer(w);	/* never published: nobody else did */
		return ret;
	}
	/* a break from now on revokes it; one before means a changed layout */
	if (w->bind && np_bind_attach_window(w->bind, w)) {
		/* published meanwhile: a revocation may have told the owner */
		spin_lock(&pctrl->state_lock);
		mine = np_win_mark(w, NVME_PEER_REASON_LAYOUT);
		list_del_init(&w->node);
		spin_unlock(&pctrl->state_lock);
		np_wait_callbacks(pctrl);
		if (mine)
			np_win_unmap_peer(w);
		return -EAGAIN;
	}
	return 0;
}

/**
 * np_win_get() - a window, for a door (cdev.c) or a driver
 * @pctrl: the provider's controller
 * @p: what to show
 * @owner: who asks (a process needs CAP_SYS_ADMIN for a namespace window)
 * @prov: for an administrator's window, its name and who may attach; or
 *	NULL
 *
 * Return: the window, or an ERR_PTR: -EINVAL (see
 * &struct nvme_peer_window_params), -EPERM, -ENXIO (no provider shows
 * @p->nsid), -ENOSPC (the namespace outgrew the provider's BAR), -EAGAIN
 * (not live, the PMR not enabled again after a reset, a namespace or
 * layout change in progress), -ENODEV (removed), -EIO (the peer's
 * mapping failed), -ENOMEM, and the file binding's errors
 * (np_bind_file()).
 */
struct nvme_peer_window *np_win_get(struct nvme_peer_ctrl *pctrl,
				    const struct nvme_peer_window_params *p,
				    enum np_owner owner,
				    const struct np_provision *prov)
{
	struct nvme_peer_window *w;
	int ret;

	ret = np_win_check(p, owner);
	if (ret)
		return ERR_PTR(ret);
	w = kzalloc(sizeof(*w), GFP_KERNEL);
	if (!w)
		return ERR_PTR(-ENOMEM);
	kref_init(&w->ref);
	INIT_LIST_HEAD(&w->node);
	kref_get(&pctrl->ref);
	w->pctrl = pctrl;
	w->nsid = p->nsid;
	w->peer = pci_dev_get(p->peer);
	w->revoke = p->revoke;
	w->priv = p->priv;
	w->uid = INVALID_UID;
	w->gid = INVALID_GID;
	if (prov) {
		strscpy(w->name, prov->name, sizeof(w->name));
		w->attachable = prov->attachable;
		w->uid = prov->uid;
		w->gid = prov->gid;
	}
	/* mapping the file writes back its dirty pages: before the lock */
	if (p->file.file) {
		ret = np_bind_file(&p->file, &w->bind);
		if (ret)
			goto out_free;
		/* a QUERY of an attached process may outlive the owner's put */
		np_bind_get(w->bind);
	}
	mutex_lock(&pctrl->lock);
	ret = np_win_make(w, p);
	mutex_unlock(&pctrl->lock);
	if (ret)
		goto out_unbind;
	return w;
out_unbind:
	np_bind_put(w->bind);	/* np_window_free() drops the other */
out_free:
	np_window_free(w);
	return ERR_PTR(ret);
}

/**
 * np_win_pfn() - the provider page showing a page of the view
 * @w: the window
 * @view_off: a byte of the view
 * @pfn: its page frame
 *
 * Return: 0; -ENXIO once revoked; -EFAULT where no piece shows it.
 */
int np_win_pfn(struct nvme_peer_window *w, u64 view_off, unsigned long *pfn)
{
	const struct np_win_seg *s;

	if (READ_ONCE(w->revoked))
		return -ENXIO;
	s = np_win_find(w->segs, w->nr_segs, view_off);
	if (!s)
		return -EFAULT;
	*pfn = PHYS_PFN(w->phys + s->pmr_off + (view_off - s->view_off));
	return 0;
}

/**
 * np_win_describe() - what a window is, for QUERY
 * @w: the window
 * @d: filled in
 */
void np_win_describe(struct nvme_peer_window *w, struct np_win_desc *d)
{
	memset(d, 0, sizeof(*d));
	d->ctrl = w->pctrl->instance;
	d->nsid = w->nsid;
	d->lba_shift = w->lba_shift;
	d->view_size = w->view_size;
	d->guarantee = w->guarantee;
	spin_lock(&w->pctrl->state_lock);
	d->reason = w->revoked ? w->reason : NVME_PEER_REASON_NONE;
	spin_unlock(&w->pctrl->state_lock);
	np_bind_describe(w->bind, &d->bind);
}

/* ---- a process attaches to an administrator's window ------------------ */

/* May the caller attach to @w?  -EACCES, -EBUSY, -ENXIO, else 0. */
static int np_win_attach_check(struct nvme_peer_window *w)
{
	lockdep_assert_held(&w->pctrl->state_lock);
	if (!np_grant_allows(w->attachable, w->uid, w->gid))
		return -EACCES;
	if (w->attached)
		return -EBUSY;
	return w->revoked ? -ENXIO : 0;
}

/**
 * np_win_attach() - a process attaches to an administrator's window by name
 * @pctrl: the provider's controller
 * @name: the window intent's name (configfs nvme-peer/nvmeX/windows/NAME)
 * @revoke: called once if it is revoked while attached
 * @priv: for @revoke
 *
 * One process at a time (it holds the window's callback); it reads the
 * window until it is revoked or np_win_detach().
 *
 * Return: the window with a reference for the caller, or an ERR_PTR:
 * -ENOENT (no such window), -EACCES (made without uid or gid, or for
 * another user or group), -EBUSY (attached already), -ENXIO (revoked: a
 * window a reset revoked comes back under its name).
 */
struct nvme_peer_window *np_win_attach(struct nvme_peer_ctrl *pctrl,
				       const char *name,
				       nvme_peer_window_revoke_fn revoke,
				       void *priv)
{
	struct nvme_peer_window *w, *found = NULL;
	int ret = -ENOENT;

	spin_lock(&pctrl->state_lock);
	list_for_each_entry(w, &pctrl->windows, node) {
		if (!w->name[0] || strcmp(w->name, name))
			continue;
		/* the live one of that name, else a revoked one's answer */
		ret = np_win_attach_check(w);
		found = w;
		if (!w->revoked)
			break;
	}
	if (found && !ret) {
		found->attached = true;
		found->revoke = revoke;
		found->priv = priv;
		kref_get(&found->ref);
	}
	spin_unlock(&pctrl->state_lock);
	return ret ? ERR_PTR(ret) : found;
}

/**
 * np_win_detach() - the attached process lets go
 * @w: from np_win_attach()
 *
 * Waits for a revoke callback in flight; none comes after.  The window
 * stays the administrator's, for the next process.
 */
void np_win_detach(struct nvme_peer_window *w)
{
	spin_lock(&w->pctrl->state_lock);
	w->attached = false;
	w->revoke = NULL;
	w->priv = NULL;
	spin_unlock(&w->pctrl->state_lock);
	np_wait_callbacks(w->pctrl);
	np_window_free(w);
}

/* ---- the kernel API --------------------------------------------------- */

/**
 * nvme_peer_window_get() - a read-only window for a peer device
 * @pctrl: the controller whose provider shows @p->nsid
 * @p: what to show and who reads it
 *
 * The peer reads the window's pieces (nvme_peer_window_segs()) at the bus
 * addresses mapped for it, until @p->revoke is called or it puts the
 * window.  What confines a hostile peer: nvme_peer_window_guarantee().
 *
 * Context: process; may sleep.
 * Return: the window, or an ERR_PTR() (see np_win_get()).
 */
struct nvme_peer_window *
nvme_peer_window_get(struct nvme_peer_ctrl *pctrl,
		     const struct nvme_peer_window_params *p)
{
	return np_win_get(pctrl, p, NP_OWNER_KERNEL, NULL);
}
EXPORT_SYMBOL_GPL(nvme_peer_window_get);

/**
 * nvme_peer_window_segs() - a window's pieces as its peer reads them
 * @w: the window
 * @segs: room for @max pieces, in view order
 * @max: their number
 *
 * Return: the number of pieces (all of them, even when more than @max:
 * call again with more room), or -ENXIO once revoked.
 */
int nvme_peer_window_segs(struct nvme_peer_window *w,
			  struct nvme_peer_window_seg *segs, u32 max)
{
	u32 i;

	if (nvme_peer_window_revoked(w))
		return -ENXIO;
	for (i = 0; i < min(max, w->nr_segs); i++) {
		segs[i].view_off = w->segs[i].view_off;
		segs[i].len = w->segs[i].len;
		segs[i].phys = w->phys + w->segs[i].pmr_off;
		segs[i].bus_addr = w->peer_dma ? w->peer_dma[i] : 0;
	}
	return w->nr_segs;
}
EXPORT_SYMBOL_GPL(nvme_peer_window_segs);

/**
 * np_win_pieces() - a window's pieces for user space (WINDOW_MAP)
 * @w: the window
 * @p: room for @max pieces, in view order
 * @max: their number
 *
 * As nvme_peer_window_segs() without the provider's physical addresses,
 * which stay in the kernel.
 *
 * Return: the number of pieces (all of them), or -ENXIO once revoked.
 */
int np_win_pieces(struct nvme_peer_window *w, struct nvme_peer_window_piece *p,
		  u32 max)
{
	u32 i;

	if (nvme_peer_window_revoked(w))
		return -ENXIO;
	for (i = 0; i < min(max, w->nr_segs); i++) {
		p[i].view_off = w->segs[i].view_off;
		p[i].len = w->segs[i].len;
		p[i].bus_addr = w->peer_dma ? w->peer_dma[i] : 0;
	}
	return w->nr_segs;
}

/**
 * nvme_peer_window_guarantee() - what confines a window's peer
 * @w: the window
 *
 * Return: %NVME_PEER_GUARANTEE_IOMMU when an IOMMU lets the peer read the
 * window's pages and nothing else of the BAR, on every path;
 * %NVME_PEER_GUARANTEE_IOMMU_SWITCH or %NVME_PEER_GUARANTEE_NONE when its
 * reads may reach the whole BAR (the whole namespace); CPU without a peer.
 */
enum nvme_peer_guarantee nvme_peer_window_guarantee(struct nvme_peer_window *w)
{
	return w->guarantee;
}
EXPORT_SYMBOL_GPL(nvme_peer_window_guarantee);

/**
 * nvme_peer_window_revoked() - whether and why a window was revoked
 * @w: the window
 *
 * Return: %NVME_PEER_REASON_NONE while it is active.
 */
enum nvme_peer_reason nvme_peer_window_revoked(struct nvme_peer_window *w)
{
	enum nvme_peer_reason reason;

	spin_lock(&w->pctrl->state_lock);
	reason = w->revoked ? w->reason : NVME_PEER_REASON_NONE;
	spin_unlock(&w->pctrl->state_lock);
	return reason;
}
EXPORT_SYMBOL_GPL(nvme_peer_window_revoked);

/**
 * nvme_peer_window_put() - the owner lets go of a window
 * @w: from nvme_peer_window_get()
 *
 * Waits for a revoke callback running now; none runs after.  The peer's
 * bus addresses are unmapped when this returns, the file's lease given
 * back from a work item.
 *
 * Context: process; may sleep.  Not from the revoke callback.
 */
void nvme_peer_window_put(struct nvme_peer_window *w)
{
	struct nvme_peer_ctrl *pctrl = w->pctrl;
	bool mine;

	spin_lock(&pctrl->state_lock);
	mine = np_win_mark(w, NVME_PEER_REASON_RELEASE);
	list_del_init(&w->node);
	spin_unlock(&pctrl->state_lock);
	np_wait_callbacks(pctrl);
	if (mine)
		np_win_unmap_peer(w);
	np_bind_put(w->bind);
	np_window_free(w);
}
EXPORT_SYMBOL_GPL(nvme_peer_window_put);

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/window_kunit.c"
#endif
