// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme-peer-guard: the guard (guard.c) field by field, LBA and
 * PRP boundaries, every opcode, the policy preparation, and an exhaustive
 * and a random comparison with a deliberately naive reference checker.
 * Included at the end of guard.c (the KUnit #include pattern), so it tests
 * static functions too; it runs when nvme-peer loads.
 */
#include <kunit/test.h>
#include <linux/kernel.h>
#include <linux/nvme.h>
#include <linux/string.h>

#define T_NSID		1
#define T_NS_SIZE	100000
#define T_KNOWN		(BIT_ULL(NP_OP_FLUSH) | BIT_ULL(NP_OP_WRITE) | \
			 BIT_ULL(NP_OP_READ) | BIT_ULL(NP_OP_WRITE_ZEROES) | \
			 BIT_ULL(NP_OP_DSM))

union np_tsqe {
	__le32 dw[16];
	__le64 qw[8];
};

/* The standard policy: four extents, the last one past the namespace end. */
static const struct np_range np_t_ext[] = {
	{ 100, 100 }, { 1000, 50 }, { 5000, 1000 }, { 99500, 1000 },
};

/* Two page-aligned windows and one that starts and ends mid-page. */
static const struct np_range np_t_win[] = {
	{ 0x100000, 0x10000 }, { 0x200000, 0x3000 }, { 0x400800, 0x1000 },
};

/* Extents reaching the top of the 64-bit LBA space. */
static const struct np_range np_t_big_ext[] = {
	{ 0, 10 }, { ~0ULL - 100, 100 },
};

static void np_t_policy(struct np_policy *p)
{
	memset(p, 0, sizeof(*p));
	p->nsid = T_NSID;
	p->lba_shift = 9;
	p->ns_size = T_NS_SIZE;
	p->opcodes[0] = T_KNOWN;
	p->extents = np_t_ext;
	p->nr_extents = ARRAY_SIZE(np_t_ext);
	p->windows = np_t_win;
	p->nr_windows = ARRAY_SIZE(np_t_win);
}

/* Policies are too big for a test's stack frame with KASAN. */
static struct np_policy *np_t_new(struct kunit *test)
{
	struct np_policy *p = kunit_kzalloc(test, sizeof(*p), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, p);
	return p;
}

/* Every policy is finished by np_policy_init() before it checks anything. */
static void np_t_init(struct kunit *test, struct np_policy *p)
{
	KUNIT_ASSERT_EQ(test, np_policy_init(p), 0);
}

static void np_t_sqe(union np_tsqe *s, u8 opc, u64 slba, u32 nlb, u64 prp1,
		     u64 prp2)
{
	memset(s, 0, sizeof(*s));
	s->dw[0] = cpu_to_le32(opc);
	s->dw[1] = cpu_to_le32(T_NSID);
	s->qw[3] = cpu_to_le64(prp1);
	s->qw[4] = cpu_to_le64(prp2);
	s->qw[5] = cpu_to_le64(slba);
	s->dw[12] = cpu_to_le32(nlb - 1);
}

/* ---- the reference checker ------------------------------------------------ */

/*
 * Written from the documented rules with no cleverness: linear scans, the
 * last LBA or byte instead of an end, divisions where they read naturally.
 */
static bool np_ref_window(const struct np_policy *p, u64 addr, u64 len)
{
	u64 last = addr + len - 1;
	u32 i;

	if (last < addr)
		return false;
	for (i = 0; i < p->nr_windows; i++)
		if (p->windows[i].start <= addr &&
		    last <= p->windows[i].start + p->windows[i].len - 1)
			return true;
	return false;
}

static enum np_guard_verdict np_ref_prps(const struct np_policy *p, u64 prp1,
					 u64 prp2, u64 len,
					 const struct np_prp_list *list)
{
	u64 first, rest, n, i, e, seg;

	if (prp1 % 4)
		return NP_GUARD_PRP_OFFSET;
	first = 4096 - prp1 % 4096;
	if (len <= first) {
		if (prp2)
			return NP_GUARD_BAD_FIELD;
		if (!np_ref_window(p, prp1, len))
			return NP_GUARD_DATA_WINDOW;
		return NP_GUARD_OK;
	}
	rest = len - first;
	if (rest <= 4096) {
		if (prp2 % 4096)
			return NP_GUARD_PRP_OFFSET;
		if (!np_ref_window(p, prp1, first) ||
		    !np_ref_window(p, prp2, rest))
			return NP_GUARD_DATA_WINDOW;
		return NP_GUARD_OK;
	}
	n = rest / 4096 + (rest % 4096 != 0);
	if (prp2 % 8)
		return NP_GUARD_PRP_OFFSET;
	if (prp2 % 4096 + n * 8 > 4096)
		return NP_GUARD_BAD_FIELD;
	if (!np_ref_window(p, prp1, first))
		return NP_GUARD_DATA_WINDOW;
	if (!list || list->list_addr != prp2 || list->nr < n)
		return NP_GUARD_DATA_WINDOW;
	if (!np_ref_window(p, prp2, n * 8))
		return NP_GUARD_DATA_WINDOW;
	for (i = 0; i < n; i++) {
		e = le64_to_cpu(list->entries[i]);
		seg = rest - i * 4096 < 4096 ? rest - i * 4096 : 4096;
		if (e % 4096)
			return NP_GUARD_PRP_OFFSET;
		if (!np_ref_window(p, e, seg))
			return NP_GUARD_DATA_WINDOW;
	}
	return NP_GUARD_OK;
}

static bool np_ref_bits(u32 v, int lo, int hi)
{
	int b;

	for (b = lo; b <= hi; b++)
		if (v & BIT(b))
			return true;
	return false;
}

/* FUSE, PSDT and MPTR must be zero: no policy allows them. */
static bool np_ref_fields_bad(const u32 *dw)
{
	u32 opc = dw[0] & 0xff, fuse = (dw[0] >> 8) & 3, psdt = (dw[0] >> 14) & 3;
	int i;

	if (fuse || psdt || np_ref_bits(dw[0], 10, 13))
		return true;
	if (dw[2] || dw[3])
		return true;
	if (dw[4] || dw[5])
		return true;
	switch (opc) {
	case 0x00:
		for (i = 6; i <= 15; i++)
			if (dw[i])
				return true;
		return false;
	case 0x01:
	case 0x02:
		return np_ref_bits(dw[12], 16, 29) || dw[14] || dw[15];
	case 0x08:
		for (i = 6; i <= 9; i++)
			if (dw[i])
				return true;
		return np_ref_bits(dw[12], 16, 24) ||
		       np_ref_bits(dw[12], 26, 29) ||
		       dw[13] || dw[14] || dw[15];
	default:	/* 0x09 */
		return np_ref_bits(dw[10], 8, 31) || np_ref_bits(dw[11], 3, 31) ||
		       dw[12] || dw[13] || dw[14] || dw[15];
	}
}

static enum np_guard_verdict np_ref_check(const struct np_policy *p,
					  const union np_tsqe *s,
					  const struct np_prp_list *list)
{
	u32 dw[16], opc, nlb, max;
	u64 slba, last, prp1, prp2;
	bool found = false;
	int i;

	for (i = 0; i < 16; i++)
		dw[i] = le32_to_cpu(s->dw[i]);
	opc = dw[0] & 0xff;
	prp1 = dw[6] | (u64)dw[7] << 32;
	prp2 = dw[8] | (u64)dw[9] << 32;
	slba = dw[10] | (u64)dw[11] << 32;

	if (opc != 0x00 && opc != 0x01 && opc != 0x02 && opc != 0x08 &&
	    opc != 0x09)
		return NP_GUARD_BAD_OPCODE;
	if (!(p->opcodes[opc / 64] & BIT_ULL(opc % 64)))
		return NP_GUARD_BAD_OPCODE;
	if (np_ref_fields_bad(dw))
		return NP_GUARD_BAD_FIELD;
	if (dw[1] != p->nsid || dw[1] == 0 || dw[1] == 0xffffffff)
		return NP_GUARD_BAD_NSID;
	if (opc == 0x00)
		return NP_GUARD_OK;
	if (opc == 0x09)
		return np_ref_prps(p, prp1, prp2, ((dw[10] & 0xff) + 1) * 16,
				   list);

	nlb = (dw[12] & 0xffff) + 1;
	max = p->max_nlb ? p->max_nlb : 65536;
	if (nlb > max)
		return NP_GUARD_BAD_FIELD;
	last = slba + nlb - 1;
	if (last < slba || last >= p->ns_size)
		return NP_GUARD_LBA_RANGE;
	for (i = 0; i < p->nr_extents; i++)
		if (p->extents[i].start <= slba &&
		    last <= p->extents[i].start + p->extents[i].len - 1)
			found = true;
	if (!found)
		return NP_GUARD_LBA_RANGE;
	if (opc == 0x08)
		return NP_GUARD_OK;
	return np_ref_prps(p, prp1, prp2, (u64)nlb << p->lba_shift, list);
}

