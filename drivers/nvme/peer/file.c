// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: file-bound reservations.
 *
 * A byte range of a file becomes a mediated queue's extents, the way the
 * pNFS block layout server hands out a layout (fs/nfsd/blocklayout.c):
 * take a layout lease (FL_LAYOUT) first, then map the range with the file
 * system's ->map_blocks().  The lease keeps the mapped blocks the file's:
 * before XFS changes the range's layout (truncate, fallocate, write(2),
 * reflink, dedupe) it breaks the lease and waits until it is given back.
 * nvme-peer fences the queue from a work item (->lm_break() runs under a
 * spinlock; np_fence() returns only when the controller holds no command
 * of the queue), then gives the lease back.  See "File-bound queues" in
 * Documentation/nvme/peer-queues.rst.
 *
 * The lease is nvme-peer's own, as nfsd's layouts are: taken on a struct
 * file nvme-peer opens itself (the caller's F_SETOWN and F_GETLEASE never
 * see it), set and removed with a kernel credential, so giving it back
 * cannot fail on a permission check, on 6.1 as on 6.12.  Whether the
 * caller may hold a lease on the file at all (its owner, or CAP_LEASE) is
 * checked here when it binds, the same on every kernel.  The binding is
 * freed only after the lease is off the inode: ->lm_break() reads it.
 *
 * A frozen file system holds up whatever starts a transaction: the time
 * update after a peer may have written, and the last close of a file open
 * for writing (XFS trims blocks past EOF).  Nothing waits for either
 * while it is frozen: a release waits for the lease and the page cache
 * only (neither needs a thaw); the time update is made at once if the
 * file system takes a write, else by a work item of its own after the
 * thaw; the file is closed from np_wq then.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/blkdev.h>
#include <linux/cred.h>
#include <linux/exportfs.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/iomap.h>
#include <linux/kref.h>
#include <linux/pagemap.h>
#include <linux/sched/task.h>
#include <linux/slab.h>

#include "nvme-peer.h"

/* how long a layout break waits for forwarded commands: then Delete SQ */
#define NP_LAYOUT_BUDGET	(HZ)

/* A file range bound to a reservation; freed with its last reference. */
struct np_bind {
	struct kref ref;		/* the queue's, and a pending break's */
	struct file *file;		/* nvme-peer's own open of the file */
	const struct cred *cred;	/* a kernel credential, for the lease */
	u64 off, len;
	u32 access;
	u64 part_off;			/* partition start on the namespace, bytes */

	spinlock_t lock;		/* @q, @w, @lease */
	struct nvme_peer_queue *q;	/* NULL before attach and once freed */
	struct nvme_peer_window *w;	/* or the window it is bound to */
	bool attached;			/* the peer may have used the range */
	enum nvme_peer_lease lease;
	ktime_t break_start;

	struct mutex lease_lock;	/* the lease is given back once */
	bool lease_held;
	bool lease_stuck;		/* giving it back failed: never freed */
	u64 fence_ns;			/* last break: broken -> given back */
	struct work_struct break_work;
	struct work_struct put_work;	/* the queue let go: np_bind_put() */
	struct work_struct time_work;	/* mtime and ctime: waits for a thaw */
	struct work_struct free_work;	/* the last reference went */

	/* the written blocks of the range, in file order (immutable) */
	struct nvme_peer_file_extent *map;
	u64 *daddr;			/* each piece's byte address */
	u32 nr_map;
	struct nvme_peer_extent *lbas;	/* the same, as the policy's extents */
};

/**
 * np_file_frozen() - whether closing @file now may wait for a thaw
 * @file: a file nvme-peer opened
 *
 * The last close of a file open for writing may start a transaction (XFS
 * trims the blocks past EOF), which waits while its file system is frozen.
 * A freeze that begins after the check is waited for by the closing
 * process on its way back to user space (fput()'s task work), with no
 * lock held.
 *
 * Return: true if @file is open for writing on a frozen file system.
 */
