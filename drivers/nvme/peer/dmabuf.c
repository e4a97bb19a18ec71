// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: a queue or the data buffer in a range of a dma-buf (a GPU's
 * memory, udmabuf), imported for the controller as a *dynamic* importer
 * that allows peer-to-peer: the exporter keeps the buffer in device memory
 * and may move it at any time, telling us with move_notify().  A move is a
 * revocation (reason "moved").  See "GPU memory through dma-buf" in
 * Documentation/nvme/peer-queues.rst.
 *
 * A move is fenced the dma-buf way: move_notify() revokes the queue, stops
 * its poller and, if the controller may still run the queue, publishes a
 * fence in the buffer's reservation object (usage BOOKKEEP, which every
 * exporter waits for before it moves or reuses the memory) and returns.  A
 * work item runs np_fence() (drain, Delete SQ or a controller reset:
 * fence.c), signals the fence, then unmaps.  Nothing slow runs under the
 * exporter's reservation lock, and no DMA of the queue lands after the
 * fence signals, in mediated and direct mode alike.
 *
 * The work is a dma-fence signalling section (annotated for lockdep): it
 * allocates nothing -- the fence and the Delete SQ's admin request are
 * allocated at import -- and each of its waits is bounded by the drain
 * budget or by nvme-pci's admin timeout and disable.  It never signals
 * before the controller provably holds nothing of the queue.
 *
 * Who holds what: each imported region holds a reference on its dma-buf
 * (so the buffer outlives a close of its fd elsewhere) and one dynamic
 * attachment for the controller's device, mapped while the reservation is
 * active.  Nothing pins the buffer; nothing holds the exporter's device.
 */
#include <linux/dma-buf.h>
#include <linux/dma-direct.h>
#include <linux/dma-fence.h>
#include <linux/dma-resv.h>
#include <linux/iommu.h>
#include <linux/iosys-map.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>

#include "nvme-peer.h"

MODULE_IMPORT_NS(DMA_BUF);

/* One controller-visible piece of an imported range. */
struct np_dmabuf_seg {
	u64 off;			/* in the range */
	u64 len;
	dma_addr_t dma;			/* as the controller sees it */
};

struct np_dmabuf {
	struct nvme_peer_queue *q;
	struct np_mem *m;
	struct dma_buf *dmabuf;		/* reference held */
	struct dma_buf_attachment *attach;
	u64 offset;			/* of the range in @dmabuf */
	/* under @dmabuf->resv */
	struct sg_table *sgt;		/* the exporter's mapping */
	struct iosys_map map;		/* the kernel's, if @vmapped */
	bool vmapped;
	bool moved;
	struct np_dmabuf_seg *segs;
	unsigned int nr_segs;

	/* a move's fence: published under @dmabuf->resv, signalled by @work */
	struct work_struct work;
	struct dma_fence *fence;	/* under @fence_lock */
	struct dma_fence *spare;	/* the next one, allocated; under resv */
	spinlock_t fence_lock;
	u64 fence_context;
	u64 fence_seqno;
};

/*
 * One region's range: all zero unless its placement is a dma-buf; then
 * page aligned, inside the buffer, at least @need bytes (exactly, if
 * @exact).
 */
static int np_dmabuf_check(enum nvme_peer_placement where,
			   const struct nvme_peer_dmabuf_range *r, u64 need,
			   bool exact)
{
	if (where != NVME_PEER_PLACE_DMABUF)
		return r->dmabuf || r->offset || r->length ? -EINVAL : 0;
	if (!r->dmabuf || !PAGE_ALIGNED(r->offset) || !r->length ||
	    !PAGE_ALIGNED(r->length) || r->offset >= r->dmabuf->size ||
	    r->length > r->dmabuf->size - r->offset)
		return -EINVAL;
	return (exact ? r->length != need : r->length < need) ? -EINVAL : 0;
}

static bool np_dmabuf_overlap(const struct nvme_peer_dmabuf_range *a,
			      const struct nvme_peer_dmabuf_range *b)
{
	return a->dmabuf && a->dmabuf == b->dmabuf &&
	       a->offset < b->offset + b->length &&
	       b->offset < a->offset + a->length;
}

