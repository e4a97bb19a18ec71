// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: /dev/nvme-peer, the door for user space (GPU and accelerator
 * runtimes).  One open file is good for one reservation: reserved by a
 * privileged process, or attached (by qid or by name) to one an
 * administrator provisioned in configfs for a uid/gid.  Once that is
 * released the file is spent (-EBUSY): its old mappings must never reach a
 * later reservation's memory.  See
 * include/uapi/linux/nvme_peer.h and Documentation/nvme/peer-queues.rst.
 *
 * Each file gets its own 1 TiB of mmap offsets (id << 40), so a
 * revocation zaps exactly that file's mappings with unmap_mapping_range();
 * a window's view (cdev_window.c) starts there.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/file.h>
#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/idr.h>
#include <linux/io.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/nvme.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <uapi/linux/nvme_peer.h>

#include "cdev.h"

enum { NP_REGION_SQ, NP_REGION_CQ, NP_REGION_DATA, NP_REGION_DB };

static DEFINE_IDA(np_file_ida);

static void np_file_zap(struct np_file *f)
{
	unmap_mapping_range(f->mapping, f->base, 1ULL << NP_FILE_SHIFT, 1);
}

/**
 * np_file_revoked() - what a revocation does to an open file
 * @f: the file whose queue or window was revoked
 *
 * Every mapping is zapped before this returns (a fault after it gets
 * SIGBUS), poll() wakes with POLLERR.
 */
void np_file_revoked(struct np_file *f)
{
	down_write(&f->map_lock);
	f->revoked = true;
	np_file_zap(f);
	up_write(&f->map_lock);
	wake_up_all(&f->wait);
}

/* The owner callback: runs once; may run from the NVMe timeout handler. */
static void np_file_revoke(struct nvme_peer_queue *q,
			   enum nvme_peer_reason reason, void *priv)
{
	np_file_revoked(priv);
}

static int np_file_open(struct inode *inode, struct file *file)
{
	struct np_file *f = kzalloc(sizeof(*f), GFP_KERNEL);

	if (!f)
		return -ENOMEM;
	f->id = ida_alloc_max(&np_file_ida, (1 << 20) - 1, GFP_KERNEL);
	if (f->id < 0) {
		kfree(f);
		return -EMFILE;
	}
	mutex_init(&f->lock);
	init_rwsem(&f->map_lock);
	init_waitqueue_head(&f->wait);
	f->base = (u64)(f->id + 1) << NP_FILE_SHIFT;
	f->mapping = file->f_mapping;
	file->private_data = f;
	return 0;
}

/* Give the reservation back: released if reserved, detached if attached. */
void np_file_drop(struct np_file *f)
{
	struct nvme_peer_window *w;
	struct nvme_peer_queue *q;

	lockdep_assert_held(&f->lock);
	down_write(&f->map_lock);
	q = f->q;
	f->q = NULL;
	w = f->w;
	f->w = NULL;
	f->revoked = false;
	np_file_zap(f);
	up_write(&f->map_lock);
	if (w) {
		if (f->attached)
			np_win_detach(w);
		else
			nvme_peer_window_put(w);
		nvme_peer_ctrl_put(f->pctrl);
		f->pctrl = NULL;
		f->attached = false;
	}
	if (!q)
		return;
	if (f->attached)
		np_detach(q);
	else
		nvme_peer_release(q);
	nvme_peer_ctrl_put(f->pctrl);
	f->pctrl = NULL;
	f->attached = false;
}

static int np_file_release(struct inode *inode, struct file *file)
{
	struct np_file *f = file->private_data;

	mutex_lock(&f->lock);
	np_file_drop(f);
	mutex_unlock(&f->lock);
	ida_free(&np_file_ida, f->id);
	kfree(f);
	return 0;
}

static void np_file_set(struct np_file *f, struct nvme_peer_queue *q,
			struct nvme_peer_ctrl *pctrl, bool attached)
{
	down_write(&f->map_lock);
	f->q = q;
	f->pctrl = pctrl;
	f->attached = attached;
	f->spent = true;
	up_write(&f->map_lock);
}

/*
 * Copy an extensible ioctl argument: its first __u32 is the size user space
 * built it with, at least @ver0 (-EINVAL), the struct's NVME_PEER_*_SIZE_VER0;
 * copy_struct_from_user() rules past that.  *usize receives it.
 */
