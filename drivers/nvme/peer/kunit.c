// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit tests for nvme-peer's pure logic: the reservation state machine,
 * parameter validation, the sysfs request parser and the qid allocator.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/nvme.h>
#include <linux/sizes.h>
#include <linux/slab.h>

#include "nvme-peer.h"

/* ---- state machine -------------------------------------------------------- */

struct np_trans_case {
	const char *name;
	enum np_qstate from;
	enum np_qevent ev;
	int ret;
	enum np_qstate to;
	bool notify;
};

static const struct np_trans_case np_trans_cases[] = {
	{ "new+created", NP_Q_NEW, NP_EV_CREATED, 0, NP_Q_ACTIVE, false },
	{ "new+revoke", NP_Q_NEW, NP_EV_REVOKE, 0, NP_Q_REVOKED, false },
	{ "new+release", NP_Q_NEW, NP_EV_RELEASE, 0, NP_Q_RELEASED, false },
	{ "active+created", NP_Q_ACTIVE, NP_EV_CREATED, -EINVAL, NP_Q_ACTIVE, false },
	{ "active+revoke", NP_Q_ACTIVE, NP_EV_REVOKE, 0, NP_Q_REVOKED, true },
	{ "active+release", NP_Q_ACTIVE, NP_EV_RELEASE, 0, NP_Q_RELEASED, true },
	{ "revoked+created", NP_Q_REVOKED, NP_EV_CREATED, -ESTALE, NP_Q_REVOKED, false },
	{ "revoked+revoke", NP_Q_REVOKED, NP_EV_REVOKE, -EALREADY, NP_Q_REVOKED, false },
	{ "revoked+release", NP_Q_REVOKED, NP_EV_RELEASE, 0, NP_Q_RELEASED, false },
	{ "released+created", NP_Q_RELEASED, NP_EV_CREATED, -EINVAL, NP_Q_RELEASED, false },
	{ "released+revoke", NP_Q_RELEASED, NP_EV_REVOKE, -EINVAL, NP_Q_RELEASED, false },
	{ "released+release", NP_Q_RELEASED, NP_EV_RELEASE, -EINVAL, NP_Q_RELEASED, false },
};

static void np_trans_desc(const struct np_trans_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(np_trans, np_trans_cases, np_trans_desc);

static void np_test_transition(struct kunit *test)
{
	const struct np_trans_case *c = test->param_value;
	enum np_qstate s = c->from;
	bool notify = !c->notify;

	KUNIT_EXPECT_EQ(test, np_qstate_next(&s, c->ev, &notify), c->ret);
	KUNIT_EXPECT_EQ(test, s, c->to);
	KUNIT_EXPECT_EQ(test, notify, c->notify);
}

/* Whatever mix of revocations and a release hits a live queue: one notify. */
static void np_test_notify_once(struct kunit *test)
{
	static const enum np_qevent seqs[][4] = {
		{ NP_EV_REVOKE, NP_EV_REVOKE, NP_EV_RELEASE, NP_EV_REVOKE },
		{ NP_EV_RELEASE, NP_EV_REVOKE, NP_EV_RELEASE, NP_EV_REVOKE },
		{ NP_EV_REVOKE, NP_EV_RELEASE, NP_EV_RELEASE, NP_EV_CREATED },
		{ NP_EV_CREATED, NP_EV_REVOKE, NP_EV_REVOKE, NP_EV_RELEASE },
	};
	int i, j, notifies;

	for (i = 0; i < ARRAY_SIZE(seqs); i++) {
		enum np_qstate s = NP_Q_ACTIVE;
		bool notify;

		notifies = 0;
		for (j = 0; j < ARRAY_SIZE(seqs[i]); j++) {
			np_qstate_next(&s, seqs[i][j], &notify);
			notifies += notify;
		}
		KUNIT_EXPECT_EQ_MSG(test, notifies, 1, "sequence %d", i);
		KUNIT_EXPECT_EQ_MSG(test, s, NP_Q_RELEASED, "sequence %d", i);
	}
}

/* A queue revoked while being created is never announced, and fails. */
static void np_test_revoke_during_create(struct kunit *test)
{
	enum np_qstate s = NP_Q_NEW;
	bool notify;

	KUNIT_EXPECT_EQ(test, np_qstate_next(&s, NP_EV_REVOKE, &notify), 0);
	KUNIT_EXPECT_FALSE(test, notify);
	KUNIT_EXPECT_EQ(test, np_qstate_next(&s, NP_EV_CREATED, &notify),
			-ESTALE);
	KUNIT_EXPECT_EQ(test, np_qstate_next(&s, NP_EV_RELEASE, &notify), 0);
	KUNIT_EXPECT_FALSE(test, notify);
	KUNIT_EXPECT_EQ(test, s, NP_Q_RELEASED);
}

static void np_test_names(struct kunit *test)
{
	KUNIT_EXPECT_STREQ(test, np_qstate_name(NP_Q_REVOKED), "revoked");
	KUNIT_EXPECT_STREQ(test, np_qstate_name(42), "?");
	KUNIT_EXPECT_STREQ(test, np_reason_name(NVME_PEER_REASON_RESET), "reset");
	KUNIT_EXPECT_STREQ(test, np_reason_name(NVME_PEER_REASON_UNLOAD), "unload");
	KUNIT_EXPECT_STREQ(test, np_reason_name(NVME_PEER_REASON_NAMESPACE),
			   "namespace");
	KUNIT_EXPECT_STREQ(test, np_reason_name(NVME_PEER_REASON_PEER_REMOVED),
			   "peer-removed");
	KUNIT_EXPECT_STREQ(test, np_reason_name(99), "?");
	KUNIT_EXPECT_STREQ(test, np_placement_name(NVME_PEER_MEM_CMB), "cmb");
	KUNIT_EXPECT_STREQ(test, np_mode_name(NVME_PEER_MEDIATED), "mediated");
	KUNIT_EXPECT_STREQ(test, np_mode_name(NVME_PEER_DIRECT), "direct");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(NVME_PEER_GUARANTEE_IOMMU_SWITCH),
			   "iommu-switch");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(NVME_PEER_GUARANTEE_CPU), "cpu");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(9), "?");
}

