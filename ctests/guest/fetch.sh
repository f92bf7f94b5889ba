#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# fetch.sh GUEST CACHE SYSROOT: the Debian packages an emulated machine
# needs, downloaded into CACHE/debs (once: a rerun uses what is there)
# and unpacked into SYSROOT (emptied first).  GUEST is
#   arm64    Debian 12's (bookworm, -updates, -security: kernel 6.1,
#            libpfm4 4.13.0) whatever the host runs, as the guest's
#            results (doc/arm64-guest.md) are of those:
#              linux-image-cloud-arm64  the kernel (its dependency
#                                       linux-image-*-cloud-arm64 holds
#                                       the Image, with the PMU driver and
#                                       the PL011 console built in)
#              libpfm4, libpfm4-dev     to build and run PAPI
#   x86_64   as arm64, Debian 12's amd64 packages: the kernel
#            (linux-image-cloud-amd64: its perf driver built in, and the
#            8250 console) and libpfm4, whatever the host runs; the
#            QEMU with an emulated PMU is built from source
#            (build-qemu-x86.sh)
#   riscv64  Debian 13's kernel (trixie's main alone, as the mirror here
#            serves it: 6.12, the first Debian kernel
#            whose RISC-V PMU driver lets user space read counters; its
#            PMU driver, SBI PMU and 8250 console are built in), and an
#            emulator for the host that filters counting by privilege
#            (Sscofpmf) with the firmware it needs: QEMU 10 and OpenSBI
#            1.5 (Debian 12's QEMU 7.2 counts the kernel's instructions
#            as the user's, and QEMU 10 does not start with its OpenSBI
#            1.1).  On a Debian 12 host they come from bookworm-backports,
#            on a later one from its own release; amd64 packages whose
#            libraries are the host release's.  PAPI's own libpfm4 is
#            built for it (ctests/guest/guest.mk): Debian 12 has no
#            riscv64 packages.
#
# apt is asked about one architecture at a time, with its own lists,
# cache and sources under CACHE, so the host's dpkg architectures and apt
# state stay as they are (no dpkg --add-architecture, no root needed for
# the state).  The packages are unpacked with dpkg-deb -x, never
# installed.  They come from the host's Debian mirror
# (scripts/debian-mirror.sh).
#
# fetch.sh kernel GUEST SUITE CACHE OUT: another Debian release's kernel
# for GUEST's machines (the kernel matrix, doc/kernels.md), copied to OUT;
# prints its version.  The release's kernel metapackage (x86_64:
# linux-image-cloud-amd64, arm64: linux-image-cloud-arm64, riscv64:
# linux-image-riscv64) names the image package; where that holds no
# kernel (sid's linux-image-VERSION), its linux-binary-VERSION does.
# Kept in CACHE/kernels/ARCH/VERSION/ (CACHE/kernels/ARCH/SUITE names the
# version the release served when last asked; apt's state is beside it),
# so that a rerun, from any clone, downloads nothing.
#
# LOPE_GUEST_REFETCH=1 downloads again (a newer kernel, say).
set -euo pipefail

die() {
	echo "fetch.sh: $*" >&2
	exit 1
}

# apt_for ARCH TOOL ARGS...: apt-get/apt-cache with ARCH as the only
# architecture and the private state of CACHE/apt-ARCH.
apt_for() {
	local arch=$1 tool=$2 d=$cache/apt-$1
	shift 2
	"$tool" -q -o APT::Architecture="$arch" -o APT::Architectures::="$arch" \
		-o Dir::State::Lists="$d/lists" \
		-o Dir::Etc::SourceList="$d/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::Cache="$d/cache" \
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1 \
		-o APT::Sandbox::User="$(id -un)" "$@"
}

# sources ARCH SUITE...: the private sources of ARCH, updated.
sources() {
	local arch=$1 d=$cache/apt-$1 s
	shift
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial"
	for s in "$@"; do
		case $s in
		*-security) echo "deb $mirror-security $s main" ;;
		*) echo "deb $mirror $s main" ;;
		esac
	done >"$d/sources.list"
	echo "# fetching from $mirror: apt-get update ($arch only, private state: $*)"
	apt_for "$arch" apt-get update >"$d/update.log" 2>&1 ||
		die "apt-get update ($arch) failed: $(tail -n 3 "$d/update.log" | tr '\n' ' ')"
}

# image ARCH META: the kernel image package a metapackage depends on.
image() {
	local p
	p=$(apt_for "$1" apt-cache depends "$2" |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[ -n "$p" ] || die "apt knows no $1 $2 (sources without $1?)"
	echo "$p"
}

# get ARCH PACKAGE...: download into debs.new.
get() {
	local arch=$1
	shift
	(cd "$cache/debs.new" && apt_for "$arch" apt-get download "$@") \
		>>"$cache/download.log" 2>&1 ||
		die "apt-get download ($arch: $*) failed: $(tail -n 3 "$cache/download.log" | tr '\n' ' ')"
	printf '%s\n' "$@" >>"$cache/debs.new/FETCHED"
}

# The host's Debian release, by its codename (bookworm, trixie, ...).
host_suite() {
	local c
	c=$(. /etc/os-release 2>/dev/null && echo "${VERSION_CODENAME:-}")
	[ -n "$c" ] || die "no VERSION_CODENAME in /etc/os-release: not Debian?"
	echo "$c"
}

download_arm64() {
	sources arm64 bookworm bookworm-updates bookworm-security
	get arm64 linux-image-cloud-arm64 libpfm4 libpfm4-dev \
		"$(image arm64 linux-image-cloud-arm64)"
}

download_x86_64() {
	sources amd64 bookworm bookworm-updates bookworm-security
	get amd64 linux-image-cloud-amd64 libpfm4 libpfm4-dev \
		"$(image amd64 linux-image-cloud-amd64)"
}

download_riscv64() {
	local host emu
	sources riscv64 trixie
	get riscv64 "$(image riscv64 linux-image-riscv64)"
	host=$(host_suite)
	case $host in
	bookworm) emu=bookworm-backports ;;
	*) emu=$host ;;
	esac
	sources "$(dpkg --print-architecture)" "$emu"
	get "$(dpkg --print-architecture)" qemu-system-riscv opensbi
}

