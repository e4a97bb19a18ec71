// SPDX-License-Identifier: GPL-2.0
/*
 * Two controllers: each gets its own reserved range and peer/ directory,
 * and revoking one controller's queues leaves the other's alone.
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

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/create", n0);
	ASSERT_EQ(0, np_write(path, "nsid=1 sq_placement=cmb"));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/create", n1);
	ASSERT_EQ(0, np_write(path, "nsid=1 sq_placement=cmb"));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/free", n0);
	EXPECT_EQ(7, np_read_num(path));

	/* resetting the second controller revokes only its reservation */
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/reset_controller", n1);
	ASSERT_EQ(0, np_write(path, "1"));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/live", n1);
	ASSERT_EQ(0, np_wait_for(path, "1", 30));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/q3/state", n1);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("revoked", buf);
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/q3/state", n0);
	ASSERT_EQ(0, np_read(path, buf, sizeof(buf)));
	EXPECT_STREQ("active", buf);

	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/delete", n0);
	EXPECT_EQ(0, np_write(path, "3"));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/delete", n1);
	EXPECT_EQ(0, np_write(path, "3"));
}

/*
 * The second controller's namespace 2 has 8 bytes of metadata per LBA in a
 * separate buffer: the controller would move them to MPTR, which mediated
 * mode cannot confine, so only a direct queue may use that namespace.
 */
TEST(mediated_refuses_a_namespace_with_metadata)
{
	const char *p1 = np_nvme_pci(1);
	char path[256];

	ASSERT_NE(NULL, p1);
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/create",
		 np_ctrl_of(p1));
	EXPECT_EQ(-EOPNOTSUPP, np_write(path, "nsid=2 qid=4"));
	EXPECT_EQ(-EOPNOTSUPP, np_write(path, "nsid=2 mode=mediated qid=4"));
	EXPECT_EQ(0, np_write(path, "nsid=1 qid=4"));
	EXPECT_EQ(0, np_write(path, "nsid=2 mode=direct qid=5"));
	snprintf(path, sizeof(path), "/sys/class/nvme/%s/peer/delete",
		 np_ctrl_of(p1));
	EXPECT_EQ(0, np_write(path, "4"));
	EXPECT_EQ(0, np_write(path, "5"));
}

TEST_HARNESS_MAIN
