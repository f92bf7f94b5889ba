#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 1200
#
# AddressSanitizer + UndefinedBehaviorSanitizer (+ LeakSanitizer) over the
# engine, the components and the tests (doc/testing-sanitize.md):
#  1. the engine's sources (src/sources.mk) and the engine unit tests,
#     compiled together with the sanitizers into a temporary directory and
#     run;
#  2. a sanitized copy of OUR libpapi.so (the PAPI tree in
#     $PAPI_OURS_BUILDDIR copied and its library rebuilt with
#     CC="$CC <sanitizer flags>"), the PAPI-level tests of ctests/papi and
#     a few PAPI utilities compiled with the same flags and run against it.
# One case per program, asan_PROGRAM: PASS when it exits 0 and no
# sanitizer reported anything; the program's own output is shown as "# "
# lines when it fails.
# Prints PASS/FAIL/SKIP lines (see ctests/lib/report.h).
#
# Environment: LOPE_SAN_CC (default gcc), top_srcdir, PAPI_OURS_BUILDDIR
# (both set by make check), LOPE_SAN_KEEP=1 keeps the temporary directory.
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$(cd "$here/../.." && pwd)}
ours=${PAPI_OURS_BUILDDIR:-${top_builddir:-$top}/papi/ours/src}
cc=${LOPE_SAN_CC:-gcc}
san=("-fsanitize=address,undefined" -fno-omit-frame-pointer -fno-sanitize-recover=all)
# LOPE_DEBUG: the engine checks its invariants after each change of
# state (LOPE_CHECK, src/group.h), and aborts on a broken one.
cflags=(-g -O1 -Wall -Wextra -DLOPE_DEBUG)
arch=$(uname -m)

# The tests that run under the sanitizers: those of ctests/tests.list
# with the attribute asan (doc/testing-sanitize.md says why the others
# do not).
asan_tests=$(sh "$top/scripts/lists.sh" tests "$top/ctests/tests.list" asan) ||
	exit 1
engine_tests=$(printf '%s\n' "$asan_tests" | sed -n 's|^ctests/engine/||p')
papi_tests=$(printf '%s\n' "$asan_tests" | sed -n 's|^ctests/papi/||p')
interpose_tests=$(sh "$top/scripts/lists.sh" tests "$top/ctests/tests.list" \
	interpose) || exit 1

# shellcheck source=../report.sh
. "$here/../report.sh"

skip_all() {
	skip asan "$1"
	exit 0
}

need_tool asan "$cc"
[ -d "$top/src/arch/$arch" ] || skip_all "no engine arch directory for $arch"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-asan.XXXXXX") || exit 1
# test_domain re-executes itself as uid 65534, which must still reach the
# sanitized libpapi in here and the suppressions, copied in here (the
# source tree may be out of that user's reach: a clone under /root).
chmod 755 "$tmp"
if [ "${LOPE_SAN_KEEP:-0}" = 1 ]; then
	echo "# keeping $tmp"
else
	trap 'rm -rf "$tmp"' EXIT
fi

# Does the compiler have the sanitizer runtimes?
printf 'int main(void) { return 0; }\n' >"$tmp/probe.c"
if ! out=$($cc "${san[@]}" "$tmp/probe.c" -o "$tmp/probe" 2>&1) ||
	! out=$("$tmp/probe" 2>&1); then
	skip_all "$cc cannot build or run -fsanitize=address,undefined: $(printf '%s' "$out" | sed -n 1p)"
fi
info "flags: ${san[*]}"

# sanitizer_report LOG: the first sanitizer report in LOG, if any.
sanitizer_report() {
	local why
	why=$(grep -m1 -E 'runtime error:|ERROR: [A-Za-z]*Sanitizer' "$1" |
		sed 's/^==[0-9]*==//')
	# lsan.supp's PAPI_profil pattern may hide only PAPI's 32-byte
	# PAPI_sprofil_t blocks (our overflow set-up runs below PAPI_profil).
	if [ -z "$why" ] && ! awk '/^Suppressions used:/ { f = 1; next }
		f && $3 == "PAPI_profil" && $2 != 32 * $1 { bad = 1 }
		END { exit bad }' "$1"; then
		why="lsan.supp's PAPI_profil pattern hid more than PAPI_sprofil_t blocks: $(grep -A4 '^Suppressions used:' "$1" | tr -s ' \n' ' ')"
	fi
	printf '%s' "$why"
}

