#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the test VM (scripts/vm-run): loads the modules, runs the KUnit
# suites and the kselftests of this topology, and frames each in
# "NP-BEGIN kind name" / "NP-END kind name rc=N" for scripts/results.
#
# run-guest.sh --chaos SECONDS [SEED [no-remove]]: the chaos run alone
# (make soak); no-remove leaves PCI removal out of it.
topo=$(cat /np/topology)
chaos=
if [ "${1:-}" = --chaos ]; then
	chaos="--seconds $2${3:+ --seed $3}"
	[ "${4:-}" = no-remove ] && chaos="$chaos --no-remove"
fi

# A failed kselftest is followed by the kernel's nvme and PCI messages of
# the boot (the console shows warnings only), to tell why
kselftest() {
	t=$1
	shift
	echo "NP-BEGIN kselftest $t"
	"/np/tests/$t" "$@"
	rc=$?
	echo "NP-END kselftest $t rc=$rc"
	# chaos_test saw a kernel report: nothing after it is to be trusted,
	# not even a power-off (nvme's shutdown may wait on a lock the oops
	# left held); reboot at once (QEMU runs -no-reboot: it exits) and
	# vm-run fails the boot on the report
	if [ "$t" = chaos_test ] && [ $rc -eq 3 ]; then
		echo "NP-FATAL chaos_test: kernel report, rebooting"
		echo b > /proc/sysrq-trigger
	fi
	[ $rc -eq 0 ] || dmesg | grep -E 'nvme|pci|peer|DMAR' | tail -n 200 |
		sed 's/^/NP-DMESG /'
}

wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
	[ -e "$1" ]
}

# With peer_queues=0 (the default) nvme-pci is unchanged and nvme-peer has
# nothing to hand out.  (The host checks in QEMU's trace that shadow
# doorbells were configured by this load only.)
if [ "$topo" = switch ] && [ -z "$chaos" ]; then
	echo "NP-BEGIN shell peer_queues_0"
	modprobe nvme && wait_for /dev/nvme0n1 && sleep 1
	if modprobe nvme-peer 2>/dev/null; then
		echo "not ok 1 nvme-peer refuses to load without peer_queues"
	else
		echo "ok 1 nvme-peer refuses to load without peer_queues"
	fi
	if [ -e /sys/class/nvme/nvme0/peer ]; then
		echo "not ok 2 no peer directory without peer_queues"
	else
		echo "ok 2 no peer directory without peer_queues"
	fi
	if dd if=/dev/nvme0n1 of=/dev/null bs=4096 count=16 2>/dev/null; then
		echo "ok 3 block device works without peer_queues"
	else
		echo "not ok 3 block device works without peer_queues"
	fi
	rmmod nvme nvme-core
	echo "NP-END shell peer_queues_0 rc=0"
fi

modprobe nvme peer_queues=8 || echo "NP-FATAL modprobe nvme"
for c in /dev/nvme0n1 /sys/class/nvme/nvme0; do wait_for $c; done
if [ "$topo" = two-ctrl ]; then
	# namespaces 1-3 on the first controller, 1-2 on the second (in
	# nvmeXnY, Y is not the nsid)
	for d in /dev/nvme0n2 /dev/nvme0n3 /dev/nvme1n1 /dev/nvme1n2; do
		wait_for $d
	done
fi
# nvme-peer's KUnit suites (built in with NP_TESTS=y: core, sysfs, mem,
# file, dmabuf, mediate and the guard) run when it loads: count them once,
# in the switch boot
if [ "$topo" = switch ]; then
	echo "NP-BEGIN kunit nvme-peer"
	dmesg -c > /dev/null
fi
modprobe nvme-peer allow_direct=1
rc=$?
if [ "$topo" = switch ]; then
	dmesg | sed 's/^\[[^]]*\] //'
	echo "NP-END kunit nvme-peer rc=$rc"
fi
[ $rc -eq 0 ] || echo "NP-FATAL modprobe nvme-peer"
# O (4096) for the out-of-tree modules, N (262144) for the KUnit suites
echo "NP-TAINT $(cat /proc/sys/kernel/tainted)"
modprobe np-accel || echo "NP-FATAL modprobe np-accel"
wait_for /sys/class/nvme/nvme0/peer

if [ -n "$chaos" ]; then
	# shellcheck disable=SC2086
	kselftest chaos_test $chaos
	umount /mnt/np 2>/dev/null
	topo="chaos-only"
fi
case "$topo" in
chaos-only) ;;
sriov|sriov-iommu)
	# no CMB with SR-IOV in QEMU: the secondary controller tests only
	kselftest sriov_test
	kselftest isolated_test ;;
*)
	# iommu-pt only shows that identity domains confine nothing
	[ "$topo" = iommu-pt ] || kselftest smoke_test
	kselftest topology_test ;;
esac
if [ "$topo" = switch ]; then
	kselftest reserve_test
	kselftest queue_lib_test
	kselftest uapi_test
	kselftest ioctl_fuzz
	# poll() on qN/state and the uevents of a state change
	kselftest events_test
	# the nvme-peer command on configfs; it reloads nvme-peer itself
	kselftest tool_test
fi
case "$topo" in switch|iommu) kselftest guard_test ;; esac
case "$topo" in switch|rootports|iommu) kselftest dmabuf_test ;; esac
# read-only windows through nvme0's PMR (two-ctrl below, after XFS); it
# ends with a removal and rescan of nvme0
case "$topo" in iommu|iommu-pt) kselftest window_test ;; esac
[ "$topo" = two-ctrl ] && kselftest two_ctrl_test
if [ "$topo" = two-ctrl ]; then
	kselftest file_test
	kselftest fence_test
	# read-only windows through nvme0's PMR, which shows namespace 2
	kselftest window_test
	# a minute of every door at once (chaos_test.c), a seed of its own;
	# no PCI removal: on 6.12 a removal racing a reset leaves nvme-pci's
	# reset work holding the queue-freeze lockdep map (a kernel report
	# that is not nvme-peer's, STATUS.md finding B); make soak has them
	kselftest chaos_test --seconds 60 --no-remove
	umount /mnt/np /mnt/npslow 2>/dev/null
fi
rmmod np-client 2>/dev/null
# an intent a test left behind pins nvme-peer: a test bug, said so
for d in /sys/kernel/config/nvme-peer/*/*/ \
	 /sys/kernel/config/nvme-peer/*/windows/*/; do
	[ -d "$d" ] || continue
	case $d in */windows/) continue ;; esac
	echo "NP-FATAL intent left behind: $d"
	rmdir "$d"
done
rmdir /sys/kernel/config/nvme-peer/* 2>/dev/null
rmmod np-accel nvme-peer nvme nvme-core || echo "NP-FATAL module unload"
exit 0
