#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Native tests of nvme-peer (the command) against a fake configfs and sysfs
# tree under a temporary directory: argument checks, list/show/save output,
# restore's validation (FILE:LINE, exit 3, nothing created) and its undo
# when a step fails (a plain directory has no attribute files, so writing
# one fails as the kernel would), watch's events, window intents
# (CTRL/windows/NAME, below the windows/ configfs makes with each
# controller directory: their keys, list/show/save, restore's order of
# reservations, providers, windows, create and delete), bash completion.
# No kernel module needed;
# tools/testing/selftests/nvme-peer/tool_test.c runs it against the kernel.
#
# usage: tests/native.sh [PATH-OF-nvme-peer]; prints TAP, exits 1 on failure
np=$(realpath "${1:-$(dirname "$0")/../nvme-peer}")
T=$(mktemp -d)
trap 'umount "$T/small" 2> /dev/null; rm -rf "$T"' EXIT
export NVME_PEER_CONFIGFS="$T/cfg" NVME_PEER_SYSFS="$T/sys"
. "$(dirname "$0")/tap.sh"

# run EXPECTED-RC NAME CMD...: stdout in $T/out, stderr in $T/err
run() {
	want=$1 name=$2
	shift 2
	"$@" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc = "$want" ]
	ok $? "$name (rc $rc, want $want)"
	[ $rc = "$want" ] || sed 's/^/# /' "$T/err"
}

# has FILE PATTERN NAME
has() {
	grep -q -e "$2" "$1"
	ok $? "$3"
	grep -q -e "$2" "$1" || sed 's/^/# /' "$1"
}

attr() { printf '%s\n' "$2" > "$1"; }

# A configfs reservation directory as the kernel shows it
fake_res() {
	d=$T/cfg/$1
	mkdir -p "$d"
	for kv in nsid=1 depth=64 sq_placement=host cq_placement=host \
		  data_placement=none data_size=0 peer=cpu qid=0 uid=-1 \
		  gid=-1 mode=mediated opcodes= max_nlb=0 extents= \
		  file= file_off=0 file_len=0 file_access=read enable=1 \
		  state=active reason=none error=0 live_qid=0 generation=1; do
		attr "$d/${kv%%=*}" "${kv#*=}"
	done
}

# A window's directory as the kernel shows it: CTRL/windows/NAME
fake_win() {
	d=$T/cfg/${1%%/*}/windows/${1#*/}
	mkdir -p "$d"
	for kv in nsid=2 peer=cpu uid=-1 gid=-1 extents= file= file_off=0 \
		  file_len=0 enable=1 state=active reason=none error=0 \
		  generation=1; do
		attr "$d/${kv%%=*}" "${kv#*=}"
	done
}

# A controller directory as configfs makes it: windows/ (its default
# group, no state) and pmr_nsid (0: no provider); attribute files keep a
# plain directory from rmdir, so a test removes pmr_nsid before one
fake_ctrl() {
	mkdir -p "$T/cfg/$1/windows"
	attr "$T/cfg/$1/pmr_nsid" 0
}

fake_q() {
	d=$T/sys/$1/peer/q$2
	mkdir -p "$d"
	attr "$d/qid" "$2"
	attr "$d/state" active
	attr "$d/reason" none
	attr "$d/owner" "$3"
	attr "$d/attached" 0
	attr "$d/name" "$4"
}

tree() { (cd "$T/cfg" 2>/dev/null && find . | sort); }

mkdir -p "$T/cfg" "$T/sys"
echo "TAP version 13"

# -- command line --------------------------------------------------------
run 2 "no command" "$np"
run 2 "unknown command" "$np" frobnicate
run 0 "--help" "$np" --help
run 2 "create: no name" "$np" create
run 2 "create: name without controller" "$np" create t1 nsid=1
run 2 "create: bad controller" "$np" create sda/t1 nsid=1
run 2 "create: name too long" "$np" create nvme0/abcdefghijklmnopqrstuvwxyz0123456
run 2 "create: bad character in name" "$np" create 'nvme0/t 1'
run 2 "create: unknown key" "$np" create nvme0/t1 nsid=1 colour=blue
has "$T/err" "unknown key 'colour'" "create: unknown key named"
run 2 "create: bad number" "$np" create nvme0/t1 nsid=one
has "$T/err" "nsid: 'one' is not a number" "create: bad number named"
run 2 "create: key twice" "$np" create nvme0/t1 nsid=1 nsid=2
run 2 "create: bad placement" "$np" create nvme0/t1 nsid=1 sq_placement=gpu
run 2 "create: bad opcode" "$np" create nvme0/t1 nsid=1 opcodes=read,erase
run 2 "create: empty opcode in a list" "$np" create nvme0/t1 nsid=1 opcodes=read,
run 2 "create: bad extents" "$np" create nvme0/t1 nsid=1 extents=0+8,9
run 2 "create: bad peer" "$np" create nvme0/t1 nsid=1 peer=gpu0
run 2 "create: relative file" "$np" create nvme0/t1 nsid=1 file=data
run 2 "create: enable=1 without nsid" "$np" create nvme0/t1 enable=1
run 2 "create: uid below -1" "$np" create nvme0/t1 nsid=1 uid=-2
run 2 "create: qid above 65535" "$np" create nvme0/t1 nsid=1 qid=65536
run 2 "watch: bad option" "$np" watch --count
# a window's intent: CTRL/windows/NAME, its keys only (words.c np_win_key())
run 2 "create: a queue's key on a window" "$np" create nvme0/windows/w1 nsid=1 depth=8
has "$T/err" "create nvme0/windows/w1: depth: a queue's key, not a window's (nsid peer uid gid extents file file_off file_len enable)" \
	"create: a queue's key on a window named, with a window's keys"
run 2 "create: file_access on a window" "$np" create nvme0/windows/w1 nsid=1 file_access=read
run 2 "create: a window's extents with its file" "$np" create nvme0/windows/w1 nsid=1 extents=0+8 file=/srv/m enable=1
has "$T/err" "create nvme0/windows/w1: enable=1: a file's window takes no extents" \
	"create: a window's extents with its file: why"
run 2 "create: a window's file_off without a file" "$np" create nvme0/windows/w1 nsid=1 file_off=4096 enable=1
run 2 "create: a window without nsid" "$np" create nvme0/windows/w1 enable=1
run 2 "create: a window's bad extents" "$np" create nvme0/windows/w1 nsid=1 extents=8+0
run 2 "create: a queue named windows" "$np" create nvme0/windows nsid=1
has "$T/err" "'nvme0/windows': windows/ holds the window intents (CTRL/windows/NAME)" \
	"create: a queue named windows: why"
