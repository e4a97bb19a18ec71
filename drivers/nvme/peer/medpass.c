// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer mediated pass: one queue's share of a poller pass (see
 * medpass.h).  No kernel or libc calls but memcpy(): the module and the
 * userspace benchmark build this same file.
 */
#include "medpass.h"

#define NP_MP_DNR	0x4000	/* Do Not Retry, in the status field >> 1 */

/* An NVMe submission queue entry, as struct nvme_common_command lays it out. */
struct np_mp_sqe {
	u8 opcode;
	u8 flags;
	u16 command_id;
	__le32 nsid;
	__le32 cdw2[2];
	__le64 metadata;
	__le64 prp1;
	__le64 prp2;
	__le32 cdw10;
	__le32 cdw11;
	__le32 cdw12[4];
};

/**
 * np_mp_reset() - empty every queue position of a queue about to start
 * @mp: the queue, with @depth, @slots and @free set up
 *
 * The shadow and hardware queues must be empty (just created, or zeroed
 * and created again).
 */
void np_mp_reset(struct np_mp *mp)
{
	u32 i;

	mp->ssq_head = 0;
	mp->scq_tail = 0;
	mp->scq_phase = 1;
	mp->hsq_tail = 0;
	mp->hcq_head = 0;
	mp->hcq_phase = 1;
	mp->bad_sq_tail = 0;
	mp->bad_cq_head = 0;
	for (i = 0; i < mp->depth; i++) {
		mp->slots[i].busy = 0;
		mp->free[i] = mp->depth - 1 - i;
	}
	mp->nr_free = mp->depth - 1;	/* a full queue holds depth - 1 */
}

/*
 * The peer's shadow doorbell word at @off, or -1 when it points outside the
 * queue: counted in bad_doorbells once per value (@last_bad) and ignored.
 */
static int np_mp_doorbell(struct np_mp *mp, unsigned int off, u32 *last_bad)
{
	u32 v = le32_to_cpu(READ_ONCE(*(const __le32 *)
				      ((const char *)mp->sdb + off)));

	if (likely(v < mp->depth))
		return v;
	if (v != *last_bad) {
		*last_bad = v;
		WRITE_ONCE(mp->bad_doorbells, mp->bad_doorbells + 1);
	}
	return -1;
}

/*
 * Post one completion to the shadow CQ; the caller checked for room.  Every
 * field is loaded before the first store and stored after the last: the
 * entry could alias @mp as far as the compiler knows.
 */
static void np_mp_post(struct np_mp *mp, u64 result, u16 cid, u16 status)
{
	u32 tail = mp->scq_tail, depth = mp->depth;
	struct np_mp_cqe *cqe = (struct np_mp_cqe *)mp->scq + tail;
	u16 phase = mp->scq_phase, sq_head = mp->ssq_head, qid = mp->qid;

	WRITE_ONCE(cqe->result, cpu_to_le64(result));
	WRITE_ONCE(cqe->sq_head, cpu_to_le16(sq_head));
	WRITE_ONCE(cqe->sq_id, cpu_to_le16(qid));
	WRITE_ONCE(cqe->command_id, cid);
	/* the phase tag last: the peer reads the rest once it flips */
	dma_wmb();
	WRITE_ONCE(cqe->status, cpu_to_le16(status | phase));
	if (++tail == depth) {
		tail = 0;
		phase ^= 1;
	}
	mp->scq_tail = tail;
	mp->scq_phase = phase;
}

static void np_mp_reject(struct np_mp *mp, const struct np_mp_sqe *c,
			 enum np_guard_verdict v)
{
	u16 status = np_guard_status(v);

	np_mp_post(mp, 0, c->command_id, (status | NP_MP_DNR) << 1);
	mp->last_status = status;
	mp->last_verdict = v;
	mp->last_opcode = c->opcode;
	mp->last_cid = c->command_id;
	WRITE_ONCE(mp->rejected, mp->rejected + 1);
}

/*
 * The kernel's address of [@addr, @addr + @len) of the data buffer, named
 * as the peer names it (@data_base + offset), or NULL.
 */
static void *np_mp_data(const struct np_mp *mp, u64 addr, u64 len)
{
	u64 off = addr - mp->data_base;

	if (!mp->data || addr < mp->data_base ||
	    off >= mp->data_size || len > mp->data_size - off)
		return NULL;
	return (char *)mp->data + off;
}

/* A checked PRP entry as the controller must see it. */
static __le64 np_mp_xlate(const struct np_mp *mp, __le64 prp)
{
	u64 off = le64_to_cpu(prp) - mp->data_base;

	if (off >= mp->data_size)
		return prp;
	return cpu_to_le64(mp->data_xlate ? mp->data_xlate(mp->data_ctx, off) :
					    mp->data_dma + off);
}

