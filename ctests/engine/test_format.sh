#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Our C sources follow the top-level .clang-format: one case per file of
# the engine, the components, the tests and the utilities, checked with
# `clang-format --dry-run --Werror`.  Fix with
#	clang-format -i FILE
# Prints PASS/FAIL/SKIP lines (see ctests/lib/report.h).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
cf=${CLANG_FORMAT:-clang-format}

if ! command -v "$cf" >/dev/null 2>&1; then
	echo "SKIP: clang_format: clang-format not installed"
	exit 0
fi
if [ ! -f "$top/.clang-format" ]; then
	echo "FAIL: clang_format: $top/.clang-format missing"
	exit 1
fi
echo "# $("$cf" --version)"

fail=0
cd "$top" || exit 1
for f in src/*.c src/*.h src/arch/*/*.h components/*/*.c components/*/*.h \
	ctests/*.h ctests/*/*.c ctests/*/*.h utils/*.c utils/*.h utils/*/*.c \
	utils/*/*.h; do
	[ -e "$f" ] || continue
	name=clang_format_${f//[^A-Za-z0-9]/_}
	name=${name,,}
	if out=$("$cf" --style=file --dry-run --Werror "$f" 2>&1); then
		echo "PASS: $name"
	else
		n=$(printf '%s\n' "$out" | grep -c 'error:')
		first=$(printf '%s\n' "$out" | grep -m1 'error:' |
			sed "s|^$top/||")
		echo "FAIL: $name: $n place(s) differ, first: $first"
		fail=1
	fi
done
exit "$fail"
