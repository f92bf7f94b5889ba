#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# build-hpctoolkit.sh CACHE_DIR [THIRD_PARTY_DIR]: builds HPCToolkit
# 2024.01.1 (hpcrun, hpcstruct, hpcprof) with PAPI support, on a minimal
# Dyninst 12.3.0 (dyninst-12.3.0-minimal.patch), Intel XED 2023.12.19 and
# libmonitor, from the release tarballs that Debian does not carry, and
# prints the install prefix, the only line on stdout.  x86-64 only (XED).
#
# The tarballs are those of ../shared/third_party/README.md: taken from
# THIRD_PARTY_DIR, else $LOPE_THIRD_PARTY, else shared/third_party beside
# the clone, else /work/shared/third_party, and checked against their
# sha256 sums.  Without them the script says why and exits 3 (a SKIP).
#
# The result is cached in CACHE_DIR/hpctoolkit-KEY/, KEY a sha256 of the
# tarballs' sums, this script and the patch: a rerun with the same key
# prints the prefix at once, and a run while another builds the same key
# waits for it (flock on CACHE_DIR/hpctoolkit-KEY.lock).  The prefix holds
# Dyninst and libmonitor too (deps/), whose paths the installed programs
# keep, so it is built in place and counts as done only once BUILT, the
# parts' build times, is written last; an unfinished prefix is removed
# and built again.  The build trees are in /var/tmp/build-hpctoolkit-KEY,
# removed on success and kept, with the failing part's log, on failure.
# On 2 cores (-j2), the machine otherwise idle: Dyninst 8 minutes, XED 1,
# libmonitor 0.1, HPCToolkit 7.5, 16.5 in all (about 22 beside another
# test run); the prefix takes 116 MB.
#
# HPCToolkit is built against Debian's PAPI, in a prefix of its own as a
# site's PAPI would be (deps/papi); it uses PAPI through its soname, so
# the project's libpapi (LD_PRELOAD or its package) takes its place at run
# time.  hpcrun names a PAPI event like papi::perf::TASK-CLOCK@1000000,
# and hpcrun -L lists them.
#
# Build dependencies (Debian 12 package names; scripts/install-deps.sh):
#   build-essential autoconf automake libtool cmake python3 xz-utils patch
#   libboost-dev libboost-atomic-dev libboost-chrono-dev
#   libboost-date-time-dev libboost-filesystem-dev libboost-graph-dev
#   libboost-regex-dev libboost-system-dev libboost-thread-dev
#   libboost-timer-dev libtbb-dev libelf-dev libdw-dev libunwind-dev
#   libxerces-c-dev libiberty-dev liblzma-dev libbz2-dev zlib1g-dev
#   libyaml-cpp-dev libpapi-dev libpfm4-dev
set -euo pipefail