/* xorshift64: the same "random" cases on every run */
static u64 np_t_rnd(u64 *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- fields, opcodes, namespaces ------------------------------------------- */

enum np_t_kind { K_READ, K_WRITE, K_FLUSH, K_WZ, K_DSM };

struct np_t_mod {
	u8 w;		/* dword */
	u32 clr;
	u32 set;
};

struct np_field_case {
	const char *name;
	enum np_t_kind kind;
	struct np_t_mod mod[3];
	u32 max_nlb;
	u64 opcodes;	/* 0: the five known ones */
	enum np_guard_verdict want;
};

#define M(w, clr, set)	{ w, clr, set }
#define ALL		0xffffffff
#define OK		NP_GUARD_OK
#define OPC		NP_GUARD_BAD_OPCODE
#define FLD		NP_GUARD_BAD_FIELD
#define NSID		NP_GUARD_BAD_NSID
#define LBA		NP_GUARD_LBA_RANGE
#define OFS		NP_GUARD_PRP_OFFSET
#define WIN		NP_GUARD_DATA_WINDOW

static const struct np_field_case np_field_cases[] = {
	{ "read", K_READ, {}, 0, 0, OK },
	{ "write", K_WRITE, {}, 0, 0, OK },
	{ "cid ffff", K_READ, { M(0, 0, 0xffff0000) }, 0, 0, OK },
	{ "fuse 01", K_READ, { M(0, 0, 1 << 8) }, 0, 0, FLD },
	{ "fuse 10", K_READ, { M(0, 0, 2 << 8) }, 0, 0, FLD },
	{ "fuse 11", K_READ, { M(0, 0, 3 << 8) }, 0, 0, FLD },
	{ "fuse 10 write", K_WRITE, { M(0, 0, 2 << 8) }, 0, 0, FLD },
	{ "cdw0 bit 10", K_READ, { M(0, 0, 1 << 10) }, 0, 0, FLD },
	{ "cdw0 bit 11", K_READ, { M(0, 0, 1 << 11) }, 0, 0, FLD },
	{ "cdw0 bit 12", K_READ, { M(0, 0, 1 << 12) }, 0, 0, FLD },
	{ "cdw0 bit 13", K_READ, { M(0, 0, 1 << 13) }, 0, 0, FLD },
	{ "psdt 01", K_READ, { M(0, 0, 1 << 14) }, 0, 0, FLD },
	{ "psdt 10", K_READ, { M(0, 0, 2 << 14) }, 0, 0, FLD },
	{ "psdt 11", K_READ, { M(0, 0, 3 << 14) }, 0, 0, FLD },
	{ "psdt 10 write", K_WRITE, { M(0, 0, 2 << 14) }, 0, 0, FLD },
	{ "dw2 bit 0", K_READ, { M(2, 0, 1) }, 0, 0, FLD },
	{ "dw2 bit 31", K_READ, { M(2, 0, BIT(31)) }, 0, 0, FLD },
	{ "dw3 bit 0", K_READ, { M(3, 0, 1) }, 0, 0, FLD },
	{ "dw3 bit 31", K_WRITE, { M(3, 0, BIT(31)) }, 0, 0, FLD },
	{ "mptr low", K_READ, { M(4, 0, 0x1000) }, 0, 0, FLD },
	{ "mptr high", K_READ, { M(5, 0, 1) }, 0, 0, FLD },
	{ "mptr write", K_WRITE, { M(4, 0, 0x1000) }, 0, 0, FLD },
	{ "cdw12 bit 16", K_READ, { M(12, 0, BIT(16)) }, 0, 0, FLD },
	{ "cdw12 bit 19", K_READ, { M(12, 0, BIT(19)) }, 0, 0, FLD },
	{ "dtype bit 20", K_WRITE, { M(12, 0, BIT(20)) }, 0, 0, FLD },
	{ "dtype bit 23", K_WRITE, { M(12, 0, BIT(23)) }, 0, 0, FLD },
	{ "stc", K_WRITE, { M(12, 0, BIT(24)) }, 0, 0, FLD },
	{ "deac on read", K_READ, { M(12, 0, BIT(25)) }, 0, 0, FLD },
	{ "prinfo bit 26", K_READ, { M(12, 0, BIT(26)) }, 0, 0, FLD },
	{ "prinfo bit 27", K_READ, { M(12, 0, BIT(27)) }, 0, 0, FLD },
	{ "prinfo bit 28", K_WRITE, { M(12, 0, BIT(28)) }, 0, 0, FLD },
	{ "prinfo bit 29", K_WRITE, { M(12, 0, BIT(29)) }, 0, 0, FLD },
	{ "fua", K_WRITE, { M(12, 0, BIT(30)) }, 0, 0, OK },
	{ "lr", K_READ, { M(12, 0, BIT(31)) }, 0, 0, OK },
	{ "fua lr", K_WRITE, { M(12, 0, BIT(30) | BIT(31)) }, 0, 0, OK },
	{ "cdw13 any", K_READ, { M(13, 0, ALL) }, 0, 0, OK },
	{ "cdw14 bit 0", K_READ, { M(14, 0, 1) }, 0, 0, FLD },
	{ "cdw15 bit 31", K_WRITE, { M(15, 0, BIT(31)) }, 0, 0, FLD },
	{ "nsid 0", K_READ, { M(1, ALL, 0) }, 0, 0, NSID },
	{ "nsid ffffffff", K_READ, { M(1, ALL, ALL) }, 0, 0, NSID },
	{ "nsid 2", K_WRITE, { M(1, ALL, 2) }, 0, 0, NSID },
	{ "nlb at max_nlb", K_READ, {}, 8, 0, OK },
	{ "nlb over max_nlb", K_READ, {}, 7, 0, FLD },
	{ "max_nlb 1", K_WRITE, {}, 1, 0, FLD },
	{ "read not allowed", K_READ, {}, 0, BIT_ULL(NP_OP_WRITE), OPC },
	{ "write not allowed", K_WRITE, {}, 0, BIT_ULL(NP_OP_READ), OPC },
	{ "write allowed alone", K_WRITE, {}, 0, BIT_ULL(NP_OP_WRITE), OK },
	/* order: opcode, fields, nsid, max_nlb, LBA range, PRPs */
	{ "order opcode>fuse", K_READ, { M(0, 0xff, 0x05), M(0, 0, 1 << 8) },
	  0, 0, OPC },
	{ "order fuse>nsid", K_READ, { M(0, 0, 1 << 8), M(1, ALL, 0) },
	  0, 0, FLD },
	{ "order mptr>nsid", K_READ, { M(4, 0, 8), M(1, ALL, 2) }, 0, 0, FLD },
	{ "order nsid>max_nlb", K_READ, { M(1, ALL, 2) }, 7, 0, NSID },
	/* nsid 2 and NLB 16 over max_nlb 8: Invalid Namespace, not Field */
	{ "order nsid>max_nlb, nlb 16", K_WRITE,
	  { M(1, ALL, 2), M(12, 0xffff, 15) }, 8, 0, NSID },
	{ "order nsid>max_nlb, nsid 0", K_READ,
	  { M(1, ALL, 0), M(12, 0xffff, 15) }, 8, 0, NSID },
	{ "order nsid>max_nlb, wz", K_WZ, { M(1, ALL, 2) }, 4, 0, NSID },
	{ "order max_nlb>lba", K_READ, { M(10, ALL, 0) }, 7, 0, FLD },
	{ "order lba>prp", K_READ, { M(10, ALL, 0), M(6, ALL, 0x100002) },
	  0, 0, LBA },
	{ "order lba>window", K_READ, { M(11, ALL, 1), M(7, ALL, 1) },
	  0, 0, LBA },
	{ "order field>lba", K_READ, { M(14, 0, 1), M(10, ALL, 0) },
	  0, 0, FLD },
	/* Write Zeroes */
	{ "wz", K_WZ, {}, 0, 0, OK },
	{ "wz deac", K_WZ, { M(12, 0, BIT(25)) }, 0, 0, OK },
	{ "wz fua lr", K_WZ, { M(12, 0, BIT(30) | BIT(31)) }, 0, 0, OK },
	{ "wz prp1", K_WZ, { M(6, 0, 0x1000) }, 0, 0, FLD },
	{ "wz prp1 high", K_WZ, { M(7, 0, 1) }, 0, 0, FLD },
	{ "wz prp2", K_WZ, { M(8, 0, 0x1000) }, 0, 0, FLD },
	{ "wz prinfo", K_WZ, { M(12, 0, BIT(26)) }, 0, 0, FLD },
	{ "wz stc", K_WZ, { M(12, 0, BIT(24)) }, 0, 0, FLD },
	{ "wz cdw12 bit 16", K_WZ, { M(12, 0, BIT(16)) }, 0, 0, FLD },
	{ "wz cdw13", K_WZ, { M(13, 0, 1) }, 0, 0, FLD },
	{ "wz cdw14", K_WZ, { M(14, 0, 1) }, 0, 0, FLD },
	{ "wz cdw15", K_WZ, { M(15, 0, 1) }, 0, 0, FLD },
	{ "wz fuse", K_WZ, { M(0, 0, 1 << 8) }, 0, 0, FLD },
	{ "wz mptr", K_WZ, { M(5, 0, BIT(31)) }, 0, 0, FLD },
	{ "wz nsid 0", K_WZ, { M(1, ALL, 0) }, 0, 0, NSID },
	{ "wz over max_nlb", K_WZ, {}, 4, 0, FLD },
	{ "wz lba out", K_WZ, { M(10, ALL, 0) }, 0, 0, LBA },
	{ "wz not allowed", K_WZ, {}, 0, BIT_ULL(NP_OP_WRITE), OPC },
	/* Flush */
	{ "flush", K_FLUSH, {}, 0, 0, OK },
	{ "flush prp1", K_FLUSH, { M(6, 0, 0x1000) }, 0, 0, FLD },
	{ "flush prp2", K_FLUSH, { M(9, 0, 1) }, 0, 0, FLD },
	{ "flush cdw10", K_FLUSH, { M(10, 0, 1) }, 0, 0, FLD },
	{ "flush cdw11", K_FLUSH, { M(11, 0, 1) }, 0, 0, FLD },
	{ "flush cdw12", K_FLUSH, { M(12, 0, 1) }, 0, 0, FLD },
	{ "flush cdw13", K_FLUSH, { M(13, 0, 1) }, 0, 0, FLD },
	{ "flush cdw14", K_FLUSH, { M(14, 0, 1) }, 0, 0, FLD },
	{ "flush cdw15", K_FLUSH, { M(15, 0, BIT(31)) }, 0, 0, FLD },
	{ "flush mptr", K_FLUSH, { M(4, 0, 8) }, 0, 0, FLD },
	{ "flush psdt", K_FLUSH, { M(0, 0, 1 << 14) }, 0, 0, FLD },
	{ "flush fuse", K_FLUSH, { M(0, 0, 1 << 8) }, 0, 0, FLD },
	{ "flush nsid ffffffff", K_FLUSH, { M(1, ALL, ALL) }, 0, 0, NSID },
	{ "flush nsid 0", K_FLUSH, { M(1, ALL, 0) }, 0, 0, NSID },
	{ "flush max_nlb ignored", K_FLUSH, {}, 1, 0, OK },
	{ "flush not allowed", K_FLUSH, {}, 0, BIT_ULL(NP_OP_READ), OPC },
	/* Dataset Management: PRPs checked, ranges not */
	{ "dsm", K_DSM, {}, 0, 0, OK },
	{ "dsm 256 ranges", K_DSM, { M(10, ALL, 0xff) }, 0, 0, OK },
	{ "dsm nr bit 8", K_DSM, { M(10, 0, BIT(8)) }, 0, 0, FLD },
	{ "dsm cdw10 bit 31", K_DSM, { M(10, 0, BIT(31)) }, 0, 0, FLD },
	{ "dsm attributes", K_DSM, { M(11, ALL, 7) }, 0, 0, OK },
	{ "dsm cdw11 bit 3", K_DSM, { M(11, 0, BIT(3)) }, 0, 0, FLD },
	{ "dsm cdw12", K_DSM, { M(12, 0, 1) }, 0, 0, FLD },
	{ "dsm cdw13", K_DSM, { M(13, 0, 1) }, 0, 0, FLD },
	{ "dsm cdw14", K_DSM, { M(14, 0, 1) }, 0, 0, FLD },
	{ "dsm cdw15", K_DSM, { M(15, 0, 1) }, 0, 0, FLD },
	{ "dsm fuse", K_DSM, { M(0, 0, 2 << 8) }, 0, 0, FLD },
	{ "dsm psdt", K_DSM, { M(0, 0, 1 << 14) }, 0, 0, FLD },
	{ "dsm mptr", K_DSM, { M(4, 0, 0x100000) }, 0, 0, FLD },
	{ "dsm nsid 2", K_DSM, { M(1, ALL, 2) }, 0, 0, NSID },
	{ "dsm prp1 outside", K_DSM, { M(6, ALL, 0x300000) }, 0, 0, WIN },
	{ "dsm prp1 unaligned", K_DSM, { M(6, ALL, 0x100002) }, 0, 0, OFS },
	{ "dsm unused prp2", K_DSM, { M(8, 0, 0x101000) }, 0, 0, FLD },
	{ "dsm crossing page",
	  K_DSM, { M(6, ALL, 0x100ff0), M(10, ALL, 1), M(8, ALL, 0x101000) },
	  0, 0, OK },
	{ "dsm crossing, prp2 0",
	  K_DSM, { M(6, ALL, 0x100ff0), M(10, ALL, 1) }, 0, 0, WIN },
	{ "dsm crossing, prp2 unaligned",
	  K_DSM, { M(6, ALL, 0x100ff0), M(10, ALL, 1), M(8, ALL, 0x101008) },
	  0, 0, OFS },
	{ "dsm 256 ranges at offset",
	  K_DSM, { M(6, ALL, 0x100800), M(10, ALL, 0xff), M(8, ALL, 0x101000) },
	  0, 0, OK },
	{ "dsm lba ranges unchecked", K_DSM, {}, 1, 0, OK },
	{ "dsm not allowed", K_DSM, {}, 0, BIT_ULL(NP_OP_WRITE_ZEROES), OPC },
	/* bits of other opcodes set in the policy do not help */
	{ "compare allowed in bitmap", K_READ, { M(0, 0xff, 0x05) },
	  0, ~0ULL, OPC },
};

static void np_field_desc(const struct np_field_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(np_field, np_field_cases, np_field_desc);

static void np_t_kind_sqe(union np_tsqe *s, enum np_t_kind kind)
{
	switch (kind) {
	case K_READ:
		np_t_sqe(s, NP_OP_READ, 100, 8, 0x100000, 0);
		break;
	case K_WRITE:
		np_t_sqe(s, NP_OP_WRITE, 100, 8, 0x100000, 0);
		break;
	case K_FLUSH:
		np_t_sqe(s, NP_OP_FLUSH, 0, 1, 0, 0);
		break;
	case K_WZ:
		np_t_sqe(s, NP_OP_WRITE_ZEROES, 100, 8, 0, 0);
		break;
	case K_DSM:
		/* one range, attribute AD; CDW11 is the SLBA's high half */
		np_t_sqe(s, NP_OP_DSM, 4ULL << 32, 1, 0x100000, 0);
		break;
	}
}

static void np_test_fields(struct kunit *test)
{
	const struct np_field_case *c = test->param_value;
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;
	u32 v;
	int i;

	np_t_policy(p);
	p->max_nlb = c->max_nlb;
	for (i = 0; c->opcodes && i < ARRAY_SIZE(p->opcodes); i++)
		p->opcodes[i] = c->opcodes;
	np_t_init(test, p);
	np_t_kind_sqe(&s, c->kind);
	for (i = 0; i < ARRAY_SIZE(c->mod); i++) {
		v = le32_to_cpu(s.dw[c->mod[i].w]);
		s.dw[c->mod[i].w] = cpu_to_le32((v & ~c->mod[i].clr) |
						c->mod[i].set);
	}
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), c->want);
	KUNIT_EXPECT_EQ(test, np_guard_check_full(p, &s, NULL), c->want);
	KUNIT_EXPECT_EQ(test, np_ref_check(p, &s, NULL), c->want);
}

