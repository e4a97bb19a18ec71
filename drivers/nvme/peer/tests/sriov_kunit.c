// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_sriov: sriov.c's command encodings, the parsing
 * of the Secondary Controller List, of Identify NSID lists and Controller
 * Lists, against the NVMe 2.0 layouts, and the decision that a secondary
 * controller has exactly the tenant's namespace attached.
 * Included at the end of sriov.c; runs when nvme-peer loads.
 */
#include <kunit/test.h>

static void np_test_sriov_layout(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, sizeof(struct np_id_primary_caps), 4096);
	KUNIT_EXPECT_EQ(test, offsetof(struct np_id_primary_caps, vqfrt), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct np_id_primary_caps, vqfrsm), 44);
	KUNIT_EXPECT_EQ(test, offsetof(struct np_id_primary_caps, vifrt), 64);
	KUNIT_EXPECT_EQ(test, offsetof(struct np_id_primary_caps, vifrsm), 76);
	KUNIT_EXPECT_EQ(test, sizeof(struct np_id_secondary_entry), 32);
	KUNIT_EXPECT_EQ(test, offsetof(struct np_id_secondary_entry, vfn), 8);
	KUNIT_EXPECT_EQ(test, offsetof(struct np_id_secondary_entry, nvi), 12);
	KUNIT_EXPECT_EQ(test, sizeof(struct np_id_secondary_list), 4096);
	KUNIT_EXPECT_EQ(test, sizeof(struct np_ctrl_list), 4096);
}

static void np_test_sriov_cdw10(struct kunit *test)
{
	/* ACT 3:0, RT 10:8, CNTLID 31:16 */
	KUNIT_EXPECT_EQ(test, np_virt_mgmt_cdw10(NP_VIRT_SEC_ASSIGN,
						 NP_VIRT_RES_VI, 0x1234),
			0x12340108U);
	KUNIT_EXPECT_EQ(test, np_virt_mgmt_cdw10(NP_VIRT_SEC_ONLINE, 0, 2),
			0x00020009U);
	KUNIT_EXPECT_EQ(test, np_virt_mgmt_cdw10(NP_VIRT_SEC_OFFLINE, 0, 0xffff),
			0xffff0007U);
	/* out-of-range fields do not spill into their neighbours */
	KUNIT_EXPECT_EQ(test, np_virt_mgmt_cdw10(0x1f, 0xf, 0), 0x0000070fU);
	/* SEL 3:0: 0 attach, 1 detach */
	KUNIT_EXPECT_EQ(test, np_ns_attach_cdw10(true), 0U);
	KUNIT_EXPECT_EQ(test, np_ns_attach_cdw10(false), 1U);
}

static void np_test_sriov_parse(struct kunit *test)
{
	struct np_id_secondary_list *l;
	struct np_sriov_sec *sec;

	l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);
	sec = kunit_kcalloc(test, NP_SRIOV_MAX_SECONDARY, sizeof(*sec),
			    GFP_KERNEL);
	KUNIT_ASSERT_NOT_NULL(test, l);
	KUNIT_ASSERT_NOT_NULL(test, sec);
	l->numid = 4;
	l->sc[0] = (struct np_id_secondary_entry){
		.scid = cpu_to_le16(1), .pcid = cpu_to_le16(0), .scs = 1,
		.vfn = cpu_to_le16(1), .nvq = cpu_to_le16(4),
		.nvi = cpu_to_le16(2) };
	l->sc[1] = (struct np_id_secondary_entry){
		.scid = cpu_to_le16(0x102), .scs = 0xfe,
		.vfn = cpu_to_le16(2) };
	/* at most @max entries are decoded */
	KUNIT_EXPECT_EQ(test, np_sriov_parse_list(l, sec, 3), 3U);
	KUNIT_EXPECT_EQ(test, sec[0].cntlid, 1);
	KUNIT_EXPECT_TRUE(test, sec[0].online);
	KUNIT_EXPECT_EQ(test, sec[0].vfn, 1);
	KUNIT_EXPECT_EQ(test, sec[0].nvq, 4);
	KUNIT_EXPECT_EQ(test, sec[0].nvi, 2);
	KUNIT_EXPECT_EQ(test, sec[1].cntlid, 0x102);
	/* SCS: only bit 0 says online */
	KUNIT_EXPECT_FALSE(test, sec[1].online);
	KUNIT_EXPECT_EQ(test, sec[1].vfn, 2);
	/* a count beyond the 127 entries a list holds is clamped */
	l->numid = 255;
	KUNIT_EXPECT_EQ(test, np_sriov_parse_list(l, sec, NP_SRIOV_MAX_SECONDARY + 1),
			(unsigned int)NP_SRIOV_MAX_SECONDARY);
	l->numid = 0;
	KUNIT_EXPECT_EQ(test, np_sriov_parse_list(l, sec, 3), 0U);
}