/* The copy page of @slot and the controller's address of it. */
static void *np_mp_copy(const struct np_mp *mp, u16 slot, __le64 *dma)
{
	*dma = cpu_to_le64(mp->prp_dma + (u64)slot * NP_GUARD_PAGE_SIZE);
	return (char *)mp->prp + (size_t)slot * NP_GUARD_PAGE_SIZE;
}

/*
 * A Dataset Management command the guard passed: copy its ranges out of
 * the peer's reach, check every one against the extents, and point the
 * command at the copy.  The list must be in the data buffer, where the
 * kernel can read it.
 */
static enum np_guard_verdict np_mp_dsm(struct np_mp *mp, struct np_mp_sqe *c,
				       u16 slot)
{
	u32 nr = (le32_to_cpu(c->cdw10) & 0xff) + 1;
	u64 prp1 = le64_to_cpu(c->prp1);
	u32 len = nr * 16, first = NP_GUARD_PAGE_SIZE -
				   (prp1 & (NP_GUARD_PAGE_SIZE - 1));
	void *a, *b = NULL, *copy;
	enum np_guard_verdict v;
	__le64 dma;

	if (first > len)
		first = len;
	a = np_mp_data(mp, prp1, first);
	if (len > first)
		b = np_mp_data(mp, le64_to_cpu(c->prp2), len - first);
	if (!a || (len > first && !b))
		return NP_GUARD_DATA_WINDOW;
	copy = np_mp_copy(mp, slot, &dma);
	memcpy(copy, a, first);
	if (b)
		memcpy((char *)copy + first, b, len - first);
	v = np_guard_dsm_ranges(mp->policy, copy, nr);
	if (v == NP_GUARD_OK) {
		c->prp1 = dma;
		c->prp2 = 0;
	}
	return v;
}

/*
 * A command the guard refused without a PRP list: if it needs one, check it
 * again with a private copy of the list, and point the command at the copy
 * so the peer cannot change the list afterwards.
 */
static noinline enum np_guard_verdict
np_mp_check_list(struct np_mp *mp, struct np_mp_sqe *c, u16 slot,
		 enum np_guard_verdict v)
{
	u32 n = np_guard_prp_list_len(mp->policy, c);
	struct np_prp_list list = { };
	__le64 *copy, dma;
	const void *src;
	u64 prp2;

	if (!n)
		return v;
	/* the kernel reads the list: it must be in the data buffer */
	prp2 = le64_to_cpu(c->prp2);
	src = np_mp_data(mp, prp2, (u64)n * 8);
	if (!src)
		return v;
	copy = np_mp_copy(mp, slot, &dma);
	memcpy(copy, src, n * 8);
	list.entries = copy;
	list.nr = n;
	list.list_addr = prp2;
	v = np_guard_check(mp->policy, c, &list);
	if (v != NP_GUARD_OK)
		return v;
	c->prp1 = np_mp_xlate(mp, c->prp1);
	c->prp2 = dma;
	while (n--)
		copy[n] = np_mp_xlate(mp, copy[n]);
	return v;
}

/*
 * Check one entry and translate its data pointers for the controller; for a
 * PRP list or DSM ranges, check a private copy and point the command at it.
 * Without a list first: np_guard_check() never passes a command that needs
 * one it was not given, so only a refusal costs the second look.
 */
static enum np_guard_verdict np_mp_check(struct np_mp *mp,
					 struct np_mp_sqe *c, u16 slot)
{
	enum np_guard_verdict v = np_guard_check(mp->policy, c, NULL);

	if (unlikely(v != NP_GUARD_OK))
		return np_mp_check_list(mp, c, slot, v);
	if (unlikely(c->opcode == NP_OP_DSM))
		return np_mp_dsm(mp, c, slot);
	c->prp1 = np_mp_xlate(mp, c->prp1);
	if (c->prp2)
		c->prp2 = np_mp_xlate(mp, c->prp2);
	return v;
}

/*
 * Copy hardware completions to the shadow CQ, at most @room of them.  The
 * positions live in locals for the loop (the stores to the queues could
 * alias @mp as far as the compiler knows) and go back at the end.
 */
static unsigned int np_mp_reap(struct np_mp *mp, u32 room)
{
	const struct np_mp_cqe *hcq = mp->hcq, *cqe;
	struct np_mp_slot *slots = mp->slots;
	u32 head = mp->hcq_head, depth = mp->depth, nr_free = mp->nr_free;
	u16 phase = mp->hcq_phase, *free = mp->free;
	unsigned int n = 0;
	u16 status, cid;

	while (room) {
		cqe = &hcq[head];
		status = le16_to_cpu(READ_ONCE(cqe->status));
		if ((status & 1) != phase)
			break;
		dma_rmb();
		cid = cqe->command_id;
		if (!np_mp_warn(cid >= depth || !slots[cid].busy)) {
			np_mp_post(mp, le64_to_cpu(cqe->result),
				   slots[cid].peer_cid, status & ~1);
			slots[cid].busy = 0;
			free[nr_free++] = cid;
			room--;
		}
		if (++head == depth) {
			head = 0;
			phase ^= 1;
		}
		n++;
	}
	if (n) {
		mp->hcq_head = head;
		mp->hcq_phase = phase;
		mp->nr_free = nr_free;
		np_mp_ring(mp->hcq_db, head);
		WRITE_ONCE(mp->completed, mp->completed + n);
	}
	return n;
}