download() {
	mirror=$("$(dirname "$0")/../../scripts/debian-mirror.sh")
	rm -rf "$cache/debs.new" "$cache/download.log"
	mkdir -p "$cache/debs.new"
	"download_$guest"
	# The marker says the set is complete: a rerun trusts it.
	rm -rf "$cache/debs"
	mv "$cache/debs.new" "$cache/debs"
}

# kernel GUEST SUITE CACHE OUT
kernel() {
	local arch meta pkg dir ver f
	case $1 in
	x86_64) arch=amd64 meta=linux-image-cloud-amd64 ;;
	arm64) arch=arm64 meta=linux-image-cloud-arm64 ;;
	riscv64) arch=riscv64 meta=linux-image-riscv64 ;;
	*) die "no guest $1" ;;
	esac
	mkdir -p "$3/kernels/$arch"
	cache=$(cd "$3/kernels/$arch" && pwd)
	# One fetch at a time per architecture (two clones, two scripts).
	exec 9>"$cache/lock"
	flock 9
	ver=$(cat "$cache/$2" 2>/dev/null || true)
	if [ "${LOPE_GUEST_REFETCH:-0}" = 1 ] || [ -z "$ver" ] ||
		[ ! -f "$cache/$ver/kernel" ]; then
		command -v apt-get >/dev/null || die "apt-get not found: cannot fetch Debian's $2 kernel"
		mirror=$("$(dirname "$0")/../../scripts/debian-mirror.sh")
		cache=$cache/apt-$2
		mkdir -p "$cache"
		sources "$arch" "$2" >&2
		pkg=$(image "$arch" "$meta")
		ver=${pkg#linux-image-}
		dir=$cache/../$ver
		rm -rf "$dir" "$cache/debs.new" "$cache/download.log"
		mkdir -p "$dir" "$cache/debs.new"
		get "$arch" "$pkg"
		if ! dpkg-deb -c "$cache/debs.new/$pkg"_*.deb | grep '/vmlinu[xz]' >/dev/null; then
			get "$arch" "$(apt_for "$arch" apt-cache depends "$pkg" |
				awk '$1 == "Depends:" && $2 ~ /^linux-binary-/ { print $2; exit }')"
		fi
		for f in "$cache"/debs.new/*.deb; do
			dpkg-deb --fsys-tarfile "$f" | tar -x -C "$dir" --wildcards \
				'./boot/vmlinu[xz]-*' './usr/lib/modules/*/vmlinu[xz]' 2>/dev/null || true
		done
		f=$(find "$dir" -name 'vmlinu[xz]*' -type f | sed -n 1p)
		[ -n "$f" ] || die "no kernel in $pkg (nor its linux-binary)"
		mv "$f" "$dir/kernel"
		rm -rf "${dir:?}/boot" "${dir:?}/usr" "$cache/debs.new"
		cache=$cache/..
		echo "$ver" >"$cache/$2"
	fi
	cp "$cache/$ver/kernel" "$4"
	echo "$ver"
}

main() {
	if [ "${1:-}" = kernel ]; then
		[ $# -eq 5 ] || die "usage: fetch.sh kernel GUEST SUITE CACHE OUT"
		command -v dpkg-deb >/dev/null || die "dpkg-deb not found (package dpkg)"
		shift
		kernel "$@"
		return
	fi
	[ $# -eq 3 ] || die "usage: fetch.sh arm64|riscv64|x86_64 CACHE SYSROOT"
	guest=$1
	case $guest in arm64 | riscv64 | x86_64) ;; *) die "no guest $guest" ;; esac
	mkdir -p "$2"
	cache=$(cd "$2" && pwd)
	local sysroot=$3 deb
	command -v dpkg-deb >/dev/null || die "dpkg-deb not found (package dpkg)"

	if [ "${LOPE_GUEST_REFETCH:-0}" = 1 ] ||
		[ ! -f "$cache/debs/FETCHED" ]; then
		command -v apt-get >/dev/null || die "apt-get not found: cannot fetch Debian packages"
		download
	fi
	rm -rf "$sysroot"
	mkdir -p "$sysroot"
	for deb in "$cache"/debs/*.deb; do
		echo "# unpacking $(basename "$deb")"
		dpkg-deb -x "$deb" "$sysroot"
	done
	compgen -G "$sysroot/boot/vmlinu*-*" >/dev/null || die "no kernel in $sysroot/boot"
	case $guest in
	arm64 | x86_64)
		[ -f "$sysroot/usr/include/perfmon/pfmlib.h" ] ||
			die "no libpfm4 header in $sysroot"
		;;
	riscv64)
		[ -x "$sysroot/usr/bin/qemu-system-riscv64" ] ||
			die "no qemu-system-riscv64 in $sysroot"
		compgen -G "$sysroot/usr/lib/riscv64-linux-gnu/opensbi/generic/fw_dynamic.bin" >/dev/null ||
			die "no OpenSBI fw_dynamic.bin in $sysroot"
		;;
	esac
}

main "$@"
