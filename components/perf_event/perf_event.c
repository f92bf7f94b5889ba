/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI's perf_event CPU component on the lope engine: its vector, the
 * calls on the measured path, native event names and init.
 *
 * Thin glue: PAPI's control state becomes one lope_group and PAPI's
 * options become group flags (pe_set.c); native event names go through
 * PAPI's own libpfm4 naming layer (pe_libpfm4_events.c, kept from the
 * PAPI tree) so names and codes are identical to stock PAPI.  Reads use
 * rdpmc where the kernel allows it, read(2) otherwise; reset, accum and
 * restart use base values in the engine instead of
 * PERF_EVENT_IOC_RESET.  Overflow and profiling are kernel sampling
 * (pe_overflow.c).
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "papi.h"
#include "papi_internal.h"
#include "papi_vector.h"
#include "extras.h"

#include "papi_libpfm4_events.h"
#include "papi_preset.h"
#include "pe_libpfm4_events.h"
#include "linux-common.h"
#include "perfmon/pfmlib_perf_event.h"

#include "lope.h"
#include "pe_cpu.h"
#include "pe_set.h"

/* PAPI hands us one long long per event; the engine writes int64_t. */
_Static_assert(sizeof(long long) == sizeof(int64_t), "64-bit counts");

/* Forces the read(2) path, for comparisons with the rdpmc path. */
#define PE_ENV_NO_RDPMC "LOPE_NO_RDPMC"
/* PAPI_stop stops every set in the kernel, as stock does: no lazy stop. */
#define PE_ENV_KERNEL_STOP "LOPE_KERNEL_STOP"

/* Our section of PAPI's preset table (lope_presets.csv). */
#define PE_PRESET_SECTION "lope_generic"

papi_vector_t _perf_event_vector;
struct pe_names pe_core_names;
struct lope_cores *pe_cores;
int pe_cidx;
unsigned int pe_engine_flags;

int pe_env_on(const char *name)
{
	const char *v = getenv(name);

	return v && *v && strcmp(v, "0") != 0;
}

static int pe_start(hwd_context_t *ctx, hwd_control_state_t *ctl)
{
	pe_control_t *c = (pe_control_t *)ctl;
	int err;

	(void)ctx;
	/* Enable-on-exec: the kernel starts the counters at the exec; an
	 * ioctl now would count the launcher up to it.  Later starts (after
	 * a stop) are ordinary. */
	if (c->exec_armed) {
		c->exec_armed = 0;
		return PAPI_OK;
	}
	err = lope_group__enable(c->grp);
	/* A failed change whose old group could not be reopened either
	 * (lope_group__replace): open it now. */
	if (err == -EBADF && lope_group__open(c->grp) == 0)
		err = lope_group__enable(c->grp);
	return pe_errno_to_papi(err);
}

static int pe_read(hwd_context_t *ctx, hwd_control_state_t *ctl,
		   long long **events, int flags)
{
	pe_control_t *c = (pe_control_t *)ctl;

	(void)ctx;
	(void)flags;
	/* PAPI looks at *events only when the read succeeds.  An open
	 * set's group is never NULL, nor its counts: the read without the
	 * tests. */
	*events = (long long *)c->counts;
	return pe_errno_to_papi(lope_group__read_fast(c->grp, c->counts));
}

static int pe_write(hwd_context_t *ctx, hwd_control_state_t *ctl,
		    long long *from)
{
	pe_control_t *c = (pe_control_t *)ctl;
	int i;

	(void)ctx;
	for (i = 0; i < c->nr; i++)
		c->counts[i] = from[i];
	return pe_errno_to_papi(lope_group__write(c->grp, c->counts));
}

/*
 * While PAPI loads presets (its own table's section for the CPU, or our
 * generic one), an event the kernel refuses here does not exist: the
 * preset is left out instead of listed and unusable, as stock PAPI lists
 * such presets (doc/every-cpu.md).  Whether PAPI asked for any event
 * tells whether its table had a section for the CPU at all.
 */
