#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# peer-ctests.sh: run the peer test suites against our PAPI and the stock
# one, one tree after the other, and print one side-by-side table:
# test | ours | stock | note, with counts per suite.  The suites:
#   papi      PAPI's own tests, the list PAPI's run_tests.sh builds
#             (validation_tests, ctests, ftests, components/*/tests, minus
#             run_tests_exclude.txt), each run in its tree
#   tools     Debian's prebuilt papi-tools (/usr/bin/papi_*), each run with
#             LD_LIBRARY_PATH at the tree, so it loads the tree's libpapi
#             (only where the tree's soname is the one they need: a PAPI
#             7.2 tree makes libpapi.so.7.2, Debian 12's tools need .7.0)
#   examples  a selection of the test programs Debian's papi-examples ships
#             as sources, compiled with Debian's flags against the tree's
#             papi.h and libpapi.so and run against that tree
#
# Usage: scripts/peer-ctests.sh [options]
#   --ours DIR       our PAPI src tree   (default: <top>/papi/ours/src)
#   --stock DIR      stock PAPI src tree (default: <top>/papi/stock/src)
#   --suites LIST    comma-separated, of papi, tools, examples (default all)
#   --timeout S      seconds per test (default 60; TIMEOUT counts as FAILED)
#   --only REGEX     run only the tests whose name matches REGEX (grep -E)
#   --md FILE        also write the table as markdown to FILE
#   --tsv FILE       also write it as tab-separated test, ours, stock, note
#   --keep DIR       keep every test's output in DIR/{ours,stock}/
#   --list           print the papi suite's tests of the --ours tree, one a
#                    line, and exit
#   --results DIR    do not run the papi suite's tests: take what they did
#                    elsewhere (ctests/guest/test_arm64.sh runs them in an
#                    emulated arm64 machine) from DIR/{ours,stock}/F.out,
#                    F.rc (exit status) and F.sec (seconds), F being the
#                    test's name with / as _; implies --suites papi
#   --machine TEXT   describe the machine the tests ran on with TEXT in the
#                    markdown, instead of this one
#
# PAPI's tests run from the root of their tree, as run_tests.sh runs them
# (TESTS_QUIET set, LD_LIBRARY_PATH starting with ".", PATH starting with
# ./ctests for attach_target, the sde libraries for sde tests), under
# `timeout`; the examples likewise from the root of their build.  A PAPI
# test's verdict is the last of PASSED / SKIPPED / FAILED that it printed
# (PAPI's testlib prints exactly one), PASSED counting only with exit 0;
# without one, exit status 0 is PASSED? (no verdict printed) and anything
# else FAILED(rc).  A tool PASSED when it exits 0 and prints what it is
# for (its case below says what), SKIPPED on exit 77 or on its case's
# "no such hardware event here" message, else FAILED(rc).  A program
# killed by a signal is CRASHED, one that ran out of time TIMEOUT.
#
# Exit status: 1 when ours fails (FAILED, FAILED(rc), CRASHED, TIMEOUT) a
# test that stock passes, 2 on a usage or setup error, else 0.
#
# The suites' runners are scripts/peer/run-*.sh (their protocol:
# scripts/peer/common.sh), the report scripts/peer/report.sh.
# The two trees are never run at the same time: on a 2-cpu machine the
# timing-sensitive tests would fail for no reason of their own.
set -u
export LC_ALL=C

top=$(cd "$(dirname "$0")/.." && pwd)
ours=$top/papi/ours/src
stock=$top/papi/stock/src
suites=papi,tools,examples
timeout_s=60
only=
md=
tsv=
keep=
list_only=
results=
machine=
examples_src=/usr/share/doc/papi-examples/examples

while [ $# -gt 0 ]; do
	case $1 in
	--ours) ours=$2; shift 2 ;;
	--stock) stock=$2; shift 2 ;;
	--suites) suites=$2; shift 2 ;;
	--timeout) timeout_s=$2; shift 2 ;;
	--only) only=$2; shift 2 ;;
	--md) md=$2; shift 2 ;;
	--tsv) tsv=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--list) list_only=1 suites=papi; shift ;;
	--results) results=$2 suites=papi; shift 2 ;;
	--machine) machine=$2; shift 2 ;;
	-h | --help) sed -n '4,56p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
	*) echo "peer-ctests.sh: unknown option $1" >&2; exit 2 ;;
	esac
done

want() { # want SUITE: is SUITE in --suites?
	case ",$suites," in *,"$1",*) return 0 ;; esac
	return 1
}
for s in ${suites//,/ }; do
	case $s in papi | tools | examples) ;; *)
		echo "peer-ctests.sh: unknown suite $s (papi, tools, examples)" >&2
		exit 2 ;;
	esac
