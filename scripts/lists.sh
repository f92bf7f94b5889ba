#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# lists.sh: the project's lists, read the same way by make ($(shell ...))
# and by the scripts.
#
#   lists.sh words FILE VAR    the words of the make variable VAR as FILE
#                              sets it ("VAR = words", "\" continues a
#                              line): the engine's sources (src/sources.mk)
#   lists.sh tests LIST [ATTR] the tests of LIST (ctests/tests.list), in its
#                              order; with ATTR, only those that have it
#   lists.sh note LIST TEST    the note of TEST's line (after its '#')
#
# A test line is "PATH ATTR... [# note]"; blank lines and lines that start
# with '#' are comments (ctests/tests.list says what the attributes mean).
set -eu

usage() {
	echo "usage: $0 words FILE VAR | tests LIST [ATTR] | note LIST TEST" >&2
	exit 2
}

[ $# -ge 2 ] || usage
what=$1
file=$2
[ -r "$file" ] || {
	echo "lists.sh: cannot read $file" >&2
	exit 1
}

case $what in
words)
	[ $# -eq 3 ] || usage
	awk -v var="$3" '
		!on && $0 ~ "^" var "[ \t]*=" { sub("^" var "[ \t]*=", ""); on = 1 }
		on {
			more = sub(/\\[ \t]*$/, "")
			for (i = 1; i <= NF; i++) print $i
			if (!more) exit
		}' "$file"
	;;
tests)
	[ $# -le 3 ] || usage
	awk -v attr="${3:-}" '
		/^[ \t]*(#|$)/ { next }
		{
			sub(/#.*/, "")
			if (attr == "") { print $1; next }
			for (i = 2; i <= NF; i++)
				if ($i == attr) { print $1; next }
		}' "$file"
	;;
note)
	[ $# -eq 3 ] || usage
	awk -v t="$3" '
		/^[ \t]*#/ { next }
		$1 == t { if (sub(/^[^#]*#[ \t]*/, "")) print; exit }' "$file"
	;;
*)
	usage
	;;
esac