run 2 "create: a window's name with a slash" "$np" create nvme0/windows/a/b nsid=1
run 2 "create: a window's name too long" "$np" create nvme0/windows/abcdefghijklmnopqrstuvwxyz0123456
run 2 "show: windows/ itself" "$np" show nvme0/windows
run 2 "delete: windows/ itself" "$np" delete nvme0/windows
[ -z "$(tree | grep -v '^\.$')" ]
ok $? "refused creates made nothing"

# -- no module -------------------------------------------------------------
NVME_PEER_CONFIGFS=$T/none run 5 "list without the module" "$np" list
has "$T/err" "is the nvme-peer module loaded" "list says the module is missing"

# -- list, show, save of a fake tree --------------------------------------
fake_res nvme0/t1
attr "$T/cfg/nvme0/t1/live_qid" 5
fake_res nvme0/t2
attr "$T/cfg/nvme0/t2/opcodes" read,write
attr "$T/cfg/nvme0/t2/extents" 0+100,200+50
attr "$T/cfg/nvme0/t2/uid" 1000
attr "$T/cfg/nvme0/t2/state" waiting
attr "$T/cfg/nvme0/t2/reason" reset
fake_res nvme1/off
attr "$T/cfg/nvme1/off/opcodes" ""
attr "$T/cfg/nvme1/off/enable" 0
attr "$T/cfg/nvme1/off/state" disabled
attr "$T/cfg/nvme1/off/generation" 0
fake_q nvme0 5 configfs t1
fake_q nvme0 7 process ""
fake_q nvme0 9 kernel ""

mkdir "$T/cfg/nvme0/going"	# an rmdir under way: no attributes left
run 0 "list" "$np" list
has "$T/out" '^nvme0/t1  *configfs  *active  *5 ' "list: t1 active on qid 5"
has "$T/out" '^nvme0/t2  *configfs  *waiting .* reset$' "list: t2 waiting, reset"
has "$T/out" '^nvme0/q7  *process  *active  *7 ' "list: q7 of a process"
has "$T/out" '^nvme0/q9  *kernel ' "list: q9 of a driver"
has "$T/out" '^nvme1/off  *configfs  *disabled' "list: nvme1/off disabled"
grep -q '^nvme0/going' "$T/out"
[ $? = 1 ]
ok $? "list: a directory without state is not listed"
rmdir "$T/cfg/nvme0/going"
grep -q '^nvme0/q5' "$T/out"
[ $? = 1 ]
ok $? "list: q5 is t1's queue, not listed again"
run 0 "list --json" "$np" list --json
[ "$(grep -c '"name":' "$T/out")" = 5 ]
ok $? "list --json: 5 reservations"
has "$T/out" '^{"version":1,"reservations":\[$' "list --json: header"
has "$T/out" '"name":"nvme0/t2","kind":"queue","ctrl":"nvme0","source":"configfs","owner":"configfs","state":"waiting","reason":"reset","error":0,"live_qid":0,"generation":1,"attached":-1,"config":{"nsid":"1",' \
	"list --json: t2's object"
has "$T/out" '"name":"nvme0/q7",.*"source":"sysfs","owner":"process",.*"config":null}' \
	"list --json: q7's object"
if command -v python3 > /dev/null; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out"
	ok $? "list --json is JSON"
fi
run 0 "show" "$np" show nvme0/t1
has "$T/out" '^  queue q5:' "show: the queue"
has "$T/out" '^    owner  *configfs' "show: the queue's owner"
run 0 "show --json" "$np" show nvme0/t1 --json
has "$T/out" '"queue":{"attached":"0","name":"t1","owner":"configfs","qid":"5",' \
	"show --json: queue object"
run 0 "show a sysfs-only one" "$np" show nvme0/q7
run 5 "show: no such name" "$np" show nvme0/nope
run 5 "delete: no such name" "$np" delete nvme0/nope
run 0 "save" "$np" save
grep -v '^#' "$T/out" > "$T/saved"
cat > "$T/want" <<'EOT'
nvme0/t1 nsid=1 enable=1
nvme0/t2 nsid=1 uid=1000 opcodes=read,write extents=0+100,200+50 enable=1
nvme1/off nsid=1 enable=0
EOT
cmp -s "$T/saved" "$T/want"
ok $? "save: one line each, defaults left out, enable last"
cmp -s "$T/saved" "$T/want" || diff "$T/want" "$T/saved" | sed 's/^/# /'
# a window provider: one "CTRL pmr_nsid=NSID" line, none for 0 or without
# the attribute (a module without windows)
attr "$T/cfg/nvme0/pmr_nsid" 2
attr "$T/cfg/nvme1/pmr_nsid" 0
run 0 "save: a window provider" "$np" save
has "$T/out" '^nvme0 pmr_nsid=2$' "save: the provider's line"
! grep -q '^nvme1 ' "$T/out"
ok $? "save: no line for pmr_nsid 0"
attr "$T/cfg/nvme0/pmr_nsid" x
run 1 "save: an unreadable pmr_nsid fails" "$np" save
rm -f "$T/cfg/nvme0/pmr_nsid" "$T/cfg/nvme1/pmr_nsid"
run 0 "save FILE" "$np" save "$T/s.conf"
run 3 "restore --check: the names exist" "$np" restore --check "$T/s.conf"
has "$T/err" "s.conf:3: nvme0/t1: exists already" "restore --check: FILE:LINE of an existing name"
attr "$T/cfg/nvme0/t2/extents" "0+1 2+3"
run 1 "save refuses a value with a blank" "$np" save
attr "$T/cfg/nvme0/t2/extents" 0+100,200+50

# -- windows: list, show, save -----------------------------------------------
fake_ctrl nvme0
fake_ctrl nvme1
attr "$T/cfg/nvme0/pmr_nsid" 2
: > "$T/m.bin"
fake_win nvme0/w1
attr "$T/cfg/nvme0/windows/w1/uid" 1000
attr "$T/cfg/nvme0/windows/w1/extents" 0+2048
fake_win nvme0/m
attr "$T/cfg/nvme0/windows/m/file" "$T/m.bin"
attr "$T/cfg/nvme0/windows/m/file_off" 4096
attr "$T/cfg/nvme0/windows/m/state" down
attr "$T/cfg/nvme0/windows/m/reason" namespace
attr "$T/cfg/nvme0/windows/m/error" -6
attr "$T/cfg/nvme0/windows/m/generation" 3
fake_win nvme1/w0
attr "$T/cfg/nvme1/windows/w0/nsid" 0
attr "$T/cfg/nvme1/windows/w0/enable" 0
attr "$T/cfg/nvme1/windows/w0/state" disabled
attr "$T/cfg/nvme1/windows/w0/generation" 0
run 0 "list: windows" "$np" list
has "$T/out" '^nvme0/t1  *configfs  *active  *5 ' "list: the reservations' table as before"
has "$T/out" '^WINDOW  *STATE  *GEN  *NSID  *RANGE  *REASON$' "list: then the windows' table"
has "$T/out" '^nvme0/windows/w1  *active  *1  *2 extents=0+2048  *none$' \
	"list: a window of extents, active"
