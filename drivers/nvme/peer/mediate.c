// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer mediated mode: the peer fills a shadow submission queue and
 * writes its tail to a shadow doorbell word, both in memory it can reach; a
 * kernel thread checks every entry with the guard (guard.c) and copies the
 * entries that pass into a hardware SQ in host memory that only the
 * controller can reach.  Completions come back through a hardware CQ the
 * kernel polls and are copied to the peer's (shadow) CQ with the peer's
 * command id; a rejected entry gets a completion at once, with the NVMe
 * status the guard chose and Do Not Retry set.
 *
 * The peer sees the same queue layout as in direct mode: a 64-byte-entry
 * SQ, a 16-byte-entry CQ with a phase bit, an SQ tail and a CQ head
 * "doorbell".  Only the addresses differ.
 *
 * One thread, "nvme-peer-med", serves every mediated queue.  It keeps
 * polling while there is work and for mediate_spin_us after it; then it
 * sleeps, first mediate_idle_us, doubling up to mediate_idle_max_us while
 * nothing happens; with no mediated queue it sleeps until one is created.
 * NVME_PEER_IOC_RING wakes it at once.  So an idle queue costs at most
 * 1 / mediate_idle_max_us wake-ups per second, and a command written after
 * a long idle period waits at most mediate_idle_max_us to be seen.
 *
 * Locking: np_med_lock (mutex) guards the list of mediated queues and is
 * held by the thread for a whole pass, so np_med_stop() returning means the
 * thread no longer touches that queue's memory or doorbells.  It may be
 * taken under the controller's shutdown lock (DOWN events): the thread
 * takes no other sleeping lock while holding it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/io.h>
#include <linux/kthread.h>
#include <linux/lockdep.h>
#include <linux/moduleparam.h>
#include <linux/nvme.h>
#include <linux/pci.h>
#include <linux/sched.h>
#include <linux/slab.h>
#include <linux/sysfs.h>
#include <linux/wait.h>

#include "nvme-peer.h"

static unsigned int mediate_spin_us = 50;
module_param(mediate_spin_us, uint, 0644);
MODULE_PARM_DESC(mediate_spin_us,
		 "mediated mode: keep polling this long after the last command (us, default 50)");

static unsigned int mediate_idle_us = 100;
module_param(mediate_idle_us, uint, 0644);
MODULE_PARM_DESC(mediate_idle_us,
		 "mediated mode: first sleep when idle (us, default 100)");

static unsigned int mediate_idle_max_us = 10000;
module_param(mediate_idle_max_us, uint, 0644);
MODULE_PARM_DESC(mediate_idle_max_us,
		 "mediated mode: longest sleep when idle, the worst wake-up latency (us, default 10000)");

static unsigned int mediate_batch = 64;
module_param(mediate_batch, uint, 0644);
MODULE_PARM_DESC(mediate_batch,
		 "mediated mode: most entries taken from one queue per pass (default 64)");

#define NP_SDB_SQ	0	/* shadow SQ tail: byte offset in the sdb page */
#define NP_SDB_CQ	4	/* shadow CQ head */

/* One hardware command slot: its hardware command id is the index. */
struct np_med_slot {
	u16 peer_cid;
	bool busy;
};

struct np_med {
	struct nvme_peer_queue *q;
	struct list_head node;		/* on np_med_list while mediated */
	bool running;
	u32 depth;

	struct np_policy policy;
	struct np_range *extents;
	struct np_range *windows;

	/* the thread's positions: under np_med_lock */
	u32 ssq_head;			/* next shadow SQ entry to take */
	u32 scq_tail;			/* next shadow CQ entry to fill */
	u16 scq_phase;
	u32 hsq_tail;
	u32 hcq_head;
	u16 hcq_phase;
	u32 bad_sq_tail, bad_cq_head;	/* last invalid doorbell values seen */
	struct np_med_slot *slots;
	u16 *free;			/* stack of free slots */
	u32 nr_free;

	/* statistics, read locklessly by sysfs */
	u64 forwarded;
	u64 completed;
	u64 rejected;
	u64 bad_doorbells;
	u16 last_status;		/* SC | SCT << 8 of the last rejection */
	u8 last_verdict;
	u8 last_opcode;
	u16 last_cid;
};

