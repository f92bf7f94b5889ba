#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# guest_profile.sh OUTPUT HPCTOOLKIT BINDIR DIR: the measurements that
# hpcguest (hpcguest.c) printed in the emulated machine, into a database
# on the host.  OUTPUT is the program's output; its files are decoded into
# DIR/measurements, the profiled program is analysed by hpcstruct from
# BINDIR (the host's copy, with its debug information: the machine's
# is stripped), and hpcprof writes DIR/database, its load modules' /bin
# replaced by BINDIR.  Then hpcdb_lines.py FILE FIRST LAST can read it.
# 0, or 1 with what failed on stderr.
set -euo pipefail

if [ $# -ne 4 ]; then
	echo "usage: $0 OUTPUT HPCTOOLKIT BINDIR DIR" >&2
	exit 2
fi
out=$1 prefix=$2 bindir=$3 dir=$4
m=$dir/measurements
rm -rf "$m" "$dir/database"
mkdir -p "$m"
# Each "@hpcguest file PATH BYTES" ... "@hpcguest end" into $m/PATH.
awk -v m="$m" '
	/^@hpcguest file / { f = m "/" $3; n = $4; sub(/\/[^\/]*$/, "", f)
		system("mkdir -p \"" f "\""); f = m "/" $3; next }
	/^@hpcguest end$/ { close(cmd); f = ""; next }
	f != "" { cmd = "base64 -d >> \"" f "\""; print | cmd }
' "$out"
runs=("$m"/*.hpcrun)
if [ ! -e "${runs[0]}" ]; then
	echo "guest_profile: no .hpcrun file in $out" >&2
	exit 1
fi
prog=$(basename "${runs[0]}" | sed 's/-[0-9]\{6\}-.*//')
"$prefix/bin/hpcstruct" -o "$dir/$prog.hpcstruct" "$bindir/$prog" \
	>"$dir/hpcstruct.log" 2>&1 || {
	echo "guest_profile: hpcstruct $bindir/$prog failed: $(tail -n 3 "$dir/hpcstruct.log")" >&2
	exit 1
}
"$prefix/bin/hpcprof" -S "$dir/$prog.hpcstruct" -R "/bin=$bindir" \
	-o "$dir/database" "$m" >"$dir/hpcprof.log" 2>&1 || {
	echo "guest_profile: hpcprof failed: $(tail -n 3 "$dir/hpcprof.log")" >&2
	exit 1
}
