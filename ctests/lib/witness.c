/* SPDX-License-Identifier: BSD-3-Clause */
/* The witness thread of the sweeps (witness.h). */
#include "witness.h"

#include "papi_util.h"

static void *witness_main(void *arg)
{
	static const char *const names[] = { "perf::TASK-CLOCK" };
	struct witness *w = arg;
	long long t0;
	int rc;

	rc = PAPI_register_thread();
	if (rc == PAPI_OK)
		rc = make_named_set(&w->set, names, 1);
	if (rc == PAPI_OK)
		rc = PAPI_start(w->set);
	t0 = thread_ns();
	w->rc = rc;
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	while (!w->stop)
		busy_ns(100 * 1000);
	if (rc == PAPI_OK)
		w->rc = PAPI_stop(w->set, &w->final);
	w->cpu = thread_ns() - t0;
	drop_set(&w->set);
	(void)PAPI_unregister_thread();
	return NULL;
}

int witness_start(struct witness *w)
{
	memset(w, 0, sizeof(*w));
	w->set = PAPI_NULL;
	if (pthread_create(&w->thread, NULL, witness_main, w) != 0) {
		lope_fail("setup_witness_thread", "pthread_create failed");
		return -1;
	}
	while (!__atomic_load_n(&w->ready, __ATOMIC_ACQUIRE))
		sleep_ns(MS);
	if (!lope_check(w->rc == PAPI_OK, "setup_witness_set_running", "%s",
			papi_err(w->rc))) {
		w->stop = 1;
		(void)pthread_join(w->thread, NULL);
		return -1;
	}
	return 0;
}

void witness_finish(struct witness *w, const char *name)
{
	w->stop = 1;
	(void)pthread_join(w->thread, NULL);
	lope_check(w->rc == PAPI_OK && w->final >= w->last &&
			   near(w->final, w->cpu, 0.10, 2 * MS),
		   name,
		   "stop %s, final %lld ns, last read %lld, thread CPU %lld ns",
		   papi_err(w->rc), w->final, w->last, w->cpu);
}
