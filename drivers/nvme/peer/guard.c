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
 *  - SGLs, fused commands and metadata pointers are always refused: PSDT
 *    != 0, FUSE != 0 and MPTR != 0 are BAD_FIELD, whatever the policy.  The
 *    guard parses no SGL, the metadata size is not part of the policy, and
 *    a fused pair would have to be checked and forwarded whole (Compare is
 *    not understood anyway).
 *  - PRP lists must fit in one list page: a transfer whose list would need
 *    chaining is BAD_FIELD.  The memory page size is 4 KiB (CC.MPS = 0).
 *  - Every data segment must lie inside a single window; a segment is the
 *    bytes the controller moves for one PRP entry (the last entry may cover
 *    less than a page).
 *  - Dataset Management: np_guard_check() checks the PRPs of the range
 *    list; the ranges live in peer memory, so the caller copies them and
 *    checks the copy with np_guard_dsm_ranges(), then submits the copy
 *    (mediated mode does; without that, allowing DSM with the deallocate
 *    attribute would let the peer deallocate anywhere in the namespace).
 *  - Write Zeroes is limited by max_nlb like Read and Write, and its CDW13 to
 *    CDW15 must be zero (no directives, no protection information).
 *
 * np_guard_check() itself is the headline case, a read or write with nothing
 * unusual whose data fits in PRP1's page, on tables np_policy_init() derives
 * from the policy: the must-be-zero fields, the opcode and the namespace
 * OR-ed into one test, then one slot of a direct-mapped cache of the extents
 * and one of the windows, each a shift, a mask and two compares; no loop and
 * no division.  A slot holds one range, so a command it does not cover is
 * not refused for that: the extents are then searched (branchless binary
 * search), and the windows by np_prps_check().  Anything else goes to
 * np_guard_check_full(), or to np_prps_check() once steps 1 to 5 have
 * passed, which then decide the verdict.  The KUnit test checks both paths
 * against a naive reference checker.
 */
#include "guard.h"

#define NP_PAGE_MASK		((u64)NP_GUARD_PAGE_SIZE - 1)

#define NP_CDW0_OPC		0x000000ffU
#define NP_CDW0_FUSE		0x00000300U
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
#define NP_QW_CDW0_NSID	0	/* CDW0 | NSID << 32 */
#define NP_QW_CDW2_3	1
#define NP_QW_MPTR	2
#define NP_QW_PRP1	3
#define NP_QW_PRP2	4
#define NP_QW_SLBA	5	/* CDW10 | CDW11 << 32 */
#define NP_QW_CDW12_13	6
#define NP_QW_CDW14_15	7

/*
 * The fast path compares the first quadword, command identifier masked off,
 * with the one np_policy_init() expects for CDW0 bits 1:0; NEVER, a
 * command identifier bit, cannot compare equal.
 */
#define NP_FAST_QW0_MASK	0xffffffff0000ffffULL
#define NP_FAST_NEVER		BIT_ULL(16)

#define NP_FAST_ALL		(BIT(NP_GUARD_FAST_SLOTS) - 1)	/* all slots */

/* ---- policy preparation -------------------------------------------------- */

static void np_range_sift(struct np_range *a, u32 root, u32 n)
{
	struct np_range t = a[root];
	u32 child;

	while (root < n / 2) {
		child = 2 * root + 1;
		if (child + 1 < n && a[child + 1].start > a[child].start)
			child++;
		if (a[child].start <= t.start)
			break;
		a[root] = a[child];
		root = child;
	}
	a[root] = t;
}

/**
 * np_ranges_prepare() - sort and merge the extents or windows of a policy
 * @r: the ranges, rewritten in place
 * @nr: in: number of @r; out: number left after merging
 *
 * Sorts @r by start (heapsort, no recursion, no allocation) and merges
 * overlapping and adjacent ranges, which is the shape np_guard_check()
 * needs for its binary search (so a segment may straddle the border of two
 * adjacent windows given separately).  The kernel calls this once for the
 * extents and once for the windows when a policy is set, before any
 * command is checked against it.
 *
 * Return: 0, or -EINVAL (leaving @r in an unspecified order and @nr
 * unchanged) if a range has len 0 or start + len does not fit in 64 bits.
 */
