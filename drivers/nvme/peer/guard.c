// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer guard: is one NVMe I/O submission queue entry allowed by a policy?
 *
 * A peer device owns a hardware submission queue; before its entries reach
 * the controller (or when a queue is audited) each one is checked against an
 * immutable &struct np_policy: one namespace, a set of LBA extents, a set of
 * DMA windows the data must stay in, and a few opcodes.
 *
 * Only five NVM command set opcodes are understood: Flush, Write, Read,
 * Write Zeroes and Dataset Management.  Any other opcode is refused with
 * Invalid Command Opcode even if its bit is set in the policy, because the
 * guard cannot tell what it would touch.
 *
 * Checks run in a fixed order and the first failure decides the verdict:
 *
 *  1. opcode: understood and allowed          -> NP_GUARD_BAD_OPCODE
 *  2. fields: CDW0 reserved bits, PSDT, FUSE, CDW2/CDW3, MPTR and the
 *     per-opcode reserved or unsupported bits of CDW10..CDW15, and the data
 *     pointer of the commands that have none  -> NP_GUARD_BAD_FIELD
 *  3. NSID equal to the policy's (never 0 or 0xffffffff) -> NP_GUARD_BAD_NSID
 *  4. NLB not above max_nlb                  -> NP_GUARD_BAD_FIELD
 *  5. [SLBA, SLBA + NLB) inside one extent and inside the namespace
 *                                             -> NP_GUARD_LBA_RANGE
 *  6. PRPs, in this order: PRP1 dword aligned (PRP_OFFSET); then the shape of
 *     PRP2: zero when unused (BAD_FIELD), page aligned when it is the second
 *     page (PRP_OFFSET), qword aligned when it is a PRP list (PRP_OFFSET) and
 *     the list fitting in its page (BAD_FIELD); then the bytes behind PRP1,
 *     behind PRP2 or the list itself, and behind each list entry in turn
 *     (entry page aligned: PRP_OFFSET, inside a window: DATA_WINDOW).
 *
 * Limits, by design:
 *  - SGLs are refused (PSDT != 0 is BAD_FIELD) even with NP_POLICY_ALLOW_SGL.
 *  - PRP lists must fit in one list page: a transfer whose list would need
 *    chaining is BAD_FIELD.  The memory page size is 4 KiB (CC.MPS = 0).
 *  - Every data segment must lie inside a single window; a segment is the
 *    bytes the controller moves for one PRP entry (the last entry may cover
 *    less than a page).
 *  - With NP_POLICY_ALLOW_METADATA, MPTR is passed through unchecked: the
 *    metadata size is not part of the policy.  Only allow metadata when the
 *    format has none in a separate buffer, or when DMA is otherwise confined.
 *  - With NP_POLICY_ALLOW_FUSED, FUSE 01b/10b pass; 11b is reserved and is
 *    refused.  Compare is not understood, so no complete fused pair can pass.
 *  - Dataset Management: only the PRPs of the range list are checked.  The
 *    ranges live in peer memory and cannot be validated without copying, so
 *    the LBAs inside them are NOT checked: allowing DSM (with the deallocate
 *    attribute) lets the peer deallocate anywhere in the namespace.
 *  - Write Zeroes is limited by max_nlb like Read and Write, and its CDW13 to
 *    CDW15 must be zero (no directives, no protection information).
 *
 * np_guard_check() itself is the headline case, a read or write with nothing
 * unusual whose data fits in PRP1's page: the must-be-zero fields OR-ed into
 * one test, two branchless binary searches (extents, windows) and a handful
 * of compares, no loop over the extents or windows and no division.
 * Anything else goes to np_guard_check_full(), or to np_prps_check() once
 * steps 1 to 5 have passed, which then decide the verdict.  The KUnit test
 * checks both paths against a naive reference checker.
 */
#include "guard.h"

#define NP_PAGE_MASK		((u64)NP_GUARD_PAGE_SIZE - 1)

#define NP_CDW0_OPC		0x000000ffU
#define NP_CDW0_FUSE		0x00000300U
#define NP_CDW0_FUSE_SHIFT	8
#define NP_CDW0_RSVD_PSDT	0x0000fc00U	/* reserved 13:10, PSDT 15:14 */