bool np_file_frozen(struct file *file)
{
	return (file->f_mode & FMODE_WRITE) &&
	       READ_ONCE(file_inode(file)->i_sb->s_writers.frozen) !=
	       SB_UNFROZEN;
}

static void np_bind_do_free(struct np_bind *b)
{
	if (b->cred)
		put_cred(b->cred);
	if (b->file)
		fput(b->file);
	kvfree(b->map);
	kvfree(b->daddr);
	kvfree(b->lbas);
	kfree(b);
}

/* From np_wq: fput() there is deferred, the close waits for no thaw. */
static void np_bind_free_work(struct work_struct *work)
{
	np_bind_do_free(container_of(work, struct np_bind, free_work));
}

/*
 * The last reference may go in a process (np_bind_sync()): the file is
 * closed before it returns to user space (an unmount may follow), unless
 * that would wait for a thaw.
 */
static void np_bind_free(struct kref *ref)
{
	struct np_bind *b = container_of(ref, struct np_bind, ref);

	if (b->lease_stuck)
		return;		/* ->lm_break() may still read it: leaked */
	if (b->file && np_file_frozen(b->file))
		queue_work(np_wq, &b->free_work);
	else
		np_bind_do_free(b);
}

/* Set or remove nvme-peer's lease with its kernel credential. */
static int np_bind_setlease(struct np_bind *b, long arg, struct np_lease **fl)
{
	const struct cred *old = override_creds(b->cred);
	void *owner = b;
	int ret;

	ret = np_kernel_setlease(b->file, arg, fl, fl ? NULL : &owner);
	revert_creds(old);
	return ret;
}

/*
 * Give the lease back (once): the breaking operation proceeds.  The state
 * says "returned" first: the breaker may return, and its caller look, as
 * soon as the lease is off the inode.  With a kernel credential on our own
 * file this cannot fail; if it ever did, the binding is never freed.
 */
static void np_bind_return_lease(struct np_bind *b)
{
	int ret;

	mutex_lock(&b->lease_lock);
	if (b->lease_held) {
		spin_lock(&b->lock);
		if (b->lease == NVME_PEER_LEASE_BREAKING)
			b->fence_ns = ktime_to_ns(ktime_sub(ktime_get(),
							    b->break_start));
		b->lease = NVME_PEER_LEASE_RETURNED;
		spin_unlock(&b->lock);
		ret = np_bind_setlease(b, F_UNLCK, NULL);
		if (WARN_ON_ONCE(ret))
			b->lease_stuck = true;
		np_inject_lease_returned();
		b->lease_held = false;
	}
	mutex_unlock(&b->lease_lock);
}

/* The file's times, after the thaw. */
static void np_bind_time_work(struct work_struct *work)
{
	struct np_bind *b = container_of(work, struct np_bind, time_work);
	struct super_block *sb = file_inode(b->file)->i_sb;

	sb_start_write(sb);
	file_update_time(b->file);
	sb_end_write(sb);
	kref_put(&b->ref, np_bind_free);
}

/*
 * The peer may have written the range behind the page cache's back: drop
 * the cached pages so that readers see the media, and tell them it changed:
 * at once unless the file system is frozen (or freezing), else after the
 * thaw, from a work item nobody waits for.
 */
static void np_bind_written(struct np_bind *b)
{
	struct address_space *mapping;
	struct super_block *sb;
	int ret;

	if (!(b->access & NVME_PEER_ACCESS_WRITE) || !b->attached)
		return;
	sb = file_inode(b->file)->i_sb;
	mapping = b->file->f_mapping;
	ret = invalidate_inode_pages2_range(mapping, b->off >> PAGE_SHIFT,
					    (b->off + b->len - 1) >> PAGE_SHIFT);
	if (ret)
		pr_warn("inode %lu: cached pages of a peer-written range stay (%d)\n",
			file_inode(b->file)->i_ino, ret);
	if (sb_start_write_trylock(sb)) {
		file_update_time(b->file);
		sb_end_write(sb);
		return;
	}
	kref_get(&b->ref);
	if (!queue_work(np_wq, &b->time_work))
		kref_put(&b->ref, np_bind_free);	/* pending: it holds one */
}

