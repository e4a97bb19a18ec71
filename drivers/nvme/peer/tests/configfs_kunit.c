// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_configfs: an intent's attributes as configfs
 * calls them (store, then show), without a controller: what each accepts,
 * that it reads back as written, what it refuses, and that nothing changes
 * while the intent is enabled.  Included at the end of configfs.c (the
 * KUnit #include pattern); it runs when nvme-peer loads.
 */
#include <kunit/test.h>

/* The controller directory the suite's intents are made in (no controller) */
#define NP_TEST_CTRL "nvme9999"

/*
 * A disabled intent named "kunit" in a directory NP_TEST_CTRL of its own,
 * both on nvme-peer's lists until np_test_res_drop().
 */
static struct np_cfs_res *np_test_res(struct kunit *test)
{
	struct config_group *g = np_cfs_ctrl_make(NULL, NP_TEST_CTRL);
	struct config_item *item;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	item = np_cfs_res_make(g, "kunit");
	if (IS_ERR_OR_NULL(item))
		np_cfs_ctrl_drop(NULL, &g->cg_item);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, item);
	KUNIT_EXPECT_STREQ(test, to_res(item)->ctrl, NP_TEST_CTRL);
	return to_res(item);
}

static void np_test_res_drop(struct np_cfs_res *r)
{
	struct np_cfs_ctrl *cc;

	mutex_lock(&np_cfs_lock);
	cc = np_cfs_ctrl_find(r->ctrl);
	mutex_unlock(&np_cfs_lock);
	np_cfs_res_drop(NULL, &r->item);
	if (cc)
		np_cfs_ctrl_drop(NULL, &cc->group.cg_item);
}

/* Write @val to attribute @a of @r: 0 or the store's errno. */
static int np_test_store(struct np_cfs_res *r, struct configfs_attribute *a,
			 const char *val)
{
	ssize_t ret = a->store(&r->item, val, strlen(val));

	return ret < 0 ? ret : 0;
}

static const char *np_test_show(struct kunit *test, struct np_cfs_res *r,
				struct configfs_attribute *a)
{
	char *page = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, page);
	KUNIT_ASSERT_GT(test, a->show(&r->item, page), 0);
	return page;
}

struct np_test_attr {
	struct configfs_attribute *attr;
	const char *in;		/* written */
	const char *out;	/* read back */
};