#define NP_CDW12_NLB		0x0000ffffU
#define NP_CDW12_DEAC		BIT(25)
#define NP_CDW12_FUA		BIT(30)
#define NP_CDW12_LR		BIT(31)
#define NP_RW_CDW12_OK		(NP_CDW12_NLB | NP_CDW12_FUA | NP_CDW12_LR)
#define NP_WZ_CDW12_OK		(NP_RW_CDW12_OK | NP_CDW12_DEAC)

#define NP_DSM_CDW10_OK		0x000000ffU	/* NR, 0-based */
#define NP_DSM_CDW11_OK		0x00000007U	/* IDR, IDW, AD */
#define NP_DSM_RANGE_SIZE	16

#define NP_RW_OPCODES		(BIT_ULL(NP_OP_WRITE) | BIT_ULL(NP_OP_READ))
#define NP_KNOWN_OPCODES	(BIT_ULL(NP_OP_FLUSH) | NP_RW_OPCODES | \
				 BIT_ULL(NP_OP_WRITE_ZEROES) | BIT_ULL(NP_OP_DSM))

/* SQE layout: dwords and the little-endian quadwords made of dword pairs */
#define NP_DW_CDW0	0
#define NP_DW_NSID	1
#define NP_DW_CDW10	10
#define NP_DW_CDW11	11
#define NP_DW_CDW12	12
#define NP_DW_CDW13	13
#define NP_QW_CDW2_3	1
#define NP_QW_MPTR	2
#define NP_QW_PRP1	3
#define NP_QW_PRP2	4
#define NP_QW_SLBA	5	/* CDW10 | CDW11 << 32 */
#define NP_QW_CDW12_13	6
#define NP_QW_CDW14_15	7

/* ---- policy preparation -------------------------------------------------- */

static void np_ext_sift(struct np_extent *a, u32 root, u32 n)
{
	struct np_extent t = a[root];
	u32 child;

	while (root < n / 2) {
		child = 2 * root + 1;
		if (child + 1 < n && a[child + 1].slba > a[child].slba)
			child++;
		if (a[child].slba <= t.slba)
			break;
		a[root] = a[child];
		root = child;
	}
	a[root] = t;
}

/**
 * np_policy_prepare() - sort and merge the LBA extents of a policy
 * @ext: the extents, rewritten in place
 * @nr: in: number of @ext; out: number left after merging
 *
 * Sorts @ext by slba (heapsort, no recursion, no allocation) and merges
 * overlapping and adjacent extents, which is the shape np_guard_check()
 * needs for its binary search.  The kernel calls this once when a policy is
 * set, before any command is checked against it.
 *
 * Return: 0, or -EINVAL (leaving @ext in an unspecified order and @nr
 * unchanged) if an extent has nlb 0 or slba + nlb does not fit in 64 bits.
 */
int np_policy_prepare(struct np_extent *ext, u32 *nr)
{
	u32 n = *nr, i, m;
	struct np_extent t;
	u64 end;

	for (i = 0; i < n; i++)
		if (!ext[i].nlb || ext[i].slba + ext[i].nlb < ext[i].slba)
			return -EINVAL;
	if (!n)
		return 0;

	for (i = n / 2; i-- > 0;)
		np_ext_sift(ext, i, n);
	for (i = n - 1; i > 0; i--) {
		t = ext[0];
		ext[0] = ext[i];
		ext[i] = t;
		np_ext_sift(ext, 0, i);
	}

	for (m = 0, i = 1; i < n; i++) {
		end = ext[m].slba + ext[m].nlb;
		if (ext[i].slba <= end) {
			if (ext[i].slba + ext[i].nlb > end)
				ext[m].nlb = ext[i].slba + ext[i].nlb - ext[m].slba;
		} else {
			ext[++m] = ext[i];
		}
	}
	*nr = m + 1;
	return 0;
}

static void np_win_sift(struct np_window *a, u32 root, u32 n)
{
	struct np_window t = a[root];
	u32 child;

	while (root < n / 2) {
		child = 2 * root + 1;
		if (child + 1 < n && a[child + 1].addr > a[child].addr)
			child++;
		if (a[child].addr <= t.addr)
			break;
		a[root] = a[child];
		root = child;
	}
	a[root] = t;
}

