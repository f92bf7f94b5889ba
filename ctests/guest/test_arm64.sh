#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 900
#
# test_arm64.sh: the tests on an emulated arm64 machine with a real PMU
# (doc/arm64-guest.md).  No machine here has a hardware PMU; QEMU's
# emulated aarch64 has one, and a Debian arm64 kernel booted under it lets
# user space read its counters.  This script
#   1. cross-builds everything the guest runs (ctests/guest/guest.mk: the
#      arm64 kernel and libpfm4 from Debian, our PAPI and the stock one
#      from the same source, our engine and PAPI-level tests, PAPI's tests,
#      our utilities, a static /init, all in one initramfs);
#   2. boots the machines below, two at a time, each with a hard time
#      limit: qemu-system-aarch64 -M virt -icount shift=0,sleep=off (one
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
# reason; a missing tool (qemu, the cross compiler) is a SKIP with the
# reason.  Results stay in $top_builddir/guest/arm64/results/.
#
# Environment:
#   LOPE_GUEST=0            skip it all (one SKIP line saying so)
#   LOPE_GUEST_MACHINES     boots to run, comma-separated (default: all of
#                           a57,ctests1,ctests2,ctests3,a72,a57x2,max,hybrid)
#   LOPE_GUEST_JOBS         boots at a time (default 2)
#   LOPE_GUEST_DIR          build and results directory
#                           (default $top_builddir/guest/arm64)
#   LOPE_GUEST_REFETCH=1    download Debian's packages again
#   top_srcdir, top_builddir, PAPI_SRC (default: the one the top build
#   was configured with)
set -euo pipefail

top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
O=${LOPE_GUEST_DIR:-$top_builddir/guest/arm64}
R=$O/results
JOBS=${LOPE_GUEST_JOBS:-2}
QEMU=qemu-system-aarch64
CROSS_CC=aarch64-linux-gnu-gcc

# The boots: key, the machine as the case names show it ("[arm64
# cortex-a57x2] ...": the two-CPU cortex-a57; "cortex-a57+a53": two CPUs
# with a core PMU each, as on a hybrid CPU), -cpu, -smp, the seconds a
# boot takes on a loaded 2-cpu machine here (the longest start first),
# the host's hard limit in seconds (the whole boot, from QEMU's start:
# about twice that), the per-program limit in guest seconds, QEMU's -M,
# and the device tree: - for QEMU's own, else TREE: ctests/guest/TREE-dtb.sh
# makes $O/TREE.dtb from QEMU's own tree of that machine (make_dtbs).
# Which programs each runs is in plan_<key> below; PAPI's tests are dealt
# round-robin over three boots, so that the two CPUs finish together.
BOOTS="
a57      cortex-a57     cortex-a57           1 250 480 300 virt               -
ctests1  cortex-a57     cortex-a57           1 200 420 60  virt               -
ctests2  cortex-a57     cortex-a57           1 200 420 60  virt               -
ctests3  cortex-a57     cortex-a57           1 200 420 60  virt               -
a72      cortex-a72     cortex-a72           1 40  180 300 virt               -
a57x2    cortex-a57x2   cortex-a57           2 40  180 300 virt               -
max      max            max,pauth-impdef=on  1 30  180 300 virt               -
hybrid   cortex-a57+a53 cortex-a57           2 5   60  60  virt,gic-version=3 hybrid
"

# shellcheck source=../report.sh
. "$top_srcdir/ctests/report.sh"

# label_of KEY: what the case names of boot KEY begin with, "[arm64 cortex-a57]".
label_of() { echo "$BOOTS" | awk -v k="$1" '$1 == k { print "[arm64 " $2 "]" }'; }

# ---------------------------------------------------------------------------
# What each machine runs.  A plan line (ctests/guest/init.c):
#   NAME TIMEOUT [cwd=DIR] [paranoid=N] [user_access=N] [env=V=X]... -- PROG ARG...
# and for the host, in kinds.tsv: NAME, how to judge its output (tap: our
# test protocol; papi:TREE: one of PAPI's tests; check:FUNCTION: a
# function below).

