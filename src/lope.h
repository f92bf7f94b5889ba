/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lope: a small, PAPI-independent perf_event counting engine.
 *
 * A struct lope_group is one PAPI-style event set: a list of perf_event
 * attributes opened as one kernel group (or as one group per event when
 * multiplexing), the self-monitoring page of each event mapped and
 * pre-faulted, and per-event base values so that reset, accumulate and
 * restart need no system call where the counters are readable from user
 * space.
 *
 * Lifetime rules:
 *  - a group is used by one thread at a time; the library takes no locks
 *    but one, around its registry of lazy stops, and never in a measured
 *    call (doc/lazy-stop.md);
 *  - a group stopped in user space belongs to the thread that opened it
 *    until closed: that thread's next enable of another group may disable
 *    it in the kernel, so another thread must not close it meanwhile;
 *  - user-space reads (rdpmc) are only attempted for events opened on the
 *    calling thread itself (pid 0, any cpu -1, no inherit) and only from the
 *    thread that opened them; every other read goes through read(2);
 *  - every function returns 0 (or a non-negative count) on success and a
 *    negative errno value on failure; the library never prints.
 */
#ifndef LOPE_H
#define LOPE_H

#include <stdint.h>
#include <sys/types.h>

struct perf_event_attr;

/* Inside libpapi the engine is private: built with -DLOPE_HIDDEN. */
#ifdef LOPE_HIDDEN
#define LOPE_API __attribute__((visibility("hidden")))
#else
#define LOPE_API __attribute__((visibility("default")))
#endif

struct lope_group;

/* One event's raw value with its total enabled and running times. */
struct lope_counts {
	uint64_t val;
	uint64_t ena;
	uint64_t run;
};

/* Flags for lope_group__new(). */
enum lope_flags {
	LOPE_INHERIT = 1u << 0,  /* counters follow children created later  */
	LOPE_SEPARATE = 1u << 1, /* one kernel group per event (multiplex)  */
	LOPE_NO_RDPMC = 1u << 2, /* never read in user space: read(2) only  */
	/*
	 * Open the leaders with enable_on_exec: the kernel starts them when
	 * the measured task next calls exec (a failed exec does not), so a
	 * launcher that attaches to its child before the exec counts none of
	 * its own instructions.  lope_group__enable() still starts them at
	 * once: a caller wanting the exec to start them does not call it.
	 */
	LOPE_ENABLE_ON_EXEC = 1u << 3,
	/*
	 * Stop in the kernel, always: no lazy stop (lope_group__disable()).
	 * Without it, a group read in user space, with no overflow, stops in
	 * user space and leaves its counters enabled in the kernel.
	 */
	LOPE_KERNEL_STOP = 1u << 4,
};

/* How the last lope_group__read() got its values. */
enum lope_path {
	LOPE_PATH_NONE = 0,
	LOPE_PATH_RDPMC = 1,
	LOPE_PATH_READ = 2,
};

/*
 * Create an empty group measuring @pid (0: the calling thread) on @cpu
 * (-1: any cpu).  Nothing is opened until lope_group__open().
 */
LOPE_API int lope_group__new(struct lope_group **out, pid_t pid, int cpu,
			     unsigned int flags);
/* Close everything the group opened and free it.  NULL is accepted. */
LOPE_API void lope_group__delete(struct lope_group *g);

/*
 * Append a copy of @attr; returns the event's index.  The engine owns the
 * read_format, disabled and inherit bits and the sampling fields
 * (sample_period, freq, sample_type, wakeup_events, watermark: see
 * lope_group__set_overflow); the caller owns everything else.
 * The group must not be open.
 */
LOPE_API int lope_group__add(struct lope_group *g,
			     const struct perf_event_attr *attr);
LOPE_API int lope_group__nr(const struct lope_group *g);
/*
 * The attribute as added, for the caller to change before the group is
 * opened; the fields the engine owns are set on the kernel's copy at open.
 */
LOPE_API struct perf_event_attr *lope_group__attr(struct lope_group *g,
						  int idx);

/*
 * Open every event disabled, map and pre-fault each event's
 * self-monitoring page where user-space reads are possible, and zero the
 * bases.  On failure nothing stays open.  A failed mmap is not an error:
 * that event is read with read(2).
 */
LOPE_API int lope_group__open(struct lope_group *g);
/* Close descriptors and unmap pages; the attribute list is kept. */
LOPE_API void lope_group__close(struct lope_group *g);
/*
 * Changing a group: what lope_group__change() changes (struct
 * lope_change's @what); the fields of the others are not read.
 */