if [ $# -lt 1 ] || [ $# -gt 2 ]; then
	echo "usage: $0 CACHE_DIR [THIRD_PARTY_DIR]" >&2
	exit 2
fi
exec 3>&1 1>&2

here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
self="$here/$(basename "${BASH_SOURCE[0]}")"
patch="$here/dyninst-12.3.0-minimal.patch"
sums="21972ed51e8c3629779a2831c74498b2f61f14d704ee9a437a87176e1f6b0b9b  hpctoolkit-2024.01.1.tar.xz
e68b6ede0a58642798f8979286668c8a68f7dc25bacfdec20df6df75aa1d085a  dyninst-12.3.0.tar.xz
f2f6ee9c3dd2e1a727f756f1fee4961a195a535798f75ca0b665e469d8ca5dd8  xed-2023.12.19.tar.xz
8c5143cd9f39c6b225dbeae10ea571adf439eb8b16a21b176bf1864eccc713dc  mbuild-2022.07.28.tar.xz
0b4f7ead9602c4d36843d07f19b7338cc031b5370825068f38bd637f0630c897  libmonitor-4852094.tar.xz"
packages=(build-essential autoconf automake libtool cmake python3 xz-utils
	patch libboost-dev libboost-atomic-dev libboost-chrono-dev
	libboost-date-time-dev libboost-filesystem-dev libboost-graph-dev
	libboost-regex-dev libboost-system-dev libboost-thread-dev
	libboost-timer-dev libtbb-dev libelf-dev libdw-dev libunwind-dev
	libxerces-c-dev libiberty-dev liblzma-dev libbz2-dev zlib1g-dev
	libyaml-cpp-dev libpapi-dev libpfm4-dev)

if [ "$(uname -m)" != x86_64 ]; then
	echo "build-hpctoolkit: x86-64 only (Intel XED), not $(uname -m)" >&2
	exit 3
fi

src=${2:-${LOPE_THIRD_PARTY:-}}
if [ -z "$src" ]; then
	beside=$(cd "$here/../../.." && pwd)/shared/third_party
	for d in "$beside" /work/shared/third_party; do
		if [ -d "$d" ]; then
			src=$d
			break
		fi
	done
	if [ -z "$src" ]; then
		echo "build-hpctoolkit: no third-party tarballs: neither $beside nor /work/shared/third_party exists" >&2
		exit 3
	fi
elif [ ! -d "$src" ]; then
	echo "build-hpctoolkit: no third-party tarballs: $src is not a directory" >&2
	exit 3
fi
src=$(cd "$src" && pwd)
while read -r _ f; do
	if [ ! -f "$src/$f" ]; then
		echo "build-hpctoolkit: no third-party tarballs: $f is not in $src" >&2
		exit 3
	fi
done <<<"$sums"
if ! (cd "$src" && sha256sum --quiet -c - <<<"$sums"); then
	echo "build-hpctoolkit: a tarball in $src does not match its sha256" >&2
	exit 1
fi

installed=$(dpkg-query -W -f '${db:Status-Abbrev} ${Package}\n' \
	"${packages[@]}" 2>/dev/null || true)
missing=
for p in "${packages[@]}"; do
	grep -qx "ii  $p" <<<"$installed" || missing+=" $p"
done
if [ -n "$missing" ]; then
	echo "build-hpctoolkit: Debian packages missing (scripts/install-deps.sh):$missing" >&2
	exit 1
fi

mkdir -p "$1"
cache=$(cd "$1" && pwd)
key=$( { echo "$sums"; cat "$self" "$patch"; } | sha256sum | cut -c1-16)
out="$cache/hpctoolkit-$key"
# One build of a key at a time; a second caller waits and takes its result.
exec 4>"$out.lock"
if ! flock -n 4; then
	echo "build-hpctoolkit: waiting for the build of $out" >&2
	flock 4
fi
if [ -f "$out/BUILT" ]; then
	echo "$out" >&3
	exit 0
fi

# The build tree's name is the key's, so a failed or killed build's tree
# (kept to be looked at) is replaced by the next build, not piled up.
work="/var/tmp/build-hpctoolkit-$key"
rm -rf "$out" "$work"
mkdir -p "$out/deps" "$work"
log=
on_exit() {
	if [ -n "$log" ]; then
		tail -n 40 "$log" >&2
		echo "build-hpctoolkit: failed; the log: $log" >&2
	fi
}
trap on_exit EXIT
echo "build-hpctoolkit: building in $work, installing in $out" >&2

multiarch=$(gcc -print-multiarch)
dyninst="$out/deps/dyninst"
libmonitor="$out/deps/libmonitor"

build_dyninst() {
	tar -C "$work" -xf "$src/dyninst-12.3.0.tar.xz"
	cd "$work/dyninst-12.3.0"
	patch -p1 --forward <"$patch"
	# STERILE_BUILD: never download a missing Boost, TBB or elfutils.
	# -O1, not Release's -O2: the tests parse small programs, and the
	# build is a third shorter.
	cmake -S . -B build -DCMAKE_BUILD_TYPE=None -DCMAKE_C_FLAGS=-O1 \
		-DCMAKE_CXX_FLAGS=-O1 -DSTERILE_BUILD=ON \
		-DCMAKE_INSTALL_PREFIX="$dyninst"
	cmake --build build -j2
	cmake --install build
}

# XED is linked statically (libxed.a, hence -fPIC for libhpcrun.so): only
# the build needs it.  mbuild, its build tool, is found beside it.
build_xed() {
	tar -C "$work" -xf "$src/xed-2023.12.19.tar.xz"
	tar -C "$work" -xf "$src/mbuild-2022.07.28.tar.xz"
	mv "$work/mbuild-2022.07.28" "$work/mbuild"
	cd "$work/xed-2023.12.19"
	python3 mfile.py -j2 --extra-flags=-fPIC --prefix="$work/xed" install
}

# The options HPCToolkit asks of libmonitor: it follows dlopen with
# LD_AUDIT itself, and needs its own signals left to it.
build_libmonitor() {
	tar -C "$work" -xf "$src/libmonitor-4852094.tar.xz"
	cd "$work/libmonitor-4852094"
	./configure --prefix="$libmonitor" --disable-dlfcn \
		--enable-client-signals='SIGBUS, SIGSEGV, SIGPROF, 36, 37, 38'
	make -j2
	make install
}

# HPCToolkit's configure takes each prerequisite as a prefix and looks in
# PREFIX/include and PREFIX/lib (or lib64), not in Debian's multiarch
# directory.  deps/debian is such a prefix, with links to the files it
# needs: the libraries' .so, and the archives of libiberty (it has no
# other) and liblzma (hpcprof's Makefile links -llzma before the archives
# that use it, which Debian's GCC, linking --as-needed, then drops; the
# archive comes after them).  libunwind has a prefix of its own: its
# header is in the multiarch include directory, and its archive is left
# out, which configure would link into libhpcrun.so but which is not
# built with -fPIC.  XED's headers are in include/xed.
#
# deps/papi is PAPI's prefix as a site installs it (/opt/papi), with
# libpfm4 beside it (so configure takes perfmon from it and keeps PAPI):
# links to Debian's PAPI, the soname libpapi.so.7.0 among them.  hpcrun
# puts PAPI's library directory in front of LD_LIBRARY_PATH, so it loads
# that soname before any other directory of LD_LIBRARY_PATH, as a site's
# would: our libpapi takes its place by LD_PRELOAD, or by our package,
# which diverts Debian's file that the link names (doc/hpctoolkit.md).
link_prefixes() {
	local d="$out/deps/debian" p="$out/deps/papi" f
	mkdir -p "$d/lib" "$p/lib" "$work/libunwind/lib" "$work/xedp"
	ln -s /usr/include "$d/include"
	ln -s /usr/include "$p/include"
	for f in libboost_graph.so libboost_regex.so libboost_system.so \
		libbz2.so libelf.so libdw.so libiberty.a liblzma.so liblzma.a \
		libtbb.so libtbbmalloc.so libtbbmalloc_proxy.so \
		libxerces-c.so libyaml-cpp.so libz.so; do
		ln -s "/usr/lib/$multiarch/$f" "$d/lib/$f"
	done
	for f in "/usr/lib/$multiarch"/libpapi.so* \
		"/usr/lib/$multiarch"/libpfm.so*; do
		ln -s "$f" "$p/lib/"
	done
	ln -s "/usr/include/$multiarch" "$work/libunwind/include"
	ln -s "/usr/lib/$multiarch/libunwind.so" "$work/libunwind/lib/"
	ln -s "$work/xed/include/xed" "$work/xedp/include"
	ln -s "$work/xed/lib" "$work/xedp/lib"
}

# hpcstruct and hpcprof find Dyninst by their rpath.  -O1 as Dyninst's.
# HPCToolkit's own reader of hpcprof's databases (lib/python/hpctesttool,
# Python; it needs python3-ruamel.yaml) goes to PREFIX/lib/python.
build_hpctoolkit() {
	local d="$out/deps/debian"
	link_prefixes
	tar -C "$work" -xf "$src/hpctoolkit-2024.01.1.tar.xz"
	cd "$work/hpctoolkit-2024.01.1"
	./autogen
	mkdir build
	cd build
	../configure --prefix="$out" \
		--with-boost="$d" --with-bzip="$d" --with-elfutils="$d" \
		--with-libiberty="$d" --with-lzma="$d" --with-papi="$out/deps/papi" \
		--with-tbb="$d" --with-xerces="$d" --with-yaml-cpp="$d" \
		--with-zlib="$d" --with-libunwind="$work/libunwind" \
		--with-dyninst="$dyninst" --with-libmonitor="$libmonitor" \
		--with-xed="$work/xedp" LDFLAGS="-Wl,-rpath,$dyninst/lib" \
		CFLAGS=-O1 CXXFLAGS=-O1
	make -j2
	make install
	mkdir -p "$out/lib/python"
	cp -r ../lib/python/hpctesttool "$out/lib/python/"
}

times=
for part in dyninst xed libmonitor hpctoolkit; do
	log="$work/$part.log"
	echo "build-hpctoolkit: $part (log: $log)" >&2
	t0=$SECONDS
	(build_"$part") >"$log" 2>&1
	times+="$part $((SECONDS - t0)) s"$'\n'
done
log=

printf '%s' "$times" >"$out/BUILT"
cat "$out/BUILT" >&2
rm -rf "$work"
echo "$out" >&3