# Our tests: those of ctests/tests.list with the attribute guest, which
# guest.mk builds; the list's other C tests are reported as SKIPs, with
# the reason their line gives.
LIST=$top_srcdir/ctests/tests.list
lists() { sh "$top_srcdir/scripts/lists.sh" "$@"; }
GUEST_TESTS=$(lists tests "$LIST" guest)
NOT_IN_GUEST=$(lists tests "$LIST" | grep -v '\.sh$' | grep -vxF "$GUEST_TESTS" || true)
OURS_ENV="env=LD_LIBRARY_PATH=/papi/ours env=PAPI_OURS_BUILDDIR=/papi/ours"
STOCK_ENV="env=LD_LIBRARY_PATH=/papi/stock"

emit() { # emit NAME KIND TIMEOUT WORDS...: a plan line and its kind
	local name=$1 kind=$2 t=$3
	shift 3
	echo "$name $t $*" >>"$plan"
	printf '%s\t%s\n' "$name" "$kind" >>"$kinds"
}

# our_tests TIMEOUT ATTR [EXCEPT]: our tests with the attribute ATTR in
# ctests/tests.list, in its order, but the one named EXCEPT; one without
# guest too is a FAIL (guest.mk did not build it).
our_tests() {
	local t n
	for t in $(lists tests "$LIST" "$2"); do
		n=${t##*/}
		[ "$n" != "${3:-}" ] || continue
		if ! echo "$GUEST_TESTS" | grep -qxF "$t"; then
			fail "[arm64] plan" "$t has $2 but not guest in ctests/tests.list"
			continue
		fi
		case $t in
		*.sh) fail "[arm64] plan" "$t: only C tests run in the guest" ;;
		ctests/papi/*) emit "$n" tap "$1" "$OURS_ENV" -- "/bin/$n" ;;
		*) emit "$n" tap "$1" -- "/bin/$n" ;;
		esac
	done
}

# papi_avail with and without user access: the rdpmc line says yes, and
# no with the reason.
avail_lines() {
	emit papi_avail check:avail_yes 60 "$OURS_ENV" -- /papi/ours/utils/papi_avail
	emit papi_avail_no_user_access check:avail_no 60 user_access=0 "$OURS_ENV" \
		-- /papi/ours/utils/papi_avail
	emit papi_avail_stock check:avail_stock 60 "$STOCK_ENV" -- /papi/stock/utils/papi_avail
}

# Every test the list gives the guest, the guard first; the list's other C
# tests run on x86 in every `make check`: what they prove does not depend
# on the PMU nor the architecture, and they are among the slowest under
# emulation (their lines say why).
plan_a57() {
	# First, before any program has had user access: the guard's
	# positive control must fault (a counter access left enabled on the
	# CPU by an earlier program would not).
	if echo "$GUEST_TESTS" | grep -qx ctests/engine/test_rdpmc_guard; then
		emit test_rdpmc_guard tap "$1" user_access=0 -- /bin/test_rdpmc_guard
	fi
	our_tests "$1" guest test_rdpmc_guard
	echo "$NOT_IN_GUEST" | sed '/^$/d' >"$R/a57/not_run"
	avail_lines
	emit papi_stat_three check:stat_three 60 "$OURS_ENV" \
		-- /bin/papi_stat -d user -x , -e PAPI_TOT_INS -- /bin/three
	emit papi_accuracy check:accuracy 300 "$OURS_ENV" -- /bin/papi_accuracy -n 50
	emit papi_overhead check:overhead 300 "$OURS_ENV" \
		-- /bin/papi_overhead -k 2 -n 300 -r 1
	emit papi_overhead_counter check:overhead_counter 300 "$OURS_ENV" \
		-- /bin/papi_overhead -m counter -k 3
}

# PAPI's tests not run in the guest, to stay within the time budget: each
# took 10 s or more there (our tree; the seconds are the host's, measured
# on a loaded 2-cpu machine, and the guest's).  QEMU runs some 100 to 200
# million guest instructions a second under -icount, and far fewer where
# the kernel works hard (fork, exec, perf_event_open, timers) or in
# floating point (emulated in software).  multiplex1 and child_overflow
# (29 s and 24 s) stay: the one test of kernel multiplexing of many
# events, and of overflow in a forked child.
CTESTS_NOT_RUN="
ctests/clockres_pthreads        over 600 s (4 threads reading each clock 1M times)
ctests/sdsc4-mpx                212 s, 28 s guest
ctests/sdsc-mpx                 over 159 s, over 30 s guest
ctests/fork_overflow            88 s, 18 s guest
validation_tests/flops_validation 84 s, 10 s guest (floating point)
ctests/multiplex1_pthreads      over 64 s, over 30 s guest
ctests/multiplex3_pthreads      over 59 s, over 30 s guest
ctests/kufrin                   41 s, 20 s guest
ctests/exec_overflow            38 s, 7 s guest
ctests/sdsc2-mpx-noreset        33 s, 6 s guest
ctests/sdsc2-mpx                31 s, 6 s guest
ctests/destroy                  27 s, 1.4 s guest
validation_tests/fp_validation_hl 26 s, 3.3 s guest (floating point)
ctests/krentel_pthreads         26 s, 5.4 s guest
ctests/overflow3_pthreads       22 s, 11 s guest
ctests/overflow_force_software  17 s, 8.8 s guest
ctests/system_overflow          16 s, 4 s guest
ctests/system_child_overflow    13 s, 3.4 s guest
"

# PAPI's tests, as scripts/peer-ctests.sh runs them on x86: from the root
# of the tree, TESTS_QUIET, the tree first in LD_LIBRARY_PATH and ./ctests
# first in PATH (attach_target).
# Boot K of 3 runs every third test, ours then stock, one after the other
# (never both at once, as on x86).
plan_ctests() { # plan_ctests TIMEOUT K
	local t i=0 tree
	while read -r t; do
		i=$((i + 1))
		[ $((i % 3)) -eq $(($2 % 3)) ] || continue
		for tree in ours stock; do
			if echo "$CTESTS_NOT_RUN" | awk -v t="$t" '$1 == t { f = 1 } END { exit !f }'; then
				not_run "$tree" "$t"
				continue
			fi
			emit "$tree/$t" "papi:$tree" "$1" "cwd=/papi/$tree" \
				"env=LD_LIBRARY_PATH=.:/papi/$tree" env=TESTS_QUIET=TESTS_QUIET \
				env=PATH=./ctests:/bin -- "./$t" TESTS_QUIET
		done
	done < <(bash "$top_srcdir/scripts/peer-ctests.sh" --list \
		--ours "$O/papi/ours/src" --stock "$O/papi/stock/src")
}
plan_ctests1() { plan_ctests "$1" 1; }
plan_ctests2() { plan_ctests "$1" 2; }
plan_ctests3() { plan_ctests "$1" 3; }

# A test left out: its row in the table says SKIPPED, and why.
not_run() { # not_run TREE TEST
	local f
	f=$R/ctests/$1/$(echo "$2" | tr '/ ' '__')
	mkdir -p "$R/ctests/$1"
	{
		echo "not run in the arm64 guest: $(echo "$CTESTS_NOT_RUN" |
			awk -v t="$2" '$1 == t { $1 = ""; sub(/^ /, ""); print }')"
		echo SKIPPED
	} >"$f.out"
	echo 0 >"$f.rc"
	echo 0 >"$f.sec"
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
# Judging the utilities' output: check_FUNCTION CASE OUT STATUS prints the
# case lines, CASE ("[arm64 cortex-a57] papi_avail") and CASE.PART where the
# output holds more than one.

check_exit0() {
	if [ "$3" = exit=0 ]; then pass "$1"; else fail "$1" "$3: $(tail -n 1 "$2")"; fi
}

# papi_avail's rdpmc line says yes with user access, no without it (the
# plan's user_access=0).  Stock reads arm64 counters with read(2) only and
# says no; its case wants the line, whatever it says.
check_avail_yes() { rdpmc_line "$@" ': yes'; }
check_avail_no() { rdpmc_line "$@" ': no'; }
check_avail_stock() { rdpmc_line "$@" ''; }

# rdpmc_line CASE OUT STATUS WANT: papi_avail exited 0, and its "Fast
# counter read (rdpmc)" line holds WANT.  (sed, not grep: no such line
# must be this case's FAIL, not a failed command that set -e stops at.)
rdpmc_line() {
	local l
	l=$(sed -n '/Fast counter read (rdpmc)/ { s/  */ /g; p; q; }' "$2")
	if [ "$3" = exit=0 ] && [ -n "$l" ] && [[ $l == *"$4"* ]]; then
		pass "$1" "$l"
	else
		fail "$1" "$3; want \"Fast counter read (rdpmc)$4\", got \"${l:-no such line}\""
	fi
}

