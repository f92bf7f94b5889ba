# SPDX-License-Identifier: BSD-3-Clause
# The emulated arm64 machine with a PMU (doc/arm64-guest.md).  Included
# from Makefile.am; paths are relative to the top directory.
# ctests/guest/test_arm64.sh cross-builds what the guest runs itself
# (ctests/guest/guest.mk, into guest/arm64 of the build directory), boots
# QEMU and reports every case of the guest.  It is last in
# ctests/tests.list: it takes the longest.

EXTRA_DIST += \
	ctests/guest/guest.mk \
	ctests/guest/fetch-arm64.sh \
	ctests/guest/libs.sh \
	ctests/guest/hybrid-dtb.sh \
	ctests/guest/show-results.sh \
	ctests/guest/test_show_results.sh \
	ctests/guest/init.c \
	ctests/guest/three.S

# Keep the downloaded Debian packages (guest/arm64/cache) across a clean.
clean-guest:
	if test -d guest/arm64; then \
		find guest/arm64 -mindepth 1 -maxdepth 1 ! -name cache \
			-exec rm -rf {} +; \
	fi
.PHONY: clean-guest
