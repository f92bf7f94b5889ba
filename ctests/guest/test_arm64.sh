#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 3600
#
# test_arm64.sh: the tests on an emulated arm64 machine with a real PMU
# (doc/arm64-guest.md).  No machine here has a hardware PMU; QEMU's
# emulated aarch64 has one, and a Debian arm64 kernel booted under it lets
# user space read its counters.  This script
#   1. cross-builds everything the guest runs (ctests/guest/guest.mk: the
#      arm64 kernel and libpfm4 from Debian, our PAPI and the stock one
#      from the same source, our engine and PAPI-level tests, PAPI's tests,
#      our utilities, a static /init, all in one initramfs);
#   2. boots the machines below, two at a time, each limited by the CPU
#      time its QEMU uses (guest-lib.sh's cpu_limited; the 3600 s above
#      is only a net for the script itself): qemu-system-aarch64 -M virt -icount shift=0,sleep=off (one
#      guest cycle is one instruction, so counts are exact and repeat);
#      the guest's /init (ctests/guest/init.c) runs each machine's plan,
#      every program under its own time limit, and frames its output;
#   3. reports every case the guest printed as this suite's PASS/FAIL/SKIP
#      lines, named "[arm64 MACHINE] PROGRAM.CASE" ("PASS: [arm64
#      cortex-a57] test_group_api.probe_null_attr_einval": the machine in
#      brackets, as run-tests.sh names a rerun "[unknown CPU] CASE", and a
#      '.', which no snake_case name holds, between the program and its
#      case, so that no two programs' cases can meet), and checks what the
#      utilities printed ("[arm64 cortex-a57] papi_avail"); PAPI's own
#      tests, ours against stock, go through scripts/peer-ctests.sh into the
#      same side-by-side table as on x86, one case each ("[arm64
#      cortex-a57] papi.ctests_zero"); the script's own cases are
#      "[arm64] cross_build" and each boot's "[arm64 MACHINE] boot_KEY".
# A guest that does not boot, hangs or loses its output is a FAIL with the
# reason, and so is every program it did not run; each is announced
# first with a PLAN line, so that even this script's death loses no case
# (ctests/run-tests.sh); a missing tool (qemu, the cross compiler) is a SKIP with the
# reason.  Results stay in $top_builddir/guest/arm64/results/.
#
# Environment:
#   LOPE_GUEST=0            skip it all (one SKIP line saying so)
#   LOPE_GUEST_MACHINES     boots to run, comma-separated (default: all of
#                           a57,ctests1,ctests2,ctests3,a72,a57x2,max,hybrid,
#                           and the matrix's a57-VERSION)
#   LOPE_GUEST_KERNELS      the other kernels to boot with the core plan
#                           (guest-lib.sh's matrix_boots), comma-separated
#                           (default: all of 5.10,6.12,7.2; none)
#   LOPE_KERNEL_CACHE       where their packages are kept (/var/cache/lope)
#   LOPE_GUEST_JOBS         boots at a time (default 2)
#   GUEST_STALL, GUEST_WALL_FACTOR  the watchdog's limits (guest-lib.sh's
#                           cpu_limited)
#   LOPE_GUEST_INJECT       plan_error (a plan error in every boot) or
#                           cpu_limit (each boot's CPU limit 2 s): the
#                           failures the harness must report, on purpose
#   LOPE_GUEST_DIR          build and results directory
#                           (default $top_builddir/guest/arm64)
#   LOPE_GUEST_RESULTS      the results directory (default DIR/results)
#   LOPE_GUEST_REFETCH=1    download Debian's packages again
#   top_srcdir, top_builddir, PAPI_SRC (default: the one the top build
#   was configured with)
set -euo pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
O=${LOPE_GUEST_DIR:-$top_builddir/guest/arm64}
R=${LOPE_GUEST_RESULTS:-$O/results}
JOBS=${LOPE_GUEST_JOBS:-2}
GUEST=arm64
QEMU=qemu-system-aarch64
CROSS_CC=aarch64-linux-gnu-gcc
CONSOLE=ttyAMA0
OVERHEAD_BOOT=a57

