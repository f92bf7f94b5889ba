#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# build-qemu-x86.sh CACHE_DIR: builds Debian 12's QEMU 7.2 qemu-system-x86_64
# with qemu-x86-pmu.patch (an emulated Intel architectural PMU, version 2,
# and AMD's core PMU, under TCG; icount's fairness between vCPUs; the
# flags cmpxchg8b/16b leave) and
# prints the binary's path, the only line on stdout.
#
# The result is cached in CACHE_DIR/qemu-x86-KEY/, KEY a sha256 of the
# patch, this script and the QEMU source version: a rerun with the same
# key prints the path at once, and a run while another builds the same
# key waits for it (flock on CACHE_DIR/qemu-x86-KEY.lock).  A build takes 5.5 to 7 minutes on 2 cores.
#
# The source is always Debian 12's (1:7.2+dfsg-7+deb12uN, the newest the
# archive offers): from the host's deb-src entries when they list it (on
# Debian 12), else from a private apt setup that lists only bookworm's
# sources, on the host's mirror (on Debian 13, whose apt would give QEMU
# 10; it needs debian-archive-keyring, which on Debian 13 still holds
# bookworm's keys).  The orig tarball is dfsg: there is no meson in it (the
# host's is used) and no edk2 firmware (its unpacking is skipped); run the
# emulator with firmware from Debian's packages: -L /usr/share/qemu
# -L /usr/share/seabios (qemu-system-data, seabios, ipxe-qemu).
#
# Build dependencies (Debian package names):
#   build-essential pkg-config python3 ninja-build meson dpkg-dev patch
#   xz-utils libglib2.0-dev libpixman-1-dev libfdt-dev zlib1g-dev
# and, to run the guest: qemu-system-data seabios ipxe-qemu
# (scripts/install-deps.sh installs them, and debian-archive-keyring).
# On Debian 13 the same source builds as it is with that release's meson,
# Python and GCC 14 (a debootstrap chroot: 6 min 57 s).
set -euo pipefail

if [ $# -ne 1 ]; then
	echo "usage: $0 CACHE_DIR" >&2
	exit 2
fi
exec 3>&1 1>&2

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
patch="$here/qemu-x86-pmu.patch"
mkdir -p "$1"
cache=$(cd "$1" && pwd)
version_re='^1:7\.2\+dfsg-7\+deb12u[0-9]+$'

# apt with only bookworm's sources, for hosts whose apt lists no QEMU 7.2
private_apt() {
	local d="$cache/apt-bookworm" mirror
	mirror=$("$here/../../scripts/debian-mirror.sh")
	mkdir -p "$d/lists/partial" "$d/cache/archives/partial" "$d/parts"
	cat >"$d/sources.list" <<-EOF
		deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm main
		deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] $mirror bookworm-updates main
		deb-src [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${mirror%/debian}/debian-security bookworm-security main
	EOF
	APT_OPTS=(-o "Dir::Etc::SourceList=$d/sources.list"
		-o "Dir::Etc::SourceParts=$d/parts"
		-o "Dir::State::Lists=$d/lists"
		-o "Dir::Cache=$d/cache"
		-o "Debug::NoLocking=1")
	apt-get "${APT_OPTS[@]}" -q update >&2
}

newest_72() {
	apt-cache "${APT_OPTS[@]}" showsrc qemu 2>/dev/null |
		sed -n 's/^Version: //p' | grep -E "$version_re" |
		sort -V | tail -n 1 || true
}

APT_OPTS=()
version=$(newest_72)
if [ -z "$version" ]; then
	echo "build-qemu-x86: no QEMU 7.2 in the host's deb-src; using bookworm's" >&2
	private_apt
	version=$(newest_72)
fi
if [ -z "$version" ]; then
	echo "build-qemu-x86: Debian 12's qemu source (1:7.2+dfsg-7+deb12u*) not found" >&2
	exit 1
fi

key=$( { cat "$patch" "$self"; echo "$version"; } | sha256sum | cut -c1-16)
out="$cache/qemu-x86-$key"
# One build of a key at a time: a second caller (scripts/test.sh starts
# one in the background, test_x86_64.sh calls again) waits for the first
# and takes its result.
exec 4>"$out.lock"
flock 4
if [ -x "$out/qemu-system-x86_64" ]; then
	echo "$out/qemu-system-x86_64" >&3
	exit 0
fi

echo "build-qemu-x86: building qemu $version with the PMU patch in $out" >&2
work="$out.work"
rm -rf "$work"
mkdir -p "$work"
cd "$work"
apt-get "${APT_OPTS[@]}" -q source "qemu=$version" >&2
src=$(find . -mindepth 1 -maxdepth 1 -type d -name 'qemu-*' | sed -n 1p)
cd "$src"
patch -p1 --forward --quiet <"$patch"
# dfsg: no edk2 blobs to unpack
sed -i 's/^\( *unpack_edk2_blobs = \)bzip2\.found()/\1false/' meson.build

mkdir build
cd build
../configure --target-list=x86_64-softmmu --without-default-features \
	--enable-tcg --enable-fdt=system --disable-install-blobs \
	--disable-werror --with-git-submodules=ignore --audio-drv-list= >&2
nice ninja -j2 qemu-system-x86_64 >&2

mkdir -p "$out.tmp"
cp qemu-system-x86_64 "$out.tmp/"
echo "$version" >"$out.tmp/version"
rm -rf "$out"
mv "$out.tmp" "$out"
cd "$cache"
rm -rf "$work"
echo "$out/qemu-system-x86_64" >&3
