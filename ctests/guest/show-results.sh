#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# show-results.sh GUESTDIR [ARCH]: the end of `make demo` on a machine
# without a core PMU, where the tables before it are of the read(2) path:
# where this architecture's user-space read path can be seen instead (the
# emulated machine of ARCH, default this machine's: x86_64, aarch64 or
# riscv64; arm64's for another) and its exact instruction table from
# GUESTDIR/GUEST/results/papi_overhead-counter.txt when a run of the suite
# has made it, with its tables on every kernel (kernels-*.md), or the one
# command that makes it.  Prints nothing where there is a core PMU: there
# the tables before it show that path already.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../core_pmu.sh"
guestdir=${1:?usage: show-results.sh GUESTDIR [ARCH]}
arch=${2:-$(uname -m)}

core_pmu >/dev/null && exit 0
case $arch in
x86_64)
	# (its HPCToolkit cases are long to build, and not this table's)
	guest=x86_64 boot="x86 LOPE_HPCTOOLKIT=0" how=rdpmc doc=doc/x86-guest.md
	what="x86-64 machine: QEMU with this project's PMU (Intel's architectural PMU on a Skylake, AMD's core counters on an EPYC) and Debian's amd64 kernel"
	;;
riscv64)
	guest=riscv64 boot=rv how=csrr doc=doc/riscv64-guest.md
	what="riscv64 machine: QEMU's max CPU with Sscofpmf and Debian's riscv64 kernel"
	;;
*)
	guest=arm64 boot=a57 how=mrs doc=doc/arm64-guest.md
	what="arm64 machine: QEMU's cortex-a57 with a real PMU and Debian's arm64 kernel"
	;;
esac
results=$guestdir/$guest/results
echo
{
	echo "The tables above are of the read(2) path: $NO_CORE_PMU_REASON."
	echo "The user-space read path ($how) runs in the test suite's emulated $what, one instruction a tick, so its counts are exact ($doc)."
} | fold -s -w 72 | sed 's/ *$//'
table=$results/papi_overhead-counter.txt
if [ -s "$table" ]; then
	echo
	echo "Its papi_overhead -m counter, user and kernel instructions, from the run of $(date -r "$table" '+%Y-%m-%d %H:%M'):"
	echo
	cat "$table"
	for t in "$results"/kernels-*.md; do
		[ -f "$t" ] || continue
		echo
		echo "On every kernel booted (doc/kernels.md), ours / stock, $(basename "$t" .md | sed 's/^kernels-//'):"
		echo
		cat "$t"
	done
else
	cat <<EOF

Its table has not been made in this tree yet; this makes it (the one
boot that runs papi_overhead -m counter, a few minutes), and \`make demo\` then shows it:

  LOPE_GUEST_MACHINES=$boot LOPE_GUEST_KERNELS=none make check TESTS=ctests/guest/test_$guest.sh
EOF
fi