check_stat_three() {
	local v
	v=$(awk -F, '$3 == "PAPI_TOT_INS" || $2 == "PAPI_TOT_INS" { print $1; exit }' "$2")
	if [ "$3" = exit=0 ] && [ "$v" = 3 ]; then
		pass "$1" "PAPI_TOT_INS 3: exactly the 3 user-mode instructions of /bin/three"
	elif grep -q 'PAPI_TOT_INS' "$2" && [ "$3" = exit=0 ]; then
		fail "$1" "PAPI_TOT_INS ${v:-none}, want 3: $(tr '\n' ' ' <"$2" | cut -c1-200)"
	else
		fail "$1" "$3: $(tr '\n' ' ' <"$2" | cut -c1-200)"
	fi
}

check_accuracy() {
	if [ "$3" = exit=77 ]; then
		skip "$1" "$(grep -m 1 'papi_accuracy' "$2" || tail -n 1 "$2")"
	elif [ "$3" = exit=0 ] && grep -q '^null benchmark' "$2"; then
		pass "$1.null_benchmark_table"
		if grep -q '^loop benchmark' "$2"; then
			pass "$1.loop_benchmark_table"
		else
			skip "$1.loop_benchmark_table" "not printed: $(grep -m 1 -i loop "$2" || echo 'no loop on this architecture')"
		fi
	else
		fail "$1" "$3: $(tr '\n' ' ' <"$2" | cut -c1-200)"
	fi
}

