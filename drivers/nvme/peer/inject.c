// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer fault injection (CONFIG_NVME_PEER_FAULT_INJECTION), for tests:
 * events QEMU cannot produce at a chosen instant.  debugfs nvme-peer/:
 *
 *   reset_before_create  the next N Creates of a hardware queue first reset
 *                        the controller and wait for it to come back, as if
 *                        a reset raced the reservation
 *   fail_delete          the next N Delete SQ/CQ commands fail as if the
 *                        controller had refused them (not sent)
 *   lease_return_delay_ms
 *                        after giving a layout lease back, wait this long
 *                        (0: not at all), as a preempted work item would:
 *                        the breaker returns meanwhile
 *   poller_stall_ms, poller_stall_id
 *                        the next pass of poller poller_stall_id sleeps
 *                        poller_stall_ms holding the poller's lock, as a
 *                        pass stuck on a read of a stalled peer BAR would;
 *                        poller_stalling reads 1 meanwhile
 *   down_delay_ms        the next DOWN event waits this long after it
 *                        revoked the controller's queues, holding nvme-pci's
 *                        shutdown lock: the controller stays mid-reset (not
 *                        live, not disabled yet) that long
 *   med_free_delay_ms    the mediation teardown waits this long between taking a
 *                        queue's mediation state away and freeing it, as
 *                        a preempted release would: a fence draining the
 *                        queue meanwhile must not read it
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/nvme.h>

#include "nvme.h"
#include "nvme-peer.h"

static atomic_t np_inject_resets = ATOMIC_INIT(0);
static atomic_t np_inject_delete_errors = ATOMIC_INIT(0);
static u32 np_inject_lease_delay_ms;
static u32 np_inject_med_free_delay_ms;
static u32 np_inject_stall_ms, np_inject_stall_id;
static u32 np_inject_down_delay_ms;
static bool np_inject_stalling;
static struct dentry *np_inject_dir;

/* Take one from @count if it is not 0. */
static bool np_inject_take(atomic_t *count)
{
	return atomic_add_unless(count, -1, 0);
}

/* Whether this Create is to be preceded by a reset (the caller does it). */
bool np_inject_reset(void)
{
	return np_inject_take(&np_inject_resets);
}

int np_inject_admin_error(const struct nvme_command *c)
{
	if ((c->common.opcode == nvme_admin_delete_sq ||
	     c->common.opcode == nvme_admin_delete_cq) &&
	    np_inject_take(&np_inject_delete_errors))
		return NVME_SC_INTERNAL;
	return 0;
}

void np_inject_lease_returned(void)
{
	u32 ms = READ_ONCE(np_inject_lease_delay_ms);

	if (ms)
		msleep(ms);
}

void np_inject_med_free(void)
{
	u32 ms = READ_ONCE(np_inject_med_free_delay_ms);

	if (ms)
		msleep(ms);
}

void np_inject_poller_stall(unsigned int id)
{
	u32 ms;

	if (!READ_ONCE(np_inject_stall_ms) ||
	    READ_ONCE(np_inject_stall_id) != id)
		return;
	ms = xchg(&np_inject_stall_ms, 0);
	if (!ms)
		return;
	WRITE_ONCE(np_inject_stalling, true);
	msleep(ms);
	WRITE_ONCE(np_inject_stalling, false);
}

void np_inject_down(void)
{
	u32 ms = xchg(&np_inject_down_delay_ms, 0);

	if (ms)
		msleep(ms);
}

void np_inject_init(void)
{
	np_inject_dir = debugfs_create_dir("nvme-peer", NULL);
	debugfs_create_atomic_t("reset_before_create", 0600, np_inject_dir,
				&np_inject_resets);
	debugfs_create_atomic_t("fail_delete", 0600, np_inject_dir,
				&np_inject_delete_errors);
	debugfs_create_u32("lease_return_delay_ms", 0600, np_inject_dir,
			   &np_inject_lease_delay_ms);
	debugfs_create_u32("med_free_delay_ms", 0600, np_inject_dir,
			   &np_inject_med_free_delay_ms);
	debugfs_create_u32("down_delay_ms", 0600, np_inject_dir,
			   &np_inject_down_delay_ms);
	debugfs_create_u32("poller_stall_ms", 0600, np_inject_dir,
			   &np_inject_stall_ms);
	debugfs_create_u32("poller_stall_id", 0600, np_inject_dir,
			   &np_inject_stall_id);
	debugfs_create_bool("poller_stalling", 0400, np_inject_dir,
			    &np_inject_stalling);
}

void np_inject_exit(void)
{
	debugfs_remove_recursive(np_inject_dir);
}