/**
 * np_dmabuf_validate() - check the dma-buf ranges of reservation parameters
 * @p: the parameters (placements, depth and data size already checked)
 *
 * Return: 0, or -EINVAL: a range given for a region not placed in a
 * dma-buf, none for one that is, an offset or length not page aligned, a
 * range past the end of the buffer, a queue's range shorter than the queue
 * (depth * 64 bytes for the SQ, depth * 16 for the CQ, page aligned), a
 * data range whose length is not the data size, or two ranges of one
 * buffer that overlap.
 */
int np_dmabuf_validate(const struct nvme_peer_params *p)
{
	const struct nvme_peer_dmabuf_range *r[] = {
		&p->sq_buf, &p->cq_buf, &p->data_buf
	};
	int ret, i, j;

	ret = np_dmabuf_check(p->sq_placement, &p->sq_buf,
			      np_sq_bytes(p->depth), false);
	if (!ret)
		ret = np_dmabuf_check(p->cq_placement, &p->cq_buf,
				      np_cq_bytes(p->depth), false);
	if (!ret)
		ret = np_dmabuf_check(p->data_placement, &p->data_buf,
				      p->data_size, true);
	for (i = 0; !ret && i < ARRAY_SIZE(r); i++)
		for (j = i + 1; j < ARRAY_SIZE(r); j++)
			if (np_dmabuf_overlap(r[i], r[j]))
				ret = -EINVAL;
	return ret;
}

/*
 * The CPU physical address the controller's DMA to @dma reaches, or
 * PHYS_ADDR_MAX when its IOMMU domain @dom translates and maps nothing
 * there: then @dma is a PCI bus address routed below the IOMMU (P2PDMA
 * through a switch), never host memory (iommu-dma keeps the host bridge
 * windows out of every IOVA space).  Without a translating domain the DMA
 * address is the bus address dma-direct made of a physical one.
 */
static phys_addr_t np_dmabuf_phys(struct device *dev,
				  struct iommu_domain *dom, dma_addr_t dma)
{
	phys_addr_t phys;

	if (!dom || !(dom->type & __IOMMU_DOMAIN_PAGING))
		return dma_to_phys(dev, dma);
	phys = iommu_iova_to_phys(dom, dma);
	return phys ? phys : PHYS_ADDR_MAX;
}

/* Whether [@phys, @phys + @len) touches the host's System RAM. */
static bool np_dmabuf_ram(phys_addr_t phys, u64 len)
{
	if (phys == PHYS_ADDR_MAX)
		return false;
	return region_intersects(phys, len, IORESOURCE_SYSTEM_RAM,
				 IORES_DESC_NONE) != REGION_DISJOINT;
}

/**
 * np_dmabuf_location() - where the controller's mapping of a range really is
 * @dev: the controller's device, which the range is mapped for
 * @dom: @dev's IOMMU domain (NULL for none)
 * @peer2peer: the attachment's peer2peer after the exporter's attach: it
 *	agreed to hand the controller device memory
 * @segs: the controller's pieces of the range (np_dmabuf_segs())
 * @n: how many
 *
 * An importer may use the DMA addresses of the exporter's sg table, never
 * its pages (CONFIG_DMABUF_DEBUG scrambles them, and device memory has
 * none).  An exporter that did not agree to peer-to-peer must give system
 * memory.  Otherwise the addresses say it: each page of each piece is
 * followed to the CPU physical address the controller's DMA reaches
 * (through @dom where it translates), and the range is system memory if
 * any of it is System RAM.  So a range is never reported %NVME_PEER_LOC_P2P
 * while the controller writes host memory; the error, where a platform's
 * bus addresses cannot be followed back, is the other way.
 *
 * Return: %NVME_PEER_LOC_P2P or %NVME_PEER_LOC_SYSTEM.
 */
static enum nvme_peer_location
np_dmabuf_location(struct device *dev, struct iommu_domain *dom,
		   bool peer2peer, const struct np_dmabuf_seg *segs,
		   unsigned int n)
{
	phys_addr_t start = 0, phys;
	u64 len = 0, pos;
	unsigned int i;

	if (!peer2peer)
		return NVME_PEER_LOC_SYSTEM;
	for (i = 0; i < n; i++) {
		for (pos = 0; pos < segs[i].len; pos += PAGE_SIZE) {
			phys = np_dmabuf_phys(dev, dom, segs[i].dma + pos);
			if (len && phys != PHYS_ADDR_MAX &&
			    start != PHYS_ADDR_MAX && phys == start + len) {
				len += PAGE_SIZE;	/* one run, one lookup */
				continue;
			}
			if (len && np_dmabuf_ram(start, len))
				return NVME_PEER_LOC_SYSTEM;
			start = phys;
			len = PAGE_SIZE;
		}
	}
	return len && np_dmabuf_ram(start, len) ? NVME_PEER_LOC_SYSTEM :
						  NVME_PEER_LOC_P2P;
}

