#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_module.sh: the environment module that `make install` installs
# (scripts/modulefile.sh, doc/cluster.md), under Debian's Lmod.  It runs
# `make install prefix=TMP` of the top build, then each case in a clean
# bash (no environment but HOME, PATH=/usr/bin:/bin and
# MODULEPATH=TMP/share/modulefiles) with Lmod's init/bash sourced:
#   - module_show_paths: `module show lope` prepends LD_LIBRARY_PATH,
#     PATH, MANPATH and PKG_CONFIG_PATH, each with a directory of TMP that
#     holds what it is for (libpapi.so.X.Y, papi_stat, papi_stat.1,
#     papi.pc), and sets LOPE_ROOT to TMP;
#   - module_load_ours: after `module load lope` Debian's own
#     /usr/bin/papi_component_avail loads TMP's libpapi (ldd) and
#     describes perf_event as lope's ("lope; ..."); pkg-config finds TMP's
#     papi.pc;
#   - module_unload_as_before: after `module unload lope`, the description
#     is the one without the module, and the variables are as before;
#   - module_load_twice: loaded twice, each directory is in its variable
#     once; one unload restores the variables;
#   - module_family_papi: loading lope over another module of the family
#     "papi" replaces it;
#   - module_destdir: `make install-modulefile DESTDIR=D prefix=P` writes
#     D/P/.../lope/VERSION.lua naming P's directories, never D;
#   - module_system_prefix: the package's module (prefix /usr, the
#     multiarch libdir) changes no search path and sets LOPE_ROOT=/usr;
#   - module_uninstall: `make uninstall-local` removes the modulefile.
# SKIPs where Lmod or Debian's papi-tools is not installed, or where
# Debian's tools need another libpapi soname than this build's.  A few
# seconds.
set -u
top=$(cd "$(dirname "$0")/../.." && pwd)
# shellcheck source=../report.sh
. "$top/ctests/report.sh"

builddir=${top_builddir:-$top}
lmod_init=/usr/share/lmod/lmod/init/bash
debian_tool=/usr/bin/papi_component_avail
if [ ! -f "$lmod_init" ]; then
	skip module "Lmod not installed: no $lmod_init (apt-get install lmod; scripts/install-deps.sh installs it)"
	exit 0
fi
if [ ! -x "$debian_tool" ]; then
	skip module "Debian's papi-tools not installed: no $debian_tool (scripts/install-deps.sh installs it)"
	exit 0
fi
if [ ! -f "$builddir/Makefile" ]; then
	fail setup "$builddir is not a configured build"
	exit 1
fi
mkvar() { sed -n "s/^$1 = //p" "$builddir/Makefile" | sed -n 1p; }
version=$(mkvar PACKAGE_VERSION)
ours_so=$builddir/papi/ours/src/libpapi.so
soname=$(readelf -d "$ours_so" 2>/dev/null | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
needed=$(readelf -d "$debian_tool" | sed -n 's/.*(NEEDED).*\[\(libpapi\.so[^]]*\)\]/\1/p')
if [ -z "$soname" ]; then
	fail setup "no soname in $ours_so (make builds it)"
	exit 1
fi
if [ "$needed" != "$soname" ]; then
	skip module "$debian_tool needs ${needed:-no libpapi}, this build makes $soname (another PAPI)"
	exit 0
fi
lmod_version=$(MODULEPATH='' bash --noprofile --norc -c ". $lmod_init; module --version" 2>&1)
info "Lmod $(sed -n 's/.*Lua: Version \([^ ]*\).*/\1/p' <<<"$lmod_version")"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-module.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix

# in_make TARGET VAR=VALUE...: the top build's make, without the
# variables of a make that runs this test.
in_make() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$builddir" -s "$@" \
		>>"$tmp/make.log" 2>&1
}
# in_lmod MODULEPATH SCRIPT: SCRIPT in a clean bash with Lmod.
in_lmod() {
	# shellcheck disable=SC2016 # the inner shell expands them
	env -i HOME="$tmp" PATH=/usr/bin:/bin MODULEPATH="$1" \
		bash --noprofile --norc -c '. "$1" || exit 99; eval "$2"' \
		in_lmod "$lmod_init" "$2"
}
# The description papi_component_avail gives the perf_event component.
component_desc() {
	awk '$1 == "Name:" && $2 == "perf_event" { $1 = $2 = ""; sub(/^ +/, ""); print; exit }'
}
# What a clean shell shows of the module's variables.
# shellcheck disable=SC2016 # the clean shell expands them
show_vars='for v in LD_LIBRARY_PATH PATH MANPATH PKG_CONFIG_PATH LOPE_ROOT; do
	printf "%s=%s\n" "$v" "${!v-(unset)}"; done'

