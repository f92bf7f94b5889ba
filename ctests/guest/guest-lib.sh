#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# guest-lib.sh: what the emulated machines' tests share (sourced by
# ctests/guest/test_arm64.sh and test_riscv64.sh): the plans' common
# lines, judging what the guest printed, running the boots two at a time
# under their limits, and reporting every case.  The sourcing script
# sets GUEST (arm64, riscv64, x86_64: the first word of every case's bracket),
# O, R, JOBS, QEMU, CROSS_CC, CONSOLE (the kernel's console), BOOTS (its
# table: key, machine, -cpu, -smp, seconds, limit of CPU time, program limit,
# -M, device tree), CPU_OPTIONS and QEMU_OPTIONS (qemu_machine),
# HOST_TOOLS (host_ready), KERNEL_ARGS (more of the kernel's command
# line, may be unset), OVERHEAD_BOOT (the boot whose papi_overhead
# tables are kept), CTESTS_NOT_RUN, KERNELS and MATRIX_MACHINES (the
# kernel matrix, below), and the functions plan_KEY for each boot,
# matrix_pmu_check and matrix_modes and, where PAPI's tests run,
# machine_text; then it calls guest_run.
# shellcheck disable=SC2034,SC2154 # variables of the sourcing script

# shellcheck source=../report.sh
. "$top_srcdir/ctests/report.sh"

# ---------------------------------------------------------------------------
# The kernel matrix (doc/kernels.md).  KERNELS: a line "VERSION SUITE"
# for each Debian release's kernel the machines boot, the first the one
# guest.mk unpacks, which the whole plans above run on; every other one
# boots each of MATRIX_MACHINES ("KEY MACHINE CPU SECONDS LIMIT -M
# TABLE": BOOTS' columns, and where in R the whole plan keeps the
# machine's exact cost table on the first kernel) with the core plan
# (plan_matrix), as the boot "KEY-VERSION", its cases named "[GUEST
# MACHINE linux-VERSION] ...", its kernel fetched by fetch.sh kernel into
# LOPE_KERNEL_CACHE (default /var/cache/lope).  LOPE_GUEST_KERNELS
# (comma-separated versions, default all; "none") chooses which of the
# others boot.  A boot of the matrix carries its version as BOOTS' tenth
# column.
matrix_boots() {
	local ver suite want=${LOPE_GUEST_KERNELS:-}
	[ "$want" != none ] || return 0
	echo "$KERNELS" | awk 'NF' | tail -n +2 | while read -r ver suite; do
		[ -z "$want" ] || [[ ,$want, == *",$ver,"* ]] || continue
		echo "$MATRIX_MACHINES" | awk -v v="$ver" \
			'NF { print $1 "-" v, $2 ":linux-" v, $3, 1, $4, $5, 300, $6, "-", v }'
	done
}

# Every version LOPE_GUEST_KERNELS names is one of KERNELS'.
check_kernels_wanted() {
	local v have
	have=$(echo "$KERNELS" | awk 'NF { print $1 }' | sort -V | paste -sd, -)
	for v in $(tr , " " <<<"${LOPE_GUEST_KERNELS:-}"); do
		[ "$v" != none ] || continue
		[[ ,$have, == *",$v,"* ]] && continue
		fail "[$GUEST] kernels" "LOPE_GUEST_KERNELS names $v: the $GUEST machines boot $have"
		exit 1
	done
}

# label_of KEY: what the case names of boot KEY begin with, "[arm64 cortex-a57]".
label_of() { echo "$BOOTS" | awk -v k="$1" -v g="$GUEST" '$1 == k { gsub(/:/, " ", $2); print "[" g " " $2 "]" }'; }

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
# The machine's own make variables for guest.mk (test_x86_64.sh's
# HPCTOOLKIT), if any.
GUEST_MAKE_VARS=()