# table CASE OUT STATUS PATTERN WHAT FILE: the program printed a line
# matching PATTERN (its WHAT) and exited 0; OUT is kept as $R/FILE.
table() {
	if [ "$3" = exit=0 ] && grep -q "$4" "$2"; then
		pass "$1" "$5, also in $R/$6"
		cp "$2" "$R/$6"
	else
		fail "$1" "$3: $(tr '\n' ' ' <"$2" | cut -c1-200)"
	fi
}

check_overhead_counter() {
	table "$@" '^PAPI_read ' "exact instruction table" papi_overhead-counter.txt
}

check_overhead() {
	table "$@" '^PAPI_read ' "per-call table" papi_overhead-timer.txt
}

# ---------------------------------------------------------------------------
# Reporting one boot.

# split LOG DIR: each program's output into DIR/NNN.out, and DIR/index.tsv:
# NNN, name, status (exit=N, signal=N, timeout=S, or lost: began, never
# ended), guest milliseconds; info lines into DIR/info.
split_log() {
	awk -v dir="$2" '
		function close_prog(status, ms) {
			printf "%03d\t%s\t%s\t%s\n", n, name, status, ms >> (dir "/index.tsv")
			close(out); name = ""
		}
		{ sub(/\r$/, "") }
		/^@@lope info / { print substr($0, 13) >> (dir "/info"); next }
		/^@@lope begin / {
			if (name != "") close_prog("lost", 0)
			n++; name = $3; out = sprintf("%s/%03d.out", dir, n)
			printf "" > out; next
		}
		/^@@lope end / {
			ms = $5; sub(/^ms=/, "", ms)
			if (name == $3) close_prog($4, ms)
			next
		}
		/^@@lope done/ { print "done" >> (dir "/info"); next }
		name != "" { print >> out }
		END { if (name != "") close_prog("lost", 0) }
	' "$1"
	touch "$2/index.tsv" "$2/info"
}