/**
 * np_windows_prepare() - sort and merge the DMA windows of a policy
 * @win: the windows, rewritten in place
 * @nr: in: number of @win; out: number left after merging
 *
 * Like np_policy_prepare(), for windows: sorted by address, overlapping and
 * adjacent windows merged (so a segment may straddle the border of two
 * adjacent windows given separately).  Called once when a policy is set.
 *
 * Return: 0, or -EINVAL if a window has len 0 or addr + len does not fit in
 * 64 bits.
 */
int np_windows_prepare(struct np_window *win, u32 *nr)
{
	u32 n = *nr, i, m;
	struct np_window t;
	u64 end;

	for (i = 0; i < n; i++)
		if (!win[i].len || win[i].addr + win[i].len < win[i].addr)
			return -EINVAL;
	if (!n)
		return 0;

	for (i = n / 2; i-- > 0;)
		np_win_sift(win, i, n);
	for (i = n - 1; i > 0; i--) {
		t = win[0];
		win[0] = win[i];
		win[i] = t;
		np_win_sift(win, 0, i);
	}

	for (m = 0, i = 1; i < n; i++) {
		end = win[m].addr + win[m].len;
		if (win[i].addr <= end) {
			if (win[i].addr + win[i].len > end)
				win[m].len = win[i].addr + win[i].len - win[m].addr;
		} else {
			win[++m] = win[i];
		}
	}
	*nr = m + 1;
	return 0;
}

/**
 * np_guard_status() - the NVMe status for a verdict
 * @v: the verdict
 *
 * Return: the status field value SC | SCT << 8 (SCT is always 0, generic),
 * without DNR; 0 for NP_GUARD_OK.
 */
u16 np_guard_status(enum np_guard_verdict v)
{
	static const u16 status[NP_GUARD_NR_VERDICTS] = {
		[NP_GUARD_OK]		= 0x00,
		[NP_GUARD_BAD_OPCODE]	= 0x01,
		[NP_GUARD_BAD_FIELD]	= 0x02,
		[NP_GUARD_BAD_NSID]	= 0x0b,
		[NP_GUARD_LBA_RANGE]	= 0x80,
		[NP_GUARD_PRP_OFFSET]	= 0x13,
		[NP_GUARD_DATA_WINDOW]	= 0x04,
	};

	if ((unsigned int)v >= NP_GUARD_NR_VERDICTS)
		return 0x06;	/* Internal Error: not a verdict */
	return status[v];
}

/* ---- lookups ----------------------------------------------------------- */

/*
 * The extent with the largest slba <= @lba, or @e[0] if there is none;
 * @n >= 1.  Branchless binary search: a first probe at n - step, step being
 * the largest power of two below @n (1 if @n is 1), leaves a range of step
 * extents, which halving steps narrow down to one: ceil(log2(n))
 * compare-and-select steps whatever @lba is.  The selects compile to cmov;
 * the step is kept in bytes to spare a shift per step.
 */
static __always_inline const struct np_extent *
np_ext_find(const struct np_extent *e, u32 n, u64 lba)
{
	u64 step = (u64)sizeof(*e) << (31 - __builtin_clz((n - 1) | 1));
	const struct np_extent *t = e + n - step / sizeof(*e);

	e = t->slba <= lba ? t : e;
	while (step > sizeof(*e)) {
		step >>= 1;
		t = (const void *)e + step;
		e = t->slba <= lba ? t : e;
	}
	return e;
}

/* The same for windows: the one with the largest addr <= @addr. */
static __always_inline const struct np_window *
np_win_find(const struct np_window *w, u32 n, u64 addr)
{
	u64 step = (u64)sizeof(*w) << (31 - __builtin_clz((n - 1) | 1));
	const struct np_window *t = w + n - step / sizeof(*w);

	w = t->addr <= addr ? t : w;
	while (step > sizeof(*w)) {
		step >>= 1;
		t = (const void *)w + step;
		w = t->addr <= addr ? t : w;
	}
	return w;
}

/*
 * Is [@slba, @slba + @nlb) inside one extent and inside the namespace?
 * @nlb >= 1.  off < e->nlb puts @slba inside the extent found (when @slba
 * lies before the first extent off wraps to more than any nlb, as an
 * extent's slba + nlb fits in 64 bits); then nothing below can overflow.
 */
