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
# The x86-64 machine's QEMU (ctests/guest/build-qemu-x86.sh) and then
# HPCToolkit (ctests/hpctoolkit/build-hpctoolkit.sh) build in the
# background while the host's tests run, which leave a CPU idle; their
# tests come late in the list and wait for these builds (or make their
# own if one failed).  QEMU only where that machine runs (guests not off),
# HPCToolkit unless LOPE_HPCTOOLKIT is 0 or names a prefix; both on an
# amd64 host, cached in LOPE_QEMU_CACHE and LOPE_HPCTOOLKIT_CACHE (the
# first's value, /var/cache/lope by default).
build_log=$PWD/guest/build-background.log
qemu_cache=${LOPE_QEMU_CACHE:-/var/cache/lope}
if [ "$(dpkg --print-architecture 2>/dev/null)" = amd64 ]; then
	builds=()
	[ "${LOPE_GUEST:-1}" = 0 ] || [ -n "${LOPE_X86_QEMU:-}" ] ||
		builds+=(ctests/guest/build-qemu-x86.sh "$qemu_cache")
	[ -n "${LOPE_HPCTOOLKIT:-}" ] ||
		builds+=(ctests/hpctoolkit/build-hpctoolkit.sh
			"${LOPE_HPCTOOLKIT_CACHE:-$qemu_cache}")
	if [ ${#builds[@]} -gt 0 ]; then
		mkdir -p guest
		# shellcheck disable=SC2016 # the inner bash expands them
		setsid nice bash -c 'while [ $# -gt 1 ]; do "$1" "$2"; shift 2; done' \
			_ "${builds[@]}" >"$build_log" 2>&1 &
		build_pid=$!
	fi
fi
log=$(mktemp)
# (its own process group: a build still running at the end is stopped
# whole)
trap 'rm -f "$log"; [ -z "${build_pid:-}" ] || kill -- "-$build_pid" 2>/dev/null || true' EXIT
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