/* Every value reads back in the syntax it was written in. */
static void np_test_round_trip(struct kunit *test)
{
	static const struct np_test_attr good[] = {
		{ &np_cfs_attr_nsid, "7\n", "7\n" },
		{ &np_cfs_attr_nsid, "0x10", "16\n" },
		/* a leading 0 is decimal, not octal */
		{ &np_cfs_attr_nsid, "010", "10\n" },
		{ &np_cfs_attr_nsid, "0X1f", "31\n" },
		{ &np_cfs_attr_nsid, " 5\n", "5\n" },
		{ &np_cfs_attr_depth, "0128\n", "128\n" },
		{ &np_cfs_attr_uid, "01000", "1000\n" },
		{ &np_cfs_attr_extents, "010+08", "10+8\n" },
		{ &np_cfs_attr_peer, "10000:e1:1f.7", "10000:e1:1f.7\n" },
		{ &np_cfs_attr_depth, "1024", "1024\n" },
		{ &np_cfs_attr_sq_placement, "cmb\n", "cmb\n" },
		{ &np_cfs_attr_cq_placement, "peer", "peer\n" },
		{ &np_cfs_attr_data_placement, "none", "none\n" },
		{ &np_cfs_attr_data_size, "67108864", "67108864\n" },
		{ &np_cfs_attr_peer, "0000:03:00.0\n", "0000:03:00.0\n" },
		{ &np_cfs_attr_peer, "cpu", "cpu\n" },
		{ &np_cfs_attr_qid, "65535", "65535\n" },
		{ &np_cfs_attr_qid, "0", "0\n" },
		{ &np_cfs_attr_uid, "1000", "1000\n" },
		{ &np_cfs_attr_uid, "-1", "-1\n" },
		{ &np_cfs_attr_gid, "0", "0\n" },
		{ &np_cfs_attr_mode, "direct\n", "direct\n" },
		{ &np_cfs_attr_mode, "mediated", "mediated\n" },
		{ &np_cfs_attr_opcodes, "dsm,read", "read,dsm\n" },
		{ &np_cfs_attr_opcodes, "\n", "\n" },
		{ &np_cfs_attr_max_nlb, "256", "256\n" },
		{ &np_cfs_attr_extents, "0+8,100+1", "0+8,100+1\n" },
		{ &np_cfs_attr_extents, "18446744073709551614+1",
		  "18446744073709551614+1\n" },
		{ &np_cfs_attr_extents, "", "\n" },
		{ &np_cfs_attr_file, "/mnt/a b\n", "/mnt/a b\n" },
		{ &np_cfs_attr_file, "\n", "\n" },
		{ &np_cfs_attr_file_off, "4096", "4096\n" },
		{ &np_cfs_attr_file_len, "0", "0\n" },
		{ &np_cfs_attr_file_access, "rw", "rw\n" },
		{ &np_cfs_attr_file_access, "read", "read\n" },
	};
	struct np_cfs_res *r = np_test_res(test);
	int i;

	for (i = 0; i < ARRAY_SIZE(good); i++) {
		KUNIT_EXPECT_EQ_MSG(test, np_test_store(r, good[i].attr,
							good[i].in), 0,
				    "%s <- '%s'", good[i].attr->ca_name,
				    good[i].in);
		KUNIT_EXPECT_STREQ_MSG(test, np_test_show(test, r, good[i].attr),
				       good[i].out, "%s",
				       good[i].attr->ca_name);
	}
	KUNIT_EXPECT_STREQ(test, np_test_show(test, r, &np_cfs_attr_state),
			   "disabled\n");
	KUNIT_EXPECT_STREQ(test, np_test_show(test, r, &np_cfs_attr_live_qid),
			   "0\n");
	np_test_res_drop(r);
}

/* What each attribute refuses, with -EINVAL, leaving the value as it was. */
static void np_test_refused(struct kunit *test)
{
	static const struct np_test_attr bad[] = {
		{ &np_cfs_attr_nsid, "one" },
		{ &np_cfs_attr_nsid, "" },
		{ &np_cfs_attr_nsid, "0x100000000" },	/* -ERANGE inside */
		/* one number syntax, the command's: no sign, digits after 0x */
		{ &np_cfs_attr_nsid, "+5" },
		{ &np_cfs_attr_nsid, "0x" },
		{ &np_cfs_attr_nsid, "-0" },
		{ &np_cfs_attr_depth, "-1" },
		{ &np_cfs_attr_sq_placement, "gpu" },
		{ &np_cfs_attr_sq_placement, "dmabuf" },	/* an fd's only */
		{ &np_cfs_attr_data_size, "0x4000001" },	/* over 64 MiB */
		{ &np_cfs_attr_qid, "65536" },
		{ &np_cfs_attr_peer, "0123456789012345678901234567890123456789" },
		{ &np_cfs_attr_uid, "4294967295" },	/* (uid_t)-1 */
		{ &np_cfs_attr_uid, "x" },
		{ &np_cfs_attr_gid, "-2" },
		{ &np_cfs_attr_mode, "raw" },
		{ &np_cfs_attr_opcodes, "read,admin" },
		{ &np_cfs_attr_opcodes, "read,read" },
		{ &np_cfs_attr_opcodes, "read," },
		{ &np_cfs_attr_max_nlb, "0x100000000" },
		{ &np_cfs_attr_extents, "5" },
		{ &np_cfs_attr_extents, "5+0" },
		{ &np_cfs_attr_extents, "+5" },
		{ &np_cfs_attr_extents, "1+0xffffffffffffffff" },	/* wraps */
		{ &np_cfs_attr_extents, "-1+1" },
		{ &np_cfs_attr_extents, "0+1,," },
		{ &np_cfs_attr_file_access, "write" },
		{ &np_cfs_attr_enable, "maybe" },
		/* 0 or 1: not kstrtobool()'s words */
		{ &np_cfs_attr_enable, "yes" },
		{ &np_cfs_attr_enable, "2" },
		{ &np_cfs_attr_enable, "01" },
		/* not a PCI device name: domain:bus:slot.function, lower case */
		{ &np_cfs_attr_peer, "garbage" },
		{ &np_cfs_attr_peer, "0000:zz:00.0" },
		{ &np_cfs_attr_peer, "0000:03:00.8" },
		{ &np_cfs_attr_peer, "0000:03:20.0" },
		{ &np_cfs_attr_peer, "0000:0A:00.0" },
		{ &np_cfs_attr_peer, "0000:03:00.0x" },
		{ &np_cfs_attr_peer, "03:00.0" },
		{ &np_cfs_attr_peer, "" },
		/* a file is named from the root */
		{ &np_cfs_attr_file, "mnt/a" },
	};
	struct np_cfs_res *r = np_test_res(test);
	const char *before;
	int i;

	for (i = 0; i < ARRAY_SIZE(bad); i++) {
		before = np_test_show(test, r, bad[i].attr);
		KUNIT_EXPECT_EQ_MSG(test, np_test_store(r, bad[i].attr,
							bad[i].in), -EINVAL,
				    "%s <- '%s'", bad[i].attr->ca_name,
				    bad[i].in);
		KUNIT_EXPECT_STREQ_MSG(test, np_test_show(test, r, bad[i].attr),
				       before, "%s", bad[i].attr->ca_name);
	}
	np_test_res_drop(r);
}