/*
 * The controller-visible pieces of [@off, @off + @size) of @sgt's DMA
 * mapping, merged where contiguous, into @segs (room for @sgt->nents).
 * Every piece must start and end on a page: the controller's PRP entries
 * are translated a page at a time.
 *
 * Return: the number of pieces, -EINVAL when the mapping is shorter than
 * the range, -EOPNOTSUPP for a piece not page aligned.
 */
static int np_dmabuf_segs(struct sg_table *sgt, u64 off, u64 size,
			  struct np_dmabuf_seg *segs)
{
	u64 pos = 0, end = off + size, a, b, covered = 0;
	struct np_dmabuf_seg *s = NULL;
	struct scatterlist *sg;
	dma_addr_t dma;
	int i, n = 0;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		a = max(pos, off);
		b = min(pos + sg_dma_len(sg), end);
		if (a < b) {
			dma = sg_dma_address(sg) + (a - pos);
			if (!PAGE_ALIGNED(dma) || !PAGE_ALIGNED(b - a))
				return -EOPNOTSUPP;
			if (s && s->dma + s->len == dma) {
				s->len += b - a;
			} else {
				s = &segs[n++];
				s->off = a - off;
				s->dma = dma;
				s->len = b - a;
			}
			covered += b - a;
		}
		pos += sg_dma_len(sg);
	}
	return covered == size ? n : -EINVAL;
}

/**
 * np_dmabuf_ctrl_addr() - the controller's address of an offset of a range
 * @d: the imported range
 * @off: an offset below its size
 *
 * Return: the DMA address, found by binary search of the pieces.
 */
dma_addr_t np_dmabuf_ctrl_addr(const struct np_dmabuf *d, u64 off)
{
	unsigned int lo = 0, hi = d->nr_segs;

	while (hi - lo > 1) {
		unsigned int mid = lo + (hi - lo) / 2;

		if (d->segs[mid].off <= off)
			lo = mid;
		else
			hi = mid;
	}
	return d->segs[lo].dma + (off - d->segs[lo].off);
}

/* Drop the kernel's and the controller's mappings. */
static void np_dmabuf_unmap(struct np_dmabuf *d)
{
	dma_resv_assert_held(d->dmabuf->resv);
	if (d->vmapped) {
		WRITE_ONCE(d->m->vaddr, NULL);
		dma_buf_vunmap(d->dmabuf, &d->map);
		d->vmapped = false;
	}
	if (d->sgt) {
		dma_buf_unmap_attachment(d->attach, d->sgt, DMA_BIDIRECTIONAL);
		d->sgt = NULL;
	}
}

/*
 * Map the range for the controller and, where the kernel must read or
 * zero it, for the kernel.  The controller reads a queue as one piece, and
 * a direct peer names one address for the data buffer.
 */
static int np_dmabuf_map(struct np_dmabuf *d)
{
	struct nvme_peer_queue *q = d->q;
	struct np_mem *m = d->m;
	bool queue = m != &q->data;
	int n;

	dma_resv_assert_held(d->dmabuf->resv);
	if (d->moved)
		return -EAGAIN;
	d->sgt = dma_buf_map_attachment(d->attach, DMA_BIDIRECTIONAL);
	if (IS_ERR(d->sgt)) {
		n = PTR_ERR(d->sgt);
		d->sgt = NULL;
		return n;
	}
	d->segs = kcalloc(d->sgt->nents, sizeof(*d->segs), GFP_KERNEL);
	if (!d->segs)
		return -ENOMEM;
	n = np_dmabuf_segs(d->sgt, d->offset, m->size, d->segs);
	if (n < 0)
		return n;
	d->nr_segs = n;
	m->loc = np_dmabuf_location(d->attach->dev,
				    iommu_get_domain_for_dev(d->attach->dev),
				    d->attach->peer2peer, d->segs, n);
	m->ctrl_dma = d->segs[0].dma;
	if (n > 1 && !np_mediated(q))
		return -EOPNOTSUPP;

	if ((queue || np_mediated(q)) && !dma_buf_vmap(d->dmabuf, &d->map)) {
		d->vmapped = true;
		if (d->map.is_iomem) {
			dma_buf_vunmap(d->dmabuf, &d->map);
			d->vmapped = false;
		}
	}
	if (d->vmapped)
		m->vaddr = d->map.vaddr + d->offset;
	if (queue && np_mediated(q) && !m->vaddr)
		return -EOPNOTSUPP;	/* the poller reads shadow queues */
	if (queue && m->vaddr)
		memset(m->vaddr, 0, m->size);
	return 0;
}

