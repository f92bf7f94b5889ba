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
#   --update-doc F   replace the part of F between the lines
#                    "<!-- peer-ctests: begin -->" and
#                    "<!-- peer-ctests: end -->" with the markdown table
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
doc=
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
	--update-doc) doc=$2; shift 2 ;;
	--keep) keep=$2; shift 2 ;;
	--list) list_only=1 suites=papi; shift ;;
	--results) results=$2 suites=papi; shift 2 ;;
	--machine) machine=$2; shift 2 ;;
	-h | --help) sed -n '4,53p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
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
selected() { # selected NAME: does NAME pass --only?
	[ -z "$only" ] || echo "$1" | grep -qE -- "$only"
}

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
TAB=$(printf '\t')

# ---------------------------------------------------------------------------
# Shared helpers.

# note_of OUTFILE: the line that says why a PAPI test did not pass (the
# "Line # N Error..." after FAILED, with the next line when the Fortran
# testlib prints the message there; else the last line that is neither a
# verdict, testlib's boilerplate nor stock's hw_instructions warning).
note_of() {
	sed 's/\x1b\[[0-9;]*m//g; s/^[[:space:]]*//; s/[[:space:]]*$//; s/[[:space:]][[:space:]]*/ /g' "$1" |
		grep -vE '^(PASSED|SKIPPED|FAILED!*)$|^$|^[^ ]+ (PASSED|SKIPPED|FAILED)$' |
		grep -vE "^(Some tests require special|or library versions|system without the particular)" |
		grep -v "^PAPI Error: Couldn't open hw_instructions in exclude_guest=0 test" |
		awk 'l && l ~ /^Line # [0-9]+$/ && !j { l = l ": " $0; j = 1 }
			/^Line #/ && !l { l = $0 }
			{ last = $0 }
			END { print (l ? l : last) }' |
		tr '\t|' '  ' | cut -c1-110
}

# verdict OUTFILE RC: of a PAPI test.
verdict() {
	local v
	v=$(sed 's/\x1b\[[0-9;]*m//g' "$1" |
		grep -oE 'PASSED|SKIPPED|FAILED' | tail -n 1)
	if [ "$2" -eq 124 ] || [ "$2" -eq 137 ]; then
		echo TIMEOUT
	elif [ "$2" -gt 128 ] && [ "$2" -le 192 ]; then
		echo CRASHED
	elif [ "$v" = PASSED ] && [ "$2" -ne 0 ]; then
		echo "FAILED($2)"
	elif [ -n "$v" ]; then
		echo "$v"
	elif [ "$2" -eq 0 ]; then
		echo "PASSED?"
	else
		echo "FAILED($2)"
	fi
}

# papi_errname RC: " = PAPI_ENOEVNT (-7)" when exit status RC is a PAPI
# error code passed to exit() (the utilities do exit(retval)).
papi_errname() {
	local e=$(($1 - 256))
	local -a n=(EINVAL ENOMEM ESYS ECMP ECLOST EBUG ENOEVNT ECNFLCT ENOTRUN
		EISRUN ENOEVST ENOTPRESET ENOCNTR EMISC EPERM ENOINIT ENOCMP ENOSUPP
		ENOIMPL EBUF EINVAL_DOM)
	if [ "$e" -lt 0 ] && [ "$((-e))" -le "${#n[@]}" ]; then
		echo " = PAPI_${n[$((-e - 1))]} ($e)"
	fi
}

# record RESFILE NAME VERDICT S0 S1 NOTE
record() {
	printf '%s\t%s\t%s\t%s\n' "$2" "$3" \
		"$(awk -v a="$4" -v b="$5" 'BEGIN { printf "%.1f", b - a }')" "$6" \
		>>"$1"
	printf '  %-55s %s\n' "$2" "$3" >&2
}

