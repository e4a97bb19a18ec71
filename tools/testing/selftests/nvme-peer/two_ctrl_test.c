// SPDX-License-Identifier: GPL-2.0
/*
 * Two controllers: each gets its own reserved range, peer/ directory and
 * intents, and revoking one controller's queues leaves the other's alone.
 */
#include "np_util.h"
#include "kselftest_harness.h"

TEST(controllers_are_independent)
{
	const char *p0 = np_nvme_pci(0), *p1 = np_nvme_pci(1);
	char n0[32], n1[32], path[256], buf[64];

	ASSERT_NE(NULL, p0);
	ASSERT_NE(NULL, p1);
	snprintf(n0, sizeof(n0), "%s", np_ctrl_of(p0));
	snprintf(n1, sizeof(n1), "%s", np_ctrl_of(p1));
	ASSERT_STRNE(n0, n1);

	ASSERT_EQ(0, np_cfs_make(n0, "a", "nsid=1 sq_placement=cmb"));
	ASSERT_EQ(0, np_cfs_make(n1, "a", "nsid=1 sq_placement=cmb"));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/free", n0);
	EXPECT_EQ(7, np_read_num(path));

	/*
	 * resetting the second controller revokes only its reservation,
	 * which comes back as the intent's second generation
	 */
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/reset_controller", n1);
	ASSERT_EQ(0, np_write(path, "1"));
	ASSERT_EQ(0, np_wait_for(np_cfs_path(n1, "a", "generation"), "2", 30));
	ASSERT_EQ(0, np_cfs_read(n1, "a", "state", buf, sizeof(buf)));
	EXPECT_STREQ("active", buf);
	ASSERT_EQ(0, np_cfs_read(n0, "a", "generation", buf, sizeof(buf)));
	EXPECT_STREQ("1", buf);
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/q3/state", n0);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("active", buf);

	EXPECT_EQ(0, np_cfs_remove(n0, "a"));
	EXPECT_EQ(0, np_cfs_remove(n1, "a"));
}

/*
 * The second controller's namespace 2 has 8 bytes of metadata per LBA in a
 * separate buffer: the controller would move them to MPTR, which mediated
 * mode cannot confine, so only a direct queue may use that namespace.
 */
TEST(mediated_refuses_a_namespace_with_metadata)
{
	const char *p1 = np_nvme_pci(1);
	char n1[32];

	ASSERT_NE(NULL, p1);
	snprintf(n1, sizeof(n1), "%s", np_ctrl_of(p1));
	EXPECT_EQ(-EOPNOTSUPP, np_cfs_make(n1, "m", "nsid=2 qid=4"));
	EXPECT_EQ(-EOPNOTSUPP, np_cfs_make(n1, "m", "nsid=2 mode=mediated qid=4"));
	EXPECT_EQ(0, np_cfs_make(n1, "m", "nsid=1 qid=4"));
	EXPECT_EQ(0, np_cfs_make(n1, "d", "nsid=2 mode=direct qid=5"));
	EXPECT_EQ(0, np_cfs_remove(n1, "m"));
	EXPECT_EQ(0, np_cfs_remove(n1, "d"));
}

TEST_HARNESS_MAIN