/*
 * The file system is about to change the file's layout and waits for the
 * lease: fence the queue (no more forwarding, forwarded commands complete
 * or are aborted by Delete SQ), tell its owner, give the lease back.
 */
static void np_bind_break_work(struct work_struct *work)
{
	struct np_bind *b = container_of(work, struct np_bind, break_work);
	struct nvme_peer_window *w = NULL;
	struct nvme_peer_queue *q = NULL;
	enum np_fence_how how;

	spin_lock(&b->lock);
	if (b->q && kobject_get_unless_zero(&b->q->kobj))
		q = b->q;
	if (b->w)
		w = np_window_hold(b->w);
	spin_unlock(&b->lock);
	if (w) {
		/* loads and the peer's mappings are gone when this returns */
		np_win_revoke_one(w, NVME_PEER_REASON_LAYOUT);
		np_window_free(w);
	}
	if (q) {
		how = np_fence(q, NVME_PEER_REASON_LAYOUT, NP_LAYOUT_BUDGET, 0);
		if (how == NP_FENCED_DELETED || how == NP_FENCED_RESET)
			pr_warn("%s: qid %u held commands at a layout break for over %u ms: %s\n",
				q->pctrl->name, q->qid,
				jiffies_to_msecs(NP_LAYOUT_BUDGET),
				np_fence_how_name(how));
		np_bind_written(b);
		kobject_put(&q->kobj);
	}
	np_bind_return_lease(b);
	kref_put(&b->ref, np_bind_free);
}

/* np_bind_put()'s file-system work, away from the caller's locks. */
static void np_bind_put_work(struct work_struct *work)
{
	struct np_bind *b = container_of(work, struct np_bind, put_work);

	np_bind_return_lease(b);
	np_bind_written(b);
	kref_put(&b->ref, np_bind_free);
}

/* Called by the lease code with its spinlock held: no sleeping. */
static bool np_lease_break(struct np_lease *fl)
{
	struct np_bind *b = np_lease_owner(fl);

	fl->fl_break_time = 0;		/* we give it back, within the budget */
	spin_lock(&b->lock);
	if (b->lease == NVME_PEER_LEASE_HELD) {
		b->lease = NVME_PEER_LEASE_BREAKING;
		b->break_start = ktime_get();
		kref_get(&b->ref);
		queue_work(np_wq, &b->break_work);
	}
	spin_unlock(&b->lock);
	return false;
}

static int np_lease_change(struct np_lease *fl, int arg,
			   struct list_head *dispose)
{
	return lease_modify(fl, arg, dispose);
}

static const struct np_lease_ops np_layout_lease_ops = {
	.lm_break = np_lease_break,
	.lm_change = np_lease_change,
};

/*
 * Who may hold a lease on @file: its owner, or a caller with CAP_LEASE (the
 * rule of fcntl(F_SETLEASE)), checked with current's credentials.
 */
static bool np_lease_may(struct file *file)
{
	vfsuid_t owner = i_uid_into_vfsuid(np_file_idmap(file),
					   file_inode(file));

	return vfsuid_eq_kuid(owner, current_fsuid()) || capable(CAP_LEASE);
}

/* Open the caller's file again for nvme-peer, and take the lease on it. */
static int np_bind_take_lease(struct np_bind *b, struct file *file)
{
	struct np_lease *fl;
	struct file *own;
	int ret;

	if (!np_lease_may(file))
		return -EACCES;
	b->cred = np_kernel_cred();
	if (!b->cred)
		return -ENOMEM;
	own = dentry_open(&file->f_path, O_LARGEFILE |
			  (b->access & NVME_PEER_ACCESS_WRITE ? O_RDWR : O_RDONLY),
			  file->f_cred);
	if (IS_ERR(own))
		return PTR_ERR(own);
	b->file = own;
	fl = np_lease_alloc();
	if (!fl)
		return -ENOMEM;
	np_lease_init(fl, b->file, b);
	fl->fl_lmops = &np_layout_lease_ops;
	/* held before it is on the inode: a break may come at once */
	b->lease_held = true;
	b->lease = NVME_PEER_LEASE_HELD;
	ret = np_bind_setlease(b, F_RDLCK, &fl);
	if (fl)			/* not used: an error, or it joined ours */
		np_lease_free(fl);
	if (ret) {
		b->lease_held = false;
		b->lease = NVME_PEER_LEASE_NONE;
	}
	return ret;
}