# run_papi_test RESFILE NAME OUTDIR ROOTDIR LD_LIBRARY_PATH PROGRAM [ARG...]
# Runs PROGRAM (relative to ROOTDIR) as run_tests.sh does.
run_papi_test() {
	local res=$1 name=$2 odir=$3 root=$4 ld=$5 prog=$6 out rc s0 s1 v n
	shift 6
	out=$odir/$(echo "$name" | tr '/ ' '__').out
	s0=$(date +%s.%N)
	if [ -n "$results" ]; then
		took_elsewhere "$odir" "$out"
		rc=$rc_elsewhere
		s1=$(awk -v a="$s0" -v b="$sec_elsewhere" 'BEGIN { printf "%.3f", a + b }')
	else
		(
			cd "$root" &&
				TESTS_QUIET=TESTS_QUIET LD_LIBRARY_PATH=$ld \
					PATH=./ctests:$PATH \
					timeout -k 5 "$timeout_s" "./$prog" TESTS_QUIET "$@" \
					</dev/null >"$out" 2>&1
		)
		rc=$?
		s1=$(date +%s.%N)
	fi
	v=$(verdict "$out" "$rc")
	n=
	case $v in
	PASSED) ;;
	PASSED\?) n="exit 0, no verdict printed" ;;
	*) n=$(note_of "$out") ;;
	esac
	record "$res" "$name" "$v" "$s0" "$s1" "$n"
}

# took_elsewhere ODIR OUT: with --results, copy the output of the test
# whose output file would be OUT from the tree's results directory (named
# as ODIR) and set rc_elsewhere and sec_elsewhere.  A test with no result
# there did not run (its machine stopped early): exit status 125.
took_elsewhere() {
	local f
	f=$results/$(basename "$1")/$(basename "$2" .out)
	rc_elsewhere=125
	sec_elsewhere=0
	if [ -f "$f.out" ] && [ -f "$f.rc" ]; then
		cp "$f.out" "$2"
		rc_elsewhere=$(cat "$f.rc")
		[ -f "$f.sec" ] && sec_elsewhere=$(cat "$f.sec")
	else
		echo "no result: the test did not run" >"$2"
	fi
	return 0
}

# ---------------------------------------------------------------------------
# Suite papi: PAPI's own tests in the tree.

# The list run_tests.sh builds, in its order, minus its exclusions.
list_tests() {
	(
		cd "$1" || exit 1
		{
			find validation_tests/* -prune -perm -u+x -type f ! -name "*.[c|h]"
			find ctests/* -prune -perm -u+x -type f ! -name "*.[c|h]"
			find ftests -perm -u+x -type f ! -name "*.[c|h|F]"
			find components/*/tests -perm -u+x -type f \
				! \( -name "*.[c|h]" -o -name "*.cu" -o -name "*.so" \)
		} 2>/dev/null | grep -vxF -f <(grep -v -e '^#' -e '^$' run_tests_exclude.txt)
	)
}