start=$SECONDS
if ! in_make install prefix="$prefix"; then
	fail module_install "make install prefix=$prefix: $(tail -n 5 "$tmp/make.log" | tr '\n' ' ')"
	exit 1
fi
mpath=$prefix/share/modulefiles
mf=$mpath/lope/$version.lua
if [ -f "$mf" ]; then
	pass module_install "$mf, make install in $((SECONDS - start)) s"
else
	fail module_install "no $mf after make install prefix=$prefix"
	exit 1
fi

# module show: the directories, each holding what it is for.
in_lmod "$mpath" 'module show lope' >"$tmp/show" 2>&1
sed -n 's/^prepend_path("\([A-Z_]*\)", *"\([^"]*\)").*/\1 \2/p' "$tmp/show" >"$tmp/paths"
root=$(sed -n 's/^setenv("LOPE_ROOT", *"\([^"]*\)").*/\1/p' "$tmp/show")
dir_of() { awk -v v="$1" '$1 == v { print $2 }' "$tmp/paths"; }
libdir=$(dir_of LD_LIBRARY_PATH)
bad=
for row in "LD_LIBRARY_PATH|$soname" "PATH|papi_stat" "MANPATH|man1/papi_stat.1" \
	"PKG_CONFIG_PATH|papi.pc"; do
	var=${row%%|*}
	d=$(dir_of "$var")
	case $d in
	"$prefix"/*) [ -e "$d/${row#*|}" ] || bad="$bad $var: no ${row#*|} in '$d';" ;;
	*) bad="$bad $var: '$d' is not in $prefix;" ;;
	esac
done
[ "$root" = "$prefix" ] || bad="$bad LOPE_ROOT '$root', not $prefix;"
[ "$(wc -l <"$tmp/paths")" -eq 4 ] || bad="$bad $(wc -l <"$tmp/paths") prepend_path lines, not 4;"
if [ -z "$bad" ]; then
	pass module_show_paths "$(tr '\n' ' ' <"$tmp/paths")"
else
	fail module_show_paths "$bad (module show: $(tr '\n' ' ' <"$tmp/show" | cut -c1-300))"
fi

# Without the module, loaded, unloaded: what Debian's tool loads and says.
in_lmod "$mpath" "$show_vars; $debian_tool" >"$tmp/before" 2>&1
in_lmod "$mpath" "module load lope || exit 98; $show_vars; ldd $debian_tool; $debian_tool; echo \"pkg-config=\$(pkg-config --variable=libdir papi)\"" \
	>"$tmp/loaded" 2>&1
in_lmod "$mpath" "module load lope || exit 98; module unload lope; $show_vars; $debian_tool" \
	>"$tmp/unloaded" 2>&1
before_desc=$(component_desc <"$tmp/before")
loaded_desc=$(component_desc <"$tmp/loaded")
unloaded_desc=$(component_desc <"$tmp/unloaded")
resolved=$(sed -n "s/^[[:space:]]*$soname => \([^ ]*\) .*/\1/p" "$tmp/loaded")
pc_libdir=$(sed -n 's/^pkg-config=//p' "$tmp/loaded")
info "without the module: perf_event '$before_desc'"
case $loaded_desc in
lope*)
	if [ "$resolved" = "$libdir/$soname" ]; then
		pass module_load_ours "$soname => $resolved; perf_event '$loaded_desc'"
	else
		fail module_load_ours "$soname resolves to '$resolved', not $libdir/$soname"
	fi
	;;
*) fail module_load_ours "perf_event '$loaded_desc' after module load lope: $(tail -n 3 "$tmp/loaded" | tr '\n' ' ')" ;;
esac
if [ "$pc_libdir" = "$libdir" ]; then
	pass module_load_pkg_config "pkg-config --variable=libdir papi: $pc_libdir"
else
	fail module_load_pkg_config "pkg-config gives '$pc_libdir', not $libdir"
fi
vars_before=$(grep -E '^(LD_LIBRARY_PATH|PATH|MANPATH|PKG_CONFIG_PATH|LOPE_ROOT)=' "$tmp/before")
vars_unloaded=$(grep -E '^(LD_LIBRARY_PATH|PATH|MANPATH|PKG_CONFIG_PATH|LOPE_ROOT)=' "$tmp/unloaded")
if [ -n "$before_desc" ] && [ "$unloaded_desc" = "$before_desc" ] &&
	[ "$vars_unloaded" = "$vars_before" ]; then
	pass module_unload_as_before "perf_event '$unloaded_desc'"