/* Every opcode: only the five known ones, and only when allowed, pass. */
static void np_test_opcodes(struct kunit *test)
{
	static const u64 sets[] = { 0, T_KNOWN, BIT_ULL(NP_OP_READ), ~0ULL };
	static const enum np_t_kind kinds[] = {
		[NP_OP_FLUSH] = K_FLUSH, [NP_OP_WRITE] = K_WRITE,
		[NP_OP_READ] = K_READ, [NP_OP_WRITE_ZEROES] = K_WZ,
		[NP_OP_DSM] = K_DSM,
	};
	enum np_guard_verdict want;
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;
	u32 opc, i, j;
	bool known;

	np_t_policy(p);
	for (i = 0; i < ARRAY_SIZE(sets); i++) {
		for (j = 0; j < 4; j++)
			p->opcodes[j] = sets[i];
		np_t_init(test, p);
		for (opc = 0; opc < 256; opc++) {
			known = opc < 64 && (T_KNOWN & BIT_ULL(opc));
			np_t_kind_sqe(&s, known ? kinds[opc] : K_READ);
			s.dw[0] = cpu_to_le32(opc);
			want = known && (sets[i] & BIT_ULL(opc)) ?
			       NP_GUARD_OK : NP_GUARD_BAD_OPCODE;
			KUNIT_EXPECT_EQ_MSG(test, np_guard_check(p, &s, NULL),
					    want, "opcode %#x set %u", opc, i);
			KUNIT_EXPECT_EQ_MSG(test, np_ref_check(p, &s, NULL),
					    want, "opcode %#x set %u", opc, i);
		}
	}
}

/* A policy naming namespace 0 or all namespaces matches nothing. */
static void np_test_policy_nsid(struct kunit *test)
{
	static const u32 bad[] = { 0, 0xffffffff };
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;
	int i;

	np_t_policy(p);
	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		p->nsid = bad[i];
		np_t_init(test, p);
		np_t_kind_sqe(&s, K_READ);
		s.dw[1] = cpu_to_le32(bad[i]);
		KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL),
				NP_GUARD_BAD_NSID);
		np_t_kind_sqe(&s, K_FLUSH);
		s.dw[1] = cpu_to_le32(bad[i]);
		KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL),
				NP_GUARD_BAD_NSID);
	}
}

/* No extents: nothing with LBAs passes; no windows: nothing with data. */
static void np_test_empty_policy(struct kunit *test)
{
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;

	np_t_policy(p);
	p->extents = NULL;
	p->nr_extents = 0;
	np_t_init(test, p);
	np_t_kind_sqe(&s, K_READ);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), NP_GUARD_LBA_RANGE);
	np_t_kind_sqe(&s, K_WZ);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), NP_GUARD_LBA_RANGE);
	np_t_kind_sqe(&s, K_DSM);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), NP_GUARD_OK);

	np_t_policy(p);
	p->windows = NULL;
	p->nr_windows = 0;
	np_t_init(test, p);
	np_t_kind_sqe(&s, K_READ);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL),
			NP_GUARD_DATA_WINDOW);
	np_t_kind_sqe(&s, K_DSM);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL),
			NP_GUARD_DATA_WINDOW);
	np_t_kind_sqe(&s, K_WZ);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), NP_GUARD_OK);

	p->extents = NULL;
	p->nr_extents = 0;
	np_t_init(test, p);
	np_t_kind_sqe(&s, K_FLUSH);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), NP_GUARD_OK);
}

/* ---- LBA ranges -------------------------------------------------------------- */

struct np_lba_case {
	const char *name;
	u8 opc;
	u64 slba;
	u32 nlb;
	bool big;	/* np_t_big_ext, ns_size ~0 */
	u32 max_nlb;
	enum np_guard_verdict want;
};

#define RD	NP_OP_READ
#define WZ	NP_OP_WRITE_ZEROES

static const struct np_lba_case np_lba_cases[] = {
	{ "first lba", RD, 100, 1, false, 0, OK },
	{ "last lba", RD, 199, 1, false, 0, OK },
	{ "whole extent", WZ, 100, 100, false, 0, OK },
	{ "one before", RD, 99, 1, false, 0, LBA },
	{ "one past", RD, 200, 1, false, 0, LBA },
	{ "straddles start", RD, 99, 2, false, 0, LBA },
	{ "straddles end", RD, 199, 2, false, 0, LBA },
	{ "extent plus one", WZ, 100, 101, false, 0, LBA },
	{ "before first extent", RD, 0, 1, false, 0, LBA },
	{ "lba 0, up to first", WZ, 0, 100, false, 0, LBA },
	{ "between 0 and 1", RD, 500, 1, false, 0, LBA },
	{ "gap up to extent 1", WZ, 990, 10, false, 0, LBA },
	{ "gap into extent 1", WZ, 990, 11, false, 0, LBA },
	{ "extent 1 first", RD, 1000, 1, false, 0, OK },
	{ "extent 1 last", RD, 1049, 1, false, 0, OK },
	{ "extent 1 whole", WZ, 1000, 50, false, 0, OK },
	{ "extent 1 plus one", WZ, 1000, 51, false, 0, LBA },
	{ "extents 0 and 1", WZ, 150, 900, false, 0, LBA },
	{ "extent 2 whole", WZ, 5000, 1000, false, 0, OK },
	{ "extent 2 last", RD, 5999, 1, false, 0, OK },
	{ "extent 2 one past", RD, 6000, 1, false, 0, LBA },
	{ "extent 2, nlb 65536", WZ, 5000, 65536, false, 0, LBA },
	{ "extent 3 first", RD, 99500, 1, false, 0, OK },
	{ "last lba of namespace", RD, T_NS_SIZE - 1, 1, false, 0, OK },
	{ "first lba past namespace", RD, T_NS_SIZE, 1, false, 0, LBA },
	{ "across namespace end", WZ, T_NS_SIZE - 10, 20, false, 0, LBA },
	{ "after last extent", RD, 200000, 1, false, 0, LBA },
	{ "slba 2^63", RD, 1ULL << 63, 1, false, 0, LBA },
	{ "slba ~0", RD, ~0ULL, 1, false, 0, LBA },
	{ "slba ~0, nlb 8", RD, ~0ULL, 8, false, 0, LBA },
	{ "slba ~0 - 1, nlb 2", RD, ~0ULL - 1, 2, false, 0, LBA },
	{ "slba ~0 - 65534, nlb 65536", WZ, ~0ULL - 65534, 65536, false, 0, LBA },
	{ "big: first", RD, 0, 1, true, 0, OK },
	{ "big: top extent", WZ, ~0ULL - 100, 100, true, 0, OK },
	{ "big: last lba", RD, ~0ULL - 1, 1, true, 0, OK },
	{ "big: lba ~0", RD, ~0ULL, 1, true, 0, LBA },
	{ "big: wraps past 2^64", RD, ~0ULL - 1, 2, true, 0, LBA },
	{ "big: wraps far", WZ, ~0ULL - 10, 65536, true, 0, LBA },
	{ "big: wraps into extent 0", WZ, ~0ULL - 1, 5, true, 0, LBA },
	{ "big: between", RD, 1ULL << 40, 1, true, 0, LBA },
	{ "max_nlb 0 is 65536", WZ, 5000, 1000, false, 0, OK },
	{ "max_nlb 1000", WZ, 5000, 1000, false, 1000, OK },
	{ "max_nlb 999", WZ, 5000, 1000, false, 999, FLD },
	{ "max_nlb 65536", WZ, 5000, 1000, false, 65536, OK },
};

