#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_deb_install.sh ROOT DEB: the package of scripts/make-deb.sh (`make
# deb`) installed, removed and purged in a Debian chroot.
#
#   ROOT  a Debian root file system (debootstrap) of the release DEB is
#         for, with Debian's papi-tools installed (apt-get install
#         papi-tools) and without DEB's package.  /proc, /sys and /dev are
#         mounted there for the test if they are not, and unmounted after.
#   DEB   the .deb.
#
# Runs as root on the host (chroot, dpkg in ROOT), without network, and
# leaves ROOT as it found it.  Each program runs in ROOT with no
# environment but PATH.  When DEB's library is the file of ROOT's libpapi
# package (the same PAPI: the usual case):
#   - dpkg -i installs it; Debian's papi_component_avail then describes the
#     perf_event component as lope's ("lope; ..."); ldd resolves its
#     libpapi to a file with the sha256 of DEB's library; Debian's library
#     is kept, byte-identical, where the package diverted it; the
#     package's environment module is in ROOT's /usr/share/modulefiles;
#   - Debian's libpapi package installed again over it (from ROOT's apt
#     cache; SKIP if not there) goes to the diverted place, ours stays;
#   - dpkg -r, then dpkg -i and dpkg -P: papi_component_avail's
#     description is the one before, Debian's library is back byte-identical
#     at its path, no diversion, no directory of the package and no
#     modulefile are left.
# When ROOT's libpapi is another PAPI (another major.minor, or another
# file name): dpkg -i refuses, naming ROOT's package, and changes nothing.
#
# Prints PASS/FAIL/SKIP lines (ctests/report.sh); exits 1 if a case
# failed, 2 on bad arguments.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
. "$top/ctests/report.sh"