else
	fail module_unload_as_before "perf_event '$unloaded_desc', before '$before_desc'; variables: $(tr '\n' ' ' <<<"$vars_unloaded"), before: $(tr '\n' ' ' <<<"$vars_before")"
fi

# Twice loaded: once in each variable; one unload restores them.
in_lmod "$mpath" "module load lope; module load lope; $show_vars; module unload lope; echo after_unload; $show_vars" \
	>"$tmp/twice" 2>&1
bad=
while read -r var d; do
	value=$(sed -n "s/^$var=//p" <<<"$(sed '/^after_unload$/q' "$tmp/twice")")
	n=$(tr ':' '\n' <<<"$value" | grep -c -x -F -- "$d")
	[ "$n" -eq 1 ] || bad="$bad $var has $d $n times ($value);"
done <"$tmp/paths"
after=$(sed '1,/^after_unload$/d' "$tmp/twice")
[ "$after" = "$vars_before" ] || bad="$bad after one unload: $(tr '\n' ' ' <<<"$after");"
if [ -z "$bad" ]; then
	pass module_load_twice
else
	fail module_load_twice "$bad"
fi

# The family: another PAPI module is replaced when lope loads.
mkdir -p "$tmp/other/papi"
cat >"$tmp/other/papi/7.0.0.lua" <<EOF
family("papi")
prepend_path("LD_LIBRARY_PATH", "$tmp/other/lib")
EOF
# shellcheck disable=SC2016 # the clean shell expands it
in_lmod "$mpath:$tmp/other" 'module load papi/7.0.0; module load lope; module -t list 2>&1; echo "LD_LIBRARY_PATH=$LD_LIBRARY_PATH"' \
	>"$tmp/family" 2>&1
list=$(grep -E '^(lope|papi)/' "$tmp/family" | tr '\n' ' ')
ld=$(sed -n 's/^LD_LIBRARY_PATH=//p' "$tmp/family")
if [ "$list" = "lope/$version " ] && [ "$ld" = "$libdir" ]; then
	pass module_family_papi "papi/7.0.0 replaced: $list"
else
	fail module_family_papi "loaded: '$list', LD_LIBRARY_PATH '$ld'; $(tr '\n' ' ' <"$tmp/family" | cut -c1-300)"
fi

# Staged: the file names the final prefix, not the staging directory.
final=/opt/lope-module-test
staged=$tmp/stage$final/share/modulefiles/lope/$version.lua
if ! in_make install-modulefile DESTDIR="$tmp/stage" prefix="$final"; then
	fail module_destdir "make install-modulefile DESTDIR=$tmp/stage: $(tail -n 3 "$tmp/make.log" | tr '\n' ' ')"
elif [ ! -f "$staged" ]; then
	fail module_destdir "no $staged"
elif grep -F "$tmp/stage" "$staged" >/dev/null; then
	fail module_destdir "$staged names the staging directory: $(grep -F "$tmp/stage" "$staged" | sed -n 1p)"
elif ! grep -F "prepend_path(\"PATH\", \"$final/bin\")" "$staged" >/dev/null; then
	fail module_destdir "$staged does not put $final/bin on PATH"
else
	pass module_destdir "$final/bin in $staged"
fi

# The package's module: prefix /usr, everything in the system's places.
multiarch=$(gcc -print-multiarch 2>/dev/null)
mkdir -p "$tmp/system/lope"
sh "$top/scripts/modulefile.sh" version="$version" papi_version=0 prefix=/usr \
	bindir=/usr/bin libdir="/usr/lib${multiarch:+/$multiarch}" mandir=/usr/share/man \
	>"$tmp/system/lope/$version.lua"
in_lmod "$tmp/system" "module load lope || exit 98; $show_vars" >"$tmp/sysload" 2>&1
want=$(sed 's/^LOPE_ROOT=.*/LOPE_ROOT=\/usr/' <<<"$vars_before")
got=$(grep -E '^(LD_LIBRARY_PATH|PATH|MANPATH|PKG_CONFIG_PATH|LOPE_ROOT)=' "$tmp/sysload")
if [ "$got" = "$want" ]; then
	pass module_system_prefix "only LOPE_ROOT=/usr"
else
	fail module_system_prefix "$(tr '\n' ' ' <<<"$got"), want $(tr '\n' ' ' <<<"$want")"
fi

if ! in_make uninstall-local prefix="$prefix"; then
	fail module_uninstall "make uninstall-local: $(tail -n 3 "$tmp/make.log" | tr '\n' ' ')"
elif [ -e "$mf" ] || [ -d "$mpath" ]; then
	fail module_uninstall "$mf or $mpath left"
else
	pass module_uninstall
fi
info "$((SECONDS - start)) s"
[ "$nfail" -eq 0 ]
