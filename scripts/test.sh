#!/usr/bin/env bash
# Build (as scripts/main.sh does; in CI with warnings as errors: see
# scripts/configure.sh) and run every test with `make check`.
# The last line printed is the runner's "N passed, N failed, N skipped";
# the exit status is non-zero if anything failed.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/configure.sh
# A failed build still ends with a summary line, counting as one failure.
if ! make -j2; then
	echo "test.sh: the build failed"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
# make adds its own lines after a failing runner; keep them, but finish
# with the runner's summary.
rc=0
make -s --no-print-directory check 2>&1 | tee "$log" || rc=$?
summary=$(grep -E '^[0-9]+ passed, [0-9]+ failed, [0-9]+ skipped$' "$log" | tail -n 1 || true)
if [ -z "$summary" ]; then
	echo "test.sh: make check failed before the test runner's summary (exit $rc)"
	echo "0 passed, 1 failed, 0 skipped"
	exit 1
fi
[ "$(tail -n 1 "$log")" = "$summary" ] || echo "$summary"
case $summary in
*" 0 failed,"*) exit "$rc" ;;
*) exit 1 ;;
esac