static LIST_HEAD(np_med_list);
static DEFINE_MUTEX(np_med_lock);
static DECLARE_WAIT_QUEUE_HEAD(np_med_wq);
static atomic_t np_med_kicked = ATOMIC_INIT(0);
static struct task_struct *np_med_task;

static const char * const np_verdict_names[NP_GUARD_NR_VERDICTS] = {
	[NP_GUARD_OK]		= "none",
	[NP_GUARD_BAD_OPCODE]	= "opcode",
	[NP_GUARD_BAD_FIELD]	= "field",
	[NP_GUARD_BAD_NSID]	= "namespace",
	[NP_GUARD_LBA_RANGE]	= "lba-range",
	[NP_GUARD_PRP_OFFSET]	= "prp-offset",
	[NP_GUARD_DATA_WINDOW]	= "data-window",
};

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

static int np_med_policy(struct nvme_peer_queue *q, struct np_med *m,
			 const struct nvme_peer_policy *pol)
{
	struct np_policy *p = &m->policy;
	u32 nr_ext = pol->nr_extents ? pol->nr_extents : 1;
	u32 nr_win = pol->nr_windows + !!q->data.size;
	u32 i, limit = np_med_max_nlb(q);

	if (pol->opcodes & ~NVME_PEER_OPS_ALL ||
	    pol->nr_extents > NVME_PEER_MAX_EXTENTS ||
	    pol->nr_windows > NVME_PEER_MAX_WINDOWS ||
	    (pol->nr_extents && !pol->extents) ||
	    (pol->nr_windows && !pol->windows) ||
	    pol->max_nlb > limit)
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
		const struct nvme_peer_window *w = &pol->windows[i];

		/* the data buffer's PRP range is translated: no overlap */
		if (w->addr < NVME_PEER_PRP_BASE + q->data.size &&
		    w->addr + w->len > NVME_PEER_PRP_BASE)
			return -EINVAL;
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
	p->opcodes[0] = pol->opcodes ? pol->opcodes : NVME_PEER_OPS_READ;
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
	m->nr_free = depth - 1;		/* nothing in flight: np_med_idle() */

	ret = np_med_coherent(q, &q->hsq, depth * sizeof(struct nvme_command));
	if (!ret)
		ret = np_med_coherent(q, &q->hcq,
				      depth * sizeof(struct nvme_completion));
	if (!ret)
		ret = np_med_coherent(q, &q->prp,
				      (size_t)depth * NP_GUARD_PAGE_SIZE);
	if (!ret)
		ret = np_mem_alloc(q, &q->sdb, q->params.sq == NVME_PEER_PLACE_DMABUF ?
				   NVME_PEER_PLACE_HOST : q->params.sq, PAGE_SIZE);
	if (ret)
		return ret;
	q->sq_db_dma = q->sdb.peer_dma + NP_SDB_SQ;
	q->cq_db_dma = q->sdb.peer_dma + NP_SDB_CQ;
	return 0;
}

/**
 * np_med_free() - free what np_med_alloc() set up
 * @q: the reservation; the thread no longer serves it (np_med_stop())
 *	and its hardware queues are gone
 */
void np_med_free(struct nvme_peer_queue *q)
{
	struct np_med *m = q->med;

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
	q->med = NULL;
}

/* ---- the thread's work -------------------------------------------------- */

/*
 * The peer's shadow doorbell word at @off, or -1 when it points outside the
 * queue: counted in bad_doorbells once per value (@last_bad) and ignored.
 */
static int np_med_doorbell(struct np_med *m, unsigned int off, u32 *last_bad)
{
	u32 v = le32_to_cpu(READ_ONCE(*(__le32 *)(m->q->sdb.vaddr + off)));

	if (v < m->depth)
		return v;
	if (v != *last_bad) {
		*last_bad = v;
		WRITE_ONCE(m->bad_doorbells, m->bad_doorbells + 1);
	}
	return -1;
}

