# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by the tests that run ctests/mpi/test_mpi_ranks.c under a
# launcher (ctests/mpi/test_mpi.sh: mpirun; ctests/cluster/test_slurm.sh:
# srun --mpi=pmix), after ctests/report.sh.

# mpi_ranks_build TOP OUT: OUT built with mpicc from TOP's
# ctests/mpi/test_mpi_ranks.c and the test library (ctests/lib, archived
# here as make archives it), against our PAPI build ($PAPI_OURS_BUILDDIR:
# papi.h and libpapi.so); compiler messages in OUT.err.  Status: 0 when
# it was built.
mpi_ranks_build() {
	local top=$1 out=$2 lib f objs=()
	lib=$top/ctests/lib
	mkdir -p "$out.lib" || return 1
	for f in $(sh "$top/scripts/lists.sh" words "$lib/sources.mk" LOPE_TESTLIB_SRCS); do
		mpicc -O2 -Wall -Wextra -I"$lib" -I"$PAPI_OURS_BUILDDIR" -c \
			-o "$out.lib/${f%.c}.o" "$lib/$f" >>"$out.err" 2>&1 || return 1
		objs+=("$out.lib/${f%.c}.o")
	done
	ar crs "$out.lib/liblopetest.a" "${objs[@]}" >>"$out.err" 2>&1 &&
		mpicc -O2 -Wall -Wextra -I"$lib" -I"$PAPI_OURS_BUILDDIR" -o "$out" \
			"$top/ctests/mpi/test_mpi_ranks.c" "$out.lib/liblopetest.a" \
			"$PAPI_OURS_BUILDDIR/libpapi.so" -lpthread -lm -ldl \
			>>"$out.err" 2>&1
}

# mpi_ranks_libpapi: the library the program must run, our build's file
# of the soname it was linked with.
mpi_ranks_libpapi() {
	echo "$PAPI_OURS_BUILDDIR/libpapi.so.7.0"
}

# mpi_ranks_report PREFIX DIR N: the reports of ranks 0..N-1 in DIR
# (rank-R.out) as this script's cases, each name prefixed PREFIX_, in
# rank order; a rank whose report is missing or stops before its last
# case (rankR_mpi_finalize) is the FAIL PREFIX_rankR_report_whole.
mpi_ranks_report() {
	local prefix=$1 dir=$2 n=$3 r f l x
	for ((r = 0; r < n; r++)); do
		f=$dir/rank-$r.out
		if [ -f "$f" ]; then
			while IFS= read -r l; do
				x=${l#*: }
				case $l in
				"PASS: "*) pass "${prefix}_$x" ;;
				"FAIL: "*) fail "${prefix}_${x%%: *}" "${x#*: }" ;;
				"SKIP: "*) skip "${prefix}_${x%%: *}" "${x#*: }" ;;
				*) echo "$l" ;;
				esac
			done <"$f"
		fi
		grep -qE "^(PASS|FAIL): rank${r}_mpi_finalize" "$f" 2>/dev/null ||
			fail "${prefix}_rank${r}_report_whole" "$f is missing or ends before rank${r}_mpi_finalize"
	done
}
