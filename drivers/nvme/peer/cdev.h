/* SPDX-License-Identifier: GPL-2.0 */
/*
 * /dev/nvme-peer's open file, between cdev.c (queues: reserve, attach,
 * query, ring, their mmap) and cdev_window.c (read-only windows).
 * Private to those two files.
 */
#ifndef _NVME_PEER_CDEV_H
#define _NVME_PEER_CDEV_H

#include <linux/fs.h>
#include <linux/mm.h>
#include <linux/rwsem.h>
#include <linux/wait.h>
#include <uapi/linux/nvme_peer.h>

#include "nvme-peer.h"

#define NP_REGION_SHIFT		28	/* a queue's regions: 256 MiB apart */
#define NP_FILE_SHIFT		40	/* each file's mmap offsets: 1 TiB */

struct np_file {
	struct mutex lock;		/* serialises reserve/attach/release */
	/*
	 * Guards @q and @w for faults, mmap, poll, query and ring, and
	 * orders them against revocation: the revoke callback takes it for
	 * writing.
	 */
	struct rw_semaphore map_lock;
	struct nvme_peer_queue *q;
	struct nvme_peer_window *w;	/* or a window (cdev_window.c) */
	struct nvme_peer_ctrl *pctrl;
	bool attached;			/* to an administrator's reservation */
	bool spent;			/* held one: no second reservation */
	bool revoked;
	struct address_space *mapping;
	wait_queue_head_t wait;
	u64 base;			/* mmap offset window */
	int id;
};

/* cdev.c */
void np_file_revoked(struct np_file *f);
void np_file_drop(struct np_file *f);
int np_copy_arg(void *dst, size_t ksize, size_t ver0, void __user *uarg,
		u32 *usize);
/* FILE_MAP's and WINDOW_MAP's nr: where np_list_out() puts the count */
#define NP_LIST_NR_OFF		8
int np_list_out(void __user *uarg, u64 uptr, const void *items, size_t size,
		u32 n, u32 total);

/* cdev_window.c */
int np_ioc_window(struct np_file *f, void __user *uarg);
int np_ioc_window_map(struct np_file *f, void __user *uarg);
int np_window_attach(struct np_file *f, struct nvme_peer_ctrl *pctrl,
		     const char *name);
int np_window_query(struct np_file *f, struct nvme_peer_info *info, u32 usize);
int np_window_mmap(struct np_file *f, struct vm_area_struct *vma);
vm_fault_t np_window_fault(struct np_file *f, struct vm_fault *vmf);

#endif /* _NVME_PEER_CDEV_H */
