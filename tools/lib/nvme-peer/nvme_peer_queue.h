/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer device-side queue library
 *
 * Code running on the peer -- the CPU over mmap() in the kselftests, a GPU
 * kernel (CUDA, OpenCL), an FPGA (HLS) in real use -- drives one NVMe I/O
 * queue pair that /dev/nvme-peer handed out: it builds submission queue
 * entries (SQEs), copies them into the SQ, rings the SQ tail doorbell, polls
 * the CQ by its phase tag and rings the CQ head doorbell.  The layouts follow
 * the NVMe base specification (SQE 64 bytes, CQE 16 bytes, little-endian).
 *
 * Header-only and free of libc: every function is static inline and only
 * <stdint.h> and <stddef.h> are included.  It compiles as C99/C11 and as C++
 * (so it can be included from CUDA sources).
 *
 * Ownership rules:
 *  - One producer per queue.  struct npq holds the SQ tail, the CQ head and
 *    the expected phase; nothing is atomic or locked.  If several threads
 *    (or GPU threads) feed one queue, they must serialise around every call
 *    themselves, or elect one thread that does all queue work.
 *  - The SQ head is learned only from completions: a full queue frees up as
 *    npq_poll() consumes CQEs, never by itself.
 *  - The CQ is only read; consumed CQEs are returned to the controller by
 *    npq_ring_cq(), which must be called (after one or a batch of polls)
 *    before the controller can reuse those CQ slots.
 *  - SQ and CQ have the same depth; one SQ slot always stays empty.
 *
 * Porting: all queue memory and doorbell accesses and all barriers go through
 * the macros below, each only defined when not defined already.  Define them
 * before including this file.  For CUDA, e.g.:
 *
 *	#define NPQ_DEVICE	__device__
 *	#define NPQ_WMB()	__threadfence_system()
 *	#define NPQ_RMB()	__threadfence_system()
 *	#include "nvme-peer/nvme_peer_queue.h"
 *
 * The default NPQ_WMB()/NPQ_RMB() are CPU instructions (x86-64: sfence and
 * lfence, arm64: dsb st and dmb oshld, else a C11 fence), so device code
 * always overrides both.
 *
 * For OpenCL C, define NPQ_NO_STD_HEADERS and typedef uint8_t..uint64_t
 * (uchar, ushort, uint, ulong), set NPQ_IOMEM to __global, and define
 * NPQ_WMB()/NPQ_RMB() as mem_fence(CLK_GLOBAL_MEM_FENCE).  For HLS, map
 * NPQ_READ* / NPQ_WRITE* / NPQ_MMIO_WRITE32 onto the AXI master accessors of
 * the tool.  A compiler without the GNU __volatile__ keyword defines
 * NPQ_VOLATILE as volatile.
 *
 * Usage (error handling trimmed):
 *
 *	struct npq q;
 *	struct npq_sqe e;
 *	struct npq_cqe c;
 *	int cid;
 *
 *	npq_init(&q, sq, cq, sq_db, cq_db, depth, qid);
 *	npq_sqe_rw(&e, NPQ_OPC_READ, nsid, slba, 8, prp1, 0);
 *	while ((cid = npq_enqueue(&q, &e)) < 0) {
 *		// full: reap completions to learn the new SQ head
 *		while (npq_poll(&q, &c))
 *			handle(&c);
 *		npq_ring_cq(&q);
 *	}
 *	npq_ring_sq(&q);		// one doorbell for a batch of enqueues
 *	while (!npq_poll(&q, &c))
 *		;			// spin, or do other work
 *	npq_ring_cq(&q);
 *	if (npq_cqe_cid(&c) == cid && npq_cqe_status(&c))
 *		fail(npq_status_sct(npq_cqe_status(&c)),
 *		     npq_status_sc(npq_cqe_status(&c)));
 */
#ifndef _NVME_PEER_QUEUE_H
#define _NVME_PEER_QUEUE_H

#ifndef NPQ_NO_STD_HEADERS
#include <stddef.h>
#include <stdint.h>
#endif

/* Function qualifier, e.g. __device__ (CUDA) or __host__ __device__. */
#ifndef NPQ_DEVICE
#define NPQ_DEVICE
#endif

/* Address-space qualifier of queue memory and doorbells (OpenCL: __global). */
#ifndef NPQ_IOMEM
#define NPQ_IOMEM
#endif