int np_ranges_prepare(struct np_range *r, u32 *nr)
{
	u32 n = *nr, i, m;
	struct np_range t;
	u64 end;

	for (i = 0; i < n; i++)
		if (!r[i].len || r[i].start + r[i].len < r[i].start)
			return -EINVAL;
	if (!n)
		return 0;

	for (i = n / 2; i-- > 0;)
		np_range_sift(r, i, n);
	for (i = n - 1; i > 0; i--) {
		t = r[0];
		r[0] = r[i];
		r[i] = t;
		np_range_sift(r, 0, i);
	}

	for (m = 0, i = 1; i < n; i++) {
		end = r[m].start + r[m].len;
		if (r[i].start <= end) {
			if (r[i].start + r[i].len > end)
				r[m].len = r[i].start + r[i].len - r[m].start;
		} else {
			r[++m] = r[i];
		}
	}
	*nr = m + 1;
	return 0;
}

/*
 * Are the @n ranges @r (NULL if @n is 0) in the shape np_ranges_prepare()
 * leaves them in: each non-empty and not wrapping past 2^64, sorted, and
 * apart from the one before (no overlap, no contact)?
 */
static bool np_ranges_ok(const struct np_range *r, u32 n)
{
	u32 i;

	if (n && !r)
		return false;
	for (i = 0; i < n; i++)
		if (!r[i].len || r[i].len > ~0ULL - r[i].start ||
		    (i && r[i].start <= r[i - 1].start + r[i - 1].len))
			return false;
	return true;
}

/*
 * The slots of a range cache that range @r has elements in, as a bitmap,
 * when slot (x >> @s) % NP_GUARD_FAST_SLOTS serves x.
 */
static u32 np_fast_claims(const struct np_range *r, u32 s)
{
	u64 span = ((r->start + r->len - 1) >> s) - (r->start >> s);
	u32 b = (r->start >> s) % NP_GUARD_FAST_SLOTS;
	u32 m;

	if (span >= NP_GUARD_FAST_SLOTS - 1)
		return NP_FAST_ALL;
	m = (2U << span) - 1;
	return (m << b | m >> (NP_GUARD_FAST_SLOTS - b)) & NP_FAST_ALL;
}

/*
 * Fill a range cache (@first, @end and *@shift) for the @n sorted, disjoint,
 * non-empty ranges @r, at most NP_GUARD_FAST_SLOTS.  The slot shift that
 * leaves the most ranges alone in all their slots wins, the smallest on a
 * tie: the cache serves those entirely.  A slot two ranges claim holds the
 * first one; the other is found by the slower search, as is everything
 * when @n is 0 and every slot is empty (end 0).
 */
static void np_fast_fill(u64 *first, u64 *end, u32 *shift,
			 const struct np_range *r, u32 n)
{
	u32 claims[NP_GUARD_FAST_SLOTS], once, twice, taken;
	u32 s, i, b, alone, best = 0, best_s = 0;

	for (s = 0; s < 64 && best < n; s++) {
		once = 0;
		twice = 0;
		for (i = 0; i < n; i++) {
			claims[i] = np_fast_claims(&r[i], s);
			twice |= once & claims[i];
			once |= claims[i];
		}
		alone = 0;
		for (i = 0; i < n; i++)
			alone += !(claims[i] & twice);
		if (alone > best) {
			best = alone;
			best_s = s;
		}
	}

	for (b = 0; b < NP_GUARD_FAST_SLOTS; b++) {
		first[b] = 0;
		end[b] = 0;
	}
	taken = 0;
	for (i = 0; i < n; i++) {
		claims[i] = np_fast_claims(&r[i], best_s) & ~taken;
		taken |= claims[i];
		for (b = 0; b < NP_GUARD_FAST_SLOTS; b++) {
			if (claims[i] & BIT(b)) {
				first[b] = r[i].start;
				end[b] = r[i].start + r[i].len;
			}
		}
	}
	*shift = best_s;
}

