#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# Bounded libFuzzer runs (doc/testing-sanitize.md): each target in
# ctests/fuzz/fuzz_*.c is built with clang -fsanitize=fuzzer,address,
# undefined, with the engine's sources (src/sources.mk), replays its
# corpus (ctests/fuzz/corpus/<target>/, kept in the repository) and then
# fuzzes for LOPE_FUZZ_TIME seconds (default 20).  New inputs go to a
# temporary directory, never into the corpus; set LOPE_FUZZ_CORPUS_OUT=DIR
# to keep them (DIR/<target>/).  One case per target, named after it
# (fuzz_mmap_read).  A crash or a failed check is one FAIL,
# with the input saved under LOPE_FUZZ_ARTIFACTS (default: ctests/fuzz/ in
# the build tree) as crash-<target>-<hash>.
#
# Longer run, e.g. ten minutes per target on every core:
#	LOPE_FUZZ_TIME=600 LOPE_FUZZ_JOBS=$(nproc) ctests/fuzz/test_fuzz.sh
# Prints PASS/FAIL/SKIP lines (see ctests/lib/report.h).
set -u
here=$(cd "$(dirname "$0")" && pwd)
top=${top_srcdir:-$(cd "$here/../.." && pwd)}
build=${top_builddir:-$top}
arch=$(uname -m)
secs=${LOPE_FUZZ_TIME:-20}
jobs=${LOPE_FUZZ_JOBS:-1}
artifacts=${LOPE_FUZZ_ARTIFACTS:-$build/ctests/fuzz}
flags=(-g -O1 "-fsanitize=fuzzer,address,undefined" -fno-omit-frame-pointer -fno-sanitize-recover=all)

# shellcheck source=../report.sh
. "$here/../report.sh"

cc=${LOPE_FUZZ_CC:-}
if [ -z "$cc" ]; then
	for c in clang clang-14 clang-15 clang-16; do
		if command -v "$c" >/dev/null 2>&1; then
			cc=$c
			break
		fi
	done
fi
need_tool fuzz "${cc:-clang}" "scripts/install-deps.sh installs clang and libclang-rt-dev"
[ -d "$top/src/arch/$arch" ] || {
	skip fuzz "no engine arch directory for $arch"
	exit 0
}

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-fuzz.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT

printf '#include <stddef.h>\n#include <stdint.h>\nint LLVMFuzzerTestOneInput(const uint8_t *d, size_t n) { (void)d; (void)n; return 0; }\n' >"$tmp/probe.c"
if ! out=$("$cc" "${flags[@]}" "$tmp/probe.c" -o "$tmp/probe" 2>&1) ||
	! out=$("$tmp/probe" -runs=1 2>&1); then
	skip fuzz "$cc cannot build or run -fsanitize=fuzzer,address,undefined (libclang-rt-*-dev missing?): $(grep -i -m1 'error' <<<"$out" || sed -n 1p <<<"$out")"
	exit 0
fi
info "$secs s per target"

inc=(-I"$top/src" -I"$top/src/arch/$arch")

# The engine's sources (src/sources.mk), linked with each target.
mapfile -t engine < <(sh "$top/scripts/lists.sh" words "$top/src/sources.mk" \
	LOPE_ENGINE_SRCS | sed "s|^|$top/src/|")

for src in "$here"/fuzz_*.c; do
	t=$(basename "${src%.c}")
	start=$(date +%s)
		if ! "$cc" "${flags[@]}" -Wall -Wextra "${inc[@]}" "$src" "${engine[@]}" \
		-o "$tmp/$t" -lm >"$tmp/build.log" 2>&1; then
		sed 's/^/# | /' "$tmp/build.log" | tail -n 30
		fail "$t" "does not build"
		continue
	fi
	corpus="$here/corpus/$t"
	new="$tmp/new-$t"
	[ -n "${LOPE_FUZZ_CORPUS_OUT:-}" ] && new="$LOPE_FUZZ_CORPUS_OUT/$t"
	mkdir -p "$new" "$tmp/work-$t"
	dict=()
	[ -f "$here/$t.dict" ] && dict=(-dict="$here/$t.dict")
	par=()
	[ "$jobs" -gt 1 ] && par=(-jobs="$jobs" -workers="$jobs")
	nseeds=$(find "$corpus" -type f 2>/dev/null | wc -l)
	# Inputs are written in the harness's TMPDIR (fuzz_sysfs_pmu's tree).
	(cd "$tmp/work-$t" && TMPDIR="$tmp/work-$t" \
		timeout -k 10 $((secs * 3 + 60)) "$tmp/$t" \
		-max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
		-max_len=4096 -print_final_stats=1 "${dict[@]}" \
		-artifact_prefix="$tmp/work-$t/" \
		"${par[@]}" \
		"$new" "$corpus") >"$tmp/$t.log" 2>&1
	rc=$?
	runs=$(grep -m1 -o 'stat::number_of_executed_units: [0-9]*' "$tmp/$t.log" | grep -o '[0-9]*$')
	cov=$(grep -o 'cov: [0-9]*' "$tmp/$t.log" | tail -n 1)
	crash=
	for f in "$tmp/work-$t"/{crash,timeout,oom,leak}-*; do
		[ ! -e "$f" ] || { crash=$f; break; }
	done
	if [ "$rc" -ne 0 ] || [ -n "$crash" ]; then
		grep -E 'ERROR|runtime error|mismatch|check failed|SUMMARY|#[0-9]+ in ' \
			"$tmp/$t.log" | sed -n 1,30p | sed 's/^/# | /'
		why=$(grep -m1 -E 'runtime error|mismatch|check failed|ERROR: [A-Za-z]*Sanitizer|ERROR: libFuzzer' \
			"$tmp/$t.log" | sed 's/^==[0-9]*== *//')
		if [ -n "$crash" ]; then
			mkdir -p "$artifacts"
			kept="$artifacts/crash-$t-$(basename "$crash" | sed 's/^[a-z]*-//')"
			cp "$crash" "$kept"
			echo "# input kept as $kept; replay it with: $cc ${flags[*]} ${inc[*]} $src ${engine[*]} -o $t -lm && ./$t $kept"
			od -A d -c "$kept" | sed -n 1,8p | sed 's/^/# | /'
		fi
		fail "$t" "exit $rc: ${why:-see the log above}"
	else
		pass "$t" "$nseeds seed inputs replayed, ${runs:-?} inputs in $(($(date +%s) - start)) s, $cov"
	fi
done
exit $((nfail > 0))
