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
. "$top/ctests/report.sh"
cf=${CLANG_FORMAT:-clang-format}

need_tool clang_format "$cf" "scripts/install-deps.sh installs it"
# The sources are laid out as Debian 12's and 13's clang-format (14 and 19)
# both lay them out; other versions differ in details (where a function's
# attributes go, how a braced macro is wrapped), which are not ours to fix.
major=$("$cf" --version | sed -n 's/.*clang-format version \([0-9]*\).*/\1/p')
case $major in
14 | 19) ;;
*)
	skip clang_format "$cf is version ${major:-unknown}; the sources are checked with 14 and 19 (Debian 12's and 13's): set CLANG_FORMAT to one of those"
	exit 0
	;;
esac
if [ ! -f "$top/.clang-format" ]; then
	fail clang_format "$top/.clang-format missing"
	exit 1
fi

cd "$top" || exit 1
for f in src/*.c src/*.h src/arch/*/*.h components/*/*.c components/*/*.h \
	ctests/*.h ctests/*/*.c ctests/*/*.h utils/*.c utils/*.h utils/*/*.c \
	utils/*/*.h; do
	[ -e "$f" ] || continue
	name=clang_format_${f//[^A-Za-z0-9]/_}
	name=${name,,}
	if out=$("$cf" --style=file --dry-run --Werror "$f" 2>&1); then
		pass "$name"
	else
		n=$(printf '%s\n' "$out" | grep -c 'error:')
		first=$(printf '%s\n' "$out" | grep 'error:' | sed -n 1p |
			sed "s|^$top/||")
		fail "$name" "$n place(s) differ, first: $first"
	fi
done
[ "$nfail" -eq 0 ]
