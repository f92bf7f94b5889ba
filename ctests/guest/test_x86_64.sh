#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 3600
#
# test_x86_64.sh: the tests on an emulated x86-64 machine with a PMU
# (doc/x86-guest.md), as test_arm64.sh runs them on arm64.  No machine
# here has an x86 PMU and QEMU emulates none, so this project's
# ctests/guest/qemu-x86-pmu.patch gives QEMU's TCG an Intel architectural
# PMU (version 2: 4 general and 3 fixed counters of 48 bits, written full
# width, counting from icount, filtered by privilege level, overflow
# through the local APIC), AMD's core PMU on an AMD CPU model,
# icount's fairness between two vCPUs, and cmpxchg8b/16b's flags
# (doc/x86-guest.md); Debian's amd64 kernel drives it
# with its own perf drivers (Skylake, "generic architected perfmon",
# AMD) and lets user space read it with rdpmc.
# This script
#   1. builds that QEMU (ctests/guest/build-qemu-x86.sh: Debian 12's QEMU
#      7.2 source and the patch, cached in LOPE_QEMU_CACHE under a key of
#      both), and everything the guest runs with the host's own compiler
#      (ctests/guest/guest.mk with GUEST=x86_64: Debian 12's amd64 kernel
#      and libpfm4, our PAPI and the stock one from the same source, our
#      tests and utilities, the PMU's own check, a static /init);
#   2. boots the machines below, two at a time, each limited by the CPU
#      time its QEMU uses (guest-lib.sh's cpu_limited), under -icount
#      shift=0,sleep=off (counts are exact and repeat); /init runs each
#      machine's plan (ctests/guest/init.c);
#   3. reports every case the guest printed, named "[x86_64 MACHINE]
#      PROGRAM.CASE", and checks what the utilities printed; its own cases
#      are "[x86_64] qemu_build", "[x86_64] cross_build" and each boot's
#      "[x86_64 MACHINE] boot_KEY".
# A guest that does not boot, hangs or loses its output is a FAIL with the
# reason, and so is every program it did not run (test_arm64.sh); a
# missing tool is a SKIP with the reason.  Results stay in
# $top_builddir/guest/x86_64/results/.
#
# Environment:
#   LOPE_GUEST=0            skip it all (one SKIP line saying so)
#   LOPE_GUEST_MACHINES     boots to run, comma-separated (default: all of
#                           x86,ctests1,ctests2,ctests3,gen,rdpmc2,amd,
#                           x86x2, and the matrix's skylake-VERSION and
#                           epyc-VERSION)
#   LOPE_GUEST_KERNELS      the other kernels to boot with the core plan
#                           (guest-lib.sh's matrix_boots), comma-separated
#                           (default: all of 5.10,6.12,7.2; none)
#   LOPE_KERNEL_CACHE       where their packages are kept (/var/cache/lope)
#   LOPE_GUEST_JOBS         boots at a time (default 2)
#   GUEST_STALL, GUEST_WALL_FACTOR  the watchdog's limits (guest-lib.sh's
#                           cpu_limited)
#   LOPE_GUEST_INJECT       as test_arm64.sh's
#   LOPE_X86_64_DIR         build and results directory
#                           (default $top_builddir/guest/x86_64)
#   LOPE_GUEST_RESULTS      the results directory (default DIR/results)
#   LOPE_QEMU_CACHE         where the patched QEMU is built and kept
#                           (default /var/cache/lope)
#   LOPE_X86_QEMU           a patched qemu-system-x86_64 to use instead
#   LOPE_GUEST_REFETCH=1    download Debian's packages again
#   top_srcdir, top_builddir, PAPI_SRC (default: the one the top build
#   was configured with)
set -euo pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
O=${LOPE_X86_64_DIR:-$top_builddir/guest/x86_64}
R=${LOPE_GUEST_RESULTS:-$O/results}
JOBS=${LOPE_GUEST_JOBS:-2}
GUEST=x86_64
CROSS_CC=x86_64-linux-gnu-gcc
CONSOLE=ttyS0
OVERHEAD_BOOT=x86

