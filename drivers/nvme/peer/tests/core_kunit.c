// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_core: core.c's pure parts, parameter validation,
 * the qid allocator and what a reservation keeps of its parameters.
 * Included at the end of core.c (the KUnit #include pattern), so it tests
 * static functions; it runs when nvme-peer loads.
 */
#include <kunit/test.h>
#include <linux/bitmap.h>
#include <linux/cred.h>
#include <linux/nvme.h>
#include <linux/sizes.h>
#include <linux/slab.h>

/* ---- parameter validation ------------------------------------------------- */

#define NP_CMB_ALL (NVME_CMBSZ_SQS | NVME_CMBSZ_CQS | NVME_CMBSZ_RDS | \
		    NVME_CMBSZ_WDS)
#define NP_CMB_QEMU (NVME_CMBSZ_SQS | NVME_CMBSZ_LISTS | NVME_CMBSZ_RDS | \
		     NVME_CMBSZ_WDS)
/* a stand-in peer, never dereferenced */
static char np_some_peer;
#define NP_SOME_PEER ((struct pci_dev *)&np_some_peer)
/* a stand-in file, never dereferenced (isolated mode refuses it first) */
static char np_some_file;
#define NP_SOME_FILE ((struct file *)&np_some_file)

struct np_validate_case {
	const char *name;
	struct nvme_peer_params p;
	u32 cmbsz;
	int ret;
};

/* nsid, depth, sq, cq, data placement, data size, with a peer */
#define NP_P(n, d, s, c, dt, sz, pe) {					\
	.nsid = n, .depth = d, .sq_placement = s, .cq_placement = c,	\
	.data_placement = dt,						\
	.data_size = sz, .peer = (pe) ? NP_SOME_PEER : NULL }
/* the same in direct mode */
#define NP_PD(n, d, s, c, dt, sz, pe) {					\
	.nsid = n, .depth = d, .sq_placement = s, .cq_placement = c,	\
	.data_placement = dt,						\
	.data_size = sz, .peer = (pe) ? NP_SOME_PEER : NULL,		\
	.mode = NVME_PEER_MODE_DIRECT }
