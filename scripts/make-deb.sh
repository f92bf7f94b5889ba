#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# make-deb.sh [-o OUTDIR] [BUILDDIR]: a Debian binary package of our
# libpapi from a configured build (BUILDDIR, default: the current
# directory; `make deb` runs it there), for the release this machine runs.
# Prints the path of the .deb, OUTDIR/lope-libpapi_VERSION_ARCH.deb
# (OUTDIR: default BUILDDIR).  Debian tools only: dpkg-deb,
# dpkg-shlibdeps, dpkg-architecture; no network.
#
# The package (doc/package.md):
#   - our libpapi.so.X.Y.Z.W, relinked without PAPI's build-tree rpath and
#     stripped (DEB_BUILD_OPTIONS=nostrip keeps the symbols), at the path of
#     Debian's, whose file its preinst diverts (scripts/deb/);
#   - our utilities (bin_PROGRAMS: papi_stat ...) and their man pages;
#   - the environment module, /usr/share/modulefiles/lope/VERSION.lua;
#   - copyright, changelog, README.md and doc/package.md.
# Version: PAPI's (configure's PAPI_SRC_VERSION, its fourth number left off
# when 0) + "+lope" + ours (AC_INIT): 7.0.0+lope0.1.
# Depends: dpkg-shlibdeps's (libc6, libpfm4) and the Debian package of
# this release that ships our soname (libpapi7.0 on Debian 12), found with
# dpkg-query or apt-cache, or named by LOPE_DEB_PAPI_PACKAGE (empty
# when there is none: a warning, and the preinst's check alone guards).
set -euo pipefail

PACKAGE=lope-libpapi
prog=make-deb.sh
die() {
	echo "$prog: $*" >&2
	exit 1
}
warn() { echo "$prog: warning: $*" >&2; }

outdir=
while getopts o: opt; do
	case $opt in
	o) outdir=$OPTARG ;;
	*) die "usage: $prog [-o OUTDIR] [BUILDDIR]" ;;
	esac
done
shift $((OPTIND - 1))
build=$(cd "${1:-.}" && pwd -P)
outdir=$(cd "${outdir:-$build}" && pwd -P)

{ [ -f "$build/Makefile" ] && [ -f "$build/config.status" ]; } ||
	die "$build is not a configured build (./autogen.sh && ./configure first)"
for t in dpkg-deb dpkg-shlibdeps dpkg-architecture readelf strip gzip; do
	command -v "$t" >/dev/null || die "$t not found (apt-get install dpkg-dev binutils)"
done

# A variable of the top Makefile, as configure set it.
mkvar() { sed -n "s/^$1 = //p" "$build/Makefile" | sed -n 1p; }
srcdir=$(mkvar abs_top_srcdir)
lope_version=$(mkvar PACKAGE_VERSION)
papi_version=$(mkvar PAPI_SRC_VERSION)
papi_version=${papi_version%.0}
version=$papi_version+lope$lope_version

make -C "$build" --no-print-directory -s all >&2

