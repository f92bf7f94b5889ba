#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 2400
#
# test_riscv64.sh: the tests on an emulated riscv64 machine with a real
# PMU (doc/riscv64-guest.md), as test_arm64.sh runs them on arm64.  QEMU's
# riscv64 "max" CPU has the counters, with Sscofpmf (counting filtered by
# privilege, overflow interrupts), and a Debian 13 kernel booted under it
# with OpenSBI lets user space read them (csrr) through the
# self-monitoring page.  This script
#   1. cross-builds everything the guest runs (ctests/guest/guest.mk with
#      GUEST=riscv64: Debian 13's riscv64 kernel, QEMU 10 and OpenSBI 1.5
#      for the host, our PAPI and the stock one from the same source,
#      given what PAPI's Linux layer lacks before 7.2, our tests and
#      utilities, a static /init, all in one initramfs);
#   2. boots the machines below, two at a time, each limited by the CPU
#      time its QEMU uses (guest-lib.sh's cpu_limited), under -icount
#      shift=0,sleep=off (counts are exact and repeat); /init runs each machine's plan (ctests/guest/init.c);
#   3. reports every case the guest printed, named "[riscv64 MACHINE]
#      PROGRAM.CASE", and checks what the utilities printed; its own cases
#      are "[riscv64] cross_build" and each boot's "[riscv64 MACHINE]
#      boot_KEY".
# A guest that does not boot, hangs or loses its output is a FAIL with the
# reason, and so is every program it did not run (test_arm64.sh); a
# missing tool (the cross compiler) is a SKIP with the reason.
# Results stay in $top_builddir/guest/riscv64/results/.
#
# Environment:
#   LOPE_GUEST=0            skip it all (one SKIP line saying so)
#   LOPE_GUEST_MACHINES     boots to run, comma-separated (default: all of
#                           rv,legacy, and the matrix's rv-VERSION)
#   LOPE_GUEST_KERNELS      the other kernels to boot with the core plan
#                           (guest-lib.sh's matrix_boots), comma-separated
#                           (default: 7.2; none)
#   LOPE_KERNEL_CACHE       where their packages are kept (/var/cache/lope)
#   LOPE_GUEST_JOBS         boots at a time (default 2)
#   GUEST_STALL, GUEST_WALL_FACTOR  the watchdog's limits (guest-lib.sh's
#                           cpu_limited)
#   LOPE_GUEST_INJECT       plan_error (a plan error in every boot) or
#                           cpu_limit (each boot's CPU limit 2 s): the
#                           failures the harness must report, on purpose
#   LOPE_RISCV64_DIR        build and results directory
#                           (default $top_builddir/guest/riscv64)
#   LOPE_GUEST_RESULTS      the results directory (default DIR/results)
#   LOPE_GUEST_REFETCH=1    download Debian's packages again
#   top_srcdir, top_builddir, PAPI_SRC (default: the one the top build
#   was configured with)
set -euo pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
O=${LOPE_RISCV64_DIR:-$top_builddir/guest/riscv64}
R=${LOPE_GUEST_RESULTS:-$O/results}
JOBS=${LOPE_GUEST_JOBS:-2}
GUEST=riscv64
# QEMU and OpenSBI are the ones fetch.sh unpacked (guest.mk's sysroot).
QEMU=$O/sysroot/usr/bin/qemu-system-riscv64
FIRMWARE=$O/sysroot/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin
CROSS_CC=riscv64-linux-gnu-gcc
CONSOLE=ttyS0
OVERHEAD_BOOT=rv
CTESTS_NOT_RUN=

# The boots, as test_arm64.sh's table: key, machine, -cpu, -smp, seconds,
# limit of QEMU's CPU time, per-program limit in guest seconds, -M, device tree.
# rv runs every test the list gives the guest; legacy papi_avail with
# kernel.perf_user_access 2.
BOOTS="
rv      max   max  1 150 900 300 virt -
legacy  max   max  1 10  300 60  virt -
"

# The kernel matrix (guest-lib.sh, doc/kernels.md): Debian 13's kernel
# runs the boots above, sid's boots the same machine with the core plan
# (plan_matrix).  Debian 12 has no riscv64 kernel.
KERNELS="
6.12 trixie
7.2  sid
"
MATRIX_MACHINES="
rv max max 100 600 virt papi_overhead-counter.txt
"
MATRIX_CORE_PMU=cpu

# shellcheck source=guest-lib.sh
. "$top_srcdir/ctests/guest/guest-lib.sh"

# ---------------------------------------------------------------------------
# What each machine runs (the plan lines: ctests/guest/guest-lib.sh).

# Every test the list gives the guest, as on the arm64 cortex-a57, then
# the cost table.  The list's other C tests run on x86 in every `make
# check`.
plan_rv() {
	plan_guest_tests rv "$1"
	# Stock's column says disabled: its libpfm4 knows no RISC-V PMU, and
	# stock counts only on a core PMU libpfm4 knows.
	emit papi_overhead_counter check:overhead_counter 300 "$OURS_ENV" \
		-- /bin/papi_overhead -m counter -k 3
}

# perf_user_access 2 (legacy): cycle and instret are readable by any
# task, and count every privilege level (the kernel cannot filter them),
# every other counter is read with read(2); papi_avail still says yes.
plan_legacy() {
	emit papi_avail check:avail_yes 60 user_access=2 "$OURS_ENV" \
		-- /papi/ours/utils/papi_avail
	emit papi_component_avail check:says_legacy 60 user_access=2 \
		"$OURS_ENV" -- /papi/ours/utils/papi_component_avail
}

# The core plan's hooks (guest-lib.sh's plan_matrix): the PMU's check is
# the boot's core_pmu case; perf_user_access 2 as plan_legacy; each call
# at most 0.1x stock's, whose component is disabled here (a SKIP that
# says so).
matrix_pmu_check() { :; }
matrix_modes() {
	emit papi_avail_legacy check:avail_yes 60 user_access=2 "$OURS_ENV" \
		-- /papi/ours/utils/papi_avail
	emit papi_component_avail_legacy check:says_legacy 60 user_access=2 \
		"$OURS_ENV" -- /papi/ours/utils/papi_component_avail
}
matrix_goal() {
	against_stock "$1" "$2" 0.1 "every call at most 0.1x stock's (but a set's first start)"
}

# The component's description names the mode that allows the reads.
check_says_legacy() { line_has "$@" 'rdpmc:' 'rdpmc: yes (perf_user_access 2)'; }

# ---------------------------------------------------------------------------
# Running the boots.

# -cpu max: the counters with Sscofpmf; -bios: OpenSBI 1.5 (QEMU 10's
# own firmware is not in its Debian package).  The rest is
# test_arm64.sh's (guest-lib.sh's qemu_machine).
CPU_OPTIONS=
QEMU_OPTIONS=(-bios "$FIRMWARE")
# The tools the host needs (QEMU is fetched with the kernel: guest.mk).
HOST_TOOLS="
$CROSS_CC	Debian: gcc-riscv64-linux-gnu, libc6-dev-riscv64-cross
"

guest_run "$@"
