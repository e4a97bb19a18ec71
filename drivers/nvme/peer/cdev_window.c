// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: /dev/nvme-peer's read-only windows (NVME_PEER_IOC_WINDOW).
 * An open file holds one window or one queue, never both, never a second
 * (-EBUSY).  Its view is mapped at the file's mmap offset, MAP_SHARED and
 * read only; a fault inserts the provider page that shows the view page,
 * or raises SIGBUS outside the window's pieces and once it is revoked.
 * See include/uapi/linux/nvme_peer.h and window.c.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/file.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "cdev.h"

/* The owner callback: every mapping goes before the peer's. */
static void np_window_revoke(struct nvme_peer_window *w,
			     enum nvme_peer_reason reason, void *priv)
{
	np_file_revoked(priv);
}

/* The shape of a WINDOW argument: -EINVAL */
static int np_window_arg_ok(const struct nvme_peer_window_req *r)
{
	bool file = r->flags & NVME_PEER_WINDOW_FILE;

	if (r->flags & ~NVME_PEER_WINDOW_FILE || r->rsvd || r->rsvd2 ||
	    r->lba_shift || r->mmap_off || r->view_size || r->guarantee)
		return -EINVAL;
	if (r->nr_extents > NVME_PEER_MAX_EXTENTS ||
	    !r->extents != !r->nr_extents)
		return -EINVAL;
	if (file ? r->nr_extents : r->file_fd || r->file_off || r->file_len)
		return -EINVAL;
	return 0;
}

static int np_window_params(const struct nvme_peer_window_req *r,
			    struct nvme_peer_window_params *p)
{
	struct nvme_peer_extent *ext;

	p->nsid = r->nsid;
	if (r->flags & NVME_PEER_WINDOW_FILE) {
		p->file.file = fget(r->file_fd);
		if (!p->file.file)
			return -EBADF;
		p->file.off = r->file_off;
		p->file.len = r->file_len;
		p->file.access = NVME_PEER_ACCESS_READ;
		return 0;
	}
	if (!r->nr_extents)
		return 0;
	ext = kvmalloc_array(r->nr_extents, sizeof(*ext), GFP_KERNEL);
	if (!ext)
		return -ENOMEM;
	if (copy_from_user(ext, u64_to_user_ptr(r->extents),
			   r->nr_extents * sizeof(*ext))) {
		kvfree(ext);
		return -EFAULT;
	}
	p->extents = ext;
	p->nr_extents = r->nr_extents;
	return 0;
}

/**
 * np_ioc_window() - NVME_PEER_IOC_WINDOW: a window for this open file
 * @f: the file, its lock held
 * @uarg: struct nvme_peer_window_req
 *
 * Return: 0, or an errno from the uAPI header's and window.c's lists.
 */
int np_ioc_window(struct np_file *f, void __user *uarg)
{
	struct nvme_peer_window_params p = { };
	struct nvme_peer_window_req r;
	struct nvme_peer_ctrl *pctrl;
	struct nvme_peer_window *w;
	struct np_win_desc d;
	u32 usize;
	int ret;

	lockdep_assert_held(&f->lock);
	ret = np_copy_arg(&r, sizeof(r), NVME_PEER_WINDOW_SIZE_VER0, uarg,
			  &usize);
	if (!ret)
		ret = np_window_arg_ok(&r);
	if (ret)
		return ret;
	if (f->spent)
		return -EBUSY;
	ret = np_window_params(&r, &p);
	if (ret)
		goto out_free;
	pctrl = np_ctrl_get_by_instance(r.ctrl);
	ret = -ENODEV;
	if (!pctrl)
		goto out_free;
	p.revoke = np_window_revoke;
	p.priv = f;
	w = np_win_get(pctrl, &p, NP_OWNER_PROCESS, NULL);
	ret = PTR_ERR_OR_ZERO(w);
	if (ret) {
		/*
		 * A window published and revoked before it failed told this
		 * file; no callback comes after the failure: the file is as
		 * it was, for the next request
		 */
		down_write(&f->map_lock);
		f->revoked = false;
		up_write(&f->map_lock);
		nvme_peer_ctrl_put(pctrl);
		goto out_free;
	}
	down_write(&f->map_lock);
	f->w = w;
	f->pctrl = pctrl;
	f->spent = true;
	up_write(&f->map_lock);

	np_win_describe(w, &d);
	r.lba_shift = d.lba_shift;
	r.mmap_off = f->base;
	r.view_size = d.view_size;
	r.guarantee = d.guarantee;
	if (copy_to_user(uarg, &r, min_t(u32, usize, sizeof(r)))) {
		np_file_drop(f);
		ret = -EFAULT;
	}
out_free:
	if (p.file.file)
		fput(p.file.file);
	kvfree(p.extents);
	return ret;
}

/**
 * np_window_attach() - NVME_PEER_IOC_ATTACH of an administrator's window
 * @f: the file, its lock held, holding nothing yet
 * @pctrl: the provider's controller, a reference the file keeps
 * @name: the window intent's name
 *
 * Return: 0, or np_win_attach()'s errno.
 */
