/* SPDX-License-Identifier: GPL-2.0 */
/*
 * nvme-peer mediated mode, between mediate.c (what a mediated queue is:
 * its policy, memory and sysfs files) and poller.c (the threads that run
 * the queues).  Private to those two files.
 */
#ifndef _NVME_PEER_MEDIATE_H
#define _NVME_PEER_MEDIATE_H

#include "medpass.h"
#include "nvme-peer.h"

struct np_poller;

/* A mediated queue's state: mediate.c allocates and frees it. */
struct np_med {
	struct np_mp mp;		/* positions and counters: medpass.c */
	struct nvme_peer_queue *q;
	struct list_head node;		/* on its poller's list while running */
	struct np_poller *poller;	/* under np_med_lock; NULL: stopped */
	/* under np_med_lock: np_med_stop() is taking it off this poller */
	struct np_poller *leaving;
	int poller_id;			/* read locklessly by sysfs; -1 */
	u32 depth;

	struct np_policy policy;
	struct np_range *extents;
	struct np_range *windows;
	struct np_mp_slot *slots;
	u16 *free;
};

struct np_med *np_med_take(struct nvme_peer_queue *q);

#endif /* _NVME_PEER_MEDIATE_H */