has "$T/out" "^nvme0/windows/m  *down  *3  *2 file=$T/m.bin,file_off=4096  *namespace (error -6)\$" \
	"list: a file's window, down, its reason and error"
has "$T/out" '^nvme1/windows/w0  *disabled  *0  *0 (whole namespace)  *none$' \
	"list: a disabled window of the whole namespace"
! grep -q '^nvme[01]/windows  ' "$T/out"
ok $? "list: windows/ itself is no reservation"
run 0 "list --json: windows" "$np" list --json
[ "$(grep -c '"kind":"queue"' "$T/out")" = 5 ] && [ "$(grep -c '"kind":"window"' "$T/out")" = 3 ]
ok $? "list --json: 5 queues and 3 windows, each with its kind"
has "$T/out" '^{"name":"nvme0/windows/w1","kind":"window","ctrl":"nvme0","source":"configfs","owner":"configfs","state":"active","reason":"none","error":0,"live_qid":0,"generation":1,"attached":-1,"config":{"nsid":"2","peer":"cpu","uid":"1000","gid":"-1","extents":"0+2048","file":"","file_off":"0","file_len":"0","enable":"1"}},$' \
	"list --json: a window's object, its keys only"
has "$T/out" '"name":"nvme0/t2","kind":"queue","ctrl":"nvme0",' "list --json: a reservation's kind"
has "$T/out" '"name":"nvme0/q7","kind":"queue",' "list --json: a sysfs-only one's kind"
if command -v python3 > /dev/null; then
	python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out"
	ok $? "list --json with windows is JSON"
fi
run 0 "show a window" "$np" show nvme0/windows/m
has "$T/out" '^  kind  *window$' "show: a window's kind"
has "$T/out" '^  state  *down$' "show: a window's state"
has "$T/out" '^  error  *-6$' "show: a window's error"
has "$T/out" "^    file  *$T/m.bin\$" "show: a window's file"
! grep -q -e '^    depth' -e '^  live_qid' -e '^  queue' "$T/out"
ok $? "show: a window has no queue's keys, no queue"
run 0 "show a window --json" "$np" show nvme0/windows/w1 --json
has "$T/out" '^{"name":"nvme0/windows/w1","kind":"window",.*,"config":{"nsid":"2",.*"enable":"1"},"queue":null}$' \
	"show --json: a window's object, no queue"
run 0 "show a reservation: its kind" "$np" show nvme0/t1
has "$T/out" '^  kind  *queue$' "show: a reservation's kind"
run 5 "show: no such window" "$np" show nvme0/windows/nope
has "$T/err" "nvme0/windows/nope: no such window" "show: no such window said"
run 0 "save: windows" "$np" save
grep -v '^#' "$T/out" > "$T/saved"
cat > "$T/want" <<EOT
nvme0/t1 nsid=1 enable=1
nvme0/t2 nsid=1 uid=1000 opcodes=read,write extents=0+100,200+50 enable=1
nvme1/off nsid=1 enable=0
nvme0 pmr_nsid=2
nvme0/windows/m nsid=2 file=$T/m.bin file_off=4096 enable=1
nvme0/windows/w1 nsid=2 uid=1000 extents=0+2048 enable=1
nvme1/windows/w0 enable=0
EOT
cmp -s "$T/saved" "$T/want"
ok $? "save: the reservations, the providers, then the windows, defaults left out, enable last"
cmp -s "$T/saved" "$T/want" || diff "$T/want" "$T/saved" | sed 's/^/# /'
has "$T/out" '^# nvme-peer save format 1, 20[0-9-]*T[0-9:]*Z: 3 reservations, 3 windows$' \
	"save: the format line counts the windows"
cp "$T/out" "$T/win.conf"
NVME_PEER_CONFIGFS=$T/none run 0 "restore --check: a save with windows" \
	"$np" restore --check "$T/win.conf"
has "$T/out" "win.conf: 3 reservations, 1 provider, 3 windows, valid (format 1)\$" \
	"restore --check counts the windows"
run 3 "restore --check: the windows exist" "$np" restore --check "$T/win.conf"
has "$T/err" "win.conf:9: nvme0/windows/m: exists already (delete it first)" \
	"restore --check: FILE:LINE of an existing window"
rm "$T/cfg/nvme1/windows/w0/nsid"
run 1 "save: a window's unreadable key fails" "$np" save
has "$T/err" "save: nvme1/windows/w0: nsid: unreadable" "save: the window's unreadable key said"
attr "$T/cfg/nvme1/windows/w0/nsid" 0
# a queue's intent named windows, of a module without windows: listed, not
# saved (restore would refuse the line)
fake_res nvme2/windows
run 0 "list: a queue named windows of an older module" "$np" list
has "$T/out" '^nvme2/windows  *configfs  *active ' "list: the queue named windows"
run 1 "save: a queue named windows fails" "$np" save
has "$T/err" "save: nvme2/windows: a queue's intent of that name cannot be restored" \
	"save: the queue named windows said"
rm -rf "$T/cfg/nvme2" "$T/cfg/nvme0/windows/w1" "$T/cfg/nvme0/windows/m" \
	"$T/cfg/nvme0/pmr_nsid" "$T/cfg/nvme1/pmr_nsid"
mv "$T/cfg/nvme1/windows/w0" "$T/w0"

# -- watch -------------------------------------------------------------------
# The kernel changes a reservation's attributes together; a test writes
# them one by one, so watch is stopped meanwhile (else a poll between two
# writes sees a state with the reason of the one before).  No sleep says
# when watch has looked: it says "ready" after its first scan, and each
# step waits for the line of the one before (at most 30 s, then fails).
# The output file goes before each watch: else the ready line of the one
# before may be read before the new one's shell truncated it.
await() { # await FILE PATTERN
	i=0
	while ! grep -q -e "$2" "$1" && [ $i -lt 300 ]; do
		sleep 0.1
		i=$((i + 1))
	done
}
rm -f "$T/watch"
"$np" watch --count 2 --timeout 60 > "$T/watch" 2>&1 &
wpid=$!
await "$T/watch" 'watch: ready'
kill -STOP $wpid
attr "$T/cfg/nvme0/t1/state" waiting
attr "$T/cfg/nvme0/t1/reason" reset
attr "$T/cfg/nvme0/t1/live_qid" 0
kill -CONT $wpid
await "$T/watch" 'Z revoked '
kill -STOP $wpid
attr "$T/cfg/nvme0/t1/state" active
attr "$T/cfg/nvme0/t1/live_qid" 6
attr "$T/cfg/nvme0/t1/generation" 2
kill -CONT $wpid
wait $wpid
ok $? "watch --count 2 exits 0 after two events"
has "$T/watch" '^20[0-9-]*T[0-9:.]*Z revoked  *nvme0/t1 state=waiting reason=reset qid=0 generation=1$' \
	"watch: the revocation, timestamped"
