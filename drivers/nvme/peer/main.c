// SPDX-License-Identifier: GPL-2.0
/*
 * nvme-peer: hand NVMe I/O queue pairs that nvme-pci holds back
 * (nvme.peer_queues=N) to peer devices, and take them back.
 *
 * Module init and exit only: each part sets itself up and tears itself
 * down.  Where things are decided (the file map in peer-queues.rst says
 * more): ctrl.c the controller registry, events.c what nvme-pci and the
 * PCI bus report, admin.c the admin commands, core.c reservations, fence.c
 * revocation and the fence every cause shares, file.c and dmabuf.c two of
 * those causes, mem.c placement, mediate.c, poller.c, medpass.c and
 * guard.c mediated mode, configfs.c the administrator's intents, sysfs.c
 * the state, cdev.c the processes' door.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <linux/rcupdate.h>

#include "nvme-peer.h"

static int __init nvme_peer_init(void)
{
	int ret;

	ret = np_fence_init();
	if (ret)
		return ret;
	ret = np_med_init();
	if (ret)
		goto out_fence_exit;
	ret = np_cdev_init();
	if (ret)
		goto out_med_exit;
	ret = np_events_init();
	if (ret)
		goto out_cdev_exit;
	ret = np_cfs_init();
	if (ret)
		goto out_events_exit;
	np_inject_init();
	return 0;

out_events_exit:
	np_events_exit();
out_cdev_exit:
	np_cdev_exit();
out_med_exit:
	np_med_exit();
out_fence_exit:
	np_fence_exit();
	return ret;
}

/*
 * The doors close first (no new reservation; configfs holds the module
 * while an administrator's intent exists), then every controller is
 * forgotten and the events stop; the work those events queued drains with
 * the workqueues (np_fence_exit()), and the pollers go last.
 */
static void __exit nvme_peer_exit(void)
{
	np_inject_exit();
	np_cfs_exit();
	np_cdev_exit();
	np_iso_exit();
	np_events_exit();
	np_fence_exit();
	np_med_exit();
	rcu_barrier();
}

module_init(nvme_peer_init);
module_exit(nvme_peer_exit);

MODULE_DESCRIPTION("NVMe I/O queue pairs for peer devices");
MODULE_LICENSE("GPL");
MODULE_IMPORT_NS(NVME_TARGET_PASSTHRU);
