#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
#
# test_papi_which.sh: utils/papi_which (doc/papi_which.1) against what
# programs really load.  Programs built here (SKIP without a C compiler)
# are linked to the stock PAPI build's libpapi in every way the loader
# tells apart, and each one, run, prints the path of the libpapi it really
# ran with (dladdr); run for want of a libpapi, the loader refuses it:
#
#	rpath        -Wl,--disable-new-dtags -rpath STOCK (DT_RPATH)
#	runpath      -Wl,--enable-new-dtags -rpath STOCK (DT_RUNPATH)
#	origin       DT_RPATH $ORIGIN/../stocklib (a link to STOCK)
#	origin_run   DT_RUNPATH $ORIGIN/../stocklib
#	none         no path: the ld.so.cache or the system directories
#	mid_runpath  libpapi needed by libmid.so (DT_RUNPATH STOCK), the
#	             program with DT_RPATH to libmid.so's directory only
#	mid_inherit  libmid2.so (no path of its own) under a program whose
#	             DT_RPATH names STOCK: the RPATH is inherited
#	mid_noinherit the same with DT_RUNPATH: not inherited
#	missing      needs libpapi.so.99, which nothing provides: not
#	             found (exit 1), and where it looked
#	hwcaps       DT_RPATH DIR, with ours in DIR and a stock copy in the
#	             legacy hwcaps subdirectory DIR/$(uname -m), which glibc
#	             before 2.37 (Debian 12's) searches first
#	path         DT_NEEDED naming STOCK's file by its path (patchelf
#	             --replace-needed; SKIP without patchelf)
#
# each with LD_LIBRARY_PATH unset and set to OURS, and rpath and runpath
# with LD_PRELOAD=OURS/libpapi (as root, where the file system allows it,
# a twin of runpath set-user-ID to another user too, its RUNPATH a copy
# of STOCK that user can read: secure-execution mode).  Per
# case: papi_which's "loads:" is the libpapi the program ran with;
# "found by:" names the step the table expects; ours or stock as the file
# is; an ld.so.cache answer is what ldconfig -p lists; and every "fix:" it
# prints (on a copy where it changes a file) makes the program run with
# ours.
# Then -v (every search), --ours naming no lope libpapi (no fix known),
# the RPATH note, bad input (exit 2 and a message), programs without
# libpapi (exit 1), and no leak under valgrind where it is installed.
#
# Report protocol: ctests/report.sh (PASS:/FAIL:/SKIP: lines, "# " info).
set -u

# shellcheck source=../report.sh
. "$(dirname "$0")/../report.sh"

top=$(cd "$(dirname "$0")/../.." && pwd)
pw=${top_builddir:-$top}/utils/papi_which
ours=${PAPI_OURS_BUILDDIR:-${top_builddir:-$top}/papi/ours/src}
stock=${PAPI_STOCK_BUILDDIR:-${top_builddir:-$top}/papi/stock/src}
cc=${CC:-cc}
# The program's environment is each case's own.
unset LD_LIBRARY_PATH LD_PRELOAD

if [ ! -x "$pw" ]; then
	fail setup "$pw was not built"
	exit 1
fi
if ! command -v "$cc" >/dev/null 2>&1; then
	skip papi_which "no C compiler ($cc): the test builds its programs"
	exit 0
fi
if [ ! -e "$stock/libpapi.so" ] || [ ! -e "$ours/libpapi.so" ]; then
	skip papi_which "no PAPI builds at $stock and $ours (make builds them)"
	exit 0