/*
 * configfs hands a store at most 4095 bytes and cuts a longer write
 * silently: a value that fills the page may have been cut, and is refused
 * whole.  One byte less is taken.
 */
static void np_test_long_write(struct kunit *test)
{
	struct np_cfs_res *r = np_test_res(test);
	char *path = kunit_kzalloc(test, SZ_4K, GFP_KERNEL);

	KUNIT_ASSERT_NOT_NULL(test, path);
	memset(path, 'a', SZ_4K - 1);
	path[0] = '/';
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_file, path),
			-EINVAL);
	KUNIT_EXPECT_NULL(test, r->path);
	path[SZ_4K - 2] = '\0';
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_file, path), 0);
	KUNIT_EXPECT_EQ(test, r->path ? strlen(r->path) : 0, SZ_4K - 2);
	np_test_res_drop(r);
}

/* NP_CFS_MAX_EXTENTS extents are taken and shown whole; one more is not. */
static void np_test_extents_max(struct kunit *test)
{
	struct np_cfs_res *r = np_test_res(test);
	char *buf = kunit_kzalloc(test, PAGE_SIZE, GFP_KERNEL);
	int i, n = 0;

	KUNIT_ASSERT_NOT_NULL(test, buf);
	for (i = 0; i < NP_CFS_MAX_EXTENTS; i++)
		n += scnprintf(buf + n, PAGE_SIZE - n, "%s%llu+%llu",
			       i ? "," : "", U64_MAX / 2 + i, 1ULL << 40);
	KUNIT_ASSERT_EQ(test, np_test_store(r, &np_cfs_attr_extents, buf), 0);
	KUNIT_EXPECT_EQ(test, r->p.policy.nr_extents, (u32)NP_CFS_MAX_EXTENTS);
	KUNIT_EXPECT_PTR_EQ(test, r->p.policy.extents,
			    (const struct nvme_peer_extent *)r->extents);
	strcat(buf, "\n");
	KUNIT_EXPECT_STREQ(test, np_test_show(test, r, &np_cfs_attr_extents),
			   buf);
	buf[n] = '\0';
	strcat(buf, ",0+1");
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_extents, buf),
			-EINVAL);
	KUNIT_EXPECT_EQ(test, r->p.policy.nr_extents, (u32)NP_CFS_MAX_EXTENTS);
	np_test_res_drop(r);
}