# The boots, as test_arm64.sh's table: key, machine, -cpu, -smp, seconds,
# limit of QEMU's CPU time, per-program limit in guest seconds, -M, device
# tree.  Two CPU models on the same emulated PMU:
#   skylake  model 94: the kernel's Skylake driver (it finds none of the
#            model-specific MSRs it probes for, PEBS, LBR and the offcore
#            ones, and goes on without them) and libpfm4's skl table, so
#            ours and stock both count, as on most Intel nodes;
#   arch-v2  model 32, which neither lists: the kernel's "generic
#            architected perfmon" driver, and libpfm4's ix86arch alone,
#            which PAPI never takes as the default PMU: stock's component
#            is disabled, ours runs on the kernel's generic events (as
#            arm64's -cpu max).
# And AMD's core PMU, which the patch gives an AMD CPU model:
#   epyc     QEMU's EPYC, family 17h model 1 (Zen): the kernel's AMD
#            driver (six core counters, rdpmc 0 to 5) and libpfm4's
#            amd64_fam17h_zen1, ours and stock.
SKL=Skylake-Client,pmu=on,model=94
ARCH=Skylake-Client,pmu=on,model=32
EPYC=EPYC,pmu=on
BOOTS="
x86      skylake  $SKL   1 300 900 300 q35 -
ctests1  skylake  $SKL   1 200 900 60  q35 -
ctests2  skylake  $SKL   1 200 900 60  q35 -
ctests3  skylake  $SKL   1 200 900 60  q35 -
gen      arch-v2  $ARCH  1 60  400 300 q35 -
rdpmc2   skylake  $SKL   1 30  200 60  q35 -
amd      epyc     $EPYC  1 60  400 300 q35 -
x86x2    skylake-x2 $SKL 2 40  400 300 q35 -
"

# The kernel matrix (guest-lib.sh, doc/kernels.md): Debian 12's kernel
# runs the boots above, Debian 11's, 13's and sid's each boot the
# Skylake and the EPYC with the core plan (plan_matrix).
KERNELS="
6.1  bookworm
5.10 bullseye
6.12 trixie
7.2  sid
"
MATRIX_MACHINES="
skylake skylake $SKL  80 400 q35 papi_overhead-counter.txt
epyc    epyc    $EPYC 80 400 q35 amd/papi_overhead-counter.txt
"
MATRIX_CORE_PMU=cpu

# shellcheck source=guest-lib.sh
. "$top_srcdir/ctests/guest/guest-lib.sh"

# ---------------------------------------------------------------------------
# What each machine runs (the plan lines: ctests/guest/guest-lib.sh).

# Every test the list gives the guest, the guard first, then the PMU's
# own check, the cost tables and the accuracy tables.
plan_x86() {
	plan_guest_tests x86 "$1"
	emit x86pmu_check tap 120 -- /bin/x86pmu-check skylake
	emit papi_accuracy check:accuracy 300 "$OURS_ENV" -- /bin/papi_accuracy -n 50
	emit papi_overhead check:overhead 300 "$OURS_ENV" \
		-- /bin/papi_overhead -k 2 -n 300 -r 1
	emit papi_overhead_counter check:overhead_counter 300 "$OURS_ENV" \
		-- /bin/papi_overhead -m counter -k 3
	plan_hpcrun
}

# HPCToolkit's hpcrun (through hpcguest: the machine has no shell) on
# hpc_count, whose loop line runs exactly 20 periods of instructions, our
# libpapi preloaded: PAPI_TOT_INS every P, then with PAPI_TOT_CYC every 2 P
# (the cycles are the instructions under icount).  The measurements come
# back on the console; check_hpcrun_* run hpcstruct and hpcprof here.
HPC_P=1000003
plan_hpcrun() {
	local pre="env=LD_PRELOAD=/papi/ours/libpapi.so.7.0" c
	if [ -z "$HPC" ]; then
		for c in hpcrun_ins hpcrun_ins_cyc; do
			skip "$(label_of "$key") $c" "$HPC_WHY"
		done
		return 0
	fi
	emit hpcrun_ins check:hpcrun_ins 300 "$OURS_ENV" "$pre" -- \
		/bin/hpcguest /hpc /tmp/hpc_ins "papi::PAPI_TOT_INS@$HPC_P" -- \
		/bin/hpc_count
	emit hpcrun_ins_cyc check:hpcrun_ins_cyc 300 "$OURS_ENV" "$pre" -- \
		/bin/hpcguest /hpc /tmp/hpc_ins_cyc "papi::PAPI_TOT_INS@$HPC_P" \
		"papi::PAPI_TOT_CYC@$((2 * HPC_P))" -- /bin/hpc_count
}

