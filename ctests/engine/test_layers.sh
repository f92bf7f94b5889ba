#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_layers.sh: files call each other only downwards, never in a
# circle: read off the symbols of the objects (nm), each object's
# undefined symbols that another object defines are its calls into that
# file.
#   - the engine, in the layer order src/sources.mk gives
#     (LOPE_ENGINE_LAYERS, lowest first), over liblope.a: every file of
#     LOPE_ENGINE_SRCS is in exactly one layer, and every layer's file is
#     an engine file; per file, layer_FILE: it calls no file of its own
#     layer or a higher one (the calls it makes are printed);
#   - the test library, in the order ctests/lib/sources.mk gives
#     (LOPE_TESTLIB_LAYERS), over liblopetest.a and interpose.o, the same
#     way (testlib_layer_FILE).  What interpose.o defines for libc
#     (read(), ioctl() ...: every symbol of it not declared in
#     interpose.h) is no call into it;
#   - each utility (utils/, one program per object prefix: papi_stat-*.o
#     ...): no circle of calls between its files (no_circle_PROGRAM);
#   - each check can fail: with the layers in reverse order it finds calls
#     upwards, and a call added back against a utility's calls makes a
#     circle it finds;
#   - public and internal names are told apart, after libpfm4's pfm_ and
#     pfmlib_: every global symbol of liblope.a is lope_ and declared in
#     src/lope.h, or lopelib_ and not;
#   - no file of the engine, the components, the utilities or the scripts
#     (C, headers, shell) is over 800 lines, so that each reads whole.
# Prints PASS/FAIL/SKIP lines (see ctests/lib/report.h).
set -u
top_srcdir=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
top_builddir=${top_builddir:-$top_srcdir}
# shellcheck source=../report.sh
. "$top_srcdir/ctests/report.sh"

lib=$top_builddir/papi/ours/src/liblope.a
testlib=$top_builddir/ctests/lib/liblopetest.a
interpose=$top_builddir/ctests/lib/interpose.o
need_tool nm nm "binutils"
for f in "$lib" "$testlib" "$interpose"; do
	if [ ! -f "$f" ]; then
		fail setup "$f is not built (make check TESTS=ctests/engine/test_layers.sh builds it)"
		exit 1
	fi
done

# The values of make variables $2... in the make file $1, continuation
# lines joined, one word per line.
mk_words() {
	local mk=$1
	shift
	awk -v v=" $* " '
		index(v, " " $1 " ") && $2 == "=" { on = 1; $1 = ""; $2 = "" }
		on { line = $0; more = sub(/\\[ \t]*$/, "", line)
		     n = split(line, w, /[ \t]+/)
		     for (i = 1; i <= n; i++) if (w[i] != "") print w[i]
		     if (!more) on = 0 }' "$mk"
}

# "FILE LAYER" per line of make variable $2 in $1, layer 1 the lowest.
layers_of() {
	mk_words "$1" "$2" | awk '$1 == "/" { n++; next } { print $1, n + 1 }'
}