/**
 * np_mp_pass() - one pass over one queue
 * @mp: the queue
 * @batch: most shadow SQ entries to take (at least 1)
 *
 * Copies the hardware completions to the shadow CQ (as many as it has room
 * for), reads the shadow SQ tail, then takes up to @batch entries: each is
 * copied, checked, and either completed at once with the guard's status
 * (Do Not Retry set) or forwarded to the hardware SQ under a free slot's
 * command id; one hardware doorbell store for the whole batch.  Reads no
 * clock and takes no lock.
 *
 * Return: completions reaped plus entries taken; 0 when there was nothing.
 */
unsigned int np_mp_pass(struct np_mp *mp, u32 batch)
{
	const struct np_mp_sqe *ssq = mp->ssq;
	struct np_mp_sqe *hsq = mp->hsq, c;
	struct np_mp_slot *slots = mp->slots;
	u16 *free = mp->free;
	u32 room, depth = mp->depth, fwd = 0, taken = 0;
	u32 sq_head, hsq_tail, nr_free;
	enum np_guard_verdict v;
	unsigned int done;
	int head, tail;
	u16 slot;

	head = np_mp_doorbell(mp, NP_MP_SDB_CQ, &mp->bad_cq_head);
	if (unlikely(head < 0))
		return 0;
	room = (head + depth - mp->scq_tail - 1) % depth;
	done = np_mp_reap(mp, room);
	room -= done;

	tail = np_mp_doorbell(mp, NP_MP_SDB_SQ, &mp->bad_sq_tail);
	if (unlikely(tail < 0) || (u32)tail == mp->ssq_head)
		return done;
	rmb();	/* the entries after the tail that announced them */
	sq_head = mp->ssq_head;
	hsq_tail = mp->hsq_tail;
	nr_free = mp->nr_free;
	while (sq_head != (u32)tail && taken < batch && room && nr_free) {
		/*
		 * A private copy, checked and then copied to the hardware SQ:
		 * the peer cannot change what runs.  (Copying straight into
		 * the hardware SQ and checking it there saves a copy, but
		 * then the check waits for the line the controller holds.)
		 */
		memcpy(&c, &ssq[sq_head], sizeof(c));
		if (++sq_head == depth)
			sq_head = 0;
		slot = free[nr_free - 1];
		v = np_mp_check(mp, &c, slot);
		taken++;
		if (unlikely(v != NP_GUARD_OK)) {
			mp->ssq_head = sq_head;	/* the CQE's SQ head */
			np_mp_reject(mp, &c, v);
			room--;
			continue;
		}
		nr_free--;
		slots[slot].busy = 1;
		slots[slot].peer_cid = c.command_id;
		c.command_id = slot;
		memcpy(&hsq[hsq_tail], &c, sizeof(c));
		if (++hsq_tail == depth)
			hsq_tail = 0;
		fwd++;
		/* its completion needs room too, but may wait in the hw CQ */
	}
	mp->ssq_head = sq_head;
	mp->hsq_tail = hsq_tail;
	mp->nr_free = nr_free;
	if (fwd) {
		np_mp_ring(mp->hsq_db, hsq_tail);	/* orders the SQEs */
		WRITE_ONCE(mp->forwarded, mp->forwarded + fwd);
	}
	return done + taken;
}

/**
 * np_mp_idle() - whether the controller has finished every forwarded command
 * @mp: a queue no pass runs on
 *
 * Counts the completions waiting in the hardware CQ, reaped or not: once
 * they match the commands forwarded and not yet reaped, the controller
 * holds no command of the queue any more.  Only reads.
 *
 * Return: true when the controller holds none of the queue's commands.
 */
bool np_mp_idle(const struct np_mp *mp)
{
	const struct np_mp_cqe *hcq = mp->hcq;
	u32 busy = mp->depth - 1 - mp->nr_free, head = mp->hcq_head, n = 0;
	u16 phase = mp->hcq_phase;

	while (n < busy &&
	       (le16_to_cpu(READ_ONCE(hcq[head].status)) & 1) == phase) {
		n++;
		if (++head == mp->depth) {
			head = 0;
			phase ^= 1;
		}
	}
	return n == busy;
}
