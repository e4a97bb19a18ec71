#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# The `make demo` story, run inside the two-ctrl topology by scripts/demo:
# the edu device reads a file-bound range into accelerator memory, a read
# outside the file is refused, a truncate revokes the queue, a reset brings
# a named reservation back and its tenant re-attaches; then a tenant of uid
# 1000 reads its own file through a read-only window (the PMR), a load in
# a hole faults and a truncate revokes the window.  Every figure is read
# from sysfs, configfs, debugfs or the tenants' own output.
set -e
say() { printf '\n== %s\n' "$*"; }
show() { printf '   %-15s %s\n' "$1" "$(cat "$2")"; }
wait_for() { # wait_for PATH [VALUE]: 30 s at most
	i=0
	while [ $i -lt 300 ]; do
		if [ -e "$1" ] && { [ -z "$2" ] || [ "$(cat "$1")" = "$2" ]; }; then
			return 0
		fi
		sleep 0.1
		i=$((i + 1))
	done
	echo "   (gave up waiting for $1 ${2:+= $2})"
	return 1
}
# "0x4080" -> "LBA Out of Range | Do Not Retry" (with a second word: "| DNR")
status_name() {
	v=$(($1))
	case $(((v >> 8) & 7)):$((v & 0xff)) in
	0:0) n="Success" ;;
	0:1) n="Invalid Command Opcode" ;;
	0:2) n="Invalid Field in Command" ;;
	0:11) n="Invalid Namespace or Format" ;;
	0:128) n="LBA Out of Range" ;;
	*) n="SCT $(((v >> 8) & 7)) SC $((v & 0xff))" ;;
	esac
	[ $((v & 0x4000)) -eq 0 ] || n="$n | ${2:-Do Not Retry}"
	echo "$n"
}
stat_of() { sed -n "s/^$1 //p" "$2"; }
# show the lines of FILE that match ERE on one line: line LABEL ERE FILE
line() { printf '   %-15s %s\n' "$1" "$(grep -E "$2" "$3" | tr '\n' ' ' | sed 's/ $//')"; }
DBG=/sys/kernel/debug/np-client
CFS=/sys/kernel/config/nvme-peer