# report_tap LABEL NAME OUT STATUS: our test protocol, as run-tests.sh
# counts it, every case named "LABEL NAME.CASE".
report_tap() {
	local label=$1 name=$2 out=$3 st=$4 f p s
	echo "## $label $name ($(seconds_of "$name") s)"
	awk -v pre="$label $name." '
		/^(PASS|FAIL|SKIP): / { print substr($0, 1, 6) pre substr($0, 7); next }
		{ print }' "$out"
	p=$(grep -c '^PASS: ' "$out" || true)
	f=$(grep -c '^FAIL: ' "$out" || true)
	s=$(grep -c '^SKIP: ' "$out" || true)
	case $st in
	exit=0) ;;
	exit=77) [ "$p$f$s" != 000 ] || skip "$label $name" "program exited 77 (skipped) without a reason" ;;
	exit=*) [ "$f" -gt 0 ] || fail "$label $name" "exited with status ${st#exit=} without a FAIL line" ;;
	signal=*) fail "$label $name" "killed by signal ${st#signal=}" ;;
	timeout=*) fail "$label $name" "timed out after ${st#timeout=} s of guest time" ;;
	lost) fail "$label $name" "no end: the guest stopped while it ran (see the boot's FAIL)" ;;
	esac
}

# The real seconds program NAME of the boot being reported took.
seconds_of() {
	awk -v n="$1" '$3 == "begin" && $4 == n { b = $1 }
		$3 == "end" && $4 == n { printf "%.1f", ($1 - b) / 1000; exit }' "$times"
}

# papi_result TREE NAME OUT STATUS MS: keep one of PAPI's tests' output
# where scripts/peer-ctests.sh --results looks for it.
papi_result() {
	local d=$R/ctests/$1 f rc
	f=$d/$(echo "${2#*/}" | tr '/ ' '__')
	mkdir -p "$d"
	cp "$3" "$f.out"
	case $4 in
	exit=*) rc=${4#exit=} ;;
	signal=*) rc=$((128 + ${4#signal=})) ;;
	timeout=*) rc=124 ;;
	*) rc=125 ;;
	esac
	echo "$rc" >"$f.rc"
	awk -v ms="$5" 'BEGIN { printf "%.3f\n", ms / 1000 }' >"$f.sec"
}

# Our tests a boot leaves out, each a SKIP with the reason.
report_not_run() { # report_not_run KEY LABEL
	local t why
	while read -r t; do
		why=$(lists note "$LIST" "$t")
		if [ -n "$why" ]; then
			skip "$2 ${t##*/}" "not run in the guest: $why"
		else
			fail "$2 ${t##*/}" "not run in the guest, and its line in ctests/tests.list says not why"
		fi
	done <"$R/$1/not_run"
}

# report_boot KEY LABEL: the cases of one boot, and the boot's own,
# LABEL boot_KEY (a57 and ctests1..3 boot the same machine).
report_boot() {
	local key=$1 label=$2 d=$R/$1 n name st ms kind out ran=0 planned lost
	times=$d/times
	rm -rf "$d/progs"
	mkdir -p "$d/progs"
	split_log "$d/console.log" "$d/progs"
	sed "s/^/# $label boot_$key: /" "$d/progs/info"
	while IFS=$'\t' read -r n name st ms; do
		ran=$((ran + 1))
		out=$d/progs/$n.out
		kind=$(awk -F'\t' -v n="$name" '$1 == n { print $2; exit }' "$d/kinds.tsv")
		case $kind in
		tap) report_tap "$label" "$name" "$out" "$st" ;;
		papi:*) papi_result "${kind#papi:}" "$name" "$out" "$st" "$ms" ;;
		check:*)
			echo "## $label $name ($(seconds_of "$name") s)"
			sed 's/^/# /' "$out"
			"check_${kind#check:}" "$label $name" "$out" "$st"
			;;
		*) fail "$label $name" "not in the plan (kinds.tsv)" ;;
		esac
	done <"$d/progs/index.tsv"
	planned=$(wc -l <"$d/kinds.tsv")
	lost=$(cut -f1 "$d/kinds.tsv" | grep -vxF -f <(cut -f2 "$d/progs/index.tsv") |
		head -n 5 | tr '\n' ' ' || true)
	if ! grep -q '^kernel ' "$d/progs/info"; then
		fail "$label boot_$key" "the guest never reached /init ($(boot_end "$d")): $(last_words "$d/console.log")"
	elif ! grep -qx "done" "$d/progs/info"; then
		fail "$label boot_$key" "ran $ran of $planned programs, then $(boot_end "$d")${lost:+; not run: $lost}"
	else
		pass "$label boot_$key" "$ran programs, $(cat "$d/seconds") s ($(cat "$d/cpu") s of CPU)"
	fi
	if declare -F "boot_check_$key" >/dev/null; then
		"boot_check_$key" "$label" "$d/progs/info"
	fi
}