/* Free entries in the shadow CQ, given the peer's head; 0 if it is bad. */
static u32 np_med_cq_room(struct np_med *m)
{
	int head = np_med_doorbell(m, NP_SDB_CQ, &m->bad_cq_head);

	if (head < 0)
		return 0;
	return (head + m->depth - m->scq_tail - 1) % m->depth;
}

/* Post one completion to the shadow CQ; the caller checked for room. */
static void np_med_post(struct np_med *m, u64 result, u16 cid, u16 status)
{
	struct nvme_completion *cqe =
		(struct nvme_completion *)m->q->cq.vaddr + m->scq_tail;

	WRITE_ONCE(cqe->result.u64, cpu_to_le64(result));
	WRITE_ONCE(cqe->sq_head, cpu_to_le16(m->ssq_head));
	WRITE_ONCE(cqe->sq_id, cpu_to_le16(m->q->qid));
	WRITE_ONCE(cqe->command_id, cid);
	/* the phase tag last: the peer reads the rest once it flips */
	dma_wmb();
	WRITE_ONCE(cqe->status, cpu_to_le16(status | m->scq_phase));
	if (++m->scq_tail == m->depth) {
		m->scq_tail = 0;
		m->scq_phase ^= 1;
	}
}

static void np_med_reject(struct np_med *m, const struct nvme_command *c,
			  enum np_guard_verdict v)
{
	u16 status = (np_guard_status(v) | NVME_STATUS_DNR) << 1;

	np_med_post(m, 0, c->common.command_id, status);
	m->last_status = np_guard_status(v);
	m->last_verdict = v;
	m->last_opcode = c->common.opcode;
	m->last_cid = c->common.command_id;
	WRITE_ONCE(m->rejected, m->rejected + 1);
}

/*
 * The kernel's address of [@addr, @addr + @len) of the data buffer, named
 * as the peer names it (NVME_PEER_PRP_BASE + offset), or NULL.
 */
static void *np_med_data(struct nvme_peer_queue *q, u64 addr, u64 len)
{
	u64 off = addr - NVME_PEER_PRP_BASE;

	if (!q->data.vaddr || addr < NVME_PEER_PRP_BASE ||
	    off >= q->data.size || len > q->data.size - off)
		return NULL;
	return q->data.vaddr + off;
}

/* A checked PRP entry as the controller must see it. */
static __le64 np_med_xlate(struct nvme_peer_queue *q, __le64 prp)
{
	u64 off = le64_to_cpu(prp) - NVME_PEER_PRP_BASE;

	return off < q->data.size ? cpu_to_le64(np_mem_ctrl_addr(&q->data, off)) :
				    prp;
}

/*
 * A Dataset Management command the guard passed: copy its ranges out of
 * the peer's reach, check every one against the extents, and point the
 * command at the copy.  The list must be in the data buffer, where the
 * kernel can read it.
 */
static enum np_guard_verdict np_med_dsm(struct np_med *m,
					struct nvme_command *c, u16 slot)
{
	struct nvme_peer_queue *q = m->q;
	u32 nr = (le32_to_cpu(c->common.cdw10) & 0xff) + 1;
	u64 prp1 = le64_to_cpu(c->common.dptr.prp1);
	u32 len = nr * 16, first = min_t(u32, len, NP_GUARD_PAGE_SIZE -
				       (prp1 & (NP_GUARD_PAGE_SIZE - 1)));
	void *copy = q->prp.vaddr + (size_t)slot * NP_GUARD_PAGE_SIZE;
	void *a = np_med_data(q, prp1, first), *b = NULL;
	enum np_guard_verdict v;

	if (len > first)
		b = np_med_data(q, le64_to_cpu(c->common.dptr.prp2),
				len - first);
	if (!a || (len > first && !b))
		return NP_GUARD_DATA_WINDOW;
	memcpy(copy, a, first);
	if (b)
		memcpy(copy + first, b, len - first);
	v = np_guard_dsm_ranges(&m->policy, copy, nr);
	if (v == NP_GUARD_OK) {
		c->common.dptr.prp1 = cpu_to_le64(q->prp.ctrl_dma +
					(u64)slot * NP_GUARD_PAGE_SIZE);
		c->common.dptr.prp2 = 0;
	}
	return v;
}