modprobe nvme peer_queues=8
# the controller with serial peer0 (sysfs pads it to 20 characters) and its
# namespace 2 (in nvmeXnY, Y is not the nsid): 30 s at most
C='' NS2='' i=0
while [ -z "$NS2" ] && [ $i -lt 300 ]; do
	for c in /sys/class/nvme/nvme*; do
		[ "$(tr -d ' ' < "$c/serial" 2>/dev/null)" = peer0 ] && C=${c##*/}
	done
	for b in /sys/block/"$C"n*; do
		[ "$(cat "$b/nsid" 2>/dev/null)" = 2 ] && NS2=/dev/${b##*/}
	done
	[ -n "$NS2" ] || sleep 0.1
	i=$((i + 1))
done
[ -n "$NS2" ] || { echo "   no namespace 2 on the controller peer0"; exit 1; }
wait_for "$NS2"
say "The machine: $(find /sys/class/nvme/ -name 'nvme[0-9]*' | wc -l) NVMe controllers and an edu DMA engine below one PCIe switch"
modprobe nvme-peer
modprobe np-accel
modprobe np-client
P=/sys/class/nvme/$C/peer
wait_for "$P/free"
EDU=$(for d in /sys/bus/pci/devices/*; do
	if [ "$(cat "$d/vendor"):$(cat "$d/device")" = "0x1234:0x11e8" ]; then
		basename "$d"
	fi
done)
echo "   $C holds back $(cat "$P/nr_qids") I/O queue pairs for peers (nvme.peer_queues=8): qids $(cat "$P/first_qid").., $(cat "$P/free") free"
mkdir -p /mnt/np
# the three together lift mkfs.xfs's 300 MB minimum (small disks)
TEST_DEV=1 TEST_DIR=1 QA_CHECK_FS=1 mkfs.xfs -f -q "$NS2"
mount "$NS2" /mnt/np
F=/mnt/np/weights.bin
dd if=/dev/urandom of=$F bs=1M count=1 conv=fsync 2>/dev/null
echo "   XFS on namespace 2 ($NS2) at /mnt/np; $F: $(stat -c %s $F) random bytes"
echo "   the accelerator: edu ($EDU, a DMA engine) and ivshmem (np-accel exports its BAR as dma-bufs)"

say "1. The edu device reads a file range by itself into accelerator memory"
mkdir -p "$CFS/$C/scan"
echo 2 > "$CFS/$C/scan/nsid"
echo $F > "$CFS/$C/scan/file"
echo read > "$CFS/$C/scan/file_access"
echo "$EDU" > "$CFS/$C/scan/peer"
cfs_err=$( (echo dmabuf > "$CFS/$C/scan/data_placement") 2>&1 | sed 's/.*: //')
echo "   configfs takes an administrator's file-bound intent (nsid $(cat "$CFS/$C/scan/nsid"), file $(cat "$CFS/$C/scan/file"), file_access $(cat "$CFS/$C/scan/file_access"), peer $(cat "$CFS/$C/scan/peer")),"
echo "   but no dma-buf, which is an fd or a kernel pointer: data_placement dmabuf -> ${cfs_err:-accepted?}"
rmdir "$CFS/$C/scan"
echo "   so the accelerator's driver (np-client) reserves through the kernel API, handing nvme-peer"
echo "   a dma-buf of its own memory, with the same binding: 1 MiB of $F, read only:"
echo "$C 2 16 host host accel 8192 $EDU mediated r file=$F,0,1048576,r" > $DBG/reserve
Q=$(sed -n 's/^qid=\([0-9]*\) .*/\1/p' $DBG/status | tail -n1)
for a in qid owner mode peer data_placement data_location guarantee; do
	show $a "$P/q$Q/$a"
done
line file '^(access|extents|lease) ' "$P/q$Q/file"
grep '^extent ' "$P/q$Q/policy" | head -2 | sed 's/^/   policy          /'
# where the file system put the bytes 64 KiB into the file (fiemap, 512-byte
# units): the edu device asks for those LBAs
FOFF=65536
# ("0: [0..2047]: 192..2239": file blocks 0-2047 are sectors 192-2239)
SECT=$(xfs_io -r -c fiemap $F | tr '[].:' '    ' |
	awk -v o=$((FOFF / 512)) \
	'NF == 5 && $2 <= o && o <= $3 && $4 ~ /^[0-9]+$/ { print $4 + o - $2; exit }')
SHIFT=$(cat "$P/q$Q/lba_shift")
LBA=$((SECT >> (SHIFT - 9)))
NLB=$((8192 >> SHIFT))
echo "$Q R $LBA $NLB 0" > $DBG/io
S1=$(cat $DBG/status_code)
echo "   the edu device writes a Read of LBAs $LBA-$((LBA + NLB - 1)) into the shadow SQ and its doorbell by DMA;"
echo "   the kernel checks it against the file's extents and forwards it: status $S1 ($(status_name "$S1"))"
M1=$(dd if=$F bs=4096 skip=$((FOFF / 4096)) count=2 2>/dev/null | md5sum | cut -d' ' -f1)
M2=$(head -c 8192 $DBG/data | md5sum | cut -d' ' -f1)
echo "   file bytes $FOFF-$((FOFF + 8191)):   md5 $M1"
echo "   accelerator buffer:       md5 $M2"
[ "$M1" = "$M2" ] && MATCH=equal || MATCH=DIFFERENT

say "2. A read outside the file is refused before the controller sees it"
F1=$(stat_of forwarded "$P/q$Q/stats")
# LBA 0 of the namespace: XFS's superblock, in no extent of the file
echo "$Q R 0 $NLB 0" > $DBG/io 2>/dev/null || true
S2=$(cat $DBG/status_code)
echo "   the edu device asks for LBAs 0-$((NLB - 1)) (XFS's superblock): status $S2 ($(status_name "$S2"))"
show last_reject "$P/q$Q/last_reject"
line stats . "$P/q$Q/stats"
F2=$(stat_of forwarded "$P/q$Q/stats")
echo "   forwarded to the controller: $F1 before, $F2 after"
echo "NP-DEMO-QID=$Q"

say "3. A truncate of the file revokes the queue before the blocks move"
truncate -s 512K $F
echo "   truncate -s 512K $F: done, the file is $(stat -c %s $F) bytes"
for a in state reason; do
	show $a "$P/q$Q/$a"
done
line file '^(lease|fence_ns) ' "$P/q$Q/file"
grep "^qid=$Q " $DBG/status | sed 's/^/   np-client       /'
err=$( (echo "$Q R $LBA $NLB 0" > $DBG/io) 2>&1 | sed 's/.*: //')
echo "   the driver's next Read: ${err:-accepted?}"
R3=$(cat "$P/q$Q/reason")
L3=$(sed -n 's/^lease //p' "$P/q$Q/file")
FN=$(sed -n 's/^fence_ns //p' "$P/q$Q/file")

say "4. A controller reset: a named reservation comes back and its tenant re-attaches"
T=$CFS/$C/tenant
mkdir -p "$T"
for kv in nsid=1 uid=0 data_placement=host data_size=4096 opcodes=read,write; do
	echo "${kv#*=}" > "$T/${kv%%=*}"
done
echo 1 > "$T/enable"
printf '   configfs %s/:' "${T#/sys/kernel/config/}"
for a in nsid uid data_placement data_size opcodes enable; do
	printf ' %s=%s' $a "$(cat "$T/$a")"
done
echo
for a in state live_qid generation; do
	show $a "$T/$a"
done
G1=$(cat "$T/generation")
rm -f /tmp/tenant.ready
demo-tenant "$C" tenant 4096 /tmp/tenant.ready > /tmp/tenant.out 2>&1 &
tenant=$!
wait_for /tmp/tenant.ready || { cat /tmp/tenant.out; exit 1; }
head -n2 /tmp/tenant.out
echo "   echo 1 > /sys/class/nvme/$C/reset_controller"
echo 1 > "/sys/class/nvme/$C/reset_controller"
rc=0
wait $tenant || rc=$?
sed 1,2d /tmp/tenant.out | grep -v '^tenant:' || true
for a in state live_qid generation; do
	show $a "$T/$a"
done
Q4=$(cat "$T/live_qid")
for a in name generation owner; do
	show "q$Q4/$a" "$P/q$Q4/$a"
done
G2=$(cat "$P/q$Q4/generation")
TM=$(sed -n 's/.* match \([a-z]*\)$/\1/p' /tmp/tenant.out)
TR=$(sed -n 's/.* reason \([a-z-]*\) .*/\1/p' /tmp/tenant.out)

say "5. A read-only window: an unprivileged tenant reads its file with loads"
mkdir -p "$CFS/$C"
echo 2 > "$CFS/$C/pmr_nsid"
W=/mnt/np/tenant
mkdir -p $W
chown 1000:1000 $W
echo "   the administrator declares that $C's PMR mirrors namespace 2 ($(($(cat "/sys/block/${NS2#/dev/}/size") / 2048)) MiB):"
echo "   configfs ${CFS#/sys/kernel/config/}/$C/pmr_nsid=$(cat "$CFS/$C/pmr_nsid"); the tenant runs as uid 1000 and owns $W"
wrc=0
demo-tenant --window "$C" 1000 $W/model.bin /tmp/window > /tmp/window.out 2>&1 ||
	wrc=$?
head -n2 /tmp/window.out
W1=$(cat /tmp/window.read 2>/dev/null | md5sum | cut -d' ' -f1)
W2=$(cat /tmp/window.window 2>/dev/null | md5sum | cut -d' ' -f1)
echo "   bytes 0-524287 by read(2):        md5 $W1"
echo "   the same bytes by loads (window): md5 $W2"
sed 1,2d /tmp/window.out | grep -v '^window:' || true
[ -s /tmp/window.read ] && [ "$W1" = "$W2" ] && WMATCH=equal ||
	WMATCH=DIFFERENT
WH=$(sed -n 's/^window: .* hole \([A-Za-z]*\) .*/\1/p' /tmp/window.out)
WR=$(sed -n 's/^window: .* reason \([a-z-]*\) .*/\1/p' /tmp/window.out)
WA=$(sed -n 's/^window: .* after \([A-Za-z]*\) .*/\1/p' /tmp/window.out)
WU=$(sed -n 's/^window: .* us \([0-9]*\)$/\1/p' /tmp/window.out)

say "What happened"
row() { printf '   %-2s %-32s %-33s %s\n' "$@"; }
row "" "asked" "the kernel" "figure"
row 1 "edu reads 8 KiB of the file" "checked, forwarded: status $S1" "md5 $MATCH (${M1%"${M1#????????}"}..)"
row "" "  into accelerator memory" "dma-buf, data_location $(cat "$P/q$Q/data_location")" "8192 bytes"
row 2 "edu reads LBAs 0-$((NLB - 1)) (superblock)" "refused, forwarded $F1 -> $F2" "status $S2 ($(status_name "$S2" DNR))"
row 3 "truncate the file to 512 KiB" "revoked q$Q first ($((FN / 1000)) us)" "reason $R3, lease $L3"
row 4 "reset $C" "revoked \"tenant\" ($TR)," "generation $G1 -> $G2"
row "" "" "reserved it again as q$Q4" "read back equal: ${TM:-?}"
row 5 "uid 1000 maps its 1 MiB file" "a read-only window on the PMR" "md5 $WMATCH (${W1%"${W1#????????}"}..)"
row "" "  loads bytes 0-524287" "no capability: the owner's file" "524288 bytes"
row 6 "a load in its hole (512 KiB)" "no page there" "${WH:-?} at byte 524288"
row 7 "truncate it to 256 KiB" "revoked in ftruncate (${WU:-?} us)" "reason ${WR:-?}, old map ${WA:-?}"
echo all > $DBG/release
rmdir "$T" "$CFS/$C"
umount /mnt/np
[ "$MATCH" = equal ] && [ "$TM" = yes ] && [ $rc -eq 0 ] &&
	[ "$WMATCH" = equal ] && [ $wrc -eq 0 ]