static const char *np_dmabuf_fence_driver(struct dma_fence *f)
{
	return "nvme-peer";
}

static const char *np_dmabuf_fence_timeline(struct dma_fence *f)
{
	return "move";
}

static const struct dma_fence_ops np_dmabuf_fence_ops = {
	.get_driver_name = np_dmabuf_fence_driver,
	.get_timeline_name = np_dmabuf_fence_timeline,
};

/*
 * Publish a fence the exporter waits for (BOOKKEEP: evictions wait for
 * every fence), one per move; a move while the last one's fence is still
 * pending publishes that one again.  -ENOMEM when no room can be made.
 */
static int np_dmabuf_publish(struct np_dmabuf *d)
{
	struct dma_resv *resv = d->dmabuf->resv;
	struct dma_fence *f;
	int ret;

	dma_resv_assert_held(resv);
	ret = dma_resv_reserve_fences(resv, 1);
	if (ret)
		return ret;
	spin_lock(&d->fence_lock);
	f = dma_fence_get(d->fence);
	spin_unlock(&d->fence_lock);
	if (!f) {
		f = d->spare ?: kzalloc(sizeof(*f), GFP_KERNEL);
		if (!f)
			return -ENOMEM;
		d->spare = NULL;
		dma_fence_init(f, &np_dmabuf_fence_ops, &d->fence_lock,
			       d->fence_context, ++d->fence_seqno);
		spin_lock(&d->fence_lock);
		d->fence = dma_fence_get(f);
		spin_unlock(&d->fence_lock);
		kobject_get(&d->q->kobj);	/* the work's */
		if (!queue_work(np_move_wq, &d->work))
			kobject_put(&d->q->kobj);	/* never the last */
	}
	dma_resv_add_fence(resv, f, DMA_RESV_USAGE_BOOKKEEP);
	dma_fence_put(f);
	return 0;
}

/* Signal the published fence, if any: the hardware holds nothing of it. */
static void np_dmabuf_signal(struct np_dmabuf *d)
{
	struct dma_fence *f;

	spin_lock(&d->fence_lock);
	f = d->fence;
	d->fence = NULL;
	spin_unlock(&d->fence_lock);
	if (f) {
		dma_fence_signal(f);
		dma_fence_put(f);
	}
}

/*
 * The wait of a move's fence, a dma-fence signalling section: the caller
 * revoked the queue and stopped its poller (np_fence_start()); no memory
 * is allocated (the Delete SQ's request is the one preallocated at
 * import), no lock is taken that is held around an allocation or a wait
 * for a fence (cb_sem, pctrl->lock, dma_resv), and every wait is bounded:
 * the drain by NP_FENCE_BUDGET, the Delete by nvme-pci's admin timeout,
 * the disable by nvme-pci's reset (see "GPU memory through dma-buf").
 * Lockdep checks it (dma_fence_begin_signalling()).
 */
static enum np_fence_how np_dmabuf_fence_wait(struct np_dmabuf *d)
{
	return np_fence(d->q, NVME_PEER_REASON_MOVED, NP_FENCE_BUDGET,
			NP_FENCE_SIGNALLING);
}

/*
 * A move's fence: wait until the controller holds no command of the queue
 * (np_fence(), which may reset the controller), signal, then unmap.  Takes
 * the reservation lock only after signalling: the exporter may hold it
 * while it waits for the fence.  Then allocates the next move's fence.
 */