static __always_inline bool np_lba_ok(const struct np_policy *p, u64 slba,
				      u64 nlb)
{
	const struct np_extent *e;
	u64 off;

	if (!p->nr_extents)
		return false;
	e = np_ext_find(p->extents, p->nr_extents, slba);
	off = slba - e->slba;
	if (off >= e->nlb || nlb > e->nlb - off)
		return false;
	return slba + nlb <= p->ns_size;
}

/* Is [@addr, @addr + @len) inside a single window?  @len >= 1. */
static __always_inline bool np_dma_ok(const struct np_policy *p, u64 addr,
				      u64 len)
{
	const struct np_window *w;
	u64 off;

	if (!p->nr_windows)
		return false;
	w = np_win_find(p->windows, p->nr_windows, addr);
	off = addr - w->addr;
	return off < w->len && len <= w->len - off;
}

/* ---- the full check ------------------------------------------------------ */

static inline bool np_opcode_ok(const struct np_policy *p, u32 opc)
{
	return opc < 64 && ((p->opcodes[0] & NP_KNOWN_OPCODES) >> opc) & 1;
}

/* The PRP list entries a transfer of @len bytes from @prp1 needs, or 0. */
static inline u64 np_prp_list_entries(u64 prp1, u64 len)
{
	u64 first = NP_GUARD_PAGE_SIZE - (prp1 & NP_PAGE_MASK);

	if (len <= first + NP_GUARD_PAGE_SIZE)
		return 0;
	return (len - first + NP_PAGE_MASK) >> NP_GUARD_PAGE_SHIFT;
}

static noinline enum np_guard_verdict
np_prps_check(const struct np_policy *p, u64 prp1, u64 prp2, u64 len,
	      const struct np_prp_list *list)
{
	u64 first = NP_GUARD_PAGE_SIZE - (prp1 & NP_PAGE_MASK);
	u64 n, i, e, seg;

	if (prp1 & 3)
		return NP_GUARD_PRP_OFFSET;

	if (len <= first) {
		if (prp2)
			return NP_GUARD_BAD_FIELD;
		return np_dma_ok(p, prp1, len) ? NP_GUARD_OK :
						 NP_GUARD_DATA_WINDOW;
	}

	len -= first;
	if (len <= NP_GUARD_PAGE_SIZE) {
		if (prp2 & NP_PAGE_MASK)
			return NP_GUARD_PRP_OFFSET;
		if (!np_dma_ok(p, prp1, first) || !np_dma_ok(p, prp2, len))
			return NP_GUARD_DATA_WINDOW;
		return NP_GUARD_OK;
	}

	n = (len + NP_PAGE_MASK) >> NP_GUARD_PAGE_SHIFT;
	if (prp2 & 7)
		return NP_GUARD_PRP_OFFSET;
	if (n > (NP_GUARD_PAGE_SIZE - (prp2 & NP_PAGE_MASK)) / 8)
		return NP_GUARD_BAD_FIELD;	/* would need a chained list */
	if (!np_dma_ok(p, prp1, first))
		return NP_GUARD_DATA_WINDOW;
	if (!list || list->list_addr != prp2 || list->nr < n)
		return NP_GUARD_DATA_WINDOW;	/* no copy to check */
	if (!np_dma_ok(p, prp2, n * 8))
		return NP_GUARD_DATA_WINDOW;
	for (i = 0; i < n; i++, len -= seg) {
		e = le64_to_cpu(list->entries[i]);
		seg = len < NP_GUARD_PAGE_SIZE ? len : NP_GUARD_PAGE_SIZE;
		if (e & NP_PAGE_MASK)
			return NP_GUARD_PRP_OFFSET;
		if (!np_dma_ok(p, e, seg))
			return NP_GUARD_DATA_WINDOW;
	}
	return NP_GUARD_OK;
}