int np_copy_arg(void *dst, size_t ksize, size_t ver0, void __user *uarg,
		u32 *usize)
{
	if (get_user(*usize, (u32 __user *)uarg))
		return -EFAULT;
	if (*usize < ver0)
		return -EINVAL;
	return copy_struct_from_user(dst, ksize, uarg, *usize);
}

/*
 * The shape of a RESERVE argument, -EINVAL: flags, reserved fields, the
 * widths core.c's parameters narrow to, fields a flag does not ask for,
 * and the extents copied in.  What the values mean is the gate's
 * (core.c's np_reserve_check()).
 */
static int np_reserve_arg_ok(const struct nvme_peer_reserve *r)
{
	if (r->flags & ~(NVME_PEER_RESERVE_PEER | NVME_PEER_RESERVE_FILE |
			 NVME_PEER_RESERVE_REQUIRE_P2P) ||
	    (!(r->flags & NVME_PEER_RESERVE_FILE) &&
	     (r->file_fd || r->file_access || r->file_off || r->file_len)) ||
	    memchr_inv(r->rsvd, 0, sizeof(r->rsvd)) ||
	    r->nr_extents > NVME_PEER_MAX_EXTENTS ||
	    r->qid > U16_MAX ||
	    r->sq_buf.rsvd || r->cq_buf.rsvd || r->data_buf.rsvd ||
	    (!(r->flags & NVME_PEER_RESERVE_PEER) &&
	     (r->peer_domain || r->peer_bdf)) ||
	    r->peer_bdf > U16_MAX)
		return -EINVAL;
	return 0;
}

/*
 * The dma-buf a region names, with a reference, or NULL for a region not
 * placed in one (whose fd must be 0): -EBADF for a closed fd, -EINVAL for
 * one that is not a dma-buf.
 */
static int np_reserve_dmabuf(u8 where, const struct nvme_peer_dmabuf_region *u,
			     struct nvme_peer_dmabuf_range *r)
{
	struct dma_buf *dmabuf;

	r->offset = u->offset;
	r->length = u->length;
	if (where != NVME_PEER_PLACE_DMABUF)
		return u->fd ? -EINVAL : 0;	/* the offsets: validation */
	dmabuf = dma_buf_get(u->fd);
	if (IS_ERR(dmabuf))
		return PTR_ERR(dmabuf);
	r->dmabuf = dmabuf;
	return 0;
}

static void np_reserve_params_free(struct nvme_peer_params *p)
{
	struct nvme_peer_dmabuf_range *r[] = {
		&p->sq_buf, &p->cq_buf, &p->data_buf
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(r); i++)
		if (r[i]->dmabuf)
			dma_buf_put(r[i]->dmabuf);
	if (p->file.file)
		fput(p->file.file);
	pci_dev_put(p->peer);
	kvfree(p->policy.extents);
}

/*
 * The in-kernel parameters of a RESERVE argument; the extents, the peer
 * device, the file and the dma-bufs it names are the caller's to free
 * (np_reserve_params_free()).
 */
static int np_reserve_params(struct np_file *f,
			     const struct nvme_peer_reserve *r,
			     struct nvme_peer_params *p)
{
	struct nvme_peer_extent *ext;
	int ret;

	p->nsid = r->nsid;
	p->depth = r->depth;
	p->sq_placement = r->sq_placement;
	p->cq_placement = r->cq_placement;
	p->data_placement = r->data_placement;
	p->data_size = r->data_size;
	p->revoke = np_file_revoke;
	p->priv = f;
	p->mode = r->mode;	/* np_validate_params() checks it and the policy */
	p->policy.opcodes = r->opcodes;
	p->policy.max_nlb = r->max_nlb;
	p->require_p2p = r->flags & NVME_PEER_RESERVE_REQUIRE_P2P;
	ret = np_reserve_dmabuf(r->sq_placement, &r->sq_buf, &p->sq_buf);
	if (!ret)
		ret = np_reserve_dmabuf(r->cq_placement, &r->cq_buf,
					&p->cq_buf);
	if (!ret)
		ret = np_reserve_dmabuf(r->data_placement, &r->data_buf,
					&p->data_buf);
	if (ret)
		return ret;
	if (r->nr_extents) {
		ext = vmemdup_user(u64_to_user_ptr(r->extents),
				   array_size(r->nr_extents, sizeof(*ext)));
		if (IS_ERR(ext))
			return PTR_ERR(ext);
		p->policy.extents = ext;
		p->policy.nr_extents = r->nr_extents;
	}
	if (r->flags & NVME_PEER_RESERVE_FILE) {
		p->file.file = fget(r->file_fd);
		if (!p->file.file)
			return -EBADF;
		p->file.off = r->file_off;
		p->file.len = r->file_len;
		p->file.access = r->file_access;
	}
	if (r->flags & NVME_PEER_RESERVE_PEER) {
		p->peer = pci_get_domain_bus_and_slot(r->peer_domain,
						      r->peer_bdf >> 8,
						      r->peer_bdf & 0xff);
		if (!p->peer)
			return -ENODEV;
	}
	return 0;
}