run_papi() { # run_papi NAME DIR
	local name=$1 dir=$2 t ld
	while read -r t; do
		[ -n "$t" ] || continue
		selected "$t" || continue
		ld=.:./libpfm-3.y/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		case $t in
		components/sde/*)
			ld=$ld:$dir/components/sde/sde_lib:$dir/components/sde/tests/lib ;;
		esac
		run_papi_test "$tmp/$name.tsv" "$t" "$tmp/$name" "$dir" "$ld" "$t"
		# High-level tests leave their output directory behind.
		case $t in *_hl*) rm -rf "$dir/papi_hl_output" ;; esac
	done < <(list_tests "$dir")
}

# ---------------------------------------------------------------------------
# Suite tools: Debian's papi-tools binaries, LD_LIBRARY_PATH at the tree.
#
# One case a line: the command line (also the row's name) @ what its
# output must contain to pass (grep -E; empty: exit 0 is enough) @ the
# output that means "this machine lacks the hardware event" (SKIPPED) @
# the note for that skip.  Arguments hold no spaces.

tool_cases() {
	cat <<'EOF'
papi_version@^PAPI Version: [0-9]@@
papi_avail@PAPI Preset Events@@
papi_avail -a@PAPI Preset Events@@
papi_avail -c@PAPI Preset Events@@
papi_avail -d@PAPI Preset Events@@
papi_avail -e PAPI_TOT_CYC@^Event name: +PAPI_TOT_CYC@@
papi_avail -e perf::TASK-CLOCK@PERF_COUNT_SW_TASK_CLOCK@@
papi_native_avail@^Total events reported: [1-9]@@
papi_native_avail -c@^Total events reported: [1-9]@@
papi_native_avail --noqual -i perf::@^Total events reported: [1-9]@@
papi_native_avail -e perf::TASK-CLOCK@PERF_COUNT_SW_TASK_CLOCK@@
papi_component_avail@^Active components:@@
papi_component_avail -d@^Active components:@@
papi_command_line perf::TASK-CLOCK perf::PAGE-FAULTS perf::CONTEXT-SWITCHES@^perf::CONTEXT-SWITCHES : @@
papi_command_line -u -x perf::TASK-CLOCK@^perf::TASK-CLOCK :[[:space:]]+0X[0-9A-F]+$@@
papi_command_line PAPI_TOT_CYC PAPI_TOT_INS@^PAPI_TOT_INS : @^Failed adding: PAPI_TOT_CYC@no PAPI_TOT_CYC preset here
papi_event_chooser NATIVE perf::TASK-CLOCK@PERF_COUNT_SW_PAGE_FAULTS@@
papi_event_chooser PRESET perf::TASK-CLOCK@^Total events reported: @@
papi_event_chooser PRESET PAPI_TOT_CYC@^Total events reported: @^Event PAPI_TOT_CYC can't be (found|counted with others -7)@no PAPI_TOT_CYC preset here
papi_decode@^PAPI_TOT_CYC,@@
papi_decode -a@^name,derived,postfix@@
papi_error_codes@^Error code +-1: @@
papi_mem_info@Cache Information@@
papi_hardware_avail@^Device Summary@@
papi_clockres@^PAPI_get_virt_usec@@
papi_cost -t 100000@Performing start/stop test@^PAPI_query_event$@needs PAPI_TOT_CYC and PAPI_TOT_INS (papi_cost.c:255-262), absent here
papi_multiplex_cost -t 1000@@@
papi_xml_event_info@</eventinfo>@@
papi_xml_event_info -p@</eventinfo>@@
papi_xml_event_info -n@</eventinfo>@@
papi_xml_event_info -c 0@</eventinfo>@@
papi_hl_output_writer@"Region count": 4@@
EOF
}

# papi_hl_output_writer post-processes what PAPI's high-level API wrote:
# run the tree's ctests/serial_hl (PAPI_EVENTS set to software events, as
# the default PAPI_TOT_CYC may not exist) and summarize its output.
hl_writer() { # hl_writer DIR (the tree); in the current directory
	rm -rf hl && mkdir hl || return 1
	echo "# ctests/serial_hl, PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS"
	PAPI_EVENTS=perf::TASK-CLOCK,perf::PAGE-FAULTS PAPI_OUTPUT_DIRECTORY=$PWD/hl \
		TESTS_QUIET=TESTS_QUIET "$1/ctests/serial_hl" TESTS_QUIET || {
		echo "serial_hl failed"
		return 1
	}
	echo "# papi_hl_output_writer --source hl/papi_hl_output --type summary"
	papi_hl_output_writer --source hl/papi_hl_output --type summary
}

run_tools() { # run_tools NAME DIR
	local name=$1 dir=$2 wd=$tmp/$1-tools cmd expect skipre skipnote
	local label out rc s0 s1 v n ld e
	mkdir -p "$wd"
	while IFS='@' read -r cmd expect skipre skipnote; do
		label=papi-tools/$cmd
		selected "$label" || continue
		out=$tmp/$name/$(echo "$label" | tr '/ ' '__').out
		s0=$(date +%s.%N)
		(
			cd "$wd" || exit 2
			ld=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
			if [ "$cmd" = papi_hl_output_writer ]; then
				export -f hl_writer
				# shellcheck disable=SC2016
				LD_LIBRARY_PATH=$ld timeout -k 5 "$timeout_s" \
					bash -c 'hl_writer "$1"' - "$dir"
			else
				# shellcheck disable=SC2086 # the words of the command
				LD_LIBRARY_PATH=$ld timeout -k 5 "$timeout_s" /usr/bin/$cmd
			fi
		) </dev/null >"$out" 2>"$out.err"
		rc=$?
		s1=$(date +%s.%N)
		n=
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			v=TIMEOUT n="no exit within ${timeout_s} s"
		elif [ "$rc" -gt 128 ] && [ "$rc" -le 192 ]; then
			v=CRASHED n="killed by signal $((rc - 128))"
		elif [ "$rc" -eq 77 ]; then
			v=SKIPPED n="exit 77"
		elif [ -n "$skipre" ] && cat "$out" "$out.err" | grep -qE -- "$skipre"; then
			v=SKIPPED n=$skipnote
		elif [ "$rc" -eq 0 ] && { [ -z "$expect" ] ||
			cat "$out" "$out.err" | grep -qE -- "$expect"; }; then
			v=PASSED
		elif [ "$rc" -eq 0 ]; then
			v="FAILED(0)" n="exit 0 without /$expect/"
		else
			v="FAILED($rc)"
			# The last line of stderr (else of stdout), its end if long.
			[ -s "$out.err" ] && e=$out.err || e=$out
			n="exit $rc$(papi_errname "$rc"): $(sed 's/[[:space:]]*$//' "$e" |
				grep -v '^$' | tail -n 1 | tr '\t|' '  ' |
				awk '{ print (length > 90 ? "..." substr($0, length - 86) : $0) }')"
		fi
		record "$tmp/$name.tsv" "$label" "$v" "$s0" "$s1" "$n"
	done < <(tool_cases)
}

# ---------------------------------------------------------------------------
# Suite examples: Debian's papi-examples sources.
#
# Debian ships them with its Makefiles but not the test library they name
# (/usr/share/papi/testlib) nor the helper variables of PAPI's wrapper
# Makefiles, so the script builds testlib itself and runs Debian's own
# make recipes with those paths supplied, Debian's CFLAGS and LDFLAGS
# unchanged, linking the tree's libpapi.so (NEEDED: the tree's soname).
# The selection: one or a few programs per area of the API (counting,
# fork and exec, threads, overflow, profiling, multiplexing, attach,
# inherit, validation, the perf_event and uncore component tests).
examples_ctests="zero first all_native_events eventname hwinfo version case1
	realtime virttime fork exec forkexec locks_pthreads thrspecific pthrtough
	overflow_pthreads overflow profile multiplex1 attach2 inherit"
examples_validation="flops_validation cycles_validation papi_tot_ins"
examples_components="perf_event:nmi_watchdog perf_event:perf_event_user_kernel
	perf_event:perf_event_system_wide perf_event_uncore:perf_event_uncore
	sysdetect:query_device_simple"

examples_list() { # the row names, in build order
	local p
	for p in $examples_validation; do echo "validation_tests/$p"; done
	for p in $examples_ctests; do echo "ctests/$p"; done
	for p in $examples_components; do echo "components/${p%%:*}/tests/${p#*:}"; done
}

build_examples() { # build_examples NAME DIR: into $tmp/examples-NAME
	local b=$tmp/examples-$1 dir=$2 log=$tmp/examples-$1.log cf vcf ldf c p
	local progs
	cp -r "$examples_src" "$b" || return 1
	cf=$(sed -n 's/^CFLAGS[[:space:]]*=[[:space:]]*//p' "$b/ctests/Makefile")
	vcf=$(sed -n 's/^CFLAGS[[:space:]]*=[[:space:]]*//p' "$b/validation_tests/Makefile")
	ldf=$(sed -n 's/^LDFLAGS[[:space:]]*=[[:space:]]*//p' "$b/ctests/Makefile")
	{
		echo "== testlib (as PAPI's testlib/Makefile builds it)"
		# shellcheck disable=SC2086 # Debian's flags, word-split
		(cd "$b/testlib" &&
			cc -I. -I"$dir" $cf -c test_utils.c &&
			cc -I. -I"$dir" $cf -O0 -c do_loops.c &&
			cc -I. -I"$dir" $cf -c clockcore.c &&
			ar rc libtestlib.a test_utils.o)
		echo "== validation_tests"
		# shellcheck disable=SC2086
		make -k -C "$b/validation_tests" "INCLUDE=-I. -I$dir -I../testlib" \
			"CFLAGS=$vcf" "LDFLAGS=$ldf" TESTLIB=../testlib/libtestlib.a \
			"PAPILIB=$dir/libpapi.so" flops_testcode.o instructions_testcode.o \
			busy_work.o display_error.o $examples_validation
		echo "== ctests"
		# shellcheck disable=SC2086
		make -k -C "$b/ctests" \
			"INCLUDE=-I. -I$dir -I../testlib -I../validation_tests" \
			"CFLAGS=$cf" "LDFLAGS=$ldf" testlibdir=../testlib \
			validationlibdir=../validation_tests TESTLIB=../testlib/libtestlib.a \
			DOLOOPS=../testlib/do_loops.o CLOCKCORE=../testlib/clockcore.o \
			TESTFLOPS=../validation_tests/flops_testcode.o \
			TESTINS=../validation_tests/instructions_testcode.o \
			TESTCYCLES=../validation_tests/busy_work.o \
			DISPLAYERROR=../validation_tests/display_error.o \
			"PAPILIB=$dir/libpapi.so" attach_target $examples_ctests
		cp "$b/components/Makefile_comp_tests" "$b/components/Makefile_comp_tests.target"
		for c in $examples_components; do
			p=${c#*:} c=${c%%:*}
			echo "== components/$c/tests/$p"
			make -k -C "$b/components/$c/tests" \
				"INCLUDE=-I../../../testlib -I$dir -I." \
				"CFLAGS=$cf" "LDFLAGS=$ldf" \
				UTILOBJS=../../../testlib/libtestlib.a \
				DOLOOPS=../../../testlib/do_loops.o \
				"PAPILIB=$dir/libpapi.so" "$p"
		done
	} >"$log" 2>&1
	progs=0
	while read -r p; do [ -x "$b/$p" ] && progs=$((progs + 1)); done < <(examples_list)
	echo "  built $progs of $(examples_list | wc -l) papi-examples programs" \
		"(log: $log)" >&2
}

run_examples() { # run_examples NAME DIR
	local name=$1 dir=$2 b=$tmp/examples-$1 p s0
	local any=
	while read -r p; do selected "papi-examples/$p" && any=1; done < <(examples_list)
	[ -n "$any" ] || return 0
	build_examples "$name" "$dir"
	while read -r p; do
		selected "papi-examples/$p" || continue
		if [ ! -x "$b/$p" ]; then
			s0=$(date +%s.%N)
			record "$tmp/$name.tsv" "papi-examples/$p" "FAILED(build)" "$s0" "$s0" \
				"did not build (see --keep DIR/$name/examples-build.log)"
			continue
		fi
		run_papi_test "$tmp/$name.tsv" "papi-examples/$p" "$tmp/$name" "$b" \
			"$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$p"
	done < <(examples_list)
}

# ---------------------------------------------------------------------------

run_tree() { # run_tree NAME DIR
	local name=$1 dir=$2
	: >"$tmp/$name.tsv"
	mkdir -p "$tmp/$name"
	if want papi; then run_papi "$name" "$dir"; fi
	if want tools; then run_tools "$name" "$dir"; fi
	if want examples; then run_examples "$name" "$dir"; fi
	if [ -n "$keep" ]; then
		mkdir -p "$keep/$name"
		cp "$tmp/$name"/*.out "$tmp/$name"/*.err "$keep/$name/" 2>/dev/null
		[ -f "$tmp/examples-$name.log" ] &&
			cp "$tmp/examples-$name.log" "$keep/$name/examples-build.log"
	fi
}

if [ -n "$list_only" ]; then
	list_tests "$ours"
	exit 0
fi

t0=$(date +%s)
echo "== ours:  $ours" >&2
run_tree ours "$ours"
echo "== stock: $stock" >&2
run_tree stock "$stock"
elapsed=$(($(date +%s) - t0))
# With --results the time is the tests' own, as measured where they ran.
if [ -n "$results" ]; then
	elapsed=$(cat "$tmp/ours.tsv" "$tmp/stock.tsv" |
		awk -F'\t' '{ s += $3 } END { printf "%d", s + 0.5 }')
fi

# Join on the test name (a test missing in one tree shows "-"): name,
# ours, stock, ours seconds, stock seconds, note.  The note is the reason
# either tree did not pass, once if both say the same.
awk -F'\t' -v OFS='\t' '
	FNR == 1 { f++ }
	f == 1 { o[$1] = $2; on[$1] = $4; ot[$1] = $3; k[$1] = 1 }
	f == 2 { s[$1] = $2; sn[$1] = $4; st[$1] = $3; k[$1] = 1 }
	END {
		for (t in k) {
			if (!(t in o)) { o[t] = "-"; ot[t] = "-" }
			if (!(t in s)) { s[t] = "-"; st[t] = "-" }
			if (on[t] == sn[t] || sn[t] == "") n = on[t]
			else if (on[t] == "") n = "stock: " sn[t]
			else n = "ours: " on[t] "; stock: " sn[t]
			print t, o[t], s[t], ot[t], st[t], n
		}
	}' "$tmp/ours.tsv" "$tmp/stock.tsv" | sort -t "$TAB" -k1,1 >"$tmp/joined.tsv"

failed_word() {
	case $1 in FAILED* | CRASHED | TIMEOUT) return 0 ;; esac
	return 1
}

suite_of() { # the suite column of a test name
	case $1 in
	papi-tools/*) echo papi-tools ;;
	papi-examples/*) echo papi-examples ;;
	components/*) echo components ;;
	*) echo "${1%%/*}" ;;
	esac
}

# counts: one line per suite and a total: suite, then passed / skipped /
# failed for ours and for stock.
counts() {
	while IFS="$TAB" read -r t o s _; do
		printf '%s\t%s\t%s\n' "$(suite_of "$t")" "$o" "$s"
	done <"$tmp/joined.tsv" | awk -F'\t' -v OFS='\t' '
		function cls(v) {
			if (v ~ /^PASSED/) return 1
			if (v ~ /^SKIPPED/) return 2
			if (v ~ /^(FAILED|CRASHED|TIMEOUT)/) return 3
			return 0
		}
		{
			if (!($1 in seen)) { seen[$1] = 1; order[++n] = $1 }
			c[$1, "o", cls($2)]++; c[$1, "s", cls($3)]++
			c["total", "o", cls($2)]++; c["total", "s", cls($3)]++
		}
		END {
			order[++n] = "total"
			for (i = 1; i <= n; i++) {
				u = order[i]
				print u, c[u, "o", 1] + 0, c[u, "o", 2] + 0, c[u, "o", 3] + 0, \
					c[u, "s", 1] + 0, c[u, "s", 2] + 0, c[u, "s", 3] + 0
			}
		}'
}

ndiff=0
nregress=0
: >"$tmp/diffs"
while IFS="$TAB" read -r t o s _ _ n; do
	if [ "$o" != "$s" ]; then
		ndiff=$((ndiff + 1))
		printf '%s\t%s\t%s\t%s\n' "$t" "$o" "$s" "$n" >>"$tmp/diffs"
		if failed_word "$o" && [ "${s%\?}" = PASSED ]; then
			nregress=$((nregress + 1))
		fi
	fi
done <"$tmp/joined.tsv"
counts >"$tmp/counts.tsv"

# Plain table on stdout.
printf '%-62s %-12s %-12s %s\n' test ours stock note
printf '%-62s %-12s %-12s %s\n' ---- ---- ----- ----
while IFS="$TAB" read -r t o s _ _ n; do
	mark=
	[ "$o" != "$s" ] && mark='<-- differs  '
	printf '%-62s %-12s %-12s %s%s\n' "$t" "$o" "$s" "$mark" "$n"
done <"$tmp/joined.tsv"
echo
printf '%-17s %-30s %s\n' suite "ours: passed/skipped/failed" "stock: passed/skipped/failed"
while IFS="$TAB" read -r u a b c d e f; do
	printf '%-17s %-30s %s\n' "$u" "$a / $b / $c" "$d / $e / $f"
done <"$tmp/counts.tsv"
echo "$ndiff tests differ; ours fails $nregress that stock passes"
echo "run time: $((elapsed / 60)) min $((elapsed % 60)) s"

papi_version() { # from the tree's papi.h: 7.0.0.0
	sed -n 's/^#define PAPI_VERSION[[:space:]]*PAPI_VERSION_NUMBER(\([0-9]*\),\([0-9]*\),\([0-9]*\),\([0-9]*\)).*/\1.\2.\3.\4/p' \
		"$1/papi.h"
}

markdown() {
	local pkgs virt took
	echo "| test | ours | stock | note |"
	echo "| --- | --- | --- | --- |"
	while IFS="$TAB" read -r t o s _ _ n; do
		if [ "$o" != "$s" ]; then
			echo "| **$t** | **$o** | **$s** | $n |"
		else
			echo "| $t | $o | $s | $n |"
		fi
	done <"$tmp/joined.tsv"
	echo
	echo "| suite | ours: passed / skipped / failed | stock: passed / skipped / failed |"
	echo "| --- | ---: | ---: |"
	while IFS="$TAB" read -r u a b c d e f; do
		[ "$u" = total ] && u="**total**"
		echo "| $u | $a / $b / $c | $d / $e / $f |"
	done <"$tmp/counts.tsv"
	echo
	echo "$ndiff tests differ (in bold); ours fails $nregress that stock passes."
	if [ -s "$tmp/diffs" ]; then
		echo "The differences, with what each tree printed (explained below the table):"
		echo
		while IFS="$TAB" read -r t o s n; do
			echo "- \`$t\`: ours $o, stock $s${n:+ ($n)}"
		done <"$tmp/diffs"
	fi
	echo
	pkgs=$(dpkg-query -W -f='${Package} ${Version}, ' papi-tools papi-examples \
		libpapi7.0 2>/dev/null | sed 's/, $//')
	[ -z "$pkgs" ] || pkgs="; Debian's $pkgs"
	virt=$(systemd-detect-virt --vm 2>/dev/null || true)
	took="in $((elapsed / 60)) min $((elapsed % 60)) s"
	# With --results: the tests' own clock, where they ran.
	[ -z "$results" ] || { pkgs=; took="$took of the tests' own time"; }
	echo "Run on $(date -u +%Y-%m-%d) $took" \
		"(suites: $suites; per-test timeout ${timeout_s} s)." \
		"PAPI $(papi_version "$ours") in both trees$pkgs." \
		"Ours built from commit" \
		"$(git -C "$ours" rev-parse --short HEAD 2>/dev/null || echo unknown)." \
		"Machine: ${machine:-$(this_machine)}"
}

this_machine() {
	echo "$(sed -n 's/^model name[[:space:]]*: //p' /proc/cpuinfo | head -n 1)," \
		"$(grep -c ^processor /proc/cpuinfo) cpus${virt:+, $virt guest};" \
		"kernel $(uname -r);" \
		"core PMU: $([ -e /sys/bus/event_source/devices/cpu ] && echo yes || echo none);" \
		"perf_event_paranoid $(cat /proc/sys/kernel/perf_event_paranoid)."
}

if [ -n "$md" ]; then
	markdown >"$md"
fi
if [ -n "$tsv" ]; then
	cut -f1,2,3,6 "$tmp/joined.tsv" >"$tsv"
fi
if [ -n "$doc" ]; then
	if ! grep -q '^<!-- peer-ctests: begin -->$' "$doc" ||
		! grep -q '^<!-- peer-ctests: end -->$' "$doc"; then
		echo "peer-ctests.sh: $doc lacks the peer-ctests markers" >&2
		exit 2
	fi
	markdown >"$tmp/table.md"
	awk -v table="$tmp/table.md" '
		/^<!-- peer-ctests: begin -->$/ {
			print; while ((getline l < table) > 0) print l; skip = 1; next
		}
		/^<!-- peer-ctests: end -->$/ { skip = 0 }
		!skip' "$doc" >"$tmp/doc.new" && cat "$tmp/doc.new" >"$doc"
fi

[ "$nregress" -eq 0 ]
