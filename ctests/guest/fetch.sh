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

main() {
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
