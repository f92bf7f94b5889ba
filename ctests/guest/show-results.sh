#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# show-results.sh RESULTS: the end of `make demo` on a machine without a
# core PMU, where the tables before it are of the read(2) path: where the
# user-space read path can be seen instead (the emulated arm64 machine)
# and its exact instruction table from RESULTS/papi_overhead-counter.txt (the
# arm64 guest's, ctests/guest/test_arm64.sh) when a run has made it, or
# the one command that makes it.  Prints nothing where there is a core
# PMU: there the tables before it show that path already.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
. "$here/../core_pmu.sh"
results=${1:?usage: show-results.sh RESULTS}

core_pmu >/dev/null && exit 0
cat <<EOF

The tables above are of the read(2) path: $NO_CORE_PMU_REASON.
The user-space read path (rdpmc on x86, mrs on arm64) runs in the test
suite's emulated arm64 machine: QEMU's cortex-a57 with a real PMU and
Debian's arm64 kernel, one instruction a tick, so its counts are exact
(doc/arm64-guest.md).
EOF
table=$results/papi_overhead-counter.txt
if [ -s "$table" ]; then
	echo
	echo "Its papi_overhead -m counter, user and kernel instructions, from the run of $(date -r "$table" '+%Y-%m-%d %H:%M'):"
	echo
	cat "$table"
else
	cat <<EOF

Its table has not been made in this tree yet; this makes it (the one
boot that runs papi_overhead -m counter, a few minutes), and \`make demo\` then shows it:

  LOPE_GUEST_MACHINES=a57 make check TESTS=ctests/guest/test_arm64.sh
EOF
fi
