# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by the shell tests: the report protocol of ctests/lib/report.h
# (PASS:/FAIL:/SKIP: lines, "# " info); nfail counts the FAILs.
# A case's name is snake_case (case_name folds one); what the case
# measured goes after a PASS as the information line "# NAME: WHAT".
nfail=0
pass() { # pass NAME [WHAT]
	echo "PASS: $1"
	[ $# -lt 2 ] || info "$1: $2"
}
fail() {
	echo "FAIL: $1: $2"
	nfail=$((nfail + 1))
}
skip() { echo "SKIP: $1: $2"; }
info() { echo "# $*"; }

# case_name WORDS: WORDS folded to a case name as lope_name() folds one:
# letters to lower case, every run of other characters than letters and
# digits to one '_', none at either end ("papi_avail -a" gives
# papi_avail_a).
case_name() {
	local s
	s=$(printf '%s' "${*,,}" | tr -cs 'a-z0-9' '_')
	s=${s#_}
	echo "${s%_}"
}

# need_tool NAME TOOL [WHY]: prints TOOL's version as information, or,
# when TOOL is not installed, the SKIP of the whole script, NAME, saying so
# (and WHY, how to install it), and exits.
need_tool() {
	if ! command -v "$2" >/dev/null 2>&1; then
		skip "$1" "$2 not installed${3:+ ($3)}"
		exit 0
	fi
	info "$("$2" --version | sed -n 1p)"
}

# Puts our PAPI build first on the library path, or fails the case setup
# and exits when the runner did not say where it is.
use_papi_ours() {
	if [ -z "${PAPI_OURS_BUILDDIR:-}" ] || [ ! -d "$PAPI_OURS_BUILDDIR" ]; then
		fail setup "PAPI_OURS_BUILDDIR is not set or not a directory (${PAPI_OURS_BUILDDIR:-unset})"
		exit 1
	fi
	export LD_LIBRARY_PATH="$PAPI_OURS_BUILDDIR${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
}

# Bad input: each line of stdin, "name|arguments|text", is the case
# $2_bad_name: the program $1 run with those arguments (split at blanks)
# exits 2 with the text in its message.  $3: a scratch directory.
expect_bad_inputs() {
	local prog=$1 prefix=$2 dir=$3 name args want rc
	while IFS='|' read -r name args want; do
		# shellcheck disable=SC2086
		"$prog" $args >"$dir/bad.out" 2>"$dir/bad.err"
		rc=$?
		if [ "$rc" -eq 2 ] && grep -qF -- "$want" "$dir/bad.err"; then
			pass "${prefix}_bad_$name"
		else
			fail "${prefix}_bad_$name" "want exit 2 and '$want', got exit $rc: $(head -c 200 "$dir/bad.err")"
		fi
	done
}

# The distinct numbers of fields on the lines of the CSV file $1, commas
# inside double quotes not counted, on one line.
csv_field_counts() {
	awk '{
		n = 1; q = 0
		for (i = 1; i <= length($0); i++) {
			ch = substr($0, i, 1)
			if (ch == "\"") q = !q
			else if (ch == "," && !q) n++
		}
		print n
	}' "$1" | sort -u | tr '\n' ' '
}