/* Double the map's room (*@room pieces). */
static int np_bind_grow(struct np_bind *b, u32 *room)
{
	u32 want = *room ? min_t(u32, 2 * *room, NVME_PEER_MAX_EXTENTS) : 16;
	struct nvme_peer_file_extent *map;
	u64 *daddr;

	map = kvmalloc_array(want, sizeof(*map), GFP_KERNEL);
	daddr = kvmalloc_array(want, sizeof(*daddr), GFP_KERNEL);
	if (!map || !daddr) {
		kvfree(map);
		kvfree(daddr);
		return -ENOMEM;
	}
	if (b->nr_map) {
		memcpy(map, b->map, b->nr_map * sizeof(*map));
		memcpy(daddr, b->daddr, b->nr_map * sizeof(*daddr));
	}
	kvfree(b->map);
	kvfree(b->daddr);
	b->map = map;
	b->daddr = daddr;
	*room = want;
	return 0;
}

/* Append [pos, pos + len) at byte @daddr, merging with the last piece. */
static int np_bind_add(struct np_bind *b, u64 pos, u64 daddr, u64 len,
		       u32 *room)
{
	struct nvme_peer_file_extent *last = b->nr_map ?
					      &b->map[b->nr_map - 1] : NULL;
	int ret;

	if (last && last->off + last->nlb == pos &&
	    b->daddr[b->nr_map - 1] + last->nlb == daddr) {
		last->nlb += len;	/* bytes until np_bind_policy() */
		return 0;
	}
	if (b->nr_map == NVME_PEER_MAX_EXTENTS)
		return -E2BIG;
	if (b->nr_map == *room) {
		ret = np_bind_grow(b, room);
		if (ret)
			return ret;
	}
	b->map[b->nr_map].off = pos;
	b->map[b->nr_map].nlb = len;
	b->daddr[b->nr_map++] = daddr;
	return 0;
}

/*
 * Map the range: written blocks only.  Holes and unwritten (preallocated)
 * extents stay out of the map, so the guard refuses them; ->map_blocks()
 * writes delayed allocations back first and refuses reflinked inodes.
 */
static int np_bind_map(struct np_bind *b)
{
	struct inode *inode = file_inode(b->file);
	const struct export_operations *ops = inode->i_sb->s_export_op;
	u64 pos = b->off, end = b->off + b->len, n;
	struct iomap map;
	u32 gen, room = 0;
	int ret;

	while (pos < end) {
		memset(&map, 0, sizeof(map));
		ret = ops->map_blocks(inode, pos, end - pos, &map, false, &gen);
		if (ret == -ENXIO)
			pr_info("inode %lu: the file system cannot hand out its blocks (reflinked or realtime file)\n",
				inode->i_ino);
		if (ret)
			return ret;
		if (map.offset > pos || map.offset + map.length <= pos)
			return -EIO;
		n = min(map.offset + map.length, end) - pos;
		if (map.type == IOMAP_MAPPED && !(map.flags & IOMAP_F_SHARED)) {
			ret = np_bind_add(b, pos, map.addr + pos - map.offset,
					  n, &room);
			if (ret)
				return ret;
		}
		pos += n;
	}
	return b->nr_map ? 0 : -ENODATA;
}

/**
 * np_bind_reader_opcodes() - whether a read binding's policy may allow @opcodes
 * @opcodes: the policy's NVME_PEER_OPCODE_* bits; 0 is the default, Read only
 *
 * An allow-list, %NVME_PEER_OPCODES_READERS (Read, Flush): no other opcode, one
 * the guard knows today (Write, Write Zeroes, DSM) or not, is forwarded
 * for a binding whose file access does not include writing.
 *
 * Return: true if every bit of @opcodes is a reader's.
 */