# Calls between the objects $2...: "CALLER CALLEE SYMBOL", file names
# (group.c for lope_group.o, with $1, a regular expression, cut from the
# front).  nm -A starts each line with ARCHIVE:MEMBER: or OBJECT:, then
# the address of a defined symbol.
calls_between() {
	local cut=$1
	shift
	nm -A "$@" 2>/dev/null | awk -v cut="$cut" '
		NF != 3 { next }
		{ n = split($1, p, ":"); m = p[n - 1]; sub(/.*\//, "", m)
		  sub(cut, "", m); sub(/\.o$/, ".c", m) }
		$2 == "U" { users[$3] = users[$3] " " m; next }
		$2 ~ /^[TDBRCVW]$/ { def[$3] = m }
		END { for (s in users) { n = split(users[s], u, " ")
			for (i = 1; i <= n; i++)
				if ((s in def) && def[s] != u[i]) print u[i], def[s], s } }' | sort -u
}

# Calls ($2) not downwards, with layer order $1 ("FILE LAYER" lines):
# "CALLER (LAYER) -> CALLEE (LAYER): SYMBOL" per line.
upward() {
	awk 'NR == FNR { layer[$1] = $2; next }
		!($1 in layer) || !($2 in layer) || layer[$2] >= layer[$1] {
			printf "%s (%s) -> %s (%s): %s\n", $1, layer[$1], $2, layer[$2], $3 }' \
		<(echo "$1") <(echo "$2")
}

# check_layers PREFIX WHERE LAYERS SRCS CALLS: every file of SRCS in
# exactly one layer of LAYERS, as WHERE declares them; per file,
# PREFIXlayer_FILE: no call into its own layer or a higher one; and the
# same check with the layers turned upside down finds calls up.
check_layers() {
	local prefix=$1 where=$2 layers=$3 srcs=$4 calls=$5 missing extra bad
	local f name mine reversed nrev
	if [ -z "$layers" ] || [ -z "$srcs" ] || [ -z "$calls" ]; then
		fail "${prefix}setup" "no layers, files or calls: $where, nm"
		return
	fi
	missing=$(awk 'NR == FNR { in_layer[$1]++; next }
		in_layer[$1] != 1 { printf " %s (in %d layers)", $1, in_layer[$1] + 0 }' \
		<(echo "$layers") <(echo "$srcs"))
	extra=$(awk 'NR == FNR { src[$1] = 1; next } !src[$1] { printf " %s", $1 }' \
		<(echo "$srcs") <(echo "$layers"))
	name=${prefix:-every_engine_}${prefix:+every_}file_in_one_layer
	if [ -z "$missing$extra" ]; then
		pass "$name" "$(echo "$layers" | awk '{ a[$2] = a[$2] " " $1 } END { for (i = 1; i in a; i++) printf "%d:%s; ", i, a[i] }')"
	else
		fail "$name" "not in exactly one layer of $where:${missing:- none}; not its files:${extra:- none}"
	fi
	bad=$(upward "$layers" "$calls")
	for f in $srcs; do
		name=${prefix}layer_$(case_name "${f%.c}")
		mine=$(echo "$bad" | awk -v f="$f" '$1 == f')
		if [ -n "$mine" ]; then
			fail "$name" "calls into its own layer or a higher one: $(echo "$mine" | tr '\n' ';')"
		else
			pass "$name" "calls $(echo "$calls" | awk -v f="$f" '$1 == f { a[$2] = 1 } END { for (c in a) printf "%s ", c }')"
		fi
	done
	reversed=$(echo "$layers" | awk '{ print $1, 100 - $2 }')
	nrev=$(upward "$reversed" "$calls" | awk 'END { print NR }')
	if [ "$nrev" -gt 0 ]; then
		pass "${prefix}check_finds_calls_upwards" "$nrev calls upwards with the layers reversed"
	else
		fail "${prefix}check_finds_calls_upwards" "with the layers reversed it found none"
	fi
}

# The engine.
engine_mk=$top_srcdir/src/sources.mk
check_layers "" "LOPE_ENGINE_LAYERS in src/sources.mk" \
	"$(layers_of "$engine_mk" LOPE_ENGINE_LAYERS)" \
	"$(mk_words "$engine_mk" LOPE_ENGINE_SRCS)" \
	"$(calls_between '^lope_' "$lib")"

# The test library.  interpose.o's own names are declared in interpose.h;
# what else it defines is libc's, interposed: a libc call, not a call
# into interpose.c.
testlib_mk=$top_srcdir/ctests/lib/sources.mk
interposed=$(nm -g --defined-only "$interpose" 2>/dev/null | awk 'NF == 3 { print $3 }' |
	awk 'NR == FNR { own[$1] = 1; next } !own[$1]' \
		<(grep -oE '\blope_[a-z0-9_]+' "$top_srcdir/ctests/lib/interpose.h" | sort -u) -)
if [ -n "$interposed" ]; then
	pass testlib_interposed_libc_symbols "not calls: $(echo "$interposed" | tr '\n' ' ')"
else
	fail testlib_interposed_libc_symbols "interpose.o defines nothing beyond interpose.h: nm read nothing?"
fi
testlib_calls=$(calls_between '^$' "$testlib" "$interpose" |
	awk 'NR == FNR { libc[$1] = 1; next } !($2 == "interpose.c" && libc[$3])' \
		<(echo "$interposed") -)
check_layers testlib_ "LOPE_TESTLIB_LAYERS in ctests/lib/sources.mk" \
	"$(layers_of "$testlib_mk" LOPE_TESTLIB_LAYERS)" \
	"$(mk_words "$testlib_mk" LOPE_TESTLIB_SRCS LOPE_TESTLIB_INTERPOSE)" \
	"$testlib_calls"

# The calls ($1: "CALLER CALLEE SYMBOL" lines) that stay once files that
# call none of the others, or that none of them calls, are taken away,
# again and again: those between files on a circle (or between two
# circles); none when the calls have no circle.
circle() {
	echo "$1" | awk '
		NF == 3 && $1 != $2 { e[NR] = $0; from[NR] = $1; to[NR] = $2; node[$1]; node[$2] }
		END {
			do {
				changed = 0
				for (n in node) {
					out = 0; inc = 0
					for (i in e) { out += from[i] == n; inc += to[i] == n }
					if (out && inc)
						continue
					delete node[n]; changed = 1
					for (i in e) if (from[i] == n || to[i] == n) delete e[i]
				}
			} while (changed)
			for (i in e) print e[i] }'
}

# The utilities: one program per object prefix (utils/stat/papi_stat-main.o).
progs=$(find "$top_builddir/utils" -name '*-*.o' -type f 2>/dev/null |
	sed 's|.*/||; s/-.*//' | sort -u)
if [ -z "$progs" ]; then
	fail utils_setup "no objects of the utilities under $top_builddir/utils (make builds them)"
fi
for p in $progs; do
	mapfile -t objs < <(find "$top_builddir/utils" -name "$p-*.o" -type f)
	pcalls=$(calls_between "^$p-" "${objs[@]}")
	on=$(circle "$pcalls")
	if [ -n "$on" ]; then
		fail "no_circle_$(case_name "$p")" "calls on or between circles: $(echo "$on" | awk '{ print $1 " -> " $2 }' | sort -u | tr '\n' ';')"
	else
		pass "no_circle_$(case_name "$p")" "${#objs[@]} files, $(echo "$pcalls" | awk 'NF == 3 { print $1, $2 }' | sort -u | awk 'END { print NR }') pairs calling"
	fi
	# The check can fail: the first call turned back makes a circle.
	back=$(echo "$pcalls" | awk 'NF == 3 { print $2, $1, "back"; exit }')
	if [ -n "$back" ] && [ -n "$(circle "$pcalls"$'\n'"$back")" ]; then
		pass "no_circle_check_finds_$(case_name "$p")" "a circle with $back"
	else
		fail "no_circle_check_finds_$(case_name "$p")" "no circle found with a call turned back (${back:-no calls})"
	fi
done

# Public names (lope_, in lope.h) and internal ones (lopelib_).
misnamed=$(nm -g --defined-only "$lib" 2>/dev/null | awk 'NF == 3 { print $3 }' |
	sort -u | awk 'NR == FNR { pub[$1] = 1; next }
		/^lope_/ && !pub[$1] { printf "%s (lope_, not in lope.h) ", $1; next }
		/^lopelib_/ && pub[$1] { printf "%s (lopelib_, in lope.h) ", $1; next }
		!/^lope_/ && !/^lopelib_/ { printf "%s (neither) ", $1 }' \
		<(grep -oE '\blope(lib)?_[a-z0-9_]+' "$top_srcdir/src/lope.h" | sort -u) -)
if [ -z "$misnamed" ]; then
	pass public_and_internal_names "$(nm -g --defined-only "$lib" | awk 'NF == 3 && $3 ~ /^lope_/ { p++ } NF == 3 && $3 ~ /^lopelib_/ { i++ } END { printf "%d public, %d internal", p, i }')"
else
	fail public_and_internal_names "$misnamed"
fi

# Files a newcomer reads whole: none over 800 lines.
long=$(cd "$top_srcdir" && find src components utils scripts \
	\( -name '*.c' -o -name '*.h' -o -name '*.sh' \) -type f \
	-exec awk 'FNR == 1 && NR > 1 { if (n > 800) printf "%s (%d) ", f, n }
		{ f = FILENAME; n = FNR }
		END { if (n > 800) printf "%s (%d) ", f, n }' {} +)
if [ -z "$long" ]; then
	pass files_at_most_800_lines
else
	fail files_at_most_800_lines "over 800 lines: $long"
fi

[ "$nfail" -eq 0 ]