static void np_test_sriov_nslist(struct kunit *test)
{
	__le32 ids[6] = { cpu_to_le32(1), cpu_to_le32(3), cpu_to_le32(4),
			  cpu_to_le32(0), cpu_to_le32(7), cpu_to_le32(9) };

	/* the list ends at the first 0 */
	KUNIT_EXPECT_EQ(test, np_nslist_count(ids, 6, 0), 3U);
	/* at most @max entries */
	KUNIT_EXPECT_EQ(test, np_nslist_count(ids, 2, 0), 2U);
	/* a page asked for from above NSID 1 starts above it */
	KUNIT_EXPECT_EQ(test, np_nslist_count(ids, 6, 1), 0U);
	/* an NSID that does not ascend ends it: no endless paging */
	ids[2] = cpu_to_le32(3);
	KUNIT_EXPECT_EQ(test, np_nslist_count(ids, 6, 0), 2U);
	ids[0] = cpu_to_le32(0);
	KUNIT_EXPECT_EQ(test, np_nslist_count(ids, 6, 0), 0U);
}

static void np_test_sriov_ctrl_list(struct kunit *test)
{
	struct np_ctrl_list *l = kunit_kzalloc(test, sizeof(*l), GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, l);
	KUNIT_EXPECT_FALSE(test, np_ctrl_list_has(l, 0));
	l->num = cpu_to_le16(3);
	l->ids[0] = cpu_to_le16(2);
	l->ids[1] = cpu_to_le16(3);
	l->ids[2] = cpu_to_le16(0x102);
	KUNIT_EXPECT_TRUE(test, np_ctrl_list_has(l, 2));
	/* not only the first entry: a controller that ignores CNTID */
	KUNIT_EXPECT_TRUE(test, np_ctrl_list_has(l, 0x102));
	KUNIT_EXPECT_FALSE(test, np_ctrl_list_has(l, 1));
	/* entries past the count are not read */
	l->ids[3] = cpu_to_le16(4);
	KUNIT_EXPECT_FALSE(test, np_ctrl_list_has(l, 4));
	/* a count beyond the list is clamped */
	l->num = cpu_to_le16(0xffff);
	l->ids[NP_CTRL_LIST_MAX - 1] = cpu_to_le16(9);
	KUNIT_EXPECT_TRUE(test, np_ctrl_list_has(l, 9));
}

static void np_test_sriov_exactly(struct kunit *test)
{
	u32 att[4] = { 2, 3, 4, 0 };

	/* the tenant's, nothing else */
	KUNIT_EXPECT_TRUE(test, np_sriov_exactly(att + 1, 1, 3));
	KUNIT_EXPECT_FALSE(test, np_sriov_exactly(att, 2, 3));
	KUNIT_EXPECT_FALSE(test, np_sriov_exactly(att, 1, 3));
	/* the tenant's missing is not exactly it */
	KUNIT_EXPECT_FALSE(test, np_sriov_exactly(att, 0, 3));
	/* keep 0: nothing attached */
	KUNIT_EXPECT_TRUE(test, np_sriov_exactly(att, 0, 0));
	KUNIT_EXPECT_FALSE(test, np_sriov_exactly(att, 1, 0));
	/* more attached than were seen is never exactly */
	KUNIT_EXPECT_FALSE(test, np_sriov_exactly(att + 1, NP_SRIOV_MAX_ATTACHED + 1, 3));

	/* strangers: everything but the tenant's, to the front */
	KUNIT_EXPECT_EQ(test, np_sriov_strangers(att, 3, 3), 2U);
	KUNIT_EXPECT_EQ(test, att[0], 2U);
	KUNIT_EXPECT_EQ(test, att[1], 4U);
	att[0] = 2;
	att[1] = 3;
	att[2] = 4;
	KUNIT_EXPECT_EQ(test, np_sriov_strangers(att, 3, 0), 3U);
	KUNIT_EXPECT_EQ(test, np_sriov_strangers(att, 0, 0), 0U);
	att[0] = 5;
	KUNIT_EXPECT_EQ(test, np_sriov_strangers(att, 1, 5), 0U);
}

static struct kunit_case nvme_peer_sriov_cases[] = {
	KUNIT_CASE(np_test_sriov_layout),
	KUNIT_CASE(np_test_sriov_cdw10),
	KUNIT_CASE(np_test_sriov_parse),
	KUNIT_CASE(np_test_sriov_nslist),
	KUNIT_CASE(np_test_sriov_ctrl_list),
	KUNIT_CASE(np_test_sriov_exactly),
	{}
};

static struct kunit_suite nvme_peer_sriov_suite = {
	.name = "nvme_peer_sriov",
	.test_cases = nvme_peer_sriov_cases,
};

kunit_test_suite(nvme_peer_sriov_suite);