/* While enabled the intent is fixed: every attribute write is -EBUSY. */
static void np_test_busy_while_enabled(struct kunit *test)
{
	struct np_cfs_res *r = np_test_res(test);
	struct configfs_attribute **a;

	KUNIT_ASSERT_EQ(test, np_test_store(r, &np_cfs_attr_nsid, "3"), 0);
	r->enabled = true;	/* as if enabling had reserved */
	for (a = np_cfs_res_attrs; *a; a++) {
		if (!(*a)->store || *a == &np_cfs_attr_enable)
			continue;
		KUNIT_EXPECT_EQ_MSG(test, np_test_store(r, *a, "1"), -EBUSY,
				    "%s", (*a)->ca_name);
	}
	KUNIT_EXPECT_STREQ(test, np_test_show(test, r, &np_cfs_attr_nsid),
			   "3\n");
	/* enabled with nothing reserved: down, not active */
	KUNIT_EXPECT_STREQ(test, np_test_show(test, r, &np_cfs_attr_state),
			   "down\n");
	r->enabled = false;
	np_test_res_drop(r);
}

/* Enabling without a controller: -ENODEV, nothing taken, still disabled. */
static void np_test_enable_needs_ctrl(struct kunit *test)
{
	struct np_cfs_res *r = np_test_res(test);

	/* no namespace: -EINVAL before any lookup */
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_enable, "1"),
			-EINVAL);
	/* NP_TEST_CTRL names no controller */
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_nsid, "1"), 0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_enable, "1"),
			-ENODEV);
	KUNIT_EXPECT_FALSE(test, r->enabled);
	KUNIT_EXPECT_NULL(test, r->pctrl);
	/* a file's range without a file: -EINVAL before any lookup */
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_file_off, "4096"),
			0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_enable, "1"),
			-EINVAL);
	np_test_res_drop(r);
}

/* Names: of an intent, and of a controller's directory. */
static void np_test_names_ok(struct kunit *test)
{
	static const char * const ctrl_bad[] = {
		"nvme", "nvmex", "sda", "nvme-1", "nvme1a", "nvme 1",
		"nvme123456789012",
	};
	struct config_group *g;
	int i;

	KUNIT_EXPECT_TRUE(test, np_cfs_name_ok("tenant-1.a_b"));
	KUNIT_EXPECT_TRUE(test, np_cfs_name_ok("0123456789012345678901234567890"));
	KUNIT_EXPECT_FALSE(test, np_cfs_name_ok("01234567890123456789012345678901"));
	KUNIT_EXPECT_FALSE(test, np_cfs_name_ok(""));
	KUNIT_EXPECT_FALSE(test, np_cfs_name_ok("a b"));
	KUNIT_EXPECT_FALSE(test, np_cfs_name_ok("a/b"));
	/* names a path cannot carry as a component of its own */
	KUNIT_EXPECT_FALSE(test, np_cfs_name_ok("."));
	KUNIT_EXPECT_FALSE(test, np_cfs_name_ok(".."));
	KUNIT_EXPECT_TRUE(test, np_cfs_name_ok("..."));
	KUNIT_EXPECT_TRUE(test, np_cfs_name_ok(".a"));
	KUNIT_EXPECT_FALSE(test, np_cfs_name_ok("\xc3\xa9"));
	KUNIT_EXPECT_PTR_EQ(test, np_cfs_res_make(NULL, "a b"),
			    ERR_PTR(-EINVAL));
	for (i = 0; i < ARRAY_SIZE(ctrl_bad); i++)
		KUNIT_EXPECT_PTR_EQ_MSG(test, np_cfs_ctrl_make(NULL, ctrl_bad[i]),
					ERR_PTR(-EINVAL), "%s", ctrl_bad[i]);
	g = np_cfs_ctrl_make(NULL, "nvme12");
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	np_cfs_ctrl_drop(NULL, &g->cg_item);
}

