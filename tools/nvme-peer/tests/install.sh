#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# make install and make uninstall of tools/nvme-peer in temporary DESTDIRs:
# the files where PREFIX puts them (udev rule and unit below PREFIX/lib
# for /usr and /usr/local), the unit running the installed command, the
# man page and the bash completion usable, and uninstall leaving the tree
# exactly as it was before install (empty, or what was there already).
#
# usage: tests/install.sh; prints TAP, exits 1 on failure
here=$(cd "$(dirname "$0")/.." && pwd)
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/tap.sh"

# what is below DESTDIR: names, types and modes
tree() { (cd "$1" && find . -mindepth 1 -printf '%p %y %m\n' | sort); }

inst() { # inst DESTDIR MAKE-ARGS...: install, its output in $T/log
	d=$1
	shift
	make -s -C "$here" install DESTDIR="$d" "$@" > "$T/log" 2>&1
}

uninst() {
	d=$1
	shift
	make -s -C "$here" uninstall DESTDIR="$d" "$@" > "$T/log" 2>&1
}

echo "TAP version 13"

# -- PREFIX=/usr/local (the default) --------------------------------------
D=$T/local
mkdir "$D"
inst "$D"
ok $? "install: PREFIX=/usr/local"
for f in sbin/nvme-peer:755 share/man/man8/nvme-peer.8:644 \
	 share/bash-completion/completions/nvme-peer:644 \
	 lib/udev/rules.d/60-nvme-peer.rules:644 \
	 lib/systemd/system/nvme-peer.service:644 \
	 share/doc/nvme-peer/peer-admin.rst:644 \
	 share/doc/nvme-peer/nvme-peer.conf.example:644 \
	 share/doc/nvme-peer/nvme-peer.modprobe.conf:644; do
	p=$D/usr/local/${f%:*}
	[ -f "$p" ] && [ "$(stat -c %a "$p")" = "${f#*:}" ]
	ok $? "install: /usr/local/${f%:*}, mode ${f#*:}"
done
u=$D/usr/local/lib/systemd/system/nvme-peer.service
grep -qx 'ExecStart=/usr/local/sbin/nvme-peer restore /etc/nvme-peer.conf' "$u" &&
	grep -qx 'ExecStop=/usr/local/sbin/nvme-peer delete --all' "$u" &&
	! grep -q '@' "$u"
ok $? "install: the unit runs /usr/local/sbin/nvme-peer"
"$D/usr/local/sbin/nvme-peer" --version > /dev/null
ok $? "install: the installed command runs"
if command -v groff > /dev/null; then
	LC_ALL=C groff -man -Tutf8 -ww -z "$D/usr/local/share/man/man8/nvme-peer.8" > "$T/groff" 2>&1 &&
		[ ! -s "$T/groff" ]
	ok $? "install: the man page formats without a warning (groff -ww)"
	sed 's/^/# /' "$T/groff"
else
	echo "ok $((n + 1)) # SKIP the man page: no groff"
	n=$((n + 1))
fi
pkgver=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"$/\1/p' "$here/../../dkms.conf")
grep -q "^\.TH NVME-PEER 8 .* \"nvme-peer $pkgver\" " "$D/usr/local/share/man/man8/nvme-peer.8"
ok $? "man page: of nvme-peer $pkgver (dkms.conf)"
# every command of the usage text is in the man page
for c in list show create delete save restore watch version; do
	grep -q "^\.B nvme-peer $c\$" "$D/usr/local/share/man/man8/nvme-peer.8"
	ok $? "man page: synopsis of $c"
done
if command -v bash > /dev/null; then
	mkdir -p "$T/cfg/nvme0/t1" "$T/cfg/nvme1/t2" "$T/sys/nvme0"
	NVME_PEER_CONFIGFS=$T/cfg NVME_PEER_SYSFS=$T/sys bash -c '
		. "$1"
		c() { COMP_LINE=$1; COMP_POINT=${#1}; COMPREPLY=(); _nvme_peer
		      echo "${COMPREPLY[*]}"; }
		c "nvme-peer re"
		c "nvme-peer show "
		c "nvme-peer delete --"
		c "nvme-peer create "
		c "nvme-peer create nvme0/x sq_pl"
		c "nvme-peer create nvme0/x mode=i"
		c "nvme-peer restore --c"
		c "nvme-peer watch --count "
		complete -p nvme-peer' sh \
		"$D/usr/local/share/bash-completion/completions/nvme-peer" > "$T/comp" 2>&1
	printf '%s\n' restore "--json nvme0/t1 nvme1/t2" --all "nvme0/ nvme0/windows/" \
		sq_placement= isolated --check "" \
		"complete -F _nvme_peer nvme-peer" > "$T/want"
	cmp -s "$T/comp" "$T/want"
	ok $? "bash completion: commands, names, controllers, keys, values, options"
	cmp -s "$T/comp" "$T/want" || diff "$T/want" "$T/comp" | sed 's/^/# /'
fi
uninst "$D"
ok $? "uninstall: PREFIX=/usr/local"
[ -z "$(tree "$D")" ]
ok $? "uninstall: an empty tree after"
tree "$D" | sed 's/^/# left: /'

# -- PREFIX=/usr: the rule and the unit where distributions put them -------
D=$T/usr
mkdir "$D"
inst "$D" PREFIX=/usr
ok $? "install: PREFIX=/usr"
[ -f "$D/usr/lib/udev/rules.d/60-nvme-peer.rules" ] &&
	[ -f "$D/usr/lib/systemd/system/nvme-peer.service" ] &&
	[ -x "$D/usr/sbin/nvme-peer" ] && [ -f "$D/usr/share/man/man8/nvme-peer.8" ] &&
	[ ! -e "$D/etc" ]
ok $? "install: PREFIX=/usr: /usr/lib/udev/rules.d, /usr/lib/systemd/system, nothing in /etc"
grep -qx 'ExecStart=/usr/sbin/nvme-peer restore /etc/nvme-peer.conf' \
	"$D/usr/lib/systemd/system/nvme-peer.service"
ok $? "install: PREFIX=/usr: the unit runs /usr/sbin/nvme-peer"
inst "$D" PREFIX=/usr
ok $? "install: a second time"
uninst "$D" PREFIX=/usr
[ -z "$(tree "$D")" ]
ok $? "uninstall after two installs: an empty tree"

# -- what was there before stays -----------------------------------------
D=$T/pre
mkdir -p "$D/usr/local/sbin" "$D/usr/local/share/man/man8" "$D/etc/keep"
echo other > "$D/usr/local/sbin/other"
tree "$D" > "$T/before"
inst "$D" UDEVRULESDIR=/etc/udev/rules.d UNITDIR=/etc/systemd/system
ok $? "install: UDEVRULESDIR and UNITDIR in /etc"
[ -f "$D/etc/udev/rules.d/60-nvme-peer.rules" ] && [ -f "$D/etc/systemd/system/nvme-peer.service" ]
ok $? "install: the rule and the unit where UDEVRULESDIR and UNITDIR say"
uninst "$D" UDEVRULESDIR=/etc/udev/rules.d UNITDIR=/etc/systemd/system
tree "$D" > "$T/after"
cmp -s "$T/before" "$T/after"
ok $? "uninstall: the tree as before install (existing directories and files stay)"
diff "$T/before" "$T/after" | sed 's/^/# /'

tap_end