# plan_error NAME WHY: the plan of the boot being planned ($key, set by
# make_plans) cannot be made as the list says: the machine is not booted,
# and every program it would have run is a FAIL (report_plan_errors).
plan_error() {
	printf '%s\t%s\n' "$1" "$2" >>"$R/$key/plan_errors"
}

emit() { # emit NAME KIND TIMEOUT WORDS...: a plan line and its kind
	local name=$1 kind=$2 t=$3
	shift 3
	echo "$name $t $*" >>"$plan"
	printf '%s\t%s\n' "$name" "$kind" >>"$kinds"
}

# our_tests TIMEOUT ATTR [EXCEPT]: our tests with the attribute ATTR in
# ctests/tests.list, in its order, but the one named EXCEPT; one without
# guest too is a plan error (guest.mk did not build it).
our_tests() {
	local t n
	for t in $(lists tests "$LIST" "$2"); do
		n=${t##*/}
		[ "$n" != "${3:-}" ] || continue
		if ! grep -qxF "$t" <<<"$GUEST_TESTS"; then
			plan_error "$n" "$t has $2 but not guest in ctests/tests.list"
			continue
		fi
		case $t in
		*.sh) plan_error "$n" "$t: only C tests run in the guest" ;;
		ctests/papi/*) emit "$n" tap "$1" "$OURS_ENV" -- "/bin/$n" ;;
		*) emit "$n" tap "$1" -- "/bin/$n" ;;
		esac
	done
}

# plan_guest_tests KEY TIMEOUT: every test the list gives the guest, the
# guard first: before any program has had user access, its positive
# control must fault (a counter access left enabled on the CPU by an
# earlier program would not); the others as SKIPs; papi_avail's lines
# and papi_stat's exact count of three instructions.
plan_guest_tests() {
	if grep -qx ctests/engine/test_rdpmc_guard <<<"$GUEST_TESTS"; then
		emit test_rdpmc_guard tap "$2" user_access=0 -- /bin/test_rdpmc_guard
	fi
	our_tests "$2" guest test_rdpmc_guard
	echo "$NOT_IN_GUEST" | sed '/^$/d' >"$R/$1/not_run"
	avail_lines
	emit papi_stat_three check:stat_three 60 "$OURS_ENV" \
		-- /bin/papi_stat -d user -x , -e PAPI_TOT_INS -- /bin/three
}

# papi_avail with and without user access: the rdpmc line says yes, and
# no with the reason.
avail_lines() {
	emit papi_avail check:avail_yes 60 "$OURS_ENV" -- /papi/ours/utils/papi_avail
	emit papi_avail_no_user_access check:avail_no 60 user_access=0 "$OURS_ENV" \
		-- /papi/ours/utils/papi_avail
	emit papi_avail_stock check:avail_stock 60 "$STOCK_ENV" -- /papi/stock/utils/papi_avail
}

# PAPI's tests the arm64 and x86_64 machines leave out (CTESTS_NOT_RUN),
# to stay within the time budget: each took 10 s or more in the arm64
# machine (our tree; the seconds are the host's, measured
# on a loaded 2-cpu machine, and the guest's).  QEMU runs some 100 to 200
# million guest instructions a second under -icount, and far fewer where
# the kernel works hard (fork, exec, perf_event_open, timers) or in
# floating point (emulated in software).  multiplex1 and child_overflow
# (29 s and 24 s) stay: the one test of kernel multiplexing of many
# events, and of overflow in a forked child.
CTESTS_LONG="
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
		echo "not run in the $GUEST guest: $(echo "$CTESTS_NOT_RUN" |
			awk -v t="$2" '$1 == t { $1 = ""; sub(/^ /, ""); print }')"
		echo SKIPPED
	} >"$f.out"
	echo 0 >"$f.rc"
	echo 0 >"$f.sec"
}

# The core plan, on every kernel of the matrix: the PMU's own check
# (matrix_pmu_check), papi_avail's rdpmc line as the kernel allows it,
# without user access and stock's, our component's reason, the other
# user-access modes (matrix_modes), the tests of exact counts, of the
# user-space read against read(2), of the lazy stop's 0 system calls, of
# overflow and multiplexing, threads and fork, and the exact cost table.
MATRIX_ENGINE_TESTS="test_hw_read test_lazy_stop"
MATRIX_PAPI_TESTS="test_hw test_start_stop test_overflow test_hw_overflow
test_multiplex test_threads test_fork_exec"
plan_matrix() {
	local t
	matrix_pmu_check
	emit papi_avail check:avail_kernel 60 "$OURS_ENV" -- /papi/ours/utils/papi_avail
	emit papi_avail_no_user_access check:avail_no 60 user_access=0 "$OURS_ENV" \
		-- /papi/ours/utils/papi_avail
	emit papi_avail_stock check:avail_stock 60 "$STOCK_ENV" -- /papi/stock/utils/papi_avail
	emit papi_component_avail check:rdpmc_reason 60 "$OURS_ENV" \
		-- /papi/ours/utils/papi_component_avail
	matrix_modes "$1"
	for t in $MATRIX_ENGINE_TESTS; do
		emit "$t" tap "$1" -- "/bin/$t"
	done
	for t in $MATRIX_PAPI_TESTS; do
		emit "$t" tap "$1" "$OURS_ENV" -- "/bin/$t"
	done
	emit papi_overhead_counter check:overhead_kernel 300 "$OURS_ENV" \
		-- /bin/papi_overhead -m counter -k 3
}

# The kernel version boot KEY runs, empty for guest.mk's own.
boot_kernel() { echo "$BOOTS" | awk -v k="$1" '$1 == k { print $10 }'; }

# Does the kernel of the boot being reported let user space read counters
# at all?  Derived from the machine: /init found the switch that allows
# it (arm64's and riscv64's sysctl, x86's rdpmc file; an arm64 kernel
# before 5.17 has none, and its page always says cap_user_rdpmc 0).
kernel_has_user_access() {
	! grep -qx 'default_perf_user_access ?' "$R/$key/progs/info"
}

# papi_avail on a kernel of the matrix: yes where the kernel has user
# access, else no, and our component's description gives the kernel's
# reason (papi_component_avail's "rdpmc:"; papi_avail prints no reason).
check_avail_kernel() {
	if kernel_has_user_access; then
		check_avail_yes "$@"
	else
		check_avail_no "$@"
	fi
}

# Our component's description says why: "rdpmc: yes", or on a kernel
# without user access the missing switch ("rdpmc: no perf_user_access:
# old kernel").
check_rdpmc_reason() {
	if kernel_has_user_access; then
		line_has "$@" 'rdpmc:' 'rdpmc: yes'
	else
		line_has "$@" 'rdpmc:' ': old kernel'
	fi
}

# The table, beside the boot's results; on a kernel with user access,
# ours makes no system call in PAPI_read, PAPI_start and PAPI_stop
# (CASE.no_syscalls), and each call is within the goal against stock's
# (CASE.against_stock: matrix_goal).
check_overhead_kernel() {
	local c=$1 out=$2 bad
	table "$@" '^PAPI_read ' "exact instruction table" "$key/papi_overhead-counter.txt"
	[ "$3" = exit=0 ] || return 0
	if ! kernel_has_user_access; then
		skip "$c.no_syscalls" "the kernel has no user-space counter access (papi_avail)"
		skip "$c.against_stock" "the kernel has no user-space counter access (papi_avail)"
		return
	fi
	bad=$(awk '$1 ~ /^PAPI_(read|start|stop)$/ && $(NF - 2) + 0 != 0 {
		printf "%s %s ev: %s; ", $1, $2, $(NF - 2) }' "$out")
	if [ -z "$bad" ]; then
		pass "$c.no_syscalls" "PAPI_read, PAPI_start, PAPI_stop of 1 to 3 events: 0 system calls"
	else
		fail "$c.no_syscalls" "system calls of ours: $bad"
	fi
	matrix_goal "$c.against_stock" "$out"
}

# ratio_rows OUT MAX: the rows of the cost table (but a set's first start,
# which opens its events) where ours is above MAX times stock's; "stock
# disabled: WHY" where stock counted nothing.
ratio_rows() {
	awk -v max="$2" '
		/^stock     : not measured: / { sub(/^stock     : not measured: /, ""); why = $0 }
		/^call / { t = 1; next }
		/^\(/ { t = 0 }
		t && NF && $1 != "PAPI_start/new" {
			o = $3; st = $5; gsub(/\*/, "", o); gsub(/\*/, "", st)
			if (st !~ /^[0-9]+$/) { dis = 1; next }
			if (o + 0 > max * st) printf "%s %s ev: %d > %s x %d; ", $1, $2, o, max, st
		}
		END { if (dis) printf "stock disabled: %s", why }' "$1"
}