static bool np_bind_reader_opcodes(u32 opcodes)
{
	return !(opcodes & ~NVME_PEER_OPCODES_READERS);
}

/**
 * np_bind_validate() - what a binding asks for that no file can give
 * @p: reservation parameters with @p->file.file set
 *
 * Part of the reservation gate (core.c): checked
 * before the file is looked at, leased or mapped.
 *
 * Return: 0; -EINVAL (not mediated, extents given too, an access other
 * than read or read+write); -EACCES (a read binding whose policy allows an
 * opcode outside %NVME_PEER_OPCODES_READERS).
 */
int np_bind_validate(const struct nvme_peer_params *p)
{
	const struct nvme_peer_file *pf = &p->file;

	if (p->mode != NVME_PEER_MODE_MEDIATED || p->policy.nr_extents ||
	    (pf->access != NVME_PEER_ACCESS_READ &&
	     pf->access != (NVME_PEER_ACCESS_READ | NVME_PEER_ACCESS_WRITE)))
		return -EINVAL;
	if (!(pf->access & NVME_PEER_ACCESS_WRITE) &&
	    !np_bind_reader_opcodes(p->policy.opcodes))
		return -EACCES;
	return 0;
}

/* What this file cannot give: -EISDIR, -EINVAL, -EBADF, -EXDEV... */
static int np_bind_check(const struct nvme_peer_file *pf, struct file *file,
			 u64 *part_off)
{
	struct inode *inode = file_inode(file);
	struct super_block *sb = inode->i_sb;

	if (S_ISDIR(inode->i_mode))
		return -EISDIR;
	if (!S_ISREG(inode->i_mode))
		return -EINVAL;
	if (!(file->f_mode & FMODE_READ) ||
	    ((pf->access & NVME_PEER_ACCESS_WRITE) &&
	     !(file->f_mode & FMODE_WRITE)))
		return -EBADF;
	if (!sb->s_bdev)
		return -EXDEV;
	if (!sb->s_export_op || !sb->s_export_op->map_blocks) {
		pr_info("%s: no ->map_blocks(): cannot bind files (needs CONFIG_EXPORTFS_BLOCK_OPS and XFS)\n",
			sb->s_id);
		return -EOPNOTSUPP;
	}
	if (!pf->len || !IS_ALIGNED(pf->off | pf->len, sb->s_blocksize) ||
	    pf->off + pf->len < pf->off ||
	    pf->off + pf->len > i_size_read(inode))
		return -EINVAL;
	*part_off = (u64)sb->s_bdev->bd_start_sect << SECTOR_SHIFT;
	return 0;
}

/**
 * np_bind_file() - lease and map the file range @pf names
 * @pf: the reservation's or the window's file, @pf->file set
 * @bp: the binding, on success
 *
 * Runs after the reservation gate (np_bind_validate(): a read binding gets
 * a policy of readers only) and before the reservation takes the
 * controller's lock: mapping writes back dirty pages of the file.
 *
 * Return: 0, or -EINVAL (not a regular file, an unaligned range or one
 * past EOF), -EISDIR, -EBADF (not open for the
 * access asked), -EACCES (the caller neither owns the file nor has
 * CAP_LEASE), -EXDEV (not on a block device), -EOPNOTSUPP (no
 * ->map_blocks()), -ENXIO (a reflinked file), -ENODATA (no written block
 * in the range), -E2BIG (more than %NVME_PEER_MAX_EXTENTS pieces),
 * -EAGAIN (the layout changed while mapping), -ENOMEM.
 */
