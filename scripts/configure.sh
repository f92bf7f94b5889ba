#!/usr/bin/env bash
# Configure the source tree for an in-tree build unless it is already:
# configure generated, PAPI's source fetched if configure's default
# place has none, ./configure run.  scripts/main.sh and scripts/test.sh
# start with it.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh
if [ ! -f Makefile ]; then
	[ -e third_party/papi-src/src/papi.h ] || scripts/get-papi-src.sh
	./configure
fi
