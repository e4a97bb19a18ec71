#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The `make demo` story, run inside the switch topology by scripts/demo.
set -e
say() { printf '\n== %s\n' "$*"; }
show() { printf '   %-14s %s\n' "$1" "$(cat "$2")"; }

say "nvme-pci holds back 8 I/O queue pairs for peers (nvme.peer_queues=8)"
modprobe nvme peer_queues=8
while [ ! -e /dev/nvme0n1 ]; do sleep 0.1; done
modprobe nvme-peer allow_direct=1
modprobe np-accel
modprobe np-client
P=/sys/class/nvme/nvme0/peer
show first_qid $P/first_qid
show nr_qids $P/nr_qids
show free $P/free
show cmbsz $P/cmbsz

EDU=$(for d in /sys/bus/pci/devices/*; do
	if [ "$(cat $d/vendor):$(cat $d/device)" = "0x1234:0x11e8" ]; then
		basename $d
	fi
done)
say "A driver reserves a direct queue pair for the edu device ($EDU): SQ in the CMB"
echo "nvme0 1 64 cmb host host 8192 $EDU direct" > /sys/kernel/debug/np-client/reserve
Q=$(cat $P/first_qid)
for a in qid mode guarantee sq_placement cq_placement sq_addr cq_addr sq_db_addr cq_db_addr state; do
	show $a $P/q$Q/$a
done

say "The edu device writes a Write SQE into the CMB and rings the hardware doorbell itself"
echo "$Q W 2048 8 1234" > /sys/kernel/debug/np-client/io
echo "$Q R 2048 8 0" > /sys/kernel/debug/np-client/io
echo "   a Write of LBAs 2048-2055, then a Read back: SQEs and doorbells by DMA"
say "The block device sees the peer's data"
dd if=/dev/nvme0n1 bs=512 skip=2048 count=8 2>/dev/null | md5sum | sed 's/^/   block device: /'
head -c 4096 /sys/kernel/debug/np-client/data | md5sum | sed 's/^/   peer buffer:  /'

say "A mediated queue (the default) for the same device, Read only: the kernel checks each SQE"
echo "nvme0 1 64 cmb host host 8192 $EDU mediated r" > /sys/kernel/debug/np-client/reserve
M=$(sed -n 's/^qid=\([0-9]*\) .*/\1/p' /sys/kernel/debug/np-client/status | tail -n1)
for a in mode guarantee sq_db_addr; do
	show $a $P/q$M/$a
done
sed 's/^/   policy         /' $P/q$M/policy
echo "$M R 2048 8 0" > /sys/kernel/debug/np-client/io
echo "   the edu device's Read of LBAs 2048-2055: forwarded, status $(cat /sys/kernel/debug/np-client/status_code)"
echo "$M W 2048 8 1" > /sys/kernel/debug/np-client/io 2>/dev/null || true
echo "   its Write: never reaches the controller, status $(cat /sys/kernel/debug/np-client/status_code) (Invalid Command Opcode | Do Not Retry)"
sed 's/^/   stats          /' $P/q$M/stats
show last_reject $P/q$M/last_reject

say "A controller reset revokes the reservations; the driver is told once each"
echo 1 > /sys/class/nvme/nvme0/reset_controller
while [ "$(cat $P/live)" != 1 ]; do sleep 0.1; done
sed 's/^/   /' /sys/kernel/debug/np-client/status
show state $P/q$Q/state
show reason $P/q$Q/reason
echo all > /sys/kernel/debug/np-client/release
show free $P/free
say "done"