static struct {
	int on;
	int asked;
} loading_presets;

/*
 * On a hybrid CPU, can a preset's event count on every core type?  A
 * generic event with no equivalent on one of them (no extended type, no
 * sysfs event of that meaning) would count on some cpus only: such a
 * preset is left out.  An event of one PMU (PAPI's table of one core
 * type) is kept: it counts on that core type, as in stock PAPI.
 */
static int counts_everywhere(pe_attr_t *a)
{
	struct perf_event_attr parts[LOPE_CORES_MAX];
	int pmu[LOPE_CORES_MAX];

	return lope_cores__split(pe_cores, &a->attr, parts, pmu,
				 LOPE_CORES_MAX) > 0;
}

/* libpfm4's encoding of event @name into @a: 0, or -1. */
static int libpfm4_encode(const char *name, pe_attr_t *a)
{
	pfm_perf_encode_arg_t arg;

	memset(&arg, 0, sizeof(arg));
	memset(a, 0, sizeof(*a));
	arg.size = sizeof(arg);
	arg.attr = &a->attr;
	return pfm_get_os_event_encoding(name, PFM_PLM3, PFM_OS_PERF_EVENT,
					 &arg) == PFM_SUCCESS ?
		       0 :
		       -1;
}

/* pe_core_names.accept: every name, but while PAPI loads presets only the events
 * the kernel opens here. */
static int accept_name(const char *name)
{
	pe_attr_t a;

	if (!loading_presets.on)
		return 1;
	loading_presets.asked++;
	if (libpfm4_encode(name, &a))
		return 0;
	a.attr.exclude_kernel = 1;
	a.attr.exclude_hv = 1;
	return lope_probe((struct perf_event_attr *)&a, 0, -1) == 0 &&
	       counts_everywhere(&a);
}

/*
 * On a hybrid CPU, the description of an event of one core type ends
 * with it: " [armv8_cortex_a57 only: cpus 0]".
 */
static void note_core_type(unsigned int code, char *descr, size_t len)
{
	struct perf_event_attr parts[LOPE_CORES_MAX];
	char name[PAPI_HUGE_STR_LEN];
	struct lope_pmu_event ev;
	int pmu[LOPE_CORES_MAX];
	pe_attr_t a;
	size_t n;

	if (lope_cores__nr(pe_cores) < 2)
		return;
	if (pe_sysfs__is_code(code)) {
		if (pe_sysfs__event(&pe_core_names.sysfs, code, &a, &ev) !=
		    PAPI_OK)
			return;
	} else if (pe_names__code_to_name(&pe_core_names, code, name,
					  sizeof(name)) != PAPI_OK ||
		   libpfm4_encode(name, &a)) {
		return;
	}
	if (lope_cores__split(pe_cores, &a.attr, parts, pmu, LOPE_CORES_MAX) !=
		    1 ||
	    pmu[0] < 0)
		return;
	n = strlen(descr);
	snprintf(descr + n, len - n, " [%s only: cpus %s]",
		 lope_cores__name(pe_cores, pmu[0]),
		 lope_cores__cpus(pe_cores, pmu[0]));
}

/* PAPI's ntv_* calls: libpfm4's events first, then the core PMUs' in
 * sysfs (pe_sysfs.h). */
static int pe_ntv_enum_events(unsigned int *code, int modifier)
{
	return pe_names__enum(&pe_core_names, code, modifier);
}

static int pe_ntv_name_to_code(const char *name, unsigned int *code)
{
	return pe_names__name_to_code(&pe_core_names, name, code);
}

static int pe_ntv_code_to_name(unsigned int code, char *name, int len)
{
	return pe_names__code_to_name(&pe_core_names, code, name, len);
}

static int pe_ntv_code_to_descr(unsigned int code, char *descr, int len)
{
	int ret = pe_names__code_to_descr(&pe_core_names, code, descr, len);

	if (ret == PAPI_OK)
		note_core_type(code, descr, (size_t)len);
	return ret;
}

