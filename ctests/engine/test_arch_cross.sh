#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# The engine must build for the other architectures too: compile its
# sources (src/sources.mk) and the engine unit tests, which include the
# arch header, for aarch64 and riscv64 with -Wall -Wextra -Werror, where
# the cross compiler is installed.
# Prints PASS/FAIL/SKIP lines (see ctests/lib/report.h).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)

# shellcheck source=../report.sh
. "$top/ctests/report.sh"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-cross.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

compile() { # name, source, extra flags...
	local name=$1 src=$2
	shift 2
	if "$cc" -std=gnu11 -O2 -Wall -Wextra -Werror \
		-I"$top/src" -I"$top/src/arch/$arch" "$@" \
		-c "$src" -o "$tmp/$(basename "$src" .c).o" 2>"$tmp/err"; then
		pass "$name"
	else
		fail "$name" "$(grep -m1 -E 'error|warning' "$tmp/err" || head -n1 "$tmp/err")"
		sed 's/^/# /' "$tmp/err" | sed -n 1,20p
	fi
}

# cross ARCH CC: the engine and its unit tests for ARCH.
cross() {
	local n=0 src t
	arch=$1 cc=$2
	command -v "$cc" >/dev/null 2>&1 || {
		skip "cross_compile_$arch" "$cc not installed (the $arch cross compiler: scripts/install-deps.sh installs it)"
		return
	}
	for src in $(sh "$top/scripts/lists.sh" words "$top/src/sources.mk" LOPE_ENGINE_SRCS); do
		compile "cross_compile_${arch}_src_${src//[^a-z0-9]/_}" "$top/src/$src"
		n=$((n + 1))
	done
	if [ "$n" -eq 0 ]; then
		fail "cross_compile_$arch" "no source in $top/src/sources.mk"
		return
	fi
	for t in $(sh "$top/scripts/lists.sh" tests "$top/ctests/tests.list" |
		grep '^ctests/engine/' | grep -v '\.sh$'); do
		compile "cross_compile_${arch}_${t//[^a-z0-9]/_}_c" "$top/$t.c" -I"$top/ctests/lib"
	done
}

cross aarch64 "${LOPE_CROSS_CC:-aarch64-linux-gnu-gcc}"
cross riscv64 "${LOPE_CROSS_CC_RISCV64:-riscv64-linux-gnu-gcc}"
exit $((nfail > 0))
