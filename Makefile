# SPDX-License-Identifier: GPL-2.0
#
# nvme-peer: build, test and demo.  See README.md.
#
#   make            build the modules (production: no KUnit suites, no fault
#                   injection) and the selftests against the test kernel, and
#                   tools/nvme-peer/nvme-peer, the administrator's command
#   make NP_TESTS=y the same with the KUnit suites and fault injection built
#                   into nvme-peer.ko (what make check and its VMs use)
#   make check      the single gate: sparse, checkpatch, KUnit and kselftests in
#                   QEMU; prints "N passed, N failed, N skipped"
#   make demo       boot the two-ctrl topology and tell a peer queue's story
#   make bench      the performance report (native and in a perf-kernel VM):
#                   bench/results/<date>-<machine>/; not part of make check
#   make soak       one VM running the chaos run alone: SECONDS=N (600),
#                   SEED=S (replays a seed a run printed), TOPOLOGY=T
#                   (two-ctrl)
#
# NP_KERNEL=6.1|6.12 picks the kernel version (default 6.12; make check runs
# every one in NP_KERNELS), KCONFIG=test|perf its configuration, and
# KDIR=<kernel tree> overrides both.

KCONFIG ?= test
# make clean alone builds no kernel: it takes the cached tree, or none
KDIR ?= $(shell $(CURDIR)/scripts/build-kernel \
	  $(if $(filter-out clean,$(or $(MAKECMDGOALS),all)),,--cached) $(KCONFIG) | tail -n1)
SELFTESTS := tools/testing/selftests/nvme-peer

.PHONY: all modules selftests tool sparse checkpatch check demo bench soak clean kernel

all: modules selftests tool

kernel:
	@$(CURDIR)/scripts/build-kernel $(KCONFIG)

modules:
	$(MAKE) -C $(KDIR) M=$(CURDIR) modules

selftests:
	$(MAKE) -C $(SELFTESTS) KDIR=$(KDIR)

# its install: make -C tools/nvme-peer install (README.md)
tool:
	$(MAKE) -C tools/nvme-peer

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
		$(if $(SEED),--seed $(SEED)) $(if $(TOPOLOGY),--topology $(TOPOLOGY))

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