/**
 * np_policy_init() - finish a policy before its first np_guard_check()
 * @p: the policy, with @extents and @windows prepared
 *
 * Checks that @p is in the shape np_guard_check() relies on and derives the
 * tables of its fast path (the fast_* fields): the first quadword expected
 * for each allowed Read or Write opcode, the CDW12 bits that must be clear
 * for a command of at most one page, its data length, and a direct-mapped
 * cache of up to NP_GUARD_FAST_SLOTS extents and of as many windows (a
 * policy with more has its ranges searched every time).  No allocation:
 * the tables live in @p.
 *
 * Call it once, after np_ranges_prepare() on the extents and on the
 * windows and before checking any command, and again after any change to
 * @p (a policy is immutable while a queue lives).  Checking a command
 * against a policy this has not run on, or that changed since, is a bug:
 * the verdict is undefined.
 *
 * Return: 0, or -EINVAL when @p cannot be checked against: @lba_shift not
 * 9..16, or extents or windows missing, empty, wrapping past 2^64, or not
 * sorted and merged.
 */
int np_policy_init(struct np_policy *p)
{
	struct np_range r[NP_GUARD_FAST_SLOTS];
	const struct np_range *e = p->extents;
	u32 i, n, lim;
	u64 end;

	if (p->lba_shift < 9 || p->lba_shift > 16 ||
	    !np_ranges_ok(e, p->nr_extents) ||
	    !np_ranges_ok(p->windows, p->nr_windows))
		return -EINVAL;

	/*
	 * The fast path takes at most lim LBAs, which fit in one page and
	 * max_nlb; lim is a power of two so that one mask of CDW12 checks
	 * both NLB and the reserved bits.  lim 0: the fast path takes none.
	 */
	lim = NP_GUARD_PAGE_SIZE >> p->lba_shift;
	if (p->max_nlb && p->max_nlb < lim)
		lim = p->max_nlb;
	while (lim & (lim - 1))
		lim &= lim - 1;
	p->fast_cdw12 = ~(u32)NP_RW_CDW12_OK | (NP_CDW12_NLB & ~(lim - 1));
	for (i = 0; i < 4; i++) {	/* CDW0 bits 1:0 */
		p->fast_qw0[i] = NP_FAST_NEVER;
		if (lim && (NP_RW_OPCODES & p->opcodes[0] & BIT_ULL(i)) &&
		    p->nsid && p->nsid != 0xffffffff)
			p->fast_qw0[i] = (u64)p->nsid << 32 | i;
	}
	for (i = 0; i < NP_GUARD_FAST_NLB; i++)
		p->fast_len[i] = i < lim ? (i + 1) << p->lba_shift : 0;

	/* the extents as far as they are in the namespace; n 0: no cache */
	n = 0;
	for (i = 0; i < p->nr_extents && i < NP_GUARD_FAST_SLOTS; i++) {
		end = e[i].start + e[i].len;
		if (end > p->ns_size)
			end = p->ns_size;
		if (end > e[i].start) {
			r[n].start = e[i].start;
			r[n++].len = end - e[i].start;
		}
	}
	if (p->nr_extents > NP_GUARD_FAST_SLOTS)
		n = 0;
	np_fast_fill(p->fast_ext_first, p->fast_ext_end, &p->fast_ext_shift,
		     r, n);

	/* the windows as they are */
	n = p->nr_windows <= NP_GUARD_FAST_SLOTS ? p->nr_windows : 0;
	np_fast_fill(p->fast_win_first, p->fast_win_end, &p->fast_win_shift,
		     p->windows, n);
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
 * The range with the largest start <= @x, or @r[0] if there is none;
 * @n >= 1.  Branchless binary search: a first probe at n - step, step being
 * the largest power of two below @n (1 if @n is 1), leaves a range of step
 * ranges, which halving steps narrow down to one: ceil(log2(n))
 * compare-and-select steps whatever @x is.  The selects compile to cmov;
 * the step is kept in bytes to spare a shift per step.
 */
static __always_inline const struct np_range *
np_range_find(const struct np_range *r, u32 n, u64 x)
{
	u64 step = (u64)sizeof(*r) << (31 - __builtin_clz((n - 1) | 1));
	const struct np_range *t = r + n - step / sizeof(*r);

	r = t->start <= x ? t : r;
	while (step > sizeof(*r)) {
		step >>= 1;
		t = (const void *)r + step;
		r = t->start <= x ? t : r;
	}
	return r;
}

/*
 * Is [@x, @x + @len) inside one of the @n sorted, merged ranges @r?
 * @len >= 1.  off < r->len puts @x inside the range found (when @x lies
 * before the first range off wraps to more than any len, as a range's
 * start + len fits in 64 bits); then nothing below can overflow.
 */
static __always_inline bool np_ranges_hold(const struct np_range *r, u32 n,
					   u64 x, u64 len)
{
	u64 off;

	if (!n)
		return false;
	r = np_range_find(r, n, x);
	off = x - r->start;
	return off < r->len && len <= r->len - off;
}

/* The slot of a range cache that may hold @x; see np_policy_init(). */
static __always_inline u64 np_fast_slot(u32 shift, u64 x)
{
	return (x >> shift) % NP_GUARD_FAST_SLOTS;
}

/*
 * Is [@slba, @slba + @nlb) inside one extent and inside the namespace?
 * @nlb >= 1; inside an extent, slba + nlb cannot overflow.
 */
static __always_inline bool np_lba_ok(const struct np_policy *p, u64 slba,
				      u64 nlb)
{
	return np_ranges_hold(p->extents, p->nr_extents, slba, nlb) &&
	       slba + nlb <= p->ns_size;
}

/*
 * Is [@addr, @addr + @len) inside a single window?  @len >= 1.  The range
 * cache first: a slot holds a whole window (or nothing, end 0).
 */
static __always_inline bool np_dma_ok(const struct np_policy *p, u64 addr,
				      u64 len)
{
	u64 k = np_fast_slot(p->fast_win_shift, addr);

	if (addr >= p->fast_win_first[k] && addr < p->fast_win_end[k] &&
	    len <= p->fast_win_end[k] - addr)
		return true;
	return np_ranges_hold(p->windows, p->nr_windows, addr, len);
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

/*
 * Step 2 of the check order: reserved and unsupported fields.  FUSE, PSDT
 * and MPTR must be zero: no policy allows fused commands, SGLs or metadata.
 */
static bool np_fields_bad(const void *sqe)
{
	const __le32 *dw = sqe;
	const __le64 *qw = sqe;
	u32 dw0 = le32_to_cpu(dw[NP_DW_CDW0]);
	u32 cdw12 = le32_to_cpu(dw[NP_DW_CDW12]);

	if (dw0 & (NP_CDW0_FUSE | NP_CDW0_RSVD_PSDT))
		return true;
	if (qw[NP_QW_CDW2_3] || qw[NP_QW_MPTR])
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
	if (np_fields_bad(sqe))
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
 * np_guard_dsm_ranges() - check the ranges of a Dataset Management command
 * @p: the policy, finished by np_policy_init()
 * @ranges: a copy, out of the peer's reach, of the command's range list:
 *	16 bytes a range, little endian: context attributes, NLB, SLBA
 * @nr: the number of ranges, CDW10 NR + 1 (1..256)
 *
 * Every range must lie inside one extent, as the LBAs of a Read must; a
 * range of 0 LBAs touches nothing and passes.
 *
 * Return: NP_GUARD_OK or NP_GUARD_LBA_RANGE.
 */
enum np_guard_verdict np_guard_dsm_ranges(const struct np_policy *p,
					  const void *ranges, u32 nr)
{
	const __le32 *dw = ranges;
	u32 i, nlb;

	for (i = 0; i < nr; i++, dw += 4) {
		nlb = le32_to_cpu(dw[1]);
		if (nlb && !np_lba_ok(p, le64_to_cpu(*(const __le64 *)&dw[2]),
				      nlb))
			return NP_GUARD_LBA_RANGE;
	}
	return NP_GUARD_OK;
}

/*
 * np_guard_check() once steps 1 to 5 have passed for a Read or Write: its
 * own function taking np_guard_check()'s arguments, so that the fast path
 * keeps nothing in registers for it.
 */
static noinline enum np_guard_verdict
np_guard_check_prps(const struct np_policy *p, const void *sqe,
		    const struct np_prp_list *list)
{
	const __le32 *dw = sqe;
	const __le64 *qw = sqe;
	u64 nlb = (u64)(le32_to_cpu(dw[NP_DW_CDW12]) & NP_CDW12_NLB) + 1;

	return np_prps_check(p, le64_to_cpu(qw[NP_QW_PRP1]),
			     le64_to_cpu(qw[NP_QW_PRP2]), nlb << p->lba_shift,
			     list);
}

/*
 * np_guard_check() once steps 1 to 4 have passed for a Read or Write of at
 * most one page whose LBAs the extent cache did not find: search them.
 */
static noinline enum np_guard_verdict
np_guard_check_lba(const struct np_policy *p, const void *sqe,
		   const struct np_prp_list *list)
{
	const __le32 *dw = sqe;
	const __le64 *qw = sqe;
	u64 nlb = (u64)(le32_to_cpu(dw[NP_DW_CDW12]) & NP_CDW12_NLB) + 1;

	if (!np_lba_ok(p, le64_to_cpu(qw[NP_QW_SLBA]), nlb))
		return np_guard_check_full(p, sqe, list);
	return np_guard_check_prps(p, sqe, list);
}

/**
 * np_guard_check() - is a submission queue entry allowed by a policy?
 * @p: the policy, its extents and windows prepared with np_ranges_prepare(),
 *     then np_policy_init()
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
	u64 qw0 = le64_to_cpu(qw[NP_QW_CDW0_NSID]);
	u32 cdw12 = le32_to_cpu(dw[NP_DW_CDW12]);
	u32 nlb0 = cdw12 & (NP_GUARD_FAST_NLB - 1);
	u64 slba, prp1, last, k;

	/*
	 * Steps 1 to 4 at once: CDW2/3, MPTR, CDW14/15 zero; CDW12 with no
	 * bit set but FUA, LR and an NLB below the fast limit (so nlb0 is
	 * all of it); opcode a Read or Write the policy allows, FUSE,
	 * reserved and PSDT zero and NSID the policy's: np_policy_init()
	 * made fast_qw0[] NEVER for anything else.
	 */
	if (le64_to_cpu(qw[NP_QW_CDW2_3] | qw[NP_QW_MPTR] |
			qw[NP_QW_CDW14_15]) |
	    (cdw12 & p->fast_cdw12) |
	    ((qw0 & NP_FAST_QW0_MASK) ^ p->fast_qw0[qw0 & 3]))
		goto full;

	/*
	 * Step 5: [slba, last] in the extent of the cache slot, which ends
	 * inside the namespace; if not, np_guard_check_lba() searches.
	 */
	slba = le64_to_cpu(qw[NP_QW_SLBA]);
	k = np_fast_slot(p->fast_ext_shift, slba);
	if (slba < p->fast_ext_first[k] ||
	    check_add_overflow(slba, (u64)nlb0, &last) ||
	    last >= p->fast_ext_end[k])
		return np_guard_check_lba(p, sqe, list);

	/*
	 * Steps 1 to 5 passed: the PRPs decide.  PRP1 alone, dword aligned,
	 * the data in its page (so last cannot wrap) and in the window of
	 * the cache slot; anything else is np_prps_check()'s to decide.
	 */
	prp1 = le64_to_cpu(qw[NP_QW_PRP1]);
	last = prp1 + p->fast_len[nlb0] - 1;
	k = np_fast_slot(p->fast_win_shift, prp1);
	if (qw[NP_QW_PRP2] || (prp1 & 3) || (last ^ prp1) > NP_PAGE_MASK ||
	    prp1 < p->fast_win_first[k] || last >= p->fast_win_end[k])
		return np_guard_check_prps(p, sqe, list);
	return NP_GUARD_OK;
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

/* The KUnit suite; guard.c is also built in user space (tools/testing/nvme-peer/bench). */
#ifdef CONFIG_NVME_PEER_KUNIT_TEST
#include "tests/guard_kunit.c"
#endif