# against_stock CASE OUT MAX WHAT: every row of ours at most MAX times stock's.
against_stock() {
	local bad
	bad=$(ratio_rows "$2" "$3")
	case $bad in
	"stock disabled: "*) skip "$1" "no stock figure to compare with: ${bad#stock disabled: }" ;;
	"") pass "$1" "$4" ;;
	*) fail "$1" "$bad" ;;
	esac
}

# ---------------------------------------------------------------------------
# Judging the utilities' output: check_FUNCTION CASE OUT STATUS prints the
# case lines, CASE ("[arm64 cortex-a57] papi_avail") and CASE.PART where the
# output holds more than one.

check_exit0() {
	if [ "$3" = exit=0 ]; then pass "$1"; else fail "$1" "$3: $(tail -n 1 "$2")"; fi
}

# papi_avail's rdpmc line says yes with user access, no without it (the
# plan's user_access=0).  Stock reads counters with read(2) only and
# says no; its case wants the line, whatever it says.
check_avail_yes() { line_has "$@" 'Fast counter read (rdpmc)' ': yes'; }
check_avail_no() { line_has "$@" 'Fast counter read (rdpmc)' ': no'; }
check_avail_stock() { line_has "$@" 'Fast counter read (rdpmc)' ''; }

# line_has CASE OUT STATUS KEY WANT: the program exited 0, and the first
# line of OUT with KEY (its runs of spaces made one) holds WANT.  (awk,
# not grep: no such line must be this case's FAIL, not a failed command
# that set -e stops at.)
line_has() {
	local l
	l=$(awk -v k="$4" 'index($0, k) { gsub(/  +/, " "); sub(/^ /, ""); print; exit }' "$2")
	if [ "$3" = exit=0 ] && [ -n "$l" ] && [[ $l == *"$5"* ]]; then
		pass "$1" "$l"
	else
		fail "$1" "$3; want \"$4\" with \"$5\", got \"${l:-no such line}\""
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
# LABEL boot_KEY (arm64: a57 and ctests1..3 boot the same machine).
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
	# Each of our programs the guest never began is a FAIL of its own
	# (PAPI's tests: their rows, report_ctests).
	while IFS=$'\t' read -r name kind; do
		case $kind in
		papi:*) ;;
		*) fail "$label $name" "not run: the guest stopped before it ($(boot_end "$d"))" ;;
		esac
	done < <(awk -F'\t' 'NR == FNR { ran[$2] = 1; next } !($1 in ran)' \
		"$d/progs/index.tsv" "$d/kinds.tsv")
	if ! grep -q '^kernel ' "$d/progs/info"; then
		fail "$label boot_$key" "the guest never reached /init ($(boot_end "$d")): $(last_words "$d/console.log")"
	elif ! grep -qx "done" "$d/progs/info"; then
		fail "$label boot_$key" "ran $ran of $planned programs, then $(boot_end "$d")"
	else
		pass "$label boot_$key" "$ran programs, $(cat "$d/seconds") s ($(cat "$d/cpu") s of CPU)"
	fi
	if declare -F "boot_check_$key" >/dev/null; then
		"boot_check_$key" "$label" "$d/progs/info"
	fi
	if [ -n "$(boot_kernel "$key")" ]; then
		boot_check_kernel "$key" "$label" "$d/progs/info"
	fi
}