# run NAME LOG CMD...: run a sanitized program, report one case.  A run
# that fails only by its own FAIL lines (no sanitizer report, no signal,
# no timeout) is run once more: the PAPI-level tests have timing bounds
# (sampling, separate counts) that the sanitizers' slowdown on a busy
# machine can break once; a failure that repeats counts.
run() {
	local name=$1 log=$2 rc p f s why again=""
	shift 2
	while :; do
		timeout -k 10 150 "$@" </dev/null >"$log" 2>&1
		rc=$?
		p=$(grep -c '^PASS: ' "$log")
		f=$(grep -c '^FAIL: ' "$log")
		s=$(grep -c '^SKIP: ' "$log")
		why=$(sanitizer_report "$log")
		if [ -z "$why" ] && [ -z "$again" ] && [ "$rc" -le 128 ] &&
			[ "$rc" -ne 124 ] &&
			[ "$f" -ne 0 ]; then
			grep '^FAIL: ' "$log" | sed 's/^/# first run: /'
			again=" on a second run"
			continue
		fi
		break
	done
	if [ -n "$why" ]; then
		show_tail "$log"
		fail "$name" "$why"
	elif [ "$rc" -ne 0 ] || [ "$f" -ne 0 ]; then
		show_tail "$log"
		fail "$name" "exit status $rc, $f failed case(s) under the sanitizers$again"
	elif [ $((p + s)) -eq 0 ]; then
		pass "$name" "exit 0, no sanitizer report$again"
	else
		pass "$name" "$p cases passed, $s skipped; no sanitizer report$again"
	fi
}

# The suppressions from $tmp: test_domain's child as uid 65534 reads them.
cp "$here/asan.supp" "$here/lsan.supp" "$tmp/" || exit 1
chmod 644 "$tmp/asan.supp" "$tmp/lsan.supp"
export ASAN_OPTIONS="detect_leaks=1:suppressions=$tmp/asan.supp:strict_string_checks=1:detect_stack_use_after_return=1"
export LSAN_OPTIONS="suppressions=$tmp/lsan.supp"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"

# Does LeakSanitizer work here (it needs ptrace, which some containers
# forbid)?  A program that leaks must be reported.
printf '#include <stdlib.h>\nvoid *p;\nint main(void) { p = malloc(7); p = 0; return 0; }\n' >"$tmp/leak.c"
$cc "${san[@]}" -O0 "$tmp/leak.c" -o "$tmp/leak" 2>/dev/null
if "$tmp/leak" >"$tmp/leak.out" 2>&1 ||
	! grep -q 'detected memory leaks' "$tmp/leak.out"; then
	skip asan_leak_check "LeakSanitizer does not work here ($(grep -m1 -i 'sanitizer' "$tmp/leak.out" || echo 'no report for a known leak')): leaks are not checked"
	export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"
fi

# extra_options TEST: what one test needs added to ASAN_OPTIONS.
extra_options() {
	case $1 in
	test_rdpmc_guard)
		# Its positive control executes rdpmc in a child and expects
		# that child to die of SIGSEGV: ASan's own SEGV handler would
		# make it exit 1 instead.
		echo ":handle_segv=0"
		;;
	test_pagefault | test_group_api | test_hw | test_frontend_tau)
		# They count the minor faults of PAPI_start and the first read
		# (test_group_api: of the engine's enable and first read) and want
		# none, or (test_frontend_tau) none between a PAPI_read and the
		# PAPI_reset right after it, whose faults fall in no interval
		# when the reset samples anew (doc/read-path.md, the reset
		# rule).  ASan's fake stack (detect_stack_use_after_return)
		# gives each call of an instrumented function with an
		# address-taken local a new frame, round robin over 1 MiB per
		# frame size, and so touches a fresh page every 64 calls of the
		# smallest frames: whether one falls inside the measured calls
		# depends only on how many such calls came before (one more
		# helper in the test library was enough), and the fault is
		# ASan's, not the code's.
		echo ":detect_stack_use_after_return=0"
		;;
	test_stress)
		# It checks that VmRSS does not grow over thousands of loops;
		# ASan keeps freed blocks in quarantine (256 MiB), which
		# grows it.  Leaks are still LeakSanitizer's to find.
		echo ":quarantine_size_mb=0:thread_local_quarantine_size_kb=0"
		;;
	esac
}

# show_tail FILE: the end of a failed program's output, as information.
show_tail() {
	tail -n 40 "$1" | sed 's/^/# | /'
}

# The test library (ctests/lib/sources.mk), sanitized: the archive every
# test links, and the interposer of the tests with the attribute interpose.
# Its PAPI helpers need papi.h: our PAPI tree's.
lib=$tmp/lib
mkdir -p "$lib"
libsrcs=$(sh "$top/scripts/lists.sh" words "$top/ctests/lib/sources.mk" \
	LOPE_TESTLIB_SRCS) || exit 1
for c in $libsrcs interpose.c; do
	if ! $cc "${san[@]}" "${cflags[@]}" -I"$ours" -I"$top/ctests/lib" \
		-c "$top/ctests/lib/$c" -o "$lib/${c%.c}.o" \
		>"$tmp/build.log" 2>&1; then
		show_tail "$tmp/build.log"
		fail asan_test_library "$c does not build with the sanitizers"
		exit 1
	fi
