#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_show_results.sh: the end of `make demo` (ctests/guest/show-results.sh)
# says where the user-space read path is measured and shows the arm64
# guest's papi_overhead -m counter table when a run made one, or the command that makes
# it; where this machine has a core PMU it prints nothing.
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
	skip show_results_without_a_table "this machine has a core PMU ($pmu): nothing to show"
	skip show_results_with_a_table "this machine has a core PMU ($pmu): nothing to show"
	exit $((nfail > 0))
fi

out=$(bash "$show" "$tmp/none" 2>&1)
if grep -q 'emulated arm64 machine' <<<"$out" &&
	grep -q 'LOPE_GUEST_MACHINES=a57 make check TESTS=ctests/guest/test_arm64.sh' <<<"$out"; then
	pass show_results_without_a_table
else
	fail show_results_without_a_table "no pointer to the guest or no command: $(tr '\n' ' ' <<<"$out" | cut -c1-200)"
fi

printf 'PAPI_read         1        206\n' >"$tmp/papi_overhead-counter.txt"
out=$(bash "$show" "$tmp" 2>&1)
if grep -q '^PAPI_read         1        206$' <<<"$out" &&
	! grep -q 'make check TESTS' <<<"$out"; then
	pass show_results_with_a_table
else
	fail show_results_with_a_table "the table not shown, or the command shown too: $(tr '\n' ' ' <<<"$out" | cut -c1-200)"
fi
exit $((nfail > 0))