has "$T/watch" 'Z recreated  *nvme0/t1 state=active reason=reset qid=6 generation=2$' \
	"watch: the re-creation"
rm -f "$T/watch"
"$np" watch --count 2 --timeout 60 > "$T/watch" 2>&1 &
wpid=$!
await "$T/watch" 'watch: ready'
kill -STOP $wpid
attr "$T/cfg/nvme0/t1/state" disabled
attr "$T/cfg/nvme0/t1/reason" admin
kill -CONT $wpid
await "$T/watch" 'Z disabled '
kill -STOP $wpid
attr "$T/cfg/nvme0/t1/state" active
attr "$T/cfg/nvme0/t1/generation" 3
kill -CONT $wpid
wait $wpid
ok $? "watch: enable 0, then 1"
has "$T/watch" 'Z disabled  *nvme0/t1 state=disabled reason=admin ' "watch: disabled"
has "$T/watch" 'Z enabled  *nvme0/t1 state=active reason=admin qid=6 generation=3$' \
	"watch: enabled, not recreated, though the generation grew"
run 6 "watch --timeout before --count" "$np" watch --count 1 --timeout 1
rm -f "$T/watch"
"$np" watch --json --count 1 --timeout 60 > "$T/watch" 2>&1 &
wpid=$!
await "$T/watch" 'watch: ready'
# at once (rm -rf takes a file at a time: a scan between would see a change)
mv "$T/sys/nvme0/peer/q7" "$T/q7.gone"
wait $wpid
ok $? "watch --json --count 1"
has "$T/watch" '^{"time":"20[0-9T:.-]*Z","event":"deleted","name":"nvme0/q7","kind":"queue","source":"sysfs","state":"active","reason":"none","error":0,"live_qid":7,"generation":0}$' \
	"watch --json: a deletion"
# a window: its revocation
mv "$T/w0" "$T/cfg/nvme1/windows/w0"
attr "$T/cfg/nvme1/windows/w0/state" active
rm -f "$T/watch"
"$np" watch --json --count 1 --timeout 60 > "$T/watch" 2>&1 &
wpid=$!
await "$T/watch" 'watch: ready'
kill -STOP $wpid
attr "$T/cfg/nvme1/windows/w0/state" down
attr "$T/cfg/nvme1/windows/w0/reason" namespace
kill -CONT $wpid
wait $wpid
ok $? "watch --json: a window's change"
has "$T/watch" '^{"time":"20[0-9T:.-]*Z","event":"revoked","name":"nvme1/windows/w0","kind":"window","source":"configfs","state":"down","reason":"namespace","error":0,"live_qid":0,"generation":0}$' \
	"watch --json: a window revoked"

# -- restore: validation -----------------------------------------------------
rm -rf "$T/cfg" "$T/sys"
mkdir -p "$T/cfg" "$T/sys"
: > "$T/data"
long=$(head -c 8200 /dev/zero | tr '\0' 'a')
# bad FILE LINE MESSAGE NAME: a file with one bad line after a good one
bad() {
	printf 'nvme0/good nsid=1 enable=1\n%s\n' "$1" > "$T/bad.conf"
	before=$(tree)
	run 3 "restore: $3" "$np" restore "$T/bad.conf"
	has "$T/err" "^$T/bad.conf:2: $2" "restore: $3: FILE:LINE and why"
	[ "$before" = "$(tree)" ]
	ok $? "restore: $3: nothing created"
}
bad "nvme0/t1 nsid=1 colour=blue" "nvme0/t1: unknown key 'colour'" "unknown key"
bad "nvme0/t1 nsid=0x1g" "nvme0/t1: nsid: '0x1g' is not a number" "bad number"
bad "nvme0/t1 depth=99999999999" "nvme0/t1: depth: .* is not a number" "number too big"
bad "nvme0/good nsid=2" "nvme0/good: duplicate name (line 1)" "duplicate name"
bad "nvme0/t1 nsid=1 file=$T/missing enable=1" "nvme0/t1: file: $T/missing: No such file" "missing file"
bad "nvme0/t1 nsid=1 file=$T enable=1" "nvme0/t1: file: $T: not a regular file" "file is a directory"
# the kernel's rules (words.c): what configfs refuses
bad "nvme0/. nsid=1" "'nvme0/.': NAME is" "name ."
bad "nvme0/t1 extents=5+0" "nvme0/t1: extents: '5+0' is not SLBA+NLB" "extent of no LBA"
bad "nvme0/t1 nsid=+5" "nvme0/t1: nsid: '+5' is not a number" "signed number"
bad "nvme0/t1 nsid=1 file_off=4096 enable=1" "nvme0/t1: enable=1: file_off, file_len" "file range without file"
printf 'nvme0/later nsid=1 file=%s/not-yet enable=0\n' "$T" > "$T/later.conf"
run 0 "restore --check: a file that comes later, enable=0" "$np" restore --check "$T/later.conf"
bad "nvme0/t1 nsid=1 extents=$long" "line longer than 8191 characters" "long line"
bad "t1 nsid=1" "'t1': a name is CTRL/NAME" "name without controller"
bad "nvme0 pmr_nsid=0" "nvme0: 'pmr_nsid=0': a controller's line is pmr_nsid=NSID" "provider of namespace 0"
bad "nvme0 pmr_nsid=1 pmr_nsid=2" "nvme0: 'pmr_nsid=2': a controller's line" "provider twice"
bad "nvme0 nsid=1" "nvme0: 'nsid=1': a controller's line" "provider with another key"
bad "nvme0" "nvme0: no pmr_nsid=NSID" "provider line without pmr_nsid"
printf 'nvme0 pmr_nsid=2\nnvme1 pmr_nsid=2\nnvme0 pmr_nsid=3\n' > "$T/prov.conf"
run 3 "restore: a controller twice" "$np" restore "$T/prov.conf"
has "$T/err" "prov.conf:3: nvme0: duplicate controller (line 1)" "restore: a controller twice: FILE:LINE"
printf 'nvme0/a nsid=1\nnvme0 pmr_nsid=2\n' > "$T/prov.conf"
run 0 "restore --check: a provider" "$np" restore --check "$T/prov.conf"
has "$T/out" "prov.conf: 1 reservation, 1 provider, valid" "restore --check counts providers"
bad "nvme0/t1 nsid" "nvme0/t1: 'nsid' is not KEY=VALUE" "word without ="
bad "nvme0/t1 enable=1" "nvme0/t1: enable=1 needs nsid" "enable without nsid"
bad "nvme0/t1 nsid=1 mode=shared" "nvme0/t1: mode: 'shared'" "unknown mode"
printf 'nvme0/a nsid=1\nnvme0/b bogus=1\nnvme0/a depth=x\n' > "$T/bad.conf"
run 3 "restore: every error is said" "$np" restore "$T/bad.conf"
[ "$(grep -c "^$T/bad.conf:[23]: " "$T/err")" = 3 ]
ok $? "restore: three errors, each with FILE:LINE"
printf 'nvme0/s nsid=1 colour=red\n' | "$np" restore > "$T/out" 2> "$T/err"
[ $? = 3 ]
ok $? "restore from stdin: exit 3"
has "$T/err" '^<stdin>:1: ' "restore from stdin: <stdin>:LINE"