if [ $# -ne 2 ] || [ ! -d "$1" ] || [ ! -f "$2" ]; then
	echo "usage: $0 ROOT DEB (a Debian chroot with papi-tools, a .deb of scripts/make-deb.sh)" >&2
	exit 2
fi
root=$(cd "$1" && pwd -P)
deb=$(cd "$(dirname "$2")" && pwd -P)/$(basename "$2")
if [ "$(id -u)" -ne 0 ]; then
	skip deb_install "needs root (chroot, dpkg in $root)"
	exit 0
fi

# in_root CMD...: CMD in ROOT with no environment but PATH.
in_root() {
	chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin "$@"
}
# The description papi_component_avail gives the perf_event component.
component_desc() {
	in_root papi_component_avail 2>&1 |
		awk '$1 == "Name:" && $2 == "perf_event" { $1 = $2 = ""; sub(/^ +/, ""); print; exit }'
}
# Whether PKG is installed in ROOT, or half so.
installed() {
	# shellcheck disable=SC2016 # dpkg-query's own ${}
	in_root dpkg-query -W -f '${db:Status-Abbrev}' "$pkg" 2>/dev/null |
		grep '^.[iUFHW]' >/dev/null
}
sha() { sha256sum "$1" 2>/dev/null | cut -d' ' -f1; }

pkg=$(dpkg-deb -f "$deb" Package)
version=$(dpkg-deb -f "$deb" Version)
lib=$(dpkg-deb -c "$deb" | awk '{ print $6 }' |
	grep -E '^\./usr/lib/[^/]+/libpapi\.so\.[0-9]+\.[0-9]+\.' | sed -n 1p)
lib=${lib#.}
libdir=${lib%/*}
modulefile=$(dpkg-deb -c "$deb" | awk '{ print $6 }' |
	grep -E '^\./usr/share/modulefiles/lope/[^/]+\.lua$' | sed -n 1p)
modulefile=${modulefile#.}
stock=$libdir/$pkg/debian/${lib##*/}
info "$pkg $version, $lib, in $root ($(cat "$root/etc/debian_version" 2>/dev/null))"
if [ -z "$lib" ]; then
	fail setup "$deb holds no $libdir/libpapi.so.X.Y.*"
	exit 1
fi
if [ ! -x "$root/usr/bin/papi_component_avail" ]; then
	fail setup "no papi_component_avail in $root (apt-get install papi-tools there)"
	exit 1
fi
if installed; then
	fail setup "$pkg is installed in $root already"
	exit 1
fi

# Mount what ROOT lacks, copy DEB in; undo both at exit, and remove the
# package should a failed case have left it installed.
mounted=()
for m in proc:proc sys:sysfs dev:bind; do
	d=$root/${m%%:*}
	mountpoint -q "$d" && continue
	if [ "${m#*:}" = bind ]; then
		mount --bind "/${m%%:*}" "$d"
	else
		mount -t "${m#*:}" "${m#*:}" "$d"
	fi || {
		fail setup "cannot mount $d"
		exit 1
	}
	mounted=("$d" "${mounted[@]}")
done
tmpdeb=/tmp/test_deb_install.$$.deb
cleanup() {
	if installed; then
		in_root dpkg -P "$pkg" >/dev/null 2>&1
	fi
	rm -f "$root$tmpdeb"
	for d in "${mounted[@]}"; do umount "$d"; done
}
trap cleanup EXIT
cp "$deb" "$root$tmpdeb"

# Which library ROOT's programs use and whose it is.
debian_files=$(in_root dpkg-query -S "$libdir/libpapi.so.*" 2>/dev/null |
	grep -v '^diversion by' | sed 's|.*: /|/|' |
	grep -E '/libpapi\.so\.[0-9]+\.[0-9]+\.' | sort -u | tr '\n' ' ')
debian_pkg=$(in_root dpkg-query -S "$libdir/libpapi.so.*" 2>/dev/null |
	grep -v '^diversion by' | sed 's/[:,].*//' | grep -v -x "$pkg" | sort -u |
	tr '\n' ' ')
if [ -z "$debian_files" ]; then
	fail setup "no package in $root ships $libdir/libpapi.so.* (apt-get install papi-tools there)"
	exit 1
fi
# Debian's library file: the one DEB replaces, or, for another PAPI, ROOT's.
debian_lib=${debian_files%% *}
before_sha=$(sha "$root$debian_lib")
if [ -z "$before_sha" ]; then
	fail setup "cannot read $root$debian_lib"
	exit 1
fi
before_desc=$(component_desc)
info "before: ${debian_pkg% } ships ${debian_files% }; perf_event: $before_desc"

# The checks after dpkg -r or dpkg -P ($1).
check_gone() {
	local step=$1 d
	d=$(component_desc)
	if [ -n "$d" ] && [ "$d" = "$before_desc" ]; then
		pass "deb_${step}_component_as_before" "$d"
	else
		fail "deb_${step}_component_as_before" "perf_event: '$d', before: '$before_desc'"
	fi
	if [ "$(sha "$root$debian_lib")" = "$before_sha" ]; then
		pass "deb_${step}_debian_lib_back" "$debian_lib, sha256 $before_sha"
	else
		fail "deb_${step}_debian_lib_back" "$debian_lib: sha256 $(sha "$root$debian_lib"), before $before_sha"
	fi
	d=$(in_root dpkg-divert --list | grep " by $pkg\$")
	if [ -z "$d" ] && [ ! -e "$root$libdir/$pkg" ] &&
		[ ! -e "$root/usr/share/modulefiles/lope" ]; then
		pass "deb_${step}_nothing_left"
	else
		fail "deb_${step}_nothing_left" "${d:-$libdir/$pkg or /usr/share/modulefiles/lope is there}"
	fi
}

if [ "$debian_files" != "$lib " ]; then
	# Another PAPI: the package must refuse and change nothing.
	out=$(in_root dpkg -i "$tmpdeb" 2>&1)
	rc=$?
	if [ "$rc" -ne 0 ] && grep -q "refusing to install" <<<"$out" &&
		grep -q -F "${debian_pkg%% *}" <<<"$out"; then
		pass deb_refuses_other_papi "$(grep -m1 -A1 'refusing' <<<"$out" | tail -n 1 | sed 's/^ *//')"
	else
		fail deb_refuses_other_papi "dpkg -i exit $rc with ${debian_files% } in $root: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
	fi
	check_gone refused
	[ "$nfail" -eq 0 ]
	exit
fi

out=$(in_root dpkg -i "$tmpdeb" 2>&1)
rc=$?
if [ "$rc" -eq 0 ]; then
	pass deb_install
else
	fail deb_install "dpkg -i exit $rc: $(tail -n 5 <<<"$out" | tr '\n' ' ')"
	exit 1
fi
d=$(component_desc)
case $d in
lope*) pass deb_installed_component_is_lope "$d" ;;
*) fail deb_installed_component_is_lope "perf_event: '$d'" ;;
esac
# The file the loader maps for Debian's programs is the package's.
ours_sha=$(dpkg-deb --fsys-tarfile "$deb" | tar -xO ".$lib" | sha256sum | cut -d' ' -f1)
check_loader() {
	local name=$1 resolved
	resolved=$(in_root ldd /usr/bin/papi_component_avail |
		awk '$1 ~ /^libpapi\.so/ { print $3 }')
	resolved=$(in_root readlink -f "$resolved")
	if [ -n "$resolved" ] && [ "$(sha "$root$resolved")" = "$ours_sha" ]; then
		pass "$name" "$resolved, sha256 $ours_sha"
	else
		fail "$name" "libpapi resolves to '$resolved', sha256 $(sha "$root$resolved"), the package's is $ours_sha"
	fi
}
check_loader deb_installed_loads_package_lib
# The module names the system's prefix: the library is in place already.
if [ -z "$modulefile" ]; then
	fail deb_installed_modulefile "$deb holds no /usr/share/modulefiles/lope/VERSION.lua"