static void np_lba_desc(const struct np_lba_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(np_lba, np_lba_cases, np_lba_desc);

static void np_test_lba(struct kunit *test)
{
	const struct np_lba_case *c = test->param_value;
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;

	np_t_policy(p);
	p->max_nlb = c->max_nlb;
	if (c->big) {
		p->extents = np_t_big_ext;
		p->nr_extents = ARRAY_SIZE(np_t_big_ext);
		p->ns_size = ~0ULL;
	}
	np_t_init(test, p);
	if (c->opc == NP_OP_READ)	/* at most 4 KiB: PRP1 alone */
		np_t_sqe(&s, c->opc, c->slba, c->nlb, 0x100000, 0);
	else
		np_t_sqe(&s, c->opc, c->slba, c->nlb, 0, 0);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), c->want);
	KUNIT_EXPECT_EQ(test, np_guard_check_full(p, &s, NULL), c->want);
	KUNIT_EXPECT_EQ(test, np_ref_check(p, &s, NULL), c->want);
}

/* Binary search: every LBA around every edge of 1..40 extents. */
static void np_test_extent_search(struct kunit *test)
{
	struct np_range *ext;
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;
	u32 n, i, d;
	u64 lba;

	ext = kunit_kcalloc(test, 40, sizeof(*ext), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ext);
	for (n = 1; n <= 40; n++) {
		for (i = 0; i < n; i++) {
			ext[i].start = 10 + 10 * i;
			ext[i].len = 5;
		}
		np_t_policy(p);
		p->extents = ext;
		p->nr_extents = n;
		np_t_init(test, p);
		for (i = 0; i < n; i++) {
			for (d = 0; d < 10; d++) {
				lba = ext[i].start - 2 + d;	/* 8..17 */
				np_t_sqe(&s, NP_OP_WRITE_ZEROES, lba, 1, 0, 0);
				KUNIT_EXPECT_EQ_MSG(test,
						    np_guard_check(p, &s, NULL),
						    d >= 2 && d < 7 ? NP_GUARD_OK :
						    NP_GUARD_LBA_RANGE,
						    "%u extents, lba %llu", n, lba);
			}
		}
	}
}

/* ---- PRPs ---------------------------------------------------------------------- */

enum { L_NONE, L_OK, L_WRONG_ADDR };

struct np_prp_case {
	const char *name;
	u32 nlb;		/* of 512 B */
	u64 prp1, prp2;
	u64 ent[4];
	u8 nent;
	u8 list;		/* L_* */
	enum np_guard_verdict want;
	u32 want_len;		/* np_guard_prp_list_len() */
};

static const struct np_prp_case np_prp_cases[] = {
	{ "4k aligned", 8, 0x100000, 0, {}, 0, L_NONE, OK, 0 },
	{ "512 b", 1, 0x100000, 0, {}, 0, L_NONE, OK, 0 },
	{ "prp1 dword offset", 1, 0x100004, 0, {}, 0, L_NONE, OK, 0 },
	{ "prp1 +1", 1, 0x100001, 0, {}, 0, L_NONE, OFS, 0 },
	{ "prp1 +2", 1, 0x100002, 0, {}, 0, L_NONE, OFS, 0 },
	{ "prp1 +3", 8, 0x100003, 0, {}, 0, L_NONE, OFS, 0 },
	{ "prp1 up to page end", 1, 0x100e00, 0, {}, 0, L_NONE, OK, 0 },
	{ "prp1 at last dword", 1, 0x100ffc, 0x101000, {}, 0, L_NONE, OK, 0 },
	{ "prp1 outside", 8, 0x300000, 0, {}, 0, L_NONE, WIN, 0 },
	{ "prp1 below window", 1, 0xffe00, 0, {}, 0, L_NONE, WIN, 0 },
	{ "prp1 address 0", 1, 0, 0, {}, 0, L_NONE, WIN, 0 },
	{ "prp1 ~0 & ~3", 1, ~3ULL, 0, {}, 0, L_NONE, WIN, 0 },
	{ "unused prp2 set", 8, 0x100000, 0x101000, {}, 0, L_NONE, FLD, 0 },
	{ "unused prp2, prp1 +2", 8, 0x100002, 0x101000, {}, 0, L_NONE, OFS, 0 },
	{ "unused prp2 low bit", 1, 0x100000, 1, {}, 0, L_NONE, FLD, 0 },
	/* window that starts and ends mid-page: 0x400800..0x401800 */
	{ "mid-page window", 4, 0x400800, 0, {}, 0, L_NONE, OK, 0 },
	{ "before mid-page window", 1, 0x400600, 0, {}, 0, L_NONE, WIN, 0 },
	{ "straddles window start", 2, 0x400600, 0, {}, 0, L_NONE, WIN, 0 },
	{ "up to window end", 4, 0x401000, 0, {}, 0, L_NONE, OK, 0 },
	{ "past window end", 5, 0x401000, 0, {}, 0, L_NONE, WIN, 0 },
	/* two pages: PRP2 is the second page */
	{ "prp1 offset crossing", 1, 0x100f00, 0x101000, {}, 0, L_NONE, OK, 0 },
	{ "crossing, prp2 0", 1, 0x100f00, 0, {}, 0, L_NONE, WIN, 0 },
	{ "crossing, prp2 +0x100", 1, 0x100f00, 0x101100, {}, 0, L_NONE, OFS, 0 },
	{ "crossing, prp2 +8", 2, 0x100e00, 0x101008, {}, 0, L_NONE, OFS, 0 },
	{ "crossing, prp2 outside", 1, 0x100f00, 0x300000, {}, 0, L_NONE, WIN, 0 },
	{ "crossing, other window", 1, 0x100f00, 0x200000, {}, 0, L_NONE, OK, 0 },
	{ "two pages", 16, 0x100000, 0x101000, {}, 0, L_NONE, OK, 0 },
	{ "two pages, other window", 16, 0x100000, 0x202000, {}, 0, L_NONE, OK, 0 },
	{ "two pages, window's last", 16, 0x100000, 0x10f000, {}, 0, L_NONE, OK, 0 },
	{ "two pages, past window", 16, 0x100000, 0x110000, {}, 0, L_NONE, WIN, 0 },
	{ "two pages, prp1 past", 16, 0x110000, 0x101000, {}, 0, L_NONE, WIN, 0 },
	{ "second page partial", 10, 0x100000, 0x400000, {}, 0, L_NONE, WIN, 0 },
	{ "second page in mid window", 5, 0x10fe00, 0x401000, {}, 0, L_NONE,
	  OK, 0 },
	{ "prp1 to window end, then", 9, 0x202e00, 0x203000, {}, 0, L_NONE,
	  WIN, 0 },
	/* PRP lists */
	{ "list", 24, 0x100000, 0x102000, { 0x103000, 0x104000 }, 2, L_OK, OK, 2 },
	{ "list, other windows", 24, 0x100000, 0x200ff0,
	  { 0x201000, 0x10f000 }, 2, L_OK, OK, 2 },
	{ "list, prp1 offset", 16, 0x100200, 0x102000, { 0x103000, 0x104000 },
	  2, L_OK, OK, 2 },
	{ "list, 3 pages from offset", 24, 0x100200, 0x102000,
	  { 0x103000, 0x104000, 0x105000 }, 3, L_OK, OK, 3 },
	{ "list NULL", 24, 0x100000, 0x102000, {}, 0, L_NONE, WIN, 2 },
	{ "list short", 24, 0x100000, 0x102000, { 0x103000 }, 1, L_OK, WIN, 2 },
	{ "list longer", 24, 0x100000, 0x102000,
	  { 0x103000, 0x104000, 0x5 }, 3, L_OK, OK, 2 },
	{ "list copied elsewhere", 24, 0x100000, 0x102000,
	  { 0x103000, 0x104000 }, 2, L_WRONG_ADDR, WIN, 2 },
	{ "list pointer +4", 24, 0x100000, 0x102004, { 0x103000, 0x104000 },
	  2, L_OK, OFS, 0 },
	{ "list pointer +1", 24, 0x100000, 0x102001, { 0x103000, 0x104000 },
	  2, L_OK, OFS, 0 },
	{ "list ends at page end", 24, 0x100000, 0x102ff0,
	  { 0x103000, 0x104000 }, 2, L_OK, OK, 2 },
	{ "list crosses page", 24, 0x100000, 0x102ff8, { 0x103000, 0x104000 },
	  2, L_OK, FLD, 0 },
	{ "list crosses page, NULL", 24, 0x100000, 0x102ff8, {}, 0, L_NONE,
	  FLD, 0 },
	{ "list page outside", 24, 0x100000, 0x300000, { 0x103000, 0x104000 },
	  2, L_OK, WIN, 2 },
	{ "list straddles window end", 24, 0x100000, 0x4017f8,
	  { 0x103000, 0x104000 }, 2, L_OK, WIN, 2 },
	{ "list at window end", 24, 0x100000, 0x4017f0, { 0x103000, 0x104000 },
	  2, L_OK, OK, 2 },
	{ "entry unaligned", 24, 0x100000, 0x102000, { 0x103000, 0x104200 },
	  2, L_OK, OFS, 2 },
	{ "entry +8", 24, 0x100000, 0x102000, { 0x103008, 0x104000 },
	  2, L_OK, OFS, 2 },
	{ "entry outside", 24, 0x100000, 0x102000, { 0x103000, 0x300000 },
	  2, L_OK, WIN, 2 },
	{ "entry outside, then unaligned", 24, 0x100000, 0x102000,
	  { 0x300000, 0x104200 }, 2, L_OK, WIN, 2 },
	{ "entry unaligned, then outside", 24, 0x100000, 0x102000,
	  { 0x103200, 0x300000 }, 2, L_OK, OFS, 2 },
	{ "entry 0", 24, 0x100000, 0x102000, { 0x103000, 0 }, 2, L_OK, WIN, 2 },
	{ "last entry partial", 20, 0x100000, 0x102000, { 0x103000, 0x401000 },
	  2, L_OK, OK, 2 },
	{ "last entry full", 24, 0x100000, 0x102000, { 0x103000, 0x401000 },
	  2, L_OK, WIN, 2 },
	{ "list, prp1 outside", 24, 0x300000, 0x102000, { 0x103000, 0x104000 },
	  2, L_OK, WIN, 2 },
	{ "list, prp1 outside, NULL", 24, 0x300000, 0x102000, {}, 0, L_NONE,
	  WIN, 2 },
	{ "list, prp1 unaligned, NULL", 24, 0x100002, 0x102000, {}, 0, L_NONE,
	  OFS, 3 },
};