int np_bind_file(const struct nvme_peer_file *pf, struct np_bind **bp)
{
	struct file *file = pf->file;
	struct np_bind *b;
	u64 part_off;
	int ret;

	ret = np_bind_check(pf, file, &part_off);
	if (ret)
		return ret;
	b = kzalloc(sizeof(*b), GFP_KERNEL);
	if (!b)
		return -ENOMEM;
	kref_init(&b->ref);
	b->off = pf->off;
	b->len = pf->len;
	b->access = pf->access;
	b->part_off = part_off;
	spin_lock_init(&b->lock);
	mutex_init(&b->lease_lock);
	INIT_WORK(&b->break_work, np_bind_break_work);
	INIT_WORK(&b->put_work, np_bind_put_work);
	INIT_WORK(&b->time_work, np_bind_time_work);
	INIT_WORK(&b->free_work, np_bind_free_work);

	ret = np_bind_take_lease(b, file);
	if (!ret)
		ret = np_bind_map(b);
	if (ret) {
		np_bind_put(b);
		return ret;
	}
	*bp = b;
	return 0;
}

/**
 * np_bind_on() - whether the bound file lives on a namespace
 * @b: the binding
 * @disk: the reservation's namespace's disk
 *
 * Return: 0, or -EXDEV for a file on another device or namespace.
 */
int np_bind_on(struct np_bind *b, struct gendisk *disk)
{
	return file_inode(b->file)->i_sb->s_bdev->bd_disk == disk ? 0 : -EXDEV;
}

/**
 * np_bind_policy() - the binding's blocks as a mediated queue's extents
 * @b: the binding
 * @lba_shift: the namespace's LBA size
 * @ns_size: the namespace's size in LBAs
 * @pol: its extents are set (the binding owns them)
 *
 * Return: 0, or -EINVAL when the file system's blocks do not fall on LBA
 * boundaries (blocks smaller than an LBA, an unaligned partition) or lie
 * outside the namespace.
 */
int np_bind_policy(struct np_bind *b, u32 lba_shift, u64 ns_size,
		   struct nvme_peer_policy *pol)
{
	u64 mask = (1ULL << lba_shift) - 1, addr;
	u32 i;

	b->lbas = kvcalloc(b->nr_map, sizeof(*b->lbas), GFP_KERNEL);
	if (!b->lbas)
		return -ENOMEM;
	for (i = 0; i < b->nr_map; i++) {
		addr = b->part_off + b->daddr[i];
		if ((addr | b->map[i].nlb) & mask ||
		    (addr >> lba_shift) + (b->map[i].nlb >> lba_shift) > ns_size)
			return -EINVAL;
		b->map[i].slba = addr >> lba_shift;
		b->map[i].nlb >>= lba_shift;
		b->lbas[i].slba = b->map[i].slba;
		b->lbas[i].nlb = b->map[i].nlb;
	}
	pol->extents = b->lbas;
	pol->nr_extents = b->nr_map;
	return 0;
}

/**
 * np_bind_attach() - a layout break from now on fences @q
 * @b: the binding
 * @q: its reservation, on the controller's queue list
 *
 * Return: 0, or -EAGAIN if the lease was broken before: the layout may
 * have changed since it was mapped.  Then the binding stays detached: a
 * pending break finds no queue, and the release neither drops the page
 * cache nor updates the file's times (the peer never had the range).
 */
int np_bind_attach(struct np_bind *b, struct nvme_peer_queue *q)
{
	int ret = -EAGAIN;

	/* a failed attach leaves nothing for the break or the release */
	spin_lock(&b->lock);
	if (b->lease == NVME_PEER_LEASE_HELD) {
		b->q = q;
		b->attached = true;
		ret = 0;
	}
	spin_unlock(&b->lock);
	return ret;
}

/**
 * np_bind_attach_window() - a layout break from now on revokes @w
 * @b: the binding
 * @w: its window, published (a revocation may find it)
 *
 * Return: 0, or -EAGAIN if the lease was broken before (as
 * np_bind_attach()).
 */
int np_bind_attach_window(struct np_bind *b, struct nvme_peer_window *w)
{
	int ret = -EAGAIN;

	spin_lock(&b->lock);
	if (b->lease == NVME_PEER_LEASE_HELD) {
		b->w = w;
		ret = 0;
	}
	spin_unlock(&b->lock);
	return ret;
}