/*
 * Check one entry; for a PRP list or DSM ranges, check a private copy and
 * point the command at the copy so the peer cannot change it afterwards.
 */
static enum np_guard_verdict np_med_check(struct np_med *m,
					  struct nvme_command *c, u16 slot)
{
	struct nvme_peer_queue *q = m->q;
	struct np_prp_list list = { };
	u32 n = np_guard_prp_list_len(&m->policy, c);
	__le64 *copy;
	void *src;
	u64 prp2;
	enum np_guard_verdict v;

	if (!n) {
		v = np_guard_check(&m->policy, c, NULL);
		if (v != NP_GUARD_OK)
			return v;
		if (c->common.opcode == nvme_cmd_dsm)
			return np_med_dsm(m, c, slot);
		c->rw.dptr.prp1 = np_med_xlate(q, c->rw.dptr.prp1);
		c->rw.dptr.prp2 = np_med_xlate(q, c->rw.dptr.prp2);
		return v;
	}

	/* the kernel reads the list: it must be in the data buffer */
	prp2 = le64_to_cpu(c->rw.dptr.prp2);
	src = np_med_data(q, prp2, (u64)n * 8);
	if (!src) {
		v = np_guard_check(&m->policy, c, NULL);
		return v == NP_GUARD_OK ? NP_GUARD_DATA_WINDOW : v;
	}
	copy = q->prp.vaddr + (size_t)slot * NP_GUARD_PAGE_SIZE;
	memcpy(copy, src, n * 8);
	list.entries = copy;
	list.nr = n;
	list.list_addr = prp2;
	v = np_guard_check(&m->policy, c, &list);
	if (v != NP_GUARD_OK)
		return v;
	c->rw.dptr.prp1 = np_med_xlate(q, c->rw.dptr.prp1);
	c->rw.dptr.prp2 = cpu_to_le64(q->prp.ctrl_dma +
				      (u64)slot * NP_GUARD_PAGE_SIZE);
	while (n--)
		copy[n] = np_med_xlate(q, copy[n]);
	return v;
}

/* Copy hardware completions to the shadow CQ. */
static unsigned int np_med_reap(struct np_med *m, u32 *room)
{
	struct nvme_completion *hcq = m->q->hcq.vaddr, *cqe;
	unsigned int n = 0;
	u16 status, cid;

	while (*room) {
		cqe = &hcq[m->hcq_head];
		status = le16_to_cpu(READ_ONCE(cqe->status));
		if ((status & 1) != m->hcq_phase)
			break;
		dma_rmb();
		cid = cqe->command_id;
		if (!WARN_ON_ONCE(cid >= m->depth || !m->slots[cid].busy)) {
			np_med_post(m, le64_to_cpu(cqe->result.u64),
				    m->slots[cid].peer_cid, status & ~1);
			m->slots[cid].busy = false;
			m->free[m->nr_free++] = cid;
			(*room)--;
		}
		if (++m->hcq_head == m->depth) {
			m->hcq_head = 0;
			m->hcq_phase ^= 1;
		}
		n++;
	}
	if (n) {
		writel(m->hcq_head, np_hw_db(m->q, true));
		WRITE_ONCE(m->completed, m->completed + n);
	}
	return n;
}

