/* SPDX-License-Identifier: BSD-3-Clause */
/* The witness thread of the sweeps (witness.h). */
#include "witness.h"

#include <linux/perf_event.h>

#include "papi_util.h"

/* Take the next mark of the span; remember the first failure's errno. */
static void mark(struct witness *w)
{
	if (span_mark(&w->span) && !w->span_err)
		w->span_err = errno ? errno : EIO;
}

static void *witness_main(void *arg)
{
	static const char *const names[] = { "perf::TASK-CLOCK" };
	struct witness *w = arg;
	int rc;

	if (span_open(&w->span, PERF_COUNT_SW_TASK_CLOCK, 0, 0))
		w->span_err = errno;
	rc = PAPI_register_thread();
	if (rc == PAPI_OK)
		rc = make_named_set(&w->set, names, 1);
	mark(w);
	if (rc == PAPI_OK)
		rc = PAPI_start(w->set);
	mark(w);
	w->rc = rc;
	__atomic_store_n(&w->ready, 1, __ATOMIC_RELEASE);
	while (!w->stop)
		busy_ns(100 * 1000);
	mark(w);
	if (rc == PAPI_OK)
		w->rc = PAPI_stop(w->set, &w->final);
	mark(w);
	span_close(&w->span);
	drop_set(&w->set);
	(void)PAPI_unregister_thread();
	return NULL;
}

int witness_start(struct witness *w)
{
	memset(w, 0, sizeof(*w));
	w->set = PAPI_NULL;
	w->span.fd = -1;
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
	if (w->span_err) {
		lope_fail(name, "the thread's own task-clock: %s",
			  strerror(w->span_err));
		return;
	}
	lope_check(
		w->rc == PAPI_OK && w->final >= w->last &&
			span_holds(&w->span, w->final),
		name,
		"stop %s, final %lld ns, last read %lld, the thread's task-clock %lld to %lld ns",
		papi_err(w->rc), w->final, w->last, span_lo(&w->span),
		span_hi(&w->span));
}
