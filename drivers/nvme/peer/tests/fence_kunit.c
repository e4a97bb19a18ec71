// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_fence: fence.c's pure parts, the reservation state
 * machine and the namespace fence's marks.  Included at the end of fence.c
 * (the KUnit #include pattern), so it tests static functions.
 */
#include <kunit/test.h>
#include <linux/dma-fence.h>

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
	{ "new+created", NP_Q_CREATING, NP_EV_CREATED, 0, NP_Q_ACTIVE, false },
	{ "new+revoke", NP_Q_CREATING, NP_EV_REVOKE, 0, NP_Q_REVOKED, false },
	{ "new+release", NP_Q_CREATING, NP_EV_RELEASE, 0, NP_Q_RELEASED, false },
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
	enum np_qstate s = NP_Q_CREATING;
	bool notify;

	KUNIT_EXPECT_EQ(test, np_qstate_next(&s, NP_EV_REVOKE, &notify), 0);
	KUNIT_EXPECT_FALSE(test, notify);
	KUNIT_EXPECT_EQ(test, np_qstate_next(&s, NP_EV_CREATED, &notify),
			-ESTALE);
	KUNIT_EXPECT_EQ(test, np_qstate_next(&s, NP_EV_RELEASE, &notify), 0);
	KUNIT_EXPECT_FALSE(test, notify);
	KUNIT_EXPECT_EQ(test, s, NP_Q_RELEASED);
}

/*
 * Two admin commands for two namespaces, each waiting for its fence: both
 * namespaces' queues are marked for the fence work, a queue of a third is
 * not, and a revoked queue the fence proved quiet is out of the way.
 */
static void np_test_ns_marks(struct kunit *test)
{
	struct nvme_peer_ctrl *pctrl = kunit_kzalloc(test, sizeof(*pctrl),
						     GFP_KERNEL);
	struct nvme_peer_queue *q = kunit_kcalloc(test, 4, sizeof(*q),
						  GFP_KERNEL);
	const u32 nsids[] = { 1, 2, 3, 1 };
	int i;

	KUNIT_ASSERT_NOT_NULL(test, pctrl);
	KUNIT_ASSERT_NOT_NULL(test, q);
	spin_lock_init(&pctrl->state_lock);
	INIT_LIST_HEAD(&pctrl->queues);
	for (i = 0; i < 4; i++) {
		q[i].pctrl = pctrl;
		q[i].params.nsid = nsids[i];
		q[i].state = NP_Q_ACTIVE;
		q[i].hw_sq = true;
		list_add_tail(&q[i].node, &pctrl->queues);
	}
	q[3].state = NP_Q_REVOKED;
	q[3].fenced = true;

	spin_lock(&pctrl->state_lock);
	KUNIT_EXPECT_FALSE(test, np_ns_mark(pctrl, 1, false));
	KUNIT_EXPECT_FALSE(test, np_ns_mark(pctrl, 2, false));
	spin_unlock(&pctrl->state_lock);
	KUNIT_EXPECT_TRUE(test, q[0].ns_fence);
	KUNIT_EXPECT_TRUE(test, q[1].ns_fence);
	KUNIT_EXPECT_FALSE(test, q[2].ns_fence);
	KUNIT_EXPECT_FALSE(test, q[3].ns_fence);

	/* fenced: revoked and proved quiet, or the hardware queue gone */
	q[0].state = NP_Q_REVOKED;
	q[0].fenced = true;
	q[1].state = NP_Q_REVOKED;
	q[1].hw_sq = false;
	spin_lock(&pctrl->state_lock);
	KUNIT_EXPECT_TRUE(test, np_ns_mark(pctrl, 1, false));
	KUNIT_EXPECT_TRUE(test, np_ns_mark(pctrl, 2, false));
	KUNIT_EXPECT_FALSE(test, np_ns_mark(pctrl, 0, true));	/* q[2] */
	spin_unlock(&pctrl->state_lock);
}

/*
 * The admin requests preallocated for dma-buf fences: at most
 * NP_FENCE_RQS_MAX per controller, a freed one claimable again (issue 31
 * item 5).
 */
static void np_test_fence_rq_accounting(struct kunit *test)
{
	atomic_t held = ATOMIC_INIT(0);
	int i;

	for (i = 0; i < NP_FENCE_RQS_MAX; i++)
		KUNIT_EXPECT_TRUE(test, np_fence_rq_claim(&held, NP_FENCE_RQS_MAX));
	KUNIT_EXPECT_FALSE(test, np_fence_rq_claim(&held, NP_FENCE_RQS_MAX));
	KUNIT_EXPECT_EQ(test, atomic_read(&held), NP_FENCE_RQS_MAX);
	atomic_dec(&held);		/* np_fence_rq_free() */
	KUNIT_EXPECT_TRUE(test, np_fence_rq_claim(&held, NP_FENCE_RQS_MAX));
	KUNIT_EXPECT_FALSE(test, np_fence_rq_claim(&held, NP_FENCE_RQS_MAX));
}

/*
 * A fence in a signalling section does not revoke (its caller did, under
 * the exporter's lock): it takes no cb_sem, which owners' callbacks hold
 * around allocations.  Under lockdep's signalling annotation, as the
 * dma-buf fence work runs it.  Here the controller holds no queue: gone.
 */
static void np_test_fence_signalling_quiet(struct kunit *test)
{
	struct nvme_peer_ctrl *pctrl = kunit_kzalloc(test, sizeof(*pctrl),
						     GFP_KERNEL);
	struct nvme_peer_queue *q = kunit_kzalloc(test, sizeof(*q),
						  GFP_KERNEL);
	bool cookie;

	KUNIT_ASSERT_NOT_NULL(test, pctrl);
	KUNIT_ASSERT_NOT_NULL(test, q);
	spin_lock_init(&pctrl->state_lock);
	INIT_LIST_HEAD(&pctrl->queues);
	q->pctrl = pctrl;
	q->state = NP_Q_ACTIVE;
	cookie = dma_fence_begin_signalling();
	KUNIT_EXPECT_EQ(test, np_fence(q, NVME_PEER_REASON_MOVED, 0,
				       NP_FENCE_SIGNALLING), NP_FENCED_GONE);
	dma_fence_end_signalling(cookie);
	KUNIT_EXPECT_TRUE(test, q->fenced);
	KUNIT_EXPECT_EQ(test, q->state, NP_Q_ACTIVE);
}

static struct kunit_case nvme_peer_fence_cases[] = {
	KUNIT_CASE_PARAM(np_test_transition, np_trans_gen_params),
	KUNIT_CASE(np_test_notify_once),
	KUNIT_CASE(np_test_revoke_during_create),
	KUNIT_CASE(np_test_ns_marks),
	KUNIT_CASE(np_test_fence_rq_accounting),
	KUNIT_CASE(np_test_fence_signalling_quiet),
	{}
};

static struct kunit_suite nvme_peer_fence_suite = {
	.name = "nvme_peer_fence",
	.test_cases = nvme_peer_fence_cases,
};

kunit_test_suite(nvme_peer_fence_suite);