static int np_ioc_reserve(struct np_file *f, void __user *uarg)
{
	struct nvme_peer_params p = { };
	struct nvme_peer_reserve r;
	struct nvme_peer_ctrl *pctrl;
	struct nvme_peer_queue *q;
	u32 usize;
	int ret;

	if (!capable(CAP_SYS_ADMIN))
		return -EPERM;
	ret = np_copy_arg(&r, sizeof(r), NVME_PEER_RESERVE_SIZE_VER0, uarg,
			  &usize);
	if (!ret)
		ret = np_reserve_arg_ok(&r);
	if (ret)
		return ret;
	if (f->spent)
		return -EBUSY;
	ret = np_reserve_params(f, &r, &p);
	if (ret)
		goto out_free_params;
	pctrl = np_ctrl_get_by_instance(r.ctrl);
	ret = -ENODEV;
	if (!pctrl)
		goto out_free_params;
	q = np_reserve(pctrl, &p, NP_OWNER_PROCESS, r.qid, NULL);
	ret = PTR_ERR_OR_ZERO(q);
	if (ret) {
		nvme_peer_ctrl_put(pctrl);
		goto out_free_params;
	}
	np_file_set(f, q, pctrl, false);
	if (put_user(q->qid, (u32 __user *)(uarg +
				offsetof(struct nvme_peer_reserve, qid)))) {
		np_file_drop(f);
		ret = -EFAULT;
	}
out_free_params:
	np_reserve_params_free(&p);
	return ret;
}

/* The shape of an ATTACH: a qid, or a name that could name a reservation. */
static int np_attach_arg(const struct nvme_peer_attach *a)
{
	if (a->flags & ~(NVME_PEER_ATTACH_BY_NAME | NVME_PEER_ATTACH_WINDOW))
		return -EINVAL;
	/* a window is attached by its name only */
	if ((a->flags & NVME_PEER_ATTACH_WINDOW) &&
	    !(a->flags & NVME_PEER_ATTACH_BY_NAME))
		return -EINVAL;
	if (!(a->flags & NVME_PEER_ATTACH_BY_NAME))
		return !a->qid || a->qid > U16_MAX ||
		       memchr_inv(a->name, 0, sizeof(a->name)) ? -EINVAL : 0;
	if (a->qid || !memchr(a->name, '\0', sizeof(a->name)) ||
	    !np_cfs_name_ok(a->name))
		return -EINVAL;
	return 0;
}

