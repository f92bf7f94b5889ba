# SPDX-License-Identifier: BSD-3-Clause
# Engine unit tests (doc/testing-engine.md).  Included from Makefile.am;
# paths are relative to the top directory.  `make check` runs everything
# in LOPE_TESTS through ctests/run-tests.sh.

LOPE_ENGINE_TEST_CPPFLAGS = -I$(top_srcdir)/src \
	-I$(top_srcdir)/src/arch/$(LOPE_ARCH) -I$(top_srcdir)/ctests
LOPE_ENGINE_TEST_LDADD = $(LOPE_ENGINE_LIB) -lpthread

check_PROGRAMS += \
	ctests/engine/test_mmap_read \
	ctests/engine/test_scale \
	ctests/engine/test_rdpmc_guard \
	ctests/engine/test_group \
	ctests/engine/test_reset_reuse \
	ctests/engine/test_faults \
	ctests/engine/test_sysfs_pmu \
	ctests/engine/test_hw_read

ctests_engine_test_mmap_read_SOURCES = ctests/engine/test_mmap_read.c
ctests_engine_test_mmap_read_CPPFLAGS = $(LOPE_ENGINE_TEST_CPPFLAGS)
ctests_engine_test_mmap_read_LDADD = $(LOPE_ENGINE_TEST_LDADD)

ctests_engine_test_scale_SOURCES = ctests/engine/test_scale.c
ctests_engine_test_scale_CPPFLAGS = $(LOPE_ENGINE_TEST_CPPFLAGS)
ctests_engine_test_scale_LDADD = $(LOPE_ENGINE_TEST_LDADD)

ctests_engine_test_rdpmc_guard_SOURCES = ctests/engine/test_rdpmc_guard.c
ctests_engine_test_rdpmc_guard_CPPFLAGS = $(LOPE_ENGINE_TEST_CPPFLAGS)
ctests_engine_test_rdpmc_guard_LDADD = $(LOPE_ENGINE_TEST_LDADD)

ctests_engine_test_group_SOURCES = ctests/engine/test_group.c
ctests_engine_test_group_CPPFLAGS = $(LOPE_ENGINE_TEST_CPPFLAGS)
ctests_engine_test_group_LDADD = $(LOPE_ENGINE_TEST_LDADD)

ctests_engine_test_sysfs_pmu_SOURCES = ctests/engine/test_sysfs_pmu.c
ctests_engine_test_sysfs_pmu_CPPFLAGS = $(LOPE_ENGINE_TEST_CPPFLAGS)
ctests_engine_test_sysfs_pmu_LDADD = $(LOPE_ENGINE_TEST_LDADD) -lm

ctests_engine_test_reset_reuse_SOURCES = ctests/engine/test_reset_reuse.c
ctests_engine_test_reset_reuse_CPPFLAGS = $(LOPE_ENGINE_TEST_CPPFLAGS)
ctests_engine_test_reset_reuse_LDADD = $(LOPE_ENGINE_TEST_LDADD)

ctests_engine_test_hw_read_SOURCES = ctests/engine/test_hw_read.c
ctests_engine_test_hw_read_CPPFLAGS = $(LOPE_ENGINE_TEST_CPPFLAGS)
ctests_engine_test_hw_read_LDADD = $(LOPE_ENGINE_TEST_LDADD)

ctests_engine_test_faults_SOURCES = ctests/engine/test_faults.c
ctests_engine_test_faults_CPPFLAGS = $(LOPE_ENGINE_TEST_CPPFLAGS)
ctests_engine_test_faults_LDADD = $(LOPE_ENGINE_TEST_LDADD)

# Shell tests run from the source tree (run-tests.sh looks there).
EXTRA_DIST += \
	ctests/run-tests.sh \
	ctests/tap.h \
	ctests/core_pmu.h \
	ctests/core_pmu.sh \
	ctests/engine/test_arch_cross.sh \
	ctests/engine/test_format.sh \
	.clang-format

LOPE_TESTS += \
	ctests/engine/test_mmap_read \
	ctests/engine/test_scale \
	ctests/engine/test_rdpmc_guard \
	ctests/engine/test_group \
	ctests/engine/test_reset_reuse \
	ctests/engine/test_faults \
	ctests/engine/test_sysfs_pmu \
	ctests/engine/test_hw_read \
	ctests/engine/test_arch_cross.sh \
	ctests/engine/test_format.sh