/*
 * words.c's keys are the attributes, in its order, and a new intent reads
 * back each key's default: the command's save leaves out what is the
 * default, so the kernel's and the table's must be one.
 */
static void np_test_keys(struct kunit *test)
{
	struct np_cfs_res *r = np_test_res(test);
	char def[16];
	int k;

	for (k = 0; k < NP_NKEYS; k++) {
		KUNIT_EXPECT_STREQ(test, np_cfs_res_attrs[k]->ca_name,
				   np_cfs_keys[k].name);
		snprintf(def, sizeof(def), "%s\n", np_cfs_keys[k].def);
		KUNIT_EXPECT_STREQ_MSG(test,
				       np_test_show(test, r, np_cfs_res_attrs[k]),
				       def, "%s", np_cfs_keys[k].name);
	}
	np_test_res_drop(r);
}

/*
 * A window's intent (nvme-peer/<ctrl>/windows/<name>/): the written
 * attributes are the keys np_win_key() names, in np_cfs_keys[]' order
 * (the command writes them so), then read-only ones only; enabling
 * refuses what np_win_enable_check() refuses before any lookup.
 */
static void np_test_window_intent(struct kunit *test)
{
	struct config_group *g = np_cfs_ctrl_make(NULL, NP_TEST_CTRL);
	struct configfs_attribute **a;
	struct config_item *item;
	struct np_cfs_res *r;
	int k;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, g);
	item = np_cfs_win_make(&to_cfs_ctrl(g)->windows, "kunitw");
	if (IS_ERR_OR_NULL(item))
		np_cfs_ctrl_drop(NULL, &g->cg_item);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, item);
	r = to_res(item);
	KUNIT_EXPECT_TRUE(test, r->window);
	a = np_cfs_win_attrs;
	for (k = 0; k < NP_NKEYS; k++) {
		if (!np_win_key(k))
			continue;
		KUNIT_ASSERT_NOT_NULL(test, *a);
		KUNIT_EXPECT_STREQ(test, (*a)->ca_name, np_cfs_keys[k].name);
		a++;
	}
	for (; *a; a++)
		KUNIT_EXPECT_TRUE_MSG(test, !(*a)->store, "%s", (*a)->ca_name);

	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_enable, "1"),
			-EINVAL);	/* no namespace */
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_nsid, "1"), 0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_extents, "0+8"), 0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_file, "/x"), 0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_enable, "1"),
			-EINVAL);	/* extents and a file */
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_extents, ""), 0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_file, ""), 0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_file_len, "4096"),
			0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_enable, "1"),
			-EINVAL);	/* a file's range without a file */
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_file_len, "0"), 0);
	KUNIT_EXPECT_EQ(test, np_test_store(r, &np_cfs_attr_enable, "1"),
			-ENODEV);	/* NP_TEST_CTRL names no controller */
	KUNIT_EXPECT_FALSE(test, r->enabled);
	KUNIT_EXPECT_NULL(test, r->w);
	KUNIT_EXPECT_STREQ(test, np_test_show(test, r, &np_cfs_attr_state),
			   "disabled\n");
	np_test_res_drop(r);
}

static struct kunit_case nvme_peer_configfs_cases[] = {
	KUNIT_CASE(np_test_keys),
	KUNIT_CASE(np_test_round_trip),
	KUNIT_CASE(np_test_refused),
	KUNIT_CASE(np_test_extents_max),
	KUNIT_CASE(np_test_long_write),
	KUNIT_CASE(np_test_busy_while_enabled),
	KUNIT_CASE(np_test_enable_needs_ctrl),
	KUNIT_CASE(np_test_names_ok),
	KUNIT_CASE(np_test_window_intent),
	{}
};

static struct kunit_suite nvme_peer_configfs_suite = {
	.name = "nvme_peer_configfs",
	.test_cases = nvme_peer_configfs_cases,
};

kunit_test_suite(nvme_peer_configfs_suite);