#define HOST NVME_PEER_PLACE_HOST
#define CMB NVME_PEER_PLACE_CMB
#define PEER NVME_PEER_PLACE_PEER
#define NONE NVME_PEER_PLACE_NONE

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
	{ "mode bogus", { .nsid = 1, .depth = 64,
			  .sq_placement = NVME_PEER_PLACE_HOST,
			  .cq_placement = NVME_PEER_PLACE_HOST, .mode = 3 },
	  0, -EINVAL },
	{ "isolated", { .nsid = 1, .depth = 2048,
			.sq_placement = NVME_PEER_PLACE_HOST,
			.cq_placement = NVME_PEER_PLACE_HOST,
			.mode = NVME_PEER_MODE_ISOLATED },
	  0, 0 },
	{ "isolated with opcodes", { .nsid = 1, .depth = 64,
				     .sq_placement = NVME_PEER_PLACE_HOST,
				     .cq_placement = NVME_PEER_PLACE_HOST,
				     .mode = NVME_PEER_MODE_ISOLATED,
				     .policy.opcodes = NVME_PEER_OPCODE_READ },
	  0, -EINVAL },
	{ "isolated with max_nlb", { .nsid = 1, .depth = 64,
				     .sq_placement = NVME_PEER_PLACE_HOST,
				     .cq_placement = NVME_PEER_PLACE_HOST,
				     .mode = NVME_PEER_MODE_ISOLATED,
				     .policy.max_nlb = 8 },
	  0, -EINVAL },
	{ "isolated with a file", { .nsid = 1, .depth = 64,
				    .sq_placement = NVME_PEER_PLACE_HOST,
				    .cq_placement = NVME_PEER_PLACE_HOST,
				    .mode = NVME_PEER_MODE_ISOLATED,
				    .file.file = NP_SOME_FILE,
				    .file.len = 4096 },
	  0, -EINVAL },
	{ "direct with opcodes", { .nsid = 1, .depth = 64,
				   .sq_placement = NVME_PEER_PLACE_HOST,
				   .cq_placement = NVME_PEER_PLACE_HOST,
				   .mode = NVME_PEER_MODE_DIRECT,
				   .policy.opcodes = NVME_PEER_OPCODE_READ },
	  0, -EINVAL },
	{ "direct with max_nlb", { .nsid = 1, .depth = 64,
				   .sq_placement = NVME_PEER_PLACE_HOST,
				   .cq_placement = NVME_PEER_PLACE_HOST,
				   .mode = NVME_PEER_MODE_DIRECT,
				   .policy.max_nlb = 8 },
	  0, -EINVAL },
	{ "mediated with opcodes", { .nsid = 1, .depth = 64,
				     .sq_placement = NVME_PEER_PLACE_HOST,
				     .cq_placement = NVME_PEER_PLACE_HOST,
				     .policy.opcodes = NVME_PEER_OPCODE_READ },
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

/*
 * The gate asks each part about the fields it owns: the policy
 * (np_med_validate()) and a file binding (np_bind_validate()) are refused
 * before anything is looked up, leased or allocated.
 */
static void np_test_gate(struct kunit *test)
{
	static const struct nvme_peer_data_window overlap = {
		.addr = NVME_PEER_PRP_BASE + SZ_4K, .len = SZ_4K };
	static const struct nvme_peer_data_window after = {
		.addr = NVME_PEER_PRP_BASE + SZ_64K, .len = SZ_4K };
	struct nvme_peer_params p = NP_P(1, 64, NVME_PEER_PLACE_HOST,
					NVME_PEER_PLACE_HOST,
					NVME_PEER_PLACE_HOST, SZ_64K, 0);
	static char some_file;

	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), 0);
	p.policy.opcodes = BIT(31);
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), -EINVAL);
	p.policy.opcodes = 0;
	p.policy.nr_extents = 1;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), -EINVAL);
	p.policy.nr_extents = 0;
	p.policy.nr_windows = NVME_PEER_MAX_WINDOWS + 1;
	p.policy.windows = &after;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), -EINVAL);
	p.policy.nr_windows = 1;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), 0);
	p.policy.windows = &overlap;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), -EINVAL);
	p.policy.nr_windows = 0;
	p.policy.windows = NULL;

	/* a stand-in file, never dereferenced by the gate */
	p.file.file = (struct file *)&some_file;
	p.file.access = NVME_PEER_ACCESS_READ;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), 0);
	p.policy.opcodes = NVME_PEER_OPCODE_WRITE;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), -EACCES);
	p.file.access |= NVME_PEER_ACCESS_WRITE;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), 0);
	p.file.access = NVME_PEER_ACCESS_WRITE;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), -EINVAL);
	p.file.access = NVME_PEER_ACCESS_READ;
	p.policy.opcodes = BIT(31);	/* unknown: not a reader's either */
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), -EACCES);
	p.policy.opcodes = 0;
	p.mode = NVME_PEER_MODE_DIRECT;
	KUNIT_EXPECT_EQ(test, np_validate_params(&p, 2048, 0), -EINVAL);
}

/*
 * Who may drive a queue without the guard, the one answer: mediated is
 * anyone's; a new direct queue needs allow_direct, even for the kernel;
 * a process needs CAP_SYS_RAWIO for direct and isolated queues, to
 * reserve and to attach; the kernel's peer drivers do not.
 */