fi
soname=$(readelf -d "$stock/libpapi.so" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
info "papi_which: $pw; ours: $ours; stock: $stock; soname: $soname"

tmp=$(mktemp -d "${TMPDIR:-/tmp}/lope-papi-which.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
chmod 755 "$tmp"
mkdir "$tmp/bin" "$tmp/lib" "$tmp/lib2"
ln -s "$stock" "$tmp/stocklib"
# hwcaps: ours in the RPATH directory, stock in its legacy hwcaps subdirectory.
arch=$(uname -m)
mkdir -p "$tmp/hw/$arch"
ln -s "$ours/$soname" "$tmp/hw/$soname"
cp -L "$stock/$soname" "$tmp/hw/$arch/$soname"

cat >"$tmp/prog.c" <<'EOF'
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
extern int PAPI_is_initialized(void);
extern int mid(void);
int main(void)
{
	Dl_info i;
#ifdef MID /* libpapi comes through libmid: the program names none of it */
	void *f = dlsym(RTLD_DEFAULT, "PAPI_is_initialized");
	mid();
#else
	void *f = (void *)PAPI_is_initialized;
#endif
	if (!f || !dladdr(f, &i))
		return 3;
	printf("%s\n", i.dli_fname);
	return 0;
}
EOF
cat >"$tmp/mid.c" <<'EOF'
extern int PAPI_is_initialized(void);
int mid(void) { return PAPI_is_initialized(); }
EOF

# build NAME CC-ARGS...: a program, or a FAIL of setup and exit.
build() {
	local out=$1
	shift
	if ! "$cc" -o "$out" "$@" 2>"$tmp/cc.err"; then
		fail setup "cannot build $out: $(sed -n 1p "$tmp/cc.err")"
		exit 1
	fi
}
new=-Wl,--enable-new-dtags
old=-Wl,--disable-new-dtags
L=(-L"$stock" "-Wl,--no-as-needed" -lpapi)
build "$tmp/lib/libmid.so" -shared -fPIC "$tmp/mid.c" "${L[@]}" $new -Wl,-rpath,"$stock"
build "$tmp/lib2/libmid2.so" -shared -fPIC "$tmp/mid.c" "${L[@]}"
build "$tmp/bin/rpath" "$tmp/prog.c" "${L[@]}" $old -Wl,-rpath,"$stock"
build "$tmp/bin/runpath" "$tmp/prog.c" "${L[@]}" $new -Wl,-rpath,"$stock"
# shellcheck disable=SC2016 # $ORIGIN is for the loader
build "$tmp/bin/origin" "$tmp/prog.c" "${L[@]}" $old -Wl,-rpath,'$ORIGIN/../stocklib'
# shellcheck disable=SC2016 # $ORIGIN is for the loader
build "$tmp/bin/origin_run" "$tmp/prog.c" "${L[@]}" $new -Wl,-rpath,'$ORIGIN/../stocklib'
build "$tmp/bin/none" "$tmp/prog.c" "${L[@]}"
build "$tmp/bin/hwcaps" "$tmp/prog.c" "${L[@]}" $old -Wl,-rpath,"$tmp/hw"
M=(-DMID "$tmp/prog.c" "-Wl,--no-as-needed" -ldl)
build "$tmp/bin/mid_runpath" "${M[@]}" -L"$tmp/lib" -lmid -Wl,-rpath-link,"$stock" \
	$old -Wl,-rpath,"$tmp/lib"
build "$tmp/bin/mid_inherit" "${M[@]}" -L"$tmp/lib2" -lmid2 -Wl,-rpath-link,"$stock" \
	-L"$stock" $old -Wl,-rpath,"$tmp/lib2:$stock"
build "$tmp/bin/mid_noinherit" "${M[@]}" -L"$tmp/lib2" -lmid2 -Wl,-rpath-link,"$stock" \
	-L"$stock" $new -Wl,-rpath,"$tmp/lib2:$stock"
# A libpapi soname nothing on the machine has: not found anywhere.
mkdir "$tmp/fake"
build "$tmp/fake/libpapi.so.99" -shared -fPIC -Wl,-soname,libpapi.so.99 \
	-x c - <<<'int PAPI_is_initialized(void) { return 0; }'
build "$tmp/bin/missing" "$tmp/prog.c" -L"$tmp/fake" -l:libpapi.so.99
# The program needs libpapi only through libmid2.so there: drop the
# direct need the -lpapi of prog.c's own symbol gave it.
for p in mid_runpath mid_inherit mid_noinherit; do
	if grep -q "NEEDED.*libpapi" <<<"$(readelf -d "$tmp/bin/$p")"; then
		fail setup "$p needs libpapi directly"
		exit 1
	fi
done

# The path PROG ran its libpapi from, or "not found" when the loader
# refused to start it for want of one (ENV... PROG).
ran() {
	if env "$@" 2>"$tmp/ran.err" | sed -n 1p; then
		grep -q "error while loading shared libraries: libpapi" \
			"$tmp/ran.err" && echo "not found"
	fi
}
# The kind of the libpapi file $1: ours when it is our build's.
kind_of() {
	if cmp -s "$1" "$ours/$soname"; then echo ours; else echo stock; fi
}
# The system's own view of the cache: the paths ldconfig -p gives $1.
ldconfig_paths() {
	local out
	out=$(ldconfig -p 2>/dev/null)
	awk -v n="$1" '$1 == n { print $NF }' <<<"$out"
}

# check_fixes NAME ENV-WORD...: every fix: line of $tmp/out, followed,
# makes the program run with ours.
check_fixes() {
	local name=$1 fix obj n=0 run
	shift
	while IFS= read -r fix; do
		n=$((n + 1))
		eval "set -- $fix" || {
			fail "${name}_fix_$n" "cannot parse: $fix"
			continue
		}
		if [ "$1" = patchelf ]; then
			obj=${*: -1}
			cp -p "$obj" "$obj.orig"
			if ! "$@" 2>"$tmp/fix.err"; then
				fail "${name}_fix_$n" "'$fix' failed: $(sed -n 1p "$tmp/fix.err")"
				mv "$obj.orig" "$obj"
				continue
			fi
			run=$(ran "${envw[@]}" "$prog")
			mv "$obj.orig" "$obj"
		else
			run=$(ran "${envw[@]}" "$@")
		fi
		if [ "$(kind_of "$run")" = ours ]; then
			pass "${name}_fix_$n" "$fix"
		else
			fail "${name}_fix_$n" "after '$fix' the program ran '$run', not ours"
		fi
	done < <(sed -n 's/^fix: //p' "$tmp/out")
	[ "$n" -gt 0 ] || fail "${name}_fix" "no fix printed for stock: $(tr '\n' ' ' <"$tmp/out")"
}

# run_case NAME PROG WANT ENV-WORD...: one row.  WANT is the first word
# of the "found by" step expected; "system" is the cache, the system
# directories or none.
run_case() {
	local name=$1 want=$3 loads how run kind rc cpath ok
	prog=$2
	shift 3
	envw=("$@")
	env "${envw[@]}" "$pw" --ours "$ours" "$prog" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	loads=$(sed -n 's/^loads: //p' "$tmp/out")
	case $loads in not\ found*) loads="not found" ;; esac
	how=$(sed -n 's/^found by: \([^ ]*\).*/\1/p' "$tmp/out")
	run=$(ran "${envw[@]}" "$prog")
	if [ -n "$loads" ] && [ "$loads" = "$run" ] &&
		{ [ "$rc" -eq 0 ] || [ "$run" = "not found" ]; }; then
		pass "${name}_loads" "$loads (exit $rc), as the program ran"
	else
		fail "${name}_loads" "papi_which: '$loads' (exit $rc), the program ran: '$run'; $(sed -n 1p "$tmp/err")"
		return
	fi
	ok=0
	case $want in
	system) case $how in cache | system | "") ok=1 ;; esac ;;
	*) [ "$how" = "$want" ] && ok=1 ;;
	esac
	if [ "$ok" -eq 1 ]; then
		pass "${name}_why" "${how:-not found}"
	else
		fail "${name}_why" "found by '$how', want $want"
	fi
	if [ "$how" = cache ]; then
		cpath=$(ldconfig_paths "$soname")
		if grep -qxF "$loads" <<<"$cpath"; then
			pass "${name}_cache" "ldconfig -p lists it"
		else
			fail "${name}_cache" "ldconfig -p gives '$cpath' for $soname"
		fi
	fi
	if [ "$run" = "not found" ]; then
		check_fixes "$name"
		return
	fi
	kind=$(kind_of "$run")
	if grep -q "^library: $kind" "$tmp/out"; then
		pass "${name}_kind" "$kind, ran $run"
	else
		fail "${name}_kind" "ran '$run', the file is $kind: $(grep '^library:' "$tmp/out")"
	fi
	[ "$kind" = ours ] || check_fixes "$name"
}