done
# shellcheck disable=SC2086 # one word a file
(cd "$lib" && ar crs liblopetest.a ${libsrcs//.c/.o}) || exit 1

# interpose_obj TEST: the interposer's object if TEST links it.
interpose_obj() {
	case " ${interpose_tests//$'\n'/ } " in
	*" ctests/$1 "*) echo "$lib/interpose.o" ;;
	esac
}

# ---------------------------------------------------------------------------
# 1. The engine and its unit tests.

start=$(date +%s)
inc=(-I"$top/src" -I"$top/src/arch/$arch" -I"$top/ctests/lib")
mkdir -p "$tmp/engine"
ok=1
for c in $(sh "$top/scripts/lists.sh" words "$top/src/sources.mk" LOPE_ENGINE_SRCS); do
	c=$top/src/$c
	o="$tmp/engine/$(basename "${c%.c}").o"
	if ! $cc "${san[@]}" "${cflags[@]}" "${inc[@]}" -c "$c" -o "$o" >"$tmp/build.log" 2>&1; then
		show_tail "$tmp/build.log"
		fail "$(case_name asan_engine "$(basename "$c")")" "does not build with the sanitizers"
		ok=0
	fi
done
if [ "$ok" = 1 ]; then
	for t in $engine_tests; do
		if [ ! -f "$top/ctests/engine/$t.c" ]; then
			fail "asan_$t" "ctests/engine/$t.c missing"
			continue
		fi
		if ! $cc "${san[@]}" "${cflags[@]}" "${inc[@]}" "$top/ctests/engine/$t.c" \
			"$lib/liblopetest.a" "$tmp"/engine/*.o \
			-o "$tmp/engine/$t" -lpthread -lm \
			>"$tmp/build.log" 2>&1; then
			show_tail "$tmp/build.log"
			fail "asan_$t" "does not build with the sanitizers"
			continue
		fi
		ASAN_OPTIONS="$ASAN_OPTIONS$(extra_options "$t")" \
			run "asan_$t" "$tmp/engine/$t.log" \
			"$tmp/engine/$t"
	done
fi
info "engine: $(($(date +%s) - start)) s"

# ---------------------------------------------------------------------------
# 2. Our libpapi with the sanitizers, and PAPI-level programs against it.

start=$(date +%s)
if [ ! -f "$ours/Makefile" ] || [ ! -f "$ours/libpapi.so" ]; then
	skip asan_libpapi "no built PAPI tree at $ours"
	exit $((nfail > 0))
fi
sp="$tmp/papi/src"
mkdir -p "$tmp/papi"
cp -a "$ours" "$sp"
# PAPI's Makefile takes CC from its configure; overriding it on the command
# line adds the flags to every compile and link of the library (the
# component and the engine copied into it included).  Only the shared
# library is rebuilt ("make shared" compiles all its sources in one call).
rm -f "$sp"/libpapi.so*
if ! (cd "$sp" && env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL \
	make CC="$cc ${san[*]} -DLOPE_DEBUG" shared) >"$tmp/papi-build.log" 2>&1; then
	show_tail "$tmp/papi-build.log"
	fail asan_libpapi "make CC=\"$cc ${san[*]}\" shared failed"
	exit 1
fi
pass asan_libpapi "our libpapi.so rebuilt with the sanitizers in $(($(date +%s) - start)) s"

export LD_LIBRARY_PATH="$sp${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export PAPI_OURS_BUILDDIR="$sp"
mkdir -p "$tmp/bin"
for t in $papi_tests; do
	if [ ! -f "$top/ctests/papi/$t.c" ]; then
		fail "asan_$t" "ctests/papi/$t.c missing"
		continue
	fi
	# shellcheck disable=SC2046 # no word, or one
	if ! $cc "${san[@]}" "${cflags[@]}" -I"$sp" -I"$top/ctests/lib" \
		"$top/ctests/papi/$t.c" $(interpose_obj "papi/$t") \
		"$lib/liblopetest.a" -o "$tmp/bin/$t" -L"$sp" -lpapi \
		-lpthread -lm -ldl \
		>"$tmp/build.log" 2>&1; then
		show_tail "$tmp/build.log"
		fail "asan_$t" "does not build with the sanitizers"
		continue
	fi
	ASAN_OPTIONS="$ASAN_OPTIONS$(extra_options "$t")" \
		run "asan_$t" "$tmp/bin/$t.log" "$tmp/bin/$t"
done

# PAPI's own utilities: every event listed, every native event added to a
# set (papi_native_avail -c), through our components.
for u in papi_avail papi_native_avail papi_component_avail; do
	if ! $cc "${san[@]}" "${cflags[@]}" -w -I"$sp" -I"$sp/testlib" -I"$sp/utils" \
		"$sp/utils/$u.c" "$sp/utils/print_header.c" -o "$tmp/bin/$u" \
		-L"$sp" -lpapi >"$tmp/build.log" 2>&1; then
		show_tail "$tmp/build.log"
		fail "asan_$u" "does not build with the sanitizers"
	fi
done
[ -x "$tmp/bin/papi_avail" ] &&
	run asan_papi_avail_a "$tmp/bin/avail.log" "$tmp/bin/papi_avail" -a
[ -x "$tmp/bin/papi_native_avail" ] &&
	run asan_papi_native_avail_c "$tmp/bin/native.log" "$tmp/bin/papi_native_avail" -c
[ -x "$tmp/bin/papi_component_avail" ] &&
	run asan_papi_component_avail_d "$tmp/bin/comp.log" "$tmp/bin/papi_component_avail" -d
info "libpapi and PAPI-level programs: $(($(date +%s) - start)) s"
exit $((nfail > 0))
