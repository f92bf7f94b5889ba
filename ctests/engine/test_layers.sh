#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_layers.sh: the engine's files call each other only downwards, in
# the layer order src/sources.mk gives (LOPE_ENGINE_LAYERS, lowest
# first): read off the symbols of liblope.a's objects (nm), each object's
# undefined symbols that another object defines are its calls into that
# file.
#   - every file of LOPE_ENGINE_SRCS is in exactly one layer, and every
#     layer's file is an engine file;
#   - per file, layer_FILE: it calls no file of its own layer or a higher
#     one (the calls it makes are printed);
#   - the check can fail: with the layers in reverse order it finds calls
#     upwards;
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
need_tool nm nm "binutils"
if [ ! -f "$lib" ]; then
	fail setup "$lib is not built (make builds it)"
	exit 1
fi

# The value of make variable $1 in src/sources.mk, continuation lines
# joined, one word per line.
mk_words() {
	awk -v v="$1" '
		$1 == v && $2 == "=" { on = 1; $1 = ""; $2 = "" }
		on { line = $0; more = sub(/\\[ \t]*$/, "", line)
		     n = split(line, w, /[ \t]+/)
		     for (i = 1; i <= n; i++) if (w[i] != "") print w[i]
		     if (!more) on = 0 }' "$top_srcdir/src/sources.mk"
}

# "FILE LAYER" per line, layer 1 the lowest.
layers=$(mk_words LOPE_ENGINE_LAYERS | awk '$1 == "/" { n++; next } { print $1, n + 1 }')
srcs=$(mk_words LOPE_ENGINE_SRCS)
if [ -z "$layers" ] || [ -z "$srcs" ]; then
	fail setup "no LOPE_ENGINE_LAYERS or LOPE_ENGINE_SRCS in src/sources.mk"
	exit 1
fi

missing=$(awk 'NR == FNR { in_layer[$1]++; next }
	in_layer[$1] != 1 { printf " %s (in %d layers)", $1, in_layer[$1] + 0 }' \
	<(echo "$layers") <(echo "$srcs"))
extra=$(awk 'NR == FNR { src[$1] = 1; next } !src[$1] { printf " %s", $1 }' \
	<(echo "$srcs") <(echo "$layers"))
if [ -z "$missing$extra" ]; then
	pass every_engine_file_in_one_layer "$(echo "$layers" | awk '{ a[$2] = a[$2] " " $1 } END { for (i = 1; i in a; i++) printf "%d:%s; ", i, a[i] }')"
else
	fail every_engine_file_in_one_layer "not in exactly one layer:${missing:- none}; not engine files:${extra:- none}"
fi

# Calls between the objects: "CALLER CALLEE SYMBOL", file names (group.c
# for lope_group.o).  nm -A starts each line with ARCHIVE:MEMBER:, then the
# address of a defined symbol.
calls=$(nm -A "$lib" 2>/dev/null | awk '
	NF != 3 { next }
	{ n = split($1, p, ":"); m = p[n - 1]; sub(/^lope_/, "", m); sub(/\.o$/, ".c", m) }
	$2 == "U" { users[$3] = users[$3] " " m; next }
	$2 ~ /^[TDBRCVW]$/ { def[$3] = m }
	END { for (s in users) { n = split(users[s], u, " ")
		for (i = 1; i <= n; i++)
			if ((s in def) && def[s] != u[i]) print u[i], def[s], s } }' | sort -u)
if [ -z "$calls" ]; then
	fail setup "no calls between the objects of $lib: nm read nothing"
	exit 1
fi

# Calls not downwards, with layer order $1 ("FILE LAYER" lines): "CALLER
# (LAYER) -> CALLEE (LAYER): SYMBOL" per line.
upward() {
	awk 'NR == FNR { layer[$1] = $2; next }
		!($1 in layer) || !($2 in layer) || layer[$2] >= layer[$1] {
			printf "%s (%s) -> %s (%s): %s\n", $1, layer[$1], $2, layer[$2], $3 }' \
		<(echo "$1") <(echo "$calls")
}

bad=$(upward "$layers")
for f in $srcs; do
	name=layer_$(case_name "${f%.c}")
	mine=$(echo "$bad" | awk -v f="$f" '$1 == f')
	if [ -n "$mine" ]; then
		fail "$name" "calls into its own layer or a higher one: $(echo "$mine" | tr '\n' ';')"
	else
		pass "$name" "calls $(echo "$calls" | awk -v f="$f" '$1 == f { a[$2] = 1 } END { for (c in a) printf "%s ", c }')"
	fi
done

# The same check, the layers turned upside down: it must find calls up.
reversed=$(echo "$layers" | awk '{ print $1, 100 - $2 }')
nrev=$(upward "$reversed" | awk 'END { print NR }')
if [ "$nrev" -gt 0 ]; then
	pass check_finds_calls_upwards "$nrev calls upwards with the layers reversed"
else
	fail check_finds_calls_upwards "with the layers reversed it found none"
fi

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