LLP=LD_LIBRARY_PATH=$ours
# name|program|step with LD_LIBRARY_PATH unset|step with it set to ours
while IFS='|' read -r name p unset set; do
	run_case "${name}" "$tmp/bin/$p" "$unset" -u LD_LIBRARY_PATH
	run_case "${name}_llp" "$tmp/bin/$p" "$set" "$LLP"
done <<'EOF'
rpath|rpath|RPATH|RPATH
runpath|runpath|RUNPATH|LD_LIBRARY_PATH
origin|origin|RPATH|RPATH
origin_run|origin_run|RUNPATH|LD_LIBRARY_PATH
none|none|system|LD_LIBRARY_PATH
mid_runpath|mid_runpath|RUNPATH|LD_LIBRARY_PATH
mid_inherit|mid_inherit|RPATH|RPATH
mid_noinherit|mid_noinherit|system|LD_LIBRARY_PATH
hwcaps|hwcaps|RPATH|RPATH
EOF
# The hwcaps row is the one a search of the RPATH directory alone gets
# wrong: where the loader searches legacy hwcaps subdirectories, it runs
# the stock copy there.
run=$(ran -u LD_LIBRARY_PATH "$tmp/bin/hwcaps")
if [ "$run" = "$tmp/hw/$arch/$soname" ]; then
	pass hwcaps_subdir "the program ran $run"