static int pe_ntv_code_to_info(unsigned int code, PAPI_event_info_t *info)
{
	int ret = pe_names__code_to_info(&pe_core_names, code, info);

	if (ret == PAPI_OK)
		note_core_type(code, info->long_descr,
			       sizeof(info->long_descr));
	return ret;
}

/*
 * Ask the kernel what this process may count, as it decides (paranoid
 * level, CAP_PERFMON, CAP_SYS_ADMIN, a vendor's paranoid 3), with a
 * software event every kernel has: nothing at all, or no kernel domain.
 */
static int check_permissions(papi_vector_t *v)
{
	pe_attr_t a;
	int err;

	pe_sw_attr(&a, 1);
	err = lope_probe((struct perf_event_attr *)&a, 0, -1);
	if (err == -EACCES || err == -EPERM)
		return pe_refused(v, err, 2);
	if (err)
		return pe_disable(v, PAPI_ECMP,
				  "perf_event support not detected: %s",
				  strerror(-err));
	pe_sw_attr(&a, 0);
	if (lope_probe((struct perf_event_attr *)&a, 0, -1) != 0)
		v->cmp_info.available_domains &= ~PAPI_DOM_KERNEL;
	return PAPI_OK;
}

/* fast_counter_read is 1 only if rdpmc really works here; @why says why not,
 * or yes and the switch that allows it. */
static void detect_rdpmc(papi_vector_t *v, char *why, size_t len)
{
	if (pe_env_on(PE_ENV_NO_RDPMC)) {
		snprintf(why, len, "forced off by %s", PE_ENV_NO_RDPMC);
		v->cmp_info.fast_counter_read = 0;
	} else {
		v->cmp_info.fast_counter_read = lope_rdpmc_usable(why, len) ==
						0;
	}
	pe_engine_flags = v->cmp_info.fast_counter_read ? 0 : LOPE_NO_RDPMC;
	if (pe_env_on(PE_ENV_KERNEL_STOP))
		pe_engine_flags |= LOPE_KERNEL_STOP;
}

static int libpfm4_reason(papi_vector_t *v, int ret)
{
	switch (ret) {
	case PAPI_ENOMEM:
		return pe_disable(v, ret, "Error libpfm4 memory allocation");
	case PAPI_ENOSUPP:
		return pe_disable(v, ret, "Error libpfm4 no PMUs found");
	case PAPI_ENOEVNT:
		return pe_disable(v, ret, "Error loading preset events");
	default:
		return pe_disable(v, ret, "Unknown libpfm4 related error");
	}
}

/* PAPI's user-defined events that are defined: they fill the table's head. */
extern hwi_presets_t user_defined_events[];
extern int user_defined_events_count;

static int defined_user_events(void)
{
	int n = 0;

	while (n < PAPI_MAX_USER_EVENTS && user_defined_events[n].symbol)
		n++;
	return n;
}

/*
 * Where no preset of PAPI's table counts here (it has no section for this
 * CPU, or the kernel refuses the events of its section), the presets that
 * are exactly one of the kernel's generic events: our section of PAPI's
 * own table (lope_presets.csv, added to papi_events.csv by the build),
 * loaded by PAPI's own loader, each one only if the kernel accepts its
 * event here.  The loader reads PAPI_USER_EVENTS_FILE again, so that user
 * events built on these presets resolve; it counts the ones it already
 * had twice, hence the recount.
 */
static void load_generic_presets(int cidx)
{
	static char section[] = PE_PRESET_SECTION;

	loading_presets.on = 1;
	if (_papi_load_preset_table(section, 0, cidx) != PAPI_OK)
		SUBDBG("no preset section %s\n", section);
	loading_presets.on = 0;
	user_defined_events_count = defined_user_events();
}

