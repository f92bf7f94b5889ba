# SPDX-License-Identifier: BSD-3-Clause
# The emulated machines with a PMU: arm64 (doc/arm64-guest.md) and riscv64
# (doc/riscv64-guest.md).  Included from Makefile.am; paths are relative
# to the top directory.  ctests/guest/test_arm64.sh and test_riscv64.sh
# cross-build what their guest runs themselves (ctests/guest/guest.mk,
# into guest/arm64 and guest/riscv64 of the build directory), boot QEMU
# and report every case of the guest.  They are last in ctests/tests.list:
# they take the longest.

EXTRA_DIST += \
	ctests/guest/guest.mk \
	ctests/guest/guest-lib.sh \
	ctests/guest/fetch.sh \
	ctests/guest/libs.sh \
	ctests/guest/hybrid-dtb.sh \
	ctests/guest/papi-riscv64.sh \
	ctests/guest/show-results.sh \
	ctests/guest/test_show_results.sh \
	ctests/guest/init.c \
	ctests/guest/three-arm64.S \
	ctests/guest/three-riscv64.S

# Keep the downloaded Debian packages (guest/*/cache) across a clean.
clean-guest:
	for d in guest/arm64 guest/riscv64; do \
		if test -d $$d; then \
			find $$d -mindepth 1 -maxdepth 1 ! -name cache \
				-exec rm -rf {} +; \
		fi; \
	done
.PHONY: clean-guest
