/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A software perf event of this thread opened with perf_event_open(2)
 * itself: a count that does not go through PAPI, to hold PAPI's against;
 * and whether the kernel opens an event at all, what PAPI should offer.
 */
#ifndef LOPE_SW_COUNTER_H
#define LOPE_SW_COUNTER_H

/*
 * Open the software event @config (PERF_COUNT_SW_*) counting this thread
 * on any CPU, without the kernel's part when @user_only (PAPI's default
 * domain); its descriptor (close-on-exec), or -1 with errno set.
 */
int sw_counter_open(unsigned long long config, int user_only);

/* The counter's value, or -1 when it cannot be read. */
long long sw_counter_read(int fd);

/*
 * Does the kernel open the event @type (PERF_TYPE_*) @config for this
 * thread, as sw_counter_open() does?  1 or 0; closed again at once.
 */
int perf_opens(unsigned int type, unsigned long long config, int user_only);

#endif /* LOPE_SW_COUNTER_H */
