/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * --csv: every combined result of every column, then the goals; 17 fields
 * on every line.
 */
#include <inttypes.h>
#include <stdio.h>

#include "overhead.h"

#define CSV_HEADER                                                         \
	"kind,path,call,id,events,n,median,p10,p25,p75,p90,min,max,timer," \
	"syscalls,faults,detail"

/* One CSV line of record @r of column @c. */
static void csv_rec(const struct col *c, const struct rec *r)
{
	const char *kind, *lab = id_label(r->id, &kind);

	printf("%s,%s,", kind, c->w.name);
	csv_str(lab);
	printf(",%s,%d,", r->id, r->nev);
	if (r->kind) {
		printf(",,,,,,,,%.0f,,,", c->timer);
		csv_str(r->kind == REC_ERR ? r->msg : "n/a");
		putchar('\n');
		return;
	}
	printf("%d,%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64 ",%" PRIu64
	       ",%" PRIu64 ",%" PRIu64 ",%.0f,",
	       r->st.n, r->st.med, r->st.p10, r->st.p25, r->st.p75, r->st.p90,
	       r->st.min, r->st.max, c->timer);
	if (r->st.sys >= 0)
		printf("%.3f", r->st.sys);
	putchar(',');
	if (r->st.flt >= 0)
		printf("%.3f", r->st.flt);
	putchar(',');
	csv_str(c->w.lib);
	putchar('\n');
}

void print_csv(const struct ovh *o)
{
	const char *ours = rdpmc_col_ok(o) ? "ours-rdpmc" : "ours-read";
	struct goal g[NGOALS];
	const struct col *c;
	char d[700];
	int k, i;

	printf(CSV_HEADER "\n");
	for (k = 0; k < WORKER_PATHS; k++)
		for (c = col_shown(o, k), i = 0; c && i < c->nrec; i++)
			csv_rec(c, &c->recs[i]);
	eval_goals(o, g);
	for (i = 0; i < NGOALS; i++) {
		printf("goal,%s,%s,%s,,,,,,,,,,,,,", ours, goal_ids[i],
		       goal_ids[i]);
		snprintf(d, sizeof(d), "%s: %s",
			 goal_verdict(&g[i], GOAL_MET, GOAL_MISSED), g[i].text);
		csv_str(d);
		putchar('\n');
	}
}
