#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_debian_tools.sh: our libpapi.so.7.0 is a drop-in for binaries built
# against another PAPI 7.0.  Runs Debian's papi-tools (/usr/bin/papi_avail,
# papi_component_avail, papi_native_avail) with
# LD_LIBRARY_PATH=$PAPI_OURS_BUILDDIR, then the same utilities from our own
# build ($PAPI_OURS_BUILDDIR/utils), and checks for each:
#   - it exits 0;
#   - the dynamic loader really loaded OUR libpapi (LD_DEBUG=libs names
#     $PAPI_OURS_BUILDDIR/libpapi.so.7.0 in its "calling init" line);
#   - papi_component_avail lists perf_event under "Active components";
#   - papi_avail prints "Fast counter read (rdpmc): no" on a machine
#     without a core PMU (with one: the line is there, value reported);
#   - papi_native_avail lists perf::TASK-CLOCK.
# Debian's tools missing (package papi-tools) -> those cases SKIP.
#
# Report protocol: ctests/tap.h (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

nfail=0
pass() { echo "PASS: $1"; }
fail() { echo "FAIL: $1: $2"; nfail=$((nfail + 1)); }
skip() { echo "SKIP: $1: $2"; }
info() { echo "# $*"; }

tools="papi_avail papi_component_avail papi_native_avail"

# The cases run for one tool; their names are <prefix>_<tool>_<check>.
case_names() { # prefix tool
	echo "$1_$2_exit0 $1_$2_loads_our_libpapi"
	case $2 in
	papi_avail) echo "$1_$2_fast_counter_read_line" ;;
	papi_component_avail) echo "$1_$2_perf_event_active" ;;
	papi_native_avail) echo "$1_$2_lists_task_clock" ;;
	esac
}

if [ -z "${PAPI_OURS_BUILDDIR:-}" ] || [ ! -d "$PAPI_OURS_BUILDDIR" ]; then
	fail setup "PAPI_OURS_BUILDDIR is not set or not a directory (${PAPI_OURS_BUILDDIR:-unset})"
	exit 1
fi
ours=$(cd "$PAPI_OURS_BUILDDIR" && pwd -P)
ourlib=$ours/libpapi.so.7.0
if [ ! -e "$ourlib" ]; then
	fail setup "$ourlib does not exist"
	exit 1
fi
ourlib_real=$(readlink -f "$ourlib")
export LD_LIBRARY_PATH="$ours${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"

# shellcheck source=../core_pmu.sh
. "$(dirname "$0")/../core_pmu.sh"
if core_pmu >/dev/null; then
	have_pmu=1
else
	have_pmu=0
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-debtools.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# check_tool prefix binary tool
check_tool() {
	local p=$1 bin=$2 tool=$3 out=$tmp/$1_$3.out dbg=$tmp/$1_$3.dbg rc
	local loaded

	timeout 120 "$bin" >"$out" 2>&1
	rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "${p}_${tool}_exit0"
	else
		fail "${p}_${tool}_exit0" "$bin exited $rc: $(head -c 300 "$out" | tr '\n' ' ')"
	fi

	# Which libpapi did the loader map?  "calling init: <path>" lines.
	if readelf -d "$bin" 2>/dev/null | grep -q 'NEEDED.*libpapi'; then
		LD_DEBUG=libs LD_DEBUG_OUTPUT=$dbg timeout 120 "$bin" >/dev/null 2>&1
		loaded=$(cat "$dbg".* 2>/dev/null | sed -n 's/.*calling init: \(.*libpapi\.so[^ ]*\).*/\1/p' | head -n 1)
		if [ -n "$loaded" ] && [ "$(readlink -f "$loaded")" = "$ourlib_real" ]; then
			pass "${p}_${tool}_loads_our_libpapi"
		else
			fail "${p}_${tool}_loads_our_libpapi" "loader used '${loaded:-no libpapi}', expected $ourlib"
		fi
	else
		# statically linked: it carries the library it was built with
		if [ "$p" = ours ]; then
			info "$bin is linked statically against our build's libpapi.a"
			pass "${p}_${tool}_loads_our_libpapi"
		else
			fail "${p}_${tool}_loads_our_libpapi" "$bin does not load libpapi dynamically"
		fi
	fi

	case $tool in
	papi_avail)
		local line
		line=$(grep -m1 'Fast counter read (rdpmc)' "$out")
		if [ "$have_pmu" = 0 ]; then
			if echo "$line" | grep -Eq ':[[:space:]]*no[[:space:]]*$'; then
				pass "${p}_${tool}_fast_counter_read_line"
			else
				fail "${p}_${tool}_fast_counter_read_line" "no core PMU, expected 'Fast counter read (rdpmc): no', got '${line:-no such line}'"
			fi
		else
			info "$p $tool with a core PMU: ${line:-no such line}"
			if echo "$line" | grep -Eq ':[[:space:]]*(yes|no)[[:space:]]*$'; then
				pass "${p}_${tool}_fast_counter_read_line"
			else
				fail "${p}_${tool}_fast_counter_read_line" "no 'Fast counter read (rdpmc): yes|no' line: '${line}'"
			fi
		fi
		;;
	papi_component_avail)
		# perf_event's Name: line in the "Active components:" section
		if awk '/^Active components:/ { a = 1; next }
			a && /^Name:[[:space:]]+perf_event[[:space:]]/ { f = 1 }
			END { exit f ? 0 : 1 }' "$out"; then
			pass "${p}_${tool}_perf_event_active"
		else
			fail "${p}_${tool}_perf_event_active" "perf_event not listed under 'Active components:': $(grep -A3 'perf_event ' "$out" | head -n 6 | tr '\n' ' ')"
		fi
		;;
	papi_native_avail)
		if grep -q 'perf::TASK-CLOCK[[:space:]]' "$out"; then
			pass "${p}_${tool}_lists_task_clock"
		else
			fail "${p}_${tool}_lists_task_clock" "perf::TASK-CLOCK not in the output ($(wc -l <"$out") lines)"
		fi
		;;
	esac
}

info "our libpapi: $ourlib -> $ourlib_real; core PMU: $have_pmu"

for tool in $tools; do
	if [ -x "/usr/bin/$tool" ]; then
		check_tool debian "/usr/bin/$tool" "$tool"
	else
		for c in $(case_names debian "$tool"); do
			skip "$c" "/usr/bin/$tool missing (Debian package papi-tools not installed)"
		done
	fi
done

for tool in $tools; do
	if [ -x "$ours/utils/$tool" ]; then
		check_tool ours "$ours/utils/$tool" "$tool"
	else
		fail "ours_${tool}_exists" "$ours/utils/$tool was not built"
	fi
done

[ "$nfail" -eq 0 ]
