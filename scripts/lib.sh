# SPDX-License-Identifier: GPL-2.0
# Shared helpers for nvme-peer's scripts (sourced, not run).

NP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NP_CACHE=${NVME_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nvme-peer}
# The kernels nvme-peer supports, each from Debian's linux-source-VER with
# patches/VER/*.patch.  make check runs $NP_KERNELS (default: all of them);
# the other scripts build and boot one, $NP_KERNEL (default: the newest).
NP_ALL_KERNELS="6.1 6.12"
NP_KERNEL=${NP_KERNEL:-6.12}

np_kernel_ok() { # np_kernel_ok VER: a supported version?
	[[ " $NP_ALL_KERNELS " == *" $1 "* ]] ||
		{ echo "nvme-peer: unsupported kernel '$1' (have: $NP_ALL_KERNELS)" >&2; return 1; }
}

np_ksrc_tar() { echo "/usr/src/linux-source-$1.tar.xz"; }

np_kpkg_version() { # np_kpkg_version VER
	dpkg-query -W -f='${Version}' "linux-source-$1"
}

# The config fragments of a kernel, in merge order (a later one wins):
# base, then CFG, then the version's own (options renamed or removed there).
np_fragments() { # np_fragments CFG VER
	local d=$NP_TOP/scripts/config
	echo "$d/base.config" "$d/$1.config"
	if [ -f "$d/$2.config" ]; then echo "$d/$2.config"; fi
}

# The tree a configuration is built in: keyed by the kernel version, its
# package version and the config fragments, so a patch change rebuilds it
# incrementally.  6.1 keeps the name and key it had before other versions
# existed (linux-CFG-HASH, the version not hashed), so its cache stays valid.
np_tree() { # np_tree CFG VER
	local cfg=$1 ver=$2 h
	# shellcheck disable=SC2046
	h=$({ [ "$ver" = 6.1 ] || echo "$ver"; np_kpkg_version "$ver"
	      cat $(np_fragments "$cfg" "$ver"); } | sha256sum | cut -c1-12)
	echo "$NP_CACHE/$(np_tree_prefix "$cfg" "$ver")-$h"
}

np_tree_prefix() { # np_tree_prefix CFG VER: the tree's name without its hash
	if [ "$2" = 6.1 ]; then echo "linux-$1"; else echo "linux-$2-$1"; fi
}

# The full build key: tree key plus the version's patches, in order.
np_build_key() { # np_build_key CFG VER
	local cfg=$1 ver=$2 p
	{ np_tree "$cfg" "$ver"; for p in "$NP_TOP/patches/$ver"/*.patch; do
		if [ -f "$p" ]; then cat "$p"; fi; done; } | sha256sum | cut -c1-16
}

# make clean when the modules in the work tree were built for another kernel
# than KDIR's (vm-run loads every .ko it finds).
np_clean_other() { # np_clean_other KDIR
	local rel ko
	rel=$(cat "$1/include/config/kernel.release")
	ko=$(find "$NP_TOP/drivers" -name '*.ko' | head -n1)
	if [ -n "$ko" ] && [ "$(modinfo -F vermagic "$ko" | cut -d' ' -f1)" != "$rel" ]; then
		make -s -C "$NP_TOP" clean KDIR="$1" >/dev/null 2>&1 || true
	fi
}

# The accelerator the boots use: kvm only where a KVM guest really runs.  A
# /dev/kvm that opens and starts a paused q35 machine is not enough: on some
# hosts (nested virtualization) the guest then hangs before the kernel prints
# its first line, and every boot would end at its timeout.  So boot KERNEL
# without a root file system and want it to get through its whole start to
# the panic for that within 20 s (TCG takes 9 s here; KVM that works takes
# less).  NP_ACCEL=kvm|tcg skips the probe.
np_accel() { # np_accel BZIMAGE: prints kvm or tcg
	case ${NP_ACCEL:-} in kvm|tcg) echo "$NP_ACCEL"; return;; esac
	if [ -w /dev/kvm ] && timeout -k 2 20 qemu-system-x86_64 -accel kvm \
		-machine q35 -cpu max -m 256M -display none -nodefaults \
		-serial stdio -no-reboot -kernel "$1" \
		-append "console=ttyS0 panic=-1" 2>/dev/null |
		grep -q -m1 'Kernel panic - not syncing: VFS'; then
		echo kvm
	else
		echo tcg
	fi
}
