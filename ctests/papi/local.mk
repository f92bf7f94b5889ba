# SPDX-License-Identifier: BSD-3-Clause
#
# ctests/papi: tests of our PAPI build (libpapi.so with our perf_event
# component) through the PAPI API.  Linked dynamically against
# $(PAPI_OURS_BUILDDIR)/libpapi.so; run-tests.sh sets LD_LIBRARY_PATH to
# that directory.  What each test proves: doc/testing-papi.md.

LOPE_PAPI_TEST_CPPFLAGS = $(PAPI_OURS_CPPFLAGS) -I$(top_srcdir)/ctests
LOPE_PAPI_TEST_LDADD = $(PAPI_OURS_LIBSO) -lpthread

check_PROGRAMS += ctests/papi/test_papi_api ctests/papi/test_pagefault \
	ctests/papi/test_threads ctests/papi/test_hw
LOPE_TESTS += ctests/papi/test_papi_api ctests/papi/test_pagefault \
	ctests/papi/test_threads ctests/papi/test_hw \
	ctests/papi/test_debian_tools.sh
EXTRA_DIST += ctests/papi/test_debian_tools.sh

ctests_papi_test_papi_api_SOURCES = ctests/papi/test_papi_api.c
ctests_papi_test_papi_api_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_papi_api_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_papi_api_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_papi_api_OBJECTS): papi-ours.stamp

ctests_papi_test_pagefault_SOURCES = ctests/papi/test_pagefault.c
ctests_papi_test_pagefault_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_pagefault_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_pagefault_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_pagefault_OBJECTS): papi-ours.stamp

ctests_papi_test_threads_SOURCES = ctests/papi/test_threads.c
ctests_papi_test_threads_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_threads_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_threads_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_threads_OBJECTS): papi-ours.stamp

ctests_papi_test_hw_SOURCES = ctests/papi/test_hw.c
ctests_papi_test_hw_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_hw_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_hw_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_hw_OBJECTS): papi-ours.stamp

# Overflow and profiling on kernel sampling (doc/design.md).
check_PROGRAMS += ctests/papi/test_overflow
LOPE_TESTS += ctests/papi/test_overflow

ctests_papi_test_overflow_SOURCES = ctests/papi/test_overflow.c ctests/papi/papi_util.h
ctests_papi_test_overflow_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_overflow_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_overflow_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_overflow_OBJECTS): papi-ours.stamp

# Path tests: attach, cpu/system-wide, inherit, domains, multiplexing,
# threads with non-OS ids, fork/exec (doc/testing-papi.md, doc/paths.md).
check_PROGRAMS += ctests/papi/test_attach
LOPE_TESTS += ctests/papi/test_attach

ctests_papi_test_attach_SOURCES = ctests/papi/test_attach.c ctests/papi/papi_util.h
ctests_papi_test_attach_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_attach_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_attach_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_attach_OBJECTS): papi-ours.stamp

check_PROGRAMS += ctests/papi/test_cpu
LOPE_TESTS += ctests/papi/test_cpu
ctests_papi_test_cpu_SOURCES = ctests/papi/test_cpu.c ctests/papi/papi_util.h
ctests_papi_test_cpu_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_cpu_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_cpu_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_cpu_OBJECTS): papi-ours.stamp

# The perf_event_uncore component: sysfs PMUs, scale/unit, system-wide.
check_PROGRAMS += ctests/papi/test_uncore
LOPE_TESTS += ctests/papi/test_uncore

ctests_papi_test_uncore_SOURCES = ctests/papi/test_uncore.c
ctests_papi_test_uncore_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_uncore_LDADD = $(LOPE_PAPI_TEST_LDADD) -lm
EXTRA_ctests_papi_test_uncore_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_uncore_OBJECTS): papi-ours.stamp

check_PROGRAMS += ctests/papi/test_inherit
LOPE_TESTS += ctests/papi/test_inherit
ctests_papi_test_inherit_SOURCES = ctests/papi/test_inherit.c ctests/papi/papi_util.h
ctests_papi_test_inherit_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_inherit_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_inherit_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_inherit_OBJECTS): papi-ours.stamp

# utils/papi_stat, and the component's LOPE_ENABLE_ON_EXEC it relies on.
check_PROGRAMS += ctests/papi/test_enable_on_exec
LOPE_TESTS += ctests/papi/test_enable_on_exec ctests/papi/test_papi_stat.sh
EXTRA_DIST += ctests/papi/test_papi_stat.sh
ctests_papi_test_enable_on_exec_SOURCES = ctests/papi/test_enable_on_exec.c
ctests_papi_test_enable_on_exec_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_enable_on_exec_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_enable_on_exec_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_enable_on_exec_OBJECTS): papi-ours.stamp

check_PROGRAMS += ctests/papi/test_domain
LOPE_TESTS += ctests/papi/test_domain
ctests_papi_test_domain_SOURCES = ctests/papi/test_domain.c ctests/papi/papi_util.h
ctests_papi_test_domain_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_domain_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_domain_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_domain_OBJECTS): papi-ours.stamp

check_PROGRAMS += ctests/papi/test_multiplex
LOPE_TESTS += ctests/papi/test_multiplex
ctests_papi_test_multiplex_SOURCES = ctests/papi/test_multiplex.c ctests/papi/papi_util.h
ctests_papi_test_multiplex_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_multiplex_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_multiplex_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_multiplex_OBJECTS): papi-ours.stamp

check_PROGRAMS += ctests/papi/test_threads2
LOPE_TESTS += ctests/papi/test_threads2
ctests_papi_test_threads2_SOURCES = ctests/papi/test_threads2.c ctests/papi/papi_util.h
ctests_papi_test_threads2_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_threads2_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_threads2_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_threads2_OBJECTS): papi-ours.stamp

