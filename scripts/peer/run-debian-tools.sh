#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-debian-tools.sh NAME DIR: the suite tools of scripts/peer-ctests.sh,
# Debian's prebuilt papi-tools (/usr/bin/papi_*), each run with
# LD_LIBRARY_PATH at the tree DIR, so it loads the tree's libpapi
# (common.sh: the protocol).  A tool PASSED when it exits 0 and prints
# what it is for (its case below says what), SKIPPED on exit 77 or on its
# case's "no such hardware event here" message, else FAILED(rc); killed by
# a signal CRASHED, out of time TIMEOUT.
# shellcheck source=scripts/peer/common.sh
. "$(dirname "$0")/common.sh"

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
	local name=$1 dir=$2 wd=$PEER_TMP/$1-tools cmd expect skipre skipnote
	local label out rc s0 s1 v n ld e
	mkdir -p "$wd"
	while IFS='@' read -r cmd expect skipre skipnote; do
		label=papi-tools/$cmd
		selected "$label" || continue
		out=$PEER_TMP/$name/$(echo "$label" | tr '/ ' '__').out
		s0=$(date +%s.%N)
		(
			cd "$wd" || exit 2
			ld=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
			if [ "$cmd" = papi_hl_output_writer ]; then
				export -f hl_writer
				# shellcheck disable=SC2016
				LD_LIBRARY_PATH=$ld timeout -k 5 "$PEER_TIMEOUT" \
					bash -c 'hl_writer "$1"' - "$dir"
			else
				# shellcheck disable=SC2086 # the words of the command
				LD_LIBRARY_PATH=$ld timeout -k 5 "$PEER_TIMEOUT" /usr/bin/$cmd
			fi
		) </dev/null >"$out" 2>"$out.err"
		rc=$?
		s1=$(date +%s.%N)
		n=
		if [ "$rc" -eq 124 ] || [ "$rc" -eq 137 ]; then
			v=TIMEOUT n="no exit within ${PEER_TIMEOUT} s"
		elif [ "$rc" -gt 128 ] && [ "$rc" -le 192 ]; then
			v=CRASHED n="killed by signal $((rc - 128))"
		elif [ "$rc" -eq 77 ]; then
			v=SKIPPED n="exit 77"
		elif [ -n "$skipre" ] && grep -sqE -- "$skipre" "$out" "$out.err"; then
			v=SKIPPED n=$skipnote
		elif [ "$rc" -eq 0 ] && { [ -z "$expect" ] ||
			grep -sqE -- "$expect" "$out" "$out.err"; }; then
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
		record "$PEER_TMP/$name.tsv" "$label" "$v" "$s0" "$s1" "$n"
	done < <(tool_cases)
}

run_tools "$1" "$2"