# The kernel's panic line, else the console's last lines.
last_words() {
	{ grep -m 1 'Kernel panic' "$1" || grep -v '^$' "$1" | tail -n 3; } |
		tr -d '\r' | tr '\n' ' ' | cut -c1-300
}

# How the boot ended, from QEMU's exit status.
boot_end() {
	local rc
	rc=$(cat "$1/qemu.rc" 2>/dev/null || echo '?')
	case $rc in
	0) echo "the guest powered off or rebooted early" ;;
	124 | 137) echo "the host killed it at its limit of $(cat "$1/limit") s" ;;
	*) echo "QEMU exited with status $rc: $(grep -m 1 -i qemu "$1/console.log" | cut -c1-200)" ;;
	esac
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
# qemu_machine KEY: into the array qargs, QEMU and the options that make
# boot KEY's machine: all of its command line but the kernel, its initrd
# and command line, and -dtb.  The boot runs it; a device tree of its own
# is dumped from it (make_dtbs), so that the tree is that machine's.
qemu_machine() {
	local m cpu smp
	read -r m cpu smp < <(echo "$BOOTS" | awk -v k="$1" '$1 == k { print $8, $3, $4 }')
	qargs=("$QEMU" -M "$m" -cpu "$cpu,cntfrq=1000000000" -smp "$smp" -m 1024
		-nographic -nic none -no-reboot -icount "shift=0,sleep=off")
}

boot() { # boot KEY LIMIT: QEMU, output into $R/KEY
	local d=$R/$1 t0 rc=0 tree dtb=()
	tree=$(echo "$BOOTS" | awk -v k="$1" '$1 == k { print $9 }')
	[ "$tree" = - ] || dtb=(-dtb "$O/$tree.dtb")
	qemu_machine "$1"
	echo "$2" >"$d/limit"
	t0=$(date +%s)
	timeout -k 5 "$2" "${qargs[@]}" "${dtb[@]}" \
		-kernel "$O/kernel" -initrd "$O/initrd.gz" \
		-append "console=ttyAMA0 panic=-1 quiet lope_plan=/plans/$1" \
		</dev/null 2>&1 | stamp "$d/console.log" "$d/times" || rc=${PIPESTATUS[0]}
	echo "$rc" >"$d/qemu.rc"
	echo $(($(date +%s) - t0)) >"$d/seconds"
	# The CPU time QEMU used: what the boot takes on a CPU of its own.
	# (times in a pipeline would run in a subshell without children.)
	times >"$d/times.raw"
	awk 'END { s = 0
		for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); s += a[1] * 60 + a[2] }
		printf "%d\n", s + 0.5 }' "$d/times.raw" >"$d/cpu"
}

# stamp LOG TIMES: the console into LOG, and each frame line into TIMES
# with the host's clock (milliseconds since the boot started), for the
# record of how long each program takes in real time.
stamp() {
	local l t0=${EPOCHREALTIME/./}
	: >"$2"
	while IFS= read -r l; do
		printf '%s\n' "$l"
		case $l in
		@@lope\ begin* | @@lope\ end*)
			printf '%d %s\n' $(((${EPOCHREALTIME/./} - t0) / 1000)) "${l%$'\r'}" >>"$2"
			;;
		esac
	done >"$1"
}