check_PROGRAMS += ctests/papi/test_fork_exec
LOPE_TESTS += ctests/papi/test_fork_exec
ctests_papi_test_fork_exec_SOURCES = ctests/papi/test_fork_exec.c ctests/papi/papi_util.h
ctests_papi_test_fork_exec_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_fork_exec_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_fork_exec_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_fork_exec_OBJECTS): papi-ours.stamp

# test_utils.sh: utils/papi_overhead and utils/papi_accuracy (bin_PROGRAMS,
# built by `make` before `make check`) do what their man pages say.
LOPE_TESTS += ctests/papi/test_utils.sh
EXTRA_DIST += ctests/papi/test_utils.sh
# test_icount.sh: utils/papi_icount, the exact cost benchmark: its table,
# the same counts on two runs, its bad input (doc/papi_icount.1).
LOPE_TESTS += ctests/papi/test_icount.sh
EXTRA_DIST += ctests/papi/test_icount.sh

# Frontend-shaped tests (HPCToolkit, TAU, Score-P, Caliper), the bad-input
# sweep and the bounded stress test (doc/testing-papi.md,
# doc/reliability.md).
check_PROGRAMS += ctests/papi/test_frontend_hpctoolkit \
	ctests/papi/test_frontend_tau ctests/papi/test_frontend_scorep \
	ctests/papi/test_frontend_caliper ctests/papi/test_badinput \
	ctests/papi/test_stress
LOPE_TESTS += ctests/papi/test_frontend_hpctoolkit \
	ctests/papi/test_frontend_tau ctests/papi/test_frontend_scorep \
	ctests/papi/test_frontend_caliper ctests/papi/test_badinput \
	ctests/papi/test_stress

ctests_papi_test_frontend_hpctoolkit_SOURCES = ctests/papi/test_frontend_hpctoolkit.c ctests/papi/papi_util.h
ctests_papi_test_frontend_hpctoolkit_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_frontend_hpctoolkit_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_frontend_hpctoolkit_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_frontend_hpctoolkit_OBJECTS): papi-ours.stamp

ctests_papi_test_frontend_tau_SOURCES = ctests/papi/test_frontend_tau.c ctests/papi/papi_util.h
ctests_papi_test_frontend_tau_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_frontend_tau_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_frontend_tau_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_frontend_tau_OBJECTS): papi-ours.stamp

ctests_papi_test_frontend_scorep_SOURCES = ctests/papi/test_frontend_scorep.c ctests/papi/papi_util.h
ctests_papi_test_frontend_scorep_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_frontend_scorep_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_frontend_scorep_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_frontend_scorep_OBJECTS): papi-ours.stamp

ctests_papi_test_frontend_caliper_SOURCES = ctests/papi/test_frontend_caliper.c ctests/papi/papi_util.h
ctests_papi_test_frontend_caliper_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_frontend_caliper_LDADD = $(LOPE_PAPI_TEST_LDADD) -lm
EXTRA_ctests_papi_test_frontend_caliper_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_frontend_caliper_OBJECTS): papi-ours.stamp

ctests_papi_test_badinput_SOURCES = ctests/papi/test_badinput.c ctests/papi/papi_util.h
ctests_papi_test_badinput_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_badinput_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_badinput_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_badinput_OBJECTS): papi-ours.stamp

ctests_papi_test_stress_SOURCES = ctests/papi/test_stress.c ctests/papi/papi_util.h
ctests_papi_test_stress_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_stress_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_stress_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_stress_OBJECTS): papi-ours.stamp

# What depends on libpfm4's knowledge of the CPU runs again as on a CPU it
# does not know (ctests/run-tests.sh, doc/every-cpu.md).
LOPE_TESTS_GENERIC += ctests/papi/test_papi_api ctests/papi/test_hw \
	ctests/papi/test_modes ctests/papi/test_overflow \
	ctests/papi/test_badinput ctests/papi/test_debian_tools.sh \
	ctests/papi/test_papi_stat.sh ctests/papi/test_utils.sh \
	ctests/papi/test_icount.sh ctests/papi/test_frontend_hpctoolkit

# The component on any CPU: modes, generic presets, sysfs core events.
check_PROGRAMS += ctests/papi/test_modes
LOPE_TESTS += ctests/papi/test_modes
ctests_papi_test_modes_SOURCES = ctests/papi/test_modes.c ctests/papi/papi_util.h
ctests_papi_test_modes_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_modes_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_modes_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_modes_OBJECTS): papi-ours.stamp

# What the kernel allows this process: paranoid 3, root, refusals.
check_PROGRAMS += ctests/papi/test_permissions
LOPE_TESTS += ctests/papi/test_permissions
ctests_papi_test_permissions_SOURCES = ctests/papi/test_permissions.c ctests/papi/papi_util.h
ctests_papi_test_permissions_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_permissions_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_permissions_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_permissions_OBJECTS): papi-ours.stamp

# Kernel failures injected under the PAPI API through interposed libc
# calls (doc/reliability.md).
check_PROGRAMS += ctests/papi/test_faults_papi
LOPE_TESTS += ctests/papi/test_faults_papi
ctests_papi_test_faults_papi_SOURCES = ctests/papi/test_faults_papi.c ctests/papi/papi_util.h
ctests_papi_test_faults_papi_CPPFLAGS = $(LOPE_PAPI_TEST_CPPFLAGS)
ctests_papi_test_faults_papi_LDADD = $(LOPE_PAPI_TEST_LDADD)
EXTRA_ctests_papi_test_faults_papi_DEPENDENCIES = papi-ours.stamp
$(ctests_papi_test_faults_papi_OBJECTS): papi-ours.stamp
