#!/usr/bin/env bash
# Fetch PAPI's source (Debian's papi package, 7.x) into third_party/papi-src,
# where configure looks by default.  PAPI is a build dependency only: its
# code is never committed here.
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
dest=$top/third_party/papi-src
if [ -e "$dest/src/papi.h" ]; then
	echo "PAPI source already in $dest"
	exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# Unpacking as root makes apt warn about the _apt sandbox user; harmless.
if ! (cd "$tmp" && apt-get source papi); then
	cat >&2 <<'MSG'
get-papi-src.sh: "apt-get source papi" failed.  If apt said it cannot find
source packages, enable source entries and run "apt-get update":
  - deb822 style (Debian 12 default): in /etc/apt/sources.list.d/debian.sources
    change "Types: deb" to "Types: deb deb-src";
  - classic style: for each "deb URL SUITE COMPONENTS" line in
    /etc/apt/sources.list add the same line starting with "deb-src".
(scripts/install-deps.sh does this.)  apt-get source also needs dpkg-dev.
Or pass configure --with-papi-src=DIR with a PAPI >= 7.0 source tree.
MSG
	exit 1
fi
src=$(find "$tmp" -mindepth 1 -maxdepth 1 -type d -name 'papi-7*' | head -n 1)
[ -n "$src" ] || { echo "get-papi-src.sh: no papi-7.x tree unpacked" >&2; exit 1; }
mkdir -p "$top/third_party"
rm -rf "$dest"
mv "$src" "$dest"
echo "PAPI source ($(basename "$src")) in $dest"
