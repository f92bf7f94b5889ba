#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 900
#
# test_harness.sh: no case vanishes.  The failures that once took a whole
# emulated machine's cases with them are made on purpose, and every case
# that machine had planned must come out as a FAIL with the reason:
#   plan_error   a plan error (LOPE_GUEST_INJECT=plan_error): the
#                machine is not booted
#   cpu_limit    QEMU stopped at its limit of CPU time mid-boot
#                (LOPE_GUEST_INJECT=cpu_limit)
#   timeout      the runner's timeout kills a script that had planned
#                units (a stand-in script: ctests/run-tests.sh's side)
#   unknown_kernel  LOPE_GUEST_KERNELS names a kernel the machine's
#                matrix does not have: a FAIL naming those it has, before
#                anything is built
# The machine is the riscv64 "legacy" boot (the smallest), as
# test_riscv64.sh built it; its results go to a scratch directory.  Each
# inner run's cases are checked here, never counted by the outer runner.
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
export top_srcdir top_builddir
# shellcheck source=../report.sh
. "$top_srcdir/ctests/report.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-harness.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# inner OUT ENV... -- PROG...: run-tests.sh on PROG with ENV, into OUT.
inner() {
	local out=$1 vars=()
	shift
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	env "${vars[@]}" bash "$top_srcdir/ctests/run-tests.sh" "$@" >"$out" 2>&1
}

# every_unit_failed CASE OUT WANT: every PLAN unit of OUT has a FAIL line
# and none a PASS (but cross_build), and some FAIL says WANT.
every_unit_failed() {
	local c=$1 out=$2 want=$3 units bad
	units=$(grep -c '^PLAN: ' "$out")
	bad=$(awk '
		/^PLAN: / { plan[substr($0, 7)] = 1; next }
		/^(PASS|FAIL|SKIP): / {
			c = substr($0, 7); i = index(c, ": "); if (i) c = substr(c, 1, i - 1)
			k = c; j = index(k, "."); if (j) k = substr(k, 1, j - 1)
			if ($1 == "FAIL:") failed[k] = 1
			else if (c !~ /cross_build$/) good[k] = good[k] " " $1 c
		}
		END {
			for (u in plan) {
				if (!(u in failed)) print u ": no FAIL"
				if (u in good) print u ":" good[u]
			}
		}' "$out" | sort | tr '\n' ';')
	if [ "$units" -eq 0 ]; then
		fail "$c" "no PLAN line: $(grep -E '^(FAIL|SKIP)' "$out" | sed -n 1,3p | tr '\n' ' ')"
	elif [ -n "$bad" ]; then
		fail "$c" "$units units planned, but: ${bad:0:300}"
	elif ! grep -q -- "$want" "$out"; then
		fail "$c" "no FAIL says '$want': $(grep '^FAIL' "$out" | sed -n 1,3p | tr '\n' ' ')"
	else
		pass "$c" "$units planned units, each a FAIL; $(grep -c '^FAIL: ' "$out") FAIL lines, one says '$want'"
	fi
}

# The runner's side, with a stand-in script: killed by the timeout after
# planning three units and reporting one.
cat >"$tmp/planner.sh" <<'PLANNER'
#!/usr/bin/env bash
printf 'PLAN: [m a] one\nPLAN: [m a] two\nPLAN: [m b] papi.three\n'
echo "PASS: [m a] one.case"
sleep 30
PLANNER
chmod +x "$tmp/planner.sh"
inner "$tmp/timeout.out" LOPE_TEST_TIMEOUT=1 LOPE_SRCDIR="$top_srcdir" -- "$tmp/planner.sh"
if grep -qx 'FAIL: \[m a\] two: planned, never reported (the program: timed out after 1 s)' "$tmp/timeout.out" &&
	grep -qx 'FAIL: \[m b\] papi.three: planned, never reported (the program: timed out after 1 s)' "$tmp/timeout.out" &&
	grep -qx '1 passed, 3 failed, 0 skipped' "$tmp/timeout.out"; then
	pass timeout_fails_every_unreported_unit "two unreported units and the program: 3 failed"
else
	fail timeout_fails_every_unreported_unit "$(grep -E '^(FAIL|[0-9]+ passed)' "$tmp/timeout.out" | tr '\n' ' ')"
fi

# The guest's side: a machine that can be booted here.
machine=(LOPE_GUEST_MACHINES=legacy LOPE_SRCDIR="$top_srcdir")
inner "$tmp/probe.out" "${machine[@]}" LOPE_GUEST_INJECT=plan_error \
	LOPE_GUEST_RESULTS="$tmp/r0" -- ctests/guest/test_riscv64.sh
if grep -q '^SKIP: \[riscv64\] guest' "$tmp/probe.out"; then
	why=$(sed -n 's/^SKIP: \[riscv64\] guest: //p' "$tmp/probe.out")
	skip plan_error_fails_the_machine "the riscv64 machine cannot run here: $why"
	skip cpu_limit_fails_the_machine "the riscv64 machine cannot run here: $why"
	exit 0
fi
every_unit_failed plan_error_fails_the_machine "$tmp/probe.out" 'plan: LOPE_GUEST_INJECT=plan_error'
inner "$tmp/kernels.out" "${machine[@]}" LOPE_GUEST_KERNELS=7.2,4.19 \
	LOPE_GUEST_RESULTS="$tmp/r2" -- ctests/guest/test_riscv64.sh
want='FAIL: [riscv64] kernels: LOPE_GUEST_KERNELS names 4.19: the riscv64 machines boot 6.12,7.2'
if grep -qxF "$want" "$tmp/kernels.out" && ! grep -q 'cross_build' "$tmp/kernels.out"; then
	pass unknown_kernel_fails_before_the_build "${want#FAIL: }"
else
	fail unknown_kernel_fails_before_the_build "want '$want' and no build: $(grep -E '^(FAIL|PASS)' "$tmp/kernels.out" | sed -n 1,3p | tr '\n' ' ')"
fi
inner "$tmp/cpu.out" "${machine[@]}" LOPE_GUEST_INJECT=cpu_limit \
	LOPE_GUEST_RESULTS="$tmp/r1" -- ctests/guest/test_riscv64.sh
every_unit_failed cpu_limit_fails_the_machine "$tmp/cpu.out" 'limit of 2 s of CPU time'
[ "$nfail" -eq 0 ]
