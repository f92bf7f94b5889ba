#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run-papi-ctests.sh: the suite papi of scripts/peer-ctests.sh, PAPI's own
# tests in the tree: the list PAPI's run_tests.sh builds (validation_tests,
# ctests, ftests, components/*/tests, minus run_tests_exclude.txt), each
# run from the root of the tree as run_tests.sh runs it (or, with
# PEER_RESULTS, taken from where it ran).
#
#   run-papi-ctests.sh NAME DIR   run them (common.sh: the protocol)
#   run-papi-ctests.sh --list DIR print them, one a line
# shellcheck source=scripts/peer/common.sh
. "$(dirname "$0")/common.sh"

# The list run_tests.sh builds, in its order, minus its exclusions.
list_tests() {
	(
		cd "$1" || exit 1
		{
			find validation_tests/* -prune -perm -u+x -type f ! -name "*.[c|h]"
			find ctests/* -prune -perm -u+x -type f ! -name "*.[c|h]"
			find ftests -perm -u+x -type f ! -name "*.[c|h|F]"
			find components/*/tests -perm -u+x -type f \
				! \( -name "*.[c|h]" -o -name "*.cu" -o -name "*.so" \)
		} 2>/dev/null | grep -vxF -f <(grep -v -e '^#' -e '^$' run_tests_exclude.txt)
	)
}

run_papi() { # run_papi NAME DIR
	local name=$1 dir=$2 t ld
	while read -r t; do
		[ -n "$t" ] || continue
		selected "$t" || continue
		ld=.:./libpfm-3.y/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
		case $t in
		components/sde/*)
			ld=$ld:$dir/components/sde/sde_lib:$dir/components/sde/tests/lib ;;
		esac
		run_papi_test "$PEER_TMP/$name.tsv" "$t" "$PEER_TMP/$name" "$dir" "$ld" "$t"
		# High-level tests leave their output directory behind.
		case $t in *_hl*) rm -rf "$dir/papi_hl_output" ;; esac
	done < <(list_tests "$dir")
}

if [ "$1" = --list ]; then
	list_tests "$2"
else
	run_papi "$1" "$2"
fi