static int np_ioc_attach(struct np_file *f, void __user *uarg)
{
	struct nvme_peer_attach a;
	struct nvme_peer_ctrl *pctrl;
	struct nvme_peer_queue *q;
	u32 usize;
	int ret;

	ret = np_copy_arg(&a, sizeof(a), NVME_PEER_ATTACH_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	ret = np_attach_arg(&a);
	if (ret)
		return ret;
	if (f->spent)
		return -EBUSY;
	pctrl = np_ctrl_get_by_instance(a.ctrl);
	if (!pctrl)
		return -ENODEV;
	if (a.flags & NVME_PEER_ATTACH_WINDOW) {
		ret = np_window_attach(f, pctrl, a.name);
		if (ret)
			nvme_peer_ctrl_put(pctrl);
		return ret;
	}
	q = np_attach(pctrl, a.qid, a.flags & NVME_PEER_ATTACH_BY_NAME ?
		      a.name : NULL, np_file_revoke, f);
	if (IS_ERR(q)) {
		nvme_peer_ctrl_put(pctrl);
		return PTR_ERR(q);
	}
	np_file_set(f, q, pctrl, true);
	return 0;
}

static u64 np_region_off(struct np_file *f, int region)
{
	return f->base + ((u64)region << NP_REGION_SHIFT);
}

static bool np_db_mappable(struct nvme_peer_queue *q)
{
	if (np_mediated(q))
		return true;	/* shadow doorbells: a page of its own */
	/*
	 * The page holds other queues' doorbells unless the stride isolates;
	 * a secondary controller's holds nvme-pci's admin and I/O queues' of
	 * that VF.
	 */
	return !np_unguarded_check(q->params.mode, NP_OWNER_PROCESS, false) ||
	       np_db_stride(&q->pctrl->info) >= PAGE_SIZE;
}

/* QUERY: where the doorbells are in their mmap region */
static void np_query_db(struct nvme_peer_queue *q, struct nvme_peer_info *info)
{
	struct np_db_region db;

	info->db_size = PAGE_SIZE;
	if (np_mediated(q)) {
		info->flags |= NVME_PEER_INFO_MEDIATED;
		info->sq_db_in_page = 0;
		info->cq_db_in_page = 4;
		return;
	}
	np_db_region(&q->pctrl->info, q->qid, &db);
	info->db_size = db.size;
	info->sq_db_in_page = db.sq_off;
	info->cq_db_in_page = db.cq_off;
}

/* QUERY: the bound file, if any */
static void np_query_file(struct nvme_peer_queue *q,
			  struct nvme_peer_info *info)
{
	struct np_bind_desc bind;

	np_bind_describe(q->bind, &bind);
	if (!bind.nr_map)
		return;
	info->flags |= NVME_PEER_INFO_FILE;
	info->file_dev = new_encode_dev(bind.dev);
	info->file_access = bind.access;
	info->file_ino = bind.ino;
	info->file_off = bind.off;
	info->file_len = bind.len;
	info->file_extents = bind.nr_map;
	info->lease = bind.lease;
}

static int np_ioc_query(struct np_file *f, void __user *uarg)
{
	struct nvme_peer_info info = { };
	struct nvme_peer_addrs a;
	struct nvme_peer_queue *q;
	enum nvme_peer_reason reason;
	u32 usize;
	int ret;

	ret = np_copy_arg(&info, sizeof(info), NVME_PEER_INFO_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (info.flags || info.ctrl || info.qid)
		return -EINVAL;

	down_read(&f->map_lock);
	if (f->w) {
		ret = np_window_query(f, &info, usize);
		up_read(&f->map_lock);
		return ret ?: copy_to_user(uarg, &info, info.size) ? -EFAULT : 0;
	}
	q = f->q;
	if (!q) {
		up_read(&f->map_lock);
		return -ENXIO;
	}
	ret = nvme_peer_query(q, &a);
	reason = nvme_peer_revoked(q);
	memset(&info, 0, sizeof(info));
	info.size = min_t(u32, usize, sizeof(info));
	info.flags = np_db_mappable(q) ? NVME_PEER_INFO_DB_MAP : 0;
	info.ctrl = q->pctrl->instance;
	info.qid = a.qid;
	info.nsid = a.nsid;
	info.depth = a.depth;
	info.lba_shift = a.lba_shift;
	info.state = ret ? NVME_PEER_STATE_REVOKED : NVME_PEER_STATE_ACTIVE;
	info.reason = reason;
	info.db_stride = np_db_stride(&q->pctrl->info);
	info.sq_off = np_region_off(f, NP_REGION_SQ);
	info.sq_size = q->sq.size;
	info.cq_off = np_region_off(f, NP_REGION_CQ);
	info.cq_size = q->cq.size;
	info.data_off = np_region_off(f, NP_REGION_DATA);
	info.data_size = q->data.size;
	info.db_off = np_region_off(f, NP_REGION_DB);
	np_query_db(q, &info);
	info.mode = a.mode;
	info.guarantee = a.guarantee;
	np_query_file(q, &info);
	info.sq_placement = q->sq.where;
	info.cq_placement = q->cq.where;
	info.data_placement = q->data.where;
	info.sq_location = q->sq.loc;
	info.cq_location = q->cq.loc;
	info.data_location = q->data.loc;
	/*
	 * Needed to fill PRPs: NVME_PEER_PRP_BASE in mediated mode, a real
	 * address only in direct mode, whose users hold CAP_SYS_RAWIO.
	 */
	info.data_ctrl_addr = a.data_ctrl_addr;
	if (capable(CAP_SYS_ADMIN)) {
		info.sq_addr = a.sq_addr;
		info.cq_addr = a.cq_addr;
		info.data_addr = a.data_addr;
		info.sq_db_addr = a.sq_db_addr;
		info.cq_db_addr = a.cq_db_addr;
	}
	up_read(&f->map_lock);
	return copy_to_user(uarg, &info, info.size) ? -EFAULT : 0;
}

/**
 * np_list_out() - the answer of FILE_MAP and WINDOW_MAP
 * @uarg: the ioctl's struct, whose @nr is at %NP_LIST_NR_OFF
 *	(np_uapi_layout() pins it)
 * @uptr: its user pointer to the array
 * @items: @n items of @size bytes
 * @size: an item's size
 * @n: the items that fit
 * @total: all there are, into @nr
 *
 * Return: 0 or -EFAULT.
 */
int np_list_out(void __user *uarg, u64 uptr, const void *items, size_t size,
		u32 n, u32 total)
{
	if (copy_to_user(u64_to_user_ptr(uptr), items, array_size(n, size)) ||
	    put_user(total, (u32 __user *)(uarg + NP_LIST_NR_OFF)))
		return -EFAULT;
	return 0;
}

/* The bound file's map: as much as fits, and how much there is. */
static int np_ioc_file_map(struct np_file *f, void __user *uarg)
{
	struct nvme_peer_file_map m;
	struct nvme_peer_queue *q;
	struct np_bind_desc bind;
	u32 usize, n;
	int ret;

	ret = np_copy_arg(&m, sizeof(m), NVME_PEER_FILE_MAP_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (m.flags || m.rsvd)
		return -EINVAL;
	/* the map is immutable: copy it out without map_lock (mmap_lock) */
	down_read(&f->map_lock);
	q = f->q;
	if (q)
		kobject_get(&q->kobj);
	up_read(&f->map_lock);
	if (!q)
		return -ENXIO;
	np_bind_describe(q->bind, &bind);
	ret = -ENODATA;
	if (!bind.nr_map)
		goto out_put;
	n = min(m.nr, bind.nr_map);
	ret = np_list_out(uarg, m.extents, bind.map, sizeof(*bind.map), n,
			  bind.nr_map);
out_put:
	kobject_put(&q->kobj);
	return ret;
}

static int np_ioc_ring(struct np_file *f, void __user *uarg)
{
	struct nvme_peer_ring r;
	struct nvme_peer_addrs a;
	u32 usize;
	int ret;

	ret = np_copy_arg(&r, sizeof(r), NVME_PEER_RING_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (!r.flags ||
	    r.flags & ~(NVME_PEER_RING_SQ | NVME_PEER_RING_CQ))
		return -EINVAL;

	down_read(&f->map_lock);
	ret = -ENXIO;
	if (!f->q || f->revoked)
		goto out_unlock;
	if (nvme_peer_query(f->q, &a))
		goto out_unlock;
	ret = -EINVAL;
	if (((r.flags & NVME_PEER_RING_SQ) && r.sq_tail >= a.depth) ||
	    ((r.flags & NVME_PEER_RING_CQ) && r.cq_head >= a.depth))
		goto out_unlock;
	/* the revoke callback waits for map_lock: the BAR is still mapped */
	if (a.mode == NVME_PEER_MODE_MEDIATED) {
		/* shadow doorbells are memory: store, then wake the thread */
		if (r.flags & NVME_PEER_RING_SQ)
			WRITE_ONCE(*a.sq_shadow_db, cpu_to_le32(r.sq_tail));
		if (r.flags & NVME_PEER_RING_CQ)
			WRITE_ONCE(*a.cq_shadow_db, cpu_to_le32(r.cq_head));
		np_med_kick();
	} else {
		if (r.flags & NVME_PEER_RING_SQ)
			writel(r.sq_tail, a.sq_db);
		if (r.flags & NVME_PEER_RING_CQ)
			writel(r.cq_head, a.cq_db);
	}
	ret = 0;
out_unlock:
	up_read(&f->map_lock);
	return ret;
}

static long np_file_ioctl(struct file *file, unsigned int cmd,
			  unsigned long arg)
{
	struct np_file *f = file->private_data;
	void __user *uarg = (void __user *)arg;
	long ret;

	switch (cmd) {
	case NVME_PEER_IOC_QUERY:
		return np_ioc_query(f, uarg);
	case NVME_PEER_IOC_RING:
		return np_ioc_ring(f, uarg);
	case NVME_PEER_IOC_FILE_MAP:
		return np_ioc_file_map(f, uarg);
	case NVME_PEER_IOC_WINDOW_MAP:
		return np_ioc_window_map(f, uarg);
	case NVME_PEER_IOC_RESERVE:
	case NVME_PEER_IOC_ATTACH:
	case NVME_PEER_IOC_RELEASE:
	case NVME_PEER_IOC_WINDOW:
		break;
	default:
		return -ENOTTY;
	}

	mutex_lock(&f->lock);
	if (cmd == NVME_PEER_IOC_RESERVE) {
		ret = np_ioc_reserve(f, uarg);
	} else if (cmd == NVME_PEER_IOC_ATTACH) {
		ret = np_ioc_attach(f, uarg);
	} else if (cmd == NVME_PEER_IOC_WINDOW) {
		ret = np_ioc_window(f, uarg);
	} else {
		ret = f->q || f->w ? 0 : -ENXIO;
		if (arg)
			ret = -EINVAL;
		else
			np_file_drop(f);
	}
	mutex_unlock(&f->lock);
	return ret;
}

static __poll_t np_file_poll(struct file *file, poll_table *wait)
{
	struct np_file *f = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &f->wait, wait);
	down_read(&f->map_lock);
	if ((f->q || f->w) && f->revoked)
		mask = EPOLLERR | EPOLLPRI;
	up_read(&f->map_lock);
	return mask;
}

/* The memory behind a region, as a struct np_mem, or NULL for doorbells. */
static struct np_mem *np_region_mem(struct nvme_peer_queue *q, int region)
{
	switch (region) {
	case NP_REGION_SQ:
		return &q->sq;
	case NP_REGION_CQ:
		return &q->cq;
	case NP_REGION_DATA:
		return &q->data;
	case NP_REGION_DB:
		return np_mediated(q) ? &q->sdb : NULL;
	}
	return NULL;
}

static vm_fault_t np_vm_fault(struct vm_fault *vmf)
{
	struct vm_area_struct *vma = vmf->vma;
	struct np_file *f = vma->vm_private_data;
	unsigned long pgoff = vmf->pgoff - (f->base >> PAGE_SHIFT);
	int region = pgoff >> (NP_REGION_SHIFT - PAGE_SHIFT);
	unsigned long idx = pgoff & ((1UL << (NP_REGION_SHIFT - PAGE_SHIFT)) - 1);
	struct nvme_peer_queue *q;
	struct np_db_region db;
	struct np_mem *m;
	unsigned long pfn;
	vm_fault_t ret = VM_FAULT_SIGBUS;

	down_read(&f->map_lock);
	if (f->w) {
		ret = f->revoked ? VM_FAULT_SIGBUS : np_window_fault(f, vmf);
		goto out_unlock;
	}
	q = f->q;
	if (!q || f->revoked || nvme_peer_revoked(q))
		goto out_unlock;
	m = np_region_mem(q, region);
	if (m) {
		if (!m->vaddr || idx >= PAGE_ALIGN(m->size) >> PAGE_SHIFT)
			goto out_unlock;
		pfn = page_to_pfn(virt_to_page(m->vaddr)) + idx;
	} else {
		np_db_region(&q->pctrl->info, q->qid, &db);
		if (idx >= db.size >> PAGE_SHIFT)
			goto out_unlock;
		pfn = PHYS_PFN(db.phys) + idx;
	}
	ret = vmf_insert_pfn(vma, vmf->address, pfn);
out_unlock:
	up_read(&f->map_lock);
	return ret;
}

static const struct vm_operations_struct np_vm_ops = {
	.fault = np_vm_fault,
};

static int np_file_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct np_file *f = file->private_data;
	u64 off = (u64)vma->vm_pgoff << PAGE_SHIFT;
	u64 len = vma->vm_end - vma->vm_start;
	struct nvme_peer_queue *q;
	struct np_db_region db;
	struct np_mem *m;
	int region, ret = 0;
	u64 size;

	if (!(vma->vm_flags & VM_SHARED))
		return -EINVAL;
	if (off < f->base || off - f->base >= 1ULL << NP_FILE_SHIFT)
		return -EINVAL;
	down_read(&f->map_lock);
	if (f->w) {
		ret = f->revoked ? -ENXIO : np_window_mmap(f, vma);
		if (!ret)
			vma->vm_ops = &np_vm_ops;
		up_read(&f->map_lock);
		return ret;
	}
	up_read(&f->map_lock);
	if (off - f->base >= 4ULL << NP_REGION_SHIFT)
		return -EINVAL;
	region = (off - f->base) >> NP_REGION_SHIFT;
	if (off != np_region_off(f, region))
		return -EINVAL;	/* a mapping starts at its region */

	down_read(&f->map_lock);
	q = f->q;
	if (!q || f->revoked) {
		ret = -ENXIO;
		goto out_unlock;
	}
	m = np_region_mem(q, region);
	if (m && m->dmabuf) {
		ret = -ENODEV;		/* map the dma-buf itself */
		goto out_unlock;
	}
	if (m) {
		size = PAGE_ALIGN(m->size);
	} else if (np_mediated(q)) {
		size = PAGE_SIZE;
	} else {
		np_db_region(&q->pctrl->info, q->qid, &db);
		size = db.size;
	}
	if (!size || len > size) {
		ret = -EINVAL;
		goto out_unlock;
	}
	if (!m && !np_db_mappable(q)) {
		ret = -EPERM;
		goto out_unlock;
	}
	/* the controller writes the CQ; the process only reads it */
	if (region == NP_REGION_CQ) {
		if (vma->vm_flags & VM_WRITE) {
			ret = -EACCES;
			goto out_unlock;
		}
		vm_flags_clear(vma, VM_MAYWRITE);
	}
	if (!m)
		vma->vm_page_prot = pgprot_noncached(vma->vm_page_prot);
	else if (m->provider)
		vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
		     VM_DONTCOPY);
	vma->vm_private_data = f;
	vma->vm_ops = &np_vm_ops;
out_unlock:
	up_read(&f->map_lock);
	return ret;
}

static const struct file_operations np_fops = {
	.owner = THIS_MODULE,
	.open = np_file_open,
	.release = np_file_release,
	.unlocked_ioctl = np_file_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.poll = np_file_poll,
	.mmap = np_file_mmap,
	.llseek = noop_llseek,
};

static struct miscdevice np_miscdev = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = "nvme-peer",
	.fops = &np_fops,
	.mode = 0666,
};