enum lope_change_what {
	LOPE_CHANGE_TARGET = 1u << 0,   /* @pid, @cpu: as lope_group__new's */
	LOPE_CHANGE_FLAGS = 1u << 1,    /* @flags: enum lope_flags */
	LOPE_CHANGE_ATTR = 1u << 2,     /* @edit(attr, idx, @arg) each event */
	LOPE_CHANGE_OVERFLOW = 1u << 3, /* event @idx's @period, @signo */
};

struct lope_change {
	unsigned int what;
	pid_t pid;
	int cpu;
	unsigned int flags;
	/* Edits event @idx's attribute (the exclude bits of a new domain,
	 * say); the fields the engine owns are set at open whatever it does. */
	void (*edit)(struct perf_event_attr *attr, int idx, void *arg);
	void *arg;
	/* As lope_group__set_overflow(): every @period events (0: never). */
	int idx;
	uint64_t period;
	int signo;
};

/*
 * Change @g's settings as @ch says, all or nothing.  A group that is not
 * open takes them for its next lope_group__open().  An open group must
 * be stopped (-EBUSY): it is closed first, so it never holds two sets of
 * descriptors and one changed near RLIMIT_NOFILE needs no more than it
 * will hold, then opened with the new settings.  If the kernel refuses
 * them, the group gets its old settings back and is opened again with
 * the values lope_group__read() gave before, and the kernel's error is
 * returned; only if even that reopen fails (another thread took the
 * descriptors just freed) is @g left closed, for a later
 * lope_group__open().  -EINVAL: a cpu below -1, pid and cpu both -1, an
 * @idx out of range, a @period without a signal; -EOPNOTSUPP: overflow
 * with LOPE_INHERIT.  The overflow signal handler must not run meanwhile.
 */
LOPE_API int lope_group__change(struct lope_group *g,
				const struct lope_change *ch);
/*
 * Open @next (built, not open) in place of @g, a stopped group that may be
 * open, closed or NULL, as lope_group__change() does in place: @g is
 * closed first, and if @next cannot be opened, @g is opened again with
 * its values and @next's error is returned.  On success @g is closed and
 * the caller deletes it.  -EBUSY: @g is counting.
 */
LOPE_API int lope_group__replace(struct lope_group *g, struct lope_group *next);
LOPE_API int lope_group__fd(const struct lope_group *g, int idx);

/*
 * Start counting: one ioctl per kernel group (one for a normal set), or
 * none for a group stopped in user space (a lazy stop, below): its bases
 * are then taken from the pages, so that nothing counted while it was
 * stopped is in its values.  Before an enable in the kernel, the calling
 * thread's groups stopped in user space that would share a PMU with @g
 * are disabled in the kernel (one ioctl each): a stopped group never
 * takes counters from a running one (doc/lazy-stop.md).
 */
LOPE_API int lope_group__enable(struct lope_group *g);
/*
 * Stop counting and read the stopped values, which become the bases the
 * next lope_group__enable() counts from (a disabled counter does not move).
 * @values may be NULL; otherwise it receives what lope_group__read() would
 * have returned just before the stop.
 *
 * A lazy stop: a group read in user space, without overflow or
 * LOPE_KERNEL_STOP, and enabled in the kernel by this process, stops in
 * user space, with no system call; its counters stay enabled in the
 * kernel until its next enable, its close, or another group's enable in
 * the kernel (above).  Every verb then behaves as after a stop in the
 * kernel: the values stand still.
 */
LOPE_API int lope_group__disable(struct lope_group *g, int64_t *values);
/*
 * Stop counting right after a lope_group__read() (PAPI_stop reads, then
 * stops): the counts that read saw become the bases, so stopping is one
 * ioctl, or none for a lazy stop (above); in the kernel, what the
 * counters add in between goes to the next interval.  Without a read
 * since the last enable this is lope_group__disable().
 */
LOPE_API int lope_group__disable_after_read(struct lope_group *g);

/*
 * Values since the last reset/start (plus what lope_group__write() set),
 * scaled exactly by enabled/running time when the kernel multiplexed them.
 */
LOPE_API int lope_group__read(struct lope_group *g, int64_t *values);
/*
 * Every group starts with the function lope_group__read() calls, which
 * the engine keeps to the group's state.  A caller whose @g and @values
 * are never NULL calls it itself with lope_group__read_fast(): the same
 * read, without lope_group__read()'s tests and its call (PAPI_read's
 * path in the component).
 */