# windows: their keys, their rules (words.c np_win_enable_check()) and a
# provider that shows their namespace
bad "nvme0/windows/w1 nsid=2 depth=8 enable=0" \
	"nvme0/windows/w1: depth: a queue's key, not a window's (nsid peer uid gid extents file file_off file_len enable)" \
	"a queue's key on a window's line"
bad "nvme0/windows/w1 nsid=2 opcodes=read" "nvme0/windows/w1: opcodes: a queue's key" \
	"opcodes on a window's line"
bad "nvme0/windows/w1 nsid=2 extents=0+8 file=$T/data enable=1" \
	"nvme0/windows/w1: enable=1: a file's window takes no extents (its blocks are)" \
	"a window's extents with its file"
bad "nvme0/windows/w1 nsid=2 file_len=4096 enable=1" "nvme0/windows/w1: enable=1: file_off, file_len" \
	"a window's file range without a file"
bad "nvme0/windows/w1 enable=1" "nvme0/windows/w1: enable=1 needs nsid" "a window without nsid"
bad "nvme0/windows/w1 nsid=2 enable=1" \
	"nvme0/windows/w1: enable=1 needs nvme0's window provider: a line 'nvme0 pmr_nsid=2' (nvme0 declares none)" \
	"a window without its provider"
bad "nvme0/windows nsid=1" "'nvme0/windows': windows/ holds the window intents" "a queue named windows"
bad "nvme0/windows/ nsid=1" "'nvme0/windows/': NAME is" "a window without a name"
printf 'nvme0 pmr_nsid=3\nnvme0/windows/w nsid=2 enable=1\n' > "$T/bad.conf"
run 3 "restore: a window of another namespace than its provider's" "$np" restore "$T/bad.conf"
has "$T/err" "bad.conf:2: nvme0/windows/w: nsid=2, but nvme0's provider (line 1) shows namespace 3" \
	"restore: the provider's namespace said"
mkdir -p "$T/cfg/nvme0/windows"
attr "$T/cfg/nvme0/pmr_nsid" 2
printf 'nvme0/windows/w nsid=2 enable=1\nnvme0/windows/v nsid=0x2 extents=0+8 enable=1\n' > "$T/decl.conf"
run 0 "restore --check: windows of a declared provider" "$np" restore --check "$T/decl.conf"
has "$T/out" "decl.conf: 0 reservations, 2 windows, valid" "restore --check: the windows counted"
printf 'nvme0/windows/w nsid=3 enable=1\n' > "$T/decl.conf"
run 3 "restore: a window of another namespace than the declared" "$np" restore "$T/decl.conf"
has "$T/err" "decl.conf:1: nvme0/windows/w: nsid=3, but nvme0's provider (declared) shows namespace 2" \
	"restore: the declared provider's namespace said"
printf 'nvme0/windows/w nsid=3 enable=0\n' > "$T/decl.conf"
run 0 "restore --check: a disabled window needs no provider" "$np" restore --check "$T/decl.conf"
mkdir "$T/cfg/nvme0/windows/w"
run 3 "restore: a window that exists" "$np" restore "$T/decl.conf"
has "$T/err" "decl.conf:1: nvme0/windows/w: exists already (delete it first)" \
	"restore: the existing window said"
rm -rf "$T/cfg/nvme0"
printf 'nvme0/w nsid=1\nnvme0/windows/w nsid=1\n' > "$T/decl.conf"
NVME_PEER_CONFIGFS=$T/none run 0 "restore --check: a queue and a window of one name" \
	"$np" restore --check "$T/decl.conf"
printf 'nvme0/windows/w nsid=1\nnvme0/windows/w nsid=2\n' > "$T/decl.conf"
NVME_PEER_CONFIGFS=$T/none run 3 "restore: a window twice" "$np" restore --check "$T/decl.conf"
has "$T/err" "decl.conf:2: nvme0/windows/w: duplicate name (line 1)" "restore: a window twice said"

# -- restore: good files -----------------------------------------------------
cat > "$T/good.conf" <<EOT
# comment
   # indented comment

nvme0/a nsid=1 depth=0x40 # a comment after the words
nvme0/b nsid=1 file=$T/data file_access=rw opcodes=read,write enable=1
nvme1/c	nsid=2	peer=0000:03:00.0	uid=1000	gid=-1	enable=0
nvme1/d nsid=3 mode=isolated data_placement=host data_size=8192
EOT
run 0 "restore --check: a good file" "$np" restore --check "$T/good.conf"
has "$T/out" "good.conf: 4 reservations, valid" "restore --check counts them"
here=$(dirname "$(realpath "$0")")
run 0 "restore --check: contrib/nvme-peer.conf.example" \
	"$np" restore --check "$here/../contrib/nvme-peer.conf.example"
sed -e 's|^#\(nvme0 pmr_nsid=\)|\1|' -e 's|^#\(nvme0/windows/\)|\1|' \
	"$here/../contrib/nvme-peer.conf.example" > "$T/example.conf"
run 0 "restore --check: the example's provider and window" \
	"$np" restore --check "$T/example.conf"
has "$T/out" "example.conf: 1 reservation, 1 provider, 1 window, valid" \
	"restore --check: the example's window counted"
# A plain directory has no attribute files: writing nsid fails with ENOENT,
# as a kernel step can fail, and restore undoes what it made.
printf 'nvme0/a enable=0\nnvme1/b enable=0\nnvme0/c nsid=1 enable=1\n' > "$T/fail.conf"
run 1 "restore: a failing step" "$np" restore "$T/fail.conf"
has "$T/err" "^nvme-peer: $T/fail.conf:3: create nvme0/c: nsid=1: No such file or directory (ENOENT: " \
	"restore: the failing step's FILE:LINE and errno"
