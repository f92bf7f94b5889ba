#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_shell.sh: every shell script of the project (git's list: *.sh and
# files whose first line runs sh or bash) is clean for shellcheck, and
# none puts a reader that may stop early behind a pipe.
#
# `echo "$LIST" | grep -q X` under `set -o pipefail` fails now and then:
# grep -q exits at its first match, the writer gets SIGPIPE, and the pipe
# reports it (7 in 20,000 on a loaded machine, which once took a whole
# emulated machine's cases with it).  So in every script, pipefail or not
# (a sourced file runs under its caller's options), nothing after a '|'
# is head, nor a grep with -q, -m or -l: read a variable with a
# here-string (grep -q X <<<"$LIST"), a file by name, or take the first
# line with sed -n 1p, which reads to the end.
#
# Each script is checked with the top directory's .shellcheckrc (sourced
# files followed, named relative to each script), as a plain `shellcheck
# FILE` there checks it.
#
# Cases: pipe_check_flags_known_bad (the check itself can fail), and per
# script shellcheck_PATH and pipes_PATH.  Exclusions are made in the
# scripts, each with its reason beside it.
set -u
top=${top_srcdir:-$(cd "$(dirname "$0")/../.." && pwd)}
# shellcheck source=../report.sh
. "$top/ctests/report.sh"

if ! git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1; then
	skip shell "$top is not a git checkout: the list of the project's scripts is git's"
	exit 0
fi

# early_exit_pipes FILE...: FILE:LINE: TEXT for each command with an
# early-exit reader behind a pipe (continued lines joined; comments,
# here-documents' text and '||' left alone).
early_exit_pipes() {
	awk '
	FNR == 1 { buf = ""; doc = "" }
	doc != "" {
		l = $0
		if (strip) sub(/^\t+/, "", l)
		if (l == doc) doc = ""
		next
	}
	{
		if (match($0, /(^|[^<])<<-?[ \t]*["\047]?[A-Za-z_][A-Za-z_0-9]*/)) {
			h = substr($0, RSTART, RLENGTH)
			strip = h ~ /<<-/
			sub(/^[^<]*<<-?[ \t]*["\047]?/, "", h)
			doc = h
		}
		if (buf == "") start = FNR
		buf = buf " " $0
		if ($0 ~ /(\\|[^|]\||\|\||&&)[ \t]*$/) next
		s = buf; buf = ""
		if (s ~ /^[ \t]*#/) next
		if (s ~ /(^|[^|])\|[ \t]*(head([ \t]|$)|grep[ \t]([^|;&]*[ \t])?(-[A-Za-z0-9]*[qml]|--quiet|--silent|--max-count|--files-with))/)
			printf "%s:%d:%s\n", FILENAME, start, s
	}' "$@"
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-shell.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

# The check must see what it is for, and only that.
cat >"$tmp/bad" <<'EOF'
echo "$list" | grep -qxF "$t"
printf '%s\n' "$out" |
	head -n 1
x=$(cmd | grep -F -m1 y)
cmd | sort | grep -E -l z
EOF
cat >"$tmp/good" <<'EOF'
grep -qxF "$t" <<<"$list"
cmd || head -n 1 file
grep -m1 x file | sed -n 1p
# echo "$list" | grep -q x
cmd | grep -c x
EOF
bad=$(early_exit_pipes "$tmp/bad" | wc -l)
good=$(early_exit_pipes "$tmp/good")
if [ "$bad" -eq 4 ] && [ -z "$good" ]; then
	pass pipe_check_flags_known_bad "4 of 4 bad pipes found, none of 5 good lines"
else
	fail pipe_check_flags_known_bad "found $bad of 4 bad pipes; good lines flagged: ${good:-none}"
fi

scripts=()
while IFS= read -r f; do
	[ -f "$top/$f" ] || continue
	case $f in
	*.sh) scripts+=("$f") ;;
	*)
		IFS= read -r first <"$top/$f" || true
		case $first in
		'#!'*[/\ ]sh | '#!'*[/\ ]sh\ * | '#!'*bash*) scripts+=("$f") ;;
		esac
		;;
	esac
done < <(git -C "$top" ls-files)
info "${#scripts[@]} shell scripts"

have_shellcheck=1
if ! command -v shellcheck >/dev/null 2>&1; then
	have_shellcheck=0
	why="shellcheck not installed (Debian: shellcheck; scripts/install-deps.sh installs it)"
else
	info "$(shellcheck --version | sed -n 's/^version: /shellcheck /p')"
fi

# Check FILE with shellcheck, once more when its runtime could not start its
# timer (timer_create: Resource temporarily unavailable, seen on a
# loaded machine): that is no finding about the script.
check() {
	out=$(shellcheck -f gcc "$1" 2>&1) && return 0
	case $out in
	*timer_create*) out=$(shellcheck -f gcc "$1" 2>&1) ;;
	*) return 1 ;;
	esac
}

cd "$top" || exit 1
for f in "${scripts[@]}"; do
	c=$(case_name "$f")
	if [ "$have_shellcheck" = 0 ]; then
		skip "shellcheck_$c" "$why"
	elif check "$f"; then
		pass "shellcheck_$c"
	else
		fail "shellcheck_$c" "$(echo "$out" | sed -n 1,3p | tr '\n' ' ')"
	fi
	hits=$(early_exit_pipes "$f")
	if [ -z "$hits" ]; then
		pass "pipes_$c"
	else
		fail "pipes_$c" "an early-exit reader behind a pipe: $(echo "$hits" | tr -s ' \t' ' ' | tr '\n' ' ' | cut -c1-300)"
	fi
done
[ "$nfail" -eq 0 ]
