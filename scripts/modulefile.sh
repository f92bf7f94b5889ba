#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# modulefile.sh NAME=VALUE...: writes to stdout the Lmod modulefile
# (lope/VERSION.lua) of an installed lope.  `make install` runs it for
# its directories (Makefile.am, install-modulefile), and so does
# scripts/make-deb.sh for the package's (prefix /usr).  All of these:
#
#   version=V       lope's version (the modulefile's name is V.lua)
#   papi_version=V  the PAPI the library is built from
#   prefix=DIR      becomes LOPE_ROOT
#   bindir=DIR libdir=DIR mandir=DIR
#
# Loading the module puts libdir first on LD_LIBRARY_PATH (so PAPI
# programs load our libpapi), bindir on PATH, mandir on MANPATH and
# libdir/pkgconfig (papi.pc) on PKG_CONFIG_PATH; a directory the system
# searches already (/usr/lib/<multiarch>, /usr/bin ...) is left out: put
# first, it would also override every program's RUNPATH for all its other
# libraries, or shadow /usr/local/bin.  The module is of the family
# "papi": loading it unloads another PAPI module (Lmod's family()).
# The directories are the final ones, never a DESTDIR staging area.
set -eu

usage() {
	echo "usage: $0 version=V papi_version=V prefix=DIR bindir=DIR libdir=DIR mandir=DIR" >&2
	exit 2
}
version='' papi_version='' prefix='' bindir='' libdir='' mandir=''
for a in "$@"; do
	case $a in
	version=* | papi_version=* | prefix=* | bindir=* | libdir=* | mandir=*)
		v=${a#*=}
		# Each goes into a Lua string between double quotes.
		case $v in *[\"\\]*)
			echo "$0: ${a%%=*}: '$v' has a quote or a backslash" >&2
			exit 2
			;;
		esac
		eval "${a%%=*}=\$v"
		;;
	*) usage ;;
	esac
done
for v in "$version" "$papi_version" "$prefix" "$bindir" "$libdir" "$mandir"; do
	[ -n "$v" ] || usage
done
for d in "$prefix" "$bindir" "$libdir" "$mandir"; do
	case $d in /*) ;; *)
		echo "$0: '$d' is not an absolute directory" >&2
		exit 2
		;;
	esac
done

# Whether DIR is one the loader, the shell, man or pkg-config search by
# default on Debian.
system_dir() {
	d=${1%/}
	case $d in /usr/lib/*/pkgconfig) d=${d%/pkgconfig} ;; esac
	case ${d#/usr} in
	/lib | /lib64 | /bin | /sbin | /share/man | /lib/pkgconfig | /share/pkgconfig) return 0 ;;
	/lib/*/*) return 1 ;;
	/lib/*-linux-gnu*) return 0 ;; # the multiarch directory
	esac
	return 1
}

paths=
added=
add_path() { # VAR DIR WHAT
	if system_dir "$2"; then
		return 0
	fi
	paths="${paths}prepend_path(\"$1\", \"$2\")
"
	added="$added
  $1: $2 ($3)"
}
add_path LD_LIBRARY_PATH "$libdir" "libpapi.so, first for every PAPI program"
add_path PATH "$bindir" "papi_stat, papi_which, PAPI's utilities"
add_path MANPATH "$mandir" "their man pages"
add_path PKG_CONFIG_PATH "$libdir/pkgconfig" "papi.pc"
if [ -z "$added" ]; then
	added="
  nothing: these are the system's directories, where the loader finds
  this libpapi without the module"
fi

cat <<EOF
-- lope $version: PAPI $papi_version with lope's perf_event components.
-- Made by make install (scripts/modulefile.sh) for $prefix.

whatis("Name: lope")
whatis("Version: $version")
whatis("Category: library, performance counters")
whatis("Description: PAPI $papi_version with lope's low-overhead perf_event components, in $prefix")

help([[
lope $version in $prefix: PAPI $papi_version's libpapi with lope's
perf_event and perf_event_uncore components (user-space counter reads
where the kernel allows them).  Every dynamically linked PAPI program of
the same PAPI version (papi_avail, TAU, HPCToolkit, Score-P, Caliper,
yours) uses it without a relink.

Loading it puts first:$added
and sets LOPE_ROOT=$prefix.  It is of the family "papi": loading it
unloads another PAPI module.

A program linked with an RPATH to another PAPI ignores LD_LIBRARY_PATH:
papi_which PROGRAM says which libpapi it loads and how to make it load
this one.
]])

family("papi")
setenv("LOPE_ROOT", "$prefix")
$paths
EOF
