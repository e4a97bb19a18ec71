// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_sysfs: sysfs.c's pure parts, the peer/create
 * grammar and the names sysfs prints. Included at the end of sysfs.c (the
 * KUnit #include pattern), so it tests static functions; it runs when nvme-peer loads.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/nvme.h>
#include <linux/sizes.h>
#include <linux/slab.h>

/* ---- names ------------------------------------------------------------------ */

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
	KUNIT_EXPECT_STREQ(test, np_placement_name(NVME_PEER_PLACE_CMB), "cmb");
	KUNIT_EXPECT_STREQ(test, np_mode_name(NVME_PEER_MODE_MEDIATED), "mediated");
	KUNIT_EXPECT_STREQ(test, np_mode_name(NVME_PEER_MODE_DIRECT), "direct");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(NVME_PEER_GUARANTEE_IOMMU_SWITCH),
			   "iommu-switch");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(NVME_PEER_GUARANTEE_CPU), "cpu");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(9), "?");
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
		"nsid=1 depth=0x40 sq_placement=cmb cq_placement=host\t"
		"data_placement=peer data_size=8192 peer=0:3.0 qid=9\n";
	static const char med[] =
		"nsid=1 mode=mediated opcodes=write,read,flush max_nlb=8\t"
		"extent=0+16 extent=0x100+1";
	struct np_create_req *req = kunit_kzalloc(test, sizeof(*req),
						  GFP_KERNEL);
	struct nvme_peer_params *p = &req->p;

	KUNIT_ASSERT_NOT_NULL(test, req);
	KUNIT_ASSERT_EQ(test, np_parse(test, in, req), 0);
	KUNIT_EXPECT_EQ(test, p->nsid, 1U);
	KUNIT_EXPECT_EQ(test, p->depth, 64U);
	KUNIT_EXPECT_EQ(test, p->sq_placement, NVME_PEER_PLACE_CMB);
	KUNIT_EXPECT_EQ(test, p->cq_placement, NVME_PEER_PLACE_HOST);
	KUNIT_EXPECT_EQ(test, p->data_placement, NVME_PEER_PLACE_PEER);
	KUNIT_EXPECT_EQ(test, p->data_size, (size_t)8192);
	KUNIT_EXPECT_STREQ(test, req->peer, "0:3.0");
	KUNIT_EXPECT_EQ(test, req->qid, 9);
	KUNIT_EXPECT_FALSE(test, req->has_uid);
	/* the defaults: mediated, Read only, whole namespace */
	KUNIT_EXPECT_EQ(test, p->mode, NVME_PEER_MODE_MEDIATED);
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
	KUNIT_EXPECT_EQ(test, p->sq_placement, NVME_PEER_PLACE_HOST);
	KUNIT_EXPECT_EQ(test, p->data_placement, NVME_PEER_PLACE_NONE);
	KUNIT_EXPECT_STREQ(test, req->peer, "");
	KUNIT_EXPECT_EQ(test, req->qid, 0);
	KUNIT_EXPECT_FALSE(test, req->has_uid || req->has_gid);

	KUNIT_ASSERT_EQ(test, np_parse(test, "nsid=1 mode=direct", req), 0);
	KUNIT_EXPECT_EQ(test, p->mode, NVME_PEER_MODE_DIRECT);
	KUNIT_ASSERT_EQ(test, np_parse(test, med, req), 0);
	KUNIT_EXPECT_EQ(test, p->mode, NVME_PEER_MODE_MEDIATED);
	KUNIT_EXPECT_EQ(test, p->policy.opcodes,
			NVME_PEER_OPCODE_READ | NVME_PEER_OPCODE_WRITE |
			NVME_PEER_OPCODE_FLUSH);
	KUNIT_EXPECT_EQ(test, p->policy.max_nlb, 8U);
	KUNIT_ASSERT_EQ(test, p->policy.nr_extents, 2U);
	KUNIT_EXPECT_PTR_EQ(test, p->policy.extents,
			    (const struct nvme_peer_extent *)req->extents);
	KUNIT_EXPECT_EQ(test, req->extents[0].slba, 0ULL);
	KUNIT_EXPECT_EQ(test, req->extents[0].nlb, 16ULL);
	KUNIT_EXPECT_EQ(test, req->extents[1].slba, 0x100ULL);
	KUNIT_EXPECT_EQ(test, req->extents[1].nlb, 1ULL);
	KUNIT_ASSERT_EQ(test, np_parse(test, "opcodes=dsm,write_zeroes", req), 0);
	KUNIT_EXPECT_EQ(test, p->policy.opcodes,
			NVME_PEER_OPCODE_DSM | NVME_PEER_OPCODE_WRITE_ZEROES);

	/* file=: read by default; no len= means "to the end of the file" */
	KUNIT_ASSERT_EQ(test, np_parse(test, "nsid=2 file=/f off=4096", req), 0);
	KUNIT_EXPECT_STREQ(test, req->file, "/f");
	KUNIT_EXPECT_EQ(test, p->file.access, NVME_PEER_ACCESS_READ);
	KUNIT_EXPECT_EQ(test, p->file.off, 4096ULL);
	KUNIT_EXPECT_FALSE(test, req->has_len);
	KUNIT_ASSERT_EQ(test, np_parse(test, "nsid=2 file=/f len=0 access=rw",
				       req), 0);
	KUNIT_EXPECT_TRUE(test, req->has_len);
	KUNIT_EXPECT_EQ(test, p->file.len, 0ULL);
	KUNIT_EXPECT_EQ(test, p->file.access,
			NVME_PEER_ACCESS_READ | NVME_PEER_ACCESS_WRITE);
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
		n += scnprintf(buf + n, len - n, "extent=%d+2 ", 4 * i);
	end = buf + n;
	KUNIT_ASSERT_EQ(test, np_parse(test, buf, req), 0);
	KUNIT_EXPECT_EQ(test, req->p.policy.nr_extents,
			(u32)NP_CREATE_MAX_EXTENTS);
	KUNIT_EXPECT_EQ(test, req->extents[NP_CREATE_MAX_EXTENTS - 1].slba,
			4ULL * (NP_CREATE_MAX_EXTENTS - 1));
	scnprintf(end, len - n, "extent=9999+1");
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
		"sq_placement=gpu",		/* unknown placement */
		"data_size=0x4000001",		/* over 64 MiB */
		"qid=0",
		"qid=65536",
		"peer=0123456789012345678901234567890123456789",
		"uid=-1",
		"gid=4294967295",
		"uid=x",
		"mode=raw",			/* unknown mode */
		"mode=direct mode=direct",
		"opcodes=read,admin",		/* unknown opcode name */
		"opcodes=read,read",		/* repeated opcode */
		"opcodes=read,",		/* empty opcode name */
		"opcodes=read opcodes=write",
		"max_nlb=0",
		"max_nlb=0x100000000",
		"extent=5",			/* no count */
		"extent=5+0",			/* empty extent */
		"extent=+5",
		"extent=1+0xffffffffffffffff",	/* wraps past 2^64 */
		"extent=-1+1",
		"sq=host",			/* the old names are gone */
		"ops=read",
		"lba=0+1",
	};
	struct np_create_req *req = kunit_kzalloc(test, sizeof(*req),
						  GFP_KERNEL);
	int i;

	KUNIT_ASSERT_NOT_NULL(test, req);
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		KUNIT_EXPECT_EQ_MSG(test, np_parse(test, bad[i], req), -EINVAL,
				    "input '%s'", bad[i]);
}

static struct kunit_case nvme_peer_sysfs_cases[] = {
	KUNIT_CASE(np_test_names),
	KUNIT_CASE(np_test_parse_good),
	KUNIT_CASE(np_test_parse_bad),
	KUNIT_CASE(np_test_parse_extents_max),
	{}
};

static struct kunit_suite nvme_peer_sysfs_suite = {
	.name = "nvme_peer_sysfs",
	.test_cases = nvme_peer_sysfs_cases,
};

kunit_test_suite(nvme_peer_sysfs_suite);
