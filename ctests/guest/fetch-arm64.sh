#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# fetch-arm64.sh CACHE SYSROOT: the Debian arm64 packages the guest needs,
# downloaded into CACHE/debs (once: a rerun uses what is there) and
# unpacked into SYSROOT (emptied first):
#   linux-image-cloud-arm64  the kernel the guest boots (its dependency
#                            linux-image-*-cloud-arm64 holds the Image,
#                            with the PMU driver and the PL011 console
#                            built in, so no module is needed)
#   libpfm4, libpfm4-dev     libpfm4 for arm64, to build and run PAPI
#
# apt is asked about arm64 alone, with its own lists, cache and sources
# under CACHE, so the host's dpkg architectures and apt state stay as they
# are (no dpkg --add-architecture, no root needed for the state).  The
# packages are unpacked with dpkg-deb -x, never installed.
#
# The packages are Debian 12's (bookworm, bookworm-updates and
# bookworm-security: kernel 6.1, libpfm4 4.13.0) whatever the host runs:
# the guest's results (doc/arm64-guest.md) are of those, and Debian 13's
# kernel and libpfm4 count differently (doc/releases.md).  They come from
# the host's Debian mirror (scripts/debian-mirror.sh).
#
# LOPE_GUEST_REFETCH=1 downloads again (a newer kernel, say).
set -euo pipefail

PACKAGES=(linux-image-cloud-arm64 libpfm4 libpfm4-dev)
SUITE=bookworm

die() {
	echo "fetch-arm64.sh: $*" >&2
	exit 1
}

# apt-get/apt-cache with arm64 as the only architecture and private state.
apt_arm64() {
	local tool=$1
	shift
	"$tool" -q -o APT::Architecture=arm64 -o APT::Architectures::=arm64 \
		-o Dir::State::Lists="$cache/apt/lists" \
		-o Dir::Etc::SourceList="$cache/apt/sources.list" \
		-o Dir::Etc::SourceParts=/nonexistent \
		-o Dir::Cache="$cache/apt/cache" \
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1 \
		-o APT::Sandbox::User="$(id -un)" "$@"
}

# The names of the .deb files to download: the packages and, for the
# kernel's metapackage, the image package it depends on.
resolve() {
	local image
	image=$(apt_arm64 apt-cache depends linux-image-cloud-arm64 |
		awk '$1 == "Depends:" && $2 ~ /^linux-image-[0-9]/ { print $2; exit }')
	[ -n "$image" ] || die "apt knows no arm64 linux-image-cloud-arm64 (sources without arm64?)"
	printf '%s\n' "${PACKAGES[@]}" "$image"
}

download() {
	local list mirror
	mkdir -p "$cache/apt/lists/partial" "$cache/apt/cache/archives/partial"
	mirror=$("$(dirname "$0")/../../scripts/debian-mirror.sh")
	{
		echo "deb $mirror $SUITE main"
		echo "deb $mirror $SUITE-updates main"
		echo "deb $mirror-security $SUITE-security main"
	} >"$cache/apt/sources.list"
	rm -rf "$cache/debs.new"
	mkdir -p "$cache/debs.new"
	echo "# fetching Debian 12's arm64 packages from $mirror: apt-get update (arm64 only, private state)"
	apt_arm64 apt-get update >"$cache/apt-update.log" 2>&1 ||
		die "apt-get update failed: $(tail -n 3 "$cache/apt-update.log" | tr '\n' ' ')"
	list=$(resolve)
	# shellcheck disable=SC2086 # one package a word
	(cd "$cache/debs.new" && apt_arm64 apt-get download $list) \
		>"$cache/apt-download.log" 2>&1 ||
		die "apt-get download failed: $(tail -n 3 "$cache/apt-download.log" | tr '\n' ' ')"
	# The marker says the set is complete: a rerun trusts it.
	echo "$list" >"$cache/debs.new/FETCHED"
	rm -rf "$cache/debs"
	mv "$cache/debs.new" "$cache/debs"
}

main() {
	[ $# -eq 2 ] || die "usage: fetch-arm64.sh CACHE SYSROOT"
	mkdir -p "$1"
	cache=$(cd "$1" && pwd)
	local sysroot=$2 deb
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
	compgen -G "$sysroot/boot/vmlinuz-*" >/dev/null || die "no kernel in $sysroot/boot"
	[ -f "$sysroot/usr/include/perfmon/pfmlib.h" ] || die "no libpfm4 header in $sysroot"
}

main "$@"
