#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# check-release.sh [options] RELEASE: the README's two commands on a fresh
# Debian system, as a new user would run them, and the package installed
# and removed there (doc/releases.md).  As root (debootstrap, chroot):
#   1. debootstrap --variant=minbase RELEASE (bookworm, trixie) into
#      WORK/RELEASE (emptied first), from the host's Debian mirror;
#   2. clone this repository's HEAD into the new system's CLONE (default
#      /root/lope: root's home, mode 700);
#   3. there, scripts/install-deps.sh && scripts/main.sh (the first
#      command), then scripts/test.sh (the second; not with --no-suite);
#   4. make deb there, and ctests/release/test_deb_install.sh on it:
#      install, Debian's papi_component_avail on ours, remove, purge.
# Reports in the suite's format, one case a step ("[trixie] main_job"),
# the nested suite's summary as information; the last line is
# "N passed, N failed, N skipped".  Logs stay in WORK/RELEASE.logs/; the
# system is removed at the end (its mounts first).
#
# Options:
#   --papi-src DIR   PAPI's source for install-deps.sh --papi-src (where the
#                    release's `apt-get source papi` cannot be had); copied
#                    into the new system
#   --clone DIR      where to clone in the new system (default /root/lope)
#   --work DIR       where the systems go (default /var/tmp/lope-releases)
#   --env VAR=VALUE  for the nested commands (LOPE_GUEST=0, say); repeatable
#   --no-suite       leave out scripts/test.sh (as ctests/release/test_release.sh does in CI)
#   --keep           leave the system and its mounts for a look afterwards
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
. "$top/ctests/report.sh"

usage() {
	echo "usage: $0 [--papi-src DIR] [--clone DIR] [--work DIR] [--env VAR=VALUE]... [--keep] RELEASE" >&2
	exit 2
}

papi_src='' clone=/root/lope work=/var/tmp/lope-releases keep=0 suite=1
envs=()
while [ $# -gt 1 ]; do
	case $1 in
	--papi-src) papi_src=$(cd "$2" && pwd) || usage ;;
	--clone) clone=$2 ;;
	--work) work=$2 ;;
	--env) envs+=("$2") ;;
	--keep | --no-suite)
		[ "$1" = --keep ] && keep=1 || suite=0
		shift
		continue
		;;
	*) usage ;;
	esac
	shift 2
done
[ $# -eq 1 ] || usage
rel=$1
case $rel in
bookworm | trixie) ;;
-h | --help)
	sed -n '4,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'
	exit 0
	;;
*)
	echo "check-release.sh: RELEASE is bookworm (Debian 12) or trixie (Debian 13), not '$rel'" >&2
	usage
	;;
esac
root=$work/$rel
logs=$work/$rel.logs
tag="[$rel]"

