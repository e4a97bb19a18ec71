/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer mediated pass: the per-queue work of the mediated poller (read
 * the peer's shadow SQ tail, copy and check each new entry with the guard,
 * give it a hardware command id, write the hardware SQ and ring once per
 * batch; reap the hardware CQ, restore the peer's command id and post to
 * the shadow CQ with the right phase).  Pure computation on memory the
 * caller hands in, like guard.c: the same medpass.c builds into the module
 * (poller.c runs it from the poller threads) and into the userspace
 * benchmark (tools/testing/nvme-peer/bench/med-bench), which plays the
 * controller and the peer in other threads.
 *
 * The only accesses that differ are the hardware doorbell stores (writel()
 * in the kernel, a release store in user space) and the barriers.
 */
#ifndef _NVME_PEER_MEDPASS_H
#define _NVME_PEER_MEDPASS_H

#include "guard.h"

#ifdef __KERNEL__
#include <linux/bug.h>
#include <linux/compiler.h>
#include <linux/io.h>
#include <linux/string.h>
#include <asm/barrier.h>

#define np_mp_ring(db, v)	writel(v, db)
#define np_mp_warn(cond)	WARN_ON_ONCE(cond)
#else
#include <string.h>

typedef __UINT16_TYPE__ __le16;

#define __iomem
#define likely(x)	__builtin_expect(!!(x), 1)
#define unlikely(x)	__builtin_expect(!!(x), 0)
#define READ_ONCE(x)		__atomic_load_n(&(x), __ATOMIC_RELAXED)
#define WRITE_ONCE(x, v)	__atomic_store_n(&(x), v, __ATOMIC_RELAXED)
/*
 * Memory shared with the simulated peer and controller threads: acquire
 * orders the loads after a doorbell or phase tag, release the stores
 * before one, which is what the kernel's barriers give the pass.
 */
#define dma_wmb()	__atomic_thread_fence(__ATOMIC_RELEASE)	/* stores */
#define dma_rmb()	__atomic_thread_fence(__ATOMIC_ACQUIRE)	/* loads */
#define rmb()		__atomic_thread_fence(__ATOMIC_ACQUIRE)	/* loads */
#define np_mp_ring(db, v)	__atomic_store_n(db, v, __ATOMIC_RELEASE)
#define np_mp_warn(cond)	unlikely(cond)
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define le16_to_cpu(x)	__builtin_bswap16(x)
#define cpu_to_le16(x)	__builtin_bswap16(x)
#else
#define le16_to_cpu(x)	((u16)(x))
#define cpu_to_le16(x)	((__le16)(x))
#endif
#endif /* __KERNEL__ */

#define NP_MP_SDB_SQ	0	/* shadow SQ tail: byte offset in the sdb page */
#define NP_MP_SDB_CQ	4	/* shadow CQ head */

/**
 * struct np_mp_cqe - a completion queue entry as the controller writes it
 * @result: command specific dwords 0 and 1
 * @sq_head: the SQ head pointer
 * @sq_id: the SQ identifier
 * @command_id: the command id, as the SQE carried it
 * @status: phase tag (bit 0) and status
 */
struct np_mp_cqe {
	__le64 result;
	__le16 sq_head;
	__le16 sq_id;
	u16 command_id;
	__le16 status;
};

/**
 * struct np_mp_slot - one hardware command slot; its index is the
 *	hardware command id
 * @peer_cid: the command id the peer gave the command
 * @busy: forwarded and not completed
 */
struct np_mp_slot {
	u16 peer_cid;
	u16 busy;
};

/**
 * struct np_mp - one mediated queue as the pass sees it
 * @policy: the guard's policy
 * @depth: entries in each of the four queues (shadow and hardware SQ, CQ)
 * @qid: the queue id posted in shadow CQEs
 * @ssq: shadow SQ (peer memory, read)
 * @scq: shadow CQ (peer memory, written)
 * @sdb: shadow doorbell page: the SQ tail at NP_MP_SDB_SQ and the CQ head
 *	at NP_MP_SDB_CQ, both little-endian, written by the peer
 * @hsq: hardware SQ (controller only)
 * @hcq: hardware CQ (controller only)
 * @hsq_db: the hardware SQ tail doorbell
 * @hcq_db: the hardware CQ head doorbell
 * @data: the kernel's address of the data buffer, or NULL (none, or a
 *	dma-buf the kernel cannot map: PRP and DSM lists in it are refused)
 * @data_size: its size in bytes, with or without @data: PRP entries
 *	inside it are translated
 * @data_base: the address the peer names the buffer by (PRP entries)
 * @data_dma: the address the controller reaches it at
 * @data_xlate: for a data buffer in pieces (a dma-buf), the controller's
 *	address of an offset (pieces are whole pages, as PRP entries are);
 *	NULL: @data_dma + offset
 * @data_ctx: passed to @data_xlate
 * @prp: one page per slot for the copies of PRP and DSM range lists
 * @prp_dma: the controller's address of @prp
 * @slots: @depth hardware command slots
 * @free: stack of the free slots' indexes
 * @nr_free: entries on @free; depth - 1 when nothing is in flight
 * @ssq_head: next shadow SQ entry to take
 * @scq_tail: next shadow CQ entry to fill
 * @scq_phase: its phase tag
 * @hsq_tail: next hardware SQ entry to fill
 * @hcq_head: next hardware CQ entry to look at
 * @hcq_phase: its phase tag
 * @bad_sq_tail: last invalid SQ tail doorbell value seen
 * @bad_cq_head: last invalid CQ head doorbell value seen
 * @forwarded: commands forwarded (read locklessly)
 * @completed: completions copied to the shadow CQ
 * @rejected: commands the guard refused
 * @bad_doorbells: invalid doorbell values seen
 * @last_status: SC | SCT << 8 of the last rejection
 * @last_verdict: its verdict
 * @last_opcode: its opcode
 * @last_cid: its command id
 *
 * The caller serialises passes and np_mp_reset() on one queue.
 */
struct np_mp {
	const struct np_policy *policy;
	u32 depth;
	u16 qid;
	const void *ssq;
	void *scq;
	const void *sdb;
	void *hsq;
	const void *hcq;
	u32 __iomem *hsq_db;
	u32 __iomem *hcq_db;
	void *data;
	u64 data_size;
	u64 data_base;
	u64 data_dma;
	u64 (*data_xlate)(const void *ctx, u64 off);
	const void *data_ctx;
	void *prp;
	u64 prp_dma;
	struct np_mp_slot *slots;
	u16 *free;
	u32 nr_free;

	u32 ssq_head;
	u32 scq_tail;
	u16 scq_phase;
	u32 hsq_tail;
	u32 hcq_head;
	u16 hcq_phase;
	u32 bad_sq_tail;
	u32 bad_cq_head;

	u64 forwarded;
	u64 completed;
	u64 rejected;
	u64 bad_doorbells;
	u16 last_status;
	u8 last_verdict;
	u8 last_opcode;
	u16 last_cid;
};

void np_mp_reset(struct np_mp *mp);
unsigned int np_mp_pass(struct np_mp *mp, u32 batch);
bool np_mp_idle(const struct np_mp *mp);

#endif /* _NVME_PEER_MEDPASS_H */