done

for t in "$ours" "$stock"; do
	if [ ! -x "$t/ctests/zero" ] || [ ! -f "$t/run_tests_exclude.txt" ]; then
		echo "peer-ctests.sh: $t has no built PAPI tests (run make first)" >&2
		exit 2
	fi
	if [ ! -e "$t/libpapi.so" ] || [ ! -f "$t/papi.h" ]; then
		echo "peer-ctests.sh: $t has no libpapi.so or papi.h" >&2
		exit 2
	fi
done
# soname FILE: the DT_SONAME of a shared library (libpapi.so.7.0 from
# PAPI 7.0, libpapi.so.7.2 from 7.2), empty if none.
soname() {
	readelf -d "$1" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p'
}
sn=$(soname "$ours/libpapi.so")
if [ -z "$sn" ] || [ "$sn" != "$(soname "$stock/libpapi.so")" ]; then
	echo "peer-ctests.sh: the trees' sonames differ or cannot be read" \
		"(ours '${sn}', stock '$(soname "$stock/libpapi.so")'; readelf is in binutils)" >&2
	exit 2
fi
command -v timeout >/dev/null 2>&1 || {
	echo "peer-ctests.sh: needs timeout(1)" >&2
	exit 2
}
# Debian's packages may be missing (not a Debian machine): say so, run the rest.
if want tools && ! [ -x /usr/bin/papi_avail ]; then
	echo "peer-ctests.sh: no /usr/bin/papi_avail (papi-tools): tools suite not run" >&2
	suites=${suites//tools/}
fi
if want examples && ! [ -f "$examples_src/ctests/zero.c" ]; then
	echo "peer-ctests.sh: no $examples_src (papi-examples): examples suite not run" >&2
	suites=${suites//examples/}
fi
# Debian's tools were linked against Debian's PAPI: they can only load a
# tree of the same soname.
if want tools; then
	need=$(readelf -d /usr/bin/papi_avail 2>/dev/null |
		sed -n 's/.*(NEEDED).*\[\(libpapi\.so[^]]*\)\]/\1/p')
	if [ "$need" != "$sn" ]; then
		echo "peer-ctests.sh: Debian's tools need ${need:-no libpapi}, the trees make $sn (another PAPI version): tools suite not run" >&2
		suites=${suites//tools/}
	fi
fi
# A prebuilt binary must load the tree's libpapi, not the system's.
if want tools; then
	for t in "$ours" "$stock"; do
		got=$(LD_LIBRARY_PATH=$t ldd /usr/bin/papi_avail |
			awk -v sn="$sn" '$1 == sn { print $3 }')
		if [ "$(readlink -f "$got")" != "$(readlink -f "$t/$sn")" ]; then
			echo "peer-ctests.sh: with LD_LIBRARY_PATH=$t, papi_avail loads" \
				"${got:-no $sn}" >&2
			exit 2
		fi
	done
fi

tmp=$(mktemp -d "${TMPDIR:-/tmp}/peer-ctests.XXXXXX") || exit 2
trap 'rm -rf "$tmp"' EXIT
peer=$top/scripts/peer
export PEER_TMP=$tmp PEER_TIMEOUT=$timeout_s PEER_ONLY=$only \
	PEER_RESULTS=$results PEER_EXAMPLES_SRC=$examples_src

run_tree() { # run_tree NAME DIR
	local name=$1 dir=$2
	: >"$tmp/$name.tsv"
	mkdir -p "$tmp/$name"
	if want papi; then bash "$peer/run-papi-ctests.sh" "$name" "$dir"; fi
	if want tools; then bash "$peer/run-debian-tools.sh" "$name" "$dir"; fi
	if want examples; then bash "$peer/run-debian-examples.sh" "$name" "$dir"; fi
	if [ -n "$keep" ]; then
		mkdir -p "$keep/$name"
		cp "$tmp/$name"/*.out "$tmp/$name"/*.err "$keep/$name/" 2>/dev/null
		[ -f "$tmp/examples-$name.log" ] &&
			cp "$tmp/examples-$name.log" "$keep/$name/examples-build.log"
	fi
}

if [ -n "$list_only" ]; then
	bash "$peer/run-papi-ctests.sh" --list "$ours"
	exit 0
fi

t0=$(date +%s)
echo "== ours:  $ours" >&2
run_tree ours "$ours"
echo "== stock: $stock" >&2
run_tree stock "$stock"
PEER_OURS=$ours PEER_SUITES=$suites PEER_MACHINE=$machine \
	PEER_ELAPSED=$(($(date +%s) - t0)) \
	bash "$peer/report.sh" ${md:+--md "$md"} ${tsv:+--tsv "$tsv"}