struct lope_group_head {
	int (*read)(struct lope_group *g, int64_t *values);
};

static inline int lope_group__read_fast(struct lope_group *g, int64_t *values)
{
	return ((const struct lope_group_head *)(const void *)g)
		->read(g, values);
}
/*
 * Zero the values: takes the current raw counts as bases, no ioctl.  A
 * reset that comes right after a read, with no other call on the group in
 * between, and within one system call's time after it (the group's
 * leader's perf_event_open, timed at open), takes
 * that read's sample as it is: a read followed by a reset, as in
 * PAPI_accum, then makes one system call (none in user space), and no
 * count falls between them.  A sample serves one reset.
 */
LOPE_API int lope_group__reset(struct lope_group *g);
/* Make the values read back as @values from now on. */
LOPE_API int lope_group__write(struct lope_group *g, const int64_t *values);
/* Raw, unscaled kernel values (not relative to any base). */
LOPE_API int lope_group__read_raw(struct lope_group *g,
				  struct lope_counts *counts);
/*
 * The raw values of the sample the last read (or reset, write, stop) took,
 * without reading again: -ENODATA when there is none since the last
 * enable or failed read.
 */
LOPE_API int lope_group__last_counts(const struct lope_group *g,
				     struct lope_counts *counts);

/* Which path the last read took, and how many events user space reads. */
LOPE_API enum lope_path lope_group__last_path(const struct lope_group *g);
LOPE_API int lope_group__nr_mapped(const struct lope_group *g);

/*
 * Overflow.  Event @idx overflows every @period events (nanoseconds for
 * the clock events); each overflow sends signal @signo, with si_fd set to
 * the event's descriptor, to the thread that opens the group.  The event
 * counts on; at most a small budget of overflow signals can wait (the
 * kernel stops the event when it is used up), and lope_group__rearm(),
 * called once per signal after lope_group__overflows() took the event's
 * samples, renews it.  Where the kernel allows it, a ring
 * buffer holds a sample per overflow (its address and the group's
 * counts); its first page is the event's own page, read as before (rdpmc
 * or read(2)).  @period 0 turns overflow off.  Applied by
 * lope_group__open(): the group must not be open (-EBUSY).  -EOPNOTSUPP
 * with LOPE_INHERIT: the kernel cannot re-arm inherited events.
 */
LOPE_API int lope_group__set_overflow(struct lope_group *g, int idx,
				      uint64_t period, int signo);
/*
 * The rest is for the overflow signal handler and async-signal-safe.  The
 * handler must not run while the group is being opened or closed.
 */
/* The index of the event whose descriptor is @fd (si_fd), or -ENOENT. */
LOPE_API int lope_group__find_fd(const struct lope_group *g, int fd);

/* One overflow: event @idx passed a multiple of its period at @ip. */
struct lope_overflow {
	uint64_t ip; /* the sampled instruction address; 0: not known */
	int idx;
};

/*
 * The overflows behind a signal of event @idx, oldest first, up to @max
 * into @out; returns how many (call again while it returns @max), or
 * -ENOBUFS when the event has no ring buffer (then the signal is the one
 * overflow, at the signal context's address).  One per sample in the
 * ring, and also the multiples of some sampling event's period that its
 * count passed without a sample: the kernel samples a software clock of
 * the user domain only while the thread is in user space, so an expiry
 * that comes while the thread is in the kernel (delivering the signal of
 * another sampling event, say) is dropped, though the clock counts on.
 * Such an overflow is found in a later sample of the group (its counts)
 * and has that sample's address; a sample of a multiple already given
 * that way gives none.  So each sampling event overflows once per
 * period of its count.
 */
LOPE_API int lope_group__overflows(struct lope_group *g, int idx,
				   struct lope_overflow *out, int max);
/*
 * Once per overflow signal of event @idx, with its si_code @code (POLL_HUP:
 * the budget ran out and the kernel stopped the event).  Renews the budget
 * when half of it is used (one ioctl), unless the group is stopped:
 * lope_group__enable() renews it then.
 */
LOPE_API int lope_group__rearm(struct lope_group *g, int idx, int code);

/*
 * Can this machine read counters in user space?  Opens a throw-away
 * hardware instructions (or cycles) event on the calling thread, reads it
 * through its page, and says in @why what it found: why not, or yes and
 * the switch that allows it where there is one ("yes (perf_user_access
 * 1)").  0: yes; -ENODEV: no core PMU; -EOPNOTSUPP: the kernel or the page
 * refuses; or the error of the call that failed.
 */
