/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the perf_event component can learn of this CPU without a table:
 * libpfm4's release, the CPU's name for messages, libpfm4's generic events,
 * and the hardware counters the kernel schedules together.
 */
#ifndef PE_CPU_H
#define PE_CPU_H

#include <stddef.h>

/* "libpfm4 4.13" from the libpfm4 this process loaded, "libpfm4" if its
 * file does not say its release. */
void pe_cpu__libpfm4_name(char *buf, size_t len);
/* "CPU family 26 model 2" (x86), "CPU implementer 0x00 part 0x051" (Arm),
 * "CPU mvendorid 0x489 marchid 0x8000000000000007" (RISC-V). */
void pe_cpu__name(char *buf, size_t len);
/* Events of libpfm4's present core and generic ("perf") PMUs. */
int pe_cpu__libpfm4_events(void);
/* Hardware counters one event set can use at once; 0 without a core PMU. */
int pe_cpu__counters(void);

#endif /* PE_CPU_H */
