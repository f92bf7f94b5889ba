#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# debian-mirror.sh: the Debian mirror this machine's apt uses (the first
# http(s) URI ending in /debian of its sources, deb822 or classic style),
# else http://deb.debian.org/debian.  For the downloads that name another
# release or architecture than the host's: the arm64 guest's packages,
# scripts/check-release.sh's new systems.
m=$(cat /etc/apt/sources.list.d/*.sources /etc/apt/sources.list 2>/dev/null |
	sed -n -e 's|^URIs: *\(https\{0,1\}://[^ ]*/debian\)/\{0,1\}$|\1|p' \
		-e 's|^deb  *\(\[[^]]*\]  *\)\{0,1\}\(https\{0,1\}://[^ ]*/debian\)/\{0,1\} .*|\2|p' |
	sed -n 1p)
echo "${m:-http://deb.debian.org/debian}"