elif grep -F 'setenv("LOPE_ROOT", "/usr")' "$root$modulefile" >/dev/null; then
	pass deb_installed_modulefile "$modulefile"
else
	fail deb_installed_modulefile "$modulefile: not there, or LOPE_ROOT is not /usr"
fi
if [ "$(sha "$root$stock")" = "$before_sha" ]; then
	pass deb_installed_debian_lib_kept "$stock"
else
	fail deb_installed_debian_lib_kept "$stock: sha256 '$(sha "$root$stock")', Debian's $before_sha"
fi

# Debian's package unpacked again over ours (as an upgrade would).
set -- "$root"/var/cache/apt/archives/"${debian_pkg%% *}"_*.deb
if [ "${debian_pkg% }" != "${debian_pkg%% *}" ] || [ $# -ne 1 ] || [ ! -f "$1" ]; then
	skip deb_debian_reinstalled "no single ${debian_pkg%% *}_*.deb in $root/var/cache/apt/archives"
elif ! out=$(in_root dpkg -i "${1#"$root"}" 2>&1); then
	fail deb_debian_reinstalled "dpkg -i ${1##*/}: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
elif [ "$(sha "$root$stock")" = "$before_sha" ]; then
	pass deb_debian_reinstalled "${1##*/} went to $stock"
	check_loader deb_debian_reinstalled_loads_package_lib
else
	fail deb_debian_reinstalled "$stock: sha256 '$(sha "$root$stock")' after ${1##*/}"
fi

for step in remove purge; do
	if [ "$step" = purge ] && ! out=$(in_root dpkg -i "$tmpdeb" 2>&1); then
		fail deb_purge "dpkg -i again: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
		continue
	fi
	flag=-r
	[ "$step" = remove ] || flag=-P
	if out=$(in_root dpkg "$flag" "$pkg" 2>&1); then
		pass "deb_$step"
	else
		fail "deb_$step" "dpkg $flag: $(tail -n 3 <<<"$out" | tr '\n' ' ')"
	fi
	check_gone "$step"
done
[ "$nfail" -eq 0 ]
