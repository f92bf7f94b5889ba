#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# kernel-table.sh TABLE...: papi_overhead -m counter tables of one machine
# on several kernels (the kernel matrix, doc/kernels.md) as one Markdown
# table: a row for each call of 1 and 3 events and its system calls, a
# column for each kernel (its "machine" line's Linux X.Y, oldest first),
# each cell "ours / stock" in instructions, user and kernel; "-" where
# stock counted nothing, ours through read(2) marked "r" where the kernel
# allows no user-space read.
set -euo pipefail
[ $# -gt 0 ] || {
	echo "usage: kernel-table.sh TABLE..." >&2
	exit 2
}
for f in "$@"; do
	v=$(sed -n 's/^machine *: .*Linux \([0-9]*\.[0-9]*\).*/\1/p' "$f")
	[ -n "$v" ] || {
		echo "kernel-table.sh: no Linux version in $f's machine line" >&2
		exit 1
	}
	printf '%s\t%s\n' "$v" "$f"
done | sort -V | awk -F'\t' '
	{ ver[++n] = $1; file[n] = $2 }
	END {
		for (k = 1; k <= n; k++) {
			t = 0
			while ((getline l < file[k]) > 0) {
				if (l ~ /^call /) { t = 1; continue }
				if (l ~ /^\(/) t = 0
				if (!t || l !~ /^PAPI_[a-z+]+ /) continue
				split(l, f, " +")
				if (f[2] != 1 && f[2] != 3) continue
				r = f[1] " " f[2]
				if (!(r in seen)) { seen[r] = 1; row[++nr] = r }
				o = f[3]; s = f[5]; gsub(/\*/, "", o); gsub(/\*/, "", s)
				if (o !~ /^[0-9]+$/) { o = f[4]; gsub(/\*/, "", o); o = o "r" }
				if (s !~ /^[0-9]+$/) s = "-"
				cell[r, k] = o " / " s
				m = split(l, g, " +")
				sys[r, k] = g[m - 2] " / " g[m]
			}
			close(file[k])
		}
		printf "| call | ev |"
		for (k = 1; k <= n; k++) printf " %s |", ver[k]
		printf "\n| --- | --- |"
		for (k = 1; k <= n; k++) printf " ---: |"
		printf "\n"
		for (i = 1; i <= nr; i++) {
			split(row[i], p, " ")
			printf "| %s | %s |", p[1], p[2]
			for (k = 1; k <= n; k++) printf " %s |", cell[row[i], k]
			printf "\n"
		}
		printf "| system calls, read/start/stop | 1 |"
		for (k = 1; k <= n; k++)
			printf " %s, %s, %s |", sys["PAPI_read 1", k], sys["PAPI_start 1", k], sys["PAPI_stop 1", k]
		printf "\n"
	}'
