// SPDX-License-Identifier: GPL-2.0
/*
 * KUnit suite nvme_peer_poller: the poller's hybrid-polling arithmetic in
 * poller.c.  Included at the end of poller.c (the KUnit #include
 * pattern), so it tests static functions; it runs when nvme-peer loads.
 * The test kernels lack high-resolution timers, so their pollers never
 * sleep this short: the arithmetic is tested here, the effect measured by
 * make bench on the perf kernel.
 */
#include <kunit/test.h>

#define NP_T_US(x)	((u64)(x) * NSEC_PER_USEC)

/*
 * The average starts at the first wait, moves an eighth of the way to each
 * new one, ignores a wait over the limit, and settles on a steady wait.
 */
static void np_test_wait_avg(struct kunit *test)
{
	u64 max = NP_T_US(10000), avg;
	int i;

	KUNIT_EXPECT_EQ(test, np_med_wait_avg(0, NP_T_US(40), max), NP_T_US(40));
	KUNIT_EXPECT_EQ(test, np_med_wait_avg(NP_T_US(40), NP_T_US(80), max),
			NP_T_US(45));
	KUNIT_EXPECT_EQ(test, np_med_wait_avg(NP_T_US(40), NP_T_US(8), max),
			NP_T_US(36));
	/* a stalled command does not make the poller sleep for long after */
	KUNIT_EXPECT_EQ(test, np_med_wait_avg(NP_T_US(40), max + 1, max),
			NP_T_US(40));
	KUNIT_EXPECT_EQ(test, np_med_wait_avg(NP_T_US(40), max, max),
			NP_T_US(40) - NP_T_US(5) + max / 8);
	KUNIT_EXPECT_EQ(test, np_med_wait_avg(0, max + 1, max), 0);

	/* from 1 ms to a steady 30 us */
	avg = NP_T_US(1000);
	for (i = 0; i < 100; i++)
		avg = np_med_wait_avg(avg, NP_T_US(30), max);
	KUNIT_EXPECT_GE(test, avg, NP_T_US(30));
	KUNIT_EXPECT_LT(test, avg, NP_T_US(31));

	/*
	 * Overslept: the wait seen is the sleep, half the average, so the
	 * average falls by a sixteenth a wait towards the true one.
	 */
	avg = NP_T_US(1000);
	for (i = 0; i < 16; i++)
		avg = np_med_wait_avg(avg, avg / 2, max);
	KUNIT_EXPECT_LT(test, avg, NP_T_US(370));
	KUNIT_EXPECT_GT(test, avg, NP_T_US(340));
}

/* Half the average, within bounds; nothing when off or too short. */
static void np_test_hybrid_us(struct kunit *test)
{
	u64 hres = 1, tick = 4 * NSEC_PER_MSEC;

	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(NP_T_US(60), true, hres, 10000), 30);
	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(NP_T_US(20), true, hres, 10000), 10);
	/* under NP_MED_HYBRID_MIN_NS: a fast device is polled */
	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(NP_T_US(19), true, hres, 10000), 0);
	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(0, true, hres, 10000), 0);
	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(NP_T_US(60), false, hres, 10000), 0);
	/* no high-resolution timers: only waits of two ticks and more */
	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(NP_T_US(60), true, tick, 10000), 0);
	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(2 * tick, true, tick, 10000), 4000);
	/* never longer than the longest idle sleep */
	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(NP_T_US(60000), true, hres, 10000),
			10000);
	KUNIT_EXPECT_EQ(test, np_med_hybrid_us(NP_T_US(60), true, hres, 0), 1);
}

static struct kunit_case nvme_peer_poller_cases[] = {
	KUNIT_CASE(np_test_wait_avg),
	KUNIT_CASE(np_test_hybrid_us),
	{}
};

static struct kunit_suite nvme_peer_poller_suite = {
	.name = "nvme_peer_poller",
	.test_cases = nvme_peer_poller_cases,
};

kunit_test_suite(nvme_peer_poller_suite);
