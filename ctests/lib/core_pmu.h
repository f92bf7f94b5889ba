/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Is there a core PMU, and what is its name in sysfs?  The one place the
 * tests decide whether their hardware cases run (ctests/core_pmu.sh is the
 * same rule for the shell tests).
 *
 * A core PMU is a directory of /sys/bus/event_source/devices named cpu
 * (x86), or one with a cpus file: the kernel gives one to the PMUs that
 * count on a set of CPUs, the big and little cores of a hybrid x86
 * (cpu_core, cpu_atom) and every Arm core PMU (the arm_pmu driver's
 * armv8_pmuv3, armv8_pmuv3_0, armv8_cortex_a72, armv9_neoverse_v2 ...);
 * uncore PMUs have a cpumask instead.  cpu_core is preferred to cpu_atom;
 * otherwise, of several (big.LITTLE), the first in name order.
 */
#ifndef LOPE_CORE_PMU_H
#define LOPE_CORE_PMU_H

#define LOPE_PMU_DEVICES "/sys/bus/event_source/devices"

/* The reason a hardware case gives where lope_core_pmu() finds none. */
#define LOPE_NO_CORE_PMU_REASON                                      \
	"no hardware PMU: no cpu PMU, nor one with a cpus file, in " \
	"/sys/bus/event_source/devices"

/* The core PMU's name (a static string), or NULL without one. */
const char *lope_core_pmu(void);

#endif /* LOPE_CORE_PMU_H */
