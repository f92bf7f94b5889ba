#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_debian_tools.sh: our libpapi is a drop-in for binaries built against
# another PAPI of the same version.  The soname is PAPI's (libpapi.so.7.0
# from PAPI 7.0, libpapi.so.7.2 from 7.2): ours must carry the same one as
# the stock library built from the same source ($PAPI_STOCK_BUILDDIR, when
# set).  Runs Debian's papi-tools (/usr/bin/papi_avail,
# papi_component_avail, papi_native_avail) with
# LD_LIBRARY_PATH=$PAPI_OURS_BUILDDIR, then the same utilities from our own
# build ($PAPI_OURS_BUILDDIR/utils) and those of the stock build
# ($PAPI_STOCK_BUILDDIR/utils: programs linked against the stock libpapi of
# the same source, which is what a drop-in must serve whatever the
# version), and checks for each:
#   - it exits 0;
#   - the dynamic loader really loaded OUR libpapi (LD_DEBUG=libs names
#     our library, found by its soname, in its "calling init" line);
#   - papi_component_avail lists perf_event under "Active components";
#   - papi_avail prints "Fast counter read (rdpmc): no" on a machine
#     without a core PMU (with one: the line is there, value reported);
#   - papi_native_avail lists perf::TASK-CLOCK.
# Debian's tools missing (package papi-tools), or built against another
# PAPI version than this build's source (they need another soname, e.g.
# libpapi.so.7.0 against a PAPI 7.2 tree) -> those cases SKIP.
#
# Report protocol: ctests/lib/report.h (PASS:/FAIL:/SKIP: lines, "# " info).
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

# soname FILE: the DT_SONAME of a shared library, empty if none.
soname() {
	readelf -d "$1" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'
}
# needed_libpapi FILE: the libpapi soname a binary asks for, if any.
needed_libpapi() {
	readelf -d "$1" 2>/dev/null |
		sed -n 's/.*(NEEDED).*\[\(libpapi\.so[^]]*\)\]/\1/p' | sed -n 1p
}

sn=$(soname "$ours/libpapi.so")
if [ -z "$sn" ] || [ ! -e "$ours/$sn" ]; then
	fail setup "no soname read from $ours/libpapi.so, or no $ours/${sn:-libpapi.so.*} (readelf: $(command -v readelf || echo missing))"
	exit 1
fi
ourlib=$ours/$sn
ourlib_real=$(readlink -f "$ourlib")
papi_version=$(sed -n 's/^#define[[:space:]]*PAPI_VERSION[[:space:]]*PAPI_VERSION_NUMBER(\([0-9]*\), *\([0-9]*\), *\([0-9]*\), *\([0-9]*\)).*/\1.\2.\3.\4/p' "$ours/papi.h")

# The same soname as the stock library of the same source: a program
# linked against that PAPI loads ours.
stock=${PAPI_STOCK_BUILDDIR:-}
if [ -n "$stock" ] && [ -e "$stock/libpapi.so" ]; then
	ssn=$(soname "$stock/libpapi.so")
	if [ "$ssn" = "$sn" ]; then
		pass "soname_as_stock"
	else
		fail "soname_as_stock" "ours is $sn, stock PAPI from the same source is ${ssn:-without a soname}"
	fi
else
	skip "soname_as_stock" "no stock PAPI build to compare with (PAPI_STOCK_BUILDDIR: ${stock:-unset})"
fi
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
	if readelf -d "$bin" 2>/dev/null | grep 'NEEDED.*libpapi' >/dev/null; then
		LD_DEBUG=libs LD_DEBUG_OUTPUT=$dbg timeout 120 "$bin" >/dev/null 2>&1
		loaded=$(cat "$dbg".* 2>/dev/null | sed -n 's/.*calling init: \(.*libpapi\.so[^ ]*\).*/\1/p' | sed -n 1p)
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
			if grep -Eq ':[[:space:]]*no[[:space:]]*$' <<<"$line"; then
				pass "${p}_${tool}_fast_counter_read_line"
			else
				fail "${p}_${tool}_fast_counter_read_line" "no core PMU, expected 'Fast counter read (rdpmc): no', got '${line:-no such line}'"
			fi
		else
			info "$p $tool with a core PMU: ${line:-no such line}"
			if grep -Eq ':[[:space:]]*(yes|no)[[:space:]]*$' <<<"$line"; then
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
			fail "${p}_${tool}_perf_event_active" "perf_event not listed under 'Active components:': $(grep -A3 'perf_event ' "$out" | sed -n 1,6p | tr '\n' ' ')"
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

info "our libpapi: $ourlib -> $ourlib_real (PAPI ${papi_version:-?}); core PMU: $have_pmu"

for tool in $tools; do
	why=
	if [ ! -x "/usr/bin/$tool" ]; then
		why="/usr/bin/$tool missing (Debian package papi-tools not installed)"
	else
		need=$(needed_libpapi "/usr/bin/$tool")
		if [ -n "$need" ] && [ "$need" != "$sn" ]; then
			why="/usr/bin/$tool needs $need; this build (PAPI ${papi_version:-?} source) makes $sn, not a drop-in for another PAPI version"
		fi
	fi
	if [ -z "$why" ]; then
		check_tool debian "/usr/bin/$tool" "$tool"
	else
		for c in $(case_names debian "$tool"); do
			skip "$c" "$why"
		done
	fi
done

# The stock build's utilities, linked against its libpapi (their RUNPATH
# names the stock tree; LD_LIBRARY_PATH comes first).
for tool in $tools; do
	if [ -z "$stock" ] || [ ! -d "$stock/utils" ]; then
		for c in $(case_names stock "$tool"); do
			skip "$c" "no stock PAPI build (PAPI_STOCK_BUILDDIR: ${stock:-unset})"
		done
	elif [ -x "$stock/utils/$tool" ]; then
		check_tool stock "$stock/utils/$tool" "$tool"
	else
		fail "stock_${tool}_exists" "$stock/utils/$tool was not built"
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