# boot_check_kernel KEY LABEL INFO: a boot of the matrix ran the kernel
# it was given (LABEL kernel: its release begins with the version), and
# that kernel registered the core PMU (LABEL core_pmu: a PMU named as
# MATRIX_CORE_PMU matches, in /init's list).
boot_check_kernel() {
	local ver rel pmus core
	ver=$(boot_kernel "$1")
	rel=$(sed -n 's/^kernel \([^ ]*\).*/\1/p' "$3")
	case $rel in
	"$ver".* | "$ver"-*) pass "$2 kernel" "$rel" ;;
	*) fail "$2 kernel" "want Linux $ver, the guest ran ${rel:-no kernel it said}" ;;
	esac
	pmus=$(sed -n 's/^pmus //p' "$3")
	core=$(awk -v re="^($MATRIX_CORE_PMU)\$" '{ for (i = 1; i <= NF; i++) if ($i ~ re) { print $i; exit } }' <<<"$pmus")
	if [ -n "$core" ]; then
		pass "$2 core_pmu" "$core"
	else
		fail "$2 core_pmu" "no PMU named $MATRIX_CORE_PMU among the kernel's: ${pmus:-none listed}"
	fi
}

# The kernel's panic line, else the console's last lines.
last_words() {
	{ grep -m 1 'Kernel panic' "$1" || grep -v '^$' "$1" | tail -n 3; } |
		tr -d '\r' | tr '\n' ' ' | cut -c1-300
}

