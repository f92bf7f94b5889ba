#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_show_results.sh: the end of `make demo` (ctests/guest/show-results.sh)
# says where the user-space read path is measured, in the emulated machine
# of this architecture (x86-64's for an x86 user, arm64's for arm64,
# riscv64's), and shows its papi_overhead -m counter table and its tables
# on every kernel when a run made them, or the command that makes them;
# where this machine has a core PMU it prints nothing.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/ctests/report.sh"
. "$top/ctests/core_pmu.sh"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
show=$top/ctests/guest/show-results.sh

if pmu=$(core_pmu); then
	out=$(bash "$show" "$tmp" 2>&1)
	if [ -z "$out" ]; then
		pass show_results_silent_with_a_core_pmu "$pmu"
	else
		fail show_results_silent_with_a_core_pmu "core PMU $pmu, yet it printed: $(head -n 1 <<<"$out")"
	fi
	for a in x86_64 aarch64 riscv64; do
		skip "show_results_without_a_table_$a" "this machine has a core PMU ($pmu): nothing to show"
		skip "show_results_with_a_table_$a" "this machine has a core PMU ($pmu): nothing to show"
	done
	exit $((nfail > 0))
fi

# show ARCH GUEST: each architecture's own machine, its table or the
# command that makes it.
show() {
	local arch=$1 guest=$2 boot=$3 out
	out=$(bash "$show" "$tmp/none" "$arch" 2>&1)
	if grep -q "emulated $guest machine" <<<"$(tr '\n' ' ' <<<"$out")" &&
		grep -q "LOPE_GUEST_MACHINES=$boot .*make check TESTS=ctests/guest/test_$4.sh" <<<"$out"; then
		pass "show_results_without_a_table_$arch" "$(grep 'make check' <<<"$out" | sed 's/^ *//')"
	else
		fail "show_results_without_a_table_$arch" "no pointer to the $guest machine or no command: $(tr '\n' ' ' <<<"$out" | cut -c1-200)"
	fi
	mkdir -p "$tmp/g/$4/results"
	printf 'PAPI_read         1        206\n' >"$tmp/g/$4/results/papi_overhead-counter.txt"
	printf '| PAPI_read | 1 | 184 / 213 |\n' >"$tmp/g/$4/results/kernels-m.md"
	out=$(bash "$show" "$tmp/g" "$arch" 2>&1)
	if grep -q '^PAPI_read         1        206$' <<<"$out" &&
		grep -qF '| PAPI_read | 1 | 184 / 213 |' <<<"$out" &&
		! grep -q 'make check TESTS' <<<"$out"; then
		pass "show_results_with_a_table_$arch"
	else
		fail "show_results_with_a_table_$arch" "the tables not shown, or the command shown too: $(tr '\n' ' ' <<<"$out" | cut -c1-200)"
	fi
}
show x86_64 x86-64 x86 x86_64
show aarch64 arm64 a57 arm64
show riscv64 riscv64 rv riscv64
exit $((nfail > 0))