# The boots to run: those LOPE_GUEST_MACHINES names (all by default), but
# those make_dtbs left out.
selected_boots() {
	local want=${LOPE_GUEST_MACHINES:-}
	echo "$BOOTS" | awk -v want=",$want," -v out=" $LEFT_OUT " \
		'NF && (want == ",," || index(want, "," $1 ",")) && !index(out, " " $1 " ")'
}

# The device trees of the boots that need one (BOOTS' last column), once a
# run, before the boots: ctests/guest/TREE-dtb.sh makes $O/TREE.dtb from
# QEMU's own tree of the boot's machine.  Without dtc the boot is one
# SKIP; a tree the script cannot edit (another QEMU) is its FAIL; either
# way it is left out (LEFT_OUT).
LEFT_OUT=
make_dtbs() {
	local key tree label err
	while read -r key _ _ _ _ _ _ _ tree; do
		[ "$tree" != - ] || continue
		label=$(label_of "$key")
		qemu_machine "$key"
		if ! command -v dtc >/dev/null 2>&1; then
			skip "$label boot_$key" "dtc not installed (Debian: device-tree-compiler): no device tree for this machine"
		elif ! err=$(bash "$top_srcdir/ctests/guest/$tree-dtb.sh" "$O/$tree.dtb" "${qargs[@]}" 2>&1); then
			fail "$label boot_$key" "ctests/guest/$tree-dtb.sh: $(echo "$err" | tr '\n' ' ' | cut -c1-300)"
		else
			info "$label boot_$key: device tree $O/$tree.dtb (source: $O/$tree.dtb.dts)"
			continue
		fi
		LEFT_OUT="$LEFT_OUT $key"
		rm -rf "${R:?}/$key"
	done < <(selected_boots)
}

# The plans, packed as a second cpio appended to the built initramfs (the
# kernel unpacks both).
make_plans() {
	local key t plan kinds
	# Only what the boots run now is renewed: results of the others stay.
	rm -rf "$O/plans"
	mkdir -p "$R" "$O/plans/plans"
	if selected_boots | grep -q '^ctests'; then
		rm -rf "$R/ctests" "$R/ctests.md" "$R/ctests.tsv"
	fi
	while read -r key _ _ _ _ _ t _; do
		rm -rf "${R:?}/$key"
		[ "$key" != a57 ] || rm -f "$R"/papi_overhead-*.txt
		mkdir -p "$R/$key"
		plan=$O/plans/plans/$key kinds=$R/$key/kinds.tsv
		: >"$plan"
		: >"$kinds"
		"plan_$key" "$t"
	done < <(selected_boots)
	(cd "$O/plans" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) \
		>"$O/plans.cpio.gz"
	cat "$O/initrd.cpio.gz" "$O/plans.cpio.gz" >"$O/initrd.gz"
}

# Run the boots JOBS at a time, the longest first.
run_boots() {
	local key cpu smp limit
	while read -r key _ cpu smp _ limit _; do
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
		echo "# booting $(label_of "$key") ($key): -cpu $cpu -smp $smp, at most $limit s"
		boot "$key" "$limit" &
	done < <(selected_boots | sort -k5,5nr -s)
	wait
}

# report_ctests LABEL: one case for each of PAPI's tests, LABEL papi.TEST
# (the test's path in snake_case), from the table of the three boots.
report_ctests() {
	local label=$1 tsv=$R/ctests.tsv o s note t c
	# Only when this run had all three boots: the table is of one run.
	[ "$(selected_boots | awk '$1 ~ /^ctests[123]$/' | wc -l)" -eq 3 ] || return 0
	echo "## $label PAPI's tests, ours against stock (scripts/peer-ctests.sh)"
	bash "$top_srcdir/scripts/peer-ctests.sh" --results "$R/ctests" \
		--ours "$O/papi/ours/src" --stock "$O/papi/stock/src" --timeout \
		"$(echo "$BOOTS" | awk '$1 == "ctests1" { print $7 }')" \
		--md "$R/ctests.md" --tsv "$tsv" --machine "$(machine_text ctests1)" \
		2>/dev/null | sed 's/^/# /' || true
	while IFS=$'\t' read -r t o s note; do
		c="$label papi.$(case_name "$t")"
		case $o in
		PASSED*) pass "$c" "$t: ours $o${s:+, stock $s}" ;;
		SKIPPED)
			[ -n "$note" ] || note="PAPI's test skipped here (with TESTS_QUIET it prints no reason)"
			skip "$c" "$t: $note; stock $s" ;;
		*)
			case $s in
			FAILED* | CRASHED | TIMEOUT | -)
				skip "$c" "$t: ours $o, and stock $s as well: ${note:-no note}" ;;
			*) fail "$c" "$t: ours $o, stock $s: ${note:-no note}" ;;
			esac
			;;
		esac
	done <"$tsv"
}