# How the boot ended, from QEMU's exit status and the watchdog's word.
boot_end() {
	local rc
	rc=$(cat "$1/qemu.rc" 2>/dev/null || echo '?')
	if [ -s "$1/stopped" ]; then
		cat "$1/stopped"
		return
	fi
	case $rc in
	0) echo "the guest powered off or rebooted early" ;;
	152) echo "QEMU reached its limit of $(cat "$1/limit") s of CPU time" ;;
	*) echo "QEMU exited with status $rc: $(grep -m 1 -i qemu "$1/console.log" | cut -c1-200)" ;;
	esac
}


# ---------------------------------------------------------------------------
# Running the boots.

# qemu_machine KEY: into the array qargs, QEMU and the options that make
# boot KEY's machine: all of its command line but the kernel, its initrd
# and command line, and -dtb.  The boot runs it; a device tree of its own
# is dumped from it (make_dtbs), so that the tree is that machine's.
# CPU_OPTIONS follow -cpu's model, QEMU_OPTIONS the machine's size.
qemu_machine() {
	local m cpu smp
	read -r m cpu smp < <(echo "$BOOTS" | awk -v k="$1" '$1 == k { print $8, $3, $4 }')
	qargs=("$QEMU" -M "$m" -cpu "$cpu$CPU_OPTIONS" -smp "$smp" -m 1024
		"${QEMU_OPTIONS[@]}" -nographic -nic none -no-reboot
		-icount "shift=0,sleep=off")
}