/* One pass over one queue: completions, then up to mediate_batch entries. */
static unsigned int np_med_poll(struct np_med *m)
{
	struct nvme_peer_queue *q = m->q;
	u32 batch = max(READ_ONCE(mediate_batch), 1U);
	u32 room, fwd = 0;
	unsigned int done;
	int tail;
	struct nvme_command c;
	enum np_guard_verdict v;
	u16 slot;

	lockdep_assert_held(&np_med_lock);	/* np_med_stop() waits on it */
	room = np_med_cq_room(m);
	done = np_med_reap(m, &room);

	tail = np_med_doorbell(m, NP_SDB_SQ, &m->bad_sq_tail);
	if (tail < 0)
		return done;
	rmb();	/* the entries after the tail that announced them */
	while (m->ssq_head != tail && done < batch && room && m->nr_free) {
		memcpy(&c, (struct nvme_command *)q->sq.vaddr + m->ssq_head,
		       sizeof(c));
		if (++m->ssq_head == m->depth)
			m->ssq_head = 0;
		slot = m->free[m->nr_free - 1];
		v = np_med_check(m, &c, slot);
		done++;
		if (v != NP_GUARD_OK) {
			np_med_reject(m, &c, v);
			room--;
			continue;
		}
		m->nr_free--;
		m->slots[slot].busy = true;
		m->slots[slot].peer_cid = c.common.command_id;
		c.common.command_id = slot;
		memcpy((struct nvme_command *)q->hsq.vaddr + m->hsq_tail, &c,
		       sizeof(c));
		if (++m->hsq_tail == m->depth)
			m->hsq_tail = 0;
		fwd++;
		/* its completion needs room too, but may wait in the hw CQ */
	}
	if (fwd) {
		writel(m->hsq_tail, np_hw_db(q, false));	/* orders the SQEs */
		WRITE_ONCE(m->forwarded, m->forwarded + fwd);
	}
	return done;
}

static bool np_med_woken(void)
{
	return atomic_read(&np_med_kicked) || kthread_should_stop();
}

static void np_med_sleep(unsigned int us)
{
	if (us)
		wait_event_interruptible_hrtimeout(np_med_wq, np_med_woken(),
						   ns_to_ktime((u64)us * NSEC_PER_USEC));
	else
		wait_event_interruptible(np_med_wq, np_med_woken());
}

static int np_med_thread(void *unused)
{
	ktime_t last_work = ktime_get();
	unsigned int sleep_us = 0, done;
	struct np_med *m;
	bool any;

	while (!kthread_should_stop()) {
		done = 0;
		mutex_lock(&np_med_lock);
		list_for_each_entry(m, &np_med_list, node)
			done += np_med_poll(m);
		any = !list_empty(&np_med_list);
		mutex_unlock(&np_med_lock);

		if (atomic_xchg(&np_med_kicked, 0) || done) {
			last_work = ktime_get();
			sleep_us = 0;
			cond_resched();
			continue;
		}
		if (any && ktime_us_delta(ktime_get(), last_work) <
			   READ_ONCE(mediate_spin_us)) {
			cond_resched();
			continue;
		}
		if (any)
			sleep_us = clamp(sleep_us ? sleep_us * 2 :
					 READ_ONCE(mediate_idle_us), 1U,
					 max(READ_ONCE(mediate_idle_max_us), 1U));
		np_med_sleep(any ? sleep_us : 0);
	}
	return 0;
}

/**
 * np_med_kick() - make the thread look at the shadow doorbells now
 */
void np_med_kick(void)
{
	atomic_set(&np_med_kicked, 1);
	wake_up(&np_med_wq);
}

/**
 * np_med_start() - start serving a reservation whose hardware queues exist
 * @q: the reservation; nothing happens unless it is active
 *
 * Resets every position: the shadow and hardware queues must be empty
 * (just created, or zeroed and created again).
 */
void np_med_start(struct nvme_peer_queue *q)
{
	struct np_med *m = q->med;
	u32 i;

	mutex_lock(&np_med_lock);
	spin_lock(&q->pctrl->state_lock);
	if (q->state == NP_Q_ACTIVE && !m->running) {
		m->ssq_head = 0;
		m->scq_tail = 0;
		m->scq_phase = 1;
		m->hsq_tail = 0;
		m->hcq_head = 0;
		m->hcq_phase = 1;
		m->bad_sq_tail = 0;
		m->bad_cq_head = 0;
		for (i = 0; i < m->depth; i++) {
			m->slots[i].busy = false;
			m->free[i] = m->depth - 1 - i;
		}
		m->nr_free = m->depth - 1;	/* a full queue holds depth - 1 */
		m->running = true;
		list_add_tail(&m->node, &np_med_list);
	}
	spin_unlock(&q->pctrl->state_lock);
	mutex_unlock(&np_med_lock);
	np_med_kick();
}

/**
 * np_med_stop() - stop serving a reservation
 * @q: the reservation (mediated or not)
 *
 * On return the thread no longer reads or writes @q's queues or rings its
 * doorbells.  May be called more than once.
 */
