#!/usr/bin/env bash
# Put PAPI's source into third_party/papi-src, where configure looks by
# default: the running release's papi source package (`apt-get source
# papi`: 7.0 on Debian 12, 7.1 on Debian 13), or the tree or tarball
# given as the argument.  PAPI is a build dependency only: its code is
# never committed here.  Nothing is left half-made: the tree is moved into
# place only once it is complete.
#
#   scripts/get-papi-src.sh [DIR | papi-X.Y.Z.tar.gz]
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$top/third_party/papi-src
if [ -e "$dest/src/papi.h" ]; then
	echo "PAPI source already in $dest"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

release() {
	. /etc/os-release 2>/dev/null && echo "${PRETTY_NAME:-this system}" || echo "this system"
}

from_apt() {
	local want
	want=$(apt-cache showsrc papi 2>/dev/null | sed -n 's/^Version: //p' | sed -n 1p)
	# Unpacking as root makes apt warn about the _apt sandbox user; harmless.
	if (cd "$tmp" && apt-get source papi) >"$tmp/apt.log" 2>&1; then
		return 0
	fi
	tail -n 5 "$tmp/apt.log" >&2
	cat >&2 <<MSG

get-papi-src.sh: "apt-get source papi" failed on $(release)${want:+,
which has papi $want}.
- If apt said it cannot find a source package: enable source entries and
  run "apt-get update" (scripts/install-deps.sh does both):
    deb822 style (/etc/apt/sources.list.d/debian.sources): "Types: deb deb-src";
    classic style (/etc/apt/sources.list): a "deb-src" line for each "deb" line.
  apt-get source also needs dpkg-dev.
- If the download failed (404, no network): get PAPI's source of the same
  major.minor as the system's libpapi elsewhere (PAPI's release tarball,
  or a checkout of its release tag) and give it to this script or to
  scripts/install-deps.sh --papi-src DIR, or to configure --with-papi-src=DIR.
Nothing was put in $dest.
MSG
	exit 1
}

from_given() {
	local given=$1
	if [ -d "$given" ]; then
		[ -f "$given/src/papi.h" ] || {
			echo "get-papi-src.sh: $given is not a PAPI source tree (no src/papi.h)" >&2
			exit 1
		}
		mkdir "$tmp/papi-given"
		cp -a "$given/." "$tmp/papi-given/"
	elif [ -f "$given" ]; then
		tar -xf "$given" -C "$tmp" || {
			echo "get-papi-src.sh: cannot unpack $given" >&2
			exit 1
		}
	else
		echo "get-papi-src.sh: no such directory or tarball: $given" >&2
		exit 1
	fi
}

if [ $# -gt 0 ]; then
	from_given "$1"
else
	from_apt
fi
src=$(find "$tmp" -mindepth 2 -maxdepth 3 -path '*/src/papi.h' | sed -n 1p)
[ -n "$src" ] || {
	echo "get-papi-src.sh: no PAPI tree (a directory with src/papi.h) found" >&2
	exit 1
}
src=${src%/src/papi.h}
mkdir -p "$top/third_party"
rm -rf "$dest"
mv "$src" "$dest"
echo "PAPI source ($(basename "$src")) in $dest"
