/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * hpc_loop: the program test_hpctoolkit.sh profiles with hpcrun.  It
 * knows nothing of PAPI; hpcrun's preloaded runtime does the sampling.
 *
 *   hpc_loop THREADS MS
 *
 * Each of THREADS threads (the main one among them) spins in
 * hot_loop() for MS milliseconds of its own CPU time, then prints
 *
 *   thread T: loop NS cpu NS clock NS
 *
 * the CPU time the loop took, the thread's whole CPU time so far, and the
 * same with the loop's part on the thread's own task-clock (ctests/lib's
 * span, which opens it when the loop begins): the clock the sampled
 * perf::TASK-CLOCK runs on, which on a virtual machine runs ahead of the
 * CPU time by whatever the host stole while the thread was on the CPU (4
 * ms in 400 seen here under load; without the counter, clock is cpu).
 * The program prints the libpapi it has mapped
 * ("libpapi PATH", from /proc/self/maps; "libpapi none" without one).
 * hot_loop() is the only code on its lines that runs long, so every
 * sample of the loop lies on them: the script finds them by the marker
 * comments.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <linux/perf_event.h>

#include "span.h"

#define MAX_THREADS 8

static long long ms_each;

static long long thread_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* Spins @ns of this thread's CPU time; the clock is asked once a
 * million iterations, so the loop's own lines hold the samples. */
static __attribute__((noinline)) void hot_loop(long long ns)
{
	volatile unsigned long acc = 0;
	long long end = thread_ns() + ns;
	long i;

	do {
		for (i = 0; i < 1000000; i++)          /* hot_loop: begin */
			acc += (unsigned long)i ^ acc; /* hot_loop: end */
	} while (thread_ns() < end);
}

struct result {
	long long loop, cpu, clock;
};

static void *work(void *arg)
{
	struct result *r = arg;
	struct span s;
	int opened = span_open(&s, PERF_COUNT_SW_TASK_CLOCK, 0, 0) == 0;
	int counted = opened && span_mark(&s) == 0;
	long long t0 = thread_ns();

	hot_loop(ms_each * 1000000LL);
	r->cpu = thread_ns();
	r->loop = r->cpu - t0;
	r->clock = r->cpu;
	if (counted && span_mark(&s) == 0)
		r->clock = t0 + s.t[1] - s.t[0];
	if (opened)
		span_close(&s);
	return NULL;
}

/* The libpapi this process mapped, from /proc/self/maps. */
static void print_libpapi(void)
{
	char line[4096], *path;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f)) {
		path = strchr(line, '/');
		if (path && strstr(path, "/libpapi.so")) {
			printf("libpapi %s", path);
			fclose(f);
			return;
		}
	}
	if (f)
		fclose(f);
	printf("libpapi none\n");
}

int main(int argc, char **argv)
{
	struct result r[MAX_THREADS];
	pthread_t t[MAX_THREADS];
	int n, i;

	if (argc != 3 || (n = atoi(argv[1])) < 1 || n > MAX_THREADS ||
	    (ms_each = atoll(argv[2])) < 1) {
		fprintf(stderr, "usage: hpc_loop THREADS(1-%d) MS\n",
			MAX_THREADS);
		return 2;
	}
	for (i = 1; i < n; i++)
		if (pthread_create(&t[i], NULL, work, &r[i]) != 0) {
			perror("pthread_create");
			return 1;
		}
	work(&r[0]);
	for (i = 1; i < n; i++)
		pthread_join(t[i], NULL);
	for (i = 0; i < n; i++)
		printf("thread %d: loop %lld cpu %lld clock %lld\n", i,
		       r[i].loop, r[i].cpu, r[i].clock);
	print_libpapi();
	return 0;
}
