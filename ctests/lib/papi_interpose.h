/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * PAPI cases on the interposer's counts (interpose.h), above both the
 * interposer and the PAPI helpers (papi_util.h): only a test linked with
 * the interposer (the attribute interpose) may call them.
 */
#ifndef LOPE_PAPI_INTERPOSE_H
#define LOPE_PAPI_INTERPOSE_H

/*
 * The case @name: when @rc (what came before) is PAPI_OK, PAPI_read of
 * @set into @v makes at least @min read(2) calls.  The PAPI result, or
 * @rc.
 */
int papi_read_makes_reads(const char *name, int set, int rc, long long *v,
			  unsigned long min);

#endif /* LOPE_PAPI_INTERPOSE_H */