LOPE_API int lope_rdpmc_usable(char *why, size_t len);

/*
 * Would the kernel open @attr for @pid on @cpu now?  Opens it disabled and
 * closes it at once: 0, or the kernel's -errno (-EACCES: perf_event_paranoid
 * or a missing capability; -ENOENT: no such event here).
 */
LOPE_API int lope_probe(const struct perf_event_attr *attr, pid_t pid, int cpu);
/*
 * How many copies of @attr (a hardware event) the kernel schedules together
 * in one group on the calling thread, up to @max: the counters an event set
 * can use without multiplexing.  0 when it has none (no such PMU).
 */
LOPE_API int lope_probe_counters(const struct perf_event_attr *attr, int max);

/* Scale @val by @ena/@run exactly (128-bit intermediate, never negative). */
LOPE_API uint64_t lope_scale(uint64_t val, uint64_t ena, uint64_t run);

/*
 * PMUs the kernel describes in sysfs: <root>/<pmu>/{type,cpumask,format/,
 * events/} (root is normally /sys/bus/event_source/devices; tests pass a
 * tree of their own).  lope_pmus__new() lists the PMUs and their event
 * names once; an event's encoding, scale, unit and cpu are read from sysfs
 * each time lope_pmus__event() is asked, so they follow cpu hotplug and
 * cost nothing until used.  A set lists one kind of PMU: the core PMUs
 * (LOPE_PMUS_CORE: "cpu", and those with a "cpus" file: hybrid x86
 * "cpu_core"/"cpu_atom", arm "armv8_pmuv3_0" ...), which count per thread,
 * or all the others (uncore, RAPL, msr ...).  The software, tracepoint,
 * breakpoint, kprobe and uprobe PMUs are never listed: the generic events
 * name them.
 *
 * Events are numbered 0 .. lope_pmus__nr_events() - 1, sorted by PMU then event
 * name; lope_pmus__hide_type() renumbers them, so hide before numbering.
 * A set is not changed by any other call, so threads may share it.
 *
 * Errors: -ENOENT (no such root, PMU or event), -EINVAL (a malformed
 * sysfs file, or a term without a format), -ERANGE (a value wider than
 * its format's bits), -EOPNOTSUPP (a term the caller must supply, "=?",
 * or a field other than config, config1, config2), -EOVERFLOW (a file
 * longer than its purpose allows), -ENODEV (an empty cpumask).
 */
struct lope_pmus;

/* One sysfs event, as lope_pmus__event() decodes it. */
struct lope_pmu_event {
	const char *pmu;  /* sysfs PMU name, e.g. "power"; owned by the set */
	const char *name; /* event name, e.g. "energy-pkg"; owned by the set */
	char terms[256];  /* its sysfs encoding, e.g. "event=0x02" */
	char unit[32];    /* e.g. "Joules"; "" when sysfs gives none */
	double scale;     /* raw count * scale = value in unit; 1: none given */
	int cpu;          /* first cpu of the PMU's cpumask; -1: no cpumask */
	int snapshot;     /* 1: the count is a current value, not a sum */
};

/* Which PMUs a set lists. */
enum lope_pmus_kind {
	LOPE_PMUS_SYSTEM = 0, /* uncore, RAPL, msr ...: counted per cpu */
	LOPE_PMUS_CORE = 1,   /* the CPU's own PMUs: counted per thread */
};

LOPE_API int lope_pmus__new(struct lope_pmus **out, const char *root,
			    enum lope_pmus_kind kind);
/* NULL is accepted. */
LOPE_API void lope_pmus__delete(struct lope_pmus *p);
/*
 * Leave out the events of the PMU with perf type @type (another layer
 * names them).  Its cpumask stays available to lope_pmus__cpu().
 */
LOPE_API int lope_pmus__hide_type(struct lope_pmus *p, uint32_t type);
/* How many events are listed. */
LOPE_API int lope_pmus__nr_events(const struct lope_pmus *p);
/* The index of @pmu's event @event, or -ENOENT. */
LOPE_API int lope_pmus__find(const struct lope_pmus *p, const char *pmu,
			     const char *event);
/* The names of event @idx, without reading sysfs. */
LOPE_API int lope_pmus__name(const struct lope_pmus *p, int idx,
			     const char **pmu, const char **event);