else
	skip hwcaps_subdir "this loader searches no $arch subdirectory (glibc 2.37 and later): ran $run"
fi
# A DT_NEEDED naming the file: found by "path", the LD_PRELOAD fix.
if command -v patchelf >/dev/null 2>&1; then
	cp "$tmp/bin/none" "$tmp/bin/path"
	patchelf --replace-needed "$soname" "$stock/$soname" "$tmp/bin/path"
	run_case path "$tmp/bin/path" path -u LD_LIBRARY_PATH
else
	skip path "patchelf not installed: no program whose DT_NEEDED is a path"
fi
for p in rpath runpath; do
	run_case "${p}_preload" "$tmp/bin/$p" path "LD_PRELOAD=$ours/$soname"
done
# "needed by" names the library that needs libpapi.
"$pw" --ours "$ours" "$tmp/bin/mid_inherit" >"$tmp/out" 2>&1
if grep -qxF "needed by: $tmp/lib2/libmid2.so" "$tmp/out"; then
	pass needed_by_indirect
else
	fail needed_by_indirect "$(grep '^needed by' "$tmp/out")"
fi

# -v: every search, the one that found it last; the RPATH's own note.
"$pw" -v --ours "$ours" "$tmp/bin/rpath" >"$tmp/out" 2>&1
if grep -q "^looked in: .*$stock (RPATH from file $tmp/bin/rpath)\$" "$tmp/out" &&
	grep -q "^note: or replace $stock/$soname with ours" "$tmp/out"; then
	pass verbose_looked_in "$(grep -c '^looked in:' "$tmp/out") searches"
else
	fail verbose_looked_in "$(tr '\n' ' ' <"$tmp/out")"
fi
# --ours naming a directory without lope's libpapi: no fix, and why.
"$pw" --ours "$stock" "$tmp/bin/runpath" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 0 ] && grep -q "^fix: none known: $stock/$soname: not lope's libpapi" "$tmp/out" &&
	[ "$(grep -c '^fix:' "$tmp/out")" -eq 1 ]; then
	pass ours_not_lope
else
	fail ours_not_lope "exit $rc: $(tr '\n' ' ' <"$tmp/out")"
fi

# Not found: exit 1, where it looked, and the loader agrees.
env -u LD_LIBRARY_PATH "$pw" --ours "$ours" "$tmp/bin/missing" >"$tmp/out" 2>&1
rc=$?
got=$(ran -u LD_LIBRARY_PATH "$tmp/bin/missing")
if [ "$rc" -eq 1 ] && [ "$got" = "not found" ] &&
	grep -q "^loads: not found" "$tmp/out" &&
	grep -q "^looked in: .*/etc/ld.so.cache" "$tmp/out"; then
	pass missing "$(grep '^looked in:' "$tmp/out")"
else
	fail missing "exit $rc, the program ran: '$got': $(tr '\n' ' ' <"$tmp/out")"
fi

# Secure execution: set-user-ID to another user, the loader ignores
# LD_LIBRARY_PATH.  Only root can make one for another user here.
nobody=$(id -u nobody 2>/dev/null)
if [ "$(id -u)" -ne 0 ] || [ -z "$nobody" ]; then
	skip secure "needs root and a user nobody to make a set-user-ID program"