[ -z "$(tree | grep -v '^\.$')" ]
ok $? "restore: the failing step undid all it made"
printf 'nvme0/a enable=0\nnvme1/b enable=0\n' > "$T/ok.conf"
run 0 "restore: directories only" "$np" restore "$T/ok.conf"
[ -d "$T/cfg/nvme0/a" ] && [ -d "$T/cfg/nvme1/b" ]
ok $? "restore made them"
run 0 "delete" "$np" delete nvme0/a
[ ! -e "$T/cfg/nvme0" ]
ok $? "delete removed the emptied controller directory"
attr "$T/cfg/nvme1/pmr_nsid" 2
run 0 "delete beside a window provider" "$np" delete nvme1/b
[ -e "$T/cfg/nvme1/pmr_nsid" ]
ok $? "delete keeps a controller directory that declares a provider"
# (configfs's attribute files never keep a directory from rmdir; this one would)
rm "$T/cfg/nvme1/pmr_nsid"
mkdir "$T/cfg/nvme1/b"
run 0 "delete --all" "$np" delete --all
[ -z "$(tree | grep -v '^\.$')" ]
ok $? "delete --all removed everything"

# -- windows: restore's order, create, delete ----------------------------------
# Queues' intents first, then the providers, then the windows, whatever the
# lines' order: a plain directory has no attribute files, so the first value
# written below one fails (as a kernel step can), which tells the step that
# was reached; each failure undoes all
fake_ctrl nvme0
before=$(tree)
printf 'nvme0/windows/w nsid=2 enable=1\nnvme0 pmr_nsid=2\nnvme0/q nsid=1\n' > "$T/order.conf"
run 1 "restore: a queue's first" "$np" restore "$T/order.conf"
has "$T/err" "^nvme-peer: $T/order.conf:3: create nvme0/q: nsid=1: No such file" \
	"restore: the queue's line, the last, made first"
[ "$before" = "$(tree)" ] && [ "$(cat "$T/cfg/nvme0/pmr_nsid")" = 0 ]
ok $? "restore: a queue's failure undid all"
rm "$T/cfg/nvme0/pmr_nsid"
printf 'nvme0/windows/w nsid=2 enable=1\nnvme0 pmr_nsid=2\nnvme0/q enable=0\n' > "$T/order.conf"
run 1 "restore: then the provider" "$np" restore "$T/order.conf"
has "$T/err" "^nvme-peer: $T/order.conf:2: nvme0 pmr_nsid=2: No such file" \
	"restore: the provider's line before the window's"
[ ! -e "$T/cfg/nvme0/q" ] && [ ! -e "$T/cfg/nvme0/windows/w" ]
ok $? "restore: a provider's failure undid all"
attr "$T/cfg/nvme0/pmr_nsid" 0
if command -v strace > /dev/null; then
	strace -o "$T/strace" -e trace=open,openat,write \
		"$np" restore "$T/order.conf" > "$T/out" 2> "$T/err"
else
	"$np" restore "$T/order.conf" > "$T/out" 2> "$T/err"
fi
[ $? = 1 ]
ok $? "restore: then the window (rc 1)"
has "$T/err" "^nvme-peer: $T/order.conf:1: create nvme0/windows/w: nsid=2: No such file" \
	"restore: the window's line, the first, made last"
[ "$before" = "$(tree)" ] && [ "$(cat "$T/cfg/nvme0/pmr_nsid")" = 0 ]
ok $? "restore: a window's failure undid all"
if command -v strace > /dev/null; then
	# the writes to pmr_nsid: declared, then withdrawn
	grep -A1 'pmr_nsid.*O_WRONLY' "$T/strace" | sed -n 's/^write([0-9]*, "\([^"]*\)".*/\1/p' |
		tr '\n' ' ' > "$T/order"
	[ "$(cat "$T/order")" = "2 0 " ]
	ok $? "restore: the window's failure withdrew its provider ($(cat "$T/order"))"
else
	echo "ok $((n + 1)) # SKIP restore's writes to pmr_nsid: no strace"
	n=$((n + 1))
fi
printf 'nvme0/windows/w enable=0\nnvme0 pmr_nsid=2\nnvme0/q enable=0\n' > "$T/order.conf"
if command -v strace > /dev/null; then
	strace -f -o "$T/strace" -e trace=mkdir,mkdirat,open,openat \
		"$np" restore "$T/order.conf" > "$T/out" 2> "$T/err"
else
	"$np" restore "$T/order.conf" > "$T/out" 2> "$T/err"
fi
ok $? "restore: a queue, a provider, a window"
[ -d "$T/cfg/nvme0/q" ] && [ -d "$T/cfg/nvme0/windows/w" ] &&
	[ "$(cat "$T/cfg/nvme0/pmr_nsid")" = 2 ]
ok $? "restore: made them"
if command -v strace > /dev/null; then
	# what was made: the mkdirs that succeeded, the provider's write
	grep -e 'mkdir.*) *= 0$' -e 'pmr_nsid.*O_WRONLY' "$T/strace" |
		sed -n 's|.*"'"$T"'/cfg/\([^"]*\)".*|\1|p' | tr '\n' ' ' > "$T/order"
	[ "$(cat "$T/order")" = "nvme0/q nvme0/pmr_nsid nvme0/windows/w " ]
	ok $? "restore: the queue, the provider, the window ($(cat "$T/order"))"
else
	echo "ok $((n + 1)) # SKIP restore's system calls in order: no strace"
	n=$((n + 1))
fi
# delete: a window; the controller directory that declares a provider stays
run 0 "delete a window" "$np" delete nvme0/windows/w
[ ! -e "$T/cfg/nvme0/windows/w" ] && [ -d "$T/cfg/nvme0/windows" ]
ok $? "delete: the window went, windows/ stays"
run 5 "delete: no such window" "$np" delete nvme0/windows/w
has "$T/err" "delete nvme0/windows/w: no such window" "delete: no such window said"
run 0 "delete the last reservation beside a provider" "$np" delete nvme0/q
[ -d "$T/cfg/nvme0/windows" ] && [ "$(cat "$T/cfg/nvme0/pmr_nsid")" = 2 ]
ok $? "delete: a controller directory that declares a provider stays"
# create: below windows/, which configfs makes with the controller
# directory, never the command (its mkdir would make a queue's intent of a
# module without windows)
run 0 "create a window" "$np" create nvme0/windows/w enable=0
[ -d "$T/cfg/nvme0/windows/w" ]
ok $? "create: the window's directory"
run 1 "create a window: a failing step" "$np" create nvme0/windows/v nsid=2 extents=0+8 enable=1
has "$T/err" "^nvme-peer: create nvme0/windows/v: nsid=2: No such file or directory (ENOENT: " \
	"create a window: the failing step and errno"
[ ! -e "$T/cfg/nvme0/windows/v" ]
ok $? "create a window: the failing step undone"
run 1 "create a window of a module without windows" "$np" create nvme3/windows/w enable=0
has "$T/err" "create nvme3/windows/w: no nvme3/windows/ (a module without window intents)" \
	"create a window: no windows/ said"