/* Step 2 of the check order: reserved and unsupported fields. */
static bool np_fields_bad(const struct np_policy *p, const void *sqe)
{
	const __le32 *dw = sqe;
	const __le64 *qw = sqe;
	u32 dw0 = le32_to_cpu(dw[NP_DW_CDW0]);
	u32 fuse = (dw0 & NP_CDW0_FUSE) >> NP_CDW0_FUSE_SHIFT;
	u32 cdw12 = le32_to_cpu(dw[NP_DW_CDW12]);

	if (dw0 & NP_CDW0_RSVD_PSDT)
		return true;
	if (fuse && (fuse == 3 || !(p->flags & NP_POLICY_ALLOW_FUSED)))
		return true;
	if (qw[NP_QW_CDW2_3])
		return true;
	if (qw[NP_QW_MPTR] && !(p->flags & NP_POLICY_ALLOW_METADATA))
		return true;

	switch (dw0 & NP_CDW0_OPC) {
	case NP_OP_FLUSH:
		return qw[NP_QW_PRP1] || qw[NP_QW_PRP2] || qw[NP_QW_SLBA] ||
		       qw[NP_QW_CDW12_13] || qw[NP_QW_CDW14_15];
	case NP_OP_WRITE:
	case NP_OP_READ:
		/* CDW13 (DSM hints, directive specific) is free */
		return (cdw12 & ~NP_RW_CDW12_OK) || qw[NP_QW_CDW14_15];
	case NP_OP_WRITE_ZEROES:
		return qw[NP_QW_PRP1] || qw[NP_QW_PRP2] ||
		       (cdw12 & ~NP_WZ_CDW12_OK) || dw[NP_DW_CDW13] ||
		       qw[NP_QW_CDW14_15];
	case NP_OP_DSM:
		return (le32_to_cpu(dw[NP_DW_CDW10]) & ~NP_DSM_CDW10_OK) ||
		       (le32_to_cpu(dw[NP_DW_CDW11]) & ~NP_DSM_CDW11_OK) ||
		       qw[NP_QW_CDW12_13] || qw[NP_QW_CDW14_15];
	}
	return true;
}

/* The whole check, in the documented order. */
static noinline enum np_guard_verdict
np_guard_check_full(const struct np_policy *p, const void *sqe,
		    const struct np_prp_list *list)
{
	const __le32 *dw = sqe;
	const __le64 *qw = sqe;
	u32 opc = le32_to_cpu(dw[NP_DW_CDW0]) & NP_CDW0_OPC;
	u32 nsid = le32_to_cpu(dw[NP_DW_NSID]);
	u32 nlb0 = le32_to_cpu(dw[NP_DW_CDW12]) & NP_CDW12_NLB;
	u64 prp1 = le64_to_cpu(qw[NP_QW_PRP1]);
	u64 prp2 = le64_to_cpu(qw[NP_QW_PRP2]);
	u64 slba = le64_to_cpu(qw[NP_QW_SLBA]);
	u64 len;

	if (!np_opcode_ok(p, opc))
		return NP_GUARD_BAD_OPCODE;
	if (np_fields_bad(p, sqe))
		return NP_GUARD_BAD_FIELD;
	if (nsid != p->nsid || nsid == 0 || nsid == 0xffffffff)
		return NP_GUARD_BAD_NSID;

	switch (opc) {
	case NP_OP_FLUSH:
		return NP_GUARD_OK;
	case NP_OP_DSM:
		len = ((le32_to_cpu(dw[NP_DW_CDW10]) & NP_DSM_CDW10_OK) + 1) *
		      NP_DSM_RANGE_SIZE;
		return np_prps_check(p, prp1, prp2, len, list);
	}

	/* Read, Write, Write Zeroes; max_nlb 0 wraps to "no limit" */
	if (nlb0 > p->max_nlb - 1)
		return NP_GUARD_BAD_FIELD;
	if (!np_lba_ok(p, slba, (u64)nlb0 + 1))
		return NP_GUARD_LBA_RANGE;
	if (opc == NP_OP_WRITE_ZEROES)
		return NP_GUARD_OK;
	len = ((u64)nlb0 + 1) << p->lba_shift;
	return np_prps_check(p, prp1, prp2, len, list);
}

/**
 * np_guard_check() - is a submission queue entry allowed by a policy?
 * @p: the policy, prepared with np_policy_prepare() and np_windows_prepare()
 * @sqe: the 64-byte entry in NVMe (little-endian) layout, 8-byte aligned,
 *	 in memory the peer cannot change during the call
 * @list: a copy of the PRP list the entry points to, of at least
 *	  np_guard_prp_list_len() entries; may be NULL when none is needed
 *
 * Pure function of its arguments: no locks, no allocation, callable from
 * any context.  See the top of this file for the order of the checks.
 *
 * The body is the headline case, a read or write with nothing unusual,
 * checked with as few instructions as possible; anything else, including
 * any failure, is handed to np_guard_check_full() (steps 1 to 5 failed or
 * were not tried) or np_prps_check() (steps 1 to 5 passed), which then
 * decide the verdict.
 *
 * Return: NP_GUARD_OK, or why the entry must not reach the controller; use
 * np_guard_status() for the completion status to report to the peer.
 */