else
	# runpath's twin, its RUNPATH a copy of stock the user nobody can read:
	# the build may be out of nobody's reach (a clone under /root).
	mkdir "$tmp/pub"
	cp -L "$stock/$soname" "$tmp/pub/$soname"
	build "$tmp/bin/suid" "$tmp/prog.c" "${L[@]}" $new -Wl,-rpath,"$tmp/pub"
	chown "$nobody" "$tmp/bin/suid" && chmod 4755 "$tmp/bin/suid"
	run=$(ran "$LLP" "$tmp/bin/suid")
	if [ -n "$run" ] && [ "$(kind_of "$run")" = stock ]; then
		env "$LLP" "$pw" --ours "$ours" "$tmp/bin/suid" >"$tmp/out" 2>&1
		if grep -q "^loads: $run\$" "$tmp/out" &&
			grep -q "secure-execution" "$tmp/out" &&
			grep -q "^found by: RUNPATH" "$tmp/out"; then
			pass secure "LD_LIBRARY_PATH ignored: $run"
		else
			fail secure "ran $run; $(tr '\n' ' ' <"$tmp/out")"
		fi
	else
		skip secure "the loader did not run it in secure-execution mode here (ran '$run'): a nosuid mount?"
	fi
fi

# Bad input: exit 2 and the message.
printf 'hello\n' >"$tmp/text.txt"
: >"$tmp/empty"
head -c 64 "$tmp/bin/none" >"$tmp/truncated"
printf '\177ELF\003\001\001' >"$tmp/badclass"
head -c 60 /dev/zero >>"$tmp/badclass"
expect_bad_inputs "$pw" which "$tmp" <<EOF
missing|$tmp/no-such-file|No such file
text|$tmp/text.txt|not an ELF file
empty|$tmp/empty|not an ELF file
directory|$tmp/bin|is a directory
truncated|$tmp/truncated|truncated
class|$tmp/badclass|ELF class and byte order
library|$tmp/lib/libmid.so|a shared library, not a program
not_on_path|no-such-program-lope|no such program on PATH
no_program||no program named
two_programs|$tmp/bin/none $tmp/bin/none|one program at a time
option|--bogus $tmp/bin/none|unknown option
EOF

# Not found: a program without libpapi, a static one: exit 1, said so.
build "$tmp/bin/nopapi" -x c - <<<'int main(void) { return 0; }'
"$pw" "$tmp/bin/nopapi" >"$tmp/out" 2>&1
rc=$?
if [ "$rc" -eq 1 ] && grep -q "no libpapi" "$tmp/out"; then
	pass which_no_libpapi
else
	fail which_no_libpapi "exit $rc: $(tr '\n' ' ' <"$tmp/out")"
fi
if "$cc" -static -o "$tmp/bin/static" -x c - <<<'int main(void) { return 0; }' 2>/dev/null; then
	"$pw" "$tmp/bin/static" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq 1 ] && grep -q "statically linked" "$tmp/out"; then
		pass which_static
	else
		fail which_static "exit $rc: $(tr '\n' ' ' <"$tmp/out")"
	fi
else
	skip which_static "$cc -static does not link here (no libc.a)"
fi

# No leak, no invalid access: a found, a not found and a bad input.
if command -v valgrind >/dev/null 2>&1; then
	for args in "$tmp/bin/mid_inherit" "$tmp/bin/mid_noinherit" "$tmp/text.txt"; do
		name=valgrind_$(case_name "${args##*/}")
		env -u LD_LIBRARY_PATH valgrind -q --leak-check=full \
			--errors-for-leak-kinds=all --error-exitcode=99 \
			"$pw" --ours "$ours" "$args" >/dev/null 2>"$tmp/vg.err"
		if [ $? -ne 99 ] && ! grep -q "==[0-9]*==" "$tmp/vg.err"; then
			pass "$name"
		else
			fail "$name" "$(grep -m1 "==[0-9]*== [A-Z]" "$tmp/vg.err")"
		fi
	done
else
	skip valgrind "valgrind not installed"
fi
[ "$nfail" -eq 0 ]
