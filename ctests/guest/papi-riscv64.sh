#!/bin/sh
# SPDX-License-Identifier: BSD-3-Clause
#
# papi-riscv64.sh TREE: give a copy of a PAPI source tree what its Linux
# layer needs to build for riscv64, where it lacks it.  PAPI learned
# __riscv in 7.2 (mb.h's read barrier, linux-context.h's overflow
# address, linux-timer.c's get_cycles(), which returns 0 there as on arm
# and mips); 7.0 and 7.1 stop at an #error or an undefined get_cycles.
# Each missing piece is added as 7.2 has it and said on standard output;
# a tree that has them is left as it is.  Only the
# guest's copies are edited (ctests/guest/guest.mk), never the tree the
# host builds.
set -eu

tree=$1
if [ ! -f "$tree/src/mb.h" ] || [ ! -f "$tree/src/linux-context.h" ]; then
	echo "papi-riscv64.sh: $tree is not a PAPI source tree" >&2
	exit 1
fi

# add FILE WHAT LINE...: insert the lines before FILE's aarch64 branch.
add() {
	name=$1 file=$tree/src/$1 what=$2
	shift 2
	if grep -q '__riscv' "$file"; then
		return 0
	fi
	grep -q '^#elif defined(__aarch64__)' "$file" || {
		echo "papi-riscv64.sh: no aarch64 branch in $file to add riscv64 beside" >&2
		exit 1
	}
	printf '%s\n' "$@" >"$file.riscv"
	sed -i "/^#elif defined(__aarch64__)/ {
		r $file.riscv
		N
	}" "$file"
	rm -f "$file.riscv"
	echo "# papi-riscv64.sh: $(basename "$tree"): src/$name has no riscv64 branch: added $what"
}

add mb.h "rmb() as fence ir,ir (Linux's rmb)" \
	'#elif defined(__riscv)' \
	'#define rmb()           asm volatile("fence ir, ir" ::: "memory")'
add linux-context.h "OVERFLOW_ADDRESS() as the pc of the signal's context" \
	'#elif defined(__riscv)' \
	'#define OVERFLOW_ADDRESS(ctx) ctx.ucontext->uc_mcontext.__gregs[REG_PC]'
timer=$tree/src/linux-timer.c
if ! grep -q '__riscv' "$timer"; then
	grep -q '^#elif (defined(__arm__) || defined(__mips__) || defined(__hppa__))$' "$timer" || {
		echo "papi-riscv64.sh: no arm/mips get_cycles() branch in $timer" >&2
		exit 1
	}
	sed -i 's/^#elif (defined(__arm__) || defined(__mips__) || defined(__hppa__))$/& || defined(__riscv)/' "$timer"
	echo "# papi-riscv64.sh: $(basename "$tree"): src/linux-timer.c has no riscv64 get_cycles(): added to arm's (returns 0)"
fi