/*
 * Decode event @idx: @attr is zeroed and gets size, type and the config
 * fields from format/<term> bit ranges; @ev (may be NULL) gets the rest.
 */
LOPE_API int lope_pmus__event(const struct lope_pmus *p, int idx,
			      struct perf_event_attr *attr,
			      struct lope_pmu_event *ev);
/*
 * Encode @terms ("event=0xc0,umask=0x1", as in sysfs event files) for the
 * listed PMU named @pmu, as lope_pmus__event() does for a named event.
 */
LOPE_API int lope_pmus__encode(const struct lope_pmus *p, const char *pmu,
			       const char *terms, struct perf_event_attr *attr);
/* How many PMUs are listed, and the name of PMU @idx (sorted by name). */
LOPE_API int lope_pmus__nr_pmus(const struct lope_pmus *p);
LOPE_API const char *lope_pmus__pmu_name(const struct lope_pmus *p, int idx);
/*
 * The first cpu of the cpumask of the PMU with perf type @type, listed or
 * hidden; -1 in @cpu when the PMU has no cpumask (it counts on any cpu).
 */
LOPE_API int lope_pmus__cpu(const struct lope_pmus *p, uint32_t type, int *cpu);

/* The listed PMU @idx's "cpus" file ("0-3,8") into @buf; "" without one. */
LOPE_API int lope_pmus__pmu_cpus(const struct lope_pmus *p, int idx, char *buf,
				 size_t len);
/* The perf type of the listed PMU @idx. */
LOPE_API int lope_pmus__pmu_type(const struct lope_pmus *p, int idx,
				 uint32_t *type);

/*
 * Hybrid CPUs (Intel cpu_core + cpu_atom, Arm big.LITTLE, Apple): each core
 * type has a PMU of its own, and a task's event on one counts only while
 * the task runs on that PMU's cpus.  lope_cores lists the core PMUs with
 * a "cpus" file (those of LOPE_PMUS_CORE but a lone "cpu", which counts on
 * every cpu) with their cpus, and says how an event counts on
 * each: a generic event (PERF_TYPE_HARDWARE, HW_CACHE, or a raw encoding
 * that every core PMU's sysfs lists under one name) becomes one kernel
 * event per core PMU, whose counts a group sums into the one value
 * (lope_group__set_cores); an event of one PMU counts on its cpus only.
 * With one core PMU (or none) nothing is split and groups are as without.
 */
struct lope_cores;

/* At most this many core PMUs are used (more than any CPU has today). */
#define LOPE_CORES_MAX 8

LOPE_API int lope_cores__new(struct lope_cores **out, const char *root);
/* NULL is accepted. */
LOPE_API void lope_cores__delete(struct lope_cores *c);
/* How many core PMUs; 0 for NULL. */
LOPE_API int lope_cores__nr(const struct lope_cores *c);
/* Core PMU @i's sysfs name, perf type and "cpus" list ("0-3,8"). */
LOPE_API const char *lope_cores__name(const struct lope_cores *c, int i);
LOPE_API uint32_t lope_cores__type(const struct lope_cores *c, int i);
LOPE_API const char *lope_cores__cpus(const struct lope_cores *c, int i);
/*
 * How @attr counts: up to @max parts into @parts (the encoding on each
 * core PMU, with @pmu[k] its index), returning how many.  One part with
 * pmu -1: it counts wherever the task runs (software events, other PMUs,
 * or a machine with one core PMU).  One part with a PMU's index: that
 * core type only.  -ENOENT: a generic event with no equivalent on some
 * core PMU (it would silently count on part of the cpus).
 */
LOPE_API int lope_cores__split(const struct lope_cores *c,
			       const struct perf_event_attr *attr,
			       struct perf_event_attr *parts, int *pmu,
			       int max);
/*
 * Split @g's events over @c's core PMUs when it is opened: one kernel group
 * per core PMU with events on it (and one for the events that count
 * everywhere), values summed over the parts.  A part on a core PMU is
 * scaled by the time its own group ran (with LOPE_SEPARATE, the first of
 * its groups, opened pinned), never by the enabled time, which runs on
 * while the task is on the other core types.  @c must outlive @g (its
 * parts ask it on which core type the thread is); NULL or one core PMU:
 * nothing changes.  The group must not be open.
 */
LOPE_API int lope_group__set_cores(struct lope_group *g,
				   const struct lope_cores *c);

#endif /* LOPE_H */