# The boots: key, the machine as the case names show it ("[arm64
# cortex-a57x2] ...": the two-CPU cortex-a57; "cortex-a57+a53": two CPUs
# with a core PMU each, as on a hybrid CPU), -cpu, -smp, the seconds a
# boot takes on a loaded 2-cpu machine here (the longest start first),
# the limit of QEMU's CPU time in seconds (the whole boot: three to four
# times what it needs on a loaded host, where a KVM guest's CPU time also
# holds what the host takes from it; each program has its own limit in
# guest time, so this one only stops a guest that hangs), the
# per-program limit in guest seconds, QEMU's -M,
# and the device tree: - for QEMU's own, else TREE: ctests/guest/TREE-dtb.sh
# makes $O/TREE.dtb from QEMU's own tree of that machine (make_dtbs).
# Which programs each runs is in plan_<key> below; PAPI's tests are dealt
# round-robin over three boots, so that the two CPUs finish together.
BOOTS="
a57      cortex-a57     cortex-a57           1 250 900 300 virt               -
ctests1  cortex-a57     cortex-a57           1 200 900 60  virt               -
ctests2  cortex-a57     cortex-a57           1 200 900 60  virt               -
ctests3  cortex-a57     cortex-a57           1 200 900 60  virt               -
a72      cortex-a72     cortex-a72           1 40  400 300 virt               -
a57x2    cortex-a57x2   cortex-a57           2 40  400 300 virt               -
max      max            max,pauth-impdef=on  1 30  400 300 virt               -
hybrid   cortex-a57+a53 cortex-a57           2 5   200 60  virt,gic-version=3 hybrid
"

# The kernel matrix (guest-lib.sh, doc/kernels.md): Debian 12's kernel
# runs the boots above, Debian 11's, 13's and sid's each boot the
# cortex-a57 with the core plan (plan_matrix).  5.10 has no
# perf_user_access: its page never allows a user-space read.
KERNELS="
6.1  bookworm
5.10 bullseye
6.12 trixie
7.2  sid
"
MATRIX_MACHINES="
a57 cortex-a57 cortex-a57 80 400 virt papi_overhead-counter.txt
"
MATRIX_CORE_PMU='armv8_pmuv3(_0)?'

# shellcheck source=guest-lib.sh
. "$top_srcdir/ctests/guest/guest-lib.sh"

# ---------------------------------------------------------------------------
# What each machine runs (the plan lines: ctests/guest/guest-lib.sh).

# Every test the list gives the guest, the guard first; the list's other C
# tests run on x86 in every `make check`: what they prove does not depend
# on the PMU nor the architecture, and they are among the slowest under
# emulation (their lines say why).
plan_a57() {
	plan_guest_tests a57 "$1"
	emit papi_accuracy check:accuracy 300 "$OURS_ENV" -- /bin/papi_accuracy -n 50
	emit papi_overhead check:overhead 300 "$OURS_ENV" \
		-- /bin/papi_overhead -k 2 -n 300 -r 1
	emit papi_overhead_counter check:overhead_counter 300 "$OURS_ENV" \
		-- /bin/papi_overhead -m counter -k 3
}

# PAPI's long tests are left out (guest-lib.sh's CTESTS_LONG).
CTESTS_NOT_RUN=$CTESTS_LONG

# The core plan's hooks (guest-lib.sh's plan_matrix): the PMU's check is
# the boot's core_pmu case; perf_user_access has two modes, 0 and 1,
# both in the plan already; each call of ours at most 0.1x stock's, which
# reads with read(2).
matrix_pmu_check() { :; }
matrix_modes() { :; }
matrix_goal() {
	against_stock "$1" "$2" 0.1 "every call at most 0.1x stock's (but a set's first start)"
}

# 32-bit event counters: what reads, resets, overflows and multiplexes
# hardware counters (the tests with guest-a72).
plan_a72() {
	our_tests "$1" guest-a72
	avail_lines
}

# Two CPUs: a reader moved between them, threads, cpu-wide counting.
# QEMU runs the two vCPUs one after the other on one host thread, and its
# instructions event is the machine's one instruction counter
# (icount_get_raw() in target/arm/helper.c), so a vCPU's counter also
# counts what the other vCPU executes meanwhile, and guest time runs for
# both while one waits.  Hence not test_hw (exact instruction counts:
# 2e6 loop iterations counted 2,003,130) nor test_threads2 (per-thread CPU
# time against work), which both run on a57; test_hw_read's checks,
# between two read(2) and in order, hold whatever the count.  The tests
# with guest-a57x2.
plan_a57x2() {
	our_tests "$1" guest-a57x2
}

# A CPU libpfm4 does not know: stock's component is disabled; ours runs
# on the kernel's generic events where it can (the tests with guest-max).
plan_max() {
	our_tests "$1" guest-max
	avail_lines
	emit papi_component_avail check:exit0 60 "$OURS_ENV" \
		-- /papi/ours/utils/papi_component_avail
}

