# SPDX-License-Identifier: GPL-2.0
# Shared helpers for nvme-peer's scripts (sourced, not run).

NP_TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
NP_CACHE=${NVME_PEER_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/nvme-peer}
NP_KSRC_TAR=/usr/src/linux-source-6.1.tar.xz

np_kpkg_version() {
	dpkg-query -W -f='${Version}' linux-source-6.1
}

# The tree a configuration is built in: keyed by the kernel package version and
# the config fragments, so a patch change rebuilds it incrementally.
np_tree() {
	local cfg=$1 h
	h=$({ np_kpkg_version; cat "$NP_TOP/scripts/config/base.config" \
		"$NP_TOP/scripts/config/$cfg.config"; } | sha256sum | cut -c1-12)
	echo "$NP_CACHE/linux-$cfg-$h"
}

# The full build key: tree key plus the patches, in order.
np_build_key() {
	local cfg=$1
	local p
	{ np_tree "$cfg"; for p in "$NP_TOP"/patches/*.patch; do
		if [ -f "$p" ]; then cat "$p"; fi; done; } | sha256sum | cut -c1-16
}