boot() { # boot KEY LIMIT: QEMU, output into $R/KEY
	local d=$R/$1 t0 rc=0 tree kernel dtb=()
	read -r tree kernel < <(echo "$BOOTS" | awk -v k="$1" '$1 == k { print $9, $10 }')
	[ "$tree" = - ] || dtb=(-dtb "$O/$tree.dtb")
	qemu_machine "$1"
	echo "$2" >"$d/limit"
	: >"$d/stopped"
	t0=$(date +%s)
	cpu_limited "$2" "$d/stopped" "${qargs[@]}" "${dtb[@]}" \
		-kernel "$O/kernel${kernel:+-$kernel}" -initrd "$O/initrd.gz" \
		-append "console=$CONSOLE panic=-1 quiet${KERNEL_ARGS:+ $KERNEL_ARGS} lope_plan=/plans/$1" \
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

# cpu_limited LIMIT WHY CMD...: CMD (QEMU) limited by the CPU time it
# uses, never by the time on the wall, which a loaded host stretches:
# under -icount a guest does the same work in about the same CPU time
# however busy the host is (in a KVM guest, CPU time also holds some of
# what the host takes: the limits leave room for it).  RLIMIT_CPU stops it (SIGXCPU, status 152) at LIMIT
# seconds of CPU; a CMD whose CPU time stands still for GUEST_STALL
# seconds (default 300: it waits on something, and will not end) is
# killed, and so is one past GUEST_WALL_FACTOR (default 4) times LIMIT on
# the wall; either is said in the file WHY.  Its exit status is CMD's.
cpu_limited() {
	local limit=$1 why=$2 pid rc=0 st ticks last=-1 still=0 t0=$SECONDS
	local stall=${GUEST_STALL:-300} wall=$((${GUEST_WALL_FACTOR:-4} * $1))
	local hz
	hz=$(getconf CLK_TCK)
	shift 2
	(
		ulimit -c 0
		ulimit -S -t "$limit"
		exec "$@"
	) &
	pid=$!
	while read -r -a st 2>/dev/null <"/proc/$pid/stat" && [ "${st[2]}" != Z ]; do
		ticks=$((st[13] + st[14]))
		if [ "$ticks" -gt "$last" ]; then
			last=$ticks still=$SECONDS
		elif [ $((SECONDS - still)) -ge "$stall" ]; then
			echo "the host killed it: its CPU time stood still at $((ticks / hz)) s for $stall s" >"$why"
			kill -9 "$pid"
			break
		fi
		if [ $((SECONDS - t0)) -ge "$wall" ]; then
			echo "the host killed it after $wall s on the wall ($((ticks / hz)) of its $limit s of CPU time)" >"$why"
			kill -9 "$pid"
			break
		fi
		sleep 1
	done
	wait "$pid" || rc=$?
	return "$rc"
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
	while read -r key _ _ _ _ _ _ _ tree _; do
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
	if grep -q "^ctests" <<<"$(selected_boots)"; then
		rm -rf "$R/ctests" "$R/ctests.md" "$R/ctests.tsv"
	fi
	while read -r key _ _ _ _ _ t _ _ kernel; do
		rm -rf "${R:?}/$key"
		[ "$key" != "$OVERHEAD_BOOT" ] || rm -f "$R"/papi_overhead-*.txt
		mkdir -p "$R/$key"
		plan=$O/plans/plans/$key kinds=$R/$key/kinds.tsv
		: >"$plan"
		: >"$kinds"
		if [ -n "$kernel" ]; then
			plan_matrix "$t"
		else
			"plan_$key" "$t"
		fi
		[ "${LOPE_GUEST_INJECT:-}" != plan_error ] ||
			plan_error injected "LOPE_GUEST_INJECT=plan_error"
	done < <(selected_boots)
	(cd "$O/plans" && find . | LC_ALL=C sort | cpio -o -H newc --quiet -R 0:0 | gzip -1) \
		>"$O/plans.cpio.gz"
	cat "$O/initrd.cpio.gz" "$O/plans.cpio.gz" >"$O/initrd.gz"
}

# announce_plans: a "PLAN: unit" line for every case group the boots
# will report (run-tests.sh fails each that then reports nothing, so
# that no case vanishes with a boot or with this script): each boot's
# own case, each program of its plan, each test it leaves out, and each
# of PAPI's tests when the three boots that run them are all selected.
announce_plans() {
	local key label all3 c1
	all3=$(selected_boots | awk '$1 ~ /^ctests[123]$/' | wc -l)
	c1=$(label_of ctests1)
	while read -r key _; do
		label=$(label_of "$key")
		echo "PLAN: $label boot_$key"
		awk -F'\t' -v l="$label" -v all3="$all3" '
			$2 !~ /^papi:/ { print "PLAN: " l " " $1 }
			$2 ~ /^papi:/ && all3 == 3 { print "papi " $1 }' "$R/$key/kinds.tsv"
		[ ! -f "$R/$key/plan_errors" ] ||
			cut -f1 "$R/$key/plan_errors" | sed "s/^/PLAN: $label /"
		[ ! -f "$R/$key/not_run" ] ||
			sed "s|^.*/|PLAN: $label |" "$R/$key/not_run"
	done < <(selected_boots) | while read -r w rest; do
		if [ "$w" = papi ]; then
			echo "PLAN: $c1 papi.$(case_name "${rest#*/}")"
		else
			echo "$w $rest"
		fi
	done | awk '!seen[$0]++'
}

# report_plan_errors KEY LABEL: a boot whose plan has errors was not
# booted: each error is a FAIL, and so is each program it was to run.
report_plan_errors() {
	local name why first
	first=$(sed -n '1{s/\t/: /;p}' "$R/$1/plan_errors")
	while IFS=$'\t' read -r name why; do
		fail "$2 $name" "plan: $why"
	done <"$R/$1/plan_errors"
	while IFS=$'\t' read -r name _; do
		fail "$2 $name" "not run: this machine was not booted, its plan has errors ($first)"
	done <"$R/$1/kinds.tsv"
	fail "$2 boot_$1" "not booted: its plan has errors ($first)"
}

# Run the boots JOBS at a time, the longest first (not those whose plan
# has errors).
run_boots() {
	local key cpu smp limit
	while read -r key _ cpu smp _ limit _; do
		[ ! -f "$R/$key/plan_errors" ] || continue
		[ "${LOPE_GUEST_INJECT:-}" != cpu_limit ] || limit=2
		while [ "$(jobs -rp | wc -l)" -ge "$JOBS" ]; do wait -n || true; done
		echo "# booting $(label_of "$key") ($key): -cpu $cpu -smp $smp, at most $limit s of CPU time"
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

build() {
	local papi_src t0 rc=0
	papi_src=${PAPI_SRC:-$(sed -n 's/^PAPI_SRC = //p' "$top_builddir/Makefile" 2>/dev/null)}
	if [ -z "$papi_src" ]; then
		fail "[$GUEST] cross_build" "no PAPI source tree (configure the top build, or set PAPI_SRC)"
		return 1
	fi
	mkdir -p "$O"
	t0=$(date +%s)
	# Our make's jobserver is not ours to use: a -j2 of our own.
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make --no-print-directory \
		-f "$top_srcdir/ctests/guest/guest.mk" -j2 srcdir="$top_srcdir" \
		GUEST="$GUEST" PAPI_SRC="$papi_src" O="$O" "${GUEST_MAKE_VARS[@]}" \
		>"$O/build.log" 2>&1 || rc=$?
	grep '^# ' "$O/build.log" || true
	if [ "$rc" -ne 0 ]; then
		tail -n 20 "$O/build.log" | sed 's/^/# /'
		fail "[$GUEST] cross_build" "make -f ctests/guest/guest.mk failed (log: $O/build.log): $(grep -m 1 -E 'error|failed' "$O/build.log" | cut -c1-200)"
		return 1
	fi
	pass "[$GUEST] cross_build" "$(($(date +%s) - t0)) s"
	fetch_kernels
}

# The kernels of the matrix the selected boots run (fetch.sh kernel), a
# case each ("[GUEST] fetch_linux_5_10"); the boots of one that could
# not be had are left out.
fetch_kernels() {
	local ver suite out k
	for ver in $(selected_boots | awk '$10 != "" { print $10 }' | sort -u); do
		suite=$(echo "$KERNELS" | awk -v v="$ver" '$1 == v { print $2 }')
		if out=$(bash "$top_srcdir/ctests/guest/fetch.sh" kernel "$GUEST" "$suite" \
			"${LOPE_KERNEL_CACHE:-/var/cache/lope}" "$O/kernel-$ver" \
			2>"$O/kernel-$ver.log"); then
			pass "[$GUEST] fetch_linux_$(case_name "$ver")" "Debian $suite's $out"
			continue
		fi
		fail "[$GUEST] fetch_linux_$(case_name "$ver")" \
			"fetch.sh kernel $GUEST $suite: $(tail -n 1 "$O/kernel-$ver.log")"
		for k in $(selected_boots | awk -v v="$ver" '$10 == v { print $1 }'); do
			LEFT_OUT="$LEFT_OUT $k"
		done
	done
}

# The whole script's SKIP when it is not wanted or a tool is missing
# (HOST_TOOLS: a tool and where Debian has it, a line each).
host_ready() {
	local tool how
	if [ "${LOPE_GUEST:-1}" = 0 ]; then
		skip "[$GUEST] guest" "LOPE_GUEST=0"
		exit 0
	fi
	while IFS=$'\t' read -r tool how; do
		[ -z "$tool" ] || need_tool "[$GUEST] guest" "$tool" "$how"
	done <<<"$HOST_TOOLS"
	need_tool "[$GUEST] guest" cpio
}

main() {
	local key t0
	host_ready
	check_kernels_wanted
	build || exit 1
	make_dtbs
	make_plans
	announce_plans
	t0=$(date +%s)
	run_boots
	echo "# all boots: $(($(date +%s) - t0)) s, $(cat "$R"/*/cpu 2>/dev/null | awk '{ s += $1 } END { print s + 0 }') s of CPU"
	while read -r key _; do
		[ ! -f "$R/$key/not_run" ] || report_not_run "$key" "$(label_of "$key")"
		if [ -f "$R/$key/plan_errors" ]; then
			report_plan_errors "$key" "$(label_of "$key")"
		else
			report_boot "$key" "$(label_of "$key")"
		fi
	done < <(selected_boots)
	report_ctests "$(label_of ctests1)"
	kernel_tables
}

# Each machine of the matrix, its exact cost table on every kernel that
# has one, side by side (kernel-table.sh), kept as R/kernels-KEY.md.
kernel_tables() {
	local key table t f
	while read -r key _ _ _ _ _ table; do
		[ -n "$key" ] || continue
		t=()
		[ ! -f "$R/$table" ] || t=("$R/$table")
		for f in "$R/$key"-*/papi_overhead-counter.txt; do
			[ ! -f "$f" ] || t+=("$f")
		done
		[ "${#t[@]}" -gt 1 ] || continue
		bash "$top_srcdir/ctests/guest/kernel-table.sh" "${t[@]}" >"$R/kernels-$key.md" &&
			echo "# $GUEST $key, ours / stock on each kernel ($R/kernels-$key.md):" &&
			sed 's/^/# /' "$R/kernels-$key.md"
	done <<<"$MATRIX_MACHINES"
}

# The whole run; its exit status is 1 when any case failed (run-tests.sh
# counts the lines).
guest_run() {
	local log
	BOOTS="$BOOTS$(matrix_boots)"
	log=$(mktemp "${TMPDIR:-/tmp}/lope-$GUEST.XXXXXX")
	# shellcheck disable=SC2064 # the name now
	trap "rm -f '$log'" EXIT
	main "$@" | tee "$log"
	! grep -q '^FAIL: ' "$log"
}