# Two CPUs with a core PMU each, as a hybrid CPU has them (Intel's cpu_core
# and cpu_atom, Arm big.LITTLE): the device tree of ctests/guest/hybrid-dtb.sh
# gives cpu0 a cortex-a57 PMU and cpu1 a cortex-a53 one, and an event of one
# counts only while its task runs on that PMU's CPU (the tests with
# guest-hybrid).  Its boot case also checks what the kernel registered:
# boot_check_hybrid.
plan_hybrid() {
	local ours=$OURS_ENV
	# test_hybrid prints stock's figure beside ours (rerun_on_stock).
	OURS_ENV="$OURS_ENV env=PAPI_STOCK_BUILDDIR=/papi/stock"
	our_tests "$1" guest-hybrid
	OURS_ENV=$ours
	# Again as on a CPU libpfm4 does not know: the generic presets
	# (PERF_TYPE_HARDWARE) split through each PMU's sysfs events.
	emit test_hybrid_unknown_cpu tap "$1" "$OURS_ENV" \
		env=LIBPFM_FORCE_PMU=perf -- /bin/test_hybrid
}

# boot_check_hybrid LABEL INFO: from /init's machine print (INFO: a
# "core_pmu NAME CPUS" line for each PMU with a cpus file), the kernel
# registered exactly two core PMUs, their cpus disjoint and covering cpu 0
# and 1; else the device tree's edit no longer works (another QEMU's tree,
# another kernel).
boot_check_hybrid() {
	local c="$1 boot_hybrid_two_core_pmus_disjoint_cpus" got
	got=$(sed -n 's/^core_pmu //p' "$2" | tr '\n' ';' | sed 's/;$//; s/;/; /g')
	if awk '$1 == "core_pmu" {
			n++
			k = split($3, part, ",")
			for (i = 1; i <= k; i++) {
				if (split(part[i], r, "-") == 1) r[2] = r[1]
				for (c = r[1] + 0; c <= r[2] + 0; c++) dup += seen[c]++
			}
		}
		END { exit !(n == 2 && !dup && seen[0] && seen[1]) }' "$2"; then
		pass "$c" "$got"
	else
		fail "$c" "want two core PMUs with disjoint cpus covering cpu 0 and 1 ($O/hybrid.dtb, ctests/guest/hybrid-dtb.sh); the kernel registered: ${got:-none}"
	fi
}

# ---------------------------------------------------------------------------
# Running the boots.

# -icount shift=0: one instruction per guest nanosecond, and the PMU's cycle
# counter counts instructions; sleep=off: an idle guest skips ahead to its
# next timer instead of waiting for it.  cntfrq=1 GHz (QEMU 7.2's default
# is 62.5 MHz) makes the generic timer tick once per nanosecond too, so
# papi_overhead's timer (cntvct_el0) reads exact instruction counts.
# pauth-impdef=on (for -cpu max): the cheap pointer authentication, boots
# in 1 s instead of 5 to 8.  -nic none: no network ROM to look for.
#
# The options of -cpu and QEMU's own for every machine (guest-lib.sh's
# qemu_machine).
CPU_OPTIONS=,cntfrq=1000000000
QEMU_OPTIONS=()

# The machine, for the ctests table: QEMU, the guest's kernel and CPU.
machine_text() {
	local d=$R/$1/progs
	echo "QEMU $("$QEMU" --version | sed -n 1p | sed 's/.*version //')," \
		"$(echo "$BOOTS" | awk -v k="$1" '$1 == k { print "-M " $8 " -cpu " $3 ",cntfrq=1000000000 -smp " $4 }')" \
		"-icount shift=0,sleep=off (TCG on $(uname -m));" \
		"kernel $(sed -n 's/^kernel //p' "$d/info" | cut -d' ' -f1);" \
		"core PMU: $(grep -m1 '^armv' <<<"$(sed -n 's/^pmus //p' "$d/info" | tr ' ' '\n')" || echo none);" \
		"perf_event_paranoid 2, perf_user_access 1."
}

# ---------------------------------------------------------------------------

# The tools the host needs.
HOST_TOOLS="
$QEMU	Debian: qemu-system-arm
$CROSS_CC	Debian: gcc-aarch64-linux-gnu, libc6-dev-arm64-cross
"

guest_run "$@"
