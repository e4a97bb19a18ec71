# SPDX-License-Identifier: GPL-2.0
#
# nvme-peer: build, test and demo.  See README.md.
#
#   make            build the modules (production: no KUnit suites, no fault
#                   injection) against the running kernel's tree if it has
#                   the nvme-pci hook (else it says what to do), and
#                   tools/nvme-peer/nvme-peer, the administrator's command
#   make NP_TESTS=y the same with the KUnit suites and fault injection built
#                   into nvme-peer.ko, and the selftests, against the test
#                   kernel
#                   scripts/build-kernel builds and caches (what make check
#                   and its VMs use)
#   make check      the single gate: sparse, checkpatch, KUnit and kselftests in
#                   QEMU; prints "N passed, N failed, N skipped"
#   make demo       boot the two-ctrl topology and tell a peer queue's story
#   make bench      the performance report (native and in a perf-kernel VM):
#                   bench/results/<date>-<machine>/; not part of make check
#   make soak       one VM running the chaos run alone: SECONDS=N (600),
#                   SEED=S (replays a seed a run printed), TOPOLOGY=T
#                   (two-ctrl), NOREMOVE=1 (no PCI removal among its events)
#   make install    for a machine without DKMS: nvme-peer.ko into
#                   /lib/modules/<release>/updates/ (then depmod), and the
#                   command with its man page, completion, udev rule, unit
#                   and examples (tools/nvme-peer/Makefile; PREFIX=/usr/local,
#                   DESTDIR honoured, no depmod with DESTDIR).  KDIR is the
#                   running kernel's /lib/modules/$(uname -r)/build here.
#   make uninstall  removes all of it and the directories install made
#
# NP_KERNEL=6.1|6.12 picks the kernel version (default 6.12; make check runs
# every one in NP_KERNELS), KCONFIG=test|perf its configuration, and
# KDIR=<kernel tree> overrides both.

KCONFIG ?= test
# install and uninstall are for the running kernel (or KDIR=)
ifneq ($(filter install uninstall,$(MAKECMDGOALS)),)
KDIR ?= /lib/modules/$(shell uname -r)/build
endif
# The production module (plain make, make modules) is built against the
# running kernel's tree when it has the nvme-pci hook (patches/): no test
# kernel is built for it.  Without one it says what to do and stops.  The
# tests (NP_TESTS=y), make kernel and KCONFIG= take the kernel
# scripts/build-kernel builds (debug options on, cached).
NP_RUNNING_KDIR := /lib/modules/$(shell uname -r)/build
NP_HOOK := include/linux/nvme-pci-peer.h
ifeq ($(NP_TESTS)$(filter kernel,$(MAKECMDGOALS))$(origin KCONFIG),file)
ifneq ($(filter-out clean sparse checkpatch,$(or $(MAKECMDGOALS),all)),)
ifneq ($(wildcard $(NP_RUNNING_KDIR)/$(NP_HOOK)),)
KDIR ?= $(NP_RUNNING_KDIR)
else
KDIR ?= $(error nvme-peer: the running kernel $(shell uname -r) has no nvme-pci hook \
	($(NP_HOOK) is not in $(NP_RUNNING_KDIR)): build against a kernel tree \
	with patches/<version>/ applied (KDIR=<tree>), or against the test \
	kernel: make NP_TESTS=y, or make kernel then KDIR=<its tree>)
endif
endif
endif
# make clean alone builds no kernel: it takes the cached tree, or none
KDIR ?= $(shell $(CURDIR)/scripts/build-kernel \
	  $(if $(filter-out clean,$(or $(MAKECMDGOALS),all)),,--cached) $(KCONFIG) | tail -n1)
SELFTESTS := tools/testing/selftests/nvme-peer

.PHONY: all modules selftests tool sparse checkpatch check demo bench soak clean \
	kernel install uninstall

# the selftests need a kernel source tree (kselftest_harness.h): the test
# kernel's, with NP_TESTS=y; make selftests KDIR= builds them otherwise
all: modules tool $(if $(NP_TESTS),selftests)

kernel:
	@$(CURDIR)/scripts/build-kernel $(KCONFIG)

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

selftests:
	$(MAKE) -C $(SELFTESTS) KDIR=$(KDIR)

tool:
	$(MAKE) -C tools/nvme-peer