/* Why PAPI's libpfm4 layer has no default core PMU here, for @mode. */
static void unknown_cpu_mode(char *mode, size_t len, int ret,
			     const char *libpfm4)
{
	const char *forced = getenv("LIBPFM_FORCE_PMU");
	char cpu[PAPI_MIN_STR_LEN];

	if (ret == PAPI_ECOUNT) {
		snprintf(mode, len,
			 "hybrid CPU, several core PMUs in %.16s: "
			 "generic and sysfs events",
			 libpfm4);
	} else if (forced && *forced) {
		snprintf(mode, len,
			 "%.16s limited to %.16s by LIBPFM_FORCE_PMU: "
			 "generic and sysfs events",
			 libpfm4, forced);
	} else {
		pe_cpu__name(cpu, sizeof(cpu));
		snprintf(mode, len,
			 "%.40s unknown to %.16s: generic and sysfs "
			 "events",
			 cpu, libpfm4);
	}
}

/*
 * libpfm4 knows no core PMU of this CPU (or several, on a hybrid one):
 * its generic events, the core PMUs' own sysfs events and, without a CPU
 * table, as many counters as the kernel schedules together.
 */
static int unknown_cpu(papi_vector_t *v)
{
	if (pe_sysfs__open(&pe_core_names.sysfs, LOPE_PMUS_CORE) != PAPI_OK)
		return pe_disable(v, PAPI_ENOMEM, "out of memory");
	pe_sysfs__list_pmus(&pe_core_names.sysfs, v);
	v->cmp_info.num_native_events =
		pe_cpu__libpfm4_events() + pe_sysfs__nr(&pe_core_names.sysfs);
	v->cmp_info.num_cntrs = pe_cpu__counters();
	/* Software events need no counter, and PAPI's framework takes this
	 * number as the limit of overflowing events. */
	if (v->cmp_info.num_cntrs == 0)
		v->cmp_info.num_cntrs = PE_MAX_OVERFLOW_POS;
	return PAPI_OK;
}

/* "; core PMUs armv8_cortex_a53 (cpus 1), armv8_cortex_a57 (cpus 0)" on a
 * hybrid CPU, else "". */
static const char *hybrid(char *buf, size_t len)
{
	size_t n = 0;
	int i, r;

	buf[0] = '\0';
	for (i = 0;
	     lope_cores__nr(pe_cores) > 1 && i < lope_cores__nr(pe_cores);
	     i++) {
		r = snprintf(buf + n, len - n, "%s %s (cpus %s)",
			     i ? "," : "; core PMUs",
			     lope_cores__name(pe_cores, i),
			     lope_cores__cpus(pe_cores, i));
		if (r < 0 || (size_t)r >= len - n)
			break;
		n += (size_t)r;
	}
	return buf;
}