static void np_prp_desc(const struct np_prp_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(np_prp, np_prp_cases, np_prp_desc);

static void np_test_prp(struct kunit *test)
{
	const struct np_prp_case *c = test->param_value;
	struct np_prp_list list, *l = NULL;
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;
	__le64 ent[4];
	int i;

	np_t_policy(p);
	np_t_init(test, p);
	np_t_sqe(&s, NP_OP_READ, 100, c->nlb, c->prp1, c->prp2);
	for (i = 0; i < ARRAY_SIZE(ent); i++)
		ent[i] = cpu_to_le64(c->ent[i]);
	if (c->list != L_NONE) {
		list.entries = ent;
		list.nr = c->nent;
		list.list_addr = c->prp2 + (c->list == L_WRONG_ADDR ? 0x1000 : 0);
		l = &list;
	}
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, l), c->want);
	KUNIT_EXPECT_EQ(test, np_guard_check_full(p, &s, l), c->want);
	KUNIT_EXPECT_EQ(test, np_ref_check(p, &s, l), c->want);
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), c->want_len);
	/* np_mp_check() relies on it: nothing passes without its list */
	if (c->want_len)
		KUNIT_EXPECT_NE(test, np_guard_check(p, &s, NULL), NP_GUARD_OK);
}

/* A full list page: 512 entries, the most one list page holds. */
static void np_test_prp_list_max(struct kunit *test)
{
	static const struct np_range big = { 0, 1 << 20 };
	struct np_prp_list list;
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;
	__le64 *ent;
	int i;

	ent = kunit_kcalloc(test, NP_GUARD_MAX_LIST + 1, sizeof(*ent),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, ent);
	for (i = 0; i <= NP_GUARD_MAX_LIST; i++)
		ent[i] = cpu_to_le64(0x100000 + 0x1000 * (i % 16));
	np_t_policy(p);
	p->extents = &big;
	p->nr_extents = 1;
	p->ns_size = big.len;
	np_t_init(test, p);
	list.entries = ent;
	list.nr = NP_GUARD_MAX_LIST;
	list.list_addr = 0x200000;

	/* 513 pages: PRP1 and 512 entries */
	np_t_sqe(&s, NP_OP_READ, 0, 513 * 8, 0x100000, 0x200000);
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), 512);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, &list), NP_GUARD_OK);
	KUNIT_EXPECT_EQ(test, np_ref_check(p, &s, &list), NP_GUARD_OK);

	/* one more byte's worth of LBA: a 513th entry would need chaining */
	np_t_sqe(&s, NP_OP_READ, 0, 513 * 8 + 1, 0x100000, 0x200000);
	list.nr = NP_GUARD_MAX_LIST + 1;
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), 0);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, &list),
			NP_GUARD_BAD_FIELD);

	/* the list starting 8 bytes into its page holds 511 */
	np_t_sqe(&s, NP_OP_READ, 0, 513 * 8, 0x100000, 0x200008);
	list.list_addr = 0x200008;
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), 0);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, &list),
			NP_GUARD_BAD_FIELD);
	np_t_sqe(&s, NP_OP_READ, 0, 512 * 8, 0x100000, 0x200008);
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), 511);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, &list), NP_GUARD_OK);

	/* the biggest command: NLB 65536 of 4 KiB needs chaining */
	p->lba_shift = 12;
	np_t_init(test, p);
	list.list_addr = 0x200000;
	np_t_sqe(&s, NP_OP_READ, 0, 65536, 0x100000, 0x200000);
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), 0);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, &list),
			NP_GUARD_BAD_FIELD);
}

/* 4 KiB LBAs: one LBA is a page, two are two pages, three need a list. */
static void np_test_lba_shift_12(struct kunit *test)
{
	__le64 ent[2] = { cpu_to_le64(0x103000), cpu_to_le64(0x104000) };
	struct np_prp_list list = { ent, 2, 0x102000 };
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;

	np_t_policy(p);
	p->lba_shift = 12;
	np_t_init(test, p);
	np_t_sqe(&s, NP_OP_READ, 100, 1, 0x100000, 0);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), NP_GUARD_OK);
	np_t_sqe(&s, NP_OP_READ, 100, 1, 0x100800, 0x101000);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), NP_GUARD_OK);
	np_t_sqe(&s, NP_OP_READ, 100, 2, 0x100000, 0x101000);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL), NP_GUARD_OK);
	np_t_sqe(&s, NP_OP_READ, 100, 3, 0x100000, 0x102000);
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), 2);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, &list), NP_GUARD_OK);
	KUNIT_EXPECT_EQ(test, np_guard_check(p, &s, NULL),
			NP_GUARD_DATA_WINDOW);
	np_t_sqe(&s, NP_OP_WRITE_ZEROES, 100, 3, 0, 0);
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), 0);
	np_t_sqe(&s, NP_OP_DSM, 0xff, 1, 0x100800, 0x101000);
	KUNIT_EXPECT_EQ(test, np_guard_prp_list_len(p, &s), 0);
}

/* ---- against the reference ------------------------------------------------- */

#define NP_T_MAX_EXT	8

/* 0x100000 + 0x10000 and 0x200000 + 0x3000 as in np_t_win, or five pages */
static const struct np_range np_t_win_b[] = {
	{ 0x100000, 0x5000 }, { 0x106000, 0x800 },
};

static void np_t_random_extents(u64 *seed, struct np_range *ext, u32 *nr)
{
	u32 i, n = 1 + np_t_rnd(seed) % NP_T_MAX_EXT;

	for (i = 0; i < n; i++) {
		ext[i].start = np_t_rnd(seed) % 72;
		ext[i].len = 1 + np_t_rnd(seed) % 12;
	}
	*nr = n;
}

struct np_t_stats {
	u32 runs, bad, verdicts[NP_GUARD_NR_VERDICTS];
};

static void np_t_compare(struct kunit *test, const struct np_policy *p,
			 const union np_tsqe *s, const struct np_prp_list *l,
			 struct np_t_stats *st)
{
	enum np_guard_verdict want = np_ref_check(p, s, l);
	enum np_guard_verdict got = np_guard_check(p, s, l);
	enum np_guard_verdict full = np_guard_check_full(p, s, l);

	st->runs++;
	st->verdicts[want]++;
	if (got == want && full == want)
		return;
	if (st->bad++ < 5)
		KUNIT_FAIL(test,
			   "ref %d check %d full %d: cdw0 %#x nsid %#x slba %llu cdw12 %#x prp1 %#llx prp2 %#llx list %d",
			   want, got, full, le32_to_cpu(s->dw[0]),
			   le32_to_cpu(s->dw[1]), le64_to_cpu(s->qw[5]),
			   le32_to_cpu(s->dw[12]), le64_to_cpu(s->qw[3]),
			   le64_to_cpu(s->qw[4]), l ? (int)l->nr : -1);
}

/*
 * Build a read of @nlb LBAs from @prp1 whose pages follow PRP1's page, with
 * the list, if one is needed, at @list_addr.
 */
static const struct np_prp_list *
np_t_build_read(union np_tsqe *s, const struct np_policy *p, u64 slba,
		u32 nlb, u64 prp1, u64 list_addr, __le64 *ent,
		struct np_prp_list *list)
{
	u64 page = prp1 & ~0xfffULL, len = (u64)nlb << p->lba_shift;
	u64 first = 0x1000 - (prp1 & 0xfff), prp2 = 0;
	bool use_list = len > first + 0x1000;
	u32 i, n;

	if (use_list) {
		n = (len - first + 0xfff) >> 12;
		for (i = 0; i < n; i++)
			ent[i] = cpu_to_le64(page + 0x1000 * (i + 1));
		prp2 = list_addr;
		list->entries = ent;
		list->nr = n;
		list->list_addr = list_addr;
	} else if (len > first) {
		prp2 = page + 0x1000;
	}
	np_t_sqe(s, NP_OP_READ, slba, nlb, prp1, prp2);
	return use_list ? list : NULL;
}

/*
 * Every SLBA in 0..63 and NLB in 1..16, from PRP1 at several page offsets,
 * over a few random (fixed seed) extent sets, two window sets and two
 * max_nlb: the guard, its slow path and the reference must agree.
 */
