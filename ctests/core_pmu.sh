# SPDX-License-Identifier: BSD-3-Clause
# shellcheck shell=bash
# Sourced by the shell tests: core_pmu prints the core PMU's name in
# /sys/bus/event_source/devices and succeeds, or fails without one.  The
# same rule as ctests/lib/core_pmu.h (see there): cpu, cpu_core, or the first
# PMU with a cpus file (Arm's armv8_pmuv3 ..., hybrid x86's cpu_atom).
core_pmu() {
	local d=/sys/bus/event_source/devices n
	for n in cpu cpu_core; do
		if [ -e "$d/$n" ]; then
			echo "$n"
			return 0
		fi
	done
	# (the entries are symlinks: a glob follows them, find would not)
	n=$(for n in "$d"/*/cpus; do
		[ -e "$n" ] && basename "$(dirname "$n")"
	done | LC_ALL=C sort | sed -n 1p)
	[ -n "$n" ] && echo "$n"
}

# The reason a hardware case gives without one.
# shellcheck disable=SC2034 # used by the scripts that source this
NO_CORE_PMU_REASON="no hardware PMU: no cpu PMU, nor one with a cpus file, in /sys/bus/event_source/devices"
