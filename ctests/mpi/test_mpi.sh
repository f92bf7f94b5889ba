#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_mpi.sh: our libpapi in the ranks of an MPI job started by Open
# MPI's mpirun (doc/cluster.md, "MPI jobs with our library").  Builds
# ctests/mpi/test_mpi_ranks.c with mpicc against our PAPI build and runs
# it as `mpirun -n 2`; its cases, each rank's prefixed mpirun_, are
# described in that file: every rank runs our library, every count lies
# within its own rank's or thread's span, the sums MPI_Reduce gives equal
# those of the rows MPI_Gather gives.  The same program under
# `srun --mpi=pmix` is ctests/cluster/test_slurm.sh's.
#
# The case stock_libpapi_refused runs it once more, one rank, with stock
# PAPI first on the library path: it must report its rank0_libpapi_is_ours
# as FAIL, or the check that the ranks run ours proves nothing.
#
# SKIPs where mpicc or mpirun is not installed (scripts/install-deps.sh
# installs openmpi-bin and libopenmpi-dev).
#
# Report protocol: ctests/lib/report.h (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/../.." && pwd)
# shellcheck source=../report.sh
. "$top/ctests/report.sh"
# shellcheck source=mpi_ranks.sh
. "$here/mpi_ranks.sh"

for t in mpicc mpirun; do
	if ! command -v "$t" >/dev/null 2>&1; then
		skip mpi "$t not installed (scripts/install-deps.sh installs openmpi-bin and libopenmpi-dev)"
		exit 0
	fi
done
use_papi_ours
info "$(mpirun --version 2>&1 | sed -n 1p)"
tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-mpi.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

prog=$tmp/test_mpi_ranks
if ! mpi_ranks_build "$top" "$prog"; then
	fail mpicc_build "$(head -c 600 "$prog.err")"
	exit 1
fi
pass mpicc_build

# As root Open MPI wants to be told; on one CPU, that two ranks may share it.
mpirun=(mpirun)
[ "$(id -u)" -ne 0 ] || mpirun+=(--allow-run-as-root)
[ "$(nproc)" -ge 2 ] || mpirun+=(--oversubscribe)

mkdir "$tmp/out"
start=$(date +%s%N)
timeout 120 "${mpirun[@]}" -n 2 "$prog" "$tmp/out" "$(mpi_ranks_libpapi)" \
	>"$tmp/mpirun.out" 2>&1
rc=$?
info "mpirun -n 2: exit $rc in $((($(date +%s%N) - start) / 1000000)) ms"
[ "$rc" -eq 0 ] || while IFS= read -r l; do info "$l"; done < <(tail -n 20 "$tmp/mpirun.out")
mpi_ranks_report mpirun "$tmp/out" 2
if [ "$rc" -eq 0 ]; then pass mpirun_exit_0; else fail mpirun_exit_0 "mpirun exited $rc"; fi

stock=${PAPI_STOCK_BUILDDIR:-}
if [ -z "$stock" ] || [ ! -e "$stock/libpapi.so.7.0" ]; then
	skip stock_libpapi_refused "no stock PAPI build (PAPI_STOCK_BUILDDIR: ${stock:-unset})"
else
	mkdir "$tmp/stock"
	LD_LIBRARY_PATH=$stock${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} \
		timeout 120 "${mpirun[@]}" -n 1 "$prog" "$tmp/stock" \
		"$(mpi_ranks_libpapi)" >"$tmp/stock.out" 2>&1
	got=$(grep '^[A-Z]*: rank0_libpapi_is_ours' "$tmp/stock/rank-0.out" 2>/dev/null)
	if [[ $got == "FAIL: "* ]]; then
		pass stock_libpapi_refused "$got"
	else
		fail stock_libpapi_refused "one rank on stock PAPI reported '${got:-nothing}'"
	fi
fi

[ "$nfail" -eq 0 ]