/* Qualifier of device-visible accesses (GNU spelling of volatile). */
#ifndef NPQ_VOLATILE
#define NPQ_VOLATILE __volatile__
#endif

/*
 * NPQ_WMB() orders the SQE stores before the doorbell store.  An SQ in a
 * controller memory buffer is mapped write-combining, so x86 needs sfence.
 */
#ifndef NPQ_WMB
static inline NPQ_DEVICE void npq_default_wmb(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("sfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dsb st" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

#define NPQ_WMB()	npq_default_wmb()
#endif

/*
 * NPQ_RMB() orders the load of the CQE phase tag before the loads of the
 * rest of the CQE, and those loads before the CQ head doorbell store.
 */
#ifndef NPQ_RMB
static inline NPQ_DEVICE void npq_default_rmb(void)
{
#if defined(__x86_64__)
	__asm__ __volatile__("lfence" ::: "memory");
#elif defined(__aarch64__)
	__asm__ __volatile__("dmb oshld" ::: "memory");
#else
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

#define NPQ_RMB()	npq_default_rmb()
#endif

/* Loads and stores of queue memory (SQ and CQ), one access each. */
#ifndef NPQ_READ16
#define NPQ_READ16(p)	(*(const NPQ_IOMEM NPQ_VOLATILE uint16_t *)(p))
#endif
#ifndef NPQ_READ32
#define NPQ_READ32(p)	(*(const NPQ_IOMEM NPQ_VOLATILE uint32_t *)(p))
#endif
#ifndef NPQ_READ64
#define NPQ_READ64(p)	(*(const NPQ_IOMEM NPQ_VOLATILE uint64_t *)(p))
#endif
#ifndef NPQ_WRITE16
#define NPQ_WRITE16(p, v)	(*(NPQ_IOMEM NPQ_VOLATILE uint16_t *)(p) = (v))
#endif
#ifndef NPQ_WRITE32
#define NPQ_WRITE32(p, v)	(*(NPQ_IOMEM NPQ_VOLATILE uint32_t *)(p) = (v))
#endif
#ifndef NPQ_WRITE64
#define NPQ_WRITE64(p, v)	(*(NPQ_IOMEM NPQ_VOLATILE uint64_t *)(p) = (v))
#endif

/* A doorbell store (MMIO); the value is already little-endian. */
#ifndef NPQ_MMIO_WRITE32
#define NPQ_MMIO_WRITE32(p, v)	(*(NPQ_IOMEM NPQ_VOLATILE uint32_t *)(p) = (v))
#endif

/* NVMe structures are little-endian. */
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define NPQ_SWAB16(v)	__builtin_bswap16(v)
#define NPQ_SWAB32(v)	__builtin_bswap32(v)
#define NPQ_SWAB64(v)	__builtin_bswap64(v)
#else
#define NPQ_SWAB16(v)	(v)
#define NPQ_SWAB32(v)	(v)
#define NPQ_SWAB64(v)	(v)
#endif
#ifndef NPQ_CPU_TO_LE16
#define NPQ_CPU_TO_LE16(v)	NPQ_SWAB16((uint16_t)(v))
#endif
#ifndef NPQ_CPU_TO_LE32
#define NPQ_CPU_TO_LE32(v)	NPQ_SWAB32((uint32_t)(v))
#endif
#ifndef NPQ_CPU_TO_LE64
#define NPQ_CPU_TO_LE64(v)	NPQ_SWAB64((uint64_t)(v))
#endif
#ifndef NPQ_LE16_TO_CPU
#define NPQ_LE16_TO_CPU(v)	NPQ_SWAB16((uint16_t)(v))
#endif
#ifndef NPQ_LE32_TO_CPU
#define NPQ_LE32_TO_CPU(v)	NPQ_SWAB32((uint32_t)(v))
#endif
#ifndef NPQ_LE64_TO_CPU
#define NPQ_LE64_TO_CPU(v)	NPQ_SWAB64((uint64_t)(v))
#endif

/* NVM command set opcodes */
#define NPQ_OPC_FLUSH		0x00
#define NPQ_OPC_WRITE		0x01
#define NPQ_OPC_READ		0x02
#define NPQ_OPC_WRITE_ZEROES	0x08
#define NPQ_OPC_DSM		0x09

/* Dataset management attributes (cdw11) */
#define NPQ_DSM_IDR		0x1	/* integral dataset for read */
#define NPQ_DSM_IDW		0x2	/* integral dataset for write */
#define NPQ_DSM_AD		0x4	/* deallocate */

/* Status code types: npq_status_sct() */
#define NPQ_SCT_GENERIC		0x0
#define NPQ_SCT_CMD_SPECIFIC	0x1
#define NPQ_SCT_MEDIA		0x2
#define NPQ_SCT_PATH		0x3
#define NPQ_SCT_VENDOR		0x7

/* The command id npq_enqueue() never hands out (reserved by the spec). */
#define NPQ_CID_INVALID		0xffff

/**
 * struct npq_sqe - a submission queue entry, 16 little-endian dwords
 * @dw: dword 0: opcode (7:0), fuse (9:8), PSDT (15:14), command id (31:16);
 *	1: nsid; 2-3: reserved; 4-5: metadata pointer; 6-7: PRP1; 8-9: PRP2;
 *	10-15: command dwords 10-15
 */
struct npq_sqe {
	uint32_t dw[16];
};

/**
 * struct npq_cqe - a completion queue entry, 4 little-endian dwords
 * @dw: dword 0: command specific; 1: reserved; 2: SQ head (15:0), SQ id
 *	(31:16); 3: command id (15:0), phase tag (16), status (31:17)
 */
struct npq_cqe {
	uint32_t dw[4];
};

/* Compile-time layout checks (C99 and C++ alike: no static_assert). */
struct npq_layout_check {
	char sqe_is_64_bytes[sizeof(struct npq_sqe) == 64 ? 1 : -1];
	char cqe_is_16_bytes[sizeof(struct npq_cqe) == 16 ? 1 : -1];
};

/**
 * struct npq - one queue pair as its (single) producer sees it
 * @sq: the submission queue, @depth entries
 * @cq: the completion queue, @depth entries
 * @sq_db: the SQ tail doorbell
 * @cq_db: the CQ head doorbell
 * @depth: entries in the SQ and in the CQ
 * @qid: the queue id (SQ id = CQ id)
 * @sq_tail: the next free SQ slot
 * @sq_head: the SQ head as last reported by the controller in a CQE
 * @cq_head: the next CQ slot to look at
 * @phase: the phase tag a new CQE in slot @cq_head carries
 * @next_cid: the command id npq_enqueue() hands out next
 * @pending_db: SQEs enqueued since the SQ doorbell was last rung
 */
struct npq {
	NPQ_IOMEM struct npq_sqe *sq;
	NPQ_IOMEM struct npq_cqe *cq;
	NPQ_IOMEM uint32_t *sq_db;
	NPQ_IOMEM uint32_t *cq_db;
	uint32_t depth;
	uint16_t qid;
	uint32_t sq_tail;
	uint32_t sq_head;
	uint32_t cq_head;
	uint8_t phase;
	uint16_t next_cid;
	uint32_t pending_db;
};

/**
 * npq_init() - describe a fresh queue pair
 * @q: filled in
 * @sq: the SQ, @depth 64-byte entries
 * @cq: the CQ, @depth 16-byte entries, zeroed (all phase tags 0)
 * @sq_db: the SQ tail doorbell
 * @cq_db: the CQ head doorbell
 * @depth: entries per queue, at least 2
 * @qid: the queue id
 *
 * The queue must be empty: both doorbells at 0, as after creation.
 */
static inline NPQ_DEVICE void npq_init(struct npq *q, NPQ_IOMEM void *sq,
				       NPQ_IOMEM void *cq,
				       NPQ_IOMEM void *sq_db,
				       NPQ_IOMEM void *cq_db, uint32_t depth,
				       uint16_t qid)
{
	q->sq = (NPQ_IOMEM struct npq_sqe *)sq;
	q->cq = (NPQ_IOMEM struct npq_cqe *)cq;
	q->sq_db = (NPQ_IOMEM uint32_t *)sq_db;
	q->cq_db = (NPQ_IOMEM uint32_t *)cq_db;
	q->depth = depth;
	q->qid = qid;
	q->sq_tail = 0;
	q->sq_head = 0;
	q->cq_head = 0;
	q->phase = 1;
	q->next_cid = 0;
	q->pending_db = 0;
}

/**
 * npq_sqe_zero() - clear a command
 * @e: the entry
 */
static inline NPQ_DEVICE void npq_sqe_zero(struct npq_sqe *e)
{
	int i;

	for (i = 0; i < 16; i++)
		e->dw[i] = 0;
}

/**
 * npq_sqe_rw() - build a read, write or write-zeroes command using PRPs
 * @e: the entry, overwritten completely
 * @opc: NPQ_OPC_READ, NPQ_OPC_WRITE or NPQ_OPC_WRITE_ZEROES
 * @nsid: the namespace
 * @slba: the first logical block
 * @nlb: the number of logical blocks, 1-based (1..65536); stored 0-based
 * @prp1: the first PRP entry: the data address as the controller sees it
 * @prp2: the second page, or the address of a PRP list, or 0
 *
 * Fuse, PSDT (0: PRPs), metadata pointer and cdw13-15 are 0.  The command
 * id is set by npq_enqueue().
 */
static inline NPQ_DEVICE void npq_sqe_rw(struct npq_sqe *e, uint8_t opc,
					 uint32_t nsid, uint64_t slba,
					 uint32_t nlb, uint64_t prp1,
					 uint64_t prp2)
{
	npq_sqe_zero(e);
	e->dw[0] = NPQ_CPU_TO_LE32(opc);
	e->dw[1] = NPQ_CPU_TO_LE32(nsid);
	e->dw[6] = NPQ_CPU_TO_LE32((uint32_t)prp1);
	e->dw[7] = NPQ_CPU_TO_LE32((uint32_t)(prp1 >> 32));
	e->dw[8] = NPQ_CPU_TO_LE32((uint32_t)prp2);
	e->dw[9] = NPQ_CPU_TO_LE32((uint32_t)(prp2 >> 32));
	e->dw[10] = NPQ_CPU_TO_LE32((uint32_t)slba);
	e->dw[11] = NPQ_CPU_TO_LE32((uint32_t)(slba >> 32));
	e->dw[12] = NPQ_CPU_TO_LE32((nlb - 1) & 0xffff);
}

/**
 * npq_sqe_flush() - build a flush command
 * @e: the entry, overwritten completely
 * @nsid: the namespace
 */
static inline NPQ_DEVICE void npq_sqe_flush(struct npq_sqe *e, uint32_t nsid)
{
	npq_sqe_zero(e);
	e->dw[0] = NPQ_CPU_TO_LE32(NPQ_OPC_FLUSH);
	e->dw[1] = NPQ_CPU_TO_LE32(nsid);
}

/**
 * npq_sqe_dsm() - build a dataset management command
 * @e: the entry, overwritten completely
 * @nsid: the namespace
 * @nr: the number of 16-byte ranges at @prp1, 1-based (1..256)
 * @attr: NPQ_DSM_* attributes, e.g. NPQ_DSM_AD to deallocate
 * @prp1: the range list as the controller sees it (one page at most)
 *
 * A range is: context attributes (bytes 0-3), number of logical blocks,
 * 1-based (bytes 4-7), starting LBA (bytes 8-15), all little-endian.
 */
static inline NPQ_DEVICE void npq_sqe_dsm(struct npq_sqe *e, uint32_t nsid,
					  uint32_t nr, uint32_t attr,
					  uint64_t prp1)
{
	npq_sqe_zero(e);
	e->dw[0] = NPQ_CPU_TO_LE32(NPQ_OPC_DSM);
	e->dw[1] = NPQ_CPU_TO_LE32(nsid);
	e->dw[6] = NPQ_CPU_TO_LE32((uint32_t)prp1);
	e->dw[7] = NPQ_CPU_TO_LE32((uint32_t)(prp1 >> 32));
	e->dw[10] = NPQ_CPU_TO_LE32((nr - 1) & 0xff);
	e->dw[11] = NPQ_CPU_TO_LE32(attr);
}

/**
 * npq_sqe_cid() - the command id of a command
 * @e: the entry
 *
 * Return: the command id npq_enqueue() gave it.
 */
static inline NPQ_DEVICE uint16_t npq_sqe_cid(const struct npq_sqe *e)
{
	return (uint16_t)(NPQ_LE32_TO_CPU(e->dw[0]) >> 16);
}

/**
 * npq_next() - the slot after @i
 * @q: the queue
 * @i: a slot
 *
 * Return: (@i + 1) modulo the depth, without a division.
 */
static inline NPQ_DEVICE uint32_t npq_next(const struct npq *q, uint32_t i)
{
	return i + 1 >= q->depth ? 0 : i + 1;
}

/**
 * npq_full() - whether the SQ has no free slot
 * @q: the queue
 *
 * One slot always stays empty, since tail == head means empty: the queue is
 * full when advancing the tail would make it equal to the head.
 *
 * Return: nonzero when full (also for a depth below 2).
 */
static inline NPQ_DEVICE int npq_full(const struct npq *q)
{
	return q->depth < 2 || npq_next(q, q->sq_tail) == q->sq_head;
}

/**
 * npq_space() - the number of free SQ slots
 * @q: the queue
 *
 * Return: how many npq_enqueue() calls will succeed before the next poll.
 */
static inline NPQ_DEVICE uint32_t npq_space(const struct npq *q)
{
	if (q->depth < 2)
		return 0;
	if (q->sq_head > q->sq_tail)
		return q->sq_head - q->sq_tail - 1;
	return q->depth - (q->sq_tail - q->sq_head) - 1;
}

/**
 * npq_enqueue() - copy a command into the next SQ slot, without ringing
 * @q: the queue
 * @e: the command; its command id field is set, also in @e
 *
 * Command ids count up from 0 and wrap, skipping NPQ_CID_INVALID (0xffff).
 * The controller sees the command only after npq_ring_sq().
 *
 * Return: the command id, or -1 when the queue is full.
 */
static inline NPQ_DEVICE int npq_enqueue(struct npq *q, struct npq_sqe *e)
{
	NPQ_IOMEM struct npq_sqe *slot;
	uint16_t cid;
	int i;

	if (npq_full(q))
		return -1;
	cid = q->next_cid;
	q->next_cid = cid + 1 >= NPQ_CID_INVALID ? 0 : cid + 1;
	e->dw[0] = NPQ_CPU_TO_LE32((NPQ_LE32_TO_CPU(e->dw[0]) & 0xffff) |
				   ((uint32_t)cid << 16));
	slot = &q->sq[q->sq_tail];
	for (i = 0; i < 16; i++)
		NPQ_WRITE32(&slot->dw[i], e->dw[i]);
	q->sq_tail = npq_next(q, q->sq_tail);
	q->pending_db++;
	return cid;
}

/**
 * npq_ring_sq() - hand everything enqueued so far to the controller
 * @q: the queue
 *
 * NPQ_WMB(), then the SQ tail doorbell store.
 */
static inline NPQ_DEVICE void npq_ring_sq(struct npq *q)
{
	NPQ_WMB();
	NPQ_MMIO_WRITE32(q->sq_db, NPQ_CPU_TO_LE32(q->sq_tail));
	q->pending_db = 0;
}

/**
 * npq_submit() - enqueue one command and ring the SQ doorbell
 * @q: the queue
 * @e: the command; its command id field is set
 *
 * Return: the command id, or -1 when the queue is full (nothing is rung).
 */
static inline NPQ_DEVICE int npq_submit(struct npq *q, struct npq_sqe *e)
{
	int cid = npq_enqueue(q, e);

	if (cid >= 0)
		npq_ring_sq(q);
	return cid;
}

/**
 * npq_poll() - consume the next completion, if the controller posted it
 * @q: the queue
 * @out: the completion, copied out (little-endian, as in the CQ)
 *
 * A CQE is new when its phase tag equals the expected phase; the expected
 * phase flips each time the CQ head wraps to slot 0.  On success the SQ
 * head is taken from the CQE, which frees SQ slots, and the CQ head
 * advances.  Return the slots to the controller with npq_ring_cq().
 *
 * Return: 1 when a completion was consumed, 0 when there is none.
 */
static inline NPQ_DEVICE int npq_poll(struct npq *q, struct npq_cqe *out)
{
	NPQ_IOMEM struct npq_cqe *c = &q->cq[q->cq_head];
	NPQ_IOMEM uint8_t *sf = (NPQ_IOMEM uint8_t *)c + 14;
	uint16_t head;
	int i;

	if ((NPQ_LE16_TO_CPU(NPQ_READ16(sf)) & 1) != q->phase)
		return 0;
	NPQ_RMB();
	for (i = 0; i < 4; i++)
		out->dw[i] = NPQ_READ32(&c->dw[i]);
	head = (uint16_t)NPQ_LE32_TO_CPU(out->dw[2]);
	if (head < q->depth)	/* a broken controller must not overrun */
		q->sq_head = head;
	q->cq_head = npq_next(q, q->cq_head);
	if (!q->cq_head)
		q->phase ^= 1;
	return 1;
}

/**
 * npq_ring_cq() - return the consumed CQ slots to the controller
 * @q: the queue
 *
 * NPQ_RMB(), so the CQE loads are done before the controller may reuse the
 * slots, then the CQ head doorbell store.  Once per poll or per batch.
 */
static inline NPQ_DEVICE void npq_ring_cq(struct npq *q)
{
	NPQ_RMB();
	NPQ_MMIO_WRITE32(q->cq_db, NPQ_CPU_TO_LE32(q->cq_head));
}

/**
 * npq_cqe_status() - the status of a completion, without the phase tag
 * @c: a completion
 *
 * Return: the status field shifted right by one: SC in bits 7:0, SCT in
 * 10:8, CRD in 12:11, More in 13, DNR in 14; 0 means success.
 */
static inline NPQ_DEVICE uint16_t npq_cqe_status(const struct npq_cqe *c)
{
	return (uint16_t)(NPQ_LE32_TO_CPU(c->dw[3]) >> 17);
}

/**
 * npq_cqe_phase() - the phase tag of a completion
 * @c: a completion
 *
 * Return: 0 or 1.
 */
static inline NPQ_DEVICE uint8_t npq_cqe_phase(const struct npq_cqe *c)
{
	return (uint8_t)((NPQ_LE32_TO_CPU(c->dw[3]) >> 16) & 1);
}

/**
 * npq_cqe_cid() - the command id a completion is for
 * @c: a completion
 *
 * Return: the command id npq_enqueue() returned for the command.
 */
static inline NPQ_DEVICE uint16_t npq_cqe_cid(const struct npq_cqe *c)
{
	return (uint16_t)NPQ_LE32_TO_CPU(c->dw[3]);
}

/**
 * npq_cqe_sq_head() - the SQ head the controller reported
 * @c: a completion
 *
 * Return: the SQ head pointer field.
 */
static inline NPQ_DEVICE uint16_t npq_cqe_sq_head(const struct npq_cqe *c)
{
	return (uint16_t)NPQ_LE32_TO_CPU(c->dw[2]);
}

/**
 * npq_cqe_sqid() - the SQ a completion belongs to
 * @c: a completion
 *
 * Return: the SQ identifier field.
 */
static inline NPQ_DEVICE uint16_t npq_cqe_sqid(const struct npq_cqe *c)
{
	return (uint16_t)(NPQ_LE32_TO_CPU(c->dw[2]) >> 16);
}

/**
 * npq_cqe_dw0() - the command specific dword 0 of a completion
 * @c: a completion
 *
 * Return: dword 0 in CPU byte order.
 */
static inline NPQ_DEVICE uint32_t npq_cqe_dw0(const struct npq_cqe *c)
{
	return NPQ_LE32_TO_CPU(c->dw[0]);
}

/**
 * npq_status_sc() - the status code
 * @status: as returned by npq_cqe_status()
 *
 * Return: SC (bits 8:1 of the status field).
 */
static inline NPQ_DEVICE uint8_t npq_status_sc(uint16_t status)
{
	return (uint8_t)(status & 0xff);
}

/**
 * npq_status_sct() - the status code type
 * @status: as returned by npq_cqe_status()
 *
 * Return: SCT (bits 11:9 of the status field), an NPQ_SCT_* value.
 */
static inline NPQ_DEVICE uint8_t npq_status_sct(uint16_t status)
{
	return (uint8_t)((status >> 8) & 0x7);
}

/**
 * npq_status_dnr() - whether retrying the command is pointless
 * @status: as returned by npq_cqe_status()
 *
 * Return: DNR (bit 15 of the status field), 0 or 1.
 */
static inline NPQ_DEVICE int npq_status_dnr(uint16_t status)
{
	return (status >> 14) & 1;
}

#endif /* _NVME_PEER_QUEUE_H */