enum np_guard_verdict np_guard_check(const struct np_policy *p,
				     const void *sqe,
				     const struct np_prp_list *list)
{
	const __le32 *dw = sqe;
	const __le64 *qw = sqe;
	u32 dw0 = le32_to_cpu(dw[NP_DW_CDW0]);
	u32 cdw12 = le32_to_cpu(dw[NP_DW_CDW12]);
	u32 nsid = le32_to_cpu(dw[NP_DW_NSID]);
	u64 slba, nlb, len, prp1, prp2;

	/*
	 * Opcode bits 7:6, FUSE, reserved, PSDT, CDW2/3, MPTR, CDW14/15 and
	 * the unsupported bits of CDW12 all zero; then opcode 1 or 2 allowed.
	 */
	if ((le64_to_cpu(qw[NP_QW_CDW2_3] | qw[NP_QW_MPTR] |
			 qw[NP_QW_CDW14_15]) |
	     (cdw12 & ~NP_RW_CDW12_OK) | (dw0 & 0xffc0)) ||
	    !(((p->opcodes[0] & NP_RW_OPCODES) >> (dw0 & 63)) & 1))
		goto full;
	if (nsid != p->nsid || nsid + 1 <= 1)
		goto full;
	if ((cdw12 & NP_CDW12_NLB) > p->max_nlb - 1)
		goto full;
	nlb = (u64)(cdw12 & NP_CDW12_NLB) + 1;
	slba = le64_to_cpu(qw[NP_QW_SLBA]);
	if (!np_lba_ok(p, slba, nlb))
		goto full;

	/* steps 1 to 5 passed: the PRPs decide */
	prp1 = le64_to_cpu(qw[NP_QW_PRP1]);
	prp2 = le64_to_cpu(qw[NP_QW_PRP2]);
	len = nlb << p->lba_shift;
	if (!(prp1 & 3) && !prp2 &&
	    len <= NP_GUARD_PAGE_SIZE - (prp1 & NP_PAGE_MASK) &&
	    np_dma_ok(p, prp1, len))
		return NP_GUARD_OK;
	return np_prps_check(p, prp1, prp2, len, list);
full:
	return np_guard_check_full(p, sqe, list);
}

/**
 * np_guard_prp_list_len() - how many PRP list entries a command needs
 * @p: the policy (for the LBA size)
 * @sqe: the entry, as for np_guard_check()
 *
 * For a Read or Write whose data spans more than two pages, PRP2 points to
 * a PRP list in peer memory; the caller must copy this many entries from
 * PRP2 into memory of its own and pass them to np_guard_check().
 *
 * Return: the number of entries, at most NP_GUARD_MAX_LIST; 0 when the
 * command needs no list, or when np_guard_check() will refuse it for the
 * shape of its list alone (PRP2 not qword aligned, list needing chaining),
 * so the caller never reads past the list page PRP2 points into.
 */
u32 np_guard_prp_list_len(const struct np_policy *p, const void *sqe)
{
	const __le32 *dw = sqe;
	const __le64 *qw = sqe;
	u32 opc = le32_to_cpu(dw[NP_DW_CDW0]) & NP_CDW0_OPC;
	u64 nlb = (u64)(le32_to_cpu(dw[NP_DW_CDW12]) & NP_CDW12_NLB) + 1;
	u64 prp1 = le64_to_cpu(qw[NP_QW_PRP1]);
	u64 prp2 = le64_to_cpu(qw[NP_QW_PRP2]);
	u64 n;

	if (opc != NP_OP_READ && opc != NP_OP_WRITE)
		return 0;
	n = np_prp_list_entries(prp1, nlb << p->lba_shift);
	if (prp2 & 7 ||
	    n > (NP_GUARD_PAGE_SIZE - (prp2 & NP_PAGE_MASK)) / 8)
		return 0;
	return n;
}
