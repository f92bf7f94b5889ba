/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dlfcn.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "papi_internal.h"
#include "perfmon/pfmlib.h"

#include "pe_cpu.h"
#include "pe_glue.h"

void pe_cpu__libpfm4_name(char *buf, size_t len)
{
	char path[PATH_MAX];
	unsigned int major, minor;
	const char *so;
	Dl_info info;

	snprintf(buf, len, "libpfm4");
	/* pfm_get_version() is the API's version, 4.0 in every release;
	 * the library's file says which release: libpfm.so.4.13.0 (a file
	 * named by its soname alone, libpfm.so.4, does not). */
	if (!dladdr((void *)pfm_initialize, &info) || !info.dli_fname ||
	    !realpath(info.dli_fname, path))
		return;
	so = strstr(path, "libpfm.so.");
	if (so && sscanf(so, "libpfm.so.%u.%u", &major, &minor) == 2)
		snprintf(buf, len, "libpfm4 %u.%u", major, minor);
}

/* A "CPU implementer" or "CPU part" line of /proc/cpuinfo (Arm), or
 * "mvendorid" or "marchid" (RISC-V). */
static int cpuinfo_hex(const char *key, unsigned long long *v)
{
	FILE *f = fopen("/proc/cpuinfo", "re");
	char line[256];
	size_t klen = strlen(key);
	int found = 0;

	if (!f)
		return 0;
	while (!found && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && strchr(line, ':'))
			found = sscanf(strchr(line, ':') + 1, "%llx", v) == 1;
	(void)fclose(f); /* read-only stream */
	return found;
}

void pe_cpu__name(char *buf, size_t len)
{
	const PAPI_hw_info_t *hw = &_papi_hwi_system_info.hw_info;
	unsigned long long implementer, part;

	if (hw->vendor == PAPI_VENDOR_INTEL || hw->vendor == PAPI_VENDOR_AMD)
		snprintf(buf, len, "CPU family %d model %d", hw->cpuid_family,
			 hw->cpuid_model);
	else if (cpuinfo_hex("CPU implementer", &implementer) &&
		 cpuinfo_hex("CPU part", &part))
		snprintf(buf, len, "CPU implementer 0x%02llx part 0x%03llx",
			 implementer, part);
	else if (cpuinfo_hex("mvendorid", &implementer) &&
		 cpuinfo_hex("marchid", &part))
		snprintf(buf, len, "CPU mvendorid 0x%llx marchid 0x%llx",
			 implementer, part);
	else if (hw->model_string[0])
		snprintf(buf, len, "CPU %s", hw->model_string);
	else
		snprintf(buf, len, "CPU");
}

int pe_cpu__libpfm4_events(void)
{
	pfm_pmu_info_t pinfo;
	int i, ret, nr = 0;

	for (i = 0; (ret = pe_pfm_pmu(i, &pinfo)) >= 0; i++)
		if (ret && (pinfo.type == PFM_PMU_TYPE_OS_GENERIC ||
			    pinfo.type == PFM_PMU_TYPE_CORE))
			nr += pinfo.nevents;
	return nr;
}

int pe_cpu__counters(void)
{
	pe_attr_t a;
	int n;

	memset(&a, 0, sizeof(a));
	a.attr.size = sizeof(a.attr);
	a.attr.type = PERF_TYPE_HARDWARE;
	a.attr.config = PERF_COUNT_HW_CPU_CYCLES;
	a.attr.exclude_kernel = 1;
	a.attr.exclude_hv = 1;
	n = lope_probe_counters((struct perf_event_attr *)&a, 64);
	return n < 0 ? 0 : n;
}