[ ! -e "$T/cfg/nvme3" ]
ok $? "create a window: the controller directory it made removed"
rm "$T/cfg/nvme0/pmr_nsid"
run 0 "delete the last window" "$np" delete nvme0/windows/w
[ ! -e "$T/cfg/nvme0" ]
ok $? "delete: the emptied controller directory went, windows/ with it"
# delete --all: the windows, the reservations, the controller directories
fake_ctrl nvme0
fake_ctrl nvme1
rm "$T/cfg/nvme0/pmr_nsid" "$T/cfg/nvme1/pmr_nsid"
mkdir "$T/cfg/nvme0/windows/a" "$T/cfg/nvme0/windows/b" "$T/cfg/nvme0/q" \
	"$T/cfg/nvme1/windows/c"
if command -v strace > /dev/null; then
	strace -o "$T/strace" -e trace=rmdir,unlinkat "$np" delete --all \
		> "$T/out" 2> "$T/err"
else
	"$np" delete --all > "$T/out" 2> "$T/err"
fi
ok $? "delete --all: windows"
[ -z "$(tree | grep -v '^\.$')" ]
ok $? "delete --all removed the windows and everything"
if command -v strace > /dev/null; then
	# what went (windows/ is the tree's own: configfs takes it along)
	sed -n 's|^rmdir("'"$T"'/cfg/\([^"]*\)") *= 0$|\1|p' "$T/strace" |
		grep -v '/windows$' | tr '\n' ' ' > "$T/order"
	[ "$(cat "$T/order")" = "nvme0/windows/a nvme0/windows/b nvme0/q nvme0 nvme1/windows/c nvme1 " ]
	ok $? "delete --all: the windows, the reservations, the controller ($(cat "$T/order"))"
else
	echo "ok $((n + 1)) # SKIP delete --all's system calls in order: no strace"
	n=$((n + 1))
fi

# -- bash completion ---------------------------------------------------------
# complete LINE: what the completion offers for LINE (cursor at its end)
complete_line() {
	bash -c '. "$1"; COMP_LINE=$2; COMP_POINT=${#COMP_LINE}; _nvme_peer
		 printf "%s\n" "${COMPREPLY[@]}"' _ \
		"$here/../contrib/nvme-peer.bash-completion" "$1" 2> /dev/null | tr '\n' ' '
}
if command -v bash > /dev/null; then
	fake_res nvme0/t1
	fake_win nvme0/w1
	mkdir -p "$T/sys/nvme0"
	[ "$(complete_line 'nvme-peer show ')" = "--json nvme0/t1 nvme0/windows/w1 " ]
	ok $? "completion: show offers reservations and windows, not windows/"
	[ "$(complete_line 'nvme-peer create nvme0')" = "nvme0/ nvme0/windows/ " ]
	ok $? "completion: create offers CTRL/ and CTRL/windows/"
	[ "$(complete_line 'nvme-peer create nvme0/windows/w2 ')" = "nsid= peer= uid= gid= extents= file= file_off= file_len= enable= " ]
	ok $? "completion: a window's keys only"
	complete_line 'nvme-peer create nvme0/t2 ' | grep -q ' depth= '
	ok $? "completion: a queue's keys"
	rm -rf "$T/cfg/nvme0" "$T/sys/nvme0"
else
	for what in "show's names" "create's controllers" "a window's keys" \
		    "a queue's keys"; do
		echo "ok $((n + 1)) # SKIP completion: $what: no bash"
		n=$((n + 1))
	done
fi

# -- version and save file format ----------------------------------------------
run 0 "--version" "$np" --version
pkgver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$here/../../../dkms.conf")
has "$T/out" "^nvme-peer version $pkgver (save file format 1)\$" \
	"--version: dkms.conf's version ($pkgver) and the format"
run 0 "version" "$np" version
run 2 "version: no argument" "$np" version x
fake_res nvme0/a
run 0 "save: a format line" "$np" save "$T/f.conf"
head -n 1 "$T/f.conf" > "$T/line1"
has "$T/line1" '^# nvme-peer save format 1, 20[0-9-]*T[0-9:]*Z: 1 reservation$' \
	"save: the format line is the first"
NVME_PEER_CONFIGFS=$T/none run 0 "restore --check: format 1" \
	"$np" restore --check "$T/f.conf"
has "$T/out" "f.conf: 1 reservation, valid (format 1)\$" "restore --check: format 1 said"
printf '# nvme-peer save format 2, 2030-01-01T00:00:00Z: 1 reservation\nnvme0/a nsid=1 enable=1\n' > "$T/f2.conf"
NVME_PEER_CONFIGFS=$T/none run 3 "restore: a newer format" "$np" restore --check "$T/f2.conf"
has "$T/err" "^$T/f2.conf:1: save file format 2; this nvme-peer ($pkgver) reads format 1: written by a newer nvme-peer\$" \
	"restore: a newer format: FILE:LINE and why"
printf '# nvme-peer save format one\nnvme0/a nsid=1 enable=1\n' > "$T/f2.conf"
NVME_PEER_CONFIGFS=$T/none run 3 "restore: a malformed format line" "$np" restore --check "$T/f2.conf"
has "$T/err" "f2.conf:1: format line: 'one' is not a format number" "restore: malformed format line said"
# a file of the tool before format lines: read as format 1
grep -v '^# nvme-peer save format' "$T/f.conf" > "$T/f0.conf"
NVME_PEER_CONFIGFS=$T/none run 0 "restore: no format line" "$np" restore --check "$T/f0.conf"
has "$T/out" "f0.conf: 1 reservation, valid (format 1: no format line)\$" \
	"restore --check: an unversioned file is read as format 1"
# two saves in one file (cat a b): two format lines
cat "$T/f.conf" "$T/f.conf" | sed '6s|nvme0/a|nvme0/b|' > "$T/f3.conf"
NVME_PEER_CONFIGFS=$T/none run 0 "restore: two saves in one file" "$np" restore --check "$T/f3.conf"

# -- restore: read errors ----------------------------------------------------
# getline() fails the same way at the end and on an error: an error, or
# running out of memory, must not pass for the end of the file
run 3 "restore: a directory" "$np" restore --check "$T"
has "$T/err" "^$T:1: cannot read: Is a directory" "restore: the read error said"
# a good line, then one of 64 MiB that cannot be held in 48 MiB
{ echo "nvme0/x nsid=1 enable=0"; head -c 67108864 /dev/zero | tr '\0' x; } > "$T/huge.conf"
( ulimit -v 49152; NVME_PEER_CONFIGFS=$T/none exec "$np" restore --check "$T/huge.conf" ) \
	> "$T/out" 2> "$T/err"