papi=$build/papi/ours/src
soname=$(readelf -d "$papi/libpapi.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
libfile=$(readlink "$papi/libpapi.so")
case $soname in libpapi.so.[0-9]*.[0-9]*) ;; *) die "$papi/libpapi.so: soname '$soname' is not libpapi.so.X.Y" ;; esac
case $libfile in "$soname".*) ;; *) die "$papi/libpapi.so points to '$libfile', not a file named after $soname" ;; esac
sover=${soname#libpapi.so.}
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libdir=/usr/lib/$multiarch
stock_dir=$libdir/$PACKAGE/debian

# The Debian package of this release shipping our soname.
debian_papi_package() {
	local owner n
	if owner=$(dpkg-query -S "$libdir/$soname" 2>/dev/null); then
		owner=${owner%%: /*}
		owner=${owner##*, }
		echo "${owner%%:*}"
		return
	fi
	for n in "libpapi$sover" "libpapi${sover}t64"; do
		if apt-cache show --no-all-versions "$n" >/dev/null 2>&1; then
			echo "$n"
			return
		fi
	done
}
debpkg=${LOPE_DEB_PAPI_PACKAGE-$(debian_papi_package)}
if [ -z "$debpkg" ]; then
	warn "no Debian package ships $soname on this release: no Depends on one"
fi
# Debian's file must have our name, or our file would not replace it.
if [ -n "$debpkg" ] && dpkg-query -L "$debpkg" >/dev/null 2>&1; then
	debfile=$(dpkg-query -L "$debpkg" | grep -x "$libdir/$soname\.[0-9.]*" |
		sed -n 1p || true)
	[ -z "$debfile" ] || [ "${debfile##*/}" = "$libfile" ] ||
		die "$debpkg ships ${debfile##*/} but this build makes $libfile (PAPI $papi_version): build from the same PAPI as $debpkg (apt-get source papi)"
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
root=$work/debian/$PACKAGE
umask 022
mkdir -p "$root/DEBIAN" "$root$libdir" "$root/usr/share/doc/$PACKAGE"

# The library, linked again as PAPI's make does but without the rpath
# PAPI's configure gives it (its build tree and the configure prefix).
cat >"$work/relink.mk" <<'EOF'
comma := ,
$(LOPE_DEB_SHLIB): $(HEADERS) $(SOURCES) $(SHLIBOBJS)
	$(subst -Xlinker "-rpath" -Xlinker "$(LIBDIR)",,$(CC_SHR)) $(LIBCFLAGS) $(OPTFLAGS) $(SOURCES) $(SHLIBOBJS) -o $@ $(SHLIBDEPS) $(filter-out -Wl$(comma)-rpath%,$(LDFLAGS))
EOF
lib=$root$libdir/$libfile
echo "$prog: linking $libfile without rpath" >&2
make -C "$papi" --no-print-directory -s -f Makefile -f "$work/relink.mk" \
	LOPE_DEB_SHLIB="$lib" "$lib" >"$work/relink.log" 2>&1 ||
	{
		cat "$work/relink.log" >&2
		die "relinking $libfile failed"
	}
if readelf -d "$lib" | grep -E '\((RPATH|RUNPATH)\)' >/dev/null; then
	die "$libfile still has an rpath: $(readelf -d "$lib" | grep -E 'R(UN)?PATH')"
fi
readelf -d "$lib" >"$work/dynamic"
grep -q -E '\(FLAGS\).*BIND_NOW' "$work/dynamic" ||
	die "relinked $libfile binds lazily: the build links ours -z now (Makefile.am)"
[ "$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')" = "$soname" ] ||
	die "relinked $libfile lost its soname $soname"
cmp -s <(nm -D --defined-only "$papi/$libfile") <(nm -D --defined-only "$lib") ||
	die "relinked $libfile exports other symbols than $papi/$libfile"
chmod 0644 "$lib"

# Our utilities and their man pages, as `make install` installs them.
make -C "$build" --no-print-directory -s install-binPROGRAMS install-man \
	DESTDIR="$root" prefix=/usr >"$work/install.log" 2>&1 ||
	{
		cat "$work/install.log" >&2
		die "make install-binPROGRAMS install-man failed"
	}
gzip -9n "$root"/usr/share/man/man*/*
# The environment module, where `make install prefix=/usr` puts it; at
# the library's directory, which it leaves off the search paths.
make -C "$build" --no-print-directory -s install-modulefile \
	DESTDIR="$root" prefix=/usr libdir="$libdir" >"$work/install.log" 2>&1 ||
	{
		cat "$work/install.log" >&2
		die "make install-modulefile failed"
	}

case " ${DEB_BUILD_OPTIONS:-} " in
*" nostrip "*) ;;
*)
	strip --strip-unneeded --remove-section=.comment \
		--remove-section=.note "$lib"
	strip --remove-section=.comment --remove-section=.note "$root"/usr/bin/*
	;;
esac

# Documentation.
doc=$root/usr/share/doc/$PACKAGE
gzip -9nc "$srcdir/README.md" >"$doc/README.md.gz"
gzip -9nc "$srcdir/doc/package.md" >"$doc/package.md.gz"
{
	cat <<EOF
$PACKAGE $version: lope $lope_version built into PAPI $papi_version.

$libdir/$libfile is PAPI $papi_version with its perf_event and
perf_event_uncore components replaced by lope's; the programs in /usr/bin
are lope's.

lope is under the BSD 3-clause license (SPDX-License-Identifier:
BSD-3-Clause in each of its files); on Debian systems its text is in
/usr/share/common-licenses/BSD.

PAPI's license (its LICENSE.txt):

EOF
	cat "$(mkvar PAPI_SRC)/LICENSE.txt"
} >"$doc/copyright"
commit=$(git -C "$srcdir" describe --always --dirty 2>/dev/null || echo unknown)
cat >"$work/changelog" <<EOF
$PACKAGE ($version) unstable; urgency=medium

  * Built by scripts/make-deb.sh from lope $lope_version (git $commit)
    and PAPI $papi_version.

 -- ${DEBFULLNAME:-lope} <${DEBEMAIL:-lope@localhost}>  $(date -R)
EOF
gzip -9nc "$work/changelog" >"$doc/changelog.Debian.gz"

# Maintainer scripts.
for s in preinst postinst postrm; do
	sed -e "s|@PACKAGE@|$PACKAGE|g" -e "s|@LIB@|$libdir/$libfile|g" \
		-e "s|@STOCK_DIR@|$stock_dir|g" -e "s|@SONAME@|$soname|g" \
		-e "s|@PAPI_VERSION@|$papi_version|g" \
		"$srcdir/scripts/deb/$s" >"$root/DEBIAN/$s"
	chmod 0755 "$root/DEBIAN/$s"
done

# Depends: what the library and the utilities load (the utilities' libpapi
# is this package's own), and Debian's libpapi of the same soname.
ln -s "$libfile" "$root$libdir/$soname"
printf 'Source: lope\n\nPackage: %s\nArchitecture: any\n' "$PACKAGE" \
	>"$work/debian/control"
shlibdeps=$(cd "$work" && dpkg-shlibdeps -O "${lib#"$work/"}" \
	"${root#"$work/"}"/usr/bin/*)
shlibdeps=${shlibdeps#shlibs:Depends=}
rm "$root$libdir/$soname" # ldconfig makes it, or Debian's package has it
depends=$shlibdeps${debpkg:+, $debpkg}
# A package built against libpapi-dev here depends on Debian's library,
# not on this package.
echo "libpapi $sover ${debpkg:-$PACKAGE (>= $version)}" >"$root/DEBIAN/shlibs"

(cd "$root" && find usr -type f -exec md5sum {} + | sort -k 2) \
	>"$root/DEBIAN/md5sums"
cat >"$root/DEBIAN/control" <<EOF
Package: $PACKAGE
Version: $version
Architecture: $arch
Maintainer: ${DEBFULLNAME:-lope} <${DEBEMAIL:-lope@localhost}>
Installed-Size: $(du -sk --exclude=DEBIAN "$root" | cut -f1)
Depends: $depends
Suggests: valgrind
Section: libs
Priority: optional
Description: PAPI $papi_version with lope, a low-overhead perf_event component
 $soname built from PAPI $papi_version with lope's perf_event and
 perf_event_uncore components: user-space counter reads (rdpmc) where the
 kernel allows them, one read() of the whole group otherwise.
 .
 It takes the place of Debian's library${debpkg:+ (package $debpkg)} by a
 dpkg diversion, so every program linked against $soname uses it without
 LD_LIBRARY_PATH; Debian's file is kept in $stock_dir
 and put back when this package is removed.  It refuses to install beside
 another PAPI's libpapi.
 .
 Also: papi_stat (count a command, as perf stat, with PAPI event names),
 papi_overhead and papi_accuracy (what a measurement costs).
EOF

deb=$outdir/${PACKAGE}_${version}_$arch.deb
dpkg-deb --root-owner-group --build "$root" "$deb" >&2
echo "$deb"