static void np_dmabuf_fence_work(struct work_struct *work)
{
	struct np_dmabuf *d = container_of(work, struct np_dmabuf, work);
	struct nvme_peer_queue *q = d->q;
	struct dma_fence *spare;
	enum np_fence_how how;
	bool cookie;

	cookie = dma_fence_begin_signalling();
	how = np_dmabuf_fence_wait(d);
	np_dmabuf_signal(d);
	dma_fence_end_signalling(cookie);
	dev_dbg(&q->pctrl->info.pdev->dev,
		"nvme-peer: qid %u: dma-buf moved, queue %s\n", q->qid,
		np_fence_how_name(how));
	spare = kzalloc(sizeof(*spare), GFP_KERNEL);
	dma_resv_lock(d->dmabuf->resv, NULL);
	np_dmabuf_unmap(d);
	if (!d->spare)
		swap(d->spare, spare);
	dma_resv_unlock(d->dmabuf->resv);
	kfree(spare);
	kobject_put(&q->kobj);
}

/*
 * The exporter moves the buffer, holding its reservation lock: revoke the
 * queue and stop its poller (quick), then either unmap at once (the
 * controller cannot run the queue: never created, deleted, or the
 * controller disabled) or publish a fence and leave the waiting to
 * np_dmabuf_fence_work().  Only if no fence can be published (no memory)
 * is the fence waited for here.
 */
static void np_dmabuf_move_notify(struct dma_buf_attachment *attach)
{
	struct np_dmabuf *d = attach->importer_priv;
	struct nvme_peer_queue *q = d->q;
	bool quiet, cookie;

	dma_resv_assert_held(d->dmabuf->resv);
	WRITE_ONCE(d->moved, true);
	if (!d->sgt)
		return;
	quiet = np_fence_start(q, NVME_PEER_REASON_MOVED);
	if (!quiet && np_dmabuf_publish(d)) {
		dev_warn(&q->pctrl->info.pdev->dev,
			 "nvme-peer: qid %u: no memory for a move's fence: fencing under the exporter's lock\n",
			 q->qid);
		/* as the fence work would: allocation-free and bounded */
		cookie = dma_fence_begin_signalling();
		np_dmabuf_fence_wait(d);
		dma_fence_end_signalling(cookie);
		quiet = true;
	}
	if (quiet)
		np_dmabuf_unmap(d);
}

/**
 * np_dmabuf_moved() - whether the exporter moved a region's buffer
 * @m: a region, placed in a dma-buf or not
 *
 * Return: true once move_notify() ran for @m's attachment.
 */
bool np_dmabuf_moved(const struct np_mem *m)
{
	return m->dmabuf && READ_ONCE(m->dmabuf->moved);
}

/**
 * np_dmabuf_zero() - clear a region's memory for its next user (recycle)
 * @m: a region placed in a dma-buf
 *
 * Under the reservation lock, so that a move cannot unmap it meanwhile.
 *
 * Return: 0, or -EAGAIN when the buffer was moved.
 */
static int np_dmabuf_zero(struct np_mem *m)
{
	struct np_dmabuf *d = m->dmabuf;
	int ret = 0;

	dma_resv_lock(d->dmabuf->resv, NULL);
	if (d->moved)
		ret = -EAGAIN;
	else if (m->vaddr)
		memset(m->vaddr, 0, m->size);
	dma_resv_unlock(d->dmabuf->resv);
	return ret;
}

static const struct dma_buf_attach_ops np_dmabuf_attach_ops = {
	.allow_peer2peer = true,
	.move_notify = np_dmabuf_move_notify,
};

static dma_addr_t np_dmabuf_mem_ctrl_addr(const struct np_mem *m, u64 off)
{
	return np_dmabuf_ctrl_addr(m->dmabuf, off);
}

static const struct np_mem_ops np_dmabuf_mem_ops = {
	.release = np_dmabuf_release,
	.zero = np_dmabuf_zero,
	.ctrl_addr = np_dmabuf_mem_ctrl_addr,
};

