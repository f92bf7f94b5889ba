# SPDX-License-Identifier: BSD-3-Clause
# Sanitizers, valgrind and bounded fuzzing (doc/testing-sanitize.md).
# Included from Makefile.am; paths are relative to the top directory.
# The three scripts build what they need themselves (into temporary
# directories): an ASan+UBSan engine, tests and copy of our libpapi, and
# the libFuzzer targets in ctests/fuzz/.  Each prints PASS/FAIL/SKIP lines
# and skips with a reason when its compiler or tool is missing.

EXTRA_DIST += \
	ctests/sanitize/test_asan.sh \
	ctests/sanitize/test_valgrind.sh \
	ctests/sanitize/asan.supp \
	ctests/sanitize/lsan.supp \
	ctests/sanitize/valgrind.supp \
	ctests/fuzz/test_fuzz.sh \
	ctests/fuzz/fuzz_mmap_read.c \
	ctests/fuzz/fuzz_sysfs_pmu.c \
	ctests/fuzz/fuzz_sysfs_pmu.dict \
	ctests/fuzz/corpus

LOPE_TESTS += \
	ctests/sanitize/test_asan.sh \
	ctests/sanitize/test_valgrind.sh \
	ctests/fuzz/test_fuzz.sh
