#!/usr/bin/env bash
# Prepare a fresh Debian 12 machine: build tools, libpfm4, the stock PAPI
# tools for comparison, PAPI's source (which our build compiles), and the
# emulated arm64 machine's tools (the cross compiler, QEMU, cpio; its
# kernel and arm64 libpfm4 are fetched by ctests/guest/fetch-arm64.sh).
# Run as root, or as a user who may sudo.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo DEBIAN_FRONTEND=noninteractive)

# apt-get source (scripts/get-papi-src.sh) needs source entries.
deb822=/etc/apt/sources.list.d/debian.sources
if [ -f "$deb822" ]; then
	"${SUDO[@]}" sed -i 's/^Types: *deb *$/Types: deb deb-src/' "$deb822"
fi
list=/etc/apt/sources.list
if [ -f "$list" ] && grep -q '^deb ' "$list" && ! grep -q '^deb-src ' "$list"; then
	sed -n 's/^deb /deb-src /p' "$list" | "${SUDO[@]}" tee -a "$list" >/dev/null
fi

"${SUDO[@]}" apt-get update
"${SUDO[@]}" apt-get install -y --no-install-recommends \
	build-essential autoconf automake libtool pkg-config libpfm4-dev \
	papi-tools papi-examples dpkg-dev gcc-aarch64-linux-gnu \
	libc6-dev-arm64-cross linux-perf gnuplot-nox clang-format valgrind rsync \
	clang libclang-rt-14-dev qemu-system-arm cpio

"$top/scripts/get-papi-src.sh"