int np_window_attach(struct np_file *f, struct nvme_peer_ctrl *pctrl,
		     const char *name)
{
	struct nvme_peer_window *w;

	lockdep_assert_held(&f->lock);
	w = np_win_attach(pctrl, name, np_window_revoke, f);
	if (IS_ERR(w))
		return PTR_ERR(w);
	down_write(&f->map_lock);
	f->w = w;
	f->pctrl = pctrl;
	f->attached = true;
	f->spent = true;
	up_write(&f->map_lock);
	return 0;
}

/**
 * np_ioc_window_map() - NVME_PEER_IOC_WINDOW_MAP: the pieces and bus addresses
 * @f: the file
 * @uarg: struct nvme_peer_window_map
 *
 * Return: 0; -ENXIO without a window or once it is revoked, -EINVAL,
 * -EFAULT, -ENOMEM.
 */
int np_ioc_window_map(struct np_file *f, void __user *uarg)
{
	struct nvme_peer_window_piece *out = NULL;
	struct nvme_peer_window_map m;
	struct nvme_peer_window *w;
	int total, ret;
	u32 usize, n;

	ret = np_copy_arg(&m, sizeof(m), NVME_PEER_WINDOW_MAP_SIZE_VER0, uarg,
			  &usize);
	if (ret)
		return ret;
	if (m.flags || m.rsvd)
		return -EINVAL;
	/* the pieces are immutable: copy them out without map_lock */
	down_read(&f->map_lock);
	w = f->w ? np_window_hold(f->w) : NULL;
	up_read(&f->map_lock);
	if (!w)
		return -ENXIO;
	total = np_win_pieces(w, NULL, 0);
	ret = total;
	if (total < 0)
		goto out_put;
	n = min_t(u32, m.nr, total);
	ret = -ENOMEM;
	out = n ? kvcalloc(n, sizeof(*out), GFP_KERNEL) : NULL;
	if (n && !out)
		goto out_put;
	ret = np_win_pieces(w, out, n);
	if (ret >= 0)
		ret = np_list_out(uarg, m.pieces, out, sizeof(*out), n, total);
out_put:
	kvfree(out);
	np_window_free(w);
	return ret;
}

/**
 * np_window_query() - NVME_PEER_IOC_QUERY of a window's file
 * @f: the file, map_lock held
 * @info: filled in
 * @usize: the size user space gave
 *
 * Return: 0.
 */
int np_window_query(struct np_file *f, struct nvme_peer_info *info, u32 usize)
{
	struct np_win_desc d;

	lockdep_assert_held(&f->map_lock);
	np_win_describe(f->w, &d);
	memset(info, 0, sizeof(*info));
	info->size = min_t(u32, usize, sizeof(*info));
	info->flags = NVME_PEER_INFO_WINDOW;
	info->ctrl = d.ctrl;
	info->nsid = d.nsid;
	info->lba_shift = d.lba_shift;
	info->state = d.reason ? NVME_PEER_STATE_REVOKED : NVME_PEER_STATE_ACTIVE;
	info->reason = d.reason;
	info->guarantee = d.guarantee;
	info->data_off = f->base;
	info->data_size = d.view_size;
	if (d.bind.nr_map) {
		info->flags |= NVME_PEER_INFO_FILE;
		info->file_dev = new_encode_dev(d.bind.dev);
		info->file_access = d.bind.access;
		info->file_ino = d.bind.ino;
		info->file_off = d.bind.off;
		info->file_len = d.bind.len;
		info->file_extents = d.bind.nr_map;
		info->lease = d.bind.lease;
	}
	return 0;
}

/**
 * np_window_mmap() - map (part of) a window's view, read only
 * @f: the file, map_lock held, holding a window
 * @vma: at the view's offset or further in, no longer than the view
 *
 * Return: 0; -EACCES for a writable mapping, -EINVAL outside the view.
 */
int np_window_mmap(struct np_file *f, struct vm_area_struct *vma)
{
	u64 off = ((u64)vma->vm_pgoff << PAGE_SHIFT) - f->base;
	u64 len = vma->vm_end - vma->vm_start;
	struct np_win_desc d;

	lockdep_assert_held(&f->map_lock);
	np_win_describe(f->w, &d);
	if (off >= d.view_size || len > d.view_size - off)
		return -EINVAL;
	if (vma->vm_flags & VM_WRITE)
		return -EACCES;
	/* mprotect(PROT_WRITE) is refused from now on */
	vm_flags_clear(vma, VM_MAYWRITE);
	vma->vm_page_prot = pgprot_writecombine(vma->vm_page_prot);
	vm_flags_set(vma, VM_IO | VM_PFNMAP | VM_DONTEXPAND | VM_DONTDUMP |
		     VM_DONTCOPY);
	vma->vm_private_data = f;
	return 0;
}

/**
 * np_window_fault() - the provider page showing a view page
 * @f: the file, map_lock held, holding a window not revoked
 * @vmf: the fault
 *
 * Return: VM_FAULT_NOPAGE, or VM_FAULT_SIGBUS where no piece shows it.
 */
vm_fault_t np_window_fault(struct np_file *f, struct vm_fault *vmf)
{
	u64 view = ((u64)vmf->pgoff << PAGE_SHIFT) - f->base;
	unsigned long pfn;

	lockdep_assert_held(&f->map_lock);
	if (np_win_pfn(f->w, view, &pfn))
		return VM_FAULT_SIGBUS;
	return vmf_insert_pfn(vmf->vma, vmf->address, pfn);
}