/*
 * The uAPI's layout, pinned: an offset or a size that moves, or an ioctl
 * number whose size is not its struct's VER0 size, fails the build.  The
 * selftest uapi_test checks the same from user space.
 */
#define NP_SIZE(s, n)	BUILD_BUG_ON(sizeof(struct nvme_peer_##s) != (n))
#define NP_IOC(cmd, n)	BUILD_BUG_ON(_IOC_SIZE(NVME_PEER_IOC_##cmd) != (n))
#define NP_AT(s, f, off) \
	BUILD_BUG_ON(offsetof(struct nvme_peer_##s, f) != (off))

static void np_uapi_layout(void)
{
	NP_SIZE(extent, 16);
	NP_AT(extent, slba, 0); NP_AT(extent, nlb, 8);
	NP_SIZE(dmabuf_region, 24);
	NP_AT(dmabuf_region, fd, 0); NP_AT(dmabuf_region, rsvd, 4);
	NP_AT(dmabuf_region, offset, 8); NP_AT(dmabuf_region, length, 16);
	NP_SIZE(reserve, NVME_PEER_RESERVE_SIZE_VER0);
	NP_IOC(RESERVE, NVME_PEER_RESERVE_SIZE_VER0);
	NP_AT(reserve, size, 0); NP_AT(reserve, flags, 4);
	NP_AT(reserve, ctrl, 8); NP_AT(reserve, nsid, 12);
	NP_AT(reserve, depth, 16); NP_AT(reserve, qid, 20);
	NP_AT(reserve, mode, 24); NP_AT(reserve, opcodes, 28);
	NP_AT(reserve, max_nlb, 32); NP_AT(reserve, nr_extents, 36);
	NP_AT(reserve, extents, 40); NP_AT(reserve, data_size, 48);
	NP_AT(reserve, peer_domain, 56); NP_AT(reserve, peer_bdf, 60);
	NP_AT(reserve, file_fd, 64); NP_AT(reserve, file_access, 68);
	NP_AT(reserve, file_off, 72); NP_AT(reserve, file_len, 80);
	NP_AT(reserve, sq_placement, 88); NP_AT(reserve, cq_placement, 89);
	NP_AT(reserve, data_placement, 90); NP_AT(reserve, rsvd, 91);
	NP_AT(reserve, sq_buf, 96); NP_AT(reserve, cq_buf, 120);
	NP_AT(reserve, data_buf, 144);
	NP_SIZE(attach, NVME_PEER_ATTACH_SIZE_VER0);
	NP_IOC(ATTACH, NVME_PEER_ATTACH_SIZE_VER0);
	NP_AT(attach, size, 0); NP_AT(attach, flags, 4); NP_AT(attach, ctrl, 8);
	NP_AT(attach, qid, 12); NP_AT(attach, name, 16);
	NP_SIZE(info, NVME_PEER_INFO_SIZE_VER0);
	NP_IOC(QUERY, NVME_PEER_INFO_SIZE_VER0);
	NP_AT(info, size, 0); NP_AT(info, flags, 4); NP_AT(info, ctrl, 8);
	NP_AT(info, qid, 12); NP_AT(info, nsid, 16); NP_AT(info, depth, 20);
	NP_AT(info, lba_shift, 24); NP_AT(info, state, 28);
	NP_AT(info, reason, 32); NP_AT(info, db_stride, 36);
	NP_AT(info, sq_off, 40); NP_AT(info, sq_size, 48);
	NP_AT(info, cq_off, 56); NP_AT(info, cq_size, 64);
	NP_AT(info, data_off, 72); NP_AT(info, data_size, 80);
	NP_AT(info, db_off, 88); NP_AT(info, db_size, 96);
	NP_AT(info, sq_db_in_page, 104); NP_AT(info, cq_db_in_page, 108);
	NP_AT(info, data_ctrl_addr, 112); NP_AT(info, sq_addr, 120);
	NP_AT(info, cq_addr, 128); NP_AT(info, data_addr, 136);
	NP_AT(info, sq_db_addr, 144); NP_AT(info, cq_db_addr, 152);
	NP_AT(info, mode, 160); NP_AT(info, guarantee, 164);
	NP_AT(info, file_dev, 168); NP_AT(info, file_access, 172);
	NP_AT(info, file_ino, 176); NP_AT(info, file_off, 184);
	NP_AT(info, file_len, 192); NP_AT(info, file_extents, 200);
	NP_AT(info, lease, 204); NP_AT(info, sq_placement, 208);
	NP_AT(info, cq_placement, 209); NP_AT(info, data_placement, 210);
	NP_AT(info, sq_location, 211); NP_AT(info, cq_location, 212);
	NP_AT(info, data_location, 213); NP_AT(info, rsvd, 214);
	NP_SIZE(file_extent, 24);
	NP_AT(file_extent, off, 0); NP_AT(file_extent, slba, 8);
	NP_AT(file_extent, nlb, 16);
	NP_SIZE(file_map, NVME_PEER_FILE_MAP_SIZE_VER0);
	NP_IOC(FILE_MAP, NVME_PEER_FILE_MAP_SIZE_VER0);
	NP_AT(file_map, size, 0); NP_AT(file_map, flags, 4);
	NP_AT(file_map, nr, NP_LIST_NR_OFF); NP_AT(file_map, rsvd, 12);
	NP_AT(file_map, extents, 16);
	NP_SIZE(ring, NVME_PEER_RING_SIZE_VER0);
	NP_IOC(RING, NVME_PEER_RING_SIZE_VER0);
	NP_AT(ring, size, 0); NP_AT(ring, flags, 4); NP_AT(ring, sq_tail, 8);
	NP_AT(ring, cq_head, 12);
	NP_SIZE(window_req, NVME_PEER_WINDOW_SIZE_VER0);
	NP_IOC(WINDOW, NVME_PEER_WINDOW_SIZE_VER0);
	NP_AT(window_req, size, 0); NP_AT(window_req, flags, 4);
	NP_AT(window_req, ctrl, 8); NP_AT(window_req, nsid, 12);
	NP_AT(window_req, nr_extents, 16); NP_AT(window_req, lba_shift, 20);
	NP_AT(window_req, extents, 24); NP_AT(window_req, file_fd, 32);
	NP_AT(window_req, rsvd, 36); NP_AT(window_req, file_off, 40);
	NP_AT(window_req, file_len, 48); NP_AT(window_req, mmap_off, 56);
	NP_AT(window_req, view_size, 64); NP_AT(window_req, guarantee, 72);
	NP_AT(window_req, rsvd2, 76);
	NP_SIZE(window_piece, 24);
	NP_AT(window_piece, view_off, 0); NP_AT(window_piece, len, 8);
	NP_AT(window_piece, bus_addr, 16);
	NP_SIZE(window_map, NVME_PEER_WINDOW_MAP_SIZE_VER0);
	NP_IOC(WINDOW_MAP, NVME_PEER_WINDOW_MAP_SIZE_VER0);
	NP_AT(window_map, size, 0); NP_AT(window_map, flags, 4);
	NP_AT(window_map, nr, NP_LIST_NR_OFF); NP_AT(window_map, rsvd, 12);
	NP_AT(window_map, pieces, 16);
}

#undef NP_AT
#undef NP_IOC
#undef NP_SIZE

int np_cdev_init(void)
{
	np_uapi_layout();
	return misc_register(&np_miscdev);
}

void np_cdev_exit(void)
{
	misc_deregister(&np_miscdev);
}
