# SPDX-License-Identifier: BSD-3-Clause
# The emulated machines with a PMU: arm64 (doc/arm64-guest.md), riscv64
# (doc/riscv64-guest.md) and x86-64 (doc/x86-guest.md).  Included from
# Makefile.am; paths are relative to the top directory.
# ctests/guest/test_arm64.sh, test_riscv64.sh and test_x86_64.sh build
# what their guest runs themselves (ctests/guest/guest.mk, into
# guest/arm64, guest/riscv64 and guest/x86_64 of the build directory; the
# x86-64 machine's QEMU with build-qemu-x86.sh), boot QEMU and report
# every case of the guest.  They are last in ctests/tests.list:
# they take the longest.

EXTRA_DIST += \
	ctests/guest/guest.mk \
	ctests/guest/guest-lib.sh \
	ctests/guest/fetch.sh \
	ctests/guest/libs.sh \
	ctests/guest/hybrid-dtb.sh \
	ctests/guest/papi-riscv64.sh \
	ctests/guest/show-results.sh \
	ctests/guest/kernel-table.sh \
	ctests/guest/test_show_results.sh \
	ctests/guest/init.c \
	ctests/guest/three-arm64.S \
	ctests/guest/three-riscv64.S \
	ctests/guest/three-x86_64.S \
	ctests/guest/x86pmu-check.c \
	ctests/guest/build-qemu-x86.sh \
	ctests/guest/qemu-x86-pmu.patch

# Keep the downloaded Debian packages (guest/*/cache) across a clean.
clean-guest:
	for d in guest/arm64 guest/riscv64 guest/x86_64; do \
		if test -d $$d; then \
			find $$d -mindepth 1 -maxdepth 1 ! -name cache \
				-exec rm -rf {} +; \
		fi; \
	done
.PHONY: clean-guest
