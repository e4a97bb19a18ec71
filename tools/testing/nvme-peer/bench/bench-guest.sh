#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Runs inside the perf VM (scripts/bench): loads nvme with peer queues and
# nvme-peer (direct mode allowed), then runs vm-bench's cases REPS times,
# round-robin so that the repeats of a case are spread over the boot.
# "mediated-spin" is a mediated queue whose poller does not take hybrid
# sleeps (mediate_hybrid=N): it polls for mediate_spin_us after the last
# work, as before hybrid polling.  Env: REPS, SECS, QDS, MODES; in the
# sriov topology SERIAL names the primary (its namespace 1 for the others,
# namespace 2 on a VF of its own for isolated), TAG is appended to each
# mode's name, EXTRAS=0 leaves out the pollers, life and memory runs.
# WINDOW=1 (two-ctrl topology) runs vm-bench window REPS times: nvme0's
# namespace 2, filled with pseudo-random bytes on the first; MODES= (set,
# empty) leaves out the io cases.
REPS=${REPS:-3} SECS=${SECS:-2} QDS=${QDS:-"1 32 128"}
MODES=${MODES-"uring uring-cmd mediated mediated-spin direct"}
SERIAL=${SERIAL:-} TAG=${TAG:-} EXTRAS=${EXTRAS:-1} WINDOW=${WINDOW:-0}
P=/sys/module/nvme_peer/parameters
wait_for() {
	i=0
	while [ ! -e "$1" ] && [ $i -lt 300 ]; do sleep 0.1; i=$((i + 1)); done
}
modprobe nvme peer_queues=8 || echo "NP-FATAL modprobe nvme"
if [ -n "$SERIAL" ]; then
	wait_for /sys/class/nvme/nvme1
	for c in /sys/class/nvme/nvme*; do
		case "$(cat "$c/serial")" in "$SERIAL"*) ctrl=${c##*/nvme} ;; esac
	done
	export NP_BENCH_CTRL=$ctrl NP_BENCH_BDEV=/dev/nvme${ctrl}n1 \
		NP_BENCH_CDEV=/dev/ng${ctrl}n1
	pf=$(readlink -f "/sys/class/nvme/nvme$ctrl/device")
fi
wait_for "${NP_BENCH_BDEV:-/dev/nvme0n1}"
wait_for "${NP_BENCH_CDEV:-/dev/ng0n1}"
modprobe nvme-peer allow_direct=1 || echo "NP-FATAL modprobe nvme-peer"
sleep 1
echo "NP-BENCH kind=env clocksource=$(cat /sys/devices/system/clocksource/clocksource0/current_clocksource) cpus=$(nproc) kernel=$(uname -r)"
dd if=/dev/urandom of="${NP_BENCH_BDEV:-/dev/nvme0n1}" bs=1M count=16 \
	oflag=direct 2>/dev/null
r=1
while [ "$r" -le "$REPS" ]; do
	for qd in $QDS; do
		for m in $MODES; do
			if [ "$m" = mediated-spin ]; then
				echo N > $P/mediate_hybrid
				vm-bench io mediated "$qd" "$SECS" |
					sed "s/mode=mediated/mode=$m/; s/\$/ rep=$r/"
				echo Y > $P/mediate_hybrid
			else
				vm-bench io "$m" "$qd" "$SECS" |
					sed "s/mode=$m /mode=$m$TAG /; s/\$/ rep=$r/"
			fi
			# an isolated queue's VF goes down after the run: wait
			# (the VFs go with the primary's last tenant)
			i=0
			while [ "$m" = isolated ] && [ $i -lt 300 ] &&
			      [ "$(cat "$pf/sriov_numvfs")" != 0 ]; do
				sleep 0.1; i=$((i + 1))
			done
		done
	done
	r=$((r + 1))
done
r=1
while [ "$WINDOW" = 1 ] && [ "$r" -le "$REPS" ]; do
	wait_for /dev/nvme0n2
	NP_BENCH_FILL=$([ "$r" = 1 ] && echo 1) vm-bench window "$SECS" |
		sed "s/\$/ rep=$r/"
	r=$((r + 1))
done
[ "$EXTRAS" = 1 ] || exit 0
# two mediated queues at once, on one poller and on two
for n in 1 2; do
	echo "$n" > $P/mediate_pollers
	vm-bench io mediated 32 "$SECS" | sed "s/\$/ pollers=$n pair=a/" &
	vm-bench io mediated 32 "$SECS" | sed "s/\$/ pollers=$n pair=b/"
	wait
done
echo 1 > $P/mediate_pollers
vm-bench life 20
vm-bench mem