# check_hpcrun CASE OUT STATUS EVENT:SAMPLES...: the measurements into a
# database (guest_profile.sh), and each EVENT's samples exactly SAMPLES,
# every one on the loop's line (the program's other user instructions
# after hpcrun starts counting are fewer than a period).
check_hpcrun() {
	local case=$1 out=$2 status=$3 dir line spec ev want p got total why=''
	shift 3
	dir=$R/hpcrun/${case##* }
	mkdir -p "$R/hpcrun"
	line=$(grep -n '/\* loop \*/' "$top_srcdir/ctests/hpctoolkit/hpc_count.c" | cut -d: -f1)
	if [ "$status" != exit=0 ]; then
		fail "$case" "$status: $(grep -v '^[A-Za-z0-9+/=]*$' "$out" | tail -n 3 | tr '\n' ' ' | cut -c1-300)"
		return
	fi
	if ! bash "$top_srcdir/ctests/hpctoolkit/guest_profile.sh" "$out" \
		"$HPC" "$O/bin" "$dir" 2>"$dir.err" ||
		! PYTHONPATH=$HPC/lib/python /usr/bin/python3 \
			"$top_srcdir/ctests/hpctoolkit/hpcdb_lines.py" \
			"$dir/database" hpc_count.c "$line" "$line" \
			>"$dir/lines" 2>>"$dir.err"; then
		fail "$case" "no database: $(tail -n 3 "$dir.err" | tr '\n' ' ' | cut -c1-300)"
		return
	fi
	for spec in "$@"; do
		ev=${spec%%:*} want=${spec#*:}
		p=$HPC_P
		[ "$ev" = PAPI_TOT_INS ] || p=$((2 * HPC_P))
		read -r total got < <(awk -v e="$ev" '$3 == e { print $5, $7 }' "$dir/lines")
		info "$case: $ev: $((${got:-0} / p)) samples on the loop's line (hpc_count.c:$line), $((${total:-0} / p)) in all"
		[ "$((${got:-0} / p))" = "$want" ] && [ "${total:-0}" = "${got:-0}" ] ||
			why="$why $ev: $((${got:-0} / p)) samples on the loop's line, $((${total:-0} / p)) in all, want $want on it and none elsewhere;"
	done
	if [ -z "$why" ]; then
		pass "$case" "exact, on the loop's line (database: $dir/database)"
	else
		fail "$case" "$why"
	fi
}
check_hpcrun_ins() { check_hpcrun "$@" PAPI_TOT_INS:20; }
check_hpcrun_ins_cyc() { check_hpcrun "$@" PAPI_TOT_INS:20 PAPI_TOT_CYC:10; }

# PAPI's long tests are left out (guest-lib.sh's CTESTS_LONG), and here
# also those that took 30 s or more of the host's time per tree on a
# loaded 2-cpu machine (floating point is emulated in software; the cache
# and branch events count nothing on this PMU).
CTESTS_NOT_RUN="$CTESTS_LONG
ctests/multiplex1               140 s (kernel multiplexing: test_multiplex here, multiplex1 on arm64)
validation_tests/papi_dp_ops    115 s (floating point)
validation_tests/papi_l1_dcm    59 s (a cache event: counts nothing here)
ctests/profile_pthreads         46 s
validation_tests/papi_sp_ops    39 s (floating point)
ctests/branches                 35 s (branch events: count nothing here)
"

# A CPU libpfm4 does not know as a default PMU: stock's component is
# disabled; ours runs on the kernel's generic events (the tests with
# guest-max).
plan_gen() {
	our_tests "$1" guest-max
	avail_lines
	emit papi_component_avail check:exit0 60 "$OURS_ENV" \
		-- /papi/ours/utils/papi_component_avail
	emit x86pmu_check tap 120 -- /bin/x86pmu-check generic_arch_v2+
}

# AMD's core PMU: its own check, papi_avail (ours, without user access,
# stock) and the tests of the user-space read, ours against the kernel's
# read(2) and PAPI's own: the exact counts, the reads between two read(2),
# the lazy stop, overflow and sampling, exact on instructions.
plan_amd() {
	emit x86pmu_check tap 120 -- /bin/x86pmu-check amd
	avail_lines
	emit test_hw tap "$1" "$OURS_ENV" -- /bin/test_hw
	emit test_hw_read tap "$1" -- /bin/test_hw_read
	emit test_lazy_stop tap "$1" -- /bin/test_lazy_stop
	emit test_start_stop tap "$1" "$OURS_ENV" -- /bin/test_start_stop
	emit test_overflow tap "$1" "$OURS_ENV" -- /bin/test_overflow
	emit test_hw_overflow tap "$1" "$OURS_ENV" -- /bin/test_hw_overflow
	emit papi_overhead_counter check:overhead_counter_amd 300 "$OURS_ENV" \
		-- /bin/papi_overhead -m counter -k 3
}

# The core plan's hooks (guest-lib.sh's plan_matrix): the PMU's own
# check for the boot's CPU; the rdpmc file at 2 (papi_avail, and the
# reads against read(2)); every call of ours at most stock's, which reads
# with rdpmc too.
matrix_pmu_check() {
	local m=skylake
	[[ $key != epyc-* ]] || m=amd
	emit x86pmu_check tap 120 -- /bin/x86pmu-check "$m"
}
matrix_modes() {
	emit papi_avail_rdpmc2 check:avail_yes 60 user_access=2 "$OURS_ENV" \
		-- /papi/ours/utils/papi_avail
	emit test_hw_read_rdpmc2 tap "$1" user_access=2 -- /bin/test_hw_read
}
matrix_goal() {
	against_stock "$1" "$2" 1 "every call at most stock's (but a set's first start)"
}

# The AMD machine's exact cost table, beside its boot's results.
check_overhead_counter_amd() {
	table "$@" '^PAPI_read ' "exact instruction table" amd/papi_overhead-counter.txt
}

# Two CPUs: the tests with guest-a57x2 (a reader moved between the CPUs,
# threads on both, cpu-wide counting), as the arm64 machine's a57x2.
plan_x86x2() {
	our_tests "$1" guest-a57x2
}

# The core PMU's rdpmc file at 2: every task may read the counters with
# rdpmc (CR4.PCE always set); papi_avail still says yes, and the
# exactness cases hold.
plan_rdpmc2() {
	emit papi_avail check:avail_yes 60 user_access=2 "$OURS_ENV" \
		-- /papi/ours/utils/papi_avail
	emit test_hw tap "$1" user_access=2 "$OURS_ENV" -- /bin/test_hw
	emit test_hw_read tap "$1" user_access=2 -- /bin/test_hw_read
}

# ---------------------------------------------------------------------------
# Running the boots.

# -accel tcg: there is no PMU under KVM here either; firmware from
# Debian's packages (the patched QEMU is built without its own); -nic
# none: no network ROM to look for.  nmi_watchdog=0 keeps the kernel's
# watchdog off the counters.  The rest is test_arm64.sh's (guest-lib.sh's
# qemu_machine).
CPU_OPTIONS=
QEMU_OPTIONS=(-accel tcg -L /usr/share/qemu -L /usr/share/seabios)
KERNEL_ARGS=nmi_watchdog=0

# The machine, for the ctests table: QEMU, the guest's kernel and CPU.
machine_text() {
	local d=$R/$1/progs
	echo "QEMU 7.2 with ctests/guest/qemu-x86-pmu.patch," \
		"$(echo "$BOOTS" | awk -v k="$1" '$1 == k { print "-M " $8 " -cpu " $3 " -smp " $4 }')" \
		"-icount shift=0,sleep=off (TCG on $(uname -m));" \
		"kernel $(sed -n 's/^kernel //p' "$d/info" | cut -d' ' -f1);" \
		"core PMU: cpu ($(case $1 in amd) echo "AMD core counters, family 17h" ;; *) echo "Intel architectural PMU v2" ;; esac), emulated);" \
		"perf_event_paranoid 2, rdpmc 1."
}

# The tools the host needs: QEMU is built here.
HOST_TOOLS="
$CROSS_CC	Debian: gcc
"

# qemu_build: the patched QEMU, built or taken from the cache; its build
# is one case.
qemu_build() {
	local t0 out
	t0=$(date +%s)
	if [ -n "${LOPE_X86_QEMU:-}" ]; then
		QEMU=$LOPE_X86_QEMU
		pass "[$GUEST] qemu_build" "$QEMU (LOPE_X86_QEMU)"
	elif out=$(bash "$top_srcdir/ctests/guest/build-qemu-x86.sh" \
		"${LOPE_QEMU_CACHE:-/var/cache/lope}" 2>"$O/qemu-build.log"); then
		QEMU=$out
		pass "[$GUEST] qemu_build" "$QEMU in $(($(date +%s) - t0)) s"
	else
		tail -n 20 "$O/qemu-build.log" | sed 's/^/# /'
		fail "[$GUEST] qemu_build" "ctests/guest/build-qemu-x86.sh failed (log: $O/qemu-build.log)"
		exit 1
	fi
}

# HPCToolkit for the x86 machine's hpcrun cases: ctests/hpctoolkit's
# build (waited for where scripts/test.sh builds it in the background),
# LOPE_HPCTOOLKIT's prefix, or none (LOPE_HPCTOOLKIT=0, no tarballs, not
# built: the cases SKIP, saying why).
hpctoolkit_build() {
	local out
	HPC=
	if [ "${LOPE_HPCTOOLKIT:-}" = 0 ]; then
		HPC_WHY="LOPE_HPCTOOLKIT=0"
	elif [ -n "${LOPE_HPCTOOLKIT:-}" ]; then
		HPC=$LOPE_HPCTOOLKIT
	elif out=$(bash "$top_srcdir/ctests/hpctoolkit/build-hpctoolkit.sh" \
		"${LOPE_HPCTOOLKIT_CACHE:-${LOPE_QEMU_CACHE:-/var/cache/lope}}" \
		2>"$O/hpctoolkit-build.log"); then
		HPC=$out
	else
		HPC_WHY="no HPCToolkit: $(tail -n 1 "$O/hpctoolkit-build.log")"
	fi
	[ -z "$HPC" ] || GUEST_MAKE_VARS=("HPCTOOLKIT=$HPC")
}

if [ "${LOPE_GUEST:-1}" != 0 ]; then
	mkdir -p "$O"
	qemu_build
	hpctoolkit_build
fi
guest_run "$@"
