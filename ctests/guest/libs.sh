#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# libs.sh READELF ROOT DIR...: copy into ROOT/lib every shared library the
# ELF files under ROOT need (DT_NEEDED, transitively) and their program
# interpreter, looked up in the DIRs in order.  A library found nowhere
# is an error: a program in the guest would not start.
set -euo pipefail

readelf=$1 root=$2
shift 2
dirs=("$@")

needed() { # the DT_NEEDED names of an ELF file
	"$readelf" -d "$1" 2>/dev/null |
		sed -n 's/.*(NEEDED).*Shared library: \[\(.*\)\]/\1/p'
}

interp() { # the program interpreter's path, if any
	"$readelf" -l "$1" 2>/dev/null |
		sed -n 's/.*\[Requesting program interpreter: \(.*\)\]/\1/p'
}

find_lib() {
	local d
	for d in "${dirs[@]}"; do
		if [ -e "$d/$1" ]; then
			echo "$d/$1"
			return 0
		fi
	done
	return 1
}

declare -A done_=()
queue=()
while IFS= read -r f; do
	# ELF files only (the magic number).
	[ "$(head -c 4 "$f" | od -An -c | tr -d ' ')" = '177ELF' ] || continue
	queue+=("$f")
done < <(find "$root" -type f)

mkdir -p "$root/lib"
# glibc loads libgcc_s.so.1 itself (dlopen) to unwind a thread at
# pthread_exit or cancellation; no program names it.
gcc_s=$(find_lib libgcc_s.so.1) || {
	echo "libs.sh: libgcc_s.so.1 not found in ${dirs[*]}" >&2
	exit 1
}
cp -L "$gcc_s" "$root/lib/libgcc_s.so.1"
done_[libgcc_s.so.1]=1
queue+=("$root/lib/libgcc_s.so.1")

ld=
while [ ${#queue[@]} -gt 0 ]; do
	f=${queue[0]}
	queue=("${queue[@]:1}")
	[ -n "$ld" ] || ld=$(interp "$f")
	for n in $(needed "$f"); do
		[ -z "${done_[$n]:-}" ] || continue
		done_[$n]=1
		[ -e "$root/lib/$n" ] && continue
		# The PAPI trees ship their own libpapi.so.7.0 (LD_LIBRARY_PATH).
		case $n in libpapi.so*) continue ;; esac
		src=$(find_lib "$n") || {
			echo "libs.sh: $n (needed by ${f#"$root"}) not found in ${dirs[*]}" >&2
			exit 1
		}
		cp -L "$src" "$root/lib/$n"
		queue+=("$root/lib/$n")
	done
done
if [ -n "$ld" ]; then
	src=$(find_lib "$(basename "$ld")") || {
		echo "libs.sh: interpreter $ld not found in ${dirs[*]}" >&2
		exit 1
	}
	mkdir -p "$root$(dirname "$ld")"
	cp -L "$src" "$root$ld"
fi
