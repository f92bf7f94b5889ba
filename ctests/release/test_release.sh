#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# run-tests.sh: timeout 1800
#
# test_release.sh: the other Debian release than this machine's (13 on
# Debian 12, 12 on Debian 13), made fresh with debootstrap: the README's
# first command there, from a clone in root's home, and the package built
# and installed there (scripts/check-release.sh --no-suite; doc/releases.md
# has the whole check, the test suite in both releases included, and when
# it was run).  PAPI's source there is the one this build was configured
# with (the other release's `apt-get source papi` cannot be relied on:
# Debian 13's source files answer 404 on this project's machines), so it
# also builds that PAPI with the other release's compiler; where that
# PAPI is not the other release's (7.0 in Debian 13, whose libpapi is
# 7.1), the package must refuse to install, and does.
#
# About 2 to 3 minutes and 1 GB of downloads: it runs where CI is set (as
# .ci/run sets it) or LOPE_RELEASE_CHECK=1, else one SKIP saying so.  As
# root, with debootstrap (scripts/install-deps.sh installs it).
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/ctests/report.sh"

# Bad arguments are refused before anything is made or mounted.
tmp=$(mktemp -d)
expect_bad_inputs "$top/scripts/check-release.sh" check_release "$tmp" <<'BAD'
release|buster|RELEASE is bookworm (Debian 12) or trixie (Debian 13), not 'buster'
option_as_release|--keep|not '--keep'
option|--what trixie|usage:
BAD
rm -rf "$tmp"

if [ -z "${CI:-}" ] && [ "${LOPE_RELEASE_CHECK:-0}" != 1 ]; then
	skip release_check "runs in CI or with LOPE_RELEASE_CHECK=1 (2 to 3 minutes, 1 GB of downloads); the whole check: scripts/check-release.sh RELEASE"
	exit 0
fi
if [ "$(id -u)" -ne 0 ]; then
	skip release_check "needs root (debootstrap, chroot)"
	exit 0
fi
need_tool release_check debootstrap "scripts/install-deps.sh installs it"

case $(. /etc/os-release && echo "${VERSION_CODENAME:-}") in
bookworm) other=trixie ;;
trixie) other=bookworm ;;
*)
	skip release_check "not Debian 12 or 13: $(. /etc/os-release && echo "${PRETTY_NAME:-unknown}")"
	exit 0
	;;
esac
builddir=${top_builddir:-$top}
papi_src=${PAPI_SRC:-$(sed -n 's/^PAPI_SRC = //p' "$builddir/Makefile" 2>/dev/null)}
if [ ! -f "$papi_src/src/papi.h" ]; then
	fail release_check "no PAPI source tree (configure the top build, or set PAPI_SRC)"
	exit 1
fi
exec "$top/scripts/check-release.sh" --no-suite --env CI=true \
	--papi-src "$papi_src" "$other"