static void np_test_exhaustive(struct kunit *test)
{
	static const u32 offs[] = { 0, 4, 0x200, 0x800, 0xe00, 0xff0, 0xffc, 2 };
	static const u64 lists[] = { 0x10e000, 0x10fff8, 0x300000, 0x2007f0 };
	const struct np_prp_list *l;
	struct np_range ext[NP_T_MAX_EXT];
	struct np_prp_list list;
	struct np_t_stats *st;
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;
	u32 set, wv, slba, nlb, o, nr;
	u64 seed = 0x5eed1234abcdULL, page;
	__le64 ent[4];

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	for (set = 0; set < 8; set++) {
		if (set == 0) {
			ext[0].start = 0;
			ext[0].len = 64;
			nr = 1;
		} else {
			np_t_random_extents(&seed, ext, &nr);
		}
		KUNIT_ASSERT_EQ(test, np_ranges_prepare(ext, &nr), 0);
		np_t_policy(p);
		p->extents = ext;
		p->nr_extents = nr;
		p->ns_size = set == 3 ? 40 : 64;
		p->max_nlb = set & 1 ? 12 : 0;
		for (wv = 0; wv < 2; wv++) {
			p->windows = wv ? np_t_win_b : np_t_win;
			p->nr_windows = wv ? ARRAY_SIZE(np_t_win_b) :
					    ARRAY_SIZE(np_t_win);
			np_t_init(test, p);
			for (slba = 0; slba < 64; slba++) {
				page = 0x100000 + 0x1000 * (slba % 8);
				for (nlb = 1; nlb <= 16; nlb++) {
					for (o = 0; o < ARRAY_SIZE(offs); o++) {
						l = np_t_build_read(&s, p, slba, nlb,
								    page + offs[o],
								    lists[(slba + nlb) % 4],
								    ent, &list);
						np_t_compare(test, p, &s, l, st);
					}
				}
			}
		}
	}
	KUNIT_EXPECT_EQ(test, st->bad, 0);
	/* the space is really explored */
	KUNIT_EXPECT_GT(test, st->verdicts[NP_GUARD_OK], 1000);
	KUNIT_EXPECT_GT(test, st->verdicts[NP_GUARD_LBA_RANGE], 1000);
	KUNIT_EXPECT_GT(test, st->verdicts[NP_GUARD_BAD_FIELD], 100);
	KUNIT_EXPECT_GT(test, st->verdicts[NP_GUARD_PRP_OFFSET], 100);
	KUNIT_EXPECT_GT(test, st->verdicts[NP_GUARD_DATA_WINDOW], 100);
	kunit_info(test, "%u commands: %u ok, %u lba, %u field, %u offset, %u window\n",
		   st->runs, st->verdicts[NP_GUARD_OK],
		   st->verdicts[NP_GUARD_LBA_RANGE],
		   st->verdicts[NP_GUARD_BAD_FIELD],
		   st->verdicts[NP_GUARD_PRP_OFFSET],
		   st->verdicts[NP_GUARD_DATA_WINDOW]);
}

/* Values a hostile peer would try for a 64-bit field. */
static u64 np_t_nasty(u64 *seed, u64 good)
{
	switch (np_t_rnd(seed) % 8) {
	case 0:
		return 0;
	case 1:
		return ~0ULL - np_t_rnd(seed) % 4;
	case 2:
		return good + np_t_rnd(seed) % 16 - 8;
	case 3:
		return good ^ BIT_ULL(np_t_rnd(seed) % 64);
	case 4:
		return good + 0x1000 * (np_t_rnd(seed) % 32) - 0x8000;
	case 5:
		return np_t_rnd(seed);
	default:
		return good;
	}
}

/*
 * Random commands (fixed seed): a valid one of each kind, then a few of
 * its fields made hostile, under random max_nlb, LBA sizes, opcodes and
 * lists.
 */
/* Flip up to three things in @s (or its PRP list); the list if still used. */
static const struct np_prp_list *np_t_mutate(union np_tsqe *s, u64 *seed,
					     __le64 *ent,
					     struct np_prp_list *list,
					     const struct np_prp_list *l)
{
	u32 j, k, w;

	for (j = np_t_rnd(seed) % 4; j > 0; j--) {
		w = np_t_rnd(seed) % 16;
		switch (np_t_rnd(seed) % 4) {
		case 0:		/* one bit anywhere */
			s->dw[w] ^= cpu_to_le32(BIT(np_t_rnd(seed) % 32));
			break;
		case 1:		/* SLBA, PRP1 or PRP2 */
			w = 3 + np_t_rnd(seed) % 3;
			s->qw[w] = cpu_to_le64(np_t_nasty(seed,
							  le64_to_cpu(s->qw[w])));
			break;
		case 2:		/* NLB */
			s->dw[12] ^= cpu_to_le32(np_t_rnd(seed) & 0xffff);
			break;
		default:	/* the list */
			if (l && l->nr) {
				k = np_t_rnd(seed) % l->nr;
				ent[k] = cpu_to_le64(np_t_nasty(seed,
								le64_to_cpu(ent[k])));
			} else if (l) {
				l = NULL;
			}
			if (l && np_t_rnd(seed) % 4 == 0)
				list->nr = np_t_rnd(seed) % (list->nr + 2);
			break;
		}
	}
	return l;
}

static void np_test_random(struct kunit *test)
{
	static const enum np_t_kind kinds[] = {
		K_READ, K_READ, K_READ, K_WRITE, K_FLUSH, K_WZ, K_DSM,
	};
	const struct np_prp_list *l;
	struct np_prp_list list;
	struct np_t_stats *st;
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;
	u64 seed = 0xc0ffee5eedULL, r;
	__le64 ent[24];
	u32 i, k;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	for (i = 0; i < 200000; i++) {
		np_t_policy(p);
		r = np_t_rnd(&seed);
		p->max_nlb = (r >> 3) % 4 ? 0 : 1 + (r >> 5) % 64;
		p->lba_shift = (r >> 11) & 1 ? 12 : 9;
		if ((r >> 12) % 8 == 0)
			p->opcodes[0] = np_t_rnd(&seed) & T_KNOWN;
		if ((r >> 15) % 4 == 0) {
			p->extents = np_t_big_ext;
			p->nr_extents = ARRAY_SIZE(np_t_big_ext);
			p->ns_size = ~0ULL;
		}

		k = np_t_rnd(&seed) % ARRAY_SIZE(kinds);
		if (kinds[k] == K_READ) {
			l = np_t_build_read(&s, p,
					    np_t_ext[np_t_rnd(&seed) % 4].start +
					    np_t_rnd(&seed) % 64,
					    1 + np_t_rnd(&seed) % (p->lba_shift == 9 ? 80 : 10),
					    0x100000 + 4 * (np_t_rnd(&seed) % 0x800),
					    0x10e000 + 8 * (np_t_rnd(&seed) % 0x200),
					    ent, &list);
		} else {
			np_t_kind_sqe(&s, kinds[k]);
			l = NULL;
		}
		l = np_t_mutate(&s, &seed, ent, &list, l);
		np_t_compare(test, p, &s, l, st);
	}
	KUNIT_EXPECT_EQ(test, st->bad, 0);
	kunit_info(test, "%u commands: %u ok, %u opcode, %u field, %u nsid, %u lba, %u offset, %u window\n",
		   st->runs, st->verdicts[NP_GUARD_OK],
		   st->verdicts[NP_GUARD_BAD_OPCODE],
		   st->verdicts[NP_GUARD_BAD_FIELD],
		   st->verdicts[NP_GUARD_BAD_NSID],
		   st->verdicts[NP_GUARD_LBA_RANGE],
		   st->verdicts[NP_GUARD_PRP_OFFSET],
		   st->verdicts[NP_GUARD_DATA_WINDOW]);
}

/* ---- the fast path and its caches ----------------------------------------- */

/* np_policy_init() refuses a policy np_guard_check() cannot rely on. */
static void np_test_policy_init(struct kunit *test)
{
	static const struct np_range unsorted[] = { { 100, 10 }, { 50, 10 } };
	static const struct np_range adjacent[] = { { 0, 10 }, { 10, 10 } };
	static const struct np_range empty[] = { { 0, 10 }, { 20, 0 } };
	static const struct np_range wraps[] = { { ~0ULL - 9, 10 } };
	static const struct np_range overlap[] = { { 0x1000, 0x2000 },
						   { 0x2000, 0x1000 } };
	static const struct np_range top[] = { { ~0ULL - 0xfff, 0xfff } };
	struct np_policy *p = np_t_new(test);

	np_t_policy(p);
	KUNIT_EXPECT_EQ(test, np_policy_init(p), 0);
	p->lba_shift = 8;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
	p->lba_shift = 17;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
	p->lba_shift = 16;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), 0);

	np_t_policy(p);
	p->extents = unsorted;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
	p->extents = adjacent;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
	p->extents = empty;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
	p->extents = wraps;
	p->nr_extents = 1;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
	p->extents = NULL;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
	p->nr_extents = 0;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), 0);

	np_t_policy(p);
	p->windows = overlap;
	p->nr_windows = ARRAY_SIZE(overlap);
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
	p->windows = top;
	p->nr_windows = 1;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), 0);
	p->windows = NULL;
	KUNIT_EXPECT_EQ(test, np_policy_init(p), -EINVAL);
}

/* One command against the guard, its slow path and the reference. */
static void np_t_expect(struct kunit *test, const struct np_policy *p,
			const union np_tsqe *s, enum np_guard_verdict want,
			const char *what)
{
	KUNIT_EXPECT_EQ_MSG(test, np_ref_check(p, s, NULL), want, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, np_guard_check(p, s, NULL), want, "%s", what);
	KUNIT_EXPECT_EQ_MSG(test, np_guard_check_full(p, s, NULL), want, "%s",
			    what);
}

/* The corners the fast path must hand over rather than get wrong. */
/* The fast path at the edges of the 64-bit LBA and address spaces. */
static void np_test_fast_edges(struct kunit *test)
{
	static const struct np_range all = { 0, ~0ULL };
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;

	/* everything allowed: only 2^64 - 1 itself is out of reach */
	np_t_policy(p);
	p->extents = &all;
	p->nr_extents = 1;
	p->ns_size = ~0ULL;
	p->windows = &all;
	p->nr_windows = 1;
	np_t_init(test, p);
	np_t_sqe(&s, NP_OP_READ, ~0ULL - 8, 8, 0x1000, 0);
	np_t_expect(test, p, &s, OK, "last lbas");
	np_t_sqe(&s, NP_OP_READ, ~0ULL - 7, 8, 0x1000, 0);
	np_t_expect(test, p, &s, LBA, "lba 2^64 - 1");
	np_t_sqe(&s, NP_OP_READ, ~0ULL - 1, 5, 0x1000, 0);
	np_t_expect(test, p, &s, LBA, "lbas wrap past 2^64");
	np_t_sqe(&s, NP_OP_WRITE, ~0ULL, 8, 0x1000, 0);
	np_t_expect(test, p, &s, LBA, "slba 2^64 - 1, wraps");
	np_t_sqe(&s, NP_OP_READ, 0, 8, ~0xfffULL - 0x1000, 0);
	np_t_expect(test, p, &s, OK, "last page but one");
	np_t_sqe(&s, NP_OP_READ, 0, 8, ~0xfffULL, 0);
	np_t_expect(test, p, &s, WIN, "byte 2^64 - 1");
	np_t_sqe(&s, NP_OP_READ, 0, 7, ~0xfffULL, 0);
	np_t_expect(test, p, &s, OK, "top page but its last lba");
	np_t_sqe(&s, NP_OP_READ, 0, 8, ~0xfffULL + 0x800, 0);
	np_t_expect(test, p, &s, WIN, "data wraps past 2^64");
	np_t_sqe(&s, NP_OP_READ, 0, 8, ~3ULL, 0);
	np_t_expect(test, p, &s, WIN, "prp1 2^64 - 4");
}

