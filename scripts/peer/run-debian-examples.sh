#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-debian-examples.sh NAME DIR: the suite examples of
# scripts/peer-ctests.sh, a selection of the test programs Debian's
# papi-examples ships as sources (PEER_EXAMPLES_SRC), compiled with
# Debian's flags against the tree DIR's papi.h and libpapi.so and run
# against that tree (common.sh: the protocol).
# shellcheck source=scripts/peer/common.sh
. "$(dirname "$0")/common.sh"
examples_src=${PEER_EXAMPLES_SRC:-/usr/share/doc/papi-examples/examples}

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

build_examples() { # build_examples NAME DIR: into $PEER_TMP/examples-NAME
	local b=$PEER_TMP/examples-$1 dir=$2 log=$PEER_TMP/examples-$1.log cf vcf ldf c p
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
	local name=$1 dir=$2 b=$PEER_TMP/examples-$1 p s0
	local any=
	while read -r p; do selected "papi-examples/$p" && any=1; done < <(examples_list)
	[ -n "$any" ] || return 0
	build_examples "$name" "$dir"
	while read -r p; do
		selected "papi-examples/$p" || continue
		if [ ! -x "$b/$p" ]; then
			s0=$(date +%s.%N)
			record "$PEER_TMP/$name.tsv" "papi-examples/$p" "FAILED(build)" "$s0" "$s0" \
				"did not build (see --keep DIR/$name/examples-build.log)"
			continue
		fi
		run_papi_test "$PEER_TMP/$name.tsv" "papi-examples/$p" "$PEER_TMP/$name" "$b" \
			"$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" "$p"
	done < <(examples_list)
}

run_examples "$1" "$2"
