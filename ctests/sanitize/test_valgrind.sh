#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 1200
#
# valgrind memcheck over PAPI-level programs against OUR libpapi (as built,
# no recompilation) and over engine unit tests (doc/testing-sanitize.md):
#
#	valgrind --leak-check=full --error-exitcode=99 \
#		--errors-for-leak-kinds=definite,indirect,possible \
#		--suppressions=ctests/sanitize/valgrind.supp PROG
#
# forked children included (valgrind follows fork, not exec).  One case per
# program: PASS when memcheck reports no error and no leak in any process
# (the program's own cases are run for the code paths: timing-sensitive
# ones may fail under valgrind's slowdown, and are shown as information
# only, because the normal run of the same program checks them).
# Prints PASS/FAIL/SKIP lines (see ctests/lib/report.h).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$(cd "$here/../.." && pwd)}
build=${top_builddir:-$top}
ours=${PAPI_OURS_BUILDDIR:-$build/papi/ours/src}
vg=${VALGRIND:-valgrind}

# The programs whose code paths survive valgrind, those of
# ctests/tests.list with the attribute valgrind: no ptrace, no exec of
# PAPI programs, no page-fault or timing bounds that valgrind breaks, and
# no thread that spins while another waits for it (valgrind runs one
# thread at a time: test_badinput_*'s witness thread can take minutes).
vg_tests=$(sh "$top/scripts/lists.sh" tests "$top/ctests/tests.list" valgrind) ||
	exit 1
papi_progs=$(printf '%s\n' "$vg_tests" | grep '^ctests/papi/')
engine_progs=$(printf '%s\n' "$vg_tests" | grep '^ctests/engine/')

# shellcheck source=../report.sh
. "$top/ctests/report.sh"
need_tool valgrind "$vg" "scripts/install-deps.sh installs it"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-valgrind.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH="$ours${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PAPI_OURS_BUILDDIR="$ours"

n=0

# check NAME CMD...: one program under memcheck, one case.
check() {
	local name=$1 rc logs errs p f why log
	shift
	n=$((n + 1))
	rm -f "$tmp"/vg.* "$tmp/out"
	timeout -k 10 240 "$vg" -q --tool=memcheck --leak-check=full \
		--errors-for-leak-kinds=definite,indirect,possible \
		--show-leak-kinds=definite,indirect,possible \
		--error-exitcode=99 --num-callers=30 \
		--suppressions="$here/valgrind.supp" \
		--log-file="$tmp/vg.%p" "$@" </dev/null >"$tmp/out" 2>&1
	rc=$?
	logs=0
	for log in "$tmp"/vg.*; do
		[ ! -e "$log" ] || logs=$((logs + 1))
	done
	errs=$(cat "$tmp"/vg.* 2>/dev/null | grep -c -E '^==[0-9]+== (Invalid|Conditional|Use of uninitialised|Syscall param|Mismatched|Source and destination|Argument|Process terminating|[0-9,]+ (\(.*\) )?bytes in [0-9,]+ blocks are (definitely|indirectly|possibly) lost)')
	p=$(grep -c '^PASS: ' "$tmp/out")
	f=$(grep -c '^FAIL: ' "$tmp/out")
	if [ "$rc" -eq 99 ] || [ "$errs" -ne 0 ]; then
		cat "$tmp"/vg.* | grep -v '^==[0-9]*== *$' | sed -n 1,60p |
			sed 's/^/# | /'
		why=$(cat "$tmp"/vg.* | grep -E '^==[0-9]+== [A-Z0-9]' | sed -n 1p |
			sed 's/^==[0-9]*== //')
		fail "$name" "memcheck: $errs report(s) in $logs process(es), first: $why"
	elif [ "$rc" -gt 128 ] || [ "$rc" -eq 124 ]; then
		tail -n 20 "$tmp/out" | sed 's/^/# | /'
		fail "$name" "exit status $rc under valgrind"
	else
		[ "$f" -ne 0 ] && grep '^FAIL: ' "$tmp/out" |
			sed 's/^/# under valgrind (not counted): /'
		if [ $((p + f)) -eq 0 ]; then
			pass "$name" "memcheck clean in $logs process(es), exit $rc"
		else
			pass "$name" "memcheck clean in $logs process(es); $p cases passed, $f failed under valgrind"
		fi
	fi
}

# check_built "PROG...": each test program of the list under memcheck, or
# a FAIL when it is not built.
check_built() {
	local prog
	for prog in $1; do
		if [ -x "$build/$prog" ]; then
			check "valgrind_$(basename "$prog")" "$build/$prog"
		else
			fail "valgrind_$(basename "$prog")" "$build/$prog not built"
		fi
	done
}

start=$(date +%s)
if [ -f "$ours/libpapi.so" ]; then
	check_built "$papi_progs"
	for u in "papi_avail -a" "papi_native_avail -c"; do
		# shellcheck disable=SC2086 # the program and its argument
		set -- $u
		if [ -x "$ours/utils/$1" ]; then
			check "$(case_name valgrind "$u")" "$ours/utils/$1" "$2"
		else
			skip "$(case_name valgrind "$u")" "$ours/utils/$1 not built"
		fi
	done
else
	skip valgrind_papi_programs "no libpapi.so in $ours"
fi
check_built "$engine_progs"
info "$n programs under memcheck in $(($(date +%s) - start)) s"
exit $((nfail > 0))