static int pe_init_component(int cidx)
{
	papi_vector_t *v = _papi_hwd[cidx];
	char mode[PAPI_MAX_STR_LEN], why[PAPI_MAX_STR_LEN];
	char libpfm4[PAPI_MIN_STR_LEN], hy[PAPI_MAX_STR_LEN];
	const char *pmu;
	int ret, papi_presets;

	pe_names__reinit(&pe_core_names, v);
	pe_cidx = cidx;
	pe_core_names.cidx = cidx;
	pe_core_names.accept = accept_name;
	ret = check_permissions(v);
	if (ret != PAPI_OK)
		return ret;
	/* HPCToolkit picks its own signals assuming PAPI uses this one. */
	v->cmp_info.hardware_intr_sig = SIGRTMIN + 2;
	if (_papi_hwi_system_info.hw_info.vendor == PAPI_VENDOR_INTEL ||
	    _papi_hwi_system_info.hw_info.vendor == PAPI_VENDOR_AMD)
		v->cmp_info.fast_real_timer = 1;
	/* Kept from an earlier init: PAPI_library_init in a forked child
	 * inits again while the parent's sets, which use it, still exist. */
	if (!pe_cores &&
	    lope_cores__new(&pe_cores, pe_sysfs__root()) == -ENOMEM)
		return pe_disable(v, PAPI_ENOMEM, "out of memory");
	detect_rdpmc(v, why, sizeof(why));
	pe_cpu__libpfm4_name(libpfm4, sizeof(libpfm4));
	if (_papi_libpfm4_init(v) != PAPI_OK)
		return pe_disable(v, PAPI_ECMP, "Error initializing libpfm4");
	/* PAPI's libpfm4 layer loads PAPI's own preset section, if any.
	 * The count is this init's: in a forked child that initialises
	 * again, PAPI kept the parent's, whose presets name the parent's
	 * native codes, which this init numbers anew; counted, they would
	 * keep the generic presets from being loaded again. */
	v->cmp_info.num_preset_events = 0;
	loading_presets.on = 1;
	ret = _pe_libpfm4_init(v, cidx, &pe_core_names.table,
			       PMU_TYPE_CORE | PMU_TYPE_OS);
	loading_presets.on = 0;
	papi_presets = v->cmp_info.num_preset_events;
	pmu = pe_core_names.table.default_pmu.name;
	if (ret == PAPI_OK && lope_cores__nr(pe_cores) > 1) {
		/* A hybrid CPU libpfm4 names by one core type: each core
		 * PMU's own events too, which count on that type alone. */
		if (pe_sysfs__open(&pe_core_names.sysfs, LOPE_PMUS_CORE) !=
		    PAPI_OK)
			return pe_disable(v, PAPI_ENOMEM, "out of memory");
		pe_sysfs__list_pmus(&pe_core_names.sysfs, v);
		v->cmp_info.num_native_events +=
			pe_sysfs__nr(&pe_core_names.sysfs);
	}
	if (ret == PAPI_OK) {
		/* The NMI watchdog holds one counter for itself. */
		if (_linux_detect_nmi_watchdog() && v->cmp_info.num_cntrs > 0)
			v->cmp_info.num_cntrs--;
		snprintf(
			mode, sizeof(mode), "%.16s %.32s%s", libpfm4,
			pmu ? pmu : "?",
			papi_presets ?
				"" :
			!loading_presets.asked ?
				", generic presets (none in PAPI's table)" :
				", generic presets (none of PAPI's counts here)");
	} else if (ret == PAPI_ECMP || ret == PAPI_ECOUNT) {
		unknown_cpu_mode(mode, sizeof(mode), ret, libpfm4);
		ret = unknown_cpu(v);
		if (ret != PAPI_OK)
			return ret;
	} else {
		return libpfm4_reason(v, ret);
	}
	/* Where a preset of PAPI's table counts here, PAPI's table wins. */
	if (!papi_presets)
		load_generic_presets(cidx);
	snprintf(v->cmp_info.description, sizeof(v->cmp_info.description),
		 "lope; %.80s; rdpmc: %.32s%s", mode, why,
		 hybrid(hy, sizeof(hy)));
	v->cmp_info.disabled = PAPI_OK;
	return PAPI_OK;
}

static int pe_shutdown_component(void)
{
	lope_cores__delete(pe_cores);
	pe_cores = NULL;
	return pe_names__shutdown(&pe_core_names, &_perf_event_vector);
}

papi_vector_t _perf_event_vector = {
	.cmp_info = {
		.name = "perf_event",
		.short_name = "perf",
		.version = "lope-1.0",
		.description = "Linux perf_event CPU counters (lope)",
		.default_domain = PAPI_DOM_USER,
		.available_domains = PAPI_DOM_USER | PAPI_DOM_KERNEL |
				     PAPI_DOM_SUPERVISOR,
		.default_granularity = PAPI_GRN_THR,
		.available_granularities = PAPI_GRN_THR | PAPI_GRN_SYS,
		.hardware_intr = 1,
		.kernel_profile = 1,
		.attach = 1,
		.attach_must_ptrace = 1,
		.cpu = 1,
		.inherit = 1,
		.cntr_umasks = 1,
		.kernel_multiplex = 1,
		.num_mpx_cntrs = PE_MAX_EVENTS,
	},
	.dispatch_timer = pe_dispatch_timer,
	.set_overflow = pe_set_overflow,
	.set_profile = pe_set_profile,
	.stop_profiling = pe_stop_profiling,
	PE_VECTOR_CALLS(pe, pe_control_t),
};
