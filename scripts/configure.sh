#!/usr/bin/env bash
# Configure the source tree for an in-tree build unless it is already:
# configure generated, PAPI's source fetched if configure's default
# place has none, ./configure run.  scripts/main.sh and scripts/test.sh
# start with it.  In CI (CI set, as .ci/run runs) warnings are errors:
# --enable-werror, and a tree configured without it is configured again.
set -euo pipefail
cd "$(dirname "$0")/.."
[ -x configure ] || ./autogen.sh
args=()
[ -z "${CI:-}" ] || args=(--enable-werror)
if [ -f Makefile ] && [ ${#args[@]} -gt 0 ] &&
	! grep -q -- "--enable-werror" <<<"$(./config.status --config)"; then
	echo "configure.sh: CI is set: configuring again with --enable-werror"
	rm -f Makefile
fi
if [ ! -f Makefile ]; then
	[ -e third_party/papi-src/src/papi.h ] || scripts/get-papi-src.sh
	./configure "${args[@]}"
fi