/**
 * np_dmabuf_import() - import a reservation's queue or data buffer range
 * @q: the reservation (not on its controller's list yet, pctrl->lock held)
 * @m: &q->sq, &q->cq or &q->data, set up here (mem.c's np_mem_free()
 *	and friends then call back through its ops)
 * @r: the caller's range (&nvme_peer_params.sq_buf, ...): its buffer gets
 *	a reference of @m's own, the pointer in @r is not kept
 * @size: the bytes of the range used
 *
 * Attaches dynamically for the controller's device (peer-to-peer allowed,
 * not pinned) and maps under the dma-buf's reservation lock.
 *
 * Return: 0; the exporter's errno when it refuses the attachment or the
 * mapping (-EXDEV from an exporter that cannot reach the controller);
 * -EXDEV when @q requires P2P and the mapping is in system memory;
 * -EOPNOTSUPP when a queue (or, in direct mode, the data buffer) is not
 * one contiguous piece for the controller, a piece is not page aligned, or
 * the kernel cannot map a mediated queue's shadow SQ or CQ (no vmap);
 * -EAGAIN when the exporter moved the buffer meanwhile; -ENOMEM.
 */
int np_dmabuf_import(struct nvme_peer_queue *q, struct np_mem *m,
		     const struct nvme_peer_dmabuf_range *r, size_t size)
{
	struct np_dmabuf *d;
	int ret;

	lockdep_assert_held(&q->pctrl->lock);
	if (!r || !r->dmabuf)
		return -EINVAL;
	ret = np_fence_rq_alloc(q);	/* what a move's fence sends */
	if (ret)
		return ret;
	d = kzalloc(sizeof(*d), GFP_KERNEL);
	if (!d)
		return -ENOMEM;
	d->spare = kzalloc(sizeof(*d->spare), GFP_KERNEL);
	if (!d->spare) {
		kfree(d);
		return -ENOMEM;
	}
	d->q = q;
	d->m = m;
	d->offset = r->offset;
	INIT_WORK(&d->work, np_dmabuf_fence_work);
	spin_lock_init(&d->fence_lock);
	d->fence_context = dma_fence_context_alloc(1);
	get_dma_buf(r->dmabuf);
	d->dmabuf = r->dmabuf;
	memset(m, 0, sizeof(*m));
	m->where = NVME_PEER_PLACE_DMABUF;
	m->size = size;
	m->dmabuf = d;
	m->ops = &np_dmabuf_mem_ops;
	m->peer_dma = r->offset;	/* the exporter's device knows its buffer */

	d->attach = dma_buf_dynamic_attach(d->dmabuf,
					   &q->pctrl->info.pdev->dev,
					   &np_dmabuf_attach_ops, d);
	if (IS_ERR(d->attach)) {
		ret = PTR_ERR(d->attach);
		d->attach = NULL;
		goto out_release;
	}
	dma_resv_lock(d->dmabuf->resv, NULL);
	ret = np_dmabuf_map(d);
	dma_resv_unlock(d->dmabuf->resv);
	if (ret)
		goto out_release;
	if (q->params.require_p2p && m->loc != NVME_PEER_LOC_P2P) {
		dev_info(&q->pctrl->info.pdev->dev,
			 "nvme-peer: qid %u: dma-buf range is in system memory, P2P required\n",
			 q->qid);
		ret = -EXDEV;
		goto out_release;
	}
	return 0;

out_release:
	np_dmabuf_release(m);
	return ret;
}

/**
 * np_dmabuf_release() - unmap, detach and put what np_dmabuf_import() took
 * @m: the region; nothing if it holds no dma-buf
 *
 * The caller guarantees the controller cannot reach @m any more.  After
 * dma_buf_detach() (which removes the attachment under the reservation
 * lock) no move_notify() runs, so no fence work is queued; one queued
 * before is waited for (it finds the queue quiet and signals at once).
 */
void np_dmabuf_release(struct np_mem *m)
{
	struct np_dmabuf *d = m->dmabuf;

	if (!d)
		return;
	if (d->attach) {
		dma_resv_lock(d->dmabuf->resv, NULL);
		np_dmabuf_unmap(d);
		dma_resv_unlock(d->dmabuf->resv);
		dma_buf_detach(d->dmabuf, d->attach);
		flush_work(&d->work);
	}
	dma_buf_put(d->dmabuf);
	kfree(d->spare);
	kfree(d->segs);
	kfree(d);
	m->dmabuf = NULL;
	m->ops = NULL;		/* mem.c's own code again: nothing to free */
	m->vaddr = NULL;
}

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/dmabuf_kunit.c"
#endif