# The machine, for the ctests table: QEMU, the guest's kernel and CPU.
machine_text() {
	local d=$R/$1/progs
	echo "QEMU $("$QEMU" --version | head -n 1 | sed 's/.*version //')," \
		"$(echo "$BOOTS" | awk -v k="$1" '$1 == k { print "-M " $8 " -cpu " $3 ",cntfrq=1000000000 -smp " $4 }')" \
		"-icount shift=0,sleep=off (TCG on $(uname -m));" \
		"kernel $(sed -n 's/^kernel //p' "$d/info" | cut -d' ' -f1);" \
		"core PMU: $(sed -n 's/^pmus //p' "$d/info" | tr ' ' '\n' | grep -m 1 '^armv' || echo none);" \
		"perf_event_paranoid 2, perf_user_access 1."
}

# ---------------------------------------------------------------------------

# The whole script's SKIP when it is not wanted or a tool is missing.
host_ready() {
	if [ "${LOPE_GUEST:-1}" = 0 ]; then
		skip "[arm64] guest" "LOPE_GUEST=0"
		exit 0
	fi
	need_tool "[arm64] guest" "$QEMU" "Debian: qemu-system-arm"
	need_tool "[arm64] guest" "$CROSS_CC" "Debian: gcc-aarch64-linux-gnu, libc6-dev-arm64-cross"
	need_tool "[arm64] guest" cpio
}

build() {
	local papi_src t0 rc=0
	papi_src=${PAPI_SRC:-$(sed -n 's/^PAPI_SRC = //p' "$top_builddir/Makefile" 2>/dev/null)}
	if [ -z "$papi_src" ]; then
		fail "[arm64] cross_build" "no PAPI source tree (configure the top build, or set PAPI_SRC)"
		return 1
	fi
	mkdir -p "$O"
	t0=$(date +%s)
	# Our make's jobserver is not ours to use: a -j2 of our own.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory \
		-f "$top_srcdir/ctests/guest/guest.mk" -j2 srcdir="$top_srcdir" \
		PAPI_SRC="$papi_src" O="$O" >"$O/build.log" 2>&1 || rc=$?
	grep '^# ' "$O/build.log" || true
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$O/build.log" | sed 's/^/# /'
		fail "[arm64] cross_build" "make -f ctests/guest/guest.mk failed (log: $O/build.log): $(grep -m 1 -E 'error|failed' "$O/build.log" | cut -c1-200)"
		return 1
	fi
	pass "[arm64] cross_build" "$(($(date +%s) - t0)) s"
}

main() {
	local key t0
	host_ready
	build || exit 1
	make_dtbs
	make_plans
	t0=$(date +%s)
	run_boots
	echo "# all boots: $(($(date +%s) - t0)) s, $(cat "$R"/*/cpu | awk '{ s += $1 } END { print s }') s of CPU"
	while read -r key _; do
		[ ! -f "$R/$key/not_run" ] || report_not_run "$key" "$(label_of "$key")"
		report_boot "$key" "$(label_of "$key")"
	done < <(selected_boots)
	report_ctests "$(label_of ctests1)"
}

# The exit status: 1 when any case failed (run-tests.sh counts the lines).
log=$(mktemp "${TMPDIR:-/tmp}/lope-arm64.XXXXXX")
trap 'rm -f "$log"' EXIT
main "$@" | tee "$log"
! grep -q '^FAIL: ' "$log"