static void np_test_unguarded(struct kunit *test)
{
	const enum nvme_peer_mode med = NVME_PEER_MODE_MEDIATED,
		dir = NVME_PEER_MODE_DIRECT, iso = NVME_PEER_MODE_ISOLATED;
	bool saved = READ_ONCE(allow_direct);
	const struct cred *old;
	struct cred *c;

	WRITE_ONCE(allow_direct, false);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(med, NP_OWNER_PROCESS, true), 0);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(dir, NP_OWNER_KERNEL, true),
			-EPERM);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(dir, NP_OWNER_PROCESS, false), 0);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(iso, NP_OWNER_PROCESS, true), 0);
	WRITE_ONCE(allow_direct, true);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(dir, NP_OWNER_PROCESS, true), 0);

	c = prepare_creds();
	KUNIT_ASSERT_NOT_NULL(test, c);
	cap_lower(c->cap_effective, CAP_SYS_RAWIO);
	old = override_creds(c);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(med, NP_OWNER_PROCESS, true), 0);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(dir, NP_OWNER_PROCESS, true),
			-EPERM);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(dir, NP_OWNER_PROCESS, false),
			-EPERM);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(iso, NP_OWNER_PROCESS, false),
			-EPERM);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(iso, NP_OWNER_KERNEL, true), 0);
	KUNIT_EXPECT_EQ(test, np_unguarded_check(dir, NP_OWNER_KERNEL, true), 0);
	revert_creds(old);
	put_cred(c);
	WRITE_ONCE(allow_direct, saved);
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

/* ---- the reservation's copy of the parameters ------------------------------ */

/* a stand-in dma-buf, never dereferenced */
static char np_some_dmabuf;
#define NP_SOME_DMABUF ((struct dma_buf *)&np_some_dmabuf)

/*
 * A reservation keeps the caller's values, not the caller's pointers: the
 * peer, the file and each dma-buf are q->peer's, the binding's and the
 * imports' (references of their own), and a pointer kept beside them
 * would outlive the caller's.
 */
static void np_test_params_keep(struct kunit *test)
{
	struct nvme_peer_params p = NP_P(1, 64, NVME_PEER_PLACE_DMABUF,
					 NVME_PEER_PLACE_DMABUF,
					 NVME_PEER_PLACE_DMABUF, SZ_64K, 1);
	struct nvme_peer_params kept;

	p.file = (struct nvme_peer_file){ NP_SOME_FILE, 4096, 8192,
					  NVME_PEER_ACCESS_READ };
	p.sq_buf = (struct nvme_peer_dmabuf_range){ NP_SOME_DMABUF, 0, 4096 };
	p.cq_buf = (struct nvme_peer_dmabuf_range){ NP_SOME_DMABUF, 4096,
						    4096 };
	p.data_buf = (struct nvme_peer_dmabuf_range){ NP_SOME_DMABUF, 8192,
						      SZ_64K };
	np_params_keep(&kept, &p);
	KUNIT_EXPECT_NULL(test, kept.peer);
	KUNIT_EXPECT_NULL(test, kept.file.file);
	KUNIT_EXPECT_NULL(test, kept.sq_buf.dmabuf);
	KUNIT_EXPECT_NULL(test, kept.cq_buf.dmabuf);
	KUNIT_EXPECT_NULL(test, kept.data_buf.dmabuf);
	/* the values stay: sysfs and QUERY show them */
	KUNIT_EXPECT_EQ(test, kept.nsid, 1U);
	KUNIT_EXPECT_EQ(test, kept.depth, 64U);
	KUNIT_EXPECT_EQ(test, kept.file.off, 4096ULL);
	KUNIT_EXPECT_EQ(test, kept.file.len, 8192ULL);
	KUNIT_EXPECT_EQ(test, kept.cq_buf.offset, 4096ULL);
	KUNIT_EXPECT_EQ(test, kept.data_buf.length, (u64)SZ_64K);
	KUNIT_EXPECT_EQ(test, kept.data_placement, NVME_PEER_PLACE_DMABUF);
	/* and the caller's are the caller's */
	KUNIT_EXPECT_PTR_EQ(test, p.data_buf.dmabuf, NP_SOME_DMABUF);
	KUNIT_EXPECT_PTR_EQ(test, p.file.file, NP_SOME_FILE);
}

static struct kunit_case nvme_peer_core_cases[] = {
	KUNIT_CASE_PARAM(np_test_validate, np_validate_gen_params),
	KUNIT_CASE(np_test_gate),
	KUNIT_CASE(np_test_unguarded),
	KUNIT_CASE(np_test_qid_alloc),
	KUNIT_CASE(np_test_params_keep),
	{}
};

static struct kunit_suite nvme_peer_core_suite = {
	.name = "nvme_peer_core",
	.test_cases = nvme_peer_core_cases,
};

kunit_test_suite(nvme_peer_core_suite);