/* PRP2 0 is the address of a second page in a window at 0. */
static void np_test_fast_prp2_zero(struct kunit *test)
{
	static const struct np_range low_win[] = {
		{ 0, 0x1000 }, { 0x100000, 0x10000 },
	};
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;

	np_t_policy(p);
	p->windows = low_win;
	p->nr_windows = ARRAY_SIZE(low_win);
	np_t_init(test, p);
	np_t_sqe(&s, NP_OP_READ, 100, 2, 0x100e00, 0);
	np_t_expect(test, p, &s, OK, "second page at 0");
	np_t_sqe(&s, NP_OP_READ, 100, 8, 0x100e00, 0);
	np_t_expect(test, p, &s, OK, "most of it at 0");
	np_t_sqe(&s, NP_OP_READ, 100, 2, 0x100e00, 0x1000);
	np_t_expect(test, p, &s, WIN, "second page at 0x1000");
	np_t_sqe(&s, NP_OP_READ, 100, 8, 0xe00, 0);
	np_t_expect(test, p, &s, OK, "both pages at 0");
	np_t_sqe(&s, NP_OP_READ, 100, 8, 0x10fe00, 0);
	np_t_expect(test, p, &s, OK, "window end, then 0");
	np_t_sqe(&s, NP_OP_READ, 100, 8, 0x10fe02, 0);
	np_t_expect(test, p, &s, OFS, "window end, then 0, unaligned");
	np_t_sqe(&s, NP_OP_READ, 100, 1, 0xe00, 0);
	np_t_expect(test, p, &s, OK, "first page at 0");
}

/* Policies the fast path must leave to the full check. */
static void np_test_fast_policies(struct kunit *test)
{
	struct np_policy *p = np_t_new(test);
	union np_tsqe s;

	/* max_nlb not a power of two: the fast path takes fewer */
	np_t_policy(p);
	p->max_nlb = 3;
	np_t_init(test, p);
	np_t_sqe(&s, NP_OP_READ, 100, 3, 0x100000, 0);
	np_t_expect(test, p, &s, OK, "nlb 3 of max 3");
	np_t_sqe(&s, NP_OP_READ, 100, 4, 0x100000, 0);
	np_t_expect(test, p, &s, FLD, "nlb 4 of max 3");

	/* LBAs bigger than a page: never the fast path */
	np_t_policy(p);
	p->lba_shift = 13;
	np_t_init(test, p);
	np_t_sqe(&s, NP_OP_READ, 100, 1, 0x100000, 0);
	np_t_expect(test, p, &s, WIN, "8 KiB in PRP1 alone");
	np_t_sqe(&s, NP_OP_READ, 100, 1, 0x100000, 0x101000);
	np_t_expect(test, p, &s, OK, "8 KiB in two pages");

	/* only Write allowed; the opcode bits a fast command may have */
	np_t_policy(p);
	p->opcodes[0] = BIT_ULL(NP_OP_WRITE);
	np_t_init(test, p);
	np_t_sqe(&s, NP_OP_WRITE, 100, 8, 0x100000, 0);
	np_t_expect(test, p, &s, OK, "write allowed");
	np_t_sqe(&s, NP_OP_READ, 100, 8, 0x100000, 0);
	np_t_expect(test, p, &s, OPC, "read not allowed");
	np_t_sqe(&s, 0x03, 100, 8, 0x100000, 0);
	np_t_expect(test, p, &s, OPC, "opcode 3");
	np_t_sqe(&s, 0x41, 100, 8, 0x100000, 0);
	np_t_expect(test, p, &s, OPC, "opcode 0x41");
	np_t_sqe(&s, 0x81, 100, 8, 0x100000, 0);
	np_t_expect(test, p, &s, OPC, "opcode 0x81");
	np_t_sqe(&s, NP_OP_WRITE, 100, 8, 0x100000, 0);
	s.dw[1] = cpu_to_le32(T_NSID + 1);
	np_t_expect(test, p, &s, NSID, "other namespace");
	s.dw[1] = cpu_to_le32(T_NSID | 1U << 31);
	np_t_expect(test, p, &s, NSID, "namespace bit 31");
}

/*
 * @n extents and windows, spread out (each alone in its cache slots) or
 * packed (sharing slots, found by the search instead).
 */
static void np_t_cache_policy(u64 *seed, struct np_range *ext,
			      struct np_range *win, u32 n, bool packed)
{
	u64 lba = 0, addr = 0x100000;
	u32 i;

	for (i = 0; i < n; i++) {
		lba += packed ? 1 + np_t_rnd(seed) % 8 :
				BIT_ULL(20 + np_t_rnd(seed) % 8);
		ext[i].start = lba;
		ext[i].len = 1 + np_t_rnd(seed) % (packed ? 16 : 1 << 20);
		lba += ext[i].len;
		addr += packed ? 0x200 * (1 + np_t_rnd(seed) % 8) :
				 BIT_ULL(24 + np_t_rnd(seed) % 8);
		win[i].start = addr;
		win[i].len = packed ? 0x200 * (1 + np_t_rnd(seed) % 16) :
				      0x1000 * (1 + np_t_rnd(seed) % 256);
		addr += win[i].len;
	}
}

/* Reads of 1 and 8 LBAs at and around the edges of @e and @w. */
static void np_t_cache_edges(struct kunit *test, const struct np_policy *p,
			     const struct np_range *e,
			     const struct np_range *w, struct np_t_stats *st)
{
	static const s64 lba_d[] = { -1, 0, 1 };
	static const s64 addr_d[] = { -0x200, -4, 0, 4, 0x200 };
	u32 nlb, edge, a, b;
	u64 slba, prp1;
	union np_tsqe s;

	for (nlb = 1; nlb <= 8; nlb += 7) {
		for (edge = 0; edge < 4; edge++) {
			slba = edge & 1 ? e->start + e->len - nlb : e->start;
			prp1 = edge & 2 ? w->start + w->len - nlb * 512 : w->start;
			for (a = 0; a < ARRAY_SIZE(lba_d); a++) {
				for (b = 0; b < ARRAY_SIZE(addr_d); b++) {
					np_t_sqe(&s, NP_OP_READ, slba + lba_d[a],
						 nlb, prp1 + addr_d[b], 0);
					np_t_compare(test, p, &s, NULL, st);
				}
			}
		}
	}
}

/*
 * Commands of at most a page at the edges of every extent and window of
 * policies of 1, 2, 3, 15, 16 and 17 of them, packed and spread out: the
 * guard, its slow path and the reference must agree.
 */
static void np_test_fast_cache(struct kunit *test)
{
	static const u32 sizes[] = { 1, 2, 3, 15, 16, 17 };
	struct np_range *ext;
	struct np_range *win;
	struct np_t_stats *st;
	struct np_policy *p = np_t_new(test);
	u64 seed = 0xfa57ca5eULL;
	u32 z, n, packed, i;

	st = kunit_kzalloc(test, sizeof(*st), GFP_KERNEL);
	ext = kunit_kcalloc(test, 17, sizeof(*ext), GFP_KERNEL);
	win = kunit_kcalloc(test, 17, sizeof(*win), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, st);
	KUNIT_ASSERT_NOT_NULL(test, ext);
	KUNIT_ASSERT_NOT_NULL(test, win);
	for (z = 0; z < ARRAY_SIZE(sizes); z++) {
		n = sizes[z];
		for (packed = 0; packed < 2; packed++) {
			np_t_cache_policy(&seed, ext, win, n, packed);
			np_t_policy(p);
			p->extents = ext;
			p->nr_extents = n;
			p->windows = win;
			p->nr_windows = n;
			p->ns_size = ext[n - 1].start + 1;
			np_t_init(test, p);
			for (i = 0; i < n; i++)
				np_t_cache_edges(test, p, &ext[i],
						 &win[(i * 7 + packed) % n], st);
		}
	}
	KUNIT_EXPECT_EQ(test, st->bad, 0);
	KUNIT_EXPECT_GT(test, st->verdicts[NP_GUARD_OK], 1000);
	KUNIT_EXPECT_GT(test, st->verdicts[NP_GUARD_LBA_RANGE], 1000);
	KUNIT_EXPECT_GT(test, st->verdicts[NP_GUARD_DATA_WINDOW], 1000);
	kunit_info(test, "%u commands: %u ok, %u lba, %u offset, %u window\n",
		   st->runs, st->verdicts[NP_GUARD_OK],
		   st->verdicts[NP_GUARD_LBA_RANGE],
		   st->verdicts[NP_GUARD_PRP_OFFSET],
		   st->verdicts[NP_GUARD_DATA_WINDOW]);
}

/* ---- policy preparation ---------------------------------------------------- */

struct np_prep_case {
	const char *name;
	struct np_range in[6];
	u32 nr;
	int ret;
	struct np_range out[6];
	u32 nr_out;
};