# The module of KDIR's release, as DKMS would but in updates/ (the test
# modules np-accel and np-client are not installed).  The directories the
# module's install makes are noted in $(DOCDIR)/installed-dirs.module, as
# tools/nvme-peer notes its own: uninstall takes away exactly what install
# added; depmod's files go with a /lib/modules/<release> that install made.
PREFIX ?= /usr/local
DOCDIR ?= $(PREFIX)/share/doc/nvme-peer
KRELEASE = $(shell cat $(KDIR)/include/config/kernel.release 2>/dev/null)
MODDIR = /lib/modules/$(KRELEASE)
MODNOTE = $(DOCDIR)/installed-dirs.module

install: modules tool
	@test -n "$(KRELEASE)" || { echo "install: $(KDIR): no kernel.release"; exit 1; }
	$(MAKE) -C tools/nvme-peer install
	@set -e; made=; d=$(MODDIR)/updates; \
	while [ -n "$$d" ] && [ ! -d "$(DESTDIR)$$d" ]; do made="$$made $$d"; d=$${d%/*}; done; \
	{ [ ! -f "$(DESTDIR)$(MODNOTE)" ] || cat "$(DESTDIR)$(MODNOTE)"; \
	  for d in $$made; do echo "$$d"; done; } | sort -u > "$(DESTDIR)$(MODNOTE).new"; \
	mv "$(DESTDIR)$(MODNOTE).new" "$(DESTDIR)$(MODNOTE)"; \
	echo "install -D -m 0644 drivers/nvme/peer/nvme-peer.ko $(DESTDIR)$(MODDIR)/updates/nvme-peer.ko"; \
	install -D -m 0644 drivers/nvme/peer/nvme-peer.ko "$(DESTDIR)$(MODDIR)/updates/nvme-peer.ko"; \
	if [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KRELEASE)"; depmod -a "$(KRELEASE)"; fi

uninstall:
	@test -n "$(KRELEASE)" || { echo "uninstall: $(KDIR): no kernel.release"; exit 1; }
	@set -e; m="$(DESTDIR)$(MODDIR)"; \
	dirs=$$(cat "$(DESTDIR)$(MODNOTE)" 2>/dev/null || true); \
	rm -f "$(DESTDIR)$(MODNOTE)"; \
	if [ -f "$$m/updates/nvme-peer.ko" ]; then echo "rm -f $$m/updates/nvme-peer.ko"; rm -f "$$m/updates/nvme-peer.ko"; fi; \
	if printf '%s\n' $$dirs | grep -qx "$(MODDIR)" && \
	   [ -z "$$(find "$$m" -name '*.ko*' 2>/dev/null)" ]; then \
		echo "rm -f $$m/modules.*"; rm -f "$$m"/modules.*; \
	elif [ -z "$(DESTDIR)" ]; then echo "depmod -a $(KRELEASE)"; depmod -a "$(KRELEASE)"; fi; \
	for d in $$(printf '%s\n' $$dirs | sort -r); do \
		if [ -d "$(DESTDIR)$$d" ] && rmdir "$(DESTDIR)$$d" 2>/dev/null; then echo "rmdir $(DESTDIR)$$d"; fi; \
	done
	$(MAKE) -C tools/nvme-peer uninstall

sparse:
	@$(CURDIR)/scripts/sparse $(KDIR)

checkpatch:
	@$(CURDIR)/scripts/checkpatch $(KDIR)

check:
	@$(CURDIR)/scripts/check

demo:
	@$(CURDIR)/scripts/demo

bench:
	@$(CURDIR)/scripts/bench

soak:
	@$(CURDIR)/scripts/soak $(if $(SECONDS),--seconds $(SECONDS)) \
		$(if $(SEED),--seed $(SEED)) $(if $(TOPOLOGY),--topology $(TOPOLOGY)) \
		$(if $(NOREMOVE),--no-remove)

# Without a kernel tree kbuild cannot clean: remove what it builds here.
clean:
	@kdir='$(KDIR)'; \
	if [ -n "$$kdir" ]; then \
		$(MAKE) -C "$$kdir" M=$(CURDIR) clean; \
	else \
		echo "clean: no kernel tree built: kbuild's clean skipped"; \
		find drivers tools/testing/nvme-peer/modules \( -name '*.o' \
			-o -name '*.ko' -o -name '*.mod' -o -name '*.mod.c' \
			-o -name '.*.cmd' -o -name modules.order \) -delete; \
		rm -f Module.symvers modules.order .*.cmd .module-common.o; \
	fi; \
	$(MAKE) -C $(SELFTESTS) KDIR="$$kdir" clean; \
	$(MAKE) -C tools/nvme-peer clean
