// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_sysfs: the names sysfs (and configfs) print.
 * Included at the end of sysfs.c (the KUnit #include pattern), so it tests
 * static functions; it runs when nvme-peer loads.
 */
#include <kunit/test.h>

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
	KUNIT_EXPECT_STREQ(test, np_owner_name(NP_OWNER_ADMIN), "admin");
	KUNIT_EXPECT_STREQ(test, np_mode_name(NVME_PEER_MODE_MEDIATED), "mediated");
	KUNIT_EXPECT_STREQ(test, np_mode_name(NVME_PEER_MODE_DIRECT), "direct");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(NVME_PEER_GUARANTEE_IOMMU_SWITCH),
			   "iommu-switch");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(NVME_PEER_GUARANTEE_CPU), "cpu");
	KUNIT_EXPECT_STREQ(test, np_guarantee_name(9), "?");
}

static struct kunit_case nvme_peer_sysfs_cases[] = {
	KUNIT_CASE(np_test_names),
	{}
};

static struct kunit_suite nvme_peer_sysfs_suite = {
	.name = "nvme_peer_sysfs",
	.test_cases = nvme_peer_sysfs_cases,
};

kunit_test_suite(nvme_peer_sysfs_suite);