/* ---- parameter validation ------------------------------------------------- */

#define NP_CMB_ALL (NVME_CMBSZ_SQS | NVME_CMBSZ_CQS | NVME_CMBSZ_RDS | \
		    NVME_CMBSZ_WDS)
#define NP_CMB_QEMU (NVME_CMBSZ_SQS | NVME_CMBSZ_LISTS | NVME_CMBSZ_RDS | \
		     NVME_CMBSZ_WDS)
/* a stand-in peer, never dereferenced */
static char np_some_peer;
#define NP_SOME_PEER ((struct pci_dev *)&np_some_peer)

struct np_validate_case {
	const char *name;
	struct nvme_peer_params p;
	u32 cmbsz;
	int ret;
};

/* nsid, depth, sq, cq, data placement, data size, with a peer */
#define NP_P(n, d, s, c, dt, sz, pe) {					\
	.nsid = n, .depth = d, .sq = s, .cq = c, .data = dt,		\
	.data_size = sz, .peer = (pe) ? NP_SOME_PEER : NULL }
/* the same in direct mode */
#define NP_PD(n, d, s, c, dt, sz, pe) {					\
	.nsid = n, .depth = d, .sq = s, .cq = c, .data = dt,		\
	.data_size = sz, .peer = (pe) ? NP_SOME_PEER : NULL,		\
	.mode = NVME_PEER_DIRECT }
#define HOST NVME_PEER_MEM_HOST
#define CMB NVME_PEER_MEM_CMB
#define PEER NVME_PEER_MEM_PEER
#define NONE NVME_PEER_MEM_NONE