void np_med_stop(struct nvme_peer_queue *q)
{
	struct np_med *m = q->med;

	if (!m)
		return;
	mutex_lock(&np_med_lock);
	if (m->running) {
		list_del_init(&m->node);
		m->running = false;
	}
	mutex_unlock(&np_med_lock);
}

/**
 * np_med_idle() - whether the controller has finished every forwarded command
 * @q: a reservation the thread no longer serves (np_med_stop())
 *
 * Counts the completions waiting in the hardware CQ, reaped or not: once
 * they match the commands forwarded and not yet reaped, the controller
 * holds no command of @q any more.  Only reads.
 *
 * Return: true for a direct queue or an idle mediated one.
 */
bool np_med_idle(struct nvme_peer_queue *q)
{
	struct np_med *m = q->med;
	struct nvme_completion *hcq;
	u32 busy, head, n = 0;
	u16 phase;

	if (!m)
		return true;
	mutex_lock(&np_med_lock);
	hcq = q->hcq.vaddr;
	busy = m->depth - 1 - m->nr_free;
	head = m->hcq_head;
	phase = m->hcq_phase;
	while (n < busy &&
	       (le16_to_cpu(READ_ONCE(hcq[head].status)) & 1) == phase) {
		n++;
		if (++head == m->depth) {
			head = 0;
			phase ^= 1;
		}
	}
	mutex_unlock(&np_med_lock);
	return n == busy;
}

/* ---- sysfs -------------------------------------------------------------- */

static ssize_t stats_show(struct kobject *kobj, struct kobj_attribute *a,
			  char *buf)
{
	struct np_med *m = np_queue_of(kobj)->med;

	return sysfs_emit(buf,
			  "forwarded %llu\ncompleted %llu\nrejected %llu\nbad_doorbells %llu\n",
			  READ_ONCE(m->forwarded), READ_ONCE(m->completed),
			  READ_ONCE(m->rejected), READ_ONCE(m->bad_doorbells));
}

/* "none", or the reason, NVMe status, opcode and cid of the last rejection */
static ssize_t last_reject_show(struct kobject *kobj,
				struct kobj_attribute *a, char *buf)
{
	struct np_med *m = np_queue_of(kobj)->med;
	u8 v;

	if (!READ_ONCE(m->rejected))
		return sysfs_emit(buf, "none\n");
	v = READ_ONCE(m->last_verdict);
	return sysfs_emit(buf, "%s status=%#x opcode=%#x cid=%u\n",
			  v < NP_GUARD_NR_VERDICTS ? np_verdict_names[v] : "?",
			  m->last_status, m->last_opcode, m->last_cid);
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
		len += sysfs_emit_at(buf, len, "lba %llu+%llu\n",
				     p->extents[i].start, p->extents[i].len);
	/*
	 * The data buffer as the peer names it; a driver's own windows are
	 * bus or physical addresses, which a 0444 file does not show.
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

static struct kobj_attribute np_med_attr_stats = __ATTR_RO(stats);
static struct kobj_attribute np_med_attr_last_reject = __ATTR_RO(last_reject);
static struct kobj_attribute np_med_attr_policy = __ATTR_RO(policy);

static struct attribute *np_med_attrs[] = {
	&np_med_attr_stats.attr, &np_med_attr_last_reject.attr,
	&np_med_attr_policy.attr,
	NULL,
};

/* Shown for mediated queues only: a direct queue has no policy. */
static umode_t np_med_attr_visible(struct kobject *kobj, struct attribute *a,
				   int n)
{
	return np_mediated(np_queue_of(kobj)) ? a->mode : 0;
}

/* qN/stats, qN/last_reject and qN/policy; their memory lives as qN/ does */
const struct attribute_group np_med_attr_group = {
	.attrs = np_med_attrs,
	.is_visible = np_med_attr_visible,
};

int np_med_init(void)
{
	np_med_task = kthread_run(np_med_thread, NULL, "nvme-peer-med");
	return PTR_ERR_OR_ZERO(np_med_task);
}

void np_med_exit(void)
{
	kthread_stop(np_med_task);
}
