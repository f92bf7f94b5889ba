/* SPDX-License-Identifier: BSD-3-Clause */
/* The core PMU in sysfs (core_pmu.h). */
#include "core_pmu.h"

#include <dirent.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* Does the PMU @name have a cpus file? */
static int has_cpus(const char *name)
{
	char path[512];

	snprintf(path, sizeof(path), LOPE_PMU_DEVICES "/%s/cpus", name);
	return access(path, F_OK) == 0;
}

const char *lope_core_pmu(void)
{
	static char name[256];
	struct dirent *e;
	DIR *d;

	if (access(LOPE_PMU_DEVICES "/cpu", F_OK) == 0)
		return "cpu";
	if (access(LOPE_PMU_DEVICES "/cpu_core", F_OK) == 0)
		return "cpu_core";
	name[0] = 0;
	d = opendir(LOPE_PMU_DEVICES);
	if (!d)
		return NULL;
	while ((e = readdir(d)))
		if (e->d_name[0] != '.' && has_cpus(e->d_name) &&
		    strlen(e->d_name) < sizeof(name) &&
		    (!name[0] || strcmp(e->d_name, name) < 0))
			snprintf(name, sizeof(name), "%s", e->d_name);
	closedir(d);
	return name[0] ? name : NULL;
}
