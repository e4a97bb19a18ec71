/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer: every difference between the kernels it supports (Debian's
 * 6.1 and 6.12), one line each, so that no .c file tests a version.
 */
#ifndef _NVME_PEER_COMPAT_H
#define _NVME_PEER_COMPAT_H

#include <linux/mm_types.h>
#include <linux/mmzone.h>
#include <linux/version.h>

/* the one version test: is the kernel built against at least MAJ.MIN? */
#define NP_SINCE(maj, min)	(LINUX_VERSION_CODE >= KERNEL_VERSION(maj, min, 0))

/* 6.4 made MAX_ORDER inclusive and 6.8 renamed it MAX_PAGE_ORDER */
#ifndef MAX_PAGE_ORDER
#define MAX_PAGE_ORDER		(MAX_ORDER - 1)
#endif

/* 6.8 moved lba_shift and ms from struct nvme_ns to struct nvme_ns_head */
#if NP_SINCE(6, 8)
#define np_ns_lba_shift(ns)	((ns)->head->lba_shift)
#define np_ns_ms(ns)		((ns)->head->ms)
#else
#define np_ns_lba_shift(ns)	((ns)->lba_shift)
#define np_ns_ms(ns)		((ns)->ms)
#endif

/* 6.10 walks ctrl->namespaces under ctrl->srcu, namespaces_rwsem is gone */
#if NP_SINCE(6, 10)
#define np_ns_list_lock(ctrl)		srcu_read_lock(&(ctrl)->srcu)
#define np_ns_list_unlock(ctrl, idx)	srcu_read_unlock(&(ctrl)->srcu, idx)
#define np_ns_list_held(ctrl)		srcu_read_lock_held(&(ctrl)->srcu)
#else
#define np_ns_list_lock(ctrl)		(down_read(&(ctrl)->namespaces_rwsem), 0)
#define np_ns_list_unlock(ctrl, idx)	((void)(idx), up_read(&(ctrl)->namespaces_rwsem))
#define np_ns_list_held(ctrl)		lockdep_is_held(&(ctrl)->namespaces_rwsem)
#endif

/* 6.12's stable updates moved driver_override into struct device; "" clears */
#if NP_SINCE(6, 12)
#define np_set_driver_override(pdev, s)	device_set_driver_override(&(pdev)->dev, s)
#else
#include <linux/pci.h>
static inline int np_set_driver_override(struct pci_dev *pdev, const char *s)
{
	return driver_set_override(&pdev->dev, &pdev->driver_override, s, strlen(s));
}
#endif

/* 6.3 made vma->vm_flags read-only: set and clear it with these */
#if !NP_SINCE(6, 3)
static inline void vm_flags_set(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags |= flags;
}

static inline void vm_flags_clear(struct vm_area_struct *vma, vm_flags_t flags)
{
	vma->vm_flags &= ~flags;
}
#endif

/*
 * 6.9 split leases from locks: struct file_lease, its own allocator and
 * kernel_setlease(), which applies no check; 6.1's vfs_setlease() ends in
 * generic_setlease(), which requires the inode's owner or CAP_LEASE of
 * current's credentials.  nvme-peer applies that rule itself when it binds
 * (np_lease_may()) and sets and removes its leases with a kernel
 * credential (np_kernel_cred()), so neither step depends on the kernel.
 */
#if NP_SINCE(6, 9)
#include <linux/filelock.h>
#define np_lease		file_lease
#define np_lease_ops		lease_manager_operations
#define np_lease_alloc()	locks_alloc_lease()
#define np_lease_free(fl)	locks_free_lease(fl)
#define np_kernel_setlease(f, arg, fl, priv)	kernel_setlease(f, arg, fl, priv)

static inline void *np_lease_owner(struct file_lease *fl)
{
	return fl->c.flc_owner;
}

/* a read layout lease on @file for @owner */
static inline void np_lease_init(struct file_lease *fl, struct file *file,
				 void *owner)
{
	fl->c.flc_flags = FL_LAYOUT;
	fl->c.flc_type = F_RDLCK;
	fl->c.flc_owner = owner;
	fl->c.flc_pid = current->tgid;
	fl->c.flc_file = file;
}
#else
#include <linux/fs.h>
#define np_lease		file_lock
#define np_lease_ops		lock_manager_operations
#define np_lease_alloc()	locks_alloc_lock()
#define np_lease_free(fl)	locks_free_lock(fl)
#define np_kernel_setlease(f, arg, fl, priv)	vfs_setlease(f, arg, fl, priv)

static inline void *np_lease_owner(struct file_lock *fl)
{
	return fl->fl_owner;
}

static inline void np_lease_init(struct file_lock *fl, struct file *file,
				 void *owner)
{
	locks_init_lock(fl);
	fl->fl_flags = FL_LAYOUT;
	fl->fl_type = F_RDLCK;
	fl->fl_end = OFFSET_MAX;
	fl->fl_owner = owner;
	fl->fl_pid = current->tgid;
	fl->fl_file = file;
}
#endif

/* 6.3 replaced a mount's user namespace by its idmap */
#if NP_SINCE(6, 3)
#define np_file_idmap(f)	file_mnt_idmap(f)
#else
#define np_file_idmap(f)	file_mnt_user_ns(f)
#endif

/* 6.2: prepare_kernel_cred() wants a task, NULL no longer means init's */
#if NP_SINCE(6, 2)
#define np_kernel_cred()	prepare_kernel_cred(&init_task)
#else
#define np_kernel_cred()	prepare_kernel_cred(NULL)
#endif

#endif /* _NVME_PEER_COMPAT_H */