static const struct np_prep_case np_prep_cases[] = {
	{ "empty", {}, 0, 0, {}, 0 },
	{ "one", { { 5, 1 } }, 1, 0, { { 5, 1 } }, 1 },
	{ "sorted disjoint", { { 0, 10 }, { 20, 5 }, { 30, 1 } }, 3, 0,
	  { { 0, 10 }, { 20, 5 }, { 30, 1 } }, 3 },
	{ "unsorted", { { 50, 10 }, { 0, 10 }, { 20, 5 } }, 3, 0,
	  { { 0, 10 }, { 20, 5 }, { 50, 10 } }, 3 },
	{ "reversed", { { 50, 1 }, { 40, 1 }, { 30, 1 }, { 20, 1 }, { 10, 1 },
	  { 0, 1 } }, 6, 0,
	  { { 0, 1 }, { 10, 1 }, { 20, 1 }, { 30, 1 }, { 40, 1 }, { 50, 1 } }, 6 },
	{ "overlap", { { 0, 10 }, { 5, 10 } }, 2, 0, { { 0, 15 } }, 1 },
	{ "contained", { { 0, 100 }, { 10, 5 } }, 2, 0, { { 0, 100 } }, 1 },
	{ "contained, unsorted", { { 10, 5 }, { 0, 100 } }, 2, 0,
	  { { 0, 100 } }, 1 },
	{ "adjacent", { { 0, 10 }, { 10, 5 } }, 2, 0, { { 0, 15 } }, 1 },
	{ "one apart", { { 0, 10 }, { 11, 5 } }, 2, 0,
	  { { 0, 10 }, { 11, 5 } }, 2 },
	{ "duplicates", { { 7, 3 }, { 7, 3 }, { 7, 3 } }, 3, 0,
	  { { 7, 3 } }, 1 },
	{ "chain, unsorted", { { 20, 5 }, { 0, 10 }, { 10, 10 }, { 30, 1 },
	  { 25, 1 } }, 5, 0, { { 0, 26 }, { 30, 1 } }, 2 },
	{ "same start, longer later", { { 0, 5 }, { 0, 50 }, { 60, 1 } }, 3, 0,
	  { { 0, 50 }, { 60, 1 } }, 2 },
	{ "top of the space", { { ~0ULL - 10, 10 }, { 0, 1 } }, 2, 0,
	  { { 0, 1 }, { ~0ULL - 10, 10 } }, 2 },
	{ "nlb 0", { { 0, 10 }, { 20, 0 } }, 2, -EINVAL, {}, 2 },
	{ "overflow to 2^64", { { 0, 10 }, { ~0ULL - 9, 10 } }, 2, -EINVAL, {}, 2 },
	{ "overflow", { { ~0ULL, 2 } }, 1, -EINVAL, {}, 1 },
	{ "nlb ~0", { { 1, ~0ULL } }, 1, -EINVAL, {}, 1 },
	{ "whole space but one", { { 0, ~0ULL } }, 1, 0, { { 0, ~0ULL } }, 1 },
};

static void np_prep_desc(const struct np_prep_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(np_prep, np_prep_cases, np_prep_desc);

static void np_test_prepare(struct kunit *test)
{
	const struct np_prep_case *c = test->param_value;
	struct np_range r[6];
	u32 nr = c->nr, i;

	memcpy(r, c->in, sizeof(r));
	KUNIT_ASSERT_EQ(test, np_ranges_prepare(r, &nr), c->ret);
	KUNIT_ASSERT_EQ(test, nr, c->nr_out);
	if (c->ret)
		return;
	for (i = 0; i < nr; i++) {
		KUNIT_EXPECT_EQ(test, r[i].start, c->out[i].start);
		KUNIT_EXPECT_EQ(test, r[i].len, c->out[i].len);
	}
}

static bool np_t_covered(const struct np_range *e, u32 n, u64 lba)
{
	u32 i;

	for (i = 0; i < n; i++)
		if (e[i].start <= lba && lba < e[i].start + e[i].len)
			return true;
	return false;
}

/* Random sets: the result is sorted, merged and covers the same LBAs. */
static void np_test_prepare_random(struct kunit *test)
{
	struct np_range *in, *out;
	u64 seed = 0xabad1deaULL, lba;
	u32 run, i, n, nr;

	in = kunit_kcalloc(test, 40, sizeof(*in), GFP_KERNEL);
	out = kunit_kcalloc(test, 40, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, in);
	KUNIT_ASSERT_NOT_NULL(test, out);
	for (run = 0; run < 2000; run++) {
		n = np_t_rnd(&seed) % 41;
		for (i = 0; i < n; i++) {
			in[i].start = np_t_rnd(&seed) % 200;
			in[i].len = 1 + np_t_rnd(&seed) % 8;
		}
		memcpy(out, in, n * sizeof(*in));
		nr = n;
		KUNIT_ASSERT_EQ(test, np_ranges_prepare(out, &nr), 0);
		KUNIT_ASSERT_LE(test, nr, n);
		for (i = 1; i < nr; i++)
			KUNIT_ASSERT_LT(test, out[i - 1].start + out[i - 1].len,
					out[i].start);
		for (lba = 0; lba < 220; lba++)
			KUNIT_ASSERT_EQ(test, np_t_covered(out, nr, lba),
					np_t_covered(in, n, lba));
	}
}

/* ---- Dataset Management ranges --------------------------------------------- */

struct np_tdsm {
	__le32 attr;
	__le32 nlb;
	__le64 slba;
};

static void np_t_dsm(struct np_tdsm *r, u64 slba, u32 nlb)
{
	r->attr = cpu_to_le32(0);
	r->nlb = cpu_to_le32(nlb);
	r->slba = cpu_to_le64(slba);
}

/* Each range inside one extent, as a read's LBAs; any bad one refuses all. */
static void np_test_dsm_ranges(struct kunit *test)
{
	static const struct { u64 slba; u32 nlb; enum np_guard_verdict want; }
	one[] = {
		{ 100, 1, NP_GUARD_OK },		/* first LBA */
		{ 199, 1, NP_GUARD_OK },		/* last LBA */
		{ 100, 100, NP_GUARD_OK },		/* the whole extent */
		{ 99, 1, NP_GUARD_LBA_RANGE },		/* just before */
		{ 200, 1, NP_GUARD_LBA_RANGE },		/* just after */
		{ 150, 51, NP_GUARD_LBA_RANGE },	/* across the end */
		{ 150, 900, NP_GUARD_LBA_RANGE },	/* into the next */
		{ 99999, 1, NP_GUARD_OK },		/* the namespace's last */
		{ 99999, 2, NP_GUARD_LBA_RANGE },	/* extent past NSZE */
		{ 100000, 1, NP_GUARD_LBA_RANGE },
		{ ~0ULL - 1, 4, NP_GUARD_LBA_RANGE },	/* wraps past 2^64 */
		{ 7, 0, NP_GUARD_OK },			/* no LBA: nothing */
		{ ~0ULL, 0, NP_GUARD_OK },
	};
	struct np_policy *p = np_t_new(test);
	struct np_tdsm *r = kunit_kcalloc(test, 256, sizeof(*r), GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, r);
	np_t_policy(p);
	np_t_init(test, p);
	for (i = 0; i < ARRAY_SIZE(one); i++) {
		np_t_dsm(r, one[i].slba, one[i].nlb);
		KUNIT_EXPECT_EQ_MSG(test, np_guard_dsm_ranges(p, r, 1),
				    one[i].want, "range %d", i);
	}
	/* 256 good ranges, then one bad among them, first and last */
	for (i = 0; i < 256; i++)
		np_t_dsm(&r[i], 5000 + 3 * i, 3);
	KUNIT_EXPECT_EQ(test, np_guard_dsm_ranges(p, r, 256), NP_GUARD_OK);
	np_t_dsm(&r[255], 6000, 1);
	KUNIT_EXPECT_EQ(test, np_guard_dsm_ranges(p, r, 255), NP_GUARD_OK);
	KUNIT_EXPECT_EQ(test, np_guard_dsm_ranges(p, r, 256),
			NP_GUARD_LBA_RANGE);
	np_t_dsm(&r[0], 0, 1);
	KUNIT_EXPECT_EQ(test, np_guard_dsm_ranges(p, r + 1, 254), NP_GUARD_OK);
	KUNIT_EXPECT_EQ(test, np_guard_dsm_ranges(p, r, 2), NP_GUARD_LBA_RANGE);
	/* no extents: every range with LBAs is refused */
	p->nr_extents = 0;
	np_t_init(test, p);
	np_t_dsm(r, 100, 1);
	KUNIT_EXPECT_EQ(test, np_guard_dsm_ranges(p, r, 1), NP_GUARD_LBA_RANGE);
}

/* ---- status ------------------------------------------------------------------ */

static void np_test_status(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, np_guard_status(NP_GUARD_OK), 0);
	KUNIT_EXPECT_EQ(test, np_guard_status(NP_GUARD_BAD_OPCODE),
			NVME_SC_INVALID_OPCODE);
	KUNIT_EXPECT_EQ(test, np_guard_status(NP_GUARD_BAD_FIELD),
			NVME_SC_INVALID_FIELD);
	KUNIT_EXPECT_EQ(test, np_guard_status(NP_GUARD_BAD_NSID),
			NVME_SC_INVALID_NS);
	KUNIT_EXPECT_EQ(test, np_guard_status(NP_GUARD_LBA_RANGE),
			NVME_SC_LBA_RANGE);
	KUNIT_EXPECT_EQ(test, np_guard_status(NP_GUARD_PRP_OFFSET),
			NVME_SC_PRP_INVALID_OFFSET);
	KUNIT_EXPECT_EQ(test, np_guard_status(NP_GUARD_DATA_WINDOW),
			NVME_SC_DATA_XFER_ERROR);
	KUNIT_EXPECT_EQ(test, np_guard_status(NP_GUARD_NR_VERDICTS),
			NVME_SC_INTERNAL);
	KUNIT_EXPECT_EQ(test, np_guard_status((enum np_guard_verdict)-1),
			NVME_SC_INTERNAL);
}

static struct kunit_case np_guard_cases[] = {
	KUNIT_CASE_PARAM(np_test_fields, np_field_gen_params),
	KUNIT_CASE(np_test_opcodes),
	KUNIT_CASE(np_test_policy_nsid),
	KUNIT_CASE(np_test_empty_policy),
	KUNIT_CASE_PARAM(np_test_lba, np_lba_gen_params),
	KUNIT_CASE(np_test_extent_search),
	KUNIT_CASE_PARAM(np_test_prp, np_prp_gen_params),
	KUNIT_CASE(np_test_prp_list_max),
	KUNIT_CASE(np_test_lba_shift_12),
	KUNIT_CASE(np_test_exhaustive),
	KUNIT_CASE(np_test_random),
	KUNIT_CASE(np_test_policy_init),
	KUNIT_CASE(np_test_fast_edges),
	KUNIT_CASE(np_test_fast_prp2_zero),
	KUNIT_CASE(np_test_fast_policies),
	KUNIT_CASE(np_test_fast_cache),
	KUNIT_CASE_PARAM(np_test_prepare, np_prep_gen_params),
	KUNIT_CASE(np_test_prepare_random),
	KUNIT_CASE(np_test_dsm_ranges),
	KUNIT_CASE(np_test_status),
	{}
};

static struct kunit_suite np_guard_suite = {
	.name = "nvme-peer-guard",
	.test_cases = np_guard_cases,
};

kunit_test_suite(np_guard_suite);