summary() {
	echo "$npass passed, $nfail failed, $nskip skipped"
	exit $((nfail > 0))
}
npass=0 nskip=0
pass() {
	echo "PASS: $1"
	[ $# -lt 2 ] || info "$1: $2"
	npass=$((npass + 1))
}
skip() {
	echo "SKIP: $1: $2"
	nskip=$((nskip + 1))
}

if [ "$(id -u)" -ne 0 ]; then
	skip "$tag release_check" "needs root (debootstrap, chroot)"
	summary
fi
for t in debootstrap git; do
	command -v "$t" >/dev/null || {
		skip "$tag release_check" "$t not installed (Debian: apt-get install $t)"
		summary
	}
done

mirror=$("$top/scripts/debian-mirror.sh")

mounts=(proc sys dev dev/pts)
unmount() {
	local i
	for ((i = ${#mounts[@]} - 1; i >= 0; i--)); do
		mountpoint -q "$root/${mounts[i]}" && umount "$root/${mounts[i]}"
	done
}
# Never rm -rf a system with /dev or /proc bound in it: unmount first,
# and stay on its file system.
remove_root() {
	local m
	unmount
	for m in "${mounts[@]}"; do
		if mountpoint -q "$root/$m"; then
			echo "check-release.sh: $root/$m still mounted: not removing $root" >&2
			return 1
		fi
	done
	rm -rf --one-file-system "$root"
}
# shellcheck disable=SC2317 # the EXIT trap runs it
cleanup() {
	[ "$keep" = 1 ] || remove_root
}
trap cleanup EXIT

# in_root LOG CMD: CMD (a shell command) as root in the new system, from
# the clone, with the --env variables; its output into LOG.
in_root() {
	local log=$1
	shift
	chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
		PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
		LANG=C.UTF-8 "${envs[@]}" bash -c "cd '$clone' && $*" >"$log" 2>&1
}

# step NAME LOG CMD: the case NAME, passed when CMD exits 0.
step() {
	local name=$1 log=$2 t0=$SECONDS rc=0
	shift 2
	in_root "$log" "$@" || rc=$?
	if [ "$rc" -eq 0 ]; then
		pass "$tag $name" "$((SECONDS - t0)) s"
		return 0
	fi
	fail "$tag $name" "exit $rc after $((SECONDS - t0)) s; last line: $(tail -n 1 "$log") (log: $log)"
	return 1
}

# 1. A fresh system.
remove_root || exit 1
rm -rf "$logs"
mkdir -p "$root" "$logs"
t0=$SECONDS
if ! debootstrap --variant=minbase "$rel" "$root" "$mirror" >"$logs/debootstrap.log" 2>&1; then
	fail "$tag debootstrap" "$(tail -n 1 "$logs/debootstrap.log") (log: $logs/debootstrap.log)"
	summary
fi
for m in "${mounts[@]}"; do
	mount --bind "/$m" "$root/$m"
done
cp /etc/resolv.conf "$root/etc/resolv.conf"
# shellcheck source=/dev/null # the new system's
info "$tag $(. "$root/etc/os-release" && echo "$PRETTY_NAME"), $mirror, in $((SECONDS - t0)) s"

# 2. The clone, as a user's (from the host: git is the user's, not ours).
mkdir -p "$root$(dirname "$clone")"
git clone -q "$top" "$root$clone" || {
	fail "$tag clone" "git clone into $root$clone failed"
	summary
}
given=
if [ -n "$papi_src" ]; then
	cp -a "$papi_src" "$root/var/tmp/papi-src"
	given=" --papi-src /var/tmp/papi-src"
fi
info "$tag clone in $clone (HEAD $(git -C "$top" rev-parse --short HEAD))${given:+, PAPI from $papi_src}"

# 3. The README's two commands.
if step main_job "$logs/main.log" "scripts/install-deps.sh$given && scripts/main.sh"; then
	if grep -q 'Fast counter read (rdpmc)' "$logs/main.log" &&
		grep -q '^PAPI_read' "$logs/main.log"; then
		pass "$tag main_job_tables"
	else
		fail "$tag main_job_tables" "no papi_avail header or per-call table in $logs/main.log"
	fi
fi
if [ "$suite" = 0 ]; then
	skip "$tag test_suite" "left out (--no-suite)"
elif [ -f "$root$clone/Makefile" ]; then
	step test_suite "$logs/test.log" "scripts/test.sh"
	info "$tag suite: $(tail -n 1 "$logs/test.log")"
	grep '^FAIL' "$logs/test.log" | sed -n 1,30p | sed "s/^/# $tag /"
else
	skip "$tag test_suite" "not built: the first command failed"
fi

# 4. The package.
if [ -f "$root$clone/Makefile" ] &&
	step package "$logs/deb.log" "make deb"; then
	deb= # the newest package in the clone
	for f in "$root$clone"/*.deb; do
		[ -e "$f" ] || continue
		if [ -z "$deb" ] || [ "$f" -nt "$deb" ]; then deb=$f; fi
	done
	"$top/ctests/release/test_deb_install.sh" "$root" "$deb" \
		>"$logs/deb-install.log" 2>&1
	while IFS= read -r line; do
		case $line in
		PASS:*) pass "$tag deb.${line#PASS: }" ;;
		FAIL:*)
			line=${line#FAIL: }
			fail "$tag deb.${line%%: *}" "${line#*: }"
			;;
		SKIP:*)
			line=${line#SKIP: }
			skip "$tag deb.${line%%: *}" "${line#*: }"
			;;
		"# "*) echo "$line" ;;
		esac
	done <"$logs/deb-install.log"
fi
summary
