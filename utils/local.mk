# SPDX-License-Identifier: BSD-3-Clause
#
# utils/papi_overhead and utils/papi_accuracy measure our libpapi against
# another one.  Linked against our libpapi.so without an rpath: each
# re-executes itself with LD_LIBRARY_PATH set to our build, then to the
# stock build (utils/worker.c), so the dynamic linker, not the binary,
# chooses which libpapi is measured.  The build directories are compiled in
# as defaults for ours and --compare.
LOPE_WORKER_SOURCES = utils/worker.c utils/worker.h utils/tool.c utils/tool.h \
	utils/papi_common.h utils/line.c utils/line.h
LOPE_WORKER_CPPFLAGS = $(PAPI_OURS_CPPFLAGS) \
	-DLOPE_OURS_LIBDIR='"$(PAPI_OURS_BUILDDIR)"' \
	-DLOPE_STOCK_LIBDIR='"$(PAPI_STOCK_BUILDDIR)"'
LOPE_WORKER_LDADD = $(PAPI_OURS_LIBSO) -ldl
# utils/papi_overhead: what one call costs, by the timer, a hardware
# instructions counter or callgrind (see doc/papi_overhead.1 and
# utils/overhead/overhead.h).  Its framework floor swaps functions in
# PAPI's component vector, so it includes PAPI's internal headers with the
# macros PAPI's own Makefile gives them on Linux (PAPI_NUM_COMP only sizes
# a declaration there); its user-space reads use the engine's
# lopelib_mmap__read() and per-arch reader (src/mmap_read.h), guarded as the
# engine's are (src/guard.c: its own copy, as libpapi.so exports none).
bin_PROGRAMS += utils/papi_overhead
utils_papi_overhead_SOURCES = utils/overhead/main.c \
	utils/overhead/overhead.h utils/overhead/timer.h \
	utils/overhead/pick.c utils/overhead/events.c utils/overhead/cases.c \
	utils/overhead/meter.c utils/overhead/meter_cg.c \
	utils/overhead/papi_worker.c utils/overhead/framework.c \
	utils/overhead/floor_worker.c utils/overhead/sampling.c \
	utils/overhead/parent.c \
	utils/overhead/report.c utils/overhead/goals.c utils/overhead/csv.c \
	utils/overhead/plot.c src/guard.c $(LOPE_WORKER_SOURCES)
utils_papi_overhead_CPPFLAGS = $(LOPE_WORKER_CPPFLAGS) $(LOPE_CPPFLAGS) \
	-DOSLOCK='"linux-lock.h"' -DOSCONTEXT='"linux-context.h"' \
	-DPAPI_NUM_COMP=3
utils_papi_overhead_LDADD = $(LOPE_WORKER_LDADD) -lm
# papi.h comes from our PAPI build: build it before compiling.
$(utils_papi_overhead_OBJECTS): papi-ours.stamp
EXTRA_utils_papi_overhead_DEPENDENCIES = papi-ours.stamp

LOPE_DEMO_DEPS = utils/papi_overhead

dist_man1_MANS = doc/papi_overhead.1
EXTRA_DIST += doc/benchmarks.md

# utils/papi_accuracy: the error of instruction counts through PAPI, null
# and loop benchmarks (see doc/papi_accuracy.1 and
# utils/accuracy/accuracy.h), one worker per path
# (rdpmc, read(), stock).
bin_PROGRAMS += utils/papi_accuracy
utils_papi_accuracy_SOURCES = utils/accuracy/main.c \
	utils/accuracy/accuracy.h utils/accuracy/patterns.c \
	utils/accuracy/check_loop.c $(LOPE_WORKER_SOURCES)
utils_papi_accuracy_CPPFLAGS = $(LOPE_WORKER_CPPFLAGS)
utils_papi_accuracy_LDADD = $(LOPE_WORKER_LDADD)
$(utils_papi_accuracy_OBJECTS): papi-ours.stamp
EXTRA_utils_papi_accuracy_DEPENDENCIES = papi-ours.stamp
dist_man1_MANS += doc/papi_accuracy.1

# utils/papi_stat: count a whole command (see doc/papi_stat.1).  Linked
# statically against our libpapi.a: counting from the command's exec
# relies on our perf_event component (LOPE_ENABLE_ON_EXEC), so the tool
# carries it rather than taking whichever libpapi.so the loader finds.
bin_PROGRAMS += utils/papi_stat
# In a parallel job (utils/stat/job.h, doc/cluster.md) each rank writes
# its file into a directory and the last one, or papi_stat --merge,
# prints the merged report: no MPI library.
utils_papi_stat_SOURCES = utils/stat/main.c utils/stat/command.c \
	utils/stat/sets.c utils/stat/report.c utils/stat/job.c \
	utils/stat/merge.c utils/stat/command.h utils/stat/stat.h \
	utils/stat/job.h utils/tool.c utils/tool.h \
	utils/papi_common.h
utils_papi_stat_CPPFLAGS = $(PAPI_OURS_CPPFLAGS)
utils_papi_stat_LDADD = $(PAPI_OURS_LIBA) $(PAPI_STATIC_LIBS) -lm
$(utils_papi_stat_OBJECTS): papi-ours.stamp
EXTRA_utils_papi_stat_DEPENDENCIES = papi-ours.stamp
dist_man1_MANS += doc/papi_stat.1
EXTRA_DIST += doc/papi_stat.md doc/cluster.md

# utils/papi_which: which libpapi.so a program loads, why, and how to make
# it load ours (see doc/papi_which.1).  It reads the program's own
# loader's trace (its interpreter run as ldd runs it, under LD_DEBUG) and
# links no PAPI: it must answer the same whichever libpapi is installed.
# Its default for our library is where `make install` puts it.
bin_PROGRAMS += utils/papi_which
utils_papi_which_SOURCES = utils/which/main.c \
	utils/which/trace.c utils/which/which.h utils/tool.c utils/tool.h
utils_papi_which_CPPFLAGS = -DLOPE_LIBDIR='"$(libdir)"'
dist_man1_MANS += doc/papi_which.1