rc=$?
[ $rc = 3 ]
ok $? "restore: out of memory reading a line: exit 3 (rc $rc), not a valid file"
has "$T/err" "huge.conf:2: cannot read: Cannot allocate memory" "restore: out of memory said"
rm -f "$T/huge.conf"

# -- save: all or nothing ----------------------------------------------------
# FILE holds a save of one reservation; a save of 41 writes 1-2 KB: it is
# killed or fails at several points; FILE must restore as before each time.
rm -rf "$T/cfg" "$T/sys"
mkdir -p "$T/cfg" "$T/sys"
fake_res nvme0/a
mkdir "$T/d"
run 0 "save: the old file" "$np" save "$T/d/s.conf"
[ "$(stat -c %a "$T/d/s.conf")" = 600 ]
ok $? "save: FILE is mode 0600 ($(stat -c %a "$T/d/s.conf"))"
umask 022
cp -p "$T/d/s.conf" "$T/old.conf"
i=0
while [ $i -lt 40 ]; do
	i=$((i + 1))
	fake_res nvme1/r$i
	attr "$T/cfg/nvme1/r$i/extents" "0+1024,4096+1024"
done
# same FILE as before, and it restores as before; no temporary file left
# unless the save was SIGKILLed
same() {
	cmp -s "$T/old.conf" "$T/d/s.conf"
	ok $? "save: $1: FILE as it was"
	NVME_PEER_CONFIGFS=$T/none "$np" restore --check "$T/d/s.conf" > "$T/chk" 2>&1
	has "$T/chk" "s.conf: 1 reservation, valid (format 1)" "save: $1: FILE restores as before"
	if [ "$2" != leftover ]; then
		[ -z "$(ls "$T/d" | grep -v '^s\.conf$')" ]
		ok $? "save: $1: no temporary file left"
		ls "$T/d" | grep -v '^s\.conf$' | sed 's/^/# /'
	fi
	rm -f "$T"/d/s.conf.tmp.*
}
# SIGXFSZ (ulimit -f 1: 512 bytes) kills it in its write
# (the subshell waits for it and says "File size limit exceeded" to null)
( ulimit -f 1; "$np" save "$T/d/s.conf" > "$T/out" 2> "$T/err"; echo $? > "$T/rc" ) 2> /dev/null
rc=$(cat "$T/rc")
[ $rc -gt 128 ]
ok $? "save: killed by SIGXFSZ in its write (rc $rc)"
same "killed in its write"
# SIGXFSZ ignored: the write fails with EFBIG
( trap '' XFSZ; ulimit -f 1; exec "$np" save "$T/d/s.conf" ) > "$T/out" 2> "$T/err"
rc=$?
[ $rc = 1 ]
ok $? "save: a failing write: exit 1 (rc $rc)"
has "$T/err" "save: $T/d/s.conf: write: File too large" "save: the failing write said"
same "failing write"
# killed while it reads configfs: an attribute that is a FIFO blocks it
rm "$T/cfg/nvme1/r40/depth"
mkfifo "$T/cfg/nvme1/r40/depth"
"$np" save "$T/d/s.conf" > "$T/out" 2>&1 &
spid=$!
sleep 1
kill -KILL $spid
{ wait $spid; } 2> /dev/null
rc=$?
[ $rc = 137 ]
ok $? "save: SIGKILLed while reading configfs (rc $rc)"
same "SIGKILLed while reading"
rm "$T/cfg/nvme1/r40/depth"
attr "$T/cfg/nvme1/r40/depth" 64
# SIGKILL at each step of the write: the temporary file made (fchmod),
# written, synced, renamed; strace injects it
if command -v strace > /dev/null; then
	for sc in fchmod write fsync rename; do
		strace -f -o /dev/null -e trace=$sc -e inject=$sc:signal=KILL:when=1 \
			"$np" save "$T/d/s.conf" > /dev/null 2>&1
		rc=$?
		[ $rc = 137 ]
		ok $? "save: SIGKILLed at its first $sc (rc $rc)"
		same "SIGKILLed at $sc" leftover
	done
	# the order that makes it durable: the file synced, renamed, the
	# directory synced
	"$np" delete nvme1/r40 > /dev/null 2>&1 || rm -rf "$T/cfg/nvme1/r40"
	strace -o "$T/strace" -e trace=fsync,rename,renameat,renameat2 \
		"$np" save "$T/d/s.conf" > /dev/null 2>&1
	sed -n 's/^\([a-z0-9]*\)(.*/\1/p' "$T/strace" | tr '\n' ' ' > "$T/order"
	grep -qx 'fsync rename[a-z0-9]* fsync ' "$T/order"
	ok $? "save: fsync, rename, fsync of the directory ($(cat "$T/order"))"
	has "$T/d/s.conf" '^nvme1/r39 ' "save: the new FILE once it succeeds"
	cp -p "$T/d/s.conf" "$T/old.conf"
	rm -rf "$T/cfg/nvme1/r39"
else
	echo "ok $((n + 1)) # SKIP save killed at each system call: no strace"
	n=$((n + 1))
fi
# ENOSPC: a file system that holds the old file and no second one
if [ "$(id -u)" = 0 ] && mkdir "$T/small" &&
   mount -t tmpfs -o size=4k,mode=0755 np-native "$T/small" 2> /dev/null; then
	cp -p "$T/old.conf" "$T/small/s.conf"
	"$np" save "$T/small/s.conf" > "$T/out" 2> "$T/err"
	rc=$?
	[ $rc = 1 ]
	ok $? "save: a full file system: exit 1 (rc $rc)"
	has "$T/err" "save: $T/small/s.conf: write: No space left on device" \
		"save: ENOSPC said"
	cmp -s "$T/old.conf" "$T/small/s.conf"
	ok $? "save: a full file system: FILE as it was"
	[ "$(ls "$T/small")" = s.conf ]
	ok $? "save: a full file system: no temporary file left"
	umount "$T/small"
else
	echo "ok $((n + 1)) # SKIP save on a full file system: not root or no tmpfs mount"
	n=$((n + 1))
fi
# standard output: a failed write is an error too
if [ -w /dev/full ]; then
	"$np" save > /dev/full 2> "$T/err"
	rc=$?
	[ $rc = 1 ]
	ok $? "save to a full standard output: exit 1 (rc $rc)"
	has "$T/err" "save: stdout: No space left on device" "save to a full standard output: said"
fi
# a symbolic link: its target is replaced, the link stays
ln -s s.conf "$T/d/link.conf"
run 0 "save through a symbolic link" "$np" save "$T/d/link.conf"
[ -L "$T/d/link.conf" ] && ! cmp -s "$T/old.conf" "$T/d/s.conf"
ok $? "save: the link stays, its target is the new save"
rm -f "$T/d/link.conf"

tap_end
