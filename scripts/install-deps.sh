#!/usr/bin/env bash
# Prepare a fresh Debian 12 or 13 machine: build tools, libpfm4, the stock
# PAPI tools for comparison, Lmod (the environment module's test), PAPI's
# source (which our build compiles), and
# the emulated machines' tools: arm64's cross compiler, QEMU, cpio, dtc for
# the two-PMU machine's device tree, riscv64's cross compiler, and what
# builds x86-64's QEMU with an emulated PMU (ctests/guest/build-qemu-x86.sh)
# and the firmware it boots; Slurm, MUNGE and Open MPI for the parallel
# jobs' tests, with no daemon started; what HPCToolkit builds with (its
# test, ctests/hpctoolkit).  Their kernels, arm64's and x86-64's
# libpfm4, and riscv64's QEMU 10 and OpenSBI, which QEMU 7.2's libraries
# run, are fetched by ctests/guest/fetch.sh.
# Run as root, or as a user who may sudo.
#
#   scripts/install-deps.sh [--papi-src DIR]
#
# --papi-src DIR (or LOPE_PAPI_SRC=DIR) takes PAPI's source from DIR (a
# PAPI source tree or a papi-*.tar.gz) instead of `apt-get source papi`.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
export DEBIAN_FRONTEND=noninteractive
SUDO=()
[ "$(id -u)" -eq 0 ] || SUDO=(sudo DEBIAN_FRONTEND=noninteractive)

papi_src=${LOPE_PAPI_SRC:-}
case ${1:-} in
--papi-src) papi_src=${2:?"--papi-src needs a directory or tarball"} ;;
"") ;;
*)
	echo "usage: $0 [--papi-src DIR]" >&2
	exit 2
	;;
esac

# apt-get source (scripts/get-papi-src.sh) needs source entries.
deb822=/etc/apt/sources.list.d/debian.sources
if [ -f "$deb822" ]; then
	"${SUDO[@]}" sed -i 's/^Types: *deb *$/Types: deb deb-src/' "$deb822"
fi
list=/etc/apt/sources.list
if [ -f "$list" ] && grep -q '^deb ' "$list" && ! grep -q '^deb-src ' "$list"; then
	sed -n 's/^deb /deb-src /p' "$list" | "${SUDO[@]}" tee -a "$list" >/dev/null
fi

# Names that exist in Debian 12 and 13 alike: libclang-rt-dev is the
# runtime of the release's default clang (14 in 12, 19 in 13).
packages=(build-essential autoconf automake libtool pkg-config libpfm4-dev
	papi-tools papi-examples dpkg-dev linux-perf gnuplot-nox clang-format
	valgrind rsync clang libclang-rt-dev cpio debootstrap shellcheck patchelf
	slurm-wlm munge openmpi-bin libopenmpi-dev lmod)
# slurm-wlm, munge, openmpi-bin and libopenmpi-dev: the parallel jobs'
# tests (ctests/mpi, ctests/cluster; doc/cluster.md).  slurmd's dependency
# slurm-wlm-basic-plugins carries srun --mpi=pmix's plugin (mpi_pmix) in
# Debian 12 and 13 alike.  lmod: the modulefile's test
# (ctests/release/test_module.sh).
# The emulated machines: on x86-64 their cross compilers and QEMU.  On
# another host the guests' tests SKIP, saying so (ctests/guest).
case $(dpkg --print-architecture) in
amd64) packages+=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross qemu-system-arm
	device-tree-compiler gcc-riscv64-linux-gnu libc6-dev-riscv64-cross
	ninja-build meson python3 patch xz-utils libglib2.0-dev libpixman-1-dev
	libfdt-dev zlib1g-dev qemu-system-data seabios ipxe-qemu
	debian-archive-keyring
	cmake libboost-dev libboost-atomic-dev libboost-chrono-dev
	libboost-date-time-dev libboost-filesystem-dev libboost-graph-dev
	libboost-regex-dev libboost-system-dev libboost-thread-dev
	libboost-timer-dev libtbb-dev libelf-dev libdw-dev libunwind-dev
	libxerces-c-dev libiberty-dev liblzma-dev libbz2-dev libyaml-cpp-dev
	libpapi-dev python3-ruamel.yaml) ;;
*) echo "install-deps.sh: $(dpkg --print-architecture) host: the emulated machines' and HPCToolkit's tests need an x86-64 host; not installing their tools" ;;
esac
# cmake to libpapi-dev: HPCToolkit and its Dyninst, built from their
# release tarballs (ctests/hpctoolkit/build-hpctoolkit.sh, x86-64 only:
# Intel XED); python3-ruamel.yaml: HPCToolkit's database reader, which its
# test uses (ctests/hpctoolkit/test_hpctoolkit.sh).

# munge, slurmctld and slurmd come with init scripts and systemd units that
# their postinst starts.  The tests start their own daemons, on their own
# socket and ports, and need none of the system's; a system slurmd or
# slurmctld without a slurm.conf only fails.  So nothing is started while
# installing: a policy-rc.d that denies every start (invoke-rc.d and
# deb-systemd-invoke ask it), put in place only where the system has none,
# and removed afterwards.  The units stay enabled for the next boot, as
# the packages leave them.
policy=/usr/sbin/policy-rc.d
remove_policy() { "${SUDO[@]}" rm -f "$policy"; }
if [ ! -e "$policy" ]; then
	printf '#!/bin/sh\n# install-deps.sh: no daemon starts while it installs\nexit 101\n' |
		"${SUDO[@]}" tee "$policy" >/dev/null
	"${SUDO[@]}" chmod 755 "$policy"
	trap remove_policy EXIT
fi
"${SUDO[@]}" apt-get update
"${SUDO[@]}" apt-get install -y --no-install-recommends "${packages[@]}"
if [ -n "$(trap -p EXIT)" ]; then
	remove_policy
	trap - EXIT
fi

"$top/scripts/get-papi-src.sh" ${papi_src:+"$papi_src"}