static const struct np_validate_case np_validate_cases[] = {
	{ "default", NP_P(1, 64, HOST, HOST, NONE, 0, 0),
	  0, 0 },
	{ "nsid 0", NP_P(0, 64, HOST, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "nsid broadcast", NP_P(0xffffffff, 64, HOST, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "nsid big", NP_P(0xfffffffe, 64, HOST, HOST, NONE, 0, 0),
	  0, 0 },
	{ "depth 0", NP_P(1, 0, HOST, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "depth 1", NP_P(1, 1, HOST, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "depth 2", NP_P(1, 2, HOST, HOST, NONE, 0, 0),
	  0, 0 },
	{ "depth 48", NP_P(1, 48, HOST, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "depth mediated max", NP_P(1, 1024, HOST, HOST, NONE, 0, 0),
	  0, 0 },
	{ "depth mqes mediated", NP_P(1, 2048, HOST, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "depth mqes direct", NP_PD(1, 2048, HOST, HOST, NONE, 0, 0),
	  0, 0 },
	{ "depth 2*mqes", NP_PD(1, 4096, HOST, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "mode bogus", { .nsid = 1, .depth = 64, .sq = NVME_PEER_MEM_HOST,
			  .cq = NVME_PEER_MEM_HOST, .mode = 2 },
	  0, -EINVAL },
	{ "direct with opcodes", { .nsid = 1, .depth = 64,
				   .sq = NVME_PEER_MEM_HOST,
				   .cq = NVME_PEER_MEM_HOST,
				   .mode = NVME_PEER_DIRECT,
				   .policy.opcodes = NVME_PEER_OP_READ },
	  0, -EINVAL },
	{ "direct with max_nlb", { .nsid = 1, .depth = 64,
				   .sq = NVME_PEER_MEM_HOST,
				   .cq = NVME_PEER_MEM_HOST,
				   .mode = NVME_PEER_DIRECT,
				   .policy.max_nlb = 8 },
	  0, -EINVAL },
	{ "mediated with opcodes", { .nsid = 1, .depth = 64,
				     .sq = NVME_PEER_MEM_HOST,
				     .cq = NVME_PEER_MEM_HOST,
				     .policy.opcodes = NVME_PEER_OP_READ },
	  0, 0 },
	{ "sq none", NP_P(1, 64, NONE, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "cq none", NP_P(1, 64, HOST, NONE, NONE, 0, 0),
	  0, -EINVAL },
	{ "placement bogus", NP_P(1, 64, 7, HOST, NONE, 0, 0),
	  NP_CMB_ALL, -EINVAL },
	{ "sq cmb", NP_P(1, 64, CMB, HOST, NONE, 0, 0),
	  NP_CMB_QEMU, 0 },
	{ "sq cmb, no cmb", NP_P(1, 64, CMB, HOST, NONE, 0, 0),
	  0, -EOPNOTSUPP },
	{ "cq cmb, no CQS", NP_P(1, 64, HOST, CMB, NONE, 0, 0),
	  NP_CMB_QEMU, -EOPNOTSUPP },
	{ "cq cmb, CQS", NP_P(1, 64, HOST, CMB, NONE, 0, 0),
	  NP_CMB_ALL, 0 },
	{ "data cmb", NP_P(1, 64, HOST, HOST, CMB, 4096, 0),
	  NP_CMB_QEMU, 0 },
	{ "data cmb, no WDS", NP_P(1, 64, HOST, HOST, CMB, 4096, 0),
	  NVME_CMBSZ_SQS | NVME_CMBSZ_RDS, -EOPNOTSUPP },
	{ "data host", NP_P(1, 64, HOST, HOST, HOST, 8192, 0),
	  0, 0 },
	{ "data without size", NP_P(1, 64, HOST, HOST, HOST, 0, 0),
	  0, -EINVAL },
	{ "size without data", NP_P(1, 64, HOST, HOST, NONE, 4096, 0),
	  0, -EINVAL },
	{ "data unaligned", NP_P(1, 64, HOST, HOST, HOST, 4095, 0),
	  0, -EINVAL },
	{ "data host 4M", NP_P(1, 64, HOST, HOST, HOST, NP_MAX_HOST_DATA_SIZE, 0),
	  0, 0 },
	{ "data host 4M+4K", NP_P(1, 64, HOST, HOST, HOST,
				  NP_MAX_HOST_DATA_SIZE + SZ_4K, 0),
	  0, -EINVAL },
	{ "data host 64M", NP_P(1, 64, HOST, HOST, HOST, SZ_64M, 0),
	  0, -EINVAL },
	{ "data cmb 64M", NP_P(1, 64, HOST, HOST, CMB, SZ_64M, 0),
	  NP_CMB_QEMU, 0 },
	{ "data peer 64M", NP_P(1, 64, HOST, HOST, PEER, SZ_64M, 1),
	  0, 0 },
	{ "data too big", NP_P(1, 64, HOST, HOST, PEER, SZ_64M + SZ_4K, 1),
	  0, -EINVAL },
	{ "peer without peer", NP_P(1, 64, PEER, HOST, NONE, 0, 0),
	  0, -EINVAL },
	{ "peer placement", NP_P(1, 64, PEER, HOST, NONE, 0, 1),
	  0, 0 },
};

#undef HOST
#undef CMB
#undef PEER
#undef NONE

static void np_validate_desc(const struct np_validate_case *c, char *desc)
{
	strscpy(desc, c->name, KUNIT_PARAM_DESC_SIZE);
}

KUNIT_ARRAY_PARAM(np_validate, np_validate_cases, np_validate_desc);

static void np_test_validate(struct kunit *test)
{
	const struct np_validate_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, np_validate_params(&c->p, 2048, c->cmbsz), c->ret);
}

/* ---- the sysfs "create" parser ---------------------------------------------- */

static int np_parse(struct kunit *test, const char *in,
		    struct np_create_req *req)
{
	size_t len = strlen(in) + 1;
	char *buf = kunit_kzalloc(test, len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, buf);
	memcpy(buf, in, len);
	return np_parse_create(buf, req);
}

static void np_test_parse_good(struct kunit *test)
{
	static const char in[] =
		"nsid=1 depth=0x40 sq=cmb cq=host data=peer data_size=8192 peer=0:3.0 qid=9\n";
	static const char med[] =
		"nsid=1 mode=mediated ops=write,read,flush max_nlb=8 lba=0+16 lba=0x100+1";
	struct np_create_req *req = kunit_kzalloc(test, sizeof(*req),
						  GFP_KERNEL);
	struct nvme_peer_params *p = &req->p;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_EQ(test, np_parse(test, in, req), 0);
	KUNIT_EXPECT_EQ(test, p->nsid, 1U);
	KUNIT_EXPECT_EQ(test, p->depth, 64U);
	KUNIT_EXPECT_EQ(test, p->sq, NVME_PEER_MEM_CMB);
	KUNIT_EXPECT_EQ(test, p->cq, NVME_PEER_MEM_HOST);
	KUNIT_EXPECT_EQ(test, p->data, NVME_PEER_MEM_PEER);
	KUNIT_EXPECT_EQ(test, p->data_size, (size_t)8192);
	KUNIT_EXPECT_STREQ(test, req->peer, "0:3.0");
	KUNIT_EXPECT_EQ(test, req->qid, 9);
	KUNIT_EXPECT_FALSE(test, req->has_uid);
	/* the defaults: mediated, Read only, whole namespace */
	KUNIT_EXPECT_EQ(test, p->mode, NVME_PEER_MEDIATED);
	KUNIT_EXPECT_EQ(test, p->policy.opcodes, 0U);
	KUNIT_EXPECT_EQ(test, p->policy.nr_extents, 0U);
	KUNIT_EXPECT_NULL(test, p->policy.extents);

	KUNIT_ASSERT_EQ(test, np_parse(test, "  nsid=2\tdepth=2 uid=1000 gid=0 ",
				       req), 0);
	KUNIT_EXPECT_EQ(test, p->nsid, 2U);
	KUNIT_EXPECT_EQ(test, p->depth, 2U);
	KUNIT_EXPECT_TRUE(test, req->has_uid && req->has_gid);
	KUNIT_EXPECT_EQ(test, req->uid, 1000U);
	KUNIT_EXPECT_EQ(test, req->gid, 0U);
	KUNIT_ASSERT_EQ(test, np_parse(test, "nsid=3", req), 0);
	KUNIT_EXPECT_EQ(test, p->depth, 64U);
	KUNIT_EXPECT_EQ(test, p->sq, NVME_PEER_MEM_HOST);
	KUNIT_EXPECT_EQ(test, p->data, NVME_PEER_MEM_NONE);
	KUNIT_EXPECT_STREQ(test, req->peer, "");
	KUNIT_EXPECT_EQ(test, req->qid, 0);
	KUNIT_EXPECT_FALSE(test, req->has_uid || req->has_gid);

	KUNIT_ASSERT_EQ(test, np_parse(test, "nsid=1 mode=direct", req), 0);
	KUNIT_EXPECT_EQ(test, p->mode, NVME_PEER_DIRECT);
	KUNIT_ASSERT_EQ(test, np_parse(test, med, req), 0);
	KUNIT_EXPECT_EQ(test, p->mode, NVME_PEER_MEDIATED);
	KUNIT_EXPECT_EQ(test, p->policy.opcodes,
			NVME_PEER_OP_READ | NVME_PEER_OP_WRITE |
			NVME_PEER_OP_FLUSH);
	KUNIT_EXPECT_EQ(test, p->policy.max_nlb, 8U);
	KUNIT_ASSERT_EQ(test, p->policy.nr_extents, 2U);
	KUNIT_EXPECT_PTR_EQ(test, p->policy.extents,
			    (const struct nvme_peer_extent *)req->extents);
	KUNIT_EXPECT_EQ(test, req->extents[0].slba, 0ULL);
	KUNIT_EXPECT_EQ(test, req->extents[0].nlb, 16ULL);
	KUNIT_EXPECT_EQ(test, req->extents[1].slba, 0x100ULL);
	KUNIT_EXPECT_EQ(test, req->extents[1].nlb, 1ULL);
	KUNIT_ASSERT_EQ(test, np_parse(test, "ops=dsm,write_zeroes", req), 0);
	KUNIT_EXPECT_EQ(test, p->policy.opcodes,
			NVME_PEER_OP_DSM | NVME_PEER_OP_WRITE_ZEROES);
}

/* NP_CREATE_MAX_EXTENTS lba= keys parse, one more does not */
static void np_test_parse_extents_max(struct kunit *test)
{
	size_t len = (NP_CREATE_MAX_EXTENTS + 1) * 24;
	struct np_create_req *req = kunit_kzalloc(test, sizeof(*req),
						  GFP_KERNEL);
	char *buf = kunit_kzalloc(test, len, GFP_KERNEL);
	char *end;
	int i, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < NP_CREATE_MAX_EXTENTS; i++)
		n += scnprintf(buf + n, len - n, "lba=%d+2 ", 4 * i);
	end = buf + n;
	KUNIT_ASSERT_EQ(test, np_parse(test, buf, req), 0);
	KUNIT_EXPECT_EQ(test, req->p.policy.nr_extents,
			(u32)NP_CREATE_MAX_EXTENTS);
	KUNIT_EXPECT_EQ(test, req->extents[NP_CREATE_MAX_EXTENTS - 1].slba,
			4ULL * (NP_CREATE_MAX_EXTENTS - 1));
	scnprintf(end, len - n, "lba=9999+1");
	KUNIT_EXPECT_EQ(test, np_parse(test, buf, req), -EINVAL);
}

static void np_test_parse_bad(struct kunit *test)
{
	static const char * const bad[] = {
		"nsid=1 bogus=2",		/* unknown key */
		"nsid=1 nsid=2",		/* repeated key */
		"nsid",				/* no value */
		"nsid=",			/* empty value */
		"nsid=one",			/* not a number */
		"nsid=0x100000000",		/* too big */
		"depth=-1",
		"sq=gpu",			/* unknown placement */
		"data_size=0x4000001",		/* over 64 MiB */
		"qid=0",
		"qid=65536",
		"peer=0123456789012345678901234567890123456789",
		"uid=-1",
		"gid=4294967295",
		"uid=x",
		"mode=raw",			/* unknown mode */
		"mode=direct mode=direct",
		"ops=read,admin",		/* unknown opcode name */
		"ops=read,read",		/* repeated opcode */
		"ops=read,",			/* empty opcode name */
		"ops=read ops=write",
		"max_nlb=0",
		"max_nlb=0x100000000",
		"lba=5",			/* no count */
		"lba=5+0",			/* empty extent */
		"lba=+5",
		"lba=1+0xffffffffffffffff",	/* wraps past 2^64 */
		"lba=-1+1",
	};
	struct np_create_req *req = kunit_kzalloc(test, sizeof(*req),
						  GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, req);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, np_parse(test, bad[i], req), -EINVAL,
				    "input '%s'", bad[i]);
}

/* ---- qid allocator ---------------------------------------------------------- */

static void np_test_qid_alloc(struct kunit *test)
{
	unsigned long *map = bitmap_zalloc(NP_QID_BITS, GFP_KERNEL);
	int i, qid;

	KUNIT_ASSERT_NOT_NULL(test, map);
	for (i = 0; i < 8; i++)
		KUNIT_EXPECT_EQ(test, np_qid_alloc(map, 3, 8, 0), 3 + i);
	KUNIT_EXPECT_EQ(test, np_qid_alloc(map, 3, 8, 0), -ENOSPC);
	np_qid_free(map, 6);
	KUNIT_EXPECT_EQ(test, np_qid_alloc(map, 3, 8, 0), 6);
	KUNIT_EXPECT_EQ(test, np_qid_alloc(map, 3, 8, 6), -EBUSY);
	KUNIT_EXPECT_EQ(test, np_qid_alloc(map, 3, 8, 2), -EINVAL);
	KUNIT_EXPECT_EQ(test, np_qid_alloc(map, 3, 8, 11), -EINVAL);
	np_qid_free(map, 10);
	KUNIT_EXPECT_EQ(test, np_qid_alloc(map, 3, 8, 10), 10);
	/* nothing outside the range was touched */
	KUNIT_EXPECT_EQ(test, bitmap_weight(map, NP_QID_BITS), 8U);
	KUNIT_EXPECT_EQ(test, np_qid_alloc(map, 3, 0, 0), -ENOSPC);

	/* the last qid of the bitmap (qids are u16: no range runs past it) */
	qid = np_qid_alloc(map, NP_QID_BITS - 1, 1, 0);
	KUNIT_EXPECT_EQ(test, qid, NP_QID_BITS - 1);
	KUNIT_EXPECT_EQ(test, np_qid_alloc(map, NP_QID_BITS - 1, 1, 0), -ENOSPC);

	/* many reserve/release cycles leak nothing */
	for (i = 0; i < 10000; i++) {
		qid = np_qid_alloc(map, 100, 16, 0);
		KUNIT_ASSERT_EQ(test, qid, 100);
		np_qid_free(map, qid);
	}
	KUNIT_EXPECT_EQ(test, bitmap_weight(map, NP_QID_BITS), 9U);
	bitmap_free(map);
}

/* ---- doorbells ---------------------------------------------------------------- */

struct np_db_case {
	u32 stride;		/* in 32-bit words, as CAP.DSTRD gives it */
	u16 qid;
	u32 sq_off, cq_off;	/* in the region */
	size_t size;
};

/*
 * The doorbell region of a direct queue: both doorbells inside it, also
 * when the stride puts the CQ head doorbell pages after the SQ tail.
 */
static void np_test_db_region(struct kunit *test)
{
	static const struct np_db_case cases[] = {
		{ 1, 1, 0x008, 0x00c, PAGE_SIZE },	/* QEMU: 4 bytes */
		{ 1, 9, 0x048, 0x04c, PAGE_SIZE },
		{ 1, 511, 0xff8, 0xffc, PAGE_SIZE },	/* the page's end */
		{ 1, 512, 0x000, 0x004, PAGE_SIZE },	/* the next page */
		{ 512, 1, 0x000, 0x800, PAGE_SIZE },	/* 2 KiB stride */
		{ 1024, 1, 0x000, 0x1000, 2 * PAGE_SIZE }, /* 4 KiB */
		{ 2048, 3, 0x000, 0x2000, 3 * PAGE_SIZE }, /* 8 KiB */
	};
	struct nvme_pci_peer_info info = { .bar_phys = 0xfe000000 };
	struct np_db_region r;
	int i;

	for (i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct np_db_case *c = &cases[i];

		info.db_stride = c->stride;
		np_db_region(&info, c->qid, &r);
		KUNIT_EXPECT_EQ_MSG(test, r.sq_off, c->sq_off, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.cq_off, c->cq_off, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.size, c->size, "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.phys + r.sq_off,
				    info.bar_phys + np_db_off(&info, c->qid, false),
				    "case %d", i);
		KUNIT_EXPECT_EQ_MSG(test, r.phys + r.cq_off,
				    info.bar_phys + np_db_off(&info, c->qid, true),
				    "case %d", i);
		KUNIT_EXPECT_TRUE(test, PAGE_ALIGNED(r.phys));
	}
}

static struct kunit_case nvme_peer_cases[] = {
	KUNIT_CASE_PARAM(np_test_transition, np_trans_gen_params),
	KUNIT_CASE(np_test_notify_once),
	KUNIT_CASE(np_test_revoke_during_create),
	KUNIT_CASE(np_test_names),
	KUNIT_CASE_PARAM(np_test_validate, np_validate_gen_params),
	KUNIT_CASE(np_test_parse_good),
	KUNIT_CASE(np_test_parse_bad),
	KUNIT_CASE(np_test_parse_extents_max),
	KUNIT_CASE(np_test_qid_alloc),
	KUNIT_CASE(np_test_db_region),
	{}
};

static struct kunit_suite nvme_peer_suite = {
	.name = "nvme-peer",
	.test_cases = nvme_peer_cases,
};

kunit_test_suite(nvme_peer_suite);

MODULE_DESCRIPTION("KUnit tests for nvme-peer");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(EXPORTED_FOR_KUNIT_TESTING);