/**
 * np_bind_put() - a reservation lets go of its binding
 * @b: the binding, or NULL
 *
 * Detaches it from the queue at once; a work item then gives the lease
 * back, drops the page cache of a range the peer may have written, queues
 * the time update and drops the file once no layout break is pending.
 * The queue's last reference may go with pctrl->lock held, and a frozen
 * file system must not block removal: none of that file-system work runs
 * here.
 */
void np_bind_put(struct np_bind *b)
{
	if (!b)
		return;
	spin_lock(&b->lock);
	b->q = NULL;
	b->w = NULL;
	spin_unlock(&b->lock);
	queue_work(np_settle_wq, &b->put_work);
}

/**
 * np_bind_get() - hold a binding across the release of its queue
 * @b: the binding, or NULL
 *
 * Return: @b, to hand to np_bind_sync().
 */
struct np_bind *np_bind_get(struct np_bind *b)
{
	if (b)
		kref_get(&b->ref);
	return b;
}

/**
 * np_bind_unref() - drop a reference from np_bind_get() without waiting
 * @b: the binding, or NULL
 *
 * For a holder that only reads the binding's description (a window
 * shared with an attached process): the lease went back with the
 * owner's np_bind_put().  Context: process.
 */
void np_bind_unref(struct np_bind *b)
{
	if (b)
		kref_put(&b->ref, np_bind_free);
}

/**
 * np_bind_sync() - wait for the work np_bind_put() deferred, then drop @b
 * @b: from np_bind_get(), or NULL
 *
 * A release calls it without locks after dropping its reference to the
 * queue: if that was the last one, the lease is back and the page cache
 * of a peer-written range dropped when this returns; if not (the hardware
 * queue still exists), they follow when the queue goes.  Neither waits
 * for a frozen file system; the time update and the close, which would,
 * are not waited for (they run after the thaw).
 */
void np_bind_sync(struct np_bind *b)
{
	if (!b)
		return;
	flush_work(&b->put_work);
	kref_put(&b->ref, np_bind_free);
}

/**
 * np_bind_describe() - what a reservation's binding is, for QUERY and sysfs
 * @b: the binding, or NULL
 * @d: filled in; all 0 without a binding
 */
void np_bind_describe(struct np_bind *b, struct np_bind_desc *d)
{
	struct inode *inode;

	memset(d, 0, sizeof(*d));
	if (!b)
		return;
	inode = file_inode(b->file);
	d->dev = inode->i_sb->s_dev;
	d->ino = inode->i_ino;
	d->off = b->off;
	d->len = b->len;
	d->access = b->access;
	d->nr_map = b->nr_map;
	d->map = b->map;
	spin_lock(&b->lock);
	d->lease = b->lease;
	d->fence_ns = b->fence_ns;
	spin_unlock(&b->lock);
}

/* qN/file: the bound range, its extent count and the lease */
static ssize_t file_show(struct kobject *kobj, struct kobj_attribute *a,
			 char *buf)
{
	struct np_bind_desc d;

	np_bind_describe(np_queue_of(kobj)->bind, &d);
	return sysfs_emit(buf,
			  "dev %u:%u\nino %llu\noff %llu\nlen %llu\naccess %s\nextents %u\nlease %s\nfence_ns %llu\n",
			  MAJOR(d.dev), MINOR(d.dev), d.ino, d.off, d.len,
			  d.access & NVME_PEER_ACCESS_WRITE ? "rw" : "read",
			  d.nr_map, np_lease_name(d.lease), d.fence_ns);
}

static struct kobj_attribute np_bind_attr_file = __ATTR_RO(file);

static struct attribute *np_bind_attrs[] = {
	&np_bind_attr_file.attr,
	NULL,
};

/* Shown for file-bound queues only. */
static umode_t np_bind_attr_visible(struct kobject *kobj, struct attribute *a,
				    int n)
{
	return np_queue_of(kobj)->bind ? a->mode : 0;
}

const struct attribute_group np_bind_attr_group = {
	.attrs = np_bind_attrs,
	.is_visible = np_bind_attr_visible,
};

#if IS_ENABLED(CONFIG_NVME_PEER_KUNIT_TEST)
#include "tests/file_kunit.c"
#endif
